//! **Downstream consumer of the marks** — not a GeneralOptimize sub-pass of the spec.
//!
//! The spec's phase 29 only marks operands (0x100 / 0x200 / 0x400) and leaves their use
//! to later passes (apply-changes, peepholes). This module is our stand-in for those
//! later passes, so the playground shows what a mark buys. It runs as Variant A's
//! apply-changes step between rounds:
//!
//! ```text
//!  1. replace uses   mov d, s marked 0x100: later uses of d in the block read s,
//!                    until d or s is written again (immediates only where PTX takes one)
//!  2. fold selects   selp d, a, b, p marked 0x100/0x200: a == b, or p known ─▶ mov d, a|b
//!  3. resolve guards @p I where p's compare is marked 0x400 and known ─▶ I, or I dropped
//!  4. drop dead      liveness-gated DCE of the block
//! ```
//!
//! Every rewrite keeps each thread's results; the tests run the ORI interpreter before
//! and after on random inputs.

use super::forward::{known_predicate, simplify_predicate};
use super::{dce_block, ent, text, Options, Seen, Tally};
use crate::ori::{flag, ty, BlockId, Class, Function, InstId, OpKind, Operand, Origin, RegId};
use crate::ptx::ast::Imm;
use super::GoStats;
use crate::trace::{Focus, Recorder, Step};
use alloc::format;

/// Whether source operand `k` of `i` may become an immediate in PTX.
fn takes_immediate(i: &crate::ori::Inst, k: usize, imm: &Imm) -> bool {
    let src = k - i.ndst as usize;
    let o = &i.operands[k];
    if o.neg || o.abs {
        return false;
    }
    let float_imm = matches!(imm, Imm::F32(_) | Imm::F64(_));
    if float_imm != (o.ty == ty::FLOAT) {
        return false;
    }
    match i.class {
        Class::IntAdd | Class::Logic | Class::MinMax | Class::IntMul | Class::SetPred => {
            !i.opcode.starts_with("mul.wide") || src == 1
        }
        Class::FloatAdd | Class::FloatMul | Class::FloatFma => true,
        Class::Select => src < 2,
        Class::Shift => src == 1,
        _ => false,
    }
}

/// Replaces register `d` by `s` in one operand; returns how many places changed.
fn replace_reg(o: &mut Operand, d: RegId, s: RegId) -> u32 {
    match &mut o.kind {
        OpKind::Reg(r) if *r == d => {
            *r = s;
            1
        }
        OpKind::Addr(a) => match &mut a.base {
            crate::ori::AddrBase::Reg(r) if *r == d => {
                *r = s;
                1
            }
            _ => 0,
        },
        OpKind::Not(a) => replace_reg(a, d, s),
        _ => 0,
    }
}

/// Whether [`replace_reg`] would change the operand.
fn reads_reg(o: &Operand, d: RegId) -> bool {
    match &o.kind {
        OpKind::Reg(r) => *r == d,
        OpKind::Addr(a) => matches!(a.base, crate::ori::AddrBase::Reg(r) if r == d),
        OpKind::Not(a) => reads_reg(a, d),
        _ => false,
    }
}

/// Announces a rewrite of block `b` before the first change of a step (`done` is how
/// many changes the step made so far): the tally must see the block as it was.
fn announce_first(tally: &mut Tally, f: &Function, b: BlockId, done: u64) {
    if done == 0 {
        tally.will_change(f, b);
    }
}

