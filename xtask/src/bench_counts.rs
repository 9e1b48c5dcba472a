//! `cargo xtask bench --counts`: instructions executed per stage, counted by
//! callgrind, for the synthetic families at each size → docs/bench-counts.md.
//!
//! CPU times on a shared machine move with the other jobs; instruction counts do not,
//! so their ratio count(10N)/count(N) shows how a stage's work grows with its input.
//!
//! ```text
//! cargo build (bench binary) ─→ per (family, size): valgrind --tool=callgrind
//!     --toggle-collect=bench::untraced_stage --dump-after=bench::untraced_stage
//!     bench --ignored   (one untraced run per stage: REPS=1, COLD=0, TRACE=0, ROUNDS=0)
//!   ─→ <out>.1 … <out>.K, one per stage in plan order; the stage names come from
//!      the Markdown the bench writes beside them
//!   ─→ table: M instructions per stage and size, ratios, the worst ratio
//! ```

use crate::ctx::Ctx;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Families measured (the synthetic ones; the gallery is too small to scale).
pub const FAMILIES: &[&str] = &[
    "phi-swaps",
    "copy-chain",
    "tuples",
    "dag-chain",
    "branches",
    "loops",
];

pub struct Request {
    pub sizes: Vec<usize>,
    pub families: Vec<String>,
}

impl Request {
    /// All families at 1k, 10k and 100k, or what `COPYSCOPE_BENCH_SIZES` and
    /// `COPYSCOPE_BENCH_FAMILIES` (comma-separated) ask for.
    pub fn from_env() -> Result<Request, String> {
        let list = |name: &str| {
            std::env::var(name).ok().map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_string())
                    .collect::<Vec<_>>()
            })
        };
        let sizes = match list("COPYSCOPE_BENCH_SIZES") {
            Some(v) => v
                .iter()
                .map(|s| {
                    s.parse()
                        .map_err(|_| format!("COPYSCOPE_BENCH_SIZES: `{s}` is not a number"))
                })
                .collect::<Result<_, _>>()?,
            None => vec![1_000, 10_000, 100_000],
        };
        let families = match list("COPYSCOPE_BENCH_FAMILIES") {
            Some(v) => {
                if let Some(bad) = v.iter().find(|f| !FAMILIES.contains(&f.as_str())) {
                    return Err(format!(
                        "COPYSCOPE_BENCH_FAMILIES: no family `{bad}`; families: {}",
                        FAMILIES.join(", ")
                    ));
                }
                v
            }
            None => FAMILIES.iter().map(|f| f.to_string()).collect(),
        };
        Ok(Request { sizes, families })
    }
}

/// One stage's count on one input.
struct Count {
    family: String,
    size: usize,
    stage: String,
    instructions: u64,
}

pub fn run(ctx: &Ctx, req: &Request) -> Result<PathBuf, String> {
    if crate::ctx::which("valgrind").is_none() {
        println!("valgrind missing: apt-get update && apt-get install -y valgrind");
        let _ = ctx.command("apt-get", &["update"]).status();
        let ok = ctx
            .command("apt-get", &["install", "-y", "valgrind"])
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err("could not install valgrind".into());
        }
    }
    let bin = bench_binary(ctx)?;
    let dir = ctx.target_dir().join("bench-counts");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut counts = Vec::new();
    for family in &req.families {
        for &size in &req.sizes {
            let started = std::time::Instant::now();
            print!("{family} {size}: ");
            let got = count_one(&bin, &dir, family, size)?;
            println!(
                "{} stages, {:.0} M instructions, {:.0} s",
                got.len(),
                got.iter().map(|c| c.instructions as f64).sum::<f64>() / 1e6,
                started.elapsed().as_secs_f64()
            );
            counts.extend(got);
        }
    }
    let out = ctx.root.join("docs").join("bench-counts.md");
    std::fs::write(&out, report(&counts, req)).map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(out)
}

/// Builds the bench test binary and returns its path (cargo prints it on stderr).
fn bench_binary(ctx: &Ctx) -> Result<PathBuf, String> {
    let out = ctx
        .bench_test(&["--no-run"])
        .output()
        .map_err(|e| format!("cargo: {e}"))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("building the bench failed:\n{err}"));
    }
    err.lines()
        .find_map(|l| {
            let l = l.trim();
            l.strip_prefix("Executable tests/bench.rs (")
                .and_then(|r| r.strip_suffix(')'))
        })
        .map(|p| ctx.root.join(p))
        .ok_or_else(|| format!("no bench executable in cargo's output:\n{err}"))
}

