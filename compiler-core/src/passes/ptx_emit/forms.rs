//! The PTX form of every opcode in the table: which instruction text a MIR
//! instruction prints as, and how its operands (including llc-22's modifier
//! immediates) turn into PTX operands.
//!
//! Operand layouts follow llc-22's records: `LD_i32 sem, scope, space, type, width,
//! used-bytes, base, offset`; `ST_i32 value, sem, scope, space, width, base, offset`;
//! `SETP_i32rr a, b, compare-mode`; `CVT_* source, conversion-mode`; float
//! arithmetic takes a trailing flush-to-zero flag (absent in CICC-era MIR).
//!
//! The ptx column of an opcode's row in `mir/nvptx.isa` picks its form: `described`
//! reads every kind the description spells (`op:`, `ld:`, `setp:`, `sreg:`, `call:`,
//! ...); the rows marked `hand` go to the `*_form` functions below, one per family.

mod template;

use super::{block_label, RegMap};
use crate::entity::EntityRef;
use crate::mir::operand::Sigil;
use crate::mir::{
    Function, Inst, InstData, Op, Opcode, Operand as MOp, OperandKind, RegClass, SubReg,
    SubRegKind, VReg, ValueKind,
};
use crate::ptx::ast::{AddrBase, Imm, Inst as PInst, Operand as P, Stmt};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// What the emitter needs besides the instruction.
pub struct Cx<'a> {
    pub f: &'a Function,
    pub regs: &'a RegMap,
    /// Function number (block labels).
    pub k: usize,
    /// Steps are recorded: narrations are worth writing.
    pub tracing: bool,
}

/// A narration, formatted only when steps are recorded (empty otherwise): with tracing
/// off, formatting one per instruction cost as much as some of the printing.
macro_rules! narr {
    ($cx:expr, $($arg:tt)*) => {
        if $cx.tracing {
            alloc::format!($($arg)*)
        } else {
            String::new()
        }
    };
}

pub(crate) use narr;

/// The statements printed for one MIR instruction, with its narration.
pub struct Emitted {
    pub stmts: Vec<Stmt>,
    pub kind: &'static str,
    pub narration: String,
}

type R<T> = Result<T, String>;

/// Why an opcode of the table has no PTX form (None: it has one): the description's
/// `none:WHY` form.
pub fn no_form_reason(op: Op) -> Option<&'static str> {
    Some(match op.ptx().strip_prefix("none:")? {
        "phi" => "PHI has no PTX form: phi-elimination must lower it to COPYs first",
        "subreg" => {
            "sub-register pseudos have no PTX form: two-address must lower them to COPYs first"
        }
        _ => "the instruction description gives it no PTX form",
    })
}

/// A one-line summary of an opcode's PTX form, for listings and docs.
#[cfg(feature = "testkit")]
pub fn ptx_form_summary(op: Op) -> Option<&'static str> {
    if no_form_reason(op).is_some() {
        return None;
    }
    if let Some(text) = hand_summary(op) {
        return Some(text);
    }
    let form = op.ptx();
    if form == "hand" {
        return None;
    }
    // `op:TEXT:N` reads as TEXT; the other kinds as written in the description.
    Some(match form.strip_prefix("op:").and_then(op_form) {
        Some((text, _, _)) => text,
        None => form,
    })
}

/// The summary of a form written by hand (or one the description's words would not
/// make plain, as `call:uni`).
#[cfg(feature = "testkit")]
fn hand_summary(op: Op) -> Option<&'static str> {
    use Op::*;
    Some(match op {
        COPY => "mov.<class type>",
        IMPLICIT_DEF => "// implicit-def comment",
        KILL => "(nothing)",
        EH_LABEL => "// label comment (PTX has no exception handling)",
        LIFETIME_START | LIFETIME_END | PSEUDO_PROBE => "(nothing)",
        INLINEASM => "the template text between inline-asm markers",
        GOTO => "bra.uni (or nothing when falling through)",
        CBranch => "@%p bra",
        CBranchOther => "@!%p bra",
        Return => "ret",
        MOV_B1_i | MOV_B16_i | MOV_B32_i | MOV_B64_i | MOV_F32_i | MOV_F64_i | MOV_B64_sym => {
            "mov of an immediate or symbol address"
        }
        IMOV1rr | IMOV16rr | IMOV32rr | IMOV64rr | FMOV16rr | FMOV32rr | FMOV64rr | MOV_B32_r
        | MOV_B64_r | BITCONVERT_32_I2F | BITCONVERT_32_F2I | BITCONVERT_64_I2F
        | BITCONVERT_64_F2I => "mov between registers",
        V2I32toI64 | I64toV2I32 | V2I64toI128 | I128toV2I64 | I32toV2I16 | V2I16toI32 => {
            "mov packing or unpacking a vector of halves"
        }
        LoadParamMemI32 | LoadParamMemI64 | LoadParamMemF32 => "ld.param from retval0",
        StoreParamI32 | StoreParamF32 => "st.param into param<N>",
        StoreRetvalI32 | StoreRetvalF32 => "st.param into func_retval0",
        Callseq_Start => "{ // callseq N, M (a scope for the call's .param declarations)",
        Callseq_End => "} // callseq N",
        DECLARE_PARAM_scalar => ".param .bN paramK",
        DECLARE_PARAM_array => ".param .align A .b8 paramK[size]",
        CALL_UNI => "call.uni (retval0), callee, (param0, ...)",
        CALL => "call (retval0), %callee, (param0, ...), prototype_N",
        CALL_PROTOTYPE => "prototype_N : .callprototype ...",
        INT_PTX_SREG_TID_x
        | INT_PTX_SREG_TID_y
        | INT_PTX_SREG_NTID_x
        | INT_PTX_SREG_CTAID_x
        | INT_PTX_SREG_CTAID_y
        | INT_PTX_SREG_NCTAID_x
        | INT_PTX_SREG_LANEID => "mov.u32 from a special register",
        BARRIER_CTA_SYNC_ALIGNED_ALL_i => "bar.sync",
        TEX_UNIFIED_2D_F32_F32_R | TEX_2D_V4F32_F32 => "tex.2d.v4.f32.f32",
        TEX_UNIFIED_1D_S32_S32_R => "tex.1d.v4.s32.s32",
        MMA_M16N8K8_TF32 | MMA_M16N8K8_TF32_ACC => {
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
        }
        WMMA_MMA_M16N16K16_F16 => "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16",
        WGMMA_M64N32K16_F32 => {
            "A and B staged in shared memory, wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 \
             (sm_90a)"
        }
        TEX_2D_V4F32_F32_P => "tex.2d.v4.f32.f32 {d}|%texpred",
        CP_ASYNC_CA_SHARED => "cp.async.ca.shared.global, wait_group 0, ld.shared (sm_80)",
        TMA_LOAD_2D => {
            "mbarrier + cp.async.bulk.shared::cluster.global, try_wait, ld.shared (sm_90)"
        }
        SHFL_SYNC_IDX_i32 => "shfl.sync.idx.b32",
        SHFL_SYNC_DOWN_i32 => "shfl.sync.down.b32",
        _ => return None,
    })
}

