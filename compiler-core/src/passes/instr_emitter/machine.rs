//! The generic path: a machine node becomes one instruction (spec phases 4–6), and a
//! node with more results than its opcode's single tuple def becomes that instruction
//! plus one EXTRACT_SUBREG with a def/use pair per result, built by recursion.
//!
//! ```text
//!  bit-36 site 1 ─▶ skip?
//!  CreateVirtualRegisters: class = instruction ∩ value type (divergence-aware);
//!                          a sole CopyToReg user's register is reused
//!  operands: values ─▶ AddRegisterOperand (constrain, or COPY when the class would
//!            shrink below MinRCSize = 4 registers); leaves ─▶ immediates, symbols, blocks
//!  insert; the three hooks (custom inserter 0xB8, post-RA pseudo 0x348, sub-register 0x160):
//!          which opcodes each claims is CopyScope's table; a claim is recorded, nothing
//!          is expanded
//!  implicit defs: used ones captured by a COPY; the rest marked dead
//!  lanes: emit_lane(k) adds pair k to the EXTRACT_SUBREG, then recurses to k+1;
//!         pair k>0 gets isTied (same producer as lane k-1) and earlyTied when its result
//!         directly follows lane k-1's in the node's result list
//! ```

use super::{Emitter, RecordKind, ResultRecord};
use crate::dag::{target, Dag, DagOp, Node, Operand, RegRef, Value, Vt};
use crate::entity::EntityRef;
use crate::error::SourceError;
use crate::mir::operand::{FpImm, Sigil};
use crate::mir::{
    oflag, Inst, InstData, Op, Opcode, Operand as MOp, OperandKind, Reg, RegClass, SubReg, VReg,
};
use crate::trace::{Focus, Payload, Recorder, Step};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// The MinRCSize threshold: a class constraint may not leave fewer registers than this.
pub const MIN_RC_SIZE: u32 = 4;

/// The MIR use position of DAG operand `k` of `n` (chains, glue and class leaves have none).
pub fn mir_use_index(dag: &Dag, n: Node, k: usize) -> usize {
    dag.nodes[n].operands[..k]
        .iter()
        .filter(|o| match o {
            Operand::Value(v) => dag.value_type(*v).is_value(),
            Operand::Class(_) => false,
            _ => true,
        })
        .count()
}

/// How a machine node's data results map onto its instruction's defs.
struct ResultLayout {
    /// The node's data results (result numbers), in order.
    vres: Vec<usize>,
    /// The single tuple def whose lanes are the first `lanes` results (lanes mode).
    tuple: Option<RegClass>,
    lanes: usize,
    /// Results taken by explicit defs; the rest are implicit defs'.
    explicit: usize,
}

