//! The GeneralOptimize picture of one stage at one step: what its steps so far recorded.
//!
//! - the grid: one cell per (block, round) from the `GoRound` payloads, with the
//!   sub-pass counters, whether the round changed the block, and whether option 464's
//!   budget stopped the loop there;
//! - phase 37's cost curve (`GoCost`): the weighted total after each round and the delta
//!   against the threshold that ends the loop;
//! - phase 58's six-slot MOV buffer (`GoBuffer`), as the latest step left it;
//! - the operand marks (`GoMark`): 0x100 / 0x200 / 0x400 set on an operand's flag word.

use compiler_core::trace::{Payload, Step};
use serde::{Deserialize, Serialize};

/// One round of one block's loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoCell {
    pub block: u32,
    /// 1-based round.
    pub iteration: u32,
    pub counters: Vec<(String, u64)>,
    pub changed: bool,
    pub capped: bool,
    /// The 1-based step that recorded the cell.
    pub step: u32,
}

/// Phase 37's accumulators after one round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GoCostPoint {
    pub round: u32,
    pub weighted: f64,
    pub unweighted: f64,
    pub delta: f64,
    pub threshold: f64,
    pub step: u32,
}

/// Phase 58's buffer as a step left it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoBufferView {
    pub block: u32,
    /// The next slot to fill.
    pub index: u32,
    /// Six slots: the first MOV and, once matched, the second.
    pub slots: Vec<Option<(String, Option<String>)>>,
    pub counters: Vec<(String, u64)>,
    pub step: u32,
}

/// A flag bit set on an operand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GoMarkView {
    pub inst: u32,
    pub operand: u32,
    pub class: u16,
    pub mask: u32,
    pub before: u32,
    pub after: u32,
    pub step: u32,
}

/// Everything the stage recorded up to the step shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GoPicture {
    /// The ptxas phase (from the first round recorded), when known.
    pub phase: Option<u16>,
    /// Blocks that have a cell, ascending.
    pub blocks: Vec<u32>,
    /// The most rounds any block ran so far.
    pub rounds: u32,
    /// Cells in recording order.
    pub cells: Vec<GoCell>,
    pub costs: Vec<GoCostPoint>,
    pub buffer: Option<GoBufferView>,
    pub marks: Vec<GoMarkView>,
    /// Counts over the whole stage, so the page can say how much is still to come.
    pub total_cells: u32,
    pub total_costs: u32,
    pub total_marks: u32,
    /// The step shown (1-based; 0: the input, nothing recorded yet).
    pub step: u32,
}

/// The picture after `step` steps, or None when the stage recorded no GeneralOptimize
/// payload at all.
pub fn build(steps: &[Step], step: usize) -> Option<GoPicture> {
    let mut p = GoPicture {
        phase: None,
        blocks: Vec::new(),
        rounds: 0,
        cells: Vec::new(),
        costs: Vec::new(),
        buffer: None,
        marks: Vec::new(),
        total_cells: 0,
        total_costs: 0,
        total_marks: 0,
        step: step as u32,
    };
    let mut any = false;
    for (i, s) in steps.iter().enumerate() {
        let shown = i < step;
        let at = i as u32 + 1;
        match &*s.payload {
            Payload::GoRound {
                phase,
                block,
                iteration,
                counters,
                changed,
                capped,
            } => {
                any = true;
                p.total_cells += 1;
                p.phase.get_or_insert(*phase);
                if shown {
                    p.cells.push(GoCell {
                        block: *block,
                        iteration: *iteration,
                        counters: counters.clone(),
                        changed: *changed,
                        capped: *capped,
                        step: at,
                    });
                }
            }
            Payload::GoCost {
                round,
                weighted,
                unweighted,
                delta,
                threshold,
            } => {
                any = true;
                p.total_costs += 1;
                if shown {
                    p.costs.push(GoCostPoint {
                        round: *round,
                        weighted: *weighted,
                        unweighted: *unweighted,
                        delta: *delta,
                        threshold: *threshold,
                        step: at,
                    });
                }
            }
            Payload::GoBuffer {
                block,
                index,
                slots,
                counters,
            } => {
                any = true;
                if shown {
                    p.buffer = Some(GoBufferView {
                        block: *block,
                        index: *index,
                        slots: slots.clone(),
                        counters: counters.clone(),
                        step: at,
                    });
                }
            }
            Payload::GoMark {
                inst,
                operand,
                class,
                mask,
                before,
                after,
            } => {
                any = true;
                p.total_marks += 1;
                if shown {
                    p.marks.push(GoMarkView {
                        inst: *inst,
                        operand: *operand,
                        class: *class,
                        mask: *mask,
                        before: *before,
                        after: *after,
                        step: at,
                    });
                }
            }
            _ => {}
        }
    }
    if !any {
        return None;
    }
    for c in &p.cells {
        if !p.blocks.contains(&c.block) {
            p.blocks.push(c.block);
        }
        p.rounds = p.rounds.max(c.iteration);
    }
    compiler_core::sort::sort_ints(&mut p.blocks);
    Some(p)
}

impl GoPicture {
    /// The cell of `block` at round `iteration`, if recorded so far.
    pub fn cell(&self, block: u32, iteration: u32) -> Option<&GoCell> {
        self.cells
            .iter()
            .find(|c| c.block == block && c.iteration == iteration)
    }
}
