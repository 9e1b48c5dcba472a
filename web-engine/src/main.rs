//! The engine binary. Trunk builds it as the playground's Web Worker (`data-type="worker"`
//! in index.html, loaded through `copyscope-engine_loader.js`); in a worker `main` starts
//! the message loop. Loaded into a page with a `<script>` tag instead, it does nothing on
//! start and offers the JS API below (README, "JS API").

#[cfg(target_family = "wasm")]
mod exports {
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

    /// `encodeLink(state)`: the `#`-fragment (without `#`) of a permalink.
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

fn main() {
    #[cfg(target_family = "wasm")]
    web_engine::worker::start();
    #[cfg(not(target_family = "wasm"))]
    eprintln!("copyscope-engine is the playground's Web Worker; build it for wasm32 with Trunk");
}
