//! The two-address gallery examples show what the spec says each should show.

use compiler_core::mir::{parse_module, print_function, Function, Op};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::stats::Stats;
use compiler_core::trace::{Player, StepLog};
use std::path::Path;

fn load(name: &str) -> Function {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("gallery")
        .join(format!("{name}.mir"));
    let m = parse_module(&std::fs::read_to_string(&p).unwrap())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    m.functions.into_iter().next().unwrap()
}

/// Runs the pass with tracing on; checks that replaying the trace reproduces the output.
fn run(name: &str, opts: TwoAddressOptions) -> (Function, Stats, StepLog) {
    let mut f = load(name);
    let input = f.clone();
    let mut log = StepLog::default();
    let stats = two_address::run(&mut f, &opts, &mut log);
    let replayed = Player::new(&input, &log.steps)
        .unwrap()
        .seek(log.steps.len())
        .unwrap();
    assert_eq!(
        print_function(&replayed),
        print_function(&f),
        "{name}: replay differs from the pass output"
    );
    (f, stats, log)
}

fn count(f: &Function, op: Op) -> usize {
    f.all_insts().filter(|&(_, i)| f.insts[i].is(op)).count()
}

#[test]
fn extract_subreg_examples_split_into_copies_with_six_lv_updates_each() {
    for (name, pairs, early_tied) in [
        ("tex-v4f32", 4, 3),
        ("mma-tf32-4frag", 4, 3),
        ("wmma-f16-8frag", 8, 7),
        ("wgmma-16frag", 16, 15),
        ("tma-2result", 2, 0),
        ("async-copy-2result", 2, 1),
    ] {
        let (f, s, log) = run(name, TwoAddressOptions::default());
        assert_eq!(s.get("extract_subreg_pseudos"), 1, "{name}");
        assert_eq!(s.get("extract_subreg_copies"), pairs, "{name}");
        assert_eq!(s.get("lv_updates"), 6 * pairs, "{name}");
        assert_eq!(s.get("early_tied_hints"), early_tied, "{name}");
        assert_eq!(count(&f, Op::EXTRACT_SUBREG), 0, "{name}");
        assert_eq!(count(&f, Op::REG_SEQUENCE), 0, "{name}");
        let copies = log
            .steps
            .iter()
            .filter(|s| s.kind == "extract_subreg_copy")
            .count() as u64;
        assert_eq!(copies, pairs, "{name}: one step per pair");
        assert!(
            log.remarks.len() as u64 >= pairs,
            "{name}: one remark per COPY"
        );
    }
}

#[test]
fn tex_v4f32_copies_in_pair_order_with_the_kill_on_the_last() {
    let (f, _, log) = run("tex-v4f32", TwoAddressOptions::default());
    let text = print_function(&f);
    let copies: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("= COPY"))
        .map(str::trim)
        .collect();
    assert_eq!(
        copies,
        [
            "%5:float32regs = COPY %4.sub0",
            "tied2 %6:float32regs = COPY %4.sub1",
            "tied2 %7:float32regs = COPY %4.sub2",
            "tied2 %8:float32regs = COPY killed %4.sub3",
        ]
    );
    // Step 3 (1-based, after the gate and the start) is pair 2 of 4.
    assert_eq!(log.steps[3].kind, "extract_subreg_copy");
    assert!(
        log.steps[3].narration.starts_with("Pair 2 of 4: %6"),
        "{}",
        log.steps[3].narration
    );
}

#[test]
fn commute_meets_the_tie_without_a_copy() {
    let (f, s, log) = run("commute", TwoAddressOptions::default());
    assert_eq!(s.get("commuted"), 1);
    assert_eq!(s.get("copies_inserted"), 0);
    assert_eq!(count(&f, Op::COPY), 0);
    assert!(log.steps.iter().any(|s| s.kind == "commute"));
    assert!(print_function(&f).contains("%2:int32regs = ADD32rr killed %2(tied-def 0), %1"));
}

