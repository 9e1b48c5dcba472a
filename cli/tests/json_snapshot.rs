//! The CLI's JSON, byte for byte, on every gallery example: the outputs BEFORE issue 32's
//! restructuring (typed stats, the pipeline split, the narrow `lib.rs`).
//!
//! The expected files under `tests/json_before/` were written deliberately from main at
//! 8439f7e, before any of that work, by `COPYSCOPE_BLESS_CLI_JSON=1 cargo test -p copyscope
//! --test json_snapshot`. They are NOT rewritten by `cargo xtask bless` / `COPYSCOPE_BLESS=1`:
//! a refactor that changes one byte of this output fails here, and only a deliberate change
//! of the contract (DESIGN.md, "CLI contract": keys may be added, never changed) regenerates
//! them with the variable above.
//!
//! ```text
//!  cases (from `copyscope examples --json` and `knobs --json`)
//!    every example × every form:  run --json --verify --no-trace     ─▶ full/<case>.json
//!                                 run --json --no-trace --emit mir   ─▶ full/  (MIR/DAG forms)
//!                                 run --until <its stage> --json --no-trace ─▶ full/
//!                                 run --json           (steps)       ─▶ SHA256SUMS
//!                                 run --emit trace     (IR per stage) ─▶ SHA256SUMS
//!    every knob at a non-default value on phi-loop.mir (and on iteration-cap.ptx when it
//!    reaches a GeneralOptimize stage), --json --no-trace             ─▶ full/
//!    (not --verify: on main, cssa-coalesce=true on phi-loop fails the kill-flag rule)
//!    examples/stages/knobs --json, link decode --json                ─▶ full/
//!  traced outputs are ~11 MB of text, so they are kept as SHA-256 sums (`sha256sum -c`
//!  format), with the full text of a few small examples in full/ as well.
//! ```
//!
//! A run checks every case and lists every differing case (with the first differing line
//! for full texts), every expected file or sum with no case, and every case with no
//! expectation. The actual output of each failing case is written next to the test's
//! scratch directory so it can be compared by hand.

mod common;
use common::copyscope;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How a case's expectation is stored.
#[derive(Clone, Copy, PartialEq)]
enum Kept {
    Full,
    Sum,
}

struct Case {
    name: String,
    args: Vec<String>,
    kept: Kept,
}

fn case(name: String, args: &[impl AsRef<str>], kept: Kept) -> Case {
    let args = args.iter().map(|s| s.as_ref().to_string()).collect();
    Case { name, args, kept }
}

/// Examples whose traced outputs are small enough to keep in full as well.
const TRACED_IN_FULL: &[&str] = &["commute", "phi-swap", "select-fold", "inline-asm-tied"];

fn json(args: &[&str]) -> serde_json::Value {
    let out = copyscope(args, None);
    assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

fn example_cases(out: &mut Vec<Case>) {
    for ex in json(&["examples", "--json"]).as_array().unwrap() {
        let name = ex["name"].as_str().unwrap();
        let stage = ex["stage"].as_str().unwrap();
        for form in ex["forms"].as_array().unwrap() {
            let form = form.as_str().unwrap();
            let base = ["run", "--example", name, "--from", form];
            let at = |extra: &[&str]| -> Vec<String> {
                base.iter().chain(extra).map(|s| s.to_string()).collect()
            };
            let id = format!("{name}.{form}");
            out.push(case(
                format!("{id}.json-verify-notrace"),
                &at(&["--json", "--verify", "--no-trace"]),
                Kept::Full,
            ));
            if form != "ptx" {
                out.push(case(
                    format!("{id}.json-notrace-emit-mir"),
                    &at(&["--json", "--no-trace", "--emit", "mir"]),
                    Kept::Full,
                ));
            }
            out.push(case(
                format!("{id}.until-{stage}"),
                &at(&["--until", stage, "--json", "--no-trace"]),
                Kept::Full,
            ));
            let full = TRACED_IN_FULL.contains(&name);
            for (variant, extra) in [("json", &["--json"][..]), ("trace", &["--emit", "trace"])] {
                out.push(case(format!("{id}.{variant}"), &at(extra), Kept::Sum));
                if full {
                    out.push(case(format!("{id}.{variant}"), &at(extra), Kept::Full));
                }
            }
        }
    }
}

/// A value other than the knob's default, by its type.
fn other_value(kind: &str, default: &str) -> &'static str {
    match kind {
        "bool" if default == "true" => "false",
        "bool" => "true",
        "int" if default == "1" => "2",
        "int" => "1",
        "tristate" => "true",
        "limit" => "2",
        "sm" => "sm_80",
        "opt-level" => "1",
        "optional-int" => "1",
        "float" => "0.5",
        other => panic!("knob type `{other}` has no test value; add one here"),
    }
}

