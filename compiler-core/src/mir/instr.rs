//! Instructions: opcode, operands (defs first as MIR prints them), and the MI flags.

use super::entities::{Inst, VReg};
use super::opcode::{Op, Opcode, OpcodeDesc};
use super::operand::{oflag, Operand};
use crate::entity::Sym;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// MachineInstr flags printed before the opcode, in MIR's order.
pub const MI_FLAG_NAMES: [&str; 16] = [
    "frame-setup",
    "frame-destroy",
    "nnan",
    "ninf",
    "nsz",
    "arcp",
    "contract",
    "afn",
    "reassoc",
    "nuw",
    "nsw",
    "exact",
    "nofpexcept",
    "nneg",
    "disjoint",
    "samesign",
];

/// The names of the flags set in `bits` (bits of [`MI_FLAG_NAMES`]), in MIR's order.
pub fn mi_flag_names(bits: u16) -> impl Iterator<Item = &'static str> {
    MI_FLAG_NAMES
        .iter()
        .enumerate()
        .filter(move |(i, _)| bits & (1 << i) != 0)
        .map(|(_, n)| *n)
}

/// A short list of instructions (a register's defs, uses or kills): most registers
/// have one definition and a few uses, so up to four entries live inline, in the 24
/// bytes a `Vec` header takes, and building such lists for a large function allocates
/// nothing per register.
pub type InstList = smallvec::SmallVec<[Inst; 4]>;

#[derive(Debug, Serialize, Deserialize)]
pub struct InstData {
    pub opcode: Opcode,
    /// All operands. The first `lhs_defs` were written left of `=`.
    pub operands: Vec<Operand>,
    pub lhs_defs: u16,
    /// Bits indexing [`MI_FLAG_NAMES`].
    pub mi_flags: u16,
    /// Everything after `::` (memory operands), verbatim.
    pub mem: Option<Sym>,
    /// Trailing `debug-location`, `pcsections`, ... attributes, verbatim.
    pub trailing: Option<Sym>,
    /// Known to tie no operand (no `tied_def` set): a summary of the operands, so a
    /// walk over every instruction (two-address's) can pass by one without reading
    /// them. [`InstData::new`] and the byte form's reader set it from the operands;
    /// false means "not known" and is always safe. An edit that may give an operand
    /// a tie clears it (`trace::edit`); removing a tie leaves it false. The verifier
    /// checks that no instruction marked tie-free has a tied operand. It is not part
    /// of `==` or the JSON form, as it says nothing the operands do not.
    #[serde(skip)]
    pub tie_free: bool,
}

/// Equal opcode, operands, flags and text: [`InstData::tie_free`] is not compared
/// (a summary of the operands, conservative after an untie).
impl PartialEq for InstData {
    fn eq(&self, o: &Self) -> bool {
        self.opcode == o.opcode
            && self.operands == o.operands
            && self.lhs_defs == o.lhs_defs
            && self.mi_flags == o.mi_flags
            && self.mem == o.mem
            && self.trailing == o.trailing
    }
}

impl Eq for InstData {}

/// Whether no operand of `ops` carries a tie ([`InstData::tie_free`]).
pub fn ties_none(ops: &[Operand]) -> bool {
    ops.iter().all(|o| o.tied_def.is_none())
}

impl Clone for InstData {
    fn clone(&self) -> Self {
        InstData {
            operands: self.operands.clone(),
            ..*self
        }
    }

    /// Field by field, keeping `self`'s operand buffer when it is large enough (the
    /// derived `clone_from` would clone and drop): what restoring a stored copy of a
    /// function does per instruction.
    fn clone_from(&mut self, src: &Self) {
        let operands = core::mem::take(&mut self.operands);
        *self = InstData { operands, ..*src };
        self.operands.clone_from(&src.operands);
    }
}

impl InstData {
    pub fn new(opcode: Opcode, operands: Vec<Operand>) -> Self {
        let lhs_defs = operands
            .iter()
            .take_while(|o| o.is_def() && !o.has(oflag::IMPLICIT))
            .count() as u16;
        InstData {
            opcode,
            tie_free: ties_none(&operands),
            operands,
            lhs_defs,
            mi_flags: 0,
            mem: None,
            trailing: None,
        }
    }

    pub fn desc(&self) -> &'static OpcodeDesc {
        self.opcode.desc()
    }

    /// [`Opcode::table_name`].
    pub fn table_name(&self) -> &'static str {
        self.opcode.table_name()
    }

    pub fn is(&self, op: Op) -> bool {
        self.opcode.is(op)
    }

    pub fn is_copy(&self) -> bool {
        self.is(Op::COPY)
    }

    /// Virtual registers defined, with their operand index.
    pub fn vreg_defs(&self) -> impl Iterator<Item = (usize, VReg)> + '_ {
        self.operands
            .iter()
            .enumerate()
            .filter(|(_, o)| o.is_def())
            .filter_map(|(i, o)| Some((i, o.vreg_of()?)))
    }

    /// Virtual registers read, with their operand index (undef reads included).
    pub fn vreg_uses(&self) -> impl Iterator<Item = (usize, VReg)> + '_ {
        self.operands
            .iter()
            .enumerate()
            .filter(|(_, o)| o.is_use())
            .filter_map(|(i, o)| Some((i, o.vreg_of()?)))
    }

    /// For a use tied to a def: the def's index.
    pub fn tied_def_of(&self, use_idx: usize) -> Option<usize> {
        self.operands.get(use_idx)?.tied_def.map(usize::from)
    }

    /// For a def: the use tied to it.
    pub fn tied_use_of(&self, def_idx: usize) -> Option<usize> {
        self.operands
            .iter()
            .position(|o| o.tied_def.map(usize::from) == Some(def_idx))
    }
}
