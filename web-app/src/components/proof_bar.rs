//! The stage's proof under the narration: the verifier's verdict on the stage's output
//! and the interpreter's comparison of its input and output (`web_engine::protocol::proof`), green
//! when both hold, red when either fails, with the launches and the words compared one
//! click away.

use std::rc::Rc;
use web_engine::protocol::proof::{Proof, Status, Verdict};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ProofBarProps {
    pub proof: Option<Rc<Proof>>,
}

fn status_id(s: Status) -> &'static str {
    match s {
        Status::Pass => "pass",
        Status::Fail => "fail",
        Status::Unknown => "unknown",
    }
}

fn verdict_line(who: &'static str, v: &Verdict) -> Html {
    let mark = match v.status {
        Status::Pass => "✔",
        Status::Fail => "✘",
        Status::Unknown => "?",
    };
    html! {
        <li class={classes!("proof-verdict", format!("proof-{}", status_id(v.status)))}
            data-check={who.to_lowercase()}>
            <span aria-hidden="true">{ mark }</span>
            <strong>{ format!(" {who}: ") }</strong>{ v.text.clone() }
        </li>
    }
}

fn details(v: &Verdict) -> Html {
    html! {
        if !v.details.is_empty() {
            <ul class="proof-notes">{ for v.details.iter().take(20).map(|d| html! { <li>{ d.clone() }</li> }) }</ul>
        }
    }
}

#[function_component(ProofBar)]
pub fn proof_bar(props: &ProofBarProps) -> Html {
    let Some(p) = &props.proof else {
        return html! {};
    };
    let status = status_id(p.status());
    let headline = match p.status() {
        Status::Pass => "Proof: this stage kept the program's meaning",
        Status::Fail => "Proof failed: this stage's output is broken",
        Status::Unknown => "Proof: partly checked",
    };
    let rows = p.launches.iter().flat_map(|l| {
        let n = l.values.len().max(1);
        let head = html! {
            <>
                <td rowspan={n.to_string()}>{ &l.function }</td>
                <td rowspan={n.to_string()}>{ l.seed }</td>
                <td rowspan={n.to_string()}>{ &l.shape }</td>
                <td rowspan={n.to_string()} class={if l.equal { "proof-pass" } else { "proof-fail" }}>{ &l.result }</td>
            </>
        };
        let mut out = vec![];
        if l.values.is_empty() {
            out.push(html! { <tr>{ head.clone() }<td colspan="3" class="muted">{ "no values (see the result)" }</td></tr> });
        }
        for (k, (name, before, after)) in l.values.iter().enumerate() {
            let differ = before != after;
            out.push(html! {
                <tr class={differ.then_some("proof-differ")}>
                    if k == 0 { { head.clone() } }
                    <td>{ name }</td><td><code>{ before }</code></td><td><code>{ after }</code></td>
                </tr>
            });
        }
        out
    });
    html! {
        <section class={classes!("proof", format!("proof-{status}"))} aria-label="Proof for this stage"
            data-status={status}>
            <p class="proof-headline">{ headline }</p>
            <ul class="proof-verdicts">
                { verdict_line("Verifier", &p.verifier) }
                { verdict_line("Interpreter", &p.interpreter) }
            </ul>
            if let Some(f) = &p.fault {
                <p class="proof-fault">{ format!("Test fault injected on purpose: {f}.") }</p>
            }
            <details class="proof-details">
                <summary>{ format!("What was checked ({} launches)", p.launches.len()) }</summary>
                { details(&p.verifier) }
                { details(&p.interpreter) }
                if !p.launches.is_empty() {
                    <div class="proof-table-wrap">
                        <table class="proof-table">
                            <caption class="visually-hidden">{ "Values compared, launch by launch" }</caption>
                            <thead><tr>
                                <th scope="col">{ "Function" }</th><th scope="col">{ "Seed" }</th>
                                <th scope="col">{ "Launch" }</th><th scope="col">{ "Result" }</th>
                                <th scope="col">{ "Memory" }</th><th scope="col">{ "Input's run" }</th>
                                <th scope="col">{ "Output's run" }</th>
                            </tr></thead>
                            <tbody>{ for rows }</tbody>
                        </table>
                    </div>
                }
            </details>
        </section>
    }
}
