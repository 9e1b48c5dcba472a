//! [`Dag`] → canonical text: one header per block, then its nodes in schedule order,
//! indented by two spaces; operands and attributes exactly as stored, so
//! `parse(print(dag)) == dag`.

use super::{Attrs, Dag, Operand, RegRef};
use crate::entity::Interner;
use alloc::string::String;
use core::fmt::Write;

pub fn print_dag(dag: &Dag) -> String {
    let mut out = String::new();
    let names = Interner::default();
    for (i, b) in dag.blocks.values().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let _ = write!(
            out,
            "Selected selection DAG: %bb.{} '{}",
            b.number, dag.name
        );
        if let Some(n) = &b.name {
            let _ = write!(out, ":{n}");
        }
        out.push('\'');
        if let Some(a) = &b.attrs {
            let _ = write!(out, " ({a})");
        }
        out.push('\n');
        if let Some(succs) = b.succs.as_ref().filter(|s| !s.is_empty()) {
            out.push_str("  successors:");
            for (k, (s, p)) in succs.iter().enumerate() {
                out.push_str(if k == 0 { " " } else { ", " });
                let _ = write!(out, "%bb.{s}");
                if let Some(p) = p {
                    let _ = write!(out, "(0x{p:08x})");
                }
            }
            out.push('\n');
        }
        super::print_phis(b, &mut out);
        for &n in &b.schedule {
            let d = &dag.nodes[n];
            let _ = write!(out, "  t{}: ", d.number);
            for (k, t) in d.types.iter().enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push_str(t.name());
            }
            let _ = write!(out, " = {}", d.op.name());
            for (k, op) in d.operands.iter().enumerate() {
                out.push_str(if k == 0 { " " } else { ", " });
                write_operand(&mut out, dag, op, &names);
            }
            write_attrs(&mut out, &d.attrs);
            out.push('\n');
        }
    }
    out
}

/// One operand as our format spells it.
fn write_operand(out: &mut String, dag: &Dag, op: &Operand, names: &Interner) {
    match op {
        Operand::Value(v) => out.push_str(&dag.value_name(*v)),
        Operand::Reg { ty, reg, class } => {
            let _ = write!(out, "Register:{ty} ");
            match reg {
                RegRef::Virt(v) => {
                    let _ = write!(out, "%{v}");
                }
                RegRef::Phys(p) => {
                    let _ = write!(out, "${p}");
                }
            }
            if let Some(c) = class {
                let _ = write!(out, ":{}", c.display(names));
            }
        }
        Operand::Const { ty, value } => {
            let _ = write!(out, "Constant:{ty}<{value}>");
        }
        Operand::Block(b) => {
            let _ = write!(out, "BasicBlock:bb.{b}");
        }
        Operand::Symbol(s) => {
            let _ = write!(out, "ExternalSymbol:'{s}'");
        }
        Operand::Global { name, offset } => {
            let quoted = !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
            let _ = if quoted {
                write!(out, "GlobalAddress:@\"{name}\"")
            } else {
                write!(out, "GlobalAddress:@{name}")
            };
            if *offset != 0 {
                let sign = if *offset < 0 { '-' } else { '+' };
                let _ = write!(out, " {sign} {}", offset.unsigned_abs());
            }
        }
        Operand::ConstFp { ty, text } => {
            let _ = write!(out, "ConstantFP:{ty}<{text}>");
        }
        Operand::Str(s) => write_str(out, s),
        Operand::FrameIndex(i) => {
            let _ = write!(out, "FrameIndex:{i}");
        }
        Operand::SubReg(l) => {
            let _ = write!(out, "SubReg:sub{l}");
        }
        Operand::Class(c) => {
            let _ = write!(out, "RegClass:{}", c.display(names));
        }
    }
}

/// The bracketed attribute list, if any attribute is set.
fn write_attrs(out: &mut String, a: &Attrs) {
    let mut list: alloc::vec::Vec<String> = alloc::vec::Vec::new();
    let divergent = [(a.divergent, "divergent")];
    for (on, name) in divergent.into_iter().chain(a.properties()) {
        if on {
            list.push(name.into());
        }
    }
    for (bit, name) in super::ASM_EXTRA_NAMES {
        if a.asm_extra & bit != 0 {
            list.push(name.into());
        }
    }
    if let Some(m) = a.srcloc {
        list.push(alloc::format!("srcloc !{m}"));
    }
    if let Some(m) = &a.mem {
        let mut s = String::from("mem ");
        write_str(&mut s, m);
        list.push(s);
    }
    if a.mi_flags != 0 {
        let names: alloc::vec::Vec<&str> = crate::mir::instr::mi_flag_names(a.mi_flags).collect();
        let mut s = String::from("flags ");
        write_str(&mut s, &names.join(" "));
        list.push(s);
    }
    if !list.is_empty() {
        let _ = write!(out, " [{}]", list.join(", "));
    }
}

fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}
