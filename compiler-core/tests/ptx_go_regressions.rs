//! Regressions from the PTX front end and GeneralOptimize findings (inputs in
//! `tests/ptx-go/`, copied from the 2026-11-26 findings). Each test states the right
//! result, derived by reasoning about what the PTX computes, and — where the input
//! assembles with ptxas 13.0.88 — checks that our output assembles too.

mod support;

use compiler_core::knobs::Knobs;
use compiler_core::pipeline::{self, InputFormat, RunOptions};
use compiler_core::stages::IrKind;
use support::ptx_statements;

fn input(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ptx-go")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `copyscope run F --from ptx --emit ptx [--knob ...]`: the whole PTX pipeline.
fn run_ptx(name: &str, knobs: &[&str]) -> pipeline::RunResult {
    let mut k = Knobs::default();
    for s in knobs {
        k.set_from_str(s).unwrap();
    }
    let opts = RunOptions {
        from: Some(InputFormat::Ptx),
        emit: Some(IrKind::Ptx),
        knobs: k,
        trace: true,
        ..Default::default()
    };
    pipeline::run(&input(name), &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The body statements of the first `.entry` (declarations included).
fn body(text: &str) -> Vec<String> {
    let all = ptx_statements(text);
    let open = all
        .iter()
        .position(|s| s.contains(".visible .entry") && s.ends_with('{'))
        .unwrap_or_else(|| panic!("no entry in {all:?}"));
    let close = all.iter().rposition(|s| s == "}").unwrap();
    all[open + 1..close].to_vec()
}

fn assembles(text: &str, target: &str, tag: &str) {
    if let Some(ptxas) = support::ptxas::ptxas() {
        support::ptxas::assemble_target(ptxas, text, target, tag)
            .unwrap_or_else(|e| panic!("{tag}: ptxas rejects our output: {e}\n{text}"));
    }
}

fn narrations(r: &pipeline::RunResult) -> Vec<String> {
    r.stages
        .iter()
        .flat_map(|s| s.steps.iter())
        .map(|s| s.narration.text())
        .collect()
}

/// `slct.f32.s32 %f2, %f1, %f1, %r1` yields %f1 whatever %r1 is; folded, it must stay a
/// typed move (`mov.f32`), which ptxas accepts — a bare `mov` it rejects.
#[test]
fn slct_with_equal_sources_folds_to_a_typed_move() {
    let r = run_ptx("d1b_slct.ptx", &[]);
    let b = body(&r.output);
    assert!(b.contains(&"mov.f32 %f2,%f1;".to_string()), "{}", r.output);
    assert!(!b.iter().any(|s| s.starts_with("mov %")), "{}", r.output);
    assemble_both("d1b_slct.ptx", &r.output, "80");
    let n = narrations(&r);
    assert!(
        n.iter()
            .any(|s| s.contains("picks the same source whatever the predicate")),
        "{n:?}"
    );
}

fn assemble_both(name: &str, ours: &str, target: &str) {
    assembles(&input(name), target, &format!("{name}-original"));
    assembles(ours, target, name);
}

/// Two reads of `%clock` are two values: the second exit tests a later time than the
/// first, so phase 13 must not take it for the first's repetition. The body comes out
/// unchanged.
#[test]
fn two_clock_reads_are_never_equal() {
    let r = run_ptx("d2c_clock.ptx", &[]);
    let expected = [
        ".reg .pred %p<3>;",
        ".reg .b32 %r<6>;",
        ".reg .b64 %rd<3>;",
        "ld.param.u64 %rd1,[k_param_0];",
        "cvta.to.global.u64 %rd2,%rd1;",
        "mov.u32 %r1,%clock;",
        "setp.gt.u32 %p1,%r1,1000;",
        "@%p1 ret;",
        "mov.u32 %r2,%clock;",
        "setp.gt.u32 %p2,%r2,1000;",
        "@%p2 ret;",
        "st.global.u32 [%rd2],1;",
        "ret;",
    ];
    assert_eq!(body(&r.output), expected, "{}", r.output);
    assemble_both("d2c_clock.ptx", &r.output, "80");
}

/// `call.uni (%r2), inc, (%r2)` writes %r2, so `%r3 = mov %r2` before the call keeps
/// the thread index and `add %r4, %r3, %r2` is tid + inc(tid) = 2·tid + 1. Rewiring
/// %r3 to %r2 would read inc's result twice (2·tid + 2). Nothing here can be
/// simplified without changing that: the body comes out as it went in.
#[test]
fn registers_written_by_a_call_are_definitions() {
    let r = run_ptx("d7b_callreg.ptx", &[]);
    let expected = [
        ".reg .b32 %r<6>;",
        ".reg .b64 %rd<3>;",
        "ld.param.u64 %rd1,[k_param_0];",
        "cvta.to.global.u64 %rd2,%rd1;",
        "mov.u32 %r2,%tid.x;",
        "mov.u32 %r3,%r2;",
        "call.uni (%r2),inc,(%r2);",
        "add.s32 %r4,%r3,%r2;",
        "st.global.u32 [%rd2],%r4;",
        "ret;",
    ];
    assert_eq!(body(&r.output), expected, "{}", r.output);
}

/// What thread 0 and thread 1 store at the first two words of the output buffer when
/// the ORI interpreter runs `m`'s kernel `k`.
fn first_two_words(m: &compiler_core::ori::Module) -> [u32; 2] {
    use compiler_core::ori_interp as interp;
    let f = m.functions().find(|f| f.name == "k").unwrap();
    let inputs = interp::random_inputs(f.params.as_deref().unwrap(), 1);
    let out = interp::run_ori(m, "k", &inputs, &interp::Config::default()).unwrap();
    let b = &out.buffers[0].bytes;
    let w = |k: usize| u32::from_le_bytes(b[4 * k..4 * k + 4].try_into().unwrap());
    [w(0), w(1)]
}

fn lower(text: &str) -> compiler_core::ori::Module {
    use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
    let p = compiler_core::ptx::parse(text).unwrap();
    ptx_lower::run(
        &p,
        &PtxLowerOptions::default(),
        &mut compiler_core::trace::NoTrace::default(),
    )
    .unwrap()
    .0
}

/// PTX's shadowing: the inner `.reg .pred %p1` is a register of its own. Thread 0
/// stores 1 + 7 = 8 (outer %p1 true, inner false), other threads 2 + 9 = 11; the
/// scope prints back with its declaration, and the output assembles.
#[test]
fn an_inner_scope_declaration_shadows_the_outer_register() {
    let m = lower(&input("scope_shadow.ptx"));
    let f = m.functions().next().unwrap();
    let p1: Vec<_> = f.regs.values().filter(|r| r.name == "%p1").collect();
    assert_eq!(p1.len(), 2, "one register per declaration of %p1");
    assert_ne!(p1[0].scope, p1[1].scope);
    assert_eq!(first_two_words(&m), [8, 11]);
    let r = run_ptx("scope_shadow.ptx", &[]);
    assert_eq!(first_two_words(&lower(&r.output)), [8, 11], "{}", r.output);
    let b = body(&r.output);
    let open = b.iter().position(|s| s == "{").expect("the scope is kept");
    assert_eq!(b[open + 1], ".reg .pred %p1;");
    assert_eq!(b[open + 2], "setp.ne.u32 %p1,%r1,0;");
    assemble_both("scope_shadow.ptx", &r.output, "80");
}

/// Two call sequences, each `{ .param .b32 param0; ... }`: each keeps its scope, so
/// ptxas sees no duplicate `param0` (it did when scopes were flattened).
#[test]
fn call_sequences_keep_their_scopes() {
    let r = run_ptx("h08_call.ptx", &[]);
    let b = body(&r.output);
    let scopes: Vec<usize> = (0..b.len()).filter(|&k| b[k] == "{").collect();
    assert_eq!(scopes.len(), 2, "{}", r.output);
    assert_eq!(b[scopes[0] + 1], ".param .b32 param0;", "{}", r.output);
    assert_eq!(b[scopes[1] + 1], ".param .b64 param0;", "{}", r.output);
    assemble_both("h08_call.ptx", &r.output, "80");
}

/// Two inline-asm blocks, each a scope with its own `.reg .pred P1` and labels
/// `LAB_WAIT` / `DONE`: the branches of each go to its own labels, and both scopes
/// print back.
#[test]
fn labels_and_registers_of_asm_scopes_stay_apart() {
    let m = lower(&input("h10b_mbarrier2.ptx"));
    let f = m.functions().next().unwrap();
    assert_eq!(f.regs.values().filter(|r| r.name == "P1").count(), 2);
    let waits: Vec<compiler_core::ori::BlockId> = f
        .blocks
        .iter()
        .filter(|(_, b)| b.label.as_deref() == Some("LAB_WAIT"))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(waits.len(), 2);
    // The `bra.uni LAB_WAIT` of each scope targets that scope's label.
    let mut targets = Vec::new();
    for (_, id) in f.layout() {
        let i = &f.insts[id];
        if i.opcode == "bra.uni" && i.guard.is_none() {
            if let compiler_core::ori::OpKind::Block(t) = i.operands[0].kind {
                targets.push(t);
            }
        }
    }
    assert_eq!(targets, waits);
    let r = run_ptx("h10b_mbarrier2.ptx", &[]);
    let b = body(&r.output);
    assert_eq!(b.iter().filter(|s| *s == "{").count(), 2, "{}", r.output);
    assemble_both("h10b_mbarrier2.ptx", &r.output, "90");
}

/// A statement-level `.pragma` stays where it stood, in front of the load it is about.
#[test]
fn a_statement_pragma_stays_in_place() {
    let r = run_ptx("r18_usedbytes.ptx", &[]);
    let b = body(&r.output);
    let k = b
        .iter()
        .position(|s| s == ".pragma \"used_bytes_mask 15\";")
        .unwrap_or_else(|| panic!("{}", r.output));
    assert_eq!(b[k - 1], "mov.u32 %r1,%tid.x;");
    assert!(b[k + 1].starts_with("ld.global.v4.u32"), "{}", r.output);
    assemble_both("r18_usedbytes.ptx", &r.output, "90");
}

/// `fmt`: the constructs real tools print parse, print back as written, reparse to the
/// same tree, and come through the pipeline as PTX that ptxas assembles.
#[test]
fn debug_and_attribute_syntax_round_trips() {
    use compiler_core::ptx;
    let cases = [
        (
            "r01_loc.ptx",
            vec![".file 1 \"/tmp/k.cu\"", "\t.loc 1 7 3\n"],
        ),
        (
            "r19_section.ptx",
            vec![".section .debug_str", "$L__info_string0 :", ".b8 107 , 0"],
        ),
        (
            "r09_managed.ptx",
            vec![".global .attribute(.managed) .align 4 .u32 gm;"],
        ),
        (
            "r13_callproto.ptx",
            vec!["prototype_0 : .callprototype ( ) _ ( ) ;"],
        ),
        ("r06_fnptr.ptx", vec!["mov.u64 \t%rd3, f1;"]),
    ];
    for (name, kept) in cases {
        let text = input(name);
        let m = ptx::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = ptx::print(&m);
        for k in kept {
            assert!(printed.contains(k), "{name}: `{k}` not in\n{printed}");
        }
        assert_eq!(ptx::parse(&printed).unwrap(), m, "{name}: reparse differs");
        let r = run_ptx(name, &[]);
        let through = match name {
            // ptx-out gives back unchanged lines as the source wrote them.
            "r01_loc.ptx" => "\t.loc\t1 7 3\n",
            "r19_section.ptx" => "\t.section\t.debug_str\n",
            "r09_managed.ptx" => ".attribute(.managed)",
            "r13_callproto.ptx" => "\tprototype_0 : .callprototype ()_ ();",
            _ => "mov.u64 \t%rd3, f1;",
        };
        assert!(r.output.contains(through), "{name}: {}", r.output);
        assemble_both(name, &r.output, "90");
    }
}

/// A construct the reader does not know is named, with its line and column.
#[test]
fn unknown_directives_are_named_with_their_position() {
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n.blah 1 2;\n";
    let e = compiler_core::ptx::parse(text).unwrap_err();
    assert_eq!((e.line, e.col), (4, 1));
    assert!(e.message.contains("`.blah`"), "{}", e.message);
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.blah 1;\n\tret;\n}\n";
    let e = compiler_core::ptx::parse(text).unwrap_err();
    assert_eq!((e.line, e.col), (6, 2));
    assert!(e.message.contains("`.blah`"), "{}", e.message);
}

/// `.target sm_50` and no `sm` knob: GeneralOptimize runs for sm_50 (encoded 0x4001,
/// where phase 46 is the no-op sentinel); `--knob sm=sm_90` still overrides it.
#[test]
fn sm_follows_the_file_target_unless_set() {
    let n = narrations(&run_ptx("d4_sm50.ptx", &[]));
    assert!(n.iter().any(|s| s.contains("SM profile 0x4001")), "{n:#?}");
    assert!(!n.iter().any(|s| s.contains("SM profile 0x8000")));
    let n = narrations(&run_ptx("d4_sm50.ptx", &["sm=sm_90"]));
    assert!(n.iter().any(|s| s.contains("SM profile 0x8000")));
    assert!(!n.iter().any(|s| s.contains("SM profile 0x4001")));
}

/// `limit-fold-fp=true` puts float selects on the conservative tier: the destination
/// is marked 0x201 (deferred cleanup), not 0x100, so GeneralOptimize leaves
/// `selp.f32 %f2, 1.0, 1.0, %p1` as it is and the 1.0 does not reach the `mul`. The
/// default (false) folds it: `mul.f32 %f3, %f1, 0f3F800000`.
#[test]
fn limit_fold_fp_defers_float_select_folds() {
    let limited = run_ptx("d4_fsel.ptx", &["limit-fold-fp=true"]);
    let b = body(&limited.output);
    assert!(
        b.contains(&"selp.f32 %f2,0f3F800000,0f3F800000,%p1;".to_string()),
        "{}",
        limited.output
    );
    assert!(
        b.contains(&"mul.f32 %f3,%f1,%f2;".to_string()),
        "{}",
        limited.output
    );
    let n = narrations(&limited);
    assert!(n.iter().any(|s| s.contains("0x201")), "{n:#?}");
    assert!(
        !n.iter().any(|s| s.starts_with("Consumer: `selp")),
        "{n:#?}"
    );
    let free = run_ptx("d4_fsel.ptx", &[]);
    let b = body(&free.output);
    assert!(
        b.contains(&"mul.f32 %f3,%f1,0f3F800000;".to_string()),
        "{}",
        free.output
    );
    assemble_both("d4_fsel.ptx", &limited.output, "80");
    assemble_both("d4_fsel.ptx", &free.output, "80");
}

/// A `.func` with `.reg` parameters, the cluster and timer special registers, and a
/// `brx.idx` over a `.branchtargets` list: all read, kept, and assembled after the
/// pipeline (ptx-lower refused `%ret` / `%clusterid.x` / `ts` before).
#[test]
fn reg_parameters_special_registers_and_branch_tables_come_through() {
    use compiler_core::ptx;
    let text = input("grammar_extra.ptx");
    let m = ptx::parse(&text).unwrap();
    assert_eq!(ptx::parse(&ptx::print(&m)).unwrap(), m);
    let r = run_ptx("grammar_extra.ptx", &[]);
    for kept in [
        "add.s32 \t%ret, %a, 1;",
        "%clusterid.x",
        "%cluster_ctarank",
        "%globaltimer_lo",
        "%nclusterid.y",
        // As the source wrote it (ptx-out keeps unchanged lines' spelling).
        "\tts: .branchtargets $L_a, $L_b;",
        "brx.idx \t%r6, ts;",
        "$L_b:",
    ] {
        assert!(r.output.contains(kept), "`{kept}` missing:\n{}", r.output);
    }
    assemble_both("grammar_extra.ptx", &r.output, "90");
}

/// A select whose sources differ but whose predicate is known (`%r1 == %r1`) folds to
/// its first source; the narration names the known predicate and does not claim the
/// select "picks the same source whatever the predicate" (it said so before).
#[test]
fn a_known_predicate_fold_says_why() {
    let r = run_ptx("selp_known.ptx", &[]);
    assert!(
        body(&r.output).contains(&"st.global.u32 [%rd2],%r1;".to_string()),
        "{}",
        r.output
    );
    let n = narrations(&r);
    let fold: Vec<&String> = n.iter().filter(|s| s.contains("`selp.u32")).collect();
    assert!(
        fold.iter()
            .any(|s| s.contains("known value (true)") && s.contains("first source")),
        "{fold:#?}"
    );
    assert!(
        !n.iter().any(|s| s.contains("whatever the predicate")),
        "{n:#?}"
    );
    assemble_both("selp_known.ptx", &r.output, "80");
}

/// What old tools wrote around and inside PTX (the nine real-ptx files the reader
/// refused before): a `cuobjdump` banner, a module-level `.reg`, a device function
/// declared with neither `;` nor a body, symbol arithmetic as an operand, trailing NUL
/// bytes and a Latin-1 byte in a string. Each is kept: print → parse gives the same
/// tree, and the module lowers (the kernel writes the module-level `%ra1`). The symbol
/// operand's value is the symbol's address plus the constant: the ORI interpreter
/// stores (st+8) - st = 8 as a 64-bit word, so the first two words are 8 and 0.
#[test]
fn old_tool_syntax_is_kept() {
    use compiler_core::ptx;
    let text = "\nFatbin ptx code:\n================\narch = sm_52\ncompile_size = 64bit\n\n\
        .version 7.5\n.target sm_52\n.address_size 64\n\t.reg .u32 %ra<4>;\n\
        \t.visible .func (.param .s32 r) f (.param .s32 a)\n\n\
        .visible .entry k(.param .u64 p)\n{\n\t.local .align 8 .b8 st[32];\n\t.reg .b64 %rd<4>;\n\
        \tmov.u64 %rd1, st+8;\n\tmov.u64 %rd2, st;\n\tsub.s64 %rd3, %rd1, %rd2;\n\
        \tld.param.u64 %rd2, [p];\n\tst.global.u64 [%rd2], %rd3;\n\tmov.u32 %ra1, 7;\n\tret;\n}\n\0\0";
    let m = ptx::parse(text).unwrap();
    assert!(
        matches!(&m.items[0], ptx::Item::Directive(l) if l.len() == 4 && l[0] == "Fatbin ptx code:")
    );
    assert!(matches!(&m.items[1], ptx::Item::Reg(r) if r.names == [("%ra".to_string(), Some(4))]));
    assert!(matches!(&m.items[2], ptx::Item::Func(f) if f.name == "f" && f.body.is_none()));
    let printed = ptx::print(&m);
    assert_eq!(ptx::parse(&printed).unwrap(), m, "{printed}");
    assert!(printed.contains("st+8;"), "{printed}");
    let ori = lower(&printed);
    assert_eq!(first_two_words(&ori), [8, 0]);
    let printed_ori = compiler_core::ori::print::print(&ori);
    assert!(printed_ori.contains(".reg .u32 \t%ra<4>;"), "{printed_ori}");
    // A NUL before the end is refused with its position.
    let e = ptx::parse(".version 7.5\n.target sm_52\n\0.address_size 64\n").unwrap_err();
    assert_eq!((e.line, e.col), (3, 1), "{}", e.message);
    assert!(e.message.contains("NUL"), "{}", e.message);
    // Latin-1 in a `.file` string reads as that character.
    let mut bytes = b".version 7.5\n.target sm_52\n.file 1 \"C:/caf".to_vec();
    bytes.extend_from_slice(&[0xE9, b'.', b'c', b'u', b'"', b'\n']);
    let m = ptx::parse_bytes(&bytes).unwrap();
    assert!(ptx::print(&m).contains("C:/café.cu"));
}

/// Phase 37 promotes loads nvcc addresses through `%SPL` (`add.u64 %rd2, %SPL, 0`,
/// `[%rd3+4]` = `__local_depot0+12`): both loads read what the block stored at the same
/// array offset, so both become moves. Each thread stores 2·tid + 5 before and after
/// (thread 0: 5, thread 1: 7); the narration labels the address resolution as our
/// reading; the output assembles.
#[test]
fn phase_37_promotes_loads_through_the_frame_registers() {
    promotes_both_loads("spl_local.ptx");
}

/// The same through the generic frame pointer: `cvta.local.u64 %SP, %SPL`, an add of
/// 8, `cvta.to.local` back: the store `[%rd3+4]` is again `__local_depot0+12`.
#[test]
fn phase_37_follows_cvta_local_and_back() {
    promotes_both_loads("spl_cvta.ptx");
}

fn promotes_both_loads(file: &str) {
    let text = input(file);
    assert_eq!(first_two_words(&lower(&text)), [5, 7]);
    let r = run_ptx(file, &[]);
    let mid = r
        .stages
        .iter()
        .find(|s| s.stage == compiler_core::stages::Stage::GeneralOptimizeMid)
        .unwrap();
    assert_eq!(mid.stats.get("promoted_loads"), 2, "{}", r.output);
    assert_eq!(first_two_words(&lower(&r.output)), [5, 7], "{}", r.output);
    assert!(!r.output.contains("ld.local"), "{}", r.output);
    let n = narrations(&r);
    let promoted: Vec<_> = n
        .iter()
        .filter(|s| s.contains("becomes `mov.b32"))
        .collect();
    assert_eq!(promoted.len(), 2, "{n:#?}");
    assert!(promoted[1].contains("__local_depot0+12") && promoted[1].contains("our reading"));
    assemble_both(file, &r.output, "80");
}
