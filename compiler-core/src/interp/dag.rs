//! Evaluating a DAG for one thread: the reference the emitted machine code is checked
//! against (same inputs → same stores).
//!
//! ```text
//!  block = entry
//!  loop: PHIs of block ─▶ all read the input of the edge taken, then all write
//!        for node in schedule(block):  value of every result, from its operands
//!          CopyToReg / CopyFromReg ─▶ write / read the register file (%N and $name)
//!          INLINEASM ─▶ semantics::exec_asm over its operand slots
//!          GOTO / CBranch / Return ─▶ next block, or done
//!          machine opcode ─▶ semantics::exec
//!        no terminator ─▶ fall through to the next block in file order
//! ```
//!
//! The observable outcome is the list of stores in program order.

pub mod semantics;

use crate::dag::{
    asm_groups, AsmConstraint, Dag, DagBlock, DagOp, Node, NodeData, Operand, RegRef, Vt,
};
use semantics::{exec, exec_asm, Arg, Lanes, Mem};
use crate::entity::SecondaryMap;
use crate::mir::Op;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// What a run starts from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// Kernel parameters by symbol (`&k_param_0` in MIR, `ExternalSymbol:'k_param_0'`).
    pub params: BTreeMap<String, u64>,
    /// Values of the parameter registers `$r1..$r255`, by number.
    pub param_regs: BTreeMap<u32, u64>,
    /// Initial memory, byte by byte.
    pub memory: BTreeMap<u64, u8>,
}

/// One store the program made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Store {
    pub addr: u64,
    pub bits: u32,
    pub value: u64,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub stores: Vec<Store>,
}

/// Nodes evaluated before a run is declared endless.
pub const STEP_LIMIT: u64 = 1_000_000;

/// The PHIs at the head of `block`, entered from `prev`: every input is read before
/// any PHI register is written (a swap through two PHIs reads the old values).
fn enter_phis(
    dag: &Dag,
    block: DagBlock,
    prev: Option<DagBlock>,
    vregs: &mut BTreeMap<u32, Lanes>,
) -> Result<(), String> {
    let phis = &dag.blocks[block].phis;
    if phis.is_empty() {
        return Ok(());
    }
    let bb = dag.blocks[block].number;
    let Some(prev) = prev else {
        return Err(format!("%bb.{bb} has PHIs but the run starts there"));
    };
    let from = dag.blocks[prev].number;
    let mut new = Vec::with_capacity(phis.len());
    for p in phis {
        let Some(&(r, _)) = p.incoming.iter().find(|i| i.1 == from) else {
            return Err(format!(
                "the PHI of %{} in %bb.{bb} has no value for the edge from %bb.{from}",
                p.reg
            ));
        };
        let v = vregs
            .get(&r)
            .cloned()
            .ok_or_else(|| format!("%{r} is read by a PHI of %bb.{bb} before it is written"))?;
        new.push((p.reg, v));
    }
    vregs.extend(new);
    Ok(())
}

/// The thread's state while a DAG runs: memory, the register file (virtual `%N` and
/// physical `$name` registers) and the value of every result evaluated so far.
struct Thread<'a> {
    dag: &'a Dag,
    mem: Mem<'a>,
    vregs: BTreeMap<u32, Lanes>,
    phys: BTreeMap<String, Lanes>,
    values: SecondaryMap<Node, Vec<Lanes>>,
}

/// Where control goes after a node.
enum Flow {
    Next,
    Jump(DagBlock),
    Return,
}

