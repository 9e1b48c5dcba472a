//! Lift: llc-22's instruction-selected MIR (`-stop-after=finalize-isel`) back into a
//! selected DAG per block, such that the emitter, run as llc-22's
//! ([`EmitterOptions::llc22`](crate::passes::instr_emitter::EmitterOptions::llc22)),
//! gives the MIR back.
//!
//! ```text
//!  per block, in layout order:          t0: ch = EntryToken
//!    %d = OP uses...       ──▶ machine node OP: defs → results (type from class + opcode),
//!                              vregs defined earlier in the block → values,
//!                              vregs from other blocks → CopyFromReg (one per block),
//!                              imm → Constant, fp imm → ConstantFP, &sym → ExternalSymbol,
//!                              @g → GlobalAddress, %bb.N → BasicBlock, %stack.N → FrameIndex,
//!                              `:: (...)` → mem, MI flags → flags; a node that loads,
//!                              stores, has side effects or ends the block is chained
//!                              in order (operand and `ch` result)
//!    %d used in another block ─▶ CopyToReg %d of the value (FunctionLoweringInfo's
//!                              pattern: the emitter writes the value straight into %d)
//!    %d = COPY %s            ─▶ CopyToReg %d where the COPY stands, when %d is read only
//!                              in other blocks and the value of %s is not copied into
//!                              %s itself by a CopyToReg of its own… else a COPY node
//!    %d = PHI %a, %bb.A, ... ─▶ the block's PHI line (FunctionLoweringInfo made it before
//!                              the DAG); %d read in a block → CopyFromReg %d there;
//!                              %a counts as read at the end of bb.A (a CopyToReg
//!                              where it is defined, as for any value leaving a block)
//!    %d = COPY $phys         ─▶ CopyFromReg $phys
//!    %d = IMPLICIT_DEF       ─▶ the block's one IMPLICIT_DEF node of %d's type (as
//!                              SelectionDAG's UNDEF: llc-22 made one instruction per use)
//!    INLINEASM &"t", x, w, def %d, w, %u, ...
//!                            ─▶ INLINEASM node: text, sideeffect (x = 1), per flag word
//!                              w a constraint ("=r", "=&r", "r", "0", "i") and its
//!                              operand: def → Register %d, then CopyFromReg %d for its
//!                              readers; use → the value of %u
//!    LIFETIME_START %stack.N ─▶ the ISD node (chain, FrameIndex), chained in order
//!    the first terminator    ─▶ chained on a TokenFactor of the chain and every
//!                              CopyToReg before it
//! ```
//!
//! Value types: the llc-22 classes say only the width (`b32`), so the type is read off
//! the opcode that defines the register: `f32`/`F32` in its name makes a `b32` value
//! `f32`, `f16x2` makes it `v2f16`, `f64` a `b64` value `f64`, `f16` a `b16` value
//! `f16`; everything else is the integer of the width. CopyScope's choice: the emitter
//! needs only the width, the evaluator reads the opcode.
//!
//! Not lifted (an error naming the construct): PHIs that are not all at the block's
//! head or read a sub-register, inline asm in the Intel dialect or with 128-bit
//! operands, opcodes outside the instruction description (`mir/nvptx.isa`, the one
//! table the DAG's machine nodes use), sub-register operands, implicit or
//! physical-register operands, tied or undef operands (inline asm aside), `bfloat` immediates, fixed stack
//! slots, operands kept verbatim, other targets.

use super::{
    Attrs, BlockData, Dag, DagBlock, DagOp, Node, NodeData, Operand, Phi, RegRef, Spans, Value, Vt,
    ASM_EXTRA_NAMES,
};
use crate::entity::{EntityRef, PrimaryMap, SecondaryMap};
use crate::mir::operand::Sigil;
use crate::mir::{
    self, flag, oflag, Block, Function, Inst, Op, Opcode, OperandKind, Reg, RegClass, Target, VReg,
};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

/// Why a function was not lifted: `reason` is the construct's kind (a short, stable
/// phrase the agreement table counts by), `detail` names the instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiftError {
    pub reason: &'static str,
    pub detail: String,
}

