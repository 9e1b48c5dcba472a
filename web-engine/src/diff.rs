//! Line diffs between two printed IRs.
//!
//! ```text
//!  diff_ops(a, b): trim the common head and tail of a region, anchor it on lines that
//!                  occur exactly once on each side (longest increasing run of them:
//!                  "patience" anchors), and split the region there; regions with no
//!                  anchor fall back to Myers' O(ND) search, bounded by MAX_EDIT_DISTANCE
//!  render(ops):    unchanged lines far from a change fold into `Skipped { count }`
//! ```
//!
//! Printed MIR makes most instruction lines unique, so the anchors do nearly all the
//! work and even a 40 000-line function diffs in a few milliseconds. The work list is
//! explicit (no recursion), so deep splits cannot overflow the wasm stack.

use crate::protocol::{Alignment, DiffLine, Gap};
use std::collections::HashMap;

/// Unchanged lines kept around each change.
pub const CONTEXT: usize = 3;
/// Longest diff sent to the page.
pub const MAX_DIFF_LINES: usize = 4000;
/// Myers' search gives up past this many edits in one anchorless region and reports the
/// region as removed and re-added.
pub const MAX_EDIT_DISTANCE: usize = 400;

/// One step of an edit script: indices into the old (`a`) and new (`b`) lines.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Same(usize, usize),
    Removed(usize),
    Added(usize),
}

enum Task {
    Region {
        a0: usize,
        a1: usize,
        b0: usize,
        b1: usize,
    },
    Same(usize, usize),
}

/// An edit script turning `a` into `b`, in order.
pub fn diff_ops(a: &[&str], b: &[&str]) -> Vec<Op> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let mut work = vec![Task::Region {
        a0: 0,
        a1: a.len(),
        b0: 0,
        b1: b.len(),
    }];
    while let Some(task) = work.pop() {
        let (mut a0, mut a1, mut b0, mut b1) = match task {
            Task::Same(i, j) => {
                out.push(Op::Same(i, j));
                continue;
            }
            Task::Region { a0, a1, b0, b1 } => (a0, a1, b0, b1),
        };
        while a0 < a1 && b0 < b1 && a[a0] == b[b0] {
            out.push(Op::Same(a0, b0));
            a0 += 1;
            b0 += 1;
        }
        let mut tail = Vec::new();
        while a0 < a1 && b0 < b1 && a[a1 - 1] == b[b1 - 1] {
            a1 -= 1;
            b1 -= 1;
            tail.push(Task::Same(a1, b1));
        }
        // Tail first on the stack (it is emitted last).
        work.extend(tail);
        if a0 == a1 {
            out.extend((b0..b1).map(Op::Added));
            continue;
        }
        if b0 == b1 {
            out.extend((a0..a1).map(Op::Removed));
            continue;
        }
        let anchors = unique_anchors(a, b, a0..a1, b0..b1);
        if anchors.is_empty() {
            myers(a, b, a0..a1, b0..b1, &mut out);
            continue;
        }
        // Regions between anchors, pushed in reverse so they pop in order.
        let mut pieces = Vec::with_capacity(anchors.len() * 2 + 1);
        let (mut pa, mut pb) = (a0, b0);
        for &(i, j) in &anchors {
            pieces.push(Task::Region {
                a0: pa,
                a1: i,
                b0: pb,
                b1: j,
            });
            pieces.push(Task::Same(i, j));
            pa = i + 1;
            pb = j + 1;
        }
        pieces.push(Task::Region {
            a0: pa,
            a1,
            b0: pb,
            b1,
        });
        work.extend(pieces.into_iter().rev());
    }
    out
}

/// Lines occurring once in `a[ra]` and once in `b[rb]`, as (i, j) pairs forming the
/// longest run increasing on both sides.
fn unique_anchors(
    a: &[&str],
    b: &[&str],
    ra: std::ops::Range<usize>,
    rb: std::ops::Range<usize>,
) -> Vec<(usize, usize)> {
    // line -> (count in a, index in a, count in b, index in b)
    let mut seen: HashMap<&str, (u32, usize, u32, usize)> = HashMap::new();
    for i in ra.clone() {
        let e = seen.entry(a[i]).or_insert((0, i, 0, 0));
        e.0 += 1;
    }
    for j in rb.clone() {
        if let Some(e) = seen.get_mut(b[j]) {
            e.2 += 1;
            e.3 = j;
        }
    }
    // Pairs in `a` order (deterministic: walk `a`, not the map).
    let pairs: Vec<(usize, usize)> = ra
        .filter_map(|i| match seen.get(a[i]) {
            Some(&(1, ia, 1, jb)) if ia == i => Some((i, jb)),
            _ => None,
        })
        .collect();
    longest_increasing(&pairs)
}

