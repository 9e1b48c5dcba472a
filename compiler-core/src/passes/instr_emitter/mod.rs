//! InstrEmitter, as CICC runs it (spec: `instr-emitter-cicc.txt`): the scheduled,
//! selected DAG becomes machine instructions.
//!
//! ```text
//!  input_snapshot(dag): blocks + the virtual registers the DAG names + the PHIs
//!                      FunctionLoweringInfo left at block heads (checked against the
//!                      predecessors); the emitter appends after them
//!  for each block:                                        EmitSchedule
//!    (entry block) runs of CopyFromReg $r1, $r2, ... ──▶ noted in the trace (only)
//!    for each node in schedule order:
//!      glued to a later node ─▶ wait for it
//!      else walk its glue operands backwards, emit that chain top-down, then the node
//!  emit_node (one merged dispatch)                        EmitNode
//!    dead, not forced ────────────▶ skipped (phase 1)
//!    EntryToken / TokenFactor ────▶ nothing (ordering only)
//!    CopyToReg (0x0E) ────────────▶ copies::copy_to_reg   IMPLICIT_DEF / same register / COPY
//!    CopyFromReg (0x14) ──────────▶ copies::copy_from_reg bit-36 site 2, class choice, COPY
//!    INLINEASM (0x10) ────────────▶ inline_asm            flag words, ties
//!    EH_LABEL, LIFETIME_*, PSEUDO_PROBE ─▶ labels         one pseudo each
//!    machine opcode ──────────────▶ machine::emit         bit-36 site 1, CreateVirtualRegisters,
//!                                   operands (MinRCSize 4), the three hooks, implicit defs,
//!                                   multi-result recursion into one EXTRACT_SUBREG
//!  dead_copies::eliminate                                 Phase 12 + the dead list (Phase 14)
//!    classify every result record ─▶ keep | erase now | defer
//!    secondary glue walk ─────────▶ more deferrals
//!    flush the dead list in bulk; records that lost their last reader ─▶ again
//!  the live-ins are the parameter registers still read
//! ```
//!
//! Invariants: every change to the function goes through the [`Editor`] and is part of
//! a step, so replaying the steps over [`input_snapshot`] reproduces the output; the
//! output is SSA unless the DAG copies into one virtual register twice; a value is
//! emitted before any reader (the DAG parser guarantees the schedule allows it).
//! Deterministic: maps are ordered, nothing depends on hash order (the page's
//! `key * 37` hash tables with their 3/4 load factor become `BTreeMap`s).
//!
//! Where this model fills in what the spec page leaves open, or departs from it:
//! - Phase 1 skips a node only when none of its results is used and it has no side
//!   effects; the page's "use count ≤ 1" would drop a value that has one reader.
//! - CopyFromReg and CreateVirtualRegisters reuse a CopyToReg's register only when that
//!   CopyToReg is the value's sole user (the page's wording; upstream LLVM looks at any
//!   CopyToReg user).
//! - Dead copy elimination runs after every block, so a copy read only in a later
//!   block counts as read, and it runs to a fixed point: a copy whose last reader it
//!   erased is judged again. It never erases an instruction with side effects (a store,
//!   a branch, a warp shuffle), whatever its `[tied]` flag says.
//! - CopyFromReg of a virtual register that the same block writes again before the
//!   read value's last reader (possible when a DAG carries a loop value in one register
//!   instead of through a PHI, as LLVM's never does) copies
//!   the value out where the DAG reads it (CopyScope's rule; LLVM never meets this).
//! - Bit 36 skips a node only when its operand 1 is a value its glued predecessor
//!   produced (on the CopyFromReg path: the physical register that node's implicit def
//!   capture holds); any other operand 1 means nothing was produced for it. The page's isUnusedReg test is modelled as "nothing
//!   references either register any more": a copy out of a live-in parameter register
//!   waits on the dead list, because erasing it retires the live-in too.
//! - A folded COPY (inline-fold bit) that still has readers is not left dangling: at the
//!   flush its readers are moved to the copy's source, which is what folding means. A
//!   folded REG_SEQUENCE that is still read as a whole has no single source, so it is
//!   kept and the trace says so (CopyScope's rule; the page marks folded copies dead
//!   because their consumer no longer reads them).
//! - The three hooks are recorded, not run: which opcodes claim them is CopyScope's
//!   table (`dag/target.rs`). NVPTX defines no custom inserter: llc-22's finalize-isel,
//!   which runs EmitInstrWithCustomInserter on every pseudo that asks for it, leaves
//!   all 143 NVPTX kernels we compiled unchanged (138 llvm-nvptx files, 5 corpus
//!   kernels), so nothing is expanded and the narration says so. The dead-copy hooks (0xF0, 0x350) are
//!   named in each record but their answers are not modelled.
//! - The parameter-cascade step only reports runs of `$r1, $r2, ...` reads; emission
//!   does nothing different for them.
//! - Kill flags: in CICC's model this emitter sets none, so CICC's clearKillFlags calls
//!   have nothing to clear; the passes after it get their kill flags from
//!   LiveVariables. With `EmitterOptions::llc22` it sets llc-22's: a single-use value
//!   (dead `extract_vector_elt` users count) not read out of a CopyFromReg is
//!   `killed` where it is read.
//! - `EmitterOptions::llc22` emits as llc-22's InstrEmitter: width classes from the
//!   value types, a result written into the register of any CopyToReg user of that
//!   class, kill flags; no dead copy elimination (tests/lift_emit.rs compares it with
//!   llc-22 on every function `dag::lift` lifts).
//! - CopyScope's rules, not from the spec: a divergent value's class is its type's
//!   class, a uniform one's its width's class (`target::regclass_for`); the register
//!   counts the MinRCSize rule reads (`target::num_regs`) are invented.