/// Runs `dag` from its first block.
pub fn run(dag: &Dag, inputs: &Inputs) -> Result<Outcome, String> {
    let order: Vec<DagBlock> = dag.blocks.keys().collect();
    let Some(&first) = order.first() else {
        return Ok(Outcome::default());
    };
    let mut t = Thread::new(dag, inputs);
    let (mut block, mut prev, mut steps) = (first, None, 0u64);
    loop {
        enter_phis(dag, block, prev, &mut t.vregs)?;
        prev = Some(block);
        // No terminator: fall through to the next block in file order.
        let mut next: Option<DagBlock> = order
            .iter()
            .position(|&b| b == block)
            .and_then(|i| order.get(i + 1).copied());
        for &n in &dag.blocks[block].schedule {
            steps += 1;
            if steps > STEP_LIMIT {
                return Err(format!(
                    "stopped after {STEP_LIMIT} nodes: the program does not end"
                ));
            }
            match t.node(n)? {
                Flow::Next => {}
                Flow::Jump(b) => {
                    next = Some(b);
                    break;
                }
                Flow::Return => {
                    return Ok(Outcome {
                        stores: t.mem.stores,
                    })
                }
            }
        }
        match next {
            Some(b) => block = b,
            None => {
                return Ok(Outcome {
                    stores: t.mem.stores,
                })
            }
        }
    }
}

impl<'a> Thread<'a> {
    fn new(dag: &'a Dag, inputs: &'a Inputs) -> Self {
        Thread {
            dag,
            mem: Mem::new(inputs),
            vregs: BTreeMap::new(),
            phys: inputs
                .param_regs
                .iter()
                .map(|(&n, &v)| (format!("r{n}"), vec![v]))
                .collect(),
            values: SecondaryMap::new(),
        }
    }

    /// Evaluates one node: the value of each of its results, or where control goes.
    fn node(&mut self, n: Node) -> Result<Flow, String> {
        let dag = self.dag;
        let d = &dag.nodes[n];
        let mut results: Vec<Lanes> = d.types.iter().map(|_| Vec::new()).collect();
        match d.op {
            DagOp::EntryToken
            | DagOp::TokenFactor
            | DagOp::EhLabel
            | DagOp::LifetimeStart
            | DagOp::LifetimeEnd
            | DagOp::PseudoProbe
            // Dead, never read (the parser checks): nothing to compute.
            | DagOp::ExtractVectorElt => {}
            DagOp::CopyToReg => {
                let v = self.val(d, 2)?;
                write_reg(&d.operands[1], v, &mut self.vregs, &mut self.phys)
                    .map_err(|_| String::from("CopyToReg without a register"))?;
            }
            DagOp::CopyFromReg => {
                results[0] = read_reg(&d.operands[1], &self.vregs, &self.phys)?;
            }
            DagOp::InlineAsm => self.inline_asm(d)?,
            DagOp::Machine(Op::Return) => return Ok(Flow::Return),
            DagOp::Machine(Op::GOTO) => {
                return Ok(Flow::Jump(block_by_number(dag, &d.operands)?));
            }
            DagOp::Machine(Op::CBranch) | DagOp::Machine(Op::CBranchOther) => {
                if self.val(d, 0)?.first().is_some_and(|&b| b & 1 == 1) {
                    return Ok(Flow::Jump(block_by_number(dag, &d.operands)?));
                }
            }
            DagOp::Machine(Op::REG_SEQUENCE) => results[0] = self.reg_sequence(d)?,
            DagOp::Machine(op) => self.machine(d, op, &mut results)?,
        }
        self.values[n] = results;
        Ok(Flow::Next)
    }

    /// The value operand `k` of `d` reads.
    fn val(&self, d: &NodeData, k: usize) -> Result<Lanes, String> {
        let v = d.operands[k].value().ok_or("not a value")?;
        self.values[v.node]
            .get(v.res as usize)
            .cloned()
            .ok_or_else(|| format!("{} has no value", self.dag.value_name(v)))
    }

    /// The first word of an inline asm operand: a value, a constant or a register.
    fn asm_operand(&self, o: &Operand) -> Result<u64, String> {
        Ok(match o {
            Operand::Value(v) => self.values[v.node][v.res as usize]
                .first()
                .copied()
                .unwrap_or(0),
            Operand::Const { value, .. } => *value as u64,
            r => read_reg(r, &self.vregs, &self.phys)?
                .first()
                .copied()
                .unwrap_or(0),
        })
    }

