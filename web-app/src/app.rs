//! `App`: owns the state (through `use_reducer`), hooks it to the engine and to the
//! address bar, and lays out the page's three parts.
//!
//! ```text
//!  App ── use_reducer(AppState) ─┬─ use_open_link      (address.rs: mount, hashchange)
//!                                ├─ use_engine         (use_engine.rs: requests, answers)
//!                                ├─ use_address_follows (address.rs: replaceState)
//!                                └─ layout:  skip link
//!                                            Header    (header.rs: status, link, layout, tour)
//!                                            Playback  (playback.rs: timeline, steps; timers)
//!                                            Workspace (workspace.rs: input, stage view,
//!                                                       pictures / side by side)
//! ```
//!
//! The three parts take the state as a [`StateRef`] (equal when it is the same state)
//! and report user intent through one stable `on_action` callback.

mod address;
mod header;
mod playback;
mod workspace;

use crate::state::{Action, AppState};
use crate::use_engine::use_engine;
use header::Header;
use playback::Playback;
use std::ops::Deref;
use workspace::Workspace;
use yew::prelude::*;

/// The state handed to the page's parts: compared by identity (each action makes a new
/// state), not field by field.
#[derive(Clone)]
pub struct StateRef(pub UseReducerHandle<AppState>);

impl PartialEq for StateRef {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq::<AppState>(&*self.0, &*other.0)
    }
}

impl Deref for StateRef {
    type Target = AppState;
    fn deref(&self) -> &AppState {
        &self.0
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::default);
    address::use_open_link(state.dispatcher());
    use_engine(&state);
    address::use_address_follows(&state);

    // A stable callback: components whose data did not change then skip re-rendering
    // (the editor holding a 20 000-line text must not redraw on every progress message).
    let on_action = {
        let dispatcher = state.dispatcher();
        (*use_memo((), move |_| {
            Callback::from(move |action: Action| dispatcher.dispatch(action))
        }))
        .clone()
    };
    // The skip link moves focus itself: following `#step-controls` would change the
    // address bar's fragment, which holds the permalink.
    let skip_to_steps = Callback::from(|e: MouseEvent| {
        e.prevent_default();
        let target = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("step-controls"))
            .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok());
        if let Some(el) = target {
            let _ = el.focus();
        }
    });
    let layout = state.layout;
    let state = StateRef(state);
    html! {
        <div class={classes!("app", format!("layout-{}", layout.id()))}>
            <a class="skip-link" href="#step-controls" onclick={skip_to_steps}>{ "Skip to the step controls" }</a>
            <Header state={state.clone()} on_action={on_action.clone()} />
            <Playback state={state.clone()} on_action={on_action.clone()} />
            <Workspace {state} {on_action} />
        </div>
    }
}
