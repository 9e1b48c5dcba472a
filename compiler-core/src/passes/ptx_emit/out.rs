//! The recorder ptx-emit writes its steps through, so that each step carries the PTX
//! it added ([`crate::ptx::edit`]).
//!
//! ```text
//!  rec.edit(|| PtxEdit)   ─▶ pending
//!  rec.step(|| Step)      ─▶ the step takes the pending edits; the step before it
//!                            goes on to the pass's recorder
//!  rec.finish()           ─▶ edits made after the last step join it; it goes on too
//! ```
//!
//! A statement printed with no step of its own (a block's `// %bb.N:` comment, the
//! wgmma staging array) thus shows at the step after it, or at the run's last step.
//! Edits only ever join a step's list at its end, so an instruction's step can name its
//! statements by position ([`crate::trace::Emitted`]: the last ones noted before it).

use crate::ptx::edit::PtxEdit;
use crate::trace::{Recorder, Step};
use alloc::string::String;
use alloc::vec::Vec;

pub(super) struct Out<'r, R: Recorder> {
    rec: &'r mut R,
    pending: Vec<PtxEdit>,
    held: Option<Step>,
}

impl<'r, R: Recorder> Out<'r, R> {
    pub(super) fn new(rec: &'r mut R) -> Self {
        Out {
            rec,
            pending: Vec::new(),
            held: None,
        }
    }

    /// Notes an addition to the output; free when steps are not recorded.
    pub(super) fn edit(&mut self, make: impl FnOnce() -> PtxEdit) {
        if R::ENABLED {
            self.note(make());
        }
    }

    /// [`Out::edit`]'s work, out of line: one copy, not one per call site.
    #[inline(never)]
    fn note(&mut self, e: PtxEdit) {
        self.pending.push(e);
    }

    /// [`Recorder::step`]'s work once the step is built, out of line (one copy, not one
    /// per step the emitter records).
    #[inline(never)]
    fn hold(&mut self, mut s: Step) {
        s.ptx_edits = core::mem::take(&mut self.pending).into();
        if let Some(h) = self.held.replace(s) {
            self.rec.step(|| h);
        }
    }

    /// How many edits the next step takes (those noted since the last step).
    pub(super) fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Passes the last step on, with whatever was added after it.
    pub(super) fn finish(mut self) {
        if let Some(mut s) = self.held.take() {
            if !self.pending.is_empty() {
                let mut edits = core::mem::take(&mut s.ptx_edits).into_vec();
                edits.append(&mut self.pending);
                s.ptx_edits = edits.into();
            }
            self.rec.step(|| s);
        }
    }
}

impl<R: Recorder> Recorder for Out<'_, R> {
    const ENABLED: bool = R::ENABLED;
    fn step(&mut self, make: impl FnOnce() -> Step) {
        if !R::ENABLED {
            return;
        }
        self.hold(make());
    }
    fn remark(&mut self, text: String) {
        self.rec.remark(text);
    }
}
