//! `INLINEASM`: the PTX in the asm string, for the handful of instructions inline asm in
//! CUDA code actually uses, bound to the MIR operand list.
//!
//! ```text
//!  INLINEASM &"add.u32 $0, $0, $2;", 1, 262154, def %0, 262153, %2, 2147483657, %3(tied-def 3)
//!                                      └─ $0 ───────────┘ └─ $1 ────┘ └─ $2, tied to $0 ──┘
//! ```
//!
//! After the asm string and the extra-info immediate, operands come in groups: a flag
//! word (`kind = flag & 7`: 1 use, 2 def, 3 early-clobber def, 4 clobber, 5 immediate;
//! `(flag >> 3) & 0x1fff` registers follow; bit 31 marks a use tied to def group
//! `(flag >> 16) & 0x7fff`). Group N is the asm's `$N`. A tied use and its def share one
//! value: the def starts with the use's value (`"+r"`), and `$tied_use` names the same
//! register as `$def`. An untied def starts as poison.
//!
//! Supported instructions (anything else is `Unsupported`, never a panic):
//! `add sub` (`.s/.u/.b 16/32/64`, `.f32` with `.rn`/`.ftz`), `mul.lo mul.hi mul.wide`,
//! `mul.f32`, `fma.rn.f32`, `and or xor not`, `shl shr`, `shf.{l,r}.{wrap,clamp}.b32`,
//! `mov`, `tex.2d.v4.f32.f32`, `tex.1d.v4.s32.s32`. Operands: `$N`, integer literals,
//! `0fXXXXXXXX` float literals, `{..}` vectors and `[..]` addresses (texture fetches).

use super::compile::{Dst, FOp, OperandResolver, Src, TexKind};
use super::exec::{f32_op, fma32_op};
use super::error::InterpError;
use super::float::{self, mask};
use crate::mir::operand::OperandKind;
use crate::mir::{InstData, Operand};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// An asm operand inside the PTX text.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AOp {
    /// `$N`, already redirected to its value index (tied uses share their def's).
    Val(usize),
    Imm(u128),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum AsmIntOp {
    Add,
    Sub,
    MulLo,
    MulHi,
    /// `mul.wide`: the full double-width product.
    MulWide,
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// An integer type suffix: `.s32` is signed 32 bits, `.u16` / `.b16` unsigned 16.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct IntTy {
    signed: bool,
    bits: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum AsmInst {
    Int {
        op: AsmIntOp,
        ty: IntTy,
        d: usize,
        a: AOp,
        b: AOp,
    },
    Not {
        bits: u32,
        d: usize,
        a: AOp,
    },
    Mov {
        bits: u32,
        d: usize,
        a: AOp,
    },
    Shf {
        left: bool,
        wrap: bool,
        d: usize,
        a: AOp,
        b: AOp,
        c: AOp,
    },
    F32 {
        op: FOp,
        ftz: bool,
        d: usize,
        a: AOp,
        b: AOp,
    },
    Fma32 {
        ftz: bool,
        d: usize,
        a: AOp,
        b: AOp,
        c: AOp,
    },
    Tex {
        kind: TexKind,
        ds: [usize; 4],
        handle: AOp,
        coords: Vec<AOp>,
    },
}

/// A compiled inline-asm statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AsmBlock {
    /// Initial value of each value index.
    pub init: Vec<Src>,
    /// Defs written back at the end: (value index, register).
    pub outputs: Vec<(usize, Dst)>,
    body: Vec<AsmInst>,
}

const KIND_USE: i64 = 1;
const KIND_DEF: i64 = 2;
const KIND_EC_DEF: i64 = 3;
const KIND_CLOBBER: i64 = 4;
const KIND_IMM: i64 = 5;

fn unsupported(reason: impl Into<String>) -> InterpError {
    InterpError::unsupported("INLINEASM", reason)
}

