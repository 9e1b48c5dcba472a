//! Live intervals: for every virtual register, the sorted, disjoint segments of slot
//! indexes where it holds a value, each tagged with the value number of the def that
//! produced it; tuple registers also get one range per lane (`sub0..subN-1`).
//!
//! ```text
//!  Function ─▶ SlotIndexes ─┐
//!  Function ─▶ Accesses ────┼─▶ per unit (vreg, or lane k of a tuple vreg):
//!                           │     InstEffects ─▶ Solver (block live-in/out)
//!                           │       ─▶ values: one per def + one PHI value per block
//!                           │          where different values meet (optimistic fixpoint)
//!                           │       ─▶ segments, block by block in layout order
//!                           └─▶ LiveInterval { main range, subranges per lane }
//!
//!  printed as LLVM prints it:   %3 [16r,48r:0)[64B,80r:1) 0@16r 1@64B-phi
//!  with lanes appended:          sub0 [16r,32r:0) 0@16r sub1 ...
//! ```
//!
//! Conventions (LLVM's): a def starts its value at the `r` slot of its instruction
//! (`e` for early-clobber); a use ends a segment at the `r` slot of the reader; a
//! value that is never read lives `[def, def.d)`; a value live out of a block ends at
//! the block's end, which is the next block's start (`128B`); a value merging in at a
//! block start is a PHI value defined at that `B` slot (printed with `-phi`). Segments
//! touching with the same value are merged. Values are numbered in order of their def.
//!
//! Lanes: a def or use of `%t.subK` touches lane K, a whole-register operand every
//! lane, an instruction writing several lanes (a multi-def) defines each. The main
//! range of a tuple is the union of its lanes: a write to some lanes starts a new main
//! value and keeps the main range live if other lanes hold a value across it (whatever
//! its `undef` flag claims). Other
//! registers written through a sub-register index (and not `undef`) read-modify-write
//! the whole register, as LLVM does without sub-register liveness.
//!
//! Invariants of a [`LiveRange`]: segments sorted, non-empty (`start < end`) and
//! disjoint; every segment's value exists; a value's def is the start of one of its
//! segments. Building one costs time proportional to the register's accesses and live
//! blocks (plus a few extra rounds for loops), so a function costs near-linear time in
//! the total size of its intervals.

use crate::mir::accesses::{class_lanes, inst_effects, Accesses, InstEffect, LaneMask, Solver};
use crate::mir::accesses::Access;
use crate::mir::accesses::{ALL_LANES, DEFINES, LIVE_IN, LIVE_OUT};
use crate::mir::cfg::Cfg;
use super::slot_indexes::{Slot, SlotIndex, SlotIndexes};
use crate::entity::EntityRef;
use crate::mir::{Block, Function, Inst, InstData, RegClass, VReg};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::{self, Write};
use smallvec::SmallVec;

/// A value number: index into [`LiveRange::valnos`].
pub type ValNo = u32;

/// Where a value is defined.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct VNInfo {
    pub def: SlotIndex,
    /// Defined by a merge at a block start rather than an instruction.
    pub is_phi_def: bool,
}

/// `[start, end)` holding value `valno`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub start: SlotIndex,
    pub end: SlotIndex,
    pub valno: ValNo,
}

impl Segment {
    pub fn contains(&self, idx: SlotIndex) -> bool {
        self.start <= idx && idx < self.end
    }
}

impl fmt::Display for Segment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{},{}:{})", self.start, self.end, self.valno)
    }
}

/// Where two ranges are live at once: segment `a` of the first, `b` of the second,
/// over `[start, end)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Overlap {
    pub a: usize,
    pub b: usize,
    pub start: SlotIndex,
    pub end: SlotIndex,
}

/// A range's segments. Most registers live in one or two segments and hold one or
/// two values, so those stay inside the range itself: computing the intervals of a
/// large function then allocates nothing for most registers, and walking them does
/// not chase a pointer per register.
pub type Segments = SmallVec<[Segment; 2]>;
/// A range's values (see [`Segments`]).
pub type ValNos = SmallVec<[VNInfo; 2]>;

/// Sorted disjoint segments and their values.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveRange {
    pub segments: Segments,
    pub valnos: ValNos,
}

impl LiveRange {
    pub fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// First live point.
    pub fn begin_index(&self) -> Option<SlotIndex> {
        self.segments.first().map(|s| s.start)
    }

    /// One past the last live point.
    pub fn end_index(&self) -> Option<SlotIndex> {
        self.segments.last().map(|s| s.end)
    }

