//! View components, one per file. Each takes its data as props and reports user intent
//! through callbacks (mostly `on_action: Callback<Action>`); none owns application state.
//!
//! ```text
//!  App ─┬─ header: RunStatus, LinkBar, layout select      NoticeBar
//!       ├─ StageList ─ StageItem×14                       StepControls
//!       ├─ left:   Tabs ─ Editor (CodeLine overlay) | Gallery | KnobsPanel ─ KnobField
//!       ├─ centre: Narration, Tabs ─ IrCompare (CodeView×2 ─ CodeLine) | DiffPanel | StatsPanel
//!       └─ right:  PicturePanel ─ PayloadTable        (pass pictures join here)
//!                   └─ CoalescePictureView ─ IntervalBars, HeapView, RbTree
//! ```

mod coalesce_picture;
mod code_line;
mod code_view;
mod diff_panel;
mod editor;
mod gallery;
mod heap_view;
mod icon;
mod interval_bars;
mod ir_compare;
mod knob_field;
mod knobs_panel;
mod link_bar;
mod narration;
mod notice_bar;
mod payload_table;
mod picture_panel;
mod rb_tree;
mod run_status;
mod stage_item;
mod stage_list;
mod stats_panel;
mod step_controls;
mod tabs;

pub use coalesce_picture::{CoalescePictureView, CoalescePictureViewProps};
pub use code_line::{CodeLine, CodeLineProps};
pub use code_view::{CodeView, CodeViewProps};
pub use diff_panel::{DiffPanel, DiffPanelProps};
pub use editor::{Editor, EditorProps};
pub use gallery::{Gallery, GalleryProps};
pub use heap_view::{HeapView, HeapViewProps};
pub use icon::{Icon, IconName, IconProps};
pub use interval_bars::{IntervalBars, IntervalBarsProps};
pub use ir_compare::{IrCompare, IrCompareProps};
pub use knob_field::{KnobField, KnobFieldProps};
pub use knobs_panel::{KnobsPanel, KnobsPanelProps};
pub use link_bar::{LinkBar, LinkBarProps};
pub use narration::{Narration, NarrationProps};
pub use notice_bar::{NoticeBar, NoticeBarProps};
pub use payload_table::{PayloadTable, PayloadTableProps};
pub use picture_panel::{PicturePanel, PicturePanelProps};
pub use rb_tree::{RbTree, RbTreeProps};
pub use run_status::{RunStatus, RunStatusProps};
pub use stage_item::{StageItem, StageItemProps, StageStatus};
pub use stage_list::{status as stage_status, StageList, StageListProps};
pub use stats_panel::{StatsPanel, StatsPanelProps};
pub use step_controls::{key_action, StepControls, StepControlsProps};
pub use tabs::{Tabs, TabsProps};
