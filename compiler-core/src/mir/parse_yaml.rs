//! The YAML around a MIR body: document splitting and the few header keys we read.
//! Unknown keys are skipped; nothing here allocates per input byte beyond the lines.

use crate::error::SourceError;
use alloc::string::String;
use alloc::vec::Vec;

/// One line of the input with its 1-based number.
#[derive(Copy, Clone, Debug)]
pub struct Line<'a> {
    pub no: u32,
    pub text: &'a str,
}

/// A `---` document: its lines (without the `---`/`...` markers).
pub struct Document<'a> {
    /// Line of the `---` marker.
    pub start: u32,
    /// `--- |`: an embedded LLVM IR module.
    pub is_ir: bool,
    pub lines: Vec<Line<'a>>,
}

pub fn split_documents(text: &str) -> Result<Vec<Document<'_>>, SourceError> {
    let mut docs: Vec<Document<'_>> = Vec::new();
    let mut open = false;
    for (i, raw) in text.split('\n').enumerate() {
        let no = i as u32 + 1;
        let t = raw.strip_suffix('\r').unwrap_or(raw);
        if t.starts_with("---")
            && t[3..].trim().chars().all(|c| c == '|' || c == ' ')
            && (t.len() == 3 || t.as_bytes()[3] == b' ')
        {
            let is_ir = t[3..].trim() == "|";
            docs.push(Document {
                start: no,
                is_ir,
                lines: Vec::new(),
            });
            open = true;
        } else if t == "..." {
            open = false;
        } else if open {
            docs.last_mut()
                .expect("open implies a document")
                .lines
                .push(Line { no, text: t });
        } else if !t.trim().is_empty() && !t.trim_start().starts_with('#') {
            return Err(SourceError::new(
                no,
                1,
                "expected `---` to start a MIR document",
            ));
        }
    }
    if docs.is_empty() {
        return Err(SourceError::new(
            1,
            1,
            "expected a MIR document starting with `---`",
        ));
    }
    Ok(docs)
}

/// A top-level `key: value` with the lines nested under it.
pub struct Entry<'a> {
    pub key: &'a str,
    pub line: Line<'a>,
    /// Column (1-based) where the value starts.
    pub value_col: u32,
    pub value: &'a str,
    pub nested: Vec<Line<'a>>,
}

pub fn top_level_entries<'a>(doc: &Document<'a>) -> Result<Vec<Entry<'a>>, SourceError> {
    let mut out: Vec<Entry<'a>> = Vec::new();
    for &line in &doc.lines {
        let t = line.text;
        let indented = t.starts_with(' ') || t.starts_with('\t');
        if !indented && !t.trim().is_empty() && !t.starts_with('#') {
            if t.starts_with('-') {
                // A list item at column 1 belongs to the previous key (YAML allows it).
                match out.last_mut() {
                    Some(e) => e.nested.push(line),
                    None => return Err(SourceError::new(line.no, 1, "expected `key: value`")),
                }
                continue;
            }
            let Some(colon) = t.find(':') else {
                return Err(SourceError::new(
                    line.no,
                    1,
                    "expected `key: value` in the MIR header",
                ));
            };
            let key = &t[..colon];
            let rest = &t[colon + 1..];
            let lead = rest.len() - rest.trim_start().len();
            let value = rest.trim();
            out.push(Entry {
                key,
                line,
                value_col: char_col(t, colon + 1 + lead),
                value,
                nested: Vec::new(),
            });
        } else if let Some(e) = out.last_mut() {
            e.nested.push(line);
        } else if !t.trim().is_empty() {
            return Err(SourceError::new(line.no, 1, "expected `key: value`"));
        }
    }
    Ok(out)
}

/// The 1-based column (in characters) of byte offset `byte` of `line`, clamped to the
/// line's end and to a character boundary.
pub fn char_col(line: &str, byte: usize) -> u32 {
    let mut b = byte.min(line.len());
    while !line.is_char_boundary(b) {
        b -= 1;
    }
    line[..b].chars().count() as u32 + 1
}

/// Parses `true`/`false`.
pub fn parse_bool(e: &Entry<'_>) -> Result<bool, SourceError> {
    match e.value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(SourceError::new(
            e.line.no,
            e.value_col,
            alloc::format!("expected `true` or `false` for `{}`", e.key),
        )),
    }
}

/// A YAML scalar: strips quotes.
pub fn unquote(s: &str) -> String {
    let s = s.trim();
    if s.len() >= 2
        && ((s.starts_with('\'') && s.ends_with('\'')) || (s.starts_with('"') && s.ends_with('"')))
    {
        s[1..s.len() - 1].replace("''", "'")
    } else {
        s.into()
    }
}

/// A flow mapping list item `- { k: v, k: [ ... ], k: 'x' }` → pairs with value columns.
pub fn flow_map<'a>(line: Line<'a>) -> Result<Vec<(&'a str, &'a str, u32)>, SourceError> {
    let t = line.text;
    let err = |byte: usize, m: &str| SourceError::new(line.no, char_col(t, byte), m);
    let dash = t
        .find('-')
        .ok_or_else(|| err(0, "expected a list item `- { ... }`"))?;
    if !t[..dash].trim().is_empty() {
        return Err(err(0, "expected a list item `- { ... }`"));
    }
    let open = t
        .find('{')
        .ok_or_else(|| err(dash, "expected `{` after `-`"))?;
    let close = t
        .rfind('}')
        .ok_or_else(|| err(t.len(), "expected `}` closing the mapping"))?;
    if close < open {
        return Err(err(close, "`}` before `{`"));
    }
    let body = &t[open + 1..close];
    let base = open + 1;
    // Split at commas outside quotes and brackets.
    let mut pairs = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None::<u8>, 0usize);
    let bytes = body.as_bytes();
    let mut i = 0;
    while i <= bytes.len() {
        let c = bytes.get(i).copied();
        match (quote, c) {
            (Some(q), Some(ch)) if ch == q => quote = None,
            (Some(_), Some(_)) => {}
            (Some(_), None) => return Err(err(base + start, "unterminated quoted string")),
            (None, Some(b'\'' | b'"')) => quote = c,
            (None, Some(b'[')) => depth += 1,
            (None, Some(b']')) => depth -= 1,
            (None, Some(b',')) | (None, None) if depth <= 0 => {
                let item = &body[start..i];
                if !item.trim().is_empty() {
                    let c = item
                        .find(':')
                        .ok_or_else(|| err(base + start, "expected `key: value`"))?;
                    let key = item[..c].trim();
                    let v = &item[c + 1..];
                    let lead = v.len() - v.trim_start().len();
                    pairs.push((key, v.trim(), char_col(t, base + start + c + 1 + lead)));
                }
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(pairs)
}
