//! Fuzzing: `cargo +nightly fuzz` over the targets in `fuzz/` (its own workspace).
//! The `fuzz-smoke` check runs each target briefly; `cargo xtask fuzz [TARGET]
//! [--seconds N]` runs one or all for as long as asked. Findings land in
//! `fuzz/artifacts/<target>/`; each fixed one becomes a regression test.

use crate::checks::{failed, Outcome};
use crate::ctx::Ctx;
use crate::proc;
use std::time::Instant;

/// Every target, in `fuzz/Cargo.toml` order.
pub const TARGETS: &[&str] = &[
    "mir_parse",
    "link_decode",
    "pipeline",
    "random_program",
    "dag_parse",
    "ptx_parse",
];

/// Seconds per target in the smoke check.
pub const SMOKE_SECONDS: u32 = 20;

/// Runs `target` for `seconds`; Ok(summary line) or Err(why).
pub fn run_target(ctx: &Ctx, target: &str, seconds: u32) -> Result<String, String> {
    let corpus = ctx.root.join("fuzz").join("corpus").join(target);
    std::fs::create_dir_all(&corpus).map_err(|e| format!("{}: {e}", corpus.display()))?;
    let mut cmd = ctx.command(
        "cargo",
        &[
            "+nightly",
            "fuzz",
            "run",
            "-O",
            target,
            &corpus.display().to_string(),
            "--",
            &format!("-max_total_time={seconds}"),
            "-rss_limit_mb=2048",
            "-timeout=20",
        ],
    );
    cmd.current_dir(ctx.root.join("fuzz"));
    // The fuzz workspace has its own target directory unless one is forced.
    cmd.env_remove("CARGO_TARGET_DIR");
    let start = Instant::now();
    let (ok, lines) = proc::tee(&mut cmd);
    let runs = lines
        .iter()
        .rev()
        .find_map(|l| l.split("Done ").nth(1).map(|r| r.trim().to_string()))
        .unwrap_or_default();
    let took = start.elapsed().as_secs();
    if ok {
        Ok(format!("{target}: {runs} in {took}s"))
    } else {
        Err(format!(
            "{target}: failed after {took}s (see fuzz/artifacts/{target}/)"
        ))
    }
}

/// The `fuzz-smoke` check: every target for [`SMOKE_SECONDS`].
pub fn smoke(ctx: &Ctx) -> Outcome {
    let mut done = Vec::new();
    let mut bad = Vec::new();
    for t in TARGETS {
        match run_target(ctx, t, SMOKE_SECONDS) {
            Ok(line) => done.push(line),
            Err(e) => bad.push(e),
        }
    }
    for line in &done {
        println!("{line}");
    }
    if bad.is_empty() {
        Outcome {
            ok: true,
            detail: format!("{} targets, {SMOKE_SECONDS}s each, no crash", done.len()),
        }
    } else {
        failed(bad.join("; "))
    }
}
