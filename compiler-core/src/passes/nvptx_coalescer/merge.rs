//! One candidate: class check, interference check against the tree, and the merge.

use super::classify::{side_class, Candidate, CopyKind, Side};
use super::{key_pair, Nvptx, Unit, SNAPSHOT_MAX};
use crate::entity::EntityRef;
use crate::liveness::{LiveRange, SlotIndex, ValNo};
use crate::mir::instr::InstList;
use crate::mir::{oflag, CopyFamily, Function, Inst, InstData, Op, Reg, SubReg, VReg};
use crate::passes::register_coalescer::conflict_span;
use crate::trace::{recorded_segments, Focus, Payload, Recorder, Step};
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
        if !self.ed.f.layout.is_inserted(inst) {
            return false;
        }
        // Earlier merges may have renamed its registers: read the record afresh.
        let Some(fresh) = super::classify::classify(&self.ed.f.insts[inst], inst) else {
            return false;
        };
        let c = &fresh;
        let (d, s) = (Self::unit_of(c.dst), Self::unit_of(c.src));
        let (dn, sn) = (self.unit_name(c.dst), self.unit_name(c.src));
        if d.0 == s.0 {
            return false;
        }
        // Same-class rule (a tuple lane counts as its lane class).
        let dc = side_class(self.ed.f, d.0, d.1.map(SubReg::of_lane));
        let sc = side_class(self.ed.f, s.0, s.1.map(SubReg::of_lane));
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
            || self.ed.f.vreg_class(gone.0).is_some_and(|c| c.lanes() > 1) && keep.1.is_some()
        {
            return false;
        }
        if keep.1.is_some() && (self.du.defs[gone.0].len() != 1 || self.uses_subregs(gone.0)) {
            self.step(|| Step::new("validate", format!("{dn} = COPY {sn}: the scalar has several defs or sub-register uses, so it cannot become one lane.")).focus(Focus::inst(inst)));
            return false;
        }
        // Interference: the tree narrows to extents overlapping `gone`, then the value check.
        let mut read = Vec::new();
        let conflicts = self.interference(keep, gone, &mut read);
        if !conflicts.is_empty() {
            self.stats.inc("interference_rejections");
            self.remember_rejection(inst, read);
            let (kr, gr) = self.range_texts(keep, gone);
            let (ks, gs) = (
                recorded_segments::<R>(self.range(keep)),
                recorded_segments::<R>(self.range(gone)),
            );
            let (conflicts, conflict_spans): (Vec<_>, Vec<_>) = conflicts.into_iter().unzip();
            let first = conflicts[0].0.clone();
            self.step(|| {
                Step::new("interference", format!("{dn} and {sn} are live together at {first} with different values: the candidate goes to the secondary heap."))
                    .focus(Focus::inst(inst))
                    .payload(Payload::CoalesceDecision { copy: c.inst, dst: keep.0.index() as u32, src: gone.0.index() as u32, verdict: "interference", dst_range: kr, src_range: gr, conflicts, dst_lane: keep.1, dst_segments: ks, src_segments: gs, merged: Vec::new(), conflict_spans })
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
        let defs: Vec<Inst> = self.du.defs[v].to_vec();
        for i in defs {
            let Some(idx) = self.si.inst_index(i) else {
                continue;
            };
            if !self.range((v, Some(l))).live_at(idx.base()) {
                continue;
            }
            let stale = self.ed.f.insts[i].operands.iter().any(|o| {
                o.is_def()
                    && o.vreg_of() == Some(v)
                    && o.has(oflag::UNDEF)
                    && matches!(o.subreg.and_then(SubReg::lane), Some(k) if k != l)
            });
            if stale {
                self.ed.modify(i, |d| {
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
        let n = self.ed.f.vreg_class(v).map_or(0, |c| c.lanes() as usize);
        let i = v.index();
        while self.lanes[i].len() < n {
            let main = self.main[i].clone();
            self.lanes[i].push(main);
        }
    }

    fn uses_subregs(&self, v: VReg) -> bool {
        self.du.defs[v]
            .iter()
            .chain(self.du.uses[v].iter())
            .any(|&i| {
                self.ed.f.insts[i]
                    .operands
                    .iter()
                    .any(|o| o.vreg_of() == Some(v) && o.subreg.is_some())
            })
    }

    /// Points where `a` and `b` hold different values, after a tree query, each with
    /// the raw `[start, end)` where both are live around it. `read` collects every
    /// register the check looks at (for `memo.rs`).
    #[allow(clippy::type_complexity)]
    fn interference(
        &self,
        a: Unit,
        b: Unit,
        read: &mut Vec<VReg>,
    ) -> Vec<((String, String), (u32, u32))> {
        read.extend([a.0, b.0]);
        let Some(eb) = self.extent(b) else {
            return Vec::new();
        };
        // Once the tree is built it narrows the search: no overlapping extent, no
        // interference. (The block-level pass runs before it exists and checks directly.)
        // `in_tree` mirrors the tree's nodes unit by unit, so "does the tree hold an
        // extent of `a` overlapping `b`'s" is one lookup (the same test `overlapping`
        // applies to each node), not a walk over every extent live across `b`.
        if self.tree_built {
            let hit = self
                .in_tree
                .get(&key_pair(a))
                .is_some_and(|iv| iv.start < eb.end && iv.end > eb.start && iv.start < iv.end);
            if !hit {
                return Vec::new();
            }
        }
        let mut out = Vec::new();
        for (x, y) in [(a, b), (b, a)] {
            let (rx, ry) = (self.range(x), self.range(y));
            for (vi, v) in rx.valnos.iter().enumerate() {
                if !ry.live_at(v.def) {
                    continue;
                }
                // The already-coalesced set is skipped.
                if let Some(i) = self.si.inst_at(v.def) {
                    if self.coalesced[i] {
                        continue;
                    }
                }
                let Some(w) = ry.value_at(v.def) else {
                    continue;
                };
                if !v.is_phi_def && self.same_value(x, vi as ValNo, y, w, read) {
                    continue;
                }
                // The texts are for the trace only; with tracing off the count matters.
                let text = if R::ENABLED {
                    let seg = ry
                        .segments
                        .iter()
                        .find(|s| s.contains(v.def))
                        .map(|s| format!("{s}"))
                        .unwrap_or_default();
                    (format!("{}", v.def), seg)
                } else {
                    (String::new(), String::new())
                };
                out.push((text, conflict_span(rx, ry, v.def)));
                if out.len() >= 4 {
                    return out;
                }
            }
        }
        out
    }

    /// Follows copy-like instructions back to the original value of `(u, v)`.
    fn origin(
        &self,
        mut u: Unit,
        mut v: ValNo,
        read: &mut Vec<VReg>,
    ) -> Option<(SlotIndex, bool, Unit)> {
        read.push(u.0);
        for _ in 0..64 {
            let info = *self.range(u).valnos.get(v as usize)?;
            if info.is_phi_def {
                return Some((info.def, true, u));
            }
            let Some(i) = self.si.inst_at(info.def) else {
                return Some((info.def, false, u));
            };
            let d = &self.ed.f.insts[i];
            let fam = d.desc().family;
            if !(d.is(Op::COPY) || fam == CopyFamily::Move) || d.lhs_defs != 1 {
                return Some((info.def, false, u));
            }
            let src = d.operands.get(1)?;
            let sv = src.vreg_of()?;
            let lane_of = |s: Option<SubReg>| match s {
                Some(s) => s.lane().map(Some).ok_or(()),
                None => Ok(None),
            };
            let (Ok(def_lane), Ok(src_lane)) = (lane_of(d.operands[0].subreg), lane_of(src.subreg))
            else {
                return Some((info.def, false, u));
            };
            // Which unit of the source holds this unit's value.
            let lane = match (u.1, def_lane) {
                // A whole register copied whole: the same unit of the source.
                (None, None) => src_lane,
                // One lane of a tuple copied whole: that lane of the source tuple.
                (Some(l), None) if src_lane.is_none() => Some(l),
                // A lane written by a lane copy: the source as named.
                (Some(l), Some(k)) if k == l => src_lane,
                // A partial def changes one lane of the whole register: the whole
                // value is new here, not the source's.
                _ => return Some((info.def, false, u)),
            };
            let nu = (sv, lane);
            read.push(sv);
            v = self.range(nu).value_at(info.def.base())?;
            u = nu;
        }
        None
    }

    fn same_value(&self, x: Unit, vx: ValNo, y: Unit, vy: ValNo, read: &mut Vec<VReg>) -> bool {
        match (self.origin(x, vx, read), self.origin(y, vy, read)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        }
    }

    /// Both ranges as LLVM prints them, for a step's payload (empty with tracing off).
    fn range_texts(&self, a: Unit, b: Unit) -> (String, String) {
        if R::ENABLED {
            (format!("{}", self.range(a)), format!("{}", self.range(b)))
        } else {
            (String::new(), String::new())
        }
    }

    fn merge(&mut self, copy: Inst, keep: Unit, gone: Unit, block_level: bool, dn: &str, sn: &str) {
        let (kr, gr) = self.range_texts(keep, gone);
        let (ks, gs) = (
            recorded_segments::<R>(self.range(keep)),
            recorded_segments::<R>(self.range(gone)),
        );
        // The register whose operands are rewritten, and the one they now name: cicc
        // renames `gone`; an untraced run may rename the smaller side (`names.rs`).
        let swap = self.rename_keep_instead(keep, gone);
        let (from, to) = if swap {
            (keep.0, gone.0)
        } else {
            (gone.0, keep.0)
        };
        let mut touched: InstList = self.du.defs[from]
            .iter()
            .chain(self.du.uses[from].iter())
            .copied()
            .collect();
        crate::sort::sort_by_key(&mut touched, |i| i.as_u32().into());
        touched.dedup();
        let named_gone: Vec<bool> = if swap {
            let f = &*self.ed.f;
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
        let new_sub = keep.1.map(SubReg::of_lane);
        // Every operand of `from` now names `to`. The def lists change as
        // `remove_inst` / `add_inst` around each rewrite would change them (their order
        // is what `revive_undef_defs` walks). Use lists are multisets to this pass (it
        // only sorts, counts or searches them): `from`'s uses move to `to`'s list in
        // instruction order and other registers' use lists stay as they are, so a merge
        // costs the renamed operands rather than a remove and re-add of every operand of
        // every instruction `from` appears in.
        let (_, mut from_uses) = self.du.take(from);
        for &i in &touched {
            self.du.remove_defs(self.ed.f, i);
            // A def renamed into a lane writes only that lane: where the tuple holds
            // nothing yet it is `undef` (the other lanes are not read), as LLVM's
            // coalescer marks a sub-register def that does not read the register.
            let fresh_lane = new_sub.is_some() && {
                let reads = self.ed.f.insts[i]
                    .operands
                    .iter()
                    .any(|o| o.is_use() && o.vreg_of() == Some(from));
                let live = self
                    .si
                    .inst_index(i)
                    .is_some_and(|at| self.main[keep.0.index()].live_at(at.base()));
                !reads && !live
            };
            self.ed.modify(i, |d| {
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
            self.du.add_defs(self.ed.f, i);
        }
        crate::sort::sort_by_key(&mut from_uses, |i| i.as_u32().into());
        self.du.push_uses(to, &from_uses);
        self.coalesced[copy] = true;
        // The copy now copies a unit onto itself: erase it (and any other instruction
        // of `gone` that does).
        let doomed: InstList = if swap {
            self.doomed_after_swap(&touched, &named_gone, gone.0)
        } else {
            let f = &*self.ed.f;
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
                    self.si.inst_index(i)?,
                    self.last_touch_before(i, to, &doomed)?,
                ))
            })
            .collect();
        for i in doomed {
            erased_at.extend(self.si.inst_index(i));
            self.du.remove_inst(self.ed.f, i);
            self.si.remove_inst(i);
            self.ed.erase(i);
        }
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
        // The erased copies' values are the values they read (`values.rs`).
        self.fold_values(to, &erased_at);
        self.trim_ends(to, &trims);
        self.merged_regs[to] = true;
        if R::ENABLED {
            self.fix_kill_flags(to);
        }
        if let Some(l) = keep.1 {
            self.revive_undef_defs(keep.0, l);
        }
        self.revive_undef_lane_defs(to);
        // Tree (once built): every old extent of both registers (whole and per lane) out,
        // the survivor's merged ones in.
        if self.tree_built {
            let units = |v: VReg, n: usize| {
                core::iter::once((v, None)).chain((0..n as u8).map(move |l| (v, Some(l))))
            };
            let n = self
                .ed
                .f
                .vreg_class(keep.0)
                .map_or(0, |c| c.lanes() as usize);
            let m = self
                .ed
                .f
                .vreg_class(gone.0)
                .map_or(0, |c| c.lanes() as usize);
            for u in units(keep.0, n).chain(units(gone.0, m)) {
                if let Some(iv) = self.in_tree.remove(&key_pair(u)) {
                    self.tree.remove(&iv);
                }
            }
            let lanes = if n > 1 { n } else { 0 };
            for u in units(to, lanes) {
                if let Some(iv) = self.extent(u) {
                    self.tree.insert(iv);
                    self.in_tree.insert(key_pair(u), iv);
                }
            }
        }
        if let Some(cl) = self.ed.f.vreg_class(keep.0) {
            self.ed.set_class(to, Some(cl));
        }
        self.stats.inc("joined");
        self.memo.merged(keep.0, gone.0);
        let merged = recorded_segments::<R>(&self.main[to.index()]);
        let events = self.tree.take_events();
        let rot = self.tree.rotations;
        let snap = (self.tree.len() <= SNAPSHOT_MAX).then(|| self.tree.snapshot());
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
            Step::new("merge", format!("{level}: {dn} ← {sn} — the two never hold different values at once, so they become one register and the copy is erased.{lane_note}"))
                .focus(Focus::vreg(keep.0))
                .payload(Payload::CoalesceDecision { copy: copy.index() as u32, dst: keep.0.index() as u32, src: gone.0.index() as u32, verdict: "merged", dst_range: kr, src_range: gr, conflicts: Vec::new(), dst_lane: keep.1, dst_segments: ks, src_segments: gs, merged, conflict_spans: Vec::new() })
        });
        if self.tree_built {
            self.step(|| Step::new("tree_update", "The interval tree drops the two old extents and inserts the merged one, rebalancing as it goes.").payload(Payload::TreeChange { events, tree: snap, rotations: rot }));
        }
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
