//! Copy-equivalence classes: what two-address learns about copies and hands to the
//! coalescers (spec `two-address-cicc.txt`, "Copy-Equivalence Classes").
//!
//! ```text
//!  two-address ── processCopy, processTiedPairs, REG_SEQUENCE lanes: record(src, dst)
//!              └─ collectRegCopies(src): the single-use COPY chain behind src ──▶ record_chain
//!  pipeline    ── Handover (per function) ──▶ register-coalescer: rename(gone, keep) per join
//!                                         ──▶ nvptx-coalescer: same_class(dst, src)
//! ```
//!
//! `src_eq` / `dst_eq` are SrcEqClassMap / DstEqClassMap: a register → where its value
//! was copied to / where it came from; along a chain A → B → C the maps link A straight
//! to C (transitivity, as collectRegCopies builds it). Membership is a union of every
//! recorded pair, so "same class" is transitive too. Deterministic: ordered maps, and
//! the lower register number leads a class.

use crate::mir::VReg;
use alloc::collections::BTreeMap;

/// SrcEqClassMap / DstEqClassMap and the classes they make.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CopyClasses {
    /// SrcEqClassMap: a register → the register its value was (last) copied to.
    pub src_eq: BTreeMap<VReg, VReg>,
    /// DstEqClassMap: a register → the register its value was copied from.
    pub dst_eq: BTreeMap<VReg, VReg>,
    /// Union-find parents (a class's leader has none).
    parent: BTreeMap<VReg, VReg>,
}

impl CopyClasses {
    /// `src` was copied into `dst`.
    pub fn record(&mut self, src: VReg, dst: VReg) {
        if src != dst {
            self.src_eq.insert(src, dst);
            self.dst_eq.insert(dst, src);
            self.union(src, dst);
        }
    }

    /// A chain from collectRegCopies, nearest first: `chain[k+1]` was copied into
    /// `chain[k]`. Every register of it maps straight to `chain[0]` (SrcEqClassMap) and
    /// `chain[0]` to the chain's first source (DstEqClassMap). Returns how many
    /// registers joined `chain[0]`'s class that were not in it before.
    pub fn record_chain(&mut self, chain: &[crate::mir::VReg]) -> usize {
        let (Some(&end), Some(&first)) = (chain.first(), chain.last()) else {
            return 0;
        };
        let mut joined = 0;
        for &v in &chain[1..] {
            if v == end {
                continue;
            }
            if !self.same_class(v, end) {
                joined += 1;
            }
            self.src_eq.insert(v, end);
            self.union(v, end);
        }
        if first != end {
            self.dst_eq.insert(end, first);
        }
        joined
    }

    /// The leader of `v`'s class (`v` itself when it is in none).
    pub fn leader(&self, mut v: VReg) -> VReg {
        while let Some(&p) = self.parent.get(&v) {
            v = p;
        }
        v
    }

    /// Whether two-address put `a` and `b` in one copy-equivalence class.
    pub fn same_class(&self, a: VReg, b: VReg) -> bool {
        a != b && self.leader(a) == self.leader(b)
    }

    /// A coalescer joined `gone` into `keep`: `keep` now holds both values, so it
    /// belongs to both classes, and the maps name `keep` where they named `gone`.
    pub fn rename(&mut self, gone: VReg, keep: VReg) {
        if gone == keep {
            return;
        }
        for m in [&mut self.src_eq, &mut self.dst_eq] {
            if let Some(v) = m.remove(&gone) {
                m.entry(keep).or_insert(v);
            }
            for v in m.values_mut() {
                if *v == gone {
                    *v = keep;
                }
            }
            m.retain(|k, v| k != v);
        }
        self.union(gone, keep);
    }

    /// How many classes (of two or more registers) there are.
    pub fn class_count(&self) -> usize {
        let mut roots: alloc::vec::Vec<VReg> = self
            .parent
            .keys()
            .chain(self.parent.values())
            .filter(|v| !self.parent.contains_key(v))
            .copied()
            .collect();
        crate::sort::sort_by_key(&mut roots, |v| {
            cranelift_entity::EntityRef::index(*v) as u128
        });
        roots.dedup();
        roots.len()
    }

    /// How many SrcEqClassMap entries there are.
    pub fn len(&self) -> usize {
        self.src_eq.len()
    }

    pub fn is_empty(&self) -> bool {
        self.src_eq.is_empty()
    }

    fn union(&mut self, a: VReg, b: VReg) {
        let (ra, rb) = (self.leader(a), self.leader(b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent.insert(hi, lo);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::EntityRef;

    fn v(n: usize) -> VReg {
        VReg::new(n)
    }

    #[test]
    fn chains_are_transitive_and_survive_renames() {
        let mut c = CopyClasses::default();
        // %1 → %2 → %3 (nearest first: %3 was copied from %2, %2 from %1).
        assert_eq!(c.record_chain(&[v(3), v(2), v(1)]), 2);
        assert!(c.same_class(v(1), v(3)));
        assert_eq!(c.src_eq[&v(1)], v(3));
        assert_eq!(c.dst_eq[&v(3)], v(1));
        assert!(!c.same_class(v(1), v(4)));
        assert_eq!(c.class_count(), 1);
        // A coalescer joins %4 into %3: %4's name is gone, %3 holds both.
        c.record(v(4), v(5));
        c.rename(v(5), v(3));
        assert!(c.same_class(v(4), v(1)));
        assert_eq!(c.src_eq[&v(4)], v(3));
        assert_eq!(c.class_count(), 1);
    }
}
