//! The opcode descriptor table.
//!
//! Holds the target-independent pseudos every pass reasons about and every NVPTX opcode
//! that appears in the `llc-22` corpus, plus the CICC-era move families the NVPTX
//! coalescer classifies. Each entry records its fixed number of explicit defs,
//! commutable operands, copy family and side effects. An opcode that is not in the table
//! (llc-22's `anonymous_NNNNN`, another target's opcodes) still parses and flows through
//! every pass as [`Opcode::Other`], treated conservatively: side effects, no semantics.

use crate::entity::Sym;
use serde::{Deserialize, Serialize};

/// Copy family, as the NVPTX coalescer's opcode → copy-type mapping sorts moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum CopyFamily {
    /// Not a copy.
    None,
    /// Generic `COPY` (the generic RegisterCoalescer's only input).
    Copy,
    /// Type-preserving move inside one class (the spec's families 440–443).
    Move,
    /// Move between two classes of one width: a bit cast; never coalesced.
    CrossClass,
    /// Moves that pack or unpack a wide register pair (tensor-core paths).
    WidePair,
    /// Copies through `.param` space at call and kernel boundaries.
    Param,
}

/// Descriptor flag bits.
pub mod flag {
    pub const PSEUDO: u16 = 1 << 0;
    pub const TERMINATOR: u16 = 1 << 1;
    pub const BRANCH: u16 = 1 << 2;
    pub const CONDITIONAL: u16 = 1 << 3;
    pub const RETURN: u16 = 1 << 4;
    pub const MAY_LOAD: u16 = 1 << 5;
    pub const MAY_STORE: u16 = 1 << 6;
    pub const SIDE_EFFECTS: u16 = 1 << 7;
    pub const CONVERGENT: u16 = 1 << 8;
    /// The number of defs is not fixed (PHI, INLINEASM, multi-pair EXTRACT_SUBREG).
    pub const VARIADIC: u16 = 1 << 9;
    /// Reads a special register (thread/block ids): a value the interpreter supplies.
    pub const SPECIAL_REG: u16 = 1 << 10;
    pub const AS_CHEAP_AS_MOVE: u16 = 1 << 11;
}

/// One row of the table.
#[derive(Debug)]
pub struct OpcodeDesc {
    pub name: &'static str,
    /// Explicit defs when not VARIADIC.
    pub defs: u8,
    pub flags: u16,
    pub family: CopyFamily,
    /// Operand indices (defs counted) that may be swapped.
    pub commutable: Option<(u8, u8)>,
}

impl OpcodeDesc {
    pub const fn has(&self, f: u16) -> bool {
        self.flags & f != 0
    }
}

macro_rules! opcodes {
    ($($op:ident: $defs:expr, $flags:expr, $fam:ident, $comm:expr;)*) => {
        /// Every opcode the table knows, named as LLVM prints it.
        #[allow(non_camel_case_types)]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[repr(u16)]
        pub enum Op { $($op,)* }

        /// Descriptors in `Op` order.
        pub static OPCODES: &[OpcodeDesc] = &[
            $(OpcodeDesc { name: stringify!($op), defs: $defs, flags: $flags, family: CopyFamily::$fam, commutable: $comm },)*
        ];

        const ALL_OPS: &[Op] = &[$(Op::$op,)*];
    };
}

use flag::*;
const N: Option<(u8, u8)> = None;
const C12: Option<(u8, u8)> = Some((1, 2));
const LD: u16 = MAY_LOAD;
const ST: u16 = MAY_STORE;
const BR: u16 = TERMINATOR | BRANCH;
const SREG: u16 = SPECIAL_REG;
const MOV: u16 = AS_CHEAP_AS_MOVE;
const VAR: u16 = VARIADIC | PSEUDO;

