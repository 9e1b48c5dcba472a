//! Phase 13's opcode-93 gate (`sub_753520`, our reading: a gap we fill), second pair
//! detection (`sub_753570`) and secondary chain matcher (`sub_753E30`), each switched
//! off by its `Options` field and shown to decide something on a named input
//! (`tests/fixtures/go_early/`). Expected bodies are
//! derived from the spec's description (docs/general-optimize.md, "Phase 13"), and
//! ptxas 13.0.88 assembles both inputs.
//!
//! - `exit_pairs`: three copies of `setp.eq %p, %r1, 0; @%p ret`, each in its own
//!   block. The first pair removes block 1's copy; block 1 then held only that link,
//!   so the second pair detection follows on to block 2 and removes its copy in the
//!   same round. Without it, block 1 is left a bare anchor, the fixed-point loop finds
//!   no exit there, and block 2's copy stays (block 3 starts with a store, so block 2's
//!   own exit has no pair).
//! - `exit_renamed`: block 1 tests `%r2 = mov %r1` where block 0 tested `%r1`. The
//!   depth-2 comparison meets `ld.param` against `mov` and fails; the secondary chain
//!   matcher steps back over the copy to `%r1` and the repeat exit goes.

mod support;

use compiler_core::knobs::Knobs;
use compiler_core::pipeline::{self, InputFormat, RunOptions};
use compiler_core::ptxas::general_optimize::{Options, Phase};
use compiler_core::stages::IrKind;
use compiler_core::stats::Stats;

const EXIT_PAIRS: &str = include_str!("fixtures/go_early/exit_pairs.ptx");
const EXIT_RENAMED: &str = include_str!("fixtures/go_early/exit_renamed.ptx");

/// Phase 13 alone on `src`, with `tweak` applied to its options: the body's
/// instructions (whitespace collapsed) and the stats.
fn phase_13(src: &str, tweak: impl Fn(&mut Options)) -> (Vec<String>, Stats) {
    support::ori::phase_body(src, Phase::Early, tweak)
}

fn lines(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

const HEAD: [&str; 4] = [
    "ld.param.u64 %rd1, [out];",
    "ld.param.u32 %r1, [n];",
    "setp.eq.s32 %p1, %r1, 0;",
    "@%p1 ret;",
];
const TAIL: [&str; 2] = ["st.global.u32 [%rd1], %r1;", "ret;"];

#[test]
fn second_pair_removes_the_exit_one_block_further() {
    let (body, stats) = phase_13(EXIT_PAIRS, |_| {});
    assert_eq!(body, lines(&[&HEAD[..], &TAIL[..]].concat()));
    assert_eq!(stats.get("exits_removed"), 2);
}

/// Without our reading of opcode 93 no ORI instruction is opcode 93: no chain walk
/// reaches the gate, and both repeated exits stay (the body is the input's).
#[test]
fn without_the_opcode_93_reading_no_exit_goes() {
    let (body, stats) = phase_13(EXIT_PAIRS, |o| o.opcode_93_reading = false);
    let kept = [
        "setp.eq.s32 %p2, %r1, 0;",
        "@%p2 ret;",
        "setp.eq.s32 %p3, %r1, 0;",
        "@%p3 ret;",
    ];
    assert_eq!(body, lines(&[&HEAD[..], &kept[..], &TAIL[..]].concat()));
    assert_eq!(stats.get("exits_removed"), 0);
}

#[test]
fn without_second_pair_the_third_exit_stays() {
    let (body, stats) = phase_13(EXIT_PAIRS, |o| o.pair_detection = false);
    let kept = ["setp.eq.s32 %p3, %r1, 0;", "@%p3 ret;"];
    assert_eq!(body, lines(&[&HEAD[..], &kept[..], &TAIL[..]].concat()));
    assert_eq!(stats.get("exits_removed"), 1);
}

const RENAMED_HEAD: [&str; 4] = [
    "ld.param.u64 %rd1, [out];",
    "ld.param.u32 %r1, [n];",
    "setp.gt.s32 %p1, %r1, 5;",
    "@%p1 ret;",
];

#[test]
fn secondary_chain_matches_across_a_copy() {
    let (body, stats) = phase_13(EXIT_RENAMED, |_| {});
    assert_eq!(body, lines(&[&RENAMED_HEAD[..], &TAIL[..]].concat()));
    assert_eq!(stats.get("exits_removed"), 1);
}

#[test]
fn without_secondary_chain_the_renamed_exit_stays() {
    let (body, stats) = phase_13(EXIT_RENAMED, |o| o.secondary_chain = false);
    let kept = ["mov.b32 %r2, %r1;", "setp.gt.s32 %p2, %r2, 5;", "@%p2 ret;"];
    assert_eq!(
        body,
        lines(&[&RENAMED_HEAD[..], &kept[..], &TAIL[..]].concat())
    );
    assert_eq!(stats.get("exits_removed"), 0);
}

/// The whole PTX pipeline, traced: phase 13's narration names the mechanism that
/// removed each exit, and ptxas 13.0.88 (when present) assembles the output.
fn narrations_and_assembles(src: &str, tag: &str) -> Vec<String> {
    let opts = RunOptions {
        from: Some(InputFormat::Ptx),
        emit: Some(IrKind::Ptx),
        knobs: Knobs::default(),
        trace: true,
        ..Default::default()
    };
    let r = pipeline::run(src, &opts).unwrap();
    if let Some(ptxas) = support::ptxas::ptxas() {
        support::ptxas::assemble_target(ptxas, &r.output, "90", tag)
            .unwrap_or_else(|e| panic!("{tag}: ptxas rejects our output: {e}\n{}", r.output));
    }
    r.stages
        .iter()
        .flat_map(|s| s.steps.iter())
        .map(|s| s.narration.text())
        .filter(|n| n.contains("repeats the exit"))
        .collect()
}

/// What every exit-chain narration says of the opcode-93 gate.
const OPCODE_93_LABEL: &str =
    "our reading of the spec's opcode-93 chain-link marker (a gap we fill)";

#[test]
fn narration_names_the_opcode_93_reading_the_second_pair_and_the_copy_step() {
    let n = narrations_and_assembles(EXIT_PAIRS, "exit_pairs");
    assert_eq!(n.len(), 2, "{n:#?}");
    assert!(n.iter().all(|s| s.contains(OPCODE_93_LABEL)), "{n:#?}");
    assert!(!n[0].contains("Second pair"), "{n:#?}");
    assert!(
        n[1].starts_with("Block 2:") && n[1].contains("Second pair (our reading"),
        "{n:#?}"
    );
    let n = narrations_and_assembles(EXIT_RENAMED, "exit_renamed");
    assert_eq!(n.len(), 1, "{n:#?}");
    assert!(n[0].contains(OPCODE_93_LABEL), "{n:#?}");
    assert!(
        n[0].contains("secondary chain matcher, our reading"),
        "{n:#?}"
    );
}
