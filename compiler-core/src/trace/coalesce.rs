//! A coalescer's decision about one copy, as a step keeps it: numbers only.
//!
//! ```text
//!  CoalesceDecision { copy, dst, src, verdict (a number), dst_lane, base, packed: [u8] }
//!  (packed kept in the decision itself when it is short, else boxed)
//!  packed = dst range · src range · merged segments · conflicts with their spans
//!           (LEB128 numbers; segment starts and value defs as deltas; trailing zeros
//!           left out, as reading past the end gives zeros)
//!    dst range: whole, or against `base` (an earlier large range of the same register,
//!               shared by the decisions about it): the segments and values it shares
//!               with the base at either end, and the others
//!    merged:    the segments it does not share at either end with the dst range
//!    conflict:  a register-coalescer conflict the two ranges give back (the other
//!               register's segment at the def, where both are live) as its def alone
//!  Serialize / accessors ──▶ the ranges printed as LLVM prints them, the conflicts'
//!                            texts, the segment lists: the same JSON as when each
//!                            step held them as strings and vectors
//! ```
//!
//! A range is stored as its segments and its values' defs, which is everything its
//! printed form (`[16r,48r:0)[64B,80r:1) 0@16r 1@64B-phi`) says, so the text is
//! printed from the numbers when a step is shown or serialized, never kept. A join
//! keeps growing one register's range, and each decision about it shows it again:
//! kept against the shared base, it costs the few segments that changed.

use super::compact::varint;
use super::field::Field;
use super::record::Tables;
use super::SegmentView;
use crate::liveness::{LiveRange, SlotIndex};
use crate::packing::{Bytes, Reader as LogReader};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt::Write;
use serde::Serialize;

/// Coalescing: one decision about a copy, with both live ranges (before the decision),
/// the merged range after a join, and where the ranges conflict. Read the parts through
/// the accessors; the JSON prints the ranges as LLVM prints them.
#[derive(Clone, Debug)]
pub struct CoalesceDecision {
    pub copy: u32,
    pub dst: u32,
    pub src: u32,
    verdict: Verdict,
    /// When `dst` joins as one lane of a tuple (NVPTX coalescer): that lane; the `dst`
    /// range is then the lane's, `merged` the whole register's.
    pub dst_lane: Option<u8>,
    /// The base `dst`'s range is kept against, shared with the other decisions about
    /// that register ([`DecisionRanges::against`]); without one, `packed` holds it whole.
    base: Option<RangeBase>,
    /// The packed numbers, in a box of their exact size. (Not kept inline: with the
    /// payload's box at 40 bytes, the decision has no room for them; and nearly every
    /// decision takes 24 bytes or more, which no room short of that would hold.)
    packed: Box<[u8]>,
}

/// What a coalescer decided about a copy; printed as its snake_case name
/// ([`Verdict::as_str`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Verdict {
    /// Register coalescer: the two ranges joined into one register.
    Joined,
    /// Register coalescer: the ranges conflict, the copy stays.
    Conflict,
    /// Register coalescer: a copy that reads or writes one lane of a tuple, left to
    /// the NVPTX coalescer.
    Partial,
    /// NVPTX coalescer: the two registers merged.
    Merged,
    /// NVPTX coalescer: the interval tree found the ranges interfering.
    Interference,
}

impl Verdict {
    /// The name the JSON prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Joined => "joined",
            Verdict::Conflict => "conflict",
            Verdict::Partial => "partial",
            Verdict::Merged => "merged",
            Verdict::Interference => "interference",
        }
    }
}

