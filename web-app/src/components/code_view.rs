//! A read-only, highlighted code pane that draws only the lines in view (a 40 000-line
//! function scrolls as smoothly as a 20-line one). Marked lines get a class and a
//! spoken label; registers named in `focus_regs` are outlined. When `scroll_key` changes
//! the pane scrolls its first mark into view. `gaps` puts blank rows between lines (the
//! before/after alignment), and a `linked` pane scrolls the other linked panes of its
//! `.ir-compare` with it, both ways.

use super::code_line::CodeLine;
use crate::model::highlight::Lang;
use crate::model::text::{scroll_for, window, Lines, RowMap, LINE_PX};
use std::rc::Rc;
use web_engine::protocol::{Gap, LineMark, MarkKind};
use web_sys::{Element, KeyboardEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CodeViewProps {
    /// The pane's accessible name ("IR after step 3").
    pub label: AttrValue,
    pub lines: Rc<Lines>,
    /// Sorted by line.
    #[prop_or_default]
    pub marks: Rc<Vec<LineMark>>,
    pub lang: Lang,
    #[prop_or_default]
    pub focus_regs: Rc<Vec<u32>>,
    /// Changes when the pane shows something new (scrolls to the first mark then).
    #[prop_or_default]
    pub scroll_key: AttrValue,
    /// Key presses inside the pane (step shortcuts).
    #[prop_or_default]
    pub onkeydown: Callback<KeyboardEvent>,
    #[prop_or_default]
    pub class: Classes,
    /// Error columns by 1-based line (the read-only source view).
    #[prop_or_default]
    pub errors: Rc<std::collections::BTreeMap<u32, u32>>,
    /// Blank rows between lines, to line this pane up with another.
    #[prop_or_default]
    pub gaps: Rc<Vec<Gap>>,
    /// Scrolling this pane scrolls the other linked panes of its `.ir-compare`.
    #[prop_or_default]
    pub linked: bool,
}

/// Gives every other linked pane of `el`'s `.ir-compare` the scroll offsets of `el`.
fn scroll_peers(el: &Element) {
    let Ok(Some(group)) = el.closest(".ir-compare") else {
        return;
    };
    let Ok(peers) = group.query_selector_all(".code-view.linked") else {
        return;
    };
    let (top, left) = (el.scroll_top(), el.scroll_left());
    for k in 0..peers.length() {
        let Some(peer) = peers
            .item(k)
            .and_then(|n| wasm_bindgen::JsCast::dyn_into::<Element>(n).ok())
        else {
            continue;
        };
        if peer != *el && (peer.scroll_top() != top || peer.scroll_left() != left) {
            peer.set_scroll_top(top);
            peer.set_scroll_left(left);
        }
    }
}

fn mark_at(marks: &[LineMark], line: usize) -> Option<MarkKind> {
    marks
        .binary_search_by_key(&(line as u32), |m| m.line)
        .ok()
        .map(|k| marks[k].kind)
}

#[function_component(CodeView)]
pub fn code_view(props: &CodeViewProps) -> Html {
    let node = use_node_ref();
    // (scroll top, viewport height) in CSS pixels.
    let viewport = use_state(|| (0.0f64, 600.0f64));
    let rows = use_memo((props.lines.len(), props.gaps.clone()), |(n, g)| {
        RowMap::new(*n, g)
    });
    let onscroll = {
        let viewport = viewport.clone();
        let node = node.clone();
        let linked = props.linked;
        Callback::from(move |_: Event| {
            if let Some(el) = node.cast::<Element>() {
                viewport.set((f64::from(el.scroll_top()), f64::from(el.client_height())));
                if linked {
                    scroll_peers(&el);
                }
            }
        })
    };
    {
        // Bring the first mark into view when the content changes.
        let node = node.clone();
        let viewport = viewport.clone();
        let first_mark = props.marks.first().map(|m| rows.row_of(m.line as usize));
        use_effect_with(props.scroll_key.clone(), move |_| {
            if let Some(el) = node.cast::<Element>() {
                let (top, height) = (f64::from(el.scroll_top()), f64::from(el.client_height()));
                let target = first_mark.and_then(|line| scroll_for(line, top, height));
                if let Some(y) = target {
                    el.set_scroll_top(y as i32);
                }
                viewport.set((f64::from(el.scroll_top()), height.max(LINE_PX)));
            }
        });
    }
    let total = rows.rows();
    let (top, height) = *viewport;
    let (first, last) = window(top, height, total);
    let digits = props.lines.len().to_string().len();
    let drawn = (first..last).map(|r| {
        let Some(i) = rows.line_at(r) else {
            return html! { <div key={r} class="code-line blank" aria-hidden="true"></div> };
        };
        html! {
            <CodeLine
                key={r}
                number={i + 1}
                text={AttrValue::from(props.lines.line(i).to_string())}
                lang={props.lang}
                mark={mark_at(&props.marks, i)}
                focus_regs={props.focus_regs.clone()}
                error_col={props.errors.get(&(i as u32 + 1)).copied()}
            />
        }
    });
    let style_spacer = format!("height: {}px", total as f64 * LINE_PX);
    let style_window = format!("transform: translateY({}px)", first as f64 * LINE_PX);
    html! {
        <div
            ref={node}
            class={classes!("code-view", props.linked.then_some("linked"), props.class.clone())}
            style={format!("--gutter: {}ch", digits + 1)}
            role="region"
            aria-label={props.label.clone()}
            tabindex="0"
            {onscroll}
            onkeydown={props.onkeydown.clone()}
        >
            <div class="code-spacer" style={style_spacer}>
                <div class="code-window" style={style_window}>
                    { for drawn }
                </div>
            </div>
        </div>
    }
}
