//! GeneralOptimize: the six `ptxas` cleanup bundles (phases 13, 29, 37, 46, 58, 65) on ORI.
//!
//! ```text
//!  stage ──▶ Options::from_knobs(phase, knobs) ──▶ gate(opts)? ──no──▶ "gate" step, stats unchanged
//!                                                    │yes
//!   13  Variant A ─ per block: loop { early::detect ─ changed? ─ budget(464)? ─ early::apply }
//!   29  Variant A ─ per block: loop { detect = forward::mark_block + dead scan ─ changed? ─ budget(464)? ─ apply = consume::apply_block }
//!   37  Variant B ─ rounds over all blocks: promote local loads/stores ─ mark ─ consume,
//!                   cost accumulators (weighted by option 474, exempt set, use count > 4);
//!                   stop when a round's weighted delta < threshold (474, or 135 when set)
//!   46  Variant C ─ hooks::run: mid2_body(sm), the no-op sentinel or the per-SM body
//!   58  Variant B ─ per block, one pass: late::run_block (6-slot MOV-pair buffer, 7 counters)
//!   65  Variant C ─ hooks::run: late2_body(sm)
//! ```
//!
//! The marks (flag bits 0x100 propagated, 0x200 deferred cleanup, 0x400 propagated under a
//! predicate) are what the spec's passes leave behind; the spec hands their consumption
//! to later passes. [`consume`] is our **downstream consumer**, labelled as such: it
//! replaces uses of a marked move's destination, substitutes immediates, folds marked
//! selects whose predicate is known or whose sources are equal, drops guards on known
//! predicates and removes dead instructions. It only makes rewrites that keep every
//! thread's results, which the tests check with the ORI interpreter.
//!
//! Invariants: every loop is capped (option 464's budget where the spec puts it, and a
//! hard cap of our own — [`hard_round_cap`] — everywhere, so oscillating rewrites end);
//! every rewrite is announced to the [`Tally`] before it is made, and the register table
//! (defs, uses, def anchors) is exact whenever a step reads it (what [`refresh`] would
//! compute); untraced runs skip walks a traced run makes, never a rewrite (see
//! docs/general-optimize.md, "Untraced shortcuts"); blocks keep their class-97 anchor
//! first; nothing iterates a hash map.

pub mod consume;
pub mod early;
pub mod forward;
pub mod hooks;
pub mod late;
pub mod mid;
pub mod tally;

pub use tally::Tally;

pub use crate::ori::regs::{for_each_reg, refresh};

use crate::knobs::{Knob, Knobs};
use crate::ori::{self, constraint, BlockId, Class, Function, InstId, OpKind, Origin, RegId};
use crate::stats::Stats;
use crate::trace::{GoCounterName, Payload, Recorder, Step};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The six instances, by ptxas phase number.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Early,
    Standard,
    Mid,
    Mid2,
    Late,
    Late2,
}

impl Phase {
    pub fn number(self) -> u16 {
        match self {
            Phase::Early => 13,
            Phase::Standard => 29,
            Phase::Mid => 37,
            Phase::Mid2 => 46,
            Phase::Late => 58,
            Phase::Late2 => 65,
        }
    }
}

crate::stats::pass_stats! {
    /// A GeneralOptimize instance's counters (JSON keys in this order). The first six
    /// every instance reports; the optional ones belong to one phase or to the downstream
    /// consumer and are reported once their mechanism has run.
    pub struct GoStats {
        iterations,
        changed_blocks,
        marked_0x100,
        marked_0x200,
        marked_0x400,
        dead_removed,
    }
    optional {
        /// Any phase: the instance's gate turned it off (the "gate" step).
        gated,
        /// Phase 13: EXIT chains removed.
        exits_removed,
        /// Phase 37: local loads promoted to the stored value.
        promoted_loads,
        /// The consumer ([`consume`]): uses given a marked move's source.
        uses_replaced,
        /// The consumer: immediates substituted for a marked move's destination.
        immediates_substituted,
        /// The consumer: marked selects folded.
        selects_folded,
        /// The consumer: guards on known predicates resolved.
        guards_resolved,
        /// Phases 13, 29, 37: a block's loop stopped by the iteration budget or cap.
        cap_hits,
        /// Phase 37: local stores no load reads any more, removed.
        promoted_stores_removed,
        /// Phase 37: the cost accumulator (weighted by option 474), times 100.
        cost_weighted_x100,
        /// Phase 58: the MOV-pair buffer's seven counters ([`late::COUNTERS`]).
        movs_seen,
        buffer_inserts,
        buffer_hits,
        buffer_evictions,
        uses_rewritten,
        checks_rejected,
        pair_movs_removed,
    }
}

