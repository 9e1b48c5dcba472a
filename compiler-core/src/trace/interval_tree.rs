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

/// One stored interval: `[start, end)` of register `key`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Interval {
    pub start: u32,
    pub end: u32,
    /// The register (or any caller key); ties on `start` are ordered by it.
    pub key: u32,
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
