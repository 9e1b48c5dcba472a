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

pub mod dag;
pub mod entity;
pub mod error;
pub mod examples;
#[cfg(feature = "std")]
pub mod golden;
pub mod interp;
pub mod knobs;
pub mod liveness;
pub mod mir;
pub mod ori;
pub mod passes;
pub mod pipeline;
pub mod ptx;
pub mod ptxas;
pub mod share;
pub mod sort;
pub mod stages;
pub mod stats;
#[cfg(feature = "testgen")]
pub mod testgen;
pub mod trace;

pub use error::SourceError;
pub use knobs::{Knob, Knobs};
pub use pipeline::{run, InputFormat, PipelineError, RunOptions, RunResult, StageRun};
pub use stages::{Stage, StageInfo, STAGES};
