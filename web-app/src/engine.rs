//! The page's handle on the engine (the `web-engine` crate's `copyscope-engine` wasm).
//!
//! ```text
//!  index.html: fetch + compile copyscope-engine_bg.wasm once ─▶ window.copyscopeEngine,
//!              a promise of {glue: the engine's wasm-bindgen JS, module: the compiled wasm}
//!  start(): new module Worker "engine-worker.js" (static/, copied by Trunk)
//!           ── boot: the resolved {glue, module} ──▶ the worker imports the glue and
//!           instantiates the module; its main sees a worker scope and runs
//!           web_engine::worker::start ──Ready──▶
//!  EngineClient::send(Request) ──▶ worker ──postMessage(Response)──▶ on_response callback
//!  restart(): terminate the worker (this is how a run is cancelled) and start a new one
//! ```
//!
//! The page's wasm and the engine's are two files: the UI paints without waiting for
//! the pipeline, and neither carries the other's code. The engine is compiled once; each
//! restarted worker instantiates the same module.
//!
//! Requests sent before the worker says `Ready` wait in a queue. A worker that crashes
//! or fails to load reports `Response::Crashed` and is started afresh for the next
//! request. With the `inline-engine` feature (the Chromium wasm tests, which cannot load
//! a worker script) the same API runs the engine in the page, one request per task, and
//! proves a stage on its first view with the `web-proof` crate linked in.
//!
//! Proofs: the engine's worker finishes a stage's proof in a third wasm (copyscope-proof,
//! loaded by static/engine-worker.js on first use) and then sends the stage's latest
//! `Response::View` again, now carrying `proof`; the page needs nothing more than views.
//! A SelectionDAG's first stage (DAG reader + instr-emitter) likewise runs in a fourth
//! wasm (copyscope-dag) that the worker loads on first use; the page just waits longer.
//! Natively there is no engine (the reducer's tests drive `web_engine` directly).

use web_engine::protocol::{Request, Response};
use yew::Callback;

#[cfg(not(target_family = "wasm"))]
pub use imp::EngineClient;

/// The page's handle on its engine (either wasm build's: the worker's or, with
/// `inline-engine`, the in-page one): clones share the engine, and two handles are equal
/// when they are the same engine.
#[cfg(target_family = "wasm")]
#[derive(Clone)]
pub struct EngineClient(std::rc::Rc<std::cell::RefCell<imp::Inner>>);

#[cfg(target_family = "wasm")]
impl PartialEq for EngineClient {
    fn eq(&self, other: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.0, &other.0)
    }
}

/// The worker's bootstrap script (static/engine-worker.js, copied by Trunk).
pub const WORKER_URL: &str = "./engine-worker.js";

/// The global under which index.html keeps its promise of the compiled engine.
pub const ENGINE_GLOBAL: &str = "copyscopeEngine";

fn crashed(message: String) -> Response {
    Response::Crashed { message }
}

#[cfg(all(target_family = "wasm", not(feature = "inline-engine")))]
mod imp {
    use super::*;
    use std::cell::RefCell;
    use std::rc::{Rc, Weak};
    use wasm_bindgen::prelude::*;
    use wasm_bindgen::JsCast;
    use web_engine::protocol::{decode, encode};
    use web_sys::{ErrorEvent, Event, MessageEvent, Worker, WorkerOptions, WorkerType};

    /// The page script's promise of the compiled engine (index.html sets it).
    fn engine_promise() -> Option<js_sys::Promise> {
        let window = web_sys::window()?;
        js_sys::Reflect::get(&window, &ENGINE_GLOBAL.into())
            .ok()?
            .dyn_into::<js_sys::Promise>()
            .ok()
    }

