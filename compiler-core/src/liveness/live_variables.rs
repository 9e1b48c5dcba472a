//! LLVM's LiveVariables for virtual registers.
//!
//! For each virtual register, [`VarInfo`] holds the blocks it is live *through*
//! (`alive_blocks`, block numbers) and the instructions that kill it (`kills`: the last
//! use in a block where it dies, or the def itself when the value is never used).
//! A PHI's use counts as a use at the end of the predecessor it comes from, so a value
//! used only by a PHI is not live out of that predecessor.
//!
//! Blocks are visited depth-first from the entry; within a block, uses before defs.
//! Invariant: each register has at most one kill per block.

use crate::entity::SecondaryMap;
use crate::mir::{oflag, Block, Function, Inst, Op, Reg, VReg};
use alloc::vec;
use alloc::vec::Vec;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VarInfo {
    /// Blocks (by index in layout order) the register is live through, sorted.
    pub alive_blocks: Vec<u32>,
    /// Instructions killing the register, in discovery order.
    pub kills: Vec<Inst>,
}

impl VarInfo {
    pub fn is_alive_in(&self, b: u32) -> bool {
        self.alive_blocks.binary_search(&b).is_ok()
    }
    pub fn set_alive(&mut self, b: u32) -> bool {
        match self.alive_blocks.binary_search(&b) {
            Ok(_) => false,
            Err(p) => {
                self.alive_blocks.insert(p, b);
                true
            }
        }
    }
    pub fn reset_alive(&mut self, b: u32) {
        if let Ok(p) = self.alive_blocks.binary_search(&b) {
            self.alive_blocks.remove(p);
        }
    }
    /// The kill inside block `b`, if any.
    pub fn find_kill(&self, f: &Function, b: Block) -> Option<Inst> {
        self.kills
            .iter()
            .copied()
            .find(|&k| f.layout.inst_block(k) == Some(b))
    }
    /// Removes `i` from the kill list; true if it was there.
    pub fn remove_kill(&mut self, i: Inst) -> bool {
        match self.kills.iter().position(|&k| k == i) {
            Some(p) => {
                self.kills.remove(p);
                true
            }
            None => false,
        }
    }
}

/// LiveVariables results for one function.
#[derive(Clone, Debug, Default)]
pub struct LiveVariables {
    pub vars: SecondaryMap<VReg, VarInfo>,
    /// Layout position of each block (the "block number" alive_blocks uses).
    pub block_num: SecondaryMap<Block, u32>,
}

impl LiveVariables {
    /// Runs the analysis. Does not change the function; see [`apply_flags`](Self::apply_flags).
    pub fn compute(f: &Function) -> Self {
        let mut lv = LiveVariables::default();
        for (n, b) in f.layout.blocks().enumerate() {
            lv.block_num[b] = n as u32;
        }
        // The block holding each register's (first) def.
        let mut def_block: SecondaryMap<VReg, Option<Block>> = SecondaryMap::new();
        let mut def_inst: SecondaryMap<VReg, Option<Inst>> = SecondaryMap::new();
        for (b, i) in f.all_insts() {
            for (_, v) in f.insts[i].vreg_defs() {
                if def_block[v].is_none() {
                    def_block[v] = Some(b);
                    def_inst[v] = Some(i);
                }
            }
        }
        let preds = f.predecessors();
        // PHI uses per predecessor block: (pred, vreg).
        let mut phi_uses: SecondaryMap<Block, Vec<VReg>> = SecondaryMap::new();
        for b in f.layout.blocks() {
            for i in f.layout.block_insts(b) {
                let d = &f.insts[i];
                if !d.is(Op::PHI) {
                    break;
                }
                for pair in d.operands[1..].chunks(2) {
                    if let [val, blk] = pair {
                        if let (Some(v), crate::mir::OperandKind::Block(p), false) =
                            (val.vreg_of(), blk.kind, val.has(oflag::UNDEF))
                        {
                            phi_uses[p].push(v);
                        }
                    }
                }
            }
        }
        let Some(entry) = f.layout.entry_block() else {
            return lv;
        };
        let mut visited: SecondaryMap<Block, bool> = SecondaryMap::new();
        let mut stack = vec![(entry, 0usize)];
        visited[entry] = true;
        let mut order = Vec::new();
        order.push(entry);
        // Depth-first preorder over successors, in successor-list order.
        while let Some((b, k)) = stack.pop() {
            let succs = &f.blocks[b].succs;
            if k < succs.len() {
                stack.push((b, k + 1));
                let s = succs[k].0;
                if !visited[s] {
                    visited[s] = true;
                    order.push(s);
                    stack.push((s, 0));
                }
            }
        }
        let mut worklist: Vec<Block> = Vec::new();
        for &b in &order {
            let bn = lv.block_num[b];
            for i in f.layout.block_insts(b) {
                let d = &f.insts[i];
                let is_phi = d.is(Op::PHI);
                if !is_phi {
                    for op in d.operands.iter() {
                        if let (Some(v), true) =
                            (op.vreg_of(), op.is_use() && !op.has(oflag::UNDEF))
                        {
                            lv.handle_use(f, v, b, bn, i, def_block[v], &preds, &mut worklist);
                        }
                    }
                }
                for (k, op) in d.operands.iter().enumerate() {
                    if is_phi && k > 0 {
                        break;
                    }
                    if let (Some(v), true) = (op.vreg_of(), op.is_def()) {
                        let info = &mut lv.vars[v];
                        if info.alive_blocks.is_empty() {
                            info.kills.push(i);
                        }
                    }
                }
            }
            for &v in &phi_uses[b] {
                if let Some(db) = def_block[v] {
                    lv.mark_alive(f, v, db, b, &preds, &mut worklist);
                }
            }
        }
        lv
    }

