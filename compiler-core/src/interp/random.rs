//! Deterministic random inputs for a function: a launch, parameter values, the global
//! buffers pointer parameters point into, and module variables.
//!
//! The generator reads the function, not a signature: each `ld.param` of
//! `&<fn>_param_N` tells the size of parameter N; a 64-bit parameter whose value reaches
//! the address of a load or store (through `cvta`, 64-bit adds, copies and PHIs) is a
//! pointer and gets a fresh [`BUFFER_BYTES`]-byte buffer; a parameter whose value feeds
//! float arithmetic gets a small float (a multiple of 1/4 in [-8, 8)); any other gets a
//! small integer, mostly in [0, 40] (loop bounds stay short), sometimes in [-4, -1].
//! Buffers and global/const variables are filled with words that are either small
//! integers or small floats, so loaded values make sense to both kinds of code; shared
//! and local variables start zeroed. The same seed always gives the same inputs.

use super::compile::{param_index, retval_index};
use super::memory::{parse_ir_globals, Region, Space, BUFFER_BASE, BUFFER_STRIDE};
use super::{Inputs, Launch, Symbol, DEFAULT_SYMBOL_BYTES};
use crate::entity::SecondaryMap;
use crate::mir::operand::{oflag, OperandKind, Sigil};
use crate::mir::{Function, InstData, Op, Opcode, Operand, VReg};
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Size of each global buffer the generator makes for a pointer parameter.
pub const BUFFER_BYTES: usize = 8192;
/// Parameters past this index are ignored (their loads read unmapped memory).
pub const MAX_PARAMS: usize = 1024;
/// The generator makes no parameter larger than this.
pub const MAX_PARAM_BYTES: usize = 4096;

/// SplitMix64: a small, fast, well-mixed deterministic generator.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5eed_c0de_cafe_f00d)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// A small integer, mostly non-negative.
    pub fn small_int(&mut self) -> i64 {
        if self.below(8) == 0 {
            self.range(-4, -1)
        } else {
            self.range(0, 40)
        }
    }

    /// A multiple of 1/4 in [-8, 8).
    pub fn small_float(&mut self) -> f32 {
        self.range(-32, 31) as f32 / 4.0
    }
}

/// What a parameter is, as far as the function's use of it tells.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Pointer,
    Float,
    Int,
    /// An element index into a buffer (a TMA coordinate): never negative.
    Index,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    pub index: u32,
    /// Bytes the function reads (offset + width of the widest access).
    pub bytes: usize,
    /// Width in bits of the first load of it.
    pub width: u32,
    pub kind: ParamKind,
}

/// The parameters and module variables a function uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Parameters 0..=max index; parameters never loaded appear as 8-byte integers.
    pub params: Vec<ParamInfo>,
    /// Module variables: name, space, size.
    pub symbols: Vec<(String, Space, usize)>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    Param(u32),
    Sym(String),
}

fn explicit_uses(data: &InstData) -> Vec<&Operand> {
    data.operands
        .iter()
        .filter(|o| !(o.is_def() || o.is_reg() && o.has(oflag::IMPLICIT)))
        .filter(|o| !matches!(o.kind, OperandKind::Verbatim(_)))
        .collect()
}

/// (addrspace operand, base operand, offset operand, values per access, width operand)
/// positions in the explicit uses of a memory instruction.
fn memory_layout(op: Op) -> Option<(Option<usize>, usize, usize, usize, usize)> {
    use Op::*;
    Some(match op {
        LD_i32 | LD_i64 | LD_f32 => (Some(2), 6, 7, 1, 4),
        LDV_i32_v2 => (Some(2), 6, 7, 2, 4),
        LDV_i32_v4 => (Some(2), 6, 7, 4, 4),
        LD_GLOBAL_NC_i32 => (None, 3, 4, 1, 1),
        LD_GLOBAL_NC_v4i32 => (None, 3, 4, 4, 1),
        LD_GLOBAL_NC_v2i64 => (None, 3, 4, 2, 1),
        ST_i32 | ST_i64 => (Some(3), 5, 6, 1, 4),
        STV_i32_v4 => (Some(6), 8, 9, 4, 7),
        _ => return None,
    })
}

