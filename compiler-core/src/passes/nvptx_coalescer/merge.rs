//! One candidate: class check, interference check against the tree, and the merge.

use super::classify::{side_class, Candidate, CopyKind, Side};
use super::{Nvptx, Unit};
use crate::entity::EntityRef;
use crate::liveness::{LiveRange, SlotIndex};
use crate::mir::instr::InstList;
use crate::mir::{oflag, CopyFamily, Function, Inst, InstData, Op, Reg, SubReg, VReg};
use crate::trace::{CoalesceDecision, ConflictAt, DecisionRanges, Focus, Recorder, Step, Verdict};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl<R: Recorder> Nvptx<'_, '_, R> {
    fn unit_of(s: Side) -> Unit {
        (VReg::new(s.reg as usize), s.lane)
    }

    /// Tries a candidate; true when merged.
    pub(crate) fn try_candidate(&mut self, c: &Candidate, block_level: bool) -> bool {
        let inst = Inst::new(c.inst as usize);
        if !self.cx.ed.f.layout.is_inserted(inst) {
            return false;
        }
        // Earlier merges may have renamed its registers: read the record afresh.
        let Some(fresh) = super::classify::classify(&self.cx.ed.f.insts[inst], inst) else {
            return false;
        };
        let c = &fresh;
        let (d, s) = (Self::unit_of(c.dst), Self::unit_of(c.src));
        let (dn, sn) = (self.unit_name(c.dst), self.unit_name(c.src));
        if d.0 == s.0 {
            return false;
        }
        // Same-class rule (a tuple lane counts as its lane class).
        let dc = side_class(self.cx.ed.f, d.0, d.1.map(SubReg::of_lane));
        let sc = side_class(self.cx.ed.f, s.0, s.1.map(SubReg::of_lane));
        if dc != sc || dc.is_none() {
            self.step(|| Step::new("class_mismatch", format!("{dn} and {sn} are in different register classes: the NVPTX coalescer only merges within one class.")).focus(Focus::inst(inst)));
            return false;
        }
        // The scalar side of a lane copy is renamed into the lane: it must be a plain
        // register with a single def.
        let (keep, gone) = match c.kind {
            CopyKind::Extract => (s, d),
            CopyKind::SubregInsert => (d, s),
            _ => (d, s),
        };
        if gone.1.is_some()
            || self.cx.ed.f.vreg_class(gone.0).is_some_and(|c| c.lanes() > 1) && keep.1.is_some()
        {
            return false;
        }
        if keep.1.is_some() && (self.cx.du.defs[gone.0].len() != 1 || self.uses_subregs(gone.0)) {
            self.step(|| Step::new("validate", format!("{dn} = COPY {sn}: the scalar has several defs or sub-register uses, so it cannot become one lane.")).focus(Focus::inst(inst)));
            return false;
        }
        // Interference: the tree narrows to extents overlapping `gone`, then the value check.
        let conflicts = self.interference(keep, gone);
        if !conflicts.is_empty() {
            self.stats.interference_rejections += 1;
            let ranges = self.decision_ranges(keep, gone);
            self.step(|| {
                let first = conflicts[0].0.texts().0;
                let ids = (c.inst, keep.0.index() as u32, gone.0.index() as u32);
                Step::new("interference", format!("The tree finds a live segment of one of {dn} and {sn} overlapping the other's at {first}: this pass counts any overlap as interference, whatever values they hold (the spec's rule; the generic coalescer compares values), so the candidate goes to the secondary heap."))
                    .focus(Focus::inst(inst))
                    .payload(CoalesceDecision::new(ids, Verdict::Interference, keep.1, ranges.unwrap_or_default(), None, &conflicts))
            });
            return false;
        }
        self.merge(inst, keep, gone, block_level, &dn, &sn);
        true
    }

    /// A lane def marked `undef` (`undef %t.sub0 = ...`) declares the tuple's other
    /// lanes dead there. When a merge makes lane `l` live across such a def, the flag
    /// would drop the merged value: it is cleared wherever lane `l` is live into the
    /// instruction, as LLVM's coalescer does when it joins into a sub-register.
    fn revive_undef_defs(&mut self, v: VReg, l: u8) {
        let defs: Vec<Inst> = self.cx.du.defs[v].to_vec();
        for i in defs {
            let Some(idx) = self.cx.si.inst_index(i) else {
                continue;
            };
            if !self.range((v, Some(l))).live_at(idx.base()) {
                continue;
            }
            let stale = self.cx.ed.f.insts[i].operands.iter().any(|o| {
                o.is_def()
                    && o.vreg_of() == Some(v)
                    && o.has(oflag::UNDEF)
                    && matches!(o.subreg.and_then(SubReg::lane), Some(k) if k != l)
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

    /// Gives a tuple register one lane range per lane (copies of its main range where
    /// liveness computed none).
    fn materialize_lanes(&mut self, v: VReg) {
        let n = self.cx.ed.f.vreg_class(v).map_or(0, |c| c.lanes() as usize);
        let i = v.index();
        while self.lanes[i].len() < n {
            let main = self.main[i].clone();
            self.lanes[i].push(main);
        }
    }

    fn uses_subregs(&self, v: VReg) -> bool {
        self.cx.du.defs[v]
            .iter()
            .chain(self.cx.du.uses[v].iter())
            .any(|&i| {
                self.cx.ed.f.insts[i]
                    .operands
                    .iter()
                    .any(|o| o.vreg_of() == Some(v) && o.subreg.is_some())
            })
    }

    /// Where `a` and `b` are live together, as the interval tree answers it: one query
    /// with the live segments of the side that has fewer, for segments of the other
    /// side (spec `sub_34AA450`: two registers interfere when their live ranges overlap
    /// at a program point, whatever values they hold). Each conflict comes with the raw
    /// `[start, end)` both cover.
    #[allow(clippy::type_complexity)]
    fn interference(&mut self, a: Unit, b: Unit) -> Vec<(ConflictAt, (u32, u32))> {
        self.stats.interference_checks += 1;
        if self.opts.no_tree_queries {
            return Vec::new();
        }
        let (ra, rb) = (self.range(a), self.range(b));
        let (probe, target) = if rb.segments.len() <= ra.segments.len() {
            (b, a)
        } else {
            (a, b)
        };
        let spans: Vec<(u32, u32)> = self
            .range(probe)
            .segments
            .iter()
            .map(|s| (s.start.raw(), s.end.raw()))
            .collect();
        let hits = self.tree.overlapping_key(&spans, self.unit_key(target), 4);
        hits.into_iter()
            .map(|(iv, span)| {
                let at = ConflictAt::Overlap {
                    at: span.0,
                    start: iv.start,
                    end: iv.end,
                };
                (at, span)
            })
            .collect()
    }

    /// Both ranges as they are now, for a step's decision payload (None with tracing
    /// off, where nobody reads them).
    fn decision_ranges(&self, a: Unit, b: Unit) -> Option<DecisionRanges> {
        R::ENABLED.then(|| DecisionRanges::of(self.range(a), self.range(b)))
    }

    /// Renames every operand of `from` in `touched` to `to` (into `keep`'s lane for a
    /// lane join), keeping the def and use lists current.
    fn rename_operands(&mut self, touched: &[Inst], from: VReg, to: VReg, keep: Unit) {
        let new_sub = keep.1.map(SubReg::of_lane);
        // Every operand of `from` now names `to`. The def lists change as
        // `remove_inst` / `add_inst` around each rewrite would change them (their order
        // is what `revive_undef_defs` walks). Use lists are multisets to this pass (it
        // only sorts, counts or searches them): `from`'s uses move to `to`'s list in
        // instruction order and other registers' use lists stay as they are, so a merge
        // costs the renamed operands rather than a remove and re-add of every operand of
        // every instruction `from` appears in.
        let (_, mut from_uses) = self.cx.du.take(from);
        for &i in touched {
            self.cx.du.remove_defs(self.cx.ed.f, i);
            // A def renamed into a lane writes only that lane: where the tuple holds
            // nothing yet it is `undef` (the other lanes are not read), as LLVM's
            // coalescer marks a sub-register def that does not read the register.
            let fresh_lane = new_sub.is_some() && {
                let reads = self.cx.ed.f.insts[i]
                    .operands
                    .iter()
                    .any(|o| o.is_use() && o.vreg_of() == Some(from));
                let live = self
                    .cx.si
                    .inst_index(i)
                    .is_some_and(|at| self.main[keep.0.index()].live_at(at.base()));
                !reads && !live
            };
            self.cx.ed.modify(i, |d| {
                for o in d.operands.iter_mut() {
                    if o.vreg_of() == Some(from) {
                        o.set_reg(Reg::Virt(to));
                        if new_sub.is_some() {
                            o.subreg = new_sub;
                            if o.is_def() && fresh_lane {
                                o.set(oflag::UNDEF, true);
                            }
                        }
                    }
                }
            });
            self.cx.du.add_defs(self.cx.ed.f, i);
        }
        crate::sort::sort_by_key(&mut from_uses, |i| i.as_u32().into());
        self.cx.du.push_uses(to, &from_uses);
    }

    /// The survivor's ranges after a join of `gone` into `keep`: the union, stored where
    /// the operands now live (`to`'s index when `swap`).
    fn join_ranges(&mut self, keep: Unit, gone: Unit, swap: bool) {
        // Ranges: the survivor gets the union; a lane join also widens the tuple's main
        // range; a whole join of two tuples also joins them lane by lane (a register
        // without lane ranges counts its main range for every lane).
        // (`gone` is always a whole register; joins go small into big in place.)
        let (k, g) = (keep.0.index(), gone.0.index());
        let gone_range = core::mem::take(&mut self.main[g]);
        let gone_lanes = core::mem::take(&mut self.lanes[g]);
        match keep.1 {
            Some(l) => {
                self.materialize_lanes(keep.0);
                if let Some(slot) = self.lanes[k].get_mut(l as usize) {
                    slot.join(gone_range.clone());
                }
                self.main[k].join(gone_range);
            }
            None => {
                let n = self.lanes[k].len().max(gone_lanes.len());
                let mut keep_lanes = core::mem::take(&mut self.lanes[k]).into_iter();
                let lanes: Vec<LiveRange> = (0..n)
                    .map(|l| {
                        let mut lane = keep_lanes.next().unwrap_or_else(|| self.main[k].clone());
                        lane.join(gone_lanes.get(l).unwrap_or(&gone_range).clone());
                        lane
                    })
                    .collect();
                self.lanes[k] = lanes;
                self.main[k].join(gone_range);
            }
        }
        if swap {
            // The joined range is the same either way; it lives where the operands do.
            self.main.swap(k, g);
            self.lanes.swap(k, g);
            self.carry_name(gone.0, keep.0);
        }
    }

    fn merge(&mut self, copy: Inst, keep: Unit, gone: Unit, block_level: bool, dn: &str, sn: &str) {
        let before = self.decision_ranges(keep, gone);
        // The register whose operands are rewritten, and the one they now name: cicc
        // renames `gone`; an untraced run may rename the smaller side (`names.rs`).
        let swap = self.rename_keep_instead(keep, gone);
        let (from, to) = if swap {
            (keep.0, gone.0)
        } else {
            (gone.0, keep.0)
        };
        let mut touched: InstList = self.cx.du.defs[from]
            .iter()
            .chain(self.cx.du.uses[from].iter())
            .copied()
            .collect();
        crate::sort::sort_by_key(&mut touched, |i| i.as_u32().into());
        touched.dedup();
        let named_gone: Vec<bool> = if swap {
            let f = &*self.cx.ed.f;
            touched
                .iter()
                .map(|&i| {
                    f.insts[i]
                        .operands
                        .iter()
                        .any(|o| o.vreg_of() == Some(gone.0))
                })
                .collect()
        } else {
            Vec::new()
        };
        self.rename_operands(&touched, from, to, keep);
        self.coalesced[copy] = true;
        // The copy now copies a unit onto itself: erase it (and any other instruction
        // of `gone` that does).
        let doomed: InstList = if swap {
            self.doomed_after_swap(&touched, &named_gone, gone.0)
        } else {
            let f = &*self.cx.ed.f;
            touched
                .iter()
                .copied()
                .filter(|&i| copies_onto_itself(f, i))
                .collect()
        };
        let mut erased_at: Vec<SlotIndex> = Vec::with_capacity(doomed.len());
        let trims: Vec<(SlotIndex, SlotIndex)> = doomed
            .iter()
            .filter_map(|&i| {
                Some((
                    self.cx.si.inst_index(i)?,
                    self.last_touch_before(i, to, &doomed)?,
                ))
            })
            .collect();

        for i in doomed {
            erased_at.extend(self.cx.si.inst_index(i));
            self.cx.du.remove_inst(self.cx.ed.f, i);
            self.cx.si.remove_inst(i);
            self.cx.ed.erase(i);
        }
        self.join_ranges(keep, gone, swap);
        // The erased copies' values are the values they read (`values.rs`).
        self.fold_values(to, &erased_at);
        self.trim_ends(to, &trims);
        // A range (whole or a lane) still ending at an erased copy is live for a read
        // that is gone: the in-block trim could not place its end (no earlier touch
        // of that lane in the block, or the register is live into it), so the ranges
        // are computed afresh (LLVM's shrinkToUses).
        let k = to.index();
        let stale = |r: &LiveRange| {
            r.segments.iter().any(|s| {
                erased_at
                    .iter()
                    .any(|at| s.end.index() == at.index() && s.end > at.base())
            })
        };
        if stale(&self.main[k]) || self.lanes[k].iter().any(stale) {
            self.shrink_to_uses(to);
        }
        self.merged_regs[to] = true;
        if R::ENABLED {
            self.fix_kill_flags(to);
        }
        if let Some(l) = keep.1 {
            self.revive_undef_defs(keep.0, l);
        }
        self.revive_undef_lane_defs(to);
        if let Some(cl) = self.cx.ed.f.vreg_class(keep.0) {
            self.cx.ed.set_class(to, Some(cl));
        }
        self.stats.joined += 1;
        let decision = before.map(|b| {
            let ids = (copy.index() as u32, keep.0.index() as u32, gone.0.index() as u32);
            CoalesceDecision::new(ids, Verdict::Merged, keep.1, b, Some(&self.main[to.index()]), &[])
        });
        let level = if block_level {
            "Block-level merge"
        } else {
            "Merge"
        };
        self.step(|| {
            let lane_note = match keep.1 {
                Some(l) => format!(" The scalar now lives in lane sub{l}; its sibling lanes keep their own ranges, and this lane is no longer free for another value."),
                None => String::new(),
            };
            Step::new("merge", format!("{level}: {dn} ← {sn} — the tree holds no segment of one overlapping the other's, so they become one register and the copy is erased.{lane_note}"))
                .focus(Focus::vreg(keep.0))
                .payload(decision.map_or(crate::trace::Payload::None, Into::into))
        });
        let filed = self.update_tree(keep, gone, to);
        if !R::ENABLED {
            return;
        }
        let (n, rot) = (self.tree.len(), self.tree.rotations);
        let (iv, kept, moved) = (filed.interval, filed.kept, filed.moved);
        let (k, g) = (keep.0.index(), gone.0.index());
        let why = if self.opts.no_union_by_size {
            "the survivor's own (union by size switched off)"
        } else {
            "the side with more segments in the tree (union by size; a tie keeps the survivor's)"
        };
        self.tree_summary("tree_update", format!("The interval tree after the merge: the hash map now sends %{k} and %{g} to interval %{iv}, the key of {why}. Its {kept} segments stay filed there, but for any the union changed; the other side's {moved} were deleted and the joined range's segments the tree lacked were inserted under %{iv} (the steps before this one). It holds {n} segments and has rotated {rot} times so far."));
    }
}

/// A placed COPY or move whose destination and source are the same register and lane.
pub(crate) fn copies_onto_itself(f: &Function, i: Inst) -> bool {
    f.layout.is_inserted(i) && copies_data_onto_itself(&f.insts[i])
}

/// [`copies_onto_itself`] for an instruction known to be placed.
pub(crate) fn copies_data_onto_itself(d: &InstData) -> bool {
    d.operands.len() >= 2
        && d.operands[0].get_reg() == d.operands[1].get_reg()
        && d.operands[0].subreg == d.operands[1].subreg
        && (d.is(Op::COPY) || d.desc().family == CopyFamily::Move)
}
