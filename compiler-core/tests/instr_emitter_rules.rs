//! The emitter's rules one at a time, each on a small DAG: what it emits, what the trace
//! says, and that the result still computes what the DAG computes.

#[path = "emitter_support/mod.rs"]
mod support;

use compiler_core::dag::parse_dag;
use compiler_core::dag_eval::{self as eval, Inputs};
use compiler_core::mir::{parse_module, print_function, Function};
use compiler_core::passes::instr_emitter::{self, EmitterOptions};
use compiler_core::stats::Stats;
use compiler_core::trace::{Payload, Player, StepLog};

/// A block header, the entry token and `t90`, the output address from `$r1`.
const HEAD: &str = "Selected selection DAG: %bb.0 'f:entry'\n  t0: ch,glue = EntryToken\n  t90: i64,ch = CopyFromReg t0, Register:i64 $r1\n";

fn store(n: u32, val: &str, chain: &str) -> String {
    format!("  t{n}: ch = ST_i32 {val}, Constant:i32<0>, Constant:i32<0>, Constant:i32<1>, Constant:i32<32>, t90, Constant:i32<0>, {chain}\n  t{}: ch = Return t{n}\n", n + 1)
}

fn inputs() -> Inputs {
    let mut i = Inputs::default();
    i.param_regs.insert(1, 0x9000);
    for k in 2..=8 {
        i.param_regs.insert(k, 10 * k as u64 + 3);
    }
    i
}

/// Emits `body` (after [`HEAD`]) with `opts`; checks replay, that the printed MIR reads
/// back, and that the MIR stores what the DAG stores.
fn emit_with(body: &str, opts: &EmitterOptions) -> (Function, Stats, StepLog, String) {
    let text = format!("{HEAD}{body}");
    let dag = parse_dag(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let mut log = StepLog::default();
    let (f, stats) =
        instr_emitter::run(&dag, opts, &mut log).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let input = instr_emitter::input_snapshot(&dag).unwrap();
    let replayed = Player::new(&input, &log.steps)
        .unwrap()
        .seek(log.steps.len())
        .unwrap();
    let printed = print_function(&f);
    assert_eq!(print_function(&replayed), printed, "replay");
    let back = parse_module(&printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
    assert_eq!(print_function(&back.functions[0]), printed);
    // Same opcode models on both sides (see `emitter_support`).
    let want = eval::run(&dag, &inputs()).unwrap_or_else(|e| panic!("DAG: {e}"));
    let got =
        support::mir_eval::run(&f, &inputs()).unwrap_or_else(|e| panic!("MIR: {e}\n{printed}"));
    assert_eq!(got, want, "{printed}");
    (f, stats, log, printed)
}

fn emit(body: &str) -> (Function, Stats, StepLog, String) {
    emit_with(body, &EmitterOptions::default())
}

fn kinds(log: &StepLog) -> Vec<&'static str> {
    log.steps.iter().map(|s| s.kind.as_str()).collect()
}

#[test]
fn copy_to_reg_of_an_implicit_def_becomes_an_implicit_def() {
    let (_, stats, log, text) = emit(&format!(
        "  t1: i32 = IMPLICIT_DEF\n  t2: ch = CopyToReg t0, Register:i32 %7, t1\n  t3: i32,ch = CopyFromReg t2, Register:i32 %7\n{}",
        store(4, "t3", "t3:1")
    ));
    assert!(text.contains("%7:int32regs = IMPLICIT_DEF"), "{text}");
    assert!(kinds(&log).contains(&"copy_to_reg_implicit_def"));
    // The node's own IMPLICIT_DEF (uniform, so b32) is read by nobody: erased at once.
    assert_eq!(stats.get("dead_copies_erased"), 1);
    assert!(log.steps.iter().any(|s| matches!(&*s.payload,
        Payload::EmitterRecord(r) if r.verdict == "erase_now" && r.opcode == "IMPLICIT_DEF")));
}

#[test]
fn copy_from_reg_picks_its_class_three_ways() {
    // Only a store reads it: the store asks for any 32-bit register.
    let copy_of_r2 = |text: &str| {
        text.lines()
            .find(|l| l.contains("= COPY $r2"))
            .unwrap()
            .trim()
            .to_string()
    };
    let (_, _, _, text) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2\n{}",
        store(2, "t1", "t1:1")
    ));
    assert!(copy_of_r2(&text).ends_with(":b32 = COPY $r2"), "{text}");
    // An add and a store: the common subclass of int32regs and b32.
    let (_, _, _, text) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2\n  t2: i32 = ADD32rr t1, t1\n  t3: i32 = XOR_b32rr t2, t1\n{}",
        store(4, "t3", "t1:1")
    ));
    assert!(
        copy_of_r2(&text).ends_with(":int32regs = COPY $r2"),
        "{text}"
    );
    // A user that constrains nothing: the minimal class of $r2 as an i32.
    let (_, _, log, text) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2\n  t2: f32 = BITCONVERT_32_I2F t1\n{}",
        store(3, "t2", "t1:1")
    ));
    assert!(
        copy_of_r2(&text).ends_with(":int32regs = COPY $r2"),
        "{text}"
    );
    assert!(log
        .steps
        .iter()
        .any(|s| s.narration.contains("minimal class of $r2")));
    // Its only user copies it on into %5: %5 receives it directly.
    let (_, stats, log, text) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2\n  t2: ch = CopyToReg t1:1, Register:i32 %5, t1\n  t3: i32,ch = CopyFromReg t2, Register:i32 %5\n{}",
        store(4, "t3", "t3:1")
    ));
    assert!(text.contains("%5:int32regs = COPY $r2"), "{text}");
    assert_eq!(stats.get("copy_to_reg_reused"), 1);
    assert!(kinds(&log).contains(&"copy_to_reg_same"));
    assert!(kinds(&log).contains(&"copy_from_reg_virtual"));
}