/// The PTX type a move of this class uses (`mov.b32` for llc-22's width classes,
/// `mov.f32` / `mov.u32` for CICC-era typed classes).
pub fn mov_type(c: RegClass) -> &'static str {
    let base = match c {
        RegClass::Scalar(s) | RegClass::Tuple { base: s, .. } => s,
        RegClass::Foreign(_) => return "b32",
    };
    let info = base.info();
    let bits = info.family.bits();
    match (info.kind, bits) {
        (_, 1) => "pred",
        (ValueKind::Untyped, 16) => "b16",
        (ValueKind::Untyped, 32) => "b32",
        (ValueKind::Untyped, 64) => "b64",
        (ValueKind::Untyped, _) => "b128",
        (ValueKind::Int, 16) => "u16",
        (ValueKind::Int, 32) => "u32",
        (ValueKind::Int, 64) => "u64",
        (ValueKind::Int, _) => "b128",
        (ValueKind::Float, 16) => "b16",
        (ValueKind::Float, 32) if info.name == "float16x2regs" => "b32",
        (ValueKind::Float, 32) => "f32",
        (ValueKind::Float, _) => "f64",
        (ValueKind::Pred, _) => "pred",
    }
}

impl Cx<'_> {
    /// A register operand's PTX names, one per lane (for the sibling form files).
    pub fn names_of(&self, o: &MOp) -> R<Vec<String>> {
        self.names(o)
    }

    /// A register, immediate or symbol used as a 32-bit value.
    pub fn value_of(&self, o: &MOp) -> R<P> {
        self.value(o, 32)
    }

    fn class(&self, o: &MOp) -> R<RegClass> {
        let v = o.vreg_of().ok_or("expected a virtual register operand")?;
        self.regs
            .class(v)
            .ok_or_else(|| format!("%{} has no register class", v.index()))
    }

    /// The register of a register operand and the lanes it covers (all of a tuple, or
    /// the one its sub-register names).
    fn lanes(&self, o: &MOp) -> R<(VReg, core::ops::Range<u8>)> {
        let v = o
            .vreg_of()
            .ok_or_else(|| "expected a virtual register operand".to_string())?;
        let lanes = self.class(o)?.lanes();
        match o.subreg.map(SubReg::kind) {
            Some(SubRegKind::Lane(l)) if l >= lanes => Err(format!(
                "%{}.sub{l} names a lane its {lanes}-lane class does not have",
                v.index()
            )),
            Some(SubRegKind::Lane(l)) => Ok((v, l..l + 1)),
            Some(SubRegKind::Named(_)) => Err("named sub-registers have no PTX form".into()),
            None => Ok((v, 0..lanes)),
        }
    }

    fn lane_name(&self, v: VReg, l: u8) -> R<String> {
        self.regs
            .name(v, l)
            .ok_or_else(|| format!("%{} has no PTX register", v.index()))
    }

    /// A register operand's PTX name(s): one per lane it covers.
    fn names(&self, o: &MOp) -> R<Vec<String>> {
        let (v, lanes) = self.lanes(o)?;
        lanes.map(|l| self.lane_name(v, l)).collect()
    }

    /// A scalar register operand (named without building a list of names).
    fn reg(&self, o: &MOp) -> R<P> {
        if let OperandKind::Reg(crate::mir::Reg::Phys(p)) = o.kind {
            if let Some(name) = super::frame::ptx_name(self.f.sym(p)) {
                return Ok(P::Reg(name.into()));
            }
        }
        let (v, lanes) = self.lanes(o)?;
        if lanes.len() != 1 {
            return Err(format!(
                "a {}-lane tuple register where one register is expected",
                lanes.len()
            ));
        }
        Ok(P::Reg(self.lane_name(v, lanes.start)?))
    }

    /// A register, immediate or symbol used as a value.
    fn value(&self, o: &MOp, float_bits: u32) -> R<P> {
        match o.kind {
            OperandKind::Reg(_) => self.reg(o),
            OperandKind::Imm(v) => Ok(P::Imm(Imm::Int(v))),
            OperandKind::FpImm(fp) => fp_imm(self.f.sym(fp.ty), self.f.sym(fp.text), float_bits),
            OperandKind::Global { sym, .. } => Ok(P::Sym(self.f.sym(sym).into())),
            OperandKind::Block(b) => Ok(P::Sym(block_label(self.k, self.f.blocks[b].number))),
            _ => Err("this operand kind has no PTX spelling".into()),
        }
    }

    /// `[base+offset]` from a base operand and an offset immediate.
    fn addr(&self, base: &MOp, off: &MOp) -> R<P> {
        let offset = off
            .imm_value()
            .ok_or("expected an immediate address offset")?;
        let base = match base.kind {
            OperandKind::Reg(_) => match self.reg(base)? {
                P::Reg(r) => AddrBase::Reg(r),
                _ => unreachable_base(),
            },
            OperandKind::Global {
                sym, offset: o2, ..
            } => {
                return Ok(P::Addr {
                    base: AddrBase::Sym(self.f.sym(sym).into()),
                    offset: offset + o2,
                    extra: Vec::new(),
                })
            }
            OperandKind::Imm(v) => {
                return Ok(P::Addr {
                    base: AddrBase::None,
                    offset: v + offset,
                    extra: Vec::new(),
                })
            }
            _ => return Err("expected a register or symbol as the address base".into()),
        };
        Ok(P::Addr {
            base,
            offset,
            extra: Vec::new(),
        })
    }
}

fn unreachable_base() -> AddrBase {
    AddrBase::None
}

/// A MIR floating-point immediate (`float 5.000000e-01`, `double 0x3FF8000000000000`,
/// `half 0xH3C00`) as a PTX bit-pattern literal of `bits` width (32 or 64).
pub fn fp_imm(ty: &str, text: &str, bits: u32) -> R<P> {
    let bad = || format!("cannot read `{ty} {text}` as a number");
    if let Some(h) = text
        .strip_prefix("0xH")
        .or_else(|| text.strip_prefix("0xR"))
    {
        let v = u16::from_str_radix(h, 16).map_err(|_| bad())?;
        return Ok(P::Imm(Imm::Hex(v as u64)));
    }
    let value: f64 = if let Some(h) = text.strip_prefix("0x") {
        f64::from_bits(u64::from_str_radix(h, 16).map_err(|_| bad())?)
    } else {
        text.parse().map_err(|_| bad())?
    };
    let wide = ty == "double" || bits == 64;
    Ok(P::Imm(if wide {
        Imm::F64(value.to_bits())
    } else {
        Imm::F32((value as f32).to_bits())
    }))
}

