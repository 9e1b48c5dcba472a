//! The worker boundary: every answer the page can get for the gallery survives postcard
//! bytes unchanged (the run summary, the view of every step of every stage with its
//! pictures, a diff per stage, the tour), and progress messages too.

use compiler_core::examples::EXAMPLES;
use web_engine::handle;
use web_engine::protocol::*;

fn round_trip(response: &Response) {
    let bytes = encode(response).expect("every response encodes");
    let back: Response = decode(&bytes).expect("and decodes");
    assert_eq!(&back, response);
}

#[test]
fn every_gallery_answer_survives_the_worker_boundary() {
    let mut views = 0;
    for (n, example) in EXAMPLES.iter().enumerate() {
        let id = n as u64 + 1;
        let (_, source) = example.text(None).unwrap();
        let mut session = None;
        let mut progress = Vec::new();
        let run = Request::Run {
            id,
            run: RunRequest {
                source: source.into(),
                ..RunRequest::default()
            },
        };
        assert_eq!(decode::<Request>(&encode(&run).unwrap()), Ok(run.clone()));
        let done = handle(&mut session, run, &mut |p| progress.push(p), &|| 0.0);
        round_trip(&done);
        for p in progress {
            round_trip(&Response::Progress(p));
        }
        let Response::RunDone(summary) = done else {
            panic!("{}: {done:?}", example.name)
        };
        for stage in &summary.stages {
            let steps = stage.steps;
            for step in 0..=steps {
                let view = Request::View {
                    run_id: id,
                    stage: stage.stage,
                    step,
                };
                round_trip(&handle(&mut session, view, &mut |_| {}, &|| 0.0));
                views += 1;
            }
            let diff = Request::Diff {
                run_id: id,
                stage: stage.stage,
                from: 0,
                to: steps,
            };
            round_trip(&handle(&mut session, diff, &mut |_| {}, &|| 0.0));
        }
        let tour = Request::Tour {
            run_id: id,
            example: example.name.into(),
        };
        round_trip(&handle(&mut session, tour, &mut |_| {}, &|| 0.0));
    }
    assert!(views > 1000, "only {views} views");
}
