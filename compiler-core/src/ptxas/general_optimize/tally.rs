//! The register table kept up to date block by block.
//!
//! Every rewrite of these passes stays inside one block, and the code after a rewrite
//! reads the table (defs, uses, the def anchor). Recounting the whole function after
//! each rewrite ([`super::refresh`]) made a function of B blocks cost B × N: a
//! 5,000-block kernel took minutes. A [`Tally`] remembers what each block contributed
//! when it was last counted, so [`Tally::recount`] takes that share back and counts the
//! block as it is now, in time proportional to the block.
//!
//! Invariant: between calls, the table equals what `refresh` would compute, provided
//! every rewrite since the last count touched only the blocks recounted since. Debug
//! builds check this after every recount.

use super::{for_each_reg, refresh};
use crate::ori::{constraint, Function, InstId, RegId};
use alloc::vec::Vec;

/// What one block adds to the table: (register, is a definition, instruction).
type Share = Vec<(RegId, bool, InstId)>;

/// Per-block shares of the register table.
pub struct Tally {
    shares: Vec<Share>,
    /// Registers and instructions [`Tally::forget`] took out since the last recount.
    forgotten: Vec<(RegId, InstId)>,
}

impl Tally {
    /// Counts the whole function afresh and remembers each block's share.
    pub fn new(f: &mut Function) -> Tally {
        refresh(f);
        let shares = (0..f.blocks.len()).map(|b| share_of(f, b, 0)).collect();
        Tally {
            shares,
            forgotten: Vec::new(),
        }
    }

    /// Brings the table up to date after rewrites inside block `b`.
    pub fn recount(&mut self, f: &mut Function, b: usize) {
        if self.shares.len() != f.blocks.len() {
            // Blocks came or went: nothing can be taken back, so count everything.
            *self = Tally::new(f);
            return;
        }
        let mut old = core::mem::take(&mut self.shares[b]);
        // Instructions forgotten since the last count: their entries are out already.
        let forgotten = core::mem::take(&mut self.forgotten);
        let mut gone_ids: Vec<InstId> = forgotten.iter().map(|x| x.1).collect();
        gone_ids.sort_unstable();
        gone_ids.dedup();
        if !gone_ids.is_empty() {
            old.retain(|e| gone_ids.binary_search(&e.2).is_err());
        }
        // The block is about as big as when it was last counted: size the new share
        // like the old one, so a large block's list is not regrown step by step.
        let new = share_of(f, b, old.len() + forgotten.len());
        for &(r, def, _) in &old {
            let info = &mut f.regs[r];
            if def {
                info.defs -= 1;
            } else {
                info.uses -= 1;
            }
        }
        for &(r, def, _) in &new {
            let info = &mut f.regs[r];
            if def {
                info.defs += 1;
            } else {
                info.uses += 1;
            }
        }
        // Lookups by sorted tables, so that a recount costs the block's size (times a
        // logarithm), never its square.
        let mut new_defs: Vec<(RegId, InstId)> =
            new.iter().filter(|e| e.1).map(|e| (e.0, e.2)).collect();
        new_defs.sort_unstable();
        let mut old_ids: Vec<InstId> = old.iter().map(|e| e.2).collect();
        old_ids.extend(&gone_ids);
        old_ids.sort_unstable();
        old_ids.dedup();
        let mut named: Vec<RegId> = old
            .iter()
            .chain(&new)
            .map(|e| e.0)
            .chain(forgotten.iter().map(|x| x.0))
            .collect();
        named.sort_unstable();
        named.dedup();
        // Anchors and the sticky multi-def bit, for every register the block names.
        for r in named {
            let defs = f.regs[r].defs;
            if defs > 1 {
                f.regs[r].constraint |= constraint::MULTI_DEF;
            }
            let anchor = match defs {
                1 => {
                    let at = new_defs.partition_point(|&(x, _)| x < r);
                    match new_defs.get(at) {
                        Some(&(x, i)) if x == r => Some(i),
                        // The one definition is in another block: the old anchor if
                        // it was not this block's, else a search of the other shares.
                        _ => f.regs[r]
                            .def_anchor
                            .filter(|a| old_ids.binary_search(a).is_err())
                            .or_else(|| self.find_def(r, b)),
                    }
                }
                _ => None,
            };
            f.regs[r].def_anchor = anchor;
        }
        self.shares[b] = new;
        debug_assert!(
            f.insts.len() > 4000 || self.agrees(f),
            "the tally of block {b} drifted from a full count"
        );
    }

    /// Takes instruction `id` of block `b` out of the counts before it is removed, so a
    /// backward walk sees the values it used lose a use at once. Anchors are settled by
    /// the next [`Tally::recount`] of the block, which must follow. Costs the
    /// instruction's size: the block's share is trimmed at that recount.
    pub fn forget(&mut self, f: &mut Function, b: usize, id: InstId) {
        if b >= self.shares.len() {
            return;
        }
        let Function { insts, regs, .. } = f;
        for_each_reg(&insts[id], |r, def| {
            self.forgotten.push((r, id));
            let info = &mut regs[r];
            if def {
                info.defs -= 1;
            } else {
                info.uses -= 1;
            }
        });
    }

    fn find_def(&self, r: RegId, skip: usize) -> Option<InstId> {
        self.shares
            .iter()
            .enumerate()
            .filter(|&(b, _)| b != skip)
            .flat_map(|(_, s)| s)
            .find(|&&(x, def, _)| def && x == r)
            .map(|&(_, _, i)| i)
    }

    /// True when the table equals a full recount (for debug assertions).
    fn agrees(&self, f: &Function) -> bool {
        let mut fresh = f.clone();
        refresh(&mut fresh);
        fresh
            .regs
            .iter()
            .zip(f.regs.iter())
            .all(|((_, a), (_, b))| {
                a.defs == b.defs
                    && a.uses == b.uses
                    && a.def_anchor == b.def_anchor
                    && a.constraint == b.constraint
            })
    }
}

fn share_of(f: &Function, b: usize, capacity: usize) -> Share {
    let mut out = Vec::with_capacity(capacity);
    for &i in &f.blocks[b].insts {
        for_each_reg(&f.insts[i], |r, def| out.push((r, def, i)));
    }
    out
}
