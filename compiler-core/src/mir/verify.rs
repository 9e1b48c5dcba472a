//! The machine verifier: checks a function against the rules of the pipeline stage it
//! is at and reports every violation, each pinned to the instruction or block it
//! concerns, so the printed IR can show the messages inline.
//!
//! ```text
//!  Function, VerifyLevel ──verify──▶ [VerifyError { rule, block?, inst?, message }]
//!  Function, errors ──print_with_errors──▶ MIR text with `; ^ error: ...` under the lines
//!
//!  levels:   Ssa ──phi-elimination──▶ PostPhiElim ──two-address──▶ PostTwoAddress
//!              ──register-coalescer──▶ PostCoalesce      (each adds rules, keeps the rest)
//! ```
//!
//! Always checked: reads of registers nothing defines; register classes and
//! sub-register indexes (NVPTX functions only: classes of other targets are opaque);
//! COPY/PHI width agreement; successor lists against branches and fall-through;
//! terminators only at the end of a block; PHIs only at the start, one incoming value
//! per predecessor; tied-operand indexes, and no tie on an instruction marked
//! tie-free (`InstData::tie_free`); explicit def counts against the opcode table;
//! the shape of COPY, REG_SEQUENCE and INSERT_SUBREG; kill flags as LLVM's verifier
//! checks them (a `killed` register is neither read again in its block nor live out of
//! it before a new def, `verify_kills.rs`); live-in lists: the entry block lists the
//! function's live-ins, and an NVPTX block's live-in is live out of each predecessor
//! (`verify_liveins.rs`).
//!
//! - [`VerifyLevel::Ssa`] (before PHI elimination): `isSSA`; one def per register; defs
//!   dominate their uses (a PHI's incoming value: the end of its predecessor).
//! - [`VerifyLevel::PostPhiElim`]: no PHIs, `noPhis` set; no register is read on a path
//!   from the entry before it is written (what live intervals need to be sound).
//! - [`VerifyLevel::PostTwoAddress`]: every tied use names its def's register; no
//!   REG_SEQUENCE, INSERT_SUBREG or EXTRACT_SUBREG left.
//! - [`VerifyLevel::PostCoalesce`]: no identity COPY (`%a = COPY %a`) left.
//!
//! The verifier never panics, whatever the function holds; it costs near-linear time.

use super::cfg::{Cfg, DomTree};
use super::entities::{Block, Inst, VReg};
use super::function::{Function, Target};
use super::instr::InstData;
use super::opcode::{flag, Op, Opcode};
use super::operand::{oflag, Operand, OperandKind, SubReg, SubRegKind};
use super::print::{defined_vregs, print_function_annotated, write_inst, AnnotateAt};
use super::regclass::{Family, RegClass};
use super::verify_reads::undefined_reads;
use crate::entity::{EntityRef, SecondaryMap};
use crate::stages::Stage;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use serde::Serialize;

/// Which stage's rules apply.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerifyLevel {
    /// SSA with PHIs: after the emitter, before PHI elimination.
    Ssa,
    /// After PHI elimination.
    PostPhiElim,
    /// After the two-address pass.
    PostTwoAddress,
    /// After a coalescer.
    PostCoalesce,
}

impl VerifyLevel {
    /// The level the IR is at after `stage` ran (None for stages past MIR).
    pub fn after(stage: Stage) -> Option<Self> {
        Some(match stage {
            Stage::InstrEmitter => VerifyLevel::Ssa,
            Stage::PhiElimination => VerifyLevel::PostPhiElim,
            Stage::TwoAddress => VerifyLevel::PostTwoAddress,
            Stage::RegisterCoalescer | Stage::NvptxCoalescer => VerifyLevel::PostCoalesce,
            _ => return None,
        })
    }

    pub const fn name(self) -> &'static str {
        match self {
            VerifyLevel::Ssa => "ssa",
            VerifyLevel::PostPhiElim => "post-phi-elim",
            VerifyLevel::PostTwoAddress => "post-two-address",
            VerifyLevel::PostCoalesce => "post-coalesce",
        }
    }
}

