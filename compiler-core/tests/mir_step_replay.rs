//! Every step of phi-elimination and two-address, on the gallery and on the bench's
//! synthetic families, replays from the stage's input to exactly the stage's output:
//! the compact forms of the trace (inserted instructions packed, LiveVariables' flag
//! rewrites kept as a rule that replay recomputes) lose nothing. Seeking back across a
//! rule (which cannot be undone: a wall) lands on the same function too.

use compiler_core::examples::EXAMPLES;
use compiler_core::knobs::Knobs;
use compiler_core::mir::{print_function, Function};
use compiler_core::pipeline::{entry_stage, parse_input, plan, run_stage, Ir, RunOptions};
use compiler_core::trace::{Checkpoints, Edit, Steps};

/// Replays `steps` over `input`: the end is `output`, and every step reached forward
/// equals the same step reached backward from the end. Returns how many LiveFlags
/// rules the steps hold.
fn replay(what: &str, input: &Function, steps: Steps<'_>, output: &Function) -> usize {
    let cp = Checkpoints::build(input, steps, 16).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let end = cp.seek(steps, steps.len()).unwrap();
    assert_eq!(print_function(&end), print_function(output), "{what}");
    let mut back = end.clone();
    let mut at = steps.len();
    for n in (0..steps.len()).rev().step_by(7) {
        cp.seek_from(steps, at, n, &mut back).unwrap();
        at = n;
        let fresh = cp.seek(steps, n).unwrap();
        assert_eq!(
            print_function(&back),
            print_function(&fresh),
            "{what} step {n}"
        );
    }
    steps
        .iter()
        .map(|s| {
            s.edits
                .iter()
                .filter(|e| matches!(e, Edit::LiveFlags { .. }))
                .count()
        })
        .sum()
}

/// Runs `text` through every stage; replays the MIR → MIR stages among `stages`.
/// Returns the LiveFlags rules seen.
fn check(name: &str, text: &str, stages: &[&str]) -> usize {
    let knobs = Knobs::default();
    let Ok((_, mut ir, _)) = parse_input(text, None) else {
        return 0;
    };
    let mut rules = 0;
    for stage in plan(entry_stage(&ir), &RunOptions::default()).unwrap() {
        let before = ir.clone();
        let Ok(run) = run_stage(stage, &mut ir, &knobs, true) else {
            break;
        };
        let (Ir::Mir(a), Ir::Mir(b)) = (&before, &ir) else {
            continue;
        };
        if !stages.contains(&stage.id()) {
            continue;
        }
        for (k, fs) in run.functions.iter().enumerate() {
            let steps = run.steps.range(fs.first..fs.first + fs.count);
            let what = format!("{name} {stage} {}", fs.function);
            rules += replay(&what, &a.functions[k], steps, &b.functions[k]);
            // The JSON lists a rule's instructions one `replace` each.
            for s in steps {
                let json = serde_json::to_value(&s).unwrap();
                let listed = json["edits"].as_array().unwrap().len();
                let count: usize = s.edits.iter().map(Edit::count).sum();
                assert_eq!(listed, count, "{what}");
            }
        }
    }
    rules
}

const STAGES: [&str; 2] = ["phi-elimination", "two-address"];

#[test]
fn gallery_phi_elimination_and_two_address_steps_replay() {
    let mut rules = 0;
    for e in EXAMPLES {
        for &(_, text) in e.forms {
            rules += check(e.name, text, &STAGES);
        }
    }
    assert!(rules > 0, "no LiveFlags rule in the gallery");
}

/// The families whose first MIR stage rewrites every kill flag (copy-chain's
/// two-address, dag-chain's phi-elimination) record it as one rule.
#[test]
fn synthetic_family_phi_elimination_and_two_address_steps_replay() {
    for &(name, make) in compiler_core::testgen::synthetic::FAMILIES {
        let rules = check(name, &make(600), &STAGES);
        if name == "copy-chain" || name == "dag-chain" {
            assert!(rules > 0, "{name}: no LiveFlags rule");
        }
    }
}

/// `Checkpoints::route` prices an undone edit a quarter of a redone one and a restored
/// copy by its instruction slots (about 0.6 redone edits each), as measured on a
/// 12,000-instruction PHI elimination. On the phi-swaps family's 1,000-pair PHI
/// elimination (1,205 steps over 1,208 instructions, copies every 64 steps): going 500
/// steps back from the end walks (undoing some 1,200 edits costs less than copying the
/// function's 1,800 instruction slots; the old weights, a slot an eighth of an edit,
/// restored the copy below instead), and going 500 steps forward restores the copy at
/// or after the target. Both land on the function a fresh replay gives.
#[test]
fn a_seek_undoes_steps_rather_than_restore_a_copy_when_that_costs_less() {
    let text = (compiler_core::testgen::synthetic::FAMILIES.iter())
        .find(|(n, _)| *n == "phi-swaps")
        .map(|(_, make)| make(1_000))
        .unwrap();
    let (_, mut ir, _) = parse_input(&text, None).unwrap();
    let Ir::Mir(m) = ir.clone() else {
        panic!("phi-swaps is MIR")
    };
    let run = run_stage(
        compiler_core::Stage::PhiElimination,
        &mut ir,
        &Knobs::default(),
        true,
    )
    .unwrap();
    let steps = run.steps.range(..);
    assert_eq!(steps.len(), 1_205);
    let input = &m.functions[0];
    assert_eq!(input.all_insts().count(), 1_208);
    let cp = Checkpoints::build(input, steps, 64).unwrap();
    let end = steps.len();
    let back = end - 500;
    assert_eq!(cp.route(end, back), None, "500 steps back: undo");
    let ahead = cp.route(back, end).expect("500 steps ahead: from a copy");
    assert!(
        ahead * cp.every() >= back,
        "the copy at or after the target"
    );
    let mut f = cp.seek(steps, end).unwrap();
    for (at, n) in [(end, back), (back, end)] {
        cp.seek_from(steps, at, n, &mut f).unwrap();
        let fresh = cp.seek(steps, n).unwrap();
        assert_eq!(print_function(&f), print_function(&fresh), "step {n}");
    }
}