/// Decodes the INLINEASM operand list and the PTX in its string.
pub(crate) fn compile<R: OperandResolver>(
    r: &mut R,
    data: &InstData,
) -> Result<AsmBlock, InterpError> {
    let ops = &data.operands;
    let text = ops
        .first()
        .and_then(|o| r.string_of(o))
        .ok_or_else(|| InterpError::malformed("INLINEASM must start with its asm string"))?;
    let text = unescape(text);
    // Groups: (kind, operand, tied def group).
    let mut groups: Vec<(i64, &Operand, Option<usize>)> = Vec::new();
    let mut i = 2;
    while i < ops.len() {
        let op = &ops[i];
        match op.kind {
            OperandKind::Imm(flagword) => {
                let kind = flagword & 7;
                let n = ((flagword >> 3) & 0x1fff) as usize;
                let members = ops.get(i + 1..i + 1 + n).ok_or_else(|| {
                    InterpError::malformed("INLINEASM flag word announces missing operands")
                })?;
                match kind {
                    KIND_CLOBBER => {}
                    KIND_USE | KIND_DEF | KIND_EC_DEF | KIND_IMM => {
                        let [m] = members else {
                            return Err(unsupported(format!(
                                "an asm operand made of {n} registers"
                            )));
                        };
                        let tied = (kind == KIND_USE && flagword & (1 << 31) != 0)
                            .then_some(((flagword >> 16) & 0x7fff) as usize);
                        groups.push((kind, m, tied));
                    }
                    _ => return Err(unsupported("memory or function asm operands")),
                }
                i += 1 + n;
            }
            OperandKind::Verbatim(_) => break,
            OperandKind::Reg(_) if op.has(crate::mir::oflag::IMPLICIT) => i += 1,
            _ => {
                return Err(InterpError::malformed(
                    "INLINEASM operand without a flag word",
                ))
            }
        }
    }
    let n = groups.len();
    let mut alias: Vec<usize> = (0..n).collect();
    let mut init = Vec::with_capacity(n);
    let mut outputs = Vec::new();
    for (k, &(kind, op, tied)) in groups.iter().enumerate() {
        match kind {
            KIND_DEF | KIND_EC_DEF => {
                init.push(Src::Poison);
                outputs.push((k, r.dst_of(op)?));
            }
            _ => {
                init.push(r.src_of(op)?);
                if let Some(t) = tied {
                    if t >= n || !matches!(groups[t].0, KIND_DEF | KIND_EC_DEF) {
                        return Err(InterpError::malformed(format!(
                            "asm operand ${k} is tied to ${t}, which is not a def"
                        )));
                    }
                    alias[k] = t;
                }
            }
        }
    }
    // A def starts with the value of the use tied to it.
    for k in 0..n {
        if alias[k] != k {
            init[alias[k]] = init[k];
        }
    }
    let body = parse_body(&text, &alias)?;
    Ok(AsmBlock {
        init,
        outputs,
        body,
    })
}

/// LLVM's MIR string escapes: `\XX` hex bytes and `\\`.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 2 < b.len() {
            let hex = core::str::from_utf8(&b[i + 1..i + 3]).ok();
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Splits at top-level commas (outside `{}` and `[]`).
pub(crate) fn split_args(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '{' | '[' => depth += 1,
            '}' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    out
}

struct Ctx<'a> {
    alias: &'a [usize],
    stmt: &'a str,
}

impl Ctx<'_> {
    fn err(&self, why: &str) -> InterpError {
        unsupported(format!("{why} in `{}`", self.stmt))
    }

    fn operand(&self, s: &str) -> Result<AOp, InterpError> {
        let s = s.trim();
        if let Some(n) = s.strip_prefix('$') {
            let n: usize = n.parse().map_err(|_| self.err("operand reference"))?;
            let v = *self.alias.get(n).ok_or_else(|| {
                InterpError::malformed(format!("asm names ${n}, which does not exist"))
            })?;
            return Ok(AOp::Val(v));
        }
        let (neg, body) = match s.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, s),
        };
        let v = if let Some(h) = body.strip_prefix("0f").or_else(|| body.strip_prefix("0F")) {
            u32::from_str_radix(h, 16).map(u128::from).ok()
        } else if let Some(h) = body.strip_prefix("0d").or_else(|| body.strip_prefix("0D")) {
            u64::from_str_radix(h, 16).map(u128::from).ok()
        } else if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            u64::from_str_radix(h.trim_end_matches(['U', 'u']), 16)
                .map(u128::from)
                .ok()
        } else {
            body.trim_end_matches(['U', 'u'])
                .parse::<u64>()
                .map(u128::from)
                .ok()
        };
        let v = v.ok_or_else(|| self.err("operand"))?;
        Ok(AOp::Imm(if neg { v.wrapping_neg() } else { v }))
    }

    fn dest(&self, s: &str) -> Result<usize, InterpError> {
        match self.operand(s)? {
            AOp::Val(v) => Ok(v),
            AOp::Imm(_) => Err(self.err("immediate destination")),
        }
    }

    fn vector(&self, s: &str) -> Result<Vec<AOp>, InterpError> {
        let inner = s
            .trim()
            .strip_prefix('{')
            .and_then(|r| r.strip_suffix('}'))
            .ok_or_else(|| self.err("expected `{...}`"))?;
        split_args(inner).iter().map(|a| self.operand(a)).collect()
    }
}

