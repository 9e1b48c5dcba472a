//! Prints one of the benchmark's synthetic inputs, to feed the CLI or a profiler:
//! `cargo run --release -p compiler-core --features testgen --example synthetic -- loops 100000`.
use compiler_core::testgen::synthetic;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(family), Some(n)) = (args.first(), args.get(1).and_then(|n| n.parse().ok())) else {
        eprintln!("usage: synthetic FAMILY SIZE  (phi-swaps, phi-swaps-ll, branches, loops, copy-chain, dag-chain, tuples)");
        std::process::exit(2)
    };
    let text = match family.as_str() {
        "phi-swaps" => synthetic::phi_swaps(n),
        "phi-swaps-ll" => synthetic::phi_swaps_ll(n),
        "branches" => synthetic::branches(n),
        "loops" => synthetic::loops(n),
        "copy-chain" => synthetic::copy_chain(n),
        "dag-chain" => synthetic::dag_chain(n),
        "tuples" => synthetic::tuples(n),
        other => {
            eprintln!("unknown family {other}");
            std::process::exit(2)
        }
    };
    print!("{text}");
}
