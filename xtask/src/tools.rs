//! The tools CopyScope's checks and site need, and how to install each one.
//!
//! [`all`] is the single list, in install order. Each [`Tool`] knows how to tell whether
//! it is already present at the right version (`probe`) and how to install it from a
//! package registry (`install`); nothing is downloaded from anywhere else. Installing is
//! idempotent: a present tool prints `skip <id> (present: <version>)` and costs a probe.
//!
//! Adding a tool: append a [`Tool`] to [`all`] (before the tools that use it) and name its
//! `id` in the `needs` of the check steps that use it (see `checks.rs`). Tools that are
//! not binaries on a system path live under [`cache_dir`] (`.tools/`, git-ignored), like
//! `ptxas` (PyPI `nvidia-cuda-nvcc==13.0.88`, `pip download --no-deps`, the one binary
//! unpacked to `.tools/nvcc-13.0.88/nvidia/cu13/bin/ptxas`, where the tests look).

use crate::ctx::{which, Ctx};
use crate::proc;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Trunk: 0.22 needs a newer rustc than the project's 1.95.
pub const TRUNK_VERSION: &str = "0.21.14";
/// Where Debian's chromium package puts the browser and its driver.
/// cargo-fuzz, run as `cargo +nightly fuzz` by the fuzz-smoke step and `cargo xtask fuzz`.
pub const CARGO_FUZZ_VERSION: &str = "0.13.2";
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

pub enum Probe {
    /// Present at an acceptable version (the text says which).
    Present(String),
    /// Absent or at the wrong version (the text says what was found).
    Missing(String),
}

pub struct Tool<'a> {
    /// Short stable name, used by check steps' `needs` and in messages.
    pub id: &'static str,
    /// The version (or version set) we install, for messages.
    pub wanted: String,
    /// Whether `cargo xtask serve` needs it (the browser only serves the tests).
    pub for_serve: bool,
    probe: Box<dyn Fn() -> Probe + 'a>,
    install: Box<Install<'a>>,
}

/// Runs an install; every command's output goes to the log file given.
type Install<'a> = dyn Fn(&Path) -> Result<(), String> + 'a;

/// `.tools/` at the workspace root: downloaded tool trees that are not system packages.
pub fn cache_dir(ctx: &Ctx) -> PathBuf {
    ctx.root.join(".tools")
}

/// Every tool, in install order.
pub fn all(ctx: &Ctx) -> Result<Vec<Tool<'_>>, String> {
    let bindgen_version = lock_version(ctx, "wasm-bindgen")?;
    Ok(vec![
        wasm_target(ctx),
        size_toolchain(ctx),
        crate_sources(ctx),
        cargo_installed(ctx, "trunk", &["trunk"], TRUNK_VERSION.into(), true),
        cargo_installed(
            ctx,
            "wasm-bindgen-cli",
            &["wasm-bindgen", "wasm-bindgen-test-runner"],
            bindgen_version,
            true,
        ),
        node_packages(ctx),
        chromium(ctx),
        ptxas(ctx),
        llvm(ctx),
        // `cargo +nightly fuzz` (fuzz/ is its own workspace on the nightly toolchain).
        cargo_installed(
            ctx,
            "cargo-fuzz",
            &["cargo-fuzz"],
            CARGO_FUZZ_VERSION.into(),
            false,
        ),
    ])
}

/// The real assembler the PTX tests run: ptxas 13.0.88 out of NVIDIA's PyPI wheel.
pub const PTXAS_VERSION: &str = "13.0.88";

/// Where [`ptxas`] puts the binary (the tests' support module looks there too).
pub fn ptxas_path(ctx: &Ctx) -> PathBuf {
    cache_dir(ctx).join(format!("nvcc-{PTXAS_VERSION}/nvidia/cu13/bin/ptxas"))
}

