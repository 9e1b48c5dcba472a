//! `cssa-coalesce`: PHI operands whose ranges never meet the PHI's def share its
//! register before PHI elimination, so fewer COPYs appear — and results stay the same.

use compiler_core::interp::{self, Config};
use compiler_core::mir::{parse_module, Function, Op};
use compiler_core::passes::phi_elim::{self, PhiElimOptions};
use compiler_core::trace::{NoTrace, Player, StepLog};
use std::path::Path;

fn copies(f: &Function) -> usize {
    f.all_insts()
        .filter(|&(_, i)| f.insts[i].is(Op::COPY))
        .count()
}

#[test]
fn fewer_copies_same_results() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = [
        dir.join("gallery/phi-loop.mir"),
        dir.join("gallery/phi-swap.mir"),
        dir.join("../../shared/corpus/cu_reduce/2-pre-phielim.mir"),
        dir.join("../../shared/corpus/ll_phi_loop/2-pre-phielim.mir"),
    ];
    let mut merged_total = 0;
    for p in files {
        let m = parse_module(&std::fs::read_to_string(&p).unwrap()).unwrap();
        for f in &m.functions {
            let (mut plain, mut cssa) = (f.clone(), f.clone());
            phi_elim::run(
                &mut plain,
                &PhiElimOptions::default(),
                &mut NoTrace::default(),
            );
            let mut log = StepLog::default();
            let s = phi_elim::run(
                &mut cssa,
                &PhiElimOptions {
                    cssa_coalesce: true,
                    ..Default::default()
                },
                &mut log,
            );
            merged_total += s.get("cssa_merged");
            assert!(copies(&cssa) <= copies(&plain), "{}", f.name);
            let ag = interp::compare(
                f,
                &cssa,
                m.ir.as_deref(),
                0..30,
                &Config {
                    fuel: 250_000,
                    ..Config::default()
                },
            )
            .unwrap();
            assert!(ag.all_agree(), "{} {}: {ag}", p.display(), f.name);
            let replay = Player::new(f, &log.steps)
                .unwrap()
                .seek(log.steps.len())
                .unwrap();
            assert_eq!(
                compiler_core::mir::print_function(&replay),
                compiler_core::mir::print_function(&cssa)
            );
        }
    }
    assert!(merged_total > 0);
}

/// `cssa-verbosity` decides which steps the trace keeps (0: one summary, 1: one per
/// PHI, 2: one per renamed register too) and `dump-before-cssa` adds the IR snapshot;
/// at every level the steps replay to the same function.
#[test]
fn verbosity_and_dump_shape_the_trace() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/ll_phi_loop/2-pre-phielim.mir");
    let m = parse_module(&std::fs::read_to_string(&p).unwrap()).unwrap();
    let f = &m.functions[0];
    let kinds = |verbosity: u32, dump: bool| {
        let mut g = f.clone();
        let mut log = StepLog::default();
        phi_elim::run(
            &mut g,
            &PhiElimOptions {
                cssa_coalesce: true,
                cssa_verbosity: verbosity,
                dump_before_cssa: dump,
                ..Default::default()
            },
            &mut log,
        );
        let replay = Player::new(f, &log.steps)
            .unwrap()
            .seek(log.steps.len())
            .unwrap();
        assert_eq!(
            compiler_core::mir::print_function(&replay),
            compiler_core::mir::print_function(&g)
        );
        let ks: Vec<String> = log
            .steps
            .iter()
            .map(|s| s.kind.to_string())
            .filter(|k| k.starts_with("cssa"))
            .collect();
        (ks, log)
    };
    let (v0, _) = kinds(0, false);
    assert_eq!(v0, ["cssa_done"]);
    let (v1, _) = kinds(1, false);
    assert!(v1.contains(&"cssa_phi_removed".to_string()), "{v1:?}");
    assert!(v1.contains(&"cssa_phi_kept".to_string()), "{v1:?}");
    assert!(!v1.contains(&"cssa_merge".to_string()), "{v1:?}");
    let (v2, _) = kinds(2, false);
    assert!(v2.contains(&"cssa_merge".to_string()), "{v2:?}");
    assert!(v2.len() > v1.len());
    let (d, log) = kinds(1, true);
    assert_eq!(d[0], "cssa_dump");
    let snap = log.steps.iter().find(|s| s.kind == "cssa_dump").unwrap();
    let text = serde_json::to_string(&*snap.payload).unwrap();
    assert!(text.contains("PHI"), "{text}");
}

