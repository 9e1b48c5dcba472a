use super::*;
use crate::mir::parse_module;
use crate::trace::{NoTrace, StepLog};

fn emit(text: &str) -> Result<String, EmitError> {
    let m = parse_module(text).unwrap();
    let (p, _) = run(&m, &PtxEmitOptions::default(), &mut NoTrace::default())?;
    Ok(crate::ptx::print(&p))
}

#[test]
fn copy_becomes_mov_and_registers_number_per_class() {
    let out = emit(
        "---\nname: k\nbody: |\n  bb.0:\n    %0:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_0, 0\n    %1:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_1, 0\n    %2:b32 = COPY %0\n    ST_i32 %2, 0, 0, 1, 32, %1, 0\n    Return\n...\n",
    )
    .unwrap();
    assert!(out.contains("\t.reg .b32 \t%r<3>;"), "{out}");
    assert!(out.contains("mov.b32 \t%r2, %r1;"), "{out}");
    assert!(out.contains("ld.param.b64 \t%rd1, [k_param_1];"), "{out}");
    assert!(out.contains("st.global.b32 \t[%rd1], %r2;"), "{out}");
    assert!(out.contains(".param .u32 k_param_0,"), "{out}");
}

#[test]
fn anonymous_opcodes_are_named_in_the_error() {
    let e = emit("---\nname: k\nbody: |\n  bb.0:\n    %1:b32 = MOV_B32_i 1\n    %0:b32 = anonymous_99999 %1\n    Return\n...\n")
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("anonymous_99999") && msg.contains("no PTX form"),
        "{msg}"
    );
}

#[test]
fn tuple_lanes_print_in_braces_and_typed_classes_keep_their_types() {
    let out = emit(
        "---\nname: t\nbody: |\n  bb.0:\n    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &t_param_0, 0\n    %1:float32regs = LD_f32 0, 0, 101, 3, 32, -1, &t_param_1, 0\n    %4:float32regsx4 = TEX_2D_V4F32_F32 %0, %1, %1\n    %5:float32regs = COPY %4.sub2\n    ST_i32 %5, 0, 0, 1, 32, %0, 0\n    Return\n...\n",
    )
    .unwrap();
    assert!(
        out.contains("tex.2d.v4.f32.f32 \t{%f2, %f3, %f4, %f5}, [%rd1, {%f1, %f1}];"),
        "{out}"
    );
    assert!(out.contains("mov.f32 \t%f6, %f4;"), "{out}");
    assert!(out.contains(".param .f32 t_param_1"), "{out}");
}

/// An instruction's step prints the PTX lines of its own statements, read from the
/// step's PTX edits (the payload keeps no text of them): the block comment the step's
/// edits also hold, and the edits of other steps, are not among them.
#[test]
fn an_instruction_step_prints_its_own_statements_from_its_edits() {
    let text = "---\nname: k\nbody: |\n  bb.0:\n    %0:int32regs = MOV_B32_i 7\n    %1:int64regs = MOV_B64_i 1\n    Return\n...\n";
    let m = parse_module(text).unwrap();
    let mut log = StepLog::default();
    run(&m, &PtxEmitOptions::default(), &mut log).unwrap();
    let emitted: Vec<crate::trace::Step> = log
        .steps
        .iter()
        .filter(|s| matches!(*s.payload, Payload::Emitted(_)))
        .collect();
    let json = |s: &crate::trace::Step| serde_json::to_value(s).unwrap()["payload"].clone();
    let first = json(&emitted[0]);
    assert_eq!(first["mir"], "%0:int32regs = MOV_B32_i 7");
    assert_eq!(first["ptx"], serde_json::json!(["mov.u32 \t%r1, 7;"]));
    assert!(
        emitted[0].ptx_edits.len() > 1,
        "the step's edits hold the block comment too"
    );
    assert_eq!(json(&emitted[1])["ptx"], serde_json::json!(["mov.u64 \t%rd1, 1;"]));
    assert!(
        serde_json::to_value(&*emitted[0].payload).is_err(),
        "alone, the payload has no lines to print"
    );
}

#[test]
fn fallthrough_goto_is_dropped_and_targets_get_labels() {
    let text = "---\nname: b\nbody: |\n  bb.0:\n    successors: %bb.1, %bb.2\n    %0:b32 = LD_i32 0, 0, 101, 3, 32, -1, &b_param_0, 0\n    %1:b1 = SETP_i32ri %0, 0, 0\n    CBranch %1, %bb.2\n    GOTO %bb.1\n  bb.1:\n    successors: %bb.2\n    GOTO %bb.2\n  bb.2:\n    Return\n...\n";
    let m = parse_module(text).unwrap();
    let mut log = StepLog::default();
    let (p, stats) = run(&m, &PtxEmitOptions::default(), &mut log).unwrap();
    let out = crate::ptx::print(&p);
    assert!(out.contains("@%p1 bra \t$L__BB0_2;"), "{out}");
    assert!(out.contains("$L__BB0_2:"), "{out}");
    assert!(!out.contains("bra.uni"), "{out}");
    assert!(out.contains("setp.eq.b32"), "{out}");
    assert_eq!(stats.get("fallthroughs_dropped"), 2);
    assert!(log.steps.iter().any(|s| s.kind == "fallthrough"));
}

