//! Stepping through the shown stage: first / previous / play-pause / next / last, a step
//! slider, the step counter, the autoplay speed and the "skip steps that change nothing"
//! switch. Arrow keys, Home, End and Space act while focus is inside this group (the
//! slider keeps its own arrow keys).

use super::icon::{Icon, IconName};
use crate::model::keys::{step_key, FocusKind};
use crate::model::layout::Speed;
use crate::state::Action;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StepControlsProps {
    pub step: u32,
    pub total: u32,
    pub playing: bool,
    pub speed: Speed,
    pub skip_noop: bool,
    /// False when no stage with steps is shown.
    pub enabled: bool,
    /// The step's kind, for the slider's spoken value.
    #[prop_or_default]
    pub kind: Option<AttrValue>,
    pub on_action: Callback<Action>,
}

/// The step shortcut for a key event, judged by the element that had focus.
pub fn key_action(e: &KeyboardEvent) -> Option<Action> {
    let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
    let focus = match &target {
        Some(el) => FocusKind::of(&el.tag_name(), el.get_attribute("type").as_deref()),
        None => FocusKind::Other,
    };
    step_key(&e.key(), focus, e.ctrl_key() || e.alt_key() || e.meta_key())
}

#[function_component(StepControls)]
pub fn step_controls(props: &StepControlsProps) -> Html {
    let act = |a: Action| props.on_action.reform(move |_: MouseEvent| a.clone());
    let onkeydown = {
        let on_action = props.on_action.clone();
        let enabled = props.enabled;
        Callback::from(move |e: KeyboardEvent| {
            if let Some(a) = key_action(&e).filter(|_| enabled) {
                e.prevent_default();
                on_action.emit(a);
            }
        })
    };
    let onslide = props.on_action.reform(|e: InputEvent| {
        let el: HtmlInputElement = e.target_unchecked_into();
        Action::Seek(el.value().parse().unwrap_or(0))
    });
    let onspeed = props.on_action.reform(|e: Event| {
        let el: HtmlSelectElement = e.target_unchecked_into();
        Action::SetSpeed(Speed::from_id(&el.value()).unwrap_or_default())
    });
    let onskip = props.on_action.reform(|e: Event| {
        let el: HtmlInputElement = e.target_unchecked_into();
        Action::SetSkipNoop(el.checked())
    });
    // Buttons at the end of their range say so with aria-disabled but keep focus (a
    // disabled button would drop it, and a keyboard user would land on the page body).
    let disabled = !props.enabled;
    let at_start = (props.step == 0).then_some("true");
    let at_end = (props.step >= props.total).then_some("true");
    let counter = if props.enabled {
        format!("Step {} of {}", props.step, props.total)
    } else {
        "No steps".to_string()
    };
    let valuetext = match (&props.kind, props.step) {
        (_, 0) => format!("Step 0 of {}: the stage input", props.total),
        (Some(kind), n) => format!("Step {n} of {}: {kind}", props.total),
        (None, n) => format!("Step {n} of {}", props.total),
    };
    html! {
        <div class="step-controls" id="step-controls" tabindex="-1" role="group" aria-label="Step controls" {onkeydown}>
            <div class="step-buttons">
                <button type="button" class="icon-button" aria-label="First step" title="First step (Home)"
                    {disabled} aria-disabled={at_start} onclick={act(Action::First)}><Icon name={IconName::First} /></button>
                <button type="button" class="icon-button" aria-label="Previous step" title="Previous step (←)"
                    {disabled} aria-disabled={at_start} onclick={act(Action::Step(-1))}><Icon name={IconName::Previous} /></button>
                <button type="button" class="icon-button play" aria-label={if props.playing { "Pause" } else { "Play" }}
                    title="Play or pause (Space)" aria-pressed={if props.playing { "true" } else { "false" }}
                    disabled={disabled || props.total == 0} onclick={act(Action::TogglePlay)}>
                    <Icon name={if props.playing { IconName::Pause } else { IconName::Play }} />
                </button>
                <button type="button" class="icon-button" aria-label="Next step" title="Next step (→)"
                    {disabled} aria-disabled={at_end} onclick={act(Action::Step(1))}><Icon name={IconName::Next} /></button>
                <button type="button" class="icon-button" aria-label="Last step" title="Last step (End)"
                    {disabled} aria-disabled={at_end} onclick={act(Action::Last)}><Icon name={IconName::Last} /></button>
            </div>
            <input
                type="range"
                class="step-slider"
                aria-label="Step"
                aria-valuetext={valuetext}
                min="0"
                max={props.total.to_string()}
                value={props.step.to_string()}
                disabled={disabled}
                oninput={onslide}
            />
            <output class="step-counter" aria-live="polite">{ counter }</output>
            <label class="inline-field">
                { "Speed " }
                <select onchange={onspeed}>
                    { for Speed::ALL.iter().map(|s| html! {
                        <option value={s.id()} selected={*s == props.speed}>{ s.label() }</option>
                    }) }
                </select>
            </label>
            <label class="inline-field checkbox">
                <input type="checkbox" checked={props.skip_noop} onchange={onskip} />
                { "Skip steps that change nothing" }
            </label>
        </div>
    }
}
