//! Where a trace keeps its steps: [`StepList`], read through [`Steps`] views.
//!
//! ```text
//!  recorder ──push(Step)──▶ StepList ──get(k) / with(k, f) / iter()──▶ Step (owned, or lent to f)
//!                              └─range(a..b)──▶ Steps<'_> (the same reads over a part)
//! ```
//!
//! Readers never hold a reference into the storage: they get a step by value
//! ([`StepList::get`], [`Steps::iter`]), lend one to a closure ([`Steps::with`]) or
//! read only its lists ([`Steps::with_lists`]: replay reads a step's edits, nothing
//! else). The steps are kept as bytes (issue 31: a trace holds every step, and a
//! step as a struct with its boxes cost 150–380 bytes): one record per step in one
//! byte array, where each starts in a second array ([`super::record`] says what a
//! record holds), decoded on reading.

use super::record::{self, Tables};
use super::{Step, StepLists};
use crate::packing::{Bytes, Reader};
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::any::Any;
use core::ops::{Bound, RangeBounds};

/// Every recorded step of a pass, in order, as bytes.
#[derive(Clone, Default)]
pub struct StepList {
    /// The steps' records, one after another.
    bytes: Vec<u8>,
    /// Where step `k`'s record starts in `bytes`.
    starts: Vec<u32>,
    pub(super) tables: Tables,
}

/// Grows `v` by an eighth rather than double when it is full: a trace is the biggest
/// thing a traced run holds, and its spare room is part of the run's peak (issue 31
/// allows a traced peak of 100 bytes a step over the untraced one; a log holding 67
/// bytes a step and grown by half peaked at 101). A growth that cannot stay in place
/// copies: each byte about nine times over a run, milliseconds for 100,000 steps.
pub(super) fn room_for<T>(v: &mut Vec<T>, more: usize) {
    if v.capacity() - v.len() < more {
        v.reserve_exact(v.len() / 8 + more.max(16));
    }
}

/// Steps `start..end` of a [`StepList`]: numbered from 0 again (`get(0)` is the list's
/// step `start`).
#[derive(Clone, Copy)]
pub struct Steps<'a> {
    list: &'a StepList,
    start: usize,
    end: usize,
}

impl StepList {
    pub fn new() -> Self {
        StepList::default()
    }
    /// Appends `s`.
    pub fn push(&mut self, mut s: Step) {
        s.settle();
        #[cfg(debug_assertions)]
        let pushed = s.clone();
        let start = u32::try_from(self.bytes.len()).expect("a trace under 4 GB");
        room_for(&mut self.starts, 1);
        self.starts.push(start);
        room_for(&mut self.bytes, 64);
        let mut w = Bytes(core::mem::take(&mut self.bytes));
        record::put(&mut w, s, &mut self.tables);
        self.bytes = w.0;
        #[cfg(debug_assertions)]
        {
            let back = self.step(self.len() - 1);
            debug_assert!(
                record::same(&back, &pushed),
                "{pushed:?} read back as {back:?}"
            );
        }
    }
    /// Appends every step of `other`, in order.
    pub fn append(&mut self, other: StepList) {
        if self.is_empty() {
            *self = other;
            return;
        }
        for s in &other {
            self.push(s);
        }
    }
    /// Gives back the spare room.
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.starts.shrink_to_fit();
        self.tables.shrink_to_fit();
    }
    /// What the log holds, part by part, each named (the arena of records, their
    /// starts, the tables: [`super::record`]): dropping a part gives back what it
    /// holds, which is how the bench weighs them.
    pub fn into_parts(self) -> Vec<(&'static str, Box<dyn Any>)> {
        let mut parts: Vec<(&'static str, Box<dyn Any>)> = alloc::vec![
            ("arena", Box::new(self.bytes)),
            ("starts", Box::new(self.starts))
        ];
        parts.extend(self.tables.into_parts());
        parts
    }
    /// The record of step `k`.
    fn record(&self, k: usize) -> Reader<'_> {
        let a = self.starts[k] as usize;
        let b = self
            .starts
            .get(k + 1)
            .map_or(self.bytes.len(), |&b| b as usize);
        Reader::new(&self.bytes[a..b])
    }
    /// All the steps.
    pub fn all(&self) -> Steps<'_> {
        Steps {
            list: self,
            start: 0,
            end: self.starts.len(),
        }
    }
    pub fn len(&self) -> usize {
        self.starts.len()
    }
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }
    /// Step `k`, if there is one.
    pub fn get(&self, k: usize) -> Option<Step> {
        self.all().get(k)
    }
    /// Step `k` (panics past the end, as indexing does).
    pub fn step(&self, k: usize) -> Step {
        self.all().step(k)
    }
    /// `f` of step `k` (panics past the end).
    pub fn with<R>(&self, k: usize, f: impl FnOnce(&Step) -> R) -> R {
        f(&record::get(&mut self.record(k), &self.tables))
    }
    /// `f` of step `k`'s lists (its focus and edits), without building the rest of
    /// the step (panics past the end).
    pub fn with_lists<R>(&self, k: usize, f: impl FnOnce(&StepLists) -> R) -> R {
        record::with_lists(&mut self.record(k), &self.tables, f)
    }
    pub fn last(&self) -> Option<Step> {
        self.all().last()
    }
    pub fn iter(&self) -> StepIter<'_> {
        self.all().iter()
    }
    /// Steps `r` as a view.
    pub fn range(&self, r: impl RangeBounds<usize>) -> Steps<'_> {
        self.all().range(r)
    }
}

