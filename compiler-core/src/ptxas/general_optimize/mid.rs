//! Phase 37 (GeneralOptimizeMid, `sub_90FBA0`): cost-weighted rounds over all blocks
//! with ConvertMemoryToRegisterOrUniform (local-memory promotion).
//!
//! ```text
//!  threshold = option 135 when set, else option 474 (0.25)
//!  round: for each block
//!           promote  st.local [s+o], v ... ld.local d, [s+o]  ─▶  mov.bN d, v
//!           mark (phase 29's walk) ─▶ consume (replace uses, fold, drop dead)
//!         every fold costs  exempt class (98 LDL, 130 HSET2): w474 × (0 if dead else 1),
//!                           but 1.0 when the destination has more than 4 uses
//!                           any other class: 1.0
//!         weighted += Σ cost, unweighted += #folds
//!  stop when the round's weighted delta < threshold (or our hard cap)
//!  then: stores to a local array nothing else reads any more are removed
//! ```
//!
//! The register-constraint validator ([`constraints_agree`], `sub_8F3FE0`) checks that a
//! promoted value and the load's destination have the same width and no vector or asm
//! constraint before a load becomes a move.

use super::{ent, for_each_reg, forward, hard_round_cap, text, Options, Run, Seen, Tally};
use crate::ori::{constraint, AddrBase, BlockId, Class, Function, InstId, OpKind, Operand, Origin};
use super::GoStats;
use crate::entity::EntityRef;
use crate::trace::{Focus, GoCounter, GoCounterName, Payload, Recorder, Step};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Classes whose folds pay only option 474's weight (the spec's 130/133/134/137 bitmask
/// 0x99 and 272/273; of ours, the local load 98 and the packed compare 130).
pub fn cost_exempt(c: Class) -> bool {
    matches!(c, Class::LoadLocal | Class::HalfSet2)
}

/// The cost of one fold on an instruction of class `c` whose destination has `uses`.
pub fn fold_cost(c: Class, uses: u32, w474: f64) -> f64 {
    if cost_exempt(c) && uses <= 4 {
        w474 * if uses == 0 { 0.0 } else { 1.0 }
    } else {
        1.0
    }
}

/// The local array and byte offset an address operand names: `[sym+off]`, or
/// `[%r+off]` where `%r` holds a local array's address plus a constant (see
/// [`local_base`]).
fn direct_local(f: &Function, o: &Operand) -> Option<(String, i64)> {
    match &o.kind {
        OpKind::Addr(a) if a.extra.is_empty() => match &a.base {
            AddrBase::Sym(s) => Some((String::from(&**s), a.offset)),
            AddrBase::Reg(r) => {
                let (s, off) = local_base(f, *r, false, 0)?;
                Some((s, off.checked_add(a.offset)?))
            }
            AddrBase::None => None,
        },
        _ => None,
    }
}

/// A generic `ld` / `st` (no state space, no ordering or volatile qualifier) whose
/// address register holds a local array's generic address: `[%SP+48]` where `%SP` is
/// `cvta.local` of the frame, as llc-22 at `-O0` addresses its stack. Our reading: the
/// spec's promotion reads local loads; ptxas turns generic accesses it can prove local
/// into local ones, so phase 37 sees these as local accesses too.
fn generic_local(f: &Function, opcode: &str, o: &Operand) -> Option<(String, i64)> {
    let mut words = opcode.split('.');
    if !matches!(words.next(), Some("ld" | "st")) {
        return None;
    }
    let qualified = words.any(|w| {
        matches!(
            w,
            "global"
                | "shared"
                | "shared::cta"
                | "shared::cluster"
                | "local"
                | "const"
                | "param"
                | "volatile"
                | "relaxed"
                | "acquire"
                | "release"
                | "mmio"
                | "weak"
        )
    });
    if qualified {
        return None;
    }
    let OpKind::Addr(a) = &o.kind else {
        return None;
    };
    let AddrBase::Reg(r) = a.base else {
        return None;
    };
    if !a.extra.is_empty() {
        return None;
    }
    let (s, off) = local_base(f, r, true, 0)?;
    Some((s, off.checked_add(a.offset)?))
}

