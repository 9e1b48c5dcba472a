//! ORI: the instruction form `ptxas` optimizes in, as the GeneralOptimize passes see it.
//!
//! ```text
//!  ori::Module { header, variables, functions }
//!  Function = registers (RegInfo side table: file, width, constraint word, def anchor,
//!                        def/use counts)
//!           + blocks [Block { label, insts: [anchor (class 97), ...] }]   (layout order)
//!           + insts (storage): Inst { class, opcode, operands, guard, origin }
//!  Operand  = kind (reg / imm / symbol / special register / address / vector / block)
//!           + flag word (0x100 propagated, 0x200 deferred cleanup, 0x400 propagated
//!             under a predicate) + type nibble + neg / abs modifiers
//!           + immediate constraint bits (the spec's 0x1C00 group, kept apart)
//! ```
//!
//! The shape is PTX's (an instruction keeps its dotted opcode and PTX operand order,
//! so ORI prints back as PTX that `ptxas` accepts); what ORI adds is what the spec's
//! GeneralOptimize reads:
//!
//! * an opcode **class** per instruction, with the spec's number where the spec names
//!   the class (97 definition anchor, 18 set-predicate, 124 conditional select, 95
//!   exit, 119 shuffle, 139 / 110 moves, 98 local load, 130 packed-half compare, 52
//!   no-op) and a number of our own (300 and up) for the rest; [`Class`];
//! * **predication** in the opcode word: bit 12 (0x1000) when a guard predicate
//!   controls the instruction, bit 13 (0x2000) when the guard is negated — the spec
//!   masks both off (`& ~0x3000`) before comparing classes;
//! * per-operand **flag bits** 0x100 / 0x200 / 0x400 (all clear after lowering:
//!   GeneralOptimize sets them), a **type nibble** (0 untyped bits or predicate,
//!   1 integer, 2 float, 10 vector group — never foldable) and **neg / abs**
//!   modifiers: lowering turns `sub.f32 d, a, b` into `add.f32 d, a, -b` and
//!   `neg.f32` / `abs.f32` into moves with a modifier, as ptxas folds them;
//! * a **constraint word per register** (0 = nothing blocks folding), see [`constraint`];
//! * **definition anchors**: every block starts with a class-97 instruction whose
//!   operand is the block's index, and every register records its single defining
//!   instruction when it has exactly one.
//!
//! * **scopes**: each instruction and register records the `{ }` scope it was written
//!   / declared in (0 is the body); the printer reopens scopes around their members
//!   with their declarations, and rewrites that would name a register outside its
//!   scope are not made ([`Function::visible`]).
//!
//! Invariants ([`verify`] checks them, rule by rule): block 0 is the entry; each block's first instruction is its anchor and
//! no other instruction is class 97; branch targets are blocks, never names; every
//! register operand names an entry of the register table; printing then parsing and
//! lowering again gives the same instructions, classes and flags.

pub mod edit;
pub mod print;
pub mod regs;
pub mod spelling;
pub mod verify;

use crate::entity::{entity_impl, PrimaryMap};
use crate::ptx::ast::{self as ptx, Imm};
use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};
pub use smol_str::SmolStr;

/// An instruction, by storage index.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InstId(u32);
entity_impl!(InstId, "i");

/// A register, by table index.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RegId(u32);
entity_impl!(RegId, "R");

/// A block, by layout index (block 0 is the entry). Serialized, displayed and
/// debug-printed as the plain number, as narrations and annotations have always
/// named blocks ("block 3", "bb 3").
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BlockId(u32);
entity_impl!(BlockId);

impl BlockId {
    /// Block 0, the function's entry.
    pub const ENTRY: BlockId = BlockId(0);
}

impl core::fmt::Display for BlockId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.0, f)
    }
}

impl core::fmt::Debug for BlockId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.0, f)
    }
}

