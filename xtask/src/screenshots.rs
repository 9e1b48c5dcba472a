//! `cargo xtask screenshots`: the documentation's screenshots of the playground, taken
//! from the release site in headless Chromium and written to `docs/screenshots/`.
//!
//! ```text
//!  trunk build --release ──▶ dist/ ──static server──▶ node e2e/docs/screenshots.mjs
//!                                                      ──▶ docs/screenshots/*.png
//! ```

use crate::ctx::Ctx;
use crate::tools::CHROMIUM;
use crate::{http, proc};

/// Tools the screenshots need: the e2e check's (site build, node packages, Chromium).
pub const NEEDS: &[&str] = crate::checks::E2E;

/// Builds the site (unless `build` is false and dist/ exists) and takes the screenshots.
pub fn run(ctx: &Ctx, build: bool) -> Result<(), String> {
    let dist = ctx.root.join("dist");
    if build || !dist.join("index.html").is_file() {
        println!("building the site (trunk build --release)");
        let (ok, _) = proc::tee(&mut ctx.trunk_release_build());
        if !ok {
            return Err("trunk build --release failed".into());
        }
    }
    let shots = ctx.root.join("docs").join("screenshots");
    let site = http::StaticServer::start(dist).map_err(|e| format!("static server: {e}"))?;
    println!(
        "taking screenshots of {} into {}",
        site.url(),
        ctx.show(&shots)
    );
    let status = ctx
        .command("node", &["docs/screenshots.mjs"])
        .current_dir(ctx.e2e())
        .env("COPYSCOPE_URL", site.url())
        .env("COPYSCOPE_SHOTS", &shots)
        .env("COPYSCOPE_CHROMIUM", CHROMIUM)
        .status()
        .map_err(|e| format!("cannot run node: {e}"));
    site.stop();
    if !status?.success() {
        return Err("e2e/docs/screenshots.mjs failed".into());
    }
    Ok(())
}
