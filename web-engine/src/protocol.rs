//! The messages between the page and the engine. The page sends [`Request`]s and gets
//! [`Response`]s; in the browser both cross the Web Worker boundary as postcard bytes
//! ([`encode`], [`decode`]) in a `Uint8Array`, natively and in tests they are passed as
//! values. Bytes rather than JS objects: the decoders are a fraction of the size that
//! walking JS objects field by field takes in the wasm, and a message is one copy.
//!
//! ```text
//!  page ──Run{id, source, format, knobs, verify}──▶ engine ──Progress…──▶ page
//!                                                          ──RunDone(summary) | RunFailed──▶
//!  page ──View{run_id, stage, step}──▶ engine ──View(StepView)──▶ page
//!  page ──Diff{run_id, stage, from, to}──▶ engine ──Diff(DiffView)──▶ page
//! ```
//!
//! This module is all the page uses of the engine crate: the messages, the pictures'
//! and proofs' data they carry (`protocol::pictures`, `protocol::proof`) and which
//! examples have a tour ([`tour_title`]).
//!
//! Every response names the run (and step) it belongs to, so the page can drop answers
//! that arrive after it asked for something else. postcard is not self-describing, so
//! no type here may use `untagged`, `flatten` or `skip_serializing_if`.

use compiler_core::Stage;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// A message as the bytes that cross the worker boundary.
pub fn encode<T: Serialize>(message: &T) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(message).map_err(|e| format!("cannot encode a message: {e}"))
}

/// A message back from its bytes.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|e| format!("cannot decode a message: {e}"))
}

/// What the page asks of the engine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// Run the pipeline on a source text; replaces the engine's current session.
    Run { id: u64, run: RunRequest },
    /// The IR before and after step `step` of `stage` (0: the stage's input).
    View {
        run_id: u64,
        stage: Stage,
        step: u32,
    },
    /// A line diff of the module between two steps of `stage`.
    Diff {
        run_id: u64,
        stage: Stage,
        from: u32,
        to: u32,
    },
    /// The guided tour of a gallery example, resolved against the run (`crate::tours`).
    Tour { run_id: u64, example: String },
}

/// The inputs of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRequest {
    pub source: String,
    /// `dag`, `mir` or `ptx`; None: detect from the text.
    pub format: Option<String>,
    /// Non-default knobs as `name=value,name=value` (`compiler_core::Knobs::to_query`).
    pub knobs: String,
    /// Check the input and every stage's output with the verifier.
    pub verify: bool,
    /// Test only: the stage (id) whose output the proof breaks before checking it, to
    /// show what a broken pass looks like (the page takes it from `?fault=` in its URL).
    pub fault: Option<String>,
}

/// What the engine answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Response {
    /// The engine is loaded and listening (sent once, when the worker starts), with the
    /// stages that have an implementation (the page does not link the passes itself).
    Ready {
        implemented: Vec<Stage>,
    },
    Progress(Progress),
    RunDone(RunSummary),
    RunFailed(RunFailure),
    View(Box<StepView>),
    Diff(DiffView),
    /// A view or diff could not be made (stale run, replay error).
    ViewFailed {
        run_id: u64,
        stage: Stage,
        step: u32,
        message: String,
    },
    /// A tour's stops as (stage, step) of the run.
    Tour(TourPlan),
    /// The tour could not be resolved against the run (no tour, a stop with no step).
    TourFailed {
        run_id: u64,
        example: String,
        message: String,
    },
    /// The engine panicked; it must be restarted.
    Crashed {
        message: String,
    },
}

/// How far a run is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub run_id: u64,
    /// Units done out of `total` (stages, plus one for reading and one for summing up).
    pub done: u32,
    pub total: u32,
    pub label: String,
}

/// A finished run, without the steps themselves (the page asks for views).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub run_id: u64,
    pub input_format: String,
    /// The first stage that applies to the input.
    pub entry: Stage,
    pub stages: Vec<StageSummary>,
    /// Lines of the printed output of the last stage.
    pub output_lines: u32,
    /// Wall time of the run in the engine, in milliseconds (0 when not measured).
    pub elapsed_ms: f64,
    /// The engine's wasm memory once the run is done, in bytes ([`crate::memory_bytes`];
    /// 0 outside wasm). Wasm memory never shrinks: this is the most the engine has held.
    pub memory_bytes: u64,
    /// The stage that could not handle the input, when the run stopped in front of it.
    pub stopped: Option<StageStop>,
}

/// Why a run stopped before a stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageStop {
    pub stage: Stage,
    pub message: String,
}

