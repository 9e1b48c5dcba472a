//! Critical-edge splitting before PHI lowering (LLVM's `SplitPHIEdges`, which
//! PHIElimination runs first when LiveVariables is available, as in llc's pipeline).
//!
//! ```text
//!  for each block MBB with PHIs, each PHI, each incoming (%src, PreMBB):
//!    PreMBB has one successor ─────────────────────────────▶ not critical
//!    PreMBB == MBB, or a back edge of MBB's loop ──────────▶ kept (unless split-all)
//!    %src not live out of PreMBB (LiveVariables) ──────────▶ the copy will kill it: kept
//!    %src live into MBB: split only on a loop-exiting edge; else split (the copy
//!      would otherwise keep %src alive into PreMBB's other successor)
//!    phi-elim-split-all-critical-edges ────────────────────▶ split regardless
//!    can the edge be split?  NVPTX requires a structured CFG: only an edge into a
//!      loop header may be split (unless disable-nvptx-require-structured-cfg); the
//!      branch must be one NVPTX's analyzeBranch reads (GOTO, CBranch, CBranch+GOTO)
//!    split: new block after PreMBB, branches and Succ's PHIs retargeted,
//!      PreMBB's terminator updated, `GOTO %bb.Succ` when Succ does not follow
//! ```
//!
//! Loops are natural loops (a back edge's target dominates its source), as
//! MachineLoopInfo, which llc's pipeline builds right before PHI elimination.

use super::PhiElimOptions;
use crate::liveness::LiveVariables;
use crate::mir::cfg::{Cfg, DomTree};
use crate::entity::{dense_map, EntityRef, SecondaryMap};
use crate::mir::{Block, Function, Inst, InstData, Op, Opcode, Operand, OperandKind, VReg};
use super::PhiElimStats;
use crate::trace::{Editor, Focus, Recorder, Step};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;

/// Natural loops: each with its header and member blocks (sorted by index), and each
/// block's innermost loop, found once: asking per block by scanning every loop made a
/// function of many loops quadratic (`loops`: 295 ms at 100k instructions).
struct Loops {
    loops: Vec<(Block, Vec<Block>)>,
    innermost: SecondaryMap<Block, Option<u32>>,
}

impl Loops {
    fn compute(f: &Function) -> Loops {
        let cfg = Cfg::new(f);
        let dom = DomTree::new(&cfg);
        let mut loops: Vec<(Block, Vec<Block>)> = Vec::new();
        // The loop a block was last added to: membership in O(1) while one body grows.
        let mut mark: SecondaryMap<Block, u32> = dense_map(u32::MAX, f.blocks.len());
        for &h in cfg.rpo() {
            let latches = dom.latches(&cfg, h);
            if latches.is_empty() {
                continue;
            }
            let l = loops.len() as u32;
            mark[h] = l;
            let mut body = vec![h];
            let mut work = latches;
            while let Some(b) = work.pop() {
                if mark[b] == l {
                    continue;
                }
                mark[b] = l;
                body.push(b);
                work.extend(
                    cfg.preds(b)
                        .iter()
                        .copied()
                        .filter(|&p| cfg.is_reachable(p)),
                );
            }
            // Each block once (marked), so the shared sort's order is the one order.
            crate::sort::sort_by_key(&mut body, |b| b.index() as u128);
            loops.push((h, body));
        }
        // Innermost: the smallest body holding the block (nested natural loops with
        // distinct headers never have equal bodies, so the smallest is unique).
        let mut innermost: SecondaryMap<Block, Option<u32>> = dense_map(None, f.blocks.len());
        for (l, (_, body)) in loops.iter().enumerate() {
            for &b in body {
                let smaller = innermost[b].is_none_or(|o| body.len() < loops[o as usize].1.len());
                if smaller {
                    innermost[b] = Some(l as u32);
                }
            }
        }
        Loops { loops, innermost }
    }

    /// The innermost loop holding `b` (index into `loops`).
    fn loop_for(&self, b: Block) -> Option<usize> {
        self.innermost[b].map(|l| l as usize)
    }

    fn header(&self, l: Option<usize>) -> Option<Block> {
        l.map(|l| self.loops[l].0)
    }

    /// LLVM's `Loop::contains(Loop*)`: `inner` is `outer` or nested in it.
    fn contains(&self, outer: usize, inner: Option<usize>) -> bool {
        inner.is_some_and(|i| self.loops[outer].1.binary_search(&self.loops[i].0).is_ok())
    }
}

/// LLVM's `LiveVariables::isLiveIn` (VarInfo form): alive through `b`, or killed in
/// `b` without being defined there.
fn lv_live_in(f: &Function, lv: &LiveVariables, v: VReg, b: Block) -> bool {
    let vi = &lv.vars[v];
    if vi.alive_blocks.contains(b) {
        return true;
    }
    if vi.defs.first().and_then(|&d| f.layout.inst_block(d)) == Some(b) {
        return false;
    }
    vi.find_kill(f, b).is_some()
}

