//! Large regular functions for benchmarks: about `n` instructions each, SSA MIR text in
//! llc-22's dialect, so every size runs the same passes on the same shapes.
//!
//! ```text
//!  phi_swaps(n)   one loop whose header swaps n/5 pairs of PHIs every trip
//!                 (a, b) = (b, a); the exit stores every value      → PHI copies that
//!                 must survive coalescing, one per pair
//!  copy_chain(n)  straight-line blocks of COPY chains, adds and stores
//!                 → copies every coalescer joins
//!  tuples(n)      texture fetches and MMA fragments split by N-pair EXTRACT_SUBREG,
//!                 rebuilt with REG_SEQUENCE / INSERT_SUBREG   → two-address work
//!  phi_swaps_ll(n) the phi_swaps loop as LLVM IR, for llc-22 to lower itself
//!  dag_chain(n)   a selected DAG of about n nodes: blocks of add/mul/xor chains
//!                 passing values on through CopyToReg / CopyFromReg → instr-emitter
//!  branches(n)    n/7 diamonds in a row (compare, branch, a COPY on one arm, a PHI at
//!                 the join): thousands of small blocks → per-block work must not
//!                 grow with the function
//!  loops(n)       n/8 counted loops one after another, each carrying a sum through
//!                 two PHIs and a back edge → liveness around loops, PHI copies
//! ```

use alloc::string::String;
use core::fmt::Write;

/// A family's generator: about `n` instructions of MIR text.
pub type Make = fn(usize) -> String;

/// Every synthetic family: name and generator.
pub const FAMILIES: &[(&str, Make)] = &[
    ("phi-swaps", phi_swaps),
    ("copy-chain", copy_chain),
    ("tuples", tuples),
    ("dag-chain", dag_chain),
    ("branches", branches),
    ("loops", loops),
];

fn header(s: &mut String, name: &str) {
    let _ = write!(
        s,
        "---\nname: {name}\ntracksRegLiveness: true\nisSSA: true\nnoPhis: false\nbody: |\n"
    );
}

/// A loop of `n / 5` PHI pairs swapping every trip.
pub fn phi_swaps(n: usize) -> String {
    let k = (n / 5).max(1);
    let mut s = String::with_capacity(n * 48);
    header(&mut s, "phi_swaps");
    s.push_str("  bb.0.entry:\n    successors: %bb.1\n\n");
    s.push_str("    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &phi_swaps_param_0, 0\n");
    s.push_str("    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &phi_swaps_param_1, 0\n");
    s.push_str("    %2:b32 = MOV_B32_i 0\n");
    // Entry values: %(10 + 4i) and %(11 + 4i); PHIs: %(12 + 4i), %(13 + 4i).
    for i in 0..k {
        let v = 10 + 4 * i;
        let _ = writeln!(s, "    %{v}:b32 = MOV_B32_i {}", 2 * i);
        let _ = writeln!(s, "    %{}:b32 = MOV_B32_i {}", v + 1, 2 * i + 1);
    }
    s.push_str("\n  bb.1.loop:\n    successors: %bb.1, %bb.2\n\n");
    s.push_str("    %3:b32 = PHI %2, %bb.0, %4, %bb.1\n");
    for i in 0..k {
        let v = 10 + 4 * i;
        let _ = writeln!(s, "    %{}:b32 = PHI %{v}, %bb.0, %{}, %bb.1", v + 2, v + 3);
        let _ = writeln!(
            s,
            "    %{}:b32 = PHI %{}, %bb.0, %{}, %bb.1",
            v + 3,
            v + 1,
            v + 2
        );
    }
    s.push_str("    %4:b32 = ADD32ri %3, 1\n");
    s.push_str("    %5:b1 = SETP_i32rr %4, %1, 2\n");
    s.push_str("    CBranch %5, %bb.1\n\n  bb.2.exit:\n");
    for i in 0..k {
        let v = 10 + 4 * i;
        let _ = writeln!(
            s,
            "    ST_i32 %{}, 0, 0, 1, 32, %0, {}",
            v + 2,
            (8 * i) % 8192
        );
        let _ = writeln!(
            s,
            "    ST_i32 %{}, 0, 0, 1, 32, %0, {}",
            v + 3,
            (8 * i + 4) % 8192
        );
    }
    s.push_str("    Return\n...\n");
    s
}

