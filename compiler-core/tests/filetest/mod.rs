//! The filetest format: one file per case holding the command, the input and the precise
//! expected output, in the manner of Cranelift's filetests.
//!
//! ```text
//!  ;; free comment lines (kept as written)
//!  ==== run --from mir --knob optnone=true     the options of `copyscope run`, one line
//!  ==== gallery commute                         optional: the input is that gallery example
//!  ==== input
//!  <the input, verbatim>
//!  ==== expect 01-two-address.mir               one section per expected output, in order
//!  <the output, verbatim>
//!  ==== expect 02-register-coalescer.mir (no newline at end)
//!  <an output whose last line has no newline>
//! ```
//!
//! A section's text is every line after its header up to the next header, so texts keep
//! their blank lines and trailing newlines exactly; a text may not contain a line that
//! starts with `==== ` (printing refuses such a text). `print(parse(t)) == t` for every
//! file this module prints.

use std::fmt::Write as _;

/// The marker that opens a header line.
pub const MARK: &str = "==== ";
const NO_EOL: &str = " (no newline at end)";

/// One parsed file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileTest {
    /// The lines before the first header, each with its newline.
    pub comment: String,
    /// The words after `==== run`.
    pub run: Vec<String>,
    /// The gallery example the input must equal, if any.
    pub gallery: Option<String>,
    pub input: String,
    /// `(name, text)` of each expected output, in file order.
    pub expect: Vec<(String, String)>,
}

/// Splits `text` into `(header, body)` pairs; the text before the first header is returned
/// apart.
fn sections(text: &str) -> (&str, Vec<(&str, &str)>) {
    let mut starts = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with(MARK) {
            starts.push(at);
        }
        at += line.len();
    }
    let head = &text[..starts.first().copied().unwrap_or(text.len())];
    let mut out = Vec::new();
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let chunk = &text[s..end];
        let (header, body) = chunk.split_once('\n').unwrap_or((chunk, ""));
        out.push((&header[MARK.len()..], body));
    }
    (head, out)
}

/// Reads a file; the error names the 1-based line of the offending header.
pub fn parse(text: &str) -> Result<FileTest, String> {
    let (head, parts) = sections(text);
    let mut t = FileTest {
        comment: head.to_string(),
        ..FileTest::default()
    };
    let mut line = head.lines().count() + 1;
    let mut input = None;
    for (header, body) in parts {
        let next_line = line + 1 + body.lines().count();
        let (header, no_eol) = match header.strip_suffix(NO_EOL) {
            Some(h) => (h, true),
            None => (header, false),
        };
        let body = if no_eol {
            body.strip_suffix('\n').unwrap_or(body)
        } else {
            body
        };
        let (word, rest) = header.split_once(' ').unwrap_or((header, ""));
        let plain = |what: &str| {
            if body.is_empty() {
                Ok(())
            } else {
                Err(format!("line {line}: `{what}` takes no text below it"))
            }
        };
        match word {
            "run" if t.run.is_empty() && input.is_none() => {
                plain("run")?;
                t.run = rest.split_whitespace().map(str::to_string).collect();
            }
            "gallery" if t.gallery.is_none() && input.is_none() && !rest.is_empty() => {
                plain("gallery")?;
                t.gallery = Some(rest.trim().to_string());
            }
            "input" if input.is_none() && rest.is_empty() => input = Some(body.to_string()),
            "expect" if input.is_some() && !rest.is_empty() => {
                if t.expect.iter().any(|(n, _)| n == rest) {
                    return Err(format!("line {line}: a second `expect {rest}`"));
                }
                t.expect.push((rest.to_string(), body.to_string()));
            }
            _ => {
                return Err(format!(
                    "line {line}: unexpected header `{MARK}{header}` (the order is run, \
                     gallery, input, then expect NAME sections)"
                ))
            }
        }
        line = next_line;
    }
    t.input = input.ok_or("no `==== input` section")?;
    Ok(t)
}

/// Writes one section; refuses a text with a line that would read as a header.
fn section(out: &mut String, header: &str, body: &str) -> Result<(), String> {
    if let Some(bad) = body.lines().find(|l| l.starts_with(MARK)) {
        return Err(format!(
            "section `{header}` has a line starting with `{MARK}`: {bad}"
        ));
    }
    let no_eol = !body.is_empty() && !body.ends_with('\n');
    writeln!(out, "{MARK}{header}{}", if no_eol { NO_EOL } else { "" }).unwrap();
    out.push_str(body);
    if no_eol {
        out.push('\n');
    }
    Ok(())
}

