//! A GeneralOptimize stage as an SVG: the blocks × rounds grid (each cell its sub-pass
//! counters and whether the round changed the block, converged, or hit the budget), then
//! what the stage recorded besides: phase 37's cost curve against its threshold, phase
//! 58's six-slot MOV buffer with its index, and the flag bits marked on operands.
//! Where each part goes is the engine's (`GoPicture::layout`); this draws the parts.

use super::svg_style::SVG_STYLE;
use web_engine::protocol::pictures::{GoLayout, GoPicture};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct GoGridPictureProps {
    pub picture: GoPicture,
}

const LEFT: i32 = GoLayout::LEFT;
const COL: i32 = GoLayout::COL;
const LINE: i32 = GoLayout::LINE;

/// Text cut to `n` characters, with an ellipsis.
fn cut(s: &str, n: usize) -> String {
    let s = s.replace('\t', " ");
    if s.chars().count() <= n {
        s
    } else {
        let mut t: String = s.chars().take(n - 1).collect();
        t.push('…');
        t
    }
}

fn mask_name(mask: u32) -> &'static str {
    match mask {
        0x100 => "0x100 propagate",
        0x200 => "0x200 constant",
        0x400 => "0x400 known predicate",
        _ => "flag",
    }
}

#[function_component(GoGridPictureView)]
pub fn go_grid_picture(props: &GoGridPictureProps) -> Html {
    let p = &props.picture;
    let l = p.layout();
    let phase = p
        .phase
        .map_or("GeneralOptimize".to_string(), |n| format!("Phase {n}"));
    let title = format!(
        "{phase} grid at step {}: {} of {} rounds recorded, {} of {} marks",
        p.step,
        p.cells.len(),
        p.total_cells,
        p.marks.len(),
        p.total_marks
    );
    let (width, height) = (l.width, l.height);
    html! {
        <svg class="pass-svg go-svg" xmlns="http://www.w3.org/2000/svg" role="img"
            width={width.to_string()} height={height.to_string()} style={format!("--w: {width}px")}
            viewBox={format!("0 0 {width} {height}")} aria-label={title.clone()}>
            <title>{ title.clone() }</title>
            <style>{ SVG_STYLE }</style>
            <rect class="bg" x="0" y="0" width={width.to_string()} height={height.to_string()} />
            <text class="head" x="10" y="20">{ title }</text>
            { grid(p, &l) }
            { cost(p, &l) }
            { buffer(p, &l) }
            { marks(p, &l) }
            <text class="small" x="10" y={(height - 8).to_string()}>
                { "Cells: yellow changed the block, green converged, red stopped by the budget; the outlined cell is the latest." }
            </text>
        </svg>
    }
}

/// The blocks × rounds grid.
fn grid(p: &GoPicture, l: &GoLayout) -> Html {
    let rounds = p.rounds.max(1) as i32;
    let (grid_top, cell_h) = (l.grid_top, l.cell_h);
    let latest = p.cells.iter().map(|c| c.step).max();
    html! {
        <g class="grid">
            { for (1..=rounds).map(|r| html! {
                <text class="label" x={(GoLayout::round_x(r as u32) + COL / 2).to_string()} y={(grid_top - 8).to_string()} text-anchor="middle">
                    { format!("round {r}") }
                </text>
            }) }
            if p.blocks.is_empty() {
                <text class="small" x={LEFT.to_string()} y={(grid_top + 20).to_string()}>{ "No round recorded yet: step forward." }</text>
            }
            { for p.blocks.iter().enumerate().map(|(row, &b)| {
                let top = l.row_top(row);
                html! {
                    <g class="grid-row">
                        <text class="label" x="10" y={(top + 16).to_string()}>{ format!("block {b}") }</text>
                        { for (1..=rounds).map(|r| {
                            let x = GoLayout::round_x(r as u32);
                            match p.cell(b, r as u32) {
                                None => html! {},
                                Some(c) => {
                                    let state = if c.capped { "capped" } else if c.changed { "changed" } else { "converged" };
                                    let class = classes!("cell", state, (Some(c.step) == latest).then_some("latest"));
                                    html! {
                                        <g class="grid-cell" data-block={b.to_string()} data-round={r.to_string()}>
                                            <rect class={class} x={x.to_string()} y={top.to_string()} width={(COL - 8).to_string()} height={cell_h.to_string()} rx="4" />
                                            <text class="label" x={(x + 6).to_string()} y={(top + 15).to_string()}>
                                                { format!("{state} · step {}", c.step) }
                                            </text>
                                            { for c.counters.iter().enumerate().map(|(k, (name, v))| html! {
                                                <text class={if *v == 0 { "small zero" } else { "small" }} x={(x + 6).to_string()} y={(top + 30 + k as i32 * LINE).to_string()}>
                                                    { format!("{}: {v}", cut(name, 20)) }
                                                </text>
                                            }) }
                                        </g>
                                    }
                                }
                            }
                        }) }
                    </g>
                }
            }) }
        </g>
    }
}

