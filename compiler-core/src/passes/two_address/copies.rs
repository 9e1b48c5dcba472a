//! Copy bookkeeping: the physical-register point-to maps (SrcRegMap / DstRegMap, which
//! steer commuting) and the copy-equivalence classes the coalescers can read.

use super::TwoAddr;
use crate::mir::{Function, Inst, Op, Reg, VReg};
pub use crate::passes::copy_classes::CopyClasses;
use crate::passes::uses::DefUse;
use crate::trace::Recorder;
use alloc::vec::Vec;

/// The source and destination of a copy-like instruction (COPY, INSERT_SUBREG,
/// SUBREG_TO_REG), as LLVM's isCopyToReg reads them.
pub fn copy_regs(f: &Function, i: Inst) -> Option<(Reg, Reg)> {
    let d = &f.insts[i];
    let (dst, src) = if d.is(Op::COPY) {
        (d.operands.first()?, d.operands.get(1)?)
    } else if d.is(Op::INSERT_SUBREG) || d.is(Op::SUBREG_TO_REG) {
        (d.operands.first()?, d.operands.get(2)?)
    } else {
        return None;
    };
    Some((src.get_reg()?, dst.get_reg()?))
}

/// collectRegCopies: from `start`, follow registers with one use whose def is a COPY,
/// REG_SEQUENCE or INSERT_SUBREG back to their source; returns the chain, nearest first.
pub fn collect_reg_copies(f: &Function, du: &DefUse, start: VReg) -> Vec<VReg> {
    let mut chain = Vec::new();
    let mut reg = start;
    while du.has_one_use(reg) && chain.len() <= f.vreg_end as usize {
        let Some(def) = du.unique_def(reg) else { break };
        let d = &f.insts[def];
        if !(d.is(Op::COPY) || d.is(Op::REG_SEQUENCE) || d.is(Op::INSERT_SUBREG)) {
            break;
        }
        let Some(next) = d.operands.get(1).and_then(|o| o.vreg_of()) else {
            break;
        };
        chain.push(reg);
        if next == start || chain.contains(&next) {
            break;
        }
        reg = next;
    }
    chain.push(reg);
    chain
}

impl<R: Recorder> TwoAddr<'_, '_, R> {
    /// processCopy: records where a copy-like instruction's registers may end up.
    pub(crate) fn process_copy(&mut self, mi: Inst) {
        if self.processed[mi] {
            return;
        }
        let Some((src, dst)) = copy_regs(self.ed.f, mi) else {
            return;
        };
        match (src, dst) {
            (Reg::Virt(s), Reg::Phys(_)) => {
                self.dst_reg_map.entry(s).or_insert(dst);
            }
            (Reg::Phys(_), Reg::Virt(d)) => {
                self.src_reg_map.entry(d).or_insert(src);
                self.scan_uses(d);
            }
            (Reg::Virt(s), Reg::Virt(d)) => {
                let _ = self.record_copy_class(s, d);
            }
            _ => {}
        }
        self.mark_processed(mi);
    }

    /// `src`'s value now lives on in `dst`: SrcEqClassMap / DstEqClassMap record the
    /// pair, and collectRegCopies follows the single-use COPY chain that produced `src`,
    /// so every register of it maps straight to `dst` (the block's maps and the
    /// function-wide ones handed to the coalescers). Returns narration naming the
    /// registers the chain added (empty when none, or when not tracing).
    pub(crate) fn record_copy_class(&mut self, src: VReg, dst: VReg) -> alloc::string::String {
        let mut chain = alloc::vec![dst];
        chain.extend(collect_reg_copies(self.ed.f, &self.du, src));
        self.block_classes.record(src, dst);
        self.classes.record(src, dst);
        self.block_classes.record_chain(&chain);
        self.classes.record_chain(&chain);
        if !R::ENABLED || chain.len() <= 2 {
            return alloc::string::String::new();
        }
        let names: Vec<_> = chain[2..]
            .iter()
            .map(|&v| self.reg_name(Reg::Virt(v)))
            .collect();
        alloc::format!(
            " (collectRegCopies: {} reached {} through single-use COPYs, so SrcEqClassMap maps {} straight to {} too)",
            self.reg_name(Reg::Virt(src)),
            names.join(", "),
            names.join(", "),
            self.reg_name(Reg::Virt(dst))
        )
    }

    /// scanUses: follows `dst`'s only interesting uses (copies and two-address uses in
    /// this block) and maps each register on the way to where the value goes.
    pub(crate) fn scan_uses(&mut self, dst: VReg) {
        let mut pairs: Vec<Reg> = Vec::new();
        let mut reg = dst;
        let mut guard = 0;
        while let Some((use_mi, new_reg, is_copy)) = self.find_only_interesting_use(reg) {
            guard += 1;
            if guard > 64 {
                break;
            }
            if is_copy && self.processed[use_mi] {
                break;
            }
            if is_copy {
                self.mark_processed(use_mi);
            }
            if self.dist[use_mi] != 0 {
                break; // earlier in this block: reached through a back edge
            }
            match new_reg {
                Reg::Virt(n) => {
                    self.src_reg_map.insert(n, Reg::Virt(reg));
                    pairs.push(Reg::Virt(n));
                    reg = n;
                }
                // A copy into a physical register ends the walk, and the chain maps to
                // it (LLVM's scanUses: IsDstPhys).
                p @ Reg::Phys(_) => {
                    pairs.push(p);
                    break;
                }
                _ => break,
            }
        }
        if let Some(mut to) = pairs.pop() {
            while let Some(from) = pairs.pop() {
                let Reg::Virt(fv) = from else { break };
                self.dst_reg_map.entry(fv).or_insert(to);
                to = from;
            }
            self.dst_reg_map.entry(dst).or_insert(to);
        }
    }

    /// The last killing use of `reg` if all its uses are in this block and that use is a
    /// copy or a two-address use: (instruction, register it flows into, is a copy).
    fn find_only_interesting_use(&self, reg: VReg) -> Option<(Inst, Reg, bool)> {
        let f = &*self.ed.f;
        let block = self.du.defs[reg]
            .first()
            .and_then(|&d| f.layout.inst_block(d))?;
        let mut use_mi = None;
        for &u in &self.du.uses[reg] {
            if f.layout.inst_block(u) != Some(block) {
                return None;
            }
            if super::tied::kills(f, u, reg) {
                use_mi = Some(u);
            }
        }
        let u = use_mi?;
        if let Some((_, d)) = copy_regs(f, u) {
            return Some((u, d, true));
        }
        let d = &f.insts[u];
        for (idx, op) in d.operands.iter().enumerate() {
            if op.is_use() && op.vreg_of() == Some(reg) {
                if let Some(t) = super::tied::tied_def_index(d, idx) {
                    return Some((u, d.operands[t].get_reg()?, false));
                }
            }
        }
        None
    }
}
