//! `copyscope`, the native command line. The contract (subcommands, flags, exit codes)
//! is fixed by DESIGN.md: 0 success, 1 bad input, 2 bad usage.

use compiler_core::STAGES;
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!("usage: copyscope <run|fmt|stages|examples|link> ...");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("stages") => {
            let json = args.iter().any(|a| a == "--json");
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&STAGES).expect("stage table serializes")
                );
            } else {
                for s in STAGES.iter() {
                    let phase = s.phase.map(|p| format!(" ({p})")).unwrap_or_default();
                    println!(
                        "{:<24} {}→{}  {}{}",
                        s.id,
                        s.input.name(),
                        s.output.name(),
                        s.summary,
                        phase
                    );
                }
            }
            ExitCode::SUCCESS
        }
        _ => usage(),
    }
}
