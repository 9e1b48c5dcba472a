//! The engine replays ptx-lower's and ptx-emit's steps: for every gallery example
//! reaching them and `cu-reduce`, the view of step k shows, after the step, the output
//! obtained by applying the first k steps' edits (computed here from the stage's
//! steps, apart from the session), before it what step k-1 left, and after the last
//! step exactly the stage's output. A step that adds a line changes the "after" pane.

use compiler_core::examples::{find, EXAMPLES};
use compiler_core::ori::{self, edit::apply_ori_edit};
use compiler_core::pipeline::{run_observed, Ir, Observer, RunOptions};
use compiler_core::ptx::{self, edit::apply_ptx_edit};
use compiler_core::stages::Stage;
use web_engine::protocol::*;
use web_engine::Session;

/// ptx-lower's output module.
#[derive(Default)]
struct Lowered(Option<ori::Module>);

impl Observer for Lowered {
    fn stage_end(&mut self, _: usize, stage: Stage, output: &Ir) {
        if let (Stage::PtxLower, Ir::Ori(m)) = (stage, output) {
            self.0 = Some(m.clone());
        }
    }
}

fn session(text: &str) -> (Session, RunSummary) {
    let req = RunRequest {
        source: text.into(),
        ..RunRequest::default()
    };
    Session::run(1, &req, &mut |_| {}).unwrap()
}

/// ptx-emit's steps, each seen; (steps, steps whose after pane differs).
fn check_emit(name: &str, s: &mut Session, run: &compiler_core::StageRun) -> (usize, usize) {
    let mut m = ptx::Module::default();
    let mut changing = 0;
    for (i, st) in run.steps.iter().enumerate() {
        let prev = ptx::print(&m);
        for e in &st.ptx_edits {
            apply_ptx_edit(&mut m, e).unwrap();
        }
        let want = ptx::print(&m);
        let v = s.view(Stage::PtxEmit, i as u32 + 1).unwrap();
        assert_eq!(v.kind, st.kind);
        assert_eq!(
            v.before.text,
            prev,
            "{name} ptx-emit step {}: before",
            i + 1
        );
        let after = v.after.as_ref().unwrap();
        assert_eq!(after.text, want, "{name} ptx-emit step {}: after", i + 1);
        if after.text != v.before.text {
            changing += 1;
            assert!(!after.marks.is_empty(), "{name} step {}: no mark", i + 1);
            assert!(!v.edits.is_empty());
        }
        let adds_line = st.ptx_edits.iter().any(|e| e.op() == "stmt");
        if adds_line {
            assert_ne!(after.text, v.before.text, "{name} step {}", i + 1);
        }
    }
    assert_eq!(
        Some(ptx::print(&m)),
        run.output,
        "{name}: ptx-emit's last step"
    );
    (run.steps.len(), changing)
}

/// ptx-lower's steps, function by function, each seen.
fn check_lower(
    name: &str,
    s: &mut Session,
    sum: &StageSummary,
    run: &compiler_core::StageRun,
    out: &ori::Module,
) -> (usize, usize) {
    let mut changing = 0;
    let fs: Vec<&ori::Function> = out.functions().collect();
    assert_eq!(sum.functions.len(), fs.len(), "{name}");
    for (j, (range, f)) in sum.functions.iter().zip(fs).enumerate() {
        assert_eq!(range.function, f.name);
        let mut g = f.clone();
        g.blocks.clear();
        g.insts = Default::default();
        g.regs = Default::default();
        let mut prev = ori::print::print_function_with_lines(&g, j).text;
        for i in range.first as usize..(range.first + range.count) as usize {
            for e in &run.steps.step(i).ori_edits {
                apply_ori_edit(&mut g, e).unwrap();
            }
            let want = ori::print::print_function_with_lines(&g, j).text;
            let v = s.view(Stage::PtxLower, i as u32 + 1).unwrap();
            assert_eq!(v.function, f.name);
            assert_eq!(
                v.before.text,
                prev,
                "{name} ptx-lower step {}: before",
                i + 1
            );
            let after = &v.after.as_ref().unwrap().text;
            assert_eq!(after, &want, "{name} ptx-lower step {}: after", i + 1);
            changing += usize::from(after != &v.before.text);
            prev = want;
        }
        let whole = ori::print::print_function_with_lines(f, j).text;
        assert_eq!(prev, whole, "{name}: ptx-lower's last step of {}", f.name);
    }
    (run.steps.len(), changing)
}

/// [ptx-emit steps, changing, ptx-lower steps, changing].
fn check(name: &str, text: &str) -> [usize; 4] {
    let Ok((mut s, summary)) = Session::run(
        1,
        &RunRequest {
            source: text.into(),
            ..RunRequest::default()
        },
        &mut |_| {},
    ) else {
        return [0; 4];
    };
    let opts = RunOptions {
        trace: true,
        ..RunOptions::default()
    };
    let mut obs = Lowered::default();
    let Ok(r) = run_observed(text, &opts, &mut obs) else {
        return [0; 4];
    };
    let mut n = [0; 4];
    for run in &r.stages {
        let sum = summary.stage(run.stage).unwrap();
        let (a, b) = match run.stage {
            Stage::PtxEmit => check_emit(name, &mut s, run),
            Stage::PtxLower => check_lower(name, &mut s, sum, run, obs.0.as_ref().unwrap()),
            _ => continue,
        };
        assert!(sum.replayable, "{name} {}", run.stage);
        let at = if run.stage == Stage::PtxEmit { 0 } else { 2 };
        n[at] += a;
        n[at + 1] += b;
    }
    n
}

#[test]
fn every_ptx_lower_and_ptx_emit_step_of_the_gallery_and_cu_reduce_replays() {
    let mut names: Vec<&str> = EXAMPLES.iter().map(|e| e.name).collect();
    names.push("cu-reduce");
    let mut total = [0; 4];
    for name in names {
        let text = find(name).unwrap().text(None).unwrap().1;
        let n = check(name, text);
        for k in 0..4 {
            total[k] += n[k];
        }
    }
    eprintln!("[ptx-emit steps, changing, ptx-lower steps, changing] = {total:?}");
    assert!(total[1] > 300 && total[3] > 500, "{total:?}");
}

/// The session shows ptx-emit's output growing: the first instruction's step adds its
/// line to the "after" pane, marked as inserted.
#[test]
fn a_ptx_emit_step_that_adds_a_line_shows_it_in_the_after_pane() {
    let text = find("phi-swap").unwrap().text(None).unwrap().1;
    let (mut s, summary) = session(text);
    let st = summary.stage(Stage::PtxEmit).unwrap();
    assert!(st.replayable);
    let step = (1..=st.steps)
        .find(|&k| s.view(Stage::PtxEmit, k).unwrap().kind == "instruction")
        .unwrap();
    let v = s.view(Stage::PtxEmit, step).unwrap();
    let after = v.after.unwrap();
    let added: Vec<&str> = after
        .text
        .lines()
        .filter(|l| !v.before.text.lines().any(|b| b == *l))
        .collect();
    assert!(!added.is_empty(), "{}", after.text);
    assert_eq!(
        after.text.lines().count(),
        v.before.text.lines().count() + added.len()
    );
    assert!(after.marks.iter().all(|m| m.kind == MarkKind::Inserted
        && added.contains(&after.text.lines().nth(m.line as usize).unwrap())));
    assert_eq!(v.edits.len(), added.len(), "{:?}", v.edits);
}
