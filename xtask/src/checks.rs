//! `cargo xtask test`: every check the project has, in order, each timed, with a summary.
//!
//! A failing step does not stop the run; the summary lists every step and the last line
//! is `N passed, N failed` (check steps, not individual tests). The exit code is non-zero
//! when any step failed.

use crate::ctx::Ctx;
use crate::serve::{self, ServeOptions};
use crate::tools::{CHROMEDRIVER, CHROMIUM};
use crate::{http, proc};
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Step {
    pub name: &'static str,
    pub about: &'static str,
    /// Tool ids (tools.rs) this step uses; only those are installed for a partial run.
    pub needs: &'static [&'static str],
    run: fn(&Ctx) -> Outcome,
}

pub struct Outcome {
    pub ok: bool,
    /// One short line for the summary (test counts, sizes).
    pub detail: String,
}

const WASM: &[&str] = &["wasm32-target", "wasm-bindgen-cli"];
const BROWSER: &[&str] = &["wasm32-target", "wasm-bindgen-cli", "chromium"];
const SITE: &[&str] = &[
    "wasm32-target",
    "size-toolchain",
    "crate-sources",
    "trunk",
    "wasm-bindgen-cli",
    "node-packages",
];
pub const E2E: &[&str] = &[
    "wasm32-target",
    "size-toolchain",
    "crate-sources",
    "trunk",
    "wasm-bindgen-cli",
    "node-packages",
    "chromium",
];

/// Random programs the `random-programs` step runs (`COPYSCOPE_RANDOM_PROGRAMS`
/// overrides it).
pub const RANDOM_PROGRAMS: u32 = 1000;

/// Every check step, in run order.
pub fn steps() -> Vec<Step> {
    vec![
        Step {
            name: "fmt",
            about: "cargo fmt --all -- --check",
            needs: &[],
            run: |ctx| cargo_step(ctx, &["fmt", "--all", "--", "--check"], &[]),
        },
        Step {
            name: "clippy",
            about: "cargo clippy -D warnings: the workspace natively, the web crates as wasm too",
            needs: &["wasm32-target"],
            run: clippy,
        },
        Step {
            name: "native-tests",
            about: "cargo test --workspace (PTX tests assemble with the real ptxas; llc-22 \
                    is the oracle for MIR)",
            needs: &["ptxas", "llvm-22"],
            run: native_tests,
        },
        Step {
            name: "random-programs",
            about: "1,000 random MIR programs through every pass (release; verifier + interpreter), \
                    and 1,000 on through PTX and GeneralOptimize (ORI interpreter, ptxas)",
            needs: &["ptxas"],
            run: random_programs,
        },
        Step {
            name: "fuzz-smoke",
            about: "every fuzz target for a few seconds (cargo +nightly fuzz, fuzz/)",
            needs: &["cargo-fuzz"],
            run: |ctx| crate::fuzz::smoke(ctx),
        },
        Step {
            name: "wasm-build",
            about: "compiler-core for wasm32 without std",
            needs: &["wasm32-target"],
            run: wasm_build,
        },
        Step {
            name: "wasm-node",
            about: "wasm-bindgen tests in Node (web-app stage_table, web-engine js_api)",
            needs: WASM,
            run: wasm_node,
        },
        Step {
            name: "wasm-chromium",
            about: "wasm-bindgen tests in headless Chromium (web-app/tests/render.rs and coalesce_picture.rs, engine in the page)",
            needs: BROWSER,
            run: wasm_chromium,
        },
        Step {
            name: "trunk-build",
            about: "trunk build --release (profile wasm-release, wasm-opt -Oz) into dist/",
            needs: SITE,
            run: trunk_build,
        },
        Step {
            name: "e2e",
            about: "node --test in e2e/ against dist/ and against `trunk serve`",
            needs: E2E,
            run: e2e,
        },
    ]
}

