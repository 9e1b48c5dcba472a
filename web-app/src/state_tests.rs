//! The reducer, driven natively with the real engine session standing in for the Web
//! Worker.

use super::*;
use compiler_core::share;
use web_engine::protocol::{Request, Response};

thread_local! {
    /// The engine's session, kept across `settle` calls as the worker keeps it.
    static SESSION: std::cell::RefCell<Option<web_engine::Session>> = const { std::cell::RefCell::new(None) };
}

/// Plays the engine: sends the queued run, then the wanted view, applying the answers.
fn settle(s: AppState) -> AppState {
    SESSION.with(|cell| settle_with(&mut cell.borrow_mut(), s))
}

fn settle_with(session: &mut Option<web_engine::Session>, mut s: AppState) -> AppState {
    for _ in 0..4 {
        if let Some((id, _, run)) = s.run_wanted() {
            s = s.apply(Action::RunSent(id));
            let r = web_engine::handle(
                session,
                Request::Run { id, run },
                &mut |p| {
                    // Progress arrives while running.
                    let _ = p;
                },
                &|| 0.0,
            );
            s = s.apply(response_action(r));
        }
        if let (Some((run_id, stage, step)), None) = (s.view_wanted(), &s.view) {
            let r = web_engine::handle(
                session,
                Request::View {
                    run_id,
                    stage,
                    step,
                },
                &mut |_| {},
                &|| 0.0,
            );
            s = s.apply(response_action(r));
        }
    }
    s
}

fn response_action(r: Response) -> Action {
    match r {
        Response::RunDone(x) => Action::RunDone(Rc::new(x)),
        Response::RunFailed(f) => Action::RunFailed(Rc::new(f)),
        Response::View(v) => Action::ViewArrived(Rc::new(*v)),
        Response::Diff(d) => Action::DiffArrived(Rc::new(d)),
        other => panic!("unexpected {other:?}"),
    }
}

fn started() -> AppState {
    settle(AppState::default().apply(Action::Start))
}

fn apply_all(s: AppState, actions: impl IntoIterator<Item = Action>) -> AppState {
    actions.into_iter().fold(s, |s, a| s.apply(a))
}

#[test]
fn start_loads_the_default_example_at_its_stage() {
    let s = AppState::default().apply(Action::Start);
    assert_eq!(s.example, Some(DEFAULT_EXAMPLE));
    assert!(matches!(s.run, RunState::Queued { delay_ms: 0, .. }));
    let s = settle(s);
    assert!(matches!(s.run, RunState::Done { .. }));
    assert_eq!(s.stage, Some(Stage::TwoAddress));
    assert_eq!(s.step, 0);
    assert_eq!(s.view.as_ref().unwrap().step, 0);
}

#[test]
fn stepping_to_step_3_of_two_address_on_tex_v4f32() {
    let s = apply_all(
        started(),
        [
            Action::LoadExample("tex-v4f32"),
            Action::SelectStage(Stage::TwoAddress),
        ],
    );
    let s = settle(s);
    let s = apply_all(s, [Action::Step(1), Action::Step(1), Action::Step(1)]);
    assert_eq!(s.step, 3);
    assert_eq!(
        s.view_wanted().map(|w| (w.1, w.2)),
        Some((Stage::TwoAddress, 3))
    );
    // The old view is kept (dimmed by the page) until the new one comes.
    let old = s.view.clone();
    let stale = Rc::new(StepView {
        step: 2,
        ..(**old.as_ref().unwrap()).clone()
    });
    let s = s.apply(Action::ViewArrived(stale));
    assert_eq!(s.view, old, "a view for another step is dropped");
    let s = settle(AppState { view: None, ..s });
    let v = s.view.as_ref().unwrap();
    assert_eq!(v.step, 3);
    assert!(v.narration.contains("Pair 1 of 4"));
}

