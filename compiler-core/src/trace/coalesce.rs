//! A coalescer's decision about one copy, as a step keeps it: numbers only.
//!
//! ```text
//!  CoalesceDecision { copy, dst, src, verdict, dst_lane, packed: [u8] }
//!  packed = dst range · src range · merged segments · conflicts with their spans
//!           (LEB128 numbers; segment starts and value defs as deltas; the merged
//!           range as the segments it does not share at either end with dst's)
//!  Serialize / accessors ──▶ the ranges printed as LLVM prints them, the conflicts'
//!                            texts, the segment lists: the same JSON as when each
//!                            step held them as strings and vectors
//! ```
//!
//! A range is stored as its segments and its values' defs, which is everything its
//! printed form (`[16r,48r:0)[64B,80r:1) 0@16r 1@64B-phi`) says, so the text is
//! printed from the numbers when a step is shown or serialized, never kept.

use super::compact::varint;
use super::SegmentView;
use crate::liveness::{LiveRange, SlotIndex};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;
use serde::Serialize;

/// Coalescing: one decision about a copy, with both live ranges (before the decision),
/// the merged range after a join, and where the ranges conflict. Read the parts through
/// the accessors; the JSON prints the ranges as LLVM prints them.
#[derive(Clone, Debug, PartialEq)]
pub struct CoalesceDecision {
    pub copy: u32,
    pub dst: u32,
    pub src: u32,
    /// `joined`, `conflict`, `partial`, `merged`, `interference`.
    pub verdict: &'static str,
    /// When `dst` joins as one lane of a tuple (NVPTX coalescer): that lane; the `dst`
    /// range is then the lane's, `merged` the whole register's.
    pub dst_lane: Option<u8>,
    packed: Box<[u8]>,
}

/// Why two ranges cannot share a register at one point, as numbers (the step prints
/// the texts from them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ConflictAt {
    /// Register coalescer: `x` defines a value at `def` (raw slot) where `y` is live
    /// with a different value, in `y`'s segment `seg` (when one holds `def`).
    Value {
        def: u32,
        x: u32,
        y: u32,
        seg: Option<SegmentView>,
    },
    /// NVPTX coalescer: the tree found a stored segment `[start, end)` of one register
    /// overlapping the other's from raw slot `at`.
    Overlap { at: u32, start: u32, end: u32 },
}

impl ConflictAt {
    /// The two texts a decision shows for it: where, and the other register's segment.
    pub fn texts(&self) -> (String, String) {
        let at = SlotIndex::from_raw;
        match *self {
            ConflictAt::Value { def, x, y, seg } => {
                let seg = seg.map_or_else(String::new, |s| {
                    format!("[{},{}:{})", at(s.start), at(s.end), s.valno)
                });
                (
                    format!("{} (%{x} defines a value)", at(def)),
                    format!("%{y} {seg}"),
                )
            }
            ConflictAt::Overlap { at: a, start, end } => {
                (format!("{}", at(a)), format!("[{},{})", at(start), at(end)))
            }
        }
    }
}

/// A range as its numbers: segments and value defs (`(raw slot, is phi)`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RangeNumbers {
    pub segments: Vec<SegmentView>,
    pub values: Vec<(u32, bool)>,
}

impl RangeNumbers {
    /// As LLVM prints it (`LiveRange::write_to`).
    pub fn text(&self) -> String {
        let mut out = String::new();
        if self.segments.is_empty() {
            out.push_str("EMPTY");
        }
        let at = SlotIndex::from_raw;
        for s in &self.segments {
            let _ = write!(out, "[{},{}:{})", at(s.start), at(s.end), s.valno);
        }
        for (n, &(def, phi)) in self.values.iter().enumerate() {
            let _ = write!(out, " {n}@{}", at(def));
            if phi {
                out.push_str("-phi");
            }
        }
        out
    }
}

/// The ranges of a decision before it is made (both are read before a join changes
/// them): the first half of its packed numbers.
#[derive(Clone, Debug, Default)]
pub struct DecisionRanges(Vec<u8>);

