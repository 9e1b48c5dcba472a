//! The NVPTX extension: one EXTRACT_SUBREG carrying N def/use pairs (a texture fetch's
//! four lanes, an MMA's fragments) becomes N COPYs, in pair order, each with its
//! LiveVariables chain, an optimization remark, and — when the emitter set both hint
//! bits on a later pair's def — the secondary tie flag on the COPY's def.
//!
//! Our text form prints the defs first (`%10, %11 = EXTRACT_SUBREG %9.sub0, %9.sub1`):
//! def `i` pairs with use `i`. LLVM's single-pair form (`%1 = EXTRACT_SUBREG %0, %subreg.sub1`)
//! is read as one pair.

use super::TwoAddr;
use crate::entity::EntityRef;
use crate::mir::{oflag, Inst, InstData, Op, Opcode, Operand, OperandKind, Reg, SubReg};
use crate::trace::{Focus, Payload, Recorder, Step};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// One pair: the def operand and the use operand (with the sub-register to read).
struct Pair {
    def: Operand,
    src: Operand,
}

fn pairs_of(d: &InstData) -> Vec<Pair> {
    let defs = d.lhs_defs as usize;
    let uses = &d.operands[defs..];
    // LLVM's own form: one def, a register and a `%subreg.` index.
    if defs == 1 && uses.len() == 2 {
        if let (true, OperandKind::SubRegIdx(s)) = (uses[0].is_reg(), uses[1].kind) {
            let mut src = uses[0];
            src.subreg = Some(s);
            return vec![Pair {
                def: d.operands[0],
                src,
            }];
        }
    }
    d.operands[..defs]
        .iter()
        .zip(uses)
        .map(|(&def, &src)| Pair { def, src })
        .collect()
}

/// A register's number for the payload: a virtual register's index, a physical one's
/// number with the top bit set (as LLVM tells them apart).
fn reg_number(r: Reg) -> u32 {
    match r {
        Reg::Virt(v) => v.index() as u32,
        Reg::Phys(p) => 0x8000_0000 | p.index() as u32,
        Reg::NoReg => u32::MAX,
    }
}

/// Pairs the pass cannot lower: (pair index, operand index, what is wrong). Each pair
/// must define a register from a register; the pipeline refuses anything else with
/// line:column before two-address runs.
pub fn bad_pairs(d: &InstData) -> Vec<(usize, usize, &'static str)> {
    let defs = d.lhs_defs as usize;
    let mut out = Vec::new();
    if defs == 1 && d.operands.len() == 3 && matches!(d.operands[2].kind, OperandKind::SubRegIdx(_))
    {
        if !d.operands[1].is_reg() {
            out.push((0, 1, "its source is not a register"));
        }
        return out;
    }
    for k in 0..defs {
        if !d.operands[k].is_reg() {
            out.push((k, k, "its def is not a register"));
        }
        match d.operands.get(defs + k) {
            Some(u) if u.is_reg() => {}
            Some(_) => out.push((k, defs + k, "its source is not a register (an immediate or other operand: there is nothing to COPY from)")),
            None => out.push((k, k, "it has no source operand")),
        }
    }
    out
}

