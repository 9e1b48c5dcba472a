//! A reference evaluator for PTX and ORI: runs a kernel on concrete inputs so that
//! `ptx-lower` (and later GeneralOptimize) can be checked to preserve what it computes.
//!
//! ```text
//!  ptx::Function ──compile_ptx──┐                         ┌─ Outcome: global buffers
//!                               ├─▶ Program ──run(Inputs)─┤    after the launch
//!  ori::Function ──compile_ori──┘   (flat code, register   └─ or InterpError
//!                                    slots, block starts)
//! ```
//!
//! The two front ends are independent: `compile_ptx` reads labels, guards and opcodes
//! as written (`sub.f32`, `neg.f32`), `compile_ori` reads blocks, anchors, predication
//! and neg/abs modifiers — so equal results mean lowering kept the meaning.
//!
//! **Execution model.** A launch is `grid × block` threads; CTAs run one after another.
//! Inside a CTA each thread runs on its own (registers, program counter, local memory)
//! until it reaches `bar.sync` or returns; when every live thread waits at the barrier
//! it opens. Threads that returned count as arrived. `mma.sync` (m16n8k8 tf32) and
//! `wmma.mma.sync` (m16n16k16 f32.f16) are warp collectives, `wgmma.mma_async`
//! (m64n32k16 f32.f16.f16, operands through shared-memory descriptors, no swizzle) a
//! warpgroup collective: they run when every live thread of the warp (warpgroup)
//! waits at the same one, with the MIR interpreter's arithmetic
//! (`crate::interp::matrix`). `cp.async` / `cp.async.bulk` copy at once; `mbarrier`
//! init / arrive.expect_tx / try_wait.parity model the first phase. `shfl`, `vote`
//! and `activemask` are warp collectives too, over the warp's live lanes (a partial
//! warp is allowed; a shuffle reading an exited lane is refused); `bar.warp.sync` is a
//! no-op, since lanes meet at every collective anyway. `atom` / `red` run when their
//! thread does: threads run one at a time in a fixed order, so each read-modify-write
//! is atomic and the result deterministic. `%clock` / `%clock64` count the thread's
//! clock reads (times 1000): volatile, deterministic, and changed by any rewrite that
//! merges or drops a read. `ldmatrix` is a warp collective too ([`ldmatrix`]). Calls
//! run the module's `.func`s linked into the kernel's program, and `vprintf` logs
//! what it would print ([`calls`]); module-scope `.global` / `.const` / `.shared`
//! variables have addresses ([`module_vars`]); `ex2`, `lg2`, `sin`, `cos`, `tanh`
//! stand in for the hardware's approximations ([`approx`]). Other matrix shapes,
//! indirect and recursive calls are refused as unsupported, naming the construct.
//!
//! **Generic addresses.** 64-bit `cvta.local` / `cvta.shared` move an address into
//! a window of the generic space ([`LOCAL_WINDOW`], [`SHARED_WINDOW`]), `cvta.to.*`
//! back; a generic access inside a window reaches the thread's local memory or the
//! CTA's shared memory (llc-22 at `-O0` addresses its stack this way, `%SP`).
//!
//! **Values.** Registers hold bit patterns masked to their declared width and start at
//! a fixed poison pattern. Float arithmetic is IEEE binary32/64 with PTX's canonical
//! NaN; `fma` is fused (exact product, one rounding); the directed roundings `.rz .rm
//! .rp` of `add sub mul fma mad div sqrt rcp`, all f64 `add sub mul fma div sqrt rcp`
//! and `cvt` to f16 are rounded once from the exact result by the numeric core's
//! integer arithmetic (`crate::interp::float`); f16 values compute in f32 and round
//! once, which is exact for add, sub and mul; `.ftz` flushes f32 subnormal inputs and
//! results to zero.
//!
//! **Memory.** Kernel parameters are byte arrays read with `ld.param [name+off]`;
//! global buffers live at `GLOBAL_BASE + k * REGION_STRIDE`; shared variables are laid
//! out from offset 0 of a per-CTA array and their symbol's address is that offset;
//! local variables likewise per thread. Out-of-bounds accesses are errors.
//!
//! **Textures** are a deterministic function of the handle and the coordinate bits
//! (the same model as the MIR interpreter): texel k comes from bits 16k..16k+15 of a
//! SplitMix64 hash chain; f32 texels are `(low byte - 128) / 8`, s32 texels the
//! sign-extended 16 bits.
//!
//! Errors are values, never panics; runaway loops stop when the fuel runs out.

mod approx;
mod calls;
mod carry;
mod ldmatrix;
mod module_vars;

pub use calls::PRINTF_BASE;
pub use module_vars::{DYNAMIC_SHARED_BYTES, MODULE_CONST_BASE, MODULE_GLOBAL_BASE};

use crate::ori::{AddrBase as OAddr, OpKind};
use crate::interp::exec::{splitmix, texels};
use crate::interp::float::{
    self, f16_to_f32, f32_to_f16, fma32, ftz16, FRound, Format, BINARY16, BINARY32, BINARY64,
};
use crate::interp::matrix::{self, LaneFragments, Shape};
use crate::interp::NumTy;
use crate::ptx::ast::{self as ptx, Imm, Stmt};
use crate::ptx::op::{decode, Decoded, Kind, Space, Ty};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

pub const GLOBAL_BASE: u64 = 0x1_0000_0000;
pub const REGION_STRIDE: u64 = 0x100_0000;
/// Initial register contents.
pub const POISON: u64 = 0xDEAD_BEEF_DEAD_BEEF;

/// The launch shape: the MIR interpreter's (one type for both interpreters).
pub use crate::interp::Launch;

/// A global-memory buffer at a fixed address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Buffer {
    pub base: u64,
    pub bytes: Vec<u8>,
}

/// Everything a run reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    pub launch: Launch,
    /// Bytes of each kernel parameter (little-endian), in declaration order.
    pub params: Vec<Vec<u8>>,
    /// Global buffers (not overlapping); `random_inputs` puts buffer k at
    /// `GLOBAL_BASE + k * REGION_STRIDE`.
    pub buffers: Vec<Buffer>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Instructions executed (all threads together) before giving up.
    pub fuel: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config { fuel: 2_000_000 }
    }
}

/// What a run leaves behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub buffers: Vec<Buffer>,
    pub executed: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterpError {
    /// The program uses something the evaluator does not model.
    Unsupported(String),
    /// The program is not well-formed enough to run.
    Malformed(String),
    Memory(String),
    /// Lanes of a warp that must meet at a collective do not.
    Divergence(String),
    OutOfFuel,
    NoSuchFunction(String),
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpError::Unsupported(s) => write!(f, "unsupported: {s}"),
            InterpError::Malformed(s) => write!(f, "malformed: {s}"),
            InterpError::Divergence(s) => write!(f, "divergence: {s}"),
            InterpError::Memory(s) => write!(f, "memory: {s}"),
            InterpError::OutOfFuel => f.write_str("out of fuel"),
            InterpError::NoSuchFunction(s) => write!(f, "no function `{s}`"),
        }
    }
}

type R<T> = Result<T, InterpError>;

/// The error for an instruction that needs a type and has none.
fn untyped(d: &Decoded) -> InterpError {
    InterpError::Malformed(format!("`{}` without a type", d.base))
}

fn unsupported<T>(s: impl Into<String>) -> R<T> {
    Err(InterpError::Unsupported(s.into()))
}
fn malformed<T>(s: impl Into<String>) -> R<T> {
    Err(InterpError::Malformed(s.into()))
}

// ---------------------------------------------------------------------------
// The common operand view both front ends build.

#[derive(Clone, Debug)]
enum V {
    Reg(usize),
    Imm(Imm),
    Special(String),
    Sym(String),
    Addr {
        base: VBase,
        offset: i64,
        extra: Vec<VOp>,
    },
    Vec(Vec<VOp>),
    Pair(Box<VOp>, Box<VOp>),
    Not(Box<VOp>),
    Label(usize),
    /// `(a, b)`: a call's argument or result list.
    List(Vec<VOp>),
}

#[derive(Clone, Debug)]
enum VBase {
    Reg(usize),
    Sym(String),
    None,
}

#[derive(Clone, Debug)]
struct VOp {
    v: V,
    neg: bool,
    abs: bool,
}

impl VOp {
    fn plain(v: V) -> Self {
        VOp {
            v,
            neg: false,
            abs: false,
        }
    }
}

#[derive(Clone, Debug)]
struct X {
    d: Decoded,
    ops: Vec<VOp>,
    guard: Option<(usize, bool)>,
}

/// A compiled function.
#[derive(Clone, Debug)]
pub struct Program {
    code: Vec<X>,
    reg_bits: Vec<u32>,
    params: Vec<String>,
    shared: BTreeMap<String, u64>,
    shared_size: u64,
    local: BTreeMap<String, u64>,
    local_size: u64,
    /// Linked callees by name ([`calls::link`]).
    funcs: BTreeMap<String, calls::FuncInfo>,
    /// Module-scope `.global` / `.const` variables: their addresses.
    globals: BTreeMap<String, u64>,
    /// Their buffers with initial contents.
    module_bufs: Vec<Buffer>,
    /// This function's own formals, for linking it as a callee.
    own_params: Vec<calls::Formal>,
    own_rets: Vec<calls::Formal>,
}

fn var_layout(vars: &[ptx::VarDecl], space: &str) -> R<(BTreeMap<String, u64>, u64)> {
    var_layout_of(vars, &[space])
}

/// Lays out the variables of any of `spaces` one after another, each aligned.
fn var_layout_of(vars: &[ptx::VarDecl], spaces: &[&str]) -> R<(BTreeMap<String, u64>, u64)> {
    let mut map = BTreeMap::new();
    let mut at = 0u64;
    for v in vars
        .iter()
        .filter(|v| v.space().is_some_and(|s| spaces.contains(&s)))
    {
        let align = v.align().unwrap_or(8).max(1) as u64;
        at = at.div_ceil(align) * align;
        let size = v
            .size_bytes()
            .ok_or_else(|| InterpError::Unsupported(format!("size of {}", v.name)))?;
        map.insert(v.name.clone(), at);
        at += size;
        if at > 1 << 24 {
            return unsupported("variables larger than 16 MiB");
        }
    }
    Ok((map, at))
}

fn check_supported(code: &[X]) -> R<()> {
    for x in code {
        let b = x.d.base.as_str();
        let ok = matches!(
            b,
            "add"
                | "sub"
                | "mul"
                | "mad"
                | "fma"
                | "div"
                | "rem"
                | "min"
                | "max"
                | "neg"
                | "abs"
                | "and"
                | "or"
                | "xor"
                | "not"
                | "shl"
                | "shr"
                | "shf"
                | "setp"
                | "selp"
                | "mov"
                | "cvt"
                | "cvta"
                | "ld"
                | "ldu"
                | "st"
                | "tex"
                | "bar"
                | "barrier"
                | "bra"
                | "ret"
                | "exit"
                | "nop"
                | "membar"
                | "fence"
                | "cp"
                | "mbarrier"
                | "shfl"
                | "vote"
                | "activemask"
                | "atom"
                | "red"
                | "popc"
                | "clz"
                | "brev"
                | "bfe"
                | "bfi"
                | "prmt"
                | "slct"
                | "set"
                | "mul24"
                | "rcp"
                | "sqrt"
                | "rsqrt"
                | "ex2"
                | "lg2"
                | "sin"
                | "cos"
                | "tanh"
                | "call"
                | "ldmatrix"
                | "trap"
                | "addc"
                | "subc"
                | "madc"
        ) || (matches!(b, "mma" | "wmma") && matrix_shape(&x.d).is_some())
            || (b == "wgmma" && wgmma_kind(&x.d).is_some());
        if !ok {
            return unsupported(format!("`{}` has no semantics here", b));
        }
    }
    Ok(())
}

/// The warp-level matrix instruction a decoded opcode is, if it is one we run.
fn matrix_shape(d: &Decoded) -> Option<Shape> {
    let all = |ms: &[&str]| ms.iter().all(|m| d.has(m));
    let tys: Vec<String> = d.types.iter().map(|t| t.name()).collect();
    // `tf32` reads as a 32-bit bit type.
    match d.base.as_str() {
        "mma"
            if all(&["sync", "aligned", "m16n8k8", "row", "col"])
                && tys == ["f32", "b32", "b32", "f32"] =>
        {
            Some(Shape::MmaM16N8K8Tf32)
        }
        "wmma"
            if all(&["mma", "sync", "aligned", "row", "col", "m16n16k16"])
                && tys == ["f32", "f16"] =>
        {
            Some(Shape::WmmaM16N16K16F32F16)
        }
        _ => None,
    }
}

