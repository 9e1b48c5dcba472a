//! Machine IR: the MIR form every pass between the emitter and PTX works on.
//!
//! ```text
//!  text ──parse──▶ Module { ir, functions: [Function] } ──print──▶ text
//!  Function = vregs (class side table) + blocks + insts (storage) + layout (order)
//! ```
//!
//! Invariants: instruction storage never shrinks (an erased instruction keeps its index,
//! it is only unlinked from the layout); operands are ordered as MIR prints them, the
//! first `lhs_defs` being the defs left of `=`; `print(parse(text))` is a fixpoint.

internal! {
    mod accesses;
    mod bitset;
    mod cfg;
}
pub mod entities;
pub mod function;
pub mod instr;
pub mod layout;
pub mod opcode;
pub mod operand;
pub mod parse;
mod parse_yaml;
pub mod print;
pub mod regclass;
pub mod verify;
mod verify_kills;
mod verify_liveins;
pub(crate) mod verify_reads;

pub use entities::{Block, Inst, VReg};
pub use function::{BlockData, Function, Module, Props, Target};
pub use instr::InstData;
pub use opcode::{flag, CopyFamily, Op, Opcode};
pub use operand::{oflag, Operand, OperandKind, Reg, SubReg, SubRegKind};
pub use parse::{parse_module, parse_module_with_spans, FunctionSpans, InstSpan};
pub use print::{print_function, print_module};
pub use regclass::ValueKind;
pub use regclass::{Family, RegClass, ScalarClass};
pub use verify::{describe_errors, print_with_errors, verify, Rule, VerifyError, VerifyLevel};
