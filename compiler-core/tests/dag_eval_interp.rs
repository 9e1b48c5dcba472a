//! The DAG evaluator (`interp::dag`, public as `dag_eval`) and the project's MIR interpreter (`interp`) agree
//! (issue 27): on the same inputs, global memory after a run is the same.
//!
//! One thread: the evaluator runs one (`%tid` 0, `%ntid` 1), so the interpreter is
//! launched with a single thread. Inputs are the interpreter's `random_inputs`; the
//! evaluator gets the same parameter values (`<fn>_param_N`, and `$rN` = parameter
//! N-1 for the CICC-era parameter registers) and the buffers' bytes; its stores are
//! applied to the buffers and compared with the interpreter's global regions.
//!
//! - every gallery DAG and emitter-findings DAG: evaluator on the DAG, interpreter on
//!   the MIR the emitter makes of it;
//! - every corpus function that lifts (`dag::lift`): evaluator on the lifted DAG,
//!   interpreter on llc-22's own isel MIR;
//! - 500 random DAGs with a loop and a diamond (`testgen::dag::random_dag`).
//!
//! Skips are counted and printed by reason (an opcode one side does not model, an
//! evaluator whose model is its own formula for textures and matrix opcodes, a device
//! function's return value). Every comparison that runs on both sides must agree.

mod support;

use compiler_core::dag::{lift, parse_dag, Dag, DagOp};
use compiler_core::dag_eval as eval;
use compiler_core::interp::{self, Config, Launch, Region};
use compiler_core::mir::{parse_module, Function, Op};
use compiler_core::passes::instr_emitter::{self, EmitterOptions};
use compiler_core::trace::NoTrace;
use std::collections::BTreeMap;
use std::path::Path;

const SEEDS: u64 = 3;

/// Opcodes the evaluator computes with a formula of its own (`interp/dag/semantics.rs`), not
/// the interpreter's: comparing them would compare two models.
const OWN_MODELS: &[Op] = &[
    Op::TEX_2D_V4F32_F32,
    Op::TEX_2D_V4F32_F32_P,
    Op::MMA_M16N8K8_TF32,
    Op::MMA_M16N8K8_TF32_ACC,
    Op::CP_ASYNC_CA_SHARED,
    Op::SHFL_SYNC_IDX_i32,
    Op::SHFL_SYNC_DOWN_i32,
];

#[derive(Default)]
struct Tally {
    compared: usize,
    agreed: usize,
    skipped: BTreeMap<String, usize>,
    disagreements: Vec<String>,
}

impl Tally {
    fn skip(&mut self, why: impl Into<String>) {
        *self.skipped.entry(why.into()).or_default() += 1;
    }
    fn print(&self, what: &str) {
        println!(
            "{what}: compared {}, agreed {}, skipped {}",
            self.compared,
            self.agreed,
            self.skipped.values().sum::<usize>()
        );
        for (why, n) in &self.skipped {
            println!("  skipped {n}: {why}");
        }
        for d in &self.disagreements {
            println!("  DISAGREES: {d}");
        }
    }
}

fn le_value(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .take(8)
        .enumerate()
        .fold(0, |v, (j, b)| v | ((*b as u64) << (8 * j)))
}

fn eval_inputs(fname: &str, i: &interp::Inputs) -> eval::Inputs {
    let mut e = eval::Inputs::default();
    for (k, bytes) in i.params.iter().enumerate() {
        let v = le_value(bytes);
        e.params.insert(format!("{fname}_param_{k}"), v);
        e.param_regs.insert(k as u32 + 1, v);
    }
    for r in &i.buffers {
        for (j, b) in r.bytes.iter().enumerate() {
            e.memory.insert(r.base + j as u64, *b);
        }
    }
    e
}

/// The buffers after the evaluator's stores.
fn after_stores(i: &interp::Inputs, stores: &[eval::Store]) -> Result<Vec<Region>, String> {
    let mut regions = i.buffers.clone();
    for s in stores {
        let n = (s.bits / 8).max(1) as u64;
        let r = regions
            .iter_mut()
            .find(|r| s.addr >= r.base && s.addr + n <= r.base + r.bytes.len() as u64)
            .ok_or_else(|| format!("a store to {:#x} outside every buffer", s.addr))?;
        for j in 0..n {
            r.bytes[(s.addr - r.base + j) as usize] = (s.value >> (8 * j)) as u8;
        }
    }
    regions.sort_by_key(|r| r.base);
    Ok(regions)
}

fn interp_why(e: &interp::InterpError) -> String {
    match e {
        interp::InterpError::Unsupported { opcode, reason, .. } => {
            format!("interpreter: {opcode}: {reason}")
        }
        other => format!("interpreter: {}", other.kind()),
    }
}

