//! The page's binary (Trunk builds it; see `index.html` at the repository root): installs
//! the panic hook (a panic shows an error banner, not a dead page) and mounts
//! [`web_app::App`] into `#app`.
//!
//! The pipeline is not in this wasm. It is web-engine's `copyscope-engine` binary, which
//! the page compiles once (index.html) and runs in a Web Worker (engine.rs). The JS API
//! (`window.wasmBindings`) is mostly that binary's (`run`, `version`, `memoryBytes`); the
//! functions that only read the tables this wasm holds anyway for the page (the gallery,
//! stages, knobs, the permalink codec) are exported from here instead, so the engine's
//! wasm does not carry them: index.html joins the two sets of exports.

fn main() {
    web_app::panic::install();
    let root = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("app"));
    if let Some(root) = root {
        yew::Renderer::<web_app::App>::with_root(root).render();
    }
}

/// The JS API's table and link functions (README, "JS API"): the same code as before
/// (web-engine's `js` module), linked into the page's wasm, which holds the gallery, the
/// knob and stage tables and the permalink codec for the page already.
#[cfg(target_family = "wasm")]
mod js_api {
    use wasm_bindgen::prelude::*;
    use web_engine::js;

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
}
