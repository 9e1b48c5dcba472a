//! The value check and the join itself.
//!
//! Two registers may share one if, wherever both are live, they hold the same value.
//! Any overlap begins at a value's def inside the other register's range, so it is
//! enough to look at every def of each register: if the other register is live across
//! it, the defined value must be identical to the other's value there — both trace
//! back, through full COPYs, to the same original def (LLVM's valuesIdentical over
//! followCopyChain). A value merging at a block start (a PHI value) never conflicts by
//! itself: the other register, live there, is live out of every predecessor, so each
//! incoming value's own def is checked against it. Two more defs never conflict: a
//! copy between the two registers (it becomes an identity copy and goes), and any def
//! overlapping an undefined value (an IMPLICIT_DEF, or a copy of one between the two),
//! unless that IMPLICIT_DEF is the other register's own def in another block (LLVM
//! keeps it then as a real value).

use super::{full_copy, Coalescer};
use crate::entity::EntityRef;
use crate::liveness::{LiveRange, SlotIndex, ValNo};
use crate::mir::{Inst, Reg, RegClass, VReg};
use crate::trace::{CoalesceDecision, ConflictAt, Focus, Recorder, SegmentView, Step, Verdict};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

impl<R: Recorder> Coalescer<'_, '_, R> {
    /// The value of `v` flowing into the instruction at `at` (LiveQuery's valueIn).
    fn value_in(&self, v: VReg, at: SlotIndex) -> Option<ValNo> {
        self.ranges[v.index()].value_at(at.base())
    }

    /// followCopyChain: the original (value, register) a value of `v` copies.
    fn follow_copy_chain(&self, mut v: VReg, mut val: ValNo) -> (Option<(SlotIndex, bool)>, VReg) {
        for _ in 0..=self.ranges.len() {
            let info = self.ranges[v.index()].valnos[val as usize];
            if info.is_phi_def {
                return (Some((info.def, true)), v);
            }
            let Some(mi) = self.cx.si.inst_at(info.def) else {
                return (Some((info.def, false)), v);
            };
            let Some((_, src)) = full_copy(self.cx.ed.f, mi) else {
                return (Some((info.def, false)), v);
            };
            match self.value_in(src, info.def) {
                Some(n) => {
                    v = src;
                    val = n;
                }
                None => return (None, src),
            }
        }
        (None, v)
    }

    fn values_identical(&self, a: VReg, va: ValNo, b: VReg, vb: ValNo) -> bool {
        let (oa, ra) = self.follow_copy_chain(a, va);
        let bdef = self.ranges[b.index()].valnos[vb as usize];
        if ra == b && oa == Some((bdef.def, bdef.is_phi_def)) {
            return true;
        }
        let (ob, rb) = self.follow_copy_chain(b, vb);
        match (oa, ob) {
            (None, _) | (_, None) => oa == ob && ra == rb,
            (Some(x), Some(y)) => x == y && ra == rb,
        }
    }

    /// The value defined at `def` comes from `x = COPY y`: joining turns it into an
    /// identity copy that is erased (LLVM's coalescable-copy case, CR_Erase), whatever
    /// value numbers the ranges hold there.
    fn copies_other(&self, def: SlotIndex, x: VReg, y: VReg) -> bool {
        self.cx.si
            .inst_at(def)
            .and_then(|i| full_copy(self.cx.ed.f, i))
            .is_some_and(|(d, s)| d == x && s == y)
    }

