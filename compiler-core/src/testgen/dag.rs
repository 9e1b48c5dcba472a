//! Random selected DAGs for the agreement of the DAG evaluator (`interp::dag`, public as `dag_eval`) and the MIR
//! interpreter (`interp`) on what the emitter makes of them (issue 27).
//!
//! ```text
//!  bb.0 entry   load p (i64, param 0), a, b (i32, params 1, 2); random ops;
//!               CopyToReg %100 ← p, %101 ← x, %102 ← y, %103 ← trip count; GOTO bb.1
//!  bb.1 loop    CopyFromReg %100..%103; random ops; maybe a store to p + 4k;
//!               CopyToReg %101, %102 (in random order: a write may come before a read
//!               of the old value, the swap shape), %103 ← count - 1;
//!               CBranch (count - 1 != 0) bb.1; falls through to bb.2
//!  bb.2 test    store x to p; CBranch (x CMP y) bb.4; falls through to bb.3
//!  bb.3 then    store an op of y to p + 4; GOTO bb.4
//!  bb.4 exit    store SELP(x, y, x CMP' y) to p + 8; Return
//! ```
//!
//! Values cross blocks only through virtual registers (CopyToReg / CopyFromReg). Half
//! the seeds carry the loop's values as LLVM does, through PHIs at the loop head:
//!
//! ```text
//!  bb.0         CopyToReg %201 ← x, %202 ← y, %203 ← trip count (the PHIs' entry inputs)
//!  bb.1 loop    PHI %101 = %201 (bb.0), %301 (bb.1); likewise %102, %103;
//!               CopyToReg %301, %302, %303 (the back-edge inputs, in random order)
//!  bb.2..bb.4   read x, y from %301, %302 (the values the last iteration made)
//! ```
//!
//! the other half write the loop's registers themselves (one register per value, no
//! PHI: a DAG LLVM never makes, which the emitter still has to get right). The loop
//! runs 1 to 4 times. The
//! operations are the 32-bit integer ones both evaluators model: add, sub, mul.lo,
//! and, or, xor, shifts by 0..31, mad.lo, setp (signed modes 0..5, unsigned 6..11), selp.

use crate::interp::Rng;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// The function name the DAG's parameter symbols use (`rdag_param_N`).
pub const NAME: &str = "rdag";

struct G {
    rng: Rng,
    s: String,
    t: u32,
}

impl G {
    fn node(&mut self, rest: &str) -> u32 {
        let n = self.t;
        self.t += 1;
        let _ = writeln!(self.s, "  t{n}: {rest}");
        n
    }

    fn block(&mut self, n: u32, name: &str) -> u32 {
        if n > 0 {
            self.s.push('\n');
        }
        let _ = writeln!(self.s, "Selected selection DAG: %bb.{n} '{NAME}:{name}'");
        self.node("ch,glue = EntryToken")
    }

    /// A block header, then (if given) the PHIs `%101..%103` of the loop head: the
    /// entry inputs from bb.0, the back-edge inputs from the block itself.
    fn block_phis(&mut self, n: u32, name: &str, phis: Option<([u32; 3], [u32; 3])>) -> u32 {
        self.s.push('\n');
        let _ = writeln!(self.s, "Selected selection DAG: %bb.{n} '{NAME}:{name}'");
        if let Some((init, carried)) = phis {
            for k in 0..3 {
                let _ = writeln!(
                    self.s,
                    "  PHI:i32 %{} = %{}, %bb.0, %{}, %bb.{n}",
                    101 + k,
                    init[k],
                    carried[k]
                );
            }
        }
        self.node("ch,glue = EntryToken")
    }

    fn pick(&mut self, vals: &[u32]) -> u32 {
        vals[self.rng.below(vals.len() as u64) as usize]
    }

    fn imm(&mut self) -> i64 {
        self.rng.range(-8, 40)
    }

