//! The generic RegisterCoalescer (LLVM's, which CICC runs unchanged before its own
//! NVPTX coalescer; spec: `register-coalescing-cicc.txt`).
//!
//! ```text
//!  LiveIntervals ─▶ blocks in priority order (loop depth, connectivity, number)
//!    per block: collect COPYs (terminal-rule copies last) ─▶ join_copy each
//!    late interval updates (remat.rs), then: retry every failed COPY until a whole
//!    round makes no progress, late interval updates again
//!  join_copy(dst = COPY src):
//!    dead (nobody reads dst) ─▶ erase it and what only it kept alive (dead.rs)
//!    identity ─▶ erase │ classes can't meet ─▶ give up │ partial (sub-register) ─▶ leave
//!    bigger interval keeps its name; a large interval tried too often ─▶ fails;
//!    then the value check:
//!      every value of one register defined where the other is live must be a copy of
//!      the other's value there (followed through COPY chains) ─▶ join, else conflict
//!    join: rename src → dst everywhere, erase the COPY and every copy made redundant,
//!          live range of dst = union of both
//!    on failure, in LLVM's order (each its own step):
//!      rematerialize a cheap constant def (remat.rs) ─▶ COPY replaced
//!      adjustCopiesBackFrom (rescue.rs) ─▶ COPY erased, dst's older value extended
//!      removePartialRedundancy (rescue.rs) ─▶ COPY moved into the colder predecessor
//!      else: conflict, retried in later rounds
//!  finally: kill flags are dropped (llc-22 prints none after this pass)
//! ```
//!
//! Invariant: a join never puts two different values in one register at one point, so
//! the function computes the same results (the interpreter tests check this).
//! removeCopyByCommutingDef needs a commutable def whose result is tied to a use; after
//! two-address no NVPTX instruction has one, so that step is not modelled.

mod dead;
mod join;
pub mod order;
mod remat;
mod rescue;

use crate::entity::{EntityRef, SecondaryMap};
use crate::liveness::{LiveRange, SlotIndexes};
use crate::mir::{oflag, Function, Inst, Op, Reg, RegClass, VReg};
use crate::passes::uses::DefUse;
use crate::stats::Stats;
use crate::trace::{CoalesceDecision, DecisionRanges, Editor, Focus, Payload, Recorder, Step, Verdict};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The generic coalescer's knobs (LLVM names, spec defaults).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoalescerOptions {
    /// `join-liveintervals`: master switch.
    pub join_liveintervals: bool,
    /// `join-splitedges`: NVPTX's subtarget leaves it off.
    pub join_splitedges: bool,
    /// `join-globalcopies`: NVPTX's subtarget leaves it off (one block order for all copies).
    pub join_globalcopies: bool,
    /// `terminal-rule`: copies whose destination has no other copy, and which would
    /// block a better join of their source, go last (on in llc-22).
    pub terminal_rule: bool,
    /// `verify-coalescing`: check the function before and after.
    pub verify_coalescing: bool,
    /// `late-remat-update-threshold`: once a rematerialized def has this many copy
    /// uses left, its interval is brought up to date after the block walk, not at once.
    pub late_remat_update_threshold: u32,
    /// `large-interval-size-threshold`: this many values or more makes an interval large.
    pub large_interval_size_threshold: u32,
    /// `large-interval-freq-threshold`: join attempts allowed with one large interval.
    pub large_interval_freq_threshold: u32,
    /// Mutation switch for tests, not a knob (llc-22 has none): a COPY that cannot be
    /// joined is never rematerialized (`remat.rs`).
    #[doc(hidden)]
    pub no_remat: bool,
    /// Test switch, not a knob: every decision keeps its ranges and conflicts whole,
    /// read afresh from the pass's ranges, none kept against a shared base or rebuilt
    /// from the ranges (the reference `tests/register_coalescer_ranges.rs` compares
    /// the compact form with).
    #[doc(hidden)]
    pub fresh_ranges: bool,
}

impl Default for CoalescerOptions {
    fn default() -> Self {
        CoalescerOptions {
            join_liveintervals: true,
            join_splitedges: false,
            join_globalcopies: false,
            terminal_rule: true,
            verify_coalescing: false,
            late_remat_update_threshold: 100,
            large_interval_size_threshold: 100,
            large_interval_freq_threshold: 256,
            no_remat: false,
            fresh_ranges: false,
        }
    }
}

