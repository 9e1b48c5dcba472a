//! The runner: parse, plan, check the input, then one loop over the planned stages, each
//! run over every function of the module with a recorder (traced or not) and verified
//! after it when asked. A build may leave the DAG input path out
//! ([`run_observed_without_dag`]: the web engine); its first stage is then made apart
//! ([`run_dag_front`], in the DAG wasm) and handed to [`run_after_dag_front`].

use super::detect::parse_input_in;
use super::options::{emitter_options, ptx_emit_options, ptx_lower_options};
use super::registry::{check_kinds, entry_stage, plan, stage_impl, Handed, StageImpl};
use super::verify::{check_input, ptx_refusal, verify_after};
use super::{FunctionSteps, InputFormat, Ir, PipelineError, RunOptions, RunResult, StageRun};
use crate::error::text_from_bytes;
use crate::knobs::Knobs;
use crate::mir::Module;
use crate::passes;
use crate::stages::Stage;
use crate::stats::Stats;
#[cfg(not(feature = "traced-only"))]
use crate::trace::NoTrace;
use crate::trace::StepLog;
use alloc::format;
use alloc::vec::Vec;

/// Reads bytes as text, then [`run`]s.
pub fn run_bytes(bytes: &[u8], opts: &RunOptions) -> Result<RunResult, PipelineError> {
    let text = text_from_bytes(bytes).map_err(PipelineError::Parse)?;
    run(text, opts)
}

/// Watches a run from the inside. The web engine reports progress through it and keeps
/// each stage's input IR, which it needs to replay that stage's steps.
pub trait Observer {
    /// The stages about to run, in order; called once, after parsing and planning.
    fn planned(&mut self, _stages: &[Stage]) {}
    /// Stage number `index` of the plan is about to run on `input`.
    fn stage_start(&mut self, _index: usize, _stage: Stage, _input: &Ir) {}
    /// Stage number `index` left `output` (before it is verified).
    fn stage_end(&mut self, _index: usize, _stage: Stage, _output: &Ir) {}
    /// With tracing on, whether stage number `index` (about to run on `input`) should
    /// keep its input and output printed ([`StageRun::input`], [`StageRun::output`]).
    /// An observer that rebuilds both from the input it keeps and the steps says no:
    /// on a 20,000-instruction input the texts of every stage are tens of MB.
    fn wants_texts(&mut self, _index: usize, _stage: Stage, _input: &Ir) -> bool {
        true
    }
    /// Stage number `index` was run elsewhere and handed over ([`run_after_dag_front`]:
    /// instr-emitter); `stage_end` follows with its output.
    fn stage_handed(&mut self, _index: usize, _stage: Stage) {}
}

/// Watching nothing.
impl Observer for () {}

/// Parses, runs the planned stages and prints the result.
pub fn run(text: &str, opts: &RunOptions) -> Result<RunResult, PipelineError> {
    run_observed(text, opts, &mut ())
}

