//! The DAG input path handed over between two wasms gives the run the engine makes with
//! the path linked in: every DAG of the gallery, with and without `verify`, run once in
//! place (`Session::run`) and once through the DAG wasm's export and the engine's
//! handover (`web_dag::emit`, the answer's bytes, `Session::run_with`); the summaries, the
//! stages' printed input and output, their steps (instr-emitter's: kind and narration,
//! the rest whole, as JSON) and every view of every step must be equal.

use compiler_core::examples::EXAMPLES;
use compiler_core::InputFormat;
use web_engine::dag_front::{answer, read_answer};
use web_engine::protocol::{encode, RunRequest};
use web_engine::Session;

fn sources() -> Vec<(&'static str, &'static str)> {
    (EXAMPLES.iter())
        .filter_map(|e| {
            let (_, text) = e.forms.iter().find(|(f, _)| *f == InputFormat::Dag)?;
            Some((e.name, *text))
        })
        .collect()
}

fn handed(req: &RunRequest) -> Result<(Session, web_engine::protocol::RunSummary), String> {
    let job = web_engine::dag_front::DagJob {
        source: req.source.clone(),
        knobs: req.knobs.clone(),
        verify: req.verify,
    };
    let bytes = answer(&encode(&job).unwrap(), web_dag::emit);
    Session::run_with(1, req, Some(Ok(bytes)), &mut |_| {}).map_err(|f| f.message)
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

#[test]
fn every_gallery_dag_runs_the_same_handed_over() {
    let all = sources();
    assert!(all.len() >= 5, "{} DAG examples", all.len());
    for (name, text) in all {
        for verify in [false, true] {
            let req = RunRequest {
                source: text.into(),
                verify,
                ..RunRequest::default()
            };
            let (mut a, sa) = Session::run(1, &req, &mut |_| {}).unwrap();
            let (mut b, sb) = handed(&req).unwrap();
            assert_eq!(json(&sa), json(&sb), "{name}: summaries");
            let (ra, rb) = (a.result().clone(), b.result().clone());
            assert_eq!(ra.output, rb.output, "{name}: output");
            for (k, (x, y)) in ra.stages.iter().zip(&rb.stages).enumerate() {
                assert_eq!((&x.input, &x.output), (&y.input, &y.output), "{name} {k}");
                assert_eq!(json(&x.stats), json(&y.stats), "{name} {k}: stats");
                let kinds = |r: &compiler_core::StageRun| {
                    (r.steps.iter())
                        .map(|s| (s.kind.as_str(), s.narration.text()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(kinds(x), kinds(y), "{name} {k}: steps");
                if k > 0 {
                    assert_eq!(json(&x.steps), json(&y.steps), "{name} {k}: steps");
                }
                for step in 0..=x.steps.len() as u32 {
                    let (va, vb) = (a.view(x.stage, step), b.view(x.stage, step));
                    assert_eq!(json(&va.ok()), json(&vb.ok()), "{name} {k} view {step}");
                }
            }
        }
    }
}

#[test]
fn a_dag_error_crosses_with_its_line_and_column() {
    let req = RunRequest {
        source: "SelectionDAG has 2 nodes:\n  t0: ch,glue = EntryToken\n  t1: bogus\n".into(),
        ..RunRequest::default()
    };
    let inline = Session::run(1, &req, &mut |_| {}).err().unwrap();
    let handed = handed(&req).err().unwrap();
    assert_eq!(inline.message, handed);
    let bytes = answer(b"not a job", web_dag::emit);
    assert!(read_answer(&bytes).is_err());
}
