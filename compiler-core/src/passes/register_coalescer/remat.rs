//! Rematerialization (LLVM's reMaterializeTrivialDef) and the late interval update.
//!
//! ```text
//!   %s = IMPLICIT_DEF         %s = IMPLICIT_DEF       (erased once %s is dead)
//!   ...                  ─▶   ...
//!   %d = COPY %s              %d = IMPLICIT_DEF       (the COPY is gone)
//! ```
//!
//! When a COPY cannot be joined, and the value it copies was made by an instruction
//! that is trivially rematerializable and as cheap as a move, reading no register,
//! that instruction is repeated into the destination right after the COPY and the
//! COPY is erased. Of the opcodes an NVPTX function holds here only IMPLICIT_DEF
//! qualifies: llc-22 marks none of NVPTX's immediate moves rematerializable, and
//! keeps their COPYs (the picture above shows the mechanism, with IMPLICIT_DEF). A COPY
//! of an IMPLICIT_DEF fails to join when that IMPLICIT_DEF is in another block and is
//! read after a def of the destination (tests/register_coalescer/remat_undef3.mir,
//! where llc-22 rematerializes it too). The source's interval then shrinks to its remaining
//! uses and a def left without uses is erased — at once while the source has fewer
//! than `late-remat-update-threshold` copy uses left, otherwise after the block walk
//! (and again after the retry rounds), all such sources together.

use super::Coalescer;
use crate::entity::EntityRef;
use crate::mir::opcode::flag;
use crate::mir::{oflag, Inst, Op, Reg, VReg};
use crate::trace::{Focus, Recorder, Step};
use alloc::format;
use alloc::vec::Vec;

/// What the rematerialization attempt found.
pub(super) enum Remat {
    /// The COPY was replaced by a copy of its source's def.
    Done,
    /// The source value comes from another COPY (joining that one may help later).
    DefIsCopy,
    /// Not rematerializable.
    No,
}

impl<R: Recorder> Coalescer<'_, '_, R> {
    /// The instruction defining the value `src` holds at `copy`, when it can be
    /// repeated there: as cheap as a move, one full def of `src`, no register read, no
    /// memory access or other side effect.
    fn trivial_def(&self, copy: Inst, src: VReg) -> Result<Inst, Remat> {
        let at = self.cx.si.inst_index(copy).ok_or(Remat::No)?;
        let r = &self.ranges[src.index()];
        let val = r.value_at(at.base()).ok_or(Remat::No)?;
        let info = r.valnos[val as usize];
        if info.is_phi_def {
            return Err(Remat::No);
        }
        let def = self.cx.si.inst_at(info.def).ok_or(Remat::No)?;
        let d = &self.cx.ed.f.insts[def];
        if d.is(Op::COPY) {
            return Err(Remat::DefIsCopy);
        }
        // LLVM also asks for the opcode's rematerializable bit, which the opcode table
        // does not record. NVPTX sets it on none of its own opcodes (llc-22 keeps
        // `%d = COPY %s` after `%s = MOV_B32_i 5` when the join fails: tests/
        // register_coalescer/remat.mir); the target-independent IMPLICIT_DEF has it.
        if !d.is(Op::IMPLICIT_DEF) {
            return Err(Remat::No);
        }
        let desc = d.desc();
        let unsafe_flags = flag::SIDE_EFFECTS | flag::MAY_LOAD | flag::MAY_STORE | flag::TERMINATOR;
        let one_full_def = d.vreg_defs().count() == 1
            && d.operands.iter().filter(|o| o.is_def()).count() == 1
            && d.operands.first().is_some_and(|o| {
                o.is_def()
                    && o.vreg_of() == Some(src)
                    && (o.subreg.is_none() || o.has(oflag::UNDEF))
            });
        let reads_reg = d
            .operands
            .iter()
            .any(|o| o.is_use() && o.get_reg().is_some());
        if !desc.has(flag::AS_CHEAP_AS_MOVE)
            || desc.flags & unsafe_flags != 0
            || desc.has(flag::VARIADIC)
            || !one_full_def
            || reads_reg
        {
            return Err(Remat::No);
        }
        Ok(def)
    }