/// The same loop as LLVM IR (`ptx_kernel`), for `llc-22 -stop-before=...`.
pub fn phi_swaps_ll(n: usize) -> String {
    let k = (n / 5).max(1);
    let mut s = String::with_capacity(n * 64);
    s.push_str("target triple = \"nvptx64-nvidia-cuda\"\n\n");
    s.push_str("define ptx_kernel void @phi_swaps(ptr addrspace(1) %out, i32 %n) {\n");
    s.push_str("entry:\n  br label %loop\n\nloop:\n");
    s.push_str("  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]\n");
    for i in 0..k {
        let _ = writeln!(
            s,
            "  %a{i} = phi i32 [ {}, %entry ], [ %b{i}, %loop ]",
            2 * i
        );
        let _ = writeln!(
            s,
            "  %b{i} = phi i32 [ {}, %entry ], [ %a{i}, %loop ]",
            2 * i + 1
        );
    }
    s.push_str("  %i.next = add i32 %i, 1\n  %c = icmp slt i32 %i.next, %n\n");
    s.push_str("  br i1 %c, label %loop, label %exit\n\nexit:\n");
    for i in 0..k {
        let _ = writeln!(
            s,
            "  %pa{i} = getelementptr inbounds i32, ptr addrspace(1) %out, i64 {}",
            2 * i
        );
        let _ = writeln!(s, "  store i32 %a{i}, ptr addrspace(1) %pa{i}");
        let _ = writeln!(
            s,
            "  %pb{i} = getelementptr inbounds i32, ptr addrspace(1) %out, i64 {}",
            2 * i + 1
        );
        let _ = writeln!(s, "  store i32 %b{i}, ptr addrspace(1) %pb{i}");
    }
    s.push_str("  ret void\n}\n");
    s
}

/// Many small blocks: a chain of n/7 diamonds. Each head compares the running value and
/// branches over an arm that adds one and copies the sum; the join takes the running
/// value or the copy through a PHI, adds, stores and carries the result on.
pub fn branches(n: usize) -> String {
    let k = (n / 7).max(1);
    let mut s = String::with_capacity(n * 56);
    header(&mut s, "branches");
    s.push_str("  bb.0.entry:\n    successors: %bb.1\n\n");
    s.push_str("    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &branches_param_0, 0\n");
    s.push_str("    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &branches_param_1, 0\n");
    let mut acc = 1u32;
    for u in 0..k as u32 {
        let (head, arm, join) = (1 + 3 * u, 2 + 3 * u, 3 + 3 * u);
        let r = 2 + 5 * u;
        let (p, a, c, m, t) = (r, r + 1, r + 2, r + 3, r + 4);
        let _ = write!(
            s,
            "\n  bb.{head}:\n    successors: %bb.{arm}, %bb.{join}\n\n    %{p}:b1 = SETP_i32rr %{acc}, %1, 2\n    CBranch %{p}, %bb.{join}\n"
        );
        let _ = write!(
            s,
            "\n  bb.{arm}:\n    successors: %bb.{join}\n\n    %{a}:b32 = ADD32ri %{acc}, 1\n    %{c}:b32 = COPY %{a}\n"
        );
        let _ = write!(
            s,
            "\n  bb.{join}:\n    successors: %bb.{}\n\n    %{m}:b32 = PHI %{acc}, %bb.{head}, %{c}, %bb.{arm}\n    %{t}:b32 = ADD32rr %{m}, %{acc}\n    ST_i32 %{t}, 0, 0, 1, 32, %0, {}\n",
            join + 1,
            (4 * u) % 8192
        );
        acc = t;
    }
    let _ = write!(
        s,
        "\n  bb.{}:\n    ST_i32 %{acc}, 0, 0, 1, 32, %0, 0\n    Return\n...\n",
        1 + 3 * k
    );
    s
}

