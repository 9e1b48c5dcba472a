//! The random program generator.
//!
//! A program is one kernel `rnd(out, in, n0, n1, x)` in SSA form, laid out as structured
//! control flow:
//!
//! ```text
//!  bb.0  params, thread offset (tid & 63) * 128, shared base, collectives
//!  seq := { straight code | if-else | if-then | do-while loop }*     (nesting ≤ max_depth)
//!     if-else:  B ─CBranch→ E,  B ↓ T…  T… ─GOTO→ J,  E… ↓ J: PHIs
//!     if-then:  B ─CBranch→ J,  B ↓ T…  T… ↓ J: PHIs              (B→J is a critical edge)
//!     loop:     P ↓ H: counter + carried PHIs (swaps among them)  … L ─CBranch→ H, L ↓ X
//!  exit  stores of live values, Return
//! ```
//!
//! Instructions come from [`GENERATED_OPS`]: every opcode the interpreter gives
//! semantics to, except the control flow and collectives the structure places itself.
//! Operands are picked among the values visible at that point (so defs dominate uses);
//! types with one class on llc-22 (`b32` for ints, floats and f16 pairs) mix freely in
//! the llc-22 dialect and stay apart in the CICC dialect (`int32regs`, `float32regs`).
//!
//! **Well defined.** Loops count to at most 4 (2 when nested); each thread writes only
//! its own 128-byte slice of `out` and of shared memory; loads read `in`, `out` or shared
//! memory inside their buffers. Values from `IMPLICIT_DEF` are *tainted*, and so is
//! everything computed from them (per lane for tuples): a tainted value may feed any
//! instruction and PHI, but never a store, a branch condition, an address or a
//! collective, so a pass may give an undefined value any content without changing
//! what the interpreter observes. Barriers and shuffles sit only in code every thread
//! runs exactly once (the top-level sequence); so do the warp and warpgroup matrix
//! multiplies, whose results depend on every lane.

use crate::interp::Rng;
use crate::liveness::set_kill_flags;
use crate::mir::{parse_module, print_module, Module, Op};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// About how many instructions (not counting the fixed prologue and epilogue).
    pub size: usize,
    /// Most nested if/loop regions.
    pub max_depth: u32,
    /// Most loops in the function.
    pub max_loops: u32,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            size: 40,
            max_depth: 3,
            max_loops: 3,
        }
    }
}

/// A generated program.
#[derive(Clone, Debug)]
pub struct Generated {
    pub seed: u64,
    /// The printed module (kill flags included): what to paste to reproduce.
    pub text: String,
    pub module: Module,
}

/// Every opcode the generator emits as an ordinary instruction, with its weight. The
/// structure adds `PHI`, `GOTO`, `CBranch`, `CBranchOther`, `Return`,
/// `BARRIER_CTA_SYNC_ALIGNED_ALL_i` and the shuffles itself ([`STRUCTURAL_OPS`]).
pub const GENERATED_OPS: &[(Op, u32)] = {
    use Op::*;
    &[
        (COPY, 12),
        (PHI, 0),
        (REG_SEQUENCE, 3),
        (INSERT_SUBREG, 3),
        (EXTRACT_SUBREG, 5),
        (SUBREG_TO_REG, 1),
        (IMPLICIT_DEF, 1),
        (INLINEASM, 3),
        (KILL, 1),
        (MOV_B1_i, 1),
        (MOV_B16_i, 1),
        (MOV_B32_i, 2),
        (MOV_B64_i, 1),
        (MOV_F32_i, 2),
        (MOV_F64_i, 1),
        (MOV_B64_sym, 1),
        (IMOV1rr, 1),
        (IMOV16rr, 1),
        (IMOV32rr, 3),
        (IMOV64rr, 2),
        (FMOV16rr, 1),
        (FMOV32rr, 3),
        (FMOV64rr, 1),
        (MOV_B32_r, 2),
        (MOV_B64_r, 1),
        (BITCONVERT_32_I2F, 1),
        (BITCONVERT_32_F2I, 1),
        (BITCONVERT_64_I2F, 1),
        (BITCONVERT_64_F2I, 1),
        (V2I32toI64, 1),
        (I64toV2I32, 1),
        (V2I64toI128, 1),
        (I128toV2I64, 1),
        (I32toV2I16, 1),
        (V2I16toI32, 1),
        (StoreRetvalI32, 1),
        (StoreRetvalF32, 1),
        (INT_PTX_SREG_TID_x, 1),
        (INT_PTX_SREG_TID_y, 1),
        (INT_PTX_SREG_NTID_x, 1),
        (INT_PTX_SREG_CTAID_x, 1),
        (INT_PTX_SREG_CTAID_y, 1),
        (INT_PTX_SREG_NCTAID_x, 1),
        (INT_PTX_SREG_LANEID, 1),
        (LD_i32, 3),
        (LD_i64, 1),
        (LD_f32, 2),
        (ST_i32, 3),
        (ST_i64, 1),
        (LDV_i32_v2, 1),
        (LDV_i32_v4, 1),
        (STV_i32_v4, 1),
        (LD_GLOBAL_NC_i32, 1),
        (LD_GLOBAL_NC_v4i32, 1),
        (LD_GLOBAL_NC_v2i64, 1),
        (cvta_to_global_64, 1),
        (ADD32rr, 4),
        (ADD32ri, 3),
        (ADD64rr, 2),
        (ADD64ri, 1),
        (SUB32rr, 2),
        (MULT32rr, 2),
        (MULT32ri, 1),
        (MUL_WIDEu32_ri, 1),
        (MUL_WIDEs32_ri, 1),
        (MAD_LO_S32rrr, 2),
        (XOR_b32rr, 2),
        (AND_b32rr, 1),
        (OR_b32rr, 1),
        (OR_b64rr, 1),
        (SRL32_ri, 1),
        (SHL32_ri, 1),
        (SHL64_ri, 1),
        (SETP_i32rr, 2),
        (SETP_i32ri, 1),
        (SETP_f32rr, 1),
        (SELP_b32rr, 2),
        (FADDf32rr, 3),
        (FADDf32ri, 1),
        (FADD_rnf32rr, 1),
        (FADD_rnf32ri, 1),
        (FSUBf32rr, 1),
        (FSUB_rnf32rr, 1),
        (FMULf32rr, 2),
        (FMUL_rnf32rr, 1),
        (FMUL_rnf16rr, 1),
        (FADD_rnf16x2rr, 1),
        (FMA_F32rrr, 2),
        (FMA_F32rir, 1),
        (CVT_f32_s32, 1),
        (CVT_f32_u32, 1),
        (CVT_f32_s64, 1),
        (CVT_f32_u64, 1),
        (CVT_f32_f16, 1),
        (CVT_s32_f32, 1),
        (CVT_u64_u32, 1),
        (CVT_u32_u64, 1),
        (TEX_UNIFIED_2D_F32_F32_R, 1),
        (TEX_UNIFIED_1D_S32_S32_R, 1),
        (TEX_2D_V4F32_F32, 1),
        (MMA_M16N8K8_TF32, 1),
        (MMA_M16N8K8_TF32_ACC, 2),
        (WMMA_MMA_M16N16K16_F16, 1),
        (WGMMA_M64N32K16_F32, 1),
        (TMA_LOAD_2D, 1),
        (CP_ASYNC_CA_SHARED, 1),
        (TEX_2D_V4F32_F32_P, 1),
        (EH_LABEL, 1),
        (LIFETIME_START, 1),
        (LIFETIME_END, 1),
        (PSEUDO_PROBE, 1),
    ]
};

/// Opcodes the program structure emits (control flow, PHIs, collectives).
pub const STRUCTURAL_OPS: &[Op] = &[
    Op::PHI,
    Op::GOTO,
    Op::CBranch,
    Op::CBranchOther,
    Op::Return,
    Op::BARRIER_CTA_SYNC_ALIGNED_ALL_i,
    Op::SHFL_SYNC_IDX_i32,
    Op::SHFL_SYNC_DOWN_i32,
];

/// Every opcode a generated program may contain.
pub fn generated_ops() -> impl Iterator<Item = Op> {
    GENERATED_OPS
        .iter()
        .filter(|(_, w)| *w > 0)
        .map(|&(op, _)| op)
        .chain(STRUCTURAL_OPS.iter().copied())
}

/// Class names: llc-22's width classes, or CICC's typed ones.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Dialect {
    Llc,
    Cicc,
}

/// The lane type of a tuple.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Lane {
    I32,
    F32,
    H2,
}

impl Lane {
    fn ty(self) -> Ty {
        match self {
            Lane::I32 => Ty::I32,
            Lane::F32 => Ty::F32,
            Lane::H2 => Ty::H2,
        }
    }
}

/// A value's type (what the generator means it to hold).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Ty {
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

const SCALARS: [Ty; 9] = [
    Ty::Pred,
    Ty::I16,
    Ty::F16,
    Ty::I32,
    Ty::F32,
    Ty::H2,
    Ty::I64,
    Ty::F64,
    Ty::I128,
];

