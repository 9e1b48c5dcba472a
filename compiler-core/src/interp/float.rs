//! Floating-point semantics in software, `no_std`: IEEE f32/f64 arithmetic comes from
//! Rust (round to nearest even), everything Rust's `core` does not give us is here:
//!
//! - f16 ⇄ f32 conversion (exact widening, round-to-nearest-even narrowing);
//! - a correctly rounded f32 fused multiply-add (`fma.rn.f32`) built on f64 with
//!   round-to-odd, so `core` without `libm` suffices;
//! - PTX `cvt` rounding modes (`.rn .rz .rm .rp` for float results, `.rni .rzi .rmi
//!   .rpi .rna` for integer results), saturation and flush-to-zero;
//! - the canonical NaN PTX arithmetic produces (`0x7fffffff` for f32, `0x7fff` for f16).
//!
//! f16 arithmetic is done in f32 and rounded once to f16: for +, −, × the f32 result of
//! two f16 operands is either exact or rounds innocuously (24 ≥ 2·11 + 2 bits), so the
//! f16 result is correctly rounded.

/// PTX's canonical f32 NaN: every f32 arithmetic instruction that produces a NaN
/// produces this one (no payload propagation).
pub const F32_CANONICAL_NAN: u32 = 0x7fff_ffff;
/// PTX's canonical f16 NaN.
pub const F16_CANONICAL_NAN: u16 = 0x7fff;

/// `cvt` rounding and flag bits (LLVM's `NVPTX::PTXCvtMode`).
pub mod cvt_mode {
    pub const NONE: u32 = 0;
    pub const RNI: u32 = 1;
    pub const RZI: u32 = 2;
    pub const RMI: u32 = 3;
    pub const RPI: u32 = 4;
    pub const RN: u32 = 5;
    pub const RZ: u32 = 6;
    pub const RM: u32 = 7;
    pub const RP: u32 = 8;
    pub const RNA: u32 = 9;
    pub const BASE_MASK: u32 = 0x0f;
    pub const FTZ: u32 = 0x10;
    pub const SAT: u32 = 0x20;
}

/// Result bits of an f32 operation, NaN canonicalised.
pub fn canon32(x: f32) -> u32 {
    if x.is_nan() {
        F32_CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

/// Flushes an f32 subnormal to a zero of the same sign (`.ftz`).
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// Flushes an f16 subnormal (bit pattern) to a zero of the same sign.
pub fn ftz16(h: u16) -> u16 {
    if h & 0x7c00 == 0 {
        h & 0x8000
    } else {
        h
    }
}

/// Exact widening of an IEEE binary16 bit pattern to f32.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) >> 15) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    match exp {
        0 => {
            // Zero or subnormal: man · 2^-24, exact in f32.
            let v = man as f32 * (1.0 / 16_777_216.0);
            f32::from_bits(v.to_bits() | sign)
        }
        31 => f32::from_bits(sign | 0x7f80_0000 | (man << 13)),
        _ => f32::from_bits(sign | ((exp + 112) << 23) | (man << 13)),
    }
}

/// f32 → binary16, round to nearest even; NaNs stay NaN (quiet), overflow gives ∞.
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return if man != 0 {
            sign | 0x7e00 | (man >> 13) as u16
        } else {
            sign | 0x7c00
        };
    }
    if exp == 0 {
        // f32 zero or subnormal: far below half the smallest f16 subnormal.
        return sign;
    }
    let e = exp - 127;
    if e > 15 {
        return sign | 0x7c00;
    }
    if e >= -14 {
        let mut h = (((e + 15) as u32) << 10) | (man >> 13);
        let rem = man & 0x1fff;
        if rem > 0x1000 || (rem == 0x1000 && h & 1 == 1) {
            h += 1; // may carry into the exponent, up to ∞: both are right
        }
        return sign | h as u16;
    }
    // Result is an f16 subnormal (or zero): count units of 2^-24.
    let full = man | 0x80_0000; // value = full · 2^(e-23)
    let shift = (-(e + 1)) as u32; // ≥ 14
    if shift >= 32 {
        return sign;
    }
    let q = full >> shift;
    let rem = full & ((1u32 << shift) - 1);
    let half = 1u32 << (shift - 1);
    let q = if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    sign | q as u16
}

