//! The passes, one module each, in pipeline order. A pass is a function over a
//! [`Function`](crate::mir::Function) plus an options struct and a
//! [`Recorder`](crate::trace::Recorder), returning its [`Stats`](crate::stats::Stats).

pub mod copy_classes;
pub mod cssa;
pub mod dessa;
pub mod instr_emitter;
pub mod nvptx_coalescer;
pub mod phi_elim;
pub mod ptx_emit;
pub mod ptx_lower;
pub mod register_coalescer;
pub mod two_address;
pub mod uses;
