//! CopyScope's engine for the browser: everything that runs the pipeline and turns a
//! trace into what the playground shows, kept off the page's main thread.
//!
//! ```text
//!  page (web-app, yew) ──Request──▶ Web Worker (the engine's own wasm, bin/copyscope-engine.rs:
//!                      ◀─Response──  its main sees a worker scope and calls worker::start)
//!                                          ▼
//!                                  Session (session.rs): run, view(stage, step), diff
//!                                    lines.rs  printed function + line of each instruction
//!                                    diff.rs   line diff with folded context
//!                                    payload.rs a step's payload as table rows
//!                                    pictures/  pass pictures as data (fan-out, GO grid, coalescing)
//!                                    tours.rs   guided tours, resolved against the run
//!                                    proof.rs   verifier + interpreter verdicts per stage
//!  other pages / tests ──▶ js.rs: run(source, options), examples(), stages(), knobs(),
//!                                 encodeLink / decodeLink   (run: bin/copyscope-engine.rs;
//!                                 the rest: the page's web-app/src/main.rs)
//! ```
//!
//! Rules: the library names no DOM type outside `js` and `worker` (both wasm only), so
//! the session, protocol and diff are tested natively; the page and the engine share
//! nothing but [`protocol`].

pub mod dag_front;
pub mod diff;
pub mod lines;
pub mod payload;
pub mod pictures;
pub mod proof;
pub mod protocol;
pub mod ptx_replay;
pub mod session;
pub mod tours;
#[cfg(any(test, target_family = "wasm"))]
mod value;

#[cfg(target_family = "wasm")]
pub mod js;
#[cfg(target_family = "wasm")]
pub mod worker;

pub use protocol::{Request, Response, RunRequest};
pub use session::Session;

/// The engine's greeting: ready, with the stages it can run.
pub fn ready() -> Response {
    Response::Ready {
        implemented: compiler_core::Stage::all().collect(),
    }
}

/// The size of this wasm instance's linear memory in bytes: everything the engine holds
/// (heap, stack, static data). It only grows, so after a run it is the high-water mark
/// so far. 0 outside wasm (natively the figure has no meaning).
pub fn memory_bytes() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size(0) as u64 * 65_536
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// The engine's answer to a run request; for a DAG input, `front` is the DAG wasm's
/// answer ([`Session::run_with`]).
pub fn run_request(
    session: &mut Option<Session>,
    id: u64,
    run: &RunRequest,
    front: Option<Result<Vec<u8>, compiler_core::PipelineError>>,
    progress: &mut dyn FnMut(protocol::Progress),
    now_ms: &dyn Fn() -> f64,
) -> Response {
    *session = None; // free the old run before the new one allocates
    let start = now_ms();
    match Session::run_with(id, run, front, progress) {
        Ok((s, mut summary)) => {
            summary.elapsed_ms = now_ms() - start;
            summary.memory_bytes = memory_bytes();
            *session = Some(s);
            Response::RunDone(summary)
        }
        Err(f) => Response::RunFailed(f),
    }
}

/// The engine's answer to one request, given the current session (replaced by a run).
/// `progress` hears about a run's stages as they start. Used by the worker loop and by
/// the page's in-process engine in tests.
pub fn handle(
    session: &mut Option<Session>,
    req: Request,
    progress: &mut dyn FnMut(protocol::Progress),
    now_ms: &dyn Fn() -> f64,
) -> Response {
    match req {
        Request::Run { id, run } => run_request(session, id, &run, None, progress, now_ms),
        Request::View {
            run_id,
            stage,
            step,
        } => {
            let result = match session.as_mut().filter(|s| s.run_id() == run_id) {
                Some(s) => s.view(stage, step),
                None => Err(format!("run {run_id} is no longer loaded")),
            };
            match result {
                Ok(v) => Response::View(Box::new(v)),
                Err(message) => Response::ViewFailed {
                    run_id,
                    stage,
                    step,
                    message,
                },
            }
        }
        Request::Diff {
            run_id,
            stage,
            from,
            to,
        } => {
            let result = match session.as_mut().filter(|s| s.run_id() == run_id) {
                Some(s) => s.diff(stage, from, to),
                None => Err(format!("run {run_id} is no longer loaded")),
            };
            match result {
                Ok(d) => Response::Diff(d),
                Err(message) => Response::ViewFailed {
                    run_id,
                    stage,
                    step: to,
                    message,
                },
            }
        }
        Request::Tour { run_id, example } => {
            let result = match (
                session.as_mut().filter(|s| s.run_id() == run_id),
                tours::find(&example),
            ) {
                (None, _) => Err(format!("run {run_id} is no longer loaded")),
                (_, None) => Err(format!("example `{example}` has no tour")),
                (Some(s), Some(t)) => tours::resolve(t, run_id, s.result()).map(|mut plan| {
                    tours::aim(s, &mut plan);
                    plan
                }),
            };
            match result {
                Ok(plan) => Response::Tour(plan),
                Err(message) => Response::TourFailed {
                    run_id,
                    example,
                    message,
                },
            }
        }
    }
}