/// Result bits of an f16 operation computed in f32: rounded once, NaN canonicalised.
pub fn canon16_from_f32(x: f32) -> u16 {
    if x.is_nan() {
        F16_CANONICAL_NAN
    } else {
        f32_to_f16(x)
    }
}

/// `fma.rn.f32`: a·b + c with a single rounding.
///
/// a·b is exact in f64 (2 × 24 significant bits ≤ 53). The sum is rounded to f64 with
/// round-to-odd (round to nearest, then nudge an inexact even result to its odd
/// neighbour, using the TwoSum error term), and round-to-odd at ≥ 24 + 2 bits followed by
/// one round-to-nearest to f32 equals a single correct rounding.
pub fn fma32(a: f32, b: f32, c: f32) -> f32 {
    let p = a as f64 * b as f64;
    let c = c as f64;
    if !p.is_finite() || !c.is_finite() {
        return (p + c) as f32;
    }
    let s = p + c;
    let bb = s - p;
    let err = (p - (s - bb)) + (c - bb);
    let odd = if err != 0.0 && s.to_bits() & 1 == 0 {
        if (err > 0.0) == (s > 0.0) {
            f64::from_bits(s.to_bits() + 1)
        } else {
            f64::from_bits(s.to_bits() - 1)
        }
    } else {
        s
    };
    odd as f32
}

/// Rounding direction of a float-result conversion.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FRound {
    Nearest,
    Zero,
    Down,
    Up,
}

impl FRound {
    /// The float rounding of a `cvt` mode (`NONE` means the type's default, nearest).
    pub fn from_mode(mode: u32) -> Option<FRound> {
        match mode & cvt_mode::BASE_MASK {
            cvt_mode::NONE | cvt_mode::RN => Some(FRound::Nearest),
            cvt_mode::RZ => Some(FRound::Zero),
            cvt_mode::RM => Some(FRound::Down),
            cvt_mode::RP => Some(FRound::Up),
            _ => None,
        }
    }
}

/// Which neighbour of a round-to-nearest result rounds the exact value in direction
/// `dir`: -1 the one below, 1 the one above, 0 the result itself. `cmp` is the result
/// compared with the exact value, `negative` the exact value's sign.
fn adjustment(cmp: core::cmp::Ordering, negative: bool, dir: FRound) -> i8 {
    use core::cmp::Ordering::*;
    let down = match dir {
        FRound::Nearest => return 0,
        FRound::Down => true,
        FRound::Up => false,
        FRound::Zero => !negative,
    };
    match (cmp, down) {
        (Greater, true) => -1,
        (Less, false) => 1,
        _ => 0,
    }
}

/// Picks between a round-to-nearest result `r` and its neighbours so that it rounds
/// `exact` in direction `dir`. `cmp` is `r` compared with the exact value.
fn adjust32(r: f32, cmp: core::cmp::Ordering, negative: bool, dir: FRound) -> f32 {
    match adjustment(cmp, negative, dir) {
        -1 => r.next_down(),
        1 => r.next_up(),
        _ => r,
    }
}

fn adjust64(r: f64, cmp: core::cmp::Ordering, negative: bool, dir: FRound) -> f64 {
    match adjustment(cmp, negative, dir) {
        -1 => r.next_down(),
        1 => r.next_up(),
        _ => r,
    }
}

/// An integer (exact, as i128) to f32 with a rounding direction.
pub fn int_to_f32(v: i128, dir: FRound) -> f32 {
    let r = v as f32; // nearest even
                      // |r| ≤ 2^127 fits i128 except exactly 2^127, which no 64-bit input reaches.
    let rv = r as i128;
    adjust32(r, rv.cmp(&v), v < 0, dir)
}

/// An integer (exact, as i128) to f64 with a rounding direction.
pub fn int_to_f64(v: i128, dir: FRound) -> f64 {
    let r = v as f64;
    let rv = r as i128;
    adjust64(r, rv.cmp(&v), v < 0, dir)
}

/// f64 to f32 with a rounding direction.
pub fn f64_to_f32(x: f64, dir: FRound) -> f32 {
    let r = x as f32;
    if x.is_nan() || r.is_nan() {
        return r;
    }
    let cmp = (r as f64)
        .partial_cmp(&x)
        .unwrap_or(core::cmp::Ordering::Equal);
    // Overflow to ∞ under directed rounding toward zero goes back to the largest finite.
    adjust32(r, cmp, x < 0.0, dir)
}

