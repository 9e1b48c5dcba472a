//! Knobs: every tunable the spec pages name, with the spec's default, a value type, a
//! one-line help text and the page it comes from.
//!
//! ```text
//!  "twoaddr-reschedule=false" ──Knobs::set_from_str──▶ Knobs { values: [Value; KNOB_COUNT] }
//!  Knobs ──to_query──▶ "sm=sm_80,twoaddr-reschedule=false"   (non-default knobs only, table order)
//!  passes read typed values: knobs.flag(Knob::TerminalRule), knobs.sm(), knobs.limit(..)
//! ```
//!
//! Spelling of names: the LLVM (cicc) knobs keep their `cl::opt` names; the ptxas
//! numbered options are `ptxas-option-N` (N the spec's option number), and the decoded
//! name the spec gives (`MergeEquivalentConditionalFlowBudget`) is accepted as an alias;
//! `sm` and `ptxas-opt-level` are ours.
//!
//! Where the spec gives no fixed default (`subtarget`, `runtime`, `config`, `--`), the
//! table records the spec's words in [`KnobInfo::spec_default`] and picks a value that
//! reproduces `llc-22`'s NVPTX behaviour; the help text says which.
//!
//! Invariants: [`KNOBS`] is in [`Knob`] order; [`Knobs::to_query`] is stable (table order,
//! only non-default values, canonical spelling) and [`Knobs::from_query`] reads it back to
//! an equal value.

use crate::stages::Stage;
use alloc::format;
use alloc::string::{String, ToString};
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// The value type of a knob.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KnobKind {
    /// `true` / `false` (`1` / `0` accepted).
    Bool,
    /// A non-negative integer up to `u32::MAX`.
    Uint,
    /// A finite, non-negative real number.
    Real,
    /// A non-negative integer, or `unlimited` (no cap).
    Limit,
    /// An integer, or `unset` (the option is absent).
    OptInt,
    /// `subtarget` (the target decides), `true` or `false`.
    Tristate,
    /// An SM architecture: `sm_90` or the spec's encoded number (`32768`, `0x8000`).
    Sm,
    /// An optimization level 0..=3 (`O3` accepted).
    OptLevel,
}

impl KnobKind {
    /// What a valid value looks like, for error messages and help.
    pub fn expected(self) -> String {
        match self {
            KnobKind::Bool => "`true` or `false`".into(),
            KnobKind::Uint => format!("an integer from 0 to {}", u32::MAX),
            KnobKind::Real => "a finite number >= 0, such as 0.25".into(),
            KnobKind::Limit => "`unlimited` or an integer >= 0".into(),
            KnobKind::OptInt => "`unset` or an integer".into(),
            KnobKind::Tristate => "`subtarget`, `true` or `false`".into(),
            KnobKind::Sm => {
                let mut s = String::from("`target` (the file's `.target`), one of ");
                for (i, (name, _)) in SM_TARGETS.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    s.push_str(name);
                }
                s.push_str(", or an encoded value (generation << 12) | variant such as 32768");
                s
            }
            KnobKind::OptLevel => "an optimization level 0, 1, 2 or 3 (or O0..O3)".into(),
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            KnobKind::Bool => "bool",
            KnobKind::Uint => "int",
            KnobKind::Real => "float",
            KnobKind::Limit => "limit",
            KnobKind::OptInt => "optional-int",
            KnobKind::Tristate => "tristate",
            KnobKind::Sm => "sm",
            KnobKind::OptLevel => "opt-level",
        }
    }
}

/// A knob's value. Which variants a knob takes is fixed by its [`KnobKind`].
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Real(f64),
    /// `unlimited` (Limit), `unset` (OptInt), `subtarget` (Tristate).
    Auto,
    /// The encoded SM value `(generation << 12) | variant`.
    Sm(u32),
    OptLevel(u8),
}

/// The SM names the spec's encoding table lists, with their encoded values
/// (`spec/general-optimize-ptxas.txt`, "SM Version Encoding and the 20479 Boundary").
/// The mapping is a table, not a formula on the name: sm_80 is generation 7, variant 1.
pub const SM_TABLE: [(&str, u32); 8] = [
    ("sm_30", 0x3000),
    ("sm_50", 0x4001),
    ("sm_50a", 0x5001),
    ("sm_60", 0x6000),
    ("sm_70", 0x7000),
    ("sm_80", 0x7001),
    ("sm_90", 0x8000),
    ("sm_100", 0x9000),
];

