//! Each verifier rule, caught on a small function that breaks it, with the message
//! printed right under the line it concerns.

mod common;

use common::parse_one;
use compiler_core::mir::{print_with_errors, verify, Function, Rule, VerifyLevel};

fn func(body: &str) -> Function {
    func_with(body, "isSSA: true\nnoPhis: false\n")
}

fn func_with(body: &str, header: &str) -> Function {
    parse_one(&format!(
        "---\nname: f\ntracksRegLiveness: true\n{header}body: |\n{body}...\n"
    ))
}

/// `(line the message sits under, message)` for every error line of the printed text;
/// the line is trimmed, `(body)` for messages above the first block.
fn placed(printed: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut above = String::from("(body)");
    for l in printed.lines() {
        let t = l.trim();
        if let Some(m) = t
            .strip_prefix("; ^ error: ")
            .or(t.strip_prefix("; error: "))
        {
            out.push((above.clone(), m.to_string()));
        } else if !t.is_empty() && !t.starts_with("body:") && l.starts_with("  ") {
            above = t.to_string();
        }
    }
    out
}

/// Verifies at `level` and checks the errors are exactly `expected`: each
/// `(rule, fragment of the line it is printed under, fragment of the message)`.
#[track_caller]
fn expect(f: &Function, level: VerifyLevel, expected: &[(Rule, &str, &str)]) {
    let errs = verify(f, level);
    let printed = print_with_errors(f, &errs);
    let got = placed(&printed);
    let ctx = || format!("\n--- printed ---\n{printed}");
    assert_eq!(errs.len(), expected.len(), "{errs:#?}{}", ctx());
    assert_eq!(got.len(), errs.len(), "every error printed once{}", ctx());
    for (k, &(rule, line, msg)) in expected.iter().enumerate() {
        assert_eq!(errs[k].rule, rule, "error {k}{}", ctx());
        assert!(
            got[k].0.contains(line),
            "error {k} should sit under `{line}`{}",
            ctx()
        );
        assert!(
            got[k].1.contains(msg),
            "error {k} should say `{msg}`{}",
            ctx()
        );
    }
    // The annotated text is still MIR (when the function itself prints as valid MIR).
    if compiler_core::mir::parse_module(&compiler_core::mir::print_function(f)).is_ok() {
        compiler_core::mir::parse_module(&printed).expect("annotated output parses");
    }
}

const LOOP: &str = "  bb.0:
    successors: %bb.1

    %0:b32 = MOV_B32_i 0
    %9:b1 = MOV_B1_i -1
    GOTO %bb.1

  bb.1:
    successors: %bb.1, %bb.2

    %1:b32 = PHI %0, %bb.0, %2, %bb.1
    %2:b32 = ADD32ri %1, 1
    CBranch %9, %bb.1
    GOTO %bb.2

  bb.2:
    Return
";

#[test]
fn a_well_formed_loop_passes() {
    expect(&func(LOOP), VerifyLevel::Ssa, &[]);
}

#[test]
fn reading_a_register_nothing_defines() {
    let body = "  bb.0:\n    %1:b32 = ADD32ri %0:b32, 1\n    Return\n";
    for (f, level) in [
        (func(body), VerifyLevel::Ssa),
        (
            func_with(body, "isSSA: false\nnoPhis: true\n"),
            VerifyLevel::PostCoalesce,
        ),
    ] {
        expect(
            &f,
            level,
            &[(
                Rule::UndefinedVReg,
                "ADD32ri",
                "%0 is used but never defined",
            )],
        );
    }
    // An `undef` read needs no def.
    let f = func("  bb.0:\n    %1:b32 = ADD32ri undef %0:b32, 1\n    Return\n");
    expect(&f, VerifyLevel::Ssa, &[]);
}

