//! The acceptance check across the two IRs: the MIR interpreter on the
//! coalesced MIR (before ptx-emit) and the ORI evaluator on the ORI after ptx-emit
//! and ptx-lower compute the same global memory, on the MIR interpreter's seeded
//! random inputs, for every corpus function that has a PTX form and semantics.

mod support;

use support::ori::convert;

use compiler_core::interp;
use compiler_core::mir::{parse_module, Opcode};
use compiler_core::ori_interp;
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
            // WMMA (warp-wide tensor-core instructions) is modelled by neither
            // interpreter.
            if format == InputFormat::Ptx || ex.name == "wmma-chain" {
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
        .filter(|e| e.name != "wmma-chain")
        .flat_map(|e| e.forms.iter())
        .filter(|f| f.0 != InputFormat::Ptx)
        .count();
    assert_eq!(forms, want);
    assert_eq!(compared.len(), want);
}

/// What an interpreter left in global memory on each input seed (None: it stopped
/// with an error), as (base, bytes) per buffer.
type Memory = Vec<Option<Vec<(u64, Vec<u8>)>>>;

const RANDOM_SEEDS: u64 = 3;

fn mir_memory(
    f: &compiler_core::mir::Function,
    inputs: &[interp::Inputs],
) -> Result<Memory, String> {
    let mut out = Vec::new();
    for i in inputs {
        match interp::run(f, i, &interp::Config::default()) {
            Ok(r) => out.push(Some(
                r.outcome
                    .global
                    .iter()
                    .map(|g| (g.base, g.bytes.clone()))
                    .collect(),
            )),
            Err(_) => out.push(None),
        }
    }
    Ok(out)
}

/// The ORI interpreter's memory on the same inputs (Err: an instruction it has no
/// semantics for).
fn ori_memory(
    o: &compiler_core::ori::Module,
    name: &str,
    inputs: &[interp::Inputs],
) -> Result<Memory, String> {
    let mut out = Vec::new();
    for i in inputs {
        match ori_interp::run_ori(o, name, &convert(i), &Default::default()) {
            Ok(r) => out.push(Some(
                r.buffers
                    .iter()
                    .map(|b| (b.base, b.bytes.clone()))
                    .collect(),
            )),
            Err(e) if e.to_string().contains("unsupported") => return Err(e.to_string()),
            Err(_) => out.push(None),
        }
    }
    Ok(out)
}

/// Same memory: every buffer the ORI side has, equal to the MIR side's; both failing
/// alike counts as the same.
fn same(mir: &Memory, ori: &Memory) -> Result<(), String> {
    for (seed, (m, o)) in mir.iter().zip(ori).enumerate() {
        match (m, o) {
            (Some(m), Some(o)) => {
                for (base, bytes) in o {
                    match m.iter().find(|(b, _)| b == base) {
                        Some((_, want)) if want == bytes => {}
                        Some(_) => return Err(format!("seed {seed}: buffer 0x{base:x} differs")),
                        None => return Err(format!("seed {seed}: no MIR buffer at 0x{base:x}")),
                    }
                }
            }
            (None, None) => {}
            _ => return Err(format!("seed {seed}: only one side stops with an error")),
        }
    }
    Ok(())
}

