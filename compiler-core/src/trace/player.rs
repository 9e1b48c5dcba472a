//! Seeking inside a pass trace: a few stored copies of the function, undo records for
//! every step, and replay in either direction from whichever known state is nearest.
//!
//! ```text
//!  build:  replay every step once from the input; per edit keep what undoing it needs
//!          (an erased or moved instruction's old place, a register's old class, ...;
//!          a Replace already carries the old operands); a full copy every `every` steps
//!  seek n: cheapest of  ─ the caller's function at step `at`, moved to n (redo or undo)
//!                       ─ the copy at or before n, redone forward
//!                       ─ the copy after n, undone backward
//! ```
//!
//! Memory is the copies (the caller picks `every`, and may cap the instructions they hold
//! together: [`Copies`] then doubles the spacing as the function grows) plus the undo records,
//! which grow with the edits, not with the function. A step whose edits cannot be undone
//! (a split edge adds a block) is a wall: backward moves never cross it. Undoing an
//! insert leaves the instruction's storage slot behind, unplaced (storage only grows);
//! redoing the insert reuses that slot, so indices stay the ones the trace names and the
//! printed function is the same as a fresh replay's.
//!
//! [`Checkpoints`] does this without borrowing the steps, for callers that keep the
//! steps and the checkpoints side by side (the web engine keeps one per function of a
//! run).

use super::edit::{apply_edit, Edit};
use super::Steps;
use crate::entity::EntityRef;
use crate::error::ReplayError;
use crate::mir::function::VRegInfo;
use crate::mir::{Block, Function, Inst, Reg, VReg};
use alloc::format;
use alloc::vec::Vec;

/// Steps between two stored copies of the function for [`Player`].
pub const CHECKPOINT_EVERY: usize = 64;

/// What undoing one edit needs beyond the edit itself.
#[derive(Clone, Debug)]
enum Undo {
    /// Insert, Replace (its old operands or data), Intern (an extra name is harmless), SetProps... that
    /// carry what they need, or need nothing.
    None,
    /// Erase or Move: where the instruction was (its block, the instruction after it).
    Place(Block, Option<Inst>),
    SetClass(VRegInfo, u32),
    SetProps(bool, bool),
    SetLiveins(Vec<(Reg, Option<VReg>)>, Vec<Reg>),
    /// DropKills: the killed uses it clears (instruction, operand index), which the
    /// rule itself does not keep.
    Kills(Vec<(Inst, u32)>),
}

/// Copies of a state that steps change, one every `every` steps (`saved[k]` is the state
/// after `k * every` steps), held to a budget measured in the copies' own sizes: when
/// the copies after the first hold more than `budget` units, every other one goes and
/// the spacing doubles. So a state that grows along the steps (a lowering that adds the
/// function instruction by instruction) keeps as few copies as one that starts large.
#[derive(Clone, Debug)]
pub struct Copies<T> {
    every: usize,
    budget: usize,
    saved: Vec<T>,
    sizes: Vec<usize>,
}

impl<T: Clone> Copies<T> {
    /// The first copy (the state before any step), of `size` units.
    pub fn new(first: &T, size: usize, every: usize, budget: usize) -> Self {
        Copies {
            every: every.max(1),
            budget,
            saved: alloc::vec![first.clone()],
            sizes: alloc::vec![size],
        }
    }

    /// Called after the first `done` steps were applied to `state` (of `size` units):
    /// keeps a copy when one is due, then thins the copies to the budget.
    pub fn after_step(&mut self, done: usize, state: &T, size: usize) {
        if !done.is_multiple_of(self.every) {
            return;
        }
        self.saved.push(state.clone());
        self.sizes.push(size);
        while self.saved.len() > 1 && self.sizes[1..].iter().sum::<usize>() > self.budget {
            keep_even(&mut self.saved);
            keep_even(&mut self.sizes);
            self.every = self.every.saturating_mul(2);
        }
    }

    /// Steps between two copies.
    pub fn every(&self) -> usize {
        self.every
    }

    /// How many copies are kept (the first included).
    pub fn len(&self) -> usize {
        self.saved.len()
    }

    pub fn is_empty(&self) -> bool {
        self.saved.is_empty()
    }

    /// The units all the copies hold together (the first's included).
    pub fn units(&self) -> usize {
        self.sizes.iter().sum()
    }

