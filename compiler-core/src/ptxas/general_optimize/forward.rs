//! Phase 29's forward walk (the spec's Algorithm B, `sub_908EB0`): per block, in order,
//!
//! ```text
//!  class 97 anchor  ─▶ reset the copy-tracking flag (v10), the block is the definition context (v11)
//!  class 18 setp    ─▶ eligible? ─▶ v10 = false; arch marks predicates (v21)? ─▶ dst |= 0x400
//!  class 124 selp   ─▶ eligible? ─▶ tier 0: dst |= 0x100
//!                                   tier ≠ 0, integer: arch predicate? ─▶ dst = (dst & ~0x20F) | 0x201
//!                                   tier ≠ 0, float: predicate simplifier forward, then backward
//!                                        (its answer traced), then dst = (dst & ~0x20F) | 0x201
//!                                        — the spec's "How Fold Results Are Consumed": under
//!                                        `limit-fold-fp` a float fold is deferred, never made here
//!  class 139 mov    ─▶ (our reading of the fold table's "register move: propagated") ─▶ dst |= 0x100
//!  anything else    ─▶ if !v10: v10 = liveness(instr) has live uses
//! ```
//!
//! The eligibility checker ([`is_eligible`], `sub_8F2E50`) is the spec's: type nibble 10
//! never; a set-predicate needs nibble 0, no 0x400 yet, register sources without
//! constraint bits; a select needs no 0x100 yet, no modifier bits (& 0x70), an integer
//! or float destination, and on SM > 20479 none of the 0x1C00 constraint bits.

use super::{mark, Counters, Options, Seen};
use crate::ori::{self, constraint, flag, ty, BlockId, Class, Function, InstId, OpKind, Origin};
use crate::ptx::ast::Imm;
use super::GoStats;
use crate::trace::{GoCounterName, Recorder, Step};
use alloc::format;
use alloc::vec::Vec;

/// The destination's type nibble as the checker reads it: predicates are untyped (0).
pub fn dst_nibble(f: &Function, i: &ori::Inst) -> u8 {
    match i.operands.first().map(|o| (&o.kind, o.ty)) {
        Some((OpKind::Reg(r), t)) => {
            if f.regs[*r].is_pred() {
                ty::UNTYPED
            } else {
                t
            }
        }
        Some((_, t)) => t,
        None => ty::VECTOR,
    }
}

/// The per-register constraint lookup (`sub_91D150`): 0 when nothing blocks folding.
pub fn reg_constraint(f: &Function, o: &ori::Operand) -> Option<u32> {
    match o.kind {
        OpKind::Reg(r) => Some(f.regs[r].constraint),
        _ => None,
    }
}

/// The fold-eligibility checker (`sub_8F2E50`) for classes 18 and 124, and our
/// register-move rule for class 139.
/// Why the fold-eligibility checker refused an instruction (each variant one test of
/// `sub_8F2E50` or of our move rule).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ineligible {
    /// No plain destination.
    NoPlainDestination,
    /// The destination is not a single predicate.
    NotSinglePredicate,
    /// Type nibble 10 is never foldable.
    VectorNibble,
    /// The destination's type nibble is not 0.
    NibbleNotZero,
    /// Already marked 0x400.
    AlreadyMarked400,
    /// Not a two-source compare.
    NotTwoSources,
    /// A source register carries constraint bits.
    SourceConstrained,
    /// A source is not a register.
    SourceNotRegister,
    /// Already propagated (0x100).
    AlreadyPropagated,
    /// Modifier bits (& 0x70) are set.
    ModifierBits,
    /// The destination type is neither integer (1) nor float (2).
    NeitherIntNorFloat,
    /// SM > 20479 and the 0x1C00 constraint bits are set.
    SmConstraintBits,
    /// The destination is not a register.
    DestNotRegister,
    /// A guarded move defines its destination conditionally.
    GuardedMove,
    /// The destination is constrained or defined more than once.
    DestConstrained,
    /// No source.
    NoSource,
    /// Modifier bits on the source.
    SourceModifiers,
    /// The source register is constrained or of another type.
    SourceOtherType,
    /// The source is neither a register nor an immediate.
    SourceNotRegOrImm,
    /// Not a class the checker handles.
    OtherClass,
}