/// The rule an error breaks (stable ids for tests and JSON).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// A register is read but nothing defines it.
    UndefinedVReg,
    /// An NVPTX virtual register without a register class.
    MissingClass,
    /// A sub-register index the register's class does not have.
    SubRegIndex,
    /// COPY/PHI/sub-register pseudo between registers of different widths or shapes.
    ClassMismatch,
    /// Successor list and branches/fall-through disagree.
    Successors,
    /// A non-terminator after a terminator.
    TerminatorNotAtEnd,
    /// A `tied-def` index that does not name a def of the instruction.
    TiedIndex,
    /// Explicit def count differs from the opcode table.
    DefCount,
    /// A pseudo's operands are not laid out as it requires.
    OperandShape,
    /// A PHI after a non-PHI instruction.
    PhiPlacement,
    /// A PHI's incoming values do not pair up with the block's predecessors.
    PhiOperands,
    /// `isSSA` / `noPhis` disagree with the level or the body.
    Properties,
    /// SSA: a register defined more than once.
    MultipleDefs,
    /// SSA: a use not dominated by its def.
    Dominance,
    /// A PHI after PHI elimination.
    PhiAfterElimination,
    /// After two-address: a tied use whose register differs from its def's.
    TiedMismatch,
    /// After two-address: REG_SEQUENCE, INSERT_SUBREG or EXTRACT_SUBREG left over.
    SubregPseudo,
    /// After PHI elimination: a read some path reaches before any def.
    ReadBeforeDef,
    /// After coalescing: `%a = COPY %a` left over.
    IdentityCopy,
    /// A `killed` read followed by a read in the same block, or by the register
    /// living out of the block, with no def in between.
    KillFlag,
    /// A block live-in list that disagrees with the function's or a predecessor's.
    LiveIns,
}

impl Rule {
    pub const fn id(self) -> &'static str {
        match self {
            Rule::UndefinedVReg => "undefined_vreg",
            Rule::MissingClass => "missing_class",
            Rule::SubRegIndex => "subreg_index",
            Rule::ClassMismatch => "class_mismatch",
            Rule::Successors => "successors",
            Rule::TerminatorNotAtEnd => "terminator_not_at_end",
            Rule::TiedIndex => "tied_index",
            Rule::DefCount => "def_count",
            Rule::OperandShape => "operand_shape",
            Rule::PhiPlacement => "phi_placement",
            Rule::PhiOperands => "phi_operands",
            Rule::Properties => "properties",
            Rule::MultipleDefs => "multiple_defs",
            Rule::Dominance => "dominance",
            Rule::PhiAfterElimination => "phi_after_elimination",
            Rule::TiedMismatch => "tied_mismatch",
            Rule::SubregPseudo => "subreg_pseudo",
            Rule::ReadBeforeDef => "read_before_def",
            Rule::IdentityCopy => "identity_copy",
            Rule::KillFlag => "kill_flag",
            Rule::LiveIns => "live_ins",
        }
    }
}

/// One violation. `inst` set: printed under that instruction; else `block` set: under
/// that block's header; else at the top of the body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VerifyError {
    pub rule: Rule,
    #[serde(serialize_with = "ser_block")]
    pub block: Option<Block>,
    #[serde(serialize_with = "ser_inst")]
    pub inst: Option<Inst>,
    pub message: String,
}

fn ser_block<S: serde::Serializer>(b: &Option<Block>, s: S) -> Result<S::Ok, S::Error> {
    match b {
        Some(b) => s.serialize_some(&(b.index() as u32)),
        None => s.serialize_none(),
    }
}
fn ser_inst<S: serde::Serializer>(i: &Option<Inst>, s: S) -> Result<S::Ok, S::Error> {
    match i {
        Some(i) => s.serialize_some(&(i.index() as u32)),
        None => s.serialize_none(),
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.message, self.rule.id())
    }
}

impl VerifyError {
    /// The message with where it applies: `bb.2: \`%3:b32 = COPY %5\`: ...`.
    /// Costs a scan of `f`; use [`describe_errors`] for many.
    pub fn describe(&self, f: &Function) -> String {
        self.describe_with(f, &defined_vregs(f))
    }

    fn describe_with(&self, f: &Function, has_def: &SecondaryMap<VReg, bool>) -> String {
        let mut s = String::new();
        if let Some(b) = self.block.and_then(|b| f.blocks.get(b)) {
            s.push_str(&format!("bb.{}: ", b.number));
        }
        if let Some(d) = self.inst.and_then(|i| f.insts.get(i)) {
            let mut t = String::new();
            write_inst(&mut t, f, d, has_def);
            s.push_str(&format!("`{t}`: "));
        }
        s.push_str(&self.message);
        s
    }
}

/// [`VerifyError::describe`] for every error, scanning `f` once.
pub fn describe_errors(f: &Function, errors: &[VerifyError]) -> Vec<String> {
    let has_def = defined_vregs(f);
    errors
        .iter()
        .map(|e| e.describe_with(f, &has_def))
        .collect()
}

/// Checks `f` against the rules of `level`; every violation, in layout order.
pub fn verify(f: &Function, level: VerifyLevel) -> Vec<VerifyError> {
    let mut v = Verifier::new(f, level);
    v.run();
    // Printed order: function-level first, then by block, header before instructions.
    let block_pos = |b: Option<Block>| b.and_then(|b| v.cfg.layout_position(b));
    let mut keyed: Vec<(Option<usize>, Option<u32>, usize, VerifyError)> = v
        .errors
        .into_iter()
        .enumerate()
        .map(|(n, e)| {
            let b = e.inst.and_then(|i| f.layout.inst_block(i)).or(e.block);
            let ip = e
                .inst
                .filter(|&i| f.layout.is_inserted(i))
                .map(|i| v.pos[i]);
            (block_pos(b), ip, n, e)
        })
        .collect();
    // None (function-level) first: positions are shifted up by one.
    let pos = |p: Option<u32>| p.map_or(0, |p| p + 1);
    crate::sort::sort_by_key(&mut keyed, |k| {
        crate::sort::key4(pos(k.0.map(|b| b as u32)), pos(k.1), k.2 as u32, 0)
    });
    keyed.into_iter().map(|k| k.3).collect()
}

