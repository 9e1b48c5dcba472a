//! Two-address findings (shared/findings, `two-address/`), each input kept in
//! `tests/fixtures/two_address/` with the result derived by reasoning (and, where
//! llc-22 reads the input, checked against `llc-22 -run-pass=twoaddressinstruction`).

use compiler_core::mir::{parse_module, print_function, Function};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::pipeline::{run, PipelineError, RunOptions};
use compiler_core::stages::Stage;
use compiler_core::trace::{Payload, StepLog};
use std::path::Path;

fn text(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/two_address")
        .join(name);
    std::fs::read_to_string(p).unwrap()
}

fn until_two_address(name: &str, knobs: &[&str]) -> compiler_core::pipeline::RunResult {
    let mut opts = RunOptions {
        until: Some(Stage::TwoAddress),
        verify: true,
        trace: true,
        ..RunOptions::default()
    };
    for k in knobs {
        opts.knobs.set_from_str(k).unwrap();
    }
    run(&text(name), &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The body lines of printed MIR, trimmed.
fn body(mir: &str) -> Vec<String> {
    let start = mir.find("body:").unwrap();
    mir[start..]
        .lines()
        .skip(1)
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && l != "...")
        .collect()
}

fn traced(name: &str) -> (Function, compiler_core::stats::Stats, StepLog) {
    let m = parse_module(&text(name)).unwrap();
    let mut f = m.functions.into_iter().next().unwrap();
    let mut log = StepLog::default();
    let s = two_address::run(&mut f, &TwoAddressOptions::default(), &mut log);
    (f, s, log)
}

/// asm_tied2_use.mir: the `tied2` mark on a use is the emitter's secondary tie flag,
/// not `undef`: the use reads %1, so %1's value must reach the def through the tie's
/// COPY (which also takes %1's kill). llc-22 on the same input without the CICC `tied2`
/// mark gives `%3:b32 = COPY %1` before the INLINEASM reading `%3(tied-def 3)` (it runs
/// without LiveVariables there, so it drops the kill instead of moving it).
#[test]
fn a_tied2_use_is_copied_not_dropped() {
    let r = until_two_address("asm_tied2_use.mir", &[]);
    assert!(!r.verify_failed(), "{:?}", r.stages.last().unwrap().verify);
    assert_eq!(
        body(&r.output)[1..6],
        [
            "%0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &p0, 0",
            "%1:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &p1, 0",
            "%3:int32regs = COPY killed %1",
            "INLINEASM &\"add.u32 $0, $0, 1;\", 1 /* sideeffect attdialect */, 262154 /* regdef:B32 */, def %3, 2147483657 /* reguse tiedto:$0 */, tied2 %3(tied-def 3)",
            "ST_i32 killed %3, 0, 0, 1, 32, killed %0, 0",
        ]
        .map(String::from)[..]
    );
    let s = &r.stages.last().unwrap().stats;
    assert_eq!(s.get("copies_inserted"), 1);
    assert_eq!(s.get("undef_ties_rewritten"), 0);
}

/// q1.mir: the second pair's source is the immediate 5. A COPY cannot read an
/// immediate, and lowering only the first pair would lose %4's def, so the input is
/// refused before the pass runs, pointing at the `5` (line 9, column 58).
#[test]
fn an_extract_subreg_pair_with_an_immediate_source_is_refused_with_line_col() {
    let opts = RunOptions {
        until: Some(Stage::TwoAddress),
        ..RunOptions::default()
    };
    match run(&text("q1.mir"), &opts) {
        Err(PipelineError::InvalidInput(errors)) => {
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert_eq!((errors[0].line, errors[0].col), (9, 58));
            assert!(
                errors[0].to_string().contains("EXTRACT_SUBREG pair 2"),
                "{}",
                errors[0]
            );
        }
        other => panic!("not refused: {:?}", other.map(|r| r.output)),
    }
}

/// q6.mir: pair 1 defines the physical register $r1. Both pairs become COPYs (the
/// first into $r1, read by the ADD), the kill of %1 goes to the second, and the final
/// narration counts the two COPYs the stats count.
#[test]
fn a_physical_register_def_of_a_pair_is_kept() {
    let r = until_two_address("q6.mir", &[]);
    assert!(!r.verify_failed(), "{:?}", r.stages.last().unwrap().verify);
    assert_eq!(
        body(&r.output)[3..6],
        [
            "$r1 = COPY %1.sub0",
            "%4:int32regs = COPY killed %1.sub1",
            "%5:int32regs = ADD32rr $r1, killed %4",
        ]
        .map(String::from)[..]
    );
    let st = r.stages.last().unwrap();
    assert_eq!(st.stats.get("extract_subreg_copies"), 2);
    let done = st.steps.iter().find(|s| s.kind == "done").unwrap();
    assert!(
        done.narration.contains("2 EXTRACT_SUBREG pairs split"),
        "{}",
        done.narration
    );
    let copy_steps = st
        .steps
        .iter()
        .filter(|s| s.kind == "extract_subreg_copy")
        .count();
    assert_eq!(copy_steps, 2);
}

/// asm_subreg_tie.mir: the tied source is `%2.sub1`; SrcEqClassMap maps whole
/// registers, so nothing is recorded, and the narration says so.
#[test]
fn narration_says_no_eq_class_record_for_a_sub_register_source() {
    let (_, _, log) = traced("asm_subreg_tie.mir");
    let step = log.steps.iter().find(|s| s.kind == "tied_copy").unwrap();
    assert!(
        step.narration
            .contains("SrcEqClassMap records nothing, as %2 is read through a sub-register"),
        "{}",
        step.narration
    );
    let m = parse_module(&text("asm_subreg_tie.mir")).unwrap();
    let mut f = m.functions.into_iter().next().unwrap();
    let (_, classes) = two_address::run_with_classes(
        &mut f,
        &TwoAddressOptions::default(),
        &mut StepLog::default(),
    );
    assert!(classes.is_empty(), "{classes:?}");
}

/// asm_phys.mir: the tied source is the physical $r1: no SrcEqClassMap record.
#[test]
fn narration_says_no_eq_class_record_for_a_physical_source() {
    let (f, _, log) = traced("asm_phys.mir");
    let step = log.steps.iter().find(|s| s.kind == "tied_copy").unwrap();
    assert!(
        step.narration
            .contains("SrcEqClassMap records nothing, as $r1 is a physical register"),
        "{}",
        step.narration
    );
    assert!(print_function(&f).contains("%3:int32regs = COPY $r1\n"));
}

/// es_undef.mir in the pipeline: no LiveVariables update for the undef sources.
#[test]
fn undef_sources_count_only_the_def_transfers() {
    let r = until_two_address("es_undef.mir", &[]);
    let st = r.stages.last().unwrap();
    assert_eq!(st.stats.get("lv_updates"), 2);
    for s in &st.steps {
        if let Payload::ExtractSubregPair { lv_updates, .. } = *s.payload {
            assert_eq!(lv_updates, 1, "{}", s.narration);
        }
    }
}

/// revchain.mir: `%6 = ADD32rr killed %5(tied-def 0), killed %4` where %4 comes back
/// from %6 around the loop through four COPYs (%6 → %7 → %8 → %1 → %4).
/// isProfitableToCommute finds that chain only when it may follow four edges: with
/// `dataflow-edge-limit=3` it falls back to "commute when RegC's def is later", and %4
/// (dist 1) is defined before %5 (dist 2), so no commute and the COPY reads %5; with
/// `=4` it commutes and the COPY reads %4, closing the copy chain.
#[test]
fn revchain_commutes_only_when_the_edge_limit_reaches_the_chain() {
    let run_with = |k: &str| {
        let opts = {
            let mut o = RunOptions {
                only: vec![Stage::TwoAddress],
                ..RunOptions::default()
            };
            o.knobs.set_from_str(k).unwrap();
            o
        };
        let r = run(&text("revchain.mir"), &opts).unwrap();
        (body(&r.output), r.stages[0].stats.get("commuted"))
    };
    let (three, c3) = run_with("dataflow-edge-limit=3");
    let (four, c4) = run_with("dataflow-edge-limit=4");
    assert_eq!((c3, c4), (0, 1));
    let at = three
        .iter()
        .position(|l| l.starts_with("%5:int32regs = LD_i32"))
        .unwrap();
    assert_eq!(
        three[at + 1..at + 3],
        [
            "%6:int32regs = COPY killed %5",
            "%6:int32regs = ADD32rr %6(tied-def 0), killed %4",
        ]
        .map(String::from)[..]
    );
    assert_eq!(
        four[at + 1..at + 3],
        [
            "%6:int32regs = COPY killed %4",
            "%6:int32regs = ADD32rr %6(tied-def 0), killed %5",
        ]
        .map(String::from)[..]
    );
}

/// The x86 corpus function ties its sources through x86's descriptors: refused with
/// line:column and the construct named (llc-22 makes 36 COPYs there; ignoring the ties
/// made 27).
#[test]
fn x86_descriptor_ties_are_refused() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/xtra_x86_tied_subreg/3-pre-twoaddr.mir");
    let opts = RunOptions {
        until: Some(Stage::TwoAddress),
        ..RunOptions::default()
    };
    match run(&std::fs::read_to_string(p).unwrap(), &opts) {
        Err(PipelineError::InvalidInput(errors)) => {
            assert_eq!(errors.len(), 2, "{errors:?}");
            assert_eq!((errors[0].line, errors[0].col), (150, 5));
            assert!(errors[0]
                .to_string()
                .contains("x86's instruction descriptors"));
        }
        other => panic!("not refused: {:?}", other.map(|r| r.output)),
    }
}