fn knob_cases(out: &mut Vec<Case>) {
    for k in json(&["knobs", "--json"]).as_array().unwrap() {
        let name = k["name"].as_str().unwrap();
        let value = other_value(k["type"].as_str().unwrap(), k["default"].as_str().unwrap());
        let setting = format!("{name}={value}");
        let go = k["stages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s.as_str().unwrap().starts_with("general-optimize"));
        let mut on = vec![("phi-loop", "mir")];
        if go {
            on.push(("iteration-cap", "ptx"));
        }
        for (ex, form) in on {
            out.push(case(
                format!("knob.{setting}.{ex}.{form}"),
                &[
                    "run",
                    "--example",
                    ex,
                    "--from",
                    form,
                    "--json",
                    "--no-trace",
                    "--knob",
                    &setting,
                ],
                Kept::Full,
            ));
        }
    }
}

fn listing_cases(out: &mut Vec<Case>) {
    for cmd in ["examples", "stages", "knobs"] {
        out.push(case(cmd.to_string(), &[cmd, "--json"], Kept::Full));
    }
    let enc = copyscope(
        &[
            "link",
            "encode",
            "--example",
            "commute",
            "--stage",
            "two-address",
            "--step",
            "2",
        ],
        None,
    );
    out.push(case(
        "link-decode.example".into(),
        &["link", "decode", enc.stdout.trim(), "--json"],
        Kept::Full,
    ));
    let phi = format!(
        "{}/../compiler-core/gallery/phi-loop.mir",
        env!("CARGO_MANIFEST_DIR")
    );
    let enc = copyscope(
        &[
            "link",
            "encode",
            &phi,
            "--knob",
            "sm=sm_80",
            "--stage",
            "phi-elimination",
            "--step",
            "3",
            "--base",
            "https://example.invalid/copyscope/",
        ],
        None,
    );
    assert_eq!(enc.code, 0, "{}", enc.stderr);
    let url = enc.stdout.trim();
    out.push(case(
        "link-decode.state".into(),
        &["link", "decode", url, "--json"],
        Kept::Full,
    ));
}

fn all_cases() -> Vec<Case> {
    let mut out = Vec::new();
    listing_cases(&mut out);
    example_cases(&mut out);
    knob_cases(&mut out);
    out
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json_before")
}

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn read_sums(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| l.split_once("  "))
        .map(|(sum, name)| (name.to_string(), sum.to_string()))
        .collect()
}

fn first_difference(want: &str, got: &str) -> String {
    let (mut w, mut g) = (want.lines(), got.lines());
    for n in 1.. {
        match (w.next(), g.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (None, None) => return "only trailing newlines differ".into(),
            (a, b) => {
                return format!(
                    "line {n}:\n      before: {}\n      now:    {}",
                    a.unwrap_or("<end>"),
                    b.unwrap_or("<end>")
                )
            }
        }
    }
    unreachable!()
}