/// What a `wgmma` opcode is: Some(true) for the m64n32k16 f32/f16 multiply we run,
/// Some(false) for the fence, commit and wait (no-ops here: the multiply completes at
/// once), None for anything else.
fn wgmma_kind(d: &Decoded) -> Option<bool> {
    let m = d.mods.first().map(String::as_str)?;
    match m {
        "fence" | "commit_group" | "wait_group" => Some(false),
        "mma_async" => {
            let tys: Vec<String> = d.types.iter().map(|t| t.name()).collect();
            (d.has("m64n32k16") && tys == ["f32", "f16", "f16"]).then_some(true)
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Front end 1: PTX as written.

struct PtxCx {
    regs: BTreeMap<String, usize>,
    bits: Vec<u32>,
    ranges: BTreeMap<String, (u32, u32)>,
    singles: BTreeMap<String, u32>,
}

impl PtxCx {
    fn reg(&mut self, name: &str) -> Option<usize> {
        if let Some(&r) = self.regs.get(name) {
            return Some(r);
        }
        let bits = if let Some(&b) = self.singles.get(name) {
            b
        } else {
            let digits = name.trim_end_matches(|c: char| c.is_ascii_digit());
            let n: u32 = name[digits.len()..].parse().ok()?;
            let &(count, b) = self.ranges.get(digits)?;
            if n >= count {
                return None;
            }
            b
        };
        let id = self.bits.len();
        self.bits.push(bits);
        self.regs.insert(name.into(), id);
        Some(id)
    }
}

fn decl_bits(words: &[String]) -> u32 {
    match words.last().map(String::as_str) {
        Some(".pred") => 1,
        Some(w) => ptx::type_bytes(w).map_or(32, |b| b * 8),
        None => 32,
    }
}

fn flatten<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
    for s in stmts {
        match s {
            Stmt::Scope(v) | Stmt::InlineAsm(v) => flatten(v, out),
            _ => out.push(s),
        }
    }
}

/// Compiles a PTX function as written; its parameters are the launch's.
pub fn compile_ptx(f: &ptx::Function) -> R<Program> {
    compile_ptx_as(f, false)
}

/// `callee`: the function is linked into another's program, its `.param` formals
/// per-thread memory.
fn compile_ptx_as(f: &ptx::Function, callee: bool) -> R<Program> {
    let body = f
        .body
        .as_ref()
        .ok_or_else(|| InterpError::Malformed("a declaration has no body".into()))?;
    let mut flat = Vec::new();
    flatten(body, &mut flat);
    let mut cx = PtxCx {
        regs: BTreeMap::new(),
        bits: Vec::new(),
        ranges: BTreeMap::new(),
        singles: BTreeMap::new(),
    };
    for p in f.rets.iter().chain(f.params.iter().flatten()) {
        if p.words.first().is_some_and(|w| w == ".reg") {
            let b = p.ty().and_then(ptx::type_bytes).map_or(32, |b| b * 8);
            let b = if p.ty() == Some(".pred") { 1 } else { b };
            cx.singles.insert(p.name.clone(), b);
        }
    }
    let formal_regs: BTreeMap<String, usize> = f
        .rets
        .iter()
        .chain(f.params.iter().flatten())
        .filter_map(|p| Some((p.name.clone(), cx.reg(&p.name)?)))
        .collect();
    let mut vars = Vec::new();
    for s in &flat {
        match s {
            Stmt::Reg(r) => {
                let b = decl_bits(&r.words);
                for (n, c) in &r.names {
                    match c {
                        Some(c) => {
                            cx.ranges.insert(n.clone(), (*c, b));
                        }
                        None => {
                            cx.singles.insert(n.clone(), b);
                        }
                    }
                }
            }
            Stmt::Var(v) => vars.push(v.clone()),
            _ => {}
        }
    }
    // Labels → the index of the next instruction.
    let mut labels = BTreeMap::new();
    let mut n = 0usize;
    for s in &flat {
        match s {
            Stmt::Label(l) => {
                labels.insert(l.clone(), n);
            }
            Stmt::Inst(_) => n += 1,
            _ => {}
        }
    }
    let mut code = Vec::new();
    for s in &flat {
        let Stmt::Inst(i) = s else { continue };
        let d = decode(&i.opcode);
        let branch = matches!(d.base.as_str(), "bra" | "brx");
        let ops = i
            .operands
            .iter()
            .map(|o| ptx_view(&mut cx, &labels, o, branch))
            .collect::<R<Vec<_>>>()?;
        let guard = match &i.guard {
            Some(g) => Some((
                cx.reg(&g.reg)
                    .ok_or_else(|| InterpError::Malformed(format!("{} undeclared", g.reg)))?,
                g.negated,
            )),
            None => None,
        };
        code.push(X { d, ops, guard });
    }
    finish(
        code,
        cx.bits,
        f,
        &vars,
        &mut |n| formal_regs.get(n).copied(),
        callee,
    )
}

fn ptx_view(
    cx: &mut PtxCx,
    labels: &BTreeMap<String, usize>,
    o: &ptx::Operand,
    branch: bool,
) -> R<VOp> {
    Ok(VOp::plain(match o {
        ptx::Operand::Reg(r) => match cx.reg(r) {
            Some(id) => V::Reg(id),
            None if crate::ori::regs::is_special(r) => V::Special(r.clone()),
            None => return malformed(format!("{r} undeclared")),
        },
        ptx::Operand::Imm(v) => V::Imm(*v),
        ptx::Operand::Sym(s) if branch => V::Label(
            *labels
                .get(s)
                .ok_or_else(|| InterpError::Malformed(format!("no label {s}")))?,
        ),
        ptx::Operand::Sym(s) => V::Sym(s.clone()),
        ptx::Operand::SymOffset(s, off) => V::Sym(format!("{s}{off:+}")),
        ptx::Operand::Addr {
            base,
            offset,
            extra,
        } => V::Addr {
            base: match base {
                ptx::AddrBase::Reg(r) => VBase::Reg(
                    cx.reg(r)
                        .ok_or_else(|| InterpError::Malformed(format!("{r} undeclared")))?,
                ),
                ptx::AddrBase::Sym(s) => VBase::Sym(s.clone()),
                ptx::AddrBase::None => VBase::None,
            },
            offset: *offset,
            extra: extra
                .iter()
                .map(|e| ptx_view(cx, labels, e, false))
                .collect::<R<_>>()?,
        },
        ptx::Operand::Vec(v) => V::Vec(
            v.iter()
                .map(|e| ptx_view(cx, labels, e, false))
                .collect::<R<_>>()?,
        ),
        ptx::Operand::Pair(a, b) => V::Pair(
            Box::new(ptx_view(cx, labels, a, false)?),
            Box::new(ptx_view(cx, labels, b, false)?),
        ),
        ptx::Operand::Not(a) => V::Not(Box::new(ptx_view(cx, labels, a, false)?)),
        ptx::Operand::Paren(v) => V::List(
            v.iter()
                .map(|e| ptx_view(cx, labels, e, false))
                .collect::<R<_>>()?,
        ),
    }))
}

// ---------------------------------------------------------------------------
// Front end 2: ORI.

/// Anchors and kept directives (`.loc`, `.pragma`) do nothing when run.
fn skipped(c: crate::ori::Class) -> bool {
    matches!(c, crate::ori::Class::Anchor | crate::ori::Class::Directive)
}

/// Compiles an ORI function: blocks in layout order, anchors skipped, branch targets
/// resolved to the first instruction of their block.
pub fn compile_ori(f: &crate::ori::Function) -> R<Program> {
    compile_ori_as(f, false)
}

/// [`compile_ori`], as a callee when `callee` (see [`compile_ptx_as`]).
fn compile_ori_as(f: &crate::ori::Function, callee: bool) -> R<Program> {
    if f.is_decl {
        return malformed("a declaration has no body");
    }
    let mut starts = Vec::new();
    let mut n = 0usize;
    for b in f.blocks.values() {
        starts.push(n);
        n += b
            .insts
            .iter()
            .filter(|&&i| !skipped(f.insts[i].class))
            .count();
    }
    let bits: Vec<u32> = f.regs.values().map(|r| r.bits).collect();
    let mut code = Vec::new();
    for (_, id) in f.layout() {
        let i = &f.insts[id];
        if skipped(i.class) {
            continue;
        }
        let ops = i
            .operands
            .iter()
            .map(|o| ori_view(o, &starts))
            .collect::<R<Vec<_>>>()?;
        code.push(X {
            d: decode(&i.opcode),
            ops,
            guard: i
                .guard
                .map(|(r, n)| (crate::entity::EntityRef::index(r), n)),
        });
    }
    let params: &[ptx::Param] = f.params.as_deref().unwrap_or(&[]);
    let pf = ptx::Function {
        linkage: Vec::new(),
        kind: f.kind,
        rets: f.rets.clone(),
        name: f.name.clone(),
        params: Some(params.to_vec()),
        perf: Vec::new(),
        body: None,
        lines: Default::default(),
    };
    // Variables declared in inner scopes (a call sequence's `.param`s) too.
    let mut vars = f.locals.clone();
    for sc in &f.scopes {
        for d in &sc.decls {
            if let Stmt::Var(v) = d {
                vars.push(v.clone());
            }
        }
    }
    let names: BTreeMap<&str, usize> = f
        .regs
        .iter()
        .map(|(id, r)| (r.name.as_str(), crate::entity::EntityRef::index(id)))
        .collect();
    finish(
        code,
        bits,
        &pf,
        &vars,
        &mut |n| names.get(n).copied(),
        callee,
    )
}

fn ori_view(o: &crate::ori::Operand, starts: &[usize]) -> R<VOp> {
    use crate::entity::EntityRef;
    let v = match &o.kind {
        OpKind::Reg(r) => V::Reg(r.index()),
        OpKind::Imm(v) => V::Imm(*v),
        OpKind::Sym(s) => V::Sym(s.to_string()),
        OpKind::Special(s) => V::Special(s.to_string()),
        OpKind::Block(b) => V::Label(
            *starts
                .get(b.index())
                .ok_or_else(|| InterpError::Malformed(format!("no block {b}")))?,
        ),
        OpKind::Addr(a) => V::Addr {
            base: match &a.base {
                OAddr::Reg(r) => VBase::Reg(r.index()),
                OAddr::Sym(s) => VBase::Sym(s.to_string()),
                OAddr::None => VBase::None,
            },
            offset: a.offset,
            extra: a
                .extra
                .iter()
                .map(|e| ori_view(e, starts))
                .collect::<R<_>>()?,
        },
        OpKind::Vec(v) => V::Vec(v.iter().map(|e| ori_view(e, starts)).collect::<R<_>>()?),
        OpKind::Pair(a, b) => V::Pair(
            Box::new(ori_view(a, starts)?),
            Box::new(ori_view(b, starts)?),
        ),
        OpKind::Not(a) => V::Not(Box::new(ori_view(a, starts)?)),
        OpKind::Paren(v) => V::List(v.iter().map(|e| ori_view(e, starts)).collect::<R<_>>()?),
    };
    Ok(VOp {
        v,
        neg: o.neg,
        abs: o.abs,
    })
}

fn finish(
    code: Vec<X>,
    reg_bits: Vec<u32>,
    f: &ptx::Function,
    locals: &[ptx::VarDecl],
    reg_of: &mut dyn FnMut(&str) -> Option<usize>,
    callee: bool,
) -> R<Program> {
    check_supported(&code)?;
    let (shared, shared_size) = var_layout(locals, ".shared")?;
    // A `.func`'s `.param` formals are per-thread memory like its `.local`s and the
    // `.param`s of its call sequences; a kernel's parameters are the launch's.
    let mut vars = locals.to_vec();
    let func = callee;
    let formal_of = |p: &ptx::Param| -> R<calls::Formal> {
        if p.words.first().is_some_and(|w| w == ".reg") {
            return Ok(calls::Formal::Reg(usize::MAX));
        }
        let size = p.ty().and_then(ptx::type_bytes).ok_or_else(|| {
            InterpError::Unsupported(format!("the type of parameter `{}`", p.name))
        })? as u64
            * u64::from(p.array.unwrap_or(1));
        Ok(calls::Formal::Mem {
            name: p.name.clone(),
            size: size as usize,
        })
    };
    let (mut own_params, mut own_rets) = (Vec::new(), Vec::new());
    if func {
        for (list, out) in [
            (f.params.as_deref().unwrap_or(&[]), &mut own_params),
            (&f.rets[..], &mut own_rets),
        ] {
            for p in list {
                let mut fm = formal_of(p)?;
                match &mut fm {
                    calls::Formal::Reg(r) => {
                        *r = reg_of(&p.name).ok_or_else(|| {
                            InterpError::Malformed(format!("no register for `{}`", p.name))
                        })?
                    }
                    calls::Formal::Mem { .. } => vars.push(ptx::VarDecl {
                        words: p.words.clone(),
                        name: p.name.clone(),
                        dims: p.array.map(Some).into_iter().collect(),
                        init: None,
                    }),
                }
                out.push(fm);
            }
        }
    }
    let (local, local_size) = var_layout_of(&vars, &[".local", ".param"])?;
    let params = if func {
        Vec::new()
    } else {
        f.params
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|p| p.name.clone())
            .collect()
    };
    Ok(Program {
        code,
        reg_bits,
        params,
        shared,
        shared_size,
        local,
        local_size,
        funcs: BTreeMap::new(),
        globals: BTreeMap::new(),
        module_bufs: Vec::new(),
        own_params,
        own_rets,
    })
}

// ---------------------------------------------------------------------------
// Execution.

#[derive(Copy, Clone, PartialEq, Eq)]
enum St {
    Run,
    Barrier,
    /// Waiting at a warp-collective instruction (its code index in `Thread::at`).
    Warp,
    Done,
}

struct Thread {
    pc: usize,
    /// The collective instruction the thread waits at (valid in `St::Warp`).
    at: usize,
    regs: Vec<u64>,
    local: Vec<u8>,
    st: St,
    tid: [u32; 3],
    /// `%clock` / `%clock64` reads so far (see [`Machine::special`]).
    clocks: core::cell::Cell<u64>,
    /// Calls in progress, innermost last.
    frames: Vec<calls::Frame>,
    /// The carry flag (`CC.CF`, [`carry`]).
    cc: bool,
}

struct Machine<'a> {
    p: &'a Program,
    inputs: &'a Inputs,
    buffers: Vec<Buffer>,
    shared: Vec<u8>,
    ctaid: [u32; 3],
    fuel: u64,
    executed: u64,
    /// What `vprintf` logged ([`calls`]).
    printed: Vec<u8>,
}

