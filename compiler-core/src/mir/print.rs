//! [`Module`] → canonical MIR text. The header keeps only what the pipeline reads
//! (`name`, the three properties, `registers`, `liveins`) plus the frame sections kept
//! verbatim (`stack`, `constants`, `jumpTable`, ...); the body is printed as
//! `llc-22` prints it, so `print(parse(x))` is a fixpoint and `llc-22` reads it back.

use super::entities::{Block, Inst, VReg};
use super::function::{Function, Module};
use super::instr::{mi_flag_names, InstData};
use super::opcode::Opcode;
use super::operand::{oflag, Operand, OperandKind, Reg, Sigil, SubReg, SubRegKind, FLAG_KEYWORDS};
use crate::entity::{EntityRef, SecondaryMap};
use alloc::string::String;
use core::fmt::Write;

pub fn print_module(m: &Module) -> String {
    let mut out = String::new();
    if let Some(ir) = &m.ir {
        out.push_str("--- |\n");
        for l in ir.lines() {
            if l.is_empty() {
                out.push('\n');
            } else {
                let _ = writeln!(out, "  {l}");
            }
        }
        out.push_str("...\n");
    }
    for f in &m.functions {
        print_function_into(&mut out, f, &mut |_, _| {});
    }
    out
}

/// Prints one function as a MIR document.
pub fn print_function(f: &Function) -> String {
    let mut out = String::new();
    print_function_into(&mut out, f, &mut |_, _| {});
    out
}

/// Prints `f`, calling `after_inst(out, inst)` after each instruction line: the verifier
/// uses it to put its messages right under the instruction they concern.
pub fn print_function_into(
    out: &mut String,
    f: &Function,
    after_inst: &mut dyn FnMut(&mut String, Inst),
) {
    print_function_annotated(out, f, &mut |out, at| {
        if let AnnotateAt::Inst(i) = at {
            after_inst(out, i)
        }
    });
}

/// A place where [`print_function_annotated`] lets its caller add lines.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AnnotateAt {
    /// Right after `body: |`, before the first block.
    Body,
    /// After a block's header lines (`bb.N:`, `successors:`, `liveins:`).
    Block(Block),
    /// After an instruction's line.
    Inst(Inst),
}

/// Prints `f`, calling `annotate(out, at)` at each [`AnnotateAt`] point. Lines the
/// callback adds should be `;` comments so the text still parses.
pub fn print_function_annotated(
    out: &mut String,
    f: &Function,
    annotate: &mut dyn FnMut(&mut String, AnnotateAt),
) {
    let has_def = defined_vregs(f);
    let _ = writeln!(out, "---");
    let _ = writeln!(out, "name:            {}", yaml_scalar(&f.name));
    let _ = writeln!(out, "tracksRegLiveness: {}", f.props.tracks_reg_liveness);
    let _ = writeln!(out, "isSSA:           {}", f.props.is_ssa);
    let _ = writeln!(out, "noPhis:          {}", f.props.no_phis);
    out.push_str("registers:");
    let mut any = false;
    for v in f.vreg_list() {
        if let Some(c) = f.vreg_class(v) {
            if !any {
                out.push('\n');
                any = true;
            }
            out.push_str("  - { id: ");
            push_uint(out, v.index() as u64);
            out.push_str(", class: ");
            push_class(out, f, c);
            out.push_str(" }\n");
        }
    }
    if !any {
        out.push_str("       []\n");
    }
    if f.liveins.is_empty() {
        out.push_str("liveins:         []\n");
    } else {
        out.push_str("liveins:\n");
        for &(r, v) in &f.liveins {
            let mut reg = String::new();
            write_reg(&mut reg, f, r);
            let _ = write!(out, "  - {{ reg: '{}", reg.replace('\'', "''"));
            match v {
                Some(v) => {
                    let _ = writeln!(out, "', virtual-reg: '%{}' }}", v.index());
                }
                None => out.push_str("' }\n"),
            }
        }
    }
    for (key, raw) in &f.frame {
        let gap = if raw.starts_with('\n') { "" } else { " " };
        let _ = writeln!(out, "{key}:{gap}{raw}");
    }
    out.push_str("body:             |\n");
    annotate(out, AnnotateAt::Body);
    for (bi, b) in f.layout.blocks().enumerate() {
        if bi > 0 {
            out.push('\n');
        }
        print_block_header(out, f, b, annotate);
        for i in f.layout.block_insts(b) {
            out.push_str("    ");
            write_inst(out, f, &f.insts[i], &has_def);
            if let Some(members) = f.bundle(i) {
                out.push_str(" {\n");
                for &m in members {
                    out.push_str("      ");
                    write_inst(out, f, &f.insts[m], &has_def);
                    out.push('\n');
                }
                out.push_str("    }");
            }
            out.push('\n');
            annotate(out, AnnotateAt::Inst(i));
        }
    }
    out.push_str("...\n");
}