/// Many loops: n/8 single-block loops in a row. Each counts `i` up to the second
/// parameter while summing into `s` (two PHIs, a back edge), and its exit block copies
/// the sum, stores it and hands it to the next loop.
pub fn loops(n: usize) -> String {
    let k = (n / 8).max(1);
    let mut s = String::with_capacity(n * 56);
    header(&mut s, "loops");
    s.push_str("  bb.0.entry:\n    successors: %bb.1\n\n");
    s.push_str("    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &loops_param_0, 0\n");
    s.push_str("    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &loops_param_1, 0\n");
    s.push_str("    %2:b32 = MOV_B32_i 0\n");
    let (mut acc, mut prev) = (2u32, 0u32);
    for u in 0..k as u32 {
        let (body, exit) = (1 + 2 * u, 2 + 2 * u);
        let r = 3 + 6 * u;
        let (i, sum, i2, s2, p, c) = (r, r + 1, r + 2, r + 3, r + 4, r + 5);
        let _ = write!(
            s,
            "\n  bb.{body}:\n    successors: %bb.{body}, %bb.{exit}\n\n    %{i}:b32 = PHI %2, %bb.{prev}, %{i2}, %bb.{body}\n    %{sum}:b32 = PHI %{acc}, %bb.{prev}, %{s2}, %bb.{body}\n    %{i2}:b32 = ADD32ri %{i}, 1\n    %{s2}:b32 = ADD32rr %{sum}, %{i}\n    %{p}:b1 = SETP_i32rr %{i2}, %1, 2\n    CBranch %{p}, %bb.{body}\n"
        );
        let next = if u + 1 < k as u32 { exit + 1 } else { exit };
        let _ = write!(s, "\n  bb.{exit}:\n");
        if next != exit {
            let _ = write!(s, "    successors: %bb.{next}\n\n");
        }
        let _ = write!(
            s,
            "    %{c}:b32 = COPY %{s2}\n    ST_i32 %{c}, 0, 0, 1, 32, %0, {}\n",
            (4 * u) % 8192
        );
        acc = c;
        prev = exit;
    }
    s.push_str("    Return\n...\n");
    s
}

/// Straight-line code: blocks of 64 instructions with COPY chains feeding adds and
/// stores (no PHIs; the entry stage is two-address).
pub fn copy_chain(n: usize) -> String {
    let mut s = String::with_capacity(n * 48);
    let _ = write!(
        s,
        "---\nname: copy_chain\ntracksRegLiveness: true\nisSSA: true\nnoPhis: true\nbody: |\n"
    );
    s.push_str("  bb.0.entry:\n");
    s.push_str("    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &copy_chain_param_0, 0\n");
    s.push_str("    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &copy_chain_param_1, 0\n");
    let mut next = 2u32;
    let mut acc = 1u32;
    let mut emitted = 2usize;
    let mut block = 0;
    while emitted < n {
        if emitted.is_multiple_of(64) {
            block += 1;
            let _ = write!(s, "\n  bb.{block}:\n");
        }
        // %c1 = COPY %acc; %c2 = COPY %c1; %t = ADD32rr %c2, %acc; store; %acc = %t
        let (c1, c2, t) = (next, next + 1, next + 2);
        next += 3;
        let _ = writeln!(s, "    %{c1}:b32 = COPY %{acc}");
        let _ = writeln!(s, "    %{c2}:b32 = COPY %{c1}");
        let _ = writeln!(s, "    %{t}:b32 = ADD32rr %{c2}, %{acc}");
        let _ = writeln!(
            s,
            "    ST_i32 %{c1}, 0, 0, 1, 32, %0, {}",
            (4 * emitted) % 8192
        );
        acc = t;
        emitted += 4;
    }
    let _ = writeln!(s, "    ST_i32 %{acc}, 0, 0, 1, 32, %0, 0");
    s.push_str("    Return\n...\n");
    s
}

