//! ptx-lower on every corpus PTX file (nvcc 13.0 and llc-22 output, and our own
//! ptx-emit output): the ORI prints as PTX that ptxas 13.0.88 assembles, lowering
//! the printed ORI again gives the same instructions, and the evaluator computes the
//! same global memory from the PTX as written and from the ORI, on seeded random
//! inputs.

mod support;

use support::ptx_files;

use compiler_core::passes::ptx_emit::{self, PtxEmitOptions};
use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
use compiler_core::ptx;
use compiler_core::trace::{NoTrace, StepLog};
use compiler_core::{ori, ori_interp as interp};

fn arch_of(m: &ptx::Module) -> u32 {
    m.target
        .iter()
        .find_map(|t| {
            t.strip_prefix("sm_")
                .and_then(|n| n.trim_end_matches('a').parse().ok())
        })
        .unwrap_or(90)
}

fn lower(m: &ptx::Module) -> ori::Module {
    ptx_lower::run(m, &PtxLowerOptions::default(), &mut NoTrace::default())
        .unwrap()
        .0
}

/// The instruction stream of an ORI module: (class, opcode word, PTX text) per inst.
fn shape(m: &ori::Module) -> Vec<(u16, String)> {
    let mut v = Vec::new();
    for f in m.functions() {
        for (_, i) in f.layout() {
            let inst = &f.insts[i];
            let text = ptx::print::inst_to_string(&ori::print::to_ptx(f, inst, 0));
            v.push((
                inst.opcode_word(),
                format!("{text} {}", ori::print::annotation(inst)),
            ));
        }
    }
    v
}

fn check_file(
    name: &str,
    m: &ptx::Module,
    ptxas: Option<&std::path::Path>,
    skipped: &mut Vec<String>,
) -> usize {
    let mut log = StepLog::default();
    let (o, stats) = ptx_lower::run(m, &PtxLowerOptions::default(), &mut log)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(stats.get("instructions") > 0, "{name}");
    assert!(
        log.steps.iter().any(|s| s.kind == "lower"),
        "{name}: no lower steps"
    );
    // Every block starts with its anchor; only anchors are class 97.
    for f in o.functions() {
        for (b, blk) in f.blocks.iter() {
            assert_eq!(
                f.insts[blk.insts[0]].class,
                ori::Class::Anchor,
                "{name} bb{b}"
            );
            for &i in &blk.insts[1..] {
                assert_ne!(f.insts[i].class.number(), 97, "{name}");
            }
        }
    }
    let text = ori::print::print(&o);
    let re = ptx::parse(&text)
        .unwrap_or_else(|e| panic!("{name}: ORI print does not parse: {e}\n{text}"));
    assert_eq!(
        shape(&lower(&re)),
        shape(&o),
        "{name}: lowering the printed ORI differs"
    );
    if let Some(px) = ptxas {
        if let Err(e) = support::ptxas::assemble(px, &text, arch_of(m), name) {
            panic!("{name}: {e}\n{text}");
        }
    }
    // Evaluator: PTX as written vs ORI.
    let mut compared = 0;
    for f in m.items.iter().filter_map(|i| match i {
        ptx::Item::Func(f) if f.body.is_some() && f.kind == ptx::ast::FuncKind::Entry => Some(f),
        _ => None,
    }) {
        for seed in 0..4u64 {
            let inputs = interp::random_inputs(f.params.as_deref().unwrap_or(&[]), seed);
            let cfg = interp::Config::default();
            let before = interp::run_ptx(m, &f.name, &inputs, &cfg);
            let after = interp::run_ori(&o, &f.name, &inputs, &cfg);
            if let Err(interp::InterpError::Unsupported(why)) = &before {
                assert_eq!(before, after, "{name} {}", f.name);
                skipped.push(format!("{name} {}: {why}", f.name));
                break;
            }
            let b = before.unwrap_or_else(|e| panic!("{name} {} seed {seed}: {e}", f.name));
            assert!(b.executed > 0);
            assert_eq!(
                Ok(b),
                after,
                "{name} {} seed {seed}: PTX and ORI disagree",
                f.name
            );
            compared += 1;
        }
    }
    compared
}

