//! Slot indexes and live intervals: numbering agrees with llc-22, the printed form is
//! LLVM's, queries agree with brute force on random functions.

mod common;

use common::parse_one;
use compiler_core::entity::EntityRef;
use compiler_core::liveness::{LiveIntervals, LiveRange, Segment, SlotIndex, SlotIndexes, VNInfo};
use compiler_core::mir::{parse_module, Function, Op, Opcode, VReg};

/// `(index, text)` of the numbered lines llc-22 printed for each function after the
/// register coalescer (block headers and instructions).
fn llc_numbering(log: &str) -> Vec<(String, Vec<(u32, String)>)> {
    let mut out: Vec<(String, Vec<(u32, String)>)> = Vec::new();
    let mut on = false;
    for l in log.lines() {
        if l.starts_with("# *** IR Dump") {
            on = l.contains("(register-coalescer)");
            continue;
        }
        if !on {
            continue;
        }
        if let Some(rest) = l.strip_prefix("# Machine code for function ") {
            let name = rest.split(':').next().unwrap().to_string();
            out.push((name, Vec::new()));
            continue;
        }
        if let Some((idx, text)) = l.split_once("B\t") {
            if let (Ok(n), Some(cur)) = (idx.parse::<u32>(), out.last_mut()) {
                cur.1.push((n, text.trim().to_string()));
            }
        }
    }
    out
}

