//! The LiveVariables two-address maintains equals LiveVariables recomputed from scratch
//! on its output: on every gallery example, every corpus MIR function and random
//! programs, under the default knobs, `optnone` and `twoaddr-reschedule=false`.
//!
//! A function with PHIs goes through PHI elimination first and two-address continues
//! on the analysis PHI elimination kept (as in LLVM's pipeline); one without starts
//! from the analysis computed on its input.

use compiler_core::entity::EntityRef;
use compiler_core::liveness::LiveVariables;
use compiler_core::mir::{parse_module, print_function, Function, Inst, Op};
use compiler_core::passes::phi_elim::{self, PhiElimOptions};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::testgen::{generate, GenConfig};
use compiler_core::trace::NoTrace;
use std::collections::HashMap;
use std::path::Path;

fn option_sets() -> Vec<(&'static str, TwoAddressOptions)> {
    vec![
        ("default", TwoAddressOptions::default()),
        (
            "optnone",
            TwoAddressOptions {
                optnone: true,
                ..Default::default()
            },
        ),
        (
            "no-reschedule",
            TwoAddressOptions {
                reschedule: false,
                ..Default::default()
            },
        ),
    ]
}

/// Differences between the maintained and the recomputed analysis, one line each.
fn compare(f: &Function, kept: &LiveVariables, fresh: &LiveVariables) -> Vec<String> {
    let pos: HashMap<Inst, usize> = f
        .all_insts()
        .enumerate()
        .map(|(k, (_, i))| (i, k))
        .collect();
    let norm = |l: &[Inst]| {
        let mut v: Vec<String> = l
            .iter()
            .map(|i| match pos.get(i) {
                Some(p) => format!("#{p}"),
                None => format!("erased inst {}", i.index()),
            })
            .collect();
        v.sort();
        v
    };
    let mut out = Vec::new();
    for v in f.vreg_list() {
        let empty = Default::default();
        let k = kept.vars.get(v).unwrap_or(&empty);
        let r = fresh.vars.get(v).unwrap_or(&empty);
        let kb: Vec<_> = k.alive_blocks.iter().collect();
        let rb: Vec<_> = r.alive_blocks.iter().collect();
        if norm(&k.kills) != norm(&r.kills) || norm(&k.defs) != norm(&r.defs) || kb != rb {
            out.push(format!(
                "%{}: kept kills {:?} defs {:?} alive {:?}; recomputed kills {:?} defs {:?} alive {:?}",
                v.index(),
                norm(&k.kills),
                norm(&k.defs),
                kb,
                norm(&r.kills),
                norm(&r.defs),
                rb
            ));
        }
    }
    out
}

/// Runs PHI elimination (when there are PHIs) and two-address, then compares.
fn check(name: &str, f: &Function, opts: &TwoAddressOptions) -> Result<(), String> {
    let mut g = f.clone();
    let has_phis = g.all_insts().any(|(_, i)| g.insts[i].is(Op::PHI));
    let given = if has_phis {
        let (_, lv) = phi_elim::run_keeping_live_variables(
            &mut g,
            &PhiElimOptions::default(),
            &mut NoTrace::default(),
        );
        Some(lv)
    } else {
        None
    };
    let r = two_address::run_with_live_variables(&mut g, opts, &mut NoTrace::default(), given);
    let kept = r.live_variables.expect("the pass had LiveVariables");
    let diffs = compare(&g, &kept, &LiveVariables::compute(&g));
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{name}:\n{}\n--- output ---\n{}",
            diffs.join("\n"),
            print_function(&g)
        ))
    }
}

fn mir_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root.join("../../shared/corpus")).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "mir") {
                    out.push(f);
                }
            }
        }
    }
    for f in std::fs::read_dir(root.join("gallery")).unwrap() {
        let f = f.unwrap().path();
        if f.extension().is_some_and(|e| e == "mir") {
            out.push(f);
        }
    }
    out.sort();
    out
}

#[test]
fn maintained_equals_recomputed_on_gallery_and_corpus() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in mir_files() {
        let m = parse_module(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for f in &m.functions {
            for (knobs, opts) in option_sets() {
                let name = format!("{} {} [{knobs}]", path.display(), f.name);
                if let Err(e) = check(&name, f, &opts) {
                    failures.push(e);
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 300, "{checked} runs");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn maintained_equals_recomputed_on_random_programs() {
    let mut failures = Vec::new();
    for seed in 0..150u64 {
        let cfg = GenConfig {
            size: [12, 25, 40, 70][(seed % 4) as usize],
            ..GenConfig::default()
        };
        let g = generate(seed, &cfg);
        let f = &g.module.functions[0];
        for (knobs, opts) in option_sets() {
            if let Err(e) = check(&format!("seed {seed} [{knobs}]"), f, &opts) {
                failures.push(e);
            }
        }
        if failures.len() >= 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
