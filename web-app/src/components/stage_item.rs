//! One stage of the timeline: a button with its number and id (`aria-current="step"`
//! when shown), the ptxas phase for GeneralOptimize instances, and what the last run did
//! there (its step count, or why it did not run). The summary, formats and spec page are
//! its description for assistive technology and its tooltip.

use compiler_core::{Stage, StageInfo};
use web_sys::KeyboardEvent;
use yew::prelude::*;

/// What the last run did at a stage.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StageStatus {
    /// It ran and recorded this many steps.
    Ran(u32),
    /// Implemented, but this run did not reach it (the input starts later, or an
    /// earlier stage is missing).
    NotRun,
    /// No implementation yet.
    NotImplemented,
    /// No run yet.
    Unknown,
}

#[derive(Properties, PartialEq)]
pub struct StageItemProps {
    /// Position in the pipeline, from 0.
    pub index: usize,
    pub info: &'static StageInfo,
    pub selected: bool,
    pub status: StageStatus,
    pub on_select: Callback<Stage>,
    /// Arrow keys on the button (moving between stages).
    #[prop_or_default]
    pub onkeydown: Callback<KeyboardEvent>,
}

#[function_component(StageItem)]
pub fn stage_item(props: &StageItemProps) -> Html {
    let info = props.info;
    let summary_id = format!("stage-{}-summary", info.id);
    let onclick = {
        let on_select = props.on_select.clone();
        let stage = info.stage;
        Callback::from(move |_: MouseEvent| on_select.emit(stage))
    };
    let (badge, badge_class) = match props.status {
        StageStatus::Ran(1) => ("1 step".to_string(), "ran"),
        StageStatus::Ran(n) => (format!("{n} steps"), "ran"),
        StageStatus::NotRun => ("not run".into(), "not-run"),
        // Shown by a dashed outline; the description says it in words.
        StageStatus::NotImplemented => (String::new(), "not-implemented"),
        StageStatus::Unknown => (String::new(), "unknown"),
    };
    let status_text = match props.status {
        StageStatus::Ran(_) => String::new(),
        StageStatus::NotRun => " This run did not reach this stage.".into(),
        StageStatus::NotImplemented => " Not implemented yet.".into(),
        StageStatus::Unknown => String::new(),
    };
    let tooltip = format!(
        "{} — reads {}, writes {}. {}{}",
        info.id,
        info.input.name(),
        info.output.name(),
        info.summary,
        info.spec
            .map(|s| format!(" Spec: {s}."))
            .unwrap_or_default()
    );
    html! {
        <li
            class={classes!("stage", props.selected.then_some("selected"), badge_class)}
            data-stage-id={info.id}
        >
            <button
                type="button"
                class="stage-select"
                title={tooltip}
                aria-current={props.selected.then_some("step")}
                aria-describedby={summary_id.clone()}
                {onclick}
                onkeydown={props.onkeydown.clone()}
            >
                <span class="stage-number" aria-hidden="true">{ props.index + 1 }</span>
                <code class="stage-id">{ info.id }</code>
                if let Some(phase) = info.phase {
                    <span class="stage-phase">{ format!("phase {phase}") }</span>
                }
                if !badge.is_empty() {
                    <span class={classes!("stage-badge", badge_class)}>{ badge }</span>
                }
            </button>
            <p class="stage-summary visually-hidden" id={summary_id}>
                { info.summary }
                { format!(" Reads {}, writes {}.", info.input.name(), info.output.name()) }
                if let Some(spec) = info.spec { { format!(" Spec: {spec}.") } }
                { status_text }
            </p>
        </li>
    }
}
