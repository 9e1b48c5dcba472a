//! LiveVariables: for every virtual register, the blocks it is live straight through,
//! the instructions where it dies, and where it is defined — LLVM's `VarInfo` — plus
//! the kill and dead operand flags those imply.
//!
//! ```text
//!  Function ──Accesses::collect──▶ per vreg: InstEffects + PHI predecessors
//!     ──Solver::solve──▶ LIVE_IN / LIVE_OUT blocks
//!     ──backward scan of each accessed block──▶ VarInfo { alive_blocks, kills, defs }
//!     ──apply_flags──▶ `killed` on the last use, `dead` on an unused def
//! ```
//!
//! Works on SSA with PHIs (before PHI elimination) and on the multi-def form after it.
//! A PHI's incoming value counts as read at the end of the predecessor it names, so it
//! is live out of that block and the PHI operand itself never carries a kill flag —
//! what LLVM's LiveVariables does (it marks the value alive in the predecessor when it
//! finishes that block). On SSA input this computes exactly LLVM's flags (the corpus
//! test strips `killed`/`dead` from every `2-pre-phielim.mir` and gets llc-22's back),
//! and after PHI elimination exactly what llc-22's PHIElimination leaves (every
//! `3-pre-twoaddr.mir`). Passes compute it once and then keep the tables current as
//! they edit (`passes/phi_elim.rs` does: `vars` is public, and the `*_kill` /
//! `*_virtual_register_*` helpers move kills with or without the operand flags).
//!
//! The analysis is whole-register: a tuple read through several lanes in one
//! instruction gets its kill flag on the first of those operands (LLVM's rule), not on
//! the lane read last; lane-by-lane liveness is in [`LiveIntervals`](super::LiveIntervals).
//!
//! Invariants of a computed [`VarInfo`]:
//! - `alive_blocks`: blocks the register is live into and out of with no def inside
//!   (LLVM's "alive completely through"); never a block that defines it.
//! - `kills`: in layout order, each instruction after which the value is dead: the
//!   last reader of a value that is not live out, or (LLVM's convention) the defining
//!   instruction itself when the def is never read — that def gets the `dead` flag.
//!   An instruction that reads and redefines the register (a tied pair) is not a kill:
//!   the register stays live through it.
//! - `defs`: every instruction that writes the register, in layout order.
//! - the kill flag of a kill goes on the instruction's first non-`undef` use of the
//!   register only, as `MachineInstr::addRegisterKilled` does.
//!
//! Block numbers: `alive_blocks` and the `u32` block arguments of [`VarInfo`] use a
//! block's storage index ([`LiveVariables::num_of`]), LLVM's MBB number: equal to the
//! layout position in a parsed function, and stable when a pass adds blocks.
//!
//! Two live-out queries: [`LiveVariables::is_live_out`] is LLVM's `isLiveOut` (alive in
//! or killed in a successor), which PHI elimination's output depends on — it answers
//! from the tables alone, so it stays meaningful while a pass edits them, but it misses
//! values only a successor's PHI reads and over-approximates when a successor defines
//! the register before killing it; [`LiveVariables::is_live_out_exact`] looks at the
//! instructions and is exact on any form.
//!
//! Physical registers are not tracked; their flags are left as they are.

use crate::mir::accesses::{
    class_lanes, inst_effects, Accesses, InstEffect, Solver, ALL_LANES,
};
use crate::mir::accesses::{DEFINES, LIVE_IN, LIVE_OUT};
use crate::mir::bitset::BlockSet;
use crate::mir::cfg::Cfg;
use crate::entity::{EntityRef, SecondaryMap};
use crate::mir::instr::InstList;
use crate::mir::{oflag, Block, Function, Inst, InstData, Op, OperandKind, VReg};
#[cfg(feature = "testkit")]
use alloc::format;
#[cfg(feature = "testkit")]
use alloc::string::String;
use alloc::vec::Vec;
#[cfg(feature = "testkit")]
use core::fmt::Write;

