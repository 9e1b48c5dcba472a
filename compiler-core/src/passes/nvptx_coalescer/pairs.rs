//! Register-pair decomposition (spec: `sub_3497B40`; "Sub-Register Handling"): a wide
//! value built from two halves and taken apart again is a pair move, and it is split
//! into its halves' moves so each half can coalesce. The high half inherits the low
//! half's constraints: it is tried only once the low half has coalesced.
//!
//! ```text
//!  %w:b128 = V2I64toI128 %a, %b          (pack: the family table's PAIR flag, one def)
//!  ...                                    (%a and %b not redefined in between)
//!  %c:b64, %d:b64 = I128toV2I64 %w        (unpack: PAIR, two defs)
//!     ─▶ %c = COPY %a   low half,  sub-operand 0
//!        %d = COPY %b   high half, sub-operand 1   (the unpack and the pack are erased)
//!  worklist: the high half waits until the low half's copy is gone (merged)
//!  pass end: a pair whose low half never merged is put back (pack + unpack), so a
//!            second run splits it afresh and refuses it again (a fixed point)
//! ```
//!
//! Legal only when the unpack is the only reader of the pack's result, in the same
//! block, and neither source is written between them; otherwise both moves stay as
//! written (the step says why). The candidate records of the two half copies carry [`PairHalf`], the
//! spec's sub-operand entries: which half, the partner copy and the wide register.

use super::classify::Candidate;
use super::families::{copy_type, PAIR};
use super::Nvptx;
use crate::entity::EntityRef;
use crate::mir::{oflag, Block, Function, Inst, InstData, Op, Opcode, Reg, VReg};
use crate::trace::{narration_reg, range_rows, Editor, Focus, Payload, Recorder, Step};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// One half of a decomposed pair move (the candidate record's sub-operand entry).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PairHalf {
    /// 0: the low half, 1: the high half.
    pub half: u8,
    /// The other half's copy.
    pub partner: u32,
    /// The wide register the pair moved through.
    pub wide: u32,
    /// The pack and the unpack the pair was split from (kept in the instruction arena
    /// after erasure, so a pair whose low half never merges can be put back together).
    pub pack: u32,
    pub unpack: u32,
}

/// The half copies decomposition made, by instruction (in instruction order: a list
/// searched by halves, not a map of its own; it is made once and only read after).
#[derive(Clone, Debug, Default)]
pub struct PairTable(Vec<(Inst, PairHalf)>);