/// Step `clippy` (see its `about` in [`steps`]).
fn clippy(ctx: &Ctx) -> Outcome {
    let args = [
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ];
    let native = cargo_step(ctx, &args, &[]);
    // The worker, the JS API and the browser tests exist only on wasm32.
    let wasm = [
        "clippy",
        "-p",
        "web-app",
        "-p",
        "web-engine",
        "-p",
        "web-proof",
        "--target",
        "wasm32-unknown-unknown",
        "--all-targets",
        "--features",
        "web-app/inline-engine",
        "--",
        "-D",
        "warnings",
    ];
    merge(native, cargo_step(ctx, &wasm, &[]))
}

/// Step `native-tests` (see its `about` in [`steps`]).
fn native_tests(ctx: &Ctx) -> Outcome {
    let ptxas = crate::tools::ptxas_path(ctx).display().to_string();
    cargo_step(
        ctx,
        &["test", "--workspace"],
        &[
            ("PTXAS", ptxas),
            ("COPYSCOPE_REQUIRE_PTXAS", "1".into()),
            ("LLC", crate::tools::LLC.into()),
            ("COPYSCOPE_REQUIRE_LLC", "1".into()),
        ],
    )
}

/// Step `random-programs` (see its `about` in [`steps`]).
fn random_programs(ctx: &Ctx) -> Outcome {
    let args = [
        "test",
        "--release",
        "-p",
        "compiler-core",
        "--test",
        "random_programs",
        "--test",
        "random_programs_ptx",
    ];
    let count =
        std::env::var("COPYSCOPE_RANDOM_PROGRAMS").unwrap_or_else(|_| RANDOM_PROGRAMS.to_string());
    let ptxas = crate::tools::ptxas_path(ctx).display().to_string();
    cargo_step(
        ctx,
        &args,
        &[
            ("COPYSCOPE_RANDOM_PROGRAMS", count.clone()),
            ("COPYSCOPE_RANDOM_PTX_PROGRAMS", count),
            ("PTXAS", ptxas),
            ("COPYSCOPE_REQUIRE_PTXAS", "1".into()),
        ],
    )
}

/// Step `wasm-build` (see its `about` in [`steps`]).
fn wasm_build(ctx: &Ctx) -> Outcome {
    let args = [
        "build",
        "-p",
        "compiler-core",
        "--target",
        "wasm32-unknown-unknown",
        "--no-default-features",
    ];
    cargo_step(ctx, &args, &[])
}

/// Step `wasm-node` (see its `about` in [`steps`]).
fn wasm_node(ctx: &Ctx) -> Outcome {
    let args = wasm_test_args("web-app", &["stage_table"]);
    let app = cargo_step(ctx, &args, &[wasm_runner()]);
    let engine = cargo_step(
        ctx,
        &wasm_test_args("web-engine", &["js_api"]),
        &[wasm_runner()],
    );
    merge(app, engine)
}

/// Step `wasm-chromium` (see its `about` in [`steps`]).
fn wasm_chromium(ctx: &Ctx) -> Outcome {
    let config = match webdriver_config(ctx) {
        Ok(path) => path,
        Err(e) => return failed(e),
    };
    let env = [
        wasm_runner(),
        ("CHROMEDRIVER", CHROMEDRIVER.to_string()),
        ("WASM_BINDGEN_TEST_WEBDRIVER_JSON", config),
    ];
    let mut args = wasm_test_args("web-app", &["render", "coalesce_picture"]);
    args.extend(["--features", "inline-engine"]);
    cargo_step(ctx, &args, &env)
}

pub fn failed(detail: impl Into<String>) -> Outcome {
    Outcome {
        ok: false,
        detail: detail.into(),
    }
}

/// `cargo test -p PACKAGE --target wasm32-unknown-unknown --test T...`.
fn wasm_test_args(package: &'static str, tests: &[&'static str]) -> Vec<&'static str> {
    let mut args = vec!["test", "-p", package, "--target", "wasm32-unknown-unknown"];
    for t in tests {
        args.extend(["--test", t]);
    }
    args
}

/// Two outcomes of one step: ok when both are, details joined.
fn merge(a: Outcome, b: Outcome) -> Outcome {
    let detail = match (a.detail.is_empty(), b.detail.is_empty()) {
        (true, _) => b.detail,
        (_, true) => a.detail,
        _ => format!("{}; {}", a.detail, b.detail),
    };
    Outcome {
        ok: a.ok && b.ok,
        detail,
    }
}

