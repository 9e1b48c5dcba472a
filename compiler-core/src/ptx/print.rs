//! [`Module`] → PTX text, in the layout `llc` uses: tab-indented statements, a tab
//! between opcode and operands, `.reg` lines first, labels at column 0.
//!
//! Invariant: the text parses back to an equal tree (comments are the only thing
//! the parser may drop, and it keeps full-line comments inside bodies), so
//! `print(parse(text))` is a fixpoint. A tree read from text keeps its line layout:
//! items and body statements go on their source lines ([`Lines`]) when the text
//! printed before them leaves room, blank lines standing in for dropped comments.

use super::ast::*;
use alloc::string::String;
use core::fmt::Write;

/// Counts the lines of a growing text, so that printing can place an element on the
/// line it stood on in the source ([`Lines`]).
#[derive(Default)]
pub struct LineCounter {
    seen: usize,
    /// 1-based line the next character goes on.
    line: u32,
}

impl LineCounter {
    /// Adds blank lines until the next character of `out` goes on `line`; nothing
    /// when `line` is 0 (unknown) or already passed. True when something was known.
    pub fn pad_to(&mut self, out: &mut String, line: u32) -> bool {
        if self.line == 0 {
            self.line = 1;
        }
        self.line += out.as_bytes()[self.seen..]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32;
        self.seen = out.len();
        if line == 0 {
            return false;
        }
        while self.line < line {
            out.push('\n');
            self.line += 1;
        }
        self.seen = out.len();
        true
    }
}

/// Prints a whole module. A module read from text keeps its line layout: every item
/// and body statement goes on its source line when the text printed before it leaves
/// room ([`Lines`]); a module built by a pass gets one blank line between items.
/// ptx-out's module prints as the text it was read back from ([`Source`]).
pub fn print(m: &Module) -> String {
    if let (true, Some(t)) = (m.source.prints_as_read, &m.source.text) {
        return String::from(&**t);
    }
    let mut out = String::new();
    let mut lc = LineCounter::default();
    if let Some(v) = &m.version {
        lc.pad_to(&mut out, m.header_lines.get(0));
        let _ = writeln!(out, ".version {v}");
    }
    if !m.target.is_empty() {
        lc.pad_to(&mut out, m.header_lines.get(1));
        out.push_str(".target ");
        out.push_str(&m.target.join(", "));
        out.push('\n');
    }
    if let Some(a) = m.address_size {
        lc.pad_to(&mut out, m.header_lines.get(2));
        let _ = writeln!(out, ".address_size {a}");
    }
    for (k, item) in m.items.iter().enumerate() {
        if !lc.pad_to(&mut out, m.item_lines.get(k)) {
            out.push('\n');
        }
        match item {
            Item::Func(f) => print_function_placed(&mut out, f, &mut lc),
            Item::Var(v) => {
                print_var(&mut out, v);
                out.push('\n');
            }
            Item::Pragma(p) => {
                print_pragma(&mut out, p);
                out.push('\n');
            }
            Item::Directive(lines) => {
                print_directive(&mut out, lines, "");
                // A cuobjdump banner runs to the next blank line.
                if !m.item_lines.is_empty() && is_banner(lines) {
                    out.push('\n');
                }
            }
            Item::Reg(r) => {
                print_reg_decl(&mut out, r);
                out.push('\n');
            }
        }
    }
    out
}

fn print_pragma(out: &mut String, p: &[String]) {
    out.push_str(".pragma ");
    for (i, s) in p.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "\"{s}\"");
    }
    out.push(';');
}

fn print_param(out: &mut String, p: &Param) {
    out.push_str(&p.words.join(" "));
    out.push(' ');
    out.push_str(&p.name);
    if let Some(n) = p.array {
        let _ = write!(out, "[{n}]");
    }
}

/// Prints one function (signature and body).
pub fn print_function(out: &mut String, f: &Function) {
    print_function_placed(out, f, &mut LineCounter::default())
}

/// [`print_function`], each body statement on its source line when there is room
/// (`lc` counts the lines of `out`).
pub fn print_function_placed(out: &mut String, f: &Function, lc: &mut LineCounter) {
    for l in &f.linkage {
        out.push_str(l);
        out.push(' ');
    }
    out.push_str(match f.kind {
        FuncKind::Entry => ".entry ",
        FuncKind::Func => ".func ",
    });
    if !f.rets.is_empty() {
        out.push('(');
        for (i, p) in f.rets.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            print_param(out, p);
        }
        out.push_str(") ");
    }
    out.push_str(&f.name);
    if let Some(params) = &f.params {
        if params.is_empty() {
            out.push_str("()");
        } else {
            out.push_str("(\n");
            for (i, p) in params.iter().enumerate() {
                out.push('\t');
                print_param(out, p);
                if i + 1 < params.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push(')');
        }
    }
    out.push('\n');
    for (d, nums) in &f.perf {
        out.push_str(d);
        for (i, n) in nums.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            let _ = write!(out, "{n}");
        }
        out.push('\n');
    }
    match &f.body {
        None => out.push_str(";\n"),
        Some(body) => {
            out.push_str("{\n");
            for (k, st) in body.iter().enumerate() {
                if !f.lines.is_empty() {
                    lc.pad_to(out, f.lines.get(k));
                }
                print_stmt(out, st);
            }
            if !f.lines.is_empty() {
                lc.pad_to(out, f.lines.get(body.len()));
            }
            out.push_str("}\n");
        }
    }
}