/// Every target name ptxas 13.0.88 accepts in `.target` (checked by assembling a
/// kernel for each; `sm_50a` is the spec's name, not a real target), with the encoded
/// value it runs as. A name the spec's table lists has that value; any other takes the
/// value of the listed architecture of its family at or below it (sm_52 → sm_50's,
/// sm_75 → sm_70's, sm_86..sm_89 → sm_80's, sm_90a → sm_90's, sm_103..sm_121 →
/// sm_100's); targets older than sm_30 take sm_30's, the oldest listed. The `a` / `f`
/// suffixes do not change the value.
pub const SM_TARGETS: [(&str, u32); 42] = [
    ("sm_10", 0x3000),
    ("sm_11", 0x3000),
    ("sm_12", 0x3000),
    ("sm_13", 0x3000),
    ("sm_20", 0x3000),
    ("sm_21", 0x3000),
    ("sm_30", 0x3000),
    ("sm_32", 0x3000),
    ("sm_35", 0x3000),
    ("sm_37", 0x3000),
    ("sm_50", 0x4001),
    ("sm_50a", 0x5001),
    ("sm_52", 0x4001),
    ("sm_53", 0x4001),
    ("sm_60", 0x6000),
    ("sm_61", 0x6000),
    ("sm_62", 0x6000),
    ("sm_70", 0x7000),
    ("sm_72", 0x7000),
    ("sm_75", 0x7000),
    ("sm_80", 0x7001),
    ("sm_86", 0x7001),
    ("sm_87", 0x7001),
    ("sm_88", 0x7001),
    ("sm_89", 0x7001),
    ("sm_90", 0x8000),
    ("sm_90a", 0x8000),
    ("sm_100", 0x9000),
    ("sm_100a", 0x9000),
    ("sm_100f", 0x9000),
    ("sm_103", 0x9000),
    ("sm_103a", 0x9000),
    ("sm_103f", 0x9000),
    ("sm_110", 0x9000),
    ("sm_110a", 0x9000),
    ("sm_110f", 0x9000),
    ("sm_120", 0x9000),
    ("sm_120a", 0x9000),
    ("sm_120f", 0x9000),
    ("sm_121", 0x9000),
    ("sm_121a", 0x9000),
    ("sm_121f", 0x9000),
];

/// A named target's value: its encoding, plus (above bit 16) its row in
/// [`SM_TARGETS`] + 1 when the spec's table does not list the name, so that the
/// knob prints back the name it was given.
fn sm_target_value(name: &str) -> Option<u32> {
    let k = SM_TARGETS.iter().position(|e| e.0 == name)?;
    let enc = SM_TARGETS[k].1;
    Some(if SM_TABLE.iter().any(|e| e.0 == name) {
        enc
    } else {
        enc | ((k as u32 + 1) << 16)
    })
}

/// The largest encoded value of generation 4 and below (`(5 << 12) - 1`): the spec's
/// fold-eligibility boundary.
pub const SM_LEGACY_MAX: u32 = 20479;

/// Encodes `generation` and `variant` as the spec's profile field does.
pub const fn encode_sm(generation: u32, variant: u32) -> u32 {
    (generation << 12) | (variant & 0xfff)
}

/// Splits an encoded SM value into (generation, variant).
pub const fn decode_sm(encoded: u32) -> (u32, u32) {
    (encoded >> 12, encoded & 0xfff)
}

/// The table name of an encoded SM value, if it has one.
pub fn sm_name(encoded: u32) -> Option<&'static str> {
    SM_TABLE.iter().find(|e| e.1 == encoded).map(|e| e.0)
}

macro_rules! knobs {
    ($($k:ident,)*) => {
        /// Every knob, in table order.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Knob { $($k,)* }
        /// Number of knobs.
        pub const KNOB_COUNT: usize = [$(Knob::$k,)*].len();
        const ALL_KNOBS: [Knob; KNOB_COUNT] = [$(Knob::$k,)*];
    };
}

knobs! {
    TwoaddrReschedule,
    DataflowEdgeLimit,
    Optnone,
    CssaCoalesce,
    CssaVerbosity,
    DumpBeforeCssa,
    Usedessa,
    PhiElimSplitAllCriticalEdges,
    DisableNvptxRequireStructuredCfg,
    JoinLiveintervals,
    JoinSplitedges,
    JoinGlobalcopies,
    TerminalRule,
    VerifyCoalescing,
    LargeIntervalSizeThreshold,
    LargeIntervalFreqThreshold,
    LateRematUpdateThreshold,
    CopyLimit,
    CoalesceLimit,
    BlockFrequency,
    Sm,
    PtxasOptLevel,
    PtxasOption31,
    PtxasOption135,
    PtxasOption214,
    PtxasOption231,
    PtxasOption461,
    PtxasOption464,
    PtxasOption474,
    PtxasOption487,
    PtxasOption499,
    PtxasOption605,
    LimitFoldFp,
    ConvertMemoryToRegisterOrUniform,
}

/// What the table knows about one knob.
#[derive(Debug)]
pub struct KnobInfo {
    pub knob: Knob,
    /// Canonical name (CLI `--knob NAME=VALUE`, permalinks, UI).
    pub name: &'static str,
    /// Another accepted spelling (the ptxas option's decoded name).
    pub alias: Option<&'static str>,
    pub kind: KnobKind,
    pub default: Value,
    /// The default as the spec page states it (`true`, `100`, `subtarget`, `unset`, ...).
    pub spec_default: &'static str,
    /// One line, our own words.
    pub help: &'static str,
    /// Spec page and section.
    pub spec: &'static str,
    /// Stages that read it.
    pub stages: &'static [Stage],
}

const TWO_ADDR: &str = "spec/two-address-cicc.txt, Knobs";
const PHI_ELIM: &str =
    "LLVM PHIElimination and NVPTXTargetMachine (llc-22 22.1.8); no CICC spec page";
