//! The NVPTX coalescer (spec: `register-coalescing-cicc.txt`, `sub_34AF4A0`), run after
//! the generic one on what it leaves: lane copies out of tuples, NVPTX move families.
//!
//! ```text
//!  pair decomposition: an unpack of a fresh pack ─▶ two half copies (`pairs.rs`)
//!  classify every copy-like instruction ─▶ candidate records (kind 1–6, operand table,
//!     copy type by opcode number: `families.rs`; a half copy's sub-operand entry)
//!     cross-class, wide-pair and .param moves are kept; Int128 never takes part
//!  identity moves (`%a = MOV %a`) erased first; their values are the values they read
//!  copy-limit: only the first N candidates are considered
//!  block-level pass: candidates whose registers live in one block are tried first
//!  interval tree: every taking-part register's live segments, red-black, keyed by
//!     (interval, start); the hash map sends each register to its interval (`hash_map.rs`)
//!  min-heap by register number (ties: higher weight first) ─▶ for each candidate:
//!     a high half waits until its low half merged (it inherits the low's constraints)
//!     same class? ─▶ tree query + value check ─▶ interference ─▶ secondary heap
//!                                              └▶ merge: rename, erase the copy,
//!                                                 union the ranges, fold the erased
//!                                                 copies' values (`values.rs`),
//!                                                 file the smaller interval's
//!                                                 segments under the larger's key
//!     an entry whose registers a merge renamed goes back under its new numbers
//!     heap empty: swap with the secondary heap and retry while a round joined something
//!  coalesce-limit: stop after N merges
//!  kill flags rewritten for every merged register
//! ```
//!
//! Invariant: like the generic pass, a merge never puts two different values in one
//! register (or tuple lane) at one point.
//!
//! With tracing off, one shortcut keeps the pass near-linear without changing what it
//! decides: a merge may rename its smaller side and fix the numbers at the end
//! (`names.rs`). A traced run never takes it. (Every interference check, traced or
//! not, is one query on the tree.)

pub mod classify;
mod eq_classes;
pub mod families;
mod hash_map;
pub mod heap;
pub mod interval_tree;
mod merge;
mod names;
pub mod pairs;
mod values;

use classify::{classify, operand_type, Candidate, CopyKind, Side, PARTICIPATES};
use heap::CandidateHeap;
use interval_tree::{Interval, IntervalTree};

use crate::entity::{dense_map, EntityRef, SecondaryMap};
use crate::liveness::{LiveIntervals, LiveRange};
use crate::mir::cfg::Cfg;
use crate::mir::{Block, Function, Inst, InstData, RegClass, VReg};
use crate::passes::register_coalescer::order::loop_depths;
use crate::passes::register_coalescer::Cx;
use crate::passes::uses::DefUse;
use crate::stats::Stats;
use crate::trace::{Focus, Payload, Recorder, Step};
use crate::trace::interval_tree::TreeEvents;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Options: the two limits the spec passes in at call time, and the block-frequency
/// priority flag.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NvptxCoalescerOptions {
    /// `copy-limit`: how many candidates are considered (0: no limit).
    pub copy_limit: u32,
    /// `coalesce-limit`: how many merges before bailing out (0: no limit).
    pub coalesce_limit: u32,
    /// `block-frequency`: candidates in deeper loops go first.
    pub block_frequency: bool,
    /// Mutation switch for tests, not a knob: the interference check never asks the
    /// interval tree (and so finds nothing). Shows that the tree's answers decide.
    #[doc(hidden)]
    pub no_tree_queries: bool,
    /// Mutation switch for tests, not a knob: two-address's tie marks on lane copies
    /// are not read (no candidate is hinted).
    #[doc(hidden)]
    pub ignore_hints: bool,
    /// Mutation switch for tests, not a knob: the copy-equivalence classes two-address
    /// handed over are not read (no candidate gets the class priority).
    #[doc(hidden)]
    pub ignore_eq_classes: bool,
    /// Mutation switch for tests, not a knob: after a merge the erased copies' values
    /// are not folded into the values they read (`values.rs`).
    #[doc(hidden)]
    pub no_value_renumbering: bool,
    /// Mutation switch for tests, not a knob: a merge always files the joined
    /// interval under the surviving register's key, re-inserting the other side's
    /// segments however many it has (`merge.rs`, union by size). Decisions stay the
    /// same; the tree does more work.
    #[doc(hidden)]
    pub no_union_by_size: bool,
    /// Register-pair decomposition (`pairs.rs`): pair moves are split into their
    /// halves' moves. On by default: a pair whose low half cannot merge is put back
    /// together when the pass ends, so a second run meets the same pair move, splits
    /// it afresh and refuses it again (the pass stays a fixed point).
    pub pair_decomposition: bool,
}