impl fmt::Display for LiftError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not lifted: {}: {}", self.reason, self.detail)
    }
}

fn fail<T>(reason: &'static str, detail: String) -> Result<T, LiftError> {
    Err(LiftError { reason, detail })
}

/// Lifts one function of llc-22's isel MIR into a DAG (see the module notes).
pub fn lift(f: &Function) -> Result<Dag, LiftError> {
    if f.target != Target::Nvptx {
        return fail("not NVPTX", format!("`{}` is another target's", f.name));
    }
    let mut l = Lifter::new(f)?;
    for b in f.layout.blocks() {
        l.block(b)?;
    }
    Ok(Dag {
        name: f.name.clone(),
        blocks: l.blocks,
        nodes: l.nodes,
        spans: Spans::default(),
    })
}

/// Drops each `Register` leaf's class where it is the one llc-22 gives its type
/// ([`super::target::llc22_class`]), which the emitter then chooses itself when it runs
/// as llc-22's: what LLVM's dump, which prints no classes, needs.
pub fn strip_llc22_classes(dag: &mut Dag) {
    for n in dag.nodes.values_mut() {
        for o in &mut n.operands {
            if let Operand::Reg { ty, class, .. } = o {
                if *class == super::target::llc22_class(*ty) {
                    *class = None;
                }
            }
        }
    }
}

struct Lifter<'f> {
    f: &'f Function,
    /// The block defining each virtual register.
    def_block: SecondaryMap<VReg, Option<Block>>,
    /// Read in a block other than its defining one.
    live_out: SecondaryMap<VReg, bool>,
    /// Read in its defining block (by anything).
    read_in_block: SecondaryMap<VReg, bool>,
    /// The value type of each register (see the module notes).
    vt: SecondaryMap<VReg, Option<Vt>>,
    blocks: PrimaryMap<DagBlock, BlockData>,
    nodes: PrimaryMap<Node, NodeData>,
    // Per block:
    cur: Option<DagBlock>,
    entry: Option<Value>,
    chain: Option<Value>,
    local: BTreeMap<VReg, Value>,
    from_reg: BTreeMap<VReg, Value>,
    copies_to_reg: Vec<Value>,
    /// The block's IMPLICIT_DEF node of each type (SelectionDAG keeps one UNDEF per
    /// type; llc-22's emitter makes an IMPLICIT_DEF instruction per use of it).
    undef: BTreeMap<Vt, Value>,
}

impl<'f> Lifter<'f> {
    fn new(f: &'f Function) -> Result<Self, LiftError> {
        let mut l = Lifter {
            f,
            def_block: SecondaryMap::new(),
            live_out: SecondaryMap::new(),
            read_in_block: SecondaryMap::new(),
            vt: SecondaryMap::new(),
            blocks: PrimaryMap::new(),
            nodes: PrimaryMap::new(),
            cur: None,
            entry: None,
            chain: None,
            local: BTreeMap::new(),
            from_reg: BTreeMap::new(),
            copies_to_reg: Vec::new(),
            undef: BTreeMap::new(),
        };
        let mut phi_defs: Vec<VReg> = Vec::new();
        for b in f.layout.blocks() {
            let mut head = true;
            for i in f.layout.block_insts(b) {
                let d = &f.insts[i];
                let phi = d.is(Op::PHI);
                if phi && !head {
                    return fail(
                        "PHI",
                        format!(
                            "bb.{} has a PHI after another instruction",
                            f.blocks[b].number
                        ),
                    );
                }
                head &= phi;
                for (_, v) in d.vreg_defs() {
                    if l.def_block[v].is_some() || phi_defs.contains(&v) {
                        return fail("not SSA", format!("%{} has two defs", v.index()));
                    }
                    if phi {
                        // Defined before the DAG: every read is a CopyFromReg.
                        phi_defs.push(v);
                    } else {
                        l.def_block[v] = Some(b);
                    }
                    l.vt[v] = Some(value_type(f, v, d)?);
                }
            }
        }
        l.float_uses();
        for (b, i) in f.all_insts() {
            let phi = f.insts[i].is(Op::PHI);
            for (_, v) in f.insts[i].vreg_uses() {
                match l.def_block[v] {
                    // A PHI reads its input at the end of the predecessor.
                    Some(db) if db == b && !phi => l.read_in_block[v] = true,
                    _ => l.live_out[v] = true,
                }
            }
        }
        Ok(l)
    }

