//! Tied operands: collecting them per source register (collectTiedOperands) and meeting
//! them with COPYs (processTiedPairs).
//!
//! The map from source register to its (use, def) pairs is LLVM's
//! `SmallDenseMap<unsigned, SmallVector<pair>, 4>`: hash `37 * key`, four inline buckets,
//! growth to 64 at three-quarters load, quadratic probing. Its bucket order decides the
//! order the COPYs of a multi-tie instruction are inserted in, so it is reproduced
//! exactly here (llc-22 prints `%1 = COPY %4` before `%0 = COPY %3` because `%4`'s
//! bucket comes first).

use super::TwoAddr;
use crate::entity::EntityRef;
use crate::mir::{oflag, Function, Inst, InstData, Op, Opcode, Operand, Reg, RegClass, SubReg, VReg};
use crate::trace::{Focus, RegText, Recorder, Step};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use smallvec::{smallvec, SmallVec};

/// (use index, def index).
pub type TiedPair = (usize, usize);
/// One register's pairs (LLVM's `SmallVector<pair, 4>`: inline, as here).
pub type TiedPairs = SmallVec<[TiedPair; 4]>;

/// collectTiedOperands' map, bucket for bucket.
#[derive(Clone, Debug)]
pub struct TiedOperandMap {
    /// Four inline buckets, as LLVM's: the map of an instruction tying one or two
    /// registers allocates nothing (a third passes the three-quarters load and grows
    /// it to 64 buckets).
    buckets: SmallVec<[Option<(Reg, TiedPairs)>; 4]>,
    len: usize,
}

impl Default for TiedOperandMap {
    fn default() -> Self {
        Self::new()
    }
}

/// LLVM's register encoding for hashing: virtual registers have bit 31 set.
fn key_of(r: Reg) -> u32 {
    match r {
        Reg::Virt(v) => 0x8000_0000 | v.index() as u32,
        Reg::Phys(s) => 1 + s.index() as u32,
        Reg::NoReg => 0,
    }
}

impl TiedOperandMap {
    /// An empty map. Its four buckets are laid out at the first push: most
    /// instructions tie nothing, and the pass makes a map for every instruction.
    pub fn new() -> Self {
        TiedOperandMap {
            buckets: SmallVec::new(),
            len: 0,
        }
    }

    fn probe(&self, key: u32) -> (usize, bool) {
        let mask = self.buckets.len() - 1;
        let mut b = (key.wrapping_mul(37) as usize) & mask;
        let mut step = 1;
        loop {
            match &self.buckets[b] {
                None => return (b, false),
                Some((r, _)) if key_of(*r) == key => return (b, true),
                Some(_) => {
                    b = (b + step) & mask;
                    step += 1;
                }
            }
        }
    }

    pub fn push(&mut self, reg: Reg, pair: TiedPair) {
        if self.buckets.is_empty() {
            self.buckets = smallvec![None; 4];
        }
        let (b, found) = self.probe(key_of(reg));
        if found {
            if let Some((_, v)) = &mut self.buckets[b] {
                v.push(pair);
            }
            return;
        }
        if (self.len + 1) * 4 >= self.buckets.len() * 3 {
            self.grow();
            return self.push(reg, pair);
        }
        self.buckets[b] = Some((reg, smallvec![pair]));
        self.len += 1;
    }

    fn grow(&mut self) {
        let want = self.buckets.len() * 2;
        let size = if want > 4 {
            want.next_power_of_two().max(64)
        } else {
            4
        };
        let old = core::mem::replace(&mut self.buckets, smallvec![None; size]);
        for (r, pairs) in old.into_iter().flatten() {
            let (b, _) = self.probe(key_of(r));
            self.buckets[b] = Some((r, pairs));
        }
    }

    /// Entries in bucket order.
    pub fn iter(&self) -> impl Iterator<Item = (Reg, TiedPairs)> + '_ {
        self.buckets.iter().flatten().map(|(r, p)| (*r, p.clone()))
    }

    #[cfg(feature = "testkit")]
    pub fn len(&self) -> usize {
        self.len
    }

    #[cfg(feature = "testkit")]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The only pair, when there is exactly one register with exactly one pair.
    pub fn single_pair(&self) -> Option<TiedPair> {
        let mut it = self.buckets.iter().flatten();
        match (it.next(), it.next()) {
            (Some((_, p)), None) if p.len() == 1 => Some(p[0]),
            _ => None,
        }
    }
}