    /// Copy `k`: the state after `k * every()` steps.
    pub fn get(&self, k: usize) -> &T {
        &self.saved[k]
    }

    /// The units copy `k` holds.
    pub fn size(&self, k: usize) -> usize {
        self.sizes[k]
    }

    /// The last copy at or before step `n`, and its index.
    pub fn at_or_before(&self, n: usize) -> (usize, &T) {
        let k = (n / self.every).min(self.saved.len() - 1);
        (k, &self.saved[k])
    }
}

/// Keeps the items at even places (the first, the third, ...).
fn keep_even<U>(v: &mut Vec<U>) {
    let mut k = 0;
    v.retain(|_| {
        k += 1;
        k % 2 == 1
    });
}

/// About what one instruction costs in a stored copy of a function on a 64-bit build
/// (its data, operands, layout links and a share of the register and block tables):
/// 2^16 of them are about 23 MB. A wasm build holds less (4-byte pointers).
pub const COPIED_INST_BYTES: usize = 350;

/// Stored copies of a function along a list of steps, with undo records. The steps
/// themselves are passed to each call.
#[derive(Clone, Debug)]
pub struct Checkpoints {
    len: usize,
    saved: Copies<Function>,
    /// One record per edit, steps in order; step `s`'s start at `starts[s]`.
    undo: Vec<Undo>,
    starts: Vec<u32>,
    /// Edits before step `s` (prefix sums: the cost of a replay between two steps).
    edits_before: Vec<u32>,
    /// Walls (steps that cannot be undone) before step `s`.
    walls_before: Vec<u32>,
}

/// What moving a function costs, in units of about a sixteenth of a redone edit (the
/// weights measured on the 12,005-step PHI elimination of a 12,008-instruction function,
/// where one redone edit took about 90 ns): redoing an edit, undoing one (an undo record
/// moves a link or puts back a value, where a redo builds the instruction again),
/// stepping past a step (a step without edits costs almost nothing), and restoring a
/// stored copy, per instruction slot of the copy (`Function::assign_from` copies every
/// instruction and its operands: 18,007 slots took about 0.9 ms, the cost of redoing
/// some 10,000 edits, where `slots / 8` edit units had priced it like 2,250).
const REDO_EDIT: u64 = 16;
const UNDO_EDIT: u64 = 4;
const PER_STEP: u64 = 1;
const RESTORE_SLOT: u64 = 7;

