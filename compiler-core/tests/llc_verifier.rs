//! llc-22's MachineVerifier accepts the MIR we print after every MIR stage.
//!
//! `llc-22 -run-pass=none -verify-machineinstrs` reads our printed MIR back and runs
//! LLVM's own verifier on it: kill flags, live-ins, defs dominating uses, operand
//! kinds per opcode, terminators, successors. Inputs:
//! - every NVPTX corpus case (`shared/corpus/cu_*`, `ll_*`): `2-pre-phielim.mir` run
//!   until each MIR stage, and each stage alone on llc-22's own input for it
//!   (`--only two-address` on `3-pre-twoaddr.mir`, `--only nvptx-coalescer` on
//!   `4-twoaddr.mir`, ...);
//! - LLVM's own NVPTX CodeGen tests (`shared/corpus/llvm-nvptx`, built by its make.sh),
//!   the same way, wherever llc-22's verifier accepts llc-22's own file (it rejects a
//!   few of its own outputs, e.g. `FDIV32ri` with a register operand in `div.ll`);
//!
//! Random programs are checked in `random_programs_isa.rs`: 200 programs the generator
//! writes in llc-22's dialect (`GenConfig::llc22`), through every MIR stage.
//!
//! [`KNOWN`] lists the failures not fixed yet, each with its reason; the test fails on
//! any other failure and on a listed one that now passes (so the list stays true).

mod support;

use compiler_core::{run, RunOptions, Stage};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use support::llc::{llc, llvm_nvptx, verify_mir};

const MIR_STAGES: [Stage; 4] = [
    Stage::PhiElimination,
    Stage::TwoAddress,
    Stage::RegisterCoalescer,
    Stage::NvptxCoalescer,
];

/// (input, how it was run) pairs that fail today, and why.
/// Empty since BRX_START/ITEM/END became terminators (switch.ll): keep failures here,
/// with their reason, only while they are being fixed.
const KNOWN: &[(&str, &str, &str)] = &[];

/// How a stage is reached: everything from the input's entry up to it, or it alone.
#[derive(Copy, Clone)]
enum How {
    Until(Stage),
    Only(Stage),
}

impl std::fmt::Display for How {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            How::Until(s) => write!(f, "until {s}"),
            How::Only(s) => write!(f, "only {s}"),
        }
    }
}

fn options(how: How) -> RunOptions {
    let mut o = RunOptions::default();
    match how {
        How::Until(s) => o.until = Some(s),
        How::Only(s) => o.only = vec![s],
    }
    o
}

/// One run to check: our pipeline on `text`, then llc-22's verifier on the result.
struct Job {
    tag: String,
    text: std::sync::Arc<str>,
    flags: String,
    how: How,
}

impl Job {
    /// Every MIR stage from the input's entry.
    fn all_stages(tag: &str, text: &str, flags: &str) -> Vec<Job> {
        let text: std::sync::Arc<str> = text.into();
        MIR_STAGES
            .iter()
            .map(|&s| Job {
                tag: tag.into(),
                text: text.clone(),
                flags: flags.into(),
                how: How::Until(s),
            })
            .collect()
    }

    fn only(tag: &str, text: &str, flags: &str, stage: Stage) -> Job {
        Job {
            tag: tag.into(),
            text: text.into(),
            flags: flags.into(),
            how: How::Only(stage),
        }
    }

    /// Ok when llc-22 accepts our output; else why not.
    fn check(&self, llc: &Path) -> Result<(), String> {
        let out = run(&self.text, &options(self.how))
            .map_err(|e| format!("our run failed: {e:?}"))?
            .output;
        verify_mir(llc, &out, &self.flags, &self.tag)
    }
}

#[derive(Default)]
struct Tally {
    checked: usize,
    inputs: BTreeSet<String>,
    /// (input, how it was run, llc-22's reason)
    failures: Vec<(String, String, String)>,
}