crate::stats::coalescer_stats! {
    /// The generic coalescer's counters (JSON keys in this order: the shared coalescer
    /// keys, then these). `rb_rotations` is in the CLI contract's list for both
    /// coalescers (DESIGN.md); this pass keeps no tree, so the count of rotations it
    /// makes is honestly zero.
    pub struct CoalescerStats {
        identity_erased,
        terminal_deferred,
        class_rejections,
        rematerialized,
        copies_extended,
        partial_redundancy,
        large_interval_rejections,
        dead_erased,
    }
    optional {
        /// `verify-coalescing`: verifier errors before or after coalescing, when there were any.
        verify_errors,
    }
}

/// What both coalescers (this one and NVPTX's) work on: the function through its editor,
/// the recorder of steps, the def/use lists and the slot indexes the live ranges are
/// measured in (LLVM's RegisterCoalescer keeps them as members: MF, MRI, LIS).
pub(crate) struct Cx<'f, 'r, R: Recorder> {
    pub ed: Editor<'f>,
    pub rec: &'r mut R,
    pub du: DefUse,
    pub si: SlotIndexes,
}

impl<'f, 'r, R: Recorder> Cx<'f, 'r, R> {
    pub fn new(f: &'f mut Function, rec: &'r mut R, du: DefUse, si: SlotIndexes) -> Self {
        Cx {
            ed: Editor::new(f, R::ENABLED),
            rec,
            du,
            si,
        }
    }
}

pub(crate) struct Coalescer<'f, 'r, R: Recorder> {
    pub cx: Cx<'f, 'r, R>,
    pub opts: CoalescerOptions,
    pub stats: CoalescerStats,
    /// Current live range of every register (moved into the survivor on a join).
    pub ranges: Vec<LiveRange>,
    /// Join attempts made with each large register (LargeLIVisitCounter).
    pub join_count: SecondaryMap<VReg, u32>,
    /// Sources of rematerialized defs whose ranges wait for the late update.
    pub to_be_updated: Vec<VReg>,
    /// Predecessors of every block (the CFG does not change here).
    pub preds: SecondaryMap<crate::mir::Block, Vec<crate::mir::Block>>,
    /// Joins, remats and other removals so far: a retry round that adds none stops.
    pub progress: u64,
    /// Every join as (gone, keep), in order: the copy-equivalence classes two-address
    /// handed over are renamed with them (`run_renaming_classes`).
    pub renames: Vec<(VReg, VReg)>,
    /// Recording only: for each register with a base (a large range the decisions
    /// about it keep theirs against: `DecisionRanges::against`), the last ranges that
    /// hold it (none for the others; indexed by register, as the other per-register
    /// tables here, rather than a map of its own: no tree code for it in the wasm).
    pub bases: SecondaryMap<VReg, Option<DecisionRanges>>,
}

/// The two virtual registers of a COPY, sub-registers ignored (LLVM's isMoveInstr).
pub(crate) fn copy_regs(f: &Function, i: Inst) -> Option<(VReg, VReg)> {
    let d = &f.insts[i];
    if !d.is(Op::COPY) || d.operands.len() < 2 {
        return None;
    }
    Some((d.operands[0].vreg_of()?, d.operands[1].vreg_of()?))
}

/// Whether `i` is a full-register virtual COPY, with (dst, src).
pub(crate) fn full_copy(f: &Function, i: Inst) -> Option<(VReg, VReg)> {
    let d = &f.insts[i];
    if !d.is(Op::COPY) || d.operands.len() < 2 {
        return None;
    }
    let (a, b) = (&d.operands[0], &d.operands[1]);
    if a.subreg.is_some() || b.subreg.is_some() {
        return None;
    }
    Some((a.vreg_of()?, b.vreg_of()?))
}

#[cfg(any(feature = "testkit", feature = "testgen"))]
pub fn run<R: Recorder>(f: &mut Function, opts: &CoalescerOptions, rec: &mut R) -> Stats {
    run_renaming(f, opts, rec).0
}