impl Default for NvptxCoalescerOptions {
    fn default() -> Self {
        Self {
            copy_limit: 0,
            coalesce_limit: 0,
            block_frequency: false,
            no_tree_queries: false,
            ignore_hints: false,
            ignore_eq_classes: false,
            no_value_renumbering: false,
            no_union_by_size: false,
            pair_decomposition: true,
        }
    }
}

crate::stats::coalescer_stats! {
    /// The NVPTX coalescer's counters (JSON keys in this order: the shared coalescer
    /// keys, then these); `rb_rotations` counts the interval tree's red-black rotations.
    pub struct NvptxStats {
        candidates,
        block_level_joined,
        kept_cross_class,
        kept_layout,
        left_by_copy_limit,
        interference_checks,
        tree_queries,
    }
    optional {
        /// Pair decomposition (`pairs.rs`): packs split into halves, when any were.
        pairs_decomposed,
        /// Pair decomposition: halves joined back.
        pairs_rejoined,
    }
}

/// Trees up to this size are copied into every step that changes them.
const SNAPSHOT_MAX: u32 = 256;

/// A register or one tuple lane: what the tree and the value check work on.
pub(crate) type Unit = (VReg, Option<u8>);

pub(crate) struct Nvptx<'f, 'r, R: Recorder> {
    pub cx: Cx<'f, 'r, R>,
    pub opts: NvptxCoalescerOptions,
    pub stats: NvptxStats,
    pub main: Vec<LiveRange>,
    pub lanes: Vec<Vec<LiveRange>>,
    pub tree: IntervalTree,
    /// The tree nodes (live segments) stored under each tree key (`tree_key`: an
    /// interval and a lane), in start order; by interval number, each interval's keys
    /// in order (`file`).
    pub in_tree: Vec<Vec<(u32, Vec<Interval>)>>,
    /// The spec's register → interval hash map (`UpdateHashMap` after a merge): the
    /// interval each register's live segments are filed under in the tree. Every
    /// register starts with an interval numbered like itself; a merge gives both sides
    /// the interval of the side with more segments (`merge.rs`, union by size).
    pub hash_map: Vec<u32>,
    /// The other way round: the register whose segments an interval holds (the last
    /// one a merge gave it to), for narration.
    pub holder: Vec<u32>,
    pub weights: SecondaryMap<VReg, u32>,
    /// Set once the block-level pass is over (the worklist phase has begun).
    pub tree_built: bool,
    /// Copies already merged (the interference check skips them).
    pub coalesced: SecondaryMap<Inst, bool>,
    /// Untraced runs only: the register number each register will carry when the pass
    /// ends (empty until a merge renames the smaller side, see `merge`).
    pub names: Vec<u32>,
    pub shortcuts: Shortcuts,
    /// Instructions that copied a register onto itself before the pass began (`names.rs`
    /// needs them; merges erase such copies and never leave new ones, so the list only
    /// loses members).
    pub self_copies: Vec<Inst>,
    /// The control-flow graph (merges never change it): merge points' predecessors.
    pub cfg: Cfg,
    /// Registers a merge (or an erased self-copy) produced: their kill flags are
    /// rewritten at the end (`values.rs`).
    pub merged_regs: SecondaryMap<VReg, bool>,
    /// Two-address's copy-equivalence classes, as the pipeline handed them over (None
    /// when the pass runs without two-address before it), `eq_classes.rs`.
    pub classes: Option<crate::passes::copy_classes::CopyClasses>,
}

