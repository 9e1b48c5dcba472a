//! The LiveVariables two-address maintains equals LiveVariables recomputed from scratch
//! on its output: on every gallery example, every corpus MIR function (LLVM's NVPTX
//! tests in `llvm-nvptx/` included, as make.sh's `pre-phielim.mir` when llc-22 is
//! present) and 1,000 distinct random programs, under the default knobs, `optnone` and
//! `twoaddr-reschedule=false`.
//!
//! A function with PHIs goes through PHI elimination first and two-address continues
//! on the analysis PHI elimination kept (as in LLVM's pipeline); one without starts
//! from the analysis computed on its input.

use compiler_core::entity::EntityRef;
use compiler_core::liveness::LiveVariables;
use compiler_core::mir::{parse_module, print_function, Function, Inst, Op};
use compiler_core::passes::phi_elim::{self, PhiElimOptions};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::testgen::{generate, GenConfig, OpSet};
use compiler_core::trace::NoTrace;
use std::collections::{HashMap, HashSet};
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

mod support;

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

/// make.sh's `pre-phielim.mir` of every LLVM NVPTX test llc-22 compiled (none without
/// llc-22).
fn llvm_nvptx_files() -> Vec<std::path::PathBuf> {
    let Some(llc) = support::llc::llc() else {
        eprintln!("llc-22 not found: llvm-nvptx skipped");
        return Vec::new();
    };
    support::llc::llvm_nvptx(llc)
        .iter()
        .filter_map(|c| c.file("pre-phielim.mir"))
        .collect()
}

#[test]
fn maintained_equals_recomputed_on_llvm_nvptx() {
    let mut failures = Vec::new();
    let (mut checked, mut files) = (0, 0);
    for path in llvm_nvptx_files() {
        let Ok(m) = parse_module(&std::fs::read_to_string(&path).unwrap()) else {
            continue; // llvm_nvptx_ptx.rs lists what we cannot read
        };
        files += 1;
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
    eprintln!("llvm-nvptx: {files} files, {checked} runs");
    assert!(
        support::llc::llc().is_none() || files >= 100,
        "only {files} llvm-nvptx files read"
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
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

/// 1,000 distinct random programs (sizes 12 to 120, both dialects the generator draws,
/// every row it can write), each under the three option sets.
#[test]
fn maintained_equals_recomputed_on_random_programs() {
    let mut failures = Vec::new();
    let mut seen = HashSet::new();
    let mut seed = 0u64;
    while seen.len() < 1000 && seed < 2000 {
        let cfg = GenConfig {
            size: [12, 25, 40, 70, 120][(seed % 5) as usize],
            ops: if seed.is_multiple_of(3) {
                OpSet::All
            } else {
                OpSet::Interpretable
            },
            ..GenConfig::default()
        };
        let g = generate(seed, &cfg);
        seed += 1;
        let f = &g.module.functions[0];
        if !seen.insert(print_function(f)) {
            continue;
        }
        for (knobs, opts) in option_sets() {
            if let Err(e) = check(&format!("seed {} [{knobs}]", seed - 1), f, &opts) {
                failures.push(e);
            }
        }
        if failures.len() >= 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(seen.len(), 1000, "distinct programs from {seed} seeds");
}

/// Random program 968, minimized: a register defined only by IMPLICIT_DEF, read by a PHI
/// and a tied use. PHI elimination knows it dies at the tied use (no flag says so, as in
/// llc-22); the COPY two-address puts in front must take that kill over.
#[test]
fn implicit_def_phi_source_read_by_a_tied_use() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/two_address/lv_implicit_def_phi_tied.mir");
    let m = parse_module(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for (knobs, opts) in option_sets() {
        check(
            &format!("lv_implicit_def_phi_tied [{knobs}]"),
            &m.functions[0],
            &opts,
        )
        .unwrap();
    }
}
