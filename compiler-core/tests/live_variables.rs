//! LiveVariables: against llc-22 (strip every `killed`/`dead` flag of the corpus,
//! recompute, compare with what llc-22 printed), the VarInfo of a PHI loop, the
//! kill-moving helpers the passes use, and random functions against brute force.

mod common;

use common::parse_one;
use common::random::{brute, random_function, Rng, SCALARS};
use compiler_core::entity::EntityRef;
use compiler_core::liveness::{set_kill_flags, LiveVariables};
use compiler_core::mir::print::inst_to_string;
use compiler_core::mir::{oflag, Function, Inst, Module, VReg};

/// One operand whose flag differs: (function, instruction text, operand, expected, got).
type Mismatch = (String, String, usize, &'static str, &'static str);

fn flag_name(flags: u16, def: bool) -> &'static str {
    match (def, flags & oflag::DEAD != 0, flags & oflag::KILL != 0) {
        (true, true, _) => "dead",
        (false, _, true) => "killed",
        _ => "-",
    }
}

fn strip(f: &mut Function) {
    for (_, d) in f.insts.iter_mut() {
        for o in d.operands.iter_mut() {
            if o.vreg_of().is_some() {
                o.set(oflag::KILL | oflag::DEAD, false);
            }
        }
    }
}

/// Recomputes every function's vreg flags and lists the differences from the file.
fn mismatches(case: &str, m: &Module) -> (usize, Vec<Mismatch>) {
    let mut out = Vec::new();
    let mut checked = 0;
    for orig in &m.functions {
        let mut f = orig.clone();
        strip(&mut f);
        set_kill_flags(&mut f);
        for (_, i) in orig.all_insts() {
            let (a, b) = (&orig.insts[i], &f.insts[i]);
            for (k, (oa, ob)) in a.operands.iter().zip(&b.operands).enumerate() {
                if oa.vreg_of().is_none() {
                    continue;
                }
                checked += 1;
                let mask = oflag::KILL | oflag::DEAD;
                if oa.flags & mask != ob.flags & mask {
                    out.push((
                        format!("{case}/{}", orig.name),
                        inst_to_string(orig, a),
                        k,
                        flag_name(oa.flags, oa.is_def()),
                        flag_name(ob.flags, ob.is_def()),
                    ));
                }
            }
        }
    }
    (checked, out)
}

fn report(stage: &str) -> (usize, usize, Vec<Mismatch>) {
    let mut all = Vec::new();
    let mut checked = 0;
    let mut funcs = 0;
    for (case, m) in common::stage_files(stage) {
        funcs += m.functions.len();
        let (c, mm) = mismatches(&case, &m);
        checked += c;
        all.extend(mm);
    }
    eprintln!(
        "{stage}: {funcs} functions, {checked} vreg operands, {} mismatches",
        all.len()
    );
    for (func, inst, k, want, got) in &all {
        eprintln!("  {func}: operand {k} of `{inst}`: llc-22 {want}, ours {got}");
    }
    (funcs, checked, all)
}

/// SSA with PHIs, as LiveVariables sees it right before PHI elimination: llc-22's
/// flags come back exactly, in every function of the corpus.
#[test]
fn ssa_kill_flags_match_llc22_exactly() {
    let (funcs, checked, mm) = report("2-pre-phielim.mir");
    assert!(
        funcs >= 15 && checked > 500,
        "corpus too small: {funcs} / {checked}"
    );
    assert!(mm.is_empty(), "{} mismatches (see stderr)", mm.len());
}

/// After PHI elimination. llc-22's PHIElimination does not recompute LiveVariables: it
/// updates the kill flags as it inserts COPYs. On this corpus its updates equal a
/// from-scratch computation on the multi-def form (the x86 and AMDGPU references
/// included; their physical-register flags are not ours to compute and are not
/// compared).
#[test]
fn post_phi_elimination_kill_flags_match_llc22_exactly() {
    let (funcs, _, mm) = report("3-pre-twoaddr.mir");
    assert!(funcs >= 18);
    assert!(mm.is_empty(), "{} mismatches (see stderr)", mm.len());
}

