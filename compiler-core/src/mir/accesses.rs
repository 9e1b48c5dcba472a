//! Register accesses gathered once per function, and the block-level liveness solver
//! that the verifier's read-before-def rule (`verify_reads.rs`) and the liveness
//! analyses (`LiveVariables`, `LiveIntervals`) share.
//!
//! ```text
//!  Function ──one layout-order scan──▶ Accesses { per vreg: [Access], per vreg: [PhiUse] }
//!  per unit (a vreg, or one lane of a tuple vreg):
//!      [BlockSummary { reads first?, defines? }] + PHI predecessors
//!        ──solve()──▶ LIVE_IN / LIVE_OUT per touched block (backward worklist)
//! ```
//!
//! Invariants: a vreg's accesses are in layout order, so one block's accesses are
//! contiguous and one instruction's operands are adjacent; a PHI's incoming value is
//! not an access of the PHI's block but a use at the end of the predecessor it names
//! (LLVM's LiveVariables treats it the same way); `undef` uses and debug uses read
//! nothing. The solver touches only blocks where the unit is live or accessed and
//! resets exactly those, so a whole function costs time proportional to the sum of
//! the live ranges, not vregs × blocks.

use super::cfg::Cfg;
use crate::entity::EntityRef;
use crate::mir::{oflag, Block, Function, Inst, InstData, OperandKind, RegClass, SubReg, VReg};
use alloc::vec;
use alloc::vec::Vec;

/// A set of tuple lanes (bit `k` = `sub{k}`); [`ALL_LANES`] for a whole register.
pub type LaneMask = u64;
pub const ALL_LANES: LaneMask = !0;

/// The lanes one operand touches.
pub fn operand_lanes(sub: Option<SubReg>) -> LaneMask {
    match sub.and_then(SubReg::lane) {
        Some(k) if k < 64 => 1 << k,
        _ => ALL_LANES,
    }
}

/// The mask of every lane of `class` (all bits for scalars and unknown classes).
pub fn class_lanes(class: Option<RegClass>) -> LaneMask {
    match class {
        Some(RegClass::Tuple { lanes, .. }) if lanes < 64 => (1u64 << lanes) - 1,
        _ => ALL_LANES,
    }
}

/// One register operand of one instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub block: Block,
    pub inst: Inst,
    /// Operand index in the instruction.
    pub op: u16,
    pub is_def: bool,
    /// For uses: not `undef`. For defs: has a sub-register and no `undef`, so the
    /// lanes it does not write keep their old value (a read-modify-write).
    pub reads: bool,
    pub early_clobber: bool,
    pub lanes: LaneMask,
}

/// A PHI reading a vreg when control arrives from `pred`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PhiUse {
    pub pred: Block,
    pub phi: Inst,
    pub op: u16,
}

/// All vreg accesses of a function, bucketed by vreg (compressed rows).
#[derive(Clone, Debug, Default)]
pub struct Accesses {
    starts: Vec<u32>,
    items: Vec<Access>,
    phi_starts: Vec<u32>,
    phi_items: Vec<PhiUse>,
}

impl Accesses {
    pub fn collect(f: &Function) -> Self {
        Self::collect_visiting(f, |_, _, _| {})
    }

    /// [`Accesses::collect`], also handing every instruction (in layout order, with its
    /// block) to `visit` on the same walk: on a function larger than the cache, a
    /// second walk would fetch every instruction and operand from memory again.
    pub fn collect_visiting(f: &Function, mut visit: impl FnMut(Block, Inst, &InstData)) -> Self {
        let n = f.vreg_end as usize;
        let mut counts = vec![0u32; n + 1];
        let mut phi_counts = vec![0u32; n + 1];
        // One walk: the items go to a staging list in walk order while they are
        // counted, then a counting sort moves them into per-vreg rows. A second walk
        // over the instructions would fetch every operand again; on a large function
        // that is a trip to memory per operand, where the staging list streams.
        let mut staged: Vec<(u32, Access)> = Vec::with_capacity(f.insts.len() * 2);
        let mut staged_phis: Vec<(u32, PhiUse)> = Vec::new();
        for (b, i) in f.all_insts() {
            let d = &f.insts[i];
            visit(b, i, d);
            let is_phi = d.is(crate::mir::Op::PHI);
            for (k, o) in d.operands.iter().enumerate() {
                let Some(v) = o.vreg_of() else { continue };
                if v.index() >= n || o.has(oflag::DEBUG_USE) {
                    continue;
                }
                let is_def = o.is_def();
                if !is_def && o.has(oflag::UNDEF) {
                    continue;
                }
                if is_phi && !is_def {
                    if let Some(OperandKind::Block(pred)) = d.operands.get(k + 1).map(|x| x.kind) {
                        phi_counts[v.index()] += 1;
                        let op = k as u16;
                        staged_phis.push((v.as_u32(), PhiUse { pred, phi: i, op }));
                        continue;
                    }
                }
                counts[v.index()] += 1;
                staged.push((
                    v.as_u32(),
                    Access {
                        block: b,
                        inst: i,
                        op: k as u16,
                        is_def,
                        reads: !is_def || (o.subreg.is_some() && !o.has(oflag::UNDEF)),
                        early_clobber: o.has(oflag::EARLY_CLOBBER),
                        lanes: operand_lanes(o.subreg),
                    },
                ));
            }
        }
        let mut starts = prefix_sums(&counts);
        let mut phi_starts = prefix_sums(&phi_counts);
        let items = scatter(&staged, &mut starts);
        let phi_items = scatter(&staged_phis, &mut phi_starts);
        shift_back(&mut starts, &counts);
        shift_back(&mut phi_starts, &phi_counts);
        Accesses {
            starts,
            items,
            phi_starts,
            phi_items,
        }
    }

