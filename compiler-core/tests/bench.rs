//! `cargo xtask bench`: per-stage time with tracing off and on over synthetic functions
//! of 1k / 10k / 100k instructions and the gallery, the scaling ratio
//! time(10N)/time(N), trace bytes per step, seek time on two traces of 10,000 steps or
//! more (the shortest, and the one over the largest function), peak heap per stage,
//! and (with `COPYSCOPE_BENCH_LLC=1`) llc-22 side by side, with two modules of a
//! thousand functions and more (family `many-functions`) through every stage and as whole
//! processes. Ignored in normal
//! test runs: speed is measured here, never asserted in tests.
//!
//! Environment: `COPYSCOPE_BENCH_OUT` (write the Markdown there), `COPYSCOPE_BENCH_SIZES`
//! (comma-separated sizes, default `1000,10000,100000`), `COPYSCOPE_BENCH_FAMILIES`
//! (comma-separated family names, default all), `COPYSCOPE_BENCH_LLC=1`,
//! `COPYSCOPE_BENCH_REPS` (untraced runs per stage), `COPYSCOPE_BENCH_TRACE=0` (skip
//! the traced run: for profiling under callgrind), `COPYSCOPE_BENCH_COLD=0` (no cold
//! runs in the per-stage table), `COPYSCOPE_BENCH_ROUNDS` (rounds of the
//! scaling table, default 7; 0 skips it), `COPYSCOPE_BENCH_STAGES` (comma-separated
//! stage ids: only these are timed and traced; the stages before them still run once,
//! untraced, to make their input), `COPYSCOPE_BENCH_BREAKDOWN=1` (print, per traced
//! stage, the heap the step log holds by part and the step kinds with the most JSON bytes).

mod support;

use compiler_core::examples::EXAMPLES;
use compiler_core::knobs::Knobs;
use compiler_core::mir::{parse_module, Function, Module, Op};
use compiler_core::pipeline::{parse_input, plan, run_stage, Ir, RunOptions};
use compiler_core::stages::Stage;
use compiler_core::testgen::synthetic::{phi_swaps_ll, FAMILIES};
use compiler_core::trace::{Checkpoints, Copies, CHECKPOINT_EVERY};
use mimalloc::MiMalloc as Heap;
use std::alloc::{GlobalAlloc, Layout};
use std::fmt::Write;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Counts live heap bytes and their high-water mark since the last [`reset_peak`], over
/// the allocator the CLI uses (mimalloc).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
/// Set while one thread alone allocates (the per-pass timing against llc-22): the
/// counts are then kept with plain loads and stores, not locked read-modify-writes,
/// which cost about a tenth of an allocation-heavy pass's time and are no part of the
/// pass (llc-22's allocator, like the CLI's, counts nothing).
static ONE_THREAD: AtomicBool = AtomicBool::new(false);

fn add_live(n: usize) {
    let now = if ONE_THREAD.load(Ordering::Relaxed) {
        let now = LIVE.load(Ordering::Relaxed) + n;
        LIVE.store(now, Ordering::Relaxed);
        now
    } else {
        LIVE.fetch_add(n, Ordering::Relaxed) + n
    };
    // Only a new high-water mark pays for the atomic maximum.
    if now > PEAK.load(Ordering::Relaxed) {
        PEAK.fetch_max(now, Ordering::Relaxed);
    }
}

fn sub_live(n: usize) {
    if ONE_THREAD.load(Ordering::Relaxed) {
        LIVE.store(
            LIVE.load(Ordering::Relaxed).wrapping_sub(n),
            Ordering::Relaxed,
        );
    } else {
        LIVE.fetch_sub(n, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { Heap.alloc(l) };
        if !p.is_null() {
            add_live(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { Heap.dealloc(p, l) };
        sub_live(l.size());
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { Heap.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                add_live(new - l.size());
            } else {
                sub_live(l.size() - new);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Starts a new high-water mark; returns the live bytes now.
fn reset_peak() -> usize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

/// Bytes allocated above `base` at the high-water mark since [`reset_peak`].
fn peak_above(base: usize) -> usize {
    PEAK.load(Ordering::Relaxed).saturating_sub(base)
}

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// CPU time of this thread (CLOCK_THREAD_CPUTIME_ID): unlike wall time it does not
/// count the time other jobs on a shared machine hold the core.
fn cpu_now() -> Duration {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; clock 3 is CLOCK_THREAD_CPUTIME_ID.
    let rc = unsafe { clock_gettime(3, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.sec as u64, ts.nsec as u32)
}

/// A stopwatch over this thread's CPU time.
struct Cpu(Duration);

impl Cpu {
    fn start() -> Self {
        Cpu(cpu_now())
    }
    fn elapsed(&self) -> Duration {
        cpu_now().saturating_sub(self.0)
    }
}

/// Bytes swept by [`evict_caches`]: twice the machine's last-level cache as Linux
/// reports it (the largest `cache/index*/size` of cpu0), and at least 128 MiB, so that
/// nothing the stage touches survives. (A fixed 128 MiB, written for a machine with a
/// 35.8 MiB L3, left half of a 260 MiB L3 warm: "cold" 100k runs then read their input
/// from L3.)
fn evict_bytes() -> usize {
    static BYTES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| {
        let llc = (0..8)
            .filter_map(|k| {
                let p = format!("/sys/devices/system/cpu/cpu0/cache/index{k}/size");
                let t = std::fs::read_to_string(p).ok()?;
                let t = t.trim();
                let (n, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit())?);
                let n: usize = n.parse().ok()?;
                Some(match unit {
                    "K" => n << 10,
                    "M" => n << 20,
                    _ => n,
                })
            })
            .max()
            .unwrap_or(0);
        (2 * llc).max(128 << 20)
    })
}

/// Writes one byte per cache line of a buffer larger than the last-level cache, so the
/// next timed run starts cold at every size, as one compiler invocation does. Without
/// it the 1k inputs run from a warm L2 (they were just cloned) while 10k and 100k do not,
/// and the 10k/1k ratio measures the caches rather than the stage.
fn evict_caches() {
    use std::sync::Mutex;
    static BUF: Mutex<Vec<u8>> = Mutex::new(Vec::new());
    let mut buf = BUF.lock().unwrap();
    if buf.is_empty() {
        buf.resize(evict_bytes(), 1);
    }
    for i in (0..buf.len()).step_by(64) {
        buf[i] = buf[i].wrapping_add(1);
    }
    std::hint::black_box(&*buf);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn env_list(name: &str) -> Option<Vec<String>> {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
        })
        .filter(|v| !v.is_empty())
}

/// What one stage measured on one input.
struct Row {
    family: String,
    size: usize,
    insts: usize,
    stage: Stage,
    /// Best untraced time with the stage's input just cloned (warm caches).
    off: Duration,
    /// Best untraced time with every cache level evicted first ([`evict_caches`]).
    cold: Duration,
    on: Duration,
    steps: usize,
    /// Heap the recorded steps held (what dropping them gave back: [`held_by`]).
    trace_bytes: usize,
    /// The same steps serialized as JSON (what the CLI prints for them).
    json_bytes: usize,
    peak_off: usize,
    peak_on: usize,
    /// The web engine's seek tables over the steps ([`checkpoint_memory`]).
    checkpoints: Option<Checkpointed>,
}

/// The heap `steps` hold, measured by the counting allocator as what dropping them
/// gives back: the step array with its spare room, every list, payload, narration
/// argument and (once each) the shared narration templates.
fn held_by(steps: compiler_core::trace::StepList) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    drop(steps);
    before.saturating_sub(LIVE.load(Ordering::Relaxed))
}

/// Instructions (MIR), statements (PTX/ORI) or nodes (DAG) of an IR.
fn size_of(ir: &Ir) -> usize {
    match ir {
        Ir::Mir(m) => m.functions.iter().map(|f| f.all_insts().count()).sum(),
        Ir::Dag(d) => d.nodes.len(),
        Ir::Ptx(_) | Ir::Ori(_) => ir.print().lines().count(),
    }
}

fn reps_for(size: usize) -> u32 {
    if let Some(r) = std::env::var("COPYSCOPE_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return r;
    }
    // Five at the largest size too: at 100k single runs vary by a fifth with what the
    // other jobs on the machine do to the shared last-level cache.
    match size {
        0..=2_000 => 7,
        _ => 5,
    }
}

/// One stage with tracing off. Not inlined, so that `valgrind --tool=callgrind
/// --toggle-collect='*untraced_stage*' --dump-after='*untraced_stage*'` writes one
/// profile per stage run (instruction counts: a load-independent scaling measure).
#[inline(never)]
fn untraced_stage(
    stage: Stage,
    ir: &mut Ir,
    knobs: &Knobs,
) -> Result<compiler_core::pipeline::StageRun, compiler_core::pipeline::PipelineError> {
    run_stage(stage, ir, knobs, false)
}

/// Runs every stage from `text`'s entry to the end, each timed on the output of the
/// stages before it. Returns the rows and, for the seek test, the largest MIR trace seen.
fn bench_input(
    family: &str,
    size: usize,
    text: &str,
    reps: u32,
    with_cold: bool,
    seek_pick: &mut SeekPicks,
) -> Vec<Row> {
    let knobs = Knobs::default();
    let Ok((_, mut ir, _)) = parse_input(text, None) else {
        println!("\n{family}: does not parse");
        return Vec::new();
    };
    let insts = size_of(&ir);
    let entry = compiler_core::pipeline::entry_stage(&ir);
    let stages = plan(entry, &RunOptions::default()).unwrap();
    let mut rows = Vec::new();
    let only = env_list("COPYSCOPE_BENCH_STAGES");
    for stage in stages {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|s| s == stage.id()))
        {
            if untraced_stage(stage, &mut ir, &knobs).is_err() {
                return rows;
            }
            continue;
        }
        let (mut off, mut cold) = (Duration::MAX, Duration::MAX);
        let mut peak_off = 0;
        let mut next = None;
        let runs = if with_cold { 2 * reps } else { reps };
        for rep in 0..runs {
            let warm = !with_cold || rep % 2 == 0;
            let mut x = ir.clone();
            if !warm {
                evict_caches();
            }
            let base = reset_peak();
            let t = Cpu::start();
            if let Err(e) = untraced_stage(stage, &mut x, &knobs) {
                // Some gallery examples stop a stage on purpose (limits, bad input).
                println!("\n{family}: {stage} stops: {e}");
                return rows;
            }
            let took = t.elapsed();
            if warm {
                off = off.min(took);
            } else {
                cold = cold.min(took);
            }
            peak_off = peak_off.max(peak_above(base));
            next = Some(x);
        }
        let mut x = ir.clone();
        let base = reset_peak();
        let t = Cpu::start();
        let traced = std::env::var("COPYSCOPE_BENCH_TRACE").map_or(true, |v| v != "0");
        let mut run = run_stage(stage, &mut x, &knobs, traced).unwrap();
        let on = t.elapsed();
        let peak_on = peak_above(base);
        let steps = std::mem::take(&mut run.steps);
        let json_bytes: usize = steps
            .iter()
            .map(|s| serde_json::to_vec(&s).map_or(0, |v| v.len()))
            .sum();
        let show_parts = std::env::var("COPYSCOPE_BENCH_BREAKDOWN").is_ok_and(|v| v == "1");
        if show_parts {
            breakdown(family, size, stage, steps.all());
        }
        // The seek test wants MIR traces of at least 10,000 steps over one function
        // (recorded again below: these steps are dropped to measure what they held).
        let n = steps.len();
        let wanted = match (&ir, run.functions.as_slice()) {
            (Ir::Mir(m), [only]) if only.count == n => seek_pick.wants(n, &m.functions[0]),
            _ => [false; 2],
        };
        let checkpoints = checkpoint_memory(stage, &ir, &run.functions, steps.all());
        let trace_bytes = if show_parts {
            held_by_part(steps)
        } else {
            held_by(steps)
        };
        if let (true, Ir::Mir(m)) = (wanted.contains(&true), &ir) {
            let again = run_stage(stage, &mut ir.clone(), &knobs, true).unwrap();
            seek_pick.keep(
                wanted,
                format!("{family} {size} {stage}"),
                &m.functions[0],
                again.steps,
            );
        }
        rows.push(Row {
            family: family.to_string(),
            size,
            insts,
            stage,
            off,
            cold,
            on,
            steps: n,
            trace_bytes,
            json_bytes,
            peak_off,
            peak_on,
            checkpoints,
        });
        print!(".");
        let _ = std::io::stdout().flush();
        ir = next.unwrap();
    }
    rows
}

/// For a DAG family: its node count and the best of `reps` untraced reads of its text
/// (`parse_dag`: the stage tables start from the parsed DAG, so reading is timed here).
fn time_dag_read(text: &str, reps: u32) -> Option<(usize, Duration)> {
    let nodes = compiler_core::dag::parse_dag(text).ok()?.nodes.len();
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = Cpu::start();
        let d = compiler_core::dag::parse_dag(text).ok()?;
        best = best.min(t.elapsed());
        drop(d);
    }
    Some((nodes, best))
}

