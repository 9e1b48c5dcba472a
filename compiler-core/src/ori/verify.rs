//! The ORI verifier: checks a function against the invariants every ORI stage
//! (ptx-lower, the six GeneralOptimize phases) must leave, and reports each violation
//! with the rule it breaks and the block / instruction it concerns.
//!
//! ```text
//!  ori::Function ──verify──▶ [OriVerifyError { rule, block?, inst?, message }]
//! ```
//!
//! Rules (the `rule` field names them):
//!
//! - `entry`: a function with a body has a block 0.
//! - `anchor`: every block starts with a class-97 anchor whose operand is that block's
//!   index; no other instruction in the layout is class 97.
//! - `layout`: every placed instruction exists in storage and is placed once.
//! - `branch-target`: a block operand names a block of the function.
//! - `register`: every register operand (addresses, groups and guards included) names
//!   an entry of the register table.
//! - `guard`: a guard is a predicate register.
//! - `destinations`: the destination count is at most the operand count.
//! - `scope`: instructions and registers name a scope of the function, and each
//!   scope's parent comes before it.
//! - `visible`: an instruction names only registers visible from its scope (declared
//!   there or around it, not shadowed in between: PTX's rule).
//! - `terminator`: an unguarded branch or exit ends its block.
//! - `counts`: each register's def and use counts and defining instruction equal a
//!   recount over the layout (what GeneralOptimize's decisions read).
//!
//! The verifier never panics, whatever the function holds (rules that need valid
//! indexes are skipped when an earlier rule found them invalid).

use super::{BlockId, Class, Function, InstId, OpKind, Operand};
use crate::entity::EntityRef;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OriVerifyError {
    pub rule: &'static str,
    pub block: Option<BlockId>,
    pub inst: Option<InstId>,
    pub message: String,
}

impl fmt::Display for OriVerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.rule)?;
        if let Some(b) = self.block {
            write!(f, " block {}", b.index())?;
        }
        if let Some(i) = self.inst {
            write!(f, " {i}")?;
        }
        write!(f, ": {}", self.message)
    }
}

struct Out<'a> {
    f: &'a Function,
    errors: Vec<OriVerifyError>,
}

impl Out<'_> {
    fn err(&mut self, rule: &'static str, block: Option<BlockId>, inst: Option<InstId>, m: String) {
        self.errors.push(OriVerifyError {
            rule,
            block,
            inst,
            message: m,
        });
    }
}

/// Checks `f`; an empty list means every rule holds.
pub fn verify(f: &Function) -> Vec<OriVerifyError> {
    let mut o = Out {
        f,
        errors: Vec::new(),
    };
    if f.is_decl {
        return o.errors;
    }
    if f.blocks.is_empty() {
        o.err(
            "entry",
            None,
            None,
            "the function has a body but no block".into(),
        );
        return o.errors;
    }
    check_scopes(&mut o);
    let layout_ok = check_layout(&mut o);
    for (b, blk) in f.blocks.iter() {
        for (k, &id) in blk.insts.iter().enumerate() {
            if f.insts.get(id).is_some() {
                check_inst(&mut o, b, k, id);
            }
        }
    }
    if layout_ok && o.errors.iter().all(|e| e.rule != "register") {
        check_counts(&mut o);
    }
    o.errors
}

fn check_scopes(o: &mut Out) {
    let f = o.f;
    for (k, s) in f.scopes.iter().enumerate().skip(1) {
        if s.parent as usize >= k {
            o.err(
                "scope",
                None,
                None,
                format!("scope {k}'s parent {} does not come before it", s.parent),
            );
        }
    }
    for info in f.regs.values() {
        if info.scope as usize >= f.scopes.len().max(1) {
            o.err(
                "scope",
                None,
                None,
                format!(
                    "register {} names scope {}, which does not exist",
                    info.name, info.scope
                ),
            );
        }
    }
}

