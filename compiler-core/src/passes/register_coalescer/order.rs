//! The order the generic coalescer visits blocks in (LLVM's MBBPriorityCompare): deeper
//! loops first, then (with `join-splitedges`) blocks that only hold the copies of a
//! split critical edge, then blocks with more predecessors plus successors, then block
//! number.

use crate::entity::SecondaryMap;
use crate::mir::cfg::{Cfg, DomTree};
use crate::mir::{Block, Function};
use alloc::vec::Vec;

/// Loop depth of every block: how many natural loops contain it.
pub fn loop_depths(f: &Function) -> SecondaryMap<Block, u32> {
    loop_depths_on(f, &Cfg::new(f))
}

/// [`loop_depths`] on `cfg`, the caller's control flow graph of `f`.
pub fn loop_depths_on(f: &Function, cfg: &Cfg) -> SecondaryMap<Block, u32> {
    let dom = DomTree::new(cfg);
    // Both maps sized up front (a map indexed past its end grows one entry at a time).
    let mut depth: SecondaryMap<Block, u32> = crate::entity::dense_map(0, f.blocks.len());
    // Headers in layout order, each with all its back edges. `seen[b]` holds the
    // number of the last loop that took `b` in, so one map serves every loop and each
    // loop costs its own size, not the function's.
    let blocks: Vec<Block> = f.layout.blocks().collect();
    let mut seen: SecondaryMap<Block, u32> = crate::entity::dense_map(0, f.blocks.len());
    for (n, &h) in blocks.iter().enumerate() {
        let stamp = n as u32 + 1;
        let latches = dom.latches(cfg, h);
        if latches.is_empty() {
            continue;
        }
        // The natural loop: the header plus everything reaching a latch without it.
        seen[h] = stamp;
        depth[h] += 1;
        let mut stack = latches;
        while let Some(b) = stack.pop() {
            if seen[b] == stamp {
                continue;
            }
            seen[b] = stamp;
            depth[b] += 1;
            stack.extend(
                cfg.preds(b)
                    .iter()
                    .copied()
                    .filter(|&p| cfg.is_reachable(p)),
            );
        }
    }
    depth
}

/// A block with one predecessor and one successor holding only copies and an
/// unconditional branch: what splitting a critical edge leaves behind.
pub fn is_split_edge(f: &Function, preds: &SecondaryMap<Block, Vec<Block>>, b: Block) -> bool {
    preds[b].len() == 1
        && f.blocks[b].succs.len() == 1
        && f.layout.block_insts(b).all(|i| {
            let d = &f.insts[i];
            d.is_copy() || d.is(crate::mir::Op::GOTO)
        })
}

/// Blocks in coalescing order, each with its loop depth, from `cfg` and `preds` (the
/// control flow graph and predecessor lists of `f`, which the caller keeps).
pub fn block_priority(
    f: &Function,
    cfg: &Cfg,
    preds: &SecondaryMap<Block, Vec<Block>>,
    join_splitedges: bool,
) -> Vec<(Block, u32)> {
    let depth = loop_depths_on(f, cfg);
    let mut blocks: Vec<(u32, bool, usize, u32, Block)> = f
        .layout
        .blocks()
        .map(|b| {
            (
                depth[b],
                join_splitedges && is_split_edge(f, preds, b),
                preds[b].len() + f.blocks[b].succs.len(),
                f.blocks[b].number,
                b,
            )
        })
        .collect();
    // Deeper, split edges, more edges first (complemented: descending), then by number.
    crate::sort::sort_by_key(&mut blocks, |b| {
        crate::sort::key4(!b.0, !(b.1 as u32), !(b.2 as u32), b.3)
    });
    blocks.into_iter().map(|x| (x.4, x.0)).collect()
}
