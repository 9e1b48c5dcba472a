//! `cargo xtask bench --wasm`: the pipeline as the playground runs it, in headless
//! Chromium, beside the same calls natively; written to `docs/bench-wasm.md`.
//!
//! ```text
//!  trunk build --release ──▶ dist/ ──static server──▶ node e2e/bench/wasm-timings.mjs
//!                                                      (JSON: per-stage ms, page ms)
//!  cargo test --release --test bench native_twin  ──▶ "twin <stage> <ms>" lines
//!  web-engine/tests/memory.rs in Node (wasm)       ──▶ "wasm memory: ..." lines
//!                                    all ──▶ docs/bench-wasm.md
//! ```

use crate::ctx::Ctx;
use crate::tools::CHROMIUM;
use crate::{http, proc};
use serde_json::Value;
use std::fmt::Write as _;
use std::process::Stdio;

/// Tools the wasm bench needs: the e2e check's (site build, node packages, Chromium).
pub const NEEDS: &[&str] = crate::checks::E2E;

/// Builds the site, measures it in Chromium and natively, writes the report.
pub fn run(ctx: &Ctx) -> Result<(), String> {
    println!("building the site (trunk build --release)");
    let (ok, _) = proc::tee(&mut ctx.trunk_release_build());
    if !ok {
        return Err("trunk build --release failed".into());
    }
    let site = http::StaticServer::start(ctx.root.join("dist"))
        .map_err(|e| format!("static server: {e}"))?;
    println!(
        "timing the JS API and the page in Chromium ({})",
        site.url()
    );
    let out = ctx
        .command("node", &["bench/wasm-timings.mjs"])
        .current_dir(ctx.e2e())
        .env("COPYSCOPE_URL", site.url())
        .env("COPYSCOPE_CHROMIUM", CHROMIUM)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run node: {e}"));
    site.stop();
    let out = out?;
    if !out.status.success() {
        return Err("e2e/bench/wasm-timings.mjs failed".into());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let json: Value = text
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .ok_or("wasm-timings.mjs printed no JSON")?;
    let example = json["example"].as_str().ok_or("no example in the JSON")?;

    println!("timing the same example natively (compiler-core/tests/bench.rs native_twin)");
    let twin = ctx
        .bench_test(&["--", "--ignored", "--exact", "native_twin", "--nocapture"])
        .env("COPYSCOPE_TWIN_EXAMPLE", example)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run the native twin: {e}"))?;
    if !twin.status.success() {
        return Err("the native twin failed".into());
    }
    let native: Vec<(String, f64)> = String::from_utf8_lossy(&twin.stdout)
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("twin ")?.split_whitespace();
            Some((w.next()?.to_string(), w.next()?.parse().ok()?))
        })
        .collect();

    let sizes = crate::checks::wasm_sizes(&ctx.root.join("dist"));
    let mut md = report(&json, &native, &sizes);
    md.push_str(&memory_section(ctx)?);
    let path = ctx.root.join("docs").join("bench-wasm.md");
    std::fs::write(&path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("{md}");
    println!("results: {}", ctx.show(&path));
    Ok(())
}