impl Checkpoints {
    /// Replays every step once from `input`, keeping a copy every `every` steps (at least
    /// 1) and the undo record of every edit.
    pub fn build<'s>(
        input: &Function,
        steps: impl Into<Steps<'s>>,
        every: usize,
    ) -> Result<Self, ReplayError> {
        let steps: Steps<'s> = steps.into();
        Self::build_within(input, steps, every, usize::MAX)
    }

    /// [`build`](Self::build), with the copies after the input's held to `budget`
    /// instructions together ([`Copies`]: the spacing doubles as often as needed).
    pub fn build_within<'s>(
        input: &Function,
        steps: impl Into<Steps<'s>>,
        every: usize,
        budget: usize,
    ) -> Result<Self, ReplayError> {
        let steps: Steps<'s> = steps.into();
        let mut saved = Copies::new(input, input.insts.len(), every, budget);
        let mut f = input.clone();
        let edits: usize = (0..steps.len())
            .map(|k| steps.with_lists(k, |s| s.edits.len()))
            .sum();
        let mut undo = Vec::with_capacity(edits);
        let mut starts = Vec::with_capacity(steps.len() + 1);
        let mut edits_before = Vec::with_capacity(steps.len() + 1);
        let mut walls_before = Vec::with_capacity(steps.len() + 1);
        let (mut n_edits, mut n_walls) = (0u32, 0u32);
        for k in 0..steps.len() {
            starts.push(undo.len() as u32);
            edits_before.push(n_edits);
            walls_before.push(n_walls);
            let mut wall = false;
            steps.with_lists(k, |s| {
                for e in &s.edits {
                    let (u, undoable) = undo_record(&f, e);
                    wall |= !undoable;
                    undo.push(u);
                    apply_edit(&mut f, e)?;
                }
                // A rule counts as the instructions it rewrites.
                n_edits += s.edits.iter().map(Edit::count).sum::<usize>() as u32;
                Ok::<(), ReplayError>(())
            })?;
            n_walls += wall as u32;
            saved.after_step(k + 1, &f, f.insts.len());
        }
        starts.push(undo.len() as u32);
        edits_before.push(n_edits);
        walls_before.push(n_walls);
        Ok(Checkpoints {
            len: steps.len(),
            saved,
            undo,
            starts,
            edits_before,
            walls_before,
        })
    }

    /// The spacing between stored copies.
    pub fn every(&self) -> usize {
        self.saved.every()
    }

    /// How many steps the checkpoints were built over.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Stored copies of the function (the input's included).
    pub fn copies(&self) -> usize {
        self.saved.len()
    }

    /// About the heap the checkpoints hold: the stored copies (the input's included) at
    /// [`COPIED_INST_BYTES`] per instruction, the undo records and the per-step tables.
    /// What the web engine weighs its seek tables by (an estimate: counting each copy's
    /// allocations would cost a walk over every instruction).
    pub fn approx_bytes(&self) -> usize {
        let per_step =
            self.starts.capacity() + self.edits_before.capacity() + self.walls_before.capacity();
        self.saved.units() * COPIED_INST_BYTES
            + self.undo.capacity() * core::mem::size_of::<Undo>()
            + per_step * core::mem::size_of::<u32>()
    }

    fn check(&self, steps: Steps<'_>) -> Result<(), ReplayError> {
        if steps.len() != self.len {
            return Err(ReplayError(format!(
                "checkpoints were built over {} steps, seek got {}",
                self.len,
                steps.len()
            )));
        }
        Ok(())
    }

    /// The function after the first `n` steps of `steps` (0: the input; `len()`: the
    /// output). `steps` must be the list the checkpoints were built from.
    pub fn seek<'s>(&self, steps: impl Into<Steps<'s>>, n: usize) -> Result<Function, ReplayError> {
        let steps: Steps<'s> = steps.into();
        self.check(steps)?;
        let n = n.min(self.len);
        let (k, _) = self.nearest_copy(n);
        let mut f = self.saved.get(k).clone();
        self.walk(steps, k * self.every(), n, &mut f)?;
        Ok(f)
    }

    /// [`seek`](Self::seek) into `out`, reusing its memory: the way to step back and forth
    /// through a large function when where `out` stands is not known.
    pub fn seek_into<'s>(
        &self,
        steps: impl Into<Steps<'s>>,
        n: usize,
        out: &mut Function,
    ) -> Result<(), ReplayError> {
        let steps: Steps<'s> = steps.into();
        self.check(steps)?;
        let n = n.min(self.len);
        let (k, _) = self.nearest_copy(n);
        out.assign_from(self.saved.get(k));
        self.walk(steps, k * self.every(), n, out)
    }

    /// Moves `f`, the function after `at` steps (as an earlier seek left it), to step
    /// `n`: by replaying or undoing the steps in between, or from a stored copy when
    /// that is cheaper.
    pub fn seek_from<'s>(
        &self,
        steps: impl Into<Steps<'s>>,
        at: usize,
        n: usize,
        f: &mut Function,
    ) -> Result<(), ReplayError> {
        let steps: Steps<'s> = steps.into();
        self.check(steps)?;
        let (at, n) = (at.min(self.len), n.min(self.len));
        match self.route(at, n) {
            None => self.walk(steps, at, n, f),
            Some(k) => {
                f.assign_from(self.saved.get(k));
                self.walk(steps, k * self.every(), n, f)
            }
        }
    }

    /// How [`seek_from`](Self::seek_from) moves a function from step `at` to step `n`:
    /// None to walk there (redo or undo), or the stored copy it restores first (copy
    /// `k` stands for step `k * every()`), whichever costs less by the weights above
    /// [`REDO_EDIT`].
    pub fn route(&self, at: usize, n: usize) -> Option<usize> {
        let (at, n) = (at.min(self.len), n.min(self.len));
        let (k, cost) = self.nearest_copy(n);
        match self.cost(at, n) {
            Some(direct) if direct <= cost => None,
            _ => Some(k),
        }
    }

    /// What walking from step `a` to step `b` costs (redoing or undoing the edits in
    /// between, [`REDO_EDIT`] and the weights beside it), None when undoing that way
    /// crosses a wall.
    fn cost(&self, a: usize, b: usize) -> Option<u64> {
        let (lo, hi) = (a.min(b), a.max(b));
        if b < a && self.walls_before[hi] != self.walls_before[lo] {
            return None;
        }
        let edits = (self.edits_before[hi] - self.edits_before[lo]) as u64;
        let per_edit = if b < a { UNDO_EDIT } else { REDO_EDIT };
        // A step counts too, so a long run of steps without edits is not free.
        Some(edits * per_edit + (hi - lo) as u64 * PER_STEP)
    }

    /// What restoring stored copy `k` costs.
    fn restore_cost(&self, k: usize) -> u64 {
        self.saved.size(k) as u64 * RESTORE_SLOT
    }

    /// The stored copy cheapest to reach step `n` from, and the cost (restoring it plus
    /// the walk): the copy at or before `n` (redo forward) or the one after it (undo
    /// backward).
    fn nearest_copy(&self, n: usize) -> (usize, u64) {
        let every = self.every();
        let (below, _) = self.saved.at_or_before(n);
        let mut best = (
            below,
            self.restore_cost(below) + self.cost(below * every, n).unwrap_or(0),
        );
        if below + 1 < self.saved.len() {
            if let Some(c) = self.cost((below + 1) * every, n) {
                let c = self.restore_cost(below + 1) + c;
                if c < best.1 {
                    best = (below + 1, c);
                }
            }
        }
        best
    }

    /// Redoes steps `a..b` or undoes steps `b..a` on `f`, the function after `a` steps,
    /// never from a stored copy (an error when undoing would cross a wall).
    pub fn walk<'s>(
        &self,
        steps: impl Into<Steps<'s>>,
        a: usize,
        b: usize,
        f: &mut Function,
    ) -> Result<(), ReplayError> {
        let steps: Steps<'s> = steps.into();
        self.check(steps)?;
        if a.max(b) > self.len {
            return Err(ReplayError(format!(
                "walk {a} -> {b} past step {}",
                self.len
            )));
        }
        if self.cost(a, b).is_none() {
            return Err(ReplayError(format!(
                "steps {b}..{a} hold an edit that cannot be undone"
            )));
        }
        if a <= b {
            for k in a..b {
                steps.with_lists(k, |s| s.edits.iter().try_for_each(|e| redo_edit(f, e)))?;
            }
            return Ok(());
        }
        for k in (b..a).rev() {
            let records = &self.undo[self.starts[k] as usize..self.starts[k + 1] as usize];
            steps.with_lists(k, |s| {
                for (e, u) in s.edits.iter().zip(records).rev() {
                    undo(f, e, u)?;
                }
                Ok::<(), ReplayError>(())
            })?;
        }
        Ok(())
    }
}

