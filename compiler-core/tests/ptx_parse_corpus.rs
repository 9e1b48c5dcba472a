//! Every `*.ptx` of the shared corpus (nvcc 13.0 and llc-22 output) parses, and
//! printing is a fixpoint: print(parse(print(parse(x)))) == print(parse(x)).

mod support;

use support::ptx_files;

use compiler_core::ptx;

#[test]
fn corpus_ptx_parses_and_prints_a_fixpoint() {
    let files = ptx_files();
    assert!(files.len() >= 40, "found only {} PTX files", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let m = ptx::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let once = ptx::print(&m);
        let m2 =
            ptx::parse(&once).unwrap_or_else(|e| panic!("{} reprint: {e}\n{once}", f.display()));
        assert_eq!(m, m2, "{}: parse(print(ast)) != ast", f.display());
        assert_eq!(once, ptx::print(&m2), "{}: not a fixpoint", f.display());
        let funcs = m
            .items
            .iter()
            .filter(|i| matches!(i, ptx::Item::Func(_)))
            .count();
        assert!(funcs >= 1, "{}: no function", f.display());
    }
}