/// The def operand a use is tied to: an explicit `(tied-def N)`, or INSERT_SUBREG's
/// built-in tie of operand 1 to operand 0.
pub fn tied_def_index(d: &InstData, use_idx: usize) -> Option<usize> {
    if let Some(t) = d.tied_def_of(use_idx) {
        return Some(t);
    }
    (d.is(Op::INSERT_SUBREG) && use_idx == 1 && d.operands.len() >= 4).then_some(0)
}

/// Whether `d` ties no operand: what [`tied_def_index`] would say of each (only
/// INSERT_SUBREG ties without the field). Most instructions tie nothing, and the pass
/// skips them on this answer (the walk of collectTiedOperands makes a call per
/// operand). An instruction marked [`InstData::tie_free`] is answered without reading
/// its operands: on a large function those reads are most of the walk's cache misses
/// (phi-swaps at ~100k instructions: 0.81 -> 0.58 ms).
pub fn ties_nothing(d: &InstData) -> bool {
    !d.is(Op::INSERT_SUBREG) && (d.tie_free || crate::mir::instr::ties_none(&d.operands))
}

/// Whether `i` reads `reg` with a kill flag (isPlainlyKilled).
pub fn kills(f: &Function, i: Inst, reg: VReg) -> bool {
    f.insts[i]
        .operands
        .iter()
        .any(|o| o.is_use() && o.vreg_of() == Some(reg) && o.has(oflag::KILL))
}

/// constrainRegClass: the tighter of two classes of one family (a typed CICC class
/// over an untyped width class), or None when they cannot meet.
pub fn common_subclass(a: RegClass, b: RegClass) -> Option<RegClass> {
    if a == b {
        return Some(a);
    }
    match (a, b) {
        (RegClass::Scalar(x), RegClass::Scalar(y)) if x.family() == y.family() => {
            if x.is_untyped() {
                Some(b)
            } else if y.is_untyped() {
                Some(a)
            } else {
                None
            }
        }
        _ => None,
    }
}

impl<R: Recorder> TwoAddr<'_, '_, R> {
    /// collectTiedOperands: gathers the unmet ties of `mi` by source register; an undef
    /// tied use (or one the emitter marked with the secondary tie flag) is rewritten on
    /// the spot. Returns whether `mi` has tied operands at all.
    pub(crate) fn collect_tied_operands(&mut self, mi: Inst, map: &mut TiedOperandMap) -> bool {
        let mut any = false;
        let n = self.ed.f.insts[mi].operands.len();
        for src_idx in 0..n {
            let d = &self.ed.f.insts[mi];
            let Some(dst_idx) = tied_def_index(d, src_idx) else {
                continue;
            };
            if !d.operands[src_idx].is_use() {
                continue;
            }
            any = true;
            let (src_mo, dst_mo) = (d.operands[src_idx], d.operands[dst_idx]);
            let (Some(src), Some(dst)) = (src_mo.get_reg(), dst_mo.get_reg()) else {
                continue;
            };
            if src == dst && src_mo.subreg.is_none() {
                continue;
            }
            // Direct resolution: an undef use reads nothing, so it can simply name the
            // def's register. (A `tied2` use — the emitter's secondary tie mark — still
            // reads its value and goes the COPY way like any other.)
            if src_mo.has(oflag::UNDEF) && dst_mo.subreg.is_none() {
                if let (Reg::Virt(dv), Some(sv)) = (dst, src_mo.vreg_of()) {
                    if let (Some(dc), Some(sc)) =
                        (self.ed.f.vreg_class(dv), self.ed.f.vreg_class(sv))
                    {
                        if let Some(c) = common_subclass(dc, sc) {
                            self.ed.set_class(dv, Some(c));
                        }
                    }
                }
                self.du.remove_inst(self.ed.f, mi);
                self.ed.modify(mi, |d| {
                    d.operands[src_idx].set_reg(dst);
                    d.operands[src_idx].subreg = None;
                });
                self.du.add_inst(self.ed.f, mi);
                self.stats.undef_ties_rewritten += 1;
                let (sn, dn) = (self.trace_name(src), self.trace_name(dst));
                self.step(|| {
                    Step::new(
                        "tie_direct",
                        format!("Operand {src_idx} ({sn}) is tied to {dn} but its value is never read (undef), so it is renamed to {dn} directly — no COPY needed."),
                    )
                    .focus(Focus::inst(mi))
                });
                continue;
            }
            if !self.tie_counted[mi] {
                self.stats.tied_pairs += 1;
            }
            map.push(src, (src_idx, dst_idx));
        }
        if any {
            self.tie_counted[mi] = true;
        }
        any
    }

