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
//! argument of its own ([`LITERAL_MARK`]). The numbers' first eight bytes live inline
//! in the step; a sentence whose numbers need more points at a small node of its own
//! holding the rest and the shared template.
//!
//! A step's [`Kind`] is a string of the program (no heap).

use super::compact::varint;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;

/// Stands for one argument in a template.
const MARK: char = '\u{1}';
/// The argument that stands for a `\u{1}` of the sentence itself.
const LITERAL_MARK: u32 = u32::MAX;
/// The numbers' LEB128 bytes kept inline in a step; a sentence whose numbers need more
/// keeps the rest next to its template pointer ([`Template::Spill`]).
const INLINE_ARGS: usize = 8;

/// A sentence with its numbers taken out, shared by the steps that use it (`Text`); or,
/// for a sentence whose numbers need more than [`INLINE_ARGS`] bytes, a step's own node
/// holding the shared text and the numbers' bytes past the inline ones (`Spill`).
/// Templates compare by what they print: their text and spilled bytes, whether the
/// text was written in the program or split from a sentence.
#[derive(Clone)]
enum Template {
    Text(Box<str>),
    /// A template written in the program ([`Narration::fixed`], [`Narration::numbered`]):
    /// its text costs no heap.
    Static(&'static str),
    Spill(Arc<Template>, Box<[u8]>),
}

/// The shared text node of `t` (itself, or what a spill points at).
fn text_node(t: &Arc<Template>) -> &Arc<Template> {
    match &**t {
        Template::Text(_) | Template::Static(_) => t,
        Template::Spill(text, _) => text,
    }
}

impl Template {
    fn spilled(&self) -> &[u8] {
        match self {
            Template::Spill(_, rest) => rest,
            _ => &[],
        }
    }
    fn text(&self) -> &str {
        match self {
            Template::Text(t) => t,
            Template::Static(t) => t,
            Template::Spill(t, _) => t.text(),
        }
    }
}

impl PartialEq for Template {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == core::cmp::Ordering::Equal
    }
}
impl Eq for Template {}
impl PartialOrd for Template {
    fn partial_cmp(&self, o: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
/// Shorter texts first, then by bytes: a table of templates is searched on every step
/// recorded, and most of the templates it passes differ in length, which settles the
/// comparison without reading their texts (many share long openings).
impl Ord for Template {
    fn cmp(&self, o: &Self) -> core::cmp::Ordering {
        let (a, b) = (self.text(), o.text());
        a.len()
            .cmp(&b.len())
            .then_with(|| (a, self.spilled()).cmp(&(b, o.spilled())))
    }
}

/// One step's sentence: a shared template and the numbers that fill it (16 bytes: the
/// step array holds one per step).
#[derive(Clone)]
pub struct Narration {
    template: Arc<Template>,
    /// The numbers in order, LEB128 (self-delimiting: the template says how many),
    /// zero-padded; those past these bytes are in the template's spill.
    args: [u8; INLINE_ARGS],
}

impl Narration {
    /// Splits `text` into a template (not yet shared) and its numbers.
    pub fn new(text: &str) -> Self {
        let (template, args) = split(text);
        let mut inline = [0u8; INLINE_ARGS];
        let here = args.len().min(INLINE_ARGS);
        inline[..here].copy_from_slice(&args[..here]);
        let mut node = Arc::new(Template::Text(template.into_boxed_str()));
        if args.len() > INLINE_ARGS {
            let rest = args[INLINE_ARGS..].to_vec().into_boxed_slice();
            node = Arc::new(Template::Spill(node, rest));
        }
        Narration {
            template: node,
            args: inline,
        }
    }

    /// A sentence written in the program: its template is the text itself (digits
    /// included; a text holding a `\u{1}` is split as [`Narration::new`] does).
    pub fn fixed(text: &'static str) -> Self {
        if text.bytes().any(|b| b == 1) {
            return Narration::new(text);
        }
        Narration {
            template: Arc::new(Template::Static(text)),
            args: [0; INLINE_ARGS],
        }
    }

    /// A sentence written in the program with each number as `\u{1}` in `template`,
    /// filled by `args` in order: the same text as formatting the numbers into it, kept
    /// as the template (no heap for its text) and the numbers.
    pub fn numbered(template: &'static str, args: &[u64]) -> Self {
        let marks = template.bytes().filter(|&b| b == 1).count();
        if marks != args.len() || args.iter().any(|&v| v >= u64::from(LITERAL_MARK)) {
            let mut text = String::new();
            let mut rest = args.iter();
            for c in template.chars() {
                if c != MARK {
                    text.push(c);
                    continue;
                }
                let v = rest.next().copied().unwrap_or(0);
                let _ = fmt::Write::write_fmt(&mut text, format_args!("{v}"));
            }
            return Narration::new(&text);
        }
        let mut bytes = Vec::new();
        for &v in args {
            varint::put_u32(&mut bytes, v as u32);
        }
        let mut inline = [0u8; INLINE_ARGS];
        let here = bytes.len().min(INLINE_ARGS);
        inline[..here].copy_from_slice(&bytes[..here]);
        let mut node = Arc::new(Template::Static(template));
        if bytes.len() > INLINE_ARGS {
            node = Arc::new(Template::Spill(node, bytes[INLINE_ARGS..].into()));
        }
        Narration {
            template: node,
            args: inline,
        }
    }

    /// The sentence, as it was written.
    pub fn text(&self) -> String {
        let spilled: Vec<u8>;
        let mut args = &self.args[..];
        if let Template::Spill(_, rest) = &*self.template {
            spilled = self.args.iter().chain(rest.iter()).copied().collect();
            args = &spilled;
        }
        let template = self.template.text();
        let mut out = String::with_capacity(template.len() + 8);
        let mut pos = 0;
        for c in template.chars() {
            if c != MARK {
                out.push(c);
                continue;
            }
            let v = varint::read_u32(args, &mut pos);
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
        self.template.text().is_empty()
    }

    /// Heap bytes this step holds of its own (the template is shared; the numbers are
    /// inline, or those past [`INLINE_ARGS`] bytes in a spill node of its own).
    pub fn own_bytes(&self) -> usize {
        match &*self.template {
            Template::Text(_) | Template::Static(_) => 0,
            Template::Spill(_, rest) => 16 + core::mem::size_of::<Template>() + rest.len(),
        }
    }
    /// Where the shared template lives (equal for steps sharing it) and its length:
    /// for counting a trace's templates once.
    pub fn template_ptr(&self) -> usize {
        Arc::as_ptr(text_node(&self.template)) as *const u8 as usize
    }
    pub fn template_len(&self) -> usize {
        self.template.text().len()
    }
    /// Heap bytes of the shared template's text (none for a template written in the
    /// program).
    pub fn template_heap(&self) -> usize {
        match &**text_node(&self.template) {
            Template::Text(t) => t.len(),
            _ => 0,
        }
    }
    /// The template: the sentence with each stored number as `\u{1}`.
    pub fn template(&self) -> &str {
        self.template.text()
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

/// A step's kind (`commute`, `join`, ...): a string written in the program, so it
/// costs no heap (a step log keeps each kind once, as a number in its records).
/// Compares with, prints and serializes as the string.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Kind(&'static str);

impl Kind {
    pub fn new(kind: &'static str) -> Self {
        Kind(kind)
    }
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl core::ops::Deref for Kind {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}
impl From<&'static str> for Kind {
    fn from(s: &'static str) -> Self {
        Kind::new(s)
    }
}
impl From<Kind> for &'static str {
    fn from(k: Kind) -> Self {
        k.as_str()
    }
}
impl From<Kind> for String {
    fn from(k: Kind) -> Self {
        String::from(k.as_str())
    }
}
impl PartialEq<str> for Kind {
    fn eq(&self, o: &str) -> bool {
        self.0 == o
    }
}
impl PartialEq<&str> for Kind {
    fn eq(&self, o: &&str) -> bool {
        self.0 == *o
    }
}
impl PartialEq<Kind> for &str {
    fn eq(&self, o: &Kind) -> bool {
        *self == o.0
    }
}
impl PartialEq<Kind> for str {
    fn eq(&self, o: &Kind) -> bool {
        self == o.0
    }
}
impl PartialEq<String> for Kind {
    fn eq(&self, o: &String) -> bool {
        self.0 == o.as_str()
    }
}
impl PartialEq<Kind> for String {
    fn eq(&self, o: &Kind) -> bool {
        self.as_str() == o.0
    }
}
impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}
impl fmt::Debug for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0, f)
    }
}
impl serde::Serialize for Kind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

