//! Models of the pass pictures: plain data computed from a stage's steps, which the page
//! draws as SVG (issue 10). Free of UI, tested natively.
//!
//! | file | what |
//! |---|---|
//! | `tree.rs` | `ReplayTree`: the NVPTX coalescer's red-black interval tree rebuilt from its events |
//! | `coalesce.rs` | `CoalescePicture`: live-range bars, the laid-out tree, heaps, the verdict |

pub mod coalesce;
pub mod tree;