    /// A width-typed value read where the opcode table wants a float register
    /// (`FADD_rnf32rr` reading what `LD_i32` loaded) is that float type.
    fn float_uses(&mut self) {
        let f = self.f;
        for (_, i) in f.all_insts() {
            let d = &f.insts[i];
            let Opcode::Known(op) = d.opcode else {
                continue;
            };
            let info = super::target::instr_info(op);
            for (pos, o) in d.operands[d.lhs_defs as usize..].iter().enumerate() {
                let (Some(v), Some(c)) = (o.vreg_of(), info.use_class(pos)) else {
                    continue;
                };
                if super::target::kind_of(c) != Some(crate::mir::ValueKind::Float) {
                    continue;
                }
                self.vt[v] = match self.vt[v] {
                    Some(Vt::I16) => Some(Vt::F16),
                    Some(Vt::I32) if c.family() == Some(crate::mir::Family::B32) => {
                        Some(if super::target::typed_class(Vt::V2F16) == Some(c) {
                            Vt::V2F16
                        } else {
                            Vt::F32
                        })
                    }
                    Some(Vt::I64) => Some(Vt::F64),
                    t => t,
                };
            }
        }
    }

    fn add(&mut self, types: Vec<Vt>, op: DagOp, operands: Vec<Operand>, attrs: Attrs) -> Node {
        let block = self.cur.expect("in a block");
        let number = self.nodes.len() as u32;
        let n = self
            .nodes
            .push(NodeData::new(number, block, types, op, operands, attrs));
        self.blocks[block].schedule.push(n);
        n
    }

    fn block(&mut self, b: Block) -> Result<(), LiftError> {
        let f = self.f;
        let bd = &f.blocks[b];
        let cur = self.blocks.push(BlockData {
            number: bd.number,
            name: bd.name.map(|s| f.sym(s).to_string()),
            attrs: bd.attrs.map(|s| f.sym(s).to_string()),
            succs: (!bd.succs.is_empty()).then(|| {
                bd.succs
                    .iter()
                    .map(|&(s, p)| (f.blocks[s].number, p))
                    .collect()
            }),
            phis: Vec::new(),
            schedule: Vec::new(),
        });
        self.cur = Some(cur);
        self.local.clear();
        self.from_reg.clear();
        self.copies_to_reg.clear();
        self.undef.clear();
        let entry = self.add(vec![Vt::Ch], DagOp::EntryToken, vec![], Attrs::default());
        self.entry = Some(Value {
            node: entry,
            res: 0,
        });
        self.chain = self.entry;
        if !bd.liveins.is_empty() {
            return fail(
                "block live-ins",
                format!("bb.{} has live-in registers", bd.number),
            );
        }
        for i in f.layout.block_insts(b) {
            if f.insts[i].is(Op::PHI) {
                let phi = self.phi(i)?;
                self.blocks[cur].phis.push(phi);
            } else {
                self.inst(i)?;
            }
        }
        Ok(())
    }

    /// `%d = PHI %a, %bb.A, ...` as the block's PHI line.
    fn phi(&self, i: Inst) -> Result<Phi, LiftError> {
        let f = self.f;
        let d = &f.insts[i];
        let bad = || {
            fail(
                "PHI",
                String::from("a PHI that is not `%d = PHI %a, %bb.A, ...` of whole registers"),
            )
        };
        let Some((def, rest)) = d.operands.split_first() else {
            return bad();
        };
        let reg = self.plain_vreg(def, Op::PHI)?;
        let mut incoming = Vec::new();
        for pair in rest.chunks(2) {
            let [r, b] = pair else { return bad() };
            let (Some(Reg::Virt(v)), OperandKind::Block(blk)) = (r.get_reg(), &b.kind) else {
                return bad();
            };
            if r.subreg.is_some() || r.has(oflag::UNDEF) {
                return bad();
            }
            incoming.push((v.index() as u32, f.blocks[*blk].number));
        }
        Ok(Phi {
            reg: reg.index() as u32,
            ty: self.vt[reg].expect("every def has a type"),
            class: f.vreg_class(reg),
            incoming,
        })
    }

