//! The GeneralOptimize gallery: each example shows its mechanism in its stats and trace,
//! keeps its results under the ORI interpreter, and its output assembles with ptxas.

mod support;

use compiler_core::examples;
use compiler_core::knobs::Knobs;
use compiler_core::ori_interp as interp;
use compiler_core::pipeline::{self, RunOptions, RunResult, StageRun};
use compiler_core::ptx;
use compiler_core::stages::Stage;
use compiler_core::trace::Payload;

fn run(name: &str, knobs: &[&str]) -> RunResult {
    let e = examples::find(name).unwrap_or_else(|| panic!("no example {name}"));
    let (_, text) = e.text(None).unwrap();
    let mut k = Knobs::default();
    for kv in knobs {
        k.set_from_str(kv).unwrap();
    }
    let opts = RunOptions {
        until: Some(Stage::PtxOut),
        knobs: k,
        trace: true,
        verify: true,
        ..Default::default()
    };
    let r = pipeline::run(text, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    check_results_and_assemble(name, text, &r);
    r
}

fn stage(r: &RunResult, s: Stage) -> &StageRun {
    r.stages.iter().find(|x| x.stage == s).unwrap()
}

fn stat(r: &RunResult, s: Stage, key: &str) -> u64 {
    stage(r, s).stats.get(key)
}

/// The interpreter agrees on the input PTX and the output PTX; ptxas takes the output.
fn check_results_and_assemble(name: &str, input: &str, r: &RunResult) {
    let before = ptx::parse(input).unwrap();
    let after = ptx::parse(&r.output).unwrap_or_else(|e| panic!("{name}: {e}\n{}", r.output));
    for f in before.items.iter().filter_map(|i| match i {
        ptx::Item::Func(f) if f.body.is_some() && f.kind == ptx::ast::FuncKind::Entry => Some(f),
        _ => None,
    }) {
        for seed in 0..4 {
            let inputs = interp::random_inputs(f.params.as_deref().unwrap_or(&[]), seed);
            let cfg = interp::Config::default();
            let a = interp::run_ptx(&before, &f.name, &inputs, &cfg).map(|o| o.buffers);
            let b = interp::run_ptx(&after, &f.name, &inputs, &cfg).map(|o| o.buffers);
            assert_eq!(a, b, "{name} {} seed {seed}", f.name);
        }
    }
    if let Some(px) = support::ptxas::ptxas() {
        support::ptxas::assemble(px, &r.output, 90, name)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", r.output));
    }
}

#[test]
fn redundant_exit_removes_the_second_exit_chain() {
    let r = run("redundant-exit", &[]);
    assert_eq!(stat(&r, Stage::GeneralOptimizeEarly, "exits_removed"), 1);
    assert!(stat(&r, Stage::GeneralOptimizeEarly, "dead_removed") >= 2);
    let s = stage(&r, Stage::GeneralOptimizeEarly);
    assert!(s
        .steps
        .iter()
        .any(|x| x.kind == "exit_chain" && x.narration.contains("depth 2")));
    assert_eq!(r.output.matches("setp.gt.s32").count(), 1, "{}", r.output);
}

/// Six repeated guarded returns in one kernel: phase 13 pairs each, except the one
/// whose second test is also reached by a branch (its block has another way in).
#[test]
fn every_repeated_exit_pairs_unless_its_block_is_a_branch_target() {
    let mut body = String::from("\tsetp.eq.s32 \t%p20, %r1, 100;\n\t@%p20 bra \t$L_in;\n");
    for k in 0..6 {
        let (p, q) = (2 * k + 1, 2 * k + 2);
        body += &format!("\tsetp.gt.s32 \t%p{p}, %r1, {k};\n\t@%p{p} ret;\n");
        if k == 3 {
            body += "$L_in:\n";
        }
        body += &format!("\tsetp.gt.s32 \t%p{q}, %r1, {k};\n\t@%p{q} ret;\n");
    }
    let text = format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry exits(\n\t.param .u64 exits_param_0,\n\t.param .u32 exits_param_1\n)\n{{\n\t.reg .pred \t%p<21>;\n\t.reg .b32 \t%r<2>;\n\t.reg .b64 \t%rd<3>;\n\n\tld.param.u64 \t%rd1, [exits_param_0];\n\tld.param.u32 \t%r1, [exits_param_1];\n{body}\tcvta.to.global.u64 \t%rd2, %rd1;\n\tst.global.u32 \t[%rd2], %r1;\n\tret;\n}}\n"
    );
    let opts = RunOptions {
        until: Some(Stage::PtxOut),
        verify: true,
        ..Default::default()
    };
    let r = pipeline::run(&text, &opts).unwrap_or_else(|e| panic!("{e}\n{text}"));
    check_results_and_assemble("exits", &text, &r);
    assert_eq!(stat(&r, Stage::GeneralOptimizeEarly, "exits_removed"), 5);
    assert_eq!(r.output.matches("setp.gt.s32").count(), 7, "{}", r.output);
}

