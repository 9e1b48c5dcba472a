//! tryInstructionTransform: ways to meet a single tie without a COPY, in the spec's
//! order — commute, three-address conversion (NVPTX has none), reschedule the
//! instruction below the source's kill, or the kill above the instruction; load
//! unfolding is named in the trace when LLVM would try it (NVPTX folds no loads).

use super::copies::copy_regs;
use super::tied::{kills, tied_def_index};
use super::TwoAddr;
use crate::mir::{flag, oflag, Block, Inst, Reg, VReg};
use crate::trace::{Focus, Recorder, Step, TieAttempt};
use alloc::format;
use alloc::vec::Vec;

/// getMappedReg: follows `map` from `reg`; the physical register it ends in, if any.
fn mapped_reg(map: &alloc::collections::BTreeMap<VReg, Reg>, reg: Reg) -> Option<Reg> {
    let mut r = reg;
    for _ in 0..=map.len() {
        match r {
            Reg::Virt(v) => r = *map.get(&v)?,
            Reg::Phys(_) => return Some(r),
            _ => return None,
        }
    }
    None
}

/// Where the per-block walk goes on after a transform made a tie's COPY unneeded: at
/// this instruction, or (None) past the block's last one.
pub(crate) struct Resume(pub Option<Inst>);

/// The two reschedules LLVM tries for a tie whose source dies later in the block.
#[derive(Copy, Clone)]
enum Reschedule {
    /// rescheduleMIBelowKill: sink the instruction below the source's kill.
    MiBelowKill,
    /// rescheduleKillAboveMI: hoist the kill above the instruction.
    KillAboveMi,
}

impl Reschedule {
    /// How an attempt is logged ([`TieAttempt`] prints the name).
    fn kill_above(self) -> bool {
        matches!(self, Reschedule::KillAboveMi)
    }
}

/// Where a reschedule works: the tied instruction `mi`, its source `reg`, and `reg`'s
/// kill later in the same `block`.
#[derive(Copy, Clone)]
struct KillSite {
    mi: Inst,
    reg: VReg,
    block: Block,
    kill: Inst,
}

/// How far rescheduling looks past the instruction (LLVM's fixed limit).
const RESCHEDULE_VISIT_LIMIT: usize = 10;

impl<R: Recorder> TwoAddr<'_, '_, R> {
    /// Returns `Some(resume)` when the tie no longer needs a COPY here (the walk goes on
    /// at `resume`), `None` when processTiedPairs must still run.
    pub(crate) fn try_instruction_transform(
        &mut self,
        mi: Inst,
        src_idx: usize,
        dst_idx: usize,
        dist: &mut u32,
    ) -> Option<Resume> {
        let mut attempts: Vec<TieAttempt> = Vec::new();
        if self.opts.optnone {
            attempts.push(TieAttempt::Optnone);
            self.attempts = Some((mi, attempts));
            return None;
        }
        let d = &self.ed.f.insts[mi];
        let reg_a = d.operands[dst_idx].get_reg()?;
        let Reg::Virt(reg_b) = d.operands[src_idx].get_reg()? else {
            return None;
        };
        let b_killed = self.is_killed(mi, reg_b, true);
        if let Reg::Virt(a) = reg_a {
            self.scan_uses(a);
        }
        // 1. Commute.
        let commuted =
            self.try_instruction_commute(mi, dst_idx, src_idx, b_killed, *dist, &mut attempts);
        if commuted {
            self.attempts = Some((mi, attempts));
            return None;
        }
        // 2. Three-address conversion.
        self.stats.three_address_attempts += 1;
        attempts.push(TieAttempt::ThreeAddress);
        self.step(|| {
            Step::new("three_address", "Three-address conversion is tried next, but every NVPTX instruction is already three-address: convertToThreeAddress returns nothing.")
                .focus(Focus::inst(mi))
        });
        // 3. Rescheduling.
        if self.opts.reschedule {
            for how in [Reschedule::MiBelowKill, Reschedule::KillAboveMi] {
                if let Some(resume) = self.reschedule(how, mi, reg_b, &mut attempts) {
                    return Some(resume);
                }
            }
        } else {
            attempts.push(TieAttempt::RescheduleOff);
        }
        // 4. Load unfolding: LLVM tries it for a loading instruction whose tied source
        // lives on; NVPTX's instruction info folds no loads, so there is nothing to
        // unfold (getOpcodeAfterMemoryUnfold gives no opcode).
        let loads = matches!(self.ed.f.insts[mi].opcode, crate::mir::Opcode::Known(_))
            && self.ed.f.insts[mi].desc().has(flag::MAY_LOAD);
        if !b_killed && loads {
            attempts.push(TieAttempt::LoadUnfolding);
            self.step(|| {
                Step::new("unfold_load", "The instruction reads memory and its tied source lives on, so LLVM would next try to unfold the load; NVPTX folds no loads into instructions, so there is nothing to unfold and a COPY follows.")
                    .focus(Focus::inst(mi))
            });
        }
        self.attempts = Some((mi, attempts));
        None
    }