mod copies;
mod dead_copies;
mod inline_asm;
mod machine;

use crate::dag::{target, Dag, DagBlock, DagOp, Node, Operand, RegRef, Users, Value, Vt};
use crate::entity::{EntityRef, SecondaryMap};
use crate::error::SourceError;
use crate::mir::{Block, BlockData, Function, Inst, Op, Props, Reg, RegClass, Target, VReg};
use crate::stats::Stats;
use crate::trace::{Editor, Focus, Payload, Recorder, Step};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Options of the pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitterOptions {
    /// The emitter's forceEmit flag: emit even nodes nobody uses.
    pub force_emit: bool,
    /// Honour bit 36 (the implicit-glue-consumer flag). Off: such nodes are emitted
    /// like any other, to show what the flag saves.
    pub honor_bit36: bool,
    /// Run dead copy elimination after emission (CICC always does).
    pub dead_copy_elimination: bool,
    /// Emit as llc-22's InstrEmitter does instead of CICC's model (see [`llc22`]): a
    /// value's class is the width class of its type (`b1` `b16` `b32` `b64` `b128`,
    /// which is all llc-22's NVPTX has) instead of CopyScope's divergence rule and
    /// typed classes; a result is written straight into the register of any
    /// CopyToReg user of that class (not only a sole one); single-use operands are
    /// `killed` (AddRegisterOperand's rule: one use, not read out of a CopyFromReg).
    ///
    /// [`llc22`]: EmitterOptions::llc22
    pub llc22: bool,
}

impl EmitterOptions {
    /// llc-22's InstrEmitter, for DAGs lifted from its MIR (`dag::lift`): llc-22
    /// classes and kill flags, every scheduled node emitted (LLVM schedules what the
    /// root reaches; the only dead nodes a lifted DAG holds, `extract_vector_elt`, are
    /// never emitted), no dead copy elimination (CICC's).
    pub fn llc22() -> Self {
        EmitterOptions {
            force_emit: true,
            honor_bit36: true,
            dead_copy_elimination: false,
            llc22: true,
        }
    }
}

impl Default for EmitterOptions {
    fn default() -> Self {
        EmitterOptions {
            force_emit: false,
            honor_bit36: true,
            dead_copy_elimination: true,
            llc22: false,
        }
    }
}

crate::stats::pass_stats! {
    /// The counters DESIGN's CLI contract names first, then the pass's own (JSON keys
    /// in this order).
    pub struct EmitterStats {
        instrs_emitted,
        copies_emitted,
        dead_copies_erased,
        bit36_skipped,
        nodes_visited,
        dead_nodes_skipped,
        vregs_created,
        copy_to_reg_reused,
        classes_constrained,
        min_rc_copies,
        extract_subreg_pairs,
        early_tied_hints,
        implicit_defs_dead,
        custom_hooks,
        records,
        deferred,
        glue_walk_deferred,
    }
}

/// The function emission starts from: the DAG's blocks (numbers, names, successors
/// read off the branches) and the virtual registers the DAG already names, each with
/// its class. No instructions.
#[cfg(feature = "testkit")]
pub fn input_snapshot(dag: &Dag) -> Result<Function, SourceError> {
    snapshot(dag, false)
}

