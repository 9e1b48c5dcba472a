//! Phase 58 (GeneralOptimizeLate, `sub_8F6530` per block): one pass per block, no
//! iteration, a six-slot circular buffer of MOV pairs.
//!
//! ```text
//!  for each instruction of the block:
//!    mov (class 139, or class 110 unless option 31 is 0) with a plain destination:
//!      slot with the same opcode and source?  ── yes ─▶ second of the pair; checks on its
//!        destination: use count == 1, no aliasing bits, same register class as the first,
//!        single definitions ─▶ its one use reads the first destination, the MOV goes
//!      no slot ─▶ insert at the slot index, index = (index + 1) % 6 (evicting the oldest);
//!                option 605 (restricted): no insert at all — only what the buffer holds matches
//!    any write to a slot's source or destination empties that slot
//! ```
//!
//! Two gates of the spec: the MOV kinds ctx+1396 enables (bit 2: an immediate
//! source, bit 3: a register source; [`super::Options::ctx_1396`]), and a hit whose
//! destination's register class is 2-8 is rejected. Our register classes (a gap the
//! spec leaves: it reads the class at reginfo+20 without listing them): 1 for data
//! registers, 2 for predicates — so a predicate MOV pair is never merged.
//!
//! The seven counters (the context's seven 56-byte groups) are, in order: movs seen,
//! inserts, hits, evictions, uses rewritten, rejected by the checks, dead removed.

use super::{ent, for_each_reg, text, Options, Run, Tally};
use crate::ori::{constraint, BlockId, Class, Function, InstId, OpKind, Origin, RegId};
use crate::trace::{Focus, GoCounter, GoCounterName, GoSlots, Payload, Recorder, SharedText, Step};
use alloc::format;
use alloc::vec::Vec;

pub const SLOTS: usize = 6;
pub const COUNTERS: [GoCounterName; 7] = GoCounterName::BUFFER;

#[derive(Clone, Debug)]
struct Slot {
    /// The MOV that filled the slot: its opcode and source are the slot's key.
    first: InstId,
    second: Option<InstId>,
    dst: RegId,
    src: Option<RegId>,
}

/// Phase 58 over the function.
pub fn run<R: Recorder>(Run(f, opts, tally, stats, rec): Run<'_, R>) {
    for b in f.blocks.keys() {
        stats.iterations += 1;
        let counters = run_block(f, b, opts, tally, rec);
        if R::ENABLED {
            let cells: Vec<GoCounter> = COUNTERS
                .iter()
                .zip(counters)
                .map(|(n, v)| GoCounter::new(*n, v))
                .collect();
            let changed = counters[4] > 0;
            super::ori_step(rec, f, || {
                Step::numbered(
                    "round",
                    "Phase \u{1}, block \u{1}: one pass, no iteration; \u{1} MOV pair(s) merged.",
                    &[58, b.as_u32().into(), counters[6].into()],
                )
                .payload(Payload::GoRound {
                    phase: 58,
                    block: b,
                    iteration: 1,
                    counters: cells.into(),
                    changed,
                    capped: false,
                })
            });
        }
        stats.add_late(counters);
        if counters[4] > 0 {
            stats.changed_blocks += 1;
            stats.dead_removed += u64::from(counters[6]);
        }
    }
}

/// The text of `id`, sharing `was` when it reads the same.
fn shared_text(f: &Function, id: InstId, was: Option<SharedText>) -> SharedText {
    let t = text(f, id);
    match was {
        Some(w) if w.as_str() == t => w,
        _ => SharedText::new(t),
    }
}

/// True when two MOVs have the same opcode and the same source (the buffer's key).
fn same_key(f: &Function, a: InstId, b: InstId) -> bool {
    let (a, b) = (&f.insts[a], &f.insts[b]);
    a.operands[1].kind == b.operands[1].kind && a.opcode == b.opcode
}

