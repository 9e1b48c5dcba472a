//! CopyScope's compiler core: the passes an NVPTX back end (`cicc`, LLVM-based) and the
//! `ptxas` assembler run on register copies, re-implemented so that every internal step
//! can be recorded and replayed.
//!
//! ```text
//!  selected DAG ──instr-emitter──▶ MIR (SSA) ──phi-elimination──▶ two-address
//!    ──▶ register-coalescer ──▶ nvptx-coalescer ──▶ ptx-emit ──▶ PTX text
//!    ──ptx-lower──▶ ORI ──▶ general-optimize 13·29·37·46·58·65 ──▶ ptx-out
//! ```
//!
//! The public API is what the CLI, the web engine, the fuzz targets and the benches
//! use: the driver ([`pipeline`]: [`run`], [`RunOptions`], [`RunResult`]), the IRs it
//! reads and prints ([`dag`], [`mir`], [`ptx`], [`ori`]) with their entities
//! ([`entity`]), the steps a run records ([`trace`], and the data they carry:
//! [`interval_tree`], [`SlotIndex`]), the MIR interpreter's entry points the engine's
//! proofs call ([`mir_interp`]) and the PTX/ORI interpreter ([`ori_interp`]), the stages, knobs, stats and examples, the share links,
//! and deterministic sorting. The algorithms (`passes`, `ptxas`, `liveness`, `interp`)
//! are crate-private; the `testkit` feature makes them public for the crate's own
//! tests, examples and benches (a dev-dependency on the crate itself turns it on) and
//! for the CLI's and the engine's tests, and adds the golden-file helper `golden`.
//! `tests/public_api.rs` fails on a `pub mod` of an algorithm here.
//!
//! Invariants every module keeps:
//! - `no_std` + `alloc`; the optional `std` feature adds conveniences only.
//! - Deterministic: no hash-map iteration order reaches any output, so native and wasm
//!   runs print identical IR and traces.
//! - Bad input of any kind is an error value carrying line and column, never a panic.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// Declares the algorithm modules: public with the `testkit` feature (tests, benches),
/// crate-private otherwise.
macro_rules! internal {
    ($($(#[$a:meta])* mod $m:ident;)*) => {$(
        $(#[$a])*
        #[cfg(feature = "testkit")]
        pub mod $m;
        $(#[$a])*
        #[cfg(not(feature = "testkit"))]
        pub(crate) mod $m;
    )*};
}

pub mod dag;
pub mod entity;
pub mod error;
pub mod examples;
pub mod knobs;
pub mod mir;
pub mod ori;
pub(crate) mod packing;
pub mod pipeline;
pub mod ptx;
pub mod share;
pub mod sort;
pub mod stages;
pub mod stats;
#[cfg(feature = "testgen")]
pub mod testgen;
pub mod trace;

internal! {
    mod interp;
    mod liveness;
    mod passes;
    mod ptxas;
}

/// Compares text with a file under `tests/golden/` (rewritten with `COPYSCOPE_BLESS=1`).
#[cfg(all(feature = "std", feature = "testkit"))]
pub mod golden;

/// The NVPTX coalescer's interval tree as its steps carry it: the events and snapshots
/// of [`trace::Payload`] that the web app draws.
pub mod interval_tree {
    pub use crate::trace::interval_tree::{
        Color, Interval, NodeId, Side, SnapshotNode, TreeEvent, TreeSnapshot,
    };
}

/// The MIR interpreter as the engine's proofs run it: a function compiled once, run on
/// random launches, two outcomes compared.
pub mod mir_interp {
    pub use crate::interp::{
        describe_difference, random_inputs, Config, Inputs, InterpError, Launch, Outcome, Program,
        Run, Symbol,
    };
}

/// The PTX/ORI interpreter (`interp::ori`) as the engine's proofs and the ORI tests run
/// it: a kernel of a PTX or ORI module run on a launch, global memory afterwards.
pub use interp::ori as ori_interp;

/// The DAG evaluator (`interp::dag`): a selected DAG run on inputs, its stores and
/// return value (what the emitter's MIR must reproduce).
pub use interp::dag as dag_eval;

pub use error::SourceError;
pub use knobs::{Knob, Knobs};
pub use liveness::SlotIndex;
pub use pipeline::{run, InputFormat, PipelineError, RunOptions, RunResult, StageRun};
pub use stages::{Stage, StageInfo, GENERAL_OPTIMIZE_STAGES, STAGES};