/// A decision in a step log's bytes: ids, verdict, lane, the number of its base in the
/// log's table (decisions sharing a base one after another name one entry), and the
/// packed ranges.
impl Field for CoalesceDecision {
    fn put(&self, w: &mut Bytes, t: &mut Tables) {
        for n in [self.copy, self.dst, self.src, self.verdict as u32] {
            n.put(w, t);
        }
        self.dst_lane.put(w, t);
        let base = self.base.as_ref().map(|b| t.bases.number(b) as u32);
        base.put(w, t);
        w.bytes(&self.packed);
    }
    fn get(r: &mut LogReader<'_>, t: &Tables) -> Self {
        use Verdict::*;
        let [copy, dst, src, v] = [(); 4].map(|_| r.u32());
        CoalesceDecision {
            copy,
            dst,
            src,
            verdict: [Joined, Conflict, Partial, Merged, Interference][v as usize % 5],
            dst_lane: Field::get(r, t),
            base: Option::<u32>::get(r, t).map(|n| t.bases.get(n.into())),
            packed: r.bytes().into(),
        }
    }
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
/// them), as numbers. The dst's may be kept against a base: an earlier range of the
/// same register, shared by the decisions about it ([`DecisionRanges::against`]), as
/// the segments and values at either end that it shares with the base and the others.
#[derive(Clone, Debug)]
pub struct DecisionRanges {
    base: Option<RangeBase>,
    /// The dst's range (against `base` when there is one), then the src's.
    bytes: Vec<u8>,
    /// Every conflict kept in full, none rebuilt from the ranges (a test's reference).
    full: bool,
}

impl Default for DecisionRanges {
    fn default() -> Self {
        Self::none()
    }
}

/// A register's range that decisions keep theirs against, shared by them: one pointer
/// in each (a decision is one of the payloads, which all take the size of the largest).
/// Bases compare by identity (a step log names each by number: [`super::record`]).
#[derive(Clone, Debug)]
#[allow(clippy::redundant_allocation)] // the inner box is a slice: the outer one makes it thin
pub(super) struct RangeBase(Arc<Box<[u8]>>);

impl PartialEq for RangeBase {
    fn eq(&self, o: &Self) -> bool {
        Arc::ptr_eq(&self.0, &o.0)
    }
}

/// A range kept whole takes at least this many bytes before it becomes a base for the
/// later decisions about its register (a smaller one is cheaper kept by each).
const BASE_MIN: usize = 24;

impl DecisionRanges {
    fn own(bytes: Vec<u8>) -> Self {
        DecisionRanges {
            base: None,
            bytes,
            full: false,
        }
    }
    /// Both ranges as they are now.
    pub fn of(dst: &LiveRange, src: &LiveRange) -> Self {
        let mut b = Vec::new();
        put_range(&mut b, Some(dst));
        put_range(&mut b, Some(src));
        Self::own(b)
    }
    /// Both ranges as they are now, the dst's against the base of `last` (the ranges
    /// of an earlier decision about the same dst register, whose base the decisions
    /// about it share) when that takes at most half the bytes of the whole range; else
    /// a large range becomes the register's new base, and `last` holds it.
    pub fn against(dst: &LiveRange, src: &LiveRange, last: &mut Option<DecisionRanges>) -> Self {
        let mut base = last.take().and_then(|l| l.base);
        let r = Self::against_base(dst, src, &mut base);
        *last = base.map(|b| DecisionRanges {
            base: Some(b),
            bytes: Vec::new(),
            full: false,
        });
        r
    }