    /// Index of the segment holding `idx` (binary search).
    pub fn find(&self, idx: SlotIndex) -> Option<usize> {
        let p = self.segments.partition_point(|s| s.end <= idx);
        (p < self.segments.len() && self.segments[p].start <= idx).then_some(p)
    }

    pub fn live_at(&self, idx: SlotIndex) -> bool {
        self.find(idx).is_some()
    }

    /// The value live at `idx`.
    pub fn value_at(&self, idx: SlotIndex) -> Option<ValNo> {
        self.find(idx).map(|p| self.segments[p].valno)
    }

    /// Is `[start, end)` entirely live (possibly across touching segments)?
    pub fn covers_range(&self, start: SlotIndex, end: SlotIndex) -> bool {
        if start >= end {
            return true;
        }
        let Some(mut p) = self.find(start) else {
            return false;
        };
        loop {
            let s = self.segments[p];
            if s.end >= end {
                return true;
            }
            match self.segments.get(p + 1) {
                Some(n) if n.start == s.end => p += 1,
                _ => return false,
            }
        }
    }

    /// Is every point where `other` is live also live here?
    pub fn covers(&self, other: &LiveRange) -> bool {
        other
            .segments
            .iter()
            .all(|s| self.covers_range(s.start, s.end))
    }

    /// Are both ranges live at some common point? Linear in the segment counts.
    pub fn overlaps(&self, other: &LiveRange) -> bool {
        let (a, b) = (&self.segments, &other.segments);
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            if a[i].start < b[j].end && b[j].start < a[i].end {
                return true;
            }
            if a[i].end <= b[j].end {
                i += 1;
            } else {
                j += 1;
            }
        }
        false
    }

    /// Every pair of segments live at once, with the common part, in order.
    pub fn overlapping_segments(&self, other: &LiveRange) -> Vec<Overlap> {
        let (a, b) = (&self.segments, &other.segments);
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let start = a[i].start.max(b[j].start);
            let end = a[i].end.min(b[j].end);
            if start < end {
                out.push(Overlap {
                    a: i,
                    b: j,
                    start,
                    end,
                });
            }
            if a[i].end <= b[j].end {
                i += 1;
            } else {
                j += 1;
            }
        }
        out
    }

    /// Writes LLVM's form: `[16r,48r:0)[64B,80r:1) 0@16r 1@64B-phi`, or `EMPTY`.
    pub fn write_to(&self, out: &mut String) {
        if self.segments.is_empty() {
            out.push_str("EMPTY");
        }
        for s in &self.segments {
            let _ = write!(out, "{s}");
        }
        for (n, v) in self.valnos.iter().enumerate() {
            let _ = write!(out, " {n}@{}", v.def);
            if v.is_phi_def {
                out.push_str("-phi");
            }
        }
    }
}

impl fmt::Display for LiveRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

/// The range of one lane of a tuple register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubRange {
    pub lane: u8,
    pub range: LiveRange,
}

/// One virtual register's liveness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveInterval {
    pub reg: VReg,
    /// The whole register (for a tuple: the union of its lanes).
    pub range: LiveRange,
    /// One per lane for tuple classes, in lane order; empty otherwise.
    pub subranges: Vec<SubRange>,
}

impl LiveInterval {
    #[cfg(feature = "testkit")]
    pub fn subrange(&self, lane: u8) -> Option<&LiveRange> {
        self.subranges
            .iter()
            .find(|s| s.lane == lane)
            .map(|s| &s.range)
    }
}

impl fmt::Display for LiveInterval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{} {}", self.reg.index(), self.range)?;
        for s in &self.subranges {
            write!(f, " sub{} {}", s.lane, s.range)?;
        }
        Ok(())
    }
}

