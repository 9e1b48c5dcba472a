//! The step's narration: which stage, which step of how many, what kind of step, which
//! function, and the sentence the pass recorded for it. Announced politely as it changes.
//! Under it, the stage's proof ([`ProofBar`]).

use super::ProofBar;
use compiler_core::Stage;
use std::rc::Rc;
use web_engine::protocol::StepView;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NarrationProps {
    pub stage: Option<Stage>,
    pub step: u32,
    pub total: u32,
    /// The view on screen (may be for another step while the new one loads).
    pub view: Option<Rc<StepView>>,
    /// Why the stage has no steps to show, when it has none.
    #[prop_or_default]
    pub note: Option<AttrValue>,
}

#[function_component(Narration)]
pub fn narration(props: &NarrationProps) -> Html {
    let current = props
        .view
        .as_ref()
        .filter(|v| Some(v.stage) == props.stage && v.step == props.step);
    // Any view of the stage carries its proof: kept while the next step loads.
    let proof = (props.view.as_ref())
        .filter(|v| Some(v.stage) == props.stage && props.note.is_none())
        .and_then(|v| v.proof.as_deref().cloned().map(Rc::new));
    let heading = match props.stage {
        None => "No stage chosen".to_string(),
        Some(s) if props.note.is_some() => s.id().to_string(),
        Some(s) if props.step == 0 => format!("{s} · input ({} steps)", props.total),
        Some(s) => format!("{s} · step {} of {}", props.step, props.total),
    };
    html! {
        <section class="narration" aria-labelledby="narration-heading">
            <h2 id="narration-heading" class="narration-heading">
                { heading }
                if let Some(v) = current {
                    if props.step > 0 { <code class="step-kind">{ v.kind.clone() }</code> }
                    if !v.function.is_empty() { <span class="muted">{ format!(" in {}", v.function) }</span> }
                }
            </h2>
            <p class="narration-text" aria-live="polite" aria-busy={current.is_none().then_some("true")}>
                { match (current, &props.note) {
                    (_, Some(note)) => note.to_string(),
                    (Some(v), None) => v.narration.clone(),
                    (None, None) if props.stage.is_some() => "Loading this step…".to_string(),
                    (None, None) => "Pick a stage in the timeline above.".to_string(),
                } }
            </p>
            <ProofBar {proof} />
        </section>
    }
}
