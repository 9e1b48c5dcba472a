//! PTX text → [`Module`].
//!
//! ```text
//!  text ──lex──▶ tokens (line:col each; comments dropped except full-line ones inside
//!                bodies and the `// begin inline asm` / `// end inline asm` markers)
//!       ──parse──▶ Module { header, items: [Func | Var | Pragma] }
//! ```
//!
//! The grammar is what nvcc (old and new), llc, Triton and rustc print plus what our
//! printer writes. Debug and linkage directives we do not interpret (`.loc`, `.file`,
//! `.section` blocks, `.callprototype` / `.branchtargets` statements) are kept as
//! written, line by line (`.loc` and a section's data lines end at the line's end);
//! an unknown directive is an error naming it. Every error carries line:column and says what was expected; nesting depth
//! and input size are bounded, so no input, however bad, panics or recurses without
//! limit.

use super::ast::*;
use crate::error::SourceError;
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// Inputs larger than this are refused.
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// Deepest `{ }` / operand nesting accepted.
pub const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// `.version`, `.reg`, `.b32`, ...
    Dir(String),
    /// Identifiers, opcodes (with dots), registers (`%r1`), labels (`$L__BB0_1`).
    Ident(String),
    Int(i64),
    Hex(u64),
    F32(u32),
    F64(u64),
    /// A decimal with a point (`7.8`, `1.5`), kept as text.
    Dec(String),
    Str(String),
    Punct(char),
    /// A full-line comment (only kept when nothing else is on its line).
    LineComment(String),
    AsmBegin,
    AsmEnd,
    /// `cuobjdump -ptx`'s banner: a `Fatbin ptx code:` line and the non-blank lines
    /// after it (`arch = sm_52`, `compile_size = 64bit`, ...), each as written.
    Banner(Vec<String>),
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: u32,
    col: u32,
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Dir(d) => format!("`{d}`"),
        Tok::Ident(s) => format!("`{s}`"),
        Tok::Int(v) => format!("`{v}`"),
        Tok::Hex(v) => format!("`0x{v:x}`"),
        Tok::F32(v) => format!("`0f{v:08X}`"),
        Tok::F64(v) => format!("`0d{v:016X}`"),
        Tok::Dec(s) => format!("`{s}`"),
        Tok::Str(s) => format!("string \"{s}\""),
        Tok::Punct(c) => format!("`{c}`"),
        Tok::LineComment(_) => "a comment".into(),
        Tok::AsmBegin => "`// begin inline asm`".into(),
        Tok::AsmEnd => "`// end inline asm`".into(),
        Tok::Banner(_) => "a `cuobjdump` banner".into(),
        Tok::Eof => "end of input".into(),
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '%'
}
fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.'
}

/// Where a token starts: line and column.
type At = (u32, u32);

fn lex(text: &str) -> Result<Vec<Token>, SourceError> {
    let mut lx = Lexer {
        text,
        b: text.as_bytes(),
        i: 0,
        line: 1,
        col: 1,
        line_has_token: false,
        out: Vec::new(),
    };
    while lx.i < lx.b.len() {
        let c = lx.ch(lx.i);
        if c.is_whitespace() {
            lx.adv();
            continue;
        }
        let at = (lx.line, lx.col);
        if c == '\0' {
            // Trailing NUL bytes (a C string dumped with its terminator, as the
            // OpenCL driver writes PTX) end the input; a NUL anywhere else is refused.
            if lx.b[lx.i..]
                .iter()
                .all(|&x| x == 0 || x.is_ascii_whitespace())
            {
                break;
            }
            let what = "a NUL byte inside the text (only trailing NUL bytes are accepted)";
            return Err(SourceError::new(at.0, at.1, what));
        }
        if !lx.line_has_token && is_banner_start(&text[lx.i..]) {
            lx.banner(at);
        } else if c == '/' && lx.byte(lx.i + 1) == Some(b'/') {
            lx.line_comment(at);
        } else if c == '/' && lx.byte(lx.i + 1) == Some(b'*') {
            lx.block_comment(at)?;
        } else {
            lx.line_has_token = true;
            let tok = lx.token(c, at)?;
            lx.push(tok, at);
        }
    }
    lx.push(Tok::Eof, (lx.line, lx.col));
    Ok(lx.out)
}

/// The lexer's state. The text is walked as bytes: every token boundary is ASCII, and
/// a non-ASCII character (only legal in comments and strings) is decoded where it
/// stands, so `i` stays on a character boundary and `col` counts characters.
struct Lexer<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    line: u32,
    col: u32,
    /// Whether a token other than a comment started on the current line already.
    line_has_token: bool,
    out: Vec<Token>,
}

