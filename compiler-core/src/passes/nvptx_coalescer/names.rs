//! Renaming the smaller side of a merge (untraced runs only).
//!
//! cicc keeps the copy's destination and renames its source. On a chain of copies that
//! carry one value through a function (a sum handed from loop to loop), the source is
//! the register that has grown with every earlier merge, so renaming it costs the whole
//! chain each time: quadratic in the function's size.
//!
//! With tracing off nobody sees the IR between two merges, so a merge may instead
//! rewrite the side with fewer operands and remember, in `names`, which number the
//! survivor has to carry at the end. [`Nvptx::apply_names`] rewrites every operand once
//! when the pass is over. Each instruction is then renamed O(log n) times in all.
//!
//! Invariant: between merges, the pass's state is the state of a run that always
//! renames the source, with register numbers permuted by `names`. Nothing the pass
//! decides depends on a number except through equality, and the interval tree, whose
//! shape (and rotation count) depends on the order of its keys, is keyed by the hash
//! map's interval numbers (`hash_map.rs`), which follow the ranges and not the names:
//! both runs make the same decisions, end in the same text and count the same
//! statistics. What a merge erases
//! is also chosen as cicc's direction would: every instruction of `gone` that ends up
//! copying a register onto itself, including such copies from before the pass, and
//! none of `keep`'s alone ([`Nvptx::doomed_after_swap`]). A traced run never swaps, so
//! every recorded step shows the IR as cicc would have it.

use super::merge::copies_onto_itself;
use super::{Nvptx, Unit};
use crate::entity::EntityRef;
use crate::mir::instr::InstList;
use crate::mir::{Inst, Reg, VReg};
use crate::trace::Recorder;
use alloc::vec::Vec;

/// Merges rename the smaller side only while the function has at most this many
/// instructions copying a register onto itself (each such merge looks at all of them).
const SELF_COPIES_MAX: usize = 32;

impl<R: Recorder> Nvptx<'_, '_, R> {
    /// The number register `v` carries once the pass is over.
    pub(crate) fn name_of(&self, v: VReg) -> u32 {
        self.names
            .get(v.index())
            .copied()
            .unwrap_or(v.index() as u32)
    }

    /// Whether merging `gone` into `keep` should rewrite `keep`'s operands instead:
    /// only with tracing off, only once the tree holds every extent (the block-level
    /// pass reads its candidates' register numbers from before any merge), only for two
    /// whole scalar registers, and only when `keep` has fewer operands.
    pub(crate) fn rename_keep_instead(&self, keep: Unit, gone: Unit) -> bool {
        if R::ENABLED || !self.tree_built || keep.1.is_some() || gone.1.is_some() {
            return false;
        }
        let scalar = |v: VReg| {
            self.lanes[v.index()].is_empty()
                && self.cx.ed.f.vreg_class(v).is_none_or(|c| c.lanes() <= 1)
        };
        let size = |v: VReg| self.cx.du.defs[v].len() + self.cx.du.uses[v].len();
        self.self_copies.len() <= SELF_COPIES_MAX
            && scalar(keep.0)
            && scalar(gone.0)
            && size(keep.0) < size(gone.0)
    }

    /// What cicc's merge would erase when this merge renames `keep` into `gone`
    /// instead: every instruction of `gone` that now copies a register onto itself.
    /// Those that also named `keep` are among `touched` (`keep`'s instructions, flagged
    /// in `named_gone`); those naming only `gone` are copies onto itself from before the
    /// merge, all in `self_copies`. (An instruction of `keep` alone that copies onto
    /// itself did so before; cicc leaves it, and so does this.)
    pub(crate) fn doomed_after_swap(
        &self,
        touched: &[Inst],
        named_gone: &[bool],
        gone: VReg,
    ) -> InstList {
        let f = &*self.cx.ed.f;
        let mut out: InstList = touched
            .iter()
            .zip(named_gone)
            .filter(|&(&i, &named)| named && copies_onto_itself(f, i))
            .map(|(&i, _)| i)
            .collect();
        out.extend(self.self_copies.iter().copied().filter(|&i| {
            touched.binary_search(&i).is_err()
                && f.insts[i]
                    .operands
                    .iter()
                    .any(|o| o.vreg_of() == Some(gone))
                && copies_onto_itself(f, i)
        }));
        crate::sort::sort_by_key(&mut out, |i| i.as_u32().into());
        out
    }

    /// `survivor` now holds what `named` held, under `named`'s final number.
    pub(crate) fn carry_name(&mut self, survivor: VReg, named: VReg) {
        if self.names.is_empty() {
            self.names = (0..self.cx.ed.f.vreg_end).collect();
        }
        self.names[survivor.index()] = self.name_of(named);
        self.shortcuts.renamed_smaller_side += 1;
    }

    /// Gives every register its final number (a permutation of the registers still
    /// in use; a no-op when no merge renamed its smaller side).
    pub(crate) fn apply_names(&mut self) {
        if self.names.iter().enumerate().all(|(i, &n)| i as u32 == n) {
            return;
        }
        let names = core::mem::take(&mut self.names);
        let rename = |v: VReg| VReg::new(names[v.index()] as usize);
        let f = &mut *self.cx.ed.f;
        let insts: Vec<_> = f.all_insts().map(|(_, i)| i).collect();
        for i in insts {
            for o in f.insts[i].operands.iter_mut() {
                if let Some(v) = o.vreg_of() {
                    if names[v.index()] != v.index() as u32 {
                        o.set_reg(Reg::Virt(rename(v)));
                    }
                }
            }
        }
        // (`liveins` are left alone: merges never rewrite them, so they already name
        // registers by their final numbers.)
        // Merges only join registers of one class, so each final number already has
        // the class of the register that takes it.
        debug_assert!((0..names.len()).all(|p| {
            let (p, n) = (VReg::new(p), VReg::new(names[p] as usize));
            p == n
                || self.cx.du.defs[p].is_empty() && self.cx.du.uses[p].is_empty()
                || self.cx.ed.f.vreg_class(p) == self.cx.ed.f.vreg_class(n)
        }));
    }
}
