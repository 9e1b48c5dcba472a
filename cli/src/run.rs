//! `copyscope run` and `copyscope fmt`.
//!
//! `run` output: the IR after the last stage run (`--emit mir|ptx`, default: whatever the
//! last stage produced); with `--json` one object `{"input_format", "stages": [{"id",
//! "stats", "steps", "remarks", "verify"}], "output"}` where `verify` is `"ok"`, a list of
//! errors, or `null` when `--verify` was not given; `--emit trace` prints that object
//! with each stage's `input`/`output` IR text and `functions` (which steps belong to
//! which function) added.

use crate::args::Spec;
use crate::input::{self, diag, Input};
use crate::{out, CmdResult, Failure};
use compiler_core::examples;
use compiler_core::pipeline::{
    self, FunctionSteps, InputFormat, PipelineError, RunOptions, StageRun,
};
use compiler_core::stages::{IrKind, Stage};
use compiler_core::Knobs;
use serde::Serialize;

const RUN: Spec = Spec {
    command: "run",
    values: &["--from", "--until", "--emit", "--example"],
    repeated: &["--only", "--knob"],
    switches: &["--json", "--verify", "--no-trace"],
};

const FMT: Spec = Spec {
    command: "fmt",
    values: &["--from"],
    repeated: &[],
    switches: &[],
};

pub fn parse_from(v: Option<&str>) -> Result<Option<InputFormat>, Failure> {
    match v {
        None => Ok(None),
        Some(s) => InputFormat::parse(s).map(Some).ok_or_else(|| {
            Failure::Usage(format!(
                "unknown format `{s}` for --from; expected dag, mir or ptx"
            ))
        }),
    }
}

pub fn parse_stage(v: &str) -> Result<Stage, Failure> {
    v.trim()
        .parse::<Stage>()
        .map_err(|e| Failure::Usage(e.to_string()))
}

pub fn parse_knobs(items: &[&str]) -> Result<Knobs, Failure> {
    let mut k = Knobs::default();
    for item in items {
        k.set_from_str(item)
            .map_err(|e| Failure::Usage(format!("--knob {item}: {e}")))?;
    }
    Ok(k)
}

/// Turns a pipeline error into the right exit code and message.
pub fn pipeline_failure(name: &str, e: PipelineError) -> Failure {
    if e.is_usage() {
        Failure::Usage(e.to_string())
    } else {
        let lines: Vec<String> = e.source_errors().iter().map(|s| diag(name, s)).collect();
        if lines.is_empty() {
            // A stage that cannot handle its input (an opcode with no PTX form, ...):
            // the message names what, and where in the function.
            Failure::Input(
                e.to_string()
                    .lines()
                    .enumerate()
                    .map(|(k, l)| {
                        if k == 0 {
                            format!("{name}: error: {l}")
                        } else {
                            l.to_string()
                        }
                    })
                    .collect(),
            )
        } else {
            Failure::Input(lines)
        }
    }
}

/// The input of `run`: a FILE or `--example NAME`.
fn run_input(a: &crate::args::Args, from: &mut Option<InputFormat>) -> Result<Input, Failure> {
    match a.value("--example") {
        Some(name) => {
            if let Some(extra) = a.positional.first() {
                return Err(Failure::Usage(format!(
                    "`run --example` takes no FILE; unexpected `{extra}`"
                )));
            }
            let ex = examples::find(name).ok_or_else(|| {
                let names: Vec<&str> = examples::EXAMPLES.iter().map(|e| e.name).collect();
                Failure::Usage(format!(
                    "unknown example `{name}`; available examples: {}",
                    if names.is_empty() {
                        "none yet".to_string()
                    } else {
                        names.join(", ")
                    }
                ))
            })?;
            let (f, text) = ex.text(*from).ok_or_else(|| {
                let forms: Vec<&str> = ex.forms.iter().map(|f| f.0.name()).collect();
                Failure::Usage(format!(
                    "example `{name}` has no {} form; its forms: {}",
                    from.map_or("", |f| f.name()),
                    forms.join(", ")
                ))
            })?;
            *from = Some(f);
            Ok(Input {
                name: format!("example:{name}"),
                text: text.to_string(),
            })
        }
        None => input::read(&input::one_file(&a.positional, "run")?),
    }
}

