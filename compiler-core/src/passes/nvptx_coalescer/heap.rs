//! The candidate min-heap: lowest register number first; ties go to the higher weight
//! (then to the earlier candidate). With block-frequency priority on, candidates in
//! deeper loops come before all others; next, candidates carrying two-address's hint
//! (a tied lane copy) come before those without; next, candidates whose registers
//! two-address put in one copy-equivalence class (`eq_classes.rs`).

use super::classify::Candidate;
use alloc::collections::BTreeSet;
use alloc::vec::Vec;
use core::cmp::{Ordering, Reverse};

#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    hot: u32,
    hint: bool,
    class: bool,
    reg: u32,
    weight: u32,
    seq: u32,
    cand: Candidate,
}

impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // The greatest pops first: hotter, then hinted, then in one copy class, then
        // lower register, then heavier, then earlier.
        (
            self.hot,
            self.hint,
            self.class,
            Reverse(self.reg),
            self.weight,
            Reverse(self.seq),
        )
            .cmp(&(
                o.hot,
                o.hint,
                o.class,
                Reverse(o.reg),
                o.weight,
                Reverse(o.seq),
            ))
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
        self.push_ranked(cand, weight, hot, hint, false);
    }

    /// [`push`](Self::push), with `class`: the candidate's registers share a
    /// copy-equivalence class (priority 2 instead of the record's default 1).
    pub fn push_ranked(&mut self, cand: Candidate, weight: u32, hot: u32, hint: bool, class: bool) {
        self.seq += 1;
        self.heap.insert(Entry {
            hot,
            hint,
            class,
            reg: cand.dst.reg,
            weight,
            seq: self.seq,
            cand,
        });
    }

    /// The top entry: its candidate, weight, hotness and hint.
    #[cfg(feature = "testkit")]
    pub fn pop(&mut self) -> Option<(Candidate, u32, u32, bool)> {
        self.pop_ranked()
            .map(|(c, w, hot, hint, _)| (c, w, hot, hint))
    }

    /// [`pop`](Self::pop), with the entry's copy-class flag.
    pub fn pop_ranked(&mut self) -> Option<(Candidate, u32, u32, bool, bool)> {
        self.heap
            .pop_last()
            .map(|e| (e.cand, e.weight, e.hot, e.hint, e.class))
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
