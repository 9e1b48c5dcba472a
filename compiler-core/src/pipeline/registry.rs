//! The stage registry: which pass runs each stage ([`stage_impl`], a total match over
//! [`Stage`]), where a run starts ([`entry_stage`]) and which stages it runs ([`plan`],
//! [`check_kinds`]).
//!
//! Each pass is instantiated once per recorder ([`MirPass`], [`OriPass`]) so that tracing
//! off compiles to nothing inside the pass; a `traced-only` build (the web app's) has no
//! untraced instance: every run records.

use super::options::{
    general_optimize_options, nvptx_coalescer_options, phi_elim_options,
    register_coalescer_options, two_address_options,
};
use super::{Ir, PipelineError, RunOptions};
use crate::knobs::Knobs;
use crate::mir::{Function, Op};
use crate::ori;
use crate::passes;
use crate::passes::copy_classes::CopyClasses;
use crate::ptxas::general_optimize::Phase;
use crate::stages::{IrKind, Stage};
use crate::stats::Stats;
#[cfg(not(feature = "traced-only"))]
use crate::trace::NoTrace;
use crate::trace::{Recorder, StepLog};
use alloc::vec::Vec;

/// What one MIR stage leaves for a later one in the same function: two-address's
/// copy-equivalence classes (SrcEqClassMap / DstEqClassMap), which the generic coalescer
/// renames as it joins and the NVPTX coalescer reads (`passes/copy_classes.rs`). None
/// for a run that starts after two-address.
pub type Handed = Option<CopyClasses>;

/// A MIR stage's entry point: the function, the knobs, the recorder and what earlier
/// stages handed over.
pub type MirFn<R> = fn(&mut Function, &Knobs, &mut R, &mut Handed) -> Stats;

/// An ORI stage's entry point.
pub type OriFn<R> = fn(&mut ori::Function, &Knobs, &mut R) -> Stats;

/// A MIR → MIR pass, instantiated once per recorder.
#[derive(Copy, Clone)]
pub struct MirPass {
    #[cfg(not(feature = "traced-only"))]
    pub untraced: MirFn<NoTrace>,
    pub traced: MirFn<StepLog>,
}

impl MirPass {
    /// Runs the instance made for `R`.
    pub fn run<R: PassRecorder>(
        &self,
        f: &mut Function,
        k: &Knobs,
        rec: &mut R,
        handed: &mut Handed,
    ) -> Stats {
        (R::mir(self))(f, k, rec, handed)
    }
}

/// An ORI → ORI pass, instantiated once per recorder like [`MirPass`].
#[derive(Copy, Clone)]
pub struct OriPass {
    #[cfg(not(feature = "traced-only"))]
    pub untraced: OriFn<NoTrace>,
    pub traced: OriFn<StepLog>,
}

impl OriPass {
    /// Runs the instance made for `R`.
    pub fn run<R: PassRecorder>(&self, f: &mut ori::Function, k: &Knobs, rec: &mut R) -> Stats {
        (R::ori(self))(f, k, rec)
    }
}

/// The two recorders a registered pass is instantiated for, and how each picks its
/// instance out of a [`MirPass`] or [`OriPass`].
pub trait PassRecorder: Recorder + Sized {
    fn mir(p: &MirPass) -> MirFn<Self>;
    fn ori(p: &OriPass) -> OriFn<Self>;
}

impl PassRecorder for StepLog {
    fn mir(p: &MirPass) -> MirFn<Self> {
        p.traced
    }
    fn ori(p: &OriPass) -> OriFn<Self> {
        p.traced
    }
}

#[cfg(not(feature = "traced-only"))]
impl PassRecorder for NoTrace {
    fn mir(p: &MirPass) -> MirFn<Self> {
        p.untraced
    }
    fn ori(p: &OriPass) -> OriFn<Self> {
        p.untraced
    }
}

