//! LiveVariables upkeep during two-address.
//!
//! The pass works on a [`LiveVariables`] — the analysis PHI elimination keeps (handed
//! over with [`super::run_with_live_variables`]) or, when the pass runs on its own, the
//! same analysis computed from the input — and edits its [`VarInfo`]s as it inserts,
//! moves and erases instructions, so that at the end they equal what
//! `LiveVariables::compute` gives on the output (the `two_address_live_variables` test
//! checks this on every gallery example, corpus function and random program).
//!
//! Each EXTRACT_SUBREG COPY runs the spec's six-step chain: transfer (the def moves from
//! the pseudo to the COPY), createNewVarInfo and initVarInfo (only for a register with
//! no VarInfo yet), findKill (where the source dies in the block), add/removeKill (the
//! kill moves to the COPY reading the source last) and addNewBlock (the source's
//! alive-block set for this block). `lv_updates` counts the updates that changed a
//! VarInfo or confirmed a lookup (a findKill that found the kill); a step that had
//! nothing to do — an undef source reads nothing — is listed but not counted. Without
//! LiveVariables (`llc -run-pass` alone) a moved kill flag is simply dropped, as LLVM
//! does, and nothing is counted.

use super::TwoAddr;
use crate::entity::EntityRef;
use crate::liveness::{LiveVariables, VarInfo};
use crate::mir::{oflag, Block, Function, Inst, Reg, VReg};
use crate::trace::{LvStep, LvSteps, Recorder};
use alloc::string::String;
use alloc::vec::Vec;

/// The analysis and whether the pass has it.
pub struct LvUpkeep {
    pub enabled: bool,
    pub lv: LiveVariables,
    /// Updates made since the last step took them (for the step's payload), as
    /// [`LvSteps`] bytes.
    pub log: Vec<u8>,
}

impl LvUpkeep {
    /// `given` is PHI elimination's analysis; without one it is computed from `f`
    /// (its flags are then written by [`TwoAddr::lv_write_flags`], through the editor).
    pub fn new(f: &Function, enabled: bool, given: Option<LiveVariables>) -> Self {
        let lv = match (enabled, given) {
            (false, _) => LiveVariables::default(),
            (true, Some(lv)) => lv,
            (true, None) => LiveVariables::compute(f),
        };
        LvUpkeep {
            enabled,
            lv,
            log: Vec::new(),
        }
    }

    pub fn var(&self, v: VReg) -> Option<&VarInfo> {
        self.lv.vars.get(v)
    }
}

/// An entity's number as the update list keeps it.
fn num(e: impl EntityRef) -> u32 {
    e.index() as u32
}

/// Adds `i` to `list` (kept as a set: finding an instruction's layout position would
/// cost a walk of its block, and no reader needs the order).
fn insert_ordered(_f: &Function, list: &mut crate::mir::instr::InstList, i: Inst) {
    if !list.contains(&i) {
        list.push(i);
    }
}

impl<R: Recorder> TwoAddr<'_, '_, R> {
    /// When the pass computed LiveVariables itself, it writes the analysis' kill and
    /// dead flags into the function first, as LLVM's LiveVariables does when it runs
    /// (the pass reads flags where LLVM's does). Returns how many instructions changed.
    pub(crate) fn lv_write_flags(&mut self) -> usize {
        let marks = self.lv.lv.flag_marks(self.ed.f);
        self.ed.write_live_flags(&marks)
    }

    /// One update made: counted, and listed for the next step's payload.
    fn lv_note(&mut self, what: LvStep) {
        self.stats.lv_updates += 1;
        self.lv_note_idle(what);
    }

    /// One step that ran but found nothing to change: listed, not counted.
    fn lv_note_idle(&mut self, what: LvStep) {
        if R::ENABLED {
            LvSteps::log(&mut self.lv.log, &what);
        }
    }

    /// The updates listed since the last call.
    pub(crate) fn lv_take_log(&mut self) -> LvSteps {
        LvSteps::from_log(core::mem::take(&mut self.lv.log))
    }

    /// Forgets the updates listed so far.
    pub(crate) fn lv_clear_log(&mut self) {
        self.lv.log.clear();
    }

