//! Both coalescers keep what a kernel computes and leave a verifier-clean function:
//! every corpus 4-twoaddr.mir function and every gallery example (after two-address)
//! runs through the interpreter before and after each coalescer on random inputs.
//! Functions using an opcode without interpreter semantics are skipped and listed.

use compiler_core::interp::{self, Config};
use compiler_core::mir::verify::{verify, VerifyLevel};
use compiler_core::mir::{parse_module, Function};
use compiler_core::passes::nvptx_coalescer::{self, NvptxCoalescerOptions};
use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::trace::NoTrace;
use std::path::Path;

fn config() -> Config {
    Config {
        fuel: 250_000,
        ..Config::default()
    }
}

fn agree(label: &str, before: &Function, after: &Function, ir: Option<&str>) {
    let ag = interp::compare(before, after, ir, 0..30, &config())
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert!(ag.all_agree(), "{label}: {ag}");
    let errs = verify(after, VerifyLevel::PostCoalesce);
    assert!(errs.is_empty(), "{label}: verifier: {errs:?}");
}

fn both(label: &str, f: &Function, ir: Option<&str>) {
    let mut g = f.clone();
    register_coalescer::run(
        &mut g,
        &CoalescerOptions::default(),
        &mut NoTrace::default(),
    );
    agree(&format!("{label} register-coalescer"), f, &g, ir);
    let mut h = g.clone();
    nvptx_coalescer::run(
        &mut h,
        &NvptxCoalescerOptions::default(),
        &mut NoTrace::default(),
    );
    agree(&format!("{label} nvptx-coalescer"), &g, &h, ir);
}

#[test]
fn corpus_functions_keep_their_results() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("4-twoaddr.mir").exists())
        .collect();
    cases.sort();
    let (mut checked, mut skipped) = (0, Vec::new());
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let m =
            parse_module(&std::fs::read_to_string(case.join("4-twoaddr.mir")).unwrap()).unwrap();
        for f in &m.functions {
            if let Some(why) = interp::check(f) {
                skipped.push(format!("{name}/{}: {why}", f.name));
                continue;
            }
            both(&format!("{name}/{}", f.name), f, m.ir.as_deref());
            checked += 1;
        }
    }
    println!("checked {checked}; skipped:\n  {}", skipped.join("\n  "));
    assert!(checked >= 11, "{checked}");
}

#[test]
fn gallery_examples_keep_their_results() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("gallery");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mir"))
        .collect();
    files.sort();
    let mut checked = 0;
    for p in files {
        let m = parse_module(&std::fs::read_to_string(&p).unwrap()).unwrap();
        for f in &m.functions {
            let mut g = f.clone();
            compiler_core::passes::phi_elim::run(
                &mut g,
                &Default::default(),
                &mut NoTrace::default(),
            );
            two_address::run(
                &mut g,
                &TwoAddressOptions::default(),
                &mut NoTrace::default(),
            );
            both(
                &p.file_stem().unwrap().to_string_lossy(),
                &g,
                m.ir.as_deref(),
            );
            checked += 1;
        }
    }
    assert!(checked >= 19);
}
