//! Every `*.mir` in the shared corpus parses, prints, and reparses to the same text,
//! keeping every instruction.

use compiler_core::mir::{parse_module, print_module};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

fn mir_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for case in std::fs::read_dir(corpus_dir()).expect("../shared/corpus exists") {
        let case = case.unwrap().path();
        if !case.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&case).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "mir") {
                out.push(f);
            }
        }
    }
    out.sort();
    out
}

/// Instruction lines of every body in the text (indented, not headers).
fn count_instruction_lines(text: &str) -> usize {
    let mut in_body = false;
    let mut n = 0;
    for l in text.lines() {
        if l.starts_with("body:") {
            in_body = true;
            continue;
        }
        if l == "..." || l.starts_with("---") {
            in_body = false;
            continue;
        }
        let t = l.trim();
        if in_body
            && !t.is_empty()
            && !t.starts_with("bb.")
            && !t.starts_with("successors:")
            && !t.starts_with("liveins:")
            && !t.starts_with(';')
        {
            n += 1;
        }
    }
    n
}

/// The `body: |` blocks, with whitespace-only lines emptied.
fn bodies(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for l in text.lines() {
        if l.starts_with("body:") {
            cur = Some(String::new());
        } else if l == "..." || l.starts_with("---") {
            out.extend(cur.take());
        } else if let Some(c) = cur.as_mut() {
            c.push_str(if l.trim().is_empty() { "" } else { l });
            c.push('\n');
        }
    }
    out.extend(cur);
    out
}

#[test]
fn every_corpus_mir_round_trips() {
    let files = mir_files();
    assert!(
        files.len() >= 90,
        "expected the corpus, found {} files",
        files.len()
    );
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let m = parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let insts: usize = m.functions.iter().map(|f| f.num_insts()).sum();
        assert_eq!(
            insts,
            count_instruction_lines(&text),
            "{}: instruction count",
            path.display()
        );
        let once = print_module(&m);
        let m2 = parse_module(&once)
            .unwrap_or_else(|e| panic!("{} reprinted: {e}\n{once}", path.display()));
        let twice = print_module(&m2);
        assert_eq!(once, twice, "{}: print is not a fixpoint", path.display());
        assert_eq!(
            count_instruction_lines(&once),
            insts,
            "{}: printed instruction count",
            path.display()
        );
        // The bodies are printed exactly as llc-22 printed them.
        assert_eq!(
            bodies(&once),
            bodies(&text),
            "{}: body text differs from llc-22's",
            path.display()
        );
    }
}