    fn against_base(dst: &LiveRange, src: &LiveRange, base: &mut Option<RangeBase>) -> Self {
        let mut whole = Vec::new();
        put_range(&mut whole, Some(dst));
        let now = Reader(&whole, 0).range(true).unwrap_or_default();
        let mut delta = Vec::new();
        if let Some(a) = base.as_ref() {
            put_against(
                &mut delta,
                &Reader(&a.0, 0).range(true).unwrap_or_default(),
                &now,
            );
        }
        let keep = base.is_some() && delta.len() * 2 <= whole.len();
        let rebase = !keep && whole.len() >= BASE_MIN;
        if rebase {
            delta.clear();
            put_against(&mut delta, &now, &now);
            let whole = core::mem::take(&mut whole).into_boxed_slice();
            *base = Some(RangeBase(Arc::new(whole)));
        }
        let mut r = if keep || rebase {
            DecisionRanges {
                base: base.clone(),
                bytes: delta,
                full: false,
            }
        } else {
            Self::own(whole)
        };
        put_range(&mut r.bytes, Some(src));
        r
    }
    /// These ranges kept by the decision alone, its conflicts in full: what a decision
    /// holds without any sharing (the reference a test compares the shared form with).
    pub fn in_full(self) -> Self {
        let mut r = Reader(&self.bytes, 0);
        let dst = self.dst_range(&mut r);
        let src = r.range(true);
        let mut b = Vec::new();
        for x in [dst, src] {
            put_numbers(&mut b, x.as_ref());
        }
        DecisionRanges {
            base: None,
            bytes: b,
            full: true,
        }
    }
    /// Ranges given as numbers (a picture's test).
    pub fn of_numbers(dst: &RangeNumbers, src: &RangeNumbers) -> Self {
        let mut b = Vec::new();
        put_numbers(&mut b, Some(dst));
        put_numbers(&mut b, Some(src));
        Self::own(b)
    }
    /// No ranges (a decision taken before looking at them).
    pub fn none() -> Self {
        let mut b = Vec::new();
        put_range(&mut b, None);
        put_range(&mut b, None);
        Self::own(b)
    }
    /// The dst's range, read from `r` (against the base when there is one).
    fn dst_range(&self, r: &mut Reader) -> Option<RangeNumbers> {
        read_dst(&self.base, r)
    }
}

/// A decision's dst range from `r`: whole, or against `base`.
fn read_dst(base: &Option<RangeBase>, r: &mut Reader) -> Option<RangeNumbers> {
    match base {
        None => r.range(true),
        Some(a) => {
            let from = Reader(&a.0, 0).range(true).unwrap_or_default();
            Some(r.against(&from))
        }
    }
}

/// Written by hand on purpose: this compares what a decision shows (its ids, verdict,
/// lane and the ranges, merged segments and conflicts read back as numbers), not how it
/// is stored. Two decisions showing the same ranges are equal whether each keeps them
/// whole or against a shared base, and whatever bytes that takes; a derived `eq` would
/// compare the bases' pointers and the packed bytes instead.
impl PartialEq for CoalesceDecision {
    fn eq(&self, o: &Self) -> bool {
        (self.copy, self.dst, self.src, self.verdict(), self.dst_lane)
            == (o.copy, o.dst, o.src, o.verdict(), o.dst_lane)
            && self.unpack() == o.unpack()
    }
}

// A decision fits the payload's box (`Payload`'s size: the decision is its largest
// variant, and the others fit beside its spare tag values).
const _: () = assert!(core::mem::size_of::<CoalesceDecision>() <= 40);

impl CoalesceDecision {
    /// The decision with the ranges read before it, the surviving range after a join
    /// (`merged`), and the conflicts with the raw `[start, end)` both cover at each.
    pub fn new(
        ids: (u32, u32, u32),
        verdict: Verdict,
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
        verdict: Verdict,
        ranges: DecisionRanges,
        merged: &[SegmentView],
    ) -> Self {
        Self::assemble(ids, verdict, None, ranges, Some(merged), &[])
    }

    fn assemble(
        (copy, dst, src): (u32, u32, u32),
        verdict: Verdict,
        dst_lane: Option<u8>,
        ranges: DecisionRanges,
        merged: Option<&[SegmentView]>,
        conflicts: &[(ConflictAt, (u32, u32))],
    ) -> Self {
        let (dst_r, src_r) = {
            let mut r = Reader(&ranges.bytes, 0);
            (ranges.dst_range(&mut r), r.range(true))
        };
        let sides = Sides::of(&dst_r, &src_r, (dst, src));
        let (base, mut b) = (ranges.base, ranges.bytes);
        put_merged(&mut b, sides.dst.1, merged);
        put(&mut b, conflicts.len() as u64);
        for (c, span) in conflicts {
            put_conflict(&mut b, c, span, &sides, ranges.full);
        }
        // Numbers read past the end are zeros: trailing ones need no bytes.
        while b.last() == Some(&0) {
            b.pop();
        }
        CoalesceDecision {
            copy,
            dst,
            src,
            verdict,
            dst_lane,
            base,
            packed: b.into_boxed_slice(),
        }
    }

