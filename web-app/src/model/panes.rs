//! The workspace's resizable columns: the input column (left) and the picture column
//! (right), each a percentage of the workspace's width, kept per layout (not per stage,
//! so nothing jumps when the stage changes); 0 is collapsed.

use super::layout::Layout;

/// A column with a splitter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pane {
    Left,
    Picture,
}

/// The narrowest an open column gets, and the widest, in percent.
pub const MIN: u8 = 12;
pub const MAX: u8 = 70;
/// What one arrow key press moves a splitter by, in percent.
pub const STEP: u8 = 2;
/// The centre column keeps at least this much.
const CENTRE_MIN: u8 = 15;

/// Both widths of one layout, in percent of the workspace.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PaneWidths {
    pub left: u8,
    pub picture: u8,
}

impl PaneWidths {
    /// The widths a layout starts with (presenter has no input column).
    pub const fn default_for(layout: Layout) -> PaneWidths {
        match layout {
            // The picture is the main thing on a projector.
            Layout::Presenter => PaneWidths {
                left: 0,
                picture: 60,
            },
            Layout::Standard | Layout::SideBySide => PaneWidths {
                left: 22,
                picture: 40,
            },
        }
    }

    pub fn get(&self, pane: Pane) -> u8 {
        match pane {
            Pane::Left => self.left,
            Pane::Picture => self.picture,
        }
    }

    /// Sets one width: under [`MIN`] collapses it, else clamped to [`MAX`] and to what
    /// leaves the centre [`CENTRE_MIN`].
    pub fn set(&mut self, pane: Pane, percent: i32) {
        let other = match pane {
            Pane::Left => self.picture,
            Pane::Picture => self.left,
        };
        let room = 100 - CENTRE_MIN - other;
        let v = if percent < i32::from(MIN) {
            0
        } else {
            percent.min(i32::from(MAX.min(room))) as u8
        };
        match pane {
            Pane::Left => self.left = v,
            Pane::Picture => self.picture = v,
        }
    }

    /// The CSS custom properties the workspace grid reads.
    pub fn style(&self) -> String {
        format!("--left: {}%; --picture: {}%", self.left, self.picture)
    }
}

/// The index of a layout in per-layout tables.
pub fn layout_index(layout: Layout) -> usize {
    Layout::ALL.iter().position(|&l| l == layout).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_clamp_collapse_and_leave_the_centre_room() {
        let mut w = PaneWidths::default_for(Layout::Standard);
        w.set(Pane::Picture, 60);
        assert_eq!(w.picture, 60);
        w.set(Pane::Left, 40);
        assert_eq!(w.left, 25, "100 - 15 - 60");
        w.set(Pane::Left, 5);
        assert_eq!(w.left, 0, "collapsed");
        w.set(Pane::Picture, 95);
        assert_eq!(w.picture, MAX);
        assert_eq!(w.style(), "--left: 0%; --picture: 70%");
        assert_eq!(PaneWidths::default_for(Layout::Presenter).left, 0);
        assert!(PaneWidths::default_for(Layout::Presenter).picture > 50);
        assert_eq!(layout_index(Layout::SideBySide), 2);
    }
}