#[test]
fn divergence_decides_an_open_class() {
    let body = |attr: &str| {
        format!(
            "  t1: i32 = MOV_B32_i Constant:i32<5>{attr}\n{}",
            store(2, "t1", "t0")
        )
    };
    let (_, _, log, text) = emit(&body(""));
    assert!(text.contains("%1:b32 = MOV_B32_i 5"), "{text}");
    assert!(log.steps.iter().any(|s| matches!(&*s.payload,
        Payload::EmitterVReg(v) if !v.divergent && v.chosen == "b32")));
    let (_, _, _, text) = emit(&body(" [divergent]"));
    assert!(text.contains("%1:int32regs = MOV_B32_i 5"), "{text}");
}

#[test]
fn min_rc_size_copies_instead_of_narrowing_to_a_tiny_class() {
    // A b32x4 tuple feeds an accumulator that must be float32regsx4: narrowing would
    // leave one register, fewer than MinRCSize = 4, so the emitter copies.
    let (_, stats, log, text) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2
  t2: f32 = BITCONVERT_32_I2F t1
  t3: untyped = REG_SEQUENCE RegClass:b32x4, t2, SubReg:sub0, t2, SubReg:sub1, t2, SubReg:sub2, t2, SubReg:sub3
  t4: untyped = MMA_M16N8K8_TF32_ACC t2, t2, t3
  t5: f32,f32,f32,f32 = MMA_M16N8K8_TF32 t2, t2, t2
  t6: f32 = FADDf32rr t5, t5:3
{}",
        store(7, "t6", "t1:1")
    ));
    assert_eq!(stats.get("min_rc_copies"), 1, "{text}");
    assert!(kinds(&log).contains(&"min_rc_copy"));
    assert!(text.contains(":float32regsx4 = COPY %"), "{text}");
    assert!(log
        .steps
        .iter()
        .any(|s| s.kind == "min_rc_copy" && s.narration.contains("fewer than MinRCSize = 4")));
    // An inline-asm "r" operand given a float: no common subclass at all, also a COPY.
    let (_, stats, log, _) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2
  t2: f32 = BITCONVERT_32_I2F t1
  t3: f32 = FADDf32rr t2, t2
  t4: ch,glue = INLINEASM t1:1, \"add.u32 $0, $1, $1;\", \"=r\", Register:i32 %20, \"r\", t3
  t5: i32,ch,glue = CopyFromReg t4, Register:i32 %20, t4:1
{}",
        store(6, "t5", "t5:1")
    ));
    assert_eq!(stats.get("min_rc_copies"), 1);
    assert!(log
        .steps
        .iter()
        .any(|s| s.kind == "min_rc_copy" && s.narration.contains("have no common subclass")));
}

#[test]
fn an_unread_implicit_def_is_marked_dead() {
    let (_, stats, log, text) = emit(&format!(
        "  t1: i64,ch = CopyFromReg t0, Register:i64 $r2
  t2: i32,ch = CopyFromReg t0, Register:i32 $r3
  t3: f32 = BITCONVERT_32_I2F t2
  t4: f32,f32,f32,f32,i1,ch = TEX_2D_V4F32_F32_P t1, t3, t3, t0
  t5: f32 = FADDf32rr t4, t4:3
{}",
        store(6, "t5", "t4:5")
    ));
    assert!(text.contains("implicit-def dead $texpred"), "{text}");
    assert_eq!(stats.get("implicit_defs_dead"), 1);
    assert!(kinds(&log).contains(&"implicit_defs_dead"));
}

