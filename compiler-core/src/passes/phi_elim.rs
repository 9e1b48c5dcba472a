//! PHI elimination (LLVM's PHIElimination, which CICC runs unchanged).
//!
//! ```text
//!  LiveVariables::compute ─▶ count PHI uses per (predecessor, register)
//!  for each block, for each PHI at its top (first to last):
//!     %dst = PHI %a, %bb.x, %b, %bb.y
//!       ─▶ %dst = COPY killed %new          at the first non-PHI position
//!       ─▶ %new = COPY %a   in %bb.x,  %new = COPY %b   in %bb.y   (before the terminators)
//!          the source is marked killed there when no other PHI use remains on that
//!          edge and it is not live out of the predecessor
//! ```
//!
//! Invariant after the pass: no PHI is left, `noPhis` is set, and kill flags are what
//! LiveVariables would compute (llc-22's 3-pre-twoaddr.mir is reproduced exactly).
//!
//! Before lowering, [`split`] decides edge by edge whether LLVM's SplitPHIEdges splits a
//! critical edge (the PHI source lives on past the predecessor, loops, the knob
//! `phi-elim-split-all-critical-edges`). On NVPTX only an edge into a loop header may
//! be split, as in llc-22 (the target requires a structured CFG), unless
//! `disable-nvptx-require-structured-cfg` is set; each refusal is a step.

mod split;

use crate::entity::{dense_map, EntityRef, SecondaryMap};
use crate::liveness::LiveVariables;
use crate::mir::{
    oflag, Block, Function, Inst, InstData, Op, Opcode, Operand, OperandKind, Reg, VReg,
};
use crate::stats::Stats;
use crate::trace::{narration_reg, Editor, Focus, Recorder, Step};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhiElimOptions {
    /// `cssa-coalesce`: before lowering, give each PHI and the incoming registers whose
    /// live ranges never meet one register (conventional SSA), so fewer copies appear.
    pub cssa_coalesce: bool,
    /// Whether SplitPHIEdges runs at all (LLVM's `disable-phi-elim-edge-splitting`
    /// inverted; it needs LiveVariables, which llc's pipeline has). Off, no edge is
    /// considered and no `split_refused` step appears.
    pub split_edges: bool,
    /// `phi-elim-split-all-critical-edges`: split back edges too, and edges where the
    /// split would not spare a copy (still only where the source is live out).
    pub split_all_critical_edges: bool,
    /// `disable-nvptx-require-structured-cfg`: NVPTX's structured-CFG requirement is
    /// lifted, so a critical edge may be split at all.
    pub split_structured_cfg: bool,
    /// `cssa-verbosity`: what the CSSA stage records (`passes/cssa.rs`).
    pub cssa_verbosity: u32,
    /// `dump-before-cssa`: a step holding the IR before CSSA coalescing.
    pub dump_before_cssa: bool,
    /// `usedessa`: PHIs leave SSA through deSSA's parallel copies (`passes/dessa.rs`)
    /// wherever that is legal, before LLVM's lowering takes the rest.
    pub use_dessa: bool,
}

impl Default for PhiElimOptions {
    fn default() -> Self {
        PhiElimOptions {
            cssa_coalesce: false,
            split_edges: true,
            split_all_critical_edges: false,
            split_structured_cfg: false,
            cssa_verbosity: 1,
            dump_before_cssa: false,
            use_dessa: false,
        }
    }
}

crate::stats::pass_stats! {
    /// PHI elimination's counters (JSON keys in this order).
    pub struct PhiElimStats {
        phis_lowered,
        copies_inserted,
        implicit_defs,
        kills_added,
        reused_incoming,
        cssa_merged,
        cssa_phis_removed,
        critical_edges_split,
        critical_edges_kept,
    }
    optional {
        /// `cssa-coalesce` (`passes/cssa.rs`): PHIs CSSA left to lowering.
        cssa_phis_kept,
        /// `usedessa` (`passes/dessa.rs`): blocks whose PHIs stay for LLVM's lowering.
        dessa_blocks_kept,
        /// `usedessa`: temporaries breaking parallel-copy cycles.
        dessa_cycle_temps,
        /// `usedessa`: copies of the sequentialized parallel copies.
        dessa_copies,
        /// `usedessa`: PHIs deSSA lowered.
        dessa_phis_lowered,
    }
}

