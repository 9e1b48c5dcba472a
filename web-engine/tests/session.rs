//! The engine's session natively: runs, views, diffs and the request handler, on the
//! gallery and on a generated large input.

use compiler_core::examples::{find, EXAMPLES};
use compiler_core::stages::IrKind;
use compiler_core::trace::Copies;
use compiler_core::Stage;
use web_engine::protocol::*;
use web_engine::session::{checkpoint_spacing, CHECKPOINT_BUDGET, ORI_CHECKPOINT_BUDGET};
use web_engine::{handle, Session};

fn request(source: &str) -> RunRequest {
    RunRequest {
        source: source.into(),
        ..RunRequest::default()
    }
}

fn example(name: &str) -> &'static str {
    find(name).unwrap().text(None).unwrap().1
}

fn run(source: &str) -> (Session, RunSummary) {
    Session::run(1, &request(source), &mut |_| {}).unwrap()
}

fn line(text: &str, n: u32) -> &str {
    text.lines().nth(n as usize).unwrap()
}

#[test]
fn tex_v4f32_step_3_splits_the_first_pair_into_a_copy() {
    let (mut s, summary) = run(example("tex-v4f32"));
    let two = summary.stage(Stage::TwoAddress).unwrap();
    assert!(two.steps >= 3 && two.replayable);
    let v = s.view(Stage::TwoAddress, 3).unwrap();
    assert_eq!(
        (v.step, v.total, v.kind.as_str()),
        (3, two.steps, "extract_subreg_copy")
    );
    assert!(v.narration.contains("Pair 1 of 4"), "{}", v.narration);
    assert_eq!(v.function, "tex_v4f32");
    let after = v.after.as_ref().unwrap();
    let inserted: Vec<&str> = after
        .marks
        .iter()
        .filter(|m| m.kind == MarkKind::Inserted)
        .map(|m| line(&after.text, m.line))
        .collect();
    assert_eq!(inserted.len(), 1, "{:?}", after.marks);
    assert!(
        inserted[0].contains("COPY") && inserted[0].contains("%4.sub0"),
        "{}",
        inserted[0]
    );
    assert_eq!(v.edits.len(), 1);
    assert_eq!(v.edits[0].op, "insert");
    assert!(v.edits[0].text.contains("COPY"));
    assert_eq!(v.payload_type, "extract_subreg_pair");
    assert!(v.payload.iter().any(|r| r.key == "pairs" && r.value == "4"));
    assert_eq!(v.focus_regs, [5]);
    // The EXTRACT_SUBREG the step is about is marked on both sides.
    assert!(v
        .before
        .marks
        .iter()
        .any(|m| line(&v.before.text, m.line).contains("EXTRACT_SUBREG")));
}

#[test]
fn step_zero_is_the_stage_input() {
    let (mut s, summary) = run(example("tex-v4f32"));
    let v = s.view(Stage::TwoAddress, 0).unwrap();
    assert_eq!(v.kind, "input");
    // Beside the input: the stage's output.
    let after = v.after.as_ref().unwrap();
    assert!(after.marks.is_empty());
    assert!(after.text.contains("= COPY") && !after.text.contains("EXTRACT_SUBREG"));
    let n = summary.stage(Stage::TwoAddress).unwrap().steps;
    assert!(
        v.narration.contains(&format!("{n} steps follow")),
        "{}",
        v.narration
    );
    assert!(v.before.text.contains("EXTRACT_SUBREG"));
    // Past the end clamps to the last step.
    assert_eq!(s.view(Stage::TwoAddress, 10_000).unwrap().step, n);
    assert!(
        s.view(Stage::InstrEmitter, 0).is_err(),
        "a stage that did not run (MIR input starts after the emitter)"
    );
}