/// [`input_snapshot`]; `llc22`: a register named without a class gets llc-22's class of
/// its type (`b32`), not the typed one.
fn snapshot(dag: &Dag, llc22: bool) -> Result<Function, SourceError> {
    let mut f = Function::new(&dag.name, Target::Nvptx);
    f.props = Props {
        is_ssa: true,
        no_phis: true,
        tracks_reg_liveness: true,
        optnone: false,
    };
    let order: Vec<DagBlock> = dag.blocks.keys().collect();
    for &b in &order {
        let d = &dag.blocks[b];
        let name = d.name.as_deref().map(|n| f.names.intern(n));
        let attrs = d.attrs.as_deref().map(|a| f.names.intern(a));
        f.add_block(BlockData {
            number: d.number,
            name,
            attrs,
            ..Default::default()
        });
    }
    for (i, &b) in order.iter().enumerate() {
        let mut succs: Vec<u32> = Vec::new();
        let mut falls_through = true;
        for &n in &dag.blocks[b].schedule {
            let nd = &dag.nodes[n];
            let Some(op) = nd.op.machine() else { continue };
            if !matches!(op, Op::GOTO | Op::CBranch | Op::CBranchOther | Op::Return) {
                continue;
            }
            for (k, o) in nd.operands.iter().enumerate() {
                if let Operand::Block(num) = o {
                    if !dag.blocks.values().any(|x| x.number == *num) {
                        let (l, c) = dag.operand_pos(n, k);
                        return Err(SourceError::new(
                            l,
                            c,
                            format!("branch to %bb.{num}, but the DAG has no such block"),
                        ));
                    }
                    if !succs.contains(num) {
                        succs.push(*num);
                    }
                }
            }
            if matches!(op, Op::GOTO | Op::Return) {
                falls_through = false;
            }
        }
        if falls_through {
            if let Some(&next) = order.get(i + 1) {
                let num = dag.blocks[next].number;
                if !succs.contains(&num) {
                    succs.push(num);
                }
            }
        }
        let mb = Block::new(i);
        if let Some(given) = &dag.blocks[b].succs {
            // The block's own list (from the IR's CFG) wins over the branches'.
            let mut list = Vec::with_capacity(given.len());
            for &(num, p) in given {
                let Some(s) = f.block_by_number(num) else {
                    let (l, c) = dag.spans.blocks[b];
                    return Err(SourceError::new(
                        l.max(1),
                        c.max(1),
                        format!("successor %bb.{num}, but the DAG has no such block"),
                    ));
                };
                list.push((s, p));
            }
            f.blocks[mb].succs = list;
            continue;
        }
        f.blocks[mb].succs = succs
            .iter()
            .map(|&num| (f.block_by_number(num).expect("checked above"), None))
            .collect();
    }
    for (v, (vt, class)) in dag.named_vregs() {
        let class = class.or_else(|| {
            if llc22 {
                target::llc22_class(vt)
            } else {
                target::typed_class(vt)
            }
        });
        f.declare_vreg(VReg::new(v as usize), class);
    }
    head_phis(dag, &order, &mut f)?;
    Ok(f)
}

/// The PHIs FunctionLoweringInfo left at the block heads, there before emission starts
/// (the emitter appends after them). Each PHI lists every predecessor once: the
/// successor lists above say which blocks those are.
fn head_phis(dag: &Dag, order: &[DagBlock], f: &mut Function) -> Result<(), SourceError> {
    use crate::mir::{oflag, InstData, Opcode, Operand as MOp, OperandKind};
    let preds = f.predecessors();
    for (i, &b) in order.iter().enumerate() {
        let mb = Block::new(i);
        let mut want: Vec<u32> = preds[mb].iter().map(|&p| f.blocks[p].number).collect();
        want.sort_unstable();
        for (k, p) in dag.blocks[b].phis.iter().enumerate() {
            let mut have: Vec<u32> = p.incoming.iter().map(|e| e.1).collect();
            have.sort_unstable();
            if have != want {
                let (l, c) = dag.phi_pos(b, k);
                let list = |v: &[u32]| {
                    let s: Vec<String> = v.iter().map(|n| format!("%bb.{n}")).collect();
                    if s.is_empty() {
                        String::from("none")
                    } else {
                        s.join(", ")
                    }
                };
                return Err(SourceError::new(
                    l,
                    c,
                    format!(
                        "the PHI of %{} lists {} but the block's predecessors are {}",
                        p.reg,
                        list(&have),
                        list(&want)
                    ),
                ));
            }
            let mut ops = alloc::vec![MOp::vreg(VReg::new(p.reg as usize), oflag::DEF)];
            for &(r, num) in &p.incoming {
                ops.push(MOp::vreg(VReg::new(r as usize), 0));
                let pb = f.block_by_number(num).expect("a predecessor");
                ops.push(MOp::new(OperandKind::Block(pb)));
            }
            let mut data = InstData::new(Opcode::Known(Op::PHI), ops);
            data.lhs_defs = 1;
            f.append_inst(mb, data);
            f.props.no_phis = false;
        }
    }
    Ok(())
}

