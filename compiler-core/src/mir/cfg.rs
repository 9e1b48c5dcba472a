//! The control-flow graph as the liveness analyses and the verifier see it: successor
//! and predecessor lists from the blocks' `successors:` lists, a reverse post-order of
//! the blocks reachable from the entry, and a dominator tree over them.
//!
//! ```text
//!  BlockData.succs ──▶ Cfg { succs, preds, rpo } ──▶ DomTree { idom, dfs pre/post }
//! ```
//!
//! Invariants: only blocks in the layout appear; each list holds a block at most once
//! (duplicate successor entries collapse); `rpo[0]` is the entry block; dominance
//! queries are O(1) (pre/post numbers of a DFS over the dominator tree).
//!
//! Storage: the edges are two flat lists, by source and by destination, with a range
//! per block into each (a block's predecessors in layout order of the predecessor),
//! so building a graph of B blocks allocates a handful of arrays, not 2·B lists.

use crate::entity::{dense_map, EntityRef, SecondaryMap};
use crate::mir::{Block, Function};
use alloc::vec;
use alloc::vec::Vec;

const NONE: u32 = u32::MAX;

/// Successors, predecessors and a reverse post-order of one function's blocks.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Every edge's destination, grouped by source; `succ_range[b]` is b's part.
    succ_list: Vec<Block>,
    succ_range: SecondaryMap<Block, (u32, u32)>,
    /// Every edge's source, grouped by destination; `pred_range[b]` is b's part.
    pred_list: Vec<Block>,
    pred_range: SecondaryMap<Block, (u32, u32)>,
    /// Blocks reachable from the entry, in reverse post-order.
    rpo: Vec<Block>,
    rpo_num: SecondaryMap<Block, u32>,
    /// Layout position of each block in the layout; NONE otherwise.
    layout_pos: SecondaryMap<Block, u32>,
    num_blocks: usize,
}

impl Cfg {
    pub fn new(f: &Function) -> Self {
        let n = f.blocks.len();
        let mut layout_pos = dense_map(NONE, n);
        for (k, b) in f.layout.blocks().enumerate() {
            layout_pos[b] = k as u32;
        }
        // Successors, block by block in layout order, duplicates dropped.
        let mut succ_list: Vec<Block> = Vec::new();
        let mut succ_range = dense_map((0u32, 0u32), n);
        let mut in_degree: SecondaryMap<Block, u32> = dense_map(0, n);
        for b in f.layout.blocks() {
            let start = succ_list.len();
            for &(s, _) in &f.blocks[b].succs {
                if layout_pos[s] == NONE || succ_list[start..].contains(&s) {
                    continue;
                }
                succ_list.push(s);
                in_degree[s] += 1;
            }
            succ_range[b] = (start as u32, succ_list.len() as u32);
        }
        // Predecessors: each destination gets a slot range sized by its in-degree,
        // filled walking the sources in layout order.
        let mut pred_range = dense_map((0u32, 0u32), n);
        let mut next = 0u32;
        for b in f.layout.blocks() {
            pred_range[b] = (next, next);
            next += in_degree[b];
        }
        let mut pred_list = vec![Block::new(0); next as usize];
        for b in f.layout.blocks() {
            let (lo, hi) = succ_range[b];
            for &s in &succ_list[lo as usize..hi as usize] {
                let r = &mut pred_range[s];
                pred_list[r.1 as usize] = b;
                r.1 += 1;
            }
        }
        let mut cfg = Cfg {
            succ_list,
            succ_range,
            pred_list,
            pred_range,
            rpo: Vec::new(),
            rpo_num: dense_map(NONE, n),
            layout_pos,
            num_blocks: f.blocks.len(),
        };
        cfg.compute_rpo(f.layout.entry_block());
        cfg
    }

