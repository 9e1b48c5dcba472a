//! Seeking inside a pass trace: checkpoints every [`CHECKPOINT_EVERY`] steps, replay in
//! between, so any step is reached by at most that many steps of edits.
//!
//! [`Checkpoints`] is the same machinery without a borrow of the steps, for callers that
//! keep the steps and the checkpoints side by side (the web engine keeps one per function
//! of a run) and that pick their own spacing to bound memory on large functions.

use super::edit::{apply_edit, ReplayError};
use super::Step;
use crate::mir::Function;
use alloc::vec::Vec;

/// Steps between two stored copies of the function.
pub const CHECKPOINT_EVERY: usize = 64;

/// Stored copies of a function along a list of steps: `saved[k]` is the function after
/// `k * every` steps. The steps themselves are passed to each call.
#[derive(Clone, Debug)]
pub struct Checkpoints {
    every: usize,
    len: usize,
    saved: Vec<Function>,
}

impl Checkpoints {
    /// Replays every step once from `input`, keeping a copy every `every` steps (at least
    /// 1).
    pub fn build(input: &Function, steps: &[Step], every: usize) -> Result<Self, ReplayError> {
        let every = every.max(1);
        let mut saved = Vec::with_capacity(steps.len() / every + 1);
        let mut f = input.clone();
        saved.push(f.clone());
        for (k, s) in steps.iter().enumerate() {
            for e in &s.edits {
                apply_edit(&mut f, e)?;
            }
            if (k + 1) % every == 0 {
                saved.push(f.clone());
            }
        }
        Ok(Checkpoints {
            every,
            len: steps.len(),
            saved,
        })
    }

    /// The spacing between stored copies.
    pub fn every(&self) -> usize {
        self.every
    }

    /// How many steps the checkpoints were built over.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The function after the first `n` steps of `steps` (0: the input; `len()`: the
    /// output). `steps` must be the list the checkpoints were built from.
    pub fn seek(&self, steps: &[Step], n: usize) -> Result<Function, ReplayError> {
        if steps.len() != self.len {
            return Err(ReplayError(alloc::format!(
                "checkpoints were built over {} steps, seek got {}",
                self.len,
                steps.len()
            )));
        }
        let n = n.min(self.len);
        let k = (n / self.every).min(self.saved.len() - 1);
        let mut f = self.saved[k].clone();
        self.replay(steps, k, n, &mut f)?;
        Ok(f)
    }

    /// [`seek`](Self::seek) into `out`, reusing its memory: the way to step back and forth
    /// through a large function.
    pub fn seek_into(
        &self,
        steps: &[Step],
        n: usize,
        out: &mut Function,
    ) -> Result<(), ReplayError> {
        if steps.len() != self.len {
            return Err(ReplayError(alloc::format!(
                "checkpoints were built over {} steps, seek got {}",
                self.len,
                steps.len()
            )));
        }
        let n = n.min(self.len);
        let k = (n / self.every).min(self.saved.len() - 1);
        out.assign_from(&self.saved[k]);
        self.replay(steps, k, n, out)
    }

    /// Applies steps `k * every .. n` to `f`, the `k`-th checkpoint.
    fn replay(
        &self,
        steps: &[Step],
        k: usize,
        n: usize,
        f: &mut Function,
    ) -> Result<(), ReplayError> {
        for s in &steps[k * self.every..n] {
            for e in &s.edits {
                apply_edit(f, e)?;
            }
        }
        Ok(())
    }
}

/// Replays a pass's steps over its input function.
pub struct Player<'a> {
    steps: &'a [Step],
    checkpoints: Checkpoints,
}

impl<'a> Player<'a> {
    /// Builds the checkpoints by replaying every step once.
    pub fn new(input: &Function, steps: &'a [Step]) -> Result<Self, ReplayError> {
        Ok(Player {
            steps,
            checkpoints: Checkpoints::build(input, steps, CHECKPOINT_EVERY)?,
        })
    }

    pub fn len(&self) -> usize {
        self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The function after the first `n` steps (0: the input; `len()`: the output).
    pub fn seek(&self, n: usize) -> Result<Function, ReplayError> {
        self.checkpoints.seek(self.steps, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{parse_module, print_function};
    use crate::trace::StepLog;

    /// Two-address on a four-lane EXTRACT_SUBREG: every spacing seeks to the same text.
    #[test]
    fn any_spacing_seeks_to_the_same_function() {
        let text = "---\nname: k\ntracksRegLiveness: true\nnoPhis: true\nbody: |\n  bb.0:\n    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0\n    %4:float32regsx4 = TEX_2D_V4F32_F32 %0, 0, 0\n    %5:float32regs, %6:float32regs, %7:float32regs, %8:float32regs = EXTRACT_SUBREG %4.sub0, %4.sub1, %4.sub2, killed %4.sub3\n    %9:float32regs = FADDf32rr killed %5, killed %6\n    %10:float32regs = FADDf32rr killed %7, killed %8\n    ST_i32 killed %9, 0, 0, 1, 32, %0, 0\n    ST_i32 killed %10, 0, 0, 1, 32, killed %0, 4\n    Return\n...\n";
        let input = parse_module(text).unwrap().functions.remove(0);
        let mut f = input.clone();
        let mut log = StepLog::default();
        crate::passes::two_address::run(
            &mut f,
            &crate::passes::two_address::TwoAddressOptions::default(),
            &mut log,
        );
        let steps = log.steps;
        assert!(steps.len() > 4);
        let player = Player::new(&input, &steps).unwrap();
        let mut scratch = input.clone();
        for every in [1, 2, 3, 100] {
            let cp = Checkpoints::build(&input, &steps, every).unwrap();
            // Seeking into a reused function, back and forth, gives what a fresh copy gives.
            for n in (0..=steps.len()).chain((0..=steps.len()).rev()) {
                cp.seek_into(&steps, n, &mut scratch).unwrap();
                let fresh = cp.seek(&steps, n).unwrap();
                assert_eq!(print_function(&scratch), print_function(&fresh), "into {n}");
                assert!(
                    scratch.insts.values().eq(fresh.insts.values()),
                    "storage {n}"
                );
                assert_eq!(scratch.vreg_end, fresh.vreg_end);
            }
            for n in 0..=steps.len() + 1 {
                assert_eq!(
                    print_function(&cp.seek(&steps, n).unwrap()),
                    print_function(&player.seek(n).unwrap()),
                    "every {every}, step {n}"
                );
            }
        }
        let last = Checkpoints::build(&input, &steps, 2).unwrap();
        assert_eq!(
            print_function(&last.seek(&steps, steps.len()).unwrap()),
            print_function(&f)
        );
        assert!(
            last.seek(&steps[1..], 1).is_err(),
            "other steps are refused"
        );
    }
}
