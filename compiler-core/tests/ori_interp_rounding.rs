//! The ORI/PTX interpreter's IEEE rounding: `add sub mul fma div sqrt rcp` in f32 and
//! f64 under `.rn .rz .rm .rp`, `fma.rn.f64`, and `cvt` to f16 in every direction
//! (before, the interpreter refused `.rz`/`.rm`/`.rp` and `fma.f64`). Each case runs
//! as a one-thread kernel through both front ends (PTX as written, ORI after
//! ptx-lower); the expected bit patterns are worked out by hand at each case (exact
//! value, its two neighbours in the format, the direction's choice). A second test
//! checks the integer arithmetic behind them against Rust's own (nearest) operations
//! and against exact f64 arithmetic on random operands.

use compiler_core::interp::float::{self, FRound, BINARY32, BINARY64};
use compiler_core::ori_interp::{self as interp, Buffer, Inputs, Launch, GLOBAL_BASE};
use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
use compiler_core::ptx;
use compiler_core::trace::NoTrace;

/// Runs `op %d, %s1, ...` on the immediates `srcs` (moved into registers of `src_bits`)
/// in one thread and returns the destination's bits (`dst_bits` wide), the same through
/// both front ends.
fn eval(op: &str, srcs: &[&str], src_bits: u32, dst_bits: u32) -> u64 {
    let mut body = String::new();
    let mut names = Vec::new();
    for (k, s) in srcs.iter().enumerate() {
        body += &format!("\tmov.b{src_bits} %s{k}, {s};\n");
        names.push(format!("%s{k}"));
    }
    body += &format!("\t{op} %d, {};\n", names.join(", "));
    let text = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\
         .visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n\
         \t.reg .b{src_bits} %s<4>;\n\t.reg .b{dst_bits} %d;\n\t.reg .b64 %p;\n\
         \tld.param.u64 %p, [k_param_0];\n{body}\tst.global.b{dst_bits} [%p], %d;\n\tret;\n}}\n"
    );
    let m = ptx::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let inputs = Inputs {
        launch: Launch {
            grid: [1, 1, 1],
            block: [1, 1, 1],
        },
        params: vec![GLOBAL_BASE.to_le_bytes().to_vec()],
        buffers: vec![Buffer {
            base: GLOBAL_BASE,
            bytes: vec![0; 8],
        }],
    };
    let cfg = interp::Config::default();
    let from_ptx =
        interp::run_ptx_module(&m, "k", &inputs, &cfg).unwrap_or_else(|e| panic!("{op}: {e}"));
    let (o, _) = ptx_lower::run(&m, &PtxLowerOptions::default(), &mut NoTrace::default()).unwrap();
    let from_ori = interp::run_ori_module(&o, "k", &inputs, &cfg).unwrap();
    assert_eq!(
        from_ptx.buffers, from_ori.buffers,
        "{op}: the front ends differ"
    );
    u64::from_le_bytes(from_ori.buffers[0].bytes[..8].try_into().unwrap())
}

/// f32 operands and result.
fn f32op(op: &str, srcs: &[&str]) -> u64 {
    eval(op, srcs, 32, 32)
}

/// f64 operands and result.
fn f64op(op: &str, srcs: &[&str]) -> u64 {
    eval(op, srcs, 64, 64)
}

// f32 constants: 1, 2^-30, MAX, 2^-100, 3, 1 + 2^-12, √2's operand 2.
const ONE: &str = "0f3F800000";
const M_ONE: &str = "0fBF800000";
const TINY: &str = "0f30800000"; // 2^-30: exponent field 97
const M_TINY: &str = "0fB0800000";
const MAX: &str = "0f7F7FFFFF";
const M_MAX: &str = "0fFF7FFFFF";
const P100: &str = "0f0D800000"; // 2^-100: exponent field 27
const M_P100: &str = "0f8D800000";
const THREE: &str = "0f40400000";
const ONE_P12: &str = "0f3F800800"; // 1 + 2^-12
const TWO: &str = "0f40000000";
const ZERO: &str = "0f00000000";

