//! The `.approx` transcendental functions of f32: `ex2`, `lg2`, `sin`, `cos`, `tanh`.
//!
//! The hardware's approximations are not specified bit for bit, so these stand in for
//! them: each is computed in f64 (series that converge well past f32's precision) and
//! rounded once to f32. Deterministic without `libm`, so a before/after comparison of
//! the same kernel holds; a GPU may differ in the last bits.

/// 2^x.
pub fn exp2(x: f32) -> f32 {
    if x.is_nan() {
        return f32::NAN;
    }
    if x >= 128.0 {
        return f32::INFINITY;
    }
    if x < -160.0 {
        return 0.0;
    }
    let x = f64::from(x);
    let mut k = x as i64;
    if (k as f64) > x {
        k -= 1;
    }
    let frac = x - k as f64; // in [0, 1)
    let e = exp_series(frac * core::f64::consts::LN_2);
    (e * pow2(k)) as f32
}

/// log2(x).
pub fn log2(x: f32) -> f32 {
    if x.is_nan() || x < 0.0 {
        return f32::NAN;
    }
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x.is_infinite() {
        return f32::INFINITY;
    }
    let bits = f64::from(x).to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52)); // [1, 2)
    if m > core::f64::consts::SQRT_2 {
        m /= 2.0;
        e += 1;
    }
    // ln m = 2 atanh((m - 1) / (m + 1)), |s| < 0.18.
    let s = (m - 1.0) / (m + 1.0);
    let (mut term, mut sum, s2) = (s, 0.0, s * s);
    let mut n = 1.0;
    while n < 60.0 {
        sum += term / n;
        term *= s2;
        n += 2.0;
    }
    (e as f64 + 2.0 * sum / core::f64::consts::LN_2) as f32
}

/// sin(x) (`which == 0`) or cos(x) (`which == 1`), after reduction by 2π.
pub fn sin_cos(x: f32, which: u8) -> f32 {
    if !x.is_finite() {
        return f32::NAN;
    }
    let tau = 2.0 * core::f64::consts::PI;
    let x = f64::from(x);
    let q = x / tau;
    let mut k = q as i64;
    if q - (k as f64) > 0.5 {
        k += 1;
    } else if q - (k as f64) < -0.5 {
        k -= 1;
    }
    let r = x - k as f64 * tau; // in [-π, π]
                                // Taylor series: sin starts at r, cos at 1; each term is the last × -r²/((n+1)(n+2)).
    let (mut term, mut n) = if which == 0 { (r, 1.0) } else { (1.0, 0.0) };
    let mut sum = 0.0;
    for _ in 0..30 {
        sum += term;
        term *= -r * r / ((n + 1.0) * (n + 2.0));
        n += 2.0;
    }
    sum as f32
}

/// tanh(x) = (e^2x - 1) / (e^2x + 1), saturating to ±1.
pub fn tanh(x: f32) -> f32 {
    if x.is_nan() {
        return f32::NAN;
    }
    if x.abs() > 20.0 {
        return if x > 0.0 { 1.0 } else { -1.0 };
    }
    let e = f64::from(exp2((2.0 * f64::from(x) / core::f64::consts::LN_2) as f32));
    ((e - 1.0) / (e + 1.0)) as f32
}

/// e^x for |x| ≤ ln 2.
fn exp_series(x: f64) -> f64 {
    let (mut term, mut sum) = (1.0, 0.0);
    let mut n = 1.0;
    while n < 30.0 {
        sum += term;
        term *= x / n;
        n += 1.0;
    }
    sum
}

/// 2^k as an f64 (k within f64's normal range after the callers' clamps).
fn pow2(k: i64) -> f64 {
    f64::from_bits(((1023 + k.clamp(-1022, 1023)) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_points() {
        assert_eq!(exp2(3.0), 8.0);
        assert_eq!(exp2(-2.0), 0.25);
        assert_eq!(exp2(0.0), 1.0);
        assert_eq!(log2(8.0), 3.0);
        assert_eq!(log2(1.0), 0.0);
        assert_eq!(log2(0.125), -3.0);
        assert_eq!(sin_cos(0.0, 0), 0.0);
        assert_eq!(sin_cos(0.0, 1), 1.0);
        assert!((exp2(0.5) - core::f32::consts::SQRT_2).abs() < 1e-6);
        assert!((log2(10.0) - core::f32::consts::LOG2_10).abs() < 1e-6);
        assert!((sin_cos(1.0, 0) - 0.841_470_96).abs() < 1e-6);
        assert!((sin_cos(100.0, 1) - 0.862_318_9).abs() < 1e-5);
        assert!((tanh(0.5) - 0.462_117_16).abs() < 1e-6);
    }
}
