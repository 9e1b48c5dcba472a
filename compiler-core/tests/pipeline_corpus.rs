//! The whole implemented pipeline, with verification after every stage, on every corpus
//! MIR file and every gallery example: no panic, no verifier error, and a traced run
//! ends in the same text as an untraced one.

use compiler_core::pipeline::{run, RunOptions};
use std::path::Path;

fn mir_files() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in std::fs::read_dir(root.join("../../shared/corpus")).unwrap() {
        let dir = dir.unwrap().path();
        if dir.is_dir() {
            for f in std::fs::read_dir(&dir).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "mir") {
                    out.push(f);
                }
            }
        }
    }
    for f in std::fs::read_dir(root.join("gallery")).unwrap() {
        out.push(f.unwrap().path());
    }
    out.sort();
    out
}

#[test]
fn every_input_runs_the_pipeline_and_verifies() {
    let files = mir_files();
    assert!(files.len() >= 100);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display();
        let opts = RunOptions {
            verify: true,
            ..RunOptions::default()
        };
        // Regression: the generic coalescer used to erase a COPY twice when an earlier
        // join had already turned it into a self-copy (xtra_x86_tied_subreg/4-twoaddr).
        let quiet = run(&text, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!quiet.stages.is_empty(), "{name}: no stage ran");
        for s in &quiet.stages {
            assert_eq!(
                s.verify.as_deref(),
                Some(&[][..]),
                "{name} after {}",
                s.stage
            );
        }
        let traced = run(
            &text,
            &RunOptions {
                trace: true,
                ..opts
            },
        )
        .unwrap();
        assert_eq!(
            traced.output, quiet.output,
            "{name}: tracing changed the result"
        );
        for (a, b) in traced.stages.iter().zip(&quiet.stages) {
            assert_eq!(
                a.stats, b.stats,
                "{name} {}: stats differ with tracing",
                a.stage
            );
        }
    }
}