    /// processTiedPairs: for each pair whose registers still differ, insert
    /// `dst = COPY src` before `mi`, rename the use, tighten the class and keep kills,
    /// DistanceMap and the equivalence classes current.
    pub(crate) fn process_tied_pairs(&mut self, mi: Inst, pairs: TiedPairs, dist: &mut u32) {
        let early_clobber = pairs
            .iter()
            .any(|&(_, d)| self.ed.f.insts[mi].operands[d].has(oflag::EARLY_CLOBBER));
        let mut removed_kill = false;
        let mut all_copied = true;
        let mut last_copied: Option<Reg> = None;
        let mut reg_b = Reg::NoReg;
        let mut sub_b = None;
        for &(src_idx, dst_idx) in &pairs {
            let d = &self.ed.f.insts[mi];
            let reg_a = d.operands[dst_idx].get_reg().unwrap_or(Reg::NoReg);
            reg_b = d.operands[src_idx].get_reg().unwrap_or(Reg::NoReg);
            sub_b = d.operands[src_idx].subreg;
            if reg_a == reg_b && sub_b.is_none() {
                all_copied = false;
                continue;
            }
            last_copied = Some(reg_a);
            let mut src = Operand::reg(reg_b, 0);
            src.subreg = sub_b;
            let mut copy = InstData::new(
                Opcode::Known(Op::COPY),
                vec![Operand::reg(reg_a, oflag::DEF), src],
            );
            copy.lhs_defs = 1;
            let c = self.ed.insert_before(mi, copy);
            self.du.add_inst(self.ed.f, c);
            if let Reg::Virt(a) = reg_a {
                self.lv_add_def(a, c);
            }
            self.set_dist(c, *dist);
            *dist += 1;
            self.set_dist(mi, *dist);
            self.du.remove_inst(self.ed.f, mi);
            let was_kill = self.ed.modify(mi, |d| {
                let mo = &mut d.operands[src_idx];
                let k = mo.has(oflag::KILL);
                mo.set(oflag::KILL, false);
                mo.set_reg(reg_a);
                mo.subreg = None;
                k
            });
            self.du.add_inst(self.ed.f, mi);
            removed_kill |= was_kill;
            let tightened = self.tighten_tied_class(reg_a, reg_b, sub_b);
            let (an, bn) = (self.reg_name(reg_a), self.reg_name(reg_b));
            let eq_txt = match (reg_a, reg_b, sub_b) {
                (Reg::Virt(a), Reg::Virt(b), None) => {
                    let behind = self.record_copy_class(b, a);
                    format!(", and SrcEqClassMap records {bn} → {an}{behind}")
                }
                (_, Reg::Virt(_), Some(_)) => format!(
                    "; SrcEqClassMap records nothing, as {bn} is read through a sub-register"
                ),
                (_, Reg::Phys(_), _) => {
                    format!("; SrcEqClassMap records nothing, as {bn} is a physical register")
                }
                _ => format!("; SrcEqClassMap records nothing, as {an} is a physical register"),
            };
            self.stats.copies_inserted += 1;
            // The remark is emitted only when commuting was attempted on this
            // instruction first (the spec's condition).
            if self.commute_tried == Some(mi) {
                self.stats.remarks += 1;
                self.rec.remark(format!(
                    "two-address: tied operand forced a COPY of {bn} into {an} after commuting was tried"
                ));
            }
            let attempts = self.attempts_so_far(mi);
            let (src_t, dst_t) = (RegText::of(self.ed.f, reg_b), RegText::of(self.ed.f, reg_a));
            self.step(|| {
                Step::new(
                    "tied_copy",
                    format!("Operand {src_idx} must be the same register as def {dst_idx}: a COPY {an} = {bn} goes in front, the use is renamed to {an}{eq_txt}.{tightened}"),
                )
                .focus(Focus::inst(c))
                .focus(Focus::inst(mi))
                .payload(crate::trace::TiedPair {
                    inst: mi.index() as u32,
                    use_idx: src_idx as u32,
                    def_idx: dst_idx as u32,
                    src: src_t,
                    dst: dst_t,
                    attempts,
                    resolved_by: "copy",
                })
            });
        }
        let Some(last) = last_copied else { return };
        if all_copied {
            // Other, untied reads of the source now read the copy.
            let mut remaining = false;
            self.du.remove_inst(self.ed.f, mi);
            let rk = self.ed.modify(mi, |d| {
                let mut rk = false;
                for mo in d.operands.iter_mut() {
                    if mo.is_use() && mo.get_reg() == Some(reg_b) {
                        if mo.subreg == sub_b && !early_clobber {
                            rk |= mo.has(oflag::KILL);
                            mo.set(oflag::KILL, false);
                            mo.set_reg(last);
                            mo.subreg = None;
                        } else {
                            remaining = true;
                        }
                    }
                }
                rk
            });
            self.du.add_inst(self.ed.f, mi);
            removed_kill |= rk;
            if let (true, false, Reg::Virt(b)) = (removed_kill, remaining, reg_b) {
                if self.lv.enabled && self.lv_remove_kill(b, mi) {
                    if let Some(prev) = self.ed.f.layout.prev_inst(mi) {
                        self.lv_add_kill(b, prev);
                        let bn = self.trace_name(reg_b);
                        self.step(|| Step::new("kill_moved", format!("{bn} no longer dies at the tied instruction but at the COPY just before it.")).focus(Focus::inst(prev)));
                    }
                }
                if let Reg::Virt(l) = last {
                    self.src_reg_map.insert(l, reg_b);
                }
            } else if let (false, false, Reg::Virt(b)) = (removed_kill, remaining, reg_b) {
                self.lv_move_unflagged_kill(b, mi);
            }
        } else if removed_kill {
            self.ed.modify(mi, |d| {
                if let Some(mo) = d
                    .operands
                    .iter_mut()
                    .find(|o| o.is_use() && o.get_reg() == Some(reg_b))
                {
                    mo.set(oflag::KILL, true);
                }
            });
        }
    }

    /// Class tightening after a tied COPY: the def `reg_a` must also suit the operand it
    /// now fills (the common subclass with `reg_b`'s class). The narration's sentence
    /// about it, empty when the class stays.
    fn tighten_tied_class(&mut self, reg_a: Reg, reg_b: Reg, sub_b: Option<SubReg>) -> String {
        let (Reg::Virt(a), Reg::Virt(b), None) = (reg_a, reg_b, sub_b) else {
            return String::new();
        };
        let (Some(ca), Some(cb)) = (self.ed.f.vreg_class(a), self.ed.f.vreg_class(b)) else {
            return String::new();
        };
        match common_subclass(ca, cb) {
            Some(c) if c != ca => {
                self.ed.set_class(a, Some(c));
                format!(
                    " The class of {} is tightened to {}.",
                    self.reg_name(reg_a),
                    c.display(&self.ed.f.names)
                )
            }
            _ => String::new(),
        }
    }

    /// The attempts logged for `mi` by try_instruction_transform, for the payload.
    fn attempts_so_far(&mut self, mi: Inst) -> crate::trace::List<crate::trace::TieAttempt> {
        match self.attempts.take() {
            Some((i, a)) if i == mi => a.into(),
            _ => crate::trace::List::new(),
        }
    }
}