/// Reading DAG text: time per size and per 1,000 nodes (flat when reading is linear).
fn dag_read_section(md: &mut String, reads: &[(&str, usize, usize, Duration)]) {
    if reads.is_empty() {
        return;
    }
    let _ = writeln!(md, "\n## Reading DAG text\n\n`parse_dag` on the family's text, best of the runs above (CPU ms). The stage tables start from the parsed DAG.\n\n| family | size | nodes | read ms | ms per 1k nodes |\n|---|---|---|---|---|");
    for &(family, size, nodes, t) in reads {
        let _ = writeln!(
            md,
            "| {family} | {size} | {nodes} | {:.3} | {:.4} |",
            ms(t),
            ms(t) * 1000.0 / nodes.max(1) as f64
        );
    }
}

/// Cold untraced times for the scaling table, measured in rounds: each round takes
/// every size in turn through the whole pipeline from its text, timing each stage on
/// a fresh clone of its input after a cache sweep, and each (size, stage) keeps its
/// best over the rounds. Other jobs on a shared machine come and go over seconds;
/// with the rounds spread over minutes, a busy spell no longer lands on one size alone
/// and skews its ratio, as it could when each size had its own few seconds. Only one
/// input is alive at a time, as in one compiler run: holding every stage's input of
/// every size at once scattered the clones over a large fragmented heap and made the
/// runs slower per instruction than a compiler's would be.
fn scaling_rounds(
    make: fn(usize) -> String,
    sizes: &[usize],
    rounds: u32,
) -> Vec<(usize, Stage, Duration)> {
    let knobs = Knobs::default();
    let texts: Vec<(usize, String)> = sizes.iter().map(|&n| (n, make(n))).collect();
    let mut best: Vec<(usize, Stage, Duration)> = Vec::new();
    for _ in 0..rounds {
        for (n, text) in &texts {
            let Ok((_, mut ir, _)) = parse_input(text, None) else {
                return Vec::new();
            };
            let entry = compiler_core::pipeline::entry_stage(&ir);
            for stage in plan(entry, &RunOptions::default()).unwrap() {
                let mut x = ir.clone();
                evict_caches();
                let t = Cpu::start();
                let ok = untraced_stage(stage, &mut x, &knobs).is_ok();
                let took = t.elapsed();
                if !ok {
                    break;
                }
                match best.iter_mut().find(|b| b.0 == *n && b.1 == stage) {
                    Some(b) => b.2 = b.2.min(took),
                    None => best.push((*n, stage, took)),
                }
                ir = x;
            }
        }
        print!(".");
        let _ = std::io::stdout().flush();
    }
    best
}

/// `COPYSCOPE_BENCH_COLD=0` drops the cold runs of the per-stage table (`cargo xtask
/// bench --counts` wants one run per stage under callgrind).
fn cold_runs_wanted() -> bool {
    std::env::var("COPYSCOPE_BENCH_COLD").map_or(true, |v| v != "0")
}

