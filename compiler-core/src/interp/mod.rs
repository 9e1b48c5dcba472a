//! A reference interpreter for NVPTX machine IR: runs a MIR [`Function`] on concrete
//! inputs so that a pass can be checked to preserve what a kernel computes.
//!
//! ```text
//!   Function ──compile──▶ Program ──run(Inputs, Config)──▶ Outcome
//!   (MIR, any stage:       decoded code,      launch: grid × block threads
//!    SSA with PHIs,        register slots,    ┌ CTA 0 ─────────────────────────┐
//!    COPY form, after      PHI edge moves     │ warp 0: lanes 0..31  ┐ run each │
//!    two-address, ...)                        │ warp 1: lanes 32..63 ┘ thread   │
//!                                             │  until a barrier / shuffle,     │
//!                                             │  then rendezvous               │
//!                                             └─────────────────────────────────┘
//!                                             CTAs run one after another
//!   Outcome = global memory after the run (every buffer and global symbol)
//!           + each thread's return-value bytes (device functions)
//! ```
//!
//! **Execution model.** A kernel launch is `grid × block` threads; the threads of a CTA
//! form warps of 32 consecutive lanes (`%laneid = linear tid mod 32`). Each thread runs
//! on its own (its own registers, program counter and local memory) until it reaches a
//! collective instruction (a CTA barrier, a warp shuffle) or returns. When every live
//! thread is blocked, the scheduler performs the collectives that are complete: a warp
//! whose live lanes all wait at the same shuffle exchanges values; when every live thread
//! of the CTA waits at a barrier with the same id, the barrier opens. Anything else —
//! lanes of one warp at different shuffles, a barrier some live thread never reaches —
//! is a [`InterpError::Divergence`]: the interpreter never guesses. This is exact for
//! data-race-free, structured code (what compilers emit from CUDA): between collectives
//! the order in which threads run does not matter, and a fixed order (thread 0 first)
//! makes even racy programs deterministic. Threads that have returned count as arrived
//! at barriers (as on sm_70+) but cannot be read by a shuffle.
//!
//! **Values.** A register slot holds a bit pattern masked to its class width; tuple
//! registers own one slot per lane. Registers start as (and `IMPLICIT_DEF` writes) the
//! poison pattern [`POISON`] — deterministic, so a pass that drops an `IMPLICIT_DEF` or
//! reads an `undef` register still compares equal, while a pass that reads the wrong
//! register usually shows. PHIs are parallel copies performed on entry to their block
//! along the taken edge. Float arithmetic is IEEE with PTX's canonical NaN; the
//! rounding-mode and FTZ immediates of the opcodes are honoured (see [`float`]).
//!
//! **Memory.** See [`memory`]: param, global, const, shared (per CTA), local (per
//! thread) and generic windows; accesses outside every region are errors.
//!
//! **Textures** are a deterministic function of (handle, coordinates): texel `k` of a
//! fetch is taken from bits `16k..16k+15` of a SplitMix64 hash of the handle and the
//! coordinate bit patterns (`-0.0` and `0.0` are the same coordinate). f32 texels are
//! `(byte - 128) / 8`, s32 texels the sign-extended 16 bits. The asm form
//! (`tex.2d.v4.f32.f32`) and the `TEX_UNIFIED_*` opcodes agree.
//!
//! **Semantics by opcode** (operand layouts are llc-22's, see [`Program`]):
//!
//! | opcodes | meaning here |
//! |---|---|
//! | `COPY`, `IMOV*rr`, `FMOV*rr`, `MOV_B32_r`, `MOV_B64_r`, `BITCONVERT_*`, `KILL` | lane-wise copy, sub-registers and tuples included |
//! | `cvta_to_global_64` | identity (global addresses are their own generic addresses) |
//! | `PHI` | parallel copy when its block is entered along the taken edge |
//! | `REG_SEQUENCE`, `INSERT_SUBREG`, `SUBREG_TO_REG`, `EXTRACT_SUBREG` (LLVM form and the CICC N-pair form) | lane moves between tuple registers |
//! | `IMPLICIT_DEF` | the poison pattern |
//! | `MOV_B1/B16/B32/B64_i`, `MOV_F32_i`, `MOV_F64_i`, `MOV_B64_sym` | immediates (MIR float literals decoded exactly), symbol addresses |
//! | `ADD*`, `SUB32rr`, `MULT32*`, `AND/OR/XOR_*`, `SHL*_ri`, `SRL32_ri`, `MUL_WIDE{u,s}32_ri`, `MAD_LO_S32rrr` | two's complement; shift amounts clamp at the width |
//! | `SETP_i32rr/ri` | modes 0–5 `eq ne lt le gt ge` signed, 6–11 the same unsigned |
//! | `SETP_f32rr` | modes 0–5 ordered, 6–11 unordered, 12 `num`, 13 `nan`; ftz flag |
//! | `SELP_b32rr` | `p ? a : b` |
//! | `FADD/FSUB/FMUL[_rn]f32*`, `FMA_F32*`, `FMUL_rnf16rr`, `FADD_rnf16x2rr` | IEEE round-to-nearest, canonical NaN, ftz flag |
//! | `CVT_<to>_<from>` | `.rn .rz .rm .rp` / `.rni .rzi .rmi .rpi .rna`, `.ftz`, `.sat`; float→int saturates, NaN → 0 |
//! | `V2I32toI64`, `I64toV2I32`, `V2I16toI32`, `I32toV2I16`, `V2I64toI128`, `I128toV2I64` | pack / unpack, first operand lowest |
//! | `LD_*`, `LDV_*`, `LD_GLOBAL_NC_*`, `ST_*`, `STV_*` | the modelled memories; the sign immediate picks sign or zero extension |
//! | `StoreRetvalI32/F32` | the thread's `func_retval0` slot |
//! | `INT_PTX_SREG_*` | the launch (`%tid %ntid %ctaid %nctaid %laneid`) |
//! | `BARRIER_CTA_SYNC_ALIGNED_ALL_i`, `SHFL_SYNC_IDX_i32`, `SHFL_SYNC_DOWN_i32` | collectives (PTX `shfl.sync` lane/clamp/segment rules); the matrix opcodes below are collectives too (all 32 lanes of the warp, or all 128 threads of the warpgroup, at the same instruction) |
//! | `TEX_UNIFIED_2D_F32_F32_R`, `TEX_UNIFIED_1D_S32_S32_R`, `TEX_2D_V4F32_F32` | texels as above |
//! | `TEX_2D_V4F32_F32_P` | texels as above, and `$texpred` = both coordinates ≥ 0 |
//! | `EH_LABEL`, `LIFETIME_START`, `LIFETIME_END`, `PSEUDO_PROBE` | nothing |
//! | `MMA_M16N8K8_TF32 a, b, c` | warp-wide `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32` with every A register `a`, every B register `b`, every C register `c` (the PTX form's operands); see [`matrix`] |
//! | `MMA_M16N8K8_TF32_ACC a, b, acc` | the same with C the four lanes of `acc` |
//! | `WMMA_MMA_M16N16K16_F16 a, b, c` | warp-wide `wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16` (A and B registers `a`, `b`; C registers `c`, f16x2; eight f32 results); see [`matrix`] |
//! | `WGMMA_M64N32K16_F32 a, b, s` | warpgroup-wide (128 threads) `D = A·B + s`: A (64×16 f16, row-major) and B (16×32 f16, by column) read from global memory at `a` and `b`, each thread bringing its share; see [`matrix::wgmma_m64n32k16`] and `passes/ptx_emit/wgmma.rs` |
//! | `CP_ASYNC_CA_SHARED addr` | (the 32-bit word at global `addr`, 1) |
//! | `TMA_LOAD_2D addr, c` | (the 32-bit word at global `addr + 4·c`, c signed, 1) |
//! | `COPY $rN` | CICC's parameter register: kernel parameter N-1 |
//! | `INLINEASM` | the PTX subset listed under *Inline asm* below |
//! | `GOTO`, `CBranch`, `CBranchOther`, `Return` | control flow; a block without a taken branch falls through |
//! | `LoadParamMem*`, `StoreParam*` | **none**: call sequences are not modelled ([`has_semantics`]) |
//! | anything outside the table (`anonymous_NNNNN`, other targets) | **none**: `Unsupported` |
//!
//! # Inline asm
//!
//! The asm string's PTX is parsed for `add sub` (integer and `.f32`), `mul.lo mul.hi
//! mul.wide mul.f32`, `fma.rn.f32`, `and or xor not shl shr mov`,
//! `shf.{l,r}.{wrap,clamp}.b32` and `tex.{2d,1d}.v4`; `$N` is the N-th operand group
//! (defs first, then uses); a use tied to a def (`"+r"`) shares that def's register, so
//! the def starts with the use's value. Any other text is `Unsupported`.
//!
//! **Errors** are values ([`InterpError`]), never panics, on any IR the parser accepts:
//! opcodes without semantics are `Unsupported` up front (so a test can skip and list
//! the function), operand layouts that do not fit are `Malformed`, infinite loops run
//! out of [`Config::fuel`].
//!
//! **Random inputs.** [`random_inputs`] builds a launch, parameter values, pointer
//! buffers and module variables for a function from a seed, by looking at how the
//! function loads its parameters (see [`random`]). A pass test:
//!
//! ```
//! use compiler_core::{interp, mir::parse_module};
//! # let text = "---\nname: f\nbody: |\n  bb.0:\n    Return\n...\n";
//! let before = parse_module(text).unwrap();
//! let after = before.clone(); // ... run a pass on it ...
//! let agreement = interp::compare(
//!     &before.functions[0],
//!     &after.functions[0],
//!     before.ir.as_deref(),
//!     0..50,
//!     &interp::Config::default(),
//! )
//! .unwrap();
//! assert!(agreement.all_agree(), "{agreement}");
//! ```