fn wasm_runner() -> (&'static str, String) {
    (
        "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER",
        "wasm-bindgen-test-runner".to_string(),
    )
}

/// Chromium options for wasm-bindgen-test-runner's webdriver session. The runner adds
/// headless and no-sandbox itself; the rest keeps Chromium off the (closed) network.
fn webdriver_config(ctx: &Ctx) -> Result<String, String> {
    let path = ctx.work_dir().join("webdriver.json");
    let config = serde_json::json!({
        "goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": [
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        }
    });
    let text = serde_json::to_string_pretty(&config).expect("static JSON");
    std::fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path.display().to_string())
}

fn cargo_step(ctx: &Ctx, args: &[&str], env: &[(&str, String)]) -> Outcome {
    let mut cmd = ctx.cargo(args);
    for (key, value) in env {
        cmd.env(key, value);
    }
    run_counted(&mut cmd)
}

/// Runs a test command, streaming its output, and summarises the test counts it printed
/// (`test result:` lines of libtest and wasm-bindgen-test, `# pass` lines of node --test).
fn run_counted(cmd: &mut Command) -> Outcome {
    let (ok, lines) = proc::tee(cmd);
    let counts = TestCounts::read(&lines);
    Outcome {
        ok,
        detail: counts.to_string(),
    }
}

#[derive(Default)]
pub struct TestCounts {
    seen: bool,
    passed: u64,
    failed: u64,
    ignored: u64,
}

impl TestCounts {
    pub fn read(lines: &[String]) -> TestCounts {
        let mut counts = TestCounts::default();
        for line in lines {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("test result: ") {
                counts.seen = true;
                for part in rest.split([';', '.']) {
                    let mut words = part.split_whitespace();
                    let (Some(n), Some(what)) = (words.next(), words.next()) else {
                        continue;
                    };
                    let Ok(n) = n.parse::<u64>() else { continue };
                    match what {
                        "passed" => counts.passed += n,
                        "failed" => counts.failed += n,
                        "ignored" => counts.ignored += n,
                        _ => {}
                    }
                }
            }
            // node --test: TAP (`# pass 3`) or spec (`ℹ pass 3`) reporter.
            let node = line.strip_prefix("# ").or_else(|| line.strip_prefix("ℹ "));
            if let Some((what, n)) = node.and_then(|l| l.split_once(' ')) {
                if let Ok(n) = n.trim().parse::<u64>() {
                    counts.seen |= matches!(what, "pass" | "fail");
                    match what {
                        "pass" => counts.passed += n,
                        "fail" => counts.failed += n,
                        "skipped" | "todo" => counts.ignored += n,
                        _ => {}
                    }
                }
            }
        }
        counts
    }
}

impl std::fmt::Display for TestCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.seen {
            return Ok(());
        }
        write!(f, "{} tests passed", self.passed)?;
        if self.failed > 0 {
            write!(f, ", {} failed", self.failed)?;
        }
        if self.ignored > 0 {
            write!(f, ", {} skipped", self.ignored)?;
        }
        Ok(())
    }
}

