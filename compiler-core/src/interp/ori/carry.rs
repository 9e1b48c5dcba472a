//! Extended-precision integer arithmetic: `add.cc`, `addc[.cc]`, `sub.cc`,
//! `subc[.cc]`, `mad{.lo,.hi}.cc`, `madc{.lo,.hi}[.cc]` on 32- and 64-bit integers.
//! Each thread has one carry flag (PTX's `CC.CF`): `.cc` writes it, the `c` forms read
//! it. After a subtraction it holds the borrow, and `subc` computes `a - (b + CF)`.

use super::{malformed, mask, unsupported, Machine, Thread, R, X};
use alloc::format;

impl Machine<'_> {
    pub(super) fn carry_op(&self, t: &mut Thread, x: &X) -> R<()> {
        let (d, o) = (&x.d, &x.ops);
        let ty = d.ty().ok_or_else(|| super::untyped(d))?;
        if !matches!(ty.bits, 32 | 64) {
            return unsupported(format!("`{}.{}`", d.base, ty.name()));
        }
        let base = d.base.as_str();
        let mad = base.starts_with("mad");
        let n = if mad { 4 } else { 3 };
        if o.len() < n {
            return malformed(format!("`{base}` needs {n} operands"));
        }
        let m = mask(ty.bits);
        let a = self.val(t, &o[1], Some(ty))? & m;
        let b = self.val(t, &o[2], Some(ty))? & m;
        let cin = u128::from(base.ends_with('c') && t.cc);
        let (r, cout) = match base {
            "add" | "addc" => {
                let s = u128::from(a) + u128::from(b) + cin;
                (s, s >> ty.bits != 0)
            }
            "sub" | "subc" => {
                let sub = u128::from(b) + cin;
                (u128::from(a).wrapping_sub(sub), u128::from(a) < sub)
            }
            "mad" | "madc" => {
                let p = if ty.is_signed() {
                    let s = |v: u64| super::sext(v, ty.bits) as i64 as i128;
                    (s(a) * s(b)) as u128
                } else {
                    u128::from(a) * u128::from(b)
                };
                let half = if d.has("hi") { p >> ty.bits } else { p } & u128::from(m);
                let c = u128::from(self.val(t, &o[3], Some(ty))? & m);
                let s = half + c + cin;
                (s, s >> ty.bits != 0)
            }
            _ => return unsupported(format!("`{base}` with a carry")),
        };
        if d.has("cc") {
            t.cc = cout;
        }
        self.set(t, &o[0], r as u64 & m)
    }
}