fn scaling_rounds_wanted() -> u32 {
    std::env::var("COPYSCOPE_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7)
}

#[test]
#[ignore]
fn bench() {
    let sizes: Vec<usize> = env_list("COPYSCOPE_BENCH_SIZES")
        .map(|v| v.iter().map(|s| s.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    let families = env_list("COPYSCOPE_BENCH_FAMILIES");
    let wanted = |name: &str| {
        families
            .as_ref()
            .is_none_or(|f| f.iter().any(|x| x == name))
    };
    let started = Instant::now();
    let llc = std::env::var("COPYSCOPE_BENCH_LLC").is_ok_and(|v| v == "1");
    // First, on the process's fresh heap, as each of llc-22's figures comes from a
    // fresh process (see the section's text).
    let mut per_pass = String::new();
    if llc {
        println!("per-pass speed against llc-22");
        llc_scaling(&mut per_pass);
    }
    let mut rows = Vec::new();
    let mut seek_pick = SeekPicks::default();
    let mut dag_reads: Vec<(&str, usize, usize, Duration)> = Vec::new();
    for &(name, make) in FAMILIES.iter().filter(|(n, _)| wanted(n)) {
        for &n in &sizes {
            print!("{name} {n} ");
            let text = make(n);
            if let Some((nodes, t)) = time_dag_read(&text, reps_for(n)) {
                dag_reads.push((name, n, nodes, t));
            }
            rows.extend(bench_input(
                name,
                n,
                &text,
                reps_for(n),
                cold_runs_wanted(),
                &mut seek_pick,
            ));
            println!(" {:.0} s", started.elapsed().as_secs_f64());
        }
    }
    // The scaling table's times: rounds per family (see scaling_rounds).
    let rounds = scaling_rounds_wanted();
    let mut scaled: Vec<(String, usize, Stage, Duration)> = Vec::new();
    if rounds > 0 && sizes.len() > 1 {
        for &(name, make) in FAMILIES.iter().filter(|(n, _)| wanted(n)) {
            print!("{name} scaling, {rounds} rounds ");
            for (n, stage, t) in scaling_rounds(make, &sizes, rounds) {
                scaled.push((name.to_string(), n, stage, t));
            }
            println!(" {:.0} s", started.elapsed().as_secs_f64());
        }
    }
    let mut gallery = Vec::new();
    if wanted("gallery") {
        print!("gallery ");
        for ex in EXAMPLES {
            for &(_, text) in ex.forms {
                gallery.extend(bench_input(ex.name, 0, text, 5, false, &mut seek_pick));
            }
        }
        println!(" {:.0} s", started.elapsed().as_secs_f64());
    }
    let many = if llc && wanted("many-functions") {
        print!("many functions ");
        let many = many_function_modules();
        for m in &many {
            rows.extend(bench_input(
                &m.family,
                100_000,
                &m.text,
                reps_for(100_000),
                false,
                &mut seek_pick,
            ));
        }
        println!(" {:.0} s", started.elapsed().as_secs_f64());
        many
    } else {
        Vec::new()
    };

    let mut md = String::new();
    let _ = writeln!(md, "# Benchmarks\n");
    let _ = writeln!(md, "Written by `cargo xtask bench{}` on {}. Reproduce: `cargo xtask bench` (add `--llc` for the llc-22 comparison; it installs Debian `llvm-22` when missing). The bench is `compiler-core/tests/bench.rs`, an ignored test run in the release profile.\n", if std::env::var("COPYSCOPE_BENCH_LLC").is_ok_and(|v| v == "1") { " --llc" } else { "" }, conditions());
    let _ = writeln!(md, "Each stage runs on the output of the stages before it, starting from the input's entry stage (MIR families: phi-elimination or two-address; `dag-chain`: instr-emitter). Times are this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`) in ms, so time other jobs hold the core is not counted; cache and memory-bandwidth contention from them still is. *off*: the best of {} / {} / {} runs (≤2k / ≤20k / larger inputs) with tracing off, the input just cloned (warm caches); *cold*: as many runs, each after a {} MiB sweep that evicts every cache level; *on*: one run recording every step. *insts*: instructions of the family's input (MIR instructions; DAG nodes for `dag-chain`). *peak*: the most heap the stage held above what was live before it (a counting global allocator in the bench binary), tracing off / on. The heap is mimalloc's, as in the CLI: with glibc's malloc, freeing and reusing many small blocks cost a growing share of the 100k runs (tuples ptx-lower 114 ms against 59, register-coalescer 98 against 77). `cargo xtask bench` sets `MIMALLOC_PURGE_DELAY=-1` (freed memory stays with the process, as glibc keeps it): with mimalloc's default, pages free for 10 ms go back to the OS and are faulted in again, which made building the seek table's 641 MB of checkpoints take 1.2 s instead of 0.1 s and single seeks 5–15 ms. Trace bytes are the heap the recorded steps hold (what dropping them gives back to the counting allocator: the step array, lists, payloads, narration numbers and the shared narration templates); the trace-budget table also gives them as JSON. Load-independent instruction counts of the same runs (callgrind) are in [bench-callgrind.md](bench-callgrind.md).\n", reps_for(1), reps_for(10_000), reps_for(100_000), evict_bytes() >> 20);
    let _ = writeln!(md, "## Per-stage time\n\n| family | N | insts | stage | off (ms) | cold (ms) | M insts/s | on (ms) | steps | trace bytes/step | peak off / on (KB) |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        table_row(&mut md, r);
    }

    let _ = writeln!(md, "\n## Scaling: time(10N) / time(N), tracing off (target ≤ 12)\n\nMeasured cold, in {rounds} rounds: each round takes 1k, 10k and 100k in turn through the whole pipeline, each stage run on a fresh clone of its input after a sweep that evicts every cache level (as one compiler invocation starts, so a 1k input is not favoured by sitting in L2 from its clone), and each cell is the best of the rounds. The rounds are spread over minutes, so a busy spell of the other jobs on this machine does not fall on one size alone. The *warm* ratios beside them come from the *off* times of the table above (the 1k runs are hot there, so 10k/1k overstates the growth). The instruction counts of the same stages on the same inputs, in [bench-counts.md](bench-counts.md) (`cargo xtask bench --counts`), separate the algorithm from the memory system. Where a cold ratio here is well above the count ratio there, the time per instruction grew, not the work: a 1k input's data fits in the core's L2, a 10k input's only in the shared L3, and a 100k input's not even there. *peak 100k/10k* is the growth of the stage's heap peak with tracing off (first table): well above 10, a structure grows faster than the function.\n\n| family | stage | 1k cold (ms) | 10k cold (ms) | 100k cold (ms) | 10k/1k | 100k/10k | warm 10k/1k | warm 100k/10k | peak 100k/10k |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut worst = (0.0f64, String::new());
    let mut worst_warm = (0.0f64, String::new());
    let mut worst_peak = (0.0f64, String::new());
    for &(name, _) in FAMILIES.iter().filter(|(n, _)| wanted(n)) {
        let mut stages: Vec<Stage> = rows
            .iter()
            .filter(|r| r.family == name)
            .map(|r| r.stage)
            .collect();
        stages.sort();
        stages.dedup();
        for stage in stages {
            let t = |n: usize, cold: bool| {
                if cold {
                    scaled
                        .iter()
                        .find(|r| r.0 == name && r.1 == n && r.2 == stage)
                        .map(|r| ms(r.3))
                } else {
                    rows.iter()
                        .find(|r| r.family == name && r.size == n && r.stage == stage)
                        .map(|r| ms(r.off))
                }
            };
            let cell = |x: Option<f64>| x.map_or("–".to_string(), |v| format!("{v:.3}"));
            let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) if a > 0.0 => Some(b / a),
                _ => None,
            };
            let show = |r: Option<f64>| r.map_or("–".to_string(), |r| format!("{r:.1}"));
            let r1 = ratio(t(1_000, true), t(10_000, true));
            let r2 = ratio(t(10_000, true), t(100_000, true));
            let w1 = ratio(t(1_000, false), t(10_000, false));
            let w2 = ratio(t(10_000, false), t(100_000, false));
            let note = |r: Option<f64>, worst: &mut (f64, String)| {
                if let Some(r) = r.filter(|&r| r > worst.0) {
                    *worst = (r, format!("{name} {stage}"));
                }
            };
            note(r1, &mut worst);
            note(r2, &mut worst);
            note(w1, &mut worst_warm);
            note(w2, &mut worst_warm);
            let peak = |n: usize| {
                rows.iter()
                    .find(|r| r.family == name && r.size == n && r.stage == stage)
                    .map(|r| r.peak_off as f64)
            };
            // Peaks under 64 KB are mostly allocator rounding: no ratio.
            let p2 = ratio(peak(10_000).filter(|&p| p >= 65_536.0), peak(100_000));
            note(p2, &mut worst_peak);
            let _ = writeln!(
                md,
                "| {name} | {stage} | {} | {} | {} | {} | {} | {} | {} | {} |",
                cell(t(1_000, true)),
                cell(t(10_000, true)),
                cell(t(100_000, true)),
                show(r1),
                show(r2),
                show(w1),
                show(w2),
                show(p2),
            );
        }
    }
    let _ = writeln!(
        md,
        "\nWorst ratio, cold: {:.1} ({}). Warm, for comparison: {:.1} ({}). Heap peak: {:.1} ({}).",
        worst.0, worst.1, worst_warm.0, worst_warm.1, worst_peak.0, worst_peak.1
    );

    if !gallery.is_empty() {
        let _ = writeln!(md, "\n## Gallery\n\nEvery gallery example, every stage from its entry (best of 5, tracing off; one traced run).\n\n| example | insts | stage | off (ms) | on (ms) | steps | trace bytes/step |\n|---|---:|---|---:|---:|---:|---:|");
        for r in &gallery {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {:.3} | {:.3} | {} | {} |",
                r.family,
                r.insts,
                r.stage,
                ms(r.off),
                ms(r.on),
                r.steps,
                r.trace_bytes.checked_div(r.steps).unwrap_or(0)
            );
        }
    }

    dag_read_section(&mut md, &dag_reads);
    trace_budget_section(&mut md, &rows);
    checkpoint_section(&mut md, &rows);
    seek_section(&mut md, seek_pick);
    if llc {
        println!("llc-22 side by side");
        llc_side_by_side(&mut md);
        md.push_str(&per_pass);
        println!("many functions, whole processes");
        many_functions_section(&mut md, &many);
    }
    if std::env::var("COPYSCOPE_BENCH_DAG200K").map_or(true, |v| v != "0") {
        println!("the 200,000-node DAG, traced and not");
        dag_resident_section(&mut md);
    }
    let _ = writeln!(
        md,
        "\n## Memory\n\nPeak resident memory of the whole bench process (VmHWM): {} MB. Per-stage heap peaks are in the first table.\n\nTotal bench time: {:.0} s.",
        vm_hwm_kb() / 1024,
        started.elapsed().as_secs_f64()
    );
    println!("\n{md}");
    if let Ok(p) = std::env::var("COPYSCOPE_BENCH_OUT") {
        std::fs::write(&p, &md).unwrap();
    }
}

/// What a stage's steps are, by kind: the step kinds with the most JSON bytes (what
/// the log holds, by part, is [`held_by_part`]).
fn breakdown(family: &str, size: usize, stage: Stage, steps: compiler_core::trace::Steps<'_>) {
    let mut kinds: Vec<(String, usize, usize)> = Vec::new();
    for s in steps {
        let total = serde_json::to_vec(&s).map_or(0, |v| v.len());
        match kinds.iter_mut().find(|k| k.0 == s.kind) {
            Some(k) => {
                k.1 += 1;
                k.2 += total;
            }
            None => kinds.push((s.kind.to_string(), 1, total)),
        }
    }
    kinds.sort_by_key(|k| std::cmp::Reverse(k.2));
    let k: Vec<String> = kinds
        .iter()
        .take(5)
        .map(|(k, c, b)| format!("{k} ×{c} {} B/step", b / c))
        .collect();
    println!(
        "\n{family} {size} {stage}: {} steps; JSON by kind: {}",
        steps.len(),
        k.join("; ")
    );
}

/// [`held_by`], part by part of the log ([`StepList::into_parts`]: the records' arena,
/// their starts, each table), printed in bytes per step.
///
/// [`StepList::into_parts`]: compiler_core::trace::StepList::into_parts
fn held_by_part(steps: compiler_core::trace::StepList) -> usize {
    let n = steps.len().max(1);
    let mut total = 0;
    let mut shown = Vec::new();
    for (part, b) in steps.into_parts() {
        // The box holding the part is the bench's, not the log's.
        let own = std::mem::size_of_val(&*b);
        let held = held_by_box(b).saturating_sub(own);
        total += held;
        shown.push(format!("{part} {:.1}", held as f64 / n as f64));
    }
    println!(
        "  the log's heap by part, bytes/step: {}; total {:.1}",
        shown.join(", "),
        total as f64 / n as f64
    );
    total
}

fn held_by_box(b: Box<dyn std::any::Any>) -> usize {
    let before = LIVE.load(Ordering::Relaxed);
    drop(b);
    before.saturating_sub(LIVE.load(Ordering::Relaxed))
}

/// Issue 31's budget per stage and family (the largest size of each): trace bytes per
/// step, and the traced heap peak against three times the untraced one plus 100 bytes a
/// step; the worst of each named.
fn trace_budget_section(md: &mut String, rows: &[Row]) {
    let _ = writeln!(md, "\n## Trace budget\n\nPer family and stage at its largest size: *bytes/step*: the heap the recorded steps hold, as above (goal ≤ 200); *JSON/step*: the same steps as the CLI prints them; *on ÷ off*: traced heap peak over untraced, *allowance*: 3 × untraced peak + 100 bytes × steps, and whether the traced peak stays within it.\n\n| family | N | stage | steps | bytes/step | JSON/step | peak off (KB) | peak on (KB) | on ÷ off | allowance (KB) | within |\n|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|");
    let mut worst_bytes = (0usize, String::new());
    let mut worst_ratio = (0.0f64, String::new());
    let (mut over_bytes, mut over_heap, mut total) = (0, 0, 0);
    for r in rows {
        let largest = rows
            .iter()
            .filter(|o| o.family == r.family && o.stage == r.stage)
            .all(|o| o.size <= r.size);
        if !largest || r.steps == 0 {
            continue;
        }
        total += 1;
        let per = r.trace_bytes / r.steps;
        let allowance = 3 * r.peak_off + 100 * r.steps;
        let ratio = r.peak_on as f64 / r.peak_off.max(1) as f64;
        let within = r.peak_on <= allowance;
        over_bytes += (per > 200) as usize;
        over_heap += (!within) as usize;
        let name = format!("{} {} {}", r.family, r.size, r.stage);
        if per > worst_bytes.0 {
            worst_bytes = (per, name.clone());
        }
        if r.peak_off >= 65_536 && ratio > worst_ratio.0 {
            worst_ratio = (ratio, name);
        }
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {} | {} |",
            r.family,
            r.size,
            r.stage,
            r.steps,
            per,
            r.json_bytes / r.steps,
            r.peak_off / 1024,
            r.peak_on / 1024,
            ratio,
            allowance / 1024,
            if within { "yes" } else { "**no**" }
        );
    }
    let _ = writeln!(md, "\nOver 200 bytes/step: {over_bytes} of {total} rows; worst {} bytes/step ({}). Traced peak over the allowance: {over_heap} of {total}; worst on ÷ off (untraced peak ≥ 64 KB) {:.1} ({}).", worst_bytes.0, worst_bytes.1, worst_ratio.0, worst_ratio.1);
}

fn table_row(md: &mut String, r: &Row) {
    let _ = writeln!(
        md,
        "| {} | {} | {} | {} | {:.3} | {:.3} | {:.1} | {:.3} | {} | {} | {} / {} |",
        r.family,
        r.size,
        r.insts,
        r.stage,
        ms(r.off),
        if r.cold == Duration::MAX {
            f64::NAN
        } else {
            ms(r.cold)
        },
        r.insts as f64 / r.off.as_secs_f64().max(1e-9) / 1e6,
        ms(r.on),
        r.steps,
        r.trace_bytes.checked_div(r.steps).unwrap_or(0),
        r.peak_off / 1024,
        r.peak_on / 1024,
    );
}