#[test]
fn f32_directed_rounding_by_hand() {
    let cases: Vec<(&str, &[&str], u64)> = vec![
        // 1 + 2^-30 lies between 1 (0x3f800000) and 1 + 2^-23 (0x3f800001), far below
        // the midpoint 1 + 2^-24: nearest, toward zero and down give 1, up the next.
        ("add.rn.f32", &[ONE, TINY], 0x3f80_0000),
        ("add.rz.f32", &[ONE, TINY], 0x3f80_0000),
        ("add.rm.f32", &[ONE, TINY], 0x3f80_0000),
        ("add.rp.f32", &[ONE, TINY], 0x3f80_0001),
        // −(1 + 2^-30): toward zero and up give −1, down (toward −∞) the larger magnitude.
        ("add.rz.f32", &[M_ONE, M_TINY], 0xbf80_0000),
        ("add.rm.f32", &[M_ONE, M_TINY], 0xbf80_0001),
        ("add.rp.f32", &[M_ONE, M_TINY], 0xbf80_0000),
        // 1 − 2^-30 lies between 1 − 2^-24 (0x3f7fffff, the spacing below 1 is 2^-24)
        // and 1, nearer 1: nearest and up give 1, toward zero and down 0x3f7fffff.
        ("sub.rn.f32", &[ONE, TINY], 0x3f80_0000),
        ("sub.rz.f32", &[ONE, TINY], 0x3f7f_ffff),
        ("sub.rm.f32", &[ONE, TINY], 0x3f7f_ffff),
        ("sub.rp.f32", &[ONE, TINY], 0x3f80_0000),
        // MAX + MAX = 2^129 − 2^105 overflows: nearest gives ∞; toward zero MAX; for
        // −MAX − MAX down gives −∞ and up −MAX.
        ("add.rn.f32", &[MAX, MAX], 0x7f80_0000),
        ("add.rz.f32", &[MAX, MAX], 0x7f7f_ffff),
        ("add.rm.f32", &[M_MAX, M_MAX], 0xff80_0000),
        ("add.rp.f32", &[M_MAX, M_MAX], 0xff7f_ffff),
        // An exact zero sum is +0, except −0 when rounding down.
        ("add.rn.f32", &[ONE, M_ONE], 0x0000_0000),
        ("add.rm.f32", &[ONE, M_ONE], 0x8000_0000),
        // 2^-100 · 2^-100 = 2^-200 is below the smallest subnormal 2^-149: toward zero
        // and down give +0, up the smallest subnormal; for −2^-200 down gives −2^-149.
        ("mul.rz.f32", &[P100, P100], 0x0000_0000),
        ("mul.rm.f32", &[P100, P100], 0x0000_0000),
        ("mul.rp.f32", &[P100, P100], 0x0000_0001),
        ("mul.rm.f32", &[M_P100, P100], 0x8000_0001),
        ("mul.rp.f32", &[M_P100, P100], 0x8000_0000),
        // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24: exactly half-way between 1 + 2^-11
        // (0x3f801000, even significand) and 0x3f801001: nearest takes the even one.
        ("fma.rn.f32", &[ONE_P12, ONE_P12, ZERO], 0x3f80_1000),
        ("fma.rz.f32", &[ONE_P12, ONE_P12, ZERO], 0x3f80_1000),
        ("fma.rp.f32", &[ONE_P12, ONE_P12, ZERO], 0x3f80_1001),
        ("mul.rp.f32", &[ONE_P12, ONE_P12], 0x3f80_1001),
        // 1/3 = 0x3eaaaaaa + 2/3 of an ulp (the binary digits 0101... repeat): nearest
        // and up give 0x3eaaaaab, toward zero and down 0x3eaaaaaa; for −1/3 down
        // gives the larger magnitude.
        ("div.rn.f32", &[ONE, THREE], 0x3eaa_aaab),
        ("div.rz.f32", &[ONE, THREE], 0x3eaa_aaaa),
        ("div.rm.f32", &[ONE, THREE], 0x3eaa_aaaa),
        ("div.rp.f32", &[ONE, THREE], 0x3eaa_aaab),
        ("div.rz.f32", &[M_ONE, THREE], 0xbeaa_aaaa),
        ("div.rm.f32", &[M_ONE, THREE], 0xbeaa_aaab),
        ("rcp.rz.f32", &[THREE], 0x3eaa_aaaa),
        ("rcp.rp.f32", &[THREE], 0x3eaa_aaab),
        // √2 = 1.41421356237…; 0x3fb504f3 = 1.41421353816… lies below it (its square
        // is < 2), so nearest, toward zero and down give it and up 0x3fb504f4.
        ("sqrt.rn.f32", &[TWO], 0x3fb5_04f3),
        ("sqrt.rz.f32", &[TWO], 0x3fb5_04f3),
        ("sqrt.rm.f32", &[TWO], 0x3fb5_04f3),
        ("sqrt.rp.f32", &[TWO], 0x3fb5_04f4),
    ];
    let got: Vec<(String, u64)> = cases
        .iter()
        .map(|(op, srcs, _)| (format!("{op} {}", srcs.join(", ")), f32op(op, srcs)))
        .collect();
    let want: Vec<(String, u64)> = cases
        .iter()
        .map(|(op, srcs, r)| (format!("{op} {}", srcs.join(", ")), *r))
        .collect();
    assert_eq!(got, want);
}

