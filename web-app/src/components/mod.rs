//! View components, one per file. Each takes its data as props and reports user intent
//! through callbacks (mostly `on_action: Callback<Action>`); none owns application state.
//!
//! ```text
//!  App ─┬─ Header: RunStatus, LinkBar, layout select, TourOffer
//!       ├─ Playback: NoticeBar, StageList ─ StageItem×14, TourBar, StepControls
//!       └─ Workspace ─┬─ Splitter between the columns (widths per layout)
//!                     ├─ left:   Tabs ─ Editor (CodeLine overlay) | Gallery | KnobsPanel ─ KnobField
//!                     ├─ centre: Narration (ProofBar), Tabs ─ IrCompare (CodeView×2 ─ CodeLine) | DiffPanel | StatsPanel
//!                     └─ right:  PicturePanel ─ PassPicture (FanoutPictureView | GoGridPictureView)
//!                                               | PayloadTable, ExportButtons
//!  side-by-side layout: SideBySide ─ PictureSlot×3 (picture_for, ExportButtons)
//!  coalescing stages: PicturePanel ─ CoalescePictureView ─ IntervalBars, HeapView, RbTree
//! ```

mod coalesce_picture;
mod code_line;
mod code_view;
mod diff_panel;
mod editor;
mod export_buttons;
mod fanout_picture;
mod gallery;
mod go_grid_picture;
mod heap_view;
mod icon;
mod interval_bars;
mod ir_compare;
mod knob_field;
mod knobs_panel;
mod link_bar;
mod narration;
mod notice_bar;
mod pass_picture;
mod payload_table;
mod picture_panel;
mod picture_slot;
mod proof_bar;
mod rb_tree;
pub mod reg_hover;
mod run_status;
mod side_by_side;
mod splitter;
mod stage_item;
mod stage_list;
mod stats_panel;
mod step_controls;
mod svg_style;
mod tabs;
mod tour_bar;
mod tour_offer;

pub use coalesce_picture::{CoalescePictureView, CoalescePictureViewProps};
pub use code_line::{CodeLine, CodeLineProps};
pub use code_view::{CodeView, CodeViewProps};
pub use diff_panel::{DiffPanel, DiffPanelProps};
pub use editor::{Editor, EditorProps};
pub use export_buttons::{ExportButtons, ExportButtonsProps};
pub use fanout_picture::{FanoutPictureProps, FanoutPictureView};
pub use gallery::{Gallery, GalleryProps};
pub use go_grid_picture::{GoGridPictureProps, GoGridPictureView};
pub use heap_view::{HeapView, HeapViewProps};
pub use icon::{Icon, IconName, IconProps};
pub use interval_bars::{IntervalBars, IntervalBarsProps};
pub use ir_compare::{IrCompare, IrCompareProps};
pub use knob_field::{KnobField, KnobFieldProps};
pub use knobs_panel::{KnobsPanel, KnobsPanelProps};
pub use link_bar::{LinkBar, LinkBarProps};
pub use narration::{Narration, NarrationProps};
pub use notice_bar::{NoticeBar, NoticeBarProps};
pub use pass_picture::{PassPicture, PassPictureProps};
pub use payload_table::{PayloadTable, PayloadTableProps};
pub use picture_panel::{PicturePanel, PicturePanelProps};
pub use picture_slot::{PictureSlot, PictureSlotProps};
pub use proof_bar::{ProofBar, ProofBarProps};
pub use rb_tree::{RbTree, RbTreeProps};
pub use run_status::{RunStatus, RunStatusProps};
pub use side_by_side::{SideBySide, SideBySideProps};
pub use splitter::{Splitter, SplitterProps};
pub use stage_item::{StageItem, StageItemProps, StageStatus};
pub use stage_list::{status as stage_status, StageList, StageListProps};
pub use stats_panel::{StatsPanel, StatsPanelProps};
pub use step_controls::{key_action, StepControls, StepControlsProps};
pub use tabs::{Tabs, TabsProps};
pub use tour_bar::{TourBar, TourBarProps};
pub use tour_offer::{TourOffer, TourOfferProps};