#[test]
fn ssa_one_def_per_register() {
    let f = func("  bb.0:\n    %0:b32 = MOV_B32_i 0\n    %0:b32 = MOV_B32_i 1\n    Return\n");
    expect(
        &f,
        VerifyLevel::Ssa,
        &[(
            Rule::MultipleDefs,
            "MOV_B32_i 1",
            "%0 is defined again (first defined in bb.0)",
        )],
    );
    // After PHI elimination two defs are fine.
    let f = func_with(
        "  bb.0:\n    %0:b32 = MOV_B32_i 0\n    %0:b32 = MOV_B32_i 1\n    Return\n",
        "isSSA: false\nnoPhis: true\n",
    );
    expect(&f, VerifyLevel::PostPhiElim, &[]);
}

#[test]
fn ssa_defs_dominate_uses() {
    let f = func(
        "  bb.0:
    successors: %bb.1, %bb.2

    %9:b1 = MOV_B1_i -1
    CBranch %9, %bb.2
    GOTO %bb.1

  bb.1:
    successors: %bb.2

    %0:b32 = MOV_B32_i 0
    %1:b32 = ADD32ri %2, 1
    %2:b32 = MOV_B32_i 0

  bb.2:
    %3:b32 = ADD32ri %0, 1
    Return
",
    );
    expect(
        &f,
        VerifyLevel::Ssa,
        &[
            (
                Rule::Dominance,
                "%1:b32 = ADD32ri %2",
                "%2 is used before its def later in bb.1",
            ),
            (
                Rule::Dominance,
                "%3:b32 = ADD32ri %0",
                "its def in bb.1 does not dominate bb.2",
            ),
        ],
    );
}

#[test]
fn ssa_phi_values_come_from_their_predecessor() {
    // %5 is defined in bb.1 but flows into the PHI from bb.0.
    let body = LOOP
        .replace("%1:b32 = PHI %0, %bb.0", "%1:b32 = PHI %5, %bb.0")
        .replace(
            "%2:b32 = ADD32ri %1, 1",
            "%2:b32 = ADD32ri %1, 1\n    %5:b32 = MOV_B32_i 7",
        );
    expect(
        &func(&body),
        VerifyLevel::Ssa,
        &[(
            Rule::Dominance,
            "PHI %5",
            "%5 flows in from bb.0, but its def in bb.1 does not dominate the end of bb.0",
        )],
    );
}

#[test]
fn phis_only_at_block_start() {
    let body = LOOP.replace(
        "    %1:b32 = PHI",
        "    %7:b32 = MOV_B32_i 3\n    %1:b32 = PHI",
    );
    expect(
        &func(&body),
        VerifyLevel::Ssa,
        &[(
            Rule::PhiPlacement,
            "PHI",
            "PHI after the non-PHI `MOV_B32_i`",
        )],
    );
}

#[test]
fn phi_incoming_blocks_are_the_predecessors() {
    let body = LOOP.replace("PHI %0, %bb.0, %2, %bb.1", "PHI %0, %bb.2, %2, %bb.1");
    expect(
        &func(&body),
        VerifyLevel::Ssa,
        &[
            (
                Rule::PhiOperands,
                "PHI",
                "bb.2 is not a predecessor of bb.1",
            ),
            (
                Rule::PhiOperands,
                "PHI",
                "no incoming value for predecessor bb.0",
            ),
        ],
    );
    let body = LOOP.replace("PHI %0, %bb.0, %2, %bb.1", "PHI %0, %bb.0, %2");
    expect(
        &func(&body),
        VerifyLevel::Ssa,
        &[(Rule::PhiOperands, "PHI", "(value, %bb.N) pairs")],
    );
}

#[test]
fn properties_match_the_level() {
    let f = func_with("  bb.0:\n    Return\n", "isSSA: false\nnoPhis: false\n");
    expect(
        &f,
        VerifyLevel::Ssa,
        &[(Rule::Properties, "(body)", "isSSA is false")],
    );
    expect(
        &f,
        VerifyLevel::PostPhiElim,
        &[(
            Rule::Properties,
            "(body)",
            "noPhis is false after PHI elimination",
        )],
    );
    let f = func_with(LOOP, "isSSA: true\nnoPhis: true\n");
    expect(
        &f,
        VerifyLevel::Ssa,
        &[(Rule::Properties, "PHI", "noPhis property is true")],
    );
}

