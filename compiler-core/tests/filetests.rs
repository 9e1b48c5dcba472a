//! The filetest runner: every `*.filetest` under `tests/golden/` is one case (format in
//! `filetest/mod.rs`): its input is run through the pipeline with the options of its `run`
//! line, traced, and the IR after each stage must equal the file's `expect` sections
//! byte for byte.
//!
//! ```text
//!  tests/golden/**/*.filetest ──parse──▶ run line, input, expect sections
//!     run(input, options + trace) ──▶ "NN-<stage>.<ext>" per stage run
//!        (a run that stops with an error: "stopped.txt", then the stages through MIR)
//!     compare ──▶ every problem of every file, collected; one failure lists them all:
//!        a differing section (with a diff), an expectation the run no longer produces
//!        (orphaned), an output with no expectation, a gallery input that no longer
//!        equals the gallery, a gallery example with no file, a file that is no case
//!  COPYSCOPE_BLESS=1 (`cargo xtask bless`) ──▶ each file rewritten in place from the run;
//!     new gallery examples get a file, orphaned sections are dropped
//!  COPYSCOPE_FILETEST=TEXT ──▶ only the files whose path contains TEXT
//! ```
//!
//! `tests/golden/passes/<example>.filetest` holds each gallery example through every
//! stage (`==== gallery NAME` ties its input to `compiler-core/gallery/`).

mod filetest;

use compiler_core::examples::EXAMPLES;
use compiler_core::stages::IrKind;
use compiler_core::{run, InputFormat, Knobs, RunOptions};
use filetest::FileTest;
use std::path::{Path, PathBuf};

const BLESS_VAR: &str = "COPYSCOPE_BLESS";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// The run options of a `run` line: `--from FORMAT` and `--knob NAME=VALUE`.
fn options(words: &[String]) -> Result<RunOptions, String> {
    let mut opts = RunOptions {
        trace: true,
        knobs: Knobs::default(),
        ..RunOptions::default()
    };
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let value = it.next().ok_or(format!("`{w}` needs a value"))?;
        match w.as_str() {
            "--from" => {
                let f = InputFormat::parse(value).ok_or(format!("unknown format `{value}`"))?;
                opts.from = Some(f);
            }
            "--knob" => {
                opts.knobs
                    .set_from_str(value)
                    .map_err(|e| format!("--knob {value}: {e}"))?;
            }
            _ => return Err(format!("unknown run option `{w}` (known: --from, --knob)")),
        }
    }
    Ok(opts)
}

/// What the run of `input` produces, as `(section name, text)` pairs.
fn outputs(input: &str, opts: &RunOptions) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let r = match run(input, opts) {
        Ok(r) => r,
        Err(e) => {
            // A run that stops at a stage (e.g. an opcode with no PTX form) keeps the
            // stages that did run, through the MIR ones.
            out.push(("stopped.txt".to_string(), format!("{e}\n")));
            let mir = RunOptions {
                emit: Some(IrKind::Mir),
                ..opts.clone()
            };
            match run(input, &mir) {
                Ok(r) => r,
                Err(e) => {
                    out.push(("error.txt".to_string(), format!("{e}\n")));
                    return out;
                }
            }
        }
    };
    for (k, s) in r.stages.iter().enumerate() {
        let text = s
            .output
            .clone()
            .expect("traced runs keep each stage's output");
        let ext = s.stage.info().output.name();
        out.push((format!("{:02}-{}.{ext}", k + 1, s.stage.id()), text));
    }
    out
}

/// The problems of one expected section list against the actual one.
fn compare(expect: &[(String, String)], actual: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, want) in expect {
        match actual.iter().find(|(n, _)| n == name) {
            None => problems.push(format!(
                "`expect {name}` is orphaned: the run produces no such output"
            )),
            Some((_, got)) if got != want => problems.push(format!(
                "`expect {name}` differs:\n{}",
                filetest::diff(want, got, 40)
            )),
            Some(_) => {}
        }
    }
    for (name, _) in actual {
        if !expect.iter().any(|(n, _)| n == name) {
            problems.push(format!("output {name} has no `expect {name}` section"));
        }
    }
    let order = |v: &[(String, String)]| -> Vec<String> {
        v.iter()
            .map(|p| p.0.clone())
            .filter(|n| expect.iter().any(|e| &e.0 == n) && actual.iter().any(|a| &a.0 == n))
            .collect()
    };
    if problems.is_empty() && order(expect) != order(actual) {
        problems.push("the `expect` sections are not in the order of the stages".into());
    }
    problems
}

