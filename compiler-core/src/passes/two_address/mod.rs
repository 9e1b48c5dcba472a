//! TwoAddressInstruction, as CICC runs it (spec: `two-address-cicc.txt`).
//!
//! ```text
//!  for each block:                      (DistanceMap, SrcRegMap, DstRegMap, the two
//!    for each instruction:               equivalence-class maps and Processed are cleared)
//!      COPY / SUBREG_TO_REG ─────────────▶ skipped
//!      EXTRACT_SUBREG (N pairs) ─────────▶ decompose_extract_subreg → N COPYs
//!      REG_SEQUENCE ─────────────────────▶ eliminate_reg_sequence   → sub-register COPYs
//!      DistanceMap[MI] = ++dist; copies::process_copy
//!      tied::collect_tied_operands ── none ─▶ next
//!        one pair ─▶ transform::try_instruction_transform (commute, 3-addr, reschedule)
//!        else / failed ─▶ tied::process_tied_pairs (COPY before MI, class tightening)
//!      INSERT_SUBREG ─────────────────────▶ reg_sequence::rewrite_insert_subreg → COPY
//! ```
//!
//! Invariants after the pass: every tied use names the register of its def; no
//! EXTRACT_SUBREG, REG_SEQUENCE or INSERT_SUBREG is left; the function is out of SSA.
//! With LiveVariables (the pipeline's case) the analysis is kept current through
//! [`lv::LvUpkeep`]: at the end it equals LiveVariables computed on the output, and
//! `lv_updates` counts the updates that changed or confirmed it.

mod copies;
mod extract_subreg;
mod input_check;
mod lv;
mod reg_sequence;
mod tied;
mod transform;

#[cfg(test)]
mod tests;

#[cfg(feature = "testkit")]
pub use copies::collect_reg_copies;
pub use copies::CopyClasses;
pub use input_check::unsupported_input;
#[cfg(feature = "testkit")]
pub use input_check::Refusal;
pub use tied::{common_subclass, TiedOperandMap};

use crate::entity::{dense_map, SecondaryMap};
use crate::liveness::LiveVariables;
use crate::mir::{Block, Function, Inst, Op, Reg, VReg};
use crate::passes::uses::DefUse;
use crate::stats::Stats;
use crate::trace::{Editor, Recorder, Step};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// Options of the pass (knobs `twoaddr-reschedule`, `dataflow-edge-limit`, `optnone`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TwoAddressOptions {
    /// `twoaddr-reschedule` (default true): try moving instructions to avoid a COPY.
    pub reschedule: bool,
    /// `dataflow-edge-limit` (default 3): how far isProfitableToCommute follows copies.
    pub dataflow_edge_limit: u32,
    /// `optnone` / fast-compile gate: the pass only inserts COPYs.
    pub optnone: bool,
    /// Whether LiveVariables is available (true in the pipeline; `llc -run-pass` alone
    /// runs without it, which leaves kill flags removed rather than moved).
    pub live_variables: bool,
    /// Switches that turn one named mechanism off, for the mutation tests (all on by
    /// default; no knob reads them).
    pub mechanisms: Mechanisms,
}

/// One switch per mechanism the trace names (`tests/two_address_mutations.rs` turns
/// each off and shows what changes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mechanisms {
    /// The six-step LiveVariables chain per EXTRACT_SUBREG COPY.
    pub lv_chain: bool,
    /// The earlyTied mark on a later pair's COPY (both hint bits set).
    pub early_tied: bool,
    /// SrcRegMap / DstRegMap deciding a commute in isProfitableToCommute.
    pub commute_preference: bool,
    /// REG_SEQUENCE: undef sources give no COPY (all undef: IMPLICIT_DEF).
    pub reg_sequence_undef_lanes: bool,
    /// INSERT_SUBREG becomes a sub-register COPY once its tie is met.
    pub insert_subreg_rewrite: bool,
}

impl Default for Mechanisms {
    fn default() -> Self {
        Mechanisms {
            lv_chain: true,
            early_tied: true,
            commute_preference: true,
            reg_sequence_undef_lanes: true,
            insert_subreg_rewrite: true,
        }
    }
}

impl Default for TwoAddressOptions {
    fn default() -> Self {
        TwoAddressOptions {
            reschedule: true,
            dataflow_edge_limit: 3,
            optnone: false,
            live_variables: true,
            mechanisms: Mechanisms::default(),
        }
    }
}