/// Runs every job, two llc-22 processes per core at a time.
fn check_jobs(llc: &Path, jobs: &[Job]) -> Tally {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get() * 2);
    let mut results: Vec<(usize, Result<(), String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(job) = jobs.get(i) else { break done };
                        done.push((i, job.check(llc)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    results.sort_by_key(|r| r.0);
    let mut t = Tally::default();
    for (i, r) in results {
        let job = &jobs[i];
        t.checked += 1;
        t.inputs.insert(job.tag.clone());
        if let Err(why) = r {
            t.failures.push((job.tag.clone(), job.how.to_string(), why));
        }
    }
    t
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The corpus cases: `2-pre-phielim.mir` through every stage, and each stage alone on
/// llc-22's own input for it.
fn corpus_jobs() -> Vec<Job> {
    let mut jobs = Vec::new();
    for case in support::nvptx_cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let flags = "-mcpu=sm_90";
        let tag = format!("{name}/2-pre-phielim.mir");
        jobs.extend(Job::all_stages(
            &tag,
            &read(&case.join("2-pre-phielim.mir")),
            flags,
        ));
        for (file, stage) in [
            ("3-pre-twoaddr.mir", Stage::TwoAddress),
            ("4-twoaddr.mir", Stage::RegisterCoalescer),
            ("4-twoaddr.mir", Stage::NvptxCoalescer),
            ("5-coalesced.mir", Stage::NvptxCoalescer),
        ] {
            let tag = format!("{name}/{file}");
            jobs.push(Job::only(&tag, &read(&case.join(file)), flags, stage));
        }
    }
    jobs
}

/// LLVM's NVPTX tests the same way, where llc-22 accepts its own `pre-phielim.mir`;
/// also returns the names of those it rejects.
fn llvm_nvptx_jobs(llc: &Path) -> (Vec<Job>, Vec<String>) {
    let mut jobs = Vec::new();
    let mut own_rejected = Vec::new();
    for case in llvm_nvptx(llc) {
        let Some(pre) = case.file("pre-phielim.mir") else {
            continue;
        };
        let text = read(&pre);
        if verify_mir(llc, &text, &case.flags, &case.name).is_err() {
            own_rejected.push(case.name.clone());
            continue;
        }
        let tag = format!("llvm-nvptx/{}/pre-phielim.mir", case.name);
        jobs.extend(Job::all_stages(&tag, &text, &case.flags));
        for (file, stage) in [
            ("pre-twoaddr.mir", Stage::TwoAddress),
            ("coalesced.mir", Stage::NvptxCoalescer),
        ] {
            if let Some(p) = case.file(file) {
                let tag = format!("llvm-nvptx/{}/{file}", case.name);
                jobs.push(Job::only(&tag, &read(&p), &case.flags, stage));
            }
        }
    }
    (jobs, own_rejected)
}

#[test]
fn llc_verifier_accepts_our_mir_after_every_stage() {
    let Some(llc) = llc() else { return };
    let corpus = corpus_jobs();
    let (nvptx, own_rejected) = llvm_nvptx_jobs(llc);
    let (n_corpus, n_nvptx) = (corpus.len(), nvptx.len());
    let jobs: Vec<Job> = corpus.into_iter().chain(nvptx).collect();
    let t = check_jobs(llc, &jobs);
    eprintln!(
        "llc-22 verifier: {} runs checked ({n_corpus} corpus, {n_nvptx} llvm-nvptx), \
         {} failing; llc-22 rejects its own pre-phielim.mir for {}: {}",
        t.checked,
        t.failures.len(),
        own_rejected.len(),
        own_rejected.join(", ")
    );
    assert!(n_corpus >= 100, "only {n_corpus} corpus runs were checked");
    assert!(
        n_nvptx >= 500,
        "only {n_nvptx} llvm-nvptx runs were checked"
    );
    report(&t);
}

/// Fails on a failure [`KNOWN`] does not list, and on a listed one that passed.
fn report(t: &Tally) {
    let mut unexpected = Vec::new();
    for (input, how, why) in &t.failures {
        if !KNOWN.iter().any(|k| k.0 == input && k.1 == how) {
            unexpected.push(format!(
                "{input} ({how}):\n    {}",
                why.replace('\n', "\n    ")
            ));
        }
    }
    let stale: Vec<String> = KNOWN
        .iter()
        .filter(|k| t.inputs.contains(k.0))
        .filter(|k| !t.failures.iter().any(|f| f.0 == k.0 && f.1 == k.1))
        .map(|k| format!("{} ({}) now passes: remove it from KNOWN", k.0, k.1))
        .collect();
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "llc-22's verifier rejects our MIR:\n{}\n{}",
        unexpected.join("\n"),
        stale.join("\n")
    );
}
