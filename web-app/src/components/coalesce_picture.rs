//! The coalescing picture (register-coalescer, nvptx-coalescer): a caption in plain
//! words, the live-interval bars, and for the NVPTX coalescer the red-black interval
//! tree and the candidate heaps. The model comes computed in the step view
//! (`web_engine::protocol::pictures`); this only lays it out.

use super::heap_view::HeapView;
use super::interval_bars::IntervalBars;
use super::rb_tree::RbTree;
use std::rc::Rc;
use web_engine::protocol::pictures::CoalescePicture;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CoalescePictureViewProps {
    pub picture: Rc<CoalescePicture>,
    /// The step shown (written on the element, so tests and tours can wait for it).
    pub step: u32,
}

#[function_component(CoalescePictureView)]
pub fn coalesce_picture_view(props: &CoalescePictureViewProps) -> Html {
    let p = &props.picture;
    html! {
        <div class="coalesce-picture" data-step={props.step.to_string()}>
            <p class="picture-caption">{ p.caption.clone() }</p>
            if let Some(v) = &p.verdict {
                <p class={classes!("verdict", format!("verdict-{}", v.verdict))} data-verdict={v.verdict.clone()}>
                    <strong>{ v.verdict.replace('_', " ") }</strong>
                    { format!(" %{} · %{}", v.dst, v.src) }
                    if !v.span_text.is_empty() {
                        { format!(" — overlapping: {}", v.span_text.join(" ")) }
                    }
                </p>
            }
            <h3 class="panel-subtitle">{ "Live intervals" }</h3>
            <IntervalBars axis={p.axis.clone()} rows={p.rows.clone()} hidden_rows={p.hidden_rows} verdict={p.verdict.clone()} />
            if let Some(h) = &p.heap {
                <h3 class="panel-subtitle">{ "Candidate heaps" }</h3>
                <HeapView heap={h.clone()} />
            }
            if let Some(t) = &p.tree {
                <h3 class="panel-subtitle">{ "Interval tree" }</h3>
                <RbTree tree={t.clone()} />
            }
        </div>
    }
}