/// A tied instruction whose def register another operand also reads (out-of-SSA
/// input LLVM never gives the pass): refused, since the tie's COPY would overwrite the
/// value that operand reads.
#[test]
fn a_def_register_read_by_another_operand_is_refused() {
    let src = "---\nname: f\ntracksRegLiveness: true\nnoPhis: true\nbody: |\n  bb.0.entry:\n    %1:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &p1, 0\n    %2:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &p2, 0\n    %2:int32regs = SUB32rr %1(tied-def 0), killed %2\n    ST_i32 killed %2, 0, 0, 1, 32, killed %1, 0\n    Return\n...\n";
    match run(src, &RunOptions::default()) {
        Err(PipelineError::InvalidInput(errors)) => {
            assert_eq!((errors[0].line, errors[0].col), (9, 44), "{errors:?}");
            assert!(errors[0].to_string().contains("operand 2 reads it too"));
        }
        other => panic!("not refused: {:?}", other.map(|r| r.output)),
    }
}

/// The reschedule example sinks its add below the kill and visits it again there: its
/// one tied pair is counted once.
#[test]
fn a_rescheduled_instruction_counts_its_tie_once() {
    let m = compiler_core::examples::find("reschedule").unwrap();
    let text = m.forms[0].1;
    let mut f = parse_module(text).unwrap().functions.remove(0);
    let s = two_address::run(
        &mut f,
        &TwoAddressOptions::default(),
        &mut StepLog::default(),
    );
    assert_eq!(s.get("rescheduled"), 1);
    assert_eq!(s.get("tied_pairs"), 1);
}

