//! The DAG text format: malformed inputs give line:column errors that say what is
//! wrong, and no input makes the parser or the emitter panic (mutants of the gallery
//! that still parse and run must also compute the same after emission).

#[path = "emitter_support/mod.rs"]
mod support;

use compiler_core::dag::{parse_dag, print_dag};
use compiler_core::dag_eval::{self as eval, Inputs};
use compiler_core::mir::print_function;
use compiler_core::passes::instr_emitter::{self, EmitterOptions};
use compiler_core::trace::NoTrace;
use std::path::Path;

const HEAD: &str = "Selected selection DAG: %bb.0 'f:entry'\n  t0: ch,glue = EntryToken\n";

/// Parses `body` after a standard header and returns "line:col: message".
fn error(body: &str) -> String {
    let text = format!("{HEAD}{body}");
    match parse_dag(&text) {
        Ok(d) => panic!("expected an error, parsed:\n{}", print_dag(&d)),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_cycle_is_reported_with_its_path() {
    let e = error("  t1: i32 = ADD32rr t2, t2\n  t2: i32 = ADD32rr t1, t1\n");
    assert!(e.starts_with("4:21: cycle: t1 → t2 → t1"), "{e}");
}

#[test]
fn an_undefined_node_is_reported_where_it_is_named() {
    let e = error("  t1: i32 = ADD32rr t0, t9\n");
    assert_eq!(e, "3:25: t9 is not defined anywhere in this DAG");
}

#[test]
fn a_result_index_out_of_range_lists_the_results() {
    let e =
        error("  t1: i32,ch = CopyFromReg t0, Register:i32 $r1\n  t2: i32 = ADD32rr t1:2, t1\n");
    assert_eq!(
        e,
        "4:21: t1 has 2 results (i32, ch); result 2 does not exist"
    );
}

#[test]
fn a_type_mismatch_names_both_types() {
    let e = error(
        "  t1: f32,ch = CopyFromReg t0, Register:f32 $r2\n  t2: ch = CopyToReg t0, Register:i32 %5, t1\n",
    );
    assert_eq!(
        e,
        "4:43: type mismatch: Register:i32 receives t1 of type f32"
    );
    let e = error("  t1: ch = TokenFactor t0, t0:1\n");
    assert_eq!(
        e,
        "3:28: type mismatch: TokenFactor joins chains (`ch` results) only"
    );
    let e = error("  t1: i32 = CopyFromReg t0, Register:i32 $r1\n");
    assert!(e.starts_with("3:3: type mismatch: CopyFromReg"), "{e}");
    let e = error(
        "  t1: f32,ch = CopyFromReg t0, Register:f32 $r2\n  t2: ch,glue = INLINEASM t0, \"mov.b64 $0, $1;\", \"=l\", Register:i64 %3, \"l\", t1\n",
    );
    assert!(
        e.contains("type mismatch: constraint \"l\" is a 64-bit register, the operand is f32"),
        "{e}"
    );
}

#[test]
fn glue_to_a_node_in_another_block_is_refused() {
    let text = format!(
        "{HEAD}  t1: i32,glue = MOV_B32_i Constant:i32<1>\n\nSelected selection DAG: %bb.1 'f:next'\n  t2: ch,glue = EntryToken\n  t3: i32 = MOV_B32_i Constant:i32<2>, t1:1\n"
    );
    let e = parse_dag(&text).unwrap_err().to_string();
    assert!(e.starts_with("7:40: "), "{e}");
    assert!(e.contains("glue to a node in another block"), "{e}");
    let text = text.replace("MOV_B32_i Constant:i32<2>, t1:1", "ADD32rr t1, t1");
    let e = parse_dag(&text).unwrap_err().to_string();
    assert!(
        e.contains("values cross blocks only through CopyToReg/CopyFromReg"),
        "{e}"
    );
}

#[test]
fn schedule_and_glue_rules() {
    // A producer must come first in line order.
    let e = error("  t2: i32 = ADD32rr t1, t1\n  t1: i32 = MOV_B32_i Constant:i32<1>\n");
    assert!(
        e.starts_with("3:21: t2 uses t1, which is scheduled later"),
        "{e}"
    );
    // Glue is the last operand and has one user.
    let e = error("  t1: i32,glue = MOV_B32_i Constant:i32<1>\n  t2: i32 = ADD32rr t1:1, t1\n");
    assert!(
        e.starts_with("4:21: glue operand t1:1 must be the last operand"),
        "{e}"
    );
    let e = error(
        "  t1: i32,glue = MOV_B32_i Constant:i32<1>\n  t2: i32 = ADD32rr t1, t1, t1:1\n  t3: i32 = ADD32rr t1, t1, t1:1\n",
    );
    assert!(e.contains("the glue of t1 is already used by t2"), "{e}");
    // A bundle is emitted at its last node: readers come after it.
    let e = error(
        "  t1: i32,glue = MOV_B32_i Constant:i32<1>\n  t2: i32 = ADD32rr t1, t1\n  t3: i32 = ADD32rr t1, t1, t1:1\n",
    );
    assert!(
        e.contains("which is glued into the bundle ending at t3"),
        "{e}"
    );
}

#[test]
fn lexical_and_naming_errors() {
    for (body, want) in [
        ("  t1: i32 = FROB t0\n", "3:13: unknown opcode `FROB`"),
        (
            "  t1: i33 = MOV_B32_i Constant:i32<1>\n",
            "3:7: expected a value type",
        ),
        (
            "  t0: ch = EntryToken\n",
            "3:3: t0 is defined twice (first on line 2)",
        ),
        (
            "  t1: i32,ch = CopyFromReg t0, Register:i32 $r0\n",
            "3:45: `$r0`: the parameter registers are $r1..$r255",
        ),
        (
            "  t1: i32,ch = CopyFromReg t0, Register:i32 $r256\n",
            "3:45: `$r256`",
        ),
        (
            "  t1: i32 = MOV_B32_i Constant:i32<99999999999999999999>\n",
            "does not fit in 64 bits",
        ),
        (
            "  t1: ch = EH_LABEL t0, \"open\n",
            "3:25: unterminated string",
        ),
        (
            "  t1: i32 = MOV_B32_i Constant:i32<1> [shiny]\n",
            "3:40: unknown attribute `shiny`",
        ),
        (
            "  t1: i32 = MOV_B32_i Constant:i32<1> [divergent, divergent]\n",
            "attribute `divergent` given twice",
        ),
        (
            "  t1: untyped,ch = CopyFromReg t0, Register:untyped %4\n",
            "an untyped register needs its class",
        ),
        (
            "  t1: i32,ch = CopyFromReg t0, Register:i32 %4:float64regs\n",
            "type mismatch: %4 is a i32",
        ),
        (
            "  t1: ch,glue = INLINEASM t0, \"nop;\", \"=q\", Register:i32 %3\n",
            "unknown constraint \"=q\"",
        ),
        (
            "  t1: ch,glue = INLINEASM t0, \"nop;\", \"0\", Register:i32 %3\n",
            "ties to asm operand $0, which is not an output",
        ),
        (
            "  t1: ch = LIFETIME_START t0, Constant:i32<1>\n",
            "LIFETIME_START takes `chain, FrameIndex:N`",
        ),
        (
            "  t1: i32 = MOV_B32_i Constant:i32<1> extra\n",
            "unexpected `extra` at the end of the line",
        ),
    ] {
        let e = error(body);
        assert!(e.contains(want), "{body:?}: got {e}");
        assert!(
            e.split(':').take(2).all(|p| p.parse::<u32>().is_ok()),
            "{e}"
        );
    }
    for (text, want) in [
        (
            "  t0: ch = EntryToken\n",
            "1:3: a node line before any block header",
        ),
        ("", "expected at least one block header"),
        (
            "Selected selection DAG: %bb.0 'f:entry'\nSelected selection DAG: %bb.0 'f:b'\n",
            "2:1: %bb.0 appears twice",
        ),
        (
            "Selected selection DAG: %bb.0 'f:entry'\nSelected selection DAG: %bb.1 'g:b'\n",
            "2:1: this block belongs to function `g`",
        ),
        ("hello\n", "1:1: expected a block header"),
    ] {
        let e = parse_dag(text).unwrap_err().to_string();
        assert!(e.contains(want), "{text:?}: got {e}");
    }
}

#[test]
fn emission_errors_point_at_the_node() {
    // Too many results is a parse error now (see `machine_nodes_are_checked_...`).
    let text = format!("{HEAD}  t1: ch = GOTO BasicBlock:bb.7\n");
    let dag = parse_dag(&text).unwrap();
    let e = instr_emitter::run(&dag, &EmitterOptions::default(), &mut NoTrace::default())
        .unwrap_err()
        .to_string();
    assert_eq!(e, "3:17: branch to %bb.7, but the DAG has no such block");
}

/// A tiny deterministic generator, so the mutation test needs no dependency.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

#[test]
fn mutated_gallery_files_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("gallery");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dag"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 5);
    let pieces = [
        "t0",
        "t1:1",
        ":",
        ",",
        " ",
        "glue",
        "ch",
        "\"",
        "[",
        "]",
        "Register:i32 %1",
        "$r1",
        "%",
        "<",
        ">",
        "=",
        "-",
        "untyped",
        "Constant:i32<7>",
        "\n",
        "t9999",
    ];
    let mut rng = Lcg(7);
    let (mut parsed, mut emitted, mut compared) = (0, 0, 0);
    let mut inputs = Inputs::default();
    for k in 1..=60u32 {
        inputs.param_regs.insert(k, 0x1000 + 8 * k as u64);
    }
    for k in 0..4 {
        for f in [
            "tex_v4f32",
            "wmma_f16",
            "wgmma_f32",
            "tma_load",
            "asm_tied",
            "tex_glue_bundle",
        ] {
            inputs
                .params
                .insert(format!("{f}_param_{k}"), 0x2000 + 16 * k as u64);
        }
    }
    for f in &files {
        let base = std::fs::read_to_string(f).unwrap();
        for _ in 0..150 {
            let mut s: Vec<char> = base.chars().collect();
            for _ in 0..1 + rng.next(3) {
                if s.is_empty() {
                    break;
                }
                let at = rng.next(s.len());
                match rng.next(4) {
                    0 => {
                        s.remove(at);
                    }
                    1 => {
                        let p = pieces[rng.next(pieces.len())];
                        for (k, c) in p.chars().enumerate() {
                            s.insert(at + k, c);
                        }
                    }
                    2 => s.truncate(at),
                    _ => {
                        let lines: Vec<String> = s
                            .iter()
                            .collect::<String>()
                            .lines()
                            .map(String::from)
                            .collect();
                        let (a, b) = (rng.next(lines.len()), rng.next(lines.len()));
                        let mut l = lines.clone();
                        l.swap(a, b);
                        s = l.join("\n").chars().collect();
                    }
                }
            }
            let text: String = s.into_iter().collect();
            if let Ok(d) = parse_dag(&text) {
                parsed += 1;
                assert_eq!(parse_dag(&print_dag(&d)).unwrap(), d);
                let Ok((f, _)) =
                    instr_emitter::run(&d, &EmitterOptions::default(), &mut NoTrace::default())
                else {
                    continue;
                };
                emitted += 1;
                // Where the mutant still runs, its emitted MIR must store what it stores.
                // Same opcode models on both sides (see `emitter_support`).
                if let Ok(want) = eval::run(&d, &inputs) {
                    compared += 1;
                    let got = support::mir_eval::run(&f, &inputs).unwrap_or_else(|e| {
                        panic!("{e}\n{}\n{}", print_dag(&d), print_function(&f))
                    });
                    assert_eq!(got, want, "\n{}\n{}", print_dag(&d), print_function(&f));
                }
            }
        }
    }
    assert!(
        parsed > 0 && emitted > 0 && compared > 0,
        "parsed {parsed}, emitted {emitted}, compared {compared}"
    );
}

#[test]
fn the_example_in_docs_formats_parses_and_emits() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/formats.md"))
            .unwrap();
    let dag_section = doc.split("## DAG").nth(1).unwrap();
    let example = dag_section
        .split("### Example")
        .nth(1)
        .and_then(|s| s.split("```text\n").nth(1))
        .and_then(|s| s.split("```").next())
        .unwrap();
    let dag = parse_dag(example).unwrap_or_else(|e| panic!("{e}"));
    let (f, _) =
        instr_emitter::run(&dag, &EmitterOptions::default(), &mut NoTrace::default()).unwrap();
    assert_eq!(
        f.all_insts()
            .filter(|&(_, i)| f.insts[i].is(compiler_core::mir::Op::EXTRACT_SUBREG))
            .count(),
        1
    );
}

