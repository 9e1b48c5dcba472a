//! Every `*.ptx` of the shared corpus (nvcc 13.0 and llc-22 output) parses, and
//! printing is a fixpoint: print(parse(print(parse(x)))) == print(parse(x)). The
//! real-world files of `real-ptx/` are measured too (docs/ptx-coverage.md): which
//! parse, round-trip, and assemble after the whole pipeline.

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

/// Real-ptx files the reader refuses today, each with the reason (docs/ptx-coverage.md
/// has the same table). Since the cuobjdump banner, Latin-1, trailing-NUL, module `.reg`,
/// bodiless `.func` and symbol-arithmetic work, none.
const NOT_PARSED: [(&str, &str); 0] = [];

/// The `-arch` for assembling a file: its `.target` when ptxas 13 compiles for it
/// (sm_75 and newer), else sm_75 (what `real-ptx/check-originals.sh` uses).
fn arch_for(m: &ptx::Module) -> String {
    let t = m
        .target
        .iter()
        .find(|t| t.starts_with("sm_"))
        .cloned()
        .unwrap_or_else(|| "sm_75".into());
    let n: u32 = t[3..]
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or(0);
    if n < 75 {
        "sm_75".into()
    } else {
        t
    }
}

/// `ptxas -arch=A [-c]` on PTX text: the cubin's bytes, or Err with its messages.
fn assemble(
    ptxas: &std::path::Path,
    text: &[u8],
    arch: &str,
    tag: &str,
    c: bool,
) -> Result<Vec<u8>, String> {
    let dir = std::env::temp_dir().join(format!("copyscope-cov-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{tag}.ptx"));
    let out = dir.join(format!("{tag}.cubin"));
    std::fs::write(&src, text).unwrap();
    let o = std::process::Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .args(c.then_some("-c"))
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&src);
    let cubin = std::fs::read(&out).unwrap_or_default();
    let _ = std::fs::remove_file(&out);
    if o.status.success() {
        Ok(cubin)
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

/// The PTX the pipeline prints when GeneralOptimize changes nothing: the module lowered
/// to ORI and printed straight back (ptx-out's form: unchanged lines as the source
/// spelled them).
fn lowered_and_printed(m: &ptx::Module) -> Option<String> {
    use compiler_core::passes::ptx_lower;
    let mut rec = compiler_core::trace::NoTrace::default();
    let (o, _) = ptx_lower::run(m, &ptx_lower::PtxLowerOptions::default(), &mut rec).ok()?;
    Some(compiler_core::ori::spelling::print_ptx_out(&o))
}

/// Every corpus PTX file, real-world ones included: parse, print → reparse to the same
/// tree, and — where ptxas 13.0.88 assembles the original — the whole pipeline's PTX
/// (`copyscope run F --from ptx --emit ptx`) assembles too. Prints the counts.
#[test]
fn real_ptx_parses_round_trips_and_assembles_through_the_pipeline() {
    use compiler_core::pipeline::{self, InputFormat, RunOptions};
    use compiler_core::stages::IrKind;
    let ptxas = support::ptxas::ptxas();
    let real = support::real_ptx_files();
    assert!(real.len() >= 49, "{} real-ptx files", real.len());
    let mut files = real.clone();
    files.extend(ptx_files());
    let (mut parsed, mut round_tripped, mut originals_ok, mut assembled) = (0, 0, 0, 0);
    // Files GeneralOptimize left as they were, and of those the ones whose cubin is
    // byte-identical to the original's.
    // (ptxas names a demoted `.shared` variable `$___name__N` after the line its
    // declaration stands on: our PTX keeps the original's line layout, so N stays; with
    // `.loc` line info it embeds the PTX lines themselves, which ptx-out gives back as
    // the source spelled them.)
    let (mut unchanged, mut identical) = (0, 0);
    let mut different = Vec::new();
    let mut refused = Vec::new();
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(f).unwrap();
        let m = match ptx::parse_bytes(&bytes) {
            Ok(m) => m,
            Err(e) => {
                refused.push(name.clone());
                eprintln!("refused {name}: {}:{}: {}", e.line, e.col, e.message);
                continue;
            }
        };
        parsed += 1;
        let printed = ptx::print(&m);
        match ptx::parse(&printed) {
            Ok(m2) if m2 == m => round_tripped += 1,
            Ok(_) => failures.push(format!("{name}: reparse gives another tree")),
            Err(e) => failures.push(format!("{name}: reprint does not parse: {e}")),
        }
        let Some(px) = ptxas else { continue };
        let arch = arch_for(&m);
        // `-c` as `check-originals.sh` uses it; PTX ISA before 3.1 refuses `-c`, and
        // those originals are tried whole-program instead.
        let with_c = assemble(px, &bytes, &arch, "orig", true);
        let c = with_c.is_ok();
        let orig_cubin = match with_c.or_else(|_| assemble(px, &bytes, &arch, "orig", false)) {
            Ok(cubin) => cubin,
            Err(_) => continue,
        };
        originals_ok += 1;
        let opts = RunOptions {
            from: Some(InputFormat::Ptx),
            emit: Some(IrKind::Ptx),
            ..Default::default()
        };
        let text = std::str::from_utf8(&bytes).map_or_else(|_| ptx::print(&m), str::to_string);
        let out = match pipeline::run(&text, &opts) {
            Ok(r) => r.output,
            Err(e) => {
                failures.push(format!("{name}: pipeline: {e}"));
                continue;
            }
        };
        match assemble(px, out.as_bytes(), &arch, "ours", c) {
            Ok(cubin) => {
                assembled += 1;
                if lowered_and_printed(&m).as_deref() == Some(out.as_str()) {
                    unchanged += 1;
                    if cubin == orig_cubin {
                        identical += 1;
                    } else {
                        different.push(name.clone());
                    }
                }
            }
            Err(e) => failures.push(format!("{name}: ptxas rejects our output: {e}")),
        }
    }
    eprintln!(
        "PTX coverage: {} files ({} real-ptx): parsed {parsed}, round-tripped {round_tripped}, \
         originals ptxas assembles {originals_ok}, our pipeline output assembles {assembled}; \
         GeneralOptimize changed nothing in {unchanged}, cubin byte-identical {identical}, \
         different: {different:?}",
        files.len(),
        real.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
    let expected: Vec<&str> = NOT_PARSED.iter().map(|e| e.0).collect();
    assert_eq!(
        refused, expected,
        "update NOT_PARSED and docs/ptx-coverage.md"
    );
    assert_eq!(round_tripped, parsed);
    assert_eq!(parsed, files.len());
    if ptxas.is_some() {
        assert_eq!(assembled, originals_ok);
        // 34 real-ptx originals with `-c`, 7 more whole-program (PTX ISA < 3.1), and
        // the 41 other corpus files (measured: 82).
        assert!(originals_ok >= 82, "{originals_ok}");
        // Byte for byte, the `-lineinfo` files (whose cubin embeds the PTX lines)
        // included.
        assert!(different.is_empty(), "cubins differ: {different:?}");
        assert_eq!(identical, unchanged);
        assert!(unchanged >= 58, "{unchanged}");
    }
}
