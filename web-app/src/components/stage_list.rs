//! The pipeline timeline: every stage of `compiler_core::STAGES`, in pipeline order, with
//! what the last run did at each. Left and right arrows move between the stage buttons.

use super::stage_item::{StageItem, StageStatus};
use compiler_core::{Stage, STAGES};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_engine::protocol::RunSummary;
use web_sys::{HtmlElement, KeyboardEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StageListProps {
    /// The stage shown, if any.
    pub selected: Option<Stage>,
    /// The last run, for step counts.
    #[prop_or_default]
    pub summary: Option<Rc<RunSummary>>,
    /// The stages the engine can run (empty: not known yet).
    #[prop_or_default]
    pub implemented: Rc<Vec<Stage>>,
    /// Called with the stage the user picks.
    pub on_select: Callback<Stage>,
}

/// What the timeline says about `stage` after `summary`, given the implemented stages
/// (empty: not known yet).
pub fn status(summary: Option<&RunSummary>, implemented: &[Stage], stage: Stage) -> StageStatus {
    if !implemented.is_empty() && !implemented.contains(&stage) {
        return StageStatus::NotImplemented;
    }
    match summary {
        None => StageStatus::Unknown,
        Some(s) => s
            .stage(stage)
            .map_or(StageStatus::NotRun, |st| StageStatus::Ran(st.steps)),
    }
}

#[function_component(StageList)]
pub fn stage_list(props: &StageListProps) -> Html {
    // Arrow keys move focus to the neighbouring stage button.
    let onkeydown = Callback::from(|e: KeyboardEvent| {
        let delta = match e.key().as_str() {
            "ArrowRight" => 1,
            "ArrowLeft" => -1,
            _ => return,
        };
        let Some(button) = e.target().and_then(|t| t.dyn_into::<HtmlElement>().ok()) else {
            return;
        };
        let item = button.parent_element();
        let next = if delta > 0 {
            item.and_then(|li| li.next_element_sibling())
        } else {
            item.and_then(|li| li.previous_element_sibling())
        };
        if let Some(target) = next
            .and_then(|li| li.query_selector("button").ok().flatten())
            .and_then(|b| b.dyn_into::<HtmlElement>().ok())
        {
            e.prevent_default();
            let _ = target.focus();
        }
    });
    html! {
        <nav class="stages" aria-labelledby="stages-heading">
            <h2 id="stages-heading" class="visually-hidden">{ "Pipeline stages" }</h2>
            <ol class="stage-list" aria-labelledby="stages-heading">
                { for STAGES.iter().enumerate().map(|(index, info)| html! {
                    <StageItem
                        key={info.id}
                        {index}
                        {info}
                        selected={props.selected == Some(info.stage)}
                        status={status(props.summary.as_deref(), &props.implemented, info.stage)}
                        on_select={props.on_select.clone()}
                        onkeydown={onkeydown.clone()}
                    />
                }) }
            </ol>
        </nav>
    }
}
