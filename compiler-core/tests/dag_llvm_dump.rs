//! LLVM's own selected-DAG dump as input (issue 27, item 1): the reader takes the
//! syntax `SelectionDAG::dump` prints, and `print_dag_llvm` writes it by the dumper's
//! rules (single-use nodes nested before their user, operand-less nodes inline,
//! `Target` leaves, `<Mem:...>`, ` # D:1`).
//!
//! Oracle: every DAG we have in CopyScope's format (gallery, emitter findings) is
//! printed in LLVM's syntax and read back; the result is a fixpoint of that printer,
//! the DAG evaluator computes the same outcome on both, and the emitter makes the same
//! instructions. Hand-written dumps check the parts LLVM prints that our printer
//! never does (per-block numbering from t0, use before definition, debug locations,
//! flags before `<Mem:`), and each construct the reader refuses names itself with
//! line:column.

mod support;

use compiler_core::dag::{parse_dag, print_dag, print_dag_llvm, Dag};
use compiler_core::dag_eval::{self as eval, Inputs};
use compiler_core::pipeline::{run, RunOptions};
use compiler_core::stages::Stage;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn ours() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in [root.join("gallery"), root.join("tests/emitter_findings")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "dag") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn emitted(text: &str) -> String {
    let opts = RunOptions {
        until: Some(Stage::InstrEmitter),
        ..RunOptions::default()
    };
    let r = run(text, &opts).unwrap_or_else(|e| panic!("{e}\n{text}"));
    r.output
}

/// The emitted instructions, one per line, sorted (the dump does not carry the
/// schedule, so the order may differ) and with virtual register numbers erased.
fn instruction_multiset(mir: &str) -> Vec<String> {
    let body = &mir[mir.find("body:").expect("a body")..];
    let mut v: Vec<String> = body
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("bb.") && !l.starts_with("body:") && *l != "..."
        })
        .map(|l| {
            let mut s = String::new();
            let mut chars = l.chars().peekable();
            while let Some(c) = chars.next() {
                s.push(c);
                if c == '%' {
                    while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                        chars.next();
                    }
                }
            }
            s
        })
        .collect();
    v.sort();
    v
}

fn inputs() -> Inputs {
    let mut i = Inputs::default();
    for k in 0..8 {
        for name in ["param", "k", "tex_fetch", "f"] {
            i.params
                .insert(format!("{name}_param_{k}"), 0x1000 * (k as u64 + 1));
        }
    }
    for r in 1..=16 {
        i.param_regs.insert(r, 0x100 + r as u64);
    }
    i
}

#[test]
fn every_dag_of_ours_reads_back_from_llvms_syntax() {
    let (mut checked, mut skipped) = (0, BTreeMap::<String, String>::new());
    for p in ours() {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&p).unwrap();
        // Some findings inputs are deliberately invalid (their test checks the error).
        let Ok(dag) = parse_dag(&text) else {
            skipped.insert(
                name,
                "not a valid DAG (a findings input for an error)".into(),
            );
            continue;
        };
        let llvm = match print_dag_llvm(&dag) {
            Ok(t) => t,
            Err(why) => {
                skipped.insert(name, why);
                continue;
            }
        };
        let back: Dag = parse_dag(&llvm).unwrap_or_else(|e| panic!("{name}: {e}\n{llvm}"));
        assert_eq!(
            print_dag_llvm(&back).unwrap(),
            llvm,
            "{name}: not a fixpoint"
        );
        assert_eq!(back.nodes.len(), dag.nodes.len(), "{name}: node count");
        let (a, b) = (eval::run(&dag, &inputs()), eval::run(&back, &inputs()));
        assert_eq!(
            format!("{a:?}"),
            format!("{b:?}"),
            "{name}: evaluator outcome"
        );
        assert_eq!(
            instruction_multiset(&emitted(&text)),
            instruction_multiset(&emitted(&llvm)),
            "{name}: emitted instructions\n{llvm}"
        );
        // Our printer writes what the reader understood, and that reads back too.
        let ours_again = print_dag(&back);
        parse_dag(&ours_again).unwrap_or_else(|e| panic!("{name}: {e}\n{ours_again}"));
        checked += 1;
    }
    println!(
        "read back from LLVM's syntax: {checked}; not expressible there: {}",
        skipped.len()
    );
    for (n, why) in &skipped {
        println!("  {n}: {why}");
    }
    // A floor: the gallery's and findings' DAGs that LLVM's syntax can express today.
    assert!(checked >= 8, "only {checked} DAGs checked");
}

