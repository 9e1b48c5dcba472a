//! The reducer's guided tours and side-by-side slots, driven natively with the real
//! engine session answering runs, views and tours.

use super::*;
use compiler_core::share;
use web_engine::protocol::{Request, Response};

/// Plays the engine for everything the state wants: the run, the main view, the slot
/// views, the tour.
fn settle(session: &mut Option<web_engine::Session>, mut s: AppState) -> AppState {
    for _ in 0..6 {
        let mut requests = Vec::new();
        if let Some((id, _, run)) = s.run_wanted() {
            s = s.apply(Action::RunSent(id));
            requests.push(Request::Run { id, run });
        } else {
            if let Some((run_id, stage, step)) = s.view_wanted() {
                requests.push(Request::View {
                    run_id,
                    stage,
                    step,
                });
            }
            for (run_id, stage, step) in s.side_views_wanted() {
                requests.push(Request::View {
                    run_id,
                    stage,
                    step,
                });
            }
            if let Some((run_id, example)) = s.tour_wanted() {
                requests.push(Request::Tour {
                    run_id,
                    example: example.into(),
                });
            }
        }
        for r in requests {
            let answer = web_engine::handle(session, r, &mut |_| {}, &|| 0.0);
            s = s.apply(match answer {
                Response::RunDone(x) => Action::RunDone(Rc::new(x)),
                Response::View(v) => Action::ViewArrived(Rc::new(*v)),
                Response::Tour(p) => Action::TourArrived(Rc::new(p)),
                Response::TourFailed {
                    run_id,
                    example,
                    message,
                } => Action::TourFailed {
                    run_id,
                    example,
                    message,
                },
                other => panic!("unexpected {other:?}"),
            });
        }
    }
    s
}

#[test]
fn a_tour_loads_its_example_and_walks_every_stop_to_the_end() {
    let mut engine = None;
    let s = settle(&mut engine, AppState::default().apply(Action::Start));
    let s = settle(&mut engine, s.apply(Action::StartTour("select-fold")));
    assert_eq!(s.example, Some("select-fold"));
    let t = s.tour.clone().expect("tour running");
    let plan = t.plan.clone().expect("resolved");
    assert_eq!((t.stop, plan.stops.len()), (0, 7));
    assert_eq!(
        (s.stage, s.step),
        (Some(plan.stops[0].stage), plan.stops[0].step)
    );
    let mut s = s;
    for k in 1..plan.stops.len() {
        s = s.apply(Action::NextStop);
        let stop = &plan.stops[k];
        assert_eq!((s.stage, s.step), (Some(stop.stage), stop.step), "stop {k}");
        s = settle(&mut engine, s);
        let v = s.view.as_ref().unwrap();
        assert_eq!((v.stage, v.step), (stop.stage, stop.step));
    }
    // At the end Next does nothing; Back and GoToStop move; End closes the tour.
    let end = s.apply(Action::NextStop);
    assert_eq!(end.tour.as_ref().unwrap().stop, plan.stops.len() - 1);
    let back = end.apply(Action::PrevStop);
    assert_eq!(back.tour.as_ref().unwrap().stop, plan.stops.len() - 2);
    let first = back.apply(Action::GoToStop(0));
    assert_eq!((first.stage, first.step), (Some(plan.stops[0].stage), 0));
    assert!(first.apply(Action::EndTour).tour.is_none());
}

#[test]
fn autoplay_advances_one_stop_per_tick_and_stops_at_the_end() {
    let mut engine = None;
    let s = settle(
        &mut engine,
        AppState::default().apply(Action::StartTour("tex-v4f32")),
    );
    let n = s.tour.as_ref().unwrap().len();
    let mut s = s.apply(Action::ToggleAutoplay);
    assert!(s.tour.as_ref().unwrap().autoplay);
    for k in 1..n {
        s = s.apply(Action::TourTick);
        assert_eq!(s.tour.as_ref().unwrap().stop, k);
    }
    assert!(
        !s.tour.as_ref().unwrap().autoplay,
        "autoplay ends on the last stop"
    );
    // Autoplay from the end starts over.
    let again = s.apply(Action::ToggleAutoplay);
    assert_eq!(again.tour.as_ref().unwrap().stop, 0);
}

