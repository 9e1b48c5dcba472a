//! The stage table as the site sees it: `compiler_core::STAGES` built without `std`.
//!
//! Every test here runs twice: natively (`cargo test`, through `unsupported = test`) and
//! as wasm in Node (`cargo xtask test`, step `wasm-node`), so the two builds must agree,
//! down to the JSON the table serializes to.
//!
//! `golden/stages.json` is an expected-output file: `cargo xtask bless` (which sets
//! `COPYSCOPE_BLESS=1`) rewrites it from the native run.

use compiler_core::{Stage, STAGES};
use wasm_bindgen_test::wasm_bindgen_test;

const DESIGN_ORDER: [&str; 14] = [
    "instr-emitter",
    "phi-elimination",
    "two-address",
    "register-coalescer",
    "nvptx-coalescer",
    "ptx-emit",
    "ptx-lower",
    "general-optimize-early",
    "general-optimize",
    "general-optimize-mid",
    "general-optimize-mid2",
    "general-optimize-late",
    "general-optimize-late2",
    "ptx-out",
];

#[wasm_bindgen_test(unsupported = test)]
fn fourteen_stages_with_design_ids_in_order() {
    let ids: Vec<&str> = STAGES.iter().map(|s| s.id).collect();
    assert_eq!(ids, DESIGN_ORDER);
}

#[wasm_bindgen_test(unsupported = test)]
fn general_optimize_runs_at_the_six_ptxas_phases() {
    let phases: Vec<(&str, u8)> = STAGES
        .iter()
        .filter_map(|s| s.phase.map(|p| (s.id, p)))
        .collect();
    assert_eq!(
        phases,
        [
            ("general-optimize-early", 13),
            ("general-optimize", 29),
            ("general-optimize-mid", 37),
            ("general-optimize-mid2", 46),
            ("general-optimize-late", 58),
            ("general-optimize-late2", 65),
        ]
    );
}

#[wasm_bindgen_test(unsupported = test)]
fn every_stage_has_a_summary_and_ids_parse_back() {
    for info in STAGES.iter() {
        assert!(!info.summary.is_empty(), "{} has no summary", info.id);
        assert_eq!(info.id.parse::<Stage>(), Ok(info.stage));
        if let Some(spec) = info.spec {
            assert!(spec.starts_with("spec/"), "{}: {spec}", info.id);
        }
    }
}

#[wasm_bindgen_test(unsupported = test)]
fn table_json_matches_the_golden_file() {
    let actual = serde_json::to_string_pretty(&STAGES).expect("the stage table serializes") + "\n";
    check_golden("stages.json", &actual);
}

/// Compares `actual` with `tests/golden/<name>`; natively, `COPYSCOPE_BLESS=1` rewrites
/// the file instead. In wasm there is no file system: the file is compiled in.
fn check_golden(name: &str, actual: &str) {
    #[cfg(not(target_family = "wasm"))]
    let expected = {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/golden")
            .join(name);
        if std::env::var_os("COPYSCOPE_BLESS").is_some_and(|v| v == "1") {
            std::fs::write(&path, actual).expect("golden file is writable");
            return;
        }
        std::fs::read_to_string(&path).unwrap_or_default()
    };
    #[cfg(target_family = "wasm")]
    let expected = match name {
        "stages.json" => include_str!("golden/stages.json"),
        other => panic!("no golden file {other} compiled in"),
    };
    assert!(
        actual == expected,
        "tests/golden/{name} differs from the output; if the change is intended, run `cargo xtask bless`\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}
