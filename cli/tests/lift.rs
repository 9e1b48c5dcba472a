//! `copyscope lift`: llc-22's isel MIR back into a DAG. The printed DAG reads back as it
//! was printed, and emitted as llc-22's InstrEmitter (`EmitterOptions::llc22`) it gives
//! llc-22's body again (registers renamed by first appearance); functions the DAG model
//! cannot hold are named on stderr with the construct, exit 1.

mod common;

use common::{copyscope, corpus_dir};
use compiler_core::dag::{parse_dag, print_dag};
use compiler_core::mir::{parse_module, print_function, Function};
use compiler_core::passes::instr_emitter::{self, EmitterOptions};
use compiler_core::trace::NoTrace;

/// The body of `f` with `%N` renamed by first appearance and probabilities dropped.
fn body(f: &Function) -> Vec<String> {
    let text = print_function(f);
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let body = text.split_once("body:").unwrap().1;
    for line in body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "..." && *l != "|")
    {
        let mut s = String::new();
        let mut it = line.chars().peekable();
        let mut in_prob = false;
        while let Some(c) = it.next() {
            if line.starts_with("successors:") && (c == '(' || in_prob) {
                in_prob = c != ')';
                continue;
            }
            if c == '%' && it.peek().is_some_and(|d| d.is_ascii_digit()) {
                let mut n = String::new();
                while let Some(d) = it.next_if(|d| d.is_ascii_digit()) {
                    n.push(d);
                }
                let k = names.iter().position(|x| *x == n).unwrap_or_else(|| {
                    names.push(n.clone());
                    names.len() - 1
                });
                s.push_str(&format!("%v{k}"));
            } else {
                s.push(c);
            }
        }
        out.push(s);
    }
    out
}

#[test]
fn lift_prints_a_dag_that_emits_llc22s_body() {
    let path = corpus_dir().join("cu_saxpy/1-isel.mir");
    let o = copyscope(&["lift", path.to_str().unwrap()], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let dag = parse_dag(&o.stdout).unwrap_or_else(|e| panic!("{e}\n{}", o.stdout));
    assert_eq!(print_dag(&dag), o.stdout);
    // The cross-block values are FunctionLoweringInfo's CopyToReg/CopyFromReg pairs.
    assert!(o
        .stdout
        .contains("= CopyToReg t0, Register:i32 %2:b32, t13"));
    assert!(o.stdout.contains("= CopyFromReg t19, Register:i32 %2:b32"));
    let (ours, _) =
        instr_emitter::run(&dag, &EmitterOptions::llc22(), &mut NoTrace::default()).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let theirs = &parse_module(&text).unwrap().functions[0];
    assert_eq!(body(&ours), body(theirs));
}

#[test]
fn lift_names_what_it_cannot_hold() {
    // PHIs lift to `PHI:` lines at the block heads (issue 27).
    let phis = corpus_dir().join("ll_phi_loop/1-isel.mir");
    let o = copyscope(&["lift", phis.to_str().unwrap()], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("  PHI:i32 %"), "{}", o.stdout);
    // Inline asm lifts (ll_asm_rw), clang's `isconvergent` extra-info and the
    // `!srcloc` metadata too (cu_asm_rw: `33 /* sideeffect isconvergent attdialect */`
    // and `32`, each with `!N`).
    let asm = corpus_dir().join("ll_asm_rw/1-isel.mir");
    let o = copyscope(&["lift", asm.to_str().unwrap()], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let path = corpus_dir().join("cu_asm_rw/1-isel.mir");
    let p = path.to_str().unwrap();
    let o = copyscope(&["lift", p], None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("[sideeffect, isconvergent, srcloc !11]")
            && o.stdout.contains("[isconvergent, srcloc !12]"),
        "{}",
        o.stdout
    );
    // Another target's MIR is named as such.
    let other = corpus_dir().join("xtra_amdgpu_regseq/1-isel.mir");
    let o = copyscope(&["lift", other.to_str().unwrap()], None);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains("error: function `regseq`: not lifted: not NVPTX"),
        "{}",
        o.stderr
    );
    let o = copyscope(&["lift", p, "--function", "nope"], None);
    assert_eq!(o.code, 1);
    assert!(o.stderr.contains("no function `nope`"), "{}", o.stderr);
    let o = copyscope(&["lift"], None);
    assert_eq!(o.code, 2);
    // A MIR syntax error is reported with line:column.
    let o = copyscope(
        &["lift", "-"],
        Some(b"--- |\nname: f\nbody: |\n  bb.0:\n    %0:b32 = = 1\n"),
    );
    assert_eq!(o.code, 1);
    assert!(o.stderr.starts_with("<stdin>:"), "{}", o.stderr);
}