#[test]
fn corpus_ptx_lowers_prints_assembles_and_evaluates_the_same() {
    let ptxas = support::ptxas::ptxas();
    let mut skipped = Vec::new();
    let mut compared = 0;
    let files = ptx_files();
    for f in &files {
        let name = f
            .strip_prefix(support::corpus_dir())
            .unwrap()
            .display()
            .to_string();
        let text = std::fs::read_to_string(f).unwrap();
        let m = ptx::parse(&text).unwrap();
        compared += check_file(&name, &m, ptxas, &mut skipped);
    }
    eprintln!(
        "{} files, {compared} runs compared; skipped (no semantics): {skipped:#?}",
        files.len()
    );
    assert!(compared >= 100, "only {compared} runs compared");
    assert!(skipped.iter().all(|s| s.contains("wmma")), "{skipped:#?}");
}

#[test]
fn our_emitted_ptx_lowers_and_evaluates_the_same() {
    let ptxas = support::ptxas::ptxas();
    let mut skipped = Vec::new();
    let mut compared = 0;
    for case in support::nvptx_cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let mir = std::fs::read_to_string(case.join("5-coalesced.mir")).unwrap();
        let module = compiler_core::mir::parse_module(&mir).unwrap();
        let Ok((p, _)) =
            ptx_emit::run(&module, &PtxEmitOptions::default(), &mut NoTrace::default())
        else {
            continue;
        };
        compared += check_file(&format!("{name} (ptx-emit)"), &p, ptxas, &mut skipped);
    }
    assert!(compared >= 40, "only {compared} runs compared");
    // The WMMA kernels reach PTX since the description has their `anonymous_N` rows;
    // the PTX evaluator has no wmma semantics, as for the corpus' own PTX above.
    assert!(skipped.iter().all(|s| s.contains("wmma")), "{skipped:#?}");
}

#[test]
fn the_evaluator_notices_a_dropped_modifier() {
    let text = std::fs::read_to_string(support::corpus_dir().join("cu_vec4/llc.ptx")).unwrap();
    let m = ptx::parse(&text).unwrap();
    let mut o = lower(&m);
    let name = "_Z10vec4_scalePK6float4PS_fi";
    let mut dropped = 0;
    for item in o.items.iter_mut() {
        if let ori::Item::Func(f) = item {
            for i in f.insts.values_mut() {
                for op in &mut i.operands {
                    if op.neg {
                        op.neg = false;
                        dropped += 1;
                    }
                }
            }
        }
    }
    assert_eq!(dropped, 1, "cu_vec4 has one sub.f32");
    let mut differ = false;
    for seed in 0..4 {
        let f = m.items.iter().find_map(|i| match i {
            ptx::Item::Func(f) => Some(f),
            _ => None,
        });
        let inputs = interp::random_inputs(f.unwrap().params.as_deref().unwrap(), seed);
        let cfg = interp::Config::default();
        let a = interp::run_ptx(&m, name, &inputs, &cfg).unwrap();
        assert_ne!(a.buffers, inputs.buffers, "the kernel writes its output");
        let b = interp::run_ori(&o, name, &inputs, &cfg).unwrap();
        differ |= a != b;
    }
    assert!(differ, "dropping the neg modifier must change some result");
}

/// nvcc and llc compiled the same CUDA source: their PTX must compute the same
/// memory (a check of the evaluator itself on two independent instruction streams).
#[test]
fn nvcc_and_llc_ptx_of_one_kernel_agree() {
    let mut agreed = Vec::new();
    for case in support::nvptx_cases() {
        let nv = case.join("nvcc.sm_90.ptx");
        if !nv.exists() {
            continue;
        }
        let a = ptx::parse(&std::fs::read_to_string(&nv).unwrap()).unwrap();
        let b = ptx::parse(&std::fs::read_to_string(case.join("llc.ptx")).unwrap()).unwrap();
        let fa = a.items.iter().find_map(|i| match i {
            ptx::Item::Func(f) if f.body.is_some() => Some(f),
            _ => None,
        });
        let fa = fa.unwrap();
        for seed in 0..3 {
            let inputs = interp::random_inputs(fa.params.as_deref().unwrap(), seed);
            let cfg = interp::Config::default();
            let ra = interp::run_ptx(&a, &fa.name, &inputs, &cfg);
            if matches!(ra, Err(interp::InterpError::Unsupported(_))) {
                break;
            }
            let rb = interp::run_ptx(&b, &fa.name, &inputs, &cfg);
            assert_eq!(
                ra.map(|o| o.buffers),
                rb.map(|o| o.buffers),
                "{}: nvcc and llc disagree (seed {seed})",
                case.display()
            );
            if seed == 0 {
                agreed.push(case.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    eprintln!("nvcc and llc agree on: {agreed:?}");
    assert!(agreed.len() >= 5, "{agreed:?}");
}
