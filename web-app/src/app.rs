//! `App`: owns the state (through `use_reducer`) and the engine client, turns what the
//! state wants into engine requests, and lays out the page.
//!
//! ```text
//!  mount: location.hash ──share::decode──▶ Action::OpenLink | Action::Start
//!  hashchange ──▶ Action::OpenLink
//!  state.run_wanted()  ── after its delay ──▶ engine Run,  Action::RunSent
//!  state.view_wanted() ──▶ engine View      state.diff_wanted() ──▶ engine Diff
//!  engine Response ──▶ Action (RunProgress, RunDone, ViewArrived, EngineCrashed, ...)
//!  playing ──▶ an interval dispatching Action::Tick
//!  side-by-side layout: state.side_views_wanted() ──▶ engine View per slot
//!  tour: state.tour_wanted() ──▶ engine Tour ──▶ Action::TourArrived; autoplay ──▶ TourTick
//!  run cancelled ──▶ engine restart (a run cannot be interrupted otherwise)
//!  Copy link ──▶ share::encode_state ──▶ address bar + clipboard ──▶ Action::LinkCopied
//! ```

use crate::components::*;
use crate::engine::EngineClient;
use crate::model::keys::HELP;
use crate::model::layout::Layout;
use crate::model::panes::Pane;
use crate::state::{Action, AppState, CentreTab, LeftTab, RunState};
use compiler_core::share;
use std::rc::Rc;
use web_engine::protocol::{Request, Response};
use web_sys::{HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

/// How long the view must stay put before the address bar is rewritten, in ms.
const ADDRESS_DELAY_MS: u32 = 250;
/// Sources longer than this (bytes) are not kept in the address bar as the view moves.
const ADDRESS_SOURCE_LIMIT: usize = 64 * 1024;

/// The engine's answer as an action.
fn response_action(r: Response) -> Action {
    match r {
        Response::Ready { implemented } => Action::EngineReady(implemented),
        Response::Progress(p) => Action::RunProgress(p),
        Response::RunDone(s) => Action::RunDone(Rc::new(s)),
        Response::RunFailed(f) => Action::RunFailed(Rc::new(f)),
        Response::View(v) => Action::ViewArrived(Rc::new(*v)),
        Response::Diff(d) => Action::DiffArrived(Rc::new(d)),
        Response::ViewFailed {
            run_id,
            stage,
            step,
            message,
        } => Action::ViewFailed {
            run_id,
            stage,
            step,
            message,
        },
        Response::Tour(plan) => Action::TourArrived(Rc::new(plan)),
        Response::TourFailed {
            run_id,
            example,
            message,
        } => Action::TourFailed {
            run_id,
            example,
            message,
        },
        Response::Crashed { message } => Action::EngineCrashed(message),
    }
}

/// The link in the address bar, decoded; None when there is none.
fn link_from_location() -> Option<Result<share::Link, share::LinkError>> {
    let href = web_sys::window()?.location().href().ok()?;
    let (_, fragment) = href.split_once('#')?;
    if fragment.trim().is_empty() {
        return None;
    }
    Some(share::decode(fragment))
}

/// The page's address with `fragment` after `#`, put in the address bar with
/// `history.replaceState` (no new history entry, no `hashchange`). Returns the URL.
#[cfg(target_family = "wasm")]
fn replace_address(fragment: &str) -> Option<String> {
    use wasm_bindgen::JsValue;
    let window = web_sys::window()?;
    let location = window.location();
    let base = format!(
        "{}{}{}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    let url = if fragment.is_empty() {
        base
    } else {
        format!("{base}#{fragment}")
    };
    if location.href().ok().as_deref() != Some(url.as_str()) {
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
        }
    }
    Some(url)
}

#[cfg(not(target_family = "wasm"))]
fn replace_address(_: &str) -> Option<String> {
    None
}

