//! The shown stage's counters, remarks and verifier result, and how long the run took.

use compiler_core::Stage;
use web_engine::protocol::StageSummary;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StatsPanelProps {
    pub stage: Stage,
    pub summary: StageSummary,
    pub elapsed_ms: f64,
}

#[function_component(StatsPanel)]
pub fn stats_panel(props: &StatsPanelProps) -> Html {
    let s = &props.summary;
    let changing = s.noop.iter().filter(|n| !**n).count();
    html! {
        <section class="stats-panel" aria-labelledby="stats-heading">
            <h2 id="stats-heading" class="panel-title">{ format!("{} · counters", props.stage) }</h2>
            <p class="muted">
                { format!("{} steps ({changing} change the IR) over {} function(s); the whole run took {:.0} ms.",
                    s.steps, s.functions.len(), props.elapsed_ms) }
            </p>
            <table class="stats-table">
                <caption class="visually-hidden">{ "Counters of this stage" }</caption>
                <thead><tr><th scope="col">{ "counter" }</th><th scope="col">{ "value" }</th></tr></thead>
                <tbody>
                    { for s.stats.iter().map(|(name, value)| html! {
                        <tr class={classes!((*value == 0).then_some("zero"))}>
                            <th scope="row"><code>{ name.clone() }</code></th>
                            <td>{ value }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            <h3 class="panel-subtitle">{ "Verifier" }</h3>
            <p>
                { match &s.verify {
                    None => html! { "Not run (switch it on in the Knobs tab)." },
                    Some(v) if v.is_empty() => html! { <span class="ok">{ "The output passes every rule." }</span> },
                    Some(v) => html! {
                        <ul class="verify-errors">{ for v.iter().map(|e| html! { <li>{ e.clone() }</li> }) }</ul>
                    },
                } }
            </p>
            <h3 class="panel-subtitle">{ format!("Remarks ({})", s.remarks_total) }</h3>
            if s.remarks.is_empty() {
                <p class="muted">{ "None." }</p>
            } else {
                <ul class="remarks">
                    { for s.remarks.iter().map(|r| html! { <li>{ r.clone() }</li> }) }
                </ul>
                if s.remarks_total as usize > s.remarks.len() {
                    <p class="muted">{ format!("… and {} more.", s.remarks_total as usize - s.remarks.len()) }</p>
                }
            }
        </section>
    }
}