/// The findings input: llc's dump of a parameter load, refused before.
#[test]
fn the_findings_dump_is_accepted() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/emitter_findings/llvm-dump-not-accepted.dag");
    let text = std::fs::read_to_string(&p).unwrap();
    let dag = parse_dag(&text).unwrap();
    assert_eq!(
        print_dag(&dag),
        "Selected selection DAG: %bb.0 'tex_fetch'\n  t0: ch,glue = EntryToken\n  t5: i64,ch = LD_i64 Constant:i1<0>, Constant:i32<0>, Constant:i32<101>, Constant:i32<3>, Constant:i32<64>, Constant:i32<-1>, ExternalSymbol:'tex_fetch_param_0', Constant:i32<0>, t0 [mem \"(dereferenceable invariant load (s64), addrspace 101)\"]\n  t31: ch = Return t5:1\n"
    );
}

/// What LLVM prints and our printer never does: every block numbered from t0, a node
/// used before the line that defines it (created during selection), an operand-less
/// node inline, flags before `<Mem:`, a debug location, a named BasicBlock operand.
const TWO_BLOCKS: &str = "\
Selected selection DAG: %bb.0 'k:entry'
SelectionDAG has 9 nodes:
  t0: ch,glue = EntryToken
  t2: i32,ch = CopyFromReg t0, Register:i32 $r2
  t5: i32 = ADD32rr nuw nsw # D:1 t2, t4, k.cu:3:7
  t4: i32 = ADD32ri t2, TargetConstant:i32<1>
  t6: ch = CopyToReg t0, Register:i32 %10, t5
  t7: ch = CopyToReg t6, Register:i32 %11, INT_PTX_SREG_TID_x:i32
  t8: ch = GOTO BasicBlock:ch<exit 0x55d0c0>, t7

Selected selection DAG: %bb.1 'k:exit'
SelectionDAG has 7 nodes:
  t0: ch,glue = EntryToken
    t1: i64,ch = CopyFromReg t0, Register:i64 $r1
    t2: i32,ch = CopyFromReg t0, Register:i32 %10
  t3: ch = ST_i32<Mem:(store (s32) into %ir.p, addrspace 1)> t2, TargetConstant:i32<0>, TargetConstant:i32<0>, TargetConstant:i32<1>, TargetConstant:i32<32>, t1, TargetConstant:i32<0>, t2:1
  t4: ch = Return t3
";

