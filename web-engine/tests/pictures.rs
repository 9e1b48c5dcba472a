//! The pass-picture models against the traces they are drawn from: the EXTRACT_SUBREG
//! fan-out and the GeneralOptimize grid, on the gallery.

use compiler_core::examples::{find, EXAMPLES};
use compiler_core::trace::Payload;
use compiler_core::Stage;
use web_engine::pictures::{self, is_general_optimize, Picture};
use web_engine::protocol::*;
use web_engine::Session;

fn run(name: &str) -> (Session, RunSummary) {
    let source = find(name).unwrap().text(None).unwrap().1;
    let req = RunRequest {
        source: source.into(),
        ..RunRequest::default()
    };
    Session::run(1, &req, &mut |_| {}).unwrap()
}

fn fanout(p: Option<Picture>) -> pictures::FanoutPicture {
    match p {
        Some(Picture::Fanout(f)) => f,
        other => panic!("expected a fan-out, got {other:?}"),
    }
}

fn grid(p: Option<Picture>) -> pictures::GoPicture {
    match p {
        Some(Picture::GoGrid(g)) => g,
        other => panic!("expected a grid, got {other:?}"),
    }
}

#[test]
fn fanout_copy_order_equals_the_trace_pair_order() {
    let mut seen = 0;
    for e in EXAMPLES {
        let (s, _) = run(e.name);
        let Some(two) = s
            .result()
            .stages
            .iter()
            .find(|r| r.stage == Stage::TwoAddress)
        else {
            continue;
        };
        // The pairs in trace order, per (function, pseudo).
        let trace: Vec<(usize, u32, u32, u32)> = two
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, st)| match *st.payload {
                Payload::ExtractSubregPair {
                    pseudo, pair, def, ..
                } => Some((i, pseudo, u32::from(pair), def)),
                _ => None,
            })
            .collect();
        if trace.is_empty() {
            assert!(
                pictures::picture(Stage::TwoAddress, two.steps.all(), &two.functions, 0).is_none()
            );
            continue;
        }
        seen += 1;
        for &(i, pseudo, pair, def) in &trace {
            // At the step that made a pair, the picture is about its pseudo, lists the
            // pseudo's pairs in trace order, and has exactly the earlier ones done.
            let step = i as u32 + 1;
            let f = fanout(pictures::picture(
                Stage::TwoAddress,
                two.steps.all(),
                &two.functions,
                step,
            ));
            assert_eq!((f.pseudo, f.current), (pseudo, Some(pair)), "{}", e.name);
            let want: Vec<(u32, u32)> = trace
                .iter()
                .filter(|t| t.1 == pseudo)
                .map(|t| (t.2, t.3))
                .collect();
            let got: Vec<(u32, u32)> = f.pairs.iter().map(|p| (p.pair, p.def)).collect();
            assert_eq!(got, want, "{}: pair order", e.name);
            assert!(
                got.windows(2).all(|w| w[0].0 < w[1].0),
                "{}: ascending",
                e.name
            );
            for p in &f.pairs {
                assert_eq!(p.done, p.step <= step, "{} pair {}", e.name, p.pair);
            }
            assert!(f
                .pairs
                .iter()
                .any(|p| p.pair == pair && p.def == def && p.done));
            assert_eq!(
                f.total as usize,
                f.pairs.len(),
                "{}: every pair recorded",
                e.name
            );
        }
        // Before the first pair nothing is done; after the last everything is.
        let f0 = fanout(pictures::picture(
            Stage::TwoAddress,
            two.steps.all(),
            &two.functions,
            0,
        ));
        assert!(f0.pairs.iter().all(|p| !p.done) && f0.kill_on.is_none());
        let end = two.steps.len() as u32;
        let fe = fanout(pictures::picture(
            Stage::TwoAddress,
            two.steps.all(),
            &two.functions,
            end,
        ));
        assert!(fe.all_done, "{}", e.name);
    }
    assert!(seen >= 8, "examples with EXTRACT_SUBREG pairs: {seen}");
}

