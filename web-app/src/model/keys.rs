//! Keyboard shortcuts. They act where focus is: the step controls and the IR panes hand
//! their key presses here; nothing listens on the whole page, so arrow keys in the
//! editor, the slider or a text field keep their usual meaning.

use crate::state::Action;

/// What kind of element had focus when a key was pressed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FocusKind {
    /// A text field, text area, select or slider: it owns its keys.
    Field,
    /// A button: Space and Enter press it.
    Button,
    /// Anything else (a scrollable pane, a group).
    Other,
}

impl FocusKind {
    /// From an element's tag name and `type` attribute.
    pub fn of(tag: &str, input_type: Option<&str>) -> FocusKind {
        match tag.to_ascii_lowercase().as_str() {
            "textarea" | "select" => FocusKind::Field,
            "input" => match input_type {
                Some("checkbox" | "radio" | "button" | "submit") => FocusKind::Button,
                _ => FocusKind::Field,
            },
            "button" | "summary" | "a" => FocusKind::Button,
            _ => FocusKind::Other,
        }
    }
}

/// The stepping action for `key` (a `KeyboardEvent.key`) pressed on an element of kind
/// `focus`, if it has one. Modified keys (Ctrl, Alt, Meta) are left alone.
pub fn step_key(key: &str, focus: FocusKind, modified: bool) -> Option<Action> {
    if modified || focus == FocusKind::Field {
        return None;
    }
    match key {
        "ArrowRight" => Some(Action::Step(1)),
        "ArrowLeft" => Some(Action::Step(-1)),
        "Home" => Some(Action::First),
        "End" => Some(Action::Last),
        " " | "k" if focus == FocusKind::Other => Some(Action::TogglePlay),
        "k" => Some(Action::TogglePlay),
        _ => None,
    }
}

/// The shortcuts, for the help text.
pub const HELP: [(&str, &str); 6] = [
    (
        "← →",
        "previous / next step (on the step controls or an IR pane)",
    ),
    ("Home End", "first / last step"),
    ("Space or K", "play / pause (K also on buttons)"),
    ("← → on the stage list", "move between stages"),
    ("Ctrl+Enter in the editor", "run now"),
    ("Enter in the example search", "open the first match"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_act_only_where_they_should() {
        let pane = FocusKind::of("div", None);
        assert_eq!(step_key("ArrowRight", pane, false), Some(Action::Step(1)));
        assert_eq!(step_key("ArrowLeft", pane, false), Some(Action::Step(-1)));
        assert_eq!(step_key("Home", pane, false), Some(Action::First));
        assert_eq!(step_key("End", pane, false), Some(Action::Last));
        assert_eq!(step_key(" ", pane, false), Some(Action::TogglePlay));
        assert_eq!(step_key("ArrowRight", pane, true), None, "Ctrl/Alt/Meta");
        // Fields keep their keys.
        for (tag, ty) in [
            ("textarea", None),
            ("input", Some("range")),
            ("input", None),
            ("SELECT", None),
        ] {
            assert_eq!(step_key("ArrowRight", FocusKind::of(tag, ty), false), None);
        }
        // On a button, Space presses the button; arrows still step.
        let button = FocusKind::of("button", None);
        assert_eq!(step_key(" ", button, false), None);
        assert_eq!(step_key("k", button, false), Some(Action::TogglePlay));
        assert_eq!(step_key("ArrowRight", button, false), Some(Action::Step(1)));
        assert_eq!(FocusKind::of("input", Some("checkbox")), FocusKind::Button);
        assert_eq!(step_key("x", pane, false), None);
    }
}
