//! Random programs through the whole MIR pipeline: after every pass the verifier is
//! clean and the interpreter computes what the input computed (see
//! `compiler_core::testgen`).
//!
//! How many programs: `COPYSCOPE_RANDOM_PROGRAMS` (default 200 here; `cargo xtask
//! test` runs 1,000+ in release mode through its `random-programs` step), starting at
//! seed `COPYSCOPE_RANDOM_SEED` (default 0). A failure prints the seed, the knobs and
//! the program; `COPYSCOPE_RANDOM_SEED=<seed> COPYSCOPE_RANDOM_PROGRAMS=1` reruns it.

use compiler_core::interp::has_semantics;
use compiler_core::mir::{Op, Opcode};
use compiler_core::testgen::{check, generate, reduce, CheckConfig, GenConfig, KNOB_SETS};
use std::collections::BTreeMap;
use std::time::Instant;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// The configuration of seed `seed`: sizes and knob sets rotate with the seed.
fn configs(seed: u64) -> (GenConfig, CheckConfig) {
    let gen = GenConfig {
        size: [12, 25, 40, 70][(seed % 4) as usize],
        ..GenConfig::default()
    };
    let knobs = KNOB_SETS[(seed / 4 % KNOB_SETS.len() as u64) as usize];
    let check = CheckConfig {
        seeds: 3,
        knobs: knobs.iter().map(|s| s.to_string()).collect(),
        trace: seed.is_multiple_of(5),
        ..CheckConfig::default()
    };
    (gen, check)
}

#[test]
fn random_programs_keep_verifier_and_results() {
    let count = env_u64("COPYSCOPE_RANDOM_PROGRAMS", 200);
    let first = env_u64("COPYSCOPE_RANDOM_SEED", 0);
    let start = Instant::now();
    let mut seen: BTreeMap<Op, u64> = BTreeMap::new();
    let (mut insts, mut runs_ok, mut runs_failed, mut steps) = (0usize, 0u64, 0u64, 0usize);
    let mut failures = Vec::new();
    for seed in first..first + count {
        let (gcfg, ccfg) = configs(seed);
        let g = generate(seed, &gcfg);
        let f = &g.module.functions[0];
        for (_, i) in f.all_insts() {
            if let Opcode::Known(op) = f.insts[i].opcode {
                *seen.entry(op).or_default() += 1;
            }
            insts += 1;
        }
        match check(f, &ccfg) {
            Ok(r) => {
                runs_ok += r.runs_ok as u64;
                runs_failed += r.runs_failed as u64;
                steps += r.steps;
            }
            Err(e) => {
                eprintln!(
                    "FAILED seed {seed} (knobs {:?}; rerun: COPYSCOPE_RANDOM_SEED={seed} \
                     COPYSCOPE_RANDOM_PROGRAMS=1)\n{e}\n--- program ---\n{}",
                    ccfg.knobs, g.text
                );
                if env_u64("COPYSCOPE_RANDOM_REDUCE", 0) == 1 {
                    let stage = e.stage;
                    let small = reduce(f, &ccfg, |x| x.stage == stage);
                    let again = check(&small, &ccfg).unwrap_err();
                    eprintln!(
                        "--- reduced ({} instructions) ---\n{}\n{again}",
                        small.all_insts().count(),
                        compiler_core::mir::print_function(&small)
                    );
                }
                failures.push(seed);
                if failures.len() as u64 >= env_u64("COPYSCOPE_RANDOM_MAX_FAILURES", 5) {
                    break;
                }
            }
        }
    }
    println!(
        "{count} random programs from seed {first}: {insts} instructions, {runs_ok} interpreter \
         runs completed, {runs_failed} failed alike before and after, {steps} trace steps \
         replayed, {:.1}s",
        start.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "failing seeds: {failures:?}");
    assert!(
        runs_failed * 10 <= runs_ok + runs_failed,
        "too many runs fail on the input itself"
    );
    if count >= 200 {
        let missing: Vec<&str> = Op::all()
            .iter()
            .filter(|&&op| has_semantics(op) && !seen.contains_key(&op))
            .map(|op| op.name())
            .collect();
        assert!(missing.is_empty(), "opcodes never generated: {missing:?}");
    }
}
