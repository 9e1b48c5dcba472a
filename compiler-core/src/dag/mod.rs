//! The selected DAG: what instruction selection and scheduling hand to the emitter.
//!
//! ```text
//!  text ──parse──▶ Dag { blocks: [BlockData { schedule: [Node] }], nodes: [NodeData] } ──print──▶ text
//!                   │  nodes: storage, named by `Node`; each block's schedule: the order
//!                   │  (line order in the text) in which the emitter visits them
//!                   └─ interp::dag::run(dag, inputs) ──▶ stores and return value (the reference
//!                      the emitted machine code is checked against)
//! ```
//!
//! A node has result types (`i32`, `f32`, ..., `ch` for a chain, `glue` for glue), an
//! opcode (a few ISD opcodes the emitter treats specially, or a machine opcode of the
//! table in [`crate::mir::opcode`]), operands (results of other nodes, `tN` or `tN:k`,
//! and inline leaves such as `Register:i32 %5` or `Constant:i32<5>`) and attributes.
//!
//! Invariants [`parse`] guarantees (each violation is a line:column error): `tN` names are
//! unique in the function; every operand names an existing result of a node of the
//! same block, scheduled on an earlier line; the graph has no cycle; a glue result is
//! used at most once and only as the last operand of its user; the special ISD nodes have
//! the operand shapes `docs/formats.md` lists, with matching types.
//! `print(parse(text))` is a fixpoint and `parse(print(dag)) == dag`.

pub mod lift;
mod parse;
mod print;
mod print_llvm;
pub mod target;

pub use lift::{lift, LiftError};
pub use parse::{
    asm_groups, fp_bits, letter_type, parse_dag, AsmConstraint, AsmGroup, MAX_INPUT_BYTES,
};
pub use print::print_dag;
pub use print_llvm::print_dag_llvm;

use crate::entity::{entity_impl, PrimaryMap, SecondaryMap};
use crate::mir::{Op, RegClass};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// A node, by storage index (its `tN` number is [`NodeData::number`]).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Node(u32);
entity_impl!(Node, "node");

/// A block of the DAG, by storage index (file order).
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DagBlock(u32);
entity_impl!(DagBlock, "dagblock");

/// A value type, spelled as LLVM spells MVTs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Vt {
    I1,
    I16,
    I32,
    I64,
    I128,
    F16,
    V2F16,
    F32,
    F64,
    /// A value with no scalar type: a tuple register (REG_SEQUENCE, a whole fragment).
    Untyped,
    /// A chain: ordering only.
    Ch,
    /// Glue: the user must be emitted right after the producer.
    Glue,
}

pub const VT_NAMES: [(Vt, &str); 12] = [
    (Vt::I1, "i1"),
    (Vt::I16, "i16"),
    (Vt::I32, "i32"),
    (Vt::I64, "i64"),
    (Vt::I128, "i128"),
    (Vt::F16, "f16"),
    (Vt::V2F16, "v2f16"),
    (Vt::F32, "f32"),
    (Vt::F64, "f64"),
    (Vt::Untyped, "untyped"),
    (Vt::Ch, "ch"),
    (Vt::Glue, "glue"),
];

impl Vt {
    pub fn name(self) -> &'static str {
        VT_NAMES
            .iter()
            .find(|(v, _)| *v == self)
            .map_or("?", |e| e.1)
    }
    pub fn by_name(s: &str) -> Option<Vt> {
        VT_NAMES.iter().find(|(_, n)| *n == s).map(|e| e.0)
    }
    /// A data value (not a chain or glue).
    pub fn is_value(self) -> bool {
        !matches!(self, Vt::Ch | Vt::Glue)
    }
    /// Width in bits of a scalar type.
    pub fn bits(self) -> Option<u32> {
        Some(match self {
            Vt::I1 => 1,
            Vt::I16 | Vt::F16 => 16,
            Vt::I32 | Vt::F32 | Vt::V2F16 => 32,
            Vt::I64 | Vt::F64 => 64,
            Vt::I128 => 128,
            _ => return None,
        })
    }
    pub fn is_float(self) -> bool {
        matches!(self, Vt::F16 | Vt::V2F16 | Vt::F32 | Vt::F64)
    }
}

impl fmt::Display for Vt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One result of one node: `tN` (result 0) or `tN:k`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Value {
    pub node: Node,
    pub res: u16,
}