#[test]
fn llvm_only_forms_are_read() {
    let dag = parse_dag(TWO_BLOCKS).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        print_dag(&dag),
        "Selected selection DAG: %bb.0 'k:entry'
  t0: ch,glue = EntryToken
  t2: i32,ch = CopyFromReg t0, Register:i32 $r2
  t4: i32 = ADD32ri t2, Constant:i32<1>
  t5: i32 = ADD32rr t2, t4 [divergent, flags \"nuw nsw\"]
  t6: ch = CopyToReg t0, Register:i32 %10, t5
  t14: i32 = INT_PTX_SREG_TID_x
  t7: ch = CopyToReg t6, Register:i32 %11, t14
  t8: ch = GOTO BasicBlock:bb.1, t7

Selected selection DAG: %bb.1 'k:exit'
  t9: ch,glue = EntryToken
  t10: i64,ch = CopyFromReg t9, Register:i64 $r1
  t11: i32,ch = CopyFromReg t9, Register:i32 %10
  t12: ch = ST_i32 t11, Constant:i32<0>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t10, Constant:i32<0>, t11:1 [mem \"(store (s32) into %ir.p, addrspace 1)\"]
  t13: ch = Return t12
"
    );
    // The flags reach the instruction, as LLVM's InstrEmitter copies them.
    let mir = emitted(TWO_BLOCKS);
    assert!(mir.contains("= nuw nsw ADD32rr"), "{mir}");
}

#[test]
fn leaves_of_globals_and_floats_become_mir_operands() {
    let text = "\
Selected selection DAG: %bb.0 'f:entry'
SelectionDAG has 8 nodes:
  t0: ch,glue = EntryToken
      t3: i64 = MOV_B64_i TargetGlobalAddress:i64<ptr @smem> + 8
    t4: f32,ch = LD_f32<Mem:(load (s32), addrspace 3)> TargetConstant:i1<0>, TargetConstant:i32<0>, TargetConstant:i32<3>, TargetConstant:i32<3>, TargetConstant:i32<32>, TargetConstant:i32<-1>, t3, TargetConstant:i32<0>, t0
  t5: f32 = FADD_rnf32ri contract t4, TargetConstantFP:f32<1.500000e+00>, TargetConstant:i32<0>
  t6: ch = CopyToReg t4:1, Register:f32 %10, t5
  t7: ch = Return t6
";
    let dag = parse_dag(text).unwrap_or_else(|e| panic!("{e}"));
    let ours = print_dag(&dag);
    assert!(ours.contains("GlobalAddress:@smem + 8"), "{ours}");
    assert!(ours.contains("ConstantFP:f32<1.500000e+00>"), "{ours}");
    assert_eq!(parse_dag(&ours).unwrap(), dag);
    let mir = emitted(text);
    assert!(mir.contains("MOV_B64_i @smem + 8"), "{mir}");
    assert!(mir.contains(" = contract FADD_rnf32ri %"), "{mir}");
    assert!(mir.contains(", float 1.500000e+00, 0\n"), "{mir}");
}

/// MIR prints a float that `%e` does not give back exactly as the double's bits.
#[test]
fn inexact_floats_are_spelled_as_mir_spells_them() {
    let text = "Selected selection DAG: %bb.0 'f:'\n  t0: ch,glue = EntryToken\n  t1: f32 = MOV_F32_i TargetConstantFP:f32<1.000000e-01>\n  t2: ch = Return t0\n";
    let ours = print_dag(&parse_dag(text).unwrap());
    // 0.1f is 0x3FB99999A0000000 as a double; `1.000000e-01` reads back as 0.1 (double).
    assert!(
        ours.contains("ConstantFP:f32<0x3FB99999A0000000>"),
        "{ours}"
    );
}

#[test]
fn refused_constructs_name_themselves_with_line_and_column() {
    let head = "Selected selection DAG: %bb.0 'f:'\nSelectionDAG has 3 nodes:\n  t0: ch,glue = EntryToken\n";
    for (line, want) in [
        (
            "  t1: ch = CALL_UNI t0, RegisterMask:Untyped",
            "4:25: operand `RegisterMask` is not read",
        ),
        (
            "  t1: i8 = IMPLICIT_DEF",
            "4:7: value type `i8` is not in CopyScope's DAG",
        ),
        (
            "  t1: ch,glue = inlineasm t0, TargetExternalSymbol:i64'nop'",
            "4:17: `inlineasm` in LLVM's dump form is not read",
        ),
        (
            "  t1: ch = GOTO BasicBlock:ch< 0x55d0>, t0",
            "4:17: a BasicBlock operand of an unnamed IR block",
        ),
        (
            "  t1: ch = GOTO BasicBlock:ch<loop 0x55d0>, t0",
            "4:17: no block header names the IR block `loop`",
        ),
        (
            "  t1: i32 = ADD32rr t0, t0<Mem:(load",
            "4:27: unexpected `<Mem:(load` at the end of the line",
        ),
        ("  t1: i32 = FOO t0", "4:13: unknown opcode `FOO`"),
        ("  t1: ch = Return t1", "cycle"),
        // Found by fuzz-smoke: a bare name without `:` read past the end of the line.
        (
            "  t1: i32 = ADD32rr t0, ADD32rr",
            "4:25: operand `ADD32rr` is not read",
        ),
        (
            "  t1: i32 = ADD32rr t0, Constant",
            "4:25: operand `Constant` is not read",
        ),
    ] {
        let text = format!("{head}{line}\n");
        let e = parse_dag(&text).expect_err(line).to_string();
        assert!(e.contains(want), "{line}\n  got: {e}\n  want: {want}");
    }
}

/// The LLVM-syntax dumps of corpus kernels in `tests/llvm_dumps/` (how each was made
/// and checked: its README): (dump, where llc-22's isel MIR is, function).
/// `corpus/X` is `shared/corpus/X/1-isel.mir`; `llvm-nvptx/X` is the `isel.mir` that
/// `shared/corpus/llvm-nvptx/make.sh` builds for `ll/X.ll` (needs llc-22).
const DUMPS: &[(&str, &str, &str)] = &[
    ("tex_fetch", "corpus/ll_tex", "tex_fetch"),
    ("vec4", "corpus/ll_vec4", "vec4"),
    (
        "cross_block",
        "llvm-nvptx/address-folder",
        "test_kernel_cross_block",
    ),
    (
        "private_global",
        "llvm-nvptx/demote-vars",
        "define_private_global_more_than_one_use",
    ),
    ("icmp_i1_eq", "llvm-nvptx/i1-icmp", "icmp_i1_eq"),
    ("i1_load", "llvm-nvptx/i1-load-lower", "foo"),
    (
        "mad_multi_use",
        "llvm-nvptx/combine-mad",
        "test_mad_multi_use",
    ),
    ("bswap64", "llvm-nvptx/bswap", "bswap64"),
    ("rotl64", "llvm-nvptx/rotate_64", "rotate64"),
    ("mulwide", "llvm-nvptx/mulwide", "mulwideu16"),
    ("barrier", "llvm-nvptx/barrier", "barrier_cta_sync"),
    ("shfl_sync", "llvm-nvptx/shfl-sync", "shfl_sync_rrr"),
    ("copysign", "llvm-nvptx/copysign", "fcopysign_f_f"),
    ("i128_ld_st", "llvm-nvptx/i128-ld-st", "foo"),
    ("alloca_kernel", "llvm-nvptx/lower-alloca", "kernel"),
    ("proxy_i32", "llvm-nvptx/proxy-reg-erasure-ptx", "check_i32"),
    ("insertelt_i1", "llvm-nvptx/insertelt-dynamic", "dynamic_i1"),
    ("atomic_add", "llvm-nvptx/atomics", "atom0"),
    ("fma_t2_f32", "llvm-nvptx/fma", "t2_f32"),
    (
        "fshr_clamp",
        "llvm-nvptx/funnel-shift-clamp",
        "fshr_clamp_r",
    ),
    ("mulhi_i32", "llvm-nvptx/mulhi-intrins", "test_mulhi_i32"),
    ("vector_loads", "llvm-nvptx/vector-loads", "foo2"),
    ("param_overalign", "llvm-nvptx/param-overalign", "caller"),
];

fn dumps_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/llvm_dumps")
}

