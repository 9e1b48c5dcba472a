//! What the generator reads from the instruction description (`mir/nvptx.isa`): the
//! shape of an instruction of each opcode, derived from its row's columns, so a new row
//! is generated without code here.
//!
//! ```text
//!  flags TERMINATOR, PHI          → Structural (the program structure places them)
//!  flag PSEUDO, family Param, ptx `hand`, `callseq:`, `param:`, `call:`
//!                                 → Hand (the generator's own code for the opcode)
//!  ptx `sreg:NAME`                → one 32-bit def, no uses
//!  family Move / CrossClass / WidePair → defs and uses from the name
//!                                   (IMOV32rr, BITCONVERT_32_I2F, V2I32toI64)
//!  ptx `op:TEXT:N[:ftz]`          → the defs, N uses typed by TEXT's last word (`.s32`),
//!                                   with the mnemonic's exceptions (selp's predicate,
//!                                   shift amounts, mul.wide, popc/clz, testp, bfe);
//!                                   the `r`/`i` letters ending the name say which uses
//!                                   are immediates; `ftz`: a flush flag follows
//!  ptx `setp:T`, `cvt:TO.FROM`, `cvtx:TO.FROM`, `sym:TEXT` → their operand layouts
//!  ptx `ld:V`, `ldnc:V`, `ldu:V`, `st:V` → Load / Store of V lanes of the name's type
//!  ptx `asm:TEMPLATE`             → the operand layout the template gives
//!                                   (`super::template`: addresses, decoders, vectors,
//!                                   result pairs, handles)
//!  anything else                  → Err(why): the coverage test lists the row
//! ```

use crate::mir::{flag, CopyFamily, Op};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// The lane type of a tuple.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Lane {
    I32,
    F32,
    H2,
}

impl Lane {
    pub(crate) fn ty(self) -> Ty {
        match self {
            Lane::I32 => Ty::I32,
            Lane::F32 => Ty::F32,
            Lane::H2 => Ty::H2,
        }
    }
}

/// A value's type (what the generator means it to hold).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Pred,
    I16,
    F16,
    I32,
    F32,
    /// Two f16 in 32 bits.
    H2,
    I64,
    F64,
    I128,
    Tup(Lane, u8),
}

impl Ty {
    pub(crate) fn bits(self) -> u32 {
        match self {
            Ty::Pred => 1,
            Ty::I16 | Ty::F16 => 16,
            Ty::I32 | Ty::F32 | Ty::H2 => 32,
            Ty::I64 | Ty::F64 => 64,
            Ty::I128 => 128,
            Ty::Tup(l, n) => l.ty().bits() * n as u32,
        }
    }
    pub(crate) fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::H2 | Ty::F64)
    }
    /// The integer type of twice the width (`mul.wide`).
    fn wide(self) -> Option<Ty> {
        Some(match self {
            Ty::I16 => Ty::I32,
            Ty::I32 => Ty::I64,
            _ => return None,
        })
    }
}

/// A use of a [`Shape::Plain`] instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Arg {
    Reg(Ty),
    /// A small integer immediate.
    Int,
    /// An integer immediate below this bound (shift amounts, bit positions).
    Below(u32),
    /// A floating-point immediate of this type (`half`, `bfloat`, `float`, `double`).
    Float(Ty, bool),
    /// SETP's compare mode (float: 14 conditions, integer: 12).
    Cmp {
        float: bool,
    },
    /// CVT's conversion mode: a rounding mode in `lo..=hi` (0: none); `ftz`: a float
    /// is involved, so `.ftz` and `.sat` may be set.
    Cvt {
        lo: u64,
        hi: u64,
        ftz: bool,
    },
    /// The flush-to-zero flag an `op:…:ftz` form reads after its uses.
    Ftz,
    /// A 64-bit address register (an `asm:` template's `[#B+#O]` base).
    Addr,
    /// An address offset immediate.
    Offset,
    /// A frame object (`%stack.0`).
    Frame,
    /// A symbol or physical register written as is (`@rnd_global`, `$envreg0`).
    Sym(&'static str),
    /// An immediate drawn from these values (a mode, an ordering, an alignment).
    Pick(&'static [i64]),
}

/// Which load form.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LoadForm {
    /// `ld:V`: ordering, scope, space, type code, width, used bytes, base, offset.
    Ld,
    /// `ldnc:V`: type code, width, used bytes, base, offset (global only).
    Nc,
    /// `ldu:V`: width, base, offset (global only).
    Ldu,
}

