//! "Copy link": makes a permalink of the whole view (source, format, knobs, stage, step,
//! layout), puts it in the address bar and on the clipboard, and shows it in a read-only
//! field so it can be copied by hand when the clipboard is refused.

use crate::state::Action;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LinkBarProps {
    pub link: Option<AttrValue>,
    pub on_action: Callback<Action>,
    /// Called when the user asks for a link (App makes it: it needs the browser).
    pub on_copy: Callback<()>,
}

#[function_component(LinkBar)]
pub fn link_bar(props: &LinkBarProps) -> Html {
    let select_all = Callback::from(|e: FocusEvent| {
        let el: HtmlInputElement = e.target_unchecked_into();
        el.select();
    });
    html! {
        <div class="link-bar">
            <button type="button" class="button primary" onclick={props.on_copy.reform(|_| ())}>
                { "Copy link" }
            </button>
            if let Some(link) = &props.link {
                <input
                    type="text"
                    class="link-field"
                    readonly=true
                    aria-label="Link to this view"
                    value={link.clone()}
                    onfocus={select_all}
                />
            }
        </div>
    }
}
