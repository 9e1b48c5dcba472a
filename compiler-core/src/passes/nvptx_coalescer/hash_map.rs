//! The spec's register → interval hash map (`lookup(hash_map, key)` before a merge,
//! `UpdateHashMap(hash_map, merged)` after one), and the tree's upkeep after a merge.
//!
//! A tree node belongs to an interval, not to the register its operands name: the key
//! is the interval's number (and a lane, [`super::tree_key`]), and registers find their
//! interval through `hash_map`. Each register starts with an interval numbered like
//! itself, so the tree built before any merge is keyed by register.
//!
//! A merge joins two intervals. The joined one keeps the number of the side that has
//! more segments in the tree (union by size), whichever register survives in the IR;
//! only the other side's segments are deleted and inserted again under that number,
//! with the segments the union itself changes (neighbours fused, a copy's end trimmed).
//! A segment moves only when its interval is the smaller one, and then lands in one at
//! least twice as large, so no segment moves more than log2(n) times over the pass:
//! on a chain of copies, the growing interval stays where it is and each merge files
//! the newcomer's few segments under it (before, the growing side was re-inserted whole
//! whenever it was the register being renamed: quadratic in the chain's length).
//!
//! Decisions never read an interval's number: an interference check asks for one key
//! (one unit's interval) and gets that unit's segments in start order, whatever the
//! number. The number shapes only the tree (where nodes sit, how often it rotates),
//! which the trace shows and `rb_rotations` counts. An untraced run that renames the
//! smaller register instead (`names.rs`) keeps the same numbers: the sizes compared
//! are the intervals', which are the same in both runs.

use super::interval_tree::{Color, Interval, Side, TreeEvent};
use super::{key_interval, Nvptx, Unit};
use crate::entity::EntityRef;
use crate::liveness::SlotIndex;
use crate::mir::VReg;
use crate::trace::Recorder;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// What a merge did to the tree: the interval the joined register is filed under, and
/// how many segments each side had there before.
pub(crate) struct Filed {
    pub interval: u32,
    pub kept: usize,
    pub moved: usize,
}

/// The bit of a hash-map entry that marks a register merged away (it left the IR).
/// `UpdateHashMap` rewrites only a merge's two registers: a register merged earlier
/// into what is now the smaller side keeps that side's old number, which a later merge
/// retires. That is harmless only as long as such a register is never looked up, which
/// [`Nvptx::interval_of`] asserts; the numbers themselves stay below this bit (they
/// are register numbers).
const RETIRED: u32 = 1 << 31;

/// A register merged away: its hash-map entry may be stale, so it has no interval.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Retired(pub VReg);

/// The interval `map` files `v`'s segments under, or [`Retired`] when a merge marked
/// `v`'s entry [`RETIRED`] (a register no longer in the IR).
fn try_lookup(map: &[u32], v: VReg) -> Result<u32, Retired> {
    let i = v.index();
    let e = map.get(i).copied().unwrap_or(i as u32);
    if e & RETIRED == 0 {
        Ok(e)
    } else {
        Err(Retired(v))
    }
}

/// [`try_lookup`] for a register the caller knows is still in the IR: a debug build
/// stops on a retired one (a stale entry would file segments under a wrong interval).
fn lookup(map: &[u32], v: VReg) -> u32 {
    let e = try_lookup(map, v);
    debug_assert!(
        e.is_ok(),
        "%{} was merged away: its hash-map entry may be stale",
        v.index()
    );
    e.unwrap_or_else(|_| map[v.index()] & !RETIRED)
}

/// `UpdateHashMap`'s entries: both registers of a merge map to `interval`; the one
/// that left the IR (not `to`) is marked [`RETIRED`].
fn update_entries(map: &mut Vec<u32>, merged: [VReg; 2], to: VReg, interval: u32) {
    debug_assert!(interval & RETIRED == 0);
    for v in merged {
        let i = v.index();
        let len = map.len() as u32;
        map.extend(len..=i as u32);
        map[i] = interval | if v == to { 0 } else { RETIRED };
    }
}

impl<R: Recorder> Nvptx<'_, '_, R> {
    /// The interval register `v`'s segments are filed under. `v` must still be in the
    /// IR: the entry of a register merged away may be stale ([`RETIRED`]).
    pub(crate) fn interval_of(&self, v: VReg) -> u32 {
        lookup(&self.hash_map, v)
    }