fn own_model(dag: &Dag) -> Option<Op> {
    dag.nodes.values().find_map(|n| match n.op {
        DagOp::Machine(op) if OWN_MODELS.contains(&op) => Some(op),
        _ => None,
    })
}

/// Evaluator on `dag`, interpreter on `f`, for a few seeds.
fn agree(t: &mut Tally, tag: &str, dag: &Dag, f: &Function) {
    if let Some(op) = own_model(dag) {
        return t.skip(format!(
            "the evaluator's own model of {} (interp/dag/semantics.rs)",
            op.name()
        ));
    }
    if let Some(e) = interp::check(f) {
        return t.skip(interp_why(&e));
    }
    for seed in 0..SEEDS {
        let mut inputs = interp::random_inputs(f, None, seed);
        inputs.launch = Launch {
            grid: [1, 1, 1],
            block: [1, 1, 1],
        };
        let theirs = match interp::run(f, &inputs, &Config::default()) {
            Ok(r) => r.outcome,
            Err(e) => return t.skip(interp_why(&e)),
        };
        if theirs.retvals.iter().any(|r| !r.is_empty()) {
            return t.skip("a device function's return value (the evaluator has none)");
        }
        let ours = match eval::run(dag, &eval_inputs(&f.name, &inputs)) {
            Ok(o) => o,
            Err(e) if e.contains("has no model in the evaluator") => {
                let op = e.split(' ').next().unwrap_or("?");
                return t.skip(format!("evaluator: no model of {op}"));
            }
            Err(e) => return t.skip(format!("evaluator: {e}")),
        };
        let ours = match after_stores(&inputs, &ours.stores) {
            Ok(r) => r,
            Err(e) => return t.skip(format!("evaluator: {e}")),
        };
        let bases: Vec<u64> = inputs.buffers.iter().map(|r| r.base).collect();
        let theirs: Vec<Region> = theirs
            .global
            .into_iter()
            .filter(|r| bases.contains(&r.base))
            .collect();
        t.compared += 1;
        if ours == theirs {
            t.agreed += 1;
        } else {
            t.disagreements.push(format!(
                "{tag} seed {seed}: {}",
                interp::describe_difference(
                    &interp::Outcome {
                        global: ours,
                        retvals: Vec::new()
                    },
                    &interp::Outcome {
                        global: theirs,
                        retvals: Vec::new()
                    }
                )
            ));
        }
    }
}

fn emit(dag: &Dag, opts: &EmitterOptions) -> Result<Function, String> {
    instr_emitter::run(dag, opts, &mut NoTrace::default())
        .map(|(f, _)| f)
        .map_err(|e| e.to_string())
}

fn dag_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["gallery", "tests/emitter_findings", "tests/llvm_dumps"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "dag") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn gallery_and_findings_dags() {
    let mut t = Tally::default();
    for p in dag_files() {
        let tag = p.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&p).unwrap();
        let Ok(dag) = parse_dag(&text) else {
            t.skip("not a valid DAG (a findings input for a parse error)");
            continue;
        };
        let llc = p.to_string_lossy().contains("llvm_dumps");
        let opts = if llc {
            EmitterOptions::llc22()
        } else {
            EmitterOptions::default()
        };
        match emit(&dag, &opts) {
            Ok(f) => agree(&mut t, &tag, &dag, &f),
            Err(_) => t.skip("the emitter refuses it (a findings input for an error)"),
        }
    }
    t.print("gallery, findings and LLVM-syntax DAGs");
    assert!(t.disagreements.is_empty(), "see the DISAGREES lines");
    // A floor: the runs measured when this test was written (4 DAGs × 3 seeds).
    assert!(t.agreed >= 12, "only {} runs agreed", t.agreed);
}