const COALESCE: &str = "spec/register-coalescing-cicc.txt, Knobs and Thresholds Summary";
const GENOPT: &str = "spec/general-optimize-ptxas.txt, Knobs and Options";

const S_TWO: &[Stage] = &[Stage::TwoAddress];
const S_RC: &[Stage] = &[Stage::RegisterCoalescer];
const S_NV: &[Stage] = &[Stage::NvptxCoalescer];
const S_PHI: &[Stage] = &[Stage::PhiElimination];
const S_ALL_GO: &[Stage] = &crate::stages::GENERAL_OPTIMIZE_STAGES;
const S_13: &[Stage] = &[Stage::GeneralOptimizeEarly];
const S_29: &[Stage] = &[Stage::GeneralOptimize];
const S_37: &[Stage] = &[Stage::GeneralOptimizeMid];
const S_58: &[Stage] = &[Stage::GeneralOptimizeLate];
const S_13_29_37: &[Stage] = &[
    Stage::GeneralOptimizeEarly,
    Stage::GeneralOptimize,
    Stage::GeneralOptimizeMid,
];

#[allow(clippy::too_many_arguments)]
const fn k(
    knob: Knob,
    name: &'static str,
    alias: Option<&'static str>,
    kind: KnobKind,
    default: Value,
    spec_default: &'static str,
    help: &'static str,
    spec: &'static str,
    stages: &'static [Stage],
) -> KnobInfo {
    KnobInfo {
        knob,
        name,
        alias,
        kind,
        default,
        spec_default,
        help,
        spec,
        stages,
    }
}

use KnobKind as K;
use Value as V;

