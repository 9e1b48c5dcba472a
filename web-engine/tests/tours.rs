//! Guided tours: every gallery example has one, and every stop of every tour resolves to
//! an existing step of the real run, of the kind it asks for.

use compiler_core::examples::{find, EXAMPLES};
use compiler_core::trace::{Payload, Step};
use web_engine::protocol::*;
use web_engine::tours::{self, Pred, Select, TOURS};
use web_engine::{handle, Session};

fn run(name: &str) -> Session {
    let source = find(name).unwrap().text(None).unwrap().1;
    let req = RunRequest {
        source: source.into(),
        ..RunRequest::default()
    };
    Session::run(7, &req, &mut |_| {}).unwrap().0
}

#[test]
fn every_example_has_exactly_one_tour() {
    for e in EXAMPLES {
        assert_eq!(
            TOURS.iter().filter(|t| t.example == e.name).count(),
            1,
            "{}",
            e.name
        );
    }
    assert_eq!(TOURS.len(), EXAMPLES.len(), "no tour of a missing example");
}

#[test]
fn every_stop_of_every_tour_resolves_to_a_step_of_its_kind() {
    for tour in TOURS {
        let s = run(tour.example);
        let plan =
            tours::resolve(tour, 7, s.result()).unwrap_or_else(|e| panic!("{}: {e}", tour.example));
        assert_eq!(plan.stops.len(), tour.stops.len());
        assert!(
            plan.stops.len() >= 4,
            "{}: a tour has at least 4 stops",
            tour.example
        );
        for (stop, got) in tour.stops.iter().zip(&plan.stops) {
            let stage = s
                .result()
                .stages
                .iter()
                .find(|r| r.stage == stop.stage)
                .unwrap();
            assert!(got.step as usize <= stage.steps.len());
            let kind = match stop.select {
                Select::Input => None,
                Select::End => Some(stage.steps.last().unwrap().kind),
                Select::First(k)
                | Select::Nth(k, _)
                | Select::Last(k)
                | Select::FirstWhere(k, _) => Some(k),
            };
            match kind {
                None => assert_eq!(got.step, 0),
                Some(k) => {
                    assert!(got.step >= 1, "{}: {}", tour.example, stop.title);
                    assert_eq!(
                        stage.steps[got.step as usize - 1].kind,
                        k,
                        "{}: {}",
                        tour.example,
                        stop.title
                    );
                }
            }
            if let Select::FirstWhere(_, pred) = stop.select {
                assert!(pred.holds(&stage.steps[got.step as usize - 1]));
            }
        }
        // Through the engine's request handler, as the page asks.
        let mut session = Some(s);
        let answer = handle(
            &mut session,
            Request::Tour {
                run_id: 7,
                example: tour.example.into(),
            },
            &mut |_| {},
            &|| 0.0,
        );
        assert_eq!(answer, Response::Tour(plan));
    }
}

#[test]
fn tour_texts_are_short_and_point_at_a_spec_section() {
    let spec_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/spec");
    for tour in TOURS {
        assert!(
            !tour.title.is_empty() && tour.title.len() <= 60,
            "{}",
            tour.title
        );
        for stop in tour.stops {
            assert!(
                !stop.text.is_empty() && stop.text.len() <= 240,
                "{}: {}",
                tour.example,
                stop.text
            );
            assert!(stop.title.len() <= 40, "{}", stop.title);
            let (page, section) = stop.spec.split_once(" § ").expect("page § section");
            let known = [
                "two-address-cicc.txt",
                "two-address-overview.md",
                "register-coalescing-cicc.txt",
                "instr-emitter-cicc.txt",
                "general-optimize-ptxas.txt",
            ];
            assert!(known.contains(&page), "{page}");
            // Where the spec pages are at hand (the project's shared/), the section exists.
            if let Ok(text) = std::fs::read_to_string(spec_dir.join(page)) {
                assert!(text.contains(section), "{page} has no section `{section}`");
            }
        }
    }
}

fn step(kind: &'static str, payload: Payload) -> Step {
    Step::new(kind, "").payload(payload)
}

#[test]
fn selection_is_by_kind_and_predicate_not_by_number() {
    let pair = |tie_marked, kill_moved| Payload::ExtractSubregPair {
        pseudo: 1,
        pair: 0,
        pairs: 2,
        def: 2,
        src: 1,
        lane: Some(0),
        hint_tied: tie_marked,
        hint_early_tied: tie_marked,
        tie_marked,
        kill_moved,
        lv_updates: 2,
        lv_steps: Vec::new(),
    };
    let steps = vec![
        step("gate", Payload::None),
        step("extract_subreg_copy", pair(false, false)),
        step("extract_subreg_copy", pair(true, true)),
        step("done", Payload::None),
    ];
    use tours::select_step as sel;
    assert_eq!(sel(&steps, Select::Input), Some(0));
    assert_eq!(sel(&steps, Select::First("extract_subreg_copy")), Some(2));
    assert_eq!(sel(&steps, Select::Nth("extract_subreg_copy", 2)), Some(3));
    assert_eq!(sel(&steps, Select::Nth("extract_subreg_copy", 3)), None);
    assert_eq!(sel(&steps, Select::Nth("extract_subreg_copy", 0)), None);
    assert_eq!(sel(&steps, Select::Last("extract_subreg_copy")), Some(3));
    assert_eq!(
        sel(
            &steps,
            Select::FirstWhere("extract_subreg_copy", Pred::KillMoved)
        ),
        Some(3)
    );
    assert_eq!(
        sel(
            &steps,
            Select::FirstWhere("extract_subreg_copy", Pred::RoundChanged)
        ),
        None
    );
    assert_eq!(sel(&steps, Select::First("commute")), None);
    assert_eq!(sel(&steps, Select::End), Some(4));
    assert_eq!(sel(&[], Select::End), None);
    // One more step in front moves every stop by one instead of breaking it.
    let mut more = vec![step("gate", Payload::None)];
    more.extend(steps.iter().cloned());
    assert_eq!(
        sel(
            &more,
            Select::FirstWhere("extract_subreg_copy", Pred::KillMoved)
        ),
        Some(4)
    );
}

#[test]
fn a_tour_request_for_a_stale_run_or_unknown_example_fails_clearly() {
    let mut session = Some(run("commute"));
    let answer = handle(
        &mut session,
        Request::Tour {
            run_id: 99,
            example: "commute".into(),
        },
        &mut |_| {},
        &|| 0.0,
    );
    assert!(
        matches!(answer, Response::TourFailed { ref message, .. } if message.contains("no longer loaded"))
    );
    let answer = handle(
        &mut session,
        Request::Tour {
            run_id: 7,
            example: "nope".into(),
        },
        &mut |_| {},
        &|| 0.0,
    );
    assert!(
        matches!(answer, Response::TourFailed { ref message, .. } if message.contains("no tour"))
    );
    // A tour run against another example's trace names the stop that does not resolve.
    let wrong = tours::find("select-fold").unwrap();
    let err = tours::resolve(wrong, 7, session.as_ref().unwrap().result()).unwrap_err();
    assert!(err.starts_with("stop 2 (The SM boundary)"), "{err}");
}