/// The reason in words.
impl core::fmt::Display for Ineligible {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Ineligible::NoPlainDestination => "no plain destination",
            Ineligible::NotSinglePredicate => "the destination is not a single predicate",
            Ineligible::VectorNibble => "type nibble 10 is never foldable",
            Ineligible::NibbleNotZero => "the destination's type nibble is not 0",
            Ineligible::AlreadyMarked400 => "already marked 0x400",
            Ineligible::NotTwoSources => "not a two-source compare",
            Ineligible::SourceConstrained => "a source register carries constraint bits",
            Ineligible::SourceNotRegister => "a source is not a register",
            Ineligible::AlreadyPropagated => "already propagated (0x100)",
            Ineligible::ModifierBits => "modifier bits (& 0x70) are set",
            Ineligible::NeitherIntNorFloat => "the destination type is neither integer (1) nor float (2)",
            Ineligible::SmConstraintBits => "SM > 20479 and the 0x1C00 constraint bits are set",
            Ineligible::DestNotRegister => "the destination is not a register",
            Ineligible::GuardedMove => "a guarded move defines its destination conditionally",
            Ineligible::DestConstrained => "the destination is constrained or defined more than once",
            Ineligible::NoSource => "no source",
            Ineligible::SourceModifiers => "modifier bits on the source",
            Ineligible::SourceOtherType => "the source register is constrained or of another type",
            Ineligible::SourceNotRegOrImm => "the source is neither a register nor an immediate",
            Ineligible::OtherClass => "not a class the checker handles",
        })
    }
}

pub fn is_eligible(f: &Function, id: InstId, opts: &Options) -> Result<(), Ineligible> {
    let i = &f.insts[id];
    if i.operands.is_empty() || !matches!(i.origin, Origin::Ptx) {
        return Err(Ineligible::NoPlainDestination);
    }
    let dst = &i.operands[0];
    match i.class {
        Class::SetPred => {
            if i.ndst != 1 || !matches!(dst.kind, OpKind::Reg(_)) {
                return Err(Ineligible::NotSinglePredicate);
            }
            let n = dst_nibble(f, i);
            if n == ty::VECTOR {
                return Err(Ineligible::VectorNibble);
            }
            if n != 0 {
                return Err(Ineligible::NibbleNotZero);
            }
            if dst.flags & flag::PROPAGATED_UNDER_PRED != 0 {
                return Err(Ineligible::AlreadyMarked400);
            }
            let srcs = i.srcs();
            if srcs.len() != 2 {
                return Err(Ineligible::NotTwoSources);
            }
            for s in srcs {
                match reg_constraint(f, s) {
                    Some(0) => {}
                    Some(_) => return Err(Ineligible::SourceConstrained),
                    None => return Err(Ineligible::SourceNotRegister),
                }
            }
            Ok(())
        }
        Class::Select => {
            let n = dst_nibble(f, i);
            if n == ty::VECTOR {
                return Err(Ineligible::VectorNibble);
            }
            if dst.flags & flag::PROPAGATED != 0 {
                return Err(Ineligible::AlreadyPropagated);
            }
            if dst.flag_word() & 0x70 != 0 {
                return Err(Ineligible::ModifierBits);
            }
            if n != ty::INT && n != ty::FLOAT {
                return Err(Ineligible::NeitherIntNorFloat);
            }
            if !opts.sm_legacy() && dst.imm_constraint != 0 {
                return Err(Ineligible::SmConstraintBits);
            }
            Ok(())
        }
        Class::Mov => {
            let OpKind::Reg(d) = dst.kind else {
                return Err(Ineligible::DestNotRegister);
            };
            if i.guard.is_some() {
                return Err(Ineligible::GuardedMove);
            }
            if dst.flags & flag::PROPAGATED != 0 {
                return Err(Ineligible::AlreadyPropagated);
            }
            let bad = constraint::ASM | constraint::VECTOR_LANE | constraint::MULTI_DEF;
            if f.regs[d].defs != 1 || f.regs[d].constraint & bad != 0 {
                return Err(Ineligible::DestConstrained);
            }
            let Some(s) = i.srcs().first() else {
                return Err(Ineligible::NoSource);
            };
            if s.neg || s.abs || s.ty == ty::VECTOR {
                return Err(Ineligible::SourceModifiers);
            }
            match &s.kind {
                OpKind::Reg(r) => {
                    if f.regs[*r].constraint & (constraint::ASM | constraint::VECTOR_LANE) != 0
                        || f.regs[*r].decl != f.regs[d].decl
                    {
                        Err(Ineligible::SourceOtherType)
                    } else {
                        Ok(())
                    }
                }
                OpKind::Imm(_) => Ok(()),
                _ => Err(Ineligible::SourceNotRegOrImm),
            }
        }
        _ => Err(Ineligible::OtherClass),
    }
}

