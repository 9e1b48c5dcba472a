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
//!          (from a known step `at`, a copy is restored by difference: only the
//!          instruction slots the edits between `at` and the copy wrote)
//! ```
//!
//! Memory is the copies (the caller picks `every`, and may cap the instructions they hold
//! together: [`Copies`] then doubles the spacing as the function grows) plus the undo records
//! and the slots each step writes (four bytes each), which grow with the edits, not with
//! the function. A step whose edits cannot be undone
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
use crate::mir::{Block, Function, Inst, InstData, Reg, VReg};
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
    /// The instruction slots each step's edits write (inserted, replaced, flags
    /// rewritten), steps in order, step `s`'s from `written_at[s]`; and the steps that
    /// change the block table: what [`restore`](Checkpoints::restore) copies, read
    /// without going through the steps (a step's edits are two pointers away).
    written: Vec<u32>,
    written_at: Vec<u32>,
    block_steps: Vec<u32>,
}

/// What moving a function costs, in units of about 5 ns (a sixteenth of a redone
/// edit), measured on two 10k phi-swaps traces: PHI elimination (12,005 steps, inserts)
/// and register coalescing (18,007 steps over 24,011 slots, replaced operands), at a
/// machine load of 4-6. Redoing an edit: 70 ns (a replace) to 90-180 (an insert builds
/// the instruction); undoing one: 30-70 ns for an insert (a link moved back), 70 for a
/// replace; stepping past a step (a step without edits costs almost nothing). Restoring
/// a stored copy into a function whose step is not known copies every slot
/// (`Function::assign_from`): 33 ns a slot, streamed. From a known step
/// ([`Checkpoints::restore`]) only the slots the edits in between wrote are copied, 37 ns
/// each in slot order, plus about 3 ns a slot for the layout and register table.
const REDO_EDIT: u64 = 16;
const UNDO_EDIT: u64 = 8;
const PER_STEP: u64 = 1;
const RESTORE_SLOT: u64 = 7;
/// [`Checkpoints::restore`]: one unit per this many slots of the copy, and
/// [`RESTORE_WRITTEN`] per slot written in between.
const LAYOUT_SLOTS: u64 = 2;
const RESTORE_WRITTEN: u64 = 8;

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
        let (mut written, mut written_at, mut block_steps) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..steps.len() {
            written_at.push(written.len() as u32);
            starts.push(undo.len() as u32);
            edits_before.push(n_edits);
            walls_before.push(n_walls);
            let mut wall = false;
            steps.with_lists(k, |s| {
                if (s.edits.iter()).fold(false, |b, e| {
                    written_slots(e, |i| written.push(i.index() as u32)) | b
                }) {
                    block_steps.push(k as u32);
                }
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
        written_at.push(written.len() as u32);
        Ok(Checkpoints {
            len: steps.len(),
            saved,
            undo,
            starts,
            edits_before,
            walls_before,
            written,
            written_at,
            block_steps,
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
        let per_step = self.starts.capacity()
            + self.edits_before.capacity()
            + self.walls_before.capacity()
            + self.written.capacity()
            + self.written_at.capacity()
            + self.block_steps.capacity();
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
        let (k, _) = self.nearest_copy(None, n);
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
        let (k, _) = self.nearest_copy(None, n);
        out.assign_from(self.saved.get(k));
        self.walk(steps, k * self.every(), n, out)
    }

    /// Moves `f`, the function after `at` steps (as an earlier seek left it), to step
    /// `n`: by replaying or undoing the steps in between, or from a stored copy when
    /// that is cheaper ([`restore`](Self::restore)).
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
                self.restore(at, k, f)?;
                self.walk(steps, k * self.every(), n, f)
            }
        }
    }

    /// Makes `f`, the function after `at` steps, equal to stored copy `k` (the function
    /// after `k * every()` steps) by copying only what the steps between the two, in
    /// either direction, can have changed: the instruction slots their edits wrote
    /// (inserted, replaced, flags rewritten), slots past the copy's end dropped and
    /// missing ones added, the layout and register table whole (a few words per
    /// instruction, nothing allocated per instruction), the blocks when a step between
    /// split an edge or set the live-ins, the names when the copy has more. Every other
    /// slot is equal already: no seek writes a slot that no edit names. On the 18,007-step
    /// register coalescing of a 24,011-slot function: 0.3 ms on average from random
    /// steps, against 0.8 for copying every slot.
    pub fn restore(&self, at: usize, k: usize, f: &mut Function) -> Result<(), ReplayError> {
        if k >= self.saved.len() || at > self.len {
            return Err(ReplayError(format!("restore copy {k} from step {at}")));
        }
        let copy = self.saved.get(k);
        let s = k * self.every();
        let (lo, hi) = (at.min(s), at.max(s));
        if f.insts.len() > copy.insts.len() {
            let mut v: Vec<InstData> = core::mem::take(&mut f.insts).into();
            v.truncate(copy.insts.len());
            f.insts = v.into();
        }
        // Which slots to copy, each once however many edits between name it (a
        // coalescer rewrites a register's instructions at every join), then copied in
        // slot order: both functions' storage read front to back. (Slots past `f`'s end
        // are added whole below.)
        let len = f.insts.len();
        let mut marks = alloc::vec![0u64; len.div_ceil(64)];
        let range = self.written_at[lo] as usize..self.written_at[hi] as usize;
        for &i in &self.written[range] {
            if (i as usize) < len {
                marks[i as usize / 64] |= 1u64 << (i % 64);
            }
        }
        for (w, &bits) in marks.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let i = Inst::new(w * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
                f.insts[i].clone_from(&copy.insts[i]);
            }
        }
        let at_or_after = |x: usize| self.block_steps.partition_point(|&b| (b as usize) < x);
        let blocks = at_or_after(lo) != at_or_after(hi);
        let have = f.insts.len();
        f.insts.extend(copy.insts.values().skip(have).cloned());
        f.layout.clone_from(&copy.layout);
        f.vregs.clone_from(&copy.vregs);
        f.vreg_end = copy.vreg_end;
        f.props = copy.props;
        f.liveins.clone_from(&copy.liveins);
        if blocks {
            f.blocks.clone_from(&copy.blocks);
        }
        // Names only ever grow, in the trace's order: extra ones are harmless (undo
        // leaves them too), missing ones are the copy's last.
        if f.names.len() < copy.names.len() {
            f.names.clone_from(&copy.names);
        }
        Ok(())
    }

    /// How [`seek_from`](Self::seek_from) moves a function from step `at` to step `n`:
    /// None to walk there (redo or undo), or the stored copy it restores first (copy
    /// `k` stands for step `k * every()`), whichever costs less by the weights above
    /// [`REDO_EDIT`].
    pub fn route(&self, at: usize, n: usize) -> Option<usize> {
        let (at, n) = (at.min(self.len), n.min(self.len));
        let (k, cost) = self.nearest_copy(Some(at), n);
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

    /// What restoring stored copy `k` costs: every slot of it into a function whose
    /// step is not known (`from` None), or from the function after `from` steps by
    /// [`restore`](Self::restore) (the layout's slots and the edits in between).
    fn restore_cost(&self, from: Option<usize>, k: usize) -> u64 {
        let slots = self.saved.size(k) as u64;
        let Some(at) = from else {
            return slots * RESTORE_SLOT;
        };
        let s = k * self.every();
        let (lo, hi) = (at.min(s), at.max(s));
        // Each slot is copied once however often the edits name it.
        let written = (self.written_at[hi] - self.written_at[lo]) as u64;
        slots / LAYOUT_SLOTS + written.min(slots) * RESTORE_WRITTEN
    }

    /// The stored copy cheapest to reach step `n` from, and the cost (restoring it, from
    /// the function after `from` steps when that is known, plus the walk): the copy at or
    /// before `n` (redo forward) or the one after it (undo backward).
    fn nearest_copy(&self, from: Option<usize>, n: usize) -> (usize, u64) {
        let every = self.every();
        let (below, _) = self.saved.at_or_before(n);
        let mut best = (
            below,
            self.restore_cost(from, below) + self.cost(below * every, n).unwrap_or(0),
        );
        if below + 1 < self.saved.len() {
            if let Some(c) = self.cost((below + 1) * every, n) {
                let c = self.restore_cost(from, below + 1) + c;
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

/// Calls `each` with every instruction slot whose data `e` writes (not only its place);
/// true when `e` changes the block table.
fn written_slots(e: &Edit, mut each: impl FnMut(Inst)) -> bool {
    match e {
        Edit::Insert { inst, .. } | Edit::Replace { inst, .. } => each(*inst),
        Edit::LiveFlags { insts } | Edit::DropKills { insts } => insts.iter().for_each(each),
        Edit::SplitEdge { .. } | Edit::SetLiveins { .. } => return true,
        Edit::Erase { .. }
        | Edit::Move { .. }
        | Edit::SetClass { .. }
        | Edit::SetProps { .. }
        | Edit::Intern { .. } => {}
    }
    false
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
        // The edit is not printed: its `Debug` would link every MIR type's into the
        // engine's wasm, for a message no recorded trace gives.
        _ => {
            return Err(ReplayError(
                "undo: the edit's record is of another kind".into(),
            ))
        }
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
