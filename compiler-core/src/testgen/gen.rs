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
//!  exit  stores of live values, Return (or EXIT)
//! ```
//!
//! **Instructions come from the instruction description** (`mir/nvptx.isa`): a draw
//! picks a row, weighted, then one of its opcodes, and writes it in the shape
//! [`super::sig`] reads from the row (defs, uses, immediates, loads and stores). Only
//! the pseudos, immediate moves, calls, textures and matrix collectives have code of
//! their own here (`hand` rows). [`OpSet::Interpretable`] (the default) draws the rows
//! the MIR interpreter models, for the semantic checks; [`OpSet::All`] draws every row,
//! for parsing, verifying and printing. [`GenConfig::llc22`] writes what llc-22 22.1.8
//! reads: its width classes (`b1` … `b128`), no tuple classes or sub-registers, ties
//! only on inline asm, an IR module declaring what the body names, and none of the
//! opcodes in [`GenConfig::exclude`] (the caller asks llc-22 which it knows).
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
//! multiplies, whose results depend on every lane, and every other convergent row.

use super::sig::{shape, Arg, Lane, LoadForm, Shape, Ty};
use crate::interp::{has_semantics, Rng};
use crate::liveness::set_kill_flags;
use crate::mir::{flag, parse_module, print_module, Module, Op};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// Which rows of the description a program draws from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OpSet {
    /// Rows the MIR interpreter models (its `sem` column is not `none:`).
    Interpretable,
    /// Every row the generator can write.
    All,
}

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// About how many instructions (not counting the fixed prologue and epilogue).
    pub size: usize,
    /// Most nested if/loop regions.
    pub max_depth: u32,
    /// Most loops in the function.
    pub max_loops: u32,
    pub ops: OpSet,
    /// Only what llc-22 reads (its classes, no tuples, an IR module); else the dialect
    /// (llc-22's classes with tuples, or CICC's) is drawn from the seed.
    pub llc22: bool,
    /// Opcodes never drawn (with `llc22`: those llc-22 does not know).
    pub exclude: Vec<Op>,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            size: 40,
            max_depth: 3,
            max_loops: 3,
            ops: OpSet::Interpretable,
            llc22: false,
            exclude: Vec::new(),
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

/// Why the generator never draws `op` under `cfg` (None: it may).
pub fn not_drawn(op: Op, cfg: &GenConfig) -> Option<String> {
    if cfg.exclude.contains(&op) {
        return Some("excluded by the caller (llc-22 does not know it or refuses it)".into());
    }
    if cfg.ops == OpSet::Interpretable && !has_semantics(op) {
        return Some("the interpreter does not model it".into());
    }
    if let Some(why) = only_in_isel_mir(op) {
        return Some(why.into());
    }
    let subreg = [
        Op::REG_SEQUENCE,
        Op::INSERT_SUBREG,
        Op::EXTRACT_SUBREG,
        Op::SUBREG_TO_REG,
    ];
    if cfg.llc22 && subreg.contains(&op) {
        return Some("llc-22's NVPTX register classes have no sub-registers".into());
    }
    shape(op).err()
}

/// Every opcode a program generated under `cfg` may contain.
pub fn drawable(cfg: &GenConfig) -> Vec<Op> {
    Op::all()
        .iter()
        .copied()
        .filter(|&op| not_drawn(op, cfg).is_none())
        .collect()
}

/// Opcodes that exist only in llc-22's isel output, for the lift (`dag::lift`): the
/// programs stand for MIR after isel, which never holds them.
fn only_in_isel_mir(op: Op) -> Option<&'static str> {
    use Op::*;
    match op {
        ProxyRegB1 | ProxyRegB16 | ProxyRegB32 | ProxyRegB64 => {
            Some("NVPTXProxyRegErasure removes proxy registers right after isel")
        }
        _ => None,
    }
}