/// Every step of every stage of every gallery example has a view. MIR stages and ORI
/// stages (GeneralOptimize) replay their steps, and the last step's "after" is the
/// stage's printed output. Of the stages that change IR kind, ptx-emit and ptx-lower
/// replay their edits too (checked against their output in `tests/ptx_replay.rs`);
/// ptx-out shows its input and output.
#[test]
fn every_gallery_step_replays_to_the_stage_output() {
    for e in EXAMPLES {
        let (mut s, summary) = run(e.text(None).unwrap().1);
        for st in &summary.stages {
            let info = st.stage.info();
            let same = |k| info.input == k && info.output == k;
            let mir = same(compiler_core::stages::IrKind::Mir);
            let replays = mir || same(compiler_core::stages::IrKind::Ori);
            let cross_replay = matches!(st.stage, Stage::PtxEmit | Stage::PtxLower);
            assert_eq!(
                st.replayable,
                replays || cross_replay,
                "{}: {}",
                e.name,
                st.stage
            );
            for step in 0..=st.steps {
                let v = s
                    .view(st.stage, step)
                    .unwrap_or_else(|m| panic!("{} {} step {step}: {m}", e.name, st.stage));
                let before_lines = v.before.text.lines().count() as u32;
                assert!(v.before.marks.iter().all(|m| m.line < before_lines));
            }
            // Printed by the pipeline, or (MIR and ORI stages) from the IR the next
            // stage was handed: never from this stage's replay.
            let (_, output) = s.stage_texts(st.stage).unwrap();
            let end = s.diff(st.stage, st.steps, st.steps).unwrap();
            assert_eq!((end.added, end.removed), (0, 0));
            if replays && st.functions.len() == 1 && st.steps > 0 {
                let last = s.view(st.stage, st.steps).unwrap().after.unwrap().text;
                // An ORI module prints module-level items around its function.
                assert!(
                    if mir {
                        output.ends_with(&last)
                    } else {
                        output.contains(&last)
                    },
                    "{} {}: last step is not the output",
                    e.name,
                    st.stage
                );
            }
        }
    }
}

#[test]
fn diff_between_first_and_last_step_shows_the_new_copies() {
    let (mut s, summary) = run(example("tex-v4f32"));
    let n = summary.stage(Stage::TwoAddress).unwrap().steps;
    let d = s.diff(Stage::TwoAddress, 0, n).unwrap();
    let added: Vec<&str> = d
        .lines
        .iter()
        .filter_map(|l| match l {
            DiffLine::Added { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        added.iter().filter(|t| t.contains("= COPY")).count(),
        4,
        "{added:?}"
    );
    assert!(d
        .lines
        .iter()
        .any(|l| matches!(l, DiffLine::Removed { text, .. } if text.contains("EXTRACT_SUBREG"))));
    // Reversed, the same lines swap sides.
    let r = s.diff(Stage::TwoAddress, n, 0).unwrap();
    assert_eq!((r.added, r.removed), (d.removed, d.added));
}

#[test]
fn a_malformed_source_fails_with_its_line_and_column() {
    let bad = "---\nname: k\nbody: |\n  bb.0:\n    %0:b32 = MOV_B32_i 1\n    %1:b32 = ADD32rr %0, ,\n    Return\n...\n";
    let f = match Session::run(7, &request(bad), &mut |_| {}) {
        Err(f) => f,
        Ok(_) => panic!("bad input ran"),
    };
    assert_eq!(f.run_id, 7);
    assert!(!f.usage);
    assert_eq!(f.errors.len(), 1);
    assert_eq!(f.errors[0].line, 6, "{:?}", f.errors);
    assert!(f.errors[0].col > 1);
    // Knob and format mistakes are usage errors with a message.
    let mut r = request(example("commute"));
    r.knobs = "copy-limit=lots".into();
    let f = Session::run(1, &r, &mut |_| {}).err().unwrap();
    assert!(f.usage && f.message.contains("copy-limit"), "{}", f.message);
    r.knobs.clear();
    r.format = Some("rust".into());
    assert!(Session::run(1, &r, &mut |_| {}).err().unwrap().usage);
}

#[test]
fn progress_names_each_stage_in_order() {
    let mut seen = Vec::new();
    let (_, summary) =
        Session::run(3, &request(example("phi-loop")), &mut |p| seen.push(p)).unwrap();
    let labels: Vec<&str> = seen.iter().map(|p| p.label.as_str()).collect();
    let mut want = vec!["reading the source", "source read"];
    let running: Vec<String> = summary
        .stages
        .iter()
        .map(|s| format!("running {}", s.stage))
        .collect();
    want.extend(running.iter().map(String::as_str));
    want.push("summing up");
    assert_eq!(labels, want);
    assert!(seen
        .iter()
        .all(|p| p.run_id == 3 && p.done <= p.total.max(p.done)));
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done));
}