impl LiveRange {
    /// The union of two ranges whose overlaps hold the same value (what a join of two
    /// registers produces); values are kept per def point.
    pub fn union(&self, other: &LiveRange) -> LiveRange {
        let mut valnos: ValNos = self.valnos.clone();
        let mut map = Vec::with_capacity(other.valnos.len());
        for v in &other.valnos {
            match valnos
                .iter()
                .position(|x| x.def == v.def && x.is_phi_def == v.is_phi_def)
            {
                Some(p) => map.push(p as ValNo),
                None => {
                    valnos.push(*v);
                    map.push(valnos.len() as ValNo - 1);
                }
            }
        }
        let theirs = other.segments.iter().map(|s| Segment {
            start: s.start,
            end: s.end,
            valno: map[s.valno as usize],
        });
        let key = |s: &Segment| (s.start, s.end);
        let sorted = |v: &[Segment]| v.windows(2).all(|w| key(&w[0]) <= key(&w[1]));
        if !(sorted(&self.segments) && sorted(&other.segments)) {
            let mut segs: Segments = self.segments.clone();
            segs.extend(theirs);
            return LiveRange::from_segments(segs, &valnos);
        }
        // Both sides are in order: merge them (ours first on equal keys, as a stable
        // sort of ours-then-theirs would), in time linear in the two ranges. Joins
        // that grow one register across a whole function stay linear per join.
        let mut segs: Segments =
            SmallVec::with_capacity(self.segments.len() + other.segments.len());
        let mut ours = self.segments.iter().copied().peekable();
        let mut theirs = theirs.peekable();
        loop {
            let next = match (ours.peek(), theirs.peek()) {
                (Some(a), Some(b)) if key(a) <= key(b) => ours.next(),
                (Some(_), Some(_)) | (None, Some(_)) => theirs.next(),
                (Some(_), None) => ours.next(),
                (None, None) => break,
            };
            segs.extend(next);
        }
        LiveRange::from_sorted_segments(segs, &valnos)
    }

    /// Builds a range from unordered, possibly overlapping segments: sorted, overlaps
    /// resolved (the earlier-starting segment's value wins), touching segments of one
    /// value merged, unused values dropped and the rest numbered in def order.
    pub fn from_segments(mut segs: Segments, valnos: &[VNInfo]) -> LiveRange {
        // Callers often pass a range's own segments with new values: already in order,
        // and checking that is cheaper than sorting them again.
        let key = |s: &Segment| (s.start, s.end);
        if !segs.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
            crate::sort::sort_by_key(&mut segs, |s| {
                crate::sort::key4(0, 0, s.start.raw(), s.end.raw())
            });
        }
        LiveRange::from_sorted_segments(segs, valnos)
    }

    /// Gives every segment the value `map` names for its own and then tidies up as
    /// [`LiveRange::from_segments`] would: touching segments of one value merge and
    /// values no segment holds any more are dropped, the rest keeping their order. On a
    /// canonical range (disjoint ordered segments, values in def order) it works in
    /// place, in time linear in the range.
    pub fn remap_values(&mut self, map: &[ValNo]) {
        let ordered = self.segments.windows(2).all(|w| w[0].end <= w[1].start)
            && self.valnos.windows(2).all(|w| w[0].def < w[1].def);
        if !ordered {
            let r = core::mem::take(self);
            let segs = r
                .segments
                .into_iter()
                .map(|s| Segment {
                    valno: map[s.valno as usize],
                    ..s
                })
                .collect();
            *self = LiveRange::from_segments(segs, &r.valnos);
            return;
        }
        let mut kept: usize = 0;
        for k in 0..self.segments.len() {
            let mut s = self.segments[k];
            s.valno = map[s.valno as usize];
            match kept.checked_sub(1).map(|p| &mut self.segments[p]) {
                Some(last) if last.end == s.start && last.valno == s.valno => last.end = s.end,
                _ => {
                    self.segments[kept] = s;
                    kept += 1;
                }
            }
        }
        self.segments.truncate(kept);
        const GONE: ValNo = ValNo::MAX;
        let mut renumber = alloc::vec![GONE; self.valnos.len()];
        for s in &self.segments {
            renumber[s.valno as usize] = 0;
        }
        let mut next = 0;
        for (v, slot) in renumber.iter_mut().enumerate() {
            if *slot != GONE {
                *slot = next;
                self.valnos[next as usize] = self.valnos[v];
                next += 1;
            }
        }
        self.valnos.truncate(next as usize);
        for s in &mut self.segments {
            s.valno = renumber[s.valno as usize];
        }
    }

    /// [`LiveRange::from_segments`] for segments already ordered by (start, end).
    fn from_sorted_segments(segs: Segments, valnos: &[VNInfo]) -> LiveRange {
        let mut out: Segments = SmallVec::with_capacity(segs.len());
        for s in segs {
            fold_segment(&mut out, s);
        }
        let used: Vec<ValNo> = if valnos.windows(2).all(|w| w[0].def < w[1].def) {
            // Values already in def order (every canonical range): the used ones in
            // their own order, no sort needed.
            let mut seen = alloc::vec![false; valnos.len()];
            for s in &out {
                seen[s.valno as usize] = true;
            }
            (0..valnos.len() as ValNo)
                .filter(|&v| seen[v as usize])
                .collect()
        } else {
            let mut used: Vec<ValNo> = out.iter().map(|s| s.valno).collect();
            crate::sort::sort_by_key(&mut used, |&v| valnos[v as usize].def.raw().into());
            used.dedup();
            used
        };
        let new_vals: ValNos = used.iter().map(|&v| valnos[v as usize]).collect();
        // Old number → new number: the first place it has in `used`.
        let mut renumber: Vec<Option<ValNo>> = alloc::vec![None; valnos.len()];
        for (k, &u) in used.iter().enumerate() {
            let slot = &mut renumber[u as usize];
            if slot.is_none() {
                *slot = Some(k as ValNo);
            }
        }
        for s in &mut out {
            s.valno = renumber[s.valno as usize].expect("used value");
        }
        LiveRange {
            segments: out,
            valnos: new_vals,
        }
    }
}