fn finding(name: &str) -> String {
    let path = format!(
        "{}/tests/emitter_findings/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap();
    match parse_dag(&text) {
        Ok(d) => panic!("{name}: expected an error, parsed:\n{}", print_dag(&d)),
        Err(e) => e.to_string(),
    }
}

/// Issue 27: machine nodes are checked against the opcode table and the target's
/// operand description when the DAG is read, with the line:column of the culprit
/// (before, these reached ptx-emit or passed). Counts are llc-22's (corpus 1-isel.mir).
#[test]
fn machine_nodes_are_checked_against_the_opcode_table_at_parse_time() {
    assert_eq!(
        finding("m1.dag"),
        "4:3: ADD32rr takes 2 operand(s) besides its chain and glue; this node gives it 1"
    );
    assert_eq!(
        finding("m3.dag"),
        "5:29: ADD32rr takes 2 operand(s) besides its chain and glue; this node gives it 5"
    );
    assert_eq!(
        finding("m4.dag"),
        "4:3: ADD32rr defines 1 register(s); this node has 0 data result(s) (ch)"
    );
    assert_eq!(
        finding("m5.dag"),
        "4:3: type mismatch: result 0 of t1 is i64, but ADD32rr defines it in a int32regs register"
    );
    assert_eq!(
        finding("rs7.dag"),
        "5:75: lane sub7 does not exist in float32regsx4, which has 4 lane(s) (sub0..sub3)"
    );
    // An i1 where ADD32rr reads int32regs (m3 with the right count).
    let e = error("  t1: i1 = MOV_B1_i Constant:i1<1>\n  t2: i32 = ADD32rr t1, t1\n");
    assert_eq!(
        e,
        "4:21: type mismatch: operand 1 of ADD32rr is a int32regs register, but t1 is i1"
    );
    // Too many results.
    let e = error("  t1: i32,i32 = ADD32rr Constant:i32<1>, Constant:i32<2>\n");
    assert_eq!(
        e,
        "3:3: ADD32rr defines 1 register(s); this node has 2 data result(s) (i32,i32)"
    );
    // A constant outside its type.
    let e = error("  t1: i32 = MOV_B32_i Constant:i32<9999999999>\n");
    assert_eq!(
        e,
        "3:36: 9999999999 does not fit in i32 (range -2147483648..4294967295)"
    );
    assert!(error("  t1: i1 = MOV_B1_i Constant:i1<2>\n").contains("does not fit in i1"));
    // The CICC-era float form without the mode immediate, and llc-22's with it.
    for ops in ["t1, t1", "t1, t1, Constant:i32<0>"] {
        let text = format!("{HEAD}  t1: f32 = MOV_F32_i Constant:i32<1>\n  t2: f32 = FADDf32rr {ops}\n  t3: ch = Return t0\n");
        parse_dag(&text).unwrap_or_else(|e| panic!("{ops}: {e}"));
    }
}

/// A loop whose values are carried through PHIs (issue 27, item 2): `%10` counts,
/// `%11` sums; the back-edge inputs `%20`, `%21` are written in the body.
const PHI_LOOP: &str = "\
Selected selection DAG: %bb.0 'philoop:entry'
  t0: ch,glue = EntryToken
  t1: i32 = MOV_B32_i Constant:i32<0>
  t2: ch = CopyToReg t0, Register:i32 %1, t1
  t3: ch = GOTO BasicBlock:bb.1, t2

Selected selection DAG: %bb.1 'philoop:loop'
  PHI:i32 %10 = %1, %bb.0, %20, %bb.1
  PHI:i32 %11 = %1, %bb.0, %21, %bb.1
  t10: ch,glue = EntryToken
  t11: i32,ch = CopyFromReg t10, Register:i32 %10
  t12: i32,ch = CopyFromReg t10, Register:i32 %11
  t13: i32 = ADD32ri t11, Constant:i32<1>
  t14: i32 = ADD32rr t12, t11
  t15: ch = CopyToReg t10, Register:i32 %20, t13
  t16: ch = CopyToReg t15, Register:i32 %21, t14
  t17: i1 = SETP_i32ri t13, Constant:i32<10>, Constant:i32<2>
  t18: ch = CBranch t17, BasicBlock:bb.1, t16

Selected selection DAG: %bb.2 'philoop:exit'
  t20: ch,glue = EntryToken
  t21: i64,ch = CopyFromReg t20, Register:i64 $r1
  t22: i32,ch = CopyFromReg t20, Register:i32 %21
  t23: ch = ST_i32 t22, Constant:i32<0>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t21, Constant:i32<0>, t20
  t24: ch = Return t23
";

fn phi_error(text: &str) -> String {
    let dag = match parse_dag(text) {
        Ok(d) => d,
        Err(e) => return e.to_string(),
    };
    match instr_emitter::run(&dag, &EmitterOptions::default(), &mut NoTrace::default()) {
        Ok(_) => panic!("expected an error:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// PHI lines print back as written, and the emitter starts from a function that
/// holds them at the block head (FunctionLoweringInfo's), appending the body after
/// them; the sum 0 + 1 + ... + 9 = 45 is stored.
#[test]
fn phis_round_trip_and_head_their_block() {
    let dag = parse_dag(PHI_LOOP).unwrap();
    assert_eq!(print_dag(&dag), PHI_LOOP);
    let (f, _) =
        instr_emitter::run(&dag, &EmitterOptions::default(), &mut NoTrace::default()).unwrap();
    let text = print_function(&f);
    let body = &text[text.find("body:").unwrap()..];
    assert_eq!(body, EXPECTED_PHI_BODY, "{text}");
    let out = eval::run(
        &dag,
        &Inputs {
            param_regs: [(1, 0x1000)].into_iter().collect(),
            ..Inputs::default()
        },
    )
    .unwrap();
    assert_eq!(out.stores.len(), 1);
    assert_eq!((out.stores[0].addr, out.stores[0].value), (0x1000, 45));
}

/// By reasoning: the PHIs stand first in bb.1 as given; `t14`'s only reader is the
/// CopyToReg of `%21`, so the ADD writes `%21` itself; `t13` has two readers, so it
/// gets a register of its own and a COPY into `%20`; bb.0's MOV is uniform (width class
/// `b32`, CopyScope's rule), so it needs a COPY into `%1`'s typed class.
const EXPECTED_PHI_BODY: &str = "body:             |
  bb.0.entry:
    successors: %bb.1
    liveins: $r1

    %22:b32 = MOV_B32_i 0
    %1:int32regs = COPY %22
    GOTO %bb.1

  bb.1.loop:
    successors: %bb.1, %bb.2

    %10:int32regs = PHI %1, %bb.0, %20, %bb.1
    %11:int32regs = PHI %1, %bb.0, %21, %bb.1
    %23:int32regs = ADD32ri %10, 1
    %21:int32regs = ADD32rr %11, %10
    %20:int32regs = COPY %23
    %24:int1regs = SETP_i32ri %23, 10, 2
    CBranch %24, %bb.1

  bb.2.exit:
    %25:b64 = COPY $r1
    ST_i32 %21, 0, 0, 1, 32, %25, 0
    Return
...
";

#[test]
fn phi_lines_are_checked_with_line_and_column() {
    let edit = |from: &str, to: &str| PHI_LOOP.replacen(from, to, 1);
    // After a node line.
    let t = edit(
        "  PHI:i32 %11 = %1, %bb.0, %21, %bb.1\n  t10: ch,glue = EntryToken\n",
        "  t10: ch,glue = EntryToken\n  PHI:i32 %11 = %1, %bb.0, %21, %bb.1\n",
    );
    assert_eq!(
        phi_error(&t),
        "10:3: PHI lines come at the block's head, before its first node line"
    );
    // A block that does not exist.
    let t = edit("%20, %bb.1\n", "%20, %bb.7\n");
    assert_eq!(
        phi_error(&t),
        "8:3: incoming block %bb.7, but the DAG has no such block"
    );
    // An input nothing writes.
    let t = edit("%21, %bb.1\n", "%22, %bb.1\n");
    assert_eq!(
        phi_error(&t),
        "9:3: %22 (from %bb.1) is never written: no CopyToReg writes it and no PHI defines it"
    );
    // A PHI register written by a CopyToReg too.
    let t = edit("Register:i32 %20, t13", "Register:i32 %10, t13");
    assert!(
        phi_error(&t)
            .starts_with("8:3: %10 is defined by this PHI and written by a CopyToReg on line 15"),
        "{}",
        phi_error(&t)
    );
    // A width that is not the registers'.
    let t = edit("PHI:i32 %11", "PHI:i64 %11");
    assert!(
        phi_error(&t).starts_with("9:3: type mismatch: the PHI is i64 but %11 is i32"),
        "{}",
        phi_error(&t)
    );
    // Not the block's predecessors (bb.2 is not one; bb.1 is missing).
    let t = edit("%21, %bb.1\n", "%21, %bb.2\n");
    assert_eq!(
        phi_error(&t),
        "9:3: the PHI of %11 lists %bb.0, %bb.2 but the block's predecessors are %bb.0, %bb.1"
    );
    // Bad syntax.
    let t = edit("%1, %bb.0, %20", "%1 %bb.0, %20");
    assert!(
        phi_error(&t).starts_with("8:20: expected `,`"),
        "{}",
        phi_error(&t)
    );
}
