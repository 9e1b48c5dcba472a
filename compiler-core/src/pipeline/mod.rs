//! The pipeline driver: detects the input format, picks the stages to run, runs them
//! (each over every function of the module), verifies on request and prints the result.
//!
//! ```text
//!  text ──detect_format / --from──▶ InputFormat ──parse_input──▶ Ir ──entry_stage──▶ Stage
//!  plan(entry, --until | --only | default) ──▶ [Stage]
//!  runner: for stage ── stage_impl(stage) ──▶ StageImpl::Mir(pass) ── per function ──▶ Stats, Steps
//!                                          ├─ StageImpl::Ori(pass)  ── per function
//!                                          └─ Emitter | PtxEmit | PtxLower | PtxOut: IR kind changes
//!          └─ verify_after (when asked) ──▶ StageRun.verify
//!  last Ir ──print──▶ RunResult.output
//! ```
//!
//! One concern per file:
//! - `detect.rs`: the input formats, telling them apart, parsing into an [`Ir`];
//! - `registry.rs`: the stage registry [`stage_impl`] (where a pass makes itself
//!   available, `HOOK(passes)`), the entry stage and the [`plan`];
//! - `options.rs`: each pass's options read from the knobs (the only place that does);
//! - `runner.rs`: [`run_observed`], the one loop over the planned stages, and
//!   [`run_stage`] (one stage, as the benchmark times it);
//! - `verify.rs`: what is checked around the stages: refusals of input a pass does not
//!   model, the verifier on the input (errors at input line:column) and after each stage
//!   at the level it leaves ([`crate::mir::VerifyLevel::after`]);
//! - `error.rs`: [`PipelineError`].
//!
//! Every stage has an implementation: the registry is a total match over [`Stage`].
//!
//! Invariants: deterministic (stages and functions in order, no hash maps); no input
//! panics; a run with no stage selected and `emit` equal to the input's kind prints the
//! canonical form of the input (`copyscope run x.mir --emit mir` == `copyscope fmt x.mir`).

mod detect;
mod error;
mod options;
mod registry;
mod runner;
mod verify;

#[cfg(test)]
mod tests;

pub use detect::{detect_format, parse_input, InputFormat};
pub use error::PipelineError;
pub use options::{
    emitter_options, nvptx_coalescer_options, phi_elim_options, ptx_emit_options,
    register_coalescer_options, two_address_options,
};
pub use registry::{entry_stage, plan, stage_impl, MirPass, OriPass, PassRecorder, StageImpl};
pub use runner::{
    run, run_after_dag_front, run_bytes, run_dag_front, run_observed, run_observed_without_dag,
    run_stage, run_stage_handing_over, DagFront, Handover, Observer,
};
pub use verify::input_level;

use crate::dag::{print_dag, Dag};
use crate::knobs::Knobs;
use crate::mir::{print_module, Module};
use crate::stages::{IrKind, Stage};
use crate::stats::Stats;
use alloc::string::String;
use alloc::vec::Vec;
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

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
    pub steps: crate::trace::StepList,
    pub functions: Vec<FunctionSteps>,
    pub remarks: Vec<String>,
    /// None: not verified; Some(empty): verified, ok; else every error found.
    pub verify: Option<Vec<String>>,
    /// Printed IR before and after the stage (tracing on only, and when the run's
    /// observer wants them: `Observer::wants_texts`).
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