#[test]
fn no_phis_after_phi_elimination() {
    let f = func_with(LOOP, "isSSA: false\nnoPhis: true\n");
    expect(
        &f,
        VerifyLevel::PostPhiElim,
        &[(
            Rule::PhiAfterElimination,
            "PHI",
            "PHI left after PHI elimination",
        )],
    );
}

#[test]
fn no_read_before_def_after_phi_elimination() {
    let f = func_with(
        "  bb.0:
    successors: %bb.1, %bb.2

    %9:b1 = MOV_B1_i -1
    CBranch %9, %bb.2
    GOTO %bb.1

  bb.1:
    successors: %bb.2

    %0:b32 = MOV_B32_i 0

  bb.2:
    %1:b32 = ADD32ri %0, 1
    Return
",
        "isSSA: false\nnoPhis: true\n",
    );
    expect(
        &f,
        VerifyLevel::PostPhiElim,
        &[(
            Rule::ReadBeforeDef,
            "ADD32ri %0",
            "%0 is read here, but some path from the entry reaches this read before any def",
        )],
    );
}

/// Tuples, lane by lane: a `%t.subK` read needs lane K written; a whole-register read
/// needs some lane written (an `undef` lane may ride along, as REG_SEQUENCE allows).
#[test]
fn tuple_lanes_read_before_def() {
    let f = func_with(
        "  bb.0:
    %0:b32 = MOV_B32_i 0
    undef %1.sub0:b32x4 = COPY %0
    %1.sub1:b32x4 = COPY %0
    %2:b32x4 = COPY %1
    %3:b32 = COPY %1.sub1
    %4:b32 = COPY %1.sub3
    %5:b32x2 = COPY %6:b32x2
    %6:b32x2 = IMPLICIT_DEF
    Return
",
        "isSSA: false\nnoPhis: true\n",
    );
    expect(
        &f,
        VerifyLevel::PostTwoAddress,
        &[
            (
                Rule::ReadBeforeDef,
                "COPY %1.sub3",
                "lane sub3 of %1 is read here",
            ),
            (Rule::ReadBeforeDef, "COPY %6", "%6 is read here"),
        ],
    );
}

#[test]
fn tied_uses_name_their_def_after_two_address() {
    let f = func_with(
        "  bb.0:\n    %0:b32 = MOV_B32_i 0\n    %1:b32 = ADD32ri %0(tied-def 0), 1\n    Return\n",
        "isSSA: false\nnoPhis: true\n",
    );
    // Before two-address a tie between different registers is the pass's input.
    expect(&f, VerifyLevel::PostPhiElim, &[]);
    expect(
        &f,
        VerifyLevel::PostTwoAddress,
        &[(
            Rule::TiedMismatch,
            "ADD32ri",
            "operand 1 (%0) is tied to def operand 0 (%1)",
        )],
    );
}

#[test]
fn subregister_pseudos_are_gone_after_two_address() {
    let f = func_with(
        "  bb.0:
    %0:b32 = MOV_B32_i 0
    %1:b32 = MOV_B32_i 1
    %2:b32x2 = REG_SEQUENCE %0, %subreg.sub0, %1, %subreg.sub1
    %3:b32 = EXTRACT_SUBREG %2.sub1
    Return
",
        "isSSA: false\nnoPhis: true\n",
    );
    expect(&f, VerifyLevel::PostPhiElim, &[]);
    expect(
        &f,
        VerifyLevel::PostTwoAddress,
        &[
            (
                Rule::SubregPseudo,
                "REG_SEQUENCE",
                "REG_SEQUENCE left after the two-address pass",
            ),
            (Rule::SubregPseudo, "EXTRACT_SUBREG", "EXTRACT_SUBREG left"),
        ],
    );
}

