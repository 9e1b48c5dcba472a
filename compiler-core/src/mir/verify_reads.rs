//! The verifier's read-before-def rule: every read of a virtual register (or of one
//! lane of a tuple register) that a def-free path from the entry block reaches.
//!
//! ```text
//!  Function ──Accesses::collect──▶ per unit (vreg, or one tuple lane): InstEffects
//!     ──Solver::solve──▶ LIVE_IN blocks ──walk from the entry through them, stopping
//!     at a def──▶ [UndefinedRead { vreg, lane?, inst }]
//! ```
//!
//! It uses the same access tables and live-in solver as the liveness analyses, so the
//! rule and LiveVariables agree on what reads and what defines a register.

use super::accesses::LIVE_IN;
use super::accesses::{class_lanes, inst_effects, simple_effects, Accesses, Solver, ALL_LANES};
use super::bitset::BlockSet;
use super::cfg::Cfg;
use super::{Function, Inst, VReg};
use alloc::vec::Vec;

/// A read of a virtual register (or of one lane of a tuple register) that some path
/// from the entry reaches before any def of it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct UndefinedRead {
    pub vreg: VReg,
    /// The lane, for a `%t.subK` read of a tuple register.
    pub lane: Option<u8>,
    pub inst: Inst,
}

/// Every read that a def-free path from the entry block reaches: the register is live
/// into the entry there. For tuple registers, as LLVM's verifier has it, a `%t.subK`
/// read needs lane K written on every path, and a whole-register read needs some lane
/// written (lanes left `undef`, as REG_SEQUENCE allows, may be read as part of the
/// whole). PHI incoming values are not reported (dominance covers them in SSA; after
/// PHI elimination there are none).
pub fn undefined_reads(f: &Function) -> Vec<UndefinedRead> {
    let cfg = Cfg::new(f);
    let acc = Accesses::collect(f);
    let mut solver = Solver::new(&cfg);
    let mut effects = Vec::new();
    let mut out = Vec::new();
    let Some(entry) = f.layout.entry_block() else {
        return out;
    };
    let mut seen = BlockSet::new();
    let mut work = Vec::new();
    let mut preds = Vec::new();
    for v in f.vreg_list() {
        let class = f.vreg_class(v);
        let all = class_lanes(class);
        let lanes = match class {
            Some(crate::mir::RegClass::Tuple { lanes, .. }) => lanes.min(64),
            _ => 0,
        };
        preds.clear();
        preds.extend(acc.phi_uses_of(v).iter().map(|p| p.pred));
        // Units: the whole register, then (tuples) each lane.
        for unit in 0..=lanes {
            let lane = unit.checked_sub(1);
            match (lanes, lane) {
                (0, _) => inst_effects(acc.of(v), ALL_LANES, all, &mut effects, None),
                (_, None) => {
                    simple_effects(acc.of(v), |a| a.lanes == ALL_LANES, |_| true, &mut effects)
                }
                (_, Some(l)) => simple_effects(
                    acc.of(v),
                    |a| a.lanes == 1 << l,
                    |a| a.lanes & (1 << l) != 0,
                    &mut effects,
                ),
            }
            solver.solve(&cfg, &effects, &preds);
            if solver.flags(entry) & LIVE_IN == 0 {
                continue;
            }
            // Walk forward from the entry through blocks the unit is live into,
            // stopping after blocks that define it.
            seen.clear();
            work.clear();
            work.push(entry);
            seen.insert(entry);
            while let Some(b) = work.pop() {
                let start = effects
                    .partition_point(|e| cfg.layout_position(e.block) < cfg.layout_position(b));
                let mut defined = false;
                for e in effects[start..].iter().take_while(|e| e.block == b) {
                    if e.reads {
                        out.push(UndefinedRead {
                            vreg: v,
                            lane,
                            inst: e.inst,
                        });
                    }
                    if e.defs {
                        defined = true;
                        break;
                    }
                }
                if defined {
                    continue;
                }
                for &s in cfg.succs(b) {
                    if solver.flags(s) & LIVE_IN != 0 && seen.insert(s) {
                        work.push(s);
                    }
                }
            }
        }
    }
    // A lane-less read sorts before lane 0 (None < Some), hence the shift by one.
    crate::sort::sort_by_key(&mut out, |r| {
        let lane = r.lane.map_or(0, |l| u32::from(l) + 1);
        crate::sort::key4(r.inst.as_u32(), r.vreg.as_u32(), lane, 0)
    });
    out.dedup();
    out
}
