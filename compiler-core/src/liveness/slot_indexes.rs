//! Slot indexes: a number for every program point, so live ranges are plain intervals.
//!
//! ```text
//!    0B  bb.0:            each block start gets an index, each instruction the next
//!   16   %6 = LD ...      one; indexes step by INSTR_DIST (16) so instructions can be
//!   32   %5 = LD ...      inserted later without renumbering (midpoints)
//!  ...
//!  128B  bb.1:            block end = the next block's start (or the function's end)
//! ```
//!
//! Every index has four slots, in order: `B` (block boundary; also where a value
//! enters a block), `e` (early-clobber defs), `r` (register: ordinary defs and uses),
//! `d` (dead: where an unused def ends). A [`SlotIndex`] is printed as LLVM prints
//! it: the index then the slot letter, `16r`, `64B`. The numbering matches llc-22's
//! (the corpus test checks it against `print-before-after.log`).
//!
//! Invariants: indexes strictly increase along the layout (block start < its
//! instructions < block end == next block start); an instruction keeps its index until
//! it is removed; insertion takes a free midpoint and never renumbers.

use crate::entity::{dense_map, SecondaryMap};
use crate::mir::{Block, Function, Inst};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::fmt;

/// Distance between consecutive indexes at numbering time.
pub const INSTR_DIST: u32 = 16;
const NONE: u32 = u32::MAX;

/// The four points of one index, in program order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Slot {
    /// `B`: block boundary.
    Block = 0,
    /// `e`: early-clobber defs.
    EarlyClobber = 1,
    /// `r`: register defs and uses.
    Register = 2,
    /// `d`: the end of a dead def.
    Dead = 3,
}

impl Slot {
    pub const fn letter(self) -> char {
        match self {
            Slot::Block => 'B',
            Slot::EarlyClobber => 'e',
            Slot::Register => 'r',
            Slot::Dead => 'd',
        }
    }
}

/// A program point: an index and a slot, ordered by index then slot.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotIndex(u32);

impl SlotIndex {
    /// `index` must stay below 2^30.
    pub const fn new(index: u32, slot: Slot) -> Self {
        SlotIndex((index << 2) | slot as u32)
    }
    /// The index number (`16` in `16r`).
    pub const fn index(self) -> u32 {
        self.0 >> 2
    }
    pub const fn slot(self) -> Slot {
        match self.0 & 3 {
            0 => Slot::Block,
            1 => Slot::EarlyClobber,
            2 => Slot::Register,
            _ => Slot::Dead,
        }
    }
    pub const fn with_slot(self, s: Slot) -> Self {
        SlotIndex::new(self.index(), s)
    }
    pub const fn base(self) -> Self {
        self.with_slot(Slot::Block)
    }
    pub const fn early_clobber_slot(self) -> Self {
        self.with_slot(Slot::EarlyClobber)
    }
    pub const fn reg_slot(self) -> Self {
        self.with_slot(Slot::Register)
    }
    pub const fn dead_slot(self) -> Self {
        self.with_slot(Slot::Dead)
    }
    /// The raw ordered encoding (`index * 4 + slot`).
    pub const fn raw(self) -> u32 {
        self.0
    }
    pub const fn from_raw(raw: u32) -> Self {
        SlotIndex(raw)
    }
}

impl fmt::Display for SlotIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.index(), self.slot().letter())
    }
}

impl fmt::Debug for SlotIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Indexes of one function's blocks and instructions.
#[derive(Clone, Debug)]
pub struct SlotIndexes {
    inst_idx: SecondaryMap<Inst, u32>,
    block_start: SecondaryMap<Block, u32>,
    block_end: SecondaryMap<Block, u32>,
    /// Blocks in layout order with their start index (increasing).
    blocks: Vec<(u32, Block)>,
    /// Instructions at numbering-time indexes, by `index / INSTR_DIST` (NONE where a
    /// block starts or an instruction was removed): the common lookup is one load.
    numbered: Vec<u32>,
    /// Instructions inserted later, at midpoints.
    inserted: BTreeMap<u32, Inst>,
    /// Indexed instructions, both kinds.
    count: usize,
    end: u32,
}

impl SlotIndexes {
    /// Numbers `f` in layout order: 0 for the first block start, then every
    /// instruction and block start INSTR_DIST apart.
    pub fn compute(f: &Function) -> Self {
        let mut si = SlotIndexes {
            inst_idx: dense_map(NONE, f.insts.len()),
            block_start: dense_map(NONE, f.blocks.len()),
            block_end: dense_map(NONE, f.blocks.len()),
            blocks: Vec::with_capacity(f.layout.num_blocks()),
            numbered: Vec::with_capacity(f.layout.num_blocks() + f.layout.num_insts()),
            inserted: BTreeMap::new(),
            count: 0,
            end: 0,
        };
        let mut idx = 0u32;
        for b in f.layout.blocks() {
            si.block_start[b] = idx;
            si.blocks.push((idx, b));
            si.numbered.push(NONE);
            idx += INSTR_DIST;
            for i in f.layout.block_insts(b) {
                si.inst_idx[i] = idx;
                si.numbered.push(i.as_u32());
                si.count += 1;
                idx += INSTR_DIST;
            }
            si.block_end[b] = idx;
        }
        si.end = idx;
        si
    }