opcodes! {
    // Target-independent pseudos.
    COPY: 1, PSEUDO | MOV, Copy, N;
    PHI: 1, VAR, None, N;
    REG_SEQUENCE: 1, PSEUDO, None, N;
    INSERT_SUBREG: 1, PSEUDO, None, N;
    EXTRACT_SUBREG: 1, VAR, None, N;
    SUBREG_TO_REG: 1, PSEUDO, None, N;
    IMPLICIT_DEF: 1, PSEUDO | MOV, None, N;
    INLINEASM: 0, VAR | SIDE_EFFECTS, None, N;
    KILL: 0, VAR, None, N;
    // Special nodes the emitter turns into pseudos: a label, frame-slot lifetime
    // markers and a profiling probe (spec: ISD 0x0F, 0x1C, 0x2B).
    EH_LABEL: 0, PSEUDO | SIDE_EFFECTS, None, N;
    LIFETIME_START: 0, PSEUDO | SIDE_EFFECTS, None, N;
    LIFETIME_END: 0, PSEUDO | SIDE_EFFECTS, None, N;
    PSEUDO_PROBE: 0, PSEUDO | SIDE_EFFECTS, None, N;
    // Control flow.
    GOTO: 0, BR, None, N;
    CBranch: 0, BR | CONDITIONAL, None, N;
    CBranchOther: 0, BR | CONDITIONAL, None, N;
    Return: 0, TERMINATOR | RETURN, None, N;
    // Immediate and symbol moves.
    MOV_B1_i: 1, MOV, None, N;
    MOV_B16_i: 1, MOV, None, N;
    MOV_B32_i: 1, MOV, None, N;
    MOV_B64_i: 1, MOV, None, N;
    MOV_F32_i: 1, MOV, None, N;
    MOV_F64_i: 1, MOV, None, N;
    MOV_B64_sym: 1, MOV, None, N;
    // Register moves, CICC-era families (the NVPTX coalescer's input).
    IMOV1rr: 1, MOV, Move, N;
    IMOV16rr: 1, MOV, Move, N;
    IMOV32rr: 1, MOV, Move, N;
    IMOV64rr: 1, MOV, Move, N;
    FMOV16rr: 1, MOV, Move, N;
    FMOV32rr: 1, MOV, Move, N;
    FMOV64rr: 1, MOV, Move, N;
    MOV_B32_r: 1, MOV, Move, N;
    MOV_B64_r: 1, MOV, Move, N;
    BITCONVERT_32_I2F: 1, MOV, CrossClass, N;
    BITCONVERT_32_F2I: 1, MOV, CrossClass, N;
    BITCONVERT_64_I2F: 1, MOV, CrossClass, N;
    BITCONVERT_64_F2I: 1, MOV, CrossClass, N;
    V2I32toI64: 1, MOV, WidePair, N;
    I64toV2I32: 2, MOV, WidePair, N;
    V2I64toI128: 1, MOV, WidePair, N;
    I128toV2I64: 2, MOV, WidePair, N;
    I32toV2I16: 2, MOV, WidePair, N;
    V2I16toI32: 1, MOV, WidePair, N;
    LoadParamMemI32: 1, LD, Param, N;
    LoadParamMemI64: 1, LD, Param, N;
    LoadParamMemF32: 1, LD, Param, N;
    StoreParamI32: 0, ST, Param, N;
    StoreParamF32: 0, ST, Param, N;
    StoreRetvalI32: 0, ST, Param, N;
    StoreRetvalF32: 0, ST, Param, N;
    // Special registers.
    INT_PTX_SREG_TID_x: 1, SREG, None, N;
    INT_PTX_SREG_TID_y: 1, SREG, None, N;
    INT_PTX_SREG_NTID_x: 1, SREG, None, N;
    INT_PTX_SREG_CTAID_x: 1, SREG, None, N;
    INT_PTX_SREG_CTAID_y: 1, SREG, None, N;
    INT_PTX_SREG_NCTAID_x: 1, SREG, None, N;
    INT_PTX_SREG_LANEID: 1, SREG, None, N;
    // Memory.
    LD_i32: 1, LD, None, N;
    LD_i64: 1, LD, None, N;
    LD_f32: 1, LD, None, N;
    ST_i32: 0, ST, None, N;
    ST_i64: 0, ST, None, N;
    LDV_i32_v2: 2, LD, None, N;
    LDV_i32_v4: 4, LD, None, N;
    STV_i32_v4: 0, ST, None, N;
    LD_GLOBAL_NC_i32: 1, LD, None, N;
    LD_GLOBAL_NC_v4i32: 4, LD, None, N;
    LD_GLOBAL_NC_v2i64: 2, LD, None, N;
    cvta_to_global_64: 1, 0, None, N;
    BARRIER_CTA_SYNC_ALIGNED_ALL_i: 0, SIDE_EFFECTS | CONVERGENT, None, N;
    // Integer arithmetic.
    ADD32rr: 1, 0, None, C12;
    ADD32ri: 1, 0, None, N;
    ADD64rr: 1, 0, None, C12;
    ADD64ri: 1, 0, None, N;
    SUB32rr: 1, 0, None, N;
    MULT32rr: 1, 0, None, C12;
    MULT32ri: 1, 0, None, N;
    MUL_WIDEu32_ri: 1, 0, None, N;
    MUL_WIDEs32_ri: 1, 0, None, N;
    MAD_LO_S32rrr: 1, 0, None, C12;
    XOR_b32rr: 1, 0, None, C12;
    AND_b32rr: 1, 0, None, C12;
    OR_b32rr: 1, 0, None, C12;
    OR_b64rr: 1, 0, None, C12;
    SRL32_ri: 1, 0, None, N;
    SHL32_ri: 1, 0, None, N;
    SHL64_ri: 1, 0, None, N;
    SETP_i32rr: 1, 0, None, N;
    SETP_i32ri: 1, 0, None, N;
    SETP_f32rr: 1, 0, None, N;
    SELP_b32rr: 1, 0, None, N;
    // Floating point.
    FADDf32rr: 1, 0, None, C12;
    FADDf32ri: 1, 0, None, N;
    FADD_rnf32rr: 1, 0, None, C12;
    FADD_rnf32ri: 1, 0, None, N;
    FSUBf32rr: 1, 0, None, N;
    FSUB_rnf32rr: 1, 0, None, N;
    FMULf32rr: 1, 0, None, C12;
    FMUL_rnf32rr: 1, 0, None, C12;
    FMUL_rnf16rr: 1, 0, None, C12;
    FADD_rnf16x2rr: 1, 0, None, C12;
    FMA_F32rrr: 1, 0, None, C12;
    FMA_F32rir: 1, 0, None, N;
    // Conversions.
    CVT_f32_s32: 1, 0, None, N;
    CVT_f32_u32: 1, 0, None, N;
    CVT_f32_s64: 1, 0, None, N;
    CVT_f32_u64: 1, 0, None, N;
    CVT_f32_f16: 1, 0, None, N;
    CVT_s32_f32: 1, 0, None, N;
    CVT_u64_u32: 1, 0, None, N;
    CVT_u32_u64: 1, 0, None, N;
    // Texture fetches (4 results; the coordinate operands follow the handle).
    TEX_UNIFIED_2D_F32_F32_R: 4, LD, None, N;
    TEX_UNIFIED_1D_S32_S32_R: 4, LD, None, N;
    // CICC-era multi-result producers: one def of a tuple class, split later by a
    // multi-pair EXTRACT_SUBREG. Operands follow each comment.
    // (handle, x, y) → float32regsx4
    TEX_2D_V4F32_F32: 1, LD, None, N;
    // (handle, x, y) → float32regsx4, and implicit-def $texpred: whether the texel was
    // resident (the emitter's glue-bundle example reads it back through a glued copy).
    TEX_2D_V4F32_F32_P: 1, LD, None, N;
    // (a, b, c) → float32regsx4: lane i = a*b + c + i (a model of one thread's fragment)
    MMA_M16N8K8_TF32: 1, CONVERGENT, None, N;
    // (a, b, acc: float32regsx4) → float32regsx4: lane i = a*b + acc[i]
    MMA_M16N8K8_TF32_ACC: 1, CONVERGENT, None, N;
    // (a, b, c) → float16x2regsx8
    WMMA_MMA_M16N16K16_F16: 1, CONVERGENT, None, N;
    // (desc_a, desc_b, scale) → float32regsx16
    WGMMA_M64N32K16_F32: 1, CONVERGENT, None, N;
    // (address, coordinate) → int32regsx2: data, completion token
    TMA_LOAD_2D: 1, LD, None, N;
    // (address) → int32regsx2: data, completion token
    CP_ASYNC_CA_SHARED: 1, LD, None, N;
    // Warp shuffle (value, lane, clamp, mask).
    SHFL_SYNC_IDX_i32: 1, CONVERGENT, None, N;
    SHFL_SYNC_DOWN_i32: 1, CONVERGENT, None, N;
}