// f64 constants: 2^27 + 1, 2^26 + 1, 2^26 + 3, 1 + 2^-26, 1 + 2^-27, 1, 3, 2.
const A27: &str = "0d41A0000002000000";
const B26: &str = "0d4190000004000000";
const C26: &str = "0d419000000C000000";
const ONE_P26: &str = "0d3FF0000004000000";
const ONE_P27: &str = "0d3FF0000002000000";
const D_ONE: &str = "0d3FF0000000000000";
const D_THREE: &str = "0d4008000000000000";
const D_TWO: &str = "0d4000000000000000";
const D_ZERO: &str = "0d0000000000000000";
const M_ONE_P26: &str = "0dBFF0000004000000";

#[test]
fn f64_directed_rounding_and_fma_by_hand() {
    let cases: Vec<(&str, &[&str], u64)> = vec![
        // (2^27 + 1)(2^26 + 1) = 2^53 + 2^27 + 2^26 + 1: above 2^53 the spacing is 2,
        // so the product is half-way between 2^53 + 2^27 + 2^26 (significand
        // 2^52 + 2^26 + 2^25, even: 0x4340000006000000) and the next (…01).
        ("mul.rn.f64", &[A27, B26], 0x4340_0000_0600_0000),
        ("mul.rz.f64", &[A27, B26], 0x4340_0000_0600_0000),
        ("mul.rm.f64", &[A27, B26], 0x4340_0000_0600_0000),
        ("mul.rp.f64", &[A27, B26], 0x4340_0000_0600_0001),
        // (2^27 + 1)(2^26 + 3) = 2^53 + 3·2^27 + 2^26 + 3: half-way between
        // 2^53 + 3·2^27 + 2^26 + 2 (significand 2^52 + 3·2^26 + 2^25 + 1, odd:
        // 0x434000000e000001) and the next (…02, even): nearest goes up here.
        ("mul.rn.f64", &[A27, C26], 0x4340_0000_0e00_0002),
        ("mul.rz.f64", &[A27, C26], 0x4340_0000_0e00_0001),
        ("mul.rp.f64", &[A27, C26], 0x4340_0000_0e00_0002),
        // (1 + 2^-27)^2 − (1 + 2^-26) = 2^-54 exactly (0x3c90000000000000), fused; the
        // unfused product rounds 1 + 2^-26 + 2^-54 to 1 + 2^-26 and the difference is 0.
        (
            "fma.rn.f64",
            &[ONE_P27, ONE_P27, M_ONE_P26],
            0x3c90_0000_0000_0000,
        ),
        (
            "fma.rz.f64",
            &[ONE_P27, ONE_P27, M_ONE_P26],
            0x3c90_0000_0000_0000,
        ),
        (
            "mad.rn.f64",
            &[ONE_P27, ONE_P27, M_ONE_P26],
            0x3c90_0000_0000_0000,
        ),
        ("mul.rn.f64", &[ONE_P27, ONE_P27], 0x3ff0_0000_0400_0000),
        // 1 + 2^-26 + 2^-54 itself: 2^-54 is a quarter of the spacing 2^-52 at 1:
        // nearest and toward zero drop it, up adds one ulp.
        (
            "fma.rn.f64",
            &[ONE_P27, ONE_P27, D_ZERO],
            0x3ff0_0000_0400_0000,
        ),
        (
            "fma.rm.f64",
            &[ONE_P27, ONE_P27, D_ZERO],
            0x3ff0_0000_0400_0000,
        ),
        (
            "fma.rp.f64",
            &[ONE_P27, ONE_P27, D_ZERO],
            0x3ff0_0000_0400_0001,
        ),
        // 1/3 = 0x3fd5555555555555 + 1/3 ulp: nearest, toward zero, down truncate, up
        // adds one.
        ("div.rn.f64", &[D_ONE, D_THREE], 0x3fd5_5555_5555_5555),
        ("div.rz.f64", &[D_ONE, D_THREE], 0x3fd5_5555_5555_5555),
        ("div.rp.f64", &[D_ONE, D_THREE], 0x3fd5_5555_5555_5556),
        ("rcp.rp.f64", &[D_THREE], 0x3fd5_5555_5555_5556),
        ("rcp.rn.f64", &[D_THREE], 0x3fd5_5555_5555_5555),
        // 1 + (1 + 2^-26) = 2 + 2^-26: exact (the spacing at 2 is 2^-51).
        ("add.rz.f64", &[D_ONE, ONE_P26], 0x4000_0000_0200_0000),
        ("sub.rm.f64", &[D_ONE, D_ONE], 0x8000_0000_0000_0000),
        // √2: 0x3ff6a09e667f3bcd = 1.41421356237309514… is above √2 (its square > 2):
        // nearest and up give it, toward zero and down the one below.
        ("sqrt.rn.f64", &[D_TWO], 0x3ff6_a09e_667f_3bcd),
        ("sqrt.rz.f64", &[D_TWO], 0x3ff6_a09e_667f_3bcc),
        ("sqrt.rm.f64", &[D_TWO], 0x3ff6_a09e_667f_3bcc),
        ("sqrt.rp.f64", &[D_TWO], 0x3ff6_a09e_667f_3bcd),
    ];
    let got: Vec<(String, u64)> = cases
        .iter()
        .map(|(op, srcs, _)| (format!("{op} {}", srcs.join(", ")), f64op(op, srcs)))
        .collect();
    let want: Vec<(String, u64)> = cases
        .iter()
        .map(|(op, srcs, r)| (format!("{op} {}", srcs.join(", ")), *r))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn conversions_in_every_direction_by_hand() {
    let cases: Vec<(&str, &[&str], u32, u32, u64)> = vec![
        // 1/3 in f64 to f32: truncation 0x3eaaaaaa plus 2/3 ulp.
        (
            "cvt.rz.f32.f64",
            &["0d3FD5555555555555"],
            64,
            32,
            0x3eaa_aaaa,
        ),
        (
            "cvt.rp.f32.f64",
            &["0d3FD5555555555555"],
            64,
            32,
            0x3eaa_aaab,
        ),
        // f32 1/3 (0x3eaaaaab = 0.33333334) to f16: between 0x3555 (0.33325195) and
        // 0x3556 (0.33349609), nearer the first.
        ("cvt.rn.f16.f32", &["0f3EAAAAAB"], 32, 16, 0x3555),
        ("cvt.rz.f16.f32", &["0f3EAAAAAB"], 32, 16, 0x3555),
        ("cvt.rp.f16.f32", &["0f3EAAAAAB"], 32, 16, 0x3556),
        ("cvt.rm.f16.f32", &["0fBEAAAAAB"], 32, 16, 0xb556),
        // 65520 = f16 MAX (65504) + half its spacing 32: nearest goes to the even
        // neighbour, ∞; toward zero 1e6 stays at MAX (0x7bff).
        ("cvt.rn.f16.f64", &["0d40EFFE0000000000"], 64, 16, 0x7c00),
        ("cvt.rz.f16.f64", &["0d412E848000000000"], 64, 16, 0x7bff),
        (
            "cvt.rn.sat.f16.f64",
            &["0d412E848000000000"],
            64,
            16,
            0x3c00,
        ),
        // 2049 lies half-way between 2048 (0x6800, even) and 2050 (0x6801).
        ("cvt.rn.f16.s32", &["2049"], 32, 16, 0x6800),
        ("cvt.rp.f16.s32", &["2049"], 32, 16, 0x6801),
        ("cvt.rm.f16.s32", &["-2049"], 32, 16, 0xe801),
        // −2.5 to an integer: toward zero −2, down −3, up −2, nearest even −2.
        (
            "cvt.rzi.s32.f32",
            &["0fC0200000"],
            32,
            32,
            (-2i32) as u32 as u64,
        ),
        (
            "cvt.rmi.s32.f32",
            &["0fC0200000"],
            32,
            32,
            (-3i32) as u32 as u64,
        ),
        (
            "cvt.rpi.s32.f32",
            &["0fC0200000"],
            32,
            32,
            (-2i32) as u32 as u64,
        ),
        (
            "cvt.rni.s32.f32",
            &["0fC0200000"],
            32,
            32,
            (-2i32) as u32 as u64,
        ),
        // 2^24 + 1 to f32: between 2^24 (0x4b800000) and 2^24 + 2 (0x4b800001).
        ("cvt.rz.f32.u32", &["16777217"], 32, 32, 0x4b80_0000),
        ("cvt.rp.f32.u32", &["16777217"], 32, 32, 0x4b80_0001),
    ];
    let got: Vec<(String, u64)> = cases
        .iter()
        .map(|(op, s, sb, db, _)| (format!("{op} {}", s[0]), eval(op, s, *sb, *db)))
        .collect();
    let want: Vec<(String, u64)> = cases
        .iter()
        .map(|(op, s, _, _, r)| (format!("{op} {}", s[0]), *r))
        .collect();
    assert_eq!(got, want);
}

/// A deterministic stream of operands: random bit patterns with a bias toward
/// interesting ones (near each other, subnormal, special).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn f32(&mut self) -> f32 {
        let r = self.next();
        match r % 8 {
            0 => f32::from_bits((r >> 32) as u32 & 0x807f_ffff), // subnormal or zero
            1 => [
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                f32::MAX,
            ][(r >> 8) as usize % 6],
            _ => f32::from_bits((r >> 32) as u32),
        }
    }
    fn f64(&mut self) -> f64 {
        let r = self.next();
        match r % 8 {
            0 => f64::from_bits(r & 0x800f_ffff_ffff_ffff),
            1 => [
                0.0,
                -0.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                f64::MAX,
            ][(r >> 8) as usize % 6],
            _ => f64::from_bits(self.next()),
        }
    }
}

