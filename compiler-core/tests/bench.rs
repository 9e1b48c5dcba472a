//! `cargo xtask bench`: per-pass throughput with tracing off and on, scaling, trace
//! size, seek time, and (with `COPYSCOPE_BENCH_LLC=1`) llc-22 side by side. Ignored in
//! normal test runs; speed is measured here, never asserted in tests.
//! Writes a Markdown table to `COPYSCOPE_BENCH_OUT` when set.

use compiler_core::knobs::Knobs;
use compiler_core::mir::{parse_module, Function, Op};
use compiler_core::passes::{nvptx_coalescer, phi_elim, register_coalescer, two_address};
use compiler_core::pipeline::{
    nvptx_coalescer_options, phi_elim_options, register_coalescer_options, two_address_options,
};
use compiler_core::testgen::synthetic::{phi_swaps_ll, FAMILIES};
use compiler_core::trace::{NoTrace, Player, Recorder, Step, StepLog};
use std::fmt::Write;
use std::time::{Duration, Instant};

const STAGES: [&str; 4] = [
    "phi-elimination",
    "two-address",
    "register-coalescer",
    "nvptx-coalescer",
];

fn run<R: Recorder>(stage: usize, f: &mut Function, rec: &mut R) {
    let k = Knobs::default();
    match stage {
        0 => {
            phi_elim::run(f, &phi_elim_options(&k), rec);
        }
        1 => {
            two_address::run(f, &two_address_options(&k), rec);
        }
        2 => {
            register_coalescer::run(f, &register_coalescer_options(&k), rec);
        }
        _ => {
            nvptx_coalescer::run(f, &nvptx_coalescer_options(&k), rec);
        }
    }
}

/// Best of `reps` runs of `stage` on a fresh copy of `input`.
fn time_untraced(stage: usize, input: &Function, reps: u32) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let mut f = input.clone();
        let t = Instant::now();
        run(stage, &mut f, &mut NoTrace::default());
        best = best.min(t.elapsed());
    }
    best
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn vm_hwm_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        })
        .unwrap_or(0)
}

#[test]
#[ignore]
fn bench() {
    let mut md = String::new();
    let _ = writeln!(md, "# Benchmarks\n\nWritten by `cargo xtask bench` (release profile, this machine: 2 cores shared). Times are the best of 3 runs (1 at 100k) of one pass on the output of the passes before it.\n");
    let _ = writeln!(md, "## Per-pass time\n\n| family | insts | pass | off (ms) | M insts/s | on (ms) | steps | trace bytes/step |\n|---|---:|---|---:|---:|---:|---:|---:|");
    let mut times: Vec<(String, usize, usize, f64)> = Vec::new();
    let mut biggest: Option<(Function, Vec<Step>)> = None;
    for &(name, make) in FAMILIES {
        for n in [1_000usize, 10_000, 100_000] {
            let m = parse_module(&make(n)).unwrap();
            let mut f = m.functions.into_iter().next().unwrap();
            let count = f.all_insts().count();
            for (s, stage) in STAGES.iter().enumerate() {
                let reps = if n >= 100_000 { 1 } else { 3 };
                let off = time_untraced(s, &f, reps);
                let mut g = f.clone();
                let mut log = StepLog::default();
                let t = Instant::now();
                run(s, &mut g, &mut log);
                let on = t.elapsed();
                let bytes: usize = log
                    .steps
                    .iter()
                    .map(|st| serde_json::to_vec(st).map_or(0, |v| v.len()))
                    .sum();
                let per = if log.steps.is_empty() {
                    0
                } else {
                    bytes / log.steps.len()
                };
                let _ = writeln!(
                    md,
                    "| {name} | {count} | {stage} | {:.2} | {:.2} | {:.2} | {} | {per} |",
                    ms(off),
                    count as f64 / off.as_secs_f64() / 1e6,
                    ms(on),
                    log.steps.len()
                );
                times.push((name.to_string(), n, s, ms(off)));
                if log.steps.len() >= 10_000
                    && biggest
                        .as_ref()
                        .is_none_or(|(_, st)| st.len() > log.steps.len())
                {
                    biggest = Some((f.clone(), log.steps));
                }
                f = g;
            }
        }
    }
    let _ = writeln!(md, "\n## Scaling: time(10N) / time(N), tracing off (target ≤ 12)\n\n| family | pass | 10k/1k | 100k/10k |\n|---|---|---:|---:|");
    let mut worst: f64 = 0.0;
    for &(name, _) in FAMILIES {
        for (s, stage) in STAGES.iter().enumerate() {
            let t = |n: usize| {
                times
                    .iter()
                    .find(|x| x.0 == name && x.1 == n && x.2 == s)
                    .map_or(0.0, |x| x.3)
            };
            let r1 = t(10_000) / t(1_000).max(1e-3);
            let r2 = t(100_000) / t(10_000).max(1e-3);
            worst = worst.max(r2);
            let _ = writeln!(md, "| {name} | {stage} | {r1:.1} | {r2:.1} |");
        }
    }
    if let Some((input, steps)) = &biggest {
        let player = Player::new(input, steps).unwrap();
        let mut max = Duration::ZERO;
        let mut total = Duration::ZERO;
        let n = steps.len();
        let probes = 50;
        for k in 0..probes {
            let at = (k * 7919 + 13) % (n + 1);
            let t = Instant::now();
            let _ = player.seek(at).unwrap();
            let e = t.elapsed();
            max = max.max(e);
            total += e;
        }
        let _ = writeln!(md, "\n## Seeking\n\nA {n}-step trace on a {}-instruction function: {probes} seeks, mean {:.2} ms, worst {:.2} ms (target < 5 ms).", input.all_insts().count(), ms(total) / probes as f64, ms(max));
    }
    if std::env::var("COPYSCOPE_BENCH_LLC").is_ok_and(|v| v == "1") {
        llc_side_by_side(&mut md);
    }
    let _ = writeln!(
        md,
        "\n## Memory\n\nPeak resident memory of the whole bench process (VmHWM): {} MB.",
        vm_hwm_kb() / 1024
    );
    println!("{md}");
    println!("worst 100k/10k ratio: {worst:.1}");
    if let Ok(p) = std::env::var("COPYSCOPE_BENCH_OUT") {
        std::fs::write(&p, &md).unwrap();
    }
}

