//! `copyscope`, the native command line. The contract (subcommands, flags, output, exit
//! codes) is fixed by DESIGN.md, "CLI contract"; tests and demos depend on it:
//!
//! ```text
//!  copyscope run <FILE|-> [--from dag|mir|ptx] [--until STAGE] [--only STAGE,...]
//!               [--knob NAME=VALUE]... [--emit mir|ptx|trace] [--json] [--verify] [--no-trace]
//!  copyscope run --example NAME [--from dag|mir] ...
//!  copyscope fmt <FILE|-> [--from ...]
//!  copyscope examples | stages | link encode ... | link decode URL
//!  copyscope lift <FILE|-> [--function NAME] [--llvm]
//! ```
//!
//! Exit codes: 0 success, 1 bad input (each message on stderr as `FILE:LINE:COL: error:
//! ...`), 2 bad usage. Nothing here panics on any input; output to a closed pipe is
//! dropped quietly.

mod args;
mod input;
mod lift;
mod link;
mod list;
mod run;

use std::io::Write;
use std::process::ExitCode;

/// mimalloc rather than glibc's malloc: the passes make many small allocations and free
/// them in bulk, where glibc's free-chunk bookkeeping grew faster than the function
/// (docs/bench.md measures with the same allocator, and says why it sets
/// `MIMALLOC_PURGE_DELAY=-1`; a one-shot run of the CLI takes the same time either way).
#[global_allocator]
static HEAP: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How a command failed.
#[derive(Debug)]
pub enum Failure {
    /// Bad usage: one message (exit 2).
    Usage(String),
    /// Bad input: formatted diagnostics, one per line (exit 1).
    Input(Vec<String>),
}

pub type CmdResult = Result<(), Failure>;

pub const USAGE: &str = "\
usage: copyscope <command> ...

commands:
  run <FILE|-> [--from dag|mir|ptx] [--until STAGE] [--only STAGE,...]
               [--knob NAME=VALUE]... [--emit mir|ptx|trace] [--json] [--verify] [--no-trace]
  run --example NAME [--from dag|mir] ...
  fmt <FILE|-> [--from dag|mir|ptx]      parse and print the canonical text
  examples [--json]                      list the gallery examples
  stages [--json]                        list the pipeline stages
  knobs [--json]                         list every knob with its default
  link encode <FILE|-> [--from F] [--knob NAME=VALUE]... [--stage S] [--step N]
              [--layout L] [--base URL]
  link encode --example NAME [--stage S] [--step N] [--base URL]
  link decode URL [--json]
  lift <FILE|-> [--function NAME] [--llvm]
                                         llc-22 isel MIR (-stop-after=finalize-isel)
                                         -> a selected DAG per block (--llvm: LLVM's dump)

exit codes: 0 success, 1 bad input, 2 bad usage
";

/// Writes to stdout; a closed pipe is not an error worth a panic.
pub fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let result = match cmd.as_str() {
        "run" => run::run(rest),
        "fmt" => run::fmt(rest),
        "stages" => list::stages(rest),
        "examples" => list::examples(rest),
        "knobs" => list::knobs(rest),
        "link" => link::link(rest),
        "lift" => lift::lift_cmd(rest),
        "help" | "--help" | "-h" => {
            out(USAGE);
            Ok(())
        }
        other => Err(Failure::Usage(format!(
            "unknown command `{other}`; commands: run, fmt, examples, stages, knobs, link, lift"
        ))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("copyscope: error: {msg}");
            eprintln!("(run `copyscope --help` for usage)");
            ExitCode::from(2)
        }
        Err(Failure::Input(lines)) => {
            for l in lines {
                eprintln!("{l}");
            }
            ExitCode::from(1)
        }
    }
}
