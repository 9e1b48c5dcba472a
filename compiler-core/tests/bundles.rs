//! Instruction bundles: parsed, printed and walked over as LLVM does. PHI elimination
//! and two-address see a BUNDLE's header only (LLVM's bundle iterator); our output
//! after each equals llc-22's on `fixtures/bundles/bundle.mir` (whole bodies, kill flags
//! included), llc-22's verifier accepts it, and a run past two-address refuses the input
//! at the BUNDLE's line:column. Expected outputs and commands: fixtures/bundles/README.md.

mod support;

use compiler_core::mir::{parse_module, print_module};
use compiler_core::pipeline::{run, PipelineError, RunOptions};
use compiler_core::stages::Stage;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundles")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(dir().join(name)).unwrap()
}

/// The body from `body:` on, blank lines dropped (llc-22 indents them).
fn body(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("body:"))
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

fn until(stage: Stage) -> String {
    let opts = RunOptions {
        until: Some(stage),
        verify: true,
        ..RunOptions::default()
    };
    run(&read("bundle.mir"), &opts).unwrap().output
}

#[test]
fn a_bundle_prints_back_as_read() {
    let text = read("bundle.mir");
    let printed = print_module(&parse_module(&text).unwrap());
    assert!(printed.contains(
        "    BUNDLE implicit %1, implicit %2 {\n      INLINEASM &\"// use $0\", 1 /* sideeffect attdialect */, 9 /* reguse */, %1\n      INLINEASM &\"// use $0\", 1 /* sideeffect attdialect */, 9 /* reguse */, %2\n    }\n"
    ), "{printed}");
    assert_eq!(print_module(&parse_module(&printed).unwrap()), printed);
}

#[test]
fn phi_elimination_walks_over_a_bundle_as_llc22_does() {
    assert_eq!(
        body(&until(Stage::PhiElimination)),
        body(&read("bundle.llc-phielim.mir"))
    );
}

#[test]
fn two_address_walks_over_a_bundle_as_llc22_does() {
    assert_eq!(
        body(&until(Stage::TwoAddress)),
        body(&read("bundle.llc-twoaddr.mir"))
    );
}

#[test]
fn llc22_agrees_and_verifies_our_output() {
    let Some(llc) = support::llc::llc() else {
        eprintln!("llc-22 not found: skipped");
        return;
    };
    let input = read("bundle.mir");
    support::llc::verify_mir(llc, &input, "-mcpu=sm_90", "bundle input").unwrap();
    for (passes, want, stage) in [
        (
            "livevars,phi-node-elimination",
            "bundle.llc-phielim.mir",
            Stage::PhiElimination,
        ),
        (
            "livevars,phi-node-elimination,twoaddressinstruction",
            "bundle.llc-twoaddr.mir",
            Stage::TwoAddress,
        ),
    ] {
        let out = std::process::Command::new(llc)
            .args(["-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_90"])
            .arg(format!("-run-pass={passes}"))
            .arg(dir().join("bundle.mir"))
            .args(["-o", "-"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            body(&String::from_utf8_lossy(&out.stdout)),
            body(&read(want)),
            "{passes}"
        );
        let ours = until(stage);
        support::llc::verify_mir(llc, &ours, "-mcpu=sm_90", stage.id()).unwrap();
    }
}

#[test]
fn a_run_past_two_address_refuses_the_bundle_at_its_line() {
    let opts = RunOptions {
        until: Some(Stage::RegisterCoalescer),
        ..RunOptions::default()
    };
    let err = run(&read("bundle.mir"), &opts).unwrap_err();
    let PipelineError::InvalidInput(errors) = err else {
        panic!("{err:?}");
    };
    assert_eq!(errors.len(), 1);
    let line = read("bundle.mir")
        .lines()
        .position(|l| l.trim_start().starts_with("BUNDLE"))
        .unwrap() as u32
        + 1;
    assert_eq!((errors[0].line, errors[0].col), (line, 5));
    assert!(
        errors[0].message.contains("BUNDLE") && errors[0].message.contains("register-coalescer"),
        "{}",
        errors[0].message
    );
}

#[test]
fn malformed_bundles_are_errors_with_line_and_column() {
    let h = "---\nname: k\nbody: |\n  bb.0:\n";
    for (body, at, says) in [
        ("    BUNDLE {\n    Return\n", (5, 5), "never closed"),
        ("    }\n", (5, 5), "closes no instruction bundle"),
        ("    BUNDLE implicit %0\n", (5, 5), "expected `{`"),
        (
            "    BUNDLE {\n    BUNDLE {\n    }\n    }\n",
            (6, 5),
            "do not nest",
        ),
        (
            "    BUNDLE {\n  bb.1:\n    Return\n",
            (6, 3),
            "never closed",
        ),
        ("    {\n", (5, 5), "must end a `BUNDLE` line"),
    ] {
        let err = parse_module(&format!("{h}{body}...\n")).unwrap_err();
        let e = &err;
        assert_eq!((e.line, e.col), at, "{body}: {}", e.message);
        assert!(e.message.contains(says), "{body}: {}", e.message);
    }
}
