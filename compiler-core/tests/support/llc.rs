//! The real LLVM as an oracle: Debian's `llc-22` (LLVM 22.1.8).
//!
//! `cargo xtask test` installs it (`apt-get install llvm-22`) and sets
//! `COPYSCOPE_REQUIRE_LLC`; `LLC=/path/to/llc` overrides the search. Without it, tests
//! that need it print a loud message and skip — unless `CI` or `COPYSCOPE_REQUIRE_LLC`
//! is set, then they fail.
//!
//! [`llvm_nvptx`] builds LLVM's own NVPTX CodeGen tests (`shared/corpus/llvm-nvptx`)
//! with that corpus' `make.sh`, once per target directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn is_llvm_22(p: &Path) -> bool {
    Command::new(p)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("LLVM version 22."))
        .unwrap_or(false)
}

/// `llc-22`, or None after printing why (or panicking where it is required).
pub fn llc() -> Option<&'static Path> {
    static CELL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = CELL.get_or_init(|| {
        let p = PathBuf::from(std::env::var("LLC").unwrap_or_else(|_| "llc-22".into()));
        if is_llvm_22(&p) {
            Ok(p)
        } else {
            Err(format!("{} is missing or is not LLVM 22", p.display()))
        }
    });
    match found {
        Ok(p) => Some(p.as_path()),
        Err(e) => {
            let required = std::env::var_os("CI").is_some()
                || std::env::var_os("COPYSCOPE_REQUIRE_LLC").is_some();
            if required {
                panic!("llc-22 is required here: {e} (apt-get install llvm-22)");
            }
            eprintln!("\n!!!!! SKIPPING: {e} (apt-get install llvm-22)\n");
            None
        }
    }
}

/// Runs llc-22's MachineVerifier on MIR text (`-run-pass=none -verify-machineinstrs`)
/// with the given `-mcpu`/`-mattr` flags. Err holds the verifier's findings: each
/// `*** Bad machine code` line with the instruction it names, or the parser's error.
pub fn verify_mir(llc: &Path, text: &str, flags: &str, tag: &str) -> Result<(), String> {
    let path = scratch_file(tag, "mir");
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let out = Command::new(llc)
        .args([
            "-mtriple=nvptx64-nvidia-cuda",
            "-run-pass=none",
            "-verify-machineinstrs",
        ])
        .args(flags.split_whitespace())
        .arg(&path)
        .args(["-o", "/dev/null"])
        .env("LLVM_DISABLE_SYMBOLIZATION", "1")
        .env("LLVM_DISABLE_CRASH_REPORT", "1")
        .output()
        .map_err(|e| format!("{}: {e}", llc.display()))?;
    let _ = std::fs::remove_file(&path);
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let mut why: Vec<&str> = Vec::new();
    let mut lines = err.lines().peekable();
    while let Some(l) = lines.next() {
        if l.starts_with("*** Bad machine code") {
            why.push(l);
            while let Some(n) = lines.next_if(|n| n.starts_with("- ")) {
                if n.starts_with("- instruction") || n.starts_with("- operand") {
                    why.push(n);
                }
            }
        } else if l.contains("error:") {
            why.push(l);
        }
    }
    why.dedup();
    why.truncate(6);
    Err(if why.is_empty() {
        err.lines().take(3).collect::<Vec<_>>().join("\n")
    } else {
        why.join("\n")
    })
}

