//! A small per-line tokenizer for syntax highlighting MIR, DAG dumps and PTX. It only
//! colours text: every byte of a line lands in exactly one token, in order, so the
//! highlighted line always reads the same as the source. No state crosses lines.
//!
//! One scanner reads all three formats; each format is a [`Grammar`] table:
//!
//! ```text
//!  at each byte: the format's sigils, in order ("//", "%", "$", "<", ...) ──▶ Rule
//!                else a number (not glued to a word) ──▶ Number (PTX: + 0f hex digits)
//!                else a word (letters, _, the format's extra bytes) ──▶ the format's classifier
//!                else one character of Plain
//!  MIR alone reads the line's start first (comments, ---, bb.N headers, YAML keys).
//! ```

use compiler_core::InputFormat;
use std::ops::Range;

/// What a token is, for colouring. [`Tok::class`] gives its CSS class.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    Plain,
    Comment,
    /// YAML keys, `---`/`...`, PTX directives.
    Keyword,
    Opcode,
    /// Virtual registers (`%12`), DAG nodes (`t7`), PTX registers (`%r3`).
    Reg,
    /// Physical registers (`$r1`).
    Phys,
    Number,
    /// Blocks and labels (`bb.1.loop:`, `%bb.2`, `$L__BB0_1`).
    Block,
    /// Operand flags (`killed`, `dead`, ...) and PTX guards.
    Flag,
    /// Register classes, sub-registers, value types, PTX type suffixes.
    Type,
    /// Strings and symbols (`&name`).
    Str,
    /// MIR memory operands (`:: (load ...)`).
    Meta,
}

impl Tok {
    pub const fn class(self) -> &'static str {
        match self {
            Tok::Plain => "tok-plain",
            Tok::Comment => "tok-comment",
            Tok::Keyword => "tok-keyword",
            Tok::Opcode => "tok-opcode",
            Tok::Reg => "tok-reg",
            Tok::Phys => "tok-phys",
            Tok::Number => "tok-number",
            Tok::Block => "tok-block",
            Tok::Flag => "tok-flag",
            Tok::Type => "tok-type",
            Tok::Str => "tok-str",
            Tok::Meta => "tok-meta",
        }
    }
}

/// Which grammar to colour with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Lang {
    Mir,
    Dag,
    Ptx,
}

impl From<InputFormat> for Lang {
    fn from(f: InputFormat) -> Lang {
        match f {
            InputFormat::Mir => Lang::Mir,
            InputFormat::Dag => Lang::Dag,
            InputFormat::Ptx => Lang::Ptx,
        }
    }
}

/// MIR flags: the operand flags and instruction flags of `compiler_core::mir` (so the
/// colours follow the reader), plus the implicit operand markers.
fn is_mir_flag(word: &str) -> bool {
    use compiler_core::mir::instr::MI_FLAG_NAMES;
    use compiler_core::mir::operand::FLAG_KEYWORDS;
    matches!(word, "implicit" | "implicit-def")
        || FLAG_KEYWORDS.iter().any(|(_, name)| *name == word)
        || MI_FLAG_NAMES.contains(&word)
}

/// DAG value types.
const DAG_TYPES: [&str; 14] = [
    "ch", "glue", "i1", "i8", "i16", "i32", "i64", "i128", "f16", "f32", "f64", "v2f16", "v4f32",
    "Untyped",
];

/// One token: its kind and its byte range in the line.
pub type Token = (Tok, Range<usize>);

/// Splits `line` into tokens covering it entirely, in order.
pub fn tokenize(lang: Lang, line: &str) -> Vec<Token> {
    let grammar = match lang {
        Lang::Mir => &MIR,
        Lang::Dag => &DAG,
        Lang::Ptx => &PTX,
    };
    let mut t = Tokens {
        line,
        b: line.as_bytes(),
        out: Vec::new(),
        statement_start: true,
    };
    let from = match grammar.line_start {
        Some(read) => read(&mut t),
        None => Some(0),
    };
    if let Some(from) = from {
        t.scan(grammar, from);
    }
    t.out
}

/// What a sigil starts.
enum Rule {
    /// The rest of the line, as one token (comments; MIR's `:: (load ...)`).
    Rest(Tok),
    /// `/* ... */` (to the end of the line when unclosed).
    BlockComment,
    /// A `"..."` string.
    Str,
    /// The sigil, then word bytes and these extra bytes.
    Word(Tok, &'static [u8]),
    /// The sigil up to and including this closing byte (DAG's `Constant<5>`).
    Until(Tok, u8),
    /// One plain byte ending a statement: the next word is an opcode (PTX).
    StatementEnd,
    /// A form only one format has; returns where it ends.
    Own(fn(&mut Tokens, usize) -> usize),
}

/// How one format reads.
struct Grammar {
    /// Tried in order at each byte: the first whose text starts there applies.
    sigils: &'static [(&'static str, Rule)],
    /// Bytes a word continues with besides letters, digits and `_`.
    word_extra: &'static [u8],
    /// Colours the word `start..end` and returns where reading goes on.
    word: fn(&mut Tokens, usize, usize) -> usize,
    /// PTX: a number runs on over hex digits (`0f3F800000`).
    hex_tail: bool,
    /// Reads the line's start; returns where the scan goes on (None: the line is done).
    line_start: Option<fn(&mut Tokens) -> Option<usize>>,
}

