//! The opcode → copy-type mapping (spec: `sub_3494EA0`, the switch that sends NVPTX
//! opcodes to the copy families numbered 440–503, returning the family together with
//! its register-class constraints).
//!
//! ```text
//!  opcode number (Op, the row order of nvptx.isa)
//!     ─▶ COPY_TYPE_NUMBERS[op]   CICC copy-type number, written in the description
//!     ─▶ FAMILIES[family]        family row: number block, candidate kind, flags
//!     = CopyType { number, family, kind, flags }
//! ```
//!
//! Both steps are table lookups: the numbers come from the description at build time
//! (`Family:N` in `nvptx.isa`), the family rows are the data below. How the numbers
//! inside each block were chosen is in docs/copy-families.md.

use super::classify::{CopyKind, PARTICIPATES};
use crate::mir::{CopyFamily, Opcode};

/// Both sides must be in one register class (NVPTX classes are disjoint).
pub const SAME_CLASS: u8 = 0x01;
/// Always kept: the move changes class or register layout.
pub const KEPT: u8 = 0x02;
/// Moves a register pair (a value and its two halves): pair decomposition applies.
pub const PAIR: u8 = 0x04;
/// A `.param` ABI copy at a call or kernel boundary.
pub const PARAM: u8 = 0x08;

/// One copy family: its block of CICC numbers, the candidate kind it yields and its
/// constraint flags (`PARTICIPATES` is the operand table's 0x10 bit).
#[derive(Debug, PartialEq, Eq)]
pub struct FamilyRow {
    pub family: CopyFamily,
    /// Inclusive block of copy-type numbers (0..=0: the family has none).
    pub numbers: (u16, u16),
    pub kind: Option<CopyKind>,
    pub flags: u8,
    pub what: &'static str,
}

/// The family table, indexed by `CopyFamily as usize`.
pub static FAMILIES: [FamilyRow; 6] = [
    FamilyRow {
        family: CopyFamily::None,
        numbers: (0, 0),
        kind: None,
        flags: 0,
        what: "not a copy",
    },
    FamilyRow {
        family: CopyFamily::Copy,
        numbers: (0, 0),
        kind: Some(CopyKind::Copy),
        flags: PARTICIPATES | SAME_CLASS,
        what: "generic COPY (the generic coalescer's; its leftovers come here)",
    },
    FamilyRow {
        family: CopyFamily::Move,
        numbers: (440, 443),
        kind: Some(CopyKind::Move),
        flags: PARTICIPATES | SAME_CLASS,
        what: "type-preserving move inside one class",
    },
    FamilyRow {
        family: CopyFamily::CrossClass,
        numbers: (444, 447),
        kind: Some(CopyKind::CrossClass),
        flags: KEPT,
        what: "move between classes (bit cast)",
    },
    FamilyRow {
        family: CopyFamily::WidePair,
        numbers: (448, 455),
        kind: Some(CopyKind::Layout),
        flags: KEPT | PAIR,
        what: "wide register pair pack or unpack",
    },
    FamilyRow {
        family: CopyFamily::Param,
        numbers: (456, 503),
        kind: Some(CopyKind::Layout),
        flags: KEPT | PARAM,
        what: ".param copy",
    },
];

/// What the mapping returns for one opcode (the spec's `__m128i` pair: copy
/// semantics and register-class constraints).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CopyType {
    /// CICC's copy-type number, 0 for the generic COPY and for non-copies.
    pub number: u16,
    pub row: &'static FamilyRow,
}

impl CopyType {
    #[cfg(feature = "testkit")]
    pub fn family(&self) -> CopyFamily {
        self.row.family
    }
    #[cfg(feature = "testkit")]
    pub fn flags(&self) -> u8 {
        self.row.flags
    }
    pub fn has(&self, flag: u8) -> bool {
        self.row.flags & flag != 0
    }
}

/// The copy type of an opcode. Opcodes outside the description are not copies.
pub fn copy_type(op: Opcode) -> CopyType {
    match op.known() {
        Some(op) => CopyType {
            number: op.copy_type_number(),
            row: &FAMILIES[op.desc().family as usize],
        },
        None => CopyType {
            number: 0,
            row: &FAMILIES[CopyFamily::None as usize],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::Op;

    #[test]
    fn rows_are_indexed_by_family() {
        for (k, r) in FAMILIES.iter().enumerate() {
            assert_eq!(r.family as usize, k, "{}", r.what);
        }
    }

    /// Every opcode of the description gets a family, and an NVPTX family's number
    /// lies in its family's block.
    #[test]
    fn every_opcode_gets_a_family() {
        let mut numbered = 0;
        for &op in Op::all() {
            let t = copy_type(Opcode::Known(op));
            assert_eq!(t.family(), op.desc().family, "{}", op.name());
            let (lo, hi) = t.row.numbers;
            if lo == 0 {
                assert_eq!(t.number, 0, "{}", op.name());
            } else {
                assert!((lo..=hi).contains(&t.number), "{}: {}", op.name(), t.number);
                numbered += 1;
            }
        }
        assert!(numbered >= 20, "{numbered}");
    }
}