fn ptxas(ctx: &Ctx) -> Tool<'_> {
    Tool {
        id: "ptxas",
        wanted: PTXAS_VERSION.into(),
        for_serve: false,
        probe: Box::new(move || {
            let path = ptxas_path(ctx);
            match proc::probe(std::process::Command::new(&path).arg("--version")) {
                Some(v) if v.contains(&format!("V{PTXAS_VERSION}")) => {
                    Probe::Present(ctx.show(&path))
                }
                _ => Probe::Missing(format!("no ptxas V{PTXAS_VERSION} at {}", ctx.show(&path))),
            }
        }),
        install: Box::new(move |log| {
            let wheels = cache_dir(ctx).join("wheels");
            std::fs::create_dir_all(&wheels).map_err(|e| e.to_string())?;
            let spec = format!("nvidia-cuda-nvcc=={PTXAS_VERSION}");
            let dest = wheels.display().to_string();
            proc::logged(
                &mut ctx.command(
                    "python3",
                    &[
                        "-m",
                        "pip",
                        "download",
                        "--no-deps",
                        "--disable-pip-version-check",
                        "-d",
                        &dest,
                        &spec,
                    ],
                ),
                log,
            )?;
            // Unpack just the assembler with Python's zipfile (no unzip needed).
            let out = cache_dir(ctx).join(format!("nvcc-{PTXAS_VERSION}"));
            let script = format!(
                "import glob,zipfile,os\nw=glob.glob(os.path.join({dest:?},'nvidia_cuda_nvcc-{PTXAS_VERSION}-*.whl'))[0]\nz=zipfile.ZipFile(w)\np=z.extract('nvidia/cu13/bin/ptxas',{out:?})\nos.chmod(p,0o755)\n",
                out = out.display().to_string()
            );
            proc::logged(&mut ctx.command("python3", &["-c", &script]), log)
        }),
    }
}

/// Installs whichever of `tools` are missing, printing one line per tool.
pub fn ensure(ctx: &Ctx, tools: &[&Tool]) -> Result<(), String> {
    let logs = ctx.work_dir().join("logs");
    std::fs::create_dir_all(&logs).map_err(|e| e.to_string())?;
    for tool in tools {
        let found = match (tool.probe)() {
            Probe::Present(version) => {
                println!("skip {} (present: {version})", tool.id);
                continue;
            }
            Probe::Missing(found) => found,
        };
        let log = logs.join(format!("{}.log", tool.id));
        std::fs::remove_file(&log).ok();
        print!(
            "install {} {} ({found}; log: {}) ...",
            tool.id,
            tool.wanted,
            ctx.show(&log)
        );
        flush();
        let start = Instant::now();
        let result = (tool.install)(&log);
        let secs = start.elapsed().as_secs();
        match result {
            Ok(()) => match (tool.probe)() {
                Probe::Present(_) => println!(" done in {secs}s"),
                Probe::Missing(found) => {
                    println!(" FAILED after {secs}s");
                    return Err(format!(
                        "{} still not usable after installing: {found}",
                        tool.id
                    ));
                }
            },
            Err(e) => {
                println!(" FAILED after {secs}s");
                return Err(e);
            }
        }
    }
    Ok(())
}

fn flush() {
    use std::io::Write;
    std::io::stdout().flush().ok();
}

/// The version Cargo.lock pins for the crate `name`.
pub fn lock_version(ctx: &Ctx, name: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(ctx.root.join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let wanted = format!("name = \"{name}\"");
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == wanted {
            if let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = \""))
            {
                return Ok(version.trim_end_matches('"').to_string());
            }
        }
    }
    Err(format!("Cargo.lock has no package `{name}`"))
}

fn wasm_target(ctx: &Ctx) -> Tool<'_> {
    const TARGET: &str = "wasm32-unknown-unknown";
    Tool {
        id: "wasm32-target",
        wanted: TARGET.into(),
        for_serve: true,
        probe: Box::new(move || {
            let rustc = proc::probe(&mut ctx.command("rustc", &["--version"]));
            let sysroot = proc::probe(&mut ctx.command("rustc", &["--print", "sysroot"]));
            match (rustc, sysroot) {
                (Some(rustc), Some(sysroot))
                    if Path::new(&sysroot)
                        .join("lib/rustlib")
                        .join(TARGET)
                        .is_dir() =>
                {
                    Probe::Present(format!("{TARGET} for {rustc}"))
                }
                _ => Probe::Missing(format!("no {TARGET} standard library")),
            }
        }),
        install: Box::new(move |log| {
            proc::logged(&mut ctx.command("rustup", &["target", "add", TARGET]), log)
        }),
    }
}

