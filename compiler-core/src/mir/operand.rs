//! Machine operands: registers with their flags, immediates, blocks, symbols.

use super::entities::VReg;
use crate::entity::{EntityRef, Sym};
use core::num::NonZeroU32;
use serde::{Deserialize, Serialize};

/// A register operand's register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Reg {
    Virt(VReg),
    /// A physical register by interned name (`$r1`, `$eflags`), `$` not included.
    Phys(Sym),
    /// `$noreg`.
    NoReg,
}

impl Reg {
    pub fn virt(self) -> Option<VReg> {
        match self {
            Reg::Virt(v) => Some(v),
            _ => None,
        }
    }
}

/// A sub-register index. `sub0..sub{MAX}` are the tuple lanes; other names (x86's
/// `sub_32bit`) are interned. Read it through [`SubReg::kind`].
///
/// Packed in four bytes with a zero niche (lane `l` is `1 + l`, name `n` is `257 + n`),
/// so `Option<SubReg>` is four bytes too: together with the operand's other fields that
/// keeps an [`Operand`] at 32 bytes. Ordered as the [`SubRegKind`] it stands for (lanes
/// first, by number), and serialized as that enum.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(into = "SubRegKind", from = "SubRegKind")]
pub struct SubReg(NonZeroU32);

/// What a [`SubReg`] names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename = "SubReg")]
pub enum SubRegKind {
    Lane(u8),
    Named(Sym),
}

/// Codes from here on are names (below it, the 256 lanes).
const NAMES_FROM: u32 = 256;

impl SubReg {
    /// Code `c` stored as `c + 1`, the zero left free for `None`. Names are numbered
    /// densely from 0 by an interner fed from one input, so a code near 2^32 cannot
    /// occur; it would saturate, not wrap.
    fn from_code(c: u32) -> Self {
        SubReg(NonZeroU32::MIN.saturating_add(c))
    }
    pub fn of_lane(l: u8) -> Self {
        SubReg::from_code(u32::from(l))
    }
    pub fn of_name(n: Sym) -> Self {
        SubReg::from_code((n.index() as u32).saturating_add(NAMES_FROM))
    }
    pub fn kind(self) -> SubRegKind {
        let c = self.0.get() - 1;
        if c < NAMES_FROM {
            SubRegKind::Lane(c as u8)
        } else {
            SubRegKind::Named(Sym::new((c - NAMES_FROM) as usize))
        }
    }
    /// The tuple lane, for `subK`.
    pub fn lane(self) -> Option<u8> {
        match self.kind() {
            SubRegKind::Lane(l) => Some(l),
            SubRegKind::Named(_) => None,
        }
    }
}

impl From<SubRegKind> for SubReg {
    fn from(k: SubRegKind) -> Self {
        match k {
            SubRegKind::Lane(l) => SubReg::of_lane(l),
            SubRegKind::Named(n) => SubReg::of_name(n),
        }
    }
}

impl From<SubReg> for SubRegKind {
    fn from(s: SubReg) -> Self {
        s.kind()
    }
}

impl core::fmt::Debug for SubReg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.kind().fmt(f)
    }
}

/// Operand flag bits.
pub mod oflag {
    pub const DEF: u16 = 1 << 0;
    pub const KILL: u16 = 1 << 1;
    pub const DEAD: u16 = 1 << 2;
    pub const UNDEF: u16 = 1 << 3;
    pub const IMPLICIT: u16 = 1 << 4;
    pub const EARLY_CLOBBER: u16 = 1 << 5;
    pub const RENAMABLE: u16 = 1 << 6;
    pub const INTERNAL: u16 = 1 << 7;
    /// The emitter's isTied hint (spec: flags byte 3, bit 4).
    pub const HINT_TIED: u16 = 1 << 8;
    /// The emitter's earlyTied hint (spec: flags byte 3, bit 6).
    pub const HINT_EARLY_TIED: u16 = 1 << 9;
    /// The secondary tie flag (spec: flags byte 4, bit 0): already tied.
    pub const TIED2: u16 = 1 << 10;
    // (printed as `tied2`)
    pub const DEBUG_USE: u16 = 1 << 11;
    /// The emitter's inline-fold bit on a COPY or REG_SEQUENCE def (spec: operand byte
    /// 0x40, bit 4 = 0x10): a consumer folded the copy into itself, so it is dead.
    pub const INLINE_FOLD: u16 = 1 << 12;
}

/// Operand flags, with the MIR keyword of each (printed in this order).
/// `def`, `implicit` and `implicit-def` are printed by position and handled apart.
pub const FLAG_KEYWORDS: [(u16, &str); 11] = [
    (oflag::INTERNAL, "internal"),
    (oflag::UNDEF, "undef"),
    (oflag::KILL, "killed"),
    (oflag::DEAD, "dead"),
    (oflag::RENAMABLE, "renamable"),
    (oflag::DEBUG_USE, "debug-use"),
    (oflag::EARLY_CLOBBER, "early-clobber"),
    (oflag::HINT_TIED, "tied-hint"),
    (oflag::HINT_EARLY_TIED, "early-tied"),
    (oflag::TIED2, "tied2"),
    (oflag::INLINE_FOLD, "inline-fold"),
];