/// The longest subsequence of `pairs` (already increasing in `.0`) increasing in `.1`.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tops[k]: index into pairs of the smallest tail of an increasing run of length k+1.
    let mut tops: Vec<usize> = Vec::new();
    let mut back: Vec<Option<usize>> = vec![None; pairs.len()];
    for (p, &(_, j)) in pairs.iter().enumerate() {
        let k = tops.partition_point(|&t| pairs[t].1 < j);
        back[p] = k.checked_sub(1).map(|k| tops[k]);
        if k == tops.len() {
            tops.push(p);
        } else {
            tops[k] = p;
        }
    }
    let mut out = Vec::with_capacity(tops.len());
    let mut at = tops.last().copied();
    while let Some(p) = at {
        out.push(pairs[p]);
        at = back[p];
    }
    out.reverse();
    out
}

/// Myers' greedy shortest edit script for one region, or remove-all + add-all when it
/// needs more than [`MAX_EDIT_DISTANCE`] edits.
fn myers(
    a: &[&str],
    b: &[&str],
    ra: std::ops::Range<usize>,
    rb: std::ops::Range<usize>,
    out: &mut Vec<Op>,
) {
    let (n, m) = (ra.len() as isize, rb.len() as isize);
    let max = ((n + m) as usize).min(MAX_EDIT_DISTANCE) as isize;
    let offset = max + 1;
    let mut v = vec![0isize; 2 * offset as usize + 1];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let same = |x: isize, y: isize| a[ra.start + x as usize] == b[rb.start + y as usize];
    let mut found = None;
    'search: for d in 0..=max {
        trace.push(v.clone());
        let mut k = -d;
        while k <= d {
            let down =
                k == -d || (k != d && v[(k - 1 + offset) as usize] < v[(k + 1 + offset) as usize]);
            let mut x = if down {
                v[(k + 1 + offset) as usize]
            } else {
                v[(k - 1 + offset) as usize] + 1
            };
            let mut y = x - k;
            while x < n && y < m && same(x, y) {
                x += 1;
                y += 1;
            }
            v[(k + offset) as usize] = x;
            if x >= n && y >= m {
                found = Some(d);
                break 'search;
            }
            k += 2;
        }
    }
    let Some(dist) = found else {
        out.extend(ra.map(Op::Removed));
        out.extend(rb.map(Op::Added));
        return;
    };
    // Walk the trace back from (n, m): trace[d] is V as it stood before round d.
    let mut rev = Vec::new();
    let (mut x, mut y) = (n, m);
    for d in (1..=dist).rev() {
        let v = &trace[d as usize];
        let k = x - y;
        let down =
            k == -d || (k != d && v[(k - 1 + offset) as usize] < v[(k + 1 + offset) as usize]);
        let pk = if down { k + 1 } else { k - 1 };
        let px = v[(pk + offset) as usize];
        let py = px - pk;
        while x > px && y > py {
            x -= 1;
            y -= 1;
            rev.push(Op::Same(ra.start + x as usize, rb.start + y as usize));
        }
        if down {
            rev.push(Op::Added(rb.start + py as usize));
        } else {
            rev.push(Op::Removed(ra.start + px as usize));
        }
        (x, y) = (px, py);
    }
    while x > 0 && y > 0 {
        x -= 1;
        y -= 1;
        rev.push(Op::Same(ra.start + x as usize, rb.start + y as usize));
    }
    out.extend(rev.into_iter().rev());
}

