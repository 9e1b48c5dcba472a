//! The proof a stage shows: the verifier's verdict on its output and the interpreter's
//! comparison of its input and output (translation validation), run for real on the
//! functions the stage received and produced.
//!
//! The work is split across two wasm files. The engine (this module) runs the verifier on
//! the output it holds and packs a [`ProofJob`]: that verdict, the fault, and the stage's
//! input and output as the interpreters need them ([`Check`]: MIR as its text, which
//! reads back to the same functions; ORI and PTX modules as they are). The interpreters
//! are in the `web-proof` crate, whose own wasm the engine's worker loads the first time
//! a proof is wanted (`static/engine-worker.js`); its [`web_proof::prove`] fills in the
//! interpreter's verdict and the launches. Natively (tests) the two run one after the
//! other. What each stage compares:
//!
//! ```text
//!  MIR → MIR stage:  mir::verify(after, level)          interp::Program(before) ┐ same seeded
//!                                                        interp::Program(after)  ┘ inputs × LAUNCHES
//!  ORI → ORI stage:  ori::verify::verify(after)         ori_interp::run_ori(before/after), likewise
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

use compiler_core::mir::{print::print_module, verify, Function, Module, VerifyLevel};
use compiler_core::{ori, ptx, Stage};
use serde::{Deserialize, Serialize};

/// Seeded launches per function.
pub const LAUNCHES: u64 = 6;
/// Larger functions are verified but not interpreted in the page.
pub const MAX_INTERP_INSTS: usize = 5_000;
/// Instructions all threads of one launch may execute.
pub const FUEL: u64 = 1 << 20;

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

pub fn verdict(status: Status, text: String, details: Vec<String>) -> Verdict {
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
        .filter(|&(_, i)| is_store(f.insts[i].table_name()))
        .last()?;
    let name = f.insts[i].table_name();
    f.erase(i);
    Some(format!("erased the last store ({name}) of `{}`", f.name))
}

fn is_store(name: &str) -> bool {
    name.starts_with("ST_") || name.starts_with("STV_") || name.starts_with("StoreRetval")
}

/// Erases the last store of an ORI function; says what it erased.
pub fn break_ori(f: &mut ori::Function) -> Option<String> {
    for b in f.blocks.values_mut().rev() {
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

/// What the proof wasm runs the interpreters on: a stage's input and output.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Check {
    /// MIR → MIR: the input module (with its LLVM IR document) and the output's
    /// functions, as MIR text (`print(parse(x))` is a fixpoint; the functions read back
    /// are the ones printed). Functions pair up by position.
    Mir { before: String, after: String },
    /// ORI → ORI: the modules the stage received and made.
    Ori {
        before: Box<ori::Module>,
        after: Box<ori::Module>,
    },
    /// ptx-lower: the PTX it read against the ORI it made.
    PtxOri {
        before: Box<ptx::Module>,
        after: Box<ori::Module>,
    },
    /// ptx-out: the ORI it received against the PTX text it printed.
    OriPtx {
        before: Box<ori::Module>,
        after: String,
    },
    /// ptx-emit: the machine functions (MIR text, as for [`Check::Mir`]) against the
    /// PTX text printed for them.
    MirPtx { before: String, after: String },
}

/// A stage's proof as far as the engine takes it (the verifier's verdict, the fault),
/// and what the proof wasm runs to finish it; `check` is None when there is nothing
/// to interpret (the proof is final).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ProofJob {
    pub proof: Proof,
    pub check: Option<Check>,
}

/// The job of `check`, or the finished proof when every function in it (`sizes`:
/// name, instructions) is too large to interpret: then the proof wasm is not even
/// loaded, and the page gets the proof with the stage's first view.
fn job(stage: Stage, verifier: Verdict, check: Check, sizes: &[(&str, usize)]) -> ProofJob {
    if !sizes.is_empty() && sizes.iter().all(|&(_, n)| n > MAX_INTERP_INSTS) {
        let unknown = sizes.iter().map(|&(name, _)| too_large(name)).collect();
        return done(Proof {
            stage,
            verifier,
            interpreter: compared(&[], unknown),
            launches: Vec::new(),
            fault: None,
        });
    }
    let pending = verdict(
        Status::Unknown,
        "not run yet".into(),
        vec!["the interpreters run in the proof wasm (web-proof)".into()],
    );
    ProofJob {
        proof: Proof {
            stage,
            verifier,
            interpreter: pending,
            launches: Vec::new(),
            fault: None,
        },
        check: Some(check),
    }
}

/// A job with nothing to run: the proof is `p`.
pub fn done(p: Proof) -> ProofJob {
    ProofJob {
        proof: p,
        check: None,
    }
}

