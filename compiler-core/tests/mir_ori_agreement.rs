//! The acceptance check across the two IRs: the MIR interpreter on the
//! coalesced MIR (before ptx-emit) and the ORI evaluator on the ORI after ptx-emit
//! and ptx-lower compute the same global memory, on the MIR interpreter's seeded
//! random inputs, for every corpus function that has a PTX form and semantics.

mod support;

use compiler_core::interp;
use compiler_core::mir::parse_module;
use compiler_core::ori::interp as ori_interp;
use compiler_core::passes::ptx_emit::{self, PtxEmitOptions};
use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
use compiler_core::trace::NoTrace;

fn convert(i: &interp::Inputs) -> ori_interp::Inputs {
    ori_interp::Inputs {
        launch: ori_interp::Launch {
            grid: i.launch.grid,
            block: i.launch.block,
        },
        params: i.params.clone(),
        buffers: i
            .buffers
            .iter()
            .map(|r| ori_interp::Buffer {
                base: r.base,
                bytes: r.bytes.clone(),
            })
            .collect(),
    }
}

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

/// The same for the gallery, each example taken through every MIR stage first.
#[test]
fn gallery_mir_and_ori_agree() {
    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    for p in support::gallery_files() {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let m = support::gallery_coalesced(&p);
        let Ok((ptx, _)) = ptx_emit::run(&m, &PtxEmitOptions::default(), &mut NoTrace::default())
        else {
            skipped.push(format!("{name}: no PTX form"));
            continue;
        };
        let (o, _) =
            ptx_lower::run(&ptx, &PtxLowerOptions::default(), &mut NoTrace::default()).unwrap();
        let f = &m.functions[0];
        let mut runs = 0;
        for seed in 0..6u64 {
            let mi = interp::random_inputs(f, m.ir.as_deref(), seed);
            let before = match interp::run(f, &mi, &interp::Config::default()) {
                Ok(r) => r,
                Err(e) => {
                    skipped.push(format!("{name}: MIR interpreter: {e}"));
                    break;
                }
            };
            let after = match ori_interp::run_ori(&o, &f.name, &convert(&mi), &Default::default()) {
                Ok(r) => r,
                Err(e) => {
                    skipped.push(format!("{name}: ORI evaluator: {e}"));
                    break;
                }
            };
            for b in &after.buffers {
                let r = before
                    .outcome
                    .global
                    .iter()
                    .find(|r| r.base == b.base)
                    .unwrap();
                assert_eq!(r.bytes, b.bytes, "{name} seed {seed}");
            }
            runs += 1;
        }
        if runs > 0 {
            compared.push(format!("{name}: {runs} runs"));
        }
    }
    eprintln!("compared: {compared:#?}\nskipped: {skipped:#?}");
    assert!(compared.len() >= 5, "{compared:#?}");
}
