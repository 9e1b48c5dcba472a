//! MIR → [`Program`]: every instruction decoded once into an [`Exec`] with its operands
//! resolved to register slots, immediates and symbols, so running is a tight loop and
//! every "this IR cannot be interpreted" error surfaces before the first step.
//!
//! Register file: each virtual register owns `lanes` consecutive slots (one for a scalar
//! class, N for a tuple class `<base>xN`); `%v.subK` names slot `base(v) + K`. A slot
//! holds a `u128` bit pattern kept masked to its class width. Physical registers get one
//! slot each after the virtual ones.
//!
//! Operand layouts (llc-22), after the defs:
//!
//! ```text
//!  LD_i32 / LDV_i32_v4   sem, scope, addrspace, sign, fromWidth, usedBytes, base, offset
//!  LD_GLOBAL_NC_*        sign, fromWidth, usedBytes, base, offset
//!  ST_i32 / STV_i32_v4   value(s), sem, scope, addrspace, toWidth, base, offset
//!  SETP_i32rr            a, b, cmpMode          SETP_f32rr   a, b, cmpMode, ftz
//!  FADDf32rr, FMA_F32rrr a, b[, c], ftz         CVT_*        a, cvtMode
//!  SELP_b32rr            a, b, p                CBranch      p, %bb[, negate]
//!  SHFL_SYNC_*_i32       value, lane, clamp, membermask
//!  TEX_UNIFIED_*         handle, coordinates (4 results: 4 defs or one 4-lane tuple)
//! ```
//!
//! Sign: 0 unsigned, 1 signed, 2 float, 3 untyped; address spaces 0 generic, 1 global,
//! 3 shared, 4 const, 5 local, 101 param; a base is a register, `&sym` / `@sym` or an
//! immediate address.
//!
//! The per-opcode decoders live in [`decode`], one per instruction family in the
//! order of the instruction description.
//!
//! Invariants of a compiled program: block indices are layout positions; PHIs are gone
//! from `code` and live on as one parallel move list per incoming edge; every slot index
//! is below `slot_bits.len()`.

use super::asm::{self, AsmBlock};
use super::error::{InterpError, Location};
use super::float::{self, mask};
use super::matrix::Shape;
use super::memory::{param_addr, retval_addr, Space};
use crate::entity::{EntityRef, SecondaryMap};
use crate::mir::operand::{oflag, OperandKind, Sigil};
use crate::mir::print::inst_to_string;
use crate::mir::{
    Block, Function, Inst, InstData, Op, Opcode, Operand, Reg, RegClass, SubReg, SubRegKind,
};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

mod decode;

const NO_SEMANTICS_YET: &str = "the interpreter has no semantics for this opcode yet";
const CALLS_NOT_MODELLED: &str =
    "call sequences (outgoing parameters, callee results) are not modelled";
const NOT_MODELLED_YET: &str =
    "the instruction description gives this opcode no interpreter semantics yet";

/// Whether the interpreter gives `op` semantics: the instruction description's `sem`
/// column says `none:REASON` for what it does not model (call sequences, float
/// operations beyond the modelled ones, atomics, ...), so the decoder refuses those
/// by name with [`not_modelled`]'s reason, and the generator leaves them out.
#[cfg(any(feature = "testkit", feature = "testgen"))]
pub fn has_semantics(op: Op) -> bool {
    !op.sem().starts_with("none")
}

/// Why the description says the interpreter does not model an opcode (None: it does).
pub fn not_modelled(op: Op) -> Option<&'static str> {
    let reason = op.sem().strip_prefix("none:")?;
    Some(match reason {
        "call" => CALLS_NOT_MODELLED,
        "texture" => "textures and surfaces beyond the modelled fetches are not modelled",
        "atomic" => "atomic read-modify-write operations are not modelled",
        "sync" => "memory fences and warp synchronisation are not modelled",
        "float" => "this floating-point operation (or conversion) is not modelled",
        "wide" => "this widening multiply form is not modelled",
        "bits" => "this bit-manipulation instruction (permute, field insert, funnel shift ...) is not modelled yet",
        "special" => "special registers beyond the thread and block indices (clocks, cluster ids, environment registers) have no modelled value",
        "stack" => "the dynamic stack (alloca, stacksave, stackrestore) is not modelled",
        "hint" => "cache hints (prefetch, applypriority) are not modelled",
        "async" => "asynchronous copies and mbarriers complete outside the thread and are not modelled",
        "tensor" => "tensor-core and tensor-memory synchronisation across a warpgroup is not modelled",
        _ => NOT_MODELLED_YET,
    })
}

