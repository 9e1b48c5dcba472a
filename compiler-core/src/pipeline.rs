//! The pipeline driver: detects the input format, picks the stages to run, runs them
//! (each over every function of the module), verifies on request and prints the result.
//!
//! ```text
//!  text ──detect_format / --from──▶ InputFormat ──parse──▶ Ir ──entry_stage──▶ Stage
//!  plan(entry, --until | --only | default) ──▶ [Stage]
//!  for stage: stage_impl(stage) ──▶ StageImpl::Mir(pass) ── per function ──▶ Stats, Steps, remarks
//!                                 ├─ StageImpl::Emitter: Ir::Dag ──▶ Ir::Mir (one function)
//!                                 └─ verify (when asked) ──▶ StageRun.verify
//!  last Ir ──print──▶ RunResult.output
//! ```
//!
//! Stage registry: [`stage_impl`] is the one place where a pass makes itself available
//! (look for `HOOK(passes)`). A stage without an implementation is [`StageImpl::NotYet`]:
//! naming it in `--until`/`--only` is an error, never a silent no-op, and the default
//! selection stops in front of it.
//!
//! Verification: with [`RunOptions::verify`], the input is checked before any stage runs
//! at the level its header claims ([`input_level`]; errors point at input line:column),
//! and every stage's output after it runs at the level that stage leaves
//! ([`VerifyLevel::after`]), both with [`crate::mir::verify`].
//!
//! Invariants: deterministic (stages and functions in order, no hash maps); no input
//! panics; a run with no stage selected and `emit` equal to the input's kind prints the
//! canonical form of the input (`copyscope run x.mir --emit mir` == `copyscope fmt x.mir`).

use crate::dag::{parse_dag, print_dag, Dag};
use crate::entity::EntityRef;
use crate::error::{text_from_bytes, SourceError};
use crate::knobs::{Knob, Knobs};
use crate::mir::{
    describe_errors, parse_module_with_spans, print_module, verify, Function, FunctionSpans, Inst,
    Module, Rule, VerifyError, VerifyLevel,
};
use crate::passes;
use crate::stages::{IrKind, Stage};
use crate::stats::Stats;
#[cfg(not(feature = "traced-only"))]
use crate::trace::NoTrace;
use crate::trace::{Step, StepLog};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// The text formats a run can start from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    Dag,
    Mir,
    Ptx,
}

impl InputFormat {
    pub const ALL: [InputFormat; 3] = [InputFormat::Dag, InputFormat::Mir, InputFormat::Ptx];

    pub const fn name(self) -> &'static str {
        match self {
            InputFormat::Dag => "dag",
            InputFormat::Mir => "mir",
            InputFormat::Ptx => "ptx",
        }
    }

    pub const fn ir_kind(self) -> IrKind {
        match self {
            InputFormat::Dag => IrKind::Dag,
            InputFormat::Mir => IrKind::Mir,
            InputFormat::Ptx => IrKind::Ptx,
        }
    }

    pub fn parse(s: &str) -> Option<InputFormat> {
        InputFormat::ALL.into_iter().find(|f| f.name() == s)
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// PTX directives that can open a PTX file.
const PTX_STARTS: [&str; 12] = [
    ".version",
    ".target",
    ".address_size",
    ".visible",
    ".entry",
    ".func",
    ".extern",
    ".global",
    ".const",
    ".shared",
    ".weak",
    ".pragma",
];

/// Headers LLVM prints in front of a DAG dump.
const DAG_STARTS: [&str; 5] = [
    "SelectionDAG has",
    "Initial selection DAG",
    "Optimized legalized selection DAG",
    "Optimized type-legalized selection DAG",
    "Selected selection DAG",
];

/// Tells the format from the first meaningful line (comments and blank lines skipped).
/// None when the text looks like none of them (callers then read it as MIR, whose parser
/// says what it expected).
pub fn detect_format(text: &str) -> Option<InputFormat> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for line in text.lines().take(1000) {
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if t.starts_with("---") || t.starts_with("name:") {
            return Some(InputFormat::Mir);
        }
        if PTX_STARTS.iter().any(|d| {
            t.strip_prefix(d)
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
        }) {
            return Some(InputFormat::Ptx);
        }
        if DAG_STARTS.iter().any(|d| t.starts_with(d)) || is_dag_node(t) {
            return Some(InputFormat::Dag);
        }
        return None;
    }
    None
}

/// `tN:` at the start of a line.
fn is_dag_node(t: &str) -> bool {
    let Some(r) = t.strip_prefix('t') else {
        return false;
    };
    let digits = r.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && r[digits..].starts_with(':')
}

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Force the input format instead of detecting it.
    pub from: Option<InputFormat>,
    /// Run every stage from the input's entry stage through this one.
    pub until: Option<Stage>,
    /// Run exactly these stages, in this order, on the input as given.
    pub only: Vec<Stage>,
    /// The IR kind the run should end in. With neither `until` nor `only`, the run stops
    /// after the last stage producing this kind (None: no such cap).
    pub emit: Option<IrKind>,
    pub knobs: Knobs,
    /// Record steps (and per-stage input/output snapshots).
    pub trace: bool,
    /// Check the input and every stage's output.
    pub verify: bool,
}

/// Why a run could not start or finish.
#[derive(Clone, Debug, PartialEq)]
pub enum PipelineError {
    /// The input does not parse (or is not UTF-8).
    Parse(SourceError),
    /// The input's format has no reader yet.
    Unsupported(InputFormat),
    /// `verify` is on and the input breaks a rule; every error, in input order.
    InvalidInput(Vec<SourceError>),
    /// A stage named by `until`/`only` has no implementation yet.
    NotImplemented(Stage),
    /// `until` names a stage in front of the input's entry stage.
    UntilBeforeEntry { until: Stage, entry: Stage },
    /// Both `until` and `only` were given.
    UntilAndOnly,
    /// `only` names a stage twice.
    DuplicateStage(Stage),
    /// A stage in `only` reads another IR than the one it would get.
    WrongInput {
        stage: Stage,
        expected: IrKind,
        found: IrKind,
    },
    /// The run ends in another IR than `emit` asks for.
    Emit { wanted: IrKind, produced: IrKind },
    /// A stage could not handle its input (an opcode with no PTX form, ...).
    StageFailed { stage: Stage, message: String },
    /// The first stage, reading the user's text itself, refused it (a PTX register
    /// that is not declared, ...): the errors point into that text.
    SourceRefused {
        stage: Stage,
        errors: Vec<SourceError>,
    },
}

impl PipelineError {
    /// True when the error is about the request rather than the input (CLI exit 2).
    pub fn is_usage(&self) -> bool {
        !matches!(
            self,
            PipelineError::Parse(_)
                | PipelineError::Unsupported(_)
                | PipelineError::InvalidInput(_)
                | PipelineError::StageFailed { .. }
                | PipelineError::SourceRefused { .. }
        )
    }