/// Checks (or, blessing, rewrites) one file; returns its problems.
fn check_file(path: &Path, bless: bool) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut t = match filetest::parse(&text) {
        Ok(t) => t,
        Err(e) => return vec![e],
    };
    let opts = match options(&t.run) {
        Ok(o) => o,
        Err(e) => return vec![format!("`run` line: {e}")],
    };
    let mut problems = Vec::new();
    if let Some(name) = &t.gallery {
        match gallery_text(name, opts.from) {
            None => problems.push(format!("`gallery {name}` names no gallery example (form)")),
            Some(g) if g != t.input && bless => t.input = g.to_string(),
            Some(g) if g != t.input => problems.push(format!(
                "the input is not the gallery example's text:\n{}",
                filetest::diff(g, &t.input, 40)
            )),
            Some(_) => {}
        }
    }
    let actual = outputs(&t.input, &opts);
    if bless {
        t.expect = actual;
        return write_if_changed(path, &text, &t);
    }
    problems.extend(compare(&t.expect, &actual));
    problems
}

fn write_if_changed(path: &Path, old: &str, t: &FileTest) -> Vec<String> {
    match filetest::print(t) {
        Ok(new) if new != old => match std::fs::write(path, new) {
            Ok(()) => Vec::new(),
            Err(e) => vec![format!("cannot write: {e}")],
        },
        Ok(_) => Vec::new(),
        Err(e) => vec![format!("cannot bless: {e}")],
    }
}

fn gallery_text(name: &str, from: Option<InputFormat>) -> Option<&'static str> {
    let ex = EXAMPLES.iter().find(|e| e.name == name)?;
    ex.text(from).map(|(_, text)| text)
}

/// Every file under `dir`, sorted.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
    out.sort();
}

/// Gallery examples with no file naming them (created when blessing), as problems.
fn missing_gallery_cases(cases: &[(PathBuf, Option<String>)], bless: bool) -> Vec<String> {
    let mut problems = Vec::new();
    for ex in EXAMPLES {
        if cases.iter().any(|(_, g)| g.as_deref() == Some(ex.name)) {
            continue;
        }
        let path = root().join(format!("passes/{}.filetest", ex.name));
        let Some((format, text)) = ex.text(None) else {
            continue;
        };
        if !bless {
            problems.push(format!(
                "passes/{0}.filetest: gallery example `{0}` has no filetest (bless creates it)",
                ex.name
            ));
            continue;
        }
        let ext = format.name();
        let t = FileTest {
            comment: format!(
                ";; The gallery example `{0}` (compiler-core/gallery/{0}.{ext}) through every \
                 stage, traced;\n;; each `expect` holds the IR after one stage. \
                 `cargo xtask bless` rewrites them.\n",
                ex.name
            ),
            run: vec!["--from".into(), ext.into()],
            gallery: Some(ex.name.to_string()),
            input: text.to_string(),
            expect: Vec::new(),
        };
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, filetest::print(&t).unwrap()).unwrap();
        problems.extend(check_file(&path, true));
    }
    problems
}

#[test]
fn every_filetest_matches_its_run() {
    let bless = std::env::var(BLESS_VAR).is_ok_and(|v| v == "1");
    let filter = std::env::var("COPYSCOPE_FILETEST").unwrap_or_default();
    let mut files = Vec::new();
    walk(&root(), &mut files);
    let mut report = Vec::new();
    let mut cases = Vec::new();
    for path in files
        .iter()
        .filter(|p| p.to_string_lossy().contains(&filter))
    {
        let shown = path
            .strip_prefix(root())
            .unwrap_or(path)
            .display()
            .to_string();
        if path.extension().is_none_or(|e| e != "filetest") {
            report.push(format!(
                "{shown}: not a .filetest, so no case checks it (orphaned)"
            ));
            continue;
        }
        let problems = check_file(path, bless);
        let gallery = std::fs::read_to_string(path)
            .ok()
            .and_then(|t| filetest::parse(&t).ok())
            .and_then(|t| t.gallery);
        cases.push((path.clone(), gallery));
        report.extend(problems.into_iter().map(|p| format!("{shown}: {p}")));
    }
    if filter.is_empty() {
        report.extend(missing_gallery_cases(&cases, bless));
    }
    let failing = report.len();
    assert!(
        report.is_empty(),
        "{failing} problem(s) in {} filetest case(s) under tests/golden \
         (run `cargo xtask bless` or {BLESS_VAR}=1 if the new output is right):\n\n{}",
        cases.len(),
        report.join("\n\n")
    );
    eprintln!("{} filetest cases match", cases.len());
}