/// LLVM's VRegPHIUseCount: PHI uses not yet lowered, per (predecessor block number,
/// register). Counted once into a sorted table; lowering looks entries up by halving.
struct PhiUses(Vec<((u32, VReg), u32)>);

impl PhiUses {
    fn count(mut edges: Vec<(u32, VReg)>) -> PhiUses {
        crate::sort::sort_by_key(&mut edges, |&(p, v)| {
            crate::sort::key4(0, 0, p, v.index() as u32)
        });
        let mut table: Vec<((u32, VReg), u32)> = Vec::new();
        for e in edges {
            match table.last_mut() {
                Some((k, n)) if *k == e => *n += 1,
                _ => table.push((e, 1)),
            }
        }
        PhiUses(table)
    }

    fn get(&self, key: &(u32, VReg)) -> Option<&u32> {
        self.find(key).map(|k| &self.0[k].1)
    }

    fn get_mut(&mut self, key: &(u32, VReg)) -> Option<&mut u32> {
        self.find(key).map(|k| &mut self.0[k].1)
    }

    fn find(&self, &(p, v): &(u32, VReg)) -> Option<usize> {
        self.0
            .binary_search_by_key(&(p, v.index()), |&((q, w), _)| (q, w.index()))
            .ok()
    }
}

pub fn run<R: Recorder>(f: &mut Function, opts: &PhiElimOptions, rec: &mut R) -> Stats {
    run_keeping_live_variables(f, opts, rec).0.into()
}

/// [`run`], also handing back the LiveVariables the pass kept current as it lowered the
/// PHIs: two-address continues on it (`two_address::run_with_live_variables`), as
/// LLVM's TwoAddressInstruction uses the analysis PHIElimination preserved.
pub fn run_keeping_live_variables<R: Recorder>(
    f: &mut Function,
    opts: &PhiElimOptions,
    rec: &mut R,
) -> (PhiElimStats, LiveVariables) {
    let mut stats = PhiElimStats::default();
    if opts.cssa_coalesce || opts.dump_before_cssa {
        let copts = crate::passes::cssa::CssaOptions {
            verbosity: opts.cssa_verbosity,
            dump_before: opts.dump_before_cssa,
            coalesce: opts.cssa_coalesce,
        };
        crate::passes::cssa::run(f, &copts, rec, &mut stats);
    }
    if opts.use_dessa {
        crate::passes::dessa::run(f, rec, &mut stats);
    }
    let mut lv = LiveVariables::compute(f);
    if opts.split_edges {
        let mut ed = Editor::new(f, R::ENABLED);
        split::split_phi_edges(&mut ed, rec, opts, &mut lv, &mut stats);
    }
    // VRegPHIUseCount: PHI uses not yet lowered, per (predecessor, register).
    let mut edges: Vec<(u32, VReg)> = Vec::new();
    for b in f.layout.blocks() {
        for i in f.layout.block_insts(b) {
            let d = &f.insts[i];
            if !d.is(Op::PHI) {
                break;
            }
            for (val, pred) in phi_pairs(d) {
                if let (Some(v), false) = (val.vreg_of(), val.has(oflag::UNDEF)) {
                    edges.push((pred.index() as u32, v));
                }
            }
        }
    }
    let mut phi_uses = PhiUses::count(edges);
    let mut ed = Editor::new(f, R::ENABLED);
    write_live_flags(&mut ed, rec, &lv);
    let blocks: Vec<Block> = ed.f.layout.blocks().collect();
    // Predecessors once, up front (the CFG does not change here): asking per PHI block
    // scanned every block and made many-block functions quadratic.
    let preds_by_block = ed.f.predecessors();
    // Registers defined only by IMPLICIT_DEF count as undefined sources.
    let implicit_only = implicitly_defined(ed.f, &lv);
    let mut lowered: Lowered = Vec::new();
    for b in blocks {
        let first_is_phi =
            ed.f.layout
                .first_inst(b)
                .is_some_and(|i| ed.f.insts[i].is(Op::PHI));
        if !first_is_phi {
            continue;
        }
        let preds = preds_by_block[b].clone();
        let all_edges_critical =
            preds.len() >= 2 && preds.iter().all(|&p| ed.f.blocks[p].succs.len() >= 2);
        // The last PHI of the block's leading run: the first non-PHI follows it until it
        // is lowered itself (lowering never puts anything between the PHIs).
        let mut last_phi = ed.f.layout.first_inst(b);
        while let Some(n) = last_phi.and_then(|i| ed.f.layout.next_inst(i)) {
            if !ed.f.insts[n].is(Op::PHI) {
                break;
            }
            last_phi = Some(n);
        }
        let at = BlockAt {
            block: b,
            last_phi,
            n_preds: preds.len(),
            exact_live_out: stats.cssa_merged > 0,
        };
        while let Some(phi) =
            ed.f.layout
                .first_inst(b)
                .filter(|&i| ed.f.insts[i].is(Op::PHI))
        {
            let cx = Lowering {
                ed: &mut ed,
                rec: &mut *rec,
                lv: &mut lv,
                phi_uses: &mut phi_uses,
                stats: &mut stats,
                implicit_only: &implicit_only,
            };
            lower_phi(cx, &mut lowered, &at, phi, all_edges_critical);
        }
    }
    ed.set_props(true, false);
    let edits = ed.take_edits();
    let n = stats.phis_lowered;
    rec.step(move || {
        let mut s = Step::numbered("done", "PHI elimination finished: \u{1} PHIs lowered; the function is marked noPhis and leaves SSA form.", &[n]);
        s.edits = edits.into();
        s
    });
    (stats, lv)
}

