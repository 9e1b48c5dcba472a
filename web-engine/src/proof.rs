//! The proof a stage shows: the verifier's verdict on its output and the interpreter's
//! comparison of its input and output (translation validation), run for real on the
//! functions the stage received and produced.
//!
//! ```text
//!  MIR → MIR stage:  mir::verify(after, level)          interp::Program(before) ┐ same seeded
//!                                                        interp::Program(after)  ┘ inputs × LAUNCHES
//!  ORI → ORI stage:  ori::verify::verify(after)         ori::interp::run_ori(before/after), likewise
//!  ptx-emit:         (no PTX verifier; it reads back)    MIR interpreter vs run_ptx of the printed PTX
//!  ptx-lower:        ori::verify on the ORI               run_ptx(PTX read) vs run_ori(ORI made)
//!  ptx-out:          (no PTX verifier; it reads back)    run_ori(ORI) vs run_ptx(PTX printed)
//!  instr-emitter:    said so (tests/dag_eval_interp.rs compares it natively)
//! ```
//!
//! A launch compares everything the run makes observable (global memory after the
//! launch; for MIR also each thread's return bytes); the page lists each launch with the
//! words it compared. A test-only fault (`RunRequest::fault`, [`break_mir`],
//! [`break_ori`]) erases the output's last store before the checks run, so the page can
//! show what a broken pass looks like. Functions over [`MAX_INTERP_INSTS`] instructions
//! are verified but not interpreted (the answer would wait too long).

use compiler_core::mir::{verify, Function, VerifyLevel};
use compiler_core::mir_interp::{self as interp, Outcome};
use compiler_core::ori::{self, interp as ori_interp};
use compiler_core::{ptx, Stage};
use serde::{Deserialize, Serialize};

/// Seeded launches per function.
pub const LAUNCHES: u64 = 6;
/// Larger functions are verified but not interpreted in the page.
pub const MAX_INTERP_INSTS: usize = 5_000;
/// Instructions all threads of one launch may execute.
const FUEL: u64 = 1 << 20;
/// Words shown per region.
const WORDS: usize = 8;

/// Pass, fail, or no verdict (what the checker cannot model).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    Unknown,
}

/// One checker's verdict, in words, with its details (errors, reasons).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub status: Status,
    pub text: String,
    pub details: Vec<String>,
}

/// One seeded launch of one function on the stage's input and output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launch {
    pub function: String,
    pub seed: u64,
    /// `grid 2×1×1, block 64×1×1`.
    pub shape: String,
    pub equal: bool,
    /// `equal`, `both out-of-fuel`, or where they first differ.
    pub result: String,
    /// What was compared: a region (or return slot) and its first words, before / after.
    pub values: Vec<(String, String, String)>,
}

/// What the page shows for a stage.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proof {
    pub stage: Stage,
    pub verifier: Verdict,
    pub interpreter: Verdict,
    pub launches: Vec<Launch>,
    /// The fault injected into the output before checking (test only), in words.
    pub fault: Option<String>,
}

impl Proof {
    pub fn status(&self) -> Status {
        match (self.verifier.status, self.interpreter.status) {
            (Status::Fail, _) | (_, Status::Fail) => Status::Fail,
            (Status::Pass, Status::Pass) => Status::Pass,
            _ => Status::Unknown,
        }
    }
}

fn verdict(status: Status, text: String, details: Vec<String>) -> Verdict {
    Verdict {
        status,
        text,
        details,
    }
}

/// A stage the page does not check (the instruction emitter: the DAG evaluator is not
/// in the page's engine), or whose output it no longer has.
pub fn across(stage: Stage) -> Proof {
    let why = "not checked in the page: the DAG evaluator is not in the page's engine, or the stage's output was not kept (the native tests compare: tests/dag_eval_interp.rs, tests/mir_ori_agreement.rs)";
    Proof {
        stage,
        verifier: verdict(
            Status::Unknown,
            "not run in the page".into(),
            vec![why.into()],
        ),
        interpreter: verdict(
            Status::Unknown,
            "not run in the page".into(),
            vec![why.into()],
        ),
        launches: Vec::new(),
        fault: None,
    }
}

