//! The instruction description `src/mir/nvptx.isa` is the one place an opcode is
//! described: every name of the opcode table comes from exactly one row (a literal name
//! or a family pattern), found here by reading the file as text, the way `grep` would,
//! and expanding the family patterns by hand; and every row's forms are ones ptx-emit
//! and the interpreter know.

use compiler_core::mir::Op;
use std::collections::BTreeMap;

/// Every name a `{a,b=c}` pattern stands for (the names only).
fn names(pattern: &str) -> Vec<String> {
    let mut acc = vec![String::new()];
    let mut rest = pattern;
    loop {
        let (lit, group) = match rest.find('{') {
            Some(open) => {
                let close = open + rest[open..].find('}').expect("closed group");
                let g: Vec<String> = rest[open + 1..close]
                    .split(',')
                    .map(|a| a.split('=').next().unwrap().to_string())
                    .collect();
                let lit = &rest[..open];
                rest = &rest[close + 1..];
                (lit, Some(g))
            }
            None => (rest, None),
        };
        acc = acc.into_iter().map(|n| n + lit).collect();
        match group {
            Some(g) => {
                acc = acc
                    .iter()
                    .flat_map(|n| g.iter().map(move |x| format!("{n}{x}")))
                    .collect()
            }
            None => return acc,
        }
    }
}

fn rows() -> Vec<(usize, Vec<String>)> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/mir/nvptx.isa")).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(k, l)| (k + 1, l.split_whitespace().map(String::from).collect()))
        .collect()
}

#[test]
fn each_opcode_is_described_by_exactly_one_row() {
    let mut rows_of: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let rows = rows();
    for (line, cols) in &rows {
        assert!(
            cols.len() >= 7,
            "nvptx.isa:{line}: seven columns (the ptx column runs to the end of the line)"
        );
        for n in names(&cols[0]) {
            rows_of.entry(n).or_default().push(*line);
        }
    }
    for &op in Op::all() {
        let lines = rows_of.get(op.name()).cloned().unwrap_or_default();
        assert_eq!(
            lines.len(),
            1,
            "{} is described on lines {lines:?} of nvptx.isa",
            op.name()
        );
        assert_eq!(lines[0] as u32, op.isa_line(), "{}", op.name());
    }
    assert_eq!(
        rows_of.len(),
        Op::all().len(),
        "every described name is an opcode"
    );
    eprintln!(
        "nvptx.isa: {} rows describe {} opcodes",
        rows.len(),
        Op::all().len()
    );
}

#[test]
fn every_form_and_semantics_kind_is_known() {
    for &op in Op::all() {
        let kind = op.ptx().split(':').next().unwrap();
        assert!(
            [
                "hand", "none", "op", "sym", "asm", "move", "pack", "unpack", "goto", "retval",
                "funcret", "brx", "ld", "ldnc", "ldu", "st", "setp", "cvt", "cvtx", "sreg",
                "callseq", "param", "call"
            ]
            .contains(&kind),
            "{}: ptx form `{}`",
            op.name(),
            op.ptx()
        );
        let sem = op.sem().split(':').next().unwrap();
        assert!(
            ["hand", "int", "none"].contains(&sem),
            "{}: semantics `{}`",
            op.name(),
            op.sem()
        );
        // `none:REASON` names a reason the interpreter explains (`interp/compile.rs`).
        if let Some(reason) = op.sem().strip_prefix("none:") {
            assert!(
                [
                    "call", "texture", "atomic", "sync", "float", "wide", "bits", "special",
                    "stack", "hint", "async", "tensor", "todo"
                ]
                .contains(&reason),
                "{}: unexplained reason `{reason}`",
                op.name()
            );
        }
        assert!(
            !op.ptx().contains('$') && !op.sem().contains('$'),
            "{}",
            op.name()
        );
        // Only the sub-register pseudos and PHI lack a PTX form.
        assert_eq!(
            compiler_core::passes::ptx_emit::no_form_reason(op).is_some(),
            kind == "none",
            "{}",
            op.name()
        );
    }
}

/// Every `.rs` file under `src/`, as text.
fn sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
}

/// Whether `text` holds `word` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// `grep` finds the name of an opcode printed from a description form of its own
/// (`asm:` templates, `brx:` jump tables) and not modelled by the interpreter in no Rust
/// source: its row is its one description. (The older `int:`/`op:` rows are still named
/// by the DAG evaluator and the random generator; so are the `brx:` jump-table rows,
/// whose control-flow shape the generator builds.)
#[test]
fn described_opcodes_appear_in_no_rust_source() {
    let mut files = Vec::new();
    sources(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut alone = 0;
    for &op in Op::all() {
        let own_form = op.ptx().starts_with("asm:");
        if !own_form || !op.sem().starts_with("none:") {
            continue;
        }
        alone += 1;
        for (path, text) in &files {
            assert!(
                !has_word(text, op.name()),
                "{} is described by nvptx.isa:{} and named again in {path}",
                op.name(),
                op.isa_line()
            );
        }
    }
    eprintln!("{alone} opcodes are described by their row alone");
}