/// A YAML scalar as the header reader reads it back: plain when it is a simple name,
/// single-quoted (with `''` for `'`) otherwise.
fn yaml_scalar(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$' | b'-'))
        && !s.starts_with('-');
    if plain {
        s.into()
    } else {
        alloc::format!("'{}'", s.replace('\'', "''"))
    }
}

fn print_block_header(
    out: &mut String,
    f: &Function,
    b: Block,
    annotate: &mut dyn FnMut(&mut String, AnnotateAt),
) {
    let d = &f.blocks[b];
    let _ = write!(out, "  bb.{}", d.number);
    if let Some(n) = d.name {
        let _ = write!(out, ".{}", f.sym(n));
    }
    if let Some(a) = d.attrs {
        let _ = write!(out, " ({})", f.sym(a));
    }
    out.push_str(":\n");
    if !d.succs.is_empty() {
        out.push_str("    successors: ");
        for (k, &(s, p)) in d.succs.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "%bb.{}", f.blocks[s].number);
            if let Some(p) = p {
                let _ = write!(out, "(0x{p:08x})");
            }
        }
        out.push('\n');
    }
    if !d.liveins.is_empty() {
        out.push_str("    liveins: ");
        for (k, &r) in d.liveins.iter().enumerate() {
            if k > 0 {
                out.push_str(", ");
            }
            write_reg(out, f, r);
        }
        out.push('\n');
    }
    annotate(out, AnnotateAt::Block(b));
    if !d.succs.is_empty() || !d.liveins.is_empty() {
        out.push('\n');
    }
}

/// Virtual registers with at least one def. MIR prints `:class` on the defs left of `=`
/// and, after the opcode, only on registers that have no def anywhere.
pub fn defined_vregs(f: &Function) -> SecondaryMap<VReg, bool> {
    let mut m = SecondaryMap::new();
    for (_, i) in f.all_insts() {
        for (_, v) in f.insts[i].vreg_defs() {
            m[v] = true;
        }
    }
    m
}

/// Prints one instruction without indentation or newline.
pub fn inst_to_string(f: &Function, inst: &InstData) -> String {
    let mut s = String::new();
    write_inst(&mut s, f, inst, &defined_vregs(f));
    s
}

pub fn write_inst(
    out: &mut String,
    f: &Function,
    inst: &InstData,
    has_def: &SecondaryMap<VReg, bool>,
) {
    let lhs = inst.lhs_defs as usize;
    for (k, op) in inst.operands[..lhs].iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_operand(out, f, op, has_def, true);
    }
    if lhs > 0 {
        out.push_str(" = ");
    }
    for name in mi_flag_names(inst.mi_flags) {
        out.push_str(name);
        out.push(' ');
    }
    match inst.opcode {
        Opcode::Known(op) => out.push_str(op.name()),
        Opcode::Other(s) => out.push_str(f.sym(s)),
    }
    for (k, op) in inst.operands[lhs..].iter().enumerate() {
        out.push_str(if k == 0 { " " } else { ", " });
        write_operand(out, f, op, has_def, false);
    }
    if let Some(t) = inst.trailing {
        out.push_str(if inst.operands.len() > lhs { ", " } else { " " });
        out.push_str(f.sym(t));
    }
    if let Some(m) = inst.mem {
        let _ = write!(out, " :: {}", f.sym(m));
    }
}