/// Rounding of a float-to-integer conversion.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IRound {
    /// `.rni`: nearest, ties to even.
    NearestEven,
    /// `.rzi`: toward zero.
    Zero,
    /// `.rmi`: toward −∞.
    Down,
    /// `.rpi`: toward +∞.
    Up,
    /// `.rna`: nearest, ties away from zero.
    NearestAway,
}

impl IRound {
    /// `NONE` is accepted as `.rzi` (C's conversion), which is what PTX requires anyway.
    pub fn from_mode(mode: u32) -> Option<IRound> {
        match mode & cvt_mode::BASE_MASK {
            cvt_mode::NONE | cvt_mode::RZI => Some(IRound::Zero),
            cvt_mode::RNI => Some(IRound::NearestEven),
            cvt_mode::RMI => Some(IRound::Down),
            cvt_mode::RPI => Some(IRound::Up),
            cvt_mode::RNA => Some(IRound::NearestAway),
            _ => None,
        }
    }
}

/// Float (as f64; f32 and f16 widen exactly) to an integer of `bits` bits, saturating
/// as PTX does (NaN → 0). Returns the two's-complement bit pattern, masked to `bits`.
pub fn float_to_int(x: f64, dir: IRound, signed: bool, bits: u32) -> u128 {
    if x.is_nan() {
        return 0;
    }
    let t = x as i128; // truncation, saturating at the i128 range
                       // |x| < 2^52 ⇒ t is exact and x - t is exact; beyond that x is integral (and far
                       // beyond any target range, where only the clamp below matters).
    let frac = if x.abs() < 4.5e15 { x - t as f64 } else { 0.0 };
    let r = if frac == 0.0 {
        t
    } else {
        match dir {
            IRound::Zero => t,
            IRound::Down => {
                if x < 0.0 {
                    t - 1
                } else {
                    t
                }
            }
            IRound::Up => {
                if x > 0.0 {
                    t + 1
                } else {
                    t
                }
            }
            IRound::NearestEven | IRound::NearestAway => {
                let a = frac.abs();
                let away = a > 0.5 || (a == 0.5 && (dir == IRound::NearestAway || t & 1 == 1));
                if away {
                    if x < 0.0 {
                        t - 1
                    } else {
                        t + 1
                    }
                } else {
                    t
                }
            }
        }
    };
    let (lo, hi): (i128, i128) = if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    };
    (r.clamp(lo, hi) as u128) & mask(bits)
}

/// A float rounded to an integral value in floating point (`cvt.rni.f32.f32` and the
/// other same-type conversions): [`float_to_int`]'s rounding, the sign of a zero kept.
pub fn round_integral(x: f64, dir: IRound) -> f64 {
    if !x.is_finite() || x.abs() >= 4.5e15 {
        return x;
    }
    let r = float_to_int(x, dir, true, 64) as u64 as i64 as f64;
    if r == 0.0 && x.is_sign_negative() {
        -0.0
    } else {
        r
    }
}

