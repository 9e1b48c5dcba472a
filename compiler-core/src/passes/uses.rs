//! Def/use queries over a function, computed once and kept current by the pass that
//! owns them (LLVM's MachineRegisterInfo use-def lists, as dense side tables).

use crate::entity::SecondaryMap;
use crate::liveness::intervals::LiveIntervals;
use crate::mir::{Function, Inst, InstData, Operand, VReg};
use alloc::vec::Vec;
use alloc::collections::BTreeMap;

/// Lists longer than this get a position index once removals have scanned them enough
/// ([`Indexes`]), so removing an instruction from the list of a register with thousands
/// of uses (a kernel's base pointer) costs a lookup, not a scan.
const INDEX_AFTER: usize = 16;

/// Where each instruction sits in one list (positions ascending; inline up to two, as an
/// instruction rarely names one register more often, so an entry allocates nothing).
type Positions = BTreeMap<Inst, smallvec::SmallVec<[u32; 2]>>;

/// The position indexes of one kind of list (defs or uses), built lazily per register:
/// removals scan a list until they have scanned twice its length in all, then its index
/// is built and kept current. A list that only grows (a register renamed into by merge
/// after merge) never pays for one, and a list that sees many removals pays its scans
/// at most twice over. Four bytes a register (the scan count, or [`INDEXED`]), sized
/// only when a removal first reaches a register; the built indexes, rare, in a side map.
#[derive(Clone, Debug, Default)]
struct Indexes {
    scanned: SecondaryMap<VReg, u32>,
    /// The built indexes by register, sorted (few: searched by halves, one tree map
    /// type less in the wasm).
    built: Vec<(VReg, Positions)>,
}

/// The scan count of a register whose index is built.
const INDEXED: u32 = u32::MAX;

pub use crate::mir::instr::InstList;

/// For every virtual register: its defining instructions and its using instructions
/// (an instruction appears once per operand).
///
/// The order of each list is part of what passes observe: new entries go to the end,
/// and removing an entry moves the last one into its place (the first occurrence is the
/// one removed), with or without the position index.
#[derive(Clone, Debug, Default)]
pub struct DefUse {
    pub defs: SecondaryMap<VReg, InstList>,
    pub uses: SecondaryMap<VReg, InstList>,
    def_index: Indexes,
    use_index: Indexes,
}

impl DefUse {
    pub fn compute(f: &Function) -> Self {
        Self::compute_visiting(f, |_, _| {})
    }

    /// [`DefUse::compute`], also handing every operand to `visit` during the same walk,
    /// so a pass that needs one more fact per operand does not walk the function twice.
    pub fn compute_visiting(f: &Function, mut visit: impl FnMut(Inst, &Operand)) -> Self {
        let mut du = DefUse::for_function(f);
        for (_, i) in f.all_insts() {
            for op in &f.insts[i].operands {
                du.note_operand(i, op);
                visit(i, op);
            }
        }
        du
    }

    /// The live intervals of `f` and its def/use lists, from one walk over the
    /// operands (a pass needing both would otherwise fetch every operand twice).
    pub fn with_intervals(f: &Function) -> (LiveIntervals, DefUse) {
        Self::with_intervals_on(f, &crate::mir::cfg::Cfg::new(f))
    }

    /// [`DefUse::with_intervals`] on `cfg`, the caller's control flow graph of `f`.
    pub fn with_intervals_on(f: &Function, cfg: &crate::mir::cfg::Cfg) -> (LiveIntervals, DefUse) {
        let mut du = DefUse::for_function(f);
        let lis = LiveIntervals::compute_visiting_on(f, cfg, |_, i, d| du.note_inst(i, d));
        (lis, du)
    }

    /// Empty lists for every register of `f`, to be filled by [`DefUse::note_operand`]
    /// on a walk in layout order. (An entry for every register up front: a map indexed
    /// past its end grows by one entry at a time through a slow path, which cost a
    /// million calls on a 100k-instruction function. Built from a vector rather than
    /// by `resize`, which clones the empty list once per register.)
    pub fn for_function(f: &Function) -> Self {
        let n = f.vreg_end as usize;
        let empty = || SecondaryMap::from((0..n).map(|_| InstList::new()).collect::<Vec<_>>());
        DefUse {
            defs: empty(),
            uses: empty(),
            ..DefUse::default()
        }
    }

    /// Records every operand of `i`, whose data is `d` (for a walk that already holds
    /// the instruction).
    pub fn note_inst(&mut self, i: Inst, d: &InstData) {
        for o in &d.operands {
            self.note_operand(i, o);
        }
    }

    /// Records one operand of `i`.
    pub fn note_operand(&mut self, i: Inst, o: &Operand) {
        let Some(v) = o.vreg_of() else { return };
        if o.is_def() {
            push(&mut self.defs[v], &mut self.def_index, v, i);
        } else if o.is_use() {
            push(&mut self.uses[v], &mut self.use_index, v, i);
        }
    }

    /// Records every operand of `i`.
    pub fn add_inst(&mut self, f: &Function, i: Inst) {
        self.note_inst(i, &f.insts[i]);
    }

    /// Forgets every operand of `i` (call before changing or erasing it).
    pub fn remove_inst(&mut self, f: &Function, i: Inst) {
        for (_, v) in f.insts[i].vreg_defs() {
            remove_one(&mut self.defs[v], &mut self.def_index, v, i);
        }
        for (_, v) in f.insts[i].vreg_uses() {
            remove_one(&mut self.uses[v], &mut self.use_index, v, i);
        }
    }