/// The Markdown report from the page's JSON, the native `(stage, cumulative ms)` and the
/// site's wasm files `(name, bytes, gzip bytes)`.
fn report(json: &Value, native: &[(String, f64)], sizes: &[(String, u64, u64)]) -> String {
    let num = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let native_at = |stage: &str| native.iter().find(|(s, _)| s == stage).map(|(_, t)| *t);
    let mut md = String::new();
    let _ = writeln!(md, "# Benchmarks: the pipeline in the browser\n");
    let _ = writeln!(
        md,
        "Written by `cargo xtask bench --wasm`: the release site (`trunk build --release`, \
         wasm-opt -Oz) in headless Chromium ({}), beside the same calls natively (release \
         profile). Example: `{}` ({} source lines, {}, {} steps in a whole run), the largest \
         of the {} gallery examples by steps. Both sides call the pipeline with tracing \
         on, as the playground does: the JS API's `run(source, {{until: stage}})` in \
         the page, `pipeline::run` natively; a stage's time is the run until it minus \
         the run until the stage before (differences within the noise show as 0). Wall \
         times in ms: the mean over a batch of runs lasting at least 40 ms, best of 7 \
         batches.\n",
        json["userAgent"]
            .as_str()
            .and_then(|ua| ua
                .split_whitespace()
                .find(|w| w.starts_with("HeadlessChrome/")))
            .unwrap_or("headless"),
        json["example"].as_str().unwrap_or("?"),
        num(&json["sourceLines"]),
        json["format"].as_str().unwrap_or("?"),
        num(&json["totalSteps"]),
        num(&json["examples"]),
    );
    let _ = writeln!(
        md,
        "| stage | steps | wasm (ms) | native (ms) | wasm / native |\n|---|---:|---:|---:|---:|"
    );
    let mut before = 0.0;
    for row in json["rows"].as_array().into_iter().flatten() {
        let stage = row["stage"].as_str().unwrap_or("?");
        let wasm = num(&row["stageMs"]);
        let native = native_at(stage).map(|t| {
            let d = (t - before).max(0.0);
            before = t;
            d
        });
        let _ = writeln!(
            md,
            "| {stage} | {} | {wasm:.2} | {} | {} |",
            row["steps"],
            native.map_or("–".into(), |n| format!("{n:.2}")),
            native
                .filter(|&n| n > 0.01)
                .map_or("–".into(), |n| format!("{:.1}×", wasm / n)),
        );
    }
    let whole = num(&json["wholeMs"]);
    let native_whole = native_at("all");
    let _ = writeln!(
        md,
        "| **whole run** | | **{whole:.2}** | **{}** | **{}** |",
        native_whole.map_or("–".into(), |n| format!("{n:.2}")),
        native_whole
            .filter(|&n| n > 0.01)
            .map_or("–".into(), |n| format!("{:.1}×", whole / n)),
    );
    let _ = writeln!(
        md,
        "\nThe first whole run in the page, before the warm-up that precedes every figure \
         above (V8 first runs baseline-compiled code and optimizes hot functions later): \
         {:.1} ms.",
        num(&json["firstMs"]),
    );
    let _ = writeln!(
        md,
        "\nThe page, from opening `#example={}` in a fresh tab (wasm fetched from the \
         browser's cache, compiled, the engine started in its Web Worker, the run, the \
         first view drawn) until the run shows as done: {:.0} ms the first time, {:.0} \
         ms at best over 5.",
        json["example"].as_str().unwrap_or("?"),
        num(&json["pageFirstMs"]),
        num(&json["pageMs"]),
    );
    let _ = writeln!(
        md,
        "\n## Size\n\nThe site's wasm files (release, wasm-opt -Oz), in KB; gzip is gzip -9. \
         The page's (`web-app-…`) holds the UI; the engine's (`copyscope-engine`) the \
         pipeline, fetched while the page's loads; the proof's (`copyscope-proof`) the \
         interpreters, fetched on the first proof.\n\n| file | raw | gzip |\n|---|---:|---:|"
    );
    for (name, raw, gz) in sizes {
        let _ = writeln!(
            md,
            "| `{name}` | {} | {} |",
            raw.div_ceil(1024),
            gz.div_ceil(1024)
        );
    }
    let (raw, gz) = sizes.iter().fold((0, 0), |(r, g), f| (r + f.1, g + f.2));
    let _ = writeln!(
        md,
        "| together | {} | {} |",
        raw.div_ceil(1024),
        gz.div_ceil(1024)
    );
    if let Some(errors) = json["errors"].as_array().filter(|e| !e.is_empty()) {
        let _ = writeln!(md, "\nThe page logged errors: {errors:?}");
    }
    md
}

/// The engine's wasm memory on 20,000-instruction inputs: web-engine/tests/memory.rs
/// (ignored in test runs) in Node through wasm-bindgen-test-runner; its lines, as a
/// Markdown section.
fn memory_section(ctx: &Ctx) -> Result<String, String> {
    println!("measuring the engine's wasm memory (web-engine/tests/memory.rs in Node)");
    let out = ctx
        .cargo(&[
            "test",
            "--release",
            "-p",
            "web-engine",
            "--target",
            "wasm32-unknown-unknown",
            "--test",
            "memory",
            "--",
            "--include-ignored",
            "--nocapture",
        ])
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
            "wasm-bindgen-test-runner",
        )
        .output()
        .map_err(|e| format!("cannot run the memory test: {e}"))?;
    // console.log lines may come on either stream.
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        eprintln!("{text}");
        return Err("web-engine/tests/memory.rs failed".into());
    }
    let mut md = String::from(
        "\n## Engine memory on large inputs\n\nweb-engine/tests/memory.rs in Node (the engine's wasm, release): each input goes through `web_engine::handle` as the Web Worker takes it — a traced run of every stage, then views of the first, middle and last step of every stage. Linear memory only grows; the page shows the figure after the run next to the run status.\n\n",
    );
    for line in text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("wasm memory"))
    {
        let _ = writeln!(md, "- wasm memory{line}");
    }
    Ok(md)
}
