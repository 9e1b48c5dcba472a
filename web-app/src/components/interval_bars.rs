//! Live intervals as bars over program points: one row per register (a merged register
//! is one row, listing what joined it), the verdict's overlapping spans in red.
//!
//! Geometry only: bar extents are the model's raw slot numbers mapped linearly onto the
//! drawing width; rows are keyed by register so a merge animates (CSS, `x`/`width`).

use web_engine::protocol::pictures::{Axis, BarRow, Verdict};
use yew::prelude::*;

/// Drawing width, the label column, row height and the axis band (SVG user units).
const WIDTH: u32 = 360;
const LABEL: u32 = 62;
const ROW: u32 = 20;
const AXIS: u32 = 22;

#[derive(Properties, PartialEq)]
pub struct IntervalBarsProps {
    pub axis: Axis,
    pub rows: Vec<BarRow>,
    pub hidden_rows: u32,
    pub verdict: Option<Verdict>,
}

/// `raw` slot number → x, clamped to the drawing.
fn x_of(axis: &Axis, raw: u32) -> u32 {
    let span = axis.end.saturating_sub(axis.start).max(1) as u64;
    let at = raw.clamp(axis.start, axis.end).saturating_sub(axis.start) as u64;
    LABEL + (at * (WIDTH - LABEL - 6) as u64 / span) as u32
}

fn row_label(r: &BarRow) -> String {
    match r.joined.len() {
        0 => format!("%{}", r.reg),
        n => format!("%{} +{n}", r.reg),
    }
}

#[function_component(IntervalBars)]
pub fn interval_bars(props: &IntervalBarsProps) -> Html {
    let a = &props.axis;
    let height = AXIS + props.rows.len() as u32 * ROW + 4;
    let row_y = |i: usize| AXIS + i as u32 * ROW;
    let spans_for = |reg: u32| -> Vec<(u32, u32)> {
        match &props.verdict {
            Some(v) if v.dst == reg || v.src == reg => v.spans.clone(),
            _ => Vec::new(),
        }
    };
    html! {
        <figure class="interval-bars">
            <svg viewBox={format!("0 0 {WIDTH} {height}")} role="img"
                 aria-labelledby="bars-title bars-desc" class="bars-svg"
                 style={format!("--w: {WIDTH}px")}>
                <title id="bars-title">{ "Live intervals" }</title>
                <desc id="bars-desc">{ format!(
                    "{} register rows over program points {} to {}; red spans mark where the two candidate registers hold different values at once.",
                    props.rows.len(), a.start / 4, a.end.div_ceil(4)) }</desc>
                <g class="bars-axis">
                    { for a.ticks.iter().map(|t| {
                        let x = x_of(a, t.at);
                        html! {
                            <g key={t.at} class="tick">
                                <line x1={x.to_string()} x2={x.to_string()} y1="14" y2={height.to_string()} />
                                <text x={x.to_string()} y="11" text-anchor="middle">{ t.label.clone() }</text>
                            </g>
                        }
                    }) }
                </g>
                { for props.rows.iter().enumerate().map(|(i, r)| {
                    let y = row_y(i);
                    let joined = if r.joined.is_empty() { String::new() } else {
                        format!("; joined: {}", r.joined.iter().map(|j| format!("%{j}")).collect::<Vec<_>>().join(", "))
                    };
                    html! {
                        <g key={r.reg} class={classes!("bar-row", (!r.role.is_empty()).then(|| format!("role-{}", r.role)), r.changed.then_some("changed"), (!r.joined.is_empty()).then_some("joined"))}
                           data-reg={r.reg.to_string()} data-hreg={format!("%{}", r.reg)} data-role={r.role.clone()}
                           data-joined={r.joined.iter().map(|j| j.to_string()).collect::<Vec<_>>().join(" ")}>
                            <title>{ format!("%{}: {}{joined}", r.reg, r.segments.iter().map(|b| b.text.as_str()).collect::<String>()) }</title>
                            <rect class="row-band" x="0" y={y.to_string()} width={WIDTH.to_string()} height={ROW.to_string()} />
                            <text class="row-label" x="4" y={(y + 14).to_string()}>{ row_label(r) }</text>
                            { for r.segments.iter().enumerate().map(|(k, b)| {
                                let (x0, x1) = (x_of(a, b.start), x_of(a, b.end));
                                html! {
                                    <rect key={k} class={classes!("bar", format!("val-{}", b.valno % 4))}
                                          x={x0.to_string()} y={(y + 4).to_string()}
                                          width={(x1.saturating_sub(x0)).max(2).to_string()} height={(ROW - 8).to_string()}
                                          data-start={b.start.to_string()} data-end={b.end.to_string()}
                                          data-valno={b.valno.to_string()} />
                                }
                            }) }
                            { for spans_for(r.reg).into_iter().map(|(s, e)| {
                                let (x0, x1) = (x_of(a, s), x_of(a, e));
                                html! {
                                    <rect class="conflict-span" x={x0.to_string()} y={(y + 1).to_string()}
                                          width={(x1.saturating_sub(x0)).max(3).to_string()} height={(ROW - 2).to_string()}
                                          data-start={s.to_string()} data-end={e.to_string()} />
                                }
                            }) }
                        </g>
                    }
                }) }
            </svg>
            <figcaption class="bars-legend">
                <span class="legend-item"><span class="swatch swatch-bar"></span>{ "live range (shade: value number)" }</span>
                <span class="legend-item"><span class="swatch swatch-candidate"></span>{ "the copy's registers" }</span>
                <span class="legend-item"><span class="swatch swatch-conflict"></span>{ "live together, different values" }</span>
                <span class="legend-item muted">{ "axis: instruction index (slot)" }</span>
                if props.hidden_rows > 0 {
                    <span class="legend-item muted">{ format!("{} more register(s) not drawn", props.hidden_rows) }</span>
                }
            </figcaption>
        </figure>
    }
}
