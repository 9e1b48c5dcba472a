//! The pipeline's stages: ids (used by the CLI, permalinks and the UI), order, the format
//! each stage reads, and the spec page each one comes from.
//!
//! The order of [`STAGES`] is the pipeline order; `--until` and the stage timeline rely on it.

use core::fmt;
use core::str::FromStr;
use serde::{Deserialize, Serialize};

/// One stage of the pipeline.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    InstrEmitter,
    PhiElimination,
    TwoAddress,
    RegisterCoalescer,
    NvptxCoalescer,
    PtxEmit,
    PtxLower,
    GeneralOptimizeEarly,
    GeneralOptimize,
    GeneralOptimizeMid,
    GeneralOptimizeMid2,
    GeneralOptimizeLate,
    GeneralOptimizeLate2,
    PtxOut,
}

/// The IR a stage reads or writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IrKind {
    Dag,
    Mir,
    Ptx,
    Ori,
}

impl IrKind {
    pub const fn name(self) -> &'static str {
        match self {
            IrKind::Dag => "dag",
            IrKind::Mir => "mir",
            IrKind::Ptx => "ptx",
            IrKind::Ori => "ori",
        }
    }
}

/// What the pipeline knows about a stage, for listings and the UI.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StageInfo {
    pub stage: Stage,
    /// Stable id: CLI `--until`/`--only`, permalinks, UI.
    pub id: &'static str,
    /// The ptxas phase number for the GeneralOptimize instances.
    pub phase: Option<u8>,
    pub input: IrKind,
    pub output: IrKind,
    /// One line, our own words.
    pub summary: &'static str,
    /// The page of `shared/spec/` the behaviour comes from (None: our own glue stage).
    pub spec: Option<&'static str>,
}

const fn info(
    stage: Stage,
    id: &'static str,
    phase: Option<u8>,
    io: (IrKind, IrKind),
    summary: &'static str,
    spec: Option<&'static str>,
) -> StageInfo {
    StageInfo {
        stage,
        id,
        phase,
        input: io.0,
        output: io.1,
        summary,
        spec,
    }
}

const EMITTER: Option<&str> = Some("spec/instr-emitter-cicc.txt");
const TWO_ADDR: Option<&str> = Some("spec/two-address-cicc.txt");
const COALESCE: Option<&str> = Some("spec/register-coalescing-cicc.txt");
const GENOPT: Option<&str> = Some("spec/general-optimize-ptxas.txt");

use IrKind::{Dag, Mir, Ori, Ptx};

/// Every stage, in pipeline order.
pub const STAGES: [StageInfo; 14] = [
    info(Stage::InstrEmitter, "instr-emitter", None, (Dag, Mir),
        "Turns the scheduled, selected DAG into machine instructions, glue chains first, then drops copies nobody reads.", EMITTER),
    info(Stage::PhiElimination, "phi-elimination", None, (Mir, Mir),
        "Replaces each PHI by COPYs placed at the end of its predecessor blocks, keeping kill flags current.", TWO_ADDR),
    info(Stage::TwoAddress, "two-address", None, (Mir, Mir),
        "Satisfies tied operands and splits EXTRACT_SUBREG, REG_SEQUENCE and INSERT_SUBREG into plain COPYs.", TWO_ADDR),
    info(Stage::RegisterCoalescer, "register-coalescer", None, (Mir, Mir),
        "Joins the two sides of a COPY when their live ranges never conflict, then deletes the COPY.", COALESCE),
    info(Stage::NvptxCoalescer, "nvptx-coalescer", None, (Mir, Mir),
        "NVPTX's own same-class coalescer: a min-heap of candidates checked against a red-black interval tree.", COALESCE),
    info(Stage::PtxEmit, "ptx-emit", None, (Mir, Ptx),
        "Prints the coalesced machine function as PTX text, one virtual register file per class.", None),
    info(Stage::PtxLower, "ptx-lower", None, (Ptx, Ori),
        "Reads PTX the way ptxas does and lowers it to ORI, annotating opcode classes and operand flags.", GENOPT),
    info(Stage::GeneralOptimizeEarly, "general-optimize-early", Some(13), (Ori, Ori),
        "Phase 13: matches structurally equal instruction chains and rewrites the redundant exit chain.", GENOPT),
    info(Stage::GeneralOptimize, "general-optimize", Some(29), (Ori, Ori),
        "Phase 29: forward copy propagation with operand marks, predicate simplification and dead-code removal.", GENOPT),
    info(Stage::GeneralOptimizeMid, "general-optimize-mid", Some(37), (Ori, Ori),
        "Phase 37: cost-weighted fixed point that also promotes local-memory loads and stores to registers.", GENOPT),
    info(Stage::GeneralOptimizeMid2, "general-optimize-mid2", Some(46), (Ori, Ori),
        "Phase 46: an architecture hook; a no-op on SM profiles that do not install one.", GENOPT),
    info(Stage::GeneralOptimizeLate, "general-optimize-late", Some(58), (Ori, Ori),
        "Phase 58: one pass per block over a six-slot circular buffer of MOV pairs.", GENOPT),
    info(Stage::GeneralOptimizeLate2, "general-optimize-late2", Some(65), (Ori, Ori),
        "Phase 65: the last architecture-dispatched cleanup before scheduling.", GENOPT),
    info(Stage::PtxOut, "ptx-out", None, (Ori, Ptx),
        "Prints the optimized ORI back as PTX that the real ptxas accepts.", None),
];

