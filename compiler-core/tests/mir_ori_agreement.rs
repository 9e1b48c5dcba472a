//! The acceptance check across the two IRs: the MIR interpreter on the
//! coalesced MIR (before ptx-emit) and the ORI evaluator on the ORI after ptx-emit
//! and ptx-lower compute the same global memory, on the MIR interpreter's seeded
//! random inputs, for every corpus function that has a PTX form and semantics.

mod support;

use support::ori::convert;

use compiler_core::interp;
use compiler_core::mir::parse_module;
use compiler_core::ori::interp as ori_interp;
use compiler_core::passes::ptx_emit::{self, PtxEmitOptions};
use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
use compiler_core::trace::NoTrace;

#[test]
fn mir_before_ptx_emit_and_ori_after_ptx_lower_agree() {
    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    for case in support::nvptx_cases() {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(case.join("5-coalesced.mir")).unwrap();
        let m = parse_module(&text).unwrap();
        let Ok((p, _)) = ptx_emit::run(&m, &PtxEmitOptions::default(), &mut NoTrace::default())
        else {
            skipped.push(format!("{name}: no PTX form (anonymous opcodes)"));
            continue;
        };
        let (o, _) =
            ptx_lower::run(&p, &PtxLowerOptions::default(), &mut NoTrace::default()).unwrap();
        for f in &m.functions {
            let mut runs = 0;
            for seed in 0..6u64 {
                let mi = interp::random_inputs(f, m.ir.as_deref(), seed);
                let before = interp::run(f, &mi, &interp::Config::default());
                let after = ori_interp::run_ori(&o, &f.name, &convert(&mi), &Default::default());
                let before = match before {
                    Ok(r) => r,
                    Err(e) => {
                        skipped.push(format!("{name} {}: MIR interpreter: {e}", f.name));
                        break;
                    }
                };
                let after = after.unwrap_or_else(|e| panic!("{name} {} seed {seed}: {e}", f.name));
                for b in &after.buffers {
                    let r = before
                        .outcome
                        .global
                        .iter()
                        .find(|r| r.base == b.base)
                        .unwrap_or_else(|| panic!("{name}: no MIR region at 0x{:x}", b.base));
                    assert_eq!(
                        r.bytes, b.bytes,
                        "{name} {} seed {seed}: buffer at 0x{:x} differs",
                        f.name, b.base
                    );
                }
                runs += 1;
            }
            if runs > 0 {
                compared.push(format!("{name} {}: {runs} runs", f.name));
            }
        }
    }
    eprintln!("compared: {compared:#?}\nskipped: {skipped:#?}");
    assert!(compared.len() >= 12, "{compared:#?}");
}

/// Seeds per gallery form.
const GALLERY_SEEDS: u64 = 8;

/// The same for the gallery: every example in every DAG or MIR form, taken from its
/// entry stage through every MIR stage (instr-emitter when it is a DAG), on
/// [`GALLERY_SEEDS`] seeds each. No form may be skipped: each must reach PTX and ORI,
/// and the two interpreters must agree on every seed — on the global memory when both
/// finish, on failing when one fails (a random coordinate that points outside its
/// buffer fails both the same way).
#[test]
fn gallery_mir_and_ori_agree() {
    use compiler_core::examples::EXAMPLES;
    use compiler_core::pipeline::{self, InputFormat, RunOptions};
    use compiler_core::stages::{IrKind, Stage};
    let mut compared = Vec::new();
    let (mut forms, mut runs, mut both_failed) = (0, 0, 0);
    for ex in EXAMPLES {
        for &(format, text) in ex.forms {
            if format == InputFormat::Ptx {
                continue;
            }
            forms += 1;
            let tag = format!("{} ({format})", ex.name);
            let opts = RunOptions {
                until: Some(Stage::NvptxCoalescer),
                emit: Some(IrKind::Mir),
                ..RunOptions::default()
            };
            let r = pipeline::run(text, &opts).unwrap_or_else(|e| panic!("{tag}: {e}"));
            let m = parse_module(&r.output).unwrap_or_else(|e| panic!("{tag}: {e}"));
            let (ptx, _) = ptx_emit::run(&m, &PtxEmitOptions::default(), &mut NoTrace::default())
                .unwrap_or_else(|e| panic!("{tag}: no PTX: {e}"));
            let (o, _) = ptx_lower::run(&ptx, &PtxLowerOptions::default(), &mut NoTrace::default())
                .unwrap_or_else(|e| panic!("{tag}: {e}"));
            let f = &m.functions[0];
            let mut ok = 0;
            for seed in 0..GALLERY_SEEDS {
                let mi = interp::random_inputs(f, m.ir.as_deref(), seed);
                let before = interp::run(f, &mi, &interp::Config::default());
                let after = ori_interp::run_ori(&o, &f.name, &convert(&mi), &Default::default());
                match (before, after) {
                    (Ok(before), Ok(after)) => {
                        for b in &after.buffers {
                            let r = before
                                .outcome
                                .global
                                .iter()
                                .find(|r| r.base == b.base)
                                .unwrap_or_else(|| {
                                    panic!("{tag}: no MIR region at 0x{:x}", b.base)
                                });
                            if let Some(k) = (0..r.bytes.len().max(b.bytes.len()))
                                .find(|&k| r.bytes.get(k) != b.bytes.get(k))
                            {
                                let w = |v: &[u8]| v.get(k & !3..(k & !3) + 4).map(<[u8]>::to_vec);
                                panic!(
                                    "{tag} seed {seed}: buffer 0x{:x} differs at byte {k}: MIR {:02x?} ORI {:02x?}",
                                    b.base,
                                    w(&r.bytes),
                                    w(&b.bytes)
                                );
                            }
                        }
                        ok += 1;
                    }
                    (Err(a), Err(b)) => {
                        let (a, b) = (a.to_string(), b.to_string());
                        assert!(
                            a.contains("address") && b.contains("out of bounds"),
                            "{tag} seed {seed}: both fail, but differently:\n MIR: {a}\n ORI: {b}"
                        );
                        both_failed += 1;
                    }
                    (a, b) => panic!(
                        "{tag} seed {seed}: one interpreter fails:\n MIR: {:?}\n ORI: {:?}",
                        a.err().map(|e| e.to_string()),
                        b.err().map(|e| e.to_string())
                    ),
                }
                runs += 1;
            }
            assert!(ok > 0, "{tag}: no seed ran to the end");
            compared.push(format!("{tag}: {ok}/{GALLERY_SEEDS} seeds agree on memory"));
        }
    }
    eprintln!(
        "compared {forms} forms x {GALLERY_SEEDS} seeds = {runs} runs ({both_failed} fail alike): \
         {compared:#?}"
    );
    let want = EXAMPLES
        .iter()
        .flat_map(|e| e.forms.iter())
        .filter(|f| f.0 != InputFormat::Ptx)
        .count();
    assert_eq!(forms, want);
    assert_eq!(compared.len(), want);
}
