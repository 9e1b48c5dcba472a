//! The coalescing picture drawn in a real document (headless Chromium, `cargo xtask
//! test` step `wasm-chromium`, engine in the page): the SVG's data attributes are read
//! back and compared with the trace the pipeline records, run here independently of the
//! page. Wasm only.
#![cfg(target_family = "wasm")]

use compiler_core::examples::find;
use compiler_core::interval_tree::{Color, TreeSnapshot};
use compiler_core::knobs::Knobs;
use compiler_core::share::{encode_state, LinkState};
use compiler_core::trace::{Payload, RangeView, StepList, Steps};
use compiler_core::{RunOptions, Stage};
use std::collections::BTreeMap;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_app::App;
use web_engine::pictures::coalesce::MAX_TREE_DEPTH;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

/// The app mounted in its own element; unmounted and the address fragment cleared on drop.
struct Mounted {
    root: Element,
    handle: Option<yew::AppHandle<App>>,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            h.destroy();
        }
        self.root.remove();
        let _ = web_sys::window().unwrap().location().set_hash("");
    }
}

async fn settle(root: &Element, ready: impl Fn(&Element) -> bool) -> bool {
    for _ in 0..800 {
        if ready(root) {
            return true;
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length())
        .map(|i| list.get(i).unwrap().dyn_into::<Element>().unwrap())
        .collect()
}

fn text(root: &Element, selector: &str) -> String {
    root.query_selector(selector)
        .unwrap()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

fn attr(e: &Element, name: &str) -> String {
    e.get_attribute(name)
        .unwrap_or_else(|| panic!("no {name} on {}", e.outer_html()))
}

fn num(e: &Element, name: &str) -> u32 {
    attr(e, name).parse().unwrap()
}

fn opt_num(e: &Element, name: &str) -> Option<u32> {
    let a = attr(e, name);
    (!a.is_empty()).then(|| a.parse().unwrap())
}

/// A state link to `stage` step `step` of `source` run with `knobs`.
fn link(source: &str, knobs: &str, stage: Stage, step: u32) -> String {
    encode_state(&LinkState {
        source: source.into(),
        knobs: Knobs::from_query(knobs).unwrap(),
        stage: Some(stage),
        step: Some(step),
        ..LinkState::default()
    })
}

/// Mounts the app on a link to step `step` and waits until the picture shows it.
async fn mount_at(source: &str, knobs: &str, stage: Stage, step: u32) -> Mounted {
    let window = web_sys::window().unwrap();
    window
        .location()
        .set_hash(&link(source, knobs, stage, step))
        .unwrap();
    let document = window.document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let handle = yew::Renderer::<App>::with_root(root.clone()).render();
    let m = Mounted {
        root,
        handle: Some(handle),
    };
    assert!(
        at_step(&m.root, step).await,
        "never showed step {step}: {}",
        text(&m.root, ".step-counter")
    );
    m
}

/// Opens step `step` of the same run through the address fragment (a `hashchange`).
async fn go(m: &Mounted, source: &str, knobs: &str, stage: Stage, step: u32) {
    web_sys::window()
        .unwrap()
        .location()
        .set_hash(&link(source, knobs, stage, step))
        .unwrap();
    assert!(
        at_step(&m.root, step).await,
        "never showed step {step}: {}",
        text(&m.root, ".step-counter")
    );
}

async fn at_step(root: &Element, step: u32) -> bool {
    let want = format!("Step {step} of ");
    let picture = format!(".coalesce-picture[data-step='{step}']");
    settle(root, |r| {
        text(r, ".step-counter").starts_with(&want) && r.query_selector(&picture).unwrap().is_some()
    })
    .await
}

/// The stage's steps as the pipeline records them (one function in these examples).
fn trace(source: &str, knobs: &str, stage: Stage) -> StepList {
    let opts = RunOptions {
        trace: true,
        knobs: Knobs::from_query(knobs).unwrap(),
        ..RunOptions::default()
    };
    let r = compiler_core::pipeline::run(source, &opts).unwrap();
    let run = r.stages.into_iter().find(|s| s.stage == stage).unwrap();
    assert_eq!(run.functions.len(), 1);
    run.steps
}

/// The ranges `stage` started from, rebuilt from its input as the engine does.
fn first_rows(source: &str, knobs: &str, stage: Stage) -> Vec<RangeView> {
    let req = web_engine::protocol::RunRequest {
        source: source.into(),
        knobs: knobs.into(),
        ..Default::default()
    };
    let (mut s, _) = web_engine::Session::run(1, &req, &mut |_| {}).unwrap();
    s.first_range_rows(stage, 0).unwrap()
}

/// `count` distinct steps in 1..=total, drawn at random (named in failure messages).
fn random_steps(total: u32, count: usize) -> Vec<u32> {
    let mut left: Vec<u32> = (1..=total).collect();
    let mut out = Vec::new();
    while out.len() < count && !left.is_empty() {
        let i = (js_sys::Math::random() * left.len() as f64) as usize;
        out.push(left.swap_remove(i.min(left.len() - 1)));
    }
    out
}

/// One drawn node: (id, start, end, key, red, left, right, max end).
type NodeRow = (u32, u32, u32, u32, bool, Option<u32>, Option<u32>, u32);

fn drawn_tree(root: &Element) -> (Vec<NodeRow>, BTreeMap<u32, Option<u32>>) {
    let mut rows = Vec::new();
    let mut parents = BTreeMap::new();
    for n in all(root, ".rb-tree .rb-node") {
        let id = num(&n, "data-node-id");
        let colour = attr(&n, "data-color");
        // Colour is also written on the node as a letter.
        let letter = text(&n, ".node-colour");
        assert_eq!(letter, if colour == "red" { "R" } else { "B" });
        rows.push((
            id,
            num(&n, "data-start"),
            num(&n, "data-end"),
            num(&n, "data-key"),
            colour == "red",
            opt_num(&n, "data-left"),
            opt_num(&n, "data-right"),
            num(&n, "data-max-end"),
        ));
        parents.insert(id, opt_num(&n, "data-parent"));
    }
    rows.sort();
    (rows, parents)
}

/// The snapshot's nodes the picture draws: the top `MAX_TREE_DEPTH` levels (a
/// red-black tree of phi-loop's segments can be deeper, and a random step may land on
/// such a tree). Child links are kept as the snapshot has them.
fn snapshot_rows(t: &TreeSnapshot) -> Vec<NodeRow> {
    let mut depth: BTreeMap<u32, u32> = BTreeMap::new();
    let mut todo: Vec<(u32, u32)> = t.root.map(|r| (r.0, 0)).into_iter().collect();
    while let Some((id, d)) = todo.pop() {
        depth.insert(id, d);
        let n = t
            .nodes
            .iter()
            .find(|n| n.id.0 == id)
            .expect("a linked node");
        todo.extend(
            [n.left, n.right]
                .into_iter()
                .flatten()
                .map(|c| (c.0, d + 1)),
        );
    }
    let mut rows: Vec<NodeRow> = t
        .nodes
        .iter()
        .filter(|n| depth.get(&n.id.0).is_some_and(|&d| d < MAX_TREE_DEPTH))
        .map(|n| {
            (
                n.id.0,
                n.interval.start,
                n.interval.end,
                n.interval.key,
                n.color == Color::Red,
                n.left.map(|c| c.0),
                n.right.map(|c| c.0),
                n.max_end,
            )
        })
        .collect();
    rows.sort();
    rows
}

/// phi-loop with the generic coalescer off: the NVPTX coalescer merges from its
/// worklist, so its tree drops and inserts nodes (with rotations) step after step.
#[wasm_bindgen_test]
async fn the_drawn_tree_equals_the_tree_state_in_the_trace_at_random_steps() {
    let source = find("phi-loop").unwrap().text(None).unwrap().1;
    let knobs = "join-liveintervals=false";
    let stage = Stage::NvptxCoalescer;
    let steps = trace(source, knobs, stage);
    let updates = steps.iter().filter(|s| s.kind == "tree_update").count();
    assert!(updates >= 3, "{updates} tree updates");
    let mut picks = random_steps(steps.len() as u32, 6);
    // And always the step after the first update (nodes moved).
    let first_update = steps.iter().position(|s| s.kind == "tree_update").unwrap() as u32 + 1;
    if !picks.contains(&first_update) {
        picks.push(first_update);
    }
    let m = mount_at(source, knobs, stage, picks[0]).await;
    for &k in &picks {
        go(&m, source, knobs, stage, k).await;
        // Event steps carry one event, not the tree: the tree after step k is the
        // events so far replayed (web-engine's tests check the replay against every
        // snapshot the pass keeps).
        let kept = web_engine::pictures::coalesce::replay_tree(steps.range(..k as usize))
            .expect("the events replay")
            .map(|t| t.snapshot());
        let (rows, parents) = drawn_tree(&m.root);
        match kept {
            None => assert!(
                rows.is_empty(),
                "step {k} (of {picks:?}): a tree before it is built"
            ),
            Some(t) => {
                assert_eq!(rows, snapshot_rows(&t), "step {k} (of {picks:?})");
                // Parent links agree with child links; exactly the root has none.
                for r in &rows {
                    for c in [r.5, r.6].into_iter().flatten() {
                        let Some(p) = parents.get(&c) else {
                            continue; // a child below the drawn levels
                        };
                        assert_eq!(*p, Some(r.0), "step {k}: parent of {c}");
                    }
                }
                let roots: Vec<u32> = parents
                    .iter()
                    .filter(|(_, p)| p.is_none())
                    .map(|(&id, _)| id)
                    .collect();
                assert_eq!(roots, t.root.map(|r| r.0).into_iter().collect::<Vec<_>>());
            }
        }
    }
}

type Bars = BTreeMap<u32, Vec<(u32, u32, u32)>>;

fn drawn_bars(root: &Element) -> Bars {
    all(root, ".interval-bars .bar-row")
        .iter()
        .map(|row| {
            let segs = all(row, "rect.bar")
                .iter()
                .map(|b| {
                    (
                        num(b, "data-start"),
                        num(b, "data-end"),
                        num(b, "data-valno"),
                    )
                })
                .collect();
            (num(row, "data-reg"), segs)
        })
        .collect()
}

/// The registers' ranges after `steps`, from the trace's own numbers: the ranges the
/// pass started from, each join replacing the survivor's range with the merged one.
fn trace_ranges(steps: Steps<'_>, first: &[RangeView]) -> Bars {
    let mut out = Bars::new();
    for s in steps {
        match &*s.payload {
            // The step carries no rows: they are rebuilt from the stage's input.
            Payload::LiveRanges { rows, .. } => {
                let rows = if rows.is_empty() { first } else { rows };
                out = rows
                    .iter()
                    .map(|r| {
                        let segs = r
                            .segments
                            .iter()
                            .map(|g| (g.start, g.end, g.valno))
                            .collect();
                        (r.reg, segs)
                    })
                    .collect();
            }
            Payload::CoalesceDecision(c) if matches!(c.verdict(), "joined" | "merged") => {
                out.remove(&c.src);
                out.insert(
                    c.dst,
                    c.merged()
                        .iter()
                        .map(|g| (g.start, g.end, g.valno))
                        .collect(),
                );
            }
            _ => {}
        }
    }
    out
}

/// Bars at random steps of both coalescers on phi-loop equal the registers' live ranges
/// there; before a decision they are the very ranges the decision compares; the
/// conflict's overlapping spans are drawn on both rows.
#[wasm_bindgen_test]
async fn interval_bars_match_the_intervals() {
    let source = find("phi-loop").unwrap().text(None).unwrap().1;
    for (stage, knobs) in [
        (Stage::RegisterCoalescer, ""),
        (Stage::NvptxCoalescer, "join-liveintervals=false"),
    ] {
        let steps = trace(source, knobs, stage);
        let first = first_rows(source, knobs, stage);
        let mut picks = random_steps(steps.len() as u32, 5);
        let conflict = steps
            .iter()
            .position(|s| matches!(s.kind.as_str(), "conflict" | "interference"))
            .expect("phi-loop has a conflict") as u32
            + 1;
        picks.push(conflict);
        let m = mount_at(source, knobs, stage, picks[0]).await;
        for &k in &picks {
            go(&m, source, knobs, stage, k).await;
            let drawn = drawn_bars(&m.root);
            assert_eq!(
                drawn,
                trace_ranges(steps.range(..k as usize), &first),
                "{stage} step {k} (of {picks:?})"
            );
            // The next decision saw exactly these ranges.
            let next = steps
                .range(k as usize..)
                .iter()
                .find_map(|s| match &*s.payload {
                    Payload::CoalesceDecision(c)
                        if c.dst_lane.is_none() && c.verdict() != "partial" =>
                    {
                        Some((c.dst, c.src, c.dst_segments(), c.src_segments()))
                    }
                    _ => None,
                });
            if let Some((d, s, ds, ss)) = next {
                let want = |v: &Vec<compiler_core::trace::SegmentView>| {
                    v.iter()
                        .map(|g| (g.start, g.end, g.valno))
                        .collect::<Vec<_>>()
                };
                assert_eq!(drawn.get(&d), Some(&want(&ds)), "{stage} step {k}: %{d}");
                assert_eq!(drawn.get(&s), Some(&want(&ss)), "{stage} step {k}: %{s}");
            }
            if let Payload::CoalesceDecision(c) = &*steps.step(k as usize - 1).payload {
                let (dst, src, conflict_spans) = (&c.dst, &c.src, c.conflict_spans());
                // After a join only the survivor's row is left.
                for reg in [dst, src] {
                    let Some(row) = all(&m.root, &format!(".bar-row[data-reg='{reg}']")).pop()
                    else {
                        assert!(!drawn.contains_key(reg));
                        continue;
                    };
                    let spans: Vec<(u32, u32)> = all(&row, ".conflict-span")
                        .iter()
                        .map(|r| (num(r, "data-start"), num(r, "data-end")))
                        .collect();
                    let mut want = conflict_spans.clone();
                    want.sort_unstable();
                    want.dedup();
                    assert_eq!(spans, want, "{stage} step {k}: %{reg}");
                }
                if !conflict_spans.is_empty() {
                    assert!(text(&m.root, ".picture-caption").contains("red span"));
                }
            }
        }
        assert!(
            !all(&m.root, ".interval-bars svg title").is_empty()
                && !text(&m.root, ".interval-bars svg desc").is_empty(),
            "the bars have a title and a description"
        );
        drop(m);
    }
}
