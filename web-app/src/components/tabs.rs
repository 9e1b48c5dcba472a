//! A tab list (the ARIA tabs pattern): buttons with `role="tab"`, the selected one in the
//! tab order, left and right arrows to move between them. The panels are the caller's,
//! with id `{id}-panel` and `aria-labelledby` the tab's id `{id}-tab`; `all_panels` says
//! whether every panel is in the page (then every tab names its panel) or only the
//! selected one.

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, KeyboardEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TabsProps {
    /// The tab list's accessible name.
    pub label: AttrValue,
    /// (id, title) of each tab.
    pub tabs: Vec<(&'static str, AttrValue)>,
    pub selected: &'static str,
    pub on_select: Callback<&'static str>,
    #[prop_or_default]
    pub all_panels: bool,
}

#[function_component(Tabs)]
pub fn tabs(props: &TabsProps) -> Html {
    let ids: Vec<&'static str> = props.tabs.iter().map(|t| t.0).collect();
    let onkeydown = {
        let on_select = props.on_select.clone();
        let selected = props.selected;
        Callback::from(move |e: KeyboardEvent| {
            let at = ids.iter().position(|&i| i == selected).unwrap_or(0);
            let next = match e.key().as_str() {
                "ArrowRight" => (at + 1) % ids.len(),
                "ArrowLeft" => (at + ids.len() - 1) % ids.len(),
                "Home" => 0,
                "End" => ids.len() - 1,
                _ => return,
            };
            e.prevent_default();
            on_select.emit(ids[next]);
            // Move focus with the selection.
            let tab = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id(&format!("{}-tab", ids[next])))
                .and_then(|el| el.dyn_into::<HtmlElement>().ok());
            if let Some(tab) = tab {
                let _ = tab.focus();
            }
        })
    };
    html! {
        <div class="tabs" role="tablist" aria-label={props.label.clone()} {onkeydown}>
            { for props.tabs.iter().map(|(id, title)| {
                let id = *id;
                let selected = id == props.selected;
                html! {
                    <button
                        type="button"
                        role="tab"
                        id={format!("{id}-tab")}
                        class={classes!("tab", selected.then_some("selected"))}
                        aria-selected={if selected { "true" } else { "false" }}
                        aria-controls={(selected || props.all_panels).then(|| format!("{id}-panel"))}
                        tabindex={if selected { "0" } else { "-1" }}
                        onclick={props.on_select.reform(move |_| id)}
                    >{ title.clone() }</button>
                }
            }) }
        </div>
    }
}
