//! The interpreters' half of a stage's proof, in its own wasm (`copyscope-proof`,
//! `src/bin/copyscope-proof.rs`) that the engine's worker loads the first time a proof
//! is wanted: the engine runs the verifier and packs a [`ProofJob`]
//! (`web_engine::proof`); [`prove`] runs the MIR interpreter (`compiler_core::mir_interp`)
//! and the ORI/PTX interpreter (`compiler_core::ori_interp`) on the stage's input and
//! output, [`LAUNCHES`] seeded launches per function, and fills in the interpreter's
//! verdict and the launches. Keeping them here keeps them out of the engine's wasm.
//!
//! ```text
//!  Check::Mir     MIR text → parse_module ─ interp::Program(before) ┐ same seeded
//!                                            interp::Program(after)  ┘ inputs × LAUNCHES
//!  Check::Ori     run_ori(before) vs run_ori(after)         (the ORI interpreter's inputs)
//!  Check::PtxOri  run_ptx(PTX read) vs run_ori(ORI made)
//!  Check::OriPtx  run_ori(ORI) vs run_ptx(PTX printed, read back)
//!  Check::MirPtx  MIR interpreter vs run_ptx(PTX printed), on the MIR interpreter's inputs
//! ```
//!
//! A launch compares everything the run makes observable (global memory after the
//! launch; for MIR also each thread's return bytes); the page lists each launch with the
//! words it compared. Functions over [`MAX_INTERP_INSTS`] instructions are not
//! interpreted (the answer would wait too long).

use compiler_core::mir::{parse::parse_module, Function, Module};
use compiler_core::mir_interp::{self as interp, Outcome};
use compiler_core::ptx;
use compiler_core::{ori, ori_interp};
use web_engine::proof::{
    across, compared, too_large, Check, Launch, Proof, ProofJob, FUEL, LAUNCHES, MAX_INTERP_INSTS,
};

/// Words shown per region.
const WORDS: usize = 8;

/// Finishes a stage's proof: the interpreters on the job's input and output.
pub fn prove(job: &ProofJob) -> Proof {
    let mut p = job.proof.clone();
    let Some(check) = &job.check else {
        return p;
    };
    let read_ptx = |text: &str| ptx::parse(text).ok();
    let (launches, unknown) = match check {
        Check::Mir { before, after } => match (parse_module(before), parse_module(after)) {
            (Ok(b), Ok(a)) => {
                let pairs: Vec<_> = b.functions.iter().zip(&a.functions).collect();
                mir(&pairs, b.ir.as_deref())
            }
            (Err(e), _) | (_, Err(e)) => {
                (Vec::new(), vec![format!("the MIR does not read back: {e}")])
            }
        },
        Check::Ori { before, after } => ori_check(before, Side::Ori(before), Side::Ori(after)),
        Check::PtxOri { before, after } => ori_check(after, Side::Ptx(before), Side::Ori(after)),
        Check::OriPtx { before, after } => match read_ptx(after) {
            Some(a) => ori_check(before, Side::Ori(before), Side::Ptx(&a)),
            None => return keep_fault(across(p.stage), &p),
        },
        Check::MirPtx { before, after } => match (parse_module(before), read_ptx(after)) {
            (Ok(b), Some(a)) => mir_to_ptx(&b, &a),
            _ => return keep_fault(across(p.stage), &p),
        },
    };
    p.interpreter = compared(&launches, unknown);
    p.launches = launches;
    p
}

/// `q`, with the fault `p` names.
fn keep_fault(mut q: Proof, p: &Proof) -> Proof {
    q.fault = p.fault.clone();
    q
}

/// A MIR → MIR stage: each pair of functions (input, output) on the same seeded inputs.
fn mir(pairs: &[(&Function, &Function)], ir: Option<&str>) -> (Vec<Launch>, Vec<String>) {
    let mut launches = Vec::new();
    let mut unknown = Vec::new();
    let cfg = interp::Config {
        fuel: FUEL,
        ..interp::Config::default()
    };
    for (before, after) in pairs {
        if before.num_insts().max(after.num_insts()) > MAX_INTERP_INSTS {
            unknown.push(too_large(&before.name));
            continue;
        }
        let (pb, pa) = match (
            interp::Program::compile(before),
            interp::Program::compile(after),
        ) {
            (Ok(b), Ok(a)) => (b, a),
            (Err(e), _) | (_, Err(e)) => {
                unknown.push(format!("`{}`: cannot model {e}", before.name));
                continue;
            }
        };
        for seed in 0..LAUNCHES {
            let inputs = interp::random_inputs(before, ir, seed);
            let l = inputs.launch;
            let rb = pb.run(&inputs, &cfg).map(|r| r.outcome);
            let ra = pa.run(&inputs, &cfg).map(|r| r.outcome);
            let (equal, result, values) = match (&rb, &ra) {
                (Ok(x), Ok(y)) if x == y => (true, "equal".into(), mir_values(x, y)),
                (Ok(x), Ok(y)) => (false, interp::describe_difference(x, y), mir_values(x, y)),
                (Err(x), Err(y)) if x.kind() == y.kind() => {
                    (true, format!("both stop alike: {}", x.kind()), Vec::new())
                }
                (x, y) => (
                    false,
                    format!("before: {}; after: {}", ends(x), ends(y)),
                    Vec::new(),
                ),
            };
            let shape = shape(l.grid, l.block);
            launches.push(launch(&before.name, seed, shape, (equal, result, values)));
        }
    }
    (launches, unknown)
}

