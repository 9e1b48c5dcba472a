//! ORI → PTX text with annotations in comments.
//!
//! Each instruction prints as the PTX it stands for (modifiers turned back into
//! opcodes: an `add.f32` with a negated second source prints as `sub.f32`, a move
//! with a neg/abs modifier as `neg` / `abs`), followed by a comment with its class
//! number and name, the opcode word when predicated, and the operand annotations
//! that are not zero. Block anchors print as the block's label (or a comment) with
//! `// class 97 ANCHOR bb N`. A comment block after the `.reg` lines lists the
//! register table (constraint words, def anchors). The text parses and assembles as
//! plain PTX: every annotation is a comment.
//!
//! [`print_plain`] is `ptx-out`'s form: no annotations and no register table, and every
//! instruction, label and declaration that came from source text on its source line
//! (`Inst::line`, [`crate::ptx::ast::Lines`]) when the text before it leaves room, so
//! unchanged PTX keeps the original's line layout.

use super::{
    AddrBase, BlockId, Function, Inst, InstId, Item, Module, OpKind, Operand, Origin, RegId,
};
use crate::entity::EntityRef;
use crate::ptx::ast::{self as ptx, Stmt};
use crate::ptx::print::LineCounter;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;

/// Labels for blocks that had none but are branched to (cannot happen for lowered
/// PTX; kept so that any ORI prints).
fn block_label(f: &Function, b: BlockId, k: usize) -> String {
    match f.blocks.get(b).and_then(|x| x.label.clone()) {
        Some(l) => l,
        None => format!("$L__ORI{k}_{}", b.index()),
    }
}

fn needs_label(f: &Function) -> Vec<bool> {
    let mut v: Vec<bool> = f.blocks.values().map(|b| b.label.is_some()).collect();
    for i in f.insts.values() {
        for o in &i.operands {
            if let OpKind::Block(b) = o.kind {
                if i.class != super::Class::Anchor {
                    if let Some(x) = v.get_mut(b.index()) {
                        *x = true;
                    }
                }
            }
        }
    }
    v
}

fn to_ptx_operand(f: &Function, o: &Operand, k: usize) -> ptx::Operand {
    match &o.kind {
        OpKind::Reg(r) => ptx::Operand::Reg(f.regs[*r].name.clone()),
        OpKind::Imm(v) => ptx::Operand::Imm(*v),
        OpKind::Sym(s) => ptx::Operand::Sym(s.to_string()),
        OpKind::Special(s) => ptx::Operand::Reg(s.to_string()),
        OpKind::Block(b) => ptx::Operand::Sym(block_label(f, *b, k)),
        OpKind::Addr(a) => ptx::Operand::Addr {
            base: match &a.base {
                AddrBase::Reg(r) => ptx::AddrBase::Reg(f.regs[*r].name.clone()),
                AddrBase::Sym(s) => ptx::AddrBase::Sym(s.to_string()),
                AddrBase::None => ptx::AddrBase::None,
            },
            offset: a.offset,
            extra: a.extra.iter().map(|e| to_ptx_operand(f, e, k)).collect(),
        },
        OpKind::Vec(v) => ptx::Operand::Vec(v.iter().map(|e| to_ptx_operand(f, e, k)).collect()),
        OpKind::Paren(v) => {
            ptx::Operand::Paren(v.iter().map(|e| to_ptx_operand(f, e, k)).collect())
        }
        OpKind::Pair(a, b) => ptx::Operand::Pair(
            alloc::boxed::Box::new(to_ptx_operand(f, a, k)),
            alloc::boxed::Box::new(to_ptx_operand(f, b, k)),
        ),
        OpKind::Not(a) => ptx::Operand::Not(alloc::boxed::Box::new(to_ptx_operand(f, a, k))),
    }
}

