//! Messages above the workspace: a link that could not be read, a copied link, an engine
//! that stopped. Errors are alerts; each message can be dismissed.

use crate::state::{Action, Notice};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NoticeBarProps {
    pub notice: Option<Notice>,
    /// The engine crashed (it restarts by itself).
    pub engine_error: Option<AttrValue>,
    pub on_action: Callback<Action>,
}

#[function_component(NoticeBar)]
pub fn notice_bar(props: &NoticeBarProps) -> Html {
    html! {
        <div class="notices">
            if let Some(n) = &props.notice {
                <div class={classes!("notice", n.error.then_some("error"))}
                    role={if n.error { "alert" } else { "status" }}>
                    <span>{ n.text.clone() }</span>
                    <button type="button" class="button small" aria-label="Dismiss message"
                        onclick={props.on_action.reform(|_| Action::DismissNotice)}>{ "✕" }</button>
                </div>
            }
            if let Some(e) = &props.engine_error {
                <div class="notice error" role="alert">
                    <span>
                        { "The engine stopped: " }
                        <code>{ e.clone() }</code>
                        { " It starts afresh with the next run: change the input or press Run to try again. \
                           The command line runs the same code and names the place it stopped: " }
                        <code>{ "copyscope run" }</code>
                        { " on this input." }
                    </span>
                </div>
            }
        </div>
    }
}