/// Our reading, where the spec does not say how promotion compares addresses: nvcc
/// addresses a frame through registers, `mov.u64 %SPL, __local_depot0;` then
/// `add.u64 %rd1, %SPL, 64;` and `st.local.u32 [%rd1+4], ...`. A register holds
/// (array, offset) when its single definition is an unguarded `mov` of a `.local`
/// array's name, a `mov` of such a register, or an `add` of such a register and an
/// integer immediate; `generic` asks for the generic address of the array instead,
/// which `cvta.local` makes from a local one and `cvta.to.local` turns back (nvcc:
/// `cvta.local.u64 %SP, %SPL; add.u64 %rd44, %SP, 0; cvta.to.local.u64 %rd45, %rd44`).
/// With one definition, every read sees that value (a read before it is undefined in
/// PTX). Anything else — a register offset, a loaded pointer — is not resolved, and a
/// store through it forgets everything known.
fn local_base(
    f: &Function,
    r: crate::ori::RegId,
    generic: bool,
    depth: u32,
) -> Option<(String, i64)> {
    let info = f.regs.get(r)?;
    if depth > 8 || info.defs != 1 {
        return None;
    }
    let d = f.insts.get(info.def_anchor?)?;
    if d.guard.is_some() || !matches!(d.origin, Origin::Ptx) || d.ndst != 1 {
        return None;
    }
    let plain = |o: &Operand| !o.neg && !o.abs;
    match (d.opcode.split('.').next(), &d.operands[..]) {
        (Some("mov"), [_, src]) if plain(src) => match &src.kind {
            OpKind::Sym(s) if !generic && is_local_array(f, s) => Some((String::from(&**s), 0)),
            OpKind::Reg(b) => local_base(f, *b, generic, depth + 1),
            _ => None,
        },
        (Some("cvta"), [_, src]) if plain(src) => {
            let OpKind::Reg(b) = src.kind else {
                return None;
            };
            match d.opcode.split('.').nth(1) {
                // local → generic
                Some("local") if generic => local_base(f, b, false, depth + 1),
                // generic → local
                Some("to") if !generic && d.opcode.starts_with("cvta.to.local") => {
                    local_base(f, b, true, depth + 1)
                }
                _ => None,
            }
        }
        (Some("add"), [_, base, imm]) if plain(base) && plain(imm) => {
            let (OpKind::Reg(b), OpKind::Imm(v)) = (&base.kind, &imm.kind) else {
                return None;
            };
            let v = match *v {
                crate::ptx::ast::Imm::Int(v) => v,
                crate::ptx::ast::Imm::Hex(v) => v as i64,
                _ => return None,
            };
            let (s, off) = local_base(f, *b, generic, depth + 1)?;
            Some((s, off.checked_add(v)?))
        }
        _ => None,
    }
}

fn is_local_array(f: &Function, s: &str) -> bool {
    f.locals
        .iter()
        .any(|v| v.name == s && v.space() == Some(".local"))
}

/// True when an address reaches its array through a register (the narration labels
/// those promotions as our reading).
fn via_registers(o: &Operand) -> bool {
    matches!(&o.kind, OpKind::Addr(a) if matches!(a.base, AddrBase::Reg(_)))
}

fn access_bits(opcode: &str) -> Option<u32> {
    if opcode.contains(".v2") || opcode.contains(".v4") {
        return None;
    }
    let t = opcode.rsplit('.').next()?;
    let bits: u32 = t.get(1..)?.parse().ok()?;
    matches!(bits, 16 | 32 | 64).then_some(bits)
}

/// `sub_8F3FE0`, our reading: the value and the destination agree in width and carry no
/// vector-lane or asm constraint.
pub fn constraints_agree(f: &Function, value: &Operand, dst: &Operand, bits: u32) -> bool {
    let bad = constraint::VECTOR_LANE | constraint::ASM;
    let OpKind::Reg(d) = dst.kind else {
        return false;
    };
    if f.regs[d].bits != bits || f.regs[d].constraint & bad != 0 {
        return false;
    }
    match value.kind {
        OpKind::Reg(v) => f.regs[v].bits == bits && f.regs[v].constraint & bad == 0,
        OpKind::Imm(_) => !value.neg && !value.abs,
        _ => false,
    }
}

struct Known {
    sym: String,
    off: i64,
    bytes: i64,
    bits: Option<u32>,
    value: Operand,
}

/// Promotion's state along one block: what the block stored where, and the loads
/// promoted so far (class, uses) for the cost model.
#[derive(Default)]
struct Promoter {
    known: Vec<Known>,
    folds: Vec<(Class, u32)>,
}