    /// `joined`, `conflict`, `partial`, `merged` or `interference` ([`Verdict::as_str`]).
    pub fn verdict(&self) -> &'static str {
        self.verdict.as_str()
    }

    /// Whether the two decisions keep their dst ranges against one shared base.
    pub fn shares_base_with(&self, other: &CoalesceDecision) -> bool {
        matches!((&self.base, &other.base), (Some(a), Some(b)) if Arc::ptr_eq(&a.0, &b.0))
    }

    /// Every part, decoded.
    fn unpack(&self) -> Unpacked {
        let mut r = Reader(&self.packed, 0);
        let dst = read_dst(&self.base, &mut r);
        let src = r.range(true);
        let before = dst.as_ref().map_or(&[][..], |d| &d.segments[..]);
        let merged = r.merged(before);
        let n = r.next() as usize;
        let sides = Sides::of(&dst, &src, (self.dst, self.src));
        let conflicts = (0..n).map(|_| r.conflict(&sides)).collect();
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

#[derive(PartialEq)]
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
        self.shown().serialize(s)
    }
}

impl CoalesceDecision {
    /// The decision as its JSON shows it.
    fn shown(&self) -> Shown {
        let u = self.unpack();
        let text = |r: &Option<RangeNumbers>| r.as_ref().map_or_else(String::new, |r| r.text());
        let segs = |r: Option<RangeNumbers>| r.map(|r| r.segments).unwrap_or_default();
        Shown {
            copy: self.copy,
            dst: self.dst,
            src: self.src,
            verdict: self.verdict(),
            dst_range: text(&u.dst),
            src_range: text(&u.src),
            conflicts: u.conflicts.iter().map(|c| c.0.texts()).collect(),
            dst_lane: self.dst_lane,
            dst_segments: segs(u.dst),
            src_segments: segs(u.src),
            merged: u.merged,
            conflict_spans: u.conflicts.iter().map(|c| c.1).collect(),
        }
    }

