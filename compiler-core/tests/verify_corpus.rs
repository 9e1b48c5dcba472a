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

/// DESIGN: the verifier runs after every pass. PHI elimination on every SSA corpus
/// function, two-address on every post-PHI-elimination one and on the gallery (tuple
/// classes, multi-pair EXTRACT_SUBREG, REG_SEQUENCE, INSERT_SUBREG): the outputs pass
/// at the next level.
#[test]
fn pass_outputs_verify_at_the_next_level() {
    use compiler_core::passes::phi_elim::{self, PhiElimOptions};
    use compiler_core::passes::two_address::{self, TwoAddressOptions};
    use compiler_core::trace::NoTrace;
    let mut failures = String::new();
    let mut check = |what: &str, f: &compiler_core::mir::Function, level: VerifyLevel| {
        let errs = verify(f, level);
        if !errs.is_empty() {
            failures.push_str(&format!(
                "{what} at {}:\n{}\n",
                level.name(),
                print_with_errors(f, &errs)
            ));
        }
    };
    let mut runs = 0;
    for (case, m) in common::stage_files("2-pre-phielim.mir") {
        for f in &m.functions {
            let mut g = f.clone();
            phi_elim::run(&mut g, &PhiElimOptions::default(), &mut NoTrace::default());
            check(
                &format!("{case}/{} after phi-elimination", f.name),
                &g,
                VerifyLevel::PostPhiElim,
            );
            runs += 1;
        }
    }
    let mut inputs = common::stage_files("3-pre-twoaddr.mir");
    let gallery = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("gallery");
    let mut names: Vec<_> = std::fs::read_dir(&gallery)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mir"))
        .collect();
    names.sort();
    for p in names {
        let mut m =
            compiler_core::mir::parse_module(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let name = format!("gallery/{}", p.file_name().unwrap().to_string_lossy());
        for f in &mut m.functions {
            // Examples that start in SSA with PHIs are checked there, then lowered.
            if !f.props.no_phis {
                check(&name, f, VerifyLevel::Ssa);
                compiler_core::passes::phi_elim::run(
                    f,
                    &Default::default(),
                    &mut NoTrace::default(),
                );
            }
            check(&name, f, VerifyLevel::PostPhiElim);
        }
        inputs.push((name, m));
    }
    for (case, m) in inputs {
        for f in &m.functions {
            let mut g = f.clone();
            two_address::run(
                &mut g,
                &TwoAddressOptions::default(),
                &mut NoTrace::default(),
            );
            check(
                &format!("{case}/{} after two-address", f.name),
                &g,
                VerifyLevel::PostTwoAddress,
            );
            runs += 1;
        }
    }
    assert!(failures.is_empty(), "{failures}");
    assert!(runs >= 15 + 18 + 13, "{runs}");
}