impl Lexer<'_> {
    /// The character at byte `i` (a character boundary).
    fn ch(&self, i: usize) -> char {
        if self.b[i] < 0x80 {
            self.b[i] as char
        } else {
            self.text[i..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER)
        }
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.b.get(i).copied()
    }

    /// Past one character, counting lines and columns.
    fn adv(&mut self) {
        let i = self.i;
        if self.b[i] == b'\n' {
            self.line += 1;
            self.col = 1;
            self.line_has_token = false;
        } else {
            self.col += 1;
        }
        self.i += if self.b[i] < 0x80 {
            1
        } else {
            self.ch(i).len_utf8()
        };
    }

    /// Past every character up to byte `j`.
    fn adv_to(&mut self, j: usize) {
        while self.i < j {
            self.adv();
        }
    }

    /// Past the bytes `keep` accepts.
    fn adv_while(&mut self, keep: impl Fn(u8) -> bool) {
        while self.i < self.b.len() && keep(self.b[self.i]) {
            self.adv();
        }
    }

    /// The byte offset of the line break at or after `from` (or the end).
    fn line_end(&self, from: usize) -> usize {
        self.b[from..]
            .iter()
            .position(|&x| x == b'\n')
            .map_or(self.b.len(), |k| from + k)
    }

    fn push(&mut self, tok: Tok, (line, col): At) {
        self.out.push(Token { tok, line, col });
    }

    /// A `cuobjdump` banner: its first line and the non-blank lines after it.
    fn banner(&mut self, at: At) {
        let blank = |x: u8| x == b' ' || x == b'\t' || x == b'\r';
        let mut lines = Vec::new();
        loop {
            let j = self.line_end(self.i);
            let l = self.text[self.i..j].trim();
            if l.is_empty() {
                break;
            }
            lines.push(l.to_string());
            self.adv_to(j);
            // Past the line break and the next line's indentation.
            self.adv_while(blank);
            if self.byte(self.i) == Some(b'\n') {
                self.adv();
            }
            self.adv_while(blank);
        }
        self.push(Tok::Banner(lines), at);
    }

    /// `// ...`: inline-asm markers, a comment alone on its line, or nothing.
    fn line_comment(&mut self, at: At) {
        let start = self.i + 2;
        let j = self.line_end(start);
        let t = self.text[start..j].trim();
        let tok = if t == "begin inline asm" {
            Some(Tok::AsmBegin)
        } else if t == "end inline asm" {
            Some(Tok::AsmEnd)
        } else if !self.line_has_token {
            Some(Tok::LineComment(t.to_string()))
        } else {
            None
        };
        if let Some(tok) = tok {
            self.push(tok, at);
        }
        self.adv_to(j);
    }

    /// `/* ... */`, dropped.
    fn block_comment(&mut self, at: At) -> Result<(), SourceError> {
        self.adv();
        self.adv();
        loop {
            if self.i >= self.b.len() {
                return Err(SourceError::new(at.0, at.1, "unterminated `/*` comment"));
            }
            if self.b[self.i] == b'*' && self.byte(self.i + 1) == Some(b'/') {
                self.adv();
                self.adv();
                return Ok(());
            }
            self.adv();
        }
    }

    /// The token starting with `c` (not a comment, banner or blank).
    fn token(&mut self, c: char, at: At) -> Result<Tok, SourceError> {
        if c == '"' {
            return self.string(at);
        }
        if c == '.'
            && self
                .byte(self.i + 1)
                .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        {
            let start = self.i;
            self.adv();
            self.adv_while(|x| x.is_ascii_alphanumeric() || x == b'_');
            return Ok(Tok::Dir(self.text[start..self.i].to_string()));
        }
        if c.is_ascii_digit() {
            let start = self.i;
            self.adv_while(|x| x.is_ascii_alphanumeric() || x == b'.' || x == b'_');
            let s = &self.text[start..self.i];
            return lex_number(s).ok_or_else(|| {
                SourceError::new(at.0, at.1, format!("`{s}` is not a number PTX accepts"))
            });
        }
        if is_ident_start(c) {
            return self.ident(at);
        }
        if ",;:{}[]()<>+-|!@=".contains(c) {
            self.adv();
            return Ok(Tok::Punct(c));
        }
        Err(SourceError::new(
            at.0,
            at.1,
            format!("unexpected character {c:?}"),
        ))
    }

    /// `"..."`: the text between the quotes, escapes kept as written.
    fn string(&mut self, at: At) -> Result<Tok, SourceError> {
        self.adv();
        let mut s = String::new();
        loop {
            let i = self.i;
            if i >= self.b.len() || self.b[i] == b'\n' {
                return Err(SourceError::new(at.0, at.1, "unterminated string"));
            }
            if self.b[i] == b'"' {
                self.adv();
                return Ok(Tok::Str(s));
            }
            if self.b[i] == b'\\' && i + 1 < self.b.len() {
                s.push('\\');
                self.adv();
            }
            s.push(self.ch(self.i));
            self.adv();
        }
    }

    /// An identifier, opcode or register; `::` joins parts inside an opcode.
    fn ident(&mut self, at: At) -> Result<Tok, SourceError> {
        let start = self.i;
        self.adv();
        let ident = |lx: &Self, k: usize| lx.byte(k).is_some_and(|x| is_ident_char(x as char));
        loop {
            let i = self.i;
            if ident(self, i) {
                self.adv();
            } else if self.byte(i) == Some(b':')
                && self.byte(i + 1) == Some(b':')
                && ident(self, i + 2)
            {
                // `shared::cta`, `mbarrier::complete_tx::bytes` inside an opcode.
                self.adv();
                self.adv();
            } else {
                break;
            }
        }
        let s = &self.text[start..self.i];
        if s == "%" {
            return Err(SourceError::new(
                at.0,
                at.1,
                "`%` must start a register name",
            ));
        }
        Ok(Tok::Ident(s.to_string()))
    }
}