/// LiveVariables, when it runs, writes its kill and dead flags (LLVM's does): through
/// the editor, so the trace replays them, with a step when any changed.
fn write_live_flags<R: Recorder>(ed: &mut Editor<'_>, rec: &mut R, lv: &LiveVariables) {
    let changed = ed.write_live_flags(&lv.flag_marks(ed.f));
    if changed > 0 {
        let edits = ed.take_edits();
        rec.step(|| {
            let mut s = Step::numbered("live_flags", "LiveVariables is computed first and rewrites the kill and dead flags of \u{1} instructions to match it.", &[changed as u64]);
            s.edits = edits.into();
            s
        });
    }
}

/// A PHI's (incoming value, predecessor) pairs.
pub(crate) fn phi_pairs(d: &InstData) -> impl Iterator<Item = (Operand, Block)> + '_ {
    d.operands[1..].chunks(2).filter_map(|c| match c {
        [v, b] => match b.kind {
            OperandKind::Block(blk) => Some((*v, blk)),
            _ => None,
        },
        _ => None,
    })
}

/// What [`lower_phi`] needs to know about the PHIs' block, found once per block.
struct BlockAt {
    block: Block,
    /// The last PHI of the block's leading run of PHIs, as it was before lowering.
    last_phi: Option<Inst>,
    /// How many predecessors the block has (the CFG does not change here).
    n_preds: usize,
    /// CSSA renamed registers, so the input is no longer SSA: a register may have a def
    /// in a predecessor and another in the loop it feeds, which LLVM's `isLiveOut` (made
    /// for SSA) misses; ask the exact question instead.
    exact_live_out: bool,
}

fn implicitly_defined(f: &Function, lv: &LiveVariables) -> SecondaryMap<VReg, bool> {
    // VarInfo already lists each register's defining instructions, so only those are
    // read, not every operand of the function.
    let mut out = dense_map(false, f.vreg_end as usize);
    for v in f.vreg_list() {
        out[v] = lv.vars[v]
            .defs
            .iter()
            .all(|&d| f.insts[d].is(Op::IMPLICIT_DEF));
    }
    out
}

/// The copy position in a predecessor: before its first terminator.
fn copy_insert_point(f: &Function, pred: Block) -> Option<Inst> {
    f.first_terminator(pred)
}

