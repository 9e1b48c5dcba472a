//! The knobs panel, generated from `compiler_core::knobs::KNOBS`: one group per stage
//! that reads the knobs (in pipeline order), the group of the stage on screen first and
//! marked. Also the verifier switch and a reset for everything.

use super::knob_field::{sm_datalist, KnobField};
use crate::state::{Action, KnobDraft};
use compiler_core::knobs::{format_value, Knob, Knobs, KNOBS};
use compiler_core::Stage;
use std::collections::BTreeMap;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct KnobsPanelProps {
    pub knobs: Knobs,
    pub drafts: BTreeMap<Knob, KnobDraft>,
    pub verify: bool,
    /// The stage on screen.
    pub stage: Option<Stage>,
    /// The stages the engine can run (empty: not known yet).
    #[prop_or_default]
    pub implemented: Rc<Vec<Stage>>,
    pub on_action: Callback<Action>,
}

/// The knobs grouped by the first stage that reads them, groups in pipeline order.
fn groups() -> Vec<(Stage, Vec<Knob>)> {
    let mut by_stage: BTreeMap<Stage, Vec<Knob>> = BTreeMap::new();
    for info in KNOBS.iter() {
        let stage = info.stages.first().copied().unwrap_or(Stage::PtxOut);
        by_stage.entry(stage).or_default().push(info.knob);
    }
    by_stage.into_iter().collect()
}

#[function_component(KnobsPanel)]
pub fn knobs_panel(props: &KnobsPanelProps) -> Html {
    let changed = props.knobs.changed().count();
    let mut groups = groups();
    // The stage on screen first.
    if let Some(stage) = props.stage {
        if let Some(p) = groups
            .iter()
            .position(|(s, k)| *s == stage || k.iter().any(|k| k.info().stages.contains(&stage)))
        {
            let g = groups.remove(p);
            groups.insert(0, g);
        }
    }
    let onverify = props.on_action.reform(|e: Event| {
        let el: HtmlInputElement = e.target_unchecked_into();
        Action::SetVerify(el.checked())
    });
    html! {
        <section class="knobs" aria-labelledby="knobs-heading">
            <div class="panel-toolbar">
                <h2 id="knobs-heading" class="panel-title">{ "Knobs" }</h2>
                <span class="knob-count">
                    { match changed { 0 => "all at their defaults".to_string(), 1 => "1 changed".into(), n => format!("{n} changed") } }
                </span>
                <button
                    type="button"
                    class="button small"
                    disabled={changed == 0 && props.drafts.is_empty()}
                    onclick={props.on_action.reform(|_| Action::ResetKnobs)}
                >{ "Reset all" }</button>
            </div>
            <div class="knob verify-switch">
                <div class="knob-row">
                    <label for="verify-switch">{ "Verify after each stage" }</label>
                    <input type="checkbox" id="verify-switch" checked={props.verify} onchange={onverify}
                        aria-describedby="verify-help" />
                </div>
                <p id="verify-help" class="knob-help">
                    { "Check the input and every stage's output with the verifier (tied operands met, classes consistent, ...)." }
                </p>
            </div>
            { sm_datalist() }
            { for groups.into_iter().map(|(stage, knobs)| {
                let current = props.stage.is_some_and(|s| s == stage || knobs.iter().any(|k| k.info().stages.contains(&s)));
                let title = if stage.info().phase.is_some() { "ptxas GeneralOptimize".to_string() } else { stage.id().to_string() };
                html! {
                    <fieldset class={classes!("knob-group", current.then_some("current"))}>
                        <legend>
                            { title }
                            if !props.implemented.is_empty() && !props.implemented.contains(&stage) {
                                <span class="muted">{ " (not implemented yet: no effect for now)" }</span>
                            }
                            if current { <span class="muted">{ " · this stage" }</span> }
                        </legend>
                        { for knobs.into_iter().map(|knob| {
                            let draft = props.drafts.get(&knob);
                            let text = match draft {
                                Some(d) => d.text.clone(),
                                None => format_value(knob.info().kind, props.knobs.get(knob)),
                            };
                            html! {
                                <KnobField
                                    key={knob.name()}
                                    {knob}
                                    text={AttrValue::from(text)}
                                    error={draft.map(|d| AttrValue::from(d.error.clone()))}
                                    is_default={props.knobs.is_default(knob)}
                                    on_action={props.on_action.clone()}
                                />
                            }
                        }) }
                    </fieldset>
                }
            }) }
        </section>
    }
}
