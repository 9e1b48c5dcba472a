//! Every ORI step carries its IR edits: replaying the edits of a stage's steps, in
//! order, from the stage's input gives the stage's output, function by function, for
//! the six GeneralOptimize phases (the gallery's ORI examples, and every corpus PTX
//! file, real-world ones included). The ORI verifier runs on what every ORI stage
//! leaves (ptx-lower's output and each phase's), and its rules fire on broken ORI.

mod support;

use compiler_core::entity::EntityRef;
use compiler_core::examples;
use compiler_core::ori::edit::apply_ori_edit;
use compiler_core::ori::{self, BlockId, Function};
use compiler_core::pipeline::{self, Ir, Observer, RunOptions};
use compiler_core::stages::Stage;

/// Keeps each stage's ORI input.
#[derive(Default)]
struct Inputs(Vec<(Stage, Option<ori::Module>)>);

impl Observer for Inputs {
    fn stage_start(&mut self, _: usize, stage: Stage, input: &Ir) {
        let m = match input {
            Ir::Ori(m) => Some(m.clone()),
            _ => None,
        };
        self.0.push((stage, m));
    }
}

/// Each rule of the ORI verifier fires on a function broken for it (and only the
/// expected rule: the lowered function itself is clean).
#[test]
fn the_ori_verifier_names_each_broken_rule() {
    use compiler_core::ori::{Class, OpKind};
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry k(.param .u64 p)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\
        \t.reg .b64 %rd<2>;\n\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\
        \t@%p1 bra $L1;\n\tadd.u32 %r2, %r1, 1;\n$L1:\n\tld.param.u64 %rd1, [p];\n\
        \tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";
    let m = compiler_core::ptx::parse(text).unwrap();
    let (m, _) = compiler_core::passes::ptx_lower::run(
        &m,
        &Default::default(),
        &mut compiler_core::trace::NoTrace::default(),
    )
    .unwrap();
    let f0 = m.functions().next().unwrap().clone();
    assert_eq!(ori::verify::verify(&f0), vec![]);
    let rules = |f: &Function| -> Vec<&'static str> {
        let mut v: Vec<_> = ori::verify::verify(f).into_iter().map(|e| e.rule).collect();
        v.dedup();
        v
    };
    let placed: Vec<_> = f0.layout().collect();
    let find = |f: &Function, c: Class| {
        placed
            .iter()
            .map(|p| p.1)
            .find(|&i| f.insts[i].class == c)
            .unwrap()
    };
    // A use count off by one.
    let mut f = f0.clone();
    let r = f.reg_by_name("%r1").unwrap();
    f.regs[r].uses += 1;
    assert_eq!(rules(&f), ["counts"]);
    // The anchor of block 1 gone.
    let mut f = f0.clone();
    f.blocks[BlockId::new(1)].insts.remove(0);
    assert!(rules(&f).contains(&"anchor"), "{:?}", rules(&f));
    // A branch to a block that does not exist.
    let mut f = f0.clone();
    let bra = find(&f, Class::Branch);
    for o in f.insts[bra].operands.iter_mut() {
        if let OpKind::Block(b) = &mut o.kind {
            *b = BlockId::new(9);
        }
    }
    assert_eq!(rules(&f), ["branch-target"]);
    // A guard that is not a predicate.
    let mut f = f0.clone();
    f.insts[bra].guard = Some((r, false));
    assert!(rules(&f).contains(&"guard"), "{:?}", rules(&f));
    // An instruction placed twice.
    let mut f = f0.clone();
    let add = find(&f, Class::IntAdd);
    f.blocks[BlockId::ENTRY].insts.insert(1, add);
    assert!(rules(&f).contains(&"layout"), "{:?}", rules(&f));
    // An unguarded branch in the middle of a block.
    let mut f = f0.clone();
    f.insts[bra].guard = None;
    assert_eq!(
        rules(&f),
        ["counts"],
        "the branch ends its block: fine but for the count"
    );
    f.blocks[BlockId::ENTRY].insts.retain(|&i| i != bra);
    f.blocks[BlockId::ENTRY].insts.insert(1, bra);
    assert!(rules(&f).contains(&"terminator"), "{:?}", rules(&f));
}

fn functions(m: &ori::Module) -> Vec<&Function> {
    m.functions().collect()
}

fn same(a: &Function, b: &Function) -> bool {
    a.blocks == b.blocks && a.insts == b.insts && a.regs == b.regs
}

thread_local! {
    /// Step kinds met (the test asserts the ones [`own_edit`] checks were all met).
    static CHECKED: std::cell::RefCell<std::collections::BTreeSet<&'static str>> =
        Default::default();
}

/// A step that narrates a change to its focus instruction carries that change: the
/// edit of the right kind naming that instruction (not a neighbour step's).
fn own_edit(name: &str, s: &compiler_core::trace::Step) {
    let want: &[&str] = match s.kind.as_str() {
        "dead" | "exit_chain" | "mov_pair" => &["erase"],
        "fold_select" | "promote_load" => &["replace"],
        "resolve_guard" => &["replace", "erase"],
        "mark" => &["set_mark"],
        "replace_uses" => {
            assert!(
                s.ori_edits.iter().any(|e| e.op() == "rewrite_operand"),
                "{name}: {} has no operand rewrite",
                s.narration
            );
            return;
        }
        _ => return,
    };
    let Some(compiler_core::trace::Focus::Inst { inst }) = s.focus.first() else {
        panic!("{name}: {} has no focus", s.narration);
    };
    assert!(
        s.ori_edits
            .iter()
            .any(|e| e.inst().map(|i| i.index() as u32) == Some(*inst) && want.contains(&e.op())),
        "{name}: step `{}` ({}) does not carry its {want:?} of i{inst}: {:?}",
        s.kind,
        s.narration,
        s.ori_edits.iter().map(|e| e.op()).collect::<Vec<_>>()
    );
}

