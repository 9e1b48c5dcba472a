//! Small inline SVG icons for the step buttons (no icon font: every system draws them the
//! same). Decorative only: the buttons carry the accessible names.

use yew::prelude::*;

/// Which icon.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IconName {
    First,
    Previous,
    Play,
    Pause,
    Next,
    Last,
}

impl IconName {
    /// The path, on a 24×24 grid.
    const fn path(self) -> &'static str {
        match self {
            IconName::First => "M4 4h2.5v16H4zM13 4v16L6.5 12zM21 4v16l-7.5-8z",
            IconName::Previous => "M6 4h2.5v16H6zM19 4v16L9.5 12z",
            IconName::Play => "M7 4v16l13-8z",
            IconName::Pause => "M6 4h4v16H6zM14 4h4v16h-4z",
            IconName::Next => "M15.5 4H18v16h-2.5zM5 4v16l9.5-8z",
            IconName::Last => "M17.5 4H20v16h-2.5zM3 4v16l7.5-8zM11 4v16l6.5-8z",
        }
    }
}

#[derive(Properties, PartialEq)]
pub struct IconProps {
    pub name: IconName,
}

#[function_component(Icon)]
pub fn icon(props: &IconProps) -> Html {
    html! {
        <svg class="icon" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
            <path d={props.name.path()} fill="currentColor" />
        </svg>
    }
}
