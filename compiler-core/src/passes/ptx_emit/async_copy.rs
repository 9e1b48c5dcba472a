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
use crate::ptx::ast::{Operand as P, Stmt, VarDecl};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// The largest CTA (threads) the slot arrays are sized for.
pub const MAX_THREADS: u32 = 1024;
pub const CP_ASYNC_BUF: &str = "__cp_async_buf";
pub const TMA_BUF: &str = "__tma_buf";
pub const TMA_BAR: &str = "__tma_bar";

/// `{T}1 = linear thread index` (tid.x + ntid.x·(tid.y + ntid.y·tid.z)); `{T}2` and
/// `{T}3` are scratch. `{T}` is replaced by the caller's register prefix.
pub const LINEAR_TID: &str = "
mov.u32 {T}1, %tid.z;
mov.u32 {T}2, %ntid.y;
mov.u32 {T}3, %tid.y;
mad.lo.s32 {T}1, {T}1, {T}2, {T}3;
mov.u32 {T}2, %ntid.x;
mov.u32 {T}3, %tid.x;
mad.lo.s32 {T}1, {T}1, {T}2, {T}3;
";

const CP_ASYNC: &str = "
.reg .b32 %cpa<4>;
{TID}
mov.u32 %cpa2, __cp_async_buf;
mad.lo.s32 %cpa2, %cpa1, 4, %cpa2;
cp.async.ca.shared.global [%cpa2], [{addr}], 4;
cp.async.commit_group;
cp.async.wait_group 0;
ld.shared.b32 {data}, [%cpa2];
mov.b32 {token}, 1;
";

/// %tma2: this thread's 16-byte slot, %tma3: its mbarrier, %tmad1: the element's
/// address, %tmad2: its 16-byte chunk, %tma4: where the element lands in the slot.
const TMA: &str = "
.reg .b32 %tma<6>;
.reg .b64 %tmad<4>;
.reg .pred %tmap;
{TID}
mov.u32 %tma2, __tma_buf;
mad.lo.s32 %tma2, %tma1, 16, %tma2;
mov.u32 %tma3, __tma_bar;
mad.lo.s32 %tma3, %tma1, 8, %tma3;
mul.wide.s32 %tmad1, {coord}, 4;
add.s64 %tmad1, {addr}, %tmad1;
and.b64 %tmad2, %tmad1, -16;
cvt.u32.u64 %tma4, %tmad1;
and.b32 %tma4, %tma4, 12;
add.s32 %tma4, %tma2, %tma4;
mbarrier.init.shared::cta.b64 [%tma3], 1;
fence.proxy.async.shared::cta;
mbarrier.arrive.expect_tx.shared::cta.b64 %tmad3, [%tma3], 16;
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%tma2], [%tmad2], 16, [%tma3];
{label}:
mbarrier.try_wait.parity.shared::cta.b64 %tmap, [%tma3], 0;
@!%tmap bra {label};
ld.shared.b32 {data}, [%tma4];
mov.b32 {token}, 1;
";

/// Fills a sequence template (`{name}` → value) and reads it as PTX statements.
pub fn fill(template: &str, subst: &[(&str, &str)]) -> Result<Vec<Stmt>, String> {
    let mut text = template.to_string();
    for (k, v) in subst {
        text = text.replace(&format!("{{{k}}}"), v);
    }
    crate::ptx::parse::parse_body(&text)
        .map_err(|e| format!("internal: an instruction sequence does not read as PTX ({e})"))
}

/// The linear thread index into `{prefix}1`.
pub fn linear_tid(prefix: &str) -> String {
    LINEAR_TID.replace("{T}", prefix)
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

/// The (data, token) register names of a pair-defining instruction.
fn pair(cx: &Cx<'_>, defs: &[&MOp], name: &str) -> Result<(String, String), String> {
    let mut regs = Vec::new();
    for d in defs {
        regs.extend(cx.names_of(d)?);
    }
    match <[String; 2]>::try_from(regs) {
        Ok([a, b]) => Ok((a, b)),
        Err(v) => Err(format!(
            "{name} defines a (data, token) pair; found {} result register(s)",
            v.len()
        )),
    }
}

/// A register operand's name (`what` names it in the error).
fn reg_name(cx: &Cx<'_>, o: &MOp, what: &str) -> Result<String, String> {
    match cx.value_of(o)? {
        P::Reg(r) => Ok(r),
        _ => Err(format!("{what} must be in a register")),
    }
}

/// `CP_ASYNC_CA_SHARED addr`.
pub fn cp_async(cx: &Cx<'_>, defs: &[&MOp], uses: &[MOp]) -> Result<Emitted, String> {
    let (data, token) = pair(cx, defs, "CP_ASYNC_CA_SHARED")?;
    let addr = uses.first().ok_or("CP_ASYNC_CA_SHARED needs an address")?;
    let addr = reg_name(cx, addr, "CP_ASYNC_CA_SHARED's address")?;
    let tid = linear_tid("%cpa");
    let s = fill(
        CP_ASYNC,
        &[
            ("TID", &tid),
            ("addr", &addr),
            ("data", &data),
            ("token", &token),
        ],
    )?;
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
    let (data, token) = pair(cx, defs, "TMA_LOAD_2D")?;
    let [addr, coord, ..] = uses else {
        return Err("TMA_LOAD_2D needs an address and a coordinate".into());
    };
    let addr = reg_name(cx, addr, "TMA_LOAD_2D's address")?;
    let coord = match cx.value_of(coord)? {
        P::Reg(r) => r,
        P::Imm(v) => format!("{}", v.bits() as i64),
        _ => return Err("TMA_LOAD_2D's coordinate must be a register or an immediate".into()),
    };
    let label = format!("$L__tma_wait{}_{}", cx.k, i.index());
    let tid = linear_tid("%tma");
    let s = fill(
        TMA,
        &[
            ("TID", &tid),
            ("addr", &addr),
            ("coord", &coord),
            ("label", &label),
            ("data", &data),
            ("token", &token),
        ],
    )?;
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
