//! Warp-level matrix multiply-accumulate: the real meaning of `mma.sync` and
//! `wmma.mma.sync`, shared by the MIR interpreter and the PTX/ORI evaluator so that
//! both compute the same thing.
//!
//! A warp's 32 lanes each bring their fragment registers; the fragments are gathered
//! into the matrices A, B and C by the shape's layout, `D = A·B + C` is computed, and
//! D is scattered back into each lane's result registers.
//!
//! ```text
//!  lane l: g = l / 4 (group), t = l % 4 (thread in group)
//!
//!  mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32      (PTX ISA layouts)
//!    A 16×8  a0 (g, t)    a1 (g+8, t)    a2 (g, t+4)    a3 (g+8, t+4)
//!    B 8×8   b0 (k=t, n=g)                b1 (k=t+4, n=g)
//!    C,D 16×8  c0 (g, 2t)  c1 (g, 2t+1)  c2 (g+8, 2t)  c3 (g+8, 2t+1)
//!
//!  wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16          (layout ours, see below)
//!    A 16×16 f16x2 reg r<4, half h: (g + 8·(r&1), 2t + h + 8·(r>>1)); regs 4..7 repeat 0..3
//!    B 16×16 f16x2 reg r<4, half h: (k = 2t + h + 8·(r&1), n = g + 8·(r>>1)); regs 4..7 repeat
//!    C 16×16 f16x2 reg r<4, half h: (g + 8·(r&1), 2t + h + 8·(r>>1))
//!    D 16×16 f32   reg i<8: (g + 8·((i>>1)&1), 2t + (i&1) + 8·(i>>2))
//! ```
//!
//! The PTX ISA leaves wmma fragment layouts unspecified (only whole-fragment loads and
//! stores are portable). Ours is two side-by-side m16n8k16 `mma` tiles, the layout
//! sm_80 and later use for `mma`; an A or B fragment names 16 halves where a lane's
//! share of the tile is 8, so registers 4..7 stand for the same elements as 0..3 and
//! are not read.
//!
//! Arithmetic: tf32 operands keep the upper 19 bits of their f32 pattern (the lower 13
//! are ignored, as the hardware does); f16 operands are exact in f32. Each product is
//! exact in f64; `C + Σ_k A·B` is summed in f64 in k order and rounded once to f32
//! (round to nearest even; NaN canonical). The ISA leaves accumulation order and
//! intermediate precision unspecified; this is our fixed choice.

use super::float;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// The warp-level matrix instructions with a meaning here.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`: a 4, b 2, c 4, d 4 registers.
    MmaM16N8K8Tf32,
    /// `wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16`: a 8, b 8, c 4 (f16x2), d 8 (f32).
    WmmaM16N16K16F32F16,
}

impl Shape {
    /// Registers per lane: (a, b, c, d).
    pub fn regs(self) -> (usize, usize, usize, usize) {
        match self {
            Shape::MmaM16N8K8Tf32 => (4, 2, 4, 4),
            Shape::WmmaM16N16K16F32F16 => (8, 8, 4, 8),
        }
    }

    /// (m, n, k).
    pub fn mnk(self) -> (usize, usize, usize) {
        match self {
            Shape::MmaM16N8K8Tf32 => (16, 8, 8),
            Shape::WmmaM16N16K16F32F16 => (16, 16, 16),
        }
    }

    /// The shape a PTX opcode names, if it is one of ours.
    #[cfg(feature = "testkit")]
    pub fn from_opcode(op: &str) -> Option<Shape> {
        match op {
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" => Some(Shape::MmaM16N8K8Tf32),
            "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16"
            | "wmma.mma.sync.aligned.m16n16k16.row.col.f32.f16" => Some(Shape::WmmaM16N16K16F32F16),
            _ => None,
        }
    }
}

/// One lane's fragment registers (bit patterns).
#[derive(Clone, Debug, Default)]
pub struct LaneFragments {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub c: Vec<u32>,
}

