//! `cargo xtask`: the one place where CopyScope's set-up and checks live.
//!
//! ```text
//! cargo xtask serve [--address A] [--port P] [--release]   install what is missing, trunk serve
//! cargo xtask test  [--only S,..] [--skip S,..] [--skip-e2e] [--list]
//!                                                          install, then every check + summary
//! cargo xtask bless [--filetests]                          rewrite expected outputs (COPYSCOPE_BLESS=1)
//! cargo xtask bench [--llc] [--wasm | --wasm-only]        benchmarks → docs/bench.md, bench-wasm.md
//!                   [--counts]                             callgrind counts → docs/bench-counts.md
//! cargo xtask fuzz [TARGET] [--seconds N]                  long fuzz runs (cargo +nightly fuzz)
//! cargo xtask screenshots [--no-build]                     the playground's screenshots → docs/screenshots/
//! cargo xtask setup                                        only the installs
//! ```
//!
//! Installs (tools.rs) are idempotent: present tools are skipped after a version probe.

mod bench_counts;
mod bench_wasm;
mod checks;
mod ctx;
mod fuzz;
mod http;
mod proc;
mod screenshots;
mod serve;
mod tools;

use ctx::Ctx;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "\
usage: cargo xtask <command> [options]

commands:
  serve   install what is missing, then `trunk serve` the playground
          --address ADDR   (default 127.0.0.1)   --port PORT   (default 8080)
          --release        build with the site's size profile, as the tests do
  test    install what is missing, then run every check and print a summary
          --only STEP[,STEP..]   run just these steps      --skip STEP[,STEP..]
          --skip-e2e             same as --skip e2e        --list   list the steps
  bless   rerun the native test suites with COPYSCOPE_BLESS=1 and UPDATE_EXPECT=1: the
          filetests (compiler-core/tests/golden/**/*.filetest), other golden-file tests
          and expect! snapshots rewrite their expected output in place instead of
          comparing; review with `git diff`
          --filetests  only the filetest runner (cargo test -p compiler-core --test filetests)
          (cli/tests/json_before/, the CLI's JSON before issue 32, is never rewritten here:
          COPYSCOPE_BLESS_CLI_JSON=1 regenerates it deliberately)
  bench   run the benchmarks (release) and write docs/bench.md
          --llc        also time llc-22 on the same MIR (installs Debian llvm-22 if missing)
          --wasm       also time the release site in headless Chromium beside the same
                       calls natively → docs/bench-wasm.md   --wasm-only  just that
          --counts     instead: instructions per stage counted by callgrind at 1k, 10k
                       and 100k → docs/bench-counts.md (installs valgrind if missing;
                       about an hour; COPYSCOPE_BENCH_SIZES / _FAMILIES narrow it)
  fuzz    run fuzz targets with cargo +nightly fuzz (installs cargo-fuzz if missing)
          [TARGET] one target (default: all)   --seconds N  per target (default 600)
  screenshots  build the release site and take the documentation's screenshots
          (three views at 1280×800, presenter 1920×1080, phone 390×844, dark) →
          docs/screenshots/    --no-build  use dist/ as it is
  setup   only install the tools (what `serve` and `test` do first)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let result = match command.as_str() {
        "serve" => serve_cmd(rest),
        "test" => test_cmd(rest),
        "bless" => bless_cmd(rest),
        "bench" => bench_cmd(rest),
        "fuzz" => fuzz_cmd(rest),
        "screenshots" => screenshots_cmd(rest),
        "setup" => setup_cmd(rest),
        "help" | "-h" | "--help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(Usage(format!("unknown command `{other}`"))),
    };
    match result {
        Ok(code) => code,
        Err(Usage(message)) => {
            eprintln!("error: {message}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// A command-line mistake: printed with the usage, exit code 2.
struct Usage(String);

/// Reads `--name VALUE` / `--name=VALUE` options and bare flags.
struct Args<'a> {
    rest: &'a [String],
    i: usize,
}

impl<'a> Args<'a> {
    fn new(rest: &'a [String]) -> Self {
        Args { rest, i: 0 }
    }

    /// The next option name and, for `--name=value`, its inline value.
    fn next(&mut self) -> Option<(&'a str, Option<&'a str>)> {
        let arg = self.rest.get(self.i)?;
        self.i += 1;
        Some(match arg.split_once('=') {
            Some((name, value)) if name.starts_with("--") => (name, Some(value)),
            _ => (arg.as_str(), None),
        })
    }

    fn value(&mut self, name: &str, inline: Option<&'a str>) -> Result<&'a str, Usage> {
        if let Some(value) = inline {
            return Ok(value);
        }
        let value = self
            .rest
            .get(self.i)
            .ok_or_else(|| Usage(format!("{name} needs a value")))?;
        self.i += 1;
        Ok(value)
    }
}

fn install(ctx: &Ctx, wanted: impl Fn(&tools::Tool) -> bool) -> Result<(), String> {
    let start = Instant::now();
    let all = tools::all(ctx)?;
    let selected: Vec<&tools::Tool> = all.iter().filter(|t| wanted(t)).collect();
    tools::ensure(ctx, &selected)?;
    println!("tools ready in {:.1}s", start.elapsed().as_secs_f64());
    Ok(())
}

fn setup_failed(e: String) -> ExitCode {
    eprintln!("error: set-up failed: {e}");
    ExitCode::FAILURE
}

fn setup_cmd(rest: &[String]) -> Result<ExitCode, Usage> {
    if let Some(arg) = rest.first() {
        return Err(Usage(format!("setup takes no options (got `{arg}`)")));
    }
    let ctx = Ctx::new();
    Ok(match install(&ctx, |_| true) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => setup_failed(e),
    })
}

fn serve_cmd(rest: &[String]) -> Result<ExitCode, Usage> {
    let (mut address, mut port, mut release) = ("127.0.0.1".to_string(), 8080u16, false);
    let mut args = Args::new(rest);
    while let Some((name, inline)) = args.next() {
        match name {
            "--address" => address = args.value(name, inline)?.to_string(),
            "--port" => {
                let value = args.value(name, inline)?;
                port = value
                    .parse()
                    .map_err(|_| Usage(format!("--port: `{value}` is not a port number")))?;
            }
            "--release" => release = true,
            other => return Err(Usage(format!("serve: unknown option `{other}`"))),
        }
    }
    let ctx = Ctx::new();
    if let Err(e) = install(&ctx, |t| t.for_serve) {
        return Ok(setup_failed(e));
    }
    let opts = serve::ServeOptions {
        address: &address,
        port,
        release,
        dist: None,
    };
    let mut cmd = serve::trunk_serve(&ctx, &opts);
    println!(
        "serving CopyScope at http://{address}:{port}/ ({})",
        proc::describe(&cmd)
    );
    Ok(match cmd.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("error: trunk serve exited with {status}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: cannot run trunk: {e}");
            ExitCode::FAILURE
        }
    })
}

