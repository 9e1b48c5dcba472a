//! Liveness analyses over machine IR.
//!
//! ```text
//!  Function ──LiveVariables::compute──▶ VarInfo per vreg { alive_blocks, kills }
//!           ──apply_flags──▶ kill / dead operand flags, as LLVM's LiveVariables sets them
//! ```

pub mod live_variables;

pub use live_variables::{LiveVariables, VarInfo};