/// An integer binary operation from the description's `int:OP:BITS` semantics.
fn int_semantics(op: Op) -> Option<(IntOp, u32)> {
    let rest = op.sem().strip_prefix("int:")?;
    let (name, bits) = rest.split_once(':')?;
    let iop = match name {
        "add" => IntOp::Add,
        "sub" => IntOp::Sub,
        "mul.lo" => IntOp::MulLo,
        "and" => IntOp::And,
        "or" => IntOp::Or,
        "xor" => IntOp::Xor,
        "shl" => IntOp::Shl,
        "shr.u" => IntOp::ShrU,
        _ => return None,
    };
    Some((iop, bits.parse().ok()?))
}

/// Index into a thread's register slots.
pub(crate) type Slot = u32;

/// The deterministic "poison" bit pattern: what `IMPLICIT_DEF` writes and what a
/// register holds before its first write, masked to the register's width.
pub const POISON: u128 = 0xdead_beef_dead_beef_dead_beef_dead_beef;

/// A value an instruction reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    Slot(Slot),
    Imm(u128),
    /// The address of the run's symbol `idx` (in the symbol's own space) plus `off`.
    Sym {
        idx: u32,
        off: i64,
    },
    /// `$noreg` or an unset lane: the poison pattern.
    Poison,
}

/// A register lane an instruction writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Dst {
    pub slot: Slot,
    /// Width to mask to (128: no masking).
    pub bits: u16,
}

/// One lane of a parallel copy: all sources are read before any destination is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Move {
    pub dst: Dst,
    pub src: Src,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum IntOp {
    Add,
    Sub,
    MulLo,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum FOp {
    Add,
    Sub,
    Mul,
}

/// A number type named in a `CVT_<to>_<from>` opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum NumTy {
    Int { signed: bool, bits: u32 },
    F16,
    F32,
    F64,
}

impl NumTy {
    fn parse(s: &str) -> Option<NumTy> {
        let (kind, bits) = (s.get(..1)?, s.get(1..)?);
        let bits: u32 = bits.parse().ok()?;
        Some(match (kind, bits) {
            ("s", 8 | 16 | 32 | 64) => NumTy::Int { signed: true, bits },
            ("u", 8 | 16 | 32 | 64) => NumTy::Int {
                signed: false,
                bits,
            },
            ("f", 16) => NumTy::F16,
            ("f", 32) => NumTy::F32,
            ("f", 64) => NumTy::F64,
            _ => return None,
        })
    }
}

/// Which special register an `INT_PTX_SREG_*` reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Sreg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
}

