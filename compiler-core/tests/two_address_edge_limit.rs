//! `dataflow-edge-limit` changes two-address's output, as it changes llc-22's.
//!
//! revchain.mir (shared/findings/two-address): `%6 = ADD32rr killed %5(tied-def 0),
//! killed %4`, where %4 comes back from %6 around the loop through four COPYs
//! (%6 → %7 → %8 → %1 → %4). isProfitableToCommute's isRevCopyChain(%4, %6) needs four
//! steps: with the limit at 3 it fails, the fallback ("commute when RegC's def is
//! closer") says no (%4 is defined before %5), and the COPY reads %5; at 4 it finds the
//! chain, the ADD commutes and the COPY reads %4.
//!
//! llc-22 has no tied, commutable NVPTX instruction, so the oracle is its x86 twin
//! (`fixtures/two_address/revchain_x86.mir`, AND32rr: tied, commutable, no three-address
//! form) through `llc-22 -run-pass=twoaddressinstruction -dataflow-edge-limit=N`, which
//! runs without LiveVariables: our pass runs with `live_variables: false` to match
//! (kill flags dropped from the tied operand, none put on the COPY). The expected bodies
//! below are llc-22's, register for register (llc renumbers densely: its %0..%6 are our
//! %1, %4, %5, %6, %7, %8, %9); when llc-22 is present the test checks it still prints
//! them.

mod support;

use compiler_core::mir::{parse_module, print_function};
use compiler_core::passes::two_address::{self, TwoAddressOptions};
use compiler_core::trace::NoTrace;
use std::path::Path;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/two_address")
            .join(name),
    )
    .unwrap()
}

/// The lines of `bb.1` (successor list and blank lines left out).
fn loop_body(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .skip_while(|l| *l != "bb.1:")
        .skip(1)
        .take_while(|l| !l.starts_with("bb.2"))
        .filter(|l| !l.is_empty() && !l.starts_with("successors:"))
        .map(String::from)
        .collect()
}

fn ours(limit: u32) -> Vec<String> {
    let m = parse_module(&fixture("revchain.mir")).unwrap();
    let mut f = m.functions.into_iter().next().unwrap();
    let opts = TwoAddressOptions {
        dataflow_edge_limit: limit,
        live_variables: false,
        ..Default::default()
    };
    two_address::run(&mut f, &opts, &mut NoTrace::default());
    loop_body(&print_function(&f))
}

/// llc-22's bodies on the x86 twin, as it printed them (22.1.8).
fn llc_expected(limit: u32) -> [&'static str; 10] {
    let (copy, op) = match limit {
        3 => (
            "%3:gr32 = COPY %2",
            "%3:gr32 = AND32rr %3, killed %1, implicit-def dead $eflags",
        ),
        _ => (
            "%3:gr32 = COPY %1",
            "%3:gr32 = AND32rr %3, killed %2, implicit-def dead $eflags",
        ),
    };
    [
        "%1:gr32 = COPY %0",
        "%2:gr32 = MOV32ri 5",
        copy,
        op,
        "%4:gr32 = COPY %3",
        "%5:gr32 = COPY %4",
        "%0:gr32 = COPY %5",
        "CMP32rr %3, %6, implicit-def $eflags",
        "JCC_1 %bb.1, 5, implicit $eflags",
        "JMP_1 %bb.2",
    ]
}

#[test]
fn the_edge_limit_decides_the_commute_as_in_llc22() {
    let three = ours(3);
    let four = ours(4);
    let tail = [
        "%7:int32regs = COPY %6",
        "%8:int32regs = COPY %7",
        "%1:int32regs = COPY %8",
        "ST_i32 %6, 0, 0, 1, 32, %0, 0",
        "%10:int1regs = SETP_i32rr %6, %9, 0",
        "CBranch killed %10, %bb.1",
        "GOTO %bb.2",
    ];
    let want = |copy: &str, op: &str| {
        let mut v = vec![
            "%4:int32regs = COPY %1".to_string(),
            "%5:int32regs = LD_i32 0, 0, 101, 3, 32, -1, &p2, 0".to_string(),
            copy.to_string(),
            op.to_string(),
        ];
        v.extend(tail.iter().map(|s| s.to_string()));
        v
    };
    // llc-22 at 3: `%3 = COPY %2` (its %2 is our %5), the ADD keeps `killed %1` (%4).
    assert_eq!(
        three,
        want(
            "%6:int32regs = COPY %5",
            "%6:int32regs = ADD32rr %6(tied-def 0), killed %4"
        )
    );
    // llc-22 at 4: commuted, `%3 = COPY %1` (%4), the ADD reads `killed %2` (%5).
    assert_eq!(
        four,
        want(
            "%6:int32regs = COPY %4",
            "%6:int32regs = ADD32rr %6(tied-def 0), killed %5"
        )
    );
    // The default (3) is the first.
    let m = parse_module(&fixture("revchain.mir")).unwrap();
    let mut f = m.functions.into_iter().next().unwrap();
    let opts = TwoAddressOptions {
        live_variables: false,
        ..Default::default()
    };
    two_address::run(&mut f, &opts, &mut NoTrace::default());
    assert_eq!(loop_body(&print_function(&f)), three);
}

#[test]
fn llc22_still_prints_the_expected_bodies() {
    let Some(llc) = support::llc::llc() else {
        eprintln!("llc-22 not found: skipped");
        return;
    };
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/two_address/revchain_x86.mir");
    for limit in [3, 4] {
        let out = std::process::Command::new(llc)
            .args(["-mtriple=x86_64--", "-run-pass=twoaddressinstruction"])
            .arg(format!("-dataflow-edge-limit={limit}"))
            .arg(&path)
            .args(["-o", "-"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let body = loop_body(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(body, llc_expected(limit), "limit {limit}");
    }
}