/// The blank rows that align `a` and `b` side by side, from an edit script: each run of
/// removed and added lines between two unchanged ones pairs its lines in order, and the
/// shorter side gets the difference as blank rows below its part of the run.
pub fn align(ops: &[Op]) -> Alignment {
    let mut out = Alignment::default();
    // Lines of the current run on each side, and where each side's run ends.
    let (mut removed, mut added, mut a_end, mut b_end) = (0u32, 0u32, 0u32, 0u32);
    let mut close = |removed: &mut u32, added: &mut u32, a_end: u32, b_end: u32| {
        match (*removed).cmp(added) {
            core::cmp::Ordering::Less => out.before.push(Gap {
                at: a_end,
                rows: *added - *removed,
            }),
            core::cmp::Ordering::Greater => out.after.push(Gap {
                at: b_end,
                rows: *removed - *added,
            }),
            core::cmp::Ordering::Equal => {}
        }
        (*removed, *added) = (0, 0);
    };
    for op in ops {
        match *op {
            Op::Same(i, j) => {
                close(&mut removed, &mut added, i as u32, j as u32);
                (a_end, b_end) = (i as u32 + 1, j as u32 + 1);
            }
            Op::Removed(i) => {
                removed += 1;
                a_end = i as u32 + 1;
            }
            Op::Added(j) => {
                added += 1;
                b_end = j as u32 + 1;
            }
        }
    }
    close(&mut removed, &mut added, a_end, b_end);
    out
}

