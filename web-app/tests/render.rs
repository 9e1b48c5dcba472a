//! The yew app rendered into a real document, in headless Chromium
//! (`cargo xtask test`, step `wasm-chromium`). Wasm only: natively there is no DOM.
#![cfg(target_family = "wasm")]

use compiler_core::STAGES;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};
use web_app::App;
use web_sys::{Element, HtmlElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Mounts a fresh `App` into its own element of the test page and waits for the first
/// render (yew renders from its scheduler, not synchronously).
async fn mount() -> Element {
    let document = web_sys::window().unwrap().document().unwrap();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    yew::Renderer::<App>::with_root(root.clone()).render();
    settle(&root, |root| all(root, "li.stage").len() == STAGES.len()).await;
    root
}

/// Yields to the browser until `ready` holds (at most about two seconds).
async fn settle(root: &Element, ready: impl Fn(&Element) -> bool) {
    for _ in 0..200 {
        if ready(root) {
            return;
        }
        yew::platform::time::sleep(Duration::from_millis(10)).await;
    }
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length())
        .map(|i| list.get(i).unwrap().dyn_into::<Element>().unwrap())
        .collect()
}

#[wasm_bindgen_test]
async fn lists_every_stage_in_pipeline_order() {
    let root = mount().await;
    let items = all(&root, "ol.stage-list > li.stage");
    let ids: Vec<String> = items
        .iter()
        .map(|li| li.get_attribute("data-stage-id").unwrap())
        .collect();
    let expected: Vec<&str> = STAGES.iter().map(|s| s.id).collect();
    assert_eq!(ids, expected);

    for (li, info) in items.iter().zip(STAGES.iter()) {
        let text = li.text_content().unwrap();
        assert!(text.contains(info.summary), "{}: summary missing", info.id);
        assert!(text.contains(info.input.name()) && text.contains(info.output.name()));
        if let Some(phase) = info.phase {
            assert!(text.contains(&format!("phase {phase}")), "{}", info.id);
        }
        if let Some(spec) = info.spec {
            assert!(text.contains(spec), "{}: spec page missing", info.id);
        }
    }
}

#[wasm_bindgen_test]
async fn list_and_buttons_have_accessible_names() {
    let root = mount().await;
    let list = root.query_selector("ol.stage-list").unwrap().unwrap();
    let heading_id = list.get_attribute("aria-labelledby").unwrap();
    let heading = root.query_selector(&format!("#{heading_id}")).unwrap();
    assert_eq!(heading.unwrap().text_content().unwrap(), "Pipeline stages");

    for (button, info) in all(&root, "button.stage-select").iter().zip(STAGES.iter()) {
        let name = button.query_selector(".stage-id").unwrap().unwrap();
        assert_eq!(name.text_content().unwrap(), info.id);
        let described_by = button.get_attribute("aria-describedby").unwrap();
        let summary = root.query_selector(&format!("#{described_by}")).unwrap();
        assert_eq!(summary.unwrap().text_content().unwrap(), info.summary);
    }
}

#[wasm_bindgen_test]
async fn clicking_a_stage_highlights_it_alone() {
    let root = mount().await;
    let current = |root: &Element| all(root, "button.stage-select[aria-current='step']");
    assert!(current(&root).is_empty(), "nothing selected before a click");

    for pick in [2, 9] {
        let buttons = all(&root, "button.stage-select");
        buttons[pick].dyn_ref::<HtmlElement>().unwrap().click();
        let id = STAGES[pick].id;
        settle(&root, |root| {
            current(root)
                .first()
                .and_then(|b| b.parent_element())
                .and_then(|li| li.get_attribute("data-stage-id"))
                .as_deref()
                == Some(id)
        })
        .await;

        let selected = current(&root);
        assert_eq!(selected.len(), 1, "exactly one stage highlighted");
        let li = selected[0].parent_element().unwrap();
        assert_eq!(li.get_attribute("data-stage-id").as_deref(), Some(id));
        assert!(li.class_list().contains("selected"));
    }
}