#[test]
fn sub_needs_one_copy() {
    let (f, s, _) = run("sub-copy", TwoAddressOptions::default());
    assert_eq!(s.get("commuted"), 0);
    assert_eq!(s.get("copies_inserted"), 1);
    assert_eq!(count(&f, Op::COPY), 1);
    assert!(print_function(&f).contains("%3:int32regs = COPY %1\n"));
}

#[test]
fn reschedule_moves_the_add_and_the_knob_turns_it_off() {
    let (f, s, log) = run("reschedule", TwoAddressOptions::default());
    assert_eq!(s.get("rescheduled"), 1);
    assert!(log.steps.iter().any(|s| s.kind == "reschedule_below_kill"));
    // After sinking, %5 dies at the add, so its COPY reads a killed register.
    assert!(
        print_function(&f).contains("%6:int32regs = COPY killed %5"),
        "{}",
        print_function(&f)
    );
    let (f, s, log) = run(
        "reschedule",
        TwoAddressOptions {
            reschedule: false,
            ..Default::default()
        },
    );
    assert_eq!(s.get("rescheduled"), 0);
    assert!(!log.steps.iter().any(|s| s.kind.starts_with("reschedule")));
    assert_eq!(s.get("copies_inserted"), 1);
    assert!(print_function(&f).contains("%6:int32regs = COPY %5\n"));
}

#[test]
fn optnone_never_commutes() {
    let (f, s, log) = run("optnone", TwoAddressOptions::default());
    assert_eq!(s.get("commuted"), 0);
    // Without commuting, `%2 = ADD32rr %1(tied-def 0), killed %2` needs the old %2 saved
    // (it is read by the add) and then the tie's COPY.
    assert_eq!(s.get("copies_inserted"), 2);
    assert!(log.steps[0].narration.contains("optnone attribute"));
    assert!(log.steps.iter().any(|s| s.kind == "save_dst_read"));
    assert_eq!(count(&f, Op::COPY), 2);
    let text = print_function(&f);
    assert!(text.contains("%3:int32regs = COPY %2\n    %2:int32regs = COPY %1\n    %2:int32regs = ADD32rr %2(tied-def 0), killed %3"), "{text}");
    // The knob does the same for a function without the attribute.
    let (_, s, _) = run(
        "commute",
        TwoAddressOptions {
            optnone: true,
            ..Default::default()
        },
    );
    assert_eq!(s.get("commuted"), 0);
    assert_eq!(s.get("copies_inserted"), 2);
}

#[test]
fn inline_asm_tie_gets_a_copy() {
    let (f, s, _) = run("inline-asm-tied", TwoAddressOptions::default());
    assert_eq!(s.get("copies_inserted"), 1);
    let text = print_function(&f);
    assert!(text.contains("%3:int32regs = COPY %1\n"), "{text}");
    assert!(text.contains("%3(tied-def 3)"), "{text}");
}

#[test]
fn reg_sequence_and_insert_subreg_become_copies() {
    let (f, s, _) = run("reg-sequence", TwoAddressOptions::default());
    assert_eq!(s.get("reg_sequence_eliminated"), 1);
    let text = print_function(&f);
    assert!(
        text.contains("undef %6.sub0:float32regsx4 = COPY killed %2"),
        "{text}"
    );
    assert!(text.contains("%6.sub1:float32regsx4 = COPY %4\n"), "{text}");
    assert!(text.contains("%6.sub3:float32regsx4 = COPY %4\n"), "{text}");
    assert!(
        !text.contains(".sub2:float32regsx4 = COPY"),
        "undef lane copied:\n{text}"
    );
    let (f, s, _) = run("insert-subreg", TwoAddressOptions::default());
    assert_eq!(s.get("insert_subreg_rewritten"), 1);
    assert_eq!(count(&f, Op::INSERT_SUBREG), 0);
    let text = print_function(&f);
    assert!(text.contains("%6:float32regsx4 = COPY %5\n"), "{text}");
    assert!(
        text.contains("%6.sub2:float32regsx4 = COPY killed %4"),
        "{text}"
    );
}
