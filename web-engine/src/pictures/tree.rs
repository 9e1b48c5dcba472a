//! The NVPTX coalescer's red-black interval tree, rebuilt from the trace's
//! [`TreeEvent`]s alone.
//!
//! ```text
//!  insert(node, interval)  ─▶ new red leaf where a plain search by (key, start, end) ends
//!  remove(node, interval)  ─▶ the splice a red-black delete makes before its fix-up
//!                             (a node with two children swaps in its in-order successor,
//!                             which takes the removed node's colour)
//!  rotate(pivot, side)     ─▶ the pivot moves down to `side`, its other child rises
//!  recolor(node, colour)
//! ```
//!
//! The pass records the fix-up's rotations and recolourings as their own events; what it
//! does not record (where a new node hangs, how a delete splices) follows from the tree's
//! state, so replaying the events from the start of the stage gives the tree after any
//! step even when the trace kept no snapshot (big trees). Tests check the replay equals
//! every snapshot the pass did keep.

use compiler_core::interval_tree::{
    Color, Interval, NodeId, Side, SnapshotNode, TreeEvent, TreeSnapshot,
};

#[derive(Clone, Debug)]
struct Node {
    iv: Interval,
    color: Color,
    left: Option<u32>,
    right: Option<u32>,
    parent: Option<u32>,
}

/// A tree rebuilt event by event; nodes keep the ids the pass gave them (indexes into
/// its arena, so a plain vector holds them: no map code in the page's wasm).
#[derive(Clone, Debug, Default)]
pub struct ReplayTree {
    nodes: Vec<Option<Node>>,
    len: usize,
    root: Option<u32>,
}

/// Node ids beyond this many past the arena's end are refused (the pass numbers nodes
/// densely from 0).
const MAX_ID_GAP: usize = 1 << 16;

fn less(a: &Interval, b: &Interval) -> bool {
    a.tree_less(b)
}

impl ReplayTree {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn get(&self, id: u32) -> Option<&Node> {
        self.nodes.get(id as usize).and_then(Option::as_ref)
    }

    fn n(&self, id: u32) -> Result<&Node, String> {
        self.get(id)
            .ok_or_else(|| format!("tree event names node {id}, which is not in the tree"))
    }

    fn nm(&mut self, id: u32) -> Result<&mut Node, String> {
        self.nodes
            .get_mut(id as usize)
            .and_then(Option::as_mut)
            .ok_or_else(|| format!("tree event names node {id}, which is not in the tree"))
    }

    /// Points `parent`'s link to `old` (or the root) at `new`, and `new` back at `parent`.
    fn replace_child(
        &mut self,
        parent: Option<u32>,
        old: u32,
        new: Option<u32>,
    ) -> Result<(), String> {
        match parent {
            None => self.root = new,
            Some(p) => {
                let pn = self.nm(p)?;
                if pn.left == Some(old) {
                    pn.left = new;
                } else {
                    pn.right = new;
                }
            }
        }
        if let Some(c) = new {
            self.nm(c)?.parent = parent;
        }
        Ok(())
    }

    /// Applies one event; an event that does not fit the tree is an error, never a panic.
    pub fn apply(&mut self, e: &TreeEvent) -> Result<(), String> {
        match e {
            TreeEvent::Insert { node, interval } => self.insert(node.0, *interval),
            TreeEvent::Remove { node, .. } => self.remove(node.0),
            TreeEvent::Rotate { pivot, side } => self.rotate(pivot.0, *side),
            TreeEvent::Recolor { node, color } => {
                self.nm(node.0)?.color = *color;
                Ok(())
            }
        }
    }

    fn insert(&mut self, id: u32, iv: Interval) -> Result<(), String> {
        if self.get(id).is_some() {
            return Err(format!("node {id} is inserted twice"));
        }
        if id as usize > self.nodes.len() + MAX_ID_GAP {
            return Err(format!("node id {id} is far beyond the tree's arena"));
        }
        let mut parent = None;
        let mut went_left = false;
        let mut cur = self.root;
        let mut guard = 0;
        while let Some(c) = cur {
            guard += 1;
            if guard > self.len {
                return Err("cycle in the tree".into());
            }
            let cn = self.n(c)?;
            parent = Some(c);
            went_left = less(&iv, &cn.iv);
            cur = if went_left { cn.left } else { cn.right };
        }
        if self.nodes.len() <= id as usize {
            self.nodes.resize(id as usize + 1, None);
        }
        self.nodes[id as usize] = Some(Node {
            iv,
            color: Color::Red,
            left: None,
            right: None,
            parent,
        });
        self.len += 1;
        match parent {
            None => self.root = Some(id),
            Some(p) if went_left => self.nm(p)?.left = Some(id),
            Some(p) => self.nm(p)?.right = Some(id),
        }
        Ok(())
    }

    fn remove(&mut self, z: u32) -> Result<(), String> {
        let zn = self.n(z)?.clone();
        match (zn.left, zn.right) {
            (None, _) | (_, None) => {
                let child = zn.left.or(zn.right);
                self.replace_child(zn.parent, z, child)?;
            }
            (Some(zl), Some(zr)) => {
                let mut y = zr;
                while let Some(l) = self.n(y)?.left {
                    y = l;
                }
                if y != zr {
                    let (yp, yr) = (self.n(y)?.parent, self.n(y)?.right);
                    self.replace_child(yp, y, yr)?;
                    self.nm(y)?.right = Some(zr);
                    self.nm(zr)?.parent = Some(y);
                }
                self.replace_child(zn.parent, z, Some(y))?;
                self.nm(y)?.left = Some(zl);
                self.nm(zl)?.parent = Some(y);
                self.nm(y)?.color = zn.color;
            }
        }
        self.nodes[z as usize] = None;
        self.len -= 1;
        Ok(())
    }