/// Declares [`Class`] and [`Class::ALL`] (every class in declaration order) from one
/// list, so the two cannot drift apart.
macro_rules! classes {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        /// Opcode classes. `number()` is the spec's number where the spec names one.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub enum Class {
            $($(#[$doc])* $name,)*
        }

        impl Class {
            /// Every class, in declaration order (`ALL[c as usize] == c`).
            pub const ALL: &'static [Class] = &[$(Class::$name,)*];
        }
    };
}

classes! {
    /// 97: definition anchor at the top of every block (operand: the block index).
    Anchor,
    /// 18: set a predicate from a comparison (`setp`).
    SetPred,
    /// 124: conditional select (`selp`).
    Select,
    /// 95: leaves the function (`ret`, `exit`): the terminator class.
    Exit,
    /// 119: warp shuffle.
    Shuffle,
    /// 139: register or immediate move (also `neg`/`abs` as a move with a modifier).
    Mov,
    /// 110: move from a special register or of a symbol's address.
    MovSpecial,
    /// 98: load from local memory.
    LoadLocal,
    /// 130: packed half-precision compare.
    HalfSet2,
    /// 52: no operation.
    Nop,
    // Classes of our own numbering (the spec does not name these).
    IntAdd,
    IntMul,
    Logic,
    Shift,
    FloatAdd,
    FloatMul,
    FloatFma,
    Convert,
    ConvertAddress,
    Load,
    Store,
    Texture,
    Barrier,
    Branch,
    Matrix,
    MinMax,
    Divide,
    Call,
    /// A directive kept where it stood (`.loc`, a statement `.pragma`,
    /// `.callprototype`): no operation, printed back as written.
    Directive,
    Other,
}

impl Class {
    /// The class number (the spec's where it gives one).
    pub fn number(self) -> u16 {
        use Class::*;
        match self {
            Anchor => 97,
            SetPred => 18,
            Select => 124,
            Exit => 95,
            Shuffle => 119,
            Mov => 139,
            MovSpecial => 110,
            LoadLocal => 98,
            HalfSet2 => 130,
            Nop => 52,
            IntAdd => 300,
            IntMul => 301,
            Logic => 302,
            Shift => 303,
            FloatAdd => 304,
            FloatMul => 305,
            FloatFma => 306,
            Convert => 307,
            ConvertAddress => 308,
            Load => 309,
            Store => 310,
            Texture => 311,
            Barrier => 312,
            Branch => 313,
            Matrix => 314,
            MinMax => 315,
            Divide => 316,
            Call => 317,
            Directive => 318,
            Other => 399,
        }
    }
    /// True when the number comes from the spec page.
    pub fn from_spec(self) -> bool {
        self.number() < 300
    }
    pub fn name(self) -> &'static str {
        use Class::*;
        match self {
            Anchor => "ANCHOR",
            SetPred => "SETP",
            Select => "SELP",
            Exit => "EXIT",
            Shuffle => "SHFL",
            Mov => "MOV",
            MovSpecial => "MOV.S",
            LoadLocal => "LDL",
            HalfSet2 => "HSET2",
            Nop => "NOP",
            IntAdd => "IADD",
            IntMul => "IMUL",
            Logic => "LOP",
            Shift => "SHF",
            FloatAdd => "FADD",
            FloatMul => "FMUL",
            FloatFma => "FFMA",
            Convert => "CVT",
            ConvertAddress => "CVTA",
            Load => "LD",
            Store => "ST",
            Texture => "TEX",
            Barrier => "BAR",
            Branch => "BRA",
            Matrix => "MMA",
            MinMax => "MNMX",
            Divide => "DIV",
            Call => "CALL",
            Directive => "DIR",
            Other => "OTHER",
        }
    }
}

/// Predication bits of the opcode word.
pub const PRED_GUARDED: u16 = 0x1000;
pub const PRED_NEGATED: u16 = 0x2000;

/// Operand flag bits (the spec's numbers).
pub mod flag {
    /// Copy propagation replaced this destination's uses.
    pub const PROPAGATED: u32 = 0x100;
    /// Cleanup deferred to a later pass.
    pub const DEFERRED_CLEANUP: u32 = 0x200;
    /// Propagated, but only under the guarding predicate.
    pub const PROPAGATED_UNDER_PRED: u32 = 0x400;
    /// Modifier bits as the spec tests them (`& 0x70`): neg, abs, sat.
    pub const NEG: u32 = 0x10;
    pub const ABS: u32 = 0x20;
    pub const SAT: u32 = 0x40;
}

