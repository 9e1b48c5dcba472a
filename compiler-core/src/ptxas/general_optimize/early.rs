//! Phase 13's structural-equivalence chain matcher (the spec's Algorithm A,
//! `sub_753600` and helpers) and its rewrite (`sub_753B50`): a redundant exit chain.
//!
//! ```text
//!  block b:    ...  T = [@p] exit            ◀─ entry guard: the block ends in class 95
//!  block b+1:  anchor (97)                   ◀─ the chain passes through the definition anchor
//!              q = setp ...   (single def, single use, intra-block)   ◀─ chain walker
//!              U = [@q] exit                 ◀─ first pair: the next class-95 instruction
//!  block b+2:  anchor; chain'; V = [@r] exit ◀─ second pair, only when b+1 held just
//!                                               anchor, chain, U (a bare link once U goes)
//!  compatible(T, U): both unguarded, or same guard polarity and  p == q  or
//!                    def(p) ≡ def(q) to depth 2 (same opcode, operands equal with the same
//!                    neg/abs modifiers, register sources equal or their own definitions
//!                    equal one level down; shuffles only when single-use; secondary chain
//!                    matcher: a leaf may step back over one plain register copy)
//!  rewrite: U and its chain go — b+1 is reached only by falling out of T, where the
//!           same condition was already false (or T always left); likewise V.
//! ```
//!
//! The spec's "opcode 93" chain-link marker has no ORI counterpart and the spec gives
//! no operand rule for it: a gap we fill ([`opcode_93_classes`]). The second pair and
//! the copy step are our readings of `sub_753570` and `sub_753E30`
//! (docs/general-optimize.md, "Phase 13"). Narrations label all three.

use super::{ent, inst_regs, text};
use crate::entity::EntityRef;
use crate::ori::{BlockId, Class, Function, InstId, OpKind, Operand, RegId};
use crate::trace::GoCounterName;
use super::{GoStats, Options};
use crate::trace::{Focus, Recorder, Step};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// The ORI classes that stand for the spec's opcode 93 (`sub_753520`'s gate: the
/// chain walk must end at an opcode-93 instruction, "OUT_FINAL", which the spec reads
/// as an internal chain-link marker, whose use chain is empty). The spec names no
/// PTX or ORI form of opcode 93 and no operand rule for it, so this is a gap we fill:
/// our reading is the class-95 exit, which the gate then takes only without operands
/// (so no value of it can be used: its use chain is empty) and repeating the first
/// exit's opcode. With [`Options::opcode_93_reading`] off the map is empty: no chain
/// ever ends at an opcode-93 instruction and phase 13 removes nothing.
pub fn opcode_93_classes(opts: &Options) -> &'static [Class] {
    if opts.opcode_93_reading {
        &[Class::Exit]
    } else {
        &[]
    }
}

/// The narration's label of the opcode-93 gap.
const OPCODE_93_LABEL: &str = "the chain ends at an exit, our reading of the spec's opcode-93 chain-link marker (a gap we fill)";

/// One matched link: the redundant exit of `block` and the chain feeding it.
#[derive(Debug)]
pub struct Link {
    pub block: BlockId,
    pub exit: InstId,
    pub chain: Vec<InstId>,
    pub by_dag: bool,
    /// The depth-2 match needed the secondary chain matcher's step over a copy.
    pub through_copy: bool,
}