/// A warp at a collective: its live threads (indices into the CTA's threads), its
/// first thread, and the instruction they wait at.
#[derive(Copy, Clone)]
struct Warp<'w> {
    lanes: &'w [usize],
    base: usize,
    at: usize,
}

/// A thread's linear index in its CTA (x fastest), whose low five bits are its lane.
fn linear_tid(t: &Thread, l: Launch) -> u32 {
    t.tid[0] + l.block[0] * (t.tid[1] + l.block[1] * t.tid[2])
}

/// Generic addresses of the local and shared windows: `cvta.local` / `cvta.shared`
/// (64-bit) add the window's base to the space's address, `cvta.to.local` /
/// `cvta.to.shared` take it off, and a generic access inside a window reaches that
/// space. Global buffers sit below both (at [`GLOBAL_BASE`]).
pub const LOCAL_WINDOW: u64 = 0x7000_0000_0000;
pub const SHARED_WINDOW: u64 = 0x6000_0000_0000;
const WINDOW_BYTES: u64 = 1 << 40;

fn window(space: Option<Space>) -> Option<u64> {
    match space {
        Some(Space::Local) => Some(LOCAL_WINDOW),
        Some(Space::Shared) => Some(SHARED_WINDOW),
        _ => None,
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn canon32(f: f32) -> u64 {
    if f.is_nan() {
        0x7fff_ffff
    } else {
        f.to_bits() as u64
    }
}
fn canon64(f: f64) -> u64 {
    if f.is_nan() {
        0x7fff_ffff_ffff_ffff
    } else {
        f.to_bits()
    }
}

/// An f16 arithmetic result: PTX's canonical NaN (0x7fff) for any NaN.
fn canon16(f: f32) -> u16 {
    if f.is_nan() {
        0x7fff
    } else {
        f32_to_f16(f)
    }
}

fn flush32(f: f32) -> f32 {
    if f.is_subnormal() {
        if f.is_sign_negative() {
            -0.0
        } else {
            0.0
        }
    } else {
        f
    }
}

/// One load or store: a state space, the symbol its address is relative to (if any),
/// the address (or offset from the symbol) and the width in bytes.
#[derive(Copy, Clone, Debug)]
struct Access<'a> {
    space: Space,
    sym: Option<&'a str>,
    addr: u64,
    bytes: usize,
}

impl<'a> Access<'a> {
    fn new(space: Space, sym: Option<&'a str>, addr: u64, bytes: usize) -> Self {
        Access {
            space,
            sym,
            addr,
            bytes,
        }
    }

    /// Lane `k` of a vector access: `k` widths further on.
    fn lane(self, k: usize) -> Self {
        Access {
            addr: self.addr.wrapping_add((k * self.bytes) as u64),
            ..self
        }
    }
}

impl Machine<'_> {
    fn val(&self, t: &Thread, o: &VOp, ty: Option<Ty>) -> R<u64> {
        let raw = match &o.v {
            V::Reg(r) => *t
                .regs
                .get(*r)
                .ok_or_else(|| InterpError::Malformed("register out of range".into()))?,
            V::Imm(i) => {
                let fbits = ty.filter(|t| t.kind == Kind::Float).map(|t| t.bits);
                match (i, fbits) {
                    (Imm::F32(b), Some(64)) => (f32::from_bits(*b) as f64).to_bits(),
                    (Imm::F64(b), Some(32)) => (f64::from_bits(*b) as f32).to_bits() as u64,
                    (Imm::Int(v), Some(32)) => (*v as f32).to_bits() as u64,
                    (Imm::Int(v), Some(64)) => (*v as f64).to_bits(),
                    _ => i.bits(),
                }
            }
            V::Special(s) => self.special(t, s)?,
            V::Sym(s) => self.sym_addr(s)?,
            V::Not(inner) => (self.val(t, inner, ty)? == 0) as u64,
            _ => return malformed("operand is not a value"),
        };
        if !(o.neg || o.abs) {
            return Ok(raw);
        }
        Ok(match ty {
            Some(Ty {
                kind: Kind::Float,
                bits: 32,
            }) => {
                let mut v = raw & 0xffff_ffff;
                if o.abs {
                    v &= 0x7fff_ffff;
                }
                if o.neg {
                    v ^= 0x8000_0000;
                }
                v
            }
            Some(Ty {
                kind: Kind::Float,
                bits: 64,
            }) => {
                let mut v = raw;
                if o.abs {
                    v &= !(1 << 63);
                }
                if o.neg {
                    v ^= 1 << 63;
                }
                v
            }
            Some(Ty {
                kind: Kind::Float,
                bits: 16,
            }) => {
                let mut v = raw & 0xffff;
                if o.abs {
                    v &= 0x7fff;
                }
                if o.neg {
                    v ^= 0x8000;
                }
                v
            }
            _ => {
                let mut v = raw as i64;
                if o.abs {
                    v = v.wrapping_abs();
                }
                if o.neg {
                    v = v.wrapping_neg();
                }
                v as u64
            }
        })
    }

    fn special(&self, t: &Thread, s: &str) -> R<u64> {
        let l = self.inputs.launch;
        let comp = |v: [u32; 3]| -> R<u64> {
            Ok(match s.rsplit('.').next() {
                Some("x") => v[0],
                Some("y") => v[1],
                Some("z") => v[2],
                _ => return unsupported(format!("special register {s}")),
            } as u64)
        };
        let base = s.split('.').next().unwrap_or("");
        match base {
            "%tid" => comp(t.tid),
            "%ntid" => comp(l.block),
            "%ctaid" => comp(self.ctaid),
            "%nctaid" => comp(l.grid),
            "%laneid" => Ok(u64::from(linear_tid(t, l) % 32)),
            "%warpid" => Ok(u64::from(linear_tid(t, l) / 32)),
            "%lanemask_eq" | "%lanemask_lt" | "%lanemask_le" | "%lanemask_gt" | "%lanemask_ge" => {
                let lane = linear_tid(t, l) % 32;
                let below = (1u64 << lane) - 1;
                let at = 1u64 << lane;
                Ok(match base {
                    "%lanemask_eq" => at,
                    "%lanemask_lt" => below,
                    "%lanemask_le" => below | at,
                    "%lanemask_gt" => !(below | at) & 0xffff_ffff,
                    _ => !below & 0xffff_ffff,
                })
            }
            "%dynamic_smem_size" => Ok(DYNAMIC_SHARED_BYTES),
            // A clock is volatile: every read gives a new value. Ours is the thread's
            // count of clock reads times 1000 — deterministic, and changed by any
            // rewrite that merges, drops or duplicates a read.
            "%clock" | "%clock64" => {
                let n = t.clocks.get() + 1;
                t.clocks.set(n);
                Ok(n * 1000)
            }
            _ => unsupported(format!("special register {s}")),
        }
    }

    fn sym_addr(&self, s: &str) -> R<u64> {
        if let Some(&o) = self.p.shared.get(s) {
            return Ok(o);
        }
        if let Some(&o) = self.p.local.get(s) {
            return Ok(o);
        }
        if let Some(&o) = self.p.globals.get(s) {
            return Ok(o);
        }
        // `$stack+1568` (ORI keeps symbol arithmetic as one symbol's text).
        if let Some(k) = s.rfind(['+', '-']).filter(|&k| k > 0) {
            if let Ok(off) = s[k..].parse::<i64>() {
                return Ok(self.sym_addr(&s[..k])?.wrapping_add(off as u64));
            }
        }
        unsupported(format!("the address of `{s}`"))
    }

    fn set(&self, t: &mut Thread, o: &VOp, v: u64) -> R<()> {
        match &o.v {
            V::Reg(r) => {
                let bits = *self.p.reg_bits.get(*r).unwrap_or(&64);
                let slot = t
                    .regs
                    .get_mut(*r)
                    .ok_or_else(|| InterpError::Malformed("register out of range".into()))?;
                *slot = v & mask(bits);
                Ok(())
            }
            V::Sym(s) if s == "_" => Ok(()),
            _ => malformed("destination is not a register"),
        }
    }

    fn addr(&self, t: &Thread, o: &VOp) -> R<(Option<String>, u64)> {
        match &o.v {
            V::Addr { base, offset, .. } => Ok(match base {
                VBase::Reg(r) => (
                    None,
                    t.regs
                        .get(*r)
                        .copied()
                        .unwrap_or(POISON)
                        .wrapping_add(*offset as u64),
                ),
                VBase::Sym(s) => (Some(s.clone()), *offset as u64),
                VBase::None => (None, *offset as u64),
            }),
            _ => malformed("expected an address"),
        }
    }

    /// Bytes at an address of a state space.
    fn mem<'m>(
        &'m mut self,
        t: &'m mut Thread,
        space: Space,
        sym: Option<&str>,
        addr: u64,
        len: usize,
    ) -> R<&'m mut [u8]> {
        let oob = |what: &str| {
            InterpError::Memory(format!(
                "{what} access at 0x{addr:x}+{len} is out of bounds"
            ))
        };
        match space {
            // `.param` variables of call sequences and a `.func`'s formals live with
            // the thread's locals (a kernel's own parameters are read in `load`).
            Space::Param => self.mem(t, Space::Local, sym, addr, len),
            Space::Generic if sym.is_some_and(|s| self.is_local_sym(s)) => {
                self.mem(t, Space::Local, sym, addr, len)
            }
            Space::Generic if sym.is_some_and(|s| self.p.shared.contains_key(s)) => {
                self.mem(t, Space::Shared, sym, addr, len)
            }
            Space::Shared => {
                let base = match sym {
                    Some(s) => self.sym_addr(s)?,
                    None => 0,
                };
                let a = base.wrapping_add(addr) as usize;
                self.shared
                    .get_mut(a..a.wrapping_add(len))
                    .ok_or_else(|| oob("shared"))
            }
            Space::Local => {
                let base = match sym {
                    Some(s) => self.sym_addr(s)?,
                    None => 0,
                };
                let a = base.wrapping_add(addr) as usize;
                t.local
                    .get_mut(a..a.wrapping_add(len))
                    .ok_or_else(|| oob("local"))
            }
            Space::Generic if sym.is_none() && addr >= SHARED_WINDOW => {
                for (w, sp) in [(LOCAL_WINDOW, Space::Local), (SHARED_WINDOW, Space::Shared)] {
                    if (w..w + WINDOW_BYTES).contains(&addr) {
                        return self.mem(t, sp, None, addr - w, len);
                    }
                }
                Err(oob("generic"))
            }
            Space::Const if self.p.module_bufs.is_empty() => unsupported("constant memory"),
            Space::Global | Space::Generic | Space::Const => {
                let addr = match sym {
                    Some(s) => self.sym_addr(s)?.wrapping_add(addr),
                    None => addr,
                };
                let b = self
                    .buffers
                    .iter_mut()
                    .find(|b| addr >= b.base && addr - b.base < b.bytes.len() as u64)
                    .ok_or_else(|| oob("global"))?;
                let off = (addr - b.base) as usize;
                b.bytes
                    .get_mut(off..off.saturating_add(len))
                    .ok_or_else(|| oob("global"))
            }
        }
    }

    fn load(&mut self, t: &mut Thread, at: Access<'_>) -> R<u64> {
        let Access {
            space,
            sym,
            addr,
            bytes,
        } = at;
        if space == Space::Param && !sym.is_some_and(|s| self.is_local_sym(s)) {
            let s = sym.ok_or_else(|| {
                InterpError::Unsupported("param access through a register".into())
            })?;
            let k = self
                .p
                .params
                .iter()
                .position(|p| p == s)
                .ok_or_else(|| InterpError::Malformed(format!("no parameter {s}")))?;
            let start = usize::try_from(addr).unwrap_or(usize::MAX);
            let src = self
                .inputs
                .params
                .get(k)
                .and_then(|b| b.get(start..start.checked_add(bytes)?))
                .ok_or_else(|| InterpError::Memory(format!("param {s} read out of bounds")))?;
            let mut v = [0u8; 8];
            v[..bytes].copy_from_slice(src);
            return Ok(u64::from_le_bytes(v));
        }
        let m = self.mem(t, space, sym, addr, bytes)?;
        let mut v = [0u8; 8];
        v[..bytes].copy_from_slice(m);
        Ok(u64::from_le_bytes(v))
    }

    fn store(&mut self, t: &mut Thread, at: Access<'_>, v: u64) -> R<()> {
        let m = self.mem(t, at.space, at.sym, at.addr, at.bytes)?;
        m.copy_from_slice(&v.to_le_bytes()[..at.bytes]);
        Ok(())
    }

    /// Runs one thread until it blocks, returns or the fuel ends.
    fn run_thread(&mut self, t: &mut Thread) -> R<()> {
        while t.st == St::Run {
            if self.fuel == 0 {
                return Err(InterpError::OutOfFuel);
            }
            self.fuel -= 1;
            self.executed += 1;
            let p = self.p;
            let Some(x) = p.code.get(t.pc) else {
                t.st = St::Done;
                break;
            };
            t.pc += 1;
            if let Some((g, neg)) = x.guard {
                let v = t.regs.get(g).copied().unwrap_or(0) != 0;
                if v == neg {
                    continue;
                }
            }
            self.exec(t, x)?;
        }
        Ok(())
    }

    fn exec(&mut self, t: &mut Thread, x: &X) -> R<()> {
        let d = &x.d;
        let ty = d.ty();
        // Registers here are 64 bits wide: a `.b128` value would be cut silently.
        if ty.is_some_and(|t| t.bits > 64) {
            return unsupported(format!("128-bit values (`{}`)", d.base));
        }
        let o = &x.ops;
        let need = |n: usize| -> R<()> {
            if o.len() < n {
                malformed(format!("`{}` needs {n} operands", d.base))
            } else {
                Ok(())
            }
        };
        match d.base.as_str() {
            "bra" => {
                need(1)?;
                match o[0].v {
                    V::Label(pc) => t.pc = pc,
                    _ => return malformed("branch without a target"),
                }
            }
            "ret" => self.ret(t)?,
            "exit" => t.st = St::Done,
            "call" => self.call(t, x)?,
            "addc" | "subc" | "madc" => self.carry_op(t, x)?,
            "add" | "sub" | "mad" if d.has("cc") => self.carry_op(t, x)?,
            "trap" => return unsupported("`trap` reached (the launch aborts)"),
            // `bar.warp.sync`: the lanes of a warp run in step here already.
            "bar" if d.has("warp") => {}
            "bar" | "barrier" => t.st = St::Barrier,
            "mma" | "wmma" | "shfl" | "vote" | "activemask" | "ldmatrix" => {
                t.at = t.pc - 1;
                t.st = St::Warp;
            }
            "wgmma" => {
                if wgmma_kind(d) == Some(true) {
                    t.at = t.pc - 1;
                    t.st = St::Warp;
                }
            }
            "cp" => self.async_copy(t, x)?,
            "mbarrier" => self.mbarrier(t, x)?,
            "atom" | "red" => self.atomic(t, x)?,
            "popc" | "clz" | "brev" | "bfe" | "bfi" | "prmt" | "slct" => {
                let r = self.bits_op(t, x)?;
                self.set(t, &o[0], r)?;
            }
            "set" | "mul24" | "rcp" | "sqrt" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" | "tanh" => {
                let r = self.misc_op(t, x)?;
                self.set(t, &o[0], r)?;
            }
            "nop" | "membar" | "fence" => {}
            "mov" => self.mov(t, x)?,
            "neg" | "abs" => {
                need(2)?;
                let mut s = o[1].clone();
                if d.base == "neg" {
                    s.neg = !s.neg;
                } else {
                    s.abs = true;
                }
                let v = self.val(t, &s, ty)?;
                self.set(t, &o[0], v)?;
            }
            "setp" => {
                need(3)?;
                let ty = ty.ok_or_else(|| InterpError::Malformed("setp without a type".into()))?;
                let a = self.val(t, &o[1], Some(ty))?;
                let b = self.val(t, &o[2], Some(ty))?;
                let cmp = d.mods.first().map(String::as_str).unwrap_or("");
                let mut r = compare(ty, cmp, a, b, d.has("ftz"))?;
                // `setp.lt.and.f32` combines with a predicate; `.ftz` is no combiner.
                r = self.combine_predicate(t, x, r)?;
                match &o[0].v {
                    V::Pair(p, q) => {
                        self.set(t, p, r as u64)?;
                        self.set(t, q, (!r) as u64)?;
                    }
                    _ => self.set(t, &o[0], r as u64)?,
                }
            }
            "selp" => {
                need(4)?;
                let c = self.val(t, &o[3], None)? != 0;
                let v = self.val(t, if c { &o[1] } else { &o[2] }, ty)?;
                self.set(t, &o[0], v)?;
            }
            "cvta" => {
                need(2)?;
                let v = self.val(t, &o[1], None)?;
                let wide = ty.is_none_or(|t| t.bits == 64);
                let v = match window(d.space).filter(|_| wide) {
                    Some(w) if d.has("to") => v.wrapping_sub(w),
                    Some(w) => v.wrapping_add(w),
                    None => v,
                };
                self.set(t, &o[0], v)?;
            }
            "cvt" => {
                need(2)?;
                let (dt, st) = (d.first_ty(), d.ty());
                let (Some(dt), Some(st)) = (dt, st) else {
                    return malformed("cvt needs two types");
                };
                let v = self.val(t, &o[1], Some(st))?;
                let r = convert(dt, st, v, d)?;
                self.set(t, &o[0], r)?;
            }
            "ld" | "ldu" => self.load_inst(t, x)?,
            "st" => self.store_inst(t, x)?,
            "tex" => self.tex(t, x)?,
            _ => {
                let r = self.arith(t, x)?;
                self.set(t, &o[0], r)?;
            }
        }
        Ok(())
    }

    /// `mov`, also packing and unpacking a vector of lanes (low lane first).
    fn mov(&mut self, t: &mut Thread, x: &X) -> R<()> {
        let (d, o) = (&x.d, &x.ops);
        let ty = d.ty();
        if o.len() < 2 {
            return malformed(format!("`{}` needs 2 operands", d.base));
        }
        match (&o[0].v, &o[1].v) {
            (V::Vec(lanes), _) => {
                // Unpack: low lane first.
                let v = self.val(t, &o[1], ty)?;
                let w = ty.map_or(32, |t| t.bits) / lanes.len().max(1) as u32;
                for (k, l) in lanes.iter().enumerate() {
                    self.set(t, l, (v >> (w * k as u32)) & mask(w))?;
                }
            }
            (_, V::Vec(lanes)) => {
                let w = ty.map_or(32, |t| t.bits) / lanes.len().max(1) as u32;
                let mut v = 0u64;
                for (k, l) in lanes.iter().enumerate() {
                    v |= (self.val(t, l, None)? & mask(w)) << (w * k as u32);
                }
                self.set(t, &o[0], v)?;
            }
            _ => {
                let v = self.val(t, &o[1], ty)?;
                self.set(t, &o[0], v)?;
            }
        }
        Ok(())
    }

    /// The type of an `ld` / `st` and the address in its operand `k`.
    fn access_of(&self, t: &Thread, x: &X, k: usize) -> R<(Ty, Space, Option<String>, u64)> {
        let d = &x.d;
        if x.ops.len() < 2 {
            return malformed(format!("`{}` needs 2 operands", d.base));
        }
        let ty = d.ty().ok_or_else(|| untyped(d))?;
        let (sym, a) = self.addr(t, &x.ops[k])?;
        Ok((ty, d.space.unwrap_or(Space::Generic), sym, a))
    }

    /// `ld` / `ldu`, scalar or a vector of lanes.
    fn load_inst(&mut self, t: &mut Thread, x: &X) -> R<()> {
        let (ty, space, sym, a) = self.access_of(t, x, 1)?;
        let at = Access::new(space, sym.as_deref(), a, (ty.bits / 8).max(1) as usize);
        match &x.ops[0].v {
            V::Vec(lanes) => {
                for (k, l) in lanes.iter().enumerate() {
                    let v = self.load(t, at.lane(k))?;
                    self.set(t, l, v)?;
                }
            }
            _ => {
                let v = self.load(t, at)?;
                let v = if ty.kind == Kind::Signed && ty.bits < 64 {
                    sext(v, ty.bits)
                } else {
                    v
                };
                self.set(t, &x.ops[0], v)?;
            }
        }
        Ok(())
    }

    /// `st`, scalar or a vector of lanes.
    fn store_inst(&mut self, t: &mut Thread, x: &X) -> R<()> {
        let (ty, space, sym, a) = self.access_of(t, x, 0)?;
        let at = Access::new(space, sym.as_deref(), a, (ty.bits / 8).max(1) as usize);
        match &x.ops[1].v {
            V::Vec(lanes) => {
                for (k, l) in lanes.iter().enumerate() {
                    let v = self.val(t, l, Some(ty))?;
                    self.store(t, at.lane(k), v)?;
                }
            }
            _ => {
                let v = self.val(t, &x.ops[1], Some(ty))?;
                self.store(t, at, v)?;
            }
        }
        Ok(())
    }

    /// `tex`: texels from the deterministic texture model.
    fn tex(&mut self, t: &mut Thread, x: &X) -> R<()> {
        let (d, o) = (&x.d, &x.ops);
        if o.len() < 2 {
            return malformed(format!("`{}` needs 2 operands", d.base));
        }
        let float = d.ty().is_some_and(|t| t.kind == Kind::Float);
        let V::Addr { base, extra, .. } = &o[1].v else {
            return malformed("tex needs [handle, {coords}]");
        };
        let handle = match base {
            VBase::Reg(r) => t.regs.get(*r).copied().unwrap_or(POISON),
            _ => return unsupported("texture references by name"),
        };
        let coords: Vec<u32> = match extra.first().map(|e| &e.v) {
            Some(V::Vec(c)) => c
                .iter()
                .map(|c| self.val(t, c, None).map(|v| v as u32))
                .collect::<R<_>>()?,
            _ => return malformed("tex needs coordinates"),
        };
        let texels = texels(float, handle, &coords);
        // `{d}|p`: the residency predicate (the MIR interpreter's model:
        // resident when every coordinate is ≥ 0).
        let (lanes, pred) = match &o[0].v {
            V::Vec(lanes) => (lanes, None),
            V::Pair(d, p) => match &d.v {
                V::Vec(lanes) => (lanes, Some(p)),
                _ => return malformed("tex needs four results"),
            },
            _ => return malformed("tex needs four results"),
        };
        if let Some(p) = pred {
            let resident = coords.iter().all(|&c| f32::from_bits(c) >= 0.0);
            self.set(t, p, resident as u64)?;
        }
        for (l, v) in lanes.iter().zip(texels) {
            self.set(t, l, v as u64)?;
        }
        Ok(())
    }

    /// `cp.async.ca.shared.global [dst], [src], n`, `cp.async.bulk.shared::cluster.global
    /// .mbarrier::complete_tx::bytes [dst], [src], n, [mbar]`, and the group commits and
    /// waits. Copies complete at once (so every wait is already satisfied); the bulk
    /// copy then reports its bytes to the mbarrier.
    fn async_copy(&mut self, t: &mut Thread, x: &X) -> R<()> {
        let d = &x.d;
        if !d.has("async") {
            return unsupported(format!("cp.{}", d.mods.join(".")));
        }
        if d.has("commit_group") || d.has("wait_group") || d.has("wait_all") {
            return Ok(());
        }
        let o = &x.ops;
        if o.len() < 3 {
            return malformed("cp.async needs a destination, a source and a size");
        }
        let (dsym, da) = self.addr(t, &o[0])?;
        let (ssym, sa) = self.addr(t, &o[1])?;
        let n = self.val(t, &o[2], None)? as usize;
        let size_ok = if d.has("bulk") {
            n.is_multiple_of(16) && n <= 1 << 20
        } else {
            matches!(n, 4 | 8 | 16)
        };
        if !size_ok {
            return malformed(format!("cp.async of {n} bytes"));
        }
        let mut buf = Vec::with_capacity(n);
        buf.extend_from_slice(self.mem(t, Space::Global, ssym.as_deref(), sa, n)?);
        self.mem(t, Space::Shared, dsym.as_deref(), da, n)?
            .copy_from_slice(&buf);
        if d.has("bulk") {
            let bar = o
                .get(3)
                .ok_or_else(|| InterpError::Malformed("cp.async.bulk needs its mbarrier".into()))?;
            let (bsym, ba) = self.addr(t, bar)?;
            let at = Access::new(Space::Shared, bsym.as_deref(), ba, 8);
            let w = self.load(t, at)?;
            let tx = ((w >> 32) as u32).wrapping_sub(n as u32);
            self.store(t, at, (w & 0xffff_ffff) | ((tx as u64) << 32))?;
        }
        Ok(())
    }

    /// `mbarrier.init [b], count`, `mbarrier.arrive.expect_tx state, [b], tx`,
    /// `mbarrier.try_wait.parity p, [b], 0`. The barrier word holds the pending
    /// arrivals (low half) and pending transaction bytes (high half); phase 0 completes
    /// when both are zero. Only the first phase is modelled.
    fn mbarrier(&mut self, t: &mut Thread, x: &X) -> R<()> {
        let d = &x.d;
        let o = &x.ops;
        let word = |m: &mut Self, t: &mut Thread, k: usize| -> R<(Option<String>, u64, u64)> {
            let (sym, a) = m.addr(
                t,
                o.get(k)
                    .ok_or_else(|| InterpError::Malformed("mbarrier needs its address".into()))?,
            )?;
            let w = m.load(t, Access::new(Space::Shared, sym.as_deref(), a, 8))?;
            Ok((sym, a, w))
        };
        match d.mods.first().map(String::as_str) {
            Some("init") => {
                let (sym, a, _) = word(self, t, 0)?;
                let count = self.val(
                    t,
                    o.get(1).ok_or_else(|| {
                        InterpError::Malformed("mbarrier.init needs a count".into())
                    })?,
                    None,
                )?;
                let at = Access::new(Space::Shared, sym.as_deref(), a, 8);
                self.store(t, at, count & 0xffff_ffff)
            }
            Some("arrive") => {
                let (sym, a, w) = word(self, t, 1)?;
                let tx = if d.has("expect_tx") {
                    self.val(
                        t,
                        o.get(2).ok_or_else(|| {
                            InterpError::Malformed("expect_tx needs a byte count".into())
                        })?,
                        None,
                    )? as u32
                } else {
                    0
                };
                let pending = (w as u32).wrapping_sub(1);
                let bytes = ((w >> 32) as u32).wrapping_add(tx);
                let at = Access::new(Space::Shared, sym.as_deref(), a, 8);
                self.store(t, at, pending as u64 | ((bytes as u64) << 32))?;
                self.set(t, &o[0], w)
            }
            Some("try_wait") | Some("test_wait") if d.has("parity") => {
                let (_, _, w) = word(self, t, 1)?;
                let parity = self.val(
                    t,
                    o.get(2).ok_or_else(|| {
                        InterpError::Malformed("try_wait.parity needs a parity".into())
                    })?,
                    None,
                )?;
                if parity != 0 {
                    return unsupported("mbarrier phases after the first");
                }
                self.set(t, &o[0], (w == 0) as u64)
            }
            _ => unsupported(format!("mbarrier.{}", d.mods.join("."))),
        }
    }

    /// A warp-wide `mma` / `wmma` every lane of the warp waits at.
    fn warp_mma(&mut self, threads: &mut [Thread], lanes: &[usize], at: usize) -> R<()> {
        let x = &self.p.code[at];
        let shape = matrix_shape(&x.d)
            .ok_or_else(|| InterpError::Unsupported(format!("`{}` shape", x.d.base)))?;
        let o = &x.ops;
        let group = |k: usize| -> R<&Vec<VOp>> {
            match o.get(k).map(|v| &v.v) {
                Some(V::Vec(v)) => Ok(v),
                _ => malformed("matrix operands are register lists in braces"),
            }
        };
        let (d, a, b, c) = (group(0)?, group(1)?, group(2)?, group(3)?);
        let mut frags = Vec::with_capacity(32);
        for &i in lanes {
            let t = &threads[i];
            let read = |v: &Vec<VOp>| -> R<Vec<u32>> {
                v.iter()
                    .map(|r| self.val(t, r, None).map(|x| x as u32))
                    .collect()
            };
            frags.push(LaneFragments {
                a: read(a)?,
                b: read(b)?,
                c: read(c)?,
            });
        }
        let out = matrix::mma(shape, &frags).map_err(InterpError::Divergence)?;
        for (&i, regs) in lanes.iter().zip(out) {
            let t = &mut threads[i];
            if regs.len() != d.len() {
                return malformed("wrong number of matrix result registers");
            }
            for (r, v) in d.iter().zip(regs) {
                self.set(t, r, v as u64)?;
            }
            t.st = St::Run;
        }
        Ok(())
    }

    /// `wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {d}, da, db, scale-d, ±1,
    /// ±1, 0, 0` over a warpgroup: A and B are read from shared memory through the
    /// descriptors (no swizzle, K-major), taken from the warpgroup's first thread (the
    /// ISA requires them uniform); the accumulators are each thread's `d` registers, or
    /// zero when scale-d is false.
    fn warpgroup_mma(&mut self, threads: &mut [Thread], lanes: &[usize], at: usize) -> R<()> {
        let x = &self.p.code[at];
        let o = &x.ops;
        if o.len() != 8 {
            return malformed(
                "wgmma.mma_async takes {d}, two descriptors, scale-d and four immediates",
            );
        }
        let V::Vec(d) = &o[0].v else {
            return malformed("wgmma results are a register list in braces");
        };
        let t0 = &threads[lanes[0]];
        let (da, db) = (self.val(t0, &o[1], None)?, self.val(t0, &o[2], None)?);
        let imm = |k: usize| self.val(t0, &o[k], None).map(|v| v as i64);
        let (sa, sb) = (imm(4)?, imm(5)?);
        if imm(6)? != 0 || imm(7)? != 0 {
            return unsupported("transposed wgmma operands");
        }
        let mat = |desc: u64, rows: usize, scale: i64| -> R<Vec<f64>> {
            let (start, lbo, sbo, swizzle) = matrix::decode_descriptor(desc);
            if swizzle != 0 {
                return unsupported("swizzled wgmma operands");
            }
            let mut v = vec![0f64; rows * 16];
            for r in 0..rows {
                for k in 0..16 {
                    let a = start + matrix::kmajor_offset(r, k, lbo, sbo);
                    let b = self.shared.get(a as usize..a as usize + 2).ok_or_else(|| {
                        InterpError::Memory(format!("wgmma reads shared 0x{a:x} out of bounds"))
                    })?;
                    let h = u16::from_le_bytes([b[0], b[1]]);
                    v[r * 16 + k] = matrix::f16_value(h) * if scale < 0 { -1.0 } else { 1.0 };
                }
            }
            Ok(v)
        };
        let a = mat(da, 64, sa)?;
        let bt = mat(db, 32, sb)?;
        // bt is B by column (N rows of K); make it B[k][n].
        let mut b = vec![0f64; 16 * 32];
        for n in 0..32 {
            for k in 0..16 {
                b[k * 32 + n] = bt[n * 16 + k];
            }
        }
        let mut acc = Vec::with_capacity(128);
        for &i in lanes {
            let t = &threads[i];
            let keep = self.val(t, &o[3], None)? != 0;
            let regs: Vec<u32> = d
                .iter()
                .map(|r| {
                    Ok(if keep {
                        self.val(t, r, None)? as u32
                    } else {
                        0
                    })
                })
                .collect::<R<_>>()?;
            acc.push(regs);
        }
        let out = matrix::wgmma_m64n32k16(&a, &b, &acc).map_err(InterpError::Divergence)?;
        for (&i, regs) in lanes.iter().zip(out) {
            let t = &mut threads[i];
            for (r, v) in d.iter().zip(regs) {
                self.set(t, r, v as u64)?;
            }
            t.st = St::Run;
        }
        Ok(())
    }

    /// `atom` / `red` on global, shared, local or generic memory. Threads run one
    /// at a time, so every read-modify-write is atomic as written; the order is the
    /// threads' (fixed), so a result depends on it only where the kernel races.
    fn atomic(&mut self, t: &mut Thread, x: &X) -> R<()> {
        let d = &x.d;
        let o = &x.ops;
        let ty = d
            .ty()
            .filter(|ty| ty.bits <= 64 && ty.bits >= 32 && d.vec == 1)
            .ok_or_else(|| InterpError::Unsupported(format!("`{}` of this type", d.base)))?;
        let atom = d.base == "atom";
        let first = usize::from(atom);
        if o.len() < first + 2 {
            return malformed(format!("`{}` needs an address and a value", d.base));
        }
        let space = d.space.unwrap_or(Space::Generic);
        let (sym, a) = self.addr(t, &o[first])?;
        let at = Access::new(space, sym.as_deref(), a, (ty.bits / 8) as usize);
        let old = self.load(t, at)?;
        let b = self.val(t, &o[first + 1], Some(ty))?;
        const OPS: [&str; 10] = [
            "add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas",
        ];
        let op = OPS
            .iter()
            .find(|m| d.has(m))
            .ok_or_else(|| InterpError::Unsupported(format!("`{}` operation", d.base)))?;
        let m = mask(ty.bits);
        let signed = |v: u64| sext(v, ty.bits) as i64;
        let new = match (*op, ty.kind) {
            ("add", Kind::Float) => float_op(&decode("add"), ty, old, b, 0)?,
            (_, Kind::Float) if *op != "exch" && *op != "cas" => {
                return unsupported(format!("`{}.{op}` on floats", d.base))
            }
            ("add", _) => old.wrapping_add(b),
            ("min", Kind::Signed) => signed(old).min(signed(b)) as u64,
            ("max", Kind::Signed) => signed(old).max(signed(b)) as u64,
            ("min", _) => (old & m).min(b & m),
            ("max", _) => (old & m).max(b & m),
            ("inc", _) => {
                if old & m >= b & m {
                    0
                } else {
                    old + 1
                }
            }
            ("dec", _) => {
                if old & m == 0 || old & m > b & m {
                    b
                } else {
                    old - 1
                }
            }
            ("and", _) => old & b,
            ("or", _) => old | b,
            ("xor", _) => old ^ b,
            ("exch", _) => b,
            _ => {
                let c = self.val(
                    t,
                    o.get(first + 2)
                        .ok_or_else(|| InterpError::Malformed("cas needs a new value".into()))?,
                    Some(ty),
                )?;
                if old & m == b & m {
                    c
                } else {
                    old
                }
            }
        };
        self.store(t, at, new & m)?;
        if atom {
            self.set(t, &o[0], old & m)?;
        }
        Ok(())
    }

    /// Bit-field and byte instructions: `popc`, `clz`, `brev`, `bfe`, `bfi`, `prmt`
    /// (the default byte selector), `slct`.
    fn bits_op(&self, t: &Thread, x: &X) -> R<u64> {
        let d = &x.d;
        let o = &x.ops;
        let ty = d.ty().ok_or_else(|| untyped(d))?;
        let n = match d.base.as_str() {
            "popc" | "clz" | "brev" => 2,
            "bfi" => 5,
            _ => 4,
        };
        if o.len() < n {
            return malformed(format!("`{}` needs {n} operands", d.base));
        }
        let w = ty.bits.min(64);
        let m = mask(w);
        let src_ty = match d.base.as_str() {
            "slct" => d.first_ty(),
            _ => Some(ty),
        };
        let a = self.val(t, &o[1], src_ty)? & mask(src_ty.map_or(64, |t| t.bits));
        Ok(match d.base.as_str() {
            "popc" => u64::from((a & m).count_ones()),
            "clz" => u64::from((a & m).leading_zeros() - (64 - w)),
            "brev" => (a & m).reverse_bits() >> (64 - w),
            "bfe" => {
                let pos = self.val(t, &o[2], None)? & 0xff;
                let len = self.val(t, &o[3], None)? & 0xff;
                let bit = |i: u64| (a >> i) & 1;
                let sign = if ty.is_signed() && len > 0 {
                    bit((pos + len - 1).min(u64::from(w) - 1))
                } else {
                    0
                };
                (0..u64::from(w)).fold(0, |r, i| {
                    let v = if i < len && pos + i < u64::from(w) {
                        bit(pos + i)
                    } else {
                        sign
                    };
                    r | (v << i)
                })
            }
            "bfi" => {
                let b = self.val(t, &o[2], Some(ty))? & m;
                let pos = self.val(t, &o[3], None)? & 0xff;
                let len = self.val(t, &o[4], None)? & 0xff;
                (0..len.min(u64::from(w))).fold(b, |r, i| {
                    if pos + i < u64::from(w) {
                        (r & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
                    } else {
                        r
                    }
                })
            }
            "prmt" => {
                if !d.mods.is_empty() {
                    return unsupported(format!("prmt.{}", d.mods.join(".")));
                }
                let b = self.val(t, &o[2], Some(ty))? & 0xffff_ffff;
                let c = self.val(t, &o[3], None)?;
                let bytes = (a & 0xffff_ffff) | (b << 32);
                (0..4).fold(0, |r, k| {
                    let sel = (c >> (4 * k)) & 0xf;
                    let byte = (bytes >> (8 * (sel & 7))) & 0xff;
                    let byte = if sel & 8 != 0 {
                        if byte & 0x80 != 0 {
                            0xff
                        } else {
                            0
                        }
                    } else {
                        byte
                    };
                    r | (byte << (8 * k))
                })
            }
            _ => {
                // slct.dtype.ctype d, a, b, c: a when c >= 0, else b.
                let cty = ty;
                let b = self.val(t, &o[2], src_ty)?;
                let c = self.val(t, &o[3], Some(cty))?;
                let take_a = if cty.is_float() {
                    f32::from_bits(c as u32) >= 0.0
                } else {
                    sext(c, 32) as i64 >= 0
                };
                if take_a {
                    a
                } else {
                    b
                }
            }
        })
    }

    /// A warp-wide instruction every live lane of a warp waits at: the matrix
    /// collectives, `shfl`, `vote`, `activemask`. `base` is the warp's first thread.
    fn warp_collective(&mut self, threads: &mut [Thread], w: Warp<'_>) -> R<()> {
        match self.p.code[w.at].d.base.as_str() {
            "shfl" => self.warp_shfl(threads, w),
            "vote" | "activemask" => self.warp_vote(threads, w),
            "ldmatrix" => self.warp_ldmatrix(threads, w),
            _ => self.warp_mma(threads, w.lanes, w.at),
        }
    }

    /// `shfl[.sync].{up,down,bfly,idx}.b32 d[|p], a, b, c[, membermask]` as the PTX ISA
    /// defines the source lane: segment mask `c[12:8]`, clamp `c[4:0]`; a source lane
    /// outside the clamp gives the lane's own value and a false predicate. Reading a
    /// lane that has exited is refused (PTX leaves the value undefined).
    fn warp_shfl(&mut self, threads: &mut [Thread], w: Warp<'_>) -> R<()> {
        let Warp { lanes, base, at } = w;
        let x = &self.p.code[at];
        let o = &x.ops;
        if o.len() < 4 {
            return malformed("shfl needs d, a, b, c");
        }
        let ty = x.d.ty();
        let mode = ["up", "down", "bfly", "idx"]
            .into_iter()
            .find(|m| x.d.has(m))
            .ok_or_else(|| InterpError::Malformed("shfl without a mode".into()))?;
        let mut a = [None; 32];
        for &i in lanes {
            a[i - base] = Some(self.val(&threads[i], &o[1], ty)?);
        }
        for &i in lanes {
            let lane = (i - base) as i32;
            let t = &threads[i];
            let b = (self.val(t, &o[2], None)? & 0x1f) as i32;
            let c = self.val(t, &o[3], None)? as i32;
            let (seg, clamp) = ((c >> 8) & 0x1f, c & 0x1f);
            let max = (lane & seg) | (clamp & !seg);
            let (j, ok) = match mode {
                "up" => (lane - b, lane - b >= max),
                "down" => (lane + b, lane + b <= max),
                "bfly" => (lane ^ b, (lane ^ b) <= max),
                _ => {
                    let j = (lane & seg) | (b & !seg);
                    (j, j <= max)
                }
            };
            let j = if ok { j } else { lane };
            let v = usize::try_from(j)
                .ok()
                .and_then(|j| a.get(j).copied().flatten())
                .ok_or_else(|| {
                    InterpError::Unsupported("shfl reading a lane that has exited".into())
                })?;
            let t = &mut threads[i];
            match &o[0].v {
                V::Pair(d, p) => {
                    self.set(t, d, v)?;
                    self.set(t, p, u64::from(ok))?;
                }
                _ => self.set(t, &o[0], v)?,
            }
            t.st = St::Run;
        }
        Ok(())
    }

    /// `vote[.sync].{all,any,uni}.pred d, a[, mask]`, `vote[.sync].ballot.b32 d, a[,
    /// mask]` and `activemask.b32 d` over the live lanes of a warp.
    fn warp_vote(&mut self, threads: &mut [Thread], w: Warp<'_>) -> R<()> {
        let Warp { lanes, base, at } = w;
        let x = &self.p.code[at];
        let o = &x.ops;
        let active: u64 = lanes.iter().map(|&i| 1u64 << (i - base)).sum();
        let value = if x.d.base == "activemask" {
            active
        } else {
            if o.len() < 2 {
                return malformed("vote needs d, a");
            }
            let mut ballot = 0u64;
            for &i in lanes {
                if self.val(&threads[i], &o[1], None)? & 1 != 0 {
                    ballot |= 1 << (i - base);
                }
            }
            if x.d.has("ballot") {
                ballot
            } else if x.d.has("all") {
                u64::from(ballot == active)
            } else if x.d.has("any") {
                u64::from(ballot != 0)
            } else if x.d.has("uni") {
                u64::from(ballot == active || ballot == 0)
            } else {
                return unsupported("vote mode");
            }
        };
        for &i in lanes {
            let t = &mut threads[i];
            self.set(t, &o[0], value)?;
            t.st = St::Run;
        }
        Ok(())
    }

    /// `set` (PTX 1.x: a comparison written as a mask or 1.0), `mul24`, `rcp` and
    /// `sqrt` / `rsqrt` on f32. `.rn` is IEEE's correctly rounded result; `.approx`
    /// is the hardware's own approximation, for which we stand in the correctly
    /// rounded value (`rsqrt`: the reciprocal of the rounded root) — deterministic, so
    /// a before/after comparison holds, but not what a GPU returns bit for bit.
    /// `setp`/`set` with `.and`/`.or`/`.xor`: the comparison combined with the
    /// predicate operand 3.
    fn combine_predicate(&self, t: &Thread, x: &X, r: bool) -> R<bool> {
        let Some(comb) =
            x.d.mods
                .iter()
                .skip(1)
                .find(|m| matches!(m.as_str(), "and" | "or" | "xor"))
        else {
            return Ok(r);
        };
        let op = x
            .ops
            .get(3)
            .ok_or_else(|| InterpError::Malformed(format!("`{}` combine operand", x.d.base)))?;
        let c = self.val(t, op, None)? != 0;
        Ok(match comb.as_str() {
            "and" => r && c,
            "or" => r || c,
            _ => r ^ c,
        })
    }

    fn misc_op(&self, t: &Thread, x: &X) -> R<u64> {
        let d = &x.d;
        let o = &x.ops;
        let n = if d.base == "set" || d.base == "mul24" {
            3
        } else {
            2
        };
        if o.len() < n {
            return malformed(format!("`{}` needs {n} operands", d.base));
        }
        let ty = d.ty().ok_or_else(|| untyped(d))?;
        let a = self.val(t, &o[1], Some(ty))?;
        match d.base.as_str() {
            "set" => {
                let dt = d.first_ty().filter(|_| d.types.len() == 2).ok_or_else(|| {
                    InterpError::Malformed("set needs a destination and a source type".into())
                })?;
                let b = self.val(t, &o[2], Some(ty))?;
                let cmp = d.mods.first().map(String::as_str).unwrap_or("");
                let mut r = compare(ty, cmp, a, b, d.has("ftz"))?;
                r = self.combine_predicate(t, x, r)?;
                Ok(match (r, dt.kind) {
                    (false, _) => 0,
                    (true, Kind::Float) => u64::from(1.0f32.to_bits()),
                    (true, _) => 0xffff_ffff,
                })
            }
            "mul24" => {
                let b = self.val(t, &o[2], Some(ty))?;
                let ext = |v: u64| {
                    if ty.is_signed() {
                        sext(v & 0xff_ffff, 24) as i64
                    } else {
                        (v & 0xff_ffff) as i64
                    }
                };
                let p = ext(a).wrapping_mul(ext(b)) as u64;
                Ok(if d.has("hi") { p >> 16 } else { p } & 0xffff_ffff)
            }
            "rcp" | "sqrt" | "rsqrt" if ty == Ty::new(Kind::Float, 64) => {
                // `.rn .rz .rm .rp` round the IEEE result; `rsqrt.approx` stands in as
                // the reciprocal of the nearest root.
                let dir = rounding(d);
                Ok(match d.base.as_str() {
                    "rcp" => float::div_dir(BINARY64, 1f64.to_bits(), a, dir),
                    "sqrt" => float::sqrt_dir(BINARY64, a, dir),
                    _ => canon64(1.0 / f64::from_bits(float::sqrt_dir(BINARY64, a, dir))),
                })
            }
            _ if ty != Ty::new(Kind::Float, 32) => {
                unsupported(format!("`{}.{}`", d.base, ty.name()))
            }
            base => {
                let mut v = f32::from_bits(a as u32);
                if d.has("ftz") {
                    v = flush32(v);
                }
                let (bits, dir) = (u64::from(v.to_bits()), rounding(d));
                let soft = |r: u64| f32::from_bits(r as u32);
                let r = match base {
                    "rcp" => soft(float::div_dir(BINARY32, 1f32.to_bits().into(), bits, dir)),
                    "sqrt" => soft(float::sqrt_dir(BINARY32, bits, dir)),
                    "rsqrt" => 1.0 / soft(float::sqrt_dir(BINARY32, bits, dir)),
                    "ex2" => approx::exp2(v),
                    "lg2" => approx::log2(v),
                    "sin" => approx::sin_cos(v, 0),
                    "cos" => approx::sin_cos(v, 1),
                    "tanh" => approx::tanh(v),
                    _ => return unsupported(format!("`{base}` has no semantics here")),
                };
                Ok(canon32(if d.has("ftz") { flush32(r) } else { r }))
            }
        }
    }

    fn arith(&self, t: &Thread, x: &X) -> R<u64> {
        let d = &x.d;
        let o = &x.ops;
        let ty = d.ty().ok_or_else(|| untyped(d))?;
        let n = match d.base.as_str() {
            "not" => 2,
            "mad" | "fma" | "shf" => 4,
            _ => 3,
        };
        if o.len() < n {
            return malformed(format!("`{}` needs {n} operands", d.base));
        }
        let src_ty = if d.has("wide") {
            Some(Ty::new(ty.kind, ty.bits))
        } else {
            Some(ty)
        };
        let a = self.val(t, &o[1], src_ty)?;
        let b = if n > 2 {
            self.val(t, &o[2], src_ty)?
        } else {
            0
        };
        let c = if n > 3 {
            let cty = if d.has("wide") {
                Some(Ty::new(ty.kind, ty.bits * 2))
            } else {
                src_ty
            };
            self.val(t, &o[3], cty)?
        } else {
            0
        };
        if ty.is_float() {
            return float_op(d, ty, a, b, c);
        }
        int_op(d, ty, a, b, c)
    }
}