/// Low `bits` ones.
pub fn mask(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

/// Interprets the low `bits` of `v` as a signed integer.
pub fn sext(v: u128, bits: u32) -> i128 {
    if bits == 0 || bits >= 128 {
        return v as i128;
    }
    let sh = 128 - bits;
    ((v << sh) as i128) >> sh
}

/// Parses an MIR floating-point literal (`float 1.000000e+00`, `float 0x3FB99999A0000000`,
/// `half 0xH3C00`, `bfloat 0xR3F80`, `double 0x...`) into the bit pattern of its own type.
pub fn parse_fp_literal(ty: &str, text: &str) -> Option<u128> {
    let t = text.trim();
    if let Some(h) = t.strip_prefix("0xH").or_else(|| t.strip_prefix("0xh")) {
        return u16::from_str_radix(h, 16).ok().map(u128::from);
    }
    if let Some(h) = t.strip_prefix("0xR").or_else(|| t.strip_prefix("0xr")) {
        return u16::from_str_radix(h, 16).ok().map(u128::from);
    }
    // LLVM prints `float` and `double` hex literals as the bits of the value widened to
    // double.
    let v: f64 = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        f64::from_bits(u64::from_str_radix(h, 16).ok()?)
    } else {
        t.parse::<f64>().ok()?
    };
    match ty {
        "float" => Some((v as f32).to_bits() as u128),
        "double" => Some(v.to_bits() as u128),
        "half" => Some(f32_to_f16(v as f32) as u128),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// IEEE arithmetic rounded in any direction: `add sub mul fma div sqrt rcp` with `.rn .rz
// .rm .rp`, and float-to-float conversions, for binary16/32/64. The exact result is
// formed on integers (a significand in a u128, a binary exponent, and a sticky bit for
// anything nonzero below the u128), then rounded once by [`round_to`]: no `libm`, no
// dependence on the host's rounding mode.

/// An IEEE binary interchange format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Format {
    /// Stored fraction bits (the significand has one more).
    pub frac: u32,
    /// Exponent field bits.
    pub exp_bits: u32,
}

pub const BINARY16: Format = Format {
    frac: 10,
    exp_bits: 5,
};
pub const BINARY32: Format = Format {
    frac: 23,
    exp_bits: 8,
};
pub const BINARY64: Format = Format {
    frac: 52,
    exp_bits: 11,
};

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }
    /// The sign bit.
    pub fn sign(self) -> u64 {
        1 << (self.frac + self.exp_bits)
    }
    /// The bits of +∞ (also the first magnitude that is not finite).
    fn inf(self) -> u64 {
        ((1 << self.exp_bits) - 1) << self.frac
    }
    /// PTX's canonical NaN of the format: every bit but the sign.
    pub fn nan(self) -> u64 {
        self.sign() - 1
    }
    fn signed(self, neg: bool, mag: u64) -> u64 {
        if neg {
            mag | self.sign()
        } else {
            mag
        }
    }
}

/// A decoded operand: finite nonzero values are `sig · 2^exp`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Num {
    Nan,
    Inf(bool),
    Zero(bool),
    Fin(bool, u128, i32),
}

fn unpack(f: Format, bits: u64) -> Num {
    let neg = bits & f.sign() != 0;
    let field = ((bits >> f.frac) & ((1 << f.exp_bits) - 1)) as i32;
    let man = u128::from(bits & ((1 << f.frac) - 1));
    let lowest = 1 - f.bias() - f.frac as i32;
    match field {
        0 if man == 0 => Num::Zero(neg),
        0 => Num::Fin(neg, man, lowest),
        _ if field == (1 << f.exp_bits) - 1 => {
            if man == 0 {
                Num::Inf(neg)
            } else {
                Num::Nan
            }
        }
        _ => Num::Fin(neg, man | 1 << f.frac, lowest + field - 1),
    }
}

/// Whether rounding in `dir` moves a value of this sign away from zero at overflow.
fn overflows_to_inf(dir: FRound, neg: bool) -> bool {
    match dir {
        FRound::Nearest => true,
        FRound::Zero => false,
        FRound::Up => !neg,
        FRound::Down => neg,
    }
}

/// Rounds `(-1)^neg · (sig + s) · 2^exp` to format `f` in direction `dir`, where `s` is
/// 0 if `!sticky` and strictly between 0 and 1 otherwise. `sig` must be nonzero, and
/// when `sticky` it must have at least `f.frac + 2` significant bits, so that the
/// sticky fraction lies below the rounding bit.
pub fn round_to(f: Format, neg: bool, sig: u128, exp: i32, sticky: bool, dir: FRound) -> u64 {
    debug_assert!(sig != 0);
    // Top bit to bit 126 (a bit shifted out joins the sticky fraction).
    let lz = sig.leading_zeros() as i32;
    let (sig, exp, sticky) = if lz >= 1 {
        (sig << (lz - 1), exp - (lz - 1), sticky)
    } else {
        (sig >> 1, exp + 1, sticky || sig & 1 != 0)
    };
    let emin = 1 - f.bias();
    // Exponent of the last kept bit: the value's own, or the subnormal quantum.
    let q = (126 + exp).max(emin) - f.frac as i32;
    let shift = (q - exp) as u32; // ≥ 126 − 52
    let (kept, rem, half) = if shift >= 128 {
        // All of `sig` (< 2^127 ≤ half a quantum) is below the last kept bit.
        (0, sig, u128::MAX)
    } else {
        (sig >> shift, sig & ((1 << shift) - 1), 1 << (shift - 1))
    };
    let inexact = rem != 0 || sticky;
    let up = match dir {
        FRound::Nearest => rem > half || (rem == half && (sticky || kept & 1 == 1)),
        FRound::Zero => false,
        FRound::Up => inexact && !neg,
        FRound::Down => inexact && neg,
    };
    // Field minus one, shifted, plus a kept significand that still has its leading one
    // (or is a subnormal's, field 0): a carry out of the significand bumps the field.
    let field_minus_1 = (q + f.frac as i32 + f.bias() - 1) as u128;
    let mag = (field_minus_1 << f.frac).saturating_add(kept + up as u128);
    let mag = if mag >= u128::from(f.inf()) {
        if overflows_to_inf(dir, neg) {
            f.inf()
        } else {
            f.inf() - 1
        }
    } else {
        mag as u64
    };
    f.signed(neg, mag)
}