impl<R: Recorder> TwoAddr<'_, '_, R> {
    pub(crate) fn decompose_extract_subreg(&mut self, mi: Inst) {
        let block = self.ed.f.layout.inst_block(mi).expect("placed");
        let data = self.ed.f.insts[mi].clone();
        let pairs = pairs_of(&data);
        let n = pairs.len() as u32;
        self.stats.extract_subreg_pseudos += 1;
        self.step(|| {
            Step::new(
                "extract_subreg_start",
                format!("An EXTRACT_SUBREG with {n} def/use pairs: it is split into {n} COPYs, one per pair, in order."),
            )
            .focus(Focus::inst(mi))
        });
        self.du.remove_inst(self.ed.f, mi);
        // Registers the pseudo killed; the kill lands on the last COPY reading each.
        let killed: alloc::vec::Vec<_> = pairs
            .iter()
            .filter(|p| p.src.has(oflag::KILL))
            .filter_map(|p| p.src.vreg_of())
            .collect();
        for (k, pair) in pairs.iter().enumerate() {
            let kk = k;
            let k = k as u32;
            // A physical-register def keeps its register; the pipeline refuses a pair
            // whose def or source is not a register before the pass runs
            // (`unsupported_input`), so here both are registers.
            let Some(dst) = pair.def.get_reg().filter(|r| *r != Reg::NoReg) else {
                continue;
            };
            if !pair.src.is_reg() {
                continue;
            }
            let src = pair.src.vreg_of().filter(|_| !pair.src.has(oflag::UNDEF));
            let hint_tied = pair.def.has(oflag::HINT_TIED);
            let hint_early = pair.def.has(oflag::HINT_EARLY_TIED);
            // The earlyTied rule: not the first pair, and both hint bits on the def.
            let tie_marked = self.opts.mechanisms.early_tied && k > 0 && hint_tied && hint_early;
            let mut def = Operand::reg(dst, oflag::DEF);
            def.subreg = pair.def.subreg;
            if tie_marked {
                def.flags |= oflag::TIED2;
                self.stats.early_tied_hints += 1;
            }
            let mut use_op = pair.src;
            let src_reg = pair.src.get_reg();
            let last_reader = !pairs[kk + 1..].iter().any(|p| p.src.get_reg() == src_reg);
            let src_killed = last_reader && src.is_some_and(|s| killed.contains(&s));
            use_op.flags &= oflag::UNDEF;
            use_op.set(oflag::KILL, src_killed);
            use_op.tied_def = None;
            let mut copy = InstData::new(Opcode::Known(Op::COPY), vec![def, use_op]);
            copy.lhs_defs = 1;
            let c = self.ed.insert_before(mi, copy);
            self.du.add_inst(self.ed.f, c);
            // Only this COPY's chain goes into its payload.
            self.lv_clear_log();
            let lvn = self.lv_copy_chain(mi, c, dst, src, block, src_killed);
            self.stats.extract_subreg_copies += 1;
            self.stats.remarks += 1;
            let lane = pair.src.subreg.and_then(SubReg::lane);
            let remark = format!(
                "two-address: EXTRACT_SUBREG pair {} of {} lowered to a COPY into {}",
                k + 1,
                n,
                self.reg_name(dst)
            );
            self.rec.remark(remark);
            let lv_steps = self.lv_take_log();
            let (dn, sn) = (
                self.trace_name(dst),
                self.trace_name(pair.src.get_reg().unwrap_or(Reg::NoReg)),
            );
            self.step(|| {
                let lane_txt = lane.map_or(alloc::string::String::new(), |l| format!(" lane sub{l} of"));
                let tie_txt = if tie_marked {
                    " Both hint bits are set on this later pair's def, so the COPY's def is marked tied: the coalescer reads that as a direct hint."
                } else if k > 0 && (hint_tied || hint_early) {
                    " Only one of the two hint bits is set, so no tie mark."
                } else {
                    ""
                };
                let kill_txt = if src_killed { format!(" {sn} dies here now, so its kill moves from the pseudo to this COPY.") } else { alloc::string::String::new() };
                let mut s = Step::new(
                    "extract_subreg_copy",
                    format!("Pair {} of {n}: {dn} takes{lane_txt} {sn} through a new COPY.{tie_txt}{kill_txt}", k + 1),
                )
                .focus(Focus::inst(c));
                if let Reg::Virt(v) = dst {
                    s = s.focus(Focus::vreg(v));
                }
                s.payload(Payload::ExtractSubregPair {
                    pseudo: mi.index() as u32,
                    pair: small(k),
                    pairs: small(n),
                    def: reg_number(dst),
                    src: reg_number(pair.src.get_reg().unwrap_or(Reg::NoReg)),
                    lane,
                    hint_tied,
                    hint_early_tied: hint_early,
                    tie_marked,
                    kill_moved: src_killed,
                    lv_updates: small(lvn),
                    lv_steps,
                })
            });
        }
        self.ed.erase(mi);
        self.step(|| {
            Step::new(
                "extract_subreg_erase",
                format!("All {n} pairs are COPYs now; the EXTRACT_SUBREG pseudo is erased."),
            )
            .focus(Focus::inst(mi))
        });
    }
}

/// A count a pair's payload keeps in 16 bits (a pseudo's pairs, one chain's updates:
/// a few each), saturated rather than wrapped if one ever were larger.
fn small(n: u32) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}
