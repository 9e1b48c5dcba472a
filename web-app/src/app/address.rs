//! The address bar: the link the page opens with (and any pasted later), the link that
//! follows the view, and "Copy link".
//!
//! ```text
//!  mount: location.hash ──share::decode──▶ Action::OpenLink | Action::Start
//!  hashchange ──▶ Action::OpenLink (the event's newURL: the timer below may have
//!               rewritten the address bar since)
//!  the view settles ── ADDRESS_DELAY_MS ──▶ replaceState(#link)   (no history entry)
//!  Copy link ──▶ share::encode_state ──▶ address bar + clipboard ──▶ Action::LinkCopied
//! ```

use crate::state::{Action, AppState};
use compiler_core::share;
use yew::prelude::*;

/// How long the view must stay put before the address bar is rewritten, in ms.
const ADDRESS_DELAY_MS: u32 = 250;
/// Sources longer than this (bytes) are not kept in the address bar as the view moves.
const ADDRESS_SOURCE_LIMIT: usize = 64 * 1024;

/// The link in the address bar, decoded; None when there is none.
fn link_from_location() -> Option<Result<share::Link, share::LinkError>> {
    link_from_url(&web_sys::window()?.location().href().ok()?)
}

/// The link after `#` in `url`, decoded; None when there is none.
fn link_from_url(url: &str) -> Option<Result<share::Link, share::LinkError>> {
    let (_, fragment) = url.split_once('#')?;
    if fragment.trim().is_empty() {
        return None;
    }
    Some(share::decode(fragment))
}

/// The address a `hashchange` went to (its `newURL`): the address bar itself may have
/// been rewritten since by the view's own link (`use_address_follows`' timer), and the
/// link the user opened must win.
fn link_from_hashchange(e: &Event) -> Option<Result<share::Link, share::LinkError>> {
    let url = js_sys::Reflect::get(e.as_ref(), &wasm_bindgen::JsValue::from_str("newURL"))
        .ok()
        .and_then(|v| v.as_string());
    match url {
        Some(url) => link_from_url(&url),
        None => link_from_location(),
    }
}

/// The page's address with `fragment` after `#`, put in the address bar with
/// `history.replaceState` (no new history entry, no `hashchange`). Returns the URL.
#[cfg(target_family = "wasm")]
fn replace_address(fragment: &str) -> Option<String> {
    use wasm_bindgen::JsValue;
    let window = web_sys::window()?;
    let location = window.location();
    let base = format!(
        "{}{}{}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    let url = if fragment.is_empty() {
        base
    } else {
        format!("{base}#{fragment}")
    };
    if location.href().ok().as_deref() != Some(url.as_str()) {
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
        }
    }
    Some(url)
}

#[cfg(not(target_family = "wasm"))]
fn replace_address(_: &str) -> Option<String> {
    None
}

/// Puts the state's link in the address bar and on the clipboard; reports
/// `Action::LinkCopied`.
#[cfg(target_family = "wasm")]
pub fn copy_link(state: &AppState, dispatcher: UseReducerDispatcher<AppState>) {
    let Some(url) = replace_address(&state.link_fragment()) else {
        return;
    };
    let Some(window) = web_sys::window() else {
        return;
    };
    let promise = window.navigator().clipboard().write_text(&url);
    wasm_bindgen_futures::spawn_local(async move {
        let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        dispatcher.dispatch(Action::LinkCopied { url, copied });
    });
}

#[cfg(not(target_family = "wasm"))]
pub fn copy_link(_: &AppState, _: UseReducerDispatcher<AppState>) {}

/// Opens the link the page was opened with, and any the user pastes later.
#[hook]
pub fn use_open_link(dispatcher: UseReducerDispatcher<AppState>) {
    use_effect_with((), move |_| {
        dispatcher.dispatch(match link_from_location() {
            Some(link) => Action::OpenLink(link),
            None => Action::Start,
        });
        let listener = web_sys::window().map(|w| {
            gloo_events::EventListener::new(&w, "hashchange", move |e| {
                if let Some(link) = link_from_hashchange(e) {
                    dispatcher.dispatch(Action::OpenLink(link));
                }
            })
        });
        move || drop(listener)
    });
}

/// The address bar follows the view (replaceState, a moment after the last change, so
/// stepping quickly through a large source does not encode it at every step).
#[hook]
pub fn use_address_follows(state: &UseReducerHandle<AppState>) {
    let fragment_of = state.clone();
    // Not while a run is on its way: the address would name what is being left.
    let settled = !state.run.is_busy();
    let shown = state.summary.as_ref().filter(|_| settled).map(|s| {
        (
            s.run_id,
            state.stage,
            state.step,
            state.layout,
            state.picture_slots(),
        )
    });
    use_effect_with(shown, move |shown| {
        let timer = shown.is_some().then(|| {
            gloo_timers::callback::Timeout::new(ADDRESS_DELAY_MS, move || {
                // A large source is not encoded at every step (deflating 1 MB took 0.3 s
                // of the main thread); the address then holds no link rather than an
                // old one, and Copy link makes one on demand.
                let fragment = if fragment_of.source.len() > ADDRESS_SOURCE_LIMIT {
                    String::new()
                } else {
                    fragment_of.link_fragment()
                };
                replace_address(&fragment);
            })
        });
        move || drop(timer)
    });
}
