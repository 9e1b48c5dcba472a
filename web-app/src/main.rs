//! The page's binary (Trunk builds it; see `index.html` at the repository root): installs
//! the panic hook (a panic shows an error banner, not a dead page) and mounts
//! [`web_app::App`] into `#app`.
//!
//! The pipeline is not in this wasm. It is web-engine's `copyscope-engine` binary, which
//! the page compiles once (index.html) and runs in a Web Worker (engine.rs); the JS API
//! (`window.wasmBindings`) is that binary's too.

fn main() {
    web_app::panic::install();
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    if let Some(root) = root {
        yew::Renderer::<web_app::App>::with_root(root).render();
    }
}