    /// isKilled: `reg` dies at `mi`, looking through single-def copies to the original value.
    pub(crate) fn is_killed(&self, mi: Inst, mut reg: VReg, _allow_false_positives: bool) -> bool {
        let f = &*self.ed.f;
        let mut def_mi = mi;
        for _ in 0..=f.vreg_end {
            if !kills(f, def_mi, reg) {
                return false;
            }
            let Some(d) = self.du.unique_def(reg) else {
                return true;
            };
            def_mi = d;
            match copy_regs(f, def_mi) {
                Some((Reg::Virt(src), _)) => reg = src,
                _ => return true,
            }
        }
        true
    }

    fn try_instruction_commute(
        &mut self,
        mi: Inst,
        dst_idx: usize,
        base_idx: usize,
        mut base_killed: bool,
        dist: u32,
        attempts: &mut Vec<TieAttempt>,
    ) -> bool {
        let desc = self.ed.f.insts[mi].desc();
        let Some((c1, c2)) = desc.commutable else {
            attempts.push(TieAttempt::NotCommutable);
            return false;
        };
        let (c1, c2) = (c1 as usize, c2 as usize);
        let other_idx = if base_idx == c1 {
            c2
        } else if base_idx == c2 {
            c1
        } else {
            attempts.push(TieAttempt::NotCommutableOperand {
                base: base_idx as u32,
                c1: c1 as u32,
                c2: c2 as u32,
            });
            return false;
        };
        let d = &self.ed.f.insts[mi];
        let (Some(dst), Some(base), Some(Reg::Virt(other))) = (
            d.operands[dst_idx].get_reg(),
            d.operands[base_idx].get_reg(),
            d.operands.get(other_idx).and_then(|o| o.get_reg()),
        ) else {
            attempts.push(TieAttempt::OtherNotVirtual);
            return false;
        };
        self.commute_tried = Some(mi);
        let other_killed = self.is_killed(mi, other, false);
        let mut aggressive = false;
        let mut do_commute = !base_killed && other_killed;
        let mut profit_why = "";
        if !do_commute {
            if let Reg::Virt(b) = base {
                let (yes, why) = self.is_profitable_to_commute(dst, b, other, mi, dist);
                profit_why = why;
                if yes {
                    do_commute = true;
                    aggressive = true;
                }
            }
        }
        if !do_commute {
            // The tied source is virtual (try_instruction_transform stops otherwise).
            debug_assert!(matches!(base, Reg::Virt(_)));
            let base = match base {
                Reg::Virt(b) => cranelift_entity::EntityRef::index(b) as u32,
                _ => u32::MAX,
            };
            attempts.push(TieAttempt::NotProfitable {
                base,
                base_killed,
                other_killed,
                why: profit_why,
            });
            return false;
        }
        self.du.remove_inst(self.ed.f, mi);
        self.ed.modify(mi, |d| {
            let (a, b) = (d.operands[base_idx], d.operands[other_idx]);
            let keep = oflag::KILL | oflag::UNDEF;
            d.operands[base_idx].kind = b.kind;
            d.operands[base_idx].subreg = b.subreg;
            d.operands[base_idx].flags = (a.flags & !keep) | (b.flags & keep);
            d.operands[other_idx].kind = a.kind;
            d.operands[other_idx].subreg = a.subreg;
            d.operands[other_idx].flags = (b.flags & !keep) | (a.flags & keep);
        });
        self.du.add_inst(self.ed.f, mi);
        base_killed = other_killed;
        let _ = base_killed;
        self.stats.commuted += 1;
        let (on, bn) = (self.trace_name(Reg::Virt(other)), self.trace_name(base));
        let why = if aggressive {
            profit_why
        } else {
            "the other operand dies here while the tied one does not, so commuting makes the def and the dying value joinable"
        };
        attempts.push(TieAttempt::Commuted { why });
        let met = self.ed.f.insts[mi].operands[base_idx].get_reg() == Some(dst);
        self.step(|| {
            Step::new(
                "commute",
                format!(
                    "Commute: operands {base_idx} and {other_idx} swap, so the tied slot now holds {on} instead of {bn} — {why}.{}",
                    if met { " The tie is now met without any COPY." } else { "" }
                ),
            )
            .focus(Focus::inst(mi))
        });
        true
    }