/// Every knob, in [`Knob`] order.
pub static KNOBS: [KnobInfo; KNOB_COUNT] = [
    k(Knob::TwoaddrReschedule, "twoaddr-reschedule", None, K::Bool, V::Bool(true), "true",
        "Let two-address move an instruction next to a kill instead of inserting a COPY.", TWO_ADDR, S_TWO),
    k(Knob::DataflowEdgeLimit, "dataflow-edge-limit", None, K::Uint, V::Int(3), "3",
        "How many dataflow edges the commute-profitability search may follow.", TWO_ADDR, S_TWO),
    k(Knob::Optnone, "optnone", None, K::Bool, V::Bool(false), "false (a gate, not a knob)",
        "Treat the function as optnone / fast-compile: two-address only inserts COPYs (opt level 0).", "spec/two-address-cicc.txt, optnone/fast-compile gate", S_TWO),
    k(Knob::CssaCoalesce, "cssa-coalesce", None, K::Bool, V::Bool(false), "--",
        "Coalesce PHI operands in conventional-SSA form before PHI elimination; no spec default, off here so PHI elimination matches llc-22.", "spec/register-coalescing-cicc.txt, CSSA Coalescing", S_PHI),
    k(Knob::CssaVerbosity, "cssa-verbosity", None, K::Uint, V::Int(1), "--",
        "What the CSSA stage records: 0 one summary step, 1 a step per PHI, 2 also a step per renamed register; no spec default.", "spec/register-coalescing-cicc.txt, CSSA Coalescing", S_PHI),
    k(Knob::DumpBeforeCssa, "dump-before-cssa", None, K::Bool, V::Bool(false), "--",
        "Record the function's IR as a step before CSSA coalescing.", "spec/register-coalescing-cicc.txt, CSSA Coalescing", S_PHI),
    k(Knob::Usedessa, "usedessa", None, K::Bool, V::Bool(false), "--",
        "Leave SSA by deSSA instead: each edge's PHI values as one parallel copy straight into the PHI registers, sequentialized, wherever no PHI register is still wanted past the edge (docs/cssa.md); off so PHI elimination matches llc-22.", "spec/register-coalescing-cicc.txt, CSSA Coalescing", S_PHI),
    k(Knob::PhiElimSplitAllCriticalEdges, "phi-elim-split-all-critical-edges", None, K::Bool, V::Bool(false), "false",
        "PHI elimination splits every critical edge whose PHI source lives on past it, not only those where a split spares a copy (on NVPTX only edges into loop headers, unless disable-nvptx-require-structured-cfg).", PHI_ELIM, S_PHI),
    k(Knob::DisableNvptxRequireStructuredCfg, "disable-nvptx-require-structured-cfg", None, K::Bool, V::Bool(false), "false",
        "Lift NVPTX's structured-CFG requirement, under which PHI elimination may split only edges into loop headers (llc-22's own flag).", PHI_ELIM, S_PHI),
    k(Knob::JoinLiveintervals, "join-liveintervals", None, K::Bool, V::Bool(true), "true",
        "Master switch of the generic register coalescer.", COALESCE, S_RC),
    k(Knob::JoinSplitedges, "join-splitedges", None, K::Tristate, V::Auto, "subtarget",
        "Also join copies sitting on split critical edges; `subtarget` means off on NVPTX.", COALESCE, S_RC),
    k(Knob::JoinGlobalcopies, "join-globalcopies", None, K::Tristate, V::Auto, "subtarget",
        "Join copies whose ends live in different blocks in a separate, later round; `subtarget` means off on NVPTX (no machine scheduler).", COALESCE, S_RC),
    k(Knob::TerminalRule, "terminal-rule", None, K::Bool, V::Bool(true), "true",
        "Apply the terminal rule: a copy whose destination has no other copy partner is joined last.", COALESCE, S_RC),
    k(Knob::VerifyCoalescing, "verify-coalescing", None, K::Bool, V::Bool(false), "false",
        "Run the verifier right before and after the generic coalescer.", COALESCE, S_RC),
    k(Knob::LargeIntervalSizeThreshold, "large-interval-size-threshold", None, K::Uint, V::Int(100), "100",
        "An interval with this many value numbers or more counts as large.", COALESCE, S_RC),
    k(Knob::LargeIntervalFreqThreshold, "large-interval-freq-threshold", None, K::Uint, V::Int(256), "256",
        "After this many join attempts a large interval is left alone (every later attempt fails).", COALESCE, S_RC),
    k(Knob::LateRematUpdateThreshold, "late-remat-update-threshold", None, K::Uint, V::Int(100), "100",
        "With this many copy uses or more left after a rematerialization, the source's interval update waits until all blocks are walked.", COALESCE, S_RC),
    k(Knob::CopyLimit, "copy-limit", None, K::Limit, V::Auto, "runtime",
        "Most copies the NVPTX coalescer looks at; set by the caller at run time, default no cap (0 also means none).", COALESCE, S_NV),
    k(Knob::CoalesceLimit, "coalesce-limit", None, K::Limit, V::Auto, "runtime",
        "Most successful joins before the NVPTX coalescer stops; default no cap (0 also means none).", COALESCE, S_NV),
    k(Knob::BlockFrequency, "block-frequency", None, K::Bool, V::Bool(false), "config",
        "Weight NVPTX coalescer candidates by how hot their block is; a pass-config flag, off by default here.", "spec/register-coalescing-cicc.txt, Priority and Weight System", S_NV),
    k(Knob::Sm, "sm", None, K::Sm, V::Auto, "target",
        "Target architecture, stored as the spec's (generation << 12) | variant; 20479 is the legacy fold boundary. `target` (the default) takes the PTX file's `.target`, sm_90 when it names none.", "spec/general-optimize-ptxas.txt, SM Version Encoding and the 20479 Boundary", S_ALL_GO),
    k(Knob::PtxasOptLevel, "ptxas-opt-level", None, K::OptLevel, V::OptLevel(3), "3 (ptxas -O3)",
        "The ptxas optimization level the GeneralOptimize gates read (sub_7DDB50); the page also calls that value a function count, we model the opt level.", GENOPT, S_ALL_GO),
    k(Knob::PtxasOption31, "ptxas-option-31", Some("AllowReassociateCSE"), K::OptInt, V::Auto, "unset",
        "Phase 58 architecture gate; a value of 1 takes the extended path.", GENOPT, S_58),
    k(Knob::PtxasOption135, "ptxas-option-135", Some("ConvertMemoryToRegIndexedSizeLimit"), K::OptInt, V::Auto, "unset",
        "When set, replaces phase 37's convergence threshold (otherwise option 474's value).", GENOPT, S_37),
    k(Knob::PtxasOption214, "ptxas-option-214", Some("DisableMergeEquivalentConditionalFlow"), K::Bool, V::Bool(false), "false",
        "Skip phase 13 (GeneralOptimizeEarly) entirely.", GENOPT, S_13),
    k(Knob::PtxasOption231, "ptxas-option-231", Some("DisableRedundantBarrierRemoval"), K::Bool, V::Bool(false), "false",
        "Skip phase 29 (GeneralOptimize), keeping its input for inspection.", GENOPT, S_29),
    k(Knob::PtxasOption461, "ptxas-option-461", Some("MembarFlowControl"), K::OptInt, V::Auto, "unset",
        "Second gate of phase 29 (memory-barrier flow analysis); unset lets the phase run.", GENOPT, S_29),
    k(Knob::PtxasOption464, "ptxas-option-464", Some("MergeEquivalentConditionalFlowBudget"), K::Limit, V::Auto, "unset (unbounded)",
        "Iteration budget of the per-block fixed-point loops; unlimited runs to convergence.", GENOPT, S_13_29_37),
    k(Knob::PtxasOption474, "ptxas-option-474", Some("MovWeightForConvertMemToReg"), K::Real, V::Real(0.25), "0.25",
        "Phase 37: cost of a fold on a cost-exempt opcode and the convergence threshold.", GENOPT, S_37),
    k(Knob::PtxasOption487, "ptxas-option-487", None, K::Bool, V::Bool(true), "enabled",
        "Master switch of GeneralOptimize phases 13, 29 and 37.", GENOPT, S_13_29_37),
    k(Knob::PtxasOption499, "ptxas-option-499", Some("OptBudget"), K::Bool, V::Bool(true), "enabled (pass-through)",
        "Guard of the opt-level accessor; off caps every opt-level gate at O1.", GENOPT, S_ALL_GO),
    k(Knob::PtxasOption605, "ptxas-option-605", Some("ReassociateCSEWindow"), K::Bool, V::Bool(false), "false",
        "Phase 58: match only entries already in the six-slot buffer, add no new ones.", GENOPT, S_58),
    k(Knob::LimitFoldFp, "limit-fold-fp", None, K::Bool, V::Bool(false), "false",
        "Send float operands through the conservative, predicate-checked fold path (limits FP folding).", "spec/general-optimize-ptxas.txt, The limit-fold-fp Knob", S_37),
    k(Knob::ConvertMemoryToRegisterOrUniform, "convert-memory-to-register-or-uniform", Some("ConvertMemoryToRegisterOrUniform"), K::Bool, V::Bool(true), "true",
        "Phase 37's named-phase gate; false is ptxas' --no-phase ConvertMemoryToRegisterOrUniform and skips the phase.", GENOPT, S_37),
];

