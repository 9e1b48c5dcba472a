//! Re-implementations of `ptxas` phases over ORI.

pub mod general_optimize;