const MIR: Grammar = Grammar {
    sigils: &[
        (";", Rule::Rest(Tok::Comment)),
        ("::", Rule::Rest(Tok::Meta)),
        ("\"", Rule::Str),
        ("%", Rule::Own(|t, i| t.mir_percent(i))),
        ("$", Rule::Word(Tok::Phys, b"")),
        ("&", Rule::Own(|t, i| t.mir_symbol(i))),
    ],
    word_extra: b"-.",
    word: |t, start, end| t.mir_word(start, end),
    hex_tail: false,
    line_start: Some(|t| t.mir_line_start()),
};

const DAG: Grammar = Grammar {
    sigils: &[
        (";", Rule::Rest(Tok::Comment)),
        ("#", Rule::Rest(Tok::Comment)),
        ("\"", Rule::Str),
        ("%", Rule::Word(Tok::Reg, b"")),
        ("$", Rule::Word(Tok::Phys, b"")),
        ("<", Rule::Until(Tok::Number, b'>')),
    ],
    word_extra: b".",
    word: |t, start, end| t.dag_word(start, end),
    hex_tail: false,
    line_start: None,
};

const PTX: Grammar = Grammar {
    sigils: &[
        ("//", Rule::Rest(Tok::Comment)),
        ("/*", Rule::BlockComment),
        ("\"", Rule::Str),
        (".", Rule::Word(Tok::Keyword, b"")),
        ("@", Rule::Word(Tok::Flag, b"%!")),
        ("%", Rule::Word(Tok::Reg, b".")),
        ("$", Rule::Word(Tok::Block, b"$")),
        (";", Rule::StatementEnd),
        ("{", Rule::StatementEnd),
        ("}", Rule::StatementEnd),
    ],
    word_extra: b"",
    word: |t, start, end| t.ptx_word(start, end),
    hex_tail: true,
    line_start: None,
};