impl RunSummary {
    pub fn stage(&self, stage: Stage) -> Option<&StageSummary> {
        self.stages.iter().find(|s| s.stage == stage)
    }
}

/// One stage of a finished run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StageSummary {
    pub stage: Stage,
    /// How many steps the stage recorded.
    pub steps: u32,
    /// Per step: true when it changed nothing in the IR.
    pub noop: Vec<bool>,
    /// Which steps belong to which function.
    pub functions: Vec<FunctionRange>,
    /// Counters, in the stage's order.
    pub stats: Vec<(String, u64)>,
    /// The first remarks (at most [`MAX_REMARKS`]); `remarks_total` counts them all.
    pub remarks: Vec<String>,
    pub remarks_total: u32,
    /// None: not verified; Some(empty): verified and fine; else the errors.
    pub verify: Option<Vec<String>>,
    /// False when the engine cannot replay this stage's steps (its IR has no replay yet):
    /// views then show the stage's input and output only.
    pub replayable: bool,
}

/// Remarks a summary carries at most.
pub const MAX_REMARKS: usize = 200;

/// Steps `first .. first + count` belong to `function`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionRange {
    pub function: String,
    pub first: u32,
    pub count: u32,
}

/// Why a run produced no result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunFailure {
    pub run_id: u64,
    /// The whole message, as the CLI would print it.
    pub message: String,
    /// Positions in the source (1-based line and column), in source order.
    pub errors: Vec<SourcePosError>,
    /// True when the request was wrong rather than the source (a stage that is missing).
    pub usage: bool,
}

/// An error at a line and column of the source.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourcePosError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Printed IR with some lines marked.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IrText {
    pub text: String,
    /// Marked lines (0-based), sorted by line, at most one mark per line.
    pub marks: Vec<LineMark>,
}

/// Why a line is highlighted.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkKind {
    /// The step inserted this instruction.
    Inserted,
    /// The step erased this instruction.
    Erased,
    /// The step rewrote this instruction (operands, flags, opcode) or header line.
    Changed,
    /// The step moved this instruction.
    Moved,
    /// The step is about this instruction or block but did not change it.
    Focus,
}

impl MarkKind {
    pub const fn name(self) -> &'static str {
        match self {
            MarkKind::Inserted => "inserted",
            MarkKind::Erased => "erased",
            MarkKind::Changed => "changed",
            MarkKind::Moved => "moved",
            MarkKind::Focus => "focus",
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineMark {
    pub line: u32,
    pub kind: MarkKind,
}

/// One IR edit of a step, readable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditRow {
    /// `insert`, `erase`, `replace`, `move`, `set_class`, `set_props`.
    pub op: String,
    /// The instruction (as printed) or what changed.
    pub text: String,
}

/// One row of a step's pass-specific payload.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayloadRow {
    pub key: String,
    pub value: String,
}

/// What the page shows for one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepView {
    pub run_id: u64,
    pub stage: Stage,
    /// 0: the stage's input; k: after the k-th step.
    pub step: u32,
    pub total: u32,
    /// The function the step belongs to (the first one at step 0).
    pub function: String,
    /// The step's kind (`extract_subreg_copy`, ...); `input` at step 0.
    pub kind: String,
    pub narration: String,
    /// The IR before the step (at step 0: the stage's input).
    pub before: IrText,
    /// The IR after the step (at step 0: the stage's output, unmarked); None when the
    /// stage has no function to show.
    pub after: Option<IrText>,
    /// Virtual registers the step is about (`%N` numbers).
    pub focus_regs: Vec<u32>,
    pub edits: Vec<EditRow>,
    /// The payload's type (`extract_subreg_pair`, ...) and its fields.
    pub payload_type: String,
    pub payload: Vec<PayloadRow>,
    /// The stage's pass picture at this step, when it has one (`crate::pictures`).
    #[serde(default)]
    pub picture: Option<crate::pictures::Picture>,
    /// The coalescing picture (register-coalescer, nvptx-coalescer), after this step.
    #[serde(default)]
    pub coalesce: Option<Box<crate::pictures::coalesce::CoalescePicture>>,
    /// Blank rows that line `before` and `after` up row by row (a line diff between
    /// them): unchanged lines share a row, a changed line sits beside its new form, and
    /// an inserted or erased line faces a blank.
    #[serde(default)]
    pub align: Alignment,
    /// The stage's verifier and interpreter verdicts (`crate::proof`).
    #[serde(default)]
    pub proof: Option<Box<crate::proof::Proof>>,
}

/// Where each pane of a step view gets blank rows so both panes align.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alignment {
    pub before: Vec<Gap>,
    pub after: Vec<Gap>,
}

