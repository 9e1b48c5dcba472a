//! The app's model helpers: plain data and pure functions, no DOM and no yew, each
//! unit-tested natively. `state.rs` (the reducer) builds on them.

pub mod gallery;
pub mod highlight;
pub mod keys;
pub mod layout;
pub mod panes;
pub mod slots;
pub mod text;
pub mod tour;
pub mod tour_target;