#[cfg(any(feature = "testkit", feature = "testgen"))]
pub fn run<R: Recorder>(f: &mut Function, opts: &NvptxCoalescerOptions, rec: &mut R) -> Stats {
    run_reporting(f, opts, rec).0
}

/// How often an untraced run took the shortcuts that keep it near-linear (both stay 0
/// when tracing): the pass's result and statistics are the same either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shortcuts {
    /// Merges that rewrote the destination's operands, the smaller side (`names.rs`).
    pub renamed_smaller_side: u32,
}

/// [`run`], also telling which shortcuts the run took.
#[cfg(any(feature = "testkit", feature = "testgen"))]
pub fn run_reporting<R: Recorder>(
    f: &mut Function,
    opts: &NvptxCoalescerOptions,
    rec: &mut R,
) -> (Stats, Shortcuts) {
    run_with_classes(f, opts, rec, None)
}

/// [`run_reporting`] with the copy-equivalence classes two-address built (renamed by
/// the generic coalescer's joins), as the pipeline hands them over.
pub fn run_with_classes<R: Recorder>(
    f: &mut Function,
    opts: &NvptxCoalescerOptions,
    rec: &mut R,
    classes: Option<crate::passes::copy_classes::CopyClasses>,
) -> (Stats, Shortcuts) {
    let mut stats = NvptxStats::default();
    let pairs = if opts.pair_decomposition {
        pairs::decompose(f, rec)
    } else {
        pairs::PairTable::default()
    };
    if !pairs.is_empty() {
        stats.pairs_decomposed = Some(pairs.len() as u64 / 2);
    }
    // One walk over the instructions feeds the live intervals, the def/use lists, the
    // spill weights, the candidates and the list of copies onto themselves: on a
    // function larger than the cache each further walk fetches it from memory again.
    let depth = loop_depths(f);
    let mut du = DefUse::for_function(f);
    let mut weights = dense_map(0, f.vreg_end as usize);
    let mut cands: Vec<Candidate> = Vec::new();
    let mut self_copies: Vec<Inst> = Vec::new();
    let lis = LiveIntervals::compute_visiting(f, |b, i, d| {
        du.note_inst(i, d);
        add_weights(&mut weights, d, depth[b]);
        if let Some(mut c) = classify(d, i) {
            c.pair = pairs.get(i).copied();
            cands.push(c);
        }
        if merge::copies_data_onto_itself(d) {
            self_copies.push(i);
        }
    });
    let (si, main, subranges) = lis.into_parts();
    // Lane `l` of a tuple is its `l`-th subrange (they are built in lane order).
    let lanes = subranges
        .into_iter()
        .map(|subs| subs.into_iter().map(|s| s.range).collect())
        .collect();
    let copies_before = cands.len() as u64;
    stats.copies_before = copies_before;
    let cfg = Cfg::new(f);
    let f_vregs = f.vreg_end;
    let mut p = Nvptx {
        cx: Cx::new(f, rec, du, si),
        opts: opts.clone(),
        stats,
        main,
        lanes,
        tree: IntervalTree::new(R::ENABLED),
        in_tree: Vec::new(),
        hash_map: (0..f_vregs).collect(),
        holder: (0..f_vregs).collect(),
        weights,
        coalesced: SecondaryMap::new(),
        tree_built: false,
        names: Vec::new(),
        shortcuts: Shortcuts::default(),
        self_copies,
        cfg,
        merged_regs: SecondaryMap::new(),
        classes,
    };
    p.ranges_step();
    p.eq_classes_step();
    p.pair_ranges_steps(&cands);
    p.erase_self_copies();
    let cands = p.filter_candidates(cands);
    p.build_tree();
    p.block_level_pass(&cands);
    p.tree_built = true;
    p.worklist(cands);
    let merged = core::mem::take(&mut p.merged_regs);
    p.fix_all_kill_flags(&merged);
    p.apply_names();
    p.rejoin_unmerged(&pairs);
    let after =
        p.cx.ed.f
            .all_insts()
            .filter(|&(_, i)| classify(&p.cx.ed.f.insts[i], i).is_some())
            .count() as u64;
    p.stats.copies_after = after;
    p.stats.rb_rotations = p.tree.rotations;
    p.stats.tree_queries = p.tree.queries();
    let (joined, rot) = (p.stats.joined, p.tree.rotations);
    p.step(|| Step::new("done", format!("NVPTX coalescing finished: {joined} merges, {copies_before} copy-like instructions before and {after} after; the interval tree rotated {rot} times.")));
    (p.stats.into(), p.shortcuts)
}