/// What LiveVariables knows about one virtual register.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VarInfo {
    /// Blocks the register is live completely through (live in, live out, no def).
    pub alive_blocks: BlockSet,
    /// Instructions after which a value of the register is dead (see the module docs).
    pub kills: InstList,
    /// Instructions that define the register.
    pub defs: InstList,
}

impl VarInfo {
    /// Is the register alive straight through block number `b`?
    pub fn is_alive_in(&self, b: u32) -> bool {
        b != u32::MAX && self.alive_blocks.contains(Block::from_u32(b))
    }

    /// Marks block number `b` alive; true if it was not.
    #[cfg(feature = "testkit")]
    pub fn set_alive(&mut self, b: u32) -> bool {
        b != u32::MAX && self.alive_blocks.insert(Block::from_u32(b))
    }

    /// Clears block number `b` from the alive set.
    pub fn reset_alive(&mut self, b: u32) {
        if b != u32::MAX {
            self.alive_blocks.remove(Block::from_u32(b));
        }
    }

    /// The first kill located in block `b` (LLVM's `VarInfo::findKill`).
    pub fn find_kill(&self, f: &Function, b: Block) -> Option<Inst> {
        self.kills
            .iter()
            .copied()
            .find(|&k| f.layout.inst_block(k) == Some(b))
    }

    /// Removes `inst` from the kills; true if it was there.
    pub fn remove_kill(&mut self, inst: Inst) -> bool {
        match self.kills.iter().position(|&k| k == inst) {
            Some(p) => {
                self.kills.remove(p);
                true
            }
            None => false,
        }
    }

    /// True if the register is never live anywhere (no kill, def or live block).
    pub fn is_empty(&self) -> bool {
        self.alive_blocks.is_empty() && self.kills.is_empty() && self.defs.is_empty()
    }
}

/// LiveVariables for a whole function.
#[derive(Clone, Debug, Default)]
pub struct LiveVariables {
    /// Every register's VarInfo (passes update them in place as they edit the IR).
    pub vars: SecondaryMap<VReg, VarInfo>,
}

impl LiveVariables {
    /// Computes every virtual register's [`VarInfo`] (flags in `f` are not read).
    pub fn compute(f: &Function) -> Self {
        let cfg = Cfg::new(f);
        let acc = Accesses::collect(f);
        let mut solver = Solver::new(&cfg);
        let mut lv = LiveVariables::default();
        lv.vars.resize(f.vreg_end as usize);
        let mut effects = Vec::new();
        let mut preds = Vec::new();
        for v in f.vreg_list() {
            lv.vars[v] = compute_var(f, &cfg, &acc, &mut solver, &mut effects, &mut preds, v);
        }
        lv
    }

    /// Recomputes one register's [`VarInfo`] from scratch (LLVM's
    /// `recomputeForSingleDefVirtReg`, for any number of defs). Costs one scan of `f`.
    pub fn recompute_var(&mut self, f: &Function, v: VReg) {
        let cfg = Cfg::new(f);
        let acc = Accesses::collect(f);
        let mut solver = Solver::new(&cfg);
        self.vars[v] = compute_var(
            f,
            &cfg,
            &acc,
            &mut solver,
            &mut Vec::new(),
            &mut Vec::new(),
            v,
        );
    }

    #[cfg(feature = "testkit")]
    pub fn var_info(&self, v: VReg) -> &VarInfo {
        &self.vars[v]
    }

    #[cfg(feature = "testkit")]
    pub fn var_info_mut(&mut self, v: VReg) -> &mut VarInfo {
        &mut self.vars[v]
    }

    /// Starts an empty [`VarInfo`] for a register a pass just created
    /// (LLVM's `createNewVarInfo` + `initVarInfo`).
    pub fn new_var_info(&mut self, v: VReg) -> &mut VarInfo {
        self.vars[v] = VarInfo::default();
        &mut self.vars[v]
    }