    /// isProfitableToCommute (RegA = def, RegB = tied source, RegC = the other source):
    /// the verdict and why.
    fn is_profitable_to_commute(
        &self,
        reg_a: Reg,
        reg_b: VReg,
        reg_c: VReg,
        mi: Inst,
        dist: u32,
    ) -> (bool, &'static str) {
        if self.opts.optnone || !kills(self.ed.f, mi, reg_c) {
            return (false, "");
        }
        if self.opts.mechanisms.commute_preference {
            if let Some(v) = self.commute_preference(reg_a, reg_b, reg_c) {
                return v;
            }
        }
        let Some((c_ok, last_def_c)) = self.no_use_after_last_def(reg_c, dist) else {
            return (false, "");
        };
        if !c_ok {
            return (
                false,
                "the other source is read between its last def and here",
            );
        }
        let Some((b_ok, last_def_b)) = self.no_use_after_last_def(reg_b, dist) else {
            return (false, "");
        };
        if !b_ok {
            return (
                true,
                "the tied source is read between its last def and here, the other is not",
            );
        }
        if let Reg::Virt(a) = reg_a {
            let limit = self.opts.dataflow_edge_limit;
            if self.is_rev_copy_chain(reg_c, a, limit) {
                return (true, "the def flows back into the other source through a copy chain within the dataflow-edge limit");
            }
            if self.is_rev_copy_chain(reg_b, a, limit) {
                return (false, "the def flows back into the tied source through a copy chain within the dataflow-edge limit");
            }
        }
        if last_def_b != 0 && last_def_c != 0 && last_def_c > last_def_b {
            (
                true,
                "the other source is defined later in the block, so its live range is shorter",
            )
        } else {
            (false, "")
        }
    }

    /// The SrcRegMap / DstRegMap test of isProfitableToCommute: where the def will be
    /// copied to (a physical register reached through DstRegMap) against where each
    /// source came from (through SrcRegMap). Some(verdict) when it decides.
    fn commute_preference(
        &self,
        reg_a: Reg,
        reg_b: VReg,
        reg_c: VReg,
    ) -> Option<(bool, &'static str)> {
        let to_a = mapped_reg(&self.dst_reg_map, reg_a)?;
        let from_b = mapped_reg(&self.src_reg_map, Reg::Virt(reg_b));
        let from_c = mapped_reg(&self.src_reg_map, Reg::Virt(reg_c));
        let (comp_b, comp_c) = (from_b == Some(to_a), from_c == Some(to_a));
        if (from_b.is_none() && comp_c)
            || (from_b.is_some() && !comp_b && (from_c.is_none() || comp_c))
        {
            return Some((true, "DstRegMap sends the def to the physical register SrcRegMap says the other source came from (and the tied source did not)"));
        }
        if (from_c.is_none() && comp_b)
            || (from_c.is_some() && !comp_c && (from_b.is_none() || comp_b))
        {
            return Some((false, "DstRegMap sends the def to the physical register the tied source came from (SrcRegMap)"));
        }
        None
    }

