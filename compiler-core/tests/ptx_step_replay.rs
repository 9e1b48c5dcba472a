//! ptx-emit's and ptx-lower's steps carry their IR edits: for every gallery example
//! (in every form it has) and `cu-reduce`, applying the edits of a stage's steps in
//! order, from an empty module (ptx-emit) or from each function with no blocks,
//! instructions or registers (ptx-lower), gives exactly what the stage returned. Each
//! step that emits or lowers an instruction adds something.

use compiler_core::examples::{find, EXAMPLES};
use compiler_core::ori::{self, edit::apply_ori_edit, edit::OriEdit};
use compiler_core::pipeline::{run_observed, InputFormat, Ir, Observer, RunOptions};
use compiler_core::ptx::edit::apply_ptx_edit;
use compiler_core::stages::Stage;
use compiler_core::trace::{Step, Steps};

/// What ptx-emit and ptx-lower returned.
#[derive(Default)]
struct Outputs {
    emitted: Option<compiler_core::ptx::Module>,
    lowered: Option<ori::Module>,
}

impl Observer for Outputs {
    fn stage_end(&mut self, _: usize, stage: Stage, output: &Ir) {
        match (stage, output) {
            (Stage::PtxEmit, Ir::Ptx(m)) => self.emitted = Some(m.clone()),
            (Stage::PtxLower, Ir::Ori(m)) => self.lowered = Some(m.clone()),
            _ => {}
        }
    }
}

/// A lowered function with its body taken out: where ptx-lower's replay starts.
pub fn lowering_start(f: &ori::Function) -> ori::Function {
    let mut s = f.clone();
    s.blocks.clear();
    s.insts = Default::default();
    s.regs = Default::default();
    s
}

/// Steps with edits, steps.
fn check_emit(name: &str, steps: Steps<'_>, out: &compiler_core::ptx::Module, text: &str) -> usize {
    let mut m = compiler_core::ptx::Module::default();
    let mut with = 0;
    for (k, s) in steps.iter().enumerate() {
        let before = compiler_core::ptx::print(&m);
        for e in &s.ptx_edits {
            apply_ptx_edit(&mut m, e).unwrap_or_else(|e| panic!("{name} step {k}: {}", e.0));
        }
        with += usize::from(!s.ptx_edits.is_empty());
        if s.payload_type() == "emitted" && !s.ptx_edits.is_empty() {
            // A step that adds a line changes the output so far.
            assert_ne!(compiler_core::ptx::print(&m), before, "{name} step {k}");
        }
        if matches!(
            s.kind.as_str(),
            "instruction" | "copy_to_mov" | "label" | "register_file"
        ) {
            assert!(
                !s.ptx_edits.is_empty(),
                "{name} step {k} {} adds nothing",
                s.kind
            );
        }
    }
    assert_eq!(&m, out, "{name}: ptx-emit replayed");
    assert_eq!(compiler_core::ptx::print(&m), text, "{name}: ptx-emit text");
    with
}

fn check_lower(name: &str, steps: Steps<'_>, out: &ori::Module) -> usize {
    // A function's steps begin with the one that adds its block 0.
    let starts: Vec<usize> = (0..steps.len())
        .filter(|&k| {
            steps.step(k).ori_edits.iter().any(|e| {
                matches!(
                    e,
                    OriEdit::AddBlock {
                        block: ori::BlockId::ENTRY,
                        ..
                    }
                )
            })
        })
        .chain([steps.len()])
        .collect();
    let bodies: Vec<&ori::Function> = out.functions().filter(|f| !f.is_decl).collect();
    assert_eq!(starts.len() - 1, bodies.len(), "{name}: functions");
    let mut with = 0;
    for (j, (f, w)) in bodies.iter().zip(starts.windows(2)).enumerate() {
        let mut g = lowering_start(f);
        for s in steps.range(w[0]..w[1]) {
            for e in &s.ori_edits {
                apply_ori_edit(&mut g, e).unwrap_or_else(|e| panic!("{name}: {}", e.0));
            }
            with += usize::from(!s.ori_edits.is_empty());
            if matches!(s.kind.as_str(), "lower" | "block" | "register_table") {
                assert!(!s.ori_edits.is_empty(), "{name}: {} adds nothing", s.kind);
            }
        }
        let (a, b) = (
            ori::print::print_function_with_lines(&g, j).text,
            ori::print::print_function_with_lines(f, j).text,
        );
        assert_eq!(a, b, "{name}: ptx-lower replayed, function {j}");
        assert_eq!(
            format!("{:?}", g.blocks),
            format!("{:?}", f.blocks),
            "{name}"
        );
        assert_eq!(format!("{:?}", g.insts), format!("{:?}", f.insts), "{name}");
        assert_eq!(format!("{:?}", g.regs), format!("{:?}", f.regs), "{name}");
    }
    with
}

trait PayloadType {
    fn payload_type(&self) -> &'static str;
}

impl PayloadType for Step {
    fn payload_type(&self) -> &'static str {
        match &*self.payload {
            compiler_core::trace::Payload::Emitted { .. } => "emitted",
            _ => "",
        }
    }
}

/// (ptx-emit steps, with edits, ptx-lower steps, with edits) over one input.
fn check(name: &str, format: InputFormat, text: &str) -> [usize; 4] {
    let opts = RunOptions {
        trace: true,
        from: Some(format),
        ..RunOptions::default()
    };
    let mut obs = Outputs::default();
    let Ok(r) = run_observed(text, &opts, &mut obs) else {
        return [0; 4];
    };
    let mut n = [0; 4];
    for run in &r.stages {
        match run.stage {
            Stage::PtxEmit => {
                let out = obs.emitted.as_ref().unwrap();
                let text = run.output.as_deref().unwrap();
                n[0] += run.steps.len();
                n[1] += check_emit(name, run.steps.all(), out, text);
            }
            Stage::PtxLower => {
                n[2] += run.steps.len();
                n[3] += check_lower(name, run.steps.all(), obs.lowered.as_ref().unwrap());
            }
            _ => {}
        }
    }
    n
}

#[test]
fn every_ptx_emit_and_ptx_lower_step_of_the_gallery_replays() {
    let mut total = [0; 4];
    let mut inputs: Vec<(&str, InputFormat, &str)> = Vec::new();
    for e in EXAMPLES {
        for &(format, text) in e.forms {
            inputs.push((e.name, format, text));
        }
    }
    let (f, t) = find("cu-reduce").unwrap().text(None).unwrap();
    inputs.push(("cu-reduce", f, t));
    for (name, format, text) in inputs {
        let n = check(name, format, text);
        for k in 0..4 {
            total[k] += n[k];
        }
    }
    eprintln!(
        "ptx-emit: {} steps, {} with edits; ptx-lower: {} steps, {} with edits",
        total[0], total[1], total[2], total[3]
    );
    assert!(total[1] > 300 && total[3] > 500, "{total:?}");
}

/// The bench's synthetic families (small sizes): every ptx-emit and ptx-lower step
/// replays to what the stage returned.
#[test]
fn every_ptx_emit_and_ptx_lower_step_of_the_synthetic_families_replays() {
    for &(name, make) in compiler_core::testgen::synthetic::FAMILIES {
        let text = make(400);
        let format = compiler_core::pipeline::parse_input(&text, None)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .0;
        let n = check(name, format, &text);
        assert!(n[1] > 0 && n[3] > 0, "{name}: {n:?}");
    }
}
