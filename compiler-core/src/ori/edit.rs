//! ORI edits: the unit of replay for the ORI stages (ptx-lower, the six GeneralOptimize
//! phases), as [`crate::trace::Edit`] is for MIR.
//!
//! ```text
//!  GeneralOptimize: f.touch_inst / touch_block / touch_reg (before each rewrite)
//!                     ──▶ Journal keeps the first state of each since the last step
//!  rec.ori_step(f, step) ──▶ take_edits: the touched parts, compared with f = [OriEdit]
//!                            attached to the step; the journal starts over
//!  ptx-lower: builds its edits as it places instructions (AddBlock, Insert, SetReg)
//!  replay: input function ── apply_ori_edit × edits of steps 1..k ──▶ the function at step k
//! ```
//!
//! The edits are what changed since the previous step: operands rewritten, flag marks
//! set, instructions replaced (opcode, class, guard), removed from or placed into a
//! block, register-table entries (def / use counts, defining instruction) set. The
//! journal holds only what the pass touched, never a copy of the function; it gives
//! the edits [`diff`] gives when comparing whole copies (a test compares the two at
//! every step). Invariant: applying a step's edits to the function as it was before
//! the step gives the function as it was when the step was recorded (tests replay
//! every step of every ORI stage and compare).

pub(crate) mod pack;

pub use pack::{PackedOriInst, PackedReg};

use super::{Block, BlockId, Function, Inst, InstId, Operand, RegId, RegInfo};
use crate::entity::EntityRef;
use crate::error::ReplayError;
use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;
use serde::Serialize;

/// One change to an ORI function. Instructions, blocks and registers are named by
/// their typed index (serialized as the plain number).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum OriEdit {
    /// Instruction `inst` (new in storage, or re-placed) goes at position `index` of
    /// block `block`.
    Insert {
        inst: InstId,
        block: BlockId,
        index: u32,
        #[serde(skip)]
        data: PackedOriInst,
    },
    /// Instruction `inst` leaves block `block` (it stays in storage).
    Erase { inst: InstId, block: BlockId },
    /// Operand `operand` of `inst` now refers to something else (another register, an
    /// immediate, a modifier).
    RewriteOperand {
        inst: InstId,
        operand: u32,
        #[serde(skip)]
        new: Box<Operand>,
    },
    /// Only the marks (0x100 / 0x200 / 0x400, see [`super::flag`]) or the type field of
    /// an operand changed: `before` and `after` are its mark bits.
    SetMark {
        inst: InstId,
        operand: u32,
        before: u32,
        after: u32,
        #[serde(skip)]
        ty: u8,
    },
    /// The instruction as a whole changed (opcode, class, guard, operand count).
    Replace {
        inst: InstId,
        #[serde(skip)]
        new: Box<Inst>,
    },
    /// A block's instruction order, when it changed other than by inserts and erases.
    SetLayout {
        block: BlockId,
        insts: Box<[InstId]>,
    },
    /// A new block (ptx-lower builds the function block by block).
    AddBlock {
        block: BlockId,
        #[serde(skip)]
        label: Option<Box<str>>,
    },
    /// Register-table entry `reg` set (created when `reg` is the table's length).
    SetReg {
        reg: RegId,
        #[serde(skip)]
        info: PackedReg,
    },
}

// A step holds its edits in one array: each edit is as large as the largest, so the
// large parts (a whole instruction, an operand, a register entry) sit behind a box; a
// placed instruction and a register entry are kept packed ([`pack`]: ptx-lower adds one
// of each per instruction it lowers, GeneralOptimize few).
// Only what replay applies is kept (a rewrite's new value, not its old one).
const _: () = assert!(core::mem::size_of::<OriEdit>() <= 24);

