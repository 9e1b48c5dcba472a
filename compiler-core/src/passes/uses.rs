//! Def/use queries over a function, computed once and kept current by the pass that
//! owns them (LLVM's MachineRegisterInfo use-def lists, as dense side tables).

use crate::entity::SecondaryMap;
use crate::mir::{Function, Inst, VReg};
use alloc::vec::Vec;

/// For every virtual register: its defining instructions and its using instructions
/// (an instruction appears once per operand).
#[derive(Clone, Debug, Default)]
pub struct DefUse {
    pub defs: SecondaryMap<VReg, Vec<Inst>>,
    pub uses: SecondaryMap<VReg, Vec<Inst>>,
}

impl DefUse {
    pub fn compute(f: &Function) -> Self {
        let mut du = DefUse::default();
        for (_, i) in f.all_insts() {
            du.add_inst(f, i);
        }
        du
    }

    /// Records every operand of `i`.
    pub fn add_inst(&mut self, f: &Function, i: Inst) {
        for (_, v) in f.insts[i].vreg_defs() {
            self.defs[v].push(i);
        }
        for (_, v) in f.insts[i].vreg_uses() {
            self.uses[v].push(i);
        }
    }

    /// Forgets every operand of `i` (call before changing or erasing it).
    pub fn remove_inst(&mut self, f: &Function, i: Inst) {
        for (_, v) in f.insts[i].vreg_defs() {
            remove_one(&mut self.defs[v], i);
        }
        for (_, v) in f.insts[i].vreg_uses() {
            remove_one(&mut self.uses[v], i);
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

fn remove_one(list: &mut Vec<Inst>, i: Inst) {
    if let Some(p) = list.iter().position(|&x| x == i) {
        list.swap_remove(p);
    }
}