crate::stats::pass_stats! {
    /// The counters DESIGN's CLI contract names, in that order, plus a few more (JSON
    /// keys in this order).
    pub struct TwoAddressStats {
        extract_subreg_pseudos,
        extract_subreg_copies,
        early_tied_hints,
        lv_updates,
        reg_sequence_eliminated,
        insert_subreg_rewritten,
        tied_pairs,
        commuted,
        rescheduled,
        copies_inserted,
        undef_ties_rewritten,
        three_address_attempts,
        remarks,
    }
}

/// Runs the pass over `f`.
#[cfg(any(feature = "testkit", feature = "testgen"))]
pub fn run(f: &mut Function, opts: &TwoAddressOptions, rec: &mut impl Recorder) -> Stats {
    run_with_classes(f, opts, rec).0
}

/// Runs the pass and also returns the copy-equivalence classes it built.
pub fn run_with_classes<R: Recorder>(
    f: &mut Function,
    opts: &TwoAddressOptions,
    rec: &mut R,
) -> (Stats, CopyClasses) {
    let r = run_with_live_variables(f, opts, rec, None);
    (r.stats, r.classes)
}

/// What a run leaves besides the rewritten function.
pub struct TwoAddressResult {
    pub stats: Stats,
    /// SrcEqClassMap / DstEqClassMap over the whole function.
    pub classes: CopyClasses,
    /// The LiveVariables the pass maintained (None without `live_variables`); the
    /// tests compare it with a recomputation.
    #[cfg(feature = "testkit")]
    pub live_variables: Option<LiveVariables>,
}

/// Runs the pass on `lv`, the LiveVariables PHI elimination kept
/// (`phi_elim::run_keeping_live_variables`); with None and `live_variables` set, the
/// analysis is computed from `f` first.
pub fn run_with_live_variables<R: Recorder>(
    f: &mut Function,
    opts: &TwoAddressOptions,
    rec: &mut R,
    lv: Option<LiveVariables>,
) -> TwoAddressResult {
    let tracing = R::ENABLED;
    let mut opts = opts.clone();
    opts.optnone |= f.props.optnone;
    let opts = &opts;
    let handed_over = lv.is_some();
    let lv = lv::LvUpkeep::new(f, opts.live_variables, lv);
    let mut p = TwoAddr {
        ed: Editor::new(f, tracing),
        rec,
        opts: opts.clone(),
        stats: TwoAddressStats::default(),
        du: DefUse::default(),
        du_ready: false,
        lv,
        dist: SecondaryMap::new(),
        dist_set: Vec::new(),
        block_tables: false,
        src_reg_map: BTreeMap::new(),
        dst_reg_map: BTreeMap::new(),
        processed: SecondaryMap::new(),
        processed_set: Vec::new(),
        classes: CopyClasses::default(),
        block_classes: CopyClasses::default(),
        attempts: None,
        tie_counted: SecondaryMap::new(),
        commute_tried: None,
    };
    let flags_changed = if opts.live_variables && !handed_over {
        p.lv_write_flags()
    } else {
        0
    };
    p.gate_step(flags_changed);
    let blocks: Vec<Block> = p.ed.f.layout.blocks().collect();
    for b in blocks {
        p.run_block(b);
    }
    let no_phis = p.ed.f.props.no_phis;
    p.ed.set_props(no_phis, false);
    let edits = p.ed.take_edits();
    let stats = p.stats.clone();
    p.rec.step(move || {
        let mut s = Step::numbered("done",
            "Two-address finished: \u{1} COPYs inserted, \u{1} EXTRACT_SUBREG pairs split, \u{1} REG_SEQUENCE and \u{1} INSERT_SUBREG lowered; the function is no longer in SSA form.",
            &[stats.copies_inserted, stats.extract_subreg_copies, stats.reg_sequence_eliminated, stats.insert_subreg_rewritten],
        );
        s.edits = edits.into();
        s
    });
    TwoAddressResult {
        #[cfg(feature = "testkit")]
        live_variables: p.lv.enabled.then(|| core::mem::take(&mut p.lv.lv)),
        stats: p.stats.into(),
        classes: p.classes,
    }
}

/// Whether the walk counts `opcode` in the block's DistanceMap: every instruction but
/// COPY and SUBREG_TO_REG, which [`TwoAddr::run_block`] passes by.
fn has_distance(opcode: crate::mir::Opcode) -> bool {
    !opcode.is(Op::COPY) && !opcode.is(Op::SUBREG_TO_REG)
}