    /// The fields of its JSON form as rows ([`Step::payload_rows`](super::Step::payload_rows)).
    pub(super) fn rows(&self, limit: usize) -> Vec<(&'static str, String)> {
        let s = self.shown();
        super::show::fields!(limit; "copy" => &s.copy, "dst" => &s.dst, "src" => &s.src,
            "verdict" => &s.verdict, "dst_range" => &s.dst_range, "src_range" => &s.src_range,
            "conflicts" => &s.conflicts, "dst_lane" => &s.dst_lane,
            "dst_segments" => &s.dst_segments, "src_segments" => &s.src_segments,
            "merged" => &s.merged, "conflict_spans" => &s.conflict_spans)
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

/// A range given as numbers, as [`put_range`] writes one.
fn put_numbers(b: &mut Vec<u8>, r: Option<&RangeNumbers>) {
    let Some(r) = r else {
        put(b, 0);
        return;
    };
    put_segments(b, r.segments.len(), r.segments.iter().copied());
    put_values(b, r.values.len(), r.values.iter().copied());
}

/// `now` against `from`: its segments as [`put_merged`] writes them, then its values
/// the same way (count, how many at each end equal `from`'s, the others as deltas).
fn put_against(b: &mut Vec<u8>, from: &RangeNumbers, now: &RangeNumbers) {
    put_merged(b, &from.segments, Some(&now.segments[..]));
    let (v, w) = (&now.values, &from.values);
    let head = v.iter().zip(w).take_while(|(x, y)| x == y).count();
    let rest = (v.len() - head).min(w.len() - head);
    let tail = v.iter().rev().zip(w.iter().rev()).take(rest);
    let tail = tail.take_while(|(x, y)| x == y).count();
    put(b, v.len() as u64);
    put(b, head as u64);
    put(b, tail as u64);
    let mut prev = head.checked_sub(1).map_or(0, |k| i64::from(v[k].0));
    for &(def, phi) in &v[head..v.len() - tail] {
        let def = i64::from(def);
        put(b, (zigzag(def - prev) << 1) | u64::from(phi));
        prev = def;
    }
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

/// A conflict and its span. A register-coalescer conflict between the decision's two
/// registers whose segment and span are what the decision's own ranges give at its def
/// (the usual case: [`Sides::derive`]) is stored as its def alone (form 3: `x` is the
/// decision's dst, 4: its src); any other one in full.
fn put_conflict(b: &mut Vec<u8>, c: &ConflictAt, span: &(u32, u32), sides: &Sides, full: bool) {
    match *c {
        ConflictAt::Value { def, x, y, seg } => {
            for (form, x_is_dst) in [(3, true), (4, false)] {
                if !full && sides.derive(def, x_is_dst) == (*c, *span) {
                    put(b, form);
                    put(b, u64::from(def));
                    return;
                }
            }
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
    put(b, u64::from(span.0));
    put(b, u64::from(span.1));
}

/// A decision's two registers with their segments before it, from which a conflict at
/// a def is rebuilt: the other register's segment holding the def, and where both are
/// live around it (as the register coalescer's `conflict_span` measures it).
struct Sides<'a> {
    dst: (u32, &'a [SegmentView]),
    src: (u32, &'a [SegmentView]),
}

impl<'a> Sides<'a> {
    fn of(
        dst: &'a Option<RangeNumbers>,
        src: &'a Option<RangeNumbers>,
        (d, s): (u32, u32),
    ) -> Self {
        let segs = |r: &'a Option<RangeNumbers>| r.as_ref().map_or(&[][..], |r| &r.segments[..]);
        Sides {
            dst: (d, segs(dst)),
            src: (s, segs(src)),
        }
    }

    /// The conflict where `x` (the dst, or the src) defines a value at `def`.
    fn derive(&self, def: u32, x_is_dst: bool) -> (ConflictAt, (u32, u32)) {
        let ((x, xs), (y, ys)) = if x_is_dst {
            (self.dst, self.src)
        } else {
            (self.src, self.dst)
        };
        let holding =
            |segs: &[SegmentView]| segs.iter().find(|s| s.start <= def && def < s.end).copied();
        let seg = holding(ys);
        let span = match (holding(xs), seg) {
            (Some(a), Some(b)) => (a.start.max(b.start), a.end.min(b.end)),
            (None, Some(b)) => (def.max(b.start), b.end),
            (Some(a), None) => (a.start, a.end),
            (None, None) => (def, def),
        };
        (ConflictAt::Value { def, x, y, seg }, span)
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

    /// What [`put_against`] wrote against `from`.
    fn against(&mut self, from: &RangeNumbers) -> RangeNumbers {
        let segments = self.merged(&from.segments);
        let w = &from.values;
        let (n, head, tail) = (
            self.next() as usize,
            self.next() as usize,
            self.next() as usize,
        );
        let mut values = w[..head].to_vec();
        let mut prev = values.last().map_or(0, |v| i64::from(v.0));
        for _ in head..n - tail {
            let z = self.next();
            let def = prev + unzigzag(z >> 1);
            values.push((def as u32, z & 1 == 1));
            prev = def;
        }
        values.extend_from_slice(&w[w.len() - tail..]);
        RangeNumbers { segments, values }
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

    /// What [`put_conflict`] wrote, with its span.
    fn conflict(&mut self, sides: &Sides) -> (ConflictAt, (u32, u32)) {
        let form = self.next();
        let c = match form {
            2 => {
                let (at, start, end) = (self.u32(), self.u32(), self.u32());
                ConflictAt::Overlap { at, start, end }
            }
            3 | 4 => return sides.derive(self.u32(), form == 3),
            _ => {
                let (def, x, y) = (self.u32(), self.u32(), self.u32());
                let seg = (form == 1).then(|| SegmentView {
                    start: self.u32(),
                    end: self.u32(),
                    valno: self.u32(),
                });
                ConflictAt::Value { def, x, y, seg }
            }
        };
        (c, (self.u32(), self.u32()))
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
            Verdict::Conflict,
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
            Verdict::Partial,
            None,
            DecisionRanges::none(),
            None,
            &[],
        );
        assert_eq!((empty.dst_range(), empty.merged()), (None, Vec::new()));
        // Nothing but zeros: nothing kept.
        assert!(empty.packed.is_empty());
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
                Verdict::Joined,
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
            Verdict::Joined,
            None,
            DecisionRanges::of(&e, &e),
            None,
            &[],
        );
        assert_eq!(d.dst_range().unwrap().text(), "EMPTY");
    }

    /// A register's large range becomes a base; its later ranges near it are kept
    /// against it (shared by those decisions), one far from it becomes the next base,
    /// a small one is kept whole; each reads back as it was, and `in_full` gives the
    /// same decision with nothing shared.
    #[test]
    fn a_dst_range_kept_against_its_base_reads_back_whole() {
        let segs = |n: u32| (0..n).map(|k| (10 * k, 10 * k + 5, k)).collect::<Vec<_>>();
        let defs = |n: u32| (0..n).map(|k| (10 * k, k % 2 == 1)).collect::<Vec<_>>();
        let src = range(&[(3, 4, 0)], &[(3, false)]);
        let mut last = None;
        let mut seen = Vec::new();
        for n in [12, 13, 12, 30, 2, 31] {
            let dst = range(&segs(n), &defs(n));
            let ranges = DecisionRanges::against(&dst, &src, &mut last);
            let whole = ranges.clone().in_full();
            assert!(whole.base.is_none());
            let make = |r| CoalesceDecision::new((1, 2, 3), Verdict::Conflict, None, r, None, &[]);
            let (d, w) = (make(ranges), make(whole));
            assert_eq!(d.dst_range().unwrap().text(), dst.to_string(), "{n}");
            assert_eq!(d.src_range().unwrap().text(), src.to_string(), "{n}");
            assert_eq!(d, w, "{n}");
            seen.push(d);
        }
        assert!(seen[0].base.is_some());
        assert!(seen[1].shares_base_with(&seen[0]) && seen[2].shares_base_with(&seen[0]));
        assert!(seen[3].base.is_some() && !seen[3].shares_base_with(&seen[0]));
        assert!(seen[4].base.is_none());
        assert!(seen[5].shares_base_with(&seen[3]));
    }

    /// A decision's bytes, few or many, read back the ranges and the verdict it was
    /// given; its box holds exactly the packed bytes.
    #[test]
    fn a_decision_reads_back_its_ranges_and_verdict() {
        let src = range(&[(3, 4, 0)], &[(3, false)]);
        for (n, verdict) in [
            (1u32, Verdict::Joined),
            (2, Verdict::Merged),
            (30, Verdict::Interference),
        ] {
            let segs: Vec<_> = (0..n).map(|k| (10 * k, 10 * k + 5, k)).collect();
            let defs: Vec<_> = (0..n).map(|k| (10 * k, false)).collect();
            let dst = range(&segs, &defs);
            let d = CoalesceDecision::new(
                (1, 2, 3),
                verdict,
                None,
                DecisionRanges::of(&dst, &src),
                None,
                &[],
            );
            let mut whole = Vec::new();
            put_range(&mut whole, Some(&dst));
            put_range(&mut whole, Some(&src));
            while whole.last() == Some(&0) {
                whole.pop();
            }
            assert_eq!(&*d.packed, &whole[..], "{n}");
            assert_eq!(d.dst_range().unwrap().text(), dst.to_string(), "{n}");
            assert_eq!(d.src_range().unwrap().text(), src.to_string(), "{n}");
            assert_eq!(d.verdict(), verdict.as_str());
        }
    }
}