/// How often a row is drawn, relative to a described row's 2: the shapes that find
/// coalescer bugs (copies, sub-register pseudos, tied asm) more often.
fn row_weight(op: Op) -> u32 {
    use Op::*;
    match op {
        COPY => 12,
        EXTRACT_SUBREG => 5,
        REG_SEQUENCE | INSERT_SUBREG | INLINEASM => 3,
        IMOV32rr | FMOV32rr | ADD32rr | FADDf32rr | LD_i32 | ST_i32 => 3,
        // No PTX form before register allocation: rare, so most programs reach PTX.
        SUBREG_TO_REG => 1,
        _ => 2,
    }
}

/// The rows a program draws ordinary instructions from: (weight, opcodes).
struct Menu {
    rows: Vec<(u32, Vec<Op>)>,
    /// Convergent opcodes by row, placed only where every thread passes once.
    collective: Vec<Vec<Op>>,
    /// Stores, for the values a program writes out.
    stores: Vec<Op>,
}

impl Menu {
    fn new(cfg: &GenConfig) -> Menu {
        let mut rows: Vec<(u32, Vec<Op>)> = Vec::new();
        let mut last_line = u32::MAX;
        let (mut collective, mut stores) = (Vec::new(), Vec::new());
        for op in drawable(cfg) {
            let d = op.desc();
            if matches!(shape(op), Ok(Shape::Store { .. })) && op != Op::STV_i32_v4 {
                stores.push(op);
            }
            if d.has(flag::CONVERGENT) {
                let same_row = |r: &Vec<Op>| r[0].isa_line() == op.isa_line();
                match collective.last_mut() {
                    Some(r) if same_row(r) => r.push(op),
                    _ => collective.push(vec![op]),
                }
                continue;
            }
            if matches!(shape(op), Ok(Shape::Structural)) {
                continue;
            }
            let line = op.isa_line();
            if line == last_line {
                if let Some(r) = rows.last_mut() {
                    r.1.push(op);
                    r.0 = r.0.max(row_weight(op));
                }
            } else {
                rows.push((row_weight(op), vec![op]));
                last_line = line;
            }
        }
        Menu {
            rows,
            collective,
            stores,
        }
    }
}

/// Class names: llc-22's width classes, or CICC's typed ones.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Dialect {
    Llc,
    Cicc,
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
    menu: Menu,
    /// Call sequences written so far (their numbers).
    calls: u32,
    /// Each jump table's target blocks (its id is its index).
    jump_tables: Vec<Vec<usize>>,
    /// Some instruction takes the frame object's address (`Arg::Frame`).
    frame_address: bool,
}

const NAME: &str = "rnd";

/// The IR module of an llc-22 program: the kernel (its entry block named as the
/// body's `bb.0.entry`), the globals `MOV_B64_sym` names and the callee of the call
/// sequences, so llc-22 resolves every `@` name.
const LLC22_IR: &str = "--- |
  target datalayout = \"e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64\"
  target triple = \"nvptx64-nvidia-cuda\"

  @rnd_global = addrspace(1) global [64 x i32] zeroinitializer, align 4
  @rnd_shared = addrspace(3) global [1024 x i32] undef, align 4

  declare i32 @rnd_callee(i32)

  define ptx_kernel void @rnd(ptr %out, ptr %in, i32 %n0, i32 %n1, float %x) {
  entry:
    ret void
  }
