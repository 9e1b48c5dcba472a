//! A run whose input a later stage cannot handle (`PipelineError::StageFailed`):
//! `Session::run_with` runs again up to the stage in front of it and says why it stopped
//! (`RunSummary::stopped`). For a DAG input whose front the DAG wasm made, that second
//! run reads the front again from the answer's bytes (the first run consumed it).
//!
//! Both inputs reach ptx-emit and are refused there (`passes/ptx_emit/forms.rs`):
//! - MIR: an opcode outside the NVPTX table (`anonymous_99999`; `nvptx.isa` has no such
//!   row) reads as `Opcode::Other` and flows through every MIR pass; `emit_inst` has no
//!   PTX form for it.
//! - DAG: the DAG reader refuses opcodes outside the table, so the emitter only writes
//!   opcodes of it; but it checks a machine node's operand count and classes, not the
//!   values of its immediates. `ST_i32` (ptx form `st:1`) with ordering code 7 is
//!   emitted, carried through every MIR pass unread, and refused by `memory_row` /
//!   `sem_word`: "unknown memory ordering code 7".

use compiler_core::knobs::Knobs;
use compiler_core::pipeline::run_dag_front;
use compiler_core::{InputFormat, RunOptions, Stage};
use web_engine::dag_front::{answer, DagJob, HandedError, HandedFront};
use web_engine::protocol::*;
use web_engine::Session;

/// No `noPhis: true` in the header, so the run starts at phi-elimination
/// (`pipeline::registry::entry_stage`). The COPY gives the register coalescer a join.
const MIR: &str = "---
name: k
body: |
  bb.0:
    %0:b32 = MOV_B32_i 1
    %1:b32 = anonymous_99999 %0
    %2:b32 = COPY %1
    %3:b32 = ADD32rr %2, %0
    Return
...
";

/// `ST_i32 value, ordering, scope, space, width, base, offset`: the doc example's
/// global store (docs/formats.md, DAG "Example") with ordering 7, which no arm of
/// `sem_word` spells (0, 2, 4, 5, 6, 8, 9 do).
const DAG: &str = "Selected selection DAG: %bb.0 'k:entry'
  t0: ch,glue = EntryToken
  t1: i64,ch = CopyFromReg t0, Register:i64 $r1
  t2: i32,ch = CopyFromReg t0, Register:i32 $r2
  t3: ch = ST_i32 t2, Constant:i32<7>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t1, Constant:i32<0>, t0 [mem \"(store (s32), addrspace 1)\"]
  t4: ch = Return t3
";

/// The DAG wasm's export (`web_dag::emit`, which this crate cannot depend on): the
/// DAG input path alone, its front as it crosses.
fn dag_wasm(job: &DagJob) -> Result<HandedFront, HandedError> {
    let knobs = Knobs::from_query(&job.knobs).map_err(|e| HandedError::Failed(e.to_string()))?;
    let opts = RunOptions {
        from: Some(InputFormat::Dag),
        knobs,
        trace: true,
        verify: job.verify,
        ..RunOptions::default()
    };
    match run_dag_front(&job.source, &opts) {
        Ok(front) => Ok(HandedFront::new(&front)),
        Err(e) => Err(HandedError::new(&e)),
    }
}

fn request(source: &str) -> RunRequest {
    RunRequest {
        source: source.into(),
        ..RunRequest::default()
    }
}

/// The run, and the progress labels it reported (both runs', when it ran twice).
fn run(req: &RunRequest, front: Option<Vec<u8>>) -> ((Session, RunSummary), Vec<String>) {
    let mut labels = Vec::new();
    let r = Session::run_with(7, req, front.map(Ok), &mut |p| labels.push(p.label));
    let r = r.unwrap_or_else(|f| panic!("the run failed: {}", f.message));
    (r, labels)
}

fn count(labels: &[String], label: &str) -> usize {
    labels.iter().filter(|l| *l == label).count()
}

fn ids(summary: &RunSummary) -> Vec<&'static str> {
    summary.stages.iter().map(|s| s.stage.id()).collect()
}

/// Where the run stopped, which must be in front of ptx-emit.
fn ptx_emit_stop(summary: &RunSummary) -> &StageStop {
    let stop = summary
        .stopped
        .as_ref()
        .expect("the run says where it stopped");
    assert_eq!(stop.stage, Stage::PtxEmit);
    stop
}

/// The instruction ptx-emit names after `in:` (`EmitError`'s Display).
fn refused_inst(message: &str) -> &str {
    message
        .split_once("\n    in: ")
        .unwrap_or_else(|| panic!("no instruction in {message:?}"))
        .1
}

/// The last stage that ran (nvptx-coalescer) replays: its last step's view shows the
/// function ptx-emit was given, the refused instruction in it; ptx-emit did not run.
fn last_stage_replays(s: &mut Session, summary: &RunSummary, inst: &str) {
    let last = summary.stages.last().unwrap();
    assert_eq!(last.stage, Stage::NvptxCoalescer);
    assert!(last.replayable && last.steps > 0, "{last:?}");
    let v = s.view(Stage::NvptxCoalescer, last.steps).unwrap();
    assert_eq!((v.step, v.total), (last.steps, last.steps));
    assert_eq!(v.function, "k");
    let after = v.after.as_ref().unwrap();
    assert!(after.text.contains(inst), "{inst:?} not in\n{}", after.text);
    let (_, output) = s.stage_texts(Stage::NvptxCoalescer).unwrap();
    assert!(output.contains(inst), "{inst:?} not in\n{output}");
    assert_eq!(s.result().output, output);
    assert!(s.view(Stage::PtxEmit, 0).is_err());
    assert!(s.stage_texts(Stage::PtxEmit).is_none());
}

