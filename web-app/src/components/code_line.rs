//! One highlighted line of code: its number, its tokens, and its mark (inserted, erased,
//! changed, moved, focus) or error column. Used by the IR panes and the editor overlay.

use crate::model::highlight::{tokenize, Lang, Tok};
use std::rc::Rc;
use web_engine::protocol::MarkKind;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CodeLineProps {
    /// 1-based.
    pub number: usize,
    pub text: AttrValue,
    pub lang: Lang,
    #[prop_or_default]
    pub mark: Option<MarkKind>,
    #[prop_or_default]
    pub focus_regs: Rc<Vec<u32>>,
    /// 1-based column of an error on this line.
    #[prop_or_default]
    pub error_col: Option<u32>,
    /// Leave out the line number (the editor draws its own gutter).
    #[prop_or_default]
    pub no_number: bool,
}

/// `%N` with N in `regs`.
fn is_focus_reg(text: &str, regs: &[u32]) -> bool {
    text.strip_prefix('%')
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| regs.contains(&n))
}

#[function_component(CodeLine)]
pub fn code_line(props: &CodeLineProps) -> Html {
    let text: &str = &props.text;
    let tokens = tokenize(props.lang, text).into_iter().map(|(tok, range)| {
        let piece = &text[range];
        if tok == Tok::Plain {
            return html! { piece };
        }
        let focus = tok == Tok::Reg && is_focus_reg(piece, &props.focus_regs);
        let hreg = (tok == Tok::Reg).then(|| piece.to_string());
        html! { <span class={classes!(tok.class(), focus.then_some("tok-focus"))} data-hreg={hreg}>{ piece }</span> }
    });
    let mark_class = props.mark.map(|m| format!("mark-{}", m.name()));
    html! {
        <div
            class={classes!("code-line", mark_class, props.error_col.is_some().then_some("has-error"))}
            data-line={props.number.to_string()}
        >
            if !props.no_number {
                <span class="ln" aria-hidden="true">{ props.number }</span>
            }
            <span class="code">
                if let Some(mark) = props.mark {
                    <span class="visually-hidden">{ format!("({}) ", mark.name()) }</span>
                }
                { for tokens }
                if text.is_empty() { { "\u{200b}" } }
            </span>
            if let Some(col) = props.error_col {
                <span
                    class="error-caret"
                    aria-hidden="true"
                    style={format!("--col: {}", col.saturating_sub(1))}
                ></span>
            }
        </div>
    }
}
