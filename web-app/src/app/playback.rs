//! The playback row: notices, the stage timeline, a tour's stops and the step controls;
//! it owns the two timers that step on their own (playing, a tour's autoplay).

use super::StateRef;
use crate::components::*;
use crate::state::Action;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PlaybackProps {
    pub state: StateRef,
    pub on_action: Callback<Action>,
}

#[function_component(Playback)]
pub fn playback(props: &PlaybackProps) -> Html {
    let PlaybackProps { state, on_action } = props;
    let s = &**state;
    {
        // Playing: an interval dispatching Tick at the chosen speed.
        let on_action = on_action.clone();
        let playing = s.playing;
        use_effect_with((playing, s.speed), move |(_, speed)| {
            let timer = playing.then(|| {
                gloo_timers::callback::Interval::new(speed.interval_ms(), move || {
                    on_action.emit(Action::Tick)
                })
            });
            move || drop(timer)
        });
    }
    {
        // A tour's autoplay: TourTick after each stop's dwell.
        let on_action = on_action.clone();
        let autoplay = s.tour.as_ref().is_some_and(|t| t.autoplay);
        use_effect_with((autoplay, s.speed), move |(_, speed)| {
            let dwell = speed.interval_ms() * crate::model::tour::DWELL_INTERVALS;
            let timer = autoplay.then(|| {
                gloo_timers::callback::Interval::new(dwell, move || {
                    on_action.emit(Action::TourTick)
                })
            });
            move || drop(timer)
        });
    }
    let stage_summary = s.stage_summary();
    let view = s.view.as_ref().filter(|v| Some(v.stage) == s.stage);
    let stale = view.is_some_and(|v| v.step != s.step);
    html! {
        <section class="playback" aria-label="Pipeline and step controls">
            <NoticeBar notice={s.notice.clone()} engine_error={s.engine_error.clone().map(AttrValue::from)}
                on_action={on_action.clone()} />
            <StageList selected={s.stage} summary={s.summary.clone()} implemented={s.implemented.clone()}
                on_select={on_action.reform(Action::SelectStage)} />
            <TourBar tour={s.tour.clone()} layout={s.layout} on_action={on_action.clone()} />
            <StepControls
                step={s.step}
                total={s.total_steps()}
                playing={s.playing}
                speed={s.speed}
                skip_noop={s.skip_noop}
                enabled={stage_summary.is_some()}
                kind={view.filter(|_| !stale).map(|v| AttrValue::from(v.kind.clone()))}
                on_action={on_action.clone()}
            />
        </section>
    }
}