/// Prints `f` with each error on its own `;` line right under the instruction (or
/// block header) it concerns; function-level errors come first in the body.
pub fn print_with_errors(f: &Function, errors: &[VerifyError]) -> String {
    let mut at_inst: SecondaryMap<Inst, Vec<&VerifyError>> = SecondaryMap::new();
    let mut at_block: SecondaryMap<Block, Vec<&VerifyError>> = SecondaryMap::new();
    let mut at_top: Vec<&VerifyError> = Vec::new();
    let mut placed: SecondaryMap<Block, bool> = SecondaryMap::new();
    for b in f.layout.blocks() {
        placed[b] = true;
    }
    for e in errors {
        match (e.inst, e.block) {
            (Some(i), _) if f.layout.is_inserted(i) => at_inst[i].push(e),
            (_, Some(b)) if placed[b] => at_block[b].push(e),
            _ => at_top.push(e),
        }
    }
    let mut out = String::new();
    print_function_annotated(&mut out, f, &mut |out, at| {
        let (list, indent, caret) = match at {
            AnnotateAt::Body => (Some(&at_top), "  ", ""),
            AnnotateAt::Block(b) => (Some(&at_block[b]), "    ", "^ "),
            AnnotateAt::Inst(i) => (Some(&at_inst[i]), "    ", "^ "),
        };
        for e in list.into_iter().flatten() {
            out.push_str(&format!("{indent}; {caret}error: {}\n", e.message));
        }
    });
    out
}

const NONE: u32 = u32::MAX;

struct Verifier<'f> {
    f: &'f Function,
    level: VerifyLevel,
    nvptx: bool,
    cfg: Cfg,
    errors: Vec<VerifyError>,
    /// Position of each placed instruction in its block.
    pos: SecondaryMap<Inst, u32>,
    /// Number of instructions defining each vreg, and the first of them.
    def_count: SecondaryMap<VReg, u32>,
    first_def: SecondaryMap<VReg, Option<Inst>>,
    class_reported: SecondaryMap<VReg, bool>,
}

impl<'f> Verifier<'f> {
    fn new(f: &'f Function, level: VerifyLevel) -> Self {
        let mut pos = SecondaryMap::with_default(NONE);
        let mut def_count = SecondaryMap::new();
        let mut first_def: SecondaryMap<VReg, Option<Inst>> = SecondaryMap::new();
        for b in f.layout.blocks() {
            for (k, i) in f.layout.block_insts(b).enumerate() {
                pos[i] = k as u32;
                let d = &f.insts[i];
                let mut seen: Vec<VReg> = Vec::new();
                for (_, v) in d.vreg_defs() {
                    if !seen.contains(&v) {
                        seen.push(v);
                        def_count[v] += 1;
                        if first_def[v].is_none() {
                            first_def[v] = Some(i);
                        }
                    }
                }
            }
        }
        Verifier {
            f,
            level,
            nvptx: f.target == Target::Nvptx,
            cfg: Cfg::new(f),
            errors: Vec::new(),
            pos,
            def_count,
            first_def,
            class_reported: SecondaryMap::new(),
        }
    }

    fn err(&mut self, rule: Rule, block: Option<Block>, inst: Option<Inst>, msg: String) {
        self.errors.push(VerifyError {
            rule,
            block,
            inst,
            message: msg,
        });
    }

    fn bb(&self, b: Block) -> String {
        match self.f.blocks.get(b) {
            Some(d) => format!("bb.{}", d.number),
            None => format!("block #{}", b.index()),
        }
    }

    fn class_name(&self, v: VReg) -> String {
        match self.f.vreg_class(v) {
            Some(c) => format!("{}", c.display(&self.f.names)),
            None => String::from("<no class>"),
        }
    }

    fn run(&mut self) {
        let f = self.f;
        self.check_properties();
        let blocks: Vec<Block> = f.layout.blocks().collect();
        for (k, &b) in blocks.iter().enumerate() {
            self.check_block_shape(b);
            self.check_successors(b, blocks.get(k + 1).copied());
            for i in f.layout.block_insts(b) {
                self.check_inst(b, i);
            }
        }
        let kills = super::verify_kills::check(f, &self.cfg, |b| self.bb(b));
        for k in kills {
            self.err(Rule::KillFlag, Some(k.block), Some(k.inst), k.message);
        }
        let bb = |b| self.bb(b);
        for e in super::verify_liveins::check(f, &self.cfg, bb) {
            self.err(Rule::LiveIns, Some(e.block), None, e.message);
        }
        if self.level == VerifyLevel::Ssa {
            self.check_ssa();
        } else {
            for r in undefined_reads(f) {
                let b = f.layout.inst_block(r.inst);
                let what = match r.lane {
                    Some(l) => format!("lane sub{l} of %{}", r.vreg.index()),
                    None => format!("%{}", r.vreg.index()),
                };
                // Registers with no def at all are already reported as undefined.
                if self.def_count[r.vreg] == 0 {
                    continue;
                }
                self.err(
                    Rule::ReadBeforeDef,
                    b,
                    Some(r.inst),
                    format!("{what} is read here, but some path from the entry reaches this read before any def of it"),
                );
            }
        }
    }