/// A selected DAG of about `n` nodes: an entry block loading two parameters and
/// copying them into virtual registers, then blocks of about 64 nodes, each reading the running value
/// and the pointer back (CopyFromReg), an add/mul/xor chain, a store, and a
/// CopyToReg of the new value for the next block; the last block returns.
pub fn dag_chain(n: usize) -> String {
    let mut s = String::with_capacity(n * 48);
    let mut t = 0u32;
    let mut next = || {
        t += 1;
        t - 1
    };
    s.push_str("Selected selection DAG: %bb.0 'dag_chain:entry'\n");
    let (e, p, x) = (next(), next(), next());
    let _ = writeln!(s, "  t{e}: ch,glue = EntryToken");
    let _ = writeln!(s, "  t{p}: i64,ch = LD_i64 Constant:i32<0>, Constant:i32<0>, Constant:i32<101>, Constant:i32<3>, Constant:i32<64>, Constant:i32<-1>, ExternalSymbol:'dag_chain_param_0', Constant:i32<0>, t{e} [mem \"(dereferenceable invariant load (s64), addrspace 101)\"]");
    let _ = writeln!(s, "  t{x}: i32,ch = LD_i32 Constant:i32<0>, Constant:i32<0>, Constant:i32<101>, Constant:i32<3>, Constant:i32<32>, Constant:i32<-1>, ExternalSymbol:'dag_chain_param_1', Constant:i32<0>, t{e} [mem \"(dereferenceable invariant load (s32), addrspace 101)\"]");
    let tf = next();
    let _ = writeln!(s, "  t{tf}: ch = TokenFactor t{p}:1, t{x}:1");
    let (c1, c2) = (next(), next());
    let _ = writeln!(s, "  t{c1}: ch = CopyToReg t{tf}, Register:i64 %100, t{p}");
    let _ = writeln!(s, "  t{c2}: ch = CopyToReg t{c1}, Register:i32 %101, t{x}");
    let blocks = (n / 64).max(1);
    let triples = ((n / blocks).saturating_sub(5) / 3).max(1);
    for b in 1..=blocks {
        let _ = write!(s, "\nSelected selection DAG: %bb.{b} 'dag_chain:b{b}'\n");
        let (e, p, v) = (next(), next(), next());
        let _ = writeln!(s, "  t{e}: ch,glue = EntryToken");
        let _ = writeln!(s, "  t{p}: i64,ch = CopyFromReg t{e}, Register:i64 %100");
        let _ = writeln!(
            s,
            "  t{v}: i32,ch = CopyFromReg t{e}, Register:i32 %{}",
            100 + b
        );
        let mut prev = v;
        for _ in 0..triples {
            let (a, m, x) = (next(), next(), next());
            let _ = writeln!(s, "  t{a}: i32 = ADD32rr t{prev}, t{v}");
            let _ = writeln!(s, "  t{m}: i32 = MULT32rr t{a}, t{prev}");
            let _ = writeln!(s, "  t{x}: i32 = XOR_b32rr t{m}, t{a}");
            prev = x;
        }
        let st = next();
        let _ = writeln!(s, "  t{st}: ch = ST_i32 t{prev}, Constant:i32<0>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t{p}, Constant:i32<{}>, t{p}:1 [mem \"(store (s32), addrspace 1)\"]", (4 * b) % 8192);
        let ct = next();
        let _ = writeln!(
            s,
            "  t{ct}: ch = CopyToReg t{st}, Register:i32 %{}, t{prev}",
            101 + b
        );
        if b == blocks {
            let r = next();
            let _ = writeln!(s, "  t{r}: ch = Return t{ct}");
        }
    }
    s
}