/// `anchor` and `layout`; false when an instruction is missing or placed twice.
fn check_layout(o: &mut Out) -> bool {
    let f = o.f;
    let mut placed = vec![false; f.insts.len()];
    let mut ok = true;
    for (b, blk) in f.blocks.iter() {
        for (k, &id) in blk.insts.iter().enumerate() {
            let Some(i) = f.insts.get(id) else {
                o.err(
                    "layout",
                    Some(b),
                    Some(id),
                    "placed but not in storage".into(),
                );
                ok = false;
                continue;
            };
            if core::mem::replace(&mut placed[id.index()], true) {
                o.err("layout", Some(b), Some(id), "placed more than once".into());
                ok = false;
            }
            let anchor = i.class == Class::Anchor;
            if k == 0 {
                let own = matches!(i.operands.first().map(|x| &x.kind), Some(OpKind::Block(n)) if *n == b);
                if !anchor || !own {
                    o.err(
                        "anchor",
                        Some(b),
                        Some(id),
                        "the block does not start with its own class-97 anchor".into(),
                    );
                }
            } else if anchor {
                o.err(
                    "anchor",
                    Some(b),
                    Some(id),
                    "a class-97 anchor inside a block".into(),
                );
            }
        }
        if blk.insts.is_empty() {
            o.err("anchor", Some(b), None, "the block has no anchor".into());
        }
    }
    ok
}

fn check_inst(o: &mut Out, b: BlockId, k: usize, id: InstId) {
    let f = o.f;
    let i = &f.insts[id];
    if i.ndst as usize > i.operands.len() {
        o.err(
            "destinations",
            Some(b),
            Some(id),
            format!("{} destinations, {} operands", i.ndst, i.operands.len()),
        );
    }
    if i.scope as usize >= f.scopes.len().max(1) {
        o.err(
            "scope",
            Some(b),
            Some(id),
            format!("scope {} does not exist", i.scope),
        );
    }
    let mut regs = Vec::new();
    for op in &i.operands {
        walk(op, &mut |x| match &x.kind {
            OpKind::Reg(r) => regs.push(*r),
            OpKind::Block(t) if f.blocks.get(*t).is_none() => o.err(
                "branch-target",
                Some(b),
                Some(id),
                format!("block {} does not exist", t.index()),
            ),
            OpKind::Addr(a) => {
                if let super::AddrBase::Reg(r) = a.base {
                    regs.push(r);
                }
            }
            _ => {}
        });
    }
    if let Some((g, _)) = i.guard {
        match f.regs.get(g) {
            Some(info) if !info.is_pred() => o.err(
                "guard",
                Some(b),
                Some(id),
                format!("guard {} is not a predicate", info.name),
            ),
            _ => {}
        }
        regs.push(g);
    }
    for r in regs {
        match f.regs.get(r) {
            None => o.err(
                "register",
                Some(b),
                Some(id),
                format!("{r} is not in the register table"),
            ),
            Some(info) if (i.scope as usize) < f.scopes.len().max(1) && !f.visible(r, i.scope) => o
                .err(
                    "visible",
                    Some(b),
                    Some(id),
                    format!(
                        "{} (scope {}) is not visible from scope {}",
                        info.name, info.scope, i.scope
                    ),
                ),
            _ => {}
        }
    }
    let ends = k + 1 == f.blocks[b].insts.len();
    if matches!(i.class, Class::Branch | Class::Exit) && i.guard.is_none() && !ends {
        o.err(
            "terminator",
            Some(b),
            Some(id),
            "an unguarded branch or exit is followed by more instructions in its block".into(),
        );
    }
}

/// Every operand inside `op`, `op` first.
fn walk(op: &Operand, f: &mut impl FnMut(&Operand)) {
    f(op);
    match &op.kind {
        OpKind::Addr(a) => a.extra.iter().for_each(|e| walk(e, f)),
        OpKind::Vec(v) | OpKind::Paren(v) => v.iter().for_each(|e| walk(e, f)),
        OpKind::Pair(a, c) => {
            walk(a, f);
            walk(c, f);
        }
        OpKind::Not(a) => walk(a, f),
        _ => {}
    }
}

fn check_counts(o: &mut Out) {
    let mut fresh = o.f.clone();
    super::regs::refresh(&mut fresh);
    for (r, info) in o.f.regs.iter() {
        let want = &fresh.regs[r];
        if (info.defs, info.uses, info.def_anchor) != (want.defs, want.uses, want.def_anchor) {
            let anchor = |a: Option<InstId>| a.map_or(String::from("none"), |a| format!("{a}"));
            o.err(
                "counts",
                None,
                None,
                format!(
                    "{} records defs {} uses {} anchor {}; the layout has defs {} uses {} anchor {}",
                    info.name,
                    info.defs,
                    info.uses,
                    anchor(info.def_anchor),
                    want.defs,
                    want.uses,
                    anchor(want.def_anchor)
                ),
            );
        }
    }
}

/// [`verify`] over every function of a module, each error with its function's name.
pub fn verify_module(m: &super::Module) -> Vec<(String, OriVerifyError)> {
    m.functions()
        .flat_map(|f| verify(f).into_iter().map(|e| (f.name.clone(), e)))
        .collect()
}