fn is_float_consumer(f: &Function, data: &InstData) -> bool {
    match data.opcode {
        Opcode::Known(op) => {
            let n = op.name();
            n.starts_with("FADD")
                || n.starts_with("FSUB")
                || n.starts_with("FMUL")
                || n.starts_with("FMA")
                || n.starts_with("MMA_")
                || n.starts_with("SETP_f")
                || (n.starts_with("CVT_") && n.ends_with("_f32"))
                || n.starts_with("TEX_UNIFIED_2D_F32")
                || n.starts_with("BITCONVERT_32_F2I")
                || (op == Op::INLINEASM
                    && data.operands.first().is_some_and(|o| match o.kind {
                        OperandKind::Global { sym, .. } => f.sym(sym).contains("f32"),
                        _ => false,
                    }))
        }
        Opcode::Other(_) => false,
    }
}

/// The position of the address space immediate (None: always global), the base, the
/// offset and the width immediate in a memory instruction's explicit uses, and the
/// values it moves per access; asynchronous copies and wgmma read global memory
/// through their first operand(s).
fn access_layout(op: Op) -> Option<(Option<usize>, usize, usize, usize, usize)> {
    memory_layout(op).or(match op {
        Op::TMA_LOAD_2D | Op::CP_ASYNC_CA_SHARED => Some((None, 0, 0, 1, 0)),
        Op::WGMMA_M64N32K16_F32 => Some((None, usize::MAX, 0, 1, 0)),
        _ => None,
    })
}

/// The space a memory instruction names by its address-space immediate `sp_idx`
/// (global when it has none).
fn access_space(uses: &[&Operand], sp_idx: Option<usize>) -> Option<Space> {
    match sp_idx {
        Some(k) => uses
            .get(k)
            .and_then(|o| o.imm_value())
            .and_then(Space::from_addrspace),
        None => Some(Space::Global),
    }
}

/// Whether values flow from the uses of `op` to its defs unchanged enough to carry an
/// origin: copies, PHIs, address arithmetic.
fn is_carrier(op: Op) -> bool {
    use Op::*;
    matches!(
        op,
        COPY | PHI
            | cvta_to_global_64
            | ADD64rr
            | ADD64ri
            | MOV_B64_r
            | MOV_B32_r
            | IMOV64rr
            | IMOV32rr
            | FMOV32rr
            | BITCONVERT_32_I2F
            | BITCONVERT_32_F2I
    )
}

/// What [`shape`] learns while it reads a function: parameters by index, where each
/// register's value may come from, and the module variables with the space a direct
/// use gives them (the first one wins).
struct ShapeScan {
    params: Vec<Option<ParamInfo>>,
    origins: SecondaryMap<VReg, Vec<Origin>>,
    sym_space: Vec<(String, Option<Space>)>,
}

/// Reads the parameters and module variables of `f` (with sizes from the module's LLVM
/// IR when given).
pub fn shape(f: &Function, ir: Option<&str>) -> Shape {
    let mut s = ShapeScan {
        params: Vec::new(),
        origins: SecondaryMap::new(),
        sym_space: Vec::new(),
    };
    // Parameter loads and symbol references.
    for (_, i) in f.all_insts() {
        s.scan(f, &f.insts[i]);
    }
    s.propagate(f);
    // Pointers: origins reaching a memory instruction's address; floats: origins
    // reaching float arithmetic.
    for (_, i) in f.all_insts() {
        s.classify(f, &f.insts[i]);
    }
    s.finish(ir)
}

impl ShapeScan {
    fn note_sym(&mut self, name: &str, sp: Option<Space>) {
        let sp = sp.filter(|&s| s != Space::Generic);
        match self.sym_space.iter_mut().find(|(n, _)| n == name) {
            Some((_, s)) => {
                if s.is_none() {
                    *s = sp;
                }
            }
            None => self.sym_space.push((name.into(), sp)),
        }
    }

    /// Parameter `p`, first seen with a `width`-bit access.
    fn param(&mut self, p: u32, width: u32) -> &mut ParamInfo {
        if self.params.len() <= p as usize {
            self.params.resize(p as usize + 1, None);
        }
        self.params[p as usize].get_or_insert(ParamInfo {
            index: p,
            bytes: 0,
            width,
            kind: ParamKind::Int,
        })
    }

    fn seen_param(&mut self, p: u32) -> Option<&mut ParamInfo> {
        self.params.get_mut(p as usize)?.as_mut()
    }

    /// The defs of `data` hold (a value derived from) parameter `p`.
    fn defs_from_param(&mut self, data: &InstData, p: u32) {
        for (_, d) in data.vreg_defs() {
            self.origins[d].push(Origin::Param(p));
        }
    }