    /// `v`'s hash-map entry as stored, the [`RETIRED`] bit included.
    fn hash_entry(&self, v: VReg) -> u32 {
        let i = v.index();
        self.hash_map.get(i).copied().unwrap_or(i as u32)
    }

    /// Segments in the tree under `interval` (all its lanes).
    fn interval_len(&self, interval: u32) -> usize {
        let filed = self.in_tree.get(interval as usize);
        filed.map_or(0, |keys| keys.iter().map(|(_, v)| v.len()).sum())
    }

    /// Files `segs` under tree key `key` (in place of what was filed there).
    pub(crate) fn file(&mut self, key: u32, segs: Vec<Interval>) {
        let i = key_interval(key) as usize;
        if self.in_tree.len() <= i {
            self.in_tree.resize_with(i + 1, Vec::new);
        }
        let keys = &mut self.in_tree[i];
        match keys.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(at) => keys[at].1 = segs,
            Err(at) => keys.insert(at, (key, segs)),
        }
    }

    /// `UpdateHashMap`: both registers of a merge now map to `interval`, which the
    /// register left in the IR (`to`) holds; the other one is marked [`RETIRED`].
    fn update_hash_map(&mut self, a: VReg, b: VReg, to: VReg, interval: u32) {
        update_entries(&mut self.hash_map, [a, b], to, interval);
        let k = interval as usize;
        let len = self.holder.len() as u32;
        self.holder.extend(len..=k as u32);
        self.holder[k] = to.index() as u32;
    }

    /// The tree after a merge of `gone` into `keep` (the joined range now stored at
    /// `to`), one step per event. The joined interval keeps the number of the side with
    /// more segments (ties: `keep`'s); the other side's segments are deleted, and the
    /// joined range's segments that the tree does not hold yet are inserted under it.
    pub(crate) fn update_tree(&mut self, keep: Unit, gone: Unit, to: VReg) -> Filed {
        let (ik, ig) = (self.interval_of(keep.0), self.interval_of(gone.0));
        let (nk, ng) = (self.interval_len(ik), self.interval_len(ig));
        let by_size = !self.opts.no_union_by_size && ng > nk;
        let (big, small) = if by_size { (ig, ik) } else { (ik, ig) };
        let filed = Filed {
            interval: big,
            kept: if by_size { ng } else { nk },
            moved: if by_size { nk } else { ng },
        };
        let mut old: Vec<Interval> = Vec::new();
        for i in [big, small] {
            if let Some(keys) = self.in_tree.get_mut(i as usize) {
                old.extend(keys.drain(..).flat_map(|(_, segs)| segs));
            }
        }
        self.update_hash_map(keep.0, gone.0, to, big);
        let n = self
            .cx.ed
            .f
            .vreg_class(keep.0)
            .map_or(0, |c| c.lanes() as usize);
        let lanes = if n > 1 { n } else { 0 };
        let mut new: Vec<Interval> = Vec::new();
        let units = core::iter::once((to, None)).chain((0..lanes as u8).map(|l| (to, Some(l))));
        for u in units {
            let segs = self.segments(u);
            new.extend(segs.iter().copied());
            if !segs.is_empty() {
                let key = self.unit_key(u);
                self.file(key, segs);
            }
        }
        let order = |iv: &Interval| crate::sort::key4(iv.key, iv.start, iv.end, 0);
        crate::sort::sort_by_key(&mut old, order);
        crate::sort::sort_by_key(&mut new, order);
        let (gone_ivs, added) = sorted_difference(&old, &new);
        for iv in &gone_ivs {
            self.tree_remove(iv);
        }
        for iv in added {
            self.tree_insert(iv);
        }
        filed
    }

    /// A stored segment's owner for narration: `%r` or `%r.subL`, saying so when the
    /// interval is numbered after another register or was just merged away.
    fn key_text(&self, key: u32) -> String {
        let (interval, lane) = (super::key_interval(key), (key & 63).checked_sub(1));
        let reg = self.holder.get(interval as usize).copied().unwrap_or(interval);
        let unit = match lane {
            Some(l) => format!("%{reg}.sub{l}"),
            None => format!("%{reg}"),
        };
        // The holder may have been merged away since: its entry read as stored.
        let current = self.hash_entry(VReg::new(reg as usize)) & !RETIRED == interval;
        match (current, reg == interval) {
            (true, true) => unit,
            (true, false) => format!("{unit} (filed under interval %{interval}, the key the larger side of a merge brought: the hash map sends %{reg} there)"),
            (false, _) => format!("{unit} (under interval %{interval}, which this merge retired)"),
        }
    }

    /// A step kind and narration for one tree event.
    pub(crate) fn event_text(&self, e: &TreeEvent) -> (&'static str, String) {
        let at = SlotIndex::from_raw;
        match e {
            TreeEvent::Insert { node, interval: iv } => ("tree_insert", format!("Tree insert: the live segment [{},{}) of {} becomes node {}, a red leaf where a search by (interval, start) ends.", at(iv.start), at(iv.end), self.key_text(iv.key), node.0)),
            TreeEvent::Remove { node, interval: iv } => ("tree_remove", format!("Tree delete: node {} (the segment [{},{}) of {}) leaves the tree.", node.0, at(iv.start), at(iv.end), self.key_text(iv.key))),
            TreeEvent::Rotate { pivot, side } => ("tree_rotate", format!("Tree rotation: node {} moves down to the {} and its child rises, keeping every root-to-leaf path equally black.", pivot.0, if *side == Side::Left { "left" } else { "right" })),
            TreeEvent::Recolor { node, color } => ("tree_recolor", format!("Tree recolouring: node {} turns {}.", node.0, if *color == Color::Red { "red" } else { "black" })),
        }
    }
}