/// After two-address, llc-22's flags are a subset of ours: when the pass inserts
/// `%a = COPY %b` for a tied operand whose source was not killed at the tied use, it
/// leaves the COPY's source unflagged even where the COPY is its last use. Every flag
/// llc-22 set we set too, and every extra one is such a COPY source.
#[test]
fn after_two_address_llc22_flags_are_a_subset() {
    let (_, _, mm) = report("4-twoaddr.mir");
    assert!(!mm.is_empty());
    for (func, inst, k, want, got) in &mm {
        assert!(
            *want == "-" && *got == "killed" && *k == 1 && inst.contains(" = COPY "),
            "{func}: operand {k} of `{inst}`: llc-22 {want}, ours {got}"
        );
    }
}

fn vreg(n: usize) -> VReg {
    VReg::new(n)
}

/// The phi_loop of `ll_phi_loop/2-pre-phielim.mir`:
///   bb.0 → bb.1 | bb.3;  bb.1 → bb.2;  bb.2 → bb.2 | bb.3 (loop)
const PHI_LOOP_SSA: &str = "---
name: phi_loop
body: |
  bb.0.entry:
    successors: %bb.1(0x50000000), %bb.3(0x30000000)

    %6:b32 = LD_i32 0, 0, 101, 3, 32, -1, &phi_loop_param_1, 0
    %5:b64 = LD_i64 0, 0, 101, 3, 64, -1, &phi_loop_param_0, 0
    %8:b1 = SETP_i32ri %6, 1, 2
    %7:b32 = MOV_B32_i 0
    CBranch %8, %bb.3
    GOTO %bb.1

  bb.1.loop.preheader:
    successors: %bb.2(0x80000000)

    %9:b32 = MOV_B32_i 0

  bb.2.loop:
    successors: %bb.2(0x7c000000), %bb.3(0x04000000)

    %0:b32 = PHI %9, %bb.1, %3, %bb.2
    %1:b32 = PHI %9, %bb.1, %2, %bb.2
    %2:b32 = ADD32rr %1, %0
    %3:b32 = nuw nsw ADD32ri %0, 1
    %10:b1 = SETP_i32rr %3, %6, 2
    CBranch %10, %bb.2
    GOTO %bb.3

  bb.3.exit:
    %4:b32 = PHI %7, %bb.0, %2, %bb.2
    ST_i32 %4, 0, 0, 1, 32, %5, 0
    Return
...
";

fn insts_of(f: &Function) -> Vec<Inst> {
    f.all_insts().map(|(_, i)| i).collect()
}

