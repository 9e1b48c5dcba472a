//! Playback's concern: which stage and step are shown and how they move (seek, step,
//! play, skip no-op steps), the views and diffs arriving for them, the layout and its
//! column widths, the tabs and the notices.

use super::{Action, AppState, Notice};
use crate::model::layout::Layout;
use crate::model::panes::{layout_index, PaneWidths, STEP};

impl AppState {
    /// Playback's actions; any other action is handed back.
    pub(super) fn reduce_playback(&mut self, action: Action) -> Option<Action> {
        match action {
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
            Action::Last => {
                self.reduce_playback(Action::Seek(u32::MAX));
            }
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
            other => return Some(other),
        }
        None
    }

    pub(super) fn reset_diff_range(&mut self) {
        self.diff_from = 0;
        self.diff_to = self.total_steps();
        self.diff = None;
    }

    pub(super) fn play(&mut self) {
        if self.total_steps() == 0 {
            return;
        }
        if self.step >= self.total_steps() {
            self.step = 0;
        }
        self.playing = true;
    }

    pub(super) fn pane_widths_mut(&mut self) -> &mut PaneWidths {
        &mut self.panes[layout_index(self.layout)]
    }

    /// True when step `n` (1-based) changed nothing.
    pub(super) fn is_noop(&self, n: u32) -> bool {
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
}