impl<'a> Steps<'a> {
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
    /// Step `k` of the view, if there is one.
    pub fn get(&self, k: usize) -> Option<Step> {
        let list = self.list;
        (k < self.len()).then(|| record::get(&mut list.record(self.start + k), &list.tables))
    }
    /// Step `k` of the view (panics past the end).
    pub fn step(&self, k: usize) -> Step {
        self.get(k)
            .unwrap_or_else(|| panic!("step {k} of {}", self.len()))
    }
    /// `f` of step `k` of the view (panics past the end).
    pub fn with<R>(&self, k: usize, f: impl FnOnce(&Step) -> R) -> R {
        assert!(k < self.len(), "step {k} of {}", self.len());
        self.list.with(self.start + k, f)
    }
    /// `f` of step `k`'s lists of the view (see [`StepList::with_lists`]).
    pub fn with_lists<R>(&self, k: usize, f: impl FnOnce(&StepLists) -> R) -> R {
        assert!(k < self.len(), "step {k} of {}", self.len());
        self.list.with_lists(self.start + k, f)
    }
    pub fn last(&self) -> Option<Step> {
        self.len().checked_sub(1).and_then(|k| self.get(k))
    }
    pub fn iter(&self) -> StepIter<'a> {
        StepIter {
            view: *self,
            next: 0,
            end: self.len(),
        }
    }
    /// Steps `r` of this view, as a view (panics when `r` reaches past it).
    pub fn range(&self, r: impl RangeBounds<usize>) -> Steps<'a> {
        let a = match r.start_bound() {
            Bound::Included(&a) => a,
            Bound::Excluded(&a) => a + 1,
            Bound::Unbounded => 0,
        };
        let b = match r.end_bound() {
            Bound::Included(&b) => b + 1,
            Bound::Excluded(&b) => b,
            Bound::Unbounded => self.len(),
        };
        assert!(
            a <= b && b <= self.len(),
            "steps {a}..{b} of {}",
            self.len()
        );
        Steps {
            list: self.list,
            start: self.start + a,
            end: self.start + b,
        }
    }
    /// The steps as a vector (tests, and readers that sort or keep them).
    pub fn to_vec(&self) -> Vec<Step> {
        self.iter().collect()
    }
}

/// The steps of a view in order, each by value.
#[derive(Clone)]
pub struct StepIter<'a> {
    view: Steps<'a>,
    next: usize,
    end: usize,
}

impl Iterator for StepIter<'_> {
    type Item = Step;
    fn next(&mut self) -> Option<Step> {
        if self.next == self.end {
            return None;
        }
        self.next += 1;
        self.view.get(self.next - 1)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end - self.next;
        (n, Some(n))
    }
    fn nth(&mut self, n: usize) -> Option<Step> {
        self.next = self.next.saturating_add(n).min(self.end);
        self.next()
    }
}

impl DoubleEndedIterator for StepIter<'_> {
    fn next_back(&mut self) -> Option<Step> {
        if self.next == self.end {
            return None;
        }
        self.end -= 1;
        self.view.get(self.end)
    }
}

impl ExactSizeIterator for StepIter<'_> {}

impl<'a> IntoIterator for &'a StepList {
    type Item = Step;
    type IntoIter = StepIter<'a>;
    fn into_iter(self) -> StepIter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for Steps<'a> {
    type Item = Step;
    type IntoIter = StepIter<'a>;
    fn into_iter(self) -> StepIter<'a> {
        self.iter()
    }
}

impl From<Vec<Step>> for StepList {
    fn from(v: Vec<Step>) -> Self {
        v.into_iter().collect()
    }
}

impl FromIterator<Step> for StepList {
    fn from_iter<I: IntoIterator<Item = Step>>(it: I) -> Self {
        let mut list = StepList::new();
        for s in it {
            list.push(s);
        }
        list
    }
}

impl Extend<Step> for StepList {
    fn extend<I: IntoIterator<Item = Step>>(&mut self, it: I) {
        for s in it {
            self.push(s);
        }
    }
}

impl core::fmt::Debug for StepList {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.all().fmt(f)
    }
}

impl core::fmt::Debug for Steps<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl serde::Serialize for StepList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.all().serialize(s)
    }
}

impl serde::Serialize for Steps<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'a> From<&'a StepList> for Steps<'a> {
    fn from(list: &'a StepList) -> Self {
        list.all()
    }
}
