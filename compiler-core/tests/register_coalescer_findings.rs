//! The coalescing findings (shared/findings/coalescing), each against llc-22's own
//! output stored beside its input in tests/register_coalescer/:
//! - `X.pre-phielim.mir` (llc-22 -stop-before=phi-node-elimination on X.ll) through
//!   phi-elimination → two-address → register-coalescer must equal `X.llc.mir`
//!   (llc-22 -stop-after=register-coalescer);
//! - `X.mir` (a pre-coalescer function) through register-coalescer alone must equal
//!   `X.llc-run-pass.mir` (llc-22 -run-pass=register-coalescer).
//!
//! Bodies are compared whole, registers renamed by first appearance.

mod support;

use compiler_core::mir::{parse_module, Module};
use compiler_core::pipeline::{run, RunOptions};
use compiler_core::stages::{IrKind, Stage};
use std::path::PathBuf;
use support::canon::{body_diff, canonical_body};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/register_coalescer")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap()
}

fn ours(input: &str, opts: RunOptions) -> Module {
    parse_module(&run(&read(input), &opts).unwrap().output).unwrap()
}

fn pipeline(knobs: &[&str]) -> RunOptions {
    let mut o = RunOptions {
        until: Some(Stage::RegisterCoalescer),
        emit: Some(IrKind::Mir),
        ..RunOptions::default()
    };
    for k in knobs {
        o.knobs.set_from_str(k).unwrap();
    }
    o
}

fn only_coalescer() -> RunOptions {
    RunOptions {
        only: vec![Stage::RegisterCoalescer],
        emit: Some(IrKind::Mir),
        ..RunOptions::default()
    }
}

/// Every function of `a` has the body of its namesake in `b`.
fn assert_same(a: &Module, expected: &str) {
    let b = parse_module(&read(expected)).unwrap();
    assert_eq!(a.functions.len(), b.functions.len());
    let mut bad = String::new();
    for (f, g) in a.functions.iter().zip(&b.functions) {
        if canonical_body(f) != canonical_body(g) {
            bad += &format!("{}:\n{}", f.name, body_diff(f, g));
        }
    }
    assert!(bad.is_empty(), "differs from {expected}:\n{bad}");
}

/// rot3.ll (many_live): llc-22's terminal rule reads the other copy's own registers;
/// the old model (any other copy of the source in the block) deferred copies llc-22
/// joins in order, leaving other survivors.
#[test]
fn rot3_full_pipeline_equals_llc() {
    assert_same(&ours("rot3.pre-phielim.mir", pipeline(&[])), "rot3.llc.mir");
}

/// pre.ll: the loop's COPY moves into the preheader (removePartialRedundancy).
#[test]
fn pre_full_pipeline_equals_llc() {
    assert_same(&ours("pre.pre-phielim.mir", pipeline(&[])), "pre.llc.mir");
}

/// pre.mir: the same hoist from a pre-coalescer function, and the constant moves are
/// copied, not rematerialized (llc-22 keeps `%4 = COPY %2` after `%2 = MOV_B32_i 7`).
#[test]
fn pre_mir_equals_llc_run_pass() {
    assert_same(&ours("pre.mir", only_coalescer()), "pre.llc-run-pass.mir");
}

/// remat.mir: llc-22 does not rematerialize NVPTX's immediate moves.
#[test]
fn remat_mir_keeps_the_copies_llc_keeps() {
    assert_same(
        &ours("remat.mir", only_coalescer()),
        "remat.llc-run-pass.mir",
    );
}

/// The four inputs that already agreed stay agreeing.
#[test]
fn agreeing_inputs_stay_equal() {
    for x in ["chain_pure", "chain_redef", "fanout", "loop_swapcopies"] {
        assert_same(
            &ours(&format!("{x}.mir"), only_coalescer()),
            &format!("{x}.llc-run-pass.mir"),
        );
    }
}

/// Mutation: switching the terminal rule off changes ll_phi_loop's output, exactly as it
/// changes llc-22's (`-terminal-rule=false`, stored as the expected file); with the rule
/// on (the default, as in llc-22) the output is the corpus' 5-coalesced.mir.
#[test]
fn terminal_rule_off_matches_llc_with_it_off() {
    let on = ours("ll_phi_loop.pre-phielim.mir", pipeline(&[]));
    let off = ours(
        "ll_phi_loop.pre-phielim.mir",
        pipeline(&["terminal-rule=false"]),
    );
    assert_same(&off, "ll_phi_loop.terminal-rule-false.llc.mir");
    let differ = on
        .functions
        .iter()
        .zip(&off.functions)
        .any(|(a, b)| canonical_body(a) != canonical_body(b));
    assert!(differ, "the terminal rule changed nothing on ll_phi_loop");
    let corpus = support::corpus_dir().join("ll_phi_loop/5-coalesced.mir");
    let llc = parse_module(&std::fs::read_to_string(corpus).unwrap()).unwrap();
    for (a, b) in on.functions.iter().zip(&llc.functions) {
        assert_eq!(canonical_body(a), canonical_body(b), "{}", a.name);
    }
}