/// Step 1 for the move at position `k` of block `b`. Returns (uses replaced,
/// immediates substituted). The rewrite is announced to the tally before the first
/// operand changes, and not at all when none does.
fn propagate_move<R: Recorder>(
    f: &mut Function,
    b: BlockId,
    k: usize,
    tally: &mut Tally,
    rec: &mut R,
) -> (u64, u64) {
    let id = f.blocks[b].insts[k];
    let (d, src) = {
        let i = &f.insts[id];
        let OpKind::Reg(d) = i.operands[0].kind else {
            return (0, 0);
        };
        (d, i.operands[1].clone())
    };
    let (mut regs, mut imms) = (0u64, 0u64);
    for j in k + 1..f.blocks[b].insts.len() {
        let u = f.blocks[b].insts[j];
        let asm = !matches!(f.insts[u].origin, Origin::Ptx);
        // A source register declared in a `{ }` scope that does not enclose this use
        // (or shadowed there) cannot be named by it.
        let hidden = matches!(src.kind, OpKind::Reg(s) if !f.visible(s, f.insts[u].scope));
        if !asm && !hidden {
            let nd = f.insts[u].ndst as usize;
            for op in nd..f.insts[u].operands.len() {
                match &src.kind {
                    OpKind::Reg(s) if reads_reg(&f.insts[u].operands[op], d) => {
                        announce_first(tally, f, b, regs + imms);
                        f.touch_inst(u);
                        regs += u64::from(replace_reg(&mut f.insts[u].operands[op], d, *s));
                    }
                    OpKind::Imm(imm)
                        if f.insts[u].operands[op].kind == OpKind::Reg(d)
                            && takes_immediate(&f.insts[u], op, imm) =>
                    {
                        announce_first(tally, f, b, regs + imms);
                        f.touch_inst(u);
                        let o = &mut f.insts[u].operands[op];
                        o.kind = OpKind::Imm(*imm);
                        o.imm_constraint = src.imm_constraint;
                        imms += 1;
                    }
                    _ => {}
                }
            }
            if let (Some((g, n)), OpKind::Reg(s)) = (f.insts[u].guard, &src.kind) {
                if g == d {
                    announce_first(tally, f, b, regs + imms);
                    f.touch_inst(u);
                    f.insts[u].guard = Some((*s, n));
                    regs += 1;
                }
            }
        }
        // Stop where d or s is written again.
        let mut written = false;
        super::for_each_reg(&f.insts[u], |r, def| {
            written |= def && (r == d || src.kind == OpKind::Reg(r));
        });
        if written {
            break;
        }
    }
    if R::ENABLED && regs + imms > 0 {
        let t = text(f, id);
        super::ori_step(rec, f, || {
            Step::new(
                "replace_uses",
                format!("Consumer (downstream of the marks): `{t}` is marked 0x100, so {regs} later use(s) in block {b} read its source register and {imms} take its immediate."),
            )
            .focus(Focus::Inst { inst: ent(id) })
        });
    }
    (regs, imms)
}

/// Step 2: a select marked 0x100 that provably picks one source becomes a move. A
/// select marked only 0x201 (the conservative tier, `limit-fold-fp`) has its cleanup
/// deferred to a later pass, which we do not model: it stays a select.
fn fold_select<R: Recorder>(
    f: &mut Function,
    b: BlockId,
    id: InstId,
    tally: &mut Tally,
    rec: &mut R,
) -> bool {
    let i = &f.insts[id];
    if i.class != Class::Select
        || i.operands.len() != 4
        || i.operands[0].flags & flag::PROPAGATED == 0
    {
        return false;
    }
    let (a, c, p) = (&i.operands[1], &i.operands[2], &i.operands[3]);
    let equal = a.kind == c.kind && a.neg == c.neg && a.abs == c.abs;
    // `slct`'s third source is a number compared with zero, not a predicate: only
    // equal sources decide it here.
    let slct = i.opcode.starts_with("slct");
    let pick = if equal {
        Some(true)
    } else if slct {
        None
    } else if let OpKind::Reg(p) = p.kind {
        let (hit, _) = simplify_predicate(f, b, id, true);
        let (hit2, _) = simplify_predicate(f, b, id, false);
        if hit || hit2 {
            known_predicate(f, p)
        } else {
            None
        }
    } else {
        None
    };
    let Some(first) = pick else {
        return false;
    };
    let before = text(f, id);
    tally.will_change(f, b);
    f.touch_inst(id);
    let i = &mut f.insts[id];
    let chosen = if first {
        i.operands[1].clone()
    } else {
        i.operands[2].clone()
    };
    i.opcode = smol_str::format_smolstr!("mov.{}", select_type(&i.opcode));
    i.class = Class::Mov;
    i.operands.truncate(1);
    // The select's mark is consumed: the new move starts unmarked, for the next round.
    i.operands[0].flags = 0;
    i.operands.push(chosen);
    if R::ENABLED {
        let after = text(f, id);
        super::ori_step(rec, f, || {
            Step::new(
                "fold_select",
                if equal {
                    format!("Consumer: `{before}` picks the same source whatever the predicate, so it becomes `{after}`.")
                } else {
                    format!("Consumer: `{before}`'s predicate has a known value ({}), so it always picks its {} source and becomes `{after}`.", first, if first { "first" } else { "second" })
                },
            )
            .focus(Focus::Inst { inst: ent(id) })
        });
    }
    true
}