impl DecisionRanges {
    /// Both ranges as they are now.
    pub fn of(dst: &LiveRange, src: &LiveRange) -> Self {
        let mut b = Vec::new();
        put_range(&mut b, Some(dst));
        put_range(&mut b, Some(src));
        DecisionRanges(b)
    }
    /// Ranges given as numbers (a picture's test).
    pub fn of_numbers(dst: &RangeNumbers, src: &RangeNumbers) -> Self {
        let mut b = Vec::new();
        for r in [dst, src] {
            put_segments(&mut b, r.segments.len(), r.segments.iter().copied());
            put_values(&mut b, r.values.len(), r.values.iter().copied());
        }
        DecisionRanges(b)
    }
    /// No ranges (a decision taken before looking at them).
    pub fn none() -> Self {
        let mut b = Vec::new();
        put_range(&mut b, None);
        put_range(&mut b, None);
        DecisionRanges(b)
    }
}

impl CoalesceDecision {
    /// The decision with the ranges read before it, the surviving range after a join
    /// (`merged`), and the conflicts with the raw `[start, end)` both cover at each.
    pub fn new(
        ids: (u32, u32, u32),
        verdict: &'static str,
        dst_lane: Option<u8>,
        ranges: DecisionRanges,
        merged: Option<&LiveRange>,
        conflicts: &[(ConflictAt, (u32, u32))],
    ) -> Self {
        let merged: Option<Vec<SegmentView>> = merged.map(super::segments_of);
        Self::assemble(ids, verdict, dst_lane, ranges, merged.as_deref(), conflicts)
    }

    /// [`CoalesceDecision::new`] with the merged segments as numbers.
    pub fn with_merged_segments(
        ids: (u32, u32, u32),
        verdict: &'static str,
        ranges: DecisionRanges,
        merged: &[SegmentView],
    ) -> Self {
        Self::assemble(ids, verdict, None, ranges, Some(merged), &[])
    }

    fn assemble(
        (copy, dst, src): (u32, u32, u32),
        verdict: &'static str,
        dst_lane: Option<u8>,
        ranges: DecisionRanges,
        merged: Option<&[SegmentView]>,
        conflicts: &[(ConflictAt, (u32, u32))],
    ) -> Self {
        let mut b = ranges.0;
        let before = Reader(&b, 0)
            .range(true)
            .map(|r| r.segments)
            .unwrap_or_default();
        put_merged(&mut b, &before, merged);
        put(&mut b, conflicts.len() as u64);
        for (c, (s, e)) in conflicts {
            put_conflict(&mut b, c);
            put(&mut b, u64::from(*s));
            put(&mut b, u64::from(*e));
        }
        CoalesceDecision {
            copy,
            dst,
            src,
            verdict,
            dst_lane,
            packed: b.into_boxed_slice(),
        }
    }

    /// Every part, decoded.
    fn unpack(&self) -> Unpacked {
        let mut r = Reader(&self.packed, 0);
        let dst = r.range(true);
        let src = r.range(true);
        let before = dst.as_ref().map_or(&[][..], |d| &d.segments[..]);
        let merged = r.merged(before);
        let n = r.next() as usize;
        let mut conflicts = Vec::with_capacity(n);
        for _ in 0..n {
            let c = r.conflict();
            let span = (r.next() as u32, r.next() as u32);
            conflicts.push((c, span));
        }
        Unpacked {
            dst,
            src,
            merged,
            conflicts,
        }
    }

