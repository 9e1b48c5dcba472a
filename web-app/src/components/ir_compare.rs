//! The IR before and after the current step, side by side, with the step's touched lines
//! marked (inserted, erased, changed, moved, focus) and a legend. At step 0 the panes
//! show the stage's input and its output. The panes are aligned row by row (the view's
//! line diff puts blank rows opposite inserted and erased lines) and scroll together,
//! down and sideways. The panes stay the same elements from step to step, so keyboard
//! focus in a pane survives stepping. The register under the mouse is highlighted in
//! both panes and the picture (`reg_hover`).

use super::code_view::CodeView;
use crate::model::highlight::Lang;
use crate::model::text::Lines;
use std::rc::Rc;
use web_engine::protocol::{Gap, LineMark, MarkKind, StepView};
use web_sys::KeyboardEvent;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct IrCompareProps {
    pub view: Rc<StepView>,
    /// True while a newer step is loading (the panes dim).
    #[prop_or_default]
    pub stale: bool,
    /// Step shortcuts inside the panes.
    #[prop_or_default]
    pub onkeydown: Callback<KeyboardEvent>,
}

/// Lines and marks prepared once per view.
struct Prepared {
    before: Rc<Lines>,
    before_marks: Rc<Vec<LineMark>>,
    after: Option<(Rc<Lines>, Rc<Vec<LineMark>>)>,
    focus: Rc<Vec<u32>>,
    /// Blank rows for each pane.
    before_gaps: Rc<Vec<Gap>>,
    after_gaps: Rc<Vec<Gap>>,
}

const LEGEND: [(MarkKind, &str); 5] = [
    (MarkKind::Inserted, "inserted"),
    (MarkKind::Erased, "erased"),
    (MarkKind::Changed, "changed"),
    (MarkKind::Moved, "moved"),
    (MarkKind::Focus, "the step's subject"),
];

#[function_component(IrCompare)]
pub fn ir_compare(props: &IrCompareProps) -> Html {
    use_effect_with((), |_| super::reg_hover::install());
    let prepared = use_memo(props.view.clone(), |v| Prepared {
        before: Rc::new(Lines::new(v.before.text.as_str())),
        before_marks: Rc::new(v.before.marks.clone()),
        after: v.after.as_ref().map(|a| {
            (
                Rc::new(Lines::new(a.text.as_str())),
                Rc::new(a.marks.clone()),
            )
        }),
        focus: Rc::new(v.focus_regs.clone()),
        before_gaps: Rc::new(v.align.before.clone()),
        after_gaps: Rc::new(v.align.after.clone()),
    });
    let linked = prepared.after.is_some();
    let v = &props.view;
    let key: AttrValue = format!("{}:{}:{}", v.run_id, v.stage.id(), v.step).into();
    let lang = Lang::Mir;
    let used: Vec<MarkKind> = LEGEND
        .iter()
        .map(|l| l.0)
        .filter(|k| {
            prepared.before_marks.iter().any(|m| m.kind == *k)
                || prepared
                    .after
                    .as_ref()
                    .is_some_and(|a| a.1.iter().any(|m| m.kind == *k))
        })
        .collect();
    html! {
        <div class={classes!("ir-compare", props.stale.then_some("stale"), prepared.after.is_none().then_some("single"))}>
            <div class="ir-pane">
                <h3 class="pane-title">
                    { if v.step == 0 { "Stage input".to_string() } else { format!("Before step {}", v.step) } }
                </h3>
                <CodeView
                    label={if v.step == 0 { "IR: stage input".to_string() } else { format!("IR before step {}", v.step) }}
                    lines={prepared.before.clone()}
                    marks={prepared.before_marks.clone()}
                    {lang}
                    focus_regs={prepared.focus.clone()}
                    scroll_key={key.clone()}
                    onkeydown={props.onkeydown.clone()}
                    gaps={prepared.before_gaps.clone()}
                    {linked}
                    class={classes!("ir-before")}
                />
            </div>
            if let Some((lines, marks)) = &prepared.after {
                <div class="ir-pane">
                    <h3 class="pane-title">
                        { if v.step == 0 { "Stage output (after every step)".to_string() } else { format!("After step {}", v.step) } }
                    </h3>
                    <CodeView
                        label={if v.step == 0 { "IR: stage output".to_string() } else { format!("IR after step {}", v.step) }}
                        lines={lines.clone()}
                        marks={marks.clone()}
                        {lang}
                        focus_regs={prepared.focus.clone()}
                        scroll_key={key.clone()}
                        onkeydown={props.onkeydown.clone()}
                        gaps={prepared.after_gaps.clone()}
                        {linked}
                        class={classes!("ir-after")}
                    />
                </div>
            }
            if !used.is_empty() {
                <ul class="legend" aria-label="Highlight colours">
                    { for LEGEND.iter().filter(|l| used.contains(&l.0)).map(|(kind, text)| html! {
                        <li><span class={classes!("swatch", format!("mark-{}", kind.name()))}></span>{ *text }</li>
                    }) }
                </ul>
            }
        </div>
    }
}