/// Adds the spill weight of one instruction in a block of loop depth `depth` to the
/// registers it names. A register's weight is its def and use count, plus one more per
/// use, plus (1 + loop depth) per def or use. (Every register an operand names
/// exists: the parser and the editor declare it.)
fn add_weights(w: &mut SecondaryMap<VReg, u32>, d: &InstData, depth: u32) {
    for o in &d.operands {
        let Some(v) = o.vreg_of() else { continue };
        if o.is_def() {
            w[v] += 2 + depth;
        } else if o.is_use() {
            w[v] += 3 + depth;
        }
    }
}

impl<R: Recorder> Nvptx<'_, '_, R> {
    /// Records a step: the call site builds it, and the recorder's work (taking the
    /// editor's edits, keeping the step) runs out of line in [`Nvptx::keep_step`], one
    /// copy rather than one inlined into each of the pass's recording sites. The step is
    /// built before the edits are taken rather than after; building one reads nothing the
    /// editor holds, so the recorded step is the same.
    pub(crate) fn step(&mut self, make: impl FnOnce() -> Step) {
        if R::ENABLED {
            self.keep_step(make());
        }
    }

    #[inline(never)]
    fn keep_step(&mut self, s: Step) {
        crate::trace::record(self.cx.rec, &mut self.cx.ed, || s);
    }

    /// `%v` or `%v.subL`, for narration (empty with tracing off: nobody reads it, and
    /// formatting two names per candidate was a tenth of an untraced run).
    pub(crate) fn unit_name(&self, s: Side) -> String {
        if !R::ENABLED {
            return String::new();
        }
        match s.lane {
            Some(l) => format!("%{}.sub{l}", s.reg),
            None => format!("%{}", s.reg),
        }
    }

    pub(crate) fn range(&self, u: Unit) -> &LiveRange {
        match u.1 {
            Some(l) => self.lanes[u.0.index()]
                .get(l as usize)
                .unwrap_or(&self.main[u.0.index()]),
            None => &self.main[u.0.index()],
        }
    }

    /// Every register's whole live range as the pass starts (the picture's bars).
    fn ranges_step(&mut self) {
        if !R::ENABLED {
            return;
        }
        let n = self.main.iter().filter(|r| !r.is_empty()).count();
        self.step(|| {
            Step::new("live_ranges", format!("Live intervals computed: {n} registers each have a range of program points; a copy's two registers may merge only if their ranges never overlap."))
                .payload(Payload::LiveRanges { rows: Vec::new(), registers: n as u32 })
        });
    }

    fn participates(&self, v: VReg) -> bool {
        match self.cx.ed.f.vreg_class(v) {
            Some(RegClass::Scalar(c)) | Some(RegClass::Tuple { base: c, .. }) => {
                operand_type(c).constraint_flags & PARTICIPATES != 0
            }
            _ => false,
        }
    }