    /// One random i32 operation over `vals`; its node joins `vals`.
    fn op(&mut self, vals: &mut Vec<u32>) {
        let (a, b, c) = (self.pick(vals), self.pick(vals), self.pick(vals));
        let k = self.imm();
        let sh = self.rng.below(32);
        let text = match self.rng.below(12) {
            0 => format!("i32 = ADD32rr t{a}, t{b}"),
            1 => format!("i32 = ADD32ri t{a}, Constant:i32<{k}>"),
            2 => format!("i32 = SUB32rr t{a}, t{b}"),
            3 => format!("i32 = MULT32rr t{a}, t{b}"),
            4 => format!("i32 = MULT32ri t{a}, Constant:i32<{k}>"),
            5 => format!("i32 = XOR_b32rr t{a}, t{b}"),
            6 => format!("i32 = AND_b32rr t{a}, t{b}"),
            7 => format!("i32 = OR_b32rr t{a}, t{b}"),
            8 => format!("i32 = SHL32_ri t{a}, Constant:i32<{sh}>"),
            9 => format!("i32 = SRL32_ri t{a}, Constant:i32<{sh}>"),
            10 => format!("i32 = MAD_LO_S32rrr t{a}, t{b}, t{c}"),
            _ => {
                let p = self.setp(a, b);
                format!("i32 = SELP_b32rr t{a}, t{c}, t{p}")
            }
        };
        let n = self.node(&text);
        vals.push(n);
    }

    fn setp(&mut self, a: u32, b: u32) -> u32 {
        let mode = self.rng.below(12);
        self.node(&format!("i1 = SETP_i32rr t{a}, t{b}, Constant:i32<{mode}>"))
    }

    fn ops(&mut self, vals: &mut Vec<u32>, lo: u64, hi: u64) {
        for _ in 0..lo + self.rng.below(hi - lo + 1) {
            self.op(vals);
        }
    }

    fn load(&mut self, ty: &str, bits: u32, k: u32, chain: &str) -> u32 {
        self.node(&format!("{ty},ch = LD_{ty} Constant:i32<0>, Constant:i32<0>, Constant:i32<101>, Constant:i32<3>, Constant:i32<{bits}>, Constant:i32<-1>, ExternalSymbol:'{NAME}_param_{k}', Constant:i32<0>, {chain}"))
    }

    /// `ST_i32 v → p + off`, chained on `chain`; returns the store.
    fn store(&mut self, v: u32, p: u32, off: u32, chain: &str) -> u32 {
        self.node(&format!("ch = ST_i32 t{v}, Constant:i32<0>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t{p}, Constant:i32<{off}>, {chain}"))
    }

    fn copy_from_reg(&mut self, e: u32, ty: &str, r: u32) -> u32 {
        self.node(&format!("{ty},ch = CopyFromReg t{e}, Register:{ty} %{r}"))
    }

    fn copy_to_reg(&mut self, chain: &str, ty: &str, r: u32, v: u32) -> u32 {
        self.node(&format!("ch = CopyToReg {chain}, Register:{ty} %{r}, t{v}"))
    }
}

