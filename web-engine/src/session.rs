//! One run and everything the page asks about it afterwards.
//!
//! ```text
//!  Session::run(request) ── compiler_core::pipeline::run_observed (tracing on) ──▶ RunResult
//!                          └─ the observer keeps each stage's input module
//!  Session::view(stage, step) ─ per function: Checkpoints (built on first use) ─▶ seek(l), seek(l+1)
//!                              ─ print_with_lines ─▶ before/after text + marks from the step's edits
//!  Session::diff(stage, a, b) ─ the whole module at steps a and b ─ diff::diff_ops ─▶ DiffView
//! ```
//!
//! ORI stages (the GeneralOptimize phases) replay the same way from the ORI module the
//! stage received, with each step's `ori_edits` ([`compiler_core::ori::edit`]), printed
//! as ORI (PTX with annotation comments).
//!
//! Step numbering is the page's: step 0 shows the stage's input beside its output, step k
//! (1-based) shows the IR before and after the k-th recorded step. Memory stays bounded on large functions:
//! the checkpoint spacing grows with `steps × instructions` (see [`checkpoint_spacing`]),
//! and between the copies a MIR seek moves the cursor's function by redoing or undoing
//! steps from where it stands (`Checkpoints::seek_from`). Copies are held to their budget
//! as a function grows (`trace::Copies`), and the tables of stages off screen go once
//! all stages' tables hold more than [`TABLE_BUDGET`].

use crate::dag_front::read_answer;
use crate::diff;
use crate::lines::{print_with_lines, Printed};
use crate::payload;
use crate::proof::{self, Proof, ProofJob};
use crate::protocol::*;
use compiler_core::entity::EntityRef;
use compiler_core::entity::SecondaryMap;
use compiler_core::knobs::Knobs;
use compiler_core::mir::print::{defined_vregs, print_function, write_inst};
use compiler_core::mir::{Function, Inst, InstData, Module, VReg};
use compiler_core::ori::{self, edit::apply_ori_edit, edit::OriEdit};
use compiler_core::pipeline::{
    run_after_dag_front, FunctionSteps, Ir, Observer, PipelineError, RunResult,
};
use compiler_core::trace::{
    first_range_rows, redo_edit, Change, Checkpoints, Copies, Edit, EditRef, Focus, RangeView,
    SegmentView, Step, Steps, CHECKPOINT_EVERY,
};
use compiler_core::{InputFormat, RunOptions, Stage};

/// Instruction copies all checkpoints of one function may hold together (besides the
/// input's). Between the copies a seek redoes or undoes steps
/// ([`Checkpoints::seek_from`]), so the copies can be few: 2^16 instructions are about
/// 23 MB on a native 64-bit build. The spacing starts at [`checkpoint_spacing`] and
/// doubles while the copies hold more (a function that grows along its steps). From
/// where the cursor stands a copy is restored by difference (`Checkpoints::restore`:
/// only the slots the edits in between wrote), so even three copies of a
/// 24,000-slot function keep the bench's random seeks at a mean of about 0.5 ms (its
/// 18,007-step register coalescing, load 5.4). Measured before that restore, when a
/// copy cost about as much as undoing the whole trace: budgets of 2^16, 2^17 and 2^18
/// gave seek means of 0.40, 0.39 and 0.38–0.48 ms (worst 1.2–1.5) for 10.5, 20.4 and
/// 36.2 MB on a 12,005-step PHI elimination of 12,008 instructions, at load 5.6.
/// `compiler-core/tests/bench.rs` repeats this budget (a test compares them).
pub const CHECKPOINT_BUDGET: usize = 1 << 16;

/// Bytes the seek tables (checkpoints, ORI copies, first live ranges) of all stages may
/// hold together, by their estimates ([`Checkpoints::approx_bytes`]). Building a table
/// replays the stage's steps once (under a second in the browser for a
/// 20,000-instruction input); once the tables hold more, those of the stages used least
/// recently go, never the stage on screen. A small input keeps every stage's tables (a
/// few hundred KB), so going back to a stage rebuilds nothing; a large one keeps the
/// stage on screen only, as one stage's copies already hold 2^16 instructions (about
/// 23 MB; issue 31: views of every stage of a 20,000-instruction run held them all, and
/// linear memory never shrinks).
pub const TABLE_BUDGET: usize = 16 << 20;
/// Edit rows a view lists at most.
pub const MAX_EDIT_ROWS: usize = 200;

/// The same for ORI functions, whose checkpoints have no undo records yet: every seek
/// restores a copy and replays forward. The same budget as MIR's: at 2^20 the six
/// GeneralOptimize stages of a 20,000-instruction input held most of the engine's
/// memory after a view of each (issue 31); a seek replays at most one spacing of
/// steps' ORI edits forward from a copy.
pub const ORI_CHECKPOINT_BUDGET: usize = 1 << 16;

/// About what one instruction costs in a stored ORI function copy on a 64-bit build (the
/// instruction, its operands and a share of the register table): the ORI tables'
/// weight against [`TABLE_BUDGET`].
const ORI_COPIED_INST_BYTES: usize = 2 * core::mem::size_of::<ori::Inst>();

/// How many steps apart to keep checkpoints for `steps` steps over a function of `insts`
/// instructions: [`CHECKPOINT_EVERY`], or wider so the copies stay within
/// [`CHECKPOINT_BUDGET`] instructions.
pub fn checkpoint_spacing(steps: usize, insts: usize) -> usize {
    CHECKPOINT_EVERY.max((steps.saturating_mul(insts.max(1))).div_ceil(CHECKPOINT_BUDGET))
}

/// A finished run, ready to answer view and diff requests.
pub struct Session {
    run_id: u64,
    result: RunResult,
    /// Parallel to `result.stages`: the module each stage received, when it is MIR.
    inputs: Vec<Option<Module>>,
    /// Parallel to `result.stages`, then per function: checkpoints, built on first use.
    replays: Vec<Vec<Option<Checkpoints>>>,
    /// Parallel to `result.stages`: the ORI module each ORI → ORI stage received.
    ori_inputs: Vec<Option<ori::Module>>,
    /// Parallel to `result.stages`, then per function: the ORI function every `.0`
    /// steps (the first is the input), built on first use.
    ori_replays: Vec<Vec<Option<OriCheckpoints>>>,
    /// ORI function `.1` of stage `.0` after `.2` of its steps (the last ORI seek): the
    /// next seek forward goes on from it instead of from a stored copy.
    ori_cursor: Option<(usize, usize, usize, ori::Function)>,
    /// Parallel to `result.stages`, then per function: the coalescers' first live
    /// ranges, computed from the stage's input on first use.
    first_ranges: Vec<Vec<Option<Vec<RangeView>>>>,
    /// The stages whose tables (`replays`, `ori_replays`, `first_ranges`) are built,
    /// the most recently used last; together within `table_budget` bytes, besides the
    /// last one's.
    table_stages: Vec<usize>,
    /// [`TABLE_BUDGET`], or what [`Session::set_table_budget`] set.
    table_budget: usize,
    /// The last step viewed, kept so that the next one (most often the step after it)
    /// costs one step of edits and one printing instead of two seeks and two.
    cursor: Option<Cursor>,
    /// Parallel to `result.stages`: the stage's proof, once the proof wasm made it
    /// ([`Session::set_proof`]).
    proofs: Vec<Option<Proof>>,
    /// Parallel to `result.stages`: its proof job was handed out ([`Session::proof_job`]).
    proof_asked: Vec<bool>,
    /// The stage whose output the proof breaks on purpose (test only, `RunRequest::fault`).
    fault: Option<Stage>,
    /// Parallel to `result.stages`: the PTX / ORI input of ptx-lower and ptx-out.
    cross_inputs: Vec<Option<Ir>>,
    /// ptx-emit's output as the first `.1` steps of stage `.0` left it (the last seek).
    ptx_cursor: Option<(usize, usize, compiler_core::ptx::Module)>,
    /// Which of the first stage's steps changed nothing, when the DAG wasm ran it
    /// (its steps came without their edits).
    handed_noop: Option<Vec<bool>>,
}

