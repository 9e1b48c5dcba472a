//! Instruction order, kept apart from instruction storage: a doubly linked list of
//! instructions per block and a vector of blocks. Inserting or erasing is O(1), so
//! passes that add COPYs before an instruction stay linear.

use super::entities::{Block, Inst};
use crate::entity::{EntityRef, SecondaryMap};
use crate::packing::{get_map, put_map};
use crate::packing::{Bytes, Reader};
use alloc::vec::Vec;
use cranelift_entity::packed_option::PackedOption;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct BlockNode {
    first: PackedOption<Inst>,
    last: PackedOption<Inst>,
    len: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct InstNode {
    block: PackedOption<Block>,
    prev: PackedOption<Inst>,
    next: PackedOption<Inst>,
}

/// The order of blocks and of the instructions in each block.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Layout {
    order: Vec<Block>,
    blocks: SecondaryMap<Block, BlockNode>,
    insts: SecondaryMap<Inst, InstNode>,
}

impl Layout {
    /// Writes the layout as it is (a handed-over function's byte form, `trace/module_bytes.rs`).
    pub(crate) fn put(&self, w: &mut Bytes) {
        let opt = |w: &mut Bytes, x: PackedOption<Inst>| w.opt(x.expand().map(|i| i.as_u32()));
        w.list(&self.order, |w, b| w.num(u64::from(b.as_u32())));
        put_map(w, &self.blocks, |w, n| {
            opt(w, n.first);
            opt(w, n.last);
            w.num(u64::from(n.len));
        });
        put_map(w, &self.insts, |w, n| {
            w.opt(n.block.expand().map(|b| b.as_u32()));
            opt(w, n.prev);
            opt(w, n.next);
        });
    }

    /// The layout [`Layout::put`] wrote.
    pub(crate) fn get(r: &mut Reader<'_>) -> Layout {
        let inst = |r: &mut Reader<'_>| r.opt().map(Inst::from_u32).into();
        Layout {
            order: r.list(|r| Block::from_u32(r.u32())),
            blocks: get_map(r, |r| BlockNode {
                first: inst(r),
                last: inst(r),
                len: r.u32(),
            }),
            insts: get_map(r, |r| InstNode {
                block: r.opt().map(Block::from_u32).into(),
                prev: inst(r),
                next: inst(r),
            }),
        }
    }

    pub fn append_block(&mut self, b: Block) {
        debug_assert!(!self.order.contains(&b));
        self.order.push(b);
    }

    /// Places block `b` right after `after` in the layout (at the end when `after` is
    /// not placed).
    pub fn insert_block_after(&mut self, b: Block, after: Block) {
        debug_assert!(!self.order.contains(&b));
        match self.order.iter().position(|&x| x == after) {
            Some(p) => self.order.insert(p + 1, b),
            None => self.order.push(b),
        }
    }

