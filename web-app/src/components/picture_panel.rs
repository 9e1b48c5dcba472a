//! The right-hand "pass picture" panel. Each pass will draw its own picture here
//! (issue 10: the EXTRACT_SUBREG fan-out, live-interval bars with the red-black interval
//! tree, the GeneralOptimize block × iteration grid): add a component per payload type
//! and a match arm in [`picture_for`]. The coalescing picture (bars, interval tree,
//! heaps) comes with the view itself (`StepView::coalesce`) for the two coalescer
//! stages; other steps' payloads are shown as a readable table, with the step's edits
//! and the registers they are about.
//!
//! The panel zooms its drawing (Fit, or 100 % to 300 % of the drawing's own size) and
//! pans it (drag, or the scroll bars and arrow keys of the focused body); after every
//! step it scrolls, within itself only, so the thing the step is about (the tree node
//! it touched, the pair, the latest grid cell, the verdict) is in view.

use super::coalesce_picture::CoalescePictureView;
use super::export_buttons::ExportButtons;
use super::pass_picture::PassPicture;
use super::payload_table::PayloadTable;
use crate::model::layout::Layout;
use std::cell::Cell;
use std::rc::Rc;
use web_engine::protocol::StepView;
use web_sys::{Element, PointerEvent};
use yew::prelude::*;

/// Zoom levels in percent of the drawing's own size; 0 is "Fit" (the layout's default
/// size: own size, or the panel's width for the bars and in presenter mode).
const ZOOMS: [u32; 6] = [0, 100, 125, 150, 200, 300];

/// What a step is about, most specific first (tree node, fan-out pair, grid cell,
/// heap candidate, verdict).
const SUBJECT: &str = ".rb-node.touched, .pair.current, .cell.latest, .heap-current, .verdict";

/// Scrolls the body, then the panel around it, so `target` is in view (centred when it
/// was out of view); nothing outside the panel moves. Sideways it moves only when less
/// than half the target shows, and no further than needed, so a drawing's left part
/// (its title, the source) stays in view when it can.
fn bring_into_view(panel: &Element, body: &Element, target: &Element) {
    for scroller in [body, panel] {
        let (s, t) = (
            scroller.get_bounding_client_rect(),
            target.get_bounding_client_rect(),
        );
        if t.top() < s.top() || t.bottom() > s.bottom() {
            let dy = t.top() - s.top() - (s.height() - t.height()).max(0.0) / 2.0;
            scroller.set_scroll_top(scroller.scroll_top() + dy.round() as i32);
        }
        let shown = t.right().min(s.right()) - t.left().max(s.left());
        if shown < t.width() / 2.0 {
            let dx = if t.left() < s.left() {
                t.left() - s.left()
            } else {
                (t.right() - s.right()).min(t.left() - s.left())
            };
            scroller.set_scroll_left(scroller.scroll_left() + dx.round() as i32);
        }
    }
}

/// Scrolls the body to (`left`, `top`) and the panel by what the body could not take.
fn pan_to(panel: &Element, body: &Element, (left, top): (i32, i32), panel_start: (i32, i32)) {
    body.set_scroll_left(left);
    body.set_scroll_top(top);
    panel.set_scroll_left(panel_start.0 + left - body.scroll_left());
    panel.set_scroll_top(panel_start.1 + top - body.scroll_top());
}

/// Zoom buttons: out, the level (a live label), in, and Fit.
fn zoom_bar(zoom: &UseStateHandle<usize>) -> Html {
    let set = |k: usize| {
        let zoom = zoom.clone();
        Callback::from(move |_: MouseEvent| zoom.set(k))
    };
    let k = **zoom;
    // From Fit, zooming in starts at the drawing's own size. Buttons at the end of
    // their range say so with aria-disabled and keep focus.
    let (out_to, in_to) = (k.saturating_sub(1), (k + 1).min(ZOOMS.len() - 1));
    let level = if k == 0 {
        "fitted".to_string()
    } else {
        format!("{} %", ZOOMS[k])
    };
    html! {
        <div class="zoom-bar" role="group" aria-label="Zoom the pass picture">
            <button type="button" aria-label="Zoom out" aria-disabled={(k == 0).then_some("true")} onclick={set(out_to)}>{ "−" }</button>
            <output class="zoom-level" aria-live="polite" aria-label="Zoom">{ level }</output>
            <button type="button" aria-label="Zoom in" aria-disabled={(k + 1 == ZOOMS.len()).then_some("true")} onclick={set(in_to)}>{ "+" }</button>
            <button type="button" aria-label="Fit the picture" aria-disabled={(k == 0).then_some("true")} onclick={set(0)}>{ "Fit" }</button>
        </div>
    }
}