impl Ty {
    fn class(self, d: Dialect) -> String {
        let llc = d == Dialect::Llc;
        let s = match self {
            Ty::Pred => ["b1", "int1regs"],
            Ty::I16 => ["b16", "int16regs"],
            Ty::F16 => ["b16", "float16regs"],
            Ty::I32 => ["b32", "int32regs"],
            Ty::F32 => ["b32", "float32regs"],
            Ty::H2 => ["b32", "float16x2regs"],
            Ty::I64 => ["b64", "int64regs"],
            Ty::F64 => ["b64", "float64regs"],
            Ty::I128 => ["b128", "int128regs"],
            Ty::Tup(l, n) => return format!("{}x{n}", l.ty().class(d)),
        };
        s[if llc { 0 } else { 1 }].to_string()
    }
    fn lanes(self) -> u8 {
        match self {
            Ty::Tup(_, n) => n,
            _ => 1,
        }
    }
    fn full_mask(self) -> u64 {
        match self {
            Ty::Tup(_, n) => (1u64 << n) - 1,
            _ => 1,
        }
    }
}

/// A value visible at the current point.
#[derive(Copy, Clone, Debug)]
struct Val {
    id: u32,
    ty: Ty,
    /// Lanes that may hold an undefined value (bit 0 for a scalar).
    taint: u64,
}

/// An operand as text, with the taint it carries.
#[derive(Clone, Debug)]
struct Opnd {
    text: String,
    taint: bool,
}

struct Phi {
    dst: u32,
    ty: Ty,
    /// (value text, predecessor block index); a latch entry is filled in later.
    incoming: Vec<(String, usize)>,
}

#[derive(Default)]
struct Blk {
    name: Option<&'static str>,
    phis: Vec<Phi>,
    insts: Vec<String>,
    term: Vec<String>,
    succs: Vec<usize>,
}

/// Address bases: registers that hold a thread's slice of a buffer.
struct Bases {
    /// `out + (tid & 63) * 128`: this thread's 128 bytes (stores and loads).
    out_t: u32,
    /// `in`: 8 KiB, read only.
    in_p: u32,
    /// `in + (tid & 63) * 128`.
    in_t: u32,
    /// `shared + (tid & 31) * 128`, when the program uses shared memory.
    sh_t: Option<u32>,
}

struct G<'a> {
    rng: Rng,
    cfg: &'a GenConfig,
    d: Dialect,
    blocks: Vec<Blk>,
    cur: usize,
    next: u32,
    vals: Vec<Val>,
    depth: u32,
    loop_depth: u32,
    loops: u32,
    emitted: usize,
    bases: Bases,
    /// Probability (percent) of a tied use on a two-operand instruction.
    tie_pct: u64,
}

const NAME: &str = "rnd";

/// Generates the program of `seed`.
pub fn generate(seed: u64, cfg: &GenConfig) -> Generated {
    let raw = generate_raw(seed, cfg);
    let mut module = match parse_module(&raw) {
        Ok(m) => m,
        Err(e) => panic!("testgen: seed {seed} does not parse ({e}):\n{raw}"),
    };
    for f in &mut module.functions {
        set_kill_flags(f);
    }
    let text = print_module(&module);
    Generated { seed, text, module }
}

/// The program text before kill flags are computed.
pub fn generate_raw(seed: u64, cfg: &GenConfig) -> String {
    let mut rng = Rng::new(seed);
    let d = if rng.below(2) == 0 {
        Dialect::Llc
    } else {
        Dialect::Cicc
    };
    let tie_pct = [0, 10, 30][rng.below(3) as usize];
    let mut g = G {
        rng,
        cfg,
        d,
        blocks: vec![Blk {
            name: Some("entry"),
            ..Blk::default()
        }],
        cur: 0,
        next: 0,
        vals: Vec::new(),
        depth: 0,
        loop_depth: 0,
        loops: 0,
        emitted: 0,
        bases: Bases {
            out_t: 0,
            in_p: 0,
            in_t: 0,
            sh_t: None,
        },
        tie_pct,
    };
    g.prologue();
    let size = cfg.size;
    g.seq(size);
    g.epilogue();
    g.render()
}

