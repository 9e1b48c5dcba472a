//! The NVPTX coalescer's findings (`findings/README.md`, coalescing/), each a test:
//! merges leave true value numbers (the pass is idempotent: a second run over its own
//! output changes nothing, on every gallery example and every corpus input), identity
//! moves are erased, and kill flags are ones llc-22's machine verifier accepts.

mod support;

use compiler_core::examples::EXAMPLES;
use compiler_core::mir::{parse_module, print_function, print_module, Module};
use compiler_core::passes::nvptx_coalescer::{self, NvptxCoalescerOptions};
use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
use compiler_core::pipeline::{run, RunOptions};
use compiler_core::stages::Stage;
use compiler_core::trace::{NoTrace, StepLog};
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/nvptx_coalescer")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Runs the pass over `m`'s functions (traced or not); returns the joins it made.
fn coalesce(m: &mut Module, traced: bool) -> u64 {
    let opts = NvptxCoalescerOptions::default();
    m.functions
        .iter_mut()
        .map(|f| {
            let s = if traced {
                nvptx_coalescer::run(f, &opts, &mut StepLog::default())
            } else {
                nvptx_coalescer::run(f, &opts, &mut NoTrace::default())
            };
            s.get("joined")
        })
        .sum()
}

/// A second run over the pass's own output joins nothing and changes no text.
fn assert_idempotent(what: &str, first: &str) {
    for traced in [false, true] {
        let mut m = parse_module(first).unwrap_or_else(|e| panic!("{what}: {e}"));
        let joined = coalesce(&mut m, traced);
        let second = print_module(&m);
        assert_eq!(
            first, second,
            "{what} (traced {traced}): a second run changed the output"
        );
        assert_eq!(joined, 0, "{what}: a second run joined {joined} more");
    }
}

/// The module after the NVPTX coalescer, run alone or after the generic one.
fn after_nvptx(text: &str, generic_first: bool) -> String {
    let mut m = parse_module(text).unwrap();
    if generic_first {
        for f in &mut m.functions {
            register_coalescer::run(f, &CoalescerOptions::default(), &mut NoTrace::default());
        }
    }
    coalesce(&mut m, false);
    print_module(&m)
}

fn corpus_twoaddr() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(shared().join("corpus"))
        .expect("the shared corpus")
        .filter_map(|e| Some(e.ok()?.path().join("4-twoaddr.mir")))
        .filter(|p| p.exists())
        .collect();
    out.sort();
    out
}

#[test]
fn every_gallery_example_is_a_fixed_point() {
    let mut n = 0;
    for ex in EXAMPLES {
        let Some((_, text)) = ex.text(None) else {
            continue;
        };
        let opts = RunOptions {
            until: Some(Stage::NvptxCoalescer),
            ..RunOptions::default()
        };
        let Ok(r) = run(text, &opts) else { continue };
        if r.stages.last().map(|s| s.stage) != Some(Stage::NvptxCoalescer) {
            continue;
        }
        assert_idempotent(ex.name, &r.output);
        n += 1;
    }
    assert!(n >= 20, "only {n} examples reached the NVPTX coalescer");
}

#[test]
fn every_corpus_twoaddr_input_is_a_fixed_point() {
    let files = corpus_twoaddr();
    assert!(files.len() >= 13, "{} corpus inputs", files.len());
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        for generic in [false, true] {
            let what = format!("{} (generic coalescer first: {generic})", p.display());
            assert_idempotent(&what, &after_nvptx(&text, generic));
        }
    }
}

/// llc-22's own coalesced MIR of LLVM's NVPTX tests (built by its make.sh).
#[test]
fn every_llvm_nvptx_output_is_a_fixed_point() {
    let Some(llc) = support::llc::llc() else {
        return;
    };
    let mut n = 0;
    for case in support::llc::llvm_nvptx(llc) {
        let Some(path) = case.file("coalesced.mir") else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        if parse_module(&text).is_err() {
            continue;
        }
        assert_idempotent(&case.name, &after_nvptx(&text, false));
        n += 1;
    }
    println!("{n} llvm-nvptx inputs checked");
    assert!(n >= 130, "only {n} llvm-nvptx inputs were checked");
}

