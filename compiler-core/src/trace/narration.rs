//! How a step's sentence is stored: as a template and its numbers.
//!
//! ```text
//!  "Joined %12 into %7: no overlap."  ──▶  template "Joined %\u{1} into %\u{1}: no overlap."
//!                                          args     [12, 7]  (LEB128 bytes: 0c 07)
//! ```
//!
//! The steps of one kind differ mostly in their numbers (registers, instructions,
//! slots), so the template is shared: [`Templates`] (one per recorder) hands every step
//! the same `Arc` for the same template, and a step keeps only the pointer and its
//! numbers. [`Narration::text`] puts the sentence back together byte for byte: a number
//! becomes an argument only when printing it gives the same digits back (no leading
//! zero, at most nine digits), and a `\u{1}` of the sentence itself is kept as an
//! argument of its own ([`LITERAL_MARK`]).

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

/// Stands for one argument in a template.
const MARK: char = '\u{1}';
/// The argument that stands for a `\u{1}` of the sentence itself.
const LITERAL_MARK: u32 = u32::MAX;

/// One step's sentence: a shared template and the numbers that fill it.
#[derive(Clone)]
pub struct Narration {
    /// Thin (one word): the step array holds one per step.
    #[allow(clippy::redundant_allocation)]
    template: Arc<Box<str>>,
    /// The numbers in order, LEB128; `None` when there are none.
    args: Option<alloc::boxed::Box<[u8]>>,
}

impl Narration {
    /// Splits `text` into a template (not yet shared) and its numbers.
    pub fn new(text: &str) -> Self {
        let (template, args) = split(text);
        Narration {
            template: Arc::new(template.into_boxed_str()),
            args: (!args.is_empty()).then(|| args.into_boxed_slice()),
        }
    }

    /// The sentence, as it was written.
    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.template.len() + 8);
        let mut args = self.args.as_deref().unwrap_or(&[]);
        for c in self.template.chars() {
            if c != MARK {
                out.push(c);
                continue;
            }
            let (v, rest) = read_leb(args);
            args = rest;
            if v == LITERAL_MARK {
                out.push(MARK);
            } else {
                let _ = fmt::Write::write_fmt(&mut out, format_args!("{v}"));
            }
        }
        out
    }

    pub fn contains(&self, pat: &str) -> bool {
        self.text().contains(pat)
    }
    pub fn starts_with(&self, pat: &str) -> bool {
        self.text().starts_with(pat)
    }
    pub fn is_empty(&self) -> bool {
        self.template.is_empty()
    }

    /// Heap bytes this step holds of its own (the template is shared).
    pub fn own_bytes(&self) -> usize {
        self.args.as_ref().map_or(0, |a| a.len())
    }
    /// Where the shared template lives (equal for steps sharing it) and its length:
    /// for counting a trace's templates once.
    pub fn template_ptr(&self) -> usize {
        Arc::as_ptr(&self.template) as *const u8 as usize
    }
    pub fn template_len(&self) -> usize {
        self.template.len()
    }
    /// The template: the sentence with each stored number as `\u{1}`.
    pub fn template(&self) -> &str {
        &self.template
    }
}

impl Default for Narration {
    fn default() -> Self {
        Narration::new("")
    }
}

impl From<String> for Narration {
    fn from(s: String) -> Self {
        Narration::new(&s)
    }
}
impl From<&str> for Narration {
    fn from(s: &str) -> Self {
        Narration::new(s)
    }
}

impl fmt::Display for Narration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}
impl fmt::Debug for Narration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.text(), f)
    }
}
impl PartialEq for Narration {
    fn eq(&self, o: &Self) -> bool {
        self.template == o.template && self.args == o.args
    }
}
impl PartialEq<str> for Narration {
    fn eq(&self, o: &str) -> bool {
        self.text() == o
    }
}
impl PartialEq<&str> for Narration {
    fn eq(&self, o: &&str) -> bool {
        self.text() == *o
    }
}
impl serde::Serialize for Narration {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

/// The templates one recorder has seen: each is stored once, and every step with the
/// same template points at that one copy.
#[derive(Default, Debug)]
pub struct Templates(BTreeMap<Box<str>, Arc<Box<str>>>);

impl Templates {
    /// Points `n` at the shared copy of its template (adding it when new).
    pub fn share(&mut self, n: &mut Narration) {
        match self.0.get(&**n.template) {
            Some(t) => n.template = t.clone(),
            None => {
                self.0.insert((*n.template).clone(), n.template.clone());
            }
        }
    }
}

/// The template of `text` and its numbers as LEB128 bytes.
fn split(text: &str) -> (String, Vec<u8>) {
    let mut template = String::with_capacity(text.len());
    let mut args = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let digits = &text[start..i];
            let round_trips = digits.len() <= 9 && (digits == "0" || !digits.starts_with('0'));
            match digits.parse::<u32>() {
                Ok(v) if round_trips => {
                    template.push(MARK);
                    write_leb(&mut args, v);
                }
                _ => template.push_str(digits),
            }
            continue;
        }
        let c = text[i..].chars().next().unwrap_or(MARK);
        if c == MARK {
            template.push(MARK);
            write_leb(&mut args, LITERAL_MARK);
        } else {
            template.push(c);
        }
        i += c.len_utf8();
    }
    (template, args)
}

fn write_leb(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn read_leb(b: &[u8]) -> (u32, &[u8]) {
    let (mut v, mut shift) = (0u32, 0);
    for (k, &byte) in b.iter().enumerate() {
        v |= ((byte & 0x7f) as u32) << shift;
        if byte & 0x80 == 0 {
            return (v, &b[k + 1..]);
        }
        shift += 7;
    }
    (v, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_come_back_byte_for_byte() {
        for s in [
            "",
            "Joined %12 into %7: no overlap.",
            "0x1000000000 is bit 36; 007 and 1234567890 stay text; 0 and 999999999 do not.",
            "a \u{1} mark, %3 → %4 ×2 ÷ 10.5",
            "12",
            "t0 t01 t10",
            "4294967295 4294967296 999999999 1000000000",
        ] {
            assert_eq!(Narration::new(s).text(), s, "{s:?}");
        }
    }

    /// Any text comes back unchanged: 200,000 strings drawn from digits (zeros
    /// especially), the mark itself, ASCII and multi-byte characters.
    #[test]
    fn random_text_comes_back_byte_for_byte() {
        let alphabet: Vec<char> = "0000123456789%t,. x\u{1}→×é".chars().collect();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 24) as usize;
            let mut y = x;
            let s: String = (0..len)
                .map(|_| {
                    y = y
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    alphabet[(y >> 33) as usize % alphabet.len()]
                })
                .collect();
            assert_eq!(Narration::new(&s).text(), s, "{s:?}");
        }
    }

    #[test]
    fn a_template_is_stored_once() {
        let mut t = Templates::default();
        let mut a = Narration::new("Joined %12 into %7.");
        let mut b = Narration::new("Joined %3 into %400.");
        t.share(&mut a);
        t.share(&mut b);
        assert!(Arc::ptr_eq(&a.template, &b.template));
        assert_eq!(b.text(), "Joined %3 into %400.");
        assert_eq!(a.own_bytes(), 2);
    }
}