/// Evaluates `setp.<cmp>.<type> p, a, b` on two integer immediates, or on one register
/// compared with itself.
pub fn eval_setp(i: &ori::Inst) -> Option<bool> {
    if i.class != Class::SetPred || i.ndst != 1 || i.operands.len() != 3 || i.guard.is_some() {
        return None;
    }
    let parts: Vec<&str> = i.opcode.split('.').collect();
    let cmp = *parts.get(1)?;
    let t = *parts.last()?;
    let (a, b) = (&i.operands[1], &i.operands[2]);
    if a.neg || a.abs || b.neg || b.abs {
        return None;
    }
    if t.starts_with('f') {
        return None;
    }
    let bits: u32 = t[1..].parse().ok()?;
    let signed = t.starts_with('s');
    if let (OpKind::Reg(x), OpKind::Reg(y)) = (&a.kind, &b.kind) {
        if x == y {
            return match cmp {
                "eq" | "le" | "ge" | "ls" | "hs" => Some(true),
                "ne" | "lt" | "gt" | "lo" | "hi" => Some(false),
                _ => None,
            };
        }
        return None;
    }
    let val = |o: &ori::Operand| -> Option<i128> {
        let raw: u64 = match o.kind {
            OpKind::Imm(Imm::Int(v)) => v as u64,
            OpKind::Imm(Imm::Hex(v)) => v,
            _ => return None,
        };
        let masked = if bits >= 64 {
            raw
        } else {
            raw & ((1u64 << bits) - 1)
        };
        Some(if signed && bits < 64 && masked >> (bits - 1) & 1 == 1 {
            masked as i128 - (1i128 << bits)
        } else if signed {
            masked as i64 as i128
        } else {
            masked as i128
        })
    };
    let (x, y) = (val(a)?, val(b)?);
    Some(match cmp {
        "eq" => x == y,
        "ne" => x != y,
        "lt" | "lo" => x < y,
        "le" | "ls" => x <= y,
        "gt" | "hi" => x > y,
        "ge" | "hs" => x >= y,
        _ => return None,
    })
}

/// The value of predicate register `p` when it is known: its single definition is a
/// compare that [`eval_setp`] decides.
pub fn known_predicate(f: &Function, p: ori::RegId) -> Option<bool> {
    let info = &f.regs[p];
    if info.defs != 1 {
        return None;
    }
    let d = info.def_anchor?;
    let i = &f.insts[d];
    if i.operands.first().map(|o| &o.kind) != Some(&OpKind::Reg(p)) {
        return None;
    }
    eval_setp(i)
}