/// An ORI function's stored copies (the first is the stage's input).
type OriCheckpoints = Copies<ori::Function>;

/// Function `at.1` of stage `at.0` before (`a`) and after (`b`) its step `at.2`, printed.
struct Cursor {
    at: (usize, usize, usize),
    a: Function,
    b: Function,
    pa: Printed,
    pb: Printed,
}

/// Keeps each stage's input and reports progress.
struct Watch<'a> {
    run_id: u64,
    total: u32,
    inputs: Vec<Option<Module>>,
    ori_inputs: Vec<Option<ori::Module>>,
    /// The PTX input of ptx-lower and the ORI input of ptx-out, for their proofs.
    cross_inputs: Vec<Option<Ir>>,
    progress: &'a mut dyn FnMut(Progress),
}

impl Observer for Watch<'_> {
    fn planned(&mut self, stages: &[Stage]) {
        // Reading the source, each stage, summing up.
        self.total = stages.len() as u32 + 2;
        (self.progress)(Progress {
            run_id: self.run_id,
            done: 1,
            total: self.total,
            label: "source read".into(),
        });
    }

    /// instr-emitter, run by the DAG wasm: its input (the DAG) is kept by nobody.
    fn stage_handed(&mut self, index: usize, stage: Stage) {
        self.inputs.push(None);
        self.ori_inputs.push(None);
        self.cross_inputs.push(None);
        (self.progress)(Progress {
            run_id: self.run_id,
            done: index as u32 + 1,
            total: self.total,
            label: format!("{stage} ran in the DAG input path"),
        });
    }

    fn stage_start(&mut self, index: usize, stage: Stage, input: &Ir) {
        #[allow(unreachable_patterns)] // more IR kinds join as their stages land
        let module = match input {
            Ir::Mir(m) => Some(m.clone()),
            _ => None,
        };
        self.inputs.push(module);
        self.ori_inputs.push(match input {
            Ir::Ori(m) if stage.info().output == compiler_core::stages::IrKind::Ori => {
                Some(m.clone())
            }
            _ => None,
        });
        self.cross_inputs.push(match (input, stage) {
            (Ir::Ptx(_) | Ir::Ori(_), Stage::PtxLower | Stage::PtxOut) => Some(input.clone()),
            _ => None,
        });
        (self.progress)(Progress {
            run_id: self.run_id,
            done: index as u32 + 1,
            total: self.total,
            label: format!("running {stage}"),
        });
    }

    /// No printed input and output for a MIR → MIR or ORI → ORI stage: its views replay
    /// the input kept above ([`Session::fill_texts`] prints them when they cannot).
    fn wants_texts(&mut self, _index: usize, stage: Stage, input: &Ir) -> bool {
        let out = stage.info().output;
        !matches!(
            (input, out),
            (Ir::Mir(_), compiler_core::stages::IrKind::Mir)
                | (Ir::Ori(_), compiler_core::stages::IrKind::Ori)
        )
    }

    /// ptx-lower's output, its body taken out: where its steps replay from.
    fn stage_end(&mut self, index: usize, stage: Stage, output: &Ir) {
        if let (Stage::PtxLower, Ir::Ori(m)) = (stage, output) {
            self.ori_inputs[index] = Some(crate::ptx_replay::lowering_start(m));
        }
    }
}

/// The whole pipeline: with the DAG input path when this build has it (the `dag`
/// feature), else a DAG input needs its front from the DAG wasm ([`Session::run_with`]).
fn run_inline(
    text: &str,
    opts: &RunOptions,
    watch: &mut Watch,
) -> Result<RunResult, PipelineError> {
    #[cfg(feature = "dag")]
    return compiler_core::pipeline::run_observed(text, opts, watch);
    #[cfg(not(feature = "dag"))]
    return compiler_core::pipeline::run_observed_without_dag(text, opts, watch);
}

fn failure(run_id: u64, message: String, usage: bool) -> RunFailure {
    RunFailure {
        run_id,
        message,
        errors: Vec::new(),
        usage,
    }
}