/// [`run`], telling `observer` what is planned and which stage starts on what IR.
pub fn run_observed(
    text: &str,
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<RunResult, PipelineError> {
    run_observed_in::<true>(text, opts, observer)
}

/// [`run_observed`] for a build that leaves the DAG input path out (the web engine's
/// wasm; its DAG path is a wasm of its own, which runs [`run_dag_front`] and hands the
/// result to [`run_after_dag_front`]): a DAG input is refused, and neither the DAG
/// reader nor instr-emitter is reached from here, so neither is linked.
pub fn run_observed_without_dag(
    text: &str,
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<RunResult, PipelineError> {
    run_observed_in::<false>(text, opts, observer)
}

fn run_observed_in<const DAG: bool>(
    text: &str,
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<RunResult, PipelineError> {
    let (input_format, mut ir, spans) = parse_input_in::<DAG>(text, opts.from)?;
    let entry = entry_stage(&ir);
    let stages = plan(entry, opts)?;
    check_input(&ir, &spans, &stages, opts.verify)?;
    check_kinds(ir.kind(), &stages, opts.emit)?;

    observer.planned(&stages);
    let from = Start {
        text,
        format: input_format,
        runs: Vec::with_capacity(stages.len()),
    };
    let runs = run_stages::<DAG>(from, &mut ir, &stages, opts, observer)?;
    Ok(RunResult::new(input_format, entry, runs, &ir))
}

impl RunResult {
    fn new(input_format: InputFormat, entry: Stage, stages: Vec<StageRun>, ir: &Ir) -> Self {
        RunResult {
            input_format,
            entry,
            stages,
            output: ir.print(),
            output_kind: ir.kind(),
        }
    }
}

/// Where [`run_stages`] starts: the user's text (a PTX refusal points into it), its
/// format, and the runs of the stages already made.
struct Start<'a> {
    text: &'a str,
    format: InputFormat,
    runs: Vec<StageRun>,
}

/// Runs the planned `stages` from the first one `from` has no run of, on `ir`; stops
/// after a stage whose output fails verification.
fn run_stages<const DAG: bool>(
    from: Start,
    ir: &mut Ir,
    stages: &[Stage],
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<Vec<StageRun>, PipelineError> {
    let mut handover = Handover::default();
    let mut runs = from.runs;
    for (index, &stage) in stages.iter().enumerate().skip(runs.len()) {
        observer.stage_start(index, stage, ir);
        let texts = opts.trace && observer.wants_texts(index, stage, ir);
        let input = texts.then(|| ir.print());
        let mut run = match run_stage_handing_over::<DAG>(
            stage,
            ir,
            &opts.knobs,
            opts.trace,
            &mut handover,
        ) {
            Ok(run) => run,
            // The first stage read the user's PTX text: point into it.
            Err(PipelineError::StageFailed { stage, message })
                if index == 0 && from.format == InputFormat::Ptx =>
            {
                return Err(ptx_refusal(from.text, stage, message));
            }
            Err(e) => return Err(e),
        };
        observer.stage_end(index, stage, ir);
        run.input = input;
        run.output = texts.then(|| ir.print());
        run.verify = opts.verify.then(|| verify_after(stage, ir));
        let failed = run.verify.as_ref().is_some_and(|v| !v.is_empty());
        runs.push(run);
        if failed {
            break;
        }
    }
    Ok(runs)
}

/// What the DAG input path makes of a DAG input: instr-emitter's run (its input and
/// output printed when tracing, verified when asked) and the MIR module it left.
#[derive(Clone, Debug)]
pub struct DagFront {
    pub emitter: StageRun,
    pub module: Module,
}

/// The DAG input path alone: reads `text` as a selected DAG and runs instr-emitter on
/// it, as [`run_observed`] would for its first stage (the web engine's DAG wasm).
pub fn run_dag_front(text: &str, opts: &RunOptions) -> Result<DagFront, PipelineError> {
    let (_, ir, spans) = parse_input_in::<true>(text, Some(InputFormat::Dag))?;
    check_input(&ir, &spans, &[Stage::InstrEmitter], opts.verify)?;
    let Ir::Dag(d) = &ir else {
        return Err(failed(
            Stage::InstrEmitter,
            "the input is not a selected DAG",
        ));
    };
    let mut emitter = StageRun::empty(Stage::InstrEmitter);
    let out = emit(d, &opts.knobs, opts.trace, &mut emitter)?;
    emitter.input = opts.trace.then(|| ir.print());
    emitter.output = opts.trace.then(|| out.print());
    emitter.verify = opts.verify.then(|| verify_after(Stage::InstrEmitter, &out));
    match out {
        Ir::Mir(module) => Ok(DagFront { emitter, module }),
        _ => Err(failed(Stage::InstrEmitter, "instr-emitter left no MIR")),
    }
}

/// A run of a DAG input whose first stage the DAG input path made (`front`, from
/// [`run_dag_front`] with the same knobs and `verify`): plans as [`run_observed`] does
/// and runs the stages after instr-emitter, without the DAG path in the build. `front`'s
/// input text stands for the DAG when the plan runs nothing.
pub fn run_after_dag_front(
    front: DagFront,
    opts: &RunOptions,
    observer: &mut dyn Observer,
) -> Result<RunResult, PipelineError> {
    let entry = Stage::InstrEmitter;
    let stages = plan(entry, opts)?;
    check_kinds(crate::stages::IrKind::Dag, &stages, opts.emit)?;
    observer.planned(&stages);
    if stages.is_empty() {
        return Ok(RunResult {
            input_format: InputFormat::Dag,
            entry,
            stages: Vec::new(),
            output: front.emitter.input.unwrap_or_default(),
            output_kind: crate::stages::IrKind::Dag,
        });
    }
    observer.stage_handed(0, entry);
    let failed = (front.emitter.verify.as_ref()).is_some_and(|v| !v.is_empty());
    let mut ir = Ir::Mir(front.module);
    observer.stage_end(0, entry, &ir);
    let from = Start {
        text: "",
        format: InputFormat::Dag,
        runs: alloc::vec![front.emitter],
    };
    let runs = if failed {
        from.runs
    } else {
        run_stages::<false>(from, &mut ir, &stages, opts, observer)?
    };
    Ok(RunResult::new(InputFormat::Dag, entry, runs, &ir))
}

/// Runs `$body` with `$rec` bound to a recorder and evaluates to its result: a
/// `StepLog` whose steps and remarks go to `$out` when `$trace` (or when the crate is
/// built `traced-only`), else a `NoTrace` whose remarks go to `$out`. Each pass is thus
/// instantiated once per recorder, and a `traced-only` build has no untraced copies.
macro_rules! recorded {
    ($trace:expr, $out:expr, |$rec:ident| $body:expr) => {{
        let wanted: bool = $trace;
        // A `traced-only` build records anyway and drops the steps nobody asked for.
        let traced = wanted || cfg!(feature = "traced-only");
        if traced {
            let mut log = StepLog::default();
            let r = {
                let $rec = &mut log;
                $body
            };
            if wanted && $out.steps.is_empty() {
                // Taken whole: copying a long trace into a new array would hold both
                // arrays at once, the traced run's heap peak. Its spare room is given
                // back in place (a shrink by less than half does not move it).
                $out.steps = log.steps;
                $out.steps.shrink_to_fit();
            } else if wanted {
                $out.steps.append(log.steps);
            }
            $out.remarks.extend(log.remarks);
            r
        } else {
            #[cfg(not(feature = "traced-only"))]
            {
                let mut log = NoTrace::default();
                let r = {
                    let $rec = &mut log;
                    $body
                };
                $out.remarks.extend(log.remarks);
                r
            }
            #[cfg(feature = "traced-only")]
            unreachable!()
        }
    }};
}

/// What the MIR stages of one run hand on, per function (index in the module): see
/// [`Handed`]. A run that starts after two-address has none.
#[derive(Clone, Debug, Default)]
pub struct Handover {
    pub copy_classes: Vec<Handed>,
}

impl Handover {
    fn slot(&mut self, k: usize) -> &mut Handed {
        if self.copy_classes.len() <= k {
            self.copy_classes.resize(k + 1, None);
        }
        &mut self.copy_classes[k]
    }
}

/// Runs one stage on `ir` (replacing it when the stage changes the IR kind), with
/// tracing on or off. The benchmark times stages through this. Nothing is handed over
/// from earlier stages: [`run_stage_handing_over`] does that.
pub fn run_stage(
    stage: Stage,
    ir: &mut Ir,
    knobs: &Knobs,
    trace: bool,
) -> Result<StageRun, PipelineError> {
    run_stage_handing_over::<true>(stage, ir, knobs, trace, &mut Handover::default())
}

/// [`run_stage`], with what earlier stages of the same run handed over; with `DAG`
/// false, instr-emitter is not linked (a DAG reaches the wrong-input error instead).
pub fn run_stage_handing_over<const DAG: bool>(
    stage: Stage,
    ir: &mut Ir,
    knobs: &Knobs,
    trace: bool,
    handover: &mut Handover,
) -> Result<StageRun, PipelineError> {
    let mut out = StageRun::empty(stage);
    let next = match (stage_impl(stage), &mut *ir) {
        (StageImpl::Mir(pass), Ir::Mir(m)) => {
            for (k, f) in m.functions.iter_mut().enumerate() {
                let first = out.steps.len();
                let handed = handover.slot(k);
                let stats = recorded!(trace, out, |rec| pass.run(f, knobs, rec, handed));
                out.function_done(&f.name, first, stats);
            }
            None
        }
        (StageImpl::Ori(pass), Ir::Ori(m)) => {
            // `sm` left at `target` follows the module's `.target`.
            let knobs = &knobs.for_target(&m.target);
            for item in &mut m.items {
                let crate::ori::Item::Func(f) = item else {
                    continue;
                };
                let first = out.steps.len();
                let stats = recorded!(trace, out, |rec| pass.run(f, knobs, rec));
                out.function_done(&f.name, first, stats);
            }
            None
        }
        (StageImpl::Emitter, Ir::Dag(d)) if DAG => Some(emit(d, knobs, trace, &mut out)?),
        (StageImpl::PtxEmit, Ir::Mir(m)) => {
            let opts = ptx_emit_options(knobs);
            let (ptx, stats) = recorded!(trace, out, |rec| passes::ptx_emit::run(m, &opts, rec))
                .map_err(|e| failed(stage, e))?;
            out.stats.merge(&stats);
            Some(Ir::Ptx(ptx))
        }
        (StageImpl::PtxLower, Ir::Ptx(p)) => {
            let opts = ptx_lower_options(knobs);
            let (ori, stats) = recorded!(trace, out, |rec| passes::ptx_lower::run(p, &opts, rec))
                .map_err(|e| failed(stage, e))?;
            out.stats.merge(&stats);
            Some(Ir::Ori(ori))
        }
        (StageImpl::PtxOut, Ir::Ori(o)) => {
            let (ptx, stats) = ptx_out(o).map_err(|e| failed(stage, e))?;
            out.stats.merge(&stats);
            Some(Ir::Ptx(ptx))
        }
        (_, other) => {
            return Err(PipelineError::WrongInput {
                stage,
                expected: stage.info().input,
                found: other.kind(),
            });
        }
    };
    if let Some(n) = next {
        *ir = n;
    }
    Ok(out)
}

/// instr-emitter on the selected DAG `d`: the MIR module of its one function.
fn emit(
    d: &crate::dag::Dag,
    knobs: &Knobs,
    trace: bool,
    out: &mut StageRun,
) -> Result<Ir, PipelineError> {
    // An emission error is the input's: it points at the DAG's line:column.
    let opts = emitter_options(knobs);
    let (f, stats) = recorded!(trace, out, |rec| passes::instr_emitter::run(d, &opts, rec))
        .map_err(PipelineError::Parse)?;
    out.function_done(&f.name, 0, stats);
    Ok(Ir::Mir(Module {
        ir: None,
        functions: alloc::vec![f],
    }))
}

impl StageRun {
    fn empty(stage: Stage) -> StageRun {
        StageRun {
            stage,
            stats: Stats::default(),
            steps: crate::trace::StepList::new(),
            functions: Vec::new(),
            remarks: Vec::new(),
            verify: None,
            input: None,
            output: None,
        }
    }

    /// Adds one function's counters, and its steps from `first` on.
    fn function_done(&mut self, name: &str, first: usize, stats: Stats) {
        self.stats.merge(&stats);
        self.functions.push(FunctionSteps {
            function: name.into(),
            first,
            count: self.steps.len() - first,
        });
    }
}

/// A stage that could not handle its input.
fn failed(stage: Stage, e: impl core::fmt::Display) -> PipelineError {
    PipelineError::StageFailed {
        stage,
        message: format!("{e}"),
    }
}

/// ptx-out: ORI prints as plain PTX, on the source's lines where it came from text,
/// unchanged lines as the source spelled them; reading that back gives the PTX module
/// (which prints as that text), and proves the text is PTX.
fn ptx_out(o: &crate::ori::Module) -> Result<(crate::ptx::Module, Stats), alloc::string::String> {
    let text = crate::ori::spelling::print_ptx_out(o);
    let mut ptx = crate::ptx::parse(&text)
        .map_err(|e| format!("printed ORI does not read back as PTX: {e}"))?;
    ptx.source.prints_as_read = true;
    let n = ptx
        .items
        .iter()
        .filter(|i| matches!(i, crate::ptx::ast::Item::Func(_)))
        .count();
    let stats = PtxOutStats {
        functions: n as u64,
    };
    Ok((ptx, stats.into()))
}

crate::stats::pass_stats! {
    /// ptx-out's one counter: the functions of the PTX it prints.
    struct PtxOutStats {
        functions,
    }
}
