//! A guided tour's concern: starting one, its plan arriving from the engine, moving
//! between its stops (by hand or on autoplay), ending it.

use super::{Action, AppState, RunState};
use crate::model::tour::TourState;

impl AppState {
    /// The tour's actions; any other action is handed back.
    pub(super) fn reduce_tour(&mut self, action: Action) -> Option<Action> {
        match action {
            Action::StartTour(name) => {
                if web_engine::protocol::tour_title(name).is_some() {
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
            other => return Some(other),
        }
        None
    }

    /// Ends the tour when the source is no longer its example.
    pub(super) fn end_tour_unless(&mut self, example: Option<&str>) {
        if self
            .tour
            .as_ref()
            .is_some_and(|t| Some(t.example) != example)
        {
            self.tour = None;
        }
    }

    /// Moves the tour to the stop `pick` chooses (clamped) and shows it.
    pub(super) fn go_to_stop(&mut self, pick: impl Fn(&TourState) -> usize) {
        if let Some(t) = self.tour.as_mut().filter(|t| !t.is_empty()) {
            t.stop = pick(t).min(t.len() - 1);
            self.apply_stop();
        }
    }

    /// Shows the tour's current stop: its stage and step.
    pub(super) fn apply_stop(&mut self) {
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
}
