//! Machine operands: registers with their flags, immediates, blocks, symbols.

use crate::entity::{entity_impl, Sym};
use serde::{Deserialize, Serialize};

/// A virtual register, numbered as the MIR text numbers it (`%7` is `VReg(7)`).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct VReg(u32);
entity_impl!(VReg, "%");

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
/// `sub_32bit`) are interned.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum SubReg {
    Lane(u8),
    Named(Sym),
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
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum OperandKind {
    Reg(Reg),
    Imm(i64),
    FpImm(FpImm),
    /// `%subreg.NAME`: a sub-register index as a value (REG_SEQUENCE, INSERT_SUBREG).
    SubRegIdx(SubReg),
    /// `%bb.N`.
    Block(super::function::Block),
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

/// One operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operand {
    pub kind: OperandKind,
    pub flags: u16,
    /// `%5.sub1`: the register's sub-register read or written.
    pub subreg: Option<SubReg>,
    /// `(tied-def N)` on a use: the def operand index it is tied to.
    pub tied_def: Option<u16>,
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