    /// Blocks in layout order.
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = Block> + ExactSizeIterator + '_ {
        self.order.iter().copied()
    }

    pub fn entry_block(&self) -> Option<Block> {
        self.order.first().copied()
    }

    pub fn num_blocks(&self) -> usize {
        self.order.len()
    }

    pub fn block_len(&self, b: Block) -> usize {
        self.blocks[b].len as usize
    }

    pub fn first_inst(&self, b: Block) -> Option<Inst> {
        self.blocks[b].first.expand()
    }

    pub fn last_inst(&self, b: Block) -> Option<Inst> {
        self.blocks[b].last.expand()
    }

    pub fn next_inst(&self, i: Inst) -> Option<Inst> {
        self.insts[i].next.expand()
    }

    pub fn prev_inst(&self, i: Inst) -> Option<Inst> {
        self.insts[i].prev.expand()
    }

    /// The block holding `i`, or None once erased.
    pub fn inst_block(&self, i: Inst) -> Option<Block> {
        self.insts[i].block.expand()
    }

    pub fn is_inserted(&self, i: Inst) -> bool {
        self.inst_block(i).is_some()
    }

    pub fn append_inst(&mut self, i: Inst, b: Block) {
        debug_assert!(!self.is_inserted(i));
        let last = self.blocks[b].last;
        self.insts[i] = InstNode {
            block: b.into(),
            prev: last,
            next: None.into(),
        };
        match last.expand() {
            Some(l) => self.insts[l].next = i.into(),
            None => self.blocks[b].first = i.into(),
        }
        self.blocks[b].last = i.into();
        self.blocks[b].len += 1;
    }

    /// Inserts `i` immediately before `before`.
    pub fn insert_before(&mut self, i: Inst, before: Inst) {
        debug_assert!(!self.is_inserted(i));
        let b = self.insts[before]
            .block
            .expand()
            .expect("insert_before: anchor not in layout");
        let prev = self.insts[before].prev;
        self.insts[i] = InstNode {
            block: b.into(),
            prev,
            next: before.into(),
        };
        self.insts[before].prev = i.into();
        match prev.expand() {
            Some(p) => self.insts[p].next = i.into(),
            None => self.blocks[b].first = i.into(),
        }
        self.blocks[b].len += 1;
    }

    /// Inserts `i` immediately after `after`.
    pub fn insert_after(&mut self, i: Inst, after: Inst) {
        match self.next_inst(after) {
            Some(n) => self.insert_before(i, n),
            None => {
                let b = self
                    .inst_block(after)
                    .expect("insert_after: anchor not in layout");
                self.append_inst(i, b)
            }
        }
    }

    /// Inserts `i` before the first terminator-or-end position given by `before`
    /// (None: at the end of `b`).
    pub fn insert_at(&mut self, i: Inst, b: Block, before: Option<Inst>) {
        match before {
            Some(x) => self.insert_before(i, x),
            None => self.append_inst(i, b),
        }
    }

    pub fn remove_inst(&mut self, i: Inst) {
        let node = core::mem::take(&mut self.insts[i]);
        let b = node.block.expand().expect("remove_inst: not in layout");
        match node.prev.expand() {
            Some(p) => self.insts[p].next = node.next,
            None => self.blocks[b].first = node.next,
        }
        match node.next.expand() {
            Some(n) => self.insts[n].prev = node.prev,
            None => self.blocks[b].last = node.prev,
        }
        self.blocks[b].len -= 1;
    }

    /// Instructions of `b` in order.
    pub fn block_insts(&self, b: Block) -> BlockInsts<'_> {
        BlockInsts {
            layout: self,
            next: self.first_inst(b),
            back: self.last_inst(b),
        }
    }

    /// Position of `b` in layout order.
    pub fn block_index(&self, b: Block) -> Option<usize> {
        self.order.iter().position(|&x| x == b)
    }

    /// Total number of instructions in the layout.
    pub fn num_insts(&self) -> usize {
        self.order.iter().map(|&b| self.block_len(b)).sum()
    }

    pub(crate) fn ensure_capacity(&mut self, insts: usize) {
        if insts > 0 {
            let _ = &mut self.insts[Inst::new(insts - 1)];
        }
    }
}

/// Iterator over one block's instructions; stable if the current one is erased after
/// it has been returned (`next` is read before yielding).
pub struct BlockInsts<'a> {
    layout: &'a Layout,
    next: Option<Inst>,
    back: Option<Inst>,
}

impl Iterator for BlockInsts<'_> {
    type Item = Inst;
    fn next(&mut self) -> Option<Inst> {
        let cur = self.next?;
        if Some(cur) == self.back {
            self.next = None;
            self.back = None;
        } else {
            self.next = self.layout.next_inst(cur);
        }
        Some(cur)
    }
}

impl DoubleEndedIterator for BlockInsts<'_> {
    fn next_back(&mut self) -> Option<Inst> {
        let cur = self.back?;
        if Some(cur) == self.next {
            self.next = None;
            self.back = None;
        } else {
            self.back = self.layout.prev_inst(cur);
        }
        Some(cur)
    }
}
