//! A stage's drawn picture (`StepView::picture`), whichever kind it is.

use super::fanout_picture::FanoutPictureView;
use super::go_grid_picture::GoGridPictureView;
use web_engine::protocol::pictures::Picture;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PassPictureProps {
    pub picture: Picture,
}

#[function_component(PassPicture)]
pub fn pass_picture(props: &PassPictureProps) -> Html {
    html! {
        <div class="pass-picture">
            { match &props.picture {
                Picture::Fanout(p) => html! { <FanoutPictureView picture={p.clone()} /> },
                Picture::GoGrid(p) => html! { <GoGridPictureView picture={p.clone()} /> },
            } }
        </div>
    }
}
