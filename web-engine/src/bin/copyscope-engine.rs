//! The engine's own wasm binary, `copyscope-engine` (Trunk builds it as a worker:
//! `dist/copyscope-engine.js` + `dist/copyscope-engine_bg.wasm`, names without a hash).
//!
//! ```text
//!  page (index.html) ── fetch + compile copyscope-engine_bg.wasm once ──┬─▶ instantiate in the
//!                                                                       │   page: window.wasmBindings
//!                                                                       └─▶ post the module to the
//!  static/engine-worker.js ── instantiate ──▶ main(): worker scope ──▶ worker::start (message loop)
//! ```
//!
//! The page's own wasm (web-app) holds the UI only; the pipeline is here. Both roles use
//! one compiled module: in a worker `main` runs the message loop, anywhere else it does
//! nothing and the JS API below is what the host calls (README, "JS API").

fn main() {
    #[cfg(target_family = "wasm")]
    web_engine::worker::start();
}

#[cfg(target_family = "wasm")]
mod js_api {
    use wasm_bindgen::prelude::*;
    use web_engine::js;

    /// `run(source, options?)`: runs the pipeline; returns the stages with their stats,
    /// step counts and remarks, and the output text. Throws on bad input, with `errors`
    /// (line, col, message) on the thrown Error. A SelectionDAG gets a Promise of the
    /// same (its first stage runs in the DAG wasm, copyscope-dag, loaded on first use).
    #[wasm_bindgen]
    pub fn run(source: &str, options: JsValue) -> Result<JsValue, JsValue> {
        js::run(source, options)
    }

    /// `memoryBytes()`: the engine's wasm memory in bytes (never shrinks).
    #[wasm_bindgen(js_name = memoryBytes)]
    pub fn memory_bytes() -> f64 {
        js::memory_bytes()
    }

    /// `version()`: the crate version.
    #[wasm_bindgen]
    pub fn version() -> String {
        env!("CARGO_PKG_VERSION").into()
    }
}
