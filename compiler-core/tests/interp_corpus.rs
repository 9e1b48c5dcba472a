//! The interpreter on the real llc-22 corpus: the same functions at successive pipeline
//! stages (SSA with PHIs, after PHI elimination, after two-address, after register
//! coalescing) compute the same results on random inputs.

use compiler_core::interp::{self, Agreement, Config};
use compiler_core::mir::{parse_module, Module};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus")).to_path_buf()
}

fn load(case: &str, stage: &str) -> Option<Module> {
    let p = corpus_dir().join(case).join(stage);
    let text = std::fs::read_to_string(&p).ok()?;
    Some(parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

/// Normal runs of corpus kernels take well under 100k steps; runs whose random trip
/// count is negative (a huge unsigned bound) stop here.
fn config() -> Config {
    Config {
        fuel: 250_000,
        ..Config::default()
    }
}

fn compare_stage(before: &Module, after: &Module, seeds: u64) -> Vec<(String, Agreement)> {
    let mut out = Vec::new();
    for fb in &before.functions {
        let fa = after
            .functions
            .iter()
            .find(|f| f.name == fb.name)
            .unwrap_or_else(|| panic!("{} missing in the later stage", fb.name));
        let ag = interp::compare(fb, fa, before.ir.as_deref(), 0..seeds, &config())
            .unwrap_or_else(|e| panic!("{}: {e}", fb.name));
        out.push((fb.name.clone(), ag));
    }
    out
}

/// The acceptance test: ll_phi_loop's functions in PHI form (2-pre-phielim) and
/// COPY form (3-pre-twoaddr) give identical results on at least 50 random inputs each.
#[test]
fn ll_phi_loop_phi_and_copy_forms_agree() {
    let phi = load("ll_phi_loop", "2-pre-phielim.mir").unwrap();
    let copy = load("ll_phi_loop", "3-pre-twoaddr.mir").unwrap();
    assert_eq!(phi.functions.len(), 3);
    for (name, ag) in compare_stage(&phi, &copy, 64) {
        println!("ll_phi_loop {name}: {ag}");
        assert!(ag.all_agree(), "{name}: {ag}");
        assert!(
            ag.agreed >= 50,
            "{name}: only {} completed runs agree",
            ag.agreed
        );
    }
}

/// Every corpus case, every function with full semantics: stages 2 → 3, 2 → 4 and
/// 2 → 5 agree. Functions with opcodes the interpreter has no semantics for are listed
/// and skipped; at least the cases known to be fully supported must be compared.
#[test]
fn corpus_stages_agree() {
    let mut cases: Vec<String> = std::fs::read_dir(corpus_dir())
        .expect("shared corpus")
        .filter_map(|e| {
            let p = e.ok()?.path();
            p.is_dir()
                .then(|| p.file_name()?.to_str().map(String::from))?
        })
        .filter(|n| !n.starts_with('_'))
        .collect();
    cases.sort();
    let mut compared = Vec::new();
    let mut skipped = Vec::new();
    let mut report = String::new();
    let (mut runs, mut agreed, mut same_error) = (0, 0, 0);
    for case in &cases {
        let Some(pre) = load(case, "2-pre-phielim.mir") else {
            // The non-NVPTX syntax references start at 3-pre-twoaddr.
            if let Some(m) = load(case, "3-pre-twoaddr.mir") {
                for f in &m.functions {
                    let why = interp::check(f).map_or("supported".into(), |e| e.to_string());
                    skipped.push(format!("{case}/{} (no 2-pre-phielim.mir): {why}", f.name));
                }
            }
            continue;
        };
        let mut supported = pre.clone();
        supported.functions.retain(|f| match interp::check(f) {
            None => true,
            Some(e) => {
                skipped.push(format!("{case}/{}: {e}", f.name));
                false
            }
        });
        if supported.functions.is_empty() {
            continue;
        }
        for stage in ["3-pre-twoaddr.mir", "4-twoaddr.mir", "5-coalesced.mir"] {
            let later = load(case, stage).unwrap_or_else(|| panic!("{case}/{stage}"));
            for (name, ag) in compare_stage(&supported, &later, 50) {
                report += &format!("{case}/{name} 2 vs {}: {ag}\n", &stage[..1]);
                runs += ag.runs;
                agreed += ag.agreed;
                same_error += ag.same_error;
                assert!(
                    ag.all_agree(),
                    "{case}/{name}, 2-pre-phielim vs {stage}: {ag}"
                );
                assert!(
                    ag.agreed >= 40,
                    "{case}/{name} vs {stage}: too few completed runs ({ag})"
                );
                compared.push(format!("{case}/{name}"));
            }
        }
    }
    compared.sort();
    compared.dedup();
    println!("{report}");
    println!(
        "{runs} runs over {} function/stage pairs: {agreed} agreed, {same_error} failed alike, 0 differ",
        report.lines().count()
    );
    println!(
        "compared {} functions: {}",
        compared.len(),
        compared.join(", ")
    );
    println!("skipped {} functions:", skipped.len());
    for s in &skipped {
        println!("  {s}");
    }
    for must in [
        "cu_asm_rw/_Z6asm_rwPjj",
        "cu_reduce/_Z10reduce_sumPKfPfi",
        "cu_saxpy/_Z5saxpyifPKfPf",
        "cu_tex2d/_Z9tex_fetchyP6float4if",
        "cu_vec4/_Z10vec4_scalePK6float4PS_fi",
        "cu_many_params/_Z11many_paramsPfPKfffffffffffffffffffffffffffffffffi",
        "ll_asm_rw/asm_rw",
        "ll_pack/pack",
        "ll_phi_loop/phi_loop",
        "ll_phi_loop/fib_swap",
        "ll_phi_loop/diamond_phi",
        "ll_tex/tex_fetch",
        "ll_vec4/vec4",
    ] {
        assert!(
            compared.iter().any(|c| c == must),
            "{must} was not compared"
        );
    }
}

/// Spot checks of what the corpus kernels compute, against values worked out by hand
/// from the kernels' source.
#[test]
fn corpus_kernels_compute_what_their_source_says() {
    use interp::{memory::BUFFER_BASE, Inputs, Launch, Region};
    let m = load("ll_phi_loop", "5-coalesced.mir").unwrap();
    let out = |words: usize| Region {
        name: "out".into(),
        base: BUFFER_BASE,
        bytes: vec![0; 4 * words],
    };
    let one = Launch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
    };
    let run = |name: &str, params: Vec<Vec<u8>>, words: usize, launch: Launch| {
        let f = m.functions.iter().find(|f| f.name == name).unwrap();
        let inputs = Inputs {
            launch,
            params,
            buffers: vec![out(words)],
            symbols: vec![],
        };
        let o = interp::run(f, &inputs, &config()).unwrap().outcome;
        o.global[0]
            .bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect::<Vec<u32>>()
    };
    let ptr = BUFFER_BASE.to_le_bytes().to_vec();
    // phi_loop: sum of 0..n.
    assert_eq!(
        run(
            "phi_loop",
            vec![ptr.clone(), 10u32.to_le_bytes().to_vec()],
            1,
            one
        )[0],
        45
    );
    // fib_swap: after n iterations from (0, 1), two i64 Fibonacci numbers.
    let w = run(
        "fib_swap",
        vec![ptr.clone(), 10u32.to_le_bytes().to_vec()],
        4,
        one,
    );
    assert_eq!((w[0], w[2]), (34, 55));
    // diamond_phi: t < x ? f*2 + (t+7) : (f+1) + t*x, per thread t.
    let launch = Launch {
        grid: [1, 1, 1],
        block: [8, 1, 1],
    };
    let w = run(
        "diamond_phi",
        vec![
            ptr,
            4u32.to_le_bytes().to_vec(),
            1.5f32.to_bits().to_le_bytes().to_vec(),
        ],
        8,
        launch,
    );
    for (t, &v) in w.iter().enumerate() {
        let t = t as f32;
        let want = if t < 4.0 {
            1.5 * 2.0 + (t + 7.0)
        } else {
            1.5 + 1.0 + t * 4.0
        };
        assert_eq!(f32::from_bits(v), want, "thread {t}");
    }
}