    fn inst(&mut self, i: Inst) -> Result<(), LiftError> {
        let d = &self.f.insts[i];
        let op = match d.opcode {
            Opcode::Known(op) => op,
            Opcode::Other(s) => return fail("opcode not in the table", self.f.sym(s).to_string()),
        };
        if d.trailing.is_some() {
            return fail(
                "trailing instruction text",
                format!("{} carries text after its operands", op.name()),
            );
        }
        match op {
            Op::INLINEASM => return self.inline_asm(i),
            Op::COPY => return self.copy(i),
            Op::LIFETIME_START | Op::LIFETIME_END => return self.lifetime(i, op),
            _ => {}
        }
        if !matches!(DagOp::by_name(op.name()), Some(DagOp::Machine(_))) {
            return fail("pseudo with no DAG node", String::from(op.name()));
        }
        self.machine(i, op)
    }

    /// `LIFETIME_START %stack.N` (or `_END`): the ISD node, chain first, then the
    /// frame index (the shape SelectionDAG builds and our format checks).
    fn lifetime(&mut self, i: Inst, op: Op) -> Result<(), LiftError> {
        let d = &self.f.insts[i];
        let index = match d.operands.as_slice() {
            [o] => match o.kind {
                OperandKind::Stack {
                    fixed: false,
                    index,
                } => index,
                _ => {
                    return fail(
                        "operand kept verbatim",
                        format!("{} of a fixed slot", op.name()),
                    )
                }
            },
            _ => return fail("pseudo with no DAG node", format!("{} shape", op.name())),
        };
        let dop = if op == Op::LIFETIME_START {
            DagOp::LifetimeStart
        } else {
            DagOp::LifetimeEnd
        };
        let ch = self.chain.expect("in a block");
        let n = self.add(
            vec![Vt::Ch],
            dop,
            vec![Operand::Value(ch), Operand::FrameIndex(index)],
            Attrs::default(),
        );
        self.chain = Some(Value { node: n, res: 0 });
        Ok(())
    }

    /// A generic machine instruction.
    fn machine(&mut self, i: Inst, op: Op) -> Result<(), LiftError> {
        let f = self.f;
        let d = &f.insts[i];
        if op == Op::IMPLICIT_DEF && d.operands.len() == 1 && d.lhs_defs == 1 {
            let v = self.plain_vreg(&d.operands[0], op)?;
            let ty = self.vt[v].expect("every def has a type");
            if let Some(&value) = self.undef.get(&ty) {
                self.define(v, value);
                return Ok(());
            }
        }
        let mut types = Vec::new();
        let mut defs = Vec::new();
        for o in &d.operands[..d.lhs_defs as usize] {
            let v = self.plain_vreg(o, op)?;
            if o.has(oflag::DEAD) {
                return fail("dead def", format!("{} marks a def dead", op.name()));
            }
            types.push(self.vt[v].expect("every def has a type"));
            defs.push(v);
        }
        let mut operands = Vec::new();
        for o in &d.operands[d.lhs_defs as usize..] {
            operands.push(self.use_operand(o, op)?);
        }
        let desc = op.desc();
        let chained = d.mem.is_some()
            || desc.has(
                flag::MAY_LOAD
                    | flag::MAY_STORE
                    | flag::SIDE_EFFECTS
                    | flag::TERMINATOR
                    | flag::CONVERGENT,
            );
        if chained {
            let mut ch = self.chain.expect("in a block");
            if desc.has(flag::TERMINATOR) && !self.copies_to_reg.is_empty() {
                let mut joined = vec![Operand::Value(ch)];
                joined.extend(self.copies_to_reg.drain(..).map(Operand::Value));
                let tf = self.add(vec![Vt::Ch], DagOp::TokenFactor, joined, Attrs::default());
                ch = Value { node: tf, res: 0 };
            }
            operands.push(Operand::Value(ch));
            types.push(Vt::Ch);
        }
        let attrs = Attrs {
            mem: d.mem.map(|m| f.sym(m).to_string()),
            mi_flags: d.mi_flags,
            ..Attrs::default()
        };
        let n = self.add(types, DagOp::Machine(op), operands, attrs);
        if op == Op::I32toV2I16 {
            self.merged_extracts(n);
        }
        if op == Op::IMPLICIT_DEF {
            if let Some(&t) = self.nodes[n].types.first() {
                self.undef.insert(t, Value { node: n, res: 0 });
            }
        }
        if chained {
            let res = (self.nodes[n].types.len() - 1) as u16;
            self.chain = Some(Value { node: n, res });
        }
        for (k, v) in defs.into_iter().enumerate() {
            let value = Value {
                node: n,
                res: k as u16,
            };
            self.define(v, value);
        }
        Ok(())
    }