/// Runs the emitter: returns the machine function and the counters. `dag` is expected
/// to satisfy the checks [`parse_dag`](crate::dag::parse_dag) makes (a DAG built in code
/// should too); problems only emission can see come back as line:column errors.
pub fn run<R: Recorder>(
    dag: &Dag,
    opts: &EmitterOptions,
    rec: &mut R,
) -> Result<(Function, Stats), SourceError> {
    let mut f = snapshot(dag, opts.llc22)?;
    let stats = {
        let mut e = Emitter::new(dag, opts, &mut f, rec);
        e.start();
        let blocks: Vec<DagBlock> = dag.blocks.keys().collect();
        for (i, b) in blocks.into_iter().enumerate() {
            e.cur_block = Block::new(i);
            e.emit_schedule(b)?;
        }
        if opts.dead_copy_elimination {
            e.eliminate_dead_copies();
        }
        e.finish();
        e.stats
    };
    Ok((f, stats.into()))
}

/// What an emitted instruction was, for dead copy elimination.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum RecordKind {
    /// COPY out of a physical register (a CopyFromReg; `$rN` makes it a parameter copy).
    CopyFromReg,
    /// COPY into a CopyToReg's register.
    CopyToReg,
    /// COPY that captures an implicit physical def.
    ImplicitCapture,
    /// COPY into a wider class (the MinRCSize rule).
    Constrain,
    /// Any other instruction that defines a register.
    Other,
}

/// One emitted result (the spec's 40-byte record: producer, registers, class, flags).
#[derive(Copy, Clone, Debug)]
pub(crate) struct ResultRecord {
    pub node: Node,
    pub inst: Inst,
    pub kind: RecordKind,
}

pub(crate) struct Emitter<'d, 'f, 'r, R: Recorder> {
    pub dag: &'d Dag,
    pub users: Users,
    pub opts: EmitterOptions,
    pub ed: Editor<'f>,
    pub rec: &'r mut R,
    pub stats: EmitterStats,
    /// VRBaseMap: the register holding each emitted value.
    pub vr_map: BTreeMap<Value, Reg>,
    pub emitted: SecondaryMap<Node, bool>,
    /// Each node's position in its block's emission order (see `emission_order`).
    pub emit_pos: SecondaryMap<Node, u32>,
    /// Emission positions of the writes to each virtual register in the current block.
    pub vreg_writes: BTreeMap<u32, Vec<u32>>,
    /// The instructions each node produced (the MI map).
    pub node_insts: SecondaryMap<Node, Vec<Inst>>,
    pub cur_block: Block,
    pub records: Vec<ResultRecord>,
    /// Physical registers whose value a copy already captured in this block, for bit 36:
    /// the register holding it and the node whose implicit def it was.
    pub captured: BTreeMap<String, (VReg, Node)>,
    /// The deferred dead list (Phase 14 deletes it in bulk).
    pub dead_list: Vec<Inst>,
    /// Membership of the dead list.
    pub on_dead_list: SecondaryMap<Inst, bool>,
    /// Registers whose last reader dead copy elimination erased (its fixed point).
    pub newly_unread: Vec<VReg>,
}

impl<'d, 'f, 'r, R: Recorder> Emitter<'d, 'f, 'r, R> {
    fn new(dag: &'d Dag, opts: &EmitterOptions, f: &'f mut Function, rec: &'r mut R) -> Self {
        Emitter {
            dag,
            users: Users::compute(dag),
            opts: opts.clone(),
            ed: Editor::new(f, R::ENABLED),
            rec,
            stats: EmitterStats::default(),
            vr_map: BTreeMap::new(),
            emitted: SecondaryMap::new(),
            emit_pos: SecondaryMap::new(),
            vreg_writes: BTreeMap::new(),
            node_insts: SecondaryMap::new(),
            cur_block: Block::new(0),
            records: Vec::new(),
            captured: BTreeMap::new(),
            dead_list: Vec::new(),
            on_dead_list: SecondaryMap::new(),
            newly_unread: Vec::new(),
        }
    }

    /// Records a step carrying the edits made since the previous one.
    pub(crate) fn step(&mut self, make: impl FnOnce() -> Step) {
        crate::trace::record(self.rec, &mut self.ed, make);
    }

