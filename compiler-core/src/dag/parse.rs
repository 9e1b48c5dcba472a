//! DAG text → [`Dag`]. The grammar is in `docs/formats.md` ("DAG"). Reading happens in
//! two rounds: every line is read into nodes whose operands still name `tN` numbers,
//! then the names are resolved and the whole graph is checked (blocks, cycles, schedule
//! order, glue, operand shapes and types). Every error carries line:column.
//!
//! The same reader takes LLVM's own dump (`llc -debug-only=isel`, "Selected selection
//! DAG"): [`llvm`] reads its node lines, names are scoped per block as LLVM numbers
//! them, and since the dump's line order is not a schedule the nodes are scheduled
//! first (see [`llvm::schedule`]).

use super::target;
use super::{
    param_reg_number, Attrs, BlockData, Dag, DagBlock, DagOp, Node, NodeData, Operand, RegRef,
    Spans, Value, Vt,
};
use crate::entity::{EntityRef, PrimaryMap};
use crate::error::SourceError;
use crate::mir::{flag, Op, RegClass};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

mod llvm;
mod phi;

/// Inputs larger than this are refused up front.
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// Virtual register numbers above this are refused (they size dense tables later).
const MAX_VREG: u32 = 1 << 22;
/// The block header, as LLVM's `-debug-only=isel` prints it.
const HEADER: &str = "Selected selection DAG:";

type Pos = (u32, u32);

/// An operand before `tN` names are resolved.
enum Raw {
    Ref {
        number: u32,
        res: u16,
    },
    Leaf(Operand),
    /// LLVM's `BasicBlock:ch<name 0x...>`: a block named by its IR name.
    BlockName(String),
}

/// A node as read: its data without operands, which name `tN` numbers until resolved.
struct RawNode {
    data: NodeData,
    operands: Vec<(Raw, Pos)>,
    pos: Pos,
}

impl RawNode {
    fn new(head: NodeHead, op: DagOp, operands: Vec<(Raw, Pos)>, attrs: Attrs) -> RawNode {
        let NodeHead {
            pos,
            number,
            block,
            types,
        } = head;
        let data = NodeData::new(number, block, types, op, Vec::new(), attrs);
        RawNode {
            data,
            operands,
            pos,
        }
    }
}

/// `tN: types =` read, in either syntax.
struct NodeHead {
    pos: Pos,
    number: u32,
    block: DagBlock,
    types: Vec<Vt>,
}

