//! The side-by-side slots' concern: three pictures, each at its own stage and step; the
//! slot showing the main bar's stage is linked to it.

use super::{Action, AppState};
use crate::model::layout::Layout;
use crate::model::slots;
use compiler_core::Stage;

impl AppState {
    /// The slots' actions; any other action is handed back.
    pub(super) fn reduce_slots(&mut self, action: Action) -> Option<Action> {
        match action {
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
            other => return Some(other),
        }
        None
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

    pub(super) fn set_slot(&mut self, slot: usize, stage: Stage, step: u32) {
        let mut all = self.picture_slots();
        if let Some(entry) = all.get_mut(slot) {
            *entry = (stage, step.min(self.stage_steps(stage)));
            self.pictures = all;
        }
    }

    /// A slot's own controls moved it: it becomes the slot the main step bar drives
    /// (the main stage and step follow it), so both bars always agree.
    pub(super) fn step_slot(&mut self, slot: usize, stage: Stage, step: u32) {
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
}
