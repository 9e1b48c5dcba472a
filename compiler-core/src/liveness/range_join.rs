//! Joining one live range into another in place (LLVM's `LiveRange::join`): the
//! smaller range's segments go into the bigger one's vector, so a register that grows
//! across a whole function through many small joins costs each join about what it adds,
//! not what the register already holds.
//!
//! ```text
//!  big    [a)[b)[c)      [d)[e)[f)
//!  small           [x)[y)          [z)
//!                  └─ p0: big[..p0] is kept as it is; from p0 on both are merged
//!                     and folded again, until small is used up and a segment of
//!                     big comes through unchanged: the rest is copied as it is.
//! ```
//!
//! The result is exactly [`LiveRange::union`]'s (debug builds compare the two after
//! every join). That rests on the bigger range being *canonical*
//! ([`LiveRange::is_canonical`]), as every range the crate builds is (LiveIntervals,
//! `union` and `from_segments` when no two values share a def): folding a canonical
//! prefix gives it back unchanged, so only the part from the first inserted segment on
//! is folded again. Value numbers stay as they are unless a new value's def comes
//! before an old one's or an old value loses its last segment; then one linear pass
//! renumbers (values are numbered in def order).

use super::intervals::{fold_segment, Folded, LiveRange, Segment, Segments};
use super::ValNo;
use smallvec::{smallvec, SmallVec};

/// Per-join bookkeeping, indexed by value number: a join usually brings one or two
/// values, so these stay on the stack instead of costing an allocation each.
type PerValue<T> = SmallVec<[T; 8]>;

impl LiveRange {
    /// Segments non-empty, ordered and disjoint, touching segments of one value merged,
    /// every value used by some segment, values strictly in def order: what
    /// [`LiveRange::from_segments`] builds when no two values share a def. Linear.
    pub fn is_canonical(&self) -> bool {
        let mut used: PerValue<bool> = smallvec![false; self.valnos.len()];
        let mut prev: Option<&Segment> = None;
        for s in &self.segments {
            let Some(u) = used.get_mut(s.valno as usize) else {
                return false;
            };
            *u = true;
            if s.start >= s.end
                || prev.is_some_and(|p| p.end > s.start || p.end == s.start && p.valno == s.valno)
            {
                return false;
            }
            prev = Some(s);
        }
        used.iter().all(|&u| u) && self.valnos.windows(2).all(|w| w[0].def < w[1].def)
    }

    /// `*self = self.union(&other)`, in place: the smaller range goes into the bigger
    /// one (whose vectors are kept), in time proportional to the smaller range plus a
    /// copy of the bigger one's segments after the first inserted one. Falls back to
    /// [`LiveRange::union`] when the smaller range is not canonical or one of its values
    /// shares a def with a value of the other of another kind (PHI or not).
    pub fn join(&mut self, mut other: LiveRange) {
        #[cfg(debug_assertions)]
        let expected = self.union(&other);
        if !self.join_small_into_big(&mut other) {
            *self = self.union(&other);
        }
        #[cfg(debug_assertions)]
        assert_eq!(*self, expected, "LiveRange::join differs from union");
    }

