//! The gallery's PHI-elimination and two-address examples say in words what happens
//! (their leading comments, shown as the summary); each number or outcome a summary
//! states is checked here against the example's own run: the summary must still say
//! it, and the pass's counters (or the output) must agree.

use compiler_core::examples::find;
use compiler_core::knobs::Knobs;
use compiler_core::mir::{parse_module, Op};
use compiler_core::pipeline::{run, RunOptions, RunResult};
use compiler_core::stages::{IrKind, Stage};

fn run_example(name: &str, until: Stage, knobs: &[&str]) -> RunResult {
    let ex = find(name).unwrap_or_else(|| panic!("no example {name}"));
    let mut k = Knobs::default();
    for s in knobs {
        k.set_from_str(s).unwrap();
    }
    let opts = RunOptions {
        until: Some(until),
        emit: Some(IrKind::Mir),
        knobs: k,
        verify: true,
        ..RunOptions::default()
    };
    run(ex.forms[0].1, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn stat(r: &RunResult, stage: Stage, name: &str) -> u64 {
    r.stages
        .iter()
        .filter(|s| s.stage == stage)
        .map(|s| s.stats.get(name))
        .sum()
}

fn copies(r: &RunResult) -> usize {
    let m = parse_module(&r.output).unwrap();
    m.functions
        .iter()
        .map(|f| {
            f.all_insts()
                .filter(|&(_, i)| f.insts[i].is(Op::COPY))
                .count()
        })
        .sum()
}

fn says(name: &str, phrase: &str) {
    let s = find(name).unwrap().summary();
    assert!(
        s.contains(phrase),
        "{name}'s summary no longer says `{phrase}`: {s}"
    );
}

const TA: Stage = Stage::TwoAddress;

#[test]
fn extract_subreg_examples() {
    for (name, phrase, pairs, marks) in [
        ("tex-v4f32", "into four COPYs", 4, Some(3)),
        (
            "mma-tf32-4frag",
            "one EXTRACT_SUBREG with four pairs",
            4,
            None,
        ),
        (
            "wgmma-16frag",
            "single EXTRACT_SUBREG with sixteen pairs",
            16,
            None,
        ),
        (
            "wmma-f16-8frag",
            "one EXTRACT_SUBREG with eight pairs",
            8,
            None,
        ),
        (
            "async-copy-2result",
            "its COPY gets the tie mark",
            2,
            Some(1),
        ),
        ("tma-2result", "no tie mark is made on its COPY", 2, Some(0)),
    ] {
        says(name, phrase);
        let r = run_example(name, TA, &[]);
        assert_eq!(stat(&r, TA, "extract_subreg_copies"), pairs, "{name}");
        if let Some(m) = marks {
            assert_eq!(stat(&r, TA, "early_tied_hints"), m, "{name}");
        }
    }
}

#[test]
fn tie_examples() {
    says("commute", "the sources swap");
    let r = run_example("commute", TA, &[]);
    assert_eq!(stat(&r, TA, "commuted"), 1);
    // The spec's remark condition: a COPY forced after commuting was tried.
    assert_eq!(
        (stat(&r, TA, "copies_inserted"), stat(&r, TA, "remarks")),
        (1, 1)
    );
    says("sub-copy", "the only way to meet the tie is a COPY");
    let r = run_example("sub-copy", TA, &[]);
    assert_eq!(
        (stat(&r, TA, "commuted"), stat(&r, TA, "copies_inserted")),
        (0, 1)
    );
    // SUB is not commutable, so commuting was never tried: no remark.
    assert_eq!(stat(&r, TA, "remarks"), 0);
    says(
        "inline-asm-tied",
        "the value must be copied into the output register",
    );
    let r = run_example("inline-asm-tied", TA, &[]);
    assert_eq!(stat(&r, TA, "copies_inserted"), 1);
    says("reschedule", "the add sinks below that last read");
    let on = run_example("reschedule", TA, &[]);
    let off = run_example("reschedule", TA, &["twoaddr-reschedule=false"]);
    assert_eq!(
        (stat(&on, TA, "rescheduled"), stat(&off, TA, "rescheduled")),
        (1, 0)
    );
    says("optnone", "no commuting, so the tie's COPY");
    let r = run_example("optnone", TA, &[]);
    assert_eq!(
        (stat(&r, TA, "commuted"), stat(&r, TA, "copies_inserted")),
        (0, 1)
    );
    // Opt level None: nothing is tried, so no remark either.
    assert_eq!(stat(&r, TA, "remarks"), 0);
    assert!(r.output.contains("%3:int32regs = COPY %1\n"));
}

#[test]
fn pseudo_examples() {
    says("insert-subreg", "two-address first copies the whole tuple");
    let r = run_example("insert-subreg", TA, &[]);
    assert_eq!(stat(&r, TA, "insert_subreg_rewritten"), 1);
    assert!(!r.output.contains("INSERT_SUBREG"));
    says("reg-sequence", "the undef lane needs no COPY");
    let r = run_example("reg-sequence", TA, &[]);
    assert_eq!(stat(&r, TA, "reg_sequence_eliminated"), 1);
    // Four lanes, one undef: three sub-register COPYs.
    assert_eq!(r.output.matches(":float32regsx4 = COPY").count(), 3);
}

#[test]
fn phi_examples() {
    let pe = Stage::PhiElimination;
    says("phi-loop", "a COPY on every edge into the loop header");
    let r = run_example("phi-loop", pe, &[]);
    let phis = stat(&r, pe, "phis_lowered");
    assert!(phis > 0);
    // One COPY per PHI per incoming edge (two edges into the header), plus the PHI's own.
    assert_eq!(stat(&r, pe, "copies_inserted"), 2 * phis);
    says("phi-swap", "three COPYs survive both coalescers");
    let r = run_example("phi-swap", Stage::NvptxCoalescer, &[]);
    assert_eq!(copies(&r), 3);
}
