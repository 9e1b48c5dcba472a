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
/// has the same table). ptxas 13.0.88 refuses every one of these originals too.
const NOT_PARSED: [(&str, &str); 9] = [
    (
        "cuobjdump-nvcc-fluidsgl-texture-sm52.ptx",
        "cuobjdump's `compile_size = 64bit` header lines before `.version`",
    ),
    (
        "nvcc102-raymarching-debug-G.ptx",
        "not UTF-8 (a Latin-1 byte in a `.section` string)",
    ),
    (
        "nvopencc22-ocelot-sdk-bicubic-texture-sm10.ptx",
        "module-level `.reg .u32 %ra<17>;`",
    ),
    (
        "nvopencc22-ocelot-sdk-simple-vote-sm12.ptx",
        "module-level `.reg .u32 %ra<17>;`",
    ),
    (
        "nvopencc31-ocelot-indirect-call.ptx",
        "`.func` declarations without `;` or body",
    ),
    (
        "nvopencc31-ocelot-sdk-particles-texture.ptx",
        "`.func` declarations without `;` or body",
    ),
    (
        "nvopencc40-ocelot-rodinia-mummergpu.ptx",
        "`.func` declarations without `;` or body",
    ),
    (
        "nvvm-opencl-fuzigrad-matmul-sm86.ptx",
        "a NUL byte at the end of the file",
    ),
    (
        "optix2-ocelot-runtime-megakernel-materials.ptx",
        "symbol arithmetic as an operand (`$stack+1568`)",
    ),
];

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

/// `ptxas -arch=A -c` on PTX text; Err holds its messages.
fn assemble_c(ptxas: &std::path::Path, text: &[u8], arch: &str, tag: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("copyscope-cov-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{tag}.ptx"));
    std::fs::write(&src, text).unwrap();
    let o = std::process::Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-c")
        .arg("-o")
        .arg("/dev/null")
        .arg(&src)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&src);
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
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
        if assemble_c(px, &bytes, &arch, "orig").is_err() {
            continue;
        }
        originals_ok += 1;
        let opts = RunOptions {
            from: Some(InputFormat::Ptx),
            emit: Some(IrKind::Ptx),
            ..Default::default()
        };
        let out = match pipeline::run(std::str::from_utf8(&bytes).unwrap(), &opts) {
            Ok(r) => r.output,
            Err(e) => {
                failures.push(format!("{name}: pipeline: {e}"));
                continue;
            }
        };
        match assemble_c(px, out.as_bytes(), &arch, "ours") {
            Ok(()) => assembled += 1,
            Err(e) => failures.push(format!("{name}: ptxas rejects our output: {e}")),
        }
    }
    eprintln!(
        "PTX coverage: {} files ({} real-ptx): parsed {parsed}, round-tripped {round_tripped}, \
         originals ptxas assembles {originals_ok}, our pipeline output assembles {assembled}",
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
    if ptxas.is_some() {
        assert_eq!(assembled, originals_ok);
        assert!(originals_ok >= 34 + ptx_files().len() - 4, "{originals_ok}");
    }
}