#[test]
fn identity_copies_are_gone_after_coalescing() {
    let f = func_with(
        "  bb.0:\n    %0:b32 = MOV_B32_i 0\n    %0:b32 = COPY %0\n    Return\n",
        "isSSA: false\nnoPhis: true\n",
    );
    expect(&f, VerifyLevel::PostTwoAddress, &[]);
    expect(
        &f,
        VerifyLevel::PostCoalesce,
        &[(Rule::IdentityCopy, "COPY %0", "identity COPY")],
    );
}

#[test]
fn subregister_indexes_fit_the_class() {
    let f = func(
        "  bb.0:
    %0:b32 = MOV_B32_i 0
    %1:b32 = COPY %0.sub1
    %2:b32x4 = IMPLICIT_DEF
    %3:b32 = COPY %2.sub4
    %4:b32 = COPY %2.sub_32bit
    %5:b32 = COPY %2.sub3
    Return
",
    );
    expect(
        &f,
        VerifyLevel::Ssa,
        &[
            (
                Rule::SubRegIndex,
                "%0.sub1",
                "%0 is the scalar class b32; NVPTX registers have no sub-registers",
            ),
            (
                Rule::SubRegIndex,
                "%2.sub4",
                "%2 is b32x4, whose lanes are sub0..sub3",
            ),
            (
                Rule::SubRegIndex,
                "sub_32bit",
                "`sub_32bit` is not an NVPTX lane",
            ),
        ],
    );
}

#[test]
fn copies_keep_the_width() {
    let f = func(
        "  bb.0:
    %0:b32 = MOV_B32_i 0
    %1:b64 = COPY %0
    %2:b32x4 = IMPLICIT_DEF
    %3:b32x2 = COPY %2
    %4:float32regs = COPY %2.sub2
    %5:b32x2 = REG_SEQUENCE %0, %subreg.sub0, %1, %subreg.sub1
    Return
",
    );
    expect(
        &f,
        VerifyLevel::Ssa,
        &[
            (
                Rule::ClassMismatch,
                "%1:b64 = COPY %0",
                "COPY from %0 (b32) to %1 (b64): the registers differ in width (64-bit vs 32-bit)",
            ),
            (Rule::ClassMismatch, "%3:b32x2 = COPY %2", "(2 lanes vs 4)"),
            (
                Rule::ClassMismatch,
                "REG_SEQUENCE",
                "REG_SEQUENCE from %1 (b64) to %5.sub1",
            ),
        ],
    );
}

#[test]
fn foreign_classes_are_opaque() {
    let text = "--- |\n  target triple = \"x86_64-unknown-linux-gnu\"\n...\n---\nname: f\nbody: |\n  bb.0:\n    %0:gr32 = MOV32ri 0\n    %1:gr64 = COPY %0.sub_32bit\n    RET 0\n...\n";
    let m = compiler_core::mir::parse_module(text).unwrap();
    expect(&m.functions[0], VerifyLevel::Ssa, &[]);
}

#[test]
fn registers_have_classes() {
    let f = func("  bb.0:\n    %0 = MOV_B32_i 0\n    %1:b32 = ADD32ri %0, 1\n    Return\n");
    expect(
        &f,
        VerifyLevel::Ssa,
        &[(Rule::MissingClass, "MOV_B32_i", "%0 has no register class")],
    );
}

#[test]
fn successors_match_branches_and_fall_through() {
    let f = func(
        "  bb.0:
    successors: %bb.1

    GOTO %bb.2

  bb.1:
    successors: %bb.2, %bb.0

    %0:b32 = MOV_B32_i 0

  bb.2:
    %1:b32 = MOV_B32_i 0
",
    );
    expect(
        &f,
        VerifyLevel::Ssa,
        &[
            (
                Rule::Successors,
                "successors: %bb.1",
                "bb.1 is listed as a successor of bb.0, but no branch goes there",
            ),
            (
                Rule::Successors,
                "GOTO %bb.2",
                "branch to bb.2, which is not in the successor list of bb.0",
            ),
            (
                Rule::Successors,
                "successors: %bb.2, %bb.0",
                "bb.0 is listed as a successor of bb.1",
            ),
            (
                Rule::Successors,
                "%1:b32 = MOV_B32_i 0",
                "control falls off the end of the function",
            ),
        ],
    );
}

