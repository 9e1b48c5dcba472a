//! A splitter between two workspace columns: drag it, or focus it and use the arrow
//! keys (Home collapses the column, End widens it to the most, Enter collapses or
//! reopens it; double-click does the same). An ARIA `separator` whose value is the
//! column's width in percent.

use crate::model::panes::{Pane, MAX};
use crate::state::Action;
use web_sys::{Element, HtmlElement, KeyboardEvent, PointerEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SplitterProps {
    pub pane: Pane,
    /// The column's width now, in percent (0: collapsed).
    pub width: u8,
    pub label: AttrValue,
    pub on_action: Callback<Action>,
}

/// The width `x` (a pointer's client x) gives the column, in percent of `workspace`.
fn percent_at(workspace: &Element, pane: Pane, x: f64) -> i32 {
    let r = workspace.get_bounding_client_rect();
    if r.width() <= 0.0 {
        return 0;
    }
    let from_edge = match pane {
        Pane::Left => x - r.left(),
        Pane::Picture => r.right() - x,
    };
    (from_edge / r.width() * 100.0).round() as i32
}

#[function_component(Splitter)]
pub fn splitter(props: &SplitterProps) -> Html {
    let pane = props.pane;
    // Arrow keys move the splitter: for the picture column (splitter on its left edge)
    // moving left widens it.
    let grow = match pane {
        Pane::Left => 1,
        Pane::Picture => -1,
    };
    let onkeydown = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            let action = match e.key().as_str() {
                "ArrowRight" => Action::NudgePane { pane, delta: grow },
                "ArrowLeft" => Action::NudgePane { pane, delta: -grow },
                "Home" => Action::SetPaneWidth { pane, percent: 0 },
                "End" => Action::SetPaneWidth {
                    pane,
                    percent: i32::from(MAX),
                },
                "Enter" | " " => Action::TogglePane(pane),
                _ => return,
            };
            e.prevent_default();
            on_action.emit(action);
        })
    };
    let onpointerdown = Callback::from(|e: PointerEvent| {
        let el: HtmlElement = e.target_unchecked_into();
        let _ = el.set_pointer_capture(e.pointer_id());
        e.prevent_default();
    });
    let onpointermove = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: PointerEvent| {
            if e.buttons() & 1 == 0 {
                return;
            }
            let el: HtmlElement = e.target_unchecked_into();
            if let Some(workspace) = el.parent_element() {
                let percent = percent_at(&workspace, pane, f64::from(e.client_x()));
                on_action.emit(Action::SetPaneWidth { pane, percent });
            }
        })
    };
    let ondblclick = props
        .on_action
        .reform(move |_: MouseEvent| Action::TogglePane(pane));
    html! {
        <div class={classes!("splitter", (props.width == 0).then_some("at-collapsed"))}
            role="separator" aria-orientation="vertical" tabindex="0"
            aria-label={props.label.clone()}
            aria-valuenow={props.width.to_string()} aria-valuemin="0" aria-valuemax={MAX.to_string()}
            title="Drag, or use the arrow keys; Enter collapses or reopens"
            {onkeydown} {onpointerdown} {onpointermove} {ondblclick}>
        </div>
    }
}
