//! Phase 13's structural-equivalence chain matcher (the spec's Algorithm A,
//! `sub_753600` and helpers) and its rewrite (`sub_753B50`): a redundant exit chain.
//!
//! ```text
//!  block b:    ...  T = [@p] exit            ◀─ entry guard: the block ends in class 95
//!  block b+1:  anchor (97)                   ◀─ the chain passes through the definition anchor
//!              q = setp ...   (single def, single use, intra-block)   ◀─ chain walker
//!              U = [@q] exit                 ◀─ pair detector: the next class-95 instruction
//!  compatible(T, U): both unguarded, or same guard polarity and  p == q  or
//!                    def(p) ≡ def(q) to depth 2 (same opcode, operands equal with the same
//!                    neg/abs modifiers, register sources equal or their own definitions
//!                    equal one level down; shuffles only when single-use)
//!  rewrite: U and its chain go — b+1 is reached only by falling out of T, where the
//!           same condition was already false (or T always left).
//! ```

use super::{ent, inst_regs, text};
use crate::ori::{Class, Function, InstId, OpKind, Operand, RegId};
use super::GoStats;
use crate::trace::{Focus, Recorder, Step};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// A matched redundant chain: the exit U of block `b + 1` and the chain feeding it.
#[derive(Debug)]
pub struct ChainMatch {
    pub block: usize,
    pub exit: InstId,
    pub chain: Vec<InstId>,
    pub by_dag: bool,
}

/// The same operand, read for the same value: a volatile special register (`%clock`)
/// read twice gives two values, so it is never the same as itself.
fn same_operand(a: &Operand, b: &Operand) -> bool {
    if let OpKind::Special(name) = &a.kind {
        if crate::ori::regs::is_volatile_special(name) {
            return false;
        }
    }
    a.kind == b.kind && a.neg == b.neg && a.abs == b.abs
}

/// Depth-limited sub-DAG equivalence (`sub_1245740`): the single definitions of `x` and
/// `y` compute the same value.
pub fn equivalent(f: &Function, x: RegId, y: RegId, depth: u32) -> bool {
    if x == y {
        return true;
    }
    if depth == 0 || f.regs[x].defs != 1 || f.regs[y].defs != 1 {
        return false;
    }
    let (Some(dx), Some(dy)) = (f.regs[x].def_anchor, f.regs[y].def_anchor) else {
        return false;
    };
    let (a, b) = (&f.insts[dx], &f.insts[dy]);
    if a.opcode != b.opcode
        || a.class != b.class
        || a.guard != b.guard
        || a.ndst != 1
        || b.ndst != 1
        || a.operands.len() != b.operands.len()
    {
        return false;
    }
    if a.class == Class::Shuffle {
        // The spec's shuffle case: both single-use.
        if f.regs[x].uses > 1 || f.regs[y].uses > 1 {
            return false;
        }
    } else if !super::is_pure(a) {
        return false;
    }
    a.srcs().iter().zip(b.srcs()).all(|(p, q)| {
        if same_operand(p, q) {
            // Register leaves must be single-def to hold the same value at both points.
            return match p.kind {
                OpKind::Reg(r) => f.regs[r].defs == 1,
                _ => true,
            };
        }
        match (&p.kind, &q.kind) {
            (OpKind::Reg(r), OpKind::Reg(s)) if p.neg == q.neg && p.abs == q.abs => {
                equivalent(f, *r, *s, depth - 1)
            }
            _ => false,
        }
    })
}

/// The blocks some instruction names as a target (block anchors, which name their own
/// block, aside). Read once per run of the phase, when the first candidate block asks,
/// so a function with many exit-ended blocks is walked once, not once per candidate.
/// The rewrite removes an exit without operands and pure instructions writing one
/// register, none of which names a block, so the set stays true for the whole phase.
#[derive(Debug, Default)]
pub struct Targets(Option<Vec<bool>>);

impl Targets {
    fn contains(&mut self, f: &Function, b: usize) -> bool {
        let marks = self.0.get_or_insert_with(|| {
            let mut marks = vec![false; f.blocks.len()];
            for (_, i) in f.layout() {
                let inst = &f.insts[i];
                if inst.class == Class::Anchor {
                    continue;
                }
                for o in &inst.operands {
                    if let OpKind::Block(t) = o.kind {
                        if let Some(m) = marks.get_mut(t as usize) {
                            *m = true;
                        }
                    }
                }
            }
            marks
        });
        marks.get(b).copied().unwrap_or(false)
    }
}

