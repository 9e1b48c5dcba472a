//! The two-address gallery examples show what the spec says each should show.

use compiler_core::mir::{parse_module, print_function, Function, Op};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::stats::Stats;
use compiler_core::trace::{Payload, Player, StepLog};
use std::path::Path;

fn load(name: &str) -> Function {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("gallery")
        .join(format!("{name}.mir"));
    let m = parse_module(&std::fs::read_to_string(&p).unwrap())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    m.functions.into_iter().next().unwrap()
}

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/two_address")
        .join(name)
}

/// Runs the pass with tracing on; checks that replaying the trace reproduces the output.
fn run(name: &str, opts: TwoAddressOptions) -> (Function, Stats, StepLog) {
    run_function(load(name), opts)
}

fn run_file(path: &Path, opts: TwoAddressOptions) -> (Function, Stats, StepLog) {
    let m = parse_module(&std::fs::read_to_string(path).unwrap()).unwrap();
    run_function(m.functions.into_iter().next().unwrap(), opts)
}

fn run_function(f: Function, opts: TwoAddressOptions) -> (Function, Stats, StepLog) {
    let name = f.name.clone();
    let mut f = f;
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

/// `lv_updates` counts LiveVariables updates made or confirmed. In each example one
/// source register feeds every pair and dies at the pseudo, so each pair's COPY takes
/// its def over (one update) and findKill finds the source's kill at the pseudo (one
/// confirmation); only the last pair moves that kill to its COPY (one more):
/// 2 × pairs + 1.
#[test]
fn extract_subreg_examples_split_into_copies_with_counted_lv_updates() {
    for (name, pairs, early_tied, lv) in [
        ("tex-v4f32", 4, 3, 9),
        ("mma-tf32-4frag", 4, 3, 9),
        ("wmma-f16-8frag", 8, 7, 17),
        ("wgmma-16frag", 16, 15, 33),
        ("tma-2result", 2, 0, 5),
        ("async-copy-2result", 2, 1, 5),
    ] {
        let (f, s, log) = run(name, TwoAddressOptions::default());
        assert_eq!(s.get("extract_subreg_pseudos"), 1, "{name}");
        assert_eq!(s.get("extract_subreg_copies"), pairs, "{name}");
        assert_eq!(s.get("lv_updates"), lv, "{name}");
        assert_eq!(s.get("early_tied_hints"), early_tied, "{name}");
        assert_eq!(count(&f, Op::EXTRACT_SUBREG), 0, "{name}");
        assert_eq!(count(&f, Op::REG_SEQUENCE), 0, "{name}");
        let payloads: Vec<(u32, usize)> = log
            .steps
            .iter()
            .filter_map(|s| match &*s.payload {
                Payload::ExtractSubregPair {
                    lv_updates,
                    lv_steps,
                    ..
                } => Some((u32::from(*lv_updates), lv_steps.len())),
                _ => None,
            })
            .collect();
        assert_eq!(payloads.len() as u64, pairs, "{name}: one step per pair");
        // Every pair lists its four chain steps; the counts add up to the stat.
        assert!(
            payloads.iter().all(|&(_, n)| n == 4),
            "{name}: {payloads:?}"
        );
        let sum: u64 = payloads.iter().map(|&(n, _)| n as u64).sum();
        assert_eq!(sum, lv, "{name}");
        assert_eq!(
            payloads.last().unwrap().0,
            3,
            "{name}: the last pair moves the kill"
        );
        assert!(
            log.remarks.len() as u64 >= pairs,
            "{name}: one remark per COPY"
        );
    }
}

/// es_undef.mir (findings): both pairs read an undef source, so nothing is read and no
/// kill is looked up or moved; only the two defs are taken over by their COPYs.
#[test]
fn undef_extract_subreg_sources_make_no_kill_updates() {
    let (f, s, log) = run_file(&fixture("es_undef.mir"), TwoAddressOptions::default());
    assert_eq!(s.get("extract_subreg_copies"), 2);
    assert_eq!(s.get("lv_updates"), 2);
    let steps: Vec<Vec<String>> = log
        .steps
        .iter()
        .filter_map(|s| match &*s.payload {
            Payload::ExtractSubregPair { lv_steps, .. } => Some(lv_steps.texts()),
            _ => None,
        })
        .collect();
    assert_eq!(
        steps,
        [
            vec![
                "transfer: %3's def moves from instruction 1 to 5".to_string(),
                "findKill, add/removeKill, addNewBlock: the source is undef, nothing is read"
                    .to_string()
            ],
            vec![
                "transfer: %4's def moves from instruction 1 to 6".to_string(),
                "findKill, add/removeKill, addNewBlock: the source is undef, nothing is read"
                    .to_string()
            ],
        ]
    );
    assert!(print_function(&f).contains("%3:int32regs = COPY undef %2.sub0"));
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
    assert_eq!(log.steps.step(3).kind, "extract_subreg_copy");
    assert!(
        log.steps.step(3).narration.starts_with("Pair 2 of 4: %6"),
        "{}",
        log.steps.step(3).narration
    );
}

/// The body lines of a printed function, trimmed, without the memory operands.
fn body(f: &Function) -> Vec<String> {
    let text = print_function(f);
    let start = text.find("body:").unwrap();
    text[start..]
        .lines()
        .skip(2)
        .map(|l| l.split(" :: ").next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty() && l != "...")
        .collect()
}

/// An add whose two sources both die in it, after three loads that tie nothing: only
/// isProfitableToCommute's last rule can commute it, and that rule compares where the
/// two sources were defined in the block, by DistanceMap. The loads come before the
/// block's first instruction with work to do, whose arrival fills their entries: the
/// other source loaded last commutes the add; loaded first, it does not.
#[test]
fn commute_by_def_order_reads_the_distances_of_the_untied_loads_above() {
    let add = |first: u32, second: u32| {
        let text = format!(
            "---\nname: k\ntracksRegLiveness: true\nnoPhis: true\nbody: |\n  bb.0:\n    \
             %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0\n    \
             %{first}:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &k_param_1, 0\n    \
             %{second}:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &k_param_2, 0\n    \
             %3:int32regs = ADD32rr killed %1(tied-def 0), killed %2\n    \
             ST_i32 killed %3, 0, 0, 1, 32, killed %0, 0\n    Return\n...\n"
        );
        let f = parse_module(&text).unwrap().functions.remove(0);
        run_function(f, TwoAddressOptions::default())
    };
    let (f, s, log) = add(1, 2);
    assert_eq!(s.get("commuted"), 1, "{}", print_function(&f));
    assert!((0..log.steps.len()).any(|k| log
        .steps
        .step(k)
        .narration
        .contains("the other source is defined later in the block")));
    // The tie's COPY reads the source in the tied slot: %2 once commuted, else %1.
    let copies = |f: &Function, copied: &str, other: &str| {
        let out = print_function(f);
        let want = format!(
            "%3:int32regs = COPY killed {copied}\n    %3:int32regs = ADD32rr %3(tied-def 0), killed {other}\n"
        );
        assert!(out.contains(&want), "{out}");
    };
    copies(&f, "%2", "%1");
    let (f, s, _) = add(2, 1);
    assert_eq!(s.get("commuted"), 0, "{}", print_function(&f));
    copies(&f, "%1", "%2");
}

/// `%3 = ADD32rr %1(tied-def 0), killed %2` where %1 lives on: LLVM's
/// tryInstructionCommute swaps the sources because %2 dies here and %1 does not; as
/// ADD32rr has no three-address form, processTiedPairs then inserts the tie's COPY,
/// which now reads the dying %2 (its kill moves onto the COPY), so the register
/// coalescer can join %2 and %3 and no COPY is left.
#[test]
fn commute_makes_the_ties_copy_read_the_dying_value() {
    let (f, s, log) = run("commute", TwoAddressOptions::default());
    assert_eq!(s.get("commuted"), 1);
    assert_eq!(s.get("copies_inserted"), 1);
    assert!(log.steps.iter().any(|s| s.kind == "commute"));
    assert_eq!(
        body(&f)[3..7],
        [
            "%3:int32regs = COPY killed %2",
            "%3:int32regs = ADD32rr %3(tied-def 0), %1",
            "ST_i32 killed %1, 0, 0, 1, 32, %0, 0",
            "ST_i32 killed %3, 0, 0, 1, 32, killed %0, 4",
        ]
        .map(String::from)[..],
        "{}",
        print_function(&f)
    );
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

/// The same add under optnone: no commuting, so the tie's COPY reads %1, which lives
/// on (LLVM at OptLevel None: processTiedPairs only). No other COPY: nothing saves %3.
#[test]
fn optnone_never_commutes() {
    let (f, s, log) = run("optnone", TwoAddressOptions::default());
    assert_eq!(s.get("commuted"), 0);
    assert_eq!(s.get("copies_inserted"), 1);
    assert!(log.steps.step(0).narration.contains("optnone attribute"));
    assert_eq!(
        body(&f)[3..7],
        [
            "%3:int32regs = COPY %1",
            "%3:int32regs = ADD32rr %3(tied-def 0), killed %2",
            "ST_i32 killed %1, 0, 0, 1, 32, %0, 0",
            "ST_i32 killed %3, 0, 0, 1, 32, killed %0, 4",
        ]
        .map(String::from)[..],
        "{}",
        print_function(&f)
    );
    // Commuting was never tried, so processTiedPairs emits no remark.
    assert_eq!(s.get("remarks"), 0);
    assert!(log.remarks.is_empty());
    // The knob does the same for a function without the attribute.
    let (f, s, _) = run(
        "commute",
        TwoAddressOptions {
            optnone: true,
            ..Default::default()
        },
    );
    assert_eq!(s.get("commuted"), 0);
    assert_eq!(s.get("copies_inserted"), 1);
    assert!(print_function(&f).contains("%3:int32regs = COPY %1\n"));
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