/// A register a `Register:` leaf names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegRef {
    /// `%N`: a virtual register created before emission (values crossing blocks).
    Virt(u32),
    /// `$name`: a physical register; `$r1..$r255` are the kernel parameter registers.
    Phys(String),
}

impl RegRef {
    /// The parameter register number of `$rN`, if this is one.
    pub fn param_number(&self) -> Option<u32> {
        match self {
            RegRef::Phys(n) => param_reg_number(n),
            RegRef::Virt(_) => None,
        }
    }
}

/// `rN` with 1 ≤ N ≤ 255.
pub fn param_reg_number(name: &str) -> Option<u32> {
    let d = name.strip_prefix('r')?;
    if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) || d.starts_with('0') {
        return None;
    }
    let n: u32 = d.parse().ok()?;
    (1..=255).contains(&n).then_some(n)
}

/// A string as llc-22 prints it in MIR (LLVM's `printEscapedString`): printable ASCII
/// as is, a backslash doubled, every other byte (`"`, newline, tab, non-ASCII) as `\XX`
/// in upper-case hex. The inline-asm text of a DAG becomes `&"..."` in this form.
pub fn llvm_escape(s: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\22"),
            0x20..=0x7e => out.push(b as char),
            _ => {
                out.push('\\');
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
    }
    out
}