impl GoStats {
    /// Adds phase 58's per-block counters, in [`late::COUNTERS`]' order.
    fn add_late(&mut self, c: [u32; 7]) {
        let fields = [
            &mut self.movs_seen,
            &mut self.buffer_inserts,
            &mut self.buffer_hits,
            &mut self.buffer_evictions,
            &mut self.uses_rewritten,
            &mut self.checks_rejected,
            &mut self.pair_movs_removed,
        ];
        for (field, v) in fields.into_iter().zip(c) {
            crate::stats::bump(field, u64::from(v));
        }
    }
}

/// What a GeneralOptimize instance reads from the knobs.
#[derive(Clone, Debug)]
pub struct Options {
    pub phase: Phase,
    /// The encoded SM, `(generation << 12) | variant` (knob `sm`).
    pub sm: u32,
    /// The opt-level accessor (`sub_7DDB50`), after option 499's cap.
    pub opt_level: u8,
    pub option_31: Option<i64>,
    pub option_135: Option<i64>,
    pub option_214: bool,
    pub option_231: bool,
    pub option_461: Option<i64>,
    /// Iteration budget of the Variant A loops; None is unbounded.
    pub option_464: Option<u64>,
    pub option_474: f64,
    pub option_487: bool,
    pub option_605: bool,
    pub limit_fold_fp: bool,
    /// The "ConvertMemoryToRegisterOrUniform" named-phase gate (phase 37).
    pub convert_memory_to_register: bool,
    /// The context word at ctx+1396 phase 58 reads ([`CTX_1396_DEFAULT`]): bits 4-5
    /// equal to 0x20 skip the phase; bit 2 (& 4) lets MOVs of an immediate into the
    /// MOV-pair buffer, bit 3 (& 8) MOVs of a register.
    pub ctx_1396: u32,
    /// Phase 13's opcode-93 gate (`sub_753520`), our reading: ORI's class 95 exit
    /// without operands stands for the spec's opcode-93 chain-link marker (see
    /// [`early::opcode_93_classes`]). Off, no ORI class is opcode 93 — the spec taken
    /// literally — and the gate, hence phase 13, never passes. On unless a test
    /// switches it off.
    pub opcode_93_reading: bool,
    /// Phase 13's second pair detection (`sub_753570`): after the first redundant exit,
    /// follow the chain one more block (see `early.rs`). On unless a test switches it off.
    pub pair_detection: bool,
    /// Phase 13's secondary chain matcher (`sub_753E30`): equivalence across a register
    /// copy (a renaming boundary). On unless a test switches it off.
    pub secondary_chain: bool,
}

/// Our value of ctx+1396 (the spec names its bits, not where they come from): both
/// MOV kinds enabled (bits 2 and 3), bits 4-5 clear, so phase 58 runs whenever the
/// opt level lets it.
pub const CTX_1396_DEFAULT: u32 = 0x0C;

impl Options {
    pub fn from_knobs(phase: Phase, k: &Knobs) -> Self {
        Options {
            phase,
            sm: k.sm(),
            opt_level: k.ptxas_opt_level(),
            option_31: k.opt_int(Knob::PtxasOption31),
            option_135: k.opt_int(Knob::PtxasOption135),
            option_214: k.flag(Knob::PtxasOption214),
            option_231: k.flag(Knob::PtxasOption231),
            option_461: k.opt_int(Knob::PtxasOption461),
            option_464: k.limit(Knob::PtxasOption464),
            option_474: k.real(Knob::PtxasOption474),
            option_487: k.flag(Knob::PtxasOption487),
            option_605: k.flag(Knob::PtxasOption605),
            limit_fold_fp: k.flag(Knob::LimitFoldFp),
            convert_memory_to_register: k.flag(Knob::ConvertMemoryToRegisterOrUniform),
            ctx_1396: CTX_1396_DEFAULT,
            opcode_93_reading: true,
            pair_detection: true,
            secondary_chain: true,
        }
    }