/// The six GeneralOptimize phases (ORI to ORI), in pipeline order: what the GenOpt
/// knobs apply to and what the playground's grid slot may show.
pub const GENERAL_OPTIMIZE_STAGES: [Stage; 6] = [
    Stage::GeneralOptimizeEarly,
    Stage::GeneralOptimize,
    Stage::GeneralOptimizeMid,
    Stage::GeneralOptimizeMid2,
    Stage::GeneralOptimizeLate,
    Stage::GeneralOptimizeLate2,
];

impl Stage {
    /// This stage's entry in [`STAGES`].
    pub fn info(self) -> &'static StageInfo {
        &STAGES[self as usize]
    }

    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// All stages in pipeline order.
    pub fn all() -> impl Iterator<Item = Stage> {
        STAGES.iter().map(|s| s.stage)
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// An id that names no stage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownStage(pub alloc::string::String);

impl fmt::Display for UnknownStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown stage `{}`; valid stages: ", self.0)?;
        for (i, s) in STAGES.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(s.id)?;
        }
        Ok(())
    }
}

impl FromStr for Stage {
    type Err = UnknownStage;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        STAGES
            .iter()
            .find(|i| i.id == s)
            .map(|i| i.stage)
            .ok_or_else(|| UnknownStage(s.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_in_enum_order_with_design_ids() {
        let ids: alloc::vec::Vec<&str> = STAGES.iter().map(|s| s.id).collect();
        assert_eq!(
            ids,
            [
                "instr-emitter",
                "phi-elimination",
                "two-address",
                "register-coalescer",
                "nvptx-coalescer",
                "ptx-emit",
                "ptx-lower",
                "general-optimize-early",
                "general-optimize",
                "general-optimize-mid",
                "general-optimize-mid2",
                "general-optimize-late",
                "general-optimize-late2",
                "ptx-out",
            ]
        );
        for (i, s) in STAGES.iter().enumerate() {
            assert_eq!(s.stage as usize, i, "{} out of place", s.id);
            assert_eq!(s.stage.id().parse::<Stage>(), Ok(s.stage));
        }
    }

    #[test]
    fn phases_are_the_six_general_optimize_instances() {
        let phases: alloc::vec::Vec<u8> = STAGES.iter().filter_map(|s| s.phase).collect();
        assert_eq!(phases, [13, 29, 37, 46, 58, 65]);
    }

    #[test]
    fn formats_chain_from_one_stage_to_the_next() {
        for w in STAGES.windows(2) {
            assert_eq!(w[0].output, w[1].input, "{} -> {}", w[0].id, w[1].id);
        }
    }

    #[test]
    fn unknown_id_lists_valid_ones() {
        let e = "two-adress".parse::<Stage>().unwrap_err();
        let msg = alloc::format!("{e}");
        assert!(msg.contains("two-adress") && msg.contains("two-address"));
    }
}
