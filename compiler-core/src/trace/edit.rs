//! IR edits: the unit of replay.

use super::compact::varint;
use crate::entity::EntityRef;
use crate::error::ReplayError;
use crate::mir::{Function, Inst, InstData, Operand, RegClass, VReg};
use alloc::format;
use cranelift_entity::packed_option::PackedOption;
use serde::{Serialize, Serializer};

/// One change to a function. Instructions are named by storage index; an inserted
/// instruction names the index it received so replay can check it gets the same one.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Edit {
    /// A new instruction placed before `before` (or at the end of block `block`).
    Insert {
        #[serde(serialize_with = "ser_inst")]
        inst: Inst,
        /// (Packed in four bytes: `before.expand()` is the `Option`.)
        #[serde(serialize_with = "ser_packed_inst")]
        before: PackedOption<Inst>,
        block: u32,
        /// Packed (one word inline, a few bytes an operand): most edits are small, and
        /// every edit is as large as the largest.
        #[serde(skip)]
        data: super::PackedInst,
    },
    /// An instruction unlinked from the layout.
    Erase {
        #[serde(serialize_with = "ser_inst")]
        inst: Inst,
    },
    /// An instruction's contents replaced (operands rewritten, opcode changed, ...):
    /// only the operands that changed when nothing else did.
    Replace {
        #[serde(serialize_with = "ser_inst")]
        inst: Inst,
        #[serde(skip)]
        change: Change,
    },
    /// An instruction moved to just before `before` (or to the end of `block`).
    Move {
        #[serde(serialize_with = "ser_inst")]
        inst: Inst,
        #[serde(serialize_with = "ser_opt_inst")]
        before: Option<Inst>,
        block: u32,
    },
    /// A virtual register's class changed (or it was created).
    SetClass {
        #[serde(serialize_with = "ser_vreg")]
        vreg: VReg,
        #[serde(skip)]
        class: Option<RegClass>,
    },
    /// The function's `noPhis` / `isSSA` properties.
    SetProps { no_phis: bool, is_ssa: bool },
    /// The function's live-in registers (each with the virtual register it is copied
    /// into), also listed on the entry block.
    SetLiveins {
        #[serde(skip)]
        liveins: alloc::boxed::Box<[(crate::mir::Reg, Option<VReg>)]>,
    },
    /// A new block on the edge `pred` → `succ` received index `block`
    /// (`Function::split_edge_block`).
    SplitEdge { pred: u32, succ: u32, block: u32 },
    /// A new name entered the function's name table (a symbol, a register name, a
    /// memory operand's text) and received index `sym`.
    Intern {
        sym: u32,
        name: alloc::boxed::Box<str>,
    },
    /// LiveVariables' kill and dead flags written into `insts` (each changed), a rule
    /// instead of a list of flag changes: replay computes LiveVariables on the function
    /// as it stands and writes the flags it implies into these instructions, which gives
    /// what the pass wrote (the pass records this form only after checking that a fresh
    /// computation gives its own marks: [`super::Editor::write_live_flags`]). Printed as
    /// one `replace` per instruction, as the list it stands for.
    #[serde(skip)]
    LiveFlags { insts: InstSeq },
    /// The kill flag cleared on every virtual-register use of `insts` (each had one), a
    /// rule instead of a list of flag changes: what a coalescer does as it finishes
    /// (LLVM leaves kill flags stale after joining, so it drops them). Replay clears
    /// them again; the player keeps which operands were killed, to undo it. Printed as
    /// one `replace` per instruction, as the list it stands for.
    #[serde(skip)]
    DropKills { insts: InstSeq },
}