#[test]
fn terminators_end_their_block() {
    let f = func("  bb.0:\n    Return\n    %0:b32 = MOV_B32_i 0\n");
    expect(
        &f,
        VerifyLevel::Ssa,
        &[
            (
                Rule::TerminatorNotAtEnd,
                "MOV_B32_i",
                "follows the terminator `Return`",
            ),
            (Rule::Successors, "MOV_B32_i", "falls off the end"),
        ],
    );
}

/// `InstData::tie_free` lets two-address pass an instruction by without reading its
/// operands; an edit that ties an operand of a marked instruction and leaves the mark
/// would make the pass skip a tie, so the verifier reports it.
#[test]
fn no_tie_on_an_instruction_marked_tie_free() {
    let mut f = func(
        "  bb.0:
    %0:b32 = MOV_B32_i 0
    %1:b32 = ADD32ri %0, 1
    INLINEASM &\"x\", 0, 262154, def %2:b32, 2147483657, %0(tied-def 3)
    Return
",
    );
    let insts: Vec<_> = f
        .layout
        .block_insts(f.layout.entry_block().unwrap())
        .collect();
    let (add, asm) = (insts[1], insts[2]);
    assert!(
        f.insts[add].tie_free,
        "the parser marks an instruction with no tie"
    );
    assert!(!f.insts[asm].tie_free, "nor one with a tie");
    expect(&f, VerifyLevel::Ssa, &[]);
    // A buggy pass ties the ADD's register use to its def and keeps the mark.
    f.insts[add].operands[1].tied_def = Some(0);
    expect(
        &f,
        VerifyLevel::Ssa,
        &[(
            Rule::TiedIndex,
            "ADD32ri",
            "operand 1 is `tied-def 0`, but the instruction is marked tie-free",
        )],
    );
    f.insts[add].tie_free = false;
    expect(&f, VerifyLevel::Ssa, &[]);
}

#[test]
fn tied_indexes_name_a_def() {
    let mut f = func(
        "  bb.0:
    %0:b32 = MOV_B32_i 0
    INLINEASM &\"x\", 0, 262154, def %1:b32, 262154, def %2:b32, 2147483657, %0(tied-def 3), 2147483657, %0(tied-def 3)
    Return
",
    );
    let asm = f
        .layout
        .block_insts(f.layout.entry_block().unwrap())
        .nth(1)
        .unwrap();
    expect(
        &f,
        VerifyLevel::Ssa,
        &[(
            Rule::TiedIndex,
            "INLINEASM",
            "def operand 3 is tied to more than one use",
        )],
    );
    // Indexes the parser would refuse, made by a buggy pass.
    f.insts[asm].operands[7].tied_def = Some(40);
    f.insts[asm].operands[9].tied_def = Some(2);
    f.insts[asm].operands[3].tied_def = Some(5);
    expect(
        &f,
        VerifyLevel::Ssa,
        &[
            (
                Rule::TiedIndex,
                "INLINEASM",
                "operand 3 is a def but carries `tied-def 5`",
            ),
            (
                Rule::TiedIndex,
                "INLINEASM",
                "operand 7 is `tied-def 40`, but the instruction has 10 operands",
            ),
            (
                Rule::TiedIndex,
                "INLINEASM",
                "operand 9 is `tied-def 2`, but operand 2 is not a register def",
            ),
        ],
    );
}

#[test]
fn def_counts_follow_the_opcode_table() {
    let f = func("  bb.0:\n    %0:b32, %1:b32 = MOV_B32_i 0\n    Return\n");
    expect(
        &f,
        VerifyLevel::Ssa,
        &[(
            Rule::DefCount,
            "MOV_B32_i",
            "MOV_B32_i has 2 explicit defs; the opcode table says 1",
        )],
    );
}

