//! The NVPTX coalescer's interval index: a red-black binary search tree of live
//! intervals, with a count and cached minimum and maximum (spec: `sub_34A0610`,
//! rebalancing by rotation and recolouring). Nodes are ordered by key, then start
//! ([`Interval::tree_less`]): the spec stores "live intervals indexed by register
//! number" and its comparator (`sub_34A0190`) compares start positions; this project
//! reads the two together, so one interval's segments lie side by side in start order.
//! The key is an interval's, not a register's: the pass looks a register's interval up
//! in its hash map (`hash_map.rs`), so a merge can keep the larger side's nodes in place.
//! Each node also carries the largest end in its subtree, so "which segments of key
//! K overlap [s, e)?" is a range search: O(log n) nodes on the two boundary paths plus
//! the segments of K it reports, whatever else the tree holds.
//!
//! This structure is one of the things CopyScope shows, so it is written out here rather
//! than taken from a crate, and every structural change is reported as a [`TreeEvent`].
//!
//! Invariants (checked by [`IntervalTree::validate`]): the root is black; a red node has
//! no red child; every root-to-leaf path has the same number of black nodes; an in-order
//! walk is sorted by (key, start, end); parent links agree with child links; each
//! `max_end` is the largest end in its subtree; `len`, `min` and `max` match the nodes.

#[cfg(feature = "testkit")]
use alloc::format;
#[cfg(feature = "testkit")]
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

pub use crate::trace::interval_tree::{
    Color, Interval, NodeId, Side, SnapshotNode, TreeEvent, TreeSnapshot,
};

#[derive(Clone, Debug, Serialize)]
struct Node {
    iv: Interval,
    color: Color,
    left: Option<NodeId>,
    right: Option<NodeId>,
    parent: Option<NodeId>,
    max_end: u32,
    live: bool,
}

#[derive(Clone, Debug, Default)]
pub struct IntervalTree {
    nodes: Vec<Node>,
    root: Option<NodeId>,
    len: u32,
    min: Option<NodeId>,
    max: Option<NodeId>,
    /// Events since the last [`take_events`](Self::take_events).
    events: Vec<TreeEvent>,
    /// Rotations performed over the tree's life.
    pub rotations: u64,
    pub recolors: u64,
    /// Overlap queries answered over the tree's life ([`overlapping`](Self::overlapping)
    /// and [`overlapping_key`](Self::overlapping_key) each count one).
    queries: core::cell::Cell<u64>,
    record: bool,
}

