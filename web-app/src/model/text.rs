//! Text with a line index, and the arithmetic of showing only the lines in view: the
//! editor and the IR panes draw a window of lines, never all of a 40 000-line text.

use std::rc::Rc;

/// Height of one code line in CSS pixels (`--code-line` in static/style.css).
pub const LINE_PX: f64 = 20.0;
/// Lines drawn above and below the visible ones, so fast scrolling shows no gaps.
pub const OVERSCAN: usize = 30;

/// A text and where each of its lines starts.
#[derive(Debug, PartialEq, Eq)]
pub struct Lines {
    text: Rc<str>,
    /// Byte offset of each line's start; one entry per line (an empty text has one line).
    starts: Vec<usize>,
}

impl Lines {
    pub fn new(text: impl Into<Rc<str>>) -> Lines {
        let text: Rc<str> = text.into();
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        // A final newline does not open another line.
        if starts.len() > 1 && *starts.last().unwrap() == text.len() {
            starts.pop();
        }
        Lines { text, starts }
    }

    pub fn text(&self) -> &Rc<str> {
        &self.text
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Line `i` (0-based) without its newline; empty past the end.
    pub fn line(&self, i: usize) -> &str {
        let Some(&start) = self.starts.get(i) else {
            return "";
        };
        let end = self.starts.get(i + 1).map_or(self.text.len(), |&e| e - 1);
        let line = &self.text[start..end.max(start)];
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// 0-based line and 0-based character column of byte offset `at`.
    pub fn position(&self, at: usize) -> (usize, usize) {
        let at = at.min(self.text.len());
        let line = self.starts.partition_point(|&s| s <= at) - 1;
        let col = self.text[self.starts[line]..at].chars().count();
        (line, col)
    }

    /// The byte offset of 1-based `line` and `col` (characters), clamped into the text.
    pub fn offset(&self, line: u32, col: u32) -> usize {
        let i = (line.max(1) as usize - 1).min(self.len() - 1);
        let text = self.line(i);
        let start = self.starts[i];
        let within = text
            .char_indices()
            .nth(col.max(1) as usize - 1)
            .map_or(text.len(), |(b, _)| b);
        start + within
    }
}

/// The rows of a pane lined up with its neighbour (`StepView::align`): its lines with
/// blank rows between them. Without gaps row and line numbers agree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RowMap {
    /// (line the blank rows stand above, how many), sorted by line.
    gaps: Vec<(usize, usize)>,
    lines: usize,
}

impl RowMap {
    pub fn new(lines: usize, gaps: &[web_engine::protocol::Gap]) -> RowMap {
        let mut g: Vec<(usize, usize)> = gaps
            .iter()
            .filter(|g| g.rows > 0)
            .map(|g| ((g.at as usize).min(lines), g.rows as usize))
            .collect();
        g.sort_unstable();
        RowMap { gaps: g, lines }
    }

    /// Rows in all: lines and blanks.
    pub fn rows(&self) -> usize {
        self.lines + self.gaps.iter().map(|g| g.1).sum::<usize>()
    }

    /// The 0-based line shown in `row`, or None for a blank row (or past the end).
    pub fn line_at(&self, row: usize) -> Option<usize> {
        let mut blanks = 0;
        for &(at, n) in &self.gaps {
            if row < at + blanks {
                break;
            }
            if row < at + blanks + n {
                return None;
            }
            blanks += n;
        }
        Some(row - blanks).filter(|&l| l < self.lines)
    }

    /// The row that shows 0-based `line`.
    pub fn row_of(&self, line: usize) -> usize {
        line + self
            .gaps
            .iter()
            .take_while(|g| g.0 <= line)
            .map(|g| g.1)
            .sum::<usize>()
    }
}

/// The lines `first..last` to draw for a viewport `height` pixels tall scrolled to
/// `top`, in a text of `total` lines.
pub fn window(top: f64, height: f64, total: usize) -> (usize, usize) {
    let top = top.max(0.0);
    let first_visible = (top / LINE_PX).floor() as usize;
    let visible = (height.max(LINE_PX) / LINE_PX).ceil() as usize + 1;
    let first = first_visible.saturating_sub(OVERSCAN).min(total);
    let last = (first_visible + visible + OVERSCAN).min(total);
    (first, last)
}

/// Where to scroll so that `line` shows a third of the way down a viewport `height`
/// pixels tall, or None when it is already comfortably in view at `top`.
pub fn scroll_for(line: usize, top: f64, height: f64) -> Option<f64> {
    let y = line as f64 * LINE_PX;
    let margin = LINE_PX * 2.0;
    if y >= top + margin && y + LINE_PX <= top + height - margin {
        return None;
    }
    Some((y - height / 3.0).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_indexed() {
        let l = Lines::new("a\nbc\r\n\nd");
        assert_eq!(l.len(), 4);
        assert_eq!(
            [l.line(0), l.line(1), l.line(2), l.line(3)],
            ["a", "bc", "", "d"]
        );
        assert_eq!(l.line(9), "");
        assert_eq!(Lines::new("x\n").len(), 1);
        assert_eq!(Lines::new("").len(), 1);
        assert_eq!(l.position(3), (1, 1));
        assert_eq!(l.position(99), (3, 1));
        assert_eq!(l.offset(2, 2), 3);
        assert_eq!(l.offset(2, 99), 4);
        assert_eq!(l.offset(99, 1), 7);
        assert_eq!(Lines::new("é✓x").offset(1, 3), 5);
    }

    #[test]
    fn rows_interleave_lines_and_blank_rows() {
        use web_engine::protocol::Gap;
        // Four lines; two blanks above line 1 and one at the end.
        let m = RowMap::new(4, &[Gap { at: 4, rows: 1 }, Gap { at: 1, rows: 2 }]);
        assert_eq!(m.rows(), 7);
        let rows: Vec<Option<usize>> = (0..8).map(|r| m.line_at(r)).collect();
        assert_eq!(
            rows,
            [Some(0), None, None, Some(1), Some(2), Some(3), None, None]
        );
        assert_eq!(
            (0..4).map(|l| m.row_of(l)).collect::<Vec<_>>(),
            [0, 3, 4, 5]
        );
        let plain = RowMap::new(3, &[]);
        assert_eq!(
            (plain.rows(), plain.line_at(2), plain.row_of(2)),
            (3, Some(2), 2)
        );
    }

    #[test]
    fn the_window_covers_the_viewport_with_overscan() {
        assert_eq!(window(0.0, 400.0, 10), (0, 10));
        let (first, last) = window(20_000.0, 400.0, 40_000);
        assert_eq!(first, 1000 - OVERSCAN);
        assert!((1000 + 20..=1000 + 21 + 1 + OVERSCAN).contains(&last));
        assert_eq!(window(1e9, 400.0, 50), (50, 50));
    }

    #[test]
    fn scrolling_brings_a_line_into_view_only_when_needed() {
        assert_eq!(scroll_for(5, 0.0, 400.0), None);
        assert_eq!(scroll_for(100, 0.0, 300.0), Some(2000.0 - 100.0));
        assert_eq!(scroll_for(0, 500.0, 300.0), Some(0.0));
    }
}