    /// The index of `i` (slot `B`; use [`SlotIndex::reg_slot`] for its defs and uses).
    pub fn inst_index(&self, i: Inst) -> Option<SlotIndex> {
        match self.inst_idx[i] {
            NONE => None,
            n => Some(SlotIndex::new(n, Slot::Block)),
        }
    }

    /// Where `b` starts (`B` slot of its own index).
    pub fn block_start(&self, b: Block) -> Option<SlotIndex> {
        match self.block_start[b] {
            NONE => None,
            n => Some(SlotIndex::new(n, Slot::Block)),
        }
    }

    /// Where `b` ends: the next block's start, or the function's end.
    pub fn block_end(&self, b: Block) -> Option<SlotIndex> {
        match self.block_end[b] {
            NONE => None,
            n => Some(SlotIndex::new(n, Slot::Block)),
        }
    }

    /// The index after the last block.
    #[cfg(feature = "testkit")]
    pub fn end(&self) -> SlotIndex {
        SlotIndex::new(self.end, Slot::Block)
    }

    /// The block whose range `[start, end)` holds `idx`.
    pub fn block_of(&self, idx: SlotIndex) -> Option<Block> {
        let n = idx.index();
        let p = self.blocks.partition_point(|&(s, _)| s <= n);
        let (_, b) = *self.blocks.get(p.checked_sub(1)?)?;
        (n < self.block_end[b]).then_some(b)
    }

    /// The instruction at `idx`'s index, if one is there.
    pub fn inst_at(&self, idx: SlotIndex) -> Option<Inst> {
        let n = idx.index();
        if !n.is_multiple_of(INSTR_DIST) {
            return self.inserted.get(&n).copied();
        }
        match self.numbered.get((n / INSTR_DIST) as usize) {
            Some(&i) if i != NONE => Some(Inst::from_u32(i)),
            _ => None,
        }
    }

    /// Blocks in layout order with their start.
    #[cfg(feature = "testkit")]
    pub fn blocks(&self) -> impl Iterator<Item = (SlotIndex, Block)> + '_ {
        self.blocks
            .iter()
            .map(|&(s, b)| (SlotIndex::new(s, Slot::Block), b))
    }

    /// Instructions in index order.
    #[cfg(feature = "testkit")]
    pub fn insts(&self) -> impl Iterator<Item = (SlotIndex, Inst)> + '_ {
        let mut numbered = self
            .numbered
            .iter()
            .enumerate()
            .filter(|(_, &i)| i != NONE)
            .map(|(k, &i)| (k as u32 * INSTR_DIST, Inst::from_u32(i)))
            .peekable();
        let mut inserted = self.inserted.iter().map(|(&n, &i)| (n, i)).peekable();
        core::iter::from_fn(move || {
            let next = match (numbered.peek(), inserted.peek()) {
                (Some(a), Some(b)) if a.0 < b.0 => numbered.next(),
                (_, Some(_)) => inserted.next(),
                (Some(_), None) => numbered.next(),
                (None, None) => None,
            };
            next.map(|(n, i)| (SlotIndex::new(n, Slot::Block), i))
        })
    }

    /// Gives `i`, newly placed in `f`'s layout, the midpoint between its neighbours.
    /// None when there is no free index between them (renumber with
    /// [`SlotIndexes::compute`]) or `i` is not placed.
    pub fn insert_inst(&mut self, f: &Function, i: Inst) -> Option<SlotIndex> {
        let b = f.layout.inst_block(i)?;
        let lo = match f.layout.prev_inst(i) {
            Some(p) => self.inst_idx[p],
            None => self.block_start[b],
        };
        let hi = match f.layout.next_inst(i) {
            Some(n) => self.inst_idx[n],
            None => self.block_end[b],
        };
        if lo == NONE || hi == NONE || hi <= lo + 1 {
            return None;
        }
        let mid = lo + (hi - lo) / 2;
        self.inst_idx[i] = mid;
        self.inserted.insert(mid, i);
        self.count += 1;
        Some(SlotIndex::new(mid, Slot::Block))
    }

    /// Forgets `i`'s index (after erasing it); its neighbours keep theirs.
    pub fn remove_inst(&mut self, i: Inst) {
        let n = self.inst_idx[i];
        if n != NONE {
            if n.is_multiple_of(INSTR_DIST) {
                self.numbered[(n / INSTR_DIST) as usize] = NONE;
            } else {
                self.inserted.remove(&n);
            }
            self.inst_idx[i] = NONE;
            self.count -= 1;
        }
    }

    /// Number of indexed instructions.
    #[cfg(feature = "testkit")]
    pub fn num_insts(&self) -> usize {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_order_and_print() {
        let a = SlotIndex::new(16, Slot::Register);
        assert_eq!(
            alloc::format!("{a} {} {}", a.base(), a.dead_slot()),
            "16r 16B 16d"
        );
        assert!(a.base() < a.early_clobber_slot());
        assert!(a.early_clobber_slot() < a && a < a.dead_slot());
        assert!(a.dead_slot() < SlotIndex::new(32, Slot::Block));
        assert_eq!(SlotIndex::from_raw(a.raw()), a);
    }
}
