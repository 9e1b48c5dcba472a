//! Register-pair decomposition in the NVPTX coalescer (`nvptx_coalescer/pairs.rs`,
//! spec: `sub_3497B40`): a 128-bit pair move (an unpack of a fresh pack) becomes its
//! halves' moves, the high half follows the low half, and turning decomposition off
//! changes the outcome. Fixtures in `tests/fixtures/nvptx_pairs/`: `pair-split` (the
//! halves coalesce), `pair-no-split` (the low half cannot, so neither does the high
//! half) and `pair-i128-asm` (llc-22's own output: no unpack reads a pack, nothing is
//! split). Decomposition is on by default (`pair_decomposition`): a pair whose low half
//! cannot merge is put back together when the pass ends, so the pass stays a fixed point.

use compiler_core::interp::{self, Config};
use compiler_core::mir::verify::{verify, VerifyLevel};
use compiler_core::mir::{parse_module, print_function, Function, Module, Op};
use compiler_core::passes::nvptx_coalescer::{self, pairs, NvptxCoalescerOptions};
use compiler_core::passes::phi_elim;
use compiler_core::passes::register_coalescer::{self, CoalescerOptions};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::trace::{NoTrace, Payload, Player, StepLog};
use std::path::Path;

fn module(name: &str) -> Module {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let gallery = root.join("gallery").join(format!("{name}.mir"));
    let fixture = root
        .join("tests/fixtures/nvptx_pairs")
        .join(format!("{name}.mir"));
    let p = if gallery.exists() { gallery } else { fixture };
    parse_module(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The NVPTX coalescer's input: PHI elimination, two-address, the generic coalescer.
fn before_nvptx(name: &str) -> (Function, Module) {
    let m = module(name);
    let mut f = m.functions[0].clone();
    phi_elim::run(&mut f, &Default::default(), &mut NoTrace::default());
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
    (f, m)
}

fn nvptx(f: &Function, off: bool) -> (Function, StepLog) {
    let mut g = f.clone();
    let mut log = StepLog::default();
    let opts = NvptxCoalescerOptions {
        pair_decomposition: !off,
        ..Default::default()
    };
    nvptx_coalescer::run(&mut g, &opts, &mut log);
    let replay = Player::new(f, &log.steps)
        .unwrap()
        .seek(log.steps.len())
        .unwrap();
    assert_eq!(
        print_function(&replay),
        print_function(&g),
        "the trace replays"
    );
    (g, log)
}

fn body(f: &Function) -> Vec<String> {
    let text = print_function(f);
    let start = text.find("body:").unwrap();
    text[start..]
        .lines()
        .skip(1)
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty() && l != "...")
        .collect()
}

fn count(f: &Function, op: Op) -> usize {
    f.all_insts().filter(|&(_, i)| f.insts[i].is(op)).count()
}

fn kinds(log: &StepLog) -> Vec<&'static str> {
    log.steps.iter().map(|s| s.kind.as_str()).collect()
}

fn agrees(before: &Function, after: &Function, m: &Module) {
    if interp::check(before).is_some() {
        return;
    }
    let ag = interp::compare(before, after, m.ir.as_deref(), 0..30, &Config::default()).unwrap();
    assert!(ag.all_agree(), "{ag}");
}

#[test]
fn the_halves_of_a_pair_move_coalesce() {
    let (f, m) = before_nvptx("pair-split");
    let (g, log) = nvptx(&f, false);
    // Derived by hand: %4 = COPY %1 (low) and %5 = COPY %2 (high) each join, the pack
    // of %3 has no reader left, so the loads feed the add directly.
    assert_eq!(
        body(&g),
        [
            "bb.0.entry:",
            "%0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &pair_split_param_0, 0 :: (dereferenceable invariant load (s64), addrspace 101)",
            "%4:b64 = LD_i64 0, 0, 101, 3, 64, -1, &pair_split_param_1, 0 :: (dereferenceable invariant load (s64), addrspace 101)",
            "%5:b64 = LD_i64 0, 0, 101, 3, 64, -1, &pair_split_param_2, 0 :: (dereferenceable invariant load (s64), addrspace 101)",
            "%6:b64 = ADD64rr killed %4, killed %5",
            "ST_i64 %6, 0, 0, 1, 64, %0, 0 :: (store (s64), addrspace 1)",
            "Return",
        ],
        "{}",
        print_function(&g)
    );
    let k = kinds(&log);
    let at = |kind: &str| {
        k.iter()
            .position(|&x| x == kind)
            .unwrap_or_else(|| panic!("no {kind}: {k:?}"))
    };
    // Decomposed, both halves' ranges shown, then the high half follows the merged low.
    assert!(
        at("pair_decomposed") < at("pair_halves") && at("pair_halves") < at("pair_high_follows")
    );
    let halves = log.steps.iter().find(|s| s.kind == "pair_halves").unwrap();
    match &*halves.payload {
        Payload::PairHalves {
            wide,
            low,
            high,
            rows,
        } => {
            assert_eq!((*wide, *low, *high), (3, (4, 1), (5, 2)));
            let regs: Vec<u32> = rows.iter().map(|r| r.reg).collect();
            assert_eq!(regs, [4, 1, 5, 2], "low dst, low src, high dst, high src");
            assert!(rows.iter().all(|r| !r.segments.is_empty()));
        }
        p => panic!("{p:?}"),
    }
    assert!(verify(&g, VerifyLevel::PostCoalesce).is_empty());
    agrees(&m.functions[0], &g, &m);
}