    /// The SM generation (the encoded value's high bits).
    pub fn generation(&self) -> u32 {
        self.sm >> 12
    }

    /// Generation 4 and below: at most 20479 (0x4FFF), where select immediates fold
    /// without looking at the 0x1C00 constraint bits.
    pub fn sm_legacy(&self) -> bool {
        self.sm <= 20479
    }

    /// The tier at ctx+1379 & 7: 0 (aggressive) unless `limit-fold-fp` pushes float
    /// folds onto the conservative path.
    pub fn tier(&self) -> u8 {
        u8::from(self.limit_fold_fp)
    }

    /// The architecture predicate query (`sub_8F29C0`): dual-issue (class 4, Maxwell
    /// generation 4), NVLink-capable (Volta+, generation 7 and up), Grace — we map the
    /// first two onto the generation; no profile of ours is Grace.
    pub fn arch_predicate(&self) -> bool {
        let g = self.generation();
        g == 4 || g >= 7
    }

    /// Whether the architecture allows predicate marking (the vtable +1312 answer,
    /// `v21`): our model answers yes from generation 5 on.
    pub fn arch_marks_predicates(&self) -> bool {
        self.generation() >= 5
    }

    /// Why this instance does not run, or None when its gates pass.
    /// The opt-level gate of 29, 37 and 65: the accessor must be above 1.
    fn below_level_2(&self) -> Option<String> {
        (self.opt_level <= 1).then(|| {
            format!(
                "the opt-level accessor is {} (needs > 1)",
                self.opt_level
            )
        })
    }

    pub fn gate(&self) -> Option<String> {
        let n = self.phase.number();
        let why = match self.phase {
            Phase::Early => {
                if self.opt_level < 1 {
                    Some("the optimization flag (ctx+1382 bit 2) is clear at -O0".into())
                } else if self.option_214 {
                    Some("option 214 (DisableMergeEquivalentConditionalFlow) is set".into())
                } else if !self.option_487 {
                    Some("option 487 (general optimization) is off".into())
                } else {
                    None
                }
            }
            Phase::Standard => {
                if !self.option_487 {
                    Some("option 487 (general optimization) is off".into())
                } else if self.option_231 {
                    Some("option 231 (dump mode) is set".into())
                } else if self.option_461 == Some(0) {
                    Some("option 461 (MembarFlowControl) is 0".into())
                } else {
                    self.below_level_2()
                }
            }
            Phase::Mid => {
                if !self.option_487 {
                    Some("option 487 (general optimization) is off".into())
                } else if !self.convert_memory_to_register {
                    Some("--no-phase ConvertMemoryToRegisterOrUniform".into())
                } else {
                    self.below_level_2()
                }
            }
            Phase::Mid2 => {
                if hooks::mid2_body(self.sm).is_none() {
                    Some(format!(
                        "the SM profile 0x{:04x} has the no-op sentinel in vtable slot 0x1C0",
                        self.sm
                    ))
                } else {
                    None
                }
            }
            Phase::Late => {
                if self.opt_level <= 2 {
                    Some(format!(
                        "the opt-level accessor is {} (phase 58 needs > 2)",
                        self.opt_level
                    ))
                } else if self.ctx_1396 & 0x30 == 0x20 {
                    Some(format!(
                        "ctx+1396 is 0x{:x}: its bits 4-5 are 0x20 (a reduced optimization \
                         level; our model's value is 0x{CTX_1396_DEFAULT:x})",
                        self.ctx_1396
                    ))
                } else {
                    None
                }
            }
            Phase::Late2 => self.below_level_2(),
        };
        why.map(|w| format!("phase {n} skipped: {w}"))
    }
}

