//! Stable sorting by an integer key, with one copy of the sort code in the wasm.
//!
//! `slice::sort_by_key` is generic: every call site with its own element type or key
//! closure gets its own instance of the standard library's sort, a few KB of wasm each.
//! With some twenty call sites that was 56 KB of the engine's wasm. Every call site in
//! this crate orders by integers, so in wasm they share one sort of `(key, position)`
//! pairs: the key widened to `u128` (up to four `u32`s packed by [`key4`]) and the
//! element's position, which keeps equal keys in their old order. Putting the elements
//! into that order is the only generic part, a short loop of swaps.
//!
//! Native builds call `sort_by_key` of the standard library instead (faster on the large
//! inputs of the benchmarks); both give the same order, and the tests below run the
//! shared sort on every target against it.

/// Up to four `u32`s packed into one key, `a` the most significant.
pub const fn key4(a: u32, b: u32, c: u32, d: u32) -> u128 {
    ((a as u128) << 96) | ((b as u128) << 64) | ((c as u128) << 32) | d as u128
}

/// Sorts `v` by `key`, keeping elements with equal keys in their order (as
/// `v.sort_by_key(key)` does).
pub fn sort_by_key<T>(v: &mut [T], key: impl FnMut(&T) -> u128) {
    #[cfg(target_family = "wasm")]
    shared_sort_by_key(v, key);
    #[cfg(not(target_family = "wasm"))]
    v.sort_by_key(key);
}

/// Sorts integers (any order of equal integers is the same order).
pub fn sort_ints<T: Copy + Into<u128>>(v: &mut [T]) {
    sort_by_key(v, |&x| x.into());
}

/// The wasm implementation of [`sort_by_key`]; public for its tests.
pub fn shared_sort_by_key<T>(v: &mut [T], mut key: impl FnMut(&T) -> u128) {
    if v.len() < 2 {
        return;
    }
    let mut pairs: alloc::vec::Vec<(u128, u32)> = v
        .iter()
        .enumerate()
        .map(|(i, x)| (key(x), i as u32))
        .collect();
    order(&mut pairs);
    let mut from: alloc::vec::Vec<u32> = pairs.into_iter().map(|p| p.1).collect();
    permute(v, &mut from);
}

/// The one instance of the sort: pairs are distinct (positions differ), so an unstable
/// sort gives the one stable order.
#[inline(never)]
fn order(pairs: &mut [(u128, u32)]) {
    pairs.sort_unstable();
}

/// Rearranges `v` so that position `i` holds the element that was at `from[i]`, cycle by
/// cycle: each swap puts one element in its place. `from` is used up as the visited mark.
fn permute<T>(v: &mut [T], from: &mut [u32]) {
    const DONE: u32 = u32::MAX;
    for start in 0..from.len() {
        let mut i = start;
        while from[i] != DONE {
            let src = from[i] as usize;
            from[i] = DONE;
            if src == start {
                break;
            }
            v.swap(i, src);
            i = src;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// A small deterministic generator (no dependency needed for this).
    fn lcg(seed: &mut u64) -> u32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 33) as u32
    }

    #[test]
    fn the_shared_sort_orders_as_std_stable_sort_does() {
        let mut seed = 7;
        for len in [0usize, 1, 2, 3, 5, 17, 64, 100, 1000] {
            for range in [1u32, 3, 50, u32::MAX] {
                let v: Vec<(u32, u32)> = (0..len as u32)
                    .map(|i| (lcg(&mut seed) % range.max(1), i))
                    .collect();
                let mut ours = v.clone();
                shared_sort_by_key(&mut ours, |p| p.0 as u128);
                let mut std = v.clone();
                std.sort_by_key(|p| p.0);
                assert_eq!(ours, std, "len {len}, key range {range}");
            }
        }
    }

    #[test]
    fn packed_keys_order_as_tuples() {
        let mut seed = 11;
        let v: Vec<(u32, u32, u32, u32)> = (0..500)
            .map(|_| {
                (
                    lcg(&mut seed) % 4,
                    lcg(&mut seed) % 3,
                    lcg(&mut seed),
                    lcg(&mut seed) % 2,
                )
            })
            .collect();
        let mut ours = v.clone();
        shared_sort_by_key(&mut ours, |t| key4(t.0, t.1, t.2, t.3));
        let mut std = v;
        std.sort();
        assert_eq!(ours, std);
    }
}