/// The sign of an exact zero sum of two nonzero values (or of two zeros of different
/// signs): +0, except −0 when rounding down.
fn zero_sum(f: Format, dir: FRound) -> u64 {
    f.signed(dir == FRound::Down, 0)
}

/// `(v >> k, whether a one was shifted out)`.
fn shr_sticky(v: u128, k: u32) -> (u128, bool) {
    match k {
        0 => (v, false),
        1..=127 => (v >> k, v & ((1 << k) - 1) != 0),
        _ => (0, v != 0),
    }
}

/// x + y of two finite nonzero values with significands below 2^126: the sum exact up
/// to a sticky fraction (then with at least 123 significant bits), or None for an exact
/// zero.
fn exact_sum(x: (bool, u128, i32), y: (bool, u128, i32)) -> Option<(bool, u128, i32, bool)> {
    // Both top bits to bit 125: the larger exponent is then the larger magnitude.
    let norm = |(n, s, e): (bool, u128, i32)| {
        let k = s.leading_zeros() as i32 - 2;
        (n, s << k, e - k)
    };
    let (mut x, mut y) = (norm(x), norm(y));
    if y.2 > x.2 || (y.2 == x.2 && y.1 > x.1) {
        core::mem::swap(&mut x, &mut y);
    }
    let (ys, sticky) = shr_sticky(y.1, (x.2 - y.2) as u32);
    if x.0 == y.0 {
        return Some((x.0, x.1 + ys, x.2, sticky));
    }
    // x − (ys + s) = (x − ys − 1) + (1 − s) when 0 < s < 1.
    let d = x.1 - ys - sticky as u128;
    (d != 0 || sticky).then_some((x.0, d, x.2, sticky))
}

/// `add.rnd` (and `sub.rnd` with `b`'s sign flipped).
pub fn add_dir(f: Format, a: u64, b: u64, dir: FRound) -> u64 {
    match (unpack(f, a), unpack(f, b)) {
        (Num::Nan, _) | (_, Num::Nan) => f.nan(),
        (Num::Inf(p), Num::Inf(q)) if p != q => f.nan(),
        (Num::Inf(_), _) => a,
        (_, Num::Inf(_)) => b,
        (Num::Zero(p), Num::Zero(q)) if p == q => a,
        (Num::Zero(_), Num::Zero(_)) => zero_sum(f, dir),
        (Num::Zero(_), _) => b,
        (_, Num::Zero(_)) => a,
        (Num::Fin(p, s, e), Num::Fin(q, t, g)) => match exact_sum((p, s, e), (q, t, g)) {
            Some((n, m, x, st)) => round_to(f, n, m, x, st, dir),
            None => zero_sum(f, dir),
        },
    }
}

/// `mul.rnd`.
pub fn mul_dir(f: Format, a: u64, b: u64, dir: FRound) -> u64 {
    match (unpack(f, a), unpack(f, b)) {
        (Num::Nan, _) | (_, Num::Nan) => f.nan(),
        (Num::Inf(_), Num::Zero(_)) | (Num::Zero(_), Num::Inf(_)) => f.nan(),
        (Num::Inf(p), Num::Inf(q) | Num::Fin(q, ..)) => {
            f.signed(p != q, f.inf())
        }
        (Num::Fin(p, ..), Num::Inf(q)) => f.signed(p != q, f.inf()),
        (Num::Zero(p), Num::Zero(q) | Num::Fin(q, ..)) | (Num::Fin(p, ..), Num::Zero(q)) => {
            f.signed(p != q, 0)
        }
        (Num::Fin(p, s, e), Num::Fin(q, t, g)) => round_to(f, p != q, s * t, e + g, false, dir),
    }
}