#[test]
fn pseudo_operand_shapes() {
    let f = func(
        "  bb.0:
    %0:b32 = MOV_B32_i 0
    %1:b32 = COPY %0, %0
    %2:b32x2 = REG_SEQUENCE %0, %subreg.sub0, %0
    Return
",
    );
    expect(
        &f,
        VerifyLevel::Ssa,
        &[
            (
                Rule::OperandShape,
                "COPY",
                "COPY takes one register to copy; it has 2 source operands",
            ),
            (
                Rule::OperandShape,
                "REG_SEQUENCE",
                "pairs of (register, %subreg.index)",
            ),
        ],
    );
}

#[test]
fn every_error_is_reported_not_just_the_first() {
    let f = func(
        "  bb.0:
    %1:b32 = ADD32ri %0:b32, 1
    %1:b32 = MOV_B32_i 0
    %2:b64 = COPY %1
    Return
",
    );
    // Errors come in printed order: by block, then instruction.
    let errs = verify(&f, VerifyLevel::Ssa);
    let rules: Vec<Rule> = errs.iter().map(|e| e.rule).collect();
    assert_eq!(
        rules,
        [Rule::UndefinedVReg, Rule::MultipleDefs, Rule::ClassMismatch],
        "{errs:#?}"
    );
    // For the command line: where, what, why.
    assert_eq!(
        compiler_core::mir::describe_errors(&f, &errs)[0],
        "bb.0: `%1:b32 = ADD32ri %0:b32, 1`: %0 is used but never defined"
    );
    assert_eq!(
        errs[0].describe(&f),
        "bb.0: `%1:b32 = ADD32ri %0:b32, 1`: %0 is used but never defined"
    );
    assert_eq!(
        errs[0].to_string(),
        "%0 is used but never defined [undefined_vreg]"
    );
    let printed = print_with_errors(&f, &errs);
    assert!(printed.contains(
        "    %1:b32 = ADD32ri %0:b32, 1\n    ; ^ error: %0 is used but never defined\n    %1:b32 = MOV_B32_i 0\n    ; ^ error: %1 is defined again"
    ), "{printed}");
}

/// Kill flags, as llc-22's verifier sees this function (`-run-pass=none
/// -verify-machineinstrs`, with `%3 = ADD32ri killed %2, 1` in place of the line
/// llc-22 needs as ri): "Using a killed virtual register" on the read of `%2` after
/// its kill, and "Virtual register killed in block, but needed live out" for `%1`.
/// `killed %1, %1` in one instruction, and a kill followed by a new def, are fine.
#[test]
fn kill_flags_follow_llvms_machine_verifier() {
    let f = func_with(
        "  bb.0:
    successors: %bb.1

    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_1, 0
    %2:b32 = ADD32rr killed %1, %1
    %3:b32 = ADD32ri killed %2, 1
    %3:b32 = ADD32rr %3, killed %2
    %1:b32 = ADD32ri killed %3, 1
    %4:b32 = ADD32ri killed %1, 2

  bb.1:
    ST_i32 %1, 0, 0, 1, 32, %0, 0
    ST_i32 killed %4, 0, 0, 1, 32, killed %0, 4
    Return
",
        "isSSA: false\nnoPhis: true\n",
    );
    for level in [VerifyLevel::PostPhiElim, VerifyLevel::PostCoalesce] {
        expect(
            &f,
            level,
            &[
                (
                    Rule::KillFlag,
                    "%3:b32 = ADD32rr %3, killed %2",
                    "%2 is read here, but `ADD32ri` earlier in bb.0 reads it `killed`",
                ),
                (
                    Rule::KillFlag,
                    "%4:b32 = ADD32ri killed %1, 2",
                    "%1 is read `killed` here, but it is live out of bb.0 (bb.1 needs it)",
                ),
            ],
        );
    }
}