    /// `dst`'s range before the decision (None when the decision did not look at it).
    pub fn dst_range(&self) -> Option<RangeNumbers> {
        self.unpack().dst
    }
    pub fn src_range(&self) -> Option<RangeNumbers> {
        self.unpack().src
    }
    pub fn dst_segments(&self) -> Vec<SegmentView> {
        self.unpack().dst.map(|r| r.segments).unwrap_or_default()
    }
    pub fn src_segments(&self) -> Vec<SegmentView> {
        self.unpack().src.map(|r| r.segments).unwrap_or_default()
    }
    /// After a join: the surviving register's whole range.
    pub fn merged(&self) -> Vec<SegmentView> {
        self.unpack().merged
    }
    pub fn conflicts(&self) -> Vec<ConflictAt> {
        self.unpack().conflicts.into_iter().map(|c| c.0).collect()
    }
    /// The conflicting overlaps as raw `[start, end)` slot pairs, one per conflict.
    pub fn conflict_spans(&self) -> Vec<(u32, u32)> {
        self.unpack().conflicts.into_iter().map(|c| c.1).collect()
    }
}

struct Unpacked {
    dst: Option<RangeNumbers>,
    src: Option<RangeNumbers>,
    merged: Vec<SegmentView>,
    conflicts: Vec<(ConflictAt, (u32, u32))>,
}

/// The decision as the JSON shows it (the fields a step once held).
#[derive(Serialize)]
struct Shown {
    copy: u32,
    dst: u32,
    src: u32,
    verdict: &'static str,
    dst_range: String,
    src_range: String,
    /// Where the two ranges are live at once with different values.
    conflicts: Vec<(String, String)>,
    dst_lane: Option<u8>,
    dst_segments: Vec<SegmentView>,
    src_segments: Vec<SegmentView>,
    merged: Vec<SegmentView>,
    conflict_spans: Vec<(u32, u32)>,
}

impl Serialize for CoalesceDecision {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let u = self.unpack();
        let text = |r: &Option<RangeNumbers>| r.as_ref().map_or_else(String::new, |r| r.text());
        let segs = |r: Option<RangeNumbers>| r.map(|r| r.segments).unwrap_or_default();
        Shown {
            copy: self.copy,
            dst: self.dst,
            src: self.src,
            verdict: self.verdict,
            dst_range: text(&u.dst),
            src_range: text(&u.src),
            conflicts: u.conflicts.iter().map(|c| c.0.texts()).collect(),
            dst_lane: self.dst_lane,
            dst_segments: segs(u.dst),
            src_segments: segs(u.src),
            merged: u.merged,
            conflict_spans: u.conflicts.iter().map(|c| c.1).collect(),
        }
        .serialize(s)
    }
}

fn put(b: &mut Vec<u8>, x: u64) {
    varint::put_u64(b, x);
}

fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> i64 {
    (z >> 1) as i64 ^ -((z & 1) as i64)
}

/// A range: 0 when absent, else its segment count + 1; the segments (start as a delta
/// from the previous end, length, value); its values' count and defs (delta from the
/// previous def, the phi flag in the low bit).
fn put_range(b: &mut Vec<u8>, r: Option<&LiveRange>) {
    let Some(r) = r else {
        put(b, 0);
        return;
    };
    let segs = r.segments.iter().map(|s| SegmentView {
        start: s.start.raw(),
        end: s.end.raw(),
        valno: s.valno,
    });
    put_segments(b, r.segments.len(), segs);
    let defs = r.valnos.iter().map(|v| (v.def.raw(), v.is_phi_def));
    put_values(b, r.valnos.len(), defs);
}

fn put_segments(b: &mut Vec<u8>, n: usize, segs: impl Iterator<Item = SegmentView>) {
    put(b, n as u64 + 1);
    put_run(b, 0, segs);
}

/// Segments as deltas, the first from `prev` (an end).
fn put_run(b: &mut Vec<u8>, mut prev: i64, segs: impl Iterator<Item = SegmentView>) {
    for s in segs {
        let (start, end) = (i64::from(s.start), i64::from(s.end));
        put(b, zigzag(start - prev));
        put(b, zigzag(end - start));
        put(b, u64::from(s.valno));
        prev = end;
    }
}