/// Reads `tN: t1,t2,... =`, each type with `read_type`.
fn node_head(
    c: &mut Cursor<'_>,
    block: DagBlock,
    read_type: fn(&mut Cursor<'_>) -> Result<Vt, SourceError>,
) -> Result<NodeHead, SourceError> {
    let pos = (c.line, c.col());
    c.pos += 1;
    let number = c.number_u32("a node number after `t`")?;
    c.expect(":", "`:` after the node name")?;
    c.skip_ws();
    let mut types = Vec::new();
    loop {
        types.push(read_type(c)?);
        c.skip_ws();
        if !c.eat(",") {
            break;
        }
        c.skip_ws();
    }
    c.expect("=", "`=` after the result types")?;
    c.skip_ws();
    Ok(NodeHead {
        pos,
        number,
        block,
        types,
    })
}

/// Parses a whole DAG file (one function).
pub fn parse_dag(text: &str) -> Result<Dag, SourceError> {
    crate::error::check_input_size(text, MAX_INPUT_BYTES)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut name: Option<String> = None;
    let mut blocks: PrimaryMap<DagBlock, BlockData> = PrimaryMap::new();
    let mut block_pos: Vec<Pos> = Vec::new();
    let mut phi_pos: Vec<Vec<Pos>> = Vec::new();
    let mut raw: Vec<RawNode> = Vec::new();
    let llvm_syntax = llvm::detect(text);
    let mut inline = llvm::InlineNodes::default();
    for (ln, line) in text.lines().enumerate() {
        let ln = ln as u32 + 1;
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let mut c = Cursor::new(line, ln);
        c.skip_ws();
        if llvm_syntax && t.starts_with(llvm::COUNT_LINE) {
            llvm::count_line(&mut c)?;
        } else if t.starts_with(HEADER) {
            let (number, func, bname, attrs) = header(&mut c)?;
            match &name {
                None => name = Some(func),
                Some(n) if *n != func => {
                    return Err(c.err_at(
                        c.start_col(),
                        format!("this block belongs to function `{func}`, but the file began with `{n}`; a DAG file holds one function"),
                    ))
                }
                _ => {}
            }
            if let Some(b) = blocks.values().position(|b| b.number == number) {
                return Err(c.err_at(
                    c.start_col(),
                    format!(
                        "%bb.{number} appears twice (first header on line {})",
                        block_pos[b].0
                    ),
                ));
            }
            blocks.push(BlockData {
                number,
                name: bname,
                attrs,
                succs: None,
                phis: Vec::new(),
                schedule: Vec::new(),
            });
            phi_pos.push(Vec::new());
            block_pos.push((ln, c.start_col()));
        } else if t.starts_with("successors:") {
            let Some(cur) = blocks.keys().next_back() else {
                return Err(c.err("a `successors:` line before any block header"));
            };
            if blocks[cur].succs.is_some()
                || !blocks[cur].phis.is_empty()
                || raw.last().is_some_and(|r| r.data.block == cur)
            {
                return Err(c.err("`successors:` comes once per block, right after its header"));
            }
            blocks[cur].succs = Some(successors(&mut c)?);
        } else if t.starts_with(phi::PREFIX) {
            let Some(cur) = blocks.keys().next_back() else {
                return Err(c.err("a PHI line before any block header"));
            };
            if raw.last().is_some_and(|r| r.data.block == cur) || !inline.pending.is_empty() {
                return Err(c.err("PHI lines come at the block's head, before its first node line"));
            }
            let at = (ln, c.start_col());
            blocks[cur].phis.push(phi::phi_line(&mut c)?);
            phi_pos[cur.index()].push(at);
        } else if t.starts_with('t') && t[1..].starts_with(|ch: char| ch.is_ascii_digit()) {
            let Some(block) = blocks.keys().next_back() else {
                return Err(c.err(format!("a node line before any block header; a block starts with `{HEADER} %bb.0 'function:entry'`")));
            };
            if llvm_syntax {
                let node = llvm::node_line(&mut c, block, &mut inline)?;
                raw.append(&mut inline.pending);
                raw.push(node);
            } else {
                raw.push(node_line(&mut c, block)?);
            }
        } else {
            return Err(c.err(format!("expected a block header `{HEADER} %bb.N 'function:block'` or a node line `tN: types = Opcode operands`, found {}", c.found())));
        }
    }
    let Some(name) = name else {
        let line = text.lines().count().max(1) as u32;
        return Err(SourceError::new(
            line,
            1,
            format!("expected at least one block header `{HEADER} %bb.0 'function:entry'`"),
        ));
    };
    let mut dag = resolve(name, blocks, raw, llvm_syntax)?;
    for (b, p) in block_pos.into_iter().enumerate() {
        dag.spans.blocks[DagBlock::new(b)] = p;
    }
    for (b, p) in phi_pos.into_iter().enumerate() {
        dag.spans.phis[DagBlock::new(b)] = p;
    }

    if llvm_syntax {
        find_cycle(&dag)?;
        llvm::schedule(&mut dag);
    }
    check(&dag)?;
    phi::check_phis(&dag)?;
    if llvm_syntax {
        llvm::renumber(&mut dag)?;
    }
    Ok(dag)
}

type Header = (u32, String, Option<String>, Option<String>);

/// `Selected selection DAG: %bb.N 'function:block' [(attributes)]`.
fn header(c: &mut Cursor<'_>) -> Result<Header, SourceError> {
    c.pos += HEADER.len();
    c.skip_ws();
    c.expect("%bb.", "a block `%bb.N`")?;
    let number = c.number_u32("a block number")?;
    c.skip_ws();
    c.expect("'", "a quoted `'function:block'` name")?;
    let start = c.pos;
    let Some(len) = c.rest().find('\'') else {
        return Err(c.err("unterminated `'function:block'` name"));
    };
    let q = &c.s[start..start + len];
    c.pos += len + 1;
    let (func, block) = match q.split_once(':') {
        Some((f, b)) => (f, (!b.is_empty()).then(|| b.to_string())),
        None => (q, None),
    };
    if func.is_empty() || !func.chars().all(is_name_char) {
        return Err(c.err_at(
            c.col_of(start),
            "expected a function name (letters, digits, `_`, `.`, `$`) before `:`",
        ));
    }
    if let Some(b) = &block {
        if !b.chars().all(is_name_char) {
            return Err(c.err_at(
                c.col_of(start + func.len() + 1),
                "a block name uses letters, digits, `_`, `.` and `$` only",
            ));
        }
    }
    c.skip_ws();
    let mut attrs = None;
    if c.eat("(") {
        let Some(len) = c.rest().find(')') else {
            return Err(c.err("unterminated `(...)` block attributes"));
        };
        let a = c.rest()[..len].trim().to_string();
        if a.is_empty() {
            return Err(c.err("empty `()` block attributes"));
        }
        c.pos += len + 1;
        attrs = Some(a);
    }
    c.end()?;
    Ok((number, func.to_string(), block, attrs))
}

/// `successors: %bb.1(0x40000000), %bb.2` (probabilities optional), once per block.
fn successors(c: &mut Cursor<'_>) -> Result<Vec<(u32, Option<u32>)>, SourceError> {
    c.pos += "successors:".len();
    let mut out = Vec::new();
    loop {
        c.skip_ws();
        if c.at_end() {
            break;
        }
        c.expect("%bb.", "a successor `%bb.N`")?;
        let n = c.number_u32("a block number")?;
        let mut prob = None;
        if c.eat("(") {
            c.expect("0x", "a probability `0x...`")?;
            let start = c.pos;
            let len = c.rest().find(')').unwrap_or(c.rest().len());
            let Ok(p) = u32::from_str_radix(&c.rest()[..len], 16) else {
                return Err(c.err_at(
                    c.col_of(start),
                    "expected a probability of eight hex digits",
                ));
            };
            c.pos += len;
            c.expect(")", "`)` after the probability")?;
            prob = Some(p);
        }
        out.push((n, prob));
        c.skip_ws();
        if !c.eat(",") {
            break;
        }
    }
    c.end()?;
    Ok(out)
}

fn is_name_char(ch: char) -> bool {
    ch.is_ascii_alphanumeric() || ch == '_' || ch == '.' || ch == '$'
}

/// `tN: types = Opcode operands [attributes]`.
fn node_line(c: &mut Cursor<'_>, block: DagBlock) -> Result<RawNode, SourceError> {
    let head = node_head(c, block, |c| {
        let col = c.col();
        let w = c.word();
        Vt::by_name(w).ok_or_else(|| c.err_at(col, format!("expected a value type (i1 i16 i32 i64 i128 f16 v2f16 f32 f64 untyped ch glue), found `{w}`")))
    })?;
    let op_col = c.col();
    let w = c.word();
    let Some(op) = DagOp::by_name(w) else {
        return Err(c.err_at(op_col, if w.is_empty() {
            format!("expected an opcode, found {}", c.found())
        } else {
            format!("unknown opcode `{w}`: expected EntryToken, TokenFactor, CopyToReg, CopyFromReg, INLINEASM, EH_LABEL, LIFETIME_START, LIFETIME_END, PSEUDO_PROBE or a machine opcode of the opcode table")
        }));
    };
    let mut operands = Vec::new();
    c.skip_ws();
    if !c.at_end() && !c.rest().starts_with('[') {
        loop {
            c.skip_ws();
            let p = (c.line, c.col());
            operands.push((operand(c)?, p));
            c.skip_ws();
            if !c.eat(",") {
                break;
            }
        }
    }
    c.skip_ws();
    let attrs = if c.eat("[") {
        attributes(c)?
    } else {
        Attrs::default()
    };
    c.end()?;
    Ok(RawNode::new(head, op, operands, attrs))
}

fn operand(c: &mut Cursor<'_>) -> Result<Raw, SourceError> {
    let r = c.rest();
    if r.starts_with('t') && r[1..].starts_with(|ch: char| ch.is_ascii_digit()) {
        c.pos += 1;
        let number = c.number_u32("a node number")?;
        let res = if c.eat(":") {
            let n = c.number_u32("a result number after `:`")?;
            u16::try_from(n).map_err(|_| c.err("result number too large"))?
        } else {
            0
        };
        return Ok(Raw::Ref { number, res });
    }
    if r.starts_with('"') {
        return Ok(Raw::Leaf(Operand::Str(c.quoted()?)));
    }
    let col = c.col();
    let w = c.word();
    let leaf = match w {
        "Register" => register(c)?,
        "Constant" => {
            c.expect(":", "`:` and a type after `Constant`")?;
            let ty = vt(c)?;
            c.expect("<", "`<` and the value")?;
            let value = constant_value(c, ty)?;
            c.expect(">", "`>` after the constant")?;
            Operand::Const { ty, value }
        }
        "ConstantFP" => constant_fp(c)?,
        "GlobalAddress" => global_address(c)?,
        "BasicBlock" => {
            c.expect(":bb.", "`:bb.N`")?;
            Operand::Block(c.number_u32("a block number")?)
        }
        "ExternalSymbol" => external_symbol(c)?,
        "FrameIndex" => {
            c.expect(":", "`:N`")?;
            Operand::FrameIndex(c.number_u32("a frame index")?)
        }
        "SubReg" => sub_reg(c)?,
        "RegClass" => {
            c.expect(":", "`:class`")?;
            let ccol = c.col();
            let cw = c.word();
            Operand::Class(RegClass::parse_nvptx(cw).ok_or_else(|| {
                c.err_at(ccol, format!("unknown register class `{cw}`"))
            })?)
        }
        "" => return Err(c.err_at(col, format!("expected an operand (`tN`, `tN:k`, `Register:`, `Constant:`, `ConstantFP:`, `BasicBlock:`, `ExternalSymbol:`, `GlobalAddress:`, `FrameIndex:`, `SubReg:`, `RegClass:` or a string), found {}", c.found()))),
        _ => return Err(c.err_at(col, format!("unknown operand `{w}`: expected `tN`, `tN:k`, `Register:`, `Constant:`, `ConstantFP:`, `BasicBlock:`, `ExternalSymbol:`, `GlobalAddress:`, `FrameIndex:`, `SubReg:`, `RegClass:` or a string"))),
    };
    Ok(Raw::Leaf(leaf))
}

/// `Register:TYPE %N[:class]` or `Register:TYPE $name`.
fn register(c: &mut Cursor<'_>) -> Result<Operand, SourceError> {
    c.expect(":", "`:` and a type after `Register`")?;
    let ty = vt(c)?;
    c.skip_ws();
    let rcol = c.col();
    let reg = if c.eat("%") {
        let v = c.number_u32("a virtual register number after `%`")?;
        if v > MAX_VREG {
            return Err(c.err_at(
                rcol,
                format!("virtual register %{v} is above the limit {MAX_VREG}"),
            ));
        }
        let class = if c.eat(":") {
            let ccol = c.col();
            let cw = c.word();
            Some(RegClass::parse_nvptx(cw).ok_or_else(|| {
                c.err_at(
                    ccol,
                    format!(
                        "unknown register class `{cw}`; expected {}",
                        crate::mir::regclass::valid_class_names()
                    ),
                )
            })?)
        } else {
            None
        };
        Operand::Reg {
            ty,
            reg: RegRef::Virt(v),
            class,
        }
    } else if c.eat("$") {
        let n = c.word();
        if n.is_empty() {
            return Err(c.err("expected a register name after `$`"));
        }
        if n.starts_with('r')
            && n.len() > 1
            && n[1..].bytes().all(|b| b.is_ascii_digit())
            && param_reg_number(n).is_none()
        {
            return Err(c.err_at(
                rcol,
                format!("`${n}`: the parameter registers are $r1..$r255"),
            ));
        }
        Operand::Reg {
            ty,
            reg: RegRef::Phys(n.to_string()),
            class: None,
        }
    } else {
        return Err(c.err(format!(
            "expected `%N` or `$name` after the register type, found {}",
            c.found()
        )));
    };
    Ok(reg)
}

/// `ConstantFP:TYPE<literal>`, the literal as MIR writes one.
fn constant_fp(c: &mut Cursor<'_>) -> Result<Operand, SourceError> {
    c.expect(":", "`:` and a type after `ConstantFP`")?;
    let ty = vt(c)?;
    c.expect("<", "`<` and the value")?;
    let vcol = c.col();
    let r = c.rest();
    let len = r
        .find('>')
        .ok_or_else(|| c.err("expected `>` after the value"))?;
    let text = fp_literal(ty, &r[..len]).ok_or_else(|| {
        c.err_at(vcol, format!("`{}` is not a {ty} literal as MIR writes one (`1.000000e+00`, `0x3FF0000000000000`, `0xH3C00` for f16)", &r[..len]))
    })?;
    c.pos += len + 1;
    Ok(Operand::ConstFp { ty, text })
}

/// `GlobalAddress:@name[+offset]`.
fn global_address(c: &mut Cursor<'_>) -> Result<Operand, SourceError> {
    c.expect(":@", "`:@name`")?;
    let start = c.pos;
    let name = if c.eat("\"") {
        let len = c
            .rest()
            .find('"')
            .ok_or_else(|| c.err("unterminated global name"))?;
        let n = c.rest()[..len].to_string();
        c.pos += len + 1;
        n
    } else {
        c.word().to_string()
    };
    if name.is_empty() {
        return Err(c.err_at(c.col_of(start), "expected a global's name after `@`"));
    }
    let save = c.pos;
    c.skip_ws();
    let offset = if c.eat("+") {
        c.skip_ws();
        c.signed("the offset after `+`")?
    } else if c.eat("-") {
        c.skip_ws();
        -c.signed("the offset after `-`")?
    } else {
        c.pos = save;
        0
    };
    Ok(Operand::Global { name, offset })
}

/// `ExternalSymbol:'name'`.
fn external_symbol(c: &mut Cursor<'_>) -> Result<Operand, SourceError> {
    c.expect(":'", "`:'name'`")?;
    let start = c.pos;
    let Some(len) = c.rest().find('\'') else {
        return Err(c.err("unterminated symbol name"));
    };
    let s = &c.s[start..start + len];
    if s.is_empty() || !s.chars().all(is_name_char) {
        return Err(c.err_at(
            c.col_of(start),
            "a symbol name uses letters, digits, `_`, `.` and `$` only",
        ));
    }
    c.pos += len + 1;
    Ok(Operand::Symbol(s.to_string()))
}

/// `SubReg:subN`, N below the largest tuple.
fn sub_reg(c: &mut Cursor<'_>) -> Result<Operand, SourceError> {
    c.expect(":sub", "`:subN`")?;
    let n = c.number_u32("a lane number")?;
    if n >= crate::mir::regclass::MAX_LANES as u32 {
        return Err(c.err(format!(
            "lane {n} is beyond the largest tuple ({} lanes)",
            crate::mir::regclass::MAX_LANES
        )));
    }
    Ok(Operand::SubReg(n as u8))
}

/// An integer constant of type `ty`, read signed or unsigned (an i1 also takes -1).
fn constant_value(c: &mut Cursor<'_>, ty: Vt) -> Result<i64, SourceError> {
    let vcol = c.col();
    let value = c.signed("an integer constant")?;
    if let Some(bits) = ty.bits().filter(|&b| b < 64) {
        let lo = if bits == 1 {
            -1
        } else {
            -(1i128 << (bits - 1))
        };
        let hi = (1i128 << bits) - 1;
        if !(lo..=hi).contains(&(value as i128)) {
            return Err(c.err_at(
                vcol,
                format!("{value} does not fit in {ty} (range {lo}..{hi})"),
            ));
        }
    }
    Ok(value)
}

/// A floating-point literal of type `ty` in MIR's spelling, or `None`: a `%e` decimal
/// (`1.000000e+00`) is kept when it reads back to the same value and replaced by the
/// double's bits in hex otherwise, as MIR prints it; `0x` + 16 hex digits for `f32`
/// and `f64`, `0xH` + 4 for `f16`.
fn fp_literal(ty: Vt, text: &str) -> Option<String> {
    let hex = |t: &str, n: usize| t.len() == n && t.bytes().all(|b| b.is_ascii_hexdigit());
    match ty {
        Vt::F16 => text
            .strip_prefix("0xH")
            .filter(|h| hex(h, 4))
            .map(|h| format!("0xH{}", h.to_ascii_uppercase())),
        Vt::F32 | Vt::F64 => {
            if let Some(h) = text.strip_prefix("0x").filter(|h| hex(h, 16)) {
                return Some(format!("0x{}", h.to_ascii_uppercase()));
            }
            let v: f64 = text.parse().ok().filter(|_| {
                text.bytes()
                    .all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
            })?;
            let v = if ty == Vt::F32 { v as f32 as f64 } else { v };
            Some(mir_float_text(v))
        }
        _ => None,
    }
}

/// `%.6e` in C's spelling when it reads back exactly, else `0x` and the double's bits.
fn mir_float_text(v: f64) -> String {
    if v.is_finite() {
        let rust = format!("{v:.6e}");
        let (mant, exp) = rust.split_once('e').expect("an exponent");
        let exp: i32 = exp.parse().expect("a number");
        let c = format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
        if c.parse::<f64>().ok().map(f64::to_bits) == Some(v.to_bits()) {
            return c;
        }
    }
    format!("0x{:016X}", v.to_bits())
}

/// The bits a floating-point literal of [`fp_literal`]'s form stands for, in the width
/// of `ty`.
pub fn fp_bits(ty: Vt, text: &str) -> u64 {
    if let Some(h) = text.strip_prefix("0xH") {
        return u64::from_str_radix(h, 16).unwrap_or(0);
    }
    let v = match text.strip_prefix("0x") {
        Some(h) => f64::from_bits(u64::from_str_radix(h, 16).unwrap_or(0)),
        None => text.parse().unwrap_or(0.0),
    };
    if ty == Vt::F32 {
        u64::from((v as f32).to_bits())
    } else {
        v.to_bits()
    }
}

fn vt(c: &mut Cursor<'_>) -> Result<Vt, SourceError> {
    let col = c.col();
    let w = c.word();
    Vt::by_name(w).ok_or_else(|| c.err_at(col, format!("expected a value type, found `{w}`")))
}

fn attributes(c: &mut Cursor<'_>) -> Result<Attrs, SourceError> {
    let mut a = Attrs::default();
    loop {
        c.skip_ws();
        let col = c.col();
        let w = c.word();
        let dup = |set: bool| {
            if set {
                Err(SourceError::new(
                    c.line,
                    col,
                    format!("attribute `{w}` given twice"),
                ))
            } else {
                Ok(true)
            }
        };
        match w {
            "divergent" => a.divergent = dup(a.divergent)?,
            "implicit-glue-consumer" => a.glue_consumer = dup(a.glue_consumer)?,
            "tied" => a.tied = dup(a.tied)?,
            "debug-value" => a.debug_value = dup(a.debug_value)?,
            "inline-fold" => a.inline_fold = dup(a.inline_fold)?,
            "sideeffect" => a.side_effect = dup(a.side_effect)?,
            "srcloc" => {
                dup(a.srcloc.is_some())?;
                c.skip_ws();
                c.expect("!", "`!N` (the metadata number) after srcloc")?;
                a.srcloc = Some(c.number_u32("a metadata number after `!`")?);
            }
            w if super::ASM_EXTRA_NAMES.iter().any(|e| e.1 == w) => {
                let bit = super::ASM_EXTRA_NAMES.iter().find(|e| e.1 == w).map_or(0, |e| e.0);
                dup(a.asm_extra & bit != 0)?;
                a.asm_extra |= bit;
            }
            "mem" => {
                dup(a.mem.is_some())?;
                c.skip_ws();
                a.mem = Some(c.quoted()?);
            }
            "flags" => {
                dup(a.mi_flags != 0)?;
                c.skip_ws();
                let qcol = c.col();
                for f in c.quoted()?.split_whitespace() {
                    let Some(bit) = crate::mir::instr::MI_FLAG_NAMES.iter().position(|&n| n == f) else {
                        return Err(c.err_at(qcol, format!("unknown instruction flag `{f}`; the flags are {}", crate::mir::instr::MI_FLAG_NAMES.join(" "))));
                    };
                    a.mi_flags |= 1 << bit;
                }
            }
            _ => return Err(c.err_at(col, format!("unknown attribute `{w}`: expected divergent, implicit-glue-consumer, tied, debug-value, inline-fold, sideeffect, mayload, maystore, isconvergent, alignstack, unwind, srcloc !N, mem \"...\" or flags \"...\""))),
        }
        c.skip_ws();
        if c.eat("]") {
            return Ok(a);
        }
        c.expect(",", "`,` or `]` in the attribute list")?;
    }
}

/// Names → nodes; builds the [`Dag`].
/// With `per_block` (LLVM's dumps, which number each block's DAG from `t0`), a `tN`
/// names a node of its own block; otherwise of the whole file.
fn resolve(
    name: String,
    mut blocks: PrimaryMap<DagBlock, BlockData>,
    raw: Vec<RawNode>,
    per_block: bool,
) -> Result<Dag, SourceError> {
    let scope = |b: DagBlock| if per_block { b.index() } else { 0 };
    let mut by_number: BTreeMap<(usize, u32), (Node, Pos)> = BTreeMap::new();
    for (i, r) in raw.iter().enumerate() {
        let key = (scope(r.data.block), r.data.number);
        if let Some(&(_, p)) = by_number.get(&key) {
            return Err(SourceError::new(
                r.pos.0,
                r.pos.1,
                format!(
                    "t{} is defined twice (first on line {})",
                    r.data.number, p.0
                ),
            ));
        }
        by_number.insert(key, (Node::new(i), r.pos));
    }
    let mut nodes: PrimaryMap<Node, NodeData> = PrimaryMap::new();
    let mut spans = Spans::default();
    for r in &raw {
        let mut operands = Vec::with_capacity(r.operands.len());
        let mut pos = Vec::with_capacity(r.operands.len());
        for (o, p) in &r.operands {
            operands.push(match o {
                Raw::Leaf(l) => l.clone(),
                Raw::BlockName(b) => {
                    let Some(target) = blocks.values().find(|d| d.name.as_deref() == Some(b))
                    else {
                        return Err(SourceError::new(p.0, p.1, format!(
                            "no block header names the IR block `{b}`; a BasicBlock operand is matched to the `'function:block'` name of a header"
                        )));
                    };
                    Operand::Block(target.number)
                }
                Raw::Ref { number, res } => {
                    let Some(&(node, _)) = by_number.get(&(scope(r.data.block), *number)) else {
                        return Err(SourceError::new(
                            p.0,
                            p.1,
                            format!("t{number} is not defined anywhere in this DAG"),
                        ));
                    };
                    let target = &raw[node.index()].data;
                    if *res as usize >= target.types.len() {
                        let types: Vec<&str> = target.types.iter().map(|t| t.name()).collect();
                        return Err(SourceError::new(
                            p.0,
                            p.1,
                            format!(
                                "t{number} has {} result{} ({}); result {res} does not exist",
                                target.types.len(),
                                if target.types.len() == 1 { "" } else { "s" },
                                types.join(", ")
                            ),
                        ));
                    }
                    Operand::Value(Value { node, res: *res })
                }
            });
            pos.push(*p);
        }
        let mut data = r.data.clone();
        data.operands = operands;
        let n = nodes.push(data);
        spans.nodes[n] = r.pos;
        spans.operands[n] = pos;
        blocks[r.data.block].schedule.push(n);
    }
    Ok(Dag {
        name,
        blocks,
        nodes,
        spans,
    })
}

fn err(dag: &Dag, n: Node, k: Option<usize>, msg: impl Into<String>) -> SourceError {
    let (l, c) = match k {
        Some(k) => dag.operand_pos(n, k),
        None => dag.pos(n),
    };
    SourceError::new(l, c, msg)
}

/// The whole-graph checks, in an order that reports the most telling error first.
fn check(dag: &Dag) -> Result<(), SourceError> {
    let bname = |b: DagBlock| format!("%bb.{}", dag.blocks[b].number);
    // 1. Values stay inside their block.
    for (n, d) in dag.nodes.iter() {
        for (k, op) in d.operands.iter().enumerate() {
            if let Some(v) = op.value() {
                let pb = dag.nodes[v.node].block;
                if pb != d.block {
                    let what = if dag.value_type(v) == Vt::Glue {
                        format!("glue to a node in another block: {} is in {}, {} in {}; glue ties instructions of one block together", dag.value_name(v), bname(pb), dag.name_of(n), bname(d.block))
                    } else {
                        format!("{} is a value of {}, but {} is in {}; values cross blocks only through CopyToReg/CopyFromReg of a virtual register", dag.value_name(v), bname(pb), dag.name_of(n), bname(d.block))
                    };
                    return Err(err(dag, n, Some(k), what));
                }
            }
        }
    }
    // 2. No cycles.
    find_cycle(dag)?;
    // 3. Line order is a schedule: producers come first.
    let mut line_of = crate::entity::SecondaryMap::<Node, u32>::new();
    for (i, b) in dag.blocks.values().enumerate() {
        for (k, &n) in b.schedule.iter().enumerate() {
            line_of[n] = ((i as u32) << 24) | k as u32;
        }
    }
    for (n, d) in dag.nodes.iter() {
        for (k, op) in d.operands.iter().enumerate() {
            if let Some(v) = op.value() {
                if line_of[v.node] > line_of[n] {
                    return Err(err(
                        dag,
                        n,
                        Some(k),
                        format!(
                            "{} uses {}, which is scheduled later (line {}); line order is the schedule, so a producer must come first",
                            dag.name_of(n),
                            dag.value_name(v),
                            dag.pos(v.node).0
                        ),
                    ));
                }
            }
        }
    }
    // 4. Glue: last operand, one user.
    let mut glue_user: BTreeMap<Value, Node> = BTreeMap::new();
    for (n, d) in dag.nodes.iter() {
        for (k, op) in d.operands.iter().enumerate() {
            let Some(v) = op.value() else { continue };
            if dag.value_type(v) != Vt::Glue {
                continue;
            }
            if k + 1 != d.operands.len() {
                return Err(err(
                    dag,
                    n,
                    Some(k),
                    format!(
                        "glue operand {} must be the last operand",
                        dag.value_name(v)
                    ),
                ));
            }
            if let Some(&first) = glue_user.get(&v) {
                return Err(err(
                    dag,
                    n,
                    Some(k),
                    format!(
                        "the glue of {} is already used by {}; glue has a single user",
                        dag.name_of(v.node),
                        dag.name_of(first)
                    ),
                ));
            }
            glue_user.insert(v, n);
        }
        if d.types.iter().filter(|&&t| t == Vt::Glue).count() > 1 {
            return Err(err(dag, n, None, "a node has at most one glue result"));
        }
    }
    // 4b. A glued bundle is emitted at its last node: readers of a bundle member's value
    //     come after that last node (or belong to the same bundle).
    //     Each node's bundle bottom is its glued user's bottom: one pass from the last
    //     line up (a glued user is always scheduled later), so a chain of any length
    //     costs one step per node; walking down from every node was quadratic.
    let mut bottoms = crate::entity::SecondaryMap::<Node, Option<Node>>::new();
    if !glue_user.is_empty() {
        let mut order: Vec<Node> = dag.nodes.keys().collect();
        order.sort_unstable_by_key(|&n| core::cmp::Reverse(line_of[n]));
        for n in order {
            let d = &dag.nodes[n];
            let glued_user = d.types.iter().position(|&t| t == Vt::Glue).and_then(|g| {
                glue_user.get(&Value {
                    node: n,
                    res: g as u16,
                })
            });
            bottoms[n] = match glued_user {
                Some(&u) => bottoms[u],
                None if d.has_glue_result() || dag.glued_pred(n).is_some() => Some(n),
                None => None,
            };
        }
    }
    for (n, d) in dag.nodes.iter() {
        for (k, op) in d.operands.iter().enumerate() {
            let Some(v) = op.value() else { continue };
            let Some(b) = bottoms[v.node] else { continue };
            if bottoms[n] == Some(b) || line_of[b] < line_of[n] {
                continue;
            }
            return Err(err(
                dag,
                n,
                Some(k),
                format!(
                    "{} uses {}, which is glued into the bundle ending at {} (line {}); a bundle is emitted where its last node is scheduled, so {} must come after it",
                    dag.name_of(n),
                    dag.value_name(v),
                    dag.name_of(b),
                    dag.pos(b).0,
                    dag.name_of(n)
                ),
            ));
        }
    }
    // 5. Shapes and types of the special nodes; registers' classes.
    for (n, _) in dag.nodes.iter() {
        check_shape(dag, n)?;
    }
    check_vregs(dag)?;
    Ok(())
}

fn find_cycle(dag: &Dag) -> Result<(), SourceError> {
    // 0 = unvisited, 1 = on the stack, 2 = done.
    let mut state = crate::entity::SecondaryMap::<Node, u8>::new();
    for start in dag.nodes.keys() {
        if state[start] != 0 {
            continue;
        }
        // Stack of (node, next operand to look at).
        let mut stack: Vec<(Node, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some(&mut (n, ref mut k)) = stack.last_mut() {
            let ops = &dag.nodes[n].operands;
            if *k >= ops.len() {
                state[n] = 2;
                stack.pop();
                continue;
            }
            let kk = *k;
            *k += 1;
            let Some(v) = ops[kk].value() else { continue };
            match state[v.node] {
                0 => {
                    state[v.node] = 1;
                    stack.push((v.node, 0));
                }
                1 => {
                    let from = stack.iter().position(|e| e.0 == v.node).unwrap_or(0);
                    let mut names: Vec<String> =
                        stack[from..].iter().map(|e| dag.name_of(e.0)).collect();
                    names.push(dag.name_of(v.node));
                    return Err(err(
                        dag,
                        n,
                        Some(kk),
                        format!(
                            "cycle: {} (each uses the next); a DAG has no cycles",
                            names.join(" → ")
                        ),
                    ));
                }
                _ => {}
            }
        }
    }
    Ok(())
}

fn check_shape(dag: &Dag, n: Node) -> Result<(), SourceError> {
    let sh = Shape::new(dag, n);
    let a = &sh.d.attrs;
    if sh.d.op != DagOp::InlineAsm && (a.asm_extra != 0 || a.srcloc.is_some()) {
        return Err(sh.err(
            None,
            "the inline-asm attributes (mayload, maystore, isconvergent, alignstack, unwind, srcloc) belong on INLINEASM only",
        ));
    }
    for (k, op) in sh.ops().iter().enumerate() {
        if op
            .value()
            .is_some_and(|v| dag.nodes[v.node].op == DagOp::ExtractVectorElt)
        {
            return Err(sh.err(Some(k), "an extract_vector_elt is an unselected node instruction selection left dead: nothing reads it (its users were moved to the split that replaced it)"));
        }
    }
    match sh.d.op {
        DagOp::EntryToken => {
            sh.want_types(&[&[Vt::Ch], &[Vt::Ch, Vt::Glue]])?;
            if !sh.ops().is_empty() {
                return Err(sh.err(Some(0), "EntryToken takes no operands"));
            }
            Ok(())
        }
        DagOp::TokenFactor => sh.token_factor(),
        DagOp::CopyToReg => sh.copy_to_reg(),
        DagOp::CopyFromReg => sh.copy_from_reg(),
        DagOp::InlineAsm => {
            sh.want_types(&[&[Vt::Ch], &[Vt::Ch, Vt::Glue]])?;
            sh.chain_first()?;
            if !matches!(sh.ops().get(1), Some(Operand::Str(_))) {
                return Err(sh.err(
                    Some(1).filter(|&k| k < sh.ops().len()),
                    "INLINEASM takes the asm text as a string after the chain",
                ));
            }
            check_asm_groups(dag, n)
        }
        DagOp::EhLabel | DagOp::LifetimeStart | DagOp::LifetimeEnd | DagOp::PseudoProbe => {
            sh.marker()
        }
        DagOp::ExtractVectorElt => sh.extract_vector_elt(),
        DagOp::Machine(op) => check_machine(dag, n, op),
    }
}

/// One node whose operands and result types [`check_shape`] checks.
struct Shape<'a> {
    dag: &'a Dag,
    n: Node,
    d: &'a NodeData,
    name: &'static str,
    /// Operands before a trailing glue.
    body: usize,
}

impl<'a> Shape<'a> {
    fn new(dag: &'a Dag, n: Node) -> Self {
        let d = &dag.nodes[n];
        let has_glue_in = d
            .operands
            .last()
            .and_then(Operand::value)
            .is_some_and(|v| dag.value_type(v) == Vt::Glue);
        Shape {
            dag,
            n,
            d,
            name: d.op.name(),
            body: d.operands.len() - has_glue_in as usize,
        }
    }

    fn ops(&self) -> &'a [Operand] {
        &self.d.operands
    }

    fn err(&self, k: Option<usize>, msg: impl Into<String>) -> SourceError {
        err(self.dag, self.n, k, msg)
    }

    /// The type of the value operand `k` reads.
    fn ty(&self, k: usize) -> Option<Vt> {
        self.ops()
            .get(k)
            .and_then(Operand::value)
            .map(|v| self.dag.value_type(v))
    }

    /// The node's result types are one of `allowed`.
    fn want_types(&self, allowed: &[&[Vt]]) -> Result<(), SourceError> {
        if allowed.contains(&self.d.types.as_slice()) {
            return Ok(());
        }
        let alts: Vec<String> = allowed
            .iter()
            .map(|a| a.iter().map(|t| t.name()).collect::<Vec<_>>().join(","))
            .collect();
        let got: Vec<&str> = self.d.types.iter().map(|t| t.name()).collect();
        Err(self.err(
            None,
            format!(
                "type mismatch: {} produces {}, not {}",
                self.name,
                alts.join(" or "),
                got.join(",")
            ),
        ))
    }

    /// The first operand is a chain.
    fn chain_first(&self) -> Result<(), SourceError> {
        if self.ty(0) != Some(Vt::Ch) {
            return Err(self.err(
                Some(0).filter(|_| !self.ops().is_empty()),
                format!(
                    "type mismatch: {} takes a chain (`ch`) as its first operand",
                    self.name
                ),
            ));
        }
        Ok(())
    }

    /// TokenFactor: one chain out of at least one chain in.
    fn token_factor(&self) -> Result<(), SourceError> {
        self.want_types(&[&[Vt::Ch]])?;
        if self.ops().is_empty() {
            return Err(self.err(None, "TokenFactor joins at least one chain"));
        }
        for k in 0..self.ops().len() {
            if self.ty(k) != Some(Vt::Ch) {
                return Err(self.err(
                    Some(k),
                    "type mismatch: TokenFactor joins chains (`ch` results) only",
                ));
            }
        }
        Ok(())
    }

    /// CopyToReg: `chain, Register:T reg, value` (and glue), the value of type T.
    fn copy_to_reg(&self) -> Result<(), SourceError> {
        let ops = self.ops();
        self.want_types(&[&[Vt::Ch], &[Vt::Ch, Vt::Glue]])?;
        self.chain_first()?;
        let Some(Operand::Reg { ty: rty, .. }) = ops.get(1) else {
            return Err(self.err(
                Some(1).filter(|&k| k < ops.len()),
                "CopyToReg takes `chain, Register:<type> <reg>, value`",
            ));
        };
        if self.body != 3 {
            return Err(self.err(
                None,
                "CopyToReg takes `chain, Register:<type> <reg>, value` and an optional glue",
            ));
        }
        let Some(v) = ops[2].value() else {
            return Err(self.err(Some(2), "CopyToReg copies a node's result (`tN` or `tN:k`)"));
        };
        let vt = self.dag.value_type(v);
        if vt != *rty {
            return Err(self.err(
                Some(2),
                format!(
                    "type mismatch: Register:{rty} receives {} of type {vt}",
                    self.dag.value_name(v)
                ),
            ));
        }
        Ok(())
    }

    /// CopyFromReg: `chain, Register:T reg` (and glue) giving `T,ch` (and glue).
    fn copy_from_reg(&self) -> Result<(), SourceError> {
        let ops = self.ops();
        self.chain_first()?;
        let Some(Operand::Reg { ty: rty, .. }) = ops.get(1) else {
            return Err(self.err(
                Some(1).filter(|&k| k < ops.len()),
                "CopyFromReg takes `chain, Register:<type> <reg>`",
            ));
        };
        if self.body != 2 {
            return Err(self.err(
                None,
                "CopyFromReg takes `chain, Register:<type> <reg>` and an optional glue",
            ));
        }
        if self.d.types.first() != Some(rty) {
            return Err(self.err(
                None,
                format!(
                    "type mismatch: CopyFromReg of a Register:{rty} produces {rty},ch (and optionally glue), not {}",
                    self.d.types.iter().map(|t| t.name()).collect::<Vec<_>>().join(",")
                ),
            ));
        }
        self.want_types(&[&[*rty, Vt::Ch], &[*rty, Vt::Ch, Vt::Glue]])
    }

    /// extract_vector_elt: `vector, Constant:<int><0 or 1>`, one result of half the
    /// vector's width (a lane of a 2-element packed vector).
    fn extract_vector_elt(&self) -> Result<(), SourceError> {
        let ops = self.ops();
        let shape = "extract_vector_elt takes `vector, Constant:<type><0 or 1>` and gives one lane";
        let (Some(v), Some(Operand::Const { value: 0 | 1, .. }), 2) =
            (ops.first().and_then(Operand::value), ops.get(1), ops.len())
        else {
            return Err(self.err(Some(ops.len().min(1)).filter(|&k| k < ops.len()), shape));
        };
        let vt = self.dag.value_type(v);
        let lane = match self.d.types.as_slice() {
            [t] => t.bits(),
            _ => None,
        };
        match (vt.bits(), lane) {
            (Some(w), Some(l)) if w == 2 * l => Ok(()),
            _ => Err(self.err(
                Some(0),
                format!("type mismatch: {shape} (half the width of the vector's {vt})"),
            )),
        }
    }

    /// EH_LABEL, LIFETIME_START/END and PSEUDO_PROBE: a chain out, a chain and the
    /// marker's own operands in.
    fn marker(&self) -> Result<(), SourceError> {
        let ops = self.ops();
        self.want_types(&[&[Vt::Ch]])?;
        self.chain_first()?;
        let (ok, shape) = match self.d.op {
            DagOp::EhLabel => (
                self.body == 2 && matches!(ops[1], Operand::Str(_)),
                "`chain, \"label\"`",
            ),
            DagOp::PseudoProbe => (
                self.body == 4 && ops[1..4].iter().all(|o| matches!(o, Operand::Const { .. })),
                "`chain, Constant:i64<guid>, Constant:i64<index>, Constant:i32<attributes>`",
            ),
            _ => (
                self.body == 2 && matches!(ops[1], Operand::FrameIndex(_)),
                "`chain, FrameIndex:N`",
            ),
        };
        if !ok {
            return Err(self.err(None, format!("{} takes {shape}", self.name)));
        }
        Ok(())
    }
}