    fn check_properties(&mut self) {
        let p = self.f.props;
        if self.level == VerifyLevel::Ssa && !p.is_ssa {
            self.err(
                Rule::Properties,
                None,
                None,
                String::from("isSSA is false, but this stage expects SSA form"),
            );
        }
        if self.level >= VerifyLevel::PostPhiElim && !p.no_phis {
            self.err(
                Rule::Properties,
                None,
                None,
                String::from("noPhis is false after PHI elimination"),
            );
        }
    }

    /// Terminators last, PHIs first.
    fn check_block_shape(&mut self, b: Block) {
        let f = self.f;
        let mut term: Option<Inst> = None;
        let mut non_phi: Option<Inst> = None;
        let mut reported_term = false;
        for i in f.layout.block_insts(b) {
            let d = &f.insts[i];
            if d.desc().has(flag::TERMINATOR) {
                term = Some(i);
            } else if let (Some(t), false) = (term, reported_term) {
                reported_term = true;
                let tname = opcode_name(f, &f.insts[t]);
                self.err(
                    Rule::TerminatorNotAtEnd,
                    Some(b),
                    Some(i),
                    format!(
                        "this instruction follows the terminator `{tname}`; terminators must end the block"
                    ),
                );
            }
            if d.is(Op::PHI) {
                if let Some(n) = non_phi {
                    let first = opcode_name(f, &f.insts[n]);
                    self.err(
                        Rule::PhiPlacement,
                        Some(b),
                        Some(i),
                        format!(
                            "PHI after the non-PHI `{first}`; PHIs must come first in their block"
                        ),
                    );
                }
            } else if non_phi.is_none() {
                non_phi = Some(i);
            }
        }
    }

    fn check_successors(&mut self, b: Block, next: Option<Block>) {
        let f = self.f;
        let succs: Vec<Block> = f.blocks[b].succs.iter().map(|&(s, _)| s).collect();
        for &s in &succs {
            if !self.cfg.in_layout(s) {
                self.err(
                    Rule::Successors,
                    Some(b),
                    None,
                    format!("successor {} is not a block of this function", self.bb(s)),
                );
            }
        }
        let mut targets: Vec<Block> = Vec::new();
        let mut last: Option<Inst> = None;
        for i in f.layout.block_insts(b) {
            last = Some(i);
            let d = &f.insts[i];
            if !d.desc().has(flag::BRANCH) {
                continue;
            }
            for o in &d.operands {
                if let OperandKind::Block(t) = o.kind {
                    if !self.cfg.in_layout(t) {
                        self.err(
                            Rule::Successors,
                            Some(b),
                            Some(i),
                            format!(
                                "branch to {}, which is not a block of this function",
                                self.bb(t)
                            ),
                        );
                        continue;
                    }
                    if !succs.contains(&t) {
                        self.err(
                            Rule::Successors,
                            Some(b),
                            Some(i),
                            format!(
                                "branch to {}, which is not in the successor list of {}",
                                self.bb(t),
                                self.bb(b)
                            ),
                        );
                    }
                    if !targets.contains(&t) {
                        targets.push(t);
                    }
                }
            }
        }
        // The exact successor set is known only when the block ends in a known opcode.
        if !self.nvptx || last.is_some_and(|i| matches!(f.insts[i].opcode, Opcode::Other(_))) {
            return;
        }
        // Falls through unless the last terminator is a return or an unconditional branch.
        let falls_through = match (f.first_terminator(b), last) {
            (Some(_), Some(l)) => f.insts[l].desc().has(flag::CONDITIONAL),
            _ => true,
        };
        let mut expected = targets;
        if falls_through {
            match next {
                Some(n) => {
                    if !succs.contains(&n) {
                        self.err(
                            Rule::Successors,
                            Some(b),
                            None,
                            format!(
                                "{} falls through to {}, which is not in its successor list",
                                self.bb(b),
                                self.bb(n)
                            ),
                        );
                    }
                    if !expected.contains(&n) {
                        expected.push(n);
                    }
                }
                None => self.err(
                    Rule::Successors,
                    Some(b),
                    last,
                    format!(
                        "{} is the last block and does not end in a return or an unconditional branch: control falls off the end of the function",
                        self.bb(b)
                    ),
                ),
            }
        }
        for s in succs {
            if self.cfg.in_layout(s) && !expected.contains(&s) {
                self.err(
                    Rule::Successors,
                    Some(b),
                    None,
                    format!(
                        "{} is listed as a successor of {}, but no branch goes there and it is not the fall-through",
                        self.bb(s),
                        self.bb(b)
                    ),
                );
            }
        }
    }