fn sext(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        let s = 64 - bits;
        (((v << s) as i64) >> s) as u64
    }
}

fn compare(ty: Ty, cmp: &str, a: u64, b: u64, ftz: bool) -> R<bool> {
    if ty.is_float() {
        let (x, y) = match ty.bits {
            32 => {
                let (mut x, mut y) = (f32::from_bits(a as u32), f32::from_bits(b as u32));
                if ftz {
                    x = flush32(x);
                    y = flush32(y);
                }
                (x as f64, y as f64)
            }
            64 => (f64::from_bits(a), f64::from_bits(b)),
            16 => (f16_to_f32(a as u16) as f64, f16_to_f32(b as u16) as f64),
            _ => return unsupported("setp on this float type"),
        };
        let unord = x.is_nan() || y.is_nan();
        return Ok(match cmp {
            "eq" => x == y,
            "ne" => !unord && x != y,
            "lt" => x < y,
            "le" => x <= y,
            "gt" => x > y,
            "ge" => x >= y,
            "equ" => unord || x == y,
            "neu" => unord || x != y,
            "ltu" => unord || x < y,
            "leu" => unord || x <= y,
            "gtu" => unord || x > y,
            "geu" => unord || x >= y,
            "num" => !unord,
            "nan" => unord,
            m => return unsupported(format!("setp.{m}")),
        });
    }
    let m = mask(ty.bits);
    let (a, b) = (a & m, b & m);
    let signed = ty.kind == Kind::Signed;
    let (sa, sb) = (sext(a, ty.bits) as i64, sext(b, ty.bits) as i64);
    Ok(match cmp {
        "eq" => a == b,
        "ne" => a != b,
        "lt" if signed => sa < sb,
        "le" if signed => sa <= sb,
        "gt" if signed => sa > sb,
        "ge" if signed => sa >= sb,
        "lt" | "lo" => a < b,
        "le" | "ls" => a <= b,
        "gt" | "hi" => a > b,
        "ge" | "hs" => a >= b,
        m => return unsupported(format!("setp.{m} on integers")),
    })
}