/// The PTX instruction an ORI instruction stands for.
pub fn to_ptx(f: &Function, i: &Inst, k: usize) -> ptx::Inst {
    let mut opcode = String::from(i.opcode.as_str());
    let base = opcode.split('.').next().unwrap_or("").to_string();
    let srcs = i.srcs();
    if base == "add" && srcs.len() == 2 && srcs[1].neg {
        opcode = format!("sub{}", &opcode[3..]);
    } else if base == "mov" && srcs.len() == 1 && (srcs[0].neg || srcs[0].abs) {
        let w = if srcs[0].neg { "neg" } else { "abs" };
        opcode = format!("{w}{}", &opcode[3..]);
    }
    ptx::Inst {
        guard: i.guard.map(|(r, negated)| ptx::Guard {
            negated,
            reg: f.regs[r].name.clone(),
        }),
        opcode,
        operands: i.operands.iter().map(|o| to_ptx_operand(f, o, k)).collect(),
    }
}

fn annotate(o: &Operand, role: &str, out: &mut String) {
    let _ = write!(out, " {role}:t{}", o.ty);
    let w = o.flag_word();
    if w != 0 {
        let _ = write!(out, "/0x{w:x}");
    }
    if o.imm_constraint != 0 {
        let _ = write!(out, "/c{}", o.imm_constraint);
    }
}

/// The annotation comment of an instruction (without the `//`).
pub fn annotation(i: &Inst) -> String {
    let mut s = format!("class {} {}", i.class.number(), i.class.name());
    if i.guard.is_some() {
        let _ = write!(s, " word 0x{:04x}", i.opcode_word());
    }
    if i.class == super::Class::Anchor {
        if let Some(OpKind::Block(b)) = i.operands.first().map(|o| &o.kind) {
            let _ = write!(s, " bb {}", b.index());
        }
        return s;
    }
    for o in i.dsts() {
        annotate(o, "d", &mut s);
    }
    for o in i.srcs() {
        annotate(o, "s", &mut s);
    }
    s
}

/// One instruction as a line: PTX text, a tab, then the annotation comment.
pub fn inst_line(f: &Function, id: InstId) -> String {
    let i = &f.insts[id];
    let mut s = String::new();
    crate::ptx::print::print_inst(&mut s, &to_ptx(f, i, 0));
    let _ = write!(s, "\t// {}", annotation(i));
    s
}

/// Keeps the printed body's `{ }` scopes and inline-asm markers in step with the
/// instruction being printed: scopes that do not contain it close, the asm marker
/// changes, and the scopes around it that are not open yet open with their
/// declarations.
struct BodyWriter<'f> {
    f: &'f Function,
    /// Open scopes, outermost first (never 0, the body).
    open: Vec<u32>,
    asm: Option<u32>,
}

impl BodyWriter<'_> {
    fn enter(&mut self, out: &mut String, scope: u32, asm: Option<u32>) {
        let mut path = Vec::new();
        let mut s = scope;
        while s != 0 {
            path.push(s);
            s = self.f.scopes.get(s as usize).map_or(0, |x| x.parent);
        }
        path.reverse();
        // Close what is not on the path, or was opened inside another asm block.
        let keep = self
            .open
            .iter()
            .zip(&path)
            .take_while(|(a, b)| {
                a == b
                    && self.f.scopes[**a as usize]
                        .asm
                        .is_none_or(|n| Some(n) == asm)
            })
            .count();
        while self.open.len() > keep {
            self.open.pop();
            out.push_str("\t}\n");
        }
        if self.asm != asm {
            if self.asm.is_some() {
                out.push_str("\t// end inline asm\n");
            }
            if asm.is_some() {
                out.push_str("\t// begin inline asm\n");
            }
            self.asm = asm;
        }
        for &s in &path[keep..] {
            out.push_str("\t{\n");
            crate::ptx::print::print_stmts(out, &self.f.scopes[s as usize].decls);
            self.open.push(s);
        }
    }
}

/// Prints a whole ORI module, annotated.
pub fn print(m: &Module) -> String {
    print_module(m, None)
}

/// Prints a whole ORI module as plain PTX (`ptx-out`): no annotations, no register
/// table, and every element that came from source text on its source line when the
/// text before it leaves room ([`ptx::Lines`]), so PTX that GeneralOptimize left alone
/// comes out with the original's line layout (blank lines where it had comments).
pub fn print_plain(m: &Module) -> String {
    print_module(m, Some(&mut LineCounter::default()))
}

