//! `use_engine`: the page's one hook on the engine. It starts the [`EngineClient`]
//! (engine.rs: the Web Worker, or the inline engine in the Chromium tests), turns each
//! `Response` into an [`Action`], and sends the requests the state wants.
//!
//! ```text
//!  state.run_wanted()  ── after its delay ──▶ Request::Run,  Action::RunSent
//!  state.view_wanted() ──▶ Request::View      state.diff_wanted() ──▶ Request::Diff
//!  state.side_views_wanted() ──▶ Request::View per side-by-side slot
//!  state.tour_wanted() ──▶ Request::Tour
//!  RunState::Cancelled ──▶ restart (a run cannot be interrupted otherwise), then the run
//!                          on screen again (state.restore_wanted(), same id)
//!  Response ──response_action──▶ dispatch
//! ```

use crate::engine::EngineClient;
use crate::state::{Action, AppState, RunState};
use std::rc::Rc;
use web_engine::protocol::{Request, Response};
use yew::prelude::*;

/// The engine's answer as an action.
pub fn response_action(r: Response) -> Action {
    match r {
        Response::Ready { implemented } => Action::EngineReady(implemented),
        Response::Progress(p) => Action::RunProgress(p),
        Response::RunDone(s) => Action::RunDone(Rc::new(s)),
        Response::RunFailed(f) => Action::RunFailed(Rc::new(f)),
        Response::View(v) => Action::ViewArrived(Rc::new(*v)),
        Response::Diff(d) => Action::DiffArrived(Rc::new(d)),
        Response::ViewFailed {
            run_id,
            stage,
            step,
            message,
        } => Action::ViewFailed {
            run_id,
            stage,
            step,
            message,
        },
        Response::Tour(plan) => Action::TourArrived(Rc::new(plan)),
        Response::TourFailed {
            run_id,
            example,
            message,
        } => Action::TourFailed {
            run_id,
            example,
            message,
        },
        Response::Crashed { message } => Action::EngineCrashed(message),
    }
}

/// Starts the engine once and keeps it answering what `state` wants.
#[hook]
pub fn use_engine(state: &UseReducerHandle<AppState>) -> EngineClient {
    let engine = {
        let dispatcher = state.dispatcher();
        (*use_memo((), move |_| {
            EngineClient::start(Callback::from(move |r: Response| {
                dispatcher.dispatch(response_action(r))
            }))
        }))
        .clone()
    };
    use_run_request(&engine, state);
    {
        let engine = engine.clone();
        use_effect_with(state.view_wanted(), move |wanted| {
            if let Some((run_id, stage, step)) = *wanted {
                engine.send(Request::View {
                    run_id,
                    stage,
                    step,
                });
            }
        });
    }
    {
        let engine = engine.clone();
        use_effect_with(state.diff_wanted(), move |wanted| {
            if let Some((run_id, stage, from, to)) = *wanted {
                engine.send(Request::Diff {
                    run_id,
                    stage,
                    from,
                    to,
                });
            }
        });
    }
    {
        let engine = engine.clone();
        use_effect_with(state.side_views_wanted(), move |wanted| {
            for &(run_id, stage, step) in wanted {
                engine.send(Request::View {
                    run_id,
                    stage,
                    step,
                });
            }
        });
    }
    {
        let engine = engine.clone();
        use_effect_with(state.tour_wanted(), move |wanted| {
            if let Some((run_id, example)) = *wanted {
                engine.send(Request::Tour {
                    run_id,
                    example: example.into(),
                });
            }
        });
    }
    use_restart_on_cancel(&engine, state);
    engine
}

/// A queued run goes to the engine after its delay (typing restarts the delay).
#[hook]
fn use_run_request(engine: &EngineClient, state: &UseReducerHandle<AppState>) {
    let engine = engine.clone();
    let dispatcher = state.dispatcher();
    let wanted = state.run_wanted();
    let id = wanted.as_ref().map(|w| w.0);
    use_effect_with(id, move |_| {
        let timer = wanted.map(|(id, delay, run)| {
            gloo_timers::callback::Timeout::new(delay, move || {
                engine.send(Request::Run { id, run });
                dispatcher.dispatch(Action::RunSent(id));
            })
        });
        move || drop(timer)
    });
}

/// Cancelling: the engine cannot interrupt a run, so the worker is restarted, and the
/// run whose results stay on screen is sent to it again (same id) so that its steps keep
/// answering.
#[hook]
fn use_restart_on_cancel(engine: &EngineClient, state: &UseReducerHandle<AppState>) {
    let engine = engine.clone();
    let cancelled = match state.run {
        RunState::Cancelled { id } => Some(id),
        _ => None,
    };
    let restore = state.restore_wanted();
    use_effect_with(cancelled, move |cancelled| {
        if cancelled.is_some() {
            engine.restart();
            if let Some((id, run)) = restore {
                engine.send(Request::Run { id, run });
            }
        }
    });
}
