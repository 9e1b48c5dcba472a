//! The crate's public API stays narrow: `lib.rs` declares as `pub mod` only the driver,
//! the IRs and the data a run hands out; every algorithm module (the passes, ptxas, the
//! liveness analyses, the MIR interpreter) is declared inside `internal!` (public only
//! with the `testkit` feature). The test reads `lib.rs`'s declarations and fails on a
//! `pub mod` of any module not in `API` (a new algorithm made public by accident), and on
//! an algorithm of `ALGORITHMS` that is missing from `internal!`.

/// The modules `lib.rs` may declare `pub mod name;` (a file module), with why.
const API: &[(&str, &str)] = &[
    ("dag", "IR: the selected DAG the CLI reads"),
    ("entity", "the IRs' entity references"),
    ("error", "SourceError, line:column errors"),
    ("examples", "the gallery the CLI and the engine list"),
    ("knobs", "the knobs the CLI and the engine set"),
    ("mir", "IR: machine IR, its reader, printer and verifier"),
    ("ori", "IR: ptxas's ORI"),
    ("pipeline", "the driver: run, RunOptions, RunResult"),
    ("ptx", "IR: PTX text and its reader"),
    ("share", "share links"),
    ("sort", "deterministic sorting"),
    ("stages", "the stage list"),
    ("stats", "the stats a stage reports"),
    ("trace", "the steps a run records"),
    (
        "testgen",
        "feature testgen: property tests and fuzz targets",
    ),
    ("golden", "feature testkit: the golden-file helper"),
];

/// Algorithm modules: crate-private unless `testkit` (declared in `internal!`).
const ALGORITHMS: &[&str] = &["interp", "liveness", "passes", "ptxas"];

fn lib_rs() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs");
    std::fs::read_to_string(path).unwrap()
}

/// `pub mod name;` declarations of file modules (not inline re-export modules, not the
/// `pub mod $m;` inside the `internal!` macro's definition).
fn pub_file_modules(src: &str) -> Vec<String> {
    src.lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//"))
        .filter_map(|l| l.strip_prefix("pub mod "))
        .filter_map(|l| l.strip_suffix(';'))
        .filter(|m| {
            m.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        .map(String::from)
        .collect()
}

/// The module names declared inside the `internal! { ... }` invocation.
fn internal_modules(src: &str) -> Vec<String> {
    let start = src.find("internal! {").expect("lib.rs invokes internal!");
    let body = &src[start..];
    let body = &body[..body.find('}').unwrap()];
    body.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("mod "))
        .filter_map(|l| l.strip_suffix(';'))
        .map(String::from)
        .collect()
}

#[test]
fn lib_rs_makes_no_algorithm_module_public() {
    let src = lib_rs();
    let wrong: Vec<String> = pub_file_modules(&src)
        .into_iter()
        .filter(|m| !API.iter().any(|(a, _)| a == m))
        .collect();
    assert!(
        wrong.is_empty(),
        "lib.rs declares `pub mod` of {wrong:?}: declare algorithms inside `internal!` and \
         re-export what the CLI/engine need from lib.rs"
    );
    let internal = internal_modules(&src);
    let missing: Vec<&&str> = ALGORITHMS
        .iter()
        .filter(|a| !internal.iter().any(|m| m == *a))
        .collect();
    assert!(missing.is_empty(), "not declared in internal!: {missing:?}");
}

#[test]
fn the_check_sees_a_public_algorithm() {
    let src =
        "pub mod $m;\npub mod dag;\npub mod liveness;\n// pub mod passes;\ninternal! {\n    mod passes;\n}\n";
    assert_eq!(pub_file_modules(src), ["dag", "liveness"]);
    assert_eq!(internal_modules(src), ["passes"]);
}