    /// The input positions this error points at (empty for usage errors).
    pub fn source_errors(&self) -> Vec<SourceError> {
        match self {
            PipelineError::Parse(e) => alloc::vec![e.clone()],
            PipelineError::Unsupported(_) => alloc::vec![SourceError::new(1, 1, format!("{self}"))],
            PipelineError::InvalidInput(v) => v.clone(),
            PipelineError::SourceRefused { errors, .. } => errors.clone(),
            _ => Vec::new(),
        }
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineError::Parse(e) => write!(f, "{e}"),
            PipelineError::Unsupported(fmt_) => write!(
                f,
                "{} input is not supported yet: its reader has not landed (MIR, DAG and PTX can be read)",
                match fmt_ {
                    InputFormat::Dag => "DAG",
                    InputFormat::Mir => "MIR",
                    InputFormat::Ptx => "PTX",
                }
            ),
            PipelineError::InvalidInput(v) => {
                write!(f, "the input breaks {} verifier rule(s)", v.len())?;
                for e in v {
                    write!(f, "\n{e}")?;
                }
                Ok(())
            }
            PipelineError::NotImplemented(s) => {
                write!(f, "stage {s} is not implemented yet")
            }
            PipelineError::UntilBeforeEntry { until, entry } => write!(
                f,
                "--until {until} names a stage before the input's entry stage {entry}"
            ),
            PipelineError::UntilAndOnly => f.write_str("--until and --only cannot be combined"),
            PipelineError::DuplicateStage(s) => write!(f, "--only names stage {s} twice"),
            PipelineError::StageFailed { stage, message } => write!(f, "stage {stage}: {message}"),
            PipelineError::SourceRefused { stage, errors } => {
                write!(f, "stage {stage} refuses the input")?;
                for e in errors {
                    write!(f, "\n{e}")?;
                }
                Ok(())
            }
            PipelineError::WrongInput {
                stage,
                expected,
                found,
            } => write!(
                f,
                "stage {stage} reads {} but would be given {}",
                expected.name(),
                found.name()
            ),
            PipelineError::Emit { wanted, produced } => write!(
                f,
                "cannot emit {}: the run ends in {}",
                wanted.name(),
                produced.name()
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for PipelineError {}

/// Which steps of a stage belong to which function.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FunctionSteps {
    pub function: String,
    /// Index of the function's first step in [`StageRun::steps`].
    pub first: usize,
    pub count: usize,
}

/// What one stage did.
#[derive(Clone, Debug)]
pub struct StageRun {
    pub stage: Stage,
    /// Counters summed over the module's functions.
    pub stats: Stats,
    /// Every step, function after function; empty when tracing is off.
    pub steps: Vec<Step>,
    pub functions: Vec<FunctionSteps>,
    pub remarks: Vec<String>,
    /// None: not verified; Some(empty): verified, ok; else every error found.
    pub verify: Option<Vec<String>>,
    /// Printed IR before and after the stage (tracing on only).
    pub input: Option<String>,
    pub output: Option<String>,
}

/// `{"id", "stats", "steps", "remarks", "verify": "ok" | [errors] | null}` (DESIGN, CLI).
impl Serialize for StageRun {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("id", self.stage.id())?;
        m.serialize_entry("stats", &self.stats)?;
        m.serialize_entry("steps", &self.steps)?;
        m.serialize_entry("remarks", &self.remarks)?;
        match &self.verify {
            None => m.serialize_entry("verify", &())?,
            Some(v) if v.is_empty() => m.serialize_entry("verify", "ok")?,
            Some(v) => m.serialize_entry("verify", v)?,
        }
        m.end()
    }
}

/// The result of a run.
#[derive(Clone, Debug, Serialize)]
pub struct RunResult {
    pub input_format: InputFormat,
    #[serde(skip)]
    pub entry: Stage,
    pub stages: Vec<StageRun>,
    /// The printed IR after the last stage (the canonical input when none ran).
    pub output: String,
    #[serde(skip)]
    pub output_kind: IrKind,
}

impl RunResult {
    /// True when some stage's output failed verification (the run stopped after it).
    pub fn verify_failed(&self) -> bool {
        self.stages
            .iter()
            .any(|s| s.verify.as_ref().is_some_and(|v| !v.is_empty()))
    }
}

/// The IR between two stages.
#[derive(Clone, Debug)]
pub enum Ir {
    /// A selected DAG: one function, the instr-emitter's input.
    Dag(Dag),
    Mir(Module),
    Ptx(crate::ptx::Module),
    Ori(crate::ori::Module),
}

impl Ir {
    pub fn kind(&self) -> IrKind {
        match self {
            Ir::Dag(_) => IrKind::Dag,
            Ir::Mir(_) => IrKind::Mir,
            Ir::Ptx(_) => IrKind::Ptx,
            Ir::Ori(_) => IrKind::Ori,
        }
    }

