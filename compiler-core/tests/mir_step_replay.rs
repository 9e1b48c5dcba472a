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

/// `Checkpoints::route` from a known step restores a stored copy by difference (only
/// the slots written in between) where that costs less than walking, and walks a short
/// way. On the phi-swaps family's 1,000-pair PHI elimination (1,205 steps over 1,208
/// instructions, copies every 64 steps): going 40 steps back from the end undoes them;
/// going 500 steps back restores the copy at step 704 (the edits in between are mostly
/// inserts, whose slots a restore drops at once; when a restore copied every slot, as
/// before `Checkpoints::restore`, undoing the 1,200 edits cost less and the route
/// walked); going 500 steps forward restores the copy nearest the end. Each lands on the
/// function a fresh replay gives.
#[test]
fn a_seek_walks_a_few_steps_and_restores_a_copy_by_difference_for_many() {
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
    assert_eq!(cp.route(end, end - 40), None, "40 steps back: undo");
    assert_eq!(
        cp.route(end, back),
        Some(11),
        "500 steps back: the copy at 704"
    );
    let ahead = cp.route(back, end).expect("500 steps ahead: from a copy");
    assert_eq!(ahead, end / cp.every(), "the copy nearest the end");
    let mut f = cp.seek(steps, end).unwrap();
    for (at, n) in [(end, end - 40), (end - 40, back), (back, end)] {
        cp.seek_from(steps, at, n, &mut f).unwrap();
        let fresh = cp.seek(steps, n).unwrap();
        assert_eq!(print_function(&f), print_function(&fresh), "step {n}");
    }
}

/// `Checkpoints::restore` brings a function from any step to a stored copy by copying
/// only the instruction slots the edits in between wrote (and the layout, register
/// table, blocks and names as needed). On phi-swaps' register coalescing (the bench's
/// large seek row, smaller; operands rewritten at every join and every kill flag dropped
/// by one rule at the end) and its PHI elimination (inserts): from every 23rd step to
/// every copy and from the last step, the function equals the copy slot for slot (unplaced slots included) and
/// prints the same. A restore that skipped the rule's slots, or the slots past the
/// copy's end, differs.
#[test]
fn a_copy_restored_by_difference_equals_the_copy_from_any_step() {
    let text = (compiler_core::testgen::synthetic::FAMILIES.iter())
        .find(|(n, _)| *n == "phi-swaps")
        .map(|(_, make)| make(300))
        .unwrap();
    let (_, mut ir, _) = parse_input(&text, None).unwrap();
    let knobs = Knobs::default();
    let mut seen = 0;
    for stage in plan(entry_stage(&ir), &RunOptions::default()).unwrap() {
        let before = ir.clone();
        let wanted = ["phi-elimination", "register-coalescer"].contains(&stage.id());
        let run = run_stage(stage, &mut ir, &knobs, wanted).unwrap();
        let (true, Ir::Mir(m)) = (wanted, &before) else {
            continue;
        };
        seen += 1;
        let steps = run.steps.all();
        let cp = Checkpoints::build(&m.functions[0], steps, 64).unwrap();
        let mut f = cp.seek(steps, 0).unwrap();
        for k in 0..cp.copies() {
            let copy = cp.seek(steps, k * cp.every()).unwrap();
            // The last step too: the coalescer's kill-flag rule is there.
            for at in (0..=steps.len()).step_by(23).chain([steps.len()]) {
                cp.seek_into(steps, at, &mut f).unwrap();
                cp.restore(at, k, &mut f).unwrap();
                let what = format!("{stage}: copy {k} from step {at}");
                assert!(f.insts == copy.insts, "{what}: slots differ");
                assert_eq!(print_function(&f), print_function(&copy), "{what}");
            }
        }
    }
    assert_eq!(seen, 2);
}