/// What the ORI interpreter runs on one side of a stage: ORI, or PTX read by its PTX
/// front end.
#[derive(Clone, Copy)]
enum Side<'a> {
    Ori(&'a ori::Module),
    Ptx(&'a ptx::Module),
}

impl Side<'_> {
    fn run(
        self,
        name: &str,
        inputs: &ori_interp::Inputs,
    ) -> Result<Vec<ori_interp::Buffer>, ori_interp::InterpError> {
        let cfg = ori_interp::Config { fuel: FUEL };
        match self {
            Side::Ori(m) => ori_interp::run_ori(m, name, inputs, &cfg).map(|o| o.buffers),
            Side::Ptx(m) => ori_interp::run_ptx(m, name, inputs, &cfg).map(|o| o.buffers),
        }
    }
}

/// A stage the ORI interpreter checks: `before` against `after`, launching the kernels
/// of `kernels` (the side that is ORI). Used for ORI → ORI stages (GeneralOptimize),
/// ptx-lower (the PTX it read against the ORI it made, by the interpreter's two
/// independent front ends) and ptx-out (the ORI it received against the PTX it printed,
/// read back).
fn ori_check(kernels: &ori::Module, before: Side, after: Side) -> (Vec<Launch>, Vec<String>) {
    buffer_launches(
        &ori_entries(kernels),
        &|name, i| before.run(name, i),
        &|name, i| after.run(name, i),
    )
}

/// ptx-emit: the MIR interpreter on the machine function against the ORI interpreter
/// on the PTX printed for it, on the MIR interpreter's inputs; the global memory
/// regions must agree byte for byte.
fn mir_to_ptx(before: &Module, after: &ptx::Module) -> (Vec<Launch>, Vec<String>) {
    let cfg = ori_interp::Config { fuel: FUEL };
    let mcfg = interp::Config {
        fuel: FUEL,
        ..interp::Config::default()
    };
    let mut launches = Vec::new();
    let mut unknown = Vec::new();
    for f in &before.functions {
        if f.num_insts() > MAX_INTERP_INSTS {
            unknown.push(too_large(&f.name));
            continue;
        }
        let program = match interp::Program::compile(f) {
            Ok(p) => p,
            Err(e) => {
                unknown.push(format!("`{}`: cannot model {e}", f.name));
                continue;
            }
        };
        for seed in 0..LAUNCHES {
            let mi = interp::random_inputs(f, before.ir.as_deref(), seed);
            let oi = ori_interp::Inputs {
                launch: mi.launch,
                params: mi.params.clone(),
                buffers: (mi.buffers.iter())
                    .map(|r| ori_interp::Buffer {
                        base: r.base,
                        bytes: r.bytes.clone(),
                    })
                    .collect(),
            };
            let rb = program.run(&mi, &mcfg).map(|r| r.outcome);
            let ra = ori_interp::run_ptx(after, &f.name, &oi, &cfg);
            if let Some(e) = ra.as_ref().err().filter(|e| seed == 0 && is_unmodelled(e)) {
                unknown.push(format!("`{}`: the PTX: cannot model {e}", f.name));
                break;
            }
            let mut values = Vec::new();
            let (equal, result) = match (&rb, &ra) {
                (Ok(x), Ok(y)) => {
                    let mut same = true;
                    for b in &y.buffers {
                        let r = x.global.iter().find(|r| r.base == b.base);
                        let shown = r.map_or(String::new(), |r| words(&r.bytes));
                        same &= r.is_some_and(|r| r.bytes == b.bytes);
                        let name = r.map_or(format!("{:#x}", b.base), |r| r.name.clone());
                        values.push((name, shown, words(&b.bytes)));
                    }
                    (
                        same,
                        if same {
                            "equal".to_string()
                        } else {
                            "global memory differs".into()
                        },
                    )
                }
                (Err(x), Err(y)) => (false, format!("before: {x}; after: {y}")),
                (x, y) => (false, format!("before: {}; after: {}", ends(x), ends(y))),
            };
            launches.push(Launch {
                function: f.name.clone(),
                seed,
                shape: shape(mi.launch.grid, mi.launch.block),
                equal,
                result,
                values,
            });
        }
    }
    (launches, unknown)
}