#[test]
fn every_table_opcode_has_a_form_or_a_reason() {
    for &op in crate::mir::Op::all() {
        assert!(
            ptx_form_summary(op).is_some() != no_form_reason(op).is_some(),
            "{}",
            op.name()
        );
    }
}

/// Forms checked against llc-22 (`-start-after=register-coalescer` on a MIR with the
/// instruction added): the text llc printed for each.
#[test]
fn forms_match_llc_22() {
    let cases = [
        ("%30:b1 = MOV_B1_i 1", "mov.pred \t%p2, 1;"),
        (
            "%30:b64 = MOV_F64_i double 1.500000e+00",
            "mov.b64 \t%rd2, 0d3FF8000000000000;",
        ),
        ("%30:b16 = MOV_B16_i 7", "mov.b16 \t%rs1, 7;"),
        ("%30:b32 = SUB32rr %1, %2", "sub.s32 \t%r3, %r1, %r2;"),
        ("%30:b32 = AND_b32rr %1, %2", "and.b32 \t%r3, %r1, %r2;"),
        ("%30:b32 = SHL32_ri %1, 3", "shl.b32 \t%r3, %r1, 3;"),
        ("%30:b32 = MULT32ri %1, 9", "mul.lo.s32 \t%r3, %r1, 9;"),
        ("%30:b32 = FSUBf32rr %1, %2, 0", "sub.f32 \t%r3, %r1, %r2;"),
        (
            "%30:b32 = FADDf32ri %1, float 2.500000e-01, 0",
            "add.f32 \t%r3, %r1, 0f3E800000;",
        ),
        (
            "%30:b32 = FADDf32rr %1, %2, 1",
            "add.ftz.f32 \t%r3, %r1, %r2;",
        ),
        // A CICC-era float form without the trailing flag: the `op:` row's optional
        // flush-to-zero decoder prints nothing.
        ("%30:b32 = FADDf32rr %1, %2", "add.f32 \t%r3, %r1, %r2;"),
        (
            "%30:b32 = FMA_F32rrr %1, %2, %1, 1",
            "fma.rn.ftz.f32 \t%r3, %r1, %r2, %r1;",
        ),
        (
            "%30:b32 = CVT_s32_f32 %1, 18",
            "cvt.rzi.ftz.s32.f32 \t%r3, %r1;",
        ),
        ("%30:b64 = CVT_u64_u32 %1, 0", "cvt.u64.u32 \t%rd2, %r1;"),
        ("%30:b32 = CVT_f32_u32 %1, 5", "cvt.rn.f32.u32 \t%r3, %r1;"),
        (
            "%30:b1 = SETP_i32rr %1, %2, 9",
            "setp.le.u32 \t%p2, %r1, %r2;",
        ),
        (
            "%30:b1 = SETP_f32rr %1, %2, 2, 1",
            "setp.lt.ftz.f32 \t%p2, %r1, %r2;",
        ),
        (
            "%30:b1 = SETP_f32rr %1, %2, 13, 0",
            "setp.nan.f32 \t%p2, %r1, %r2;",
        ),
        (
            "%30:b32 = SELP_b32rr %1, %2, %3",
            "selp.b32 \t%r3, %r1, %r2, %p1;",
        ),
        ("%30:b32 = MOV_B32_r %1", "mov.b32 \t%r3, %r1;"),
    ];
    for (mir, want) in cases {
        let text = alloc::format!(
            "---\nname: k\nbody: |\n  bb.0:\n    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0\n    %1:b32 = LD_i32 0, 0, 1, 3, 32, -1, %0, 0\n    %2:b32 = LD_i32 0, 0, 1, 3, 32, -1, %0, 4\n    %3:b1 = SETP_i32rr %1, %2, 0\n    {mir}\n    Return\n...\n"
        );
        let out = emit(&text).unwrap_or_else(|e| panic!("{mir}: {e}"));
        assert!(out.contains(want), "{mir}: expected `{want}` in\n{out}");
    }
}