/// The rounding direction an arithmetic instruction names (`.rn` or none: nearest).
fn rounding(d: &Decoded) -> FRound {
    if d.has("rz") {
        FRound::Zero
    } else if d.has("rm") {
        FRound::Down
    } else if d.has("rp") {
        FRound::Up
    } else {
        FRound::Nearest
    }
}

/// `add sub mul fma mad div` of f32 or f64 bit patterns rounded in `dir`
/// ([`crate::interp::float`]'s integer arithmetic); None for another operation.
fn directed(f: Format, base: &str, a: u64, b: u64, c: u64, dir: FRound) -> Option<u64> {
    Some(match base {
        "add" => float::add_dir(f, a, b, dir),
        "sub" => float::add_dir(f, a, b ^ f.sign(), dir),
        "mul" => float::mul_dir(f, a, b, dir),
        "fma" | "mad" => float::fma_dir(f, a, b, c, dir),
        "div" => float::div_dir(f, a, b, dir),
        _ => return None,
    })
}

fn float_op(d: &Decoded, ty: Ty, a: u64, b: u64, c: u64) -> R<u64> {
    for m in &d.mods {
        if !matches!(
            m.as_str(),
            "rn" | "rz" | "rm" | "rp" | "ftz" | "approx" | "full" | "sat"
        ) {
            return unsupported(format!("float modifier .{m}"));
        }
    }
    let dir = rounding(d);
    let ftz = d.has("ftz");
    let base = d.base.as_str();
    if (ty.bits == 16 || ty.kind == Kind::HalfX2) && dir != FRound::Nearest {
        return unsupported(format!(
            "{base}.{} rounded other than to nearest",
            ty.name()
        ));
    }
    match (ty.kind, ty.bits) {
        (Kind::Float, 32) => {
            let f = |v: u64| {
                let x = f32::from_bits(v as u32);
                if ftz {
                    flush32(x)
                } else {
                    x
                }
            };
            let (x, y, z) = (f(a), f(b), f(c));
            let bits = |v: f32| u64::from(v.to_bits());
            let soft = match dir {
                FRound::Nearest => None,
                _ => directed(BINARY32, base, bits(x), bits(y), bits(z), dir),
            };
            let r = match (soft, base) {
                (Some(r), _) => f32::from_bits(r as u32),
                (None, "add") => x + y,
                (None, "sub") => x - y,
                (None, "mul") => x * y,
                (None, "fma" | "mad") => fma32(x, y, z),
                (None, "div") => x / y,
                (None, "min") => {
                    if x.is_nan() {
                        y
                    } else if y.is_nan() || x < y {
                        x
                    } else {
                        y
                    }
                }
                (None, "max") => {
                    if x.is_nan() {
                        y
                    } else if y.is_nan() || x > y {
                        x
                    } else {
                        y
                    }
                }
                (None, b) => return unsupported(format!("{b}.f32")),
            };
            // `.sat` clamps to [0, 1] and makes a NaN +0.
            let r = match (d.has("sat"), r.is_nan()) {
                (false, _) => r,
                (true, true) => 0.0,
                (true, false) => r.clamp(0.0, 1.0),
            };
            Ok(canon32(if ftz { flush32(r) } else { r }))
        }
        (Kind::Float, 64) => {
            if let Some(r) = directed(BINARY64, base, a, b, c, dir) {
                return Ok(r);
            }
            unsupported(format!("{base}.f64"))
        }
        (Kind::Float, 16) => {
            // `.ftz` flushes f16 subnormal inputs and results too (PTX ISA, add.f16).
            let fl = |h: u16| if ftz { ftz16(h) } else { h };
            let (x, y) = (f16_to_f32(fl(a as u16)), f16_to_f32(fl(b as u16)));
            let r = match base {
                "add" => x + y,
                "sub" => x - y,
                "mul" => x * y,
                b => return unsupported(format!("{b}.f16")),
            };
            Ok(fl(canon16(r)) as u64)
        }
        (Kind::HalfX2, _) => {
            let fl = |h: u16| if ftz { ftz16(h) } else { h };
            let mut out = 0u64;
            for k in 0..2 {
                let (x, y) = (
                    f16_to_f32(fl((a >> (16 * k)) as u16)),
                    f16_to_f32(fl((b >> (16 * k)) as u16)),
                );
                let r = match base {
                    "add" => x + y,
                    "sub" => x - y,
                    "mul" => x * y,
                    b => return unsupported(format!("{b}.f16x2")),
                };
                out |= (fl(canon16(r)) as u64) << (16 * k);
            }
            Ok(out)
        }
        _ => unsupported(format!("{base} on {}", ty.name())),
    }
}

