//! Seeking inside a pass trace: checkpoints every [`CHECKPOINT_EVERY`] steps, replay in
//! between, so any step is reached by at most that many steps of edits.

use super::edit::{apply_edit, ReplayError};
use super::Step;
use crate::mir::Function;
use alloc::vec::Vec;

/// Steps between two stored copies of the function.
pub const CHECKPOINT_EVERY: usize = 64;

/// Replays a pass's steps over its input function.
pub struct Player<'a> {
    steps: &'a [Step],
    /// `checkpoints[k]` is the function after `k * CHECKPOINT_EVERY` steps.
    checkpoints: Vec<Function>,
}

impl<'a> Player<'a> {
    /// Builds the checkpoints by replaying every step once.
    pub fn new(input: &Function, steps: &'a [Step]) -> Result<Self, ReplayError> {
        let mut checkpoints = Vec::with_capacity(steps.len() / CHECKPOINT_EVERY + 1);
        let mut f = input.clone();
        checkpoints.push(f.clone());
        for (k, s) in steps.iter().enumerate() {
            for e in &s.edits {
                apply_edit(&mut f, e)?;
            }
            if (k + 1) % CHECKPOINT_EVERY == 0 {
                checkpoints.push(f.clone());
            }
        }
        Ok(Player { steps, checkpoints })
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The function after the first `n` steps (0: the input; `len()`: the output).
    pub fn seek(&self, n: usize) -> Result<Function, ReplayError> {
        let n = n.min(self.steps.len());
        let k = n / CHECKPOINT_EVERY;
        let mut f = self.checkpoints[k].clone();
        for s in &self.steps[k * CHECKPOINT_EVERY..n] {
            for e in &s.edits {
                apply_edit(&mut f, e)?;
            }
        }
        Ok(f)
    }
}
