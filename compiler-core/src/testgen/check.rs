//! The whole-pipeline property: run every MIR pass in pipeline order and check, after
//! each, that the verifier is clean at the level the pass leaves and that the
//! interpreter computes what it computed on the input.
//!
//! ```text
//!  input (verify Ssa | PostPhiElim)
//!    └─ phi-elimination ─▶ verify PostPhiElim ─▶ interp == input ?
//!        └─ two-address ─▶ verify PostTwoAddress ─▶ interp == input ?
//!            └─ register-coalescer ─▶ verify PostCoalesce ─▶ interp == input ?
//!                └─ nvptx-coalescer ─▶ verify PostCoalesce ─▶ interp == input ?
//!  with tracing (optional): the traced run leaves the same IR as the untraced one, and
//!  replaying every recorded edit from the stage input reproduces the stage output.
//! ```
//!
//! The interpreter runs one CTA of 32 or 64 threads per seed, so a run stays cheap.

use crate::interp::{self, Config, InterpError, Outcome, Program};
use crate::knobs::Knobs;
use crate::mir::print::print_function;
use crate::mir::verify::{verify, VerifyLevel};
use crate::mir::Function;
use crate::passes::{nvptx_coalescer, phi_elim, register_coalescer, two_address};
use crate::pipeline::{
    nvptx_coalescer_options, phi_elim_options, register_coalescer_options, two_address_options,
};
use crate::stages::Stage;
use crate::stats::Stats;
use crate::trace::{NoTrace, Player, Recorder, ReplayError, StepLog};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// Knob settings the property runs under, each as `name=value` pairs.
pub type KnobSet = &'static [&'static str];

/// The knob combinations a seed picks from (seed modulo the length).
pub const KNOB_SETS: &[KnobSet] = &[
    &[],
    &["optnone=true"],
    &["twoaddr-reschedule=false"],
    &["dataflow-edge-limit=0", "terminal-rule=false"],
    &["join-splitedges=true", "join-globalcopies=true"],
    &["copy-limit=3", "coalesce-limit=2"],
    &["block-frequency=true", "large-interval-size-threshold=2"],
    &["join-liveintervals=false"],
];

/// How to check one function.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// Interpreter input seeds per stage.
    pub seeds: u32,
    /// Knob settings (`name=value`).
    pub knobs: Vec<String>,
    /// Also run each pass traced: the same output, and the trace replays to it.
    pub trace: bool,
    /// Interpreter fuel per run.
    pub fuel: u64,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            seeds: 3,
            knobs: Vec::new(),
            trace: false,
            fuel: 1 << 20,
        }
    }
}

/// What a successful check saw.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Interpreter runs per stage output (input included) that completed.
    pub runs_ok: u32,
    /// Runs where the input itself failed (out of fuel, bad address): compared by kind.
    pub runs_failed: u32,
    /// Stats of each stage, in order.
    pub stats: Vec<(Stage, Stats)>,
    /// Trace steps recorded (tracing on).
    pub steps: usize,
}

/// Why a check failed: which stage, what went wrong, and the IR before and after.
#[derive(Clone, Debug)]
pub struct CheckFailure {
    /// None: the input itself (verifier or interpreter could not take it).
    pub stage: Option<Stage>,
    pub what: String,
    pub before: String,
    pub after: String,
}

impl fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.stage {
            Some(s) => writeln!(f, "after {s}: {}", self.what)?,
            None => writeln!(f, "input: {}", self.what)?,
        }
        writeln!(f, "--- before ---\n{}", self.before)?;
        if !self.after.is_empty() {
            writeln!(f, "--- after ---\n{}", self.after)?;
        }
        Ok(())
    }
}

/// The MIR stages in pipeline order.
pub const MIR_STAGES: [Stage; 4] = [
    Stage::PhiElimination,
    Stage::TwoAddress,
    Stage::RegisterCoalescer,
    Stage::NvptxCoalescer,
];

