//! The register under the mouse, highlighted everywhere it is drawn: both IR panes and
//! the picture. Every register the page draws carries `data-hreg="%N"` (code tokens in
//! `CodeLine`, tree nodes, live-range rows, fan-out labels); one document listener
//! writes a single CSS rule for the hovered name into a `<style>` element, so lines the
//! panes draw later (they draw only what is in view) are highlighted too.

use std::cell::Cell;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event};

thread_local! {
    static INSTALLED: Cell<bool> = const { Cell::new(false) };
}

/// The CSS that highlights register `name` (empty when none).
pub fn rule(name: Option<&str>) -> String {
    let Some(n) = name.filter(|n| is_reg_name(n)) else {
        return String::new();
    };
    let s = format!("[data-hreg=\"{n}\"]");
    format!(
        "{s} {{ outline: 2px solid var(--focus); outline-offset: 1px; border-radius: 2px; background: var(--mark-changed); }}\n\
         svg {s} circle, svg {s} .row-band, svg rect{s} {{ stroke: var(--focus); stroke-width: 3px; }}\n\
         svg text{s}, svg tspan{s}, svg {s} text {{ fill: var(--focus); font-weight: 700; }}\n"
    )
}

/// `%12`, `%r3`, `%rd4`, `$r1`, `R7`: letters, digits and `%$_.` only (safe inside a
/// quoted attribute selector).
fn is_reg_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() < 40
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || "%$_.".contains(c))
}

/// Installs the document listener once (the components that draw registers call it).
pub fn install() {
    if INSTALLED.with(|i| i.replace(true)) {
        return;
    }
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let style = match doc.get_element_by_id("reg-hover-style") {
        Some(s) => s,
        None => {
            let Ok(s) = doc.create_element("style") else {
                return;
            };
            s.set_id("reg-hover-style");
            if let Some(head) = doc.head() {
                let _ = head.append_child(&s);
            }
            s
        }
    };
    let listener = gloo_events::EventListener::new(&doc, "mouseover", move |e: &Event| {
        let name = e
            .target()
            .and_then(|t| t.dyn_into::<Element>().ok())
            .and_then(|el| el.closest("[data-hreg]").ok().flatten())
            .and_then(|el| el.get_attribute("data-hreg"));
        let css = rule(name.as_deref());
        if style.text_content().unwrap_or_default() != css {
            style.set_text_content(Some(&css));
        }
    });
    listener.forget();
}