#[test]
fn editing_the_source_or_loading_another_example_ends_the_tour() {
    let mut engine = None;
    let s = settle(
        &mut engine,
        AppState::default().apply(Action::StartTour("commute")),
    );
    assert!(s.tour.is_some());
    let edited = s.apply(Action::SetSource(format!("{}\n", s.source)));
    assert!(edited.tour.is_none());
    assert!(s.apply(Action::LoadExample("sub-copy")).tour.is_none());
    // A rerun of the same example (a knob) resolves the tour again against the new run.
    let rerun = settle(&mut engine, s.apply(Action::RunNow));
    let t = rerun.tour.as_ref().unwrap();
    assert_eq!(
        t.plan.as_ref().unwrap().run_id,
        rerun.summary.as_ref().unwrap().run_id
    );
}

#[test]
fn side_by_side_slots_follow_the_main_step_bar_and_travel_in_links() {
    let mut engine = None;
    let s = settle(&mut engine, AppState::default().apply(Action::Start));
    let s = settle(&mut engine, s.apply(Action::SetLayout(Layout::SideBySide)));
    // Defaults: each slot's stage at its input (issue 30: they opened at their last
    // step), all three views loaded; two-address is the main stage, so slot 0 is linked.
    let slots = s.picture_slots();
    assert_eq!(
        slots,
        [
            (Stage::TwoAddress, 0),
            (Stage::NvptxCoalescer, 0),
            (Stage::GeneralOptimize, 0)
        ]
    );
    assert_eq!(
        (s.stage, s.linked_slot()),
        (Some(Stage::TwoAddress), Some(0))
    );
    for &(stage, step) in &slots {
        assert_eq!(s.side_views.get(&stage).map(|v| v.step), Some(step));
    }
    assert!(s.pictures.is_empty());
    // The main step bar moves the linked slot (it moved nothing before).
    let s = settle(
        &mut engine,
        apply_all(s, [Action::Step(1), Action::Step(1), Action::Step(1)]),
    );
    assert_eq!(s.step, 3);
    assert_eq!(s.picture_slots()[0], (Stage::TwoAddress, 3));
    assert_eq!(s.side_views.get(&Stage::TwoAddress).unwrap().step, 3);
    // Stepping another slot moves the link; slot 0 keeps the step the main bar gave it.
    let t = s.apply(Action::PictureStep { slot: 1, delta: 1 });
    assert_eq!(t.picture_slots()[0], (Stage::TwoAddress, 3));
    assert_eq!((t.stage, t.step), (Some(Stage::NvptxCoalescer), 1));
    // A slot's own buttons make it the linked one: the main bar follows it.
    let s = settle(
        &mut engine,
        apply_all(
            s,
            [
                Action::PictureSeek { slot: 0, step: 3 },
                Action::PictureStep { slot: 0, delta: 1 },
                Action::SetPictureStage {
                    slot: 2,
                    stage: Stage::GeneralOptimizeMid,
                },
                Action::PictureSeek { slot: 2, step: 1 },
                Action::PictureStep { slot: 1, delta: 2 },
                Action::PictureStep { slot: 1, delta: -1 },
            ],
        ),
    );
    assert_eq!(
        s.picture_slots(),
        [
            (Stage::TwoAddress, 4),
            (Stage::NvptxCoalescer, 1),
            (Stage::GeneralOptimizeMid, 1)
        ]
    );
    assert_eq!((s.stage, s.step), (Some(Stage::NvptxCoalescer), 1));
    assert_eq!(s.linked_slot(), Some(1));
    // Slot 0, linked before, kept the step it showed when the link moved on.
    let fan = s.side_views.get(&Stage::TwoAddress).unwrap();
    assert_eq!(fan.step, 4);
    assert!(fan.picture.is_some());
    let s = settle(&mut engine, s.apply(Action::Last));
    let last = s.stage_steps(Stage::NvptxCoalescer);
    assert_eq!(s.picture_slots()[1], (Stage::NvptxCoalescer, last));
    assert_eq!(s.side_views.get(&Stage::NvptxCoalescer).unwrap().step, last);
    // A slot cannot take a stage of another kind.
    let same = s.apply(Action::SetPictureStage {
        slot: 2,
        stage: Stage::PtxLower,
    });
    assert_eq!(same.picture_slots(), s.picture_slots());
    // The link keeps the layout, the main step and every slot; reopening restores them.
    let link = share::encode_state(&s.link_state());
    let reopened = AppState::default().apply(Action::OpenLink(share::decode(&link)));
    assert_eq!(reopened.layout, Layout::SideBySide);
    assert_eq!(reopened.pictures, s.pictures);
}

fn apply_all(s: AppState, actions: impl IntoIterator<Item = Action>) -> AppState {
    actions.into_iter().fold(s, |s, a| s.apply(a))
}