#[test]
fn a_mir_opcode_with_no_ptx_form_stops_the_run_in_front_of_ptx_emit() {
    let ((mut s, summary), labels) = run(&request(MIR), None);
    let stop = ptx_emit_stop(&summary);
    // forms.rs `emit_inst`, `Opcode::Other` named `anonymous_…`, in an `EmitError`.
    assert!(
        stop.message.starts_with(
            "ptx-emit: function `k`, bb.0: `anonymous_99999` has no PTX form: llc-22 prints"
        ),
        "{}",
        stop.message
    );
    assert!(
        stop.message
            .contains("so the MIR does not say which PTX instruction this is"),
        "{}",
        stop.message
    );
    let inst = refused_inst(&stop.message);
    assert!(inst.contains("= anonymous_99999 %0"), "{inst}");

    assert_eq!(summary.entry, Stage::PhiElimination);
    assert_eq!(
        ids(&summary),
        [
            "phi-elimination",
            "two-address",
            "register-coalescer",
            "nvptx-coalescer"
        ]
    );
    // Two runs: the first reached ptx-emit, the second stopped in front of it.
    assert_eq!(count(&labels, "source read"), 2, "{labels:?}");
    assert_eq!(count(&labels, "running ptx-emit"), 1, "{labels:?}");
    assert_eq!(count(&labels, "running nvptx-coalescer"), 2, "{labels:?}");

    // The register coalescer's steps replay: the COPY is gone by its last step.
    let rc = summary.stage(Stage::RegisterCoalescer).unwrap();
    let v = s.view(Stage::RegisterCoalescer, 0).unwrap();
    assert!(v.before.text.contains("= COPY "), "{}", v.before.text);
    let d = s.diff(Stage::RegisterCoalescer, 0, rc.steps).unwrap();
    assert!(
        d.lines
            .iter()
            .any(|l| matches!(l, DiffLine::Removed { text, .. } if text.contains("= COPY "))),
        "{d:?}"
    );
    last_stage_replays(&mut s, &summary, inst);
    assert!(!s
        .view(Stage::NvptxCoalescer, 0)
        .unwrap()
        .before
        .text
        .contains("COPY"));
}

#[test]
fn a_handed_dag_front_is_read_again_for_the_run_in_front_of_ptx_emit() {
    let req = request(DAG);
    let job = DagJob {
        source: req.source.clone(),
        knobs: req.knobs.clone(),
        verify: req.verify,
    };
    let bytes = answer(&encode(&job).unwrap(), dag_wasm);
    let ((mut s, summary), labels) = run(&req, Some(bytes));
    let stop = ptx_emit_stop(&summary);
    // forms.rs `memory_row` ("st": ordering, scope, space, width) → `sem_word`.
    assert!(
        stop.message
            .starts_with("ptx-emit: function `k`, bb.0: unknown memory ordering code 7\n"),
        "{}",
        stop.message
    );
    let inst = refused_inst(&stop.message);
    assert!(inst.starts_with("ST_i32 %"), "{inst}");
    assert!(inst.contains(", 7, 0, 1, 32, %"), "{inst}");

    assert_eq!(summary.entry, Stage::InstrEmitter);
    assert_eq!(
        ids(&summary),
        [
            "instr-emitter",
            "phi-elimination",
            "two-address",
            "register-coalescer",
            "nvptx-coalescer"
        ]
    );
    // Both runs took instr-emitter from the front (`Observer::stage_handed`), the
    // second from the answer's bytes: neither ran it in place.
    assert_eq!(count(&labels, "source read"), 2, "{labels:?}");
    assert_eq!(
        count(&labels, "instr-emitter ran in the DAG input path"),
        2,
        "{labels:?}"
    );
    assert_eq!(count(&labels, "running instr-emitter"), 0, "{labels:?}");
    assert_eq!(count(&labels, "running ptx-emit"), 1, "{labels:?}");

    // instr-emitter as handed: no replay, its input (the DAG) and output as printed,
    // its steps' kinds and narrations.
    let emitter = summary.stage(Stage::InstrEmitter).unwrap();
    assert!(!emitter.replayable && emitter.steps > 0, "{emitter:?}");
    assert_eq!(emitter.noop.len(), emitter.steps as usize);
    let v = s.view(Stage::InstrEmitter, 0).unwrap();
    assert!(
        v.before
            .text
            .contains("t3: ch = ST_i32 t2, Constant:i32<7>"),
        "{}",
        v.before.text
    );
    assert!(v.after.as_ref().unwrap().text.contains(inst));
    let v = s.view(Stage::InstrEmitter, emitter.steps).unwrap();
    assert!(!v.kind.is_empty() && v.kind != "input", "{v:?}");
    last_stage_replays(&mut s, &summary, inst);

    // The same as the engine with the DAG path linked in (the `dag` feature), run in place.
    if cfg!(feature = "dag") {
        let ((_, inline), _) = run(&req, None);
        assert_eq!(
            serde_json::to_string(&summary).unwrap(),
            serde_json::to_string(&inline).unwrap()
        );
    }
}