/// How an instruction of an opcode is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Defs, then uses, as listed.
    Plain {
        defs: Vec<Ty>,
        uses: Vec<Arg>,
    },
    Load {
        form: LoadForm,
        lanes: u8,
        elem: Ty,
    },
    /// `lanes` values, ordering, scope, space, width, base, offset.
    Store {
        lanes: u8,
        elem: Ty,
    },
    /// The generator's own code for this opcode.
    Hand,
    /// Placed by the program structure (control flow, PHIs).
    Structural,
}

/// The shape of `op`'s instructions, or why the description does not say.
pub(crate) fn shape(op: Op) -> Result<Shape, String> {
    let d = op.desc();
    let name = op.name();
    if d.has(flag::TERMINATOR) || op == Op::PHI {
        return Ok(Shape::Structural);
    }
    if d.has(flag::PSEUDO) || d.family == CopyFamily::Param {
        return Ok(Shape::Hand);
    }
    match d.family {
        CopyFamily::Move | CopyFamily::CrossClass | CopyFamily::WidePair => {
            return move_shape(op).ok_or_else(|| format!("`{name}`: a move name not understood"))
        }
        _ => {}
    }
    let form = op.ptx();
    let (kind, arg) = form.split_once(':').unwrap_or((form, ""));
    let why = |what: &str| format!("`{name}`: {what} (ptx form `{form}`)");
    match kind {
        "sreg" => Ok(Shape::Plain {
            defs: vec![Ty::I32],
            uses: Vec::new(),
        }),
        "hand" | "callseq" | "param" | "call" => Ok(Shape::Hand),
        "op" => op_shape(name, d.defs, arg).ok_or_else(|| why("operands not understood")),
        "sym" if d.defs == 0 => Ok(Shape::Plain {
            defs: Vec::new(),
            uses: Vec::new(),
        }),
        "setp" => {
            let t = text_ty(arg.trim_start_matches(['i', 'f']))
                .or_else(|| text_ty(arg))
                .ok_or_else(|| why("no type"))?;
            let t = if arg.starts_with('f') { float_of(t) } else { t };
            let float = t.is_float();
            let imm = imm_letters(name, 2).ok_or_else(|| why("operand letters"))?;
            let mut uses: Vec<Arg> = (0..2).map(|k| arg_of(t, imm[k], "setp")).collect();
            uses.push(Arg::Cmp { float });
            if float {
                uses.push(Arg::Ftz);
            }
            Ok(Shape::Plain {
                defs: vec![Ty::Pred],
                uses,
            })
        }
        "cvt" | "cvtx" => {
            let (to, from) = arg.split_once('.').ok_or_else(|| why("no types"))?;
            let (to, from_t) = (
                text_ty(to).ok_or_else(|| why("no type"))?,
                text_ty(from).ok_or_else(|| why("no type"))?,
            );
            if kind == "cvtx" {
                // In-register sign extension: the source has the result's width.
                return Ok(Shape::Plain {
                    defs: vec![to],
                    uses: vec![Arg::Reg(to)],
                });
            }
            let (lo, hi) = match (to.is_float(), from_t.is_float()) {
                (true, false) => (5, 8),
                (false, true) => (1, 4),
                (true, true) if to.bits() < from_t.bits() => (5, 8),
                _ => (0, 0),
            };
            let ftz = to.is_float() || from_t.is_float();
            Ok(Shape::Plain {
                defs: vec![to],
                uses: vec![Arg::Reg(from_t), Arg::Cvt { lo, hi, ftz }],
            })
        }
        "ld" | "ldnc" | "ldu" | "st" => {
            let lanes: u8 = arg.parse().map_err(|_| why("lane count"))?;
            let elem = name_ty(name).ok_or_else(|| why("no element type in the name"))?;
            Ok(match kind {
                "st" => Shape::Store { lanes, elem },
                k => Shape::Load {
                    form: match k {
                        "ld" => LoadForm::Ld,
                        "ldnc" => LoadForm::Nc,
                        _ => LoadForm::Ldu,
                    },
                    lanes,
                    elem,
                },
            })
        }
        "asm" => super::template::asm_shape(op, arg),
        _ => Err(why("no operand layout the generator knows")),
    }
}