    fn compute_rpo(&mut self, entry: Option<Block>) {
        let Some(entry) = entry else { return };
        // Iterative DFS: (block, next successor to visit).
        let mut seen = vec![false; self.num_blocks];
        let mut post = Vec::new();
        let mut stack = vec![(entry, 0usize)];
        seen[entry.index()] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = self.succs(b).get(*next) {
                *next += 1;
                if !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        for (k, &b) in post.iter().enumerate() {
            self.rpo_num[b] = k as u32;
        }
        self.rpo = post;
    }

    pub fn succs(&self, b: Block) -> &[Block] {
        let (lo, hi) = self.succ_range[b];
        &self.succ_list[lo as usize..hi as usize]
    }

    pub fn preds(&self, b: Block) -> &[Block] {
        let (lo, hi) = self.pred_range[b];
        &self.pred_list[lo as usize..hi as usize]
    }

    /// Reachable blocks in reverse post-order (entry first).
    pub fn rpo(&self) -> &[Block] {
        &self.rpo
    }

    /// Position of `b` in [`Cfg::rpo`], if reachable.
    pub fn rpo_number(&self, b: Block) -> Option<usize> {
        match self.rpo_num[b] {
            NONE => None,
            n => Some(n as usize),
        }
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.rpo_num[b] != NONE
    }

    pub fn in_layout(&self, b: Block) -> bool {
        b.index() < self.num_blocks && self.layout_pos[b] != NONE
    }

    /// Position of `b` in the layout.
    pub fn layout_position(&self, b: Block) -> Option<usize> {
        match self.layout_pos[b] {
            NONE => None,
            n => Some(n as usize),
        }
    }

    /// One past the largest block storage index: the size of dense block tables.
    pub fn num_blocks(&self) -> usize {
        self.num_blocks
    }
}

/// The dominator tree of the reachable blocks (Cooper, Harvey and Kennedy's iterative
/// algorithm over the reverse post-order).
#[derive(Clone, Debug)]
pub struct DomTree {
    idom: SecondaryMap<Block, u32>,
    pre: SecondaryMap<Block, u32>,
    post: SecondaryMap<Block, u32>,
}

impl DomTree {
    pub fn new(cfg: &Cfg) -> Self {
        let rpo = cfg.rpo();
        // idom as RPO numbers while iterating.
        let mut idom = vec![NONE; rpo.len()];
        if !rpo.is_empty() {
            idom[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for (n, &b) in rpo.iter().enumerate().skip(1) {
                let mut new = NONE;
                for &p in cfg.preds(b) {
                    let Some(pn) = cfg.rpo_number(p) else {
                        continue;
                    };
                    if idom[pn] == NONE {
                        continue;
                    }
                    new = if new == NONE {
                        pn as u32
                    } else {
                        intersect(&idom, new, pn as u32)
                    };
                }
                if new != idom[n] {
                    idom[n] = new;
                    changed = true;
                }
            }
        }
        let n = cfg.num_blocks;
        let mut t = DomTree {
            idom: dense_map(NONE, n),
            pre: dense_map(NONE, n),
            post: dense_map(NONE, n),
        };
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); rpo.len()];
        for (n, &b) in rpo.iter().enumerate().skip(1) {
            if idom[n] != NONE {
                t.idom[b] = rpo[idom[n] as usize].index() as u32;
                children[idom[n] as usize].push(n as u32);
            }
        }
        // Pre/post numbering by an iterative DFS of the tree.
        if !rpo.is_empty() {
            let mut clock = 0u32;
            let mut stack = vec![(0u32, 0usize)];
            t.pre[rpo[0]] = clock;
            clock += 1;
            while let Some(&mut (n, ref mut next)) = stack.last_mut() {
                if let Some(&c) = children[n as usize].get(*next) {
                    *next += 1;
                    t.pre[rpo[c as usize]] = clock;
                    clock += 1;
                    stack.push((c, 0));
                } else {
                    t.post[rpo[n as usize]] = clock;
                    clock += 1;
                    stack.pop();
                }
            }
        }
        t
    }

    /// Does `a` dominate `b` (every path from the entry to `b` passes `a`)? A block
    /// dominates itself; unreachable blocks dominate nothing and are dominated by nothing.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (pa, pb) = (self.pre[a], self.pre[b]);
        pa != NONE && pb != NONE && pa <= pb && self.post[b] <= self.post[a]
    }

    /// The latches of a natural loop headed by `header`: its reachable predecessors
    /// that it dominates (the sources of its back edges), in predecessor order. Empty
    /// when `header` heads no loop.
    pub fn latches(&self, cfg: &Cfg, header: Block) -> Vec<Block> {
        cfg.preds(header)
            .iter()
            .copied()
            .filter(|&p| cfg.is_reachable(p) && self.dominates(header, p))
            .collect()
    }

    /// The immediate dominator of `b` (None for the entry and unreachable blocks).
    #[cfg(feature = "testkit")]
    pub fn idom(&self, b: Block) -> Option<Block> {
        match self.idom[b] {
            NONE => None,
            n => Some(Block::new(n as usize)),
        }
    }
}

fn intersect(idom: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = idom[a as usize];
        }
        while b > a {
            b = idom[b as usize];
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::parse_module;

    #[test]
    fn diamond_dominators() {
        let m = parse_module(
            "---\nname: f\nbody: |\n  bb.0:\n    successors: %bb.1, %bb.2\n\n    GOTO %bb.1\n  bb.1:\n    successors: %bb.3\n\n    GOTO %bb.3\n  bb.2:\n    successors: %bb.3\n\n    GOTO %bb.3\n  bb.3:\n    Return\n  bb.4:\n    successors: %bb.3\n\n    GOTO %bb.3\n...\n",
        )
        .unwrap();
        let f = &m.functions[0];
        let cfg = Cfg::new(f);
        let dt = DomTree::new(&cfg);
        let b = |n| f.block_by_number(n).unwrap();
        assert_eq!(cfg.rpo().len(), 4);
        assert!(!cfg.is_reachable(b(4)));
        assert!(dt.dominates(b(0), b(3)));
        assert!(!dt.dominates(b(1), b(3)));
        assert!(dt.dominates(b(3), b(3)));
        assert!(!dt.dominates(b(0), b(4)));
        assert_eq!(dt.idom(b(3)), Some(b(0)));
        assert_eq!(cfg.preds(b(3)), &[b(1), b(2), b(4)]);
    }
}