    fn check_inst(&mut self, b: Block, i: Inst) {
        let f = self.f;
        let d = &f.insts[i];
        self.check_tied_indexes(b, i, d);
        self.check_def_count(b, i, d);
        self.check_shape(b, i, d);
        if d.is(Op::PHI) {
            self.check_phi(b, i, d);
        }
        // Reads of registers nothing defines.
        for o in &d.operands {
            let Some(v) = o.vreg_of() else { continue };
            if o.is_use() && !o.has(oflag::UNDEF) && self.def_count[v] == 0 {
                self.err(
                    Rule::UndefinedVReg,
                    Some(b),
                    Some(i),
                    format!("%{} is used but never defined", v.index()),
                );
            }
        }
        if self.nvptx {
            self.check_classes(b, i, d);
        }
        if self.level >= VerifyLevel::PostPhiElim && d.is(Op::PHI) {
            self.err(
                Rule::PhiAfterElimination,
                Some(b),
                Some(i),
                String::from("PHI left after PHI elimination"),
            );
        } else if d.is(Op::PHI) && f.props.no_phis {
            self.err(
                Rule::Properties,
                Some(b),
                Some(i),
                String::from("PHI in a function whose noPhis property is true"),
            );
        }
        if self.level >= VerifyLevel::PostTwoAddress {
            self.check_tied_registers(b, i, d);
            if let Some(op) = d.opcode.known() {
                if matches!(
                    op,
                    Op::REG_SEQUENCE | Op::INSERT_SUBREG | Op::EXTRACT_SUBREG
                ) {
                    self.err(
                        Rule::SubregPseudo,
                        Some(b),
                        Some(i),
                        format!(
                            "{} left after the two-address pass (it lowers them to COPYs)",
                            op.name()
                        ),
                    );
                }
            }
        }
        if self.level >= VerifyLevel::PostCoalesce && d.is_copy() {
            let (dst, src) = (explicit_defs(d).next(), explicit_uses(d).next());
            if let (Some(a), Some(s)) = (dst, src) {
                if a.get_reg() == s.get_reg() && a.subreg == s.subreg && a.vreg_of().is_some() {
                    self.err(
                        Rule::IdentityCopy,
                        Some(b),
                        Some(i),
                        String::from(
                            "identity COPY left after coalescing (it should have been erased)",
                        ),
                    );
                }
            }
        }
    }

    fn check_tied_indexes(&mut self, b: Block, i: Inst, d: &InstData) {
        let n = d.operands.len();
        let mut tied_to: Vec<u8> = Vec::new();
        for (k, o) in d.operands.iter().enumerate() {
            let Some(t) = o.tied_def else { continue };
            let msg = if o.is_def() {
                Some(format!(
                    "operand {k} is a def but carries `tied-def {t}` (only uses are tied)"
                ))
            } else if t as usize >= n {
                Some(format!(
                    "operand {k} is `tied-def {t}`, but the instruction has {n} operands"
                ))
            } else if !d.operands[t as usize].is_def() {
                Some(format!(
                    "operand {k} is `tied-def {t}`, but operand {t} is not a register def"
                ))
            } else if tied_to.contains(&t) {
                Some(format!("def operand {t} is tied to more than one use"))
            } else if d.tie_free {
                Some(format!(
                    "operand {k} is `tied-def {t}`, but the instruction is marked tie-free (an edit gave it a tie without clearing the mark)"
                ))
            } else {
                None
            };
            tied_to.push(t);
            if let Some(m) = msg {
                self.err(Rule::TiedIndex, Some(b), Some(i), m);
            }
        }
    }

    fn check_def_count(&mut self, b: Block, i: Inst, d: &InstData) {
        let Opcode::Known(op) = d.opcode else { return };
        let desc = op.desc();
        if desc.has(flag::VARIADIC) {
            return;
        }
        let defs = explicit_defs(d).count();
        if defs != desc.defs as usize {
            self.err(
                Rule::DefCount,
                Some(b),
                Some(i),
                format!(
                    "{} has {defs} explicit def{}; the opcode table says {}",
                    op.name(),
                    if defs == 1 { "" } else { "s" },
                    desc.defs
                ),
            );
        }
    }

