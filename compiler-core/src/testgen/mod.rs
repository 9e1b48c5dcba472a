//! Test programs (feature `testgen`): seeded random MIR for the property tests and the
//! fuzz targets, the whole-pipeline check they share, and the large synthetic functions
//! `cargo xtask bench` measures.
//!
//! ```text
//!  generate(seed, &GenConfig) ──▶ SSA MIR text with PHIs, loops, tuples, tied asm
//!        instructions drawn from the rows of mir/nvptx.isa (shapes: sig.rs);
//!        (llc-22 or CICC class names; kill/dead flags from LiveVariables)
//!  check(&Function, &CheckConfig)
//!        input ─phi-elimination─▶ ─two-address─▶ ─register-coalescer─▶ ─nvptx-coalescer─▶
//!        verifier after each stage at the level it leaves; the interpreter on random
//!        inputs: every stage's output computes what the input computes
//!  synthetic::{phi_swaps, copy_chain, tuples}(n) ──▶ functions of about n instructions
//!  dag::random_dag(seed) ──▶ a selected DAG with a loop and a diamond (evaluator vs
//!        interpreter)
//! ```
//!
//! Everything is deterministic: the same seed gives the same text on every machine.
//! See [`gen`] for what a random program contains and how it stays well defined (no
//! read of an undefined value reaches memory, a branch or an address), and [`check`]
//! for the properties.

pub mod check;
pub mod dag;
pub mod gen;
pub(crate) mod sig;
pub mod synthetic;
pub(crate) mod template;

pub use check::{check, reduce, CheckConfig, CheckFailure, CheckReport, KnobSet, KNOB_SETS};
pub use gen::{drawable, generate, not_drawn, GenConfig, Generated, OpSet};
