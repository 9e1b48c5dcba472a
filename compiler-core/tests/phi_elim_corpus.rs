//! `phi-elimination` on llc-22's 2-pre-phielim.mir gives llc-22's 3-pre-twoaddr.mir,
//! body for body, kill flags and new register numbers included.

use compiler_core::mir::{parse_module, print_module};
use compiler_core::passes::phi_elim::{self, PhiElimOptions};
use compiler_core::trace::NoTrace;
use std::path::Path;

fn body_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut on = false;
    for l in text.lines() {
        if l.starts_with("body:") {
            on = true;
        } else if l == "..." || l.starts_with("---") {
            on = false;
        } else if on && !l.trim().is_empty() {
            out.push(l.trim().to_string());
        }
    }
    out
}

#[test]
fn matches_llc_on_every_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("2-pre-phielim.mir").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 13);
    let mut report = Vec::new();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let mut m = parse_module(&std::fs::read_to_string(case.join("2-pre-phielim.mir")).unwrap())
            .unwrap();
        let mut phis = 0;
        for f in &mut m.functions {
            phis += phi_elim::run(f, &PhiElimOptions::default(), &mut NoTrace::default())
                .get("phis_lowered");
        }
        let got = body_lines(&print_module(&m));
        let want = body_lines(&std::fs::read_to_string(case.join("3-pre-twoaddr.mir")).unwrap());
        let diffs: Vec<String> = got
            .iter()
            .zip(&want)
            .filter(|(a, b)| a != b)
            .map(|(a, b)| format!("  ours: {a}\n  llc:  {b}"))
            .collect();
        assert!(
            diffs.is_empty() && got.len() == want.len(),
            "{name}:\n{}\n--- ours\n{}",
            diffs.join("\n"),
            got.join("\n")
        );
        report.push(format!("{name:<16} identical, {phis} PHIs lowered"));
    }
    println!("{}", report.join("\n"));
}