    /// The kill of `v` inside block `b`, from its VarInfo (findKill).
    pub(crate) fn lv_find_kill(&self, v: VReg, b: Block) -> Option<Inst> {
        if !self.lv.enabled {
            return None;
        }
        self.lv.var(v)?.find_kill(self.ed.f, b)
    }

    /// `inst` no longer kills `v` (removeVirtualRegisterKilled): the flags go, and with
    /// LiveVariables the table entry. True if it was a kill.
    pub(crate) fn lv_remove_kill(&mut self, v: VReg, inst: Inst) -> bool {
        let had = self.ed.modify(inst, |d| {
            let mut had = false;
            for op in d.operands.iter_mut() {
                if op.is_use() && op.get_reg() == Some(Reg::Virt(v)) && op.has(oflag::KILL) {
                    op.set(oflag::KILL, false);
                    had = true;
                }
            }
            had
        });
        if !self.lv.enabled {
            return had;
        }
        if self.lv.lv.remove_kill(v, inst) {
            self.lv_note(LvStep::RemoveKill {
                reg: num(v),
                inst: num(inst),
            });
            return true;
        }
        false
    }

    /// `inst` kills `v` (addVirtualRegisterKilled): flag and table.
    pub(crate) fn lv_add_kill(&mut self, v: VReg, inst: Inst) {
        if !self.lv.enabled {
            return;
        }
        self.ed.modify(inst, |d| {
            if let Some(op) = d
                .operands
                .iter_mut()
                .find(|o| o.is_use() && o.get_reg() == Some(Reg::Virt(v)) && !o.has(oflag::UNDEF))
            {
                op.set(oflag::KILL, true);
            }
        });
        if !self.lv.lv.is_killed_by(v, inst) {
            insert_ordered(self.ed.f, &mut self.lv.lv.vars[v].kills, inst);
            self.lv_note(LvStep::AddKill {
                reg: num(v),
                inst: num(inst),
            });
        }
    }

    /// `v`'s kill at `old` happens at `new` now (replaceKillInstruction; table only).
    pub(crate) fn lv_replace_kill(&mut self, v: VReg, old: Inst, new: Inst) -> bool {
        if !self.lv.enabled || !self.lv.lv.remove_kill(v, old) {
            return false;
        }
        insert_ordered(self.ed.f, &mut self.lv.lv.vars[v].kills, new);
        self.lv_note(LvStep::ReplaceKill {
            reg: num(v),
            new: num(new),
            old: num(old),
        });
        true
    }

    /// `v` dies at `mi` by the analysis although no operand flag says so (PHI
    /// elimination recomputes where a source defined only by IMPLICIT_DEF dies, and
    /// writes no flag, as LLVM writes none); `mi` no longer reads `v`, so the kill moves
    /// to the COPY just before it. Table only: the flags stay as LLVM leaves them.
    pub(crate) fn lv_move_unflagged_kill(&mut self, v: VReg, mi: Inst) {
        if !self.lv.enabled || !self.lv.lv.is_killed_by(v, mi) {
            return;
        }
        if let Some(prev) = self.ed.f.layout.prev_inst(mi) {
            self.lv_replace_kill(v, mi, prev);
        }
    }

    /// `inst` is a new def of `v` (a COPY inserted before the instruction it serves).
    pub(crate) fn lv_add_def(&mut self, v: VReg, inst: Inst) {
        if !self.lv.enabled {
            return;
        }
        let fresh = self.lv_ensure_var(v);
        insert_ordered(self.ed.f, &mut self.lv.lv.vars[v].defs, inst);
        if !fresh {
            self.lv_note(LvStep::AlsoDefined {
                reg: num(v),
                inst: num(inst),
            });
        }
    }

    /// createNewVarInfo + initVarInfo when `v` has no VarInfo yet; true if one was made.
    fn lv_ensure_var(&mut self, v: VReg) -> bool {
        if self.lv.lv.vars.get(v).is_some_and(|x| !x.is_empty()) {
            return false;
        }
        let _ = self.lv.lv.new_var_info(v);
        self.lv_note(LvStep::NewVarInfo { reg: num(v) });
        true
    }