mod asm;
mod compile;
mod error;
pub(crate) mod exec;
#[cfg(feature = "testgen")]
pub(crate) use asm::split_args;
pub(crate) use compile::NumTy;
/// The DAG evaluator: a selected DAG run on its own (the reference the emitter's MIR is
/// compared with).
pub mod dag;
pub mod float;
pub mod matrix;
pub mod memory;
/// The PTX and ORI evaluator (ptxas' side of the pipeline), on the same numeric core.
pub mod ori;
pub mod random;

pub use compile::{param_register, Program};
#[cfg(any(feature = "testkit", feature = "testgen"))]
pub use compile::has_semantics;
#[cfg(feature = "testkit")]
pub use compile::{SymbolRef, POISON};
pub use error::InterpError;
#[cfg(feature = "testkit")]
pub use error::Location;
pub use memory::{Region, Space};
pub use random::random_inputs;
#[cfg(any(feature = "testkit", feature = "testgen"))]
pub use random::Rng;

#[cfg(feature = "testkit")]
use crate::mir::Function;
use alloc::string::String;
use alloc::vec::Vec;
#[cfg(feature = "testkit")]
use core::fmt;
#[cfg(feature = "testkit")]
use core::ops::Range;

/// Grid and block dimensions of a kernel launch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// CTAs per grid (`%nctaid`).
    pub grid: [u32; 3],
    /// Threads per CTA (`%ntid`).
    pub block: [u32; 3],
}

