//! CSSA coalescing (spec: register-coalescing-cicc.txt, "CSSA Coalescing"): before PHI
//! elimination, a PHI whose incoming registers can all share its def's register is
//! dissolved, so PHI lowering makes no copy for it at all.
//!
//! ```text
//!  dump-before-cssa ─▶ one step holding the IR as printed
//!  for each PHI  %d = PHI %a, %bb.x, %b, %bb.y, ...   (in layout order)
//!     every incoming register: same class as %d, in no other PHI's group, and its
//!     live range meets neither %d's nor any other register of the group?
//!       all yes ─▶ rename each to %d, erase the PHI             (cssa_merge, cssa_phi_removed)
//!       any no  ─▶ leave the PHI whole to PHI elimination       (cssa_phi_kept)
//!  cssa-verbosity: 0 one summary step, 1 a step per PHI, 2 also a step per register
//! ```
//!
//! All or nothing per PHI: renaming only some incoming registers still leaves the PHI,
//! whose lowering then copies into and out of a register that now lives longer, and the
//! coalescers afterwards can no longer remove those copies (ll_phi_loop ended with 6
//! COPYs instead of 4, fib_swap with 5 instead of 3). A dissolved PHI needs no copy; a
//! kept one is lowered exactly as without CSSA. Live ranges are those of the SSA input,
//! so the overlap test is the classic interference test and renaming keeps every value.

use crate::entity::{EntityRef, SecondaryMap};
use crate::mir::{oflag, Function, Inst, Op, Reg, VReg};
use crate::passes::phi_elim::phi_pairs;
use crate::passes::uses::DefUse;
use crate::passes::phi_elim::PhiElimStats;
use crate::stats::bump;
use crate::trace::{narration_reg, Editor, Focus, Payload, Recorder, Step};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// What the CSSA stage records and whether it coalesces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CssaOptions {
    /// `cssa-verbosity`: 0 one summary step, 1 one step per PHI, 2 one per register too.
    pub verbosity: u32,
    /// `dump-before-cssa`: a step holding the function as printed before CSSA runs.
    pub dump_before: bool,
    /// `cssa-coalesce`: whether PHIs are dissolved at all (off: only the dump).
    pub coalesce: bool,
}

/// Why an incoming register cannot join its PHI's group.
fn refusal<R: Recorder>(
    f: &Function,
    x: VReg,
    d: VReg,
    group: &[VReg],
    taken: bool,
    lis: &crate::liveness::LiveIntervals,
) -> Option<String> {
    let name = |v: VReg| narration_reg::<R>(f, Reg::Virt(v));
    if taken {
        return Some(format!(
            "{} already shares the register of another PHI",
            name(x)
        ));
    }
    if f.vreg_class(x) != f.vreg_class(d) {
        return Some(format!(
            "{} is in another register class than {}",
            name(x),
            name(d)
        ));
    }
    group
        .iter()
        .find(|&&m| lis.overlaps(m, x))
        .map(|&m| format!("{} is live at the same time as {}", name(x), name(m)))
}