    pub fn print(&self) -> String {
        match self {
            Ir::Dag(d) => print_dag(d),
            Ir::Mir(m) => print_module(m),
            Ir::Ptx(m) => crate::ptx::print(m),
            Ir::Ori(m) => crate::ori::print::print(m),
        }
    }
}

/// A MIR → MIR pass, instantiated once per recorder so that tracing off compiles to
/// nothing inside the pass. Build one with [`mir_pass!`](crate::mir_pass).
///
/// A `traced-only` build (the web app's) has no untraced instance: every run records.
#[derive(Copy, Clone)]
pub struct MirPass {
    #[cfg(not(feature = "traced-only"))]
    pub untraced: fn(&mut Function, &Knobs, &mut NoTrace) -> Stats,
    pub traced: fn(&mut Function, &Knobs, &mut StepLog) -> Stats,
}

impl MirPass {
    /// Runs the instance made for `R`.
    pub fn run<R: PassRecorder>(&self, f: &mut Function, k: &Knobs, rec: &mut R) -> Stats {
        (R::mir(self))(f, k, rec)
    }
}

/// The two recorders a registered pass is instantiated for, and how each picks its
/// instance out of a [`MirPass`] or [`OriPass`].
pub trait PassRecorder: crate::trace::Recorder + Sized {
    fn mir(p: &MirPass) -> fn(&mut Function, &Knobs, &mut Self) -> Stats;
    fn ori(p: &OriPass) -> fn(&mut crate::ori::Function, &Knobs, &mut Self) -> Stats;
}

impl PassRecorder for StepLog {
    fn mir(p: &MirPass) -> fn(&mut Function, &Knobs, &mut Self) -> Stats {
        p.traced
    }
    fn ori(p: &OriPass) -> fn(&mut crate::ori::Function, &Knobs, &mut Self) -> Stats {
        p.traced
    }
}

#[cfg(not(feature = "traced-only"))]
impl PassRecorder for NoTrace {
    fn mir(p: &MirPass) -> fn(&mut Function, &Knobs, &mut Self) -> Stats {
        p.untraced
    }
    fn ori(p: &OriPass) -> fn(&mut crate::ori::Function, &Knobs, &mut Self) -> Stats {
        p.untraced
    }
}

/// Wraps `fn run(&mut Function, &Opts, &mut impl Recorder) -> Stats` and
/// `fn(&Knobs) -> Opts` into a [`MirPass`]:
/// `mir_pass!(crate::passes::two_address::run, crate::passes::two_address::Options::from_knobs)`.
#[macro_export]
macro_rules! mir_pass {
    ($run:path, $opts:path) => {
        $crate::pipeline::MirPass {
            #[cfg(not(feature = "traced-only"))]
            untraced: |f, k, r| $run(f, &$opts(k), r),
            traced: |f, k, r| $run(f, &$opts(k), r),
        }
    };
}

/// How a stage runs.
#[derive(Copy, Clone)]
pub enum StageImpl {
    /// Not written yet.
    NotYet,
    /// A pass over each machine function.
    Mir(MirPass),
    /// DAG → MIR (instr-emitter).
    Emitter,
    /// MIR → PTX text (ptx-emit).
    PtxEmit,
    /// PTX → ORI (ptx-lower).
    PtxLower,
    /// ORI → PTX (ptx-out).
    PtxOut,
    /// A pass over each ORI function (the GeneralOptimize instances).
    Ori(OriPass),
}

/// An ORI → ORI pass, instantiated once per recorder like [`MirPass`].
#[derive(Copy, Clone)]
pub struct OriPass {
    #[cfg(not(feature = "traced-only"))]
    pub untraced: fn(&mut crate::ori::Function, &Knobs, &mut NoTrace) -> Stats,
    pub traced: fn(&mut crate::ori::Function, &Knobs, &mut StepLog) -> Stats,
}

impl OriPass {
    /// Runs the instance made for `R`.
    pub fn run<R: PassRecorder>(
        &self,
        f: &mut crate::ori::Function,
        k: &Knobs,
        rec: &mut R,
    ) -> Stats {
        (R::ori(self))(f, k, rec)
    }
}

macro_rules! general_optimize {
    ($phase:ident) => {
        StageImpl::Ori(OriPass {
            #[cfg(not(feature = "traced-only"))]
            untraced: |f, k, r| {
                use crate::ptxas::general_optimize as go;
                go::run(f, &go::Options::from_knobs(go::Phase::$phase, k), r)
            },
            traced: |f, k, r| {
                use crate::ptxas::general_optimize as go;
                go::run(f, &go::Options::from_knobs(go::Phase::$phase, k), r)
            },
        })
    };
}

/// The stage registry.
///
/// HOOK(passes): a pass registers itself by adding an arm here,
/// `Stage::X => StageImpl::Mir(mir_pass!(passes::x::run, x_options))`, with a function
/// below that reads its options from the knobs. Stages that change the IR kind
/// (instr-emitter, ptx-emit, ptx-lower, ptx-out) add a variant to [`StageImpl`] and to
/// [`Ir`] when they land.
pub fn stage_impl(stage: Stage) -> StageImpl {
    match stage {
        Stage::PhiElimination => {
            StageImpl::Mir(crate::mir_pass!(passes::phi_elim::run, phi_elim_options))
        }
        Stage::TwoAddress => StageImpl::Mir(crate::mir_pass!(
            passes::two_address::run,
            two_address_options
        )),
        Stage::RegisterCoalescer => StageImpl::Mir(crate::mir_pass!(
            passes::register_coalescer::run,
            register_coalescer_options
        )),
        Stage::NvptxCoalescer => StageImpl::Mir(crate::mir_pass!(
            passes::nvptx_coalescer::run,
            nvptx_coalescer_options
        )),
        Stage::PtxEmit => StageImpl::PtxEmit,
        Stage::PtxLower => StageImpl::PtxLower,
        Stage::InstrEmitter => StageImpl::Emitter,
        Stage::GeneralOptimizeEarly => general_optimize!(Early),
        Stage::GeneralOptimize => general_optimize!(Standard),
        Stage::GeneralOptimizeMid => general_optimize!(Mid),
        Stage::GeneralOptimizeMid2 => general_optimize!(Mid2),
        Stage::GeneralOptimizeLate => general_optimize!(Late),
        Stage::GeneralOptimizeLate2 => general_optimize!(Late2),
        Stage::PtxOut => StageImpl::PtxOut,
    }
}

/// The emitter reads no knob (the spec page names none); its options keep CICC's defaults.
pub fn emitter_options(_: &Knobs) -> passes::instr_emitter::EmitterOptions {
    passes::instr_emitter::EmitterOptions::default()
}

/// PHI elimination: `cssa-coalesce` dissolves PHIs whose operands never interfere
/// first (`cssa-verbosity`, `dump-before-cssa`), `usedessa` lowers by parallel copies;
/// critical-edge splitting reads `phi-elim-split-all-critical-edges` and
/// `disable-nvptx-require-structured-cfg`.
pub fn phi_elim_options(k: &Knobs) -> passes::phi_elim::PhiElimOptions {
    passes::phi_elim::PhiElimOptions {
        cssa_coalesce: k.flag(Knob::CssaCoalesce),
        split_edges: true,
        split_all_critical_edges: k.flag(Knob::PhiElimSplitAllCriticalEdges),
        split_structured_cfg: k.flag(Knob::DisableNvptxRequireStructuredCfg),
        cssa_verbosity: k.uint(Knob::CssaVerbosity),
        dump_before_cssa: k.flag(Knob::DumpBeforeCssa),
        use_dessa: k.flag(Knob::Usedessa),
    }
}

/// Two-address: `twoaddr-reschedule`, `dataflow-edge-limit`, `optnone`; LiveVariables is
/// available in the pipeline, as in llc's.
pub fn two_address_options(k: &Knobs) -> passes::two_address::TwoAddressOptions {
    passes::two_address::TwoAddressOptions {
        reschedule: k.flag(Knob::TwoaddrReschedule),
        dataflow_edge_limit: k.uint(Knob::DataflowEdgeLimit),
        optnone: k.flag(Knob::Optnone),
        live_variables: true,
        mechanisms: Default::default(),
    }
}

/// The generic coalescer: the LLVM knobs; `subtarget` resolves as NVPTX's subtarget does.
pub fn register_coalescer_options(k: &Knobs) -> passes::register_coalescer::CoalescerOptions {
    passes::register_coalescer::CoalescerOptions {
        join_liveintervals: k.flag(Knob::JoinLiveintervals),
        join_splitedges: k.tristate_nvptx(Knob::JoinSplitedges),
        join_globalcopies: k.tristate_nvptx(Knob::JoinGlobalcopies),
        terminal_rule: k.flag(Knob::TerminalRule),
        verify_coalescing: k.flag(Knob::VerifyCoalescing),
        late_remat_update_threshold: k.uint(Knob::LateRematUpdateThreshold),
        large_interval_size_threshold: k.uint(Knob::LargeIntervalSizeThreshold),
        large_interval_freq_threshold: k.uint(Knob::LargeIntervalFreqThreshold),
        ..Default::default()
    }
}

/// The NVPTX coalescer: its two limits (the pass reads 0 as no cap, as `unlimited` is)
/// and the block-frequency flag.
pub fn nvptx_coalescer_options(k: &Knobs) -> passes::nvptx_coalescer::NvptxCoalescerOptions {
    let cap = |knob| {
        k.limit(knob)
            .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX))
    };
    passes::nvptx_coalescer::NvptxCoalescerOptions {
        copy_limit: cap(Knob::CopyLimit),
        coalesce_limit: cap(Knob::CoalesceLimit),
        block_frequency: k.flag(Knob::BlockFrequency),
        ..Default::default()
    }
}