/// A round's counters, by name, in the order they were first bumped. Each counts
/// events of one walk of one block, at most a few per instruction: a u32, as
/// instruction numbers are.
pub type Counters = Vec<(GoCounterName, u32)>;

/// Counters as a trace payload carries them.
pub fn counter_cells(c: &Counters) -> Vec<crate::trace::GoCounter> {
    c.iter()
        .map(|&(k, v)| crate::trace::GoCounter::new(k, v))
        .collect()
}

/// The length of a list of one block's instructions as a counter value: instructions
/// are numbered by u32 ([`InstId`]), so it fits.
pub fn block_count(n: usize) -> u32 {
    debug_assert!(n <= u32::MAX as usize);
    n as u32
}

/// Our hard cap on any loop of these passes, on top of option 464: no block runs more
/// rounds than this, whatever the rewrites do.
pub fn hard_round_cap(block_len: usize) -> u32 {
    (block_len.min(2040) as u32) * 2 + 16
}

/// What a phase's body works on: the function, the instance's options, the register
/// table's tally, the run's statistics and the trace (each phase's `run` takes one).
pub struct Run<'a, R>(
    pub &'a mut Function,
    pub &'a Options,
    pub &'a mut Tally,
    pub &'a mut GoStats,
    pub &'a mut R,
);

/// Runs one instance over one function.
pub fn run<R: Recorder>(f: &mut Function, opts: &Options, rec: &mut R) -> Stats {
    let mut stats = GoStats::default();
    if f.is_decl || f.blocks.is_empty() {
        return stats.into();
    }
    if let Some(why) = opts.gate() {
        crate::stats::bump(&mut stats.gated, 1);
        ori_step(rec, f, || Step::new("gate", format!("{why}.")));
        return stats.into();
    }
    let tally = &mut Tally::new(f);
    rec.ori_begin(f);
    let body = Run(f, opts, tally, &mut stats, rec);
    match opts.phase {
        Phase::Early | Phase::Standard => variant_a(body),
        Phase::Mid => mid::run(body),
        Phase::Late => late::run(body),
        Phase::Mid2 | Phase::Late2 => hooks::run(body),
    }
    tally.settle(f);
    rec.ori_end(f);
    stats.into()
}

/// Runs one instance over every function of a module.
#[cfg(feature = "testkit")]
pub fn run_module<R: Recorder>(m: &mut ori::Module, opts: &Options, rec: &mut R) -> Stats {
    let mut stats = Stats::from(GoStats::default());
    for item in &mut m.items {
        if let ori::Item::Func(f) = item {
            stats.merge(&run(f, opts, rec));
        }
    }
    stats
}

