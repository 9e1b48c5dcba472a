//! The PTX forms of the two CICC-era asynchronous-copy producers, which define a
//! (data, token) register pair although the real instructions return no registers.
//!
//! What the model opcodes mean (the MIR interpreter and the DAG evaluator agree):
//!
//! ```text
//!  CP_ASYNC_CA_SHARED addr        data = the 32-bit word at global addr,        token = 1
//!  TMA_LOAD_2D addr, c            data = the 32-bit word at global addr + 4·c,  token = 1
//!                                 (c a signed 32-bit element index)
//! ```
//!
//! The printed sequences really move the word through shared memory and wait for the
//! copy before reading it back, so the pair they leave is what the model says: the
//! token is the "copy completed" flag the wait establishes.
//!
//! * `CP_ASYNC_CA_SHARED` (sm_80): `cp.async.ca.shared.global` of 4 bytes into the
//!   thread's slot of the function's `__cp_async_buf` array, `cp.async.commit_group`,
//!   `cp.async.wait_group 0`, `ld.shared`.
//! * `TMA_LOAD_2D` (sm_90, PTX 8.0): the thread initialises its own mbarrier in
//!   `__tma_bar`, announces 16 bytes of transaction (`mbarrier.arrive.expect_tx`),
//!   issues the bulk copy engine's `cp.async.bulk.shared::cluster.global` of the
//!   16-byte aligned chunk holding the element into its slot of `__tma_buf`, spins on
//!   `mbarrier.try_wait.parity` and reads the element. Real tensor-map TMA
//!   (`cp.async.bulk.tensor`) needs a host-encoded `CUtensorMap` whose layout is not
//!   public, so the non-tensor bulk copy stands in for it.
//!
//! Slots are per thread (linear thread index), so threads of a CTA never share one.

use super::forms::{Cx, Emitted};
use crate::entity::EntityRef;
use crate::mir::{Inst, Operand as MOp};
use crate::ptx::ast::{Guard, Inst as PInst, Operand as P, RegDecl, Stmt, VarDecl};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// The largest CTA (threads) the slot arrays are sized for.
pub const MAX_THREADS: u32 = 1024;
pub const CP_ASYNC_BUF: &str = "__cp_async_buf";
pub const TMA_BUF: &str = "__tma_buf";
pub const TMA_BAR: &str = "__tma_bar";

fn ins(opcode: &str, ops: Vec<P>) -> Stmt {
    Stmt::Inst(PInst::new(opcode, ops))
}

fn reg_decl(ty: &str, prefix: &str, n: u32) -> Stmt {
    Stmt::Reg(RegDecl {
        words: vec![ty.into()],
        names: vec![(prefix.into(), Some(n))],
    })
}

fn at(r: &str) -> P {
    P::addr_reg(r, 0)
}

/// `dst = linear thread index` (tid.x + ntid.x·(tid.y + ntid.y·tid.z)), using `t1`
/// and `t2` as scratch.
fn linear_tid(dst: &str, t1: &str, t2: &str) -> Vec<Stmt> {
    let r = |s: &str| P::reg(s);
    vec![
        ins("mov.u32", vec![r(dst), r("%tid.z")]),
        ins("mov.u32", vec![r(t1), r("%ntid.y")]),
        ins("mov.u32", vec![r(t2), r("%tid.y")]),
        ins("mad.lo.s32", vec![r(dst), r(dst), r(t1), r(t2)]),
        ins("mov.u32", vec![r(t1), r("%ntid.x")]),
        ins("mov.u32", vec![r(t2), r("%tid.x")]),
        ins("mad.lo.s32", vec![r(dst), r(dst), r(t1), r(t2)]),
    ]
}

/// The function-scope shared arrays a function's async copies use.
pub fn shared_arrays(uses_cp_async: bool, uses_tma: bool) -> Vec<Stmt> {
    let var = |align: u32, ty: &str, name: &str, n: u32| {
        Stmt::Var(VarDecl {
            words: vec![
                ".shared".into(),
                ".align".into(),
                format!("{align}"),
                ty.into(),
            ],
            name: name.into(),
            dims: vec![Some(n)],
            init: None,
        })
    };
    let mut v = Vec::new();
    if uses_cp_async {
        v.push(var(4, ".b32", CP_ASYNC_BUF, MAX_THREADS));
    }
    if uses_tma {
        v.push(var(16, ".b8", TMA_BUF, 16 * MAX_THREADS));
        v.push(var(8, ".b64", TMA_BAR, MAX_THREADS));
    }
    v
}

fn pair(cx: &Cx<'_>, defs: &[&MOp], name: &str) -> Result<(P, P), String> {
    let mut regs = Vec::new();
    for d in defs {
        for n in cx.names_of(d)? {
            regs.push(P::Reg(n));
        }
    }
    match <[P; 2]>::try_from(regs) {
        Ok([a, b]) => Ok((a, b)),
        Err(v) => Err(format!(
            "{name} defines a (data, token) pair; found {} result register(s)",
            v.len()
        )),
    }
}