#[test]
fn fanout_copies_appear_in_the_ir_in_pair_order_with_their_lanes() {
    let (mut s, summary) = run("tex-v4f32");
    let total = summary.stage(Stage::TwoAddress).unwrap().steps;
    let v = s.view(Stage::TwoAddress, total).unwrap();
    let f = fanout(v.picture.clone());
    let after = v.after.unwrap().text;
    let mut last = 0;
    for p in &f.pairs {
        let lane = p.lane.expect("texture lanes");
        let want = format!("%{}:", p.def);
        let (at, line) = after
            .lines()
            .enumerate()
            .find(|(_, l)| {
                let l = l.trim_start();
                let l = l.strip_prefix("tied2 ").unwrap_or(l);
                l.starts_with(&want) && l.contains("COPY")
            })
            .unwrap_or_else(|| panic!("no COPY defines %{} in\n{after}", p.def));
        assert!(line.contains(&format!("%{}.sub{lane}", f.src)), "{line}");
        assert!(at > last, "COPY of pair {} out of order", p.pair);
        last = at;
    }
    assert_eq!(f.pairs.len(), 4);
}

#[test]
fn fanout_hint_bits_and_the_kill_follow_the_trace() {
    let (mut s, _) = run("tex-v4f32");
    // Step 3: the first pair (no hints), the kill still on the pseudo.
    let f = fanout(s.view(Stage::TwoAddress, 3).unwrap().picture);
    assert_eq!(f.current, Some(0));
    assert_eq!(f.pairs.iter().filter(|p| p.done).count(), 1);
    assert!(!f.pairs[0].hint_tied && !f.pairs[0].hint_early_tied);
    assert!(f.pairs[1..]
        .iter()
        .all(|p| p.hint_tied && p.hint_early_tied && p.tie_marked));
    assert_eq!(f.kill_on, None);
    // The last pair takes the kill; from its step on the picture shows it there.
    let last = f.pairs.last().unwrap().clone();
    assert!(last.kill_moved);
    let before = fanout(s.view(Stage::TwoAddress, last.step - 1).unwrap().picture);
    assert_eq!(before.kill_on, None);
    let at = fanout(s.view(Stage::TwoAddress, last.step).unwrap().picture);
    assert_eq!(at.kill_on, Some(last.pair));
    assert!(at.all_done);
    // Each pair's COPY takes its def over and finds the source's kill; the last one
    // also takes that kill.
    let lv: Vec<u32> = at.pairs.iter().map(|p| p.lv_updates).collect();
    assert_eq!(lv, [2, 2, 2, 3]);
}

/// A recorded GoRound: step index, block, iteration, counters, changed, capped.
type Round = (usize, u32, u32, Vec<(String, u64)>, bool, bool);

#[test]
fn go_grid_cells_equal_the_go_round_payloads() {
    let mut stages = 0;
    for e in EXAMPLES {
        let (s, _) = run(e.name);
        for r in s
            .result()
            .stages
            .iter()
            .filter(|r| is_general_optimize(r.stage))
        {
            let rounds: Vec<Round> = r
                .steps
                .iter()
                .enumerate()
                .filter_map(|(i, st)| match &*st.payload {
                    Payload::GoRound {
                        block,
                        iteration,
                        counters,
                        changed,
                        capped,
                        ..
                    } => Some((
                        i,
                        block.as_u32(),
                        *iteration,
                        counters
                            .iter()
                            .map(|c| (c.name().to_string(), c.value()))
                            .collect(),
                        *changed,
                        *capped,
                    )),
                    _ => None,
                })
                .collect();
            for k in 0..=r.steps.len() as u32 {
                let Some(p) = pictures::picture(r.stage, r.steps.all(), &r.functions, k) else {
                    assert!(rounds.is_empty(), "{} {}", e.name, r.stage);
                    continue;
                };
                let g = grid(Some(p));
                let want: Vec<_> = rounds
                    .iter()
                    .filter(|x| (x.0 as u32) < k)
                    .map(|x| (x.1, x.2, x.3.clone(), x.4, x.5, x.0 as u32 + 1))
                    .collect();
                let got: Vec<_> = g
                    .cells
                    .iter()
                    .map(|c| {
                        (
                            c.block,
                            c.iteration,
                            c.counters.clone(),
                            c.changed,
                            c.capped,
                            c.step,
                        )
                    })
                    .collect();
                assert_eq!(got, want, "{} {} step {k}", e.name, r.stage);
                assert_eq!(g.total_cells as usize, rounds.len());
                for c in &g.cells {
                    assert!(g.blocks.contains(&c.block) && c.iteration <= g.rounds);
                    assert_eq!(g.cell(c.block, c.iteration), Some(c));
                }
            }
            stages += 1;
        }
    }
    assert!(stages >= 60, "GeneralOptimize stages checked: {stages}");
}