/// Variant A: the per-block fixed-point loop (phases 13 and 29).
///
/// ```text
///  for block in layout order:
///    loop { changed = detect(block); if !changed break;
///           if !budget_464.take() { step "cap"; break }   // the emergency brake
///           apply(block) }                                 // apply-changes between rounds
/// ```
fn variant_a<R: Recorder>(Run(f, opts, tally, stats, rec): Run<'_, R>) {
    let phase = opts.phase.number();
    let mut targets = early::Targets::default();
    for b in f.blocks.keys() {
        let mut budget = opts.option_464;
        let cap = hard_round_cap(f.blocks[b].insts.len());
        let mut block_changed = false;
        let mut it = 0u32;
        loop {
            it += 1;
            stats.iterations += 1;
            let mut counters = Counters::new();
            let mut seen = Seen::new(tally);
            let changed = match opts.phase {
                Phase::Early => early::detect(f, b, opts, &mut targets, &mut counters),
                _ => {
                    forward::mark_block(f, b, opts, stats, &mut counters, &mut seen, rec)
                        || seen.dead > 0
                }
            };
            let budget_ok = match &mut budget {
                None => true,
                Some(0) => false,
                Some(n) => {
                    *n -= 1;
                    true
                }
            };
            let capped = changed && (!budget_ok || it >= cap);
            if R::ENABLED {
                let c = counter_cells(&counters);
                // Templates written here, so a round's sentence costs its numbers only
                // (every digit run of the sentence is one of them, as splitting it gives).
                let (p, bl) = (u64::from(phase), u64::from(b.as_u32()));
                let (template, args) = if !changed {
                    ("Phase \u{1}, block \u{1}, round \u{1}: no sub-pass fired, the block has converged.", [p, bl, it.into(), 0])
                } else if capped && !budget_ok {
                    ("Phase \u{1}, block \u{1}, round \u{1}: changes found, but the option-\u{1} budget is spent, so the loop stops here without applying them.", [p, bl, it.into(), 464])
                } else if capped {
                    ("Phase \u{1}, block \u{1}, round \u{1}: our hard cap of \u{1} rounds stops the loop.", [p, bl, it.into(), cap.into()])
                } else {
                    ("Phase \u{1}, block \u{1}, round \u{1}: sub-passes fired; apply-changes rewrites the block and the loop runs again.", [p, bl, it.into(), 0])
                };
                let n = template.matches('\u{1}').count();
                ori_step(rec, f, || {
                    let kind = if capped { "cap" } else { "round" };
                    Step::numbered(kind, template, &args[..n]).payload(
                        Payload::GoRound {
                            phase,
                            block: b,
                            iteration: it,
                            counters: c.into(),
                            changed,
                            capped,
                        },
                    )
                });
            }
            if !changed {
                break;
            }
            if capped {
                crate::stats::bump(&mut stats.cap_hits, 1);
                break;
            }
            block_changed = true;
            match opts.phase {
                Phase::Early => early::apply(f, b, opts, &mut targets, tally, stats, rec),
                _ => consume::apply_block(f, b, opts, tally, &seen, stats, rec),
            }
            if !R::ENABLED && opts.phase == Phase::Standard && tally.changes() == seen.epoch {
                // Apply-changes rewrote nothing, so the next walk would meet the block
                // as this one left it, and find nothing: a second marking walk over an
                // unchanged block sets no new bit (what the first set only keeps an
                // instruction from being marked again), and nothing is dead, or DCE
                // would have removed it. Untraced, that round is counted without the
                // walk; a traced run walks it, to show the round (the tests compare).
                stats.iterations += 1;
                break;
            }
        }
        if block_changed {
            stats.changed_blocks += 1;
        }
    }
}

/// Every register an instruction touches, guard included.
pub fn inst_regs(i: &ori::Inst) -> Vec<(RegId, bool)> {
    let mut v = Vec::with_capacity(i.operands.len() + 1);
    for_each_reg(i, |r, def| v.push((r, def)));
    v
}

/// True when removing the instruction changes nothing but its destinations.
pub fn is_pure(i: &ori::Inst) -> bool {
    pure_kind(i) && !carries(i)
}

/// [`is_pure`] without the carry-flag test: the class, origin and destination checks,
/// which read only the instruction itself.
fn pure_kind(i: &ori::Inst) -> bool {
    use Class::*;
    if !matches!(i.origin, Origin::Ptx) || i.ndst == 0 {
        return false;
    }
    matches!(
        i.class,
        Mov | MovSpecial
            | IntAdd
            | IntMul
            | Logic
            | Shift
            | FloatAdd
            | FloatMul
            | FloatFma
            | Convert
            | ConvertAddress
            | SetPred
            | Select
            | MinMax
            | HalfSet2
    ) && i
        .dsts()
        .iter()
        .all(|d| matches!(d.kind, OpKind::Reg(_) | OpKind::Pair(..)))
}

/// Carry-chain arithmetic writes the carry flag as well. Only the integer classes
/// carry, so the opcode text (a separate allocation) is read for those alone.
fn carries(i: &ori::Inst) -> bool {
    if !matches!(i.class, Class::IntAdd | Class::IntMul) {
        return false;
    }
    let op = i.opcode.as_str();
    // `contains(".cc")`, as a byte loop: these opcodes are a few bytes long.
    op.as_bytes()
        .windows(3)
        .any(|w| w[0] == b'.' && w[1] == b'c' && w[2] == b'c')
        || op.starts_with("addc")
        || op.starts_with("subc")
        || op.starts_with("madc")
}