/// A type word of PTX text (`s32`, `f16x2`, `pred`, ...).
fn text_ty(w: &str) -> Option<Ty> {
    Some(match w {
        "pred" => Ty::Pred,
        "b8" | "s8" | "u8" | "b16" | "s16" | "u16" | "16" => Ty::I16,
        "f16" | "bf16" => Ty::F16,
        "b32" | "s32" | "u32" | "32" => Ty::I32,
        "f32" => Ty::F32,
        "f16x2" | "bf16x2" => Ty::H2,
        "b64" | "s64" | "u64" | "64" => Ty::I64,
        "f64" => Ty::F64,
        "b128" => Ty::I128,
        _ => return None,
    })
}

fn float_of(t: Ty) -> Ty {
    match t {
        Ty::I16 => Ty::F16,
        Ty::I32 => Ty::F32,
        Ty::I64 => Ty::F64,
        t => t,
    }
}

/// The element type a load/store name carries: `LD_i32`, `LDV_i64_v2`,
/// `LD_GLOBAL_NC_v4i32`, `LDU_GLOBAL_v2i16`, `LD_f32`.
fn name_ty(name: &str) -> Option<Ty> {
    name.split('_').find_map(|tok| {
        let t = tok.trim_start_matches(|c: char| c == 'v' || c.is_ascii_digit());
        let t = if t.len() < tok.len() && tok.starts_with('v') {
            t
        } else {
            tok
        };
        let (k, bits) = t.split_at(t.find(|c: char| c.is_ascii_digit())?);
        let bits = bits.to_string();
        match k {
            "i" => text_ty(&format!("b{bits}")),
            "f" => text_ty(&format!("f{bits}")),
            _ => None,
        }
    })
}

/// Which of the first `n` uses are immediates, from the `r`/`i` letters that end the
/// name (`ADD32ri`, `SELP_b16ir`, `FMA_F32rir`, `SRL32_ri`; a trailing word without
/// them, as in `FDIV32ri_prec`, is passed over). None: more letters than uses.
fn imm_letters(name: &str, n: usize) -> Option<Vec<bool>> {
    let letters = |s: &str| -> usize { s.len() - s.trim_end_matches(['r', 'i']).len() };
    let mut base = name;
    if letters(base) == 0 {
        if let Some((head, _)) = base.rsplit_once('_') {
            base = head;
        }
    }
    let run = &base[base.len() - letters(base)..];
    if run.len() > n {
        // `...Xr`-style words the letters happen to end (`TESTINF_f32r` has one use).
        return None;
    }
    let mut v: Vec<bool> = run.chars().map(|c| c == 'i').collect();
    v.resize(n, false);
    Some(v)
}

/// A use of type `t`: a register, or (immediate) a number fit for `mnemonic`.
fn arg_of(t: Ty, imm: bool, mnemonic: &str) -> Arg {
    if !imm {
        return Arg::Reg(t);
    }
    match t {
        _ if t.is_float() => Arg::Float(t, false),
        _ if mnemonic == "shl" || mnemonic == "shr" => Arg::Below(33),
        _ if mnemonic == "bfe" => Arg::Below(32),
        _ => Arg::Int,
    }
}

/// `op:TEXT:N[:ftz]`: the defs and N uses typed by TEXT.
fn op_shape(name: &str, ndefs: u8, arg: &str) -> Option<Shape> {
    let (rest, ftz) = match arg.strip_suffix(":ftz") {
        Some(r) => (r, true),
        None => (arg, false),
    };
    let (text, n) = rest.rsplit_once(':')?;
    let n: usize = n.parse().ok()?;
    let mnemonic = text.split('.').next()?;
    let mut t = text_ty(text.rsplit('.').next()?)?;
    // `mov.b16` of a half/bfloat constant: the name says the value is a float.
    if t == Ty::I16 && (name.contains("F16") || name.contains("BF16")) {
        t = Ty::F16;
    }
    let def = match mnemonic {
        "popc" | "clz" => Ty::I32,
        "testp" | "setp" => Ty::Pred,
        "mul" if text.starts_with("mul.wide") => t.wide()?,
        _ => t,
    };
    let imm = imm_letters(name, n)?;
    let uses = (0..n)
        .map(|k| {
            let ut = match (mnemonic, k) {
                ("selp", 2) => Ty::Pred,
                ("shl" | "shr", 1) | ("bfe", 1 | 2) => Ty::I32,
                _ => t,
            };
            let a = arg_of(ut, imm[k], mnemonic);
            match a {
                Arg::Float(ft, _) => Arg::Float(ft, name.contains("BF16")),
                a => a,
            }
        })
        .chain(ftz.then_some(Arg::Ftz))
        .collect();
    Some(Shape::Plain {
        defs: vec![def; ndefs as usize],
        uses,
    })
}

