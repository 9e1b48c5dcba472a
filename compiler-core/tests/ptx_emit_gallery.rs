//! Every gallery example, in every form it has (DAG, MIR, PTX), runs from its entry
//! stage through the whole pipeline to `ptx-out`, and the PTX that comes out assembles
//! with ptxas 13.0.88 — for sm_90 and for sm_80.
//!
//! Where an example's instructions do not exist on a target the run must stop at
//! ptx-emit with an error naming the opcode and the architecture it needs: wgmma
//! (sm_90a; the module's target becomes `sm_90a`, which is what ptxas is given) and
//! the TMA form (sm_90). PTX-form examples carry their own `.target` (nvcc's sm_90
//! kernels), so they are assembled for that target only.

mod support;

use compiler_core::examples::EXAMPLES;
use compiler_core::knobs::Knobs;
use compiler_core::pipeline::{self, InputFormat, PipelineError, RunOptions};
use compiler_core::stages::{IrKind, Stage};

fn knobs(sm: u32) -> Knobs {
    let mut k = Knobs::default();
    k.set_from_str(&format!("sm=sm_{sm}")).unwrap();
    k
}

/// The architecture an opcode needs when it has none on `sm`, if any.
fn missing_on(text: &str, sm: u32) -> Option<&'static str> {
    if sm < 90 && text.contains("WGMMA_M64N32K16_F32") {
        return Some("WGMMA_M64N32K16_F32");
    }
    if sm < 90 && text.contains("TMA_LOAD_2D") {
        return Some("TMA_LOAD_2D");
    }
    None
}

fn target_of(ptx: &str) -> String {
    ptx.lines()
        .find_map(|l| l.trim().strip_prefix(".target "))
        .map(|t| t.split(',').next().unwrap_or("").trim().to_string())
        .unwrap_or_default()
}

#[test]
fn every_gallery_example_reaches_ptx_out_and_assembles() {
    let ptxas = support::ptxas::ptxas();
    let mut reached = Vec::new();
    let mut refused = Vec::new();
    let mut forms = 0;
    for ex in EXAMPLES {
        for &(format, text) in ex.forms {
            forms += 1;
            let sms: &[u32] = if format == InputFormat::Ptx {
                &[90]
            } else {
                &[90, 80]
            };
            for &sm in sms {
                let tag = format!("{} ({format}) sm_{sm}", ex.name);
                let opts = RunOptions {
                    until: Some(Stage::PtxOut),
                    knobs: knobs(sm),
                    ..RunOptions::default()
                };
                match pipeline::run(text, &opts) {
                    Err(PipelineError::StageFailed { stage, message }) => {
                        let op = missing_on(text, sm)
                            .unwrap_or_else(|| panic!("{tag}: stopped at {stage}: {message}"));
                        assert_eq!(stage, Stage::PtxEmit, "{tag}");
                        assert!(message.contains(op), "{tag}: {message}");
                        assert!(message.contains("sm_90"), "{tag}: {message}");
                        refused.push(format!("{tag}: {op} needs sm_90"));
                    }
                    Err(e) => panic!("{tag}: {e}"),
                    Ok(r) => {
                        assert!(missing_on(text, sm).is_none(), "{tag}: should not emit");
                        assert_eq!(r.output_kind, IrKind::Ptx, "{tag}");
                        assert_eq!(
                            r.stages.last().map(|s| s.stage),
                            Some(Stage::PtxOut),
                            "{tag}"
                        );
                        let target = target_of(&r.output);
                        if format != InputFormat::Ptx {
                            let want = if text.contains("WGMMA_M64N32K16_F32") {
                                "sm_90a".to_string()
                            } else {
                                format!("sm_{sm}")
                            };
                            assert_eq!(target, want, "{tag}");
                        }
                        if let Some(px) = ptxas {
                            let arch = target.trim_start_matches("sm_");
                            if let Err(e) =
                                support::ptxas::assemble_target(px, &r.output, arch, &tag)
                            {
                                panic!("{tag}: {e}\n{}", r.output);
                            }
                        }
                        reached.push(format!("{tag}: assembles for {target}"));
                    }
                }
            }
        }
    }
    eprintln!("reached ptx-out: {reached:#?}\nrefused: {refused:#?}");
    // The MIR/DAG examples' forms, plus 9 PTX examples.
    assert_eq!(forms, EXAMPLES.iter().map(|e| e.forms.len()).sum::<usize>());
    let non_ptx: usize = EXAMPLES
        .iter()
        .flat_map(|e| e.forms.iter())
        .filter(|f| f.0 != InputFormat::Ptx)
        .count();
    let ptx_forms = forms - non_ptx;
    // Every form reaches PTX for sm_90; for sm_80 all but the wgmma and TMA forms.
    let sm80_refused = refused.len();
    assert_eq!(reached.len() + sm80_refused, 2 * non_ptx + ptx_forms);
    // The MIR forms of wgmma-16frag and tma-2result (their DAG forms are gone: they
    // used opcodes llc-22 never prints).
    assert_eq!(sm80_refused, 2, "{refused:#?}");
}