/// A COPY's PTX: one `mov` per lane (or the physical-register read it stands for).
fn copy_form(cx: &Cx<'_>, dst: &MOp, src: &MOp) -> R<Emitted> {
    if let Some(crate::mir::Reg::Phys(p)) = src.get_reg() {
        return copy_from_physical(cx, dst, cx.f.sym(p));
    }
    let dn = cx.names(dst)?;
    let sn = cx.names(src)?;
    if dn.len() != sn.len() {
        return Err(format!(
            "COPY between {} and {} registers",
            dn.len(),
            sn.len()
        ));
    }
    let (dc, sc) = (cx.class(dst)?, cx.class(src)?);
    if dc.lane_class().family() != sc.lane_class().family() {
        return Err("COPY between registers of different widths".into());
    }
    let t = if mov_type(dc) == mov_type(sc) {
        mov_type(dc).to_string()
    } else {
        format!("b{}", super::family_bits(dc.lane_class()))
    };
    let t = if t == "b1" { "pred".to_string() } else { t };
    let stmts: Vec<Stmt> = dn
        .iter()
        .zip(&sn)
        .map(|(a, b)| {
            ins(
                format!("mov.{t}"),
                vec![P::Reg(a.clone()), P::Reg(b.clone())],
            )
        })
        .collect();
    let narration = if !cx.tracing {
        String::new()
    } else if stmts.len() == 1 {
        format!(
            "COPY becomes `mov.{t} {}, {}`: PTX has virtual registers, so a copy the \
             coalescers left is a plain move.",
            dn[0], sn[0]
        )
    } else {
        format!(
            "COPY of a {}-lane tuple becomes one mov.{t} per lane.",
            stmts.len()
        )
    };
    Ok(Emitted {
        stmts,
        kind: "copy_to_mov",
        narration,
    })
}

fn ins(opcode: impl Into<String>, ops: Vec<P>) -> Stmt {
    Stmt::Inst(PInst::new(opcode, ops))
}

fn need(d: &InstData, n: usize) -> R<&[MOp]> {
    let ops = &d.operands[d.lhs_defs as usize..];
    if ops.len() < n {
        return Err(format!(
            "{} expects at least {n} operands after its results, found {}",
            d.table_name(),
            ops.len()
        ));
    }
    Ok(ops)
}

/// The name a symbol operand (`@callee`, `&param0`) carries.
fn symbol_name(cx: &Cx<'_>, o: &MOp) -> R<String> {
    match o.kind {
        OperandKind::Global { sym, .. } => Ok(cx.f.sym(sym).to_string()),
        _ => Err("expected a symbol operand".into()),
    }
}

fn imm(o: &MOp, what: &str) -> R<i64> {
    o.imm_value()
        .ok_or_else(|| format!("expected an immediate {what}"))
}

/// llc-22's memory scope code → PTX qualifier (none for the default scopes).
fn scope_word(scope: i64) -> R<&'static str> {
    Ok(match scope {
        0 | 5 => "",
        1 => ".cta",
        2 => ".cluster",
        3 => ".gpu",
        4 => ".sys",
        s => return Err(format!("unknown memory scope code {s}")),
    })
}

/// llc-22's load/store ordering code → PTX qualifier.
fn sem_word(sem: i64, scope: i64) -> R<String> {
    let scope_word = scope_word(scope)?;
    Ok(match sem {
        0 => String::new(),
        8 => ".volatile".into(),
        2 => format!(".relaxed{scope_word}"),
        4 => format!(".acquire{scope_word}"),
        5 => format!(".release{scope_word}"),
        6 => format!(".acq_rel{scope_word}"),
        9 => ".mmio.relaxed.sys".into(),
        s => return Err(format!("unknown memory ordering code {s}")),
    })
}

fn space_word(code: i64) -> R<&'static str> {
    Ok(match code {
        0 => "",
        1 => ".global",
        3 => ".shared",
        4 => ".const",
        5 => ".local",
        7 => ".shared::cluster",
        101 => ".param",
        c => return Err(format!("unknown address space code {c}")),
    })
}

fn type_letter(code: i64) -> R<&'static str> {
    Ok(match code {
        0 => "u",
        1 => "s",
        2 => "f",
        3 => "b",
        c => return Err(format!("unknown load type code {c}")),
    })
}

/// The compare-mode immediate of SETP: (condition, integer type letter).
fn cmp_mode(mode: i64, float: bool) -> R<String> {
    let base = mode & 0xff;
    let names = [
        "eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan",
    ];
    let name = *names
        .get(base as usize)
        .ok_or_else(|| format!("unknown compare mode {mode}"))?;
    if float {
        let ftz = if mode & 0x100 != 0 { ".ftz" } else { "" };
        return Ok(format!("{name}{ftz}"));
    }
    let (cond, letter) = match base {
        0 | 1 => (name, "b"),
        2..=5 => (name, "s"),
        6 | 7 => (&name[..2], "b"),
        8..=11 => (&name[..2], "u"),
        _ => return Err(format!("compare mode {name} has no integer form")),
    };
    Ok(format!("{cond}.{letter}"))
}

/// The conversion-mode immediate of CVT: rounding, then `.ftz`, `.sat`, `.relu`.
fn cvt_mode(mode: i64) -> R<String> {
    let rnd = match mode & 0xf {
        0 => "",
        1 => ".rni",
        2 => ".rzi",
        3 => ".rmi",
        4 => ".rpi",
        5 => ".rn",
        6 => ".rz",
        7 => ".rm",
        8 => ".rp",
        9 => ".rna",
        m => return Err(format!("unknown rounding mode {m}")),
    };
    let mut s = String::from(rnd);
    if mode & 0x10 != 0 {
        s.push_str(".ftz");
    }
    if mode & 0x20 != 0 {
        s.push_str(".sat");
    }
    if mode & 0x40 != 0 {
        s.push_str(".relu");
    }
    Ok(s)
}

/// `TEXT:N[:ftz]` of an `op:` form (TEXT may hold `::`, as in `shared::cluster`).
fn op_form(arg: &str) -> Option<(&str, usize, bool)> {
    let (rest, ftz) = match arg.strip_suffix(":ftz") {
        Some(r) => (r, true),
        None => (arg, false),
    };
    let (text, n) = rest.rsplit_once(':')?;
    Some((text, n.parse().ok()?, ftz))
}