    /// Drops what never joins (kept kinds, Int128, foreign classes) and applies copy-limit.
    fn filter_candidates(&mut self, cands: Vec<Candidate>) -> Vec<Candidate> {
        let mut out = Vec::new();
        let limit = self.opts.copy_limit as usize;
        for c in cands {
            let inst = Inst::new(c.inst as usize);
            match c.kind {
                CopyKind::CrossClass => {
                    self.stats.kept_cross_class += 1;
                    let (dn, sn) = (self.unit_name(c.dst), self.unit_name(c.src));
                    self.step(|| Step::new("kept_cross_class", format!("{dn} = move from {sn} changes register class (a bit cast between typed PTX registers): it is always kept.")).focus(Focus::inst(inst)));
                    continue;
                }
                CopyKind::Layout => {
                    self.stats.kept_layout += 1;
                    let dn = self.unit_name(c.dst);
                    let ty = families::copy_type(self.cx.ed.f.insts[inst].opcode);
                    let (n, what) = (ty.number, ty.row.what);
                    self.step(|| Step::new("kept_layout", format!("{dn} is defined by a {what} (copy type {n}): it changes how the value is laid out in registers, so it is no candidate and stays as written.")).focus(Focus::inst(inst)));
                    continue;
                }
                _ => {}
            }
            let (d, s) = (VReg::new(c.dst.reg as usize), VReg::new(c.src.reg as usize));
            if !self.participates(d) || !self.participates(s) {
                let (dn, sn) = (self.unit_name(c.dst), self.unit_name(c.src));
                self.step(|| Step::new("not_participating", format!("{dn} or {sn} is in a class whose operand-table entry has the 0x10 bit clear (Int128): not a candidate.")).focus(Focus::inst(inst)));
                continue;
            }
            if limit != 0 && out.len() >= limit {
                self.stats.left_by_copy_limit += 1;
                let n = out.len();
                self.step(|| Step::new("copy_limit", format!("copy-limit reached: {n} candidates are already being considered, so this copy is left alone.")).focus(Focus::inst(inst)));
                continue;
            }
            out.push(c);
        }
        self.stats.candidates = out.len() as u64;
        out
    }

    /// Candidates whose registers live entirely inside the copy's block go first.
    fn block_level_pass(&mut self, cands: &[Candidate]) {
        let blocks: Vec<Block> = self.cx.ed.f.layout.blocks().collect();
        // Candidates by the block they start in, in candidate order (merges erase
        // copies but never move one to another block, so each block re-checks its own).
        let mut by_block: SecondaryMap<Block, Vec<usize>> = SecondaryMap::new();
        for (k, c) in cands.iter().enumerate() {
            if let Some(b) = self.cx.ed.f.layout.inst_block(Inst::new(c.inst as usize)) {
                by_block[b].push(k);
            }
        }
        for b in blocks {
            let here: Vec<&Candidate> = core::mem::take(&mut by_block[b])
                .into_iter()
                .map(|k| &cands[k])
                .filter(|c| self.cx.ed.f.layout.inst_block(Inst::new(c.inst as usize)) == Some(b))
                .collect();
            for c in here {
                if self.limit_reached() {
                    return;
                }
                if !self.is_local(c, b) {
                    continue;
                }
                self.tie_mark_step(c);
                if self.pair_gate(c) && self.try_candidate(c, true) {
                    self.stats.block_level_joined += 1;
                }
            }
        }
    }

    fn is_local(&self, c: &Candidate, b: Block) -> bool {
        [c.dst.reg, c.src.reg].iter().all(|&r| {
            let v = VReg::new(r as usize);
            self.cx.du.defs[v]
                .iter()
                .chain(self.cx.du.uses[v].iter())
                .all(|&i| self.cx.ed.f.layout.inst_block(i) == Some(b))
        })
    }

    /// The tree key of a unit: the interval the hash map gives its register, and
    /// its lane.
    pub(crate) fn unit_key(&self, u: Unit) -> u32 {
        tree_key(self.interval_of(u.0), u.1)
    }

    /// The unit's live segments as tree nodes (raw `[start, end)`, non-empty ones).
    pub(crate) fn segments(&self, u: Unit) -> Vec<Interval> {
        let key = self.unit_key(u);
        self.range(u)
            .segments
            .iter()
            .filter(|s| s.start < s.end)
            .map(|s| Interval {
                start: s.start.raw(),
                end: s.end.raw(),
                key,
            })
            .collect()
    }