/// Moves named by their types: `IMOV32rr`, `FMOV64rr`, `MOV_B32_r`,
/// `BITCONVERT_32_I2F`, `V2I32toI64`, `I64toV2I32`.
fn move_shape(op: Op) -> Option<Shape> {
    let name = op.name();
    let int = |bits: &str| match bits {
        "1" => Some(Ty::Pred),
        b => text_ty(&format!("b{b}")),
    };
    // The first number in a name.
    let digits = |s: &str| -> String {
        s.chars()
            .skip_while(|c| !c.is_ascii_digit())
            .take_while(char::is_ascii_digit)
            .collect()
    };
    if let Some((from, to)) = name.split_once("to") {
        // WidePair: `V2I{a}toI{b}` packs two halves, `I{b}toV2I{a}` splits one.
        let (from, to) = (
            int(&digits(from.trim_start_matches("V2")))?,
            int(&digits(to.trim_start_matches("V2")))?,
        );
        return Some(if name.starts_with("V2") {
            Shape::Plain {
                defs: vec![to],
                uses: vec![Arg::Reg(from); 2],
            }
        } else {
            Shape::Plain {
                defs: vec![to; 2],
                uses: vec![Arg::Reg(from)],
            }
        });
    }
    let bits = digits(name);
    let t = int(&bits)?;
    let (def, src) = if let Some(dir) = name.strip_prefix("BITCONVERT_") {
        if dir.ends_with("I2F") {
            (float_of(t), t)
        } else {
            (t, float_of(t))
        }
    } else if name.starts_with('F') {
        (float_of(t), float_of(t))
    } else if bits == "1" {
        (Ty::Pred, Ty::Pred)
    } else {
        (t, t)
    };
    Some(Shape::Plain {
        defs: vec![def],
        uses: vec![Arg::Reg(src)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_read_from_the_description() {
        use Op::*;
        let plain = |op: Op| match shape(op).unwrap() {
            Shape::Plain { defs, uses } => (defs, uses),
            s => panic!("{}: {s:?}", op.name()),
        };
        assert_eq!(
            plain(ADD32ri),
            (vec![Ty::I32], vec![Arg::Reg(Ty::I32), Arg::Int])
        );
        assert_eq!(
            plain(SELP_b16ir),
            (
                vec![Ty::I16],
                vec![Arg::Int, Arg::Reg(Ty::I16), Arg::Reg(Ty::Pred)]
            )
        );
        assert_eq!(
            plain(MUL_WIDEs32_ri),
            (vec![Ty::I64], vec![Arg::Reg(Ty::I32), Arg::Int])
        );
        assert_eq!(
            plain(SHL64_ri),
            (vec![Ty::I64], vec![Arg::Reg(Ty::I64), Arg::Below(33)])
        );
        assert_eq!(
            plain(FDIV32ri_prec).1,
            vec![Arg::Reg(Ty::F32), Arg::Float(Ty::F32, false), Arg::Ftz]
        );
        assert_eq!(plain(POPCr64), (vec![Ty::I32], vec![Arg::Reg(Ty::I64)]));
        assert_eq!(
            plain(I64toV2I32),
            (vec![Ty::I32; 2], vec![Arg::Reg(Ty::I64)])
        );
        assert_eq!(
            plain(BITCONVERT_64_I2F),
            (vec![Ty::F64], vec![Arg::Reg(Ty::I64)])
        );
        assert_eq!(
            plain(SETP_f32rr).1,
            vec![
                Arg::Reg(Ty::F32),
                Arg::Reg(Ty::F32),
                Arg::Cmp { float: true },
                Arg::Ftz
            ]
        );
        assert_eq!(
            shape(LDV_i64_v4).unwrap(),
            Shape::Load {
                form: LoadForm::Ld,
                lanes: 4,
                elem: Ty::I64
            }
        );
        assert_eq!(
            shape(LD_GLOBAL_NC_v2i16).unwrap(),
            Shape::Load {
                form: LoadForm::Nc,
                lanes: 2,
                elem: Ty::I16
            }
        );
        assert_eq!(shape(Return).unwrap(), Shape::Structural);
        assert_eq!(shape(COPY).unwrap(), Shape::Hand);
    }
}
