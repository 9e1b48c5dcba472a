//! The register table kept up to date block by block.
//!
//! Every rewrite of these passes stays inside one block, and the code after a rewrite
//! reads the table (defs, uses, the def anchor). Recounting the whole function after
//! each rewrite ([`super::refresh`]) made a function of B blocks cost B × N: a
//! 5,000-block kernel took minutes. A [`Tally`] remembers what each block contributed
//! when it was last counted, so [`Tally::recount`] takes that share back and counts the
//! block as it is now, in time proportional to the block.
//!
//! Nothing is counted that did not change. The table is part of ORI (lowering fills
//! it, and every GeneralOptimize instance leaves it settled), so a tally starts from
//! it as it is, without a walk. A rewrite announces its block first
//! ([`Tally::will_change`], or [`Tally::forget`] for a removal): the first
//! announcement takes the block's share, and the next [`Tally::recount`] of the block
//! takes that share back and counts the block anew. A recount of a block with no
//! announcement is free. The fixed-point loops recount a block before every step
//! that reads the table, and most of those steps follow one that changed nothing; on
//! a large block each skipped walk is a sweep of memory saved.
//!
//! Invariant: between calls, the table equals what `refresh` would compute, provided
//! every rewrite since was announced for its block before it was made and those
//! blocks were recounted since. Debug builds check this when a tally starts, after
//! every recount, skipped or not, and when the instance settles.

use super::{for_each_reg, refresh};
use crate::entity::{PrimaryMap, SecondaryMap};
use crate::ori::{constraint, BlockId, Function, InstId, RegId};
use alloc::vec::Vec;

/// What one block adds to the table: (register, is a definition, instruction).
type Share = Vec<(RegId, bool, InstId)>;

/// Per-block shares of the register table.
pub struct Tally {
    /// Per block: what the table holds for it, when that was taken; `None` while the
    /// block is exactly as the table counted it and no rewrite was announced.
    shares: PrimaryMap<BlockId, Option<Share>>,
    /// Per block: a rewrite was announced since the block was last counted.
    stale: PrimaryMap<BlockId, bool>,
    /// Rewrites announced so far ([`Tally::changes`]).
    changes: u64,
    /// Registers and instructions [`Tally::forget`] took out since the last recount.
    forgotten: Vec<(RegId, InstId)>,
    /// The buffer of the share a recount replaced, for the next recount to fill.
    spare: Share,
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
    /// A tally of the function's table as it stands, which must be settled (what
    /// [`refresh`] computes): ORI keeps it so between passes. Costs nothing the size
    /// of the function.
    pub fn new(f: &Function) -> Tally {
        debug_assert!(
            f.insts.len() > 4000 || agrees(f),
            "the register table came in unsettled"
        );
        Tally {
            shares: f.blocks.keys().map(|_| None).collect(),
            stale: f.blocks.keys().map(|_| false).collect(),
            changes: 0,
            forgotten: Vec::new(),
            spare: Vec::new(),
            stamp: 0,
            was_here: SecondaryMap::new(),
            named: SecondaryMap::new(),
            defined_here: SecondaryMap::with_default((0, InstId::from_u32(0))),
        }
    }

    /// Counts the whole function afresh and starts a tally of it: for a function
    /// changed with no announcement (stores dropped across blocks, blocks gone).
    pub fn recounted(f: &mut Function) -> Tally {
        f.touch_all_regs();
        refresh(f);
        Tally::new(f)
    }

    /// Announces a rewrite inside block `b` (an operand, a guard or an instruction
    /// will change, come or go), before it is made: the block's share is taken now if
    /// it was not, and its next [`Tally::recount`] counts it again.
    pub fn will_change(&mut self, f: &Function, b: BlockId) {
        self.changes += 1;
        if self.shares.get(b).is_none() {
            return;
        }
        if self.shares[b].is_none() {
            self.shares[b] = Some(share_of(f, b));
        }
        self.stale[b] = true;
    }

