//! Dead copies (LLVM's `allDefsAreDead` check in joinCopy, then
//! LiveRangeEdit::eliminateDeadDefs).
//!
//! ```text
//!   %a = COPY %b        (%a never read: its value dies at the def)
//!     ─▶ erased; %b shrinks to its remaining uses; a def of %b left without a
//!        reader (a COPY, or any instruction safe to delete) is erased in turn,
//!        and so on; a def that must stay (another result is read, or it has a
//!        side effect) gets a `dead` flag instead.
//! ```
//!
//! Without this a dead PHI's copies survive the first run (the destination's value
//! conflicts with the source though nobody reads it), and a second run, which finds
//! the copy dead from the start, joins it: the pass would not be idempotent.

use super::Coalescer;
use crate::entity::EntityRef;
use crate::mir::opcode::flag;
use crate::mir::{oflag, Inst, Op, VReg};
use crate::trace::{Focus, Recorder, Step};
use alloc::format;
use alloc::vec::Vec;

impl<R: Recorder> Coalescer<'_, '_, R> {
    /// Whether the value `v` gets at `i` is never read (its segment ends at the def).
    /// An early-clobber def's segment starts at the early-clobber slot, before the
    /// uses are read, not at the register slot.
    fn def_is_dead(&self, i: Inst, v: VReg) -> bool {
        let Some(at) = self.cx.si.inst_index(i) else {
            return false;
        };
        let early = self.cx.ed.f.insts[i]
            .operands
            .iter()
            .any(|o| o.is_def() && o.vreg_of() == Some(v) && o.has(oflag::EARLY_CLOBBER));
        let def = if early {
            at.early_clobber_slot()
        } else {
            at.reg_slot()
        };
        !self.ranges[v.index()]
            .segments
            .iter()
            .any(|s| s.start == def && s.end > def.dead_slot())
    }

    /// Every register `i` defines is dead there (MachineInstr::allDefsAreDead).
    fn all_defs_dead(&self, i: Inst) -> bool {
        let d = &self.cx.ed.f.insts[i];
        d.operands.iter().all(|o| {
            !o.is_def()
                || match o.vreg_of() {
                    Some(v) => self.def_is_dead(i, v),
                    None => o.has(oflag::DEAD),
                }
        })
    }

    /// isSafeToMove: nothing but its results would be lost by deleting `i`.
    fn safe_to_delete(&self, i: Inst) -> bool {
        let d = &self.cx.ed.f.insts[i];
        let unsafe_flags = flag::SIDE_EFFECTS | flag::MAY_LOAD | flag::MAY_STORE | flag::TERMINATOR;
        d.is(Op::COPY)
            || d.is(Op::IMPLICIT_DEF)
            || (d.desc().flags & unsafe_flags == 0 && !d.desc().has(flag::VARIADIC))
    }

    /// `copy`'s destination is never read: the COPY and every def only it kept alive
    /// are erased. True when the COPY is gone.
    pub(super) fn erase_dead_copy(&mut self, copy: Inst) -> bool {
        if !self.all_defs_dead(copy) {
            return false;
        }
        let mut dead = alloc::vec![copy];
        let mut erased = 0u64;
        while let Some(i) = dead.pop() {
            if !self.cx.ed.f.layout.is_inserted(i) || !self.safe_to_delete(i) {
                continue;
            }
            let ops = &self.cx.ed.f.insts[i].operands;
            let mut read: Vec<VReg> = ops
                .iter()
                .filter(|o| o.is_use())
                .filter_map(|o| o.vreg_of())
                .collect();
            read.dedup();
            // The erased defs' values leave their registers' ranges too.
            let mut touched: Vec<VReg> = ops.iter().filter_map(|o| o.vreg_of()).collect();
            crate::sort::sort_by_key(&mut touched, |v| v.index() as u128);
            touched.dedup();
            self.dead_step(i, erased == 0);
            self.erase_copy(i);
            erased += 1;
            self.refresh(&touched);
            for v in read {
                let defs: Vec<Inst> = self.cx.du.defs[v].to_vec();
                for d in defs {
                    if !self.def_is_dead(d, v) {
                        continue;
                    }
                    self.mark_dead(d, v);
                    if self.all_defs_dead(d) && !dead.contains(&d) {
                        dead.push(d);
                    }
                }
            }
        }
        self.stats.dead_erased += erased;
        self.progress += 1;
        true
    }

    /// addRegisterDead: the def of `v` at `i` carries the `dead` flag.
    fn mark_dead(&mut self, i: Inst, v: VReg) {
        let d = &self.cx.ed.f.insts[i];
        if d.operands
            .iter()
            .all(|o| !o.is_def() || o.vreg_of() != Some(v) || o.has(oflag::DEAD))
        {
            return;
        }
        self.cx.ed.modify(i, |d| {
            for o in d.operands.iter_mut() {
                if o.is_def() && o.vreg_of() == Some(v) {
                    o.set(oflag::DEAD, true);
                }
            }
        });
    }

    fn dead_step(&mut self, i: Inst, first: bool) {
        if !R::ENABLED {
            return;
        }
        let op = self.cx.ed.f.insts[i].table_name();
        let regs: Vec<alloc::string::String> = self.cx.ed.f.insts[i]
            .vreg_defs()
            .map(|(_, v)| self.name(v))
            .collect();
        let what = regs.join(", ");
        let text = if first {
            format!("`{what} = {op}` defines a value nobody reads (the copy is dead): erased, and the registers it read shrink to their remaining uses.")
        } else {
            format!("`{what} = {op}` only fed the instruction just erased: it is dead now and erased too.")
        };
        self.step(|| Step::new("dead_copy", text).focus(Focus::inst(i)));
    }
}