impl G<'_> {
    // ---- basics -------------------------------------------------------------------

    fn below(&mut self, n: u64) -> u64 {
        self.rng.below(n.max(1))
    }
    fn chance(&mut self, pct: u64) -> bool {
        self.rng.below(100) < pct
    }
    fn pick<'v, T>(&mut self, xs: &'v [T]) -> &'v T {
        &xs[self.rng.below(xs.len() as u64) as usize]
    }

    fn new_vreg(&mut self) -> u32 {
        let v = self.next;
        self.next += 1;
        v
    }

    /// `%N:class` for a def.
    fn def_text(&self, id: u32, ty: Ty) -> String {
        format!("%{id}:{}", ty.class(self.d))
    }

    fn push(&mut self, line: String) {
        self.blocks[self.cur].insts.push(line);
        self.emitted += 1;
    }

    fn add_val(&mut self, id: u32, ty: Ty, taint: bool) {
        let taint = if taint { ty.full_mask() } else { 0 };
        self.vals.push(Val { id, ty, taint });
    }

    /// Two types share a register class in this dialect.
    fn fits(&self, have: Ty, want: Ty) -> bool {
        have == want || (self.d == Dialect::Llc && have.class(self.d) == want.class(self.d))
    }

    fn new_block(&mut self) -> usize {
        self.blocks.push(Blk::default());
        self.blocks.len() - 1
    }

    // ---- operands ---------------------------------------------------------------------

    /// A value of type `want` (a visible one, a tuple lane, or a fresh constant).
    /// `clean`: never an operand that may be undefined.
    fn opnd(&mut self, want: Ty, clean: bool) -> Opnd {
        if let Ty::Tup(..) = want {
            let v = self.tuple(want, clean);
            return Opnd {
                text: format!("%{}", v.id),
                taint: v.taint != 0,
            };
        }
        // A lane of a visible tuple, sometimes.
        if self.chance(15) {
            let lanes: Vec<(u32, u8)> = self
                .vals
                .iter()
                .filter_map(|v| match v.ty {
                    Ty::Tup(l, n) if self.fits(l.ty(), want) => {
                        let ok: Vec<u8> = (0..n)
                            .filter(|k| !clean || v.taint & (1 << k) == 0)
                            .collect();
                        (!ok.is_empty()).then(|| (v.id, ok[(v.id as usize) % ok.len()]))
                    }
                    _ => None,
                })
                .collect();
            if !lanes.is_empty() {
                let &(id, k) = self.pick(&lanes);
                let taint = self
                    .vals
                    .iter()
                    .find(|v| v.id == id)
                    .is_some_and(|v| v.taint & (1 << k) != 0);
                return Opnd {
                    text: format!("%{id}.sub{k}"),
                    taint,
                };
            }
        }
        let cands: Vec<Val> = self
            .vals
            .iter()
            .filter(|v| self.fits(v.ty, want) && (!clean || v.taint == 0))
            .copied()
            .collect();
        if !cands.is_empty() && !self.chance(8) {
            // Recent values more often: longer def-use chains.
            let n = cands.len() as u64;
            let i = if self.chance(50) {
                n - 1 - self.below(n.min(4))
            } else {
                self.below(n)
            };
            let v = cands[i as usize];
            return Opnd {
                text: format!("%{}", v.id),
                taint: v.taint != 0,
            };
        }
        let id = self.constant(want);
        Opnd {
            text: format!("%{id}"),
            taint: false,
        }
    }

    /// A clean operand (stores, conditions, addresses, collectives).
    fn clean(&mut self, want: Ty) -> String {
        self.opnd(want, true).text
    }

    /// A fresh constant of `ty` defined here.
    fn constant(&mut self, ty: Ty) -> u32 {
        let id = self.new_vreg();
        let dt = self.def_text(id, ty);
        let line = match ty {
            Ty::Pred => format!("{dt} = MOV_B1_i {}", if self.chance(50) { -1 } else { 0 }),
            Ty::I16 => format!("{dt} = MOV_B16_i {}", self.small_int()),
            Ty::F16 => format!("{dt} = MOV_B16_i {}", 0x3c00 + self.below(0x800)),
            Ty::I32 => format!("{dt} = MOV_B32_i {}", self.small_int()),
            Ty::H2 => format!(
                "{dt} = MOV_B32_i {}",
                (0x3c00 + self.below(0x400)) | ((0x4000 + self.below(0x400)) << 16)
            ),
            Ty::F32 => format!("{dt} = MOV_F32_i float {}", self.float_text()),
            Ty::I64 => format!("{dt} = MOV_B64_i {}", self.small_int() * 1000003),
            Ty::F64 => format!("{dt} = MOV_F64_i double {}", self.float_text()),
            Ty::I128 => {
                let a = self.clean(Ty::I64);
                let b = self.clean(Ty::I64);
                format!("{dt} = V2I64toI128 {a}, {b}")
            }
            Ty::Tup(l, n) => {
                let parts: Vec<String> = (0..n)
                    .map(|k| format!("{}, %subreg.sub{k}", self.clean(l.ty())))
                    .collect();
                format!("{dt} = REG_SEQUENCE {}", parts.join(", "))
            }
        };
        self.push(line);
        self.add_val(id, ty, false);
        id
    }

    fn small_int(&mut self) -> i64 {
        match self.below(10) {
            0 => -(self.below(5) as i64) - 1,
            1 => self.below(1 << 20) as i64,
            _ => self.below(40) as i64,
        }
    }

    /// A float literal as LLVM prints it (`1.250000e+00`).
    fn float_text(&mut self) -> String {
        let q = self.below(64) as i64 - 32; // quarters in [-8, 8)
        let v = q as f64 / 4.0;
        llvm_float(v)
    }

    /// A tuple of type `want`, visible or built here.
    fn tuple(&mut self, want: Ty, clean: bool) -> Val {
        let cands: Vec<Val> = self
            .vals
            .iter()
            .filter(|v| v.ty == want && (!clean || v.taint == 0))
            .copied()
            .collect();
        if !cands.is_empty() && !self.chance(10) {
            return *self.pick(&cands);
        }
        let id = self.constant(want);
        Val {
            id,
            ty: want,
            taint: 0,
        }
    }

    /// Some visible value (any type), for copies and PHIs.
    fn any_val(&mut self) -> Option<Val> {
        if self.vals.is_empty() {
            return None;
        }
        let n = self.vals.len() as u64;
        let i = if self.chance(50) {
            n - 1 - self.below(n.min(6))
        } else {
            self.below(n)
        };
        Some(self.vals[i as usize])
    }

    /// A tied use (`(tied-def 0)`) on the first source, sometimes.
    fn tie(&mut self) -> &'static str {
        if self.chance(self.tie_pct) {
            "(tied-def 0)"
        } else {
            ""
        }
    }

    /// `%d = OP a, b[, extra]`, result type `ty`, tainted if an operand is.
    fn binop(&mut self, op: Op, ty: Ty, a: Ty, b: Ty, extra: &str) {
        let x = self.opnd(a, false);
        let y = self.opnd(b, false);
        let tie = if a == ty || self.fits(a, ty) {
            self.tie()
        } else {
            ""
        };
        let id = self.new_vreg();
        let dt = self.def_text(id, ty);
        self.push(format!(
            "{dt} = {} {}{tie}, {}{extra}",
            op.name(),
            x.text,
            y.text
        ));
        self.add_val(id, ty, x.taint || y.taint);
    }

    /// `%d = OP a, imm[, extra]`.
    fn binop_imm(&mut self, op: Op, ty: Ty, a: Ty, imm: String, extra: &str) {
        let x = self.opnd(a, false);
        let tie = if self.fits(a, ty) { self.tie() } else { "" };
        let id = self.new_vreg();
        let dt = self.def_text(id, ty);
        self.push(format!(
            "{dt} = {} {}{tie}, {imm}{extra}",
            op.name(),
            x.text
        ));
        self.add_val(id, ty, x.taint);
    }

    /// `%d = OP a[, extra]`.
    fn unop(&mut self, op: Op, ty: Ty, a: Ty, extra: &str) {
        let x = self.opnd(a, false);
        let id = self.new_vreg();
        let dt = self.def_text(id, ty);
        self.push(format!("{dt} = {} {}{extra}", op.name(), x.text));
        self.add_val(id, ty, x.taint);
    }

    /// `n` results: n scalar defs, or (sometimes, when `tuple` allows) one n-lane tuple.
    fn results(&mut self, lane: Lane, n: u8, tuple_pct: u64, taint: bool) -> String {
        if self.chance(tuple_pct) {
            let ty = Ty::Tup(lane, n);
            let id = self.new_vreg();
            self.add_val(id, ty, taint);
            return self.def_text(id, ty);
        }
        let mut defs = Vec::new();
        for _ in 0..n {
            let id = self.new_vreg();
            self.add_val(id, lane.ty(), taint);
            defs.push(self.def_text(id, lane.ty()));
        }
        defs.join(", ")
    }

    // ---- memory -----------------------------------------------------------------------

    /// A load address: (space, base text, offset) for `width` bytes.
    fn load_addr(&mut self, bytes: u64, global_only: bool) -> (u32, String, u64) {
        let (out_t, in_p, in_t, sh_t) = (
            self.bases.out_t,
            self.bases.in_p,
            self.bases.in_t,
            self.bases.sh_t,
        );
        let r = self.below(if global_only { 3 } else { 5 });
        let slot = |g: &mut Self, region: u64| g.below(region / bytes) * bytes;
        match r {
            0 => (1, format!("%{in_p}"), slot(self, 8192)),
            1 => (1, format!("%{in_t}"), slot(self, 128)),
            2 => (1, format!("%{out_t}"), slot(self, 128)),
            3 => match sh_t {
                Some(s) => (3, format!("%{s}"), slot(self, 128)),
                None => (0, format!("%{out_t}"), slot(self, 128)),
            },
            _ => (0, format!("%{in_t}"), slot(self, 128)),
        }
    }

    /// A store address: this thread's slice of `out` or of shared memory.
    fn store_addr(&mut self, bytes: u64) -> (u32, String, u64) {
        let off = self.below(128 / bytes) * bytes;
        match (self.below(4), self.bases.sh_t) {
            (0, Some(s)) => (3, format!("%{s}"), off),
            (1, _) => (0, format!("%{}", self.bases.out_t), off),
            _ => (1, format!("%{}", self.bases.out_t), off),
        }
    }

    fn store_value(&mut self) {
        match self.below(3) {
            0 => {
                let ty = *self.pick(&[Ty::I64, Ty::F64]);
                let v = self.clean(ty);
                let (sp, base, off) = self.store_addr(8);
                self.push(format!("ST_i64 {v}, 0, 0, {sp}, 64, {base}, {off}"));
            }
            1 => {
                let ty = *self.pick(&[Ty::I16, Ty::F16]);
                let v = self.clean(ty);
                let w = *self.pick(&[8u64, 16]);
                let (sp, base, off) = self.store_addr(w / 8);
                self.push(format!("ST_i32 {v}, 0, 0, {sp}, {w}, {base}, {off}"));
            }
            _ => {
                let ty = *self.pick(&[Ty::I32, Ty::F32, Ty::H2]);
                let v = self.clean(ty);
                let w = *self.pick(&[32u64, 32, 32, 16, 8]);
                let (sp, base, off) = self.store_addr(w / 8);
                self.push(format!("ST_i32 {v}, 0, 0, {sp}, {w}, {base}, {off}"));
            }
        }
    }

    // ---- instructions -------------------------------------------------------------------

    fn random_op(&mut self) -> Op {
        let total: u64 = GENERATED_OPS.iter().map(|&(_, w)| w as u64).sum();
        let mut r = self.below(total);
        for &(op, w) in GENERATED_OPS {
            if r < w as u64 {
                return op;
            }
            r -= w as u64;
        }
        Op::COPY
    }

    fn inst(&mut self) {
        let op = self.random_op();
        self.gen_op(op);
    }

    fn gen_op(&mut self, op: Op) {
        use Op::*;
        let ftz = |g: &mut Self| if g.chance(20) { ", 1" } else { ", 0" };
        match op {
            COPY => self.copy(),
            IMOV1rr => self.unop(op, Ty::Pred, Ty::Pred, ""),
            IMOV16rr => self.unop(op, Ty::I16, Ty::I16, ""),
            FMOV16rr => self.unop(op, Ty::F16, Ty::F16, ""),
            IMOV32rr | MOV_B32_r => self.unop(op, Ty::I32, Ty::I32, ""),
            FMOV32rr => self.unop(op, Ty::F32, Ty::F32, ""),
            IMOV64rr | MOV_B64_r | cvta_to_global_64 => self.unop(op, Ty::I64, Ty::I64, ""),
            FMOV64rr => self.unop(op, Ty::F64, Ty::F64, ""),
            BITCONVERT_32_I2F => self.unop(op, Ty::F32, Ty::I32, ""),
            BITCONVERT_32_F2I => self.unop(op, Ty::I32, Ty::F32, ""),
            BITCONVERT_64_I2F => self.unop(op, Ty::F64, Ty::I64, ""),
            BITCONVERT_64_F2I => self.unop(op, Ty::I64, Ty::F64, ""),
            KILL => {
                let ty = *self.pick(&[Ty::I32, Ty::F32, Ty::I64]);
                self.unop(op, ty, ty, "");
            }
            IMPLICIT_DEF => {
                let ty = if self.chance(30) {
                    self.tuple_ty()
                } else {
                    *self.pick(&SCALARS)
                };
                let id = self.new_vreg();
                let dt = self.def_text(id, ty);
                self.push(format!("{dt} = IMPLICIT_DEF"));
                self.add_val(id, ty, true);
            }
            REG_SEQUENCE => {
                let ty = self.tuple_ty();
                let Ty::Tup(l, n) = ty else { unreachable!() };
                let mut order: Vec<u8> = (0..n).collect();
                if self.chance(30) {
                    order.reverse();
                }
                let mut taint = 0u64;
                let mut parts = Vec::new();
                for k in order {
                    let o = self.opnd(l.ty(), false);
                    if o.taint {
                        taint |= 1 << k;
                    }
                    parts.push(format!("{}, %subreg.sub{k}", o.text));
                }
                let id = self.new_vreg();
                let dt = self.def_text(id, ty);
                self.push(format!("{dt} = REG_SEQUENCE {}", parts.join(", ")));
                self.vals.push(Val { id, ty, taint });
            }
            INSERT_SUBREG => {
                let ty = self.existing_tuple_ty();
                let Ty::Tup(l, n) = ty else { unreachable!() };
                let base = self.tuple(ty, false);
                let k = self.below(n as u64) as u8;
                let v = self.opnd(l.ty(), false);
                let id = self.new_vreg();
                let dt = self.def_text(id, ty);
                self.push(format!(
                    "{dt} = INSERT_SUBREG %{}, {}, %subreg.sub{k}",
                    base.id, v.text
                ));
                let taint = (base.taint & !(1 << k)) | if v.taint { 1 << k } else { 0 };
                self.vals.push(Val { id, ty, taint });
            }
            SUBREG_TO_REG => {
                let l = *self.pick(&[Lane::I32, Lane::F32]);
                let n = *self.pick(&[2u8, 4]);
                let ty = Ty::Tup(l, n);
                let k = self.below(n as u64) as u8;
                let v = self.opnd(l.ty(), false);
                let id = self.new_vreg();
                let dt = self.def_text(id, ty);
                self.push(format!(
                    "{dt} = SUBREG_TO_REG 0, {}, %subreg.sub{k}",
                    v.text
                ));
                let taint = if v.taint { 1 << k } else { 0 };
                self.vals.push(Val { id, ty, taint });
            }
            EXTRACT_SUBREG => self.extract_subreg(),
            INLINEASM => self.inline_asm(),
            MOV_B1_i | MOV_B16_i | MOV_B32_i | MOV_B64_i | MOV_F32_i | MOV_F64_i => {
                let ty = match op {
                    MOV_B1_i => Ty::Pred,
                    MOV_B16_i => Ty::I16,
                    MOV_B32_i => Ty::I32,
                    MOV_B64_i => Ty::I64,
                    MOV_F32_i => Ty::F32,
                    _ => Ty::F64,
                };
                self.constant(ty);
            }
            MOV_B64_sym => {
                let id = self.new_vreg();
                let dt = self.def_text(id, Ty::I64);
                self.push(format!("{dt} = MOV_B64_sym @{NAME}_global"));
                self.add_val(id, Ty::I64, false);
            }
            V2I32toI64 => self.binop(op, Ty::I64, Ty::I32, Ty::I32, ""),
            V2I64toI128 => self.binop(op, Ty::I128, Ty::I64, Ty::I64, ""),
            V2I16toI32 => self.binop(op, Ty::I32, Ty::I16, Ty::I16, ""),
            I64toV2I32 | I128toV2I64 | I32toV2I16 => {
                let (from, to) = match op {
                    I64toV2I32 => (Ty::I64, Ty::I32),
                    I128toV2I64 => (Ty::I128, Ty::I64),
                    _ => (Ty::I32, Ty::I16),
                };
                let x = self.opnd(from, false);
                let mut defs = Vec::new();
                for _ in 0..2 {
                    let id = self.new_vreg();
                    defs.push(self.def_text(id, to));
                    self.add_val(id, to, x.taint);
                }
                self.push(format!("{} = {} {}", defs.join(", "), op.name(), x.text));
            }
            StoreRetvalI32 | StoreRetvalF32 => {
                let ty = if op == StoreRetvalI32 {
                    Ty::I32
                } else {
                    Ty::F32
                };
                let v = self.clean(ty);
                let off = self.below(16) * 4;
                self.push(format!("{} {v}, {off}", op.name()));
            }
            INT_PTX_SREG_TID_x
            | INT_PTX_SREG_TID_y
            | INT_PTX_SREG_NTID_x
            | INT_PTX_SREG_CTAID_x
            | INT_PTX_SREG_CTAID_y
            | INT_PTX_SREG_NCTAID_x
            | INT_PTX_SREG_LANEID => {
                let id = self.new_vreg();
                let dt = self.def_text(id, Ty::I32);
                self.push(format!("{dt} = {}", op.name()));
                self.add_val(id, Ty::I32, false);
            }
            LD_i32 | LD_i64 | LD_f32 | LDV_i32_v2 | LDV_i32_v4 => {
                let (bytes, sign, width) = match op {
                    LD_i32 => {
                        let w = *self.pick(&[32u64, 32, 16, 8]);
                        let s = if w == 32 { 3 } else { self.below(2) };
                        (w / 8, s, w)
                    }
                    LD_i64 => (8, 3, 64),
                    LD_f32 => (4, 2, 32),
                    LDV_i32_v2 => (8, 3, 32),
                    _ => (16, 3, 32),
                };
                let (sp, base, off) = self.load_addr(bytes, false);
                let defs = match op {
                    LD_i64 => self.one_def(Ty::I64),
                    LD_f32 => self.one_def(Ty::F32),
                    LD_i32 => self.one_def(Ty::I32),
                    LDV_i32_v2 => self.results(Lane::I32, 2, 0, false),
                    _ => self.results(Lane::I32, 4, 0, false),
                };
                self.push(format!(
                    "{defs} = {} 0, 0, {sp}, {sign}, {width}, -1, {base}, {off}",
                    op.name()
                ));
            }
            LD_GLOBAL_NC_i32 | LD_GLOBAL_NC_v4i32 | LD_GLOBAL_NC_v2i64 => {
                let (bytes, width) = match op {
                    LD_GLOBAL_NC_i32 => (4, 32),
                    LD_GLOBAL_NC_v4i32 => (16, 32),
                    _ => (16, 64),
                };
                let (_, base, off) = self.load_addr(bytes, true);
                let defs = match op {
                    LD_GLOBAL_NC_i32 => self.one_def(Ty::I32),
                    LD_GLOBAL_NC_v4i32 => self.results(Lane::I32, 4, 0, false),
                    _ => {
                        let a = self.one_def(Ty::I64);
                        let b = self.one_def(Ty::I64);
                        format!("{a}, {b}")
                    }
                };
                self.push(format!(
                    "{defs} = {} 3, {width}, -1, {base}, {off}",
                    op.name()
                ));
            }
            ST_i32 | ST_i64 => self.store_value(),
            STV_i32_v4 => {
                let mut vs = Vec::new();
                for _ in 0..4 {
                    if self.chance(10) {
                        vs.push("$noreg".to_string());
                    } else {
                        let ty = *self.pick(&[Ty::I32, Ty::F32]);
                        vs.push(self.clean(ty));
                    }
                }
                let (sp, base, off) = self.store_addr(16);
                self.push(format!(
                    "STV_i32_v4 {}, 0, 0, {sp}, 32, {base}, {off}",
                    vs.join(", ")
                ));
            }
            ADD32rr | SUB32rr | MULT32rr | XOR_b32rr | AND_b32rr | OR_b32rr => {
                self.binop(op, Ty::I32, Ty::I32, Ty::I32, "")
            }
            ADD64rr | OR_b64rr => self.binop(op, Ty::I64, Ty::I64, Ty::I64, ""),
            ADD32ri | MULT32ri => {
                let imm = self.small_int().to_string();
                self.binop_imm(op, Ty::I32, Ty::I32, imm, "")
            }
            ADD64ri => {
                let imm = self.small_int().to_string();
                self.binop_imm(op, Ty::I64, Ty::I64, imm, "")
            }
            SRL32_ri | SHL32_ri => {
                let imm = self.below(33).to_string();
                self.binop_imm(op, Ty::I32, Ty::I32, imm, "")
            }
            SHL64_ri => {
                let imm = self.below(65).to_string();
                self.binop_imm(op, Ty::I64, Ty::I64, imm, "")
            }
            MUL_WIDEu32_ri | MUL_WIDEs32_ri => {
                let imm = self.small_int().to_string();
                self.binop_imm(op, Ty::I64, Ty::I32, imm, "")
            }
            MAD_LO_S32rrr => {
                let a = self.opnd(Ty::I32, false);
                let b = self.opnd(Ty::I32, false);
                let c = self.opnd(Ty::I32, false);
                let tie = self.tie();
                let id = self.new_vreg();
                let dt = self.def_text(id, Ty::I32);
                self.push(format!(
                    "{dt} = MAD_LO_S32rrr {}{tie}, {}, {}",
                    a.text, b.text, c.text
                ));
                self.add_val(id, Ty::I32, a.taint || b.taint || c.taint);
            }
            SETP_i32rr => {
                let mode = format!(", {}", self.below(12));
                self.binop(op, Ty::Pred, Ty::I32, Ty::I32, &mode)
            }
            SETP_i32ri => {
                let imm = self.small_int().to_string();
                let mode = format!(", {}", self.below(12));
                self.binop_imm(op, Ty::Pred, Ty::I32, imm, &mode)
            }
            SETP_f32rr => {
                let mode = format!(", {}, {}", self.below(14), self.below(2));
                self.binop(op, Ty::Pred, Ty::F32, Ty::F32, &mode)
            }
            SELP_b32rr => {
                let ty = *self.pick(&[Ty::I32, Ty::I32, Ty::F32]);
                let a = self.opnd(ty, false);
                let b = self.opnd(ty, false);
                let p = self.opnd(Ty::Pred, false);
                let id = self.new_vreg();
                let dt = self.def_text(id, Ty::I32);
                self.push(format!(
                    "{dt} = SELP_b32rr {}, {}, {}",
                    a.text, b.text, p.text
                ));
                self.add_val(id, Ty::I32, a.taint || b.taint || p.taint);
            }
            FADDf32rr | FADD_rnf32rr | FSUBf32rr | FSUB_rnf32rr | FMULf32rr | FMUL_rnf32rr => {
                let f = ftz(self);
                self.binop(op, Ty::F32, Ty::F32, Ty::F32, f)
            }
            FADDf32ri | FADD_rnf32ri => {
                let imm = format!("float {}", self.float_text());
                let f = ftz(self);
                self.binop_imm(op, Ty::F32, Ty::F32, imm, f)
            }
            FMUL_rnf16rr => {
                let f = ftz(self);
                self.binop(op, Ty::F16, Ty::F16, Ty::F16, f)
            }
            FADD_rnf16x2rr => {
                let f = ftz(self);
                self.binop(op, Ty::H2, Ty::H2, Ty::H2, f)
            }
            FMA_F32rrr | FMA_F32rir => {
                let a = self.opnd(Ty::F32, false);
                let b = if op == FMA_F32rir {
                    Opnd {
                        text: format!("float {}", self.float_text()),
                        taint: false,
                    }
                } else {
                    self.opnd(Ty::F32, false)
                };
                let c = self.opnd(Ty::F32, false);
                let tie = self.tie();
                let f = ftz(self);
                let id = self.new_vreg();
                let dt = self.def_text(id, Ty::F32);
                self.push(format!(
                    "{dt} = {} {}{tie}, {}, {}{f}",
                    op.name(),
                    a.text,
                    b.text,
                    c.text
                ));
                self.add_val(id, Ty::F32, a.taint || b.taint || c.taint);
            }
            CVT_f32_s32 | CVT_f32_u32 | CVT_f32_s64 | CVT_f32_u64 => {
                let from = if matches!(op, CVT_f32_s32 | CVT_f32_u32) {
                    Ty::I32
                } else {
                    Ty::I64
                };
                let mode = 5 + self.below(4) + self.flag_bits(true);
                self.unop(op, Ty::F32, from, &format!(", {mode}"));
            }
            CVT_f32_f16 => {
                let mode = self.flag_bits(true);
                self.unop(op, Ty::F32, Ty::F16, &format!(", {mode}"));
            }
            CVT_s32_f32 => {
                let mode = 1 + self.below(4) + self.flag_bits(true);
                self.unop(op, Ty::I32, Ty::F32, &format!(", {mode}"));
            }
            CVT_u64_u32 => {
                let mode = self.flag_bits(false);
                self.unop(op, Ty::I64, Ty::I32, &format!(", {mode}"));
            }
            CVT_u32_u64 => {
                let mode = self.flag_bits(false);
                self.unop(op, Ty::I32, Ty::I64, &format!(", {mode}"));
            }
            EH_LABEL => self.push(format!("EH_LABEL <mcsymbol .Ltmp{}>", self.emitted)),
            LIFETIME_START | LIFETIME_END => self.push(format!("{} %stack.0", op.name())),
            PSEUDO_PROBE => self.push("PSEUDO_PROBE 1, 1, 0, 0".into()),
            TEX_2D_V4F32_F32_P => {
                let h = self.opnd(Ty::I64, false);
                let x = self.opnd(Ty::F32, false);
                let y = self.opnd(Ty::F32, false);
                let defs = self.results(Lane::F32, 4, 100, h.taint || x.taint || y.taint);
                self.push(format!(
                    "{defs} = TEX_2D_V4F32_F32_P {}, {}, {}, implicit-def $texpred",
                    h.text, x.text, y.text
                ));
            }
            TEX_UNIFIED_2D_F32_F32_R | TEX_2D_V4F32_F32 => {
                let h = self.opnd(Ty::I64, false);
                let x = self.opnd(Ty::F32, false);
                let y = self.opnd(Ty::F32, false);
                let taint = h.taint || x.taint || y.taint;
                // The opcode table's def count: one tuple, or four scalars.
                let pct = if op == TEX_2D_V4F32_F32 { 100 } else { 0 };
                let defs = self.results(Lane::F32, 4, pct, taint);
                self.push(format!(
                    "{defs} = {} {}, {}, {}",
                    op.name(),
                    h.text,
                    x.text,
                    y.text
                ));
            }
            TEX_UNIFIED_1D_S32_S32_R => {
                let h = self.opnd(Ty::I64, false);
                let x = self.opnd(Ty::I32, false);
                let defs = self.results(Lane::I32, 4, 0, h.taint || x.taint);
                self.push(format!("{defs} = {} {}, {}", op.name(), h.text, x.text));
            }
            // Warp- and warpgroup-wide: only `collective` places them; an asynchronous
            // copy stands in here.
            MMA_M16N8K8_TF32
            | MMA_M16N8K8_TF32_ACC
            | WMMA_MMA_M16N16K16_F16
            | WGMMA_M64N32K16_F32 => self.async_load(CP_ASYNC_CA_SHARED),
            TMA_LOAD_2D | CP_ASYNC_CA_SHARED => self.async_load(op),
            // Placed by the structure, never as an ordinary instruction.
            PHI
            | GOTO
            | CBranch
            | CBranchOther
            | Return
            | BARRIER_CTA_SYNC_ALIGNED_ALL_i
            | SHFL_SYNC_IDX_i32
            | SHFL_SYNC_DOWN_i32
            | LoadParamMemI32
            | LoadParamMemI64
            | LoadParamMemF32
            | StoreParamI32
            | StoreParamF32 => self.copy(),
            // The rest have no interpreter semantics in the instruction description
            // (`none:` in its sem column), so GENERATED_OPS never draws them.
            _ => self.copy(),
        }
    }

    /// `.ftz` / `.sat` bits of a conversion mode, sometimes.
    fn flag_bits(&mut self, ftz: bool) -> u64 {
        let mut m = 0;
        if ftz && self.chance(20) {
            m |= 0x10;
        }
        if self.chance(15) {
            m |= 0x20;
        }
        m
    }

    fn one_def(&mut self, ty: Ty) -> String {
        let id = self.new_vreg();
        self.add_val(id, ty, false);
        self.def_text(id, ty)
    }

    fn tuple_ty(&mut self) -> Ty {
        *self.pick(&[
            Ty::Tup(Lane::F32, 4),
            Ty::Tup(Lane::F32, 4),
            Ty::Tup(Lane::I32, 2),
            Ty::Tup(Lane::I32, 4),
            Ty::Tup(Lane::F32, 2),
            Ty::Tup(Lane::H2, 8),
            Ty::Tup(Lane::I32, 3),
        ])
    }

    /// The type of a visible tuple, or a fresh tuple type.
    fn existing_tuple_ty(&mut self) -> Ty {
        let tys: Vec<Ty> = self
            .vals
            .iter()
            .filter(|v| matches!(v.ty, Ty::Tup(..)))
            .map(|v| v.ty)
            .collect();
        if tys.is_empty() || self.chance(20) {
            self.tuple_ty()
        } else {
            *self.pick(&tys)
        }
    }

    fn copy(&mut self) {
        // A lane of a tuple, sometimes.
        if self.chance(20) {
            let tuples: Vec<Val> = self
                .vals
                .iter()
                .filter(|v| matches!(v.ty, Ty::Tup(..)))
                .copied()
                .collect();
            if !tuples.is_empty() {
                let t = *self.pick(&tuples);
                let Ty::Tup(l, n) = t.ty else { unreachable!() };
                let k = self.below(n as u64) as u8;
                let id = self.new_vreg();
                let dt = self.def_text(id, l.ty());
                self.push(format!("{dt} = COPY %{}.sub{k}", t.id));
                self.add_val(id, l.ty(), t.taint & (1 << k) != 0);
                return;
            }
        }
        let Some(v) = self.any_val() else {
            self.constant(Ty::I32);
            return;
        };
        let id = self.new_vreg();
        let dt = self.def_text(id, v.ty);
        self.push(format!("{dt} = COPY %{}", v.id));
        self.vals.push(Val {
            id,
            ty: v.ty,
            taint: v.taint,
        });
    }

    fn extract_subreg(&mut self) {
        let ty = self.existing_tuple_ty();
        let Ty::Tup(l, n) = ty else { unreachable!() };
        let t = self.tuple(ty, false);
        let lane_taint = |k: u8| t.taint & (1 << k) != 0;
        match self.below(4) {
            // LLVM's form: one def, one index.
            0 => {
                let k = self.below(n as u64) as u8;
                let id = self.new_vreg();
                let dt = self.def_text(id, l.ty());
                self.push(format!("{dt} = EXTRACT_SUBREG %{}, %subreg.sub{k}", t.id));
                self.add_val(id, l.ty(), lane_taint(k));
            }
            // CICC's N-pair form: def i takes `%t.sub<k_i>`, with hint bits.
            _ => {
                let pairs = 1 + self.below(n as u64) as u8;
                let mut lanes: Vec<u8> = (0..n).collect();
                // A random selection, in random order.
                for i in (1..lanes.len()).rev() {
                    let j = self.below(i as u64 + 1) as usize;
                    lanes.swap(i, j);
                }
                lanes.truncate(pairs as usize);
                if self.chance(40) {
                    lanes.sort_unstable();
                }
                let mut defs = Vec::new();
                let mut uses = Vec::new();
                for &k in &lanes {
                    let id = self.new_vreg();
                    let hint = match self.below(6) {
                        0 => "tied-hint ",
                        1 => "early-tied ",
                        2 => "tied-hint early-tied ",
                        _ => "",
                    };
                    defs.push(format!("{hint}{}", self.def_text(id, l.ty())));
                    uses.push(format!("%{}.sub{k}", t.id));
                    self.add_val(id, l.ty(), lane_taint(k));
                }
                self.push(format!(
                    "{} = EXTRACT_SUBREG {}",
                    defs.join(", "),
                    uses.join(", ")
                ));
            }
        }
    }

    /// Inline asm with `"+r"` operands (a def tied to a use), plain `"r"` uses and
    /// sometimes an `"=r"` / `"=&r"` def.
    fn inline_asm(&mut self) {
        let wide = self.chance(20);
        let (ty, bits, cls) = if wide {
            (Ty::I64, 64, 5u64)
        } else {
            (Ty::I32, 32, 4u64)
        };
        let tied = 1 + self.below(2) as usize;
        let plain_defs = self.below(2) as usize;
        let uses = self.below(3) as usize;
        let ndefs = tied + plain_defs;
        // Groups: tied defs 0..tied, plain defs, plain uses, then the tied uses.
        let mut ops: Vec<String> = Vec::new();
        let mut taint = false;
        let mut def_ids = Vec::new();
        for g in 0..ndefs {
            let id = self.new_vreg();
            def_ids.push(id);
            let ec = g >= tied && self.chance(40);
            let kind = if ec { 3 } else { 2 };
            let flag = (cls << 16) | 8 | kind;
            let comment = if ec { "regdef-ec" } else { "regdef" };
            let ec_flag = if ec { "early-clobber " } else { "" };
            ops.push(format!(
                "{flag} /* {comment} */, def {ec_flag}{}",
                self.def_text(id, ty)
            ));
        }
        for _ in 0..uses {
            let o = self.opnd(ty, false);
            taint |= o.taint;
            ops.push(format!("{} /* reguse */, {}", (cls << 16) | 9, o.text));
        }
        for g in 0..tied {
            let o = self.opnd(ty, false);
            taint |= o.taint;
            // The def's operand index: string, extra info, then (flag, reg) per group.
            let def_idx = 3 + 2 * g;
            let flag = (1u64 << 31) | ((g as u64) << 16) | 9;
            ops.push(format!(
                "{flag} /* reguse tiedto:${g} */, {}(tied-def {def_idx})",
                o.text
            ));
        }
        // The body: untied defs first (from uses), then each tied def updated in place.
        let n_groups = ndefs + uses + tied;
        let src = |g: &mut Self| -> String {
            if g.chance(20) {
                return g.below(100).to_string();
            }
            // Any group but the plain defs (those start undefined).
            let choices: Vec<usize> = (0..n_groups).filter(|&k| k < tied || k >= ndefs).collect();
            format!("${}", g.pick(&choices))
        };
        let mut body = Vec::new();
        let ints = ["add", "sub", "mul.lo", "and", "or", "xor"];
        for k in tied..ndefs {
            let a = src(self);
            let b = src(self);
            let op = *self.pick(&ints);
            body.push(asm_inst(op, bits, k, &a, &b));
        }
        for k in 0..tied {
            match self.below(5) {
                0 => {
                    let sh = self.below(bits as u64);
                    let dir = if self.chance(50) { "shl.b" } else { "shr.u" };
                    body.push(format!("{dir}{bits} ${k}, ${k}, {sh};"));
                }
                1 => body.push(format!("not.b{bits} ${k}, ${k};")),
                _ => {
                    let b = src(self);
                    let op = *self.pick(&ints);
                    body.push(asm_inst(op, bits, k, &format!("${k}"), &b));
                }
            }
        }
        let text = body.join(" ");
        for id in def_ids {
            self.add_val(id, ty, taint);
        }
        let side = if self.chance(50) { 1 } else { 0 };
        self.push(format!(
            "INLINEASM &\"{text}\", {side} /* attdialect */, {}",
            ops.join(", ")
        ));
    }

    /// A matrix multiply-accumulate with clean operands: every lane's operands feed
    /// every lane's results. wgmma reads A and B from the start of `in`.
    fn matrix(&mut self, op: Op) {
        use Op::*;
        let texts: Vec<String> = match op {
            MMA_M16N8K8_TF32 => (0..3).map(|_| self.clean(Ty::F32)).collect(),
            MMA_M16N8K8_TF32_ACC => vec![
                self.clean(Ty::F32),
                self.clean(Ty::F32),
                self.clean(Ty::Tup(Lane::F32, 4)),
            ],
            WMMA_MMA_M16N16K16_F16 => (0..3).map(|_| self.clean(Ty::H2)).collect(),
            _ => vec![
                format!("%{}", self.bases.in_p),
                format!("%{}", self.bases.in_p),
                self.clean(Ty::F32),
            ],
        };
        let (lane, n) = match op {
            WMMA_MMA_M16N16K16_F16 => (Lane::H2, 8),
            WGMMA_M64N32K16_F32 => (Lane::F32, 16),
            _ => (Lane::F32, 4),
        };
        let defs = self.results(lane, n, 100, false);
        self.push(format!("{defs} = {} {}", op.name(), texts.join(", ")));
    }

    /// `CP_ASYNC_CA_SHARED` / `TMA_LOAD_2D` from this thread's slice of `in` (TMA at a
    /// constant element index inside it).
    fn async_load(&mut self, op: Op) {
        let mut texts = vec![format!("%{}", self.bases.in_t)];
        if op == Op::TMA_LOAD_2D {
            let k = self.new_vreg();
            let dt = self.def_text(k, Ty::I32);
            let idx = self.below(32);
            self.push(format!("{dt} = MOV_B32_i {idx}"));
            texts.push(format!("%{k}"));
        }
        let defs = self.results(Lane::I32, 2, 100, false);
        self.push(format!("{defs} = {} {}", op.name(), texts.join(", ")));
    }

    // ---- structure ----------------------------------------------------------------------

    fn prologue(&mut self) {
        let p = |g: &mut Self, k: u32, ty: Ty, bits: u32| {
            let id = g.new_vreg();
            let dt = g.def_text(id, ty);
            let (op, sign) = match ty {
                Ty::F32 => ("LD_f32", 2),
                Ty::I64 => ("LD_i64", 3),
                _ => ("LD_i32", 3),
            };
            g.push(format!(
                "{dt} = {op} 0, 0, 101, {sign}, {bits}, -1, &{NAME}_param_{k}, 0"
            ));
            id
        };
        let out = p(self, 0, Ty::I64, 64);
        let inp = p(self, 1, Ty::I64, 64);
        let n0 = p(self, 2, Ty::I32, 32);
        let n1 = p(self, 3, Ty::I32, 32);
        let x = p(self, 4, Ty::F32, 32);
        let i64c = Ty::I64.class(self.d);
        let i32c = Ty::I32.class(self.d);
        let gout = self.new_vreg();
        let gin = self.new_vreg();
        self.push(format!("%{gout}:{i64c} = cvta_to_global_64 %{out}"));
        self.push(format!("%{gin}:{i64c} = cvta_to_global_64 %{inp}"));
        let tid = self.new_vreg();
        self.push(format!("%{tid}:{i32c} = INT_PTX_SREG_TID_x"));
        let slice = |g: &mut Self, mask: u32| -> u32 {
            let [m, a, s, w] = [g.new_vreg(), g.new_vreg(), g.new_vreg(), g.new_vreg()];
            g.push(format!("%{m}:{i32c} = MOV_B32_i {mask}"));
            g.push(format!("%{a}:{i32c} = AND_b32rr %{tid}, %{m}"));
            g.push(format!("%{s}:{i32c} = SHL32_ri %{a}, 7"));
            g.push(format!("%{w}:{i64c} = CVT_u64_u32 %{s}, 0"));
            w
        };
        let off = slice(self, 63);
        let out_t = self.new_vreg();
        let in_t = self.new_vreg();
        self.push(format!("%{out_t}:{i64c} = ADD64rr %{gout}, %{off}"));
        self.push(format!("%{in_t}:{i64c} = ADD64rr %{gin}, %{off}"));
        let sh_t = if self.chance(50) {
            let off = slice(self, 31);
            let [sb, st] = [self.new_vreg(), self.new_vreg()];
            self.push(format!("%{sb}:{i64c} = MOV_B64_sym @{NAME}_shared"));
            self.push(format!("%{st}:{i64c} = ADD64rr %{sb}, %{off}"));
            Some(st)
        } else {
            None
        };
        self.bases = Bases {
            out_t,
            in_p: gin,
            in_t,
            sh_t,
        };
        self.add_val(tid, Ty::I32, false);
        self.add_val(n0, Ty::I32, false);
        self.add_val(n1, Ty::I32, false);
        self.add_val(x, Ty::F32, false);
        self.emitted = 0;
    }

    /// Barriers and shuffles: only where every thread passes exactly once.
    fn collective(&mut self) {
        if self.chance(40) {
            self.push("BARRIER_CTA_SYNC_ALIGNED_ALL_i 0".into());
            return;
        }
        if self.chance(30) {
            use Op::*;
            let op = *self.pick(&[
                MMA_M16N8K8_TF32,
                MMA_M16N8K8_TF32_ACC,
                WMMA_MMA_M16N16K16_F16,
                WGMMA_M64N32K16_F32,
            ]);
            self.matrix(op);
            return;
        }
        let v = self.clean(Ty::I32);
        let (op, lane) = if self.chance(50) {
            ("SHFL_SYNC_IDX_i32", self.below(32))
        } else {
            ("SHFL_SYNC_DOWN_i32", 1 + self.below(16))
        };
        let lane = if self.chance(20) {
            self.clean(Ty::I32)
        } else {
            lane.to_string()
        };
        let id = self.new_vreg();
        let def = self.def_text(id, Ty::I32);
        self.push(format!("{def} = {op} {v}, {lane}, 31, -1"));
        self.add_val(id, Ty::I32, false);
    }

    /// Code until `cap` more instructions are emitted or the function budget is spent.
    fn seq(&mut self, cap: usize) {
        let start = self.emitted;
        while self.emitted - start < cap && self.emitted < self.cfg.size {
            let r = self.below(100);
            let nest = self.depth < self.cfg.max_depth;
            let left = cap - (self.emitted - start);
            if nest && left >= 4 && r < 9 {
                self.if_else(left);
            } else if nest && left >= 3 && r < 15 {
                self.if_then(left);
            } else if nest
                && left >= 4
                && self.loops < self.cfg.max_loops
                && self.loop_depth < 2
                && r < 24
            {
                self.do_loop(left);
            } else if self.depth == 0 && r < 28 {
                self.collective();
            } else {
                for _ in 0..1 + self.below(4) {
                    self.inst();
                }
                if self.chance(15) {
                    self.store_value();
                }
            }
        }
    }

    /// A branch condition: a clean predicate, often a fresh compare (sometimes on the
    /// thread id, so threads diverge).
    fn cond(&mut self) -> String {
        match self.below(4) {
            0 => self.clean(Ty::Pred),
            1 => {
                let a = self.clean(Ty::I32);
                let id = self.new_vreg();
                let dt = self.def_text(id, Ty::Pred);
                let k = self.below(64);
                let mode = self.below(12);
                self.push(format!("{dt} = SETP_i32ri {a}, {k}, {mode}"));
                self.add_val(id, Ty::Pred, false);
                format!("%{id}")
            }
            _ => {
                let a = self.clean(Ty::I32);
                let b = self.clean(Ty::I32);
                let id = self.new_vreg();
                let dt = self.def_text(id, Ty::Pred);
                let mode = self.below(12);
                self.push(format!("{dt} = SETP_i32rr {a}, {b}, {mode}"));
                self.add_val(id, Ty::Pred, false);
                format!("%{id}")
            }
        }
    }

    /// `CBranch p, target` or its negated twin `CBranchOther` (same edges, the
    /// condition flipped; the join's PHIs do not care which path is which).
    fn branch(&mut self, p: &str, target: usize) -> String {
        let op = if self.chance(25) {
            "CBranchOther"
        } else {
            "CBranch"
        };
        format!("{op} {p}, %bb.{target}")
    }

    fn sub_cap(&mut self, left: usize) -> usize {
        1 + self.below((left / 2).max(1) as u64) as usize
    }

    fn if_else(&mut self, left: usize) {
        let p = self.cond();
        let b = self.cur;
        let outer = self.vals.len();
        let t = self.new_block();
        self.cur = t;
        self.depth += 1;
        let cap = self.sub_cap(left);
        self.seq(cap);
        let t_end = self.cur;
        let then_vals: Vec<Val> = self.vals.drain(outer..).collect();
        let e = self.new_block();
        let br = self.branch(&p, e);
        self.blocks[b].term.push(br);
        self.blocks[b].succs = vec![e, t];
        self.cur = e;
        let cap = self.sub_cap(left);
        self.seq(cap);
        let e_end = self.cur;
        let else_vals: Vec<Val> = self.vals.drain(outer..).collect();
        self.depth -= 1;
        let j = self.new_block();
        self.blocks[t_end].term.push(format!("GOTO %bb.{j}"));
        self.blocks[t_end].succs = vec![j];
        self.blocks[e_end].succs = vec![j];
        self.cur = j;
        self.join_phis(j, &[(t_end, then_vals), (e_end, else_vals)]);
    }

    fn if_then(&mut self, left: usize) {
        let p = self.cond();
        let b = self.cur;
        let outer = self.vals.len();
        let t = self.new_block();
        self.cur = t;
        self.depth += 1;
        let cap = self.sub_cap(left);
        self.seq(cap);
        let t_end = self.cur;
        let then_vals: Vec<Val> = self.vals.drain(outer..).collect();
        self.depth -= 1;
        let j = self.new_block();
        let br = self.branch(&p, j);
        self.blocks[b].term.push(br);
        self.blocks[b].succs = vec![j, t];
        self.blocks[t_end].succs = vec![j];
        self.cur = j;
        self.join_phis(j, &[(b, Vec::new()), (t_end, then_vals)]);
    }

    /// PHIs at a join: each merges, per predecessor, a value visible at its end (one
    /// defined on that path, or one from before the branch).
    fn join_phis(&mut self, j: usize, preds: &[(usize, Vec<Val>)]) {
        // Values from before the branch (the join's own PHIs are not available at the
        // end of a predecessor).
        let outer = self.vals.len();
        let n = self.below(5);
        for _ in 0..n {
            // The PHI's type: from a path-local value when there is one.
            let locals: Vec<Val> = preds.iter().flat_map(|(_, v)| v.iter().copied()).collect();
            let ty = if !locals.is_empty() && self.chance(80) {
                self.pick(&locals).ty
            } else {
                match self.any_val() {
                    Some(v) => v.ty,
                    None => return,
                }
            };
            let mut incoming = Vec::new();
            let mut taint = 0u64;
            for (pred, local) in preds {
                let mut cands: Vec<Val> = local
                    .iter()
                    .filter(|v| self.fits(v.ty, ty) && v.ty.lanes() == ty.lanes())
                    .copied()
                    .collect();
                if cands.is_empty() || self.chance(20) {
                    cands.extend(
                        self.vals[..outer]
                            .iter()
                            .filter(|v| self.fits(v.ty, ty) && v.ty.lanes() == ty.lanes())
                            .copied(),
                    );
                }
                let v = if cands.is_empty() {
                    // Define a constant at the end of the predecessor, from what is
                    // visible there.
                    let keep = self.cur;
                    let mut visible = self.vals[..outer].to_vec();
                    visible.extend(local.iter().copied());
                    let saved = core::mem::replace(&mut self.vals, visible);
                    self.cur = *pred;
                    let id = self.constant(ty);
                    self.cur = keep;
                    self.vals = saved;
                    Val { id, ty, taint: 0 }
                } else {
                    *self.pick(&cands)
                };
                taint |= v.taint;
                incoming.push((format!("%{}", v.id), *pred));
            }
            let dst = self.new_vreg();
            self.blocks[j].phis.push(Phi { dst, ty, incoming });
            self.vals.push(Val {
                id: dst,
                ty,
                taint: if taint != 0 { ty.full_mask() } else { 0 },
            });
        }
    }

    fn do_loop(&mut self, left: usize) {
        self.loops += 1;
        let pre = self.cur;
        // Trip count: a constant, or a parameter masked to 0..3 (at least one trip).
        let max = if self.loop_depth > 0 { 2 } else { 4 };
        let bound = if self.chance(60) {
            let id = self.new_vreg();
            let dt = self.def_text(id, Ty::I32);
            let n = 1 + self.below(max);
            self.push(format!("{dt} = MOV_B32_i {n}"));
            self.add_val(id, Ty::I32, false);
            id
        } else {
            let which = 1 + self.below(2) as usize;
            let p = self.vals[which].id; // n0 or n1
            let [m, id] = [self.new_vreg(), self.new_vreg()];
            let c = Ty::I32.class(self.d);
            self.push(format!("%{m}:{c} = MOV_B32_i {}", max - 1));
            self.push(format!("%{id}:{c} = AND_b32rr %{p}, %{m}"));
            self.add_val(id, Ty::I32, false);
            id
        };
        let zero = self.new_vreg();
        let dt = self.def_text(zero, Ty::I32);
        self.push(format!("{dt} = MOV_B32_i 0"));
        let h = self.new_block();
        self.blocks[pre].succs = vec![h];
        self.cur = h;
        self.depth += 1;
        self.loop_depth += 1;
        let counter = self.new_vreg();
        let phi_start = self.blocks[h].phis.len();
        self.blocks[h].phis.push(Phi {
            dst: counter,
            ty: Ty::I32,
            incoming: vec![(format!("%{zero}"), pre)],
        });
        // Carried values: PHIs over values from before the loop.
        let carried = 1 + self.below(4);
        let mut phis: Vec<(u32, Ty)> = Vec::new();
        let before = self.vals.len();
        for _ in 0..carried {
            // An entry value from before the loop (not one of these PHIs).
            let n = before as u64;
            let i = if self.chance(50) {
                n - 1 - self.below(n.min(6))
            } else {
                self.below(n)
            };
            let init = self.vals[i as usize];
            let dst = self.new_vreg();
            self.blocks[h].phis.push(Phi {
                dst,
                ty: init.ty,
                incoming: vec![(format!("%{}", init.id), pre)],
            });
            phis.push((dst, init.ty));
            // A PHI's taint is settled when its latch value is known; until then it is
            // tainted if its entry value is (and stays so: see below).
            self.vals.push(Val {
                id: dst,
                ty: init.ty,
                taint: if init.taint != 0 {
                    init.ty.full_mask()
                } else {
                    0
                },
            });
        }
        self.add_val(counter, Ty::I32, false);
        let in_loop = self.vals.len();
        let cap = self.sub_cap(left);
        self.seq(cap);
        let latch = self.cur;
        let c = Ty::I32.class(self.d);
        let next = self.new_vreg();
        self.push(format!("%{next}:{c} = ADD32ri %{counter}, 1"));
        let cmp = self.new_vreg();
        let pc = Ty::Pred.class(self.d);
        let (op, mode) = if self.chance(70) {
            ("CBranch", 2) // loop while next < bound
        } else {
            ("CBranchOther", 5) // loop until next >= bound
        };
        self.push(format!(
            "%{cmp}:{pc} = SETP_i32rr %{next}, %{bound}, {mode}"
        ));
        self.blocks[latch]
            .term
            .push(format!("{op} %{cmp}, %bb.{h}"));
        self.blocks[h].phis[phi_start]
            .incoming
            .push((format!("%{next}"), latch));
        // Latch values: something computed in the loop, another PHI (a swap), or the
        // PHI itself. A tainted latch value would make the PHI tainted after the fact,
        // so only clean values close a clean PHI's cycle.
        for (k, &(dst, ty)) in phis.iter().enumerate() {
            let phi_tainted = self
                .vals
                .iter()
                .find(|v| v.id == dst)
                .is_some_and(|v| v.taint != 0);
            let ok = |v: &Val| v.ty == ty && (phi_tainted || v.taint == 0);
            let body: Vec<Val> = self.vals[in_loop..]
                .iter()
                .filter(|v| ok(v))
                .copied()
                .collect();
            let swaps: Vec<u32> = phis
                .iter()
                .filter(|&&(d, t)| t == ty && d != dst)
                .map(|&(d, _)| d)
                .filter(|d| {
                    self.vals
                        .iter()
                        .find(|v| v.id == *d)
                        .is_some_and(|v| phi_tainted || v.taint == 0)
                })
                .collect();
            let r = self.below(10);
            let v = if r < 3 && !swaps.is_empty() {
                *self.pick(&swaps)
            } else if r < 9 && !body.is_empty() {
                self.pick(&body).id
            } else {
                dst
            };
            self.blocks[h].phis[phi_start + 1 + k]
                .incoming
                .push((format!("%{v}"), latch));
        }
        self.depth -= 1;
        self.loop_depth -= 1;
        let x = self.new_block();
        self.blocks[latch].succs = vec![h, x];
        self.cur = x;
    }

    fn epilogue(&mut self) {
        // Store what is live, PHI results and tuple lanes included.
        let n = 2 + self.below(5);
        for _ in 0..n {
            let clean: Vec<Val> = self.vals.iter().filter(|v| v.taint == 0).copied().collect();
            if clean.is_empty() {
                break;
            }
            let n = clean.len() as u64;
            let v = clean[(n - 1 - self.below(n.min(12))) as usize];
            let out = self.bases.out_t;
            let off = |g: &mut Self, bytes: u64| g.below(128 / bytes) * bytes;
            match v.ty {
                Ty::I64 | Ty::F64 => {
                    let o = off(self, 8);
                    self.push(format!("ST_i64 %{}, 0, 0, 1, 64, %{out}, {o}", v.id));
                }
                Ty::I16 | Ty::F16 => {
                    let o = off(self, 2);
                    self.push(format!("ST_i32 %{}, 0, 0, 1, 16, %{out}, {o}", v.id));
                }
                Ty::Pred => {
                    let [a, b, s] = [self.new_vreg(), self.new_vreg(), self.new_vreg()];
                    let c = Ty::I32.class(self.d);
                    self.push(format!("%{a}:{c} = MOV_B32_i 1"));
                    self.push(format!("%{b}:{c} = MOV_B32_i 2"));
                    self.push(format!("%{s}:{c} = SELP_b32rr %{a}, %{b}, %{}", v.id));
                    let o = off(self, 4);
                    self.push(format!("ST_i32 %{s}, 0, 0, 1, 32, %{out}, {o}"));
                }
                Ty::I128 => {
                    let [a, b] = [self.new_vreg(), self.new_vreg()];
                    let c = Ty::I64.class(self.d);
                    self.push(format!("%{a}:{c}, %{b}:{c} = I128toV2I64 %{}", v.id));
                    let o = off(self, 16);
                    self.push(format!("ST_i64 %{a}, 0, 0, 1, 64, %{out}, {o}"));
                    self.push(format!("ST_i64 %{b}, 0, 0, 1, 64, %{out}, {}", o + 8));
                }
                Ty::Tup(_, lanes) => {
                    let k = self.below(lanes as u64);
                    let o = off(self, 4);
                    self.push(format!("ST_i32 %{}.sub{k}, 0, 0, 1, 32, %{out}, {o}", v.id));
                }
                Ty::I32 | Ty::F32 | Ty::H2 => {
                    let o = off(self, 4);
                    self.push(format!("ST_i32 %{}, 0, 0, 1, 32, %{out}, {o}", v.id));
                }
            }
        }
        self.blocks[self.cur].term.push("Return".into());
    }

    fn render(&self) -> String {
        let mut s = format!(
            "---\nname: {NAME}\ntracksRegLiveness: true\nisSSA: true\nnoPhis: false\nbody: |\n"
        );
        for (i, b) in self.blocks.iter().enumerate() {
            match b.name {
                Some(n) => s.push_str(&format!("  bb.{i}.{n}:\n")),
                None => s.push_str(&format!("  bb.{i}:\n")),
            }
            if !b.succs.is_empty() {
                let list: Vec<String> = b.succs.iter().map(|x| format!("%bb.{x}")).collect();
                s.push_str(&format!("    successors: {}\n\n", list.join(", ")));
            }
            for p in &b.phis {
                let ins: Vec<String> = p
                    .incoming
                    .iter()
                    .map(|(v, b)| format!("{v}, %bb.{b}"))
                    .collect();
                s.push_str(&format!(
                    "    {} = PHI {}\n",
                    self.def_text(p.dst, p.ty),
                    ins.join(", ")
                ));
            }
            for l in b.insts.iter().chain(&b.term) {
                s.push_str(&format!("    {l}\n"));
            }
            s.push('\n');
        }
        s.push_str("...\n");
        s
    }
}

