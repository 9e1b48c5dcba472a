//! The coalescing picture's model: what the page draws for a step of
//! `register-coalescer` or `nvptx-coalescer`, computed from the stage's steps alone.
//!
//! ```text
//!  steps of the function, first .. this one
//!    live_ranges        ─▶ one bar row per register (segments in raw slot numbers),
//!                          rebuilt from the stage's input (the step carries no rows)
//!    coalesce_decision  ─▶ joined / merged: the survivor's row takes the merged range,
//!                          the other row folds into it (listed as joined)
//!                          conflict / interference: the overlapping spans, in red
//!    tree_change        ─▶ ReplayTree (tree.rs) applies the events; laid out by depth
//!                          (y) and in-order position (x); nodes touched this step marked
//!    heap_pop           ─▶ the current candidate and both heaps
//! ```
//!
//! Everything here is numbers and labels; the page only maps them to SVG. Node ids stay
//! the pass's, so the page can key tree nodes by them and let CSS animate moves.

use super::tree::ReplayTree;
use compiler_core::interval_tree::{Color, TreeEvent};
use compiler_core::trace::{Payload, PayloadBox, RangeView, SegmentView, Step, Steps};
use compiler_core::SlotIndex;
use serde::{Deserialize, Serialize};

/// Bar rows drawn at most (the step's candidate registers always among them).
pub const MAX_ROWS: usize = 40;
/// Tree levels drawn at most (2^6 - 1 = 63 nodes).
pub const MAX_TREE_DEPTH: u32 = 6;
/// Tree layout: horizontal distance between in-order neighbours, vertical distance
/// between levels, margin (SVG user units).
pub const TREE_DX: u32 = 46;
pub const TREE_DY: u32 = 58;
pub const TREE_PAD: u32 = 26;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoalescePicture {
    pub axis: Axis,
    pub rows: Vec<BarRow>,
    /// Rows left out to keep the picture readable.
    pub hidden_rows: u32,
    /// NVPTX coalescer, once the tree is built.
    pub tree: Option<TreePicture>,
    /// NVPTX coalescer, once the worklist started.
    pub heap: Option<HeapPicture>,
    /// When this step is a decision about a copy.
    pub verdict: Option<Verdict>,
    /// The step's registers (the copy being looked at, or the last one).
    pub candidate: Option<(u32, u32)>,
    /// One or two sentences saying what the picture shows at this step.
    pub caption: String,
}

/// The program points the bars span (raw slot numbers), with labelled ticks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Axis {
    pub start: u32,
    pub end: u32,
    pub ticks: Vec<Tick>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tick {
    pub at: u32,
    pub label: String,
}

/// One register's live range after the step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BarRow {
    pub reg: u32,
    pub segments: Vec<Bar>,
    /// Registers merged into this one so far, in merge order.
    pub joined: Vec<u32>,
    /// `dst`, `src` (the step's candidate) or empty.
    pub role: String,
    /// The range changed at this step (a merge).
    pub changed: bool,
}