    /// One instruction's symbol references, parameter loads and symbol addresses.
    fn scan(&mut self, f: &Function, data: &InstData) {
        for o in &data.operands {
            if let OperandKind::Global { sym, sigil, .. } = o.kind {
                let name = f.sym(sym);
                if sigil != Sigil::AmpQuoted
                    && param_index(name).is_none()
                    && retval_index(name).is_none()
                {
                    self.note_sym(name, None);
                }
            }
        }
        let Opcode::Known(op) = data.opcode else {
            return;
        };
        if op == Op::MOV_B64_sym {
            if let (Some(d), Some(OperandKind::Global { sym, .. })) = (
                data.vreg_defs().next(),
                explicit_uses(data).first().map(|o| o.kind),
            ) {
                let name = f.sym(sym);
                if param_index(name).is_none() {
                    self.origins[d.1].push(Origin::Sym(name.into()));
                }
            }
        }
        if op == Op::COPY {
            self.param_register_copy(f, data);
        }
        self.memory_access(f, data, op);
    }

    /// CICC's parameter registers: `COPY $rN` reads parameter N-1.
    fn param_register_copy(&mut self, f: &Function, data: &InstData) {
        let src = explicit_uses(data).first().and_then(|o| o.get_reg());
        let Some(crate::mir::Reg::Phys(s)) = src else {
            return;
        };
        let Some(p) = super::compile::param_register(f.sym(s)) else {
            return;
        };
        if (p as usize) >= MAX_PARAMS {
            return;
        }
        let width = data
            .vreg_defs()
            .next()
            .and_then(|(_, v)| f.vreg_class(v))
            .map_or(32, |c| c.lane_class().family().map_or(32, |x| x.bits()))
            .clamp(8, 64);
        let e = self.param(p, width);
        e.bytes = e.bytes.max(width as usize / 8);
        self.defs_from_param(data, p);
    }

    /// A load or store: a parameter load sizes its parameter; a direct access to a
    /// module variable gives the variable its space.
    fn memory_access(&mut self, f: &Function, data: &InstData, op: Op) {
        let Some((sp_idx, base_idx, off_idx, n, w_idx)) = memory_layout(op) else {
            return;
        };
        let uses = explicit_uses(data);
        let get_imm = |k: usize| uses.get(k).and_then(|o| o.imm_value());
        let space = access_space(&uses, sp_idx);
        let Some(OperandKind::Global { sym, offset, .. }) = uses.get(base_idx).map(|o| o.kind)
        else {
            return;
        };
        let name = f.sym(sym);
        if let (Some(p), Some(Space::Param)) = (param_index(name), space) {
            if p as usize >= MAX_PARAMS {
                return;
            }
            let width = get_imm(w_idx).unwrap_or(32).clamp(8, 128) as u32;
            let off = offset.saturating_add(get_imm(off_idx).unwrap_or(0));
            let end = (off.clamp(0, MAX_PARAM_BYTES as i64) as usize + n * (width as usize / 8))
                .min(MAX_PARAM_BYTES);
            let e = self.param(p, width);
            e.bytes = e.bytes.max(end);
            self.defs_from_param(data, p);
        } else if param_index(name).is_none() && retval_index(name).is_none() {
            self.note_sym(name, space);
        }
    }

