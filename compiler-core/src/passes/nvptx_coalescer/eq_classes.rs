//! What the NVPTX coalescer does with two-address's copy-equivalence classes
//! (`passes/copy_classes.rs`, handed over by the pipeline and renamed by the generic
//! coalescer's joins), and where the block-level pass meets two-address's tie marks.
//!
//! The spec says the maps are "consumed by the downstream RegisterCoalescer to improve
//! copy elimination" and gives the candidate record a priority field (+240, default 1)
//! without saying what raises it. CopyScope fills that gap (its own choice, labelled so
//! in the narration and in docs/two-address-agreement.md): a candidate whose two
//! registers two-address put in one class (a copy it made for a tie, a REG_SEQUENCE or
//! INSERT_SUBREG lane, or a single-use COPY chain collectRegCopies followed) gets
//! priority 2 and leaves the heap before every candidate of priority 1 of the same
//! hotness and hint, whatever its register number. Where two candidates compete for one
//! register, the copy two-address made goes first.

use super::classify::Candidate;
use super::Nvptx;
use crate::entity::EntityRef;
use crate::mir::VReg;
use crate::trace::{Recorder, Step};
use alloc::format;

/// The heap-pop narration's reason for a candidate with the class priority.
pub(crate) const WHY: &str = "its two registers are in one copy-equivalence class two-address handed over, so it has priority 2 and goes before unclassed candidates (CopyScope's reading of the record's priority field; the spec names no rule)";

impl<R: Recorder> Nvptx<'_, '_, R> {
    /// Whether `c`'s registers share a class (false without classes, for a lane or an
    /// immediate side, and with the mutation switch on).
    pub(crate) fn in_eq_class(&self, c: &Candidate) -> bool {
        let Some(classes) = self.classes.as_ref() else {
            return false;
        };
        if self.opts.ignore_eq_classes || c.dst.reg == u32::MAX || c.src.reg == u32::MAX {
            return false;
        }
        let (d, s) = (VReg::new(c.dst.reg as usize), VReg::new(c.src.reg as usize));
        classes.same_class(d, s)
    }

    /// One step saying what was handed over and whether it is read.
    pub(crate) fn eq_classes_step(&mut self) {
        if !R::ENABLED {
            return;
        }
        let text = match (&self.classes, self.opts.ignore_eq_classes) {
            (None, _) => "No copy-equivalence classes were handed over (two-address did not run before this pass in this run): every candidate has the record's default priority 1.".into(),
            (Some(_), true) => "Two-address's copy-equivalence classes were handed over but are switched off (mutation switch): every candidate has priority 1.".into(),
            (Some(c), false) if c.class_count() == 0 => "Two-address handed over its copy-equivalence classes, but it recorded none in this function (no COPY for a tie, no REG_SEQUENCE or INSERT_SUBREG, no COPY chain): every candidate has the record's default priority 1.".into(),
            (Some(c), false) => format!(
                "Two-address handed over {} copy-equivalence class(es), renamed by the generic coalescer's joins: a candidate whose two registers share a class gets priority 2 and leaves the heap first (CopyScope's rule; the spec leaves the priority field's use open).",
                c.class_count()
            ),
        };
        self.step(|| Step::new("eq_classes", text));
    }

    /// The block-level pass is about to try a lane copy carrying two-address's tie mark
    /// (`tied2`): one step saying the mark was read and what it does here. The pass
    /// tries a block's candidates in block order, so the mark reorders nothing until the
    /// worklist heap, where it goes before every unhinted candidate.
    pub(crate) fn tie_mark_step(&mut self, c: &Candidate) {
        if !R::ENABLED || !c.tied || self.opts.ignore_hints {
            return;
        }
        let (dn, sn) = (self.unit_name(c.dst), self.unit_name(c.src));
        let inst = crate::mir::Inst::new(c.inst as usize);
        self.step(|| {
            Step::new("tie_mark", format!("{dn} = COPY {sn} carries two-address's tie mark (tied2: a later lane of an earlyTied EXTRACT_SUBREG), the direct hint that the scalar belongs in the lane. The block-level pass takes its block's copies in order, so the mark changes no order here; in the worklist heap it would go first."))
                .focus(crate::trace::Focus::inst(inst))
        });
    }
}
