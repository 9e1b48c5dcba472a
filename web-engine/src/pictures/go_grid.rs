//! The GeneralOptimize picture of one stage at one step: what its steps so far recorded.
//!
//! - the grid: one cell per (block, round) from the `GoRound` payloads, with the
//!   sub-pass counters, whether the round changed the block, and whether option 464's
//!   budget stopped the loop there;
//! - phase 37's cost curve (`GoCost`): the weighted total after each round and the delta
//!   against the threshold that ends the loop;
//! - phase 58's six-slot MOV buffer (`GoBuffer`), as the latest step left it;
//! - the operand marks (`GoMark`): 0x100 / 0x200 / 0x400 set on an operand's flag word.

use compiler_core::trace::{Payload, Steps};
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
pub fn build(steps: Steps<'_>, step: usize) -> Option<GoPicture> {
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
                        block: block.as_u32(),
                        iteration: *iteration,
                        counters: counters
                            .iter()
                            .map(|c| (c.name().to_string(), c.value()))
                            .collect(),
                        changed: *changed,
                        capped: *capped,
                        step: at,
                    });
                }
            }
            Payload::GoCost(c) => {
                let compiler_core::trace::GoCost {
                    round,
                    weighted,
                    unweighted,
                    delta,
                    threshold,
                } = &**c;
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
                        block: block.as_u32(),
                        index: *index,
                        slots: slots
                            .iter()
                            .map(|s| {
                                s.as_ref().map(|(a, b)| {
                                    (
                                        a.as_str().to_string(),
                                        b.as_ref().map(|b| b.as_str().to_string()),
                                    )
                                })
                            })
                            .collect(),
                        counters: compiler_core::trace::GO_BUFFER_COUNTERS
                            .iter()
                            .zip(counters.get())
                            .map(|(n, v)| (n.to_string(), u64::from(v)))
                            .collect(),
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
                        inst: inst.as_u32(),
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

/// Where the page draws a [`GoPicture`]'s parts, in SVG pixels: the grid (one row per
/// block, one column per round), then phase 37's cost chart, phase 58's buffer and the
/// marks, each below the last and only when there is something to draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GoLayout {
    pub width: i32,
    pub height: i32,
    /// The grid's top (round labels sit just above it).
    pub grid_top: i32,
    /// A cell's height: a title line and one line per counter.
    pub cell_h: i32,
    /// Tops of the cost chart, the buffer and the marks (where each would go).
    pub cost_top: i32,
    pub buffer_top: i32,
    pub marks_top: i32,
}

impl GoLayout {
    /// Left edge of round 1's column (block labels to its left).
    pub const LEFT: i32 = 76;
    /// A round's column width (cells are 8 narrower), also a buffer slot's.
    pub const COL: i32 = 168;
    /// A counter line inside a cell.
    pub const LINE: i32 = 13;
    /// The cost chart's plot: width and height.
    pub const COST_W: i32 = 360;
    pub const COST_H: i32 = 96;
    /// A buffer row's pitch (three slots a row) and a marks row's.
    pub const SLOT_PITCH: i32 = 52;
    pub const MARK_PITCH: i32 = 18;

    /// Left edge of the column of `round` (1-based).
    pub fn round_x(round: u32) -> i32 {
        Self::LEFT + (round as i32 - 1) * Self::COL
    }

    /// Top of the grid row of the `row`-th block.
    pub fn row_top(&self, row: usize) -> i32 {
        self.grid_top + row as i32 * (self.cell_h + 6)
    }

    /// The cost chart's plot origin (left, top).
    pub fn cost_plot(&self) -> (i32, i32) {
        (Self::LEFT, self.cost_top + 24)
    }

    /// Top-left corner of buffer slot `k` (0..6, three a row).
    pub fn slot_origin(&self, k: usize) -> (i32, i32) {
        let k = k as i32;
        (
            Self::LEFT + (k % 3) * Self::COL,
            self.buffer_top + 22 + (k / 3) * Self::SLOT_PITCH,
        )
    }

    /// Top of the `k`-th mark's row.
    pub fn mark_top(&self, k: usize) -> i32 {
        self.marks_top + 18 + k as i32 * Self::MARK_PITCH
    }
}

impl GoPicture {
    /// The picture's layout: the grid as wide as its rounds and as tall as its blocks
    /// times the tallest cell, then the sections that have data.
    pub fn layout(&self) -> GoLayout {
        let rounds = self.rounds.max(1) as i32;
        let counters = self
            .cells
            .iter()
            .map(|c| c.counters.len())
            .max()
            .unwrap_or(2)
            .max(2) as i32;
        let cell_h = 22 + counters * GoLayout::LINE;
        let grid_top = 56;
        let grid_h = self.blocks.len().max(1) as i32 * (cell_h + 6);
        let width = (GoLayout::LEFT + rounds * GoLayout::COL + 12).max(560);
        let mut y = grid_top + grid_h + 16;
        let cost_top = y;
        if self.total_costs > 0 {
            y += 150;
        }
        let buffer_top = y;
        if self.buffer.is_some() {
            y += 2 * GoLayout::SLOT_PITCH + 44;
        }
        let marks_top = y;
        if !self.marks.is_empty() {
            y += 26 + self.marks.len() as i32 * GoLayout::MARK_PITCH;
        }
        GoLayout {
            width,
            height: y + 24,
            grid_top,
            cell_h,
            cost_top,
            buffer_top,
            marks_top,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(block: u32, iteration: u32, counters: usize) -> GoCell {
        GoCell {
            block,
            iteration,
            counters: (0..counters).map(|k| (format!("c{k}"), k as u64)).collect(),
            changed: true,
            capped: false,
            step: iteration,
        }
    }

    /// Two blocks, three rounds, four counters, a cost, a buffer and two marks, laid out
    /// by hand: cells 22 + 4 × 13 = 74 high on an 80 pitch, the grid 76 + 3 × 168 + 12
    /// wide, then cost (150), buffer (2 × 52 + 44) and marks (26 + 2 × 18) below it.
    #[test]
    fn layout_stacks_the_sections_that_have_data() {
        let mark = GoMarkView {
            inst: 1,
            operand: 0,
            class: 0,
            mask: 0x100,
            before: 0,
            after: 0x100,
            step: 4,
        };
        let p = GoPicture {
            phase: Some(37),
            blocks: vec![0, 1],
            rounds: 3,
            cells: vec![cell(0, 1, 4), cell(0, 2, 2), cell(1, 3, 1)],
            costs: Vec::new(),
            buffer: Some(GoBufferView {
                block: 0,
                index: 0,
                slots: vec![None; 6],
                counters: Vec::new(),
                step: 3,
            }),
            marks: vec![mark.clone(), mark],
            total_cells: 3,
            total_costs: 1,
            total_marks: 2,
            step: 5,
        };
        let l = p.layout();
        assert_eq!(
            l,
            GoLayout {
                width: 592,
                height: 616,
                grid_top: 56,
                cell_h: 74,
                cost_top: 232,
                buffer_top: 382,
                marks_top: 530,
            }
        );
        assert_eq!((GoLayout::round_x(3), l.row_top(1)), (412, 136));
        assert_eq!((l.slot_origin(4), l.mark_top(1)), ((244, 456), 566));
        // No cost, buffer or marks: the grid alone.
        let empty = GoPicture {
            buffer: None,
            marks: Vec::new(),
            total_costs: 0,
            ..p
        };
        assert_eq!((empty.layout().width, empty.layout().height), (592, 256));
    }
}