impl OriEdit {
    /// The edit's kind as the rows of a view name it.
    pub fn op(&self) -> &'static str {
        match self {
            OriEdit::Insert { .. } => "insert",
            OriEdit::Erase { .. } => "erase",
            OriEdit::RewriteOperand { .. } => "rewrite_operand",
            OriEdit::SetMark { .. } => "set_mark",
            OriEdit::Replace { .. } => "replace",
            OriEdit::SetLayout { .. } => "set_layout",
            OriEdit::AddBlock { .. } => "add_block",
            OriEdit::SetReg { .. } => "set_reg",
        }
    }
    /// The instruction the edit touches, if any.
    pub fn inst(&self) -> Option<InstId> {
        match self {
            OriEdit::Insert { inst, .. }
            | OriEdit::Erase { inst, .. }
            | OriEdit::RewriteOperand { inst, .. }
            | OriEdit::SetMark { inst, .. }
            | OriEdit::Replace { inst, .. } => Some(*inst),
            _ => None,
        }
    }
}

/// The edits that turn `old` into `new` (instructions, blocks and the register table;
/// the signature, declarations and scopes are the stage's input and never change).
pub fn diff(old: &Function, new: &Function) -> Vec<OriEdit> {
    let mut out = Vec::new();
    for (b, nb) in new.blocks.iter().skip(old.blocks.len()) {
        out.push(OriEdit::AddBlock {
            block: b,
            label: nb.label.as_deref().map(Box::from),
        });
    }
    for (id, n) in new.insts.iter() {
        let Some(o) = old.insts.get(id) else {
            continue;
        };
        if o != n {
            diff_inst(id, o, n, &mut out);
        }
    }
    let empty = Block {
        label: None,
        insts: Vec::new(),
    };
    for (b, nb) in new.blocks.iter() {
        let ob = old.blocks.get(b).unwrap_or(&empty);
        if ob.insts != nb.insts {
            diff_layout(b, &ob.insts, &nb.insts, new, &mut out);
        }
    }
    for (r, info) in new.regs.iter() {
        if old.regs.get(r) != Some(info) {
            out.push(OriEdit::SetReg {
                reg: r,
                info: PackedReg::new(info),
            });
        }
    }
    out
}

fn diff_inst(inst: InstId, o: &Inst, n: &Inst, out: &mut Vec<OriEdit>) {
    let same_shape = o.class == n.class
        && o.opcode == n.opcode
        && o.ndst == n.ndst
        && o.guard == n.guard
        && o.origin == n.origin
        && o.scope == n.scope
        && o.operands.len() == n.operands.len();
    if !same_shape {
        out.push(OriEdit::Replace {
            inst,
            new: Box::new(n.clone()),
        });
        return;
    }
    for (k, (a, b)) in o.operands.iter().zip(&n.operands).enumerate() {
        if a == b {
            continue;
        }
        let only_flags = a.kind == b.kind
            && a.neg == b.neg
            && a.abs == b.abs
            && a.imm_constraint == b.imm_constraint;
        out.push(if only_flags {
            OriEdit::SetMark {
                inst,
                operand: k as u32,
                before: a.flags,
                after: b.flags,
                ty: b.ty,
            }
        } else {
            OriEdit::RewriteOperand {
                inst,
                operand: k as u32,
                new: Box::new(b.clone()),
            }
        });
    }
}

