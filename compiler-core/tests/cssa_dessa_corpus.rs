//! CSSA coalescing (`cssa-coalesce`) and deSSA (`usedessa`) on every corpus function
//! (`shared/corpus/*/2-pre-phielim.mir`, LLVM's NVPTX tests' `pre-phielim.mir` and the
//! gallery's MIR examples):
//! through PHI elimination, two-address and both coalescers, each method ends with no
//! more COPYs than plain PHI elimination followed by the same passes, the verifier after
//! each stage finds what it finds on the default's (the gallery's phi-loop once had a
//! stale kill after CSSA), and the MIR interpreter gives the same results before and after
//! (functions it does not model are counted and listed with the reason).

mod support;

use compiler_core::interp::{self, Config};
use compiler_core::knobs::Knobs;
use compiler_core::mir::verify::{verify, VerifyError, VerifyLevel};
use compiler_core::mir::{parse_module, Function, Module};
use compiler_core::passes::{nvptx_coalescer, phi_elim, register_coalescer, two_address};
use compiler_core::pipeline;
use compiler_core::trace::NoTrace;
use std::path::PathBuf;

/// The verifier's errors after each MIR stage, in stage order.
type StageErrors = Vec<Vec<VerifyError>>;

/// The MIR stages from PHI elimination to the NVPTX coalescer, as the pipeline runs them,
/// with the verifier after each at the level the stage leaves (as `--verify` does).
/// Also hands back PHI elimination's counters.
fn to_coalesced(f: &Function, k: &Knobs) -> (Function, compiler_core::stats::Stats, StageErrors) {
    let mut g = f.clone();
    let (stats, lv) = phi_elim::run_keeping_live_variables(
        &mut g,
        &pipeline::phi_elim_options(k),
        &mut NoTrace::default(),
    );
    let mut errs = vec![verify(&g, VerifyLevel::PostPhiElim)];
    two_address::run_with_live_variables(
        &mut g,
        &pipeline::two_address_options(k),
        &mut NoTrace::default(),
        Some(lv),
    );
    errs.push(verify(&g, VerifyLevel::PostTwoAddress));
    register_coalescer::run(
        &mut g,
        &pipeline::register_coalescer_options(k),
        &mut NoTrace::default(),
    );
    errs.push(verify(&g, VerifyLevel::PostCoalesce));
    nvptx_coalescer::run(
        &mut g,
        &pipeline::nvptx_coalescer_options(k),
        &mut NoTrace::default(),
    );
    errs.push(verify(&g, VerifyLevel::PostCoalesce));
    (g, stats.into(), errs)
}

fn inputs() -> Vec<(String, Module)> {
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(support::corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("2-pre-phielim.mir").exists())
        .collect();
    cases.sort();
    for c in cases {
        let name = c.file_name().unwrap().to_string_lossy().to_string();
        files.push((name, c.join("2-pre-phielim.mir")));
    }
    let gallery = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gallery");
    let mut mirs: Vec<PathBuf> = std::fs::read_dir(&gallery)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mir"))
        .collect();
    mirs.sort();
    for p in mirs {
        let name = format!("gallery/{}", p.file_name().unwrap().to_string_lossy());
        files.push((name, p));
    }
    match support::llc::llc() {
        Some(llc) => {
            for case in support::llc::llvm_nvptx(llc) {
                if let Some(p) = case.file("pre-phielim.mir") {
                    files.push((format!("llvm-nvptx/{}", case.name), p));
                }
            }
        }
        None => eprintln!("llc-22 not found: llvm-nvptx cases skipped"),
    }
    files
        .into_iter()
        .filter_map(|(n, p)| {
            let text = std::fs::read_to_string(&p).ok()?;
            parse_module(&text).ok().map(|m| (n, m))
        })
        .collect()
}

fn copies(f: &Function) -> usize {
    support::canon::copy_count(f)
}

#[test]
fn cssa_and_dessa_never_end_with_more_copies() {
    let variants = [
        ("cssa", "cssa-coalesce=true"),
        ("dessa", "usedessa=true"),
        ("cssa+dessa", "cssa-coalesce=true,usedessa=true"),
    ];
    let base_knobs = Knobs::default();
    let config = Config {
        fuel: 100_000,
        ..Config::default()
    };
    let (mut functions, mut agreed, mut fewer) = (0, 0, [0usize; 3]);
    let mut dissolved = [0u64; 3];
    let (mut failures, mut skipped) = (Vec::new(), Vec::new());
    for (name, m) in inputs() {
        let small = name.starts_with("llvm-nvptx/");
        for f in &m.functions {
            if f.layout.blocks().next().is_none() {
                continue;
            }
            functions += 1;
            let label = format!("{name}/{}", f.name);
            let (base, _, base_errs) = to_coalesced(f, &base_knobs);
            let model = interp::check(f);
            if let Some(why) = &model {
                skipped.push(format!("{label}: {why}"));
            }
            for (k, (tag, q)) in variants.iter().enumerate() {
                let (out, stats, errs) = to_coalesced(f, &Knobs::from_query(q).unwrap());
                dissolved[k] += stats.get("cssa_phis_removed") + stats.get("dessa_phis_lowered");
                let (b, o) = (copies(&base), copies(&out));
                if o > b {
                    failures.push(format!("{label} {tag}: {o} COPYs, default {b}"));
                }
                if o < b {
                    fewer[k] += 1;
                }
                if errs != base_errs {
                    failures.push(format!("{label} {tag}: verifier: {errs:?}"));
                }
                if model.is_some() {
                    continue;
                }
                let seeds = if small { 0..6 } else { 0..30 };
                match interp::compare(f, &out, m.ir.as_deref(), seeds, &config) {
                    Ok(ag) if ag.all_agree() => agreed += 1,
                    Ok(ag) => failures.push(format!("{label} {tag}: {ag}")),
                    Err(e) => failures.push(format!("{label} {tag}: {e}")),
                }
            }
        }
    }
    println!(
        "{functions} functions; PHIs dissolved or lowered by the method: {dissolved:?}; fewer COPYs than default: cssa {}, dessa {}, both {}; interpreter agreed on {agreed} runs; {} functions not modelled:\n  {}",
        fewer[0],
        fewer[1],
        fewer[2],
        skipped.len(),
        skipped.join("\n  ")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(functions >= 30, "{functions}");
    assert!(agreed >= 30, "{agreed}");
    // Each method really acts on the corpus (it does not just step aside).
    assert!(dissolved.iter().all(|&n| n >= 20), "{dissolved:?}");
}
