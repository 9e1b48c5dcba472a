//! Structured fuzzing: the bytes pick a generated program (seed, size) and the knobs;
//! every pass must keep the verifier clean and the interpreter's results.
#![no_main]
use compiler_core::testgen::{check, generate, CheckConfig, GenConfig, KNOB_SETS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut b = [0u8; 10];
    for (d, s) in b.iter_mut().zip(data) {
        *d = *s;
    }
    let seed = u64::from_le_bytes(b[..8].try_into().unwrap());
    let gen = GenConfig {
        size: 8 + (b[8] as usize % 80),
        ..GenConfig::default()
    };
    let g = generate(seed, &gen);
    let cfg = CheckConfig {
        seeds: 2,
        knobs: KNOB_SETS[b[9] as usize % KNOB_SETS.len()]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        trace: b[9] & 0x80 != 0,
        ..CheckConfig::default()
    };
    if let Err(e) = check(&g.module.functions[0], &cfg) {
        panic!(
            "seed {seed} size {}: {e}\n--- program ---\n{}",
            gen.size, g.text
        );
    }
});
