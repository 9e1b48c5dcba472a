//! The workspace under the playback row: the input column (source, examples, knobs),
//! the stage view (narration, Before/After, diff, counters) and the picture column, or
//! the pictures side by side.

use super::StateRef;
use crate::components::*;
use crate::model::layout::Layout;
use crate::model::panes::Pane;
use crate::state::{Action, AppState, CentreTab, LeftTab, RunState};
use web_sys::KeyboardEvent;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WorkspaceProps {
    pub state: StateRef,
    pub on_action: Callback<Action>,
}

#[function_component(Workspace)]
pub fn workspace(props: &WorkspaceProps) -> Html {
    let WorkspaceProps { state, on_action } = props;
    // Stable, so that IrCompare skips re-rendering when its view did not change.
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
    let s = &**state;
    if s.layout == Layout::SideBySide {
        return html! {
            <main class="workspace side-by-side-workspace">
                <SideBySide slots={s.picture_slots()} summary={s.summary.clone()}
                    views={s.side_views.clone()} linked={s.linked_slot()} on_action={on_action.clone()} />
            </main>
        };
    }
    let widths = s.pane_widths();
    let view = s.view.clone().filter(|v| Some(v.stage) == s.stage);
    let stale = view.as_ref().is_some_and(|v| v.step != s.step);
    html! {
        <main class="workspace" style={widths.style()}>
            if s.layout != Layout::Presenter {
                { input_column(s, on_action) }
                <Splitter pane={Pane::Left} width={widths.left} label="Width of the input column"
                    on_action={on_action.clone()} />
            }
            <section class="column centre" aria-label="Stage view">
                <Narration stage={s.stage} step={s.step} total={s.total_steps()} view={view.clone()}
                    note={centre_note(s).map(AttrValue::from)} />
                { stage_view(s, on_action, on_step_key) }
            </section>
            <Splitter pane={Pane::Picture} width={widths.picture} label="Width of the picture column"
                on_action={on_action.clone()} />
            <PicturePanel {view} {stale} collapsed={widths.picture == 0} layout={s.layout} />
        </main>
    }
}

/// The left column. All three panels stay mounted (the inactive ones hidden): a
/// 20 000-line textarea costs the browser a long layout every time it is created.
fn input_column(s: &AppState, on_action: &Callback<Action>) -> Html {
    let left_id = match s.left_tab {
        LeftTab::Source => "source",
        LeftTab::Gallery => "gallery",
        LeftTab::Knobs => "knobs",
    };
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
    let collapsed = s.pane_widths().left == 0;
    html! {
        <section class={classes!("column", "left", collapsed.then_some("collapsed"))} aria-label="Input">
            <Tabs label="Input" tabs={left_tabs} selected={left_id} on_select={on_left} all_panels=true />
            { left_panel("source", editor) }
            { left_panel("gallery", gallery) }
            { left_panel("knobs", knobs) }
        </section>
    }
}

/// The centre's tabs under the narration: Before/After, Diff, Counters & remarks.
fn stage_view(
    s: &AppState,
    on_action: &Callback<Action>,
    on_step_key: Callback<KeyboardEvent>,
) -> Html {
    let Some(stage_summary) = s.stage_summary() else {
        return html! {};
    };
    let total = s.total_steps();
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
    let view = s.view.clone().filter(|v| Some(v.stage) == s.stage);
    let centre = match s.centre_tab {
        CentreTab::Step => match view {
            Some(v) => {
                let stale = v.step != s.step;
                html! { <IrCompare view={v} {stale} onkeydown={on_step_key} /> }
            }
            None => html! { <p class="muted" aria-busy="true">{ "Loading the IR…" }</p> },
        },
        CentreTab::Diff => html! {
            <DiffPanel from={s.diff_from} to={s.diff_to} step={s.step} {total}
                diff={s.diff.clone()} on_action={on_action.clone()} />
        },
        CentreTab::Stats => html! {
            <StatsPanel stage={stage_summary.stage} summary={stage_summary.clone()}
                elapsed_ms={s.summary.as_ref().map_or(0.0, |r| r.elapsed_ms)} />
        },
    };
    html! {
        <>
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
        </>
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
