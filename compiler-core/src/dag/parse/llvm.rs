//! LLVM's own selected-DAG dump, as `llc -debug-only=isel` prints it after "Selected
//! selection DAG" (LLVM 22's `SelectionDAG::dump` in SelectionDAGDumper.cpp).
//!
//! ```text
//!  Selected selection DAG: %bb.0 'k:entry'          header (same as ours)
//!  SelectionDAG has 12 nodes:                       count line (skipped)
//!      t3: i32 = INT_PTX_SREG_TID_x # D:1           a single-use node, indented under
//!    t4: i32 = ADD32rr nuw t3, t2 # D:1              its user: printed just before it
//!    t7: i64,ch = LD_i64<Mem:(load (s64))> TargetConstant:i1<0>, ..., t0
//! ```
//!
//! What differs from CopyScope's own format, and how it is read:
//!
//! - **Names are per block**: every block's DAG numbers its nodes from `t0`. After the
//!   checks, blocks after the first are renumbered past the previous ones
//!   ([`renumber`]), so that `fmt` prints a file CopyScope's format accepts.
//! - **Line order is not a schedule**: multi-use nodes are printed in the DAG's node
//!   list order, single-use ones nested before their user, and nodes created during
//!   selection may come after their users. [`schedule`] orders each block
//!   topologically, keeping the dump's order wherever it already is one and keeping a
//!   glued bundle together (LLVM's scheduler treats it as one unit). LLVM itself
//!   schedules NVPTX by source order (`Sched::Source`, from IR positions the plain dump
//!   does not print); CopyScope's order is the dump's, and this is our rule, not LLVM's.
//! - **Inline leaves** carry LLVM's spelling: `TargetConstant:i32<0>`,
//!   `TargetConstantFP:f32<1.000000e+00>`, `TargetExternalSymbol:i64'name'`,
//!   `TargetGlobalAddress:i64<ptr @g> 0`, `TargetFrameIndex:i64<1>`,
//!   `BasicBlock:ch<name 0x55d0>` (matched to a header by its IR name),
//!   `Register:i32 %5` (the `Target` prefix is optional everywhere).
//! - **Details after the opcode**: node flags (`nuw nsw contract ...`, copied onto the
//!   instruction), `<Mem:(...)>` (the memory operand), ` # D:1` (divergent); a debug
//!   location after the last operand is skipped.
//! - Not read (each refused with line:column and the construct's name): inline asm,
//!   `RegisterMask` (calls), `undef` leaves, metadata, and types CopyScope's DAG does
//!   not have (`i8`, `bf16`, vectors other than `v2f16`).

use super::{node_head, Cursor, NodeHead, Pos, Raw, RawNode};
use crate::dag::{Attrs, Dag, DagBlock, DagOp, Node, Operand, Vt};
use crate::entity::{EntityRef, SecondaryMap};
use crate::error::SourceError;
use crate::mir::instr::MI_FLAG_NAMES;
use alloc::collections::{BTreeMap, BinaryHeap};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cmp::Reverse;

/// The line LLVM prints after each header.
pub(super) const COUNT_LINE: &str = "SelectionDAG has ";

/// Whether `text` is in LLVM's dump syntax: it has the count line, or a leaf or detail
/// only LLVM prints.
pub(super) fn detect(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with(COUNT_LINE)
            || (t.starts_with('t')
                && (t.contains("TargetConstant")
                    || t.contains("<Mem:")
                    || t.contains(" # D:1")
                    || t.contains("TargetExternalSymbol")
                    || t.contains("TargetGlobalAddress")))
    })
}

/// `SelectionDAG has N nodes:`.
pub(super) fn count_line(c: &mut Cursor<'_>) -> Result<(), SourceError> {
    c.pos += COUNT_LINE.len();
    c.number_u32("the node count")?;
    c.expect(" nodes:", "` nodes:`")?;
    c.end()
}

/// Nodes without operands that LLVM prints inline in their users (`INT_PTX_SREG_TID_x:i32`),
/// one node per opcode, types and details in a block, as LLVM's CSE keeps them.
#[derive(Default)]
pub(super) struct InlineNodes {
    known: BTreeMap<(DagBlock, String), u32>,
    /// Nodes met on the current line, to be placed before it.
    pub(super) pending: Vec<RawNode>,
    next: u32,
}

/// Numbers of inline nodes until [`renumber`] gives them ordinary ones.
const INLINE_BASE: u32 = 1 << 30;

