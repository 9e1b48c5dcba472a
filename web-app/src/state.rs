//! The playground's state and the actions that change it.
//!
//! ```text
//!  components ──Action──▶ App ──dispatch──▶ AppState::apply (pure) ──▶ new AppState
//!      apply: reduce_run (state/run.rs) → reduce_playback (state/playback.rs)
//!             → reduce_slots (state/slots.rs) → reduce_tour (state/tour.rs);
//!             each handles its concern's actions and hands the others on │
//!  the use_engine hook reads what the state wants from the engine:       ▼
//!    run_wanted()  (a queued run: id, delay)      ──Request::Run──▶ engine (Web Worker)
//!    view_wanted() (run, stage, step)             ──Request::View──▶
//!    diff_wanted() (run, stage, from, to)         ──Request::Diff──▶
//!  engine ──Response──▶ Action::{RunProgress, RunDone, RunFailed, ViewArrived, ...}
//! ```
//!
//! [`AppState::apply`] is the whole transition function: pure, deterministic, free of view
//! code and of the DOM, so it is unit-tested natively. Answers from the engine carry the
//! run id (and stage and step) they belong to; `apply` drops stale ones. The
//! [`Reducible`] impl only adapts `apply` to yew's `use_reducer`.

use crate::model::layout::{Layout, Speed};
use crate::model::panes::{layout_index, Pane, PaneWidths};
use crate::model::tour::TourState;
use compiler_core::examples::{self, Example};
use compiler_core::knobs::{format_value, Knob, Knobs};
use compiler_core::share::{Link, LinkError, LinkState};
use compiler_core::{InputFormat, Stage};
use std::collections::BTreeMap;
use std::rc::Rc;
use web_engine::protocol::{
    DiffView, Progress, RunFailure, RunRequest, RunSummary, SourcePosError, StageSummary, StepView,
    TourPlan,
};
use yew::Reducible;

mod playback;
mod run;
mod slots;
mod tour;

/// The example shown when nothing else is asked for.
pub const DEFAULT_EXAMPLE: &str = "tex-v4f32";
/// How long typing pauses before the source runs again, in milliseconds.
pub const TYPING_DELAY_MS: u32 = 350;

/// The three tabs of the left column.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum LeftTab {
    #[default]
    Source,
    Gallery,
    Knobs,
}

/// The tabs of the centre column.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum CentreTab {
    #[default]
    Step,
    Diff,
    Stats,
}

/// Where the engine is with the current input.
#[derive(Clone, Debug, PartialEq)]
pub enum RunState {
    /// Nothing asked yet.
    Idle,
    /// A run is wanted; the App sends it after `delay_ms` unless the input changes again.
    Queued { id: u64, delay_ms: u32 },
    /// Sent; progress as the engine reports it.
    Running { id: u64, progress: Option<Progress> },
    /// The last run finished (its summary is in `summary`); `memory_bytes` is the
    /// engine's wasm memory after it.
    Done {
        id: u64,
        elapsed_ms: f64,
        memory_bytes: u64,
    },
    /// The last run failed (errors in `errors`, message in `run_message`).
    Failed { id: u64 },
    /// The user stopped it.
    Cancelled { id: u64 },
}

impl RunState {
    pub fn id(&self) -> Option<u64> {
        match *self {
            RunState::Idle => None,
            RunState::Queued { id, .. }
            | RunState::Running { id, .. }
            | RunState::Done { id, .. }
            | RunState::Failed { id }
            | RunState::Cancelled { id } => Some(id),
        }
    }

    pub fn is_busy(&self) -> bool {
        matches!(self, RunState::Queued { .. } | RunState::Running { .. })
    }
}

/// A knob value the user typed that is not valid (the knob keeps its last good value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnobDraft {
    pub text: String,
    pub error: String,
}

/// A message above the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub error: bool,
    pub text: String,
}

/// Where a link asked to go; applied when the next run finishes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub stage: Option<Stage>,
    pub step: u32,
}

/// Everything the page shows that can change.
#[derive(Clone, Debug, PartialEq)]
pub struct AppState {
    // The input.
    pub source: Rc<str>,
    /// Forced format; None: detected from the text.
    pub format: Option<InputFormat>,
    pub knobs: Knobs,
    pub knob_drafts: BTreeMap<Knob, KnobDraft>,
    pub verify: bool,
    /// The gallery example the source is, while unedited.
    pub example: Option<&'static str>,

    // The engine.
    pub run: RunState,
    /// The id the next run gets.
    pub next_run_id: u64,
    /// The last successful run (kept while a new one goes, and when one is cancelled).
    pub summary: Option<Rc<RunSummary>>,
    /// What produced `summary`: sent again to a restarted engine after a cancel, so the
    /// results on screen keep answering.
    pub summary_request: Option<Rc<RunRequest>>,
    /// What the run in flight was asked to do.
    pub sent_request: Option<Rc<RunRequest>>,
    /// Errors of the last failed run, at source positions.
    pub errors: Rc<Vec<SourcePosError>>,
    pub run_message: Option<String>,
    pub engine_error: Option<String>,
    /// The stages the engine can run (empty until it says so).
    pub implemented: Rc<Vec<Stage>>,

