//! The header's "Tour" button: starts the guided tour of the example the source is.

use crate::state::Action;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TourOfferProps {
    /// The example the source is, when there is one.
    pub example: Option<&'static str>,
    /// A tour is running already.
    pub running: bool,
    pub on_action: Callback<Action>,
}

#[function_component(TourOffer)]
pub fn tour_offer(props: &TourOfferProps) -> Html {
    let Some((name, title)) = props
        .example
        .and_then(|name| Some((name, web_engine::protocol::tour_title(name)?)))
    else {
        return html! {};
    };
    let start = {
        let cb = props.on_action.clone();
        Callback::from(move |_: MouseEvent| cb.emit(Action::StartTour(name)))
    };
    html! {
        <button type="button" class="button tour-start" onclick={start} disabled={props.running}
            title={title} aria-label={format!("Start the guided tour of {name}")}>
            { "Tour" }
        </button>
    }
}
