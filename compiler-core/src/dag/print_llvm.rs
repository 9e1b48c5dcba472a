//! [`Dag`] → LLVM's own selected-DAG dump, by the rules of LLVM 22's
//! `SelectionDAG::dump` (SelectionDAGDumper.cpp), so that a DAG written in CopyScope's
//! format can be shown, and read back, the way `llc -debug-only=isel` prints it:
//!
//! - a node with no operands (other than `EntryToken`) is printed inline in its users
//!   as `OPCODE:types`, and on its own line only when nothing uses it;
//! - in the node list's order (here: the schedule), every node that does not have
//!   exactly one use is printed, after (recursively) the single-use nodes it reads,
//!   each indented two more spaces; the root (the block's last node) comes last;
//! - leaves take their `Target` names (`TargetConstant:i32<0>`), details follow the
//!   opcode (flags, `<Mem:...>`), ` # D:1` marks a divergent node, `, ` separates
//!   operands, and every block's DAG starts with the count line.
//!
//! What LLVM's dump cannot say (NVIDIA's node properties, register classes on
//! registers, sub-register and class operands, strings, inline asm, probes) makes
//! [`print_dag_llvm`] return an error naming it.

use super::{Dag, DagBlock, DagOp, Node, Operand, RegRef, Vt};
use crate::entity::EntityRef;
use crate::mir::instr::mi_flag_names;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt::Write;

/// The DAG in LLVM's dump syntax, or what it holds that the syntax cannot express.
pub fn print_dag_llvm(dag: &Dag) -> Result<String, String> {
    let mut out = String::new();
    for (b, data) in dag.blocks.iter() {
        let name = data.name.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "Selected selection DAG: %bb.{} '{}:{name}'",
            data.number, dag.name
        );
        super::print_phis(data, &mut out);
        block(dag, b, &mut out)?;
        out.push('\n');
    }
    Ok(out)
}

fn block(dag: &Dag, b: DagBlock, out: &mut String) -> Result<(), String> {
    let order = &dag.blocks[b].schedule;
    let mut uses = vec![0u32; dag.nodes.len()];
    let mut leaves = BTreeSet::new();
    for &n in order {
        for op in &dag.nodes[n].operands {
            match op.value() {
                Some(v) => uses[v.node.index()] += 1,
                None => {
                    leaves.insert(leaf(dag, op)?);
                }
            }
        }
    }
    let _ = writeln!(
        out,
        "SelectionDAG has {} nodes:",
        order.len() + leaves.len()
    );
    let root = order.last().copied();
    let p = Printer { dag, uses: &uses };
    for &n in order {
        let single = uses[n.index()] == 1;
        if !single && Some(n) != root && (!p.inline(n) || uses[n.index()] == 0) {
            p.dump(n, 2, out)?;
        }
    }
    if let Some(r) = root {
        p.dump(r, 2, out)?;
    }
    Ok(())
}

struct Printer<'a> {
    dag: &'a Dag,
    uses: &'a [u32],
}

