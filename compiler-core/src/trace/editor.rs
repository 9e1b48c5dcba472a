//! The one way passes change a function: every change goes through an [`Editor`], which
//! applies it and, when tracing, logs the matching [`Edit`] for the next step. Keeping
//! the mutation and its record in one place is what makes replay exact.

use super::edit::{Change, Edit};
use crate::entity::EntityRef;
use crate::mir::{Block, Function, Inst, InstData, RegClass, VReg};
use alloc::vec::Vec;

pub struct Editor<'f> {
    pub f: &'f mut Function,
    log: Vec<Edit>,
    tracing: bool,
}

impl<'f> Editor<'f> {
    pub fn new(f: &'f mut Function, tracing: bool) -> Self {
        Editor {
            f,
            log: Vec::new(),
            tracing,
        }
    }

    pub fn tracing(&self) -> bool {
        self.tracing
    }

    /// The edits made since the last call (empty when not tracing).
    pub fn take_edits(&mut self) -> Vec<Edit> {
        core::mem::take(&mut self.log)
    }

    pub fn insert_before(&mut self, before: Inst, data: InstData) -> Inst {
        let block = self
            .f
            .layout
            .inst_block(before)
            .expect("insert_before: anchor placed");
        let logged = self.tracing.then(|| super::PackedInst::pack(&data));
        let i = self.f.insert_before(before, data);
        if let Some(data) = logged {
            self.log.push(Edit::Insert {
                inst: i,
                before: Some(before).into(),
                block: block.index() as u32,
                data,
            });
        }
        i
    }

    /// Inserts before `before`, or at the end of `block` when `before` is None.
    pub fn insert_at(&mut self, block: Block, before: Option<Inst>, data: InstData) -> Inst {
        match before {
            Some(b) => self.insert_before(b, data),
            None => {
                let logged = self.tracing.then(|| super::PackedInst::pack(&data));
                let i = self.f.append_inst(block, data);
                if let Some(data) = logged {
                    self.log.push(Edit::Insert {
                        inst: i,
                        before: None.into(),
                        block: block.index() as u32,
                        data,
                    });
                }
                i
            }
        }
    }

    pub fn erase(&mut self, i: Inst) {
        self.f.erase(i);
        if self.tracing {
            self.log.push(Edit::Erase { inst: i });
        }
    }

    /// Changes an instruction in place (logged as the operands that changed, when
    /// nothing else did).
    pub fn modify<T>(&mut self, i: Inst, change: impl FnOnce(&mut InstData) -> T) -> T {
        let old = self.tracing.then(|| self.f.insts[i].clone());
        let out = change(&mut self.f.insts[i]);
        if let Some(old) = old {
            if old != self.f.insts[i] {
                let change = Change::between(&old, self.f.insts[i].clone());
                self.log.push(Edit::Replace { inst: i, change });
            }
        }
        out
    }

    /// Moves `i` before `before` (or to the end of `block`).
    pub fn move_inst(&mut self, i: Inst, block: Block, before: Option<Inst>) {
        self.f.layout.remove_inst(i);
        self.f.layout.insert_at(i, block, before);
        if self.tracing {
            self.log.push(Edit::Move {
                inst: i,
                before,
                block: block.index() as u32,
            });
        }
    }

    pub fn new_vreg(&mut self, class: Option<RegClass>) -> VReg {
        let v = self.f.new_vreg(class);
        if self.tracing {
            self.log.push(Edit::SetClass { vreg: v, class });
        }
        v
    }

    pub fn set_class(&mut self, v: VReg, class: Option<RegClass>) {
        if self.f.vregs[v].class != class || !self.f.vregs[v].exists {
            self.f.declare_vreg(v, None);
            self.f.vregs[v].class = class;
            if self.tracing {
                self.log.push(Edit::SetClass { vreg: v, class });
            }
        }
    }

