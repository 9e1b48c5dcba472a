//! `cargo xtask serve`: Trunk's dev server. The e2e check starts the very same command
//! (through [`trunk_serve`]) on a free port, so the path the README promises is tested.

use crate::ctx::Ctx;
use crate::http;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

pub struct ServeOptions<'a> {
    pub address: &'a str,
    pub port: u16,
    /// Build with the site's release profile (wasm-release, wasm-opt -Oz).
    pub release: bool,
    /// Where Trunk writes the site; None: Trunk.toml's `dist/`.
    pub dist: Option<&'a Path>,
}

/// `trunk serve` as `cargo xtask serve` runs it.
pub fn trunk_serve(ctx: &Ctx, opts: &ServeOptions) -> Command {
    let port = opts.port.to_string();
    let mut cmd = ctx.command(
        "trunk",
        &["serve", "--address", opts.address, "--port", &port],
    );
    if opts.release {
        cmd.arg("--release");
        crate::tools::size_profile(&mut cmd);
    }
    if let Some(dist) = opts.dist {
        cmd.arg("--dist").arg(dist);
    }
    cmd
}

/// Waits until `url` answers 200 with a page that loads the wasm app (Trunk answers
/// before its first build is done), or the child exits, or `limit` passes.
pub fn wait_until_served(url: &str, child: &mut Child, limit: Duration) -> Result<(), String> {
    let start = Instant::now();
    loop {
        if let Some((200, body)) = http::get(url) {
            if body.contains("web-app-") && body.contains("_bg.wasm") {
                return Ok(());
            }
        }
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("trunk serve exited early ({status})"));
        }
        if start.elapsed() > limit {
            return Err(format!("{url} did not serve the app within {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// Stops a server child politely (SIGTERM via `kill`), then forcefully after 10 s.
pub fn stop(child: &mut Child) {
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().ok();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().ok();
    child.wait().ok();
}