impl IntervalTree {
    /// A tree that records [`TreeEvent`]s when `record` is true.
    pub fn new(record: bool) -> Self {
        IntervalTree {
            record,
            ..Default::default()
        }
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    #[cfg(feature = "testkit")]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[cfg(feature = "testkit")]
    pub fn min(&self) -> Option<Interval> {
        self.min.map(|n| self.n(n).iv)
    }

    #[cfg(feature = "testkit")]
    pub fn max(&self) -> Option<Interval> {
        self.max.map(|n| self.n(n).iv)
    }

    pub fn take_events(&mut self) -> Vec<TreeEvent> {
        core::mem::take(&mut self.events)
    }

    fn n(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    fn nm(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.0 as usize]
    }

    fn color(&self, id: Option<NodeId>) -> Color {
        id.map_or(Color::Black, |i| self.n(i).color)
    }

    fn set_color(&mut self, id: NodeId, c: Color) {
        if self.n(id).color != c {
            self.nm(id).color = c;
            self.recolors += 1;
            if self.record {
                self.events.push(TreeEvent::Recolor { node: id, color: c });
            }
        }
    }

    fn less(a: &Interval, b: &Interval) -> bool {
        a.tree_less(b)
    }

    fn fix_max(&mut self, id: NodeId) {
        let n = self.n(id);
        let mut m = n.iv.end;
        if let Some(l) = n.left {
            m = m.max(self.n(l).max_end);
        }
        if let Some(r) = n.right {
            m = m.max(self.n(r).max_end);
        }
        self.nm(id).max_end = m;
    }

    fn fix_max_upwards(&mut self, mut id: Option<NodeId>) {
        while let Some(i) = id {
            self.fix_max(i);
            id = self.n(i).parent;
        }
    }

    fn replace_child(&mut self, parent: Option<NodeId>, old: NodeId, new: Option<NodeId>) {
        match parent {
            None => self.root = new,
            Some(p) => {
                if self.n(p).left == Some(old) {
                    self.nm(p).left = new;
                } else {
                    self.nm(p).right = new;
                }
            }
        }
        if let Some(n) = new {
            self.nm(n).parent = parent;
        }
    }

    /// Rotates `x` down to `side`; its child on the other side takes its place.
    fn rotate(&mut self, x: NodeId, side: Side) {
        let y = match side {
            Side::Left => self.n(x).right,
            Side::Right => self.n(x).left,
        }
        .expect("rotation needs a child on the rising side");
        let inner = match side {
            Side::Left => self.n(y).left,
            Side::Right => self.n(y).right,
        };
        let parent = self.n(x).parent;
        match side {
            Side::Left => {
                self.nm(x).right = inner;
                self.nm(y).left = Some(x);
            }
            Side::Right => {
                self.nm(x).left = inner;
                self.nm(y).right = Some(x);
            }
        }
        if let Some(i) = inner {
            self.nm(i).parent = Some(x);
        }
        self.replace_child(parent, x, Some(y));
        self.nm(x).parent = Some(y);
        self.fix_max(x);
        self.fix_max(y);
        self.rotations += 1;
        if self.record {
            self.events.push(TreeEvent::Rotate { pivot: x, side });
        }
    }

    /// Inserts an interval and rebalances; returns its node.
    pub fn insert(&mut self, iv: Interval) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            iv,
            color: Color::Red,
            left: None,
            right: None,
            parent: None,
            max_end: iv.end,
            live: true,
        });
        if self.record {
            self.events.push(TreeEvent::Insert {
                node: id,
                interval: iv,
            });
        }
        // Plain BST descent. The new leaf lies under every node passed, so each one's
        // subtree maximum takes the new end on the way down.
        let mut parent = None;
        let mut cur = self.root;
        let mut went_left = false;
        while let Some(c) = cur {
            parent = Some(c);
            let n = self.nm(c);
            n.max_end = n.max_end.max(iv.end);
            went_left = Self::less(&iv, &n.iv);
            cur = if went_left { n.left } else { n.right };
        }
        self.nm(id).parent = parent;
        match parent {
            None => self.root = Some(id),
            Some(p) if went_left => self.nm(p).left = Some(id),
            Some(p) => self.nm(p).right = Some(id),
        }
        self.len += 1;
        if self.min.is_none_or(|m| Self::less(&iv, &self.n(m).iv)) {
            self.min = Some(id);
        }
        if self.max.is_none_or(|m| !Self::less(&iv, &self.n(m).iv)) {
            self.max = Some(id);
        }
        self.insert_fixup(id);
        id
    }

    fn insert_fixup(&mut self, mut z: NodeId) {
        while let Some(p) = self.n(z).parent.filter(|&p| self.n(p).color == Color::Red) {
            let g = self.n(p).parent.expect("a red node is never the root");
            let p_is_left = self.n(g).left == Some(p);
            let uncle = if p_is_left {
                self.n(g).right
            } else {
                self.n(g).left
            };
            if self.color(uncle) == Color::Red {
                // Case 1: recolour and move up.
                self.set_color(p, Color::Black);
                self.set_color(uncle.expect("red uncle exists"), Color::Black);
                self.set_color(g, Color::Red);
                z = g;
                continue;
            }
            let (inner_side, outer_side) = if p_is_left {
                (Side::Left, Side::Right)
            } else {
                (Side::Right, Side::Left)
            };
            let z_is_inner = if p_is_left {
                self.n(p).right == Some(z)
            } else {
                self.n(p).left == Some(z)
            };
            let mut p = p;
            if z_is_inner {
                // Case 2: turn the inner grandchild into an outer one.
                self.rotate(p, inner_side);
                z = p;
                p = self.n(z).parent.expect("rotated under a parent");
            }
            // Case 3: recolour and rotate the grandparent.
            self.set_color(p, Color::Black);
            self.set_color(g, Color::Red);
            self.rotate(g, outer_side);
        }
        if let Some(r) = self.root {
            self.set_color(r, Color::Black);
        }
    }

    fn minimum_from(&self, mut x: NodeId) -> NodeId {
        while let Some(l) = self.n(x).left {
            x = l;
        }
        x
    }

    fn maximum_from(&self, mut x: NodeId) -> NodeId {
        while let Some(r) = self.n(x).right {
            x = r;
        }
        x
    }

    /// Finds the node holding exactly `iv`.
    pub fn find(&self, iv: &Interval) -> Option<NodeId> {
        let mut cur = self.root;
        while let Some(c) = cur {
            let civ = &self.n(c).iv;
            if civ == iv {
                return Some(c);
            }
            cur = if Self::less(iv, civ) {
                self.n(c).left
            } else {
                self.n(c).right
            };
        }
        None
    }

    /// Removes `iv` if present; returns whether it was.
    pub fn remove(&mut self, iv: &Interval) -> bool {
        let Some(z) = self.find(iv) else { return false };
        if self.record {
            self.events.push(TreeEvent::Remove {
                node: z,
                interval: *iv,
            });
        }
        let (mut x, mut x_parent);
        let mut removed_color = self.n(z).color;
        if self.n(z).left.is_none() || self.n(z).right.is_none() {
            x = self.n(z).left.or(self.n(z).right);
            x_parent = self.n(z).parent;
            self.replace_child(x_parent, z, x);
        } else {
            let y = self.minimum_from(self.n(z).right.expect("two children"));
            removed_color = self.n(y).color;
            x = self.n(y).right;
            if self.n(y).parent == Some(z) {
                x_parent = Some(y);
            } else {
                x_parent = self.n(y).parent;
                self.replace_child(x_parent, y, x);
                let zr = self.n(z).right;
                self.nm(y).right = zr;
                if let Some(r) = zr {
                    self.nm(r).parent = Some(y);
                }
            }
            let zp = self.n(z).parent;
            self.replace_child(zp, z, Some(y));
            let zl = self.n(z).left;
            self.nm(y).left = zl;
            if let Some(l) = zl {
                self.nm(l).parent = Some(y);
            }
            let zc = self.n(z).color;
            self.nm(y).color = zc;
            self.fix_max(y);
        }
        self.fix_max_upwards(x_parent);
        self.nm(z).live = false;
        self.nm(z).left = None;
        self.nm(z).right = None;
        self.nm(z).parent = None;
        self.len -= 1;
        self.min = self.root.map(|r| self.minimum_from(r));
        self.max = self.root.map(|r| self.maximum_from(r));
        if removed_color == Color::Black {
            // Delete fixup: x carries an extra black.
            while x != self.root && self.color(x) == Color::Black {
                let Some(p) = x_parent else { break };
                let x_is_left = self.n(p).left == x;
                let (far, down) = if x_is_left {
                    (Side::Right, Side::Left)
                } else {
                    (Side::Left, Side::Right)
                };
                let mut w = if x_is_left {
                    self.n(p).right
                } else {
                    self.n(p).left
                }
                .expect("sibling of a doubly black node");
                if self.n(w).color == Color::Red {
                    self.set_color(w, Color::Black);
                    self.set_color(p, Color::Red);
                    self.rotate(p, down);
                    w = if x_is_left {
                        self.n(p).right
                    } else {
                        self.n(p).left
                    }
                    .expect("sibling after rotation");
                }
                let (wn, wf) = if x_is_left {
                    (self.n(w).left, self.n(w).right)
                } else {
                    (self.n(w).right, self.n(w).left)
                };
                if self.color(wn) == Color::Black && self.color(wf) == Color::Black {
                    self.set_color(w, Color::Red);
                    x = Some(p);
                    x_parent = self.n(p).parent;
                } else {
                    if self.color(wf) == Color::Black {
                        self.set_color(wn.expect("red near nephew"), Color::Black);
                        self.set_color(w, Color::Red);
                        self.rotate(w, far);
                        w = if x_is_left {
                            self.n(p).right
                        } else {
                            self.n(p).left
                        }
                        .expect("sibling after rotation");
                    }
                    let pc = self.n(p).color;
                    self.set_color(w, pc);
                    self.set_color(p, Color::Black);
                    let wf = if x_is_left {
                        self.n(w).right
                    } else {
                        self.n(w).left
                    };
                    if let Some(wf) = wf {
                        self.set_color(wf, Color::Black);
                    }
                    self.rotate(p, down);
                    x = self.root;
                    x_parent = None;
                }
            }
            if let Some(x) = x {
                self.set_color(x, Color::Black);
            }
        }
        true
    }

    /// Overlap queries answered so far.
    pub fn queries(&self) -> u64 {
        self.queries.get()
    }

    /// One query for a whole live range: the stored intervals with key `key` that
    /// overlap any of `probe` (half-open `[start, end)` spans), each with the span where
    /// they overlap, at most `max` of them, in probe order and, within a span, in start
    /// order. Each span is a range search among `key`'s nodes (see [`Self::walk_key`]).
    pub fn overlapping_key(
        &self,
        probe: &[(u32, u32)],
        key: u32,
        max: usize,
    ) -> Vec<(Interval, (u32, u32))> {
        self.queries.set(self.queries.get() + 1);
        let mut out = Vec::new();
        for &(start, end) in probe {
            if out.len() >= max {
                break;
            }
            self.walk_key(key, start, end, |iv| {
                out.push((iv, (iv.start.max(start), iv.end.min(end))));
                out.len() < max
            });
        }
        out
    }

    /// Calls `visit`, in tree order, on every non-empty stored interval of `key` that
    /// overlaps `[start, end)`, until it returns false. A subtree is entered only if it
    /// can hold such an interval: its keys reach `key` (the tree is ordered by key
    /// first), its starts lie before `end`, and its largest end lies past `start`.
    fn walk_key(&self, key: u32, start: u32, end: u32, mut visit: impl FnMut(Interval) -> bool) {
        // In-order walk with pruning: (node, its left side already pushed).
        let mut stack: Vec<(NodeId, bool)> = self.root.into_iter().map(|r| (r, false)).collect();
        while let Some((c, expanded)) = stack.pop() {
            let n = self.n(c);
            if n.max_end <= start {
                continue;
            }
            let (k, s) = (n.iv.key, n.iv.start);
            if !expanded {
                // Right subtree: only keys >= this node's, so useful while this node
                // sorts before (key, end).
                if let Some(r) = n.right.filter(|_| (k, s) < (key, end)) {
                    stack.push((r, false));
                }
                stack.push((c, true));
                // Left subtree: only keys <= this node's.
                if let Some(l) = n.left.filter(|_| k >= key) {
                    stack.push((l, false));
                }
                continue;
            }
            let hit = k == key && s < end && n.iv.end > start && s < n.iv.end;
            if hit && !visit(n.iv) {
                return;
            }
        }
    }

    /// Calls `visit` on every non-empty stored interval overlapping `[start, end)`,
    /// whatever its key (the subtree maxima prune; starts do not, as the tree is
    /// ordered by key first).
    #[cfg(feature = "testkit")]
    fn walk_overlaps(&self, start: u32, end: u32, mut visit: impl FnMut(Interval)) {
        let mut stack: Vec<NodeId> = self.root.into_iter().collect();
        while let Some(c) = stack.pop() {
            let n = self.n(c);
            if n.max_end <= start {
                continue;
            }
            stack.extend(n.left);
            stack.extend(n.right);
            if n.iv.start < end && n.iv.end > start && n.iv.start < n.iv.end {
                visit(n.iv);
            }
        }
    }

    /// Every stored interval overlapping `[start, end)`, in tree order.
    #[cfg(feature = "testkit")]
    pub fn overlapping(&self, start: u32, end: u32) -> Vec<Interval> {
        self.queries.set(self.queries.get() + 1);
        let mut found: Vec<Interval> = Vec::new();
        self.walk_overlaps(start, end, |iv| found.push(iv));
        crate::sort::sort_by_key(&mut found, |a| crate::sort::key4(a.start, a.key, a.end, 0));
        found
    }

    /// Intervals in order.
    #[cfg(feature = "testkit")]
    pub fn in_order(&self) -> Vec<Interval> {
        let mut out = Vec::with_capacity(self.len as usize);
        let mut stack = Vec::new();
        let mut cur = self.root;
        while cur.is_some() || !stack.is_empty() {
            while let Some(c) = cur {
                stack.push(c);
                cur = self.n(c).left;
            }
            let c = stack.pop().expect("non-empty");
            out.push(self.n(c).iv);
            cur = self.n(c).right;
        }
        out
    }

    pub fn snapshot(&self) -> TreeSnapshot {
        let mut nodes = Vec::with_capacity(self.len as usize);
        for (i, n) in self.nodes.iter().enumerate() {
            if n.live {
                nodes.push(SnapshotNode {
                    id: NodeId(i as u32),
                    interval: n.iv,
                    color: n.color,
                    left: n.left,
                    right: n.right,
                    max_end: n.max_end,
                });
            }
        }
        TreeSnapshot {
            root: self.root,
            nodes,
            len: self.len,
            min: self.min,
            max: self.max,
        }
    }

    /// Checks every red-black and bookkeeping invariant.
    #[cfg(feature = "testkit")]
    pub fn validate(&self) -> Result<(), String> {
        validate_snapshot(&self.snapshot())
    }
}

