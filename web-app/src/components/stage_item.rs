//! One stage of the timeline: its id (the button that selects it), the ptxas phase for
//! GeneralOptimize instances, the formats it reads and writes, its summary and spec page.

use compiler_core::{Stage, StageInfo};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StageItemProps {
    /// Position in the pipeline, from 0.
    pub index: usize,
    pub info: &'static StageInfo,
    pub selected: bool,
    pub on_select: Callback<Stage>,
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

    html! {
        <li
            class={classes!("stage", props.selected.then_some("selected"))}
            data-stage-id={info.id}
        >
            <button
                type="button"
                class="stage-select"
                aria-current={props.selected.then_some("step")}
                aria-describedby={summary_id.clone()}
                {onclick}
            >
                <span class="stage-number" aria-hidden="true">{ props.index + 1 }</span>
                <code class="stage-id">{ info.id }</code>
            </button>
            <div class="stage-meta">
                if let Some(phase) = info.phase {
                    <span class="stage-phase">{ format!("phase {phase}") }</span>
                }
                <span class="stage-io">
                    <span class="visually-hidden">{ "reads " }</span>
                    { info.input.name() }
                    <span aria-hidden="true">{ " → " }</span>
                    <span class="visually-hidden">{ ", writes " }</span>
                    { info.output.name() }
                </span>
            </div>
            <p class="stage-summary" id={summary_id}>{ info.summary }</p>
            <p class="stage-spec">
                if let Some(spec) = info.spec {
                    { "spec: " }<code>{ spec }</code>
                } else {
                    { "our own glue stage (no spec page)" }
                }
            </p>
        </li>
    }
}