impl Sreg {
    /// The special register an `INT_PTX_SREG_*` opcode reads, for those the
    /// interpreter models (the description marks the others `none:special`).
    pub(crate) fn of(op: Op) -> Option<Sreg> {
        use Op::*;
        Some(match op {
            INT_PTX_SREG_TID_x => Sreg::Tid(0),
            INT_PTX_SREG_TID_y => Sreg::Tid(1),
            INT_PTX_SREG_NTID_x => Sreg::Ntid(0),
            INT_PTX_SREG_CTAID_x => Sreg::Ctaid(0),
            INT_PTX_SREG_CTAID_y => Sreg::Ctaid(1),
            INT_PTX_SREG_NCTAID_x => Sreg::Nctaid(0),
            INT_PTX_SREG_LANEID => Sreg::LaneId,
            _ => return None,
        })
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ShflMode {
    Idx,
    Down,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum TexKind {
    /// `tex.2d.v4.f32.f32`: four f32 texels from (x, y) f32 coordinates.
    F32F32_2d,
    /// `tex.1d.v4.s32.s32`: four s32 texels from an s32 coordinate.
    S32S32_1d,
    /// `TEX_2D_V4F32_F32_P`: the 2D f32 fetch, plus a fifth result in the implicit
    /// `$texpred`: resident (1) when both coordinates are ≥ 0.
    F32F32_2dResident,
}

impl TexKind {
    /// f32 texels from f32 coordinates (else s32 from s32).
    pub(crate) fn is_float(self) -> bool {
        !matches!(self, TexKind::S32S32_1d)
    }
}

/// How a load extends a narrower memory value into its register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ext {
    Zero,
    Sign,
}

/// A load: lane `k` of `ds` from `base + off + k·bits/8` in `space`.
#[derive(Clone, Debug)]
pub(crate) struct Load {
    pub space: Space,
    pub ext: Ext,
    pub bits: u32,
    pub ds: Vec<Dst>,
    pub base: Src,
    pub off: i64,
}

/// A store: value `k` to `base + off + k·bits/8` in `space`; `None` values are sinks
/// (`$noreg`): not stored.
#[derive(Clone, Debug)]
pub(crate) struct Store {
    pub space: Space,
    pub bits: u32,
    pub vals: Vec<Option<Src>>,
    pub base: Src,
    pub off: i64,
}

/// A decoded instruction.
#[derive(Clone, Debug)]
pub(crate) enum Exec {
    /// COPY, register moves, immediates, sub-register pseudos, IMPLICIT_DEF.
    Moves(Vec<Move>),
    Int {
        op: IntOp,
        bits: u32,
        d: Dst,
        a: Src,
        b: Src,
    },
    MulWide {
        signed: bool,
        d: Dst,
        a: Src,
        b: Src,
    },
    MadLo {
        bits: u32,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    SetpInt {
        bits: u32,
        mode: u8,
        d: Dst,
        a: Src,
        b: Src,
    },
    SetpF32 {
        mode: u8,
        ftz: bool,
        d: Dst,
        a: Src,
        b: Src,
    },
    Selp {
        d: Dst,
        a: Src,
        b: Src,
        p: Src,
    },
    F32 {
        op: FOp,
        ftz: bool,
        d: Dst,
        a: Src,
        b: Src,
    },
    F16 {
        op: FOp,
        ftz: bool,
        lanes: u32,
        d: Dst,
        a: Src,
        b: Src,
    },
    Fma32 {
        ftz: bool,
        d: Dst,
        a: Src,
        b: Src,
        c: Src,
    },
    Cvt {
        to: NumTy,
        from: NumTy,
        mode: u32,
        d: Dst,
        a: Src,
    },
    /// Concatenate `parts` (lowest first), each `part_bits` wide.
    Pack {
        part_bits: u32,
        d: Dst,
        parts: Vec<Src>,
    },
    /// Split `a` into `ds` (lowest first), each `part_bits` wide.
    Unpack {
        part_bits: u32,
        ds: Vec<Dst>,
        a: Src,
    },
    Load(Load),
    Store(Store),
    Sreg {
        d: Dst,
        which: Sreg,
    },
    Barrier {
        id: u32,
    },
    Shfl {
        mode: ShflMode,
        d: Dst,
        pred: Option<Dst>,
        a: Src,
        b: Src,
        c: Src,
        mask: Src,
    },
    Tex {
        kind: TexKind,
        ds: Vec<Dst>,
        handle: Src,
        coords: Vec<Src>,
    },
    /// A warp-wide matrix multiply-accumulate (a collective, see [`super::matrix`]):
    /// this lane's fragment registers.
    Mma {
        shape: Shape,
        ds: Vec<Dst>,
        a: Vec<Src>,
        b: Vec<Src>,
        c: Vec<Src>,
    },
    /// `WGMMA_M64N32K16_F32 a, b, s`: a warpgroup collective (128 threads), see
    /// [`super::matrix::wgmma_m64n32k16`] and the PTX form's documentation.
    Wgmma {
        ds: Vec<Dst>,
        a: Src,
        b: Src,
        s: Src,
    },
    /// `CP_ASYNC_CA_SHARED` / `TMA_LOAD_2D`: `ds[0]` = the 32-bit word at global
    /// `base + 4·index`, `ds[1]` = 1 (the copy completed).
    AsyncLoad {
        ds: Vec<Dst>,
        base: Src,
        index: Option<Src>,
    },
    Asm(Box<AsmBlock>),
    Branch {
        cond: Option<(Src, bool)>,
        target: usize,
    },
    Return,
    Nop,
}

/// A symbol (module variable) the function refers to, other than kernel parameters
/// and return-value slots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolRef {
    pub name: String,
    /// The space the function's direct uses imply (`Global` when nothing says).
    pub space: Space,
}

pub(crate) struct XBlock {
    pub number: u32,
    /// Incoming edges: predecessor layout index and the PHI moves of that edge.
    pub edges: Vec<(usize, Vec<Move>)>,
    pub has_phis: bool,
    pub code: Vec<Exec>,
    pub insts: Vec<Inst>,
}

/// A function decoded for the interpreter. Compile once, run on many inputs.
pub struct Program<'f> {
    pub(crate) f: &'f Function,
    pub(crate) blocks: Vec<XBlock>,
    /// Width of every register slot.
    pub(crate) slot_bits: Vec<u16>,
    pub(crate) symbols: Vec<SymbolRef>,
    /// `func_retvalN` slots referenced.
    pub(crate) retvals: Vec<u32>,
}

impl<'f> Program<'f> {
    /// Decodes `f`. Fails with `Unsupported` on the first opcode without semantics, or
    /// `Malformed` on IR that does not fit an opcode's operand layout.
    pub fn compile(f: &'f Function) -> Result<Program<'f>, InterpError> {
        Compiler::new(f).run()
    }

    pub fn function(&self) -> &'f Function {
        self.f
    }