/// The operands of a machine node that become MIR uses (not the chain, glue or class).
fn mir_uses(dag: &Dag, n: Node) -> Vec<usize> {
    let d = &dag.nodes[n];
    (0..d.operands.len())
        .filter(|&k| match &d.operands[k] {
            Operand::Value(v) => dag.value_type(*v).is_value(),
            Operand::Class(_) => false,
            _ => true,
        })
        .collect()
}

/// Whether a value of type `vt` may sit in a register of class `c`.
fn type_fits(c: RegClass, vt: Vt) -> bool {
    if vt == Vt::Untyped {
        return c.lanes() > 1;
    }
    // By width: llc-22's classes are width classes (`b32` holds i32, f32 and v2f16),
    // and the CICC-era typed ones of the table hold what llc-22 puts there (an `f32`
    // that `LD_i32` loaded).
    match target::typed_class(vt) {
        Some(t) => c.lanes() == 1 && c.family() == t.family(),
        None => false,
    }
}

fn class_name(c: RegClass) -> String {
    format!("{}", c.display(&Default::default()))
}

/// A machine node against the opcode table (`mir/opcode.rs`: explicit defs) and what
/// the target says about it (`target.rs`: operand count, def and use classes, implicit
/// defs): how many operands, how many results, and the type of each.
fn check_machine(dag: &Dag, n: Node, op: Op) -> Result<(), SourceError> {
    if op == Op::REG_SEQUENCE {
        return check_reg_sequence(dag, n);
    }
    let d = &dag.nodes[n];
    let name = op.name();
    let info = target::instr_info(op);
    let uses = mir_uses(dag, n);
    if let Some((lo, hi)) = target::use_count(op) {
        if !(lo..=hi).contains(&uses.len()) {
            let want = if lo == hi {
                format!("{hi}")
            } else {
                format!("{lo} or {hi}")
            };
            return Err(err(
                dag,
                n,
                uses.get(hi).copied(),
                format!(
                    "{name} takes {want} operand(s) besides its chain and glue; this node gives it {}",
                    uses.len()
                ),
            ));
        }
    }
    for (pos, &k) in uses.iter().enumerate() {
        if let (Operand::Value(v), Some(c)) = (&d.operands[k], info.use_class(pos)) {
            let vt = dag.value_type(*v);
            if !type_fits(c, vt) {
                return Err(err(
                    dag,
                    n,
                    Some(k),
                    format!(
                        "type mismatch: operand {} of {name} is a {} register, but {} is {vt}",
                        pos + 1,
                        class_name(c),
                        dag.value_name(*v)
                    ),
                ));
            }
        }
    }
    if op.desc().has(flag::VARIADIC) {
        return Ok(());
    }
    check_machine_results(dag, n, op, &info)
}