    // What is shown.
    pub stage: Option<Stage>,
    pub step: u32,
    pub target: Option<Target>,
    pub view: Option<Rc<StepView>>,
    pub view_error: Option<String>,
    pub diff_from: u32,
    pub diff_to: u32,
    pub diff: Option<Rc<DiffView>>,
    pub left_tab: LeftTab,
    pub centre_tab: CentreTab,
    pub gallery_query: String,

    // Playback.
    pub playing: bool,
    pub speed: Speed,
    pub skip_noop: bool,
    pub layout: Layout,
    /// Column widths per layout (index: `Layout::ALL`), set with the splitters.
    pub panes: [PaneWidths; 3],

    // Messages.
    pub notice: Option<Notice>,
    /// The last link made with "Copy link".
    pub link: Option<String>,

    // Pictures side by side and guided tours.
    /// The side-by-side slots the user stepped (stage, step); empty: each slot's default
    /// stage at its last step (see [`AppState::picture_slots`]).
    pub pictures: Vec<(Stage, u32)>,
    /// The latest view of each slot's stage.
    pub side_views: BTreeMap<Stage, Rc<StepView>>,
    pub tour: Option<TourState>,
}

impl Default for AppState {
    /// An empty page; [`Action::Start`] loads the default example.
    fn default() -> Self {
        AppState {
            source: Rc::from(""),
            format: None,
            knobs: Knobs::default(),
            knob_drafts: BTreeMap::new(),
            verify: false,
            example: None,
            run: RunState::Idle,
            next_run_id: 1,
            summary: None,
            summary_request: None,
            sent_request: None,
            errors: Rc::new(Vec::new()),
            run_message: None,
            engine_error: None,
            implemented: Rc::new(Vec::new()),
            stage: None,
            step: 0,
            target: None,
            view: None,
            view_error: None,
            diff_from: 0,
            diff_to: 0,
            diff: None,
            left_tab: LeftTab::default(),
            centre_tab: CentreTab::default(),
            gallery_query: String::new(),
            playing: false,
            speed: Speed::default(),
            skip_noop: false,
            layout: Layout::default(),
            panes: Layout::ALL.map(PaneWidths::default_for),
            notice: None,
            link: None,
            pictures: Vec::new(),
            side_views: BTreeMap::new(),
            tour: None,
        }
    }
}