/// What each of the site's wasm files may weigh, gzip-compressed: the page's (web-app,
/// the UI), the engine's (copyscope-engine: the pipeline, in a Web Worker and behind the
/// JS API) and the two loaded on demand: the proof's (copyscope-proof: the interpreters)
/// and the DAG input path's (copyscope-dag: the DAG reader and instr-emitter). Each guard
/// sits a little above what its file measures, to stop growth.
/// Issue #28's goal of 450 KB for the engine is NOT reached: 533 KB (gzip -9) on
/// 2026-11-27 once the DAG input path moved to its own wasm (593 KB before; the DAG wasm
/// weighs 193 KB), 538 KB once the same day's trace storage (packed instructions,
/// rules, program-written templates) was merged with it, 551 KB once the third session's
/// trace compaction (packed PTX statements and ORI instructions, numbered payloads, shared
/// coalescer ranges, the phase 58 slot chain) and the interval hash map were merged
/// (guard raised from 541 KB: the growth is the packing code), 519 KB once the JS API's
/// table and link functions (`examples`, `stages`, `knobs`, `encodeLink`, `decodeLink`:
/// with them the gallery's texts, the knobs' help and the permalink codec with
/// deflate/inflate) moved to the page's wasm, which holds those tables for the page
/// anyway (-31 KB; the page's wasm +5 KB), and the worker's message handler stopped being
/// copied into two closure shims (-1 KB), 512 KB (guard 514) once ptx-emit's five maps became
/// association lists (-4 KB), the payload tree's field writers stayed out of line
/// (-0.5), the coalescing picture's interval holders became a sorted list and f64's
/// `Debug` left the engine (-1.4) and the tours' and the JS API's sorts used the shared
/// sort or an insertion sort (-1.5), 513 KB after the merges that followed, 512 KB
/// (guard 514) once ptx-emit's per-step recorder work left its 30 recording call sites
/// for one out-of-line copy (-1.2 KB) and its association lists became Interner numbers
/// (+0.3: the Interner's code was already in; a hash-sorted list with the shared sort
/// was +0.8), and 530 KB (guard raised to 532) once issue #31's step log keeps every step
/// as bytes (`trace/record.rs`: each payload and edit kind's encoder and decoder, +17 KB;
/// the DAG wasm, which records the emitter's steps through the same log, +21 KB): a trace
/// now holds 34-220 bytes a step where it held 206-380, and the codec is the next place to
/// shrink (one generic writer per field kind rather than per-variant code, or the codec
/// for the ptxas half's payloads kept out of the DAG wasm), and 527 KB (guard 529;
/// 541,845 -> 539,029 bytes) once ptx-lower's seven map types became four (single
/// declarations in the ranges' map type, body and inner-scope registers in one
/// (scope, name) map, range members by the prefix's number in a Vec: -2.2 KB), the
/// kill-flag verifier's per-block tree (with removal) and visited set became
/// SecondaryMaps (-1.3 KB), and ptx-emit's globals were read in one walk rather than
/// by quadratic per-pair searches (+0.7 KB: the name scanner, the numbering and the
/// dependency lists; +1.0 as first written), and 523 KB (guard 525; the DAG wasm 209, guard
/// 211) once the step log's codec wrote every packed part through one generic `Field`
/// trait (trace/field.rs) and the kinds/templates through one interner (-4 KB on the
/// engine, -7 on the DAG wasm, while coalescing decisions, PTX statement lists and GoCost
/// gained byte forms), and 499 KB (guard 501; the DAG wasm 205, guard 207) once the DAG
/// wasm handed the engine its MIR module in the step log's byte form
/// (`trace::module_bytes`) rather than through a serde decoder of the module (-5.7 KB of
/// decoder, +2.6 of reader), BTreeMap and slice-sort instances outside the passes gave way
/// to sorted lists and the shared sort (-2.5 and -4.2), an undo error stopped printing an
/// edit with `Debug` (-2.9 with other trait impls), GeneralOptimize's and the NVPTX
/// coalescer's recording sites called one out-of-line keeper (-2.4) and ptx-emit's
/// register, pack/unpack and return-value moves, GOTO and Return became template rows
/// of the description (-1.1), and 495 KB (guard 497) once the DAG wasm's answer crossed
/// as bytes rather than postcard (-1.4), the engine stopped cloning the DAG front and
/// the pictures' payloads (-2.2, -1.2) and ptx-emit's op:/sym: rows printed through the
/// template printer with memory, texture and described forms sharing one tail each
/// (-0.7), and 444 KB (guard 446; issue 28's goal 450) once the site's release build
/// took nightly with `-Zbuild-std`, `-Cpanic=immediate-abort` and std's
/// `optimize_for_size` (`tools::size_profile`: 495 -> 457; no panic messages, locations
/// or formatting in the wasm; `-Zlocation-detail=none` then changes nothing and
/// `-Zfmt-debug=shallow` 0.5 KB, `=none` 4.4 KB but blanks user-visible `{:?}` texts),
/// the opcode names, semantics kinds and PTX forms became text columns with u16 row
/// ends (-1.7), the picture panel's payload rows and the JS API's `run` result were
/// written without serde (-3.5, -2.6) and BTreeMaps in the coalescers and ptx-lower
/// became per-register tables and short lists (-6; engine-size figures, gzip -9 of
/// wasm-opt's output). History: 577 KB after the JS
/// API dropped its second serde back end, 593 KB once issue #31's compact trace storage
/// was merged. Where the bytes are (2026-11-27, before the JS API's move; the engine's
/// wasm as cargo links it, before wasm-bindgen and wasm-opt: code 467 KB gzip, data 107 KB
/// gzip; each area's share is what the code's gzip size drops by without that area's
/// functions, names from the name section): ptx-emit 54 KB, the MIR (reader, printer,
/// verifier) 33, the NVPTX coalescer 24, core (fmt, floats, str) 23, the engine's views
/// (session.rs) 21, the pipeline driver 21, BTreeMap instances (~20 key/value types) 20,
/// GeneralOptimize 20, the trace 18 (the step payloads' serde encoder alone was one 21 KB
/// raw function, 10 KB since the tree's field writers stay out of line), ptx-lower 15,
/// two-address 14, the PTX AST 14, PHI elimination 12, slice sorts (58 functions) 12,
/// liveness 12, ORI 11, the register coalescer 11, the JS API
/// (exports, permalink codec, deflate/inflate) 9 + 6 + 6 (mostly gone since), the DAG
/// handover (HandedFront's serde decoder) 7, the coalescing picture 6. Data: texts 59 KB
/// (the ISA's opcode names and PTX forms 50 KB raw, the gallery 44 KB raw (gone since),
/// tours, knob help), at least 1,729 panic locations of 16 bytes
/// (gone with the size profile's immediate-abort panics, 2026-11-28). After the move the data section is 271 KB raw, 96 KB gzip (the ISA's two
/// columns 50 KB raw of it). So the passes the default pipeline runs are most of it:
/// 450 KB needs their code smaller (ptx-emit's forms as table data, fewer BTreeMap/sort
/// instances) or the ptxas half loaded as a wasm of its own. ptx-emit (2026-11-27
/// evening, cargo's link before wasm-opt): 108 functions, 137 KB raw, 51 KB gzip alone;
/// `emit_module` 22.9 KB raw, `described` 20.7, `emit_function` 16.8 are the pass's own
/// code with its single-use helpers inlined (no generic instances: the engine links one
/// recorder), and `described` already prints every form the description spells (op,
/// ld/st, setp, cvt, asm templates...); the hand-written families (pseudo, move, matrix,
/// texture forms) are 27 KB raw of the rest.
/// Tried without gain: ptx-emit's one-statement forms through one out-of-line builder
/// with a shared "prints as" narration (+0.2 KB), `opt-level = "s"` and a compact ISA
/// table (larger then; the text columns of 2026-11-28 are 1.7 KB smaller), wasm-opt
/// `--merge-similar-functions`, `--gufa-optimizing`, `--type-ssa`, `-iit`, `-tnh` (under
/// 0.1 KB each), `-C llvm-args=-inline-threshold=0` (code 1.8 KB larger before wasm-opt),
/// printing floats without core (+1.4 KB): f64's `Display` links fixed-precision and
/// shortest printing both (it reads the precision at run time), so the one `{:.2}` (a
/// phase 37 narration) costs nothing of its own, and with it, that narration's fold
/// count, the payload rows' floats and the JS API's knob numbers printed otherwise, the
/// knobs' `format_value` of a Real knob still links all of it (about 14 KB raw).
/// The page's wasm: 295 KB on stable, 266 KB with the size profile (the engine's guard).
const WASM_GZIP_BUDGET_PAGE: u64 = 268 * 1024;
const WASM_GZIP_BUDGET_ENGINE: u64 = 446 * 1024;
/// The proof's wasm (the interpreters): 204 KB on stable, 177 KB with the size profile.
const WASM_GZIP_BUDGET_PROOF: u64 = 179 * 1024;
/// The DAG input path's wasm (copyscope-dag: the DAG reader and instr-emitter, loaded
/// the first time a SelectionDAG is run); measured 193 KB, then 216 KB once the step log
/// keeps steps as bytes (its codec, see the engine's guard), 209 KB once that codec wrote
/// through one generic field trait, 205 KB once it hands the engine the MIR module as
/// bytes (`trace::module_bytes`) rather than through serde, 176 KB with the size
/// profile (the engine's guard).
const WASM_GZIP_BUDGET_DAG: u64 = 178 * 1024;