/// Type nibbles.
pub mod ty {
    pub const UNTYPED: u8 = 0;
    pub const INT: u8 = 1;
    pub const FLOAT: u8 = 2;
    /// A `{...}` group: never foldable.
    pub const VECTOR: u8 = 10;
}

/// Immediate constraint bits (the spec's bits 10..12 of an operand, mask 0x1C00; kept
/// in their own field because bit 10 doubles as the 0x400 mark on predicates).
pub mod imm_constraint {
    /// Does not fit the narrow (20-bit signed) immediate slot.
    pub const WIDE: u8 = 1;
    /// Negative: needs sign extension.
    pub const SIGN_EXTEND: u8 = 2;
    /// A symbol address: bank-relative, not absolute.
    pub const BANK_RELATIVE: u8 = 4;
}

/// Per-register constraint bits (`0` = nothing blocks folding).
pub mod constraint {
    /// 64-bit: lives in an aligned register pair.
    pub const PAIR: u32 = 1;
    /// 128-bit: an aligned quad.
    pub const QUAD: u32 = 2;
    /// A lane of a `{...}` group: must stay in a consecutive, aligned run.
    pub const VECTOR_LANE: u32 = 4;
    /// Read or written by inline asm.
    pub const ASM: u32 = 8;
    /// Defined by more than one instruction.
    pub const MULTI_DEF: u32 = 16;
    /// A `.reg` return parameter (`.func (.reg .b32 %ret) f`): the caller reads it
    /// after `ret`, so its definitions are live without a use in the body.
    pub const LIVE_OUT: u32 = 32;
}

/// What an operand refers to.
///
/// Kept to 24 bytes (an [`Operand`] to 32): the GeneralOptimize bundles sweep every
/// operand of a block on each round, so the rare wide kinds (addresses, names, groups)
/// live behind one pointer and the common ones (registers, immediates) stay inline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum OpKind {
    Reg(RegId),
    Imm(Imm),
    /// A symbol (variable, parameter, function name).
    Sym(Box<str>),
    /// A special register (`%tid.x`).
    Special(Box<str>),
    /// `[base+offset]`.
    Addr(Box<Address>),
    Vec(Box<[Operand]>),
    /// A branch target.
    Block(BlockId),
    /// `d|p`: a dual result.
    Pair(Box<Operand>, Box<Operand>),
    /// `!p`: a negated predicate source.
    Not(Box<Operand>),
    /// `(a, b)`: a call list.
    Paren(Box<[Operand]>),
}

/// An address operand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Address {
    pub base: AddrBase,
    pub offset: i64,
    /// Further address terms (`[a+b]` forms), when there are any.
    pub extra: Vec<Operand>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AddrBase {
    Reg(RegId),
    Sym(Box<str>),
    None,
}

/// One operand with its ORI annotations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Operand {
    pub kind: OpKind,
    /// 0x100 / 0x200 / 0x400 marks (see [`flag`]).
    pub flags: u32,
    /// See [`ty`].
    pub ty: u8,
    pub neg: bool,
    pub abs: bool,
    /// See [`imm_constraint`].
    pub imm_constraint: u8,
}

impl Operand {
    pub fn new(kind: OpKind, ty: u8) -> Self {
        Operand {
            kind,
            flags: 0,
            ty,
            neg: false,
            abs: false,
            imm_constraint: 0,
        }
    }
    pub fn reg(&self) -> Option<RegId> {
        match self.kind {
            OpKind::Reg(r) => Some(r),
            _ => None,
        }
    }
    /// The flag word as the spec packs the low bits: marks plus modifier bits.
    pub fn flag_word(&self) -> u32 {
        let mut w = self.flags;
        if self.neg {
            w |= flag::NEG;
        }
        if self.abs {
            w |= flag::ABS;
        }
        w
    }
}

