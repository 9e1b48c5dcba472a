//! Keeping value numbers and kill flags true while merges erase copies.
//!
//! ```text
//!  before      %g [16r,48r:0)   %k [48r,96r:0)       48: %k = IMOV32rr killed %g
//!  joined      %k [16r,48r:0)[48r,96r:1)             (union keeps one value per def)
//!  copy erased %k [16r,96r:0)                        value 1 (def at the erased copy)
//!                                                    folds into value 0, the one it read
//! ```
//!
//! A value whose def was an erased copy (a copy a merge turned into `%k = MOV %k`, or one
//! that was such a self-copy from the start) is the value that copy read: it folds into
//! it, as LLVM's `MergeValueNumberInto` does when the generic coalescer erases an
//! identity copy. A merge point (PHI-def) whose incoming values are then all one value
//! (its own value through a back edge aside) no longer merges anything and folds into
//! that value too. Without this (the `no_value_renumbering` mutation switch) an erased
//! identity move's dead value stays a segment of its own that "continues" the one
//! before it, so the range is not cut back to its last read and overlaps a register
//! defined after that read: self-move.mir's `%2 = COPY %1` is refused as interference
//! (tests/nvptx_coalescer_values.rs). After a merge, a range still ending at an erased
//! copy is recomputed anyway (`merge`), so there folding saves that recompute.
//!
//! Kill flags: a use of a merged register is `killed` exactly when the merged range
//! ends there (LLVM's verifier rejects a kill followed by a later read or a live-out).
//! They are rewritten for every register a merge produced: after each merge when the
//! run is traced (so every step shows true flags), and for all of them once at the end.

use super::Nvptx;
use crate::entity::{EntityRef, SecondaryMap};
use crate::liveness::{LiveRange, SlotIndex, SlotIndexes, ValNo};
use crate::mir::cfg::Cfg;
use crate::mir::{oflag, Block, Inst, VReg};
use crate::trace::{Focus, Recorder, Step};
use alloc::format;
use alloc::vec::Vec;

/// Folds the values defined by the erased copies at `erased` (their `B` slots) into the
/// values those copies read, then folds merge points left with a single incoming value.
/// True when a value was folded.
pub(crate) fn fold_erased_values(
    r: &mut LiveRange,
    erased: &[SlotIndex],
    si: &SlotIndexes,
    cfg: &Cfg,
) -> bool {
    let mut map: Vec<ValNo> = (0..r.valnos.len() as ValNo).collect();
    let mut changed = false;
    for &at in erased {
        let defined = r.valnos.iter().position(|v| {
            !v.is_phi_def && (v.def == at.reg_slot() || v.def == at.early_clobber_slot())
        });
        let (Some(b), Some(a)) = (defined, r.value_at(at.base())) else {
            continue;
        };
        let (a, b) = (root(&map, a), root(&map, b as ValNo));
        if a != b {
            map[b as usize] = a;
            changed = true;
        }
    }
    // Merge points whose incoming values are now one value (besides themselves).
    loop {
        let mut more = false;
        for (p, v) in r.valnos.iter().enumerate() {
            let p = p as ValNo;
            if !v.is_phi_def || root(&map, p) != p {
                continue;
            }
            let Some(b) = si.block_of(v.def) else {
                continue;
            };
            if let Some(a) = single_incoming(r, &map, p, b, si, cfg) {
                map[p as usize] = a;
                more = true;
            }
        }
        if !more {
            break;
        }
        changed = true;
    }
    if changed {
        let flat: Vec<ValNo> = (0..map.len() as ValNo).map(|v| root(&map, v)).collect();
        r.remap_values(&flat);
    }
    changed
}

/// Cuts back a segment that ended at an erased instruction (`at`, which read the value
/// last or defined it dead) to `to`, the last instruction before it that still names
/// the register: the range ends where the register is last used, as a fresh
/// computation would have it.
pub(crate) fn trim_erased_end(r: &mut LiveRange, at: SlotIndex, to: SlotIndex) {
    let hit = r
        .segments
        .iter()
        .position(|s| s.end.index() == at.index() && s.end > at.base() && s.start < to);
    let Some(p) = hit else { return };
    // A segment that another one continues is not where the register dies.
    if r.segments
        .get(p + 1)
        .is_some_and(|n| n.start <= r.segments[p].end)
    {
        return;
    }
    r.segments[p].end = to;
}

fn root(map: &[ValNo], mut v: ValNo) -> ValNo {
    while map[v as usize] != v {
        v = map[v as usize];
    }
    v
}

/// The one value (other than `p`) that every predecessor of `b` hands to the merge
/// point `p`; None when a predecessor hands none or two differ.
fn single_incoming(
    r: &LiveRange,
    map: &[ValNo],
    p: ValNo,
    b: Block,
    si: &SlotIndexes,
    cfg: &Cfg,
) -> Option<ValNo> {
    let mut one = None;
    for &pred in cfg.preds(b) {
        let end = si.block_end(pred)?;
        let last = SlotIndex::from_raw(end.raw().checked_sub(1)?);
        let v = root(map, r.value_at(last)?);
        if v == p {
            continue;
        }
        match one {
            None => one = Some(v),
            Some(o) if o == v => {}
            Some(_) => return None,
        }
    }
    one
}

