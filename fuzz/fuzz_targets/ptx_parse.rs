//! The PTX reader on any bytes: never panics; what it accepts prints and re-reads.
#![no_main]
use compiler_core::ptx::{parse, parse_bytes, print};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = parse_bytes(data) {
        let printed = print(&m);
        parse(&printed).expect("printed PTX must parse again");
    }
});