    #[allow(clippy::too_many_arguments)]
    fn handle_use(
        &mut self,
        f: &Function,
        v: VReg,
        b: Block,
        bn: u32,
        i: Inst,
        def_block: Option<Block>,
        preds: &SecondaryMap<Block, Vec<Block>>,
        wl: &mut Vec<Block>,
    ) {
        let info = &mut self.vars[v];
        if let Some(&last) = info.kills.last() {
            if f.layout.inst_block(last) == Some(b) {
                *info.kills.last_mut().expect("non-empty") = i;
                return;
            }
        }
        if !info.is_alive_in(bn) {
            info.kills.push(i);
        }
        let Some(db) = def_block else { return };
        for &p in &preds[b] {
            self.mark_alive(f, v, db, p, preds, wl);
        }
    }

    /// MarkVirtRegAliveInBlock with its worklist.
    fn mark_alive(
        &mut self,
        f: &Function,
        v: VReg,
        def_block: Block,
        start: Block,
        preds: &SecondaryMap<Block, Vec<Block>>,
        wl: &mut Vec<Block>,
    ) {
        wl.clear();
        wl.push(start);
        while let Some(b) = wl.pop() {
            let info = &mut self.vars[v];
            if let Some(p) = info
                .kills
                .iter()
                .position(|&k| f.layout.inst_block(k) == Some(b))
            {
                info.kills.remove(p);
            }
            if b == def_block {
                continue;
            }
            if !info.set_alive(self.block_num[b]) {
                continue;
            }
            wl.extend(preds[b].iter().rev().copied());
        }
    }

    /// Writes the analysis into operand flags: every kill becomes `killed` on the first
    /// use in that instruction, or `dead` on the def when the def itself is the kill.
    /// Existing kill/dead flags on virtual registers are cleared first.
    pub fn apply_flags(&self, f: &mut Function) {
        let insts: Vec<Inst> = f.all_insts().map(|(_, i)| i).collect();
        for &i in &insts {
            for op in f.insts[i].operands.iter_mut() {
                if op.vreg_of().is_some() {
                    op.set(oflag::KILL, false);
                    op.set(oflag::DEAD, false);
                }
            }
        }
        let mut defs: SecondaryMap<VReg, (u32, Option<Inst>)> = SecondaryMap::new();
        for &i in &insts {
            for (_, v) in f.insts[i].vreg_defs() {
                defs[v].0 += 1;
                defs[v].1 = Some(i);
            }
        }
        for v in f.vreg_list().collect::<Vec<_>>() {
            let unique = if defs[v].0 == 1 { defs[v].1 } else { None };
            for &k in &self.vars[v].kills {
                set_kill_or_dead(f, v, k, unique);
            }
        }
    }

    /// Whether `v` is live out of `b` (LLVM's LiveVariables::isLiveOut).
    pub fn is_live_out(&self, f: &Function, v: VReg, b: Block) -> bool {
        let info = &self.vars[v];
        f.blocks[b]
            .succs
            .iter()
            .any(|&(s, _)| info.is_alive_in(self.block_num[s]) || info.find_kill(f, s).is_some())
    }

    pub fn num_of(&self, b: Block) -> u32 {
        self.block_num[b]
    }
}

/// Marks `i` as the kill of `v`: `dead` on its def when `i` is the register's only def
/// (`unique_def`), otherwise `killed` on its first use of `v`.
pub fn set_kill_or_dead(f: &mut Function, v: VReg, i: Inst, unique_def: Option<Inst>) {
    let d = &mut f.insts[i];
    if unique_def == Some(i) {
        if let Some(op) = d
            .operands
            .iter_mut()
            .find(|o| o.is_def() && o.get_reg() == Some(Reg::Virt(v)))
        {
            op.set(oflag::DEAD, true);
        }
    } else if let Some(op) = d
        .operands
        .iter_mut()
        .find(|o| o.is_use() && o.vreg_of() == Some(v) && !o.has(oflag::UNDEF))
    {
        op.set(oflag::KILL, true);
    }
}