fn write_operand(
    out: &mut String,
    f: &Function,
    op: &Operand,
    has_def: &SecondaryMap<VReg, bool>,
    lhs: bool,
) {
    if op.has(oflag::IMPLICIT) {
        out.push_str(if op.has(oflag::DEF) {
            "implicit-def "
        } else {
            "implicit "
        });
    } else if op.has(oflag::DEF) && !lhs {
        out.push_str("def ");
    }
    for &(bit, kw) in FLAG_KEYWORDS.iter() {
        if op.flags & bit != 0 {
            out.push_str(kw);
            out.push(' ');
        }
    }
    match op.kind {
        OperandKind::Reg(r) => {
            write_reg(out, f, r);
            if let Some(s) = op.subreg {
                out.push('.');
                write_subreg(out, f, s);
            }
            if let Reg::Virt(v) = r {
                if lhs || !has_def[v] {
                    if let Some(c) = f.vreg_class(v) {
                        out.push(':');
                        push_class(out, f, c);
                    }
                }
            }
            if let Some(t) = op.llt {
                let _ = write!(out, "({})", f.sym(t));
            }
            if let Some(t) = op.tied_def {
                let _ = write!(out, "(tied-def {t})");
            }
        }
        OperandKind::Imm(v) => {
            if v < 0 {
                out.push('-');
            }
            push_uint(out, v.unsigned_abs());
        }
        OperandKind::FpImm(fp) => {
            let _ = write!(out, "{} {}", f.sym(fp.ty), f.sym(fp.text));
        }
        OperandKind::SubRegIdx(s) => {
            out.push_str("%subreg.");
            write_subreg(out, f, s);
        }
        OperandKind::Block(b) => {
            out.push_str("%bb.");
            push_uint(out, u64::from(f.blocks[b].number));
        }
        OperandKind::Global { sym, sigil, offset } => {
            match sigil {
                Sigil::Amp => {
                    let _ = write!(out, "&{}", f.sym(sym));
                }
                Sigil::AmpQuoted => {
                    let _ = write!(out, "&\"{}\"", f.sym(sym));
                }
                Sigil::At => {
                    let _ = write!(out, "@{}", f.sym(sym));
                }
                Sigil::AtQuoted => {
                    let _ = write!(out, "@\"{}\"", f.sym(sym));
                }
            }
            if offset > 0 {
                let _ = write!(out, " + {offset}");
            } else if offset < 0 {
                let _ = write!(out, " - {}", -offset);
            }
        }
        OperandKind::Stack { fixed, index } => {
            let _ = write!(out, "%{}stack.{index}", if fixed { "fixed-" } else { "" });
        }
        OperandKind::Verbatim(s) => out.push_str(f.sym(s)),
    }
    if let Some(c) = op.comment {
        let _ = write!(out, " /* {} */", f.sym(c));
    }
}

/// Appends `n` in decimal (the printer's hot path; `write!` costs several times more).
pub fn push_uint(out: &mut String, mut n: u64) {
    if n < 10 {
        out.push(char::from(b'0' + n as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// Appends a register class's name (`float32regs`, `b32x4`, or a foreign name).
fn push_class(out: &mut String, f: &Function, c: super::RegClass) {
    match c {
        super::RegClass::Scalar(s) => out.push_str(s.info().name),
        super::RegClass::Tuple { base, lanes } => {
            out.push_str(base.info().name);
            out.push('x');
            push_uint(out, u64::from(lanes));
        }
        super::RegClass::Foreign(s) => out.push_str(f.names.name(s)),
    }
}

/// [`write_reg`] into a new string.
pub fn reg_string(f: &Function, r: Reg) -> String {
    let mut s = String::new();
    write_reg(&mut s, f, r);
    s
}

pub fn write_reg(out: &mut String, f: &Function, r: Reg) {
    match r {
        Reg::Virt(v) => {
            out.push('%');
            push_uint(out, v.index() as u64);
        }
        Reg::Phys(s) => {
            let _ = write!(out, "${}", f.sym(s));
        }
        Reg::NoReg => out.push_str("$noreg"),
    }
}

fn write_subreg(out: &mut String, f: &Function, s: SubReg) {
    match s.kind() {
        SubRegKind::Lane(n) => {
            out.push_str("sub");
            push_uint(out, u64::from(n));
        }
        SubRegKind::Named(n) => out.push_str(f.sym(n)),
    }
}
