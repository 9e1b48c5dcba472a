//! Mutation check for value renumbering (`values.rs`): an erased copy's value folds
//! into the value it read. Switched off (`no_value_renumbering`), an erased identity
//! move's dead value stays a segment of its own, keeps the register live past its last
//! read, and a join the pass makes with renumbering on is refused as interference.
//! After a merge the same stale end is caught by the recompute in `merge`
//! (shrinkToUses), so there the switch changes no decision (second test).

use compiler_core::mir::{parse_module, print_function};
use compiler_core::passes::nvptx_coalescer::{self, NvptxCoalescerOptions};
use compiler_core::stats::Stats;
use compiler_core::trace::StepLog;
use std::path::Path;

fn coalesce(name: &str, no_value_renumbering: bool) -> (String, Stats, StepLog) {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/nvptx_coalescer")
        .join(name);
    let mut f = parse_module(&std::fs::read_to_string(p).unwrap())
        .unwrap()
        .functions
        .remove(0);
    let mut log = StepLog::default();
    let opts = NvptxCoalescerOptions {
        no_value_renumbering,
        ..Default::default()
    };
    let s = nvptx_coalescer::run(&mut f, &opts, &mut log);
    let t = print_function(&f);
    (t[t.find("body:").unwrap()..].to_string(), s, log)
}

/// self-move.mir, slots 16 apart (`%1 = LD` 32, `%2 = COPY %1` 48, `%1 = COPY %2` 64,
/// `%2 = COPY %2` 80). `%2` holds value 0 over [48r,80r) and the identity move's dead
/// value 1 over [80r,80d). The identity move is erased first either way.
/// - Renumbering on: value 1 folds into value 0, the joined segment [48r,80d) is cut
///   back to `%2`'s last read, [48r,64r); `%1` lives over [32r,48r) and [64r,…), so
///   `%2 = COPY %1` joins (`%1` becomes `%2`) and `%1 = COPY %2` becomes an identity
///   move and goes (the body tests/nvptx_coalescer_findings.rs expects).
/// - Off: [48r,80r) and [80r,80d) stay two segments, the first one "continued" by the
///   second, so the trim does not apply and `%2` stays live to 80d, over `%1`'s second
///   value from 64r: both copies between `%1` and `%2` are refused as interference and
///   stay; `%3 = IMOV32rr %1` keeps its name; the other joins (`%9` into `%4`, the
///   chain `%5 → %8`) do not involve `%1`/`%2` and are the same. Kill flags are
///   rewritten only for merged registers: `%1` keeps the input's (none); `%2`'s read
///   at 64 is not its range's end (stale 80d), so not `killed`.
#[test]
fn without_renumbering_the_self_move_leaves_a_false_interference() {
    let (on, s_on, _) = coalesce("self-move.mir", false);
    let (off, s_off, log) = coalesce("self-move.mir", true);
    assert!(on.contains("    %3:int32regs = IMOV32rr %2\n"), "{on}");
    let want_off = "body:             |
  bb.0.entry:
    successors: %bb.2

    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &t_param_0, 0
    %1:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &t_param_1, 0
    %2:int32regs = COPY %1
    %1:int32regs = COPY %2
    %3:int32regs = IMOV32rr %1
    %4:int32regs = IMPLICIT_DEF
    dead %8:int32regs = IMPLICIT_DEF
    ST_i32 %1, 0, 0, 1, 32, %0, 0
    ST_i32 killed %4, 0, 0, 1, 32, %0, 4
    ST_i32 killed %3, 0, 0, 1, 32, %0, 8
    GOTO %bb.2

  bb.2:
    Return
...
";
    assert_eq!(off, want_off);
    assert_eq!(s_on.get("joined"), s_off.get("joined") + 1);
    // The two copies between `%1` and `%2` are refused besides what both runs refuse.
    assert!(
        s_off.get("interference_rejections") >= s_on.get("interference_rejections") + 2,
        "{} vs {}",
        s_off.get("interference_rejections"),
        s_on.get("interference_rejections")
    );
    let refused = log
        .steps
        .iter()
        .find(|s| s.kind == "interference")
        .map(|s| s.narration.text())
        .unwrap();
    assert!(
        refused.contains("%1") && refused.contains("%2"),
        "{refused}"
    );
}

/// renumber-dead-copy.mir (slots 16 apart: `%1 = LD` 32, `ST %1` 48, `%3 = LD` 64,
/// `dead %4 = IMOV32rr %1` 80, `%1 = IMOV32rr %3` 96, `ST %1` 112). `%4 ← %1` merges
/// first (`%4` is [80r,80d), no overlap); the joined range without renumbering ends
/// its first value at the erased copy ([32r,80r)[80r,80d)), which would overlap `%3`
/// ([64r,96r)) — but `merge` recomputes any range still ending at an erased copy, so
/// `%4` is [32r,48r)[96r,112r) either way and `%4 ← %3` joins too: both runs give the
/// same body, every copy gone.
#[test]
fn after_a_merge_the_recompute_covers_a_stale_value() {
    let (on, s_on, _) = coalesce("renumber-dead-copy.mir", false);
    let (off, s_off, _) = coalesce("renumber-dead-copy.mir", true);
    let want = "body:             |
  bb.0.entry:
    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &t_param_0, 0
    %4:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &t_param_1, 0
    ST_i32 killed %4, 0, 0, 1, 32, %0, 0
    %4:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &t_param_1, 0
    ST_i32 killed %4, 0, 0, 1, 32, %0, 4
    Return
...
";
    assert_eq!(on, want);
    assert_eq!(off, want);
    assert_eq!((s_on.get("joined"), s_off.get("joined")), (2, 2));
}