/// `plain` (a line counter) asks for plain PTX placed on source lines.
fn print_module(m: &Module, mut plain: Option<&mut LineCounter>) -> String {
    let mut out = String::new();
    let pad = |out: &mut String, plain: &mut Option<&mut LineCounter>, line: u32| {
        plain.as_deref_mut().is_some_and(|lc| lc.pad_to(out, line))
    };
    if let Some(v) = &m.version {
        pad(&mut out, &mut plain, m.header_lines.get(0));
        let _ = writeln!(out, ".version {v}");
    }
    if !m.target.is_empty() {
        pad(&mut out, &mut plain, m.header_lines.get(1));
        let _ = writeln!(out, ".target {}", m.target.join(", "));
    }
    if let Some(a) = m.address_size {
        pad(&mut out, &mut plain, m.header_lines.get(2));
        let _ = writeln!(out, ".address_size {a}");
    }
    let mut k = 0;
    for (n, item) in m.items.iter().enumerate() {
        if !pad(&mut out, &mut plain, m.item_lines.get(n)) {
            out.push('\n');
        }
        match item {
            Item::Var(v) => {
                let mut s = String::new();
                crate::ptx::print::print_stmts(&mut s, &[Stmt::Var(v.clone())]);
                out.push_str(s.trim_start_matches('\t'));
            }
            Item::Pragma(p) => {
                let quoted: Vec<String> = p.iter().map(|s| format!("\"{s}\"")).collect();
                let _ = writeln!(out, ".pragma {};", quoted.join(", "));
            }
            Item::Directive(lines) => {
                crate::ptx::print::print_directive(&mut out, lines, "");
                // A cuobjdump banner runs to the next blank line.
                if plain.is_some() && crate::ptx::print::is_banner(lines) {
                    out.push('\n');
                }
            }
            Item::Func(f) => {
                print_function_mapped(&mut out, f, k, None, plain.as_deref_mut());
                k += 1;
            }
        }
    }
    out
}

/// A function printed alone, with the 0-based line each placed instruction (by storage
/// index) and each block's anchor (by block index) printed on.
#[derive(Clone, Debug, Default)]
pub struct PrintedFunction {
    pub text: String,
    pub inst_line: Vec<Option<u32>>,
    pub block_line: Vec<Option<u32>>,
}

impl PrintedFunction {
    pub fn inst(&self, inst: InstId) -> Option<u32> {
        self.inst_line.get(inst.index()).copied().flatten()
    }
    pub fn block(&self, block: BlockId) -> Option<u32> {
        self.block_line.get(block.index()).copied().flatten()
    }
    /// The register table's comment line for register `reg`.
    pub fn reg(&self, reg: RegId) -> Option<u32> {
        let prefix = format!("// {reg} ");
        self.text
            .lines()
            .position(|l| l.starts_with(&prefix))
            .map(|p| p as u32)
    }
}

/// Prints function `f` (number `k` of its module, which names the labels printing has
/// to make up) as [`print`] prints it inside the module, with its line map.
pub fn print_function_with_lines(f: &Function, k: usize) -> PrintedFunction {
    let mut map = LineMap {
        seen: 0,
        lines: 0,
        inst: alloc::vec![None; f.insts.len()],
        block: alloc::vec![None; f.blocks.len()],
    };
    let mut text = String::new();
    print_function_mapped(&mut text, f, k, Some(&mut map), None);
    PrintedFunction {
        text,
        inst_line: map.inst,
        block_line: map.block,
    }
}

/// Lines printed so far, counted as the text grows.
struct LineMap {
    seen: usize,
    lines: u32,
    inst: Vec<Option<u32>>,
    block: Vec<Option<u32>>,
}

impl LineMap {
    /// The line the next character of `out` goes on.
    fn here(&mut self, out: &str) -> u32 {
        self.lines += out.as_bytes()[self.seen..]
            .iter()
            .filter(|&&b| b == b'\n')
            .count() as u32;
        self.seen = out.len();
        self.lines
    }
}