    /// The module variables the function refers to, with the space their uses imply.
    pub fn symbols(&self) -> &[SymbolRef] {
        &self.symbols
    }

    pub(crate) fn location(&self, block: usize, pc: usize) -> Location {
        let b = &self.blocks[block];
        let inst = b
            .insts
            .get(pc)
            .map(|&i| inst_text(self.f, &self.f.insts[i]))
            .unwrap_or_else(|| "<block entry>".into());
        Location {
            block: b.number,
            inst,
        }
    }
}

/// The instruction as MIR prints it (tolerating a def count past the operand list).
fn inst_text(f: &Function, data: &InstData) -> String {
    if data.lhs_defs as usize <= data.operands.len() {
        return inst_to_string(f, data);
    }
    let mut d = data.clone();
    d.lhs_defs = d.operands.len() as u16;
    inst_to_string(f, &d)
}

/// Register slot allocation of a virtual register.
#[derive(Copy, Clone, Default)]
struct VSlots {
    base: u32,
    lanes: u8,
    bits: u16,
}

fn class_bits(c: Option<RegClass>) -> u16 {
    c.and_then(|c| c.family())
        .map_or(128, |fam| fam.bits() as u16)
}

struct Compiler<'f> {
    f: &'f Function,
    vslots: SecondaryMap<crate::mir::VReg, VSlots>,
    slot_bits: Vec<u16>,
    phys: Vec<(crate::entity::Sym, Slot)>,
    block_index: SecondaryMap<Block, Option<usize>>,
    symbols: Vec<SymbolRef>,
    sym_space_known: Vec<bool>,
    retvals: Vec<u32>,
}

/// Explicit operands of an instruction: defs (left of `=`, not implicit) and the rest
/// (registers, immediates, blocks, symbols), implicit registers and metadata dropped.
struct Operands<'a> {
    defs: Vec<&'a Operand>,
    uses: Vec<&'a Operand>,
}

fn operands(data: &InstData) -> Operands<'_> {
    let mut defs = Vec::new();
    let mut uses = Vec::new();
    for op in &data.operands {
        if op.is_reg() && op.has(oflag::IMPLICIT) {
            continue;
        }
        if matches!(op.kind, OperandKind::Verbatim(_)) {
            continue;
        }
        if op.is_def() {
            defs.push(op);
        } else {
            uses.push(op);
        }
    }
    Operands { defs, uses }
}

fn opcode_name(f: &Function, o: Opcode) -> String {
    match o {
        Opcode::Known(op) => op.name().into(),
        Opcode::Other(s) => f.sym(s).into(),
    }
}