    /// The two `extract_vector_elt` nodes an `I32toV2I16` replaced. NVPTX makes that
    /// split only where both lanes of a 16x2 vector are extracted
    /// (`tryEXTRACT_VECTOR_ELEMENT`), and it moves the extractions' users to the split
    /// without deleting them: they stay in the DAG, dead, reading the vector, so the
    /// vector has more than one use and llc-22 does not kill it at the split.
    fn merged_extracts(&mut self, split: Node) {
        let Some(Operand::Value(vector)) = self.nodes[split].operands.first().cloned() else {
            return;
        };
        for lane in 0..2 {
            let ty = self.nodes[split].types[lane];
            let index = Operand::Const {
                ty: Vt::I64,
                value: lane as i64,
            };
            let ops = vec![Operand::Value(vector), index];
            self.add(vec![ty], DagOp::ExtractVectorElt, ops, Attrs::default());
        }
    }

    /// `INLINEASM &"text", extra, (flag word, operand)...` as the DAG's INLINEASM node
    /// (InstrEmitter::EmitSpecialNode's input): the text, then per flag word its
    /// constraint string and operand. A def is the `Register` the asm writes, read
    /// afterwards through a CopyFromReg of it (the emitter maps that to the register
    /// itself, no copy); a use, tied or not, is the value it reads.
    fn inline_asm(&mut self, i: Inst) -> Result<(), LiftError> {
        let d = &self.f.insts[i];
        let asm_fail = |detail: &str| fail("inline asm", format!("INLINEASM {detail}"));
        let (Some(text), Some(extra)) = (d.operands.first(), d.operands.get(1)) else {
            return asm_fail("without text and extra-info word");
        };
        let text = match text.kind {
            OperandKind::Global {
                sym,
                sigil: Sigil::AmpQuoted,
                offset: 0,
            } => super::llvm_unescape(self.f.sym(sym)),
            _ => return asm_fail("text is not `&\"...\"`"),
        };
        // Extra-info bits: sideeffect (1), then mayload, maystore, isconvergent,
        // alignstack, unwind; bit 4 (the Intel dialect) has no NVPTX form.
        let known = ASM_EXTRA_NAMES.iter().fold(1i64, |m, e| m | i64::from(e.0));
        let extra_word = match extra.kind {
            OperandKind::Imm(w) if w >= 0 && w & !known == 0 => w,
            _ => return asm_fail("extra-info word with the Intel dialect or unknown bits"),
        };
        let mut operands = vec![
            Operand::Value(self.chain.expect("in a block")),
            Operand::Str(text),
        ];
        let mut outputs: Vec<VReg> = Vec::new();
        let mut body = &d.operands[2..];
        let mut srcloc = None;
        if let Some((last, init)) = body.split_last() {
            if let OperandKind::Verbatim(m) = last.kind {
                let Some(k) = self.f.sym(m).strip_prefix('!').and_then(|k| k.parse().ok()) else {
                    return asm_fail("trailing operand that is not `!N` metadata");
                };
                srcloc = Some(k);
                body = init;
            }
        }
        let mut rest = body.iter();
        while let Some(w) = rest.next() {
            let (OperandKind::Imm(word), Some(o)) = (w.kind, rest.next()) else {
                return asm_fail("operand that is not a flag word and its operand (metadata, ...)");
            };
            let word = word as u64;
            if (word >> 3) & 0x1fff != 1 {
                return asm_fail("flag word with more than one operand");
            }
            let kind = word & 7;
            let field = (word >> 16) & 0x7fff;
            let tied = word & (1 << 31) != 0;
            let letter = match field {
                1 => 'b',
                2 => 'h',
                4 => 'r',
                6 => 'l',
                _ if tied || kind == 5 => 'r',
                _ => return asm_fail("operand of a register class without a constraint letter"),
            };
            let constraint = match (kind, tied) {
                (2, _) => format!("={letter}"),
                (3, _) => format!("=&{letter}"),
                (1, false) => format!("{letter}"),
                (1, true) => format!("{field}"),
                (5, _) => String::from("i"),
                _ => return asm_fail("flag word of an unsupported kind (memory, clobber, ...)"),
            };
            operands.push(Operand::Str(constraint));
            operands.push(self.asm_operand(o, kind, &mut outputs)?);
        }
        let attrs = Attrs {
            side_effect: extra_word & 1 != 0,
            asm_extra: (extra_word & !1) as u8,
            srcloc,
            ..Attrs::default()
        };
        let n = self.add(vec![Vt::Ch], DagOp::InlineAsm, operands, attrs);
        let ch = Value { node: n, res: 0 };
        self.chain = Some(ch);
        for v in outputs {
            let ty = self.vt[v].expect("every def has a type");
            let reg = self.reg_leaf(v);
            let r = self.add(
                vec![ty, Vt::Ch],
                DagOp::CopyFromReg,
                vec![Operand::Value(ch), reg],
                Attrs::default(),
            );
            // Read in other blocks straight from the register the asm wrote.
            self.local.insert(v, Value { node: r, res: 0 });
        }
        Ok(())
    }