/// The matcher for block `b`.
pub fn find(f: &Function, b: usize, targets: &mut Targets) -> Option<ChainMatch> {
    let t = *f.blocks[b].insts.last()?;
    let ti = &f.insts[t];
    if ti.class != Class::Exit || b + 1 >= f.blocks.len() {
        return None;
    }
    let next = &f.blocks[b + 1];
    if f.insts[next.insts[0]].class != Class::Anchor || targets.contains(f, b + 1) {
        return None;
    }
    // Chain walker: single-def, single-use, intra-block, up to the first exit.
    let mut chain = Vec::new();
    let mut exit = None;
    for &i in &next.insts[1..] {
        let inst = &f.insts[i];
        if inst.class == Class::Exit {
            exit = Some(i);
            break;
        }
        if !super::is_pure(inst) || inst.ndst != 1 {
            return None;
        }
        let OpKind::Reg(d) = inst.operands[0].kind else {
            return None;
        };
        if f.regs[d].defs != 1 || f.regs[d].uses != 1 {
            return None;
        }
        chain.push(i);
    }
    let u = exit?;
    let ui = &f.insts[u];
    if ui.opcode != ti.opcode || !ui.operands.is_empty() || !ti.operands.is_empty() {
        return None;
    }
    // Every chain value must be used inside the chain or by U's guard.
    for &c in &chain {
        let OpKind::Reg(d) = f.insts[c].operands[0].kind else {
            return None;
        };
        let used_here = chain.iter().chain(core::iter::once(&u)).any(|&x| {
            inst_regs(&f.insts[x])
                .iter()
                .any(|&(r, def)| !def && r == d)
        });
        if !used_here {
            return None;
        }
    }
    let by_dag = match (ti.guard, ui.guard) {
        (None, None) => false,
        (Some((p, n)), Some((q, m))) if n == m => {
            if p == q {
                false
            } else {
                let pdef = f.regs[p].def_anchor?;
                if !f.blocks[b].insts.contains(&pdef) || !equivalent(f, p, q, 2) {
                    return None;
                }
                true
            }
        }
        _ => return None,
    };
    Some(ChainMatch {
        block: b + 1,
        exit: u,
        chain,
        by_dag,
    })
}

/// One round's detection on block `b` (`sub_753600`).
pub fn detect(
    f: &mut Function,
    b: usize,
    targets: &mut Targets,
    counters: &mut super::Counters,
) -> bool {
    let m = find(f, b, targets);
    counters.push(("exit_chains_matched", u64::from(m.is_some())));
    counters.push((
        "dag_equivalences",
        u64::from(m.as_ref().is_some_and(|m| m.by_dag)),
    ));
    m.is_some()
}

/// The rewrite (`sub_753B50`): the redundant exit and its chain leave block `b + 1`.
pub fn apply<R: Recorder>(
    f: &mut Function,
    b: usize,
    targets: &mut Targets,
    tally: &mut super::Tally,
    stats: &mut GoStats,
    rec: &mut R,
) {
    let Some(m) = find(f, b, targets) else {
        return;
    };
    let t = R::ENABLED.then(|| text(f, m.exit));
    tally.will_change(f, m.block);
    let blk = &mut f.blocks[m.block].insts;
    blk.retain(|i| *i != m.exit && !m.chain.contains(i));
    if let Some(t) = t {
        let n = m.chain.len();
        let how = if m.by_dag {
            "its guard's definition matches the first exit's at depth 2"
        } else {
            "its guard is the first exit's guard"
        };
        rec.ori_step(f, || {
            Step::new(
                "exit_chain",
                format!("Block {}: `{t}` repeats the exit that ends block {b} ({how}); it and its {n}-instruction chain are removed.", m.block),
            )
            .focus(Focus::Inst { inst: ent(m.exit) })
        });
    }
    crate::stats::bump(&mut stats.exits_removed, 1);
    stats.dead_removed += m.chain.len() as u64 + 1;
    tally.recount(f, m.block);
}