/// The inverse of [`llvm_escape`] (`\\` and `\XX`; anything else is kept as written).
pub fn llvm_unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
            continue;
        }
        if b[i] == b'\\' && i + 2 < b.len() {
            let hex = core::str::from_utf8(&b[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(v) = hex {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An operand: another node's result, or an inline leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    Value(Value),
    /// `Register:i32 %5`, `Register:i32 %5:int32regs`, `Register:i64 $r1`.
    Reg {
        ty: Vt,
        reg: RegRef,
        class: Option<RegClass>,
    },
    /// `Constant:i32<5>`.
    Const {
        ty: Vt,
        value: i64,
    },
    /// `BasicBlock:bb.1` (the MIR block number).
    Block(u32),
    /// `ExternalSymbol:'name'`.
    Symbol(String),
    /// `"text"`: inline-asm text, an asm constraint, a label name.
    Str(String),
    /// `FrameIndex:2`.
    FrameIndex(u32),
    /// `SubReg:sub1`.
    SubReg(u8),
    /// `GlobalAddress:@name`, `GlobalAddress:@name + 8`: an IR global (MIR `@name`).
    Global {
        name: String,
        offset: i64,
    },
    /// `ConstantFP:f32<1.000000e+00>`: a floating-point immediate, its literal as MIR
    /// spells it (`1.000000e+00`, `0x3FB99999A0000000`, `0xH3C00` for a half).
    ConstFp {
        ty: Vt,
        text: String,
    },
    /// `RegClass:float32regsx4`.
    Class(RegClass),
}

impl Operand {
    pub fn value(&self) -> Option<Value> {
        match self {
            Operand::Value(v) => Some(*v),
            _ => None,
        }
    }
}

/// INLINEASM extra-info bits besides `sideeffect` (1), in the order MIR names them
/// (LLVM's `InlineAsm::getExtraInfoNames`, which ends with the dialect, `attdialect`).
pub const ASM_EXTRA_NAMES: [(u8, &str); 5] = [
    (8, "mayload"),
    (16, "maystore"),
    (32, "isconvergent"),
    (2, "alignstack"),
    (64, "unwind"),
];

/// The opcodes the emitter dispatches on; everything else is a machine opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DagOp {
    EntryToken,
    TokenFactor,
    CopyToReg,
    CopyFromReg,
    InlineAsm,
    EhLabel,
    LifetimeStart,
    LifetimeEnd,
    PseudoProbe,
    /// ISD::EXTRACT_VECTOR_ELT left unselected: NVPTX's selector merges the two
    /// extractions of a 2-element packed vector into one `I32toV2I16` and only
    /// redirects their users (`ReplaceUses`), so both stay in the DAG, dead, still
    /// reading the vector. The scheduler never reaches them (it walks from the root);
    /// their reads only make the vector's value multi-use (no kill flag).
    ExtractVectorElt,
    Machine(Op),
}

pub const SPECIAL_OPS: [(DagOp, &str); 10] = [
    (DagOp::EntryToken, "EntryToken"),
    (DagOp::TokenFactor, "TokenFactor"),
    (DagOp::CopyToReg, "CopyToReg"),
    (DagOp::CopyFromReg, "CopyFromReg"),
    (DagOp::InlineAsm, "INLINEASM"),
    (DagOp::EhLabel, "EH_LABEL"),
    (DagOp::LifetimeStart, "LIFETIME_START"),
    (DagOp::LifetimeEnd, "LIFETIME_END"),
    (DagOp::PseudoProbe, "PSEUDO_PROBE"),
    (DagOp::ExtractVectorElt, "extract_vector_elt"),
];

impl DagOp {
    pub fn name(self) -> &'static str {
        match self {
            DagOp::Machine(op) => op.name(),
            s => SPECIAL_OPS
                .iter()
                .find(|(o, _)| *o == s)
                .map_or("?", |e| e.1),
        }
    }
    /// Special ISD opcodes by name; machine opcodes must be in the opcode table.
    pub fn by_name(s: &str) -> Option<DagOp> {
        if let Some((o, _)) = SPECIAL_OPS.iter().find(|(_, n)| *n == s) {
            return Some(*o);
        }
        // Pseudos that only exist after emission (or that the emitter never meets as
        // nodes) are not machine nodes. `COPY` is one: instruction selection makes COPY
        // nodes (a no-op conversion), emitted like any instruction.
        match Op::by_name(s)? {
            Op::PHI
            | Op::INSERT_SUBREG
            | Op::EXTRACT_SUBREG
            | Op::SUBREG_TO_REG
            | Op::KILL
            | Op::INLINEASM
            | Op::EH_LABEL
            | Op::LIFETIME_START
            | Op::LIFETIME_END
            | Op::PSEUDO_PROBE => None,
            op => Some(DagOp::Machine(op)),
        }
    }
    /// The ISD number the spec's dispatch table shows for the special opcodes.
    pub fn spec_number(self) -> Option<u16> {
        Some(match self {
            DagOp::CopyToReg => 0x0E,
            DagOp::EhLabel => 0x0F,
            DagOp::InlineAsm => 0x10,
            DagOp::TokenFactor => 0x13,
            DagOp::CopyFromReg => 0x14,
            DagOp::LifetimeStart | DagOp::LifetimeEnd => 0x1C,
            DagOp::PseudoProbe => 0x2B,
            _ => return None,
        })
    }
    pub fn machine(self) -> Option<Op> {
        match self {
            DagOp::Machine(op) => Some(op),
            _ => None,
        }
    }
}

/// Node attributes (the bracketed list at the end of a line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attrs {
    /// `divergent`: the value may differ between the threads of a warp.
    pub divergent: bool,
    /// `implicit-glue-consumer`: NVIDIA's bit 36 (0x1000000000) on operand 1 — a glued
    /// predecessor already produced this node's value.
    pub glue_consumer: bool,
    /// `tied`: property bit 2 (isTied); it turns the bit-36 test off.
    pub tied: bool,
    /// `debug-value`: property bit 17 (hasDebugValue); it skips the bit-36 test.
    pub debug_value: bool,
    /// `inline-fold`: the consumer folded this copy into itself (operand bit 0x10).
    pub inline_fold: bool,
    /// `sideeffect`: an inline asm statement with side effects.
    pub side_effect: bool,
    /// INLINEASM's other extra-info bits (`mayload`, `maystore`, `isconvergent`,
    /// `alignstack`, `unwind`; see [`ASM_EXTRA_NAMES`]), as LLVM's InlineAsm encodes them.
    pub asm_extra: u8,
    /// `srcloc !N`: INLINEASM's `!srcloc` metadata operand, by its MIR number.
    pub srcloc: Option<u32>,
    /// `mem "..."`: the memory operand MIR prints after `::`.
    pub mem: Option<String>,
    /// `flags "contract nsw"`: the node's flags, which the emitter copies onto its
    /// instruction as LLVM's InstrEmitter does (bits of [`crate::mir::MI_FLAG_NAMES`]).
    pub mi_flags: u16,
}