#[test]
fn go_picture_cost_buffer_and_marks_come_from_their_payloads() {
    // local-array: phase 37's two rounds, the second under the threshold.
    let (mut s, summary) = run("local-array");
    let mid = summary.stage(Stage::GeneralOptimizeMid).unwrap().steps;
    let g = grid(s.view(Stage::GeneralOptimizeMid, mid).unwrap().picture);
    let costs: Vec<(u32, f64, f64)> = g
        .costs
        .iter()
        .map(|c| (c.round, c.weighted, c.delta))
        .collect();
    assert_eq!(costs, [(1, 2.5, 2.5), (2, 2.5, 0.0)]);
    assert!(g.costs.iter().all(|c| c.threshold == 0.25));
    assert!(g.costs[0].delta >= g.costs[0].threshold && g.costs[1].delta < g.costs[1].threshold);
    assert_eq!(
        g.marks.iter().map(|m| (m.inst, m.mask)).collect::<Vec<_>>(),
        [(7, 0x100), (8, 0x100)]
    );
    assert_eq!(g.phase, Some(37));
    // mov-pairs: the buffer as the latest buffer step left it.
    let (mut s, summary) = run("mov-pairs");
    let late = summary.stage(Stage::GeneralOptimizeLate).unwrap().steps;
    let g = grid(s.view(Stage::GeneralOptimizeLate, late).unwrap().picture);
    let b = g.buffer.unwrap();
    assert_eq!((b.block, b.index, b.slots.len()), (0, 2, 6));
    assert!(b.slots[0].as_ref().is_some_and(
        |(a, second)| a.contains("%r1") && second.as_deref().is_some_and(|x| x.contains("%r2"))
    ));
    assert!(b.slots[2..].iter().all(Option::is_none));
    assert!(b.counters.contains(&("pair_movs_removed".to_string(), 2)));
    // Step 1 of the same stage: one MOV in slot 0, nothing matched yet.
    let g1 = grid(s.view(Stage::GeneralOptimizeLate, 1).unwrap().picture);
    let b1 = g1.buffer.unwrap();
    assert_eq!(b1.index, 1);
    assert!(b1.slots[0]
        .as_ref()
        .is_some_and(|(_, second)| second.is_none()));
    assert!(g1.cells.is_empty());
}

#[test]
fn select_fold_view_carries_the_grid_at_each_step() {
    let (mut s, summary) = run("select-fold");
    let total = summary.stage(Stage::GeneralOptimize).unwrap().steps;
    let mut cells = 0;
    for k in 0..=total {
        let v = s.view(Stage::GeneralOptimize, k).unwrap();
        let g = grid(v.picture);
        assert!(g.cells.len() >= cells, "cells only grow");
        cells = g.cells.len();
        assert_eq!(g.step, k);
    }
    assert_eq!(cells, 3);
    // Stages with no picture carry none.
    assert!(s.view(Stage::PtxLower, 1).unwrap().picture.is_none());
}

/// The fan-out draws its pseudo erased exactly when the IR after the step has lost it:
/// on tex-v4f32 the fourth COPY (step 6) leaves the EXTRACT_SUBREG standing, step 7
/// erases it (issue 30: the picture ran one step ahead of the IR).
#[test]
fn fanout_pseudo_is_erased_in_step_with_the_ir() {
    for name in ["tex-v4f32", "wmma-f16-8frag", "tma-2result"] {
        let (mut s, summary) = run(name);
        let total = summary.stage(Stage::TwoAddress).unwrap().steps;
        let mut flips = 0;
        let mut was = false;
        for step in 0..=total {
            let v = s.view(Stage::TwoAddress, step).unwrap();
            let f = fanout(v.picture.clone());
            // Step 0's "after" is the stage's output; the picture there is the input.
            let ir = if step == 0 {
                v.before.text
            } else {
                v.after.unwrap().text
            };
            let in_ir = ir.contains("EXTRACT_SUBREG");
            assert_eq!(f.erased, !in_ir, "{name} step {step}");
            if f.erased != was {
                flips += 1;
                // The erasing step is a step of its own, after the last pair's.
                assert_eq!(v.kind, "extract_subreg_erase", "{name} step {step}");
                assert!(f.all_done, "{name} step {step}");
                was = f.erased;
            }
        }
        assert!(flips >= 1, "{name}: the pseudo is erased at some step");
    }
}
