//! Liveness: LiveVariables (kill flags, LLVM's `VarInfo`) for PHI elimination and the
//! two-address pass, and slot indexes with live intervals for the coalescers.
//!
//! ```text
//!               ┌──▶ LiveVariables { VarInfo per vreg } ──apply_flags──▶ killed/dead flags
//!  Function ─┬──┤        (SSA with PHIs, or after PHI elimination)
//!            │  └──▶ (shared) Accesses + Solver: block live-in/live-out per register unit
//!            └──▶ SlotIndexes ──▶ LiveIntervals { per vreg: main range + one per tuple lane }
//!                  0B bb.0, 16 first inst, 32 ...        %3 [16r,48r:0)[64B,80r:1) 0@16r 1@64B-phi
//! ```
//!
//! The CFG, the dominator tree, the per-register access tables and the block-level
//! live-in solver are in `mir/` (`cfg.rs`, `accesses.rs`): the MIR verifier uses them
//! too, and liveness sits above MIR.
//!
//! Every analysis is a function of the IR only (flags already present are ignored) and
//! costs time near-linear in the function size plus the size of its result. Nothing
//! here panics on malformed IR: a register read on some path before any def is simply
//! live into the entry block (the verifier reports it).

pub mod intervals;
pub mod live_variables;
mod range_join;
pub mod slot_indexes;

#[cfg(feature = "testkit")]
pub use crate::mir::accesses::{LaneMask, ALL_LANES};
#[cfg(feature = "testkit")]
pub use crate::mir::bitset::BlockSet;
pub use intervals::{LiveIntervals, LiveRange, ValNo};
#[cfg(feature = "testkit")]
pub use intervals::{LiveInterval, Segment, SubRange, VNInfo};
pub use live_variables::{LiveVariables, VarInfo};
#[cfg(feature = "testkit")]
pub use crate::mir::verify_reads::{undefined_reads, UndefinedRead};
#[cfg(any(feature = "testkit", feature = "testgen"))]
pub use live_variables::set_kill_flags;
#[cfg(feature = "testkit")]
pub use live_variables::set_kill_or_dead;
pub use slot_indexes::{Slot, SlotIndex, SlotIndexes};
