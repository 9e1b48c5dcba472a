//! A panic in the page must not leave a dead page behind: the hook logs it (console
//! panic hook) and puts an error banner at the top of the page, outside yew's tree,
//! with the message and a reload button. wasm panics abort, so the app cannot go on;
//! the banner says so and keeps the page readable.

/// Installs the hook (once).
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_banner(&info.to_string());
    }));
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
