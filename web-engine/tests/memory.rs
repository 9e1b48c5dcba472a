//! The engine's wasm memory on large inputs, in Node: a measurement, not a check
//! (ignored; `cargo xtask bench --wasm` runs it and copies the lines it prints into
//! docs/bench-wasm.md). Issue 31's goal: a 20,000-instruction input traced through the
//! whole pipeline stays under 300 MB; the lines say whether it does.
//!
//! Two synthetic families at 20,000 instructions go through
//! [`web_engine::handle`] exactly as the Web Worker takes it: a traced run of every
//! stage from the input's entry, then views of the first, middle and last step of every
//! stage (which build the seek tables). Printed per family: steps, the heap's peak in
//! this run (a counting allocator over the default one), and the linear memory
//! afterwards ([`web_engine::memory_bytes`]; it never shrinks, so it is the most any of
//! the runs so far needed). The families run in one instance, as the worker runs one
//! input after another, so the last figure is what a tab holds after all of them.

use compiler_core::testgen::synthetic::FAMILIES;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use wasm_bindgen_test::wasm_bindgen_test;

/// A line to Node's console in wasm, to stdout natively (where the heap figures are
/// the 64-bit build's and there is no linear memory).
macro_rules! say {
    ($($t:tt)*) => {
        #[cfg(target_family = "wasm")]
        wasm_bindgen_test::console_log!($($t)*);
        #[cfg(not(target_family = "wasm"))]
        println!($($t)*);
    };
}
use web_engine::protocol::{Request, Response, RunRequest};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The goal of issue 31, in bytes.
const LIMIT: u64 = 300_000_000;

/// Instructions per input.
const SIZE: usize = 20_000;

/// The families run: llc-22's comparison family (a loop of PHI swaps) and the one with
/// the most steps per instruction (a copy chain: the NVPTX coalescer records a step per
/// interval-tree event). Each takes minutes in Node on a shared machine, so not all six.
const FAMILIES_RUN: [&str; 2] = ["phi-swaps", "copy-chain"];

/// Milliseconds from some fixed start.
fn now_ms() -> f64 {
    #[cfg(target_family = "wasm")]
    {
        js_sys::Date::now()
    }
    #[cfg(not(target_family = "wasm"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
            * 1e3
    }
}

fn mb(b: u64) -> f64 {
    b as f64 / 1e6
}

#[wasm_bindgen_test(unsupported = test)]
#[ignore = "a measurement of minutes: cargo xtask bench --wasm runs it"]
fn twenty_thousand_instructions_memory() {
    say!(
        "wasm memory at start: {:.1} MB",
        mb(web_engine::memory_bytes())
    );
    let mut session = None;
    let mut worst = 0u64;
    let wanted = FAMILIES.iter().filter(|(n, _)| FAMILIES_RUN.contains(n));
    for (k, &(name, make)) in wanted.enumerate() {
        let source = make(SIZE);
        // The previous session goes first, as the worker drops it before a run.
        session = None;
        let base = LIVE.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let run = RunRequest {
            source,
            ..RunRequest::default()
        };
        let id = k as u64 + 1;
        let req = Request::Run { id, run };
        let summary = match web_engine::handle(&mut session, req, &mut |_| {}, &|| 0.0) {
            Response::RunDone(s) => s,
            other => panic!("{name}: the run failed: {other:?}"),
        };
        let held = LIVE.load(Ordering::Relaxed).saturating_sub(base) as u64;
        let run_peak = PEAK.load(Ordering::Relaxed).saturating_sub(base) as u64;
        say!(
            "memory detail: {name}: run heap peak {:.1} MB, held after the run {:.1} MB",
            mb(run_peak),
            mb(held)
        );
        let mut steps = 0u64;
        for st in &summary.stages {
            let (live0, peak0) = (LIVE.load(Ordering::Relaxed), PEAK.load(Ordering::Relaxed));
            PEAK.store(live0, Ordering::Relaxed);
            let t0 = now_ms();
            steps += u64::from(st.steps);
            for step in [1, st.steps.div_ceil(2), st.steps] {
                let req = Request::View {
                    run_id: id,
                    stage: st.stage,
                    step: step.min(st.steps),
                };
                if let Response::ViewFailed { message, .. } =
                    web_engine::handle(&mut session, req, &mut |_| {}, &|| 0.0)
                {
                    panic!("{name}: view {} step {step}: {message}", st.stage);
                }
            }
            let (live1, peak1) = (LIVE.load(Ordering::Relaxed), PEAK.load(Ordering::Relaxed));
            say!(
                "memory detail: {name}: {} ({} steps): views add {:+.1} MB held, peak +{:.1} MB, {:.0} ms",
                st.stage,
                st.steps,
                (live1 as f64 - live0 as f64) / 1e6,
                mb(peak1.saturating_sub(live0) as u64),
                now_ms() - t0
            );
            PEAK.store(peak0.max(peak1), Ordering::Relaxed);
        }
        let peak = PEAK.load(Ordering::Relaxed).saturating_sub(base) as u64;
        let memory = web_engine::memory_bytes();
        worst = worst.max(memory);
        say!(
            "wasm memory: {name} {SIZE}: {} stages, {steps} steps; linear memory after the run {:.1} MB (what the page shows), after the views {:.1} MB; heap peak of run and views {:.1} MB",
            summary.stages.len(),
            mb(summary.memory_bytes),
            mb(memory),
            mb(peak)
        );
        // The figure the page shows: the memory when the run was done (views come after).
        if cfg!(target_family = "wasm") {
            assert!(summary.memory_bytes > 0 && summary.memory_bytes <= memory);
        }
    }
    drop(session);
    say!(
        "wasm memory: worst {:.1} MB, goal < {:.0} MB: {}",
        mb(worst),
        mb(LIMIT),
        if worst < LIMIT { "met" } else { "NOT met" }
    );
}