/// Checks the invariants on a snapshot (so recorded trace states can be checked too).
#[cfg(feature = "testkit")]
pub fn validate_snapshot(s: &TreeSnapshot) -> Result<(), String> {
    let get = |id: NodeId| s.nodes.iter().find(|n| n.id == id);
    let Some(root) = s.root else {
        return if s.len == 0 && s.nodes.is_empty() {
            Ok(())
        } else {
            Err(format!("no root but {} nodes", s.len))
        };
    };
    let r = get(root).ok_or("root is not a live node")?;
    if r.color != Color::Black {
        return Err("the root is red".into());
    }
    // Walk, computing black height, order and max_end.
    fn walk(
        s: &TreeSnapshot,
        id: Option<NodeId>,
        out: &mut Vec<Interval>,
        seen: &mut u32,
    ) -> Result<(u32, u32), String> {
        let Some(id) = id else { return Ok((1, 0)) };
        *seen += 1;
        if *seen as usize > s.nodes.len() {
            return Err("cycle in child links".into());
        }
        let n = s
            .nodes
            .iter()
            .find(|n| n.id == id)
            .ok_or_else(|| format!("dangling link to node {}", id.0))?;
        for c in [n.left, n.right].into_iter().flatten() {
            let cn = s.nodes.iter().find(|x| x.id == c).ok_or("dangling child")?;
            if n.color == Color::Red && cn.color == Color::Red {
                return Err(format!("red node {} has a red child {}", id.0, c.0));
            }
        }
        let (lh, lmax) = walk(s, n.left, out, seen)?;
        out.push(n.interval);
        let (rh, rmax) = walk(s, n.right, out, seen)?;
        if lh != rh {
            return Err(format!(
                "black heights differ under node {}: {lh} vs {rh}",
                id.0
            ));
        }
        let m = n.interval.end.max(lmax).max(rmax);
        if m != n.max_end {
            return Err(format!(
                "node {} caches max_end {} but its subtree ends at {m}",
                id.0, n.max_end
            ));
        }
        Ok((lh + (n.color == Color::Black) as u32, m))
    }
    let mut order = Vec::new();
    let mut seen = 0;
    walk(s, Some(root), &mut order, &mut seen)?;
    if order.len() as u32 != s.len || order.len() != s.nodes.len() {
        return Err(format!(
            "count {} but {} reachable nodes",
            s.len,
            order.len()
        ));
    }
    if order.windows(2).any(|w| IntervalTree::less(&w[1], &w[0])) {
        return Err("in-order walk is not sorted by (key, start)".into());
    }
    let min_iv = s.min.and_then(get).map(|n| n.interval);
    let max_iv = s.max.and_then(get).map(|n| n.interval);
    if min_iv != order.first().copied() || max_iv != order.last().copied() {
        return Err("cached min/max do not match the tree".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn iv(start: u32, len: u32, key: u32) -> Interval {
        Interval {
            start,
            end: start + len,
            key,
        }
    }

    #[test]
    fn ascending_inserts_rotate_and_stay_balanced() {
        let mut t = IntervalTree::new(true);
        for k in 0..64 {
            t.insert(iv(k * 4, 3, k));
            t.validate().unwrap();
        }
        assert!(t.rotations > 0);
        let ev = t.take_events();
        assert!(ev.iter().any(|e| matches!(e, TreeEvent::Rotate { .. })));
        assert!(ev.iter().any(|e| matches!(e, TreeEvent::Recolor { .. })));
        assert_eq!(t.min().unwrap().start, 0);
        assert_eq!(t.max().unwrap().start, 63 * 4);
    }

    #[test]
    fn overlap_query_finds_exactly_the_overlaps() {
        let mut t = IntervalTree::new(false);
        for (s, e, k) in [(0, 10, 1), (5, 7, 2), (12, 20, 3), (8, 9, 4), (30, 31, 5)] {
            t.insert(Interval {
                start: s,
                end: e,
                key: k,
            });
        }
        let keys: Vec<u32> = t.overlapping(6, 13).iter().map(|i| i.key).collect();
        assert_eq!(keys, [1, 2, 4, 3]);
        assert!(t.overlapping(20, 30).is_empty());
    }

    proptest! {
        #[test]
        fn random_inserts_and_removes_keep_every_invariant(
            ops in proptest::collection::vec((0u32..200, 1u32..40, any::<bool>()), 1..120)
        ) {
            let mut t = IntervalTree::new(false);
            let mut live: Vec<Interval> = Vec::new();
            for (k, (start, len, remove)) in ops.into_iter().enumerate() {
                if remove && !live.is_empty() {
                    let victim = live.remove(start as usize % live.len());
                    prop_assert!(t.remove(&victim));
                } else {
                    let x = iv(start, len, k as u32 % 5);
                    t.insert(x);
                    live.push(x);
                }
                prop_assert_eq!(t.validate(), Ok(()));
                prop_assert_eq!(t.len() as usize, live.len());
            }
            // Overlap queries agree with brute force.
            for q in 0..50u32 {
                let (s, e) = (q * 4, q * 4 + 9);
                let mut want: Vec<Interval> = live.iter().copied().filter(|i| i.start < e && i.end > s).collect();
                want.sort_by_key(|i| (i.start, i.key, i.end));
                prop_assert_eq!(t.overlapping(s, e), want);
            }
            // Key queries (a range search per probe span) agree with brute force too:
            // every segment of the key overlapping a span, spans in order, starts in order.
            let probe = [(10, 40), (35, 36), (120, 180)];
            for key in 0..200u32 {
                let mut want = Vec::new();
                for &(s, e) in &probe {
                    let mut hits: Vec<Interval> = live.iter().copied()
                        .filter(|i| i.key == key && i.start < e && i.end > s).collect();
                    hits.sort_by_key(|i| (i.start, i.end));
                    want.extend(hits.into_iter().map(|i| (i, (i.start.max(s), i.end.min(e)))));
                }
                prop_assert_eq!(t.overlapping_key(&probe, key, usize::MAX), want.clone());
                want.truncate(1);
                prop_assert_eq!(t.overlapping_key(&probe, key, 1), want);
            }
        }
    }
}