/// deSSA on a loop that swaps two registers every iteration: the back edge's parallel
/// copy is a cycle, broken through one fresh register; the values stay the same, the
/// trace replays, and the pipeline ends with no more COPYs than by LowerPHINode.
#[test]
fn dessa_breaks_a_swap_cycle() {
    let text = r#"---
name:            swap_loop
tracksRegLiveness: true
registers:
  - { id: 0, class: b32 }
  - { id: 1, class: b32 }
  - { id: 2, class: b32 }
  - { id: 3, class: b32 }
  - { id: 4, class: b32 }
  - { id: 5, class: b1 }
  - { id: 10, class: b64 }
  - { id: 12, class: b32 }
  - { id: 13, class: b32 }
  - { id: 14, class: b32 }
body:             |
  bb.0.entry:
    successors: %bb.1(0x80000000)

    %10:b64 = LD_i64 0, 0, 101, 3, 64, -1, &swap_loop_param_0, 0 :: (dereferenceable invariant load (s64), addrspace 101)
    %12:b32 = LD_i32 0, 0, 101, 3, 32, -1, &swap_loop_param_1, 0 :: (dereferenceable invariant load (s32), addrspace 101)
    %13:b32 = MOV_B32_i 7
    %14:b32 = MOV_B32_i 0

  bb.1.loop:
    successors: %bb.1(0x7c000000), %bb.2(0x04000000)

    %0:b32 = PHI %12, %bb.0, %1, %bb.1
    %1:b32 = PHI %13, %bb.0, %0, %bb.1
    %2:b32 = PHI %14, %bb.0, %3, %bb.1
    %4:b32 = SUB32rr %0, %1
    %3:b32 = ADD32ri %2, 1
    %5:b1 = SETP_i32ri %3, 9, 2
    CBranch %5, %bb.1
    GOTO %bb.2

  bb.2.exit:
    ST_i32 %4, 0, 0, 1, 32, %10, 0 :: (store (s32), addrspace 1)
    Return
...
"#;
    let m = parse_module(text).unwrap();
    let f = &m.functions[0];
    let mut g = f.clone();
    let mut log = StepLog::default();
    let s = phi_elim::run(
        &mut g,
        &PhiElimOptions {
            use_dessa: true,
            ..Default::default()
        },
        &mut log,
    );
    assert_eq!(s.get("dessa_phis_lowered"), 3);
    assert_eq!(s.get("dessa_cycle_temps"), 1, "the swap is one cycle");
    // Entry edge: three copies; back edge: the temp, then two copies and the counter.
    assert_eq!(s.get("dessa_copies"), 7);
    let replay = Player::new(f, &log.steps)
        .unwrap()
        .seek(log.steps.len())
        .unwrap();
    assert_eq!(
        compiler_core::mir::print_function(&replay),
        compiler_core::mir::print_function(&g)
    );
    let ag = interp::compare(f, &g, m.ir.as_deref(), 0..30, &Config::default()).unwrap();
    assert!(ag.all_agree() && ag.agreed >= 20, "{ag}");
    let mut plain = f.clone();
    phi_elim::run(
        &mut plain,
        &PhiElimOptions::default(),
        &mut NoTrace::default(),
    );
    assert!(
        copies(&g) <= copies(&plain),
        "{} vs {}",
        copies(&g),
        copies(&plain)
    );
}
