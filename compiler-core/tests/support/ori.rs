//! What the tests that run ORI share: the six GeneralOptimize instances in pipeline
//! order, and the MIR interpreter's inputs in the ORI interpreter's terms.

use compiler_core::interp;
use compiler_core::knobs::Knobs;
use compiler_core::ori;
use compiler_core::ori_interp;
use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
use compiler_core::ptx;
use compiler_core::ptxas::general_optimize::{self as go, Options, Phase};
use compiler_core::stats::Stats;
use compiler_core::trace::NoTrace;

/// The six GeneralOptimize instances in pipeline order (13, 29, 37, 46, 58, 65).
pub const PHASES: [Phase; 6] = [
    Phase::Early,
    Phase::Standard,
    Phase::Mid,
    Phase::Mid2,
    Phase::Late,
    Phase::Late2,
];

/// The same launch, parameters and buffers for the ORI interpreter.
pub fn convert(i: &interp::Inputs) -> ori_interp::Inputs {
    ori_interp::Inputs {
        launch: i.launch,
        params: i.params.clone(),
        buffers: i
            .buffers
            .iter()
            .map(|r| ori_interp::Buffer {
                base: r.base,
                bytes: r.bytes.clone(),
            })
            .collect(),
    }
}

/// One GeneralOptimize phase alone on the PTX `src` (lowered first), its knob-default
/// options changed by `tweak`: the body's instructions (comments dropped, whitespace
/// collapsed, directives left out) and the stats.
pub fn phase_body(src: &str, phase: Phase, tweak: impl Fn(&mut Options)) -> (Vec<String>, Stats) {
    let p = ptx::parse(src).unwrap();
    let (mut m, _) =
        ptx_lower::run(&p, &PtxLowerOptions::default(), &mut NoTrace::default()).unwrap();
    let mut opts = Options::from_knobs(phase, &Knobs::default());
    tweak(&mut opts);
    let stats = go::run_module(&mut m, &opts, &mut NoTrace::default());
    let body = ori::print::print(&m)
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| l.ends_with(';') && !l.starts_with('.'))
        .collect();
    (body, stats)
}

/// One entry point's outcome on one seed: its name, the seed, and global memory
/// afterwards or the interpreter's message (`unsupported: …` when it models too little).
pub type EntryRun = (String, u64, Result<Vec<ori_interp::Buffer>, String>);

/// Every kernel of `m` run by the ORI interpreter on three seeded random launches
/// (with module-scope variables when `module_vars`), in function order.
pub fn entry_runs(m: &ori::Module, module_vars: bool) -> Vec<EntryRun> {
    let run = if module_vars {
        ori_interp::run_ori_module
    } else {
        ori_interp::run_ori
    };
    let mut out = Vec::new();
    for f in m.functions() {
        if f.is_decl || f.kind != ptx::ast::FuncKind::Entry {
            continue;
        }
        for seed in 0..3u64 {
            let inputs = ori_interp::random_inputs(f.params.as_deref().unwrap_or(&[]), seed);
            let r = run(m, &f.name, &inputs, &ori_interp::Config::default())
                .map(|o| o.buffers)
                .map_err(|e| format!("{e}"));
            out.push((f.name.clone(), seed, r));
        }
    }
    out
}