impl Knob {
    pub fn info(self) -> &'static KnobInfo {
        &KNOBS[self as usize]
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Every knob in table order.
    pub fn all() -> impl Iterator<Item = Knob> {
        ALL_KNOBS.iter().copied()
    }

    /// Looks a knob up by canonical name or alias.
    pub fn by_name(name: &str) -> Option<Knob> {
        KNOBS
            .iter()
            .find(|i| i.name == name || i.alias == Some(name))
            .map(|i| i.knob)
    }
}

/// Why a `NAME=VALUE` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KnobError {
    /// No `=` in the text.
    MissingValue(String),
    UnknownName(String),
    BadValue {
        name: &'static str,
        value: String,
        expected: String,
    },
}

impl fmt::Display for KnobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnobError::MissingValue(t) => {
                write!(f, "expected NAME=VALUE, found `{t}`")
            }
            KnobError::UnknownName(n) => {
                write!(f, "unknown knob `{n}`; valid knobs: ")?;
                for (i, info) in KNOBS.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(info.name)?;
                }
                Ok(())
            }
            KnobError::BadValue {
                name,
                value,
                expected,
            } => write!(
                f,
                "bad value `{value}` for knob `{name}`; expected {expected}"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for KnobError {}

/// Parses `text` as a value of `kind`.
pub fn parse_value(kind: KnobKind, text: &str) -> Option<Value> {
    let t = text.trim();
    let parse_bool = |t: &str| match t {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    };
    match kind {
        KnobKind::Bool => parse_bool(t).map(Value::Bool),
        KnobKind::Uint => t
            .parse::<u32>()
            .ok()
            .filter(|_| !t.starts_with('+'))
            .map(|v| Value::Int(v.into())),
        KnobKind::Real => t
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0 && !t.starts_with('+'))
            .map(|v| Value::Real(if v == 0.0 { 0.0 } else { v })),
        KnobKind::Limit => match t {
            "unlimited" => Some(Value::Auto),
            _ => t
                .parse::<u32>()
                .ok()
                .filter(|_| !t.starts_with('+'))
                .map(|v| Value::Int(v.into())),
        },
        KnobKind::OptInt => match t {
            "unset" => Some(Value::Auto),
            _ => t
                .parse::<i32>()
                .ok()
                .filter(|_| !t.starts_with('+'))
                .map(|v| Value::Int(v.into())),
        },
        KnobKind::Tristate => match t {
            "subtarget" => Some(Value::Auto),
            _ => parse_bool(t).map(Value::Bool),
        },
        KnobKind::Sm => {
            if t == "target" {
                return Some(Value::Auto);
            }
            if let Some(v) = sm_target_value(t) {
                return Some(Value::Sm(v));
            }
            let n = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) => u32::from_str_radix(h, 16).ok(),
                None if t.bytes().all(|b| b.is_ascii_digit()) => t.parse::<u32>().ok(),
                None => None,
            }?;
            // Generations 1..=15, variant 0..=0xfff: a 16-bit profile value.
            let (generation, _) = decode_sm(n);
            ((1..=15).contains(&generation) && n <= 0xffff).then_some(Value::Sm(n))
        }
        KnobKind::OptLevel => {
            let d = t.strip_prefix('O').unwrap_or(t);
            match d {
                "0" | "1" | "2" | "3" => Some(Value::OptLevel(d.as_bytes()[0] - b'0')),
                _ => None,
            }
        }
    }
}

/// Canonical text of a value (what [`parse_value`] reads back to the same value).
pub fn format_value(kind: KnobKind, v: Value) -> String {
    match (kind, v) {
        (_, Value::Bool(b)) => if b { "true" } else { "false" }.into(),
        (_, Value::Int(i)) => i.to_string(),
        (_, Value::Real(r)) => {
            let s = format!("{r}");
            s
        }
        (KnobKind::Limit, Value::Auto) => "unlimited".into(),
        (KnobKind::OptInt, Value::Auto) => "unset".into(),
        (KnobKind::Sm, Value::Auto) => "target".into(),
        (_, Value::Auto) => "subtarget".into(),
        (_, Value::Sm(n)) if n >> 16 != 0 => SM_TARGETS
            .get((n >> 16) as usize - 1)
            .map_or_else(|| (n & 0xffff).to_string(), |e| e.0.into()),
        (_, Value::Sm(n)) => match sm_name(n) {
            Some(name) => name.into(),
            None => n.to_string(),
        },
        (_, Value::OptLevel(l)) => l.to_string(),
    }
}