/// The wasms the page loads only on demand (the proof's and the DAG path's).
fn is_lazy(file: &str) -> bool {
    file.starts_with("copyscope-proof") || file.starts_with("copyscope-dag")
}

fn wasm_budget(file: &str) -> u64 {
    if file.starts_with("copyscope-engine") {
        WASM_GZIP_BUDGET_ENGINE
    } else if file.starts_with("copyscope-dag") {
        WASM_GZIP_BUDGET_DAG
    } else if file.starts_with("copyscope-proof") {
        WASM_GZIP_BUDGET_PROOF
    } else {
        WASM_GZIP_BUDGET_PAGE
    }
}

/// A guard on the two files the page loads before it shows a run (the page's and the
/// engine's; the proof's and the DAG path's come later), against growth that splits
/// evenly. The two share std, serde, the permalink codec and the gallery's texts, so together they weigh more
/// than the one file did before the split (568 KB).
/// (Raised from 750 KB with the engine's guard, measured 778 KB; then to 820 KB,
/// measured 812 KB; then to 940 KB with the interpreters, measured 926 KB; lowered to
/// 870 KB when the interpreters moved to the proof's wasm, measured 856 KB; raised to
/// 880 KB with the engine's guard, measured 869 KB; lowered to 870 KB, measured 866 KB;
/// raised to 886 KB with the engine's guard, measured 883 KB; lowered to 826 KB when the
/// DAG input path left the engine, measured 822 KB; raised to 831 KB with the engine's
/// guard, measured 828 KB; raised to 844 KB with the engine's guard, measured 841 KB;
/// lowered to 817 KB when the JS API's table and link functions moved from the engine's
/// wasm to the page's, measured 814 KB: engine 519, page 295; lowered to 809 KB with the
/// engine's guard, measured 807 KB: engine 512, page 295; lowered to 808 KB, measured
/// 806 KB: engine 512, page 295; raised to 827 KB with the engine's guard (the step
/// log's codec), measured 825 KB: engine 530, page 295; lowered to 824 KB with the
/// engine's guard (engine 527 measured, the page's 295 taken as unchanged); lowered to
/// 820 KB, measured 817 KB: engine 523, page 295; lowered to 796 KB, measured 794 KB:
/// engine 499, page 295 (`cargo xtask bench --wasm` on the merge of 2026-11-28);
/// lowered to 711 KB with the size profile, measured 709 KB: engine 444, page 266.)
const WASM_GZIP_BUDGET_TOTAL: u64 = 711 * 1024;