    /// Forgets the defs of `i` only ([`DefUse::remove_inst`] for the def lists).
    pub fn remove_defs(&mut self, f: &Function, i: Inst) {
        for (_, v) in f.insts[i].vreg_defs() {
            remove_one(&mut self.defs[v], &mut self.def_index, v, i);
        }
    }

    /// Records the defs of `i` only ([`DefUse::add_inst`] for the def lists).
    pub fn add_defs(&mut self, f: &Function, i: Inst) {
        for (_, v) in f.insts[i].vreg_defs() {
            push(&mut self.defs[v], &mut self.def_index, v, i);
        }
    }

    /// Empties both lists of `v`, returning them as (defs, uses).
    pub fn take(&mut self, v: VReg) -> (InstList, InstList) {
        self.def_index.forget(v);
        self.use_index.forget(v);
        (
            core::mem::take(&mut self.defs[v]),
            core::mem::take(&mut self.uses[v]),
        )
    }

    /// Appends `insts` to the use list of `v`, in order.
    pub fn push_uses(&mut self, v: VReg, insts: &[Inst]) {
        for &i in insts {
            push(&mut self.uses[v], &mut self.use_index, v, i);
        }
    }

    /// The single placed def of `v`, if it has exactly one.
    pub fn unique_def(&self, v: VReg) -> Option<Inst> {
        match self.defs[v].as_slice() {
            [d] => Some(*d),
            _ => None,
        }
    }

    pub fn has_one_use(&self, v: VReg) -> bool {
        self.uses[v].len() == 1
    }
}

impl Indexes {
    /// Drops `v`'s index and scan count (its lists were emptied).
    fn forget(&mut self, v: VReg) {
        if self.scanned.get(v).is_some_and(|&n| n != 0) {
            self.scanned[v] = 0;
            if let Ok(k) = self.find(v) {
                self.built.remove(k);
            }
        }
    }

    fn find(&self, v: VReg) -> Result<usize, usize> {
        self.built.binary_search_by_key(&v, |e| e.0)
    }

    fn built_mut(&mut self, v: VReg) -> Option<&mut Positions> {
        let k = self.find(v).ok()?;
        Some(&mut self.built[k].1)
    }
}

/// Appends `i` to `list`, the list of `v`.
fn push(list: &mut InstList, index: &mut Indexes, v: VReg, i: Inst) {
    list.push(i);
    if index.scanned[v] == INDEXED {
        if let Some(ix) = index.built_mut(v) {
            ix.entry(i).or_default().push((list.len() - 1) as u32);
        }
    }
}

/// Removes the first occurrence of `i` from `list`, the list of `v`, moving the last
/// entry into its place.
fn remove_one(list: &mut InstList, index: &mut Indexes, v: VReg, i: Inst) {
    let scanned = &mut index.scanned[v];
    if *scanned != INDEXED {
        if list.len() <= INDEX_AFTER || (*scanned as usize) < 2 * list.len() {
            let p = list.iter().position(|&x| x == i);
            // (A list holds fewer than 2^32 entries: `Inst` is a u32.)
            let n = p.map_or(list.len(), |p| p + 1) as u32;
            *scanned = scanned.saturating_add(n).min(INDEXED - 1);
            if let Some(p) = p {
                list.swap_remove(p);
            }
            return;
        }
        let mut ix = Positions::new();
        for (p, &x) in list.iter().enumerate() {
            ix.entry(x).or_default().push(p as u32);
        }
        *scanned = INDEXED;
        match index.find(v) {
            Ok(k) => index.built[k].1 = ix,
            Err(k) => index.built.insert(k, (v, ix)),
        }
    }
    let Some(ix) = index.built_mut(v) else {
        return;
    };
    let Some(ps) = ix.get_mut(&i) else {
        return;
    };
    let p = ps.remove(0);
    if ps.is_empty() {
        ix.remove(&i);
    }
    let last = (list.len() - 1) as u32;
    if p != last {
        // The last entry moves to `p`: its highest position becomes `p`.
        let moved = list[last as usize];
        let mps = ix.get_mut(&moved).expect("every entry is indexed");
        mps.pop();
        let at = mps.partition_point(|&x| x < p);
        mps.insert(at, p);
    }
    list.swap_remove(p as usize);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::EntityRef;
    use alloc::vec::Vec;

    /// The indexed removal leaves every list exactly as the plain scan does.
    #[test]
    fn indexed_removal_keeps_the_scan_order() {
        let mut state: u64 = 7;
        let mut rnd = move |n: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize) % n
        };
        for round in 0..200 {
            let (mut a, mut b): (InstList, Vec<Inst>) = (InstList::new(), Vec::new());
            let mut ix = Indexes::default();
            let v = VReg::new(3);
            let distinct = 1 + round % 40;
            for _ in 0..400 {
                let i = Inst::new(rnd(distinct));
                if rnd(3) == 0 {
                    if let Some(p) = b.iter().position(|&x| x == i) {
                        b.swap_remove(p);
                    }
                    remove_one(&mut a, &mut ix, v, i);
                } else {
                    b.push(i);
                    push(&mut a, &mut ix, v, i);
                }
                assert_eq!(a.as_slice(), b.as_slice());
            }
        }
    }
}