#[test]
fn lifted_corpus_functions() {
    let mut t = Tally::default();
    let mut files = Vec::new();
    for e in std::fs::read_dir(support::corpus_dir()).unwrap() {
        let p = e.unwrap().path().join("1-isel.mir");
        if p.is_file() {
            files.push(p);
        }
    }
    if let Some(llc) = support::llc::llc() {
        for c in support::llc::llvm_nvptx(llc) {
            if let Some(p) = c.file("isel.mir") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut functions = 0;
    for p in files {
        let Ok(m) = parse_module(&std::fs::read_to_string(&p).unwrap()) else {
            continue;
        };
        for f in &m.functions {
            functions += 1;
            match lift(f) {
                Ok(dag) => agree(&mut t, &format!("{} {}", p.display(), f.name), &dag, f),
                Err(e) => t.skip(format!("not lifted: {}", e.reason)),
            }
        }
    }
    t.print(&format!("lifted corpus functions ({functions})"));
    assert!(t.disagreements.is_empty(), "see the DISAGREES lines");
    // A floor: the runs measured (37 functions × 3 seeds; 33 before PHIs lifted).
    assert!(t.agreed >= 111, "only {} runs agreed", t.agreed);
}

#[test]
fn five_hundred_random_dags_with_loops() {
    use compiler_core::testgen::dag::random_dag;
    let mut t = Tally::default();
    let mut with_phis = 0;
    for seed in 0..500 {
        let text = random_dag(seed);
        with_phis += usize::from(text.contains("PHI:"));
        let dag = parse_dag(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let f = emit(&dag, &EmitterOptions::default())
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let before = (t.compared, t.disagreements.len());
        agree(&mut t, &format!("random DAG {seed}"), &dag, &f);
        if t.disagreements.len() > before.1 && std::env::var_os("RDAG_SHOW").is_some() {
            println!("{text}\n{}", compiler_core::mir::print_function(&f));
        }
        let before = before.0;
        assert_eq!(
            t.compared,
            before + SEEDS as usize,
            "seed {seed} was skipped: {:?}\n{text}",
            t.skipped
        );
    }
    t.print("random DAGs");
    println!("random DAGs whose loop carries its values through PHIs: {with_phis} of 500");
    assert!(with_phis >= 200, "only {with_phis} random DAGs have PHIs");
    assert!(t.disagreements.is_empty(), "see the DISAGREES lines");
    assert_eq!(t.agreed, 500 * SEEDS as usize);
}

/// Runs a hand-written DAG both ways (one thread, a buffer at parameter 0) and returns
/// the evaluator's stores after checking the interpreter agrees.
fn both_ways(text: &str) -> Vec<(u64, u64)> {
    let dag = parse_dag(text).unwrap();
    let f = emit(&dag, &EmitterOptions::default()).unwrap();
    let mut inputs = interp::random_inputs(&f, None, 0);
    inputs.launch = Launch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
    };
    let base = inputs.buffers[0].base;
    let ours = eval::run(&dag, &eval_inputs(&f.name, &inputs)).unwrap();
    let theirs = interp::run(&f, &inputs, &Config::default())
        .unwrap()
        .outcome;
    let mine = after_stores(&inputs, &ours.stores).unwrap();
    let theirs: Vec<Region> = theirs
        .global
        .into_iter()
        .filter(|r| r.base == base)
        .collect();
    assert_eq!(mine, theirs, "{}", compiler_core::mir::print_function(&f));
    ours.stores
        .iter()
        .map(|s| (s.addr - base, s.value))
        .collect()
}

/// Found by the random DAGs (seed 171): a loop body that only swaps two registers,
/// `%102 ← %101` then `%101 ← old %102`. The second COPY must read the value %102 had
/// when the block began: (1, 2) → (2, 1).
#[test]
fn a_swap_of_two_registers_reads_the_old_values() {
    let text = "\
Selected selection DAG: %bb.0 'swap2:entry'
  t0: ch,glue = EntryToken
  t1: i64,ch = LD_i64 Constant:i32<0>, Constant:i32<0>, Constant:i32<101>, Constant:i32<3>, Constant:i32<64>, Constant:i32<-1>, ExternalSymbol:'swap2_param_0', Constant:i32<0>, t0
  t2: i32 = MOV_B32_i Constant:i32<1>
  t3: i32 = MOV_B32_i Constant:i32<2>
  t4: ch = CopyToReg t1:1, Register:i64 %100, t1
  t5: ch = CopyToReg t4, Register:i32 %101, t2
  t6: ch = CopyToReg t5, Register:i32 %102, t3
  t7: ch = GOTO BasicBlock:bb.1, t6

Selected selection DAG: %bb.1 'swap2:body'
  t10: ch,glue = EntryToken
  t11: i32,ch = CopyFromReg t10, Register:i32 %101
  t12: i32,ch = CopyFromReg t10, Register:i32 %102
  t13: ch = CopyToReg t10, Register:i32 %102, t11
  t14: ch = CopyToReg t13, Register:i32 %101, t12
  t15: ch = GOTO BasicBlock:bb.2, t14

Selected selection DAG: %bb.2 'swap2:exit'
  t20: ch,glue = EntryToken
  t21: i64,ch = CopyFromReg t20, Register:i64 %100
  t22: i32,ch = CopyFromReg t20, Register:i32 %101
  t23: i32,ch = CopyFromReg t20, Register:i32 %102
  t24: ch = ST_i32 t22, Constant:i32<0>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t21, Constant:i32<0>, t20
  t25: ch = ST_i32 t23, Constant:i32<0>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t21, Constant:i32<4>, t24
  t26: ch = Return t25
";
    assert_eq!(both_ways(text), vec![(0, 2), (4, 1)]);
}

/// The findings' loop-carried swap (`findings/emitter/swap.dag`: (a, b) = (b, a + b)
/// while a + b < 1000) written as LLVM writes it: PHIs at the loop head, the new values
/// copied into the back-edge registers. Every read in the body is of the old a and b,
/// so the loop ends with a = 987 (Fibonacci: 1 1 2 ... 610 987, 987 + 1597 ≥ 1000).
#[test]
fn a_loop_carried_swap_through_phis_reads_the_old_values() {
    let text = "\
Selected selection DAG: %bb.0 'swapphi:entry'
  t0: ch,glue = EntryToken
  t1: i64,ch = LD_i64 Constant:i32<0>, Constant:i32<0>, Constant:i32<101>, Constant:i32<3>, Constant:i32<64>, Constant:i32<-1>, ExternalSymbol:'swapphi_param_0', Constant:i32<0>, t0
  t2: i32 = MOV_B32_i Constant:i32<1>
  t3: ch = CopyToReg t1:1, Register:i64 %100, t1
  t4: ch = CopyToReg t3, Register:i32 %1, t2
  t5: ch = GOTO BasicBlock:bb.1, t4

Selected selection DAG: %bb.1 'swapphi:body'
  PHI:i32 %10 = %1, %bb.0, %21, %bb.1
  PHI:i32 %11 = %1, %bb.0, %20, %bb.1
  t10: ch,glue = EntryToken
  t11: i32,ch = CopyFromReg t10, Register:i32 %10
  t12: i32,ch = CopyFromReg t10, Register:i32 %11
  t13: i32 = ADD32rr t11, t12
  t14: ch = CopyToReg t10, Register:i32 %20, t13
  t15: ch = CopyToReg t14, Register:i32 %21, t12
  t18: i1 = SETP_i32ri t13, Constant:i32<1000>, Constant:i32<2>
  t19: ch = CBranch t18, BasicBlock:bb.1, t15

Selected selection DAG: %bb.2 'swapphi:exit'
  t20: ch,glue = EntryToken
  t21: i64,ch = CopyFromReg t20, Register:i64 %100
  t22: i32,ch = CopyFromReg t20, Register:i32 %21
  t23: ch = ST_i32 t22, Constant:i32<0>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t21, Constant:i32<0>, t20
  t24: ch = Return t23
";
    assert_eq!(both_ways(text), vec![(0, 987)]);
}

/// The DAG evaluator read SETP's modes 6..9 as unsigned lt, le, gt, ge; NVPTX numbers
/// them EQU NEU LTU LEU GTU GEU (6..11), as llc-22 does (`SETP_i32rr a, b, 10` prints
/// `setp.gt.u32`). 0xffffffff > 1 unsigned, not signed: modes 10 and 4 differ.
#[test]
fn setp_modes_are_nvptxs() {
    let text = |mode: u32| {
        format!(
            "\
Selected selection DAG: %bb.0 'setp:entry'
  t0: ch,glue = EntryToken
  t1: i64,ch = LD_i64 Constant:i32<0>, Constant:i32<0>, Constant:i32<101>, Constant:i32<3>, Constant:i32<64>, Constant:i32<-1>, ExternalSymbol:'setp_param_0', Constant:i32<0>, t0
  t2: i32 = MOV_B32_i Constant:i32<-1>
  t3: i32 = MOV_B32_i Constant:i32<1>
  t4: i1 = SETP_i32rr t2, t3, Constant:i32<{mode}>
  t5: i32 = MOV_B32_i Constant:i32<7>
  t6: i32 = MOV_B32_i Constant:i32<9>
  t7: i32 = SELP_b32rr t5, t6, t4
  t8: ch = ST_i32 t7, Constant:i32<0>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t1, Constant:i32<0>, t1:1
  t9: ch = Return t8
"
        )
    };
    // (mode, is 0xffffffff CMP 1): signed gt, unsigned eq/ne/lt/le/gt/ge.
    for (mode, holds) in [
        (4, false),
        (6, false),
        (7, true),
        (8, false),
        (9, false),
        (10, true),
        (11, true),
    ] {
        let want = if holds { 7 } else { 9 };
        assert_eq!(both_ways(&text(mode)), vec![(0, want)], "mode {mode}");
    }
}
