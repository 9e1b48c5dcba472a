//! The DAG reader on any bytes: never panics; what it accepts prints and re-reads.
#![no_main]
use compiler_core::dag::{parse_dag, print_dag};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(d) = parse_dag(text) {
        let printed = print_dag(&d);
        parse_dag(&printed).expect("printed DAG must parse again");
    }
});
