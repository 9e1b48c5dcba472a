//! A copy-paste detector: six consecutive code lines (whitespace normalized; blank
//! lines, comments, `use`/`mod` lines and attributes skipped) that occur twice in the
//! library and app code of the workspace: `compiler-core/src`, `cli/src`,
//! `web-engine/src`, `web-app/src`, `web-proof/src` and `xtask/src`. Test modules
//! (`#[cfg(test)]` to the end of a file, `tests.rs`, `*_tests.rs`) and data tables
//! (windows mostly made of lines opening with a literal) are left out.
//!
//! None is tolerated (issue 32): any duplicate fails the test with every copy listed
//! (file:line of each).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const WINDOW: usize = 6;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code lines of a file that count, with their line numbers.
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    let name = path.file_name().unwrap().to_str().unwrap();
    if name == "tests.rs" || name.ends_with("_tests.rs") {
        return Vec::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let s = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if s.starts_with("#[cfg(test)]") {
            break;
        }
        let skipped = s.is_empty()
            || s.starts_with("//")
            || s.starts_with("#[")
            || !s.chars().any(|c| c.is_alphanumeric())
            || [
                "use ",
                "pub use ",
                "pub(crate) use ",
                "mod ",
                "pub mod ",
                "pub(crate) mod ",
            ]
            .iter()
            .any(|p| s.starts_with(p));
        if !skipped {
            out.push((n + 1, s));
        }
    }
    out
}

/// A line of a data table: it opens with a literal.
fn table_line(s: &str) -> bool {
    let c = s.chars().next().unwrap_or(' ');
    matches!(c, '"' | '(' | '[' | '&' | '\'' | '-')
        || c.is_ascii_digit()
        || s.starts_with("b\"")
        || s.starts_with("r\"")
        || s.starts_with("r#\"")
}

/// Every duplicated run: the places (file, line) of its copies.
fn duplicates(roots: &[PathBuf]) -> Vec<Vec<(String, usize)>> {
    let mut files = Vec::new();
    for r in roots {
        rust_files(r, &mut files);
    }
    files.sort();
    let lines: Vec<Vec<(usize, String)>> = files.iter().map(|f| code_lines(f)).collect();
    // window text -> [(file index, window index)]
    let mut seen: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for (fi, ls) in lines.iter().enumerate() {
        for wi in 0..ls.len().saturating_sub(WINDOW - 1) {
            let w = &ls[wi..wi + WINDOW];
            if w.iter().filter(|(_, s)| table_line(s)).count() * 2 > WINDOW {
                continue;
            }
            let key = w
                .iter()
                .map(|(_, s)| s.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            seen.entry(key).or_default().push((fi, wi));
        }
    }
    let dup: BTreeSet<Vec<(usize, usize)>> = seen.into_values().filter(|v| v.len() > 1).collect();
    // A window whose copies all continue the previous window's copies extends that run.
    dup.iter()
        .filter(|v| {
            let before: Vec<(usize, usize)> =
                v.iter().map(|&(f, w)| (f, w.wrapping_sub(1))).collect();
            !dup.contains(&before)
        })
        .map(|v| {
            v.iter()
                .map(|&(f, w)| {
                    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
                    let rel = files[f].strip_prefix(root).unwrap_or(&files[f]);
                    (rel.display().to_string(), lines[f][w].0)
                })
                .collect()
        })
        .collect()
}

#[test]
fn no_new_six_line_duplicate() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let roots: Vec<PathBuf> = [
        "src",
        "../cli/src",
        "../web-engine/src",
        "../web-app/src",
        "../web-proof/src",
        "../xtask/src",
    ]
    .iter()
    .map(|r| here.join(r))
    .collect();
    let found = duplicates(&roots);
    let list: String = found
        .iter()
        .map(|v| {
            let places: Vec<String> = v.iter().map(|(f, l)| format!("{f}:{l}")).collect();
            format!("  {}\n", places.join(" = "))
        })
        .collect();
    println!("{} duplicated runs of {WINDOW} lines:\n{list}", found.len());
    assert!(
        found.is_empty(),
        "{} duplicated runs of {WINDOW} lines:\n{list}",
        found.len()
    );
}

#[test]
fn the_detector_finds_a_copy_and_skips_a_table() {
    let dir = std::env::temp_dir().join(format!("copyscope-dup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let body = "fn f(x: u32) -> u32 {\n let a = x + 1;\n let b = a * 2;\n let c = b - 3;\n let d = c / 4;\n let e = d % 5;\n e + a\n}\n";
    std::fs::write(dir.join("a.rs"), body).unwrap();
    std::fs::write(dir.join("b.rs"), body.replace("fn f", "fn g")).unwrap();
    let table = "(1, 2),\n(3, 4),\n(5, 6),\n(7, 8),\n(9, 10),\n(11, 12),\n";
    std::fs::write(dir.join("c.rs"), table).unwrap();
    std::fs::write(dir.join("d.rs"), table).unwrap();
    let found = duplicates(std::slice::from_ref(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].len(), 2);
    assert_eq!(found[0][0].1, 2, "{found:?}");
}