fn tf32(bits: u32) -> f64 {
    f32::from_bits(bits & !0x1fff) as f64
}

fn half(bits: u32, h: usize) -> f64 {
    float::f16_to_f32((bits >> (16 * h)) as u16) as f64
}

/// `D = A·B + C` for a full warp (`lanes[l]` is lane l); each lane's D registers.
pub fn mma(shape: Shape, lanes: &[LaneFragments]) -> Result<Vec<Vec<u32>>, String> {
    if lanes.len() != 32 {
        return Err(format!(
            "a warp-wide matrix multiply needs all 32 lanes, {} took part",
            lanes.len()
        ));
    }
    let (na, nb, nc, nd) = shape.regs();
    for (l, f) in lanes.iter().enumerate() {
        if f.a.len() != na || f.b.len() != nb || f.c.len() != nc {
            return Err(format!(
                "lane {l} brings {}/{}/{} fragment registers; the shape takes {na}/{nb}/{nc}",
                f.a.len(),
                f.b.len(),
                f.c.len()
            ));
        }
    }
    let (m, n, k) = shape.mnk();
    let mut a = vec![0f64; m * k];
    let mut b = vec![0f64; k * n];
    let mut c = vec![0f64; m * n];
    for (l, f) in lanes.iter().enumerate() {
        let (g, t) = (l / 4, l % 4);
        match shape {
            Shape::MmaM16N8K8Tf32 => {
                for (r, &v) in f.a.iter().enumerate() {
                    let (row, col) = (g + 8 * (r & 1), t + 4 * (r >> 1));
                    a[row * k + col] = tf32(v);
                }
                for (r, &v) in f.b.iter().enumerate() {
                    b[(t + 4 * r) * n + g] = tf32(v);
                }
                for (r, &v) in f.c.iter().enumerate() {
                    let (row, col) = (g + 8 * (r >> 1), 2 * t + (r & 1));
                    c[row * n + col] = f32::from_bits(v) as f64;
                }
            }
            Shape::WmmaM16N16K16F32F16 => {
                for r in 0..4 {
                    for h in 0..2 {
                        let (row, col) = (g + 8 * (r & 1), 2 * t + h + 8 * (r >> 1));
                        a[row * k + col] = half(f.a[r], h);
                        let (kk, nn) = (2 * t + h + 8 * (r & 1), g + 8 * (r >> 1));
                        b[kk * n + nn] = half(f.b[r], h);
                        c[row * n + col] = half(f.c[r], h);
                    }
                }
            }
        }
    }
    let mut d = vec![0u32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = c[i * n + j];
            for kk in 0..k {
                s += a[i * k + kk] * b[kk * n + j];
            }
            d[i * n + j] = float::canon32(s as f32);
        }
    }
    Ok((0..32)
        .map(|l| {
            let (g, t) = (l / 4, l % 4);
            (0..nd)
                .map(|i| {
                    let (row, col) = match shape {
                        Shape::MmaM16N8K8Tf32 => (g + 8 * (i >> 1), 2 * t + (i & 1)),
                        Shape::WmmaM16N16K16F32F16 => {
                            (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2))
                        }
                    };
                    d[row * n + col]
                })
                .collect()
        })
        .collect())
}

