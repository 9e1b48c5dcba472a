//! INLINEASM's extra-info word and `!srcloc` metadata (issue 27): clang's CUDA inline
//! asm carries `isconvergent` (32) and a `!srcloc` node, which the DAG holds as the
//! attributes `isconvergent`, `mayload`, `maystore`, `alignstack`, `unwind` and
//! `srcloc !N`. The expected instruction is llc-22's, copied from
//! `shared/corpus/cu_asm_rw/1-isel.mir` (its second INLINEASM).

mod support;

use compiler_core::dag::{lift, parse_dag, print_dag};
use compiler_core::mir::{parse_module, print_function};
use compiler_core::passes::instr_emitter::{self, EmitterOptions};
use compiler_core::trace::NoTrace;

const ROTATE: &str = "Selected selection DAG: %bb.0 'f:entry'
  t0: ch,glue = EntryToken
  t1: i32,ch = CopyFromReg t0, Register:i32 %6
  t2: ch = INLINEASM t0, \"shf.l.wrap.b32 $0, $0, $0, 7;\", \"=r\", Register:i32 %5, \"0\", t1 [isconvergent, srcloc !12]
  t3: i32,ch = CopyFromReg t2, Register:i32 %5
  t4: ch = CopyToReg t0, Register:i32 %7, t3
  t5: ch = TokenFactor t2, t4
";

/// llc-22's line for this asm (cu_asm_rw, `%6`/`%5` as there).
const LLC22: &str = "INLINEASM &\"shf.l.wrap.b32 $0, $0, $0, 7;\", 32 /* isconvergent attdialect */, 262154 /* regdef:B32 */, def %5, 2147483657 /* reguse tiedto:$0 */, %6(tied-def 3), !12";

#[test]
fn extra_info_and_srcloc_round_trip_and_emit_as_llc22() {
    let dag = parse_dag(ROTATE).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(print_dag(&dag), ROTATE);
    let (f, _) =
        instr_emitter::run(&dag, &EmitterOptions::llc22(), &mut NoTrace::default()).unwrap();
    // `%6` is first named here, so MIR gives its class (`%6:b32`); llc-22's line names
    // it after its def.
    let text = print_function(&f).replace("%6:b32", "%6");
    assert!(
        text.lines().any(|l| l.trim() == LLC22),
        "no `{LLC22}` in\n{text}"
    );
}

#[test]
fn every_extra_info_name_reads_back() {
    let all = ROTATE.replace(
        "[isconvergent, srcloc !12]",
        "[sideeffect, mayload, maystore, isconvergent, alignstack, unwind, srcloc !3]",
    );
    let dag = parse_dag(&all).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(print_dag(&dag), all);
    let (f, _) =
        instr_emitter::run(&dag, &EmitterOptions::llc22(), &mut NoTrace::default()).unwrap();
    // 1 + 8 + 16 + 32 + 2 + 64, named in LLVM's order (InlineAsm::getExtraInfoNames).
    assert!(print_function(&f).contains(
        ", 123 /* sideeffect mayload maystore isconvergent alignstack unwind attdialect */,"
    ));
}

#[test]
fn asm_attributes_elsewhere_or_malformed_are_errors_with_line_and_column() {
    let on_copy = ROTATE.replace(
        "t4: ch = CopyToReg t0, Register:i32 %7, t3",
        "t4: ch = CopyToReg t0, Register:i32 %7, t3 [isconvergent]",
    );
    let e = parse_dag(&on_copy).unwrap_err().to_string();
    assert!(
        e.starts_with("6:3:") && e.contains("belong on INLINEASM only"),
        "{e}"
    );
    let bad = ROTATE.replace("srcloc !12", "srcloc 12");
    let e = parse_dag(&bad).unwrap_err().to_string();
    assert!(e.starts_with("4:") && e.contains("`!N`"), "{e}");
    let twice = ROTATE.replace("[isconvergent,", "[isconvergent, isconvergent,");
    let e = parse_dag(&twice).unwrap_err().to_string();
    assert!(e.contains("attribute `isconvergent` given twice"), "{e}");
}

/// Both corpus kernels with clang's CUDA inline asm lift and emit llc-22's body.
#[test]
fn cuda_inline_asm_kernels_lift_and_emit_llc22s_body() {
    let corpus = support::corpus_dir();
    for case in ["cu_asm_rw", "cu_tex2d"] {
        let text = std::fs::read_to_string(corpus.join(case).join("1-isel.mir")).unwrap();
        let m = parse_module(&text).unwrap();
        for f in &m.functions {
            let dag = lift(f).unwrap_or_else(|e| panic!("{case} {}: {e}", f.name));
            let (ours, _) =
                instr_emitter::run(&dag, &EmitterOptions::llc22(), &mut NoTrace::default())
                    .unwrap();
            assert_eq!(
                support::canon::canonical_body(&ours),
                support::canon::canonical_body(f),
                "{case}"
            );
        }
    }
}