impl PairTable {
    /// The half copy `i`, if it is one.
    pub fn get(&self, i: Inst) -> Option<&PairHalf> {
        let at = self.0.binary_search_by_key(&i, |e| e.0).ok()?;
        Some(&self.0[at].1)
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The half copies in instruction order.
    pub fn iter(&self) -> impl Iterator<Item = (Inst, &PairHalf)> {
        self.0.iter().map(|(i, p)| (*i, p))
    }
}

/// Why the unpack `u` cannot be split, or the pack that feeds it.
fn feeding_pack(f: &Function, u: Inst) -> Result<Inst, String> {
    let d = &f.insts[u];
    let w = d
        .operands
        .get(2)
        .and_then(|o| o.vreg_of())
        .ok_or("its source is not a register")?;
    let b = f.layout.inst_block(u).ok_or("it is not placed")?;
    let defs: Vec<Inst> = f
        .all_insts()
        .map(|(_, i)| i)
        .filter(|&i| {
            f.insts[i]
                .operands
                .iter()
                .any(|o| o.is_def() && o.vreg_of() == Some(w))
        })
        .collect();
    let [p] = defs[..] else {
        return Err(format!(
            "%{} has {} defs, not one pack",
            w.index(),
            defs.len()
        ));
    };
    let pd = &f.insts[p];
    let ty = copy_type(pd.opcode);
    if !ty.has(PAIR) || pd.lhs_defs != 1 || f.layout.inst_block(p) != Some(b) {
        let name = pd
            .opcode
            .known()
            .map_or("an opcode outside the description", |op| op.name());
        return Err(format!(
            "%{} is defined by {name}, not by a pack of two halves in this block",
            w.index()
        ));
    }
    let srcs: Vec<VReg> = pd.operands[1..]
        .iter()
        .filter_map(|o| o.vreg_of())
        .collect();
    if srcs.len() != 2
        || pd.operands.len() != 3
        || f.vreg_class(srcs[0]) != f.vreg_class(d.operands[0].vreg_of().ok_or("no low def")?)
    {
        return Err(format!(
            "the pack of %{} does not take two halves of the unpack's class",
            w.index()
        ));
    }
    // The unpack must be the wide register's only reader: then the split erases the
    // pack, and the pack's kill flags have one later reader to move to (several
    // unpacks of one pack would each take them).
    let readers = f
        .all_insts()
        .filter(|&(_, i)| {
            f.insts[i]
                .operands
                .iter()
                .any(|o| o.is_use() && o.vreg_of() == Some(w))
        })
        .count();
    if readers != 1 {
        return Err(format!(
            "%{} is read by {readers} instructions, not by this unpack alone",
            w.index()
        ));
    }
    // Walk from the pack to the unpack: neither half may be written in between.
    let mut at = f.layout.next_inst(p);
    while let Some(i) = at {
        if i == u {
            return Ok(p);
        }
        if f.insts[i]
            .operands
            .iter()
            .any(|o| o.is_def() && o.vreg_of().is_some_and(|v| srcs.contains(&v)))
        {
            return Err(String::from(
                "a half is written again between the pack and the unpack",
            ));
        }
        // The half copies read the halves at the unpack: a kill in between would end a
        // half's life before that read.
        if f.insts[i].operands.iter().any(|o| {
            o.is_use() && o.has(oflag::KILL) && o.vreg_of().is_some_and(|v| srcs.contains(&v))
        }) {
            return Err(String::from(
                "a half is read for the last time (killed) between the pack and the unpack",
            ));
        }
        at = f.layout.next_inst(i);
    }
    Err(format!("the pack of %{} comes after the unpack", w.index()))
}

/// Splits every legal pair move of `f` into its halves' copies, one step each, and
/// returns the half copies.
pub fn decompose<R: Recorder>(f: &mut Function, rec: &mut R) -> PairTable {
    let mut table = PairTable::default();
    let unpacks: Vec<(Block, Inst)> = f
        .all_insts()
        .filter(|&(_, i)| {
            let d = &f.insts[i];
            copy_type(d.opcode).has(PAIR) && d.lhs_defs == 2 && d.operands.len() == 3
        })
        .collect();
    let mut ed = Editor::new(f, R::ENABLED);
    for (_, u) in unpacks {
        let wn = ed.f.insts[u].operands[2]
            .vreg_of()
            .map(|v| narration_reg::<R>(ed.f, Reg::Virt(v)))
            .unwrap_or_default();
        let p = match feeding_pack(ed.f, u) {
            Ok(p) => p,
            Err(why) => {
                crate::trace::record(rec, &mut ed, || {
                    Step::new("pair_kept", format!("The unpack of {wn} stays as written, defining both halves from the wide register in one instruction: it cannot be split into half moves because {why}.")).focus(Focus::inst(u))
                });
                continue;
            }
        };
        let (lo, hi, w) = split(&mut ed, p, u);
        for (half, (me, partner)) in [(lo, hi), (hi, lo)].into_iter().enumerate() {
            let wide = w.index() as u32;
            let (pack, unpack) = (p.as_u32(), u.as_u32());
            let partner = partner.as_u32();
            let half = half as u8;
            table.0.push((me, PairHalf { half, partner, wide, pack, unpack }));
        }
        crate::trace::record(rec, &mut ed, || {
            Step::new("pair_decomposed", format!("Pair decomposition: the unpack of {wn} reads the pack just made from two halves, so it becomes two half moves (low half: sub-operand 0, high half: sub-operand 1), each a coalescing candidate; the high half will follow the low one. Nothing else reads the wide register, so the pack is erased too.")).focus(Focus::inst(lo))
        });
    }
    crate::sort::sort_by_key(&mut table.0, |e| e.0.index() as u128);
    table
}

/// Replaces the unpack `u` of the pack `p` by one copy per half and erases `p` (the
/// unpack was its only reader). Returns the low and high copies and the register.
fn split(ed: &mut Editor<'_>, p: Inst, u: Inst) -> (Inst, Inst, VReg) {
    let (pd, ud) = (ed.f.insts[p].clone(), ed.f.insts[u].clone());
    let w = ud.operands[2].vreg_of().expect("checked by feeding_pack");
    // The source operand as the pack read it: its kill flag (if any) moves to the half
    // copy, the later reader (the pack is erased below).
    let same_source = pd.operands[1].vreg_of() == pd.operands[2].vreg_of();
    let halves: [Inst; 2] = core::array::from_fn(|h| {
        let mut src = pd.operands[1 + h];
        if same_source {
            // One register feeds both halves: only the later (high) copy may kill it.
            let killed = pd.operands[1].has(oflag::KILL) || pd.operands[2].has(oflag::KILL);
            src.set(oflag::KILL, h == 1 && killed);
        }
        let mut data = InstData::new(Opcode::Known(Op::COPY), alloc::vec![ud.operands[h], src]);
        data.lhs_defs = 1;
        ed.insert_before(u, data)
    });
    ed.erase(u);
    // The unpack was the wide register's only reader (`feeding_pack`).
    ed.erase(p);
    (halves[0], halves[1], w)
}

impl<R: Recorder> Nvptx<'_, '_, R> {
    /// May the candidate be tried now? A high half waits until its low half's copy is
    /// gone (merged); everything else may.
    pub(crate) fn pair_gate(&mut self, c: &Candidate) -> bool {
        let Some(ph) = c.pair.filter(|p| p.half == 1) else {
            return true;
        };
        let low = Inst::new(ph.partner as usize);
        let low_merged = !self.cx.ed.f.layout.is_inserted(low);
        let (dn, w) = (self.unit_name(c.dst), ph.wide);
        let inst = Inst::new(c.inst as usize);
        if low_merged {
            self.step(|| Step::new("pair_high_follows", format!("{dn} is the high half of the pair moved through %{w}: the low half has coalesced, so the high half inherits its constraints and is tried now.")).focus(Focus::inst(inst)));
        } else {
            self.step(|| Step::new("pair_high_waits", format!("{dn} is the high half of the pair moved through %{w}: it inherits the low half's constraints, and the low half has not coalesced, so it waits (if the low half never does, the pair move is put back together when the pass ends).")).focus(Focus::inst(inst)));
        }
        low_merged
    }