/// Runs every case; returns the problems, one paragraph each.
fn check(cases: &[Case], bless: bool) -> Vec<String> {
    let full_dir = root().join("full");
    let sums_path = root().join("SHA256SUMS");
    let old_sums = read_sums(&sums_path);
    let mut sums = BTreeMap::new();
    let mut problems = Vec::new();
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("json_snapshot");
    for c in cases {
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        let out = copyscope(&args, None);
        if out.code != 0 {
            problems.push(format!(
                "{}: exit {} ({args:?}): {}",
                c.name, out.code, out.stderr
            ));
            continue;
        }
        let failed = match c.kept {
            Kept::Sum => {
                let now = sha256(&out.stdout);
                sums.insert(c.name.clone(), now.clone());
                match old_sums.get(&c.name) {
                    _ if bless => None,
                    None => Some(format!("{}: no expected sum in SHA256SUMS", c.name)),
                    Some(was) if *was != now => Some(format!(
                        "{}: SHA-256 {now} (was {was}), copyscope {}",
                        c.name,
                        args.join(" ")
                    )),
                    Some(_) => None,
                }
            }
            Kept::Full => {
                let path = full_dir.join(format!("{}.json", c.name));
                if bless {
                    std::fs::create_dir_all(&full_dir).unwrap();
                    std::fs::write(&path, &out.stdout).unwrap();
                    None
                } else {
                    match std::fs::read_to_string(&path) {
                        Err(_) => Some(format!("{}: no expected file {}", c.name, path.display())),
                        Ok(want) if want != out.stdout => Some(format!(
                            "{}: differs at {}\n    copyscope {}",
                            c.name,
                            first_difference(&want, &out.stdout),
                            args.join(" ")
                        )),
                        Ok(_) => None,
                    }
                }
            }
        };
        if let Some(p) = failed {
            std::fs::create_dir_all(&scratch).unwrap();
            let kept = scratch.join(format!("{}.json", c.name));
            std::fs::write(&kept, &out.stdout).unwrap();
            problems.push(format!("{p}\n    (output now: {})", kept.display()));
        }
    }
    if bless {
        let mut text = String::new();
        for (name, sum) in &sums {
            writeln!(text, "{sum}  {name}").unwrap();
        }
        std::fs::write(&sums_path, text).unwrap();
    }
    problems.extend(orphans(cases, &old_sums, &full_dir, bless));
    problems
}

/// Expected files and sums that no case produces (when blessing: removes the files).
fn orphans(
    cases: &[Case],
    old_sums: &BTreeMap<String, String>,
    full_dir: &Path,
    bless: bool,
) -> Vec<String> {
    let names = |k: Kept| -> BTreeSet<&str> {
        cases
            .iter()
            .filter(|c| c.kept == k)
            .map(|c| c.name.as_str())
            .collect()
    };
    let (full, summed) = (names(Kept::Full), names(Kept::Sum));
    let mut problems = Vec::new();
    if !bless {
        for name in old_sums.keys().filter(|n| !summed.contains(n.as_str())) {
            problems.push(format!("SHA256SUMS names `{name}`, which is no case"));
        }
    }
    for f in std::fs::read_dir(full_dir).into_iter().flatten() {
        let path = f.unwrap().path();
        let stem = path.file_name().unwrap().to_string_lossy().to_string();
        let case = stem.strip_suffix(".json").unwrap_or(&stem);
        if !full.contains(case) {
            if bless {
                std::fs::remove_file(&path).unwrap();
            } else {
                problems.push(format!("{} belongs to no case", path.display()));
            }
        }
    }
    problems
}

#[test]
fn cli_json_is_unchanged_on_every_gallery_example() {
    let cases = all_cases();
    let mut seen = BTreeSet::new();
    for c in &cases {
        assert!(
            seen.insert((c.name.as_str(), c.kept == Kept::Full)),
            "case {} twice",
            c.name
        );
    }
    let bless = std::env::var("COPYSCOPE_BLESS_CLI_JSON").is_ok_and(|v| v == "1");
    let problems = check(&cases, bless);
    assert!(
        problems.is_empty(),
        "{} of {} CLI JSON cases differ from the outputs before the change (main 8439f7e):\n\n{}\n",
        problems.len(),
        cases.len(),
        problems.join("\n\n")
    );
}
