//! Where things are: the workspace root, the cargo binary, the xtask scratch directory,
//! and the PATH every child process sees.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Ctx {
    /// The workspace root (the directory holding the top-level Cargo.toml).
    pub root: PathBuf,
    /// The cargo that runs us (`$CARGO`), so nested builds use the same toolchain.
    pub cargo: OsString,
    /// `$CARGO_HOME/bin`, where `cargo install` puts trunk and wasm-bindgen.
    pub cargo_bin: PathBuf,
}

impl Ctx {
    /// Builds the context and puts the tool directories first on this process's PATH, so
    /// both our own lookups and every child see the same tools.
    pub fn new() -> Ctx {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("xtask lives one level below the workspace root")
            .to_path_buf();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
            .unwrap_or_else(|| PathBuf::from(".cargo"));
        let ctx = Ctx {
            cargo_bin: cargo_home.join("bin"),
            root,
            cargo,
        };

        let mut dirs = vec![ctx.node_bin(), ctx.cargo_bin.clone()];
        if let Some(path) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&path) {
                if !dirs.contains(&dir) {
                    dirs.push(dir);
                }
            }
        }
        let path = std::env::join_paths(dirs).expect("PATH entries contain no separator");
        // Single-threaded at this point; every later Command inherits it.
        std::env::set_var("PATH", path);
        ctx
    }

    /// The e2e package: node_modules with playwright-core, axe-core and binaryen.
    pub fn e2e(&self) -> PathBuf {
        self.root.join("e2e")
    }

    /// `e2e/node_modules/.bin`: wasm-opt (binaryen) for Trunk.
    pub fn node_bin(&self) -> PathBuf {
        self.e2e().join("node_modules").join(".bin")
    }

    /// Cargo's target directory (honours `CARGO_TARGET_DIR`).
    pub fn target_dir(&self) -> PathBuf {
        match std::env::var_os("CARGO_TARGET_DIR") {
            Some(dir) => self.root.join(dir),
            None => self.root.join("target"),
        }
    }

    /// Scratch space for xtask: install logs, the webdriver config, the serve check's dist.
    pub fn work_dir(&self) -> PathBuf {
        let dir = self.target_dir().join("xtask");
        std::fs::create_dir_all(&dir).expect("target/xtask is writable");
        dir
    }

    /// `cargo <args>` run from the workspace root.
    pub fn cargo(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.cargo);
        cmd.args(args).current_dir(&self.root);
        cmd
    }

    /// `cargo test --release -p compiler-core --test bench` followed by `tail` (the
    /// benchmarks are ignored tests of that target).
    pub fn bench_test(&self, tail: &[&str]) -> Command {
        let mut cmd = self.cargo(&[
            "test",
            "--release",
            "-p",
            "compiler-core",
            "--test",
            "bench",
        ]);
        cmd.args(tail);
        cmd
    }

    /// Any program, run from the workspace root.
    pub fn command(&self, program: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args).current_dir(&self.root);
        cmd
    }

    /// `trunk build --release`: the site as the checks, benches and screenshots build
    /// it, with the size toolchain ([`crate::tools::size_profile`]).
    pub fn trunk_release_build(&self) -> Command {
        let mut cmd = self.command("trunk", &["build", "--release"]);
        crate::tools::size_profile(&mut cmd);
        cmd
    }

    /// `path` relative to the root when it is inside it, for short messages.
    pub fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// The first executable called `name` on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}
