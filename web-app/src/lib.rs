//! CopyScope's browser playground.
//!
//! ```text
//!  main.rs ── panic hook (panic.rs: banner) ── mounts ──▶ App (app.rs)
//!                                  │ owns AppState (state.rs) via use_reducer
//!                                  │ use_engine (use_engine.rs) owns the EngineClient (engine.rs)
//!                                  ▼
//!               app/: Header, Playback, Workspace (the state in, Actions out)
//!               components/  one component per file, props in, Actions out
//!  engine.rs ── Request ──▶ Web Worker (web-engine crate) ── Response ──▶ Action ──▶ App
//! ```
//!
//! Rules the app keeps as it grows:
//! - The model (`state`, `model/`) holds plain data and pure transitions; it names no DOM
//!   or yew view types, so it is unit-tested natively.
//! - Components read state through props and report user intent as [`state::Action`]s;
//!   only `App`, its parts (`app/`) and the `use_engine` hook dispatch, and only
//!   `use_engine` talks to the engine.
//! - Pipeline facts (stage ids, formats, knobs, examples) come from `compiler_core`,
//!   never from copies kept here; the pipeline itself runs in the engine, off the main
//!   thread.

pub mod app;
pub mod components;
pub mod engine;
pub mod model;
pub mod panic;
pub mod state;
pub mod use_engine;

pub use app::App;
