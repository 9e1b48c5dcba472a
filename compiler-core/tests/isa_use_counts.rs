//! The use-count column of the instruction description (`src/mir/nvptx.isa`, the
//! `USES` of `DEFS/USES`) against what llc-22 prints: every instruction of llc-22's
//! isel MIR (`-stop-after=finalize-isel`) for `shared/corpus/llvm-nvptx` (built by its
//! `make.sh`) and of the corpus' `1-isel.mir` files has as many explicit use operands
//! (registers, immediates, symbols, blocks; implicit operands aside) as its row says,
//! or its row is variadic. The DAG parser checks machine nodes against the same
//! column (`dag::target::use_count`), so a DAG llc-22 could have selected parses and
//! one with an operand too many or too few gets line:col.

mod support;

use compiler_core::dag::target::use_count;
use compiler_core::mir::{oflag, parse_module, Opcode};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Checks every instruction of `path`'s functions; counts instructions checked per
/// opcode in `seen` and returns the mismatches.
fn check_file(path: &Path, seen: &mut BTreeMap<&'static str, usize>) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let module = parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut bad = Vec::new();
    for f in &module.functions {
        for (_, i) in f.all_insts() {
            let d = &f.insts[i];
            let Opcode::Known(op) = d.opcode else {
                continue;
            };
            let uses = d.operands[d.lhs_defs as usize..]
                .iter()
                .filter(|o| !o.has(oflag::IMPLICIT))
                .count();
            *seen.entry(op.name()).or_default() += 1;
            if let Some((lo, hi)) = use_count(op) {
                if !(lo..=hi).contains(&uses) {
                    bad.push(format!(
                        "{} {}: {} has {uses} use operand(s), nvptx.isa:{} says {lo}..{hi}",
                        path.display(),
                        f.name,
                        op.name(),
                        op.isa_line()
                    ));
                }
            }
        }
    }
    bad
}

#[test]
fn every_llc22_instruction_has_its_rows_use_count() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(support::corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().path().join("1-isel.mir"))
        .filter(|p| p.is_file())
        .collect();
    if let Some(llc) = support::llc::llc() {
        files.extend(
            support::llc::llvm_nvptx(llc)
                .iter()
                .filter_map(|c| c.file("isel.mir")),
        );
    }
    files.sort();
    let mut seen = BTreeMap::new();
    let mut bad = Vec::new();
    for p in &files {
        bad.extend(check_file(p, &mut seen));
    }
    let checked: usize = seen.values().sum();
    eprintln!(
        "{} files, {checked} instructions of {} opcodes checked against nvptx.isa's use counts",
        files.len(),
        seen.len()
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Floors: what this corpus holds with llc-22 22.1.8 installed (the corpus part
    // alone without it).
    if support::llc::llc().is_some() {
        assert!(seen.len() >= 600, "{} opcodes", seen.len());
        assert!(checked >= 6_000, "{checked} instructions");
    } else {
        assert!(checked > 0);
    }
}

/// The DAG parser holds every machine node to the column, with line:col: one operand
/// too many for an opcode the old hand table did not list (`INT_PTX_SREG_WARPSIZE`
/// takes none) and one too few for a WMMA record (`anonymous_16651` takes four).
#[test]
fn the_dag_parser_checks_every_opcodes_use_count() {
    use compiler_core::dag::parse_dag;
    let e = parse_dag(
        "Selected selection DAG: %bb.0 'k:entry'\n  t0: ch = EntryToken\n  t1: i32 = INT_PTX_SREG_WARPSIZE Constant:i32<1>\n  t2: ch = Return t0\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("3:")
            && e.contains("INT_PTX_SREG_WARPSIZE takes 0 operand(s) besides its chain and glue; this node gives it 1"),
        "{e}"
    );
    let e = parse_dag(
        "Selected selection DAG: %bb.0 'k:entry'\n  t0: ch = EntryToken\n  t1: i64 = MOV_B64_i Constant:i64<4096>\n  t2: i32,i32,i32,i32,ch = anonymous_16651 t1, Constant:i32<0>, Constant:i32<78>, t0\n  t3: ch = Return t2:4\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("4:")
            && e.contains("anonymous_16651 takes 4 operand(s) besides its chain and glue; this node gives it 3"),
        "{e}"
    );
}