fn int_op(d: &Decoded, ty: Ty, a: u64, b: u64, c: u64) -> R<u64> {
    let bits = ty.bits;
    let m = mask(bits);
    let signed = ty.kind == Kind::Signed;
    let (sa, sb) = (sext(a & m, bits), sext(b & m, bits));
    let wide = d.has("wide");
    let hi = d.has("hi");
    let base = d.base.as_str();
    let product = |x: u64, y: u64| -> u128 {
        if signed {
            (sext(x & m, bits) as i64 as i128 * sext(y & m, bits) as i64 as i128) as u128
        } else {
            (x & m) as u128 * (y & m) as u128
        }
    };
    let r: u64 = match base {
        "add" => a.wrapping_add(b),
        "sub" => a.wrapping_sub(b),
        "mul" | "mad" => {
            let p = product(a, b);
            let v = if wide {
                p as u64
            } else if hi {
                (p >> bits) as u64
            } else {
                p as u64
            };
            if base == "mad" {
                v.wrapping_add(c)
            } else {
                v
            }
        }
        "and" => a & b,
        "or" => a | b,
        "xor" => a ^ b,
        "not" => !a,
        "shl" => {
            let s = b & 0xffff_ffff;
            if s >= bits as u64 {
                0
            } else {
                a << s
            }
        }
        "shr" => {
            let s = (b & 0xffff_ffff).min(bits as u64);
            if signed {
                let v = sext(a & m, bits) as i64;
                (v >> s.min(63)) as u64
            } else if s >= bits as u64 {
                0
            } else {
                (a & m) >> s
            }
        }
        "shf" => {
            // shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of b:a by c.
            let n = if d.has("wrap") { c & 31 } else { c.min(32) };
            let both = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
            if d.has("l") {
                ((both << n) >> 32) & 0xffff_ffff
            } else {
                (both >> n) & 0xffff_ffff
            }
        }
        "min" => {
            if signed {
                (sa as i64).min(sb as i64) as u64
            } else {
                (a & m).min(b & m)
            }
        }
        "max" => {
            if signed {
                (sa as i64).max(sb as i64) as u64
            } else {
                (a & m).max(b & m)
            }
        }
        "div" | "rem" => {
            if b & m == 0 {
                m
            } else if signed {
                let (x, y) = (sa as i64, sb as i64);
                (if base == "div" {
                    x.wrapping_div(y)
                } else {
                    x.wrapping_rem(y)
                }) as u64
            } else if base == "div" {
                (a & m) / (b & m)
            } else {
                (a & m) % (b & m)
            }
        }
        b => return unsupported(format!("{b}.{}", ty.name())),
    };
    Ok(r)
}