fn trunk_build(ctx: &Ctx) -> Outcome {
    let (ok, _) = proc::tee(&mut ctx.trunk_release_build());
    if !ok {
        return failed("trunk build failed");
    }
    let files = wasm_sizes(&ctx.root.join("dist"));
    if files.is_empty() {
        return failed("no .wasm in dist/");
    }
    for (name, raw, gz) in &files {
        println!(
            "{name}: {} KB, {} KB gzip",
            raw.div_ceil(1024),
            gz.div_ceil(1024)
        );
    }
    let raw: u64 = files.iter().map(|f| f.1).sum();
    let gz: u64 = files.iter().map(|f| f.2).sum();
    let eager: u64 = (files.iter()).filter(|f| !is_lazy(&f.0)).map(|f| f.2).sum();
    let over: Vec<&str> = files
        .iter()
        .filter(|f| f.2 > wasm_budget(&f.0))
        .map(|f| f.0.as_str())
        .collect();
    let within = over.is_empty() && eager <= WASM_GZIP_BUDGET_TOTAL;
    let largest = files.iter().map(|f| f.2).max().unwrap_or(0);
    Outcome {
        ok: within,
        detail: format!(
            "dist/ wasm {} KB, {} KB gzip in {} files, largest {} KB gzip, page + engine {} KB \
             gzip (budget {} KB for the engine, {} KB for the page, {} KB for the proof, {} KB \
             for the DAG path, {} KB for page + engine){}",
            raw.div_ceil(1024),
            gz.div_ceil(1024),
            files.len(),
            largest.div_ceil(1024),
            eager.div_ceil(1024),
            WASM_GZIP_BUDGET_ENGINE / 1024,
            WASM_GZIP_BUDGET_PAGE / 1024,
            WASM_GZIP_BUDGET_PROOF / 1024,
            WASM_GZIP_BUDGET_DAG / 1024,
            WASM_GZIP_BUDGET_TOTAL / 1024,
            if within {
                String::new()
            } else if over.is_empty() {
                " OVER BUDGET: page + engine".to_string()
            } else {
                format!(" OVER BUDGET: {}", over.join(", "))
            }
        ),
    }
}

