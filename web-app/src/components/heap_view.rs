//! The NVPTX coalescer's candidate heaps: the copy just taken, then what waits in the
//! main heap and in the secondary heap (candidates deferred after an interference), in
//! pop order.

use web_engine::protocol::pictures::HeapPicture;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeapViewProps {
    pub heap: HeapPicture,
}

fn entries(list: &[(u32, u32)], label: &'static str) -> Html {
    html! {
        <div class="heap-list">
            <h4 class="heap-title">{ label }</h4>
            if list.is_empty() {
                <p class="muted heap-empty">{ "empty" }</p>
            } else {
                <ol class="heap-entries">
                    { for list.iter().map(|(reg, w)| html! {
                        <li class="heap-entry" data-reg={reg.to_string()}>
                            <code>{ format!("%{reg}") }</code><span class="heap-weight">{ format!("w {w}") }</span>
                        </li>
                    }) }
                </ol>
            }
        </div>
    }
}

#[function_component(HeapView)]
pub fn heap_view(props: &HeapViewProps) -> Html {
    let h = &props.heap;
    html! {
        <section class="heap-view" aria-label="Candidate heaps">
            if let Some(c) = &h.current {
                <p class="heap-current" data-dst={c.dst.to_string()} data-src={c.src.to_string()}>
                    <span class="heap-current-label">{ "candidate" }</span>
                    <code>{ format!("%{} ← %{}", c.dst, c.src) }</code>
                    <span class="heap-weight">{ format!("weight {}", c.weight) }</span>
                </p>
            }
            <div class="heap-lists">
                { entries(&h.heap, "heap") }
                { entries(&h.secondary, "secondary heap") }
            </div>
        </section>
    }
}
