//! Both coalescers' `live_ranges` step carries no rows (issue 31: a step records what
//! changed, never a whole structure); a reader rebuilds the rows from the stage's input
//! with `trace::first_range_rows`. These must be the ranges the pass itself started
//! from: every decision made before the function's first edit reports both registers'
//! ranges as the pass held them, and those must equal the rebuilt rows.

use compiler_core::mir::{parse_module, Function};
use compiler_core::passes::nvptx_coalescer::{self, NvptxCoalescerOptions};
use compiler_core::passes::phi_elim;
use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::testgen::synthetic::{branches, phi_swaps, tuples};
use compiler_core::trace::{first_range_rows, NoTrace, Payload, RangeView, StepLog, Steps};
use std::path::Path;

fn gallery(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("gallery")
        .join(format!("{name}.mir"));
    std::fs::read_to_string(p).unwrap()
}

/// Checks `steps` of a coalescer run on `input`; returns how many ranges it compared.
fn check(what: &str, input: &Function, steps: Steps<'_>) -> usize {
    let rows = first_range_rows(input);
    let row = |reg: u32| -> &[compiler_core::trace::SegmentView] {
        rows.iter()
            .find(|r: &&RangeView| r.reg == reg)
            .map_or(&[], |r| r.segments.as_slice())
    };
    let mut compared = 0;
    let mut seen_rows = false;
    for s in steps {
        match &*s.payload {
            Payload::LiveRanges {
                rows: carried,
                registers,
            } => {
                assert!(carried.is_empty(), "{what}: the step carries no rows");
                assert_eq!(*registers as usize, rows.len(), "{what}: row count");
                seen_rows = true;
            }
            Payload::CoalesceDecision(d) if d.dst_lane.is_none() => {
                let (dst, src) = (&d.dst, &d.src);
                let (dst_segments, src_segments) = (d.dst_segments(), d.src_segments());
                // A decision that reports no ranges (a class or sub-register refusal)
                // has nothing to compare.
                for (reg, segs) in [(dst, dst_segments), (src, src_segments)] {
                    if !segs.is_empty() {
                        assert_eq!(segs.as_slice(), row(*reg), "{what}: %{reg}");
                        compared += 1;
                    }
                }
            }
            _ => {}
        }
        if !s.edits.is_empty() {
            break;
        }
    }
    assert!(seen_rows, "{what}: a live_ranges step");
    compared
}

fn run_both(what: &str, text: &str) -> usize {
    let mut f = parse_module(text).unwrap().functions.remove(0);
    phi_elim::run(&mut f, &Default::default(), &mut NoTrace::default());
    two_address::run(
        &mut f,
        &TwoAddressOptions::default(),
        &mut NoTrace::default(),
    );
    let input = f.clone();
    let mut log = StepLog::default();
    register_coalescer::run(&mut f, &CoalescerOptions::default(), &mut log);
    let mut n = check(
        &format!("{what} register-coalescer"),
        &input,
        log.steps.all(),
    );
    let input = f.clone();
    let mut log = StepLog::default();
    nvptx_coalescer::run(&mut f, &NvptxCoalescerOptions::default(), &mut log);
    n += check(&format!("{what} nvptx-coalescer"), &input, log.steps.all());
    n
}

#[test]
fn rebuilt_first_ranges_are_the_ones_the_pass_started_from() {
    let mut compared = 0;
    for name in [
        "phi-loop",
        "phi-swap",
        "cross-class",
        "wide-pair",
        "tex-lanes",
        "limits",
    ] {
        compared += run_both(name, &gallery(name));
    }
    compared += run_both("phi-swaps 40", &phi_swaps(40));
    compared += run_both("branches 40", &branches(40));
    compared += run_both("tuples 40", &tuples(40));
    // The check must have had something to compare.
    assert!(compared >= 20, "only {compared} ranges compared");
}
