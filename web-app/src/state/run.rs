//! The run's concern: the input (source, format, example, knobs, verify, links) and
//! the engine's answers about runs. Each change of input queues a run (`queue_run`);
//! `run_wanted` hands it to the engine hook; a run's answers are dropped unless they
//! belong to the run in flight (`run_is_current`).

use super::{
    Action, AppState, KnobDraft, Notice, RunState, Target, DEFAULT_EXAMPLE, TYPING_DELAY_MS,
};
use crate::model::layout::Layout;
use crate::model::slots;
use compiler_core::examples;
use compiler_core::knobs::{parse_value, Knob, Knobs};
use compiler_core::share::{Link, LinkError};
use compiler_core::Stage;
use std::rc::Rc;
use web_engine::protocol::{RunRequest, RunSummary};

impl AppState {
    /// The run's actions; any other action is handed back.
    pub(super) fn reduce_run(&mut self, action: Action) -> Option<Action> {
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
            Action::EngineCrashed(message) => {
                self.engine_error = Some(message);
                self.playing = false;
                if let Some(id) = self.run.id().filter(|_| self.run.is_busy()) {
                    self.run = RunState::Failed { id };
                    self.run_message = Some("The engine stopped before the run finished.".into());
                }
            }
            other => return Some(other),
        }
        None
    }

    pub(super) fn queue_run(&mut self, delay_ms: u32) {
        let id = self.next_run_id;
        self.next_run_id += 1;
        self.run = RunState::Queued { id, delay_ms };
        self.playing = false;
    }

    pub(super) fn run_is_current(&self, id: u64) -> bool {
        matches!(self.run, RunState::Running { id: r, .. } | RunState::Queued { id: r, .. } if r == id)
    }

    pub(super) fn load_example(&mut self, name: &str, target: Option<Target>) {
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

    pub(super) fn open_link(&mut self, link: Result<Link, LinkError>) {
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

    pub(super) fn set_knob(&mut self, knob: Knob, text: String) {
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

    pub(super) fn run_done(&mut self, summary: Rc<RunSummary>) {
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
    pub(super) fn report_target(&mut self, t: Target) {
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
    pub(super) fn default_stage(&self, summary: &RunSummary) -> Option<Stage> {
        let example = self
            .example
            .and_then(examples::find)
            .map(|e| e.stage)
            .filter(|&s| summary.stage(s).is_some());
        example.or_else(|| summary.stages.first().map(|s| s.stage))
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
}