    /// Splits the edge `pred` → `succ` with a new empty block (see
    /// `Function::split_edge_block`).
    pub fn split_edge(&mut self, pred: Block, succ: Block) -> Block {
        let b = self.f.split_edge_block(pred, succ);
        if self.tracing {
            self.log.push(Edit::SplitEdge {
                pred: pred.index() as u32,
                succ: succ.index() as u32,
                block: b.index() as u32,
            });
        }
        b
    }

    pub fn set_props(&mut self, no_phis: bool, is_ssa: bool) {
        self.f.props.no_phis = no_phis;
        self.f.props.is_ssa = is_ssa;
        if self.tracing {
            self.log.push(Edit::SetProps { no_phis, is_ssa });
        }
    }

    /// Replaces the function's live-ins (and the entry block's).
    pub fn set_liveins(&mut self, liveins: Vec<(crate::mir::Reg, Option<VReg>)>) {
        if self.tracing {
            self.log.push(Edit::SetLiveins {
                liveins: liveins.clone().into_boxed_slice(),
            });
        }
        self.f.set_liveins(liveins);
    }

    /// Writes the kill and dead flags of LiveVariables' `marks` ([`crate::liveness::LiveVariables::flag_marks`])
    /// into every placed instruction whose flags differ, in layout order, as
    /// LiveVariables does when it runs. Returns how many instructions changed. When
    /// tracing, the change is logged as one [`Edit::LiveFlags`] rule when LiveVariables
    /// computed afresh on the function gives the same marks (so replay, which computes
    /// it, writes the same flags), else as the flag changes themselves.
    pub fn write_live_flags(&mut self, marks: &[(Inst, VReg)]) -> usize {
        use crate::liveness::live_variables::{marks_of, write_inst_flags};
        use crate::liveness::LiveVariables;
        let here = |i: Inst| marks_of(marks, i);
        let changed = LiveVariables::stale_insts(self.f, marks);
        let rule = self.tracing
            && !changed.is_empty()
            && LiveVariables::compute(self.f).flag_marks(self.f) == marks;
        if !rule {
            for &i in &changed {
                self.modify(i, |d| write_inst_flags(d, here(i)));
            }
            return changed.len();
        }
        for &i in &changed {
            write_inst_flags(&mut self.f.insts[i], here(i));
        }
        self.log.push(Edit::LiveFlags {
            insts: super::edit::InstSeq::new(&changed),
        });
        changed.len()
    }

    /// Clears the kill flag of every virtual-register use in `insts`. When tracing, the
    /// instructions that had one are logged as one [`Edit::DropKills`] rule, not a flag
    /// change each (a coalescer's last step drops thousands).
    pub fn drop_kills(&mut self, insts: impl IntoIterator<Item = Inst>) {
        // The list of instructions changed is kept only for the log (with tracing off,
        // it would be a list the size of the function, written and thrown away).
        let mut changed = Vec::new();
        for i in insts {
            let d = &mut self.f.insts[i];
            if super::edit::killed_uses(d).next().is_some() {
                super::edit::drop_use_kills(d);
                if self.tracing {
                    changed.push(i);
                }
            }
        }
        if self.tracing && !changed.is_empty() {
            self.log.push(Edit::DropKills {
                insts: super::edit::InstSeq::new(&changed),
            });
        }
    }

    /// Interns `name` in the function's name table, logging it when it is new.
    pub fn intern(&mut self, name: &str) -> crate::entity::Sym {
        if let Some(s) = self.f.names.get(name) {
            return s;
        }
        let s = self.f.names.intern(name);
        if self.tracing {
            self.log.push(Edit::Intern {
                sym: s.index() as u32,
                name: name.into(),
            });
        }
        s
    }
}

/// Records the step `make` builds, carrying the edits the editor logged since the last
/// step. With tracing off nothing is built (the closure is never called).
pub fn record<R: super::Recorder>(
    rec: &mut R,
    ed: &mut Editor<'_>,
    make: impl FnOnce() -> super::Step,
) {
    if R::ENABLED {
        let edits = ed.take_edits();
        rec.step(move || {
            let mut s = make();
            if !(edits.is_empty() && s.edits.is_empty()) {
                s.edits = edits.into();
            }
            s
        });
    }
}
