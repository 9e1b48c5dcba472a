//! Runs ptx-lower on a PTX file and prints the annotated ORI (a debugging aid).
fn main() {
    let path = std::env::args().nth(1).expect("usage: ptx_to_ori FILE");
    let text = std::fs::read_to_string(path).expect("readable file");
    let m = compiler_core::ptx::parse(&text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let opts = compiler_core::passes::ptx_lower::PtxLowerOptions::default();
    match compiler_core::passes::ptx_lower::run(
        &m,
        &opts,
        &mut compiler_core::trace::NoTrace::default(),
    ) {
        Ok((o, _)) => print!("{}", compiler_core::ori::print::print(&o)),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
