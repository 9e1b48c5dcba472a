//! Helpers shared by the integration tests (std only).
#![allow(dead_code)]

pub mod canon;
pub mod llc;
pub mod ori;
pub mod ptxas;

use std::path::{Path, PathBuf};

/// `shared/corpus` beside the repository.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

/// Every `.ptx` file the project's tools wrote for the corpus (nvcc 13.0 and llc-22
/// output), at any depth, sorted. The real-world files of `real-ptx/` are apart:
/// [`real_ptx_files`].
pub fn ptx_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let real = corpus_dir().join("real-ptx");
    let mut stack = vec![corpus_dir()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("shared/corpus exists") {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p != real {
                    stack.push(p);
                }
            } else if p.extension().is_some_and(|e| e == "ptx") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The real-world PTX files of `shared/corpus/real-ptx/` (old and new nvcc, Triton,
/// rustc, OpenCL drivers, ...), sorted.
pub fn real_ptx_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus_dir().join("real-ptx"))
        .expect("shared/corpus/real-ptx exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    v.sort();
    v
}

/// NVPTX corpus cases (those with an `llc.ptx`), sorted.
pub fn nvptx_cases() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("shared/corpus exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("llc.ptx").exists() && p.join("5-coalesced.mir").exists())
        .collect();
    v.sort();
    v
}

/// Gallery examples (`compiler-core/gallery/*.mir`), sorted.
pub fn gallery_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("gallery");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mir"))
        .collect();
    v.sort();
    v
}

/// A gallery example taken through every MIR stage before ptx-emit: PHI
/// elimination, two-address and both coalescers.
pub fn gallery_coalesced(path: &Path) -> compiler_core::mir::Module {
    use compiler_core::passes::{nvptx_coalescer, phi_elim, register_coalescer, two_address};
    use compiler_core::trace::NoTrace;
    let mut m = compiler_core::mir::parse_module(&std::fs::read_to_string(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for f in &mut m.functions {
        phi_elim::run(f, &Default::default(), &mut NoTrace::default());
        two_address::run(f, &Default::default(), &mut NoTrace::default());
        register_coalescer::run(f, &Default::default(), &mut NoTrace::default());
        nvptx_coalescer::run(f, &Default::default(), &mut NoTrace::default());
    }
    m
}

/// PTX reduced to its statements: comments dropped, whitespace collapsed, one
/// statement or label per entry.
pub fn ptx_statements(text: &str) -> Vec<String> {
    let mut clean = String::new();
    for line in text.lines() {
        let l = match line.find("//") {
            Some(p) => &line[..p],
            None => line,
        };
        clean.push_str(l);
        clean.push('\n');
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in clean.chars() {
        match c {
            ';' | '{' | '}' => {
                cur.push(c);
                push_stmt(&mut out, &cur);
                cur.clear();
            }
            ':' if !cur.trim().contains(' ') && cur.trim().starts_with('$') => {
                cur.push(c);
                push_stmt(&mut out, &cur);
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    push_stmt(&mut out, &cur);
    out
}

fn push_stmt(out: &mut Vec<String>, s: &str) {
    let mut norm = String::new();
    for w in s.split_whitespace() {
        if !norm.is_empty() {
            norm.push(' ');
        }
        norm.push_str(w);
    }
    // Spacing around punctuation does not matter.
    let norm = norm
        .replace(" ,", ",")
        .replace(", ", ",")
        .replace("{ ", "{")
        .replace(" }", "}")
        .replace(" ;", ";")
        .replace("( ", "(")
        .replace(" )", ")");
    if !norm.is_empty() {
        out.push(norm);
    }
}

/// Length of the longest common subsequence of two statement lists.
pub fn lcs(a: &[String], b: &[String]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    for x in a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                cur[j].max(prev[j + 1])
            };
        }
        prev = cur;
    }
    prev[b.len()]
}