/// The NVPTX coalescer's old output for ll_phi_loop (`--only nvptx-coalescer`):
/// `%1 = COPY killed %0` in the preheader although the loop reads `%0`; llc-22: "Virtual
/// register killed in block, but needed live out" for %bb.1 (`%0`). A loop-carried
/// kill (`ADD32ri killed %0` with `%0` redefined by it) is fine.
#[test]
fn a_kill_before_a_loop_that_reads_the_register_is_reported() {
    let f = func_with(
        "  bb.0.entry:
    successors: %bb.1

    %6:b32 = LD_i32 0, 0, 101, 3, 32, -1, &phi_loop_param_1, 0
    %5:b64 = LD_i64 0, 0, 101, 3, 64, -1, &phi_loop_param_0, 0

  bb.1.loop.preheader:
    successors: %bb.2

    %0:b32 = MOV_B32_i 0
    %1:b32 = COPY killed %0

  bb.2.loop:
    successors: %bb.2, %bb.3

    %1:b32 = ADD32rr killed %1, %0
    %0:b32 = nuw nsw ADD32ri killed %0, 1
    %10:b1 = SETP_i32rr %0, %6, 2
    %4:b32 = COPY killed %1
    CBranch killed %10, %bb.2
    GOTO %bb.3

  bb.3.exit:
    ST_i32 killed %4, 0, 0, 1, 32, killed %5, 0
    Return
",
        "isSSA: false\nnoPhis: true\n",
    );
    expect(
        &f,
        VerifyLevel::PostCoalesce,
        &[
            (
                Rule::KillFlag,
                "%1:b32 = COPY killed %0",
                "%0 is read `killed` here, but it is live out of bb.1 (bb.2 needs it)",
            ),
            (
                Rule::KillFlag,
                "%4:b32 = COPY killed %1",
                "%1 is read `killed` here, but it is live out of bb.2 (bb.2 needs it)",
            ),
        ],
    );
}

/// Two registers read `killed` by one instruction and both live out: the errors come in
/// register order (%1 before %2), whichever operand comes first and whatever the order
/// the kills were met in.
#[test]
fn kills_live_out_at_one_instruction_are_reported_in_register_order() {
    let f = func_with(
        "  bb.0:
    successors: %bb.1

    %2:b32 = MOV_B32_i 2
    %1:b32 = MOV_B32_i 1
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %3:b32 = ADD32rr killed %2, killed %1

  bb.1:
    ST_i32 %2, 0, 0, 1, 32, %0, 0
    ST_i32 %1, 0, 0, 1, 32, %0, 4
    ST_i32 killed %3, 0, 0, 1, 32, killed %0, 8
    Return
",
        "isSSA: false\nnoPhis: true\n",
    );
    let at = "%3:b32 = ADD32rr killed %2, killed %1";
    expect(
        &f,
        VerifyLevel::PostCoalesce,
        &[
            (
                Rule::KillFlag,
                at,
                "%1 is read `killed` here, but it is live out of bb.0 (bb.1 needs it)",
            ),
            (
                Rule::KillFlag,
                at,
                "%2 is read `killed` here, but it is live out of bb.0 (bb.1 needs it)",
            ),
        ],
    );
}

/// Live-in lists: the function's live-ins are the entry block's; a later block's
/// live-in must be live out of each predecessor (listed there or defined there).
#[test]
fn live_in_lists_are_consistent() {
    let f = func_with(
        "  bb.0:
    successors: %bb.1
    liveins: $VRFrame

    %0:b32 = MOV_B32_i 0
    GOTO %bb.1

  bb.1:
    liveins: $VRFrame, $VRDepot

    Return
",
        "isSSA: true\nnoPhis: false\nliveins:\n  - { reg: '$VRFrame' }\n  - { reg: '$VRDepot' }\n",
    );
    expect(
        &f,
        VerifyLevel::Ssa,
        &[
            (
                Rule::LiveIns,
                "liveins: $VRFrame",
                "$VRDepot is a live-in of the function, but the entry block does not list it",
            ),
            (
                Rule::LiveIns,
                "liveins: $VRFrame, $VRDepot",
                "$VRDepot is listed live-in, but bb.0 neither lists it live-in nor defines it",
            ),
        ],
    );
}
