//! Two-address's copy-equivalence classes (SrcEqClassMap / DstEqClassMap): built
//! transitively by collectRegCopies, handed through the pipeline (renamed by the generic
//! coalescer's joins) and read by the NVPTX coalescer, whose candidate of a class leaves
//! the heap first (CopyScope's rule for the record's priority field; see
//! `passes/nvptx_coalescer/eq_classes.rs`). The mutation test switches the classes off
//! and shows a different merge on a named input.

use compiler_core::entity::EntityRef;
use compiler_core::mir::{parse_module, print_function, Function, VReg};
use compiler_core::passes::{nvptx_coalescer, phi_elim, register_coalescer, two_address};
use compiler_core::pipeline::{run, RunOptions};
use compiler_core::stages::Stage;
use compiler_core::trace::{NoTrace, StepLog};
use std::path::Path;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/two_address")
            .join(name),
    )
    .unwrap()
}

fn v(n: usize) -> VReg {
    VReg::new(n)
}

/// The body lines from `bb.1:` on (what differs between the runs below).
fn tail(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| l.trim() != "bb.1:")
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && l != "...")
        .collect()
}

/// copy_chain_tie.mir: `%4 = FADD killed %3(tied)` with %1 → %2 → %3 single-use COPYs
/// behind it. The tied COPY records %3 → %4, and collectRegCopies carries %2 and %1 to
/// %4 as well: one class of four registers, DstEqClassMap[%4] = %1.
#[test]
fn collect_reg_copies_links_a_copy_chain_transitively() {
    let m = parse_module(&fixture("copy_chain_tie.mir")).unwrap();
    let mut f = m.functions.into_iter().next().unwrap();
    let (_, c) = two_address::run_with_classes(
        &mut f,
        &two_address::TwoAddressOptions::default(),
        &mut NoTrace::default(),
    );
    for s in [1, 2, 3] {
        assert_eq!(c.src_eq.get(&v(s)), Some(&v(4)), "%{s} → %4: {c:?}");
        assert!(c.same_class(v(s), v(4)));
    }
    assert_eq!(c.dst_eq.get(&v(4)), Some(&v(1)), "{c:?}");
    assert_eq!(c.class_count(), 1);
}

/// Runs eq_class_priority.mir through PHI elimination, two-address, the generic
/// coalescer (join-liveintervals off, so the copies reach the NVPTX pass) and the NVPTX
/// coalescer with coalesce-limit=1, handing the classes over as the pipeline does.
fn one_merge(ignore_eq_classes: bool) -> (Function, StepLog) {
    let m = parse_module(&fixture("eq_class_priority.mir")).unwrap();
    let mut f = m.functions.into_iter().next().unwrap();
    phi_elim::run(&mut f, &Default::default(), &mut NoTrace::default());
    let (_, mut classes) =
        two_address::run_with_classes(&mut f, &Default::default(), &mut NoTrace::default());
    let rc = register_coalescer::CoalescerOptions {
        join_liveintervals: false,
        ..Default::default()
    };
    register_coalescer::run_renaming_classes(
        &mut f,
        &rc,
        &mut NoTrace::default(),
        Some(&mut classes),
    );
    let opts = nvptx_coalescer::NvptxCoalescerOptions {
        coalesce_limit: 1,
        ignore_eq_classes,
        ..Default::default()
    };
    let mut log = StepLog::default();
    nvptx_coalescer::run_with_classes(&mut f, &opts, &mut log, Some(classes));
    (f, log)
}

/// With the classes read, the tied COPY `%4 = COPY killed %2` (one class) leaves the
/// heap first, and the one merge allowed joins %4 and %2 (they do not overlap: %2 dies
/// at the copy). Switched off, the heap's register order puts `%3 = COPY killed %6`
/// (lowest destination) first, and that merge is the one made instead. Both expected
/// bodies follow from the heap order and the spec's overlap rule.
#[test]
fn switching_eq_classes_off_changes_which_copy_is_merged() {
    let (on, on_log) = one_merge(false);
    let (off, _) = one_merge(true);
    let want_on = [
        "bb.1:",
        "successors: %bb.3",
        "%6:float32regs = COPY killed %1",
        "GOTO %bb.3",
        "bb.2:",
        "successors: %bb.3",
        "%4:float32regs = FADD_rnf32ri killed %4(tied-def 0), float 1.000000e+00, 0",
        "%6:float32regs = COPY killed %4",
        "bb.3:",
        "%3:float32regs = COPY killed %6",
        "StoreRetvalF32 killed %3, 0",
        "Return",
    ];
    let want_off = [
        "bb.1:",
        "successors: %bb.3",
        "%3:float32regs = COPY killed %1",
        "GOTO %bb.3",
        "bb.2:",
        "successors: %bb.3",
        "%4:float32regs = COPY killed %2",
        "%4:float32regs = FADD_rnf32ri %4(tied-def 0), float 1.000000e+00, 0",
        "%3:float32regs = COPY killed %4",
        "bb.3:",
        "StoreRetvalF32 killed %3, 0",
        "Return",
    ];
    assert_eq!(
        tail(&print_function(&on)),
        want_on,
        "{}",
        print_function(&on)
    );
    assert_eq!(
        tail(&print_function(&off)),
        want_off,
        "{}",
        print_function(&off)
    );
    let pop = on_log.steps.iter().find(|s| s.kind == "heap_pop").unwrap();
    assert!(
        pop.narration.contains("copy into %4") && pop.narration.contains("copy-equivalence class"),
        "{}",
        pop.narration
    );
}

/// The pipeline hands the classes over for real: the same run through `run` with the
/// knobs gives the classes-on result, and starting at the NVPTX coalescer (nothing
/// handed over) gives the classes-off one.
#[test]
fn the_pipeline_hands_the_classes_from_two_address_to_the_nvptx_coalescer() {
    let knobs = |o: &mut RunOptions| {
        o.knobs.set_from_str("join-liveintervals=false").unwrap();
        o.knobs.set_from_str("coalesce-limit=1").unwrap();
    };
    let mut all = RunOptions {
        until: Some(Stage::NvptxCoalescer),
        trace: true,
        ..RunOptions::default()
    };
    knobs(&mut all);
    let r = run(&fixture("eq_class_priority.mir"), &all).unwrap();
    assert_eq!(tail(&r.output), tail(&print_function(&one_merge(false).0)));
    let said = r
        .stages
        .last()
        .unwrap()
        .steps
        .iter()
        .find(|s| s.kind == "eq_classes")
        .unwrap();
    assert!(
        said.narration
            .contains("handed over 1 copy-equivalence class"),
        "{}",
        said.narration
    );

    let mut upto = RunOptions {
        until: Some(Stage::TwoAddress),
        ..RunOptions::default()
    };
    knobs(&mut upto);
    let mid = run(&fixture("eq_class_priority.mir"), &upto)
        .unwrap()
        .output;
    let mut only = RunOptions {
        only: vec![Stage::NvptxCoalescer],
        trace: true,
        ..RunOptions::default()
    };
    knobs(&mut only);
    let r = run(&mid, &only).unwrap();
    assert_eq!(tail(&r.output), tail(&print_function(&one_merge(true).0)));
    let said = r.stages[0]
        .steps
        .iter()
        .find(|s| s.kind == "eq_classes")
        .unwrap();
    assert!(
        said.narration.starts_with("No copy-equivalence classes"),
        "{}",
        said.narration
    );
}
