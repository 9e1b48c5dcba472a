//! The candidate min-heap: lowest register number first; ties go to the higher weight
//! (then to the earlier candidate). With block-frequency priority on, candidates in
//! deeper loops come before all others; next, candidates carrying two-address's hint
//! (a tied lane copy) come before those without.

use super::classify::Candidate;
use alloc::collections::BTreeSet;
use alloc::vec::Vec;
use core::cmp::{Ordering, Reverse};

#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    hot: u32,
    hint: bool,
    reg: u32,
    weight: u32,
    seq: u32,
    cand: Candidate,
}

impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // The greatest pops first: hotter, then hinted, then lower register, then
        // heavier, then earlier.
        (
            self.hot,
            self.hint,
            Reverse(self.reg),
            self.weight,
            Reverse(self.seq),
        )
            .cmp(&(o.hot, o.hint, Reverse(o.reg), o.weight, Reverse(o.seq)))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

#[derive(Clone, Debug, Default)]
pub struct CandidateHeap {
    /// Ordered by [`Entry`]'s `Ord` (every entry has its own `seq`, so the order is
    /// total): the last entry pops first, and the preview reads the top without
    /// disturbing the rest.
    heap: BTreeSet<Entry>,
    seq: u32,
}

impl CandidateHeap {
    pub fn push(&mut self, cand: Candidate, weight: u32, hot: u32, hint: bool) {
        self.seq += 1;
        self.heap.insert(Entry {
            hot,
            hint,
            reg: cand.dst.reg,
            weight,
            seq: self.seq,
            cand,
        });
    }

    /// The top entry: its candidate, weight, hotness and hint.
    pub fn pop(&mut self) -> Option<(Candidate, u32, u32, bool)> {
        self.heap
            .pop_last()
            .map(|e| (e.cand, e.weight, e.hot, e.hint))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The first few entries in pop order, as (register, weight), for the picture.
    pub fn preview(&self) -> Vec<(u32, u32)> {
        self.heap
            .iter()
            .rev()
            .take(12)
            .map(|e| (e.reg, e.weight))
            .collect()
    }
}