impl Session {
    /// Runs the pipeline with tracing on. `progress` hears about each stage as it starts.
    pub fn run(
        run_id: u64,
        req: &RunRequest,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(Session, RunSummary), RunFailure> {
        Session::run_with(run_id, req, None, progress)
    }

    /// [`Session::run`]; for a DAG input, `front` is the DAG wasm's answer as it crossed
    /// ([`crate::dag_front::answer`]: what the DAG wasm made of it), or why there is none
    /// (the run fails with it, as with an answer that is an error).
    pub fn run_with(
        run_id: u64,
        req: &RunRequest,
        front: Option<Result<Vec<u8>, PipelineError>>,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<(Session, RunSummary), RunFailure> {
        let (mut front, handed_noop, answer) = match front {
            Some(Ok(bytes)) => match read_answer(&bytes) {
                Ok((f, noop)) => (Some(f), Some(noop), Some(bytes)),
                Err(e) => return Err(run_failure(run_id, &e)),
            },
            Some(Err(e)) => return Err(run_failure(run_id, &e)),
            None => (None, None, None),
        };
        // A second run (the retry below) reads the front again from the answer's bytes:
        // the engine's wasm holds no copy of a front (nor the code to clone one).
        let mut run_observed =
            |text: &str, opts: &RunOptions, watch: &mut Watch| match (front.take(), &answer) {
                (Some(f), _) => run_after_dag_front(f, opts, watch),
                (None, Some(b)) => run_after_dag_front(read_answer(b)?.0, opts, watch),
                (None, None) => run_inline(text, opts, watch),
            };
        let from = match req.format.as_deref() {
            None | Some("") | Some("auto") => None,
            Some(name) => match InputFormat::parse(name) {
                Some(f) => Some(f),
                None => {
                    return Err(failure(
                        run_id,
                        format!("unknown format `{name}`; expected dag, mir or ptx"),
                        true,
                    ))
                }
            },
        };
        let knobs =
            Knobs::from_query(&req.knobs).map_err(|e| failure(run_id, e.to_string(), true))?;
        let opts = RunOptions {
            from,
            knobs,
            trace: true,
            verify: req.verify,
            ..RunOptions::default()
        };
        progress(Progress {
            run_id,
            done: 0,
            total: 0,
            label: "reading the source".into(),
        });
        let mut watch = Watch {
            run_id,
            total: 0,
            inputs: Vec::new(),
            ori_inputs: Vec::new(),
            cross_inputs: Vec::new(),
            progress,
        };
        let mut stopped = None;
        let mut result = match run_observed(&req.source, &opts, &mut watch) {
            Ok(r) => r,
            // A stage that cannot handle this input (an opcode with no PTX form, ...):
            // show everything up to the stage in front of it, and say why it stops.
            Err(PipelineError::StageFailed { stage, message }) => {
                let before = Stage::all().take_while(|&s| s != stage).last();
                let again = RunOptions {
                    until: before,
                    ..opts.clone()
                };
                watch.inputs.clear();
                watch.ori_inputs.clear();
                watch.cross_inputs.clear();
                match before.map(|_| run_observed(&req.source, &again, &mut watch)) {
                    Some(Ok(r)) => {
                        stopped = Some(StageStop { stage, message });
                        r
                    }
                    _ => {
                        let e = PipelineError::StageFailed { stage, message };
                        return Err(run_failure(run_id, &e));
                    }
                }
            }
            Err(e) => return Err(run_failure(run_id, &e)),
        };
        let total = watch.total;
        (watch.progress)(Progress {
            run_id,
            done: total.saturating_sub(1),
            total,
            label: "summing up".into(),
        });
        // ptx-lower runs on the whole module: its steps are split by function here.
        for (run, start) in result.stages.iter_mut().zip(&watch.ori_inputs) {
            if let (Stage::PtxLower, Some(m)) = (run.stage, start) {
                run.functions = crate::ptx_replay::lowering_ranges(run.steps.all(), m);
            }
        }
        let n_stages = result.stages.len();
        let replays = result
            .stages
            .iter()
            .map(|s| vec![None; s.functions.len()])
            .collect();
        let ori_replays = result
            .stages
            .iter()
            .map(|s| vec![None; s.functions.len()])
            .collect();
        let first_ranges = result
            .stages
            .iter()
            .map(|s| vec![None; s.functions.len()])
            .collect();
        let mut session = Session {
            run_id,
            result,
            inputs: watch.inputs,
            replays,
            ori_inputs: watch.ori_inputs,
            ori_replays,
            ori_cursor: None,
            first_ranges,
            table_stages: Vec::new(),
            table_budget: TABLE_BUDGET,
            cursor: None,
            proofs: vec![None; n_stages],
            proof_asked: vec![false; n_stages],
            fault: req.fault.as_deref().and_then(|id| id.parse().ok()),
            cross_inputs: watch.cross_inputs,
            ptx_cursor: None,
            handed_noop,
        };
        session.fill_texts();
        let mut summary = session.summary();
        summary.stopped = stopped;
        Ok((session, summary))
    }

    /// Prints the input and output of the stages that did not keep them
    /// ([`Watch::wants_texts`]) but cannot be replayed after all (their function ranges
    /// do not match the input's functions): the views show these texts instead.
    fn fill_texts(&mut self) {
        for k in 0..self.result.stages.len() {
            if self.result.stages[k].input.is_none() && !self.replayable(k) {
                let (input, output) = (self.printed_input(k), self.printed_output(k));
                let run = &mut self.result.stages[k];
                (run.input, run.output) = (input, output);
            }
        }
    }

    /// `stage`'s input and output as printed: the texts the run kept, or (MIR and ORI
    /// stages, which keep none) printed now from the IR kept for it and for the stage
    /// after it (or the run's output, after the last stage). None when it did not run.
    pub fn stage_texts(&self, stage: Stage) -> Option<(String, String)> {
        let k = self.stage_index(stage).ok()?;
        Some((self.printed_input(k)?, self.printed_output(k)?))
    }

    fn printed_input(&self, k: usize) -> Option<String> {
        let run = &self.result.stages[k];
        run.input.clone().or_else(|| self.kept_input_text(k))
    }

    fn printed_output(&self, k: usize) -> Option<String> {
        let run = &self.result.stages[k];
        match (&run.output, k + 1 < self.result.stages.len()) {
            (Some(text), _) => Some(text.clone()),
            (None, true) => self.kept_input_text(k + 1),
            (None, false) => Some(self.result.output.clone()),
        }
    }

    /// Stage `k`'s input printed, from the IR kept for it.
    fn kept_input_text(&self, k: usize) -> Option<String> {
        if let Some(m) = &self.inputs[k] {
            return Some(compiler_core::mir::print::print_module(m));
        }
        if let Some(ir) = &self.cross_inputs[k] {
            return Some(ir.print());
        }
        self.ori_inputs[k].as_ref().map(ori::print::print)
    }

    pub fn run_id(&self) -> u64 {
        self.run_id
    }

    pub fn result(&self) -> &RunResult {
        &self.result
    }

    fn replayable(&self, k: usize) -> bool {
        let n = self.result.stages[k].functions.len();
        self.inputs
            .get(k)
            .and_then(Option::as_ref)
            .is_some_and(|m| m.functions.len() == n)
            || self.is_ori(k)
            || self.is_ptx(k)
    }

    /// Stage `k` is ptx-emit, replayed from the PTX its steps add.
    fn is_ptx(&self, k: usize) -> bool {
        self.result.stages[k].stage == Stage::PtxEmit
    }

    /// Stage `k` is an ORI → ORI stage whose input was kept, one function per step range.
    fn is_ori(&self, k: usize) -> bool {
        let n = self.result.stages[k].functions.len();
        self.ori_inputs
            .get(k)
            .and_then(Option::as_ref)
            .is_some_and(|m| m.functions().count() == n)
    }

    /// The run without its steps.
    pub fn summary(&self) -> RunSummary {
        let stages = self
            .result
            .stages
            .iter()
            .enumerate()
            .map(|(k, s)| StageSummary {
                stage: s.stage,
                steps: s.steps.len() as u32,
                noop: match (k, &self.handed_noop) {
                    (0, Some(noop)) => handed_noop_flags(noop),
                    _ => noop_flags(s.steps.all(), self.replayable(k)),
                },
                functions: s
                    .functions
                    .iter()
                    .map(|f| FunctionRange {
                        function: f.function.clone(),
                        first: f.first as u32,
                        count: f.count as u32,
                    })
                    .collect(),
                stats: s.stats.iter().map(|(n, v)| (n.to_string(), v)).collect(),
                remarks: s.remarks.iter().take(MAX_REMARKS).cloned().collect(),
                remarks_total: s.remarks.len() as u32,
                verify: s.verify.clone(),
                replayable: self.replayable(k),
            })
            .collect();
        RunSummary {
            run_id: self.run_id,
            input_format: self.result.input_format.name().into(),
            entry: self.result.entry,
            stages,
            output_lines: self.result.output.lines().count() as u32,
            elapsed_ms: 0.0,
            memory_bytes: 0,
            stopped: None,
        }
    }

    fn stage_index(&self, stage: Stage) -> Result<usize, String> {
        self.result
            .stages
            .iter()
            .position(|s| s.stage == stage)
            .ok_or_else(|| format!("stage {stage} did not run"))
    }

    /// Function `j` of stage `k` after `n` of its own steps.
    fn seek(&mut self, k: usize, j: usize, n: usize) -> Result<Function, String> {
        let (cp, steps) = self.checkpoints(k, j)?;
        cp.seek(steps, n).map_err(|e| e.0)
    }

    /// Every register's live range as a coalescer started on function `j` of stage `k`
    /// (what its `live_ranges` step stands for), computed from the stage's input on
    /// first use and kept.
    fn first_ranges(&mut self, k: usize, j: usize) -> &[RangeView] {
        self.use_tables(k);
        if self.first_ranges[k][j].is_none() {
            let rows = self.inputs[k]
                .as_ref()
                .and_then(|m| m.functions.get(j))
                .map(first_range_rows)
                .unwrap_or_default();
            self.first_ranges[k][j] = Some(rows);
            self.trim_tables();
        }
        self.first_ranges[k][j].as_deref().unwrap_or_default()
    }

    /// [`Session::first_ranges`] for a stage by name: the rows the coalescing picture
    /// starts from (None when the stage did not run or has no such function).
    pub fn first_range_rows(&mut self, stage: Stage, j: usize) -> Option<Vec<RangeView>> {
        let k = self.stage_index(stage).ok()?;
        if j >= self.result.stages[k].functions.len() {
            return None;
        }
        Some(self.first_ranges(k, j).to_vec())
    }

    /// The checkpoints of function `j` of stage `k` (built on first use) and the steps
    /// they were built over.
    fn checkpoints(&mut self, k: usize, j: usize) -> Result<(&Checkpoints, Steps<'_>), String> {
        self.use_tables(k);
        let input = &self.inputs[k]
            .as_ref()
            .ok_or("stage cannot be replayed")?
            .functions[j];
        let range = &self.result.stages[k].functions[j];
        let steps = self.result.stages[k]
            .steps
            .range(range.first..range.first + range.count);
        if self.replays[k][j].is_none() {
            let every = checkpoint_spacing(steps.len(), input.insts.len());
            let cp = Checkpoints::build_within(input, steps, every, CHECKPOINT_BUDGET);
            self.replays[k][j] = Some(cp.map_err(|e| e.0)?);
            self.trim_tables();
        }
        let range = &self.result.stages[k].functions[j];
        let steps = self.result.stages[k]
            .steps
            .range(range.first..range.first + range.count);
        let built = self.replays[k][j].as_ref().expect("built above");
        Ok((built, steps))
    }

    /// Stage `k`'s tables are about to be used: it becomes the most recent of
    /// `table_stages`, and the tables of the stages used least recently go while all
    /// the tables hold more than the budget.
    fn use_tables(&mut self, k: usize) {
        if self.table_stages.last() == Some(&k) {
            return; // trimmed when its tables were built
        }
        self.table_stages.retain(|&s| s != k);
        self.table_stages.push(k);
        self.trim_tables();
    }

    /// Drops the tables of the stages used least recently (never the last one's) while
    /// all the tables hold more than the budget. Called before a table is used and after
    /// one was built.
    fn trim_tables(&mut self) {
        let mut held: usize = self.table_stages.iter().map(|&s| self.table_bytes(s)).sum();
        while held > self.table_budget && self.table_stages.len() > 1 {
            let old = self.table_stages.remove(0);
            held -= self.table_bytes(old);
            self.replays[old].iter_mut().for_each(|t| *t = None);
            self.ori_replays[old].iter_mut().for_each(|t| *t = None);
            self.first_ranges[old].iter_mut().for_each(|t| *t = None);
            if self.ori_cursor.as_ref().is_some_and(|c| c.0 == old) {
                self.ori_cursor = None;
            }
        }
    }

    /// About the bytes stage `k`'s tables hold (estimates: see
    /// [`Checkpoints::approx_bytes`]).
    fn table_bytes(&self, k: usize) -> usize {
        let mir: usize = self.replays[k]
            .iter()
            .flatten()
            .map(Checkpoints::approx_bytes)
            .sum();
        let ori: usize = (self.ori_replays[k].iter().flatten())
            .map(|c| c.units() * ORI_COPIED_INST_BYTES)
            .sum();
        let ranges: usize = (self.first_ranges[k].iter().flatten())
            .flat_map(|rows| rows.iter())
            .map(|r| {
                core::mem::size_of::<RangeView>()
                    + r.segments.capacity() * core::mem::size_of::<SegmentView>()
            })
            .sum();
        mir + ori + ranges
    }

    /// Sets the bytes all stages' seek tables may hold together ([`TABLE_BUDGET`] until
    /// then): tests make it small to see tables dropped and built again.
    pub fn set_table_budget(&mut self, bytes: usize) {
        self.table_budget = bytes;
        self.trim_tables();
    }

    /// Stages whose seek tables are built now, the one used last at the end.
    pub fn table_stages(&self) -> Vec<Stage> {
        let built = |k: usize| {
            self.replays[k].iter().any(Option::is_some)
                || self.ori_replays[k].iter().any(Option::is_some)
                || self.first_ranges[k].iter().any(Option::is_some)
        };
        (self.table_stages.iter())
            .filter(|&&k| built(k))
            .map(|&k| self.result.stages[k].stage)
            .collect()
    }

    /// Moves the cursor to function `j` of stage `k` around its own step `l`: from the
    /// step before by one step of edits (the previous "after" becomes "before"), from
    /// anywhere else by a seek. Leaves the cursor unset on error.
    fn move_cursor(&mut self, k: usize, j: usize, l: usize) -> Result<(), String> {
        let first = self.result.stages[k].functions[j].first;
        let mut cur = match self.cursor.take() {
            Some(c) if c.at == (k, j, l) => {
                self.cursor = Some(c);
                return Ok(());
            }
            Some(mut c) if c.at == (k, j, l.wrapping_sub(1)) => {
                core::mem::swap(&mut c.a, &mut c.b);
                core::mem::swap(&mut c.pa, &mut c.pb);
                c
            }
            old => {
                let (cp, steps) = self.checkpoints(k, j)?;
                // Reuse the old cursor's memory when there is one; on the same function,
                // move it from where it stands (redo or undo, or a stored copy if nearer).
                let (a, b) = match old {
                    Some(mut c) if (c.at.0, c.at.1) == (k, j) => {
                        cp.seek_from(steps, c.at.2, l, &mut c.a).map_err(|e| e.0)?;
                        (c.a, c.b)
                    }
                    Some(mut c) => {
                        cp.seek_into(steps, l, &mut c.a).map_err(|e| e.0)?;
                        (c.a, c.b)
                    }
                    None => {
                        let a = cp.seek(steps, l).map_err(|e| e.0)?;
                        let b = a.clone();
                        (a, b)
                    }
                };
                let pa = print_with_lines(&a);
                Cursor {
                    at: (k, j, l),
                    a,
                    b,
                    pb: Printed::default(),
                    pa,
                }
            }
        };
        cur.at = (k, j, l);
        cur.b.assign_from(&cur.a);
        // `a` may hold storage slots an undo left behind: redo_edit reuses them.
        for e in &self.result.stages[k].steps.step(first + l).edits {
            redo_edit(&mut cur.b, e).map_err(|e| e.0)?;
        }
        cur.pb = print_with_lines(&cur.b);
        self.cursor = Some(cur);
        Ok(())
    }

    /// The page's view of step `step` of `stage` (clamped to the stage's step count),
    /// with its two panes aligned by a line diff.
    pub fn view(&mut self, stage: Stage, step: u32) -> Result<StepView, String> {
        let mut view = self.unaligned_view(stage, step)?;
        if let Some(after) = view.after.as_ref().filter(|a| a.text != view.before.text) {
            view.align = crate::diff::align_texts(&view.before.text, &after.text);
        }
        view.proof = self.proofs[self.stage_index(stage)?].clone().map(Box::new);
        Ok(view)
    }

    fn unaligned_view(&mut self, stage: Stage, step: u32) -> Result<StepView, String> {
        let k = self.stage_index(stage)?;
        let total = self.result.stages[k].steps.len() as u32;
        let step = step.min(total);
        let mut view = StepView {
            run_id: self.run_id,
            stage,
            step,
            total,
            function: String::new(),
            kind: "input".into(),
            narration: String::new(),
            before: IrText::default(),
            after: None,
            focus_regs: Vec::new(),
            edits: Vec::new(),
            payload_type: "none".into(),
            payload: Vec::new(),
            picture: {
                let run = &self.result.stages[k];
                crate::pictures::picture(stage, run.steps.all(), &run.functions, step)
            },
            coalesce: None,
            align: Alignment::default(),
            proof: None,
        };
        if !self.replayable(k) {
            let run = &self.result.stages[k];
            view.before.text = run.input.clone().unwrap_or_default();
            view.after = Some(IrText {
                text: run.output.clone().unwrap_or_default(),
                marks: Vec::new(),
            });
            view.narration =
                format!("{stage}: its input and output (this IR has no step replay yet).");
            if step > 0 {
                let s = run.steps.step(step as usize - 1);
                view.kind = s.kind.as_str().into();
                view.narration = s.narration.text();
            }
            return Ok(view);
        }
        if self.is_ptx(k) {
            return self.ptx_view(k, step, view);
        }
        if self.is_ori(k) {
            return self.ori_view(k, step, view);
        }
        if step == 0 {
            // The input, and beside it where the stage ends up (the first function's).
            let functions = self.result.stages[k].functions.len();
            if functions > 0 {
                let f = self.seek(k, 0, 0)?;
                view.function = f.name.clone();
                view.before.text = print_function(&f);
                let count = self.result.stages[k].functions[0].count;
                view.after = Some(IrText {
                    text: print_function(&self.seek(k, 0, count)?),
                    marks: Vec::new(),
                });
            }
            view.narration = input_narration(stage, total, functions);
            return Ok(view);
        }
        let i = step as usize - 1;
        let (j, range) = self.step_function(k, i)?;
        let l = i - range.first;
        if matches!(stage, Stage::RegisterCoalescer | Stage::NvptxCoalescer) {
            // Computed (once) before the cursor and the step are borrowed below.
            self.first_ranges(k, j);
        }
        self.move_cursor(k, j, l)?;
        let cur = self.cursor.as_ref().expect("moved above");
        let (fa, fb, pa, pb) = (&cur.a, &cur.b, &cur.pa, &cur.pb);
        let s = &self.result.stages[k].steps.step(i);
        let (before_marks, after_marks) = marks(s, pa, pb);
        view.function = range.function.clone();
        view.kind = s.kind.as_str().into();
        view.narration = s.narration.text();
        view.focus_regs = s
            .focus
            .iter()
            .filter_map(|f| match f {
                Focus::VReg { vreg } => Some(*vreg),
                _ => None,
            })
            .collect();
        view.edits = edit_rows(s, fa, fb);
        let (kind, rows) = payload::rows(s);
        view.payload_type = kind;
        view.payload = rows;
        if matches!(stage, Stage::RegisterCoalescer | Stage::NvptxCoalescer) {
            let first = self.first_ranges[k][j].as_deref().unwrap_or_default();
            let steps = self.result.stages[k].steps.range(range.first..=i);
            view.coalesce = crate::pictures::coalesce::picture(steps, first).map(Box::new);
        }
        view.before = IrText {
            text: pa.text.clone(),
            marks: before_marks,
        };
        view.after = Some(IrText {
            text: pb.text.clone(),
            marks: after_marks,
        });
        Ok(view)
    }

    /// The whole module as printed after `step` steps of stage `k`.
    fn module_text(&mut self, k: usize, step: usize) -> Result<String, String> {
        if !self.replayable(k) {
            let run = &self.result.stages[k];
            let text = if step == 0 { &run.input } else { &run.output };
            return Ok(text.clone().unwrap_or_default());
        }
        if self.is_ptx(k) {
            return Ok(compiler_core::ptx::print(&self.ptx_seek(k, step)?));
        }
        let mut out = String::new();
        let ranges = self.result.stages[k].functions.clone();
        for (j, r) in ranges.iter().enumerate() {
            let local = step.saturating_sub(r.first).min(r.count);
            if self.is_ori(k) {
                let f = self.ori_seek(k, j, local)?;
                out.push_str(&ori::print::print_function_with_lines(&f, j).text);
            } else {
                out.push_str(&print_function(&self.seek(k, j, local)?));
            }
        }
        Ok(out)
    }

    /// A line diff of the module between steps `from` and `to` of `stage`.
    pub fn diff(&mut self, stage: Stage, from: u32, to: u32) -> Result<DiffView, String> {
        let k = self.stage_index(stage)?;
        let total = self.result.stages[k].steps.len() as u32;
        let (from, to) = (from.min(total), to.min(total));
        let a = self.module_text(k, from as usize)?;
        let b = self.module_text(k, to as usize)?;
        let la: Vec<&str> = a.lines().collect();
        let lb: Vec<&str> = b.lines().collect();
        let ops = diff::diff_ops(&la, &lb);
        let (lines, added, removed, truncated) = diff::render(&ops, &la, &lb);
        Ok(DiffView {
            run_id: self.run_id,
            stage,
            from,
            to,
            lines,
            added,
            removed,
            truncated,
        })
    }

    /// The function step `i` (0-based) of stage `k` belongs to, and its step range.
    fn step_function(&self, k: usize, i: usize) -> Result<(usize, FunctionSteps), String> {
        (self.result.stages[k].functions.iter())
            .enumerate()
            .find(|(_, r)| (r.first..r.first + r.count).contains(&i))
            .map(|(j, r)| (j, r.clone()))
            .ok_or_else(|| format!("step {} belongs to no function", i + 1))
    }
}

/// What a stage's step 0 says: its input, how many steps follow, and which function is
/// shown when the module has several.
fn input_narration(stage: Stage, total: u32, functions: usize) -> String {
    let mut text = match total {
        0 => format!("The input of {stage}. This stage recorded no steps."),
        1 => format!("The input of {stage}. One step follows."),
        n => format!("The input of {stage}. {n} steps follow."),
    };
    if functions > 1 {
        text.push_str(&format!(
            " The module has {functions} functions; this is the first."
        ));
    }
    text
}

fn run_failure(run_id: u64, e: &PipelineError) -> RunFailure {
    RunFailure {
        run_id,
        message: e.to_string(),
        errors: e
            .source_errors()
            .into_iter()
            .map(|e| SourcePosError {
                line: e.line,
                col: e.col,
                message: e.message,
            })
            .collect(),
        usage: e.is_usage(),
    }
}

/// Per step: true when it changed nothing in the IR. Only a stage that records its IR
/// edits can say so: a MIR stage (replayed from its edits), or one whose steps carry any
/// edit. A stage whose steps carry none (PTX and ORI stages that do not record edits
/// yet) gets `false` throughout: "skip steps that change nothing" then skips none of
/// them rather than all.
fn noop_flags(steps: Steps<'_>, replayable: bool) -> Vec<bool> {
    let known = replayable || steps.iter().any(|s| !s.is_noop());
    steps.iter().map(|s| known && s.is_noop()).collect()
}

/// [`noop_flags`] of steps handed over with their flags only (the DAG wasm's).
fn handed_noop_flags(noop: &[bool]) -> Vec<bool> {
    let known = noop.iter().any(|n| !n);
    noop.iter().map(|&n| known && n).collect()
}

/// Highlighted lines before and after a step: its edits first, then its focus.
fn marks(s: &Step, pa: &Printed, pb: &Printed) -> (Vec<LineMark>, Vec<LineMark>) {
    let mut before: Marks = Vec::new();
    let mut after: Marks = Vec::new();
    for e in &s.edits {
        match e {
            Edit::Insert {
                inst, before: at, ..
            } => {
                put(&mut after, pb.inst(inst.index() as u32), MarkKind::Inserted);
                // Where it goes, seen from before the step.
                if let Some(at) = at.expand() {
                    put(&mut before, pa.inst(at.index() as u32), MarkKind::Focus);
                }
            }
            Edit::Erase { inst } => {
                put(&mut before, pa.inst(inst.index() as u32), MarkKind::Erased)
            }
            Edit::Replace { inst, .. } => {
                put(&mut before, pa.inst(inst.index() as u32), MarkKind::Changed);
                put(&mut after, pb.inst(inst.index() as u32), MarkKind::Changed);
            }
            Edit::LiveFlags { insts } | Edit::DropKills { insts } => {
                for inst in insts.iter() {
                    put(&mut before, pa.inst(inst.index() as u32), MarkKind::Changed);
                    put(&mut after, pb.inst(inst.index() as u32), MarkKind::Changed);
                }
            }
            Edit::Move { inst, .. } => {
                put(&mut before, pa.inst(inst.index() as u32), MarkKind::Moved);
                put(&mut after, pb.inst(inst.index() as u32), MarkKind::Moved);
            }
            Edit::SetClass { vreg, .. } => {
                let prefix = format!("  - {{ id: {}, class", vreg.index());
                put(&mut before, pa.header_line(&prefix), MarkKind::Changed);
                put(&mut after, pb.header_line(&prefix), MarkKind::Changed);
            }
            Edit::SetLiveins { .. } => {
                put(&mut before, pa.header_line("liveins:"), MarkKind::Changed);
                put(&mut after, pb.header_line("liveins:"), MarkKind::Changed);
            }
            // A name-table entry prints nowhere by itself; a split edge's new block shows
            // through the instructions inserted into it.
            Edit::Intern { .. } | Edit::SplitEdge { .. } => {}
            Edit::SetProps { .. } => {
                for key in ["isSSA:", "noPhis:"] {
                    let (x, y) = (pa.header_line(key), pb.header_line(key));
                    let differs =
                        x.map(|l| line_text(&pa.text, l)) != y.map(|l| line_text(&pb.text, l));
                    if differs {
                        put(&mut before, x, MarkKind::Changed);
                        put(&mut after, y, MarkKind::Changed);
                    }
                }
            }
        }
    }
    focus_marks(&s.focus, pa, pb, &mut before, &mut after);
    (line_marks(before), line_marks(after))
}

/// Marks as they are found: (line, kind), any order, a line perhaps more than once
/// (a sorted `Vec`, not a map: one `BTreeMap` instance less in the wasm).
type Marks = Vec<(u32, MarkKind)>;

/// Marks `line` (when there is one) with `kind`; the strongest mark wins in
/// [`line_marks`] (MarkKind's order: inserted, erased, changed, moved, focus).
fn put(m: &mut Marks, line: Option<u32>, kind: MarkKind) {
    if let Some(line) = line {
        m.push((line, kind));
    }
}

/// A printed function's line of an instruction or a block (MIR's and ORI's alike).
trait LineOf {
    fn inst_line(&self, index: u32) -> Option<u32>;
    fn block_line(&self, index: u32) -> Option<u32>;
}

impl LineOf for Printed {
    fn inst_line(&self, index: u32) -> Option<u32> {
        self.inst(index)
    }
    fn block_line(&self, index: u32) -> Option<u32> {
        self.block(index)
    }
}

impl LineOf for ori::print::PrintedFunction {
    fn inst_line(&self, index: u32) -> Option<u32> {
        self.inst(ori::InstId::from_u32(index))
    }
    fn block_line(&self, index: u32) -> Option<u32> {
        self.block(ori::BlockId::from_u32(index))
    }
}

/// The step's focus (instructions and blocks), on both sides. Registers and DAG nodes
/// have no line of their own in a function's text.
fn focus_marks<P: LineOf>(focus: &[Focus], pa: &P, pb: &P, before: &mut Marks, after: &mut Marks) {
    for f in focus {
        let (a, b) = match *f {
            Focus::Inst { inst } => (pa.inst_line(inst), pb.inst_line(inst)),
            Focus::Block { block } => (pa.block_line(block), pb.block_line(block)),
            Focus::VReg { .. } | Focus::DagNode { .. } => continue,
        };
        put(before, a, MarkKind::Focus);
        put(after, b, MarkKind::Focus);
    }
}

/// One mark per line, in line order: the strongest kind put on it.
fn line_marks(mut m: Marks) -> Vec<LineMark> {
    compiler_core::sort::sort_by_key(&mut m, |&(line, kind)| {
        compiler_core::sort::key4(0, 0, line, kind as u32)
    });
    m.dedup_by_key(|&mut (line, _)| line);
    (m.into_iter())
        .map(|(line, kind)| LineMark { line, kind })
        .collect()
}

fn line_text(text: &str, line: u32) -> &str {
    text.lines().nth(line as usize).unwrap_or("")
}

/// The step's edits as readable rows (at most [`MAX_EDIT_ROWS`]).
fn edit_rows(s: &Step, fa: &Function, fb: &Function) -> Vec<EditRow> {
    let defs_a = defined_vregs(fa);
    let defs_b = defined_vregs(fb);
    fn inst_text(f: &Function, defs: &SecondaryMap<VReg, bool>, data: &InstData) -> String {
        let mut t = String::new();
        write_inst(&mut t, f, data, defs);
        t
    }
    let mut rows = Vec::new();
    // Instructions the step's earlier edits made or changed, as they then stood: a
    // Replace that changed only operands carries just those.
    // (A short list, latest last: at most MAX_EDIT_ROWS entries.)
    let mut cur: Vec<(Inst, InstData)> = Vec::new();
    for e in s.edits.iter().flat_map(Edit::each).take(MAX_EDIT_ROWS) {
        let e = match e {
            EditRef::Edit(e) => e,
            // A LiveFlags or DropKills rule: the instruction before and after the step.
            EditRef::Flags(inst) => {
                let text = format!(
                    "{}  ⟶  {}",
                    inst_text(fa, &defs_a, &fa.insts[inst]),
                    inst_text(fb, &defs_b, &fb.insts[inst])
                );
                rows.push(EditRow {
                    op: "replace".into(),
                    text,
                });
                continue;
            }
        };
        let (op, text) = match e {
            Edit::Insert { inst, data, .. } => {
                let data = data.unpack();
                let text = inst_text(fb, &defs_b, &data);
                cur.push((*inst, data));
                ("insert", text)
            }
            Edit::Erase { inst } => ("erase", inst_text(fa, &defs_a, &fa.insts[*inst])),
            Edit::Replace { inst, change } => {
                let (old, new) = match change {
                    Change::Whole(b) => b.as_ref().clone(),
                    _ => {
                        let latest = cur.iter().rev().find(|(i, _)| i == inst);
                        let old = match latest.map(|(_, d)| d).or_else(|| fa.insts.get(*inst)) {
                            Some(d) => d.clone(),
                            None => fb.insts[*inst].clone(),
                        };
                        let mut new = old.clone();
                        let _ = change.apply(&mut new, false);
                        (old, new)
                    }
                };
                let text = format!(
                    "{}  ⟶  {}",
                    inst_text(fa, &defs_a, &old),
                    inst_text(fb, &defs_b, &new)
                );
                cur.push((*inst, new));
                ("replace", text)
            }
            Edit::Move { inst, .. } => ("move", inst_text(fb, &defs_b, &fb.insts[*inst])),
            Edit::SetClass { vreg, class } => (
                "set_class",
                match class {
                    Some(c) => format!("%{} : {}", vreg.index(), c.display(&fb.names)),
                    None => format!("%{} : no class", vreg.index()),
                },
            ),
            Edit::SetProps { no_phis, is_ssa } => {
                ("set_props", format!("isSSA: {is_ssa}, noPhis: {no_phis}"))
            }
            Edit::SetLiveins { liveins } => (
                "set_liveins",
                format!("{} function live-ins", liveins.len()),
            ),
            Edit::Intern { name, .. } => ("intern", format!("name `{name}`")),
            // Given above, instruction by instruction (`Edit::each`).
            Edit::LiveFlags { .. } | Edit::DropKills { .. } => continue,
            Edit::SplitEdge { pred, succ, .. } => {
                let num = |b: &u32| {
                    fb.blocks
                        .get(compiler_core::mir::Block::from_u32(*b))
                        .map_or(*b, |d| d.number)
                };
                (
                    "split_edge",
                    format!(
                        "new block on the edge %bb.{} -> %bb.{}",
                        num(pred),
                        num(succ)
                    ),
                )
            }
        };
        rows.push(EditRow {
            op: op.into(),
            text,
        });
    }
    let total: usize = s.edits.iter().map(Edit::count).sum();
    if total > MAX_EDIT_ROWS {
        rows.push(EditRow {
            op: "more".into(),
            text: format!("… and {} more edits", total - MAX_EDIT_ROWS),
        });
    }
    rows
}

// ORI stages.
impl Session {
    /// The ORI function `j` of stage `k` after `n` of its own steps.
    fn ori_seek(&mut self, k: usize, j: usize, n: usize) -> Result<ori::Function, String> {
        self.use_tables(k);
        let range = self.result.stages[k].functions[j].clone();
        let steps = self.result.stages[k]
            .steps
            .range(range.first..range.first + range.count);
        if self.ori_replays[k][j].is_none() {
            let input = self.ori_inputs[k]
                .as_ref()
                .and_then(|m| m.functions().nth(j))
                .ok_or("stage cannot be replayed")?;
            let every = CHECKPOINT_EVERY.max(
                (steps.len().saturating_mul(input.insts.len().max(1)))
                    .div_ceil(ORI_CHECKPOINT_BUDGET),
            );
            let mut f = input.clone();
            let budget = ORI_CHECKPOINT_BUDGET;
            let mut saved = Copies::new(&f, f.insts.len(), every, budget);
            for (i, s) in steps.iter().enumerate() {
                for e in &s.ori_edits {
                    apply_ori_edit(&mut f, e).map_err(|e| e.0)?;
                }
                saved.after_step(i + 1, &f, f.insts.len());
            }
            self.ori_replays[k][j] = Some(saved);
            self.trim_tables();
        }
        let steps = self.result.stages[k]
            .steps
            .range(range.first..range.first + range.count);
        let saved = self.ori_replays[k][j].as_ref().expect("built above");
        let n = n.min(steps.len());
        let (c, copy) = saved.at_or_before(n);
        let from = c * saved.every();
        let (from, mut f) = match self.ori_cursor.take() {
            Some((ck, cj, m, g)) if (ck, cj) == (k, j) && (from..=n).contains(&m) => (m, g),
            _ => (from, copy.clone()),
        };
        for s in steps.range(from..n) {
            for e in &s.ori_edits {
                apply_ori_edit(&mut f, e).map_err(|e| e.0)?;
            }
        }
        self.ori_cursor = Some((k, j, n, f.clone()));
        Ok(f)
    }

    /// [`Session::view`] for an ORI stage: the function before and after the step,
    /// printed as ORI, marked from the step's ORI edits and focus.
    fn ori_view(&mut self, k: usize, step: u32, mut view: StepView) -> Result<StepView, String> {
        let stage = self.result.stages[k].stage;
        let total = view.total;
        if step == 0 {
            let functions = self.result.stages[k].functions.len();
            if functions > 0 {
                let f = self.ori_seek(k, 0, 0)?;
                view.function = f.name.clone();
                view.before.text = ori::print::print_function_with_lines(&f, 0).text;
                let count = self.result.stages[k].functions[0].count;
                let g = self.ori_seek(k, 0, count)?;
                view.after = Some(IrText {
                    text: ori::print::print_function_with_lines(&g, 0).text,
                    marks: Vec::new(),
                });
            }
            view.narration = input_narration(stage, total, functions);
            return Ok(view);
        }
        let i = step as usize - 1;
        let (j, range) = self.step_function(k, i)?;
        let a = self.ori_seek(k, j, i - range.first)?;
        let mut b = a.clone();
        let s = &self.result.stages[k].steps.step(i);
        for e in &s.ori_edits {
            apply_ori_edit(&mut b, e).map_err(|e| e.0)?;
        }
        let pa = ori::print::print_function_with_lines(&a, j);
        let pb = ori::print::print_function_with_lines(&b, j);
        let (before_marks, after_marks) = ori_marks(s, &pa, &pb);
        view.function = range.function.clone();
        view.kind = s.kind.as_str().into();
        view.narration = s.narration.text();
        view.edits = ori_edit_rows(s, &a, &b);
        let (kind, rows) = payload::rows(s);
        view.payload_type = kind;
        view.payload = rows;
        view.before = IrText {
            text: pa.text,
            marks: before_marks,
        };
        view.after = Some(IrText {
            text: pb.text,
            marks: after_marks,
        });
        Ok(view)
    }
}

// Proof on screen.
impl Session {
    /// The proof of `stage`, once made.
    pub fn proof(&self, stage: Stage) -> Option<&Proof> {
        self.proofs[self.stage_index(stage).ok()?].as_ref()
    }

    /// Keeps the proof the proof wasm made from [`Session::proof_job`]: later views of
    /// the stage carry it.
    pub fn set_proof(&mut self, stage: Stage, proof: Proof) {
        if let Ok(k) = self.stage_index(stage) {
            self.proofs[k] = Some(proof);
        }
    }

    /// The job that proves `stage` (the verifier's verdict made here, the interpreters'
    /// inputs), the first time it is asked for and while the stage has no proof; None
    /// afterwards, so each stage is proven once.
    pub fn proof_job(&mut self, stage: Stage) -> Result<Option<ProofJob>, String> {
        let k = self.stage_index(stage)?;
        if self.proofs[k].is_some() || self.proof_asked[k] {
            return Ok(None);
        }
        self.proof_asked[k] = true;
        self.make_proof_job(k).map(Some)
    }

    /// Stage `k`'s proof job: its verifier run on the output, and its input and output
    /// for the interpreters, function by function.
    fn make_proof_job(&mut self, k: usize) -> Result<ProofJob, String> {
        let stage = self.result.stages[k].stage;
        let broken = self.fault == Some(stage);
        let n = self.result.stages[k].functions.len();
        let mut fault = None;
        let cross = matches!(stage, Stage::PtxEmit | Stage::PtxLower | Stage::PtxOut);
        let mut job = if cross {
            self.cross_proof(k)
        } else if self.is_ori(k) {
            let module = self.ori_inputs[k].clone().ok_or("no input")?;
            let mut after = module.clone();
            let mut j = 0;
            for item in &mut after.items {
                if let ori::Item::Func(f) = item {
                    let count = self.result.stages[k].functions[j].count;
                    *f = self.ori_seek(k, j, count)?;
                    if broken && fault.is_none() {
                        fault = proof::break_ori(f);
                    }
                    j += 1;
                }
            }
            proof::ori_stage(stage, module, after)
        } else if self.replayable(k) {
            let mut afters = Vec::with_capacity(n);
            for j in 0..n {
                let count = self.result.stages[k].functions[j].count;
                let mut f = self.seek(k, j, count)?;
                if broken && fault.is_none() {
                    fault = proof::break_mir(&mut f);
                }
                afters.push(f);
            }
            let module = self.inputs[k].as_ref().ok_or("no input")?;
            let pairs: Vec<_> = module.functions.iter().zip(&afters).collect();
            proof::mir(stage, &pairs, module.ir.as_deref())
        } else {
            self.cross_proof(k)
        };
        job.proof.fault = fault;
        Ok(job)
    }

    /// The proof job of a stage that changes the IR kind, from the input it was given
    /// (or the next stage's) and its printed output.
    fn cross_proof(&self, k: usize) -> ProofJob {
        let run = &self.result.stages[k];
        let printed = run.output.as_deref();
        let next_ori = self.ori_inputs.get(k + 1).and_then(Option::as_ref);
        let cross = self.cross_inputs.get(k).and_then(Option::as_ref);
        let across = || proof::done(proof::across(run.stage));
        match (run.stage, self.inputs[k].as_ref(), cross) {
            (Stage::PtxEmit, Some(m), _) => match printed {
                Some(p) => proof::mir_to_ptx(run.stage, m, p),
                None => across(),
            },
            (Stage::PtxLower, _, Some(Ir::Ptx(p))) => match next_ori {
                Some(o) => proof::ptx_to_ori(run.stage, p, o),
                None => across(),
            },
            (Stage::PtxOut, _, Some(Ir::Ori(o))) => match printed {
                Some(p) => proof::ori_to_ptx(run.stage, o, p),
                None => across(),
            },
            _ => across(),
        }
    }
}

/// Highlighted lines of an ORI step: its edits first, then its focus.
fn ori_marks(
    s: &Step,
    pa: &ori::print::PrintedFunction,
    pb: &ori::print::PrintedFunction,
) -> (Vec<LineMark>, Vec<LineMark>) {
    let mut before: Marks = Vec::new();
    let mut after: Marks = Vec::new();
    for e in &s.ori_edits {
        match e {
            OriEdit::Insert { inst, .. } => put(&mut after, pb.inst(*inst), MarkKind::Inserted),
            OriEdit::Erase { inst, .. } => put(&mut before, pa.inst(*inst), MarkKind::Erased),
            OriEdit::RewriteOperand { inst, .. }
            | OriEdit::SetMark { inst, .. }
            | OriEdit::Replace { inst, .. } => {
                put(&mut before, pa.inst(*inst), MarkKind::Changed);
                put(&mut after, pb.inst(*inst), MarkKind::Changed);
            }
            OriEdit::SetLayout { block, .. } => {
                put(&mut before, pa.block(*block), MarkKind::Moved);
                put(&mut after, pb.block(*block), MarkKind::Moved);
            }
            OriEdit::AddBlock { block, .. } => {
                put(&mut after, pb.block(*block), MarkKind::Inserted)
            }
            OriEdit::SetReg { reg, .. } => {
                put(&mut before, pa.reg(*reg), MarkKind::Changed);
                put(&mut after, pb.reg(*reg), MarkKind::Changed);
            }
        }
    }
    focus_marks(&s.focus, pa, pb, &mut before, &mut after);
    (line_marks(before), line_marks(after))
}

/// An ORI instruction as one line (its PTX, without the annotation comment).
fn ori_inst_text(f: &ori::Function, id: ori::InstId) -> String {
    if f.insts.get(id).is_none() {
        return format!("{id}");
    }
    let line = ori::print::inst_line(f, id);
    line.split('\t')
        .filter(|p| !p.trim().is_empty() && !p.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_string()
}

/// The ORI step's edits as readable rows (at most [`MAX_EDIT_ROWS`]).
fn ori_edit_rows(s: &Step, a: &ori::Function, b: &ori::Function) -> Vec<EditRow> {
    let mut rows = Vec::new();
    for e in s.ori_edits.iter().take(MAX_EDIT_ROWS) {
        let text = match e {
            OriEdit::Insert { inst, block, .. } => {
                format!("{} (block {block})", ori_inst_text(b, *inst))
            }
            OriEdit::Erase { inst, .. } => ori_inst_text(a, *inst),
            OriEdit::RewriteOperand { inst, operand, .. } => format!(
                "operand {operand}: {}  ⟶  {}",
                ori_inst_text(a, *inst),
                ori_inst_text(b, *inst)
            ),
            OriEdit::Replace { inst, .. } => format!(
                "{}  ⟶  {}",
                ori_inst_text(a, *inst),
                ori_inst_text(b, *inst)
            ),
            OriEdit::SetMark {
                inst,
                operand,
                before,
                after,
                ..
            } => format!(
                "operand {operand} of {}: marks 0x{before:x} → 0x{after:x}",
                ori_inst_text(b, *inst)
            ),
            OriEdit::SetLayout { block, insts } => {
                format!("block {block}: {} instructions in a new order", insts.len())
            }
            OriEdit::AddBlock { block, label } => match label {
                Some(l) => format!("block {block} ({l})"),
                None => format!("block {block}"),
            },
            OriEdit::SetReg { reg, info } => {
                let info = info.get();
                format!(
                    "R{reg} {} {}: defs {} uses {}",
                    info.name, info.decl, info.defs, info.uses
                )
            }
        };
        rows.push(EditRow {
            op: e.op().into(),
            text,
        });
    }
    if s.ori_edits.len() > MAX_EDIT_ROWS {
        rows.push(EditRow {
            op: "more".into(),
            text: format!("… and {} more edits", s.ori_edits.len() - MAX_EDIT_ROWS),
        });
    }
    rows
}

// ptx-emit: the PTX output as its steps add it (crate::ptx_replay).
impl Session {
    /// ptx-emit's output after `n` of stage `k`'s steps, going on from the last seek
    /// when it is not past `n`.
    fn ptx_seek(&mut self, k: usize, n: usize) -> Result<compiler_core::ptx::Module, String> {
        let steps = self.result.stages[k].steps.all();
        let n = n.min(steps.len());
        let (from, m) = match self.ptx_cursor.take() {
            Some((ck, cn, m)) if ck == k && cn <= n => (cn, m),
            _ => (0, compiler_core::ptx::Module::default()),
        };
        let m = crate::ptx_replay::ptx_apply(m, steps.range(from..n))?;
        self.ptx_cursor = Some((k, n, m.clone()));
        Ok(m)
    }

    /// [`Session::view`] for ptx-emit: step 0 shows the MIR input and the whole output;
    /// step k the output before and after the step, with the lines it added marked.
    fn ptx_view(&mut self, k: usize, step: u32, mut view: StepView) -> Result<StepView, String> {
        let stage = self.result.stages[k].stage;
        if step == 0 {
            let run = &self.result.stages[k];
            view.before.text = run.input.clone().unwrap_or_default();
            view.after = Some(IrText {
                text: run.output.clone().unwrap_or_default(),
                marks: Vec::new(),
            });
            view.narration = format!(
                "The input of {stage} and the PTX it prints. {} steps follow; each adds its part of the output.",
                view.total
            );
            return Ok(view);
        }
        let i = step as usize - 1;
        let a = self.ptx_seek(k, i)?;
        let s = &self.result.stages[k].steps.step(i);
        let b = crate::ptx_replay::ptx_apply(a.clone(), self.result.stages[k].steps.range(i..=i))?;
        let (ta, tb) = (compiler_core::ptx::print(&a), compiler_core::ptx::print(&b));
        let (before_marks, after_marks) = crate::ptx_replay::ptx_marks(&ta, &tb);
        view.function = match b.items.last() {
            Some(compiler_core::ptx::Item::Func(f)) => f.name.clone(),
            _ => String::new(),
        };
        view.kind = s.kind.as_str().into();
        view.narration = s.narration.text();
        view.edits = crate::ptx_replay::ptx_edit_rows(s);
        let (kind, rows) = payload::rows(s);
        view.payload_type = kind;
        view.payload = rows;
        view.before = IrText {
            text: ta,
            marks: before_marks,
        };
        view.after = Some(IrText {
            text: tb,
            marks: after_marks,
        });
        self.ptx_cursor = Some((k, i + 1, b));
        Ok(view)
    }
}