    fn start(&mut self) {
        let (blocks, nodes) = (self.dag.blocks.len(), self.dag.nodes.len());
        let named = self.ed.f.vreg_list().count();
        let name = self.dag.name.clone();
        let phis: usize = self.dag.blocks.values().map(|b| b.phis.len()).sum();
        let phi_text = if phis == 0 {
            String::new()
        } else {
            format!(" and the {phis} PHI(s) FunctionLoweringInfo created at block heads before any DAG existed (emission appends after them)")
        };
        let sep = if phis == 0 { " and" } else { "," };
        self.step(|| {
            Step::new(
                "start",
                format!("Emitting `{name}`: {nodes} DAG nodes in {blocks} block(s). The function starts empty except for its blocks{sep} the {named} virtual register(s) the DAG already names (values that cross blocks){phi_text}."),
            )
        });
    }

    /// EmitSchedule for one block: glued chains are emitted together, at the position of
    /// their last node, so their instructions end up next to each other.
    fn emit_schedule(&mut self, b: DagBlock) -> Result<(), SourceError> {
        self.captured.clear();
        let dag = self.dag;
        if Some(b) == dag.blocks.keys().next() {
            self.param_cascade(b);
        }
        let chains = self.emission_order(b);
        for chain in chains {
            if chain.len() > 1 {
                let n = *chain.last().expect("non-empty");
                let names: Vec<String> = chain.iter().map(|&x| dag.name_of(x)).collect();
                let bottom = dag.name_of(n);
                let top = names.len() - 1;
                let number = dag.nodes[n].number;
                self.step(|| {
                    Step::new(
                        "glue_chain",
                        format!("{bottom} is glued to the {top} node(s) before it: walking the glue backwards gives {}; they are emitted now, top first, so their instructions stay contiguous.", names.join(" → ")),
                    )
                    .focus(Focus::DagNode { number })
                });
            }
            for x in chain {
                self.emit_node(x)?;
            }
        }
        Ok(())
    }

    /// The order EmitSchedule will emit block `b` in, as glue chains (top first), and
    /// each node's position in it (`emit_pos`), so a virtual-register read can tell
    /// whether a write to the same register comes between it and its readers.
    fn emission_order(&mut self, b: DagBlock) -> Vec<Vec<Node>> {
        let dag = self.dag;
        let mut placed: SecondaryMap<Node, bool> = SecondaryMap::new();
        let mut chains: Vec<Vec<Node>> = Vec::new();
        let mut pos = 0u32;
        for &n in &dag.blocks[b].schedule {
            if placed[n] || self.users.glued_user(n, dag).is_some() {
                // Emitted when the bottom of its chain comes up.
                continue;
            }
            let mut chain = alloc::vec![n];
            let mut cur = n;
            while let Some(p) = dag.glued_pred(cur) {
                chain.push(p);
                cur = p;
            }
            chain.reverse();
            chain.retain(|&x| !core::mem::replace(&mut placed[x], true));
            for &x in &chain {
                self.emit_pos[x] = pos;
                pos += 1;
            }
            chains.push(chain);
        }
        // Where each virtual register is written in this block.
        self.vreg_writes.clear();
        for &w in &dag.blocks[b].schedule {
            let wd = &dag.nodes[w];
            let (
                DagOp::CopyToReg,
                Some(Operand::Reg {
                    reg: RegRef::Virt(v),
                    ..
                }),
            ) = (wd.op, wd.operands.get(1))
            else {
                continue;
            };
            let mut at = self.emit_pos[w];
            if let Some(src) = wd.operands.get(2).and_then(|o| o.value()) {
                // A producer defines `v` itself only if it emits an instruction: a
                // CopyFromReg of a virtual register emits none, so the COPY into `v`
                // stands where the CopyToReg does (a swap of two registers).
                let producer = &dag.nodes[src.node];
                if producer.block == b
                    && producer.op != DagOp::CopyFromReg
                    && self.users.of_value(src, dag).len() == 1
                {
                    at = at.min(self.emit_pos[src.node]);
                }
            }
            self.vreg_writes.entry(*v).or_default().push(at);
        }
        chains
    }

    /// Whether the value of `n`, a CopyFromReg of virtual register `v`, must be copied
    /// out before it is overwritten: some write to `v` in this block is emitted after `n`
    /// and before one of `n`'s readers. A CopyToReg writes at its own position, or at its
    /// value's producer when it is that value's only reader and emits an instruction
    /// (the producer may then define `v` directly; a CopyFromReg of a virtual register
    /// emits nothing).
    pub(crate) fn overwritten_before_read(&self, n: Node, v: u32) -> bool {
        let dag = self.dag;
        let at = self.emit_pos[n];
        let last_read = self.users.of[n]
            .iter()
            .filter(|&&(u, k)| {
                dag.nodes[u].operands[k as usize]
                    .value()
                    .is_some_and(|x| x.res == 0)
            })
            .map(|&(u, _)| self.emit_pos[u])
            .max();
        let Some(last_read) = last_read else {
            return false;
        };
        self.vreg_writes
            .get(&v)
            .is_some_and(|ws| ws.iter().any(|&w| w > at && w < last_read))
    }

