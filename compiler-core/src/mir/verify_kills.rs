//! The verifier's kill-flag rule, as LLVM's MachineVerifier applies it without live
//! intervals: a register read with `killed` is dead after that instruction until the
//! block defines it again, so
//!
//! - no later instruction of the block may read it ("Using a killed virtual
//!   register"), and
//! - if the block does not define it again, it must not be live out of the block
//!   ("Virtual register killed in block, but needed live out").
//!
//! ```text
//!  per block: walk forward, killed = {}     read v ∈ killed ─▶ error at the read
//!             use `killed v` ─▶ killed += v  def v ─▶ killed -= v
//!  block end: v ∈ killed and some path from a successor reads v before defining it
//!             (a PHI's incoming value: read at the end of its predecessor) ─▶ error at
//!             the kill
//! ```
//!
//! A lane def without `undef` reads the register's other lanes, so it counts as a read.
//! Live-out is asked only of registers still killed at a block's end: a backward walk
//! from the blocks that read the register first, stopped by blocks that define it, once
//! per such register.

use super::cfg::Cfg;
use super::entities::{Block, Inst, VReg};
use super::function::Function;
use super::instr::InstData;
use super::opcode::Op;
use super::operand::{oflag, OperandKind};
use crate::entity::{EntityRef, SecondaryMap};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One broken kill flag: the instruction to print it under, and the message.
pub(crate) struct KillError {
    pub block: Block,
    pub inst: Inst,
    pub message: String,
}

/// Registers `d` reads (a non-`undef` lane def reads the other lanes).
fn reads(d: &InstData) -> impl Iterator<Item = VReg> + '_ {
    d.operands.iter().filter_map(|o| {
        let v = o.vreg_of()?;
        let read = if o.is_def() {
            o.subreg.is_some() && !o.has(oflag::UNDEF)
        } else {
            !o.has(oflag::UNDEF) && !o.has(oflag::DEBUG_USE)
        };
        read.then_some(v)
    })
}

/// Registers `d` writes as a whole (a lane def keeps the register live).
fn whole_defs(d: &InstData) -> impl Iterator<Item = VReg> + '_ {
    d.operands.iter().filter_map(|o| {
        let v = o.vreg_of()?;
        (o.is_def() && (o.subreg.is_none() || o.has(oflag::UNDEF))).then_some(v)
    })
}

/// Per block: registers read before any def in it, registers it defines, and
/// registers a successor's PHI reads at its end.
struct BlockUse {
    exposed: SecondaryMap<Block, VRegSet>,
    defines: SecondaryMap<Block, VRegSet>,
    phi_out: SecondaryMap<Block, VRegSet>,
}

/// A block's registers, sorted (one small search by halves rather than a tree set's
/// code in the wasm).
#[derive(Clone, Default)]
struct VRegSet(Vec<VReg>);

impl VRegSet {
    fn insert(&mut self, v: VReg) {
        if let Err(at) = self.0.binary_search(&v) {
            self.0.insert(at, v);
        }
    }
    fn contains(&self, v: &VReg) -> bool {
        self.0.binary_search(v).is_ok()
    }
}

fn block_uses(f: &Function) -> BlockUse {
    let mut bu = BlockUse {
        exposed: SecondaryMap::new(),
        defines: SecondaryMap::new(),
        phi_out: SecondaryMap::new(),
    };
    for b in f.layout.blocks() {
        for i in f.layout.block_insts(b) {
            let d = &f.insts[i];
            if d.is(Op::PHI) {
                for p in d.operands.get(1..).unwrap_or(&[]).chunks(2) {
                    if let (Some(v), Some(OperandKind::Block(pb))) =
                        (p[0].vreg_of(), p.get(1).map(|o| o.kind))
                    {
                        bu.phi_out[pb].insert(v);
                    }
                }
            } else {
                for v in reads(d) {
                    if !bu.defines[b].contains(&v) {
                        bu.exposed[b].insert(v);
                    }
                }
            }
            for v in whole_defs(d) {
                bu.defines[b].insert(v);
            }
        }
    }
    bu
}

/// The block that needs `v` live out of `b` (a successor's PHI, or a block some path
/// from a successor reaches that reads `v` before defining it), if any.
fn live_out(cfg: &Cfg, bu: &BlockUse, b: Block, v: VReg) -> Option<Block> {
    if bu.phi_out[b].contains(&v) {
        return cfg.succs(b).first().copied();
    }
    let mut seen: SecondaryMap<Block, bool> = SecondaryMap::new();
    let mut work: Vec<Block> = cfg.succs(b).to_vec();
    while let Some(s) = work.pop() {
        if core::mem::replace(&mut seen[s], true) {
            continue;
        }
        if bu.exposed[s].contains(&v) {
            return Some(s);
        }
        if bu.defines[s].contains(&v) {
            continue;
        }
        if bu.phi_out[s].contains(&v) {
            return Some(s);
        }
        work.extend(cfg.succs(s).iter().copied());
    }
    None
}

/// Every broken kill flag of `f`, in layout order.
pub(crate) fn check(f: &Function, cfg: &Cfg, bb: impl Fn(Block) -> String) -> Vec<KillError> {
    let mut out = Vec::new();
    let mut bu: Option<BlockUse> = None;
    // The instruction that last read each register `killed` in the block (None: not
    // killed, or defined since), and the registers set in the block (a vector map
    // rather than a tree: one BTreeMap instance less in the engine's wasm).
    let mut killed: SecondaryMap<VReg, Option<Inst>> = SecondaryMap::new();
    let mut set: Vec<VReg> = Vec::new();
    for b in f.layout.blocks() {
        for i in f.layout.block_insts(b) {
            let d = &f.insts[i];
            if !d.is(Op::PHI) {
                let mut told: Vec<VReg> = Vec::new();
                for v in reads(d) {
                    let Some(k) = killed[v] else { continue };
                    if told.contains(&v) {
                        continue;
                    }
                    told.push(v);
                    out.push(KillError {
                        block: b,
                        inst: i,
                        message: format!(
                            "%{} is read here, but `{}` earlier in {} reads it `killed` and nothing defines it in between",
                            v.index(),
                            super::verify::opcode_name(f, &f.insts[k]),
                            bb(b)
                        ),
                    });
                }
                for o in &d.operands {
                    if let Some(v) = o.vreg_of() {
                        if o.is_use() && o.has(oflag::KILL) && !o.has(oflag::UNDEF) {
                            killed[v] = Some(i);
                            set.push(v);
                        }
                    }
                }
            }
            for v in whole_defs(d) {
                if killed[v].is_some() {
                    killed[v] = None;
                }
            }
        }
        // Those still killed at the block's end, in register order (as the tree gave
        // them); the map is left empty for the next block.
        crate::sort::sort_by_key(&mut set, |v| v.index() as u128);
        set.dedup();
        let still: Vec<(VReg, Inst)> = set
            .drain(..)
            .filter_map(|v| killed[v].take().map(|k| (v, k)))
            .collect();
        if still.is_empty() {
            continue;
        }
        let bu = bu.get_or_insert_with(|| block_uses(f));
        for (v, k) in still {
            if let Some(s) = live_out(cfg, bu, b, v) {
                out.push(KillError {
                    block: b,
                    inst: k,
                    message: format!(
                        "%{} is read `killed` here, but it is live out of {} ({} needs it)",
                        v.index(),
                        bb(b),
                        bb(s)
                    ),
                });
            }
        }
    }
    out
}