/// `[start, end)` in raw slot numbers, holding value number `valno`; `text` as LLVM
/// prints it (`[16r,48r:0)`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bar {
    pub start: u32,
    pub end: u32,
    pub valno: u32,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreePicture {
    /// The drawn nodes (the top [`MAX_TREE_DEPTH`] levels), by id.
    pub nodes: Vec<TreeNode>,
    /// Nodes in the tree (drawn or not).
    pub total: u32,
    pub width: u32,
    pub height: u32,
    /// What this step did to the tree.
    pub inserted: u32,
    pub removed: u32,
    pub rotations: u32,
    pub recolors: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TreeNode {
    pub id: u32,
    /// The register holding the segment's interval now (the key names an interval,
    /// first numbered like its register, see [`Ranges::holders`]), and the tuple lane
    /// when the segment is one lane's.
    pub reg: u32,
    pub lane: Option<u8>,
    /// The stored live segment `[start, end)` in raw slot numbers, its tree key, and the
    /// largest end in the node's subtree.
    pub start: u32,
    pub end: u32,
    pub key: u32,
    pub max_end: u32,
    pub red: bool,
    pub parent: Option<u32>,
    pub left: Option<u32>,
    pub right: Option<u32>,
    pub x: u32,
    pub y: u32,
    /// An event of this step named the node.
    pub touched: bool,
    /// The node belongs to one of the candidate's registers.
    pub candidate: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapPicture {
    pub current: Option<HeapCandidate>,
    /// The first entries in pop order, as (register, weight).
    pub heap: Vec<(u32, u32)>,
    pub secondary: Vec<(u32, u32)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapCandidate {
    pub copy: u32,
    pub dst: u32,
    pub src: u32,
    pub weight: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub verdict: String,
    pub dst: u32,
    pub src: u32,
    /// Where both are live with different values (raw `[start, end)`).
    pub spans: Vec<(u32, u32)>,
    /// The same spans as LLVM prints slot indexes.
    pub span_text: Vec<String>,
}

/// A raw slot number as LLVM prints it (`16r`).
pub fn slot_text(raw: u32) -> String {
    SlotIndex::from_raw(raw).to_string()
}

fn bars(segs: &[SegmentView]) -> Vec<Bar> {
    segs.iter()
        .map(|s| Bar {
            start: s.start,
            end: s.end,
            valno: s.valno,
            text: format!("[{},{}:{})", slot_text(s.start), slot_text(s.end), s.valno),
        })
        .collect()
}

/// The registers' ranges after a prefix of the steps. Indexed by register number
/// (registers are numbered densely; plain vectors keep map code out of the wasm).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ranges {
    /// Per register its segments; None for registers without a range or merged away.
    rows: Vec<Option<Vec<SegmentView>>>,
    /// Per register the registers merged into it, in merge order.
    joined: Vec<Vec<u32>>,
    /// The extent of the first state (so the axis does not move while stepping).
    pub first_extent: Option<(u32, u32)>,
}

impl Ranges {
    /// The segments of `reg`, when it has a row.
    pub fn row(&self, reg: u32) -> Option<&[SegmentView]> {
        self.rows.get(reg as usize)?.as_deref()
    }

    /// Registers with a row, in register order.
    pub fn regs(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.rows.len() as u32).filter(|&r| self.row(r).is_some())
    }

    /// What joined `reg` so far.
    pub fn joined(&self, reg: u32) -> &[u32] {
        self.joined.get(reg as usize).map_or(&[], Vec::as_slice)
    }

    /// Which register holds each interval now. The NVPTX coalescer files tree nodes
    /// under intervals: each starts out numbered like its register, and a merge keeps
    /// the larger side's number, so interval `i` is the survivor's when register `i`
    /// was merged into it. (A register still live holds the interval numbered like it,
    /// or did until the merge whose tree steps are deleting it.) Intervals missing
    /// from the list are their own register's. (Pairs sorted by interval, a later
    /// pair for the same interval winning as in a map built from them; a `Vec`, not a
    /// map: one `BTreeMap` instance less in the wasm. Read with [`holder`].)
    pub fn holders(&self) -> Vec<(u32, u32)> {
        let mut pairs: Vec<(u32, u32)> = (self.regs())
            .flat_map(|r| self.joined(r).iter().map(move |&j| (j, r)))
            .filter(|&(j, _)| self.row(j).is_none())
            .collect();
        compiler_core::sort::sort_by_key(&mut pairs, |p| p.0.into());
        let mut out: Vec<(u32, u32)> = Vec::with_capacity(pairs.len());
        for p in pairs {
            match out.last_mut() {
                Some(last) if last.0 == p.0 => *last = p,
                _ => out.push(p),
            }
        }
        out
    }

    fn slot(&mut self, reg: u32) -> usize {
        let i = reg as usize;
        if self.rows.len() <= i {
            self.rows.resize(i + 1, None);
            self.joined.resize(i + 1, Vec::new());
        }
        i
    }

    /// Applies one step's payload. `first`: every register's range as the pass started
    /// (`trace::first_range_rows` of the stage's input), which a `live_ranges` step
    /// stands for when it carries no rows itself.
    pub fn apply(&mut self, p: &Payload, first: &[RangeView]) {
        match p {
            Payload::LiveRanges { rows, .. } => {
                let rows = if rows.is_empty() { first } else { rows };
                self.rows.clear();
                self.joined.clear();
                for r in rows {
                    let i = self.slot(r.reg);
                    self.rows[i] = Some(r.segments.clone());
                }
                let all = rows.iter().flat_map(|r| r.segments.iter());
                let start = all.clone().map(|s| s.start).min();
                let end = all.map(|s| s.end).max();
                self.first_extent = start.zip(end);
            }
            Payload::CoalesceDecision(c) if is_join(c.verdict()) => {
                let (dst, src, merged) = (&c.dst, &c.src, c.merged());
                let (s, d) = (self.slot(*src), self.slot(*dst));
                self.rows[s] = None;
                self.rows[d] = Some(merged);
                let mut folded = core::mem::take(&mut self.joined[s]);
                self.joined[d].push(*src);
                self.joined[d].append(&mut folded);
            }
            _ => {}
        }
    }
}

fn is_join(verdict: &str) -> bool {
    matches!(verdict, "joined" | "merged")
}

/// The tree after a prefix of the steps (from the stage's first tree event).
pub fn replay_tree(steps: Steps<'_>) -> Result<Option<ReplayTree>, String> {
    let mut tree: Option<ReplayTree> = None;
    for s in steps {
        if let Payload::TreeChange { events, .. } = &*s.payload {
            let t = tree.get_or_insert_with(ReplayTree::default);
            for e in events {
                t.apply(e)?;
            }
        }
    }
    Ok(tree)
}

/// The register holding interval `i`: its entry in `holders` ([`Ranges::holders`]), or
/// register `i` itself.
fn holder(holders: &[(u32, u32)], i: u32) -> u32 {
    holders
        .binary_search_by_key(&i, |p| p.0)
        .map_or(i, |at| holders[at].1)
}

/// The picture after the last of `steps` (the function's steps up to and including the
/// one shown), `first` being the ranges the pass started from
/// (`trace::first_range_rows` of the function as the stage received it). None for a
/// stage this picture is not about.
pub fn picture(steps: Steps<'_>, first: &[RangeView]) -> Option<CoalescePicture> {
    let last = steps.last()?;
    let mut ranges = Ranges::default();
    // The latest heap pop is drawn: its step's payload is kept (moved, not copied).
    let mut last_pop: Option<PayloadBox> = None;
    let mut candidate = None;
    for s in steps {
        ranges.apply(&s.payload, first);
        let pop = match &*s.payload {
            Payload::HeapPop { dst, src, .. } => {
                candidate = Some((*dst, *src));
                true
            }
            Payload::CoalesceDecision(c) => {
                candidate = Some((c.dst, c.src));
                false
            }
            _ => false,
        };
        if pop {
            last_pop = Some(s.payload);
        }
    }
    let heap = match last_pop.as_deref() {
        Some(Payload::HeapPop {
            copy,
            dst,
            src,
            weight,
            heap: h,
            secondary,
        }) => Some(HeapPicture {
            current: Some(HeapCandidate {
                copy: *copy,
                dst: *dst,
                src: *src,
                weight: *weight,
            }),
            heap: h.to_vec(),
            secondary: secondary.to_vec(),
        }),
        _ => None,
    };
    let extent = ranges.first_extent?;
    let verdict = match &*last.payload {
        Payload::CoalesceDecision(c) => {
            let (verdict, dst, src, conflict_spans) =
                (&c.verdict(), &c.dst, &c.src, c.conflict_spans());
            // Both directions of the check may find the same overlap: draw it once.
            let spans = distinct_spans(&conflict_spans);
            Some(Verdict {
                verdict: verdict.to_string(),
                dst: *dst,
                src: *src,
                span_text: spans
                    .iter()
                    .map(|&(a, b)| format!("[{},{})", slot_text(a), slot_text(b)))
                    .collect(),
                spans,
            })
        }
        _ => None,
    };
    let (tree, tree_error) = match replay_tree(steps) {
        Ok(t) => (
            t.map(|t| layout_tree(&t, &last.payload, candidate, &ranges)),
            None,
        ),
        Err(e) => (None, Some(e)),
    };
    let changed = match &verdict {
        Some(v) if is_join(&v.verdict) => Some(v.dst),
        _ => None,
    };
    let (rows, hidden_rows) = select_rows(&ranges, candidate, changed);
    let mut caption = caption(&last, verdict.as_ref(), tree.as_ref(), heap.as_ref());
    if let Some(e) = tree_error {
        caption.push_str(&format!(" (The tree could not be rebuilt: {e}.)"));
    }
    Some(CoalescePicture {
        axis: axis(extent),
        rows,
        hidden_rows,
        tree,
        heap,
        verdict,
        candidate,
        caption,
    })
}

/// The spans in order, each once.
pub fn distinct_spans(spans: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut v = spans.to_vec();
    compiler_core::sort::sort_by_key(&mut v, |s| compiler_core::sort::key4(0, 0, s.0, s.1));
    v.dedup();
    v
}

fn select_rows(
    ranges: &Ranges,
    candidate: Option<(u32, u32)>,
    changed: Option<u32>,
) -> (Vec<BarRow>, u32) {
    let mut keep: Vec<u32> = candidate
        .map(|(a, b)| [a, b])
        .into_iter()
        .flatten()
        .filter(|&r| ranges.row(r).is_some())
        .collect();
    let total = ranges.regs().count();
    for r in ranges.regs() {
        if keep.len() >= MAX_ROWS {
            break;
        }
        keep.push(r);
    }
    compiler_core::sort::sort_ints(&mut keep);
    keep.dedup();
    let rows: Vec<BarRow> = keep
        .iter()
        .map(|&reg| BarRow {
            reg,
            segments: bars(ranges.row(reg).unwrap_or_default()),
            joined: ranges.joined(reg).to_vec(),
            role: match candidate {
                Some((d, _)) if d == reg => "dst".into(),
                Some((_, s)) if s == reg => "src".into(),
                _ => String::new(),
            },
            changed: changed == Some(reg),
        })
        .collect();
    (rows, (total - keep.len()) as u32)
}

/// Ticks at whole instruction indexes: steps of 16, 32, 64 ... so at most ten fit.
fn axis((start, end): (u32, u32)) -> Axis {
    let (first, last) = (start >> 2, end.div_ceil(4));
    let mut step = 16;
    while (last - first) / step > 9 {
        step *= 2;
    }
    let mut ticks = Vec::new();
    let mut at = first.div_ceil(step) * step;
    while at <= last {
        ticks.push(Tick {
            at: at << 2,
            label: at.to_string(),
        });
        at += step;
    }
    Axis { start, end, ticks }
}

fn layout_tree(
    t: &ReplayTree,
    payload: &Payload,
    candidate: Option<(u32, u32)>,
    ranges: &Ranges,
) -> TreePicture {
    let snap = t.snapshot();
    // Snapshot nodes come sorted by id.
    let by_id = |id: u32| {
        snap.nodes
            .binary_search_by_key(&id, |n| n.id.0)
            .ok()
            .map(|k| &snap.nodes[k])
    };
    // In-order walk of the drawn levels, with depths.
    let mut order: Vec<(u32, u32)> = Vec::new();
    let mut stack: Vec<(u32, u32, bool)> = snap.root.map(|r| (r.0, 0, false)).into_iter().collect();
    while let Some((id, depth, expanded)) = stack.pop() {
        let Some(n) = by_id(id) else { continue };
        if expanded {
            order.push((id, depth));
            continue;
        }
        if let Some(r) = n.right.filter(|_| depth + 1 < MAX_TREE_DEPTH) {
            stack.push((r.0, depth + 1, false));
        }
        stack.push((id, depth, true));
        if let Some(l) = n.left.filter(|_| depth + 1 < MAX_TREE_DEPTH) {
            stack.push((l.0, depth + 1, false));
        }
    }
    let touched: Vec<u32> = match payload {
        Payload::TreeChange { events, .. } => events
            .iter()
            .map(|e| match e {
                TreeEvent::Insert { node, .. }
                | TreeEvent::Remove { node, .. }
                | TreeEvent::Recolor { node, .. } => node.0,
                TreeEvent::Rotate { pivot, .. } => pivot.0,
            })
            .collect(),
        _ => Vec::new(),
    };
    let count = |f: fn(&TreeEvent) -> bool| match payload {
        Payload::TreeChange { events, .. } => events.iter().filter(|e| f(e)).count() as u32,
        _ => 0,
    };
    let regs: Vec<u32> = candidate.map(|(a, b)| vec![a, b]).unwrap_or_default();
    let holders = ranges.holders();
    let max_depth = order.iter().map(|&(_, d)| d).max().unwrap_or(0);
    let mut nodes: Vec<TreeNode> = order
        .iter()
        .enumerate()
        .filter_map(|(i, &(id, depth))| {
            let n = by_id(id)?;
            let key = n.interval.key;
            let reg = holder(&holders, key >> 6);
            Some(TreeNode {
                id,
                reg,
                lane: (key & 63).checked_sub(1).map(|l| l as u8),
                start: n.interval.start,
                end: n.interval.end,
                key,
                max_end: n.max_end,
                red: n.color == Color::Red,
                parent: t.parent(id),
                left: n.left.map(|c| c.0),
                right: n.right.map(|c| c.0),
                x: TREE_PAD + i as u32 * TREE_DX,
                y: TREE_PAD + depth * TREE_DY,
                touched: touched.contains(&id),
                candidate: regs.contains(&reg),
            })
        })
        .collect();
    compiler_core::sort::sort_by_key(&mut nodes, |n| n.id.into());
    TreePicture {
        total: snap.len,
        width: 2 * TREE_PAD + (order.len().max(1) as u32 - 1) * TREE_DX,
        height: 2 * TREE_PAD + max_depth * TREE_DY,
        nodes,
        inserted: count(|e| matches!(e, TreeEvent::Insert { .. })),
        removed: count(|e| matches!(e, TreeEvent::Remove { .. })),
        rotations: count(|e| matches!(e, TreeEvent::Rotate { .. })),
        recolors: count(|e| matches!(e, TreeEvent::Recolor { .. })),
    }
}

fn caption(
    step: &Step,
    verdict: Option<&Verdict>,
    tree: Option<&TreePicture>,
    heap: Option<&HeapPicture>,
) -> String {
    match (&*step.payload, verdict) {
        (Payload::LiveRanges { registers, .. }, _) => format!(
            "Each row is one register's live range over the program points (slot indexes); a gap means the register holds nothing worth keeping there. {registers} registers start out live."
        ),
        (_, Some(v)) if v.verdict == "merged" => format!(
            "The interval tree holds no live segment of %{} overlapping one of %{}, so their bars are now one row, %{}, and the copy between them is gone.",
            v.dst, v.src, v.dst
        ),
        (_, Some(v)) if is_join(&v.verdict) => format!(
            "%{} and %{} never held different values at the same point, so their bars are now one row, %{}, and the copy between them is gone.",
            v.dst, v.src, v.dst
        ),
        (_, Some(v)) if v.verdict == "interference" && !v.spans.is_empty() => format!(
            "%{} and %{} are both live in the red span{} ({}): the NVPTX coalescer counts any overlap of live segments as interference, whatever values they hold, so they stay apart.",
            v.dst,
            v.src,
            if v.spans.len() == 1 { "" } else { "s" },
            v.span_text.join(", ")
        ),
        (_, Some(v)) if !v.spans.is_empty() => format!(
            "%{} and %{} are both live with different values in the red span{} ({}): sharing one register would lose a value, so they stay apart.",
            v.dst,
            v.src,
            if v.spans.len() == 1 { "" } else { "s" },
            v.span_text.join(", ")
        ),
        (_, Some(v)) => format!(
            "A decision about the copy between %{} and %{}: {}.",
            v.dst,
            v.src,
            v.verdict.replace('_', " ")
        ),
        (Payload::TreeChange { events, .. }, _) => {
            let total = tree.map_or(0, |t| t.total);
            let what = match events.as_slice() {
                [] => "It is shown as it stands.".to_string(),
                [TreeEvent::Insert { node, .. }] => format!("This step inserted node {} as a red leaf.", node.0),
                [TreeEvent::Remove { node, .. }] => format!("This step deleted node {}.", node.0),
                [TreeEvent::Rotate { pivot, .. }] => format!("This step rotated about node {} to keep the tree balanced.", pivot.0),
                [TreeEvent::Recolor { node, color }] => format!("This step turned node {} {}.", node.0, if *color == Color::Red { "red" } else { "black" }),
                _ => {
                    let t = tree.map_or((0, 0, 0, 0), |t| (t.inserted, t.removed, t.rotations, t.recolors));
                    format!("This step inserted {}, removed {}, and kept the tree balanced with {} rotation(s) and {} recolouring(s).", t.0, t.1, t.2, t.3)
                }
            };
            format!(
                "The interval tree (live segments ordered by where each starts) now holds {total} segments. {what}"
            )
        }
        (Payload::HeapPop { dst, src, .. }, _) => format!(
            "The heap hands out the copy between %{dst} and %{src} next (lowest register number first, heavier first on a tie); {} candidate(s) wait behind it.",
            heap.map_or(0, |h| h.heap.len())
        ),
        _ => "The bars show every register's live range after this step.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler_core::trace::{DecisionRanges, RangeNumbers};

    #[test]
    fn axis_ticks_are_whole_indexes_within_the_extent() {
        let a = axis((16 << 2 | 2, 400 << 2));
        assert!(a.ticks.len() <= 10 && a.ticks.len() >= 2, "{:?}", a.ticks);
        assert!(a.ticks.iter().all(|t| t.at >= a.start && t.at <= a.end));
        assert_eq!(a.ticks[0].label, "64");
    }

    #[test]
    fn a_join_folds_the_source_row_into_the_survivor() {
        let seg = |start, end| SegmentView {
            start,
            end,
            valno: 0,
        };
        let numbers = |s: SegmentView| RangeNumbers {
            segments: vec![s],
            values: vec![(s.start, false)],
        };
        let mut r = Ranges::default();
        // The step carries no rows: they come from the stage's input.
        let first = vec![
            compiler_core::trace::RangeView {
                reg: 1,
                segments: vec![seg(10, 20)],
            },
            compiler_core::trace::RangeView {
                reg: 2,
                segments: vec![seg(20, 30)],
            },
        ];
        r.apply(
            &Payload::LiveRanges {
                rows: Vec::new(),
                registers: 2,
            },
            &first,
        );
        r.apply(
            &Payload::from(
                compiler_core::trace::CoalesceDecision::with_merged_segments(
                    (0, 1, 2),
                    compiler_core::trace::Verdict::Joined,
                    DecisionRanges::of_numbers(&numbers(seg(10, 20)), &numbers(seg(20, 30))),
                    &[seg(10, 30)],
                ),
            ),
            &[],
        );
        assert_eq!(r.regs().collect::<Vec<_>>(), [1]);
        assert_eq!(r.row(1), Some(&[seg(10, 30)][..]));
        assert_eq!(r.row(2), None);
        assert_eq!(r.joined(1), [2]);
        assert_eq!(r.first_extent, Some((10, 30)));
        // Interval 2 is register 1's now; any other interval is its own register's.
        let holders = r.holders();
        assert_eq!(holders, [(2, 1)]);
        assert_eq!((holder(&holders, 2), holder(&holders, 1)), (1, 1));
        assert_eq!(holder(&holders, 7), 7);
    }
}
