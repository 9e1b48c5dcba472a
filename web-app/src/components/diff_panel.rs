//! A line diff of the module between any two steps of the shown stage: two step fields,
//! shortcuts for the usual pairs, then the changed lines with a little context (longer
//! unchanged runs fold into "… N unchanged lines").

use crate::model::highlight::Lang;
use crate::state::Action;
use std::rc::Rc;
use web_engine::protocol::{DiffLine, DiffView};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use super::code_line::CodeLine;

#[derive(Properties, PartialEq)]
pub struct DiffPanelProps {
    pub from: u32,
    pub to: u32,
    pub step: u32,
    pub total: u32,
    pub diff: Option<Rc<DiffView>>,
    pub on_action: Callback<Action>,
}

#[function_component(DiffPanel)]
pub fn diff_panel(props: &DiffPanelProps) -> Html {
    let (from, to) = (props.from, props.to);
    let set_from = props.on_action.reform(move |e: Event| {
        let el: HtmlInputElement = e.target_unchecked_into();
        Action::SetDiffRange {
            from: el.value().parse().unwrap_or(0),
            to,
        }
    });
    let set_to = props.on_action.reform(move |e: Event| {
        let el: HtmlInputElement = e.target_unchecked_into();
        Action::SetDiffRange {
            from,
            to: el.value().parse().unwrap_or(0),
        }
    });
    let pair = |label: &'static str, a: u32, b: u32| {
        html! {
            <button type="button" class="button small"
                onclick={props.on_action.reform(move |_| Action::SetDiffRange { from: a, to: b })}>
                { label }
            </button>
        }
    };
    let current = props.diff.as_ref().filter(|d| (d.from, d.to) == (from, to));
    html! {
        <section class="diff-panel" aria-labelledby="diff-heading">
            <h2 id="diff-heading" class="visually-hidden">{ "Diff between two steps" }</h2>
            <div class="panel-toolbar wrap">
                <label class="inline-field">{ "From step " }
                    <input type="number" class="step-number" min="0" max={props.total.to_string()}
                        value={from.to_string()} onchange={set_from} />
                </label>
                <label class="inline-field">{ "to step " }
                    <input type="number" class="step-number" min="0" max={props.total.to_string()}
                        value={to.to_string()} onchange={set_to} />
                </label>
                { pair("input → current", 0, props.step) }
                { pair("previous → current", props.step.saturating_sub(1), props.step) }
                { pair("input → end", 0, props.total) }
            </div>
            { match current {
                None => html! { <p class="muted" aria-busy="true">{ "Computing the diff…" }</p> },
                Some(d) => html! {
                    <>
                        <p class="diff-summary" aria-live="polite">
                            { format!("Step {} → step {}: {} lines added, {} removed.", d.from, d.to, d.added, d.removed) }
                            if d.truncated { { " The list is cut short." } }
                        </p>
                        if d.added + d.removed > 0 {
                            <div class="diff-lines" role="region" aria-label="Changed lines" tabindex="0">
                                { for d.lines.iter().enumerate().map(|(k, l)| diff_row(k, l)) }
                            </div>
                        }
                    </>
                },
            } }
        </section>
    }
}

fn diff_row(k: usize, line: &DiffLine) -> Html {
    let (class, sign, number, text) = match line {
        DiffLine::Skipped { count } => {
            return html! {
                <div key={k} class="diff-line skipped">{ format!("… {count} unchanged lines") }</div>
            }
        }
        DiffLine::Same { new, text, .. } => ("same", " ", *new, text),
        DiffLine::Added { new, text } => ("added", "+", *new, text),
        DiffLine::Removed { old, text } => ("removed", "−", *old, text),
    };
    let spoken = match class {
        "added" => "added: ",
        "removed" => "removed: ",
        _ => "",
    };
    html! {
        <div key={k} class={classes!("diff-line", class)}>
            <span class="diff-sign" aria-hidden="true">{ sign }</span>
            <span class="visually-hidden">{ spoken }</span>
            <CodeLine number={number as usize} text={AttrValue::from(text.clone())} lang={Lang::Mir} />
        </div>
    }
}