impl Edit {
    /// The edits this one stands for, one per changed instruction for
    /// [`Edit::LiveFlags`] and [`Edit::DropKills`] (without their changes: for printing
    /// and counting).
    pub fn each(&self) -> impl Iterator<Item = EditRef<'_>> + '_ {
        let (one, many) = match self {
            Edit::LiveFlags { insts } | Edit::DropKills { insts } => (None, Some(insts.iter())),
            e => (Some(EditRef::Edit(e)), None),
        };
        one.into_iter()
            .chain(many.into_iter().flatten().map(EditRef::Flags))
    }
    /// How many edits [`Edit::each`] gives.
    pub fn count(&self) -> usize {
        match self {
            Edit::LiveFlags { insts } | Edit::DropKills { insts } => insts.len(),
            _ => 1,
        }
    }
}

/// One of the edits an [`Edit`] stands for ([`Edit::each`]): itself, or the kill and
/// dead flags of one instruction of a [`Edit::LiveFlags`] or [`Edit::DropKills`]
/// (printed as a `replace`).
#[derive(Clone, Copy, Debug)]
pub enum EditRef<'e> {
    Edit(&'e Edit),
    Flags(Inst),
}

impl Serialize for EditRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            EditRef::Edit(e) => e.serialize(s),
            EditRef::Flags(inst) => Edit::Replace {
                inst: *inst,
                change: Change::Flags(super::List::new()),
            }
            .serialize(s),
        }
    }
}

// Every edit is stored at this size (the step's list holds them side by side).
const _: () = assert!(core::mem::size_of::<Edit>() <= 24);

/// A step's edits as the JSON lists them: a [`Edit::LiveFlags`] or [`Edit::DropKills`]
/// as the `replace` of each instruction it names.
pub struct EditsJson<'a>(pub &'a [Edit]);

impl Serialize for EditsJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().flat_map(Edit::each))
    }
}

/// Instruction numbers in a given order, stored as runs of consecutive numbers: each
/// run is the gap from where the previous run ended to where it starts and its length;
/// a stretch of runs that repeats the `p` runs before it `k` times is stored as (p, k).
/// LEB128 numbers after the count of instructions (a run's gap shifted left one, a
/// repeat's `p` shifted left one and tagged by the low bit). A list of every
/// instruction, or of the same few of every block of a regular function, is a few bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct InstSeq(alloc::boxed::Box<[u8]>);

/// The longest stretch a repeat looks back over.
const MAX_PERIOD: usize = 256;

impl InstSeq {
    /// The packed bytes (a step log keeps them in its own arena).
    pub(crate) fn as_packed(&self) -> &[u8] {
        &self.0
    }
    pub(crate) fn from_packed(b: &[u8]) -> Self {
        InstSeq(b.into())
    }
    pub fn new(insts: &[Inst]) -> Self {
        let mut runs: alloc::vec::Vec<(u32, u32)> = alloc::vec::Vec::new();
        let mut next = 0u32;
        let mut k = 0;
        while k < insts.len() {
            let start = insts[k].index() as u32;
            let mut len = 1;
            while k + (len as usize) < insts.len()
                && insts[k + len as usize].index() as u32 == start.wrapping_add(len)
            {
                len += 1;
            }
            runs.push((start.wrapping_sub(next), len));
            next = start.wrapping_add(len);
            k += len as usize;
        }
        let mut bytes = alloc::vec::Vec::new();
        varint::put_u32(&mut bytes, insts.len() as u32);
        let mut r = 0;
        while r < runs.len() {
            let (period, times) = best_repeat(&runs, r);
            if period * times >= 2 {
                varint::put_u64(&mut bytes, (period as u64) << 1 | 1);
                varint::put_u32(&mut bytes, times as u32);
                r += period * times;
                continue;
            }
            varint::put_u64(&mut bytes, u64::from(runs[r].0) << 1);
            varint::put_u32(&mut bytes, runs[r].1);
            r += 1;
        }
        InstSeq(bytes.into_boxed_slice())
    }
    pub fn len(&self) -> usize {
        varint::read_u32(&self.0, &mut 0) as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        self.0.len()
    }
    /// The instructions, in order.
    pub fn iter(&self) -> impl Iterator<Item = Inst> + '_ {
        let b = &self.0;
        let mut pos = 0;
        varint::read_u32(b, &mut pos);
        let mut runs: alloc::vec::Vec<(u32, u32)> = alloc::vec::Vec::new();
        while pos < b.len() {
            let head = varint::read_u64(b, &mut pos);
            let second = varint::read_u32(b, &mut pos);
            if head & 1 == 0 {
                runs.push(((head >> 1) as u32, second));
                continue;
            }
            let period = ((head >> 1) as usize).min(runs.len());
            for _ in 0..second {
                let from = runs.len() - period;
                runs.extend_from_within(from..);
            }
        }
        let mut next = 0u32;
        runs.into_iter().flat_map(move |(gap, len)| {
            let start = next.wrapping_add(gap);
            next = start.wrapping_add(len);
            (0..len).map(move |j| Inst::new(start.wrapping_add(j) as usize))
        })
    }
}

