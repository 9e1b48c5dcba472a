//! The right-hand "pass picture" panel. Each pass will draw its own picture here
//! (issue 10: the EXTRACT_SUBREG fan-out, live-interval bars with the red-black interval
//! tree, the GeneralOptimize block × iteration grid): add a component per payload type
//! and a match arm in [`picture_for`]. The coalescing picture (bars, interval tree,
//! heaps) comes with the view itself (`StepView::coalesce`) for the two coalescer
//! stages; other steps' payloads are shown as a readable table, with the step's edits
//! and the registers they are about.

use super::coalesce_picture::CoalescePictureView;
use super::export_buttons::ExportButtons;
use super::pass_picture::PassPicture;
use super::payload_table::PayloadTable;
use std::rc::Rc;
use web_engine::protocol::StepView;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PicturePanelProps {
    pub view: Option<Rc<StepView>>,
    /// The column is collapsed with its splitter.
    #[prop_or_default]
    pub collapsed: bool,
}

/// The picture for a step: a pass-specific component chosen by payload type, or the
/// table.
///
/// HOOK(pictures): a picture lands as a match arm on `view.payload_type`, e.g.
/// `"extract_subreg_pair" => html! { <ExtractSubregFanOut view={..} /> }`. Stages whose
/// picture the engine draws from the whole trace come first: the coalescing picture
/// (`view.coalesce`), the EXTRACT_SUBREG fan-out and the GeneralOptimize grid
/// (`view.picture`). The side-by-side slots use this too.
pub(crate) fn picture_for(view: &StepView) -> Html {
    if let Some(p) = &view.coalesce {
        return html! { <CoalescePictureView picture={Rc::new((**p).clone())} step={view.step} /> };
    }
    if let Some(p) = &view.picture {
        return html! { <PassPicture picture={p.clone()} /> };
    }
    #[allow(clippy::match_single_binding)] // arms join as pictures land
    match view.payload_type.as_str() {
        _ => {
            html! { <PayloadTable kind={view.payload_type.clone()} rows={view.payload.clone()} /> }
        }
    }
}

#[function_component(PicturePanel)]
pub fn picture_panel(props: &PicturePanelProps) -> Html {
    html! {
        <aside class={classes!("picture-panel", props.collapsed.then_some("collapsed"))} aria-labelledby="picture-heading">
            <h2 id="picture-heading" class="panel-title">{ "Pass picture" }</h2>
            { match &props.view {
                None => html! { <p class="muted">{ "The current step's data appears here." }</p> },
                Some(v) if v.step == 0 && v.picture.is_none() => html! {
                    <p class="muted">{ "Step 0 is the stage's input: step forward to see what the pass does." }</p>
                },
                Some(v) => html! {
                    <>
                        if v.picture.is_none() && v.coalesce.is_none() {
                            <p class="picture-note">
                                { "Drawn pictures for this pass are still to come; here is what the step recorded." }
                            </p>
                        } else {
                            <ExportButtons target="picture-body" what="pass picture"
                                name={format!("copyscope-{}-step{}", v.stage.id(), v.step)} />
                        }
                        <div id="picture-body" tabindex="0" role="region" aria-label="Pass picture (scrolls when wider than its column)">{ picture_for(v) }</div>
                        if (v.picture.is_some() || v.coalesce.is_some()) && !v.payload.is_empty() {
                            <details class="step-data">
                                <summary>{ "What the step recorded" }</summary>
                                <PayloadTable kind={v.payload_type.clone()} rows={v.payload.clone()} />
                            </details>
                        }
                        <h3 class="panel-subtitle">{ "Edits" }</h3>
                        if v.edits.is_empty() {
                            <p class="muted">{ "None: this step changes nothing in the IR." }</p>
                        } else {
                            <ul class="edit-list">
                                { for v.edits.iter().map(|e| html! {
                                    <li class={classes!("edit", format!("edit-{}", e.op))}>
                                        <span class="edit-op">{ e.op.replace('_', " ") }</span>
                                        <code>{ e.text.clone() }</code>
                                    </li>
                                }) }
                            </ul>
                        }
                        if !v.focus_regs.is_empty() {
                            <h3 class="panel-subtitle">{ "Registers" }</h3>
                            <p>{ for v.focus_regs.iter().map(|r| html! { <code class="tok-reg tok-focus">{ format!("%{r}") }</code> }) }</p>
                        }
                    </>
                },
            } }
        </aside>
    }
}
