//! The MIR reader on any bytes: never panics; what it accepts prints, re-reads to the
//! same text, and survives the verifier at every level.
#![no_main]
use compiler_core::mir::verify::{verify, VerifyLevel};
use compiler_core::mir::{parse_module, print_module};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(m) = parse_module(text) else {
        return;
    };
    let printed = print_module(&m);
    let again = parse_module(&printed).expect("printed MIR must parse again");
    assert_eq!(
        print_module(&again),
        printed,
        "print(parse(print(x))) is a fixpoint"
    );
    for f in &m.functions {
        for level in [
            VerifyLevel::Ssa,
            VerifyLevel::PostPhiElim,
            VerifyLevel::PostTwoAddress,
            VerifyLevel::PostCoalesce,
        ] {
            let _ = verify(f, level);
        }
    }
});