    /// One asm operand: a def's `Register`, a use's value, an immediate.
    fn asm_operand(
        &mut self,
        o: &mir::Operand,
        kind: u64,
        outputs: &mut Vec<VReg>,
    ) -> Result<Operand, LiftError> {
        let bad = |what: &str| fail("inline asm", format!("INLINEASM {what}"));
        if o.subreg.is_some() || o.has(oflag::IMPLICIT) || o.has(oflag::UNDEF) || o.has(oflag::DEAD)
        {
            return bad("operand with a sub-register, implicit, undef or dead flag");
        }
        match (kind, o.kind) {
            (2 | 3, OperandKind::Reg(Reg::Virt(v))) if o.has(oflag::DEF) => {
                if (kind == 3) != o.has(oflag::EARLY_CLOBBER) {
                    return bad("early-clobber flag that disagrees with its flag word");
                }
                outputs.push(v);
                Ok(self.reg_leaf(v))
            }
            (1, OperandKind::Reg(Reg::Virt(v))) if !o.has(oflag::DEF) => {
                Ok(Operand::Value(match self.local.get(&v) {
                    Some(&x) => x,
                    None => self.copy_from_reg(v),
                }))
            }
            (5, OperandKind::Imm(value)) => Ok(Operand::Const { ty: Vt::I32, value }),
            _ => bad("operand that does not fit its flag word"),
        }
    }

    /// `CopyToReg %v, value`, chained on the entry token, joined before the terminator.
    fn copy_to_reg(&mut self, v: VReg, value: Value) {
        let reg = self.reg_leaf(v);
        let entry = self.entry.expect("in a block");
        let n = self.add(
            vec![Vt::Ch],
            DagOp::CopyToReg,
            vec![Operand::Value(entry), reg, Operand::Value(value)],
            Attrs::default(),
        );
        self.copies_to_reg.push(Value { node: n, res: 0 });
    }

