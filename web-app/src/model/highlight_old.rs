//! The tokenizer as it was before the table-driven one (three near-copies), kept only
//! to check that the new one gives the same tokens on every gallery text.

use super::highlight::{is_mir_flag, Lang, Tok, Token, DAG_TYPES};
use std::ops::Range;

/// Splits `line` into tokens covering it entirely, in order.
pub fn tokenize(lang: Lang, line: &str) -> Vec<Token> {
    let mut t = Tokens {
        line,
        b: line.as_bytes(),
        out: Vec::new(),
    };
    match lang {
        Lang::Mir => t.mir(),
        Lang::Dag => t.dag(),
        Lang::Ptx => t.ptx(),
    }
    t.out
}

struct Tokens<'a> {
    line: &'a str,
    b: &'a [u8],
    out: Vec<Token>,
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

impl Tokens<'_> {
    fn push(&mut self, tok: Tok, r: Range<usize>) {
        if r.is_empty() {
            return;
        }
        // Merge neighbours of the same kind (fewer spans to draw).
        if let Some((last, lr)) = self.out.last_mut() {
            if *last == tok && lr.end == r.start {
                lr.end = r.end;
                return;
            }
        }
        self.out.push((tok, r));
    }

    /// End of the run of bytes from `i` satisfying `f`.
    fn run(&self, mut i: usize, f: impl Fn(u8) -> bool) -> usize {
        while i < self.b.len() && f(self.b[i]) {
            i += 1;
        }
        i
    }

    /// The end of a `"..."` string starting at `i` (backslash escapes honoured).
    fn string_end(&self, i: usize) -> usize {
        let mut j = i + 1;
        while j < self.b.len() {
            match self.b[j] {
                b'\\' => j += 2,
                b'"' => return j + 1,
                _ => j += 1,
            }
        }
        self.b.len()
    }

    /// A number at `i` (`-5`, `0x1f`, `1.5e3`), if there is one.
    fn number_end(&self, i: usize) -> Option<usize> {
        let mut j = i;
        if self.b.get(j) == Some(&b'-') {
            j += 1;
        }
        if !self.b.get(j).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        if self.b.get(j..j + 2) == Some(b"0x") || self.b.get(j..j + 2) == Some(b"0X") {
            return Some(self.run(j + 2, |c| c.is_ascii_hexdigit()));
        }
        j = self.run(j, |c| c.is_ascii_digit() || c == b'.');
        if matches!(self.b.get(j), Some(b'e' | b'E')) {
            let k = if matches!(self.b.get(j + 1), Some(b'+' | b'-')) {
                j + 2
            } else {
                j + 1
            };
            if self.b.get(k).is_some_and(u8::is_ascii_digit) {
                j = self.run(k, |c| c.is_ascii_digit());
            }
        }
        Some(j)
    }

    fn mir(&mut self) {
        let b = self.b;
        let lead = self.run(0, |c| c == b' ' || c == b'\t');
        self.push(Tok::Plain, 0..lead);
        let rest = &self.line[lead..];
        if rest.starts_with('#') || rest.starts_with(';') {
            self.push(Tok::Comment, lead..b.len());
            return;
        }
        if rest == "---" || rest.starts_with("--- ") || rest == "..." {
            self.push(Tok::Keyword, lead..b.len());
            return;
        }
        // `bb.N[.name][ (attrs)]:` block headers.
        if rest.starts_with("bb.") {
            let end = self.run(lead, |c| c != b':' && c != b' ');
            self.push(Tok::Block, lead..end);
            return self.mir_operands(end);
        }
        // YAML keys: `name:`, `successors:`, `- { id: 1, class: b32 }` (only at the start).
        let key_end = self.run(lead, is_word);
        if key_end > lead && b.get(key_end) == Some(&b':') && b[lead].is_ascii_lowercase() {
            self.push(Tok::Keyword, lead..key_end + 1);
            return self.mir_operands(key_end + 1);
        }
        self.mir_operands(lead);
    }

    fn mir_operands(&mut self, mut i: usize) {
        let b = self.b;
        while i < b.len() {
            let c = b[i];
            let start = i;
            match c {
                b';' => {
                    self.push(Tok::Comment, i..b.len());
                    return;
                }
                b':' if b.get(i + 1) == Some(&b':') => {
                    self.push(Tok::Meta, i..b.len());
                    return;
                }
                b'"' => {
                    i = self.string_end(i);
                    self.push(Tok::Str, start..i);
                }
                b'%' => {
                    i += 1;
                    if self.line[i..].starts_with("bb.") {
                        i = self.run(i + 3, |c| is_word(c) || c == b'.');
                        self.push(Tok::Block, start..i);
                    } else if self.line[i..].starts_with("subreg.") {
                        i = self.run(i + 7, is_word);
                        self.push(Tok::Type, start..i);
                    } else {
                        i = self.run(i, is_word);
                        self.push(Tok::Reg, start..i);
                        // `.sub0` lane, `:class`.
                        if b.get(i) == Some(&b'.') {
                            let e = self.run(i + 1, is_word);
                            self.push(Tok::Type, i..e);
                            i = e;
                        }
                        if b.get(i) == Some(&b':') && b.get(i + 1).is_some_and(|c| is_word(*c)) {
                            let e = self.run(i + 1, is_word);
                            self.push(Tok::Type, i..e);
                            i = e;
                        }
                    }
                }
                b'$' => {
                    i = self.run(i + 1, is_word);
                    self.push(Tok::Phys, start..i);
                }
                b'&' => {
                    i += 1;
                    if b.get(i) == Some(&b'"') {
                        i = self.string_end(i);
                    } else {
                        i = self.run(i, |c| is_word(c) || c == b'.' || c == b'$');
                    }
                    self.push(Tok::Str, start..i);
                }
                b'-' | b'0'..=b'9' if self.number_end(i).is_some() && !prev_is_word(b, i) => {
                    i = self.number_end(i).unwrap_or(i + 1);
                    self.push(Tok::Number, start..i);
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    i = self.run(i, |c| is_word(c) || c == b'-' || c == b'.');
                    let word = &self.line[start..i];
                    let tok = if is_mir_flag(word) {
                        Tok::Flag
                    } else if is_opcode(word) {
                        Tok::Opcode
                    } else {
                        Tok::Plain
                    };
                    self.push(tok, start..i);
                }
                _ => {
                    i += self.line[i..].chars().next().map_or(1, char::len_utf8);
                    self.push(Tok::Plain, start..i);
                }
            }
        }
    }

    fn dag(&mut self) {
        let b = self.b;
        let mut i = 0;
        while i < b.len() {
            let start = i;
            let c = b[i];
            match c {
                b';' | b'#' => {
                    self.push(Tok::Comment, i..b.len());
                    return;
                }
                b'"' => {
                    i = self.string_end(i);
                    self.push(Tok::Str, start..i);
                }
                b'%' => {
                    i = self.run(i + 1, is_word);
                    self.push(Tok::Reg, start..i);
                }
                b'$' => {
                    i = self.run(i + 1, is_word);
                    self.push(Tok::Phys, start..i);
                }
                b'<' => {
                    let e = self.run(i + 1, |c| c != b'>');
                    i = (e + 1).min(b.len());
                    self.push(Tok::Number, start..i);
                }
                b'-' | b'0'..=b'9' if self.number_end(i).is_some() && !prev_is_word(b, i) => {
                    i = self.number_end(i).unwrap_or(i + 1);
                    self.push(Tok::Number, start..i);
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    i = self.run(i, |c| is_word(c) || c == b'.');
                    let word = &self.line[start..i];
                    let node = word.len() > 1
                        && word.starts_with('t')
                        && word[1..].bytes().all(|c| c.is_ascii_digit());
                    let tok = if node {
                        Tok::Reg
                    } else if DAG_TYPES.contains(&word) {
                        Tok::Type
                    } else if word.starts_with("bb.") || word == "BasicBlock" {
                        Tok::Block
                    } else if word.as_bytes()[0].is_ascii_uppercase() {
                        Tok::Opcode
                    } else {
                        Tok::Plain
                    };
                    self.push(tok, start..i);
                }
                _ => {
                    i += self.line[i..].chars().next().map_or(1, char::len_utf8);
                    self.push(Tok::Plain, start..i);
                }
            }
        }
    }

    fn ptx(&mut self) {
        let b = self.b;
        let mut i = 0;
        // The first word of a statement is its opcode.
        let mut expect_opcode = true;
        while i < b.len() {
            let start = i;
            let c = b[i];
            match c {
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    self.push(Tok::Comment, i..b.len());
                    return;
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i = self.line[i + 2..]
                        .find("*/")
                        .map_or(b.len(), |p| i + 2 + p + 2);
                    self.push(Tok::Comment, start..i);
                }
                b'"' => {
                    i = self.string_end(i);
                    self.push(Tok::Str, start..i);
                }
                b'.' => {
                    i = self.run(i + 1, is_word);
                    self.push(Tok::Keyword, start..i);
                }
                b'@' => {
                    i = self.run(i + 1, |c| is_word(c) || c == b'%' || c == b'!');
                    self.push(Tok::Flag, start..i);
                }
                b'%' => {
                    i = self.run(i + 1, |c| is_word(c) || c == b'.');
                    self.push(Tok::Reg, start..i);
                }
                b'$' => {
                    i = self.run(i + 1, |c| is_word(c) || c == b'$');
                    self.push(Tok::Block, start..i);
                }
                b';' | b'{' | b'}' => {
                    expect_opcode = true;
                    i += 1;
                    self.push(Tok::Plain, start..i);
                }
                b'-' | b'0'..=b'9' if self.number_end(i).is_some() && !prev_is_word(b, i) => {
                    i = self.number_end(i).unwrap_or(i + 1);
                    // 0f3F800000 float literals.
                    i = self.run(i, |c| c.is_ascii_hexdigit());
                    self.push(Tok::Number, start..i);
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    i = self.run(i, is_word);
                    if b.get(i) == Some(&b':') {
                        i += 1;
                        self.push(Tok::Block, start..i);
                        continue;
                    }
                    if expect_opcode {
                        self.push(Tok::Opcode, start..i);
                        // Its suffixes: `.s32`, `.rn.f32`.
                        while b.get(i) == Some(&b'.') {
                            let e = self.run(i + 1, is_word);
                            self.push(Tok::Type, i..e);
                            i = e;
                        }
                        expect_opcode = false;
                    } else {
                        self.push(Tok::Plain, start..i);
                    }
                }
                _ => {
                    i += self.line[i..].chars().next().map_or(1, char::len_utf8);
                    self.push(Tok::Plain, start..i);
                }
            }
        }
    }
}

fn prev_is_word(b: &[u8], i: usize) -> bool {
    i > 0 && (is_word(b[i - 1]) || b[i - 1] == b'.')
}

/// MIR opcodes start with a capital letter (`COPY`, `ADDi32rr`, `TEX_2D_V4F32_F32`,
/// `Return`); operand keywords are lower case.
fn is_opcode(word: &str) -> bool {
    word.as_bytes()[0].is_ascii_uppercase() && !word.contains('-')
}