/// What [`fold_segment`] did with a segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Folded {
    /// Appended as it was.
    Pushed,
    /// Appended from the end of the last segment on (its start was covered).
    Clipped,
    /// The last segment (same value) grew to its end.
    Extended,
    /// Entirely covered by the last segment: nothing appended.
    Dropped,
}

/// One step of building a range from segments ordered by (start, end): `s` goes after
/// `out`'s last segment, overlaps resolved (the earlier-starting segment's value wins)
/// and touching segments of one value merged.
pub(super) fn fold_segment(out: &mut Segments, s: Segment) -> Folded {
    let last = out.last().map(|l| (l.end, l.valno));
    match last {
        Some((end, val)) if s.start < end => {
            if s.end <= end {
                Folded::Dropped
            } else if s.valno == val {
                out.last_mut().expect("non-empty").end = s.end;
                Folded::Extended
            } else {
                out.push(Segment {
                    start: end,
                    end: s.end,
                    valno: s.valno,
                });
                Folded::Clipped
            }
        }
        Some((end, val)) if s.start == end && s.valno == val => {
            out.last_mut().expect("non-empty").end = s.end;
            Folded::Extended
        }
        _ => {
            out.push(s);
            Folded::Pushed
        }
    }
}

/// Live intervals of every virtual register of a function.
#[derive(Clone, Debug)]
pub struct LiveIntervals {
    pub indexes: SlotIndexes,
    /// By vreg number; None for numbers no register uses.
    intervals: Vec<Option<LiveInterval>>,
}

impl LiveIntervals {
    pub fn compute(f: &Function) -> Self {
        Self::compute_visiting(f, |_, _, _| {})
    }

    /// [`LiveIntervals::compute`], also handing every instruction (layout order, with
    /// its block) to `visit` on the walk that collects the accesses.
    pub fn compute_visiting(f: &Function, visit: impl FnMut(Block, Inst, &InstData)) -> Self {
        Self::compute_visiting_on(f, &Cfg::new(f), visit)
    }

    /// [`LiveIntervals::compute_visiting`] on `cfg`, the control flow graph of `f`
    /// already built by the caller (which needs it too).
    pub fn compute_visiting_on(
        f: &Function,
        cfg: &Cfg,
        visit: impl FnMut(Block, Inst, &InstData),
    ) -> Self {
        Self::build(f, cfg, visit, true)
    }

    /// [`LiveIntervals::compute_visiting_on`], with or without the shortcut for
    /// registers local to one block.
    fn build(
        f: &Function,
        cfg: &Cfg,
        visit: impl FnMut(Block, Inst, &InstData),
        shortcut: bool,
    ) -> Self {
        let indexes = SlotIndexes::compute(f);
        let acc = Accesses::collect_visiting(f, visit);
        let mut b = Builder::new(cfg, &indexes);
        b.shortcut = shortcut;
        let mut intervals = vec![None; f.vreg_end as usize];
        for v in f.vreg_list() {
            intervals[v.index()] = Some(b.interval(f, &acc, v));
        }
        LiveIntervals { indexes, intervals }
    }

    /// The indexes and every register's whole range (by vreg number; empty for numbers
    /// no register uses) as [`LiveIntervals::compute_visiting_on`] then
    /// [`LiveIntervals::into_parts`] give them, for a pass that needs no lane ranges:
    /// each range goes straight to its place, with no interval kept per register on
    /// the way (for a module of many small functions that wrapping and unwrapping cost
    /// about a tenth of the coalescer).
    pub fn ranges_visiting_on(
        f: &Function,
        cfg: &Cfg,
        visit: impl FnMut(Block, Inst, &InstData),
    ) -> (SlotIndexes, Vec<LiveRange>) {
        let indexes = SlotIndexes::compute(f);
        let acc = Accesses::collect_visiting(f, visit);
        let mut b = Builder::new(cfg, &indexes);
        let mut ranges = Vec::with_capacity(f.vreg_end as usize);
        for v in f.vreg_list() {
            // Registers come in number order: the numbers between get empty ranges.
            ranges.resize_with(v.index(), LiveRange::default);
            ranges.push(b.interval(f, &acc, v).range);
        }
        ranges.resize_with(f.vreg_end as usize, LiveRange::default);
        (indexes, ranges)
    }

