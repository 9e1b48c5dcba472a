//! The page's header: brand, run status, the link bar, the layout picker, the tour offer
//! and the keys help.

use super::address::copy_link;
use super::StateRef;
use crate::components::*;
use crate::model::keys::HELP;
use crate::model::layout::Layout;
use crate::state::Action;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    pub state: StateRef,
    pub on_action: Callback<Action>,
}

#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    let HeaderProps { state, on_action } = props;
    let on_copy = {
        let state = state.clone();
        Callback::from(move |()| copy_link(&state, state.0.dispatcher()))
    };
    let on_layout = on_action.reform(|e: Event| {
        let el: HtmlSelectElement = e.target_unchecked_into();
        Action::SetLayout(Layout::from_id(&el.value()))
    });
    let s = &**state;
    html! {
        <header class="app-header">
            <div class="brand">
                <h1>{ "CopyScope" }</h1>
                <p class="tagline">{ "The life of a register copy, step by step." }</p>
            </div>
            <RunStatus run={s.run.clone()} on_action={on_action.clone()} />
            <LinkBar link={s.link.clone().map(AttrValue::from)} on_action={on_action.clone()} {on_copy} />
            <label class="inline-field">
                { "Layout " }
                <select onchange={on_layout}>
                    { for Layout::ALL.iter().map(|l| html! {
                        <option value={l.id()} selected={*l == s.layout}>{ l.label() }</option>
                    }) }
                </select>
            </label>
            <TourOffer example={s.example} running={s.tour.is_some()} on_action={on_action.clone()} />
            <details class="keys-help">
                <summary>{ "Keys" }</summary>
                <dl>
                    { for HELP.iter().map(|(k, what)| html! { <><dt>{ *k }</dt><dd>{ *what }</dd></> }) }
                </dl>
            </details>
        </header>
    }
}
