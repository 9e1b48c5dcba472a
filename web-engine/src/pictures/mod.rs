//! Pass pictures as data: what a drawing of a stage at one step shows, built from the
//! stage's recorded steps alone (no IR replay), so every stage has one, MIR or ORI.
//!
//! ```text
//!  StageRun.steps ──▶ picture(stage, steps, functions, step) ──▶ Option<Picture>
//!     two-address          fanout::build    EXTRACT_SUBREG pairs fanning out into COPYs
//!     general-optimize-*   go_grid::build   blocks × rounds grid, cost curve, buffer, marks
//!  Session::view ──▶ coalesce::build (register-coalescer, nvptx-coalescer): live-range
//!     bars, the red-black interval tree rebuilt from its events (tree.rs), heaps, verdict
//! ```
//!
//! The layout of every picture is here too, in SVG pixels: the tree's nodes carry their
//! x/y (`coalesce`), the grid and the fan-out give theirs with `GoPicture::layout` and
//! `FanoutPicture::layout`. The page (web-app's `*_picture` components, through
//! `protocol::pictures`) only maps them to SVG elements; the model is plain data, so it
//! is tested natively against the trace it came from.

pub mod coalesce;
pub mod fanout;
pub mod go_grid;
pub mod tree;

use compiler_core::pipeline::FunctionSteps;
use compiler_core::trace::Steps;
use compiler_core::Stage;
use serde::{Deserialize, Serialize};

pub use fanout::{FanoutLayout, FanoutPair, FanoutPicture};
pub use go_grid::{GoBufferView, GoCell, GoCostPoint, GoLayout, GoMarkView, GoPicture};

/// A stage's picture at one step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Picture {
    Fanout(FanoutPicture),
    GoGrid(GoPicture),
}

/// True for the six GeneralOptimize stages.
pub fn is_general_optimize(stage: Stage) -> bool {
    matches!(
        stage,
        Stage::GeneralOptimizeEarly
            | Stage::GeneralOptimize
            | Stage::GeneralOptimizeMid
            | Stage::GeneralOptimizeMid2
            | Stage::GeneralOptimizeLate
            | Stage::GeneralOptimizeLate2
    )
}

/// The picture of `stage` after `step` of its steps (0: its input), when the stage has
/// one and the trace holds something to draw.
pub fn picture(
    stage: Stage,
    steps: Steps<'_>,
    functions: &[FunctionSteps],
    step: u32,
) -> Option<Picture> {
    let step = (step as usize).min(steps.len());
    if stage == Stage::TwoAddress {
        return fanout::build(steps, functions, step).map(Picture::Fanout);
    }
    if is_general_optimize(stage) {
        return go_grid::build(steps, step).map(Picture::GoGrid);
    }
    None
}
