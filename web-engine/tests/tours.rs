//! Guided tours: every gallery example has one, and every stop of every tour resolves to
//! an existing step of the real run, of the kind it asks for.

use compiler_core::examples::{find, EXAMPLES};
use compiler_core::trace::{Payload, Step, StepList};
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
                Select::End => Some(stage.steps.last().unwrap().kind.as_str()),
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
                        stage.steps.step(got.step as usize - 1).kind,
                        k,
                        "{}: {}",
                        tour.example,
                        stop.title
                    );
                }
            }
            if let Select::FirstWhere(_, pred) = stop.select {
                assert!(pred.holds(&stage.steps.step(got.step as usize - 1)));
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
        let mut aimed = plan;
        tours::aim(session.as_mut().unwrap(), &mut aimed);
        assert_eq!(answer, Response::Tour(aimed));
    }
}

/// Issue 30: every stop points at something on screen: lines of the IR panes (what the
/// step marks, or at a stage's input what the stage goes on to change) or a part of the
/// picture, and the lines are lines the panes have.
#[test]
fn every_stop_points_at_lines_or_a_picture_part() {
    let mut without = Vec::new();
    for tour in TOURS {
        let mut s = run(tour.example);
        let mut plan = tours::resolve(tour, 7, s.result()).unwrap();
        tours::aim(&mut s, &mut plan);
        for stop in &plan.stops {
            let t = &stop.target;
            if t.before_lines.is_empty() && t.after_lines.is_empty() && t.picture.is_none() {
                without.push(format!("{} / {}", tour.example, stop.title));
            }
            let v = s.view(stop.stage, stop.step).unwrap();
            let n_before = v.before.text.lines().count() as u32;
            let n_after = v
                .after
                .as_ref()
                .map_or(0, |a| a.text.lines().count() as u32);
            assert!(
                t.before_lines.iter().all(|&l| l < n_before),
                "{}",
                stop.title
            );
            assert!(t.after_lines.iter().all(|&l| l < n_after), "{}", stop.title);
        }
    }
    assert!(
        without.is_empty(),
        "stops with nothing to point at: {without:#?}"
    );
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
            let (page, section) = stop.spec.spec.split_once(" § ").expect("page § section");
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

/// Sentences of a text: pieces ending in `.`, `!` or `?` before a space and a capital,
/// a digit or a quote (or the end).
fn sentences(text: &str) -> usize {
    let b = text.trim().as_bytes();
    let ends = (1..b.len())
        .filter(|&i| {
            matches!(b[i - 1], b'.' | b'!' | b'?')
                && b[i] == b' '
                && b.get(i + 1)
                    .is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'"')
        })
        .count();
    ends + 1
}

/// Issue 30: each stop says what happens and why it matters in two or three sentences,
/// and links to the project's page about the mechanism, which exists with its section.
#[test]
fn every_stop_says_why_in_two_or_three_sentences_and_links_our_page() {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs");
    let mut wrong = Vec::new();
    for tour in TOURS {
        for stop in tour.stops {
            let whole = format!("{} {}", stop.text, stop.spec.why);
            let n = sentences(&whole);
            if !(2..=3).contains(&n) {
                wrong.push(format!(
                    "{} / {}: {n} sentences: {whole}",
                    tour.example, stop.title
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    for m in tours::MECHANISMS {
        assert_eq!(sentences(m.why), 1, "{}", m.why);
        let (page, anchor) = m.doc.split_once('#').expect("page#anchor");
        let html =
            std::fs::read_to_string(docs.join(page)).unwrap_or_else(|e| panic!("docs/{page}: {e}"));
        assert!(
            html.contains(&format!("id=\"{anchor}\"")),
            "docs/{page} has no #{anchor}"
        );
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
        lv_steps: Default::default(),
    };
    let steps = vec![
        step("gate", Payload::None),
        step("extract_subreg_copy", pair(false, false)),
        step("extract_subreg_copy", pair(true, true)),
        step("done", Payload::None),
    ]
    .into_iter()
    .collect::<StepList>();
    use tours::select_step as sel;
    assert_eq!(sel(steps.all(), Select::Input), Some(0));
    assert_eq!(
        sel(steps.all(), Select::First("extract_subreg_copy")),
        Some(2)
    );
    assert_eq!(
        sel(steps.all(), Select::Nth("extract_subreg_copy", 2)),
        Some(3)
    );
    assert_eq!(
        sel(steps.all(), Select::Nth("extract_subreg_copy", 3)),
        None
    );
    assert_eq!(
        sel(steps.all(), Select::Nth("extract_subreg_copy", 0)),
        None
    );
    assert_eq!(
        sel(steps.all(), Select::Last("extract_subreg_copy")),
        Some(3)
    );
    assert_eq!(
        sel(
            steps.all(),
            Select::FirstWhere("extract_subreg_copy", Pred::KillMoved)
        ),
        Some(3)
    );
    assert_eq!(
        sel(
            steps.all(),
            Select::FirstWhere("extract_subreg_copy", Pred::RoundChanged)
        ),
        None
    );
    assert_eq!(sel(steps.all(), Select::First("commute")), None);
    assert_eq!(sel(steps.all(), Select::End), Some(4));
    assert_eq!(sel(StepList::new().all(), Select::End), None);
    // One more step in front moves every stop by one instead of breaking it.
    let mut more = StepList::from(vec![step("gate", Payload::None)]);
    more.extend(steps.iter());
    assert_eq!(
        sel(
            more.all(),
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