/// The toolchain the site's release wasm is built with (`trunk build --release`, through
/// [`size_profile`]): nightly, which compiles the standard library itself with the
/// program (`-Zbuild-std`), so that a panic becomes a trap on the spot
/// (`-Cpanic=immediate-abort`: no panic messages, locations or formatting code in the
/// wasm) and std's own code takes its small forms (`optimize_for_size`: e.g. slice sorts
/// as insertion and heap sorts). The engine's wasm: 504 KB gzip built on stable, 470
/// with immediate-abort, 467 with both (2026-11-28, nightly 2026-05-19, before Trunk's
/// gzip is measured). What it costs: a panic in the browser reads `unreachable` with no
/// place named; the page then points to the CLI, which runs the same code natively with
/// messages (`copyscope run` prints where it stopped). Debug builds (`cargo xtask serve`
/// without `--release`) and the wasm tests stay on stable. The machine's own `nightly`
/// is used as it is (never updated here): only its `rust-src` is added when missing.
pub const SIZE_TOOLCHAIN: &str = "nightly";

/// Sets the environment that makes a `trunk build --release` (or `trunk serve
/// --release`) build with [`SIZE_TOOLCHAIN`]: cargo's `-Z` options as `[unstable]`
/// config variables, and the flags for the wasm target only (build scripts and proc
/// macros are built for the host as usual).
pub fn size_profile(cmd: &mut std::process::Command) -> &mut std::process::Command {
    cmd.env("RUSTUP_TOOLCHAIN", SIZE_TOOLCHAIN)
        .env("CARGO_UNSTABLE_BUILD_STD", "std,panic_abort")
        .env("CARGO_UNSTABLE_BUILD_STD_FEATURES", "optimize_for_size")
        .env(
            "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS",
            "-Zunstable-options -Cpanic=immediate-abort",
        )
}

/// [`SIZE_TOOLCHAIN`] with the standard library's sources, and the crates those need
/// (Trunk's cargo runs `--offline`).
fn size_toolchain(ctx: &Ctx) -> Tool<'_> {
    let rustup = |args: &[&str]| {
        let mut cmd = ctx.command("rustup", args);
        cmd.env_remove("RUSTUP_TOOLCHAIN");
        cmd
    };
    Tool {
        id: "size-toolchain",
        wanted: format!("{SIZE_TOOLCHAIN} with rust-src"),
        for_serve: true,
        probe: Box::new(move || {
            let run = |args: &[&str]| proc::probe(&mut rustup(args));
            let rustc = run(&["run", SIZE_TOOLCHAIN, "rustc", "--version"]);
            let sysroot = run(&["run", SIZE_TOOLCHAIN, "rustc", "--print", "sysroot"]);
            let fetched = rustup(&["run", SIZE_TOOLCHAIN, "cargo"])
                .args(FETCH_STD)
                .arg("--offline")
                .stdin(std::process::Stdio::null())
                .output()
                .is_ok_and(|o| o.status.success());
            match (rustc, sysroot) {
                (None, _) | (_, None) => Probe::Missing(format!("no {SIZE_TOOLCHAIN} toolchain")),
                (Some(_), Some(root))
                    if !Path::new(&root)
                        .join("lib/rustlib/src/rust/library")
                        .is_dir() =>
                {
                    Probe::Missing("no rust-src".into())
                }
                (Some(_), Some(_)) if !fetched => Probe::Missing("std's crates not fetched".into()),
                (Some(rustc), Some(_)) => Probe::Present(format!("{rustc} with rust-src")),
            }
        }),
        install: Box::new(move |log| {
            let present = proc::probe(&mut rustup(&["run", SIZE_TOOLCHAIN, "rustc", "--version"]));
            if present.is_none() {
                let args = [
                    "toolchain",
                    "install",
                    SIZE_TOOLCHAIN,
                    "--profile",
                    "minimal",
                ];
                proc::logged(&mut rustup(&args), log)?;
            }
            let args = [
                "component",
                "add",
                "rust-src",
                "--toolchain",
                SIZE_TOOLCHAIN,
            ];
            proc::logged(&mut rustup(&args), log)?;
            proc::logged(
                rustup(&["run", SIZE_TOOLCHAIN, "cargo"]).args(FETCH_STD),
                log,
            )
        }),
    }
}