/// Mutation: with decomposition off the pair move is kept whole (pack and unpack), so
/// the outcome differs.
#[test]
fn without_decomposition_the_pair_move_stays() {
    let (f, _) = before_nvptx("pair-split");
    let (g, log) = nvptx(&f, true);
    assert_eq!(count(&g, Op::V2I64toI128), 1, "{}", print_function(&g));
    assert_eq!(count(&g, Op::I128toV2I64), 1);
    assert!(!kinds(&log).contains(&"pair_decomposed"));
    let (h, _) = nvptx(&f, false);
    assert_ne!(body(&g), body(&h));
}

#[test]
fn the_high_half_inherits_the_low_halfs_refusal() {
    let (f, m) = before_nvptx("pair-no-split");
    let (g, log) = nvptx(&f, false);
    // The asm changes the low half's source (%1, joined with the asm's %7 by the
    // generic coalescer) while the low half %4 is still live: %4 = COPY %7 cannot
    // merge, so the high half %5 = COPY %2 waits, although alone it could have merged.
    // When the pass ends the two half moves are the pair move again, exactly as
    // decomposition found it (the same text as with decomposition off), so a second
    // run splits it afresh and refuses it the same way.
    let k = kinds(&log);
    assert!(k.contains(&"pair_decomposed"), "{k:?}");
    assert!(k.contains(&"pair_high_waits"), "{k:?}");
    assert!(!k.contains(&"pair_high_follows"), "{k:?}");
    assert!(k.contains(&"pair_rejoined"), "{k:?}");
    assert_eq!(count(&g, Op::COPY), 0, "{}", print_function(&g));
    assert_eq!(count(&g, Op::V2I64toI128) + count(&g, Op::I128toV2I64), 2);
    let (h, _) = nvptx(&f, true);
    assert_eq!(print_function(&g), print_function(&h));
    assert!(verify(&g, VerifyLevel::PostCoalesce).is_empty());
    agrees(&m.functions[0], &g, &m);
}

/// The pass is a fixed point with decomposition on: a second run over its own output
/// (traced or not) changes no text and joins nothing, on every fixture. Before
/// the rejoin, the second run merged `pair-no-split`'s high half (no longer known as
/// one) and this failed.
#[test]
fn a_second_run_changes_nothing() {
    for name in [
        "pair-split",
        "pair-no-split",
        "pair-i128-asm",
        "pair-two-unpacks",
    ] {
        let (f, _) = before_nvptx(name);
        let (g, _) = nvptx(&f, false);
        let first = print_function(&g);
        let mut plain = g.clone();
        let s = nvptx_coalescer::run(
            &mut plain,
            &NvptxCoalescerOptions::default(),
            &mut NoTrace::default(),
        );
        assert_eq!(first, print_function(&plain), "{name} (untraced)");
        assert_eq!(s.get("joined"), 0, "{name}");
        let (traced, _) = nvptx(&g, false);
        assert_eq!(first, print_function(&traced), "{name} (traced)");
    }
}

/// A pack read by two unpacks is split by neither (each step says why), and the
/// output is what decomposition off gives and passes the verifier. Failed before the
/// only-reader rule: the pack's kill of `%0` moved onto the first pair's high copy.
#[test]
fn a_pack_with_two_unpacks_is_not_split() {
    let (f, m) = before_nvptx("pair-two-unpacks");
    let (g, log) = nvptx(&f, false);
    let kept: Vec<String> = log
        .steps
        .iter()
        .filter(|s| s.kind == "pair_kept")
        .map(|s| s.narration.text())
        .collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept.iter().all(|n| n.contains("read by 2 instructions")),
        "{kept:?}"
    );
    let (h, _) = nvptx(&f, true);
    assert_eq!(print_function(&g), print_function(&h));
    let errs = verify(&g, VerifyLevel::PostCoalesce);
    assert!(errs.is_empty(), "{errs:?}\n{}", print_function(&g));
    agrees(&m.functions[0], &g, &m);
}

/// Decomposition is on by default.
#[test]
fn decomposition_is_on_by_default() {
    assert!(NvptxCoalescerOptions::default().pair_decomposition);
}

#[test]
fn llc22s_i128_asm_pairs_are_not_split() {
    let (f, _) = before_nvptx("pair-i128-asm");
    let (g, log) = nvptx(&f, false);
    let (h, _) = nvptx(&f, true);
    assert_eq!(print_function(&g), print_function(&h));
    let kept: Vec<String> = log
        .steps
        .iter()
        .filter(|s| s.kind == "pair_kept")
        .map(|s| s.narration.text())
        .collect();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept.iter().all(|n| n.contains("defined by INLINEASM")),
        "{kept:?}"
    );
}

/// The candidate record's sub-operand entries: the two half copies name each other.
#[test]
fn half_copies_carry_their_sub_operand_entries() {
    let (mut f, _) = before_nvptx("pair-split");
    let table = pairs::decompose(&mut f, &mut NoTrace::default());
    let entries: Vec<_> = table.iter().collect();
    assert_eq!(entries.len(), 2);
    let (&(lo, l), &(hi, h)) = (&entries[0], &entries[1]);
    assert_eq!((l.half, h.half), (0, 1));
    assert_eq!((l.partner, h.partner), (hi.as_u32(), lo.as_u32()));
    assert_eq!((l.wide, h.wide), (3, 3));
}