/// The templates one recorder has seen: each is stored once, and every step with the
/// same template points at that one copy. Kept sorted by text and searched by halves
/// (a few hundred at most: one small search rather than a tree set's code).
#[derive(Default, Debug)]
pub struct Templates {
    templates: Vec<Arc<Template>>,
}

impl fmt::Debug for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.text(), f)
    }
}

impl Templates {
    /// Points `n` at the shared copy of its template (adding it when new).
    pub fn share(&mut self, n: &mut Narration) {
        if let Some(Template::Spill(text, _)) = Arc::get_mut(&mut n.template) {
            return self.share_text(text);
        }
        if let Template::Spill(text, rest) = &*n.template {
            // A spill node another step also holds: this step gets its own.
            let (mut text, rest) = (text.clone(), rest.clone());
            self.share_text(&mut text);
            n.template = Arc::new(Template::Spill(text, rest));
            return;
        }
        self.share_text(&mut n.template)
    }
    fn share_text(&mut self, t: &mut Arc<Template>) {
        match self.templates.binary_search(t) {
            Ok(at) => *t = self.templates[at].clone(),
            Err(at) => self.templates.insert(at, t.clone()),
        }
    }
}

/// A narration's shared template as a step log's table keeps it (compared by text).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct SharedTemplate(Arc<Template>);