    /// INLINEASM: fills one slot per operand group (a read-write group's input after
    /// all groups, a tied input in its output's slot too), runs the text over them,
    /// then writes the output groups' registers.
    fn inline_asm(&mut self, d: &NodeData) -> Result<(), String> {
        let Some(Operand::Str(text)) = d.operands.get(1) else {
            return Err("INLINEASM without text".into());
        };
        let glue_in = d.glue_operand(&self.dag.nodes).is_some();
        let groups = asm_groups(&d.operands, glue_in).map_err(|e| e.1)?;
        let mut slots: Vec<u64> = vec![0; groups.len()];
        let mut tied_inputs = Vec::new();
        for (k, g) in groups.iter().enumerate() {
            match g.constraint {
                AsmConstraint::Output { .. } => {}
                AsmConstraint::ReadWrite { .. } => {
                    let v = self.asm_operand(&d.operands[g.operands[1]])?;
                    slots[k] = v;
                    tied_inputs.push(v);
                }
                AsmConstraint::Tied { output } => {
                    let v = self.asm_operand(&d.operands[g.operands[0]])?;
                    slots[k] = v;
                    slots[output as usize] = v;
                }
                AsmConstraint::Input { .. } | AsmConstraint::Imm => {
                    slots[k] = self.asm_operand(&d.operands[g.operands[0]])?;
                }
            }
        }
        slots.extend(tied_inputs);
        exec_asm(text, &mut slots)?;
        for (k, g) in groups.iter().enumerate() {
            if let AsmConstraint::Output { .. } | AsmConstraint::ReadWrite { .. } = g.constraint {
                write_reg(
                    &d.operands[g.operands[0]],
                    vec![slots[k]],
                    &mut self.vregs,
                    &mut self.phys,
                )?;
            }
        }
        Ok(())
    }

    /// REG_SEQUENCE: a tuple of the class's lane count, each `value, SubReg:subK` pair
    /// filling lane K.
    fn reg_sequence(&self, d: &NodeData) -> Result<Lanes, String> {
        let lanes = d
            .operands
            .iter()
            .find_map(|o| match o {
                Operand::Class(c) => Some(c.lanes()),
                _ => None,
            })
            .ok_or("REG_SEQUENCE needs a RegClass operand")?;
        let mut t = vec![0u64; lanes as usize];
        for k in 0..d.operands.len() {
            if let (Operand::Value(_), Some(Operand::SubReg(l))) =
                (&d.operands[k], d.operands.get(k + 1))
            {
                let v = self.val(d, k)?;
                if let Some(slot) = t.get_mut(*l as usize) {
                    *slot = v.first().copied().unwrap_or(0);
                }
            }
        }
        Ok(t)
    }

    /// A machine opcode: its MIR operands (values and registers read, immediates,
    /// symbols, blocks; chains and glue left out) through `semantics::exec`, then the
    /// defs handed to the node's results and implicit physical defs.
    fn machine(&mut self, d: &NodeData, op: Op, results: &mut [Lanes]) -> Result<(), String> {
        let dag = self.dag;
        let mut owned: Vec<Lanes> = Vec::new();
        for o in &d.operands {
            if let Operand::Value(v) = o {
                if !dag.value_type(*v).is_value() {
                    continue;
                }
                owned.push(
                    self.values[v.node]
                        .get(v.res as usize)
                        .cloned()
                        .unwrap_or_default(),
                );
            } else if let Operand::Reg { .. } = o {
                owned.push(read_reg(o, &self.vregs, &self.phys)?);
            }
        }
        let mut it = owned.iter();
        let mut args: Vec<Arg<'_>> = Vec::new();
        for o in &d.operands {
            match o {
                Operand::Value(v) if !dag.value_type(*v).is_value() => {}
                Operand::Value(_) | Operand::Reg { .. } => {
                    args.push(Arg::Reg(it.next().map_or(&[][..], |l| l.as_slice())))
                }
                Operand::Const { value, .. } => args.push(Arg::Imm(*value)),
                Operand::ConstFp { ty, text } => {
                    args.push(Arg::Imm(crate::dag::fp_bits(*ty, text) as i64))
                }
                Operand::Symbol(s) => args.push(Arg::Sym(s)),
                Operand::Block(b) => args.push(Arg::Block(*b)),
                _ => args.push(Arg::Other),
            }
        }
        let defs = exec(op, &args, &mut self.mem)?;
        self.hand_out_defs(d, op, defs, results)
    }