/// ptx-emit alone, as the corpus test runs it: the TMA form needs sm_90, and says so
/// when asked for sm_80.
#[test]
fn tma_on_sm_80_is_refused_with_the_opcode_named() {
    let ex = EXAMPLES.iter().find(|e| e.name == "tma-2result").unwrap();
    let opts = RunOptions {
        until: Some(Stage::PtxEmit),
        knobs: knobs(80),
        ..RunOptions::default()
    };
    let e = pipeline::run(ex.forms[0].1, &opts).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("TMA_LOAD_2D") && msg.contains("sm_90"),
        "{msg}"
    );
}

/// GeneralOptimize keeps what the new instruction sequences compute: for every
/// DAG/MIR form, the PTX ptx-emit prints and the PTX ptx-out prints give the same
/// global memory in the PTX evaluator (128-thread CTAs: whole warps and warpgroups).
#[test]
fn ptx_out_computes_what_ptx_emit_printed() {
    use compiler_core::ori_interp as interp;
    use compiler_core::ptx;
    let mut compared = 0;
    for ex in EXAMPLES {
        for &(format, text) in ex.forms {
            // WMMA (warp-wide tensor-core instructions) has no semantics in the PTX
            // interpreter.
            if format == InputFormat::Ptx || ex.name == "wmma-chain" {
                continue;
            }
            let tag = format!("{} ({format})", ex.name);
            let at = |until: Stage| {
                let opts = RunOptions {
                    until: Some(until),
                    ..RunOptions::default()
                };
                let r = pipeline::run(text, &opts).unwrap_or_else(|e| panic!("{tag}: {e}"));
                ptx::parse(&r.output).unwrap_or_else(|e| panic!("{tag}: {e}"))
            };
            let (emitted, out) = (at(Stage::PtxEmit), at(Stage::PtxOut));
            for f in emitted.items.iter().filter_map(|i| match i {
                ptx::ast::Item::Func(f) if f.body.is_some() => Some(f),
                _ => None,
            }) {
                for seed in 0..4 {
                    let mut inputs =
                        interp::random_inputs(f.params.as_deref().unwrap_or(&[]), seed);
                    inputs.launch = interp::Launch {
                        grid: [1, 1, 1],
                        block: [128, 1, 1],
                    };
                    let cfg = interp::Config::default();
                    let a = interp::run_ptx(&emitted, &f.name, &inputs, &cfg);
                    let b = interp::run_ptx(&out, &f.name, &inputs, &cfg);
                    let a = a.unwrap_or_else(|e| panic!("{tag} seed {seed}: ptx-emit's PTX: {e}"));
                    let b = b.unwrap_or_else(|e| panic!("{tag} seed {seed}: ptx-out's PTX: {e}"));
                    assert_eq!(a.buffers, b.buffers, "{tag} seed {seed}");
                    compared += 1;
                }
            }
        }
    }
    eprintln!("{compared} runs agree");
    // 23 DAG/MIR forms (wmma-chain aside) x 4 seeds.
    assert!(compared >= 23 * 4, "{compared}");
}
