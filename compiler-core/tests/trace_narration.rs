//! Narrations are stored as a shared template and their numbers (`trace::Narration`):
//! on every step of every gallery example, in every form, through the whole pipeline,
//! the stored form is exactly what splitting the printed sentence gives again (so the
//! JSON prints the sentence the pass wrote; `Narration`'s unit tests check that
//! printing gives back any text byte for byte), and steps with the same template share
//! one copy of it.

use compiler_core::examples::EXAMPLES;
use compiler_core::pipeline::{run, RunOptions};
use compiler_core::trace::Narration;
use std::collections::BTreeMap;

#[test]
fn every_gallery_narration_is_stored_as_its_template_and_numbers() {
    let opts = RunOptions {
        trace: true,
        ..RunOptions::default()
    };
    let (mut steps, mut templates) = (0usize, 0usize);
    for ex in EXAMPLES {
        for &(_, text) in ex.forms {
            let result = run(text, &opts).unwrap_or_else(|e| panic!("{}: {e:?}", ex.name));
            for stage in &result.stages {
                // One recorder per function (or one for the stage): templates are
                // shared within it.
                let groups: Vec<std::ops::Range<usize>> = if stage.functions.is_empty() {
                    std::iter::once(0..stage.steps.len()).collect()
                } else {
                    stage
                        .functions
                        .iter()
                        .map(|f| f.first..f.first + f.count)
                        .collect()
                };
                for g in groups {
                    let mut shared: BTreeMap<String, usize> = BTreeMap::new();
                    for s in stage.steps.range(g) {
                        let sentence = s.narration.text();
                        assert_eq!(
                            Narration::new(&sentence),
                            s.narration,
                            "{}: {sentence}",
                            ex.name
                        );
                        let json = serde_json::to_value(&s).unwrap();
                        assert_eq!(json["narration"], sentence.as_str());
                        let at = s.narration.template_ptr();
                        match shared.get(s.narration.template()) {
                            Some(&p) => assert_eq!(p, at, "{}: template stored twice", ex.name),
                            None => {
                                shared.insert(s.narration.template().to_string(), at);
                            }
                        }
                        steps += 1;
                    }
                    templates += shared.len();
                }
            }
        }
    }
    assert!(steps > 1_000, "only {steps} steps");
    assert!(
        templates * 3 < steps,
        "{templates} templates for {steps} steps"
    );
}
