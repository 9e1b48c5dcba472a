//! IR edits: the unit of replay.

use crate::entity::EntityRef;
use crate::error::ReplayError;
use crate::mir::{Function, Inst, InstData, Operand, RegClass, VReg};
use alloc::format;
use alloc::string::String;
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
        #[serde(serialize_with = "ser_opt_inst")]
        before: Option<Inst>,
        block: u32,
        /// Boxed: most edits are small, and every edit is as large as the largest.
        #[serde(skip)]
        data: alloc::boxed::Box<InstData>,
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
        liveins: alloc::vec::Vec<(crate::mir::Reg, Option<VReg>)>,
    },
    /// A new block on the edge `pred` → `succ` received index `block`
    /// (`Function::split_edge_block`).
    SplitEdge { pred: u32, succ: u32, block: u32 },
    /// A new name entered the function's name table (a symbol, a register name, a
    /// memory operand's text) and received index `sym`.
    Intern { sym: u32, name: String },
}

/// What a [`Edit::Replace`] changed in its instruction.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// Only operands: each changed one's index, old and new value.
    Operands(super::List<(u32, Operand, Operand)>),
    /// Only operands' flags (a kill or dead flag set or cleared, ...): each changed
    /// operand's index, old and new flag word (8 bytes an operand instead of 72).
    Flags(super::List<(u32, u16, u16)>),
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
                }
            }
            Change::Flags(ops) => {
                for (k, old, new) in ops.iter() {
                    let Some(o) = d.operands.get_mut(*k as usize) else {
                        return Err(ReplayError(format!("replace of missing operand {k}")));
                    };
                    o.flags = if undo { *old } else { *new };
                }
            }
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

fn ser_inst<S: Serializer>(i: &Inst, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u32(i.index() as u32)
}
fn ser_opt_inst<S: Serializer>(i: &Option<Inst>, s: S) -> Result<S::Ok, S::Error> {
    match i {
        Some(i) => s.serialize_some(&(i.index() as u32)),
        None => s.serialize_none(),
    }
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
            let got = f.make_inst((**data).clone());
            if got != *inst {
                return Err(ReplayError(format!(
                    "insert expected {inst:?}, storage gave {got:?}"
                )));
            }
            match before {
                Some(b) if f.layout.is_inserted(*b) => f.layout.insert_before(got, *b),
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
        Edit::SetLiveins { liveins } => f.set_liveins(liveins.clone()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{oflag, parse_module, Reg};

    fn add() -> InstData {
        let text = "---\nname: k\ntracksRegLiveness: true\nnoPhis: true\nbody: |\n  bb.0:\n    %1:int32regs = IMPLICIT_DEF\n    %2:int32regs = ADDi32rr killed %1, killed %1\n    Return\n...\n";
        let f = parse_module(text).unwrap().functions.remove(0);
        let (_, i) = f.all_insts().nth(1).unwrap();
        f.insts[i].clone()
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
