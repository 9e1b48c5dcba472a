//! What a tour stop highlights, as CSS: the engine names lines and picture parts
//! (`TourTarget`), this turns them into selectors of the page's elements and one style
//! rule, which the tour card puts on the page (so lines the panes draw later, when
//! scrolled into view, are highlighted too).

use web_engine::protocol::{PictureTarget, TourTarget};

/// Selectors of the HTML elements (code lines) a target names.
pub fn line_selectors(t: &TourTarget) -> Vec<String> {
    let pane = |p: &str, l: &u32| format!(".ir-{p} .code-line[data-line=\"{}\"]", l + 1);
    (t.before_lines.iter().map(|l| pane("before", l)))
        .chain(t.after_lines.iter().map(|l| pane("after", l)))
        .collect()
}

/// Selectors of the SVG parts a target names.
pub fn picture_selectors(t: &TourTarget) -> Vec<String> {
    match &t.picture {
        None => Vec::new(),
        Some(PictureTarget::TreeNodes(regs)) => (regs.iter())
            .map(|r| format!(".tree-svg .rb-node[data-hreg=\"%{r}\"]"))
            .collect(),
        Some(PictureTarget::BarRows(regs)) => (regs.iter())
            .map(|r| format!(".bars-svg .bar-row[data-reg=\"{r}\"]"))
            .collect(),
        Some(PictureTarget::FanoutPair(Some(n))) => {
            vec![format!(".fanout-svg .pair[data-pair=\"{n}\"]")]
        }
        Some(PictureTarget::FanoutPair(None)) => vec![".fanout-svg > text[data-hreg]".into()],
        Some(PictureTarget::GridCell { block, round }) => vec![format!(
            ".pass-svg .grid-cell[data-block=\"{block}\"][data-round=\"{round}\"]"
        )],
        Some(PictureTarget::CostRound(r)) => {
            vec![format!(".pass-svg .cost-round[data-round=\"{r}\"]")]
        }
        Some(PictureTarget::MovBuffer) => vec![".pass-svg .buffer".into()],
        Some(PictureTarget::Tree) => vec![".tree-svg".into()],
        Some(PictureTarget::Whole) => vec![".pass-picture svg".into()],
    }
}

/// The style rule that highlights everything a target names.
pub fn style(t: &TourTarget) -> String {
    let lines = line_selectors(t);
    let parts = picture_selectors(t);
    let mut css = String::new();
    if !lines.is_empty() {
        css += &format!(
            "{} {{ outline: 3px solid var(--focus); outline-offset: -3px; animation: tour-pulse 1.2s ease-in-out 2; }}\n",
            lines.join(", ")
        );
    }
    if !parts.is_empty() {
        let shapes: Vec<String> = (parts.iter())
            .map(|p| format!("{p} rect, {p} circle, {p} path"))
            .collect();
        css += &format!(
            "{} {{ outline: 3px solid var(--focus); animation: tour-pulse 1.2s ease-in-out 2; }}\n{} {{ stroke: var(--focus); stroke-width: 4px; }}\n",
            parts.join(", "),
            shapes.join(", ")
        );
    }
    css
}

/// In words, for the card ("lines 3, 4 of the IR and the tree nodes of %5").
pub fn describe(t: &TourTarget) -> String {
    let n = t.before_lines.len().max(t.after_lines.len());
    let lines = match n {
        0 => None,
        1 => Some("the highlighted line of the IR".to_string()),
        n => Some(format!("the {n} highlighted lines of the IR")),
    };
    let regs = |r: &[u32]| {
        r.iter()
            .map(|r| format!("%{r}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let part = t.picture.as_ref().map(|p| match p {
        PictureTarget::TreeNodes(r) => format!("the tree nodes of {}", regs(r)),
        PictureTarget::BarRows(r) => format!("the live ranges of {}", regs(r)),
        PictureTarget::FanoutPair(Some(n)) => format!("pair {n} of the fan-out"),
        PictureTarget::FanoutPair(None) => "the wide source in the fan-out".into(),
        PictureTarget::GridCell { block, round } => {
            format!("block {block}, round {round} of the grid")
        }
        PictureTarget::CostRound(r) => format!("round {r} of the cost curve"),
        PictureTarget::MovBuffer => "the MOV buffer".into(),
        PictureTarget::Tree => "the interval tree".into(),
        PictureTarget::Whole => "the picture".into(),
    });
    match (lines, part) {
        (Some(l), Some(p)) => format!("Look at {l} and {p}."),
        (Some(l), None) => format!("Look at {l}."),
        (None, Some(p)) => format!("Look at {p}."),
        (None, None) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_one_based_and_picture_parts_name_their_elements() {
        let t = TourTarget {
            before_lines: vec![0, 4],
            after_lines: vec![2],
            picture: Some(PictureTarget::TreeNodes(vec![7])),
        };
        assert_eq!(
            line_selectors(&t),
            [
                ".ir-before .code-line[data-line=\"1\"]",
                ".ir-before .code-line[data-line=\"5\"]",
                ".ir-after .code-line[data-line=\"3\"]"
            ]
        );
        assert_eq!(
            picture_selectors(&t),
            [".tree-svg .rb-node[data-hreg=\"%7\"]"]
        );
        let css = style(&t);
        assert!(
            css.contains("outline: 3px solid") && css.contains("stroke-width: 4px"),
            "{css}"
        );
        assert_eq!(
            describe(&t),
            "Look at the 2 highlighted lines of the IR and the tree nodes of %7."
        );
        assert_eq!(style(&TourTarget::default()), "");
    }
}
