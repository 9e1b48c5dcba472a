//! The verifier accepts every corpus file at the stage llc-22 wrote it.

mod common;

use compiler_core::mir::{print_with_errors, verify, VerifyLevel};

fn accepts(file: &str, level: VerifyLevel) -> usize {
    let mut n = 0;
    let mut failures = String::new();
    for (case, m) in common::stage_files(file) {
        for f in &m.functions {
            n += 1;
            let errs = verify(f, level);
            if !errs.is_empty() {
                failures.push_str(&format!(
                    "{case}/{file} {} at {}:\n{}\n",
                    f.name,
                    level.name(),
                    print_with_errors(f, &errs)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
    n
}

#[test]
fn isel_output_is_ssa() {
    assert!(accepts("1-isel.mir", VerifyLevel::Ssa) >= 18);
}

#[test]
fn before_phi_elimination_is_ssa() {
    assert!(accepts("2-pre-phielim.mir", VerifyLevel::Ssa) >= 15);
}

#[test]
fn after_phi_elimination() {
    assert!(accepts("3-pre-twoaddr.mir", VerifyLevel::PostPhiElim) >= 18);
    assert!(accepts("3b-phielim-runpass.mir", VerifyLevel::PostPhiElim) >= 15);
}

#[test]
fn after_two_address() {
    assert!(accepts("4-twoaddr.mir", VerifyLevel::PostTwoAddress) >= 18);
}

#[test]
fn after_register_coalescer() {
    assert!(accepts("5-coalesced.mir", VerifyLevel::PostTwoAddress) >= 18);
    assert!(accepts("5-coalesced.mir", VerifyLevel::PostCoalesce) >= 18);
    assert!(accepts("5b-coalesced-pipeline.mir", VerifyLevel::PostCoalesce) >= 18);
}
