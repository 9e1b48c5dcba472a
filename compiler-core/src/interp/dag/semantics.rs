//! What the machine opcodes compute, for one thread — shared by the DAG evaluator and
//! any evaluator of emitted MIR, so the two can only disagree about how values are
//! routed (registers, COPYs, EXTRACT_SUBREG lanes, glue), which is what the emitter
//! decides.
//!
//! ```text
//!  exec(op, [Arg], &mut Mem) ──▶ one Lanes per def: the explicit defs (a tuple def has
//!                                one word per lane), then the implicit defs
//! ```
//!
//! Operands are given in MIR order (chains and glue left out). Textures read the MIR
//! interpreter's texels (a hash of handle and coordinates); the CICC-era tuple fetch,
//! MMA and async copy opcodes are deterministic models of their own, not the hardware's results;
//! they say so below.
//! Floating point goes through `f32` arithmetic; NaNs are made canonical so results
//! never depend on the host.

use super::{Inputs, Store};
use crate::mir::Op;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// The words of one register: one for a scalar, one per lane for a tuple.
pub type Lanes = Vec<u64>;

/// One operand of an instruction, as the semantics sees it.
#[derive(Clone, Copy, Debug)]
pub enum Arg<'a> {
    Reg(&'a [u64]),
    Imm(i64),
    Sym(&'a str),
    Block(u32),
    Other,
}

/// Memory and parameters during one run.
pub struct Mem<'a> {
    pub inputs: &'a Inputs,
    bytes: BTreeMap<u64, u8>,
    pub stores: Vec<Store>,
}

impl<'a> Mem<'a> {
    pub fn new(inputs: &'a Inputs) -> Self {
        Mem {
            inputs,
            bytes: inputs.memory.clone(),
            stores: Vec::new(),
        }
    }
    pub fn load(&self, addr: u64, bits: u32) -> u64 {
        let mut v = 0u64;
        for i in 0..(bits / 8).max(1) as u64 {
            let b = self.bytes.get(&addr.wrapping_add(i)).copied().unwrap_or(0);
            v |= (b as u64) << (8 * i);
        }
        mask(v, bits)
    }
    pub fn store(&mut self, addr: u64, bits: u32, value: u64) {
        let value = mask(value, bits);
        for i in 0..(bits / 8).max(1) as u64 {
            self.bytes
                .insert(addr.wrapping_add(i), (value >> (8 * i)) as u8);
        }
        self.stores.push(Store { addr, bits, value });
    }
    pub fn param(&self, sym: &str) -> Result<u64, String> {
        self.inputs
            .params
            .get(sym)
            .copied()
            .ok_or_else(|| format!("no value given for parameter `{sym}`"))
    }
}