    /// Operand layout of the pseudos whose shape the passes rely on.
    fn check_shape(&mut self, b: Block, i: Inst, d: &InstData) {
        let Some(op) = d.opcode.known() else { return };
        let rest: Vec<&Operand> = d
            .operands
            .iter()
            .filter(|o| !(o.is_def() || o.has(oflag::IMPLICIT)))
            .collect();
        let msg = match op {
            Op::COPY => (rest.len() != 1 || !rest[0].is_reg()).then(|| {
                format!(
                    "COPY takes one register to copy; it has {} source operands",
                    rest.len()
                )
            }),
            Op::REG_SEQUENCE => {
                let ok = !rest.is_empty()
                    && rest.len().is_multiple_of(2)
                    && rest
                        .chunks(2)
                        .all(|p| p[0].is_reg() && matches!(p[1].kind, OperandKind::SubRegIdx(_)));
                (!ok).then(|| String::from("REG_SEQUENCE takes pairs of (register, %subreg.index)"))
            }
            Op::INSERT_SUBREG => {
                let ok = rest.len() == 3
                    && rest[0].is_reg()
                    && rest[1].is_reg()
                    && matches!(rest[2].kind, OperandKind::SubRegIdx(_));
                (!ok).then(|| {
                    String::from(
                        "INSERT_SUBREG takes (register, register to insert, %subreg.index)",
                    )
                })
            }
            _ => None,
        };
        if let Some(m) = msg {
            self.err(Rule::OperandShape, Some(b), Some(i), m);
        }
    }

    /// A PHI whose operands after the def are not (value, block) pairs.
    fn phi_pairs_error(&mut self, b: Block, i: Inst) {
        self.err(
            Rule::PhiOperands,
            Some(b),
            Some(i),
            String::from("PHI operands must come in (value, %bb.N) pairs"),
        );
    }

    fn check_phi(&mut self, b: Block, i: Inst, d: &InstData) {
        let ops = &d.operands;
        if ops.is_empty() || !ops[0].is_def() || explicit_defs(d).count() != 1 {
            self.err(
                Rule::PhiOperands,
                Some(b),
                Some(i),
                String::from("a PHI defines exactly one register, as its first operand"),
            );
            return;
        }
        let pairs = &ops[1..];
        if !pairs.len().is_multiple_of(2) {
            self.phi_pairs_error(b, i);
            return;
        }
        let preds = self.cfg.preds(b).to_vec();
        let mut seen: Vec<Block> = Vec::new();
        for p in pairs.chunks(2) {
            let (val, blk) = (&p[0], &p[1]);
            let OperandKind::Block(pb) = blk.kind else {
                self.phi_pairs_error(b, i);
                return;
            };
            if !val.is_reg() {
                self.err(
                    Rule::PhiOperands,
                    Some(b),
                    Some(i),
                    format!("the incoming value from {} is not a register", self.bb(pb)),
                );
            }
            if seen.contains(&pb) {
                self.err(
                    Rule::PhiOperands,
                    Some(b),
                    Some(i),
                    format!(
                        "{} appears twice among the PHI's incoming blocks",
                        self.bb(pb)
                    ),
                );
            } else if !preds.contains(&pb) {
                self.err(
                    Rule::PhiOperands,
                    Some(b),
                    Some(i),
                    format!("{} is not a predecessor of {}", self.bb(pb), self.bb(b)),
                );
            }
            seen.push(pb);
        }
        for p in preds {
            if !seen.contains(&p) {
                self.err(
                    Rule::PhiOperands,
                    Some(b),
                    Some(i),
                    format!("no incoming value for predecessor {}", self.bb(p)),
                );
            }
        }
    }