    /// Accesses of `v` in layout order (PHI incoming values excluded).
    pub fn of(&self, v: VReg) -> &[Access] {
        let k = v.index();
        if k + 1 >= self.starts.len() {
            return &[];
        }
        &self.items[self.starts[k] as usize..self.starts[k + 1] as usize]
    }

    /// PHI incoming values that read `v`.
    pub fn phi_uses_of(&self, v: VReg) -> &[PhiUse] {
        let k = v.index();
        if k + 1 >= self.phi_starts.len() {
            return &[];
        }
        &self.phi_items[self.phi_starts[k] as usize..self.phi_starts[k + 1] as usize]
    }
}

/// Places each staged item at its row's cursor (rows keep walk order); the cursors end
/// one row further on and are shifted back by the caller.
fn scatter<T: Copy>(staged: &[(u32, T)], cursors: &mut [u32]) -> Vec<T> {
    let Some(&(_, first)) = staged.first() else {
        return Vec::new();
    };
    let mut out = vec![first; staged.len()];
    for &(v, item) in staged {
        let c = &mut cursors[v as usize];
        out[*c as usize] = item;
        *c += 1;
    }
    out
}

fn prefix_sums(counts: &[u32]) -> Vec<u32> {
    let mut s = Vec::with_capacity(counts.len());
    let mut acc = 0;
    for &c in counts {
        s.push(acc);
        acc += c;
    }
    s
}

fn shift_back(starts: &mut [u32], counts: &[u32]) {
    for (s, &c) in starts.iter_mut().zip(counts) {
        *s -= c;
    }
}

/// What one instruction does to one unit (a whole vreg or one lane).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InstEffect {
    pub block: Block,
    pub inst: Inst,
    /// Reads the unit's value from before the instruction.
    pub reads: bool,
    /// Gives the unit a new value.
    pub defs: bool,
    pub early_clobber: bool,
    /// The first operand that reads the unit explicitly (a use, not a partial def):
    /// where a kill flag goes.
    pub first_use_op: Option<u16>,
}

/// Folds a vreg's accesses into per-instruction effects on the lanes `unit` of a
/// register whose class has the lanes `all`. A write that covers only some lanes of
/// the unit (and is not `undef`) reads the rest: the whole-register view of LLVM's
/// LiveVariables without sub-register liveness. `lane_live_before`, when given,
/// decides instead whether the untouched lanes hold a value at that point, whatever
/// the `undef` flags say (the main range of a tuple is then exactly the union of its
/// lanes).
pub fn inst_effects(
    accesses: &[Access],
    unit: LaneMask,
    all: LaneMask,
    out: &mut Vec<InstEffect>,
    lane_live_before: Option<&dyn Fn(Inst, LaneMask) -> bool>,
) {
    out.clear();
    let mut k = 0;
    while k < accesses.len() {
        let inst = accesses[k].inst;
        let mut e = InstEffect {
            block: accesses[k].block,
            inst,
            reads: false,
            defs: false,
            early_clobber: false,
            first_use_op: None,
        };
        let mut written: LaneMask = 0;
        let mut partial_keeps = false;
        // A partial write through a named (non-lane) sub-register index: which part it
        // keeps is unknown, so it always reads.
        let mut named_keeps = false;
        while k < accesses.len() && accesses[k].inst == inst {
            let a = accesses[k];
            k += 1;
            if a.lanes & unit == 0 {
                continue;
            }
            if a.is_def {
                e.defs = true;
                e.early_clobber |= a.early_clobber;
                written |= a.lanes;
                partial_keeps |= a.reads;
                named_keeps |= a.reads && a.lanes == ALL_LANES;
            } else {
                e.reads = true;
                if e.first_use_op.is_none() {
                    e.first_use_op = Some(a.op);
                }
            }
        }
        if e.defs {
            let untouched = unit & all & !written;
            match lane_live_before {
                // Lane-aware: the register stays live across the write exactly when a
                // lane it does not write holds a value (`undef` flags do not matter).
                Some(live) => {
                    if untouched != 0 {
                        e.reads |= live(inst, untouched);
                    }
                }
                None => {
                    if named_keeps || (partial_keeps && untouched != 0) {
                        e.reads = true;
                    }
                }
            }
        }
        if e.reads || e.defs {
            out.push(e);
        }
    }
}