/// The range after a join, against `before` (the survivor's range before it, which a
/// join of a smaller range mostly keeps): 0 when absent, else its segment count + 1,
/// how many leading and trailing segments equal `before`'s, and the others as deltas.
fn put_merged(b: &mut Vec<u8>, before: &[SegmentView], merged: Option<&[SegmentView]>) {
    let Some(m) = merged else {
        put(b, 0);
        return;
    };
    let head = m.iter().zip(before).take_while(|(x, y)| x == y).count();
    let rest = (m.len() - head).min(before.len() - head);
    let tail = m.iter().rev().zip(before.iter().rev()).take(rest);
    let tail = tail.take_while(|(x, y)| x == y).count();
    put(b, m.len() as u64 + 1);
    put(b, head as u64);
    put(b, tail as u64);
    let prev = head.checked_sub(1).map_or(0, |k| i64::from(m[k].end));
    put_run(b, prev, m[head..m.len() - tail].iter().copied());
}

fn put_values(b: &mut Vec<u8>, n: usize, defs: impl Iterator<Item = (u32, bool)>) {
    put(b, n as u64);
    let mut prev = 0i64;
    for (def, phi) in defs {
        let def = i64::from(def);
        put(b, (zigzag(def - prev) << 1) | u64::from(phi));
        prev = def;
    }
}

fn put_conflict(b: &mut Vec<u8>, c: &ConflictAt) {
    match *c {
        ConflictAt::Value { def, x, y, seg } => {
            put(b, if seg.is_some() { 1 } else { 0 });
            for n in [def, x, y] {
                put(b, u64::from(n));
            }
            if let Some(s) = seg {
                for n in [s.start, s.end, s.valno] {
                    put(b, u64::from(n));
                }
            }
        }
        ConflictAt::Overlap { at, start, end } => {
            put(b, 2);
            for n in [at, start, end] {
                put(b, u64::from(n));
            }
        }
    }
}

/// The decision's bytes and the position of the next number.
struct Reader<'a>(&'a [u8], usize);