#[test]
fn skipping_no_op_steps() {
    let s = settle(started().apply(Action::LoadExample("tex-v4f32")));
    let noop = s.stage_summary().unwrap().noop.clone();
    let total = s.total_steps();
    assert!(
        noop.iter().any(|&n| n),
        "tex-v4f32 has steps that change nothing"
    );
    let mut walk = vec![];
    let mut t = s.apply(Action::SetSkipNoop(true));
    while t.step < total {
        t = t.apply(Action::Step(1));
        walk.push(t.step);
    }
    for &n in &walk[..walk.len() - 1] {
        assert!(!noop[n as usize - 1], "stopped on no-op step {n}");
    }
    // Back again.
    let back = t.apply(Action::Step(-1));
    assert!(back.step == 0 || !noop[back.step as usize - 1]);
    // Without skipping every step is visited.
    let s1 = s.apply(Action::Step(1));
    assert_eq!(s1.step, 1);
}

#[test]
fn play_advances_on_ticks_and_stops_at_the_end() {
    let s = settle(started().apply(Action::LoadExample("tex-v4f32")));
    let total = s.total_steps();
    let mut p = s.apply(Action::Play);
    assert!(p.playing);
    for _ in 0..total + 3 {
        p = p.apply(Action::Tick);
    }
    assert_eq!(p.step, total);
    assert!(!p.playing);
    // Play at the end restarts from the input.
    let again = p.apply(Action::TogglePlay);
    assert!(again.playing && again.step == 0);
    assert!(!again.apply(Action::TogglePlay).playing);
    assert_eq!(s.apply(Action::Seek(9999)).step, total);
    assert_eq!(s.apply(Action::Last).step, total);
    assert_eq!(s.apply(Action::Last).apply(Action::First).step, 0);
}

#[test]
fn bad_knob_values_stay_drafts_with_an_error() {
    let s = started();
    let before = s.run.clone();
    let bad = s.apply(Action::SetKnob {
        knob: Knob::CopyLimit,
        text: "lots".into(),
    });
    assert_eq!(bad.knobs, s.knobs);
    assert_eq!(bad.run, before, "no run for a bad value");
    let draft = &bad.knob_drafts[&Knob::CopyLimit];
    assert!(draft.error.contains("unlimited"), "{}", draft.error);
    assert_eq!(bad.knob_text(Knob::CopyLimit), "lots");

    let good = bad.apply(Action::SetKnob {
        knob: Knob::CopyLimit,
        text: "5".into(),
    });
    assert!(good.knob_drafts.is_empty());
    assert_eq!(good.knobs.to_query(), "copy-limit=5");
    assert!(matches!(
        good.run,
        RunState::Queued {
            delay_ms: TYPING_DELAY_MS,
            ..
        }
    ));
    assert_eq!(good.knob_text(Knob::CopyLimit), "5");
    let reset = good.apply(Action::ResetKnob(Knob::CopyLimit));
    assert_eq!(reset.knobs, Knobs::default());
    let all = good.apply(Action::ResetKnobs);
    assert_eq!(all.knobs, Knobs::default());
}

#[test]
fn a_copied_link_reopens_the_same_view() {
    let s = settle(apply_all(
        started(),
        [
            Action::LoadExample("tex-v4f32"),
            Action::SetKnob {
                knob: Knob::TwoaddrReschedule,
                text: "false".into(),
            },
            Action::SetLayout(Layout::Presenter),
        ],
    ));
    let s = apply_all(s, [Action::SelectStage(Stage::TwoAddress), Action::Seek(3)]);
    let fragment = share::encode_state(&s.link_state());
    let opened =
        settle(AppState::default().apply(Action::OpenLink(share::decode(&format!("#{fragment}")))));
    assert_eq!(opened.source, s.source);
    assert_eq!(opened.knobs, s.knobs);
    assert_eq!(opened.layout, Layout::Presenter);
    assert_eq!((opened.stage, opened.step), (Some(Stage::TwoAddress), 3));
    assert_eq!(opened.example, Some("tex-v4f32"));
    assert!(opened.notice.is_none());
}

