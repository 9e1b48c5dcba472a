//! Remembered interference verdicts (untraced runs only).
//!
//! When a round merges anything, cicc moves every deferred candidate back and checks
//! it again. Most of those checks read nothing a merge has changed since: on a function
//! with thousands of loops and a handful of late merges, the retry round repeats
//! thousands of identical checks, and the pass does twice the work of an input a tenth
//! its size that needs no retry.
//!
//! An interference check reads the live ranges, def/use lists, operands and
//! `coalesced` flags of a known set of registers: the copy's two sides and every
//! register the value check walks through (`origin`). A merge changes those things only
//! for its own two registers (it renames one into the other, joins their ranges,
//! erases copies between them and marks its copy coalesced). So a verdict stays true
//! while no register it read has taken part in a merge since; the retry then counts
//! the rejection and defers the candidate again without redoing the check.
//!
//! A traced run never skips: every check is a recorded step.

use super::Nvptx;
use crate::entity::SecondaryMap;
use crate::mir::{Inst, VReg};
use crate::trace::Recorder;
use alloc::vec::Vec;

/// What a rejected candidate's check read, and when.
#[derive(Clone, Debug, Default)]
pub(crate) struct Verdict {
    /// Merges done when the check ran.
    pub at: u32,
    /// Every register the check read.
    pub read: Vec<VReg>,
}

/// The merge log the verdicts are checked against.
#[derive(Default)]
pub(crate) struct Memo {
    /// Merges so far.
    merges: u32,
    /// For each register, the number of the last merge it took part in (0: none).
    last_merge: SecondaryMap<VReg, u32>,
    /// For each rejected copy, its latest verdict.
    verdicts: SecondaryMap<Inst, Option<Verdict>>,
}

impl Memo {
    pub(crate) fn merged(&mut self, a: VReg, b: VReg) {
        self.merges += 1;
        self.last_merge[a] = self.merges;
        self.last_merge[b] = self.merges;
    }

    fn remember(&mut self, copy: Inst, mut read: Vec<VReg>) {
        crate::sort::sort_by_key(&mut read, |v| u128::from(v.as_u32()));
        read.dedup();
        self.verdicts[copy] = Some(Verdict {
            at: self.merges,
            read,
        });
    }

    fn still_holds(&self, copy: Inst) -> bool {
        self.verdicts[copy]
            .as_ref()
            .is_some_and(|v| v.read.iter().all(|&r| self.last_merge[r] <= v.at))
    }
}

impl<R: Recorder> Nvptx<'_, '_, R> {
    /// Keeps an interference verdict for the retry round (worklist phase, untraced).
    pub(crate) fn remember_rejection(&mut self, copy: Inst, read: Vec<VReg>) {
        if !R::ENABLED && self.tree_built {
            self.memo.remember(copy, read);
        }
    }

    /// Whether `copy` was rejected for interference and nothing that check read has
    /// changed since (always false when tracing).
    pub(crate) fn rejection_still_holds(&self, copy: Inst) -> bool {
        !R::ENABLED && self.memo.still_holds(copy)
    }
}