fn count_one(bin: &Path, dir: &Path, family: &str, size: usize) -> Result<Vec<Count>, String> {
    let base = dir.join(format!("{family}-{size}.out"));
    let md = dir.join(format!("{family}-{size}.md"));
    // Old dumps of the same name would be read as this run's.
    if let Ok(entries) = std::fs::read_dir(dir) {
        let prefix = format!("{family}-{size}.out");
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let status = std::process::Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--toggle-collect=bench::untraced_stage")
        .arg("--dump-after=bench::untraced_stage")
        .arg(format!("--callgrind-out-file={}", base.display()))
        .arg(bin)
        .args(["--ignored", "--exact", "bench", "--test-threads=1"])
        .env("COPYSCOPE_BENCH_FAMILIES", family)
        .env("COPYSCOPE_BENCH_SIZES", size.to_string())
        .env("COPYSCOPE_BENCH_REPS", "1")
        .env("COPYSCOPE_BENCH_COLD", "0")
        .env("COPYSCOPE_BENCH_TRACE", "0")
        .env("COPYSCOPE_BENCH_ROUNDS", "0")
        .env("COPYSCOPE_BENCH_OUT", &md)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("valgrind: {e}"))?;
    if !status.success() {
        return Err(format!("valgrind on {family} {size} failed ({status})"));
    }
    let text = std::fs::read_to_string(&md).map_err(|e| format!("{}: {e}", md.display()))?;
    let stages = stages_in(&text, family, size);
    let mut counts = Vec::new();
    for (k, stage) in stages.into_iter().enumerate() {
        let dump = PathBuf::from(format!("{}.{}", base.display(), k + 1));
        let body =
            std::fs::read_to_string(&dump).map_err(|e| format!("{}: {e}", dump.display()))?;
        let instructions = body
            .lines()
            .find_map(|l| l.strip_prefix("totals:"))
            .and_then(|t| t.split_whitespace().next()?.parse().ok())
            .ok_or_else(|| format!("{}: no totals line", dump.display()))?;
        counts.push(Count {
            family: family.to_string(),
            size,
            stage,
            instructions,
        });
    }
    Ok(counts)
}

/// The stages of the bench's per-stage table for (family, size), in run order.
fn stages_in(md: &str, family: &str, size: usize) -> Vec<String> {
    md.lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells.len() > 4 && cells[1] == family && cells[2] == size.to_string())
                .then(|| cells[4].to_string())
        })
        .collect()
}

fn report(counts: &[Count], req: &Request) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Benchmarks: instruction counts\n");
    let _ = writeln!(
        md,
        "Written by `cargo xtask bench --counts`. Each figure is the number of instructions \
         (millions) one untraced run of the stage executed, counted by callgrind \
         (`--toggle-collect=bench::untraced_stage`), on the synthetic inputs of \
         [bench.md](bench.md), each stage on the output of the stages before it. Counts \
         do not depend on what else the machine runs, so count(10N)/count(N) is the \
         stage's growth without the memory system's; the target for time is ≤ 12.\n"
    );
    let mut header = String::from("| family | stage |");
    let mut rule = String::from("|---|---|");
    for s in &req.sizes {
        let _ = write!(header, " {} (M) |", short(*s));
        rule.push_str("---:|");
    }
    for w in req.sizes.windows(2) {
        let _ = write!(header, " {}/{} |", short(w[1]), short(w[0]));
        rule.push_str("---:|");
    }
    let _ = writeln!(md, "{header}\n{rule}");
    let mut worst: Option<(f64, String)> = None;
    for family in &req.families {
        let mut stages: Vec<&str> = Vec::new();
        for c in counts.iter().filter(|c| &c.family == family) {
            if !stages.contains(&c.stage.as_str()) {
                stages.push(&c.stage);
            }
        }
        for stage in stages {
            let at = |n: usize| {
                counts
                    .iter()
                    .find(|c| &c.family == family && c.size == n && c.stage == stage)
                    .map(|c| c.instructions as f64 / 1e6)
            };
            let mut row = format!("| {family} | {stage} |");
            for &s in &req.sizes {
                let _ = write!(
                    row,
                    " {} |",
                    at(s).map_or("–".into(), |v| format!("{v:.2}"))
                );
            }
            for w in req.sizes.windows(2) {
                match (at(w[0]), at(w[1])) {
                    (Some(a), Some(b)) if a > 0.0 => {
                        let r = b / a;
                        let _ = write!(row, " {r:.1} |");
                        if worst.as_ref().is_none_or(|(x, _)| r > *x) {
                            worst = Some((
                                r,
                                format!("{family} {stage}, {}→{}", short(w[0]), short(w[1])),
                            ));
                        }
                    }
                    _ => row.push_str(" – |"),
                }
            }
            let _ = writeln!(md, "{row}");
        }
    }
    if let Some((r, what)) = worst {
        let _ = writeln!(md, "\nWorst ratio: {r:.1} ({what}).");
    }
    let _ = writeln!(
        md,
        "\nReproduce one cell by hand: `COPYSCOPE_BENCH_FAMILIES=loops \
         COPYSCOPE_BENCH_SIZES=10000 COPYSCOPE_BENCH_REPS=1 COPYSCOPE_BENCH_COLD=0 \
         COPYSCOPE_BENCH_TRACE=0 COPYSCOPE_BENCH_ROUNDS=0 valgrind --tool=callgrind \
         --toggle-collect=bench::untraced_stage --dump-after=bench::untraced_stage \
         target/release/deps/bench-<hash> --ignored --exact bench`; the dumps `.1`, `.2`, … \
         are the stages in plan order."
    );
    md
}

/// 1000 → "1k".
fn short(n: usize) -> String {
    if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}