#[test]
fn varinfo_of_a_phi_loop() {
    let mut f = parse_one(PHI_LOOP_SSA);
    let lv = set_kill_flags(&mut f);
    let b = |n| f.block_by_number(n).unwrap();
    let i = insts_of(&f);
    let alive = |v| lv.var_info(vreg(v)).alive_blocks.iter().collect::<Vec<_>>();
    // %6: read in bb.0 and every loop trip: live straight through bb.1 and bb.2, no kill.
    assert_eq!(alive(6), [b(1), b(2)]);
    assert!(lv.var_info(vreg(6)).kills.is_empty());
    assert_eq!(lv.var_info(vreg(6)).defs.as_slice(), [i[0]]);
    // %5: through bb.1 and bb.2, dies at the store in bb.3.
    assert_eq!(alive(5), [b(1), b(2)]);
    assert_eq!(lv.var_info(vreg(5)).kills.as_slice(), [i[15]]);
    // %9 only feeds PHIs: live out of bb.1, killed nowhere, no flag on a PHI operand.
    // LLVM's isLiveOut looks for successors it is alive or killed in, so it answers
    // no; the exact query counts the PHI's read on the edge.
    assert!(lv.var_info(vreg(9)).kills.is_empty() && alive(9).is_empty());
    assert!(!lv.is_live_out(&f, vreg(9), b(1)));
    assert!(lv.is_live_out_exact(&f, vreg(9), b(1)) && !lv.is_live_in(&f, vreg(9), b(2)));
    // %2 reaches the back edge and bb.3's PHI: not killed by its reads in bb.2.
    assert!(lv.var_info(vreg(2)).kills.is_empty());
    assert!(lv.is_live_out_exact(&f, vreg(2), b(2)));
    // %6 is alive through bb.2, so both queries see it leave bb.1.
    assert!(lv.is_live_out(&f, vreg(6), b(1)) && lv.is_live_out_exact(&f, vreg(6), b(1)));
    assert!(lv.var_info(vreg(6)).is_alive_in(lv.num_of(b(2))));
    // %0 and %1 die inside the loop body; %10 at the branch.
    assert!(lv.is_killed_by(vreg(1), i[9]) && lv.is_killed_by(vreg(0), i[10]));
    assert!(lv.is_killed_by(vreg(10), i[12]));
    assert_eq!(lv.var_info(vreg(6)).find_kill(&f, b(2)), None);
    assert_eq!(lv.var_info(vreg(5)).find_kill(&f, b(3)), Some(i[15]));
    // The flags, exactly as llc-22 prints them.
    let printed = compiler_core::mir::print_function(&f);
    for line in [
        "CBranch killed %8, %bb.3",
        "%2:b32 = ADD32rr killed %1, %0",
        "%3:b32 = nuw nsw ADD32ri killed %0, 1",
        "%10:b1 = SETP_i32rr %3, %6, 2",
        "ST_i32 killed %4, 0, 0, 1, 32, killed %5, 0",
        "%0:b32 = PHI %9, %bb.1, %3, %bb.2",
    ] {
        assert!(printed.contains(line), "{line}\n{printed}");
    }
}

#[test]
fn a_def_never_read_is_dead() {
    let mut f = parse_one(
        "---\nname: f\nbody: |\n  bb.0:\n    %0:b32, %1:b32 = LDV_i32_v2 0, 0, 1, 3, 32, -1, &g, 0\n    %2:b32 = ADD32rr %0, %0\n    Return\n...\n",
    );
    let lv = set_kill_flags(&mut f);
    let p = compiler_core::mir::print_function(&f);
    // Only the first of two reads in one instruction carries the kill (LLVM's
    // addRegisterKilled); an unread def is dead and is its own kill.
    assert!(p.contains("%0:b32, dead %1:b32 = LDV_i32_v2"), "{p}");
    assert!(p.contains("dead %2:b32 = ADD32rr killed %0, %0"), "{p}");
    let i = insts_of(&f);
    assert_eq!(lv.var_info(vreg(1)).kills.as_slice(), [i[0]]);
    assert_eq!(lv.var_info(vreg(2)).kills.as_slice(), [i[1]]);
}