    /// Puts back the pair move of every pair whose low half did not merge: the two
    /// half copies become the pack and the unpack again, so the high half's wait is written in the IR and a second run, which
    /// splits the pair afresh, meets the same refusal and ends with the same text.
    pub(crate) fn rejoin_unmerged(&mut self, table: &PairTable) {
        for (lo, ph) in table.iter().filter(|(_, p)| p.half == 0) {
            let hi = Inst::new(ph.partner as usize);
            let (p, u) = (Inst::new(ph.pack as usize), Inst::new(ph.unpack as usize));
            let Some((pack, unpack)) = self.rejoined(lo, hi, p, u, ph.wide) else {
                continue;
            };
            self.cx.ed.insert_before(lo, pack);
            let at = self.cx.ed.insert_before(lo, unpack);
            self.cx.ed.erase(lo);
            self.cx.ed.erase(hi);
            crate::stats::bump(&mut self.stats.pairs_rejoined, 1);
            let w = ph.wide;
            self.step(|| Step::new("pair_rejoined", format!("The low half of the pair moved through %{w} never coalesced, so neither did the high half that follows it: the two half moves become the pair move again, as written before decomposition.")).focus(Focus::inst(at)));
        }
    }

    /// The pack and unpack that put the pair back, or None when the low half merged or
    /// the halves are no longer the two adjacent copies decomposition made (or the wide
    /// register is named again).
    fn rejoined(
        &self,
        lo: Inst,
        hi: Inst,
        p: Inst,
        u: Inst,
        wide: u32,
    ) -> Option<(InstData, InstData)> {
        let f = &*self.cx.ed.f;
        let l = &f.layout;
        if !l.is_inserted(lo) || !l.is_inserted(hi) || l.next_inst(lo) != Some(hi) {
            return None;
        }
        let (ld, hd) = (&f.insts[lo], &f.insts[hi]);
        if !ld.is(Op::COPY) || !hd.is(Op::COPY) || ld.operands.len() != 2 || hd.operands.len() != 2
        {
            return None;
        }
        let (ldst, hsrc) = (ld.operands[0].vreg_of()?, hd.operands[1].vreg_of());
        if hsrc == Some(ldst) {
            return None;
        }
        let w = VReg::new(wide as usize);
        let mut unpack = f.insts[u].clone();
        unpack.operands[0] = ld.operands[0];
        unpack.operands[1] = hd.operands[0];
        if l.is_inserted(p) {
            return None;
        }
        let named = f
            .all_insts()
            .any(|(_, i)| f.insts[i].operands.iter().any(|o| o.vreg_of() == Some(w)));
        if named {
            return None;
        }
        let mut pack = f.insts[p].clone();
        pack.operands[1] = ld.operands[1];
        pack.operands[2] = hd.operands[1];
        Some((pack, unpack))
    }

    /// One step per decomposed pair with the live ranges of both halves' registers
    /// (the picture's bars), low half first.
    pub(crate) fn pair_ranges_steps(&mut self, cands: &[Candidate]) {
        if !R::ENABLED {
            return;
        }
        for c in cands.iter().filter(|c| c.pair.is_some_and(|p| p.half == 0)) {
            let Some(hi) = cands
                .iter()
                .find(|h| c.pair.is_some_and(|p| p.partner == h.inst))
            else {
                continue;
            };
            let regs = [c.dst.reg, c.src.reg, hi.dst.reg, hi.src.reg];
            let rows = range_rows(regs.iter().map(|&r| (r, &self.main[r as usize])));
            let w = c.pair.map_or(0, |p| p.wide);
            let (l, h) = (
                format!("%{} = COPY %{}", c.dst.reg, c.src.reg),
                format!("%{} = COPY %{}", hi.dst.reg, hi.src.reg),
            );
            let inst = Inst::new(c.inst as usize);
            let (low, high) = ((c.dst.reg, c.src.reg), (hi.dst.reg, hi.src.reg));
            self.step(|| Step::new("pair_halves", format!("The two halves of the pair moved through %{w} side by side: low {l}, high {h}.")).focus(Focus::inst(inst)).payload(Payload::PairHalves { wide: w, low, high, rows: rows.into() }));
        }
    }
}