impl Attrs {
    /// The boolean properties other than `divergent`, each with its name in our syntax
    /// (none of them has a form in LLVM's dump).
    pub fn properties(&self) -> [(bool, &'static str); 5] {
        [
            (self.glue_consumer, "implicit-glue-consumer"),
            (self.tied, "tied"),
            (self.debug_value, "debug-value"),
            (self.inline_fold, "inline-fold"),
            (self.side_effect, "sideeffect"),
        ]
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeData {
    /// The `N` of `tN`.
    pub number: u32,
    pub block: DagBlock,
    pub types: Vec<Vt>,
    pub op: DagOp,
    pub operands: Vec<Operand>,
    pub attrs: Attrs,
}

impl NodeData {
    pub fn new(
        number: u32,
        block: DagBlock,
        types: Vec<Vt>,
        op: DagOp,
        operands: Vec<Operand>,
        attrs: Attrs,
    ) -> NodeData {
        NodeData {
            number,
            block,
            types,
            op,
            operands,
            attrs,
        }
    }
    /// Indices of the data results (not chain or glue).
    pub fn value_results(&self) -> impl Iterator<Item = usize> + '_ {
        self.types
            .iter()
            .enumerate()
            .filter(|(_, t)| t.is_value())
            .map(|(i, _)| i)
    }
    pub fn has_glue_result(&self) -> bool {
        self.types.contains(&Vt::Glue)
    }
    /// The glue operand (always the last operand when present), given the node table.
    pub fn glue_operand(&self, nodes: &PrimaryMap<Node, NodeData>) -> Option<Value> {
        let v = self.operands.last()?.value()?;
        (nodes[v.node].types.get(v.res as usize) == Some(&Vt::Glue)).then_some(v)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockData {
    /// The `N` of `%bb.N`.
    pub number: u32,
    /// The IR block name after the function name in the header (`'f:entry'`).
    pub name: Option<String>,
    /// The MIR block's parenthesised attributes after the header (`(%ir-block.4)`),
    /// kept verbatim: an unnamed IR block's number, alignment, ...
    pub attrs: Option<String>,
    /// The block's successors with their branch probabilities (`successors:` line),
    /// as the MIR block lists them. They come from the IR's CFG, not from the DAG, so
    /// the emitter reads them off the branches when the line is absent.
    pub succs: Option<Vec<(u32, Option<u32>)>>,
    /// The PHI instructions at the block's head (`PHI:i32 %5 = %3, %bb.0, %7, %bb.1`
    /// lines after the header): FunctionLoweringInfo creates them before any DAG is
    /// built, so they are not nodes; the DAG reads a PHI's register with CopyFromReg
    /// and feeds it with CopyToReg of the incoming registers in the predecessors.
    pub phis: Vec<Phi>,
    /// The nodes in schedule (line) order.
    pub schedule: Vec<Node>,
}

/// `PHI:ty %reg = %in0, %bb.A, %in1, %bb.B ...`: on entry from block A the register
/// takes the value of `%in0`, and so on; all PHIs of a block read their inputs before
/// any of them is written (LLVM's PHI semantics).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Phi {
    pub reg: u32,
    pub ty: Vt,
    pub class: Option<RegClass>,
    /// (incoming virtual register, predecessor block number), in the order written.
    pub incoming: Vec<(u32, u32)>,
}

/// A block's PHI lines (`  PHI:i32 %5 = %3, %bb.0, %7, %bb.1`), as both printers
/// write them after the header.
fn print_phis(b: &BlockData, out: &mut String) {
    use core::fmt::Write;
    let names = crate::entity::Interner::default();
    for p in &b.phis {
        let _ = write!(out, "  PHI:{} %{}", p.ty, p.reg);
        if let Some(c) = p.class {
            let _ = write!(out, ":{}", c.display(&names));
        }
        out.push_str(" =");
        for (k, (r, blk)) in p.incoming.iter().enumerate() {
            let _ = write!(out, "{} %{r}, %bb.{blk}", if k == 0 { "" } else { "," });
        }
        out.push('\n');
    }
}

/// Where each node and operand came from in the text; ignored by `==`.
#[derive(Clone, Debug, Default)]
pub struct Spans {
    pub nodes: SecondaryMap<Node, (u32, u32)>,
    pub operands: SecondaryMap<Node, Vec<(u32, u32)>>,
    pub blocks: SecondaryMap<DagBlock, (u32, u32)>,
    /// Line and column of each PHI line of a block.
    pub phis: SecondaryMap<DagBlock, Vec<(u32, u32)>>,
}

impl PartialEq for Spans {
    fn eq(&self, _: &Spans) -> bool {
        true
    }
}
impl Eq for Spans {}

/// A function's selected DAG, one per block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dag {
    pub name: String,
    pub blocks: PrimaryMap<DagBlock, BlockData>,
    pub nodes: PrimaryMap<Node, NodeData>,
    pub spans: Spans,
}

/// Every user of every node: (user, operand index), in schedule order of the users.
#[derive(Clone, Debug, Default)]
pub struct Users {
    pub of: SecondaryMap<Node, Vec<(Node, u16)>>,
}

impl Users {
    pub fn compute(dag: &Dag) -> Users {
        let mut u = Users::default();
        for b in dag.blocks.values() {
            for &n in &b.schedule {
                for (k, op) in dag.nodes[n].operands.iter().enumerate() {
                    if let Some(v) = op.value() {
                        u.of[v.node].push((n, k as u16));
                    }
                }
            }
        }
        u
    }

    /// Users of one result, with the operand index they read it through.
    pub fn of_value(&self, v: Value, dag: &Dag) -> Vec<(Node, u16)> {
        self.of[v.node]
            .iter()
            .copied()
            .filter(|&(u, k)| dag.nodes[u].operands[k as usize].value() == Some(v))
            .collect()
    }

    pub fn has_use(&self, v: Value, dag: &Dag) -> bool {
        !self.of_value(v, dag).is_empty()
    }

    /// The node glued after `n` (the user of its glue result), if any.
    pub fn glued_user(&self, n: Node, dag: &Dag) -> Option<Node> {
        let g = dag.nodes[n].types.iter().position(|&t| t == Vt::Glue)?;
        self.of_value(
            Value {
                node: n,
                res: g as u16,
            },
            dag,
        )
        .first()
        .map(|e| e.0)
    }
}

impl Dag {
    /// `tN` for a node.
    pub fn name_of(&self, n: Node) -> String {
        alloc::format!("t{}", self.nodes[n].number)
    }
    /// `tN` or `tN:k`.
    pub fn value_name(&self, v: Value) -> String {
        if v.res == 0 {
            self.name_of(v.node)
        } else {
            alloc::format!("t{}:{}", self.nodes[v.node].number, v.res)
        }
    }
    pub fn value_type(&self, v: Value) -> Vt {
        self.nodes[v.node].types[v.res as usize]
    }
    /// The node glued before `n` (its glue operand's producer), if any.
    pub fn glued_pred(&self, n: Node) -> Option<Node> {
        self.nodes[n].glue_operand(&self.nodes).map(|v| v.node)
    }
    /// Line and column of a node in the text it was parsed from (1:1 if built in code).
    pub fn pos(&self, n: Node) -> (u32, u32) {
        let p = self.spans.nodes[n];
        if p.0 == 0 {
            (1, 1)
        } else {
            p
        }
    }
    /// Line and column of operand `k` of `n`.
    pub fn operand_pos(&self, n: Node, k: usize) -> (u32, u32) {
        self.spans.operands[n]
            .get(k)
            .copied()
            .unwrap_or_else(|| self.pos(n))
    }
    /// Line and column of PHI `k` of block `b` (the block header's if built in code).
    pub fn phi_pos(&self, b: DagBlock, k: usize) -> (u32, u32) {
        let p = self.spans.phis[b]
            .get(k)
            .copied()
            .unwrap_or(self.spans.blocks[b]);
        (p.0.max(1), p.1.max(1))
    }
    /// Virtual registers the DAG names, with the class each mention gives (first wins).
    pub fn named_vregs(&self) -> alloc::collections::BTreeMap<u32, (Vt, Option<RegClass>)> {
        let mut m = alloc::collections::BTreeMap::new();
        for b in self.blocks.values() {
            for p in &b.phis {
                let e = m.entry(p.reg).or_insert((p.ty, p.class));
                if e.1.is_none() {
                    e.1 = p.class;
                }
                for &(r, _) in &p.incoming {
                    m.entry(r).or_insert((p.ty, None));
                }
            }
            for &n in &b.schedule {
                for op in &self.nodes[n].operands {
                    if let Operand::Reg {
                        ty,
                        reg: RegRef::Virt(v),
                        class,
                    } = op
                    {
                        let e = m.entry(*v).or_insert((*ty, *class));
                        if e.1.is_none() {
                            e.1 = *class;
                        }
                    }
                }
            }
        }
        m
    }
}
