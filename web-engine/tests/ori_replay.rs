//! The engine replays every ORI step: for every GeneralOptimize gallery example and
//! `cu-reduce`, seeking each step of each ORI stage shows, after step k, the function
//! obtained by applying the first k steps' ORI edits to the stage's input (computed
//! here independently of the session), and before step k what step k-1 left. The
//! "after" pane differs from "before" exactly when the step changed the printed IR.

use compiler_core::examples::{find, EXAMPLES};
use compiler_core::ori::{self, edit::apply_ori_edit};
use compiler_core::pipeline::{run_observed, Ir, Observer, RunOptions};
use compiler_core::stages::{IrKind, Stage};
use web_engine::protocol::*;
use web_engine::Session;

#[derive(Default)]
struct Inputs(Vec<Option<ori::Module>>);

impl Observer for Inputs {
    fn stage_start(&mut self, _: usize, stage: Stage, input: &Ir) {
        self.0.push(match input {
            Ir::Ori(m) if stage.info().output == IrKind::Ori => Some(m.clone()),
            _ => None,
        });
    }
}

fn check(name: &str) -> (usize, usize) {
    let text = find(name).unwrap().text(None).unwrap().1;
    let (mut session, summary) = Session::run(
        1,
        &RunRequest {
            source: text.into(),
            ..RunRequest::default()
        },
        &mut |_| {},
    )
    .unwrap();
    let opts = RunOptions {
        trace: true,
        ..RunOptions::default()
    };
    let mut obs = Inputs::default();
    let r = run_observed(text, &opts, &mut obs).unwrap();
    let (mut steps, mut changing) = (0, 0);
    for (k, run) in r.stages.iter().enumerate() {
        let Some(input) = &obs.0[k] else { continue };
        let st = summary.stage(run.stage).unwrap();
        assert!(st.replayable, "{name} {}", run.stage);
        assert_eq!(st.steps as usize, run.steps.len());
        for (j, range) in run.functions.iter().enumerate() {
            let mut f = input.functions().nth(j).unwrap().clone();
            let mut prev = ori::print::print_function_with_lines(&f, j).text;
            for l in 0..range.count {
                let i = range.first + l;
                let s = run.steps.step(i);
                for e in &s.ori_edits {
                    apply_ori_edit(&mut f, e).unwrap();
                }
                let want = ori::print::print_function_with_lines(&f, j).text;
                let v = session.view(run.stage, i as u32 + 1).unwrap();
                assert_eq!(v.kind, s.kind);
                assert_eq!(v.function, f.name);
                assert_eq!(
                    v.before.text,
                    prev,
                    "{name} {} step {}: before",
                    run.stage,
                    i + 1
                );
                let after = v.after.as_ref().unwrap();
                assert_eq!(
                    after.text,
                    want,
                    "{name} {} step {}: after",
                    run.stage,
                    i + 1
                );
                // Marks name lines that exist.
                let n = after.text.lines().count() as u32;
                assert!(after.marks.iter().all(|m| m.line < n));
                if !s.ori_edits.is_empty() {
                    assert!(!v.edits.is_empty());
                }
                if after.text != v.before.text {
                    changing += 1;
                    assert!(
                        !s.is_noop(),
                        "{name}: IR changed at a no-op step {}",
                        s.kind
                    );
                }
                steps += 1;
                prev = want;
            }
        }
    }
    (steps, changing)
}

#[test]
fn every_ori_step_of_the_general_optimize_gallery_and_cu_reduce_replays() {
    let mut names: Vec<&str> = EXAMPLES
        .iter()
        .filter(|e| e.stage.info().input == IrKind::Ori || e.stage.info().phase.is_some())
        .map(|e| e.name)
        .collect();
    names.push("cu-reduce");
    assert!(names.len() >= 7, "{names:?}");
    let mut changing = 0;
    for name in names {
        let (steps, c) = check(name);
        assert!(steps > 0, "{name}: no ORI step");
        changing += c;
    }
    assert!(changing > 10, "only {changing} steps change the IR");
}