/// A floating-point immediate as MIR spells it (`float 1.000000e+00`, `half 0xH3C00`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct FpImm {
    /// `half`, `float`, `double`, `bfloat`.
    pub ty: Sym,
    /// The literal text, interned, printed back unchanged.
    pub text: Sym,
}

/// How a symbol operand was spelled.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Sigil {
    /// `&name`: an external symbol.
    Amp,
    /// `&"text"`: a quoted external symbol (inline asm strings).
    AmpQuoted,
    /// `@name`: an IR global.
    At,
    /// `@"name"`: an IR global whose name needs quotes (`@"$str"`).
    AtQuoted,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum OperandKind {
    Reg(Reg),
    Imm(i64),
    FpImm(FpImm),
    /// `%subreg.NAME`: a sub-register index as a value (REG_SEQUENCE, INSERT_SUBREG).
    SubRegIdx(SubReg),
    /// `%bb.N`.
    Block(super::entities::Block),
    /// `&sym`, `&"..."` (INLINEASM's string) or `@global`, with `+ off`.
    Global {
        sym: Sym,
        sigil: Sigil,
        offset: i64,
    },
    /// `%stack.N` / `%fixed-stack.N`.
    Stack {
        fixed: bool,
        index: u32,
    },
    /// `!N` metadata or `<mcsymbol ...>` and other tokens kept verbatim.
    Verbatim(Sym),
}

impl OperandKind {
    /// The index of a `%subreg.NAME` operand.
    pub fn subreg_idx(&self) -> Option<SubReg> {
        match *self {
            OperandKind::SubRegIdx(s) => Some(s),
            _ => None,
        }
    }
}

/// One operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operand {
    pub kind: OperandKind,
    pub flags: u16,
    /// `%5.sub1`: the register's sub-register read or written.
    pub subreg: Option<SubReg>,
    /// `(tied-def N)` on a use: the def operand index it is tied to. A byte, as LLVM's
    /// own field is narrower still (four bits, larger indices found through the
    /// inline-asm flag words); the parser and the emitter refuse an index past 255.
    pub tied_def: Option<u8>,
    /// `(s32)`, `(p4)`: a low-level type annotation kept as text.
    pub llt: Option<Sym>,
    /// A `/* ... */` comment after the operand (INLINEASM flag words).
    pub comment: Option<Sym>,
}

impl Operand {
    pub fn new(kind: OperandKind) -> Self {
        Operand {
            kind,
            flags: 0,
            subreg: None,
            tied_def: None,
            llt: None,
            comment: None,
        }
    }
    pub fn reg(reg: Reg, flags: u16) -> Self {
        Operand {
            flags,
            ..Operand::new(OperandKind::Reg(reg))
        }
    }
    pub fn vreg(v: VReg, flags: u16) -> Self {
        Operand::reg(Reg::Virt(v), flags)
    }
    pub fn imm(v: i64) -> Self {
        Operand::new(OperandKind::Imm(v))
    }
    pub fn has(&self, f: u16) -> bool {
        self.flags & f == f
    }
    pub fn set(&mut self, f: u16, on: bool) {
        if on {
            self.flags |= f
        } else {
            self.flags &= !f
        }
    }
    pub fn is_def(&self) -> bool {
        self.is_reg() && self.has(oflag::DEF)
    }
    pub fn is_use(&self) -> bool {
        self.is_reg() && !self.has(oflag::DEF)
    }
    pub fn is_reg(&self) -> bool {
        matches!(self.kind, OperandKind::Reg(_))
    }
    pub fn get_reg(&self) -> Option<Reg> {
        match self.kind {
            OperandKind::Reg(r) => Some(r),
            _ => None,
        }
    }
    /// The virtual register, if this is a virtual register operand.
    pub fn vreg_of(&self) -> Option<VReg> {
        self.get_reg().and_then(Reg::virt)
    }
    pub fn set_reg(&mut self, r: Reg) {
        self.kind = OperandKind::Reg(r);
    }
    pub fn imm_value(&self) -> Option<i64> {
        match self.kind {
            OperandKind::Imm(v) => Some(v),
            _ => None,
        }
    }
}

// What the packed fields buy: every pass over a large function fetches each operand.
const _: () = assert!(core::mem::size_of::<Operand>() == 32);
const _: () = assert!(core::mem::size_of::<Option<SubReg>>() == 4);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_registers_pack_lanes_and_names_apart_and_keep_their_order() {
        let names = [Sym::new(0), Sym::new(7)];
        let all = [
            SubReg::of_lane(0),
            SubReg::of_lane(31),
            SubReg::of_lane(255),
            SubReg::of_name(names[0]),
            SubReg::of_name(names[1]),
        ];
        let kinds = all.map(SubReg::kind);
        assert_eq!(
            kinds,
            [
                SubRegKind::Lane(0),
                SubRegKind::Lane(31),
                SubRegKind::Lane(255),
                SubRegKind::Named(names[0]),
                SubRegKind::Named(names[1]),
            ]
        );
        assert!(all.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(all.map(SubReg::lane)[1..3], [Some(31), Some(255)]);
        assert_eq!(all[3].lane(), None);
        let json = serde_json::to_string(&all[1..4]).unwrap();
        assert_eq!(json, r#"[{"Lane":31},{"Lane":255},{"Named":0}]"#);
        let back: alloc::vec::Vec<SubReg> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, all[1..4]);
    }
}