impl<R: Recorder> Nvptx<'_, '_, R> {
    /// Rewrites the kill flags of `v`'s uses from its whole range: the first read of `v`
    /// in an instruction is `killed` when the range does not go on past it (or a new
    /// value of `v` starts right there); every other read is not.
    pub(crate) fn fix_kill_flags(&mut self, v: VReg) {
        self.fix_dead_flags(v);
        let mut insts: Vec<Inst> = self.cx.du.uses[v].to_vec();
        crate::sort::sort_by_key(&mut insts, |i| i.as_u32().into());
        insts.dedup();
        for i in insts {
            let Some(at) = self.cx.si.inst_index(i) else {
                continue;
            };
            let r = &self.main[v.index()];
            // A lane def (not `undef`) keeps the other lanes: the register lives on.
            let partial_def = self.cx.ed.f.insts[i].operands.iter().any(|o| {
                o.is_def() && o.vreg_of() == Some(v) && o.subreg.is_some() && !o.has(oflag::UNDEF)
            });
            // A tuple's lane defs without `undef` read it as a whole (LLVM's verifier
            // counts them as reads), which its lane-wise range does not show: a merged
            // tuple carries no kill flags (they are optional; a wrong one is an error).
            let tuple = self.cx.ed.f.vreg_class(v).is_some_and(|c| c.lanes() > 1);
            let ends = match r.value_at(at.reg_slot()) {
                None => true,
                Some(x) => {
                    let d = r.valnos[x as usize].def;
                    !partial_def && (d == at.reg_slot() || d == at.early_clobber_slot())
                }
            };
            let wrong = {
                let d = &self.cx.ed.f.insts[i];
                let mut first = true;
                d.operands.iter().any(|o| {
                    if !(o.is_use() && o.vreg_of() == Some(v) && !o.has(oflag::UNDEF)) {
                        return false;
                    }
                    let want = ends && core::mem::replace(&mut first, false);
                    o.has(oflag::KILL) != (want && !tuple)
                })
            };
            if !wrong {
                continue;
            }
            self.cx.ed.modify(i, |d| {
                let mut first = true;
                for o in d.operands.iter_mut() {
                    if o.is_use() && o.vreg_of() == Some(v) && !o.has(oflag::UNDEF) {
                        let want = ends && core::mem::replace(&mut first, false);
                        o.set(oflag::KILL, want && !tuple);
                    }
                }
            });
        }
    }

    /// A whole-register def of `v` is `dead` exactly when its value is not live past
    /// the instruction; a lane def loses `dead` when the register lives on.
    fn fix_dead_flags(&mut self, v: VReg) {
        let mut insts: Vec<Inst> = self.cx.du.defs[v].to_vec();
        crate::sort::sort_by_key(&mut insts, |i| i.as_u32().into());
        insts.dedup();
        for i in insts {
            let Some(at) = self.cx.si.inst_index(i) else {
                continue;
            };
            let live_on = self.main[v.index()].live_at(at.dead_slot());
            let want = |o: &crate::mir::Operand| {
                if o.subreg.is_some() {
                    o.has(oflag::DEAD) && !live_on
                } else {
                    !live_on
                }
            };
            let mine = |o: &crate::mir::Operand| o.is_def() && o.vreg_of() == Some(v);
            let wrong = self.cx.ed.f.insts[i]
                .operands
                .iter()
                .any(|o| mine(o) && o.has(oflag::DEAD) != want(o));
            if wrong {
                self.cx.ed.modify(i, |d| {
                    for o in d.operands.iter_mut().filter(|o| mine(o)) {
                        let w = want(o);
                        o.set(oflag::DEAD, w);
                    }
                });
            }
        }
    }

    /// After a merge into tuple `v`: a lane def marked `undef` while another lane of
    /// `v` is live into it would drop that lane's value, so the flag goes (a merge may
    /// have made lanes live across a def that began the register before).
    pub(crate) fn revive_undef_lane_defs(&mut self, v: VReg) {
        let k = v.index();
        if self.lanes[k].len() < 2 {
            return;
        }
        let defs: Vec<Inst> = self.cx.du.defs[v].to_vec();
        for i in defs {
            let Some(at) = self.cx.si.inst_index(i) else {
                continue;
            };
            let lanes = &self.lanes[k];
            let stale = self.cx.ed.f.insts[i].operands.iter().any(|o| {
                o.is_def()
                    && o.vreg_of() == Some(v)
                    && o.has(oflag::UNDEF)
                    && o.subreg
                        .and_then(crate::mir::SubReg::lane)
                        .is_some_and(|l| {
                            lanes
                                .iter()
                                .enumerate()
                                .any(|(j, r)| j != l as usize && r.live_at(at.base()))
                        })
            });
            if stale {
                self.cx.ed.modify(i, |d| {
                    for o in d.operands.iter_mut() {
                        if o.is_def() && o.vreg_of() == Some(v) && o.subreg.is_some() {
                            o.set(oflag::UNDEF, false);
                        }
                    }
                });
            }
        }
    }

