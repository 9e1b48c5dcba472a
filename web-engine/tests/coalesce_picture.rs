//! The coalescing picture's model against the trace it is drawn from, on every gallery
//! example: the tree rebuilt from events equals every snapshot the pass kept, the bars
//! equal the ranges each decision saw, and phi-loop shows what the page promises.

use compiler_core::examples::{find, EXAMPLES};
use compiler_core::passes::nvptx_coalescer::interval_tree::validate_snapshot;
use compiler_core::trace::{Payload, RangeView, SegmentView, Steps};
use compiler_core::Stage;
use web_engine::pictures::coalesce::{picture, replay_tree, BarRow, CoalescePicture};
use web_engine::pictures::tree::ReplayTree;
use web_engine::protocol::RunRequest;
use web_engine::Session;

const STAGES: [Stage; 2] = [Stage::RegisterCoalescer, Stage::NvptxCoalescer];

fn run(source: &str) -> Session {
    run_with(source, "")
}

fn run_with(source: &str, knobs: &str) -> Session {
    let req = RunRequest {
        source: source.into(),
        knobs: knobs.into(),
        ..RunRequest::default()
    };
    Session::run(1, &req, &mut |_| {}).unwrap().0
}

/// Each function's steps of `stage`, for every gallery example that reaches it, with
/// the default knobs and with the generic coalescer off (then the NVPTX coalescer's
/// worklist merges, and its tree loses and gains nodes step by step).
fn each_function(mut f: impl FnMut(&str, Stage, Steps<'_>, &[RangeView])) {
    for (e, knobs) in EXAMPLES
        .iter()
        .flat_map(|e| [(e, ""), (e, "join-liveintervals=false")])
    {
        let Some((_, text)) = e.text(None) else {
            continue;
        };
        let mut s = run_with(text, knobs);
        // The ranges each coalescer started from, as the engine rebuilds them.
        let firsts: Vec<(Stage, Vec<Vec<RangeView>>)> = STAGES
            .iter()
            .map(|&st| (st, (0..).map_while(|j| s.first_range_rows(st, j)).collect()))
            .collect();
        for st in &s.result().stages {
            if !STAGES.contains(&st.stage) {
                continue;
            }
            let first = &firsts.iter().find(|x| x.0 == st.stage).unwrap().1;
            for (j, r) in st.functions.iter().enumerate() {
                f(
                    e.name,
                    st.stage,
                    st.steps.range(r.first..r.first + r.count),
                    &first[j],
                );
            }
        }
    }
}

fn row(p: &CoalescePicture, reg: u32) -> Option<&BarRow> {
    p.rows.iter().find(|r| r.reg == reg)
}

/// A register and its segments as (start, end, value).
type Row = (u32, Vec<(u32, u32, u32)>);

fn extents(r: &BarRow) -> Vec<(u32, u32, u32)> {
    r.segments
        .iter()
        .map(|b| (b.start, b.end, b.valno))
        .collect()
}

fn want(segs: &[SegmentView]) -> Vec<(u32, u32, u32)> {
    segs.iter().map(|s| (s.start, s.end, s.valno)).collect()
}

/// Whether the step after `i` is a rotation or recolouring of the same fix-up.
fn fixup_goes_on(steps: Steps<'_>, i: usize) -> bool {
    steps
        .get(i + 1)
        .is_some_and(|n| matches!(n.kind.as_str(), "tree_rotate" | "tree_recolor"))
}

#[test]
fn the_replayed_tree_equals_every_snapshot_the_pass_kept() {
    let (mut compared, mut updates) = (0, 0);
    each_function(|name, stage, steps, _| {
        for i in 0..steps.len() {
            let replayed = replay_tree(steps.range(..=i)).unwrap_or_else(|e| panic!("{name}: {e}"));
            if let Payload::TreeChange { tree, .. } = &*steps.step(i).payload {
                let t = replayed.expect("a tree after a tree change");
                let snap = t.snapshot();
                // Inside an insert's or delete's fix-up (its rotations and recolourings
                // are the next steps) the tree is red-black only once the fix-up ends.
                if !fixup_goes_on(steps, i) {
                    assert_eq!(validate_snapshot(&snap), Ok(()), "{name} {stage} step {i}");
                }
                if let Some(kept) = tree {
                    assert_eq!(&snap, &**kept, "{name} {stage} step {i}");
                    compared += 1;
                }
                updates += (steps.step(i).kind == "tree_update") as u32;
            }
        }
    });
    assert!(compared >= 30, "only {compared} snapshots compared");
    assert!(updates >= 10, "only {updates} tree updates after the build");
}

/// Before every decision the bars of both registers are exactly the ranges the pass
/// looked at; after a join the survivor's bar is the merged range and the other is gone.
#[test]
fn bars_equal_the_ranges_each_decision_saw() {
    let (mut checked, mut joins) = (0, 0);
    each_function(|name, stage, steps, first| {
        for (i, s) in steps.iter().enumerate() {
            let Payload::CoalesceDecision(c) = &*s.payload else {
                continue;
            };
            let (verdict, dst, src, dst_lane) = (&c.verdict(), &c.dst, &c.src, &c.dst_lane);
            let (dst_segments, src_segments, merged) =
                (&c.dst_segments(), &c.src_segments(), &c.merged());
            if *verdict == "partial" || i == 0 {
                continue;
            }
            let before = picture(steps.range(..i), first).expect("a picture before a decision");
            let at = |reg| {
                row(&before, reg)
                    .map(extents)
                    .unwrap_or_else(|| panic!("{name} {stage} step {i}: no bar for %{reg}"))
            };
            if dst_lane.is_none() {
                assert_eq!(
                    at(*dst),
                    want(dst_segments),
                    "{name} {stage} step {i} %{dst}"
                );
            }
            assert_eq!(
                at(*src),
                want(src_segments),
                "{name} {stage} step {i} %{src}"
            );
            checked += 1;
            if matches!(*verdict, "joined" | "merged") {
                let after = picture(steps.range(..=i), first).unwrap();
                assert_eq!(row(&after, *dst).map(extents), Some(want(merged)));
                assert!(row(&after, *src).is_none());
                assert!(row(&after, *dst).unwrap().joined.contains(src));
                assert!(row(&after, *dst).unwrap().changed);
                joins += 1;
            }
        }
    });
    assert!(
        checked >= 20 && joins >= 10,
        "{checked} decisions, {joins} joins"
    );
}

/// The first state is LiveIntervals on the stage's input, register by register.
#[test]
fn the_first_bars_are_the_live_intervals_of_the_stage_input() {
    use compiler_core::entity::EntityRef;
    use compiler_core::liveness::LiveIntervals;
    use compiler_core::mir::{parse_module, VReg};
    let mut s = run(find("phi-loop").unwrap().text(None).unwrap().1);
    let firsts: Vec<Vec<RangeView>> = STAGES
        .iter()
        .map(|&st| s.first_range_rows(st, 0).unwrap())
        .collect();
    for st in &s.result().stages {
        let Some(k) = STAGES.iter().position(|&x| x == st.stage) else {
            continue;
        };
        let input = parse_module(&s.stage_texts(st.stage).unwrap().0).unwrap();
        let f = &input.functions[0];
        let lis = LiveIntervals::compute(f);
        let p = picture(st.steps.range(..1), &firsts[k]).unwrap();
        let mut expected: Vec<Row> = Vec::new();
        for n in 0..f.vreg_end as usize {
            let r = lis.range(VReg::new(n));
            if !r.is_empty() {
                let segs: Vec<(u32, u32, u32)> = r
                    .segments
                    .iter()
                    .map(|s| (s.start.raw(), s.end.raw(), s.valno))
                    .collect();
                expected.push((n as u32, segs));
            }
        }
        let drawn: Vec<Row> = p.rows.iter().map(|r| (r.reg, extents(r))).collect();
        assert_eq!(drawn, expected, "{}", st.stage);
        assert!(
            p.axis.start
                <= expected
                    .iter()
                    .flat_map(|e| &e.1)
                    .map(|s| s.0)
                    .min()
                    .unwrap()
        );
    }
}

#[test]
fn phi_loop_shows_the_conflict_the_tree_and_the_heap() {
    let mut s = run(find("phi-loop").unwrap().text(None).unwrap().1);
    // register-coalescer: a conflict between %12 and %11 with red spans inside both bars.
    let rc = s.summary().stage(Stage::RegisterCoalescer).unwrap().steps;
    let conflict = (1..=rc)
        .map(|k| s.view(Stage::RegisterCoalescer, k).unwrap())
        .find(|v| v.kind == "conflict")
        .expect("phi-loop has a conflict");
    let p = conflict.coalesce.as_ref().unwrap();
    let v = p.verdict.as_ref().unwrap();
    assert_eq!((v.verdict.as_str(), v.dst, v.src), ("conflict", 12, 11));
    assert!(!v.spans.is_empty());
    for &(a, b) in &v.spans {
        assert!(a < b);
        for reg in [12, 11] {
            let r = row(p, reg).unwrap();
            assert!(
                r.segments.iter().any(|s| s.start <= a && b <= s.end),
                "%{reg} covers [{a},{b})"
            );
        }
    }
    assert_eq!(row(p, 12).unwrap().role, "dst");
    assert!(p.caption.contains("red span"), "{}", p.caption);
    // nvptx-coalescer: the tree of twelve live segments (six registers, the loop's
    // split in two), built one insert step at a time, the heap's candidate, the
    // interference.
    let nc = s.summary().stage(Stage::NvptxCoalescer).unwrap().steps;
    let views: Vec<_> = (1..=nc)
        .map(|k| s.view(Stage::NvptxCoalescer, k).unwrap())
        .collect();
    let at = views.iter().position(|v| v.kind == "tree_built").unwrap();
    let tree = views[at].coalesce.as_ref().unwrap().tree.as_ref().unwrap();
    assert_eq!((tree.total, tree.nodes.len()), (12, 12));
    let before = &views[..at];
    let kinds = |k: &str| before.iter().filter(|v| v.kind == k).count();
    assert_eq!(kinds("tree_insert"), 12);
    assert!(kinds("tree_rotate") >= 1);
    for v in before.iter().filter(|v| v.kind.starts_with("tree_")) {
        let t = v.coalesce.as_ref().unwrap().tree.as_ref().unwrap();
        assert_eq!(
            t.inserted + t.removed + t.rotations + t.recolors,
            1,
            "{}",
            v.kind
        );
    }
    assert_eq!(tree.nodes.iter().filter(|n| n.parent.is_none()).count(), 1);
    assert!(tree
        .nodes
        .iter()
        .all(|n| n.x >= 26 && n.y >= 26 && n.x < tree.width && n.y < tree.height));
    let pop = views.iter().find(|v| v.kind == "heap_pop").unwrap();
    let heap = pop.coalesce.as_ref().unwrap().heap.as_ref().unwrap();
    assert_eq!(
        heap.current.as_ref().map(|c| (c.dst, c.src)),
        Some((11, 12))
    );
    let inter = views.iter().find(|v| v.kind == "interference").unwrap();
    let p = inter.coalesce.as_ref().unwrap();
    assert!(!p.verdict.as_ref().unwrap().spans.is_empty());
    assert!(p.tree.as_ref().unwrap().nodes.iter().any(|n| n.candidate));
    // Other stages carry no coalescing picture.
    assert!(s.view(Stage::TwoAddress, 1).unwrap().coalesce.is_none());
}

/// A loop carrying `n` counters (one PHI each): after PHI elimination every counter has
/// copies on both edges, and with the generic coalescer off the NVPTX coalescer's tree
/// holds far more extents than the trace copies into steps.
fn many_counters(n: usize) -> String {
    let mut s = String::from(
        "---\nname: counters\ntracksRegLiveness: true\nbody: |\n  bb.0.entry:\n    successors: %bb.1(0x80000000)\n\n    %0:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &counters_param_0, 0 :: (dereferenceable invariant load (s32), addrspace 101)\n",
    );
    for k in 0..n {
        s.push_str(&format!("    %{}:int32regs = MOV_B32_i {k}\n", 1 + k));
    }
    s.push_str("\n  bb.1.loop:\n    successors: %bb.1(0x7c000000), %bb.2(0x04000000)\n\n");
    for k in 0..n {
        s.push_str(&format!(
            "    %{}:int32regs = PHI %{}, %bb.0, %{}, %bb.1\n",
            1 + n + k,
            1 + k,
            1 + 2 * n + k
        ));
    }
    for k in 0..n {
        s.push_str(&format!(
            "    %{}:int32regs = ADD32ri %{}, 1\n",
            1 + 2 * n + k,
            1 + n + k
        ));
    }
    s.push_str(&format!(
        "    %{c}:int1regs = SETP_i32rr %{q}, %0, 2\n    CBranch %{c}, %bb.1\n    GOTO %bb.2\n\n  bb.2.exit:\n    Return\n...\n",
        c = 1 + 3 * n,
        q = 1 + 2 * n
    ));
    s
}

/// A tree too big for the trace's snapshots is still drawn (its top levels), rebuilt
/// from events alone, and is a valid red-black tree after every finished insert or
/// delete; any snapshot that appears equals the rebuilt tree.
#[test]
fn a_big_tree_without_snapshots_is_rebuilt_from_events() {
    let mut s = run_with(&many_counters(150), "join-liveintervals=false");
    let k = s
        .result()
        .stages
        .iter()
        .position(|r| r.stage == Stage::NvptxCoalescer)
        .unwrap();
    let steps = s.result().stages[k].steps.clone();
    let (mut unsnapped, mut compared) = (0, 0);
    // One tree fed step by step (replay_tree from the start at every step would be
    // quadratic); replay_tree itself is checked against it at the end.
    let mut t = ReplayTree::default();
    for (i, step) in steps.iter().enumerate() {
        if let Payload::TreeChange { tree, events, .. } = &*step.payload {
            for e in events {
                t.apply(e).unwrap();
            }
            let snap = t.snapshot();
            if !fixup_goes_on(steps.all(), i) {
                assert_eq!(validate_snapshot(&snap), Ok(()), "step {i}");
            }
            match tree {
                None => {
                    // Event steps carry the one event; summaries the tree when small.
                    assert!(events.len() == 1 || t.len() > 256, "step {i}");
                    unsnapped += 1;
                }
                Some(kept) => {
                    assert_eq!(&snap, &**kept, "step {i}");
                    compared += 1;
                }
            }
        }
    }
    // (Its tree of live segments stays above the snapshot size: few of the counters'
    // copies join when any overlap interferes, so every step is checked against the
    // replay alone; the other test compares kept snapshots.)
    assert!(
        unsnapped >= 100,
        "{unsnapped} without a snapshot, {compared} with"
    );
    let whole = replay_tree(steps.all()).unwrap().unwrap();
    assert_eq!(whole.snapshot(), t.snapshot());
    let total = steps.len() as u32;
    let started = std::time::Instant::now();
    for step in [1, total / 3, total / 2, total] {
        let v = s.view(Stage::NvptxCoalescer, step).unwrap();
        let p = v.coalesce.unwrap();
        assert!(p.rows.len() <= web_engine::pictures::coalesce::MAX_ROWS);
        assert!(p.hidden_rows > 0);
        if let Some(t) = &p.tree {
            assert!(
                t.nodes.len() <= 63 && t.nodes.len() >= 31,
                "{}",
                t.nodes.len()
            );
            assert!(t.total as usize > t.nodes.len());
        }
    }
    eprintln!(
        "# four views of a {}-step nvptx-coalescer trace: {:?}",
        total,
        started.elapsed()
    );
}