/// [`run`], keeping two-address's copy-equivalence classes true: each join renames the
/// register it removes to the one it keeps in `classes` (the pipeline's hand-over).
pub fn run_renaming_classes<R: Recorder>(
    f: &mut Function,
    opts: &CoalescerOptions,
    rec: &mut R,
    classes: Option<&mut crate::passes::copy_classes::CopyClasses>,
) -> Stats {
    let (stats, renames) = run_renaming(f, opts, rec);
    if let Some(c) = classes {
        for (gone, keep) in renames {
            c.rename(gone, keep);
        }
    }
    stats
}

/// [`run`], also returning every join as (register removed, register kept), in order.
pub fn run_renaming<R: Recorder>(
    f: &mut Function,
    opts: &CoalescerOptions,
    rec: &mut R,
) -> (Stats, Vec<(VReg, VReg)>) {
    let mut stats = CoalescerStats::default();
    if !opts.join_liveintervals {
        let copies_before = count_copies(f);
        stats.copies_before = copies_before;
        rec.step(|| {
            Step::new(
                "disabled",
                "join-liveintervals is off: the coalescer leaves every COPY alone.",
            )
        });
        stats.copies_after = copies_before;
        return (stats.into(), Vec::new());
    }
    // One control flow graph and one set of predecessor lists serve the intervals,
    // the block order and the pass.
    let cfg = crate::mir::cfg::Cfg::new(f);
    // The def/use lists are filled, and the COPYs counted, on the walk that collects
    // the accesses (a walk of its own would read every instruction once more).
    let mut du = DefUse::for_function(f);
    let mut copies_before = 0;
    let (si, ranges) = crate::liveness::LiveIntervals::ranges_visiting_on(f, &cfg, |_, i, d| {
        du.note_inst(i, d);
        copies_before += u64::from(d.is(Op::COPY));
    });
    stats.copies_before = copies_before;
    let preds = f.predecessors();
    let order = order::block_priority(f, &cfg, &preds, opts.join_splitedges);
    drop(cfg);
    let mut c = Coalescer {
        cx: Cx::new(f, rec, du, si),
        opts: opts.clone(),
        stats,
        ranges,
        join_count: SecondaryMap::new(),
        to_be_updated: Vec::new(),
        preds,
        progress: 0,
        renames: Vec::new(),
        bases: SecondaryMap::new(),
    };
    let blocks: Vec<crate::mir::Block> = order.iter().map(|&(b, _)| b).collect();
    c.ranges_step();
    c.intro_step(&blocks);
    if c.opts.verify_coalescing {
        c.verify_step("before");
    }
    let mut worklist: Vec<Inst> = Vec::new();
    // With join-globalcopies, copies local to one block wait until every block of their
    // loop depth has been seen; the others are tried at once.
    let mut locals: Vec<Inst> = Vec::new();
    let mut depth_now = order.first().map_or(0, |&(_, d)| d);
    for (b, depth) in order {
        if c.opts.join_globalcopies && depth < depth_now {
            c.coalesce_locals(&mut locals, &mut worklist);
            depth_now = depth;
        }
        let (mut list, mut terminals, mut local_list, mut local_terms) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in c.cx.ed.f.layout.block_insts(b) {
            if !c.cx.ed.f.insts[i].is(Op::COPY) {
                continue;
            }
            let terminal = c.apply_terminal_rule(i);
            let local = c.opts.join_globalcopies && c.is_local_copy(i);
            match (local, terminal) {
                (true, true) => local_terms.push(i),
                (true, false) => local_list.push(i),
                (false, true) => terminals.push(i),
                (false, false) => list.push(i),
            }
        }
        let deferred = terminals.len() + local_terms.len();
        if deferred > 0 {
            c.stats.terminal_deferred += deferred as u64;
            let bn = c.cx.ed.f.blocks[b].number;
            c.step(|| Step::new("terminal_rule", format!("In %bb.{bn}, {deferred} COPY(s) go to the end of the list (terminal rule): each one's destination has no other copy, while another copy of its source in this block pairs the source with a register that has more copies and is live where the destination is.")));
        }
        local_list.extend(local_terms);
        locals.extend(local_list);
        list.extend(terminals);
        for i in list {
            if !c.try_join(i) {
                worklist.push(i);
            }
        }
    }
    c.late_interval_update();
    c.coalesce_locals(&mut locals, &mut worklist);
    // Joins can make other joins possible: retry until a round makes no progress.
    loop {
        worklist.retain(|&i| c.cx.ed.f.layout.is_inserted(i));
        if worklist.is_empty() {
            break;
        }
        c.stats.retry_rounds += 1;
        let round = c.stats.retry_rounds;
        let pending = worklist.len();
        c.step(|| {
            Step::new(
                "retry_round",
                format!(
                    "Round {round}: retrying the {pending} COPY(s) that could not be joined yet."
                ),
            )
        });
        let before = c.progress;
        let list = core::mem::take(&mut worklist);
        for i in list {
            if c.cx.ed.f.layout.is_inserted(i) && !c.try_join(i) {
                worklist.push(i);
            }
        }
        if c.progress == before {
            break;
        }
    }
    c.late_interval_update();
    // llc-22 prints no kill flags after coalescing: they are not kept current. The
    // same walk counts the COPYs left.
    let mut after = 0;
    let mut placed = Vec::with_capacity(c.cx.ed.f.num_insts());
    for (_, i) in c.cx.ed.f.all_insts() {
        after += u64::from(c.cx.ed.f.insts[i].is(Op::COPY));
        placed.push(i);
    }
    c.cx.ed.drop_kills(placed);
    if c.opts.verify_coalescing {
        c.verify_step("after");
    }
    c.stats.copies_after = after;
    let joined = c.stats.joined;
    c.step(|| Step::new("done", format!("Coalescing finished: {joined} joins, {copies_before} COPYs before, {after} after. Kill flags are dropped, as LLVM does here.")));
    (c.stats.into(), c.renames)
}

