//! One slot of the side-by-side layout: a stage's picture at the slot's own step, with
//! its own step buttons (and, for the GeneralOptimize slot, a choice of stage).

use super::export_buttons::ExportButtons;
use super::picture_panel::picture_for;
use crate::model::slots::{slot_title, GO_STAGES};
use crate::state::Action;
use compiler_core::Stage;
use std::rc::Rc;
use web_engine::protocol::StepView;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PictureSlotProps {
    pub slot: usize,
    pub stage: Stage,
    pub step: u32,
    /// Steps the stage recorded; None when it did not run for this input.
    pub total: Option<u32>,
    /// This slot shows the main stage: the main step bar drives it.
    #[prop_or_default]
    pub linked: bool,
    /// The latest view of the stage (may be for another step while the new one loads).
    pub view: Option<Rc<StepView>>,
    pub on_action: Callback<Action>,
}

#[function_component(PictureSlot)]
pub fn picture_slot(props: &PictureSlotProps) -> Html {
    let slot = props.slot;
    let title = slot_title(slot);
    let act = |a: Action| {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(a.clone()))
    };
    let on_stage = props.on_action.reform(move |e: Event| {
        let el: HtmlSelectElement = e.target_unchecked_into();
        let stage = el.value().parse().unwrap_or(Stage::GeneralOptimize);
        Action::SetPictureStage { slot, stage }
    });
    let body_id = format!("picture-slot-{slot}");
    let view = props
        .view
        .as_ref()
        .filter(|v| v.stage == props.stage && v.step == props.step);
    let total = props.total.unwrap_or(0);
    let label = |what: &str| format!("{what} of the {title} picture");
    html! {
        <section class={classes!("picture-slot", props.linked.then_some("linked"))} aria-labelledby={format!("{body_id}-title")} data-stage-id={props.stage.id()}>
            <header class="slot-header">
                <h2 class="panel-title" id={format!("{body_id}-title")}>{ title }</h2>
                if slot == 2 {
                    <label class="inline-field">
                        { "Stage " }
                        <select onchange={on_stage}>
                            { for GO_STAGES.iter().map(|s| html! {
                                <option value={s.id()} selected={*s == props.stage}>{ s.id() }</option>
                            }) }
                        </select>
                    </label>
                } else {
                    <code class="slot-stage">{ props.stage.id() }</code>
                }
                if props.linked {
                    <span class="slot-linked">{ "follows the step bar" }</span>
                }
            </header>
            if props.total.is_none() {
                <p class="muted">{ format!("{} did not run for this input.", props.stage) }</p>
            } else {
                <div class="slot-controls" role="group" aria-label={label("Steps")}>
                    <button type="button" aria-label={label("First step")} onclick={act(Action::PictureSeek { slot, step: 0 })} disabled={props.step == 0}>{ "First" }</button>
                    <button type="button" aria-label={label("Previous step")} onclick={act(Action::PictureStep { slot, delta: -1 })} disabled={props.step == 0}>{ "◀" }</button>
                    <span class="slot-counter" aria-live="polite">{ format!("Step {} of {}", props.step, total) }</span>
                    <button type="button" aria-label={label("Next step")} onclick={act(Action::PictureStep { slot, delta: 1 })} disabled={props.step >= total}>{ "▶" }</button>
                    <button type="button" aria-label={label("Last step")} onclick={act(Action::PictureSeek { slot, step: total })} disabled={props.step >= total}>{ "Last" }</button>
                    if view.is_some_and(|v| v.picture.is_some() || v.coalesce.is_some()) {
                        <ExportButtons target={body_id.clone()} what={format!("{title} picture")}
                            name={format!("copyscope-{}-step{}", props.stage.id(), props.step)} />
                    }
                </div>
                <div class="slot-body" id={body_id.clone()} tabindex="0" role="region" aria-label={format!("{title} picture")}>
                    { match view {
                        None => html! { <p class="muted" aria-busy="true">{ "Loading…" }</p> },
                        Some(v) if v.step == 0 && v.picture.is_none() && v.coalesce.is_none() => html! {
                            <p class="muted">{ "Step 0 is the stage's input: step forward." }</p>
                        },
                        Some(v) => html! {
                            <>
                                if v.step > 0 { <p class="slot-narration">{ v.narration.clone() }</p> }
                                { picture_for(v) }
                            </>
                        },
                    } }
                </div>
            }
        </section>
    }
}