impl Default for Launch {
    /// One warp.
    fn default() -> Self {
        Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
        }
    }
}

/// A module variable given to a run: its name (as the MIR spells it after `@`/`&`), its
/// state space and its initial bytes (shared variables start from these in every CTA).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub space: Space,
    pub bytes: Vec<u8>,
}

/// Everything a run reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    pub launch: Launch,
    /// Bytes of kernel parameter `N` (little-endian), read through `&<fn>_param_N`.
    pub params: Vec<Vec<u8>>,
    /// Global-memory buffers (pointer parameters point into these).
    pub buffers: Vec<Region>,
    /// Module variables. Symbols the function uses that are not listed get
    /// [`DEFAULT_SYMBOL_BYTES`] zero bytes in the space their uses imply.
    pub symbols: Vec<Symbol>,
}

/// Size of a module variable the inputs do not describe.
pub const DEFAULT_SYMBOL_BYTES: usize = 4096;
/// Size of each `func_retvalN` slot.
pub const RETVAL_BYTES: usize = 64;

/// Interpreter limits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Instructions executed over the whole launch before [`InterpError::OutOfFuel`].
    pub fuel: u64,
    /// Threads per CTA.
    pub max_block_threads: u32,
    /// Threads over the whole grid.
    pub max_threads: u32,
    /// Register-file bytes of one CTA (16 bytes per slot per thread).
    pub max_register_bytes: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            fuel: 1 << 22,
            max_block_threads: 1024,
            max_threads: 1 << 16,
            max_register_bytes: 1 << 28,
        }
    }
}

/// Everything a run makes observable. Two runs agree when their outcomes are equal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Every global-space region (input buffers and global variables) after the run,
    /// sorted by base address: all stores any thread made to global memory.
    pub global: Vec<Region>,
    /// Per thread, in launch order (CTA by CTA, `%tid.x` fastest), the bytes of its
    /// `func_retvalN` slots; empty when the function never writes a return value.
    pub retvals: Vec<Vec<u8>>,
}

/// An outcome with run statistics (which are not part of what a pass must preserve).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub outcome: Outcome,
    /// Instructions executed over all threads (PHI edges count one each).
    pub steps: u64,
    pub threads: u32,
}

impl<'f> Program<'f> {
    /// Runs the program on `inputs`.
    pub fn run(&self, inputs: &Inputs, config: &Config) -> Result<Run, InterpError> {
        exec::Machine::new(self, inputs, config)?.run()
    }
}

