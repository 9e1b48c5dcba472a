//! The source editor: a plain `<textarea>` (so typing, selection, undo and screen readers
//! behave as the browser makes them) over a highlighted copy of the lines in view, with
//! a line-number gutter. Errors from the last run mark their line and column and are
//! listed under the editor; each entry moves the cursor there. The format is detected
//! from the text and can be forced.
//!
//! A source longer than [`LARGE_SOURCE_LINES`] (a pasted 20 000-instruction function) is
//! shown read-only, drawing only the lines in view: a browser text area that large costs
//! long layouts that would stall the page. "Edit as text" brings the text area back.

use super::code_line::CodeLine;
use super::code_view::CodeView;
use crate::model::highlight::Lang;
use crate::model::text::{scroll_for, window, Lines, LINE_PX};
use crate::state::Action;
use compiler_core::InputFormat;
use std::collections::BTreeMap;
use std::rc::Rc;
use web_engine::protocol::SourcePosError;
use web_sys::{HtmlSelectElement, HtmlTextAreaElement, KeyboardEvent};
use yew::prelude::*;

/// Sources with more lines than this open read-only.
pub const LARGE_SOURCE_LINES: usize = 4000;

/// Pastes at least this large are spliced into the source by the page instead of by the
/// browser's text area: Chromium spent 11 s in one task replacing the selected text of
/// this text area with 1.6 MB (a plain one takes 2-3 s), while setting the new source
/// costs a few short tasks (and a source that large shows read-only anyway). The
/// browser's undo history does not hold such a paste.
pub const LARGE_PASTE_BYTES: usize = 64 * 1024;

/// `value` with UTF-16 range `start..end` (a text area's selection) replaced by `text`.
pub fn splice_utf16(value: &str, start: u32, end: u32, text: &str) -> String {
    let (start, end) = (start.min(end) as usize, start.max(end) as usize);
    let mut out = String::with_capacity(value.len() + text.len());
    let mut units = 0usize;
    let mut inserted = false;
    for c in value.chars() {
        if units >= start && !inserted {
            out.push_str(text);
            inserted = true;
        }
        if units < start || units >= end {
            out.push(c);
        }
        units += c.len_utf16();
    }
    if !inserted {
        out.push_str(text);
    }
    out
}

#[derive(Properties, PartialEq)]
pub struct EditorProps {
    pub source: Rc<str>,
    /// The forced format, if any.
    pub format: Option<InputFormat>,
    /// The format in use (forced or detected).
    pub effective: InputFormat,
    pub errors: Rc<Vec<SourcePosError>>,
    /// A run message that is not about a position (a missing stage, a crash).
    #[prop_or_default]
    pub message: Option<AttrValue>,
    pub example: Option<&'static str>,
    pub on_action: Callback<Action>,
}