    /// A message from the worker: postcard bytes, or the plain `{crashed: {message}}`
    /// object engine-worker.js posts when the wasm cannot even load there.
    fn read_response(data: JsValue) -> Response {
        if let Some(bytes) = data.dyn_ref::<js_sys::Uint8Array>() {
            return decode(&bytes.to_vec())
                .unwrap_or_else(|e| crashed(format!("unreadable answer from the engine: {e}")));
        }
        let message = js_sys::Reflect::get(&data, &"crashed".into())
            .and_then(|c| js_sys::Reflect::get(&c, &"message".into()))
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| "unreadable answer from the engine".into());
        crashed(message)
    }

    type Handlers = (Closure<dyn FnMut(MessageEvent)>, Closure<dyn FnMut(Event)>);

    pub(super) struct Inner {
        worker: Option<Worker>,
        ready: bool,
        queue: Vec<Request>,
        on_response: Callback<Response>,
        _handlers: Option<Handlers>,
    }

    impl EngineClient {
        pub fn start(on_response: Callback<Response>) -> EngineClient {
            let client = EngineClient(Rc::new(RefCell::new(Inner {
                worker: None,
                ready: false,
                queue: Vec::new(),
                on_response,
                _handlers: None,
            })));
            client.spawn();
            client
        }

        fn spawn(&self) {
            let started = engine_promise()
                .ok_or_else(|| {
                    JsValue::from_str("the page did not load the engine (window.copyscopeEngine)")
                })
                .and_then(|engine| {
                    let options = WorkerOptions::new();
                    options.set_type(WorkerType::Module);
                    let worker = Worker::new_with_options(WORKER_URL, &options)?;
                    Ok((engine, worker))
                });
            let (engine, worker) = match started {
                Ok(w) => w,
                Err(e) => {
                    let cb = self.0.borrow().on_response.clone();
                    cb.emit(crashed(format!("the engine could not start: {e:?}")));
                    return;
                }
            };
            self.boot(engine, worker.clone());
            let weak: Weak<RefCell<Inner>> = Rc::downgrade(&self.0);
            let on_message = {
                let weak = weak.clone();
                Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
                    let Some(inner) = weak.upgrade() else { return };
                    let response = read_response(event.data());
                    // Short borrows only: the callback may re-enter `send`.
                    let (cb, flush) = {
                        let mut i = inner.borrow_mut();
                        let flush = match response {
                            Response::Ready { .. } => {
                                i.ready = true;
                                std::mem::take(&mut i.queue)
                            }
                            _ => Vec::new(),
                        };
                        (i.on_response.clone(), flush)
                    };
                    let client = EngineClient(inner);
                    for req in flush {
                        client.send(req);
                    }
                    if let Response::Crashed { .. } = response {
                        client.stop();
                    }
                    cb.emit(response);
                })
            };
            let on_error = Closure::<dyn FnMut(Event)>::new(move |event: Event| {
                let Some(inner) = weak.upgrade() else { return };
                event.prevent_default();
                let cb = inner.borrow().on_response.clone();
                EngineClient(inner).stop();
                // A script error is an ErrorEvent; a worker that failed to load is not.
                let message = event
                    .dyn_ref::<ErrorEvent>()
                    .map(ErrorEvent::message)
                    .filter(|m| !m.is_empty())
                    .unwrap_or_else(|| "the engine could not be loaded".into());
                cb.emit(crashed(message));
            });
            worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
            let mut i = self.0.borrow_mut();
            i.worker = Some(worker);
            i.ready = false;
            i._handlers = Some((on_message, on_error));
        }

        /// Sends the worker its boot message once the compiled engine is there. A worker
        /// stopped in the meantime is left alone; a page that could not load the engine
        /// reports why, like a crash.
        fn boot(&self, engine: js_sys::Promise, worker: Worker) {
            let weak = Rc::downgrade(&self.0);
            wasm_bindgen_futures::spawn_local(async move {
                let loaded = wasm_bindgen_futures::JsFuture::from(engine).await;
                let Some(inner) = weak.upgrade() else { return };
                let current = inner.borrow().worker.as_ref() == Some(&worker);
                if !current {
                    return;
                }
                let posted = loaded.and_then(|boot| worker.post_message(&boot));
                if let Err(e) = posted {
                    let cb = inner.borrow().on_response.clone();
                    EngineClient(inner).stop();
                    let why = e
                        .dyn_ref::<js_sys::Error>()
                        .map(|e| String::from(e.message()))
                        .unwrap_or_else(|| format!("{e:?}"));
                    cb.emit(crashed(format!("the engine could not load: {why}")));
                }
            });
        }

        /// Test only: `?fault=<stage id>` in the page's URL asks the engine to break that
        /// stage's output before its proof checks it (`web_engine::proof`).
        fn test_fault() -> Option<String> {
            let search = web_sys::window()?.location().search().ok()?;
            let query = search.trim_start_matches('?');
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix("fault=").map(String::from))
        }

        /// Terminates the worker; the next request starts a new one.
        fn stop(&self) {
            let mut i = self.0.borrow_mut();
            if let Some(w) = i.worker.take() {
                w.set_onmessage(None);
                w.set_onerror(None);
                w.terminate();
            }
            i.ready = false;
            i.queue.clear();
            // Stop may run inside one of these handlers: leak them rather than free a
            // closure that is executing (two small closures per restart).
            if let Some((on_message, on_error)) = i._handlers.take() {
                on_message.forget();
                on_error.forget();
            }
        }

        pub fn send(&self, mut req: Request) {
            if let Request::Run { run, .. } = &mut req {
                run.fault = Self::test_fault();
            }
            if self.0.borrow().worker.is_none() {
                self.spawn();
            }
            let mut i = self.0.borrow_mut();
            if !i.ready {
                i.queue.push(req);
                return;
            }
            let posted = encode(&req).and_then(|bytes| {
                i.worker
                    .as_ref()
                    .ok_or_else(|| "no worker".to_string())?
                    .post_message(&js_sys::Uint8Array::from(bytes.as_slice()))
                    .map_err(|e| format!("{e:?}"))
            });
            if let Err(e) = posted {
                let cb = i.on_response.clone();
                drop(i);
                cb.emit(crashed(format!("could not reach the engine: {e}")));
            }
        }

        /// Stops whatever the engine is doing (a long run) and starts a fresh worker.
        pub fn restart(&self) {
            self.stop();
            self.spawn();
        }
    }
}

