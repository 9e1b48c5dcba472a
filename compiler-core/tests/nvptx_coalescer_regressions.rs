//! NVPTX coalescer bugs the random programs found (`tests/random_programs.rs`), each
//! reduced to a few instructions: the pass must keep what the kernel computes.

use compiler_core::interp::{self, Config};
use compiler_core::mir::verify::{verify, VerifyLevel};
use compiler_core::mir::{parse_module, print_function};
use compiler_core::passes::nvptx_coalescer::{self, NvptxCoalescerOptions};
use compiler_core::trace::NoTrace;

/// Runs the pass on `text` and checks the verifier and the interpreter; returns the
/// printed output.
fn coalesce_keeps_results(text: &str) -> String {
    let m = parse_module(text).unwrap();
    let f = &m.functions[0];
    let mut g = f.clone();
    nvptx_coalescer::run(
        &mut g,
        &NvptxCoalescerOptions::default(),
        &mut NoTrace::default(),
    );
    let out = print_function(&g);
    let errs = verify(&g, VerifyLevel::PostCoalesce);
    assert!(errs.is_empty(), "verifier: {errs:?}\n{out}");
    let ag = interp::compare(f, &g, None, 0..20, &Config::default()).unwrap();
    assert!(ag.all_agree(), "{ag}\n{out}");
    assert!(ag.agreed > 0, "{ag}");
    out
}

/// `%2` (live around the loop, read by the loop's compare) joins lane `%4.sub1` at
/// the copy after the loop, where it dies (their live segments do not overlap: the
/// lane is written only there). The loop's `undef %4.sub0 = COPY %1` said the other
/// lanes were dead there; after the join lane sub1 is live across it, so the flag must
/// go, or the loop would drop the value `%2` carries into the stores (seed 130's bug,
/// rebuilt for the overlap rule: the original input's `%4.sub1 = COPY %2` sat inside the
/// loop, where `%2` lives on past it, so that copy now interferes).
#[test]
fn a_lane_join_clears_undef_on_the_sibling_lane_defs_it_lives_across() {
    let out = coalesce_keeps_results(
        "---
name: undef_lane
tracksRegLiveness: true
isSSA: false
noPhis: true
body: |
  bb.0:
    successors: %bb.1

    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &undef_lane_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &undef_lane_param_1, 0
    %2:b32 = MOV_B32_i 3
    %3:b32 = MOV_B32_i 0

  bb.1:
    successors: %bb.1, %bb.2

    undef %4.sub0:b32x2 = COPY %1
    %3:b32 = ADD32ri %3, 1
    %6:b1 = SETP_i32rr %3, %2, 2
    CBranch %6, %bb.1

  bb.2:
    %4.sub1:b32x2 = COPY %2
    ST_i32 %4.sub0, 0, 0, 1, 32, %0, 0
    ST_i32 %4.sub1, 0, 0, 1, 32, %0, 4
    ST_i32 %3, 0, 0, 1, 32, %0, 8
    Return
...
",
    );
    assert!(out.contains("%4.sub1:b32x2 = MOV_B32_i 3"), "{out}");
    assert!(!out.contains("undef %4.sub0"), "{out}");
}

/// `%4 = COPY %3` copies a whole tuple, then `%4.sub0 = COPY %1` rewrites one lane
/// while `%3.sub0` is still read. `%3`'s value there comes from a lane write
/// (`%3.sub1 = COPY %1`) with the same source: that does not make the two tuples
/// equal, so they interfere (seed 355). (Two defs each keep `%1` and `%2` out of the
/// lanes.)
#[test]
fn a_partial_def_is_not_a_copy_of_its_source_for_the_whole_tuple() {
    let out = coalesce_keeps_results(
        "---
name: partial_def
tracksRegLiveness: true
isSSA: false
noPhis: true
body: |
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &partial_def_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &partial_def_param_1, 0
    %1:b32 = ADD32ri %1, 1
    %2:b32 = LD_i32 0, 0, 101, 3, 32, -1, &partial_def_param_2, 0
    %2:b32 = ADD32ri %2, 2
    undef %3.sub0:b32x2 = COPY %2
    %3.sub1:b32x2 = COPY %1
    %4:b32x2 = COPY %3
    %4.sub0:b32x2 = COPY %1
    ST_i32 %3.sub0, 0, 0, 1, 32, %0, 0
    ST_i32 %4.sub0, 0, 0, 1, 32, %0, 4
    ST_i32 %1, 0, 0, 1, 32, %0, 8
    ST_i32 %2, 0, 0, 1, 32, %0, 12
    Return
...
",
    );
    assert!(out.contains("%4:b32x2 = COPY %3"), "{out}");
}

/// `%6 = COPY %5` joins two tuples whole; `%2` may then join lane `%6.sub1` only if
/// it does not interfere with what `%5` brought, lane by lane: on the `bb.2` path the
/// texture-memory load writes both lanes while `%2` is still needed in `bb.3`. The
/// survivor's lane ranges (and their interval-tree extents) must include `%5`'s
/// (seed 1146).
#[test]
fn a_whole_tuple_join_merges_the_lane_ranges_too() {
    coalesce_keeps_results(
        "---
name: stale_lanes
tracksRegLiveness: true
isSSA: false
noPhis: true
body: |
  bb.0:
    successors: %bb.2, %bb.1

    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &stale_lanes_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &stale_lanes_param_1, 0
    %2:b32 = MOV_B32_i 16
    %3:b32 = LD_i32 0, 0, 101, 3, 32, -1, &stale_lanes_param_2, 0
    %3:b32 = ADD32ri %3, 1
    %4:b1 = SETP_i32ri %1, 20, 2
    CBranch %4, %bb.2

  bb.1:
    successors: %bb.3

    undef %5.sub0:b32x2 = COPY %3
    %5.sub1:b32x2 = COPY %2
    GOTO %bb.3

  bb.2:
    successors: %bb.3

    %5:b32x2 = TMA_LOAD_2D %0, %1

  bb.3:
    %5.sub0:b32x2 = COPY %2
    %6:b32x2 = COPY %5
    ST_i32 %5.sub0, 0, 0, 1, 32, %0, 0
    ST_i32 %6.sub1, 0, 0, 1, 32, %0, 4
    Return
...
",
    );
}