/// An instruction's opcode: a table entry, or a name the table does not know.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Opcode {
    Known(Op),
    /// Interned name; handled generically and conservatively.
    Other(Sym),
}

/// Descriptor used for opcodes outside the table: assume the worst.
pub static OTHER_DESC: OpcodeDesc = OpcodeDesc {
    name: "<other>",
    defs: 0,
    flags: VARIADIC | SIDE_EFFECTS | MAY_LOAD | MAY_STORE,
    family: CopyFamily::None,
    commutable: None,
};

impl Op {
    pub fn desc(self) -> &'static OpcodeDesc {
        &OPCODES[self as usize]
    }
    pub fn name(self) -> &'static str {
        self.desc().name
    }
    /// Looks a name up (binary search would need a sorted copy; the table is small).
    pub fn by_name(name: &str) -> Option<Op> {
        OPCODES
            .iter()
            .position(|d| d.name == name)
            .map(|i| ALL_OPS[i])
    }
    pub fn all() -> &'static [Op] {
        ALL_OPS
    }
}

impl Opcode {
    pub fn desc(self) -> &'static OpcodeDesc {
        match self {
            Opcode::Known(op) => op.desc(),
            Opcode::Other(_) => &OTHER_DESC,
        }
    }
    pub fn is(self, op: Op) -> bool {
        self == Opcode::Known(op)
    }
    pub fn known(self) -> Option<Op> {
        match self {
            Opcode::Known(op) => Some(op),
            Opcode::Other(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_their_own_row() {
        for &op in Op::all() {
            assert_eq!(Op::by_name(op.name()), Some(op));
        }
        assert_eq!(Op::by_name("anonymous_18514"), None);
    }

    #[test]
    fn commutable_pairs_point_past_the_defs() {
        for &op in Op::all() {
            if let Some((a, b)) = op.desc().commutable {
                assert!(a >= op.desc().defs && b > a, "{}", op.name());
            }
        }
    }
}
