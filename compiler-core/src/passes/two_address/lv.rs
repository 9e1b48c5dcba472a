//! LiveVariables upkeep during two-address.
//!
//! The pass keeps kill flags and a per-register [`VarInfo`] current as it inserts COPYs.
//! Each update is one of the operations the spec lists for CICC's LiveVariables chain
//! (transfer entry, createNewVarInfo, initVarInfo, findKill, addKill/removeKill,
//! addNewBlock) and is counted in `lv_updates`. Without LiveVariables (`llc -run-pass`
//! alone) a moved kill is simply dropped, as LLVM does.

use super::TwoAddr;
use crate::entity::SecondaryMap;
use crate::mir::{oflag, Block, Function, Inst, Operand, Reg, VReg};
use crate::trace::Recorder;
use alloc::vec::Vec;

/// What the pass knows about one virtual register's liveness.
#[derive(Clone, Debug, Default)]
pub struct VarInfo {
    /// Set once createNewVarInfo/initVarInfo ran or the register existed at the start.
    pub exists: bool,
    /// Instructions that kill the register (flag `killed` on a use).
    pub kills: crate::passes::uses::InstList,
    /// Blocks the register is known to be live in (maintained by addNewBlock).
    pub alive_blocks: Vec<Block>,
}

pub struct LvUpkeep {
    pub enabled: bool,
    pub vars: SecondaryMap<VReg, VarInfo>,
}

impl LvUpkeep {
    /// An empty upkeep for `f`: every existing register gets a VarInfo; kill lists are
    /// filled by [`LvUpkeep::note_operand`] during the def/use walk.
    pub fn new(f: &Function, enabled: bool) -> Self {
        let mut vars: SecondaryMap<VReg, VarInfo> = SecondaryMap::new();
        if enabled {
            vars.resize(f.vreg_end as usize);
            for v in f.vreg_list() {
                vars[v].exists = true;
            }
        }
        LvUpkeep { enabled, vars }
    }

    /// Reads one operand's kill flag into the register's kill list.
    pub fn note_operand(&mut self, i: Inst, op: &Operand) {
        if !self.enabled || !op.is_use() || !op.has(oflag::KILL) {
            return;
        }
        if let Some(v) = op.vreg_of() {
            let kills = &mut self.vars[v].kills;
            if !kills.contains(&i) {
                kills.push(i);
            }
        }
    }
}

impl<R: Recorder> TwoAddr<'_, '_, R> {
    fn lv_count(&mut self) {
        self.stats.inc("lv_updates");
    }

    /// The kill of `v` inside block `b`, from its VarInfo (LiveVariables' findKill).
    pub(crate) fn lv_find_kill(&mut self, v: VReg, b: Block) -> Option<Inst> {
        if !self.lv.enabled {
            return None;
        }
        self.lv_count();
        let layout = &self.ed.f.layout;
        self.lv.vars[v]
            .kills
            .iter()
            .copied()
            .find(|&k| layout.inst_block(k) == Some(b))
    }

    /// Clears the kill flag of `v` on `inst` (removeVirtualRegisterKilled); true if it had one.
    pub(crate) fn lv_remove_kill(&mut self, v: VReg, inst: Inst) -> bool {
        let had = self.ed.modify(inst, |d| {
            let mut had = false;
            for op in d.operands.iter_mut() {
                if op.is_use() && op.get_reg() == Some(Reg::Virt(v)) && op.has(oflag::KILL) {
                    op.set(oflag::KILL, false);
                    had = true;
                }
            }
            had
        });
        if self.lv.enabled {
            self.lv_count();
            let kills = &mut self.lv.vars[v].kills;
            if let Some(p) = kills.iter().position(|&k| k == inst) {
                kills.remove(p);
                return true;
            }
            return false;
        }
        had
    }

    /// Marks `inst` as killing `v` (addVirtualRegisterKilled).
    pub(crate) fn lv_add_kill(&mut self, v: VReg, inst: Inst) {
        if !self.lv.enabled {
            return;
        }
        self.lv_count();
        self.ed.modify(inst, |d| {
            if let Some(op) = d
                .operands
                .iter_mut()
                .find(|o| o.is_use() && o.get_reg() == Some(Reg::Virt(v)))
            {
                op.set(oflag::KILL, true);
            }
        });
        if !self.lv.vars[v].kills.contains(&inst) {
            self.lv.vars[v].kills.push(inst);
        }
    }

    /// Moves `v`'s kill from `old` to `new` (replaceKillInstruction).
    pub(crate) fn lv_replace_kill(&mut self, v: VReg, old: Inst, new: Inst) {
        if !self.lv.enabled {
            return;
        }
        self.lv_count();
        let kills = &mut self.lv.vars[v].kills;
        match kills.iter().position(|&k| k == old) {
            Some(p) => kills[p] = new,
            None => kills.push(new),
        }
    }

    /// The six-step chain the spec lists for every COPY the EXTRACT_SUBREG
    /// decomposition creates: the COPY `copy` defines `dst` from `src` in block `b`,
    /// replacing `pseudo`. Returns how many updates ran.
    pub(crate) fn lv_copy_chain(
        &mut self,
        pseudo: Inst,
        copy: Inst,
        dst: VReg,
        src: VReg,
        b: Block,
        src_killed: bool,
    ) -> u32 {
        if !self.lv.enabled {
            return 0;
        }
        // 1. Entry: liveness is transferred from the pseudo to the COPY.
        self.lv_count();
        // 2-3. createNewVarInfo / initVarInfo for the COPY's def.
        self.lv_count();
        self.lv.vars[dst].exists = true;
        self.lv_count();
        self.lv.vars[dst].kills.retain(|k| *k != pseudo);
        // 4. findKill: where does `src` die in this block?
        let kill = self.lv_find_kill(src, b);
        // 5. addKill / removeKill: if the pseudo killed `src` through this pair, the COPY does now.
        self.lv_count();
        if src_killed {
            let kills = &mut self.lv.vars[src].kills;
            match kills.iter().position(|&k| Some(k) == kill && k == pseudo) {
                Some(p) => kills[p] = copy,
                None => {
                    if !kills.contains(&copy) {
                        kills.push(copy)
                    }
                }
            }
        }
        // 6. addNewBlock: the def is live in this block.
        self.lv_count();
        if !self.lv.vars[dst].alive_blocks.contains(&b) {
            self.lv.vars[dst].alive_blocks.push(b);
        }
        6
    }
}