/// At run `r`: the period `p` (at most [`MAX_PERIOD`]) and count `k` such that the `k`
/// stretches of `p` runs from `r` on repeat the `p` runs before `r`, covering most runs.
fn best_repeat(runs: &[(u32, u32)], r: usize) -> (usize, usize) {
    let mut best = (0, 0);
    for p in 1..=MAX_PERIOD.min(r) {
        let mut k = 0;
        while r + (k + 1) * p <= runs.len() && runs[r + k * p..r + (k + 1) * p] == runs[r - p..r] {
            k += 1;
        }
        if p * k > best.0 * best.1 {
            best = (p, k);
        }
    }
    best
}

impl core::fmt::Debug for InstSeq {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// What a [`Edit::Replace`] changed in its instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// Only operands: each changed one's index, old and new value.
    Operands(super::List<(u32, Operand, Operand)>),
    /// Only operands' flags (a kill or dead flag set or cleared, ...): each changed
    /// operand's index, old and new flag word (8 bytes an operand instead of 72).
    Flags(super::List<(u32, u16, u16)>),
    /// The same for one operand (a kill flag set, ...), kept inline: no heap.
    Flag(u32, u16, u16),
    /// Anything else (opcode, operand count, flags, ...): the whole old and new data.
    Whole(alloc::boxed::Box<(InstData, InstData)>),
    /// Only registers renamed: the operands at the set bits of `ops` held virtual
    /// register `from` and now hold `to` (a coalescer's join renames every operand of
    /// the register it merges away). Stored in place, nothing allocated; undone by
    /// renaming those operands back.
    Rename { ops: u32, from: u32, to: u32 },
    /// Only flag bits: the operands at the set bits of `ops` had every bit of `bits`
    /// clear and now have them set, or (`set` false) the other way round (a pass
    /// dropping the kill flags of an instruction's uses). Stored in place.
    FlagBits { ops: u32, bits: u16, set: bool },
}

impl Change {
    /// The change from `old` to `new` (which differ).
    pub fn between(old: &InstData, new: InstData) -> Change {
        let same_shape = old.opcode == new.opcode
            && old.operands.len() == new.operands.len()
            && old.lhs_defs == new.lhs_defs
            && old.mi_flags == new.mi_flags
            && old.mem == new.mem
            && old.trailing == new.trailing;
        if !same_shape {
            return Change::Whole(alloc::boxed::Box::new((old.clone(), new)));
        }
        let changed = || {
            old.operands
                .iter()
                .zip(&new.operands)
                .enumerate()
                .filter(|(_, (a, b))| a != b)
        };
        let only_flags = changed().all(|(_, (a, b))| {
            Operand {
                flags: b.flags,
                ..*a
            } == *b
        });
        if let Some(c) = Self::compact(old, &new) {
            return c;
        }
        if only_flags {
            let flags: alloc::vec::Vec<_> = changed()
                .map(|(k, (a, b))| (k as u32, a.flags, b.flags))
                .collect();
            if let [(k, old, new)] = flags[..] {
                return Change::Flag(k, old, new);
            }
            return Change::Flags(flags.into());
        }
        let ops: alloc::vec::Vec<_> = changed().map(|(k, (a, b))| (k as u32, *a, *b)).collect();
        Change::Operands(ops.into())
    }