/// A random DAG in CopyScope's format (see the module notes), the same for a seed on
/// every machine.
pub fn random_dag(seed: u64) -> String {
    let mut g = G {
        rng: Rng::new(seed ^ 0xda65),
        s: String::new(),
        t: 0,
    };
    // PHIs at the loop head, or the loop's registers written in place.
    let phis = g.rng.below(2) == 0;
    let (init, carried, after) = if phis {
        ([201, 202, 203], [301, 302, 303], [301, 302])
    } else {
        ([101, 102, 103], [101, 102, 103], [101, 102])
    };
    // bb.0
    let e = g.block(0, "entry");
    let p = g.load("i64", 64, 0, &format!("t{e}"));
    let a = g.load("i32", 32, 1, &format!("t{p}:1"));
    let b = g.load("i32", 32, 2, &format!("t{a}:1"));
    let mut vals = alloc::vec![a, b];
    g.ops(&mut vals, 0, 4);
    let (x, y) = (g.pick(&vals), g.pick(&vals));
    let trips = 1 + g.rng.below(4);
    let n = g.node(&format!("i32 = MOV_B32_i Constant:i32<{trips}>"));
    let c = g.copy_to_reg(&format!("t{b}:1"), "i64", 100, p);
    let c = g.copy_to_reg(&format!("t{c}"), "i32", init[0], x);
    let c = g.copy_to_reg(&format!("t{c}"), "i32", init[1], y);
    let c = g.copy_to_reg(&format!("t{c}"), "i32", init[2], n);
    g.node(&format!("ch = GOTO BasicBlock:bb.1, t{c}"));
    // bb.1: the loop.
    let e = g.block_phis(1, "loop", phis.then_some((init, carried)));
    let p = g.copy_from_reg(e, "i64", 100);
    let x = g.copy_from_reg(e, "i32", 101);
    let y = g.copy_from_reg(e, "i32", 102);
    let k = g.copy_from_reg(e, "i32", 103);
    let mut vals = alloc::vec![x, y, k];
    g.ops(&mut vals, 1, 5);
    let (x2, y2) = (g.pick(&vals), g.pick(&vals));
    let mut chain = e;
    if g.rng.below(2) == 0 {
        let v = g.pick(&vals);
        let off = 4 * (3 + g.rng.below(5) as u32);
        chain = g.store(v, p, off, &format!("t{e}"));
    }
    let k2 = g.node(&format!("i32 = ADD32ri t{k}, Constant:i32<-1>"));
    let more = g.node(&format!(
        "i1 = SETP_i32ri t{k2}, Constant:i32<0>, Constant:i32<1>"
    ));
    let mut writes = [(carried[0], x2), (carried[1], y2), (carried[2], k2)];
    if g.rng.below(2) == 0 {
        writes.swap(0, 1);
    }
    for (r, v) in writes {
        chain = g.copy_to_reg(&format!("t{chain}"), "i32", r, v);
    }
    g.node(&format!("ch = CBranch t{more}, BasicBlock:bb.1, t{chain}"));
    // bb.2: store x, branch on a comparison.
    let e = g.block(2, "test");
    let p = g.copy_from_reg(e, "i64", 100);
    let x = g.copy_from_reg(e, "i32", after[0]);
    let y = g.copy_from_reg(e, "i32", after[1]);
    let s = g.store(x, p, 0, &format!("t{e}"));
    let cond = g.setp(x, y);
    g.node(&format!("ch = CBranch t{cond}, BasicBlock:bb.4, t{s}"));
    // bb.3: one more store.
    let e = g.block(3, "then");
    let p = g.copy_from_reg(e, "i64", 100);
    let y = g.copy_from_reg(e, "i32", after[1]);
    let mut vals = alloc::vec![y];
    g.ops(&mut vals, 0, 2);
    let v = g.pick(&vals);
    let s = g.store(v, p, 4, &format!("t{e}"));
    g.node(&format!("ch = GOTO BasicBlock:bb.4, t{s}"));
    // bb.4: select and return.
    let e = g.block(4, "exit");
    let p = g.copy_from_reg(e, "i64", 100);
    let x = g.copy_from_reg(e, "i32", after[0]);
    let y = g.copy_from_reg(e, "i32", after[1]);
    let c = g.setp(y, x);
    let w = g.node(&format!("i32 = SELP_b32rr t{x}, t{y}, t{c}"));
    let s = g.store(w, p, 8, &format!("t{e}"));
    g.node(&format!("ch = Return t{s}"));
    g.s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_dags_parse_and_emit() {
        for seed in 0..50 {
            let text = random_dag(seed);
            let dag =
                crate::dag::parse_dag(&text).unwrap_or_else(|e| panic!("{seed}: {e}\n{text}"));
            assert_eq!(dag.blocks.len(), 5);
            assert_eq!(random_dag(seed), text, "deterministic");
        }
    }
}