/// Runs `text` through the PTX pipeline traced and replays every ORI stage; returns how
/// many steps carried edits.
fn check(name: &str, text: &str, knobs: &[&str]) -> usize {
    let mut k = compiler_core::knobs::Knobs::default();
    for kv in knobs {
        k.set_from_str(kv).unwrap();
    }
    let opts = RunOptions {
        from: Some(compiler_core::InputFormat::Ptx),
        knobs: k,
        trace: true,
        ..Default::default()
    };
    let mut obs = Inputs::default();
    let r = pipeline::run_observed(text, &opts, &mut obs).unwrap_or_else(|e| panic!("{name}: {e}"));
    // What ptx-lower and every GeneralOptimize phase left: the ORI inputs of the next
    // stages (ptx-out's included).
    for (stage, m) in &obs.0 {
        if let Some(m) = m {
            let errors = ori::verify::verify_module(m);
            assert!(errors.is_empty(), "{name}: ORI before {stage}: {errors:#?}");
        }
    }
    let mut with_edits = 0;
    for (k, run) in r.stages.iter().enumerate() {
        let Some(input) = obs.0[k].1.as_ref() else {
            continue;
        };
        // The stage's output is the next stage's input (ptx-out, ORI to PTX, has no
        // steps).
        let Some((_, Some(output))) = obs.0.get(k + 1) else {
            assert!(run.steps.is_empty(), "{name} {}", run.stage);
            continue;
        };
        let (ins, outs) = (functions(input), functions(output));
        assert_eq!(run.functions.len(), ins.len(), "{name} {}", run.stage);
        for (j, range) in run.functions.iter().enumerate() {
            let mut f = ins[j].clone();
            for (l, s) in run
                .steps
                .range(range.first..range.first + range.count)
                .iter()
                .enumerate()
            {
                with_edits += usize::from(!s.ori_edits.is_empty());
                own_edit(name, &s);
                CHECKED.with(|c| c.borrow_mut().insert(s.kind.as_str()));
                let before = f.clone();
                for e in &s.ori_edits {
                    apply_ori_edit(&mut f, e).unwrap_or_else(|e| {
                        panic!(
                            "{name} {} {} step {l} ({}): {}",
                            run.stage, f.name, s.kind, e.0
                        )
                    });
                }
                // GeneralOptimize's steps carry what its journal saw: exactly the
                // edits a comparison of the whole function before and after the step
                // gives (ptx-lower builds its edits itself).
                if run.stage != Stage::PtxLower {
                    assert_eq!(
                        &*s.ori_edits,
                        &ori::edit::diff(&before, &f)[..],
                        "{name} {} {} step {l} ({})",
                        run.stage,
                        f.name,
                        s.kind
                    );
                }
            }
            assert!(
                same(&f, outs[j]),
                "{name} {}: replaying {} steps of {} does not give the output",
                run.stage,
                range.count,
                f.name
            );
        }
    }
    with_edits
}

#[test]
fn gallery_ori_steps_replay_to_each_stage_output() {
    let mut total = 0;
    for e in examples::EXAMPLES {
        let Some((compiler_core::InputFormat::Ptx, text)) = e.text(None) else {
            continue;
        };
        total += check(e.name, text, &[]);
    }
    // Knob settings the gallery tests use to show other paths.
    let runs: [(&str, &[&str]); 4] = [
        ("select-fold", &["sm=sm_50"]),
        ("iteration-cap", &["ptxas-option-464=1"]),
        ("mov-pairs", &["ptxas-option-31=0"]),
        ("select-fold", &["limit-fold-fp=true"]),
    ];
    for (name, knobs) in runs {
        let (_, text) = examples::find(name).unwrap().text(None).unwrap();
        total += check(name, text, knobs);
    }
    assert!(total > 20, "only {total} steps carried edits");
    let met = CHECKED.with(|c| c.borrow().clone());
    for kind in [
        "dead",
        "exit_chain",
        "mov_pair",
        "fold_select",
        "promote_load",
        "resolve_guard",
        "mark",
        "replace_uses",
        "settle",
    ] {
        assert!(met.contains(kind), "no `{kind}` step met: {met:?}");
    }
}

#[test]
fn corpus_ori_steps_replay_to_each_stage_output() {
    let mut files = support::real_ptx_files();
    files.extend(support::ptx_files());
    let mut total = 0;
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let m = compiler_core::ptx::parse_bytes(&bytes).unwrap();
        let text = compiler_core::ptx::print(&m);
        total += check(&f.display().to_string(), &text, &[]);
    }
    assert!(total > 0);
}

/// The bench's synthetic families (small sizes), from MIR through ptx-emit to PTX,
/// then through ptx-lower and the six GeneralOptimize phases: every ORI step replays.
#[test]
fn synthetic_family_ori_steps_replay_to_each_stage_output() {
    use compiler_core::testgen::synthetic::FAMILIES;
    let mut total = 0;
    for &(name, make) in FAMILIES {
        let opts = RunOptions {
            until: Some(Stage::PtxEmit),
            trace: false,
            ..Default::default()
        };
        let r = pipeline::run(&make(400), &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        total += check(name, &r.output, &[]);
    }
    assert!(total > 0);
}