impl Narration {
    /// The shared template, and the numbers' bytes appended to `args`: the inline ones
    /// without their zero padding, then any spilled ones (so more than
    /// [`INLINE_ARGS`] bytes means a spill).
    pub(super) fn parts(&self, args: &mut Vec<u8>) -> SharedTemplate {
        let rest = self.template.spilled();
        let used = if rest.is_empty() {
            self.args.iter().rposition(|&b| b != 0).map_or(0, |k| k + 1)
        } else {
            INLINE_ARGS
        };
        args.extend_from_slice(&self.args[..used]);
        args.extend_from_slice(rest);
        SharedTemplate(text_node(&self.template).clone())
    }
    /// The narration [`Narration::parts`] took apart.
    pub(super) fn from_parts(t: &SharedTemplate, args: &[u8]) -> Self {
        let mut inline = [0u8; INLINE_ARGS];
        let here = args.len().min(INLINE_ARGS);
        inline[..here].copy_from_slice(&args[..here]);
        let mut template = t.0.clone();
        if args.len() > INLINE_ARGS {
            template = Arc::new(Template::Spill(template, args[INLINE_ARGS..].into()));
        }
        Narration {
            template,
            args: inline,
        }
    }
}

/// The template of `text` and its numbers as LEB128 bytes.
fn split(text: &str) -> (String, Vec<u8>) {
    let mut template = String::with_capacity(text.len());
    let mut args = Vec::new();
    let mut rest = text;
    // Each round copies the text up to the next digit or mark whole, then takes that
    // digit run or mark (both ASCII, so every cut is on a char boundary).
    let stop = |b: &u8| b.is_ascii_digit() || *b == MARK as u8;
    while let Some(at) = rest.bytes().position(|b| stop(&b)) {
        template.push_str(&rest[..at]);
        rest = &rest[at..];
        if rest.starts_with(MARK) {
            template.push(MARK);
            varint::put_u32(&mut args, LITERAL_MARK);
            rest = &rest[1..];
            continue;
        }
        let end = rest
            .bytes()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len());
        let digits = &rest[..end];
        rest = &rest[end..];
        let round_trips = digits.len() <= 9 && (digits == "0" || !digits.starts_with('0'));
        match digits.parse::<u32>() {
            Ok(v) if round_trips => {
                template.push(MARK);
                varint::put_u32(&mut args, v);
            }
            _ => template.push_str(digits),
        }
    }
    template.push_str(rest);
    (template, args)
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

    /// Templates written in the program give the same sentences as formatting them.
    #[test]
    fn program_templates_read_back_as_formatted() {
        let n = Narration::numbered("Joined %\u{1} into %\u{1}: bit 36 set.", &[12, 70000]);
        assert_eq!(n.text(), "Joined %12 into %70000: bit 36 set.");
        assert_eq!(n.own_bytes() + n.template_heap(), 0);
        let long = Narration::numbered("\u{1} \u{1} \u{1}", &[300000, 400000, 500000]);
        assert_eq!(long.text(), "300000 400000 500000");
        let odd = Narration::numbered("a \u{1} b \u{1}", &[u32::MAX.into(), 1 << 40]);
        assert_eq!(odd.text(), "a 4294967295 b 1099511627776");
        assert_eq!(
            Narration::fixed("No numbers 0 here.").text(),
            "No numbers 0 here."
        );
        assert_eq!(Narration::fixed("a \u{1} mark").text(), "a \u{1} mark");
        let mut t = Templates::default();
        let (mut a, mut b) = (Narration::fixed("Same."), Narration::fixed("Same."));
        t.share(&mut a);
        t.share(&mut b);
        assert!(Arc::ptr_eq(&a.template, &b.template));
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
        assert_eq!(core::mem::size_of::<Narration>(), 16);
    }

    /// Numbers needing more than eight LEB128 bytes: the rest goes to a spill node,
    /// the text is still shared, and the sentence is printed byte for byte.
    #[test]
    fn a_sentence_with_many_numbers_spills_the_rest() {
        let s = "%100000 = COPY %200000 at 300000, before 400000";
        let mut t = Templates::default();
        let (mut a, mut b) = (
            Narration::new(s),
            Narration::new("%1 = COPY %2 at 3, before 4"),
        );
        assert!(matches!(&*a.template, Template::Spill(_, rest) if rest.len() == 4));
        assert_eq!(a.text(), s);
        t.share(&mut a);
        t.share(&mut b);
        assert_eq!(a.template_ptr(), b.template_ptr());
        assert_eq!((a.text().as_str(), a.template()), (s, b.template()));
        assert_eq!(b.text(), "%1 = COPY %2 at 3, before 4");
        let short = Narration::new("%100000 = COPY %2");
        assert!(matches!(&*short.template, Template::Text(_)));
        assert_eq!(short.text(), "%100000 = COPY %2");
        let k = Kind::new("join");
        assert_eq!(k, "join");
        assert_eq!("join", k);
        assert_eq!(core::mem::size_of::<Kind>(), 16);
    }
}