impl Promoter {
    /// Promotion at instruction `k` of block `b` (not the anchor): rewrites only that
    /// instruction, a load becoming a move.
    fn visit<R: Recorder>(
        &mut self,
        f: &mut Function,
        b: BlockId,
        k: usize,
        tally: &mut Tally,
        stats: &mut GoStats,
        rec: &mut R,
    ) {
        let id = f.blocks[b].insts[k];
        let i = &f.insts[id];
        let asm = !matches!(i.origin, Origin::Ptx);
        let is_st_local = i.class == Class::Store && i.opcode.starts_with("st.local");
        let is_ld_local = i.class == Class::LoadLocal && i.opcode.starts_with("ld.local");
        let generic = |k: usize| {
            i.operands
                .get(k)
                .and_then(|o| generic_local(f, &i.opcode, o))
        };
        let st_generic = i.class == Class::Store && i.operands.len() == 2 && !is_st_local;
        let st_generic = if st_generic { generic(0) } else { None };
        let ld_generic = if i.class == Class::Load && i.operands.len() == 2 {
            generic(1)
        } else {
            None
        };
        let is_ld_local = is_ld_local || ld_generic.is_some();
        if (is_st_local || st_generic.is_some())
            && !asm
            && i.guard.is_none()
            && i.operands.len() == 2
        {
            if let Some((sym, off)) = st_generic.or_else(|| direct_local(f, &i.operands[0])) {
                let bits = access_bits(&i.opcode);
                let bytes = bits.map_or(16, |b| i64::from(b / 8));
                self.known
                    .retain(|e| e.sym != sym || e.off + e.bytes <= off || off + bytes <= e.off);
                if !matches!(i.operands[1].kind, OpKind::Vec(_)) {
                    self.known.push(Known {
                        sym,
                        off,
                        bytes,
                        bits,
                        value: i.operands[1].clone(),
                    });
                }
                return;
            }
            self.known.clear();
            return;
        }
        if is_ld_local && !asm && i.guard.is_none() && i.ndst == 1 && i.operands.len() == 2 {
            let at = ld_generic
                .clone()
                .or_else(|| direct_local(f, &i.operands[1]));
            if let (Some((sym, off)), Some(bits)) = (at, access_bits(&i.opcode)) {
                let hit = self
                    .known
                    .iter()
                    .find(|e| e.sym == sym && e.off == off && e.bits == Some(bits))
                    .map(|e| e.value.clone());
                // The stored register must be nameable where the load stands (it may
                // be declared in a `{ }` scope the load is outside of).
                let in_scope = |v: &Operand| v.reg().is_none_or(|r| f.visible(r, i.scope));
                if let Some(v) =
                    hit.filter(|v| constraints_agree(f, v, &i.operands[0], bits) && in_scope(v))
                {
                    let before = if R::ENABLED {
                        text(f, id)
                    } else {
                        String::new()
                    };
                    let via = via_registers(&i.operands[1]);
                    let uses = match i.operands[0].kind {
                        OpKind::Reg(d) => f.regs[d].uses,
                        _ => 0,
                    };
                    self.folds.push((Class::LoadLocal, uses));
                    tally.will_change(f, b);
                    f.touch_inst(id);
                    let i = &mut f.insts[id];
                    i.class = Class::Mov;
                    i.opcode = smol_str::format_smolstr!("mov.b{bits}");
                    let mut v = v;
                    v.flags = 0;
                    v.ty = i.operands[0].ty;
                    i.operands[1] = v;
                    crate::stats::bump(&mut stats.promoted_loads, 1);
                    if R::ENABLED {
                        let after = text(f, id);
                        let how = if ld_generic.is_some() {
                            format!(" It is a generic load whose address, {sym}+{off}, `cvta.local` of the frame makes local (our reading: ptxas treats generic accesses it proves local as local ones; the spec's promotion names local loads).")
                        } else if via {
                            format!(" Its address is {sym}+{off}, found through the base register's definitions (our reading: the spec does not say how promotion compares addresses).")
                        } else {
                            String::new()
                        };
                        super::ori_step(rec, f, || {
                            Step::new(
                                "promote_load",
                                format!("ConvertMemoryToRegisterOrUniform: `{before}` reads what the block stored there last, so it becomes `{after}`.{how}"),
                            )
                            .focus(Focus::Inst { inst: ent(id) })
                        });
                    }
                }
            }
        } else if matches!(
            i.class,
            Class::Store | Class::Call | Class::Other | Class::Matrix | Class::Barrier
        ) || asm
        {
            self.known.clear();
        }
        if !self.known.is_empty() {
            for_each_reg(&f.insts[id], |r, def| {
                if def {
                    self.known.retain(|e| e.value.kind != OpKind::Reg(r));
                }
            });
        }
    }
}