const BUNDLE: &str = "  t1: i64,ch = CopyFromReg t0, Register:i64 $r2
  t2: i32,ch = CopyFromReg t0, Register:i32 $r3
  t3: f32,glue = BITCONVERT_32_I2F t2
  t4: f32,f32,f32,f32,i1,ch,glue = TEX_2D_V4F32_F32_P t1, t3, t3, t0, t3:1
  t5: i1,ch,glue = CopyFromReg t4:5, Register:i1 $texpred, t4:6 ATTRS
  t6: f32 = SELP_b32rr t4, t4:1, t4:4
  t7: f32 = SELP_b32rr t4:2, t6, t5
";

#[test]
fn bit36_is_read_only_under_its_guard() {
    let body = |attrs: &str| {
        format!(
            "{}{}",
            BUNDLE.replace("ATTRS", attrs),
            store(8, "t7", "t5:1")
        )
    };
    let (_, stats, _, text) = emit(&body("[implicit-glue-consumer]"));
    assert_eq!(stats.get("bit36_skipped"), 1);
    assert_eq!(text.matches("COPY $texpred").count(), 1, "{text}");
    // Tied (property bit 2): the flag is not read, the copy is made.
    let (_, stats, log, text) = emit(&body("[implicit-glue-consumer, tied]"));
    assert_eq!(stats.get("bit36_skipped"), 0);
    assert_eq!(text.matches("COPY $texpred").count(), 2, "{text}");
    assert!(log.steps.iter().any(|s| matches!(
        &*s.payload,
        Payload::EmitterBit36(b) if b.guard == "tied" && !b.skipped
    )));
    // The option off: same as no flag.
    let off = EmitterOptions {
        honor_bit36: false,
        ..Default::default()
    };
    let (_, stats, _, _) = emit_with(&body("[implicit-glue-consumer]"), &off);
    assert_eq!(stats.get("bit36_skipped"), 0);
    // Not in a glue chain (property bit 3 clear).
    let (_, stats, log, _) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2 [implicit-glue-consumer]\n{}",
        store(2, "t1", "t1:1")
    ));
    assert_eq!(stats.get("bit36_skipped"), 0);
    assert!(log.steps.iter().any(|s| matches!(
        &*s.payload,
        Payload::EmitterBit36(b) if b.guard == "no_glue"
    )));
}

#[test]
fn bit36_on_the_generic_path_and_its_debug_value_guard() {
    let body = |attrs: &str| {
        format!(
            "  t1: i64,ch = CopyFromReg t0, Register:i64 $r2
  t2: i32,ch = CopyFromReg t0, Register:i32 $r3
  t3: f32 = BITCONVERT_32_I2F t2
  t4: f32,f32,f32,f32,i1,ch,glue = TEX_2D_V4F32_F32_P t1, t3, t3, t0
  t5: i1,glue = IMOV1rr t4:5, t4:4, t4:6 {attrs}
  t6: f32 = SELP_b32rr t4, t4:1, t5
{}",
            store(7, "t6", "t4:5")
        )
    };
    let (_, stats, log, text) = emit(&body("[implicit-glue-consumer]"));
    assert_eq!(stats.get("bit36_skipped"), 1);
    assert!(!text.contains("IMOV1rr"), "{text}");
    assert!(log
        .steps
        .iter()
        .any(|s| s.kind == "bit36_skip" && s.narration.contains("site 1")));
    let (_, stats, _, text) = emit(&body("[implicit-glue-consumer, debug-value]"));
    assert_eq!(stats.get("bit36_skipped"), 0);
    assert!(text.contains("IMOV1rr"), "{text}");
}

#[test]
fn a_folded_copy_waits_on_the_dead_list_and_its_readers_move_to_the_source() {
    let (_, stats, log, text) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2
  t2: ch = CopyToReg t1:1, Register:i32 %5, t1 [inline-fold]
  t3: i32,ch = CopyFromReg t2, Register:i32 %5
  t4: i32 = ADD32rr t3, t3
  t5: i32 = XOR_b32rr t4, t1
{}",
        store(6, "t5", "t3:1")
    ));
    assert_eq!(stats.get("dead_copies_erased"), 1);
    assert!(!text.contains("%5"), "{text}");
    let flush = log
        .steps
        .iter()
        .find(|s| s.kind == "flush_dead_list")
        .unwrap();
    assert!(matches!(
        *flush.payload,
        Payload::EmitterFlush { rewritten: 2, .. }
    ));
    assert!(log.steps.iter().any(|s| matches!(
        &*s.payload,
        Payload::EmitterRecord(r) if r.inline_fold && r.verdict == "defer"
    )));
    // Folded and unread: erased at once.
    let (_, stats, log, _) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2
  t2: ch = CopyToReg t1:1, Register:i32 %5, t1 [inline-fold]
  t3: i32 = XOR_b32rr t1, t1
{}",
        store(4, "t3", "t2")
    ));
    assert_eq!(stats.get("dead_copies_erased"), 1);
    assert!(log.steps.iter().any(|s| matches!(
        &*s.payload,
        Payload::EmitterRecord(r) if r.inline_fold && r.verdict == "erase_now"
    )));
}