/// The file's text.
pub fn print(t: &FileTest) -> Result<String, String> {
    let mut out = t.comment.clone();
    if !t.run.is_empty() {
        section(&mut out, &format!("run {}", t.run.join(" ")), "")?;
    }
    if let Some(g) = &t.gallery {
        section(&mut out, &format!("gallery {g}"), "")?;
    }
    section(&mut out, "input", &t.input)?;
    for (name, text) in &t.expect {
        section(&mut out, &format!("expect {name}"), text)?;
    }
    Ok(out)
}

/// A line diff of two texts: the common lines at both ends are trimmed, the middle is
/// shown as `-` (expected) and `+` (actual) lines with two lines of context, each side cut
/// at `max` lines.
pub fn diff(expected: &str, actual: &str, max: usize) -> String {
    let e: Vec<&str> = expected.split_inclusive('\n').collect();
    let a: Vec<&str> = actual.split_inclusive('\n').collect();
    let head = e.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let tail = e[head..]
        .iter()
        .rev()
        .zip(a[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let from = head.saturating_sub(2);
    let mut out = format!("@@ line {} @@\n", head + 1);
    let show = |out: &mut String, sign: char, lines: &[&str]| {
        for l in lines.iter().take(max) {
            let l = l.strip_suffix('\n').map_or(format!("{l}⏎̸"), str::to_string);
            writeln!(out, "{sign}{l}").unwrap();
        }
        if lines.len() > max {
            writeln!(out, "{sign}... {} more lines", lines.len() - max).unwrap();
        }
    };
    show(&mut out, ' ', &e[from..head]);
    show(&mut out, '-', &e[head..e.len() - tail]);
    show(&mut out, '+', &a[head..a.len() - tail]);
    show(&mut out, ' ', &e[e.len() - tail..][..tail.min(2)]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> FileTest {
        FileTest {
            comment: ";; a case\n\n".into(),
            run: vec!["--from".into(), "mir".into()],
            gallery: Some("commute".into()),
            input: "a\n\nb\n\n".into(),
            expect: vec![
                ("01-x.mir".into(), "x\n".into()),
                ("02-y.mir".into(), "y".into()),
                ("03-z.mir".into(), String::new()),
                ("04-w.mir".into(), "\n".into()),
            ],
        }
    }

    #[test]
    fn printing_then_parsing_gives_the_same_case() {
        let t = sample();
        let text = print(&t).unwrap();
        assert_eq!(
            text,
            ";; a case\n\n==== run --from mir\n==== gallery commute\n==== input\na\n\nb\n\n\
             ==== expect 01-x.mir\nx\n==== expect 02-y.mir (no newline at end)\ny\n\
             ==== expect 03-z.mir\n==== expect 04-w.mir\n\n"
        );
        assert_eq!(parse(&text).unwrap(), t);
    }

    #[test]
    fn a_text_with_a_header_line_is_refused() {
        let mut t = sample();
        t.expect[0].1 = "==== oops\n".into();
        assert!(print(&t).unwrap_err().contains("01-x.mir"));
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = parse("==== input\na\n==== expect x\nb\n==== expect x\n").unwrap_err();
        assert_eq!(e, "line 5: a second `expect x`");
        let e = parse("==== run\n==== expect x\n").unwrap_err();
        assert!(
            e.starts_with("line 2: unexpected header `==== expect x`"),
            "{e}"
        );
        assert_eq!(
            parse(";; nothing\n").unwrap_err(),
            "no `==== input` section"
        );
        assert!(parse("==== run a\nb\n==== input\n")
            .unwrap_err()
            .contains("line 1"));
    }

    #[test]
    fn diffs_show_the_changed_middle_with_context() {
        let d = diff("a\nb\nc\nd\ne\n", "a\nb\nX\nd\ne\n", 10);
        assert_eq!(d, "@@ line 3 @@\n a\n b\n-c\n+X\n d\n e\n");
        let d = diff("a\n", "a", 10);
        assert_eq!(d, "@@ line 1 @@\n-a\n+a⏎̸\n");
        let d = diff("1\n2\n3\n", "", 2);
        assert_eq!(d, "@@ line 1 @@\n-1\n-2\n-... 1 more lines\n");
    }
}