    /// The defs of a machine instruction as node results: implicit physical defs (after
    /// the explicit ones) go to the register file; the rest are the node's results one
    /// for one, or, for a tuple def, its lanes spread over the scalar results.
    fn hand_out_defs(
        &mut self,
        d: &NodeData,
        op: Op,
        defs: Vec<Lanes>,
        results: &mut [Lanes],
    ) -> Result<(), String> {
        let explicit = op.desc().defs as usize;
        for (i, reg) in crate::dag::target::instr_info(op)
            .implicit_defs
            .iter()
            .enumerate()
        {
            if let Some(def) = defs.get(explicit + i) {
                self.phys.insert((*reg).into(), def.clone());
            }
        }
        let value_results: Vec<usize> = d.value_results().collect();
        if value_results.len() == defs.len() {
            for (r, def) in value_results.iter().zip(defs) {
                results[*r] = def;
            }
        } else {
            let words: Vec<u64> = defs.into_iter().flatten().collect();
            if words.len() < value_results.len() {
                return Err(format!(
                    "{} produces {} values, the node has {} results",
                    op.name(),
                    words.len(),
                    value_results.len()
                ));
            }
            for (r, w) in value_results.iter().zip(words) {
                results[*r] = vec![w];
            }
        }
        if d.types.first() == Some(&Vt::Untyped) && results[0].is_empty() {
            return Err(format!("{} produced no tuple", op.name()));
        }
        Ok(())
    }
}

fn block_by_number(dag: &Dag, ops: &[Operand]) -> Result<DagBlock, String> {
    let n = ops
        .iter()
        .find_map(|o| match o {
            Operand::Block(b) => Some(*b),
            _ => None,
        })
        .ok_or("a branch without a BasicBlock operand")?;
    dag.blocks
        .iter()
        .find(|(_, b)| b.number == n)
        .map(|(k, _)| k)
        .ok_or_else(|| format!("branch to %bb.{n}, which has no DAG"))
}

fn read_reg(
    o: &Operand,
    vregs: &BTreeMap<u32, Lanes>,
    phys: &BTreeMap<String, Lanes>,
) -> Result<Lanes, String> {
    match o {
        Operand::Reg {
            reg: RegRef::Virt(r),
            ..
        } => vregs
            .get(r)
            .cloned()
            .ok_or_else(|| format!("%{r} is read before any CopyToReg wrote it")),
        Operand::Reg {
            reg: RegRef::Phys(p),
            ..
        } => phys
            .get(p)
            .cloned()
            .ok_or_else(|| format!("${p} has no value (a parameter register without an input?)")),
        _ => Err("not a register".into()),
    }
}

fn write_reg(
    o: &Operand,
    v: Lanes,
    vregs: &mut BTreeMap<u32, Lanes>,
    phys: &mut BTreeMap<String, Lanes>,
) -> Result<(), String> {
    match o {
        Operand::Reg {
            reg: RegRef::Virt(r),
            ..
        } => {
            vregs.insert(*r, v);
        }
        Operand::Reg {
            reg: RegRef::Phys(p),
            ..
        } => {
            phys.insert(p.clone(), v);
        }
        _ => return Err("not a register".into()),
    }
    Ok(())
}