#[test]
fn select_fold_shows_the_20479_boundary() {
    let old = run("select-fold", &["sm=sm_50"]);
    let new = run("select-fold", &["sm=sm_90"]);
    let (o, n) = (
        stat(&old, Stage::GeneralOptimize, "marked_0x100"),
        stat(&new, Stage::GeneralOptimize, "marked_0x100"),
    );
    assert!(o > 0 && o > n, "sm_50 {o} vs sm_90 {n}");
    let s = stage(&new, Stage::GeneralOptimize);
    assert!(
        s.steps.iter().any(|x| x.kind == "sm_boundary"),
        "no 0x1C00 step on sm_90"
    );
    assert!(!stage(&old, Stage::GeneralOptimize)
        .steps
        .iter()
        .any(|x| x.kind == "sm_boundary"));
    assert!(stat(&old, Stage::GeneralOptimize, "selects_folded") == 2);
    assert!(stat(&old, Stage::GeneralOptimize, "dead_removed") > 0);
    assert!(s
        .steps
        .iter()
        .any(|x| matches!(*x.payload, Payload::GoMark { mask: 0x100, .. })));
    assert!(s
        .steps
        .iter()
        .any(|x| matches!(*x.payload, Payload::GoRound { .. })));
}

#[test]
fn predicate_known_marks_0x400_and_resolves_guards() {
    let r = run("predicate-known", &[]);
    let g = Stage::GeneralOptimize;
    assert!(stat(&r, g, "marked_0x400") > 0);
    assert!(stat(&r, g, "marked_0x100") > 0);
    assert_eq!(stat(&r, g, "guards_resolved"), 2);
    assert_eq!(stat(&r, g, "selects_folded"), 1);
    assert!(stat(&r, g, "dead_removed") >= 3);
    assert!(!r.output.contains("setp"), "{}", r.output);
}

#[test]
fn iteration_cap_stops_after_one_round() {
    let free = run("iteration-cap", &[]);
    let capped = run("iteration-cap", &["ptxas-option-464=1"]);
    let g = Stage::GeneralOptimize;
    assert_eq!(stat(&free, g, "cap_hits"), 0);
    assert_eq!(stat(&capped, g, "cap_hits"), 1);
    let s = stage(&capped, g);
    let cap = s
        .steps
        .iter()
        .find(|x| x.kind == "cap")
        .expect("a cap step");
    assert!(cap.narration.contains("option-464"));
    assert!(matches!(
        *cap.payload,
        Payload::GoRound {
            capped: true,
            iteration: 2,
            ..
        }
    ));
    assert!(stat(&free, g, "uses_replaced") > stat(&capped, g, "uses_replaced"));
}