fn count_copies(f: &Function) -> u64 {
    f.all_insts()
        .filter(|&(_, i)| f.insts[i].is(Op::COPY))
        .count() as u64
}

impl<R: Recorder> Coalescer<'_, '_, R> {
    pub(crate) fn step(&mut self, make: impl FnOnce() -> Step) {
        crate::trace::record(self.cx.rec, &mut self.cx.ed, make);
    }

    /// Tries the local copies collected so far; the ones that fail join the global list.
    fn coalesce_locals(&mut self, locals: &mut Vec<Inst>, worklist: &mut Vec<Inst>) {
        if locals.is_empty() {
            return;
        }
        let n = locals.len();
        self.step(|| {
            Step::new(
                "local_copies",
                format!("join-globalcopies: now the {n} copies whose registers live in one block."),
            )
        });
        for i in core::mem::take(locals) {
            if self.cx.ed.f.layout.is_inserted(i) && !self.try_join(i) {
                worklist.push(i);
            }
        }
    }

    /// isLocalCopy: a virtual COPY (source not undef) one of whose registers lives
    /// inside a single block (LLVM tests either register, not both).
    fn is_local_copy(&self, copy: Inst) -> bool {
        let d = &self.cx.ed.f.insts[copy];
        if d.operands.len() < 2 || d.operands[1].has(oflag::UNDEF) {
            return false;
        }
        let (Some(dst), Some(src)) = (d.operands[0].vreg_of(), d.operands[1].vreg_of()) else {
            return false;
        };
        self.in_one_block(src) || self.in_one_block(dst)
    }

    /// intervalIsInOneMBB: the range starts and ends inside one block, neither end on
    /// a block boundary.
    fn in_one_block(&self, v: VReg) -> bool {
        use crate::liveness::Slot;
        let r = &self.ranges[v.index()];
        let (Some(a), Some(e)) = (r.begin_index(), r.end_index()) else {
            return false;
        };
        if a.slot() == Slot::Block || e.slot() == Slot::Block {
            return false;
        }
        let last = crate::liveness::SlotIndex::from_raw(e.raw() - 1);
        self.cx.si.block_of(a).is_some() && self.cx.si.block_of(a) == self.cx.si.block_of(last)
    }

    /// verify-coalescing: the verifier's verdict as a step (and a stat on failure).
    fn verify_step(&mut self, when: &'static str) {
        let errs = crate::mir::verify(self.cx.ed.f, crate::mir::VerifyLevel::PostTwoAddress);
        let n = errs.len();
        if n > 0 {
            crate::stats::bump(&mut self.stats.verify_errors, n as u64);
        }
        let first = errs.first().map(|e| e.message.clone()).unwrap_or_default();
        self.step(|| {
            Step::new(
                "verify",
                if n == 0 { format!("verify-coalescing: the function verifies {when} coalescing.") } else { format!("verify-coalescing: {n} verifier error(s) {when} coalescing, first: {first}") },
            )
        });
    }