pub fn is_implemented(stage: Stage) -> bool {
    !matches!(stage_impl(stage), StageImpl::NotYet)
}

/// The first stage that applies to a parsed input: instr-emitter for a DAG, ptx-lower
/// for PTX; for MIR, phi-elimination while PHIs may remain (`noPhis: false` or a PHI
/// present) and for a module of globals only, two-address otherwise.
pub fn entry_stage(ir: &Ir) -> Stage {
    match ir {
        Ir::Dag(_) => Stage::InstrEmitter,
        Ir::Ptx(_) => Stage::PtxLower,
        Ir::Ori(_) => Stage::GeneralOptimizeEarly,
        Ir::Mir(m) => {
            let phis = m.functions.is_empty()
                || m.functions.iter().any(|f| {
                    !f.props.no_phis
                        || f.all_insts()
                            .any(|(_, i)| f.insts[i].is(crate::mir::Op::PHI))
                });
            if phis {
                Stage::PhiElimination
            } else {
                Stage::TwoAddress
            }
        }
    }
}

/// Picks the stages to run.
pub fn plan(entry: Stage, opts: &RunOptions) -> Result<Vec<Stage>, PipelineError> {
    if opts.until.is_some() && !opts.only.is_empty() {
        return Err(PipelineError::UntilAndOnly);
    }
    if !opts.only.is_empty() {
        for (i, &s) in opts.only.iter().enumerate() {
            if opts.only[..i].contains(&s) {
                return Err(PipelineError::DuplicateStage(s));
            }
        }
        for &s in &opts.only {
            if !is_implemented(s) {
                return Err(PipelineError::NotImplemented(s));
            }
        }
        return Ok(opts.only.clone());
    }
    let from = entry as usize;
    if let Some(until) = opts.until {
        if (until as usize) < from {
            return Err(PipelineError::UntilBeforeEntry { until, entry });
        }
        let stages: Vec<Stage> = Stage::all()
            .skip(from)
            .take(until as usize + 1 - from)
            .collect();
        if let Some(&s) = stages.iter().find(|&&s| !is_implemented(s)) {
            return Err(PipelineError::NotImplemented(s));
        }
        return Ok(stages);
    }
    // Default: every implemented stage from the entry on, stopping in front of the first
    // one that is not, and after the last one producing `emit`.
    let mut chain: Vec<Stage> = Stage::all()
        .skip(from)
        .take_while(|&s| is_implemented(s))
        .collect();
    if let Some(e) = opts.emit {
        match chain.iter().rposition(|s| s.info().output == e) {
            Some(p) => chain.truncate(p + 1),
            None => chain.clear(),
        }
    }
    Ok(chain)
}