    /// [`LiveIntervals::compute`] with every register through the general path (no
    /// [`Builder::local_access_range`] shortcut): for the test that it changes nothing.
    #[cfg(feature = "testkit")]
    #[doc(hidden)]
    pub fn compute_without_shortcut(f: &Function) -> Self {
        Self::build(f, &Cfg::new(f), |_, _, _| {}, false)
    }

    /// The whole-register ranges of `regs` as `f` stands now, numbered by `si` (which
    /// may hold instructions inserted since numbering): what a pass that edits code
    /// under existing indexes uses to bring a few registers' ranges up to date.
    pub fn recompute_ranges(f: &Function, si: &SlotIndexes, regs: &[VReg]) -> Vec<LiveRange> {
        let cfg = Cfg::new(f);
        let acc = Accesses::collect(f);
        let mut b = Builder::new(&cfg, si);
        regs.iter().map(|&v| b.interval(f, &acc, v).range).collect()
    }

    /// [`LiveIntervals::recompute_ranges`] with the lane ranges too.
    pub fn recompute_intervals(f: &Function, si: &SlotIndexes, regs: &[VReg]) -> Vec<LiveInterval> {
        let cfg = Cfg::new(f);
        let acc = Accesses::collect(f);
        let mut b = Builder::new(&cfg, si);
        regs.iter().map(|&v| b.interval(f, &acc, v)).collect()
    }

    /// The indexes, each register's whole range and its lane ranges (by vreg number;
    /// empty for numbers no register uses), moved out rather than copied.
    pub fn into_parts(self) -> (SlotIndexes, Vec<LiveRange>, Vec<Vec<SubRange>>) {
        let (main, lanes) = self
            .intervals
            .into_iter()
            .map(|li| li.map(|li| (li.range, li.subranges)).unwrap_or_default())
            .unzip();
        (self.indexes, main, lanes)
    }

    pub fn interval(&self, v: VReg) -> Option<&LiveInterval> {
        self.intervals.get(v.index())?.as_ref()
    }

    /// The whole-register range of `v` (empty if `v` is unknown).
    pub fn range(&self, v: VReg) -> &LiveRange {
        static EMPTY: LiveRange = LiveRange {
            segments: SmallVec::new_const(),
            valnos: SmallVec::new_const(),
        };
        self.interval(v).map_or(&EMPTY, |li| &li.range)
    }

    /// Intervals in register order.
    #[cfg(feature = "testkit")]
    pub fn iter(&self) -> impl Iterator<Item = &LiveInterval> + '_ {
        self.intervals.iter().flatten()
    }

    /// Are `a` and `b` live at a common point?
    pub fn overlaps(&self, a: VReg, b: VReg) -> bool {
        self.range(a).overlaps(self.range(b))
    }

    /// Where `a` and `b` are live at once (what the coalescer's interference check
    /// shows).
    #[cfg(feature = "testkit")]
    pub fn overlapping_segments(&self, a: VReg, b: VReg) -> Vec<Overlap> {
        self.range(a).overlapping_segments(self.range(b))
    }

    #[cfg(feature = "testkit")]
    pub fn live_at(&self, v: VReg, idx: SlotIndex) -> bool {
        self.range(v).live_at(idx)
    }

    /// Is `a` live wherever `b` is?
    #[cfg(feature = "testkit")]
    pub fn covers(&self, a: VReg, b: VReg) -> bool {
        self.range(a).covers(self.range(b))
    }

    /// One line per register with a non-empty interval, in register order.
    #[cfg(feature = "testkit")]
    pub fn print(&self) -> String {
        let mut s = String::new();
        for li in self.iter() {
            if !li.range.is_empty() {
                let _ = writeln!(s, "{li}");
            }
        }
        s
    }
}

const TOP: u32 = u32::MAX;

/// Per-function scratch for building ranges.
struct Builder<'a> {
    cfg: &'a Cfg,
    si: &'a SlotIndexes,
    solver: Solver,
    effects: Vec<InstEffect>,
    preds: Vec<Block>,
    /// Temporary value per live-in block (TOP: not known yet).
    in_val: Vec<u32>,
    /// Temporary value of the last def in each defining block.
    last_def: Vec<u32>,
    /// Reused per unit (one allocation per function, not per register).
    scratch: Scratch,
    /// Read a register local to one block straight from its accesses
    /// ([`Builder::local_access_range`]); off only to test that it changes nothing.
    shortcut: bool,
}