    /// The defs of `v` at `old` are at `new` now (and a dead def's kill with them).
    pub(crate) fn lv_move_def(&mut self, v: VReg, old: Inst, new: Inst) -> bool {
        if !self.lv.enabled {
            return false;
        }
        let vi = &mut self.lv.lv.vars[v];
        let Some(p) = vi.defs.iter().position(|&k| k == old) else {
            return false;
        };
        vi.defs.remove(p);
        let dead = vi.remove_kill(old);
        insert_ordered(self.ed.f, &mut self.lv.lv.vars[v].defs, new);
        if dead {
            insert_ordered(self.ed.f, &mut self.lv.lv.vars[v].kills, new);
        }
        self.lv_note(LvStep::MoveDef {
            reg: num(v),
            old: num(old),
            new: num(new),
            dead,
        });
        true
    }

    /// `old` no longer defines `v` (it is erased); if it was a dead def, `new` (the
    /// last of the instructions now defining `v` there) is.
    pub(crate) fn lv_drop_def(&mut self, v: VReg, old: Inst, new: Inst) {
        if !self.lv.enabled {
            return;
        }
        let vi = &mut self.lv.lv.vars[v];
        let Some(p) = vi.defs.iter().position(|&k| k == old) else {
            return;
        };
        vi.defs.remove(p);
        let dead = vi.remove_kill(old);
        if dead {
            insert_ordered(self.ed.f, &mut self.lv.lv.vars[v].kills, new);
        }
        self.lv_note(LvStep::DropDef {
            reg: num(v),
            old: num(old),
            dead_kill_at: dead.then(|| num(new)),
        });
    }

    /// The spec's chain for one EXTRACT_SUBREG COPY `copy` (`dst = COPY src`) replacing
    /// `pseudo` in block `b`. `src_killed`: this pair is the last to read a source the
    /// pseudo killed. Returns how many updates it counted.
    pub(crate) fn lv_copy_chain(
        &mut self,
        pseudo: Inst,
        copy: Inst,
        dst: Reg,
        src: Option<VReg>,
        b: Block,
        src_killed: bool,
    ) -> u32 {
        if !self.lv.enabled || !self.opts.mechanisms.lv_chain {
            return 0;
        }
        let before = self.stats.lv_updates;
        // 1-3. Transfer the def; a register with no VarInfo gets one first.
        match dst {
            Reg::Virt(d) => {
                self.lv_ensure_var(d);
                if !self.lv_move_def(d, pseudo, copy) {
                    insert_ordered(self.ed.f, &mut self.lv.lv.vars[d].defs, copy);
                    self.lv_note(LvStep::Defined {
                        reg: num(d),
                        inst: num(copy),
                    });
                }
            }
            _ => {
                let name = if R::ENABLED {
                    self.reg_name(dst)
                } else {
                    String::new()
                };
                self.lv_note_idle(LvStep::Physical { name })
            }
        }
        let Some(s) = src else {
            self.lv_note_idle(LvStep::UndefSource);
            return (self.stats.lv_updates - before) as u32;
        };
        let reg = num(s);
        // 4. findKill.
        let kill = self.lv_find_kill(s, b);
        match kill {
            Some(k) => self.lv_note(LvStep::FindKill { reg, inst: num(k) }),
            None => self.lv_note_idle(LvStep::NoKill { reg }),
        }
        // 5. add/removeKill: the pseudo's kill moves to the COPY reading the source last.
        if src_killed && kill == Some(pseudo) {
            self.lv_replace_kill(s, pseudo, copy);
        } else {
            self.lv_note_idle(LvStep::KillStays { reg });
        }
        // 6. addNewBlock: a source read here is not alive straight through this block
        // when it dies in it.
        let dies_here = self.lv_find_kill(s, b).is_some();
        let bn = self.lv.lv.num_of(b);
        if dies_here && self.lv.lv.vars[s].is_alive_in(bn) {
            self.lv.lv.vars[s].reset_alive(bn);
            self.lv_note(LvStep::NotAlive { reg });
        } else {
            self.lv_note_idle(LvStep::AliveUnchanged { reg });
        }
        (self.stats.lv_updates - before) as u32
    }
}