    /// The change from `old` to `new` (same shape) as a [`Change::Rename`] or
    /// [`Change::FlagBits`] when it is one: the changed operands are among the first
    /// 32 and each changed the same way.
    fn compact(old: &InstData, new: &InstData) -> Option<Change> {
        let (mut ops, mut rename, mut flags) = (0u32, None, None);
        for (k, (a, b)) in old.operands.iter().zip(&new.operands).enumerate() {
            if a == b {
                continue;
            }
            if k >= 32 {
                return None;
            }
            ops |= 1 << k;
            if a.flags != b.flags {
                let (set, bits) = (b.flags & !a.flags, a.flags & !b.flags);
                let this = if bits == 0 {
                    (set, true)
                } else {
                    (bits, false)
                };
                let same = Operand {
                    flags: b.flags,
                    ..*a
                } == *b;
                if !same || (set != 0 && bits != 0) || *flags.get_or_insert(this) != this {
                    return None;
                }
            } else {
                let (Some(x), Some(y)) = (a.vreg_of(), b.vreg_of()) else {
                    return None;
                };
                let same = Operand { kind: b.kind, ..*a } == *b;
                let this = (x.index() as u32, y.index() as u32);
                if !same || *rename.get_or_insert(this) != this {
                    return None;
                }
            }
        }
        match (rename, flags) {
            (Some((from, to)), None) => Some(Change::Rename { ops, from, to }),
            (None, Some((bits, set))) => Some(Change::FlagBits { ops, bits, set }),
            _ => None,
        }
    }

    /// The indices of the operands at the set bits of `ops`.
    fn bits(ops: u32) -> impl Iterator<Item = usize> {
        (0..32).filter(move |k| ops & (1 << k) != 0)
    }

    /// Does `d` hold what the change expects to find (its old contents)?
    pub fn fits_before(&self, d: &InstData) -> bool {
        match self {
            Change::Whole(b) => *d == b.0,
            Change::Operands(ops) => ops
                .iter()
                .all(|(k, old, _)| d.operands.get(*k as usize) == Some(old)),
            Change::Flags(ops) => ops
                .iter()
                .all(|(k, old, _)| d.operands.get(*k as usize).map(|o| o.flags) == Some(*old)),
            Change::Flag(k, old, _) => d.operands.get(*k as usize).map(|o| o.flags) == Some(*old),
            Change::Rename { ops, from, .. } => Self::bits(*ops).all(|k| {
                d.operands.get(k).and_then(|o| o.vreg_of()) == Some(VReg::new(*from as usize))
            }),
            Change::FlagBits { ops, bits, set } => Self::bits(*ops).all(|k| {
                d.operands
                    .get(k)
                    .is_some_and(|o| o.flags & bits == if *set { 0 } else { *bits })
            }),
        }
    }

    /// Makes the change on `d` (forward), or takes it back (`undo`).
    pub fn apply(&self, d: &mut InstData, undo: bool) -> Result<(), ReplayError> {
        match self {
            Change::Whole(b) => *d = if undo { b.0.clone() } else { b.1.clone() },
            Change::Operands(ops) => {
                for (k, old, new) in ops.iter() {
                    let Some(o) = d.operands.get_mut(*k as usize) else {
                        return Err(ReplayError(format!("replace of missing operand {k}")));
                    };
                    *o = if undo { *old } else { *new };
                    // (Taking back an untie gives the tie back.)
                    d.tie_free &= o.tied_def.is_none();
                }
            }
            Change::Flags(ops) => {
                for &(k, old, new) in ops.iter() {
                    set_flags(d, k, if undo { old } else { new })?;
                }
            }
            Change::Flag(k, old, new) => set_flags(d, *k, if undo { *old } else { *new })?,
            Change::Rename { ops, from, to } => {
                let v = if undo { *from } else { *to };
                for k in Self::bits(*ops) {
                    let Some(o) = d.operands.get_mut(k) else {
                        return Err(ReplayError(format!("rename of missing operand {k}")));
                    };
                    o.set_reg(crate::mir::Reg::Virt(VReg::new(v as usize)));
                }
            }
            Change::FlagBits { ops, bits, set } => {
                for k in Self::bits(*ops) {
                    let Some(o) = d.operands.get_mut(k) else {
                        return Err(ReplayError(format!("flags of missing operand {k}")));
                    };
                    if *set != undo {
                        o.flags |= bits;
                    } else {
                        o.flags &= !bits;
                    }
                }
            }
        }
        Ok(())
    }
}

