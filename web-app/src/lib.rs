//! CopyScope's browser playground.
//!
//! ```text
//!  main.rs ── mounts ──▶ App (app.rs)
//!                         │ owns AppState through use_reducer (state.rs)
//!                         ▼
//!                      components/  one component per file, props in, callbacks out
//! ```
//!
//! Rules the app keeps as it grows:
//! - The model (`state`) holds plain data and pure transitions; it names no DOM or yew
//!   view types, so it is unit-tested natively.
//! - Components read state through props and report user intent as [`state::Action`]s;
//!   only `App` dispatches.
//! - Pipeline facts (stage ids, formats, spec pages) come from `compiler_core`, never
//!   from copies kept here.

pub mod app;
pub mod components;
pub mod state;

pub use app::App;