#[cfg(all(target_family = "wasm", feature = "inline-engine"))]
mod imp {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;
    use web_engine::Session;

    pub(super) struct Inner {
        session: Option<Session>,
        on_response: Callback<Response>,
        /// Bumped by restart: queued requests of an older generation are dropped.
        generation: u64,
    }

    impl EngineClient {
        pub fn start(on_response: Callback<Response>) -> EngineClient {
            let ready = on_response.clone();
            wasm_bindgen_futures::spawn_local(async move { ready.emit(web_engine::ready()) });
            EngineClient(Rc::new(RefCell::new(Inner {
                session: None,
                on_response,
                generation: 0,
            })))
        }

        pub fn send(&self, req: Request) {
            let inner = self.0.clone();
            let generation = inner.borrow().generation;
            wasm_bindgen_futures::spawn_local(async move {
                yew::platform::time::sleep(std::time::Duration::from_millis(1)).await;
                if inner.borrow().generation != generation {
                    return;
                }
                let cb = inner.borrow().on_response.clone();
                let mut progress = Vec::new();
                let response = {
                    let mut i = inner.borrow_mut();
                    let mut r =
                        web_engine::handle(&mut i.session, req, &mut |p| progress.push(p), &|| {
                            js_sys::Date::now()
                        });
                    if let (Response::View(v), Some(s)) = (&mut r, i.session.as_mut()) {
                        prove_inline(s, v);
                    }
                    r
                };
                for p in progress {
                    cb.emit(Response::Progress(p));
                }
                cb.emit(response);
            });
        }

        pub fn restart(&self) {
            let mut i = self.0.borrow_mut();
            i.session = None;
            i.generation += 1;
        }
    }

    /// The stage's proof, made here on its first view (the worker's proof wasm, linked in).
    fn prove_inline(s: &mut Session, v: &mut web_engine::protocol::StepView) {
        if let Ok(Some(job)) = s.proof_job(v.stage) {
            s.set_proof(v.stage, web_proof::prove(&job));
        }
        if v.proof.is_none() {
            v.proof = s.proof(v.stage).cloned().map(Box::new);
        }
    }

    #[allow(dead_code)]
    fn unused() -> Response {
        crashed(String::new())
    }
}

#[cfg(not(target_family = "wasm"))]
mod imp {
    use super::*;
    use std::rc::Rc;

    /// Natively the page never runs; this keeps the App compiling for native tests.
    #[derive(Clone, PartialEq)]
    pub struct EngineClient(Rc<Callback<Response>>);

    impl EngineClient {
        pub fn start(on_response: Callback<Response>) -> EngineClient {
            EngineClient(Rc::new(on_response))
        }

        pub fn send(&self, req: Request) {
            let _ = req;
            let _ = crashed;
        }

        pub fn restart(&self) {}
    }
}
