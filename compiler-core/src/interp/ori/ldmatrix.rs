//! `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans][.shared].b16 d, [a]`: a warp
//! collective. Lane `8·i + r` gives the address of row `r` (eight 16-bit elements) of
//! matrix `i`; afterwards lane `l` holds in its register `i` the elements
//! `(l/4, 2·(l%4))` and `(l/4, 2·(l%4)+1)` of matrix `i`, the first in the low half —
//! with `.trans`, the elements `(2·(l%4), l/4)` and `(2·(l%4)+1, l/4)`. The whole warp
//! must reach it (`.aligned`).

use super::{malformed, unsupported, Machine, St, Thread, Warp, R, V};
use crate::ptx::op::Space;
use alloc::format;
use alloc::vec::Vec;

impl Machine<'_> {
    pub(super) fn warp_ldmatrix(&mut self, threads: &mut [Thread], w: Warp<'_>) -> R<()> {
        let Warp { lanes, base, at } = w;
        let p = self.p;
        let x = &p.code[at];
        let d = &x.d;
        if !d.has("m8n8") || d.ty().is_some_and(|t| t.bits != 16) {
            return unsupported(format!("ldmatrix.{}", d.mods.join(".")));
        }
        let n = if d.has("x4") {
            4
        } else if d.has("x2") {
            2
        } else {
            1
        };
        if lanes.len() != 32 || x.ops.len() < 2 {
            return malformed("ldmatrix needs the whole warp, a destination and an address");
        }
        let space = d.space.unwrap_or(Space::Generic);
        // rows[8·i + r]: the eight elements of row r of matrix i.
        let mut rows: Vec<[u16; 8]> = Vec::with_capacity(8 * n);
        for l in 0..8 * n {
            let t = &mut threads[base + l];
            let (sym, a) = self.addr(t, &x.ops[1])?;
            let bytes = self.mem(t, space, sym.as_deref(), a, 16)?;
            let mut row = [0u16; 8];
            for (k, e) in row.iter_mut().enumerate() {
                *e = u16::from_le_bytes([bytes[2 * k], bytes[2 * k + 1]]);
            }
            rows.push(row);
        }
        let dests = match &x.ops[0].v {
            V::Vec(v) => v.clone(),
            _ => alloc::vec![x.ops[0].clone()],
        };
        if dests.len() != n {
            return malformed(format!("ldmatrix .x{n} needs {n} destinations"));
        }
        for l in 0..32 {
            let (r, c) = (l / 4, 2 * (l % 4));
            let t = &mut threads[base + l];
            for (i, dst) in dests.iter().enumerate() {
                let m = &rows[8 * i..8 * i + 8];
                let (lo, hi) = if d.has("trans") {
                    (m[c][r], m[c + 1][r])
                } else {
                    (m[r][c], m[r][c + 1])
                };
                self.set(t, dst, u64::from(lo) | u64::from(hi) << 16)?;
            }
            t.st = St::Run;
        }
        Ok(())
    }
}