    /// At the top of the entry block: the runs of CopyFromReg nodes that read consecutive
    /// parameter registers ($r1, $r2, ...), which become a dense block of COPYs.
    fn param_cascade(&mut self, b: DagBlock) {
        let dag = self.dag;
        let mut runs: Vec<(u32, u32, usize)> = Vec::new(); // (first, last, count)
        for &n in &dag.blocks[b].schedule {
            let d = &dag.nodes[n];
            let num = match (d.op, d.operands.get(1)) {
                (DagOp::CopyFromReg, Some(Operand::Reg { reg, .. })) => reg.param_number(),
                _ => None,
            };
            let Some(num) = num else { continue };
            match runs.last_mut() {
                Some(r) if r.1 + 1 == num => {
                    r.1 = num;
                    r.2 += 1;
                }
                _ => runs.push((num, num, 1)),
            }
        }
        for (first, last, count) in runs.into_iter().filter(|r| r.2 >= 2) {
            let unused = dag.blocks[b]
                .schedule
                .iter()
                .filter(|&&n| {
                    let d = &dag.nodes[n];
                    d.op == DagOp::CopyFromReg
                        && matches!(&d.operands[1], Operand::Reg { reg, .. }
                            if reg.param_number().is_some_and(|k| (first..=last).contains(&k)))
                        && !self.users.has_use(Value { node: n, res: 0 }, dag)
                })
                .count();
            self.step(|| {
                Step::new(
                    "param_cascade",
                    format!("A parameter cascade: {count} CopyFromReg nodes read the consecutive parameter registers $r{first}..$r{last}. CopyScope only notes the run here, for the trace: each node is emitted like any other CopyFromReg, a COPY where it is scheduled; {unused} of them are never read, and dead copy elimination takes those out again."),
                )
                .payload(Payload::Counters {
                    values: alloc::vec![
                    (String::from("first"), first as i64),
                    (String::from("last"), last as i64),
                    (String::from("copies"), count as i64),
                    (String::from("unread"), unused as i64),
                ],
                })
            });
        }
    }

    /// The merged EmitNode dispatch.
    fn emit_node(&mut self, n: Node) -> Result<(), SourceError> {
        self.emitted[n] = true;
        self.stats.nodes_visited += 1;
        let dag = self.dag;
        let d = &dag.nodes[n];
        if d.op == DagOp::ExtractVectorElt {
            // Never emitted, even with forceEmit: LLVM schedules what the root reaches.
            self.stats.dead_nodes_skipped += 1;
            let (name, vector) = (dag.name_of(n), dag.value_name(d.operands[0].value().expect("checked by the parser")));
            self.node_step(n, "skipped", Vec::new(), format!("{name} is an extract_vector_elt of {vector} that instruction selection merged into one split of both lanes and left dead: the scheduler walks from the root and never reaches it, so nothing is emitted. It still reads {vector}, which therefore has more than one use and gets no kill flag."), "dead_node");
            return Ok(());
        }
        if !self.opts.force_emit && !self.node_has_uses(n) && !has_side_effects(d.op) {
            self.stats.dead_nodes_skipped += 1;
            let name = dag.name_of(n);
            self.node_step(n, "skipped", Vec::new(), format!("{name} ({}) has no users and no side effects: a dead node, not emitted (the forceEmit flag is off).", d.op.name()), "dead_node");
            return Ok(());
        }
        match d.op {
            DagOp::EntryToken => {
                let name = dag.name_of(n);
                self.node_step(n, "skipped", Vec::new(), format!("{name} is the EntryToken: the start of the block's chains. Nothing to emit."), "entry_token");
            }
            DagOp::TokenFactor => {
                let name = dag.name_of(n);
                let k = d.operands.len();
                self.node_step(n, "skipped", Vec::new(), format!("{name} is a TokenFactor joining {k} chains: it only orders memory effects, so it produces no instruction."), "token_factor");
            }
            DagOp::CopyToReg => self.copy_to_reg(n)?,
            DagOp::CopyFromReg => self.copy_from_reg(n)?,
            DagOp::InlineAsm => self.inline_asm(n)?,
            DagOp::EhLabel | DagOp::LifetimeStart | DagOp::LifetimeEnd | DagOp::PseudoProbe => {
                self.label(n)
            }
            DagOp::Machine(op) => self.emit_machine(n, op)?,
            DagOp::ExtractVectorElt => unreachable!("skipped above"),
        }
        Ok(())
    }