/// Kernel parameter index of a `&<fn>_param_N` symbol.
pub(crate) fn param_index(name: &str) -> Option<u32> {
    let pos = name.rfind("_param_")?;
    let n = &name[pos + "_param_".len()..];
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// The kernel parameter index CICC's parameter register `$rN` holds (`r1` → 0).
pub fn param_register(name: &str) -> Option<u32> {
    let digits = name.strip_prefix('r')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u32>().ok()?.checked_sub(1)
}

/// Return-value slot of a `&func_retvalN` symbol.
pub(crate) fn retval_index(name: &str) -> Option<u32> {
    let n = name.strip_prefix("func_retval")?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

impl<'f> Compiler<'f> {
    fn new(f: &'f Function) -> Self {
        let mut vslots: SecondaryMap<crate::mir::VReg, VSlots> = SecondaryMap::new();
        let mut slot_bits = Vec::new();
        for v in f.vreg_list() {
            let class = f.vreg_class(v);
            let lanes = class.map_or(1, |c| c.lanes()).max(1);
            let bits = class_bits(class);
            vslots[v] = VSlots {
                base: slot_bits.len() as u32,
                lanes,
                bits,
            };
            slot_bits.extend(core::iter::repeat_n(bits, lanes as usize));
        }
        let mut block_index = SecondaryMap::new();
        for (i, b) in f.layout.blocks().enumerate() {
            block_index[b] = Some(i);
        }
        Compiler {
            f,
            vslots,
            slot_bits,
            phys: Vec::new(),
            block_index,
            symbols: Vec::new(),
            sym_space_known: Vec::new(),
            retvals: Vec::new(),
        }
    }

    fn run(mut self) -> Result<Program<'f>, InterpError> {
        let f = self.f;
        if f.layout.num_blocks() == 0 {
            return Err(InterpError::malformed("the function has no blocks"));
        }
        let nblocks = f.layout.num_blocks();
        let mut blocks: Vec<XBlock> = Vec::with_capacity(nblocks);
        // PHI moves per (block, predecessor) are gathered first, then attached.
        let mut edges: Vec<Vec<(usize, Vec<Move>)>> = vec![Vec::new(); nblocks];
        for (bi, b) in f.layout.blocks().enumerate() {
            let number = f.blocks[b].number;
            let mut code = Vec::new();
            let mut insts = Vec::new();
            let mut in_phis = true;
            let mut has_phis = false;
            for i in f.layout.block_insts(b) {
                let data = &f.insts[i];
                let loc = || Location {
                    block: number,
                    inst: inst_text(f, data),
                };
                if data.is(Op::PHI) {
                    if !in_phis {
                        return Err(InterpError::malformed(
                            "PHI after a non-PHI instruction in its block",
                        )
                        .at(loc));
                    }
                    has_phis = true;
                    self.phi(data, bi, &mut edges)
                        .map_err(|e| e.named("PHI").at(loc))?;
                    continue;
                }
                in_phis = false;
                let x = self
                    .inst(data)
                    .map_err(|e| e.named(&opcode_name(f, data.opcode)).at(loc))?;
                code.push(x);
                insts.push(i);
            }
            blocks.push(XBlock {
                number,
                edges: Vec::new(),
                has_phis,
                code,
                insts,
            });
        }
        for (bi, e) in edges.into_iter().enumerate() {
            blocks[bi].edges = e;
        }
        if blocks[0].has_phis {
            return Err(InterpError::malformed(format!(
                "the entry block bb.{} has PHIs",
                blocks[0].number
            )));
        }
        // Symbols whose space no direct use told (`MOV_B64_sym @x` then an access
        // through a register) take the space the address-flow analysis finds.
        if self.sym_space_known.iter().any(|k| !k) {
            let shape = super::random::shape(f, None);
            for (s, known) in self.symbols.iter_mut().zip(&self.sym_space_known) {
                if let Some((_, sp, _)) = shape.symbols.iter().find(|(n, _, _)| *n == s.name) {
                    if !known {
                        s.space = *sp;
                    }
                }
            }
        }
        crate::sort::sort_ints(&mut self.retvals);
        self.retvals.dedup();
        Ok(Program {
            f,
            blocks,
            slot_bits: self.slot_bits,
            symbols: self.symbols,
            retvals: self.retvals,
        })
    }

    fn phi(
        &mut self,
        data: &InstData,
        bi: usize,
        edges: &mut [Vec<(usize, Vec<Move>)>],
    ) -> Result<(), InterpError> {
        let ops = operands(data);
        let [d] = ops.defs[..] else {
            return Err(InterpError::malformed("PHI needs exactly one def"));
        };
        let dsts = self.dst_lanes(d)?;
        if !ops.uses.len().is_multiple_of(2) {
            return Err(InterpError::malformed(
                "PHI operands come in (value, %bb.N) pairs",
            ));
        }
        for pair in ops.uses.chunks(2) {
            let pred = self.block(pair[1])?;
            let srcs = self.src_lanes(pair[0])?;
            let moves = self.lane_moves(&dsts, &srcs)?;
            let list = &mut edges[bi];
            match list.iter_mut().find(|(p, _)| *p == pred) {
                Some((_, m)) => {
                    // A second pair for the same predecessor: the first one wins per def.
                    for mv in moves {
                        if !m.iter().any(|x| x.dst == mv.dst) {
                            m.push(mv);
                        }
                    }
                }
                None => list.push((pred, moves)),
            }
        }
        Ok(())
    }

    // ---- operand helpers -------------------------------------------------------

    fn vslots_of(&self, v: crate::mir::VReg) -> Result<VSlots, InterpError> {
        let s = self.vslots[v];
        if s.lanes == 0 || !self.f.vregs[v].exists {
            return Err(InterpError::malformed(format!(
                "%{} is not a declared register",
                v.index()
            )));
        }
        Ok(s)
    }

    fn phys_slot(&mut self, s: crate::entity::Sym) -> Slot {
        if let Some(&(_, slot)) = self.phys.iter().find(|(x, _)| *x == s) {
            return slot;
        }
        let slot = self.slot_bits.len() as Slot;
        self.slot_bits.push(128);
        self.phys.push((s, slot));
        slot
    }

    /// Lanes (slot, width) a register operand names: all lanes, or the one `.subK`.
    fn reg_lanes(&mut self, op: &Operand) -> Result<Option<Vec<Dst>>, InterpError> {
        let Some(reg) = op.get_reg() else {
            return Ok(None);
        };
        match reg {
            Reg::Virt(v) => {
                let s = self.vslots_of(v)?;
                match op.subreg.map(SubReg::kind) {
                    None => Ok(Some(
                        (0..s.lanes as u32)
                            .map(|k| Dst {
                                slot: s.base + k,
                                bits: s.bits,
                            })
                            .collect(),
                    )),
                    Some(SubRegKind::Lane(k)) if k < s.lanes => Ok(Some(vec![Dst {
                        slot: s.base + k as u32,
                        bits: s.bits,
                    }])),
                    Some(SubRegKind::Lane(k)) => Err(InterpError::malformed(format!(
                        "%{}.sub{k} is past the register's {} lane(s)",
                        v.index(),
                        s.lanes
                    ))),
                    Some(SubRegKind::Named(n)) => Err(InterpError::unsupported(
                        "<sub-register>",
                        format!("named sub-register index `{}`", self.f.sym(n)),
                    )),
                }
            }
            Reg::Phys(s) => {
                if op.subreg.is_some() {
                    return Err(InterpError::unsupported(
                        "<sub-register>",
                        "sub-registers of physical registers",
                    ));
                }
                Ok(Some(vec![Dst {
                    slot: self.phys_slot(s),
                    bits: 128,
                }]))
            }
            Reg::NoReg => Ok(Some(Vec::new())),
        }
    }

    /// Every lane an operand reads, in lane order.
    fn src_lanes(&mut self, op: &Operand) -> Result<Vec<Src>, InterpError> {
        match self.reg_lanes(op)? {
            Some(l) if l.is_empty() => Ok(vec![Src::Poison]),
            Some(l) => Ok(l.into_iter().map(|d| Src::Slot(d.slot)).collect()),
            None => Ok(vec![self.src(op)?]),
        }
    }

    fn dst_lanes(&mut self, op: &Operand) -> Result<Vec<Dst>, InterpError> {
        match self.reg_lanes(op)? {
            Some(l) if l.is_empty() => Ok(vec![Dst {
                slot: Slot::MAX,
                bits: 128,
            }]),
            Some(l) => Ok(l),
            None => Err(InterpError::malformed("expected a register to define")),
        }
    }

    /// One value: a scalar register or one lane, an immediate, a symbol's address.
    fn src(&mut self, op: &Operand) -> Result<Src, InterpError> {
        match op.kind {
            OperandKind::Reg(_) => {
                let l = self.reg_lanes(op)?.unwrap_or_default();
                match l[..] {
                    [] => Ok(Src::Poison),
                    [d] => Ok(Src::Slot(d.slot)),
                    _ => Err(InterpError::malformed(
                        "a tuple register is used whole where one value is expected",
                    )),
                }
            }
            OperandKind::Imm(v) => Ok(Src::Imm(v as i128 as u128)),
            OperandKind::FpImm(fp) => {
                let (ty, text) = (self.f.sym(fp.ty), self.f.sym(fp.text));
                float::parse_fp_literal(ty, text)
                    .map(Src::Imm)
                    .ok_or_else(|| {
                        InterpError::malformed(format!("cannot read `{ty} {text}` as a number"))
                    })
            }
            OperandKind::Global { sym, offset, sigil } => {
                if sigil == Sigil::AmpQuoted {
                    return Err(InterpError::malformed("a string is not a value"));
                }
                self.symbol(self.f.sym(sym), offset, None)
            }
            _ => Err(InterpError::malformed(
                "expected a register or an immediate",
            )),
        }
    }

    /// The address of a named symbol: kernel parameters and return slots are placed at
    /// fixed param-space addresses; other symbols are numbered per run.
    fn symbol(&mut self, name: &str, off: i64, space: Option<Space>) -> Result<Src, InterpError> {
        if let Some(n) = param_index(name) {
            return Ok(Src::Imm(param_addr(n).wrapping_add(off as u64) as u128));
        }
        if let Some(n) = retval_index(name) {
            self.retvals.push(n);
            return Ok(Src::Imm(retval_addr(n).wrapping_add(off as u64) as u128));
        }
        let idx = match self.symbols.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                self.symbols.push(SymbolRef {
                    name: name.to_string(),
                    space: Space::Global,
                });
                self.sym_space_known.push(false);
                self.symbols.len() - 1
            }
        };
        if let Some(sp) = space.filter(|&s| s != Space::Generic) {
            if !self.sym_space_known[idx] {
                self.symbols[idx].space = sp;
                self.sym_space_known[idx] = true;
            }
        }
        Ok(Src::Sym {
            idx: idx as u32,
            off,
        })
    }

    fn dst(&mut self, op: &Operand) -> Result<Dst, InterpError> {
        let l = self.dst_lanes(op)?;
        match l[..] {
            [d] => Ok(d),
            _ => Err(InterpError::malformed(
                "a tuple register is defined whole where one value is produced",
            )),
        }
    }

    fn imm(&self, op: &Operand) -> Result<i64, InterpError> {
        op.imm_value()
            .ok_or_else(|| InterpError::malformed("expected an immediate"))
    }

    fn block(&self, op: &Operand) -> Result<usize, InterpError> {
        match op.kind {
            OperandKind::Block(b) => self.block_index.get(b).copied().flatten().ok_or_else(|| {
                InterpError::malformed("branch to a block that is not in the function")
            }),
            _ => Err(InterpError::malformed("expected a block `%bb.N`")),
        }
    }

    /// `n` result lanes: n scalar defs, or one def of an n-lane tuple.
    fn results(&mut self, defs: &[&Operand], n: usize) -> Result<Vec<Dst>, InterpError> {
        if defs.len() == n {
            return defs.iter().map(|d| self.dst(d)).collect();
        }
        if let [d] = defs {
            let l = self.dst_lanes(d)?;
            if l.len() == n {
                return Ok(l);
            }
        }
        Err(InterpError::malformed(format!(
            "expected {n} results, found {} def(s)",
            defs.len()
        )))
    }

    fn lane_moves(&self, dsts: &[Dst], srcs: &[Src]) -> Result<Vec<Move>, InterpError> {
        if dsts.len() != srcs.len() {
            return Err(InterpError::malformed(format!(
                "copy between {} lane(s) and {} lane(s)",
                dsts.len(),
                srcs.len()
            )));
        }
        Ok(dsts
            .iter()
            .zip(srcs)
            .map(|(&dst, &src)| Move { dst, src })
            .collect())
    }

    /// Moves for a def operand that carries `.subK`: with `undef`, the other lanes of
    /// the register become poison (LLVM: the rest of the register is not live).
    fn subreg_def_moves(
        &mut self,
        d: &Operand,
        mut moves: Vec<Move>,
    ) -> Result<Vec<Move>, InterpError> {
        if d.subreg.is_some() && d.has(oflag::UNDEF) {
            let mut whole = *d;
            whole.subreg = None;
            for l in self.dst_lanes(&whole)? {
                if !moves.iter().any(|m| m.dst == l) {
                    moves.push(Move {
                        dst: l,
                        src: Src::Poison,
                    });
                }
            }
        }
        Ok(moves)
    }

    fn ftz(&self, uses: &[&Operand], idx: usize) -> Result<bool, InterpError> {
        match uses.get(idx) {
            None => Ok(false),
            Some(op) => Ok(self.imm(op)? & 1 != 0),
        }
    }

    // ---- operand forms of the instruction decoders (see `decode`) ---------------

    fn subreg_index(&self, op: &Operand, lanes: usize) -> Result<usize, InterpError> {
        let k = match op.kind {
            OperandKind::SubRegIdx(s) => match s.kind() {
                SubRegKind::Lane(k) => k as usize,
                SubRegKind::Named(n) => {
                    return Err(InterpError::unsupported(
                        "<sub-register>",
                        format!("named sub-register index `{}`", self.f.sym(n)),
                    ))
                }
            },
            OperandKind::Imm(k) if k >= 0 => k as usize,
            _ => return Err(InterpError::malformed("expected %subreg.subK")),
        };
        if k >= lanes {
            return Err(InterpError::malformed(format!(
                "sub{k} is past the register's {lanes} lane(s)"
            )));
        }
        Ok(k)
    }

    fn space(&self, op: &Operand) -> Result<Space, InterpError> {
        let n = self.imm(op)?;
        Space::from_addrspace(n)
            .ok_or_else(|| InterpError::unsupported("<memory>", format!("address space {n}")))
    }

    fn width(&self, op: &Operand) -> Result<u32, InterpError> {
        match self.imm(op)? {
            w @ (8 | 16 | 32 | 64 | 128) => Ok(w as u32),
            w => Err(InterpError::malformed(format!("memory access width {w}"))),
        }
    }

    fn address_base(&mut self, op: &Operand, space: Space) -> Result<Src, InterpError> {
        match op.kind {
            OperandKind::Global { sym, offset, .. } => {
                let name = self.f.sym(sym);
                let s = self.symbol(name, offset, Some(space))?;
                Ok(match s {
                    // Fixed param-space addresses seen through the generic window.
                    Src::Imm(a) if space == Space::Generic => {
                        Src::Imm(a + Space::Param.generic_window() as u128)
                    }
                    s => s,
                })
            }
            _ => self.src(op),
        }
    }
}

