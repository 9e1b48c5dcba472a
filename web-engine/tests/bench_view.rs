//! `cargo xtask bench` (second part): what seeking costs in the playground. The engine's
//! `Session::view` is what the page asks for on every step: the function before and
//! after the step (replayed from checkpoints, both printed with their line maps), the
//! marks, the edit rows, the payload rows and the stage's pictures.
//!
//! Inputs are generated (compiler-core's `testgen::synthetic`) large enough that their
//! busiest stage records over 10,000 steps. For every MIR stage with at least 1,000
//! steps: the first view (which builds the checkpoints), 200 views of pseudo-random
//! steps, and 200 views of consecutive steps (stepping, as Next and Play do). Wall
//! time, release build; written as Markdown to `COPYSCOPE_BENCH_VIEW_OUT` (xtask:
//! `docs/bench-view.md`).

use compiler_core::testgen::synthetic;
use std::fmt::Write as _;
use std::time::Instant;
use web_engine::protocol::RunRequest;
use web_engine::Session;

const VIEWS: u32 = 200;

/// Mean and worst of `times` (ms).
fn stats(times: &[f64]) -> (f64, f64) {
    let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
    (mean, times.iter().copied().fold(0.0, f64::max))
}

#[test]
#[ignore = "a benchmark: cargo xtask bench"]
fn view_bench() {
    let out = std::env::var("COPYSCOPE_BENCH_VIEW_OUT").ok();
    let mut md = String::new();
    md.push_str(
        "# Benchmarks: seeking in the playground\n\nWritten by `cargo xtask bench` \
         (web-engine/tests/bench_view.rs). `Session::view` is what the page asks the engine \
         for on every step: the function before and after the step, replayed from \
         checkpoints and printed with their line maps, the marks, edits, payload rows and \
         pictures. Native release build, wall time in ms; in the browser expect 1.3–1.6× \
         (docs/bench-wasm.md). Random: 200 views of pseudo-random steps; next: 200 \
         consecutive steps, as Next and Play ask for them.\n\n\
         | input | insts | stage | steps | first view (ms) | random mean | random worst | next mean | next worst | view text (KB) |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut worst_random = 0f64;
    for (name, source) in [
        ("phi-swaps 6000", synthetic::phi_swaps(6000)),
        ("tuples 7000", synthetic::tuples(7000)),
        ("copy-chain 12000", synthetic::copy_chain(12000)),
    ] {
        let insts = source.lines().filter(|l| l.starts_with("    ")).count();
        let req = RunRequest {
            source,
            ..RunRequest::default()
        };
        let (mut s, summary) = Session::run(1, &req, &mut |_| {}).expect("the input runs");
        for st in &summary.stages {
            if st.steps < 1000 || !st.replayable {
                continue;
            }
            let t = Instant::now();
            let v = s.view(st.stage, st.steps / 2).expect("a view");
            let first = t.elapsed().as_secs_f64() * 1e3;
            let text_kb =
                (v.before.text.len() + v.after.as_ref().map_or(0, |a| a.text.len())).div_ceil(1024);
            let mut random = Vec::new();
            let mut seed = 0x9e37_79b9_u64;
            for _ in 0..VIEWS {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                let step = ((seed >> 33) % u64::from(st.steps)) as u32 + 1;
                let t = Instant::now();
                std::hint::black_box(s.view(st.stage, step).expect("a view"));
                random.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let mut next = Vec::new();
            let start = st.steps / 3;
            for step in start..(start + VIEWS).min(st.steps) {
                let t = Instant::now();
                std::hint::black_box(s.view(st.stage, step + 1).expect("a view"));
                next.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let (rm, rw) = stats(&random);
            let (nm, nw) = stats(&next);
            worst_random = worst_random.max(rw);
            let _ = writeln!(
                md,
                "| {name} | {insts} | {} | {} | {first:.1} | {rm:.2} | {rw:.2} | {nm:.2} | {nw:.2} | {text_kb} |",
                st.stage.id(),
                st.steps
            );
            eprint!(".");
        }
    }
    eprintln!();
    let _ = writeln!(
        md,
        "\nWorst view of a random step after the first: {worst_random:.2} ms."
    );
    println!("{md}");
    if let Some(path) = out {
        std::fs::write(&path, &md).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
}