/// A match: the first pair's link (block `b + 1`) and, from the second pair
/// detection, the link one block further on.
#[derive(Debug)]
pub struct ChainMatch {
    pub first: Link,
    pub second: Option<Link>,
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

/// The secondary chain matcher's step back over a renaming boundary (`sub_753E30`,
/// our reading): a single-def `r` written by a plain unguarded register copy
/// `mov r, x` of a single-def `x` names the same value as `x`.
fn copy_source(f: &Function, r: RegId) -> RegId {
    if f.regs[r].defs != 1 {
        return r;
    }
    let Some(d) = f.regs[r].def_anchor else {
        return r;
    };
    let i = &f.insts[d];
    if i.class != Class::Mov || i.guard.is_some() || i.ndst != 1 || i.srcs().len() != 1 {
        return r;
    }
    let s = &i.srcs()[0];
    match s.kind {
        OpKind::Reg(x) if !s.neg && !s.abs && f.regs[x].defs == 1 => x,
        _ => r,
    }
}

/// `x` and `y` meet at the same register once each steps back over at most one copy:
/// the secondary chain "loops back to the primary entry".
fn same_through_copy(f: &Function, x: RegId, y: RegId) -> bool {
    let (a, b) = (copy_source(f, x), copy_source(f, y));
    (a != x || b != y) && (a == b || a == y || b == x)
}

/// Depth-limited sub-DAG equivalence (`sub_1245740`): the single definitions of `x` and
/// `y` compute the same value.
/// With `renaming` (the secondary chain matcher) a register leaf may also match
/// through one copy on either side ([`same_through_copy`]).
pub fn equivalent(f: &Function, x: RegId, y: RegId, depth: u32, renaming: bool) -> bool {
    if x == y || (renaming && same_through_copy(f, x, y)) {
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
                equivalent(f, *r, *s, depth - 1, renaming)
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
    fn contains(&mut self, f: &Function, b: BlockId) -> bool {
        let marks = self.0.get_or_insert_with(|| {
            let mut marks = vec![false; f.blocks.len()];
            for (_, i) in f.layout() {
                let inst = &f.insts[i];
                if inst.class == Class::Anchor {
                    continue;
                }
                for o in &inst.operands {
                    if let OpKind::Block(t) = o.kind {
                        if let Some(m) = marks.get_mut(t.index()) {
                            *m = true;
                        }
                    }
                }
            }
            marks
        });
        marks.get(b.index()).copied().unwrap_or(false)
    }
}

/// The matcher for block `b`: the first pair (`sub_753520`) is the exit `T` ending `b`
/// and the first exit of `b + 1`; the second pair detection (`sub_753570`) follows the
/// chain one block further when `b + 1` holds nothing but that link, so that removing
/// it leaves a bare anchor falling through to `b + 2`.
pub fn find(f: &Function, b: BlockId, opts: &Options, targets: &mut Targets) -> Option<ChainMatch> {
    let t = *f.blocks[b].insts.last()?;
    if f.insts[t].class != Class::Exit {
        return None;
    }
    let after = |n: usize| BlockId::new(b.index() + n);
    let first = link(f, b, t, after(1), opts, targets)?;
    let bare = f.blocks[first.block].insts.len() == first.chain.len() + 2
        && f.blocks[first.block].insts.last() == Some(&first.exit);
    let second = (opts.pair_detection && bare)
        .then(|| link(f, b, t, after(2), opts, targets))
        .flatten();
    Some(ChainMatch { first, second })
}

/// One link: block `nb`, entered only by falling through towards it from `b` (whose
/// last instruction is the exit `t`), starts with its anchor, a chain of single-def
/// single-use pure instructions, and an exit `U` that repeats `t`.
fn link(
    f: &Function,
    b: BlockId,
    t: InstId,
    nb: BlockId,
    opts: &Options,
    targets: &mut Targets,
) -> Option<Link> {
    let ti = &f.insts[t];
    let next = f.blocks.get(nb)?;
    if f.insts[next.insts[0]].class != Class::Anchor || targets.contains(f, nb) {
        return None;
    }
    // Chain walker: single-def, single-use, intra-block, up to the first instruction
    // of an opcode-93 class (the gate).
    let marker = opcode_93_classes(opts);
    let mut chain = Vec::new();
    let mut exit = None;
    for &i in &next.insts[1..] {
        let inst = &f.insts[i];
        if marker.contains(&inst.class) {
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
    let mut through_copy = false;
    let by_dag = match (ti.guard, ui.guard) {
        (None, None) => false,
        (Some((p, n)), Some((q, m))) if n == m => {
            if p == q {
                false
            } else {
                let pdef = f.regs[p].def_anchor?;
                if !f.blocks[b].insts.contains(&pdef)
                    || !equivalent(f, p, q, 2, opts.secondary_chain)
                {
                    return None;
                }
                through_copy = !equivalent(f, p, q, 2, false);
                true
            }
        }
        _ => return None,
    };
    Some(Link {
        block: nb,
        exit: u,
        chain,
        by_dag,
        through_copy,
    })
}

/// One round's detection on block `b` (`sub_753600`).
pub fn detect(
    f: &mut Function,
    b: BlockId,
    opts: &Options,
    targets: &mut Targets,
    counters: &mut super::Counters,
) -> bool {
    let m = find(f, b, opts, targets);
    let links: Vec<&Link> = m.iter().flat_map(|m| core::iter::once(&m.first).chain(&m.second)).collect();
    counters.push((
        GoCounterName::ExitChainsMatched,
        super::block_count(links.len()),
    ));
    counters.push((
        GoCounterName::DagEquivalences,
        super::block_count(links.iter().filter(|l| l.by_dag).count()),
    ));
    m.is_some()
}

/// The rewrite (`sub_753B50`): the redundant exit and its chain leave block `b + 1`,
/// and, when the second pair detection found one, the next link's leave `b + 2`.
pub fn apply<R: Recorder>(
    f: &mut Function,
    b: BlockId,
    opts: &Options,
    targets: &mut Targets,
    tally: &mut super::Tally,
    stats: &mut GoStats,
    rec: &mut R,
) {
    let Some(m) = find(f, b, opts, targets) else {
        return;
    };
    remove_link(f, b, &m.first, false, tally, stats, rec);
    if let Some(l) = &m.second {
        remove_link(f, b, l, true, tally, stats, rec);
    }
}

fn remove_link<R: Recorder>(
    f: &mut Function,
    b: BlockId,
    l: &Link,
    second: bool,
    tally: &mut super::Tally,
    stats: &mut GoStats,
    rec: &mut R,
) {
    let t = R::ENABLED.then(|| text(f, l.exit));
    tally.will_change(f, l.block);
    f.touch_block(l.block);
    f.blocks[l.block].insts.retain(|i| *i != l.exit && !l.chain.contains(i));
    if let Some(t) = t {
        let n = l.chain.len();
        let how = if l.through_copy {
            "its guard's definition matches the first exit's at depth 2 once a register copy is looked through: the secondary chain matcher, our reading of the spec's sub_753E30"
        } else if l.by_dag {
            "its guard's definition matches the first exit's at depth 2"
        } else {
            "its guard is the first exit's guard"
        };
        let via = if second {
            format!(" Second pair (our reading of the spec's sub_753570): block {} held only the first redundant exit and its chain, so it is a bare link and block {} is reached only through it.", l.block.index() - 1, l.block.index())
        } else {
            alloc::string::String::new()
        };
        super::ori_step(rec, f, || {
            Step::new(
                "exit_chain",
                format!("Block {}: `{t}` repeats the exit that ends block {b} ({how}; {OPCODE_93_LABEL}); it and its {n}-instruction chain are removed.{via}", l.block),
            )
            .focus(Focus::Inst { inst: ent(l.exit) })
        });
    }
    crate::stats::bump(&mut stats.exits_removed, 1);
    stats.dead_removed += l.chain.len() as u64 + 1;
    tally.recount(f, l.block);
}