pub fn mask(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

fn f(v: u64) -> f32 {
    f32::from_bits(v as u32)
}
fn fw(x: f32) -> u64 {
    u64::from(canon32(x))
}

/// Half ↔ single conversions and NaN canonicalisation are the interpreters' own
/// (`interp::float`), so that the DAG evaluator and the MIR/ORI interpreters agree bit
/// for bit, NaNs included.
use crate::interp::float::{canon16_from_f32 as f32_to_half, canon32, f16_to_f32 as half_to_f32};

fn h2(v: u64, op: impl Fn(f32, f32) -> f32, w: u64) -> u64 {
    let lane = |x: u64, s: u32| half_to_f32((x >> s) as u16);
    let lo = f32_to_half(op(lane(v, 0), lane(w, 0))) as u64;
    let hi = f32_to_half(op(lane(v, 16), lane(w, 16))) as u64;
    lo | (hi << 16)
}

/// Integer comparison modes of SETP (NVPTX's CmpMode numbering).
fn compare(mode: i64, a: u64, b: u64, bits: u32) -> Result<bool, String> {
    let sa = sign_extend(a, bits);
    let sb = sign_extend(b, bits);
    Ok(match mode {
        0 => a == b,
        1 => a != b,
        2 => sa < sb,
        3 => sa <= sb,
        4 => sa > sb,
        5 => sa >= sb,
        // LLVM's NVPTX compare modes: 6..11 are EQU NEU LTU LEU GTU GEU, which
        // integer compares use for unsigned (llc-22: `SETP_i32rr a, b, 10` is
        // `setp.gt.u32`).
        6 => a == b,
        7 => a != b,
        8 => a < b,
        9 => a <= b,
        10 => a > b,
        11 => a >= b,
        m => return Err(format!("comparison mode {m} is not modelled")),
    })
}

fn sign_extend(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn fcompare(mode: i64, a: f32, b: f32) -> Result<bool, String> {
    Ok(match mode {
        0 => a == b,
        1 => a != b,
        2 => a < b,
        3 => a <= b,
        4 => a > b,
        5 => a >= b,
        m => return Err(format!("float comparison mode {m} is not modelled")),
    })
}

/// Executes one data instruction. Control flow, COPY, EXTRACT_SUBREG, REG_SEQUENCE and
/// INLINEASM are the evaluators' own business.
pub fn exec(op: Op, args: &[Arg<'_>], mem: &mut Mem<'_>) -> Result<Vec<Lanes>, String> {
    let name = op.name();
    let reg = |i: usize| -> Result<u64, String> {
        match args.get(i) {
            Some(Arg::Reg(l)) if l.len() == 1 => Ok(l[0]),
            Some(Arg::Reg(l)) => Err(format!(
                "{name}: operand {i} is a {}-lane tuple, a scalar was expected",
                l.len()
            )),
            other => Err(format!(
                "{name}: operand {i} should be a register, is {other:?}"
            )),
        }
    };
    let lanes = |i: usize| -> Result<&[u64], String> {
        match args.get(i) {
            Some(Arg::Reg(l)) => Ok(l),
            other => Err(format!(
                "{name}: operand {i} should be a register, is {other:?}"
            )),
        }
    };
    let imm = |i: usize| -> Result<i64, String> {
        match args.get(i) {
            Some(Arg::Imm(v)) => Ok(*v),
            other => Err(format!(
                "{name}: operand {i} should be an immediate, is {other:?}"
            )),
        }
    };
    let one = |v: u64| Ok(vec![vec![v]]);
    let m32 = |v: u64| mask(v, 32);
    use Op::*;
    match op {
        MOV_B1_i => one(mask(imm(0)? as u64, 1)),
        MOV_B16_i => one(mask(imm(0)? as u64, 16)),
        MOV_B32_i | MOV_F32_i => one(m32(imm(0)? as u64)),
        MOV_B64_i | MOV_F64_i => one(imm(0)? as u64),
        IMOV1rr | IMOV16rr | IMOV32rr | IMOV64rr | FMOV16rr | FMOV32rr | FMOV64rr | MOV_B32_r
        | MOV_B64_r | cvta_to_global_64 | BITCONVERT_32_I2F | BITCONVERT_32_F2I
        | BITCONVERT_64_I2F | BITCONVERT_64_F2I => one(reg(0)?),
        IMPLICIT_DEF => one(0),
        LD_i32 | LD_i64 | LD_f32 => {
            let bits = imm(4)? as u32;
            let v = match args.get(6) {
                Some(Arg::Sym(s)) => mem.param(s)?,
                Some(Arg::Reg(a)) => {
                    let addr = a.first().copied().unwrap_or(0);
                    mem.load(addr.wrapping_add(imm(7)? as u64), bits)
                }
                other => return Err(format!("{name}: address operand is {other:?}")),
            };
            one(mask(v, bits))
        }
        ST_i32 | ST_i64 => {
            let bits = imm(4)? as u32;
            let addr = reg(5)?.wrapping_add(imm(6)? as u64);
            mem.store(addr, bits, reg(0)?);
            Ok(Vec::new())
        }
        ADD32rr => one(m32(reg(0)?.wrapping_add(reg(1)?))),
        ADD32ri => one(m32(reg(0)?.wrapping_add(imm(1)? as u64))),
        SUB32rr => one(m32(reg(0)?.wrapping_sub(reg(1)?))),
        MULT32rr => one(m32(reg(0)?.wrapping_mul(reg(1)?))),
        MULT32ri => one(m32(reg(0)?.wrapping_mul(imm(1)? as u64))),
        XOR_b32rr => one(reg(0)? ^ reg(1)?),
        AND_b32rr => one(reg(0)? & reg(1)?),
        OR_b32rr | OR_b64rr => one(reg(0)? | reg(1)?),
        ADD64rr => one(reg(0)?.wrapping_add(reg(1)?)),
        ADD64ri => one(reg(0)?.wrapping_add(imm(1)? as u64)),
        SHL32_ri => one(m32(reg(0)? << (imm(1)? & 31))),
        SRL32_ri => one(m32(reg(0)?) >> (imm(1)? & 31)),
        SHL64_ri => one(reg(0)? << (imm(1)? & 63)),
        MAD_LO_S32rrr => one(m32(reg(0)?.wrapping_mul(reg(1)?).wrapping_add(reg(2)?))),
        MUL_WIDEu32_ri => one(m32(reg(0)?).wrapping_mul(m32(imm(1)? as u64))),
        MUL_WIDEs32_ri => one((sign_extend(reg(0)?, 32).wrapping_mul(imm(1)?)) as u64),
        CVT_u64_u32 => one(m32(reg(0)?)),
        CVT_u32_u64 => one(m32(reg(0)?)),
        SETP_i32rr => one(compare(imm(2)?, m32(reg(0)?), m32(reg(1)?), 32)? as u64),
        SETP_i32ri => one(compare(imm(2)?, m32(reg(0)?), m32(imm(1)? as u64), 32)? as u64),
        SETP_f32rr => one(fcompare(imm(2)?, f(reg(0)?), f(reg(1)?))? as u64),
        SELP_b32rr => one(if reg(2)? & 1 == 1 { reg(0)? } else { reg(1)? }),
        FADDf32rr | FADD_rnf32rr => one(fw(f(reg(0)?) + f(reg(1)?))),
        FSUBf32rr | FSUB_rnf32rr => one(fw(f(reg(0)?) - f(reg(1)?))),
        FMULf32rr | FMUL_rnf32rr => one(fw(f(reg(0)?) * f(reg(1)?))),
        FMA_F32rrr => one(fw(crate::interp::float::fma32(
            f(reg(0)?),
            f(reg(1)?),
            f(reg(2)?),
        ))),
        FADD_rnf16x2rr => one(h2(reg(0)?, |a, b| a + b, reg(1)?)),
        FMUL_rnf16rr => {
            one(f32_to_half(half_to_f32(reg(0)? as u16) * half_to_f32(reg(1)? as u16)) as u64)
        }
        CVT_f32_s32 => one(fw(sign_extend(reg(0)?, 32) as f32)),
        CVT_f32_u32 => one(fw(m32(reg(0)?) as f32)),
        CVT_s32_f32 => one(m32(f(reg(0)?) as i32 as u64)),
        CVT_f32_f16 => one(fw(half_to_f32(reg(0)? as u16))),
        // The interpreter's texels: a hash of the handle and the coordinates' bits.
        TEX_UNIFIED_2D_F32_F32_R | TEX_UNIFIED_1D_S32_S32_R => {
            let float = op == TEX_UNIFIED_2D_F32_F32_R;
            let coords = if float { 2 } else { 1 };
            let cs = (1..=coords)
                .map(|k| reg(k).map(|v| v as u32))
                .collect::<Result<Vec<u32>, _>>()?;
            let texels = crate::interp::exec::texels(float, reg(0)?, &cs);
            Ok(texels.iter().map(|&t| vec![t as u64]).collect())
        }
        // CICC-era tuple fetches (the emitter's rule tests use them). Model: lane i =
        // x·(i+1) + y + (handle mod 8). Residency: both coordinates ≥ 0.
        TEX_2D_V4F32_F32 | TEX_2D_V4F32_F32_P => {
            let (h, x, y) = (reg(0)?, f(reg(1)?), f(reg(2)?));
            let texel: Lanes = (0..4)
                .map(|i| fw(x * (i + 1) as f32 + y + (h % 8) as f32))
                .collect();
            let mut out = vec![texel];
            if op == TEX_2D_V4F32_F32_P {
                out.push(vec![(x >= 0.0 && y >= 0.0) as u64]);
            }
            Ok(out)
        }
        // Model (one thread's fragment): lane i = a·b + c + i.
        MMA_M16N8K8_TF32 => {
            let (a, b, c) = (f(reg(0)?), f(reg(1)?), f(reg(2)?));
            Ok(vec![(0..4).map(|i| fw(a * b + c + i as f32)).collect()])
        }
        // Model: lane i = a·b + acc[i].
        MMA_M16N8K8_TF32_ACC => {
            let (a, b) = (f(reg(0)?), f(reg(1)?));
            let acc = lanes(2)?;
            if acc.len() != 4 {
                return Err(format!(
                    "{name}: the accumulator has {} lanes, not 4",
                    acc.len()
                ));
            }
            Ok(vec![acc.iter().map(|&c| fw(a * b + f(c))).collect()])
        }
        // Model: data = the word at the address; token = 1 (the copy completed).
        CP_ASYNC_CA_SHARED => Ok(vec![vec![mem.load(reg(0)?, 32), 1]]),
        // One thread's view: every lane reads its own value.
        SHFL_SYNC_IDX_i32 | SHFL_SYNC_DOWN_i32 => one(reg(0)?),
        INT_PTX_SREG_TID_x | INT_PTX_SREG_TID_y | INT_PTX_SREG_CTAID_x | INT_PTX_SREG_CTAID_y
        | INT_PTX_SREG_LANEID => one(0),
        INT_PTX_SREG_NTID_x | INT_PTX_SREG_NCTAID_x => one(1),
        _ => Err(format!("{name} has no model in the evaluator")),
    }
}

/// Runs inline asm text over its operand slots (`$0`, `$1`, ...): statements such as
/// `add.u32 $0, $0, $1;`. Supports add, sub, mul.lo, xor, and, or, shl, shr, mov on
/// `.u32 .s32 .b32 .u64 .s64 .b64 .f32`.
pub fn exec_asm(text: &str, slots: &mut [u64]) -> Result<(), String> {
    for stmt in text.split(';') {
        let stmt = stmt.trim();
        if stmt.is_empty() {
            continue;
        }
        let (mn, rest) = stmt.split_once(char::is_whitespace).unwrap_or((stmt, ""));
        let parts: Vec<&str> = mn.split('.').collect();
        let ty = *parts.last().unwrap_or(&"");
        let bits = match ty {
            "u32" | "s32" | "b32" | "f32" => 32,
            "u64" | "s64" | "b64" => 64,
            _ => return Err(format!("inline asm `{stmt}`: type `.{ty}` is not modelled")),
        };
        let ops: Vec<&str> = rest.split(',').map(str::trim).collect();
        let read = |s: &str, slots: &[u64]| -> Result<u64, String> {
            if let Some(n) = s.strip_prefix('$') {
                let i: usize = n.parse().map_err(|_| format!("bad operand `{s}`"))?;
                slots
                    .get(i)
                    .copied()
                    .ok_or_else(|| format!("inline asm names ${i}, which has no operand"))
            } else {
                s.parse::<i64>()
                    .map(|v| v as u64)
                    .map_err(|_| format!("bad operand `{s}`"))
            }
        };
        let dst: usize = ops
            .first()
            .and_then(|d| d.strip_prefix('$'))
            .and_then(|d| d.parse().ok())
            .ok_or_else(|| format!("inline asm `{stmt}`: the destination is not `$N`"))?;
        if dst >= slots.len() {
            return Err(format!("inline asm names ${dst}, which has no operand"));
        }
        let a = read(ops.get(1).copied().unwrap_or(""), slots)?;
        let b = match ops.get(2) {
            Some(s) => read(s, slots)?,
            None => 0,
        };
        let v = match (parts[0], ty) {
            ("add", "f32") => fw(f(a) + f(b)),
            ("mul", "f32") => fw(f(a) * f(b)),
            ("add", _) => a.wrapping_add(b),
            ("sub", _) => a.wrapping_sub(b),
            ("mul", _) => a.wrapping_mul(b),
            ("xor", _) => a ^ b,
            ("and", _) => a & b,
            ("or", _) => a | b,
            ("shl", _) => a << (b & (bits as u64 - 1)),
            ("shr", _) => mask(a, bits) >> (b & (bits as u64 - 1)),
            ("mov", _) => a,
            (m, _) => return Err(format!("inline asm `{m}` is not modelled")),
        };
        slots[dst] = mask(v, bits);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The evaluator's f16 and f32 NaNs are the interpreters' canonical ones (it used
    /// its own 0x7e00 / 0x7fc00000, so a NaN result disagreed with the MIR interpreter).
    #[test]
    fn nans_are_the_interpreters_canonical_ones() {
        assert_eq!(
            f32_to_half(f32::NAN),
            crate::interp::float::F16_CANONICAL_NAN
        );
        assert_eq!(
            fw(f32::NAN),
            u64::from(crate::interp::float::F32_CANONICAL_NAN)
        );
        assert_eq!(f32_to_half(half_to_f32(0x3c00)), 0x3c00);
    }

    #[test]
    fn asm_add_reads_and_writes_slots() {
        let mut s = [5, 7];
        exec_asm("add.u32 $0, $0, $1;", &mut s).unwrap();
        assert_eq!(s, [12, 7]);
        assert!(exec_asm("frob.u32 $0, $1;", &mut s).is_err());
        assert!(exec_asm("add.u32 $4, $0, $1;", &mut s).is_err());
    }
}