impl Printer<'_> {
    /// LLVM's `shouldPrintInline`: no operands, and not the entry token.
    fn inline(&self, n: Node) -> bool {
        let d = &self.dag.nodes[n];
        d.operands.is_empty() && d.op != DagOp::EntryToken
    }

    fn dump(&self, n: Node, indent: usize, out: &mut String) -> Result<(), String> {
        for op in &self.dag.nodes[n].operands {
            let Some(v) = op.value() else { continue };
            if !self.inline(v.node) && self.uses[v.node.index()] == 1 {
                self.dump(v.node, indent + 2, out)?;
            }
        }
        for _ in 0..indent {
            out.push(' ');
        }
        let d = &self.dag.nodes[n];
        let (name, details) = self.head(n)?;
        let _ = write!(out, "t{}: {} = {name}{details}", d.number, types(&d.types));
        if d.attrs.divergent {
            out.push_str(" # D:1");
        }
        for (k, op) in d.operands.iter().enumerate() {
            out.push_str(if k == 0 { " " } else { ", " });
            match op.value() {
                Some(v) if self.inline(v.node) => {
                    let (name, details) = self.head(v.node)?;
                    let ts = types(&self.dag.nodes[v.node].types);
                    let _ = write!(out, "{name}:{ts}{details}");
                }
                Some(v) => {
                    let _ = write!(out, "t{}", self.dag.nodes[v.node].number);
                    if v.res != 0 {
                        let _ = write!(out, ":{}", v.res);
                    }
                }
                None => out.push_str(&leaf(self.dag, op)?),
            }
        }
        out.push('\n');
        Ok(())
    }

    /// The operation name, and its details (flags, memory operand).
    fn head(&self, n: Node) -> Result<(&'static str, String), String> {
        let d = &self.dag.nodes[n];
        let a = &d.attrs;
        for (on, what) in a.properties() {
            if on {
                return Err(format!(
                    "t{}: the `{what}` property has no form in LLVM's dump",
                    d.number
                ));
            }
        }
        let name = match d.op {
            DagOp::EhLabel => "eh_label",
            DagOp::LifetimeStart => "lifetime.start",
            DagOp::LifetimeEnd => "lifetime.end",
            DagOp::InlineAsm | DagOp::PseudoProbe => {
                return Err(format!(
                    "t{}: {} is written in CopyScope's own form",
                    d.number,
                    d.op.name()
                ))
            }
            op => op.name(),
        };
        let mut s = String::new();
        for f in mi_flag_names(a.mi_flags) {
            let _ = write!(s, " {f}");
        }
        if let Some(m) = &a.mem {
            let _ = write!(s, "<Mem:{}>", m.replace("), (", ") ("));
        }
        Ok((name, s))
    }
}

fn types(ts: &[Vt]) -> String {
    let names: Vec<&str> = ts
        .iter()
        .map(|t| {
            if *t == Vt::Untyped {
                "Untyped"
            } else {
                t.name()
            }
        })
        .collect();
    names.join(",")
}

/// An inline leaf in LLVM's spelling.
fn leaf(dag: &Dag, op: &Operand) -> Result<String, String> {
    Ok(match op {
        Operand::Value(_) => unreachable!("values are not leaves"),
        Operand::Reg { ty, reg, class } => {
            if class.is_some() {
                return Err("a register with an explicit class has no form in LLVM's dump".into());
            }
            match reg {
                RegRef::Virt(v) => format!("Register:{} %{v}", types(&[*ty])),
                RegRef::Phys(p) => format!("Register:{} ${p}", types(&[*ty])),
            }
        }
        Operand::Const { ty, value } => format!("TargetConstant:{ty}<{value}>"),
        Operand::ConstFp { ty, text } => match ty {
            Vt::F16 => format!(
                "TargetConstantFP:f16<APFloat({})>",
                super::fp_bits(*ty, text)
            ),
            _ if text.starts_with("0x") => {
                return Err(format!(
                    "the immediate {text} is not exact in LLVM's `%e` dump"
                ))
            }
            _ => format!("TargetConstantFP:{ty}<{text}>"),
        },
        Operand::Block(num) => {
            let b = dag.blocks.values().find(|b| b.number == *num);
            match b.and_then(|b| b.name.as_deref()) {
                Some(name) => format!("BasicBlock:ch<{name} 0x0>"),
                None => return Err(format!("%bb.{num} has no IR name for a BasicBlock operand")),
            }
        }
        Operand::Symbol(s) => format!("TargetExternalSymbol:i64'{s}'"),
        Operand::Global { name, offset } => {
            let off = if *offset > 0 {
                format!(" + {offset}")
            } else {
                format!(" {offset}")
            };
            format!("TargetGlobalAddress:i64<ptr @{name}>{off}")
        }
        Operand::FrameIndex(i) => format!("TargetFrameIndex:i64<{i}>"),
        Operand::Str(_) | Operand::SubReg(_) | Operand::Class(_) => {
            return Err("string, SubReg and RegClass operands have no form in LLVM's dump".into())
        }
    })
}