#[test]
fn slot_indexes_match_llc22() {
    let mut checked = 0;
    for case in common::cases() {
        let Ok(log) = std::fs::read_to_string(case.join("print-before-after.log")) else {
            continue;
        };
        let m =
            parse_module(&std::fs::read_to_string(case.join("4-twoaddr.mir")).unwrap()).unwrap();
        for (name, lines) in llc_numbering(&log) {
            let f = m.functions.iter().find(|f| f.name == name).unwrap();
            let si = SlotIndexes::compute(f);
            // The coalescer erased some instructions; the survivors keep their index,
            // so every numbered line must find its block or instruction at that index.
            for (n, text) in &lines {
                let at = SlotIndex::new(*n, compiler_core::liveness::Slot::Block);
                if let Some(num) = text.strip_prefix("bb.") {
                    let num: u32 = num.split(['.', ' ', ':']).next().unwrap().parse().unwrap();
                    let b = f.block_by_number(num).unwrap();
                    assert_eq!(si.block_start(b), Some(at), "{name}: `{n}B {text}`");
                } else {
                    let i = si
                        .inst_at(at)
                        .unwrap_or_else(|| panic!("{name}: nothing at {n}B `{text}`"));
                    let op = match f.insts[i].opcode {
                        Opcode::Known(op) => op.name(),
                        Opcode::Other(s) => f.sym(s),
                    };
                    assert!(
                        text.split_whitespace().any(|t| t == op),
                        "{name}: {n}B is `{op}` here, `{text}` in llc-22"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

#[test]
fn intervals_of_ll_phi_loop_golden() {
    let text =
        std::fs::read_to_string(common::corpus_dir().join("ll_phi_loop/4-twoaddr.mir")).unwrap();
    let m = parse_module(&text).unwrap();
    let mut got = String::new();
    for f in &m.functions {
        got.push_str(&format!(
            "# {}\n{}",
            f.name,
            LiveIntervals::compute(f).print()
        ));
    }
    let want = "\
# phi_loop
%0 [224r,256r:0) 0@224r
%1 [208r,240r:0) 0@208r
%2 [240r,320r:0) 0@240r
%3 [256r,288r:0) 0@256r
%4 [384r,400r:0) 0@384r
%5 [32r,400r:0) 0@32r
%6 [16r,368B:0) 0@16r
%7 [64r,80r:0) 0@64r
%8 [48r,96r:0) 0@48r
%9 [144r,176r:0) 0@144r
%10 [272r,336r:0) 0@272r
%11 [160r,192B:0)[192B,224r:1)[288r,368B:2) 0@160r 1@192B-phi 2@288r
%12 [176r,192B:0)[192B,208r:1)[304r,368B:2) 0@176r 1@192B-phi 2@304r
%13 [80r,128B:0)[320r,368B:1)[368B,384r:2) 0@80r 1@320r 2@368B-phi
# fib_swap
%0 [192r,224r:0) 0@192r
%1 [176r,352r:0) 0@176r
%2 [160r,368r:0) 0@160r
%3 [208r,288r:0) 0@208r
%4 [224r,256r:0) 0@224r
%5 [80r,368r:0) 0@80r
%6 [64r,336B:0) 0@64r
%7 [48r,96r:0) 0@48r
%8 [32r,112r:0) 0@32r
%9 [16r,128r:0) 0@16r
%10 [240r,304r:0) 0@240r
%11 [96r,144B:0)[144B,192r:1)[256r,336B:2) 0@96r 1@144B-phi 2@256r
%12 [112r,144B:0)[144B,176r:1)[272r,336B:2) 0@112r 1@144B-phi 2@272r
%13 [128r,144B:0)[144B,160r:1)[288r,336B:2) 0@128r 1@144B-phi 2@288r
# diamond_phi
%0 [64r,384r:0) 0@64r
%1 [144r,176r:0) 0@144r
%2 [160r,192r:0) 0@160r
%3 [240r,272r:0) 0@240r
%4 [256r,288r:0) 0@256r
%5 [336r,368r:0) 0@336r
%6 [320r,352r:0) 0@320r
%7 [48r,400r:0) 0@48r
%8 [32r,128B:0)[224B,256r:0) 0@32r
%9 [16r,144r:0)[224B,240r:0) 0@16r
%10 [80r,96r:0) 0@80r
%11 [352r,368r:0) 0@352r
%12 [368r,416r:0) 0@368r
%13 [384r,400r:0) 0@384r
%14 [400r,416r:0) 0@400r
%15 [176r,224B:0)[272r,304B:1)[304B,336r:2) 0@176r 1@272r 2@304B-phi
%16 [192r,224B:0)[288r,304B:1)[304B,320r:2) 0@192r 1@288r 2@304B-phi
";
    assert_eq!(got, want);
}

fn vreg(n: usize) -> VReg {
    VReg::new(n)
}

#[test]
fn queries_on_the_phi_loop() {
    let text =
        std::fs::read_to_string(common::corpus_dir().join("ll_phi_loop/4-twoaddr.mir")).unwrap();
    let f = &parse_module(&text).unwrap().functions[0];
    let li = LiveIntervals::compute(f);
    let at = |s: &str| {
        let (n, slot) = s.split_at(s.len() - 1);
        let n: u32 = n.parse().unwrap();
        let slot = match slot {
            "B" => compiler_core::liveness::Slot::Block,
            "e" => compiler_core::liveness::Slot::EarlyClobber,
            "r" => compiler_core::liveness::Slot::Register,
            _ => compiler_core::liveness::Slot::Dead,
        };
        SlotIndex::new(n, slot)
    };
    // %13 = COPY %7 at 80: the copy's source dies where the destination is born.
    assert!(!li.overlaps(vreg(7), vreg(13)));
    // %12 = COPY %2 at 304, but %2 lives on to 320: they interfere.
    assert!(li.overlaps(vreg(2), vreg(12)));
    let ov = li.overlapping_segments(vreg(2), vreg(12));
    assert_eq!(ov.len(), 1);
    assert_eq!((ov[0].start, ov[0].end), (at("304r"), at("320r")));
    assert!(li.live_at(vreg(6), at("192B")) && !li.live_at(vreg(6), at("368B")));
    assert!(li.covers(vreg(6), vreg(10)) && !li.covers(vreg(10), vreg(6)));
    assert_eq!(li.range(vreg(11)).value_at(at("200r")), Some(1));
    assert!(li.indexes.block_of(at("200r")) == f.block_by_number(2));
    assert_eq!(
        li.indexes
            .inst_at(at("80r"))
            .map(|i| f.insts[i].is(Op::COPY)),
        Some(true)
    );
}

#[test]
fn tuple_lanes_get_their_own_ranges() {
    let f = parse_one(
        "---
name: lanes
isSSA: false
noPhis: true
body: |
  bb.0:
    undef %0.sub0:b32x2 = MOV_B32_i 1
    %0.sub1:b32x2 = MOV_B32_i 2
    %1:b32 = ADD32ri %0.sub0, 3
    %2:b32, %3:b32 = EXTRACT_SUBREG %0.sub0, %0.sub1
    %4:b32x2 = IMPLICIT_DEF
    %5:b32 = COPY %4.sub1
    Return
...
",
    );
    let li = LiveIntervals::compute(&f);
    let p = li.print();
    // The main range is the union of the lanes, with a new value at each write.
    assert!(
        p.contains(
            "%0 [16r,32r:0)[32r,64r:1) 0@16r 1@32r sub0 [16r,64r:0) 0@16r sub1 [32r,64r:0) 0@32r\n"
        ),
        "{p}"
    );
    assert!(
        p.contains("%2 [64r,64d:0) 0@64r\n%3 [64r,64d:0) 0@64r\n"),
        "{p}"
    );
    // %4: only lane 1 is ever read; lane 0's value is dead at once.
    assert!(
        p.contains("%4 [80r,96r:0) 0@80r sub0 [80r,80d:0) 0@80r sub1 [80r,96r:0) 0@80r"),
        "{p}"
    );
}

// ---------------------------------------------------------------------------------
// Random programs against brute force.

use common::random::{brute, random_function, Brute, Rng};

#[track_caller]
fn check_range(f: &Function, si: &SlotIndexes, r: &LiveRange, bf: &Brute, what: &str) {
    let ctx = || format!("{what}: {r}\n{}", compiler_core::mir::print_function(f));
    for w in r.segments.windows(2) {
        assert!(w[0].end <= w[1].start, "sorted and disjoint: {}", ctx());
    }
    for s in &r.segments {
        assert!(
            s.start < s.end && (s.valno as usize) < r.valnos.len(),
            "{}",
            ctx()
        );
    }
    for b in f.layout.blocks() {
        let (start, end) = (si.block_start(b).unwrap(), si.block_end(b).unwrap());
        assert_eq!(
            r.live_at(start),
            bf.block_in[b.index()],
            "live into bb.{}: {}",
            f.blocks[b].number,
            ctx()
        );
        let last = SlotIndex::from_raw(end.raw() - 1);
        assert_eq!(
            r.live_at(last),
            bf.block_out[b.index()],
            "live out of bb.{}: {}",
            f.blocks[b].number,
            ctx()
        );
        for i in f.layout.block_insts(b) {
            let at = si.inst_index(i).unwrap();
            assert_eq!(
                r.live_at(at),
                bf.before[&i],
                "live before {}: {}",
                at,
                ctx()
            );
            assert_eq!(
                r.live_at(at.dead_slot()),
                bf.after[&i],
                "live after {}: {}",
                at,
                ctx()
            );
        }
    }
}

#[test]
fn random_functions_intervals_match_brute_force_liveness() {
    let mut rng = Rng(0x5eed_0001);
    for _ in 0..250 {
        let f = random_function(&mut rng);
        let li = LiveIntervals::compute(&f);
        let si = &li.indexes;
        for v in f.vreg_list() {
            let interval = li.interval(v).unwrap();
            if interval.subranges.is_empty() {
                check_range(
                    &f,
                    si,
                    &interval.range,
                    &brute(&f, v, None),
                    &format!("%{}", v.index()),
                );
            }
            for s in &interval.subranges {
                check_range(
                    &f,
                    si,
                    &s.range,
                    &brute(&f, v, Some(s.lane)),
                    &format!("%{}.sub{}", v.index(), s.lane),
                );
            }
            // A tuple's main range is the union of its lanes.
            if !interval.subranges.is_empty() {
                for raw in 0..si.end().raw() {
                    let at = SlotIndex::from_raw(raw);
                    let any = interval.subranges.iter().any(|s| s.range.live_at(at));
                    assert_eq!(
                        interval.range.live_at(at),
                        any,
                        "%{} at {at}: {interval}",
                        v.index()
                    );
                }
            }
        }
    }
}

/// Registers local to one block are read straight from their accesses; the general
/// path gives every register the same interval, on random functions and on llc-22's
/// MIR of the corpus kernels.
#[test]
fn local_shortcut_gives_the_general_paths_intervals() {
    let check = |f: &Function, what: &str| {
        let fast = LiveIntervals::compute(f);
        let general = LiveIntervals::compute_without_shortcut(f);
        for v in f.vreg_list() {
            assert_eq!(
                fast.interval(v),
                general.interval(v),
                "{what}: %{}",
                v.index()
            );
        }
    };
    let mut rng = Rng(0x5eed_0004);
    for round in 0..200 {
        check(
            &random_function(&mut rng),
            &format!("random function {round}"),
        );
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llvm-nvptx");
    let mut functions = 0;
    for case in std::fs::read_dir(&dir).unwrap() {
        let path = case.unwrap().path().join("pre-phielim.mir");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(m) = parse_module(&text) else { continue };
        for f in &m.functions {
            check(f, &format!("{}:{}", path.display(), f.name));
            functions += 1;
        }
    }
    assert!(functions > 100, "only {functions} corpus functions checked");
}

/// The ranges-only build (what the register coalescer starts from) hands out exactly
/// the whole-register ranges and indexes of the full build, empty ranges for numbers no
/// register uses, and visits every instruction in layout order.
#[test]
fn ranges_only_build_equals_the_full_intervals() {
    let mut rng = Rng(0x5eed_0003);
    let mut tuples = 0;
    for round in 0..120 {
        let mut f = random_function(&mut rng);
        if round % 3 == 0 {
            // A gap in the numbering: two numbers no register has, then a register.
            f.declare_vreg(vreg(f.vreg_end as usize + 2), None);
        }
        let cfg = compiler_core::mir::cfg::Cfg::new(&f);
        let mut seen = Vec::new();
        let (si, ranges) = LiveIntervals::ranges_visiting_on(&f, &cfg, |_, i, _| seen.push(i));
        let full = LiveIntervals::compute(&f);
        tuples += f
            .vreg_list()
            .filter(|&v| !full.interval(v).unwrap().subranges.is_empty())
            .count();
        let (full_si, full_ranges, _) = full.into_parts();
        assert_eq!(ranges, full_ranges);
        assert_eq!(ranges.len(), f.vreg_end as usize);
        assert_eq!(format!("{si:?}"), format!("{full_si:?}"));
        let layout: Vec<_> = f.all_insts().map(|(_, i)| i).collect();
        assert_eq!(seen, layout);
    }
    assert!(tuples > 0, "the random functions hold tuple registers");
}

#[test]
fn random_functions_overlaps_match_brute_force() {
    let mut rng = Rng(0x5eed_0002);
    for _ in 0..80 {
        let f = random_function(&mut rng);
        let li = LiveIntervals::compute(&f);
        let regs: Vec<VReg> = f.vreg_list().collect();
        let end = li.indexes.end().raw();
        for &a in &regs {
            for &b in &regs {
                let common: Vec<u32> = (0..end)
                    .filter(|&x| {
                        li.live_at(a, SlotIndex::from_raw(x))
                            && li.live_at(b, SlotIndex::from_raw(x))
                    })
                    .collect();
                assert_eq!(
                    li.overlaps(a, b),
                    !common.is_empty(),
                    "%{} %{}",
                    a.index(),
                    b.index()
                );
                let from_segments: Vec<u32> = li
                    .overlapping_segments(a, b)
                    .iter()
                    .flat_map(|o| o.start.raw()..o.end.raw())
                    .collect();
                assert_eq!(from_segments, common);
                let covers = (0..end).all(|x| {
                    let at = SlotIndex::from_raw(x);
                    !li.live_at(b, at) || li.live_at(a, at)
                });
                assert_eq!(li.covers(a, b), covers);
            }
        }
    }
}

/// A random range: sorted, disjoint segments over raw slots 0..200.
fn random_range(rng: &mut Rng) -> LiveRange {
    let mut segments = Vec::new();
    let mut at = rng.below(10) as u32;
    for _ in 0..rng.below(6) {
        let len = 1 + rng.below(12) as u32;
        segments.push(Segment {
            start: SlotIndex::from_raw(at),
            end: SlotIndex::from_raw(at + len),
            valno: 0,
        });
        at += len + rng.below(3) as u32 * rng.below(15) as u32;
    }
    let valnos = if segments.is_empty() {
        vec![]
    } else {
        vec![VNInfo {
            def: segments[0].start,
            is_phi_def: false,
        }]
    };
    LiveRange {
        segments: segments.into(),
        valnos: valnos.into(),
    }
}

#[test]
fn range_overlaps_agrees_with_brute_force() {
    let mut rng = Rng(0x5eed_0003);
    for _ in 0..5000 {
        let (a, b) = (random_range(&mut rng), random_range(&mut rng));
        let live = |r: &LiveRange, x: u32| {
            r.segments
                .iter()
                .any(|s| s.contains(SlotIndex::from_raw(x)))
        };
        let brute = (0..260).any(|x| live(&a, x) && live(&b, x));
        assert_eq!(a.overlaps(&b), brute, "{a} vs {b}");
        assert_eq!(b.overlaps(&a), brute);
        let covers = (0..260).all(|x| !live(&b, x) || live(&a, x));
        assert_eq!(a.covers(&b), covers, "{a} covers {b}");
        for x in 0..260 {
            assert_eq!(a.live_at(SlotIndex::from_raw(x)), live(&a, x));
        }
    }
}

/// The gallery's v4f32 texture fetch after two-address: the tuple's lanes die one by
/// one at the COPYs that replaced the EXTRACT_SUBREG, while the whole register lives
/// until the last of them.
#[test]
fn tuple_lanes_of_a_texture_fetch_golden() {
    use compiler_core::passes::two_address::{self, TwoAddressOptions};
    use compiler_core::trace::NoTrace;
    let p = concat!(env!("CARGO_MANIFEST_DIR"), "/gallery/tex-v4f32.mir");
    let mut m = parse_module(&std::fs::read_to_string(p).unwrap()).unwrap();
    let f = &mut m.functions[0];
    two_address::run(f, &TwoAddressOptions::default(), &mut NoTrace::default());
    let li = LiveIntervals::compute(f);
    let p = li.print();
    assert!(p.contains(
        "%4 [80r,144r:0) 0@80r sub0 [80r,96r:0) 0@80r sub1 [80r,112r:0) 0@80r sub2 [80r,128r:0) 0@80r sub3 [80r,144r:0) 0@80r\n%5 [96r,160r:0) 0@96r\n"
    ), "{p}");
    // %5 = COPY %4.sub0: the copy's destination overlaps the whole tuple, not its lane.
    let (t, d) = (vreg(4), vreg(5));
    assert!(li.overlaps(t, d));
    let lane0 = li.interval(t).unwrap().subrange(0).unwrap();
    assert!(!lane0.overlaps(li.range(d)));
}

/// A pass that inserts an instruction gets the midpoint between its neighbours; one
/// that erases keeps every other index (the numbering llc-22 prints after coalescing).
#[test]
fn slot_indexes_insert_and_remove_without_renumbering() {
    let mut f = parse_one(
        "---\nname: f\nbody: |\n  bb.0:\n    %0:b32 = MOV_B32_i 0\n    %1:b32 = ADD32ri %0, 1\n    Return\n  bb.1:\n    Return\n...\n",
    );
    let mut si = SlotIndexes::compute(&f);
    let insts: Vec<_> = f.all_insts().map(|(_, i)| i).collect();
    let idx = |si: &SlotIndexes, i| si.inst_index(i).unwrap().index();
    assert_eq!(
        insts.iter().map(|&i| idx(&si, i)).collect::<Vec<_>>(),
        [16, 32, 48, 80]
    );
    let b1 = f.block_by_number(1).unwrap();
    assert_eq!(
        si.block_end(f.block_by_number(0).unwrap()),
        si.block_start(b1)
    );
    assert_eq!(si.end().index(), 96);
    let copy = f.insts[insts[0]].clone();
    let new = f.insert_after(insts[0], copy);
    assert_eq!(si.insert_inst(&f, new).map(|s| s.index()), Some(24));
    let newer = f.insert_after(insts[0], f.insts[insts[0]].clone());
    assert_eq!(si.insert_inst(&f, newer).map(|s| s.index()), Some(20));
    assert_eq!(
        si.inst_at(SlotIndex::new(24, compiler_core::liveness::Slot::Register)),
        Some(new)
    );
    f.erase(insts[1]);
    si.remove_inst(insts[1]);
    assert_eq!(si.inst_index(insts[1]), None);
    assert_eq!(
        si.inst_at(SlotIndex::new(32, compiler_core::liveness::Slot::Block)),
        None
    );
    assert_eq!(idx(&si, insts[2]), 48);
    assert_eq!(si.num_insts(), 5);
    // In index order, numbered and inserted instructions interleaved.
    assert_eq!(
        si.insts().map(|(s, i)| (s.index(), i)).collect::<Vec<_>>(),
        [
            (16, insts[0]),
            (20, newer),
            (24, new),
            (48, insts[2]),
            (80, insts[3])
        ]
    );
    si.remove_inst(new);
    assert_eq!(
        si.inst_at(SlotIndex::new(24, compiler_core::liveness::Slot::Dead)),
        None
    );
    assert_eq!(si.num_insts(), 4);
    assert_eq!(
        si.block_of(SlotIndex::new(64, compiler_core::liveness::Slot::Block)),
        Some(b1)
    );
    assert_eq!(si.block_of(si.end()), None);
    // No room left between 16 and 17: the caller renumbers.
    let mut tight = si.clone();
    let mut prev = insts[0];
    for _ in 0..4 {
        let x = f.insert_after(prev, f.insts[insts[0]].clone());
        if tight.insert_inst(&f, x).is_none() {
            return;
        }
        prev = x;
    }
    panic!("midpoints never ran out");
}

// ---------------------------------------------------------------------------------
// `LiveRange::join` (in place, small into big) against `LiveRange::union`.

use proptest::prelude::*;

/// A range as the coalescers hold them: built by `from_segments` from raw segments
/// over slots `base..base + 64` and values at distinct slots (PHI or not).
fn built_range(base: u32, segs: &[(u32, u32, usize)], defs: &[(u32, bool)]) -> LiveRange {
    let mut valnos: Vec<VNInfo> = defs
        .iter()
        .map(|&(d, phi)| VNInfo {
            def: SlotIndex::from_raw(base + d),
            is_phi_def: phi,
        })
        .collect();
    valnos.sort_by_key(|v| v.def);
    valnos.dedup_by_key(|v| v.def);
    let segments = segs
        .iter()
        .map(|&(start, len, v)| Segment {
            start: SlotIndex::from_raw(base + start),
            end: SlotIndex::from_raw(base + start + len),
            valno: (v % valnos.len()) as u32,
        })
        .collect();
    LiveRange::from_segments(segments, &valnos)
}

fn raw_segments() -> impl Strategy<Value = Vec<(u32, u32, usize)>> {
    proptest::collection::vec((0u32..64, 1u32..10, 0usize..8), 0..12)
}

fn raw_defs() -> impl Strategy<Value = Vec<(u32, bool)>> {
    proptest::collection::vec((0u32..64, proptest::bool::weighted(0.2)), 1..8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Overlapping and touching segments, shared and clashing values (the same def
    /// as PHI and not: the fallback), either side bigger, the second range anywhere
    /// from inside the first to after it.
    #[test]
    fn join_equals_union(
        a in (raw_segments(), raw_defs()),
        b in (raw_segments(), raw_defs()),
        shift in prop_oneof![Just(0u32), 0u32..80],
    ) {
        let x = built_range(0, &a.0, &a.1);
        let y = built_range(shift, &b.0, &b.1);
        prop_assert!(x.is_canonical() && y.is_canonical());
        let want = x.union(&y);
        let mut got = x.clone();
        got.join(y.clone());
        prop_assert_eq!(&got, &want, "{} join {}", x, y);
        let want = y.union(&x);
        let mut got = y.clone();
        got.join(x.clone());
        prop_assert_eq!(&got, &want, "{} join {}", y, x);
    }

    /// A small side that is not canonical (unsorted, overlapping, unused values) goes
    /// through `union` itself.
    #[test]
    fn join_with_a_raw_small_side(
        a in (raw_segments(), raw_defs()),
        b in proptest::collection::vec((0u32..64, 1u32..10, 0u32..3), 0..4),
    ) {
        let x = built_range(0, &a.0, &a.1);
        let y = LiveRange {
            segments: b
                .iter()
                .map(|&(s, l, v)| Segment {
                    start: SlotIndex::from_raw(s),
                    end: SlotIndex::from_raw(s + l),
                    valno: v,
                })
                .collect(),
            valnos: (0..3)
                .map(|k| VNInfo { def: SlotIndex::from_raw(7 * k), is_phi_def: false })
                .collect(),
        };
        prop_assume!(y.segments.len() <= x.segments.len());
        let want = x.union(&y);
        let mut got = x.clone();
        got.join(y);
        prop_assert_eq!(got, want);
    }
}

/// The range `from_segments` is specified to build, the slow way: segments sorted by
/// (start, end), overlaps cut (the earlier start wins), touching segments of one value
/// merged, unused values dropped and the rest renumbered in def order.
fn reference_range(mut segs: Vec<Segment>, valnos: &[VNInfo]) -> LiveRange {
    segs.sort_by_key(|s| (s.start, s.end));
    let mut out: Vec<Segment> = Vec::new();
    for s in segs {
        match out.last_mut() {
            Some(l) if s.start < l.end => {
                if s.end > l.end {
                    if s.valno == l.valno {
                        l.end = s.end;
                    } else {
                        let start = l.end;
                        out.push(Segment { start, ..s });
                    }
                }
            }
            Some(l) if s.start == l.end && s.valno == l.valno => l.end = s.end,
            _ => out.push(s),
        }
    }
    let mut used: Vec<u32> = out.iter().map(|s| s.valno).collect();
    used.sort_by_key(|&v| valnos[v as usize].def);
    used.dedup();
    for s in &mut out {
        s.valno = used.iter().position(|&u| u == s.valno).unwrap() as u32;
    }
    LiveRange {
        segments: out.into(),
        valnos: used.iter().map(|&v| valnos[v as usize]).collect(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// `from_segments` (which skips sorting what is already in order) builds the
    /// specified range, for values in def order and not.
    #[test]
    fn from_segments_builds_the_specified_range(
        segs in proptest::collection::vec((0u32..64, 1u32..10, 0u32..6), 0..12),
        defs in proptest::collection::vec(0u32..64, 6),
        sorted_first in proptest::bool::ANY,
    ) {
        let mut defs = defs;
        if sorted_first {
            defs.sort();
        }
        let valnos: Vec<VNInfo> = defs
            .iter()
            .map(|&d| VNInfo { def: SlotIndex::from_raw(d), is_phi_def: false })
            .collect();
        let mut segs: Vec<Segment> = segs
            .iter()
            .map(|&(s, l, v)| Segment {
                start: SlotIndex::from_raw(s),
                end: SlotIndex::from_raw(s + l),
                valno: v,
            })
            .collect();
        if sorted_first {
            segs.sort_by_key(|s| (s.start, s.end));
        }
        // Ties in def order decide nothing here only when defs differ.
        let mut d = defs.clone();
        d.sort();
        d.dedup();
        prop_assume!(d.len() == defs.len());
        prop_assert_eq!(
            LiveRange::from_segments(segs.clone().into(), &valnos),
            reference_range(segs, &valnos)
        );
    }

    /// `remap_values` (in place on canonical ranges) leaves what `from_segments`
    /// builds from the remapped segments, canonical or not.
    #[test]
    fn remap_values_equals_rebuilding(
        a in (raw_segments(), raw_defs()),
        map in proptest::collection::vec(0u32..8, 8),
        raw in proptest::bool::weighted(0.2),
    ) {
        let mut r = built_range(0, &a.0, &a.1);
        if raw {
            r.segments.reverse();
        }
        let map: Vec<u32> = (0..r.valnos.len())
            .map(|k| map[k] % r.valnos.len() as u32)
            .collect();
        let want = LiveRange::from_segments(
            r.segments
                .iter()
                .map(|s| Segment { valno: map[s.valno as usize], ..*s })
                .collect(),
            &r.valnos,
        );
        let mut got = r.clone();
        got.remap_values(&map);
        prop_assert_eq!(got, want);
    }
}