    fn check_classes(&mut self, b: Block, i: Inst, d: &InstData) {
        for o in &d.operands {
            let Some(v) = o.vreg_of() else { continue };
            let class = self.f.vreg_class(v);
            if class.is_none() {
                if !self.class_reported[v] {
                    self.class_reported[v] = true;
                    self.err(
                        Rule::MissingClass,
                        Some(b),
                        Some(i),
                        format!("%{} has no register class", v.index()),
                    );
                }
                continue;
            }
            if let Some(s) = o.subreg {
                if let Some(m) = self.subreg_problem(v, s) {
                    self.err(Rule::SubRegIndex, Some(b), Some(i), m);
                }
            }
        }
        let Some(op) = d.opcode.known() else { return };
        match op {
            Op::COPY => {
                if let (Some(dst), Some(src)) = (explicit_defs(d).next(), explicit_uses(d).next()) {
                    self.same_shape(b, i, "COPY", dst, src);
                }
            }
            Op::PHI => {
                let Some(dst) = d.operands.first().filter(|o| o.is_def()) else {
                    return;
                };
                for src in d.operands.iter().skip(1).filter(|o| o.is_reg()) {
                    self.same_shape(b, i, "PHI", dst, src);
                }
            }
            Op::REG_SEQUENCE => {
                let Some(dst) = explicit_defs(d).next() else {
                    return;
                };
                let rest: Vec<&Operand> = explicit_uses_all(d).collect();
                for p in rest.chunks(2) {
                    if let [src, idx] = p {
                        self.lane_insert(b, i, "REG_SEQUENCE", dst, src, idx);
                    }
                }
            }
            Op::INSERT_SUBREG => {
                let Some(dst) = explicit_defs(d).next() else {
                    return;
                };
                let rest: Vec<&Operand> = explicit_uses_all(d).collect();
                if let [whole, src, idx] = rest[..] {
                    self.same_shape(b, i, "INSERT_SUBREG", dst, whole);
                    self.lane_insert(b, i, "INSERT_SUBREG", dst, src, idx);
                }
            }
            Op::EXTRACT_SUBREG => {
                let defs: Vec<&Operand> = explicit_defs(d).collect();
                let uses: Vec<&Operand> = explicit_uses_all(d).collect();
                if let ([dst], [src, idx]) = (&defs[..], &uses[..]) {
                    if let OperandKind::SubRegIdx(s) = idx.kind {
                        // LLVM's form: `%d = EXTRACT_SUBREG %s, %subreg.subK`.
                        let mut lane = **src;
                        lane.subreg = Some(s);
                        if let Some(m) = src.vreg_of().and_then(|v| self.subreg_problem(v, s)) {
                            self.err(Rule::SubRegIndex, Some(b), Some(i), m);
                        } else {
                            self.same_shape(b, i, "EXTRACT_SUBREG", dst, &lane);
                        }
                        return;
                    }
                }
                // The CICC form: the i-th def takes the i-th use.
                if defs.len() == uses.len() {
                    for (dst, src) in defs.iter().zip(&uses) {
                        self.same_shape(b, i, "EXTRACT_SUBREG", dst, src);
                    }
                } else {
                    self.err(
                        Rule::OperandShape,
                        Some(b),
                        Some(i),
                        format!(
                            "EXTRACT_SUBREG pairs its defs with its uses, but it has {} defs and {} uses",
                            defs.len(),
                            uses.len()
                        ),
                    );
                }
            }
            _ => {}
        }
    }

    /// Why `%v.s` is not a valid NVPTX sub-register, if it is not.
    fn subreg_problem(&self, v: VReg, s: SubReg) -> Option<String> {
        let class = self.f.vreg_class(v)?;
        match (s.kind(), class) {
            (SubRegKind::Lane(k), RegClass::Tuple { lanes, .. }) if k >= lanes => Some(format!(
                "%{}.sub{k}: %{} is {}, whose lanes are sub0..sub{}",
                v.index(),
                v.index(),
                self.class_name(v),
                lanes - 1
            )),
            (SubRegKind::Lane(_), RegClass::Tuple { .. }) => None,
            (SubRegKind::Lane(k), _) => Some(format!(
                "%{}.sub{k}: %{} is the scalar class {}; NVPTX registers have no sub-registers (only tuple classes have lanes)",
                v.index(),
                v.index(),
                self.class_name(v)
            )),
            (SubRegKind::Named(n), _) => Some(format!(
                "sub-register index `{}` is not an NVPTX lane (sub0..subN-1)",
                self.f.sym(n)
            )),
        }
    }

    /// (family, lanes) an operand holds: a lane of a tuple, or its whole class.
    fn shape(&self, o: &Operand) -> Option<(Family, u8)> {
        let class = self.f.vreg_class(o.vreg_of()?)?;
        let fam = class.family()?;
        match o.subreg.map(SubReg::kind) {
            Some(SubRegKind::Lane(_)) => Some((fam, 1)),
            // Reported as a bad index already.
            Some(SubRegKind::Named(_)) => None,
            None => Some((fam, class.lanes())),
        }
    }

    fn shape_name(&self, o: &Operand) -> String {
        let Some(v) = o.vreg_of() else {
            return String::from("a register");
        };
        match o.subreg.and_then(SubReg::lane) {
            Some(k) => {
                format!("%{}.sub{k} (a lane of {})", v.index(), self.class_name(v))
            }
            _ => format!("%{} ({})", v.index(), self.class_name(v)),
        }
    }

    fn same_shape(&mut self, b: Block, i: Inst, what: &str, dst: &Operand, src: &Operand) {
        let (Some(a), Some(s)) = (self.shape(dst), self.shape(src)) else {
            return;
        };
        if a == s {
            return;
        }
        let why = if a.0 != s.0 {
            format!("{}-bit vs {}-bit", a.0.bits(), s.0.bits())
        } else {
            format!("{} lanes vs {}", a.1, s.1)
        };
        self.err(
            Rule::ClassMismatch,
            Some(b),
            Some(i),
            format!(
                "{what} from {} to {}: the registers differ in width ({why})",
                self.shape_name(src),
                self.shape_name(dst)
            ),
        );
    }

    /// `src` goes into lane `idx` of `dst` (REG_SEQUENCE, INSERT_SUBREG).
    fn lane_insert(
        &mut self,
        b: Block,
        i: Inst,
        what: &str,
        dst: &Operand,
        src: &Operand,
        idx: &Operand,
    ) {
        let (Some(dv), OperandKind::SubRegIdx(s)) = (dst.vreg_of(), idx.kind) else {
            return;
        };
        if let Some(m) = self.subreg_problem(dv, s) {
            self.err(Rule::SubRegIndex, Some(b), Some(i), m);
            return;
        }
        let mut lane = *dst;
        lane.subreg = Some(s);
        self.same_shape(b, i, what, &lane, src);
    }

