//! No function longer than [`MAX_LINES`] lines in the workspace's library and app code
//! (issue 32: "no function over 150 lines outside tables and generated code; no
//! component over 200 lines" — a yew component is a function, so the function limit
//! covers the component one).
//!
//! Scanned: every `.rs` file under `compiler-core/src`, `cli/src`, `web-engine/src`,
//! `web-app/src`, `web-proof/src` and `xtask/src`, test files (`tests.rs`,
//! `*_tests.rs`) left out. Generated code lives in `OUT_DIR`, not here. A function is
//! counted from its `fn` line to the line of its closing brace; braces inside strings
//! (raw and multi-line ones too), character literals and comments do not count.

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 150;

const ROOTS: [&str; 6] = [
    "src",
    "../cli/src",
    "../web-engine/src",
    "../web-app/src",
    "../web-proof/src",
    "../xtask/src",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            rust_files(&p, out);
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            out.push(p);
        }
    }
}

/// The text with every string, character literal and comment blanked out (newlines
/// kept, so line numbers stay).
fn code_only(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    let keep_newlines = |s: &[char], out: &mut String| {
        out.extend(s.iter().map(|&c| if c == '\n' { '\n' } else { ' ' }));
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        let end = if c == '/' && next == Some('/') {
            (i..b.len()).find(|&j| b[j] == '\n').unwrap_or(b.len())
        } else if c == '/' && next == Some('*') {
            block_comment_end(&b, i)
        } else if c == 'r'
            && matches!(next, Some('"') | Some('#'))
            && !ident_char(b.get(i.wrapping_sub(1)))
        {
            raw_string_end(&b, i).unwrap_or(i + 1)
        } else if c == '"' {
            string_end(&b, i)
        } else if c == '\'' {
            char_end(&b, i).unwrap_or(i + 1)
        } else {
            i + 1
        };
        if end == i + 1 {
            out.push(c);
        } else {
            keep_newlines(&b[i..end], &mut out);
        }
        i = end;
    }
    out
}

fn ident_char(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

fn block_comment_end(b: &[char], start: usize) -> usize {
    let (mut depth, mut i) = (0, start);
    while i + 1 < b.len() {
        if b[i] == '/' && b[i + 1] == '*' {
            depth += 1;
            i += 2;
        } else if b[i] == '*' && b[i + 1] == '/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

fn string_end(b: &[char], start: usize) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        match b[i] {
            '\\' => i += 2,
            '"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// `r"…"`, `r#"…"#`, …: the end, or `None` when this `r` starts no raw string.
fn raw_string_end(b: &[char], start: usize) -> Option<usize> {
    let hashes = b[start + 1..].iter().take_while(|&&c| c == '#').count();
    if b.get(start + 1 + hashes) != Some(&'"') {
        return None;
    }
    let mut i = start + 2 + hashes;
    while i < b.len() {
        if b[i] == '"'
            && b[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(b.len())
}

/// `'x'`, `'\n'`, `'\u{1F600}'`: the end, or `None` for a lifetime.
fn char_end(b: &[char], start: usize) -> Option<usize> {
    if b.get(start + 1) == Some(&'\\') {
        let close = (start + 2..b.len().min(start + 12)).find(|&j| b[j] == '\'')?;
        return Some(close + 1);
    }
    (b.get(start + 2) == Some(&'\'')).then_some(start + 3)
}

/// Every function's (name, first line, length in lines) in the blanked text.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        // `nest`: open ( and [ before the body (`-> [u8; 4]` holds a `;`).
        let (mut depth, mut nest, mut opened) = (0i32, 0i32, false);
        'scan: for (j, l) in lines.iter().enumerate().skip(k) {
            for c in l.chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    '(' | '[' if !opened => nest += 1,
                    ')' | ']' if !opened => nest -= 1,
                    ';' if !opened && nest == 0 => break 'scan, // a declaration
                    _ => {}
                }
                if opened && depth == 0 {
                    found.push((name.clone(), k + 1, j - k + 1));
                    break 'scan;
                }
            }
        }
    }
    found
}

/// The name after `fn` on a line that starts a function (`pub(crate) const fn x`, …).
fn fn_name(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "fn")?;
    let before_ok = words[..at].iter().all(|w| {
        matches!(
            *w,
            "pub" | "const" | "async" | "unsafe" | "default" | "extern"
        ) || w.starts_with("pub(")
            || w.starts_with('"')
    });
    let name: String = words
        .get(at + 1)?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (before_ok && !name.is_empty()).then_some(name)
}

#[test]
fn no_function_over_150_lines() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for r in ROOTS {
        rust_files(&here.join(r), &mut files);
    }
    files.sort();
    let mut long = Vec::new();
    let mut counted = 0;
    for f in &files {
        let code = code_only(&std::fs::read_to_string(f).unwrap());
        for (name, line, len) in functions(&code) {
            counted += 1;
            if len > MAX_LINES {
                let rel = f.strip_prefix(here.parent().unwrap()).unwrap_or(f);
                long.push(format!("  {}:{line} {name}: {len} lines", rel.display()));
            }
        }
    }
    println!("{counted} functions in {} files", files.len());
    assert!(
        files.len() > 100 && counted > 1000,
        "the scan found too little"
    );
    assert!(
        long.is_empty(),
        "functions over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

/// The measure itself: braces in strings, raw strings, chars and comments do not
/// count, a lifetime is not a character literal, and a declaration is not a function.
#[test]
fn the_measure_skips_braces_in_literals_and_comments() {
    let src = "fn a<'x>(s: &'x str) -> char {\n    let t = \"{ // {\n {\";\n    let r = r#\"}\"#;\n    // }\n    /* { */\n    '{'\n}\ntrait T { fn d(&self); }\nfn b() -> [u8; 1] { [0] }\n";
    let got = functions(&code_only(src));
    assert_eq!(
        got,
        vec![("a".to_string(), 1, 8), ("b".to_string(), 10, 1)],
        "{src}"
    );
}
