//! The gallery: every example of `compiler_core::EXAMPLES` with its stage and summary,
//! filtered by a search field. Picking one loads it and shows the stage it is about.

use crate::model::gallery::search;
use crate::state::Action;
use web_sys::{HtmlInputElement, KeyboardEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GalleryProps {
    pub query: AttrValue,
    /// The example the source currently is.
    pub current: Option<&'static str>,
    pub on_action: Callback<Action>,
}

#[function_component(Gallery)]
pub fn gallery(props: &GalleryProps) -> Html {
    let found = search(&props.query);
    let total = compiler_core::examples::EXAMPLES.len();
    let oninput = props.on_action.reform(|e: InputEvent| {
        let el: HtmlInputElement = e.target_unchecked_into();
        Action::SetGalleryQuery(el.value())
    });
    let onkeydown = {
        let first = found.first().map(|e| e.name);
        let on_action = props.on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                if let Some(name) = first {
                    e.prevent_default();
                    on_action.emit(Action::LoadExample(name));
                }
            }
        })
    };
    html! {
        <section class="gallery" aria-labelledby="gallery-heading">
            <div class="panel-toolbar">
                <h2 id="gallery-heading" class="panel-title">{ "Examples" }</h2>
                <input
                    type="search"
                    class="gallery-search"
                    aria-label="Search examples"
                    placeholder="Search: name, stage, topic"
                    value={props.query.clone()}
                    {oninput}
                    {onkeydown}
                />
            </div>
            <p class="gallery-count" aria-live="polite">
                { if found.len() == total { format!("{total} examples") } else { format!("{} of {total} examples", found.len()) } }
            </p>
            <ul class="gallery-list">
                { for found.iter().map(|e| {
                    let name = e.name;
                    let current = props.current == Some(name);
                    html! {
                        <li key={name}>
                            <button
                                type="button"
                                class={classes!("gallery-item", current.then_some("current"))}
                                aria-current={current.then_some("true")}
                                data-example={name}
                                onclick={props.on_action.reform(move |_| Action::LoadExample(name))}
                            >
                                <span class="gallery-name"><code>{ name }</code></span>
                                <span class="stage-badge">{ e.stage.id() }</span>
                                <span class="gallery-summary">{ e.summary() }</span>
                            </button>
                        </li>
                    }
                }) }
            </ul>
            if found.is_empty() {
                <p class="empty">{ "No example matches. Try a stage id such as two-address." }</p>
            }
        </section>
    }
}
