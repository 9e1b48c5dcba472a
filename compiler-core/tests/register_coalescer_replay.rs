//! Every register-coalescer step replays, forward and back: its edits (a join's renames
//! kept as rules "these operands of %a now read %b", the kill flags dropped at the end
//! as one rule "clear the kill flags of these instructions' uses") rebuild exactly the function the pass made,
//! and undoing them rebuilds its input, on the bench's synthetic families and on every
//! gallery example that reaches the stage.

use compiler_core::examples::EXAMPLES;
use compiler_core::knobs::Knobs;
use compiler_core::mir::{print_function, Function};
use compiler_core::pipeline::{parse_input, plan, run_stage, Ir, RunOptions};
use compiler_core::stages::Stage;
use compiler_core::testgen::synthetic::FAMILIES;
use compiler_core::trace::{Change, Checkpoints, Edit, Steps};

/// Runs `text` untraced up to the register coalescer, then the coalescer traced; checks
/// each function's steps replay to its output and undo back to its input. Returns the
/// edits seen and how many were kept as rules.
fn check(name: &str, text: &str) -> (usize, usize) {
    let knobs = Knobs::default();
    let Ok((_, mut ir, _)) = parse_input(text, None) else {
        return (0, 0);
    };
    let entry = compiler_core::pipeline::entry_stage(&ir);
    let Ok(stages) = plan(entry, &RunOptions::default()) else {
        return (0, 0);
    };
    if !stages.contains(&Stage::RegisterCoalescer) {
        return (0, 0);
    }
    for &stage in stages
        .iter()
        .take_while(|&&s| s != Stage::RegisterCoalescer)
    {
        if run_stage(stage, &mut ir, &knobs, false).is_err() {
            return (0, 0);
        }
    }
    let Ir::Mir(before) = ir.clone() else {
        return (0, 0);
    };
    let Ok(run) = run_stage(Stage::RegisterCoalescer, &mut ir, &knobs, true) else {
        return (0, 0);
    };
    let Ir::Mir(after) = &ir else { unreachable!() };
    let (mut edits, mut rules) = (0, 0);
    for fs in &run.functions {
        let find = |m: &[Function]| m.iter().find(|f| f.name == fs.function).cloned();
        let (input, output) = (
            find(&before.functions).unwrap(),
            find(&after.functions).unwrap(),
        );
        let steps: Steps<'_> = run.steps.range(fs.first..fs.first + fs.count);
        for s in steps {
            for e in s.edits.iter() {
                // A DropKills rule counts as the flag changes it stands for.
                edits += e.count();
                if let Edit::Replace {
                    change: Change::Rename { .. } | Change::FlagBits { .. },
                    ..
                }
                | Edit::DropKills { .. } = e
                {
                    rules += e.count();
                }
            }
        }
        // One stored copy (the input): reaching the end replays every step, and going
        // back to 0 from there undoes every one of them.
        let cp = Checkpoints::build(&input, steps, usize::MAX).unwrap();
        let mut f = cp.seek(steps, steps.len()).unwrap();
        let want = print_function(&output);
        assert_eq!(print_function(&f), want, "{name} {}: replay", fs.function);
        let at_end = f.clone();
        for n in [steps.len() / 2, 0] {
            f = at_end.clone();
            cp.walk(steps, steps.len(), n, &mut f).unwrap();
            let mut g = input.clone();
            for s in steps.range(..n) {
                for e in s.edits.iter() {
                    compiler_core::trace::apply_edit(&mut g, e).unwrap();
                }
            }
            assert_eq!(
                print_function(&f),
                print_function(&g),
                "{name} {}: undo to step {n}",
                fs.function
            );
        }
        assert_eq!(
            print_function(&f),
            print_function(&input),
            "{name} {}: undo to the input",
            fs.function
        );
    }
    (edits, rules)
}

#[test]
fn every_register_coalescer_step_replays_on_the_bench_families() {
    for &(family, make) in FAMILIES {
        let (edits, rules) = check(family, &make(1000));
        assert!(edits > 0, "{family}: no edits");
        assert!(
            rules * 2 > edits,
            "{family}: only {rules} of {edits} edits are rules"
        );
    }
}

#[test]
fn every_register_coalescer_step_replays_on_the_gallery() {
    let (mut edits, mut rules) = (0, 0);
    for e in EXAMPLES {
        let Some((_, text)) = e.text(None) else {
            continue;
        };
        let (a, b) = check(e.name, text);
        edits += a;
        rules += b;
    }
    assert!(
        edits > 100 && rules > 50,
        "{rules} of {edits} edits are rules"
    );
}

/// The kill flags the pass drops as it finishes are one `DropKills` rule in its last
/// step, not a flag change per instruction: it names exactly the instructions that hold
/// a killed virtual-register use just before that step, the JSON lists one `replace`
/// for each of them (as it did when each was recorded apart), and replaying the step
/// leaves no killed virtual use.
#[test]
fn the_closing_kill_drop_is_one_rule_naming_each_killing_instruction() {
    use compiler_core::entity::EntityRef;
    use compiler_core::mir::oflag;
    let knobs = Knobs::default();
    let make = FAMILIES.iter().find(|f| f.0 == "dag-chain").unwrap().1;
    let (_, mut ir, _) = parse_input(&make(1000), None).unwrap();
    let stages = plan(
        compiler_core::pipeline::entry_stage(&ir),
        &RunOptions::default(),
    )
    .unwrap();
    for &stage in stages
        .iter()
        .take_while(|&&s| s != Stage::RegisterCoalescer)
    {
        run_stage(stage, &mut ir, &knobs, false).unwrap();
    }
    let Ir::Mir(before) = ir.clone() else {
        unreachable!()
    };
    let run = run_stage(Stage::RegisterCoalescer, &mut ir, &knobs, true).unwrap();
    let input = &before.functions[0];
    let steps = run.steps.range(..run.functions[0].count);
    let last = steps.last().unwrap();
    assert_eq!(last.kind, "done");
    let [Edit::DropKills { insts }] = &last.edits[..] else {
        panic!("the last step's edits: {:?}", last.edits);
    };
    let cp = Checkpoints::build(input, steps, 16).unwrap();
    let killing = |f: &Function| -> Vec<_> {
        f.all_insts()
            .map(|(_, i)| i)
            .filter(|&i| {
                f.insts[i]
                    .operands
                    .iter()
                    .any(|o| o.vreg_of().is_some() && o.is_use() && o.has(oflag::KILL))
            })
            .collect()
    };
    let want = killing(&cp.seek(steps, steps.len() - 1).unwrap());
    assert!(want.len() > 500, "{} killing instructions", want.len());
    assert_eq!(insts.iter().collect::<Vec<_>>(), want);
    let json = serde_json::to_value(last).unwrap();
    let listed = json["edits"].as_array().unwrap().to_vec();
    let each: Vec<_> = want
        .iter()
        .map(|i| serde_json::json!({"op": "replace", "inst": i.index()}))
        .collect();
    assert_eq!(listed, each);
    assert!(killing(&cp.seek(steps, steps.len()).unwrap()).is_empty());
}