/// The data results of a machine node: its explicit defs (or the lanes of its single
/// tuple def), then at most one per implicit def; each of a type its class holds.
fn check_machine_results(
    dag: &Dag,
    n: Node,
    op: Op,
    info: &target::InstrInfo,
) -> Result<(), SourceError> {
    let d = &dag.nodes[n];
    let name = op.name();
    let vres: Vec<usize> = d.value_results().collect();
    let defs = op.desc().defs as usize;
    let implicit = info.implicit_defs.len();
    let tuple = info.def_class(0).filter(|c| c.lanes() > 1 && defs == 1);
    let fits = |explicit: usize| vres.len() >= explicit && vres.len() <= explicit + implicit;
    let lanes_mode = tuple.is_some_and(|t| t.lanes() > 1 && vres.len() >= t.lanes() as usize);
    if !(fits(defs) || tuple.is_some_and(|t| fits(t.lanes() as usize))) {
        let lanes = tuple.map_or(String::new(), |t| {
            format!(" (or its {} lanes as separate results)", t.lanes())
        });
        let imp = if implicit == 0 {
            String::new()
        } else {
            format!(", plus up to {implicit} implicit def(s)")
        };
        let types: Vec<&str> = d.types.iter().map(|t| t.name()).collect();
        return Err(err(
            dag,
            n,
            None,
            format!(
                "{name} defines {defs} register(s){lanes}{imp}; this node has {} data result(s) ({})",
                vres.len(),
                types.join(",")
            ),
        ));
    }
    let explicit: Vec<(usize, Option<RegClass>)> = match tuple {
        Some(t) if lanes_mode => (0..t.lanes() as usize)
            .map(|i| (vres[i], Some(t.lane_class())))
            .collect(),
        _ => (0..defs).map(|i| (vres[i], info.def_class(i))).collect(),
    };
    for (r, c) in explicit {
        let vt = d.types[r];
        let Some(c) = c else { continue };
        if !type_fits(c, vt) {
            return Err(err(
                dag,
                n,
                None,
                format!(
                    "type mismatch: result {r} of {} is {vt}, but {name} defines it in a {} register",
                    dag.name_of(n),
                    class_name(c)
                ),
            ));
        }
    }
    Ok(())
}