    /// The live range of every register as the pass starts (the picture's bars).
    fn ranges_step(&mut self) {
        if !R::ENABLED {
            return;
        }
        let n = self.ranges.iter().filter(|r| !r.is_empty()).count();
        self.step(|| {
            Step::new("live_ranges", format!("Live intervals computed: {n} registers each have a range of program points; two registers can share one only where these ranges never disagree."))
                .payload(Payload::LiveRanges { rows: Vec::new(), registers: n as u32 })
        });
    }

    fn intro_step(&mut self, order: &[crate::mir::Block]) {
        if !R::ENABLED {
            return;
        }
        let names: Vec<String> = order
            .iter()
            .map(|&b| format!("%bb.{}", self.cx.ed.f.blocks[b].number))
            .collect();
        self.step(|| {
            Step::new(
                "block_order",
                format!(
                    "Blocks are visited deepest loop first, then by how connected they are: {}.",
                    names.join(", ")
                ),
            )
        });
    }

    /// `%v`, for narration (empty with tracing off, where nobody reads it).
    pub(crate) fn name(&self, v: VReg) -> String {
        if R::ENABLED {
            format!("%{}", v.index())
        } else {
            String::new()
        }
    }

    /// Both ranges as they are now, for a step's decision payload (None with tracing
    /// off, where nobody reads them): `a`'s against its base when that is smaller.
    pub(crate) fn decision_ranges(&mut self, a: VReg, b: VReg) -> Option<DecisionRanges> {
        if !R::ENABLED {
            return None;
        }
        let (ra, rb) = (&self.ranges[a.index()], &self.ranges[b.index()]);
        if self.opts.fresh_ranges {
            return Some(DecisionRanges::of(ra, rb).in_full());
        }
        let mut last = self.bases[a].take();
        let ranges = DecisionRanges::against(ra, rb, &mut last);
        self.bases[a] = last;
        Some(ranges)
    }

    /// isTerminalReg: `dst` has no copy other than `copy`.
    fn is_terminal(&self, dst: VReg, copy: Inst) -> bool {
        self.cx.du.defs[dst]
            .iter()
            .chain(self.cx.du.uses[dst].iter())
            .all(|&i| i == copy || !self.cx.ed.f.insts[i].is(Op::COPY))
    }

    /// applyTerminalRule: `dst` is terminal (this is its only copy) and another copy
    /// of `src` in the same block joins `src` with a register that has further copies
    /// and is live where `dst` is: joining this copy first would spoil that better
    /// join, so this one waits until the end of the block's list.
    fn apply_terminal_rule(&self, copy: Inst) -> bool {
        if !self.opts.terminal_rule {
            return false;
        }
        let Some((dst, src)) = copy_regs(self.cx.ed.f, copy) else {
            return false;
        };
        if !self.is_terminal(dst, copy) {
            return false;
        }
        let block = self.cx.ed.f.layout.inst_block(copy);
        let dst_range = &self.ranges[dst.index()];
        let others = self.cx.du.defs[src].iter().chain(self.cx.du.uses[src].iter());
        for &mi in others {
            if mi == copy
                || !self.cx.ed.f.insts[mi].is(Op::COPY)
                || self.cx.ed.f.layout.inst_block(mi) != block
            {
                continue;
            }
            // The other copy's partner of `src` (a physical partner is never terminal
            // material: skipped).
            let Some((od, os)) = copy_regs(self.cx.ed.f, mi) else {
                continue;
            };
            let other = if od == src { os } else { od };
            if self.is_terminal(other, mi) {
                continue;
            }
            if self.ranges[other.index()].overlaps(dst_range) {
                return true;
            }
        }
        false
    }

