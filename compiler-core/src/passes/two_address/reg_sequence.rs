//! REG_SEQUENCE and INSERT_SUBREG lowering.
//!
//! `%d = REG_SEQUENCE %a, %subreg.sub0, %b, %subreg.sub1` becomes
//! `undef %d.sub0 = COPY %a` and `%d.sub1 = COPY %b` (undef sources need no COPY; a
//! kill moves to the last COPY reading that source). Once its tie is met,
//! `%d = INSERT_SUBREG %d, %x, %subreg.subK` becomes `%d.subK = COPY %x`.

use super::TwoAddr;
use crate::mir::{oflag, Inst, InstData, Op, Opcode, Operand, OperandKind};
use crate::trace::{Focus, Recorder, Step};
use alloc::format;
use alloc::vec;

impl<R: Recorder> TwoAddr<'_, '_, R> {
    pub(crate) fn eliminate_reg_sequence(&mut self, mi: Inst) {
        let data = self.ed.f.insts[mi].clone();
        let Some(dst) = data.operands.first().and_then(|o| o.vreg_of()) else {
            return;
        };
        self.du.remove_inst(self.ed.f, mi);
        let mut uses: alloc::vec::Vec<Operand> =
            data.operands[1..].iter().step_by(2).copied().collect();
        let idxs: alloc::vec::Vec<Option<crate::mir::SubReg>> = data.operands[1..]
            .iter()
            .skip(1)
            .step_by(2)
            .map(|o| o.kind.subreg_idx())
            .collect();
        let mut first = true;
        let mut copies = 0u32;
        let mut last_copy = None;
        for k in 0..uses.len().min(idxs.len()) {
            let u = uses[k];
            if u.has(oflag::UNDEF) && self.opts.mechanisms.reg_sequence_undef_lanes {
                continue;
            }
            let mut is_kill = u.has(oflag::KILL);
            if is_kill {
                // Defer the kill to the last operand reading the same register.
                if let Some(later) = (k + 1..uses.len()).find(|&j| uses[j].get_reg() == u.get_reg())
                {
                    uses[later].set(oflag::KILL, true);
                    uses[k].set(oflag::KILL, false);
                    is_kill = false;
                }
            }
            let mut def = Operand::vreg(dst, oflag::DEF);
            def.subreg = idxs[k];
            if first {
                def.flags |= oflag::UNDEF;
            }
            let mut src = uses[k];
            src.tied_def = None;
            src.flags &= oflag::KILL | oflag::UNDEF;
            let mut copy = InstData::new(Opcode::Known(Op::COPY), vec![def, src]);
            copy.lhs_defs = 1;
            let c = self.ed.insert_before(mi, copy);
            self.du.add_inst(self.ed.f, c);
            self.lv_add_def(dst, c);
            last_copy = Some(c);
            if let (true, Some(v)) = (is_kill, src.vreg_of()) {
                self.lv_replace_kill(v, mi, c);
            }
            if let Some(s) = src.vreg_of() {
                let _ = self.record_copy_class(s, dst);
            }
            first = false;
            copies += 1;
        }
        if copies == 0 {
            // Every source was undef: the result is simply undefined.
            self.ed.modify(mi, |d| {
                d.opcode = Opcode::Known(Op::IMPLICIT_DEF);
                d.operands.truncate(1);
            });
            self.du.add_inst(self.ed.f, mi);
        } else {
            // The pseudo's def is gone; a dead one's kill goes to the last COPY.
            if let Some(c) = last_copy {
                self.lv_drop_def(dst, mi, c);
            }
            self.ed.erase(mi);
        }
        self.stats.reg_sequence_eliminated += 1;
        let dn = self.trace_name(crate::mir::Reg::Virt(dst));
        self.step(|| {
            Step::new(
                "reg_sequence",
                if copies == 0 {
                    format!("REG_SEQUENCE into {dn} has only undef sources: it becomes an IMPLICIT_DEF.")
                } else {
                    format!("REG_SEQUENCE into {dn} becomes {copies} sub-register COPYs; the first is marked undef because nothing of {dn} is live before it.")
                },
            )
            .focus(Focus::vreg(dst))
        });
    }

    pub(crate) fn rewrite_insert_subreg(&mut self, mi: Inst) {
        let d = &self.ed.f.insts[mi];
        if d.operands.len() < 4 {
            return;
        }
        let OperandKind::SubRegIdx(idx) = d.operands[3].kind else {
            return;
        };
        self.du.remove_inst(self.ed.f, mi);
        self.ed.modify(mi, |d| {
            let undef = d.operands[1].has(oflag::UNDEF);
            d.operands[0].subreg = Some(idx);
            d.operands[0].set(oflag::UNDEF, undef);
            d.operands.remove(3);
            d.operands.remove(1);
            d.opcode = Opcode::Known(Op::COPY);
            d.lhs_defs = 1;
        });
        self.du.add_inst(self.ed.f, mi);
        self.stats.insert_subreg_rewritten += 1;
        self.step(|| {
            Step::new(
                "insert_subreg",
                "The tie of this INSERT_SUBREG is met, so it is now a plain sub-register COPY: the index moves onto the def, operands 3 and 1 are removed, and the def is undef when the inserted-into value was.",
            )
            .focus(Focus::inst(mi))
        });
    }
}