    /// Is `inst` recorded as a kill of `v` (a last use, or a dead def)?
    pub fn is_killed_by(&self, v: VReg, inst: Inst) -> bool {
        self.vars[v].kills.contains(&inst)
    }

    /// Records `inst` as a kill of `v` (table only; see
    /// [`LiveVariables::add_virtual_register_killed`] for the flag too).
    #[cfg(feature = "testkit")]
    pub fn add_kill(&mut self, v: VReg, inst: Inst) {
        let k = &mut self.vars[v].kills;
        if !k.contains(&inst) {
            k.push(inst);
        }
    }

    /// Forgets `inst` as a kill of `v` (table only); true if it was one.
    pub fn remove_kill(&mut self, v: VReg, inst: Inst) -> bool {
        self.vars[v].remove_kill(inst)
    }

    /// The kill of `v` at `old` now happens at `new` (LLVM's `replaceKillInstruction`;
    /// table only). True if `old` was a kill.
    #[cfg(feature = "testkit")]
    pub fn replace_kill(&mut self, v: VReg, old: Inst, new: Inst) -> bool {
        match self.vars[v].kills.iter().position(|&k| k == old) {
            Some(p) => {
                self.vars[v].kills[p] = new;
                true
            }
            None => false,
        }
    }

    /// Sets the kill flag on `inst`'s first use of `v` and records the kill
    /// (LLVM's `addVirtualRegisterKilled`).
    #[cfg(feature = "testkit")]
    pub fn add_virtual_register_killed(&mut self, f: &mut Function, v: VReg, inst: Inst) {
        set_kill_flag(f, v, inst);
        self.add_kill(v, inst);
    }

    /// Clears the kill flags of `v` on `inst` and forgets the kill; true if `inst` was
    /// a kill of `v` (LLVM's `removeVirtualRegisterKilled`).
    #[cfg(feature = "testkit")]
    pub fn remove_virtual_register_killed(
        &mut self,
        f: &mut Function,
        v: VReg,
        inst: Inst,
    ) -> bool {
        if !self.remove_kill(v, inst) {
            return false;
        }
        if let Some(d) = f.insts.get_mut(inst) {
            for o in d.operands.iter_mut() {
                if o.is_use() && o.vreg_of() == Some(v) {
                    o.set(oflag::KILL, false);
                }
            }
        }
        true
    }

    /// Marks `inst`'s defs of `v` dead and records it (LLVM's `addVirtualRegisterDead`).
    #[cfg(feature = "testkit")]
    pub fn add_virtual_register_dead(&mut self, f: &mut Function, v: VReg, inst: Inst) {
        set_dead_flag(f, v, inst, true);
        self.add_kill(v, inst);
    }

    /// Clears the dead flags of `v` on `inst`; true if it was recorded dead.
    #[cfg(feature = "testkit")]
    pub fn remove_virtual_register_dead(&mut self, f: &mut Function, v: VReg, inst: Inst) -> bool {
        if !self.remove_kill(v, inst) {
            return false;
        }
        set_dead_flag(f, v, inst, false);
        true
    }

    /// Is `v` live on entry to `b`?
    pub fn is_live_in(&self, f: &Function, v: VReg, b: Block) -> bool {
        let vi = &self.vars[v];
        if vi.alive_blocks.contains(b) {
            return true;
        }
        let here = |i: &Inst| f.layout.inst_block(*i) == Some(b);
        if !vi.kills.iter().any(here) && !vi.defs.iter().any(here) {
            return false;
        }
        reads_before_def(f, v, b)
    }

    /// LLVM's `isLiveOut`: is `v` alive in, or killed in, a successor of `b`? Reads
    /// only the tables (see the module docs for what it misses).
    pub fn is_live_out(&self, f: &Function, v: VReg, b: Block) -> bool {
        let Some(bd) = f.blocks.get(b) else {
            return false;
        };
        let vi = &self.vars[v];
        bd.succs
            .iter()
            .any(|&(s, _)| vi.alive_blocks.contains(s) || vi.find_kill(f, s).is_some())
    }

