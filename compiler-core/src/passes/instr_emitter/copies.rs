//! CopyToReg (the dedicated handler, spec ISD 0x0E), CopyFromReg (0x14) and the bit-36
//! test both the generic path (site 1) and the CopyFromReg path (site 2) make.
//!
//! ```text
//!  CopyToReg dst, value:
//!    dst virtual and value from IMPLICIT_DEF ─▶ IMPLICIT_DEF dst
//!    value already in dst ───────────────────▶ nothing (coalesced away)
//!    else ───────────────────────────────────▶ COPY dst, value
//!  CopyFromReg reg:
//!    virtual ─▶ the value simply is that register
//!    physical ─▶ bit 36? ─▶ reuse what the glued producer captured
//!               class: sole CopyToReg user's register │ users' common subclass │ minimal class
//!               no class (cannot copy) ─▶ read the physical register directly
//!               else COPY %new, $reg
//! ```

use super::{Emitter, RecordKind, ResultRecord};
use crate::dag::{target, AsmConstraint, DagOp, Node, Operand, RegRef, Value};
use crate::entity::EntityRef;
use crate::error::SourceError;
use crate::mir::{oflag, InstData, Op, Opcode, Operand as MOp, Reg, RegClass, VReg};
use crate::trace::{Focus, Recorder, Step};
use alloc::format;
use alloc::string::String;
use alloc::vec;