/// Where and how the figures were taken.
fn conditions() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{cpu}, {cores} cores, load average {load} at the start of the report (other jobs share the machine, so times are minima over runs)")
}

/// A single-function MIR trace kept for the seek section: which run recorded it, the
/// function it started from and its steps.
type SeekTrace = (String, Function, compiler_core::trace::StepList);

/// The traces the seek section measures, both of at least 10,000 steps over one
/// function: the shortest (`short`), and the one over the largest function among those
/// of at most 20,000 steps (`large`: the same scale of steps, where a stored copy is
/// expensive; the fewer steps on a tie).
#[derive(Default)]
struct SeekPicks {
    short: Option<SeekTrace>,
    large: Option<SeekTrace>,
}

impl SeekPicks {
    /// Whether a trace of `n` steps over `f` would replace (short, large).
    fn wants(&self, n: usize, f: &Function) -> [bool; 2] {
        if n < 10_000 {
            return [false; 2];
        }
        let insts = f.all_insts().count();
        let short = self.short.as_ref().is_none_or(|(_, _, s)| s.len() > n);
        let large = n <= 20_000
            && self.large.as_ref().is_none_or(|(_, g, s)| {
                let old = g.all_insts().count();
                insts > old || (insts == old && s.len() > n)
            });
        [short, large]
    }

    fn keep(
        &mut self,
        wanted: [bool; 2],
        name: String,
        f: &Function,
        steps: compiler_core::trace::StepList,
    ) {
        let trace = (name, f.clone(), steps);
        match wanted {
            [true, true] => {
                self.short = Some(trace.clone());
                self.large = Some(trace);
            }
            [true, false] => self.short = Some(trace),
            [false, true] => self.large = Some(trace),
            [false, false] => {}
        }
    }
}

/// Seeks random steps of the traces [`SeekPicks`] kept through `Checkpoints` as the
/// web engine builds them ([`web_checkpoints`]): moving one function from where the
/// last seek left it (`seek_from`: redo or undo, or a stored copy when nearer, as the
/// engine's cursor does), into a reused function from a stored copy (`seek_into`) and to
/// a fresh copy (`seek`).
fn seek_section(md: &mut String, picks: SeekPicks) {
    let mut traces: Vec<SeekTrace> = [picks.short, picks.large].into_iter().flatten().collect();
    // One run can be both.
    traces.dedup_by(|a, b| a.0 == b.0);
    if traces.is_empty() {
        let _ = writeln!(
            md,
            "\n## Seeking\n\nNo run recorded 10,000 steps in one function."
        );
        return;
    }
    let _ = writeln!(md, "\n## Seeking\n\nTwo single-function MIR traces of at least 10,000 steps: the shortest, and the one over the largest function among those of at most 20,000 steps (where a stored copy costs the most). Per trace, 200 seeks to pseudo-random steps (after one build of the checkpoints). The checkpoints are a few stored copies of the function (the web engine's `checkpoint_spacing`: {}) and an undo record per edit; a seek redoes or undoes steps from the nearest known state (from where the previous seek left the function, a copy is restored by difference: only the instruction slots the steps in between wrote). Three ways to seek: from where the previous seek left the function (`Checkpoints::seek_from`, what the engine's cursor does), into a reused function from a stored copy (`seek_into`) and to a fresh copy (`seek`). *memory*: the heap the checkpoints hold (copies and undo records); per 10k steps: that scaled to 10,000 steps.\n\n| trace | steps | insts | spacing | copies | build (ms) | memory (KB) | per 10k steps (KB) | mean from (ms) | worst from (ms) | mean into (ms) | worst into (ms) | mean to a copy (ms) | worst to a copy (ms) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", WEB_BUDGET_WORDS);
    for (name, input, steps) in &traces {
        seek_row(md, name, input, steps.all());
    }
}

/// One row of [`seek_section`]: the checkpoints of `steps` over `input` built as the
/// web engine builds them, and 200 seeks three ways.
fn seek_row(md: &mut String, name: &str, input: &Function, steps: compiler_core::trace::Steps<'_>) {
    let n = steps.len();
    let base = reset_peak();
    let t = Cpu::start();
    let cp = web_checkpoints(input, steps).unwrap();
    let build = t.elapsed();
    let mem = LIVE.load(Ordering::Relaxed).saturating_sub(base);
    let mut times = [(Duration::ZERO, Duration::ZERO); 3];
    let mut current = input.clone();
    let mut moved = input.clone();
    let mut at = 0;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut note = |k: usize, e: Duration| {
        times[k].0 += e;
        times[k].1 = times[k].1.max(e);
    };
    for _ in 0..200 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let to = (x % (n as u64 + 1)) as usize;
        let t = Cpu::start();
        cp.seek_from(steps, at, to, &mut moved).unwrap();
        note(0, t.elapsed());
        at = to;
        let t = Cpu::start();
        cp.seek_into(steps, to, &mut current).unwrap();
        note(1, t.elapsed());
        let t = Cpu::start();
        let f = cp.seek(steps, to).unwrap();
        note(2, t.elapsed());
        drop(f);
    }
    let _ = writeln!(
        md,
        "| {name} | {n} | {} | {} | {} | {:.1} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
        input.all_insts().count(),
        cp.every(),
        cp.copies(),
        ms(build),
        mem / 1024,
        (mem as u64 * 10_000 / n.max(1) as u64) / 1024,
        ms(times[0].0) / 200.0,
        ms(times[0].1),
        ms(times[1].0) / 200.0,
        ms(times[1].1),
        ms(times[2].0) / 200.0,
        ms(times[2].1)
    );
}

/// A stage's seek tables as the web engine builds them, over all its functions.
struct Checkpointed {
    /// Heap the tables hold (the counting allocator's live bytes with them built).
    bytes: usize,
    /// Stored copies, the inputs' included, and the widest spacing.
    copies: usize,
    every: usize,
    build: Duration,
}

/// The seek tables of a stage that ran on `input` and recorded `steps` (function by
/// function as `ranges` says), built as the web engine builds them: MIR stages'
/// [`Checkpoints`] at the engine's spacing and budget, ORI → ORI stages' stored copies
/// (`Copies`, the same budget). None for the stages without tables (those that change
/// the IR kind: their views go on from the last seek).
fn checkpoint_memory(
    stage: Stage,
    input: &Ir,
    ranges: &[compiler_core::pipeline::FunctionSteps],
    steps: compiler_core::trace::Steps<'_>,
) -> Option<Checkpointed> {
    if stage.info().output != input.kind() {
        return None;
    }
    let own = |r: &compiler_core::pipeline::FunctionSteps| steps.range(r.first..r.first + r.count);
    let base = LIVE.load(Ordering::Relaxed);
    let t = Cpu::start();
    let (copies, every, held): (usize, usize, Box<dyn std::any::Any>) = match input {
        Ir::Mir(m) if m.functions.len() == ranges.len() && !steps.is_empty() => {
            let built: Vec<Checkpoints> = (m.functions.iter().zip(ranges))
                .map(|(f, r)| web_checkpoints(f, own(r)).ok())
                .collect::<Option<_>>()?;
            let copies = built.iter().map(Checkpoints::copies).sum();
            let every = built.iter().map(Checkpoints::every).max().unwrap_or(0);
            (copies, every, Box::new(built))
        }
        Ir::Ori(m) if m.functions().count() == ranges.len() && !steps.is_empty() => {
            let built: Vec<Copies<compiler_core::ori::Function>> = (m.functions().zip(ranges))
                .map(|(f, r)| ori_copies(f, own(r)))
                .collect::<Option<_>>()?;
            let copies = built.iter().map(Copies::len).sum();
            let every = built.iter().map(Copies::every).max().unwrap_or(0);
            (copies, every, Box::new(built))
        }
        _ => return None,
    };
    let build = t.elapsed();
    let bytes = LIVE.load(Ordering::Relaxed).saturating_sub(base);
    drop(held);
    Some(Checkpointed {
        bytes,
        copies,
        every,
        build,
    })
}

/// An ORI function's stored copies along its steps, as the web engine keeps them
/// (`Session::ori_seek`): spacing 64 or wider, 2^16 instructions at most.
fn ori_copies(
    f: &compiler_core::ori::Function,
    steps: compiler_core::trace::Steps<'_>,
) -> Option<Copies<compiler_core::ori::Function>> {
    let every = web_spacing(steps.len(), f.insts.len(), WEB_ORI_BUDGET);
    let mut g = f.clone();
    let mut saved = Copies::new(&g, g.insts.len(), every, WEB_ORI_BUDGET);
    for (i, s) in steps.iter().enumerate() {
        for e in &s.ori_edits {
            compiler_core::ori::edit::apply_ori_edit(&mut g, e).ok()?;
        }
        saved.after_step(i + 1, &g, g.insts.len());
    }
    Some(saved)
}

/// Issue 31's "checkpoint memory per 10k steps", per stage and family at the largest
/// size: what the web engine's seek tables for the stage's steps hold.
fn checkpoint_section(md: &mut String, rows: &[Row]) {
    let _ = writeln!(md, "
## Checkpoint memory

Per family and stage at its largest size, the seek tables the web engine builds over the stage's steps (`web-engine/src/session.rs`): MIR stages' checkpoints (stored copies of the function at the engine's spacing, at most 2^16 instructions together besides the input's, and an undo record per edit), ORI → ORI stages' stored copies (the same budget). Not measured: the stages that change the IR kind (ptx-emit keeps no table; ptx-lower's copies start from an empty body). *memory*: the heap the tables hold, the input's copy included; *per 10k steps*: that scaled to 10,000 steps (stages of 1,000 steps or more: below, the input's copy is most of it); *build*: one replay of every step.

| family | N | stage | steps | spacing | copies | memory (KB) | per 10k steps (KB) | build (ms) |
|---|---:|---|---:|---:|---:|---:|---:|---:|");
    let mut worst = (0u64, String::new());
    let total: Duration = rows
        .iter()
        .flat_map(|r| &r.checkpoints)
        .map(|c| c.build)
        .sum();
    for r in rows {
        let largest = (rows.iter())
            .filter(|o| o.family == r.family && o.stage == r.stage)
            .all(|o| o.size <= r.size);
        let Some(c) = r.checkpoints.as_ref().filter(|_| largest && r.steps > 0) else {
            continue;
        };
        // Under 1,000 steps the input's copy is most of it: no per-10k figure.
        let per_10k = (r.steps >= 1_000).then(|| c.bytes as u64 * 10_000 / r.steps as u64);
        if let Some(p) = per_10k.filter(|&p| p > worst.0) {
            worst = (p, format!("{} {} {}", r.family, r.size, r.stage));
        }
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} |",
            r.family,
            r.size,
            r.stage,
            r.steps,
            c.every,
            c.copies,
            c.bytes / 1024,
            per_10k.map_or("–".into(), |p| (p / 1024).to_string()),
            ms(c.build)
        );
    }
    let _ = writeln!(
        md,
        "
Worst per 10k steps: {} KB ({}). The web engine keeps the tables of the stage on screen, and those of others while all of them stay within 16 MB by its estimate. Building the tables (every size) took {:.1} s of the bench.",
        worst.0 / 1024,
        worst.1,
        total.as_secs_f64()
    );
}