/// `fma.rnd`: a·b + c with one rounding (the product is exact in a u128).
pub fn fma_dir(f: Format, a: u64, b: u64, c: u64, dir: FRound) -> u64 {
    let (x, y, z) = (unpack(f, a), unpack(f, b), unpack(f, c));
    if [x, y, z].contains(&Num::Nan) {
        return f.nan();
    }
    let sign = |n: Num| matches!(n, Num::Inf(true) | Num::Zero(true) | Num::Fin(true, ..));
    let neg = sign(x) != sign(y);
    let product = match (x, y) {
        (Num::Inf(_), Num::Zero(_)) | (Num::Zero(_), Num::Inf(_)) => return f.nan(),
        (Num::Inf(_), _) | (_, Num::Inf(_)) => Num::Inf(neg),
        (Num::Zero(_), _) | (_, Num::Zero(_)) => Num::Zero(neg),
        (Num::Fin(_, s, e), Num::Fin(_, t, g)) => Num::Fin(neg, s * t, e + g),
        _ => unreachable!("NaN handled above"),
    };
    match (product, z) {
        (Num::Inf(p), Num::Inf(q)) if p != q => f.nan(),
        (Num::Inf(p), _) => f.signed(p, f.inf()),
        (_, Num::Inf(_)) => c,
        (Num::Zero(p), Num::Zero(q)) if p == q => c,
        (Num::Zero(_), Num::Zero(_)) => zero_sum(f, dir),
        (Num::Zero(_), _) => c,
        (Num::Fin(p, s, e), Num::Zero(_)) => round_to(f, p, s, e, false, dir),
        (Num::Fin(p, s, e), Num::Fin(q, t, g)) => match exact_sum((p, s, e), (q, t, g)) {
            Some((n, m, x, st)) => round_to(f, n, m, x, st, dir),
            None => zero_sum(f, dir),
        },
        _ => unreachable!("NaN handled above"),
    }
}

/// `div.rnd` (and `rcp.rnd` as 1 / b).
pub fn div_dir(f: Format, a: u64, b: u64, dir: FRound) -> u64 {
    match (unpack(f, a), unpack(f, b)) {
        (Num::Nan, _) | (_, Num::Nan) => f.nan(),
        (Num::Inf(_), Num::Inf(_)) | (Num::Zero(_), Num::Zero(_)) => f.nan(),
        (Num::Inf(p), Num::Zero(q) | Num::Fin(q, ..)) | (Num::Fin(p, ..), Num::Zero(q)) => {
            f.signed(p != q, f.inf())
        }
        (Num::Zero(p), Num::Inf(q) | Num::Fin(q, ..)) | (Num::Fin(p, ..), Num::Inf(q)) => {
            f.signed(p != q, 0)
        }
        (Num::Fin(p, s, e), Num::Fin(q, t, g)) => {
            // Both significands to 64 bits: the quotient of s·2^64 by t has 64 or 65.
            let (ks, kt) = (s.leading_zeros() - 64, t.leading_zeros() - 64);
            let (s, t) = (s << ks << 64, t << kt);
            let e = e - ks as i32 - 64 - (g - kt as i32);
            round_to(f, p != q, s / t, e, s % t != 0, dir)
        }
    }
}

/// `sqrt.rnd`.
pub fn sqrt_dir(f: Format, a: u64, dir: FRound) -> u64 {
    match unpack(f, a) {
        Num::Nan | Num::Inf(true) | Num::Fin(true, ..) => f.nan(),
        Num::Inf(false) | Num::Zero(_) => a,
        Num::Fin(false, s, e) => {
            // Top bit to 124 or 125 with an even exponent: the root has 63 bits.
            let mut k = s.leading_zeros() as i32 - 2;
            if (e - k) % 2 != 0 {
                k -= 1;
            }
            let s = s << k;
            let r = isqrt128(s);
            round_to(f, false, r, (e - k) / 2, r * r != s, dir)
        }
    }
}