/// `wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16` over one warpgroup (128
/// threads, four warps): `a` is A (64×16, `a[m·16 + k]`), `b` is B (16×32,
/// `b[k·32 + n]`), both f16 values; `c[j]` is thread j's 16 accumulators (f32 bit
/// patterns). Returns each thread's 16 results, `D = A·B + C`.
///
/// Accumulator layout (PTX ISA, m64nNk16 with f32 results): thread j is lane l of warp
/// w = j / 32, g = l / 4, t = l % 4; register i holds
/// D[16w + g + 8·((i>>1)&1)][8·(i>>2) + 2t + (i&1)].
pub fn wgmma_m64n32k16(a: &[f64], b: &[f64], c: &[Vec<u32>]) -> Result<Vec<Vec<u32>>, String> {
    if a.len() != 64 * 16 || b.len() != 16 * 32 {
        return Err("wgmma m64n32k16 takes a 64×16 A and a 16×32 B".into());
    }
    if c.len() != 128 || c.iter().any(|r| r.len() != 16) {
        return Err(format!(
            "wgmma needs a whole warpgroup of 128 threads with 16 accumulators each; {} took part",
            c.len()
        ));
    }
    Ok(c.iter()
        .enumerate()
        .map(|(j, acc)| {
            acc.iter()
                .enumerate()
                .map(|(i, &cv)| {
                    let (row, col) = wgmma_d_position(j, i);
                    let mut s = f32::from_bits(cv) as f64;
                    for k in 0..16 {
                        s += a[row * 16 + k] * b[k * 32 + col];
                    }
                    float::canon32(s as f32)
                })
                .collect()
        })
        .collect())
}

/// (row, column) of accumulator register `i` of warpgroup thread `j` (m64nNk16, f32).
pub fn wgmma_d_position(j: usize, i: usize) -> (usize, usize) {
    let (w, l) = (j / 32, j % 32);
    let (g, t) = (l / 4, l % 4);
    (
        16 * w + g + 8 * ((i >> 1) & 1),
        8 * (i >> 2) + 2 * t + (i & 1),
    )
}

/// An f16 value from its bit pattern.
pub fn f16_value(bits: u16) -> f64 {
    float::f16_to_f32(bits) as f64
}

/// The byte offset of element (row, k) of a K-major operand in the no-swizzle
/// canonical layout a wgmma matrix descriptor describes: 8×8 core matrices of f16
/// (eight 16-byte rows, 128 contiguous bytes), `lbo` bytes apart along K and `sbo`
/// bytes apart along M (or N).
pub fn kmajor_offset(row: usize, k: usize, lbo: u64, sbo: u64) -> u64 {
    (row / 8) as u64 * sbo + (k / 8) as u64 * lbo + (row % 8) as u64 * 16 + (k % 8) as u64 * 2
}