fn test_cmd(rest: &[String]) -> Result<ExitCode, Usage> {
    let steps = checks::steps();
    let known = |name: &str| -> Result<String, Usage> {
        if steps.iter().any(|s| s.name == name) {
            Ok(name.to_string())
        } else {
            let names: Vec<&str> = steps.iter().map(|s| s.name).collect();
            Err(Usage(format!(
                "unknown step `{name}`; steps: {}",
                names.join(", ")
            )))
        }
    };
    let (mut only, mut skip) = (Vec::new(), Vec::new());
    let mut args = Args::new(rest);
    while let Some((name, inline)) = args.next() {
        match name {
            "--only" => {
                for step in args.value(name, inline)?.split(',') {
                    only.push(known(step)?);
                }
            }
            "--skip" => {
                for step in args.value(name, inline)?.split(',') {
                    skip.push(known(step)?);
                }
            }
            "--skip-e2e" => skip.push("e2e".to_string()),
            "--list" => {
                for step in &steps {
                    println!("{:<14} {}", step.name, step.about);
                }
                return Ok(ExitCode::SUCCESS);
            }
            other => return Err(Usage(format!("test: unknown option `{other}`"))),
        }
    }
    let selected: Vec<checks::Step> = steps
        .into_iter()
        .filter(|s| only.is_empty() || only.iter().any(|o| o == s.name))
        .filter(|s| !skip.iter().any(|k| k == s.name))
        .collect();

    let ctx = Ctx::new();
    // A check run builds each crate once; incremental caches would only add gigabytes
    // of disk (CI's machine ran out). Local `cargo test` keeps them.
    if std::env::var_os("CARGO_INCREMENTAL").is_none() {
        std::env::set_var("CARGO_INCREMENTAL", "0");
    }
    let needed = |tool: &tools::Tool| selected.iter().any(|s| s.needs.contains(&tool.id));
    if let Err(e) = install(&ctx, needed) {
        return Ok(setup_failed(e));
    }
    let failed = checks::run(&ctx, &selected);
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn bless_cmd(rest: &[String]) -> Result<ExitCode, Usage> {
    let filetests = match rest {
        [] => false,
        [a] if a == "--filetests" => true,
        [arg, ..] => return Err(Usage(format!("bless: unknown option `{arg}`"))),
    };
    let args: &[&str] = if filetests {
        &["test", "-p", "compiler-core", "--test", "filetests"]
    } else {
        &["test", "--workspace"]
    };
    let ctx = Ctx::new();
    println!(
        "running `cargo {}` with COPYSCOPE_BLESS=1 (expected outputs are rewritten)",
        args.join(" ")
    );
    let status = ctx.cargo(args).env("COPYSCOPE_BLESS", "1").status();
    if !matches!(status, Ok(s) if s.success()) {
        eprintln!(
            "error: some tests failed even while blessing; golden files may be partly updated"
        );
        return Ok(ExitCode::FAILURE);
    }
    let changed =
        proc::probe(&mut ctx.command("git", &["status", "--short", "--untracked-files=all"]))
            .unwrap_or_default();
    // Golden files, filetests and test sources holding expect! snapshots.
    let golden: Vec<&str> = changed
        .lines()
        .filter(|l| l.contains("golden") || l.contains("/tests/"))
        .collect();
    if golden.is_empty() {
        println!("no expected output differs from the last commit");
    } else {
        println!("expected outputs that now differ from the last commit (review with `git diff`):");
        for line in golden {
            println!("  {line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn bench_cmd(rest: &[String]) -> Result<ExitCode, Usage> {
    let (mut llc, mut wasm, mut native) = (false, false, true);
    if rest.iter().any(|a| a == "--counts") {
        if let Some(other) = rest.iter().find(|a| *a != "--counts") {
            return Err(Usage(format!(
                "bench: `--counts` runs alone, not with `{other}`"
            )));
        }
        let req = match bench_counts::Request::from_env() {
            Ok(r) => r,
            Err(e) => return Err(Usage(e)),
        };
        let ctx = Ctx::new();
        return Ok(match bench_counts::run(&ctx, &req) {
            Ok(out) => {
                println!("results: {}", ctx.show(&out));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        });
    }
    for arg in rest {
        match arg.as_str() {
            "--llc" => llc = true,
            "--wasm" => wasm = true,
            "--wasm-only" => (wasm, native) = (true, false),
            other => return Err(Usage(format!("bench: unknown option `{other}`"))),
        }
    }
    let ctx = Ctx::new();
    if wasm {
        if let Err(e) = install(&ctx, |t| bench_wasm::NEEDS.contains(&t.id)) {
            return Ok(setup_failed(e));
        }
    }
    if native {
        let code = bench_native(&ctx, llc);
        if code != ExitCode::SUCCESS {
            return Ok(code);
        }
    }
    if wasm {
        if let Err(e) = bench_wasm::run(&ctx) {
            eprintln!("error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The native bench (compiler-core/tests/bench.rs) into docs/bench.md.
fn bench_native(ctx: &Ctx, llc: bool) -> ExitCode {
    if llc {
        if let Err(e) = install(ctx, |t| t.id == "llvm-22") {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    }
    let out = ctx.root.join("docs").join("bench.md");
    // The llc-22 comparison runs our command line as a whole process.
    println!("building the release CLI");
    if !matches!(ctx.cargo(&["build", "--release", "-p", "copyscope"]).status(), Ok(s) if s.success())
    {
        eprintln!("error: could not build the CLI");
        return ExitCode::FAILURE;
    }
    println!("running compiler-core/tests/bench.rs (progress: one dot per stage)");
    let mut cmd = ctx.bench_test(&[
        "--",
        "--ignored",
        "--exact",
        "bench",
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd.env("COPYSCOPE_BENCH_OUT", &out);
    // mimalloc keeps freed memory instead of handing it back to the OS after 10 ms
    // (and faulting it in again): see the heap note in docs/bench.md.
    cmd.env("MIMALLOC_PURGE_DELAY", "-1");
    cmd.env(
        "COPYSCOPE_BIN",
        ctx.target_dir().join("release").join("copyscope"),
    );
    if llc {
        cmd.env("COPYSCOPE_BENCH_LLC", "1");
    }
    if !matches!(cmd.status(), Ok(s) if s.success()) {
        return ExitCode::FAILURE;
    }
    println!("results: {}", ctx.show(&out));
    // Seeking as the playground does it: web-engine's Session::view.
    let view_out = ctx.root.join("docs").join("bench-view.md");
    println!("running web-engine/tests/bench_view.rs (progress: one dot per stage)");
    let mut cmd = ctx.cargo(&[
        "test",
        "--release",
        "-p",
        "web-engine",
        "--test",
        "bench_view",
        "--",
        "--ignored",
        "--exact",
        "view_bench",
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd.env("COPYSCOPE_BENCH_VIEW_OUT", &view_out);
    match cmd.status() {
        Ok(s) if s.success() => {
            println!("results: {}", ctx.show(&view_out));
            ExitCode::SUCCESS
        }
        _ => ExitCode::FAILURE,
    }
}

fn screenshots_cmd(rest: &[String]) -> Result<ExitCode, Usage> {
    let mut build = true;
    for arg in rest {
        match arg.as_str() {
            "--no-build" => build = false,
            other => return Err(Usage(format!("screenshots: unknown option `{other}`"))),
        }
    }
    let ctx = Ctx::new();
    if let Err(e) = install(&ctx, |t| screenshots::NEEDS.contains(&t.id)) {
        return Ok(setup_failed(e));
    }
    Ok(match screenshots::run(&ctx, build) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    })
}

fn fuzz_cmd(rest: &[String]) -> Result<ExitCode, Usage> {
    let (mut target, mut seconds) = (None, 600u32);
    let mut args = Args::new(rest);
    while let Some((name, inline)) = args.next() {
        match name {
            "--seconds" => {
                let v = args.value(name, inline)?;
                seconds = v
                    .parse()
                    .map_err(|_| Usage(format!("--seconds: `{v}` is not a number")))?;
            }
            t if fuzz::TARGETS.contains(&t) && target.is_none() => target = Some(t.to_string()),
            other => {
                return Err(Usage(format!(
                    "fuzz: unknown option or target `{other}`; targets: {}",
                    fuzz::TARGETS.join(", ")
                )))
            }
        }
    }
    let ctx = Ctx::new();
    if let Err(e) = install(&ctx, |t| t.id == "cargo-fuzz") {
        return Ok(setup_failed(e));
    }
    let targets: Vec<&str> = match &target {
        Some(t) => vec![t.as_str()],
        None => fuzz::TARGETS.to_vec(),
    };
    let mut failed = 0;
    for t in targets {
        match fuzz::run_target(&ctx, t, seconds) {
            Ok(line) => println!("{line}"),
            Err(e) => {
                eprintln!("{e}");
                failed += 1;
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