/// A MOV the buffer considers: its destination and its source register, if any.
fn candidate(f: &Function, id: InstId, opts: &Options) -> Option<(RegId, Option<RegId>)> {
    let i = &f.insts[id];
    let class_ok =
        i.class == Class::Mov || (i.class == Class::MovSpecial && opts.option_31 != Some(0));
    if !class_ok || i.guard.is_some() || !matches!(i.origin, Origin::Ptx) || i.operands.len() != 2 {
        return None;
    }
    let OpKind::Reg(d) = i.operands[0].kind else {
        return None;
    };
    let s = &i.operands[1];
    if s.neg || s.abs || matches!(s.kind, OpKind::Vec(_)) {
        return None;
    }
    if let OpKind::Special(name) = &s.kind {
        // Values that change while the thread runs are never equal twice.
        if crate::ori::regs::is_volatile_special(name) {
            return None;
        }
    }
    // ctx+1396: bit 3 admits register sources, bit 2 immediate ones (the operand
    // field's values 6 and 7 in the spec).
    match s.kind {
        OpKind::Reg(_) if opts.ctx_1396 & 8 == 0 => return None,
        OpKind::Imm(_) if opts.ctx_1396 & 4 == 0 => return None,
        _ => {}
    }
    let src = match s.kind {
        OpKind::Reg(r) => Some(r),
        _ => None,
    };
    Some((d, src))
}

/// The register class the checks read (reginfo+20), ours: 2 for predicates, 1 for
/// every other register.
pub fn reg_class(info: &crate::ori::RegInfo) -> u32 {
    if info.bits == 1 {
        2
    } else {
        1
    }
}

/// Rewrites the single use of `d2` after position `k` to `d1`; true when done.
fn rewrite_single_use(f: &mut Function, b: BlockId, k: usize, d2: RegId, d1: RegId) -> bool {
    for j in k + 1..f.blocks[b].insts.len() {
        let u = f.blocks[b].insts[j];
        let (mut uses, mut writes_d1) = (0, false);
        for_each_reg(&f.insts[u], |r, def| {
            uses += usize::from(!def && r == d2);
            writes_d1 |= def && r == d1;
        });
        if uses == 0 {
            if writes_d1 {
                return false;
            }
            continue;
        }
        if !matches!(f.insts[u].origin, Origin::Ptx) || !f.visible(d1, f.insts[u].scope) {
            return false;
        }
        f.touch_inst(u);
        let i = &mut f.insts[u];
        let nd = i.ndst as usize;
        let mut done = 0;
        for o in &mut i.operands[nd..] {
            if o.kind == OpKind::Reg(d2) {
                o.kind = OpKind::Reg(d1);
                done += 1;
            } else if let OpKind::Addr(a) = &mut o.kind {
                if let crate::ori::AddrBase::Reg(r) = &mut a.base {
                    if *r == d2 {
                        *r = d1;
                        done += 1;
                    }
                }
            }
        }
        if let Some((g, n)) = i.guard {
            if g == d2 {
                i.guard = Some((d1, n));
                done += 1;
            }
        }
        return done == uses;
    }
    false
}