/// The finding's own commands: `limits` through the NVPTX coalescer, cu_reduce's and
/// ll_phi_loop's two-address output (the latter with the generic coalescer off, i.e.
/// the NVPTX pass alone), each run a second time.
#[test]
fn the_findings_inputs_are_fixed_points() {
    let ex = EXAMPLES.iter().find(|e| e.name == "limits").unwrap();
    let opts = RunOptions {
        until: Some(Stage::NvptxCoalescer),
        ..RunOptions::default()
    };
    let r = run(ex.text(None).unwrap().1, &opts).unwrap();
    assert_idempotent("limits", &r.output);
    for case in ["cu_reduce", "ll_phi_loop"] {
        let text =
            std::fs::read_to_string(shared().join("corpus").join(case).join("4-twoaddr.mir"))
                .unwrap();
        assert_idempotent(case, &after_nvptx(&text, false));
    }
}

/// In `limits` (now a chain of six moves, each reading the register the one before it
/// wrote and killing it), no two registers of a move are live together, so all six
/// join, four in the block-level pass and two, across the block edge, from the worklist;
/// no check reports interference.
#[test]
fn limits_joins_the_last_move_of_its_chain() {
    let ex = EXAMPLES.iter().find(|e| e.name == "limits").unwrap();
    let opts = RunOptions {
        until: Some(Stage::NvptxCoalescer),
        trace: true,
        ..RunOptions::default()
    };
    let r = run(ex.text(None).unwrap().1, &opts).unwrap();
    let s = r.stages.last().unwrap();
    assert!(!r.output.contains("IMOV32rr"), "{}", r.output);
    for st in &s.steps {
        assert!(st.kind != "interference", "{}", st.narration);
    }
}

/// `self-move.mir`: the identity moves (`%2 = COPY %2`, `%3 = IMOV32rr %3`) go.
/// Expected by reasoning, under the pass's rule that overlapping live segments
/// interfere (register-coalescing-cicc.txt, `sub_34AA450`): `%1`'s first value dies at
/// `%2 = COPY %1` and `%2` dies at `%1 = COPY %2`, so `%1` joins `%2` (the copy's
/// destination is kept); `%3 = IMOV32rr %2` stays, as `%2` is read by the first store,
/// after `%3` is defined; `%9` joins `%4`; `%5 → %6 → %7 → %8` joins into `%8`, whose
/// only def is then dead. Kill flags: the last read of `%2`, `%3` and `%4`.
#[test]
fn self_moves_are_erased() {
    let mut m = parse_module(&fixture("self-move.mir")).unwrap();
    coalesce(&mut m, false);
    let body = print_function(&m.functions[0]);
    let body = &body[body.find("body:").unwrap()..];
    let want = "body:             |
  bb.0.entry:
    successors: %bb.2

    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &t_param_0, 0
    %2:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &t_param_1, 0
    %3:int32regs = IMOV32rr %2
    %4:int32regs = IMPLICIT_DEF
    dead %8:int32regs = IMPLICIT_DEF
    ST_i32 killed %2, 0, 0, 1, 32, %0, 0
    ST_i32 killed %4, 0, 0, 1, 32, %0, 4
    ST_i32 killed %3, 0, 0, 1, 32, %0, 8
    GOTO %bb.2

  bb.2:
    Return
...
";
    assert_eq!(body, want);
    // Traced, the same result, and the identity move's erasure is a step.
    let mut m2 = parse_module(&fixture("self-move.mir")).unwrap();
    let mut log = StepLog::default();
    nvptx_coalescer::run(
        &mut m2.functions[0],
        &NvptxCoalescerOptions::default(),
        &mut log,
    );
    assert_eq!(
        print_function(&m2.functions[0]),
        print_function(&m.functions[0])
    );
    assert!(log.steps.iter().any(|s| s.kind == "self_copy"));
}

/// ll_phi_loop (`--only nvptx-coalescer`) left `%1 = COPY killed %0` with `%0` read
/// around the loop: "Virtual register killed in block, but needed live out". Every
/// NVPTX corpus input, the pass alone and after the generic one, must pass llc-22's
/// verifier.
#[test]
fn llc22_verifier_accepts_our_output() {
    let Some(llc) = support::llc::llc() else {
        return;
    };
    let mut n = 0;
    for p in corpus_twoaddr() {
        let text = std::fs::read_to_string(&p).unwrap();
        let case = p
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if case.starts_with("xtra_") {
            continue; // other targets' register classes: llc-22 -march=nvptx64 cannot read them
        }
        for generic in [false, true] {
            let out = after_nvptx(&text, generic);
            let tag = format!("{case}-{generic}");
            if let Err(e) = support::llc::verify_mir(llc, &out, "-mcpu=sm_90", &tag) {
                panic!("{case} (generic first: {generic}): llc-22 rejects our output:\n{e}\n{out}");
            }
            n += 1;
        }
    }
    assert!(n >= 24, "{n}");
}