/// ⌊√n⌋ for n < 2^126, by bisection.
fn isqrt128(n: u128) -> u128 {
    let (mut lo, mut hi) = (0u128, 1u128 << 63);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if mid * mid <= n {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A float of format `from` converted to format `to`, rounded in `dir` (exact when `to`
/// is wider). NaNs give `to`'s canonical NaN.
pub fn convert_dir(to: Format, from: Format, a: u64, dir: FRound) -> u64 {
    match unpack(from, a) {
        Num::Nan => to.nan(),
        Num::Inf(n) => to.signed(n, to.inf()),
        Num::Zero(n) => to.signed(n, 0),
        Num::Fin(n, s, e) => round_to(to, n, s, e, false, dir),
    }
}

/// An integer (exact, as i128) to format `f`, rounded in `dir`.
pub fn int_to_format(f: Format, v: i128, dir: FRound) -> u64 {
    if v == 0 {
        0
    } else {
        round_to(f, v < 0, v.unsigned_abs(), 0, false, dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_roundtrips_every_pattern() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert!(f32_to_f16(f) & 0x7c00 == 0x7c00 && f32_to_f16(f) & 0x3ff != 0);
            } else {
                assert_eq!(f32_to_f16(f), h, "{h:#06x}");
            }
        }
    }

    #[test]
    fn f16_rounds_midpoints_to_even() {
        // Between consecutive positive finite f16 values a and b (b = a + 1 ulp):
        // the midpoint goes to the even one, anything just off it to the nearer one.
        for a in 0u16..0x7bff {
            let (fa, fb) = (f16_to_f32(a), f16_to_f32(a + 1));
            let mid = (fa as f64 + fb as f64) / 2.0;
            let mid32 = mid as f32;
            assert_eq!(mid32 as f64, mid, "midpoint exact in f32");
            let even = if a & 1 == 0 { a } else { a + 1 };
            assert_eq!(f32_to_f16(mid32), even, "tie at {a:#06x}");
            assert_eq!(f32_to_f16(mid32.next_down()), a);
            assert_eq!(f32_to_f16(mid32.next_up()), a + 1);
            assert_eq!(f32_to_f16(-mid32), 0x8000 | even);
        }
        // Largest finite rounds up to infinity past its own midpoint.
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(65519.99), 0x7bff);
    }

    #[test]
    fn cvt_roundings() {
        use FRound::*;
        let big = (1i128 << 24) + 1; // not representable in f32
        assert_eq!(int_to_f32(big, Nearest), 16_777_216.0);
        assert_eq!(int_to_f32(big, Up), 16_777_218.0);
        assert_eq!(int_to_f32(big, Down), 16_777_216.0);
        assert_eq!(int_to_f32(-big, Zero), -16_777_216.0);
        assert_eq!(int_to_f32(-big, Down), -16_777_218.0);
        assert_eq!(float_to_int(2.5, IRound::NearestEven, true, 32), 2);
        assert_eq!(float_to_int(3.5, IRound::NearestEven, true, 32), 4);
        assert_eq!(
            float_to_int(-2.5, IRound::NearestAway, true, 32) as u32,
            -3i32 as u32
        );
        assert_eq!(
            float_to_int(-2.1, IRound::Down, true, 32) as u32,
            -3i32 as u32
        );
        assert_eq!(
            float_to_int(-2.1, IRound::Up, true, 32) as u32,
            -2i32 as u32
        );
        assert_eq!(float_to_int(1e20, IRound::Zero, true, 32), i32::MAX as u128);
        assert_eq!(float_to_int(-1.0, IRound::Zero, false, 32), 0);
        assert_eq!(float_to_int(f64::NAN, IRound::Zero, true, 32), 0);
    }

    #[test]
    fn fp_literals() {
        assert_eq!(parse_fp_literal("float", "1.000000e+00"), Some(0x3f80_0000));
        assert_eq!(
            parse_fp_literal("float", "0x3FB99999A0000000"),
            Some(0x3dcc_cccd)
        );
        assert_eq!(parse_fp_literal("half", "0xH3C00"), Some(0x3c00));
        assert_eq!(parse_fp_literal("float", "bogus"), None);
    }
}
