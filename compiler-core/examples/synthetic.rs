//! Prints one of the benchmark's synthetic inputs, to feed the CLI or a profiler:
//! `cargo run --release -p compiler-core --features testgen --example synthetic -- loops 100000`.
use compiler_core::testgen::synthetic::{phi_swaps_ll, Make, FAMILIES};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The bench's families, and the PHI-swap loop as LLVM IR (its llc-22 input).
    let families = FAMILIES
        .iter()
        .copied()
        .chain([("phi-swaps-ll", phi_swaps_ll as Make)]);
    let names: Vec<&str> = families.clone().map(|(n, _)| n).collect();
    let (Some(family), Some(n)) = (args.first(), args.get(1).and_then(|n| n.parse().ok())) else {
        eprintln!(
            "usage: synthetic FAMILY SIZE  (families: {})",
            names.join(", ")
        );
        std::process::exit(2)
    };
    let Some((_, make)) = families.clone().find(|(name, _)| name == family) else {
        eprintln!("unknown family {family} (families: {})", names.join(", "));
        std::process::exit(2)
    };
    print!("{}", make(n));
}