    /// Is `v` live on exit from `b`: live into a successor, or read by a successor's
    /// PHI on the edge from `b`? Exact on SSA and after PHI elimination.
    pub fn is_live_out_exact(&self, f: &Function, v: VReg, b: Block) -> bool {
        let Some(bd) = f.blocks.get(b) else {
            return false;
        };
        bd.succs
            .iter()
            .any(|&(s, _)| self.is_live_in(f, v, s) || phi_reads_from(f, v, s, b))
    }

    /// The number `alive_blocks` knows block `b` by (its storage index).
    pub fn num_of(&self, b: Block) -> u32 {
        b.index() as u32
    }

    /// Clears every `killed` on vreg uses and `dead` on vreg defs of `f`, then sets
    /// them from this analysis.
    #[cfg(any(feature = "testkit", feature = "testgen"))]
    pub fn apply_flags(&self, f: &mut Function) {
        let marks = self.flag_marks(f);
        let mut at = 0;
        for (i, d) in f.insts.iter_mut() {
            let here = marks_at(&marks, &mut at, i);
            write_inst_flags(d, here);
        }
    }

    /// Every (instruction, register) pair the tables make a kill — a last read, or a
    /// def never read — sorted by instruction index: what [`Self::apply_flags`] writes.
    pub fn flag_marks(&self, f: &Function) -> Vec<(Inst, VReg)> {
        let mut marks = Vec::new();
        for v in f.vreg_list() {
            marks.extend(self.vars[v].kills.iter().map(|&k| (k, v)));
        }
        marks.sort_unstable_by_key(|&(i, v)| (i.index(), v.index()));
        marks
    }

    /// The instructions of the layout whose kill and dead flags differ from what `marks`
    /// ([`Self::flag_marks`]) imply, in layout order: found in one walk in storage order
    /// (the marks are sorted by instruction) and without a copy of the function.
    pub fn stale_insts(f: &Function, marks: &[(Inst, VReg)]) -> Vec<Inst> {
        let mut at = 0;
        let mut hit = crate::entity::dense_map(false, f.insts.len());
        let mut any = false;
        for (i, d) in f.insts.iter() {
            let here = marks_at(marks, &mut at, i);
            if f.layout.is_inserted(i) && inst_flags_differ(d, here) {
                hit[i] = true;
                any = true;
            }
        }
        if !any {
            return Vec::new();
        }
        f.all_insts().map(|(_, i)| i).filter(|&i| hit[i]).collect()
    }

    /// A readable account of one register, for traces and debugging:
    /// `%5: defs [3] alive [bb.1 bb.2] kills [7]` (instruction storage indices).
    #[cfg(feature = "testkit")]
    pub fn describe(&self, f: &Function, v: VReg) -> String {
        let vi = &self.vars[v];
        let mut s = format!("%{}: defs [", v.index());
        for (k, i) in vi.defs.iter().enumerate() {
            let _ = write!(s, "{}{}", if k > 0 { " " } else { "" }, i.index());
        }
        s.push_str("] alive [");
        for (k, b) in vi.alive_blocks.iter().enumerate() {
            let n = f.blocks.get(b).map_or(0, |d| d.number);
            let _ = write!(s, "{}bb.{n}", if k > 0 { " " } else { "" });
        }
        s.push_str("] kills [");
        for (k, i) in vi.kills.iter().enumerate() {
            let _ = write!(s, "{}{}", if k > 0 { " " } else { "" }, i.index());
        }
        s.push(']');
        s
    }
}

/// Recomputes LiveVariables and writes the kill/dead flags into `f`.
#[cfg(any(feature = "testkit", feature = "testgen"))]
pub fn set_kill_flags(f: &mut Function) -> LiveVariables {
    let lv = LiveVariables::compute(f);
    lv.apply_flags(f);
    lv
}