    /// Kill flags for every register a merge produced (see the module header).
    pub(crate) fn fix_all_kill_flags(&mut self, merged: &SecondaryMap<VReg, bool>) {
        let regs: Vec<VReg> = self
            .cx.ed
            .f
            .vreg_list()
            .filter(|&v| merged.get(v).copied().unwrap_or(false))
            .collect();
        for v in regs {
            self.fix_kill_flags(v);
        }
    }

    /// Where `v`'s range should end if it ended at `i` (about to be erased, like every
    /// instruction in `doomed`): the last other instruction before `i` in its block
    /// that names `v` (its def's dead slot when it defines `v`, else its read slot);
    /// None when no such instruction precedes it.
    pub(crate) fn last_touch_before(&self, i: Inst, v: VReg, doomed: &[Inst]) -> Option<SlotIndex> {
        let f = &*self.cx.ed.f;
        let mut cur = f.layout.prev_inst(i);
        while let Some(p) = cur {
            if !doomed.contains(&p) {
                let d = &f.insts[p];
                let at = self.cx.si.inst_index(p)?;
                if d.operands
                    .iter()
                    .any(|o| o.is_def() && o.vreg_of() == Some(v))
                {
                    return Some(at.dead_slot());
                }
                if d.operands
                    .iter()
                    .any(|o| o.is_use() && o.vreg_of() == Some(v) && !o.has(oflag::UNDEF))
                {
                    return Some(at.reg_slot());
                }
            }
            cur = f.layout.prev_inst(p);
        }
        None
    }

    /// `v`'s ranges (whole and lanes) recomputed from the code as it stands: a merge
    /// erased a use that an in-block trim cannot account for.
    pub(crate) fn shrink_to_uses(&mut self, v: VReg) {
        let li = crate::liveness::LiveIntervals::recompute_intervals(self.cx.ed.f, &self.cx.si, &[v])
            .pop()
            .expect("one interval");
        let k = v.index();
        if !li.subranges.is_empty() {
            self.lanes[k] = li.subranges.into_iter().map(|s| s.range).collect();
        }
        self.main[k] = li.range;
    }

    /// [`trim_erased_end`] on `v`'s ranges for each erased instruction.
    pub(crate) fn trim_ends(&mut self, v: VReg, trims: &[(SlotIndex, SlotIndex)]) {
        let k = v.index();
        for &(at, to) in trims {
            trim_erased_end(&mut self.main[k], at, to);
            for lane in self.lanes[k].iter_mut() {
                trim_erased_end(lane, at, to);
            }
        }
    }

    /// Folds the values of copies erased at `erased` in `v`'s ranges (whole and lanes).
    pub(crate) fn fold_values(&mut self, v: VReg, erased: &[SlotIndex]) {
        if erased.is_empty() || self.opts.no_value_renumbering {
            return;
        }
        let k = v.index();
        fold_erased_values(&mut self.main[k], erased, &self.cx.si, &self.cfg);
        for lane in self.lanes[k].iter_mut() {
            fold_erased_values(lane, erased, &self.cx.si, &self.cfg);
        }
    }

    /// Erases every instruction that copied a register onto itself before the pass
    /// began (LLVM's coalescer erases such identity copies too): the value it defined
    /// is the value it read. One that reads no value (the register is undefined there)
    /// is left alone.
    pub(crate) fn erase_self_copies(&mut self) {
        let copies = core::mem::take(&mut self.self_copies);
        for i in copies {
            let d = &self.cx.ed.f.insts[i];
            let (Some(v), Some(at)) = (d.operands[0].vreg_of(), self.cx.si.inst_index(i)) else {
                continue;
            };
            if !self.main[v.index()].live_at(at.base()) {
                self.self_copies.push(i);
                continue;
            }
            let text = if R::ENABLED {
                let mut t = alloc::string::String::new();
                crate::mir::print::write_inst(
                    &mut t,
                    self.cx.ed.f,
                    d,
                    &crate::mir::print::defined_vregs(self.cx.ed.f),
                );
                t
            } else {
                alloc::string::String::new()
            };
            let trim = self.last_touch_before(i, v, &[]);
            self.cx.du.remove_inst(self.cx.ed.f, i);
            self.cx.si.remove_inst(i);
            self.cx.ed.erase(i);
            self.fold_values(v, &[at]);
            if let Some(to) = trim {
                self.trim_ends(v, &[(at, to)]);
            }
            self.fix_kill_flags(v);
            self.step(|| {
                Step::new("self_copy", format!("`{}` copies %{} onto itself: it is erased, and the value it defined is the value it read.", text.trim(), v.index()))
                    .focus(Focus::vreg(v))
            });
            self.merged_regs[v] = true;
        }
    }
}
