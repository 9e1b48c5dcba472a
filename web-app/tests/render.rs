//! The yew app rendered into a real document, in headless Chromium (`cargo xtask test`,
//! step `wasm-chromium`, built with the `inline-engine` feature: the engine runs in the
//! page because a test page has no worker script). Wasm only: natively there is no DOM.
#![cfg(target_family = "wasm")]

use compiler_core::STAGES;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_app::App;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

struct Mounted {
    root: Element,
    handle: Option<yew::AppHandle<App>>,
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            h.destroy();
        }
        self.root.remove();
    }
}

/// Mounts a fresh `App` into its own element and waits until the default example has
/// run (the timeline shows step counts).
async fn mount() -> Mounted {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let handle = yew::Renderer::<App>::with_root(root.clone()).render();
    let m = Mounted {
        root,
        handle: Some(handle),
    };
    settle(&m.root, |r| all(r, "li.stage").len() == STAGES.len()).await;
    settle(&m.root, |r| run_state(r) == "done").await;
    m
}

/// Yields to the browser until `ready` holds (at most about five seconds).
async fn settle(root: &Element, ready: impl Fn(&Element) -> bool) -> bool {
    for _ in 0..500 {
        if ready(root) {
            return true;
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length())
        .map(|i| list.get(i).unwrap().dyn_into::<Element>().unwrap())
        .collect()
}

fn one(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no {selector}"))
}

fn text(root: &Element, selector: &str) -> String {
    root.query_selector(selector)
        .unwrap()
        .and_then(|e| e.text_content())
        .unwrap_or_default()
}

fn run_state(root: &Element) -> String {
    root.query_selector("[data-run-state]")
        .unwrap()
        .and_then(|e| e.get_attribute("data-run-state"))
        .unwrap_or_default()
}

fn click(root: &Element, selector: &str) {
    one(root, selector)
        .dyn_into::<HtmlElement>()
        .unwrap()
        .click();
}

fn button_named(root: &Element, name: &str) -> HtmlElement {
    all(root, "button")
        .into_iter()
        .find(|b| {
            b.get_attribute("aria-label").as_deref() == Some(name)
                || b.text_content().as_deref() == Some(name)
        })
        .unwrap_or_else(|| panic!("no button {name}"))
        .dyn_into::<HtmlElement>()
        .unwrap()
}

#[wasm_bindgen_test]
async fn lists_every_stage_in_pipeline_order_with_step_counts() {
    let m = mount().await;
    let items = all(&m.root, "ol.stage-list > li.stage");
    let ids: Vec<String> = items
        .iter()
        .map(|li| li.get_attribute("data-stage-id").unwrap())
        .collect();
    let expected: Vec<&str> = STAGES.iter().map(|s| s.id).collect();
    assert_eq!(ids, expected);
    for (li, info) in items.iter().zip(STAGES.iter()) {
        let summary = text(li, ".stage-summary");
        assert!(
            summary.contains(info.summary),
            "{}: summary missing",
            info.id
        );
        if let Some(phase) = info.phase {
            assert!(text(li, ".stage-phase").contains(&format!("phase {phase}")));
        }
    }
    let two = one(&m.root, "li.stage[data-stage-id='two-address']");
    assert!(
        text(&two, ".stage-badge").ends_with("steps"),
        "{}",
        text(&two, ".stage-badge")
    );
    // The default example is MIR: the emitter (which reads DAGs) did not run.
    let emitter = one(&m.root, "li.stage[data-stage-id='instr-emitter']");
    assert_eq!(text(&emitter, ".stage-badge"), "not run");
}

#[wasm_bindgen_test]
async fn step_3_of_two_address_names_the_pair_and_marks_the_new_copy() {
    let m = mount().await;
    // The default example is tex-v4f32, shown at two-address.
    let current = one(&m.root, "button.stage-select[aria-current='step']");
    assert_eq!(text(&current, ".stage-id"), "two-address");
    for _ in 0..3 {
        button_named(&m.root, "Next step").click();
        yew::platform::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        settle(&m.root, |r| text(r, ".narration-text")
            .contains("Pair 1 of 4"))
        .await,
        "narration: {}",
        text(&m.root, ".narration-text")
    );
    assert_eq!(
        text(&m.root, ".step-counter"),
        format!("Step 3 of {}", {
            let slider: HtmlInputElement = one(&m.root, ".step-slider").dyn_into().unwrap();
            slider.max()
        })
    );
    let inserted = all(&m.root, ".ir-after .code-line.mark-inserted");
    assert_eq!(inserted.len(), 1);
    assert!(inserted[0].text_content().unwrap().contains("COPY"));
    // The picture panel lists the payload.
    assert!(text(&m.root, ".payload-table").contains("extract_subreg_pair"));
}

#[wasm_bindgen_test]
async fn a_malformed_source_marks_its_line_and_the_page_keeps_working() {
    let m = mount().await;
    let area: HtmlTextAreaElement = one(&m.root, "textarea.editor-input").dyn_into().unwrap();
    let bad = "---\nname: k\nbody: |\n  bb.0:\n    %0:b32 = MOV_B32_i 1\n    %1:b32 = ADD32rr %0, ,\n    Return\n...\n";
    area.set_value(bad);
    area.dispatch_event(&web_sys::InputEvent::new("input").unwrap())
        .unwrap();
    assert!(settle(&m.root, |r| run_state(r) == "failed").await);
    let marked: Vec<String> = all(&m.root, ".gutter-line.has-error")
        .iter()
        .map(|e| e.text_content().unwrap())
        .collect();
    assert_eq!(marked, ["6"]);
    assert!(text(&m.root, "#source-errors").contains("Line 6, column"));
    assert_eq!(area.get_attribute("aria-invalid").as_deref(), Some("true"));
    // Still working: pick an example from the gallery.
    click(&m.root, "#gallery-tab");
    assert!(
        settle(&m.root, |r| r
            .query_selector("[data-example='commute']")
            .unwrap()
            .is_some())
        .await
    );
    click(&m.root, "[data-example='commute']");
    assert!(settle(&m.root, |r| run_state(r) == "done").await);
    assert!(all(&m.root, ".gutter-line.has-error").is_empty());
}

#[wasm_bindgen_test]
async fn a_bad_knob_value_shows_an_error_and_keeps_the_old_value() {
    let m = mount().await;
    click(&m.root, "#knobs-tab");
    assert!(
        settle(&m.root, |r| r
            .query_selector("#knob-copy-limit")
            .unwrap()
            .is_some())
        .await
    );
    let field: HtmlInputElement = one(&m.root, "#knob-copy-limit").dyn_into().unwrap();
    field.set_value("lots");
    field
        .dispatch_event(&web_sys::InputEvent::new("input").unwrap())
        .unwrap();
    assert!(
        settle(&m.root, |r| r
            .query_selector("#knob-copy-limit-error")
            .unwrap()
            .is_some())
        .await
    );
    assert!(text(&m.root, "#knob-copy-limit-error").contains("unlimited"));
    assert_eq!(field.get_attribute("aria-invalid").as_deref(), Some("true"));
    // Every control in the panel has a label.
    for input in all(&m.root, ".knobs input, .knobs select") {
        let id = input.id();
        assert!(
            m.root
                .query_selector(&format!("label[for='{id}']"))
                .unwrap()
                .is_some(),
            "{id} has no label"
        );
    }
}

#[wasm_bindgen_test]
async fn controls_have_accessible_names() {
    let m = mount().await;
    for b in all(&m.root, "button") {
        let name = b
            .get_attribute("aria-label")
            .or(b.text_content())
            .unwrap_or_default();
        assert!(
            !name.trim().is_empty(),
            "a button without a name: {}",
            b.outer_html()
        );
    }
    for input in all(&m.root, "input, select, textarea") {
        let labelled = input.get_attribute("aria-label").is_some()
            || input.closest("label").unwrap().is_some()
            || m.root
                .query_selector(&format!("label[for='{}']", input.id()))
                .unwrap()
                .is_some();
        assert!(labelled, "unlabelled: {}", input.outer_html());
    }
}

#[wasm_bindgen_test]
async fn the_panic_banner_replaces_a_dead_page() {
    web_app::panic::show_banner("test panic: something went wrong");
    let document = web_sys::window().unwrap().document().unwrap();
    let banner = document
        .get_element_by_id(web_app::panic::BANNER_ID)
        .unwrap();
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    assert!(banner
        .text_content()
        .unwrap()
        .contains("something went wrong"));
    assert!(banner.query_selector("button").unwrap().is_some());
    banner.remove();
}