/// Erases, then inserts in increasing position; a reordering of the instructions both
/// lists hold is a [`OriEdit::SetLayout`].
fn diff_layout(
    block: BlockId,
    old: &[InstId],
    new: &[InstId],
    f: &Function,
    out: &mut Vec<OriEdit>,
) {
    // Membership by instruction number (a flag table, not a set: no sort in the wasm).
    let marks = |ids: &[InstId]| {
        let n = old
            .iter()
            .chain(new)
            .map(|i| i.index() + 1)
            .max()
            .unwrap_or(0);
        let mut m = alloc::vec![false; n];
        for i in ids {
            m[i.index()] = true;
        }
        m
    };
    let (in_new, in_old) = (marks(new), marks(old));
    let kept_old: Vec<InstId> = old.iter().copied().filter(|i| in_new[i.index()]).collect();
    let kept_new: Vec<InstId> = new.iter().copied().filter(|i| in_old[i.index()]).collect();
    if kept_old != kept_new {
        out.push(OriEdit::SetLayout {
            block,
            insts: new.into(),
        });
        return;
    }
    for i in old.iter().filter(|i| !in_new[i.index()]) {
        out.push(OriEdit::Erase { inst: *i, block });
    }
    for (k, i) in new.iter().enumerate() {
        if !in_old[i.index()] {
            // New in storage, or placed again: the data travels with the edit (replay
            // uses it only for a new one; an instruction already in storage changed, if
            // at all, by the edits made above).
            let data = PackedOriInst::new(&f.insts[*i]);
            out.push(OriEdit::Insert {
                inst: *i,
                block,
                index: k as u32,
                data,
            });
        }
    }
}

fn inst_id(f: &Function, inst: InstId) -> Result<InstId, ReplayError> {
    match f.insts.get(inst) {
        Some(_) => Ok(inst),
        None => Err(ReplayError(format!("no instruction {inst}"))),
    }
}

fn block_mut(f: &mut Function, block: BlockId) -> Result<&mut Block, ReplayError> {
    f.blocks
        .get_mut(block)
        .ok_or_else(|| ReplayError(format!("no block {}", block.index())))
}

fn operand_mut(f: &mut Function, inst: InstId, k: u32) -> Result<&mut Operand, ReplayError> {
    let id = inst_id(f, inst)?;
    f.insts[id]
        .operands
        .get_mut(k as usize)
        .ok_or_else(|| ReplayError(format!("{inst} has no operand {k}")))
}

/// Applies one edit to `f`.
pub fn apply_ori_edit(f: &mut Function, e: &OriEdit) -> Result<(), ReplayError> {
    match e {
        OriEdit::Insert {
            inst,
            block,
            index,
            data,
        } => {
            if f.insts.get(*inst).is_none() {
                if inst.index() != f.insts.len() {
                    return Err(ReplayError(format!(
                        "insert of {inst}, storage has {}",
                        f.insts.len()
                    )));
                }
                f.insts.push(data.get());
            }
            let b = block_mut(f, *block)?;
            if *index as usize > b.insts.len() {
                return Err(ReplayError(format!(
                    "insert at {index} of block {}",
                    block.index()
                )));
            }
            b.insts.insert(*index as usize, *inst);
        }
        OriEdit::Erase { inst, block } => {
            let b = block_mut(f, *block)?;
            let k = b.insts.iter().position(|x| x == inst).ok_or_else(|| {
                ReplayError(format!("erase of {inst}, not in block {}", block.index()))
            })?;
            b.insts.remove(k);
        }
        OriEdit::RewriteOperand {
            inst, operand, new, ..
        } => *operand_mut(f, *inst, *operand)? = (**new).clone(),
        OriEdit::SetMark {
            inst,
            operand,
            after,
            ty,
            ..
        } => {
            let o = operand_mut(f, *inst, *operand)?;
            o.flags = *after;
            o.ty = *ty;
        }
        OriEdit::Replace { inst, new, .. } => {
            let id = inst_id(f, *inst)?;
            f.insts[id] = (**new).clone();
        }
        OriEdit::SetLayout { block, insts } => {
            let b = block_mut(f, *block)?;
            b.insts.clear();
            b.insts.extend_from_slice(insts);
        }
        OriEdit::AddBlock { block, label } => {
            if block.index() != f.blocks.len() {
                return Err(ReplayError(format!(
                    "add block {}, the function has {}",
                    block.index(),
                    f.blocks.len()
                )));
            }
            f.blocks.push(Block {
                label: label.as_deref().map(alloc::string::String::from),
                insts: Vec::new(),
            });
        }
        OriEdit::SetReg { reg, info } => {
            if f.regs.get(*reg).is_some() {
                f.regs[*reg] = info.get();
            } else if reg.index() == f.regs.len() {
                f.regs.push(info.get());
            } else {
                return Err(ReplayError(format!(
                    "register {reg}, the table has {}",
                    f.regs.len()
                )));
            }
        }
    }
    Ok(())
}