/// The registers `marks` (sorted by instruction, [`LiveVariables::flag_marks`]) kill at
/// `i`, for a walk over instructions in index order: `at` moves past them.
pub fn marks_at<'m>(marks: &'m [(Inst, VReg)], at: &mut usize, i: Inst) -> Marks<'m> {
    while *at < marks.len() && marks[*at].0.index() < i.index() {
        *at += 1;
    }
    let start = *at;
    while *at < marks.len() && marks[*at].0 == i {
        *at += 1;
    }
    Marks(&marks[start..*at])
}

/// The registers `marks` (sorted by instruction) kill at `i`, found by halving.
pub fn marks_of(marks: &[(Inst, VReg)], i: Inst) -> Marks<'_> {
    let mut at = marks.partition_point(|m| m.0.index() < i.index());
    marks_at(marks, &mut at, i)
}

/// The registers one instruction kills, from [`marks_at`].
#[derive(Clone, Copy)]
pub struct Marks<'m>(&'m [(Inst, VReg)]);

impl Marks<'_> {
    fn contains(&self, v: VReg) -> bool {
        self.0.iter().any(|&(_, x)| x == v)
    }
}

/// Calls `want(operand index, flag, on)` for the kill or dead flag of every virtual
/// register operand of `d`, as the kills `here` imply (flags on other operands are not
/// named): a def of a killed register is dead; otherwise the first use of a killed
/// register that is neither `undef` nor a debug use is killed (LLVM's
/// `addRegisterKilled`); every other flag of those two kinds is off.
fn inst_flags(d: &InstData, here: Marks<'_>, mut want: impl FnMut(usize, u16, bool)) {
    let mut seen: smallvec::SmallVec<[VReg; 4]> = smallvec::SmallVec::new();
    for (j, o) in d.operands.iter().enumerate() {
        let Some(v) = o.vreg_of() else { continue };
        if o.is_def() {
            want(j, oflag::DEAD, here.contains(v));
        } else {
            let first = !o.has(oflag::UNDEF) && !o.has(oflag::DEBUG_USE) && !seen.contains(&v);
            if first {
                seen.push(v);
            }
            let on = first && here.contains(v) && !d.vreg_defs().any(|(_, x)| x == v);
            want(j, oflag::KILL, on);
        }
    }
}

/// Do `d`'s kill and dead flags differ from what `here` implies?
pub fn inst_flags_differ(d: &InstData, here: Marks<'_>) -> bool {
    let mut differ = false;
    inst_flags(d, here, |j, flag, on| {
        differ |= d.operands[j].has(flag) != on
    });
    differ
}

/// Writes into `d` the kill and dead flags `here` implies ([`inst_flags`]).
pub fn write_inst_flags(d: &mut InstData, here: Marks<'_>) {
    let mut sets: smallvec::SmallVec<[(usize, u16, bool); 8]> = smallvec::SmallVec::new();
    inst_flags(d, here, |j, flag, on| sets.push((j, flag, on)));
    for (j, flag, on) in sets {
        d.operands[j].set(flag, on);
    }
}

/// Marks `i` as the kill of `v`: `dead` on its def when `i` is the register's only def
/// (`unique_def`), otherwise `killed` on its first use of `v`.
#[cfg(feature = "testkit")]
pub fn set_kill_or_dead(f: &mut Function, v: VReg, i: Inst, unique_def: Option<Inst>) {
    if unique_def == Some(i) {
        if let Some(o) = f.insts.get_mut(i).and_then(|d| {
            d.operands
                .iter_mut()
                .find(|o| o.is_def() && o.vreg_of() == Some(v))
        }) {
            o.set(oflag::DEAD, true);
        }
    } else {
        set_kill_flag(f, v, i);
    }
}

