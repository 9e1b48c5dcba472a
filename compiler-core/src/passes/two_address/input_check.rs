//! Input the pass refuses, found before it runs so the pipeline can name each construct
//! with line:column (the pass itself cannot fail):
//!
//! - an EXTRACT_SUBREG pair whose def or source is not a register (an immediate
//!   source has nothing to COPY from; lowering the other pairs alone loses a def);
//! - a tied instruction whose def's register is also read by another operand: the
//!   tie's COPY into that register would overwrite the value the other operand reads
//!   (LLVM's pass takes SSA input and never meets this; out of SSA it would be wrong);
//! - a function for an x86 target: x86 ties a use to its def through its instruction
//!   descriptors (ADD32rr's first source, with no `tied-def` in the text), which are
//!   not modelled here — llc-22 makes 36 COPYs on the corpus' xtra_x86_tied_subreg
//!   where ignoring those ties made 27.

use super::extract_subreg::bad_pairs;
use super::tied::tied_def_index;
use crate::mir::{oflag, Function, Inst, Op, Opcode, Target};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One refused construct: the instruction, the operand to point at, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub inst: Inst,
    pub operand: Option<usize>,
    pub message: String,
}

/// Everything in `f` two-address refuses. `triple` is the module's target triple.
pub fn unsupported_input(f: &Function, triple: Option<&str>) -> Vec<Refusal> {
    let mut out = Vec::new();
    let x86 = f.target == Target::Foreign
        && triple.is_some_and(|t| {
            t.starts_with("x86") || t.starts_with("i386") || t.starts_with("i686")
        });
    for (_, i) in f.all_insts() {
        let d = &f.insts[i];
        if d.is(Op::EXTRACT_SUBREG) {
            for (pair, op, why) in bad_pairs(d) {
                out.push(Refusal {
                    inst: i,
                    operand: Some(op),
                    message: format!(
                        "two-address cannot lower EXTRACT_SUBREG pair {} to a COPY: {why}",
                        pair + 1
                    ),
                });
            }
        }
        let has = |def: bool| {
            d.operands
                .iter()
                .any(|o| o.is_def() == def && o.vreg_of().is_some())
        };
        if let (true, Opcode::Other(name)) = (x86 && has(true) && has(false), d.opcode) {
            out.push(Refusal {
                inst: i,
                operand: None,
                message: format!(
                    "two-address on x86: whether `{}` ties a source to its def is in x86's instruction descriptors, which CopyScope does not model (only NVPTX's ties and explicit `tied-def` operands)",
                    f.sym(name)
                ),
            });
            return out;
        }
        out.extend(def_read_elsewhere(f, i));
    }
    out
}

/// Ties whose def register another operand of the same instruction also reads.
fn def_read_elsewhere(f: &Function, i: Inst) -> Vec<Refusal> {
    let d = &f.insts[i];
    let mut out = Vec::new();
    for (src_idx, src) in d.operands.iter().enumerate() {
        let Some(dst_idx) = tied_def_index(d, src_idx) else {
            continue;
        };
        if !src.is_use() {
            continue;
        }
        let Some(a) = d.operands[dst_idx].vreg_of() else {
            continue;
        };
        if src.vreg_of() == Some(a) {
            continue;
        }
        let other = d.operands.iter().enumerate().find(|&(k, o)| {
            k != src_idx
                && k != dst_idx
                && o.is_use()
                && o.vreg_of() == Some(a)
                && !o.has(oflag::UNDEF)
        });
        if let Some((k, _)) = other {
            out.push(Refusal {
                inst: i,
                operand: Some(k),
                message: format!(
                    "two-address needs the tied def's register to be read only through its tie: %{} is the def tied to operand {src_idx} and operand {k} reads it too, so the tie's COPY would overwrite the value operand {k} reads (write the instruction in SSA form)",
                    crate::entity::EntityRef::index(a)
                ),
            });
        }
    }
    out
}