/// Erases the last store of a MIR function; says what it erased.
pub fn break_mir(f: &mut Function) -> Option<String> {
    let (_, i) = f
        .all_insts()
        .filter(|&(_, i)| is_store(f.insts[i].desc().name))
        .last()?;
    let name = f.insts[i].desc().name;
    f.erase(i);
    Some(format!("erased the last store ({name}) of `{}`", f.name))
}

fn is_store(name: &str) -> bool {
    name.starts_with("ST_") || name.starts_with("STV_") || name.starts_with("StoreRetval")
}

/// Erases the last store of an ORI function; says what it erased.
pub fn break_ori(f: &mut ori::Function) -> Option<String> {
    for b in f.blocks.iter_mut().rev() {
        if let Some(k) = b
            .insts
            .iter()
            .rposition(|&i| f.insts[i].opcode.starts_with("st."))
        {
            let id = b.insts.remove(k);
            return Some(format!(
                "erased the last store ({}) of `{}`",
                f.insts[id].opcode, f.name
            ));
        }
    }
    None
}

/// The proof of a MIR → MIR stage over its functions (input, output).
pub fn mir(stage: Stage, pairs: &[(&Function, &Function)], ir: Option<&str>) -> Proof {
    let level = VerifyLevel::after(stage).unwrap_or(VerifyLevel::PostPhiElim);
    let mut errors = Vec::new();
    for (_, after) in pairs {
        for e in verify(after, level) {
            errors.push(format!("`{}`: {e}", after.name));
        }
    }
    let verifier = checked(errors, &format!("{level:?} rules"));
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
            launches.push(Launch {
                function: before.name.clone(),
                seed,
                shape: shape(l.grid, l.block),
                equal,
                result,
                values,
            });
        }
    }
    Proof {
        stage,
        verifier,
        interpreter: compared(&launches, unknown),
        launches,
        fault: None,
    }
}

/// The proof of an ORI → ORI stage: the ORI verifier on the output module, and the
/// ORI interpreter on the input and output modules.
pub fn ori_stage(stage: Stage, before: &ori::Module, after: &ori::Module) -> Proof {
    let mut errors = Vec::new();
    for f in after.functions() {
        for e in ori::verify::verify(f) {
            errors.push(format!("`{}`: {e}", f.name));
        }
    }
    let cfg = ori_interp::Config { fuel: FUEL };
    let (launches, unknown) = buffer_launches(
        &ori_entries(before),
        &|name, i| ori_interp::run_ori(before, name, i, &cfg).map(|o| o.buffers),
        &|name, i| ori_interp::run_ori(after, name, i, &cfg).map(|o| o.buffers),
    );
    Proof {
        stage,
        verifier: checked(errors, "ORI rules"),
        interpreter: compared(&launches, unknown),
        launches,
        fault: None,
    }
}

/// ptx-lower: the PTX it read against the ORI it made (both run by the ORI
/// interpreter's two independent front ends), and the ORI verifier on the output.
pub fn ptx_to_ori(stage: Stage, before: &ptx::Module, after: &ori::Module) -> Proof {
    // The verifier part of an ORI stage's proof (an empty input runs nothing).
    let mut p = ori_stage(stage, &ori::Module::default(), after);
    let cfg = ori_interp::Config { fuel: FUEL };
    let (launches, unknown) = buffer_launches(
        &ori_entries(after),
        &|name, i| ori_interp::run_ptx(before, name, i, &cfg).map(|o| o.buffers),
        &|name, i| ori_interp::run_ori(after, name, i, &cfg).map(|o| o.buffers),
    );
    p.interpreter = compared(&launches, unknown);
    p.launches = launches;
    p
}

