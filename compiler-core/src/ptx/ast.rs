//! The PTX syntax tree: what the parser builds, the printer writes and `ptx-emit`
//! produces.
//!
//! The tree is close to the text on purpose. Instructions keep their full dotted
//! opcode (`ld.global.nc.v4.f32`) and their operands as written; declarations keep
//! their directive words in order. Meaning (which type, which state space, which
//! semantics) is decoded on demand by [`super::op`], so that anything the parser accepts
//! prints back, and `print(parse(text))` is a fixpoint.

use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Where things stood in the source text: 1-based line numbers, 0 where unknown (a
/// tree built by a pass, a statement inside a `{ }` scope). Layout, not meaning: any
/// two compare equal, so trees compare by what they say. The printer places each
/// element on its line when it can (blank lines stand in for comments it does not
/// keep), so text that went in prints back with its line layout; `ptxas` names
/// demoted `.shared` variables after their line (`$___name__N`), so the cubin of
/// unchanged PTX stays byte-identical.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Lines(pub Vec<u32>);

impl PartialEq for Lines {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Lines {
    /// The line of element `k` (0 when unknown).
    pub fn get(&self, k: usize) -> u32 {
        self.0.get(k).copied().unwrap_or(0)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The text a module was read from. Not part of its meaning (any two compare equal):
/// ptx-out uses it to give back, as written, every line the passes left alone, because
/// a `-lineinfo` cubin embeds the PTX lines ptxas read (`.nv_debug_ptx_txt`), so the
/// spelling of a line (its spaces, `[ %rd1 + 0 ]` for `[%rd1]`) is in the cubin.
#[derive(Clone, Default)]
pub struct Source {
    pub text: Option<alloc::sync::Arc<str>>,
    /// The module prints as `text`, verbatim: set by ptx-out on the module it reads
    /// back from its own (respelled) output, never by the reader.
    pub prints_as_read: bool,
}

impl PartialEq for Source {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl core::fmt::Debug for Source {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.text {
            Some(t) => write!(f, "Source({} bytes)", t.len()),
            None => f.write_str("Source(none)"),
        }
    }
}

/// A PTX file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Module {
    /// `.version major.minor`, as written (`"7.8"`).
    pub version: Option<String>,
    /// `.target` words (`sm_90`, `texmode_independent`, ...).
    pub target: Vec<String>,
    pub address_size: Option<u32>,
    pub items: Vec<Item>,
    /// Source lines of `.version`, `.target` and `.address_size`, in that order.
    pub header_lines: Lines,
    /// Source line of each item (where its first word stood).
    pub item_lines: Lines,
    /// The text it was read from (none for a module a pass built).
    #[serde(skip)]
    pub source: Source,
}

/// A module-level item, in file order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Item {
    Func(Function),
    Var(VarDecl),
    /// `.pragma "..." ;` at module scope (strings as written, without quotes).
    Pragma(Vec<String>),
    /// A directive kept as written but not interpreted: `.file 1 "k.cu"`, a
    /// `.section .debug_info { ... }` block. One entry per source line, its tokens
    /// joined by single spaces. `cuobjdump -ptx`'s `Fatbin ptx code:` banner lines are
    /// kept here too, each line as written.
    Directive(Vec<String>),
    /// A module-level `.reg` declaration (old nvopencc and OptiX output): its registers
    /// are registers of every function.
    Reg(RegDecl),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FuncKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

/// `.entry` or `.func`, with or without a body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    /// Linkage words before `.entry`/`.func` (`.visible`, `.extern`, `.weak`).
    pub linkage: Vec<String>,
    pub kind: FuncKind,
    /// `.func (.param .b32 func_retval0) name`: return parameters.
    pub rets: Vec<Param>,
    pub name: String,
    /// None: no parameter list was written (`.func name`).
    pub params: Option<Vec<Param>>,
    /// Performance directives and `.noreturn` between the signature and the body:
    /// (`.maxntid`, [256, 1, 1]).
    pub perf: Vec<(String, Vec<u32>)>,
    /// None for a declaration ending in `;`.
    pub body: Option<Vec<Stmt>>,
    /// Source line of each statement of `body` (not of statements inside its scopes),
    /// then of the body's closing `}`.
    pub lines: Lines,
}

/// A parameter: its directive words in order, then the name and optional array size.
/// `.param .u64 .ptr .global .align 1 p` is `words = [".param", ".u64", ".ptr",
/// ".global", ".align", "1"]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub words: Vec<String>,
    pub name: String,
    pub array: Option<u32>,
}

impl Param {
    /// The first word that is a PTX fundamental type (`.u64`, `.f32`, `.b8`, ...).
    pub fn ty(&self) -> Option<&str> {
        type_word_of(&self.words)
    }
    /// `.align N`, if written.
    pub fn align(&self) -> Option<u32> {
        align_of(&self.words)
    }
    /// `.ptr` was written.
    pub fn is_ptr(&self) -> bool {
        self.words.iter().any(|w| w == ".ptr")
    }
}

/// The first of `words` that is a PTX fundamental type.
fn type_word_of(words: &[String]) -> Option<&str> {
    words.iter().map(String::as_str).find(|w| is_type_word(w))
}

/// The number after `.align` among directive words, if written.
fn align_of(words: &[String]) -> Option<u32> {
    let i = words.iter().position(|w| w == ".align")?;
    words.get(i + 1)?.parse().ok()
}

/// True for PTX fundamental type words (`.pred`, `.b8` .. `.b128`, `.u*`, `.s*`, `.f*`).
pub fn is_type_word(w: &str) -> bool {
    matches!(
        w,
        ".pred"
            | ".b8"
            | ".b16"
            | ".b32"
            | ".b64"
            | ".b128"
            | ".u8"
            | ".u16"
            | ".u32"
            | ".u64"
            | ".s8"
            | ".s16"
            | ".s32"
            | ".s64"
            | ".f16"
            | ".f16x2"
            | ".bf16"
            | ".bf16x2"
            | ".f32"
            | ".f64"
            | ".texref"
            | ".samplerref"
            | ".surfref"
    )
}

/// A variable: `.shared .align 4 .b8 sdata[1024];`, `.global .u32 x = 5;`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VarDecl {
    /// Directive words before the name (state space first), with `.align`'s number.
    pub words: Vec<String>,
    pub name: String,
    /// `[N]` per dimension; `[]` is None.
    pub dims: Vec<Option<u32>>,
    /// `= ...`: the initializer's tokens as written.
    pub init: Option<Vec<String>>,
}