...
";

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
    let d = if rng.below(2) == 0 || cfg.llc22 {
        Dialect::Llc
    } else {
        Dialect::Cicc
    };
    // llc-22's opcodes declare no tied operands: ties only on inline asm there.
    let tie_pct = if cfg.llc22 {
        0
    } else {
        [0, 10, 30][rng.below(3) as usize]
    };
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
        menu: Menu::new(cfg),
        calls: 0,
        jump_tables: Vec::new(),
        frame_address: false,
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

    // ---- instructions -------------------------------------------------------------------

    fn random_op(&mut self) -> Op {
        let total: u64 = self.menu.rows.iter().map(|r| r.0 as u64).sum();
        let mut r = self.below(total);
        let mut pick = None;
        for (w, ops) in &self.menu.rows {
            if r < *w as u64 {
                pick = Some(ops.clone());
                break;
            }
            r -= *w as u64;
        }
        match pick {
            Some(ops) => *self.pick(&ops),
            None => Op::COPY,
        }
    }

    fn inst(&mut self) {
        let op = self.random_op();
        self.gen_op(op);
    }

    /// One instruction of `op`, in the shape its description row gives.
    fn gen_op(&mut self, op: Op) {
        match shape(op) {
            Ok(Shape::Plain { defs, uses }) => self.plain(op, &defs, &uses),
            Ok(Shape::Load { form, lanes, elem }) => self.load(op, form, lanes, elem),
            Ok(Shape::Store { lanes, elem }) => self.store(op, lanes, elem),
            Ok(Shape::Hand) => self.hand(op),
            // Placed by the structure; never drawn as an ordinary instruction.
            Ok(Shape::Structural) | Err(_) => self.copy(),
        }
    }

    /// An immediate operand's text.
    fn imm_text(&mut self, a: Arg) -> String {
        match a {
            Arg::Reg(_) | Arg::Addr => unreachable!("a register is not an immediate"),
            Arg::Offset => (self.below(4) * 4).to_string(),
            Arg::Frame => {
                self.frame_address = true;
                "%stack.0".into()
            }
            Arg::Sym(s) => s.into(),
            Arg::Pick(xs) => self.pick(xs).to_string(),
            Arg::Int => self.small_int().to_string(),
            Arg::Below(n) => self.below(n as u64).to_string(),
            Arg::Float(t, bf) => match t {
                Ty::F16 | Ty::I16 if bf => format!("bfloat 0xR{:04X}", 0x3f80 + self.below(0x40)),
                Ty::F16 | Ty::I16 => format!("half 0xH{:04X}", 0x3c00 + self.below(0x400)),
                Ty::F64 | Ty::I64 => format!("double {}", self.float_text()),
                _ => format!("float {}", self.float_text()),
            },
            Arg::Cmp { float } => {
                let n = if float { 14 } else { 12 };
                self.below(n).to_string()
            }
            Arg::Cvt { lo, hi, ftz } => {
                let r = if hi == 0 {
                    0
                } else {
                    lo + self.below(hi - lo + 1)
                };
                // `.ftz`/`.sat` only where a float is involved: ptxas refuses
                // `cvt.sat.u64.u32` (random_programs_ptx, seed 690 of 1,000).
                let flags = if ftz { self.flag_bits(true) } else { 0 };
                (r + flags).to_string()
            }
            Arg::Ftz => (if self.chance(20) { "1" } else { "0" }).into(),
        }
    }

    /// `%d… = OP uses…`: registers picked among visible values, immediates drawn; a
    /// tied first source sometimes (not in llc-22's dialect).
    fn plain(&mut self, op: Op, defs: &[Ty], uses: &[Arg]) {
        self.plain_with(op, defs, uses, false);
    }

    /// A described instruction; `clean`: every operand and result defined (collective
    /// instructions), no ties.
    fn plain_with(&mut self, op: Op, defs: &[Ty], uses: &[Arg], clean: bool) {
        let mut texts = Vec::new();
        let mut taint = false;
        for (k, &a) in uses.iter().enumerate() {
            match a {
                Arg::Reg(t) => {
                    let o = self.opnd(t, clean);
                    taint |= o.taint;
                    let tie = if !clean && k == 0 && defs.len() == 1 && self.fits(t, defs[0]) {
                        self.tie()
                    } else {
                        ""
                    };
                    texts.push(format!("{}{tie}", o.text));
                }
                Arg::Addr => {
                    let (_, base, _) = self.store_addr(16);
                    texts.push(base);
                }
                a => {
                    let t = self.imm_text(a);
                    texts.push(t);
                }
            }
        }
        let mut dts = Vec::new();
        for &t in defs {
            let id = self.new_vreg();
            dts.push(self.def_text(id, t));
            self.add_val(id, t, taint);
        }
        let lhs = if dts.is_empty() {
            String::new()
        } else {
            format!("{} = ", dts.join(", "))
        };
        let sp = if texts.is_empty() { "" } else { " " };
        self.push(format!("{lhs}{}{sp}{}", op.name(), texts.join(", ")));
    }

    /// A load of `lanes` values of `elem` (width and type code drawn to fit).
    fn load(&mut self, op: Op, form: LoadForm, lanes: u8, elem: Ty) {
        let bits = elem.bits() as u64;
        let width = if lanes == 1 && matches!(elem, Ty::I32 | Ty::I16) {
            *self.pick(&[bits, bits, bits / 2, 8])
        } else {
            bits
        };
        let sign = match () {
            _ if elem.is_float() && self.d == Dialect::Cicc => 2,
            _ if width < bits => self.below(2),
            _ => 3,
        };
        let bytes = (width / 8).max(1) * lanes as u64;
        let (sp, base, off) = self.load_addr(bytes, form != LoadForm::Ld);
        let defs = match lanes {
            1 => self.one_def(elem),
            n => {
                let v: Vec<String> = (0..n).map(|_| self.one_def(elem)).collect();
                v.join(", ")
            }
        };
        let ops = match form {
            LoadForm::Ld => format!("0, 0, {sp}, {sign}, {width}, -1, {base}, {off}"),
            LoadForm::Nc => format!("{sign}, {width}, -1, {base}, {off}"),
            LoadForm::Ldu => format!("{width}, {base}, {off}"),
        };
        self.push(format!("{defs} = {} {ops}", op.name()));
    }

    /// A store of `lanes` clean values of `elem` to this thread's slice.
    fn store(&mut self, op: Op, lanes: u8, elem: Ty) {
        let bits = elem.bits() as u64;
        let width = if lanes == 1 && matches!(elem, Ty::I32 | Ty::I16) {
            *self.pick(&[bits, bits, bits, bits / 2, 8])
        } else {
            bits
        };
        let mut vs = Vec::new();
        for _ in 0..lanes {
            // An undefined lane (`$noreg`) only in STV_i32_v4, as before the table
            // drove the generator: it has no PTX form, so it stays rare.
            if op == Op::STV_i32_v4 && !self.cfg.llc22 && self.chance(10) {
                vs.push("$noreg".to_string());
            } else {
                let t = if elem == Ty::I32 {
                    *self.pick(&[Ty::I32, Ty::F32, Ty::H2])
                } else {
                    elem
                };
                vs.push(self.clean(t));
            }
        }
        let (sp, base, off) = self.store_addr((width / 8).max(1) * lanes as u64);
        self.push(format!(
            "{} {}, 0, 0, {sp}, {width}, {base}, {off}",
            op.name(),
            vs.join(", ")
        ));
    }

    /// A random store of a live value, through a store row of the menu.
    fn store_value(&mut self) {
        let stores = self.menu.stores.clone();
        if stores.is_empty() {
            return;
        }
        let op = *self.pick(&stores);
        if let Ok(Shape::Store { lanes, elem }) = shape(op) {
            self.store(op, lanes, elem);
        }
    }

    /// The rows with code of their own: pseudos, immediate moves, call sequences,
    /// parameter copies, textures and asynchronous copies.
    fn hand(&mut self, op: Op) {
        use Op::*;
        match op {
            COPY => self.copy(),
            KILL => {
                let ty = *self.pick(&[Ty::I32, Ty::F32, Ty::I64]);
                self.plain(op, &[ty], &[Arg::Reg(ty)]);
            }
            IMPLICIT_DEF => {
                let ty = if self.chance(30) && !self.cfg.llc22 {
                    self.tuple_ty()
                } else {
                    *self.pick(&SCALARS)
                };
                let id = self.new_vreg();
                let dt = self.def_text(id, ty);
                self.push(format!("{dt} = IMPLICIT_DEF"));
                self.add_val(id, ty, true);
            }
            REG_SEQUENCE => self.reg_sequence(),
            INSERT_SUBREG => self.insert_subreg(),
            SUBREG_TO_REG => self.subreg_to_reg(),
            EXTRACT_SUBREG => self.extract_subreg(),
            INLINEASM => self.inline_asm(),
            MOV_B64_sym => {
                let id = self.new_vreg();
                let dt = self.def_text(id, Ty::I64);
                self.push(format!("{dt} = MOV_B64_sym @{NAME}_global"));
                self.add_val(id, Ty::I64, false);
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
            Callseq_Start | Callseq_End | DECLARE_PARAM_scalar | DECLARE_PARAM_array | CALL_UNI
            | LoadParamMemI32 | LoadParamMemI64 | LoadParamMemF32 | StoreParamI32
            | StoreParamF32 => self.call_seq(),
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
            TMA_LOAD_2D | CP_ASYNC_CA_SHARED => self.async_load(op),
            _ => {
                // An immediate move (`MOV_B32_i`, ...): a constant of its type.
                match mov_imm_ty(op) {
                    Some(ty) => {
                        self.constant(ty);
                    }
                    None => self.copy(),
                }
            }
        }
    }

    /// A call of `rnd_callee(i32) -> i32` in its `Callseq_Start … Callseq_End` scope:
    /// the argument stored into `param0`, the result loaded from `retval0` (llc-22's
    /// `ST_i32`/`LD_i32` in its dialect, CICC's `StoreParamI32`/`LoadParamMemI32`
    /// otherwise).
    fn call_seq(&mut self) {
        let n = self.calls;
        self.calls += 1;
        let cicc = self.d == Dialect::Cicc
            && !self.cfg.exclude.contains(&Op::StoreParamI32)
            && self.cfg.ops == OpSet::All;
        self.push(format!("Callseq_Start {n}, 0"));
        self.push("DECLARE_PARAM_scalar &param0, 32".into());
        let array = self.chance(30);
        if array {
            self.push("DECLARE_PARAM_array &param1, 4, 8".into());
        }
        self.push("DECLARE_PARAM_scalar &retval0, 32".into());
        let v = self.clean(Ty::I32);
        if cicc {
            self.push(format!("StoreParamI32 {v}, 0, 0"));
        } else {
            self.push(format!("ST_i32 {v}, 0, 0, 101, 32, &param0, 0"));
        }
        let nparams = if array { 2 } else { 1 };
        self.push(format!("CALL_UNI @{NAME}_callee, 1, {nparams}"));
        let id = self.new_vreg();
        let dt = self.def_text(id, Ty::I32);
        if cicc {
            let op = *self.pick(&["LoadParamMemI32", "LoadParamMemF32"]);
            let ty = if op.ends_with("F32") {
                Ty::F32
            } else {
                Ty::I32
            };
            let dt = self.def_text(id, ty);
            self.push(format!("{dt} = {op} 0"));
            self.add_val(id, ty, false);
            if self.chance(30) {
                let w = self.new_vreg();
                let dt = self.def_text(w, Ty::I64);
                self.push(format!("{dt} = LoadParamMemI64 0"));
                self.add_val(w, Ty::I64, false);
            }
        } else {
            self.push(format!("{dt} = LD_i32 0, 0, 101, 3, 32, -1, &retval0, 0"));
            self.add_val(id, Ty::I32, false);
        }
        self.push(format!("Callseq_End {n}, {}", n + 1));
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

    fn reg_sequence(&mut self) {
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

    fn insert_subreg(&mut self) {
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

    fn subreg_to_reg(&mut self) {
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
        // The flag word's register class (id + 1): llc-22's B32 4 and B64 6; CICC's
        // int64regs 5.
        let wide_cls = if self.d == Dialect::Llc { 6 } else { 5 };
        let (ty, bits, cls) = if wide {
            (Ty::I64, 64, wide_cls)
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
                // llc-22 has no LD_f32: a float parameter is an untyped 32-bit load.
                Ty::F32 if g.d == Dialect::Llc => ("LD_i32", 3),
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
        let rows = self.menu.collective.clone();
        if rows.is_empty() {
            return;
        }
        use Op::*;
        let barrier = rows
            .iter()
            .any(|r| r.contains(&BARRIER_CTA_SYNC_ALIGNED_ALL_i));
        let op = if self.chance(40) && barrier {
            BARRIER_CTA_SYNC_ALIGNED_ALL_i
        } else if self.cfg.ops == OpSet::All {
            // A row, then one of its opcodes: a row of one opcode (`activemask`)
            // is as likely as the 64 shuffle records of another.
            let row = self.pick(&rows);
            *self.pick(row)
        } else {
            // The interpreted programs keep drawing by opcode (other tests name
            // their seeds).
            let ops: Vec<Op> = rows.concat();
            *self.pick(&ops)
        };
        match op {
            BARRIER_CTA_SYNC_ALIGNED_ALL_i => self.push(format!("{} 0", op.name())),
            MMA_M16N8K8_TF32
            | MMA_M16N8K8_TF32_ACC
            | WMMA_MMA_M16N16K16_F16
            | WGMMA_M64N32K16_F32 => self.matrix(op),
            SHFL_SYNC_IDX_i32 | SHFL_SYNC_DOWN_i32 => self.shuffle(op),
            _ => match shape(op) {
                Ok(Shape::Plain { defs, uses }) => self.plain_with(op, &defs, &uses, true),
                _ => self.push(format!("{} 0", Op::BARRIER_CTA_SYNC_ALIGNED_ALL_i.name())),
            },
        }
    }

    /// A warp shuffle of a clean value.
    fn shuffle(&mut self, op: Op) {
        let v = self.clean(Ty::I32);
        let lane = if op == Op::SHFL_SYNC_IDX_i32 {
            self.below(32)
        } else {
            1 + self.below(16)
        };
        let lane = if self.chance(20) {
            self.clean(Ty::I32)
        } else {
            lane.to_string()
        };
        let id = self.new_vreg();
        let def = self.def_text(id, Ty::I32);
        self.push(format!("{def} = {} {v}, {lane}, 31, -1", op.name()));
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
            } else if nest && left >= 4 && r < 17 && self.may_switch() {
                self.switch(left);
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
        let op = if self.chance(25) && self.other_branch() {
            "CBranchOther"
        } else {
            "CBranch"
        };
        format!("{op} {p}, %bb.{target}")
    }

    /// Whether `CBranchOther` may be written (llc-22 has no such opcode).
    fn other_branch(&self) -> bool {
        !self.cfg.exclude.contains(&Op::CBranchOther)
    }

    fn sub_cap(&mut self, left: usize) -> usize {
        1 + self.below((left / 2).max(1) as u64) as usize
    }

    /// One path of a branch: a fresh block and the code `seq` puts from there.
    /// Returns the block, the block the path ends in, and the values it defined
    /// (taken off the visible ones above `outer`).
    fn arm(&mut self, left: usize, outer: usize) -> (usize, usize, Vec<Val>) {
        let t = self.new_block();
        self.cur = t;
        let cap = self.sub_cap(left);
        self.seq(cap);
        (t, self.cur, self.vals.drain(outer..).collect())
    }

    fn if_else(&mut self, left: usize) {
        let p = self.cond();
        let b = self.cur;
        let outer = self.vals.len();
        self.depth += 1;
        let (t, t_end, then_vals) = self.arm(left, outer);
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

    /// Whether the jump-table opcodes may be drawn.
    fn may_switch(&self) -> bool {
        [Op::BRX_START, Op::BRX_ITEM, Op::BRX_END]
            .iter()
            .all(|&op| not_drawn(op, self.cfg).is_none())
    }

    /// A jump table (llc-22's switch lowering): `BRX_START id`, a `BRX_ITEM` per case
    /// but the last, `BRX_END last, index, id`; each case block jumps to the join,
    /// whose PHIs merge the cases. The index is a clean value below the case count.
    fn switch(&mut self, left: usize) {
        let n = 2 + self.below(3) as usize;
        let v = self.clean(Ty::I32);
        let [m, idx] = [self.new_vreg(), self.new_vreg()];
        let c = Ty::I32.class(self.d);
        self.push(format!("%{m}:{c} = MOV_B32_i 1"));
        self.push(format!("%{idx}:{c} = AND_b32rr {v}, %{m}"));
        let b = self.cur;
        let outer = self.vals.len();
        self.depth += 1;
        let mut cases = Vec::new();
        let mut ends = Vec::new();
        for _ in 0..n {
            let (k, end, vals) = self.arm(left / 2, outer);
            cases.push(k);
            ends.push((end, vals));
        }
        self.depth -= 1;
        let j = self.new_block();
        for (e, _) in &ends {
            self.blocks[*e].term.push(format!("GOTO %bb.{j}"));
            self.blocks[*e].succs = vec![j];
        }
        let id = self.jump_tables.len();
        let term = &mut self.blocks[b].term;
        term.push(format!("BRX_START {id}"));
        for k in &cases[..n - 1] {
            term.push(format!("BRX_ITEM %bb.{k}"));
        }
        term.push(format!("BRX_END %bb.{}, %{idx}, {id}", cases[n - 1]));
        self.blocks[b].succs = cases.clone();
        self.jump_tables.push(cases);
        self.cur = j;
        self.join_phis(j, &ends);
    }

    fn if_then(&mut self, left: usize) {
        let p = self.cond();
        let b = self.cur;
        let outer = self.vals.len();
        self.depth += 1;
        let (t, t_end, then_vals) = self.arm(left, outer);
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
        let (op, mode) = if self.chance(70) || !self.other_branch() {
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
                // llc-22 stores a 16-bit register with ST_i16 (which the
                // interpreter does not model); CICC's ST_i32 takes any width.
                Ty::I16 | Ty::F16 if self.cfg.llc22 => {
                    if not_drawn(Op::ST_i16, self.cfg).is_none() {
                        let o = off(self, 2);
                        self.push(format!("ST_i16 %{}, 0, 0, 1, 16, %{out}, {o}", v.id));
                    }
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
        // EXIT ends the thread as Return does; the interpreter does not model it.
        let exit = not_drawn(Op::EXIT, self.cfg).is_none() && self.chance(25);
        let ret = if exit { Op::EXIT } else { Op::Return };
        self.blocks[self.cur].term.push(ret.name().into());
    }

    fn render(&self) -> String {
        let mut s = String::new();
        if self.cfg.llc22 {
            s.push_str(LLC22_IR);
        }
        s.push_str(&format!(
            "---\nname: {NAME}\ntracksRegLiveness: true\nisSSA: true\nnoPhis: false\n"
        ));
        if self.cfg.llc22 || self.frame_address {
            // `LIFETIME_START %stack.0` and a frame object's address name this
            // object (ptx-emit lays the frame out from this section).
            s.push_str("stack:\n  - { id: 0, size: 4, alignment: 4 }\n");
        }
        if !self.jump_tables.is_empty() {
            s.push_str("jumpTable:\n  kind: inline\n  entries:\n");
            for (id, blocks) in self.jump_tables.iter().enumerate() {
                let list: Vec<String> = blocks.iter().map(|b| format!("'%bb.{b}'")).collect();
                s.push_str(&format!(
                    "    - id: {id}\n      blocks: [ {} ]\n",
                    list.join(", ")
                ));
            }
        }
        s.push_str("body: |\n");
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
        if !self.cfg.llc22 && (s.contains("@rnd_global") || s.contains("@rnd_shared")) {
            // CICC's dialect has no IR module of its own; the variables `MOV_B64_sym`
            // names are still declared, so the PTX is complete (ptx-emit declares a
            // module's IR globals as llc-22 does) and the ORI interpreter finds them.
            s.insert_str(0, GLOBALS_IR);
        }
        s
    }
}

/// The IR module of a CICC-dialect program that names the generator's variables: the
/// variables alone (its kernel's signature still comes from the MIR).
const GLOBALS_IR: &str = "--- |
  @rnd_global = addrspace(1) global [64 x i32] zeroinitializer, align 4
  @rnd_shared = addrspace(3) global [1024 x i32] undef, align 4
...
";

/// The type an immediate move defines: `MOV_B32_i` → i32, `MOV_F64_i` → f64.
fn mov_imm_ty(op: Op) -> Option<Ty> {
    let t = op.name().strip_prefix("MOV_")?.strip_suffix("_i")?;
    Some(match t {
        "B1" => Ty::Pred,
        "B16" => Ty::I16,
        "B32" => Ty::I32,
        "B64" => Ty::I64,
        "F32" => Ty::F32,
        "F64" => Ty::F64,
        _ => return None,
    })
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

    #[test]
    fn every_opcode_with_semantics_is_drawable() {
        let cfg = GenConfig::default();
        for &op in Op::all() {
            if has_semantics(op) {
                assert_eq!(
                    not_drawn(op, &cfg),
                    None,
                    "{} has interpreter semantics but the generator cannot draw it",
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