fn mentions_sym(o: &Operand, s: &str) -> bool {
    match &o.kind {
        OpKind::Sym(x) => **x == *s,
        OpKind::Addr(a) => {
            matches!(&a.base, AddrBase::Sym(x) if **x == *s)
                || a.extra.iter().any(|e| mentions_sym(e, s))
        }
        OpKind::Vec(v) | OpKind::Paren(v) => v.iter().any(|e| mentions_sym(e, s)),
        OpKind::Pair(a, b) => mentions_sym(a, s) || mentions_sym(b, s),
        OpKind::Not(a) => mentions_sym(a, s),
        _ => false,
    }
}

/// Stores into a local array that nothing reads any more. Returns how many went.
fn drop_dead_local_stores<R: Recorder>(f: &mut Function, rec: &mut R) -> u64 {
    let locals: Vec<String> = f
        .locals
        .iter()
        .filter(|v| v.space() == Some(".local"))
        .map(|v| v.name.clone())
        .collect();
    let mut removed = 0;
    for s in locals {
        let layout: Vec<(BlockId, InstId)> = f.layout().collect();
        let mut stores = Vec::new();
        let mut other = false;
        for &(b, id) in &layout {
            let i = &f.insts[id];
            if !i.operands.iter().any(|o| mentions_sym(o, &s)) {
                continue;
            }
            let direct_store = i.opcode.starts_with("st.local")
                && matches!(i.origin, Origin::Ptx)
                && direct_local(f, &i.operands[0]).is_some_and(|(x, _)| x == s)
                && !mentions_sym(&i.operands[1], &s);
            if direct_store {
                stores.push((b, id));
            } else {
                other = true;
            }
        }
        if other || stores.is_empty() {
            continue;
        }
        let n = stores.len();
        for (b, id) in stores {
            f.touch_block(b);
            f.blocks[b].insts.retain(|x| *x != id);
            removed += 1;
        }
        super::ori_step(rec, f, || {
            Step::new(
                "dead_local_stores",
                format!("ConvertMemoryToRegisterOrUniform: nothing reads the local array {s} any more; its {n} store(s) go."),
            )
        });
    }
    removed
}

/// Promotion, then the marking walk, over block `b` (counted): returns the promoted
/// loads' (class, uses) for the cost model.
///
/// Traced, the whole block is promoted before marking starts, as the phase orders
/// them. Untraced, one walk does both, instruction by instruction: promotion rewrites
/// only the instruction it stands on and reads nothing marking writes (flags and type
/// nibbles of destinations), and marking reads no instruction after the one it marks
/// except predicate definitions, which promotion never writes (a promoted load is 16 to
/// 64 bits wide). So both orders leave the same block, stats and table; on a block too
/// big for the caches the single walk saves a sweep of memory.
#[allow(clippy::too_many_arguments)]
fn promote_and_mark<R: Recorder>(
    f: &mut Function,
    b: BlockId,
    opts: &Options,
    tally: &mut Tally,
    seen: &mut Seen,
    stats: &mut GoStats,
    counters: &mut super::Counters,
    rec: &mut R,
) -> Vec<(Class, u32)> {
    let mut promoter = Promoter::default();
    let mut marker = forward::Marker::new(opts);
    let n = f.blocks[b].insts.len();
    if R::ENABLED {
        for k in 1..n {
            promoter.visit(f, b, k, tally, stats, rec);
        }
    }
    for k in 0..n {
        if !R::ENABLED && k > 0 {
            promoter.visit(f, b, k, tally, stats, rec);
        }
        marker.visit(f, b, k, opts, stats, counters, rec);
        seen.note(f, f.blocks[b].insts[k]);
    }
    promoter.folds
}

