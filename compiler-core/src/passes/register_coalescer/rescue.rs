//! Removing a COPY whose registers cannot be joined (LLVM's adjustCopiesBackFrom and
//! removePartialRedundancy). Both edit the code, then bring the two registers'
//! ranges up to date from it.
//!
//! ```text
//!  adjustCopiesBackFrom               removePartialRedundancy
//!    %a = COPY %b    (b's value V)      pred0: %a = COPY %b   pred1: ...
//!    ... last use of %b                          \              /
//!    %b = COPY %a    ─▶ erased:           loop:  %b = COPY %a   (a: merged at entry)
//!  %b keeps V down to the old COPY     ─▶ COPY erased here, a new `%b = COPY %a`
//!  (nothing redefines %b in between)      at the end of pred1 (one successor)
//! ```

use super::{full_copy, Coalescer};
use crate::entity::EntityRef;
use crate::liveness::{LiveRange, SlotIndex};
use crate::mir::{Block, Inst, InstData, Op, Opcode, Operand, VReg};
use crate::trace::{Focus, Recorder, Step};
use alloc::format;
use alloc::vec;

/// The point just before `i` (LLVM's getPrevSlot).
fn prev_slot(i: SlotIndex) -> SlotIndex {
    SlotIndex::from_raw(i.raw().saturating_sub(1))
}

/// Whether `r` is live anywhere in `[start, end)`.
fn overlaps(r: &LiveRange, start: SlotIndex, end: SlotIndex) -> bool {
    r.segments.iter().any(|s| s.start < end && s.end > start)
}

impl<R: Recorder> Coalescer<'_, '_, R> {
    /// adjustCopiesBackFrom for `b = COPY a`: when `a`'s value there was copied from
    /// `b` earlier (`a = COPY b`), `b`'s segment holding that value ends in this
    /// block and `b` is not live between that end and this COPY, `b` can simply keep
    /// its old value up to here: the COPY is erased.
    pub(super) fn adjust_copies_back_from(&mut self, copy: Inst, b: VReg, a: VReg) -> bool {
        let Some(at) = self.cx.si.inst_index(copy) else {
            return false;
        };
        let (rb, ra) = (&self.ranges[b.index()], &self.ranges[a.index()]);
        let Some(bs) = rb.find(at.reg_slot()) else {
            return false;
        };
        if rb.valnos[rb.segments[bs].valno as usize].def != at.reg_slot() {
            return false;
        }
        let Some(aval) = ra.value_at(at.early_clobber_slot()) else {
            return false;
        };
        let adef = ra.valnos[aval as usize];
        let Some(acopy) = (!adef.is_phi_def)
            .then(|| self.cx.si.inst_at(adef.def))
            .flatten()
        else {
            return false;
        };
        if full_copy(self.cx.ed.f, acopy) != Some((a, b)) {
            return false;
        }
        let Some(vals) = rb.find(prev_slot(adef.def)) else {
            return false;
        };
        let end_inst = self.cx.si.inst_at(prev_slot(rb.segments[vals].end));
        let block = self.cx.ed.f.layout.inst_block(copy);
        if end_inst.and_then(|i| self.cx.ed.f.layout.inst_block(i)) != block || vals + 1 != bs {
            return false;
        }
        self.erase_copy(copy);
        self.refresh(&[a, b]);
        self.stats.copies_extended += 1;
        let (an, bn) = (self.name(a), self.name(b));
        self.step(|| {
            Step::new("adjust_copies_back_from", format!("{bn} = COPY {an} cannot be joined, but {an} here is a copy of {bn}'s own earlier value and nothing writes {bn} in between: {bn} keeps that value down to this point and the COPY is erased."))
                .focus(Focus::vreg(b))
        });
        true
    }