/// Per-instruction effects from chosen accesses: `reads` picks the uses that count as
/// reads, `defs` the defs that count as writes (no read-modify-write inference).
pub fn simple_effects(
    accesses: &[Access],
    reads: impl Fn(&Access) -> bool,
    defs: impl Fn(&Access) -> bool,
    out: &mut Vec<InstEffect>,
) {
    out.clear();
    for a in accesses {
        let (r, d) = if a.is_def {
            (false, defs(a))
        } else {
            (reads(a), false)
        };
        if !r && !d {
            continue;
        }
        match out.last_mut() {
            Some(e) if e.inst == a.inst => {
                e.reads |= r;
                e.defs |= d;
                e.early_clobber |= d && a.early_clobber;
                if r && e.first_use_op.is_none() {
                    e.first_use_op = Some(a.op);
                }
            }
            _ => out.push(InstEffect {
                block: a.block,
                inst: a.inst,
                reads: r,
                defs: d,
                early_clobber: d && a.early_clobber,
                first_use_op: r.then_some(a.op),
            }),
        }
    }
}

/// Block summary flags in the solver's scratch table.
pub const LIVE_IN: u8 = 1;
pub const LIVE_OUT: u8 = 2;
pub const DEFINES: u8 = 4;
pub const READS_FIRST: u8 = 8;
const TOUCHED: u8 = 16;

/// Reusable dense per-block state for [`Solver::solve`].
#[derive(Clone, Debug)]
pub struct Solver {
    flags: Vec<u8>,
    touched: Vec<Block>,
    work: Vec<Block>,
}

impl Solver {
    pub fn new(cfg: &Cfg) -> Self {
        Solver {
            flags: vec![0; cfg.num_blocks()],
            touched: Vec::new(),
            work: Vec::new(),
        }
    }

    fn touch(&mut self, b: Block, f: u8) {
        let x = &mut self.flags[b.index()];
        if *x & TOUCHED == 0 {
            self.touched.push(b);
            *x |= TOUCHED;
        }
        *x |= f;
    }

    pub fn flags(&self, b: Block) -> u8 {
        self.flags.get(b.index()).copied().unwrap_or(0)
    }

    /// Blocks with any state, in the order they were first touched.
    pub fn touched(&self) -> &[Block] {
        &self.touched
    }

    /// Clears the state of the blocks the last solve touched.
    pub fn reset(&mut self) {
        for &b in &self.touched {
            self.flags[b.index()] = 0;
        }
        self.touched.clear();
    }

    /// Computes which blocks the unit is live into and out of. `effects` are the
    /// unit's instruction effects in layout order; `phi_preds` are the predecessors a
    /// PHI reads the unit from (live out of each).
    pub fn solve(&mut self, cfg: &Cfg, effects: &[InstEffect], phi_preds: &[Block]) {
        self.reset();
        // Per block: does a read come before (or with) the first def? any def?
        let mut k = 0;
        while k < effects.len() {
            let b = effects[k].block;
            let mut seen_def = false;
            let mut fl = 0;
            while k < effects.len() && effects[k].block == b {
                let e = effects[k];
                if e.reads && !seen_def {
                    fl |= READS_FIRST;
                }
                if e.defs {
                    seen_def = true;
                    fl |= DEFINES;
                }
                k += 1;
            }
            self.touch(b, fl);
        }
        self.work.clear();
        for i in 0..self.touched.len() {
            let b = self.touched[i];
            if self.flags[b.index()] & READS_FIRST != 0 {
                self.flags[b.index()] |= LIVE_IN;
                self.work.push(b);
            }
        }
        for &p in phi_preds {
            if !cfg.in_layout(p) {
                continue;
            }
            self.mark_live_out(p);
        }
        while let Some(b) = self.work.pop() {
            for &p in cfg.preds(b) {
                self.mark_live_out(p);
            }
        }
    }

    fn mark_live_out(&mut self, p: Block) {
        let fl = self.flags[p.index()];
        if fl & LIVE_OUT == 0 {
            self.touch(p, LIVE_OUT);
        }
        let fl = self.flags[p.index()];
        if fl & (DEFINES | LIVE_IN) == 0 {
            self.flags[p.index()] |= LIVE_IN;
            self.work.push(p);
        }
    }
}