#[test]
fn example_links_and_bad_links() {
    let link = share::decode("#example=tex-v4f32&stage=two-address&step=3");
    let s = settle(AppState::default().apply(Action::OpenLink(link)));
    assert_eq!(s.example, Some("tex-v4f32"));
    assert_eq!((s.stage, s.step), (Some(Stage::TwoAddress), 3));

    let unknown = share::decode("#example=no-such-example");
    let s = settle(AppState::default().apply(Action::OpenLink(unknown)));
    assert!(s.notice.as_ref().unwrap().error);
    assert!(s.notice.as_ref().unwrap().text.contains("no-such-example"));
    assert_eq!(s.example, Some(DEFAULT_EXAMPLE));

    let broken = share::decode("#v1.AAAAAAAA");
    let s = settle(AppState::default().apply(Action::OpenLink(broken)));
    let n = s.notice.as_ref().unwrap();
    assert!(
        n.error && n.text.contains("could not be read"),
        "{}",
        n.text
    );
    assert_eq!(s.example, Some(DEFAULT_EXAMPLE));
    assert!(matches!(s.run, RunState::Done { .. }));
    assert!(s.apply(Action::DismissNotice).notice.is_none());

    // A step past the end of the stage shows the last one and says so (issue 30: it
    // was clamped silently).
    let far = share::decode("#example=tex-v4f32&stage=two-address&step=999");
    let s = settle(AppState::default().apply(Action::OpenLink(far)));
    assert_eq!(s.step, s.total_steps());
    let n = s.notice.as_ref().expect("the clamp is reported");
    assert_eq!(
        n.text,
        format!(
            "This link asks for step 999 of two-address, which has only {} steps; showing step {}.",
            s.total_steps(),
            s.total_steps()
        )
    );
    // A stage the input does not reach is reported too.
    let early = share::decode("#example=tex-v4f32&stage=instr-emitter&step=1");
    let s = settle(AppState::default().apply(Action::OpenLink(early)));
    assert_eq!(s.stage, Some(Stage::TwoAddress));
    assert!(s
        .notice
        .as_ref()
        .unwrap()
        .text
        .contains("instr-emitter, which did not run"));
    // A step that exists is no news.
    let ok = share::decode("#example=tex-v4f32&stage=two-address&step=2");
    assert!(settle(AppState::default().apply(Action::OpenLink(ok)))
        .notice
        .is_none());
}

#[test]
fn untouched_examples_get_the_short_link() {
    let s = settle(started().apply(Action::LoadExample("phi-swap")));
    let s = s.apply(Action::Seek(2));
    let stage = s.stage.unwrap().id();
    assert_eq!(
        s.link_fragment(),
        format!("example=phi-swap&stage={stage}&step=2")
    );
    let back =
        settle(AppState::default().apply(Action::OpenLink(share::decode(&s.link_fragment()))));
    assert_eq!(
        (back.example, back.stage, back.step),
        (Some("phi-swap"), s.stage, 2)
    );
    // Edited text, a knob or another layout need the whole state.
    let edited = s.apply(Action::SetSource(format!("{} ", s.source)));
    assert!(edited.link_fragment().starts_with("v1."));
    let knob = s.apply(Action::SetKnob {
        knob: Knob::TwoaddrReschedule,
        text: "false".into(),
    });
    assert!(knob.link_fragment().starts_with("v1."));
    assert!(s
        .apply(Action::SetLayout(Layout::Presenter))
        .link_fragment()
        .starts_with("v1."));
}

#[test]
fn a_stage_the_new_input_does_not_reach_gives_way_to_its_own() {
    // PTX pasted while phi-elimination is shown: the view moves to a stage that ran
    // (issue 30: it stayed on phi-elimination, "not run").
    let s = settle(started().apply(Action::LoadExample("phi-swap")));
    let s = s.apply(Action::SelectStage(Stage::PhiElimination));
    let ptx = compiler_core::examples::find("iteration-cap")
        .unwrap()
        .text(None)
        .unwrap()
        .1;
    let t = settle(s.apply(Action::SetSource(format!("{ptx}\n"))));
    let first = t.summary.as_ref().unwrap().stages[0].stage;
    assert_eq!(t.stage, Some(first));
    assert!(t.stage_summary().is_some());
    assert_eq!(t.step, 0);
}