    /// The value of `a` reaching the end of `pred` comes from `a = COPY b` in `pred`
    /// and `b` is not redefined after it there.
    fn reverse_copy_in(&self, pred: Block, a: VReg, b: VReg) -> bool {
        let Some(end) = self.cx.si.block_end(pred) else {
            return false;
        };
        let ra = &self.ranges[a.index()];
        let Some(pval) = ra.value_at(prev_slot(end)) else {
            return false;
        };
        let pdef = ra.valnos[pval as usize];
        let Some(def) = (!pdef.is_phi_def)
            .then(|| self.cx.si.inst_at(pdef.def))
            .flatten()
        else {
            return false;
        };
        if full_copy(self.cx.ed.f, def) != Some((a, b))
            || self.cx.ed.f.layout.inst_block(def) != Some(pred)
        {
            return false;
        }
        !self.ranges[b.index()]
            .valnos
            .iter()
            .any(|v| pdef.def < v.def && v.def < end)
    }

    /// removePartialRedundancy for `b = COPY a` in a block with two predecessors,
    /// where `a` is merged at the block's entry and one predecessor ends with the
    /// reverse copy `a = COPY b`: along that edge the COPY does nothing, so it moves
    /// into the other predecessor (if that one has a single successor, so it is no
    /// hotter) or, when both predecessors hold the reverse copy, simply goes.
    pub(super) fn remove_partial_redundancy(&mut self, copy: Inst, b: VReg, a: VReg) -> bool {
        let (Some(at), Some(mbb)) = (self.cx.si.inst_index(copy), self.cx.ed.f.layout.inst_block(copy))
        else {
            return false;
        };
        if self.preds[mbb].len() != 2 {
            return false;
        }
        let ra = &self.ranges[a.index()];
        let use_at = at.early_clobber_slot();
        if !ra
            .value_at(use_at)
            .is_some_and(|v| ra.valnos[v as usize].is_phi_def)
        {
            return false;
        }
        let Some(start) = self.cx.si.block_start(mbb) else {
            return false;
        };
        if overlaps(&self.ranges[b.index()], start, use_at) {
            return false;
        }
        let mut found = false;
        let mut left = None;
        for &p in &self.preds[mbb] {
            if self.reverse_copy_in(p, a, b) {
                found = true;
            } else {
                left = Some(p);
            }
        }
        if !found {
            return false;
        }
        let mut placed = None;
        if let Some(p) = left {
            if self.cx.ed.f.blocks[p].succs.len() > 1 {
                return false;
            }
            let ins = self.cx.ed.f.first_terminator(p);
            if let (Some(t), Some(end)) = (
                ins.and_then(|t| self.cx.si.inst_index(t)),
                self.cx.si.block_end(p),
            ) {
                if overlaps(&self.ranges[b.index()], t.early_clobber_slot(), end) {
                    return false;
                }
            }
            if !self.has_room(p, ins) {
                return false;
            }
            let mut d = InstData::new(
                Opcode::Known(Op::COPY),
                vec![
                    Operand::vreg(b, crate::mir::oflag::DEF),
                    Operand::vreg(a, 0),
                ],
            );
            d.lhs_defs = 1;
            placed = Some((p, self.insert_inst(p, ins, d)));
        }
        self.erase_copy(copy);
        self.refresh(&[a, b]);
        self.stats.partial_redundancy += 1;
        let (an, bn) = (self.name(a), self.name(b));
        let mn = self.cx.ed.f.blocks[mbb].number;
        let placed = placed.map(|(p, new)| (self.cx.ed.f.blocks[p].number, new));
        self.step(|| match placed {
            Some((pn, new)) => {
                Step::new("partial_redundancy", format!("{bn} = COPY {an} in %bb.{mn} is redundant on the edge whose predecessor ends with {an} = COPY {bn}: it moves to the end of %bb.{pn}, the other predecessor, which has no other successor."))
                    .focus(Focus::inst(new))
            }
            None => Step::new("partial_redundancy", format!("{bn} = COPY {an} in %bb.{mn}: both predecessors end with {an} = COPY {bn}, so the COPY does nothing and is erased."))
                .focus(Focus::vreg(b)),
        });
        true
    }
}
