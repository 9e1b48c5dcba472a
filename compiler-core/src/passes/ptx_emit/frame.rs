//! A function's stack frame as llc-22 prints it: the `__local_depot<k>` array, the
//! `%SP`/`%SPL` frame registers, and frame indices (`%stack.N`) turned into `%SP`
//! plus the object's offset.
//!
//! ```text
//!  stack: objects ─ layout ─→ offsets, depot size and alignment   (NVPTXPrologEpilogPass)
//!  %stack.N, off  ─ lower ──→ $SP, offset(N) + off                  (eliminateFrameIndex)
//!  cvta_to_local (LEA $SP, off) → LEA $SPL, off; the first LEA goes
//!  when nothing else reads it                                       (NVPTXPeephole)
//!  prologue: mov.b64 %SPL, __local_depot<k>  when %SPL is read,
//!            cvta.local.u64 %SP, %SPL          when %SP is read      (emitPrologue)
//! ```
//!
//! The objects come from the MIR header's `stack:` section. The stack grows up from
//! offset 0: each object in index order is placed at the next multiple of its
//! alignment, and the frame is rounded up to its largest alignment (a leaf-style
//! frame: `adjustsStack` is false on every input llc-22 gives us; a variable-sized
//! object takes no bytes but raises the rounding to the 8-byte stack alignment).

use crate::mir::{Function, Op, Opcode, OperandKind, Reg};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The frame register (`%SP`, generic address of the depot) and the local one
/// (`%SPL`), as MIR names them.
pub const FRAME_REG: &str = "VRFrame64";
pub const FRAME_LOCAL_REG: &str = "VRFrameLocal64";

/// The PTX spelling of a frame register, if `name` is one.
pub fn ptx_name(name: &str) -> Option<&'static str> {
    match name {
        FRAME_REG => Some("%SP"),
        FRAME_LOCAL_REG => Some("%SPL"),
        _ => None,
    }
}

/// Offsets of the stack objects and the depot's size and alignment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// Offset of object N (by `%stack.N` index).
    pub offsets: Vec<i64>,
    /// Bytes of the depot; 0: none is declared.
    pub size: u64,
    /// Its alignment (the largest object alignment).
    pub align: u64,
    /// Some object exists (the prologue is considered).
    pub has_objects: bool,
}

struct Object {
    id: usize,
    size: u64,
    align: u64,
}

/// `key: value` of one `{ ... }` entry of a frame section.
fn field<'a>(entry: &'a str, key: &str) -> Option<&'a str> {
    entry.split(',').find_map(|kv| {
        let (k, v) = kv.split_once(':')?;
        (k.trim().trim_start_matches(['-', '{', ' ']) == key)
            .then(|| v.trim().trim_end_matches('}').trim())
    })
}

/// The objects of the `stack:` section (entries may span lines).
fn objects(raw: &str) -> Result<Vec<Object>, String> {
    let mut out = Vec::new();
    for entry in raw.split("- {").skip(1) {
        let num = |k: &str| field(entry, k).and_then(|v| v.parse::<u64>().ok());
        let id = num("id").ok_or("a stack object without an `id`")? as usize;
        let variable = field(entry, "type") == Some("variable-sized");
        let size = if variable {
            0
        } else {
            num("size").unwrap_or(0)
        };
        let align = num("alignment").unwrap_or(1).max(1);
        out.push(Object { id, size, align });
    }
    crate::sort::sort_by_key(&mut out, |o| o.id as u128);
    Ok(out)
}

/// The frame of `f` (None when its header declares no stack objects).
pub fn layout(f: &Function) -> Result<Option<Frame>, String> {
    if f.frame.iter().any(|(k, _)| k == "fixedStack") {
        return Err("fixed stack objects (`fixedStack:`) have no PTX frame layout here".into());
    }
    let Some((_, raw)) = f.frame.iter().find(|(k, _)| k == "stack") else {
        return Ok(None);
    };
    let objs = objects(raw)?;
    let variable = raw.contains("variable-sized");
    let mut offsets = alloc::vec![0i64; objs.last().map_or(0, |o| o.id + 1)];
    let (mut offset, mut max_align) = (0u64, 1u64);
    for o in &objs {
        max_align = max_align.max(o.align);
        offset = offset.next_multiple_of(o.align);
        offsets[o.id] = offset as i64;
        offset += o.size;
    }
    let stack_align = if variable { 8 } else { 1 };
    let size = offset.next_multiple_of(max_align.max(stack_align));
    Ok(Some(Frame {
        offsets,
        size,
        align: max_align,
        has_objects: !objs.is_empty(),
    }))
}