    /// reMaterializeTrivialDef for `dst = COPY src`.
    pub(super) fn rematerialize(&mut self, copy: Inst, dst: VReg, src: VReg) -> Remat {
        let def = match self.trivial_def(copy, src) {
            Ok(d) => d,
            Err(e) => return e,
        };
        let Some(block) = self.cx.ed.f.layout.inst_block(copy) else {
            return Remat::No;
        };
        let after = self.cx.ed.f.layout.next_inst(copy);
        if !self.has_room(block, after) {
            return Remat::No;
        }
        let mut data = self.cx.ed.f.insts[def].clone();
        let o = &mut data.operands[0];
        o.set_reg(Reg::Virt(dst));
        o.subreg = None;
        o.set(oflag::UNDEF | oflag::DEAD, false);
        let new = self.insert_inst(block, after, data);
        self.erase_copy(copy);
        let class = super::common_class(self.cx.ed.f.vreg_class(dst), self.cx.ed.f.vreg_class(src));
        if let Ok(c) = class {
            self.cx.ed.set_class(dst, c);
        }
        self.refresh(&[dst]);
        self.stats.rematerialized += 1;
        let (dn, sn) = (self.name(dst), self.name(src));
        let op = if R::ENABLED {
            self.cx.ed.f.insts[def].table_name().into()
        } else {
            alloc::string::String::new()
        };
        self.step(|| {
            Step::new("remat", format!("{dn} = COPY {sn} cannot be joined, but {sn} here holds what `{op}` made — a rematerializable instruction as cheap as a move that reads no register. It is repeated into {dn} in place of the COPY."))
                .focus(Focus::inst(new))
        });
        self.after_remat(src);
        Remat::Done
    }

    /// The source of a remat loses a use: shrink it now, or (with many copy uses left)
    /// leave it for the late update.
    fn after_remat(&mut self, src: VReg) {
        if self.to_be_updated.contains(&src) {
            return;
        }
        let copy_uses = self.cx.du.uses[src]
            .iter()
            .filter(|&&i| self.cx.ed.f.insts[i].is(Op::COPY))
            .count() as u32;
        if copy_uses < self.opts.late_remat_update_threshold {
            self.shrink_and_drop_dead(src);
        } else {
            self.to_be_updated.push(src);
            let (sn, t) = (self.name(src), self.opts.late_remat_update_threshold);
            self.step(|| Step::new("late_remat_update", format!("{sn} still has {copy_uses} copy uses (late-remat-update-threshold is {t}): its interval is updated after all blocks are walked, not now.")));
        }
    }

    /// lateLiveIntervalUpdate: every source left for later is shrunk now.
    pub(super) fn late_interval_update(&mut self) {
        let list = core::mem::take(&mut self.to_be_updated);
        if list.is_empty() {
            return;
        }
        let n = list.len();
        self.step(|| Step::new("late_remat_update", format!("Late interval update: the {n} register(s) whose update was put off after rematerialization are shrunk to their uses now.")));
        for v in list {
            self.shrink_and_drop_dead(v);
        }
    }

    /// shrinkToUses plus eliminateDeadDefs: `v`'s range recomputed; a rematerializable
    /// def of it that no longer reaches a use is erased.
    fn shrink_and_drop_dead(&mut self, v: VReg) {
        self.refresh(&[v]);
        let dead: Vec<Inst> = self.cx.du.defs[v]
            .iter()
            .copied()
            .filter(|&i| self.is_dead_trivial_def(i, v))
            .collect();
        for i in dead {
            let vn = self.name(v);
            let op = if R::ENABLED {
                self.cx.ed.f.insts[i].table_name().into()
            } else {
                alloc::string::String::new()
            };
            self.step(|| {
                Step::new(
                    "dead_def",
                    format!("`{op}` into {vn} no longer reaches any use: erased."),
                )
                .focus(Focus::inst(i))
            });
            self.erase_copy(i);
        }
        self.refresh(&[v]);
    }

    fn is_dead_trivial_def(&self, i: Inst, v: VReg) -> bool {
        let Some(at) = self.cx.si.inst_index(i) else {
            return false;
        };
        let def = at.reg_slot();
        let live_after = self.ranges[v.index()]
            .segments
            .iter()
            .any(|s| s.start == def && s.end > def.dead_slot());
        let d = &self.cx.ed.f.insts[i];
        let reads_reg = d
            .operands
            .iter()
            .any(|o| o.is_use() && o.get_reg().is_some());
        let unsafe_flags = flag::SIDE_EFFECTS | flag::MAY_LOAD | flag::MAY_STORE | flag::TERMINATOR;
        !live_after
            && !d.is(Op::COPY)
            && d.desc().has(flag::AS_CHEAP_AS_MOVE)
            && d.desc().flags & unsafe_flags == 0
            && !reads_reg
            && d.operands.iter().filter(|o| o.is_def()).count() == 1
    }
}