/// The pass state. Per-block tables are cleared at every block boundary, as the spec
/// says; clearing walks only the entries set, so a block costs what it contains.
pub(crate) struct TwoAddr<'f, 'r, R: Recorder> {
    pub ed: Editor<'f>,
    pub rec: &'r mut R,
    pub opts: TwoAddressOptions,
    pub stats: TwoAddressStats,
    /// The def/use lists, computed when the walk first reaches an instruction with
    /// work to do ([`TwoAddr::def_use`]; empty until `du_ready`): until then the pass
    /// has edited no operand, so they are what a computation at the start would hold,
    /// and a function with no ties and no subregister pseudos (a loop of COPYs, as
    /// `phi_swaps` gives) never pays for them (LLVM keeps its lists in
    /// MachineRegisterInfo, outside the pass).
    pub du: DefUse,
    du_ready: bool,
    pub lv: lv::LvUpkeep,
    /// DistanceMap: position of each visited instruction in the block (0 = not visited).
    /// Filled once the walk of a block reaches its first instruction with work to do
    /// ([`TwoAddr::fill_block_tables`]), as every reader comes after that point; a
    /// block of COPYs and untied instructions (all of `phi_swaps`) writes none.
    pub dist: SecondaryMap<Inst, u32>,
    dist_set: Vec<Inst>,
    /// Whether this block's DistanceMap holds the instructions visited so far.
    block_tables: bool,
    /// SrcRegMap / DstRegMap: virtual → register it may be coalesced with.
    pub src_reg_map: BTreeMap<VReg, Reg>,
    pub dst_reg_map: BTreeMap<VReg, Reg>,
    pub processed: SecondaryMap<Inst, bool>,
    processed_set: Vec<Inst>,
    /// Function-wide union of the per-block equivalence classes (for the coalescers).
    pub classes: CopyClasses,
    /// This block's SrcEqClassMap / DstEqClassMap.
    pub block_classes: CopyClasses,
    /// What try_instruction_transform tried on an instruction, for the COPY's payload.
    pub attempts: Option<(Inst, Vec<crate::trace::TieAttempt>)>,
    /// Instructions whose tied pairs were counted (`tied_pairs`): a rescheduled
    /// instruction is visited again at its new place but its ties count once.
    pub tie_counted: SecondaryMap<Inst, bool>,
    /// The instruction tryInstructionCommute evaluated (LLVM's flag for "commuting was
    /// attempted"): processTiedPairs emits its remark only then.
    pub commute_tried: Option<Inst>,
}

impl<R: Recorder> TwoAddr<'_, '_, R> {
    fn gate_step(&mut self, flags_changed: usize) {
        // The sentences are written out in full (each a template of the program's).
        macro_rules! gate_texts {
            ($($mode:literal),*) => {
                [$(($mode, concat!($mode, " LiveVariables was computed for the pass and rewrote the kill and dead flags of \u{1} instructions to match it."))),*]
            };
        }
        const TEXTS: [(&str, &str); 3] = gate_texts!(
            "The function carries the optnone attribute: the optimization level is forced to None, so ties are met by COPYs only — no commuting, no rescheduling.",
            "optnone / fast-compile gate is on (knob): the optimization level is forced to None, so ties are met by COPYs only — no commuting, no rescheduling.",
            "Optimizing mode: a tie may be met by commuting or rescheduling before a COPY is inserted. Three-address conversion is tried too, but NVPTX has no three-address forms to convert to."
        );
        let mode = match (self.opts.optnone, self.ed.f.props.optnone) {
            (true, true) => 0,
            (true, false) => 1,
            (false, _) => 2,
        };
        self.step(|| {
            let (plain, with_flags) = TEXTS[mode];
            if flags_changed > 0 {
                Step::numbered("gate", with_flags, &[flags_changed as u64])
            } else {
                Step::fixed("gate", plain)
            }
        });
    }

    pub(crate) fn set_dist(&mut self, i: Inst, d: u32) {
        if self.dist[i] == 0 {
            self.dist_set.push(i);
        }
        self.dist[i] = d;
    }

    pub(crate) fn mark_processed(&mut self, i: Inst) {
        if !self.processed[i] {
            self.processed[i] = true;
            self.processed_set.push(i);
        }
    }

    fn clear_block_state(&mut self) {
        self.block_tables = false;
        for i in self.dist_set.drain(..) {
            self.dist[i] = 0;
        }
        for i in self.processed_set.drain(..) {
            self.processed[i] = false;
        }
        self.src_reg_map.clear();
        self.dst_reg_map.clear();
        self.block_classes = CopyClasses::default();
    }

