//! `register-coalescer` on llc-22's 4-twoaddr.mir leaves the COPYs llc-22 leaves in
//! 5-coalesced.mir, function by function (registers compared after renaming both sides
//! in order of first appearance, since which name survives a join is immaterial).

mod support;

use compiler_core::mir::{parse_module, print_function, Function, Op};
use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
use compiler_core::trace::NoTrace;
use std::path::Path;

/// COPY lines of a function with registers renamed canonically over the whole body
/// (`support::canon`), the def's class left out.
fn canonical_copies(f: &Function) -> Vec<String> {
    support::canon::canonical_body(f)
        .into_iter()
        .filter(|l| l.contains("= COPY "))
        .map(|l| l.split(':').next().unwrap().to_string() + &l[l.find(" = COPY").unwrap()..])
        .collect()
}

#[test]
fn leaves_the_copies_llc_leaves() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("4-twoaddr.mir").exists())
        .collect();
    cases.sort();
    let mut table = vec![format!(
        "{:<22} {:<16} {:>6} {:>6} {:>6}",
        "case", "function", "before", "ours", "llc"
    )];
    let mut failures = Vec::new();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("xtra_") {
            table.push(format!("{name:<22} (skipped: physical registers and sub-register liveness of another target)"));
            continue;
        }
        let mut ours =
            parse_module(&std::fs::read_to_string(case.join("4-twoaddr.mir")).unwrap()).unwrap();
        let llc =
            parse_module(&std::fs::read_to_string(case.join("5-coalesced.mir")).unwrap()).unwrap();
        for (f, g) in ours.functions.iter_mut().zip(&llc.functions) {
            let s =
                register_coalescer::run(f, &CoalescerOptions::default(), &mut NoTrace::default());
            let (a, b) = (canonical_copies(f), canonical_copies(g));
            let llc_n = g
                .all_insts()
                .filter(|&(_, i)| g.insts[i].is(Op::COPY))
                .count();
            table.push(format!(
                "{name:<22} {:<16} {:>6} {:>6} {:>6}",
                &f.name[..f.name.len().min(16)],
                s.get("copies_before"),
                s.get("copies_after"),
                llc_n
            ));
            if a != b {
                failures.push(format!(
                    "{name} {}:\n ours: {a:?}\n llc:  {b:?}\n{}",
                    f.name,
                    print_function(f)
                ));
            }
        }
    }
    println!("{}", table.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every corpus case (untraced, a join check stops at its first conflict: the
/// decisions and the output must still be the traced run's, which lists them all).
#[test]
fn trace_replays_to_the_output_and_tracing_changes_nothing() {
    use compiler_core::trace::{Player, StepLog};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut cases: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|c| dir.join(c).join("4-twoaddr.mir").exists() && !c.starts_with("xtra_"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "{cases:?}");
    let mut conflicts = 0;
    for case in &cases {
        let m =
            parse_module(&std::fs::read_to_string(dir.join(case).join("4-twoaddr.mir")).unwrap())
                .unwrap();
        for f in &m.functions {
            let (mut a, mut b) = (f.clone(), f.clone());
            let mut log = StepLog::default();
            let s1 = register_coalescer::run(&mut a, &CoalescerOptions::default(), &mut log);
            let s2 = register_coalescer::run(
                &mut b,
                &CoalescerOptions::default(),
                &mut NoTrace::default(),
            );
            assert_eq!(s1, s2, "{case} {}", f.name);
            assert_eq!(print_function(&a), print_function(&b), "{case} {}", f.name);
            conflicts += log.steps.iter().filter(|s| s.kind == "conflict").count();
            let replayed = Player::new(f, &log.steps)
                .unwrap()
                .seek(log.steps.len())
                .unwrap();
            assert_eq!(
                print_function(&replayed),
                print_function(&a),
                "{case} {}",
                f.name
            );
            assert!(log.steps.iter().any(|s| s.kind == "join") || s1.get("copies_before") == 0);
        }
    }
    // The cases exercise refused joins, not only successful ones.
    assert!(conflicts >= 1, "no join conflicts in {cases:?}");
}

/// The knobs change the order or add checks, never the correctness: with
/// join-globalcopies, join-splitedges and verify-coalescing on, every corpus function
/// still verifies, and verify-coalescing reports its two checks.
#[test]
fn knob_variants_stay_clean() {
    use compiler_core::mir::verify::{verify, VerifyLevel};
    use compiler_core::trace::StepLog;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let opts = CoalescerOptions {
        join_globalcopies: true,
        join_splitedges: true,
        verify_coalescing: true,
        ..Default::default()
    };
    for case in ["ll_phi_loop", "cu_reduce", "ll_asm_rw"] {
        let m =
            parse_module(&std::fs::read_to_string(dir.join(case).join("4-twoaddr.mir")).unwrap())
                .unwrap();
        for f in &m.functions {
            let mut g = f.clone();
            let mut log = StepLog::default();
            let s = register_coalescer::run(&mut g, &opts, &mut log);
            assert!(verify(&g, VerifyLevel::PostCoalesce).is_empty(), "{case}");
            assert_eq!(log.steps.iter().filter(|s| s.kind == "verify").count(), 2);
            assert_eq!(s.get("verify_errors"), 0);
            assert!(s.get("copies_after") <= s.get("copies_before"));
        }
    }
}