    /// noUseAfterLastDef: (no use of `reg` between its last def and `dist`, last def).
    fn no_use_after_last_def(&self, reg: VReg, dist: u32) -> Option<(bool, u32)> {
        let mut last_def = 0;
        let mut last_use = dist;
        for &i in &self.du.uses[reg] {
            let d = self.dist[i];
            if d != 0 && d < last_use {
                last_use = d;
            }
        }
        for &i in &self.du.defs[reg] {
            let d = self.dist[i];
            if d != 0 && d > last_def {
                last_def = d;
            }
        }
        Some((!(last_use > last_def && last_use < dist), last_def))
    }

    /// isRevCopyChain: `to` reaches `from` through at most `limit` COPYs (the
    /// `dataflow-edge-limit` knob bounds this walk).
    fn is_rev_copy_chain(&self, from: VReg, to: VReg, limit: u32) -> bool {
        let mut tmp = from;
        for _ in 0..limit {
            let Some(def) = self.du.unique_def(tmp) else {
                return false;
            };
            let d = &self.ed.f.insts[def];
            if !d.is_copy() {
                return false;
            }
            match d.operands.get(1).and_then(|o| o.vreg_of()) {
                Some(n) => tmp = n,
                None => return false,
            }
            if tmp == to {
                return true;
            }
        }
        false
    }

    fn is_safe_to_move(&self, i: Inst) -> bool {
        let d = &self.ed.f.insts[i];
        let desc = d.desc();
        if desc.has(flag::MAY_STORE | flag::SIDE_EFFECTS | flag::TERMINATOR | flag::CONVERGENT)
            || d.is(crate::mir::Op::PHI)
        {
            return false;
        }
        if desc.has(flag::MAY_LOAD) {
            // Only loads of memory nobody writes may move past other instructions.
            return d
                .mem
                .is_some_and(|m| self.ed.f.sym(m).contains("invariant"));
        }
        true
    }

    fn is_two_addr_use(&self, i: Inst, reg: VReg) -> bool {
        let d = &self.ed.f.insts[i];
        d.operands
            .iter()
            .enumerate()
            .any(|(k, o)| o.is_use() && o.vreg_of() == Some(reg) && tied_def_index(d, k).is_some())
    }

    fn blocks_motion(&self, i: Inst) -> bool {
        let desc = self.ed.f.insts[i].desc();
        desc.has(flag::SIDE_EFFECTS | flag::TERMINATOR | flag::BRANCH)
    }