fn print_function_mapped(
    out: &mut String,
    f: &Function,
    k: usize,
    mut map: Option<&mut LineMap>,
    mut plain: Option<&mut LineCounter>,
) {
    let annotate = plain.is_none();
    let mut pad = |out: &mut String, line: u32| {
        if let Some(lc) = plain.as_deref_mut() {
            lc.pad_to(out, line);
        }
    };
    let sig = ptx::Function {
        linkage: f.linkage.clone(),
        kind: f.kind,
        rets: f.rets.clone(),
        name: f.name.clone(),
        params: f.params.clone(),
        perf: f.perf.clone(),
        body: if f.is_decl { None } else { Some(Vec::new()) },
        lines: Default::default(),
    };
    let mut head = String::new();
    crate::ptx::print::print_function(&mut head, &sig);
    if f.is_decl {
        out.push_str(&head);
        return;
    }
    // Everything up to the body's opening brace.
    let cut = head.rfind("{\n").unwrap_or(head.len());
    out.push_str(&head[..cut]);
    out.push_str("{\n");
    let mut pre = Vec::new();
    for (n, r) in f.reg_decls.iter().enumerate() {
        pre.push((
            f.reg_decl_lines.get(n).copied().unwrap_or(0),
            Stmt::Reg(r.clone()),
        ));
    }
    for (n, v) in f.locals.iter().enumerate() {
        pre.push((
            f.local_lines.get(n).copied().unwrap_or(0),
            Stmt::Var(v.clone()),
        ));
    }
    // Placed on source lines, the declarations go in source order (llc-22 declares
    // its frame before the registers).
    if !annotate && pre.iter().all(|p| p.0 != 0) {
        crate::sort::sort_by_key(&mut pre, |p| u128::from(p.0));
    }
    for (line, st) in &pre {
        pad(out, *line);
        crate::ptx::print::print_stmts(out, core::slice::from_ref(st));
    }
    for (id, r) in f.regs.iter().filter(|_| annotate) {
        let _ = write!(
            out,
            "// R{} {} {} constraint 0x{:x} defs {} uses {}",
            id.index(),
            r.name,
            r.decl,
            r.constraint,
            r.defs,
            r.uses
        );
        if let Some(a) = r.def_anchor {
            let _ = write!(out, " anchor i{}", a.index());
        }
        out.push('\n');
    }
    let labels = needs_label(f);
    let mut w = BodyWriter {
        f,
        open: Vec::new(),
        asm: None,
    };
    for (b, blk) in f.blocks.iter() {
        for &id in &blk.insts {
            let i = &f.insts[id];
            if i.class == super::Class::Anchor {
                if labels[b.index()] {
                    // A label sits in the scope that declares it; inside an asm
                    // scope it belongs to that asm block.
                    let asm = f.scopes.get(i.scope as usize).and_then(|s| s.asm);
                    w.enter(out, i.scope, if i.scope == 0 { None } else { asm });
                    pad(out, i.line);
                    if let Some(m) = map.as_deref_mut() {
                        let l = m.here(out);
                        m.inst[id.index()] = Some(l);
                        m.block[b.index()] = Some(l);
                    }
                    if annotate {
                        let _ = writeln!(out, "{}:\t// {}", block_label(f, b, k), annotation(i));
                    } else {
                        let _ = writeln!(out, "{}:", block_label(f, b, k));
                    }
                } else if annotate {
                    if let Some(m) = map.as_deref_mut() {
                        let l = m.here(out);
                        m.inst[id.index()] = Some(l);
                        m.block[b.index()] = Some(l);
                    }
                    let _ = writeln!(out, "// bb {}: {}", b.index(), annotation(i));
                }
                continue;
            }
            let asm = match i.origin {
                Origin::InlineAsm(n) => Some(n),
                _ => None,
            };
            w.enter(out, i.scope, asm);
            pad(out, i.line);
            if let Some(m) = map.as_deref_mut() {
                m.inst[id.index()] = Some(m.here(out));
            }
            if i.class == super::Class::Directive {
                if let Some(OpKind::Sym(text)) = i.operands.first().map(|o| &o.kind) {
                    for l in text.lines() {
                        let _ = writeln!(out, "\t{l}");
                    }
                }
                continue;
            }
            out.push('\t');
            crate::ptx::print::print_inst(out, &to_ptx(f, i, k));
            if annotate {
                let _ = writeln!(out, "\t// {}", annotation(i));
            } else {
                out.push('\n');
            }
        }
    }
    w.enter(out, 0, None);
    pad(out, f.close_line);
    out.push_str("}\n");
}