    /// `%d = COPY src` (see the module notes for which node it becomes).
    fn copy(&mut self, i: Inst) -> Result<(), LiftError> {
        let d = &self.f.insts[i];
        if d.operands.len() != 2 || d.lhs_defs != 1 {
            return fail(
                "COPY shape",
                String::from("a COPY without one def and one use"),
            );
        }
        let dst = self.plain_vreg(&d.operands[0], Op::COPY)?;
        let src = &d.operands[1];
        if src.subreg.is_some() || src.has(oflag::UNDEF) || src.has(oflag::IMPLICIT) {
            return fail(
                "sub-register or undef operand",
                String::from("a COPY of part of a register"),
            );
        }
        let ty = self.vt[dst].expect("typed");
        match src.get_reg() {
            Some(Reg::Phys(p)) => {
                let name = self.f.sym(p).to_string();
                let entry = self.entry.expect("in a block");
                let n = self.add(
                    vec![ty, Vt::Ch],
                    DagOp::CopyFromReg,
                    vec![
                        Operand::Value(entry),
                        Operand::Reg {
                            ty,
                            reg: RegRef::Phys(name),
                            class: None,
                        },
                    ],
                    Attrs::default(),
                );
                self.define(dst, Value { node: n, res: 0 });
                Ok(())
            }
            Some(Reg::Virt(s)) => {
                let (value, own_copy) = match self.local.get(&s) {
                    Some(&v) => (v, self.live_out[s]),
                    None => (self.copy_from_reg(s), true),
                };
                if self.live_out[dst] && !self.read_in_block[dst] && own_copy {
                    // The value already sits in a register of its own: the COPY is the
                    // CopyToReg's.
                    self.copy_to_reg(dst, value);
                    return Ok(());
                }
                let n = self.add(
                    vec![ty],
                    DagOp::Machine(Op::COPY),
                    vec![Operand::Value(value)],
                    Attrs::default(),
                );
                self.define(dst, Value { node: n, res: 0 });
                Ok(())
            }
            _ => fail("COPY shape", String::from("a COPY of a non-register")),
        }
    }

    /// `v` is `value` from here on in this block, and is copied to its register when
    /// other blocks read it.
    fn define(&mut self, v: VReg, value: Value) {
        self.local.insert(v, value);
        if self.live_out[v] {
            self.copy_to_reg(v, value);
        }
    }

    /// The value of a register defined in another block: its block's CopyFromReg.
    fn copy_from_reg(&mut self, v: VReg) -> Value {
        if let Some(&x) = self.from_reg.get(&v) {
            return x;
        }
        let ty = self.vt[v].unwrap_or(Vt::I32);
        let reg = self.reg_leaf(v);
        let entry = self.entry.expect("in a block");
        let n = self.add(
            vec![ty, Vt::Ch],
            DagOp::CopyFromReg,
            vec![Operand::Value(entry), reg],
            Attrs::default(),
        );
        let x = Value { node: n, res: 0 };
        self.from_reg.insert(v, x);
        x
    }

    fn reg_leaf(&self, v: VReg) -> Operand {
        Operand::Reg {
            ty: self.vt[v].unwrap_or(Vt::I32),
            reg: RegRef::Virt(v.index() as u32),
            class: self.f.vreg_class(v),
        }
    }

    /// A def or COPY operand that must be a whole virtual register, no flags besides
    /// `def`/`dead`/`killed`.
    fn plain_vreg(&self, o: &mir::Operand, op: Op) -> Result<VReg, LiftError> {
        let Some(Reg::Virt(v)) = o.get_reg() else {
            return fail(
                "physical register def",
                format!("{} writes a physical register", op.name()),
            );
        };
        if o.subreg.is_some() || o.has(oflag::IMPLICIT) || o.has(oflag::EARLY_CLOBBER) {
            return fail(
                "sub-register or implicit operand",
                format!("{} defines part of a register or implicitly", op.name()),
            );
        }
        Ok(v)
    }

