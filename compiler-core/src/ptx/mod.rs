//! PTX: the text between the NVPTX back end and `ptxas`.
//!
//! ```text
//!  PTX text ──parse──▶ ast::Module ──print──▶ PTX text      (fmt: a fixpoint)
//!  MIR ──passes::ptx_emit──▶ ast::Module                    (what llc would print)
//!  ast::Module ──passes::ptx_lower──▶ ori::Module           (what ptxas reads)
//! ```
//!
//! The accepted subset is what nvcc 13.0 and llc-22 print (every `*.ptx` of the
//! shared corpus) plus everything our printer writes: the module header, `.entry` /
//! `.func` with parameters, `.reg` ranges, variable declarations in every state space,
//! labels, `@%p` / `@!%p` guards, dotted opcodes, vector operands, `%r|%p` dual
//! results, `[base+offset]` addresses, inline-asm blocks, `.pragma` and comments.
//! [`op`] decodes an opcode's meaning (type, state space, rounding) for the passes.

pub mod ast;
pub mod edit;
pub mod op;
pub mod parse;
pub mod print;

pub use ast::{Function, Inst, Item, Module, Operand, Stmt};
pub use parse::{parse, parse_bytes};
pub use print::print;