fn print_var(out: &mut String, v: &VarDecl) {
    out.push_str(&v.words.join(" "));
    out.push(' ');
    out.push_str(&v.name);
    for d in &v.dims {
        match d {
            Some(n) => {
                let _ = write!(out, "[{n}]");
            }
            None => out.push_str("[]"),
        }
    }
    if let Some(init) = &v.init {
        out.push_str(" = ");
        let mut prev_open = true;
        for t in init {
            let join = !(prev_open || t == "," || t == "}" || t == "]");
            if join {
                out.push(' ');
            }
            out.push_str(t);
            prev_open = t == "{" || t == "[";
        }
    }
    out.push(';');
}

/// True for `cuobjdump -ptx`'s `Fatbin ptx code:` banner (kept as a directive item),
/// which the reader ends at the first blank line.
pub fn is_banner(lines: &[String]) -> bool {
    lines.first().is_some_and(|l| l.starts_with("Fatbin "))
}

/// Prints a kept directive, one source line per line (`.loc` and `.section`'s data
/// lines end at the line's end, so the breaks matter).
pub fn print_directive(out: &mut String, lines: &[String], indent: &str) {
    for l in lines {
        out.push_str(indent);
        out.push_str(l);
        out.push('\n');
    }
}

/// `.reg .b32 \t%r<4>, %x;` (no indent, no line break).
pub fn print_reg_decl(out: &mut String, r: &RegDecl) {
    out.push_str(".reg ");
    out.push_str(&r.words.join(" "));
    out.push_str(" \t");
    for (i, (n, c)) in r.names.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(n);
        if let Some(c) = c {
            let _ = write!(out, "<{c}>");
        }
    }
    out.push(';');
}

/// Prints body statements, one per line.
pub fn print_stmts(out: &mut String, stmts: &[Stmt]) {
    for s in stmts {
        print_stmt(out, s);
    }
}

fn print_stmt(out: &mut String, s: &Stmt) {
    match s {
        Stmt::Reg(r) => {
            out.push('\t');
            print_reg_decl(out, r);
            out.push('\n');
        }
        Stmt::Var(v) => {
            out.push('\t');
            print_var(out, v);
            out.push('\n');
        }
        Stmt::Label(l) => {
            out.push_str(l);
            out.push_str(":\n");
        }
        Stmt::Inst(i) => {
            out.push('\t');
            print_inst(out, i);
            out.push('\n');
        }
        Stmt::Pragma(p) => {
            out.push('\t');
            print_pragma(out, p);
            out.push('\n');
        }
        Stmt::InlineAsm(v) => {
            out.push_str("\t// begin inline asm\n");
            print_stmts(out, v);
            out.push_str("\t// end inline asm\n");
        }
        Stmt::Scope(v) => {
            out.push_str("\t{\n");
            print_stmts(out, v);
            out.push_str("\t}\n");
        }
        Stmt::Directive(lines) => print_directive(out, lines, "\t"),
        Stmt::Comment(c) => {
            if c.is_empty() {
                out.push_str("//\n");
            } else {
                out.push_str("// ");
                out.push_str(c);
                out.push('\n');
            }
        }
    }
}

/// One instruction without indentation or newline: `@%p1 bra \t$L__BB0_2;`.
pub fn print_inst(out: &mut String, i: &Inst) {
    if let Some(g) = &i.guard {
        out.push('@');
        if g.negated {
            out.push('!');
        }
        out.push_str(&g.reg);
        out.push(' ');
    }
    out.push_str(&i.opcode);
    if !i.operands.is_empty() {
        out.push_str(" \t");
        for (k, o) in i.operands.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            print_operand(out, o);
        }
    }
    out.push(';');
}

/// An instruction as one line of text.
pub fn inst_to_string(i: &Inst) -> String {
    let mut s = String::new();
    print_inst(&mut s, i);
    s
}

pub fn print_imm(out: &mut String, v: Imm) {
    let _ = match v {
        Imm::Int(v) => write!(out, "{v}"),
        Imm::Hex(v) => write!(out, "0x{v:X}"),
        Imm::F32(v) => write!(out, "0f{v:08X}"),
        Imm::F64(v) => write!(out, "0d{v:016X}"),
    };
}

pub fn print_operand(out: &mut String, o: &Operand) {
    match o {
        Operand::Reg(r) | Operand::Sym(r) => out.push_str(r),
        Operand::SymOffset(s, off) => {
            let _ = write!(out, "{s}{off:+}");
        }
        Operand::Imm(v) => print_imm(out, *v),
        Operand::Addr {
            base,
            offset,
            extra,
        } => {
            out.push('[');
            match base {
                AddrBase::Reg(s) | AddrBase::Sym(s) => {
                    out.push_str(s);
                    if *offset != 0 {
                        let _ = write!(out, "+{offset}");
                    }
                }
                AddrBase::None => {
                    let _ = write!(out, "{offset}");
                }
            }
            for e in extra {
                out.push_str(", ");
                print_operand(out, e);
            }
            out.push(']');
        }
        Operand::Vec(v) | Operand::Paren(v) => {
            let (open, close) = if matches!(o, Operand::Vec(_)) {
                ('{', '}')
            } else {
                ('(', ')')
            };
            out.push(open);
            for (k, e) in v.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                print_operand(out, e);
            }
            out.push(close);
        }
        Operand::Pair(a, b) => {
            print_operand(out, a);
            out.push('|');
            print_operand(out, b);
        }
        Operand::Not(a) => {
            out.push('!');
            print_operand(out, a);
        }
    }
}