/// What NVPTX's analyzeBranch reads at the end of a block.
#[derive(Clone, Copy)]
enum Branch {
    /// No terminator: falls through.
    Fall,
    /// `GOTO T` (a second GOTO after it is never reached): the last GOTO (the one
    /// removeBranch erases) and T.
    Goto(Inst, Block),
    /// `CBranch %p, T` falling through otherwise.
    Cond(Inst, Block),
    /// `CBranch %p, T` then `GOTO F`: T, the GOTO and F.
    CondGoto(Block, Inst, Block),
}

fn block_target(f: &Function, i: Inst) -> Option<Block> {
    f.insts[i].operands.iter().find_map(|o| match o.kind {
        OperandKind::Block(b) => Some(b),
        _ => None,
    })
}

/// NVPTXInstrInfo::analyzeBranch; None where it gives up (BRX jump tables,
/// CBranchOther, three terminators, ...).
fn analyze_branch(f: &Function, b: Block) -> Option<Branch> {
    let terms: Vec<Inst> = match f.first_terminator(b) {
        Some(t) => {
            let mut v = vec![t];
            let mut cur = f.layout.next_inst(t);
            while let Some(i) = cur {
                v.push(i);
                cur = f.layout.next_inst(i);
            }
            v
        }
        None => Vec::new(),
    };
    let is = |i: Inst, op: Op| f.insts[i].is(op);
    match terms.as_slice() {
        [] => Some(Branch::Fall),
        [g] if is(*g, Op::GOTO) => Some(Branch::Goto(*g, block_target(f, *g)?)),
        [c] if is(*c, Op::CBranch) => Some(Branch::Cond(*c, block_target(f, *c)?)),
        [c, g] if is(*c, Op::CBranch) && is(*g, Op::GOTO) => Some(Branch::CondGoto(
            block_target(f, *c)?,
            *g,
            block_target(f, *g)?,
        )),
        [g, g2] if is(*g, Op::GOTO) && is(*g2, Op::GOTO) => {
            Some(Branch::Goto(*g2, block_target(f, *g)?))
        }
        _ => None,
    }
}

/// Why an edge cannot be split (LLVM's `canSplitCriticalEdge`), or None.
fn cannot_split(
    f: &Function,
    opts: &PhiElimOptions,
    pred: Block,
    succ_is_header: bool,
) -> Option<&'static str> {
    if !opts.split_structured_cfg && !succ_is_header {
        return Some("NVPTX requires a structured CFG, where only an edge into a loop header may be split (disable-nvptx-require-structured-cfg lifts that)");
    }
    match analyze_branch(f, pred) {
        None => Some("the predecessor's branch is not one NVPTX's analyzeBranch understands"),
        Some(Branch::CondGoto(t, _, e)) if t == e => {
            Some("both branches of the predecessor go to the same block")
        }
        Some(_) => None,
    }
}

fn goto(target: Block) -> InstData {
    InstData::new(
        Opcode::Known(Op::GOTO),
        vec![Operand::new(OperandKind::Block(target))],
    )
}

/// The block following `b` in the layout.
fn layout_next(f: &Function, b: Block) -> Option<Block> {
    let mut it = f.layout.blocks().skip_while(|&x| x != b);
    it.next();
    it.next()
}

/// Splits `pred` → `succ` (LLVM's `MachineBasicBlock::SplitCriticalEdge` with
/// `updateTerminator`); returns the new block.
fn split_edge(ed: &mut Editor<'_>, pred: Block, succ: Block) -> Block {
    let mut prev_fall = layout_next(ed.f, pred);
    let nb = ed.split_edge(pred, succ);
    if prev_fall == Some(succ) {
        prev_fall = Some(nb);
    }
    // ReplaceUsesOfBlockWith: every branch of `pred` to `succ` now names the new block.
    let mut cur = ed.f.first_terminator(pred);
    while let Some(t) = cur {
        cur = ed.f.layout.next_inst(t);
        if block_target(ed.f, t) == Some(succ) {
            ed.modify(t, |d| {
                for o in d.operands.iter_mut() {
                    if o.kind == OperandKind::Block(succ) {
                        o.kind = OperandKind::Block(nb);
                    }
                }
            });
        }
    }
    update_terminator(ed, pred, prev_fall);
    // The new block jumps to `succ` unless it falls into it.
    if layout_next(ed.f, nb) != Some(succ) {
        ed.insert_at(nb, None, goto(succ));
    }
    // Succ's PHIs now come from the new block.
    let mut cur = ed.f.layout.first_inst(succ);
    while let Some(i) = cur.filter(|&i| ed.f.insts[i].is(Op::PHI)) {
        cur = ed.f.layout.next_inst(i);
        ed.modify(i, |d| {
            for o in d.operands.iter_mut().skip(2).step_by(2) {
                if o.kind == OperandKind::Block(pred) {
                    o.kind = OperandKind::Block(nb);
                }
            }
        });
    }
    nb
}