/// [`align`] for two whole texts, split into lines as `str::lines` does. The common
/// head and tail of whole lines are compared as bytes and set aside first, so a step
/// that changes a few lines of a large function splits and diffs only those.
pub fn align_texts(a: &str, b: &str) -> Alignment {
    let (ab, bb) = (a.as_bytes(), b.as_bytes());
    let mut head = ab.iter().zip(bb).take_while(|(x, y)| x == y).count();
    // Back to the start of a line.
    while head > 0 && ab[head - 1] != b'\n' {
        head -= 1;
    }
    let room = ab.len().min(bb.len()) - head;
    let tail = ab
        .iter()
        .rev()
        .zip(bb.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    // The common tail from the first line that starts inside it.
    let tail = ab[ab.len() - tail..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(0, |k| tail - k - 1);
    let head_lines = a[..head].matches('\n').count() as u32;
    let am: Vec<&str> = a[head..a.len() - tail].lines().collect();
    let bm: Vec<&str> = b[head..b.len() - tail].lines().collect();
    let mut al = align(&diff_ops(&am, &bm));
    for g in al.before.iter_mut().chain(al.after.iter_mut()) {
        g.at += head_lines;
    }
    al
}

/// The page's form of an edit script: changes with [`CONTEXT`] lines around them, longer
/// unchanged runs folded, at most [`MAX_DIFF_LINES`] lines. Returns the lines, the added
/// and removed counts (of the whole script) and whether it was cut.
pub fn render(ops: &[Op], a: &[&str], b: &[&str]) -> (Vec<DiffLine>, u32, u32, bool) {
    let added = ops.iter().filter(|o| matches!(o, Op::Added(_))).count() as u32;
    let removed = ops.iter().filter(|o| matches!(o, Op::Removed(_))).count() as u32;
    // Keep a Same line when a change is within CONTEXT ops of it.
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, o)| !matches!(o, Op::Same(..)))
        .map(|(k, _)| k)
        .collect();
    let mut keep = vec![false; ops.len()];
    for &k in &changed {
        let lo = k.saturating_sub(CONTEXT);
        let hi = (k + CONTEXT + 1).min(ops.len());
        for flag in &mut keep[lo..hi] {
            *flag = true;
        }
    }
    let mut lines = Vec::new();
    let mut skipped = 0u32;
    let mut truncated = false;
    for (k, op) in ops.iter().enumerate() {
        if !keep[k] {
            skipped += 1;
            continue;
        }
        if skipped > 0 {
            lines.push(DiffLine::Skipped { count: skipped });
            skipped = 0;
        }
        if lines.len() >= MAX_DIFF_LINES {
            truncated = true;
            break;
        }
        lines.push(match *op {
            Op::Same(i, j) => DiffLine::Same {
                old: i as u32 + 1,
                new: j as u32 + 1,
                text: a[i].to_string(),
            },
            Op::Removed(i) => DiffLine::Removed {
                old: i as u32 + 1,
                text: a[i].to_string(),
            },
            Op::Added(j) => DiffLine::Added {
                new: j as u32 + 1,
                text: b[j].to_string(),
            },
        });
    }
    if skipped > 0 && !truncated {
        lines.push(DiffLine::Skipped { count: skipped });
    }
    (lines, added, removed, truncated)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both panes after `align`'s blank rows, one `Option<&str>` per row.
    fn rows<'a>(lines: &[&'a str], gaps: &[Gap]) -> Vec<Option<&'a str>> {
        let mut out = Vec::new();
        for (k, line) in lines.iter().enumerate() {
            for g in gaps.iter().filter(|g| g.at as usize == k) {
                out.extend((0..g.rows).map(|_| None));
            }
            out.push(Some(*line));
        }
        for g in gaps.iter().filter(|g| g.at as usize == lines.len()) {
            out.extend((0..g.rows).map(|_| None));
        }
        out
    }

    #[test]
    fn align_pairs_changed_lines_and_faces_inserted_and_erased_ones_with_blanks() {
        // An insert: the unchanged lines share rows, the new line faces a blank.
        let a = ["%1 = X", "%2 = Y", "RET"];
        let b = ["%1 = X", "%3 = COPY %1", "%2 = Y", "RET"];
        let al = align(&check(&a, &b));
        assert_eq!(al.before, [Gap { at: 1, rows: 1 }]);
        assert!(al.after.is_empty());
        // A rewrite beside its old form, then an erase at the end.
        let a = ["A", "%2 = ADD %1, %1", "B", "C", "D"];
        let b = ["A", "%2 = ADD %1, %4", "B", "C"];
        let al = align(&check(&a, &b));
        let (ra, rb) = (rows(&a, &al.before), rows(&b, &al.after));
        assert_eq!(ra.len(), rb.len());
        assert_eq!(
            rb,
            [
                Some("A"),
                Some("%2 = ADD %1, %4"),
                Some("B"),
                Some("C"),
                None
            ]
        );
        assert_eq!(ra[1], Some("%2 = ADD %1, %1"));
        // Two lines become three: the third new one faces a blank.
        let a = ["A", "p", "q", "Z"];
        let b = ["A", "r", "s", "t", "Z"];
        let al = align(&check(&a, &b));
        assert_eq!(al.before, [Gap { at: 3, rows: 1 }]);
        let (ra, rb) = (rows(&a, &al.before), rows(&b, &al.after));
        assert_eq!(ra, [Some("A"), Some("p"), Some("q"), None, Some("Z")]);
        assert_eq!(rb.len(), 5);
        // Same text: nothing to align.
        assert_eq!(align(&check(&a, &a)), Alignment::default());
    }

    #[test]
    fn align_texts_agrees_with_align_over_all_lines() {
        let texts = [
            "",
            "A\n",
            "A",
            "A\nB\n",
            "A\nB",
            "A\nX\nB\n",
            "A\nB\nC\n",
            "AB\nB\n",
            "A\nA\nA\n",
            "x\nA\nB\n",
            "A\nB\nx",
            "A\nBx\nC\n",
            "A\nB\nC\nD\nE\n",
            "A\nC\nD\nX\nE\n",
        ];
        for a in texts {
            for b in texts {
                let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
                let want = align(&check(&la, &lb));
                let got = align_texts(a, b);
                let rows =
                    |n: usize, g: &[Gap]| n + g.iter().map(|g| g.rows as usize).sum::<usize>();
                assert_eq!(
                    rows(la.len(), &got.before),
                    rows(lb.len(), &got.after),
                    "{a:?} {b:?}"
                );
                assert_eq!(
                    rows(la.len(), &got.before),
                    rows(la.len(), &want.before),
                    "{a:?} → {b:?}: {got:?} vs {want:?}"
                );
                assert!(got
                    .before
                    .iter()
                    .chain(&got.after)
                    .all(|g| g.at as usize <= la.len().max(lb.len())));
            }
        }
    }

    /// Applies an edit script to `a` and checks it yields `b` with every line accounted
    /// for in order.
    fn check(a: &[&str], b: &[&str]) -> Vec<Op> {
        let ops = diff_ops(a, b);
        let (mut i, mut j) = (0, 0);
        for op in &ops {
            match *op {
                Op::Same(x, y) => {
                    assert_eq!((x, y), (i, j), "{ops:?}");
                    assert_eq!(a[x], b[y]);
                    i += 1;
                    j += 1;
                }
                Op::Removed(x) => {
                    assert_eq!(x, i);
                    i += 1;
                }
                Op::Added(y) => {
                    assert_eq!(y, j);
                    j += 1;
                }
            }
        }
        assert_eq!((i, j), (a.len(), b.len()));
        ops
    }

    fn edits(ops: &[Op]) -> usize {
        ops.iter().filter(|o| !matches!(o, Op::Same(..))).count()
    }

    #[test]
    fn small_cases_are_minimal() {
        assert!(check(&[], &[]).is_empty());
        assert_eq!(edits(&check(&["a"], &[])), 1);
        assert_eq!(edits(&check(&[], &["a", "b"])), 2);
        assert_eq!(edits(&check(&["a", "b", "c"], &["a", "x", "c"])), 2);
        // Repeated lines (no unique anchors): Myers finds the 2-edit script.
        assert_eq!(
            edits(&check(&["x", "x", "y", "x"], &["x", "y", "x", "x"])),
            2
        );
        assert_eq!(
            edits(&check(
                &["a", "b", "c", "a", "b", "b", "a"],
                &["c", "b", "a", "b", "a", "c"]
            )),
            5
        );
    }

    #[test]
    fn inserted_copies_show_as_added_lines() {
        let a = [
            "bb.0:",
            "%4 = TEX",
            "%5, %6 = EXTRACT_SUBREG %4",
            "%9 = FADD %5, %6",
            "Return",
        ];
        let b = [
            "bb.0:",
            "%4 = TEX",
            "%5 = COPY %4.sub0",
            "%6 = COPY %4.sub1",
            "%9 = FADD %5, %6",
            "Return",
        ];
        let ops = check(&a, &b);
        let (lines, added, removed, cut) = render(&ops, &a, &b);
        assert_eq!((added, removed, cut), (2, 1, false));
        let texts: Vec<String> = lines
            .iter()
            .filter_map(|l| match l {
                DiffLine::Added { text, .. } => Some(format!("+{text}")),
                DiffLine::Removed { text, .. } => Some(format!("-{text}")),
                _ => None,
            })
            .collect();
        assert_eq!(
            texts,
            [
                "-%5, %6 = EXTRACT_SUBREG %4",
                "+%5 = COPY %4.sub0",
                "+%6 = COPY %4.sub1"
            ]
        );
    }

    #[test]
    fn far_unchanged_lines_fold() {
        let a: Vec<String> = (0..100).map(|i| format!("line {i}")).collect();
        let mut b = a.clone();
        b[50] = "changed".into();
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let b: Vec<&str> = b.iter().map(String::as_str).collect();
        let ops = check(&a, &b);
        let (lines, added, removed, _) = render(&ops, &a, &b);
        assert_eq!((added, removed), (1, 1));
        assert_eq!(lines.first(), Some(&DiffLine::Skipped { count: 47 }));
        assert_eq!(lines.last(), Some(&DiffLine::Skipped { count: 46 }));
        assert_eq!(lines.len(), 2 + 3 + 2 + 3);
    }

    #[test]
    fn pseudo_random_inputs_give_valid_scripts() {
        let mut seed = 0x2545f491u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let words = ["a", "b", "c", "d", "COPY", "x"];
        for _ in 0..300 {
            let la = (next() % 30) as usize;
            let lb = (next() % 30) as usize;
            let a: Vec<&str> = (0..la).map(|_| words[(next() % 6) as usize]).collect();
            let b: Vec<&str> = (0..lb).map(|_| words[(next() % 6) as usize]).collect();
            check(&a, &b);
        }
    }

    #[test]
    fn large_inputs_with_unique_lines_diff_quickly() {
        let a: Vec<String> = (0..40_000).map(|i| format!("%{i} = ADD %{i}")).collect();
        let mut b = a.clone();
        for k in (0..40_000).step_by(7).rev() {
            b.insert(k, format!("%{k} = COPY new"));
        }
        b.retain(|l| !l.ends_with("5 = ADD %5"));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let b: Vec<&str> = b.iter().map(String::as_str).collect();
        let ops = check(&a, &b);
        let (_, added, _, cut) = render(&ops, &a, &b);
        assert_eq!(added as usize, 40_000usize.div_ceil(7));
        assert!(cut);
    }
}