/// Parses `text` in the given (or detected) format, with source spans.
pub fn parse_input(
    text: &str,
    from: Option<InputFormat>,
) -> Result<(InputFormat, Ir, Vec<FunctionSpans>), PipelineError> {
    let format = from
        .or_else(|| detect_format(text))
        .unwrap_or(InputFormat::Mir);
    match format {
        InputFormat::Mir => {
            let (m, spans) = parse_module_with_spans(text).map_err(PipelineError::Parse)?;
            Ok((format, Ir::Mir(m), spans))
        }
        InputFormat::Ptx => {
            let m = crate::ptx::parse(text).map_err(PipelineError::Parse)?;
            Ok((format, Ir::Ptx(m), Vec::new()))
        }
        InputFormat::Dag => {
            let d = parse_dag(text).map_err(PipelineError::Parse)?;
            Ok((format, Ir::Dag(d), Vec::new()))
        }
    }
}

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
    let (input_format, mut ir, spans) = parse_input(text, opts.from)?;
    let entry = entry_stage(&ir);
    let stages = plan(entry, opts)?;

    if stages.contains(&Stage::TwoAddress) {
        let errors = two_address_refusals(&ir, &spans);
        if !errors.is_empty() {
            return Err(PipelineError::InvalidInput(errors));
        }
    }
    if let Some(&past) = stages.iter().find(|s| **s > Stage::TwoAddress) {
        let errors = bundle_refusals(&ir, &spans, past);
        if !errors.is_empty() {
            return Err(PipelineError::InvalidInput(errors));
        }
    }
    if opts.verify {
        let errors = verify_input(&ir, &spans);
        if !errors.is_empty() {
            return Err(PipelineError::InvalidInput(errors));
        }
    }

    // Check the IR kinds chain before running anything.
    let mut kind = ir.kind();
    for &s in &stages {
        let info = s.info();
        if info.input != kind {
            return Err(PipelineError::WrongInput {
                stage: s,
                expected: info.input,
                found: kind,
            });
        }
        kind = info.output;
    }
    if let Some(wanted) = opts.emit {
        if wanted != kind {
            return Err(PipelineError::Emit {
                wanted,
                produced: kind,
            });
        }
    }

    observer.planned(&stages);
    let mut handover = Handover::default();
    let mut runs = Vec::with_capacity(stages.len());
    for (index, &stage) in stages.iter().enumerate() {
        observer.stage_start(index, stage, &ir);
        let input = opts.trace.then(|| ir.print());
        let mut run =
            match run_stage_handing_over(stage, &mut ir, &opts.knobs, opts.trace, &mut handover) {
                Ok(run) => run,
                Err(PipelineError::StageFailed { stage, message })
                    if index == 0 && input_format == InputFormat::Ptx =>
                {
                    return Err(ptx_refusal(text, stage, message));
                }
                Err(e) => return Err(e),
            };
        run.input = input;
        if opts.trace {
            run.output = Some(ir.print());
        }
        let failed = if opts.verify {
            let errors = verify_after(stage, &ir);
            let failed = !errors.is_empty();
            run.verify = Some(errors);
            failed
        } else {
            false
        };
        runs.push(run);
        if failed {
            break;
        }
    }
    Ok(RunResult {
        input_format,
        entry,
        stages: runs,
        output: ir.print(),
        output_kind: ir.kind(),
    })
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
            if wanted {
                $out.steps.extend(log.steps);
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

/// What one MIR stage hands to a later one, per function (index in the module):
/// two-address's copy-equivalence classes (SrcEqClassMap / DstEqClassMap), which the
/// generic coalescer renames as it joins and the NVPTX coalescer reads
/// (`passes/copy_classes.rs`). A run that starts after two-address has none.
#[derive(Clone, Debug, Default)]
pub struct Handover {
    pub copy_classes: Vec<Option<passes::copy_classes::CopyClasses>>,
}

impl Handover {
    fn slot(&mut self, k: usize) -> &mut Option<passes::copy_classes::CopyClasses> {
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
    run_stage_handing_over(stage, ir, knobs, trace, &mut Handover::default())
}

/// One MIR function through `stage`'s pass, taking from and leaving in `handover`
/// what the stages hand on (two-address → register-coalescer → nvptx-coalescer).
fn run_mir_pass<R: PassRecorder>(
    stage: Stage,
    pass: &MirPass,
    f: &mut Function,
    knobs: &Knobs,
    rec: &mut R,
    slot: &mut Option<passes::copy_classes::CopyClasses>,
) -> Stats {
    match stage {
        Stage::TwoAddress => {
            let (stats, classes) =
                passes::two_address::run_with_classes(f, &two_address_options(knobs), rec);
            *slot = Some(classes);
            stats
        }
        Stage::RegisterCoalescer => passes::register_coalescer::run_renaming_classes(
            f,
            &register_coalescer_options(knobs),
            rec,
            slot.as_mut(),
        ),
        Stage::NvptxCoalescer => {
            let opts = nvptx_coalescer_options(knobs);
            passes::nvptx_coalescer::run_with_classes(f, &opts, rec, slot.take()).0
        }
        _ => pass.run(f, knobs, rec),
    }
}

/// [`run_stage`], with what earlier stages of the same run handed over.
pub fn run_stage_handing_over(
    stage: Stage,
    ir: &mut Ir,
    knobs: &Knobs,
    trace: bool,
    handover: &mut Handover,
) -> Result<StageRun, PipelineError> {
    let mut out = StageRun {
        stage,
        stats: Stats::default(),
        steps: Vec::new(),
        functions: Vec::new(),
        remarks: Vec::new(),
        verify: None,
        input: None,
        output: None,
    };
    let mut next: Option<Ir> = None;
    match (stage_impl(stage), &mut *ir) {
        (StageImpl::NotYet, _) => {}
        (StageImpl::Mir(pass), Ir::Mir(m)) => {
            for (k, f) in m.functions.iter_mut().enumerate() {
                let first = out.steps.len();
                let slot = handover.slot(k);
                let stats = recorded!(trace, out, |rec| run_mir_pass(
                    stage, &pass, f, knobs, rec, slot
                ));
                out.stats.merge(&stats);
                out.functions.push(FunctionSteps {
                    function: f.name.clone(),
                    first,
                    count: out.steps.len() - first,
                });
            }
        }
        (StageImpl::Emitter, Ir::Dag(d)) => {
            // An emission error is the input's: it points at the DAG's line:column.
            let opts = emitter_options(knobs);
            let (f, stats) = recorded!(trace, out, |rec| passes::instr_emitter::run(d, &opts, rec))
                .map_err(PipelineError::Parse)?;
            out.stats.merge(&stats);
            out.functions.push(FunctionSteps {
                function: f.name.clone(),
                first: 0,
                count: out.steps.len(),
            });
            next = Some(Ir::Mir(Module {
                ir: None,
                functions: alloc::vec![f],
            }));
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
                out.stats.merge(&stats);
                out.functions.push(FunctionSteps {
                    function: f.name.clone(),
                    first,
                    count: out.steps.len() - first,
                });
            }
        }
        (StageImpl::PtxEmit, Ir::Mir(m)) => {
            let opts = ptx_emit_options(knobs);
            let fail = |e: passes::ptx_emit::EmitError| PipelineError::StageFailed {
                stage,
                message: format!("{e}"),
            };
            let (ptx, stats) =
                recorded!(trace, out, |rec| passes::ptx_emit::run(m, &opts, rec)).map_err(fail)?;
            out.stats.merge(&stats);
            next = Some(Ir::Ptx(ptx));
        }
        (StageImpl::PtxLower, Ir::Ptx(p)) => {
            let opts = passes::ptx_lower::PtxLowerOptions::default();
            let fail = |e: passes::ptx_lower::LowerError| PipelineError::StageFailed {
                stage,
                message: format!("{e}"),
            };
            let (ori, stats) =
                recorded!(trace, out, |rec| passes::ptx_lower::run(p, &opts, rec)).map_err(fail)?;
            out.stats.merge(&stats);
            next = Some(Ir::Ori(ori));
        }
        (StageImpl::PtxOut, Ir::Ori(o)) => {
            // ORI prints as plain PTX, on the source's lines where it came from text,
            // unchanged lines as the source spelled them; reading that back gives the
            // PTX module (which prints as that text), and proves the text is PTX.
            let text = crate::ori::spelling::print_ptx_out(o);
            let mut ptx = crate::ptx::parse(&text).map_err(|e| PipelineError::StageFailed {
                stage,
                message: format!("printed ORI does not read back as PTX: {e}"),
            })?;
            ptx.source.prints_as_read = true;
            let mut stats = Stats::with(&["functions"]);
            let n = ptx
                .items
                .iter()
                .filter(|i| matches!(i, crate::ptx::ast::Item::Func(_)))
                .count();
            stats.set("functions", n as u64);
            out.stats.merge(&stats);
            next = Some(Ir::Ptx(ptx));
        }
        (_, other) => {
            return Err(PipelineError::WrongInput {
                stage,
                expected: stage.info().input,
                found: other.kind(),
            });
        }
    }
    if let Some(n) = next {
        *ir = n;
    }
    Ok(out)
}

/// ptx-emit: the `sm` knob names the target (`sm_90` → 90).
pub fn ptx_emit_options(k: &Knobs) -> passes::ptx_emit::PtxEmitOptions {
    let name =
        crate::knobs::format_value(crate::knobs::KnobKind::Sm, k.get(crate::knobs::Knob::Sm));
    let sm = Some(name.as_str())
        .filter(|n| n.starts_with("sm_"))
        .and_then(|n| {
            n.trim_start_matches("sm_")
                .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse()
                .ok()
        })
        .unwrap_or(90);
    passes::ptx_emit::PtxEmitOptions {
        sm,
        ptx_version: None,
        // An `sm` knob the user set wins over the target the IR module names.
        target_from_ir: k.is_default(Knob::Sm),
    }
}

/// The verifier level an input function is checked at: the SSA rules while its header
/// says `isSSA: true`, the rules after PHI elimination otherwise (they hold for every
/// later MIR stage too).
pub fn input_level(f: &Function) -> VerifyLevel {
    if f.props.is_ssa {
        VerifyLevel::Ssa
    } else {
        VerifyLevel::PostPhiElim
    }
}

/// Checks the parsed input; errors carry input line:column, in input order.
/// What two-address refuses in the input (`two_address::unsupported_input`), with
/// line:column.
fn two_address_refusals(ir: &Ir, spans: &[FunctionSpans]) -> Vec<SourceError> {
    let Ir::Mir(m) = ir else {
        return Vec::new();
    };
    let triple = m.ir.as_deref().and_then(|t| {
        let at = t.find("target triple = \"")? + "target triple = \"".len();
        t[at..].split('"').next()
    });
    let mut out = Vec::new();
    for (f, sp) in m.functions.iter().zip(spans) {
        for r in passes::two_address::unsupported_input(f, triple) {
            let (line, col) = sp.position(r.inst, r.operand).unwrap_or((sp.start_line, 1));
            out.push(SourceError::new(
                line,
                col,
                format!("function `{}`: {}", f.name, r.message),
            ));
        }
    }
    out
}

/// Instruction bundles go through PHI elimination and two-address (which walk over
/// them, as LLVM's bundle iterator does); the coalescers and later stages do not model
/// them, so a plan reaching `past` refuses each BUNDLE at its line:column.
fn bundle_refusals(ir: &Ir, spans: &[FunctionSpans], past: Stage) -> Vec<SourceError> {
    let Ir::Mir(m) = ir else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (f, sp) in m.functions.iter().zip(spans) {
        for &header in f.bundles.keys() {
            let (line, col) = sp.position(header, None).unwrap_or((sp.start_line, 1));
            out.push(SourceError::new(
                line,
                col,
                format!(
                    "function `{}`: BUNDLE: instruction bundles are carried through phi-elimination and two-address only; {} does not model them (stop with --until two-address)",
                    f.name,
                    past.id()
                ),
            ));
        }
    }
    out
}

/// A failure of the stage that read the PTX text itself, pointed into that text: at the
/// first use of the `%register` the message names inside the function it names (past
/// the `.reg` declarations), else at the function's header. Without a function to find
/// it stays a `StageFailed`.
fn ptx_refusal(text: &str, stage: Stage, message: String) -> PipelineError {
    let function = message
        .split_once("function `")
        .and_then(|(_, rest)| rest.split_once('`'));
    let Some((name, rest)) = function else {
        return PipelineError::StageFailed { stage, message };
    };
    let reg = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '%' || c == '_' || c == '$'))
        .find(|w| w.len() > 1 && w.starts_with('%'));
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| {
        let t = l.trim_start();
        (t.contains(".entry") || t.contains(".func")) && find_word(l, name).is_some()
    });
    let Some(header) = header else {
        return PipelineError::StageFailed { stage, message };
    };
    let at = reg
        .and_then(|r| {
            lines
                .iter()
                .enumerate()
                .skip(header + 1)
                .find_map(|(i, l)| {
                    let t = l.trim_start();
                    if t.starts_with(".reg") || t.starts_with("//") {
                        return None;
                    }
                    find_word(l, r).map(|c| (i, c))
                })
        })
        .unwrap_or_else(|| (header, find_word(lines[header], name).unwrap_or(0)));
    let col = lines[at.0][..at.1].chars().count() as u32 + 1;
    PipelineError::SourceRefused {
        stage,
        errors: alloc::vec![SourceError::new(at.0 as u32 + 1, col, message)],
    }
}