/// A line `cuobjdump -ptx` prints before each embedded image: `Fatbin ptx code:`,
/// `Fatbin elf code:`.
fn is_banner_start(rest: &str) -> bool {
    let line = rest.split('\n').next().unwrap_or("").trim_end();
    line.starts_with("Fatbin ") && line.ends_with(" code:")
}

fn lex_number(s: &str) -> Option<Tok> {
    let hex = |h: &str| {
        if h.is_empty() || h.len() > 16 || !h.chars().all(|c| c.is_ascii_hexdigit()) {
            None
        } else {
            u64::from_str_radix(h, 16).ok()
        }
    };
    if let Some(h) = s.strip_prefix("0f").or_else(|| s.strip_prefix("0F")) {
        if h.len() != 8 {
            return None;
        }
        return hex(h).map(|v| Tok::F32(v as u32));
    }
    if let Some(h) = s.strip_prefix("0d").or_else(|| s.strip_prefix("0D")) {
        if h.len() != 16 {
            return None;
        }
        return hex(h).map(Tok::F64);
    }
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        let h = h.strip_suffix('U').unwrap_or(h);
        return hex(h).map(Tok::Hex);
    }
    if s.contains('.') {
        let mut parts = s.splitn(2, '.');
        let (a, b) = (parts.next()?, parts.next()?);
        if a.chars().all(|c| c.is_ascii_digit()) && b.chars().all(|c| c.is_ascii_digit()) {
            return Some(Tok::Dec(s.to_string()));
        }
        return None;
    }
    let d = s.strip_suffix('U').unwrap_or(s);
    if d.chars().all(|c| c.is_ascii_digit()) {
        return d.parse::<i64>().ok().map(Tok::Int).or_else(|| {
            // Large unsigned decimals keep their bit pattern.
            d.parse::<u64>().ok().map(Tok::Hex)
        });
    }
    None
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
}