    /// How many rewrites were announced so far: while it stays the same, no
    /// instruction and no count of the table changed.
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// Recounts every block with a rewrite not yet counted: afterwards the table is
    /// what [`refresh`] would compute.
    pub fn settle(&mut self, f: &mut Function) {
        for b in f.blocks.keys() {
            if self.stale.get(b) != Some(&false) {
                self.recount(f, b);
            }
        }
        debug_assert!(
            f.insts.len() > 4000 || agrees(f),
            "a rewrite went unreported to the tally"
        );
    }

    /// Brings the table up to date after the rewrites reported inside block `b`.
    pub fn recount(&mut self, f: &mut Function, b: BlockId) {
        if self.shares.len() != f.blocks.len() {
            // Blocks came or went: nothing can be taken back, so count everything.
            *self = Tally::recounted(f);
            return;
        }
        if !self.stale[b] {
            debug_assert!(
                f.insts.len() > 4000 || agrees(f),
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
        let mut old = self.shares[b]
            .take()
            .expect("a block announced as changing has its share");
        // Instructions forgotten since the last count: their entries are out already.
        let forgotten = core::mem::take(&mut self.forgotten);
        // Only the forgotten instructions are marked yet: the retain reads just them.
        for &(_, i) in &forgotten {
            self.was_here[i] = stamp;
        }
        if !forgotten.is_empty() {
            old.retain(|e| self.was_here[e.2] != stamp);
        }
        // The new share goes into the buffer the last recount freed, sized like the old
        // share (the block is about as big as when last counted): a large block's list
        // is neither regrown step by step nor allocated afresh each time.
        let mut new = core::mem::take(&mut self.spare);
        new.clear();
        new.reserve(old.len() + forgotten.len());
        share_into(f, b, &mut new);
        if f.journaling() {
            // A traced pass keeps each register's counts as they were before the first
            // change since its last step.
            let named = old.iter().chain(&new).map(|e| e.0);
            for r in named.chain(forgotten.iter().map(|x| x.0)) {
                f.touch_reg(r);
            }
        }
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
                        .or_else(|| self.find_def(f, r, b)),
                },
                _ => None,
            };
            f.regs[r].def_anchor = anchor;
        }
        self.shares[b] = Some(new);
        self.spare = old;
        debug_assert!(
            f.insts.len() > 4000 || agrees(f),
            "the tally of block {b} drifted from a full count"
        );
    }

    /// Takes instruction `id` of block `b` out of the counts before it is removed, so a
    /// backward walk sees the values it used lose a use at once. Anchors are settled by
    /// the next [`Tally::recount`] of the block, which must follow. Costs the
    /// instruction's size: the block's share is trimmed at that recount.
    pub fn forget(&mut self, f: &mut Function, b: BlockId, id: InstId) {
        if self.shares.get(b).is_none() {
            return;
        }
        self.will_change(f, b);
        if f.journaling() {
            for_each_reg(&f.insts[id].clone(), |r, _| f.touch_reg(r));
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

    /// The definition of `r` in a block other than `skip`: from the block's share
    /// when one was taken, else from its instructions (unchanged since counted).
    fn find_def(&self, f: &Function, r: RegId, skip: BlockId) -> Option<InstId> {
        let mut found = None;
        for (b, share) in self.shares.iter() {
            if b == skip || found.is_some() {
                continue;
            }
            match share {
                Some(s) => found = s.iter().find(|e| e.1 && e.0 == r).map(|e| e.2),
                None => {
                    for &i in &f.blocks[b].insts {
                        for_each_reg(&f.insts[i], |x, def| {
                            if def && x == r && found.is_none() {
                                found = Some(i);
                            }
                        });
                    }
                }
            }
        }
        found
    }
}

/// True when the table equals a full recount (for debug assertions).
fn agrees(f: &Function) -> bool {
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

fn share_of(f: &Function, b: BlockId) -> Share {
    let mut out = Vec::new();
    share_into(f, b, &mut out);
    out
}

fn share_into(f: &Function, b: BlockId, out: &mut Share) {
    for &i in &f.blocks[b].insts {
        for_each_reg(&f.insts[i], |r, def| out.push((r, def, i)));
    }
}
