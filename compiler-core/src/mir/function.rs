//! Machine functions and modules.

use super::entities::{Block, Inst, VReg};
use super::instr::InstData;
use super::layout::Layout;
use super::operand::Reg;
use super::regclass::RegClass;
use crate::entity::{EntityRef, Interner, PrimaryMap, SecondaryMap, Sym};
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockData {
    /// `bb.N`.
    pub number: u32,
    /// `bb.N.name`.
    pub name: Option<Sym>,
    /// `bb.N (%ir-block.M, align 4, ...)`: the parenthesised attributes, verbatim.
    pub attrs: Option<Sym>,
    /// Successors with their branch probability as printed (`0x80000000`).
    pub succs: Vec<(Block, Option<u32>)>,
    pub liveins: Vec<Reg>,
}

/// What the function's registers are allowed to be.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    Nvptx,
    /// Another target (the syntax references): classes are opaque.
    Foreign,
}

/// Function properties from the MIR header that passes read and update.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Props {
    pub is_ssa: bool,
    pub no_phis: bool,
    pub tracks_reg_liveness: bool,
    /// The IR function carries the `optnone` attribute (read from the embedded module).
    pub optnone: bool,
}

impl Default for Props {
    fn default() -> Self {
        Props {
            is_ssa: true,
            no_phis: false,
            tracks_reg_liveness: true,
            optnone: false,
        }
    }
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VRegInfo {
    pub class: Option<RegClass>,
    /// Listed in the header's `registers:` or seen in the body.
    pub exists: bool,
}

/// A machine function. (The web engine receives instr-emitter's output from the DAG
/// wasm, arena indices and all, in the byte form of `trace::module_bytes`.)
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    pub target: Target,
    pub props: Props,
    pub vregs: SecondaryMap<VReg, VRegInfo>,
    /// One past the highest virtual register number in use.
    pub vreg_end: u32,
    /// Function live-ins: `$phys` with its optional virtual register copy.
    pub liveins: Vec<(Reg, Option<VReg>)>,
    pub blocks: PrimaryMap<Block, BlockData>,
    pub insts: PrimaryMap<Inst, InstData>,
    pub layout: Layout,
    pub names: Interner,
    /// The header's frame sections (`frameInfo`, `fixedStack`, `stack`, `constants`,
    /// `jumpTable`, ...), each as its key and its lines verbatim: no pass reads them, but
    /// the body names `%stack.N` and `%const.N`, so llc-22 needs them back to read our MIR.
    pub frame: Vec<(String, String)>,
    /// Instruction bundles: a `BUNDLE` header (in the layout) → the instructions inside
    /// it, in order. The members are in `insts` but not in the layout, so every pass
    /// walks over a bundle as LLVM's bundle iterator does, seeing the header only; the
    /// printer writes them back inside `{ }`. Sorted by header (the reader numbers
    /// headers in order): a list searched by halves, not a tree map (whose code the
    /// wasm would hold for this one type).
    pub bundles: Vec<(Inst, Vec<Inst>)>,
}

impl Function {
    /// Makes `self` equal to `src`, reusing `self`'s instruction and operand buffers:
    /// what a player seeking back and forth does instead of cloning a whole function
    /// (on a large function the fresh memory of a clone costs more than the copying).
    pub fn assign_from(&mut self, src: &Function) {
        let mut pool: Vec<Vec<super::operand::Operand>> = self
            .insts
            .values_mut()
            .map(|d| core::mem::take(&mut d.operands))
            .collect();
        pool.reverse();
        self.insts.clear();
        self.insts.reserve(src.insts.len());
        for d in src.insts.values() {
            let operands = match pool.pop() {
                Some(mut v) => {
                    v.clone_from(&d.operands);
                    v
                }
                None => d.operands.clone(),
            };
            self.insts.push(InstData { operands, ..*d });
        }
        self.name.clone_from(&src.name);
        self.target = src.target;
        self.props = src.props;
        self.vregs.clone_from(&src.vregs);
        self.vreg_end = src.vreg_end;
        self.liveins.clone_from(&src.liveins);
        self.blocks.clone_from(&src.blocks);
        self.layout.clone_from(&src.layout);
        self.names.clone_from(&src.names);
        self.frame.clone_from(&src.frame);
        self.bundles.clone_from(&src.bundles);
    }

    pub fn new(name: &str, target: Target) -> Self {
        Function {
            name: name.into(),
            target,
            props: Props::default(),
            vregs: SecondaryMap::new(),
            vreg_end: 0,
            liveins: Vec::new(),
            blocks: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            layout: Layout::default(),
            names: Interner::default(),
            frame: Vec::new(),
            bundles: Vec::new(),
        }
    }

    /// Creates a fresh virtual register of `class`.
    pub fn new_vreg(&mut self, class: Option<RegClass>) -> VReg {
        let v = VReg::new(self.vreg_end as usize);
        self.declare_vreg(v, class);
        v
    }

    /// Marks `v` as existing (with `class` if given).
    pub fn declare_vreg(&mut self, v: VReg, class: Option<RegClass>) {
        let info = &mut self.vregs[v];
        info.exists = true;
        if class.is_some() {
            info.class = class;
        }
        self.vreg_end = self.vreg_end.max(v.index() as u32 + 1);
    }