/// `cvt`: the MIR interpreter's conversion ([`crate::interp::exec::cvt`]), so that both
/// interpreters convert, round, saturate and flush alike.
fn convert(dt: Ty, st: Ty, v: u64, d: &Decoded) -> R<u64> {
    use crate::interp::float::cvt_mode as m;
    let num = |t: Ty| match (t.kind, t.bits) {
        (Kind::Signed, b) => Some(NumTy::Int {
            signed: true,
            bits: b,
        }),
        (Kind::Unsigned | Kind::Bits, b) => Some(NumTy::Int {
            signed: false,
            bits: b,
        }),
        (Kind::Float, 16) => Some(NumTy::F16),
        (Kind::Float, 32) => Some(NumTy::F32),
        (Kind::Float, 64) => Some(NumTy::F64),
        _ => None,
    };
    let mut mode = m::NONE;
    for k in &d.mods {
        mode |= match k.as_str() {
            "rni" => m::RNI,
            "rzi" => m::RZI,
            "rmi" => m::RMI,
            "rpi" => m::RPI,
            "rn" => m::RN,
            "rz" => m::RZ,
            "rm" => m::RM,
            "rp" => m::RP,
            "rna" => m::RNA,
            "ftz" => m::FTZ,
            "sat" => m::SAT,
            _ => 0,
        };
    }
    let what = || format!("cvt.{}.{}.{}", d.mods.join("."), dt.name(), st.name());
    let (Some(to), Some(from)) = (num(dt), num(st)) else {
        return unsupported(what());
    };
    let r = match to {
        NumTy::F16 => to_half(from, mode, v),
        _ => crate::interp::exec::cvt(to, from, mode, v as u128).map(|r| r as u64),
    };
    r.map_or_else(|| unsupported(what()), Ok)
}

/// `cvt{.rn,.rz,.rm,.rp}{.sat}.f16.{f16,f32,f64,s*,u*,b*}`: one rounding to binary16
/// in the named direction (nearest when none is named).
fn to_half(from: NumTy, mode: u32, v: u64) -> Option<u64> {
    use crate::interp::float::cvt_mode as m;
    let dir = FRound::from_mode(mode)?;
    let h = match from {
        NumTy::F16 if mode & m::BASE_MASK == m::NONE => v & 0xffff,
        NumTy::F16 => return None,
        NumTy::F32 => {
            let x = f32::from_bits(v as u32);
            let x = if mode & m::FTZ != 0 { flush32(x) } else { x };
            float::convert_dir(BINARY16, BINARY32, x.to_bits().into(), dir)
        }
        NumTy::F64 => float::convert_dir(BINARY16, BINARY64, v, dir),
        NumTy::Int { signed, bits } => {
            let x = if signed {
                sext(v, bits) as i64 as i128
            } else {
                (v & mask(bits)) as i128
            };
            float::int_to_format(BINARY16, x, dir)
        }
    };
    if mode & m::SAT == 0 {
        return Some(h);
    }
    // `.sat`: NaN and negatives to +0 (a −0 stays), above 1.0 to 1.0.
    Some(match h {
        0x8000 => h,
        _ if h > 0x7c00 || h & 0x8000 != 0 => 0,
        _ => h.min(0x3c00),
    })
}

/// Runs a compiled program.
pub fn run(p: &Program, inputs: &Inputs, cfg: &Config) -> R<Outcome> {
    let mut m = Machine {
        p,
        inputs,
        buffers: inputs
            .buffers
            .iter()
            .chain(&p.module_bufs)
            .cloned()
            .collect(),
        shared: Vec::new(),
        ctaid: [0; 3],
        fuel: cfg.fuel,
        executed: 0,
        printed: Vec::new(),
    };
    let l = inputs.launch;
    let nthreads = l.block.iter().map(|&x| x as u64).product::<u64>();
    let ncta = l.grid.iter().map(|&x| x as u64).product::<u64>();
    if nthreads == 0 || nthreads > 1024 || ncta > 65536 {
        return malformed("launch dimensions out of range");
    }
    for cz in 0..l.grid[2] {
        for cy in 0..l.grid[1] {
            for cx in 0..l.grid[0] {
                m.ctaid = [cx, cy, cz];
                m.shared = vec![0u8; p.shared_size as usize];
                let mut threads = Vec::new();
                for tz in 0..l.block[2] {
                    for ty in 0..l.block[1] {
                        for tx in 0..l.block[0] {
                            threads.push(Thread {
                                pc: 0,
                                at: 0,
                                regs: vec![POISON; p.reg_bits.len()],
                                local: vec![0u8; p.local_size as usize],
                                st: St::Run,
                                tid: [tx, ty, tz],
                                clocks: core::cell::Cell::new(0),
                                frames: Vec::new(),
                                cc: false,
                            });
                        }
                    }
                }
                loop {
                    for t in threads.iter_mut() {
                        m.run_thread(t)?;
                    }
                    if threads.iter().all(|t| t.st == St::Done) {
                        break;
                    }
                    // Warps (32 consecutive threads) whose live lanes all wait at the
                    // same collective perform it.
                    // (Warpgroups of 128 threads for wgmma.)
                    let mut progress = false;
                    for size in [32usize, 128] {
                        for w in 0..threads.len().div_ceil(size) {
                            let live: Vec<usize> = (w * size..threads.len().min(w * size + size))
                                .filter(|&i| threads[i].st != St::Done)
                                .collect();
                            let Some(&first) = live.first() else { continue };
                            let at = threads[first].at;
                            let group = match p.code.get(at) {
                                Some(x) if x.d.base == "wgmma" => 128,
                                _ => 32,
                            };
                            if group != size
                                || !live
                                    .iter()
                                    .all(|&i| threads[i].st == St::Warp && threads[i].at == at)
                            {
                                continue;
                            }
                            let matrix = p.code.get(at).is_some_and(|x| {
                                matches!(x.d.base.as_str(), "mma" | "wmma" | "wgmma" | "ldmatrix")
                            });
                            if matrix && live.len() != size {
                                return Err(InterpError::Divergence(format!(
                                    "a matrix multiply needs {size} threads together; {} reach it",
                                    live.len()
                                )));
                            }
                            if size == 32 {
                                let warp = Warp {
                                    lanes: &live,
                                    base: w * size,
                                    at,
                                };
                                m.warp_collective(&mut threads, warp)?;
                            } else {
                                m.warpgroup_mma(&mut threads, &live, at)?;
                            }
                            progress = true;
                        }
                    }
                    if progress {
                        continue;
                    }
                    if threads.iter().any(|t| t.st == St::Warp) {
                        return Err(InterpError::Divergence(
                            "lanes of a warp wait at different collectives (or some at a \
                             barrier)"
                                .into(),
                        ));
                    }
                    // Every live thread waits at the barrier: open it.
                    for t in threads.iter_mut() {
                        if t.st == St::Barrier {
                            t.st = St::Run;
                        }
                    }
                }
            }
        }
    }
    if !m.printed.is_empty() {
        m.buffers.push(Buffer {
            base: PRINTF_BASE,
            bytes: m.printed,
        });
    }
    Ok(Outcome {
        buffers: m.buffers,
        executed: m.executed,
    })
}

