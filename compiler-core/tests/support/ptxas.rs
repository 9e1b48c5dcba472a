//! Finds the real assembler, `ptxas` 13.0.88, installing it on first use.
//!
//! Install (idempotent; what `cargo xtask` should do too):
//!
//! ```text
//! pip download --no-deps nvidia-cuda-nvcc==13.0.88 -d .tools/wheels
//! unzip -o -q .tools/wheels/nvidia_cuda_nvcc-13.0.88-*.whl 'nvidia/cu13/bin/ptxas' -d .tools/nvcc-13.0.88
//! chmod +x .tools/nvcc-13.0.88/nvidia/cu13/bin/ptxas
//! ```
//!
//! `.tools/` is at the repository root and gitignored. `PTXAS=/path/to/ptxas`
//! overrides the search. When the assembler cannot be had, tests that need it print a
//! loud message and skip — unless `CI` or `COPYSCOPE_REQUIRE_PTXAS` is set, then they
//! fail.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub const VERSION: &str = "13.0.88";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("compiler-core has a parent")
        .to_path_buf()
}

fn is_right_version(p: &Path) -> bool {
    Command::new(p)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains(&format!("V{VERSION}")))
        .unwrap_or(false)
}

fn install(tools: &Path) -> Result<PathBuf, String> {
    let dest = tools.join(format!("nvcc-{VERSION}"));
    let bin = dest.join("nvidia/cu13/bin/ptxas");
    if bin.exists() && is_right_version(&bin) {
        return Ok(bin);
    }
    let wheels = tools.join("wheels");
    std::fs::create_dir_all(&wheels).map_err(|e| format!("create {}: {e}", wheels.display()))?;
    let find_wheel = || {
        std::fs::read_dir(&wheels).ok()?.find_map(|e| {
            let p = e.ok()?.path();
            let n = p.file_name()?.to_string_lossy().into_owned();
            (n.starts_with(&format!("nvidia_cuda_nvcc-{VERSION}")) && n.ends_with(".whl"))
                .then_some(p)
        })
    };
    if find_wheel().is_none() {
        let spec = format!("nvidia-cuda-nvcc=={VERSION}");
        let mut ok = false;
        let mut errs = String::new();
        for (prog, pre) in [
            ("pip", vec![]),
            ("pip3", vec![]),
            ("python3", vec!["-m", "pip"]),
        ] {
            let out = Command::new(prog)
                .args(&pre)
                .args(["download", "--no-deps", "--quiet", &spec, "-d"])
                .arg(&wheels)
                .output();
            match out {
                Ok(o) if o.status.success() => {
                    ok = true;
                    break;
                }
                Ok(o) => errs.push_str(&String::from_utf8_lossy(&o.stderr)),
                Err(e) => errs.push_str(&format!("{prog}: {e}\n")),
            }
        }
        if !ok {
            return Err(format!("pip download {spec} failed:\n{errs}"));
        }
    }
    let wheel = find_wheel().ok_or("the wheel is not where pip put it")?;
    // Unpack into a private directory, then move it into place (parallel test
    // binaries may race; the loser finds the winner's copy).
    let tmp = tools.join(format!("unpack-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let st = Command::new("unzip")
        .args(["-o", "-q"])
        .arg(&wheel)
        .arg("nvidia/cu13/bin/ptxas")
        .arg("-d")
        .arg(&tmp)
        .status()
        .map_err(|e| format!("unzip: {e}"))?;
    if !st.success() {
        return Err("unzip of the nvcc wheel failed".into());
    }
    let unpacked = tmp.join("nvidia/cu13/bin/ptxas");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&unpacked, std::fs::Permissions::from_mode(0o755));
    }
    std::fs::create_dir_all(bin.parent().unwrap()).map_err(|e| e.to_string())?;
    if std::fs::rename(&unpacked, &bin).is_err() && !bin.exists() {
        return Err("could not move ptxas into place".into());
    }
    let _ = std::fs::remove_dir_all(&tmp);
    if is_right_version(&bin) {
        Ok(bin)
    } else {
        Err(format!("{} does not report V{VERSION}", bin.display()))
    }
}

/// The assembler, or None after printing why (or panicking where it is required).
pub fn ptxas() -> Option<&'static Path> {
    static CELL: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let r = CELL.get_or_init(|| {
        if let Ok(p) = std::env::var("PTXAS") {
            let p = PathBuf::from(p);
            return if is_right_version(&p) {
                Ok(p)
            } else {
                Err(format!("PTXAS={} is not ptxas V{VERSION}", p.display()))
            };
        }
        install(&repo_root().join(".tools"))
    });
    match r {
        Ok(p) => Some(p.as_path()),
        Err(e) => {
            let required = std::env::var_os("CI").is_some()
                || std::env::var_os("COPYSCOPE_REQUIRE_PTXAS").is_some();
            if required {
                panic!("ptxas {VERSION} is required here but could not be installed: {e}");
            }
            eprintln!("\n!!!!! SKIPPING: ptxas {VERSION} could not be installed: {e}\n");
            None
        }
    }
}

/// Assembles PTX text for `sm_<arch>`; Err holds ptxas' messages.
pub fn assemble(ptxas: &Path, text: &str, arch: u32, tag: &str) -> Result<(), String> {
    assemble_target(ptxas, text, &arch.to_string(), tag)
}

/// Assembles PTX text for `sm_<target>`, where the target may carry a feature suffix
/// (`90a`); Err holds ptxas' messages.
pub fn assemble_target(ptxas: &Path, text: &str, target: &str, tag: &str) -> Result<(), String> {
    run_ptxas(ptxas, text, target, tag, false)
}

/// As [`assemble_target`] with `-c`: relocatable code, so calls to `.extern`
/// functions need no definition.
pub fn compile_only(ptxas: &Path, text: &str, target: &str, tag: &str) -> Result<(), String> {
    run_ptxas(ptxas, text, target, tag, true)
}

fn run_ptxas(
    ptxas: &Path,
    text: &str,
    target: &str,
    tag: &str,
    compile_only: bool,
) -> Result<(), String> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("copyscope-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let safe: String = tag
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let src = dir.join(format!("{n}-{safe}-{target}.ptx"));
    let out = dir.join(format!("{n}-{safe}-{target}.cubin"));
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let o = Command::new(ptxas)
        .args(compile_only.then_some("-c"))
        .arg(format!("-arch=sm_{target}"))
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .map_err(|e| format!("running ptxas: {e}"))?;
    let _ = std::fs::remove_file(&out);
    if o.status.success() {
        let _ = std::fs::remove_file(&src);
        Ok(())
    } else {
        Err(format!(
            "ptxas -arch=sm_{target} {} failed:\n{}{}",
            src.display(),
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}