impl VarDecl {
    /// The state space (`.shared`, `.global`, `.local`, `.const`, ...): the first
    /// word that is one.
    pub fn space(&self) -> Option<&str> {
        self.words.iter().map(String::as_str).find(|w| {
            matches!(
                *w,
                ".shared" | ".global" | ".local" | ".const" | ".param" | ".tex"
            )
        })
    }
    /// The first word that is a PTX fundamental type.
    pub fn ty(&self) -> Option<&str> {
        type_word_of(&self.words)
    }
    /// `.align N`, if written.
    pub fn align(&self) -> Option<u32> {
        align_of(&self.words)
    }
    /// Size in bytes (element size times every dimension), when all are known.
    pub fn size_bytes(&self) -> Option<u64> {
        let mut n = type_bytes(self.ty()?)? as u64;
        for d in &self.dims {
            n = n.checked_mul((*d)? as u64)?;
        }
        Some(n)
    }
}

/// Bytes of a fundamental type word (`.pred` counts as 1).
pub fn type_bytes(ty: &str) -> Option<u32> {
    Some(match ty {
        ".pred" | ".b8" | ".u8" | ".s8" => 1,
        ".b16" | ".u16" | ".s16" | ".f16" | ".bf16" => 2,
        ".b32" | ".u32" | ".s32" | ".f32" | ".f16x2" | ".bf16x2" => 4,
        ".b64" | ".u64" | ".s64" | ".f64" => 8,
        ".b128" => 16,
        _ => return None,
    })
}

/// `.reg .b32 %r<10>, %x;`
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RegDecl {
    /// Words between `.reg` and the names (`.b32`, or `.v2 .f32`).
    pub words: Vec<String>,
    /// Each name with its `<N>` count, if it declares a numbered range.
    pub names: Vec<(String, Option<u32>)>,
}

