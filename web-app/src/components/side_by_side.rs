//! The side-by-side layout: the EXTRACT_SUBREG fan-out (two-address), the coalescing
//! picture (nvptx-coalescer) and the GeneralOptimize grid at once, each at its own step.
//! The slot showing the main stage follows the main step bar; stepping a slot with its
//! own buttons makes its stage the main one.

use super::picture_slot::PictureSlot;
use crate::state::Action;
use compiler_core::Stage;
use std::collections::BTreeMap;
use std::rc::Rc;
use web_engine::protocol::{RunSummary, StepView};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SideBySideProps {
    /// (stage, step) of each slot.
    pub slots: Vec<(Stage, u32)>,
    pub summary: Option<Rc<RunSummary>>,
    pub views: BTreeMap<Stage, Rc<StepView>>,
    /// The slot the main step bar drives (it shows the main stage).
    pub linked: Option<usize>,
    pub on_action: Callback<Action>,
}

#[function_component(SideBySide)]
pub fn side_by_side(props: &SideBySideProps) -> Html {
    html! {
        <section class="side-by-side" aria-label="Pass pictures side by side">
            { for props.slots.iter().enumerate().map(|(slot, &(stage, step))| {
                let total = props.summary.as_ref().and_then(|s| s.stage(stage)).map(|s| s.steps);
                html! {
                    <PictureSlot {slot} {stage} {step} {total} linked={props.linked == Some(slot)}
                        view={props.views.get(&stage).cloned()}
                        on_action={props.on_action.clone()} />
                }
            }) }
        </section>
    }
}
