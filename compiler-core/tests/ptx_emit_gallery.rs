//! Gallery examples flow from their entry MIR through PHI elimination, two-address and
//! both coalescers to ptx-emit and PTX. Each
//! example's PTX assembles with ptxas 13.0.88, except where the table's model opcode
//! has no PTX form (an error naming it); wgmma raises the target to sm_90a.

mod support;

use compiler_core::passes::ptx_emit::{self, PtxEmitOptions};
use compiler_core::ptx;
use compiler_core::trace::NoTrace;
use std::path::Path;

#[test]
fn gallery_examples_reach_ptx_that_assembles() {
    let ptxas = support::ptxas::ptxas();
    let mut report = Vec::new();
    for p in support::gallery_files() {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let m = support::gallery_coalesced(&p);
        let wgmma = name.starts_with("wgmma");
        let opts = PtxEmitOptions {
            sm: 90,
            ptx_version: None,
        };
        match ptx_emit::run(&m, &opts, &mut NoTrace::default()) {
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("TMA_LOAD_2D") || msg.contains("CP_ASYNC_CA_SHARED"),
                    "{name}: {msg}"
                );
                report.push(format!("{name}: refused ({})", msg.lines().next().unwrap()));
            }
            Ok((out, _)) => {
                if wgmma {
                    assert_eq!(out.target, ["sm_90a"], "{name}: wgmma needs sm_90a");
                }
                let text = ptx::print(&out);
                if let Some(px) = ptxas {
                    let arch = if wgmma { "90a" } else { "90" };
                    let r = if wgmma {
                        assemble_arch(px, &text, arch)
                    } else {
                        support::ptxas::assemble(px, &text, 90, &name)
                    };
                    if let Err(e) = r {
                        panic!("{name}: {e}\n{text}");
                    }
                }
                let ran = same_before_and_after_lowering(&name, &out);
                report.push(format!(
                    "{name}: assembles (sm_{}); {ran}",
                    if wgmma { "90a" } else { "90" }
                ));
            }
        }
    }
    eprintln!("{report:#?}");
    assert_eq!(report.len(), support::gallery_files().len());
}

/// Runs the PTX and its ORI on random inputs; says how many runs agreed.
fn same_before_and_after_lowering(name: &str, p: &ptx::Module) -> String {
    use compiler_core::ori::interp;
    use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
    let (o, _) = ptx_lower::run(p, &PtxLowerOptions::default(), &mut NoTrace::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut n = 0;
    for f in o.functions() {
        for seed in 0..4 {
            let inputs = interp::random_inputs(f.params.as_deref().unwrap_or(&[]), seed);
            let cfg = interp::Config::default();
            let a = interp::run_ptx(p, &f.name, &inputs, &cfg);
            let b = interp::run_ori(&o, &f.name, &inputs, &cfg);
            assert_eq!(a, b, "{name} seed {seed}");
            if let Err(e) = a {
                return format!("evaluator: {e}");
            }
            n += 1;
        }
    }
    format!("{n} evaluator runs agree before and after ptx-lower")
}

fn assemble_arch(px: &Path, text: &str, arch: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("copyscope-gallery-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("wgmma.ptx");
    std::fs::write(&src, text).unwrap();
    let o = std::process::Command::new(px)
        .arg(format!("-arch=sm_{arch}"))
        .arg(&src)
        .arg("-o")
        .arg(dir.join("wgmma.cubin"))
        .output()
        .unwrap();
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}