    pub(crate) fn node_has_uses(&self, n: Node) -> bool {
        !self.users.of[n].is_empty()
    }

    /// A step about one node, with the EmitterNode payload.
    pub(crate) fn node_step(
        &mut self,
        n: Node,
        handler: &'static str,
        insts: Vec<Inst>,
        narration: String,
        kind: &'static str,
    ) {
        let d = &self.dag.nodes[n];
        let (op, number) = (d.op, d.number);
        self.step(|| {
            let mut s = Step::new(kind, narration).focus(Focus::DagNode { number });
            for &i in &insts {
                s = s.focus(Focus::inst(i));
            }
            s.payload(crate::trace::EmitterNode {
                node: number,
                op,
                handler,
                insts: insts
                    .iter()
                    .map(|i| i.index() as u32)
                    .collect::<Vec<_>>()
                    .into(),
            })
        });
    }

    /// Label, lifetime and probe nodes: one pseudo instruction each.
    fn label(&mut self, n: Node) {
        use crate::mir::{InstData, Opcode, Operand as MOp, OperandKind};
        let d = &self.dag.nodes[n];
        let (op, operands, what) = match d.op {
            DagOp::EhLabel => {
                let text = match &d.operands[1] {
                    Operand::Str(s) => format!("<mcsymbol {s}>"),
                    _ => String::new(),
                };
                let sym = self.ed.intern(&text);
                (
                    Op::EH_LABEL,
                    alloc::vec![MOp::new(OperandKind::Verbatim(sym))],
                    "an exception-handling label: EH_LABEL marks the spot",
                )
            }
            DagOp::LifetimeStart | DagOp::LifetimeEnd => {
                let index = match d.operands[1] {
                    Operand::FrameIndex(i) => i,
                    _ => 0,
                };
                let start = d.op == DagOp::LifetimeStart;
                (
                    if start {
                        Op::LIFETIME_START
                    } else {
                        Op::LIFETIME_END
                    },
                    alloc::vec![MOp::new(OperandKind::Stack {
                        fixed: false,
                        index
                    })],
                    if start {
                        "the frame slot's lifetime begins"
                    } else {
                        "the frame slot's lifetime ends"
                    },
                )
            }
            _ => {
                let ops = d
                    .operands
                    .iter()
                    .filter_map(|o| match o {
                        Operand::Const { value, .. } => Some(MOp::imm(*value)),
                        _ => None,
                    })
                    .collect();
                (
                    Op::PSEUDO_PROBE,
                    ops,
                    "a profiling probe: PSEUDO_PROBE carries its ids",
                )
            }
        };
        let mut data = InstData::new(Opcode::Known(op), operands);
        data.lhs_defs = 0;
        let i = self.append(n, data);
        let name = self.dag.name_of(n);
        self.node_step(
            n,
            "label",
            alloc::vec![i],
            format!("{name} is {what}."),
            "label",
        );
    }

    /// Appends an instruction for node `n` at the end of the current block.
    pub(crate) fn append(&mut self, n: Node, data: crate::mir::InstData) -> Inst {
        let i = self.ed.insert_at(self.cur_block, None, data);
        self.node_insts[n].push(i);
        self.stats.instrs_emitted += 1;
        i
    }

    /// The register a result goes to: a CopyToReg user's register it may write
    /// directly (`reuse`), or a fresh one of class `rc`.
    pub(crate) fn reuse_or_new_vreg(&mut self, reuse: Option<VReg>, rc: RegClass) -> VReg {
        if let Some(v) = reuse {
            self.stats.copy_to_reg_reused += 1;
            return v;
        }
        self.stats.vregs_created += 1;
        self.ed.new_vreg(Some(rc))
    }

    /// Appends `dst = COPY src` for node `n` and keeps its result record (`kind`: why
    /// the copy exists, what dead copy elimination later judges it by).
    pub(crate) fn append_copy(&mut self, n: Node, dst: VReg, src: Reg, kind: RecordKind) -> Inst {
        let def = crate::mir::Operand::vreg(dst, crate::mir::oflag::DEF);
        self.append_copy_to(n, def, src, kind)
    }