/// A MIR → MIR stage over its functions (input, output): the verifier here, the
/// functions as text for the interpreter.
pub fn mir(stage: Stage, pairs: &[(&Function, &Function)], ir: Option<&str>) -> ProofJob {
    let level = VerifyLevel::after(stage).unwrap_or(VerifyLevel::PostPhiElim);
    let mut errors = Vec::new();
    for (_, after) in pairs {
        for e in verify(after, level) {
            errors.push(format!("`{}`: {e}", after.name));
        }
    }
    let verifier = checked(errors, &format!("{level:?} rules"));
    let module = |ir: Option<&str>, fs: Vec<Function>| {
        print_module(&Module {
            ir: ir.map(String::from),
            functions: fs,
        })
    };
    let sizes: Vec<_> = (pairs.iter())
        .map(|(b, a)| (b.name.as_str(), b.num_insts().max(a.num_insts())))
        .collect();
    let before = module(ir, pairs.iter().map(|(b, _)| (*b).clone()).collect());
    let after = module(None, pairs.iter().map(|(_, a)| (*a).clone()).collect());
    job(stage, verifier, Check::Mir { before, after }, &sizes)
}

/// The defined functions of an ORI module and their instruction counts (the functions
/// the ORI interpreter would run).
fn ori_sizes(m: &ori::Module) -> Vec<(&str, usize)> {
    (m.functions())
        .filter(|f| !f.is_decl)
        .map(|f| (f.name.as_str(), f.insts.len()))
        .collect()
}

/// The ORI verifier's verdict on a module's functions.
fn ori_verifier(m: &ori::Module) -> Verdict {
    let mut errors = Vec::new();
    for f in m.functions() {
        for e in ori::verify::verify(f) {
            errors.push(format!("`{}`: {e}", f.name));
        }
    }
    checked(errors, "ORI rules")
}

/// An ORI → ORI stage: the ORI verifier on the output module here; the ORI
/// interpreter on the input and output modules in the proof wasm.
pub fn ori_stage(stage: Stage, before: ori::Module, after: ori::Module) -> ProofJob {
    let verifier = ori_verifier(&after);
    let sizes: Vec<(String, usize)> = (ori_sizes(&before).into_iter())
        .map(|(name, n)| (name.to_string(), n))
        .collect();
    let sizes: Vec<(&str, usize)> = sizes.iter().map(|(s, n)| (s.as_str(), *n)).collect();
    let (before, after) = (Box::new(before), Box::new(after));
    job(stage, verifier, Check::Ori { before, after }, &sizes)
}

/// ptx-lower: the PTX it read against the ORI it made (both run by the ORI
/// interpreter's two independent front ends), and the ORI verifier on the output.
pub fn ptx_to_ori(stage: Stage, before: &ptx::Module, after: &ori::Module) -> ProofJob {
    let check = Check::PtxOri {
        before: Box::new(before.clone()),
        after: Box::new(after.clone()),
    };
    job(stage, ori_verifier(after), check, &ori_sizes(after))
}

/// ptx-out: the ORI it received against the PTX it printed (read back).
pub fn ori_to_ptx(stage: Stage, before: &ori::Module, after: &str) -> ProofJob {
    let check = Check::OriPtx {
        before: Box::new(before.clone()),
        after: after.into(),
    };
    job(stage, no_ptx_verifier(), check, &ori_sizes(before))
}

/// ptx-emit: the MIR interpreter on the machine functions against the ORI interpreter
/// on the PTX printed for them (read back).
pub fn mir_to_ptx(stage: Stage, before: &Module, after: &str) -> ProofJob {
    let sizes: Vec<_> = (before.functions.iter())
        .map(|f| (f.name.as_str(), f.num_insts()))
        .collect();
    let check = Check::MirPtx {
        before: print_module(before),
        after: after.into(),
    };
    job(stage, no_ptx_verifier(), check, &sizes)
}

pub fn no_ptx_verifier() -> Verdict {
    verdict(
        Status::Unknown,
        "no PTX verifier; the printed PTX reads back".into(),
        vec![
            "PTX is checked by reading it back and, in the native tests, by the real ptxas".into(),
        ],
    )
}

pub fn checked(errors: Vec<String>, rules: &str) -> Verdict {
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

/// The interpreter's verdict over the launches made, with what could not be run.
pub fn compared(launches: &[Launch], mut unknown: Vec<String>) -> Verdict {
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

pub fn too_large(name: &str) -> String {
    format!("`{name}`: over {MAX_INTERP_INSTS} instructions, not interpreted in the page")
}