    /// `y`'s value `w` is an IMPLICIT_DEF of `x` or `y`, or a copy of one between the
    /// two: an undefined value (no valid lanes, in LLVM's terms), which a def of `x`
    /// may replace (CR_Replace) at `at` — except an IMPLICIT_DEF of `y` itself (not a
    /// copy of one) in another block than `at`: LLVM keeps such a value as a real one
    /// ("IMPLICIT_DEF ... extends into bb.N, keeping it"), so it conflicts.
    fn undefined_value(&self, x: VReg, y: VReg, w: ValNo, at: SlotIndex) -> bool {
        let own = self.ranges[y.index()].valnos[w as usize].def;
        let own_implicit = self
            .cx.si
            .inst_at(own)
            .is_some_and(|i| self.cx.ed.f.insts[i].is(crate::mir::Op::IMPLICIT_DEF));
        if own_implicit && self.cx.si.block_of(own) != self.cx.si.block_of(at) {
            return false;
        }
        let (Some((d, false)), r) = self.follow_copy_chain(y, w) else {
            return false;
        };
        (r == x || r == y)
            && self
                .cx.si
                .inst_at(d)
                .is_some_and(|i| self.cx.ed.f.insts[i].is(crate::mir::Op::IMPLICIT_DEF))
    }

    /// Ok when `a` and `b` never hold different values at once; otherwise the points
    /// where they do, with the two segments (for the trace).
    /// The conflicts come with the raw `[start, end)` where both are live around each
    /// conflicting def. Untraced, nobody reads them: the first conflict decides, and
    /// the list stays empty (no allocation, no more values read: most joins tried on a
    /// large function fail, and each failure touched both ranges to the end).
    #[allow(clippy::type_complexity)]
    pub(crate) fn check_join(
        &self,
        a: VReg,
        b: VReg,
    ) -> Result<(), Vec<(ConflictAt, (u32, u32))>> {
        let mut conflicts = Vec::new();
        for (x, y) in [(a, b), (b, a)] {
            let (rx, ry) = (&self.ranges[x.index()], &self.ranges[y.index()]);
            for (vi, v) in rx.valnos.iter().enumerate() {
                if !ry.live_at(v.def) {
                    continue;
                }
                let Some(w) = ry.value_at(v.def) else {
                    continue;
                };
                // A value merging at a block start may overlap the other register:
                // any real difference shows where an incoming value is defined in a
                // predecessor, which this loop checks too (LLVM's CR_Replace).
                if v.is_phi_def || self.copies_other(v.def, x, y) {
                    continue;
                }
                if self.values_identical(x, vi as ValNo, y, w)
                    || self.undefined_value(x, y, w, v.def)
                {
                    continue;
                }
                if !R::ENABLED {
                    return Err(conflicts);
                }
                // As numbers: the trace prints them (`ConflictAt::texts`).
                let seg = ry.segments.iter().find(|s| s.contains(v.def));
                let at = ConflictAt::Value {
                    def: v.def.raw(),
                    x: x.index() as u32,
                    y: y.index() as u32,
                    seg: seg.map(|s| SegmentView {
                        start: s.start.raw(),
                        end: s.end.raw(),
                        valno: s.valno,
                    }),
                };
                conflicts.push((at, conflict_span(rx, ry, v.def)));
                if conflicts.len() >= 4 {
                    return Err(conflicts);
                }
            }
        }
        if conflicts.is_empty() {
            Ok(())
        } else {
            Err(conflicts)
        }
    }