/// `cargo fetch` of the crates `-Zbuild-std` compiles the standard library with.
const FETCH_STD: &[&str] = &[
    "fetch",
    "-Zbuild-std=std,panic_abort",
    "--target",
    "wasm32-unknown-unknown",
];

/// `cargo fetch`: Trunk builds with `--offline`, so every crate must be local first.
fn crate_sources(ctx: &Ctx) -> Tool<'_> {
    Tool {
        id: "crate-sources",
        wanted: "Cargo.lock".into(),
        for_serve: true,
        probe: Box::new(move || {
            let fetched = ctx
                .cargo(&["fetch", "--offline", "--quiet"])
                .stdin(std::process::Stdio::null())
                .output()
                .is_ok_and(|o| o.status.success());
            let count = std::fs::read_to_string(ctx.root.join("Cargo.lock"))
                .map(|l| l.matches("source = \"registry+").count())
                .unwrap_or(0);
            if fetched {
                Probe::Present(format!("all {count} registry crates of Cargo.lock"))
            } else {
                Probe::Missing("some crates not downloaded".into())
            }
        }),
        install: Box::new(move |log| proc::logged(&mut ctx.cargo(&["fetch"]), log)),
    }
}

/// Binaries from `cargo install <krate> --version <version>`, each checked with
/// `<bin> --version` printing `<bin> <version>`.
fn cargo_installed<'a>(
    ctx: &'a Ctx,
    krate: &'static str,
    bins: &'static [&'static str],
    version: String,
    for_serve: bool,
) -> Tool<'a> {
    let wanted = version.clone();
    Tool {
        id: krate,
        wanted: version.clone(),
        for_serve,
        probe: Box::new({
            let version = version.clone();
            move || {
                for bin in bins {
                    let found = which(bin).and_then(|path| {
                        proc::probe(std::process::Command::new(path).arg("--version"))
                    });
                    match found {
                        Some(line) if line.split_whitespace().nth(1) == Some(version.as_str()) => {}
                        Some(line) => return Probe::Missing(format!("found {line}")),
                        None => return Probe::Missing(format!("no {bin} on PATH")),
                    }
                }
                Probe::Present(format!("{} {version}", bins.join(", ")))
            }
        }),
        install: Box::new(move |log| {
            let mut args = vec!["install", krate, "--version", wanted.as_str()];
            // trunk's own lockfile is known good; wasm-bindgen-cli's pins a crate version
            // the registry no longer has, so it resolves fresh (TOOLCHAIN.md).
            if krate == "trunk" {
                args.push("--locked");
            }
            proc::logged(&mut ctx.cargo(&args), log)
        }),
    }
}

/// playwright-core, axe-core and binaryen (wasm-opt) into e2e/node_modules, exactly as
/// e2e/package-lock.json pins them.
fn node_packages(ctx: &Ctx) -> Tool<'_> {
    Tool {
        id: "node-packages",
        wanted: "e2e/package-lock.json".into(),
        for_serve: true,
        probe: Box::new(move || match node_packages_state(ctx) {
            Ok(found) => Probe::Present(found),
            Err(why) => Probe::Missing(why),
        }),
        install: Box::new(move |log| {
            for program in ["node", "npm"] {
                if which(program).is_none() {
                    return Err(format!(
                        "`{program}` is not on PATH; install Node.js 20 or newer with npm first"
                    ));
                }
            }
            let verb = if ctx.e2e().join("package-lock.json").is_file() {
                "ci"
            } else {
                "install"
            };
            let mut cmd = ctx.command("npm", &[verb, "--no-audit", "--no-fund"]);
            cmd.current_dir(ctx.e2e())
                .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
            proc::logged(&mut cmd, log)
        }),
    }
}