/// llc-22's isel MIR of `source`, if it is here (llvm-nvptx needs llc-22).
fn isel_mir(source: &str) -> Option<String> {
    let (kind, case) = source.split_once('/').unwrap();
    let path = match kind {
        "corpus" => support::corpus_dir().join(case).join("1-isel.mir"),
        _ => {
            let llc = support::llc::llc()?;
            support::llc::llvm_nvptx(llc)
                .into_iter()
                .find(|c| c.name == case)?
                .file("isel.mir")?
        }
    };
    std::fs::read_to_string(path).ok()
}

/// Each dump reads (auto-detected as LLVM's syntax), and emitting it as llc-22's
/// InstrEmitter gives llc-22's instructions for that function: the same body after
/// canonical renaming, or, where the dump's nesting leaves the order to the reader's
/// scheduler, the same instructions in another order (counted and printed).
#[test]
fn hand_checked_dumps_of_corpus_kernels_emit_llc22s_isel_mir() {
    use compiler_core::mir::parse_module;
    use compiler_core::passes::instr_emitter::{self, EmitterOptions};
    use compiler_core::trace::NoTrace;
    let (mut same, mut reordered, mut compared) = (0, Vec::new(), 0);
    for (dump, source, function) in DUMPS {
        let path = dumps_dir().join(format!("{dump}.dag"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{dump}: {e}"));
        assert!(
            text.starts_with("Selected selection DAG: %bb.0"),
            "{dump}: not in LLVM's syntax"
        );
        let dag = parse_dag(&text).unwrap_or_else(|e| panic!("{dump}: {e}"));
        let (ours, _) = instr_emitter::run(&dag, &EmitterOptions::llc22(), &mut NoTrace::default())
            .unwrap_or_else(|e| panic!("{dump}: {e}"));
        let Some(mir) = isel_mir(source) else {
            continue;
        };
        let module = parse_module(&mir).unwrap();
        let theirs = module
            .functions
            .iter()
            .find(|f| f.name == *function)
            .unwrap_or_else(|| panic!("{dump}: no {function} in {source}"));
        compared += 1;
        // A dump carries neither how the MIR names a block (`.body`, `(%ir-block.N)`)
        // nor the successor list with its probabilities: blocks by number, and the
        // instructions.
        let blocks_by_number = |v: Vec<String>| -> Vec<String> {
            v.into_iter()
                .filter(|l| !l.starts_with("successors:"))
                .map(|l| match l.strip_prefix("bb.") {
                    Some(r) => format!("bb.{}", r.split(['.', ' ', ':']).next().unwrap()),
                    None => l,
                })
                .collect()
        };
        let (a, b) = (
            blocks_by_number(support::canon::canonical_body(&ours)),
            blocks_by_number(support::canon::canonical_body(theirs)),
        );
        if a == b {
            same += 1;
            continue;
        }
        let sorted = |v: &[String]| {
            let mut v = v.to_vec();
            v.sort();
            v
        };
        let (a2, b2) = (instruction_multiset_of(&a), instruction_multiset_of(&b));
        assert_eq!(
            sorted(&a2),
            sorted(&b2),
            "{dump}: emitted instructions differ from llc-22's\nours:\n{}\nllc-22:\n{}",
            a.join("\n"),
            b.join("\n")
        );
        reordered.push(*dump);
    }
    println!(
        "{} dumps; compared with llc-22: {compared}, same body {same}, same instructions in another order {}: {reordered:?}",
        DUMPS.len(),
        reordered.len()
    );
    assert!(DUMPS.len() >= 20);
    if support::llc::llc().is_some() {
        assert_eq!(compared, DUMPS.len());
    }
}

/// Canonical lines with register numbers erased (an order-free comparison).
fn instruction_multiset_of(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| {
            let mut s = String::new();
            let mut chars = l.chars().peekable();
            while let Some(c) = chars.next() {
                s.push(c);
                if c == '%' {
                    while chars.peek().is_some_and(|d| d.is_ascii_alphanumeric()) {
                        chars.next();
                    }
                }
            }
            s
        })
        .collect()
}

/// A syntax error in a real dump is reported at its line and column.
#[test]
fn a_broken_corpus_dump_names_line_and_column() {
    let text = std::fs::read_to_string(dumps_dir().join("tex_fetch.dag")).unwrap();
    // Line 4's first `=` becomes `:=`.
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let at = lines[3].find(" = ").expect("a node line");
    lines[3].replace_range(at..at + 3, " := ");
    let broken = lines.join("\n") + "\n";
    let e = parse_dag(&broken).unwrap_err().to_string();
    assert!(e.starts_with(&format!("4:{}", at + 2)), "{e}\n{}", lines[3]);
}