/// An instruction whose PTX form the description gives (`ptx` column other than
/// `hand`; syntax in `mir/nvptx.isa`).
fn described(cx: &Cx<'_>, op: Op, d: &InstData, defs: &[&MOp]) -> R<Emitted> {
    let form = op.ptx();
    let name = op.name();
    let (kind, arg) = form.split_once(':').unwrap_or((form, ""));
    let def = |k: usize| result_reg(cx, op, defs, k);
    if let Some(f) = template::form(kind) {
        return template::emit(cx, op, d, arg, f);
    }
    // The forms of one instruction built here: its text, operands, step kind and
    // narration, printed by one tail below.
    let (text, o, kind, narration) = match kind {
        // `op:TEXT:N[:ftz]` is the template `TEXT #0, ..` (results, then N uses) with the
        // optional flush-to-zero flag after them decoded right before the type.
        "op" => {
            let (text, n, ftz) = op_form(arg).ok_or_else(|| format!("bad form `{form}`"))?;
            need(d, n)?;
            let mut t = String::from(text);
            let m = defs.len() + n;
            if ftz {
                t.insert_str(t.rfind('.').unwrap_or(t.len()), &format!("<{m}:ftz?>"));
            }
            for k in 0..m {
                t.push_str(if k == 0 { " #" } else { ", #" });
                t.push_str(&k.to_string());
            }
            return template::emit(cx, op, d, &t, template::PLAIN);
        }
        "brx" => return jump_table(cx, d, arg),
        "sym" => return template::emit(cx, op, d, arg, template::PLAIN),
        "ld" | "ldnc" | "ldu" | "st" => return memory_row(cx, op, d, defs),
        "sreg" => (
            String::from("mov.u32"),
            vec![def(0)?, P::Reg(arg.into())],
            "special_register",
            narr!(cx, "{name} reads the special register {arg} with a mov."),
        ),
        "callseq" => return call_scope(cx, op, d, arg),
        "param" => return declare_param(cx, op, d, arg),
        "call" => return call(cx, op, d, arg),
        "setp" => {
            let ops = need(d, 3)?;
            let float = arg.starts_with('f');
            let mut mode = imm(&ops[2], "compare mode")?;
            if float
                && ops
                    .get(3)
                    .and_then(|o| o.imm_value())
                    .is_some_and(|v| v != 0)
            {
                mode |= 0x100;
            }
            let cond = cmp_mode(mode, float)?;
            let text = if float {
                format!("setp.{cond}.{arg}")
            } else {
                format!("setp.{cond}{arg}")
            };
            let bits = if arg == "f64" || arg == "64" { 64 } else { 32 };
            let o = vec![def(0)?, cx.value(&ops[0], bits)?, cx.value(&ops[1], bits)?];
            let narration = narr!(cx, "{name} with compare mode {mode} prints as `{text}`.");
            (text, o, "compare", narration)
        }
        "cvt" | "cvtx" => {
            let (mode, n) = if kind == "cvt" {
                let ops = need(d, 2)?;
                (cvt_mode(imm(&ops[1], "conversion mode")?)?, 1)
            } else {
                (String::new(), 1)
            };
            let ops = need(d, n)?;
            let text = format!("cvt{mode}.{arg}");
            let o = vec![def(0)?, cx.reg(&ops[0])?];
            let narration = narr!(cx, "{name} prints as `{text}`.");
            (text, o, "instruction", narration)
        }
        _ => {
            return Err(format!(
                "`{name}`: unknown PTX form `{form}` in the instruction description"
            ))
        }
    };
    Ok(one(ins(text, o), kind, narration))
}

/// The description's memory forms: `ld:N`, `ldnc:N`, `ldu:N` (N lanes) and `st:N`.
fn memory_row(cx: &Cx<'_>, op: Op, d: &InstData, defs: &[&MOp]) -> R<Emitted> {
    let form = op.ptx();
    let name = op.name();
    let (kind, arg) = form.split_once(':').unwrap_or((form, ""));
    let n: usize = arg.parse().map_err(|_| format!("bad form `{form}`"))?;
    let vec_word = if n == 1 {
        String::new()
    } else {
        format!(".v{n}")
    };
    let full_mask = |o: &MOp| -> R<()> {
        if imm(o, "used-bytes mask")? != -1 {
            return Err("a partial used-bytes mask has no PTX form we print".into());
        }
        Ok(())
    };
    // Each form's text, address and narration; a store also its value(s).
    let (text, a, narration, stored) = match kind {
        "ld" => {
            let ops = need(d, 8)?;
            let sem = sem_word(imm(&ops[0], "ordering")?, imm(&ops[1], "scope")?)?;
            let space = space_word(imm(&ops[2], "address space")?)?;
            let letter = type_letter(imm(&ops[3], "type code")?)?;
            let width = imm(&ops[4], "width")?;
            full_mask(&ops[5])?;
            let text = format!("ld{sem}{space}{vec_word}.{letter}{width}");
            let a = cx.addr(&ops[6], &ops[7])?;
            let narration = narr!(
                cx,
                "{name} with ordering/space/type codes {}, {}, {}, {} prints as `{text}`.",
                ops[0].imm_value().unwrap_or(0),
                ops[2].imm_value().unwrap_or(0),
                ops[3].imm_value().unwrap_or(0),
                width
            );
            (text, a, narration, None)
        }
        "ldnc" | "ldu" => {
            let (text, a) = if kind == "ldnc" {
                let ops = need(d, 5)?;
                let letter = type_letter(imm(&ops[0], "type code")?)?;
                let width = imm(&ops[1], "width")?;
                full_mask(&ops[2])?;
                let text = format!("ld.global.nc{vec_word}.{letter}{width}");
                (text, cx.addr(&ops[3], &ops[4])?)
            } else {
                let ops = need(d, 3)?;
                let width = imm(&ops[0], "width")?;
                let text = format!("ldu.global{vec_word}.b{width}");
                (text, cx.addr(&ops[1], &ops[2])?)
            };
            let narration = narr!(
                cx,
                "{name} reads read-only global memory through the non-coherent path: `{text}`."
            );
            (text, a, narration, None)
        }
        "st" => {
            let ops = need(d, n + 6)?;
            let sem = sem_word(imm(&ops[n], "ordering")?, imm(&ops[n + 1], "scope")?)?;
            let space = space_word(imm(&ops[n + 2], "address space")?)?;
            let width = imm(&ops[n + 3], "width")?;
            let text = format!("st{sem}{space}{vec_word}.b{width}");
            let mut vals: Vec<P> = ops[..n]
                .iter()
                .map(|o| cx.value(o, width as u32))
                .collect::<R<_>>()?;
            let val = match vals.len() {
                1 => vals.pop().unwrap_or(P::Imm(Imm::Int(0))),
                _ => P::Vec(vals),
            };
            let a = cx.addr(&ops[n + 4], &ops[n + 5])?;
            let narration = narr!(cx, "{name} prints as `{text}`.");
            (text, a, narration, Some(val))
        }
        _ => return Err(format!("`{name}`: `{form}` is not a memory form")),
    };
    // A load writes its result register(s) (a vector of N in braces); a store reads
    // its value(s) after the address.
    let (ops, kind) = match stored {
        Some(val) => (vec![a, val], "store"),
        None => {
            let mut dests = (0..n)
                .map(|k| result_reg(cx, op, defs, k))
                .collect::<R<Vec<P>>>()?;
            let d = match dests.len() {
                1 => dests.pop().unwrap_or(P::Imm(Imm::Int(0))),
                _ => P::Vec(dests),
            };
            (vec![d, a], "load")
        }
    };
    Ok(one(ins(text, ops), kind, narration))
}