/// Runs CSSA coalescing on `f` (still in SSA form), counting into `stats`
/// (`cssa_merged`, `cssa_phis_removed`, `cssa_phis_kept`).
pub fn run<R: Recorder>(f: &mut Function, opts: &CssaOptions, rec: &mut R, stats: &mut PhiElimStats) {
    if opts.dump_before && R::ENABLED {
        let text = crate::mir::print_function(f);
        rec.step(|| {
            Step::new(
                "cssa_dump",
                "dump-before-cssa: the function as it stands before CSSA coalescing.",
            )
            .payload(Payload::IrSnapshot { text })
        });
    }
    if !opts.coalesce {
        return;
    }
    let (lis, mut du) = DefUse::with_intervals(f);
    let mut taken: SecondaryMap<VReg, bool> = SecondaryMap::new();
    let mut ed = Editor::new(f, R::ENABLED);
    let phis: Vec<Inst> =
        ed.f.all_insts()
            .filter(|&(_, i)| ed.f.insts[i].is(Op::PHI))
            .map(|(_, i)| i)
            .collect();
    for phi in phis {
        let Some(d) = ed.f.insts[phi].operands.first().and_then(|o| o.vreg_of()) else {
            continue;
        };
        let mut incoming: Vec<VReg> = phi_pairs(&ed.f.insts[phi])
            .filter(|(v, _)| !v.has(oflag::UNDEF))
            .filter_map(|(v, _)| v.vreg_of())
            .filter(|&v| v != d)
            .collect();
        crate::sort::sort_by_key(&mut incoming, |v| v.index() as u128);
        incoming.dedup();
        // The group: the def and every incoming register accepted so far.
        let mut group: Vec<VReg> = alloc::vec![d];
        let mut refused = None;
        for &x in &incoming {
            match refusal::<R>(ed.f, x, d, &group, taken[x] || taken[d], &lis) {
                Some(why) => {
                    refused = Some(why);
                    break;
                }
                None => group.push(x),
            }
        }
        let dn = narration_reg::<R>(ed.f, Reg::Virt(d));
        if let Some(why) = refused {
            bump(&mut stats.cssa_phis_kept, 1);
            if opts.verbosity >= 1 {
                rec.step(|| Step::new("cssa_phi_kept", format!("CSSA keeps the PHI of {dn}: {why}, so not every incoming value can share {dn}'s register; PHI elimination lowers it as usual.")).focus(Focus::inst(phi)));
            }
            continue;
        }
        for &x in &group[1..] {
            rename(&mut ed, &mut du, x, d);
            taken[x] = true;
            stats.cssa_merged += 1;
            if opts.verbosity >= 2 {
                let xn = narration_reg::<R>(ed.f, Reg::Virt(x));
                let edits = ed.take_edits();
                rec.step(|| {
                    let mut s = Step::new("cssa_merge", format!("CSSA: {xn} flows into the PHI of {dn} and its live range meets no other register of the group, so {xn} is renamed to {dn}."));
                    s.edits = edits.into();
                    s.focus(Focus::vreg(d))
                });
            }
        }
        taken[d] = true;
        du.remove_inst(ed.f, phi);
        ed.erase(phi);
        stats.cssa_phis_removed += 1;
        if opts.verbosity >= 1 {
            let n = group.len() - 1;
            let edits = ed.take_edits();
            rec.step(|| {
                let mut s = Step::new("cssa_phi_removed", format!("CSSA dissolves the PHI of {dn}: its {n} incoming register(s) never live at the same time as {dn} or each other, so all now are {dn} and the PHI is erased; no copy will be needed for it."));
                s.edits = edits.into();
                s.focus(Focus::vreg(d))
            });
        }
    }
    let edits = ed.take_edits();
    if opts.verbosity == 0 || !edits.is_empty() {
        let (m, r, k) = (
            stats.cssa_merged,
            stats.cssa_phis_removed,
            stats.cssa_phis_kept.unwrap_or(0),
        );
        rec.step(|| {
            let mut s = Step::new("cssa_done", format!("CSSA coalescing finished: {r} PHI(s) dissolved ({m} register(s) renamed), {k} left to PHI elimination."));
            s.edits = edits.into();
            s
        });
    }
}

/// Renames `x` to `d` at every def and use.
fn rename(ed: &mut Editor<'_>, du: &mut DefUse, x: VReg, d: VReg) {
    let mut touched: Vec<Inst> = du.defs[x]
        .iter()
        .chain(du.uses[x].iter())
        .copied()
        .collect();
    crate::sort::sort_by_key(&mut touched, |i| i.as_u32().into());
    touched.dedup();
    for i in touched {
        du.remove_inst(ed.f, i);
        ed.modify(i, |data| {
            for o in data.operands.iter_mut() {
                if o.vreg_of() == Some(x) {
                    o.set_reg(Reg::Virt(d));
                }
            }
        });
        du.add_inst(ed.f, i);
    }
}
