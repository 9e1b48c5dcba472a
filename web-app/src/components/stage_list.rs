//! The pipeline timeline: every stage of `compiler_core::STAGES`, in pipeline order.

use super::StageItem;
use compiler_core::{Stage, STAGES};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StageListProps {
    /// The highlighted stage, if any.
    pub selected: Option<Stage>,
    /// Called with the stage the user picks.
    pub on_select: Callback<Stage>,
}

#[function_component(StageList)]
pub fn stage_list(props: &StageListProps) -> Html {
    html! {
        <section class="stages" aria-labelledby="stages-heading">
            <h2 id="stages-heading">{ "Pipeline stages" }</h2>
            <ol class="stage-list" aria-labelledby="stages-heading">
                { for STAGES.iter().enumerate().map(|(index, info)| html! {
                    <StageItem
                        key={info.id}
                        {index}
                        {info}
                        selected={props.selected == Some(info.stage)}
                        on_select={props.on_select.clone()}
                    />
                }) }
            </ol>
        </section>
    }
}