/// Phase 37 over the function.
pub fn run<R: Recorder>(Run(f, opts, tally, stats, rec): Run<'_, R>) {
    let threshold = opts.option_135.map_or(opts.option_474, |v| v as f64);
    let total: usize = f.blocks.values().map(|b| b.insts.len()).sum();
    let cap = hard_round_cap(total);
    let (mut weighted, mut unweighted) = (0.0f64, 0.0f64);
    let mut changed_blocks = alloc::vec![false; f.blocks.len()];
    let mut round = 0;
    // Whether the last round rewrote anything in any block.
    let mut round_changed;
    loop {
        round += 1;
        round_changed = false;
        stats.iterations += 1;
        let (w0, u0) = (weighted, unweighted);
        for b in f.blocks.keys() {
            tally.recount(f, b);
            let mut seen = Seen::new(tally);
            let mut counters = super::Counters::new();
            let before = fold_events(stats);
            let mut folds =
                promote_and_mark(f, b, opts, tally, &mut seen, stats, &mut counters, rec);
            let dead_before = stats.dead_removed;
            super::consume::apply_block(f, b, opts, tally, &seen, stats, rec);
            let n = fold_events(stats) - before;
            for _ in 0..n {
                folds.push((Class::Mov, 1));
            }
            let block_changed = !folds.is_empty() || stats.dead_removed > dead_before;
            if block_changed {
                changed_blocks[b.index()] = true;
                round_changed = true;
            }
            if R::ENABLED {
                let promoted = folds.iter().filter(|f| f.0 == Class::LoadLocal).count();
                let dead = stats.dead_removed - dead_before;
                let mut cells = alloc::vec![
                    GoCounter::new(GoCounterName::Promoted, super::block_count(promoted)),
                    GoCounter::new(GoCounterName::Folds, super::block_count(n as usize)),
                    GoCounter::new(GoCounterName::DeadRemoved, super::block_count(dead as usize)),
                ];
                cells.extend(super::counter_cells(&counters));
                super::ori_step(rec, f, || {
                    Step::numbered(
                        "round",
                        "Phase \u{1}, block \u{1}, round \u{1}: \u{1} load(s) promoted, \u{1} fold(s), \u{1} dead instruction(s) removed.",
                        &[37, b.as_u32().into(), round.into(), promoted as u64, n, dead],
                    )
                    .payload(Payload::GoRound {
                        phase: 37,
                        block: b,
                        iteration: round,
                        counters: cells.into(),
                        changed: block_changed,
                        capped: false,
                    })
                });
            }
            for (c, uses) in folds {
                weighted += fold_cost(c, uses, opts.option_474);
                unweighted += 1.0;
            }
        }
        let delta = weighted - w0;
        if R::ENABLED {
            let (w, u) = (weighted, unweighted);
            let du = unweighted - u0;
            super::ori_step(rec, f, || {
                Step::new(
                    "cost",
                    format!("Phase 37 round {round}: {du} fold(s), weighted cost +{delta:.2} (total {w:.2}); the loop stops when a round adds less than {threshold:.2}."),
                )
                .payload(crate::trace::GoCost {
                    round,
                    weighted: w,
                    unweighted: u,
                    delta,
                    threshold,
                })
            });
        }
        if delta < threshold || delta == 0.0 {
            break;
        }
        if round >= cap {
            crate::stats::bump(&mut stats.cap_hits, 1);
            break;
        }
    }
    let gone = drop_dead_local_stores(f, rec);
    crate::stats::bump(&mut stats.promoted_stores_removed, gone);
    stats.dead_removed += gone;
    if gone > 0 {
        // The stores went from any block: count everything once.
        *tally = Tally::recounted(f);
    }
    // A last sweep for values a later block's rewrites left dead. When the last round
    // rewrote nothing and no store went, each block's own sweep in that round already
    // saw the final function, and this one would find nothing.
    if round_changed || gone > 0 {
        for b in f.blocks.keys() {
            super::dce_block(f, b, tally, stats, rec);
        }
    }
    stats.changed_blocks += changed_blocks.iter().filter(|c| **c).count() as u64;
    stats.cost_weighted_x100 = Some((weighted * 100.0 + 0.5) as u64);
}

fn fold_events(s: &GoStats) -> u64 {
    s.uses_replaced.unwrap_or(0)
        + s.immediates_substituted.unwrap_or(0)
        + s.selects_folded.unwrap_or(0)
        + s.guards_resolved.unwrap_or(0)
}