/// `op.<type><bits> $k, a, b;` for the asm integer ops.
fn asm_inst(op: &str, bits: u32, k: usize, a: &str, b: &str) -> String {
    let ty = match op {
        "and" | "or" | "xor" => "b",
        "mul.lo" if bits == 64 => "s",
        _ => "u",
    };
    format!("{op}.{ty}{bits} ${k}, {a}, {b};")
}

/// A float as LLVM's MIR printer writes it: `-1.250000e+00`.
pub fn llvm_float(v: f64) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0.000000e+00".into()
        } else {
            "0.000000e+00".into()
        };
    }
    let t = format!("{v:.6e}"); // e.g. 1.250000e0, -3.000000e-1
    let (m, e) = t.split_once('e').unwrap_or((&t, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    format!("{m}e{sign}{:02}", e.abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::has_semantics;

    #[test]
    fn every_opcode_with_semantics_is_generated() {
        for &op in Op::all() {
            if has_semantics(op) {
                assert!(
                    generated_ops().any(|g| g == op),
                    "{} has interpreter semantics but the generator never emits it",
                    op.name()
                );
            }
        }
    }

    #[test]
    fn float_literals_look_like_llvm() {
        assert_eq!(llvm_float(1.25), "1.250000e+00");
        assert_eq!(llvm_float(-0.25), "-2.500000e-01");
        assert_eq!(llvm_float(0.0), "0.000000e+00");
        assert_eq!(llvm_float(-8.0), "-8.000000e+00");
    }

    #[test]
    fn generation_is_deterministic() {
        let cfg = GenConfig::default();
        for seed in 0..5 {
            assert_eq!(generate_raw(seed, &cfg), generate_raw(seed, &cfg));
        }
    }
}