type R<T> = Result<T, SourceError>;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }
    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }
    fn next(&mut self) -> Tok {
        let t = self.toks[self.pos].tok.clone();
        self.advance();
        t
    }
    /// Moves past the current token (the last, `Eof`, stays current).
    fn advance(&mut self) {
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
    }
    fn err_here(&self, expected: &str) -> SourceError {
        let t = &self.toks[self.pos];
        SourceError::new(
            t.line,
            t.col,
            format!("expected {expected}, found {}", describe(&t.tok)),
        )
    }
    fn is_punct(&self, c: char) -> bool {
        *self.peek() == Tok::Punct(c)
    }
    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.advance();
            true
        } else {
            false
        }
    }
    fn expect_punct(&mut self, c: char) -> R<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.err_here(&format!("`{c}`")))
        }
    }
    fn expect_ident(&mut self, what: &str) -> R<String> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.advance();
                Ok(s)
            }
            _ => Err(self.err_here(what)),
        }
    }
    fn expect_u32(&mut self, what: &str) -> R<u32> {
        match *self.peek() {
            Tok::Int(v) if (0..=u32::MAX as i64).contains(&v) => {
                self.advance();
                Ok(v as u32)
            }
            _ => Err(self.err_here(what)),
        }
    }
    fn skip_comments(&mut self) {
        while matches!(self.peek(), Tok::LineComment(_)) {
            self.advance();
        }
    }
    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err_here(&format!("at most {MAX_DEPTH} levels of nesting")));
        }
        Ok(())
    }

    fn module(&mut self) -> R<Module> {
        let mut m = Module::default();
        m.header_lines.0 = vec![0; 3];
        loop {
            self.skip_comments();
            let line = self.toks[self.pos].line;
            let items = m.items.len();
            let header = match self.peek() {
                Tok::Dir(d) if d == ".version" => Some(0),
                Tok::Dir(d) if d == ".target" => Some(1),
                Tok::Dir(d) if d == ".address_size" => Some(2),
                _ => None,
            };
            if let Some(k) = header {
                if m.header_lines.0[k] == 0 {
                    m.header_lines.0[k] = line;
                }
            }
            self.module_item(&mut m)?;
            if matches!(self.peek(), Tok::Eof) && m.items.len() == items && header.is_none() {
                break;
            }
            m.item_lines.0.resize(m.items.len(), line);
        }
        Ok(m)
    }

    /// One module-level directive or item into `m`.
    fn module_item(&mut self, m: &mut Module) -> R<()> {
        {
            match self.peek().clone() {
                Tok::Eof => {}
                Tok::Dir(d) if d == ".version" => {
                    self.advance();
                    m.version = Some(match self.next() {
                        Tok::Dec(s) => s,
                        Tok::Int(v) => v.to_string(),
                        _ => {
                            self.pos -= 1;
                            return Err(self.err_here("a version number such as 7.8"));
                        }
                    });
                }
                Tok::Dir(d) if d == ".target" => {
                    self.advance();
                    m.target.push(self.expect_ident("a target such as sm_90")?);
                    while self.eat_punct(',') {
                        m.target.push(self.expect_ident("a target option")?);
                    }
                }
                Tok::Dir(d) if d == ".address_size" => {
                    self.advance();
                    m.address_size = Some(self.expect_u32("32 or 64")?);
                }
                Tok::Dir(d) if d == ".pragma" => {
                    self.advance();
                    m.items.push(Item::Pragma(self.pragma_rest()?));
                }
                Tok::Dir(d) if d == ".file" || d == ".loc" => {
                    m.items.push(Item::Directive(vec![self.line_rest()]));
                }
                Tok::Dir(d) if d == ".section" => m.items.push(Item::Directive(self.section()?)),
                Tok::Banner(lines) => {
                    self.advance();
                    m.items.push(Item::Directive(lines));
                }
                Tok::Dir(d) if d == ".reg" => {
                    self.advance();
                    m.items.push(Item::Reg(self.reg_decl()?));
                }
                Tok::Dir(d) if !is_item_word(&d) => {
                    return Err(self.err_here(&format!(
                        "a module-level directive (`{d}` is not one this reader knows)"
                    )))
                }
                Tok::Dir(_) => m.items.push(self.item()?),
                Tok::AsmBegin | Tok::AsmEnd => {
                    self.advance();
                }
                _ => return Err(self.err_here("a directive such as `.version` or `.entry`")),
            }
        }
        Ok(())
    }

    /// The current token and every later one on its line, joined by spaces (for
    /// `.loc` and `.file`, which end at the line's end).
    fn line_rest(&mut self) -> String {
        let line = self.toks[self.pos].line;
        let mut words: Vec<String> = Vec::new();
        while self.toks[self.pos].line == line && !matches!(self.peek(), Tok::Eof) {
            let t = self.next();
            if !matches!(t, Tok::LineComment(_) | Tok::AsmBegin | Tok::AsmEnd) {
                words.push(tok_text(&t));
            }
        }
        words.join(" ")
    }

    /// `.section NAME { ... }`: its lines, up to the matching `}`.
    fn section(&mut self) -> R<Vec<String>> {
        let (l0, c0) = (self.toks[self.pos].line, self.toks[self.pos].col);
        let mut lines: Vec<String> = Vec::new();
        let mut cur: Vec<String> = Vec::new();
        let mut line = l0;
        let mut depth = 0u32;
        loop {
            let t = &self.toks[self.pos];
            if t.line != line && !cur.is_empty() {
                lines.push(cur.join(" "));
                cur.clear();
            }
            line = t.line;
            match t.tok.clone() {
                Tok::Eof => {
                    return Err(SourceError::new(
                        l0,
                        c0,
                        "`.section` without the `}` closing its block",
                    ))
                }
                Tok::LineComment(_) | Tok::AsmBegin | Tok::AsmEnd => {}
                tok => {
                    cur.push(tok_text(&tok));
                    if tok == Tok::Punct('{') {
                        depth += 1;
                    } else if tok == Tok::Punct('}') {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            self.advance();
                            lines.push(cur.join(" "));
                            return Ok(lines);
                        }
                    }
                }
            }
            self.advance();
        }
    }

    /// `name: .callprototype ...;` and the like: every token up to the `;`, as one line.
    fn labelled_directive(&mut self) -> R<Vec<String>> {
        let mut words = Vec::new();
        loop {
            match self.next() {
                Tok::Punct(';') => {
                    words.push(";".to_string());
                    return Ok(vec![words.join(" ")]);
                }
                Tok::Eof => {
                    self.pos = self.toks.len() - 1;
                    return Err(self.err_here("`;` ending the directive"));
                }
                Tok::LineComment(_) | Tok::AsmBegin | Tok::AsmEnd => {}
                t => words.push(tok_text(&t)),
            }
        }
    }

    fn pragma_rest(&mut self) -> R<Vec<String>> {
        let mut v = Vec::new();
        loop {
            match self.next() {
                Tok::Str(s) => v.push(s),
                _ => {
                    self.pos -= 1;
                    return Err(self.err_here("a quoted pragma string"));
                }
            }
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(';')?;
        Ok(v)
    }

    /// A module-level item after its leading directive words.
    fn item(&mut self) -> R<Item> {
        let mut linkage = Vec::new();
        while let Tok::Dir(d) = self.peek().clone() {
            match d.as_str() {
                ".visible" | ".extern" | ".weak" | ".common" => {
                    self.advance();
                    linkage.push(d);
                }
                ".entry" | ".func" => {
                    self.advance();
                    let kind = if d == ".entry" {
                        FuncKind::Entry
                    } else {
                        FuncKind::Func
                    };
                    return Ok(Item::Func(self.function(linkage, kind)?));
                }
                _ => {
                    let mut v = self.var_decl()?;
                    linkage.append(&mut v.words);
                    v.words = linkage;
                    return Ok(Item::Var(v));
                }
            }
        }
        Err(self.err_here("`.entry`, `.func` or a variable declaration"))
    }

    fn function(&mut self, linkage: Vec<String>, kind: FuncKind) -> R<Function> {
        let mut rets = Vec::new();
        if kind == FuncKind::Func && self.is_punct('(') {
            rets = self.param_list()?;
        }
        let name = self.expect_ident("a function name")?;
        let params = if self.is_punct('(') {
            Some(self.param_list()?)
        } else {
            None
        };
        let perf = self.perf_directives()?;
        let (body, lines) = self.function_body()?;
        Ok(Function {
            linkage,
            kind,
            rets,
            name,
            params,
            perf,
            body,
            lines,
        })
    }

    /// `.maxntid 256, 1, 1` and the like between the signature and the body.
    fn perf_directives(&mut self) -> R<Vec<(String, Vec<u32>)>> {
        let mut perf = Vec::new();
        loop {
            self.skip_comments();
            match self.peek().clone() {
                Tok::Dir(d) if !ends_signature(&d) => {
                    self.advance();
                    let mut nums = Vec::new();
                    if let Tok::Int(_) = self.peek() {
                        nums.push(self.expect_u32("a number")?);
                        while self.eat_punct(',') {
                            nums.push(self.expect_u32("a number")?);
                        }
                    }
                    perf.push((d, nums));
                }
                _ => return Ok(perf),
            }
        }
    }

    /// The body `{ ... }` with its statements' lines, or None for a declaration.
    fn function_body(&mut self) -> R<(Option<Vec<Stmt>>, Lines)> {
        let mut lines = Lines::default();
        if self.eat_punct(';') {
            return Ok((None, lines));
        }
        self.skip_comments();
        // nvopencc 3.x / 4.0 declare device functions with neither `;` nor a body:
        // the next module item (or the end) ends the declaration.
        if matches!(self.peek(), Tok::Eof | Tok::Banner(_))
            || matches!(self.peek(), Tok::Dir(d) if ends_signature(d))
        {
            return Ok((None, lines));
        }
        if !self.is_punct('{') {
            return Err(self.err_here("`{` or `;` after the function signature"));
        }
        self.advance();
        let body = self.stmts_until_brace_with_lines(&mut lines)?;
        Ok((Some(body), lines))
    }

    fn param_list(&mut self) -> R<Vec<Param>> {
        self.expect_punct('(')?;
        let mut v = Vec::new();
        self.skip_comments();
        if self.eat_punct(')') {
            return Ok(v);
        }
        loop {
            self.skip_comments();
            v.push(self.param()?);
            self.skip_comments();
            if self.eat_punct(')') {
                return Ok(v);
            }
            if !self.eat_punct(',') {
                return Err(self.err_here("`,` or `)` in the parameter list"));
            }
        }
    }

    fn param(&mut self) -> R<Param> {
        let mut words = Vec::new();
        loop {
            match self.peek().clone() {
                Tok::Dir(d) => {
                    self.advance();
                    let align = d == ".align";
                    words.push(d);
                    if align {
                        words.push(self.expect_u32("an alignment")?.to_string());
                    }
                }
                Tok::Ident(_) if !words.is_empty() => break,
                _ => return Err(self.err_here("a parameter such as `.param .u32 name`")),
            }
        }
        let name = self.expect_ident("a parameter name")?;
        let array = if self.eat_punct('[') {
            let n = self.expect_u32("an array size")?;
            self.expect_punct(']')?;
            Some(n)
        } else {
            None
        };
        Ok(Param { words, name, array })
    }

    /// `.shared .align 4 .b8 name[1024] = {...};` — the state space is next.
    fn var_decl(&mut self) -> R<VarDecl> {
        let mut words = Vec::new();
        while let Tok::Dir(d) = self.peek().clone() {
            self.advance();
            if d == ".attribute" && self.is_punct('(') {
                // `.attribute(.managed)`: one word, as written.
                let mut w = d;
                loop {
                    match self.next() {
                        Tok::Punct(')') => break,
                        Tok::Dir(x) => w.push_str(&x),
                        Tok::Punct(c @ ('(' | ',')) => w.push(c),
                        _ => {
                            self.pos -= 1;
                            return Err(self
                                .err_here("an attribute such as `.managed` in `.attribute(...)`"));
                        }
                    }
                }
                w.push(')');
                words.push(w);
                continue;
            }
            let align = d == ".align";
            words.push(d);
            if align {
                words.push(self.expect_u32("an alignment")?.to_string());
            }
        }
        if words.is_empty() {
            return Err(self.err_here("a state space such as `.shared`"));
        }
        let name = self.expect_ident("a variable name")?;
        let mut dims = Vec::new();
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                dims.push(None);
            } else {
                dims.push(Some(self.expect_u32("an array size")?));
                self.expect_punct(']')?;
            }
        }
        let init = if self.eat_punct('=') {
            let mut toks = Vec::new();
            let mut depth = 0i32;
            loop {
                match self.peek().clone() {
                    Tok::Punct(';') if depth == 0 => break,
                    Tok::Eof => return Err(self.err_here("`;` after the initializer")),
                    t => {
                        if t == Tok::Punct('{') {
                            depth += 1;
                        } else if t == Tok::Punct('}') {
                            depth -= 1;
                        }
                        toks.push(tok_text(&t));
                        self.advance();
                    }
                }
            }
            Some(toks)
        } else {
            None
        };
        self.expect_punct(';')?;
        Ok(VarDecl {
            words,
            name,
            dims,
            init,
        })
    }

    /// [`Self::stmts_until_brace`], noting the line each statement starts on.
    fn stmts_until_brace_with_lines(&mut self, lines: &mut Lines) -> R<Vec<Stmt>> {
        self.enter()?;
        let mut v = Vec::new();
        loop {
            match self.peek() {
                Tok::Punct('}') => {
                    // One more line: the closing brace's.
                    lines.0.push(self.toks[self.pos].line);
                    self.advance();
                    break;
                }
                Tok::Eof => return Err(self.err_here("`}` closing the body")),
                _ => {
                    lines.0.push(self.toks[self.pos].line);
                    v.push(self.stmt()?);
                }
            }
        }
        self.depth -= 1;
        Ok(v)
    }

    /// Statements up to and including the closing `}`.
    fn stmts_until_brace(&mut self) -> R<Vec<Stmt>> {
        self.stmts_until_brace_with_lines(&mut Lines::default())
    }

    fn stmt(&mut self) -> R<Stmt> {
        match self.peek().clone() {
            Tok::LineComment(c) => {
                self.advance();
                Ok(Stmt::Comment(c))
            }
            Tok::AsmBegin => {
                self.advance();
                self.enter()?;
                let mut v = Vec::new();
                loop {
                    match self.peek() {
                        Tok::AsmEnd => {
                            self.advance();
                            break;
                        }
                        Tok::Eof | Tok::Punct('}') => {
                            return Err(self.err_here("`// end inline asm`"))
                        }
                        _ => v.push(self.stmt()?),
                    }
                }
                self.depth -= 1;
                Ok(Stmt::InlineAsm(v))
            }
            Tok::AsmEnd => Err(self.err_here("a statement (an `// end inline asm` has no begin)")),
            Tok::Punct('{') => {
                self.advance();
                Ok(Stmt::Scope(self.stmts_until_brace()?))
            }
            Tok::Dir(d) if d == ".reg" => {
                self.advance();
                Ok(Stmt::Reg(self.reg_decl()?))
            }
            Tok::Dir(d) if d == ".pragma" => {
                self.advance();
                Ok(Stmt::Pragma(self.pragma_rest()?))
            }
            Tok::Dir(d) if d == ".loc" || d == ".file" => {
                Ok(Stmt::Directive(vec![self.line_rest()]))
            }
            Tok::Dir(d) if !is_item_word(&d) => Err(self.err_here(&format!(
                "a statement (`{d}` is not a directive this reader knows inside a function body)"
            ))),
            Tok::Dir(_) => Ok(Stmt::Var(self.var_decl()?)),
            Tok::Ident(_)
                if self.peek_at(1) == &Tok::Punct(':')
                    && matches!(self.peek_at(2), Tok::Dir(d) if matches!(d.as_str(), ".callprototype" | ".branchtargets" | ".calltargets")) =>
            {
                Ok(Stmt::Directive(self.labelled_directive()?))
            }
            Tok::Ident(name) if self.peek_at(1) == &Tok::Punct(':') => {
                self.advance();
                self.advance();
                Ok(Stmt::Label(name))
            }
            Tok::Ident(_) | Tok::Punct('@') => Ok(Stmt::Inst(self.inst()?)),
            _ => Err(self.err_here("an instruction, label or declaration")),
        }
    }

    /// After `.reg`: type words, then names with optional `<N>` counts, then `;`.
    fn reg_decl(&mut self) -> R<RegDecl> {
        let mut words = Vec::new();
        while let Tok::Dir(w) = self.peek().clone() {
            self.advance();
            words.push(w);
        }
        if words.is_empty() {
            return Err(self.err_here("a register type such as `.b32`"));
        }
        let mut names = Vec::new();
        loop {
            let n = self.expect_ident("a register name")?;
            let count = if self.eat_punct('<') {
                let c = self.expect_u32("a register count")?;
                self.expect_punct('>')?;
                Some(c)
            } else {
                None
            };
            names.push((n, count));
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(';')?;
        Ok(RegDecl { words, names })
    }

    fn inst(&mut self) -> R<Inst> {
        let guard = if self.eat_punct('@') {
            let negated = self.eat_punct('!');
            let reg = self.expect_ident("a predicate register after `@`")?;
            Some(Guard { negated, reg })
        } else {
            None
        };
        let opcode = self.expect_ident("an opcode")?;
        let mut operands = Vec::new();
        if !self.eat_punct(';') {
            loop {
                operands.push(self.operand()?);
                if self.eat_punct(';') {
                    break;
                }
                if !self.eat_punct(',') {
                    return Err(self.err_here("`,` or `;` after an operand"));
                }
            }
        }
        Ok(Inst {
            guard,
            opcode,
            operands,
        })
    }

    fn operand(&mut self) -> R<Operand> {
        self.enter()?;
        let first = self.operand_atom()?;
        let op = if self.eat_punct('|') {
            let second = self.operand_atom()?;
            Operand::Pair(Box::new(first), Box::new(second))
        } else {
            first
        };
        self.depth -= 1;
        Ok(op)
    }

    /// `{ a, b }` or `( a, b )` from its opening bracket, one nesting level deeper.
    fn nested_list(&mut self, close: char) -> R<Vec<Operand>> {
        self.advance();
        self.enter()?;
        let v = self.list(close)?;
        self.depth -= 1;
        Ok(v)
    }

    fn list(&mut self, close: char) -> R<Vec<Operand>> {
        let mut v = Vec::new();
        if self.eat_punct(close) {
            return Ok(v);
        }
        loop {
            v.push(self.operand()?);
            if self.eat_punct(close) {
                return Ok(v);
            }
            if !self.eat_punct(',') {
                return Err(self.err_here(&format!("`,` or `{close}`")));
            }
        }
    }

    fn operand_atom(&mut self) -> R<Operand> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.advance();
                if s.starts_with('%') {
                    Ok(Operand::Reg(s))
                } else if let (Tok::Punct(sign @ ('+' | '-')), Tok::Int(v)) =
                    (self.peek().clone(), self.peek_at(1).clone())
                {
                    // `$stack+1568`: a symbol's address plus a constant.
                    self.advance();
                    self.advance();
                    Ok(Operand::SymOffset(
                        s,
                        if sign == '-' { v.wrapping_neg() } else { v },
                    ))
                } else {
                    Ok(Operand::Sym(s))
                }
            }
            Tok::Int(_) | Tok::Hex(_) | Tok::F32(_) | Tok::F64(_) | Tok::Dec(_) => {
                Ok(Operand::Imm(self.imm(false)?))
            }
            Tok::Punct('-') => {
                self.advance();
                Ok(Operand::Imm(self.imm(true)?))
            }
            Tok::Punct('!') => {
                self.advance();
                let inner = self.operand_atom()?;
                Ok(Operand::Not(Box::new(inner)))
            }
            Tok::Punct('{') => Ok(Operand::Vec(self.nested_list('}')?)),
            Tok::Punct('(') => Ok(Operand::Paren(self.nested_list(')')?)),
            Tok::Punct('[') => {
                self.advance();
                self.address()
            }
            _ => Err(self.err_here("an operand")),
        }
    }

    fn imm(&mut self, neg: bool) -> R<Imm> {
        let here = self.pos;
        let v = match self.next() {
            Tok::Int(v) => Imm::Int(if neg { v.wrapping_neg() } else { v }),
            Tok::Hex(v) => Imm::Hex(if neg { v.wrapping_neg() } else { v }),
            Tok::F32(v) => Imm::F32(if neg { v ^ 0x8000_0000 } else { v }),
            Tok::F64(v) => Imm::F64(if neg { v ^ (1 << 63) } else { v }),
            Tok::Dec(s) => {
                let f: f64 = s.parse().map_err(|_| {
                    self.pos = here;
                    self.err_here("a decimal number")
                })?;
                Imm::F64((if neg { -f } else { f }).to_bits())
            }
            _ => {
                self.pos = here;
                return Err(self.err_here("a number"));
            }
        };
        Ok(v)
    }

    /// After `[`: base, optional `+off`/`-off`, optional `, extra...`, then `]`.
    fn address(&mut self) -> R<Operand> {
        let mut base = AddrBase::None;
        let mut offset = 0i64;
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.advance();
                base = if s.starts_with('%') {
                    AddrBase::Reg(s)
                } else {
                    AddrBase::Sym(s)
                };
            }
            Tok::Int(v) => {
                self.advance();
                offset = v;
            }
            Tok::Hex(v) => {
                self.advance();
                offset = v as i64;
            }
            _ => return Err(self.err_here("a register, symbol or number inside `[ ]`")),
        }
        if base != AddrBase::None && (self.is_punct('+') || self.is_punct('-')) {
            let mut neg = self.next() == Tok::Punct('-');
            if self.eat_punct('-') {
                neg = !neg;
            }
            let v = match self.next() {
                Tok::Int(v) => v,
                Tok::Hex(v) => v as i64,
                _ => {
                    self.pos -= 1;
                    return Err(self.err_here("an offset"));
                }
            };
            offset = if neg { v.wrapping_neg() } else { v };
        }
        let mut extra = Vec::new();
        while self.eat_punct(',') {
            extra.push(self.operand()?);
        }
        self.expect_punct(']')?;
        Ok(Operand::Addr {
            base,
            offset,
            extra,
        })
    }
}

