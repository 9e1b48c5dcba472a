//! View components, one per file. Each takes its data as props and reports user intent
//! through callbacks; none owns application state.

mod stage_item;
mod stage_list;

pub use stage_item::{StageItem, StageItemProps};
pub use stage_list::{StageList, StageListProps};
