//! Which instructions the NVPTX coalescer looks at, and how it sorts them.
//!
//! The spec's opcode → copy-type switch (`families.rs`, keyed by opcode number) maps
//! NVPTX move opcodes onto families and candidate kinds; each register operand is then looked up in the operand-type table, whose
//! `constraint_flags & 0x10` says whether it takes part in coalescing at all.

use crate::mir::regclass::{Family, ValueKind};
use crate::mir::{Function, Inst, InstData, RegClass, ScalarClass, SubReg, VReg};
use serde::Serialize;

/// The participate bit of the operand-type table.
pub const PARTICIPATES: u8 = 0x10;

/// One row of the operand-type table (spec: 16-byte entries at `byte_444C4A0`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OperandType {
    /// 12 = i32, 13 = i64, 15 = f32, ... (the spec's codes; ours for the others).
    pub type_code: u8,
    /// Size in 32-bit units (0 for predicates and 16-bit values).
    pub size_class: u8,
    pub bank: u8,
    pub constraint_flags: u8,
}

/// The table row for a scalar class. Int128 is the one class left out of coalescing.
pub fn operand_type(c: ScalarClass) -> OperandType {
    let info = c.info();
    let (type_code, size) = match (info.family, info.kind) {
        (Family::B1, _) => (1, 0),
        (Family::B16, ValueKind::Float) => (14, 0),
        (Family::B16, _) => (11, 0),
        (Family::B32, ValueKind::Float) => (15, 1),
        (Family::B32, _) => (12, 1),
        (Family::B64, ValueKind::Float) => (16, 2),
        (Family::B64, _) => (13, 2),
        (Family::B128, _) => (17, 4),
    };
    let flags = if info.family == Family::B128 {
        0
    } else {
        PARTICIPATES
    };
    OperandType {
        type_code,
        size_class: size,
        bank: info.family as u8,
        constraint_flags: flags,
    }
}

/// The candidate's classification code (spec: 1–6 at offset +224 of the record).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CopyKind {
    /// 1: plain register copy.
    Copy = 1,
    /// 2: a copy into one lane of a tuple.
    SubregInsert = 2,
    /// 3: a copy out of one lane of a tuple (what EXTRACT_SUBREG became).
    Extract = 3,
    /// 4: a type-preserving NVPTX move (families 440–443).
    Move = 4,
    /// 5: a move between classes: always kept.
    CrossClass = 5,
    /// 6: wide-pair and `.param` moves: kept, they change the register layout.
    Layout = 6,
}

/// One side of a candidate: a register, or one lane of a tuple register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Side {
    pub reg: u32,
    pub lane: Option<u8>,
}

/// A coalescing candidate (spec: the 248-byte candidate record).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Candidate {
    pub inst: u32,
    pub dst: Side,
    pub src: Side,
    pub kind: CopyKind,
    pub priority: u16,
    /// Two-address's tie mark (`tied2`) on a lane COPY's def: the copy continues an
    /// earlyTied chain of extracts (two-address-cicc.txt), a direct hint that the
    /// scalar belongs in the tuple's lane.
    pub tied: bool,
    /// The sub-operand entry of a half copy that pair decomposition made (`pairs.rs`):
    /// which half, its partner and the wide register. None for every other copy.
    pub pair: Option<super::pairs::PairHalf>,
}

/// The class of one side (the lane class for a tuple lane).
pub fn side_class(f: &Function, v: VReg, lane: Option<SubReg>) -> Option<RegClass> {
    let c = f.vreg_class(v)?;
    Some(if lane.is_some() { c.lane_class() } else { c })
}

/// Builds the candidate for `i` (whose data is `d`), if it is a copy-like instruction
/// between virtual registers; None for everything else.
pub fn classify(d: &InstData, i: Inst) -> Option<Candidate> {
    use crate::entity::EntityRef;
    let ty = super::families::copy_type(d.opcode);
    if d.lhs_defs == 0 {
        return None;
    }
    let family_kind = ty.row.kind?;
    let def = d.operands.first()?;
    let dst = def.vreg_of()?;
    let lane = |s: Option<SubReg>| s.and_then(SubReg::lane);
    let src_op = d.operands.get(d.lhs_defs as usize);
    let src = src_op.and_then(|o| o.vreg_of());
    let side = |v: VReg, s: Option<SubReg>| Side {
        reg: v.index() as u32,
        lane: lane(s),
    };
    // The generic COPY is the one family whose kind depends on its operands: a
    // lane on one side makes it an insert or an extract.
    let kind = match (family_kind, def.subreg, src_op.and_then(|o| o.subreg)) {
        (CopyKind::Copy, None, None) => CopyKind::Copy,
        (CopyKind::Copy, Some(s), None) if s.lane().is_some() => CopyKind::SubregInsert,
        (CopyKind::Copy, None, Some(s)) if s.lane().is_some() => CopyKind::Extract,
        (CopyKind::Copy, _, _) => return None,
        (k, _, _) => k,
    };
    let src_side = match src {
        Some(s) => side(s, src_op.and_then(|o| o.subreg)),
        None if kind == CopyKind::Layout => Side {
            reg: u32::MAX,
            lane: None,
        },
        None => return None,
    };
    Some(Candidate {
        inst: i.index() as u32,
        dst: side(dst, def.subreg),
        src: src_side,
        kind,
        priority: 1,
        tied: kind == CopyKind::Extract && def.has(crate::mir::oflag::TIED2),
        pair: None,
    })
}