/// `s32` → signed 32 bits; `b16` → unsigned 16; `f32` → None.
fn int_type(t: &str) -> Option<IntTy> {
    let (k, b) = (t.get(..1)?, t.get(1..)?);
    let bits = match b {
        "16" => 16,
        "32" => 32,
        "64" => 64,
        _ => return None,
    };
    match k {
        "s" => Some(IntTy { signed: true, bits }),
        "u" | "b" => Some(IntTy {
            signed: false,
            bits,
        }),
        _ => None,
    }
}

fn parse_body(text: &str, alias: &[usize]) -> Result<Vec<AsmInst>, InterpError> {
    let mut body = Vec::new();
    for stmt in text.split([';', '\n']) {
        let stmt = stmt.trim();
        if stmt.is_empty() || stmt.starts_with("//") {
            continue;
        }
        body.push(Stmt::new(Ctx { alias, stmt }).parse()?);
    }
    Ok(body)
}

/// One statement cut into its mnemonic's dotted parts and its operands.
struct Stmt<'a> {
    cx: Ctx<'a>,
    /// `mul.wide.s32` → `["mul", "wide", "s32"]`.
    parts: Vec<&'a str>,
    args: Vec<&'a str>,
}

impl<'a> Stmt<'a> {
    fn new(cx: Ctx<'a>) -> Self {
        let stmt = cx.stmt;
        let (mnemonic, rest) = match stmt.find(char::is_whitespace) {
            Some(p) => (&stmt[..p], stmt[p..].trim()),
            None => (stmt, ""),
        };
        Stmt {
            cx,
            parts: mnemonic.split('.').collect(),
            args: split_args(rest),
        }
    }