/// Copy chains llc-22's coalescer handles (findings: "agree with llc-22, keep as
/// tests"). llc-22's `-run-pass=register-coalescer` compares values and leaves 0, 14,
/// 6 and 2 COPYs (counted in its output). The NVPTX pass, alone on the same input,
/// counts any overlap of live segments as interference (register-coalescing-cicc.txt,
/// `sub_34AA450`), so it leaves at least as many, by reasoning:
/// - chain_pure: `%1` and `%11` are read by the final adds, so the copies out of them
///   stay (`%2 = COPY %1`, `%12 = COPY %11`, renamed into the two chains' ends); 2.
/// - chain_redef: every register is read by the final adds: nothing joins; 20.
/// - fanout: `%1` is read by the last add, so each of its twelve copies overlaps it; 12.
/// - loop_swapcopies: `%5` and `%6` are live out of the loop to the exit block, across
///   the back-edge copies into `%2` and `%3`; `%8`, too, across `%9 = COPY %8`; only
///   `%8 = COPY %7` (`%7` dies there) and `%3 = COPY %9` join; 4.
///
/// The output is a fixed point and llc-22's verifier accepts it.
#[test]
fn copy_chains_under_the_overlap_rule() {
    let llc = support::llc::llc();
    for (name, want, llc_want) in [
        ("chain_pure", 2, 0),
        ("chain_redef", 20, 14),
        ("fanout", 12, 6),
        ("loop_swapcopies", 4, 2),
    ] {
        let text = fixture(&format!("{name}.mir"));
        let out = after_nvptx(&text, false);
        let body = |t: &str| t[t.find("body:").unwrap()..].matches(" COPY ").count();
        assert_eq!(body(&out), want, "{name}:\n{out}");
        assert_idempotent(name, &out);
        if name == "chain_pure" {
            assert!(out.contains("%11:b32 = COPY %1\n"), "{out}");
            assert!(out.contains("%21:b32 = COPY %11\n"), "{out}");
        }
        let Some(llc) = llc else { continue };
        support::llc::verify_mir(llc, &out, "-mcpu=sm_90", name)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{out}"));
        let o = support::llc::run_pass(llc, &text, "register-coalescer", name);
        assert_eq!(body(&o), llc_want, "{name}: llc-22's count");
    }
}

/// The old `limits` example (six moves out of one register, `limits-fanout.mir`): the
/// finding was a false "live together with different values" after the chain merged.
/// Under the overlap rule, expected by reasoning: `%1` is live across the first five
/// moves (each reads it and it is read again), so `%2`…`%6` interfere with it; only
/// `%7 = IMOV32rr killed %1` joins (`%1` dies there), `%7` keeping the load; the
/// interference narration names no values, and a second run changes nothing.
#[test]
fn the_old_limits_fanout_joins_only_its_last_move() {
    let opts = RunOptions {
        until: Some(Stage::NvptxCoalescer),
        trace: true,
        ..RunOptions::default()
    };
    let r = run(&fixture("limits-fanout.mir"), &opts).unwrap();
    let s = r.stages.last().unwrap();
    assert_eq!(s.stats.get("joined"), 1);
    let body = &r.output[r.output.find("body:").unwrap()..];
    for k in 2..=6 {
        assert!(
            body.contains(&format!("%{k}:int32regs = IMOV32rr %7\n")),
            "{body}"
        );
    }
    assert!(body.contains("%7:int32regs = LD_i32"), "{body}");
    let inter: Vec<_> = s
        .steps
        .iter()
        .filter(|st| st.kind == "interference")
        .collect();
    assert_eq!(
        inter.len(),
        10,
        "five in the block-level pass, five in the worklist"
    );
    for st in inter {
        assert!(
            !st.narration.contains("different values"),
            "{}",
            st.narration
        );
        assert!(st.narration.contains("overlap"), "{}", st.narration);
    }
    assert_idempotent("limits-fanout", &r.output);
}