/// The web engine's copy budget (web-engine/src/session.rs `CHECKPOINT_BUDGET`), in
/// instructions all copies of one function hold together besides the input's. Repeated
/// here (this crate cannot depend on the engine); web-engine's
/// `the_bench_builds_seek_tables_with_the_engines_budgets` reads these three constants
/// from this file and fails when they differ from the engine's.
const WEB_BUDGET: usize = 1 << 16;
/// The same for ORI functions (`ORI_CHECKPOINT_BUDGET`).
const WEB_ORI_BUDGET: usize = 1 << 16;
/// [`WEB_BUDGET`] in words, for the reports.
const WEB_BUDGET_WORDS: &str = "copies of at most 2^16 instructions together";

/// The web engine's spacing rule (web-engine/src/session.rs `checkpoint_spacing`):
/// at least every 64 steps, wider so the copies hold at most `budget` instructions
/// (and `build_within` widens it again if the function grows past that).
fn web_spacing(steps: usize, insts: usize, budget: usize) -> usize {
    CHECKPOINT_EVERY.max(steps.saturating_mul(insts.max(1)).div_ceil(budget))
}

/// The checkpoints the web engine builds for `steps` over `f` (`Session::checkpoints`).
fn web_checkpoints(
    f: &Function,
    steps: compiler_core::trace::Steps<'_>,
) -> Result<Checkpoints, compiler_core::error::ReplayError> {
    let every = web_spacing(steps.len(), f.insts.len(), WEB_BUDGET);
    Checkpoints::build_within(f, steps, every, WEB_BUDGET)
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

fn copies(m: &Module) -> usize {
    m.functions
        .iter()
        .map(|f| {
            f.all_insts()
                .filter(|&(_, i)| f.insts[i].is(Op::COPY))
                .count()
        })
        .sum()
}

/// Every COPY line of every function, registers renamed `%v0, %v1, ...` in order of
/// first appearance over the printed body (which name survives a join is immaterial),
/// as `compiler-core/tests/register_coalescer_corpus.rs` compares them.
fn canonical_copies(m: &Module) -> Vec<String> {
    let mut out = Vec::new();
    for f in &m.functions {
        let text = compiler_core::mir::print_function(f);
        let mut names: std::collections::BTreeMap<String, usize> = Default::default();
        let body = text.split_once("\nbody:").map_or("", |x| x.1);
        for line in body.lines() {
            let mut canon = String::new();
            let mut chars = line.trim().chars().peekable();
            while let Some(c) = chars.next() {
                if c == '%' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                    let mut n = String::new();
                    while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                        n.push(d);
                        chars.next();
                    }
                    let next = names.len();
                    let idx = *names.entry(n).or_insert(next);
                    let _ = write!(canon, "%v{idx}");
                } else {
                    canon.push(c);
                }
            }
            if let Some(at) = canon.find(" = COPY ") {
                let dst = canon[..at].split(':').next().unwrap_or("");
                out.push(format!("{dst}{}", &canon[at..]));
            }
        }
    }
    out
}

/// User + system CPU time of every child process waited for so far
/// (`getrusage(RUSAGE_CHILDREN)`): a whole-process time that other jobs on a shared
/// machine do not inflate.
fn children_cpu() -> Duration {
    // struct rusage on 64-bit Linux: two timevals, then 14 longs.
    let mut ru = [0i64; 18];
    extern "C" {
        fn getrusage(who: i32, usage: *mut i64) -> i32;
    }
    // SAFETY: `ru` is large enough for struct rusage; -1 is RUSAGE_CHILDREN.
    let rc = unsafe { getrusage(-1, ru.as_mut_ptr()) };
    assert_eq!(rc, 0, "getrusage failed");
    let tv = |s: i64, us: i64| Duration::new(s as u64, (us * 1000) as u32);
    tv(ru[0], ru[1]) + tv(ru[2], ru[3])
}

/// Runs `cmd` to completion `reps` times: best child CPU time and best wall time.
fn time_process(
    reps: u32,
    mut make: impl FnMut() -> std::process::Command,
) -> (Duration, Duration) {
    let (mut cpu, mut wall) = (Duration::MAX, Duration::MAX);
    for _ in 0..reps {
        let before = children_cpu();
        let t = Instant::now();
        let out = make().output().expect("process starts");
        let w = t.elapsed();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        cpu = cpu.min(children_cpu() - before);
        wall = wall.min(w);
    }
    (cpu, wall)
}

/// llc-22's MIR for `phi_swaps_ll` with `pairs` swapped pairs, stopped before
/// two-address; None when llc-22 cannot make it. llc-22 takes a while to lower this much
/// IR, so its MIR is reused while the IR is unchanged.
fn llc_pre_mir(dir: &std::path::Path, pairs: usize) -> Option<std::path::PathBuf> {
    let suffix = if pairs == 10_000 {
        String::new()
    } else {
        format!(".{pairs}")
    };
    let ll = dir.join(format!("swaps{suffix}.ll"));
    let pre = dir.join(format!("swaps{suffix}.pre.mir"));
    let part = dir.join(format!("swaps{suffix}.pre.mir.part"));
    let source = phi_swaps_ll(5 * pairs);
    let fresh = std::fs::read_to_string(&ll).is_ok_and(|old| old == source)
        && std::fs::metadata(&pre).is_ok_and(|m| m.len() > 0);
    if fresh {
        return Some(pre);
    }
    std::fs::write(&ll, &source).ok()?;
    let st = std::process::Command::new("llc-22")
        .args([
            "-march=nvptx64",
            "-mcpu=sm_90",
            "-stop-before=twoaddressinstruction",
        ])
        .arg(&ll)
        .arg("-o")
        .arg(&part)
        .status()
        .ok()?;
    // Only a finished file takes the name that is reused.
    (st.success() && std::fs::rename(&part, &pre).is_ok()).then_some(pre)
}

/// two-address + register-coalescer on llc-22's own MIR of a ~100k-instruction loop of
/// PHI swaps: llc-22's whole process against ours (`copyscope run`, whole process).
fn llc_side_by_side(md: &mut String) {
    let dir = std::env::temp_dir().join("copyscope-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let llc_out = dir.join("swaps.llc.mir");
    let ours_out = dir.join("swaps.ours.mir");
    let pairs = 10_000;
    let Some(pre) = llc_pre_mir(&dir, pairs) else {
        let _ = writeln!(md, "\n## llc-22 side by side\n\nllc-22 could not produce the input MIR (is `llvm-22` installed? `cargo xtask bench --llc` installs it).");
        return;
    };
    let copyscope = copyscope_bin();
    if !copyscope.exists() {
        let _ = writeln!(md, "\n## llc-22 side by side\n\n`{}` is missing: build it with `cargo build --release -p copyscope` (`cargo xtask bench` does).", copyscope.display());
        return;
    }
    let text = std::fs::read_to_string(&pre).unwrap();
    let input = parse_module(&text).unwrap();
    let insts: usize = input.functions.iter().map(|f| f.all_insts().count()).sum();
    let reps = 3;
    let (llc_cpu, llc_wall) = time_process(reps, || {
        let mut c = std::process::Command::new("llc-22");
        c.args([
            "-march=nvptx64",
            "-mcpu=sm_90",
            "-run-pass=twoaddressinstruction,register-coalescer",
        ])
        .arg(&pre)
        .arg("-o")
        .arg(&llc_out);
        c
    });
    let (our_cpu, our_wall) = time_process(reps, || {
        let mut c = std::process::Command::new(&copyscope);
        c.args([
            "run",
            "--no-trace",
            "--only",
            "two-address,register-coalescer",
        ])
        .arg(&pre)
        .stdout(std::fs::File::create(&ours_out).unwrap());
        c
    });
    let llc_m = parse_module(&std::fs::read_to_string(&llc_out).unwrap()).unwrap();
    let ours_m = parse_module(&std::fs::read_to_string(&ours_out).unwrap()).unwrap();
    let (a, b) = (canonical_copies(&llc_m), canonical_copies(&ours_m));
    let same = a == b;
    let _ = writeln!(md, "\n## llc-22 side by side\n\nInput: `phi_swaps_ll({})` ({pairs} swapped PHI pairs in one loop) lowered by `llc-22 -march=nvptx64 -mcpu=sm_90 -stop-before=twoaddressinstruction`: {insts} instructions, {} COPYs. Both run two-address + register-coalescer with tracing off, each as a whole process reading and writing MIR files; best of {reps}. CPU = user + system time of the process (what the comparison is judged on, since other jobs share the machine); wall time beside it.\n\n| | CPU (ms) | wall (ms) | COPYs left |\n|---|---:|---:|---:|\n| `llc-22 -run-pass=twoaddressinstruction,register-coalescer` | {:.0} | {:.0} | {} |\n| `copyscope run --no-trace --only two-address,register-coalescer` | {:.0} | {:.0} | {} |\n\nSpeed-up (CPU): {:.1}×. COPYs after canonical renaming: {}.",
        5 * pairs,
        copies(&input),
        ms(llc_cpu), ms(llc_wall), copies(&llc_m),
        ms(our_cpu), ms(our_wall), copies(&ours_m),
        ms(llc_cpu) / ms(our_cpu).max(1e-3),
        if same { format!("identical ({} COPY lines)", a.len()) } else {
            let k = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
            format!("DIFFERENT (llc {} lines, ours {}; first difference at line {k}: `{}` vs `{}`)", a.len(), b.len(), a.get(k).map_or("", |s| s), b.get(k).map_or("", |s| s))
        });
    println!(
        "llc-22: cpu {:.0} ms, ours {:.0} ms, copies same: {same}",
        ms(llc_cpu),
        ms(our_cpu)
    );
}

/// One input of the per-pass comparison: llc-22's MIR stopped before two-address at
/// about 10k and about 100k instructions, and the flags llc-22 needs to read it.
struct PassInput {
    label: String,
    flags: Vec<String>,
    pres: [std::path::PathBuf; 2],
    /// A corpus kernel's `file:function` and its copies in the larger module.
    kernel: Option<(String, usize)>,
}

/// The name a `define` line gives its function (`@name(` or `@"name"(`).
fn defined_name(line: &str) -> Option<&str> {
    let rest = &line[line.find('@')? + 1..];
    match rest.strip_prefix('"') {
        Some(q) => Some(&q[..q.find('"')?]),
        None => Some(&rest[..rest.find('(')?]),
    }
}

/// The `.ll` text with the function `name` copied `copies - 1` times under new names
/// (`@name.c1`, `@name.c2`, ...) after the original: the same kernel, many times, so
/// llc-22's MIR reaches a given size with functions of the kernel's own size. None
/// when the file defines no such function.
fn replicate_ll(ll: &str, name: &str, copies: usize) -> Option<String> {
    let mut body: Vec<&str> = Vec::new();
    let mut open = false;
    for line in ll.lines() {
        if line.starts_with("define ") && defined_name(line) == Some(name) {
            open = true;
        }
        if open {
            body.push(line);
            if line.starts_with('}') {
                break;
            }
        }
    }
    let head = *body.first()?;
    let at = head.find('@')?;
    let tail = &head[at + 1..];
    let tail = match tail.strip_prefix('"') {
        Some(q) => &q[q.find('"')? + 1..],
        None => &tail[tail.find('(')?..],
    };
    let mut out = String::from(ll);
    out.push('\n');
    for k in 1..copies {
        let _ = writeln!(out, "{}@\"{name}.c{k}\"{tail}", &head[..at]);
        for line in &body[1..] {
            out.push_str(line);
            out.push('\n');
        }
    }
    Some(out)
}

/// The largest functions of `shared/corpus/llvm-nvptx` (by instructions of llc-22's
/// MIR before two-address), each copied within its file to ~10k and ~100k instructions
/// and lowered by llc-22 with the case's own flags. (Copying whole files instead puts
/// 20,000 tiny functions in a module at ~100k, where llc-22's MIR printer alone takes a
/// minute of CPU.) Cached in `dir` while the text is unchanged.
fn corpus_inputs(dir: &std::path::Path, count: usize) -> Vec<PassInput> {
    let Some(llc) = support::llc::llc() else {
        return Vec::new();
    };
    let mut sized: Vec<(usize, String, support::llc::LlvmNvptxCase)> = Vec::new();
    for case in support::llc::llvm_nvptx(llc) {
        let Some(path) = case.file("pre-twoaddr.mir") else {
            continue;
        };
        let Ok(m) = parse_module(&std::fs::read_to_string(path).unwrap_or_default()) else {
            continue;
        };
        let Some(f) = m.functions.iter().max_by_key(|f| f.all_insts().count()) else {
            continue;
        };
        sized.push((f.all_insts().count(), f.name.clone(), case));
    }
    sized.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.2.name.cmp(&b.2.name)));
    let mut out = Vec::new();
    for (insts, fname, case) in sized {
        if out.len() == count {
            break;
        }
        let ll_path = support::corpus_dir().join(format!("llvm-nvptx/ll/{}.ll", case.name));
        let Ok(ll) = std::fs::read_to_string(&ll_path) else {
            continue;
        };
        let mut flags = vec!["-mtriple=nvptx64-nvidia-cuda".to_string()];
        flags.extend(case.flags.split_whitespace().map(str::to_string));
        let made: Option<Vec<_>> = [10_000usize, 100_000]
            .iter()
            .map(|&target| {
                let copies = target.div_ceil(insts.max(1));
                let text = replicate_ll(&ll, &fname, copies)?;
                llc_pre_mir_of(
                    dir,
                    &format!("{}.{fname}.x{copies}", case.name),
                    &text,
                    &flags,
                )
            })
            .collect();
        if let Some(made) = made {
            out.push(PassInput {
                label: format!(
                    "{}:{fname} ({insts}) ×{}",
                    case.name,
                    10_000usize.div_ceil(insts.max(1))
                ),
                flags,
                pres: [made[0].clone(), made[1].clone()],
                kernel: Some((
                    format!("{}:{fname}", case.name),
                    100_000usize.div_ceil(insts.max(1)),
                )),
            });
        }
    }
    out
}

