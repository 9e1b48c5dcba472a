//! The register table kept up to date block by block.
//!
//! Every rewrite of these passes stays inside one block, and the code after a rewrite
//! reads the table (defs, uses, the def anchor). Recounting the whole function after
//! each rewrite ([`super::refresh`]) made a function of B blocks cost B × N: a
//! 5,000-block kernel took minutes. A [`Tally`] remembers what each block contributed
//! when it was last counted, so [`Tally::recount`] takes that share back and counts the
//! block as it is now, in time proportional to the block.
//!
//! A block nothing changed since its last count is not counted again: rewrites report
//! the block they touch ([`Tally::changed`], or [`Tally::forget`] for a removal), and a
//! recount of a block with no report is free. The fixed-point loops recount a block
//! before every step that reads the table, and most of those steps follow one that
//! changed nothing; on a large block each skipped recount is a sweep of memory saved.
//!
//! Invariant: between calls, the table equals what `refresh` would compute, provided
//! every rewrite since the last count was reported for its block and those blocks
//! were recounted since. Debug builds check this after every recount, skipped or not.

use super::{clear_counts, count, for_each_reg, refresh};
use crate::entity::SecondaryMap;
use crate::ori::{constraint, Function, InstId, RegId};
use alloc::vec::Vec;

/// What one block adds to the table: (register, is a definition, instruction).
type Share = Vec<(RegId, bool, InstId)>;

/// Per-block shares of the register table.
pub struct Tally {
    shares: Vec<Share>,
    /// Per block: a rewrite was reported since the block's share was taken.
    stale: Vec<bool>,
    /// Registers and instructions [`Tally::forget`] took out since the last recount.
    forgotten: Vec<(RegId, InstId)>,
    /// Scratch for [`Tally::recount`], kept between calls so a recount allocates
    /// nothing the size of the function: an entry equal to `stamp` was marked during
    /// the current recount, anything else is stale.
    stamp: u32,
    /// Instructions of the block's previous share or forgotten since.
    was_here: SecondaryMap<InstId, u32>,
    /// Registers the block names, before or after.
    named: SecondaryMap<RegId, u32>,
    /// The block's definition of a register now: (stamp, instruction).
    defined_here: SecondaryMap<RegId, (u32, InstId)>,
}

impl Tally {
    /// Counts the whole function afresh and remembers each block's share, in one walk
    /// (what [`refresh`] computes, with the shares taken on the way).
    pub fn new(f: &mut Function) -> Tally {
        clear_counts(f);
        let Function {
            blocks,
            insts,
            regs,
            ..
        } = f;
        let shares = blocks
            .iter()
            .map(|blk| {
                let mut share = Vec::with_capacity(blk.insts.len() * 2);
                for &i in &blk.insts {
                    for_each_reg(&insts[i], |r, def| {
                        share.push((r, def, i));
                        count(&mut regs[r], def, i);
                    });
                }
                share
            })
            .collect();
        Tally {
            shares,
            stale: alloc::vec![false; f.blocks.len()],
            forgotten: Vec::new(),
            stamp: 0,
            was_here: SecondaryMap::new(),
            named: SecondaryMap::new(),
            defined_here: SecondaryMap::with_default((0, InstId::from_u32(0))),
        }
    }

    /// Notes a rewrite inside block `b` (an operand, a guard or an instruction
    /// changed, came or went): its next [`Tally::recount`] counts it again.
    pub fn changed(&mut self, b: usize) {
        if let Some(s) = self.stale.get_mut(b) {
            *s = true;
        }
    }

    /// Recounts every block with a rewrite not yet counted: afterwards the table is
    /// what [`refresh`] would compute.
    pub fn settle(&mut self, f: &mut Function) {
        for b in 0..f.blocks.len() {
            if self.stale.get(b) != Some(&false) {
                self.recount(f, b);
            }
        }
        debug_assert!(
            f.insts.len() > 4000 || self.agrees(f),
            "a rewrite went unreported to the tally"
        );
    }

    /// Brings the table up to date after the rewrites reported inside block `b`.
    pub fn recount(&mut self, f: &mut Function, b: usize) {
        if self.shares.len() != f.blocks.len() {
            // Blocks came or went: nothing can be taken back, so count everything.
            *self = Tally::new(f);
            return;
        }
        if !self.stale[b] {
            debug_assert!(
                f.insts.len() > 4000 || self.agrees(f),
                "block {b} changed without a report to the tally"
            );
            return;
        }
        self.stale[b] = false;
        if self.stamp == u32::MAX {
            // Four billion recounts: start the marks over rather than wrap onto old ones.
            self.stamp = 0;
            self.was_here.clear();
            self.named.clear();
            self.defined_here.clear();
        }
        self.stamp += 1;
        let stamp = self.stamp;
        let mut old = core::mem::take(&mut self.shares[b]);
        // Instructions forgotten since the last count: their entries are out already.
        let forgotten = core::mem::take(&mut self.forgotten);
        // Only the forgotten instructions are marked yet: the retain reads just them.
        for &(_, i) in &forgotten {
            self.was_here[i] = stamp;
        }
        if !forgotten.is_empty() {
            old.retain(|e| self.was_here[e.2] != stamp);
        }
        // The block is about as big as when it was last counted: size the new share
        // like the old one, so a large block's list is not regrown step by step.
        let new = share_of(f, b, old.len() + forgotten.len());
        for &(r, def, i) in &old {
            let info = &mut f.regs[r];
            if def {
                info.defs -= 1;
            } else {
                info.uses -= 1;
            }
            self.was_here[i] = stamp;
        }
        for &(r, def, i) in &new {
            let info = &mut f.regs[r];
            if def {
                info.defs += 1;
                let here = &mut self.defined_here[r];
                if here.0 != stamp || i < here.1 {
                    *here = (stamp, i);
                }
            } else {
                info.uses += 1;
            }
        }
        // Marks instead of sorted tables: a recount costs the block's size, with no
        // logarithm, and each register the block names is settled once.
        let regs = old
            .iter()
            .chain(&new)
            .map(|e| e.0)
            .chain(forgotten.iter().map(|x| x.0));
        for r in regs {
            if core::mem::replace(&mut self.named[r], stamp) == stamp {
                continue;
            }
            // Anchors and the sticky multi-def bit.
            let defs = f.regs[r].defs;
            if defs > 1 {
                f.regs[r].constraint |= constraint::MULTI_DEF;
            }
            let anchor = match defs {
                1 => match self.defined_here[r] {
                    (s, i) if s == stamp => Some(i),
                    // The one definition is in another block: the old anchor if
                    // it was not this block's, else a search of the other shares.
                    _ => f.regs[r]
                        .def_anchor
                        .filter(|&a| self.was_here[a] != stamp)
                        .or_else(|| self.find_def(r, b)),
                },
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
        self.stale[b] = true;
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