    fn rotate(&mut self, x: u32, side: Side) -> Result<(), String> {
        let xn = self.n(x)?.clone();
        let y = match side {
            Side::Left => xn.right,
            Side::Right => xn.left,
        }
        .ok_or_else(|| format!("rotation about node {x} has no child to raise"))?;
        let inner = match side {
            Side::Left => self.n(y)?.left,
            Side::Right => self.n(y)?.right,
        };
        match side {
            Side::Left => {
                self.nm(x)?.right = inner;
                self.nm(y)?.left = Some(x);
            }
            Side::Right => {
                self.nm(x)?.left = inner;
                self.nm(y)?.right = Some(x);
            }
        }
        if let Some(i) = inner {
            self.nm(i)?.parent = Some(x);
        }
        self.replace_child(xn.parent, x, Some(y))?;
        self.nm(x)?.parent = Some(y);
        Ok(())
    }

    pub fn root(&self) -> Option<u32> {
        self.root
    }

    /// The tree in the pass's snapshot form (nodes by id; `max_end`, count, minimum and
    /// maximum recomputed from the links).
    pub fn snapshot(&self) -> TreeSnapshot {
        let mut max_end: Vec<Option<u32>> = vec![None; self.nodes.len()];
        let mut visits = 0;
        // Children before parents: a post-order walk from the root.
        let mut stack: Vec<(u32, bool)> = self.root.into_iter().map(|r| (r, false)).collect();
        while let Some((id, done)) = stack.pop() {
            let Some(n) = self.get(id) else {
                continue;
            };
            if done {
                let m = [n.left, n.right]
                    .into_iter()
                    .flatten()
                    .filter_map(|c| max_end[c as usize])
                    .fold(n.iv.end, u32::max);
                max_end[id as usize] = Some(m);
            } else if visits <= self.len {
                visits += 1;
                stack.push((id, true));
                stack.extend([n.left, n.right].into_iter().flatten().map(|c| (c, false)));
            }
        }
        let extreme = |left: bool| {
            let mut cur = self.root?;
            for _ in 0..self.len {
                let n = self.get(cur)?;
                match if left { n.left } else { n.right } {
                    Some(c) => cur = c,
                    None => break,
                }
            }
            Some(NodeId(cur))
        };
        TreeSnapshot {
            root: self.root.map(NodeId),
            nodes: self
                .nodes
                .iter()
                .enumerate()
                .filter_map(|(id, n)| {
                    let n = n.as_ref()?;
                    Some(SnapshotNode {
                        id: NodeId(id as u32),
                        interval: n.iv,
                        color: n.color,
                        left: n.left.map(NodeId),
                        right: n.right.map(NodeId),
                        max_end: max_end[id].unwrap_or(n.iv.end),
                    })
                })
                .collect(),
            len: self.len as u32,
            min: extreme(true),
            max: extreme(false),
        }
    }

    /// Each node's parent, by id.
    pub fn parent(&self, id: u32) -> Option<u32> {
        self.get(id).and_then(|n| n.parent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler_core::passes::nvptx_coalescer::interval_tree::IntervalTree;

    /// A deterministic pseudo-random sequence (xorshift), so the test needs no crate.
    fn rng(seed: &mut u64) -> u32 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        (*seed >> 16) as u32
    }

    #[test]
    fn replaying_the_events_rebuilds_the_tree_after_every_change() {
        for run in 1..=20u64 {
            let mut seed = run * 0x9E37_79B9;
            let mut t = IntervalTree::new(true);
            let mut replay = ReplayTree::default();
            let mut live: Vec<Interval> = Vec::new();
            for k in 0..150u32 {
                if rng(&mut seed).is_multiple_of(3) && !live.is_empty() {
                    let i = rng(&mut seed) as usize % live.len();
                    assert!(t.remove(&live.swap_remove(i)));
                } else {
                    let start = rng(&mut seed) % 300;
                    let iv = Interval {
                        start,
                        end: start + 1 + rng(&mut seed) % 50,
                        key: k,
                    };
                    t.insert(iv);
                    live.push(iv);
                }
                for e in t.take_events() {
                    replay.apply(&e).unwrap();
                }
                assert_eq!(replay.snapshot(), t.snapshot(), "run {run}, change {k}");
            }
        }
    }

    #[test]
    fn an_event_that_does_not_fit_is_an_error() {
        let mut r = ReplayTree::default();
        let iv = Interval {
            start: 1,
            end: 2,
            key: 0,
        };
        r.apply(&TreeEvent::Insert {
            node: NodeId(0),
            interval: iv,
        })
        .unwrap();
        assert!(r
            .apply(&TreeEvent::Insert {
                node: NodeId(0),
                interval: iv
            })
            .is_err());
        assert!(r
            .apply(&TreeEvent::Rotate {
                pivot: NodeId(0),
                side: Side::Left
            })
            .is_err());
        assert!(r
            .apply(&TreeEvent::Recolor {
                node: NodeId(7),
                color: Color::Black
            })
            .is_err());
    }
}