#[derive(Default)]
struct Scratch {
    vals: Vec<TmpVal>,
    def_val: Vec<u32>,
    live_in: Vec<Block>,
    blocks: Vec<Block>,
    used: Vec<bool>,
    order: Vec<u32>,
    map: Vec<u32>,
}

/// A value while building: its def and whether it is a PHI value.
type TmpVal = VNInfo;

impl<'a> Builder<'a> {
    fn new(cfg: &'a Cfg, si: &'a SlotIndexes) -> Self {
        Builder {
            cfg,
            si,
            solver: Solver::new(cfg),
            effects: Vec::new(),
            preds: Vec::new(),
            in_val: vec![TOP; cfg.num_blocks()],
            last_def: vec![TOP; cfg.num_blocks()],
            scratch: Scratch::default(),
            shortcut: true,
        }
    }

    fn interval(&mut self, f: &Function, acc: &Accesses, v: VReg) -> LiveInterval {
        let class = f.vreg_class(v);
        let tuple = matches!(class, Some(RegClass::Tuple { .. }));
        if self.shortcut && !tuple && acc.phi_uses_of(v).is_empty() {
            if let Some(range) = self.local_access_range(acc.of(v)) {
                return LiveInterval {
                    reg: v,
                    range,
                    subranges: Vec::new(),
                };
            }
        }
        let all = class_lanes(class);
        self.preds.clear();
        self.preds.extend(acc.phi_uses_of(v).iter().map(|p| p.pred));
        let mut subranges = Vec::new();
        if let Some(RegClass::Tuple { lanes, .. }) = class {
            for lane in 0..lanes.min(64) {
                inst_effects(acc.of(v), 1 << lane, all, &mut self.effects, None);
                let range = self.build_range();
                subranges.push(SubRange { lane, range });
            }
        }
        let range = if subranges.is_empty() {
            inst_effects(acc.of(v), ALL_LANES, all, &mut self.effects, None);
            self.build_range()
        } else {
            let si = self.si;
            let subs = &subranges;
            let live_before = move |i: Inst, lanes: LaneMask| -> bool {
                let Some(at) = si.inst_index(i) else {
                    return false;
                };
                subs.iter()
                    .any(|s| lanes & (1 << s.lane) != 0 && s.range.live_at(at))
            };
            inst_effects(
                acc.of(v),
                ALL_LANES,
                all,
                &mut self.effects,
                Some(&live_before),
            );
            self.build_range()
        };
        LiveInterval {
            reg: v,
            range,
            subranges,
        }
    }