    /// The last dotted part (the type).
    fn ty(&self) -> &'a str {
        self.parts.last().unwrap_or(&"")
    }

    /// The dotted parts between the base and the type.
    fn mods(&self) -> &[&'a str] {
        self.parts.get(1..self.parts.len() - 1).unwrap_or(&[])
    }

    fn arity(&self, n: usize) -> Result<(), InterpError> {
        if self.args.len() == n {
            Ok(())
        } else {
            Err(self.cx.err(&format!("expected {n} operands")))
        }
    }

    fn parse(&self) -> Result<AsmInst, InterpError> {
        match self.parts[0] {
            "add" | "sub" | "mul" | "and" | "or" | "xor" | "shl" | "shr" if self.ty() == "f32" => {
                self.float_binary()
            }
            "add" | "sub" | "mul" | "and" | "or" | "xor" | "shl" | "shr" => self.int_binary(),
            "not" | "mov" => self.not_mov(),
            "shf" => self.shf(),
            "fma" => self.fma(),
            "tex" => self.tex(),
            _ => Err(self.cx.err("instruction")),
        }
    }

    /// `add sub mul` `.f32`, with `.rn` / `.ftz`.
    fn float_binary(&self) -> Result<AsmInst, InterpError> {
        let cx = &self.cx;
        let op = match self.parts[0] {
            "add" => FOp::Add,
            "sub" => FOp::Sub,
            "mul" => FOp::Mul,
            _ => return Err(cx.err("instruction")),
        };
        let mut ftz = false;
        for m in self.mods() {
            match *m {
                "rn" => {}
                "ftz" => ftz = true,
                _ => return Err(cx.err("modifier")),
            }
        }
        self.arity(3)?;
        Ok(AsmInst::F32 {
            op,
            ftz,
            d: cx.dest(self.args[0])?,
            a: cx.operand(self.args[1])?,
            b: cx.operand(self.args[2])?,
        })
    }

    /// `add sub mul.lo mul.hi mul.wide and or xor shl shr` on an integer type.
    fn int_binary(&self) -> Result<AsmInst, InterpError> {
        let cx = &self.cx;
        let ty = int_type(self.ty()).ok_or_else(|| cx.err("type"))?;
        self.arity(3)?;
        let (d, a, b) = (
            cx.dest(self.args[0])?,
            cx.operand(self.args[1])?,
            cx.operand(self.args[2])?,
        );
        let op = match (self.parts[0], self.mods()) {
            ("add", []) => AsmIntOp::Add,
            ("sub", []) => AsmIntOp::Sub,
            ("mul", ["lo"]) => AsmIntOp::MulLo,
            ("mul", ["hi"]) => AsmIntOp::MulHi,
            ("mul", ["wide"]) => AsmIntOp::MulWide,
            ("and", []) => AsmIntOp::And,
            ("or", []) => AsmIntOp::Or,
            ("xor", []) => AsmIntOp::Xor,
            ("shl", []) => AsmIntOp::Shl,
            ("shr", []) => AsmIntOp::Shr,
            _ => return Err(cx.err("instruction form")),
        };
        Ok(AsmInst::Int { op, ty, d, a, b })
    }

    /// `not` and `mov` on an integer type (`mov` also `.f32`).
    fn not_mov(&self) -> Result<AsmInst, InterpError> {
        let cx = &self.cx;
        let bits = match int_type(self.ty()) {
            Some(t) => t.bits,
            None if self.ty() == "f32" && self.parts[0] == "mov" => 32,
            None => return Err(cx.err("type")),
        };
        if !self.mods().is_empty() {
            return Err(cx.err("modifier"));
        }
        self.arity(2)?;
        let (d, a) = (cx.dest(self.args[0])?, cx.operand(self.args[1])?);
        Ok(if self.parts[0] == "not" {
            AsmInst::Not { bits, d, a }
        } else {
            AsmInst::Mov { bits, d, a }
        })
    }

    /// `shf.{l,r}.{wrap,clamp}.b32`.
    fn shf(&self) -> Result<AsmInst, InterpError> {
        let cx = &self.cx;
        let (left, wrap) = match self.mods() {
            ["l", "wrap"] => (true, true),
            ["l", "clamp"] => (true, false),
            ["r", "wrap"] => (false, true),
            ["r", "clamp"] => (false, false),
            _ => return Err(cx.err("shf form")),
        };
        if self.ty() != "b32" {
            return Err(cx.err("type"));
        }
        self.arity(4)?;
        Ok(AsmInst::Shf {
            left,
            wrap,
            d: cx.dest(self.args[0])?,
            a: cx.operand(self.args[1])?,
            b: cx.operand(self.args[2])?,
            c: cx.operand(self.args[3])?,
        })
    }

    /// `fma.rn[.ftz].f32`.
    fn fma(&self) -> Result<AsmInst, InterpError> {
        let cx = &self.cx;
        let ftz = match self.mods() {
            ["rn"] => false,
            ["rn", "ftz"] | ["ftz", "rn"] => true,
            _ => return Err(cx.err("fma form")),
        };
        if self.ty() != "f32" {
            return Err(cx.err("type"));
        }
        self.arity(4)?;
        Ok(AsmInst::Fma32 {
            ftz,
            d: cx.dest(self.args[0])?,
            a: cx.operand(self.args[1])?,
            b: cx.operand(self.args[2])?,
            c: cx.operand(self.args[3])?,
        })
    }

    /// `tex.2d.v4.f32.f32 {d0..d3}, [handle, {x, y}]` and `tex.1d.v4.s32.s32`.
    fn tex(&self) -> Result<AsmInst, InterpError> {
        let cx = &self.cx;
        let (kind, ncoords) = match &self.parts[1..] {
            ["2d", "v4", "f32", "f32"] => (TexKind::F32F32_2d, 2),
            ["1d", "v4", "s32", "s32"] => (TexKind::S32S32_1d, 1),
            _ => return Err(cx.err("texture form")),
        };
        self.arity(2)?;
        let dv = cx.vector(self.args[0])?;
        let mut ds = [0usize; 4];
        if dv.len() != 4 {
            return Err(cx.err("expected four texels"));
        }
        for (slot, v) in ds.iter_mut().zip(&dv) {
            match v {
                AOp::Val(x) => *slot = *x,
                AOp::Imm(_) => return Err(cx.err("immediate destination")),
            }
        }
        let addr = self.args[1]
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| cx.err("expected `[handle, {coords}]`"))?;
        let inner = split_args(addr);
        let [h, c] = inner[..] else {
            return Err(cx.err("expected `[handle, {coords}]`"));
        };
        let coords = cx.vector(c)?;
        if coords.len() != ncoords {
            return Err(cx.err("coordinate count"));
        }
        Ok(AsmInst::Tex {
            kind,
            ds,
            handle: cx.operand(h)?,
            coords,
        })
    }
}

impl AsmBlock {
    /// Runs the statement on the initial values; returns the final value of each index.
    pub(crate) fn execute(&self, mut vals: Vec<u128>) -> Vec<u128> {
        for inst in &self.body {
            inst.execute(&mut vals);
        }
        vals
    }
}