    /// The fast path of [`LiveRange::join`]; false (nothing changed) when it does not
    /// apply. `self` is assumed canonical when it is the bigger side, `other` when it is.
    fn join_small_into_big(&mut self, other: &mut LiveRange) -> bool {
        // On equal (start, end) the union puts `self`'s segment first.
        let small_first = other.segments.len() > self.segments.len();
        let (big, small) = if small_first {
            (&*other, &*self)
        } else {
            (&*self, &*other)
        };
        if !small.is_canonical() {
            return false;
        }
        // The small side's values in the big side's numbering; values the big side
        // lacks get `nb + k` (k: their number in the small side) until renumbered.
        let nb = big.valnos.len() as ValNo;
        let mut map: PerValue<ValNo> = SmallVec::with_capacity(small.valnos.len());
        for (k, v) in small.valnos.iter().enumerate() {
            let p = big.valnos.partition_point(|b| b.def < v.def);
            match big.valnos.get(p) {
                Some(b) if b.def == v.def && b.is_phi_def == v.is_phi_def => map.push(p as ValNo),
                Some(b) if b.def == v.def => return false,
                _ => map.push(nb + k as ValNo),
            }
        }
        if small_first {
            core::mem::swap(self, other);
        }
        let small = &*other;
        let Some(first) = small.segments.first() else {
            return true;
        };
        let key = |s: &Segment| (s.start, s.end);
        let goes_before = |s: &Segment, b: &Segment| {
            if small_first {
                key(s) <= key(b)
            } else {
                key(s) < key(b)
            }
        };
        // Fold from the first inserted segment on; `self.segments[..p0]` stays.
        let p0 = self.segments.partition_point(|b| !goes_before(first, b));
        let tail: Segments = self.segments.drain(p0..).collect();
        let out = &mut self.segments;
        let mut new_used: PerValue<bool> = smallvec![false; small.valnos.len()];
        // Values of the big side one of whose segments was swallowed by another value.
        let mut swallowed: PerValue<ValNo> = SmallVec::new();
        let (mut i, mut j) = (0, 0);
        let mut rest = tail.len();
        loop {
            if j < small.segments.len()
                && (i == tail.len() || goes_before(&small.segments[j], &tail[i]))
            {
                let s = small.segments[j];
                j += 1;
                let s = Segment {
                    valno: map[s.valno as usize],
                    ..s
                };
                let folded = fold_segment(out, s);
                if s.valno >= nb && matches!(folded, Folded::Pushed | Folded::Clipped) {
                    new_used[(s.valno - nb) as usize] = true;
                }
            } else if i < tail.len() {
                let s = tail[i];
                i += 1;
                let folded = fold_segment(out, s);
                if folded == Folded::Dropped && out.last().is_some_and(|l| l.valno != s.valno) {
                    swallowed.push(s.valno);
                }
                if j == small.segments.len() && folded == Folded::Pushed {
                    // In step again: the rest of the big side is canonical after it.
                    rest = i;
                    break;
                }
            } else {
                break;
            }
        }
        let window = p0..out.len();
        out.extend_from_slice(&tail[rest..]);
        let removed = gone_values(out, window.clone(), swallowed);
        let added: PerValue<usize> = (0..small.valnos.len()).filter(|&k| new_used[k]).collect();
        let appended = removed.is_empty()
            && added.first().is_none_or(|&k| {
                self.valnos
                    .last()
                    .is_none_or(|l| l.def < small.valnos[k].def)
            });
        let mut renumber: PerValue<ValNo> = smallvec![0; small.valnos.len()];
        if appended {
            // New values come after every old one: only the folded part holds them.
            for &k in &added {
                renumber[k] = self.valnos.len() as ValNo;
                self.valnos.push(small.valnos[k]);
            }
            for s in &mut out[window] {
                if s.valno >= nb {
                    s.valno = renumber[(s.valno - nb) as usize];
                }
            }
            return true;
        }
        // Otherwise merge both value lists in def order (defs are distinct) and
        // renumber every segment.
        let old = core::mem::take(&mut self.valnos);
        let mut keep: PerValue<ValNo> = smallvec![0; old.len()];
        let (mut a, mut b) = (0, 0);
        while a < old.len() || b < added.len() {
            let take_old =
                b == added.len() || a < old.len() && old[a].def < small.valnos[added[b]].def;
            if take_old {
                if removed.binary_search(&(a as ValNo)).is_err() {
                    keep[a] = self.valnos.len() as ValNo;
                    self.valnos.push(old[a]);
                }
                a += 1;
            } else {
                renumber[added[b]] = self.valnos.len() as ValNo;
                self.valnos.push(small.valnos[added[b]]);
                b += 1;
            }
        }
        for s in out.iter_mut() {
            s.valno = if s.valno >= nb {
                renumber[(s.valno - nb) as usize]
            } else {
                keep[s.valno as usize]
            };
        }
        true
    }
}

/// Of the `swallowed` values (one of whose segments another value swallowed while
/// folding), those no segment of `out` holds any more, sorted: look in the folded
/// `window` first, everywhere only if needed (rare: a join over a copy whose value the
/// other register covers entirely).
fn gone_values(
    out: &[Segment],
    window: core::ops::Range<usize>,
    mut swallowed: PerValue<ValNo>,
) -> PerValue<ValNo> {
    crate::sort::sort_ints(&mut swallowed);
    swallowed.dedup();
    let mut alive: PerValue<bool> = smallvec![false; swallowed.len()];
    let mark = |segs: &[Segment], alive: &mut [bool]| {
        for s in segs {
            if let Ok(k) = swallowed.binary_search(&s.valno) {
                alive[k] = true;
            }
        }
    };
    mark(&out[window], &mut alive);
    if alive.contains(&false) {
        mark(out, &mut alive);
    }
    swallowed
        .iter()
        .zip(&alive)
        .filter(|(_, &a)| !a)
        .map(|(&v, _)| v)
        .collect()
}