    /// Builds the range of the unit whose effects are in `self.effects` (PHI
    /// predecessors in `self.preds`).
    fn build_range(&mut self) -> LiveRange {
        if let Some(range) = self.local_range() {
            return range;
        }
        let cfg = self.cfg;
        let si = self.si;
        self.solver.solve(cfg, &self.effects, &self.preds);
        let mut sc = core::mem::take(&mut self.scratch);
        let vals = &mut sc.vals;
        vals.clear();
        // Def values, and the last def of each block.
        let def_val = &mut sc.def_val;
        def_val.clear();
        for e in &self.effects {
            if e.defs {
                let at = si
                    .inst_index(e.inst)
                    .unwrap_or(SlotIndex::new(0, Slot::Block));
                let slot = if e.early_clobber {
                    at.early_clobber_slot()
                } else {
                    at.reg_slot()
                };
                def_val.push(vals.len() as u32);
                self.last_def[e.block.index()] = vals.len() as u32;
                vals.push(VNInfo {
                    def: slot,
                    is_phi_def: false,
                });
            } else {
                def_val.push(TOP);
            }
        }
        // Live-in blocks in a stable order: reachable ones in RPO, then the rest in
        // layout order.
        let live_in = &mut sc.live_in;
        live_in.clear();
        live_in.extend(
            self.solver
                .touched()
                .iter()
                .copied()
                .filter(|&b| self.solver.flags(b) & LIVE_IN != 0),
        );
        // Unnumbered blocks last (u32::MAX; no function has that many blocks).
        let pos = |p: Option<usize>| p.map_or(u32::MAX, |p| p as u32);
        crate::sort::sort_by_key(live_in, |&b| {
            crate::sort::key4(0, 0, pos(cfg.rpo_number(b)), pos(cfg.layout_position(b)))
        });
        self.live_in_values(live_in, vals);
        // Segments, block by block in layout (= index) order.
        let blocks = &mut sc.blocks;
        blocks.clear();
        blocks.extend_from_slice(self.solver.touched());
        crate::sort::sort_by_key(blocks, |&b| {
            si.block_start(b).map_or(u32::MAX, |s| s.raw()).into()
        });
        let mut segs: Segments = SmallVec::new();
        let mut k = 0;
        let effects = &self.effects;
        // Skip effects of blocks the indexes do not know (none in practice).
        for &b in blocks.iter() {
            let (Some(bstart), Some(bend)) = (si.block_start(b), si.block_end(b)) else {
                continue;
            };
            let fl = self.solver.flags(b);
            // (start, value, last read)
            let mut cur: Option<(SlotIndex, u32, Option<SlotIndex>)> = None;
            if fl & LIVE_IN != 0 {
                cur = Some((bstart, self.in_val[b.index()], None));
            }
            while k < effects.len() && block_pos(si, effects[k].block) < bstart.raw() {
                k += 1;
            }
            while k < effects.len() && effects[k].block == b {
                let e = effects[k];
                let at = si.inst_index(e.inst).unwrap_or(bstart);
                if e.reads {
                    if let Some(c) = cur.as_mut() {
                        c.2 = Some(at.reg_slot());
                    }
                }
                if e.defs {
                    let dv = def_val[k];
                    let dslot = vals[dv as usize].def;
                    if let Some((s, v, last)) = cur.take() {
                        let mut end = last.unwrap_or(vals[v as usize].def.dead_slot());
                        if end > dslot {
                            end = dslot;
                        }
                        push_segment(&mut segs, s, end, v);
                    }
                    cur = Some((dslot, dv, None));
                }
                k += 1;
            }
            if let Some((s, v, last)) = cur {
                let end = if fl & LIVE_OUT != 0 {
                    bend
                } else {
                    last.unwrap_or(vals[v as usize].def.dead_slot())
                };
                push_segment(&mut segs, s, end, v);
            }
        }
        // Reset per-block scratch.
        for &b in self.solver.touched() {
            self.in_val[b.index()] = TOP;
            self.last_def[b.index()] = TOP;
        }
        let range = renumber(segs, &mut sc);
        self.scratch = sc;
        range
    }

    /// The range of a unit local to one block, without the dataflow: one def that
    /// reads nothing, then only reads in the same block, and no PHI use. Nothing
    /// reaches the block's start (its first access writes) and nothing leaves its end
    /// (no access elsewhere, no PHI), so the range is the one segment from the def to
    /// the last read (or the def's dead slot) — what [`Builder::build_range`]'s general
    /// walk gives such a unit, at a fraction of the cost, for most registers of a
    /// function. None when the unit is not of that shape (or an instruction has no
    /// index).
    fn local_range(&self) -> Option<LiveRange> {
        let (first, rest) = self.effects.split_first()?;
        if !self.preds.is_empty() || !first.defs || first.reads {
            return None;
        }
        let si = self.si;
        let def = local_def(si, first.block, first.inst, first.early_clobber)?;
        let mut end = def.dead_slot();
        let mut read = false;
        for e in rest {
            if e.block != first.block || e.defs {
                return None;
            }
            if e.reads {
                end = si.inst_index(e.inst)?.reg_slot();
                read = true;
            }
        }
        if read && end <= def {
            return None;
        }
        Some(one_segment(def, end))
    }

    /// [`Builder::local_range`] read straight from the accesses of a register that is
    /// no tuple and no PHI reads, without folding them into effects first: most
    /// registers of a function are defined once and read in the same block, and the
    /// fold cost about as much as the rest of their range. The effects of such
    /// accesses are one write that keeps nothing (every access of the first
    /// instruction a def that reads no lane), then reads only, all in its block; on
    /// those the walk below is `local_range`'s. None when the accesses are not of that
    /// shape (the caller then takes the general path, which may still find the range
    /// local).
    fn local_access_range(&self, accs: &[Access]) -> Option<LiveRange> {
        let first = accs.first()?;
        let (block, inst) = (first.block, first.inst);
        let mut early_clobber = false;
        let mut k = 0;
        while let Some(a) = accs.get(k).filter(|a| a.inst == inst) {
            if !a.is_def || a.reads {
                return None;
            }
            early_clobber |= a.early_clobber;
            k += 1;
        }
        let si = self.si;
        let def = local_def(si, block, inst, early_clobber)?;
        let mut end = def.dead_slot();
        let mut read = false;
        for a in &accs[k..] {
            if a.block != block || a.is_def {
                return None;
            }
            end = si.inst_index(a.inst)?.reg_slot();
            read = true;
        }
        if read && end <= def {
            return None;
        }
        Some(one_segment(def, end))
    }