/// A wgmma matrix descriptor's fields: (start byte address in shared memory, leading
/// byte offset, stride byte offset, swizzle mode).
pub fn decode_descriptor(d: u64) -> (u64, u64, u64, u64) {
    (
        (d & 0x3fff) << 4,
        ((d >> 16) & 0x3fff) << 4,
        ((d >> 32) & 0x3fff) << 4,
        d >> 62,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(shape: Shape, f: impl Fn(usize, char, usize) -> u32) -> Vec<LaneFragments> {
        let (na, nb, nc, _) = shape.regs();
        (0..32)
            .map(|l| LaneFragments {
                a: (0..na).map(|r| f(l, 'a', r)).collect(),
                b: (0..nb).map(|r| f(l, 'b', r)).collect(),
                c: (0..nc).map(|r| f(l, 'c', r)).collect(),
            })
            .collect()
    }

    #[test]
    fn mma_tf32_identity_times_b_is_b_plus_c() {
        // A = I (16×8: ones on the diagonal of its top 8 rows), B[k][n] = k·8 + n,
        // C = 0.5 everywhere: D[i][j] = B[i][j] + 0.5 for i < 8, 0.5 below.
        let one = 1.0f32.to_bits();
        let frags = lanes(Shape::MmaM16N8K8Tf32, |l, which, r| {
            let (g, t) = (l / 4, l % 4);
            match which {
                'a' => {
                    let (row, col) = (g + 8 * (r & 1), t + 4 * (r >> 1));
                    if row == col {
                        one
                    } else {
                        0
                    }
                }
                'b' => (((t + 4 * r) * 8 + g) as f32).to_bits(),
                _ => 0.5f32.to_bits(),
            }
        });
        let d = mma(Shape::MmaM16N8K8Tf32, &frags).unwrap();
        for (l, regs) in d.iter().enumerate() {
            let (g, t) = (l / 4, l % 4);
            for (i, &v) in regs.iter().enumerate() {
                let (row, col) = (g + 8 * (i >> 1), 2 * t + (i & 1));
                let want = if row < 8 {
                    (row * 8 + col) as f32 + 0.5
                } else {
                    0.5
                };
                assert_eq!(f32::from_bits(v), want, "lane {l} d{i}");
            }
        }
    }

    #[test]
    fn tf32_ignores_the_low_mantissa_bits() {
        let x = f32::from_bits(1.0f32.to_bits() | 0x1fff);
        let frags = lanes(Shape::MmaM16N8K8Tf32, |_, which, _| match which {
            'a' | 'b' => x.to_bits(),
            _ => 0,
        });
        let d = mma(Shape::MmaM16N8K8Tf32, &frags).unwrap();
        assert_eq!(f32::from_bits(d[0][0]), 8.0);
    }

    #[test]
    fn wmma_sums_sixteen_products_and_widens_c() {
        let h = |x: f32| float::f32_to_f16(x) as u32;
        let pair = |lo: f32, hi: f32| h(lo) | (h(hi) << 16);
        let frags = lanes(Shape::WmmaM16N16K16F32F16, |_, which, _| match which {
            'a' => pair(1.0, 2.0),
            'b' => pair(0.5, 0.25),
            _ => pair(3.0, -1.0),
        });
        let d = mma(Shape::WmmaM16N16K16F32F16, &frags).unwrap();
        // Row i of A alternates 1, 2 along k; column j of B alternates 0.5, 0.25 along
        // k: every dot product is 8·(1·0.5 + 2·0.25) = 8; C alternates 3, -1 by column.
        for (l, regs) in d.iter().enumerate() {
            for (i, &v) in regs.iter().enumerate() {
                let want = if i & 1 == 0 { 11.0 } else { 7.0 };
                assert_eq!(f32::from_bits(v), want, "lane {l} d{i}");
            }
        }
    }

    #[test]
    fn wgmma_accumulators_follow_the_isa_layout() {
        // A = row index, B = 1 everywhere, C = column: D[r][c] = 16·r + c.
        let a: Vec<f64> = (0..64 * 16).map(|x| (x / 16) as f64).collect();
        let b = vec![1.0; 16 * 32];
        let c: Vec<Vec<u32>> = (0..128)
            .map(|j| {
                (0..16)
                    .map(|i| (wgmma_d_position(j, i).1 as f32).to_bits())
                    .collect()
            })
            .collect();
        let d = wgmma_m64n32k16(&a, &b, &c).unwrap();
        for (j, regs) in d.iter().enumerate() {
            for (i, &v) in regs.iter().enumerate() {
                let (r, col) = wgmma_d_position(j, i);
                assert_eq!(f32::from_bits(v), (16 * r + col) as f32);
            }
        }
        // Every (row, column) is held by exactly one register.
        let mut seen = vec![false; 64 * 32];
        for j in 0..128 {
            for i in 0..16 {
                let (r, col) = wgmma_d_position(j, i);
                assert!(!seen[r * 32 + col]);
                seen[r * 32 + col] = true;
            }
        }
    }

    #[test]
    fn descriptors_decode_their_fields() {
        let d = (0x1230 >> 4) | (8u64 << 16) | (16u64 << 32);
        assert_eq!(decode_descriptor(d), (0x1230, 128, 256, 0));
        assert_eq!(kmajor_offset(9, 10, 128, 256), 256 + 128 + 16 + 4);
    }

    #[test]
    fn a_partial_warp_is_an_error() {
        let frags = lanes(Shape::MmaM16N8K8Tf32, |_, _, _| 0);
        assert!(mma(Shape::MmaM16N8K8Tf32, &frags[..31]).is_err());
    }
}
