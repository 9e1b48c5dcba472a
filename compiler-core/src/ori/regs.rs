//! The register table's shared helpers: which names are special registers, the
//! registers an operand or instruction touches, and the count of definitions, uses
//! and def anchors ptx-lower fills and every GeneralOptimize instance keeps settled.
//! They live with the IR so that the IR's own verifier and interpreter, ptx-lower and
//! GeneralOptimize read them from one place.

use super::{constraint, AddrBase, Function, Inst, InstId, OpKind, Operand, RegId, RegInfo};

/// Special registers PTX names without declaring them.
/// (every special register of the PTX ISA 9.0 list, cluster registers included).
pub fn is_special(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or(name);
    matches!(
        base,
        "%tid"
            | "%ntid"
            | "%ctaid"
            | "%nctaid"
            | "%laneid"
            | "%warpid"
            | "%nwarpid"
            | "%smid"
            | "%nsmid"
            | "%gridid"
            | "%clock"
            | "%clock64"
            | "%clock_hi"
            | "%lanemask_eq"
            | "%lanemask_le"
            | "%lanemask_lt"
            | "%lanemask_ge"
            | "%lanemask_gt"
            | "%globaltimer"
            | "%globaltimer_lo"
            | "%globaltimer_hi"
            | "%dynamic_smem_size"
            | "%total_smem_size"
            | "%aggr_smem_size"
            | "%is_explicit_cluster"
            | "%clusterid"
            | "%nclusterid"
            | "%cluster_ctaid"
            | "%cluster_nctaid"
            | "%cluster_ctarank"
            | "%cluster_nctarank"
            | "%current_graph_exec"
    ) || base.starts_with("%envreg")
        || base.starts_with("%pm")
        || base.starts_with("%reserved_smem_offset")
}

/// Special registers whose value changes while a thread runs (counters, timers, and
/// `%warpid` / `%smid`, which PTX says may change when a thread is rescheduled): two
/// reads of one of them are never the same value.
pub fn is_volatile_special(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or(name);
    base.starts_with("%clock")
        || base.starts_with("%globaltimer")
        || base.starts_with("%pm")
        || matches!(base, "%warpid" | "%smid")
}

/// Calls `f(register, is a definition)` for every register an operand touches, in
/// operand order, without collecting them.
pub fn each_reg(o: &Operand, def: bool, f: &mut dyn FnMut(RegId, bool)) {
    match &o.kind {
        OpKind::Reg(r) => f(*r, def),
        OpKind::Addr(a) => {
            if let AddrBase::Reg(r) = a.base {
                f(r, false);
            }
            for e in &a.extra {
                each_reg(e, false, f);
            }
        }
        OpKind::Vec(v) | OpKind::Paren(v) => {
            for e in v.iter() {
                each_reg(e, def, f);
            }
        }
        OpKind::Pair(a, b) => {
            each_reg(a, def, f);
            each_reg(b, def, f);
        }
        OpKind::Not(a) => each_reg(a, false, f),
        _ => {}
    }
}

/// Calls `f(register, is a definition)` for every register an instruction touches,
/// guard last, in operand order.
pub fn for_each_reg(i: &Inst, mut f: impl FnMut(RegId, bool)) {
    for (k, o) in i.operands.iter().enumerate() {
        match o.kind {
            // The common kinds inline; nested ones through the general walk.
            OpKind::Reg(r) => f(r, k < i.ndst as usize),
            OpKind::Imm(_) | OpKind::Block(_) | OpKind::Sym(_) | OpKind::Special(_) => {}
            _ => each_reg(o, k < i.ndst as usize, &mut f),
        }
    }
    if let Some((g, _)) = i.guard {
        f(g, false);
    }
}

/// Recomputes defs, uses and def anchors of every register from the instructions in
/// layout (constraint bits stay; a register defined twice keeps MULTI_DEF). Whole
/// function: inside the per-block loops a [`Tally`] recounts one block instead.
pub fn refresh(f: &mut Function) {
    for r in f.regs.values_mut() {
        r.defs = 0;
        r.uses = 0;
        r.def_anchor = None;
    }
    let Function {
        blocks,
        insts,
        regs,
        ..
    } = f;
    for blk in blocks.values() {
        for &i in &blk.insts {
            for_each_reg(&insts[i], |r, def| count(&mut regs[r], def, i));
        }
    }
}

/// Counts one appearance of a register in instruction `i`, in layout order.
pub fn count(info: &mut RegInfo, def: bool, i: InstId) {
    if def {
        info.defs += 1;
        info.def_anchor = (info.defs == 1).then_some(i);
        if info.defs > 1 {
            info.constraint |= constraint::MULTI_DEF;
        }
    } else {
        info.uses += 1;
    }
}
