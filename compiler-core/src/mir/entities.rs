//! MIR's entities: the small copyable indices that name a function's blocks,
//! instructions and virtual registers (Cranelift's `ir/entities.rs`). The data they
//! name lives in the function's tables (`Function::blocks`, `Function::insts`, the
//! vreg side tables); an entity is only a number into them, never a pointer.
//!
//! ```text
//!  Block(3) ──f.blocks[b]──▶ BlockData     Inst(7) ──f.insts[i]──▶ InstData
//!  VReg(5)  ──f.vreg_class(v)──▶ RegClass  (printed `%5`: the number is the text's)
//! ```

use crate::entity::entity_impl;
use serde::{Deserialize, Serialize};

/// A basic block, by storage index.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// An instruction, by storage index. Its position is kept by the layout, not here.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A virtual register, numbered as the MIR text numbers it (`%7` is `VReg(7)`).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct VReg(u32);
entity_impl!(VReg, "%");