/// A def overlapping an undefined value (a copy of an IMPLICIT_DEF) does not block the
/// join, in one block or across two: llc-22 joins both (no COPY, no second
/// IMPLICIT_DEF); rematerializing the IMPLICIT_DEF would leave a different body.
#[test]
fn undefined_values_do_not_block_joins() {
    for x in ["remat_undef", "remat_undef2"] {
        assert_same(
            &ours(&format!("{x}.mir"), only_coalescer()),
            &format!("{x}.llc-run-pass.mir"),
        );
    }
}

/// i128.ll (LLVM's NVPTX test): the loop COPYs llc-22 joins although a PHI value of one
/// register overlaps the other (CR_Replace) and the deferred copy is a coalescable copy
/// between the two (CR_Erase). Before: 16 COPYs to llc-22's 8.
#[test]
fn i128_full_pipeline_equals_llc() {
    assert_same(&ours("i128.pre-phielim.mir", pipeline(&[])), "i128.llc.mir");
}

/// The step kinds a coalescer run on `input` records (one function).
fn step_kinds(input: &str) -> Vec<String> {
    use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
    use compiler_core::trace::StepLog;
    let m = parse_module(&read(input)).unwrap();
    let mut f = m.functions[0].clone();
    let mut log = StepLog::default();
    register_coalescer::run(&mut f, &CoalescerOptions::default(), &mut log);
    log.steps.iter().map(|s| s.kind.to_string()).collect()
}

/// copy_back.mir: `%3 = COPY %1` where `%1 = COPY %3` copied %3's own value and %3 is
/// not live in between: adjustCopiesBackFrom erases it (llc-22 leaves one COPY of two),
/// and says so in its own step.
#[test]
fn adjust_copies_back_from_erases_the_copy_back() {
    assert_same(
        &ours("copy_back.mir", only_coalescer()),
        "copy_back.llc-run-pass.mir",
    );
    assert!(step_kinds("copy_back.mir")
        .iter()
        .any(|k| k == "adjust_copies_back_from"));
}

/// pre.mir's hoist is removePartialRedundancy's work, in its own step.
#[test]
fn partial_redundancy_is_its_own_step() {
    assert!(step_kinds("pre.mir")
        .iter()
        .any(|k| k == "partial_redundancy"));
}

/// Mutation check for rematerialization. remat_undef3.mir: `%2 = IMPLICIT_DEF` in bb.0,
/// and in bb.1 `%3 = COPY %2`, `%3 = ADD32rr %3, %1`, `%4 = ADD32rr %3, %2`. The ADD's
/// value of `%3` overlaps `%2`'s undefined value, which is read afterwards by `%4`'s
/// def; as the IMPLICIT_DEF is in another block than the ADD, it is kept as a real
/// value (LLVM's "IMPLICIT_DEF ... extends into bb.1, keeping it"), so the join fails.
/// - Remat on (as llc-22, stored as remat_undef3.llc-run-pass.mir): the source's def is
///   an IMPLICIT_DEF (rematerializable, as cheap as a move, reads nothing), so the COPY
///   becomes `%3 = IMPLICIT_DEF`.
/// - Off (by reasoning): nothing else removes the COPY (no older value of `%3` to
///   extend, bb.1 has one predecessor for a partial-redundancy move), so the body is
///   the input's, COPY included.
#[test]
fn remat_off_keeps_the_copy_llc_rematerializes() {
    use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
    use compiler_core::trace::NoTrace;
    let on = ours("remat_undef3.mir", only_coalescer());
    assert_same(&on, "remat_undef3.llc-run-pass.mir");
    let mut off = parse_module(&read("remat_undef3.mir")).unwrap();
    let opts = CoalescerOptions {
        no_remat: true,
        ..Default::default()
    };
    let s = register_coalescer::run(&mut off.functions[0], &opts, &mut NoTrace::default());
    assert_eq!(s.get("rematerialized"), 0);
    assert_same(&off, "remat_undef3.mir");
    assert_ne!(
        canonical_body(&on.functions[0]),
        canonical_body(&off.functions[0])
    );
}