struct Tokens<'a> {
    line: &'a str,
    b: &'a [u8],
    out: Vec<Token>,
    /// PTX: the next word starts a statement (its opcode).
    statement_start: bool,
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

    /// Reads from `i` to the end of the line with `g`.
    fn scan(&mut self, g: &Grammar, mut i: usize) {
        while i < self.b.len() {
            let start = i;
            let rest = &self.line[i..];
            let c = self.b[i];
            let sigil = g
                .sigils
                .iter()
                .find(|(s, _)| s.as_bytes()[0] == c && rest.starts_with(s));
            if let Some((sigil, rule)) = sigil {
                i = self.apply(rule, start, sigil.len());
                continue;
            }
            if matches!(c, b'-' | b'0'..=b'9') && !prev_is_word(self.b, i) {
                if let Some(end) = self.number_end(i) {
                    i = if g.hex_tail {
                        self.run(end, |c| c.is_ascii_hexdigit())
                    } else {
                        end
                    };
                    self.push(Tok::Number, start..i);
                    continue;
                }
            }
            if c.is_ascii_alphabetic() || c == b'_' {
                let end = self.run(i, |c| is_word(c) || g.word_extra.contains(&c));
                i = (g.word)(self, start, end);
                continue;
            }
            i += rest.chars().next().map_or(1, char::len_utf8);
            self.push(Tok::Plain, start..i);
        }
    }

    /// Applies `rule` to the sigil (`len` bytes) at `start`; returns where reading goes on.
    fn apply(&mut self, rule: &Rule, start: usize, len: usize) -> usize {
        let end = match *rule {
            Rule::Rest(tok) => {
                self.push(tok, start..self.b.len());
                return self.b.len();
            }
            Rule::BlockComment => {
                let end = self.line[start + 2..]
                    .find("*/")
                    .map_or(self.b.len(), |p| start + 2 + p + 2);
                self.push(Tok::Comment, start..end);
                return end;
            }
            Rule::Str => (Tok::Str, self.string_end(start)),
            Rule::Word(tok, extra) => (
                tok,
                self.run(start + len, |c| is_word(c) || extra.contains(&c)),
            ),
            Rule::Until(tok, close) => {
                let e = self.run(start + len, |c| c != close);
                (tok, (e + 1).min(self.b.len()))
            }
            Rule::StatementEnd => {
                self.statement_start = true;
                (Tok::Plain, start + len)
            }
            Rule::Own(read) => return read(self, start),
        };
        self.push(end.0, start..end.1);
        end.1
    }

    /// MIR's line start: indentation, a whole-line comment, `---`/`...`, a `bb.N:`
    /// header, or a YAML key (only at the start).
    fn mir_line_start(&mut self) -> Option<usize> {
        let b = self.b;
        let lead = self.run(0, |c| c == b' ' || c == b'\t');
        self.push(Tok::Plain, 0..lead);
        let rest = &self.line[lead..];
        if rest.starts_with('#') || rest.starts_with(';') {
            self.push(Tok::Comment, lead..b.len());
            return None;
        }
        if rest == "---" || rest.starts_with("--- ") || rest == "..." {
            self.push(Tok::Keyword, lead..b.len());
            return None;
        }
        // `bb.N[.name][ (attrs)]:` block headers.
        if rest.starts_with("bb.") {
            let end = self.run(lead, |c| c != b':' && c != b' ');
            self.push(Tok::Block, lead..end);
            return Some(end);
        }
        // YAML keys: `name:`, `successors:`, `- { id: 1, class: b32 }`.
        let key_end = self.run(lead, is_word);
        if key_end > lead && b.get(key_end) == Some(&b':') && b[lead].is_ascii_lowercase() {
            self.push(Tok::Keyword, lead..key_end + 1);
            return Some(key_end + 1);
        }
        Some(lead)
    }

    /// MIR's `%`: a block (`%bb.2`), a sub-register index (`%subreg.sub0`), or a virtual
    /// register with its `.sub0` lane and `:class`.
    fn mir_percent(&mut self, start: usize) -> usize {
        let b = self.b;
        let mut i = start + 1;
        if self.line[i..].starts_with("bb.") {
            i = self.run(i + 3, |c| is_word(c) || c == b'.');
            self.push(Tok::Block, start..i);
            return i;
        }
        if self.line[i..].starts_with("subreg.") {
            i = self.run(i + 7, is_word);
            self.push(Tok::Type, start..i);
            return i;
        }
        i = self.run(i, is_word);
        self.push(Tok::Reg, start..i);
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
        i
    }

    /// MIR's `&sym` / `&"quoted sym"`.
    fn mir_symbol(&mut self, start: usize) -> usize {
        let i = start + 1;
        let end = if self.b.get(i) == Some(&b'"') {
            self.string_end(i)
        } else {
            self.run(i, |c| is_word(c) || c == b'.' || c == b'$')
        };
        self.push(Tok::Str, start..end);
        end
    }

    /// MIR words: flags (from the reader's tables), opcodes (capitalised), the rest plain.
    fn mir_word(&mut self, start: usize, end: usize) -> usize {
        let word = &self.line[start..end];
        let tok = if is_mir_flag(word) {
            Tok::Flag
        } else if is_opcode(word) {
            Tok::Opcode
        } else {
            Tok::Plain
        };
        self.push(tok, start..end);
        end
    }

    /// DAG words: nodes (`t7`), value types, blocks, opcodes (capitalised).
    fn dag_word(&mut self, start: usize, end: usize) -> usize {
        let word = &self.line[start..end];
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
        self.push(tok, start..end);
        end
    }

    /// PTX words: a label (`name:`), a statement's opcode with its `.type` suffixes, or
    /// plain (operands such as a kernel's name).
    fn ptx_word(&mut self, start: usize, end: usize) -> usize {
        let b = self.b;
        let mut i = end;
        if b.get(i) == Some(&b':') {
            self.push(Tok::Block, start..i + 1);
            return i + 1;
        }
        if !self.statement_start {
            self.push(Tok::Plain, start..i);
            return i;
        }
        self.push(Tok::Opcode, start..i);
        while b.get(i) == Some(&b'.') {
            let e = self.run(i + 1, is_word);
            self.push(Tok::Type, i..e);
            i = e;
        }
        self.statement_start = false;
        i
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

#[cfg(test)]
mod tests {
    use super::*;

    fn show(lang: Lang, line: &str) -> Vec<(Tok, &str)> {
        let toks = tokenize(lang, line);
        // Tokens cover the line exactly, in order.
        let mut at = 0;
        for (_, r) in &toks {
            assert_eq!(r.start, at, "{line:?}: {toks:?}");
            at = r.end;
        }
        assert_eq!(at, line.len(), "{line:?}");
        toks.into_iter()
            .filter(|(t, _)| *t != Tok::Plain)
            .map(|(t, r)| (t, &line[r]))
            .collect()
    }

    #[test]
    fn mir_instruction() {
        let got = show(
            Lang::Mir,
            "    %5:float32regs, tied-hint early-tied %6:float32regs = EXTRACT_SUBREG %4.sub0, killed %4.sub1 :: (load (s32))",
        );
        assert_eq!(
            got,
            [
                (Tok::Reg, "%5"),
                (Tok::Type, ":float32regs"),
                (Tok::Flag, "tied-hint"),
                (Tok::Flag, "early-tied"),
                (Tok::Reg, "%6"),
                (Tok::Type, ":float32regs"),
                (Tok::Opcode, "EXTRACT_SUBREG"),
                (Tok::Reg, "%4"),
                (Tok::Type, ".sub0"),
                (Tok::Flag, "killed"),
                (Tok::Reg, "%4"),
                (Tok::Type, ".sub1"),
                (Tok::Meta, ":: (load (s32))"),
            ]
        );
    }

    #[test]
    fn mir_flags_come_from_the_reader() {
        assert_eq!(
            show(Lang::Mir, "    tied2 %1:b32 = nuw COPY implicit-def $r1"),
            [
                (Tok::Flag, "tied2"),
                (Tok::Reg, "%1"),
                (Tok::Type, ":b32"),
                (Tok::Flag, "nuw"),
                (Tok::Opcode, "COPY"),
                (Tok::Flag, "implicit-def"),
                (Tok::Phys, "$r1"),
            ]
        );
    }

    #[test]
    fn mir_header_blocks_and_comments() {
        assert_eq!(
            show(Lang::Mir, "name:            k"),
            [(Tok::Keyword, "name:")]
        );
        assert_eq!(show(Lang::Mir, "---"), [(Tok::Keyword, "---")]);
        assert_eq!(
            show(Lang::Mir, "# a comment"),
            [(Tok::Comment, "# a comment")]
        );
        assert_eq!(show(Lang::Mir, "  bb.2.loop:"), [(Tok::Block, "bb.2.loop")]);
        assert_eq!(
            show(Lang::Mir, "    successors: %bb.1(0x80000000), %bb.3"),
            [
                (Tok::Keyword, "successors:"),
                (Tok::Block, "%bb.1"),
                (Tok::Number, "0x80000000"),
                (Tok::Block, "%bb.3"),
            ]
        );
        assert_eq!(
            show(
                Lang::Mir,
                "    %2:int32regs = ADD32rr %1(tied-def 0), killed %2, -5, &sym, $r1"
            ),
            [
                (Tok::Reg, "%2"),
                (Tok::Type, ":int32regs"),
                (Tok::Opcode, "ADD32rr"),
                (Tok::Reg, "%1"),
                (Tok::Number, "0"),
                (Tok::Flag, "killed"),
                (Tok::Reg, "%2"),
                (Tok::Number, "-5"),
                (Tok::Str, "&sym"),
                (Tok::Phys, "$r1"),
            ]
        );
    }

    #[test]
    fn dag_node() {
        assert_eq!(
            show(
                Lang::Dag,
                "  t5: f32,ch = CopyFromReg t0, Register:f32 %3 ; note"
            ),
            [
                (Tok::Reg, "t5"),
                (Tok::Type, "f32"),
                (Tok::Type, "ch"),
                (Tok::Opcode, "CopyFromReg"),
                (Tok::Reg, "t0"),
                (Tok::Opcode, "Register"),
                (Tok::Type, "f32"),
                (Tok::Reg, "%3"),
                (Tok::Comment, "; note"),
            ]
        );
        assert_eq!(
            show(Lang::Dag, "t2: i32 = Constant<5>"),
            [
                (Tok::Reg, "t2"),
                (Tok::Type, "i32"),
                (Tok::Opcode, "Constant"),
                (Tok::Number, "<5>")
            ]
        );
    }

    #[test]
    fn ptx_statements() {
        assert_eq!(
            show(Lang::Ptx, "\t@%p1 add.s32 \t%r3, %r1, 4; // sum"),
            [
                (Tok::Flag, "@%p1"),
                (Tok::Opcode, "add"),
                (Tok::Type, ".s32"),
                (Tok::Reg, "%r3"),
                (Tok::Reg, "%r1"),
                (Tok::Number, "4"),
                (Tok::Comment, "// sum"),
            ]
        );
        assert_eq!(
            show(Lang::Ptx, ".visible .entry k("),
            [
                (Tok::Keyword, ".visible"),
                (Tok::Keyword, ".entry"),
                (Tok::Opcode, "k")
            ]
        );
        assert_eq!(show(Lang::Ptx, "$L__BB0_1:"), [(Tok::Block, "$L__BB0_1")]);
    }

    #[test]
    fn odd_text_never_panics() {
        for line in [
            "\"unterminated",
            "%",
            "$",
            "&\"",
            "-",
            "0x",
            "1e",
            "é%é",
            "/*",
            "::",
        ] {
            for lang in [Lang::Mir, Lang::Dag, Lang::Ptx] {
                show(lang, line);
            }
        }
    }
}