/// Every `.wasm` in `dir` by name: (name, bytes, gzip -9 bytes).
pub fn wasm_sizes(dir: &std::path::Path) -> Vec<(String, u64, u64)> {
    let mut files: Vec<(String, u64, u64)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "wasm"))
        .filter_map(|e| {
            let bytes = std::fs::read(e.path()).ok()?;
            Some((
                e.file_name().to_string_lossy().into_owned(),
                bytes.len() as u64,
                gzip_size(&bytes),
            ))
        })
        .collect();
    files.sort();
    files
}

/// The size of `bytes` as gzip -9 would write it (deflate stream + 18 bytes of frame).
fn gzip_size(bytes: &[u8]) -> u64 {
    miniz_oxide::deflate::compress_to_vec(bytes, 9).len() as u64 + 18
}

/// The e2e suite. Two servers run while it does:
/// - a static file server over `dist/` (the release build of the previous step) →
///   `COPYSCOPE_URL`, for the main flows;
/// - `trunk serve`, started exactly as `cargo xtask serve` starts it except for the port
///   and an out-of-tree dist directory → `COPYSCOPE_SERVE_URL`, for e2e/serve.test.mjs.
fn e2e(ctx: &Ctx) -> Outcome {
    let dist = ctx.root.join("dist");
    if !dist.join("index.html").is_file() {
        return failed("no dist/index.html (run the trunk-build step first)");
    }
    let site = match http::StaticServer::start(dist) {
        Ok(server) => server,
        Err(e) => return failed(format!("static server: {e}")),
    };
    let port = match http::free_port() {
        Ok(port) => port,
        Err(e) => return failed(format!("no free port: {e}")),
    };
    let serve_dist = ctx.work_dir().join("serve-dist");
    let opts = ServeOptions {
        address: "127.0.0.1",
        port,
        release: false,
        dist: Some(&serve_dist),
    };
    let serve_url = format!("http://127.0.0.1:{port}/");
    let mut serve_cmd = serve::trunk_serve(ctx, &opts);
    println!("starting {}", proc::describe(&serve_cmd));
    let mut trunk = match serve_cmd.stdin(std::process::Stdio::null()).spawn() {
        Ok(child) => child,
        Err(e) => return failed(format!("cannot start trunk serve: {e}")),
    };
    let outcome = match serve::wait_until_served(&serve_url, &mut trunk, Duration::from_secs(900)) {
        Ok(()) => {
            println!(
                "site: {} (dist/)  serve: {serve_url} (trunk serve)",
                site.url()
            );
            let out_dir = ctx.e2e().join("out");
            std::fs::create_dir_all(&out_dir).ok();
            let mut cmd = ctx.command("node", &["--test", "--test-reporter=tap"]);
            cmd.current_dir(ctx.e2e())
                .env("COPYSCOPE_URL", site.url())
                .env("COPYSCOPE_SERVE_URL", &serve_url)
                .env("COPYSCOPE_CHROMIUM", CHROMIUM);
            run_counted(&mut cmd)
        }
        Err(e) => failed(e),
    };
    serve::stop(&mut trunk);
    site.stop();
    outcome
}