/// The liveness check (`sub_7DF3A0`): true when some destination register still has a
/// use (status bits 0xC in the spec).
pub fn has_live_uses(f: &Function, i: &ori::Inst) -> bool {
    let mut live = false;
    for d in i.dsts() {
        crate::ori::regs::each_reg(d, true, &mut |r, _| {
            live |= f.regs[r].uses > 0
                || f.regs[r].constraint & (constraint::ASM | constraint::LIVE_OUT) != 0;
        });
    }
    live
}

/// True when DCE would remove the instruction as the table stands: pure, and no
/// destination has a use.
pub fn is_dead(f: &Function, i: &ori::Inst) -> bool {
    // Most instructions have a used destination: asking that first skips the opcode
    // text, which at 100k instructions is mostly out of cache.
    pure_kind(i) && !has_live_uses(f, i) && !carries(i)
}

/// What the marking walk over a block saw, so that apply-changes need not walk the
/// block again to find out.
///
/// The walk notes each instruction once the round's walk is done with it: marking
/// (and phase 37's promotion) rewrite only the instruction they stand on. `dead` counts
/// the instructions dead under the register table as it stood during the walk; the
/// table changes only through a rewrite announced to the [`Tally`], so while the
/// tally's change count is still `epoch`, DCE would find exactly nothing when `dead` is
/// 0, and its walk is skipped.
#[derive(Clone, Debug, Default)]
pub struct Seen {
    /// A move whose destination is marked 0x100 (step 1 of apply-changes).
    pub moves: bool,
    /// A select (step 2).
    pub selects: bool,
    /// A guarded instruction (step 3).
    pub guards: bool,
    /// Instructions dead when noted (step 4).
    pub dead: u64,
    /// [`Tally::changes`] when the walk began.
    pub epoch: u64,
}

impl Seen {
    /// Starts noting a walk; the block's table must be settled.
    pub fn new(tally: &Tally) -> Seen {
        Seen {
            epoch: tally.changes(),
            ..Seen::default()
        }
    }

    /// Notes one instruction the walk is done with.
    pub fn note(&mut self, f: &Function, id: InstId) {
        let i = &f.insts[id];
        self.moves |= i.class == Class::Mov
            && i.operands
                .first()
                .is_some_and(|o| o.flags & ori::flag::PROPAGATED != 0);
        self.selects |= i.class == Class::Select;
        self.guards |= i.guard.is_some();
        self.dead += u64::from(is_dead(f, i));
    }

    /// Whether DCE could remove anything from the block now.
    pub fn dce_needed(&self, tally: &Tally) -> bool {
        self.dead > 0 || tally.changes() != self.epoch
    }
}