/// What a traced ORI pass changed since its last step, kept without a copy of the
/// function: before each rewrite the pass touches what it is about to change
/// ([`Function::touch_inst`], [`Function::touch_block`], [`Function::touch_reg`]), and
/// the journal keeps the first state it saw of each since the previous step (an
/// instruction, a block's order, a register's counts). [`take_edits`] compares those
/// with the function as it is now: the edits [`diff`] would give against a whole copy,
/// in the same order, at the cost of what changed.
///
/// Of a register entry only the counts are kept (defs, uses, defining instruction,
/// constraint word): the GeneralOptimize passes change nothing else in the table, and
/// add neither registers, blocks nor instructions to storage (what is new since the
/// last step is found by the sizes).
#[derive(Clone, Debug, Default)]
pub struct Journal {
    /// The sizes of the block list, storage and register table at the last step.
    blocks_len: usize,
    insts_len: usize,
    regs_len: usize,
    insts: Vec<(InstId, Inst)>,
    layouts: Vec<(BlockId, Vec<InstId>)>,
    regs: Vec<(RegId, RegCounts)>,
    /// Which instructions, blocks and registers were touched since the last step.
    inst_bits: Vec<u64>,
    block_bits: Vec<u64>,
    reg_bits: Vec<u64>,
}

/// The part of a register entry a pass rewrites (through its tally).
#[derive(Clone, Debug, PartialEq)]
struct RegCounts {
    defs: u32,
    uses: u32,
    def_anchor: Option<InstId>,
    constraint: u32,
}

impl RegCounts {
    fn of(r: &RegInfo) -> Self {
        RegCounts {
            defs: r.defs,
            uses: r.uses,
            def_anchor: r.def_anchor,
            constraint: r.constraint,
        }
    }
}

/// Sets bit `i`; true when it was clear.
fn first_touch(bits: &mut Vec<u64>, i: usize) -> bool {
    let (w, b) = (i / 64, 1u64 << (i % 64));
    if bits.len() <= w {
        bits.resize(w + 1, 0);
    }
    let fresh = bits[w] & b == 0;
    bits[w] |= b;
    fresh
}

/// Clears the bits of `ids` and empties the list, giving back a large list's room.
fn forget_touched<T>(bits: &mut [u64], list: &mut Vec<T>, id: impl Fn(&T) -> usize) {
    for e in list.iter() {
        let i = id(e);
        bits[i / 64] &= !(1u64 << (i % 64));
    }
    if list.capacity() > 64 {
        *list = Vec::new();
    } else {
        list.clear();
    }
}