/// `rows` blank rows just above 0-based line `at` (`at` = the line count: at the end).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    pub at: u32,
    pub rows: u32,
}

/// A line diff between two steps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffView {
    pub run_id: u64,
    pub stage: Stage,
    pub from: u32,
    pub to: u32,
    pub lines: Vec<DiffLine>,
    pub added: u32,
    pub removed: u32,
    /// True when the diff was cut at [`crate::diff::MAX_DIFF_LINES`] lines.
    pub truncated: bool,
}

/// One line of a diff: unchanged context, added, removed, or a run of skipped
/// unchanged lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffLine {
    Same { old: u32, new: u32, text: String },
    Added { new: u32, text: String },
    Removed { old: u32, text: String },
    Skipped { count: u32 },
}

/// A guided tour resolved against one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TourPlan {
    pub run_id: u64,
    pub example: String,
    pub title: String,
    pub stops: Vec<TourStopView>,
}

/// One stop of a resolved tour.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TourStopView {
    pub stage: Stage,
    /// The step inside `stage` (0: its input).
    pub step: u32,
    pub title: String,
    pub text: String,
    /// `page § section` of `shared/spec/`.
    pub spec: String,
    /// Why the mechanism matters, one sentence (shown after `text`).
    pub why: String,
    /// The project's page about the mechanism, relative to the site (`mechanisms/….html#…`).
    pub doc: String,
    /// What the stop points at on screen (filled in by the session, which has the views).
    pub target: TourTarget,
}

/// What a tour stop highlights: lines of the two IR panes and a part of the picture.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TourTarget {
    /// 0-based lines of the Before pane (at step 0: the stage's input).
    pub before_lines: Vec<u32>,
    /// 0-based lines of the After pane.
    pub after_lines: Vec<u32>,
    pub picture: Option<PictureTarget>,
}

/// A part of a pass picture.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PictureTarget {
    /// Interval-tree nodes of these registers.
    TreeNodes(Vec<u32>),
    /// Live-range rows of these registers.
    BarRows(Vec<u32>),
    /// The fan-out picture's pair (1-based), or its wide source when None.
    FanoutPair(Option<u32>),
    /// A GeneralOptimize grid cell.
    GridCell { block: u32, round: u32 },
    /// A round of the phase-37 cost curve.
    CostRound(u32),
    /// The phase-58 MOV buffer.
    MovBuffer,
    /// The whole interval tree.
    Tree,
    /// The whole pass picture.
    Whole,
}

/// The pictures a [`StepView`] carries, with their layouts: data the engine builds from
/// the trace (`crate::pictures`), which the page only maps to SVG.
pub mod pictures {
    pub use crate::pictures::coalesce::{
        Axis, Bar, BarRow, CoalescePicture, HeapCandidate, HeapPicture, Tick, TreeNode,
        TreePicture, Verdict,
    };
    pub use crate::pictures::{
        FanoutLayout, FanoutPair, FanoutPicture, GoBufferView, GoCell, GoCostPoint, GoLayout,
        GoMarkView, GoPicture, Picture,
    };
}

/// A stage's proof as a [`StepView`] carries it (`crate::proof`).
pub mod proof {
    pub use crate::proof::{Proof, Status, Verdict};
}

/// The title of `example`'s guided tour, when it has one (the page offers a "Tour"
/// button; the tour itself comes back as a [`TourPlan`] for [`Request::Tour`]).
pub fn tour_title(example: &str) -> Option<&'static str> {
    crate::tours::find(example).map(|t| t.title)
}

#[cfg(test)]
mod wire_tests {
    use super::*;

    #[test]
    fn requests_and_responses_survive_the_wire() {
        let request = Request::Run {
            id: 7,
            run: RunRequest {
                source: "---\nname: k\n...".into(),
                format: Some("mir".into()),
                knobs: "copy-limit=3".into(),
                verify: true,
                fault: None,
            },
        };
        assert_eq!(decode::<Request>(&encode(&request).unwrap()), Ok(request));
        let response = Response::ViewFailed {
            run_id: 7,
            stage: Stage::TwoAddress,
            step: 3,
            message: "stale".into(),
        };
        assert_eq!(
            decode::<Response>(&encode(&response).unwrap()),
            Ok(response)
        );
    }

    #[test]
    fn cut_or_foreign_bytes_are_an_error_not_a_panic() {
        let bytes = encode(&crate::ready()).unwrap();
        for cut in 0..bytes.len() {
            assert!(decode::<Response>(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert!(decode::<Request>(&[0xff; 16]).is_err());
    }
}
