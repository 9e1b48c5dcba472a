//! Before/after golden files per pass: every gallery example is run through the
//! implemented pipeline and the IR after each stage is kept under
//! `tests/golden/passes/<example>/<nn>-<stage>.<ext>`, next to the input. A change in
//! any pass's output shows up here as a diff; `cargo xtask bless` accepts it.

use compiler_core::examples::EXAMPLES;
use compiler_core::golden::assert_golden;
use compiler_core::pipeline::{run, RunOptions};
use std::path::Path;

#[test]
fn every_pass_of_every_example_matches_its_golden_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/passes");
    for ex in EXAMPLES {
        let Some((format, text)) = ex.text(None) else {
            continue;
        };
        let dir = root.join(ex.name);
        assert_golden(dir.join(format!("00-input.{}", format.name())), text);
        let opts = RunOptions {
            trace: true,
            ..RunOptions::default()
        };
        let r = match run(text, &opts) {
            Ok(r) => r,
            Err(e) => {
                // Examples that stop at a stage (e.g. an opcode with no PTX form) record
                // the stages that did run, through the MIR ones.
                let mir = RunOptions {
                    trace: true,
                    emit: Some(compiler_core::stages::IrKind::Mir),
                    ..RunOptions::default()
                };
                assert_golden(dir.join("stopped.txt"), &format!("{e}\n"));
                run(text, &mir).unwrap_or_else(|e| panic!("{}: {e}", ex.name))
            }
        };
        for (k, s) in r.stages.iter().enumerate() {
            let out = s
                .output
                .as_deref()
                .expect("traced runs keep each stage's output");
            let ext = s.stage.info().output.name();
            assert_golden(
                dir.join(format!("{:02}-{}.{ext}", k + 1, s.stage.id())),
                out,
            );
        }
    }
}
