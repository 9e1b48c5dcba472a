//! The whole pipeline on any text, under a few knob combinations: never panics,
//! whatever the input (MIR, DAG or PTX by detection) and the stage plan.
#![no_main]
use compiler_core::pipeline::{run, RunOptions};
use compiler_core::Knobs;
use libfuzzer_sys::fuzz_target;

const KNOB_SETS: &[&[&str]] = &[
    &[],
    &["optnone=true", "terminal-rule=false"],
    &[
        "join-splitedges=true",
        "join-globalcopies=true",
        "copy-limit=2",
    ],
    &[
        "twoaddr-reschedule=false",
        "coalesce-limit=1",
        "block-frequency=true",
    ],
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let mut knobs = Knobs::default();
    for k in KNOB_SETS[sel as usize % KNOB_SETS.len()] {
        knobs.set_from_str(k).expect("valid knob");
    }
    let opts = RunOptions {
        knobs,
        trace: sel & 0x10 != 0,
        verify: sel & 0x20 != 0,
        ..RunOptions::default()
    };
    let _ = run(text, &opts);
});
