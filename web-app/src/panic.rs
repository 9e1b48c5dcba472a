//! A panic in the page must not leave a dead page behind: the hook logs it (console
//! panic hook) and puts an error banner at the top of the page, outside yew's tree,
//! with the message and a reload button. wasm panics abort, so the app cannot go on;
//! the banner says so and keeps the page readable.
//!
//! The release site is built with `-Cpanic=immediate-abort` (xtask's size profile):
//! there no hook runs and a panic is a wasm trap on the spot, which reaches the page
//! as an uncaught `RuntimeError` (from an event handler) or a rejected promise (from a
//! future). [`install`] also listens for those and shows the same banner with the
//! trap's text, unless a hook already showed one.

/// Installs the hook and the trap listener (once).
pub fn install() {
    #[cfg(not(panic = "immediate-abort"))]
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_banner(&info.to_string());
    }));
    #[cfg(target_family = "wasm")]
    on_trap();
}

/// Shows the banner for an uncaught wasm trap (see the module's text).
#[cfg(target_family = "wasm")]
fn on_trap() {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window() else {
        return;
    };
    for kind in ["error", "unhandledrejection"] {
        gloo_events::EventListener::new(&window, kind, |event| {
            // ErrorEvent.error, PromiseRejectionEvent.reason.
            let error = ["error", "reason"]
                .into_iter()
                .filter_map(|key| js_sys::Reflect::get(event, &key.into()).ok())
                .find(|v| v.is_instance_of::<js_sys::WebAssembly::RuntimeError>());
            let shown = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id(BANNER_ID))
                .is_some();
            if let (Some(error), false) = (error, shown) {
                let text: String = error.unchecked_into::<js_sys::Error>().to_string().into();
                show_banner(&text);
            }
        })
        .forget();
    }
}

/// The banner's element id.
pub const BANNER_ID: &str = "panic-banner";

/// Puts (or replaces) the error banner. Built with plain DOM calls: after a panic yew is
/// no longer running.
#[cfg(target_family = "wasm")]
pub fn show_banner(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else { return };
    if let Some(old) = document.get_element_by_id(BANNER_ID) {
        old.remove();
    }
    let Ok(banner) = document.create_element("div") else {
        return;
    };
    banner.set_id(BANNER_ID);
    let _ = banner.set_attribute("role", "alert");
    let _ = banner.set_attribute("class", "panic-banner");
    let title = document.create_element("strong").ok();
    let text = document.create_element("p").ok();
    let detail = document.create_element("pre").ok();
    let button = document.create_element("button").ok();
    if let Some(t) = title {
        t.set_text_content(Some("CopyScope hit an internal error and stopped."));
        let _ = banner.append_child(&t);
    }
    if let Some(p) = text {
        p.set_text_content(Some(
            "What is on the page stays readable, but the controls no longer respond. Reload to start again; a permalink copied earlier still opens the same view.",
        ));
        let _ = banner.append_child(&p);
    }
    if let Some(pre) = detail {
        pre.set_text_content(Some(message));
        let _ = banner.append_child(&pre);
    }
    if let Some(b) = button {
        let _ = b.set_attribute("type", "button");
        let _ = b.set_attribute("onclick", "location.reload()");
        b.set_text_content(Some("Reload the page"));
        let _ = banner.append_child(&b);
    }
    let _ = body.insert_before(&banner, body.first_child().as_ref());
}

#[cfg(not(target_family = "wasm"))]
pub fn show_banner(message: &str) {
    let _ = message;
}
