//! INLINEASM (spec ISD 0x10): the asm text, an extra-info word, then for each constraint
//! a flag word followed by its register or immediate, in constraint order. A read-write
//! operand (`"+r"`) is an output whose tied input is appended after all the others, as
//! clang rewrites `"+r"` into `"=r"` plus a trailing `"0"`.
//!
//! Flag words use LLVM's encoding: kind in bits 0–2 (1 use, 2 def, 3 early-clobber def,
//! 5 immediate), operand count in bits 3–15, then either the register class id + 1 in
//! bits 16–30 or, for a tied use, bit 31 and the output's operand number in bits 16–30.
//! `B32` (4) and `B64` (6) are the values llc-22 prints; the other widths use our own.

use super::{Emitter, RecordKind, ResultRecord};
use crate::dag::{
    asm_groups, letter_type, target, AsmConstraint, Attrs, Dag, Node, Operand, ASM_EXTRA_NAMES,
};
use crate::error::SourceError;
use crate::mir::operand::Sigil;
use crate::mir::{oflag, Family, InstData, Op, Opcode, Operand as MOp, OperandKind, Reg};
use crate::trace::Recorder;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

const KIND_USE: u64 = 1;
const KIND_DEF: u64 = 2;
const KIND_DEF_EC: u64 = 3;
const KIND_IMM: u64 = 5;
const TIED: u64 = 1 << 31;

fn class_field(f: Family) -> (u64, &'static str) {
    match f {
        Family::B1 => (1, "B1"),
        Family::B16 => (2, "B16"),
        Family::B32 => (4, "B32"),
        Family::B64 => (6, "B64"),
        Family::B128 => (7, "B128"),
    }
}

