//! The guided tour's card: the stop's title, what happens and why it matters, a link
//! to the project's page about the mechanism, the spec section it rests on, and the
//! controls (previous, next, autoplay, presenter, end). The stop's target (lines of the
//! IR, a part of the picture) is highlighted by a style rule the card carries
//! (`model::tour_target`), and the panes scroll to its first line. `TourOffer` starts one.

use crate::model::layout::Layout;
use crate::model::tour::TourState;
use crate::model::tour_target;
use crate::state::Action;
use web_engine::protocol::TourStopView;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TourBarProps {
    pub tour: Option<TourState>,
    pub layout: Layout,
    pub on_action: Callback<Action>,
}

/// Scrolls the IR panes so the stop's first target line is in view, once the view of
/// its step is on screen (the Before pane's label names the step). Polls every 100 ms;
/// the caller drops the timer after 3 s.
fn scroll_to_target(stop: &TourStopView) -> Option<gloo_timers::callback::Interval> {
    use crate::model::text::LINE_PX;
    let (pane, line) = match (
        stop.target.before_lines.first(),
        stop.target.after_lines.first(),
    ) {
        (Some(l), _) => (".ir-before", *l),
        (None, Some(l)) => (".ir-after", *l),
        (None, None) => return None,
    };
    let label = match stop.step {
        0 => "IR: stage input".to_string(),
        n => format!("IR before step {n}"),
    };
    let mut done = false;
    Some(gloo_timers::callback::Interval::new(100, move || {
        let doc = web_sys::window().and_then(|w| w.document());
        let find = |sel: &str| {
            doc.as_ref()
                .and_then(|d| d.query_selector(sel).ok().flatten())
        };
        let shown = find(".ir-before").and_then(|e| e.get_attribute("aria-label"));
        let Some(el) = find(pane).filter(|_| !done && shown.as_deref() == Some(label.as_str()))
        else {
            return;
        };
        done = true;
        let (top, h, at) = (
            f64::from(el.scroll_top()),
            f64::from(el.client_height()),
            f64::from(line) * LINE_PX,
        );
        if at < top || at + LINE_PX > top + h {
            el.set_scroll_top(((at - 3.0 * LINE_PX).max(0.0)) as i32);
        }
    }))
}

#[function_component(TourBar)]
pub fn tour_bar(props: &TourBarProps) -> Html {
    let current = props.tour.as_ref().and_then(|t| t.current().cloned());
    use_effect_with(current.clone(), |stop| {
        let timer = stop.as_ref().and_then(scroll_to_target);
        let stop_after = timer.map(|t| gloo_timers::callback::Timeout::new(3000, move || drop(t)));
        move || drop(stop_after)
    });
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
        <section class="tour-bar" aria-label="Guided tour" data-tour={t.example}
            data-target={t.current().map(|s| {
                let mut all = tour_target::line_selectors(&s.target);
                all.extend(tour_target::picture_selectors(&s.target));
                all.join(" | ")
            })}>
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
                            <p class="tour-text" aria-live="polite">
                                { stop.text.clone() }{ " " }<span class="tour-why">{ stop.why.clone() }</span>
                            </p>
                            <p class="tour-look">{ tour_target::describe(&stop.target) }</p>
                            <style class="tour-target-style">{ tour_target::style(&stop.target) }</style>
                            <p class="tour-spec">
                                <a class="tour-doc" href={stop.doc.clone()} target="_blank" rel="noopener">{ "How this works" }</a>
                                { " · Spec: " }<cite>{ stop.spec.clone() }</cite>
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
