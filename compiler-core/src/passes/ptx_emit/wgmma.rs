//! The PTX form of `WGMMA_M64N32K16_F32 a, b, s` (sm_90a).
//!
//! What the opcode means (the MIR interpreter computes the same, see
//! [`crate::interp::matrix`]): over a warpgroup (four warps, 128 threads),
//! `D = A·B + s`, where
//!
//! ```text
//!  a   global address of A, 64×16 f16, row-major:  A[m][k] at a + 2·(16m + k)
//!  b   global address of B, 16×32 f16, by column:  B[k][n] at b + 2·(16n + k)
//!  s   f32, the value every accumulator starts at
//!  warpgroup thread j brings A row j/2, halves 8·(j%2).. (16 bytes from its own a + 16j)
//!                       and B column j/4, halves 4·(j%4).. (8 bytes from its own b + 8j)
//!  D   sixteen f32 per thread in the ISA's m64nNk16 accumulator layout
//! ```
//!
//! The printed sequence: each thread copies its share of A and B into its
//! warpgroup's 3 KiB of `__wgmma_smem`, laid out as the no-swizzle K-major canonical
//! layout (8×8 core matrices of 128 contiguous bytes; 128 bytes apart along K, 256
//! along M/N), `bar.sync 0` and `fence.proxy.async` make the copies visible to the
//! tensor cores, the two matrix descriptors are built (start >> 4, leading offset 128,
//! stride offset 256, no swizzle), the sixteen accumulators are set to `s`, and
//! `wgmma.fence` / `wgmma.mma_async` (scale-d true) / `commit_group` / `wait_group 0`
//! run the multiply and wait for it.

use super::forms::{Cx, Emitted};
use crate::mir::Operand as MOp;
use crate::ptx::ast::{Imm, Inst as PInst, Operand as P, RegDecl, Stmt, VarDecl};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

pub const SMEM: &str = "__wgmma_smem";
/// Bytes of shared memory per warpgroup: A (2048) then B (1024).
pub const PER_WARPGROUP: u32 = 3072;
/// Leading (K) and stride (M/N) byte offsets between core matrices.
pub const LBO: u64 = 128;
pub const SBO: u64 = 256;

fn ins(opcode: &str, ops: Vec<P>) -> Stmt {
    Stmt::Inst(PInst::new(opcode, ops))
}

fn r(s: &str) -> P {
    P::reg(s)
}

/// The function-scope shared array (eight warpgroups: a 1024-thread CTA).
pub fn shared_array() -> Stmt {
    Stmt::Var(VarDecl {
        words: vec![
            ".shared".into(),
            ".align".into(),
            "128".into(),
            ".b8".into(),
        ],
        name: SMEM.into(),
        dims: vec![Some(8 * PER_WARPGROUP)],
        init: None,
    })
}

/// `dst = byte offset of K-major element (row, 8·kchunk..)`: (row>>3)·256 +
/// (kbyte>>4)·128 + (row&7)·16 + (kbyte&15), with `row` and `kbyte` in registers.
fn kmajor(dst: &str, row: &str, kbyte: &str, t: &str) -> Vec<Stmt> {
    vec![
        ins("shr.u32", vec![r(dst), r(row), P::int(3)]),
        ins("shl.b32", vec![r(dst), r(dst), P::int(8)]),
        ins("shr.u32", vec![r(t), r(kbyte), P::int(4)]),
        ins("shl.b32", vec![r(t), r(t), P::int(7)]),
        ins("add.s32", vec![r(dst), r(dst), r(t)]),
        ins("and.b32", vec![r(t), r(row), P::int(7)]),
        ins("shl.b32", vec![r(t), r(t), P::int(4)]),
        ins("add.s32", vec![r(dst), r(dst), r(t)]),
        ins("and.b32", vec![r(t), r(kbyte), P::int(15)]),
        ins("add.s32", vec![r(dst), r(dst), r(t)]),
    ]
}

/// Copies `words` 32-bit words from global `[src]` to shared `[dst]`.
fn copy_words(src: &str, dst: &str, tmp: &str, words: i64) -> Vec<Stmt> {
    let mut v = Vec::new();
    for k in 0..words {
        v.push(ins("ld.global.b32", vec![r(tmp), P::addr_reg(src, 4 * k)]));
        v.push(ins("st.shared.b32", vec![P::addr_reg(dst, 4 * k), r(tmp)]));
    }
    v
}

/// `desc = ((addr >> 4) & 0x3fff) | LBO/16 << 16 | SBO/16 << 32`.
fn descriptor(desc: &str, addr: &str) -> Vec<Stmt> {
    let fields = ((LBO >> 4) << 16) | ((SBO >> 4) << 32);
    vec![
        ins("cvt.u64.u32", vec![r(desc), r(addr)]),
        ins("shr.u64", vec![r(desc), r(desc), P::int(4)]),
        ins("and.b64", vec![r(desc), r(desc), P::int(0x3fff)]),
        ins("or.b64", vec![r(desc), r(desc), P::Imm(Imm::Hex(fields))]),
    ]
}