impl AsmInst {
    fn execute(&self, vals: &mut [u128]) {
        let rd = |vals: &[u128], a: AOp| match a {
            AOp::Val(i) => vals[i],
            AOp::Imm(v) => v,
        };
        match *self {
            AsmInst::Int { op, ty, d, a, b } => vals[d] = int_op(op, ty, rd(vals, a), rd(vals, b)),
            AsmInst::Not { bits, d, a } => vals[d] = !rd(vals, a) & mask(bits),
            AsmInst::Mov { bits, d, a } => vals[d] = rd(vals, a) & mask(bits),
            AsmInst::Shf {
                left,
                wrap,
                d,
                a,
                b,
                c,
            } => {
                let lo = rd(vals, a) as u32 as u64;
                let hi = rd(vals, b) as u32 as u64;
                let c = rd(vals, c) as u32;
                let n = if wrap { c & 31 } else { c.min(32) };
                let x = (hi << 32) | lo;
                vals[d] = if left {
                    ((x << n) >> 32) as u32 as u128
                } else {
                    (x >> n) as u32 as u128
                };
            }
            AsmInst::F32 { op, ftz, d, a, b } => {
                let (x, y) = (rd(vals, a) as u32, rd(vals, b) as u32);
                vals[d] = f32_op(op, ftz, x, y) as u128;
            }
            AsmInst::Fma32 { ftz, d, a, b, c } => {
                let (x, y, z) = (rd(vals, a) as u32, rd(vals, b) as u32, rd(vals, c) as u32);
                vals[d] = fma32_op(ftz, x, y, z) as u128;
            }
            AsmInst::Tex {
                kind,
                ds,
                handle,
                ref coords,
            } => {
                let cs: Vec<u32> = coords.iter().map(|&c| rd(vals, c) as u32).collect();
                let t = super::exec::texels(kind.is_float(), rd(vals, handle) as u64, &cs);
                for (&di, v) in ds.iter().zip(t) {
                    vals[di] = v as u128;
                }
            }
        }
    }
}

/// An integer operation on the raw operand values `a`, `b`: both are cut to the type's
/// width; a shift amount is the low 32 bits of `b`, clamped at the width.
fn int_op(op: AsmIntOp, ty: IntTy, a: u128, b: u128) -> u128 {
    let IntTy { signed, bits } = ty;
    let m = mask(bits);
    let (x, y) = (a & m, b & m);
    let shift = ((b & 0xffff_ffff) as u32).min(bits);
    let r = match op {
        AsmIntOp::Add => x.wrapping_add(y),
        AsmIntOp::Sub => x.wrapping_sub(y),
        AsmIntOp::MulLo => x.wrapping_mul(y),
        AsmIntOp::MulHi if signed => {
            let p = float::sext(x, bits) * float::sext(y, bits);
            (p >> bits) as u128
        }
        AsmIntOp::MulHi => (x * y) >> bits,
        AsmIntOp::MulWide if signed => {
            let p = (float::sext(x, bits) * float::sext(y, bits)) as u128;
            return p & mask(2 * bits);
        }
        AsmIntOp::MulWide => return (x * y) & mask(2 * bits),
        AsmIntOp::And => x & y,
        AsmIntOp::Or => x | y,
        AsmIntOp::Xor => x ^ y,
        AsmIntOp::Shl if shift >= bits => 0,
        AsmIntOp::Shl => x << shift,
        AsmIntOp::Shr if signed => {
            let s = float::sext(x, bits);
            (s >> shift.min(127)) as u128
        }
        AsmIntOp::Shr if shift >= bits => 0,
        AsmIntOp::Shr => x >> shift,
    };
    r & m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescapes_llvm_strings() {
        assert_eq!(unescape(r"a;\0A\09b \\ c"), "a;\n\tb \\ c");
        assert_eq!(unescape(r"x\"), r"x\");
    }

    #[test]
    fn splits_nested_arguments() {
        assert_eq!(
            split_args("{$0, $1, $2, $3}, [$4, {$5, $6}]"),
            ["{$0, $1, $2, $3}", "[$4, {$5, $6}]"]
        );
    }

    #[test]
    fn runs_add_and_rotate() {
        let alias = [0, 1, 2];
        let body = parse_body(
            "add.u32 $0, $0, $2;\n\tshf.l.wrap.b32 $1, $0, $0, 7;",
            &alias,
        )
        .unwrap();
        let b = AsmBlock {
            init: Vec::new(),
            outputs: Vec::new(),
            body,
        };
        let out = b.execute(alloc::vec![0xffff_fff0, 0, 0x20]);
        assert_eq!(out[0], 0x10);
        assert_eq!(out[1], 0x10u32.rotate_left(7) as u128);
        assert!(parse_body("bogus.b32 $0, $0;", &alias)
            .unwrap_err()
            .is_unsupported());
        assert!(parse_body("add.u32 $0, $9, 1;", &alias).is_err());
    }
}