/// Dragging the zoomed drawing pans it: pointer-down position, and the body's and the
/// panel's scroll offsets then.
type Drag = Rc<Cell<Option<[i32; 6]>>>;

fn pan_handlers(
    panel: &NodeRef,
    body: &NodeRef,
    drag: &Drag,
    on: bool,
) -> [Callback<PointerEvent>; 3] {
    let down = {
        let (panel, body, drag) = (panel.clone(), body.clone(), drag.clone());
        Callback::from(move |e: PointerEvent| {
            let (Some(p), Some(b)) = (panel.cast::<Element>(), body.cast::<Element>()) else {
                return;
            };
            if !on || e.button() != 0 {
                return;
            }
            let _ = b.set_pointer_capture(e.pointer_id());
            drag.set(Some([
                e.client_x(),
                e.client_y(),
                b.scroll_left(),
                b.scroll_top(),
                p.scroll_left(),
                p.scroll_top(),
            ]));
        })
    };
    let moved = {
        let (panel, body, drag) = (panel.clone(), body.clone(), drag.clone());
        Callback::from(move |e: PointerEvent| {
            let (Some([x, y, left, top, pl, pt]), Some(p), Some(b)) =
                (drag.get(), panel.cast::<Element>(), body.cast::<Element>())
            else {
                return;
            };
            pan_to(
                &p,
                &b,
                (left - (e.client_x() - x), top - (e.client_y() - y)),
                (pl, pt),
            );
        })
    };
    let up = {
        let drag = drag.clone();
        Callback::from(move |_: PointerEvent| drag.set(None))
    };
    [down, moved, up]
}

#[derive(Properties, PartialEq)]
pub struct PicturePanelProps {
    pub view: Option<Rc<StepView>>,
    /// The column is collapsed with its splitter.
    #[prop_or_default]
    pub collapsed: bool,
    /// `view` is the previous step's while the current one loads: it stays drawn
    /// (dimmed), so the elements persist and the new step's changes run as transitions
    /// from it instead of a freshly built picture.
    #[prop_or_default]
    pub stale: bool,
    /// The page layout (a change resizes the picture: its subject is brought into view
    /// again).
    #[prop_or_default]
    pub layout: Layout,
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

/// A cell kept across renders that changing does not re-render.
#[hook]
fn use_mut_ref_cell() -> Drag {
    (*use_memo((), |_| Rc::new(Cell::new(None)))).clone()
}

#[function_component(PicturePanel)]
pub fn picture_panel(props: &PicturePanelProps) -> Html {
    let zoom = use_state(|| 0usize);
    let (panel, body) = (use_node_ref(), use_node_ref());
    let drag: Drag = use_mut_ref_cell();
    {
        // After each new step (and zoom), bring the step's subject into view.
        let (panel, body) = (panel.clone(), body.clone());
        let shown = props
            .view
            .as_ref()
            .filter(|_| !props.stale)
            .map(|v| (v.run_id, v.stage, v.step));
        use_effect_with((shown, *zoom, props.layout), move |(shown, _, _)| {
            if shown.is_some() {
                if let (Some(p), Some(b)) = (panel.cast::<Element>(), body.cast::<Element>()) {
                    if let Ok(Some(t)) = b.query_selector(SUBJECT) {
                        bring_into_view(&p, &b, &t);
                    }
                }
            }
        });
    }
    let zoomed = *zoom > 0;
    let [onpointerdown, onpointermove, onpointerup] = pan_handlers(&panel, &body, &drag, zoomed);
    let body_style = zoomed.then(|| format!("--zoom: {}", f64::from(ZOOMS[*zoom]) / 100.0));
    html! {
        <aside ref={panel} class={classes!("picture-panel", props.collapsed.then_some("collapsed"), props.stale.then_some("stale"))}
               aria-labelledby="picture-heading" aria-busy={props.stale.then_some("true")}>
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
                            <div class="picture-tools">
                                <ExportButtons target="picture-body" what="pass picture"
                                    name={format!("copyscope-{}-step{}", v.stage.id(), v.step)} />
                                { zoom_bar(&zoom) }
                            </div>
                        }
                        <div id="picture-body" ref={body} tabindex="0" role="region"
                             class={classes!(zoomed.then_some("zoomed"))} style={body_style}
                             aria-label="Pass picture (scrolls when wider than its column; drag to pan when zoomed)"
                             {onpointerdown} {onpointermove} onpointerup={onpointerup.clone()} onpointercancel={onpointerup}>
                            { picture_for(v) }
                        </div>
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
