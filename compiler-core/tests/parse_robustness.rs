//! The MIR parser never panics and always points inside the text: corpus files are cut,
//! spliced and mutated deterministically and every result is checked.

use compiler_core::mir::{parse_module, print_module};
use std::path::{Path, PathBuf};

fn corpus_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut out = Vec::new();
    for case in std::fs::read_dir(root).expect("../shared/corpus exists") {
        let case = case.unwrap().path();
        if case.is_dir() {
            for f in std::fs::read_dir(&case).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "mir") {
                    out.push(f);
                }
            }
        }
    }
    out.sort();
    out
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const TOKENS: &[&str] = &[
    "%",
    "%1",
    "%bb.",
    "%bb.99",
    "%subreg.",
    "$",
    "&",
    "&\"",
    "\"",
    "(",
    ")",
    "(tied-def ",
    "(tied-def 9)",
    ":",
    "::",
    ",",
    "=",
    "/*",
    "*/",
    "bb.",
    "bb.0:",
    "killed ",
    "undef ",
    "implicit-def ",
    "early-tied ",
    "tied-hint ",
    ":b32",
    ":float32regsx4",
    ".sub3",
    "-",
    "0x",
    "float ",
    "!",
    "{",
    "}",
    "- { id: ",
    "body: |",
    "---",
    "...",
    "\t",
    "\r",
    "é",
    "\u{1F600}",
    "successors: ",
    "liveins: ",
    "99999999999999999999",
    "-9223372036854775808",
];

fn check(text: &str, what: &str) {
    let lines = text.split('\n').count() as u32;
    match std::panic::catch_unwind(|| parse_module(text)) {
        Err(_) => panic!("parser panicked on {what}"),
        Ok(Ok(m)) => {
            // Whatever parses prints and reparses to a fixpoint.
            let once = print_module(&m);
            let m2 = parse_module(&once).unwrap_or_else(|e| {
                let _ = std::fs::write("/tmp/fuzz_in.mir", text);
                let _ = std::fs::write("/tmp/fuzz_out.mir", &once);
                panic!("{what}: reprinted text fails: {e}")
            });
            assert_eq!(print_module(&m2), once, "{what}: print is not a fixpoint");
        }
        Ok(Err(e)) => {
            assert!(
                e.line >= 1 && e.line <= lines,
                "{what}: line {} of {lines}",
                e.line
            );
            let line_len = text
                .split('\n')
                .nth(e.line as usize - 1)
                .map_or(0, |l| l.chars().count()) as u32;
            assert!(
                e.col >= 1 && e.col <= line_len + 1,
                "{what}: col {} on a line of {line_len} chars: {}",
                e.col,
                e.message
            );
            assert!(!e.message.is_empty());
        }
    }
}

fn char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[test]
fn mutated_corpus_never_panics_and_errors_point_inside_the_text() {
    let iterations: usize = std::env::var("COPYSCOPE_FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let seed: u64 = std::env::var("COPYSCOPE_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let mut rng = Rng(seed | 1);
    for path in corpus_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        for it in 0..iterations {
            let mut t = text.clone();
            for _ in 0..1 + rng.below(3) {
                let at = char_boundary(&t, rng.below(t.len()));
                match rng.below(4) {
                    0 => t.truncate(at),
                    1 => t.insert_str(at, TOKENS[rng.below(TOKENS.len())]),
                    2 => {
                        let end = char_boundary(&t, (at + 1 + rng.below(12)).min(t.len()));
                        t.replace_range(at..end, "");
                    }
                    _ => {
                        let from = char_boundary(&t, rng.below(t.len()));
                        let end = char_boundary(&t, (from + rng.below(40)).min(t.len()));
                        let piece = t[from..end].to_string();
                        t.insert_str(at, &piece);
                    }
                }
            }
            check(&t, &format!("{name} mutation {it}"));
        }
    }
}

/// Fuzz crash (mir_parse, 2026-11-26): a `stack:` frame section whose kept lines ended
/// in carriage returns printed them as `\r\n` endings, and the second print had one
/// `\r` more than the first. Line-end `\r`s of frame sections are no longer kept.
#[test]
fn frame_section_carriage_returns_reach_a_fixpoint() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fuzz/mir_parse_frame_cr.bin");
    let text = String::from_utf8(std::fs::read(path).unwrap()).unwrap();
    check(&text, "fuzz crash mir_parse_frame_cr");
    assert!(
        parse_module(&text).is_ok(),
        "the crash input parses (so the fixpoint is checked)"
    );
}