/// What undoing `e` will need, read from `f` before `e` is applied; false when `e`
/// cannot be undone.
fn undo_record(f: &Function, e: &Edit) -> (Undo, bool) {
    let place = |i: Inst| {
        let b = f.layout.inst_block(i)?;
        Some(Undo::Place(b, f.layout.next_inst(i)))
    };
    match e {
        Edit::Erase { inst } | Edit::Move { inst, .. } => match place(*inst) {
            Some(u) => (u, true),
            None => (Undo::None, false),
        },
        Edit::Replace { inst, change } => {
            let fits = f.insts.get(*inst).is_some_and(|d| change.fits_before(d));
            (Undo::None, fits)
        }
        Edit::Insert { .. } | Edit::Intern { .. } => (Undo::None, true),
        Edit::SetClass { vreg, .. } => {
            let info = f.vregs.get(*vreg).copied().unwrap_or_default();
            (Undo::SetClass(info, f.vreg_end), true)
        }
        Edit::SetProps { .. } => (Undo::SetProps(f.props.no_phis, f.props.is_ssa), true),
        Edit::SetLiveins { .. } => {
            let entry = f
                .layout
                .entry_block()
                .map(|b| f.blocks[b].liveins.clone())
                .unwrap_or_default();
            (Undo::SetLiveins(f.liveins.clone(), entry), true)
        }
        Edit::DropKills { insts } => {
            let mut kills = Vec::new();
            let mut fits = true;
            for i in insts.iter() {
                let before = kills.len();
                if let Some(d) = f.insts.get(i) {
                    kills.extend(super::edit::killed_uses(d).map(|k| (i, k as u32)));
                }
                fits &= kills.len() > before;
            }
            (Undo::Kills(kills), fits)
        }
        // The flags before a LiveFlags rule are not kept: a wall.
        Edit::SplitEdge { .. } | Edit::LiveFlags { .. } => (Undo::None, false),
    }
}