/// An instruction's operands: up to three inline.
pub type Operands = smallvec::SmallVec<[Operand; 3]>;

/// Where an instruction came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    Ptx,
    /// Inside inline-asm block number N (printing regroups consecutive members).
    InlineAsm(u32),
    /// Inserted by lowering (anchors).
    Lowering,
}

/// One ORI instruction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inst {
    pub class: Class,
    /// PTX opcode text (after canonicalization: `sub.f32` is `add.f32` with a negated
    /// second source). Kept inside the instruction (up to 23 bytes, which is nearly
    /// every opcode; longer ones share one allocation), so reading it costs no trip to
    /// a separate heap block: on a 100k-instruction function those trips, one per
    /// store the local-memory promotion looked at, were most of phase 37's time and
    /// varied with where the allocator had put each string.
    pub opcode: SmolStr,
    pub operands: Operands,
    /// How many leading operands are destinations.
    pub ndst: u8,
    /// Guard predicate and whether it is negated.
    pub guard: Option<(RegId, bool)>,
    pub origin: Origin,
    /// The `{ }` scope the instruction was written in (0: the function body; see
    /// [`Function::scopes`]).
    pub scope: u32,
    /// The source line of the PTX statement it came from (0: none, or not known);
    /// `ptx-out` prints it there ([`ptx::Lines`]). A block anchor carries its label's.
    pub line: u32,
}

impl Inst {
    /// The opcode word: class number with the predication bits.
    pub fn opcode_word(&self) -> u16 {
        let mut w = self.class.number();
        if let Some((_, neg)) = self.guard {
            w |= PRED_GUARDED;
            if neg {
                w |= PRED_NEGATED;
            }
        }
        w
    }
    pub fn dsts(&self) -> &[Operand] {
        &self.operands[..(self.ndst as usize).min(self.operands.len())]
    }
    pub fn srcs(&self) -> &[Operand] {
        &self.operands[(self.ndst as usize).min(self.operands.len())..]
    }
}

/// A register table entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegInfo {
    /// The PTX name (`%r3`).
    pub name: String,
    /// The `.reg` type word (`.b32`, `.pred`, `.f64`). PTX's register types are a
    /// short fixed list ([`type_word`]), kept as static text: comparing two registers'
    /// types then reads no heap text per register.
    pub decl: Cow<'static, str>,
    pub bits: u32,
    /// See [`constraint`].
    pub constraint: u32,
    /// The single defining instruction, when there is exactly one.
    pub def_anchor: Option<InstId>,
    pub defs: u32,
    pub uses: u32,
    /// The `{ }` scope that declares the register (0: the function body). A name
    /// declared again in an inner scope is another register.
    pub scope: u32,
}

impl RegInfo {
    /// A `.pred` register: lowering gives predicates, and only them, a width of 1 bit,
    /// so this reads no text.
    pub fn is_pred(&self) -> bool {
        self.bits == 1
    }
}

/// A `.reg` type word, as static text when it is one of PTX's register types.
pub fn type_word(t: &str) -> Cow<'static, str> {
    const TYPES: [&str; 21] = [
        ".pred", ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8",
        ".s16", ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".tf32",
    ];
    match TYPES.iter().find(|&&k| k == t) {
        Some(&k) => Cow::Borrowed(k),
        None => Cow::Owned(String::from(t)),
    }
}

/// A block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Block {
    /// The PTX label, when the source had one (or a branch needs one).
    pub label: Option<String>,
    pub insts: Vec<InstId>,
}

