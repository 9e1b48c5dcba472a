//! Mutation checks: every mechanism the two-address trace names is switched off in
//! turn (`TwoAddressOptions::mechanisms`, `reschedule`) and shown to change the output
//! or a decision on a named input. The critical-edge split of PHI elimination has its
//! own in tests/phi_elim_split.rs (`without_splitting_the_diamond_differs`);
//! `dataflow-edge-limit` changing the output is tests/two_address_findings.rs and
//! tests/two_address_edge_limit.rs (revchain.mir, limit 3 against 4, against llc-22);
//! the equivalence classes (read by the NVPTX coalescer) are switched off in
//! tests/two_address_eq_classes.rs (`switching_eq_classes_off_changes_which_copy_is_merged`).

use compiler_core::entity::EntityRef;
use compiler_core::liveness::LiveVariables;
use compiler_core::mir::{parse_module, print_function, Function, Inst};
use compiler_core::passes::two_address::{self, Mechanisms, TwoAddressOptions};
use compiler_core::stats::Stats;
use compiler_core::trace::NoTrace;
use std::path::Path;

fn input(rel: &str) -> Function {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&p).unwrap();
    parse_module(&text).unwrap().functions.remove(0)
}

fn run(f: &Function, opts: &TwoAddressOptions) -> (Function, Stats, Option<LiveVariables>) {
    let mut g = f.clone();
    let r = two_address::run_with_live_variables(&mut g, opts, &mut NoTrace::default(), None);
    (g, r.stats, r.live_variables)
}

fn without(m: impl FnOnce(&mut Mechanisms)) -> TwoAddressOptions {
    let mut o = TwoAddressOptions::default();
    m(&mut o.mechanisms);
    o
}

fn body(f: &Function) -> String {
    let t = print_function(f);
    t[t.find("body:").unwrap()..].to_string()
}

/// Kills and defs per register, as instruction positions, sorted.
fn lv_table(f: &Function, lv: &LiveVariables) -> Vec<(usize, Vec<String>, Vec<String>)> {
    let pos: std::collections::HashMap<Inst, usize> = f
        .all_insts()
        .enumerate()
        .map(|(k, (_, i))| (i, k))
        .collect();
    let norm = |l: &[Inst]| {
        let mut v: Vec<String> = l
            .iter()
            .map(|i| match pos.get(i) {
                Some(p) => format!("#{p}"),
                None => format!("erased {}", i.index()),
            })
            .collect();
        v.sort();
        v
    };
    f.vreg_list()
        .map(|v| {
            let vi = lv.var_info(v);
            (v.index(), norm(&vi.kills), norm(&vi.defs))
        })
        .collect()
}

/// LV chain: without it the EXTRACT_SUBREG COPYs of tex-v4f32 never take over the
/// pseudo's defs and kill, so the maintained LiveVariables no longer equals a
/// recomputation, and `lv_updates` is 0.
#[test]
fn lv_chain() {
    let f = input("gallery/tex-v4f32.mir");
    let (on, s_on, lv_on) = run(&f, &TwoAddressOptions::default());
    let (off, s_off, lv_off) = run(&f, &without(|m| m.lv_chain = false));
    let fresh_on = LiveVariables::compute(&on);
    assert_eq!(lv_table(&on, &lv_on.unwrap()), lv_table(&on, &fresh_on));
    assert_ne!(
        lv_table(&off, &lv_off.unwrap()),
        lv_table(&off, &LiveVariables::compute(&off))
    );
    assert!(s_on.get("lv_updates") > 0);
    assert_eq!(s_off.get("lv_updates"), 0);
}

/// earlyTied mark: tex-v4f32's later three pairs carry both hint bits; without the
/// mechanism their COPYs lose the tie mark (3 hints → 0, the printed defs differ).
#[test]
fn early_tied_mark() {
    let f = input("gallery/tex-v4f32.mir");
    let (on, s_on, _) = run(&f, &TwoAddressOptions::default());
    let (off, s_off, _) = run(&f, &without(|m| m.early_tied = false));
    assert_eq!(s_on.get("early_tied_hints"), 3);
    assert_eq!(s_off.get("early_tied_hints"), 0);
    assert_ne!(body(&on), body(&off));
}

