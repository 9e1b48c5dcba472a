//! A register-coalescer decision keeps its two ranges shared with the previous
//! decision about the same COPY when they are the same bytes, and a conflict as its def
//! when the decision's ranges give its segment and span: whatever a step shows must
//! still be what the pass saw. Each decision is compared with the same run recorded
//! with every range encoded afresh from the pass's ranges and every conflict in full
//! (`fresh_ranges`), on the bench's six families and every gallery example that
//! reaches the stage.

use compiler_core::examples::EXAMPLES;
use compiler_core::knobs::Knobs;
use compiler_core::mir::Function;
use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
use compiler_core::pipeline::{parse_input, plan, run_stage, Ir, RunOptions};
use compiler_core::stages::Stage;
use compiler_core::testgen::synthetic::FAMILIES;
use compiler_core::trace::{Payload, Step, StepLog};

/// The functions of `text` as the register coalescer receives them.
fn coalescer_input(text: &str) -> Vec<Function> {
    let Ok((_, mut ir, _)) = parse_input(text, None) else {
        return Vec::new();
    };
    let entry = compiler_core::pipeline::entry_stage(&ir);
    let Ok(stages) = plan(entry, &RunOptions::default()) else {
        return Vec::new();
    };
    if !stages.contains(&Stage::RegisterCoalescer) {
        return Vec::new();
    }
    for &stage in stages
        .iter()
        .take_while(|&&s| s != Stage::RegisterCoalescer)
    {
        if run_stage(stage, &mut ir, &Knobs::default(), false).is_err() {
            return Vec::new();
        }
    }
    match ir {
        Ir::Mir(m) => m.functions,
        _ => Vec::new(),
    }
}

fn record(f: &Function, fresh: bool) -> Vec<Step> {
    let opts = CoalescerOptions {
        fresh_ranges: fresh,
        ..Default::default()
    };
    let mut log = StepLog::default();
    register_coalescer::run(&mut f.clone(), &opts, &mut log);
    log.steps.iter().collect()
}

/// Compares every decision of `f` in the two recordings; returns (decisions,
/// decisions whose ranges were shared with an earlier one, conflicts).
fn compare(what: &str, f: &Function) -> (usize, usize, usize) {
    let (shared, fresh) = (record(f, false), record(f, true));
    assert_eq!(shared.len(), fresh.len(), "{what}: step count");
    let (mut decisions, mut reused, mut conflicts) = (0, 0, 0);
    // The previous decision about each dst register.
    let mut earlier = std::collections::BTreeMap::new();
    for (k, (a, b)) in shared.iter().zip(&fresh).enumerate() {
        let (Payload::CoalesceDecision(x), Payload::CoalesceDecision(y)) =
            (&*a.payload, &*b.payload)
        else {
            assert_eq!(&*a.payload, &*b.payload, "{what} step {k}");
            continue;
        };
        decisions += 1;
        let json = |s: &Step| serde_json::to_string(s).unwrap();
        assert_eq!(json(a), json(b), "{what} step {k}");
        assert_eq!(
            (x.dst_range(), x.src_range(), x.merged()),
            (y.dst_range(), y.src_range(), y.merged()),
            "{what} step {k}"
        );
        assert_eq!(
            (x.conflicts(), x.conflict_spans()),
            (y.conflicts(), y.conflict_spans()),
            "{what} step {k}"
        );
        conflicts += x.conflicts().len();
        if let Some((e, f)) = earlier.insert(x.dst, (x, y)) {
            reused += usize::from(x.shares_base_with(e));
            assert!(!y.shares_base_with(f), "{what} step {k}: fresh shares");
        }
    }
    (decisions, reused, conflicts)
}

#[test]
fn shared_ranges_and_conflicts_read_back_as_the_pass_saw_them() {
    let mut total = (0, 0, 0);
    for &(family, make) in FAMILIES {
        for f in coalescer_input(&make(1000)) {
            let (d, r, c) = compare(family, &f);
            assert!(d > 0, "{family}: no decisions");
            total = (total.0 + d, total.1 + r, total.2 + c);
        }
    }
    for e in EXAMPLES {
        let Some((_, text)) = e.text(None) else {
            continue;
        };
        for f in coalescer_input(text) {
            let (d, r, c) = compare(e.name, &f);
            total = (total.0 + d, total.1 + r, total.2 + c);
        }
    }
    // Retried COPYs share their ranges, and conflicts were compared.
    let (d, r, c) = total;
    assert!(
        r * 10 > d && c > 100,
        "{d} decisions, {r} sharing, {c} conflicts"
    );
}
