//! deSSA (`usedessa`): the alternative out-of-SSA method the spec names next to CSSA
//! coalescing (register-coalescing-cicc.txt, "CSSA Coalescing" knob table). Ours is the
//! LLVM-family method with parallel copies: each edge into a PHI block carries one
//! parallel copy `(d1, d2, ...) := (a1, a2, ...)` of all the block's PHIs, written
//! straight into the PHI defs at the end of the predecessor, one sequential COPY at a
//! time (the sequentialization of Boissinot et al.: a copy goes once its destination is
//! no longer read by a pending one; a cycle is broken through one fresh register).
//!
//! ```text
//!  for each block B with PHIs:
//!     legal on every incoming edge P ─▶ B?   (no PHI def live out of P, no PHI def read
//!                                             or written by P's terminators)
//!       no  ─▶ B's PHIs stay for PHI elimination (LLVM's LowerPHINode)   dessa_block_kept
//!       yes ─▶ per edge: sequentialize the parallel copy before P's first terminator,
//!              erase B's PHIs                                           dessa_parallel_copy
//! ```
//!
//! The legality rule is the lost-copy guard: writing a PHI def at the end of P is only
//! right when nothing after P but B's PHI wants the def's old value. Where it holds,
//! no intermediate register is made and no copy is left at B's top, so the coalescers
//! start from fewer copies than after LowerPHINode.

use crate::entity::EntityRef;
use crate::liveness::LiveVariables;
use crate::mir::{oflag, Block, Function, Inst, InstData, Op, Opcode, Operand, Reg, VReg};
use crate::passes::phi_elim::phi_pairs;
use crate::passes::phi_elim::PhiElimStats;
use crate::stats::bump;
use crate::trace::{narration_reg, Editor, Focus, Recorder, Step};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One PHI: its def and its incoming register per predecessor (None: undefined).
struct Phi {
    inst: Inst,
    def: VReg,
    incoming: Vec<(Block, Option<VReg>)>,
}

/// Lowers every PHI block it can; leaves the others to PHI elimination.
pub fn run<R: Recorder>(f: &mut Function, rec: &mut R, stats: &mut PhiElimStats) {
    let lv = LiveVariables::compute(f);
    let preds = f.predecessors();
    let blocks: Vec<Block> = f.layout.blocks().collect();
    let mut ed = Editor::new(f, R::ENABLED);
    for b in blocks {
        let phis = block_phis(ed.f, b);
        if phis.is_empty() {
            continue;
        }
        if let Some(why) = illegal::<R>(ed.f, &lv, &preds[b], &phis) {
            bump(&mut stats.dessa_blocks_kept, 1);
            rec.step(|| {
                Step::new(
                    "dessa_block_kept",
                    format!(
                        "deSSA leaves the PHIs of %bb.{} to PHI elimination: {why}.",
                        b.index()
                    ),
                )
                .focus(Focus::inst(phis[0].inst))
            });
            continue;
        }
        let mut ps = preds[b].clone();
        crate::sort::sort_by_key(&mut ps, |p| p.index() as u128);
        ps.dedup();
        for &p in &ps {
            let pc: Vec<(VReg, VReg)> = phis
                .iter()
                .filter_map(|phi| {
                    let src = phi.incoming.iter().find(|(q, _)| *q == p)?.1?;
                    (src != phi.def).then_some((phi.def, src))
                })
                .collect();
            let text = sequentialize(&mut ed, p, pc, stats);
            let edits = ed.take_edits();
            rec.step(|| {
                let mut s = Step::new("dessa_parallel_copy", format!("deSSA: the edge %bb.{} → %bb.{} carries the parallel copy of its PHIs, written into the PHI registers before %bb.{}'s terminators as {text}.", p.index(), b.index(), p.index()));
                s.edits = edits.into();
                s
            });
        }
        for phi in &phis {
            ed.erase(phi.inst);
            bump(&mut stats.dessa_phis_lowered, 1);
        }
        let edits = ed.take_edits();
        let n = phis.len();
        rec.step(|| {
            let mut s = Step::new("dessa_phis_erased", format!("deSSA: the {n} PHI(s) of %bb.{} are erased; every edge now defines their registers itself.", b.index()));
            s.edits = edits.into();
            s
        });
    }
}