#[test]
fn cancel_keeps_the_last_results_and_can_restore_them() {
    let s = started();
    let done = s.summary.clone().unwrap();
    let view = s.view.clone().unwrap();
    let queued = s.apply(Action::SetSource(format!("{} ", s.source)));
    let id = queued.run.id().unwrap();
    let running = queued.apply(Action::RunSent(id));
    assert!(running.sent_request.is_some());
    let cancelled = running.apply(Action::CancelRun);
    assert_eq!(cancelled.run, RunState::Cancelled { id });
    // Results stay (issue 30: Cancel threw them away).
    assert_eq!(cancelled.summary.as_ref().unwrap().run_id, done.run_id);
    assert_eq!(cancelled.view.as_deref(), Some(&*view));
    assert!(cancelled
        .run_message
        .as_ref()
        .unwrap()
        .contains("last run that finished"));
    // The restarted engine gets the run behind them again, under its id.
    let (rid, req) = cancelled.restore_wanted().expect("a run to restore");
    assert_eq!(rid, done.run_id);
    assert_eq!(req.source, *s.source);
    // Its answer changes nothing; stepping still asks for views of that run.
    let mut engine = None;
    let answer = web_engine::handle(
        &mut engine,
        Request::Run { id: rid, run: req },
        &mut |_| {},
        &|| 0.0,
    );
    let after = cancelled.apply(response_action(answer));
    assert_eq!(after, cancelled);
    let stepped = after.apply(Action::Step(1));
    assert_eq!(stepped.view_wanted().map(|w| w.0), Some(done.run_id));
}

#[test]
fn a_malformed_source_shows_errors_and_keeps_working() {
    let s = started();
    let bad = "---\nname: k\nbody: |\n  bb.0:\n    %0:b32 = MOV_B32_i 1\n    %1:b32 = ADD32rr %0, ,\n    Return\n...\n";
    let t = s.apply(Action::SetSource(bad.into()));
    assert_eq!(t.example, None);
    assert!(matches!(
        t.run,
        RunState::Queued {
            delay_ms: TYPING_DELAY_MS,
            ..
        }
    ));
    let t = settle(t);
    assert!(matches!(t.run, RunState::Failed { .. }));
    assert_eq!(t.errors.len(), 1);
    assert_eq!(t.errors[0].line, 6);
    assert!(t.summary.is_none() && t.view.is_none());
    // Fixing it runs again and clears the errors.
    let fixed = settle(t.apply(Action::LoadExample("commute")));
    assert!(fixed.errors.is_empty() && fixed.summary.is_some());
    // Typing the same text again is not a change.
    let same = fixed.apply(Action::SetSource(fixed.source.to_string()));
    assert_eq!(same.run, fixed.run);
}

#[test]
fn answers_for_other_runs_are_dropped() {
    let s = started();
    let done = s.summary.clone().unwrap();
    let queued = s.apply(Action::RunNow);
    let id = queued.run.id().unwrap();
    assert!(id > done.run_id);
    let sent = queued.apply(Action::RunSent(id));
    let progress = Progress {
        run_id: id,
        done: 1,
        total: 3,
        label: "running two-address".into(),
    };
    let sent = sent.apply(Action::RunProgress(progress.clone()));
    assert_eq!(
        sent.run,
        RunState::Running {
            id,
            progress: Some(progress)
        }
    );
    // The previous run's summary arriving late changes nothing.
    assert_eq!(sent.apply(Action::RunDone(done.clone())), sent);
    // Cancelled: its answer is dropped too.
    let cancelled = sent.apply(Action::CancelRun);
    assert_eq!(cancelled.run, RunState::Cancelled { id });
    let late = RunSummary {
        run_id: id,
        ..(*done).clone()
    };
    assert_eq!(
        cancelled.apply(Action::RunDone(Rc::new(late))).run,
        cancelled.run
    );
    // A crash while running ends the run with a message.
    let crashed = sent.apply(Action::EngineCrashed("boom".into()));
    assert_eq!(crashed.run, RunState::Failed { id });
    assert_eq!(crashed.engine_error.as_deref(), Some("boom"));
}