fn compute_var(
    f: &Function,
    cfg: &Cfg,
    acc: &Accesses,
    solver: &mut Solver,
    effects: &mut Vec<InstEffect>,
    preds: &mut Vec<Block>,
    v: VReg,
) -> VarInfo {
    let all = class_lanes(f.vreg_class(v));
    inst_effects(acc.of(v), ALL_LANES, all, effects, None);
    preds.clear();
    preds.extend(acc.phi_uses_of(v).iter().map(|p| p.pred));
    solver.solve(cfg, effects, preds);
    let mut vi = VarInfo::default();
    for &b in solver.touched() {
        let fl = solver.flags(b);
        if fl & (LIVE_IN | LIVE_OUT) == LIVE_IN | LIVE_OUT && fl & DEFINES == 0 {
            vi.alive_blocks.insert(b);
        }
    }
    // Kills: a backward scan of each accessed block, live out as the starting state.
    let mut k = 0;
    let mut block_kills = InstList::new();
    while k < effects.len() {
        let b = effects[k].block;
        let start = k;
        while k < effects.len() && effects[k].block == b {
            k += 1;
        }
        let mut live = solver.flags(b) & LIVE_OUT != 0;
        block_kills.clear();
        for e in effects[start..k].iter().rev() {
            if e.defs {
                if !live {
                    block_kills.push(e.inst);
                }
                live = false;
            }
            if e.reads {
                if !live && !e.defs {
                    block_kills.push(e.inst);
                }
                live = true;
            }
        }
        vi.kills.extend(block_kills.iter().rev().copied());
        vi.defs
            .extend(effects[start..k].iter().filter(|e| e.defs).map(|e| e.inst));
    }
    vi
}

#[cfg(feature = "testkit")]
fn set_kill_flag(f: &mut Function, v: VReg, inst: Inst) {
    let Some(d) = f.insts.get_mut(inst) else {
        return;
    };
    if let Some(o) = d.operands.iter_mut().find(|o| {
        o.is_use() && o.vreg_of() == Some(v) && !o.has(oflag::UNDEF) && !o.has(oflag::DEBUG_USE)
    }) {
        o.set(oflag::KILL, true);
    }
}

#[cfg(feature = "testkit")]
fn set_dead_flag(f: &mut Function, v: VReg, inst: Inst, on: bool) {
    let Some(d) = f.insts.get_mut(inst) else {
        return;
    };
    for o in d.operands.iter_mut() {
        if o.is_def() && o.vreg_of() == Some(v) {
            o.set(oflag::DEAD, on);
        }
    }
}

/// Does the first access of `v` in `b` read the value from before the block?
fn reads_before_def(f: &Function, v: VReg, b: Block) -> bool {
    for i in f.layout.block_insts(b) {
        let d = &f.insts[i];
        let is_phi = d.is(Op::PHI);
        let mut reads = false;
        let mut defs = false;
        for o in &d.operands {
            if o.vreg_of() != Some(v) || o.has(oflag::DEBUG_USE) {
                continue;
            }
            if o.is_def() {
                defs = true;
                reads |= o.subreg.is_some() && !o.has(oflag::UNDEF);
            } else if !is_phi && !o.has(oflag::UNDEF) {
                reads = true;
            }
        }
        if reads {
            return true;
        }
        if defs {
            return false;
        }
    }
    false
}

/// Does a PHI at the top of `s` read `v` on the edge from `pred`?
fn phi_reads_from(f: &Function, v: VReg, s: Block, pred: Block) -> bool {
    for i in f.layout.block_insts(s) {
        let d = &f.insts[i];
        if !d.is(Op::PHI) {
            break;
        }
        for w in d.operands.windows(2) {
            if w[0].is_use()
                && w[0].vreg_of() == Some(v)
                && !w[0].has(oflag::UNDEF)
                && w[1].kind == OperandKind::Block(pred)
            {
                return true;
            }
        }
    }
    false
}