    /// Inserts one segment and records the insert and its fix-up, one step each.
    pub(crate) fn tree_insert(&mut self, iv: Interval) {
        self.tree.insert(iv);
        self.tree_steps();
    }

    /// Removes one segment and records the removal and its fix-up, one step each.
    pub(crate) fn tree_remove(&mut self, iv: &Interval) {
        self.tree.remove(iv);
        self.tree_steps();
    }

    /// One step per tree event since the last call (nothing with tracing off).
    fn tree_steps(&mut self) {
        if !R::ENABLED {
            return;
        }
        for e in self.tree.take_events() {
            let rotations = rotations_u32(self.tree.rotations);
            let (kind, text) = self.event_text(&e);
            self.step(|| {
                Step::new(kind, text).payload(Payload::TreeChange {
                    events: TreeEvents::one(e),
                    tree: None,
                    rotations,
                })
            });
        }
    }

    /// The tree as it stands, for a summary step (small trees only).
    pub(crate) fn tree_summary(&mut self, kind: &'static str, text: String) {
        if !R::ENABLED {
            return;
        }
        let rot = rotations_u32(self.tree.rotations);
        let snap = (self.tree.len() <= SNAPSHOT_MAX).then(|| self.tree.snapshot());
        self.step(|| {
            Step::new(kind, text).payload(Payload::TreeChange {
                events: TreeEvents::none(),
                tree: snap.map(alloc::boxed::Box::new),
                rotations: rot,
            })
        });
    }

    fn build_tree(&mut self) {
        let vregs: Vec<VReg> = self
            .cx.ed
            .f
            .vreg_list()
            .filter(|&v| self.participates(v))
            .collect();
        for v in vregs {
            let n_lanes = self.lanes[v.index()].len();
            // A tuple is in the tree as a whole and lane by lane.
            let mut units: Vec<Unit> = alloc::vec![(v, None)];
            units.extend((0..n_lanes as u8).map(|l| (v, Some(l))));
            for u in units {
                let segs = self.segments(u);
                for &iv in &segs {
                    self.tree_insert(iv);
                }
                if !segs.is_empty() {
                    let key = self.unit_key(u);
                    self.file(key, segs);
                }
            }
        }
        let (n, rot) = (self.tree.len(), self.tree.rotations);
        self.tree_summary("tree_built", format!("The interval tree now holds {n} live segments ordered by interval, then start (our reading of the spec's intervals \"indexed by register number\" with a comparator on start): each register's segments are filed under its interval, which the hash map sends it to and which starts out numbered like the register. Building it took {rot} rotations to stay balanced. Every interference question from here on is a query on it."));
    }