/// What lowering a PHI reads and updates: the function, the recorder, the
/// LiveVariables the pass keeps current, the PHI uses still to be lowered, the counters,
/// and the registers only IMPLICIT_DEFs define.
struct Lowering<'a, 'f, R> {
    ed: &'a mut Editor<'f>,
    rec: &'a mut R,
    lv: &'a mut LiveVariables,
    phi_uses: &'a mut PhiUses,
    stats: &'a mut PhiElimStats,
    implicit_only: &'a SecondaryMap<VReg, bool>,
}

/// The incoming register made for each PHI whose edges are all critical, by its
/// (source register, predecessor) pairs, sorted by them (searched by halves: one small
/// search rather than a tree map's code in the wasm).
type Lowered = Vec<(Vec<(Reg, u32)>, VReg)>;

fn lower_phi<R: Recorder>(
    cx: Lowering<'_, '_, R>,
    lowered: &mut Lowered,
    at: &BlockAt,
    phi: Inst,
    all_edges_critical: bool,
) {
    let Lowering { ed, rec, lv, phi_uses, stats, implicit_only } = cx;
    let b = at.block;
    let data = ed.f.insts[phi].clone();
    let Some(dst) = data.operands.first().and_then(|o| o.vreg_of()) else {
        ed.erase(phi);
        return;
    };
    let is_dead = data.operands[0].has(oflag::DEAD);
    let pairs: Vec<(Operand, Block)> = phi_pairs(&data).collect();
    stats.phis_lowered += 1;
    // Unlink the PHI first: the copy goes at the first non-PHI position.
    ed.erase(phi);
    // The first non-PHI: right after the last PHI while that one is still there (`phi`
    // is always the block's first instruction, so the ones before it are gone).
    let after_phis = match at.last_phi {
        Some(last) if last != phi => ed.f.layout.next_inst(last),
        _ => ed.f.layout.first_inst(b),
    };
    let all_undef = pairs
        .iter()
        .all(|(v, _)| v.has(oflag::UNDEF) || v.vreg_of().is_some_and(|r| implicit_only[r]));
    let class = ed.f.vreg_class(dst);
    let mut incoming: Option<VReg> = None;
    let mut reused = false;
    let phi_copy;
    if all_undef {
        let mut def = Operand::vreg(dst, oflag::DEF);
        def.set(oflag::DEAD, is_dead);
        let mut d = InstData::new(Opcode::Known(Op::IMPLICIT_DEF), vec![def]);
        d.lhs_defs = 1;
        phi_copy = ed.insert_at(b, after_phis, d);
        stats.implicit_defs += 1;
    } else {
        let key: Vec<(Reg, u32)> = pairs
            .iter()
            .filter_map(|(v, p)| Some((v.get_reg()?, p.index() as u32)))
            .collect();
        let found = lowered.binary_search_by(|e| e.0.cmp(&key));
        let known = if all_edges_critical {
            found.ok().map(|k| lowered[k].1)
        } else {
            None
        };
        let inc = match known {
            Some(v) => {
                reused = true;
                stats.reused_incoming += 1;
                v
            }
            None => {
                let v = ed.new_vreg(class);
                if let (true, Err(at)) = (all_edges_critical, found) {
                    lowered.insert(at, (key, v));
                }
                v
            }
        };
        incoming = Some(inc);
        let mut def = Operand::vreg(dst, oflag::DEF);
        def.set(oflag::DEAD, is_dead);
        let mut d = InstData::new(Opcode::Known(Op::COPY), vec![def, Operand::vreg(inc, 0)]);
        d.lhs_defs = 1;
        phi_copy = ed.insert_at(b, after_phis, d);
        // LiveVariables: the incoming register dies at this copy (unless a reused one
        // already dies later in this block).
        let old_kill = if reused {
            lv.vars[inc].find_kill(ed.f, b)
        } else {
            None
        };
        if old_kill.is_none() {
            ed.modify(phi_copy, |d| d.operands[1].set(oflag::KILL, true));
            lv.vars[inc].kills.push(phi_copy);
        }
    }
    // A dead PHI's kill (LiveVariables records a dead def as its own kill) goes to the
    // instruction that defines the register now.
    if lv.vars[dst].remove_kill(phi) {
        lv.vars[dst].kills.push(phi_copy);
    }
    for (val, _) in &pairs {
        if let (Some(v), true) = (val.vreg_of(), val.has(oflag::KILL)) {
            lv.vars[v].remove_kill(phi);
        }
    }
    // The PHI's def is the copy's (or IMPLICIT_DEF's) now.
    if let Some(p) = lv.vars[dst].defs.iter().position(|&i| i == phi) {
        lv.vars[dst].defs[p] = phi_copy;
    }
    let dn = narration_reg::<R>(ed.f, Reg::Virt(dst));
    let inc_name = incoming.map(|v| narration_reg::<R>(ed.f, Reg::Virt(v)));
    let edits = ed.take_edits();
    rec.step(|| {
        let mut s = Step::new(
            "phi_copy",
            match (&inc_name, reused, all_undef) {
                (_, _, true) => format!("Every incoming value of the PHI defining {dn} is undefined, so it becomes an IMPLICIT_DEF."),
                (Some(i), true, _) => format!("An identical PHI was already lowered on these critical edges: {dn} reuses its incoming register {i}."),
                (Some(i), false, _) => format!("The PHI defining {dn} becomes a COPY from a fresh register {i} at the top of its block; {i} dies there."),
                _ => String::new(),
            },
        )
        .focus(Focus::inst(phi_copy))
        .focus(Focus::vreg(dst));
        s.edits = edits.into();
        s
    });
    let at_top = LoweredPhi {
        pairs,
        incoming,
        reused,
        inc_name,
    };
    let cx = Lowering { ed, rec, lv, phi_uses, stats, implicit_only };
    copy_on_predecessors(cx, at, &at_top);
}