/// Phase 37's cost curve: the weighted total per round, each round's delta as a bar,
/// and the threshold the delta must reach for another round.
fn cost(p: &GoPicture, l: &GoLayout) -> Html {
    if p.total_costs == 0 {
        return html! {};
    }
    let cost_top = l.cost_top;
    {
        let (cw, ch) = (GoLayout::COST_W, GoLayout::COST_H);
        let (cx, cy) = l.cost_plot();
        let max = p
            .costs
            .iter()
            .flat_map(|c| [c.weighted, c.delta, c.threshold])
            .fold(0.25f64, f64::max)
            * 1.15;
        let n = p.costs.len().max(1) as f64;
        let px = |i: usize| cx as f64 + (i as f64 + 0.5) * cw as f64 / n.max(2.0);
        let py = |v: f64| (cy + ch) as f64 - v / max * ch as f64;
        let threshold = p.costs.first().map(|c| c.threshold);
        let points: Vec<String> = p
            .costs
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{:.1},{:.1}", px(i), py(c.weighted)))
            .collect();
        html! {
            <g class="cost">
                <text class="head" x="10" y={(cost_top + 10).to_string()}>
                    { format!("Cost per round ({} of {} recorded): bars the round's delta, line the weighted total", p.costs.len(), p.total_costs) }
                </text>
                <line class="axis" x1={cx.to_string()} y1={(cy + ch).to_string()} x2={(cx + cw).to_string()} y2={(cy + ch).to_string()} />
                <line class="axis" x1={cx.to_string()} y1={cy.to_string()} x2={cx.to_string()} y2={(cy + ch).to_string()} />
                { for p.costs.iter().enumerate().map(|(i, c)| {
                    let under = c.delta < c.threshold;
                    let top = py(c.delta);
                    html! {
                        <g class="cost-round" data-round={c.round.to_string()}>
                            <rect class={if under { "bar under" } else { "bar" }} x={format!("{:.1}", px(i) - 14.0)} y={format!("{top:.1}")}
                                width="28" height={format!("{:.1}", (cy + ch) as f64 - top)} />
                            <text class="small" x={format!("{:.1}", px(i))} y={(cy + ch + 13).to_string()} text-anchor="middle">
                                { format!("round {} · Δ {:.2}", c.round, c.delta) }
                            </text>
                            <circle class="dot" cx={format!("{:.1}", px(i))} cy={format!("{:.1}", py(c.weighted))} r="4" />
                        </g>
                    }
                }) }
                if points.len() > 1 {
                    <polyline class="curve" points={points.join(" ")} />
                }
                if let Some(t) = threshold {
                    <line class="threshold" x1={cx.to_string()} y1={format!("{:.1}", py(t))} x2={(cx + cw).to_string()} y2={format!("{:.1}", py(t))} />
                    <text class="small" x={(cx + cw + 6).to_string()} y={format!("{:.1}", py(t) + 4.0)}>{ format!("threshold {t:.2}") }</text>
                }
                if p.costs.is_empty() {
                    <text class="small" x={(cx + 10).to_string()} y={(cy + 40).to_string()}>{ "No round has been costed yet." }</text>
                }
            </g>
        }
    }
}

/// Phase 58's buffer: six slots in two rows, the index pointing at the next to fill.
fn buffer(p: &GoPicture, l: &GoLayout) -> Html {
    let buffer_top = l.buffer_top;
    match &p.buffer {
        None => html! {},
        Some(b) => html! {
            <g class="buffer">
                <text class="head" x="10" y={(buffer_top + 10).to_string()}>
                    { format!("MOV buffer of block {} after step {} (next slot: {})", b.block, b.step, b.index % 6) }
                </text>
                { for b.slots.iter().enumerate().map(|(k, slot)| {
                    let (x, top) = l.slot_origin(k);
                    let class = match slot {
                        None => "slot",
                        Some((_, None)) => "slot full",
                        Some((_, Some(_))) => "slot pair",
                    };
                    html! {
                        <g class="buffer-slot" data-slot={k.to_string()}>
                            <rect class={class} x={x.to_string()} y={top.to_string()} width={(COL - 8).to_string()} height="44" rx="4" />
                            <text class="small" x={(x + 4).to_string()} y={(top + 12).to_string()}>{ format!("slot {k}") }</text>
                            if let Some((first, second)) = slot {
                                <text class="code" x={(x + 4).to_string()} y={(top + 26).to_string()}>{ cut(first, 22) }</text>
                                if let Some(second) = second {
                                    <text class="code" x={(x + 4).to_string()} y={(top + 39).to_string()}>{ format!("= {}", cut(second, 20)) }</text>
                                }
                            }
                            if k as u32 == b.index % 6 {
                                <path class="pointer" d={format!("M{} {} l-6 -9 h12 z", x - 6, top + 22)} />
                            }
                        </g>
                    }
                }) }
            </g>
        },
    }
}

/// The marks, operand by operand.
fn marks(p: &GoPicture, l: &GoLayout) -> Html {
    let (marks_top, width) = (l.marks_top, l.width);
    if p.marks.is_empty() {
        html! {}
    } else {
        html! {
            <g class="marks">
                <text class="head" x="10" y={(marks_top + 10).to_string()}>
                    { format!("Marks on operands ({} of {})", p.marks.len(), p.total_marks) }
                </text>
                { for p.marks.iter().enumerate().map(|(k, m)| {
                    let top = l.mark_top(k);
                    html! {
                        <g class="mark-row">
                            <rect class="mark" x="10" y={top.to_string()} width={(width - 20).to_string()} height="15" rx="3" />
                            <text class="code" x="16" y={(top + 11).to_string()}>
                                { format!("step {:>2} · inst {} operand {} (class {}): {:#x} → {:#x}  {}", m.step, m.inst, m.operand, m.class, m.before, m.after, mask_name(m.mask)) }
                            </text>
                        </g>
                    }
                }) }
            </g>
        }
    }
}