    /// Merges `gone` into `keep` and erases the COPY (and any copy now copying `keep`
    /// onto itself).
    pub(crate) fn join(&mut self, copy: Inst, keep: VReg, gone: VReg, class: Option<RegClass>) {
        let (kn, gn) = (self.name(keep), self.name(gone));
        let before = self.decision_ranges(keep, gone);
        self.renames.push((gone, keep));
        // Rename every operand of `gone`.
        let mut touched: smallvec::SmallVec<[Inst; 8]> = self.cx.du.defs[gone]
            .iter()
            .chain(self.cx.du.uses[gone].iter())
            .copied()
            .collect();
        crate::sort::sort_by_key(&mut touched, |i| i.as_u32().into());
        touched.dedup();
        for &i in &touched {
            self.cx.du.remove_inst(self.cx.ed.f, i);
            self.cx.ed.modify(i, |d| {
                for o in d.operands.iter_mut() {
                    if o.vreg_of() == Some(gone) {
                        o.set_reg(Reg::Virt(keep));
                    }
                }
            });
            self.cx.du.add_inst(self.cx.ed.f, i);
        }
        self.cx.ed.set_class(keep, class);
        // Merge the ranges: the union of both, values of identity copies folded into
        // the value they copy.
        let gone_range = core::mem::take(&mut self.ranges[gone.index()]);
        self.ranges[keep.index()].join(gone_range);
        // Copies between the two are now `keep = COPY keep` (or, lane to the same lane,
        // `keep.subK = COPY keep.subK`: the join checked that value too): erase them.
        let mut erased = 0;
        for &i in &touched {
            if self.cx.ed.f.layout.is_inserted(i)
                && (full_copy(self.cx.ed.f, i).is_some_and(|(d, s)| d == s)
                    || same_lane_copy(self.cx.ed.f, i, keep))
            {
                self.erase_copy(i);
                erased += 1;
            }
        }
        self.fold_erased_values(keep);
        self.stats.joined += 1;
        let decision = before.map(|b| {
            let ids = (copy.index() as u32, keep.index() as u32, gone.index() as u32);
            CoalesceDecision::new(ids, Verdict::Joined, None, b, Some(&self.ranges[keep.index()]), &[])
        });
        self.step(|| {
            let extra = if erased > 1 { format!(" {} other copies between them became self-copies and are erased too.", erased - 1) } else { String::new() };
            Step::new("join", format!("Join: {gn} and {kn} never hold different values at once, so {gn} is renamed to {kn} and the COPY disappears.{extra}"))
                .focus(Focus::vreg(keep))
                .payload(decision.map_or(crate::trace::Payload::None, Into::into))
        });
    }

    /// Values whose defining instruction was erased take the value flowing into it.
    fn fold_erased_values(&mut self, v: VReg) {
        let r = &self.ranges[v.index()];
        // The value flowing into an erased def, where it differs from the value itself.
        let folded = |k: usize, info: &crate::liveness::intervals::VNInfo| {
            if info.is_phi_def || self.cx.si.inst_at(info.def).is_some() {
                return None;
            }
            r.value_at(info.def.base()).filter(|&w| w as usize != k)
        };
        // Most joins erase no def another value flows into: nothing to map then.
        let Some(first) = r.valnos.iter().enumerate().position(|(k, info)| folded(k, info).is_some()) else {
            return;
        };
        let mut map: Vec<ValNo> = (0..r.valnos.len() as ValNo).collect();
        for (k, info) in r.valnos.iter().enumerate().skip(first) {
            if let Some(w) = folded(k, info) {
                map[k] = w;
            }
        }
        // Resolve chains, then renumber.
        for k in 0..map.len() {
            let mut t = map[k];
            for _ in 0..map.len() {
                if map[t as usize] == t {
                    break;
                }
                t = map[t as usize];
            }
            map[k] = t;
        }
        self.ranges[v.index()].remap_values(&map);
    }
}

/// `v.subK = COPY v.subK`: a lane copied onto itself.
fn same_lane_copy(f: &crate::mir::Function, i: Inst, v: VReg) -> bool {
    let d = &f.insts[i];
    d.is(crate::mir::Op::COPY)
        && d.operands.len() >= 2
        && d.operands[0].vreg_of() == Some(v)
        && d.operands[1].vreg_of() == Some(v)
        && d.operands[0].subreg.is_some()
        && d.operands[0].subreg == d.operands[1].subreg
}

/// Where `x` (defining a value at `def`) and `y` are both live around that def: the
/// common part of their segments there, as raw slot numbers.
pub(crate) fn conflict_span(x: &LiveRange, y: &LiveRange, def: SlotIndex) -> (u32, u32) {
    let around = |r: &LiveRange| {
        r.segments
            .iter()
            .find(|s| s.contains(def))
            .map(|s| (s.start, s.end))
    };
    match (around(x), around(y)) {
        (Some((xs, xe)), Some((ys, ye))) => (xs.max(ys).raw(), xe.min(ye).raw()),
        (None, Some((ys, ye))) => (def.raw().max(ys.raw()), ye.raw()),
        (Some((xs, xe)), None) => (xs.raw(), xe.raw()),
        (None, None) => (def.raw(), def.raw()),
    }
}