/// Declarations come in the IR module's function order: a function used by one defined
/// before it gets a prototype (`b`), a function calling itself does not (`a`), a
/// declared function someone calls gets `.extern` (`ext`), one nobody calls nothing.
#[test]
fn declarations_follow_the_ir_order_of_first_users() {
    let ir = "--- |\n  define void @a() {\n    ret void\n  }\n  define void @b() {\n    ret void\n  }\n  declare void @ext()\n  declare void @unused()\n...\n";
    let f = |name: &str, callees: &[&str]| {
        let calls: String = callees
            .iter()
            .map(|c| format!("    CALL_UNI @{c}, 0, 0\n"))
            .collect();
        format!("---\nname: {name}\nbody: |\n  bb.0:\n{calls}    Return\n...\n")
    };
    let text = format!("{ir}{}{}", f("a", &["a", "b"]), f("b", &["ext"]));
    let out = emit(&text).unwrap();
    let at = |s: &str| out.find(s);
    let (b_proto, ext) = (at(".func b()"), at(".extern .func ext()"));
    assert!(b_proto.is_some() && ext.is_some(), "{out}");
    assert!(b_proto < ext && ext < at(".func a()"), "{out}");
    assert_eq!(out.matches(".func a()").count(), 1, "{out}");
    assert_eq!(out.matches(".func b()").count(), 2, "{out}");
    assert!(!out.contains("unused"), "{out}");
}

/// The description's template forms besides `asm:` (`move:`, `pack:`, `unpack:`,
/// `retval:`, `funcret:`, `goto:`) print the text llc-22 prints for these opcodes and
/// record the step kinds the tours look for (`register_move`, `unpack`, ...) with their
/// own sentences: the form word picks the kind and the sentence, the row the text.
#[test]
fn template_forms_record_their_step_kinds_and_sentences() {
    let text = "---\nname: k\nbody: |\n  bb.0:\n    successors: %bb.2\n    %0:int32regs = MOV_B32_i 7\n    %1:int32regs = IMOV32rr %0\n    %2:int64regs = V2I32toI64 %0, %1\n    %3:int32regs, %4:int32regs = I64toV2I32 %2\n    %5:int32regs = LoadParamMemI32 4\n    GOTO %bb.2\n  bb.1:\n    Return\n  bb.2:\n    StoreRetvalI32 %5, 0\n    Return\n...\n";
    let out = emit(text).unwrap();
    for want in [
        "mov.u32 \t%r2, %r1;",
        "mov.b64 \t%rd1, {%r1, %r2};",
        "mov.b64 \t{%r3, %r4}, %rd1;",
        "ld.param.b32 \t%r5, [retval0+4];",
        "bra.uni \t$L__BB0_2;",
        "st.param.b32 \t[func_retval0], %r5;",
        "ret;",
    ] {
        assert!(out.contains(want), "expected `{want}` in\n{out}");
    }
    let steps = kinds_and_sentences(text);
    for (kind, sentence) in [
        ("register_move", "IMOV32rr is a register move: `mov.u32`."),
        (
            "pack",
            "V2I32toI64 packs two halves into one register with `mov.b64 d, {lo, hi}`.",
        ),
        (
            "unpack",
            "I64toV2I32 splits a register into two halves with `mov.b64 {lo, hi}, s`.",
        ),
        (
            "param_copy",
            "LoadParamMemI32 reads a call's return value from retval0.",
        ),
        ("branch", "GOTO becomes an unconditional `bra.uni`."),
        ("param_copy", "StoreRetvalI32 writes the function's return value."),
        ("instruction", "Return prints as `ret`."),
    ] {
        assert!(
            steps.iter().any(|(k, n)| k == kind && n == sentence),
            "no {kind} step `{sentence}` in {steps:#?}"
        );
    }
}

/// Each step ptx-emit records on MIR `text`: its kind and sentence.
fn kinds_and_sentences(text: &str) -> Vec<(String, String)> {
    let m = parse_module(text).unwrap();
    let mut log = StepLog::default();
    run(&m, &PtxEmitOptions::default(), &mut log).unwrap();
    log.steps
        .iter()
        .map(|s| (s.kind.as_str().to_string(), s.narration.text()))
        .collect()
}

/// The description's `op:` and `sym:` rows print through the template printer: their
/// steps keep the plain `instruction` kind and the sentence naming the printed text
/// (with `.ftz` placed before the type when the flag is set).
#[test]
fn op_and_sym_rows_keep_their_sentences() {
    let text = "---\nname: k\nbody: |\n  bb.0:\n    %0:int32regs = MOV_B32_i 7\n    %1:int32regs = FADDf32rr %0, %0, 1\n    %2:int32regs = FADDf32rr %0, %1\n    Return\n...\n";
    let steps = kinds_and_sentences(text);
    for sentence in [
        "FADDf32rr prints as `add.ftz.f32`.",
        "FADDf32rr prints as `add.f32`.",
        "Return prints as `ret`.",
    ] {
        assert!(
            steps.iter().any(|(k, n)| k == "instruction" && n == sentence),
            "no instruction step `{sentence}` in {steps:#?}"
        );
    }
}
