//! The NVPTX coalescer's red-black interval tree as SVG. Nodes are keyed by the pass's
//! node id and placed with a CSS transform, so a rotation slides them to their new
//! places and a recolouring fades (both off under `prefers-reduced-motion`). Colour is
//! never the only signal: every node also carries an R or B letter.

use compiler_core::SlotIndex;
use web_engine::protocol::pictures::{TreeNode, TreePicture};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RbTreeProps {
    pub tree: TreePicture,
}

fn node_title(n: &TreeNode) -> String {
    let lane = n.lane.map(|l| format!(".sub{l}")).unwrap_or_default();
    format!(
        "%{}{lane}: extent [{}, {}), {} node; largest end below it {}",
        n.reg,
        SlotIndex::from_raw(n.start),
        SlotIndex::from_raw(n.end),
        if n.red { "red" } else { "black" },
        SlotIndex::from_raw(n.max_end)
    )
}

fn opt(id: Option<u32>) -> String {
    id.map(|i| i.to_string()).unwrap_or_default()
}

#[function_component(RbTree)]
pub fn rb_tree(props: &RbTreeProps) -> Html {
    let t = &props.tree;
    let pos = |id: u32| t.nodes.iter().find(|n| n.id == id).map(|n| (n.x, n.y));
    let hidden = t.total as usize - t.nodes.len();
    html! {
        <figure class="rb-tree">
            <svg viewBox={format!("0 0 {} {}", t.width, t.height)} role="img"
                 aria-labelledby="tree-title tree-desc" class="tree-svg"
                 style={format!("--w: {}px", t.width)}>
                <title id="tree-title">{ "Red-black interval tree" }</title>
                <desc id="tree-desc">{ format!(
                    "{} extents ordered by interval, then start, {} drawn; this step: {} inserted, {} removed, {} rotations, {} recolourings.",
                    t.total, t.nodes.len(), t.inserted, t.removed, t.rotations, t.recolors) }</desc>
                <g class="tree-edges">
                    { for t.nodes.iter().filter_map(|n| {
                        let (px, py) = pos(n.parent?)?;
                        Some(html! {
                            <path key={n.id} class="tree-edge"
                                  style={format!("d: path('M {px} {py} L {} {}')", n.x, n.y)} />
                        })
                    }) }
                </g>
                { for t.nodes.iter().map(|n| html! {
                    <g key={n.id}
                       class={classes!("rb-node", if n.red { "red" } else { "black" }, n.touched.then_some("touched"), n.candidate.then_some("candidate"))}
                       style={format!("transform: translate({}px, {}px)", n.x, n.y)}
                       data-node-id={n.id.to_string()} data-key={n.key.to_string()} data-hreg={format!("%{}", n.reg)}
                       data-start={n.start.to_string()} data-end={n.end.to_string()}
                       data-max-end={n.max_end.to_string()}
                       data-color={if n.red { "red" } else { "black" }}
                       data-parent={opt(n.parent)} data-left={opt(n.left)} data-right={opt(n.right)}>
                        <title>{ node_title(n) }</title>
                        <circle r="21" />
                        <text class="node-reg" y="0" text-anchor="middle">
                            { format!("%{}{}", n.reg, n.lane.map(|l| format!(".{l}")).unwrap_or_default()) }
                        </text>
                        <text class="node-colour" y="13" text-anchor="middle">{ if n.red { "R" } else { "B" } }</text>
                    </g>
                }) }
            </svg>
            <figcaption class="tree-legend">
                <span class="legend-item"><span class="swatch swatch-red"></span>{ "R: red node" }</span>
                <span class="legend-item"><span class="swatch swatch-black"></span>{ "B: black node" }</span>
                <span class="legend-item"><span class="swatch swatch-touched"></span>{ "changed at this step" }</span>
                <span class="legend-item"><span class="swatch swatch-node-candidate"></span>{ "the copy's registers" }</span>
                if hidden > 0 {
                    <span class="legend-item muted">{ format!("{hidden} deeper node(s) not drawn") }</span>
                }
            </figcaption>
        </figure>
    }
}
