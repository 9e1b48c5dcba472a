//! GeneralOptimize where it has work: real unoptimized kernels and real kernels with
//! warp-level instructions.
//!
//! * `tests/fixtures/o0-ptx/` (its `make.sh`): the corpus kernels as llc-22 prints
//!   them at `-O0` (redundant moves) and after `opt-22 -passes=reg2mem` at `-O0` (every
//!   value in a stack slot of `__local_depot`, reached through `%SP`). The phases'
//!   counters must be non-zero there: phase 29 replaces uses and removes dead moves,
//!   phase 37 promotes loads from the frame, phase 58 finds MOV pairs.
//! * Every corpus and real-world kernel with `shfl`, `vote`, `activemask`, `atom` or
//!   `red`: the ORI interpreter runs them over whole warps.
//!
//! Both: the ORI interpreter's memory after all six phases equals the memory before,
//! on three seeded inputs per kernel. Runs the interpreter refuses are skipped on both
//! sides and counted by reason (printed).

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use support::ori::PHASES;

use compiler_core::knobs::Knobs;
use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
use compiler_core::ptx;
use compiler_core::ptxas::general_optimize::{self as go, Options};
use compiler_core::stats::Stats;
use compiler_core::trace::NoTrace;
use compiler_core::{ori, ori_interp as interp};

fn o0_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/o0-ptx");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    v.sort();
    v
}

type Runs = Vec<Result<Vec<interp::Buffer>, String>>;

fn evaluate(m: &ori::Module) -> Runs {
    let runs = support::ori::entry_runs(m, false);
    runs.into_iter().map(|(_, _, r)| r).collect()
}

/// What one file gave: the six phases' counters summed, runs compared, and why the
/// other runs were skipped.
struct Outcome {
    stats: Stats,
    compared: usize,
    skipped: Vec<String>,
}

/// Lowers, evaluates, runs the six phases at `sm_90`, evaluates again and compares.
fn check(name: &str, text: &[u8]) -> Outcome {
    let mut k = Knobs::default();
    k.set_from_str("sm=sm_90").unwrap();
    let p = ptx::parse_bytes(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let (mut m, _) =
        ptx_lower::run(&p, &PtxLowerOptions::default(), &mut NoTrace::default()).unwrap();
    let before = evaluate(&m);
    let mut stats = Stats::default();
    for phase in PHASES {
        let s = go::run_module(
            &mut m,
            &Options::from_knobs(phase, &k),
            &mut NoTrace::default(),
        );
        stats.merge(&s);
    }
    let after = evaluate(&m);
    let (mut compared, mut skipped) = (0, Vec::new());
    for (b, a) in before.iter().zip(&after) {
        match b {
            Ok(_) => {
                assert_eq!(b, a, "{name}: results differ after the six phases");
                compared += 1;
            }
            Err(e) => skipped.push(e.clone()),
        }
    }
    let printed = ori::print::print(&m);
    ptx::parse(&printed).unwrap_or_else(|e| panic!("{name}: {e}\n{printed}"));
    Outcome {
        stats,
        compared,
        skipped,
    }
}

fn tally(reasons: &mut BTreeMap<String, usize>, skipped: &[String]) {
    for r in skipped {
        *reasons.entry(r.clone()).or_default() += 1;
    }
}

#[test]
fn unoptimized_kernels_fire_the_phases_and_keep_results() {
    let files = o0_files();
    assert!(files.len() >= 20, "{} fixtures", files.len());
    let mut totals = Stats::default();
    let (mut compared, mut with_promotion, mut with_locals) = (0, 0, 0);
    let mut reasons = BTreeMap::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(f).unwrap();
        let o = check(&name, &bytes);
        let has_locals = bytes.windows(13).any(|w| w == b"__local_depot");
        with_locals += usize::from(has_locals);
        with_promotion += usize::from(o.stats.get("promoted_loads") > 0);
        eprintln!(
            "{name}: promoted {} uses replaced {} dead removed {} movs seen {} buffer hits {}; \
             {} runs compared, {} skipped",
            o.stats.get("promoted_loads"),
            o.stats.get("uses_replaced"),
            o.stats.get("dead_removed"),
            o.stats.get("movs_seen"),
            o.stats.get("buffer_hits"),
            o.compared,
            o.skipped.len()
        );
        // Every kernel that keeps a local array has loads phase 37 promotes.
        if has_locals && name.contains("reg2mem") {
            assert!(
                o.stats.get("promoted_loads") > 0,
                "{name}: phase 37 promoted nothing"
            );
        }
        totals.merge(&o.stats);
        compared += o.compared;
        tally(&mut reasons, &o.skipped);
    }
    eprintln!(
        "{} files ({with_locals} with local arrays, {with_promotion} with promoted loads), \
         {compared} runs compared; totals {totals:?}; skipped: {reasons:#?}",
        files.len()
    );
    for key in [
        "promoted_loads",
        "uses_replaced",
        "dead_removed",
        "movs_seen",
        "buffer_hits",
    ] {
        assert!(totals.get(key) > 0, "{key} stayed 0");
    }
    assert!(with_locals >= 5, "{with_locals}");
    assert!(compared >= 50, "only {compared} runs compared");
}

/// The warp-level opcodes the ORI interpreter runs over a whole warp (or, for the
/// atomics, one thread at a time in a fixed order).
fn warp_level(text: &str) -> bool {
    text.lines().any(|l| {
        let l = l.trim_start();
        let l = l.strip_prefix('@').map_or(l, |g| {
            g.split_once(char::is_whitespace)
                .map_or("", |(_, r)| r.trim_start())
        });
        ["shfl.", "vote.", "activemask.", "atom.", "red."]
            .iter()
            .any(|p| l.starts_with(p))
    })
}

#[test]
fn real_kernels_with_warp_level_instructions_keep_results() {
    let mut files = support::real_ptx_files();
    files.extend(support::ptx_files());
    let (mut kernels, mut compared, mut files_compared) = (0, 0, 0);
    let mut reasons = BTreeMap::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        if !warp_level(&text) {
            continue;
        }
        kernels += 1;
        let name = f
            .strip_prefix(support::corpus_dir())
            .unwrap_or(f)
            .display()
            .to_string();
        let o = check(&name, &bytes);
        eprintln!(
            "{name}: {} runs compared, {} skipped {:?}",
            o.compared,
            o.skipped.len(),
            o.skipped.first()
        );
        compared += o.compared;
        files_compared += usize::from(o.compared > 0);
        tally(&mut reasons, &o.skipped);
    }
    eprintln!(
        "{kernels} files with warp-level instructions, {files_compared} of them compared, \
         {compared} runs; skipped: {reasons:#?}"
    );
    assert!(kernels >= 14, "{kernels}");
    // Measured: the atomics of nvcc126-graph-asm-scoped-regs and the votes of
    // nvopencc22-ocelot-sdk-simple-vote (the others stop at calls, `ex2`/`lg2`,
    // module-scope shared or constant variables, `ldmatrix`, `wgmma`).
    assert!(files_compared >= 2, "only {files_compared} files compared");
}
