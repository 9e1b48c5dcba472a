//! Reads a PTX file and prints it in canonical form (a debugging aid; the CLI's `fmt`
//! lives in another crate).
fn main() {
    let path = std::env::args().nth(1).expect("usage: ptx_fmt FILE");
    let text = std::fs::read_to_string(path).expect("readable file");
    match compiler_core::ptx::parse(&text) {
        Ok(m) => print!("{}", compiler_core::ptx::print(&m)),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