#[cfg(target_family = "wasm")]
fn copy_link(state: &AppState, dispatcher: UseReducerDispatcher<AppState>) {
    let Some(url) = replace_address(&state.link_fragment()) else {
        return;
    };
    let Some(window) = web_sys::window() else {
        return;
    };
    let promise = window.navigator().clipboard().write_text(&url);
    wasm_bindgen_futures::spawn_local(async move {
        let copied = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        dispatcher.dispatch(Action::LinkCopied { url, copied });
    });
}

#[cfg(not(target_family = "wasm"))]
fn copy_link(_: &AppState, _: UseReducerDispatcher<AppState>) {}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::default);
    let dispatcher = state.dispatcher();
    let engine = {
        let dispatcher = dispatcher.clone();
        use_memo((), move |_| {
            EngineClient::start(Callback::from(move |r: Response| {
                dispatcher.dispatch(response_action(r))
            }))
        })
    };

    // Open the link the page was opened with, and any the user pastes later.
    {
        let dispatcher = dispatcher.clone();
        use_effect_with((), move |_| {
            dispatcher.dispatch(match link_from_location() {
                Some(link) => Action::OpenLink(link),
                None => Action::Start,
            });
            let listener = web_sys::window().map(|w| {
                gloo_events::EventListener::new(&w, "hashchange", move |_| {
                    if let Some(link) = link_from_location() {
                        dispatcher.dispatch(Action::OpenLink(link));
                    }
                })
            });
            move || drop(listener)
        });
    }

    // A queued run goes to the engine after its delay (typing restarts the delay).
    {
        let engine = engine.clone();
        let dispatcher = dispatcher.clone();
        let wanted = state.run_wanted();
        let id = wanted.as_ref().map(|w| w.0);
        use_effect_with(id, move |_| {
            let timer = wanted.map(|(id, delay, run)| {
                gloo_timers::callback::Timeout::new(delay, move || {
                    engine.send(Request::Run { id, run });
                    dispatcher.dispatch(Action::RunSent(id));
                })
            });
            move || drop(timer)
        });
    }
    {
        let engine = engine.clone();
        use_effect_with(state.view_wanted(), move |wanted| {
            if let Some((run_id, stage, step)) = *wanted {
                engine.send(Request::View {
                    run_id,
                    stage,
                    step,
                });
            }
        });
    }
    {
        let engine = engine.clone();
        use_effect_with(state.diff_wanted(), move |wanted| {
            if let Some((run_id, stage, from, to)) = *wanted {
                engine.send(Request::Diff {
                    run_id,
                    stage,
                    from,
                    to,
                });
            }
        });
    }
    {
        let engine = engine.clone();
        use_effect_with(state.side_views_wanted(), move |wanted| {
            for &(run_id, stage, step) in wanted {
                engine.send(Request::View {
                    run_id,
                    stage,
                    step,
                });
            }
        });
    }
    {
        let engine = engine.clone();
        use_effect_with(state.tour_wanted(), move |wanted| {
            if let Some((run_id, example)) = *wanted {
                engine.send(Request::Tour {
                    run_id,
                    example: example.into(),
                });
            }
        });
    }
    {
        let dispatcher = dispatcher.clone();
        let autoplay = state.tour.as_ref().is_some_and(|t| t.autoplay);
        use_effect_with((autoplay, state.speed), move |(_, speed)| {
            let dwell = speed.interval_ms() * crate::model::tour::DWELL_INTERVALS;
            let timer = autoplay.then(|| {
                gloo_timers::callback::Interval::new(dwell, move || {
                    dispatcher.dispatch(Action::TourTick)
                })
            });
            move || drop(timer)
        });
    }
    {
        let dispatcher = dispatcher.clone();
        let playing = state.playing;
        use_effect_with((playing, state.speed), move |(_, speed)| {
            let timer = playing.then(|| {
                gloo_timers::callback::Interval::new(speed.interval_ms(), move || {
                    dispatcher.dispatch(Action::Tick)
                })
            });
            move || drop(timer)
        });
    }

    // Cancelling: the engine cannot interrupt a run, so the worker is restarted, and
    // the run whose results stay on screen is sent to it again (same id) so that its
    // steps keep answering.
    {
        let engine = engine.clone();
        let cancelled = match state.run {
            RunState::Cancelled { id } => Some(id),
            _ => None,
        };
        let restore = state.restore_wanted();
        use_effect_with(cancelled, move |cancelled| {
            if cancelled.is_some() {
                engine.restart();
                if let Some((id, run)) = restore {
                    engine.send(Request::Run { id, run });
                }
            }
        });
    }

    // The address bar follows the view (replaceState, a moment after the last change,
    // so stepping quickly through a large source does not encode it at every step).
    {
        let fragment_of = state.clone();
        // Not while a run is on its way: the address would name what is being left.
        let settled = !state.run.is_busy();
        let shown = state.summary.as_ref().filter(|_| settled).map(|s| {
            (
                s.run_id,
                state.stage,
                state.step,
                state.layout,
                state.picture_slots(),
            )
        });
        use_effect_with(shown, move |shown| {
            let timer = shown.is_some().then(|| {
                gloo_timers::callback::Timeout::new(ADDRESS_DELAY_MS, move || {
                    // A large source is not encoded at every step (deflating 1 MB took
                    // 0.3 s of the main thread); the address then holds no link rather
                    // than an old one, and Copy link makes one on demand.
                    let fragment = if fragment_of.source.len() > ADDRESS_SOURCE_LIMIT {
                        String::new()
                    } else {
                        fragment_of.link_fragment()
                    };
                    replace_address(&fragment);
                })
            });
            move || drop(timer)
        });
    }

    // Stable callbacks: components whose data did not change then skip re-rendering
    // (the editor holding a 20 000-line text must not redraw on every progress message).
    let on_action = {
        let dispatcher = dispatcher.clone();
        (*use_memo((), move |_| {
            Callback::from(move |action: Action| dispatcher.dispatch(action))
        }))
        .clone()
    };
    let on_copy = {
        let state = state.clone();
        Callback::from(move |()| copy_link(&state, state.dispatcher()))
    };
    let on_step_key = {
        let on_action = on_action.clone();
        (*use_memo((), move |_| {
            Callback::from(move |e: KeyboardEvent| {
                if let Some(a) = key_action(&e) {
                    e.prevent_default();
                    on_action.emit(a);
                }
            })
        }))
        .clone()
    };
    let on_layout = on_action.reform(|e: Event| {
        let el: HtmlSelectElement = e.target_unchecked_into();
        Action::SetLayout(Layout::from_id(&el.value()))
    });

    // The skip link moves focus itself: following `#step-controls` would change the
    // address bar's fragment, which holds the permalink.
    let skip_to_steps = Callback::from(|e: MouseEvent| {
        e.prevent_default();
        let target = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("step-controls"))
            .and_then(|el| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el).ok());
        if let Some(el) = target {
            let _ = el.focus();
        }
    });
    let s = &*state;
    let summary = s.summary.clone();
    let stage_summary = s.stage_summary().cloned();
    let total = s.total_steps();
    let view = s.view.clone().filter(|v| Some(v.stage) == s.stage);
    let stale = view.as_ref().is_some_and(|v| v.step != s.step);
    let note = centre_note(s);
    let widths = s.pane_widths();

    let left_id = match s.left_tab {
        LeftTab::Source => "source",
        LeftTab::Gallery => "gallery",
        LeftTab::Knobs => "knobs",
    };
    // All three left panels stay mounted (the inactive ones hidden): a 20 000-line
    // textarea costs the browser a long layout every time it is created.
    let editor = html! {
        <Editor
            source={s.source.clone()}
            format={s.format}
            effective={s.effective_format()}
            errors={s.errors.clone()}
            message={s.run_message.clone().filter(|_| s.errors.is_empty()).map(AttrValue::from)}
            example={s.example}
            on_action={on_action.clone()}
        />
    };
    let gallery = html! {
        <Gallery query={AttrValue::from(s.gallery_query.clone())} current={s.example} on_action={on_action.clone()} />
    };
    let knobs = html! {
        <KnobsPanel
            knobs={s.knobs.clone()}
            drafts={s.knob_drafts.clone()}
            verify={s.verify}
            stage={s.stage}
            implemented={s.implemented.clone()}
            on_action={on_action.clone()}
        />
    };
    let left_panel = |id: &'static str, body: Html| {
        let active = id == left_id;
        html! {
            <div class={classes!("tab-panel", (!active).then_some("inactive"))} id={format!("{id}-panel")}
                role="tabpanel" aria-labelledby={format!("{id}-tab")} tabindex={active.then_some("0")}>
                { body }
            </div>
        }
    };
    let changed = s.knobs.changed().count();
    let knobs_title = if changed == 0 {
        "Knobs".to_string()
    } else {
        format!("Knobs ({changed})")
    };
    let left_tabs = vec![
        ("source", AttrValue::from("Source")),
        ("gallery", AttrValue::from("Examples")),
        ("knobs", AttrValue::from(knobs_title)),
    ];
    let on_left = on_action.reform(|id: &'static str| {
        Action::SetLeftTab(match id {
            "gallery" => LeftTab::Gallery,
            "knobs" => LeftTab::Knobs,
            _ => LeftTab::Source,
        })
    });
    let centre_id = match s.centre_tab {
        CentreTab::Step => "step",
        CentreTab::Diff => "diff",
        CentreTab::Stats => "stats",
    };
    let on_centre = on_action.reform(|id: &'static str| {
        Action::SetCentreTab(match id {
            "diff" => CentreTab::Diff,
            "stats" => CentreTab::Stats,
            _ => CentreTab::Step,
        })
    });
    let centre = match (s.centre_tab, &stage_summary) {
        (_, None) => html! {},
        (CentreTab::Step, Some(_)) => match &view {
            Some(v) => {
                html! { <IrCompare view={v.clone()} {stale} onkeydown={on_step_key.clone()} /> }
            }
            None => html! { <p class="muted" aria-busy="true">{ "Loading the IR…" }</p> },
        },
        (CentreTab::Diff, Some(_)) => html! {
            <DiffPanel from={s.diff_from} to={s.diff_to} step={s.step} {total}
                diff={s.diff.clone()} on_action={on_action.clone()} />
        },
        (CentreTab::Stats, Some(st)) => html! {
            <StatsPanel stage={st.stage} summary={st.clone()}
                elapsed_ms={summary.as_ref().map_or(0.0, |r| r.elapsed_ms)} />
        },
    };

    html! {
        <div class={classes!("app", format!("layout-{}", s.layout.id()))}>
            <a class="skip-link" href="#step-controls" onclick={skip_to_steps}>{ "Skip to the step controls" }</a>
            <header class="app-header">
                <div class="brand">
                    <h1>{ "CopyScope" }</h1>
                    <p class="tagline">{ "The life of a register copy, step by step." }</p>
                </div>
                <RunStatus run={s.run.clone()} on_action={on_action.clone()} />
                <LinkBar link={s.link.clone().map(AttrValue::from)} on_action={on_action.clone()} {on_copy} />
                <label class="inline-field">
                    { "Layout " }
                    <select onchange={on_layout}>
                        { for Layout::ALL.iter().map(|l| html! {
                            <option value={l.id()} selected={*l == s.layout}>{ l.label() }</option>
                        }) }
                    </select>
                </label>
                <TourOffer example={s.example} running={s.tour.is_some()} on_action={on_action.clone()} />
                <details class="keys-help">
                    <summary>{ "Keys" }</summary>
                    <dl>
                        { for HELP.iter().map(|(k, what)| html! { <><dt>{ *k }</dt><dd>{ *what }</dd></> }) }
                    </dl>
                </details>
            </header>
            <section class="playback" aria-label="Pipeline and step controls">
                <NoticeBar notice={s.notice.clone()} engine_error={s.engine_error.clone().map(AttrValue::from)}
                    on_action={on_action.clone()} />
                <StageList selected={s.stage} summary={summary.clone()} implemented={s.implemented.clone()}
                    on_select={on_action.reform(Action::SelectStage)} />
                <TourBar tour={s.tour.clone()} layout={s.layout} on_action={on_action.clone()} />
                <StepControls
                    step={s.step}
                    {total}
                    playing={s.playing}
                    speed={s.speed}
                    skip_noop={s.skip_noop}
                    enabled={stage_summary.is_some()}
                    kind={view.as_ref().filter(|_| !stale).map(|v| AttrValue::from(v.kind.clone()))}
                    on_action={on_action.clone()}
                />
            </section>
            if s.layout == Layout::SideBySide {
                <main class="workspace side-by-side-workspace">
                    <SideBySide slots={s.picture_slots()} summary={summary.clone()}
                        views={s.side_views.clone()} linked={s.linked_slot()} on_action={on_action.clone()} />
                </main>
            } else {
            <main class="workspace" style={widths.style()}>
                if s.layout != Layout::Presenter {
                    <section class={classes!("column", "left", (widths.left == 0).then_some("collapsed"))} aria-label="Input">
                        <Tabs label="Input" tabs={left_tabs} selected={left_id} on_select={on_left} all_panels=true />
                        { left_panel("source", editor) }
                        { left_panel("gallery", gallery) }
                        { left_panel("knobs", knobs) }
                    </section>
                    <Splitter pane={Pane::Left} width={widths.left} label="Width of the input column"
                        on_action={on_action.clone()} />
                }
                <section class="column centre" aria-label="Stage view">
                    <Narration stage={s.stage} step={s.step} {total} view={view.clone()} note={note.map(AttrValue::from)} />
                    if stage_summary.is_some() {
                        <Tabs
                            label="Stage view"
                            tabs={vec![
                                ("step", AttrValue::from("Before / after")),
                                ("diff", AttrValue::from("Diff")),
                                ("stats", AttrValue::from("Counters & remarks")),
                            ]}
                            selected={centre_id}
                            on_select={on_centre}
                        />
                        <div class="tab-panel" id={format!("{centre_id}-panel")} role="tabpanel"
                            aria-labelledby={format!("{centre_id}-tab")} tabindex="0">
                            { centre }
                        </div>
                    }
                </section>
                <Splitter pane={Pane::Picture} width={widths.picture} label="Width of the picture column"
                    on_action={on_action.clone()} />
                <PicturePanel {view} {stale} collapsed={widths.picture == 0} layout={s.layout} />
            </main>
            }
        </div>
    }
}