/// `tN: types = Opcode[ flags][<Mem:...>][ # D:1][ operand, operand, ...][, debug-loc]`.
pub(super) fn node_line(
    c: &mut Cursor<'_>,
    block: DagBlock,
    inline: &mut InlineNodes,
) -> Result<RawNode, SourceError> {
    let head = node_head(c, block, value_type)?;
    let op = opcode(c)?;
    let mut attrs = Attrs::default();
    details(c, &mut attrs)?;
    let mut operands = Vec::new();
    c.skip_ws();
    if !c.at_end() {
        loop {
            c.skip_ws();
            if is_debug_location(c.rest()) {
                c.pos = c.s.len();
                break;
            }
            let p: Pos = (c.line, c.col());
            operands.push((operand(c, block, inline)?, p));
            c.skip_ws();
            if !c.eat(",") {
                break;
            }
        }
    }
    c.end()?;
    Ok(RawNode::new(head, op, operands, attrs))
}

/// An EVT as LLVM prints it.
fn value_type(c: &mut Cursor<'_>) -> Result<Vt, SourceError> {
    let col = c.col();
    let w = c.word();
    match w {
        "Untyped" => Ok(Vt::Untyped),
        _ => Vt::by_name(w).filter(|_| w != "untyped").ok_or_else(|| {
            c.err_at(col, if w.is_empty() {
                format!("expected a value type, found {}", c.found())
            } else {
                format!("value type `{w}` is not in CopyScope's DAG (it has i1 i16 i32 i64 i128 f16 v2f16 f32 f64 Untyped ch glue)")
            })
        }),
    }
}

/// LLVM's operation name: a machine opcode's own name, or an ISD node's lower-case one.
fn opcode(c: &mut Cursor<'_>) -> Result<DagOp, SourceError> {
    let col = c.col();
    let r = c.rest();
    let len = r
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.'))
        .unwrap_or(r.len());
    let w = &r[..len];
    c.pos += len;
    let op = match w {
        "EntryToken" | "TokenFactor" | "CopyToReg" | "CopyFromReg" => DagOp::by_name(w),
        "eh_label" => Some(DagOp::EhLabel),
        "lifetime.start" => Some(DagOp::LifetimeStart),
        "lifetime.end" => Some(DagOp::LifetimeEnd),
        "pseudoprobe" => Some(DagOp::PseudoProbe),
        "extract_vector_elt" => Some(DagOp::ExtractVectorElt),
        "inlineasm" | "inlineasm_br" => {
            return Err(c.err_at(col, format!("`{w}` in LLVM's dump form is not read: write the inline asm node in CopyScope's form (docs/formats.md, \"Inline-asm constraint groups\")")))
        }
        _ => DagOp::by_name(w).filter(|o| o.machine().is_some()),
    };
    op.ok_or_else(|| {
        c.err_at(col, if w.is_empty() {
            format!("expected an opcode, found {}", c.found())
        } else {
            format!("unknown opcode `{w}`: a selected DAG holds machine opcodes of the NVPTX instruction description and EntryToken, TokenFactor, CopyToReg, CopyFromReg, eh_label, lifetime.start, lifetime.end, pseudoprobe, extract_vector_elt (dead)")
        })
    })
}

/// The flags, `<Mem:...>` and ` # D:1` after the opcode.
fn details(c: &mut Cursor<'_>, a: &mut Attrs) -> Result<(), SourceError> {
    loop {
        if c.rest().starts_with("<Mem:") {
            c.pos += "<Mem:".len();
            let col = c.col();
            let text = balanced(c, '>').ok_or_else(|| c.err_at(col, "unterminated `<Mem:...>`"))?;
            a.mem = Some(join_memoperands(text));
            continue;
        }
        let save = c.pos;
        c.skip_ws();
        if c.eat("# D:") {
            let col = c.col();
            match c.word() {
                "1" => a.divergent = true,
                "0" => {}
                w => return Err(c.err_at(col, format!("expected `# D:1` or `# D:0`, found `{w}`"))),
            }
            continue;
        }
        let r = c.rest();
        let len = r
            .find(|ch: char| !ch.is_ascii_alphanumeric())
            .unwrap_or(r.len());
        let w = &r[..len];
        let Some(bit) = MI_FLAG_NAMES.iter().position(|&f| f == w) else {
            c.pos = save;
            return Ok(());
        };
        a.mi_flags |= 1 << bit;
        c.pos += len;
    }
}

