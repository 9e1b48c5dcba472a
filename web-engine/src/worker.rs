//! The Web Worker's message loop (wasm only).
//!
//! ```text
//!  start(): in a DedicatedWorkerGlobalScope only (static/engine-worker.js loads the
//!           page's wasm there; its main calls this)
//!    panic hook ── posts Response::Crashed, then logs to the console
//!    onmessage  ── Request (postcard bytes) ──▶ crate::handle ──▶ postMessage(Response bytes)
//!    posts Response::Ready once listening
//!  a View whose stage has no proof yet ──▶ Session::proof_job ──▶ copyscopeProve(job bytes)
//!    (static/engine-worker.js: loads the proof wasm, copyscope-proof, on first use)
//!    ──▶ Result<Proof, String> bytes ──▶ Session::set_proof ──▶ the stage's last View again
//! ```
//!
//! The proof's interpreters live in their own wasm (the `web-proof` crate), loaded the
//! first time a stage's proof is wanted, after its view is shown: a stage's first view
//! comes without a proof, and once the proof is made the worker posts the latest view
//! of that stage again, now carrying it (so do later views; the page changes nothing).
//!
//! A DAG input (the engine built without the `dag` feature) first goes to the DAG wasm
//! (`copyscope-dag`, loaded on first use by static/lazy-wasm.js): `ask_front` posts
//! the job, and when the front comes back the run goes on as below (crate::dag_front).
//!
//! A run is otherwise one synchronous call; progress messages are posted from inside it and reach
//! the page while the run goes on. Cancelling is the page's job: it terminates this
//! worker and starts a fresh one.

use crate::proof::{Proof, Status};
use crate::protocol::{decode, encode, Progress, Request, Response, RunRequest};
use crate::Session;
use compiler_core::PipelineError;
use compiler_core::Stage;
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

thread_local! {
    /// The id of the last run asked for: a DAG wasm's answer for an older run is dropped.
    static LATEST_RUN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
    /// The step of each stage viewed last (run id, stage, step), to post again with its
    /// proof.
    static LAST_VIEWS: RefCell<Vec<(u64, Stage, u32)>> = const { RefCell::new(Vec::new()) };
}

#[wasm_bindgen]
extern "C" {
    /// static/engine-worker.js: the proof wasm's `prove` on a job (postcard bytes),
    /// loading that wasm first if need be; resolves to `Result<Proof, String>` bytes.
    #[wasm_bindgen(js_name = copyscopeProve, catch)]
    fn copyscope_prove(job: &js_sys::Uint8Array) -> Result<js_sys::Promise, JsValue>;
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
    // Under the release site's `-Cpanic=immediate-abort` no hook runs: a panic traps,
    // and the page hears of it through the worker's error event (web-app's engine.rs).
    #[cfg(not(panic = "immediate-abort"))]
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
        // The body is a function of its own: the closure is called through two shims
        // (FnMut and FnOnce), and each would otherwise hold a copy of it.
        Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
            on_message(&scope, event)
        })
    };
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    post(&scope, &crate::ready());
}

/// One message from the page: a request (postcard bytes), answered with a response.
#[inline(never)]
fn on_message(scope: &DedicatedWorkerGlobalScope, event: MessageEvent) {
    let bytes = event
        .data()
        .dyn_into::<js_sys::Uint8Array>()
        .map(|a| a.to_vec())
        .map_err(|_| "not a byte array".to_string());
    let request: Request = match bytes.and_then(|b| decode(&b)) {
        Ok(r) => r,
        Err(e) => {
            post(
                scope,
                &Response::Crashed {
                    message: format!("the engine got a message it cannot read: {e}"),
                },
            );
            return;
        }
    };
    if let Request::View {
        run_id,
        stage,
        step,
    } = request
    {
        remember_view(run_id, stage, step);
    }
    if let Request::Run { id, run } = &request {
        LATEST_RUN.with(|l| l.set(*id));
        if !cfg!(feature = "dag") && needs_dag(run) {
            ask_front(scope, *id, run.clone());
            return;
        }
    }
    let response = SESSION.with(|cell| {
        let mut session = cell.borrow_mut();
        let progress_scope = scope.clone();
        let mut progress = move |p| post(&progress_scope, &Response::Progress(p));
        crate::handle(&mut session, request, &mut progress, &now_ms)
    });
    post(scope, &response);
    if let Response::View(v) = &response {
        if v.proof.is_none() {
            ask_proof(v.run_id, v.stage);
        }
    }
}

/// The run's source is a DAG (named or detected): its first stage runs in the DAG wasm.
fn needs_dag(run: &RunRequest) -> bool {
    let format = run
        .format
        .as_deref()
        .and_then(compiler_core::InputFormat::parse);
    crate::dag_front::is_dag(&run.source, format)
}

