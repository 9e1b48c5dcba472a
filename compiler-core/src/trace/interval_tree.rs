//! The NVPTX coalescer's interval tree as its steps carry it: node names, the
//! structural events (insert, remove, rotate, recolour) and picture-ready snapshots.
//! The tree itself is in `passes/nvptx_coalescer/interval_tree.rs`; these are the
//! data a [`Payload::TreeChange`](super::Payload::TreeChange) step records, kept here
//! so the trace does not depend on the pass that fills it.

use alloc::vec::Vec;
use serde::Serialize;

/// A node, by index into the tree's arena.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct NodeId(pub u32);

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    Red,
    Black,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Left,
    Right,
}

/// One stored segment: `[start, end)` of the interval `key` names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Interval {
    pub start: u32,
    pub end: u32,
    /// The tree's first sort key: for the NVPTX coalescer an interval number and a
    /// lane (`interval << 6 | lane code`), the interval being the one the pass's
    /// register → interval hash map gives a register (numbered like the register until
    /// a merge files it under the larger side's number); any caller key otherwise.
    pub key: u32,
}

impl Interval {
    /// The tree's order: by key, then start (then end). Keying by interval first is
    /// this project's reading of the spec's "live intervals indexed by register number"
    /// together with its comparator on start positions (`sub_34A0190`): one interval's
    /// segments sit side by side, sorted by start, so a question about one register is
    /// a range search under its key.
    ///
    /// No decision reads the order between different keys: the coalescer's one query
    /// (`overlapping_key`) asks for a single key and reports its segments in (start,
    /// end) order, which does not depend on what number the key has. Which number an
    /// interval gets (union by size) only changes where nodes sit and how often the
    /// tree rotates, which the trace draws and `rb_rotations` counts.
    pub fn tree_less(&self, other: &Interval) -> bool {
        (self.key, self.start, self.end) < (other.key, other.start, other.end)
    }
}

/// What changed in the tree, in order; the picture animates these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TreeEvent {
    Insert {
        node: NodeId,
        interval: Interval,
    },
    Remove {
        node: NodeId,
        interval: Interval,
    },
    /// A rotation about `pivot`; `side` is the direction the pivot moves down to.
    Rotate {
        pivot: NodeId,
        side: Side,
    },
    Recolor {
        node: NodeId,
        color: Color,
    },
}

/// A picture-ready copy of the tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TreeSnapshot {
    pub root: Option<NodeId>,
    pub nodes: Vec<SnapshotNode>,
    pub len: u32,
    pub min: Option<NodeId>,
    pub max: Option<NodeId>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SnapshotNode {
    pub id: NodeId,
    pub interval: Interval,
    pub color: Color,
    pub left: Option<NodeId>,
    pub right: Option<NodeId>,
    pub max_end: u32,
}

/// The events of one tree step: at most one (each insert, removal, rotation and
/// recolouring is its own step; a summary step has none), kept inline in the payload
/// rather than in a list of its own. Reads and serializes as a slice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeEvents(Option<TreeEvent>);

impl TreeEvents {
    pub fn one(e: TreeEvent) -> Self {
        TreeEvents(Some(e))
    }
    pub fn none() -> Self {
        TreeEvents(None)
    }
    pub fn as_slice(&self) -> &[TreeEvent] {
        self.0.as_slice()
    }
}

impl core::ops::Deref for TreeEvents {
    type Target = [TreeEvent];
    fn deref(&self) -> &[TreeEvent] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a TreeEvents {
    type Item = &'a TreeEvent;
    type IntoIter = core::slice::Iter<'a, TreeEvent>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl Serialize for TreeEvents {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(s)
    }
}