/// What lowering the frame did, for the prologue and the narration.
#[derive(Clone, Debug, Default)]
pub struct Lowered {
    /// `%SP` / `%SPL` are read after lowering.
    pub sp_used: bool,
    pub spl_used: bool,
    /// Frame indices replaced, address conversions folded into `%SPL`, address
    /// computations dropped as unused.
    pub replaced: usize,
    pub folded: usize,
    pub dropped: usize,
}

fn opcode_name<'a>(f: &'a Function, op: &Opcode) -> &'a str {
    match *op {
        Opcode::Known(o) => o.name(),
        Opcode::Other(s) => f.sym(s),
    }
}

/// Replaces every frame index of `f` by `$VRFrame64` with the object's offset added
/// to the immediate after it, then folds `cvta_to_local_64` of such an address into
/// an address computation from `$VRFrameLocal64` (removing the first one when nothing
/// else reads it), as llc-22's prologue/epilogue pass and peephole do.
pub fn lower(f: &mut Function, frame: &Frame) -> Result<Lowered, String> {
    let sp = Reg::Phys(f.names.intern(FRAME_REG));
    let spl = Reg::Phys(f.names.intern(FRAME_LOCAL_REG));
    let mut low = Lowered::default();
    let insts: Vec<_> = f.all_insts().map(|(_, i)| i).collect();
    for &i in &insts {
        // Lifetime markers name a frame object but print nothing (llc's AsmPrinter
        // emits no instruction for them): no address to compute.
        if matches!(
            f.insts[i].opcode,
            Opcode::Known(Op::LIFETIME_START | Op::LIFETIME_END)
        ) {
            continue;
        }
        let ops = &mut f.insts[i].operands;
        for k in 0..ops.len() {
            let OperandKind::Stack { fixed, index } = ops[k].kind else {
                continue;
            };
            if fixed {
                return Err(format!("%fixed-stack.{index} has no PTX frame layout here"));
            }
            let off = *frame
                .offsets
                .get(index as usize)
                .ok_or_else(|| format!("%stack.{index} is not in the `stack:` section"))?;
            let next = ops
                .get_mut(k + 1)
                .filter(|o| matches!(o.kind, OperandKind::Imm(_)))
                .ok_or_else(|| format!("%stack.{index} is not followed by an offset"))?;
            if let OperandKind::Imm(v) = next.kind {
                next.kind = OperandKind::Imm(v + off);
            }
            ops[k].kind = OperandKind::Reg(sp);
            low.replaced += 1;
        }
    }
    fold_local_conversions(f, &insts, (sp, spl), &mut low);
    for &i in &insts {
        if f.layout.inst_block(i).is_none() {
            continue;
        }
        for o in &f.insts[i].operands {
            if let OperandKind::Reg(r) = o.kind {
                low.sp_used |= r == sp;
                low.spl_used |= r == spl;
            }
        }
    }
    // The prologue's `cvta.local.u64 %SP, %SPL` reads %SPL.
    low.spl_used |= low.sp_used;
    Ok(low)
}

/// `%d = cvta_to_local_64 %a` where `%a = LEA $SP, off` (the frame-address row of the
/// description: one def, its uses the frame register and an offset) becomes
/// `%d = LEA $SPL, off`; `%a`'s LEA is removed when `%d`'s was its only read.
fn fold_local_conversions(
    f: &mut Function,
    insts: &[crate::mir::Inst],
    (sp, spl): (Reg, Reg),
    low: &mut Lowered,
) {
    for &i in insts {
        if opcode_name(f, &f.insts[i].opcode) != "cvta_to_local_64" {
            continue;
        }
        let d = &f.insts[i];
        let Some(Reg::Virt(src)) = d
            .operands
            .get(d.lhs_defs as usize)
            .and_then(|o| o.get_reg())
        else {
            continue;
        };
        let lea = insts.iter().copied().find(|&j| {
            let e = &f.insts[j];
            let uses = &e.operands[e.lhs_defs as usize..];
            f.layout.inst_block(j).is_some()
                && e.lhs_defs == 1
                && e.vreg_defs().any(|(_, v)| v == src)
                && uses.len() == 2
                && uses[0].get_reg() == Some(sp)
                && matches!(uses[1].kind, OperandKind::Imm(_))
        });
        let Some(lea) = lea else {
            continue;
        };
        let readers = insts
            .iter()
            .filter(|&&j| f.layout.inst_block(j).is_some())
            .filter(|&&j| {
                let e = &f.insts[j];
                e.operands[e.lhs_defs as usize..]
                    .iter()
                    .any(|o| o.get_reg() == Some(Reg::Virt(src)))
            })
            .count();
        let def = f.insts[i].operands[0];
        let mut folded = f.insts[lea].clone();
        folded.operands[0] = def;
        folded.operands[folded.lhs_defs as usize].kind = OperandKind::Reg(spl);
        f.insts[i] = folded;
        low.folded += 1;
        if readers == 1 {
            f.layout.remove_inst(lea);
            low.dropped += 1;
        }
    }
}