pub fn run(args: &[String]) -> CmdResult {
    let a = RUN.parse(args).map_err(Failure::Usage)?;
    let mut from = parse_from(a.value("--from"))?;
    let until = a.value("--until").map(parse_stage).transpose()?;
    let mut only = Vec::new();
    for list in a.values("--only") {
        for id in list.split(',').filter(|s| !s.trim().is_empty()) {
            only.push(parse_stage(id)?);
        }
    }
    if !a.values("--only").is_empty() && only.is_empty() {
        return Err(Failure::Usage("--only needs at least one stage".into()));
    }
    if until.is_some() && !only.is_empty() {
        return Err(Failure::Usage(
            "--until and --only cannot be combined".into(),
        ));
    }
    let knobs = parse_knobs(&a.values("--knob"))?;
    let (emit, emit_trace) = match a.value("--emit") {
        None => (None, false),
        Some("mir") => (Some(IrKind::Mir), false),
        Some("ptx") => (Some(IrKind::Ptx), false),
        Some("trace") => (None, true),
        Some(other) => {
            return Err(Failure::Usage(format!(
                "unknown value `{other}` for --emit; expected mir, ptx or trace"
            )))
        }
    };
    let trace = !a.switch("--no-trace");
    if emit_trace && !trace {
        return Err(Failure::Usage(
            "--emit trace needs tracing; drop --no-trace".into(),
        ));
    }
    let json = a.switch("--json");
    let input = run_input(&a, &mut from)?;

    let opts = RunOptions {
        from,
        until,
        only,
        emit,
        knobs,
        trace,
        verify: a.switch("--verify"),
    };
    let result = pipeline::run_observed(&input.text, &opts, &mut TextsFor(emit_trace))
        .map_err(|e| pipeline_failure(&input.name, e))?;

    if emit_trace {
        let stages: Vec<TraceStage<'_>> = result
            .stages
            .iter()
            .map(|run| TraceStage {
                run,
                input: run.input.as_deref(),
                output: run.output.as_deref(),
                functions: &run.functions,
            })
            .collect();
        print_json(&TraceOut {
            input_format: result.input_format,
            stages,
            output: &result.output,
        })?;
    } else if json {
        print_json(&result)?;
    } else {
        out(&result.output);
    }

    if result.verify_failed() {
        let mut lines = Vec::new();
        for s in &result.stages {
            for e in s.verify.iter().flatten() {
                lines.push(format!(
                    "{}: error: after stage {}: {e}",
                    input.name,
                    s.stage.id()
                ));
            }
        }
        return Err(Failure::Input(lines));
    }
    Ok(())
}

/// Keeps each stage's printed input and output only for `--emit trace`, the one output
/// that shows them: otherwise a traced run printed the whole module twice per stage and
/// threw the texts away (on a 100,000-instruction module of 1,539 functions: 1.5 of the
/// 3.5 s the traced run took over the untraced one, and 240 of its 510 MB).
struct TextsFor(bool);

impl pipeline::Observer for TextsFor {
    fn wants_texts(&mut self, _index: usize, _stage: Stage, _input: &pipeline::Ir) -> bool {
        self.0
    }
}

/// `--emit trace`: the `--json` object with each stage's IR before and after it.
#[derive(Serialize)]
struct TraceOut<'a> {
    input_format: InputFormat,
    stages: Vec<TraceStage<'a>>,
    output: &'a str,
}

#[derive(Serialize)]
struct TraceStage<'a> {
    #[serde(flatten)]
    run: &'a StageRun,
    input: Option<&'a str>,
    output: Option<&'a str>,
    functions: &'a [FunctionSteps],
}

fn print_json<T: Serialize>(v: &T) -> CmdResult {
    let text = serde_json::to_string_pretty(v)
        .map_err(|e| Failure::Input(vec![format!("cannot print JSON: {e}")]))?;
    out(&text);
    out("\n");
    Ok(())
}

pub fn fmt(args: &[String]) -> CmdResult {
    let a = FMT.parse(args).map_err(Failure::Usage)?;
    let from = parse_from(a.value("--from"))?;
    let input = input::read(&input::one_file(&a.positional, "fmt")?)?;
    let (_, ir, _) =
        pipeline::parse_input(&input.text, from).map_err(|e| pipeline_failure(&input.name, e))?;
    out(&ir.print());
    Ok(())
}
