//! The Web Worker's message loop (wasm only).
//!
//! ```text
//!  start(): in a DedicatedWorkerGlobalScope only (static/engine-worker.js loads the
//!           page's wasm there; its main calls this)
//!    panic hook ── posts Response::Crashed, then logs to the console
//!    onmessage  ── Request (postcard bytes) ──▶ crate::handle ──▶ postMessage(Response bytes)
//!    posts Response::Ready once listening
//! ```
//!
//! A run is one synchronous call; progress messages are posted from inside it and reach
//! the page while the run goes on. Cancelling is the page's job: it terminates this
//! worker and starts a fresh one.

use crate::protocol::{decode, encode, Request, Response};
use crate::Session;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

fn worker_scope() -> Option<DedicatedWorkerGlobalScope> {
    js_sys::global()
        .dyn_into::<DedicatedWorkerGlobalScope>()
        .ok()
}

/// Posts a response to the page as postcard bytes; a response that cannot be encoded is
/// reported as a crash so the page never waits forever.
fn post(scope: &DedicatedWorkerGlobalScope, response: &Response) {
    let bytes = encode(response).or_else(|e| {
        encode(&Response::Crashed {
            message: format!("the engine could not send its answer: {e}"),
        })
    });
    if let Ok(bytes) = bytes {
        let _ = scope.post_message(&js_sys::Uint8Array::from(bytes.as_slice()));
    }
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// True when this code runs in a dedicated Web Worker.
pub fn in_worker() -> bool {
    worker_scope().is_some()
}

/// Starts the loop when running in a worker; does nothing in a page.
pub fn start() {
    let Some(scope) = worker_scope() else {
        return;
    };
    std::panic::set_hook(Box::new(|info| {
        if let Some(scope) = worker_scope() {
            post(
                &scope,
                &Response::Crashed {
                    message: info.to_string(),
                },
            );
        }
        console_error_panic_hook::hook(info);
    }));
    let handler = {
        let scope = scope.clone();
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            let bytes = event
                .data()
                .dyn_into::<js_sys::Uint8Array>()
                .map(|a| a.to_vec())
                .map_err(|_| "not a byte array".to_string());
            let request: Request = match bytes.and_then(|b| decode(&b)) {
                Ok(r) => r,
                Err(e) => {
                    post(
                        &scope,
                        &Response::Crashed {
                            message: format!("the engine got a message it cannot read: {e}"),
                        },
                    );
                    return;
                }
            };
            let response = SESSION.with(|cell| {
                let mut session = cell.borrow_mut();
                let progress_scope = scope.clone();
                let mut progress = move |p| post(&progress_scope, &Response::Progress(p));
                crate::handle(&mut session, request, &mut progress, &now_ms)
            });
            post(&scope, &response);
        })
    };
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    post(&scope, &crate::ready());
}