#[test]
fn a_rerun_keeps_the_stage_and_step() {
    let s = settle(started().apply(Action::LoadExample("tex-v4f32")));
    let s = apply_all(s, [Action::SelectStage(Stage::TwoAddress), Action::Seek(4)]);
    let again = settle(s.apply(Action::SetKnob {
        knob: Knob::DataflowEdgeLimit,
        text: "5".into(),
    }));
    assert_eq!((again.stage, again.step), (Some(Stage::TwoAddress), 4));
    // A stage that did not run (MIR input starts after the emitter) shows nothing.
    let other = again.apply(Action::SelectStage(Stage::InstrEmitter));
    assert_eq!(other.total_steps(), 0);
    assert_eq!(other.view_wanted(), None);
}

#[test]
fn diff_range_follows_the_stage() {
    let s = settle(started().apply(Action::LoadExample("tex-v4f32")));
    let total = s.total_steps();
    assert_eq!((s.diff_from, s.diff_to), (0, total));
    assert_eq!(s.diff_wanted(), None, "only while the diff tab is open");
    let d = s.apply(Action::SetCentreTab(CentreTab::Diff));
    assert_eq!(d.diff_wanted().map(|w| (w.2, w.3)), Some((0, total)));
    let d = d.apply(Action::SetDiffRange { from: 2, to: 999 });
    assert_eq!((d.diff_from, d.diff_to), (2, total));
}

#[test]
fn unchanged_state_keeps_the_same_rc() {
    let state = Rc::new(started());
    let again = state.clone().reduce(Action::SetSkipNoop(false));
    assert!(Rc::ptr_eq(&state, &again));
    let changed = state.clone().reduce(Action::SetSkipNoop(true));
    assert!(!Rc::ptr_eq(&state, &changed));
}

#[test]
fn the_engine_says_which_stages_exist() {
    let s = AppState::default();
    assert_eq!(s.is_implemented(Stage::TwoAddress), None);
    let Response::Ready { implemented } = web_engine::ready() else {
        panic!()
    };
    let all = s.apply(Action::EngineReady(implemented.clone()));
    for stage in implemented {
        assert_eq!(all.is_implemented(stage), Some(true));
    }
    let some = s.apply(Action::EngineReady(vec![Stage::TwoAddress]));
    assert_eq!(some.is_implemented(Stage::TwoAddress), Some(true));
    assert_eq!(some.is_implemented(Stage::PtxOut), Some(false));
}

#[test]
fn format_detection_and_override() {
    let s = started();
    assert_eq!(s.effective_format(), InputFormat::Mir);
    let p = s.apply(Action::SetSource(".version 8.8\n.target sm_90\n".into()));
    assert_eq!(p.effective_format(), InputFormat::Ptx);
    let forced = p.apply(Action::SetFormat(Some(InputFormat::Dag)));
    assert_eq!(forced.effective_format(), InputFormat::Dag);
    assert_eq!(
        forced.run_wanted().unwrap().2.format.as_deref(),
        Some("dag")
    );
}

#[test]
fn column_widths_are_kept_per_layout_not_per_stage() {
    use crate::model::panes::Pane;
    let s = started();
    let wide = apply_all(
        s,
        [
            Action::NudgePane {
                pane: Pane::Picture,
                delta: 1,
            },
            Action::NudgePane {
                pane: Pane::Picture,
                delta: 1,
            },
            Action::SelectStage(Stage::PhiElimination),
        ],
    );
    assert_eq!(wide.pane_widths().picture, 44);
    // Another layout has its own widths; coming back finds these again.
    let presenter = wide.apply(Action::SetLayout(Layout::Presenter));
    assert_eq!(presenter.pane_widths().picture, 60);
    let back = presenter.apply(Action::SetLayout(Layout::Standard));
    assert_eq!(back.pane_widths().picture, 44);
    // Collapse and reopen; a drag sets a width directly.
    let shut = back.apply(Action::TogglePane(Pane::Left));
    assert_eq!(shut.pane_widths().left, 0);
    assert_eq!(
        shut.apply(Action::TogglePane(Pane::Left))
            .pane_widths()
            .left,
        22
    );
    let opened = shut.apply(Action::NudgePane {
        pane: Pane::Left,
        delta: 1,
    });
    assert_eq!(opened.pane_widths().left, 12);
    let dragged = back.apply(Action::SetPaneWidth {
        pane: Pane::Picture,
        percent: 55,
    });
    assert_eq!(dragged.pane_widths().picture, 55);
}