/// A full set of knob values.
#[derive(Clone, Debug, PartialEq)]
pub struct Knobs {
    values: [Value; KNOB_COUNT],
}

impl Default for Knobs {
    fn default() -> Self {
        let mut values = [Value::Auto; KNOB_COUNT];
        for (v, info) in values.iter_mut().zip(KNOBS.iter()) {
            *v = info.default;
        }
        Knobs { values }
    }
}

impl Knobs {
    pub fn get(&self, k: Knob) -> Value {
        self.values[k as usize]
    }

    /// Sets a knob; the value must fit its kind (checked in debug builds).
    pub fn set(&mut self, k: Knob, v: Value) {
        debug_assert!(
            parse_value(k.info().kind, &format_value(k.info().kind, v)) == Some(v),
            "value {v:?} does not fit knob {}",
            k.name()
        );
        self.values[k as usize] = v;
    }

    pub fn is_default(&self, k: Knob) -> bool {
        self.get(k) == k.info().default
    }

    /// Reads `NAME=VALUE` and sets that knob.
    pub fn set_from_str(&mut self, text: &str) -> Result<Knob, KnobError> {
        let (name, value) = text
            .split_once('=')
            .ok_or_else(|| KnobError::MissingValue(text.into()))?;
        let name = name.trim();
        let knob = Knob::by_name(name).ok_or_else(|| KnobError::UnknownName(name.into()))?;
        let info = knob.info();
        let v = parse_value(info.kind, value).ok_or_else(|| KnobError::BadValue {
            name: info.name,
            value: value.into(),
            expected: info.kind.expected(),
        })?;
        self.values[knob as usize] = v;
        Ok(knob)
    }

    /// `name=value,name=value` of every non-default knob in table order; empty when all
    /// knobs have their defaults. Stable: permalinks store it.
    pub fn to_query(&self) -> String {
        let mut s = String::new();
        for k in Knob::all() {
            if !self.is_default(k) {
                if !s.is_empty() {
                    s.push(',');
                }
                s.push_str(k.name());
                s.push('=');
                s.push_str(&format_value(k.info().kind, self.get(k)));
            }
        }
        s
    }

    /// Reads what [`Knobs::to_query`] writes (knobs not named keep their defaults).
    pub fn from_query(q: &str) -> Result<Knobs, KnobError> {
        let mut k = Knobs::default();
        for part in q.split(',').filter(|p| !p.trim().is_empty()) {
            k.set_from_str(part)?;
        }
        Ok(k)
    }