/// The bits of a result with PTX's canonical NaN. The NaN test is on the bits: LLVM may
/// fold `if x.is_nan() { K } else { x.to_bits() }` to `x.to_bits()` when `x` comes
/// from an operation (whose NaN payload Rust leaves unspecified), and then the
/// hardware's NaN (0xfff8… for √−1 on x86) comes through.
fn c32(x: f32) -> u64 {
    let b = std::hint::black_box(x).to_bits();
    if b & 0x7f80_0000 == 0x7f80_0000 && b & 0x7f_ffff != 0 {
        0x7fff_ffff
    } else {
        u64::from(b)
    }
}

fn c64(x: f64) -> u64 {
    let b = std::hint::black_box(x).to_bits();
    if b & 0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000 && b & 0xf_ffff_ffff_ffff != 0 {
        BINARY64.nan()
    } else {
        b
    }
}

/// Nearest agrees with Rust's IEEE operations (and `core`'s `f32::mul_add`-free
/// `fma32`); the directed f32 sums and products agree with the exact f64 result
/// rounded by `f64_to_f32` (an f32 product is exact in f64, and so is a sum of two
/// f32 within 2^29 of each other); and in every format the directed results bracket
/// nearest: down ≤ nearest ≤ up, up is down or its successor, and toward zero is
/// down or up by sign.
#[test]
fn integer_arithmetic_agrees_with_ieee_and_brackets() {
    use FRound::*;
    let mut g = Gen(29);
    for _ in 0..200_000 {
        let (x, y, z) = (g.f32(), g.f32(), g.f32());
        let (a, b, c) = (
            u64::from(x.to_bits()),
            u64::from(y.to_bits()),
            u64::from(z.to_bits()),
        );
        let f = BINARY32;
        assert_eq!(
            float::add_dir(f, a, b, Nearest),
            c32(x + y),
            "{x:e} + {y:e}"
        );
        assert_eq!(
            float::mul_dir(f, a, b, Nearest),
            c32(x * y),
            "{x:e} * {y:e}"
        );
        assert_eq!(
            float::div_dir(f, a, b, Nearest),
            c32(x / y),
            "{x:e} / {y:e}"
        );
        assert_eq!(
            float::sqrt_dir(f, a, Nearest),
            c32((x as f64).sqrt() as f32),
            "√{x:e}"
        );
        assert_eq!(
            float::fma_dir(f, a, b, c, Nearest),
            c32(float::fma32(x, y, z))
        );
        for dir in [Zero, Down, Up] {
            let p = x as f64 * y as f64;
            assert_eq!(
                float::mul_dir(f, a, b, dir),
                c32(float::f64_to_f32(p, dir)),
                "{x:e} * {y:e} {dir:?}"
            );
            // A partner within 2^29 of x: the f64 sum is exact.
            let w = f32::from_bits(x.to_bits() ^ ((g.next() as u32) & 0x83ff_ffff));
            if x.is_finite() && w.is_finite() {
                // An exact zero sum is −0 when rounding down (unless both are +0),
                // which f64's nearest addition cannot say.
                let s = match x as f64 + w as f64 {
                    0.0 if dir == Down && !(x.to_bits() == 0 && w.to_bits() == 0) => -0.0,
                    s => s,
                };
                let wb = u64::from(w.to_bits());
                assert_eq!(
                    float::add_dir(f, a, wb, dir),
                    c32(float::f64_to_f32(s, dir)),
                    "{x:e} + {w:e} {dir:?}"
                );
            }
        }
        let (u, v, w) = (g.f64(), g.f64(), g.f64());
        let (a, b, c) = (u.to_bits(), v.to_bits(), w.to_bits());
        let f = BINARY64;
        assert_eq!(
            float::add_dir(f, a, b, Nearest),
            c64(u + v),
            "{u:e} + {v:e}"
        );
        assert_eq!(
            float::mul_dir(f, a, b, Nearest),
            c64(u * v),
            "{u:e} * {v:e}"
        );
        assert_eq!(
            float::div_dir(f, a, b, Nearest),
            c64(u / v),
            "{u:e} / {v:e}"
        );
        assert_eq!(float::sqrt_dir(f, a, Nearest), c64(u.sqrt()), "√{u:e}");
        let op = |name: &str, d: FRound| match name {
            "add" => float::add_dir(f, a, b, d),
            "mul" => float::mul_dir(f, a, b, d),
            "div" => float::div_dir(f, a, b, d),
            "sqrt" => float::sqrt_dir(f, a, d),
            _ => float::fma_dir(f, a, b, c, d),
        };
        for name in ["add", "mul", "div", "sqrt", "fma"] {
            let [n, zr, dn, up] = [Nearest, Zero, Down, Up].map(|d| f64::from_bits(op(name, d)));
            if n.is_nan() {
                assert!(
                    zr.is_nan() && dn.is_nan() && up.is_nan(),
                    "{name} {u:e} {v:e} {w:e}"
                );
                continue;
            }
            let ctx = || format!("{name} {u:e} {v:e} {w:e}: {n:e} {zr:e} {dn:e} {up:e}");
            assert!(dn <= n && n <= up, "{}", ctx());
            assert!(up == dn || up == dn.next_up(), "{}", ctx());
            // Toward zero is up for a negative result (up ≤ −0), else down.
            let toward = if up.is_sign_negative() { up } else { dn };
            if !(up == dn && up == 0.0) {
                assert_eq!(zr.to_bits(), toward.to_bits(), "{}", ctx());
            }
        }
    }
}
