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

use super::async_copy::{fill, linear_tid};
use super::forms::{Cx, Emitted};
use crate::mir::Operand as MOp;
use crate::ptx::ast::{Operand as P, Stmt, VarDecl};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

pub const SMEM: &str = "__wgmma_smem";
/// Bytes of shared memory per warpgroup: A (2048) then B (1024).
pub const PER_WARPGROUP: u32 = 3072;

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

/// `%wg6 = K-major byte offset of (row %wg4, byte %wg5 along K)`: (row>>3)·SBO +
/// (byte>>4)·LBO + (row&7)·16 + (byte&15), then plus the tile base `%wg3` and `{base}`.
const KMAJOR: &str = "
shr.u32 %wg6, %wg4, 3;
shl.b32 %wg6, %wg6, 8;
shr.u32 %wg7, %wg5, 4;
shl.b32 %wg7, %wg7, 7;
add.s32 %wg6, %wg6, %wg7;
and.b32 %wg7, %wg4, 7;
shl.b32 %wg7, %wg7, 4;
add.s32 %wg6, %wg6, %wg7;
and.b32 %wg7, %wg5, 15;
add.s32 %wg6, %wg6, %wg7;
add.s32 %wg6, %wg6, %wg3;
";

/// `{desc} = ((addr >> 4) & 0x3fff) | (LBO/16) << 16 | (SBO/16) << 32`.
const DESCRIPTOR: &str = "
cvt.u64.u32 {desc}, {addr};
shr.u64 {desc}, {desc}, 4;
and.b64 {desc}, {desc}, 16383;
or.b64 {desc}, {desc}, 0x1000080000;
";

/// %wg1 linear thread index, %wg2 = j (index in the warpgroup), %wg3 the warpgroup's
/// A tile (B 2048 bytes on); A: row j>>1, K bytes 16·(j&1).., 16 bytes from a + 16j;
/// B: column j>>2, K bytes 8·(j&3).., 8 bytes from b + 8j.
const WGMMA: &str = "
.reg .b32 %wg<9>;
.reg .b64 %wgd<4>;
.reg .pred %wgp;
{TID}
and.b32 %wg2, %wg1, 127;
shr.u32 %wg3, %wg1, 7;
mov.u32 %wg4, __wgmma_smem;
mad.lo.s32 %wg3, %wg3, 3072, %wg4;
shr.u32 %wg4, %wg2, 1;
and.b32 %wg5, %wg2, 1;
shl.b32 %wg5, %wg5, 4;
{KMAJOR}
mul.wide.u32 %wgd1, %wg2, 16;
add.s64 %wgd1, {a}, %wgd1;
ld.global.b32 %wg8, [%wgd1];
st.shared.b32 [%wg6], %wg8;
ld.global.b32 %wg8, [%wgd1+4];
st.shared.b32 [%wg6+4], %wg8;
ld.global.b32 %wg8, [%wgd1+8];
st.shared.b32 [%wg6+8], %wg8;
ld.global.b32 %wg8, [%wgd1+12];
st.shared.b32 [%wg6+12], %wg8;
shr.u32 %wg4, %wg2, 2;
and.b32 %wg5, %wg2, 3;
shl.b32 %wg5, %wg5, 3;
{KMAJOR}
add.s32 %wg6, %wg6, 2048;
mul.wide.u32 %wgd1, %wg2, 8;
add.s64 %wgd1, {b}, %wgd1;
ld.global.b32 %wg8, [%wgd1];
st.shared.b32 [%wg6], %wg8;
ld.global.b32 %wg8, [%wgd1+4];
st.shared.b32 [%wg6+4], %wg8;
bar.sync 0;
fence.proxy.async.shared::cta;
{DESCA}
add.s32 %wg4, %wg3, 2048;
{DESCB}
{INIT}
mov.u32 %wg4, 0;
setp.eq.u32 %wgp, %wg4, 0;
wgmma.fence.sync.aligned;
wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {D}, %wgd2, %wgd3, %wgp, 1, 1, 0, 0;
wgmma.commit_group.sync.aligned;
wgmma.wait_group.sync.aligned 0;
";

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
    let names: Vec<String> = dsts
        .iter()
        .map(|d| match d {
            P::Reg(r) => Ok(r.clone()),
            _ => Err(String::from("wgmma results must be registers")),
        })
        .collect::<Result<_, _>>()?;
    let init: String = names
        .iter()
        .map(|d| format!("mov.b32 {d}, {s};\n"))
        .collect();
    let list = format!("{{{}}}", names.join(", "));
    let desc_a = DESCRIPTOR
        .replace("{desc}", "%wgd2")
        .replace("{addr}", "%wg3");
    let desc_b = DESCRIPTOR
        .replace("{desc}", "%wgd3")
        .replace("{addr}", "%wg4");
    let tid = linear_tid("%wg");
    let v = fill(
        WGMMA,
        &[
            ("TID", &tid),
            ("KMAJOR", KMAJOR),
            ("DESCA", &desc_a),
            ("DESCB", &desc_b),
            ("INIT", &init),
            ("D", &list),
            ("a", &a),
            ("b", &b),
        ],
    )?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::matrix;

    /// The descriptor constant, the copies' offsets and the evaluator's reading of the
    /// layout agree: leading offset 128 bytes (along K), stride offset 256 (along M/N).
    #[test]
    fn the_descriptor_describes_the_layout_the_copies_write() {
        let fields: u64 = 0x1000080000;
        assert!(DESCRIPTOR.contains(&format!("{fields:#x}")));
        let (start, lbo, sbo, swizzle) = matrix::decode_descriptor(fields | (0x400 >> 4));
        assert_eq!((start, lbo, sbo, swizzle), (0x400, 128, 256, 0));
        // KMAJOR: (row>>3)·256 + (byte>>4)·128 + (row&7)·16 + (byte&15).
        assert!(
            KMAJOR.contains("shl.b32 %wg6, %wg6, 8;") && KMAJOR.contains("shl.b32 %wg7, %wg7, 7;")
        );
        assert_eq!(matrix::kmajor_offset(9, 10, lbo, sbo), 256 + 128 + 16 + 4);
        assert_eq!(PER_WARPGROUP, 64 * 16 * 2 + 16 * 32 * 2);
    }
}