impl<R: Recorder> Emitter<'_, '_, '_, R> {
    pub(crate) fn emit_machine(&mut self, n: Node, op: Op) -> Result<(), SourceError> {
        if self.bit36(n, 1)? {
            return Ok(());
        }
        if op == Op::REG_SEQUENCE {
            return self.reg_sequence(n);
        }
        if op == Op::IMPLICIT_DEF && self.opts.llc22 {
            let name = self.dag.name_of(n);
            self.node_step(n, "generic", vec![], format!("{name} is an IMPLICIT_DEF: llc-22's emitter builds nothing here; each use gets an IMPLICIT_DEF register of its own, made right before its user."), "implicit_def_per_use");
            return Ok(());
        }
        let dag = self.dag;
        let d = &dag.nodes[n];
        let info = target::emitter_info(op, self.opts.llc22);
        let layout = self.result_layout(n, op, &info)?;
        // CreateVirtualRegisters, then AddOperand for each use, then the implicit defs.
        let (mut operands, tuple_vreg) = self.create_defs(n, op, &layout, &info)?;
        let lhs = operands.len();
        for (k, o) in d.operands.iter().enumerate() {
            if let Some(mo) = self.use_operand(n, k, o, &info)? {
                operands.push(mo);
            }
        }
        for r in info.implicit_defs {
            let p = self.ed.intern(r);
            operands.push(MOp::reg(Reg::Phys(p), oflag::DEF | oflag::IMPLICIT));
        }
        let mut data = InstData::new(Opcode::Known(op), operands);
        data.lhs_defs = lhs as u16;
        data.mem = d.attrs.mem.as_deref().map(|m| self.ed.intern(m));
        data.mi_flags = d.attrs.mi_flags;
        let mi = self.append(n, data);
        if lhs > 0 {
            self.records.push(ResultRecord {
                node: n,
                inst: mi,
                kind: RecordKind::Other,
            });
        }
        self.emit_step(n, op, mi, &info);
        self.hooks(n, op, mi, &info);
        self.implicit_defs(n, mi, &info, &layout.vres[layout.explicit..])?;
        if let (Some(t), Some(tv)) = (layout.tuple, tuple_vreg) {
            let results = &layout.vres[..layout.lanes];
            self.emit_lane(n, tv, t, results, 0, None)?;
        }
        Ok(())
    }

    /// Which of the node's data results the instruction's explicit defs take (all of a
    /// single tuple def's lanes, in lanes mode) and which are left for implicit defs;
    /// more results than the two together is an error.
    fn result_layout(
        &self,
        n: Node,
        op: Op,
        info: &target::InstrInfo,
    ) -> Result<ResultLayout, SourceError> {
        let dag = self.dag;
        let d = &dag.nodes[n];
        let vres: Vec<usize> = d.value_results().collect();
        // A single tuple def whose lanes are separate results of the node.
        let tuple = info
            .def_class(0)
            .filter(|c| c.lanes() > 1 && op.desc().defs == 1);
        let lanes = tuple.map_or(0, |t| t.lanes() as usize);
        let lanes_mode = tuple.is_some()
            && vres.len() >= lanes
            && vres[..lanes].iter().all(|&r| d.types[r] != Vt::Untyped);
        let explicit = if lanes_mode {
            lanes
        } else {
            vres.len().min(op.desc().defs as usize)
        };
        if vres.len() - explicit > info.implicit_defs.len() {
            let (l, c) = dag.pos(n);
            return Err(SourceError::new(
                l,
                c,
                format!(
                    "{} has {} data results, but {} defines {} register(s){}",
                    dag.name_of(n),
                    vres.len(),
                    op.name(),
                    explicit,
                    if info.implicit_defs.is_empty() {
                        String::new()
                    } else {
                        format!(" and implicitly ${}", info.implicit_defs.join(", $"))
                    }
                ),
            ));
        }
        Ok(ResultLayout {
            vres,
            tuple: tuple.filter(|_| lanes_mode),
            lanes,
            explicit,
        })
    }

    /// CreateVirtualRegisters: one register per explicit def, or in lanes mode one
    /// register of the tuple class for the whole tuple (returned too: its lanes are
    /// handed out after the instruction is built).
    fn create_defs(
        &mut self,
        n: Node,
        op: Op,
        layout: &ResultLayout,
        info: &target::InstrInfo,
    ) -> Result<(Vec<MOp>, Option<VReg>), SourceError> {
        let Some(t) = layout.tuple else {
            let mut defs = Vec::new();
            for (i, &r) in layout.vres[..layout.explicit].iter().enumerate() {
                let v = self.create_vreg(n, r, info.def_class(i))?;
                defs.push(MOp::vreg(v, oflag::DEF));
            }
            return Ok((defs, None));
        };
        let v = self.ed.new_vreg(Some(t));
        self.stats.vregs_created += 1;
        let (vn, tn, name) = (
            self.reg_name(Reg::Virt(v)),
            self.class_name(Some(t)),
            self.dag.name_of(n),
        );
        let lanes = layout.lanes;
        let class = self.class_text(t);
        self.step(|| {
            Step::new("create_vreg", format!("{name} has {lanes} results but {} defines a single {tn} register: {vn} is created for the whole tuple; its lanes are handed out below.", op.name()))
                .focus(Focus::vreg(v))
                .payload(crate::trace::EmitterVReg { vreg: v.index() as u32, inst_class: Some(class.clone()), type_class: None, divergent: false, chosen: class, reused: false })
        });
        Ok((vec![MOp::vreg(v, oflag::DEF)], Some(v)))
    }

    /// AddOperand: the MIR operand of node operand `k` (None for chains, glue and the
    /// class operand), a register use constrained to the class the instruction needs.
    fn use_operand(
        &mut self,
        n: Node,
        k: usize,
        o: &Operand,
        info: &target::InstrInfo,
    ) -> Result<Option<MOp>, SourceError> {
        let dag = self.dag;
        let pos = mir_use_index(dag, n, k);
        let mo = match o {
            Operand::Value(v) if !dag.value_type(*v).is_value() => return Ok(None),
            Operand::Value(v) => {
                let r = self.use_vr(*v, n, k)?;
                let r = self.constrain_use(r, info.use_class(pos), Some(*v), n)?;
                MOp::reg(r, self.kill_flag(*v))
            }
            Operand::Reg { reg, .. } => {
                let r = self.reg_of(reg);
                let r = self.constrain_use(r, info.use_class(pos), None, n)?;
                MOp::reg(r, 0)
            }
            Operand::Const { value, .. } => MOp::imm(*value),
            Operand::Symbol(s) => MOp::new(OperandKind::Global {
                sym: self.ed.intern(s),
                sigil: Sigil::Amp,
                offset: 0,
            }),
            Operand::Global { name, offset } => {
                // LLVM's printLLVMNameWithoutPrefix: quoted unless every byte is
                // alphanumeric, `-`, `.` or `_` and the first is not a digit.
                let plain = !name.starts_with(|c: char| c.is_ascii_digit())
                    && name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c));
                MOp::new(OperandKind::Global {
                    sym: self.ed.intern(name),
                    sigil: if plain { Sigil::At } else { Sigil::AtQuoted },
                    offset: *offset,
                })
            }
            Operand::ConstFp { ty, text } => MOp::new(OperandKind::FpImm(FpImm {
                ty: self.ed.intern(match ty {
                    Vt::F16 => "half",
                    Vt::F64 => "double",
                    _ => "float",
                }),
                text: self.ed.intern(text),
            })),
            Operand::Block(num) => {
                let b = self
                    .ed
                    .f
                    .block_by_number(*num)
                    .expect("checked in the snapshot");
                MOp::new(OperandKind::Block(b))
            }
            Operand::Str(s) => MOp::new(OperandKind::Verbatim(self.ed.intern(s))),
            Operand::FrameIndex(i) => MOp::new(OperandKind::Stack {
                fixed: false,
                index: *i,
            }),
            Operand::SubReg(l) => MOp::new(OperandKind::SubRegIdx(SubReg::of_lane(*l))),
            Operand::Class(_) => return Ok(None),
        };
        Ok(Some(mo))
    }

    /// The step that narrates a built machine instruction and the hooks its opcode has.
    fn emit_step(&mut self, n: Node, op: Op, mi: Inst, info: &target::InstrInfo) {
        let name = self.dag.name_of(n);
        let hooks: Vec<&str> = [
            (info.custom_inserter, "the custom inserter"),
            (info.post_ra_pseudo, "post-RA pseudo expansion"),
            (info.subreg_inserter, "the sub-register inserter"),
        ]
        .iter()
        .filter(|e| e.0)
        .map(|e| e.1)
        .collect();
        let hook_txt = if hooks.is_empty() {
            String::from(" CopyScope's target table has none of the three hooks claim it (the default stubs return false).")
        } else {
            format!(" CopyScope's target table has it claimed by: {} (recorded below; NVPTX defines no custom inserter, so nothing is expanded).", hooks.join(", "))
        };
        self.node_step(
            n,
            "generic",
            vec![mi],
            format!("{name} is a machine node: {} is built from its operands and appended to the block.{hook_txt}", op.name()),
            "emit",
        );
    }

    /// The register operand `k` of `user` reads for `v` (getVR): the value's register,
    /// or, emitting as llc-22 does, a fresh IMPLICIT_DEF register made right here when
    /// `v` is an IMPLICIT_DEF's (one per use: llc-22 emits none for the node itself).
    pub(crate) fn use_vr(&mut self, v: Value, user: Node, k: usize) -> Result<Reg, SourceError> {
        let dag = self.dag;
        if !self.opts.llc22 || dag.nodes[v.node].op != DagOp::Machine(Op::IMPLICIT_DEF) {
            return self.get_vr(v, user, k);
        }
        let vreg = self.ed.new_vreg(target::llc22_class(dag.value_type(v)));
        self.stats.vregs_created += 1;
        let data = InstData::new(
            Opcode::Known(Op::IMPLICIT_DEF),
            vec![MOp::vreg(vreg, oflag::DEF)],
        );
        let i = self.append(v.node, data);
        let (name, un, rn) = (
            dag.name_of(v.node),
            dag.name_of(user),
            self.reg_name(Reg::Virt(vreg)),
        );
        self.node_step(v.node, "generic", vec![i], format!("{un} reads {name}, an IMPLICIT_DEF: a fresh IMPLICIT_DEF {rn} is made for this use."), "implicit_def_per_use");
        Ok(Reg::Virt(vreg))
    }

    /// llc-22's kill flag for an operand reading `v` (AddRegisterOperand): `killed` when
    /// `v` has exactly one use, dead users (`extract_vector_elt`) included, and is not
    /// read out of a CopyFromReg (the emitter coalesces those with their register,
    /// which lives on). CICC's model sets none.
    pub(crate) fn kill_flag(&self, v: Value) -> u16 {
        if !self.opts.llc22 || self.dag.nodes[v.node].op == DagOp::CopyFromReg {
            return 0;
        }
        if self.users.of_value(v, self.dag).len() == 1 {
            oflag::KILL
        } else {
            0
        }
    }

    /// CreateVirtualRegisters for result `r` of `n`: instruction class ∩ value-type class
    /// (typed when divergent), or a sole CopyToReg user's register of that very class.
    fn create_vreg(
        &mut self,
        n: Node,
        r: usize,
        inst_rc: Option<RegClass>,
    ) -> Result<VReg, SourceError> {
        let dag = self.dag;
        let d = &dag.nodes[n];
        let vt = d.types[r];
        let divergent = d.attrs.divergent || inst_rc.is_some_and(target::is_divergent_class);
        let type_rc = if self.opts.llc22 {
            target::llc22_class(vt)
        } else {
            target::regclass_for(vt, divergent)
        };
        let rc = match (inst_rc, type_rc) {
            (Some(a), Some(b)) => target::common_subclass(a, b).unwrap_or(a),
            (Some(a), None) => a,
            (None, Some(b)) => b,
            (None, None) => {
                let (l, c) = dag.pos(n);
                return Err(SourceError::new(
                    l,
                    c,
                    format!(
                        "{}: result {r} is {vt} and {} gives it no register class",
                        dag.name_of(n),
                        d.op.name()
                    ),
                ));
            }
        };
        let value = Value {
            node: n,
            res: r as u16,
        };
        let reuse = self.copy_to_reg_target(value, rc);
        let v = self.reuse_or_new_vreg(reuse, rc);
        self.vr_map.insert(value, Reg::Virt(v));
        let (vn, name) = (self.reg_name(Reg::Virt(v)), dag.value_name(value));
        let (ic, tc, cc) = (
            inst_rc.map(|c| self.class_name(Some(c))),
            type_rc.map(|c| self.class_name(Some(c))),
            self.class_name(Some(rc)),
        );
        let why = match (&ic, &tc) {
            (None, Some(t)) if self.opts.llc22 => format!(
                "as llc-22 does, the {vt} type decides: its width class {t}"
            ),
            (Some(i), Some(t)) if *i == cc && *t == cc => format!(
                "the instruction and the {vt} type ({}, by CopyScope's divergence rule) agree on {cc}",
                if d.attrs.divergent {
                    "divergent"
                } else {
                    "uniform"
                }
            ),
            (Some(i), Some(t)) => format!(
                "the instruction wants {i}, the {} {vt} type {t} (by CopyScope's divergence rule); their common subclass is {cc}",
                if d.attrs.divergent {
                    "divergent"
                } else {
                    "uniform"
                }
            ),
            (Some(i), None) => format!("the instruction wants {i}"),
            (None, Some(t)) => format!(
                "the instruction leaves it open, so the {} {vt} type decides: {t} (CopyScope's rule, not from the spec: a divergent value gets its type's class, a uniform one its width's class)",
                if divergent { "divergent" } else { "uniform" }
            ),
            (None, None) => String::new(),
        };
        let reuse_txt = if reuse.is_some() {
            format!("; its only user copies it into {vn} of that class, so {vn} is defined directly and the CopyToReg will have nothing to do")
        } else {
            format!("; new register {vn}")
        };
        let classes = (
            inst_rc.map(|c| self.class_text(c)),
            type_rc.map(|c| self.class_text(c)),
            self.class_text(rc),
        );
        self.step(|| {
            Step::new("create_vreg", format!("{name}: {why}{reuse_txt}."))
                .focus(Focus::vreg(v))
                .payload(crate::trace::EmitterVReg {
                    vreg: v.index() as u32,
                    inst_class: classes.0,
                    type_class: classes.1,
                    divergent,
                    chosen: classes.2,
                    reused: reuse.is_some(),
                })
        });
        Ok(v)
    }

    /// The register of a sole CopyToReg user of `value`, when its class is exactly `rc`
    /// (emitting as llc-22: of the first CopyToReg user whose register has class `rc`).
    fn copy_to_reg_target(&self, value: Value, rc: RegClass) -> Option<VReg> {
        let dag = self.dag;
        let users = self.users.of_value(value, dag);
        if self.opts.llc22 {
            return users.iter().find_map(|&(u, k)| {
                let ud = &dag.nodes[u];
                if ud.op != DagOp::CopyToReg {
                    return None;
                }
                match (ud.op, k, &ud.operands[1]) {
                    (
                        DagOp::CopyToReg,
                        2,
                        Operand::Reg {
                            reg: RegRef::Virt(dv),
                            ..
                        },
                    ) => {
                        let dv = VReg::new(*dv as usize);
                        (self.ed.f.vreg_class(dv) == Some(rc)).then_some(dv)
                    }
                    _ => None,
                }
            });
        }
        let [(u, 2)] = users.as_slice() else {
            return None;
        };
        let ud = &dag.nodes[*u];
        if ud.op != DagOp::CopyToReg {
            return None;
        }
        let Operand::Reg {
            reg: RegRef::Virt(dv),
            ..
        } = &ud.operands[1]
        else {
            return None;
        };
        let dv = VReg::new(*dv as usize);
        (self.ed.f.vreg_class(dv) == Some(rc)).then_some(dv)
    }

    /// AddRegisterOperand: make `r` fit the operand's class `want`, by narrowing its class
    /// when that leaves at least MinRCSize registers, else by a COPY into a new register
    /// of `want`. A value from IMPLICIT_DEF may be narrowed without limit.
    pub(crate) fn constrain_use(
        &mut self,
        r: Reg,
        want: Option<RegClass>,
        value: Option<Value>,
        user: Node,
    ) -> Result<Reg, SourceError> {
        let (Reg::Virt(v), Some(want)) = (r, want) else {
            return Ok(r);
        };
        let Some(cur) = self.ed.f.vreg_class(v) else {
            self.ed.set_class(v, Some(want));
            return Ok(r);
        };
        if cur == want {
            return Ok(r);
        }
        let from_implicit_def =
            value.is_some_and(|x| self.dag.nodes[x.node].op == DagOp::Machine(Op::IMPLICIT_DEF));
        let min = if from_implicit_def { 0 } else { MIN_RC_SIZE };
        let common = target::common_subclass(cur, want);
        let (vn, cn, wn, un) = (
            self.reg_name(r),
            self.class_name(Some(cur)),
            self.class_name(Some(want)),
            self.dag.name_of(user),
        );
        match common {
            Some(c) if c == cur => Ok(r),
            Some(c) if target::num_regs(c) >= min => {
                self.ed.set_class(v, Some(c));
                self.stats.classes_constrained += 1;
                let nc = target::describe(c);
                self.step(|| {
                    Step::new("constrain_class", format!("{un} reads {vn} where it needs {wn}; {vn} is {cn}, and narrowing it to {nc} leaves at least {min} registers, so its class is narrowed in place."))
                        .focus(Focus::vreg(v))
                });
                Ok(r)
            }
            _ => {
                let nv = self.ed.new_vreg(Some(want));
                self.stats.vregs_created += 1;
                let i = self.append_copy(user, nv, Reg::Virt(v), RecordKind::Constrain);
                self.stats.min_rc_copies += 1;
                let nn = self.reg_name(Reg::Virt(nv));
                let why = match common {
                    None => format!("{cn} and {wn} have no common subclass"),
                    Some(c) => format!(
                        "their common subclass {} has fewer than MinRCSize = {MIN_RC_SIZE}",
                        target::describe(c)
                    ),
                };
                self.step(|| {
                    Step::new("min_rc_copy", format!("{un} reads {vn} ({cn}) where it needs {wn}: {why}, so instead of narrowing {vn} the value is copied into a new {wn} register: COPY {nn}, {vn}."))
                        .focus(Focus::inst(i))
                        .focus(Focus::vreg(nv))
                });
                Ok(Reg::Virt(nv))
            }
        }
    }

    /// Phase 5: the triple vtable dispatch, one traced decision per claimed hook.
    fn hooks(&mut self, n: Node, op: Op, mi: Inst, info: &target::InstrInfo) {
        let name = self.dag.name_of(n);
        let number = self.dag.nodes[n].number;
        let family = match op {
            Op::TEX_UNIFIED_2D_F32_F32_R
            | Op::TEX_UNIFIED_1D_S32_S32_R
            | Op::TEX_2D_V4F32_F32
            | Op::TEX_2D_V4F32_F32_P => "a texture fetch",
            Op::SHFL_SYNC_IDX_i32 | Op::SHFL_SYNC_DOWN_i32 => "a warp shuffle",
            _ => "this pseudo",
        };
        for (claimed, kind, text) in [
            (info.custom_inserter, "custom_inserter", format!("CopyScope's target table marks {} ({family}) for EmitInstrWithCustomInserter (vtable slot 0xB8; the spec page names no opcodes, this list is ours). Nothing is expanded, because NVPTX defines no custom inserter for {}: llc-22's finalize-isel, the pass that runs that hook, changes none of 143 NVPTX kernels (the 138 llvm-nvptx files that compile and 5 corpus kernels with textures, WMMA, loops). The instruction stays as built; the set-up a texture fetch needs is the glued nodes before it.", op.name(), op.name())),
            (info.post_ra_pseudo, "post_ra_pseudo", format!("CopyScope's target table marks {} for expandPostRAPseudo (vtable slot 0x348), which runs only after register allocation: nothing happens now.", op.name())),
            (info.subreg_inserter, "subreg_inserter", format!("CopyScope's target table marks {} for the sub-register hook (vtable slot 0x160); it changes nothing here: two-address lowers REG_SEQUENCE into COPYs later.", op.name())),
        ] {
            if !claimed {
                continue;
            }
            self.stats.custom_hooks += 1;
            let nm = name.clone();
            self.step(|| {
                Step::new(kind, format!("{nm}: {text}"))
                    .focus(Focus::DagNode { number })
                    .focus(Focus::inst(mi))
            });
        }
    }

    /// Phase 6: results beyond the explicit defs are the implicit physical defs. Used
    /// ones are captured by a COPY; the glue chain after the node says which physical
    /// registers are read; the rest are marked dead.
    fn implicit_defs(
        &mut self,
        n: Node,
        mi: Inst,
        info: &target::InstrInfo,
        results: &[usize],
    ) -> Result<(), SourceError> {
        if info.implicit_defs.is_empty() {
            return Ok(());
        }
        let dag = self.dag;
        let mut used: Vec<String> = Vec::new();
        let mut u = self.users.glued_user(n, dag);
        while let Some(x) = u {
            let xd = &dag.nodes[x];
            match xd.op {
                DagOp::CopyFromReg => {
                    if let Some(Operand::Reg {
                        reg: RegRef::Phys(p),
                        ..
                    }) = xd.operands.get(1)
                    {
                        used.push(p.clone());
                    }
                }
                DagOp::CopyToReg => {}
                _ => {
                    for o in &xd.operands {
                        if let Operand::Reg {
                            reg: RegRef::Phys(p),
                            ..
                        } = o
                        {
                            used.push(p.clone());
                        }
                    }
                }
            }
            u = self.users.glued_user(x, dag);
        }
        for (j, &r) in results.iter().enumerate() {
            let reg = info.implicit_defs[j];
            let value = Value {
                node: n,
                res: r as u16,
            };
            if !self.users.has_use(value, dag) {
                continue;
            }
            used.push(reg.into());
            let class = target::typed_class(self.value_type(value));
            let v = self.ed.new_vreg(class);
            self.stats.vregs_created += 1;
            let p = self.ed.intern(reg);
            let i = self.append_copy(n, v, Reg::Phys(p), RecordKind::ImplicitCapture);
            self.vr_map.insert(value, Reg::Virt(v));
            self.captured.insert(reg.into(), (v, n));
            let (vn, name) = (self.reg_name(Reg::Virt(v)), dag.value_name(value));
            self.step(|| {
                Step::new("implicit_def_copy", format!("{name} is the implicit def ${reg} and someone reads it: it is captured right after the instruction, COPY {vn}, ${reg}."))
                    .focus(Focus::inst(i))
                    .focus(Focus::vreg(v))
            });
        }
        let names = &self.ed.f.names;
        let dead_syms: Vec<crate::entity::Sym> = self.ed.f.insts[mi]
            .operands
            .iter()
            .filter(|o| o.has(oflag::IMPLICIT | oflag::DEF))
            .filter_map(|o| match o.get_reg() {
                Some(Reg::Phys(s)) if !used.iter().any(|u| u == names.name(s)) => Some(s),
                _ => None,
            })
            .collect();
        let dead: Vec<String> = dead_syms
            .iter()
            .map(|&s| String::from(names.name(s)))
            .collect();
        let name = dag.name_of(n);
        if dead.is_empty() {
            let all = info.implicit_defs.join(", $");
            self.step(|| {
                Step::new("implicit_defs_dead", format!("{name}: every implicit def (${all}) is read by a result use or a glued node, so none is dead."))
                    .focus(Focus::inst(mi))
            });
            return Ok(());
        }
        self.ed.modify(mi, |data| {
            for o in data.operands.iter_mut() {
                if let (true, Some(Reg::Phys(s))) =
                    (o.has(oflag::IMPLICIT | oflag::DEF), o.get_reg())
                {
                    if dead_syms.contains(&s) {
                        o.flags |= oflag::DEAD;
                    }
                }
            }
        });
        self.stats.implicit_defs_dead += dead.len() as u64;
        let list = dead.join(", $");
        self.step(|| {
            Step::new("implicit_defs_dead", format!("{name}: nothing reads ${list} — no result use and no glued CopyFromReg — so the implicit def is marked dead (setPhysRegsDeadExcept)."))
                .focus(Focus::inst(mi))
        });
        Ok(())
    }

    /// One lane of a multi-result node: pair `k` of the EXTRACT_SUBREG, then the next lane.
    fn emit_lane(
        &mut self,
        n: Node,
        tuple: VReg,
        tclass: RegClass,
        results: &[usize],
        k: usize,
        es: Option<Inst>,
    ) -> Result<(), SourceError> {
        let dag = self.dag;
        let d = &dag.nodes[n];
        let r = results[k];
        let value = Value {
            node: n,
            res: r as u16,
        };
        let vt = d.types[r];
        let base = tclass.lane_class();
        let type_rc =
            target::regclass_for(vt, d.attrs.divergent || target::is_divergent_class(base));
        let rc = type_rc
            .and_then(|t| target::common_subclass(base, t))
            .unwrap_or(base);
        let reuse = self.copy_to_reg_target(value, rc);
        let v = self.reuse_or_new_vreg(reuse, rc);
        let hint_tied = k > 0;
        let hint_early = k > 0 && r == results[k - 1] + 1;
        let mut def = MOp::vreg(v, oflag::DEF);
        if hint_tied {
            def.flags |= oflag::HINT_TIED;
        }
        if hint_early {
            def.flags |= oflag::HINT_EARLY_TIED;
            self.stats.early_tied_hints += 1;
        }
        let mut src = MOp::vreg(tuple, 0);
        src.subreg = Some(SubReg::of_lane(k as u8));
        let es = match es {
            None => {
                let mut data = InstData::new(Opcode::Known(Op::EXTRACT_SUBREG), vec![def, src]);
                data.lhs_defs = 1;
                let i = self.append(n, data);
                self.records.push(ResultRecord {
                    node: n,
                    inst: i,
                    kind: RecordKind::Other,
                });
                i
            }
            Some(i) => {
                self.ed.modify(i, |data| {
                    let at = data.lhs_defs as usize;
                    data.operands.insert(at, def);
                    data.operands.push(src);
                    data.lhs_defs += 1;
                });
                i
            }
        };
        self.vr_map.insert(value, Reg::Virt(v));
        self.stats.extract_subreg_pairs += 1;
        let lanes = results.len();
        let (vn, tn, name) = (
            self.reg_name(Reg::Virt(v)),
            self.reg_name(Reg::Virt(tuple)),
            dag.value_name(value),
        );
        let hint_txt = if k == 0 {
            String::from(" The first pair has nothing before it to tie to, so no hint bits.")
        } else if hint_early {
            format!(" It comes from the same producer as lane {} and its result number follows that lane's, so its def gets both hints: isTied and earlyTied.", k - 1)
        } else {
            format!(" It comes from the same producer as lane {}, so its def gets isTied; but result {r} does not directly follow result {} (something else sits between them in the node's results), so no earlyTied.", k - 1, results[k - 1])
        };
        let reuse_txt = if reuse.is_some() {
            " (reusing its CopyToReg's register)"
        } else {
            ""
        };
        let number = d.number;
        self.step(|| {
            Step::new("extract_lane", format!("Lane {k} of {lanes}: {name} becomes {vn}{reuse_txt}, pair {} of the EXTRACT_SUBREG reading {tn}.sub{k}.{hint_txt}", k + 1))
                .focus(Focus::DagNode { number })
                .focus(Focus::inst(es))
                .focus(Focus::vreg(v))
                .payload(Payload::EmitterLane {
                    pseudo: es.index() as u32,
                    pair: k as u32,
                    lanes: lanes as u32,
                    def: v.index() as u32,
                    src: tuple.index() as u32,
                    result: r as u32,
                    hint_tied,
                    hint_early_tied: hint_early,
                })
        });
        if k + 1 < results.len() {
            // The spec's self-recursion: the emitter calls itself for the next result.
            self.emit_lane(n, tuple, tclass, results, k + 1, Some(es))?;
        }
        Ok(())
    }

    /// REG_SEQUENCE RegClass:C, value, SubReg:subK, ...: one tuple register of class C.
    fn reg_sequence(&mut self, n: Node) -> Result<(), SourceError> {
        let dag = self.dag;
        let d = &dag.nodes[n];
        let Some(class) = d.operands.iter().find_map(|o| match o {
            Operand::Class(c) => Some(*c),
            _ => None,
        }) else {
            let (l, c) = dag.pos(n);
            return Err(SourceError::new(
                l,
                c,
                "REG_SEQUENCE needs its class: `RegClass:float32regsx4, t1, SubReg:sub0, ...`",
            ));
        };
        let value = Value { node: n, res: 0 };
        let reuse = self.copy_to_reg_target(value, class);
        let v = match reuse {
            Some(v) => v,
            None => {
                self.stats.vregs_created += 1;
                self.ed.new_vreg(Some(class))
            }
        };
        self.vr_map.insert(value, Reg::Virt(v));
        let mut def = MOp::vreg(v, oflag::DEF);
        if d.attrs.inline_fold {
            def.flags |= oflag::INLINE_FOLD;
        }
        let mut operands = vec![def];
        let lane = class.lane_class();
        for (k, o) in d.operands.iter().enumerate() {
            match o {
                Operand::Value(x) if dag.value_type(*x).is_value() => {
                    let r = self.use_vr(*x, n, k)?;
                    let r = self.constrain_use(r, Some(lane), Some(*x), n)?;
                    operands.push(MOp::reg(r, self.kill_flag(*x)));
                }
                Operand::SubReg(l) => {
                    operands.push(MOp::new(OperandKind::SubRegIdx(SubReg::of_lane(*l))))
                }
                _ => {}
            }
        }
        let mut data = InstData::new(Opcode::Known(Op::REG_SEQUENCE), operands);
        data.lhs_defs = 1;
        let mi = self.append(n, data);
        self.records.push(ResultRecord {
            node: n,
            inst: mi,
            kind: RecordKind::Other,
        });
        let (name, vn, cn) = (
            dag.name_of(n),
            self.reg_name(Reg::Virt(v)),
            self.class_name(Some(class)),
        );
        self.node_step(
            n,
            "generic",
            vec![mi],
            format!("{name} assembles a {cn} tuple from its lanes: REG_SEQUENCE into {vn}."),
            "emit",
        );
        let info = target::instr_info(Op::REG_SEQUENCE);
        self.hooks(n, Op::REG_SEQUENCE, mi, &info);
        Ok(())
    }
}