impl Reader<'_> {
    fn next(&mut self) -> u64 {
        varint::read_u64(self.0, &mut self.1)
    }
    fn u32(&mut self) -> u32 {
        self.next() as u32
    }

    fn range(&mut self, values: bool) -> Option<RangeNumbers> {
        let n = (self.next() as usize).checked_sub(1)?;
        let mut r = RangeNumbers::default();
        let mut prev = 0i64;
        for _ in 0..n {
            let s = self.segment(prev);
            prev = i64::from(s.end);
            r.segments.push(s);
        }
        if values {
            let mut prev = 0i64;
            for _ in 0..self.next() {
                let z = self.next();
                let def = prev + unzigzag(z >> 1);
                r.values.push((def as u32, z & 1 == 1));
                prev = def;
            }
        }
        Some(r)
    }

    /// What [`put_merged`] wrote against `before`.
    fn merged(&mut self, before: &[SegmentView]) -> Vec<SegmentView> {
        let Some(n) = (self.next() as usize).checked_sub(1) else {
            return Vec::new();
        };
        let (head, tail) = (self.next() as usize, self.next() as usize);
        let mut out: Vec<SegmentView> = before[..head].to_vec();
        let mut prev = out.last().map_or(0, |s| i64::from(s.end));
        for _ in head..n - tail {
            let s = self.segment(prev);
            prev = i64::from(s.end);
            out.push(s);
        }
        out.extend_from_slice(&before[before.len() - tail..]);
        out
    }

    fn segment(&mut self, prev: i64) -> SegmentView {
        let start = prev + unzigzag(self.next());
        let end = start + unzigzag(self.next());
        SegmentView {
            start: start as u32,
            end: end as u32,
            valno: self.u32(),
        }
    }

    fn conflict(&mut self) -> ConflictAt {
        let form = self.next();
        if form == 2 {
            let (at, start, end) = (self.u32(), self.u32(), self.u32());
            return ConflictAt::Overlap { at, start, end };
        }
        let (def, x, y) = (self.u32(), self.u32(), self.u32());
        let seg = (form == 1).then(|| SegmentView {
            start: self.u32(),
            end: self.u32(),
            valno: self.u32(),
        });
        ConflictAt::Value { def, x, y, seg }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::liveness::intervals::{Segment, VNInfo};
    use alloc::string::ToString;

    fn range(segs: &[(u32, u32, u32)], defs: &[(u32, bool)]) -> LiveRange {
        let mut r = LiveRange::default();
        for &(s, e, v) in segs {
            r.segments.push(Segment {
                start: SlotIndex::from_raw(s),
                end: SlotIndex::from_raw(e),
                valno: v,
            });
        }
        for &(d, phi) in defs {
            r.valnos.push(VNInfo {
                def: SlotIndex::from_raw(d),
                is_phi_def: phi,
            });
        }
        r
    }

    #[test]
    fn the_numbers_print_the_ranges_as_llvm_does() {
        let a = range(&[(66, 194, 0), (256, 322, 1)], &[(66, false), (256, true)]);
        let b = range(&[(8, 70, 0)], &[(8, false)]);
        let m = range(&[(8, 194, 0)], &[]);
        let conflicts = [
            (
                ConflictAt::Value {
                    def: 66,
                    x: 3,
                    y: 4,
                    seg: Some(SegmentView {
                        start: 8,
                        end: 70,
                        valno: 0,
                    }),
                },
                (66, 70),
            ),
            (
                ConflictAt::Overlap {
                    at: 9,
                    start: 8,
                    end: 70,
                },
                (9, 70),
            ),
        ];
        let d = CoalesceDecision::new(
            (7, 3, 4),
            "conflict",
            Some(1),
            DecisionRanges::of(&a, &b),
            Some(&m),
            &conflicts,
        );
        assert_eq!(d.dst_range().unwrap().text(), a.to_string());
        assert_eq!(d.src_range().unwrap().text(), b.to_string());
        assert_eq!(d.merged(), crate::trace::segments_of(&m));
        assert_eq!(d.dst_segments(), crate::trace::segments_of(&a));
        assert_eq!(d.conflict_spans(), [(66, 70), (9, 70)]);
        assert_eq!(d.conflicts(), conflicts.map(|c| c.0));
        let texts: Vec<_> = conflicts.iter().map(|c| c.0.texts()).collect();
        assert_eq!(texts[0].0, "16r (%3 defines a value)");
        assert_eq!(
            texts[1].1,
            format!("[{},{})", SlotIndex::from_raw(8), SlotIndex::from_raw(70))
        );
        let empty = CoalesceDecision::new(
            (1, 2, 3),
            "partial",
            None,
            DecisionRanges::none(),
            None,
            &[],
        );
        assert_eq!((empty.dst_range(), empty.merged()), (None, Vec::new()));
        let a = range(
            &[(0, 10, 0), (20, 30, 1), (40, 50, 2)],
            &[(0, false), (20, false), (40, false)],
        );
        let b = range(&[(12, 18, 0)], &[(12, false)]);
        for m in [
            &[(0, 10, 0), (12, 30, 1), (40, 50, 2)][..],
            &[(0, 10, 0), (20, 30, 1), (40, 50, 2)],
            &[(0, 10, 0), (20, 30, 1), (40, 50, 2), (60, 70, 3)],
            &[(1, 10, 0), (20, 30, 1)],
            &[(0, 50, 0)],
            &[],
        ] {
            let merged = range(m, &[]);
            let d = CoalesceDecision::new(
                (1, 2, 3),
                "joined",
                None,
                DecisionRanges::of(&a, &b),
                Some(&merged),
                &[],
            );
            assert_eq!(d.merged(), crate::trace::segments_of(&merged), "{m:?}");
            assert_eq!(d.dst_segments(), crate::trace::segments_of(&a));
        }
        let e = range(&[], &[]);
        let d = CoalesceDecision::new(
            (1, 2, 3),
            "joined",
            None,
            DecisionRanges::of(&e, &e),
            None,
            &[],
        );
        assert_eq!(d.dst_range().unwrap().text(), "EMPTY");
    }
}