impl Journal {
    /// The edits since the last step, in [`diff`]'s order.
    fn edits(&mut self, f: &Function) -> Vec<OriEdit> {
        let mut out = Vec::new();
        // What is new since the last step, by index: an iterator's `skip` would walk
        // every older entry at every step (a trace of B block steps costing B²).
        let new_blocks = (self.blocks_len..f.blocks.len()).map(BlockId::new);
        for b in new_blocks.clone() {
            out.push(OriEdit::AddBlock {
                block: b,
                label: f.blocks[b].label.as_deref().map(Box::from),
            });
        }
        // One entry an id (first_touch), so the shared sort's stable order is the order.
        crate::sort::sort_by_key(&mut self.insts, |e| e.0.index() as u128);
        for (id, o) in &self.insts {
            let n = &f.insts[*id];
            if o != n {
                diff_inst(*id, o, n, &mut out);
            }
        }
        crate::sort::sort_by_key(&mut self.layouts, |e| e.0.index() as u128);
        for (b, old) in &self.layouts {
            let Some(nb) = f.blocks.get(*b) else { continue };
            if *old != nb.insts {
                diff_layout(*b, old, &nb.insts, f, &mut out);
            }
        }
        for b in new_blocks {
            if !f.blocks[b].insts.is_empty() {
                diff_layout(b, &[], &f.blocks[b].insts, f, &mut out);
            }
        }
        crate::sort::sort_by_key(&mut self.regs, |e| e.0.index() as u128);
        let changed = self
            .regs
            .iter()
            .filter(|(r, old)| f.regs.get(*r).is_some_and(|n| RegCounts::of(n) != *old))
            .map(|(r, _)| *r);
        let added = (self.regs_len..f.regs.len()).map(RegId::new);
        for r in changed.chain(added) {
            out.push(OriEdit::SetReg {
                reg: r,
                info: PackedReg::new(&f.regs[r]),
            });
        }
        out
    }

    /// Starts over from `f` as it is now.
    fn restart(&mut self, f: &Function) {
        forget_touched(&mut self.inst_bits, &mut self.insts, |e| e.0.index());
        forget_touched(&mut self.block_bits, &mut self.layouts, |e| e.0.index());
        forget_touched(&mut self.reg_bits, &mut self.regs, |e| e.0.index());
        self.blocks_len = f.blocks.len();
        self.insts_len = f.insts.len();
        self.regs_len = f.regs.len();
    }
}

/// The edits since the last step of the pass journaling `f` (none when it is not);
/// the journal starts over from `f` as it is now.
pub fn take_edits(f: &mut Function) -> Vec<OriEdit> {
    let Some(mut j) = f.journal.take() else {
        return Vec::new();
    };
    let out = j.edits(f);
    j.restart(f);
    f.journal = Some(j);
    out
}

impl Function {
    /// A traced pass starts changing the function: from here, what it touches is
    /// journaled ([`Journal`]), until [`Function::end_journal`].
    pub fn start_journal(&mut self) {
        let mut j = Journal::default();
        j.restart(self);
        self.journal = Some(Box::new(j));
    }

    /// The pass is done: the edits since its last step, and no journal any more.
    pub fn end_journal(&mut self) -> Vec<OriEdit> {
        let out = take_edits(self);
        self.journal = None;
        out
    }

    /// Instruction `id` is about to change (an operand, its guard, the whole of it).
    #[inline]
    pub fn touch_inst(&mut self, id: InstId) {
        if let Some(j) = self.journal.as_deref_mut() {
            if id.index() < j.insts_len && first_touch(&mut j.inst_bits, id.index()) {
                j.insts.push((id, self.insts[id].clone()));
            }
        }
    }

    /// Block `b`'s instruction list is about to change (an instruction leaves it).
    #[inline]
    pub fn touch_block(&mut self, b: BlockId) {
        if let Some(j) = self.journal.as_deref_mut() {
            if b.index() < j.blocks_len && first_touch(&mut j.block_bits, b.index()) {
                j.layouts.push((b, self.blocks[b].insts.clone()));
            }
        }
    }

    /// Register `r`'s counts are about to change.
    #[inline]
    pub fn touch_reg(&mut self, r: RegId) {
        if let Some(j) = self.journal.as_deref_mut() {
            if r.index() < j.regs_len && first_touch(&mut j.reg_bits, r.index()) {
                j.regs.push((r, RegCounts::of(&self.regs[r])));
            }
        }
    }

    /// Every register's counts are about to change (a full recount).
    pub fn touch_all_regs(&mut self) {
        if self.journal.is_some() {
            for k in 0..self.regs.len() {
                self.touch_reg(RegId::new(k));
            }
        }
    }

    /// True while a traced pass journals the function's changes.
    #[inline]
    pub fn journaling(&self) -> bool {
        self.journal.is_some()
    }
}
