//! Replay of the two stages that change the IR kind, from the edits their steps carry.
//!
//! ```text
//!  ptx-lower (PTX → ORI): each output function with no blocks, instructions or
//!      registers ── OriEdit × steps (AddBlock, Insert, SetReg) ──▶ the ORI so far
//!      (replayed like the GeneralOptimize phases: the session's ORI path)
//!  ptx-emit (MIR → PTX):  an empty module ── PtxEdit × steps ──▶ the PTX so far
//! ```
//!
//! The "after" pane of step k shows the output as the first k steps left it, the
//! "before" pane as the first k-1 did.

use crate::diff::{diff_ops, Op};
use crate::protocol::{EditRow, LineMark, MarkKind};
use compiler_core::ori::{self, edit::OriEdit};
use compiler_core::pipeline::FunctionSteps;
use compiler_core::ptx::{self, edit::apply_ptx_edit};
use compiler_core::trace::{Step, Steps};

/// ptx-lower's replay start: its output with every function's body taken out.
pub fn lowering_start(m: &ori::Module) -> ori::Module {
    let mut m = m.clone();
    for item in &mut m.items {
        if let ori::Item::Func(f) = item {
            f.blocks.clear();
            f.insts = Default::default();
            f.regs = Default::default();
        }
    }
    m
}

/// Which of ptx-lower's steps lower which function: a function's steps begin with the
/// one that adds its block 0; a declaration has none.
pub fn lowering_ranges(steps: Steps<'_>, m: &ori::Module) -> Vec<FunctionSteps> {
    let starts: Vec<usize> = (0..steps.len())
        .filter(|&k| {
            steps.step(k).ori_edits.iter().any(|e| {
                matches!(
                    e,
                    OriEdit::AddBlock {
                        block: ori::BlockId::ENTRY,
                        ..
                    }
                )
            })
        })
        .collect();
    let mut ranges: Vec<FunctionSteps> = Vec::new();
    let mut next = 0;
    for f in m.functions() {
        let (first, end) = if f.is_decl {
            let at = ranges.last().map_or(0, |r| r.first + r.count);
            (at, at)
        } else {
            next += 1;
            let end = starts.get(next).copied().unwrap_or(steps.len());
            (starts.get(next - 1).copied().unwrap_or(end), end)
        };
        ranges.push(FunctionSteps {
            function: f.name.clone(),
            first,
            count: end - first,
        });
    }
    ranges
}

/// ptx-emit's output after `steps`, applied from `from` (a module the steps before
/// them left).
pub fn ptx_apply(mut from: ptx::Module, steps: Steps<'_>) -> Result<ptx::Module, String> {
    for s in steps {
        for e in &s.ptx_edits {
            apply_ptx_edit(&mut from, e).map_err(|e| e.0)?;
        }
    }
    Ok(from)
}

/// Lines of `b` the step added or changed, and lines of `a` it replaced.
pub fn ptx_marks(a: &str, b: &str) -> (Vec<LineMark>, Vec<LineMark>) {
    let la: Vec<&str> = a.lines().collect();
    let lb: Vec<&str> = b.lines().collect();
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let ops = diff_ops(&la, &lb);
    // A line replaced in place (the signature gaining its linkage) is changed; lines
    // only added are inserted.
    let replaced = ops.iter().any(|o| matches!(o, Op::Removed(_)));
    for o in ops {
        match o {
            Op::Removed(i) => before.push(LineMark {
                line: i as u32,
                kind: MarkKind::Changed,
            }),
            Op::Added(j) => after.push(LineMark {
                line: j as u32,
                kind: if replaced {
                    MarkKind::Changed
                } else {
                    MarkKind::Inserted
                },
            }),
            Op::Same(..) => {}
        }
    }
    (before, after)
}

/// A row per PTX edit of the step.
pub fn ptx_edit_rows(s: &Step) -> Vec<EditRow> {
    s.ptx_edits
        .iter()
        .take(crate::session::MAX_EDIT_ROWS)
        .map(|e| EditRow {
            op: e.op().into(),
            text: e.text(),
        })
        .collect()
}
