//! Kill flags as llc-22's InstrEmitter sets them (AddRegisterOperand): an operand is
//! `killed` when its DAG value has one use, dead users included, and is not read out
//! of a CopyFromReg. NVPTX's selector turns both lane extractions of a 16x2 vector
//! into one `I32toV2I16` and leaves the two `extract_vector_elt` nodes dead in the
//! DAG, still reading the vector: so llc-22 prints `I32toV2I16 %8`, not `killed %8`
//! (`shared/corpus/ll_pack/1-isel.mir`, whose three lines the first test expects).

use compiler_core::dag::parse_dag;
use compiler_core::mir::print_function;
use compiler_core::passes::instr_emitter::{self, EmitterOptions};
use compiler_core::trace::NoTrace;

const SPLIT: &str = "Selected selection DAG: %bb.0 'f:entry'
  t0: ch = EntryToken
  t1: i32 = INT_PTX_SREG_TID_x
  t2: v2f16 = FADD_rnf16x2rr t1, t1, Constant:i32<0>
  t3: i16,i16 = I32toV2I16 t2
  t4: i16 = extract_vector_elt t2, Constant:i64<0>
  t5: i16 = extract_vector_elt t2, Constant:i64<1>
  t6: f16 = FMUL_rnf16rr t3, t3:1, Constant:i32<0>
  t7: f32 = CVT_f32_f16 t6, Constant:i32<0>
";

/// The body lines the emitter writes for `text`, run as llc-22's.
fn body(text: &str) -> Vec<String> {
    let dag = parse_dag(text).unwrap_or_else(|e| panic!("{e}"));
    let (f, _) =
        instr_emitter::run(&dag, &EmitterOptions::llc22(), &mut NoTrace::default()).unwrap();
    let out = print_function(&f);
    let b = out.split_once("body:").unwrap().1;
    b.lines()
        .map(str::trim)
        .filter(|l| l.starts_with('%'))
        .map(String::from)
        .collect()
}

#[test]
fn the_merged_extractions_keep_the_vector_alive_at_the_split() {
    // llc-22 (ll_pack): `%8:b32 = FADD_rnf16x2rr %7, %7, 0`,
    // `%9:b16, %10:b16 = I32toV2I16 %8`, `%11:b16 = FMUL_rnf16rr killed %9, killed %10, 0`,
    // `%12:b32 = CVT_f32_f16 killed %11, 0` (here %7 is the thread id, read twice).
    assert_eq!(
        body(SPLIT),
        [
            "%0:b32 = INT_PTX_SREG_TID_x",
            "%1:b32 = FADD_rnf16x2rr %0, %0, 0",
            "%2:b16, %3:b16 = I32toV2I16 %1",
            "%4:b16 = FMUL_rnf16rr killed %2, killed %3, 0",
            "%5:b32 = CVT_f32_f16 killed %4, 0",
        ]
    );
}

#[test]
fn without_dead_users_a_single_use_is_killed() {
    // hasOneUse: the same split with no extract_vector_elt left kills the vector.
    let text: String = SPLIT
        .lines()
        .filter(|l| !l.contains("extract_vector_elt"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(body(&text).contains(&String::from("%2:b16, %3:b16 = I32toV2I16 killed %1")));
}

#[test]
fn dead_extractions_are_checked_with_line_and_column() {
    let read = SPLIT.replace("FMUL_rnf16rr t3, t3:1", "FMUL_rnf16rr t4, t3:1");
    let e = parse_dag(&read).unwrap_err().to_string();
    assert!(e.starts_with("8:") && e.contains("nothing reads it"), "{e}");
    let lane = SPLIT.replace("Constant:i64<1>", "Constant:i64<2>");
    let e = parse_dag(&lane).unwrap_err().to_string();
    assert!(
        e.starts_with("7:") && e.contains("extract_vector_elt takes"),
        "{e}"
    );
    let wide = SPLIT.replace("t5: i16 = extract", "t5: i32 = extract");
    let e = parse_dag(&wide).unwrap_err().to_string();
    assert!(e.starts_with("7:") && e.contains("half the width"), "{e}");
}