/// `WGMMA_M64N32K16_F32 a, b, s` with its sixteen result registers `dsts`.
pub fn emit(cx: &Cx<'_>, dsts: Vec<P>, uses: &[MOp]) -> Result<Emitted, String> {
    let [a, b, s, ..] = uses else {
        return Err("WGMMA_M64N32K16_F32 needs A's address, B's address and a start value".into());
    };
    let reg = |o: &MOp, what: &str| match cx.value_of(o)? {
        P::Reg(x) => Ok(x),
        _ => Err(format!("WGMMA_M64N32K16_F32 needs {what} in a register")),
    };
    let (a, b, s) = (
        reg(a, "A's address")?,
        reg(b, "B's address")?,
        reg(s, "the start value")?,
    );
    let mut v = vec![
        Stmt::Reg(RegDecl {
            words: vec![".b32".into()],
            names: vec![("%wg".into(), Some(9))],
        }),
        Stmt::Reg(RegDecl {
            words: vec![".b64".into()],
            names: vec![("%wgd".into(), Some(4))],
        }),
        Stmt::Reg(RegDecl {
            words: vec![".pred".into()],
            names: vec![("%wgp".into(), None)],
        }),
    ];
    // %wg1 = linear thread index; %wg2 = j, its index in the warpgroup; %wg3 = the
    // warpgroup's A tile in shared memory (B follows 2048 bytes on).
    v.extend([
        ins("mov.u32", vec![r("%wg1"), r("%tid.z")]),
        ins("mov.u32", vec![r("%wg2"), r("%ntid.y")]),
        ins("mov.u32", vec![r("%wg3"), r("%tid.y")]),
        ins(
            "mad.lo.s32",
            vec![r("%wg1"), r("%wg1"), r("%wg2"), r("%wg3")],
        ),
        ins("mov.u32", vec![r("%wg2"), r("%ntid.x")]),
        ins("mov.u32", vec![r("%wg3"), r("%tid.x")]),
        ins(
            "mad.lo.s32",
            vec![r("%wg1"), r("%wg1"), r("%wg2"), r("%wg3")],
        ),
        ins("and.b32", vec![r("%wg2"), r("%wg1"), P::int(127)]),
        ins("shr.u32", vec![r("%wg3"), r("%wg1"), P::int(7)]),
        ins("mov.u32", vec![r("%wg4"), P::sym(SMEM)]),
        ins(
            "mad.lo.s32",
            vec![
                r("%wg3"),
                r("%wg3"),
                P::int(PER_WARPGROUP as i64),
                r("%wg4"),
            ],
        ),
    ]);
    // A: row j>>1, bytes 16·(j&1)..: 16 bytes from a + 16j.
    v.extend([
        ins("shr.u32", vec![r("%wg4"), r("%wg2"), P::int(1)]),
        ins("and.b32", vec![r("%wg5"), r("%wg2"), P::int(1)]),
        ins("shl.b32", vec![r("%wg5"), r("%wg5"), P::int(4)]),
    ]);
    v.extend(kmajor("%wg6", "%wg4", "%wg5", "%wg7"));
    v.extend([
        ins("add.s32", vec![r("%wg6"), r("%wg6"), r("%wg3")]),
        ins("mul.wide.u32", vec![r("%wgd1"), r("%wg2"), P::int(16)]),
        ins("add.s64", vec![r("%wgd1"), r(&a), r("%wgd1")]),
    ]);
    v.extend(copy_words("%wgd1", "%wg6", "%wg8", 4));
    // B: column j>>2, bytes 8·(j&3)..: 8 bytes from b + 8j.
    v.extend([
        ins("shr.u32", vec![r("%wg4"), r("%wg2"), P::int(2)]),
        ins("and.b32", vec![r("%wg5"), r("%wg2"), P::int(3)]),
        ins("shl.b32", vec![r("%wg5"), r("%wg5"), P::int(3)]),
    ]);
    v.extend(kmajor("%wg6", "%wg4", "%wg5", "%wg7"));
    v.extend([
        ins("add.s32", vec![r("%wg6"), r("%wg6"), r("%wg3")]),
        ins("add.s32", vec![r("%wg6"), r("%wg6"), P::int(2048)]),
        ins("mul.wide.u32", vec![r("%wgd1"), r("%wg2"), P::int(8)]),
        ins("add.s64", vec![r("%wgd1"), r(&b), r("%wgd1")]),
    ]);
    v.extend(copy_words("%wgd1", "%wg6", "%wg8", 2));
    v.extend([
        ins("bar.sync", vec![P::int(0)]),
        ins("fence.proxy.async.shared::cta", vec![]),
    ]);
    v.extend(descriptor("%wgd2", "%wg3"));
    v.push(ins("add.s32", vec![r("%wg4"), r("%wg3"), P::int(2048)]));
    v.extend(descriptor("%wgd3", "%wg4"));
    for d in &dsts {
        v.push(ins("mov.b32", vec![d.clone(), r(&s)]));
    }
    v.extend([
        ins("mov.u32", vec![r("%wg4"), P::int(0)]),
        ins("setp.eq.u32", vec![r("%wgp"), r("%wg4"), P::int(0)]),
        ins("wgmma.fence.sync.aligned", vec![]),
        ins(
            "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16",
            vec![
                P::Vec(dsts),
                r("%wgd2"),
                r("%wgd3"),
                r("%wgp"),
                P::int(1),
                P::int(1),
                P::int(0),
                P::int(0),
            ],
        ),
        ins("wgmma.commit_group.sync.aligned", vec![]),
        ins("wgmma.wait_group.sync.aligned", vec![P::int(0)]),
    ]);
    Ok(Emitted {
        stmts: vec![Stmt::Scope(v)],
        kind: "tuple_result",
        narration: "WGMMA_M64N32K16_F32 prints as the sm_90a warpgroup multiply: the threads \
                    stage A and B in shared memory in the no-swizzle K-major layout, build the \
                    two matrix descriptors, start the sixteen accumulators at s, and run \
                    wgmma.mma_async between wgmma.fence and wait_group 0."
            .into(),
    })
}

/// True when `f` uses the opcode.
pub fn used(f: &crate::mir::Function) -> bool {
    f.all_insts()
        .any(|(_, i)| f.insts[i].is(crate::mir::Op::WGMMA_M64N32K16_F32))
}
