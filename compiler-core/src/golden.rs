//! Golden files for tests: compare printed output with a checked-in file, or rewrite the
//! file when `COPYSCOPE_BLESS=1` is set (`cargo xtask bless` sets it).
//!
//! ```text
//!  assert_golden(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/x.mir"), &actual)
//!    COPYSCOPE_BLESS=1 ──▶ write `actual` (creating directories), pass
//!    otherwise         ──▶ equal: pass; different or missing: panic naming the first
//!                          differing line and how to bless
//! ```

use std::path::Path;
use std::string::String;

/// The environment variable that turns comparisons into rewrites.
pub const BLESS_VAR: &str = "COPYSCOPE_BLESS";

/// True when the run should rewrite golden files.
pub fn blessing() -> bool {
    std::env::var(BLESS_VAR).is_ok_and(|v| v == "1")
}

/// Compares `actual` with the golden file at `path`, or rewrites it when blessing.
#[track_caller]
pub fn assert_golden(path: impl AsRef<Path>, actual: &str) {
    let path = path.as_ref();
    if blessing() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        }
        let same = std::fs::read_to_string(path).is_ok_and(|old| old == actual);
        if !same {
            std::fs::write(path, actual)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
        return;
    }
    let expected = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => panic!(
            "golden file {} is missing ({e}); create it with `cargo xtask bless` \
             (or {BLESS_VAR}=1 cargo test)",
            path.display()
        ),
    };
    if expected != actual {
        panic!(
            "output differs from golden file {}\n{}\nrun `cargo xtask bless` (or {BLESS_VAR}=1 cargo test) if the change is intended",
            path.display(),
            first_difference(&expected, actual)
        );
    }
}

/// Describes the first line where `expected` and `actual` differ.
pub fn first_difference(expected: &str, actual: &str) -> String {
    let mut e = expected.lines();
    let mut a = actual.lines();
    let mut n = 1;
    loop {
        match (e.next(), a.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            (None, None) => {
                return String::from("texts differ only in trailing newlines");
            }
            (x, y) => {
                return std::format!(
                    "first difference at line {n}:\n  golden: {}\n  actual: {}",
                    x.unwrap_or("<end of file>"),
                    y.unwrap_or("<end of file>")
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_the_first_differing_line() {
        let d = first_difference("a\nb\nc\n", "a\nx\nc\n");
        assert!(d.contains("line 2") && d.contains("golden: b") && d.contains("actual: x"));
        assert!(first_difference("a\n", "a\nb\n").contains("<end of file>"));
        assert!(first_difference("a\n", "a").contains("trailing"));
    }
}