/// llc-22's MIR of `source` stopped before two-address, cached under `dir/stem`.
fn llc_pre_mir_of(
    dir: &std::path::Path,
    stem: &str,
    source: &str,
    flags: &[String],
) -> Option<std::path::PathBuf> {
    let ll = dir.join(format!("{stem}.ll"));
    let pre = dir.join(format!("{stem}.pre.mir"));
    let part = dir.join(format!("{stem}.pre.mir.part"));
    let fresh = std::fs::read_to_string(&ll).is_ok_and(|old| old == source)
        && std::fs::metadata(&pre).is_ok_and(|m| m.len() > 0);
    if fresh {
        return Some(pre);
    }
    std::fs::write(&ll, source).ok()?;
    let st = std::process::Command::new("llc-22")
        .args(flags)
        .arg("-stop-before=twoaddressinstruction")
        .arg(&ll)
        .arg("-o")
        .arg(&part)
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    (st.success() && std::fs::rename(&part, &pre).is_ok()).then_some(pre)
}

/// (our stage, llc-22's passes that do its work: our register-coalescer computes its
/// live intervals itself, llc's comes after two analysis passes)
const PASS_ROWS: [(Stage, &[&str]); 2] = [
    (Stage::TwoAddress, &["Two-Address instruction pass"]),
    (
        Stage::RegisterCoalescer,
        &[
            "Slot index numbering",
            "Live Interval Analysis",
            "Register Coalescer",
        ],
    ),
];

/// Runs per figure: means of this many (see [`llc_scaling`]).
const PASS_REPS: usize = 9;

/// llc-22's `-time-passes` CPU time (ms, user + system) for each of [`PASS_ROWS`] on `pre`, mean of
/// [`PASS_REPS`] runs; Err with the reason when llc-22 fails or reports no such pass.
fn llc_pass_ms(pre: &std::path::Path, flags: &[String]) -> Result<[f64; 2], String> {
    let mut sum = [0.0f64; 2];
    for _ in 0..PASS_REPS {
        let out = std::process::Command::new("llc-22")
            .args(flags)
            .args([
                "-run-pass=twoaddressinstruction,register-coalescer",
                "-time-passes",
            ])
            .arg(pre)
            .args(["-o", "/dev/null"])
            .output()
            .map_err(|e| format!("llc-22 could not be run: {e}"))?;
        let report = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            return Err(format!(
                "llc-22 -time-passes failed: {}",
                report.lines().next().unwrap_or("")
            ));
        }
        for (r, (_, names)) in PASS_ROWS.iter().enumerate() {
            for name in names.iter() {
                sum[r] += pass_cpu_ms(&report, name)
                    .ok_or_else(|| format!("llc-22's report has no line for `{name}`"))?;
            }
        }
    }
    Ok(sum.map(|s| s / PASS_REPS as f64))
}

/// The rows of the comparison: our figure's label, which of llc-22's [`PASS_ROWS`] it
/// is set against (None: a reference with no llc-22 figure), and whether the row is
/// judged (the pipeline stage's is shown only: llc's run has no LiveVariables to
/// compute).
const OUR_ROWS: [(&str, Option<usize>, bool); 4] = [
    (
        "two-address, as llc's run (no LiveVariables)",
        Some(0),
        true,
    ),
    (
        "two-address, pipeline stage (computes LiveVariables)",
        Some(0),
        false,
    ),
    ("register-coalescer", Some(1), true),
    (
        "reference: the walk alone (every instruction's list node and opcode, no pass)",
        None,
        false,
    ),
];

/// The reference row of [`OUR_ROWS`]: what any pass pays to visit every instruction
/// of `m` in order (the layout's linked list, and the opcode it branches on) and
/// nothing else. Two-address as llc's run does little more on these inputs.
fn walk_alone(m: &Module) -> usize {
    let mut copies = 0;
    for f in &m.functions {
        for b in f.layout.blocks() {
            let mut cur = f.layout.first_inst(b);
            while let Some(i) = cur {
                copies += usize::from(f.insts[i].is(Op::COPY));
                cur = f.layout.next_inst(i);
            }
        }
    }
    copies
}

/// Our passes on `pre` in process, tracing off: the [`OUR_ROWS`]. Two-address runs
/// twice: configured as `llc -run-pass` runs it (no LiveVariables: kill flags it would
/// move are dropped, as llc-22's are), and as the pipeline's stage, which computes
/// LiveVariables itself when it starts from MIR (in llc-22 that analysis is a pass of
/// its own, run before PHI elimination and not in the measured run). The coalescer runs
/// on the stage's output. Each row is timed warm (the input just cloned, as llc's
/// passes run on MIR it has just read: the figure set against llc-22's) and cold
/// (caches evicted after the clone, as the scaling table times every stage: a 10k
/// module sits in the core's L2 after its clone and a 100k one does not, so the warm
/// 100k/10k ratio measures the cache as well as the pass), alternately. A fourth row
/// times [`walk_alone`], the visit every pass makes. Returns (instructions, mean ms per
/// row warm, mean ms per row cold).
fn our_pass_ms(pre: &std::path::Path) -> (usize, [[f64; 4]; 2]) {
    let text = std::fs::read_to_string(pre).unwrap();
    let (_, mut ir, _) = parse_input(&text, None).unwrap();
    let insts = size_of(&ir);
    let knobs = Knobs::default();
    let mut mean = [[0.0f64; 4]; 2];
    let Ir::Mir(m) = &ir else {
        return (insts, mean);
    };
    // This thread alone allocates until the end (see [`ONE_THREAD`]).
    ONE_THREAD.store(true, Ordering::Relaxed);
    let opts = compiler_core::passes::two_address::TwoAddressOptions {
        live_variables: false,
        ..compiler_core::pipeline::two_address_options(&knobs)
    };
    // Run `run` on a fresh copy of `input` warm and cold, PASS_REPS times each; adds
    // the means to row `r` and returns the last output.
    let mut timed = |r: usize, input: &dyn Fn() -> Ir, run: &dyn Fn(&mut Ir)| {
        let mut out = None;
        for rep in 0..2 * PASS_REPS {
            let cold = rep % 2;
            let mut x = input();
            if cold == 1 {
                evict_caches();
            }
            let t = cpu_now();
            run(&mut x);
            mean[cold][r] += ms(cpu_now() - t) / PASS_REPS as f64;
            out = Some(x);
        }
        out.unwrap()
    };
    timed(3, &|| Ir::Mir(m.clone()), &|x| {
        let Ir::Mir(x) = x else { unreachable!() };
        std::hint::black_box(walk_alone(x));
    });
    timed(0, &|| Ir::Mir(m.clone()), &|x| {
        let Ir::Mir(x) = x else { unreachable!() };
        for f in &mut x.functions {
            let mut rec = compiler_core::trace::NoTrace::default();
            compiler_core::passes::two_address::run_with_classes(f, &opts, &mut rec);
        }
    });
    for (r, stage) in [(1, Stage::TwoAddress), (2, Stage::RegisterCoalescer)] {
        let input = ir.clone();
        ir = timed(r, &|| input.clone(), &|x| {
            run_stage(stage, x, &knobs, false).unwrap();
        });
    }
    ONE_THREAD.store(false, Ordering::Relaxed);
    (insts, mean)
}

