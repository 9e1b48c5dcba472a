//! The guided tour's card: the stop's title and explanation, the spec section it rests
//! on, and the controls (previous, next, autoplay, presenter, end). `TourOffer` starts
//! one.

use crate::model::layout::Layout;
use crate::model::tour::TourState;
use crate::state::Action;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TourBarProps {
    pub tour: Option<TourState>,
    pub layout: Layout,
    pub on_action: Callback<Action>,
}

#[function_component(TourBar)]
pub fn tour_bar(props: &TourBarProps) -> Html {
    let act = |a: Action| {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(a.clone()))
    };
    let Some(t) = &props.tour else {
        return html! {};
    };
    let presenting = props.layout == Layout::Presenter;
    let present = if presenting {
        Action::SetLayout(Layout::Standard)
    } else {
        Action::SetLayout(Layout::Presenter)
    };
    let title = t
        .plan
        .as_ref()
        .map_or_else(String::new, |p| p.title.clone());
    html! {
        <section class="tour-bar" aria-label="Guided tour" data-tour={t.example}>
            <div class="tour-main">
                { match (t.current(), &t.error) {
                    (_, Some(e)) => html! { <p class="tour-error" role="alert">{ format!("This tour cannot be shown: {e}") }</p> },
                    (None, None) => html! { <p class="muted" aria-busy="true">{ "Preparing the tour…" }</p> },
                    (Some(stop), None) => html! {
                        <>
                            <p class="tour-title">
                                <span class="tour-name">{ title }</span>
                                <span class="tour-counter">{ format!("Stop {} of {}", t.stop + 1, t.len()) }</span>
                            </p>
                            <h2 class="tour-stop-title">{ stop.title.clone() }</h2>
                            <p class="tour-text" aria-live="polite">{ stop.text.clone() }</p>
                            <p class="tour-spec">
                                { "Spec: " }<cite>{ stop.spec.clone() }</cite>
                                <span class="muted">{ format!(" · {} step {}", stop.stage.id(), stop.step) }</span>
                            </p>
                        </>
                    },
                } }
            </div>
            <div class="tour-controls" role="group" aria-label="Tour controls">
                <button type="button" onclick={act(Action::PrevStop)} disabled={t.stop == 0 || t.is_empty()}
                    aria-label="Previous stop">{ "◀ Previous" }</button>
                <button type="button" class="tour-next" onclick={act(Action::NextStop)} disabled={t.at_end()}
                    aria-label="Next stop">{ "Next ▶" }</button>
                <button type="button" onclick={act(Action::ToggleAutoplay)} disabled={t.is_empty()}
                    aria-pressed={if t.autoplay { "true" } else { "false" }} aria-label="Autoplay the tour">
                    { "▶ Autoplay" }
                </button>
                <button type="button" onclick={act(present)} aria-pressed={if presenting { "true" } else { "false" }}
                    aria-label="Presenter mode">{ "Presenter" }</button>
                <button type="button" onclick={act(Action::EndTour)} aria-label="End the tour">{ "✕ End" }</button>
            </div>
            if t.len() > 1 {
                <ol class="tour-dots" aria-label="Tour stops">
                    { for (0..t.len()).map(|k| html! {
                        <li>
                            <button type="button" class={classes!("tour-dot", (k == t.stop).then_some("current"))}
                                aria-current={(k == t.stop).then_some("step")}
                                aria-label={format!("Go to stop {}", k + 1)} onclick={act(Action::GoToStop(k))} />
                        </li>
                    }) }
                </ol>
            }
        </section>
    }
}