#[test]
fn local_array_promotes_loads_and_drops_stores() {
    let r = run("local-array", &[]);
    let m = Stage::GeneralOptimizeMid;
    assert_eq!(stat(&r, m, "promoted_loads"), 2);
    assert_eq!(stat(&r, m, "promoted_stores_removed"), 2);
    assert!(stat(&r, m, "dead_removed") > 0);
    assert!(!r.output.contains("st.local"), "{}", r.output);
    let s = stage(&r, m);
    assert!(s
        .steps
        .iter()
        .any(|x| matches!(*x.payload, Payload::GoCost { .. })));
    // Disabled by option 487: nothing is promoted.
    let off = run("local-array", &["ptxas-option-487=false"]);
    assert_eq!(stat(&off, m, "promoted_loads"), 0);
    assert_eq!(stat(&off, m, "gated"), 1);
    // Disabled by name (--no-phase ConvertMemoryToRegisterOrUniform).
    let named = run(
        "local-array",
        &["convert-memory-to-register-or-uniform=false"],
    );
    assert_eq!(stat(&named, m, "promoted_loads"), 0);
    assert_eq!(stat(&named, m, "gated"), 1);
}

#[test]
fn mov_pairs_hit_the_circular_buffer() {
    let r = run("mov-pairs", &[]);
    let l = Stage::GeneralOptimizeLate;
    assert_eq!(stat(&r, l, "buffer_hits"), 2);
    assert_eq!(stat(&r, l, "pair_movs_removed"), 2);
    let s = stage(&r, l);
    assert!(s
        .steps
        .iter()
        .any(|x| matches!(&*x.payload, Payload::GoBuffer { slots, .. } if slots.len() == 6)));
    // Option 31 = 0 keeps the special-register moves out.
    let r31 = run("mov-pairs", &["ptxas-option-31=0"]);
    assert_eq!(stat(&r31, l, "pair_movs_removed"), 1);
    // -O2 skips phase 58.
    let o2 = run("mov-pairs", &["ptxas-opt-level=2"]);
    assert_eq!(stat(&o2, l, "gated"), 1);
}

#[test]
fn real_nvcc_ptx_runs_through_every_phase() {
    for name in ["cu-reduce", "cu-tex2d"] {
        let r = run(name, &[]);
        for s in [
            Stage::GeneralOptimizeEarly,
            Stage::GeneralOptimize,
            Stage::GeneralOptimizeMid,
            Stage::GeneralOptimizeMid2,
            Stage::GeneralOptimizeLate,
            Stage::GeneralOptimizeLate2,
        ] {
            assert!(stat(&r, s, "iterations") > 0, "{name} {s:?}");
        }
    }
}

#[test]
fn phase_46_is_the_no_op_sentinel_on_old_profiles() {
    let r = run("select-fold", &["sm=sm_60"]);
    assert_eq!(stat(&r, Stage::GeneralOptimizeMid2, "gated"), 1);
    let r = run("select-fold", &["sm=sm_90"]);
    assert_eq!(stat(&r, Stage::GeneralOptimizeMid2, "gated"), 0);
}

/// Issue 31's step layout on phase 58: a step with a payload and no list holds no list
/// box (the payload has its own pointer), and each buffer step, kept as the slots that
/// changed over the previous step's, still shows the slot its sentence says a MOV
/// entered, with the index moved past it.
#[test]
fn phase_58_steps_keep_payloads_apart_and_show_the_slot_entered() {
    let r = run("mov-pairs", &[]);
    let s = stage(&r, Stage::GeneralOptimizeLate);
    let mut bare = 0;
    let mut entered = 0;
    for x in &s.steps {
        let no_lists = x.focus.is_empty()
            && x.edits.is_empty()
            && x.ori_edits.is_empty()
            && x.ptx_edits.is_empty();
        if no_lists && !matches!(&*x.payload, Payload::None) {
            assert_eq!(x.parts_box_bytes(), 0, "{}", x.narration);
            bare += 1;
        }
        let Payload::GoBuffer { slots, index, .. } = &*x.payload else {
            continue;
        };
        let text = x.narration.text();
        if let Some(rest) = text.split("enters slot ").nth(1) {
            let k: usize = rest.split(';').next().unwrap().parse().unwrap();
            assert!(slots.get(k).is_some(), "{text}");
            assert_eq!(*index as usize, (k + 1) % 6, "{text}");
            entered += 1;
        }
    }
    assert!(bare > 0 && entered > 0, "{bare} {entered}");
}