/// The byte offset of `word` in `line` as a whole token (no name character on either
/// side).
fn find_word(line: &str, word: &str) -> Option<usize> {
    let name = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '%';
    let mut from = 0;
    while let Some(p) = line[from..].find(word) {
        let start = from + p;
        let end = start + word.len();
        let before = line[..start].chars().next_back().is_some_and(name);
        let after = line[end..].chars().next().is_some_and(name);
        if !before && !after {
            return Some(start);
        }
        from = start + word.len().max(1);
    }
    None
}

fn verify_input(ir: &Ir, spans: &[FunctionSpans]) -> Vec<SourceError> {
    let mut out = Vec::new();
    match ir {
        Ir::Mir(m) => {
            for (f, sp) in m.functions.iter().zip(spans) {
                let mut taken: Vec<(Inst, usize)> = Vec::new();
                for e in verify(f, input_level(f)) {
                    let at = match (e.inst, e.block) {
                        (Some(i), _) => {
                            let op = error_operand(f, i, &e, &taken);
                            if let Some(k) = op {
                                taken.push((i, k));
                            }
                            sp.position(i, op)
                        }
                        (None, Some(b)) => sp.block_position(b),
                        (None, None) => None,
                    };
                    let (line, col) = at.unwrap_or((sp.start_line, 1));
                    out.push(SourceError::new(line, col, format!("{e}")));
                }
            }
        }
        Ir::Dag(_) | Ir::Ptx(_) | Ir::Ori(_) => {}
    }
    crate::sort::sort_by_key(&mut out, |e| crate::sort::key4(0, 0, e.line, e.col));
    out
}

/// The operand of `inst` an error is about: the first not yet claimed operand naming the
/// first `%N` of the message (a def for a second definition, a use otherwise).
fn error_operand(
    f: &Function,
    inst: Inst,
    e: &VerifyError,
    taken: &[(Inst, usize)],
) -> Option<usize> {
    let msg = e.message.as_bytes();
    let at = (0..msg.len())
        .find(|&i| msg[i] == b'%' && msg.get(i + 1).is_some_and(|c| c.is_ascii_digit()))?;
    let digits: &[u8] = &msg[at + 1..];
    let n = digits.iter().take_while(|c| c.is_ascii_digit()).count();
    let v: u32 = core::str::from_utf8(&digits[..n]).ok()?.parse().ok()?;
    let d = f.insts.get(inst)?;
    let want_def = e.rule == Rule::MultipleDefs;
    let names = |k: &usize| {
        let o = &d.operands[*k];
        o.vreg_of().is_some_and(|x| x.index() as u32 == v) && o.is_def() == want_def
    };
    let free = |k: &usize| !taken.contains(&(inst, *k));
    let all = 0..d.operands.len();
    all.clone()
        .filter(names)
        .find(free)
        .or_else(|| all.clone().find(names))
}