/// Ok("name version, ...") when every package of the lock's root is installed at the
/// locked version.
fn node_packages_state(ctx: &Ctx) -> Result<String, String> {
    let read_json = |path: PathBuf| -> Result<serde_json::Value, String> {
        let text = std::fs::read_to_string(&path).map_err(|_| format!("no {}", ctx.show(&path)))?;
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", ctx.show(&path)))
    };
    let lock = read_json(ctx.e2e().join("package-lock.json"))?;
    let packages = &lock["packages"];
    let root = &packages[""];
    let mut names: Vec<&String> = ["dependencies", "devDependencies"]
        .iter()
        .filter_map(|key| root[*key].as_object())
        .flat_map(|deps| deps.keys())
        .collect();
    names.sort();
    let mut found = Vec::new();
    for name in names {
        let locked = packages[format!("node_modules/{name}")]["version"]
            .as_str()
            .ok_or_else(|| format!("package-lock.json has no version for {name}"))?;
        let installed = read_json(
            ctx.e2e()
                .join("node_modules")
                .join(name)
                .join("package.json"),
        )?;
        match installed["version"].as_str() {
            Some(v) if v == locked => found.push(format!("{name} {v}")),
            Some(v) => return Err(format!("{name} {v} installed, lock says {locked}")),
            None => return Err(format!("{name} has no version")),
        }
    }
    Ok(found.join(", "))
}

/// Debian's chromium and chromium-driver. Only installed when a binary is missing; any
/// present version is accepted (the driver comes from the same source package).
fn chromium(ctx: &Ctx) -> Tool<'_> {
    Tool {
        id: "chromium",
        wanted: "(Debian chromium, chromium-driver)".into(),
        for_serve: false,
        probe: Box::new(|| {
            let missing: Vec<&str> = [CHROMIUM, CHROMEDRIVER]
                .into_iter()
                .filter(|p| !Path::new(p).is_file())
                .collect();
            if !missing.is_empty() {
                return Probe::Missing(format!("no {}", missing.join(", ")));
            }
            let version = proc::probe(std::process::Command::new(CHROMEDRIVER).arg("--version"))
                .map(|v| v.split(" (").next().unwrap_or_default().to_string())
                .unwrap_or_else(|| "version unknown".into());
            Probe::Present(format!("{CHROMIUM}, {version}"))
        }),
        install: Box::new(move |log| apt_install(ctx, log, &["chromium", "chromium-driver"])),
    }
}

/// `apt-get update`, then `apt-get install -y` the packages (through sudo unless root).
fn apt_install(ctx: &Ctx, log: &Path, packages: &[&str]) -> Result<(), String> {
    let as_root = proc::probe(&mut ctx.command("id", &["-u"])).as_deref() == Some("0");
    let apt = |args: &[&str]| {
        let mut cmd = if as_root {
            ctx.command("apt-get", args)
        } else {
            let mut cmd = ctx.command("sudo", &["apt-get"]);
            cmd.args(args);
            cmd
        };
        cmd.env("DEBIAN_FRONTEND", "noninteractive");
        proc::logged(&mut cmd, log)
    };
    apt(&["update"])?;
    let mut install = vec!["install", "-y"];
    install.extend_from_slice(packages);
    apt(&install)
}

/// Debian's LLVM 22 (`llc-22`): the oracle the tests compare our MIR with and whose
/// MachineVerifier reads every MIR we print (`compiler-core/tests/support/llc.rs`).
pub const LLC: &str = "llc-22";

fn llvm(ctx: &Ctx) -> Tool<'_> {
    Tool {
        id: "llvm-22",
        wanted: "(Debian llvm-22: llc-22 22.x)".into(),
        for_serve: false,
        probe: Box::new(
            || match proc::probe(std::process::Command::new(LLC).arg("--version")) {
                Some(v) if v.contains("LLVM version 22.") => {
                    let version = v.lines().find(|l| l.contains("LLVM version")).unwrap_or("");
                    Probe::Present(format!("{LLC}, {}", version.trim()))
                }
                Some(v) => Probe::Missing(format!("{LLC} is not LLVM 22: {v}")),
                None => Probe::Missing(format!("no {LLC}")),
            },
        ),
        install: Box::new(move |log| apt_install(ctx, log, &["llvm-22"])),
    }
}