/// The text up to the `close` that balances the brackets and parentheses before it.
fn balanced<'a>(c: &mut Cursor<'a>, close: char) -> Option<&'a str> {
    let r = c.rest();
    let mut depth = 0i32;
    for (i, ch) in r.char_indices() {
        match ch {
            '(' | '<' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            '>' if depth == 0 && ch == close => {
                c.pos += i + 1;
                return Some(&r[..i]);
            }
            '>' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// LLVM separates several memory operands by a space; MIR by `, `.
fn join_memoperands(text: &str) -> String {
    text.replace(") (", "), (")
}

/// `file.cu:12:3` (a debug location after the operands).
fn is_debug_location(r: &str) -> bool {
    let word = r.split([',', ' ']).next().unwrap_or("");
    let mut parts = word.rsplitn(3, ':');
    let (Some(col), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    !file.is_empty()
        && !file.starts_with('t')
        && [col, line]
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn operand(
    c: &mut Cursor<'_>,
    block: DagBlock,
    inline: &mut InlineNodes,
) -> Result<Raw, SourceError> {
    let r = c.rest();
    if r.starts_with('t') && r[1..].starts_with(|ch: char| ch.is_ascii_digit()) {
        return super::operand(c);
    }
    let col = c.col();
    let Some(name_len) = r.find(':') else {
        return Err(c.err_at(
            col,
            format!(
                "operand {} is not read: expected `tN`, `tN:k` or a leaf `Name:type...`",
                c.found()
            ),
        ));
    };
    let name = &r[..name_len];
    if let Some(op) = DagOp::by_name(name).filter(|o| o.machine().is_some()) {
        return inline_node(c, block, inline, op, name_len);
    }
    let leaf = name.strip_prefix("Target").unwrap_or(name);
    match leaf {
        "Register" => return super::operand(c),
        "Constant" => {
            c.pos += name_len + 1;
            let ty = value_type(c)?;
            c.expect("<", "`<` and the value")?;
            let value = super::constant_value(c, ty)?;
            c.expect(">", "`>` after the constant")?;
            return Ok(Raw::Leaf(Operand::Const { ty, value }));
        }
        "ConstantFP" => {
            c.pos += name_len + 1;
            let ty = value_type(c)?;
            c.expect("<", "`<` and the value")?;
            let vcol = c.col();
            let text = balanced(c, '>').ok_or_else(|| c.err_at(vcol, "unterminated `<...>`"))?;
            let text = fp_from_dump(ty, text)
                .ok_or_else(|| c.err_at(vcol, format!("`{text}` is not a {ty} value")))?;
            return Ok(Raw::Leaf(Operand::ConstFp { ty, text }));
        }
        "ExternalSymbol" => {
            c.pos += name_len + 1;
            value_type(c)?;
            c.expect("'", "`'name'`")?;
            let start = c.pos;
            let len = c
                .rest()
                .find('\'')
                .ok_or_else(|| c.err("unterminated symbol name"))?;
            let s = c.s[start..start + len].to_string();
            c.pos += len + 1;
            return Ok(Raw::Leaf(Operand::Symbol(s)));
        }
        "GlobalAddress" => {
            c.pos += name_len + 1;
            value_type(c)?;
            c.expect("<", "`<` and the global")?;
            let gcol = c.col();
            let inner = balanced(c, '>').ok_or_else(|| c.err_at(gcol, "unterminated `<...>`"))?;
            let name = inner
                .rsplit(' ')
                .next()
                .and_then(|g| g.strip_prefix('@'))
                .map(|g| g.trim_matches('"').to_string())
                .filter(|g| !g.is_empty())
                .ok_or_else(|| {
                    c.err_at(gcol, format!("expected `<type @name>`, found `<{inner}>`"))
                })?;
            c.skip_ws();
            let offset = if c.eat("+") {
                c.skip_ws();
                c.signed("the offset")?
            } else {
                c.signed("the offset after the global")?
            };
            return Ok(Raw::Leaf(Operand::Global { name, offset }));
        }
        "FrameIndex" => {
            c.pos += name_len + 1;
            value_type(c)?;
            c.expect("<", "`<` and the index")?;
            let i = c.number_u32("a frame index")?;
            c.expect(">", "`>` after the frame index")?;
            return Ok(Raw::Leaf(Operand::FrameIndex(i)));
        }
        "BasicBlock" => {
            c.pos += name_len + 1;
            value_type(c)?;
            c.expect("<", "`<` and the block")?;
            let bcol = c.col();
            let inner = balanced(c, '>').ok_or_else(|| c.err_at(bcol, "unterminated `<...>`"))?;
            let name = inner.rsplit_once(' ').map_or("", |(n, _)| n).trim();
            if name.is_empty() {
                return Err(c.err_at(col, "a BasicBlock operand of an unnamed IR block cannot be matched to a header: name the IR blocks"));
            }
            return Ok(Raw::BlockName(name.to_string()));
        }
        _ => {}
    }
    let what = format!("`{name}`");
    Err(c.err_at(col, format!("operand {what} is not read: CopyScope's reader takes node references `tN`/`tN:k` and the leaves Register, (Target)Constant, (Target)ConstantFP, (Target)ExternalSymbol, (Target)GlobalAddress, (Target)FrameIndex and BasicBlock")))
}

/// `OPCODE:types[details]`: a node without operands, printed inline.
fn inline_node(
    c: &mut Cursor<'_>,
    block: DagBlock,
    inline: &mut InlineNodes,
    op: DagOp,
    name_len: usize,
) -> Result<Raw, SourceError> {
    let pos = (c.line, c.col());
    let start = c.pos;
    c.pos += name_len + 1;
    let mut types = Vec::new();
    loop {
        types.push(value_type(c)?);
        // Types are joined by a bare `,`; operands by `, `.
        if !(c.rest().starts_with(',')
            && c.rest()[1..].starts_with(|ch: char| ch.is_ascii_alphabetic()))
        {
            break;
        }
        c.pos += 1;
    }
    let mut attrs = Attrs::default();
    details(c, &mut attrs)?;
    let key = (block, c.s[start..c.pos].trim_end().to_string());
    let number = match inline.known.get(&key) {
        Some(&n) => n,
        None => {
            let n = INLINE_BASE + inline.next;
            inline.next += 1;
            inline.known.insert(key, n);
            let head = NodeHead {
                pos,
                number: n,
                block,
                types,
            };
            inline
                .pending
                .push(RawNode::new(head, op, Vec::new(), attrs));
            n
        }
    };
    Ok(Raw::Ref { number, res: 0 })
}

/// A floating-point leaf's text as MIR would spell the immediate: LLVM dumps floats
/// and doubles with `%e` and other formats as `APFloat(bits)`; MIR prints the `%e`
/// form when it reads back to the same value and the double's bits in hex otherwise
/// (a half as `0xH` and its 16 bits).
fn fp_from_dump(ty: Vt, text: &str) -> Option<String> {
    if let Some(bits) = text
        .strip_prefix("APFloat(")
        .and_then(|t| t.strip_suffix(')'))
    {
        let bits: u64 = bits.parse().ok()?;
        return match ty {
            Vt::F16 => Some(format!("0xH{:04X}", u16::try_from(bits).ok()?)),
            _ => None,
        };
    }
    super::fp_literal(ty, text)
}

/// Orders every block's nodes so that producers come first, keeping the dump's order
/// where it already does and a glued bundle's users after its last node.
pub(super) fn schedule(dag: &mut Dag) {
    let nodes: Vec<Node> = dag.nodes.keys().collect();
    let glued_user = glued_users(dag);
    // A bundle's bottom: follow glue results down to the last glued node.
    let mut bottom = SecondaryMap::<Node, Option<Node>>::new();
    for &n in nodes.iter().rev() {
        bottom[n] = Some(match glued_user.get(&n) {
            Some(&u) => bottom_of(&bottom, &glued_user, u),
            None => n,
        });
    }
    for b in dag.blocks.keys().collect::<Vec<_>>() {
        let order = dag.blocks[b].schedule.clone();
        // Filled by inserts: `collect` into a map is a sort, one more instance in the wasm.
        let mut rank: BTreeMap<Node, usize> = BTreeMap::new();
        for (i, &n) in order.iter().enumerate() {
            rank.insert(n, i);
        }
        let mut preds: BTreeMap<Node, Vec<Node>> = BTreeMap::new();
        for &n in &order {
            let mut p = Vec::new();
            for op in &dag.nodes[n].operands {
                let Some(v) = op.value() else { continue };
                p.push(v.node);
                let bot = bottom[v.node].unwrap_or(v.node);
                if bot != n && bottom[n] != Some(bot) {
                    p.push(bot);
                }
            }
            // Values from other blocks are an error the checks report; they do not
            // order this block.
            p.retain(|q| rank.contains_key(q));
            crate::sort::sort_by_key(&mut p, |q| q.index() as u128);
            p.dedup();
            preds.insert(n, p);
        }
        dag.blocks[b].schedule = topological(&order, &rank, &preds);
    }
}

fn glued_users(dag: &Dag) -> BTreeMap<Node, Node> {
    let mut out = BTreeMap::new();
    for (n, d) in dag.nodes.iter() {
        if let Some(v) = d.glue_operand(&dag.nodes) {
            out.insert(v.node, n);
        }
    }
    out
}

fn bottom_of(
    bottom: &SecondaryMap<Node, Option<Node>>,
    glued_user: &BTreeMap<Node, Node>,
    mut n: Node,
) -> Node {
    loop {
        if let Some(b) = bottom[n] {
            return b;
        }
        match glued_user.get(&n) {
            Some(&u) => n = u,
            None => return n,
        }
    }
}

/// Kahn's algorithm, always taking the ready node that came first in the dump.
fn topological(
    order: &[Node],
    rank: &BTreeMap<Node, usize>,
    preds: &BTreeMap<Node, Vec<Node>>,
) -> Vec<Node> {
    let mut waiting: BTreeMap<Node, usize> = BTreeMap::new();
    let mut succs: BTreeMap<Node, Vec<Node>> = BTreeMap::new();
    for &n in order {
        let ps = &preds[&n];
        waiting.insert(n, ps.len());
        for &p in ps {
            succs.entry(p).or_default().push(n);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = order
        .iter()
        .filter(|n| waiting[n] == 0)
        .map(|n| Reverse(rank[n]))
        .collect();
    let mut out = Vec::with_capacity(order.len());
    let mut placed = BTreeMap::new();
    while let Some(Reverse(i)) = ready.pop() {
        let n = order[i];
        out.push(n);
        placed.insert(n, ());
        for &s in succs.get(&n).map_or(&[][..], |v| v.as_slice()) {
            let w = waiting.get_mut(&s).expect("a successor of this block");
            *w -= 1;
            if *w == 0 {
                ready.push(Reverse(rank[&s]));
            }
        }
    }
    // A glued bundle read inside itself leaves nodes waiting: keep them in dump order
    // and let the checks name the problem.
    out.extend(order.iter().filter(|n| !placed.contains_key(*n)));
    out
}

/// Gives every block's nodes numbers past the previous blocks' (LLVM restarts at `t0`
/// in each block; CopyScope's format names nodes uniquely in the file).
/// Inline nodes get the numbers after the largest.
pub(super) fn renumber(dag: &mut Dag) -> Result<(), SourceError> {
    let too_large = || {
        SourceError::new(
            1,
            1,
            "node numbers are too large to number every block's nodes apart (the largest is 4294967295)",
        )
    };
    let mut seen = BTreeMap::new();
    let unique = dag
        .nodes
        .values()
        .all(|d| d.number >= INLINE_BASE || seen.insert(d.number, ()).is_none());
    let mut next = 0u32;
    for b in dag.blocks.keys().collect::<Vec<_>>() {
        let base = next;
        for n in dag.blocks[b].schedule.clone() {
            let d = &mut dag.nodes[n];
            if d.number >= INLINE_BASE {
                continue;
            }
            if !unique && b.index() > 0 {
                d.number = d.number.checked_add(base).ok_or_else(too_large)?;
            }
            next = next.max(d.number.checked_add(1).ok_or_else(too_large)?);
        }
    }
    for b in dag.blocks.keys().collect::<Vec<_>>() {
        for n in dag.blocks[b].schedule.clone() {
            if dag.nodes[n].number >= INLINE_BASE {
                dag.nodes[n].number = next;
                next = next.checked_add(1).ok_or_else(too_large)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_locations_are_recognised() {
        assert!(is_debug_location("kernel.cu:12:3"));
        assert!(!is_debug_location("t12:3"));
        assert!(!is_debug_location("TargetConstant:i32<0>"));
    }

    #[test]
    fn memoperands_join_as_mir_writes_them() {
        assert_eq!(
            join_memoperands("(load (s32) from %ir.p) (store (s32) into %ir.q)"),
            "(load (s32) from %ir.p), (store (s32) into %ir.q)"
        );
    }
}
