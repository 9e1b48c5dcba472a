//! No GeneralOptimize phase loops forever: huge blocks, long chains whose rounds each
//! enable the next, and mutually dependent selects finish within the caps (option 464's
//! budget and our hard cap), and keep their results.

use compiler_core::knobs::Knobs;
use compiler_core::ori_interp as interp;
use compiler_core::pipeline::{self, RunOptions};
use compiler_core::ptx;
use compiler_core::ptxas::general_optimize::hard_round_cap;
use compiler_core::stages::Stage;

fn kernel(body: &str, nregs: usize) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n{{\n\t.reg .pred \t%p<{nregs}>;\n\t.reg .b32 \t%r<{nregs}>;\n\t.reg .b64 \t%rd<3>;\n\n\tld.param.u64 \t%rd1, [k_param_0];\n\tld.param.u32 \t%r1, [k_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n{body}\tret;\n}}\n"
    )
}

fn run_all(text: &str, knobs: &[&str]) -> pipeline::RunResult {
    let mut k = Knobs::default();
    for kv in knobs {
        k.set_from_str(kv).unwrap();
    }
    let r = pipeline::run(
        text,
        &RunOptions {
            until: Some(Stage::PtxOut),
            knobs: k,
            ..Default::default()
        },
    )
    .unwrap();
    let before = ptx::parse(text).unwrap();
    let after = ptx::parse(&r.output).unwrap();
    for seed in 0..3 {
        let inputs = interp::random_inputs(
            &before
                .items
                .iter()
                .find_map(|i| match i {
                    ptx::Item::Func(f) => f.params.clone(),
                    _ => None,
                })
                .unwrap(),
            seed,
        );
        let cfg = interp::Config::default();
        assert_eq!(
            interp::run_ptx(&before, "k", &inputs, &cfg).map(|o| o.buffers),
            interp::run_ptx(&after, "k", &inputs, &cfg).map(|o| o.buffers),
            "seed {seed}"
        );
    }
    r
}

fn iterations(r: &pipeline::RunResult, s: Stage) -> u64 {
    r.stages
        .iter()
        .find(|x| x.stage == s)
        .unwrap()
        .stats
        .get("iterations")
}

#[test]
fn the_hard_cap_is_finite_and_grows_with_the_block() {
    assert!(hard_round_cap(0) >= 1);
    assert!(hard_round_cap(10) < hard_round_cap(1000));
    assert!(hard_round_cap(usize::MAX) <= 4096);
}

/// A chain of selects: each round folds one select into a move and the next round
/// propagates it, so the chain would need many rounds; every loop still ends.
#[test]
fn long_fold_chains_end_within_the_caps() {
    let n = 200;
    let mut body = String::from("\tsetp.gt.s32 \t%p1, %r1, 3;\n\tmov.u32 \t%r2, %r1;\n");
    for i in 2..n {
        body += &format!("\tselp.s32 \t%r{}, %r{i}, %r{i}, %p1;\n", i + 1);
    }
    body += &format!("\tst.global.u32 \t[%rd2], %r{n};\n");
    let text = kernel(&body, n + 2);
    let r = run_all(&text, &[]);
    let it = iterations(&r, Stage::GeneralOptimize);
    assert!(it <= u64::from(hard_round_cap(n + 8)), "{it}");
    for cap in ["1", "2", "5"] {
        let r = run_all(&text, &[&format!("ptxas-option-464={cap}")]);
        let capped = iterations(&r, Stage::GeneralOptimize);
        assert!(
            capped <= cap.parse::<u64>().unwrap() + 2,
            "464={cap}: {capped}"
        );
    }
}

/// Selects feeding each other through the predicate they compute (a would-be
/// oscillation: folding one exposes the next, in both directions).
#[test]
fn mutually_dependent_selects_finish() {
    let mut body = String::new();
    for i in 1..60 {
        let (a, b) = (i + 1, i + 2);
        body += &format!(
            "\tsetp.ne.s32 \t%p{i}, %r{i}, %r{i};\n\tselp.s32 \t%r{a}, %r{i}, %r1, %p{i};\n\tselp.s32 \t%r{b}, %r{a}, %r{a}, %p{i};\n"
        );
    }
    body += "\tst.global.u32 \t[%rd2], %r61;\n";
    let text = kernel(&body, 70);
    run_all(&text, &[]);
}

/// A huge block of moves and adds runs every phase without blowing up.
#[test]
fn huge_blocks_finish() {
    let n = 1500;
    let mut body = String::new();
    for i in 1..n {
        if i % 3 == 0 {
            body += &format!("\tmov.u32 \t%r{}, %r{i};\n", i + 1);
        } else {
            body += &format!("\tadd.s32 \t%r{}, %r{i}, {i};\n", i + 1);
        }
    }
    body += &format!("\tst.global.u32 \t[%rd2], %r{n};\n");
    let text = kernel(&body, n + 2);
    run_all(&text, &[]);
    run_all(&text, &["sm=sm_50", "limit-fold-fp=true"]);
}
