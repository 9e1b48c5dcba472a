//! `two-address` on llc-22's 3-pre-twoaddr.mir gives llc-22's 4-twoaddr.mir.
//!
//! `llc-22 -run-pass=twoaddressinstruction` runs without LiveVariables, so the
//! comparison runs our pass the same way (`live_variables: false`): kills are dropped,
//! not moved. The full-pipeline behaviour (kills moved onto the COPYs) is checked
//! against the `print-after` dump separately.

use compiler_core::mir::{parse_module, print_module, Target};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::trace::NoTrace;
use std::path::Path;

fn corpus() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

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
fn matches_llc_run_pass_on_every_case() {
    let mut table = Vec::new();
    let mut cases: Vec<_> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("4-twoaddr.mir").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 14);
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let input = std::fs::read_to_string(case.join("3-pre-twoaddr.mir")).unwrap();
        let expected = std::fs::read_to_string(case.join("4-twoaddr.mir")).unwrap();
        let mut m = parse_module(&input).unwrap();
        if m.functions.iter().any(|f| f.target == Target::Foreign) && name.contains("x86") {
            // x86's ties live in its instruction descriptors (ADD32rr's operand 1 is tied
            // to its def without any `tied-def` in the text); we model NVPTX's table only.
            table.push(format!(
                "{name:<24} skipped: x86 descriptor ties are not modelled"
            ));
            continue;
        }
        let mut copies = 0;
        for f in &mut m.functions {
            let opts = TwoAddressOptions {
                live_variables: false,
                ..Default::default()
            };
            let s = two_address::run(f, &opts, &mut NoTrace::default());
            copies += s.get("copies_inserted")
                + s.get("extract_subreg_copies")
                + s.get("reg_sequence_eliminated");
        }
        let got = body_lines(&print_module(&m));
        let want = body_lines(&expected);
        let diffs: Vec<String> = got
            .iter()
            .zip(&want)
            .filter(|(a, b)| a != b)
            .map(|(a, b)| format!("  ours: {a}\n  llc:  {b}"))
            .collect();
        assert_eq!(
            got.len(),
            want.len(),
            "{name}: line count\n{}",
            got.join("\n")
        );
        assert!(diffs.is_empty(), "{name}:\n{}", diffs.join("\n"));
        table.push(format!(
            "{name:<24} identical ({} lines, {copies} lowered)",
            got.len()
        ));
    }
    println!("{}", table.join("\n"));
}

/// Registers with their kill flags, in order, from instruction lines.
fn reg_tokens(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines {
        let l = l.split(" :: ").next().unwrap_or("");
        let words: Vec<&str> = l.split([' ', ',', '(']).collect();
        let mut killed = false;
        for w in words {
            if w == "killed" {
                killed = true;
                continue;
            }
            if let Some(r) = w.strip_prefix('%') {
                let n: String = r.chars().take_while(|c| c.is_ascii_digit()).collect();
                if !n.is_empty() {
                    out.push(format!("{}%{n}", if killed { "killed " } else { "" }));
                }
            }
            killed = false;
        }
        out.push(";".into());
    }
    out
}

/// With LiveVariables (the real pipeline), kills move onto the inserted COPYs exactly as
/// in llc-22's `-print-after=twoaddressinstruction` dump of the full pipeline.
#[test]
fn kill_flags_match_llc_pipeline_dump() {
    let mut checked = 0;
    for case in [
        "cu_asm_rw",
        "ll_asm_rw",
        "ll_phi_loop",
        "cu_reduce",
        "ll_tex",
        "ll_vec4",
    ] {
        let dir = corpus().join(case);
        let log = std::fs::read_to_string(dir.join("print-before-after.log")).unwrap();
        let mut m =
            parse_module(&std::fs::read_to_string(dir.join("3-pre-twoaddr.mir")).unwrap()).unwrap();
        let mut dumps = log
            .split("# *** IR Dump After Two-Address instruction pass")
            .skip(1);
        for f in &mut m.functions {
            two_address::run(f, &TwoAddressOptions::default(), &mut NoTrace::default());
            let dump = dumps.next().expect("one dump per function");
            let dump = dump.split("# End machine code").next().unwrap();
            let want: Vec<String> = dump
                .lines()
                .filter(|l| {
                    l.starts_with("  ")
                        && !l.trim().is_empty()
                        && !l.trim_start().starts_with("successors")
                        && !l.trim_start().starts_with("liveins")
                })
                .map(|l| l.trim().to_string())
                .collect();
            let got = body_lines(&compiler_core::mir::print_function(f))
                .into_iter()
                .filter(|l| {
                    !l.starts_with("bb.")
                        && !l.starts_with("successors")
                        && !l.starts_with("liveins")
                })
                .collect::<Vec<_>>();
            assert_eq!(
                reg_tokens(&got),
                reg_tokens(&want),
                "{case} {}:\nours:\n{}\nllc:\n{}",
                f.name,
                got.join("\n"),
                want.join("\n")
            );
            checked += 1;
        }
    }
    assert!(checked >= 8);
}
