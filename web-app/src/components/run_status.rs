//! Where the engine is: queued, running (a progress bar with the stage it is in, and
//! Cancel), done (how long it took; after a large input, the engine's memory too),
//! failed or cancelled. `data-run-state` names the
//! state for tests and styles.

use crate::state::{Action, RunState};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RunStatusProps {
    pub run: RunState,
    pub on_action: Callback<Action>,
}

#[function_component(RunStatus)]
pub fn run_status(props: &RunStatusProps) -> Html {
    let (state, body) = match &props.run {
        RunState::Idle => ("idle", html! { "Not run yet" }),
        RunState::Queued { .. } => ("queued", html! { "Waiting to run…" }),
        RunState::Running { progress, .. } => {
            let (done, total, label) = match progress {
                Some(p) => (p.done, p.total, p.label.clone()),
                None => (0, 0, "starting the engine".into()),
            };
            let bar = if total > 0 {
                html! { <progress aria-label="Pipeline progress" max={total.to_string()} value={done.to_string()}></progress> }
            } else {
                html! { <progress aria-label="Pipeline progress"></progress> }
            };
            (
                "running",
                html! {
                    <>
                        { bar }
                        <span class="run-label">{ format!("Running: {label}") }</span>
                        <button type="button" class="button small"
                            onclick={props.on_action.reform(|_| Action::CancelRun)}>{ "Cancel" }</button>
                    </>
                },
            )
        }
        RunState::Done {
            elapsed_ms,
            memory_bytes,
            ..
        } => (
            "done",
            html! {
                <>
                    <span class="ok">{ format!("Ran in {elapsed_ms:.0} ms") }</span>
                    { memory_note(*memory_bytes) }
                </>
            },
        ),
        RunState::Failed { .. } => (
            "failed",
            html! { <span class="bad">{ "Run failed" }</span> },
        ),
        RunState::Cancelled { .. } => (
            "cancelled",
            html! {
                <>
                    <span>{ "Cancelled" }</span>
                    <button type="button" class="button small"
                        onclick={props.on_action.reform(|_| Action::RunNow)}>{ "Run" }</button>
                </>
            },
        ),
    };
    html! {
        <div class="run-status" role="status" data-run-state={state}>{ body }</div>
    }
}

/// The engine's wasm memory from this size on is shown beside "Ran in": a small input
/// leaves the engine near its start-up size, which says nothing worth a glance.
pub const MEMORY_SHOWN_FROM: u64 = 64 << 20;

/// "· engine memory 212 MB" once the engine holds [`MEMORY_SHOWN_FROM`] or more.
fn memory_note(bytes: u64) -> Html {
    if bytes < MEMORY_SHOWN_FROM {
        return html! {};
    }
    let mb = bytes as f64 / 1e6;
    html! {
        <span class="run-memory" title="The engine's wasm memory: what its Web Worker holds for this run (wasm memory never shrinks, so this is the most it has held)">
            { format!(" · engine memory {mb:.0} MB") }
        </span>
    }
}
