//! The NVPTX coalescer on the gallery: lane copies join their tuple, cross-class moves
//! stay, the limits cut off as the trace says, and every recorded tree is a valid
//! red-black tree.

use compiler_core::mir::{parse_module, print_function, Function, Op};
use compiler_core::passes::nvptx_coalescer::interval_tree::validate_snapshot;
use compiler_core::passes::nvptx_coalescer::{self, NvptxCoalescerOptions};
use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::stats::Stats;
use compiler_core::trace::{NoTrace, Payload, Player, StepLog};
use std::path::Path;

fn load(name: &str) -> Function {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("gallery")
        .join(format!("{name}.mir"));
    parse_module(&std::fs::read_to_string(&p).unwrap())
        .unwrap()
        .functions
        .remove(0)
}

/// Two-address and the generic coalescer, then the NVPTX coalescer with tracing.
fn through(name: &str, opts: NvptxCoalescerOptions) -> (Function, Function, Stats, StepLog) {
    let mut f = load(name);
    two_address::run(
        &mut f,
        &TwoAddressOptions::default(),
        &mut NoTrace::default(),
    );
    register_coalescer::run(
        &mut f,
        &CoalescerOptions::default(),
        &mut NoTrace::default(),
    );
    let input = f.clone();
    let mut log = StepLog::default();
    let s = nvptx_coalescer::run(&mut f, &opts, &mut log);
    (input, f, s, log)
}

fn copies(f: &Function) -> usize {
    f.all_insts()
        .filter(|&(_, i)| f.insts[i].is(Op::COPY))
        .count()
}

fn check_trees(log: &StepLog) -> usize {
    let mut n = 0;
    for s in &log.steps {
        if let Payload::TreeChange { tree: Some(t), .. } = &*s.payload {
            validate_snapshot(t).unwrap_or_else(|e| panic!("step {}: {e}", s.kind));
            n += 1;
        }
    }
    n
}

#[test]
fn tex_lanes_end_with_no_copy() {
    let (input, f, s, log) = through("tex-v4f32", NvptxCoalescerOptions::default());
    assert_eq!(copies(&input), 4, "{}", print_function(&input));
    assert_eq!(copies(&f), 0, "{}", print_function(&f));
    assert_eq!(s.get("joined"), 4);
    assert!(
        print_function(&f).contains("FADDf32rr %4.sub0, %4.sub1"),
        "{}",
        print_function(&f)
    );
    assert!(check_trees(&log) >= 1);
    let replay = Player::new(&input, &log.steps)
        .unwrap()
        .seek(log.steps.len())
        .unwrap();
    assert_eq!(print_function(&replay), print_function(&f));
}

#[test]
fn copy_limit_leaves_later_candidates_and_says_why() {
    let (_, f, s, log) = through(
        "tex-v4f32",
        NvptxCoalescerOptions {
            copy_limit: 1,
            ..Default::default()
        },
    );
    assert_eq!(s.get("left_by_copy_limit"), 3);
    assert_eq!(copies(&f), 3);
    assert!(log
        .steps
        .iter()
        .any(|s| s.kind == "copy_limit" && s.narration.contains("copy-limit")));
    let (_, f, s, log) = through(
        "tex-v4f32",
        NvptxCoalescerOptions {
            coalesce_limit: 2,
            ..Default::default()
        },
    );
    assert_eq!(s.get("joined"), 2);
    assert_eq!(copies(&f), 2);
    assert!(log.steps.iter().any(|s| s.kind == "coalesce_limit"));
}