/// Multi-result producers and the pseudos that split and rebuild their tuples.
pub fn tuples(n: usize) -> String {
    let mut s = String::with_capacity(n * 64);
    let _ = write!(
        s,
        "---\nname: tuples\ntracksRegLiveness: true\nisSSA: true\nnoPhis: true\nbody: |\n"
    );
    s.push_str("  bb.0.entry:\n");
    s.push_str("    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &tuples_param_0, 0\n");
    s.push_str("    %1:float32regs = LD_f32 0, 0, 101, 3, 32, -1, &tuples_param_1, 0\n");
    s.push_str("    %2:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &tuples_param_2, 0\n");
    let mut v = 3u32;
    let mut emitted = 3usize;
    let mut acc = 1u32;
    let mut k = 0usize;
    while emitted < n {
        // tex → 4 lanes, split by one 4-pair EXTRACT_SUBREG, two adds, a REG_SEQUENCE
        // of the sums, an INSERT_SUBREG, an MMA accumulating into it, one lane stored.
        let t = v;
        let (e0, e1, e2, e3) = (v + 1, v + 2, v + 3, v + 4);
        let (s0, s1) = (v + 5, v + 6);
        let (rs, ins, mma, out) = (v + 7, v + 8, v + 9, v + 10);
        v += 11;
        let _ = writeln!(
            s,
            "    %{t}:float32regsx4 = TEX_2D_V4F32_F32 %2, %{acc}, %1"
        );
        let _ = writeln!(
            s,
            "    %{e0}:float32regs, early-tied %{e1}:float32regs, %{e2}:float32regs, tied-hint %{e3}:float32regs = EXTRACT_SUBREG %{t}.sub0, %{t}.sub1, %{t}.sub2, %{t}.sub3"
        );
        let _ = writeln!(s, "    %{s0}:float32regs = FADDf32rr %{e0}, %{e1}, 0");
        let _ = writeln!(s, "    %{s1}:float32regs = FADDf32rr %{e2}, %{e3}, 0");
        let _ = writeln!(
            s,
            "    %{rs}:float32regsx4 = REG_SEQUENCE %{s0}, %subreg.sub0, %{s1}, %subreg.sub1, %{e0}, %subreg.sub2, %{e3}, %subreg.sub3"
        );
        let _ = writeln!(
            s,
            "    %{ins}:float32regsx4 = INSERT_SUBREG %{rs}, %{acc}, %subreg.sub1"
        );
        let _ = writeln!(
            s,
            "    %{mma}:float32regsx4 = MMA_M16N8K8_TF32_ACC %{s0}, %{s1}, %{ins}"
        );
        let _ = writeln!(
            s,
            "    %{out}:float32regs = EXTRACT_SUBREG %{mma}, %subreg.sub2"
        );
        let _ = writeln!(s, "    ST_i32 %{out}, 0, 0, 1, 32, %0, {}", (4 * k) % 8192);
        acc = out;
        emitted += 9;
        k += 1;
    }
    s.push_str("    Return\n...\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::parse_module;
    use crate::mir::verify::{verify, VerifyLevel};

    #[test]
    fn synthetic_functions_parse_verify_and_have_their_size() {
        for &(name, make) in FAMILIES.iter().filter(|(n, _)| *n != "dag-chain") {
            for n in [100, 1000] {
                let m = parse_module(&make(n)).unwrap_or_else(|e| panic!("{name} {n}: {e}"));
                let f = &m.functions[0];
                let errs = verify(f, VerifyLevel::Ssa);
                assert!(errs.is_empty(), "{name} {n}: {errs:?}");
                let count = f.all_insts().count();
                assert!(
                    count * 10 >= n * 9 && count * 10 <= n * 13,
                    "{name} {n}: {count} instructions"
                );
            }
        }
    }

    /// The many-block family: every stage takes it with the verifier on (in debug
    /// builds GeneralOptimize's block tally is checked against a full count at every
    /// recount), and the blocks stay as small as they were made.
    #[test]
    fn branches_has_many_small_blocks_and_runs_every_stage() {
        let text = branches(700);
        let m = parse_module(&text).unwrap();
        assert_eq!(m.functions[0].layout.blocks().count(), 2 + 3 * 100);
        let opts = crate::pipeline::RunOptions {
            verify: true,
            ..Default::default()
        };
        let run = crate::pipeline::run(&text, &opts).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(run.stages.len(), crate::stages::STAGES.len() - 1);
        for s in &run.stages {
            assert_eq!(s.verify.as_deref(), Some(&[][..]), "{}", s.stage);
        }
        assert!(run.output.contains("st.global"), "{}", run.output);
    }

    /// The DAG family parses, has its size in nodes, the emitter turns it into MIR
    /// that verifies with one store per block, and every stage after it runs.
    #[test]
    fn dag_chain_parses_emits_and_has_its_size() {
        use crate::passes::instr_emitter::{run, EmitterOptions};
        for n in [100, 1000] {
            let d = crate::dag::parse_dag(&dag_chain(n)).unwrap_or_else(|e| panic!("{n}: {e}"));
            let nodes = d.nodes.len();
            assert!(
                nodes * 10 >= n * 9 && nodes * 10 <= n * 13,
                "{n}: {nodes} nodes"
            );
            let (f, _) = run(
                &d,
                &EmitterOptions::default(),
                &mut crate::trace::NoTrace::default(),
            )
            .unwrap_or_else(|e| panic!("{n}: {e}"));
            let errs = verify(&f, VerifyLevel::Ssa);
            assert!(errs.is_empty(), "{n}: {errs:?}");
            let stores = f
                .all_insts()
                .filter(|&(_, i)| f.insts[i].is(crate::mir::Op::ST_i32))
                .count();
            assert_eq!(stores, (n / 64).max(1), "{n}");
            // And every later stage takes it, through to PTX.
            let run = crate::pipeline::run(&dag_chain(n), &crate::pipeline::RunOptions::default())
                .unwrap_or_else(|e| panic!("{n}: {e}"));
            assert_eq!(run.stages.len(), crate::stages::STAGES.len(), "{n}");
            assert!(
                run.output.contains("st.global.b32") || run.output.contains("st.global.u32"),
                "{n}: {}",
                run.output
            );
        }
    }
}