/// Checks a stage's output at the level that stage leaves; errors name the block and
/// the printed instruction.
fn verify_after(stage: Stage, ir: &Ir) -> Vec<String> {
    let Some(level) = VerifyLevel::after(stage) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match ir {
        Ir::Mir(m) => {
            for f in &m.functions {
                let errors = verify(f, level);
                for (e, text) in errors.iter().zip(describe_errors(f, &errors)) {
                    out.push(format!("function `{}`: {text} [{}]", f.name, e.rule.id()));
                }
            }
        }
        // PTX and ORI are checked by reading them back and by the real assembler.
        Ir::Dag(_) | Ir::Ptx(_) | Ir::Ori(_) => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "---
name: k
body: |
  bb.0:
    %0:b32 = MOV_B32_i 1
    %1:b32 = ADD32rr %0, %0
    Return
...
";

    #[test]
    fn detects_each_format() {
        assert_eq!(detect_format(SMALL), Some(InputFormat::Mir));
        assert_eq!(
            detect_format("//\n// Generated by LLVM NVPTX Back-End\n\n.version 8.8\n"),
            Some(InputFormat::Ptx)
        );
        assert_eq!(
            detect_format("t0: ch,glue = EntryToken\n"),
            Some(InputFormat::Dag)
        );
        assert_eq!(
            detect_format("SelectionDAG has 9 nodes:\n  t0: ch,glue = EntryToken\n"),
            Some(InputFormat::Dag)
        );
        assert_eq!(detect_format("hello"), None);
        assert_eq!(detect_format(".versionx"), None);
        assert_eq!(detect_format(""), None);
    }

    /// The first stage (in pipeline order) at or after `from` with no implementation.
    fn first_missing(from: Stage) -> Option<Stage> {
        Stage::all()
            .skip(from as usize)
            .find(|&s| !is_implemented(s))
    }

    #[test]
    fn default_run_goes_from_the_entry_to_the_first_missing_stage() {
        let r = run(SMALL, &RunOptions::default()).unwrap();
        assert_eq!(r.input_format, InputFormat::Mir);
        assert_eq!(r.entry, Stage::PhiElimination);
        let ran: Vec<Stage> = r.stages.iter().map(|s| s.stage).collect();
        let want: Vec<Stage> = Stage::all()
            .skip(Stage::PhiElimination as usize)
            .take_while(|&s| Some(s) != first_missing(Stage::PhiElimination))
            .collect();
        // Every stage from phi-elimination on is implemented: the run reaches ptx-out.
        assert_eq!(ran.last(), Some(&Stage::PtxOut));
        assert_eq!(ran, want);
        // Tracing off: no steps, no snapshots; stats are still counted.
        assert!(r
            .stages
            .iter()
            .all(|s| s.steps.is_empty() && s.input.is_none()));
    }

    #[test]
    fn registered_passes_run_and_trace() {
        let opts = RunOptions {
            until: Some(Stage::TwoAddress),
            trace: true,
            verify: true,
            ..RunOptions::default()
        };
        let r = run(SMALL, &opts).unwrap();
        assert_eq!(r.stages.len(), 2);
        assert_eq!(r.stages[1].stage, Stage::TwoAddress);
        assert_eq!(r.stages[1].stats.get("copies_inserted"), 0);
        assert_eq!(r.stages[0].verify.as_deref(), Some(&[][..]));
        assert_eq!(r.stages[0].output, r.stages[1].input);
        assert_eq!(r.stages[1].output.as_deref(), Some(r.output.as_str()));
        assert_eq!(r.stages[1].functions[0].function, "k");
        // Knobs reach the pass options.
        let mut k = Knobs::default();
        k.set_from_str("twoaddr-reschedule=false").unwrap();
        k.set_from_str("dataflow-edge-limit=7").unwrap();
        let o = two_address_options(&k);
        assert!(!o.reschedule && o.dataflow_edge_limit == 7 && !o.optnone && o.live_variables);
        assert_eq!(
            register_coalescer_options(&Knobs::default()),
            passes::register_coalescer::CoalescerOptions::default()
        );
        assert_eq!(
            nvptx_coalescer_options(&Knobs::default()),
            passes::nvptx_coalescer::NvptxCoalescerOptions::default()
        );
        k.set_from_str("join-globalcopies=true").unwrap();
        k.set_from_str("copy-limit=5").unwrap();
        assert!(register_coalescer_options(&k).join_globalcopies);
        assert_eq!(nvptx_coalescer_options(&k).copy_limit, 5);
    }

    #[test]
    fn an_observer_sees_the_plan_and_each_stage_input() {
        #[derive(Default)]
        struct Seen {
            planned: Vec<Stage>,
            starts: Vec<(usize, Stage, String)>,
        }
        impl Observer for Seen {
            fn planned(&mut self, stages: &[Stage]) {
                self.planned = stages.to_vec();
            }
            fn stage_start(&mut self, index: usize, stage: Stage, input: &Ir) {
                self.starts.push((index, stage, input.print()));
            }
        }
        let opts = RunOptions {
            until: Some(Stage::TwoAddress),
            trace: true,
            ..RunOptions::default()
        };
        let mut seen = Seen::default();
        let r = run_observed(SMALL, &opts, &mut seen).unwrap();
        assert_eq!(seen.planned, [Stage::PhiElimination, Stage::TwoAddress]);
        assert_eq!(seen.starts.len(), 2);
        for (k, (index, stage, input)) in seen.starts.iter().enumerate() {
            assert_eq!((*index, *stage), (k, r.stages[k].stage));
            assert_eq!(Some(input), r.stages[k].input.as_ref());
        }
    }

    #[test]
    fn every_stage_is_implemented_and_runs_to_ptx_out() {
        assert_eq!(first_missing(Stage::InstrEmitter), None);
        // The error a missing stage would raise is still a usage error.
        let e = PipelineError::NotImplemented(Stage::PtxOut);
        assert_eq!(format!("{e}"), "stage ptx-out is not implemented yet");
        assert!(e.is_usage());
        let opts = RunOptions {
            until: Some(Stage::PtxOut),
            ..RunOptions::default()
        };
        assert!(run(SMALL, &opts).is_ok());
        let opts = RunOptions {
            until: Some(Stage::InstrEmitter),
            ..RunOptions::default()
        };
        assert!(matches!(
            run(SMALL, &opts).unwrap_err(),
            PipelineError::UntilBeforeEntry { .. }
        ));
    }

    #[test]
    fn emit_must_match_the_last_ir() {
        // No stage after the entry produces a DAG.
        let opts = RunOptions {
            emit: Some(IrKind::Dag),
            ..RunOptions::default()
        };
        assert_eq!(
            run(SMALL, &opts).unwrap_err(),
            PipelineError::Emit {
                wanted: IrKind::Dag,
                produced: IrKind::Mir
            }
        );
        // Asking for PTX stops after the last stage that prints PTX: ptx-out.
        let opts = RunOptions {
            emit: Some(IrKind::Ptx),
            ..RunOptions::default()
        };
        let r = run(SMALL, &opts).unwrap();
        assert_eq!(r.stages.last().map(|s| s.stage), Some(Stage::PtxOut));
        assert!(r.output.contains("ret;"), "{}", r.output);
        // Until ptx-emit, the add is still there.
        let opts = RunOptions {
            until: Some(Stage::PtxEmit),
            ..RunOptions::default()
        };
        let r = run(SMALL, &opts).unwrap();
        assert!(r.output.contains("add.s32"), "{}", r.output);
    }

    #[test]
    fn a_stage_that_cannot_handle_its_input_is_an_input_error() {
        let text = SMALL.replace("MOV_B32_i 1", "anonymous_12345 1");
        let opts = RunOptions {
            only: alloc::vec![Stage::PtxEmit],
            ..RunOptions::default()
        };
        let e = run(&text, &opts).unwrap_err();
        assert!(
            matches!(
                e,
                PipelineError::StageFailed {
                    stage: Stage::PtxEmit,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(format!("{e}").contains("anonymous_12345"), "{e}");
        assert!(!e.is_usage());
    }

    #[test]
    fn other_formats_are_reported_unsupported() {
        // PTX is read now: it starts at ptx-lower.
        let r = run(".version 8.8\n", &RunOptions::default()).unwrap();
        assert_eq!(
            (r.input_format, r.entry),
            (InputFormat::Ptx, Stage::PtxLower)
        );
        let opts = RunOptions {
            from: Some(InputFormat::Dag),
            ..RunOptions::default()
        };
        // MIR read as a DAG: the DAG reader says where it stopped making sense.
        match run(SMALL, &opts).unwrap_err() {
            PipelineError::Parse(e) => assert_eq!((e.line, e.col), (1, 1), "{e}"),
            e => panic!("{e:?}"),
        }
    }

    fn verify_errors(text: &str) -> Vec<SourceError> {
        let opts = RunOptions {
            verify: true,
            ..RunOptions::default()
        };
        match run(text, &opts) {
            Ok(_) => Vec::new(),
            Err(PipelineError::InvalidInput(v)) => v,
            Err(e) => panic!("unexpected {e}"),
        }
    }

    #[test]
    fn verify_reports_undefined_uses_at_their_operands() {
        let t = "---\nname: k\nbody: |\n  bb.0:\n    %1:b32 = ADD32rr %0:b32, %0\n    %2:b32 = ADD32rr undef %9:b32, %1\n    Return\n...\n";
        let e = verify_errors(t);
        assert_eq!(e.len(), 2, "{e:?}");
        assert_eq!((e[0].line, e[0].col), (5, 22));
        assert_eq!((e[1].line, e[1].col), (5, 30));
        assert!(e[0].message.contains("%0") && e[0].message.ends_with("[undefined_vreg]"));
    }

    #[test]
    fn verify_reports_second_defs_only_in_ssa() {
        let t = "---\nname: k\nisSSA: true\nbody: |\n  bb.0:\n    %1:b32 = MOV_B32_i 1\n    %1:b32 = MOV_B32_i 2\n    Return\n...\n";
        let e = verify_errors(t);
        assert!(!e.is_empty());
        assert!(
            e.iter().any(|e| (e.line, e.col) == (7, 5)
                && e.message.contains("%1")
                && e.message.ends_with("[multiple_defs]")),
            "{e:?}"
        );
        let non_ssa = t.replace("isSSA: true", "isSSA: false\nnoPhis: true");
        assert!(
            verify_errors(&non_ssa).is_empty(),
            "{:?}",
            verify_errors(&non_ssa)
        );
    }

    #[test]
    fn block_errors_point_at_the_header() {
        // bb.0 falls through to bb.1 but lists bb.2 as its successor.
        let t = "---\nname: k\nisSSA: false\nnoPhis: true\nbody: |\n  bb.0:\n    successors: %bb.2\n\n    %0:b32 = MOV_B32_i 1\n  bb.1:\n    Return\n  bb.2:\n    Return\n...\n";
        let e = verify_errors(t);
        assert!(!e.is_empty());
        assert!(e.iter().all(|e| e.line >= 6), "{e:?}");
    }

    #[test]
    fn plan_orders_and_checks_stages() {
        // Asking for MIR stops after the last stage that produces MIR.
        let o = RunOptions {
            emit: Some(IrKind::Mir),
            ..RunOptions::default()
        };
        let p = plan(Stage::TwoAddress, &o).unwrap();
        assert!(p.iter().all(|s| s.info().output == IrKind::Mir));
        let o = RunOptions {
            emit: Some(IrKind::Ptx),
            ..RunOptions::default()
        };
        assert_eq!(
            plan(Stage::TwoAddress, &o).unwrap().last(),
            Some(&Stage::PtxOut)
        );
        let o = RunOptions {
            emit: Some(IrKind::Dag),
            ..RunOptions::default()
        };
        assert!(plan(Stage::TwoAddress, &o).unwrap().is_empty());
        let o = RunOptions {
            only: alloc::vec![Stage::PtxOut, Stage::PtxOut],
            ..RunOptions::default()
        };
        assert_eq!(
            plan(Stage::TwoAddress, &o).unwrap_err(),
            PipelineError::DuplicateStage(Stage::PtxOut)
        );
        let o = RunOptions {
            only: alloc::vec![Stage::PtxOut],
            until: Some(Stage::PtxOut),
            ..RunOptions::default()
        };
        assert_eq!(
            plan(Stage::TwoAddress, &o).unwrap_err(),
            PipelineError::UntilAndOnly
        );
    }

    /// A PTX register used but not declared is an error of the input, placed where the
    /// text first uses it (issue 30: it had no line:column, so the editor marked nothing).
    #[test]
    fn an_undeclared_ptx_register_points_at_its_first_use() {
        let text = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b32 \t%r<3>;\n\t.reg .b64 \t%rd<2>;\n\n\tld.param.u64 \t%rd1, [k_param_0];\n\tmov.u32 \t%r1, 5;\n\tadd.f32 \t%f99, %r1, %r1;\n\tst.global.u32 \t[%rd1], %f99;\n\tret;\n}\n";
        let e = run(text, &RunOptions::default()).unwrap_err();
        assert!(!e.is_usage());
        let errors = e.source_errors();
        assert_eq!(errors.len(), 1, "{e}");
        // Line 14 is `\tadd.f32 \t%f99, ...`: the tab, "add.f32 ", the tab, then %f99.
        assert_eq!((errors[0].line, errors[0].col), (14, 11), "{e}");
        assert!(
            errors[0].message.contains("register %f99 is not declared"),
            "{e}"
        );
        assert_eq!(
            format!("{e}"),
            format!(
                "stage ptx-lower refuses the input\n14:11: {}",
                errors[0].message
            )
        );
        // The same text from MIR's point of view is no concern here; a PTX failure of a
        // later stage (not the one reading the text) keeps its plain form.
        assert!(matches!(
            ptx_refusal("no function here", Stage::PtxLower, "odd".into()),
            PipelineError::StageFailed { .. }
        ));
    }

    #[test]
    fn words_are_found_whole() {
        assert_eq!(find_word("\tadd %r10, %r1;", "%r1"), Some(11));
        assert_eq!(find_word(".entry kk(", "k"), None);
        assert_eq!(find_word(".entry kk(", "kk"), Some(7));
    }
}