impl<R: Recorder> Emitter<'_, '_, '_, R> {
    pub(crate) fn inline_asm(&mut self, n: Node) -> Result<(), SourceError> {
        let dag = self.dag;
        let d = &dag.nodes[n];
        let Some(Operand::Str(text)) = d.operands.get(1) else {
            unreachable!("checked by the parser")
        };
        let glue = d.glue_operand(&dag.nodes).is_some();
        let groups = asm_groups(&d.operands, glue).expect("checked by the parser");
        let mut ops: Vec<MOp> = Vec::new();
        // MIR holds the text as llc-22 prints it: newline `\0A`, tab `\09`, ...
        let sym = self.ed.intern(&crate::dag::llvm_escape(text));
        ops.push(MOp::new(OperandKind::Global {
            sym,
            sigil: Sigil::AmpQuoted,
            offset: 0,
        }));
        let (extra, names) = extra_info(&d.attrs);
        ops.push(self.flagged(extra, &names));
        // MIR index of each output slot's def operand.
        let mut def_at: Vec<Option<usize>> = Vec::new();
        let mut appended: Vec<(usize, usize, usize)> = Vec::new(); // (slot, def index, operand k)
        let mut summary: Vec<String> = Vec::new();
        for (slot, g) in groups.iter().enumerate() {
            match g.constraint {
                AsmConstraint::Output { .. } | AsmConstraint::ReadWrite { .. } => {
                    let letter = g.constraint.letter().unwrap_or('r');
                    let ec = matches!(
                        g.constraint,
                        AsmConstraint::Output {
                            early_clobber: true,
                            ..
                        }
                    );
                    let (field, cname) = class_field(family_of(letter));
                    let kind = if ec { KIND_DEF_EC } else { KIND_DEF };
                    let word = kind | (1 << 3) | (field << 16);
                    ops.push(self.flagged(
                        word as i64,
                        &format!("{}:{cname}", if ec { "regdef-ec" } else { "regdef" }),
                    ));
                    let Operand::Reg { reg, .. } = &d.operands[g.operands[0]] else {
                        unreachable!("checked by the parser")
                    };
                    let r = self.reg_of(reg);
                    let mut flags = oflag::DEF;
                    if ec {
                        flags |= oflag::EARLY_CLOBBER;
                    }
                    def_at.push(Some(ops.len()));
                    ops.push(MOp::reg(r, flags));
                    summary.push(format!(
                        "${slot} \"{}\" writes {}",
                        g.text,
                        self.reg_name(r)
                    ));
                    if let AsmConstraint::ReadWrite { .. } = g.constraint {
                        appended.push((slot, ops.len() - 1, g.operands[1]));
                    }
                }
                AsmConstraint::Input { letter } => {
                    def_at.push(None);
                    let (field, cname) = class_field(family_of(letter));
                    ops.push(self.flagged(
                        (KIND_USE | (1 << 3) | (field << 16)) as i64,
                        &format!("reguse:{cname}"),
                    ));
                    let k = g.operands[0];
                    let r = self.asm_input(n, k, letter)?;
                    summary.push(format!("${slot} \"{}\" reads {}", g.text, self.reg_name(r)));
                    ops.push(MOp::reg(r, 0));
                }
                AsmConstraint::Tied { output } => {
                    def_at.push(None);
                    ops.push(self.flagged(
                        (KIND_USE | (1 << 3) | TIED | ((output as u64) << 16)) as i64,
                        &format!("reguse tiedto:${output}"),
                    ));
                    let k = g.operands[0];
                    let letter = groups[output as usize].constraint.letter().unwrap_or('r');
                    let r = self.asm_input(n, k, letter)?;
                    let mut u = MOp::reg(r, 0);
                    u.tied_def = def_at[output as usize]
                        .map(|i| tie_index(dag, n, i))
                        .transpose()?;
                    summary.push(format!(
                        "${slot} \"{}\" reads {} in ${output}'s register",
                        g.text,
                        self.reg_name(r)
                    ));
                    ops.push(u);
                }
                AsmConstraint::Imm => {
                    def_at.push(None);
                    ops.push(self.flagged((KIND_IMM | (1 << 3)) as i64, "imm"));
                    let v = match d.operands[g.operands[0]] {
                        Operand::Const { value, .. } => value,
                        _ => 0,
                    };
                    summary.push(format!("${slot} is the immediate {v}"));
                    ops.push(MOp::imm(v));
                }
            }
        }
        for (slot, def_idx, k) in appended {
            let letter = groups[slot].constraint.letter().unwrap_or('r');
            ops.push(self.flagged(
                (KIND_USE | (1 << 3) | TIED | ((slot as u64) << 16)) as i64,
                &format!("reguse tiedto:${slot}"),
            ));
            let r = self.asm_input(n, k, letter)?;
            let mut u = MOp::reg(r, 0);
            u.tied_def = Some(tie_index(dag, n, def_idx)?);
            summary.push(format!(
                "the \"+\" input {} is appended, tied to ${slot}",
                self.reg_name(r)
            ));
            ops.push(u);
        }
        // The `!srcloc` metadata comes last, as EmitSpecialNode adds it after the operands.
        if let Some(m) = d.attrs.srcloc {
            let sym = self.ed.intern(&format!("!{m}"));
            ops.push(MOp::new(OperandKind::Verbatim(sym)));
        }
        let mut data = InstData::new(Opcode::Known(Op::INLINEASM), ops);
        data.lhs_defs = 0;
        let i = self.append(n, data);
        if self.ed.f.insts[i].vreg_defs().next().is_some() {
            self.records.push(ResultRecord {
                node: n,
                inst: i,
                kind: RecordKind::Other,
            });
        }
        let name = dag.name_of(n);
        self.node_step(
            n,
            "inline_asm",
            alloc::vec![i],
            format!(
                "{name} is inline asm \"{text}\": {}. Each operand is preceded by a flag word that encodes its kind and class, or the output it is tied to.",
                summary.join("; ")
            ),
            "inline_asm",
        );
        Ok(())
    }

    /// An immediate carrying a `/* comment */` (the flag words).
    fn flagged(&mut self, v: i64, comment: &str) -> MOp {
        let mut o = MOp::imm(v);
        o.comment = Some(self.ed.intern(comment));
        o
    }

    /// An asm input: a value or register, fitted to the constraint letter's class.
    fn asm_input(&mut self, n: Node, k: usize, letter: char) -> Result<Reg, SourceError> {
        // Run as llc-22's, the constraint's class is the width class it prints (`b32`).
        let want = if self.opts.llc22 {
            target::llc22_class(letter_type(letter))
        } else {
            target::typed_class(letter_type(letter))
        };
        match &self.dag.nodes[n].operands[k] {
            Operand::Value(v) => {
                let r = self.get_vr(*v, n, k)?;
                self.constrain_use(r, want, Some(*v), n)
            }
            Operand::Reg { reg, .. } => {
                let r = self.reg_of(reg);
                self.constrain_use(r, want, None, n)
            }
            _ => unreachable!("checked by the parser"),
        }
    }
}

/// The extra-info word and the names MIR prints after it (`sideeffect isconvergent
/// attdialect`): the node's `sideeffect` and other asm attributes; the dialect is AT&T.
fn extra_info(a: &Attrs) -> (i64, String) {
    let mut names: Vec<&str> = Vec::new();
    if a.side_effect {
        names.push("sideeffect");
    }
    for (bit, name) in ASM_EXTRA_NAMES {
        if a.asm_extra & bit != 0 {
            names.push(name);
        }
    }
    names.push("attdialect");
    (a.side_effect as i64 | a.asm_extra as i64, names.join(" "))
}

/// An output's operand index as a tie (operands hold it in a byte).
fn tie_index(dag: &Dag, n: Node, def_idx: usize) -> Result<u8, SourceError> {
    u8::try_from(def_idx).map_err(|_| {
        let (l, c) = dag.pos(n);
        SourceError::new(
            l,
            c,
            format!("inline asm output at operand {def_idx}: a tied input can name an output among the first 256 operands only"),
        )
    })
}

fn family_of(letter: char) -> Family {
    target::typed_class(letter_type(letter))
        .and_then(|c| c.family())
        .unwrap_or(Family::B32)
}
