//! Runs the built `copyscope` binary.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `copyscope ARGS`, feeding `stdin` when given.
pub fn copyscope(args: &[&str], stdin: Option<&[u8]>) -> Out {
    let mut child = Command::new(env!("CARGO_BIN_EXE_copyscope"))
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("copyscope starts");
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        // The binary may stop reading early (size limit, error); ignore a closed pipe.
        let _ = pipe.write_all(bytes);
    }
    let out = child.wait_with_output().expect("copyscope finishes");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}

/// Every `*.mir` of the shared corpus, sorted.
pub fn corpus_mir_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for case in std::fs::read_dir(corpus_dir()).expect("../shared/corpus exists") {
        let case = case.unwrap().path();
        if case.is_dir() {
            for f in std::fs::read_dir(&case).unwrap() {
                let f = f.unwrap().path();
                if f.extension().is_some_and(|e| e == "mir") {
                    out.push(f);
                }
            }
        }
    }
    out.sort();
    out
}

/// A scratch file under cargo's per-test temporary directory.
pub fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("copyscope-cli-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The `(line, col)` of a `NAME:LINE:COL: error: ` diagnostic line.
pub fn diag_position(line: &str, name: &str) -> Option<(u32, u32)> {
    let rest = line.strip_prefix(name)?.strip_prefix(':')?;
    let mut parts = rest.splitn(3, ':');
    let l = parts.next()?.parse().ok()?;
    let c = parts.next()?.parse().ok()?;
    parts.next()?.strip_prefix(" error: ")?;
    Some((l, c))
}

/// Deterministic pseudo-random bytes (xorshift64*).
pub fn random_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut s = seed | 1;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        out.extend_from_slice(&s.wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes());
    }
    out.truncate(n);
    out
}