#[function_component(Editor)]
pub fn editor(props: &EditorProps) -> Html {
    let textarea = use_node_ref();
    // (scroll top, scroll left, viewport height)
    let viewport = use_state(|| (0.0f64, 0.0f64, 480.0f64));
    let lines = use_memo(props.source.clone(), |s| Lines::new(s.clone()));
    // The user asked for the text area on a large source.
    let edit_large = use_state(|| false);

    let oninput = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: InputEvent| {
            let el: HtmlTextAreaElement = e.target_unchecked_into();
            on_action.emit(Action::SetSource(el.value()));
        })
    };
    let onscroll = {
        let viewport = viewport.clone();
        Callback::from(move |e: Event| {
            let el: HtmlTextAreaElement = e.target_unchecked_into();
            viewport.set((
                f64::from(el.scroll_top()),
                f64::from(el.scroll_left()),
                f64::from(el.client_height()),
            ));
        })
    };
    let onpaste = large_paste(props.on_action.clone());
    let onkeydown = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                e.prevent_default();
                on_action.emit(Action::RunNow);
            }
        })
    };
    let goto = |line: u32, col: u32| go_to_error(&textarea, &lines, &viewport, line, col);

    // First error column per line (1-based line numbers).
    let error_at = use_memo(props.errors.clone(), |errors| {
        let mut at: BTreeMap<u32, u32> = BTreeMap::new();
        for e in errors.iter() {
            at.entry(e.line).or_insert(e.col);
        }
        at
    });
    let read_only = lines.len() > LARGE_SOURCE_LINES && !*edit_large;
    let (top, left, height) = *viewport;
    let total = lines.len();
    let (first, last) = window(top, height, total);
    let lang = Lang::from(props.effective);
    let offset_y = first as f64 * LINE_PX - top;
    let gutter = (first..last).map(|i| {
        let n = i as u32 + 1;
        let error = error_at.contains_key(&n);
        html! { <div key={i} class={classes!("gutter-line", error.then_some("has-error"))}>{ n }</div> }
    });
    let code = (first..last).map(|i| {
        html! {
            <CodeLine
                key={i}
                number={i + 1}
                text={AttrValue::from(lines.line(i).to_string())}
                {lang}
                error_col={error_at.get(&(i as u32 + 1)).copied()}
                no_number=true
            />
        }
    });
    let has_errors = !props.errors.is_empty();
    html! {
        <section class="editor" aria-labelledby="editor-heading">
            { toolbar(props) }
            if read_only {
                <p class="large-note">
                    { format!("{} lines: shown read-only so the page stays quick. ", lines.len()) }
                    <button type="button" class="button small" onclick={{
                        let edit_large = edit_large.clone();
                        Callback::from(move |_: MouseEvent| edit_large.set(true))
                    }}>{ "Edit as text" }</button>
                </p>
                <CodeView
                    label="Source text (read-only)"
                    lines={lines.clone()}
                    {lang}
                    errors={error_at.clone()}
                    class={classes!("source-view")}
                />
            } else {
            <div class="editor-frame" style={format!("--gutter: {}ch", total.to_string().len().max(2) + 1)}>
                    <div class="editor-gutter" aria-hidden="true">
                        <div style={format!("transform: translateY({offset_y}px)")}>{ for gutter }</div>
                    </div>
                    <div class="editor-body">
                        <div class="editor-highlight" aria-hidden="true">
                            <div style={format!("transform: translate({}px, {offset_y}px)", -left)}>
                                { for code }
                            </div>
                        </div>
                        <textarea
                            ref={textarea.clone()}
                            class="editor-input"
                            aria-label="Source text (MIR, DAG or PTX)"
                            aria-invalid={has_errors.then_some("true")}
                            aria-describedby="source-errors"
                            spellcheck="false"
                            autocomplete="off"
                            autocapitalize="off"
                            wrap="off"
                            value={AttrValue::Rc(props.source.clone())}
                            {oninput}
                            {onpaste}
                            {onscroll}
                            {onkeydown}
                        />
                    </div>
                </div>
            }
            { error_list(props, goto) }
        </section>
    }
}

/// A paste of at least [`LARGE_PASTE_BYTES`] spliced into the source by the page (see
/// there); smaller ones are left to the text area.
fn large_paste(on_action: Callback<Action>) -> Callback<Event> {
    Callback::from(move |e: Event| {
        use wasm_bindgen::JsCast;
        let Some(text) = e
            .dyn_ref::<web_sys::ClipboardEvent>()
            .and_then(|c| c.clipboard_data())
            .and_then(|d| d.get_data("text/plain").ok())
            .filter(|t| t.len() >= LARGE_PASTE_BYTES)
        else {
            return;
        };
        let el: HtmlTextAreaElement = e.target_unchecked_into();
        let start = el.selection_start().ok().flatten().unwrap_or(0);
        let end = el.selection_end().ok().flatten().unwrap_or(start);
        e.prevent_default();
        on_action.emit(Action::SetSource(splice_utf16(
            &el.value(),
            start,
            end,
            &text,
        )));
    })
}