/// `CP_ASYNC_CA_SHARED addr`.
pub fn cp_async(cx: &Cx<'_>, defs: &[&MOp], uses: &[MOp]) -> Result<Emitted, String> {
    let name = "CP_ASYNC_CA_SHARED";
    let (data, token) = pair(cx, defs, name)?;
    let addr = uses.first().ok_or("CP_ASYNC_CA_SHARED needs an address")?;
    let addr = match cx.value_of(addr)? {
        P::Reg(r) => r,
        _ => return Err("CP_ASYNC_CA_SHARED needs its address in a register".into()),
    };
    let mut s = vec![reg_decl(".b32", "%cpa", 4)];
    s.extend(linear_tid("%cpa1", "%cpa2", "%cpa3"));
    s.extend([
        ins("mov.u32", vec![P::reg("%cpa2"), P::sym(CP_ASYNC_BUF)]),
        ins(
            "mad.lo.s32",
            vec![P::reg("%cpa2"), P::reg("%cpa1"), P::int(4), P::reg("%cpa2")],
        ),
        ins(
            "cp.async.ca.shared.global",
            vec![at("%cpa2"), at(&addr), P::int(4)],
        ),
        ins("cp.async.commit_group", vec![]),
        ins("cp.async.wait_group", vec![P::int(0)]),
        ins("ld.shared.b32", vec![data, at("%cpa2")]),
        ins("mov.b32", vec![token, P::int(1)]),
    ]);
    Ok(Emitted {
        stmts: vec![Stmt::Scope(s)],
        kind: "async_copy",
        narration: "CP_ASYNC_CA_SHARED becomes a real cp.async (sm_80) of the word into this \
                    thread's slot of __cp_async_buf, a commit and wait_group 0, then ld.shared \
                    of the word; the token register gets 1, the copy having completed."
            .into(),
    })
}

/// `TMA_LOAD_2D addr, c`.
pub fn tma_load(cx: &Cx<'_>, i: Inst, defs: &[&MOp], uses: &[MOp]) -> Result<Emitted, String> {
    let name = "TMA_LOAD_2D";
    let (data, token) = pair(cx, defs, name)?;
    let [addr, coord, ..] = uses else {
        return Err("TMA_LOAD_2D needs an address and a coordinate".into());
    };
    let P::Reg(addr) = cx.value_of(addr)? else {
        return Err("TMA_LOAD_2D needs its address in a register".into());
    };
    let coord = cx.value_of(coord)?;
    let label = format!("$L__tma_wait{}_{}", cx.k, i.index());
    let r = |s: &str| P::reg(s);
    let mut s = vec![
        reg_decl(".b32", "%tma", 6),
        reg_decl(".b64", "%tmad", 4),
        Stmt::Reg(RegDecl {
            words: vec![".pred".into()],
            names: vec![("%tmap".into(), None)],
        }),
    ];
    s.extend(linear_tid("%tma1", "%tma2", "%tma3"));
    s.extend([
        // This thread's 16-byte data slot and its mbarrier.
        ins("mov.u32", vec![r("%tma2"), P::sym(TMA_BUF)]),
        ins(
            "mad.lo.s32",
            vec![r("%tma2"), r("%tma1"), P::int(16), r("%tma2")],
        ),
        ins("mov.u32", vec![r("%tma3"), P::sym(TMA_BAR)]),
        ins(
            "mad.lo.s32",
            vec![r("%tma3"), r("%tma1"), P::int(8), r("%tma3")],
        ),
        // The element's address, its 16-byte chunk, and where it lands in the slot.
        ins("mul.wide.s32", vec![r("%tmad1"), coord, P::int(4)]),
        ins("add.s64", vec![r("%tmad1"), r(&addr), r("%tmad1")]),
        ins("and.b64", vec![r("%tmad2"), r("%tmad1"), P::int(-16)]),
        ins("cvt.u32.u64", vec![r("%tma4"), r("%tmad1")]),
        ins("and.b32", vec![r("%tma4"), r("%tma4"), P::int(12)]),
        ins("add.s32", vec![r("%tma4"), r("%tma2"), r("%tma4")]),
        ins(
            "mbarrier.init.shared::cta.b64",
            vec![at("%tma3"), P::int(1)],
        ),
        ins("fence.proxy.async.shared::cta", vec![]),
        ins(
            "mbarrier.arrive.expect_tx.shared::cta.b64",
            vec![r("%tmad3"), at("%tma3"), P::int(16)],
        ),
        ins(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
            vec![at("%tma2"), at("%tmad2"), P::int(16), at("%tma3")],
        ),
        Stmt::Label(label.clone()),
        ins(
            "mbarrier.try_wait.parity.shared::cta.b64",
            vec![r("%tmap"), at("%tma3"), P::int(0)],
        ),
    ]);
    let mut wait = PInst::new("bra", vec![P::sym(label)]);
    wait.guard = Some(Guard {
        negated: true,
        reg: "%tmap".into(),
    });
    s.push(Stmt::Inst(wait));
    s.push(ins("ld.shared.b32", vec![data, at("%tma4")]));
    s.push(ins("mov.b32", vec![token, P::int(1)]));
    Ok(Emitted {
        stmts: vec![Stmt::Scope(s)],
        kind: "async_copy",
        narration: "TMA_LOAD_2D becomes the sm_90 bulk copy engine: an mbarrier expecting 16 \
                    bytes, cp.async.bulk of the 16-byte chunk holding element c into this \
                    thread's slot of __tma_buf, a try_wait loop, then ld.shared of the element; \
                    the token register gets 1, the transfer having completed."
            .into(),
    })
}

/// The opcodes of this file a function uses: (cp.async, TMA).
pub fn used(f: &crate::mir::Function) -> (bool, bool) {
    let mut r = (false, false);
    for (_, i) in f.all_insts() {
        let d = &f.insts[i];
        r.0 |= d.is(crate::mir::Op::CP_ASYNC_CA_SHARED);
        r.1 |= d.is(crate::mir::Op::TMA_LOAD_2D);
    }
    r
}
