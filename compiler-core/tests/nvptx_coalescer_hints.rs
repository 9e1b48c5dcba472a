//! Two-address's tie marks (`tied2` on the earlyTied chain's lane COPYs,
//! two-address-cicc.txt) are direct hints the NVPTX coalescer reads: a hinted lane copy
//! goes before every unhinted candidate, and the trace says so. Switched off
//! (`ignore_hints`), the order and the decision change.

use compiler_core::mir::{parse_module, print_function, Function};
use compiler_core::passes::nvptx_coalescer::{self, NvptxCoalescerOptions};
use compiler_core::stats::Stats;
use compiler_core::trace::StepLog;
use std::path::Path;

fn fixture(name: &str) -> Function {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/nvptx_coalescer")
        .join(name);
    let text = std::fs::read_to_string(&p).unwrap();
    parse_module(&text).unwrap().functions.remove(0)
}

fn body(f: &Function) -> String {
    let t = print_function(f);
    t[t.find("body:").unwrap()..].to_string()
}

fn coalesce(f: &Function, ignore_hints: bool) -> (String, Stats, StepLog) {
    let mut g = f.clone();
    let mut log = StepLog::default();
    let opts = NvptxCoalescerOptions {
        ignore_hints,
        ..Default::default()
    };
    let s = nvptx_coalescer::run(&mut g, &opts, &mut log);
    (body(&g), s, log)
}

/// hint-order.mir: `tied2 %6 = COPY %4.sub1` (bb.0) and `%2 = COPY %6` (bb.1) cross
/// blocks, so both wait for the worklist, and whichever merges first leaves the other
/// copy with a scalar of two defs (`%2` is also written in bb.2), which cannot become a
/// lane. Expected by reasoning: with the hint, the tied lane copy goes first and `%6`
/// becomes lane `%4.sub1` (the copy in bb.1 stays, now reading the lane); without it,
/// the heap's register order takes `%2 = COPY %6` first (register 2 before 6) and the
/// lane copy stays, writing `%2` in bb.0. Either way `%5` joins lane sub0.
#[test]
fn the_tie_mark_decides_which_copy_merges() {
    let f = fixture("hint-order.mir");
    let (hinted, s1, log) = coalesce(&f, false);
    let (plain, s2, plain_log) = coalesce(&f, true);
    assert_eq!((s1.get("joined"), s2.get("joined")), (2, 2));
    // With the hint: the lane join.
    assert!(
        hinted.contains("\n    %2:float32regs = COPY %4.sub1\n"),
        "{hinted}"
    );
    assert!(!hinted.contains("%6"), "{hinted}");
    assert!(!hinted.contains("%5"), "{hinted}");
    // Without: the plain join, the lane copy stays in bb.0.
    assert!(
        plain.contains("tied2 %2:float32regs = COPY %4.sub1\n"),
        "{plain}"
    );
    let bb1 = &plain[plain.find("bb.1").unwrap()..plain.find("bb.2").unwrap()];
    assert!(!bb1.contains("COPY"), "{plain}");
    assert_ne!(hinted, plain);
    // The trace says where the hint decided: the first candidate taken is the tied
    // lane copy, narrated as hinted; without hints, the first is `%2 = COPY %6`.
    let first = |log: &StepLog| {
        log.steps
            .iter()
            .find(|s| s.kind == "heap_pop")
            .map(|s| s.narration.text())
            .unwrap()
    };
    let h = first(&log);
    assert!(h.contains("copy into %6") && h.contains("tied2"), "{h}");
    let p = first(&plain_log);
    assert!(p.contains("copy into %2") && !p.contains("tied2"), "{p}");
}

/// On tex-v4f32 itself every lane copy joins either way (the hint changes the order,
/// not the outcome, when nothing competes).
#[test]
fn tex_v4f32_joins_every_lane_either_way() {
    let ex = compiler_core::examples::EXAMPLES
        .iter()
        .find(|e| e.name == "tex-v4f32")
        .unwrap();
    let opts = compiler_core::RunOptions {
        until: Some(compiler_core::stages::Stage::RegisterCoalescer),
        ..Default::default()
    };
    let r = compiler_core::run(
        ex.text(Some(compiler_core::InputFormat::Mir)).unwrap().1,
        &opts,
    )
    .unwrap();
    let f = parse_module(&r.output).unwrap().functions.remove(0);
    let (a, s1, _) = coalesce(&f, false);
    let (b, s2, _) = coalesce(&f, true);
    assert_eq!((s1.get("joined"), s2.get("joined")), (4, 4));
    assert_eq!(a, b);
}
