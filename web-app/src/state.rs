//! The playground's state and the actions that change it.
//!
//! [`AppState::apply`] is the whole transition function: pure, deterministic and free of
//! view code. The [`Reducible`] impl only adapts it to yew's `use_reducer`.

use compiler_core::Stage;
use std::rc::Rc;
use yew::Reducible;

/// Everything the page shows that the user can change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AppState {
    /// The stage highlighted in the timeline; `None` until the user picks one.
    pub selected: Option<Stage>,
}

/// A user intent, reported by components and applied by [`AppState::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Highlight one stage of the pipeline.
    SelectStage(Stage),
}

impl AppState {
    /// The state after `action`.
    pub fn apply(&self, action: Action) -> AppState {
        match action {
            Action::SelectStage(stage) => AppState {
                selected: Some(stage),
            },
        }
    }

    pub fn is_selected(&self, stage: Stage) -> bool {
        self.selected == Some(stage)
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
mod tests {
    use super::*;

    #[test]
    fn nothing_is_selected_at_first() {
        let state = AppState::default();
        assert!(Stage::all().all(|s| !state.is_selected(s)));
    }

    #[test]
    fn selecting_a_stage_highlights_only_that_stage() {
        let state = AppState::default().apply(Action::SelectStage(Stage::TwoAddress));
        let highlighted: Vec<Stage> = Stage::all().filter(|&s| state.is_selected(s)).collect();
        assert_eq!(highlighted, [Stage::TwoAddress]);

        let state = state.apply(Action::SelectStage(Stage::PtxOut));
        assert_eq!(state.selected, Some(Stage::PtxOut));
    }

    #[test]
    fn reselecting_keeps_the_same_state_object() {
        let state = Rc::new(AppState::default()).reduce(Action::SelectStage(Stage::PtxEmit));
        let again = state.clone().reduce(Action::SelectStage(Stage::PtxEmit));
        assert!(Rc::ptr_eq(&state, &again));
    }
}