/// A jump table as llc-22 prints it (the description's `brx:` forms): the start
/// (`N`) opens the `$L_brx_N: .branchtargets` list, each item (`%bb`) adds a target,
/// and the end (`%bb, %idx, N`) closes the list with its last target and branches
/// with `brx.idx %idx, $L_brx_N`.
fn jump_table(cx: &Cx<'_>, d: &InstData, part: &str) -> R<Emitted> {
    let ops = &d.operands[..];
    let label = |o: &MOp| -> R<String> {
        match cx.value(o, 32)? {
            P::Sym(s) => Ok(s),
            _ => Err("a jump-table target must be a block".into()),
        }
    };
    let (stmts, narration) = match part {
        "start" => {
            let n = imm(need(d, 1)?.first().unwrap_or(&ops[0]), "jump-table index")?;
            (
                vec![Stmt::Directive(vec![format!("$L_brx_{n}: .branchtargets")])],
                narr!(
                    cx,
                    "The jump table's start opens list {n}: `$L_brx_{n}: .branchtargets`."
                ),
            )
        }
        "item" => {
            let t = label(&need(d, 1)?[0])?;
            (
                vec![Stmt::Directive(vec![format!("\t{t},")])],
                narr!(cx, "A jump-table item adds `{t}` to the list."),
            )
        }
        "end" => {
            let o = need(d, 3)?;
            let (t, n) = (label(&o[0])?, imm(&o[2], "jump-table index")?);
            let idx = cx.reg(&o[1])?;
            (
                vec![
                    Stmt::Directive(vec![format!("\t{t};")]),
                    ins("brx.idx", vec![idx, P::Sym(format!("$L_brx_{n}"))]),
                ],
                narr!(cx, "The jump table's end closes the list with `{t}` and branches through it: `brx.idx`."),
            )
        }
        _ => return Err(format!("unknown jump-table part `{part}`")),
    };
    Ok(Emitted {
        stmts,
        kind: "branch",
        narration,
    })
}

/// The call scope's markers (the description's `callseq:start|end`): nothing is
/// printed for them; the `{ // callseq N` scope they stand for is opened and closed
/// by the function printer.
fn call_scope(cx: &Cx<'_>, op: Op, d: &InstData, part: &str) -> R<Emitted> {
    let name = op.name();
    let n = imm(&need(d, 1)?[0], "call sequence number")?;
    let (kind, what) = match part {
        "start" => ("callseq_start", "opens"),
        "end" => ("callseq_end", "closes"),
        _ => return Err(format!("unknown call-scope part `{part}`")),
    };
    Ok(Emitted {
        stmts: Vec::new(),
        kind,
        narration: narr!(
            cx,
            "{name} {what} the `{{ // callseq {n}` scope that holds the call's own .param declarations."
        ),
    })
}

/// A call parameter's declaration (the description's `param:scalar|array`):
/// `.param .bN name` or `.param .align A .b8 name[size]`.
fn declare_param(cx: &Cx<'_>, op: Op, d: &InstData, shape: &str) -> R<Emitted> {
    let name = op.name();
    let array = match shape {
        "scalar" => false,
        "array" => true,
        _ => return Err(format!("unknown parameter shape `{shape}`")),
    };
    let ops = need(d, if array { 3 } else { 2 })?;
    let pname = symbol_name(cx, &ops[0])?;
    let (words, dims) = if array {
        let align = imm(&ops[1], "alignment")?;
        let size = imm(&ops[2], "size")?;
        let words = vec![
            ".param".into(),
            ".align".into(),
            align.to_string(),
            ".b8".into(),
        ];
        (words, vec![Some(size as u32)])
    } else {
        let bits = imm(&ops[1], "width")?;
        (vec![".param".into(), format!(".b{bits}")], Vec::new())
    };
    let decl = crate::ptx::ast::VarDecl {
        words,
        name: pname.clone(),
        dims,
        init: None,
    };
    Ok(one(
        Stmt::Var(decl),
        "param_decl",
        narr!(
            cx,
            "{name} declares the call's parameter {pname} inside its scope."
        ),
    ))
}

/// The description's `call:` forms: `uni` (`call.uni` of a named function),
/// `indirect` (`call` through a register, naming its prototype) and `prototype` (the
/// prototype's line, as llc-22 spelled it in the MIR).
fn call(cx: &Cx<'_>, op: Op, d: &InstData, how: &str) -> R<Emitted> {
    let name = op.name();
    let indirect = match how {
        "uni" => false,
        "indirect" => true,
        "prototype" => {
            let text = symbol_name(cx, &need(d, 1)?[0])?;
            return Ok(Emitted {
                stmts: vec![Stmt::Directive(vec![text])],
                kind: "call",
                narration: narr!(cx, "{name} declares the indirect call's prototype."),
            });
        }
        _ => return Err(format!("unknown call form `{how}`")),
    };
    let ops = need(d, if indirect { 4 } else { 3 })?;
    let callee = if indirect {
        match cx.value(&ops[0], 64)? {
            P::Reg(r) | P::Sym(r) => r,
            _ => return Err("an indirect call's callee must be a register".into()),
        }
    } else {
        symbol_name(cx, &ops[0])?
    };
    let nret = imm(&ops[1], "result count")?;
    let nparams = imm(&ops[2], "parameter count")?;
    let mut o = Vec::new();
    if nret > 0 {
        o.push(P::Paren(
            (0..nret).map(|k| P::Sym(format!("retval{k}"))).collect(),
        ));
    }
    o.push(P::Sym(callee.clone()));
    o.push(P::Paren(
        (0..nparams).map(|k| P::Sym(format!("param{k}"))).collect(),
    ));
    if indirect {
        let proto = imm(&ops[3], "prototype number")?;
        o.push(P::Sym(format!("prototype_{proto}")));
    }
    Ok(one(
        ins(if indirect { "call" } else { "call.uni" }, o),
        "call",
        narr!(
            cx,
            "{name} calls {callee} with {nparams} parameter(s) and {nret} result(s), \
             all passed through the .param variables of the call's scope."
        ),
    ))
}