    fn check_tied_registers(&mut self, b: Block, i: Inst, d: &InstData) {
        for (k, o) in d.operands.iter().enumerate() {
            let Some(t) = o.tied_def else { continue };
            let Some(def) = d.operands.get(t as usize).filter(|x| x.is_def()) else {
                continue;
            };
            if o.get_reg() != def.get_reg() || o.subreg != def.subreg {
                let mut u = String::new();
                let mut dd = String::new();
                super::print::write_reg(&mut u, self.f, o.get_reg().unwrap_or(super::Reg::NoReg));
                super::print::write_reg(
                    &mut dd,
                    self.f,
                    def.get_reg().unwrap_or(super::Reg::NoReg),
                );
                self.err(
                    Rule::TiedMismatch,
                    Some(b),
                    Some(i),
                    format!(
                        "operand {k} ({u}) is tied to def operand {t} ({dd}) but names another register; the two-address pass should have made them one"
                    ),
                );
            }
        }
    }

    /// One def per register; every use dominated by its def.
    fn check_ssa(&mut self) {
        let f = self.f;
        let dom = DomTree::new(&self.cfg);
        for b in f.layout.blocks() {
            for i in f.layout.block_insts(b) {
                let d = &f.insts[i];
                let mut reported: Vec<VReg> = Vec::new();
                for (_, v) in d.vreg_defs() {
                    if self.first_def[v] != Some(i) && !reported.contains(&v) {
                        reported.push(v);
                        let first = self.first_def[v].and_then(|x| f.layout.inst_block(x));
                        let where_ = first.map(|x| self.bb(x)).unwrap_or_default();
                        self.err(
                            Rule::MultipleDefs,
                            Some(b),
                            Some(i),
                            format!(
                                "%{} is defined again (first defined in {where_}); SSA allows one def per register",
                                v.index()
                            ),
                        );
                    }
                }
                let is_phi = d.is(Op::PHI);
                for (k, o) in d.operands.iter().enumerate() {
                    let Some(v) = o.vreg_of() else { continue };
                    if !o.is_use() || o.has(oflag::UNDEF) || self.def_count[v] != 1 {
                        continue;
                    }
                    let Some(di) = self.first_def[v] else {
                        continue;
                    };
                    let Some(db) = f.layout.inst_block(di) else {
                        continue;
                    };
                    if is_phi {
                        let Some(OperandKind::Block(p)) = d.operands.get(k + 1).map(|x| x.kind)
                        else {
                            continue;
                        };
                        if !self.cfg.is_reachable(p) || db == p || dom.dominates(db, p) {
                            continue;
                        }
                        self.err(
                            Rule::Dominance,
                            Some(b),
                            Some(i),
                            format!(
                                "%{} flows in from {}, but its def in {} does not dominate the end of {}",
                                v.index(),
                                self.bb(p),
                                self.bb(db),
                                self.bb(p)
                            ),
                        );
                        continue;
                    }
                    if !self.cfg.is_reachable(b) {
                        continue;
                    }
                    let ok = if db == b {
                        self.pos[di] < self.pos[i]
                    } else {
                        dom.dominates(db, b)
                    };
                    if !ok {
                        let m = if db == b {
                            format!(
                                "%{} is used before its def later in {}",
                                v.index(),
                                self.bb(b)
                            )
                        } else {
                            format!(
                                "%{} is used here, but its def in {} does not dominate {}",
                                v.index(),
                                self.bb(db),
                                self.bb(b)
                            )
                        };
                        self.err(Rule::Dominance, Some(b), Some(i), m);
                    }
                }
            }
        }
    }
}

pub(crate) fn opcode_name<'a>(f: &'a Function, d: &InstData) -> &'a str {
    match d.opcode {
        Opcode::Known(op) => op.name(),
        Opcode::Other(s) => f.sym(s),
    }
}

/// Explicit (non-implicit) register defs.
fn explicit_defs(d: &InstData) -> impl Iterator<Item = &Operand> {
    d.operands
        .iter()
        .filter(|o| o.is_def() && !o.has(oflag::IMPLICIT))
}

/// Explicit register uses.
fn explicit_uses(d: &InstData) -> impl Iterator<Item = &Operand> {
    d.operands
        .iter()
        .filter(|o| o.is_use() && !o.has(oflag::IMPLICIT))
}

/// Every explicit non-def operand (registers, sub-register indexes, immediates).
fn explicit_uses_all(d: &InstData) -> impl Iterator<Item = &Operand> {
    d.operands
        .iter()
        .filter(|o| !o.is_def() && !o.has(oflag::IMPLICIT))
}
