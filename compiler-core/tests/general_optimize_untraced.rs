//! Untraced GeneralOptimize runs take shortcuts a traced run does not: phase 37 walks a
//! block once for promotion and marking together, and apply-changes skips its dead-code
//! walk when the marking walk found nothing dead and nothing changed since. Traced, the
//! walks stay apart so the trace shows them in the phase's order.
//!
//! This test runs the six instances traced and untraced on the same inputs and requires
//! the same printed ORI and the same statistics after every instance: every corpus PTX
//! file, the gallery's PTX examples, random programs through ptx-emit, and the
//! synthetic bench families at a small size, under several knob sets (SM generations
//! 5, 7 and 9, the conservative float tier, a spent option-464 budget).

mod support;

use support::ptx_files;

use support::ori::PHASES;

use compiler_core::knobs::Knobs;
use compiler_core::mir::parse_module;
use compiler_core::ori;
use compiler_core::passes::ptx_emit::{self, PtxEmitOptions};
use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
use compiler_core::pipeline::{self, parse_input, plan, run_stage, InputFormat, Ir, RunOptions};
use compiler_core::ptx;
use compiler_core::ptxas::general_optimize::{self as go, Options};
use compiler_core::stages::{IrKind, Stage};
use compiler_core::stats::Stats;
use compiler_core::testgen::synthetic::FAMILIES;
use compiler_core::testgen::{generate, GenConfig};
use compiler_core::trace::{NoTrace, StepLog};

const KNOB_SETS: [&str; 4] = [
    "sm=sm_90",
    "sm=sm_50",
    "sm=sm_70 limit-fold-fp=true",
    "sm=sm_90 ptxas-option-464=1",
];

fn knobs(set: &str) -> Knobs {
    let mut k = Knobs::default();
    for kv in set.split_whitespace() {
        k.set_from_str(kv).unwrap();
    }
    k
}

/// Runs the six instances on `m` traced and untraced; panics at the first instance
/// where the two differ, or where the ORI verifier finds a broken rule. Adds the untraced statistics to `totals`.
fn compare(name: &str, m: &ori::Module, totals: &mut Stats) {
    for set in KNOB_SETS {
        let k = knobs(set);
        let (mut traced, mut untraced) = (m.clone(), m.clone());
        for phase in PHASES {
            let opts = Options::from_knobs(phase, &k);
            let a = go::run_module(&mut traced, &opts, &mut StepLog::default());
            let b = go::run_module(&mut untraced, &opts, &mut NoTrace::default());
            let n = phase.number();
            assert_eq!(a, b, "{name} [{set}] phase {n}: statistics differ");
            let (ta, tb) = (ori::print::print(&traced), ori::print::print(&untraced));
            if ta != tb {
                let line = ta
                    .lines()
                    .zip(tb.lines())
                    .position(|(x, y)| x != y)
                    .unwrap_or(0);
                panic!(
                    "{name} [{set}] phase {n}: printed ORI differs first at line {}:\n  traced:   {}\n  untraced: {}",
                    line + 1,
                    ta.lines().nth(line).unwrap_or(""),
                    tb.lines().nth(line).unwrap_or("")
                );
            }
            let errors = ori::verify::verify_module(&untraced);
            assert!(
                errors.is_empty(),
                "{name} [{set}] phase {n}: ORI verifier: {errors:#?}"
            );
            totals.merge(&b);
        }
    }
}

fn lower(text: &str) -> Option<ori::Module> {
    let p = ptx::parse(text).ok()?;
    ptx_lower::run(&p, &PtxLowerOptions::default(), &mut NoTrace::default())
        .ok()
        .map(|(m, _)| m)
}

#[test]
fn traced_and_untraced_runs_leave_the_same_ori_and_stats() {
    let mut totals = Stats::default();
    let mut inputs = 0;

    for file in ptx_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let m = lower(&text).unwrap_or_else(|| panic!("{} does not lower", file.display()));
        compare(&file.display().to_string(), &m, &mut totals);
        inputs += 1;
    }

    for ex in compiler_core::examples::EXAMPLES {
        for &(format, text) in ex.forms {
            if format == InputFormat::Ptx {
                let m = lower(text).unwrap_or_else(|| panic!("{} does not lower", ex.name));
                compare(ex.name, &m, &mut totals);
                inputs += 1;
            }
        }
    }

    let until = RunOptions {
        until: Some(Stage::NvptxCoalescer),
        emit: Some(IrKind::Mir),
        ..RunOptions::default()
    };
    for seed in 0..130u64 {
        let g = generate(
            seed,
            &GenConfig {
                size: [12, 25, 40, 70][(seed % 4) as usize],
                ..GenConfig::default()
            },
        );
        let r = pipeline::run(&g.text, &until).unwrap();
        let m = parse_module(&r.output).unwrap();
        let Ok((p, _)) = ptx_emit::run(&m, &PtxEmitOptions::default(), &mut NoTrace::default())
        else {
            continue;
        };
        let (o, _) =
            ptx_lower::run(&p, &PtxLowerOptions::default(), &mut NoTrace::default()).unwrap();
        compare(&format!("random program {seed}"), &o, &mut totals);
        inputs += 1;
    }

    for &(family, make) in FAMILIES {
        let (_, mut ir, _) = parse_input(&make(300), None).unwrap();
        let entry = pipeline::entry_stage(&ir);
        for stage in plan(entry, &RunOptions::default()).unwrap() {
            if let Ir::Ori(m) = &ir {
                compare(&format!("{family} 300"), m, &mut totals);
                inputs += 1;
                break;
            }
            run_stage(stage, &mut ir, &Knobs::default(), false).unwrap();
        }
    }

    eprintln!(
        "{inputs} inputs × {} knob sets; untraced totals {totals:?}",
        KNOB_SETS.len()
    );
    // The inputs reach every shortcut and the rewrites around it.
    for key in [
        "promoted_loads",
        "uses_replaced",
        "selects_folded",
        "dead_removed",
        "marked_0x400",
    ] {
        assert!(totals.get(key) > 0, "no input reached {key}: {totals:?}");
    }
    assert!(inputs >= 150, "only {inputs} inputs");
}