/// two-address + register-coalescer on llc-22's own MIR of a ~100k-instruction loop of
/// PHI swaps: llc-22 whole process against ours (parse, both passes, print).
fn llc_side_by_side(md: &mut String) {
    let dir = std::env::temp_dir().join("copyscope-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let ll = dir.join("swaps.ll");
    let pre = dir.join("swaps.pre.mir");
    let out = dir.join("swaps.out.mir");
    std::fs::write(&ll, phi_swaps_ll(100_000)).unwrap();
    let st = std::process::Command::new("llc-22")
        .args([
            "-march=nvptx64",
            "-mcpu=sm_90",
            "-stop-before=twoaddressinstruction",
        ])
        .arg(&ll)
        .arg("-o")
        .arg(&pre)
        .status();
    if !matches!(st, Ok(s) if s.success()) {
        let _ = writeln!(md, "\n## llc-22\n\nllc-22 could not produce the input MIR.");
        return;
    }
    let t = Instant::now();
    let st = std::process::Command::new("llc-22")
        .args([
            "-march=nvptx64",
            "-mcpu=sm_90",
            "-run-pass=twoaddressinstruction,register-coalescer",
        ])
        .arg(&pre)
        .arg("-o")
        .arg(&out)
        .status();
    let llc_time = t.elapsed();
    assert!(matches!(st, Ok(s) if s.success()));
    let text = std::fs::read_to_string(&pre).unwrap();
    let t = Instant::now();
    let mut m = parse_module(&text).unwrap();
    for f in &mut m.functions {
        two_address::run(
            f,
            &two_address_options(&Knobs::default()),
            &mut NoTrace::default(),
        );
        register_coalescer::run(
            f,
            &register_coalescer_options(&Knobs::default()),
            &mut NoTrace::default(),
        );
    }
    let printed = compiler_core::mir::print_module(&m);
    let ours = t.elapsed();
    let count = |m: &compiler_core::mir::Module| -> usize {
        m.functions
            .iter()
            .map(|f| {
                f.all_insts()
                    .filter(|&(_, i)| f.insts[i].is(Op::COPY))
                    .count()
            })
            .sum()
    };
    let llc_m = parse_module(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let insts: usize = parse_module(&text).unwrap().functions[0]
        .all_insts()
        .count();
    let _ = writeln!(md, "\n## llc-22 side by side\n\nInput: `phi_swaps_ll(100000)` compiled by `llc-22 -stop-before=twoaddressinstruction` ({insts} instructions). Both run two-address + register-coalescer, tracing off.\n\n| | time (ms) | COPYs left |\n|---|---:|---:|\n| llc-22 `-run-pass=twoaddressinstruction,register-coalescer` (whole process) | {:.1} | {} |\n| CopyScope (parse + both passes + print, in process) | {:.1} | {} |\n\nSpeed-up: {:.1}×; printed output {} bytes.", ms(llc_time), count(&llc_m), ms(ours), count(&m), ms(llc_time) / ms(ours).max(1e-3), printed.len());
}