/// `REG_SEQUENCE RegClass:C, value, SubReg:subK, ...`: the class first, then pairs whose
/// lane exists in C and whose value fits C's lane class; the result is `untyped`.
fn check_reg_sequence(dag: &Dag, n: Node) -> Result<(), SourceError> {
    let d = &dag.nodes[n];
    let ops = &d.operands;
    let Some(Operand::Class(class)) = ops.first() else {
        return Err(err(
            dag,
            n,
            Some(0).filter(|_| !ops.is_empty()),
            "REG_SEQUENCE takes its class first: `RegClass:float32regsx4, t1, SubReg:sub0, ...`",
        ));
    };
    if d.types.as_slice() != [Vt::Untyped] {
        return Err(err(
            dag,
            n,
            None,
            "type mismatch: REG_SEQUENCE produces one `untyped` tuple value",
        ));
    }
    let lanes = class.lanes();
    let pairs = &ops[1..];
    if pairs.is_empty() || !pairs.len().is_multiple_of(2) {
        return Err(err(
            dag,
            n,
            None,
            "REG_SEQUENCE takes pairs after its class: `tN, SubReg:subK`",
        ));
    }
    for (i, pair) in pairs.chunks(2).enumerate() {
        let k = 1 + 2 * i;
        let (Operand::Value(v), Operand::SubReg(l)) = (&pair[0], &pair[1]) else {
            return Err(err(
                dag,
                n,
                Some(k),
                "REG_SEQUENCE takes pairs after its class: `tN, SubReg:subK`",
            ));
        };
        if *l >= lanes {
            return Err(err(
                dag,
                n,
                Some(k + 1),
                format!(
                    "lane sub{l} does not exist in {}, which has {lanes} lane(s) (sub0..sub{})",
                    class_name(*class),
                    lanes.saturating_sub(1)
                ),
            ));
        }
        let vt = dag.value_type(*v);
        let lane = class.lane_class();
        if !type_fits(lane, vt) {
            return Err(err(
                dag,
                n,
                Some(k),
                format!(
                    "type mismatch: lane sub{l} of {} is a {} register, but {} is {vt}",
                    class_name(*class),
                    class_name(lane),
                    dag.value_name(*v)
                ),
            ));
        }
    }
    Ok(())
}