/// Per-pass speed against llc-22's own: its `-time-passes` CPU time for two-address
/// and register-coalescer (plus the analyses llc's coalescer needs first) beside our
/// stages in process on the same files, at ~10k and ~100k instructions: llc-22's MIR of
/// `phi_swaps_ll` (1,000 and 10,000 swapped pairs) and of the largest kernels of
/// `shared/corpus/llvm-nvptx` replicated to those sizes. Means of 9 runs each. Inputs
/// are named by `COPYSCOPE_BENCH_LLC_INPUTS` (comma-separated labels' first words, e.g.
/// `phi-swaps,insertelt-dynamic`), default all.
fn llc_scaling(md: &mut String) {
    let dir = std::env::temp_dir().join("copyscope-bench");
    std::fs::create_dir_all(&dir).unwrap();
    let swaps = [1_000, 10_000].map(|p| llc_pre_mir(&dir, p));
    let mut inputs = Vec::new();
    if let [Some(a), Some(b)] = swaps {
        inputs.push(PassInput {
            label: "phi-swaps".into(),
            flags: vec!["-march=nvptx64".into(), "-mcpu=sm_90".into()],
            pres: [a, b],
            kernel: None,
        });
    }
    inputs.extend(corpus_inputs(&dir, 2));
    if let Some(only) = env_list("COPYSCOPE_BENCH_LLC_INPUTS") {
        inputs.retain(|i| {
            only.iter()
                .any(|o| i.label.split([' ', ':']).next() == Some(o))
        });
    }
    let _ = writeln!(md, "\n## Per-pass speed against llc-22\n\nThe same two passes in llc-22 (its `-time-passes` CPU time, the User+System column: LLVM splits a pass's CPU time into user and system by the whole process's tick-sampled share, so the User column alone is the pass's time scaled by a process-wide factor) and in copyscope (in process, tracing off, warm: the input just cloned, as llc's passes run on MIR it has just read; this thread's CPU time, user and system alike), on llc-22's own MIR stopped before two-address, at ~10k and ~100k instructions. Inputs: `phi_swaps_ll` with 1,000 and 10,000 swapped PHI pairs in one loop, and the largest functions of `shared/corpus/llvm-nvptx` (file:function (its instructions before two-address)), each copied in its file under new names until the module reaches the size (*×K*: copies at ~10k; ten times as many at ~100k), lowered by llc-22 with the case's own flags. Means of {PASS_REPS} runs each (llc-22 rounds its report to 0.1 ms, so a best-of would pick the runs rounded down). llc's register-coalescer figure adds the two analyses it runs first (slot indexes, live intervals), which our stage computes itself. Two-address is shown twice: as llc's measured run does the work (`-run-pass` gives it no LiveVariables, so it drops the kill flags it would move; ours with the same option off) — the row judged — and as our pipeline stage runs when it starts from MIR, computing LiveVariables first (llc-22 runs that analysis as a pass of its own before PHI elimination, outside the measured run). Ours is also timed cold (every cache level evicted after the clone, as the scaling table times every stage). *ours ÷ llc* ≤ 1 is the goal (warm against warm). *100k/10k* is time(10N)/time(N), goal ≤ 11, judged on the cold runs, which start both sizes from memory as one compiler invocation does; the warm ratio is shown beside it. The warm ratio is not judged because, for a pass that does almost nothing per instruction, it measures where the clone left the module rather than the pass: after its clone a 10k module sits in the core's L2 and a 100k one does not, and walking the instruction list is a chain of dependent loads, each waiting for the one before. The last row of each input times the walk alone (each instruction's list node and opcode, the visit every pass makes, with no pass work): its warm ratio is what the memory system alone gives a pass that visits every instruction. llc-22 walks a linked instruction list too, and its own ratios are in the *llc-22 100k/10k* column (llc-22's run cannot be timed cold: it reads its input in the same process). This section runs first in the bench process, on a heap nothing has used yet, as each llc-22 figure comes from a process of its own: run last (until 2026-11-28), after the other sections had left some 790 MB of freed and scattered heap, the 100k clone was spread over it and phi-swaps register-coalescer at 100k measured 83-152 ms where a process of its own measures about 90 (a probe that first filled the heap with 6M small blocks and freed half at random: median 65 -> 101 ms at 100k, 10k unchanged).\n\n| input | stage | insts 10k | llc-22 10k (ms) | ours 10k (ms) | ours ÷ llc | insts 100k | llc-22 100k (ms) | ours 100k (ms) | ours ÷ llc | llc-22 100k/10k | ours 100k/10k | ours cold 10k (ms) | ours cold 100k (ms) | ours cold 100k/10k |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut worst = (0.0f64, String::new());
    // Warm, cold.
    let mut worst_ratio = [(0.0f64, String::new()), (0.0f64, String::new())];
    // The reference walk's worst warm ratio.
    let mut walk_ratio = (0.0f64, String::new());
    for input in &inputs {
        let mut llc = [[0.0f64; 2]; 2];
        // [size][warm, cold][row]
        let mut ours = [[[0.0f64; 4]; 2]; 2];
        let mut insts = [0usize; 2];
        for (k, pre) in input.pres.iter().enumerate() {
            match llc_pass_ms(pre, &input.flags) {
                Ok(t) => llc[k] = t,
                Err(e) => {
                    let _ = writeln!(md, "| {} | – | {e} ||||||||||||||", input.label);
                    continue;
                }
            }
            (insts[k], ours[k]) = our_pass_ms(pre);
        }
        for (r, &(label, l, judged)) in OUR_ROWS.iter().enumerate() {
            let vs = |k: usize| l.map_or(0.0, |l| ours[k][0][r] / llc[k][l].max(1e-3));
            let growth = |c: usize| ours[1][c][r] / ours[0][c][r].max(1e-3);
            // The llc-22 cells of a row set against it (empty for the reference).
            let cell = |x: Option<f64>| x.map_or("–".to_string(), |x| format!("{x:.2}"));
            let llc_ms = |k: usize| cell(l.map(|l| llc[k][l]));
            let llc_growth = l.map_or("–".to_string(), |l| {
                format!("{:.1}", llc[1][l] / llc[0][l].max(1e-3))
            });
            for (k, n) in insts.iter().enumerate() {
                if judged && vs(k) > worst.0 {
                    worst = (vs(k), format!("{} {label} at {n}", input.label));
                }
            }
            if l.is_none() && growth(0) > walk_ratio.0 {
                walk_ratio = (growth(0), input.label.clone());
            }
            for (c, worst_ratio) in worst_ratio.iter_mut().enumerate() {
                if judged && growth(c) > worst_ratio.0 {
                    *worst_ratio = (growth(c), format!("{} {label}", input.label));
                }
            }
            let _ = writeln!(
                md,
                "| {} | {label} | {} | {} | {:.2} | {} | {} | {} | {:.2} | {} | {llc_growth} | {:.1} | {:.2} | {:.2} | {:.1} |",
                input.label,
                insts[0],
                llc_ms(0),
                ours[0][0][r],
                cell(l.map(|_| vs(0))),
                insts[1],
                llc_ms(1),
                ours[1][0][r],
                cell(l.map(|_| vs(1))),
                growth(0),
                ours[0][1][r],
                ours[1][1][r],
                growth(1)
            );
        }
        print!(".");
        let _ = std::io::stdout().flush();
    }
    let _ = writeln!(
        md,
        "\nWorst ours ÷ llc-22 (judged rows): {:.2} ({}). Worst 100k/10k of ours (judged rows): cold, the judged figure, {:.1} ({}); warm {:.1} ({}), where the walk alone reaches {:.1} ({}).",
        worst.0, worst.1, worst_ratio[1].0, worst_ratio[1].1, worst_ratio[0].0, worst_ratio[0].1, walk_ratio.0, walk_ratio.1
    );
}

/// Only the per-pass comparison with llc-22, printed (`MIMALLOC_PURGE_DELAY=-1 cargo
/// test --release -p compiler-core --test bench llc_scaling_only -- --ignored
/// --nocapture`; the variable as `cargo xtask bench` sets it).
#[test]
#[ignore]
fn llc_scaling_only() {
    let mut md = String::new();
    llc_scaling(&mut md);
    println!("{md}");
}

/// The CPU time (ms: its `User+System` column) `-time-passes` reports for the pass
/// named `name`. Not the `User Time` column: LLVM reads both from `getrusage`, whose
/// user/system split Linux makes by sampling the whole process at the timer tick and
/// scaling its precise run time by that ratio, so each pass's user figure is its CPU
/// time times the process's user share (the report's user and system percentages of a
/// pass agree to rounding). Their sum is the precise run time, the clock our figure
/// reads ([`cpu_now`]). Columns are found by the header: LLVM leaves out a column
/// whose total is zero.
fn pass_cpu_ms(report: &str, name: &str) -> Option<f64> {
    let header = report.lines().find(|l| l.contains("Wall Time"))?;
    let mut columns: Vec<(usize, &str)> = ["User Time", "System Time", "User+System", "Wall Time"]
        .into_iter()
        .filter_map(|c| header.find(c).map(|at| (at, c)))
        .collect();
    columns.sort();
    let column = columns.iter().position(|&(_, c)| c == "User+System")?;
    let line = report.lines().find(|l| l.trim_end().ends_with(name))?;
    // The figures in order; the percentages beside them (`( 4.0%)`, `(100.0%)`) do
    // not read as numbers.
    line.split_whitespace()
        .filter_map(|t| t.parse::<f64>().ok())
        .nth(column)
        .map(|sec| sec * 1e3)
}

#[test]
fn llc_pass_time_is_read_from_the_user_plus_system_column() {
    let report = "   ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---
   0.0014 (  4.0%)   0.0002 (  4.1%)   0.0015 (  4.0%)   0.0127 ( 19.5%)  Two-Address instruction pass
   0.0343 (100.0%)   0.0044 (100.0%)   0.0387 (100.0%)   0.0647 (100.0%)  Total
";
    let ms = |r: &str, n: &str| pass_cpu_ms(r, n).map(|t| (t * 10.0).round() / 10.0);
    assert_eq!(ms(report, "Two-Address instruction pass"), Some(1.5));
    assert_eq!(ms(report, "Total"), Some(38.7));
    // Without system time LLVM prints no System column: User+System is then second.
    let no_sys = "   ---User Time---   --User+System--   ---Wall Time---  --- Name ---
   0.0014 (  4.0%)   0.0016 (  4.0%)   0.0127 ( 19.5%)  Register Coalescer
";
    assert_eq!(ms(no_sys, "Register Coalescer"), Some(1.6));
    assert_eq!(ms(no_sys, "Slot index numbering"), None);
}

/// The native twin of `cargo xtask bench --wasm`: the gallery example named by
/// `COPYSCOPE_TWIN_EXAMPLE` through `pipeline::run` with tracing on, once until each
/// stage of its run and once whole, best of `COPYSCOPE_BENCH_REPS` (7) each: the calls
/// the JS API's `run(source, {until})` makes in the browser. Prints `twin <stage|all>
/// <ms>` lines (wall time, batch means, as the page measures).
#[test]
#[ignore]
fn native_twin() {
    let Ok(name) = std::env::var("COPYSCOPE_TWIN_EXAMPLE") else {
        println!("COPYSCOPE_TWIN_EXAMPLE is not set; nothing to do");
        return;
    };
    let example = EXAMPLES
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no gallery example `{name}`"));
    let (_, source) = example.text(None).expect("the example has a form");
    let reps = reps_for(1);
    // As the page measures: the mean over a batch of runs lasting at least 40 ms, best
    // of `reps` batches.
    let best = |opts: &RunOptions| {
        let mut min = Duration::MAX;
        let mut out = None;
        for _ in 0..reps {
            let t = Instant::now();
            let mut n = 0u32;
            while n == 0 || t.elapsed() < Duration::from_millis(40) {
                out = Some(compiler_core::pipeline::run(source, opts).expect("the example runs"));
                n += 1;
            }
            min = min.min(t.elapsed() / n);
        }
        (min, out.unwrap())
    };
    let traced = RunOptions {
        trace: true,
        ..RunOptions::default()
    };
    let (whole, result) = best(&traced);
    for stage in result.stages.iter().map(|s| s.stage) {
        let (t, _) = best(&RunOptions {
            until: Some(stage),
            ..traced.clone()
        });
        println!("twin {} {:.3}", stage.id(), ms(t));
    }
    println!("twin all {:.3}", ms(whole));
}

/// For profiling one pass under `perf record`: runs the stage `COPYSCOPE_PROFILE_STAGE`
/// (default two-address) untraced `COPYSCOPE_PROFILE_REPS` times (default 200) on the
/// MIR file `COPYSCOPE_PROFILE_MIR`, after running the stages before it once, and
/// prints the mean CPU time per run.
#[test]
#[ignore]
fn profile_pass() {
    let Ok(path) = std::env::var("COPYSCOPE_PROFILE_MIR") else {
        println!("COPYSCOPE_PROFILE_MIR is not set; nothing to do");
        return;
    };
    let want = std::env::var("COPYSCOPE_PROFILE_STAGE").unwrap_or("two-address".into());
    let reps: u32 = std::env::var("COPYSCOPE_PROFILE_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let text = std::fs::read_to_string(&path).unwrap();
    let (_, mut ir, _) = parse_input(&text, None).unwrap();
    let knobs = Knobs::default();
    if want == "two-address-llc" {
        // As `llc -run-pass=twoaddressinstruction` runs it: without LiveVariables.
        let Ir::Mir(m) = &ir else { panic!("not MIR") };
        let opts = compiler_core::passes::two_address::TwoAddressOptions {
            live_variables: false,
            ..Default::default()
        };
        let mut total = Duration::ZERO;
        for _ in 0..reps {
            let mut x = m.clone();
            let t = Cpu::start();
            for f in &mut x.functions {
                let mut rec = compiler_core::trace::NoTrace::default();
                compiler_core::passes::two_address::run_with_classes(f, &opts, &mut rec);
            }
            total += t.elapsed();
        }
        println!(
            "{want}: {:.3} ms per run ({reps} runs)",
            ms(total) / reps as f64
        );
        return;
    }
    let entry = compiler_core::pipeline::entry_stage(&ir);
    for stage in plan(entry, &RunOptions::default()).unwrap() {
        if stage.id() != want {
            untraced_stage(stage, &mut ir, &knobs).unwrap();
            continue;
        }
        let mut total = Duration::ZERO;
        for _ in 0..reps {
            let mut x = ir.clone();
            let t = Cpu::start();
            untraced_stage(stage, &mut x, &knobs).unwrap();
            total += t.elapsed();
        }
        println!(
            "{want}: {:.3} ms per run ({reps} runs)",
            ms(total) / reps as f64
        );
        return;
    }
}

/// The release CLI the whole-process measurements run (`COPYSCOPE_BIN`, which `cargo
/// xtask bench` sets; else the `copyscope` beside this bench binary's directory).
fn copyscope_bin() -> std::path::PathBuf {
    std::env::var_os("COPYSCOPE_BIN")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            let exe = std::env::current_exe().unwrap();
            exe.parent().unwrap().parent().unwrap().join("copyscope")
        })
}