/// Runs the selected steps and prints the summary; returns the number that failed.
pub fn run(ctx: &Ctx, steps: &[Step]) -> usize {
    let free_at_start = free_disk(ctx);
    if let Some(free) = free_at_start {
        println!("disk: {} free where target/ lives", gib(free));
        if free < LOW_DISK {
            println!(
                "warning: under {} free; a run from a clean checkout writes about 3 GiB \
                 (target/, fuzz/target, node_modules), so 'No space left on device' may follow",
                gib(LOW_DISK)
            );
        }
    }
    let mut results = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        println!();
        println!(
            "==> [{}/{}] {}: {}",
            i + 1,
            steps.len(),
            step.name,
            step.about
        );
        let start = Instant::now();
        let outcome = (step.run)(ctx);
        let took = start.elapsed();
        let free = free_disk(ctx);
        println!(
            "<== {} {} in {}{}",
            step.name,
            if outcome.ok { "ok" } else { "FAILED" },
            secs(took),
            free.map(|f| format!(" ({} free)", gib(f)))
                .unwrap_or_default()
        );
        results.push((step, outcome, took, free));
    }

    let failed = results.iter().filter(|(_, o, _, _)| !o.ok).count();
    let width = steps.iter().map(|s| s.name.len()).max().unwrap_or(4).max(4);
    println!();
    println!(
        "{:<width$}  {:<6}  {:>8}  {:>9}  detail",
        "step", "result", "time", "disk free"
    );
    for (step, outcome, took, free) in &results {
        println!(
            "{:<width$}  {:<6}  {:>8}  {:>9}  {}",
            step.name,
            if outcome.ok { "ok" } else { "FAILED" },
            secs(*took),
            free.map(gib).unwrap_or_else(|| "?".into()),
            outcome.detail
        );
    }
    let total: Duration = results.iter().map(|(_, _, t, _)| *t).sum();
    let used = match (free_at_start, results.last().and_then(|r| r.3)) {
        (Some(a), Some(b)) if a >= b => format!("{} used", gib(a - b)),
        _ => String::new(),
    };
    println!(
        "{:<width$}  {:<6}  {:>8}  {:>9}",
        "total",
        "",
        secs(total),
        used
    );
    println!("{} passed, {} failed", results.len() - failed, failed);
    failed
}

/// Below this much free space a run from a clean checkout may not fit: one measured
/// 2.9 GiB (target/ 2.4, fuzz/target 0.5; node_modules, ptxas and chromium besides).
const LOW_DISK: u64 = 6 << 30;

/// Free bytes on the file system holding target/, from `df` (None where df is missing).
fn free_disk(ctx: &Ctx) -> Option<u64> {
    let dir = ctx.target_dir();
    let probe_dir = if dir.exists() { dir } else { ctx.root.clone() };
    let out = proc::probe(&mut ctx.command("df", &["-Pk", &probe_dir.display().to_string()]))?;
    let kib: u64 = out
        .lines()
        .nth(1)?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()?;
    Some(kib * 1024)
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::TestCounts;

    fn counts(text: &str) -> String {
        let lines: Vec<String> = text.lines().map(String::from).collect();
        TestCounts::read(&lines).to_string()
    }

    #[test]
    fn sums_libtest_and_wasm_bindgen_result_lines() {
        let out = "test result: ok. 3 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\
                   test result: FAILED. 4 passed; 2 failed; 0 ignored; 0 filtered out; finished in 0.04s";
        assert_eq!(counts(out), "7 tests passed, 2 failed, 1 skipped");
    }

    #[test]
    fn reads_node_test_tap_and_spec_summaries() {
        assert_eq!(
            counts("# tests 6\n# pass 5\n# fail 0\n# skipped 1"),
            "5 tests passed, 1 skipped"
        );
        assert_eq!(counts("ℹ tests 2\nℹ pass 2\nℹ fail 0"), "2 tests passed");
    }

    #[test]
    fn says_nothing_when_no_tests_ran() {
        assert_eq!(counts("Finished `dev` profile\n# Subtest: x"), "");
    }
}