    /// Tries one COPY; true when it is gone (joined or erased) or can never be joined.
    fn try_join(&mut self, copy: Inst) -> bool {
        // An earlier join may already have erased it (a copy made redundant).
        if !self.cx.ed.f.layout.is_inserted(copy) {
            return true;
        }
        let d = &self.cx.ed.f.insts[copy];
        let (Some(dst_reg), Some(src_reg)) = (
            d.operands.first().and_then(|o| o.get_reg()),
            d.operands.get(1).and_then(|o| o.get_reg()),
        ) else {
            return true;
        };
        let (Reg::Virt(dst), Reg::Virt(src)) = (dst_reg, src_reg) else {
            self.step(|| {
                Step::new(
                    "physical",
                    "A copy to or from a physical register: not joined by this pass.",
                )
                .focus(Focus::inst(copy))
            });
            return true;
        };
        // Dead code first (joinCopy's allDefsAreDead check, for copies whose classes
        // meet): a COPY nobody reads goes, with what only it kept alive.
        let classes_meet =
            common_class(self.cx.ed.f.vreg_class(dst), self.cx.ed.f.vreg_class(src)).is_ok();
        if classes_meet && self.erase_dead_copy(copy) {
            return true;
        }
        let d = &self.cx.ed.f.insts[copy];
        if d.operands[0].subreg.is_some() || d.operands[1].subreg.is_some() {
            let (dn, sn) = (self.name(dst), self.name(src));
            self.step(|| {
                Step::new("partial", format!("{dn} = COPY {sn} reads or writes one lane of a tuple; lane joins are the NVPTX coalescer's job."))
                    .focus(Focus::inst(copy))
                    .payload(CoalesceDecision::new((copy.index() as u32, dst.index() as u32, src.index() as u32), Verdict::Partial, None, DecisionRanges::none(), None, &[]))
            });
            return true;
        }
        if dst == src {
            self.erase_copy(copy);
            self.stats.identity_erased += 1;
            self.progress += 1;
            let dn = self.name(dst);
            self.step(|| Step::new("identity", format!("{dn} = COPY {dn} copies a register onto itself after earlier joins: erased.")).focus(Focus::inst(copy)));
            return true;
        }
        let (dc, sc) = (self.cx.ed.f.vreg_class(dst), self.cx.ed.f.vreg_class(src));
        let Ok(class) = common_class(dc, sc) else {
            self.stats.class_rejections += 1;
            let (dn, sn) = (self.name(dst), self.name(src));
            self.step(|| Step::new("class", format!("{dn} and {sn} are in register classes with no common subclass: this COPY stays.")).focus(Focus::inst(copy)));
            return true;
        };
        // The bigger interval keeps its name.
        let (keep, gone) =
            if range_size(&self.ranges[src.index()]) > range_size(&self.ranges[dst.index()]) {
                (src, dst)
            } else {
                (dst, src)
            };
        let verdict = match [keep, gone].into_iter().find(|&v| self.is_high_cost(v)) {
            Some(big) => {
                self.stats.large_interval_rejections += 1;
                let (bn, n) = (self.name(big), self.ranges[big.index()].valnos.len());
                let t = self.opts.large_interval_freq_threshold;
                self.step(|| Step::new("large_interval", format!("{bn} has {n} values (large-interval-size-threshold or more) and has already been tried {t} times (large-interval-freq-threshold): this join is refused to save time.")).focus(Focus::inst(copy)));
                Err(None)
            }
            None => self.check_join(keep, gone).map_err(Some),
        };
        match verdict {
            Ok(()) => {
                self.join(copy, keep, gone, class);
                self.progress += 1;
                true
            }
            Err(_) if self.rescue(copy, dst, src) => {
                self.progress += 1;
                true
            }
            Err(None) => false,
            Err(Some(conflicts)) => {
                self.stats.interference_rejections += 1;
                let (kn, gn) = (self.name(keep), self.name(gone));
                let ranges = self.decision_ranges(keep, gone);
                self.step(|| {
                    let first = conflicts.first().map(|c| c.0.texts().0).unwrap_or_default();
                    let ids = (copy.index() as u32, keep.index() as u32, gone.index() as u32);
                    Step::new("conflict", format!("{kn} and {gn} are both live at {first} holding different values: they cannot share a register, so this COPY stays (for now)."))
                        .focus(Focus::inst(copy))
                        .payload(CoalesceDecision::new(ids, Verdict::Conflict, None, ranges.unwrap_or_default(), None, &conflicts))
                });
                false
            }
        }
    }