fn is_unmodelled(e: &ori_interp::InterpError) -> bool {
    matches!(e, ori_interp::InterpError::Unsupported(_))
}

/// The defined functions of an ORI module with their parameters.
fn ori_entries(m: &ori::Module) -> Vec<(String, Vec<ptx::ast::Param>, usize)> {
    (m.functions())
        .filter(|f| !f.is_decl)
        .map(|f| {
            (
                f.name.clone(),
                f.params.clone().unwrap_or_default(),
                f.insts.len(),
            )
        })
        .collect()
}

type Runner<'a> = &'a dyn Fn(
    &str,
    &ori_interp::Inputs,
) -> Result<Vec<ori_interp::Buffer>, ori_interp::InterpError>;

/// Runs `before` and `after` on the ORI interpreter's seeded inputs for each function;
/// a function either side cannot model is listed instead.
fn buffer_launches(
    fns: &[(String, Vec<ptx::ast::Param>, usize)],
    before: Runner,
    after: Runner,
) -> (Vec<Launch>, Vec<String>) {
    let mut launches = Vec::new();
    let mut unknown = Vec::new();
    for (name, params, insts) in fns {
        if *insts > MAX_INTERP_INSTS {
            unknown.push(too_large(name));
            continue;
        }
        for seed in 0..LAUNCHES {
            let inputs = ori_interp::random_inputs(params, seed);
            let l = inputs.launch;
            let (rb, ra) = (before(name, &inputs), after(name, &inputs));
            if let Some(e) = [&rb, &ra]
                .into_iter()
                .find_map(|r| r.as_ref().err().filter(|e| is_unmodelled(e)))
            {
                unknown.push(format!("`{name}`: cannot model {e}"));
                break;
            }
            let values = match (&rb, &ra) {
                (Ok(x), Ok(y)) => (x.iter().zip(y).enumerate())
                    .map(|(k, (p, q))| (format!("buffer {k}"), words(&p.bytes), words(&q.bytes)))
                    .collect(),
                _ => Vec::new(),
            };
            let (equal, result) = match (&rb, &ra) {
                (Ok(x), Ok(y)) if x == y => (true, "equal".to_string()),
                (Ok(_), Ok(_)) => (false, "global memory differs".to_string()),
                (Err(x), Err(y)) if x.to_string() == y.to_string() => {
                    (true, format!("both stop alike: {x}"))
                }
                (x, y) => (false, format!("before: {}; after: {}", ends(x), ends(y))),
            };
            let shape = shape(l.grid, l.block);
            launches.push(launch(name, seed, shape, (equal, result, values)));
        }
    }
    (launches, unknown)
}

fn ends<T, E: core::fmt::Display>(r: &Result<T, E>) -> String {
    match r {
        Ok(_) => "ran".into(),
        Err(e) => e.to_string(),
    }
}

/// One launch's row: the function, seed and shape, and the verdict (equal or not, in
/// words, and the values compared).
fn launch(
    function: &str,
    seed: u64,
    shape: String,
    (equal, result, values): (bool, String, Vec<(String, String, String)>),
) -> Launch {
    Launch {
        function: function.to_string(),
        seed,
        shape,
        equal,
        result,
        values,
    }
}

fn shape(g: [u32; 3], b: [u32; 3]) -> String {
    format!(
        "grid {}×{}×{}, block {}×{}×{}",
        g[0], g[1], g[2], b[0], b[1], b[2]
    )
}

/// The first [`WORDS`] 32-bit words of `bytes` in hex (and how many bytes in all).
pub fn words(bytes: &[u8]) -> String {
    let mut s: Vec<String> = bytes
        .chunks(4)
        .take(WORDS)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            format!("{:08x}", u32::from_le_bytes(w))
        })
        .collect();
    if bytes.len() > 4 * WORDS {
        s.push(format!("… ({} bytes)", bytes.len()));
    }
    s.join(" ")
}

fn mir_values(x: &Outcome, y: &Outcome) -> Vec<(String, String, String)> {
    let mut v: Vec<_> = x
        .global
        .iter()
        .zip(&y.global)
        .take(4)
        .map(|(p, q)| (p.name.clone(), words(&p.bytes), words(&q.bytes)))
        .collect();
    if let (Some(p), Some(q)) = (x.retvals.first(), y.retvals.first()) {
        v.push(("thread 0 returns".into(), words(p), words(q)));
    }
    v
}
