//! The EXTRACT_SUBREG fan-out as an SVG: the wide source, the pseudo, and one COPY per
//! def/use pair in pair order (done ones solid, the step's own one bold), each with its
//! two hint bits and tie mark, and a kill badge where the source's kill sits now.

use super::svg_style::SVG_STYLE;
use web_engine::protocol::pictures::{FanoutLayout, FanoutPicture};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FanoutPictureProps {
    pub picture: FanoutPicture,
}

#[function_component(FanoutPictureView)]
pub fn fanout_picture(props: &FanoutPictureProps) -> Html {
    let p = &props.picture;
    // Where the rows go is the engine's (`FanoutPicture::layout`).
    let FanoutLayout { width, height, mid } = p.layout();
    let has_kill = p.pairs.iter().any(|x| x.kill_moved);
    let kill_on_pseudo = has_kill && p.kill_on.is_none() && !p.erased;
    let done = p.pairs.iter().filter(|x| x.done).count();
    let title = format!(
        "EXTRACT_SUBREG fan-out in {}: %{} into {} COPYs, {} done",
        p.function,
        p.src,
        p.pairs.len(),
        done
    );
    let pseudo_class = if p.erased { "box gone" } else { "box pseudo" };
    html! {
        <svg class="pass-svg fanout-svg" xmlns="http://www.w3.org/2000/svg" role="img"
            width={width.to_string()} height={height.to_string()} style={format!("--w: {width}px")}
            viewBox={format!("0 0 {width} {height}")} aria-label={title.clone()}>
            <title>{ title }</title>
            <style>{ SVG_STYLE }</style>
            <rect class="bg" x="0" y="0" width={width.to_string()} height={height.to_string()} />
            <text class="head" x="12" y="22">
                { format!("Pseudo {} of {} · pairs done {} of {}", p.pseudo_index + 1, p.pseudo_count, done, p.total) }
            </text>
            // The wide source register.
            <rect class="box src" x="12" y={(mid - 18).to_string()} width="92" height="36" rx="6" />
            <text class="label" x="58" y={(mid + 5).to_string()} text-anchor="middle" data-hreg={format!("%{}", p.src)}>{ format!("%{}", p.src) }</text>
            <line class="edge done" x1="104" y1={mid.to_string()} x2="150" y2={mid.to_string()} />
            // The pseudo.
            <rect class={pseudo_class} x="150" y={(mid - 22).to_string()} width="128" height="44" rx="6" />
            <text class="label" x="214" y={(mid - 3).to_string()} text-anchor="middle">{ "EXTRACT_SUBREG" }</text>
            <text class="small" x="214" y={(mid + 13).to_string()} text-anchor="middle">
                { if p.erased { "erased".to_string() } else { format!("inst {}", p.pseudo) } }
            </text>
            if kill_on_pseudo {
                <g class="kill-badge">
                    <rect class="kill" x="236" y={(mid - 36).to_string()} width="40" height="16" rx="8" />
                    <text class="kill-text" x="256" y={(mid - 24).to_string()} text-anchor="middle">{ "kill" }</text>
                </g>
            }
            { for p.pairs.iter().enumerate().map(|(i, x)| {
                let y = FanoutLayout::row_y(i);
                let current = p.current == Some(x.pair);
                let edge = match (x.done, current) {
                    (_, true) => "edge current",
                    (true, false) => "edge done",
                    (false, false) => "edge todo",
                };
                let copy = if x.done { "box copy" } else { "box todo" };
                let lane = x.lane.map_or(String::new(), |l| format!(".sub{l}"));
                let (def, src) = (format!("%{}", x.def), format!("%{}", p.src));
                html! {
                    <g class={classes!("pair", current.then_some("current"))} data-pair={x.pair.to_string()}>
                        <path class={edge} d={format!("M278 {mid} C 300 {mid}, 300 {y}, 322 {y}")} />
                        <rect class={copy} x="322" y={(y - 13).to_string()} width="166" height="26" rx="4" />
                        <text class="code" x="330" y={(y + 4).to_string()}>
                            <tspan data-hreg={def.clone()}>{ def }</tspan>{ " = COPY " }<tspan data-hreg={src.clone()}>{ src }</tspan>{ lane }
                        </text>
                        <rect class={if x.hint_tied { "bit on" } else { "bit" }} x="494" y={(y - 9).to_string()} width="16" height="18" rx="3" />
                        <text class="bit-text" x="502" y={(y + 4).to_string()} text-anchor="middle">{ "T" }</text>
                        <rect class={if x.hint_early_tied { "bit on" } else { "bit" }} x="514" y={(y - 9).to_string()} width="16" height="18" rx="3" />
                        <text class="bit-text" x="522" y={(y + 4).to_string()} text-anchor="middle">{ "E" }</text>
                        if x.tie_marked && x.done {
                            <text class="tie" x="536" y={(y + 4).to_string()}>{ "tied2" }</text>
                        }
                        if p.kill_on == Some(x.pair) {
                            <g class="kill-badge">
                                <rect class="kill" x="446" y={(y - 22).to_string()} width="40" height="16" rx="8" />
                                <text class="kill-text" x="466" y={(y - 10).to_string()} text-anchor="middle">{ "kill" }</text>
                            </g>
                        }
                    </g>
                }
            }) }
            <text class="small" x="12" y={(height - 24).to_string()}>
                { "T: tied hint · E: early-tied hint · tied2: both set, so the COPY's def is marked tied" }
            </text>
            <text class="small" x="12" y={(height - 10).to_string()}>
                { "kill: where the wide source dies now (on the pseudo until a COPY takes it)" }
            </text>
        </svg>
    }
}