    /// A use operand of a machine instruction as a DAG operand.
    fn use_operand(&mut self, o: &mir::Operand, op: Op) -> Result<Operand, LiftError> {
        let f = self.f;
        let name = op.name();
        if o.subreg.is_some() || o.tied_def.is_some() {
            return fail(
                "sub-register or tied operand",
                format!("{name} reads part of a register or a tied one"),
            );
        }
        Ok(match o.kind {
            OperandKind::Reg(r) => {
                if o.has(oflag::IMPLICIT) || o.has(oflag::UNDEF) || o.has(oflag::DEF) {
                    return fail(
                        "implicit or undef operand",
                        format!("{name} has an implicit, undef or late def operand"),
                    );
                }
                match r {
                    Reg::Virt(v) => match self.local.get(&v) {
                        Some(&x) => Operand::Value(x),
                        None => Operand::Value(self.copy_from_reg(v)),
                    },
                    _ => {
                        return fail(
                            "physical register operand",
                            format!("{name} reads a physical register"),
                        )
                    }
                }
            }
            OperandKind::Imm(v) => Operand::Const {
                ty: if (-(1i64 << 31)..(1i64 << 32)).contains(&v) {
                    Vt::I32
                } else {
                    Vt::I64
                },
                value: v,
            },
            OperandKind::FpImm(fp) => {
                let ty = match f.sym(fp.ty) {
                    "half" => Vt::F16,
                    "float" => Vt::F32,
                    "double" => Vt::F64,
                    other => {
                        return fail(
                            "bfloat immediate",
                            format!("{name} has a `{other}` immediate"),
                        )
                    }
                };
                Operand::ConstFp {
                    ty,
                    text: f.sym(fp.text).to_string(),
                }
            }
            OperandKind::Global { sym, sigil, offset } => match sigil {
                Sigil::Amp if offset == 0 => Operand::Symbol(f.sym(sym).to_string()),
                Sigil::At | Sigil::AtQuoted => Operand::Global {
                    name: f.sym(sym).to_string(),
                    offset,
                },
                _ => {
                    return fail(
                        "symbol operand",
                        format!("{name} has a quoted or offset external symbol"),
                    )
                }
            },
            OperandKind::Block(b) => Operand::Block(f.blocks[b].number),
            OperandKind::Stack {
                fixed: false,
                index,
            } => Operand::FrameIndex(index),
            OperandKind::SubRegIdx(s) => match s.lane() {
                Some(l) => Operand::SubReg(l),
                None => {
                    return fail(
                        "sub-register operand",
                        format!("{name} names a sub-register index"),
                    )
                }
            },
            _ => {
                return fail(
                    "operand kept verbatim",
                    format!("{name} has a fixed-stack, metadata or symbol operand"),
                )
            }
        })
    }
}

/// The type of register `v`, defined by `def` (see the module notes).
fn value_type(f: &Function, v: VReg, def: &mir::InstData) -> Result<Vt, LiftError> {
    let class = f.vreg_class(v);
    let Some(RegClass::Scalar(sc)) = class else {
        return fail(
            "register class",
            format!("%{} has no scalar NVPTX class", v.index()),
        );
    };
    let name = match def.opcode {
        Opcode::Known(op) => op.name(),
        Opcode::Other(_) => "",
    };
    let has = |p: &[&str]| p.iter().any(|x| name.contains(x));
    if !sc.is_untyped() {
        if let Some(t) = super::VT_NAMES
            .iter()
            .map(|e| e.0)
            .find(|&t| super::target::typed_class(t) == class)
        {
            return Ok(t);
        }
    }
    use crate::mir::Family;
    Ok(match sc.family() {
        Family::B1 => Vt::I1,
        Family::B16 if has(&["f16", "F16"]) => Vt::F16,
        Family::B16 => Vt::I16,
        Family::B32 if has(&["f16x2", "F16x2", "f16X2"]) => Vt::V2F16,
        Family::B32 if has(&["f32", "F32"]) => Vt::F32,
        Family::B32 => Vt::I32,
        Family::B64 if has(&["f64", "F64"]) => Vt::F64,
        Family::B64 => Vt::I64,
        Family::B128 => Vt::I128,
    })
}