/// ptx-out: the ORI it received against the PTX it printed (read back).
pub fn ori_to_ptx(stage: Stage, before: &ori::Module, after: &ptx::Module) -> Proof {
    let cfg = ori_interp::Config { fuel: FUEL };
    let (launches, unknown) = buffer_launches(
        &ori_entries(before),
        &|name, i| ori_interp::run_ori(before, name, i, &cfg).map(|o| o.buffers),
        &|name, i| ori_interp::run_ptx(after, name, i, &cfg).map(|o| o.buffers),
    );
    Proof {
        stage,
        verifier: no_ptx_verifier(),
        interpreter: compared(&launches, unknown),
        launches,
        fault: None,
    }
}

/// ptx-emit: the MIR interpreter on the machine function against the ORI interpreter
/// on the PTX printed for it, on the MIR interpreter's inputs; the global memory
/// regions must agree byte for byte.
pub fn mir_to_ptx(stage: Stage, before: &compiler_core::mir::Module, after: &ptx::Module) -> Proof {
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
    Proof {
        stage,
        verifier: no_ptx_verifier(),
        interpreter: compared(&launches, unknown),
        launches,
        fault: None,
    }
}

fn no_ptx_verifier() -> Verdict {
    verdict(
        Status::Unknown,
        "no PTX verifier; the printed PTX reads back".into(),
        vec![
            "PTX is checked by reading it back and, in the native tests, by the real ptxas".into(),
        ],
    )
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
            launches.push(Launch {
                function: name.to_string(),
                seed,
                shape: shape(l.grid, l.block),
                equal,
                result,
                values,
            });
        }
    }
    (launches, unknown)
}

fn checked(errors: Vec<String>, rules: &str) -> Verdict {
    if errors.is_empty() {
        verdict(
            Status::Pass,
            format!("output verified ({rules})"),
            Vec::new(),
        )
    } else {
        let n = errors.len();
        verdict(
            Status::Fail,
            format!("{n} verifier error(s) in the output"),
            errors,
        )
    }
}

fn compared(launches: &[Launch], mut unknown: Vec<String>) -> Verdict {
    let differ = launches.iter().filter(|l| !l.equal).count();
    let n = launches.len();
    // Launches where both sides stopped the same way (out of fuel, a bad address) agree
    // but compared no memory: counted apart.
    let ran = launches.iter().filter(|l| l.result == "equal").count();
    let alike = n - differ - ran;
    if differ > 0 {
        let first = launches.iter().find(|l| !l.equal).expect("counted");
        let text = format!(
            "results differ on {differ} of {n} launches (first: `{}` seed {}: {})",
            first.function, first.seed, first.result
        );
        return verdict(Status::Fail, text, unknown);
    }
    if ran == 0 {
        if let Some(l) = launches.first() {
            unknown.push(format!("`{}`: {}", l.function, l.result));
        }
        let text = match (unknown.first(), alike) {
            (Some(u), _) => u.clone(),
            (None, 0) => "no function to run".into(),
            (None, a) => {
                format!("both sides stopped alike on all {a} launches; no memory compared")
            }
        };
        return verdict(Status::Unknown, text, unknown);
    }
    let mut text = format!("results equal on {ran} launches");
    if alike > 0 {
        text += &format!("; {alike} stopped alike on both sides");
    }
    if unknown.is_empty() {
        verdict(Status::Pass, text, unknown)
    } else {
        text += "; some functions not run";
        verdict(Status::Unknown, text, unknown)
    }
}

fn too_large(name: &str) -> String {
    format!("`{name}`: over {MAX_INTERP_INSTS} instructions, not interpreted in the page")
}

fn ends<T, E: core::fmt::Display>(r: &Result<T, E>) -> String {
    match r {
        Ok(_) => "ran".into(),
        Err(e) => e.to_string(),
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