/// The type a select's result has: `selp.f32` → `f32`; `slct.ftz.f32.s32` → `f32`
/// (slct names its result type first, then the comparand's).
fn select_type(opcode: &str) -> &str {
    opcode
        .split('.')
        .skip(1)
        .find(|w| *w != "ftz")
        .unwrap_or("b32")
}

/// Step 3: a guard whose compare is marked 0x400 and known. Returns Some(true) to keep
/// the instruction unguarded, Some(false) to drop it.
fn resolve_guard(f: &Function, id: InstId) -> Option<bool> {
    let (g, neg) = f.insts[id].guard?;
    let def = f.regs[g].def_anchor?;
    let marked = f.insts[def]
        .operands
        .first()
        .is_some_and(|o| o.flags & flag::PROPAGATED_UNDER_PRED != 0);
    if !marked || !matches!(f.insts[id].origin, Origin::Ptx) {
        return None;
    }
    known_predicate(f, g).map(|v| v != neg)
}

/// Apply-changes for one block (phases 29 and 37, and the hooks), right after the
/// marking walk that filled `seen`.
pub fn apply_block<R: Recorder>(
    f: &mut Function,
    b: BlockId,
    _opts: &Options,
    tally: &mut Tally,
    seen: &Seen,
    stats: &mut GoStats,
    rec: &mut R,
) {
    tally.recount(f, b);
    // What the marking walk saw says which steps have anything to act on, so a large
    // block is not walked again for nothing.
    let (moves, selects, guards) = (seen.moves, seen.selects, seen.guards);
    // 1. Marked moves.
    let walk = |on: bool, f: &Function| if on { f.blocks[b].insts.len() } else { 1 };
    for k in 1..walk(moves, f) {
        let id = f.blocks[b].insts[k];
        let i = &f.insts[id];
        if i.class == Class::Mov
            && i.guard.is_none()
            && i.operands.len() == 2
            && i.operands[0].flags & flag::PROPAGATED != 0
            && matches!(i.operands[0].kind, OpKind::Reg(_))
            && !i.operands[1].neg
            && !i.operands[1].abs
        {
            let (r, m) = propagate_move(f, b, k, tally, rec);
            crate::stats::bump(&mut stats.uses_replaced, r);
            crate::stats::bump(&mut stats.immediates_substituted, m);
        }
    }
    tally.recount(f, b);
    // 2. Marked selects.
    for k in 1..walk(selects, f) {
        let id = f.blocks[b].insts[k];
        if fold_select(f, b, id, tally, rec) {
            crate::stats::bump(&mut stats.selects_folded, 1);
        }
    }
    // 3. Guards on known, 0x400-marked predicates.
    let mut k = 1;
    while guards && k < f.blocks[b].insts.len() {
        let id = f.blocks[b].insts[k];
        match resolve_guard(f, id) {
            Some(keep) => {
                tally.will_change(f, b);
                crate::stats::bump(&mut stats.guards_resolved, 1);
                let t = text(f, id);
                if keep {
                    f.touch_inst(id);
                    f.insts[id].guard = None;
                    k += 1;
                } else {
                    f.touch_block(b);
                    f.blocks[b].insts.remove(k);
                    stats.dead_removed += 1;
                }
                super::ori_step(rec, f, || {
                    Step::new(
                        "resolve_guard",
                        if keep {
                            format!("Consumer: the guard of `{t}` is a known-true predicate marked 0x400; the guard goes.")
                        } else {
                            format!("Consumer: the guard of `{t}` is a known-false predicate marked 0x400; the instruction never runs and goes.")
                        },
                    )
                    .focus(Focus::Inst { inst: ent(id) })
                });
            }
            None => k += 1,
        }
    }
    // 4. Dead code. Untraced, the walk is skipped when nothing was dead during the
    // marking walk and nothing changed since (a traced run always walks, and the tests
    // compare the two).
    if R::ENABLED || seen.dce_needed(tally) {
        dce_block(f, b, tally, stats, rec);
    }
    tally.recount(f, b);
}
