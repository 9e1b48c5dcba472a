//! LiveVariables reproduces llc-22's kill and dead flags: strip them from every corpus
//! 2-pre-phielim.mir function, recompute, and compare the printed bodies.

use compiler_core::liveness::LiveVariables;
use compiler_core::mir::{oflag, parse_module, print_function};
use std::path::Path;

#[test]
fn kill_flags_match_llc_on_ssa_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("2-pre-phielim.mir").exists())
        .collect();
    cases.sort();
    let mut total = 0;
    for case in &cases {
        let text = std::fs::read_to_string(case.join("2-pre-phielim.mir")).unwrap();
        let m = parse_module(&text).unwrap();
        for f in &m.functions {
            let want = print_function(f);
            let mut g = f.clone();
            let insts: Vec<_> = g.all_insts().map(|(_, i)| i).collect();
            for i in insts {
                for op in g.insts[i].operands.iter_mut() {
                    if op.vreg_of().is_some() {
                        op.set(oflag::KILL, false);
                        op.set(oflag::DEAD, false);
                    }
                }
            }
            LiveVariables::compute(&g).apply_flags(&mut g);
            let got = print_function(&g);
            let diff: Vec<String> = got
                .lines()
                .zip(want.lines())
                .filter(|(a, b)| a != b)
                .map(|(a, b)| format!("ours: {a}\nllc:  {b}"))
                .collect();
            assert!(
                diff.is_empty(),
                "{} {}:\n{}",
                case.display(),
                f.name,
                diff.join("\n")
            );
            total += 1;
        }
    }
    assert!(total >= 15, "{total} functions");
}