/// Emits one instruction.
pub fn emit_inst(cx: &Cx<'_>, i: Inst) -> R<Emitted> {
    let d = &cx.f.insts[i];
    let op = match d.opcode {
        Opcode::Known(op) => op,
        Opcode::Other(s) => {
            let name = cx.f.sym(s);
            let why = if name.starts_with("anonymous_") {
                "llc-22 prints WMMA/MMA/shuffle intrinsics under unnamed TableGen records, so \
                 the MIR does not say which PTX instruction this is"
            } else {
                "the opcode is not in the NVPTX table"
            };
            return Err(format!("`{name}` has no PTX form: {why}"));
        }
    };
    if let Some(why) = no_form_reason(op) {
        return Err(format!("`{}`: {why}", op.name()));
    }
    let defs: Vec<&MOp> = d.operands[..d.lhs_defs as usize].iter().collect();
    let name = op.name();
    if op.ptx() != "hand" {
        return described(cx, op, d, &defs);
    }
    for form in [pseudo_form, move_form, texture_form, matrix_form, sync_form] {
        if let Some(e) = form(cx, op, i, d, &defs)? {
            return Ok(e);
        }
    }
    Err(format!("`{name}` has no PTX form in this emitter"))
}

/// COPY, IMPLICIT_DEF, KILL, labels, markers, inline asm and conditional branches.
fn pseudo_form(cx: &Cx<'_>, op: Op, _: Inst, d: &InstData, defs: &[&MOp]) -> R<Option<Emitted>> {
    use Op::*;
    let name = op.name();
    let e: R<Emitted> = match op {
        COPY => {
            let (dst, src) = (defs.first().ok_or("COPY without a result")?, need(d, 1)?);
            copy_form(cx, dst, &src[0])
        }
        IMPLICIT_DEF => {
            let n = cx.names(defs.first().ok_or("IMPLICIT_DEF without a result")?)?;
            Ok(one(
                Stmt::Comment(format!("implicit-def: {}", n.join(", "))),
                "implicit_def",
                "IMPLICIT_DEF leaves its register undefined; only a comment is printed.".into(),
            ))
        }
        KILL => {
            // `dst = KILL src` names one register twice once registers are allocated;
            // between two virtual registers it still moves the value (as the
            // interpreter reads it), so it prints as the COPY it stands for.
            let src = d.operands[d.lhs_defs as usize..].first();
            match (defs.first(), src) {
                (Some(dst), Some(src))
                    if src.get_reg().is_some() && cx.names(dst)? != cx.names(src)? =>
                {
                    let mut e = copy_form(cx, dst, src)?;
                    e.narration = narr!(
                        cx,
                        "KILL between two different virtual registers moves the value like a \
                         COPY. {}",
                        e.narration
                    );
                    Ok(e)
                }
                _ => Ok(Emitted {
                    stmts: Vec::new(),
                    kind: "kill",
                    narration: "KILL only marks a live range's end; nothing is printed.".into(),
                }),
            }
        }
        EH_LABEL => {
            let label = d
                .operands
                .iter()
                .find_map(|o| match o.kind {
                    crate::mir::OperandKind::Verbatim(s) => Some(cx.f.sym(s).to_string()),
                    _ => None,
                })
                .unwrap_or_default();
            Ok(one(
                Stmt::Comment(format!("EH_LABEL {label}")),
                "label",
                "PTX has no exception handling, so the label survives only as a comment.".into(),
            ))
        }
        LIFETIME_START | LIFETIME_END | PSEUDO_PROBE => Ok(Emitted {
            stmts: Vec::new(),
            kind: "marker",
            narration: narr!(cx, "{name} only annotates the code; nothing is printed."),
        }),
        INLINEASM => inline_asm(cx, d),
        CBranch | CBranchOther => {
            let ops = need(d, 2)?;
            let p = match cx.reg(&ops[0])? {
                P::Reg(r) => r,
                _ => return Err("expected a predicate register".into()),
            };
            let negated = op == CBranchOther;
            let t = cx.value(&ops[1], 32)?;
            let mut inst = PInst::new("bra", vec![t]);
            inst.guard = Some(crate::ptx::ast::Guard {
                negated,
                reg: p.clone(),
            });
            let bang = if negated { "!" } else { "" };
            Ok(one(
                Stmt::Inst(inst),
                "branch",
                narr!(cx, "{name} becomes a branch guarded by @{bang}{p}."),
            ))
        }
        _ => return Ok(None),
    };
    Ok(Some(e?))
}

/// Immediate moves and the stores of call arguments (the register moves, bit
/// conversions, vector packing and the return-value moves are template rows of the
/// description: [`template`]).
fn move_form(cx: &Cx<'_>, op: Op, _: Inst, d: &InstData, defs: &[&MOp]) -> R<Option<Emitted>> {
    use Op::*;
    let name = op.name();
    let def = |k: usize| result_reg(cx, op, defs, k);
    let e: R<Emitted> = match op {
        MOV_B1_i | MOV_B16_i | MOV_B32_i | MOV_B64_i | MOV_F32_i | MOV_F64_i | MOV_B64_sym => {
            let ops = need(d, 1)?;
            let dst = defs.first().ok_or("move without a result")?;
            let c = cx.class(dst)?;
            let bits = super::family_bits(c);
            let t = mov_type(c);
            let v = cx.value(&ops[0], bits)?;
            let text = format!("mov.{t}");
            Ok(one(
                ins(text.clone(), vec![def(0)?, v]),
                "instruction",
                narr!(
                    cx,
                    "{name} prints as `{text}` with the value as an immediate."
                ),
            ))
        }
        StoreParamI32 | StoreParamF32 => {
            let ops = need(d, 3)?;
            let (a, b) = (imm(&ops[1], "parameter")?, imm(&ops[2], "offset")?);
            let t = if op == StoreParamF32 { "f32" } else { "b32" };
            Ok(one(
                ins(
                    format!("st.param.{t}"),
                    vec![P::addr_sym(format!("param{a}"), b), cx.value(&ops[0], 32)?],
                ),
                "param_copy",
                narr!(cx, "{name} writes call argument {a} into param{a}."),
            ))
        }
        _ => return Ok(None),
    };
    Ok(Some(e?))
}