/// Liveness-gated DCE on one block: removes dead instructions, walking backwards so a
/// chain of dead values goes in one sweep. Returns how many went.
///
/// The walk only takes a dead instruction out of the counts ([`Tally::forget`]), so the
/// values it read lose a use at once; untraced, the block's list is compacted once at
/// the end, which keeps a block with many dead instructions linear (traced, each
/// removal is made at its own step, so that the step carries it).
pub fn dce_block<R: Recorder>(
    f: &mut Function,
    b: BlockId,
    tally: &mut Tally,
    stats: &mut GoStats,
    rec: &mut R,
) -> u64 {
    tally.recount(f, b);
    // Which instructions could die at all does not depend on the counts: that is read
    // front to back first, an order the hardware prefetcher can stream from memory
    // (backwards, block after block, it cannot, and a large function pays a trip to
    // memory per instruction). The backward walk then finds the block in cache.
    // Traced, the walk reads it as it goes: a run that records steps keeps no table
    // the size of the block (its heap is the steps it keeps).
    let may_die: Vec<bool> = if R::ENABLED {
        Vec::new()
    } else {
        f.blocks[b]
            .insts
            .iter()
            .map(|&id| pure_kind(&f.insts[id]))
            .collect()
    };
    // Positions of the dead, last first.
    let mut gone: Vec<usize> = Vec::new();
    let mut removed = 0u64;
    let mut k = f.blocks[b].insts.len();
    while k > 1 {
        k -= 1;
        let id = f.blocks[b].insts[k];
        let i = &f.insts[id];
        let pure = if R::ENABLED {
            pure_kind(i)
        } else {
            may_die[k]
        };
        if !pure || has_live_uses(f, i) || carries(i) {
            continue;
        }
        let text = R::ENABLED.then(|| ori::print::inst_line(f, id));
        tally.forget(f, b, id);
        removed += 1;
        match text {
            // Traced, the removal is made here, so that its step carries it (walking
            // backwards, the positions still to visit do not move).
            Some(text) => {
                f.touch_block(b);
                f.blocks[b].insts.remove(k);
                ori_step(rec, f, || {
                    Step::new(
                        "dead",
                        format!("Block {b}: `{}` has no live use (liveness status & 0xC == 0) and is removed.", text.split('\t').next().unwrap_or("").trim()),
                    )
                    .focus(crate::trace::Focus::Inst { inst: ent(id) })
                });
            }
            None => gone.push(k),
        }
    }
    stats.dead_removed += removed;
    if !gone.is_empty() {
        f.touch_block(b);
        let mut pos = 0;
        f.blocks[b].insts.retain(|_| {
            let dead = gone.last() == Some(&pos);
            if dead {
                gone.pop();
            }
            pos += 1;
            !dead
        });
    }
    if removed > 0 {
        tally.recount(f, b);
    }
    removed
}

/// [`Recorder::ori_step`] for the steps of GeneralOptimize: each call site builds its
/// step, and the recorder's work (taking the journal's edits, keeping the step) runs
/// out of line, one copy rather than one inlined into every place a step is recorded
/// (about 18 of them). The step is built before the edits are taken rather than after;
/// building one reads nothing of `f`, so the recorded step is the same.
pub fn ori_step<R: Recorder>(rec: &mut R, f: &mut Function, make: impl FnOnce() -> Step) {
    if R::ENABLED {
        keep_step(rec, f, make());
    }
}

#[inline(never)]
fn keep_step<R: Recorder>(rec: &mut R, f: &mut Function, s: Step) {
    rec.ori_step(f, || s);
}

/// An instruction id as a number for trace focus.
pub fn ent(i: InstId) -> u32 {
    crate::entity::EntityRef::index(i) as u32
}

/// The printed PTX of one instruction (no annotation).
pub fn text(f: &Function, i: InstId) -> String {
    let mut s = String::new();
    crate::ptx::print::print_inst(&mut s, &ori::print::to_ptx(f, &f.insts[i], 0));
    String::from(s.trim())
}

/// Sets `mask` on the destination operand `k` of `id`; records a [`Payload::GoMark`].
/// Returns false when the bit was already set.
pub fn mark<R: Recorder>(
    f: &mut Function,
    id: InstId,
    k: usize,
    mask: u32,
    why: &str,
    stats: &mut GoStats,
    rec: &mut R,
) -> bool {
    let before = f.insts[id].operands[k].flag_word();
    if f.insts[id].operands[k].flags & mask == mask {
        return false;
    }
    f.touch_inst(id);
    f.insts[id].operands[k].flags |= mask;
    let after = f.insts[id].operands[k].flag_word();
    for (bit, counter) in [
        (0x100, &mut stats.marked_0x100),
        (0x200, &mut stats.marked_0x200),
        (0x400, &mut stats.marked_0x400),
    ] {
        if mask & bit != 0 && before & bit == 0 {
            *counter += 1;
        }
    }
    if R::ENABLED {
        let t = text(f, id);
        let class = f.insts[id].class.number();
        let why = String::from(why);
        ori_step(rec, f, || {
            Step::new(
                "mark",
                format!("`{t}` (class {class}): destination flag word 0x{before:x} → 0x{after:x}; {why}"),
            )
            .focus(crate::trace::Focus::Inst { inst: ent(id) })
            .payload(Payload::GoMark {
                inst: id,
                operand: k as u32,
                class,
                mask,
                before,
                after,
            })
        });
    }
    true
}