/// `MachineBasicBlock::updateTerminator` with NVPTX's hooks (its branch condition
/// cannot be reversed, so a conditional branch to the new layout successor stays).
fn update_terminator(ed: &mut Editor<'_>, b: Block, prev_fall: Option<Block>) {
    let next = layout_next(ed.f, b);
    let is_succ = |f: &Function, x: Block| f.blocks[b].succs.iter().any(|s| s.0 == x);
    let Some(br) = analyze_branch(ed.f, b) else {
        return;
    };
    match br {
        Branch::Fall => {
            if let Some(p) = prev_fall.filter(|&p| is_succ(ed.f, p) && next != Some(p)) {
                ed.insert_at(b, None, goto(p));
            }
        }
        Branch::Goto(g, t) => {
            if next == Some(t) {
                ed.erase(g);
            }
        }
        // Taken branch to the layout successor: reversing the condition would fall
        // into it, and NVPTX cannot reverse a condition, so nothing changes.
        Branch::CondGoto(_, g, e) => {
            if next == Some(e) {
                ed.erase(g);
            }
        }
        Branch::Cond(c, t) => {
            let Some(p) = prev_fall else { return };
            if p == t {
                ed.erase(c);
                if next != Some(t) {
                    ed.insert_at(b, None, goto(t));
                }
            } else if next != Some(p) || next == Some(t) {
                ed.insert_at(b, None, goto(p));
            }
        }
    }
}

/// Splits the critical edges into PHI blocks that LLVM's SplitPHIEdges splits (or says
/// why not). `lv` is recomputed after a split. Returns the number of edges split.
pub(super) fn split_phi_edges<R: Recorder>(
    ed: &mut Editor<'_>,
    rec: &mut R,
    opts: &PhiElimOptions,
    lv: &mut LiveVariables,
    stats: &mut PhiElimStats,
) -> u64 {
    let mut loops: Option<Loops> = None;
    let mut split = 0;
    let blocks: Vec<Block> = ed.f.layout.blocks().collect();
    for mbb in blocks {
        let mut cur = ed.f.layout.first_inst(mbb);
        while let Some(phi) = cur.filter(|&i| ed.f.insts[i].is(Op::PHI)) {
            cur = ed.f.layout.next_inst(phi);
            let mut k = 1;
            while k + 1 < ed.f.insts[phi].operands.len() {
                let (val, pre) = (ed.f.insts[phi].operands[k], ed.f.insts[phi].operands[k + 1]);
                k += 2;
                let (Some(src), OperandKind::Block(pre)) = (val.vreg_of(), pre.kind) else {
                    continue;
                };
                if ed.f.blocks[pre].succs.len() == 1 {
                    continue;
                }
                // The copy would not kill the source: it lives on into another successor.
                if !lv.is_live_out(ed.f, src, pre) {
                    continue;
                }
                let lp = loops.get_or_insert_with(|| Loops::compute(ed.f));
                let (cur_loop, pre_loop) = (lp.loop_for(mbb), lp.loop_for(pre));
                let is_header = lp.header(cur_loop) == Some(mbb);
                let back_edge = pre == mbb || (is_header && pre_loop == cur_loop);
                if back_edge && !opts.split_all_critical_edges {
                    continue;
                }
                let mut why = "the source stays live into another successor of the predecessor; on a new block the copy kills it";
                let mut should = !lv_live_in(ed.f, lv, src, mbb);
                if !should && cur_loop != pre_loop {
                    // Loop exit: keep the copy out of the loop.
                    should = pre_loop.is_some_and(|p| !lp.contains(p, cur_loop));
                    why = "the edge leaves a loop; splitting keeps the copy out of the loop";
                }
                if !should && !opts.split_all_critical_edges {
                    continue;
                }
                if !should {
                    why = "phi-elim-split-all-critical-edges is set";
                }
                let (pn, mn) = (ed.f.blocks[pre].number, ed.f.blocks[mbb].number);
                let sn = crate::trace::narration_reg::<R>(ed.f, crate::mir::Reg::Virt(src));
                if let Some(no) = cannot_split(ed.f, opts, pre, is_header) {
                    stats.critical_edges_kept += 1;
                    rec.step(|| {
                        Step::new("split_refused", format!("The edge %bb.{pn} → %bb.{mn} is critical and {sn} is live out of %bb.{pn}: LLVM would split it ({why}), but {no}. The copy stays in %bb.{pn}."))
                            .focus(Focus::inst(phi))
                    });
                    continue;
                }
                let nb = split_edge(ed, pre, mbb);
                *lv = LiveVariables::compute(ed.f);
                split += 1;
                stats.critical_edges_split += 1;
                let nn = ed.f.blocks[nb].number;
                let edits = ed.take_edits();
                rec.step(|| {
                    let mut s = Step::new("split_edge", format!("The edge %bb.{pn} → %bb.{mn} is critical and {sn} is live out of %bb.{pn}: it is split by a new block %bb.{nn} ({why}); the PHI's copy will go there."))
                        .focus(Focus::inst(phi));
                    s.edits = edits.into();
                    s
                });
            }
        }
    }
    split
}