/// Commute preference: in commute_pref.mir the def goes to `$r1` (DstRegMap) and the
/// other source `%2` came from `$r1` (SrcRegMap), so isProfitableToCommute commutes
/// and the tie COPY reads `%2`. Without the maps the later-def rule decides: `%1` was
/// defined last, so no commute and the COPY reads `%1`. (Expected result reasoned from
/// LLVM's isProfitableToCommute; llc-22 cannot run this input: no NVPTX opcode is both
/// commutable and tied, and the physical sources enter SrcRegMap only through an
/// INSERT_SUBREG, since the spec's loop skips COPY.)
#[test]
fn commute_preference() {
    let f = input("tests/fixtures/two_address/commute_pref.mir");
    let (on, s_on, _) = run(&f, &TwoAddressOptions::default());
    let (off, s_off, _) = run(&f, &without(|m| m.commute_preference = false));
    assert_eq!((s_on.get("commuted"), s_off.get("commuted")), (1, 0));
    let on_b = body(&on);
    let off_b = body(&off);
    assert!(on_b.contains("%3:int32regs = COPY killed %2"), "{on_b}");
    assert!(
        on_b.contains("%3:int32regs = ADD32rr %3(tied-def 0), killed %1"),
        "{on_b}"
    );
    assert!(off_b.contains("%3:int32regs = COPY killed %1"), "{off_b}");
    assert!(
        off_b.contains("%3:int32regs = ADD32rr %3(tied-def 0), killed %2"),
        "{off_b}"
    );
}

/// Reschedule: in the gallery's reschedule example the XOR reading %5 moves above the
/// tie's COPY (rescheduleKillAboveMI), so the COPY kills %5; with
/// `twoaddr-reschedule` off it does not.
#[test]
fn reschedule() {
    let f = input("gallery/reschedule.mir");
    let (on, s_on, _) = run(&f, &TwoAddressOptions::default());
    let off_opts = TwoAddressOptions {
        reschedule: false,
        ..Default::default()
    };
    let (off, s_off, _) = run(&f, &off_opts);
    assert_eq!(s_on.get("rescheduled"), 1);
    assert_eq!(s_off.get("rescheduled"), 0);
    // Without it the COPY stays before the XOR that still reads %5, so it cannot kill
    // %5; rescheduled, the XOR moves above the COPY, which then kills %5.
    assert!(body(&on).contains("%6:int32regs = COPY killed %5"));
    assert!(body(&off).contains("%6:int32regs = COPY %5"));
}

/// REG_SEQUENCE undef lanes: reg-sequence.mir's `undef %5` lane gives no COPY; with
/// the mechanism off it is copied like the others (one more COPY, reading undef).
#[test]
fn reg_sequence_undef_lanes() {
    let f = input("gallery/reg-sequence.mir");
    let count = |g: &Function| {
        g.all_insts()
            .filter(|&(_, i)| g.insts[i].is(compiler_core::mir::Op::COPY))
            .count()
    };
    let (on, _, _) = run(&f, &TwoAddressOptions::default());
    let (off, _, _) = run(&f, &without(|m| m.reg_sequence_undef_lanes = false));
    assert_eq!(count(&off), count(&on) + 1);
    assert!(!body(&on).contains("COPY undef %5"));
    assert!(body(&off).contains("COPY undef %5"));
}

/// INSERT_SUBREG rewrite: without it insert-subreg.mir keeps its INSERT_SUBREG (and
/// the counter stays 0).
#[test]
fn insert_subreg_rewrite() {
    let f = input("gallery/insert-subreg.mir");
    let (on, s_on, _) = run(&f, &TwoAddressOptions::default());
    let (off, s_off, _) = run(&f, &without(|m| m.insert_subreg_rewrite = false));
    assert!(s_on.get("insert_subreg_rewritten") > 0);
    assert_eq!(s_off.get("insert_subreg_rewritten"), 0);
    assert!(!body(&on).contains("INSERT_SUBREG"));
    assert!(body(&off).contains("INSERT_SUBREG"));
}
