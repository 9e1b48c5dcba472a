//! Nothing in the verifier or the liveness analyses panics, whatever the IR holds:
//! corpus functions are mangled at random (operands retargeted, flags flipped, ties
//! broken, instructions erased, opcodes swapped, successor lists scrambled) and every
//! analysis runs on the result.

mod common;

use common::random::Rng;
use compiler_core::entity::EntityRef;
use compiler_core::liveness::{set_kill_flags, undefined_reads, LiveIntervals, LiveVariables};
use compiler_core::mir::{
    describe_errors, oflag, print_with_errors, verify, Block, Function, Inst, Op, Opcode,
    OperandKind, SubReg, VReg, VerifyLevel,
};

const LEVELS: [VerifyLevel; 4] = [
    VerifyLevel::Ssa,
    VerifyLevel::PostPhiElim,
    VerifyLevel::PostTwoAddress,
    VerifyLevel::PostCoalesce,
];

/// One random change; returns false if it may leave a block reference the printer
/// cannot print (a block that does not exist).
fn mangle(f: &mut Function, rng: &mut Rng) -> bool {
    let insts: Vec<Inst> = f.all_insts().map(|(_, i)| i).collect();
    let blocks: Vec<Block> = f.layout.blocks().collect();
    if insts.is_empty() || blocks.is_empty() {
        return true;
    }
    let i = insts[rng.below(insts.len() as u64) as usize];
    let nops = f.insts[i].operands.len();
    let k = if nops > 0 {
        rng.below(nops as u64) as usize
    } else {
        0
    };
    let vmax = f.vreg_end as u64 + 3;
    match rng.below(10) {
        0 => f.erase(i),
        1 if nops > 0 => {
            let v = VReg::new(rng.below(vmax) as usize);
            if f.insts[i].operands[k].is_reg() {
                f.insts[i].operands[k].set_reg(compiler_core::mir::Reg::Virt(v));
            }
        }
        2 if nops > 0 => {
            f.insts[i].operands[k].subreg = match rng.below(3) {
                0 => None,
                _ => Some(SubReg::of_lane(rng.below(6) as u8)),
            }
        }
        3 if nops > 0 => f.insts[i].operands[k].tied_def = Some(rng.below(nops as u64 + 2) as u8),
        4 if nops > 0 => {
            let flags = [
                oflag::DEF,
                oflag::UNDEF,
                oflag::KILL,
                oflag::DEAD,
                oflag::EARLY_CLOBBER,
                oflag::IMPLICIT,
            ];
            let fl = flags[rng.below(flags.len() as u64) as usize];
            let on = !f.insts[i].operands[k].has(fl);
            f.insts[i].operands[k].set(fl, on);
        }
        5 => {
            let ops = [
                Op::PHI,
                Op::COPY,
                Op::REG_SEQUENCE,
                Op::INSERT_SUBREG,
                Op::EXTRACT_SUBREG,
                Op::GOTO,
                Op::Return,
                Op::CBranch,
            ];
            f.insts[i].opcode = Opcode::Known(ops[rng.below(ops.len() as u64) as usize]);
        }
        6 => {
            let b = blocks[rng.below(blocks.len() as u64) as usize];
            let s = blocks[rng.below(blocks.len() as u64) as usize];
            if rng.chance(50) {
                f.blocks[b].succs.push((s, None));
            } else {
                f.blocks[b].succs.clear();
            }
        }
        7 if nops > 0 => {
            let s = blocks[rng.below(blocks.len() as u64) as usize];
            f.insts[i].operands[k].kind = OperandKind::Block(s);
        }
        8 => {
            // A dangling block reference: verify must cope, the printer need not.
            let b = Block::new(f.blocks.len() + rng.below(3) as usize);
            let t = blocks[rng.below(blocks.len() as u64) as usize];
            f.blocks[t].succs.push((b, None));
            return false;
        }
        _ => {
            let c = [None, Some("b32"), Some("b64"), Some("b32x4"), Some("b1")];
            let pick = f.vreg_list().nth(rng.below(4) as usize);
            if let Some(v) = pick {
                f.vregs[v].class = c[rng.below(c.len() as u64) as usize]
                    .and_then(compiler_core::mir::RegClass::parse_nvptx);
            }
        }
    }
    true
}

#[test]
fn mangled_corpus_functions_never_panic() {
    let mut rng = Rng(0xbad_1dea);
    let mut runs = 0;
    for stage in [
        "2-pre-phielim.mir",
        "3-pre-twoaddr.mir",
        "4-twoaddr.mir",
        "5-coalesced.mir",
    ] {
        for (_, m) in common::stage_files(stage) {
            for orig in &m.functions {
                for _ in 0..12 {
                    let mut f = orig.clone();
                    let mut printable = true;
                    for _ in 0..1 + rng.below(6) {
                        printable &= mangle(&mut f, &mut rng);
                    }
                    for level in LEVELS {
                        let errs = verify(&f, level);
                        if printable {
                            let _ = print_with_errors(&f, &errs);
                        }
                        let described = describe_errors(&f, &errs);
                        assert!(described.iter().all(|d| !d.is_empty()));
                    }
                    let lv = LiveVariables::compute(&f);
                    for b in f.layout.blocks() {
                        for v in f.vreg_list().take(8) {
                            let _ = (lv.is_live_in(&f, v, b), lv.is_live_out(&f, v, b));
                        }
                    }
                    let _ = undefined_reads(&f);
                    let li = LiveIntervals::compute(&f);
                    let _ = li.print();
                    set_kill_flags(&mut f);
                    runs += 1;
                }
            }
        }
    }
    assert!(runs > 500, "{runs}");
}