    /// The kill of `reg` in `mi`'s block (LiveVariables' findKill), when it is another,
    /// non-copy instruction: both rescheduling directions start from it.
    fn local_kill(&self, mi: Inst, reg: VReg) -> Result<(crate::mir::Block, Inst), &'static str> {
        let f = &*self.ed.f;
        let block = f
            .layout
            .inst_block(mi)
            .ok_or("the instruction is not placed")?;
        let kill = self
            .lv_find_kill(reg, block)
            .ok_or("no kill of the source in this block")?;
        if kill == mi || f.insts[kill].is_copy() || copy_regs(f, kill).is_some() {
            return Err(
                "the kill is this instruction or a copy (copies are left to the coalescer)",
            );
        }
        Ok((block, kill))
    }

    /// Tries one way of rescheduling `mi` around `reg`'s kill in the same block; on
    /// success `mi` is the kill of `reg`, and LiveVariables says so. Each attempt and
    /// its outcome go to `attempts`.
    fn reschedule(
        &mut self,
        how: Reschedule,
        mi: Inst,
        reg: VReg,
        attempts: &mut Vec<TieAttempt>,
    ) -> Option<Resume> {
        let moved = self.local_kill(mi, reg).and_then(|(block, kill)| {
            let at = KillSite {
                mi,
                reg,
                block,
                kill,
            };
            let resume = match how {
                Reschedule::MiBelowKill => self.sink_mi_below_kill(at)?,
                Reschedule::KillAboveMi => self.hoist_kill_above_mi(at)?,
            };
            Ok((kill, resume))
        });
        let (kill, resume) = match moved {
            Ok(x) => x,
            Err(why) => {
                attempts.push(TieAttempt::RescheduleFailed {
                    kill_above: how.kill_above(),
                    why,
                });
                return None;
            }
        };
        self.dist[mi] = 0;
        self.lv_remove_kill(reg, kill);
        self.lv_add_kill(reg, mi);
        self.stats.rescheduled += 1;
        attempts.push(TieAttempt::Rescheduled {
            kill_above: how.kill_above(),
        });
        let rn = self.trace_name(Reg::Virt(reg));
        self.step(|| match how {
            Reschedule::MiBelowKill => Step::new(
                "reschedule_below_kill",
                format!("Reschedule: this instruction sinks below the last use of {rn}, so {rn} now dies here and the tie's COPY can later be coalesced away. It will be visited again at its new place."),
            )
            .focus(Focus::inst(mi))
            .focus(Focus::inst(kill)),
            Reschedule::KillAboveMi => Step::new(
                "reschedule_kill_above",
                format!("Reschedule: the last use of {rn} moves above this instruction, so {rn} dies here instead; the moved instruction is processed next."),
            )
            .focus(Focus::inst(kill))
            .focus(Focus::inst(mi)),
        });
        Some(resume)
    }

    /// One instruction the moved code would pass: within the visit limit (`visited`
    /// counts it) and free of side effects and branches.
    fn may_pass(&self, o: Inst, visited: &mut usize) -> Result<(), &'static str> {
        *visited += 1;
        if *visited > RESCHEDULE_VISIT_LIMIT + 1 {
            return Err("the kill is too far away (more than 10 instructions)");
        }
        if self.blocks_motion(o) {
            return Err("an instruction in between has side effects or is a branch");
        }
        Ok(())
    }

    /// rescheduleMIBelowKill: when `reg`'s kill is a later instruction in this block,
    /// sink `mi` (and the COPYs fed by it) just below that kill, so `mi` becomes the kill.
    fn sink_mi_below_kill(&mut self, at: KillSite) -> Result<Resume, &'static str> {
        let KillSite { mi, reg, block, kill } = at;
        let f = &*self.ed.f;
        if self.blocks_motion(kill) || self.is_two_addr_use(kill, reg) || !self.is_safe_to_move(mi)
        {
            return Err("the kill or this instruction cannot move");
        }
        let d = &f.insts[mi];
        let mut defs: Vec<Reg> = d
            .operands
            .iter()
            .filter(|o| o.is_def())
            .filter_map(|o| o.get_reg())
            .collect();
        let uses: Vec<Reg> = d
            .operands
            .iter()
            .filter(|o| o.is_use())
            .filter_map(|o| o.get_reg())
            .collect();
        let kills_v: Vec<Reg> = d
            .operands
            .iter()
            .filter(|o| o.is_use() && o.has(oflag::KILL) && o.vreg_of() != Some(reg))
            .filter_map(|o| o.get_reg())
            .collect();
        // Copies right after `mi` that read its defs move along.
        let mut group = alloc::vec![mi];
        let mut end = f.layout.next_inst(mi);
        while let Some(e) = end {
            let ed = &f.insts[e];
            if ed.is_copy()
                && ed
                    .operands
                    .get(1)
                    .and_then(|o| o.get_reg())
                    .is_some_and(|r| defs.contains(&r))
            {
                if let Some(r) = ed.operands[0].get_reg() {
                    defs.push(r);
                }
                group.push(e);
                end = f.layout.next_inst(e);
            } else {
                break;
            }
        }
        // Everything between the group and the kill (inclusive) must not depend on it.
        let mut visited = 0;
        let mut cur = end;
        loop {
            let Some(o) = cur else {
                return Err("the kill is not below this instruction");
            };
            self.may_pass(o, &mut visited)?;
            for op in &f.insts[o].operands {
                let Some(r) = op.get_reg() else { continue };
                if op.is_def() {
                    if uses.contains(&r) || (!op.has(oflag::DEAD) && defs.contains(&r)) {
                        return Err("an instruction in between redefines a register this one uses or defines");
                    }
                } else {
                    if defs.contains(&r) {
                        return Err("an instruction in between reads this instruction's result");
                    }
                    let is_kill = op.has(oflag::KILL);
                    if Some(r) != Some(Reg::Virt(reg))
                        && ((is_kill && uses.contains(&r)) || kills_v.contains(&r))
                    {
                        return Err("moving would stretch another live range");
                    }
                    if r == Reg::Virt(reg) && !is_kill {
                        return Err("the source is read in between without dying");
                    }
                }
            }
            if o == kill {
                break;
            }
            cur = f.layout.next_inst(o);
        }
        let after_kill = f.layout.next_inst(kill);
        for &g in &group {
            self.ed.move_inst(g, block, after_kill);
        }
        Ok(Resume(end))
    }

    /// rescheduleKillAboveMI: hoist `reg`'s later kill above `mi` when nothing in between
    /// depends on it; the hoisted instruction is processed next.
    fn hoist_kill_above_mi(&mut self, at: KillSite) -> Result<Resume, &'static str> {
        let KillSite { mi, reg, block, kill } = at;
        let f = &*self.ed.f;
        if self.is_two_addr_use(kill, reg) || !self.is_safe_to_move(kill) {
            return Err("the kill cannot move");
        }
        let my_dist = self.dist[mi];
        let mut uses: Vec<Reg> = Vec::new();
        let mut kills_v: Vec<Reg> = Vec::new();
        for op in &f.insts[kill].operands {
            let Some(r) = op.get_reg() else { continue };
            if op.is_use() {
                if let Reg::Virt(v) = r {
                    // isDefTooClose: a def of this operand at or below `mi` pins the kill.
                    for &def in &self.du.defs[v] {
                        if f.layout.inst_block(def) == Some(block)
                            && !f.insts[def].is_copy()
                            && (def == mi || self.dist[def] == 0 || self.dist[def] >= my_dist)
                        {
                            return Err("an operand of the kill is defined too close");
                        }
                    }
                }
                if r == Reg::Virt(reg) && !op.has(oflag::KILL) {
                    return Err("the kill does not actually kill the source");
                }
                uses.push(r);
                if op.has(oflag::KILL) && r != Reg::Virt(reg) {
                    kills_v.push(r);
                }
            }
        }
        let mut visited = 0;
        let mut cur = Some(mi);
        while let Some(o) = cur {
            if o == kill {
                break;
            }
            self.may_pass(o, &mut visited)?;
            for op in &f.insts[o].operands {
                let Some(r) = op.get_reg() else { continue };
                if op.is_use() {
                    if kills_v.contains(&r) {
                        return Err("moving would stretch another live range");
                    }
                    if o != mi && r == Reg::Virt(reg) && !op.has(oflag::KILL) {
                        return Err("the source is read in between");
                    }
                } else if uses.contains(&r) {
                    return Err("an instruction in between redefines an operand of the kill");
                }
            }
            cur = f.layout.next_inst(o);
        }
        if cur.is_none() {
            return Err("the kill is not below this instruction");
        }
        self.ed.move_inst(kill, block, Some(mi));
        Ok(Resume(Some(kill)))
    }
}