/// One function.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Function {
    pub linkage: Vec<String>,
    pub kind: ptx::FuncKind,
    pub rets: Vec<ptx::Param>,
    pub name: String,
    pub params: Option<Vec<ptx::Param>>,
    pub perf: Vec<(String, Vec<u32>)>,
    /// `.reg` declarations as written (printing re-emits them).
    pub reg_decls: Vec<ptx::RegDecl>,
    /// Variables declared in the body (outside any inner `{ }` scope).
    pub locals: Vec<ptx::VarDecl>,
    /// Source lines of `reg_decls` and of `locals` (0 where not known).
    pub reg_decl_lines: Vec<u32>,
    pub local_lines: Vec<u32>,
    /// Source line of the body's closing `}` (0 where not known).
    pub close_line: u32,
    /// `{ }` scopes; entry 0 stands for the body itself (its declarations are
    /// `reg_decls` and `locals`).
    pub scopes: Vec<Scope>,
    pub regs: PrimaryMap<RegId, RegInfo>,
    /// Blocks in layout order (block 0 is the entry).
    pub blocks: PrimaryMap<BlockId, Block>,
    pub insts: PrimaryMap<InstId, Inst>,
    /// A declaration without a body.
    pub is_decl: bool,
    /// While a traced pass runs: what it changed since its last step
    /// ([`edit::Journal`]); none otherwise.
    #[serde(skip)]
    pub journal: Option<Box<edit::Journal>>,
}

impl Function {
    /// Instructions in layout order with their block.
    pub fn layout(&self) -> impl Iterator<Item = (BlockId, InstId)> + '_ {
        self.blocks
            .iter()
            .flat_map(|(b, blk)| blk.insts.iter().map(move |&i| (b, i)))
    }
    /// True when register `r` can be named by an instruction of scope `s`: it is
    /// declared in `s` or a scope around it, and no scope in between declares the
    /// same name again (which would shadow it).
    pub fn visible(&self, r: RegId, s: u32) -> bool {
        let home = self.regs[r].scope;
        let mut cur = s;
        loop {
            if cur == home {
                return true;
            }
            let Some(sc) = self.scopes.get(cur as usize).filter(|_| cur != 0) else {
                return false;
            };
            if sc.declares(&self.regs[r].name) {
                return false;
            }
            cur = sc.parent;
        }
    }
    pub fn reg_by_name(&self, name: &str) -> Option<RegId> {
        self.regs
            .iter()
            .find(|(_, r)| r.name == name)
            .map(|(id, _)| id)
    }
}

/// A `{ }` scope of a function body.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
pub struct Scope {
    /// The scope around it (0: the body).
    pub parent: u32,
    /// Its `.reg` and variable declarations, printed after its `{`.
    pub decls: Vec<ptx::Stmt>,
    /// The inline-asm block it was written in, if any.
    pub asm: Option<u32>,
}

impl Scope {
    /// True when the scope declares register `name` (singly or in a `%r<N>` range).
    pub fn declares(&self, name: &str) -> bool {
        self.decls.iter().any(|d| match d {
            ptx::Stmt::Reg(r) => r.names.iter().any(|(n, c)| match c {
                None => n == name,
                Some(c) => name
                    .strip_prefix(n.as_str())
                    .and_then(|k| k.parse::<u32>().ok())
                    .is_some_and(|k| k < *c && !name[n.len()..].starts_with('+')),
            }),
            _ => false,
        })
    }
}

/// A whole ORI module.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Module {
    pub version: Option<String>,
    pub target: Vec<String>,
    pub address_size: Option<u32>,
    /// Module-level variables and pragmas, in order, between functions.
    pub items: Vec<Item>,
    /// Source lines of the header directives and of each item, as
    /// [`ptx::Module::header_lines`] and [`ptx::Module::item_lines`].
    pub header_lines: ptx::Lines,
    pub item_lines: ptx::Lines,
    /// The PTX text it was lowered from and its first plain print, for ptx-out's
    /// respelling ([`spelling`]); none for a module built another way.
    #[serde(skip)]
    pub spelling: Option<alloc::sync::Arc<spelling::Spelling>>,
}

// A module holds few items and walks them rarely; boxing the function (the large
// variant since it carries its declarations' source lines) would only add a pointer.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Item {
    Var(ptx::VarDecl),
    Pragma(Vec<String>),
    /// A module-level directive kept as written (`.file`, `.section`).
    Directive(Vec<String>),
    Func(Function),
}

impl Module {
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.items.iter().filter_map(|i| match i {
            Item::Func(f) => Some(f),
            _ => None,
        })
    }
}
