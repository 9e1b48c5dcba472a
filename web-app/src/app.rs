//! The page: header and the stage timeline. The editor, step controls, IR views and pass
//! pictures of DESIGN.md join here as components under `components/`.

use crate::components::StageList;
use crate::state::{Action, AppState};
use compiler_core::Stage;
use yew::prelude::*;

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::default);
    let on_select = {
        let state = state.clone();
        Callback::from(move |stage: Stage| state.dispatch(Action::SelectStage(stage)))
    };

    html! {
        <>
            <header class="app-header">
                <h1>{ "CopyScope" }</h1>
                <p class="tagline">
                    { "The life of a register copy, from the selected DAG through the NVPTX back end and ptxas." }
                </p>
            </header>
            <main class="app-main">
                <StageList selected={state.selected} {on_select} />
            </main>
        </>
    }
}