/// Issue 31's 200,000-node DAG: `copyscope run --only instr-emitter` on `dag_chain` of
/// at least 200,000 nodes, traced and with `--no-trace`, each a whole process; the
/// section gives both peak resident sets (`/usr/bin/time -f %M`) and their ratio (goal
/// ≤ 4). `COPYSCOPE_BENCH_DAG200K=0` skips it.
fn dag_resident_section(md: &mut String) {
    let head = "\n## The 200,000-node DAG through the emitter\n\n";
    let cli = copyscope_bin();
    if !cli.exists() || !std::path::Path::new("/usr/bin/time").exists() {
        let _ = writeln!(md, "{head}Not measured: it needs `{}` (`cargo build --release -p copyscope`; `cargo xtask bench` builds it) and `/usr/bin/time`.", cli.display());
        return;
    }
    let mut n = 206_000;
    let text = loop {
        let text = compiler_core::testgen::synthetic::dag_chain(n);
        let (_, ir, _) = parse_input(&text, None).unwrap();
        if size_of(&ir) >= 200_000 {
            break text;
        }
        n += 1_000;
    };
    let (_, ir, _) = parse_input(&text, None).unwrap();
    let nodes = size_of(&ir);
    let path = std::env::temp_dir().join("copyscope-dag-200k.txt");
    std::fs::write(&path, &text).unwrap();
    let rss = |traced: bool| -> u64 {
        let mut c = std::process::Command::new("/usr/bin/time");
        c.args(["-f", "%M", "-o", "/dev/stderr"])
            .arg(&cli)
            .args(["run", "--only", "instr-emitter"])
            .arg(&path);
        if !traced {
            c.arg("--no-trace");
        }
        let out = c.stdout(std::process::Stdio::null()).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        err.lines().last().unwrap().trim().parse().unwrap()
    };
    let (off, on) = (rss(false), rss(true));
    let _ = std::fs::remove_file(&path);
    let ratio = on as f64 / off as f64;
    let _ = writeln!(md, "{head}`copyscope run --only instr-emitter` on `dag_chain({n})` ({nodes} DAG nodes), a whole process each, peak resident set (`/usr/bin/time -f %M`; both print the emitted MIR, the traced one after recording every step): {} MB with `--no-trace`, {} MB traced: **{ratio:.2}×** (goal ≤ 4).", off / 1024, on / 1024);
    println!("dag-chain {nodes} nodes through instr-emitter: resident {} MB untraced, {} MB traced, {ratio:.2}×", off / 1024, on / 1024);
}

/// The 200,000-node DAG measurement alone (see [`dag_resident_section`]).
#[test]
#[ignore]
fn dag_200k_resident() {
    let mut md = String::new();
    dag_resident_section(&mut md);
    println!("{md}");
}

/// A module of many functions: one of [`corpus_inputs`]' kernels copied to ~100k
/// instructions (its llc-22 MIR before two-address), as a bench family.
struct ManyFunctions {
    family: String,
    flags: Vec<String>,
    path: std::path::PathBuf,
    text: String,
}

/// The two largest kernels of `shared/corpus/llvm-nvptx` at ~100k instructions, each
/// copied under new names (a thousand functions and more): rows of the per-stage and
/// trace-budget tables as the family `many-functions <kernel> ×K`, so a cost per
/// function or per module that one large function hides shows there.
fn many_function_modules() -> Vec<ManyFunctions> {
    let dir = std::env::temp_dir().join("copyscope-bench");
    std::fs::create_dir_all(&dir).unwrap();
    corpus_inputs(&dir, 2)
        .into_iter()
        .filter_map(|i| {
            let (kernel, copies) = i.kernel?;
            let path = i.pres[1].clone();
            let text = std::fs::read_to_string(&path).ok()?;
            Some(ManyFunctions {
                family: format!("many-functions {kernel} ×{copies}"),
                flags: i.flags,
                path,
                text,
            })
        })
        .collect()
}

/// The many-function modules through the whole pipeline as a user runs it, each a
/// whole process (best of 3): `copyscope run` with `--no-trace`, traced (recording
/// every step, printing the PTX) and `--json` (the steps printed too), beside llc-22
/// compiling the same MIR from two-address to PTX (`-start-before=twoaddressinstruction`:
/// the same span of LLVM's half, without ptxas' half, which ours also runs).
fn many_functions_section(md: &mut String, many: &[ManyFunctions]) {
    let _ = writeln!(md, "\n## Many functions in one module, whole processes\n\nThe two largest kernels of `shared/corpus/llvm-nvptx` copied to ~100k instructions (llc-22's MIR before two-address; their stages are rows `many-functions …` of the tables above), each run as a whole process, best of 3: CPU (user + system) and wall seconds. `copyscope run` goes from two-address through GeneralOptimize to PTX; llc-22 from two-address to PTX (`-start-before=twoaddressinstruction`), LLVM's half only.\n\n| module | functions | insts | `--no-trace` CPU / wall (s) | traced CPU / wall (s) | `--json` CPU / wall (s) | llc-22 CPU / wall (s) |\n|---|---:|---:|---:|---:|---:|---:|");
    let cli = copyscope_bin();
    for m in many {
        let Ok((_, ir, _)) = parse_input(&m.text, None) else {
            continue;
        };
        let Ir::Mir(module) = &ir else { continue };
        let ours = |extra: &[&str]| {
            let (cpu, wall) = time_process(3, || {
                let mut c = std::process::Command::new(&cli);
                c.arg("run").arg(&m.path).args(extra);
                c.stdout(std::process::Stdio::null());
                c
            });
            format!("{:.2} / {:.2}", cpu.as_secs_f64(), wall.as_secs_f64())
        };
        let (cpu, wall) = time_process(3, || {
            let mut c = std::process::Command::new("llc-22");
            c.args(&m.flags)
                .arg("-start-before=twoaddressinstruction")
                .arg(&m.path)
                .args(["-o", "/dev/null"])
                .stdout(std::process::Stdio::null());
            c
        });
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {:.2} / {:.2} |",
            m.family,
            module.functions.len(),
            size_of(&ir),
            ours(&["--no-trace"]),
            ours(&[]),
            ours(&["--json"]),
            cpu.as_secs_f64(),
            wall.as_secs_f64()
        );
    }
}
