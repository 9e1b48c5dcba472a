//! The site's one binary (Trunk builds it; see `index.html` at the repository root).
//!
//! - In the page: installs the panic hook (a panic shows an error banner, not a dead
//!   page) and mounts [`web_app::App`] into `#app`. A page without `#app` (one that only
//!   wants the JS API below) gets nothing mounted.
//! - In the engine's Web Worker (static/engine-worker.js instantiates this same wasm):
//!   runs the engine's message loop instead.
//! - Everywhere: exports the JS API (README, "JS API"); on the playground page it is at
//!   `window.wasmBindings`.

fn main() {
    #[cfg(target_family = "wasm")]
    if web_engine::worker::in_worker() {
        web_engine::worker::start();
        return;
    }
    web_app::panic::install();
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    if let Some(root) = root {
        yew::Renderer::<web_app::App>::with_root(root).render();
    }
}

#[cfg(target_family = "wasm")]
mod js_api {
    use wasm_bindgen::prelude::*;
    use web_engine::js;

    /// `run(source, options?)`: runs the pipeline; returns the stages with their stats,
    /// step counts and remarks, and the output text. Throws on bad input, with `errors`
    /// (line, col, message) on the thrown Error.
    #[wasm_bindgen]
    pub fn run(source: &str, options: JsValue) -> Result<JsValue, JsValue> {
        js::run(source, options)
    }

    /// `examples()`: the gallery, `[{name, stage, format, summary, source}]`.
    #[wasm_bindgen]
    pub fn examples() -> Result<JsValue, JsValue> {
        js::examples()
    }

    /// `stages()`: every stage in pipeline order, `[{id, phase, input, output, summary,
    /// spec, implemented}]`.
    #[wasm_bindgen]
    pub fn stages() -> Result<JsValue, JsValue> {
        js::stages()
    }

    /// `knobs()`: every knob, `[{name, alias, kind, default, help, spec, stages}]`.
    #[wasm_bindgen]
    pub fn knobs() -> Result<JsValue, JsValue> {
        js::knobs()
    }

    /// `encodeLink(state)`: the `#` fragment (without `#`) of a permalink to `state`
    /// (`{source, format?, knobs?, stage?, step?, layout?}`).
    #[wasm_bindgen(js_name = encodeLink)]
    pub fn encode_link(state: JsValue) -> Result<String, JsValue> {
        js::encode_link(state)
    }

    /// `decodeLink(url)`: a permalink's state, or throws with the column and reason.
    #[wasm_bindgen(js_name = decodeLink)]
    pub fn decode_link(url: &str) -> Result<JsValue, JsValue> {
        js::decode_link(url)
    }

    /// `version()`: the crate version.
    #[wasm_bindgen]
    pub fn version() -> String {
        env!("CARGO_PKG_VERSION").into()
    }
}