/// How a stage runs.
#[derive(Copy, Clone)]
pub enum StageImpl {
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

/// A [`MirPass`] of a generic stage function `fn<R: Recorder>(…) -> Stats`.
macro_rules! mir_pass {
    ($stage:ident) => {
        StageImpl::Mir(MirPass {
            #[cfg(not(feature = "traced-only"))]
            untraced: $stage::<NoTrace>,
            traced: $stage::<StepLog>,
        })
    };
}

/// An [`OriPass`] running GeneralOptimize in `phase`.
macro_rules! general_optimize {
    ($phase:ident) => {
        StageImpl::Ori(OriPass {
            #[cfg(not(feature = "traced-only"))]
            untraced: |f, k, r| general_optimize(Phase::$phase, f, k, r),
            traced: |f, k, r| general_optimize(Phase::$phase, f, k, r),
        })
    };
}

/// The stage registry.
///
/// HOOK(passes): a pass registers itself by adding an arm here: a MIR pass as
/// `mir_pass!(x)` with a function `x` below (its options from `options.rs`, what it
/// takes from and leaves for later stages in `Handed`). Stages that change the IR kind
/// have their own [`StageImpl`] variant, run by `runner.rs`.
pub fn stage_impl(stage: Stage) -> StageImpl {
    match stage {
        Stage::InstrEmitter => StageImpl::Emitter,
        Stage::PhiElimination => mir_pass!(phi_elimination),
        Stage::TwoAddress => mir_pass!(two_address),
        Stage::RegisterCoalescer => mir_pass!(register_coalescer),
        Stage::NvptxCoalescer => mir_pass!(nvptx_coalescer),
        Stage::PtxEmit => StageImpl::PtxEmit,
        Stage::PtxLower => StageImpl::PtxLower,
        Stage::GeneralOptimizeEarly => general_optimize!(Early),
        Stage::GeneralOptimize => general_optimize!(Standard),
        Stage::GeneralOptimizeMid => general_optimize!(Mid),
        Stage::GeneralOptimizeMid2 => general_optimize!(Mid2),
        Stage::GeneralOptimizeLate => general_optimize!(Late),
        Stage::GeneralOptimizeLate2 => general_optimize!(Late2),
        Stage::PtxOut => StageImpl::PtxOut,
    }
}

fn phi_elimination<R: Recorder>(f: &mut Function, k: &Knobs, rec: &mut R, _: &mut Handed) -> Stats {
    passes::phi_elim::run(f, &phi_elim_options(k), rec)
}

/// Two-address leaves its copy classes for the coalescers.
fn two_address<R: Recorder>(
    f: &mut Function,
    k: &Knobs,
    rec: &mut R,
    handed: &mut Handed,
) -> Stats {
    let (stats, classes) = passes::two_address::run_with_classes(f, &two_address_options(k), rec);
    *handed = Some(classes);
    stats
}

/// The generic coalescer renames the registers it joins away in the copy classes.
fn register_coalescer<R: Recorder>(
    f: &mut Function,
    k: &Knobs,
    rec: &mut R,
    handed: &mut Handed,
) -> Stats {
    let opts = register_coalescer_options(k);
    passes::register_coalescer::run_renaming_classes(f, &opts, rec, handed.as_mut())
}

/// The NVPTX coalescer reads the copy classes (the last stage that does).
fn nvptx_coalescer<R: Recorder>(
    f: &mut Function,
    k: &Knobs,
    rec: &mut R,
    handed: &mut Handed,
) -> Stats {
    let opts = nvptx_coalescer_options(k);
    passes::nvptx_coalescer::run_with_classes(f, &opts, rec, handed.take()).0
}

fn general_optimize<R: Recorder>(
    phase: Phase,
    f: &mut ori::Function,
    k: &Knobs,
    rec: &mut R,
) -> Stats {
    crate::ptxas::general_optimize::run(f, &general_optimize_options(phase, k), rec)
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
                    !f.props.no_phis || f.all_insts().any(|(_, i)| f.insts[i].is(Op::PHI))
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
        return Ok(opts.only.clone());
    }
    let from = entry as usize;
    if let Some(until) = opts.until {
        if (until as usize) < from {
            return Err(PipelineError::UntilBeforeEntry { until, entry });
        }
        return Ok(Stage::all()
            .skip(from)
            .take(until as usize + 1 - from)
            .collect());
    }
    // Default: every stage from the entry on, stopping after the last one producing
    // `emit`.
    let mut chain: Vec<Stage> = Stage::all().skip(from).collect();
    if let Some(e) = opts.emit {
        match chain.iter().rposition(|s| s.info().output == e) {
            Some(p) => chain.truncate(p + 1),
            None => chain.clear(),
        }
    }
    Ok(chain)
}

/// Checks that each planned stage reads the IR kind the one before it leaves (starting
/// from the input's `kind`), and that the run ends in `emit` when one is asked for.
pub fn check_kinds(
    mut kind: IrKind,
    stages: &[Stage],
    emit: Option<IrKind>,
) -> Result<(), PipelineError> {
    for &s in stages {
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
    match emit {
        Some(wanted) if wanted != kind => Err(PipelineError::Emit {
            wanted,
            produced: kind,
        }),
        _ => Ok(()),
    }
}