/// An error entry's click: the cursor to `line`:`col` (1-based), scrolled into view.
fn go_to_error(
    textarea: &NodeRef,
    lines: &Rc<Lines>,
    viewport: &UseStateHandle<(f64, f64, f64)>,
    line: u32,
    col: u32,
) -> Callback<MouseEvent> {
    let textarea = textarea.clone();
    let lines = lines.clone();
    let viewport = viewport.clone();
    Callback::from(move |_: MouseEvent| {
        let Some(el) = textarea.cast::<HtmlTextAreaElement>() else {
            return;
        };
        let at = lines.offset(line, col);
        // Selection offsets count UTF-16 units.
        let units = lines.text()[..at].encode_utf16().count() as u32;
        let _ = el.focus();
        let _ = el.set_selection_range(units, units);
        let height = f64::from(el.client_height());
        let top = f64::from(el.scroll_top());
        if let Some(y) = scroll_for(line.saturating_sub(1) as usize, top, height) {
            el.set_scroll_top(y as i32);
        }
        viewport.set((
            f64::from(el.scroll_top()),
            f64::from(el.scroll_left()),
            height,
        ));
    })
}

/// The toolbar: where the text comes from, the format (detected or forced), Run.
fn toolbar(props: &EditorProps) -> Html {
    let onformat = props.on_action.reform(|e: Event| {
        let el: HtmlSelectElement = e.target_unchecked_into();
        Action::SetFormat(InputFormat::parse(&el.value()))
    });
    let detected = match props.format {
        Some(_) => String::from("Auto"),
        None => format!("Auto ({})", props.effective.name().to_ascii_uppercase()),
    };
    let selected = props.format.map_or("auto", InputFormat::name);
    html! {
        <div class="panel-toolbar">
            <h2 id="editor-heading" class="visually-hidden">{ "Source" }</h2>
            <span class="source-origin">
                { match props.example {
                    Some(name) => html! { <code title="the gallery example this text is">{ name }</code> },
                    None => html! { "edited text" },
                } }
            </span>
            <label class="inline-field">
                { "Format " }
                <select onchange={onformat}>
                    <option value="auto" selected={selected == "auto"}>{ detected }</option>
                    { for InputFormat::ALL.iter().map(|f| html! {
                        <option value={f.name()} selected={selected == f.name()}>
                            { f.name().to_ascii_uppercase() }
                        </option>
                    }) }
                </select>
            </label>
            <button
                type="button"
                class="button"
                title="Run now (Ctrl+Enter in the editor)"
                onclick={props.on_action.reform(|_| Action::RunNow)}
            >{ "Run" }</button>
        </div>
    }
}

/// The errors of the last run (each moves the cursor to its place), or its message.
fn error_list(props: &EditorProps, goto: impl Fn(u32, u32) -> Callback<MouseEvent>) -> Html {
    let has_errors = !props.errors.is_empty();
    html! {
        <div id="source-errors" class="error-list" aria-live="polite">
            if has_errors {
                <p class="error-summary">
                    { match props.errors.len() {
                        1 => "The source has an error:".to_string(),
                        n => format!("The source has {n} errors:"),
                    } }
                </p>
                <ul>
                    { for props.errors.iter().take(50).map(|e| html! {
                        <li>
                            <button type="button" class="error-link" onclick={goto(e.line, e.col)}>
                                { format!("Line {}, column {}: {}", e.line, e.col, e.message) }
                            </button>
                        </li>
                    }) }
                </ul>
            } else if let Some(m) = &props.message {
                <p class="error-summary">{ m.clone() }</p>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::splice_utf16;

    #[test]
    fn a_paste_replaces_the_selection_counted_in_utf16_units() {
        assert_eq!(splice_utf16("abcdef", 2, 4, "XY"), "abXYef");
        assert_eq!(splice_utf16("abc", 0, 3, "new"), "new");
        assert_eq!(splice_utf16("abc", 3, 3, "!"), "abc!");
        assert_eq!(splice_utf16("", 0, 0, "x"), "x");
        // 'é' is one unit, '😀' two.
        assert_eq!(splice_utf16("é😀z", 3, 3, "|"), "é😀|z");
        assert_eq!(splice_utf16("é😀z", 1, 3, ""), "éz");
        assert_eq!(splice_utf16("ab", 5, 9, "c"), "abc");
    }
}
