//! The playground's state and the actions that change it.
//!
//! ```text
//!  components ──Action──▶ App ──dispatch──▶ AppState::apply (pure) ──▶ new AppState
//!                                                                       │
//!  App's effects read what the state wants from the engine:             ▼
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
use crate::model::panes::{layout_index, Pane, PaneWidths, STEP};
use crate::model::slots;
use crate::model::tour::TourState;
use compiler_core::examples::{self, Example};
use compiler_core::knobs::{format_value, parse_value, Knob, Knobs};
use compiler_core::share::{Link, LinkError, LinkState};
use compiler_core::{InputFormat, Stage};
use std::collections::BTreeMap;
use std::rc::Rc;
use web_engine::protocol::{
    DiffView, Progress, RunFailure, RunRequest, RunSummary, SourcePosError, StageSummary, StepView,
    TourPlan,
};
use yew::Reducible;

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
        match action {
            Action::Start => self.load_example(DEFAULT_EXAMPLE, None),
            Action::OpenLink(link) => self.open_link(link),
            Action::SetSource(text) => {
                if *self.source != *text {
                    self.example = crate::model::gallery::example_with_text(&text);
                    self.end_tour_unless(self.example);
                    self.source = Rc::from(text);
                    self.queue_run(TYPING_DELAY_MS);
                }
            }
            Action::SetFormat(f) => {
                if self.format != f {
                    self.format = f;
                    self.queue_run(0);
                }
            }
            Action::LoadExample(name) => {
                self.end_tour_unless(Some(name));
                let stage = examples::find(name).map(|e| e.stage);
                self.load_example(
                    name,
                    stage.map(|s| Target {
                        stage: Some(s),
                        step: 0,
                    }),
                );
            }
            Action::SetKnob { knob, text } => self.set_knob(knob, text),
            Action::ResetKnob(knob) => {
                self.knob_drafts.remove(&knob);
                if !self.knobs.is_default(knob) {
                    self.knobs.set(knob, knob.info().default);
                    self.queue_run(0);
                }
            }
            Action::ResetKnobs => {
                self.knob_drafts.clear();
                if self.knobs != Knobs::default() {
                    self.knobs = Knobs::default();
                    self.queue_run(0);
                }
            }
            Action::SetVerify(on) => {
                if self.verify != on {
                    self.verify = on;
                    self.queue_run(0);
                }
            }
            Action::RunNow => self.queue_run(0),
            Action::CancelRun => {
                if let Some(id) = self.run.id().filter(|_| self.run.is_busy()) {
                    // The engine restarts empty; the last finished run stays on screen
                    // and is run again in the new engine (see `restore_wanted`).
                    self.run = RunState::Cancelled { id };
                    self.sent_request = None;
                    self.run_message = Some(if self.summary.is_some() {
                        "Run cancelled: the results shown are from the last run that finished. Press Run to start the new one again.".into()
                    } else {
                        "Run cancelled. Press Run to start it again.".into()
                    });
                }
            }
            Action::EngineReady(stages) => {
                if *self.implemented != stages {
                    self.implemented = Rc::new(stages);
                }
            }
            Action::RunSent(id) => {
                if matches!(self.run, RunState::Queued { id: q, .. } if q == id) {
                    self.sent_request = self.run_wanted().map(|w| Rc::new(w.2));
                    self.run = RunState::Running { id, progress: None };
                }
            }
            Action::RunProgress(p) => {
                if let RunState::Running { id, progress } = &mut self.run {
                    if *id == p.run_id {
                        *progress = Some(p);
                    }
                }
            }
            Action::RunDone(summary) => self.run_done(summary),
            Action::RunFailed(f) => {
                if self.run_is_current(f.run_id) {
                    self.run = RunState::Failed { id: f.run_id };
                    self.errors = Rc::new(f.errors.clone());
                    self.run_message = Some(f.message.clone());
                    self.summary = None;
                    self.summary_request = None;
                    self.view = None;
                    self.diff = None;
                    self.playing = false;
                    // A link's target stays until a run succeeds.
                }
            }
            Action::ViewArrived(v) => {
                let current = self.summary.as_ref().is_some_and(|s| s.run_id == v.run_id)
                    && self.stage == Some(v.stage)
                    && self.step == v.step;
                let side = self.layout == Layout::SideBySide
                    && self.summary.as_ref().is_some_and(|s| s.run_id == v.run_id)
                    && self.picture_slots().contains(&(v.stage, v.step));
                if side {
                    self.side_views.insert(v.stage, v.clone());
                }
                if current {
                    self.view = Some(v);
                    self.view_error = None;
                }
            }
            Action::DiffArrived(d) => {
                let current = self.summary.as_ref().is_some_and(|s| s.run_id == d.run_id)
                    && self.stage == Some(d.stage)
                    && (self.diff_from, self.diff_to) == (d.from, d.to);
                if current {
                    self.diff = Some(d);
                }
            }
            Action::ViewFailed {
                run_id,
                stage,
                step,
                message,
            } => {
                let current = self.summary.as_ref().is_some_and(|s| s.run_id == run_id)
                    && self.stage == Some(stage)
                    && (self.step == step || self.diff_to == step);
                if current {
                    self.view_error = Some(message);
                }
            }
            Action::EngineCrashed(message) => {
                self.engine_error = Some(message);
                self.playing = false;
                if let Some(id) = self.run.id().filter(|_| self.run.is_busy()) {
                    self.run = RunState::Failed { id };
                    self.run_message = Some("The engine stopped before the run finished.".into());
                }
            }
            Action::SelectStage(stage) => {
                if self.stage != Some(stage) {
                    if self.layout == Layout::SideBySide && self.summary.is_some() {
                        // The slot that followed the main bar keeps its step.
                        self.pictures = self.picture_slots();
                    }
                    self.stage = Some(stage);
                    self.step = 0;
                    self.playing = false;
                    self.reset_diff_range();
                }
            }
            Action::Seek(n) => {
                self.step = n.min(self.total_steps());
                if self.step == self.total_steps() {
                    self.playing = false;
                }
            }
            Action::Step(delta) => {
                self.step = if delta >= 0 {
                    self.next_step(self.step)
                } else {
                    self.prev_step(self.step)
                };
            }
            Action::First => self.step = 0,
            Action::Last => self.reduce_in_place(Action::Seek(u32::MAX)),
            Action::Play => self.play(),
            Action::Pause => self.playing = false,
            Action::TogglePlay => {
                if self.playing {
                    self.playing = false;
                } else {
                    self.play();
                }
            }
            Action::Tick => {
                if self.playing {
                    let next = self.next_step(self.step);
                    self.step = next;
                    if next >= self.total_steps() {
                        self.playing = false;
                    }
                }
            }
            Action::SetSpeed(speed) => self.speed = speed,
            Action::SetSkipNoop(on) => self.skip_noop = on,
            Action::SetLayout(layout) => self.layout = layout,
            Action::SetPaneWidth { pane, percent } => self.pane_widths_mut().set(pane, percent),
            Action::NudgePane { pane, delta } => {
                let now = i32::from(self.pane_widths().get(pane));
                let from = if now == 0 && delta > 0 {
                    i32::from(crate::model::panes::MIN) - i32::from(STEP)
                } else {
                    now
                };
                self.pane_widths_mut()
                    .set(pane, from + delta * i32::from(STEP));
            }
            Action::TogglePane(pane) => {
                let open = PaneWidths::default_for(self.layout).get(pane).max(22);
                let now = self.pane_widths().get(pane);
                let to = if now == 0 { i32::from(open) } else { 0 };
                self.pane_widths_mut().set(pane, to);
            }
            Action::SetDiffRange { from, to } => {
                let total = self.total_steps();
                self.diff_from = from.min(total);
                self.diff_to = to.min(total);
            }
            Action::SetLeftTab(tab) => self.left_tab = tab,
            Action::SetCentreTab(tab) => self.centre_tab = tab,
            Action::SetGalleryQuery(q) => self.gallery_query = q,
            Action::LinkCopied { url, copied } => {
                self.notice = Some(Notice {
                    error: false,
                    text: if copied {
                        "Link copied to the clipboard.".into()
                    } else {
                        "The browser did not allow copying; select the link below and copy it."
                            .into()
                    },
                });
                self.link = Some(url);
            }
            Action::DismissNotice => self.notice = None,
            Action::PictureStep { slot, delta } => {
                if let Some(&(stage, step)) = self.picture_slots().get(slot) {
                    let next = if delta >= 0 {
                        step.saturating_add(delta as u32)
                    } else {
                        step.saturating_sub(delta.unsigned_abs())
                    };
                    self.step_slot(slot, stage, next);
                }
            }
            Action::PictureSeek { slot, step } => {
                if let Some(&(stage, _)) = self.picture_slots().get(slot) {
                    self.step_slot(slot, stage, step);
                }
            }
            Action::SetPictureStage { slot, stage } => {
                if slots::allowed(slot, stage) {
                    self.step_slot(slot, stage, 0);
                }
            }
            Action::StartTour(name) => {
                if web_engine::tours::find(name).is_some() {
                    if self.example != Some(name) {
                        self.load_example(name, None);
                    }
                    self.tour = Some(TourState::new(name));
                    self.playing = false;
                }
            }
            Action::TourArrived(plan) => {
                let current = self
                    .summary
                    .as_ref()
                    .is_some_and(|s| s.run_id == plan.run_id);
                if let Some(t) = self
                    .tour
                    .as_mut()
                    .filter(|t| current && t.example == plan.example)
                {
                    t.stop = t.stop.min(plan.stops.len().saturating_sub(1));
                    t.plan = Some(plan);
                    t.error = None;
                    self.apply_stop();
                }
            }
            Action::TourFailed {
                run_id,
                example,
                message,
            } => {
                let current = self.summary.as_ref().is_some_and(|s| s.run_id == run_id);
                if let Some(t) = self
                    .tour
                    .as_mut()
                    .filter(|t| current && t.example == example)
                {
                    t.error = Some(message);
                    t.autoplay = false;
                }
            }
            Action::NextStop => self.go_to_stop(|t| t.stop + 1),
            Action::PrevStop => self.go_to_stop(|t| t.stop.saturating_sub(1)),
            Action::GoToStop(n) => self.go_to_stop(|_| n),
            Action::ToggleAutoplay => {
                if let Some(t) = self.tour.as_mut().filter(|t| !t.is_empty()) {
                    t.autoplay = !t.autoplay;
                    if t.autoplay && t.at_end() {
                        t.stop = 0;
                        self.apply_stop();
                    }
                }
            }
            Action::TourTick => {
                if let Some(t) = self.tour.as_mut().filter(|t| t.autoplay) {
                    if t.at_end() {
                        t.autoplay = false;
                    } else {
                        t.stop += 1;
                        if t.at_end() {
                            t.autoplay = false;
                        }
                        self.apply_stop();
                    }
                }
            }
            Action::EndTour => self.tour = None,
        }
    }

    /// Ends the tour when the source is no longer its example.
    fn end_tour_unless(&mut self, example: Option<&str>) {
        if self
            .tour
            .as_ref()
            .is_some_and(|t| Some(t.example) != example)
        {
            self.tour = None;
        }
    }

    /// Moves the tour to the stop `pick` chooses (clamped) and shows it.
    fn go_to_stop(&mut self, pick: impl Fn(&TourState) -> usize) {
        if let Some(t) = self.tour.as_mut().filter(|t| !t.is_empty()) {
            t.stop = pick(t).min(t.len() - 1);
            self.apply_stop();
        }
    }

    /// Shows the tour's current stop: its stage and step.
    fn apply_stop(&mut self) {
        let Some(stop) = self.tour.as_ref().and_then(|t| t.current()).cloned() else {
            return;
        };
        if self
            .summary
            .as_ref()
            .and_then(|s| s.stage(stop.stage))
            .is_none()
        {
            return;
        }
        if self.stage != Some(stop.stage) {
            self.stage = Some(stop.stage);
            self.step = 0;
            self.reset_diff_range();
        }
        self.step = stop.step.min(self.total_steps());
        self.playing = false;
    }

    /// Steps `stage` recorded in the current run (0 when it did not run).
    pub fn stage_steps(&self, stage: Stage) -> u32 {
        self.summary
            .as_ref()
            .and_then(|s| s.stage(stage))
            .map_or(0, |s| s.steps)
    }

    /// The side-by-side slots as shown: the stepped ones, or each default stage at its
    /// input (step 0); steps clamped to the current run. The slot showing the stage of
    /// the main step bar is linked to it: it shows the main step.
    pub fn picture_slots(&self) -> Vec<(Stage, u32)> {
        let stored: Vec<(Stage, u32)> = if self.pictures.is_empty() {
            slots::DEFAULT_STAGES.iter().map(|&s| (s, 0)).collect()
        } else {
            self.pictures.clone()
        };
        stored
            .into_iter()
            .map(|(s, n)| match self.stage {
                Some(main) if main == s => (s, self.step),
                _ => (s, n.min(self.stage_steps(s))),
            })
            .collect()
    }

    /// The slot linked to the main step bar, if one shows its stage.
    pub fn linked_slot(&self) -> Option<usize> {
        let main = self.stage?;
        self.picture_slots().iter().position(|&(s, _)| s == main)
    }

    fn set_slot(&mut self, slot: usize, stage: Stage, step: u32) {
        let mut all = self.picture_slots();
        if let Some(entry) = all.get_mut(slot) {
            *entry = (stage, step.min(self.stage_steps(stage)));
            self.pictures = all;
        }
    }

    /// A slot's own controls moved it: it becomes the slot the main step bar drives
    /// (the main stage and step follow it), so both bars always agree.
    fn step_slot(&mut self, slot: usize, stage: Stage, step: u32) {
        let Some(summary) = self.summary.as_ref() else {
            return;
        };
        let ran = summary.stage(stage).is_some();
        // Every slot keeps the step it shows now (the linked one's comes from the main
        // bar), before the main stage moves to this slot's.
        self.set_slot(slot, stage, step);
        if !ran {
            return;
        }
        if self.stage != Some(stage) {
            self.stage = Some(stage);
            self.reset_diff_range();
        }
        self.step = step.min(self.total_steps());
        self.playing = false;
    }

    /// The views the side-by-side layout needs: (run, stage, step) of each slot whose
    /// stage ran.
    pub fn side_views_wanted(&self) -> Vec<(u64, Stage, u32)> {
        let Some(summary) = self
            .summary
            .as_ref()
            .filter(|_| self.layout == Layout::SideBySide)
        else {
            return Vec::new();
        };
        self.picture_slots()
            .into_iter()
            .filter(|&(s, _)| summary.stage(s).is_some())
            .map(|(s, n)| (summary.run_id, s, n))
            .collect()
    }

    /// After a cancel, the run that produced the results on screen, to send again to the
    /// restarted engine under the same id (its answer is dropped: the summary is there).
    pub fn restore_wanted(&self) -> Option<(u64, RunRequest)> {
        match self.run {
            RunState::Cancelled { .. } => Some((
                self.summary.as_ref()?.run_id,
                (**self.summary_request.as_ref()?).clone(),
            )),
            _ => None,
        }
    }

    /// The tour to resolve: (run, example) once the example's run is done and the tour
    /// has no plan for it yet.
    pub fn tour_wanted(&self) -> Option<(u64, &'static str)> {
        let t = self.tour.as_ref()?;
        if t.plan.is_some() || t.error.is_some() || self.example != Some(t.example) {
            return None;
        }
        let summary = self.summary.as_ref()?;
        matches!(self.run, RunState::Done { id, .. } if id == summary.run_id)
            .then_some((summary.run_id, t.example))
    }

    fn queue_run(&mut self, delay_ms: u32) {
        let id = self.next_run_id;
        self.next_run_id += 1;
        self.run = RunState::Queued { id, delay_ms };
        self.playing = false;
    }

    fn run_is_current(&self, id: u64) -> bool {
        matches!(self.run, RunState::Running { id: r, .. } | RunState::Queued { id: r, .. } if r == id)
    }

    fn load_example(&mut self, name: &str, target: Option<Target>) {
        let Some(example) = examples::find(name) else {
            return;
        };
        let Some((_, text)) = example.text(None) else {
            return;
        };
        self.source = Rc::from(text);
        self.format = None;
        self.example = Some(example.name);
        self.errors = Rc::new(Vec::new());
        self.run_message = None;
        self.target = target.or(Some(Target {
            stage: Some(example.stage),
            step: 0,
        }));
        self.queue_run(0);
    }

    fn open_link(&mut self, link: Result<Link, LinkError>) {
        match link {
            Ok(Link::State(s)) => {
                let s = *s;
                self.example = crate::model::gallery::example_with_text(&s.source);
                self.source = Rc::from(s.source);
                self.format = s.format;
                self.knobs = s.knobs;
                self.knob_drafts.clear();
                self.layout = s.layout.as_deref().map(Layout::from_id).unwrap_or_default();
                self.pictures = slots::from_link(&s.pictures);
                self.target = Some(Target {
                    stage: s.stage,
                    step: s.step.unwrap_or(0),
                });
                self.errors = Rc::new(Vec::new());
                self.run_message = None;
                self.queue_run(0);
            }
            Ok(Link::Example(e)) => match examples::find(&e.name) {
                Some(example) => {
                    let target = Target {
                        stage: e.stage.or(Some(example.stage)),
                        step: e.step.unwrap_or(0),
                    };
                    self.load_example(example.name, Some(target));
                }
                None => {
                    self.notice = Some(Notice {
                        error: true,
                        text: format!(
                            "This link names an example that does not exist (`{}`). Showing the default example instead.",
                            e.name
                        ),
                    });
                    self.load_example(DEFAULT_EXAMPLE, None);
                }
            },
            Err(e) => {
                self.notice = Some(Notice {
                    error: true,
                    text: format!(
                        "This link could not be read ({e}). It may be cut short or damaged. Showing the default example instead."
                    ),
                });
                self.load_example(DEFAULT_EXAMPLE, None);
            }
        }
    }

    fn set_knob(&mut self, knob: Knob, text: String) {
        let info = knob.info();
        match parse_value(info.kind, &text) {
            Some(v) => {
                self.knob_drafts.remove(&knob);
                if self.knobs.get(knob) != v {
                    self.knobs.set(knob, v);
                    self.queue_run(TYPING_DELAY_MS);
                }
            }
            None => {
                let error = format!(
                    "`{}` is not a valid value for {}; expected {}.",
                    text.trim(),
                    info.name,
                    info.kind.expected()
                );
                self.knob_drafts.insert(knob, KnobDraft { text, error });
            }
        }
    }

    fn run_done(&mut self, summary: Rc<RunSummary>) {
        if !self.run_is_current(summary.run_id) {
            return;
        }
        self.run = RunState::Done {
            id: summary.run_id,
            elapsed_ms: summary.elapsed_ms,
            memory_bytes: summary.memory_bytes,
        };
        self.errors = Rc::new(Vec::new());
        self.run_message = None;
        self.engine_error = None;
        self.view = None;
        self.view_error = None;
        self.diff = None;
        self.side_views.clear();
        if let Some(t) = self.tour.as_mut() {
            // Resolved again against the new run.
            t.plan = None;
            t.error = None;
        }
        self.summary_request = self.sent_request.take();
        let ran = |s: Stage| summary.stage(s).is_some();
        let target = self.target.take();
        let (stage, step) = match target {
            Some(t) => {
                let stage = t
                    .stage
                    .filter(|&s| ran(s))
                    .or_else(|| self.default_stage(&summary));
                (stage, t.step)
            }
            None => match self.stage {
                // Same stage as before the rerun, same step when it still exists.
                Some(s) if ran(s) => (Some(s), self.step),
                // A stage the new input does not reach (PTX pasted over MIR): the
                // input's own stage instead.
                _ => (self.default_stage(&summary), 0),
            },
        };
        self.summary = Some(summary);
        self.stage = stage;
        self.step = step.min(self.total_steps());
        self.reset_diff_range();
        if let Some(t) = target {
            self.report_target(t);
        }
    }

    /// Says so when a link asked for a stage that did not run or a step past the
    /// stage's last (the view shows the nearest there is).
    fn report_target(&mut self, t: Target) {
        let text = match (t.stage, self.stage) {
            (Some(want), Some(shown)) if want != shown => format!(
                "This link asks for stage {want}, which did not run for this input; showing {shown} instead."
            ),
            (_, Some(shown)) if t.step > self.step => format!(
                "This link asks for step {} of {shown}, which has only {} steps; showing step {}.",
                t.step,
                self.total_steps(),
                self.step
            ),
            _ => return,
        };
        self.notice = Some(Notice { error: true, text });
    }

    /// The example's stage if it ran, else the first stage that ran.
    fn default_stage(&self, summary: &RunSummary) -> Option<Stage> {
        let example = self
            .example
            .and_then(examples::find)
            .map(|e| e.stage)
            .filter(|&s| summary.stage(s).is_some());
        example.or_else(|| summary.stages.first().map(|s| s.stage))
    }

    fn reset_diff_range(&mut self) {
        self.diff_from = 0;
        self.diff_to = self.total_steps();
        self.diff = None;
    }

    fn play(&mut self) {
        if self.total_steps() == 0 {
            return;
        }
        if self.step >= self.total_steps() {
            self.step = 0;
        }
        self.playing = true;
    }

    /// The column widths of the current layout.
    pub fn pane_widths(&self) -> PaneWidths {
        self.panes[layout_index(self.layout)]
    }

    fn pane_widths_mut(&mut self) -> &mut PaneWidths {
        &mut self.panes[layout_index(self.layout)]
    }

    /// The summary of the stage shown, if it ran.
    pub fn stage_summary(&self) -> Option<&StageSummary> {
        self.summary.as_ref()?.stage(self.stage?)
    }

    pub fn total_steps(&self) -> u32 {
        self.stage_summary().map_or(0, |s| s.steps)
    }

    /// True when step `n` (1-based) changed nothing.
    fn is_noop(&self, n: u32) -> bool {
        n >= 1
            && self
                .stage_summary()
                .and_then(|s| s.noop.get(n as usize - 1).copied())
                .unwrap_or(false)
    }

    /// The step after `from`: the next one, or with "skip" on the next one that changes
    /// something (the last step when none does).
    pub fn next_step(&self, from: u32) -> u32 {
        let total = self.total_steps();
        let mut n = (from + 1).min(total);
        if self.skip_noop {
            while n < total && self.is_noop(n) {
                n += 1;
            }
        }
        n
    }

    /// The step before `from`, skipping no-op steps when asked (down to step 0).
    pub fn prev_step(&self, from: u32) -> u32 {
        let mut n = from.saturating_sub(1).min(self.total_steps());
        if self.skip_noop {
            while n > 0 && self.is_noop(n) {
                n -= 1;
            }
        }
        n
    }

    /// The format used to read the source: forced, or detected.
    pub fn effective_format(&self) -> InputFormat {
        self.format
            .or_else(|| compiler_core::pipeline::detect_format(&self.source))
            .unwrap_or(InputFormat::Mir)
    }

    /// What to send the engine for the queued run, if one is queued.
    pub fn run_wanted(&self) -> Option<(u64, u32, RunRequest)> {
        match self.run {
            RunState::Queued { id, delay_ms } => Some((
                id,
                delay_ms,
                RunRequest {
                    source: self.source.to_string(),
                    format: self.format.map(|f| f.name().into()),
                    knobs: self.knobs.to_query(),
                    verify: self.verify,
                    fault: None,
                },
            )),
            _ => None,
        }
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
