fn main() {
    let p = std::env::args().nth(1).unwrap();
    let t = std::fs::read_to_string(p).unwrap();
    match compiler_core::mir::parse_module(&t) {
        Ok(m) => print!("{}", compiler_core::mir::print_module(&m)),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