/// What the two-address pass does when it turns `%2 = ADD32ri killed %1, 1` (tied)
/// into `%2 = COPY %1; %2 = ADD32ri %2, 1`: %1's kill moves to the COPY, and the new
/// register gets a VarInfo.
#[test]
fn moving_a_kill_to_an_inserted_copy() {
    let mut f = parse_one(
        "---\nname: f\nisSSA: false\nnoPhis: true\nbody: |\n  bb.0:\n    %1:b32 = MOV_B32_i 0\n    %2:b32 = ADD32ri %1, 1\n    ST_i32 %2, 0, 0, 1, 32, %2, 0\n    Return\n...\n",
    );
    let mut lv = set_kill_flags(&mut f);
    let i = insts_of(&f);
    let (mov, add) = (i[0], i[1]);
    assert!(lv.is_killed_by(vreg(1), add));
    let mut copy = f.insts[add].clone();
    copy.opcode = compiler_core::mir::Opcode::Known(compiler_core::mir::Op::COPY);
    copy.operands.truncate(2);
    copy.operands[1].set(oflag::KILL, false);
    let copy = f.insert_before(add, copy);
    // Table and flag together (LLVM's remove/addVirtualRegisterKilled) ...
    assert!(lv.remove_virtual_register_killed(&mut f, vreg(1), add));
    lv.add_virtual_register_killed(&mut f, vreg(1), copy);
    assert!(lv.is_killed_by(vreg(1), copy) && !lv.is_killed_by(vreg(1), add));
    assert!(f.insts[copy].operands[1].has(oflag::KILL));
    assert!(!f.insts[add].operands[1].has(oflag::KILL));
    // ... or the table alone (LLVM's replaceKillInstruction).
    assert!(lv.replace_kill(vreg(1), copy, add));
    assert!(lv.is_killed_by(vreg(1), add));
    assert!(!lv.replace_kill(vreg(1), copy, add));
    assert!(lv.remove_kill(vreg(1), add) && !lv.remove_kill(vreg(1), add));
    lv.add_kill(vreg(1), copy);
    lv.add_kill(vreg(1), copy);
    assert_eq!(lv.var_info(vreg(1)).kills.as_slice(), [copy]);
    // A dead def, set and cleared.
    lv.add_virtual_register_dead(&mut f, vreg(1), mov);
    assert!(f.insts[mov].operands[0].has(oflag::DEAD));
    assert!(lv.remove_virtual_register_dead(&mut f, vreg(1), mov));
    assert!(!f.insts[mov].operands[0].has(oflag::DEAD));
    // A fresh register gets an empty VarInfo; recomputing one register is exact.
    assert!(lv.new_var_info(vreg(2)).is_empty());
    lv.recompute_var(&f, vreg(2));
    assert_eq!(
        lv.var_info(vreg(2)),
        LiveVariables::compute(&f).var_info(vreg(2))
    );
    assert!(lv.describe(&f, vreg(2)).starts_with("%2: defs ["));
}

/// Random multi-def functions: every kill and dead flag, and every live-in/live-out
/// answer, agrees with a brute-force liveness.
#[test]
fn random_functions_agree_with_brute_force() {
    let mut rng = Rng(0x1ec7_0001);
    for _ in 0..400 {
        let mut f = random_function(&mut rng);
        let lv = set_kill_flags(&mut f);
        let text = compiler_core::mir::print_function(&f);
        for v in (0..SCALARS).map(vreg).filter(|&v| f.vregs[v].exists) {
            let bf = brute(&f, v, None);
            for b in f.layout.blocks() {
                assert_eq!(
                    lv.is_live_in(&f, v, b),
                    bf.block_in[b.index()],
                    "%{} into bb.{}\n{text}",
                    v.index(),
                    f.blocks[b].number
                );
                assert_eq!(
                    lv.is_live_out_exact(&f, v, b),
                    bf.block_out[b.index()],
                    "%{} out of bb.{}\n{text}",
                    v.index(),
                    f.blocks[b].number
                );
                let through = bf.block_in[b.index()]
                    && bf.block_out[b.index()]
                    && !f
                        .layout
                        .block_insts(b)
                        .any(|i| f.insts[i].vreg_defs().any(|(_, x)| x == v));
                assert_eq!(
                    lv.var_info(v).alive_blocks.contains(b),
                    through,
                    "%{} alive in bb.{}\n{text}",
                    v.index(),
                    f.blocks[b].number
                );
                for i in f.layout.block_insts(b) {
                    let d = &f.insts[i];
                    let (reads, defs) = common::random::reads_defs(&f, i, v, None);
                    let after = bf.after[&i];
                    let first_use = d
                        .operands
                        .iter()
                        .position(|o| o.is_use() && o.vreg_of() == Some(v) && !o.has(oflag::UNDEF));
                    for (k, o) in d.operands.iter().enumerate() {
                        if o.vreg_of() != Some(v) {
                            continue;
                        }
                        let want = if o.is_def() {
                            !after
                        } else {
                            Some(k) == first_use && reads && !defs && !after
                        };
                        let flag = if o.is_def() { oflag::DEAD } else { oflag::KILL };
                        assert_eq!(
                            o.has(flag),
                            want,
                            "%{} operand {k} of `{}`\n{text}",
                            v.index(),
                            inst_to_string(&f, d)
                        );
                    }
                }
            }
        }
    }
}