/// Texture fetches and the asynchronous copies.
fn texture_form(cx: &Cx<'_>, op: Op, i: Inst, d: &InstData, defs: &[&MOp]) -> R<Option<Emitted>> {
    use Op::*;
    let name = op.name();
    let e: R<Emitted> = match op {
        TEX_UNIFIED_2D_F32_F32_R | TEX_UNIFIED_1D_S32_S32_R | TEX_2D_V4F32_F32
        | TEX_2D_V4F32_F32_P => {
            let n = if op == TEX_UNIFIED_1D_S32_S32_R { 1 } else { 2 };
            let ops = need(d, 1 + n)?;
            let dsts = tuple_or_defs(cx, defs)?;
            if dsts.len() != 4 {
                return Err(format!("{name} needs four results, found {}", dsts.len()));
            }
            let P::Reg(h) = cx.reg(&ops[0])? else {
                return Err("expected a texture handle register".into());
            };
            let coords: Vec<P> = ops[1..1 + n].iter().map(|o| cx.reg(o)).collect::<R<_>>()?;
            let text = if n == 2 {
                "tex.2d.v4.f32.f32"
            } else {
                "tex.1d.v4.s32.s32"
            };
            let a = P::Addr {
                base: AddrBase::Reg(h),
                offset: 0,
                extra: vec![P::Vec(coords)],
            };
            let (result, narration) = if op == TEX_2D_V4F32_F32_P {
                let pair = P::Pair(
                    alloc::boxed::Box::new(P::Vec(dsts)),
                    alloc::boxed::Box::new(P::reg(TEXPRED)),
                );
                let why = narr!(
                    cx,
                    "{name} returns four texels and, after the `|`, the residency predicate \
                     the DAG kept in $texpred; it prints into the function's {TEXPRED}."
                );
                (pair, why)
            } else {
                let why = narr!(
                    cx,
                    "{name} returns four texels; their registers print in braces."
                );
                (P::Vec(dsts), why)
            };
            Ok(one(ins(text, vec![result, a]), "tuple_result", narration))
        }
        CP_ASYNC_CA_SHARED => super::async_copy::cp_async(cx, defs, need(d, 1)?),
        TMA_LOAD_2D => super::async_copy::tma_load(cx, i, defs, need(d, 2)?),
        _ => return Ok(None),
    };
    Ok(Some(e?))
}

/// Matrix multiply-accumulate (mma, wmma, wgmma).
fn matrix_form(cx: &Cx<'_>, op: Op, _: Inst, d: &InstData, defs: &[&MOp]) -> R<Option<Emitted>> {
    use Op::*;
    let name = op.name();
    let e: R<Emitted> = match op {
        MMA_M16N8K8_TF32 | MMA_M16N8K8_TF32_ACC => {
            let ops = need(d, 3)?;
            let dsts = tuple_or_defs(cx, defs)?;
            if dsts.len() != 4 {
                return Err(format!("{name} needs a four-register result"));
            }
            let a = cx.reg(&ops[0])?;
            let b = cx.reg(&ops[1])?;
            let c: Vec<P> = if op == MMA_M16N8K8_TF32_ACC {
                cx.names(&ops[2])?.into_iter().map(P::Reg).collect()
            } else {
                vec![cx.reg(&ops[2])?; 4]
            };
            if c.len() != 4 {
                return Err(format!("{name} needs a four-register accumulator"));
            }
            // The A and B fragments of a tf32 mma are `.b32` registers: a source in the
            // `.f32` file (CICC's float32regs) is moved into a scoped `.b32` first.
            let in_f32_file = |o: &MOp| {
                cx.class(o).is_ok_and(|c| match c.lane_class() {
                    RegClass::Scalar(s) => super::reg_file(s).decl_type == ".f32",
                    _ => false,
                })
            };
            let mut moves = Vec::new();
            let mut to_b32 = |o: &MOp, x: P, k: u32| {
                if in_f32_file(o) {
                    let t = P::Reg(format!("%tf32_{k}"));
                    moves.push(ins("mov.b32", vec![t.clone(), x]));
                    t
                } else {
                    x
                }
            };
            let (a, b) = (to_b32(&ops[0], a, 0), to_b32(&ops[1], b, 1));
            let scratch = (!moves.is_empty()).then_some(moves);
            let mma = ins(
                "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                vec![
                    P::Vec(dsts),
                    P::Vec(vec![a; 4]),
                    P::Vec(vec![b; 2]),
                    P::Vec(c),
                ],
            );
            let narration = narr!(
                cx,
                "{name} prints as a warp-wide mma with its four result lanes in braces; the \
                 model's scalar sources fill every fragment register."
            );
            Ok(match scratch {
                None => one(mma, "tuple_result", narration),
                Some(moves) => {
                    let mut body = vec![Stmt::Reg(crate::ptx::ast::RegDecl {
                        words: vec![".b32".into()],
                        names: vec![("%tf32_".into(), Some(2))],
                    })];
                    body.extend(moves);
                    body.push(mma);
                    Emitted {
                        stmts: vec![Stmt::Scope(body)],
                        kind: "tuple_result",
                        narration: narr!(
                            cx,
                            "{narration} tf32 fragments are .b32 registers, so sources in the \
                             .f32 file are moved into scoped .b32 ones first."
                        ),
                    }
                }
            })
        }
        WMMA_MMA_M16N16K16_F16 => {
            let ops = need(d, 3)?;
            let dsts = tuple_or_defs(cx, defs)?;
            if dsts.len() != 8 {
                return Err(format!("{name} needs an eight-register result"));
            }
            let (a, b, c) = (cx.reg(&ops[0])?, cx.reg(&ops[1])?, cx.reg(&ops[2])?);
            Ok(one(
                ins(
                    "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16",
                    vec![
                        P::Vec(dsts),
                        P::Vec(vec![a; 8]),
                        P::Vec(vec![b; 8]),
                        P::Vec(vec![c; 4]),
                    ],
                ),
                "tuple_result",
                narr!(
                    cx,
                    "{name} prints as wmma.mma with its eight result registers in braces."
                ),
            ))
        }
        WGMMA_M64N32K16_F32 => {
            let ops = need(d, 3)?;
            let dsts = tuple_or_defs(cx, defs)?;
            if dsts.len() != 16 {
                return Err(format!("{name} needs a sixteen-register result"));
            }
            super::wgmma::emit(cx, dsts, ops)
        }
        _ => return Ok(None),
    };
    Ok(Some(e?))
}

/// Warp shuffles and the CTA barrier.
fn sync_form(cx: &Cx<'_>, op: Op, _: Inst, d: &InstData, defs: &[&MOp]) -> R<Option<Emitted>> {
    use Op::*;
    let name = op.name();
    let def = |k: usize| result_reg(cx, op, defs, k);
    let e: R<Emitted> = match op {
        SHFL_SYNC_IDX_i32 | SHFL_SYNC_DOWN_i32 => {
            let ops = need(d, 4)?;
            let text = if op == SHFL_SYNC_IDX_i32 {
                "shfl.sync.idx.b32"
            } else {
                "shfl.sync.down.b32"
            };
            let mut o = vec![def(0)?];
            for x in &ops[..4] {
                o.push(cx.value(x, 32)?);
            }
            Ok(one(
                ins(text, o),
                "instruction",
                narr!(cx, "{name} prints as `{text}`."),
            ))
        }
        BARRIER_CTA_SYNC_ALIGNED_ALL_i => {
            let ops = need(d, 1)?;
            Ok(one(
                ins("bar.sync", vec![cx.value(&ops[0], 32)?]),
                "instruction",
                "The CTA barrier prints as `bar.sync`.".into(),
            ))
        }
        _ => return Ok(None),
    };
    Ok(Some(e?))
}