/// What the inline-asm compiler needs from the instruction compiler.
pub(crate) trait OperandResolver {
    fn src_of(&mut self, op: &Operand) -> Result<Src, InterpError>;
    fn dst_of(&mut self, op: &Operand) -> Result<Dst, InterpError>;
    fn string_of(&self, op: &Operand) -> Option<&str>;
}

impl OperandResolver for Compiler<'_> {
    fn src_of(&mut self, op: &Operand) -> Result<Src, InterpError> {
        self.src(op)
    }
    fn dst_of(&mut self, op: &Operand) -> Result<Dst, InterpError> {
        self.dst(op)
    }
    fn string_of(&self, op: &Operand) -> Option<&str> {
        match op.kind {
            OperandKind::Global {
                sym,
                sigil: Sigil::AmpQuoted,
                ..
            } => Some(self.f.sym(sym)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{BlockData, Operand, Target};

    /// Every opcode in the table either decodes (perhaps rejecting these made-up
    /// operands as malformed) or is one `has_semantics` names as unsupported: none falls
    /// through to the decoder's catch-all.
    #[test]
    fn has_semantics_matches_the_decoder() {
        for &op in Op::all() {
            for nuses in 0..12 {
                let mut f = Function::new("k", Target::Nvptx);
                let b = f.add_block(BlockData::default());
                let mut ops = Vec::new();
                for _ in 0..op.desc().defs.max(1) {
                    let v = f.new_vreg(RegClass::parse_nvptx("b32"));
                    ops.push(Operand::vreg(v, oflag::DEF));
                }
                for k in 0..nuses {
                    ops.push(Operand::imm(k as i64));
                }
                f.append_inst(b, InstData::new(Opcode::Known(op), ops));
                match Program::compile(&f) {
                    Err(InterpError::Unsupported { reason, .. }) if reason == NO_SEMANTICS_YET => {
                        panic!("{} falls through to the catch-all", op.name())
                    }
                    Err(InterpError::Unsupported { reason, .. })
                        if Some(reason.as_str()) == not_modelled(op) =>
                    {
                        assert!(!has_semantics(op), "{}", op.name())
                    }
                    _ => assert!(has_semantics(op), "{}", op.name()),
                }
            }
        }
    }
}