/// In two lists sorted alike: the entries of `old` not in `new`, and those of `new` not
/// in `old`.
fn sorted_difference(old: &[Interval], new: &[Interval]) -> (Vec<Interval>, Vec<Interval>) {
    let key = |iv: &Interval| (iv.key, iv.start, iv.end);
    let (mut i, mut j) = (0, 0);
    let (mut out, mut inn) = (Vec::new(), Vec::new());
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if key(a) == key(b) => {
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if key(a) < key(b) => {
                out.push(*a);
                i += 1;
            }
            (Some(a), None) => {
                out.push(*a);
                i += 1;
            }
            (_, Some(b)) => {
                inn.push(*b);
                j += 1;
            }
            (None, None) => break,
        }
    }
    (out, inn)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A merge of %1 into %2 retires %1's entry: looking %1 up afterwards (a stale
    /// lookup, made on purpose) is refused, while %2 and an untouched %3 still find
    /// their intervals. Without the mark, %1 would answer interval 2 as if it were live.
    #[test]
    fn a_register_merged_away_is_refused_by_the_checked_lookup() {
        let mut map: Vec<u32> = (0..4).collect();
        let r = |n: usize| VReg::new(n);
        assert_eq!(try_lookup(&map, r(1)), Ok(1));
        update_entries(&mut map, [r(2), r(1)], r(2), 2);
        assert_eq!(try_lookup(&map, r(1)), Err(Retired(r(1))));
        assert_eq!(try_lookup(&map, r(2)), Ok(2));
        assert_eq!(try_lookup(&map, r(3)), Ok(3));
        // A register past the map's end is its own interval (never merged).
        assert_eq!(try_lookup(&map, r(9)), Ok(9));
        // A later merge past the end grows the map and retires the one that left.
        update_entries(&mut map, [r(2), r(6)], r(6), 2);
        assert_eq!(
            (try_lookup(&map, r(2)), try_lookup(&map, r(6))),
            (Err(Retired(r(2))), Ok(2))
        );
    }

    /// The unchecked lookup the pass makes asserts the same in a debug build: a stale
    /// lookup stops the run instead of filing segments under a wrong interval.
    #[cfg(debug_assertions)]
    #[test]
    #[should_panic(expected = "%1 was merged away")]
    fn a_stale_lookup_fires_the_debug_assertion() {
        let mut map: Vec<u32> = (0..4).collect();
        update_entries(&mut map, [VReg::new(2), VReg::new(1)], VReg::new(2), 2);
        assert_eq!(lookup(&map, VReg::new(2)), 2);
        lookup(&map, VReg::new(1));
    }
}