/// Applies `e` like [`apply_edit`], except that an insert whose storage slot an undo
/// left behind reuses the slot: the way to apply a step's edits to a function that a
/// [`Checkpoints::seek_from`] or [`Checkpoints::walk`] moved.
pub fn redo_edit(f: &mut Function, e: &Edit) -> Result<(), ReplayError> {
    if let Edit::Insert {
        inst,
        before,
        block,
        data,
    } = e
    {
        if inst.index() < f.insts.len() {
            if f.layout.is_inserted(*inst) {
                return Err(ReplayError(format!("insert of {inst:?}, which is placed")));
            }
            let blk = Block::new(*block as usize);
            match before.expand() {
                Some(b) if f.layout.is_inserted(b) => {}
                None if blk.index() < f.blocks.len() => {}
                _ => return Err(ReplayError(format!("insert of {inst:?} has no place"))),
            }
            f.insts[*inst] = data.unpack();
            f.layout.insert_at(*inst, blk, before.expand());
            return Ok(());
        }
    }
    apply_edit(f, e)
}

/// Takes `e` back on `f`, the function right after `e`.
fn undo(f: &mut Function, e: &Edit, u: &Undo) -> Result<(), ReplayError> {
    let placed = |f: &Function, i: Inst| {
        if f.layout.is_inserted(i) {
            Ok(())
        } else {
            Err(ReplayError(format!("undo: {i:?} is not placed")))
        }
    };
    match (e, u) {
        (Edit::Insert { inst, .. }, _) => {
            placed(f, *inst)?;
            f.layout.remove_inst(*inst);
        }
        (Edit::Erase { inst }, Undo::Place(b, next)) => {
            if f.layout.is_inserted(*inst) {
                return Err(ReplayError(format!("undo: erased {inst:?} is placed")));
            }
            f.layout.insert_at(*inst, *b, *next);
        }
        (Edit::Move { inst, .. }, Undo::Place(b, next)) => {
            placed(f, *inst)?;
            f.layout.remove_inst(*inst);
            f.layout.insert_at(*inst, *b, *next);
        }
        (Edit::Replace { inst, change }, _) => {
            if inst.index() >= f.insts.len() {
                return Err(ReplayError(format!("undo: replace of unknown {inst:?}")));
            }
            change.apply(&mut f.insts[*inst], true)?;
        }
        (Edit::SetClass { vreg, .. }, Undo::SetClass(info, end)) => {
            f.vregs[*vreg] = *info;
            f.vreg_end = *end;
        }
        (Edit::SetProps { .. }, Undo::SetProps(no_phis, is_ssa)) => {
            f.props.no_phis = *no_phis;
            f.props.is_ssa = *is_ssa;
        }
        (Edit::SetLiveins { .. }, Undo::SetLiveins(liveins, entry)) => {
            f.liveins.clone_from(liveins);
            if let Some(b) = f.layout.entry_block() {
                f.blocks[b].liveins.clone_from(entry);
            }
        }
        (Edit::Intern { .. }, _) => {}
        (Edit::DropKills { .. }, Undo::Kills(kills)) => {
            for &(i, k) in kills {
                placed(f, i)?;
                match f.insts[i].operands.get_mut(k as usize) {
                    Some(o) => o.set(crate::mir::oflag::KILL, true),
                    None => return Err(ReplayError(format!("undo: {i:?} has no operand {k}"))),
                }
            }
        }
        _ => return Err(ReplayError(format!("undo: no record for {e:?}"))),
    }
    Ok(())
}

/// Replays a pass's steps over its input function.
pub struct Player<'a> {
    steps: Steps<'a>,
    checkpoints: Checkpoints,
}

impl<'a> Player<'a> {
    /// Builds the checkpoints by replaying every step once.
    pub fn new(input: &Function, steps: impl Into<Steps<'a>>) -> Result<Self, ReplayError> {
        let steps: Steps<'a> = steps.into();
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

    pub fn checkpoints(&self) -> &Checkpoints {
        &self.checkpoints
    }

    /// Moves `f`, the function after `at` steps, to step `n` (see
    /// [`Checkpoints::seek_from`]).
    pub fn seek_from(&self, at: usize, n: usize, f: &mut Function) -> Result<(), ReplayError> {
        self.checkpoints.seek_from(self.steps, at, n, f)
    }
}