    fn worklist(&mut self, cands: Vec<Candidate>) {
        let mut heap = CandidateHeap::default();
        // Loop depths only order candidates under `block-frequency`.
        let depth = self.opts.block_frequency.then(|| loop_depths(self.cx.ed.f));
        for c in cands {
            let inst = Inst::new(c.inst as usize);
            if !self.cx.ed.f.layout.is_inserted(inst) {
                continue;
            }
            let w = self.weights[VReg::new(c.dst.reg as usize)]
                .max(self.weights[VReg::new(c.src.reg as usize)]);
            let hot = match &depth {
                Some(depth) => self.cx.ed.f.layout.inst_block(inst).map_or(0, |b| depth[b]),
                None => 0,
            };
            let hint = c.tied && !self.opts.ignore_hints;
            let class = self.in_eq_class(&c);
            heap.push_ranked(c, w, hot, hint, class);
        }
        let mut secondary = CandidateHeap::default();
        loop {
            let mut joined_this_round = 0;
            while let Some((c, w, hot, hint, class)) = heap.pop_ranked() {
                if self.limit_reached() {
                    let n = self.stats.joined;
                    self.step(|| Step::new("coalesce_limit", format!("coalesce-limit reached after {n} merges: the pass stops here and leaves the remaining candidates.")));
                    return;
                }
                let inst = Inst::new(c.inst as usize);
                if !self.cx.ed.f.layout.is_inserted(inst) {
                    continue;
                }
                // An entry whose registers a merge renamed since it was pushed is stale:
                // it goes back under the names the copy has now (lazy re-keying).
                // (Keys are the numbers registers carry when the pass ends, `names.rs`.)
                let Some(mut fresh) = classify(&self.cx.ed.f.insts[inst], inst) else {
                    // Merges gave both sides lanes: `classify` has no merge for a
                    // lane-to-lane copy, so the entry leaves the heap here, said so.
                    self.step(|| {
                        Step::new("heap_pop", format!("Next candidate from the heap: the copy into %{} now moves a lane into a lane (earlier merges made both sides sub-registers); this pass has no merge for a lane-to-lane copy, so it stays.", c.dst.reg))
                            .focus(Focus::inst(inst))
                    });
                    continue;
                };
                fresh.pair = c.pair;
                for s in [&mut fresh.dst, &mut fresh.src] {
                    if s.reg != u32::MAX {
                        s.reg = self.name_of(VReg::new(s.reg as usize));
                    }
                }
                if (fresh.dst, fresh.src) != (c.dst, c.src) {
                    heap.push_ranked(fresh, w, hot, hint, class);
                    continue;
                }
                let (hp, sp) = if R::ENABLED {
                    (heap.preview(), secondary.preview())
                } else {
                    (Vec::new(), Vec::new())
                };
                let why = if hint {
                    "it carries two-address's tie mark (tied2: this lane copy continues an earlyTied chain of extracts, a direct hint that the scalar belongs in the lane), so it goes before every unhinted candidate".into()
                } else if class {
                    eq_classes::WHY.into()
                } else {
                    format!("lowest register number first; weight {w} breaks ties")
                };
                self.step(|| {
                    Step::new(
                        "heap_pop",
                        format!(
                            "Next candidate from the heap: copy into %{} ({why}).",
                            c.dst.reg
                        ),
                    )
                    .focus(Focus::inst(inst))
                    .payload(Payload::HeapPop {
                        copy: c.inst,
                        dst: c.dst.reg,
                        src: c.src.reg,
                        weight: w,
                        heap: hp.into(),
                        secondary: sp.into(),
                    })
                });
                if !self.pair_gate(&c) {
                    secondary.push(c, w, 0, hint);
                    continue;
                }
                if self.try_candidate(&c, false) {
                    joined_this_round += 1;
                } else if self.cx.ed.f.layout.is_inserted(inst)
                    && classify(&self.cx.ed.f.insts[inst], inst).is_some()
                {
                    secondary.push_ranked(c, w, 0, hint, class);
                }
            }
            if secondary.is_empty() || joined_this_round == 0 {
                break;
            }
            self.stats.retry_rounds += 1;
            let (n, k) = (secondary.len(), self.stats.retry_rounds);
            self.step(|| Step::new("swap_heaps", format!("The heap is empty and this round made {joined_this_round} merge(s): the {n} deferred candidate(s) move back for round {k}.")));
            core::mem::swap(&mut heap, &mut secondary);
        }
    }

    fn limit_reached(&self) -> bool {
        self.opts.coalesce_limit != 0 && self.stats.joined >= self.opts.coalesce_limit as u64
    }
}

/// The tree's rotation count as a step keeps it (32 bits, saturated: a pass makes
/// fewer rotations than it records steps).
fn rotations_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A tree key: an interval (the hash map's number for a register) in the high bits,
/// the lane (0 for the whole register, `l + 1` for lane `l`) in the low six.
pub(crate) fn tree_key(interval: u32, lane: Option<u8>) -> u32 {
    (interval << 6) | lane.map_or(0, |l| l as u32 + 1)
}

/// The interval a [`tree_key`] names.
pub(crate) fn key_interval(key: u32) -> u32 {
    key >> 6
}
