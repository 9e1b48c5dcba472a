//! The verifier's live-in rule: block live-in lists agree with the function and with
//! each other, as LLVM's MachineVerifier checks the physical live-ins it can see
//! without live intervals.
//!
//! ```text
//!  function `liveins:` $r ─▶ the entry block lists $r
//!  block B (not the entry) lists $r ─▶ every reachable predecessor P lists $r too or
//!                                      defines it (NVPTX only: other targets' registers
//!                                      alias, which this check cannot see)
//! ```
//!
//! Virtual registers never appear in these lists (the parser refuses them), so for
//! them the rule that matters is the one about reads: every read of a virtual register
//! is reached by a def on every path (`Dominance` in SSA, `ReadBeforeDef` after), which
//! is LLVM's "Virtual register defs don't dominate all uses".

use super::cfg::Cfg;
use super::entities::Block;
use super::function::{Function, Target};
use super::operand::Reg;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// One inconsistent live-in: the block to print it under, and the message.
pub(crate) struct LiveInError {
    pub block: Block,
    pub message: String,
}

pub(crate) fn check(f: &Function, cfg: &Cfg, bb: impl Fn(Block) -> String) -> Vec<LiveInError> {
    let mut out = Vec::new();
    let Some(entry) = f.layout.entry_block() else {
        return out;
    };
    for &(r, _) in &f.liveins {
        if matches!(r, Reg::Phys(_)) && !f.blocks[entry].liveins.contains(&r) {
            out.push(LiveInError {
                block: entry,
                message: format!(
                    "${} is a live-in of the function, but the entry block does not list it",
                    phys_name(f, r)
                ),
            });
        }
    }
    if f.target != Target::Nvptx || !f.props.tracks_reg_liveness {
        return out;
    }
    for b in f.layout.blocks() {
        if b == entry || !cfg.is_reachable(b) {
            continue;
        }
        for &r in &f.blocks[b].liveins {
            for &p in cfg.preds(b) {
                if !cfg.is_reachable(p) || f.blocks[p].liveins.contains(&r) || defines(f, p, r) {
                    continue;
                }
                out.push(LiveInError {
                    block: b,
                    message: format!(
                        "${} is listed live-in, but {} neither lists it live-in nor defines it",
                        phys_name(f, r),
                        bb(p)
                    ),
                });
            }
        }
    }
    out
}

fn defines(f: &Function, b: Block, r: Reg) -> bool {
    f.layout.block_insts(b).any(|i| {
        f.insts[i]
            .operands
            .iter()
            .any(|o| o.is_def() && o.get_reg() == Some(r))
    })
}

fn phys_name(f: &Function, r: Reg) -> &str {
    match r {
        Reg::Phys(s) => f.sym(s),
        _ => "",
    }
}