    /// The non-default knobs, in table order.
    pub fn changed(&self) -> impl Iterator<Item = (Knob, Value)> + '_ {
        Knob::all()
            .filter(|&k| !self.is_default(k))
            .map(|k| (k, self.get(k)))
    }

    /// A `Bool` knob.
    pub fn flag(&self, k: Knob) -> bool {
        match self.get(k) {
            Value::Bool(b) => b,
            _ => false,
        }
    }

    /// A `Uint` knob.
    pub fn uint(&self, k: Knob) -> u32 {
        match self.get(k) {
            Value::Int(i) => i.clamp(0, u32::MAX.into()) as u32,
            _ => 0,
        }
    }

    /// A `Real` knob.
    pub fn real(&self, k: Knob) -> f64 {
        match self.get(k) {
            Value::Real(r) => r,
            _ => 0.0,
        }
    }

    /// A `Limit` knob: `None` is no cap.
    pub fn limit(&self, k: Knob) -> Option<u64> {
        match self.get(k) {
            Value::Int(i) => Some(i.max(0) as u64),
            _ => None,
        }
    }

    /// An `OptInt` knob: `None` is unset.
    pub fn opt_int(&self, k: Knob) -> Option<i64> {
        match self.get(k) {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// A `Tristate` knob: `None` lets the subtarget decide.
    pub fn tristate(&self, k: Knob) -> Option<bool> {
        match self.get(k) {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// A `Tristate` knob resolved for NVPTX, whose subtarget answers no to both
    /// `join-splitedges` and `join-globalcopies`.
    pub fn tristate_nvptx(&self, k: Knob) -> bool {
        self.tristate(k).unwrap_or(false)
    }

    /// The encoded SM value (sm_90's when the knob is `target` and no module is at
    /// hand: see [`Knobs::for_target`]).
    pub fn sm(&self) -> u32 {
        match self.get(Knob::Sm) {
            Value::Sm(v) => v & 0xffff,
            _ => 0x8000,
        }
    }

    /// These knobs for a module whose `.target` words are `target`: when `sm` is
    /// `target` (not set), it becomes the value of the module's target, if it names
    /// one ptxas knows; a value set by hand stays.
    pub fn for_target(&self, target: &[String]) -> Knobs {
        let mut k = self.clone();
        if self.get(Knob::Sm) == Value::Auto {
            if let Some(name) = target.iter().find(|w| sm_target_value(w).is_some()) {
                k.values[Knob::Sm as usize] = Value::Sm(sm_target_value(name).unwrap_or(0x8000));
            }
        }
        k
    }

    /// True for generation 4 and below (encoded value at most [`SM_LEGACY_MAX`]).
    pub fn sm_is_legacy(&self) -> bool {
        self.sm() <= SM_LEGACY_MAX
    }

    /// The ptxas opt level as the gates see it: capped at 1 when option 499 is off.
    pub fn ptxas_opt_level(&self) -> u8 {
        let l = match self.get(Knob::PtxasOptLevel) {
            Value::OptLevel(l) => l,
            _ => 3,
        };
        if self.flag(Knob::PtxasOption499) {
            l
        } else {
            l.min(1)
        }
    }
}

/// Serialized as a map of the non-default knobs, name → canonical value text.
impl Serialize for Knobs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let n = self.changed().count();
        let mut m = s.serialize_map(Some(n))?;
        for (k, v) in self.changed() {
            m.serialize_entry(k.name(), &format_value(k.info().kind, v))?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Knobs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Knobs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map of knob names to values")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Knobs, A::Error> {
                let mut k = Knobs::default();
                while let Some((name, value)) = map.next_entry::<String, String>()? {
                    k.set_from_str(&format!("{name}={value}"))
                        .map_err(de::Error::custom)?;
                }
                Ok(k)
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn table_is_in_enum_order_with_unique_names() {
        for (i, info) in KNOBS.iter().enumerate() {
            assert_eq!(info.knob as usize, i, "{} out of place", info.name);
            assert_eq!(Knob::by_name(info.name), Some(info.knob));
            if let Some(a) = info.alias {
                assert_eq!(Knob::by_name(a), Some(info.knob));
            }
            // The default is a value of the knob's kind and prints back to itself.
            let txt = format_value(info.kind, info.default);
            assert_eq!(
                parse_value(info.kind, &txt),
                Some(info.default),
                "{}",
                info.name
            );
            // A spec page, or (for LLVM's own flags no CICC page names) the LLVM source.
            assert!(
                !info.help.is_empty()
                    && (info.spec.starts_with("spec/") || info.spec.starts_with("LLVM ")),
                "{}",
                info.name
            );
        }
        let mut names: Vec<&str> = KNOBS.iter().map(|i| i.name).collect();
        names.extend(KNOBS.iter().filter_map(|i| i.alias));
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "duplicate knob spelling");
    }

    #[test]
    fn sm_takes_every_ptxas_13_target_and_defaults_to_the_file() {
        let mut k = Knobs::default();
        assert_eq!(format_value(KnobKind::Sm, k.get(Knob::Sm)), "target");
        assert_eq!(k.sm(), 0x8000, "no module at hand: sm_90");
        for (name, enc) in [
            ("sm_52", 0x4001),
            ("sm_61", 0x6000),
            ("sm_75", 0x7000),
            ("sm_86", 0x7001),
            ("sm_89", 0x7001),
            ("sm_90a", 0x8000),
            ("sm_100a", 0x9000),
            ("sm_120a", 0x9000),
            ("sm_121f", 0x9000),
            ("sm_80", 0x7001),
        ] {
            k.set_from_str(&format!("sm={name}")).unwrap();
            assert_eq!(k.sm(), enc, "{name}");
            // The name it was given prints back.
            assert_eq!(k.to_query(), format!("sm={name}"));
        }
        assert!(
            k.set_from_str("sm=sm_101").is_err(),
            "ptxas 13 has no sm_101"
        );
        // Left at `target`, the module's `.target` decides; set by hand, the knob does.
        let words = ["sm_50".to_string(), "texmode_independent".to_string()];
        assert_eq!(Knobs::default().for_target(&words).sm(), 0x4001);
        assert_eq!(
            Knobs::default().for_target(&["foo".to_string()]).sm(),
            0x8000
        );
        k.set_from_str("sm=sm_90").unwrap();
        assert_eq!(k.for_target(&words).sm(), 0x8000);
    }

    #[test]
    fn design_knob_names_all_exist() {
        for n in [
            "twoaddr-reschedule",
            "dataflow-edge-limit",
            "optnone",
            "join-liveintervals",
            "join-splitedges",
            "join-globalcopies",
            "terminal-rule",
            "verify-coalescing",
            "large-interval-size-threshold",
            "large-interval-freq-threshold",
            "late-remat-update-threshold",
            "copy-limit",
            "coalesce-limit",
            "block-frequency",
            "cssa-coalesce",
            "cssa-verbosity",
            "dump-before-cssa",
            "usedessa",
            "sm",
            "ptxas-opt-level",
            "ptxas-option-31",
            "ptxas-option-135",
            "ptxas-option-214",
            "ptxas-option-231",
            "ptxas-option-461",
            "ptxas-option-464",
            "ptxas-option-474",
            "ptxas-option-487",
            "ptxas-option-499",
            "ptxas-option-605",
            "limit-fold-fp",
        ] {
            assert!(Knob::by_name(n).is_some(), "{n}");
        }
    }

    #[test]
    fn spec_defaults() {
        let k = Knobs::default();
        assert!(k.flag(Knob::TwoaddrReschedule));
        assert_eq!(k.uint(Knob::DataflowEdgeLimit), 3);
        assert!(k.flag(Knob::JoinLiveintervals) && k.flag(Knob::TerminalRule));
        assert!(!k.flag(Knob::VerifyCoalescing));
        assert_eq!(k.uint(Knob::LargeIntervalSizeThreshold), 100);
        assert_eq!(k.uint(Knob::LargeIntervalFreqThreshold), 256);
        assert_eq!(k.uint(Knob::LateRematUpdateThreshold), 100);
        assert_eq!(k.real(Knob::PtxasOption474), 0.25);
        assert_eq!(k.limit(Knob::PtxasOption464), None);
        assert!(k.flag(Knob::PtxasOption487) && k.flag(Knob::PtxasOption499));
        assert!(!k.flag(Knob::LimitFoldFp));
        assert_eq!(k.ptxas_opt_level(), 3);
        assert_eq!(k.sm(), 32768);
        assert!(!k.tristate_nvptx(Knob::JoinGlobalcopies));
        assert_eq!(k.to_query(), "");
    }

    #[test]
    fn sm_encoding_follows_the_spec_table() {
        let mut k = Knobs::default();
        for (name, enc) in [
            ("sm_30", 12288),
            ("sm_50", 16385),
            ("sm_50a", 20481),
            ("sm_60", 24576),
            ("sm_70", 28672),
            ("sm_80", 28673),
            ("sm_90", 32768),
            ("sm_100", 36864),
        ] {
            k.set_from_str(&format!("sm={name}")).unwrap();
            assert_eq!(k.sm(), enc, "{name}");
        }
        assert_eq!(encode_sm(7, 1), 28673);
        assert_eq!(decode_sm(20481), (5, 1));
        k.set_from_str("sm=sm_50").unwrap();
        assert!(k.sm_is_legacy());
        k.set_from_str("sm=sm_50a").unwrap();
        assert!(!k.sm_is_legacy());
        k.set_from_str("sm=0x6001").unwrap();
        assert_eq!(k.sm(), 24577);
        assert_eq!(k.to_query(), "sm=24577");
        assert!(k.set_from_str("sm=sm_91").is_err());
        assert!(k.set_from_str("sm=0").is_err());
    }

    #[test]
    fn errors_list_the_valid_choices() {
        let mut k = Knobs::default();
        let e = k.set_from_str("twoaddr-reshedule=true").unwrap_err();
        let m = format!("{e}");
        assert!(m.contains("twoaddr-reshedule") && m.contains("twoaddr-reschedule"));
        assert!(m.contains("ptxas-option-605"));
        let e = k.set_from_str("terminal-rule=maybe").unwrap_err();
        assert_eq!(
            format!("{e}"),
            "bad value `maybe` for knob `terminal-rule`; expected `true` or `false`"
        );
        let e = k.set_from_str("sm=hopper").unwrap_err();
        assert!(format!("{e}").contains("sm_90"));
        assert!(matches!(
            k.set_from_str("optnone"),
            Err(KnobError::MissingValue(_))
        ));
        for bad in [
            "dataflow-edge-limit=-1",
            "dataflow-edge-limit=+3",
            "dataflow-edge-limit=99999999999",
            "ptxas-option-474=nan",
            "ptxas-option-474=inf",
            "ptxas-option-474=-0.5",
            "ptxas-opt-level=4",
            "copy-limit=none",
            "join-globalcopies=auto",
        ] {
            assert!(k.set_from_str(bad).is_err(), "{bad}");
        }
        assert_eq!(k, Knobs::default(), "failed sets change nothing");
    }

    #[test]
    fn query_round_trips_and_is_stable() {
        let mut k = Knobs::default();
        for t in [
            "limit-fold-fp=true",
            "twoaddr-reschedule=0",
            "MergeEquivalentConditionalFlowBudget=4",
            "copy-limit=12",
            "join-globalcopies=true",
            "ptxas-option-474=0.5",
            "ptxas-option-31=1",
            "ptxas-opt-level=O1",
            "sm=sm_80",
        ] {
            k.set_from_str(t).unwrap();
        }
        let q = k.to_query();
        assert_eq!(
            q,
            "twoaddr-reschedule=false,join-globalcopies=true,copy-limit=12,sm=sm_80,\
             ptxas-opt-level=1,ptxas-option-31=1,ptxas-option-464=4,ptxas-option-474=0.5,\
             limit-fold-fp=true"
        );
        assert_eq!(Knobs::from_query(&q).unwrap(), k);
        // Setting a knob back to its default removes it from the query.
        k.set_from_str("copy-limit=unlimited").unwrap();
        assert!(!k.to_query().contains("copy-limit"));
    }

    #[test]
    fn option_499_caps_the_opt_level() {
        let mut k = Knobs::default();
        k.set_from_str("ptxas-option-499=false").unwrap();
        assert_eq!(k.ptxas_opt_level(), 1);
        k.set_from_str("ptxas-opt-level=0").unwrap();
        assert_eq!(k.ptxas_opt_level(), 0);
    }

    #[test]
    fn serde_map_of_changed_knobs() {
        let mut k = Knobs::default();
        k.set_from_str("terminal-rule=false").unwrap();
        let j = serde_json::to_string(&k).unwrap();
        assert_eq!(j, r#"{"terminal-rule":"false"}"#);
        let back: Knobs = serde_json::from_str(&j).unwrap();
        assert_eq!(back, k);
        assert!(serde_json::from_str::<Knobs>(r#"{"nope":"1"}"#).is_err());
    }
}