/// Finds a PTX function by name and runs it: its module's `.func`s linked to it
/// ([`calls`]), its module-scope `.shared` variables laid out; a module-scope
/// `.global` / `.const` variable is refused (the MIR interpreter, which tests compare
/// with, gives them other addresses): [`run_ptx_module`] lays them out.
pub fn run_ptx(m: &ptx::Module, name: &str, inputs: &Inputs, cfg: &Config) -> R<Outcome> {
    ptx_with(m, name, inputs, cfg, false)
}

/// [`run_ptx`] with module-scope `.global` / `.const` variables laid out
/// ([`module_vars`]) and part of the result.
pub fn run_ptx_module(m: &ptx::Module, name: &str, inputs: &Inputs, cfg: &Config) -> R<Outcome> {
    ptx_with(m, name, inputs, cfg, true)
}

fn ptx_with(m: &ptx::Module, name: &str, inputs: &Inputs, cfg: &Config, g: bool) -> R<Outcome> {
    let funcs = || {
        m.items.iter().filter_map(|i| match i {
            ptx::Item::Func(f) if f.body.is_some() => Some(f),
            _ => None,
        })
    };
    let f = funcs()
        .find(|f| f.name == name)
        .ok_or_else(|| InterpError::NoSuchFunction(name.into()))?;
    let mut p = compile_ptx(f)?;
    for g in funcs().filter(|g| g.kind != ptx::FuncKind::Entry && g.name != name) {
        calls::link(&mut p, &g.name, compile_ptx_as(g, true)?)?;
    }
    let vars = m.items.iter().filter_map(|i| match i {
        ptx::Item::Var(v) => Some(v),
        _ => None,
    });
    module_vars::lay_out(&mut p, vars, g)?;
    run(&p, inputs, cfg)
}

/// Finds an ORI function by name and runs it, linked and laid out as [`run_ptx`] does.
pub fn run_ori(m: &crate::ori::Module, name: &str, inputs: &Inputs, cfg: &Config) -> R<Outcome> {
    ori_with(m, name, inputs, cfg, false)
}

/// [`run_ori`] with module-scope `.global` / `.const` variables, as [`run_ptx_module`].
pub fn run_ori_module(m: &crate::ori::Module, name: &str, inputs: &Inputs, cfg: &Config) -> R<Outcome> {
    ori_with(m, name, inputs, cfg, true)
}

fn ori_with(m: &crate::ori::Module, name: &str, inputs: &Inputs, cfg: &Config, g: bool) -> R<Outcome> {
    let f = m
        .functions()
        .find(|f| f.name == name && !f.is_decl)
        .ok_or_else(|| InterpError::NoSuchFunction(name.into()))?;
    let mut p = compile_ori(f)?;
    for g in m
        .functions()
        .filter(|g| !g.is_decl && g.kind != ptx::FuncKind::Entry && g.name != name)
    {
        calls::link(&mut p, &g.name, compile_ori_as(g, true)?)?;
    }
    let vars = m.items.iter().filter_map(|i| match i {
        crate::ori::Item::Var(v) => Some(v),
        _ => None,
    });
    module_vars::lay_out(&mut p, vars, g)?;
    run(&p, inputs, cfg)
}

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        splitmix(self.0)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
}

/// Bytes per random global buffer.
pub const BUFFER_BYTES: usize = 8192;

/// Random inputs for a kernel from its parameter list: every 64-bit parameter points
/// at a fresh buffer of random floats on a 1/8 grid (texture handles are just numbers
/// to the texture model), 32-bit integers are small (0..64, so loop bounds stay
/// short), floats are multiples of 1/8 in [-4, 4).
pub fn random_inputs(params: &[ptx::Param], seed: u64) -> Inputs {
    let mut rng = Rng::new(seed);
    let mut inputs = Inputs {
        // Four CTAs of a warp, so that code reading %ctaid differs between CTAs.
        launch: Launch {
            grid: [2, 2, 1],
            ..Launch::default()
        },
        params: Vec::new(),
        buffers: Vec::new(),
    };
    for p in params {
        let t = p.ty().unwrap_or(".b32");
        let bytes = match t {
            ".u64" | ".s64" | ".b64" => {
                let k = inputs.buffers.len() as u64;
                let mut buf = vec![0u8; BUFFER_BYTES];
                for w in buf.chunks_mut(4) {
                    let f = (rng.below(64) as i32 - 32) as f32 / 8.0;
                    w.copy_from_slice(&f.to_bits().to_le_bytes());
                }
                let base = GLOBAL_BASE + k * REGION_STRIDE;
                inputs.buffers.push(Buffer { base, bytes: buf });
                base.to_le_bytes().to_vec()
            }
            ".f32" => ((rng.below(64) as i32 - 32) as f32 / 8.0)
                .to_bits()
                .to_le_bytes()
                .to_vec(),
            ".f64" => ((rng.below(64) as i32 - 32) as f64 / 8.0)
                .to_bits()
                .to_le_bytes()
                .to_vec(),
            ".u8" | ".s8" | ".b8" => vec![rng.below(64) as u8],
            ".u16" | ".s16" | ".b16" => (rng.below(64) as u16).to_le_bytes().to_vec(),
            _ => (rng.below(64) as u32).to_le_bytes().to_vec(),
        };
        let n = p.array.unwrap_or(1).clamp(1, 4096) as usize;
        let mut all = Vec::new();
        for _ in 0..n {
            all.extend_from_slice(&bytes);
        }
        inputs.params.push(all);
    }
    inputs
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} buffers, {} instructions executed",
            self.buffers.len(),
            self.executed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversions_round_trip() {
        for h in [0u16, 0x3c00, 0xbc00, 0x7bff, 0x0001, 0x03ff, 0x7c00] {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h, "{h:04x}");
        }
        assert_eq!(f32_to_f16(1.0 + 1.0 / 4096.0), 0x3c00);
    }

    #[test]
    fn fma_rounds_once() {
        let (a, b, c) = (1.0f32 + f32::EPSILON, 1.0f32 - f32::EPSILON, -1.0f32);
        // a*b = 1 - eps^2 exactly; plus -1 gives -eps^2, representable.
        assert_eq!(fma32(a, b, c), -(f32::EPSILON * f32::EPSILON));
    }

    #[test]
    fn saxpy_runs_and_writes_its_output() {
        let text = "
.version 7.8
.target sm_90
.address_size 64
.visible .entry k(
\t.param .u64 k_param_0
)
{
\t.reg .b32 %r<3>;
\t.reg .b64 %rd<4>;
\tld.param.b64 %rd1, [k_param_0];
\tmov.u32 %r1, %tid.x;
\tmul.wide.u32 %rd2, %r1, 4;
\tadd.s64 %rd3, %rd1, %rd2;
\tst.global.b32 [%rd3], %r1;
\tret;
}
";
        let m = crate::ptx::parse(text).unwrap();
        let f = match &m.items[0] {
            ptx::Item::Func(f) => f,
            _ => unreachable!(),
        };
        let inputs = random_inputs(f.params.as_deref().unwrap(), 1);
        let out = run_ptx(&m, "k", &inputs, &Config::default()).unwrap();
        for t in 0..32u32 {
            let w = &out.buffers[0].bytes[4 * t as usize..4 * t as usize + 4];
            assert_eq!(u32::from_le_bytes(w.try_into().unwrap()), t);
        }
    }

    #[test]
    fn sqrt_is_correctly_rounded() {
        // Expected bits: the exact root rounded to nearest even (Python's Decimal at
        // 80 digits, nearest of the three neighbouring f32 values).
        for (x, r) in [
            (0x4000_0000u32, 0x3fb5_04f3u32),
            (0x4080_0000, 0x4000_0000),
            (0x3e80_0000, 0x3f00_0000),
            (0x0000_0001, 0x1a35_04f3),
            (0x007f_ffff, 0x1fff_ffff),
            (0x7f7f_ffff, 0x5f7f_ffff),
            (0x3f80_0001, 0x3f80_0000),
            (0x4120_0000, 0x404a_62c2),
        ] {
            let root = float::sqrt_dir(BINARY32, x.into(), FRound::Nearest);
            assert_eq!(root, u64::from(r), "sqrt of {x:#x}");
        }
        let minus_one = u64::from((-1f32).to_bits());
        assert_eq!(
            float::sqrt_dir(BINARY32, minus_one, FRound::Nearest),
            0x7fff_ffff
        );
    }

    /// One kernel, one thread: the two words it stores.
    fn two_words(body: &str) -> R<[u32; 2]> {
        let text = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n{body}\n}}\n"
        );
        let m = crate::ptx::parse(&text).unwrap();
        let f = match &m.items[0] {
            ptx::Item::Func(f) => f,
            _ => unreachable!(),
        };
        let mut inputs = random_inputs(f.params.as_deref().unwrap(), 1);
        inputs.launch = Launch {
            grid: [1, 1, 1],
            block: [1, 1, 1],
        };
        let out = run_ptx(&m, "k", &inputs, &Config::default())?;
        let w = |k: usize| {
            u32::from_le_bytes(out.buffers[0].bytes[4 * k..4 * k + 4].try_into().unwrap())
        };
        Ok([w(0), w(1)])
    }

    /// A module-scope `.shared` variable has its own per-CTA bytes, apart from the
    /// kernel's local `.shared` ones (before, its address was unsupported).
    #[test]
    fn module_shared_variables_are_laid_out_after_the_kernels_own() {
        let text = ".version 8.0\n.target sm_90\n.address_size 64\n\
            .shared .align 4 .b8 sbuf[16];\n\
            .visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\
            \t.reg .b32 %r<5>;\n\t.reg .b64 %rd<3>;\n\
            \t.shared .align 4 .b8 own[4];\n\
            \tld.param.b64 %rd1, [k_param_0];\n\
            \tmov.u32 %r1, 7;\n\tst.shared.b32 [sbuf+4], %r1;\n\
            \tmov.u32 %r2, 9;\n\tst.shared.b32 [own], %r2;\n\
            \tld.shared.b32 %r3, [sbuf+4];\n\tld.shared.b32 %r4, [own];\n\
            \tst.global.b32 [%rd1], %r3;\n\tst.global.b32 [%rd1+4], %r4;\n\tret;\n}\n";
        let m = crate::ptx::parse(text).unwrap();
        let f = m
            .items
            .iter()
            .find_map(|i| match i {
                ptx::Item::Func(f) => Some(f),
                _ => None,
            })
            .unwrap();
        let mut inputs = random_inputs(f.params.as_deref().unwrap(), 1);
        inputs.launch = Launch {
            grid: [1, 1, 1],
            block: [1, 1, 1],
        };
        let out = run_ptx(&m, "k", &inputs, &Config::default()).unwrap();
        let w = |k: usize| {
            u32::from_le_bytes(out.buffers[0].bytes[4 * k..4 * k + 4].try_into().unwrap())
        };
        assert_eq!([w(0), w(1)], [7, 9]);
    }

    #[test]
    fn an_mbarrier_phase_completes_after_its_arrival_and_bytes() {
        let body = "
\t.reg .b32 %r<6>;
\t.reg .b64 %rd<4>;
\t.reg .pred %p<3>;
\t.shared .align 16 .b8 buf[16];
\t.shared .align 8 .b64 bar;
\tld.param.b64 %rd1, [k_param_0];
\tmov.u32 %r1, bar;
\tmov.u32 %r4, buf;
\tmbarrier.init.shared::cta.b64 [%r1], 1;
\tmbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], 16;
\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd1], 16, [%r1];
\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], 0;
\tselp.u32 %r2, 1, 0, %p1;
\tselp.u32 %r3, 1, 0, %p2;
\tld.shared.b32 %r5, [%r4+4];
\tst.global.b32 [%rd1], %r2;
\tst.global.b32 [%rd1+4], %r3;
\tst.global.b32 [%rd1+8], %r5;
\tret;";
        // Arrived but 16 bytes outstanding: not complete; after the bulk copy: complete.
        assert_eq!(two_words(body).unwrap(), [0, 1]);
        // Without the arrival the phase never completes: the wait loop runs dry.
        let spin = "
\t.reg .b32 %r<2>;
\t.reg .b64 %rd<2>;
\t.reg .pred %p<2>;
\t.shared .align 8 .b64 bar;
\tld.param.b64 %rd1, [k_param_0];
\tmov.u32 %r1, bar;
\tmbarrier.init.shared::cta.b64 [%r1], 1;
$L__wait:
\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
\t@!%p1 bra $L__wait;
\tret;";
        assert_eq!(two_words(spin), Err(InterpError::OutOfFuel));
    }

    #[test]
    fn a_partial_warp_cannot_run_mma() {
        let body = "
\t.reg .b32 %r<8>;
\t.reg .f32 %f<5>;
\tmov.b32 %r1, 0;
\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%f1, %f1, %f1, %f1};
\tret;";
        assert!(matches!(two_words(body), Err(InterpError::Divergence(_))));
    }
}