    /// The value live into each of `live_in` (a new PHI value at the block start where
    /// different values meet or none flows in), into `in_val`; new values go to `vals`.
    fn live_in_values(&mut self, live_in: &[Block], vals: &mut Vec<TmpVal>) {
        let (cfg, si) = (self.cfg, self.si);
        // Optimistic fixpoint: TOP → one value → own PHI value.
        let mut changed = true;
        while changed {
            changed = false;
            for &b in live_in.iter() {
                let cur = self.in_val[b.index()];
                if cur != TOP
                    && vals[cur as usize].is_phi_def
                    && Some(vals[cur as usize].def) == si.block_start(b)
                {
                    continue;
                }
                let mut meet = TOP;
                let mut conflict = false;
                for &p in cfg.preds(b) {
                    let pv = if self.solver.flags(p) & DEFINES != 0 {
                        self.last_def[p.index()]
                    } else {
                        self.in_val[p.index()]
                    };
                    if pv == TOP {
                        continue;
                    }
                    if meet == TOP {
                        meet = pv;
                    } else if meet != pv {
                        conflict = true;
                    }
                }
                let new = if conflict || (meet == TOP && cfg.preds(b).is_empty()) {
                    // Different values meet here (or nothing flows in: the entry block,
                    // a read before any def): a PHI value at the block start.
                    let start = si.block_start(b).unwrap_or(SlotIndex::new(0, Slot::Block));
                    vals.push(VNInfo {
                        def: start,
                        is_phi_def: true,
                    });
                    (vals.len() - 1) as u32
                } else {
                    meet
                };
                if new != cur {
                    self.in_val[b.index()] = new;
                    changed = true;
                }
            }
        }
        // Blocks nothing reached (cycles with no def flowing in): their own PHI value.
        for &b in live_in.iter() {
            if self.in_val[b.index()] == TOP {
                let start = si.block_start(b).unwrap_or(SlotIndex::new(0, Slot::Block));
                vals.push(VNInfo {
                    def: start,
                    is_phi_def: true,
                });
                self.in_val[b.index()] = (vals.len() - 1) as u32;
            }
        }
    }
}

/// Where `inst` of `block` defines a value (its `e` slot for an early-clobber def, else
/// `r`); None when the block or the instruction has no index.
fn local_def(si: &SlotIndexes, block: Block, inst: Inst, early_clobber: bool) -> Option<SlotIndex> {
    si.block_start(block)?;
    si.block_end(block)?;
    let at = si.inst_index(inst)?;
    Some(if early_clobber {
        at.early_clobber_slot()
    } else {
        at.reg_slot()
    })
}

/// `[def, end)` holding the one value defined at `def`.
fn one_segment(def: SlotIndex, end: SlotIndex) -> LiveRange {
    let mut segments = Segments::new();
    segments.push(Segment {
        start: def,
        end,
        valno: 0,
    });
    let mut valnos = ValNos::new();
    valnos.push(VNInfo {
        def,
        is_phi_def: false,
    });
    LiveRange { segments, valnos }
}

fn block_pos(si: &SlotIndexes, b: Block) -> u32 {
    si.block_start(b).map_or(u32::MAX, |s| s.raw())
}

fn push_segment(segs: &mut Segments, start: SlotIndex, end: SlotIndex, valno: u32) {
    if start >= end {
        return;
    }
    if let Some(last) = segs.last_mut() {
        if last.end == start && last.valno == valno {
            last.end = end;
            return;
        }
    }
    segs.push(Segment { start, end, valno });
}

/// Keeps the values some segment uses, numbered in def order.
fn renumber(mut segs: Segments, sc: &mut Scratch) -> LiveRange {
    let vals = &sc.vals;
    sc.used.clear();
    sc.used.resize(vals.len(), false);
    for s in &segs {
        sc.used[s.valno as usize] = true;
    }
    sc.order.clear();
    sc.order
        .extend((0..vals.len() as u32).filter(|&v| sc.used[v as usize]));
    crate::sort::sort_by_key(&mut sc.order, |&v| {
        crate::sort::key4(0, 0, vals[v as usize].def.raw(), v)
    });
    sc.map.clear();
    sc.map.resize(vals.len(), 0);
    let mut valnos = ValNos::with_capacity(sc.order.len());
    for (n, &v) in sc.order.iter().enumerate() {
        sc.map[v as usize] = n as u32;
        valnos.push(vals[v as usize]);
    }
    for s in &mut segs {
        s.valno = sc.map[s.valno as usize];
    }
    LiveRange {
        segments: segs,
        valnos,
    }
}
