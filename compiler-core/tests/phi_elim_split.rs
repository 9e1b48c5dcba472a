//! PHI elimination's critical-edge splitting (LLVM's SplitPHIEdges) against llc-22 on
//! loops with several exits, nested loops, self loops, a diamond and two switches, under
//! the four combinations of `phi-elim-split-all-critical-edges` and
//! `disable-nvptx-require-structured-cfg` (fixtures and how llc-22 made them:
//! tests/phi_elim_split/README.md). Bodies are compared line by line, kill flags
//! included; branch probabilities, printed only by llc, are ignored.

mod support;

use compiler_core::knobs::Knobs;
use compiler_core::mir::{parse_module, Function};
use compiler_core::passes::phi_elim::{self, PhiElimOptions};
use compiler_core::pipeline::{phi_elim_options, run, RunOptions};
use compiler_core::stages::{IrKind, Stage};
use compiler_core::trace::NoTrace;
use std::path::PathBuf;
use support::canon::{body_diff, canonical_body};

const INPUTS: [&str; 7] = [
    "diamond_live_out",
    "loop_exit_live",
    "loop_two_exits",
    "nested_loops",
    "selfloop_live",
    "switch_phi",
    "switch_small",
];

/// (mode, knobs).
const MODES: [(&str, &[&str]); 4] = [
    ("plain", &[]),
    ("structoff", &["disable-nvptx-require-structured-cfg=true"]),
    ("splitall", &["phi-elim-split-all-critical-edges=true"]),
    (
        "both",
        &[
            "disable-nvptx-require-structured-cfg=true",
            "phi-elim-split-all-critical-edges=true",
        ],
    ),
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/phi_elim_split")
}

fn knobs(list: &[&str]) -> Knobs {
    let mut k = Knobs::default();
    for s in list {
        k.set_from_str(s).unwrap();
    }
    k
}

fn ours(name: &str, k: &Knobs) -> Vec<Function> {
    let text = std::fs::read_to_string(dir().join(format!("{name}.pre-phielim.mir"))).unwrap();
    let opts = RunOptions {
        until: Some(Stage::PhiElimination),
        emit: Some(IrKind::Mir),
        knobs: k.clone(),
        verify: true,
        ..RunOptions::default()
    };
    let r = run(&text, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
    parse_module(&r.output).unwrap().functions
}

#[test]
fn splitting_matches_llc_22_in_every_mode() {
    let mut compared = 0;
    for name in INPUTS {
        for (mode, list) in MODES {
            let want =
                std::fs::read_to_string(dir().join(format!("{name}.{mode}.llc.mir"))).unwrap();
            let want = parse_module(&want).unwrap().functions;
            let got = ours(name, &knobs(list));
            assert_eq!(got.len(), want.len());
            for (f, g) in got.iter().zip(&want) {
                assert_eq!(
                    canonical_body(f),
                    canonical_body(g),
                    "{name} {mode}:\n{}",
                    body_diff(f, g)
                );
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 28);
}

/// The splits llc-22 makes, by input and mode: the figures above hold because edges
/// were split, not because nothing happened.
#[test]
fn the_expected_edges_are_split() {
    let pre = |name: &str| {
        let t = std::fs::read_to_string(dir().join(format!("{name}.pre-phielim.mir"))).unwrap();
        parse_module(&t).unwrap().functions[0].layout.num_blocks()
    };
    let mut table = Vec::new();
    for name in INPUTS {
        let row: Vec<usize> = MODES
            .iter()
            .map(|(_, list)| ours(name, &knobs(list))[0].layout.num_blocks() - pre(name))
            .collect();
        table.push((name, row));
    }
    // Blocks added in modes plain, structoff, splitall, both (llc-22's counts).
    let want: [(&str, [usize; 4]); 7] = [
        ("diamond_live_out", [0, 1, 0, 1]),
        ("loop_exit_live", [0, 0, 1, 1]),
        ("loop_two_exits", [0, 0, 0, 0]),
        ("nested_loops", [0, 0, 2, 2]),
        ("selfloop_live", [0, 0, 1, 1]),
        ("switch_phi", [0, 0, 0, 0]),
        ("switch_small", [0, 1, 0, 1]),
    ];
    for ((name, row), (wname, wrow)) in table.iter().zip(want) {
        assert_eq!((*name, row.as_slice()), (wname, wrow.as_slice()));
    }
}

/// Mutation check, critical-edge split: with SplitPHIEdges switched off
/// (`split_edges: false`), diamond_live_out under
/// `disable-nvptx-require-structured-cfg` keeps the copy in %bb.0, where it does not
/// kill its source, instead of a new block; llc-22 splits.
#[test]
fn without_splitting_the_diamond_differs() {
    let text = std::fs::read_to_string(dir().join("diamond_live_out.pre-phielim.mir")).unwrap();
    let m = parse_module(&text).unwrap();
    let k = knobs(&["disable-nvptx-require-structured-cfg=true"]);
    let mut on = m.functions[0].clone();
    let mut off = on.clone();
    let opts = phi_elim_options(&k);
    let s_on = phi_elim::run(&mut on, &opts, &mut NoTrace::default());
    let no_split = PhiElimOptions {
        split_edges: false,
        ..opts
    };
    let s_off = phi_elim::run(&mut off, &no_split, &mut NoTrace::default());
    assert_eq!(s_on.get("critical_edges_split"), 1);
    assert_eq!(s_off.get("critical_edges_split"), 0);
    assert_eq!(on.layout.num_blocks(), off.layout.num_blocks() + 1);
    let want = std::fs::read_to_string(dir().join("diamond_live_out.structoff.llc.mir")).unwrap();
    let want = &parse_module(&want).unwrap().functions[0];
    assert_eq!(canonical_body(&on), canonical_body(want));
    assert_ne!(canonical_body(&off), canonical_body(want));
}

/// On NVPTX with the defaults, an edge LLVM would split but the structured CFG forbids
/// is reported as kept (a step and the `critical_edges_kept` counter), never split.
#[test]
fn refused_splits_are_counted() {
    let text = std::fs::read_to_string(dir().join("diamond_live_out.pre-phielim.mir")).unwrap();
    let mut f = parse_module(&text).unwrap().functions[0].clone();
    let s = phi_elim::run(&mut f, &PhiElimOptions::default(), &mut NoTrace::default());
    assert_eq!(
        (s.get("critical_edges_split"), s.get("critical_edges_kept")),
        (0, 1)
    );
}

/// A split replays: the trace of every input under `both` (the most splits) seeks to
/// the pass's own output, new blocks included (`Edit::SplitEdge`).
#[test]
fn splits_replay_from_the_trace() {
    use compiler_core::mir::print_function;
    use compiler_core::trace::{Player, StepLog};
    let k = knobs(MODES[3].1);
    for name in INPUTS {
        let text = std::fs::read_to_string(dir().join(format!("{name}.pre-phielim.mir"))).unwrap();
        let f = parse_module(&text).unwrap().functions.remove(0);
        let mut out = f.clone();
        let mut log = StepLog::default();
        phi_elim::run(&mut out, &phi_elim_options(&k), &mut log);
        let replay = Player::new(&f, &log.steps)
            .unwrap()
            .seek(log.steps.len())
            .unwrap();
        assert_eq!(print_function(&replay), print_function(&out), "{name}");
    }
}