/// The two-pass predicate simplifier (`sub_908A60`) for a select at `id` in block `b`.
/// `forward` walks from the block's anchor to the select looking for the predicate's
/// definition; backward follows the predicate's linked (single) definition outside the
/// block. Returns (hit, partial): hit when the select provably picks one source (its
/// sources are equal or its predicate is known); partial when the definition was found
/// but decides nothing, so the other direction need not look.
pub fn simplify_predicate(f: &Function, b: BlockId, id: InstId, forward: bool) -> (bool, bool) {
    let i = &f.insts[id];
    let srcs = i.srcs();
    if srcs.len() != 3 {
        return (false, true);
    }
    if srcs[0].kind == srcs[1].kind && srcs[0].neg == srcs[1].neg && srcs[0].abs == srcs[1].abs {
        return (true, false);
    }
    let OpKind::Reg(p) = srcs[2].kind else {
        return (false, true);
    };
    let Some(def) = f.regs[p].def_anchor.filter(|_| f.regs[p].defs == 1) else {
        return (false, true);
    };
    let in_block = f.blocks[b].insts.iter().position(|&x| x == def);
    if forward {
        for &x in &f.blocks[b].insts {
            if x == id || f.insts[x].class == Class::Nop {
                break;
            }
            if x == def {
                return match known_predicate(f, p) {
                    Some(_) => (true, false),
                    None => (false, true),
                };
            }
        }
        (false, false)
    } else if in_block.is_none() {
        match known_predicate(f, p) {
            Some(_) => (true, false),
            None => (false, true),
        }
    } else {
        (false, true)
    }
}

fn bump(c: &mut Counters, k: GoCounterName) {
    match c.iter_mut().find(|(n, _)| *n == k) {
        Some((_, v)) => *v += 1,
        None => c.push((k, 1)),
    }
}

/// The counters of a marking round, in the order its payload lists them.
const ROUND_COUNTERS: [GoCounterName; 5] = [
    GoCounterName::Marks0x100,
    GoCounterName::Marks0x200,
    GoCounterName::Marks0x400,
    GoCounterName::SimplifierHits,
    GoCounterName::DeadFound,
];

/// The marking walk over block `b` (one round of phase 29's detection, and phase 46's
/// round), noting each instruction in `seen` once it is marked. The walk also finds
/// the dead instructions (marking changes nothing the liveness check reads): `seen`
/// keeps them for apply-changes and `dead_found` counts them. Returns whether a new
/// mark was set.
pub fn mark_block<R: Recorder>(
    f: &mut Function,
    b: BlockId,
    opts: &Options,
    stats: &mut GoStats,
    counters: &mut Counters,
    seen: &mut Seen,
    rec: &mut R,
) -> bool {
    counters.extend(ROUND_COUNTERS.iter().map(|&k| (k, 0)));
    let mut marker = Marker::new(opts);
    // Marking changes flags and type nibbles only, never the block's list.
    for k in 0..f.blocks[b].insts.len() {
        marker.visit(f, b, k, opts, stats, counters, rec);
        seen.note(f, f.blocks[b].insts[k]);
    }
    if let Some(c) = counters.iter_mut().find(|c| c.0 == GoCounterName::DeadFound) {
        c.1 += super::block_count(seen.dead as usize);
    }
    marker.changed
}

/// The marking walk's state, one instruction at a time: phase 37 interleaves it with
/// promotion when it records no trace.
pub struct Marker {
    /// Whether the architecture marks predicates (the spec's v21).
    v21: bool,
    /// The copy-tracking flag (the spec's v10).
    v10: bool,
    /// A new mark was set.
    pub changed: bool,
}

impl Marker {
    pub fn new(opts: &Options) -> Marker {
        Marker {
            v21: opts.arch_marks_predicates(),
            v10: opts.option_487,
            changed: false,
        }
    }