/// The class letters an inline-asm constraint may use, with their register type.
pub const ASM_LETTERS: [(char, Vt); 6] = [
    ('b', Vt::I1),
    ('h', Vt::I16),
    ('r', Vt::I32),
    ('l', Vt::I64),
    ('f', Vt::F32),
    ('d', Vt::F64),
];

/// What one inline-asm constraint string asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AsmConstraint {
    /// `=r`, `=&r`: an output register (early-clobber with `&`).
    Output { letter: char, early_clobber: bool },
    /// `r`: an input register.
    Input { letter: char },
    /// `+r`: read and written; written as `"+r" <output register>, <input>`.
    ReadWrite { letter: char },
    /// `0`..`9`: an input that must sit in output N's register.
    Tied { output: u8 },
    /// `i`, `n`: an immediate.
    Imm,
}

impl AsmConstraint {
    pub fn parse(s: &str) -> Option<AsmConstraint> {
        let letter = |c: char| ASM_LETTERS.iter().any(|e| e.0 == c).then_some(c);
        let cs: Vec<char> = s.chars().collect();
        Some(match cs.as_slice() {
            ['=', '&', c] => AsmConstraint::Output {
                letter: letter(*c)?,
                early_clobber: true,
            },
            ['=', c] => AsmConstraint::Output {
                letter: letter(*c)?,
                early_clobber: false,
            },
            ['+', c] => AsmConstraint::ReadWrite {
                letter: letter(*c)?,
            },
            ['i'] | ['n'] => AsmConstraint::Imm,
            [d] if d.is_ascii_digit() => AsmConstraint::Tied {
                output: *d as u8 - b'0',
            },
            [c] => AsmConstraint::Input {
                letter: letter(*c)?,
            },
            _ => return None,
        })
    }
    /// The register class letter, if the constraint names one.
    pub fn letter(self) -> Option<char> {
        match self {
            AsmConstraint::Output { letter, .. }
            | AsmConstraint::Input { letter }
            | AsmConstraint::ReadWrite { letter } => Some(letter),
            _ => None,
        }
    }
    /// Operands following the constraint string.
    pub fn arity(self) -> usize {
        match self {
            AsmConstraint::ReadWrite { .. } => 2,
            _ => 1,
        }
    }
}