/// Random programs (issue 28): wherever the MIR interpreter models every instruction
/// of a program, it computes the same global memory on the input and after every MIR
/// stage, and the ORI interpreter computes it too after ptx-emit + ptx-lower and after
/// each of the six GeneralOptimize bundles. Programs drawn from the interpretable rows
/// (both class dialects, and llc-22's) and from every row; the skipped ones are
/// counted with the reason.
#[test]
fn random_programs_agree_before_and_after_every_stage() {
    use compiler_core::knobs::Knobs;
    use compiler_core::pipeline::{self, RunOptions};
    use compiler_core::ptxas::general_optimize::{self as go, Options};
    use compiler_core::stages::{IrKind, Stage};
    use compiler_core::testgen::{generate, GenConfig, OpSet};
    use std::collections::BTreeMap;
    use support::ori::PHASES;

    let mut knobs = Knobs::default();
    knobs.set_from_str("sm=sm_90").unwrap();
    let (mut mir_checked, mut ori_checked) = (0, 0);
    let mut skipped: BTreeMap<String, u32> = BTreeMap::new();
    let mut skip = |why: &str| {
        // The reason without register numbers or offsets.
        let key: String = why.chars().take_while(|&c| c != '\n').collect();
        let key = key.split(" at ").next().unwrap_or(&key).to_string();
        *skipped.entry(key).or_insert(0) += 1;
    };
    let mut not_modelled = std::collections::BTreeSet::new();
    let configs = [
        ("interpretable", OpSet::Interpretable, false),
        ("llc-22", OpSet::Interpretable, true),
        ("every row", OpSet::All, false),
    ];
    for (kind, ops, llc22) in configs {
        for seed in 0..60u64 {
            let cfg = GenConfig {
                size: [12, 25, 40, 70][(seed % 4) as usize],
                ops,
                llc22,
                ..GenConfig::default()
            };
            let g = generate(seed, &cfg);
            let tag = format!("{kind} seed {seed}");
            let f0 = &g.module.functions[0];
            let inputs: Vec<interp::Inputs> = (0..RANDOM_SEEDS)
                .map(|s| interp::random_inputs(f0, g.module.ir.as_deref(), s))
                .collect();
            // Only where the MIR interpreter models every instruction.
            let unmodelled = f0.all_insts().find_map(|(_, i)| match f0.insts[i].opcode {
                Opcode::Known(op) if interp::has_semantics(op) => None,
                Opcode::Known(op) => Some(op.name().to_string()),
                Opcode::Other(s) => Some(f0.sym(s).to_string()),
            });
            if let Some(op) = unmodelled {
                skip("the MIR interpreter does not model an instruction");
                not_modelled.insert(op);
                continue;
            }
            let want = mir_memory(f0, &inputs).unwrap_or_else(|e| panic!("{tag}: {e}"));
            let mut last = None;
            for stage in [
                Stage::PhiElimination,
                Stage::TwoAddress,
                Stage::RegisterCoalescer,
                Stage::NvptxCoalescer,
            ] {
                let opts = RunOptions {
                    until: Some(stage),
                    emit: Some(IrKind::Mir),
                    ..RunOptions::default()
                };
                let r = pipeline::run(&g.text, &opts).unwrap_or_else(|e| panic!("{tag}: {e}"));
                let m = parse_module(&r.output).unwrap();
                let got = mir_memory(&m.functions[0], &inputs)
                    .unwrap_or_else(|e| panic!("{tag} after {stage}: {e}"));
                assert_eq!(
                    got, want,
                    "{tag}: the MIR interpreter after {stage} differs\n{}",
                    g.text
                );
                last = Some(m);
            }
            mir_checked += 1;
            let m = last.unwrap();
            let p = match ptx_emit::run(&m, &PtxEmitOptions::default(), &mut NoTrace::default()) {
                Ok((p, _)) => p,
                Err(e) => {
                    let e = e.to_string();
                    let why = if e.contains("SUBREG_TO_REG") {
                        "SUBREG_TO_REG (expanded after register allocation)"
                    } else if e.contains("$noreg") {
                        "a vector store of an undefined lane ($noreg)"
                    } else {
                        panic!("{tag}: a new ptx-emit gap: {e}")
                    };
                    skip(&format!("no PTX form: {why}"));
                    continue;
                }
            };
            let (mut o, _) =
                ptx_lower::run(&p, &PtxLowerOptions::default(), &mut NoTrace::default()).unwrap();
            let name = m.functions[0].name.clone();
            let mut ok = true;
            for phase in std::iter::once(None).chain(PHASES.iter().map(Some)) {
                if let Some(&phase) = phase {
                    go::run_module(
                        &mut o,
                        &Options::from_knobs(phase, &knobs),
                        &mut NoTrace::default(),
                    );
                }
                match ori_memory(&o, &name, &inputs) {
                    Ok(got) => same(&want, &got)
                        .unwrap_or_else(|e| panic!("{tag} ORI after {phase:?}: {e}\n{}", g.text)),
                    Err(e) => {
                        skip(&format!("ORI interpreter: {e}"));
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                ori_checked += 1;
            }
        }
    }
    eprintln!(
        "random programs: {mir_checked} of 180 checked by the MIR interpreter before and after \
         every MIR stage; {ori_checked} of them also by the ORI interpreter after ptx-lower \
         and each GeneralOptimize bundle; skipped (reason: count): {skipped:#?}; \
         the unmodelled instructions (first of each program): {not_modelled:?}"
    );
    assert!(mir_checked >= 120, "only {mir_checked} programs checked");
    // 36 since the generator declares `rnd_shared` (an IR module of its variables in
    // CICC's dialect too) and the ORI interpreter lays out module `.shared` variables.
    assert!(
        ori_checked >= 36,
        "only {ori_checked} programs checked by ORI"
    );
}