    /// Marks instruction `k` of block `b`. Only that instruction's flags and type
    /// nibble change.
    #[allow(clippy::too_many_arguments)]
    pub fn visit<R: Recorder>(
        &mut self,
        f: &mut Function,
        b: BlockId,
        k: usize,
        opts: &Options,
        stats: &mut GoStats,
        counters: &mut Counters,
        rec: &mut R,
    ) {
        let id = f.blocks[b].insts[k];
        let class = f.insts[id].class;
        match class {
            Class::Anchor => {
                self.v10 = opts.option_487;
            }
            Class::SetPred => {
                if is_eligible(f, id, opts).is_ok() {
                    self.v10 = false;
                    if self.v21
                        && mark(f, id, 0, flag::PROPAGATED_UNDER_PRED, "an eligible set-predicate on an architecture that marks predicates: propagated under its predicate (0x400).", stats, rec)
                    {
                        bump(counters, GoCounterName::Marks0x400);
                        self.changed = true;
                    }
                }
            }
            Class::Select => {
                if let Err(why) = is_eligible(f, id, opts) {
                    if R::ENABLED && why == Ineligible::SmConstraintBits {
                        let t = super::text(f, id);
                        super::ori_step(rec, f, || {
                            Step::new(
                                "sm_boundary",
                                format!("`{t}`: the SM value 0x{:04x} is above 20479 (0x4FFF) and the destination carries 0x1C00 constraint bits, so the select is not marked.", opts.sm),
                            )
                        });
                    }
                    return;
                }
                let nib = super::forward::dst_nibble(f, &f.insts[id]);
                let full = if opts.tier() == 0 {
                    Some(true)
                } else if nib == ty::INT {
                    opts.arch_predicate().then_some(false)
                } else if !opts.arch_predicate() || opts.tier() & 0x1B != 0 {
                    // Float on the conservative tier (`limit-fold-fp`): the two-pass
                    // simplifier looks, then the destination is marked 0x201 whatever
                    // it answers (the spec's "How Fold Results Are Consumed"): the fold
                    // is deferred, never committed here.
                    let (hit, partial) = simplify_predicate(f, b, id, true);
                    let (hit, partial) = if hit || partial {
                        (hit, partial)
                    } else {
                        simplify_predicate(f, b, id, false)
                    };
                    if R::ENABLED {
                        let t = super::text(f, id);
                        super::ori_step(rec, f, || {
                            Step::new(
                                "predicate_simplifier",
                                format!("`{t}`: the two-pass predicate simplifier reports hit = {hit}, partial = {partial}."),
                            )
                        });
                    }
                    if hit {
                        bump(counters, GoCounterName::SimplifierHits);
                    }
                    Some(false)
                } else {
                    Some(false)
                };
                const WHY_100: &str = "an eligible conditional select: propagated (0x100).";
                const WHY_201: &str = "conservative tier: the type field becomes 1 and deferred \
                                       cleanup (0x200) is set, (dst & 0xFFFFFDF0) | 0x201.";
                match full {
                    Some(true) if mark(f, id, 0, flag::PROPAGATED, WHY_100, stats, rec) => {
                        bump(counters, GoCounterName::Marks0x100);
                        self.changed = true;
                    }
                    Some(true) => {}
                    Some(false) => {
                        f.touch_inst(id);
                        f.insts[id].operands[0].ty = ty::INT;
                        if mark(f, id, 0, flag::DEFERRED_CLEANUP, WHY_201, stats, rec) {
                            bump(counters, GoCounterName::Marks0x200);
                            self.changed = true;
                        }
                    }
                    None => {}
                }
            }
            Class::Mov => {
                if is_eligible(f, id, opts).is_ok()
                    && mark(f, id, 0, flag::PROPAGATED, "a register or immediate move: its destination's uses will take its source (0x100).", stats, rec)
                {
                    bump(counters, GoCounterName::Marks0x100);
                    self.changed = true;
                }
            }
            _ => {
                if !self.v10 {
                    self.v10 = super::has_live_uses(f, &f.insts[id]);
                }
            }
        }
    }
}