pub fn letter_type(letter: char) -> Vt {
    ASM_LETTERS
        .iter()
        .find(|e| e.0 == letter)
        .map_or(Vt::I32, |e| e.1)
}

/// One constraint of an INLINEASM node and the operand indices (into the node's
/// operand list) that follow it. Group `k` is asm operand `$k`; each read-write group
/// also gets a tied input slot numbered after all groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsmGroup {
    pub constraint: AsmConstraint,
    pub text: String,
    pub operands: Vec<usize>,
}

/// The constraint groups of an INLINEASM node (operands after the chain and the text;
/// `glue_in`: the last operand is glue).
pub fn asm_groups(ops: &[Operand], glue_in: bool) -> Result<Vec<AsmGroup>, (usize, String)> {
    let end = ops.len() - glue_in as usize;
    let mut k = 2;
    let mut out: Vec<AsmGroup> = Vec::new();
    while k < end {
        let Operand::Str(s) = &ops[k] else {
            return Err((k, "expected a constraint string (`\"=r\"`, `\"r\"`, `\"+r\"`, `\"i\"`, `\"0\"`) before each asm operand".into()));
        };
        let Some(c) = AsmConstraint::parse(s) else {
            return Err((k, format!("unknown constraint \"{s}\": expected =X, =&X, X, +X (X one of b h r l f d), i, n or an operand number")));
        };
        if k + c.arity() >= end {
            return Err((
                k,
                format!("constraint \"{s}\" needs {} operand(s) after it", c.arity()),
            ));
        }
        if let AsmConstraint::Tied { output } = c {
            let ok = out.get(output as usize).is_some_and(|g| {
                matches!(
                    g.constraint,
                    AsmConstraint::Output { .. } | AsmConstraint::ReadWrite { .. }
                )
            });
            if !ok {
                return Err((k, format!("constraint \"{s}\" ties to asm operand ${output}, which is not an output written before it")));
            }
        }
        out.push(AsmGroup {
            constraint: c,
            text: s.clone(),
            operands: (k + 1..k + 1 + c.arity()).collect(),
        });
        k += 1 + c.arity();
    }
    Ok(out)
}

