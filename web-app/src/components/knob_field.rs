//! One knob: its name, an input suited to its kind, its help text with the default and
//! the spec page, and the validation error of a bad value (the knob keeps its last good
//! value until the text is valid).

use crate::state::Action;
use compiler_core::knobs::{format_value, Knob, KnobKind, SM_TARGETS};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct KnobFieldProps {
    pub knob: Knob,
    /// What the field shows (the draft text when it is bad).
    pub text: AttrValue,
    pub error: Option<AttrValue>,
    pub is_default: bool,
    pub on_action: Callback<Action>,
}

#[function_component(KnobField)]
pub fn knob_field(props: &KnobFieldProps) -> Html {
    let knob = props.knob;
    let info = knob.info();
    let id = format!("knob-{}", info.name);
    let help_id = format!("{id}-help");
    let error_id = format!("{id}-error");
    let described = match props.error {
        Some(_) => format!("{help_id} {error_id}"),
        None => help_id.clone(),
    };
    let set_text = props
        .on_action
        .reform(move |text: String| Action::SetKnob { knob, text });
    let on_select = {
        let set_text = set_text.clone();
        Callback::from(move |e: Event| {
            let el: HtmlSelectElement = e.target_unchecked_into();
            set_text.emit(el.value());
        })
    };
    let text = props.text.to_string();
    let input = match info.kind {
        KnobKind::Bool => {
            let onchange = {
                let set_text = set_text.clone();
                Callback::from(move |e: Event| {
                    let el: HtmlInputElement = e.target_unchecked_into();
                    set_text.emit(el.checked().to_string());
                })
            };
            html! {
                <input type="checkbox" id={id.clone()} checked={text == "true"}
                    aria-describedby={described.clone()} {onchange} />
            }
        }
        KnobKind::Tristate | KnobKind::OptLevel => {
            let options: Vec<&str> = if info.kind == KnobKind::Tristate {
                vec!["subtarget", "true", "false"]
            } else {
                vec!["0", "1", "2", "3"]
            };
            html! {
                <select id={id.clone()} aria-describedby={described.clone()} onchange={on_select}>
                    { for options.into_iter().map(|o| html! {
                        <option value={o} selected={text == o}>{ o }</option>
                    }) }
                </select>
            }
        }
        kind => {
            let oninput = {
                let set_text = set_text.clone();
                Callback::from(move |e: InputEvent| {
                    let el: HtmlInputElement = e.target_unchecked_into();
                    set_text.emit(el.value());
                })
            };
            let numeric = matches!(kind, KnobKind::Uint | KnobKind::OptInt | KnobKind::Real);
            html! {
                <input
                    type="text"
                    id={id.clone()}
                    class="knob-text"
                    value={props.text.clone()}
                    inputmode={numeric.then_some("decimal")}
                    list={(kind == KnobKind::Sm).then_some("sm-names")}
                    spellcheck="false"
                    autocomplete="off"
                    aria-invalid={props.error.is_some().then_some("true")}
                    aria-describedby={described.clone()}
                    {oninput}
                />
            }
        }
    };
    let default = format_value(info.kind, info.default);
    html! {
        <div class={classes!("knob", (!props.is_default).then_some("changed"), props.error.is_some().then_some("invalid"))} data-knob={info.name}>
            <div class="knob-row">
                <label for={id.clone()}><code>{ info.name }</code></label>
                { input }
                if !props.is_default {
                    <button
                        type="button"
                        class="button small"
                        aria-label={format!("Reset {} to {default}", info.name)}
                        onclick={props.on_action.reform(move |_| Action::ResetKnob(knob))}
                    >{ "Reset" }</button>
                }
            </div>
            <p id={help_id} class="knob-help">
                { info.help }
                <span class="knob-meta">
                    { format!(" Default {default}") }
                    if info.spec_default != default { { format!(" (spec: {})", info.spec_default) } }
                    { format!(" · {}", info.kind.name()) }
                    if let Some(alias) = info.alias { { format!(" · also {alias}") } }
                </span>
            </p>
            if let Some(error) = &props.error {
                <p id={error_id} class="knob-error" role="alert">{ error.clone() }</p>
            }
        </div>
    }
}

/// The `sm` knob's suggestions: `target` (follow the input's `.target`) and every
/// target the knob takes.
pub fn sm_datalist() -> Html {
    html! {
        <datalist id="sm-names">
            <option value="target" />
            { for SM_TARGETS.iter().map(|(name, _)| html! { <option value={*name} /> }) }
        </datalist>
    }
}