fn block_phis(f: &Function, b: Block) -> Vec<Phi> {
    f.layout
        .block_insts(b)
        .take_while(|&i| f.insts[i].is(Op::PHI))
        .filter_map(|i| {
            let d = &f.insts[i];
            let def = d.operands.first()?.vreg_of()?;
            let incoming = phi_pairs(d)
                .map(|(v, p)| {
                    (
                        p,
                        if v.has(oflag::UNDEF) {
                            None
                        } else {
                            v.vreg_of()
                        },
                    )
                })
                .collect();
            Some(Phi {
                inst: i,
                def,
                incoming,
            })
        })
        .collect()
}

/// Why direct copies on some edge into the block would be wrong, if they would.
fn illegal<R: Recorder>(
    f: &Function,
    lv: &LiveVariables,
    preds: &[Block],
    phis: &[Phi],
) -> Option<String> {
    for phi in phis {
        if phi
            .incoming
            .iter()
            .any(|(_, v)| v.is_some_and(|v| f.vreg_class(v) != f.vreg_class(phi.def)))
        {
            return Some(format!(
                "an incoming register of {} is in another class",
                narration_reg::<R>(f, Reg::Virt(phi.def))
            ));
        }
        for &p in preds {
            let b = f.layout.inst_block(phi.inst)?;
            for &(succ, _) in &f.blocks[p].succs {
                let other_phi_reads = succ != b && phi_reads(f, phi.def, succ, p);
                if lv.is_live_in(f, phi.def, succ) || other_phi_reads {
                    return Some(format!("{} is still wanted after %bb.{} on the way to %bb.{}, so writing it there would lose its value (the lost-copy problem)", narration_reg::<R>(f, Reg::Virt(phi.def)), p.index(), succ.index()));
                }
            }
            let Some(t) = f.first_terminator(p) else {
                continue;
            };
            let mut at = Some(t);
            while let Some(i) = at {
                if f.insts[i]
                    .operands
                    .iter()
                    .any(|o| o.vreg_of() == Some(phi.def))
                {
                    return Some(format!(
                        "a terminator of %bb.{} names {}",
                        p.index(),
                        narration_reg::<R>(f, Reg::Virt(phi.def))
                    ));
                }
                at = f.layout.next_inst(i);
            }
        }
    }
    None
}

/// Does a PHI at the top of `s` read `v` on the edge from `p`?
fn phi_reads(f: &Function, v: VReg, s: Block, p: Block) -> bool {
    f.layout
        .block_insts(s)
        .take_while(|&i| f.insts[i].is(Op::PHI))
        .any(|i| phi_pairs(&f.insts[i]).any(|(o, q)| q == p && o.vreg_of() == Some(v)))
}

/// Emits the parallel copy `pc` (dst, src) before `p`'s first terminator, one COPY at a
/// time; returns the sequence as text for the narration.
fn sequentialize(
    ed: &mut Editor<'_>,
    p: Block,
    mut pc: Vec<(VReg, VReg)>,
    stats: &mut PhiElimStats,
) -> String {
    let mut seq: Vec<(VReg, VReg)> = Vec::new();
    while !pc.is_empty() {
        let ready = pc
            .iter()
            .position(|&(d, _)| !pc.iter().any(|&(_, s)| s == d));
        let k = match ready {
            Some(k) => k,
            None => {
                // Every destination is still read: a cycle. Save one destination's old
                // value in a fresh register and read it from there.
                let d = pc[0].0;
                let t = ed.new_vreg(ed.f.vreg_class(d));
                emit(ed, p, t, d);
                seq.push((t, d));
                bump(&mut stats.dessa_cycle_temps, 1);
                for e in pc.iter_mut().filter(|e| e.1 == d) {
                    e.1 = t;
                }
                continue;
            }
        };
        let (d, s) = pc.remove(k);
        emit(ed, p, d, s);
        seq.push((d, s));
    }
    bump(&mut stats.dessa_copies, seq.len() as u64);
    let mut text = String::new();
    for (k, (d, s)) in seq.iter().enumerate() {
        let sep = if k == 0 { "" } else { "; " };
        text.push_str(&format!("{sep}%{} = COPY %{}", d.index(), s.index()));
    }
    if text.is_empty() {
        text.push_str("nothing (every PHI reads its own register)");
    }
    text
}

fn emit(ed: &mut Editor<'_>, p: Block, d: VReg, s: VReg) {
    let at = ed.f.first_terminator(p);
    let mut data = InstData::new(
        Opcode::Known(Op::COPY),
        alloc::vec![Operand::vreg(d, oflag::DEF), Operand::vreg(s, 0)],
    );
    data.lhs_defs = 1;
    ed.insert_at(p, at, data);
}