    pub fn vreg_class(&self, v: VReg) -> Option<RegClass> {
        self.vregs[v].class
    }

    /// Existing virtual registers in number order.
    pub fn vreg_list(&self) -> impl Iterator<Item = VReg> + '_ {
        (0..self.vreg_end as usize)
            .map(VReg::new)
            .filter(|&v| self.vregs[v].exists)
    }

    pub fn add_block(&mut self, data: BlockData) -> Block {
        let b = self.blocks.push(data);
        self.layout.append_block(b);
        b
    }

    /// A new empty block on the edge `pred` → `succ` (LLVM's SplitCriticalEdge, block
    /// part): numbered after every existing block, placed right after `pred`, with
    /// `succ` as its one successor, and taking `succ`'s place in `pred`'s successor
    /// list (probability kept). Branch operands and PHIs are the caller's to rewrite.
    pub fn split_edge_block(&mut self, pred: Block, succ: Block) -> Block {
        let number = self
            .layout
            .blocks()
            .map(|b| self.blocks[b].number + 1)
            .max()
            .unwrap_or(0);
        let liveins = self.blocks[succ].liveins.clone();
        let b = self.blocks.push(BlockData {
            number,
            name: None,
            attrs: None,
            succs: alloc::vec![(succ, Some(0x8000_0000))],
            liveins,
        });
        self.layout.insert_block_after(b, pred);
        for e in self.blocks[pred].succs.iter_mut() {
            if e.0 == succ {
                e.0 = b;
            }
        }
        b
    }

    /// Stores an instruction without placing it.
    pub fn make_inst(&mut self, data: InstData) -> Inst {
        let i = self.insts.push(data);
        self.layout.ensure_capacity(self.insts.len());
        i
    }

    pub fn append_inst(&mut self, b: Block, data: InstData) -> Inst {
        let i = self.make_inst(data);
        self.layout.append_inst(i, b);
        i
    }

    pub fn insert_before(&mut self, before: Inst, data: InstData) -> Inst {
        let i = self.make_inst(data);
        self.layout.insert_before(i, before);
        i
    }

    pub fn insert_after(&mut self, after: Inst, data: InstData) -> Inst {
        let i = self.make_inst(data);
        self.layout.insert_after(i, after);
        i
    }

    /// Takes `i` out of the layout; its storage stays (indices remain valid).
    pub fn erase(&mut self, i: Inst) {
        self.layout.remove_inst(i);
    }

    /// Instructions of the whole function in layout order.
    pub fn all_insts(&self) -> impl Iterator<Item = (Block, Inst)> + '_ {
        self.layout
            .blocks()
            .flat_map(move |b| self.layout.block_insts(b).map(move |i| (b, i)))
    }

    /// The first terminator of `b`, if any (insertion point for copies at block end).
    pub fn first_terminator(&self, b: Block) -> Option<Inst> {
        let mut t = None;
        for i in self.layout.block_insts(b).rev() {
            if self.insts[i].desc().has(super::opcode::flag::TERMINATOR) {
                t = Some(i);
            } else {
                break;
            }
        }
        t
    }

    /// Predecessors of every block, in layout order of the predecessor.
    pub fn predecessors(&self) -> SecondaryMap<Block, Vec<Block>> {
        // Sized up front: a map indexed past its end grows one entry at a time.
        let mut preds: SecondaryMap<Block, Vec<Block>> =
            crate::entity::dense_map(Vec::new(), self.blocks.len());
        for b in self.layout.blocks() {
            for &(s, _) in &self.blocks[b].succs {
                // `b`'s own entries are pushed together, so a repeat can only be last.
                if preds[s].last() != Some(&b) {
                    preds[s].push(b);
                }
            }
        }
        preds
    }

    /// Block with MIR number `n`.
    pub fn block_by_number(&self, n: u32) -> Option<Block> {
        self.layout.blocks().find(|&b| self.blocks[b].number == n)
    }

    /// Replaces the function's live-ins; the entry block lists the same registers.
    pub fn set_liveins(&mut self, liveins: Vec<(Reg, Option<VReg>)>) {
        if let Some(entry) = self.layout.entry_block() {
            self.blocks[entry].liveins = liveins.iter().map(|&(r, _)| r).collect();
        }
        self.liveins = liveins;
    }

    /// The members of the bundle `header` opens, if it opens one.
    pub fn bundle(&self, header: Inst) -> Option<&[Inst]> {
        let k = self.bundles.binary_search_by_key(&header, |b| b.0).ok()?;
        Some(&self.bundles[k].1)
    }

    pub fn sym(&self, s: Sym) -> &str {
        self.names.name(s)
    }

    pub fn num_insts(&self) -> usize {
        self.layout.num_insts()
    }
}

/// A MIR file: the optional embedded LLVM IR module and the functions.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Module {
    /// The `--- |` document, verbatim (without its indentation).
    pub ir: Option<String>,
    pub functions: Vec<Function>,
}