/// Result `k` of an `op` instruction, as a PTX register.
fn result_reg(cx: &Cx<'_>, op: Op, defs: &[&MOp], k: usize) -> R<P> {
    cx.reg(
        defs.get(k)
            .ok_or_else(|| format!("{} is missing result {k}", op.name()))?,
    )
}

/// A form of one statement.
fn one(s: Stmt, kind: &'static str, narration: String) -> Emitted {
    Emitted {
        stmts: vec![s],
        kind,
        narration,
    }
}

/// The PTX register `$texpred` prints as (declared by functions that use it).
pub const TEXPRED: &str = "%texpred";

pub use crate::interp::param_register;

/// `COPY` out of a physical register: `$rN` is kernel parameter N-1, read with
/// `ld.param`; `$texpred` is the function's texture residency predicate.
fn copy_from_physical(cx: &Cx<'_>, dst: &MOp, phys: &str) -> R<Emitted> {
    let d = cx.reg(dst)?;
    let c = cx.class(dst)?;
    if phys == "texpred" {
        return Ok(Emitted {
            stmts: vec![ins("mov.pred", vec![d, P::reg(TEXPRED)])],
            kind: "copy_to_mov",
            narration: narr!(
                cx,
                "COPY $texpred reads the predicate the texture fetch wrote after its `|`: \
                 `mov.pred` from {TEXPRED}."
            ),
        });
    }
    let Some(n) = param_register(phys) else {
        return Err(format!(
            "COPY from the physical register ${phys} has no PTX form (only the parameter \
             registers $r1.. and $texpred have one)"
        ));
    };
    let t = mov_type(c);
    if t == "pred" {
        return Err(format!(
            "${phys} is a parameter register; a predicate register cannot receive it"
        ));
    }
    let param = format!("{}_param_{n}", cx.f.name);
    let text = format!("ld.param.{t}");
    Ok(Emitted {
        stmts: vec![ins(&text, vec![d, P::addr_sym(param.clone(), 0)])],
        kind: "param_copy",
        narration: narr!(
            cx,
            "${phys} is CICC's register for parameter {n}; PTX has no parameter registers, so \
             the copy out of it is `{text}` from [{param}]."
        ),
    })
}

/// The registers of a multi-result instruction: the lanes of its one tuple def, or
/// its several scalar defs.
fn tuple_or_defs(cx: &Cx<'_>, defs: &[&MOp]) -> R<Vec<P>> {
    let mut out = Vec::new();
    for d in defs {
        for n in cx.names(d)? {
            out.push(P::Reg(n));
        }
    }
    Ok(out)
}

/// Decodes MIR's escaped string (`\0A`, `\09`, `\\`).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() && b[i + 1] == b'\\' {
            out.push(b'\\');
            i += 2;
        } else if b[i] == b'\\' && i + 2 < b.len() {
            let h = core::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match h {
                Some(v) => {
                    out.push(v);
                    i += 3;
                }
                None => {
                    out.push(b[i]);
                    i += 1;
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// INLINEASM: fills `$N` with operand group N and parses the result as PTX.
fn inline_asm(cx: &Cx<'_>, d: &InstData) -> R<Emitted> {
    let tpl = match d.operands.first().map(|o| o.kind) {
        Some(OperandKind::Global {
            sym,
            sigil: Sigil::AmpQuoted,
            ..
        }) => unescape(cx.f.sym(sym)),
        _ => return Err("INLINEASM without its template string".into()),
    };
    // Operand groups: a flag word, then its operands.
    let mut groups: Vec<String> = Vec::new();
    let mut k = 2;
    while k < d.operands.len() {
        // Trailing non-immediates (`!srcloc` metadata) end the operand groups.
        let Some(flag) = d.operands[k].imm_value() else {
            break;
        };
        let flag = flag as u64;
        let kind = flag & 7;
        let n = ((flag >> 3) & 0x1fff) as usize;
        let ops = d
            .operands
            .get(k + 1..k + 1 + n)
            .ok_or("INLINEASM flag word counts more operands than follow")?;
        if matches!(kind, 1..=3 | 5 | 6) && ops.is_empty() {
            return Err("INLINEASM operand group without its operand".into());
        }
        let text = match kind {
            1..=3 => {
                let names = cx.names(&ops[0])?;
                names.join(", ")
            }
            5 => match ops[0].kind {
                OperandKind::Imm(v) => v.to_string(),
                _ => return Err("INLINEASM immediate group without an immediate".into()),
            },
            6 => match cx.reg(&ops[0])? {
                P::Reg(r) => format!("[{r}]"),
                _ => String::new(),
            },
            _ => String::new(),
        };
        groups.push(text);
        k += 1 + n;
    }
    let mut text = String::new();
    let chars: Vec<char> = tpl.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '$' && chars.get(i + 1) == Some(&'$') {
            text.push('$');
            i += 2;
            continue;
        }
        if c == '$' {
            let (num, next) = if chars.get(i + 1) == Some(&'{') {
                let close = chars[i..]
                    .iter()
                    .position(|&c| c == '}')
                    .ok_or("unterminated `${` in the asm template")?;
                let inner: String = chars[i + 2..i + close].iter().collect();
                let num = inner.split(':').next().unwrap_or("").to_string();
                (num, i + close + 1)
            } else {
                let mut j = i + 1;
                while j < chars.len() && chars[j].is_ascii_digit() {
                    j += 1;
                }
                (chars[i + 1..j].iter().collect::<String>(), j)
            };
            let n: usize = num
                .parse()
                .map_err(|_| format!("`${num}` in the asm template is not an operand number"))?;
            let g = groups.get(n).ok_or_else(|| {
                format!(
                    "the asm template uses ${n}, but there are {} operands",
                    groups.len()
                )
            })?;
            text.push_str(g);
            i = next;
            continue;
        }
        text.push(c);
        i += 1;
    }
    let stmts = crate::ptx::parse::parse_body(&text)
        .map_err(|e| format!("the inline asm text does not read as PTX ({e}): {text}"))?;
    let shown = text.replace('\n', " ");
    Ok(Emitted {
        stmts: vec![Stmt::InlineAsm(stmts)],
        kind: "inline_asm",
        narration: narr!(
            cx,
            "Inline asm: each $N of the template is replaced by operand N's register, giving `{}`.",
            shown.trim()
        ),
    })
}