/// Compiles and runs `f` once.
#[cfg(feature = "testkit")]
pub fn run(f: &Function, inputs: &Inputs, config: &Config) -> Result<Run, InterpError> {
    Program::compile(f)?.run(inputs, config)
}

/// Why `f` cannot be interpreted, if it cannot (an opcode without semantics, malformed
/// operands). `None` means every instruction has semantics.
#[cfg(feature = "testkit")]
pub fn check(f: &Function) -> Option<InterpError> {
    Program::compile(f).err()
}

/// How two functions compared over a range of seeds.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg(feature = "testkit")]
pub struct Agreement {
    pub runs: u32,
    /// Both ran to completion with equal outcomes.
    pub agreed: u32,
    /// Both failed with the same kind of error (out of bounds, out of fuel, ...).
    pub same_error: u32,
    /// The first seed where they differ, with both results.
    pub first_difference: Option<Difference>,
    /// Number of seeds where they differ.
    pub differences: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg(feature = "testkit")]
pub struct Difference {
    pub seed: u64,
    pub before: Result<Outcome, InterpError>,
    pub after: Result<Outcome, InterpError>,
}

#[cfg(feature = "testkit")]
impl Agreement {
    /// No seed gave different results.
    #[cfg(feature = "testkit")]
    pub fn all_agree(&self) -> bool {
        self.differences == 0
    }
}

#[cfg(feature = "testkit")]
impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} runs: {} agreed, {} failed alike, {} differ",
            self.runs, self.agreed, self.same_error, self.differences
        )?;
        if let Some(d) = &self.first_difference {
            write!(f, "; first at seed {}: ", d.seed)?;
            match (&d.before, &d.after) {
                (Err(a), Err(b)) => write!(f, "before failed ({a}), after failed ({b})"),
                (Err(a), Ok(_)) => write!(f, "before failed ({a}), after ran"),
                (Ok(_), Err(b)) => write!(f, "before ran, after failed ({b})"),
                (Ok(a), Ok(b)) => write!(f, "{}", describe_difference(a, b)),
            }?;
        }
        Ok(())
    }
}

/// A one-line account of where two outcomes first differ.
pub fn describe_difference(a: &Outcome, b: &Outcome) -> String {
    use alloc::format;
    for (ra, rb) in a.global.iter().zip(&b.global) {
        if ra.base != rb.base || ra.bytes.len() != rb.bytes.len() {
            return format!("global regions differ: {} vs {}", ra.name, rb.name);
        }
        if let Some(i) = ra.bytes.iter().zip(&rb.bytes).position(|(x, y)| x != y) {
            let w = |r: &Region| {
                let s = i & !3;
                let mut v = 0u32;
                for k in 0..4 {
                    v |= (*r.bytes.get(s + k).unwrap_or(&0) as u32) << (8 * k);
                }
                v
            };
            return format!(
                "{} + {:#x}: word {:#010x} vs {:#010x}",
                ra.name,
                i & !3,
                w(ra),
                w(rb)
            );
        }
    }
    if a.global.len() != b.global.len() {
        return "different numbers of global regions".into();
    }
    for (t, (x, y)) in a.retvals.iter().zip(&b.retvals).enumerate() {
        if x != y {
            return format!("thread {t} returns {x:02x?} vs {y:02x?}");
        }
    }
    "outcomes differ".into()
}

/// Runs `before` and `after` on the random inputs of every seed in `seeds` (generated
/// from `before`, with the module's LLVM IR for variable sizes when given) and counts
/// agreements. Fails only if either function cannot be interpreted at all.
#[cfg(feature = "testkit")]
pub fn compare(
    before: &Function,
    after: &Function,
    ir: Option<&str>,
    seeds: Range<u64>,
    config: &Config,
) -> Result<Agreement, InterpError> {
    let pb = Program::compile(before)?;
    let pa = Program::compile(after)?;
    let mut ag = Agreement {
        runs: 0,
        agreed: 0,
        same_error: 0,
        first_difference: None,
        differences: 0,
    };
    for seed in seeds {
        let inputs = random_inputs(before, ir, seed);
        let rb = pb.run(&inputs, config).map(|r| r.outcome);
        let ra = pa.run(&inputs, config).map(|r| r.outcome);
        ag.runs += 1;
        match (&rb, &ra) {
            (Ok(x), Ok(y)) if x == y => ag.agreed += 1,
            (Err(x), Err(y)) if x.kind() == y.kind() => ag.same_error += 1,
            _ => {
                ag.differences += 1;
                if ag.first_difference.is_none() {
                    ag.first_difference = Some(Difference {
                        seed,
                        before: rb,
                        after: ra,
                    });
                }
            }
        }
    }
    Ok(ag)
}
