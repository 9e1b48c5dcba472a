//! Register coalescer bugs the random programs found (`tests/random_programs.rs`),
//! each reduced to a few instructions.

use compiler_core::interp::{self, Config};
use compiler_core::mir::verify::{verify, VerifyLevel};
use compiler_core::mir::{parse_module, print_function};
use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
use compiler_core::trace::NoTrace;

/// Joining `%3 = COPY %2` turns `%3.sub1 = COPY %2.sub1` into a lane copied onto
/// itself: it must go like the full self-copies do (seed 611: the verifier found
/// `dead %2.sub1 = COPY %2.sub1` after coalescing).
#[test]
fn a_join_erases_the_lane_copies_it_makes_identities() {
    let m = parse_module(
        "---
name: lane_identity
tracksRegLiveness: true
isSSA: false
noPhis: true
body: |
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &lane_identity_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &lane_identity_param_1, 0
    undef %2.sub0:b32x2 = COPY %1
    %2.sub1:b32x2 = COPY %1
    %3:b32x2 = COPY %2
    dead %3.sub1:b32x2 = COPY %2.sub1
    ST_i32 %3.sub0, 0, 0, 1, 32, %0, 0
    Return
...
",
    )
    .unwrap();
    let f = &m.functions[0];
    let mut g = f.clone();
    let stats = register_coalescer::run(
        &mut g,
        &CoalescerOptions::default(),
        &mut NoTrace::default(),
    );
    let out = print_function(&g);
    let errs = verify(&g, VerifyLevel::PostCoalesce);
    assert!(errs.is_empty(), "{errs:?}\n{out}");
    assert!(!out.contains("COPY %2.sub1"), "{out}");
    assert_eq!(stats.get("copies_after"), 2, "{out}");
    let ag = interp::compare(f, &g, None, 0..10, &Config::default()).unwrap();
    assert!(ag.all_agree(), "{ag}");
}

/// An early-clobber def's value starts at the early-clobber slot. Erasing the dead
/// `%3 = COPY %2` erases the ADD that only fed it, and the pass then asks whether
/// `%1`'s def is dead too: looking for a segment at the register slot, it found none
/// and flagged `def dead early-clobber %1`, though the store still reads `%1` (seed 27
/// of `random_programs_isa`, `fixtures/random_programs/llc22_asm_seed27.mir`, where
/// the flagged def then joined a value live across blocks and llc-22's verifier
/// refused the output). Expected: llc-22's `-run-pass=register-coalescer` on this
/// input, which prints the same body with `%4` for `%1`.
#[test]
fn an_early_clobber_def_still_read_is_not_flagged_dead() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/random_programs"
    );
    let text = std::fs::read_to_string(format!("{dir}/rc_early_clobber_dead_flag.mir")).unwrap();
    let m = parse_module(&text).unwrap();
    let mut g = m.functions[0].clone();
    register_coalescer::run(
        &mut g,
        &CoalescerOptions::default(),
        &mut NoTrace::default(),
    );
    let out = print_function(&g);
    let body = &out[out.find("body:").unwrap()..];
    assert_eq!(
        body,
        "body:             |
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &ec_param_0, 0
    INLINEASM &\"mov.u32 $0, 1;\", 0 /* attdialect */, 262155 /* regdef-ec */, def early-clobber %1
    ST_i32 %1, 0, 0, 1, 32, %0, 0
    Return
...
"
    );
    assert!(verify(&g, VerifyLevel::PostCoalesce).is_empty());
}
