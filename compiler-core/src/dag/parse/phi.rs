//! PHI lines at a block's head: `PHI:i32 %5 = %3, %bb.0, %7, %bb.1` (a class may
//! follow the register: `%5:b32`). LLVM's dump prints no PHIs (FunctionLoweringInfo
//! creates them as machine instructions before the DAG exists); both syntaxes take
//! this line, CopyScope's own, so that loops can carry values as LLVM's DAGs do.
//!
//! Checks ([`check_phis`], each error at the PHI's line:column): every incoming block
//! exists; no register is defined by two PHIs or by a PHI and a CopyToReg; every
//! incoming register is written somewhere (a CopyToReg or a PHI); the PHI's width is
//! the width every other mention of these registers gives (an `f32` may flow into an
//! `i32` PHI: the lifted MIR's classes say only the width).

use super::{Cursor, MAX_VREG};
use crate::dag::{Dag, DagOp, Operand, Phi, RegRef, Vt};
use crate::error::SourceError;
use crate::mir::RegClass;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::vec::Vec;

/// The prefix that starts a PHI line.
pub(super) const PREFIX: &str = "PHI:";

/// `PHI:ty %reg[:class] = %in, %bb.N, ...`.
pub(super) fn phi_line(c: &mut Cursor<'_>) -> Result<Phi, SourceError> {
    c.pos += PREFIX.len();
    let ty = super::vt(c)?;
    if !ty.is_value() || ty == Vt::Untyped {
        return Err(c.err(format!("a PHI carries a scalar value, not {ty}")));
    }
    c.skip_ws();
    let reg = vreg(c)?;
    let class = if c.eat(":") {
        let ccol = c.col();
        let cw = c.word();
        Some(
            RegClass::parse_nvptx(cw)
                .ok_or_else(|| c.err_at(ccol, format!("unknown register class `{cw}`")))?,
        )
    } else {
        None
    };
    c.skip_ws();
    c.expect("=", "`=` after the PHI's register")?;
    let mut incoming = Vec::new();
    loop {
        c.skip_ws();
        let r = vreg(c)?;
        c.skip_ws();
        c.expect(",", "`,` and the block the value comes from")?;
        c.skip_ws();
        c.expect("%bb.", "a predecessor `%bb.N`")?;
        let b = c.number_u32("a block number")?;
        incoming.push((r, b));
        c.skip_ws();
        if !c.eat(",") {
            break;
        }
    }
    c.end()?;
    Ok(Phi {
        reg,
        ty,
        class,
        incoming,
    })
}

fn vreg(c: &mut Cursor<'_>) -> Result<u32, SourceError> {
    let col = c.col();
    c.expect("%", "a virtual register `%N`")?;
    let v = c.number_u32("a virtual register number after `%`")?;
    if v > MAX_VREG {
        return Err(c.err_at(
            col,
            format!("virtual register %{v} is above the limit {MAX_VREG}"),
        ));
    }
    Ok(v)
}

/// The whole-function PHI checks (see the module notes).
pub(super) fn check_phis(dag: &Dag) -> Result<(), SourceError> {
    // Every type a Register leaf gives a virtual register, and what writes it.
    let mut types: BTreeMap<u32, Vt> = BTreeMap::new();
    let mut written: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for b in dag.blocks.values() {
        for &n in &b.schedule {
            let d = &dag.nodes[n];
            for op in &d.operands {
                if let Operand::Reg {
                    ty,
                    reg: RegRef::Virt(v),
                    ..
                } = op
                {
                    types.entry(*v).or_insert(*ty);
                }
            }
            if let (
                DagOp::CopyToReg,
                Some(Operand::Reg {
                    reg: RegRef::Virt(v),
                    ..
                }),
            ) = (d.op, d.operands.get(1))
            {
                written.entry(*v).or_insert(dag.pos(n));
            }
        }
    }
    for p in dag.blocks.values().flat_map(|b| &b.phis) {
        types.entry(p.reg).or_insert(p.ty);
    }
    let mut defined: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for (b, data) in dag.blocks.iter() {
        for (k, p) in data.phis.iter().enumerate() {
            let (l, col) = dag.phi_pos(b, k);
            let e = |msg: alloc::string::String| Err(SourceError::new(l, col, msg));
            if let Some(&(l0, _)) = defined.get(&p.reg) {
                return e(format!(
                    "%{} is defined by two PHIs (the other on line {l0})",
                    p.reg
                ));
            }
            if let Some(&(l0, _)) = written.get(&p.reg) {
                return e(format!("%{} is defined by this PHI and written by a CopyToReg on line {l0}; a PHI's register has that one definition", p.reg));
            }
            defined.insert(p.reg, (l, col));
            for r in core::iter::once(p.reg).chain(p.incoming.iter().map(|i| i.0)) {
                if let Some(&t) = types.get(&r) {
                    if t.bits() != p.ty.bits() {
                        return e(format!("type mismatch: the PHI is {} but %{r} is {t} elsewhere (a PHI's registers have one width)", p.ty));
                    }
                }
            }
            let mut seen: Vec<u32> = Vec::new();
            for &(_, blk) in &p.incoming {
                if !dag.blocks.values().any(|x| x.number == blk) {
                    return e(format!(
                        "incoming block %bb.{blk}, but the DAG has no such block"
                    ));
                }
                if seen.contains(&blk) {
                    return e(format!("%bb.{blk} is listed twice"));
                }
                seen.push(blk);
            }
        }
    }
    // Incoming registers are written somewhere (after all PHIs are known).
    for (b, data) in dag.blocks.iter() {
        for (k, p) in data.phis.iter().enumerate() {
            for &(r, blk) in &p.incoming {
                if !written.contains_key(&r) && !defined.contains_key(&r) {
                    let (l, col) = dag.phi_pos(b, k);
                    return Err(SourceError::new(l, col, format!("%{r} (from %bb.{blk}) is never written: no CopyToReg writes it and no PHI defines it")));
                }
            }
        }
    }
    Ok(())
}