/// llc-22's MIR parser alone on `text` (`-run-pass=none`, no verifier): Err holds its
/// error output.
pub fn parse_only(llc: &Path, text: &str, tag: &str) -> Result<(), String> {
    let path = scratch_file(tag, "mir");
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let out = Command::new(llc)
        .args(["-mtriple=nvptx64-nvidia-cuda", "-run-pass=none"])
        .arg(&path)
        .args(["-o", "/dev/null"])
        .output()
        .map_err(|e| format!("{}: {e}", llc.display()))?;
    let _ = std::fs::remove_file(&path);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// [`verify_mir`] on every (seed, tag, text) job, two llc-22 processes per core at a
/// time; results in job order.
pub fn verify_all(
    llc: &Path,
    jobs: &[(u64, String, String)],
    flags: &str,
) -> Vec<Result<(), String>> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get() * 2);
    let mut done: Vec<(usize, Result<(), String>)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((seed, how, text)) = jobs.get(i) else {
                            break mine;
                        };
                        let tag = format!("random{seed}-{how}");
                        mine.push((i, verify_mir(llc, text, flags, &tag)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    done.sort_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

/// `llc-22 -run-pass=PASS` on MIR text (`-mcpu=sm_90`): the MIR it prints.
pub fn run_pass(llc: &Path, text: &str, pass: &str, tag: &str) -> String {
    let path = scratch_file(tag, "mir");
    std::fs::write(&path, text).unwrap();
    let out = Command::new(llc)
        .args(["-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_90"])
        .arg(format!("-run-pass={pass}"))
        .arg(&path)
        .args(["-o", "-"])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", llc.display()));
    let _ = std::fs::remove_file(&path);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "llc-22 -run-pass={pass} on {tag}: {stderr}"
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A file name for one use, unique across the test binaries running at once.
fn scratch_file(tag: &str, ext: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("copyscope-llc-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let safe: String = tag
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    dir.join(format!("{n}-{safe}.{ext}"))
}

/// One of LLVM's NVPTX CodeGen tests as llc-22 compiled it (`llvm-nvptx/make.sh`).
pub struct LlvmNvptxCase {
    pub name: String,
    pub dir: PathBuf,
    /// The `-mcpu`/`-mattr` flags make.sh used for it.
    pub flags: String,
}

impl LlvmNvptxCase {
    /// One of its outputs (`pre-phielim.mir`, `coalesced.mir`, `llc.ptx`, ...), if made.
    pub fn file(&self, name: &str) -> Option<PathBuf> {
        let p = self.dir.join(name);
        p.is_file().then_some(p)
    }
}

/// Every case of `shared/corpus/llvm-nvptx`, built by its `make.sh` into this target
/// directory on first use and again when make.sh changes (about 30 s on 2 cores),
/// sorted by name.
pub fn llvm_nvptx(llc: &Path) -> Vec<LlvmNvptxCase> {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| build_llvm_nvptx(llc));
    let mut cases: Vec<LlvmNvptxCase> = std::fs::read_dir(dir)
        .expect("llvm-nvptx outputs exist")
        .filter_map(|e| {
            let dir = e.ok()?.path();
            let flags = std::fs::read_to_string(dir.join("flags")).ok()?;
            let flags = flags
                .split_whitespace()
                .filter(|f| !f.starts_with("-mtriple"))
                .collect::<Vec<_>>()
                .join(" ");
            let name = dir.file_name()?.to_string_lossy().into_owned();
            Some(LlvmNvptxCase { name, dir, flags })
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    cases
}

fn build_llvm_nvptx(llc: &Path) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let out = root.join("llvm-nvptx");
    let script = super::corpus_dir().join("llvm-nvptx/make.sh");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(&out.join("COUNTS.tsv")), modified(&script)) {
        (Some(built), Some(changed)) if built >= changed => return out,
        (Some(_), _) => {
            let _ = std::fs::remove_dir_all(&out);
        }
        _ => {}
    }
    // Build beside, then move into place: test binaries running at once may race, and
    // the loser finds the winner's copy.
    let tmp = root.join(format!("llvm-nvptx-{}", std::process::id()));
    let status = Command::new("bash")
        .arg(&script)
        .arg(&tmp)
        .env("LLC", llc)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
    assert!(status.success(), "{} failed", script.display());
    if std::fs::rename(&tmp, &out).is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    assert!(
        out.join("COUNTS.tsv").is_file(),
        "make.sh left no COUNTS.tsv"
    );
    out
}

/// llc-22 on an `.ll` file with `-stop-after=PASS` (or `-stop-before=`, per `stop`),
/// fed on stdin as make.sh feeds it, with `flags` (`-mcpu=...`). The output is cached
/// under this target directory as `CACHE.mir` and made again when the `.ll` is newer.
/// None when llc-22 rejects the input (its first error line is in the Err).
pub fn stop_at(
    llc: &Path,
    ll: &Path,
    flags: &str,
    stop: &str,
    cache: &str,
) -> Result<PathBuf, String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("llc-stop");
    let _ = std::fs::create_dir_all(&dir);
    let safe: String = cache
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let out = dir.join(format!("{safe}.mir"));
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(made), Some(src)) = (modified(&out), modified(ll)) {
        if made >= src {
            return Ok(out);
        }
    }
    let input = std::fs::File::open(ll).map_err(|e| format!("{}: {e}", ll.display()))?;
    let res = Command::new(llc)
        .arg("-mtriple=nvptx64-nvidia-cuda")
        .args(flags.split_whitespace())
        .arg(stop)
        .args(["-o", "-"])
        .stdin(input)
        .env("LLVM_DISABLE_SYMBOLIZATION", "1")
        .env("LLVM_DISABLE_CRASH_REPORT", "1")
        .output()
        .map_err(|e| format!("{}: {e}", llc.display()))?;
    if !res.status.success() {
        let err = String::from_utf8_lossy(&res.stderr);
        return Err(err.lines().next().unwrap_or("llc-22 failed").to_string());
    }
    // Write beside, then move into place (test binaries may race).
    let tmp = dir.join(format!("{safe}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, &res.stdout).map_err(|e| e.to_string())?;
    std::fs::rename(&tmp, &out).map_err(|e| e.to_string())?;
    Ok(out)
}