/// Why the centre has no steps to show, when it has none.
fn centre_note(s: &AppState) -> Option<String> {
    let stage = s.stage?;
    if s.stage_summary().is_some() {
        return None;
    }
    if s.is_implemented(stage) == Some(false) {
        return Some(format!(
            "{stage} is not implemented yet: its pass arrives in a later version. The timeline shows it so the whole pipeline is in view."
        ));
    }
    match (&s.summary, &s.run) {
        (Some(summary), _) if summary.stopped.as_ref().is_some_and(|st| st.stage == stage) => {
            let st = summary.stopped.as_ref().expect("checked");
            Some(format!(
                "{stage} could not handle this input, so the run stops in front of it: {}",
                st.message
            ))
        }
        (Some(summary), _) => Some(if (stage as usize) < (summary.entry as usize) {
            format!(
                "This input starts at {}, after {stage}, so {stage} did not run.",
                summary.entry
            )
        } else {
            format!("{stage} did not run: a stage in front of it is not implemented yet.")
        }),
        (None, RunState::Failed { .. }) => {
            Some("The source could not be run: its errors are listed under the editor.".to_string())
        }
        (None, RunState::Cancelled { .. }) => Some("The run was cancelled.".to_string()),
        (None, _) => Some("Running the pipeline…".to_string()),
    }
}