impl<R: Recorder> Emitter<'_, '_, '_, R> {
    pub(crate) fn copy_to_reg(&mut self, n: Node) -> Result<(), SourceError> {
        let dag = self.dag;
        let d = &dag.nodes[n];
        let Operand::Reg { reg, .. } = &d.operands[1] else {
            unreachable!("checked by the parser")
        };
        let dest = self.reg_of(reg);
        let src = d.operands[2].value().expect("checked by the parser");
        let producer = &dag.nodes[src.node];
        let have = self.vr_map.get(&src).copied();
        let name = dag.name_of(n);
        let dn = self.reg_name(dest);
        if let (Reg::Virt(dv), DagOp::Machine(Op::IMPLICIT_DEF)) = (dest, producer.op) {
            if have != Some(dest) {
                let data = InstData::new(
                    Opcode::Known(Op::IMPLICIT_DEF),
                    vec![MOp::vreg(dv, oflag::DEF)],
                );
                let i = self.append(n, data);
                self.records.push(ResultRecord {
                    node: n,
                    inst: i,
                    kind: RecordKind::Other,
                });
                let sv = dag.value_name(src);
                self.node_step(n, "copy_to_reg", vec![i], format!("{name} copies {sv} into {dn}, but {sv} is an IMPLICIT_DEF: there is no value to copy, so {dn} itself is made an IMPLICIT_DEF."), "copy_to_reg_implicit_def");
                return Ok(());
            }
        }
        let src_reg = self.get_vr(src, n, 2)?;
        let sn = self.reg_name(src_reg);
        if src_reg == dest {
            self.node_step(n, "copy_to_reg", vec![], format!("{name} copies {} into {dn}, which already holds it (its producer wrote {dn} directly): nothing to emit.", dag.value_name(src)), "copy_to_reg_same");
            return Ok(());
        }
        let mut def = MOp::reg(dest, oflag::DEF);
        if d.attrs.inline_fold {
            def.flags |= oflag::INLINE_FOLD;
        }
        let i = self.append_copy_to(n, def, src_reg, RecordKind::CopyToReg);
        let fold = if d.attrs.inline_fold {
            " The node carries the inline-fold mark, so the COPY's def gets bit 0x10: its consumer folded the copy away."
        } else {
            ""
        };
        self.node_step(
            n,
            "copy_to_reg",
            vec![i],
            format!(
                "{name} copies {} (in {sn}) into {dn}: COPY {dn}, {sn}.{fold}",
                dag.value_name(src)
            ),
            "copy_to_reg",
        );
        Ok(())
    }

    pub(crate) fn copy_from_reg(&mut self, n: Node) -> Result<(), SourceError> {
        let dag = self.dag;
        let d = &dag.nodes[n];
        let Operand::Reg { ty, reg, .. } = &d.operands[1] else {
            unreachable!("checked by the parser")
        };
        let value = Value { node: n, res: 0 };
        let name = dag.name_of(n);
        let src = self.reg_of(reg);
        let sn = self.reg_name(src);
        if let RegRef::Virt(vn) = reg {
            if self.overwritten_before_read(n, *vn) {
                return self.snapshot_vreg(n, src);
            }
            self.vr_map.insert(value, src);
            self.node_step(n, "copy_from_reg", vec![], format!("{name} reads the virtual register {sn}: no copy, the value simply is {sn} from now on."), "copy_from_reg_virtual");
            return Ok(());
        }
        if self.bit36(n, 2)? {
            return Ok(());
        }
        let RegRef::Phys(pname) = reg else {
            unreachable!()
        };
        let vt = *ty;
        let users = self.users.of_value(value, dag);
        // 1. A sole CopyToReg user into a virtual register of a fitting class.
        let min = if self.opts.llc22 {
            target::llc22_class(vt)
        } else {
            target::min_phys_class(vt)
        };
        let mut reuse: Option<VReg> = None;
        // Emitting as llc-22: any CopyToReg user into a virtual register (EmitCopyFromReg).
        let candidates: &[(Node, u16)] = if self.opts.llc22 {
            &users
        } else if users.len() == 1 {
            &users[..1]
        } else {
            &[]
        };
        for &(u, k) in candidates.iter().filter(|e| e.1 == 2) {
            if reuse.is_some() {
                break;
            }
            let _ = k;
            if let (
                DagOp::CopyToReg,
                Operand::Reg {
                    reg: RegRef::Virt(dv),
                    ..
                },
            ) = (dag.nodes[u].op, &dag.nodes[u].operands[1])
            {
                let dv = VReg::new(*dv as usize);
                let dc = self.ed.f.vreg_class(dv);
                if let (Some(dc), Some(m)) = (dc, min) {
                    if self.opts.llc22 || target::common_subclass(dc, m).is_some() {
                        reuse = Some(dv);
                    }
                }
            }
        }
        // 2. The common subclass of what the users ask for.
        let mut use_rc: Option<RegClass> = None;
        let mut asked = 0;
        if reuse.is_none() {
            for &(u, k) in &users {
                if let Some(c) = self.use_constraint(u, k as usize) {
                    asked += 1;
                    use_rc = match use_rc {
                        None => Some(c),
                        Some(a) => Some(target::common_subclass(a, c).unwrap_or(a)),
                    };
                }
            }
        }
        let (class, why) = match (reuse, use_rc, min) {
            (Some(v), _, _) => (self.ed.f.vreg_class(v), format!("its only user copies it on into {}, whose class fits, so that register receives the value directly", self.reg_name(Reg::Virt(v)))),
            (None, Some(c), _) => (Some(c), format!("{asked} user(s) constrain the class; their common subclass is {}", target::describe(c))),
            (None, None, Some(m)) => (Some(m), format!("no user constrains the class, so it is the minimal class of {sn} as {vt}: {}", target::describe(m))),
            (None, None, None) => (None, String::new()),
        };
        let Some(class) = class else {
            self.vr_map.insert(value, src);
            self.node_step(n, "copy_from_reg", vec![], format!("{name} reads {sn}, whose {vt} value has no register class to copy into (copying it is impossible or too expensive): users read {sn} directly."), "copy_from_reg_direct");
            return Ok(());
        };
        let v = self.reuse_or_new_vreg(reuse, class);
        let i = self.append_copy(n, v, src, RecordKind::CopyFromReg);
        self.vr_map.insert(value, Reg::Virt(v));
        let vn = self.reg_name(Reg::Virt(v));
        let param = if crate::dag::param_reg_number(pname).is_some() {
            " (a kernel parameter register)"
        } else {
            ""
        };
        self.node_step(
            n,
            "copy_from_reg",
            vec![i],
            format!("{name} reads the physical register {sn}{param}: {why}. COPY {vn}, {sn}."),
            "copy_from_reg",
        );
        Ok(())
    }

    /// A read of virtual register `src` that a later write in this block would clobber
    /// before its readers run: the value is copied out where the DAG reads it.
    fn snapshot_vreg(&mut self, n: Node, src: Reg) -> Result<(), SourceError> {
        let Reg::Virt(sv) = src else {
            unreachable!("virtual registers only")
        };
        let class = self.ed.f.vreg_class(sv);
        let v = self.ed.new_vreg(class);
        self.stats.vregs_created += 1;
        let i = self.append_copy(n, v, src, RecordKind::CopyFromReg);
        self.vr_map.insert(Value { node: n, res: 0 }, Reg::Virt(v));
        let (name, sn, vn) = (
            self.dag.name_of(n),
            self.reg_name(src),
            self.reg_name(Reg::Virt(v)),
        );
        self.node_step(n, "copy_from_reg", vec![i], format!("{name} reads the virtual register {sn}, but this block writes {sn} again before every reader of {name} has run: the value read here is kept in a copy, COPY {vn}, {sn}, and the readers use {vn} (CopyScope's rule, not from the spec: LLVM's DAGs carry loop values through PHIs and never read and write one register in a block like this)."), "copy_from_reg_snapshot");
        Ok(())
    }

    /// The class user `u` asks for in its operand `k` (None: no constraint).
    pub(crate) fn use_constraint(&self, u: Node, k: usize) -> Option<RegClass> {
        let dag = self.dag;
        let ud = &dag.nodes[u];
        match ud.op {
            DagOp::CopyToReg if k == 2 => match &ud.operands[1] {
                Operand::Reg {
                    reg: RegRef::Virt(v),
                    ..
                } => self.ed.f.vreg_class(VReg::new(*v as usize)),
                _ => None,
            },
            DagOp::Machine(op) => target::emitter_info(op, self.opts.llc22)
                .use_class(super::machine::mir_use_index(dag, u, k)),
            DagOp::InlineAsm => {
                let glue = ud.glue_operand(&dag.nodes).is_some();
                let groups = crate::dag::asm_groups(&ud.operands, glue).ok()?;
                let g = groups.iter().find(|g| g.operands.contains(&k))?;
                match g.constraint {
                    AsmConstraint::Input { letter } | AsmConstraint::ReadWrite { letter } => {
                        target::typed_class(crate::dag::letter_type(letter))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The bit-36 test (`site` 1: generic path, 2: CopyFromReg path). True when the node
    /// was skipped because a glued predecessor already produced its value.
    pub(crate) fn bit36(&mut self, n: Node, site: u8) -> Result<bool, SourceError> {
        let dag = self.dag;
        let d = &dag.nodes[n];
        if !d.attrs.glue_consumer {
            return Ok(false);
        }
        let has_glue = d.has_glue_result() || d.glue_operand(&dag.nodes).is_some();
        let guard: &'static str = if site == 1 && d.attrs.debug_value {
            "debug_value"
        } else if d.attrs.tied {
            "tied"
        } else if !has_glue {
            "no_glue"
        } else if !self.opts.honor_bit36 {
            "option_off"
        } else {
            "checked"
        };
        let name = dag.name_of(n);
        let number = d.number;
        if guard != "checked" {
            let why = match guard {
                "debug_value" => "property bit 17 (hasDebugValue) is set, which skips the test",
                "tied" => "property bit 2 (isTied) is set, which sends it down another path",
                "no_glue" => "it is in no glue chain (property bit 3 clear)",
                _ => "the honor_bit36 option is off",
            };
            self.step(|| {
                Step::new("bit36_guard", format!("{name} carries bit 36 (0x1000000000), but {why}: the flag is not read and the node is emitted normally."))
                    .focus(Focus::DagNode { number })
                    .payload(crate::trace::EmitterBit36 { node: number, guard, flag: true, skipped: false, reused: None })
            });
            return Ok(false);
        }
        // What the glued predecessor materialized, when operand 1 is that very value: a
        // data result of the glued node (generic path), or the physical register whose
        // capture that node made (CopyFromReg path). Anything else is not "already
        // produced" and the node is emitted normally.
        let pred = dag.glued_pred(n);
        let reused: Option<Reg> = match d.operands.get(1) {
            Some(Operand::Value(v)) if Some(v.node) == pred && dag.value_type(*v).is_value() => {
                self.vr_map.get(v).copied()
            }
            Some(Operand::Reg {
                reg: RegRef::Phys(p),
                ..
            }) if d.op == DagOp::CopyFromReg => self
                .captured
                .get(p)
                .filter(|c| Some(c.1) == pred)
                .map(|c| Reg::Virt(c.0)),
            _ => None,
        };
        let Some(r) = reused else {
            self.step(|| {
                Step::new("bit36_guard", format!("{name} carries bit 36 and is in a glue chain, but its operand 1 is not a value the glued node before it produced (or that node has not materialized it): it is emitted normally."))
                    .focus(Focus::DagNode { number })
                    .payload(crate::trace::EmitterBit36 { node: number, guard: "nothing_materialized", flag: true, skipped: false, reused: None })
            });
            return Ok(false);
        };
        for res in d.value_results().collect::<alloc::vec::Vec<_>>() {
            self.vr_map.insert(
                Value {
                    node: n,
                    res: res as u16,
                },
                r,
            );
        }
        self.stats.bit36_skipped += 1;
        let rn = self.reg_name(r);
        let reused_t = crate::trace::RegText::of(self.ed.f, r);
        let what = if d.value_results().count() == 0 {
            String::new()
        } else {
            format!("; its value is {rn}")
        };
        self.step(|| {
            Step::new("bit36_skip", format!("{name} carries bit 36 on operand 1 and sits in a glue chain without a tie: the glued instruction before it already put the value in {rn}, so no instruction or COPY is emitted{what} (site {site})."))
                .focus(Focus::DagNode { number })
                .payload(crate::trace::EmitterBit36 { node: number, guard, flag: true, skipped: true, reused: Some(reused_t) })
        });
        Ok(true)
    }
}