/// tex_nohint.mir is tex-v4f32 without the emitter's hint bits. Two-address marks the
/// lane COPYs of pairs 2–4 tied (`tied2`) only when the bits are there, and the NVPTX
/// coalescer reads the mark: on tex-v4f32 its trace shows the three marked copies where
/// it meets them (the block-level pass, which takes them in block order), on tex_nohint
/// none. Nothing competes for a lane, so both outputs are the same, every lane joined
/// (by reasoning: each scalar dies where the next lane's copy begins).
#[test]
fn tie_marks_reach_the_nvptx_coalescer_only_with_the_hint_bits() {
    let coalesced = |text: &str| {
        let opts = RunOptions {
            until: Some(Stage::NvptxCoalescer),
            trace: true,
            ..RunOptions::default()
        };
        run(text, &opts).unwrap()
    };
    let gallery = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("gallery/tex-v4f32.mir"),
    )
    .unwrap();
    let with = coalesced(&gallery);
    let without = coalesced(&text("tex_nohint.mir"));
    let marks = |r: &compiler_core::pipeline::RunResult, stage: Stage| -> Vec<String> {
        r.stages
            .iter()
            .find(|s| s.stage == stage)
            .unwrap()
            .steps
            .iter()
            .filter(|s| s.kind == "tie_mark")
            .map(|s| {
                s.narration
                    .text()
                    .split(" carries")
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    assert_eq!(
        marks(&with, Stage::NvptxCoalescer),
        [
            "%6 = COPY %4.sub1",
            "%7 = COPY %4.sub2",
            "%8 = COPY %4.sub3"
        ]
    );
    assert!(marks(&without, Stage::NvptxCoalescer).is_empty());
    let tied2 = |r: &compiler_core::pipeline::RunResult| {
        r.stages
            .iter()
            .find(|s| s.stage == Stage::TwoAddress)
            .unwrap()
            .output
            .as_deref()
            .unwrap()
            .matches("tied2 %")
            .count()
    };
    assert_eq!((tied2(&with), tied2(&without)), (3, 0));
    assert_eq!(body(&with.output), body(&without.output));
    assert!(body(&with.output).contains(&"%9:float32regs = FADDf32rr %4.sub0, %4.sub1".to_string()));
    for r in [&with, &without] {
        let joined = r.stages.last().unwrap().stats.get("joined");
        assert_eq!(joined, 4);
    }
}