/// Runs a DAG input: hands it to the DAG wasm (static/lazy-wasm.js loads it on first
/// use), then runs the other stages on what comes back and posts the answer.
fn ask_front(scope: &DedicatedWorkerGlobalScope, id: u64, run: RunRequest) {
    let progress = |label: &str| Progress {
        run_id: id,
        done: 0,
        total: 0,
        label: label.into(),
    };
    post(scope, &Response::Progress(progress("reading the DAG")));
    let job = crate::dag_front::DagJob {
        source: run.source.clone(),
        knobs: run.knobs.clone(),
        verify: run.verify,
    };
    let finish = move |front| {
        let Some(scope) = worker_scope().filter(|_| LATEST_RUN.with(|l| l.get()) == id) else {
            return;
        };
        let response = SESSION.with(|cell| {
            let progress_scope = scope.clone();
            let mut progress = move |p| post(&progress_scope, &Response::Progress(p));
            let session = &mut cell.borrow_mut();
            crate::run_request(session, id, &run, Some(front), &mut progress, &now_ms)
        });
        post(&scope, &response);
    };
    let failed = {
        let finish = finish.clone();
        move |why: String| {
            let why = format!("the DAG input path (copyscope-dag) failed: {why}");
            finish(Err(PipelineError::StageFailed {
                stage: compiler_core::Stage::InstrEmitter,
                message: why,
            }))
        }
    };
    match crate::dag_front::emit(&job) {
        Ok(p) => {
            let on_error = failed.clone();
            let ok =
                Closure::<dyn FnMut(JsValue)>::once(move |bytes: JsValue| match bytes
                    .dyn_into::<js_sys::Uint8Array>(
                ) {
                    Ok(a) => finish(Ok(a.to_vec())),
                    Err(_) => on_error("its answer is not bytes".into()),
                });
            let err = Closure::<dyn FnMut(JsValue)>::once(move |e: JsValue| failed(message(&e)));
            let _ = p.then2(&ok, &err);
            // Each runs at most once; the other is left (two small closures per DAG run).
            ok.forget();
            err.forget();
        }
        Err(e) => failed(message(&e)),
    }
}

fn remember_view(run_id: u64, stage: Stage, step: u32) {
    LAST_VIEWS.with(|l| {
        let mut l = l.borrow_mut();
        l.retain(|&(r, s, _)| r == run_id && s != stage);
        l.push((run_id, stage, step));
    });
}

/// Hands the stage's proof job (if it has not been handed out yet) to the proof wasm.
fn ask_proof(run_id: u64, stage: Stage) {
    let job = SESSION.with(|cell| {
        let mut session = cell.borrow_mut();
        let s = session.as_mut().filter(|s| s.run_id() == run_id)?;
        s.proof_job(stage).ok().flatten()
    });
    let Some(job) = job else { return };
    let answered = move |proof: Proof| proof_made(run_id, proof);
    let failed = job.proof.clone();
    let promise = encode(&job)
        .map_err(JsValue::from)
        .and_then(|bytes| copyscope_prove(&js_sys::Uint8Array::from(bytes.as_slice())));
    let on_error = move |why: String| proof_made(run_id, not_checked(failed, why));
    match promise {
        Ok(p) => {
            let failed = on_error.clone();
            let ok = Closure::<dyn FnMut(JsValue)>::once(move |bytes: JsValue| {
                let bytes = bytes
                    .dyn_into::<js_sys::Uint8Array>()
                    .map(|a| a.to_vec())
                    .unwrap_or_default();
                match decode::<Result<Proof, String>>(&bytes) {
                    Ok(Ok(proof)) => answered(proof),
                    Ok(Err(why)) | Err(why) => failed(why),
                }
            });
            let err = Closure::<dyn FnMut(JsValue)>::once(move |e: JsValue| on_error(message(&e)));
            let _ = p.then2(&ok, &err);
            // Each runs at most once; the other is left (two small closures per stage).
            ok.forget();
            err.forget();
        }
        Err(e) => on_error(message(&e)),
    }
}

/// A JS error's message (or the value, printed).
fn message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The job's proof when the proof wasm could not finish it: the engine's verifier
/// verdict stands, the interpreter's says why it did not run.
fn not_checked(mut p: Proof, why: String) -> Proof {
    p.interpreter = crate::proof::verdict(
        Status::Unknown,
        "the interpreters could not run in the page".into(),
        vec![format!("the proof checker (copyscope-proof) failed: {why}")],
    );
    p
}

/// Keeps a finished proof and posts the stage's last view again, now with it.
fn proof_made(run_id: u64, proof: Proof) {
    let stage = proof.stage;
    let kept = SESSION.with(|cell| {
        let mut session = cell.borrow_mut();
        let s = session.as_mut().filter(|s| s.run_id() == run_id)?;
        s.set_proof(stage, proof);
        Some(())
    });
    let step = LAST_VIEWS.with(|l| {
        (l.borrow().iter())
            .find(|&&(r, s, _)| r == run_id && s == stage)
            .map(|&(_, _, step)| step)
    });
    let (Some(()), Some(step), Some(scope)) = (kept, step, worker_scope()) else {
        return;
    };
    let request = Request::View {
        run_id,
        stage,
        step,
    };
    let response =
        SESSION.with(|cell| crate::handle(&mut cell.borrow_mut(), request, &mut |_| {}, &now_ms));
    post(&scope, &response);
}