    fn run_block(&mut self, b: Block) {
        self.clear_block_state();
        let mut dist: u32 = 0;
        let mut cur = self.ed.f.layout.first_inst(b);
        while let Some(mi) = cur {
            let mut next = self.ed.f.layout.next_inst(mi);
            let opcode = self.ed.f.insts[mi].opcode;
            if !has_distance(opcode) {
                cur = next;
                continue;
            }
            if opcode.is(Op::EXTRACT_SUBREG) {
                self.fill_block_tables(b, mi);
                self.def_use();
                self.decompose_extract_subreg(mi);
                cur = next;
                continue;
            }
            if opcode.is(Op::REG_SEQUENCE) {
                self.fill_block_tables(b, mi);
                self.def_use();
                self.eliminate_reg_sequence(mi);
                cur = next;
                continue;
            }
            dist += 1;
            // Ties nothing and is not INSERT_SUBREG (the one copy-like instruction that
            // gets here; processCopy records nothing for others): nothing to do, and
            // nothing to read from the def/use lists or the block's tables.
            let idle = tied::ties_nothing(&self.ed.f.insts[mi]);
            if !idle {
                self.fill_block_tables(b, mi);
            }
            if self.block_tables {
                self.set_dist(mi, dist);
            }
            if idle {
                cur = next;
                continue;
            }
            self.def_use();
            self.process_copy(mi);
            let mut tied = TiedOperandMap::new();
            if !self.collect_tied_operands(mi, &mut tied) {
                cur = next;
                continue;
            }
            if let Some((src_idx, dst_idx)) = tied.single_pair() {
                let (s, d) = {
                    let ops = &self.ed.f.insts[mi].operands;
                    (ops[src_idx].get_reg(), ops[dst_idx].get_reg())
                };
                if s != d {
                    if let Some(transform::Resume(resume)) =
                        self.try_instruction_transform(mi, src_idx, dst_idx, &mut dist)
                    {
                        cur = resume;
                        continue;
                    }
                }
            }
            for (_, pairs) in tied.iter() {
                self.process_tied_pairs(mi, pairs, &mut dist);
            }
            if self.ed.f.insts[mi].is(Op::INSERT_SUBREG)
                && self.opts.mechanisms.insert_subreg_rewrite
            {
                self.rewrite_insert_subreg(mi);
            }
            // The transform may have moved `mi`; the saved successor stays right.
            if next.is_some_and(|n| self.ed.f.layout.inst_block(n) != Some(b)) {
                next = None;
            }
            cur = next;
        }
    }

    /// Fills this block's DistanceMap for the instructions before `mi`, unless done
    /// already, with the distances the walk counted for them (one for every instruction
    /// but COPY and SUBREG_TO_REG). Until the walk reaches `mi`, the first instruction
    /// of the block with work to do, it has changed nothing in the block, so counting
    /// again from the block's start gives the same numbers. The per-instruction tables
    /// are sized for the whole function the first time any block needs them.
    fn fill_block_tables(&mut self, b: Block, mi: Inst) {
        if self.block_tables {
            return;
        }
        self.block_tables = true;
        // (Sized once: `tie_counted` holds the whole function's entries.)
        if self.dist.capacity() == 0 {
            let n = self.ed.f.insts.len();
            self.dist = dense_map(0, n);
            self.processed = dense_map(false, n);
            self.tie_counted = dense_map(false, n);
        }
        let mut dist = 0;
        let mut cur = self.ed.f.layout.first_inst(b);
        while let Some(i) = cur.filter(|&i| i != mi) {
            if has_distance(self.ed.f.insts[i].opcode) {
                dist += 1;
                self.set_dist(i, dist);
            }
            cur = self.ed.f.layout.next_inst(i);
        }
    }

    /// Computes the def/use lists from the function unless done already (see the
    /// field [`TwoAddr::du`]): called before the work of any instruction that reads
    /// or edits them.
    fn def_use(&mut self) {
        if !self.du_ready {
            self.du = DefUse::compute(self.ed.f);
            self.du_ready = true;
        }
    }

    /// Records a step with the edits made since the previous one.
    pub(crate) fn step(&mut self, make: impl FnOnce() -> Step) {
        crate::trace::record(self.rec, &mut self.ed, make);
    }

    /// A register's name for a step's narration (empty when tracing is off).
    pub(crate) fn trace_name(&self, r: Reg) -> alloc::string::String {
        crate::trace::narration_reg::<R>(self.ed.f, r)
    }

    /// A register's name for remarks and payloads, which are kept with tracing off.
    pub(crate) fn reg_name(&self, r: Reg) -> alloc::string::String {
        crate::mir::print::reg_string(self.ed.f, r)
    }
}