fn run_pass<R: Recorder>(stage: Stage, f: &mut Function, k: &Knobs, rec: &mut R) -> Stats {
    match stage {
        Stage::PhiElimination => phi_elim::run(f, &phi_elim_options(k), rec),
        Stage::TwoAddress => two_address::run(f, &two_address_options(k), rec),
        Stage::RegisterCoalescer => register_coalescer::run(f, &register_coalescer_options(k), rec),
        Stage::NvptxCoalescer => nvptx_coalescer::run(f, &nvptx_coalescer_options(k), rec),
        _ => Stats::default(),
    }
}

/// A failure at `stage` (None: the input), with the IR before and, if any, after.
fn failure(
    stage: Option<Stage>,
    what: String,
    before: &Function,
    after: Option<&Function>,
) -> CheckFailure {
    CheckFailure {
        stage,
        what,
        before: print_function(before),
        after: after.map(print_function).unwrap_or_default(),
    }
}

/// Checks `input` through every MIR stage from its entry (phi-elimination for SSA with
/// PHIs, two-address otherwise).
pub fn check(input: &Function, cfg: &CheckConfig) -> Result<CheckReport, CheckFailure> {
    let mut knobs = Knobs::default();
    for k in &cfg.knobs {
        knobs
            .set_from_str(k)
            .map_err(|e| failure(None, format!("knob `{k}`: {e}"), input, None))?;
    }
    let level = if input.props.is_ssa {
        VerifyLevel::Ssa
    } else {
        VerifyLevel::PostPhiElim
    };
    let errs = verify(input, level);
    if !errs.is_empty() {
        return Err(failure(None, describe(&errs), input, None));
    }
    let stages: &[Stage] = if input.props.is_ssa {
        &MIR_STAGES
    } else {
        &MIR_STAGES[1..]
    };
    let mut report = CheckReport::default();
    let mut outputs: Vec<(Stage, Function)> = Vec::new();
    let mut f = input.clone();
    for &stage in stages {
        let before = f.clone();
        let stats = run_pass(stage, &mut f, &knobs, &mut NoTrace::default());
        let level = VerifyLevel::after(stage).unwrap_or(VerifyLevel::PostCoalesce);
        let errs = verify(&f, level);
        if !errs.is_empty() {
            return Err(failure(Some(stage), describe(&errs), &before, Some(&f)));
        }
        if cfg.trace {
            report.steps += check_trace(stage, &before, &f, &knobs)?;
        }
        report.stats.push((stage, stats));
        outputs.push((stage, f.clone()));
    }
    check_interpreter(input, &outputs, cfg, &mut report)?;
    Ok(report)
}

/// The pass at `stage` run traced from `before`: it leaves `after` (what the untraced
/// run left), its trace replays to `after`, and undoing each step gives the replay's
/// function one step earlier. Returns the number of steps.
fn check_trace(
    stage: Stage,
    before: &Function,
    after: &Function,
    knobs: &Knobs,
) -> Result<usize, CheckFailure> {
    let fail =
        |what: String, from: &Function, to: Option<&Function>| failure(Some(stage), what, from, to);
    let mut traced = before.clone();
    let mut log = StepLog::default();
    run_pass(stage, &mut traced, knobs, &mut log);
    let want = print_function(after);
    if want != print_function(&traced) {
        let what = "tracing on changed what the pass did";
        return Err(fail(what.into(), after, Some(&traced)));
    }
    let no_replay = |e: ReplayError| fail(format!("trace does not replay: {e:?}"), before, None);
    let player = Player::new(before, &log.steps).map_err(no_replay)?;
    let end = player.seek(log.steps.len()).map_err(no_replay)?;
    if print_function(&end) != want {
        let what = "replaying the trace does not reproduce the pass output";
        return Err(fail(what.into(), after, Some(&end)));
    }
    // Back to the input by undoing every step, one at a time (up to a step that
    // cannot be undone: a split edge, a LiveFlags rule).
    let mut back = end;
    let cp = player.checkpoints();
    for n in (0..log.steps.len()).rev() {
        if log.steps.step(n).edits.iter().any(|e| {
            matches!(
                e,
                crate::trace::Edit::SplitEdge { .. } | crate::trace::Edit::LiveFlags { .. }
            )
        }) {
            break;
        }
        let undone = cp.walk(&log.steps, n + 1, n, &mut back).and_then(|()| {
            player
                .seek(n)
                .map(|want| print_function(&want) == print_function(&back))
        });
        if undone != Ok(true) {
            return Err(fail(
                format!(
                    "undoing step {n} of the trace does not give the replay's function: {undone:?}"
                ),
                before,
                Some(&back),
            ));
        }
    }
    Ok(log.steps.len())
}