#[test]
fn the_handler_answers_by_run_id() {
    let mut session = None;
    let now = || 0.0;
    let r = handle(
        &mut session,
        Request::Run {
            id: 5,
            run: request(example("commute")),
        },
        &mut |_| {},
        &now,
    );
    let Response::RunDone(summary) = r else {
        panic!("{r:?}")
    };
    assert_eq!(summary.run_id, 5);
    let stage = summary.stages[0].stage;
    let r = handle(
        &mut session,
        Request::View {
            run_id: 5,
            stage,
            step: 1,
        },
        &mut |_| {},
        &now,
    );
    assert!(matches!(r, Response::View(ref v) if v.step == 1), "{r:?}");
    let r = handle(
        &mut session,
        Request::View {
            run_id: 4,
            stage,
            step: 1,
        },
        &mut |_| {},
        &now,
    );
    assert!(matches!(r, Response::ViewFailed { run_id: 4, .. }), "{r:?}");
    let r = handle(
        &mut session,
        Request::Diff {
            run_id: 5,
            stage,
            from: 0,
            to: 1,
        },
        &mut |_| {},
        &now,
    );
    assert!(matches!(r, Response::Diff(_)), "{r:?}");
}

#[test]
fn checkpoint_spacing_bounds_memory() {
    assert_eq!(checkpoint_spacing(10, 10), 64);
    assert_eq!(checkpoint_spacing(0, 0), 64);
    let every = checkpoint_spacing(17_000, 31_000);
    assert!((17_000 / every + 1) * 31_000 <= CHECKPOINT_BUDGET + 31_000);
}

/// The same shape as the e2e responsiveness input: texture fetches whose four lanes
/// are summed into a running total, `units` times (7 instructions each).
pub fn generated_mir(units: usize) -> String {
    let mut s = String::from(
        "---\nname: big\ntracksRegLiveness: true\nnoPhis: true\nbody: |\n  bb.0.entry:\n",
    );
    s.push_str("    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &big_param_0, 0\n");
    s.push_str("    %1:float32regs = LD_f32 0, 0, 101, 3, 32, -1, &big_param_1, 0\n");
    s.push_str("    %2:float32regs = LD_f32 0, 0, 101, 3, 32, -1, &big_param_2, 0\n");
    s.push_str("    %3:float32regs = COPY %1\n");
    let mut acc = 3;
    for u in 0..units {
        let r = 4 + 10 * u;
        let (t, a, b, c, d) = (r, r + 1, r + 2, r + 3, r + 4);
        let (s1, s2, s3, n, cp) = (r + 5, r + 6, r + 7, r + 8, r + 9);
        s.push_str(&format!(
            "    %{t}:float32regsx4 = TEX_2D_V4F32_F32 %0, %1, %2\n"
        ));
        s.push_str(&format!("    %{a}:float32regs, tied-hint early-tied %{b}:float32regs, tied-hint early-tied %{c}:float32regs, tied-hint early-tied %{d}:float32regs = EXTRACT_SUBREG %{t}.sub0, %{t}.sub1, %{t}.sub2, killed %{t}.sub3\n"));
        s.push_str(&format!(
            "    %{s1}:float32regs = FADDf32rr killed %{a}, killed %{b}\n"
        ));
        s.push_str(&format!(
            "    %{s2}:float32regs = FADDf32rr killed %{c}, killed %{d}\n"
        ));
        s.push_str(&format!(
            "    %{s3}:float32regs = FADDf32rr killed %{s1}, killed %{s2}\n"
        ));
        s.push_str(&format!(
            "    %{n}:float32regs = FADDf32rr killed %{acc}, killed %{s3}\n"
        ));
        s.push_str(&format!("    %{cp}:float32regs = COPY killed %{n}\n"));
        acc = cp;
    }
    s.push_str(&format!(
        "    ST_i32 killed %{acc}, 0, 0, 1, 32, killed %0, 0\n    Return\n...\n"
    ));
    s
}

#[test]
fn a_generated_large_input_runs_and_seeks() {
    let (mut s, summary) = run(&generated_mir(300));
    let two = summary.stage(Stage::TwoAddress).unwrap();
    assert!(two.steps > 1000, "{}", two.steps);
    assert!(two.noop.iter().any(|&n| n) && two.noop.iter().any(|&n| !n));
    let mid = s.view(Stage::TwoAddress, two.steps / 2).unwrap();
    assert!(mid.after.is_some());
    assert!(two.remarks.len() <= MAX_REMARKS && two.remarks_total as usize >= two.remarks.len());
    let d = s.diff(Stage::TwoAddress, 0, two.steps).unwrap();
    assert!(d.added > 1000, "{}", d.added);
}