    /// [`Self::append_copy`] with the def operand given (a physical register, flags).
    pub(crate) fn append_copy_to(
        &mut self,
        n: Node,
        def: crate::mir::Operand,
        src: Reg,
        kind: RecordKind,
    ) -> Inst {
        let mut data = crate::mir::InstData::new(
            crate::mir::Opcode::Known(crate::mir::Op::COPY),
            alloc::vec![def, crate::mir::Operand::reg(src, 0)],
        );
        data.lhs_defs = 1;
        let i = self.append(n, data);
        self.stats.copies_emitted += 1;
        self.records.push(ResultRecord {
            node: n,
            inst: i,
            kind,
        });
        i
    }

    /// The register holding value `v`, read by operand `k` of `user`.
    pub(crate) fn get_vr(&self, v: Value, user: Node, k: usize) -> Result<Reg, SourceError> {
        self.vr_map.get(&v).copied().ok_or_else(|| {
            let (l, c) = self.dag.operand_pos(user, k);
            SourceError::new(
                l,
                c,
                format!(
                    "{} reads {}, which produced no register (was it skipped?)",
                    self.dag.name_of(user),
                    self.dag.value_name(v)
                ),
            )
        })
    }

    pub(crate) fn reg_of(&mut self, r: &RegRef) -> Reg {
        match r {
            RegRef::Virt(v) => Reg::Virt(VReg::new(*v as usize)),
            RegRef::Phys(p) => Reg::Phys(self.ed.intern(p)),
        }
    }

    pub(crate) fn reg_name(&self, r: Reg) -> String {
        crate::mir::print::reg_string(self.ed.f, r)
    }

    /// A class as a payload keeps it.
    pub(crate) fn class_text(&self, c: RegClass) -> crate::trace::ClassText {
        crate::trace::ClassText::of(c, &self.ed.f.names)
    }

    pub(crate) fn class_name(&self, c: Option<RegClass>) -> String {
        match c {
            Some(c) => format!("{}", c.display(&self.ed.f.names)),
            None => String::from("none"),
        }
    }

    pub(crate) fn value_type(&self, v: Value) -> Vt {
        self.dag.value_type(v)
    }

    fn finish(&mut self) {
        // SSA unless some register got two defs.
        let mut defs: SecondaryMap<VReg, u32> = SecondaryMap::new();
        let mut ssa = true;
        let insts: Vec<Inst> = self.ed.f.all_insts().map(|(_, i)| i).collect();
        for i in insts {
            for (_, v) in self.ed.f.insts[i].vreg_defs() {
                defs[v] += 1;
                ssa &= defs[v] == 1;
            }
        }
        self.ed.set_props(true, ssa);
        // Live-ins: the parameter registers still read, each with the register it is
        // copied into.
        let mut liveins: Vec<(u32, Reg, Option<VReg>)> = Vec::new();
        for (_, i) in self.ed.f.all_insts() {
            let d = &self.ed.f.insts[i];
            for o in d.operands.iter().filter(|o| o.is_use()) {
                let Some(Reg::Phys(s)) = o.get_reg() else {
                    continue;
                };
                let Some(num) = crate::dag::param_reg_number(self.ed.f.names.name(s)) else {
                    continue;
                };
                if liveins.iter().all(|e| e.0 != num) {
                    let copy_def = d.is_copy().then(|| d.operands[0].vreg_of()).flatten();
                    liveins.push((num, Reg::Phys(s), copy_def));
                }
            }
        }
        crate::sort::sort_by_key(&mut liveins, |e| e.0.into());
        if !liveins.is_empty() {
            self.ed
                .set_liveins(liveins.iter().map(|e| (e.1, e.2)).collect());
        }
        let s = self.stats.clone();
        self.step(|| {
            Step::new(
                "done",
                format!(
                    "Emission finished: {} instructions built ({} of them COPYs), {} dead copies erased, {} bit-36 nodes skipped.{}",
                    s.instrs_emitted,
                    s.copies_emitted,
                    s.dead_copies_erased,
                    s.bit36_skipped,
                    if ssa { " The result is in SSA form." } else { " A register is written twice, so the result is not in SSA form." }
                ),
            )
        });
    }
}

/// Nodes that must be emitted even when nothing reads their results.
fn has_side_effects(op: DagOp) -> bool {
    use crate::mir::flag;
    match op {
        DagOp::EntryToken
        | DagOp::TokenFactor
        | DagOp::CopyFromReg
        | DagOp::ExtractVectorElt => false,
        DagOp::CopyToReg
        | DagOp::InlineAsm
        | DagOp::EhLabel
        | DagOp::LifetimeStart
        | DagOp::LifetimeEnd
        | DagOp::PseudoProbe => true,
        DagOp::Machine(op) => op
            .desc()
            .has(flag::SIDE_EFFECTS | flag::MAY_STORE | flag::TERMINATOR | flag::CONVERGENT),
    }
}