    /// Propagates origins through copies, address arithmetic and PHIs.
    fn propagate(&mut self, f: &Function) {
        for _round in 0..32 {
            let mut changed = false;
            for (_, i) in f.all_insts() {
                let data = &f.insts[i];
                let Opcode::Known(op) = data.opcode else {
                    continue;
                };
                if !is_carrier(op) {
                    continue;
                }
                let mut incoming: Vec<Origin> = Vec::new();
                for (_, u) in data.vreg_uses() {
                    incoming.extend(self.origins[u].iter().cloned());
                }
                for (_, d) in data.vreg_defs() {
                    for o in &incoming {
                        if !self.origins[d].contains(o) {
                            self.origins[d].push(o.clone());
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// What the uses of one instruction tell about the origins reaching them: an
    /// address makes a parameter a pointer (and gives a variable its space), a TMA
    /// coordinate makes it an index, float arithmetic makes it a float.
    fn classify(&mut self, f: &Function, data: &InstData) {
        let Opcode::Known(op) = data.opcode else {
            return;
        };
        let float_use = is_float_consumer(f, data);
        let uses = explicit_uses(data);
        let mem = access_layout(op);
        // wgmma reads A and B through its first two operands.
        let wgmma_pointer = |k: usize| op == Op::WGMMA_M64N32K16_F32 && k < 2;
        for (k, u) in uses.iter().enumerate() {
            let Some(v) = u.vreg_of() else { continue };
            for o in self.origins[v].clone() {
                match (&o, mem) {
                    (Origin::Param(p), _) if op == Op::TMA_LOAD_2D && k == 1 => {
                        if let Some(e) = self.seen_param(*p) {
                            if e.kind == ParamKind::Int {
                                e.kind = ParamKind::Index;
                            }
                        }
                    }
                    (Origin::Param(p), Some((_, base_idx, ..)))
                        if k == base_idx || wgmma_pointer(k) =>
                    {
                        if let Some(e) = self.seen_param(*p) {
                            e.kind = ParamKind::Pointer;
                        }
                    }
                    (Origin::Sym(name), Some((sp_idx, base_idx, ..))) if k == base_idx => {
                        self.note_sym(name, access_space(&uses, sp_idx));
                    }
                    (Origin::Param(p), _)
                        if float_use && !(op == Op::TEX_UNIFIED_2D_F32_F32_R && k == 0) =>
                    {
                        if let Some(e) = self.seen_param(*p) {
                            if e.kind == ParamKind::Int && e.width <= 32 {
                                e.kind = ParamKind::Float;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// Parameters never loaded become 8-byte integers; module variables take their
    /// sizes (and spaces) from the IR's declarations, else the default size.
    fn finish(self, ir: Option<&str>) -> Shape {
        let params = self
            .params
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                p.unwrap_or(ParamInfo {
                    index: i as u32,
                    bytes: 8,
                    width: 64,
                    kind: ParamKind::Int,
                })
            })
            .collect();
        let decls = ir.map(parse_ir_globals).unwrap_or_default();
        let mut symbols: Vec<(String, Space, usize)> = decls
            .iter()
            .map(|g| (g.name.clone(), g.space, g.size.clamp(1, 1 << 20) as usize))
            .collect();
        for (name, sp) in self.sym_space {
            if !symbols.iter().any(|(n, _, _)| *n == name) {
                symbols.push((name, sp.unwrap_or(Space::Global), DEFAULT_SYMBOL_BYTES));
            }
        }
        Shape { params, symbols }
    }
}

fn random_words(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 4);
    while out.len() < n {
        let w: u32 = if rng.below(2) == 0 {
            rng.range(0, 63) as u32
        } else {
            rng.small_float().to_bits()
        };
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.truncate(n);
    out
}

fn uses_wgmma(f: &Function) -> bool {
    f.all_insts()
        .any(|(_, i)| f.insts[i].is(Op::WGMMA_M64N32K16_F32))
}

/// Random inputs for `f` from `seed` (see the module documentation). `ir` is the
/// module's embedded LLVM IR (`Module::ir`), used for the sizes and spaces of module
/// variables; without it, variables get [`DEFAULT_SYMBOL_BYTES`] in the space their uses
/// imply.
pub fn random_inputs(f: &Function, ir: Option<&str>, seed: u64) -> Inputs {
    let shape = shape(f, ir);
    let mut rng = Rng::new(seed);
    // Whole warps; whole warpgroups (128 threads) when the function uses wgmma.
    let unit = if uses_wgmma(f) { 128 } else { 32 };
    let launch = Launch {
        grid: [1 + rng.below(2) as u32, 1 + rng.below(2) as u32, 1],
        block: [unit * (1 + rng.below(2) as u32), 1, 1],
    };
    let mut params = Vec::with_capacity(shape.params.len());
    let mut buffers = Vec::new();
    for p in &shape.params {
        let bytes = p.bytes.max(p.width as usize / 8).max(1);
        let mut v = match p.kind {
            ParamKind::Pointer => {
                let base = BUFFER_BASE + BUFFER_STRIDE * buffers.len() as u64;
                buffers.push(Region {
                    name: alloc::format!("param_{}", p.index),
                    base,
                    bytes: random_words(&mut rng, BUFFER_BYTES),
                });
                base.to_le_bytes().to_vec()
            }
            ParamKind::Float if p.width == 64 => (rng.small_float() as f64).to_le_bytes().to_vec(),
            ParamKind::Float => rng.small_float().to_bits().to_le_bytes().to_vec(),
            ParamKind::Index => rng.range(0, 63).to_le_bytes().to_vec(),
            ParamKind::Int if bytes <= 8 => rng.small_int().to_le_bytes().to_vec(),
            ParamKind::Int => random_words(&mut rng, bytes),
        };
        v.resize(bytes, 0);
        params.push(v);
    }
    let symbols = shape
        .symbols
        .iter()
        .map(|(name, space, size)| Symbol {
            name: name.clone(),
            space: *space,
            bytes: match space {
                Space::Global | Space::Const | Space::Generic => random_words(&mut rng, *size),
                _ => vec![0; *size],
            },
        })
        .collect();
    Inputs {
        launch,
        params,
        buffers,
        symbols,
    }
}
