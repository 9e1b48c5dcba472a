//! Shared helpers for the corpus-driven tests.
#![allow(dead_code)]

pub mod random;

use compiler_core::mir::{parse_module, Module};
use std::path::{Path, PathBuf};

pub fn corpus_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus")).to_path_buf()
}

/// Every corpus case directory, sorted.
pub fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("../shared/corpus exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.file_name().unwrap().to_str().unwrap().starts_with('_'))
        .collect();
    out.sort();
    out
}

/// `(case name, module)` for every case that has `file` (e.g. `2-pre-phielim.mir`).
pub fn stage_files(file: &str) -> Vec<(String, Module)> {
    cases()
        .into_iter()
        .filter_map(|c| {
            let p = c.join(file);
            let text = std::fs::read_to_string(&p).ok()?;
            let m = parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            Some((c.file_name().unwrap().to_str().unwrap().to_string(), m))
        })
        .collect()
}

pub fn parse_one(text: &str) -> compiler_core::mir::Function {
    let mut m = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    m.functions.remove(0)
}