fn set_flags(d: &mut InstData, k: u32, flags: u16) -> Result<(), ReplayError> {
    match d.operands.get_mut(k as usize) {
        Some(o) => {
            o.flags = flags;
            Ok(())
        }
        None => Err(ReplayError(format!("replace of missing operand {k}"))),
    }
}

fn ser_inst<S: Serializer>(i: &Inst, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u32(i.index() as u32)
}
fn ser_opt_inst<S: Serializer>(i: &Option<Inst>, s: S) -> Result<S::Ok, S::Error> {
    match i {
        Some(i) => s.serialize_some(&(i.index() as u32)),
        None => s.serialize_none(),
    }
}
fn ser_packed_inst<S: Serializer>(i: &PackedOption<Inst>, s: S) -> Result<S::Ok, S::Error> {
    ser_opt_inst(&i.expand(), s)
}
fn ser_vreg<S: Serializer>(v: &VReg, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u32(v.index() as u32)
}

/// Applies one edit to `f`.
pub fn apply_edit(f: &mut Function, e: &Edit) -> Result<(), ReplayError> {
    match e {
        Edit::Insert {
            inst,
            before,
            block,
            data,
        } => {
            let got = f.make_inst(data.unpack());
            if got != *inst {
                return Err(ReplayError(format!(
                    "insert expected {inst:?}, storage gave {got:?}"
                )));
            }
            match before.expand() {
                Some(b) if f.layout.is_inserted(b) => f.layout.insert_before(got, b),
                Some(b) => {
                    return Err(ReplayError(format!(
                        "insert before {b:?}, which is not placed"
                    )))
                }
                None => {
                    let blk = crate::mir::Block::new(*block as usize);
                    if blk.index() >= f.blocks.len() {
                        return Err(ReplayError(format!("no block {block}")));
                    }
                    f.layout.append_inst(got, blk)
                }
            }
        }
        Edit::Erase { inst } => {
            if !f.layout.is_inserted(*inst) {
                return Err(ReplayError(format!(
                    "erase of {inst:?}, which is not placed"
                )));
            }
            f.layout.remove_inst(*inst);
        }
        Edit::Replace { inst, change } => {
            if inst.index() >= f.insts.len() {
                return Err(ReplayError(format!("replace of unknown {inst:?}")));
            }
            change.apply(&mut f.insts[*inst], false)?;
        }
        Edit::Move {
            inst,
            before,
            block,
        } => {
            if !f.layout.is_inserted(*inst) {
                return Err(ReplayError(format!(
                    "move of {inst:?}, which is not placed"
                )));
            }
            f.layout.remove_inst(*inst);
            match before {
                Some(b) => f.layout.insert_before(*inst, *b),
                None => f
                    .layout
                    .append_inst(*inst, crate::mir::Block::new(*block as usize)),
            }
        }
        Edit::SetClass { vreg, class } => {
            f.declare_vreg(*vreg, None);
            f.vregs[*vreg].class = *class;
        }
        Edit::SetProps { no_phis, is_ssa } => {
            f.props.no_phis = *no_phis;
            f.props.is_ssa = *is_ssa;
        }
        Edit::SetLiveins { liveins } => f.set_liveins(liveins.to_vec()),
        Edit::SplitEdge { pred, succ, block } => {
            let (p, s) = (
                crate::mir::Block::new(*pred as usize),
                crate::mir::Block::new(*succ as usize),
            );
            if p.index() >= f.blocks.len() || s.index() >= f.blocks.len() {
                return Err(ReplayError(format!(
                    "split of unknown edge {pred} -> {succ}"
                )));
            }
            let got = f.split_edge_block(p, s);
            if got.index() as u32 != *block {
                return Err(ReplayError(format!(
                    "split edge expected block {block}, storage gave {}",
                    got.index()
                )));
            }
        }
        Edit::LiveFlags { insts } => write_live_flags(f, insts)?,
        Edit::DropKills { insts } => {
            for i in insts.iter() {
                if !f.layout.is_inserted(i) {
                    return Err(ReplayError(format!(
                        "kill flags of {i:?}, which is not placed"
                    )));
                }
                drop_use_kills(&mut f.insts[i]);
            }
        }
        Edit::Intern { sym, name } => {
            let got = f.names.intern(name);
            if got.index() as u32 != *sym {
                return Err(ReplayError(format!(
                    "name `{name}` expected index {sym}, the table gave {}",
                    got.index()
                )));
            }
        }
    }
    Ok(())
}

