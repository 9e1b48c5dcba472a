//! Runs ptx-emit on a MIR file and prints the PTX (a debugging aid).
fn main() {
    let path = std::env::args().nth(1).expect("usage: mir_to_ptx FILE");
    let text = std::fs::read_to_string(path).expect("readable file");
    let m = compiler_core::mir::parse_module(&text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let opts = compiler_core::passes::ptx_emit::PtxEmitOptions::default();
    match compiler_core::passes::ptx_emit::run(
        &m,
        &opts,
        &mut compiler_core::trace::NoTrace::default(),
    ) {
        Ok((p, _)) => print!("{}", compiler_core::ptx::print(&p)),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
