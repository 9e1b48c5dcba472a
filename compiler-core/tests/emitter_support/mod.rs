#![allow(dead_code)] // each test binary uses a different part
//! Shared helpers of the emitter tests: a small evaluator of machine IR for the opcodes
//! the DAG examples use, and text normalisation for comparing functions.
//!
//! Why not `crate::interp` here: the DAG side is checked with `dag_eval`, and the two
//! sides can only be compared when they share one set of opcode models
//! (`dag_eval::semantics`); the reference interpreter models textures, TMA and wgmma
//! differently. `instr_emitter_gallery.rs` uses `crate::interp` for the MIR-to-MIR checks
//! (emitted MIR vs the `.mir` twins, vs two-address). A DAG → interp bridge would let
//! `mir_eval` go.

pub mod mir_eval;

use compiler_core::mir::{print_function, Function};

/// The body of a printed function with virtual registers renumbered in order of first
/// appearance, so two functions that differ only in numbering compare equal.
pub fn normalized_body(f: &Function) -> String {
    let text = print_function(f);
    let body = text
        .split_once("body:             |\n")
        .map_or(text.as_str(), |(_, b)| b);
    let mut map: Vec<(String, usize)> = Vec::new();
    let mut out = String::new();
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 1 < b.len() && b[i + 1].is_ascii_digit() {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let n = &body[i + 1..j];
            let id = match map.iter().find(|e| e.0 == n) {
                Some(e) => e.1,
                None => {
                    map.push((n.to_string(), map.len()));
                    map.len() - 1
                }
            };
            out.push_str(&format!("%v{id}"));
            i = j;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Recomputes kill and dead flags as LiveVariables would.
pub fn with_live_flags(f: &Function) -> Function {
    let mut g = f.clone();
    compiler_core::liveness::LiveVariables::compute(&g).apply_flags(&mut g);
    g
}