/// The interpreter: every stage output computes what the input computes, on
/// `cfg.seeds` random inputs (one CTA each).
fn check_interpreter(
    input: &Function,
    outputs: &[(Stage, Function)],
    cfg: &CheckConfig,
    report: &mut CheckReport,
) -> Result<(), CheckFailure> {
    let config = Config {
        fuel: cfg.fuel,
        ..Config::default()
    };
    let p_in = Program::compile(input).map_err(|e| {
        let what = format!("the interpreter cannot run the input: {e}");
        failure(None, what, input, None)
    })?;
    let mut programs = Vec::new();
    for (stage, g) in outputs {
        let p = Program::compile(g).map_err(|e| {
            let what = format!("the interpreter cannot run the output: {e}");
            failure(Some(*stage), what, input, Some(g))
        })?;
        programs.push((*stage, g, p));
    }
    for seed in 0..cfg.seeds as u64 {
        let mut inputs = interp::random_inputs(input, None, seed);
        inputs.launch = launch(input, seed);
        let want = p_in.run(&inputs, &config).map(|r| r.outcome);
        match &want {
            Ok(_) => report.runs_ok += 1,
            Err(_) => report.runs_failed += 1,
        }
        let mut prev: &Function = input;
        for (stage, g, p) in &programs {
            let got = p.run(&inputs, &config).map(|r| r.outcome);
            if let Some(why) = differ(&want, &got) {
                let what = format!("interpreter seed {seed}: {why}");
                return Err(failure(Some(*stage), what, prev, Some(g)));
            }
            prev = g;
        }
    }
    Ok(())
}

/// One CTA of 32 or 64 threads by seed; 128 (whole warpgroups) for wgmma.
fn launch(input: &Function, seed: u64) -> interp::Launch {
    let wgmma = input
        .all_insts()
        .any(|(_, i)| input.insts[i].is(crate::mir::Op::WGMMA_M64N32K16_F32));
    let threads = match (wgmma, seed.is_multiple_of(2)) {
        (true, _) => 128,
        (false, true) => 32,
        (false, false) => 64,
    };
    interp::Launch {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
    }
}

fn differ(
    want: &Result<Outcome, InterpError>,
    got: &Result<Outcome, InterpError>,
) -> Option<String> {
    match (want, got) {
        (Ok(a), Ok(b)) if a == b => None,
        (Ok(a), Ok(b)) => Some(interp::describe_difference(a, b)),
        (Err(a), Err(b)) if a.kind() == b.kind() => None,
        (Err(a), Err(b)) => Some(format!("input failed ({a}), output failed ({b})")),
        (Err(a), Ok(_)) => Some(format!("input failed ({a}), output ran")),
        (Ok(_), Err(b)) => Some(format!("input ran, output failed ({b})")),
    }
}

fn describe(errs: &[crate::mir::VerifyError]) -> String {
    let mut s = format!("{} verifier error(s):", errs.len());
    for e in errs.iter().take(8) {
        s.push_str("\n  ");
        s.push_str(&e.to_string());
    }
    s
}

/// Shrinks a failing function: erases instructions one at a time (kill flags
/// recomputed) while the check still fails the way `same` recognises, until no single
/// erasure keeps the failure. Terminators stay.
pub fn reduce(f: &Function, cfg: &CheckConfig, same: impl Fn(&CheckFailure) -> bool) -> Function {
    let mut cur = f.clone();
    loop {
        let mut progress = false;
        let insts: Vec<crate::mir::Inst> = cur.all_insts().map(|(_, i)| i).collect();
        for i in insts.into_iter().rev() {
            if cur.insts[i].opcode.desc().has(crate::mir::flag::TERMINATOR) {
                continue;
            }
            let mut g = cur.clone();
            g.erase(i);
            crate::liveness::set_kill_flags(&mut g);
            if let Err(e) = check(&g, cfg) {
                if same(&e) {
                    cur = g;
                    progress = true;
                }
            }
        }
        if !progress {
            return cur;
        }
    }
}