fn check_asm_groups(dag: &Dag, n: Node) -> Result<(), SourceError> {
    let ops = &dag.nodes[n].operands;
    let glue_in = dag.nodes[n].glue_operand(&dag.nodes).is_some();
    let groups = asm_groups(ops, glue_in).map_err(|(k, m)| err(dag, n, Some(k), m))?;
    let reg_ty = |o: &Operand| match o {
        Operand::Reg { ty, .. } => Some(*ty),
        Operand::Value(v) => Some(dag.value_type(*v)),
        _ => None,
    };
    for g in &groups {
        let s = &g.text;
        let c = g.constraint;
        for (j, &pos) in g.operands.iter().enumerate() {
            let o = &ops[pos];
            let is_output = j == 0
                && matches!(
                    c,
                    AsmConstraint::Output { .. } | AsmConstraint::ReadWrite { .. }
                );
            match c {
                AsmConstraint::Imm => {
                    if !matches!(o, Operand::Const { .. }) {
                        return Err(err(
                            dag,
                            n,
                            Some(pos),
                            format!("constraint \"{s}\" takes a Constant"),
                        ));
                    }
                }
                _ if is_output => {
                    if !matches!(o, Operand::Reg { .. }) {
                        return Err(err(
                            dag,
                            n,
                            Some(pos),
                            format!("the output of \"{s}\" is a `Register:` the asm writes"),
                        ));
                    }
                }
                _ => {
                    if reg_ty(o).is_none_or(|t| !t.is_value()) {
                        return Err(err(
                            dag,
                            n,
                            Some(pos),
                            format!("constraint \"{s}\" reads a register or a value"),
                        ));
                    }
                }
            }
            let want = match c {
                AsmConstraint::Output { letter, .. }
                | AsmConstraint::Input { letter }
                | AsmConstraint::ReadWrite { letter } => Some(letter_type(letter)),
                _ => None,
            };
            if let (Some(w), Some(t)) = (want, reg_ty(o)) {
                if w.bits() != t.bits() {
                    return Err(err(
                        dag,
                        n,
                        Some(pos),
                        format!("type mismatch: constraint \"{s}\" is a {}-bit register, the operand is {t}", w.bits().unwrap_or(0)),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Every mention of a virtual register agrees on its class, and the class fits the type.
fn check_vregs(dag: &Dag) -> Result<(), SourceError> {
    let mut seen: BTreeMap<u32, (Vt, Option<RegClass>, Node)> = BTreeMap::new();
    for b in dag.blocks.values() {
        for &n in &b.schedule {
            for (k, op) in dag.nodes[n].operands.iter().enumerate() {
                let Operand::Reg {
                    ty,
                    reg: RegRef::Virt(v),
                    class,
                } = op
                else {
                    continue;
                };
                if let Some(c) = class {
                    let fits = match ty.bits() {
                        Some(bits) => {
                            c.lanes() == 1 && c.family().is_some_and(|f| f.bits() == bits)
                        }
                        None => *ty == Vt::Untyped,
                    };
                    if !fits {
                        return Err(err(
                            dag,
                            n,
                            Some(k),
                            format!(
                                "type mismatch: %{v} is a {ty} but its class {} does not hold one",
                                c.display(&Default::default())
                            ),
                        ));
                    }
                } else if *ty == Vt::Untyped && seen.get(v).and_then(|e| e.1).is_none() {
                    return Err(err(dag, n, Some(k), format!("an untyped register needs its class: `Register:untyped %{v}:float32regsx4`")));
                }
                match seen.get(v) {
                    Some(&(t0, _, _)) if t0 != *ty => {
                        return Err(err(
                            dag,
                            n,
                            Some(k),
                            format!("type mismatch: %{v} was {t0} before, here it is {ty}"),
                        ));
                    }
                    Some(&(_, Some(c0), _)) if class.is_some_and(|c| c != c0) => {
                        return Err(err(
                            dag,
                            n,
                            Some(k),
                            format!(
                                "%{v} was given class {} before",
                                c0.display(&Default::default())
                            ),
                        ));
                    }
                    Some(_) => {
                        if class.is_some() {
                            seen.get_mut(v).expect("seen").1 = *class;
                        }
                    }
                    None => {
                        seen.insert(*v, (*ty, *class, n));
                    }
                }
            }
        }
    }
    Ok(())
}

/// A cursor over one line.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
    line: u32,
    start: usize,
}

impl<'a> Cursor<'a> {
    fn new(s: &'a str, line: u32) -> Self {
        let start = s.len() - s.trim_start().len();
        Cursor {
            s,
            pos: 0,
            line,
            start,
        }
    }
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn col_of(&self, byte: usize) -> u32 {
        self.s[..byte.min(self.s.len())].chars().count() as u32 + 1
    }
    fn col(&self) -> u32 {
        self.col_of(self.pos)
    }
    fn start_col(&self) -> u32 {
        self.col_of(self.start)
    }
    fn err(&self, msg: impl Into<String>) -> SourceError {
        SourceError::new(self.line, self.col(), msg)
    }
    fn err_at(&self, col: u32, msg: impl Into<String>) -> SourceError {
        SourceError::new(self.line, col, msg)
    }
    fn at_end(&self) -> bool {
        self.rest().trim().is_empty()
    }
    fn skip_ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }
    fn eat(&mut self, t: &str) -> bool {
        if self.rest().starts_with(t) {
            self.pos += t.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, t: &str, what: &str) -> Result<(), SourceError> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.err(format!("expected {what}, found {}", self.found())))
        }
    }
    fn end(&mut self) -> Result<(), SourceError> {
        self.skip_ws();
        if self.at_end() {
            Ok(())
        } else {
            Err(self.err(format!(
                "unexpected {} at the end of the line",
                self.found()
            )))
        }
    }
    /// A word: letters, digits, `_`, `-`, `.`.
    fn word(&mut self) -> &'a str {
        let r = self.rest();
        let len = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
            .unwrap_or(r.len());
        self.pos += len;
        &r[..len]
    }
    fn number_u32(&mut self, what: &str) -> Result<u32, SourceError> {
        let r = self.rest();
        let len = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
        if len == 0 {
            return Err(self.err(format!("expected {what}, found {}", self.found())));
        }
        let v = r[..len]
            .parse()
            .map_err(|_| self.err(format!("{what} is too large")))?;
        self.pos += len;
        Ok(v)
    }
    fn signed(&mut self, what: &str) -> Result<i64, SourceError> {
        let neg = self.eat("-");
        let r = self.rest();
        let len = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
        if len == 0 {
            return Err(self.err(format!("expected {what}, found {}", self.found())));
        }
        let digits = &r[..len];
        let v: i128 = digits
            .parse()
            .map_err(|_| self.err(format!("{what} does not fit in 64 bits")))?;
        let v = if neg { -v } else { v };
        let v =
            i64::try_from(v).map_err(|_| self.err(format!("{what} does not fit in 64 bits")))?;
        self.pos += len;
        Ok(v)
    }
    /// `"..."` with `\"`, `\\`, `\n` and `\t` escapes.
    fn quoted(&mut self) -> Result<String, SourceError> {
        let col = self.col();
        if !self.eat("\"") {
            return Err(self.err(format!("expected a string, found {}", self.found())));
        }
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, ch)) = chars.next() {
            match ch {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, '"')) => out.push('"'),
                    Some((_, '\\')) => out.push('\\'),
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    _ => {
                        self.pos += i;
                        return Err(
                            self.err("unknown escape; strings allow \\\", \\\\, \\n and \\t")
                        );
                    }
                },
                c => out.push(c),
            }
        }
        Err(self.err_at(col, "unterminated string"))
    }
    fn found(&self) -> String {
        match self.rest().chars().next() {
            None => "the end of the line".into(),
            Some(c) => {
                let w: String = self
                    .rest()
                    .chars()
                    .take_while(|c| !c.is_whitespace() && *c != ',')
                    .take(24)
                    .collect();
                if w.is_empty() {
                    format!("`{c}`")
                } else {
                    format!("`{w}`")
                }
            }
        }
    }
}