/// A view is the same whichever way it is reached: stepping forward one at a time (the
/// session moves its cursor by one step), jumping in a scrambled order (a seek), or
/// asking twice; across every stage of every gallery example.
#[test]
fn views_do_not_depend_on_the_order_they_are_asked_in() {
    let text = |v: &StepView| {
        (
            v.function.clone(),
            v.before.text.clone(),
            v.before.marks.iter().map(|m| m.line).collect::<Vec<_>>(),
            v.after.as_ref().map(|a| (a.text.clone(), a.marks.len())),
            v.edits.len(),
            v.narration.clone(),
        )
    };
    let mut compared = 0;
    // The gallery, and a generated input long enough for checkpoints to be spaced out.
    let generated = generated_mir(40);
    let inputs = EXAMPLES
        .iter()
        .map(|e| (e.name, e.text(None).unwrap().1))
        .chain([("generated", generated.as_str())]);
    for (name, source) in inputs {
        let (mut forward, summary) = run(source);
        let (mut jumping, _) = run(source);
        for st in summary.stages.iter().filter(|s| s.replayable) {
            let stepped: Vec<_> = (0..=st.steps)
                .map(|n| text(&forward.view(st.stage, n).unwrap()))
                .collect();
            // A fixed scramble: every step once, far from the one before.
            let n = st.steps + 1;
            let stride = (1..n)
                .rev()
                .find(|k| gcd(*k, n) == 1 && *k > n / 3)
                .unwrap_or(1);
            for q in 0..n {
                let step = (q * stride) % n;
                let got = text(&jumping.view(st.stage, step).unwrap());
                assert_eq!(
                    got, stepped[step as usize],
                    "{name} {} step {step}",
                    st.stage
                );
                let again = text(&jumping.view(st.stage, step).unwrap());
                assert_eq!(again, got, "{name} {} step {step} asked twice", st.stage);
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "{compared} views compared");
}

/// With a budget too small for two stages' seek tables (`Session::set_table_budget`;
/// the default, `TABLE_BUDGET`, is one large stage's), a view of another stage drops
/// the tables of the stage before, and coming back builds them again. The views must
/// not notice: the middle and last step of every stage, asked in stage order, then
/// again in reverse order (each one after a view of another stage).
#[test]
fn views_are_the_same_after_their_stage_tables_were_dropped() {
    let generated = generated_mir(40);
    let inputs = ["phi-loop", "iteration-cap", "tex-v4f32"]
        .into_iter()
        .map(|n| (n, example(n)))
        .chain([("generated", generated.as_str())]);
    for (name, source) in inputs {
        let (mut s, summary) = run(source);
        let asks: Vec<(Stage, u32)> = summary
            .stages
            .iter()
            .filter(|st| st.replayable)
            .flat_map(|st| [(st.stage, st.steps.div_ceil(2)), (st.stage, st.steps)])
            .collect();
        assert!(asks.len() >= 4, "{name}");
        s.set_table_budget(1);
        // Drops seen: a stage with tables viewed after another stage that had some.
        let (mut dropped, mut before) = (0, None);
        let mut first = Vec::new();
        for &(st, n) in &asks {
            first.push(s.view(st, n).unwrap());
            let held = s.table_stages();
            // ptx-emit has no tables (its seeks go on from the last one).
            let only = held.len() <= 1 && (st == Stage::PtxEmit || held == [st]);
            assert!(only, "{name} {st}: {held:?}");
            if held == [st] && before.is_some_and(|b| b != st) {
                dropped += 1;
            }
            before = held.first().copied().or(before);
        }
        assert!(dropped > 0, "{name}: no stage's tables were dropped");
        for (k, &(st, n)) in asks.iter().enumerate().rev() {
            assert_eq!(s.view(st, n).unwrap(), first[k], "{name} {st} {n}");
        }
    }
}

/// With the default budget a small input keeps the seek tables of every stage it
/// viewed: going back to a stage builds nothing again.
#[test]
fn a_small_input_keeps_the_tables_of_every_stage_viewed() {
    let (mut s, summary) = run(example("phi-loop"));
    let viewed: Vec<Stage> = (summary.stages.iter())
        .filter(|st| st.replayable && st.steps > 0 && st.stage != Stage::PtxEmit)
        .map(|st| st.stage)
        .collect();
    assert!(viewed.len() >= 4, "{viewed:?}");
    for &st in &viewed {
        s.view(st, 1).unwrap();
    }
    assert_eq!(s.table_stages(), viewed);
}

/// Copies of a state that grows along the steps stay within their budget: the spacing
/// doubles and every other copy goes, each kept copy still the state after
/// `k * every()` steps.
#[test]
fn copies_of_a_growing_state_stay_within_their_budget() {
    let mut state: Vec<usize> = Vec::new();
    let mut copies = Copies::new(&state, 0, 4, 2000);
    for done in 1..=1000 {
        state.push(done);
        copies.after_step(done, &state, state.len());
        let held: usize = (1..copies.len()).map(|k| copies.get(k).len()).sum();
        assert!(held <= 2000, "after {done} steps the copies hold {held}");
        for k in 0..copies.len() {
            assert_eq!(copies.get(k).len(), k * copies.every(), "copy {k}");
        }
    }
    // Copies at e, 2e, ... up to 1000 hold e * m(m+1)/2 (m = 1000 / e): 3584 at
    // e = 128, 1536 at e = 256.
    assert_eq!((copies.every(), copies.len()), (256, 4));
    let (k, c) = copies.at_or_before(999);
    assert_eq!((k, c.len()), (3, 768));
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A "no-op" flag claims the step changed nothing in the IR, so a stage whose steps
/// record no IR edits at all cannot flag any: on iteration-cap's GeneralOptimize (marks,
/// rounds, folds, dead-code removal) "skip steps that change nothing" jumped from step 0
/// to the last (issue 30). Every step flagged no-op carries no edit; and when a stage
/// flags some, it is one that records edits.
#[test]
fn noop_flags_only_where_the_stage_records_edits() {
    let (s, summary) = run(example("iteration-cap"));
    let go = summary.stage(Stage::GeneralOptimize).unwrap();
    assert!(go.steps > 3, "{}", go.steps);
    assert!(
        go.noop.iter().any(|&n| !n),
        "some GeneralOptimize step of iteration-cap must count as a change: {:?}",
        go.noop
    );
    for r in &s.result().stages {
        let flags = &summary.stage(r.stage).unwrap().noop;
        // MIR edits or, in the ORI stages, ORI edits.
        let records = r.steps.iter().any(|st| !st.is_noop());
        for (st, &noop) in r.steps.iter().zip(flags) {
            assert!(!noop || st.is_noop(), "{}", r.stage);
        }
        // A stage without any edit is flagged only when the engine replays it (its
        // steps' edits are then known to be complete): MIR → MIR and ORI → ORI stages.
        if !records && flags.iter().any(|&n| n) {
            let info = r.stage.info();
            assert!(
                matches!(
                    (info.input, info.output),
                    (IrKind::Mir, IrKind::Mir) | (IrKind::Ori, IrKind::Ori)
                ) || r.stage == Stage::InstrEmitter,
                "{}",
                r.stage
            );
        }
    }
}

/// The bench (`compiler-core/tests/bench.rs`, which cannot depend on this crate) builds
/// the engine's seek tables with its own copies of the budgets and of the spacing
/// rule's bound (`WEB_BUDGET`, `WEB_ORI_BUDGET`, and the words its reports print): read
/// from its source, they must be the engine's. Changing either side alone fails here.
#[test]
fn the_bench_builds_seek_tables_with_the_engines_budgets() {
    let bench = include_str!("../../compiler-core/tests/bench.rs");
    let value = |name: &str| -> usize {
        let head = format!("const {name}: usize = ");
        let line = (bench.lines())
            .find_map(|l| l.strip_prefix(&head))
            .unwrap_or_else(|| panic!("bench.rs has no `{head}...`"));
        let expr = line.trim_end_matches(';').trim();
        match expr.split_once("<<") {
            Some((a, b)) => a.trim().parse::<usize>().unwrap() << b.trim().parse::<u32>().unwrap(),
            None => expr.replace('_', "").parse().unwrap(),
        }
    };
    assert_eq!(value("WEB_BUDGET"), CHECKPOINT_BUDGET);
    assert_eq!(value("WEB_ORI_BUDGET"), ORI_CHECKPOINT_BUDGET);
    let words = format!(
        "at most 2^{} instructions",
        CHECKPOINT_BUDGET.trailing_zeros()
    );
    assert!(CHECKPOINT_BUDGET.is_power_of_two());
    assert!(
        bench.contains(&words),
        "bench.rs's reports should say `{words}`"
    );
}