/// Phase 58 on one block; returns the seven counters.
pub fn run_block<R: Recorder>(
    f: &mut Function,
    b: BlockId,
    opts: &Options,
    tally: &mut Tally,
    rec: &mut R,
) -> [u32; 7] {
    tally.recount(f, b);
    let mut c = [0u32; 7];
    let mut slots: [Option<Slot>; SLOTS] = Default::default();
    // Traced: the slots as the last buffer step showed them; the next step records
    // only the slots that differ, and shares the texts that did not change.
    let mut shown = GoSlots::default();
    let mut index = 0usize;
    let mut k = 1;
    while k < f.blocks[b].insts.len() {
        let id = f.blocks[b].insts[k];
        let mut inserted: Option<usize> = None;
        let mut removed = false;
        if let Some((d, src)) = candidate(f, id, opts) {
            c[0] += 1;
            let hit = slots.iter().position(|s| {
                s.as_ref()
                    .is_some_and(|s| s.dst != d && same_key(f, s.first, id))
            });
            if let Some(h) = hit {
                c[2] += 1;
                let d1 = slots[h].as_ref().map(|s| s.dst).unwrap_or(d);
                let bad = constraint::ASM | constraint::VECTOR_LANE | constraint::MULTI_DEF;
                let ok = f.regs[d].uses == 1
                    && f.regs[d].defs == 1
                    && f.regs[d1].defs == 1
                    && f.regs[d].constraint & bad == 0
                    && f.regs[d1].constraint & bad == 0
                    && f.regs[d].decl == f.regs[d1].decl
                    // `*(reginfo+20) - 2 > 6`: classes 2-8 are refused.
                    && !(2..=8).contains(&reg_class(&f.regs[d]));
                if let Some(s) = slots[h].as_mut() {
                    s.second = Some(id);
                }
                if ok {
                    // The rewrite may change some uses even when it gives up.
                    tally.will_change(f, b);
                }
                if ok && rewrite_single_use(f, b, k, d, d1) {
                    c[4] += 1;
                    c[6] += 1;
                    removed = true;
                    // The MOV leaves the block now, so that the step below carries
                    // the removal with the rewrite.
                    f.touch_block(b);
                    f.blocks[b].insts.remove(k);
                    if R::ENABLED {
                        let t = text(f, id);
                        let first = slots[h]
                            .as_ref()
                            .map(|s| text(f, s.first))
                            .unwrap_or_default();
                        super::ori_step(rec, f, || {
                            Step::new(
                                "mov_pair",
                                format!("Block {b}: `{t}` repeats `{first}` held in slot {h}; its one use reads the first destination and the MOV goes."),
                            )
                            .focus(Focus::Inst { inst: ent(id) })
                        });
                    }
                } else {
                    c[5] += 1;
                }
            } else if !opts.option_605 {
                // Option 605 (restricted mode) matches only what the buffer holds and
                // adds nothing to it.
                if slots[index].is_some() {
                    c[3] += 1;
                }
                slots[index] = Some(Slot {
                    first: id,
                    second: None,
                    dst: d,
                    src,
                });
                inserted = Some(index);
                index = (index + 1) % SLOTS;
                c[1] += 1;
            }
            if R::ENABLED && (inserted.is_some() || hit.is_some()) {
                for (n, s) in slots.iter().enumerate() {
                    let was = shown.get(n).clone();
                    let now = s.as_ref().map(|s| {
                        let second = was.as_ref().and_then(|o| o.1.clone());
                        let first = was.map(|o| o.0);
                        (
                            shared_text(f, s.first, first),
                            s.second.map(|x| shared_text(f, x, second)),
                        )
                    });
                    shown = shown.with(n, now);
                }
                let view = shown.clone();
                let counters = c;
                let idx = index as u32;
                let narr = match inserted {
                    Some(s) => Step::numbered(
                        "buffer",
                        "Block \u{1}: a MOV enters slot \u{1}; the slot index moves to \u{1}.",
                        &[b.as_u32().into(), s as u64, idx.into()],
                    ),
                    None => Step::numbered(
                        "buffer",
                        "Block \u{1}: a MOV matches a slot of the buffer.",
                        &[b.as_u32().into()],
                    ),
                };
                super::ori_step(rec, f, || {
                    narr.payload(Payload::GoBuffer {
                        block: b,
                        index: idx,
                        slots: view,
                        counters: counters.into(),
                    })
                });
            }
        }
        if removed {
            tally.recount(f, b);
            continue;
        }
        // Writes empty the slots that name the written register.
        for_each_reg(&f.insts[id], |r, def| {
            if !def {
                return;
            }
            for (n, s) in slots.iter_mut().enumerate() {
                if Some(n) == inserted {
                    continue;
                }
                if s.as_ref().is_some_and(|s| s.dst == r || s.src == Some(r)) {
                    *s = None;
                }
            }
        });
        k += 1;
    }
    // Uses rewritten without a removal still change the counts.
    tally.recount(f, b);
    c
}