/// The operands of `d` that are virtual-register uses with a kill flag, by index.
pub(super) fn killed_uses(d: &InstData) -> impl Iterator<Item = usize> + '_ {
    (d.operands.iter().enumerate())
        .filter(|(_, o)| o.vreg_of().is_some() && o.is_use() && o.has(crate::mir::oflag::KILL))
        .map(|(k, _)| k)
}

/// Clears the kill flag of every virtual-register use of `d` ([`Edit::DropKills`]).
pub(super) fn drop_use_kills(d: &mut InstData) {
    for o in d.operands.iter_mut() {
        if o.vreg_of().is_some() && o.is_use() {
            o.set(crate::mir::oflag::KILL, false);
        }
    }
}

/// Replays [`Edit::LiveFlags`]: LiveVariables computed on `f` as it stands, its kill and
/// dead flags written into `insts`.
fn write_live_flags(f: &mut Function, insts: &InstSeq) -> Result<(), ReplayError> {
    use crate::liveness::live_variables::{marks_at, write_inst_flags};
    let marks = crate::liveness::LiveVariables::compute(f).flag_marks(f);
    for i in insts.iter() {
        if !f.layout.is_inserted(i) {
            return Err(ReplayError(format!(
                "live flags of {i:?}, which is not placed"
            )));
        }
        let mut at = marks.partition_point(|m| m.0.index() < i.index());
        write_inst_flags(&mut f.insts[i], marks_at(&marks, &mut at, i));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{oflag, parse_module, Reg};
    use alloc::vec::Vec;

    fn seq(v: &[usize]) -> Vec<Inst> {
        v.iter().map(|&i| Inst::new(i)).collect()
    }

    /// Any list comes back as it was, in its order; regular ones take a few bytes.
    #[test]
    fn instruction_lists_come_back_in_order() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for n in 0..400usize {
            let mut v = Vec::new();
            for _ in 0..n % 97 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                v.push((x % 50) as usize + v.last().copied().unwrap_or(0) * (x as usize & 1));
            }
            let s = InstSeq::new(&seq(&v));
            assert_eq!(s.iter().collect::<Vec<_>>(), seq(&v), "{v:?}");
            assert_eq!(s.len(), v.len());
        }
        let every: Vec<usize> = (0..100_000).collect();
        let two_of_four: Vec<usize> = (0..100_000).filter(|i| i % 4 >= 2).collect();
        // Blocks of 61 with the same irregular few taken from each.
        let blocks: Vec<usize> = (0..100_000)
            .filter(|i| [1, 2, 5, 9, 10, 11, 30, 44, 60].contains(&(i % 61)))
            .collect();
        for v in [every, two_of_four, blocks] {
            let s = InstSeq::new(&seq(&v));
            assert!(s.bytes() < 40, "{} bytes", s.bytes());
            assert!(s.iter().eq(seq(&v)));
        }
    }

    fn add() -> InstData {
        let text = "---\nname: k\ntracksRegLiveness: true\nnoPhis: true\nbody: |\n  bb.0:\n    %1:int32regs = IMPLICIT_DEF\n    %2:int32regs = ADDi32rr killed %1, killed %1\n    Return\n...\n";
        let f = parse_module(text).unwrap().functions.remove(0);
        let (_, i) = f.all_insts().nth(1).unwrap();
        f.insts[i].clone()
    }

    /// Taking back an untie (an operand edit whose old operand is tied) clears the
    /// tie-free mark the untied instruction may carry, so two-address reads the
    /// restored tie; replaying the untie forward keeps the mark as it was.
    #[test]
    fn undoing_an_untie_clears_the_tie_free_mark() {
        let text = "---\nname: k\ntracksRegLiveness: true\nnoPhis: true\nbody: |\n  bb.0:\n    %1:b32 = IMPLICIT_DEF\n    INLINEASM &\"x\", 0, 262154, def %2:b32, 2147483657, %1(tied-def 3)\n    Return\n...\n";
        let f = parse_module(text).unwrap().functions.remove(0);
        let (_, i) = f.all_insts().nth(1).unwrap();
        let tied = f.insts[i].clone();
        assert!(!tied.tie_free);
        let mut untied = tied.clone();
        untied.operands[5].tied_def = None;
        let c = Change::between(&tied, untied.clone());
        assert!(matches!(c, Change::Operands(_)), "{c:?}");
        // The byte form's reader marks the untied instruction, as a replay gets it.
        let mut d = crate::trace::packed::PackedInst::pack(&untied).unpack();
        assert!(d.tie_free);
        c.apply(&mut d, true).unwrap();
        assert_eq!(d, tied);
        assert!(
            !d.tie_free,
            "the restored tie is no longer hidden by the mark"
        );
        c.apply(&mut d, false).unwrap();
        assert_eq!(d, untied);
    }

    /// A join's rename and a kill-flag drop are kept as rules (no operand lists), and
    /// replaying them forward and back gives exactly the data each side held.
    #[test]
    fn renames_and_flag_drops_are_rules_that_replay_both_ways() {
        let old = add();
        let mut renamed = old.clone();
        for o in renamed.operands.iter_mut().skip(1) {
            o.set_reg(Reg::Virt(VReg::new(7)));
        }
        let mut unkilled = old.clone();
        for o in unkilled.operands.iter_mut() {
            o.flags &= !oflag::KILL;
        }
        let mut both = renamed.clone();
        both.operands[1].flags &= !oflag::KILL;
        for (new, want) in [
            (
                renamed,
                Some(Change::Rename {
                    ops: 0b110,
                    from: 1,
                    to: 7,
                }),
            ),
            (
                unkilled,
                Some(Change::FlagBits {
                    ops: 0b110,
                    bits: oflag::KILL,
                    set: false,
                }),
            ),
            (both, None),
        ] {
            let c = Change::between(&old, new.clone());
            assert_eq!(
                want.is_some(),
                matches!(c, Change::Rename { .. } | Change::FlagBits { .. }),
                "{c:?}"
            );
            if let Some(w) = want {
                assert_eq!(c, w);
            }
            assert!(c.fits_before(&old) && !c.fits_before(&new));
            let mut d = old.clone();
            c.apply(&mut d, false).unwrap();
            assert_eq!(d, new);
            c.apply(&mut d, true).unwrap();
            assert_eq!(d, old);
        }
        assert!(core::mem::size_of::<Change>() <= 16);
    }
}