/// A statement of a function body.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Stmt {
    Reg(RegDecl),
    Var(VarDecl),
    Label(String),
    Inst(Inst),
    /// `.pragma "nounroll";`
    Pragma(Vec<String>),
    /// The statements between `// begin inline asm` and `// end inline asm`.
    InlineAsm(Vec<Stmt>),
    /// A nested `{ ... }` scope.
    Scope(Vec<Stmt>),
    /// A full-line `//` comment (text after the slashes, trimmed).
    Comment(String),
    /// A statement-level directive kept in place but not interpreted: `.loc 1 7 3`,
    /// `proto: .callprototype ()_ (.param .b32 _);`, `ts: .branchtargets L1, L2;`.
    /// One entry per source line, its tokens joined by single spaces.
    Directive(Vec<String>),
}

/// `@%p` / `@!%p`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guard {
    pub negated: bool,
    pub reg: String,
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inst {
    pub guard: Option<Guard>,
    /// The full dotted opcode, `ld.global.nc.v4.f32`.
    pub opcode: String,
    pub operands: Vec<Operand>,
}

impl Inst {
    pub fn new(opcode: impl Into<String>, operands: Vec<Operand>) -> Self {
        Inst {
            guard: None,
            opcode: opcode.into(),
            operands,
        }
    }
    /// The opcode's dot-separated parts (`["ld", "global", "nc", "v4", "f32"]`).
    pub fn parts(&self) -> impl Iterator<Item = &str> {
        self.opcode.split('.')
    }
}

/// An immediate, keeping the spelling class so that printing is stable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Imm {
    /// Decimal integer.
    Int(i64),
    /// `0x...` hexadecimal integer (bit pattern).
    Hex(u64),
    /// `0fXXXXXXXX`: a single-precision bit pattern.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: a double-precision bit pattern.
    F64(u64),
}

impl Imm {
    /// The value as a 64-bit pattern.
    pub fn bits(self) -> u64 {
        match self {
            Imm::Int(v) => v as u64,
            Imm::Hex(v) | Imm::F64(v) => v,
            Imm::F32(v) => v as u64,
        }
    }
}

/// Where an address points from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum AddrBase {
    Reg(String),
    Sym(String),
    /// `[1024]`: an absolute address (the offset holds it).
    None,
}

/// An operand as written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Operand {
    /// `%r1`, `%tid.x`, `%SP`.
    Reg(String),
    Imm(Imm),
    /// A symbol or label name (`_Z5saxpy_param_0`, `$L__BB0_2`, `_`).
    Sym(String),
    /// A symbol's address plus a constant, as an operand (`$stack+1568`, OptiX 2).
    SymOffset(String, i64),
    /// `[base+offset]`, optionally followed by more operands inside the brackets
    /// (`[%rd1, {%f4, %f7}]` for texture fetches).
    Addr {
        base: AddrBase,
        offset: i64,
        extra: Vec<Operand>,
    },
    /// `{a, b, ...}`.
    Vec(Vec<Operand>),
    /// `%r|%p`: a dual result.
    Pair(alloc::boxed::Box<Operand>, alloc::boxed::Box<Operand>),
    /// `!%p`: a negated predicate source.
    Not(alloc::boxed::Box<Operand>),
    /// `(a, b)`: a call's argument or result list.
    Paren(Vec<Operand>),
}

impl Operand {
    pub fn reg(name: impl Into<String>) -> Self {
        Operand::Reg(name.into())
    }
    pub fn int(v: i64) -> Self {
        Operand::Imm(Imm::Int(v))
    }
    pub fn sym(name: impl Into<String>) -> Self {
        Operand::Sym(name.into())
    }
    pub fn addr_sym(name: impl Into<String>, offset: i64) -> Self {
        Operand::Addr {
            base: AddrBase::Sym(name.into()),
            offset,
            extra: Vec::new(),
        }
    }
    pub fn addr_reg(name: impl Into<String>, offset: i64) -> Self {
        Operand::Addr {
            base: AddrBase::Reg(name.into()),
            offset,
            extra: Vec::new(),
        }
    }
}