/// What lowering a PHI at the top of its block leaves for the predecessor copies.
struct LoweredPhi {
    /// The PHI's (value, predecessor) pairs.
    pairs: Vec<(Operand, Block)>,
    /// The register the predecessors copy into (None: every value was undefined).
    incoming: Option<VReg>,
    /// `incoming` is an identical PHI's, already copied into on these edges.
    reused: bool,
    /// `incoming` as the narration names it.
    inc_name: Option<String>,
}

/// The predecessor copies of one PHI, last incoming first (as LLVM walks them): a COPY
/// (or IMPLICIT_DEF for an undefined value) into the incoming register before each
/// predecessor's terminators, and the source's kill where its last PHI use on that edge
/// was and it does not live out.
fn copy_on_predecessors<R: Recorder>(cx: Lowering<'_, '_, R>, at: &BlockAt, phi: &LoweredPhi) {
    let Lowering { ed, rec, lv, phi_uses, stats, implicit_only } = cx;
    let LoweredPhi {
        pairs,
        incoming,
        reused,
        inc_name,
    } = phi;
    let (incoming, reused) = (*incoming, *reused);
    let mut done: Vec<Block> = Vec::new();
    for (val, pred) in pairs.iter().rev() {
        let pred = *pred;
        if done.contains(&pred) {
            continue;
        }
        done.push(pred);
        let Some(src) = val.vreg_of() else { continue };
        let src_undef = val.has(oflag::UNDEF) || implicit_only[src];
        let count = phi_uses.get_mut(&(pred.index() as u32, src));
        if !val.has(oflag::UNDEF) {
            if let Some(c) = count {
                *c = c.saturating_sub(1);
            }
        }
        let insert_pos = copy_insert_point(ed.f, pred);
        let mut new_copy = None;
        if let (Some(inc), false) = (incoming, reused) {
            let c = ed.insert_at(pred, insert_pos, pred_copy(inc, src, val, src_undef));
            stats.copies_inserted += 1;
            lv.vars[inc].defs.push(c);
            new_copy = Some(c);
        }
        // Kill the source here if this was its last PHI use on this edge and it does
        // not live on past the predecessor.
        let remaining = phi_uses
            .get(&(pred.index() as u32, src))
            .copied()
            .unwrap_or(0);
        let mut kill_at = None;
        let src_live_out = if at.exact_live_out {
            lv.is_live_out_exact(ed.f, src, pred)
        } else {
            lv.is_live_out(ed.f, src, pred)
        };
        if !src_undef && remaining == 0 && !src_live_out {
            if let Some(k) = kill_point(ed.f, src, pred, insert_pos, new_copy) {
                ed.modify(k, |d| {
                    if let Some(op) = d
                        .operands
                        .iter_mut()
                        .find(|o| o.is_use() && o.vreg_of() == Some(src))
                    {
                        op.set(oflag::KILL, true);
                    }
                });
                lv.vars[src].kills.push(k);
                let bn = lv.num_of(pred);
                lv.vars[src].reset_alive(bn);
                stats.kills_added += 1;
                kill_at = Some(k);
            }
        }
        // A source defined only by IMPLICIT_DEF is not read by the IMPLICIT_DEF that
        // replaces the copy: where it now dies is recomputed (rare, one scan).
        if src_undef && !val.has(oflag::UNDEF) && remaining == 0 {
            lv.recompute_var(ed.f, src);
        }
        let (sn, pn) = (
            narration_reg::<R>(ed.f, Reg::Virt(src)),
            ed.f.blocks[pred].number,
        );
        let inc_n = inc_name.clone().unwrap_or_default();
        let live_out = !src_undef && remaining == 0 && kill_at.is_none();
        let edits = ed.take_edits();
        let critical = ed.f.blocks[pred].succs.len() > 1 && at.n_preds > 1;
        rec.step(|| {
            let mut txt = match new_copy {
                Some(_) if src_undef => format!("In %bb.{pn}: the incoming value is undefined, so {inc_n} gets an IMPLICIT_DEF."),
                Some(_) => format!("In %bb.{pn}, before the terminators: {inc_n} = COPY {sn}."),
                None => format!("In %bb.{pn}: no new copy, the reused register already carries the value."),
            };
            if kill_at.is_some() {
                txt.push_str(&format!(" {sn} is not needed after this edge, so it is marked killed here."));
            } else if remaining > 0 {
                txt.push_str(&format!(" {sn} still feeds another PHI on this edge, so it is not killed yet."));
            } else if live_out {
                txt.push_str(&format!(" {sn} stays live out of %bb.{pn}, so no kill."));
            }
            if critical {
                txt.push_str(" The edge is critical and was not split (SplitPHIEdges splits only where the source lives on past the edge, and NVPTX's structured CFG allows it only into a loop header).");
            }
            let mut s = Step::new("phi_pred_copy", txt);
            if let Some(c) = new_copy {
                s = s.focus(Focus::inst(c));
            }
            s.edits = edits.into();
            s
        });
    }
}

