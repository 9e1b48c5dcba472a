//! Regressions from the PTX front end and GeneralOptimize findings (inputs in
//! `tests/ptx-go/`, copied from the 2026-11-26 findings). Each test states the right
//! result, derived by reasoning about what the PTX computes, and — where the input
//! assembles with ptxas 13.0.88 — checks that our output assembles too.

mod support;

use compiler_core::knobs::Knobs;
use compiler_core::pipeline::{self, InputFormat, RunOptions};
use compiler_core::stages::IrKind;
use support::ptx_statements;

fn input(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ptx-go")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `copyscope run F --from ptx --emit ptx [--knob ...]`: the whole PTX pipeline.
fn run_ptx(name: &str, knobs: &[&str]) -> pipeline::RunResult {
    let mut k = Knobs::default();
    for s in knobs {
        k.set_from_str(s).unwrap();
    }
    let opts = RunOptions {
        from: Some(InputFormat::Ptx),
        emit: Some(IrKind::Ptx),
        knobs: k,
        trace: true,
        ..Default::default()
    };
    pipeline::run(&input(name), &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The body statements of the first `.entry` (declarations included).
fn body(text: &str) -> Vec<String> {
    let all = ptx_statements(text);
    let open = all
        .iter()
        .position(|s| s.contains(".visible .entry") && s.ends_with('{'))
        .unwrap_or_else(|| panic!("no entry in {all:?}"));
    let close = all.iter().rposition(|s| s == "}").unwrap();
    all[open + 1..close].to_vec()
}

fn assembles(text: &str, target: &str, tag: &str) {
    if let Some(ptxas) = support::ptxas::ptxas() {
        support::ptxas::assemble_target(ptxas, text, target, tag)
            .unwrap_or_else(|e| panic!("{tag}: ptxas rejects our output: {e}\n{text}"));
    }
}

fn narrations(r: &pipeline::RunResult) -> Vec<String> {
    r.stages
        .iter()
        .flat_map(|s| s.steps.iter())
        .map(|s| s.narration.clone())
        .collect()
}

/// `slct.f32.s32 %f2, %f1, %f1, %r1` yields %f1 whatever %r1 is; folded, it must stay a
/// typed move (`mov.f32`), which ptxas accepts — a bare `mov` it rejects.
#[test]
fn slct_with_equal_sources_folds_to_a_typed_move() {
    let r = run_ptx("d1b_slct.ptx", &[]);
    let b = body(&r.output);
    assert!(
        b.contains(&"mov.f32 %f2,%f1;".to_string()),
        "{}",
        r.output
    );
    assert!(!b.iter().any(|s| s.starts_with("mov %")), "{}", r.output);
    assemble_both("d1b_slct.ptx", &r.output, "80");
    let n = narrations(&r);
    assert!(
        n.iter()
            .any(|s| s.contains("picks the same source whatever the predicate")),
        "{n:?}"
    );
}

fn assemble_both(name: &str, ours: &str, target: &str) {
    assembles(&input(name), target, &format!("{name}-original"));
    assembles(ours, target, name);
}

/// Two reads of `%clock` are two values: the second exit tests a later time than the
/// first, so phase 13 must not take it for the first's repetition. The body comes out
/// unchanged.
#[test]
fn two_clock_reads_are_never_equal() {
    let r = run_ptx("d2c_clock.ptx", &[]);
    let expected = [
        ".reg .pred %p<3>;",
        ".reg .b32 %r<6>;",
        ".reg .b64 %rd<3>;",
        "ld.param.u64 %rd1,[k_param_0];",
        "cvta.to.global.u64 %rd2,%rd1;",
        "mov.u32 %r1,%clock;",
        "setp.gt.u32 %p1,%r1,1000;",
        "@%p1 ret;",
        "mov.u32 %r2,%clock;",
        "setp.gt.u32 %p2,%r2,1000;",
        "@%p2 ret;",
        "st.global.u32 [%rd2],1;",
        "ret;",
    ];
    assert_eq!(body(&r.output), expected, "{}", r.output);
    assemble_both("d2c_clock.ptx", &r.output, "80");
}

/// `call.uni (%r2), inc, (%r2)` writes %r2, so `%r3 = mov %r2` before the call keeps
/// the thread index and `add %r4, %r3, %r2` is tid + inc(tid) = 2·tid + 1. Rewiring
/// %r3 to %r2 would read inc's result twice (2·tid + 2). Nothing here can be
/// simplified without changing that: the body comes out as it went in.
#[test]
fn registers_written_by_a_call_are_definitions() {
    let r = run_ptx("d7b_callreg.ptx", &[]);
    let expected = [
        ".reg .b32 %r<6>;",
        ".reg .b64 %rd<3>;",
        "ld.param.u64 %rd1,[k_param_0];",
        "cvta.to.global.u64 %rd2,%rd1;",
        "mov.u32 %r2,%tid.x;",
        "mov.u32 %r3,%r2;",
        "call.uni (%r2),inc,(%r2);",
        "add.s32 %r4,%r3,%r2;",
        "st.global.u32 [%rd2],%r4;",
        "ret;",
    ];
    assert_eq!(body(&r.output), expected, "{}", r.output);
}