#[test]
fn the_glue_walk_catches_a_cascading_dead_copy() {
    let (_, stats, log, text) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2
  t2: ch,glue = CopyToReg t0, Register:i32 %5, t1
  t3: i32,ch,glue = CopyFromReg t2, Register:i32 $r3, t2:1
  t4: i32 = ADD32rr t3, t1, t3:2
  t5: i32,ch = CopyFromReg t3:1, Register:i32 %5
  t6: ch = CopyToReg t5:1, Register:i32 %6, t5
{}",
        store(7, "t4", "t6")
    ));
    // COPY %6 goes at once; that leaves COPY %5 unread, which the walk back from the
    // surviving copy of $r3 finds through the glue.
    assert_eq!(stats.get("glue_walk_deferred"), 1);
    assert_eq!(stats.get("dead_copies_erased"), 2);
    assert!(kinds(&log).contains(&"glue_walk"));
    assert!(!text.contains("%5") && !text.contains("%6"), "{text}");
}

#[test]
fn dead_nodes_are_skipped_unless_forced() {
    let body = format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2\n  t2: i32 = ADD32rr t1, t1\n{}",
        store(3, "t1", "t1:1")
    );
    let (_, stats, log, text) = emit(&body);
    assert_eq!(stats.get("dead_nodes_skipped"), 1);
    assert!(kinds(&log).contains(&"dead_node"));
    assert!(!text.contains("ADD32rr"));
    let forced = EmitterOptions {
        force_emit: true,
        ..Default::default()
    };
    let (_, stats, _, text) = emit_with(&body, &forced);
    assert_eq!(stats.get("dead_nodes_skipped"), 0);
    assert!(text.contains("ADD32rr"));
}

#[test]
fn labels_lifetimes_and_probes_become_pseudos() {
    let (_, _, log, text) = emit(&format!(
        "  t1: ch = EH_LABEL t90:1, \".Ltmp0\"
  t2: ch = LIFETIME_START t1, FrameIndex:0
  t3: ch = LIFETIME_END t2, FrameIndex:0
  t4: ch = PSEUDO_PROBE t3, Constant:i64<1234>, Constant:i64<1>, Constant:i32<0>
  t5: i32 = MOV_B32_i Constant:i32<1>
{}",
        store(6, "t5", "t4")
    ));
    for want in [
        "EH_LABEL <mcsymbol .Ltmp0>",
        "LIFETIME_START %stack.0",
        "LIFETIME_END %stack.0",
        "PSEUDO_PROBE 1234, 1, 0",
    ] {
        assert!(text.contains(want), "{want}\n{text}");
    }
    assert_eq!(kinds(&log).iter().filter(|k| **k == "label").count(), 4);
}

#[test]
fn the_three_hooks_are_traced_when_claimed() {
    // The REG_SEQUENCE has no reader: forceEmit keeps it.
    let forced = EmitterOptions {
        force_emit: true,
        ..Default::default()
    };
    let (_, stats, log, _) = emit_with(
        &format!(
            "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2
  t2: i32 = SHFL_SYNC_IDX_i32 t1, t1, t1, t1
  t3: untyped = REG_SEQUENCE RegClass:int32regsx2, t2, SubReg:sub0, t1, SubReg:sub1
{}",
            store(4, "t2", "t1:1")
        ),
        &forced,
    );
    assert_eq!(stats.get("custom_hooks"), 2);
    let k = kinds(&log);
    assert!(k.contains(&"custom_inserter") && k.contains(&"subreg_inserter"));
}

#[test]
fn an_early_clobber_output_and_an_immediate_in_inline_asm() {
    let (_, _, _, text) = emit(&format!(
        "  t1: i32,ch = CopyFromReg t0, Register:i32 $r2
  t2: ch,glue = INLINEASM t1:1, \"add.u32 $0, $1, $2;\", \"=&r\", Register:i32 %20, \"r\", t1, \"n\", Constant:i32<7> [sideeffect]
  t3: i32,ch,glue = CopyFromReg t2, Register:i32 %20, t2:1
{}",
        store(4, "t3", "t3:1")
    ));
    assert!(
        text.contains("262155 /* regdef-ec:B32 */, def early-clobber %20"),
        "{text}"
    );
    assert!(text.contains("13 /* imm */, 7"), "{text}");
}