/// A user intent or an engine answer, applied by [`AppState::apply`].
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The page opened with no link: load the default example.
    Start,
    /// The page opened (or its `#` changed) with this link.
    OpenLink(Result<Link, LinkError>),

    // Input.
    SetSource(String),
    /// Force a format (None: detect).
    SetFormat(Option<InputFormat>),
    LoadExample(&'static str),
    /// Set a knob from text; a bad value is kept as a draft with an error.
    SetKnob {
        knob: Knob,
        text: String,
    },
    ResetKnob(Knob),
    ResetKnobs,
    SetVerify(bool),
    /// Run now (no typing delay).
    RunNow,
    CancelRun,

    // Engine answers.
    /// The engine started; these stages have an implementation.
    EngineReady(Vec<Stage>),
    RunSent(u64),
    RunProgress(Progress),
    RunDone(Rc<RunSummary>),
    RunFailed(Rc<RunFailure>),
    ViewArrived(Rc<StepView>),
    DiffArrived(Rc<DiffView>),
    ViewFailed {
        run_id: u64,
        stage: Stage,
        step: u32,
        message: String,
    },
    EngineCrashed(String),

    // Navigation.
    SelectStage(Stage),
    /// Go to step N (clamped).
    Seek(u32),
    /// One step forward (+1) or back (-1), honouring "skip steps that change nothing".
    Step(i32),
    First,
    Last,
    Play,
    Pause,
    TogglePlay,
    /// The play timer fired.
    Tick,
    SetSpeed(Speed),
    SetSkipNoop(bool),
    SetLayout(Layout),
    /// A splitter dragged: the column's width in percent of the workspace.
    SetPaneWidth {
        pane: Pane,
        percent: i32,
    },
    /// A splitter's arrow keys: wider (+1) or narrower (-1) by one step.
    NudgePane {
        pane: Pane,
        delta: i32,
    },
    /// Collapse a column, or open a collapsed one at its layout's default width.
    TogglePane(Pane),
    SetDiffRange {
        from: u32,
        to: u32,
    },
    SetLeftTab(LeftTab),
    SetCentreTab(CentreTab),
    SetGalleryQuery(String),

    // Pictures side by side.
    /// Step a side-by-side slot forward (+1) or back (-1).
    PictureStep {
        slot: usize,
        delta: i32,
    },
    /// Show step N (clamped) in a slot.
    PictureSeek {
        slot: usize,
        step: u32,
    },
    /// Show another stage in a slot (slot 2: one of the GeneralOptimize stages).
    SetPictureStage {
        slot: usize,
        stage: Stage,
    },

    // Guided tours.
    /// Start the tour of a gallery example (loading it first when needed).
    StartTour(&'static str),
    TourArrived(Rc<TourPlan>),
    TourFailed {
        run_id: u64,
        example: String,
        message: String,
    },
    NextStop,
    PrevStop,
    GoToStop(usize),
    ToggleAutoplay,
    /// The tour's autoplay timer fired.
    TourTick,
    EndTour,

    // Messages.
    LinkCopied {
        url: String,
        copied: bool,
    },
    DismissNotice,
}

impl AppState {
    /// The state after `action`.
    pub fn apply(&self, action: Action) -> AppState {
        let mut s = self.clone();
        s.reduce_in_place(action);
        s
    }

    fn reduce_in_place(&mut self, action: Action) {
        // Each concern handles its own actions and hands the others back.
        let rest = self
            .reduce_run(action)
            .and_then(|a| self.reduce_playback(a))
            .and_then(|a| self.reduce_slots(a))
            .and_then(|a| self.reduce_tour(a));
        debug_assert!(rest.is_none(), "an action no concern handles: {rest:?}");
    }

    /// The column widths of the current layout.
    pub fn pane_widths(&self) -> PaneWidths {
        self.panes[layout_index(self.layout)]
    }

    /// The summary of the stage shown, if it ran.
    pub fn stage_summary(&self) -> Option<&StageSummary> {
        self.summary.as_ref()?.stage(self.stage?)
    }

    pub fn total_steps(&self) -> u32 {
        self.stage_summary().map_or(0, |s| s.steps)
    }

    /// The format used to read the source: forced, or detected.
    pub fn effective_format(&self) -> InputFormat {
        self.format
            .or_else(|| compiler_core::pipeline::detect_format(&self.source))
            .unwrap_or(InputFormat::Mir)
    }

    /// The (run, stage, step) whose view the page needs, when it does not have it.
    pub fn view_wanted(&self) -> Option<(u64, Stage, u32)> {
        let summary = self.summary.as_ref()?;
        let stage = self.stage?;
        summary.stage(stage)?;
        Some((summary.run_id, stage, self.step))
    }

    /// The diff the page needs while the diff tab is open.
    pub fn diff_wanted(&self) -> Option<(u64, Stage, u32, u32)> {
        if self.centre_tab != CentreTab::Diff {
            return None;
        }
        let (run_id, stage, _) = self.view_wanted()?;
        Some((run_id, stage, self.diff_from, self.diff_to))
    }

    /// The link fragment (after `#`) for what is shown: the short example link while
    /// the source is an untouched gallery example in the standard layout with default
    /// knobs and detected format, else the whole state.
    pub fn link_fragment(&self) -> String {
        let plain = self.format.is_none()
            && self.knobs == Knobs::default()
            && self.layout == Layout::default()
            && self.pictures.is_empty();
        match self.example.filter(|_| plain) {
            Some(name) => {
                compiler_core::share::encode_example(&compiler_core::share::ExampleLink {
                    name: name.into(),
                    stage: self.stage,
                    step: Some(self.step),
                })
            }
            None => compiler_core::share::encode_state(&self.link_state()),
        }
    }

    /// The state a permalink stores.
    pub fn link_state(&self) -> LinkState {
        LinkState {
            source: self.source.to_string(),
            format: self.format,
            knobs: self.knobs.clone(),
            stage: self.stage,
            step: Some(self.step),
            layout: Some(self.layout.id().into()),
            pictures: self.pictures.clone(),
        }
    }

    /// The text shown in a knob's field: the draft when the user typed a bad value.
    pub fn knob_text(&self, knob: Knob) -> String {
        match self.knob_drafts.get(&knob) {
            Some(d) => d.text.clone(),
            None => format_value(knob.info().kind, self.knobs.get(knob)),
        }
    }

    /// Whether `stage` has an implementation; None until the engine has said.
    pub fn is_implemented(&self, stage: Stage) -> Option<bool> {
        (!self.implemented.is_empty()).then(|| self.implemented.contains(&stage))
    }

    /// The current example, when the source is one.
    pub fn current_example(&self) -> Option<&'static Example> {
        self.example.and_then(examples::find)
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let next = self.apply(action);
        if next == *self {
            // Same state: hand back the same Rc so yew skips the re-render.
            self
        } else {
            Rc::new(next)
        }
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "state_tour_tests.rs"]
mod tour_tests;