/// The predecessor's copy of `val` into `inc`: an IMPLICIT_DEF when the value is
/// undefined.
fn pred_copy(inc: VReg, src: VReg, val: &Operand, src_undef: bool) -> InstData {
    let def = Operand::vreg(inc, oflag::DEF);
    let mut d = if src_undef {
        InstData::new(Opcode::Known(Op::IMPLICIT_DEF), vec![def])
    } else {
        let mut u = Operand::vreg(src, 0);
        u.subreg = val.subreg;
        InstData::new(Opcode::Known(Op::COPY), vec![def, u])
    };
    d.lhs_defs = 1;
    d
}

/// Where `src` dies in `pred` now that its last PHI use on the edge is lowered: a
/// terminator reading it, else the new copy, else (a reused incoming register, no copy)
/// the last reader before the terminators.
fn kill_point(
    f: &Function,
    src: VReg,
    pred: Block,
    insert_pos: Option<Inst>,
    new_copy: Option<Inst>,
) -> Option<Inst> {
    let reads = |i: Inst| {
        f.insts[i]
            .operands
            .iter()
            .any(|o| o.is_use() && o.vreg_of() == Some(src))
    };
    let mut terminator = None;
    let mut cur = insert_pos;
    while let Some(t) = cur {
        if reads(t) {
            terminator = Some(t);
        }
        cur = f.layout.next_inst(t);
    }
    if terminator.is_some() || new_copy.is_some() {
        return terminator.or(new_copy);
    }
    let mut cur = match insert_pos {
        Some(p) => f.layout.prev_inst(p),
        None => f.layout.last_inst(pred),
    };
    while let Some(i) = cur {
        if reads(i) {
            return Some(i);
        }
        cur = f.layout.prev_inst(i);
    }
    None
}