    /// isHighCostLiveInterval: a register with large-interval-size-threshold values
    /// or more counts each join attempt it takes part in; once the count reaches
    /// large-interval-freq-threshold, every further attempt fails.
    fn is_high_cost(&mut self, v: VReg) -> bool {
        let vals = self.ranges[v.index()].valnos.len() as u32;
        if vals < self.opts.large_interval_size_threshold {
            return false;
        }
        if self.join_count[v] < self.opts.large_interval_freq_threshold {
            self.join_count[v] += 1;
            return false;
        }
        true
    }

    /// What LLVM tries when the intervals cannot be joined, in its order: repeat a
    /// cheap def instead of copying it, extend the destination's older value over the
    /// copy, move the copy into a colder predecessor. True when the COPY is gone.
    fn rescue(&mut self, copy: Inst, dst: VReg, src: VReg) -> bool {
        if !self.opts.no_remat {
            match self.rematerialize(copy, dst, src) {
                remat::Remat::Done => return true,
                remat::Remat::DefIsCopy | remat::Remat::No => {}
            }
        }
        self.adjust_copies_back_from(copy, dst, src)
            || self.remove_partial_redundancy(copy, dst, src)
    }

    pub(crate) fn erase_copy(&mut self, copy: Inst) {
        self.cx.du.remove_inst(self.cx.ed.f, copy);
        self.cx.si.remove_inst(copy);
        self.cx.ed.erase(copy);
    }

    /// Whether a new instruction fits before `before` (or at the end of `b`) without
    /// renumbering: a free index between its neighbours.
    pub(crate) fn has_room(&self, b: crate::mir::Block, before: Option<Inst>) -> bool {
        let f = &self.cx.ed.f;
        let prev = match before {
            Some(i) => f.layout.prev_inst(i),
            None => f.layout.last_inst(b),
        };
        let lo = match prev {
            Some(p) => self.cx.si.inst_index(p),
            None => self.cx.si.block_start(b),
        };
        let hi = match before {
            Some(i) => self.cx.si.inst_index(i),
            None => self.cx.si.block_end(b),
        };
        matches!((lo, hi), (Some(l), Some(h)) if h.index() > l.index() + 1)
    }

    /// Places `data` before `before` (or at the end of `b`) with an index of its own.
    pub(crate) fn insert_inst(
        &mut self,
        b: crate::mir::Block,
        before: Option<Inst>,
        data: crate::mir::InstData,
    ) -> Inst {
        let i = self.cx.ed.insert_at(b, before, data);
        self.cx.si.insert_inst(self.cx.ed.f, i);
        self.cx.du.add_inst(self.cx.ed.f, i);
        i
    }

    /// Recomputes the live ranges of `regs` from the code as it stands (after an edit
    /// that is not a join: LLVM's shrinkToUses / extendToIndices).
    pub(crate) fn refresh(&mut self, regs: &[VReg]) {
        let fresh = crate::liveness::LiveIntervals::recompute_ranges(self.cx.ed.f, &self.cx.si, regs);
        for (&v, r) in regs.iter().zip(fresh) {
            self.ranges[v.index()] = r;
        }
    }
}

/// The common subclass of two classes (same class, or an untyped width class meeting a
/// typed one of its family); foreign classes only meet themselves. `Ok(None)`: both
/// registers are untyped.
pub(crate) fn common_class(
    a: Option<RegClass>,
    b: Option<RegClass>,
) -> Result<Option<RegClass>, Disjoint> {
    match (a, b) {
        (None, x) | (x, None) => Ok(x),
        (Some(a), Some(b)) => crate::passes::two_address::common_subclass(a, b)
            .map(Some)
            .ok_or(Disjoint),
    }
}

/// Two register classes with no common subclass: a COPY between them is not joined.
pub(crate) struct Disjoint;

/// LLVM's LiveInterval::getSize: the summed length of the segments, counting an index
/// as its number plus its slot (so `[16r,32B)` is 14 long).
pub(crate) fn range_size(r: &LiveRange) -> u64 {
    let w = |s: crate::liveness::SlotIndex| s.index() as u64 + s.slot() as u64;
    r.segments.iter().map(|s| w(s.end) - w(s.start)).sum()
}