/// Directives after a function signature that start the next module item instead of
/// being one of its performance directives.
fn ends_signature(d: &str) -> bool {
    is_item_word(d)
        || matches!(
            d,
            ".pragma" | ".file" | ".loc" | ".section" | ".version" | ".target" | ".address_size"
        )
}

/// Directives that may start a variable or function declaration (linkage, state
/// space, or the leading words a declaration may carry).
fn is_item_word(d: &str) -> bool {
    matches!(
        d,
        ".visible"
            | ".extern"
            | ".weak"
            | ".common"
            | ".entry"
            | ".func"
            | ".global"
            | ".shared"
            | ".const"
            | ".local"
            | ".param"
            | ".tex"
            | ".reg"
            | ".align"
            | ".attribute"
            | ".texref"
            | ".samplerref"
            | ".surfref"
    )
}

fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Dir(s) | Tok::Ident(s) | Tok::Dec(s) => s.clone(),
        Tok::Int(v) => v.to_string(),
        Tok::Hex(v) => format!("0x{v:X}"),
        Tok::F32(v) => format!("0f{v:08X}"),
        Tok::F64(v) => format!("0d{v:016X}"),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Punct(c) => c.to_string(),
        _ => String::new(),
    }
}

/// Parses PTX text.
pub fn parse(text: &str) -> Result<Module, SourceError> {
    crate::error::check_input_size(text, MAX_INPUT_BYTES)?;
    let toks = lex(text)?;
    let mut m = Parser {
        toks,
        pos: 0,
        depth: 0,
    }
    .module()?;
    m.source.text = Some(alloc::sync::Arc::from(text));
    Ok(m)
}

/// Parses a sequence of body statements (inline-asm text, test snippets).
pub fn parse_body(text: &str) -> Result<Vec<Stmt>, SourceError> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(SourceError::new(1, 1, "input too large"));
    }
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    let mut v = Vec::new();
    while *p.peek() != Tok::Eof {
        v.push(p.stmt()?);
    }
    Ok(v)
}

/// Parses PTX bytes. PTX is ASCII; text that is not UTF-8 (a Latin-1 file name in a
/// `.file` or `.section` string, as nvcc `-G` writes on Windows) is read as Latin-1,
/// byte for byte, so it prints back as the same characters in UTF-8.
pub fn parse_bytes(bytes: &[u8]) -> Result<Module, SourceError> {
    match core::str::from_utf8(bytes) {
        Ok(text) => parse(text),
        Err(_) => {
            let text: String = bytes.iter().map(|&b| b as char).collect();
            parse(&text)
        }
    }
}
