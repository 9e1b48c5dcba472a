//! The DAG input path's handover: a SelectionDAG input is read and run through
//! instr-emitter by a wasm of its own (`copyscope-dag`, the `web-dag` crate), which the
//! engine's worker loads the first time a DAG is run; the engine gets back instr-emitter's
//! run and the MIR it left, and runs the other stages itself. The DAG reader, the
//! instruction emitter and the DAG printer's callers stay out of the engine's wasm.
//!
//! ```text
//!  engine (no `dag` feature)        DAG wasm (web-dag)
//!  is_dag(source) ── DagJob bytes ──▶ pipeline::run_dag_front ── HandedFront::new
//!  into_front ◀── Result<HandedFront, HandedError> bytes ─┘
//!    ─▶ DagFront (steps, MIR module) ─▶ pipeline::run_after_dag_front
//! ```
//!
//! The handed steps keep what the engine shows of them (kind, narration, whether they
//! change the IR); instr-emitter's view has no step replay, and its proof is the
//! verifier's (the DAG evaluator is not in the page). The MIR module crosses whole
//! (`trace::module_bytes`, inside the answer's bytes), so the stages after it see the very
//! function the emitter left.
//! Built with the `dag` feature (the default: native tests, the page's in-process
//! engine), the engine runs the DAG path itself and none of this is used.

use crate::protocol::decode;
use compiler_core::pipeline::{DagFront, PipelineError, StageRun};
use compiler_core::stats::Stats;
use compiler_core::trace::module_bytes::{self as bytes, Bytes, Reader};
use compiler_core::trace::Step;
use compiler_core::{InputFormat, SourceError, Stage};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// What the engine asks of the DAG wasm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DagJob {
    pub source: String,
    /// The run's knobs (`Knobs::to_query`).
    pub knobs: String,
    pub verify: bool,
}

/// instr-emitter's run as the DAG wasm hands it back (as bytes: [`answer`]).
#[derive(Clone, Debug)]
pub struct HandedFront {
    pub stats: Vec<(String, u64)>,
    pub steps: Vec<HandedStep>,
    /// The one function's name, first step and step count.
    pub functions: Vec<(String, u32, u32)>,
    pub remarks: Vec<String>,
    pub verify: Option<Vec<String>>,
    pub input: Option<String>,
    pub output: Option<String>,
    /// The MIR module instr-emitter left, as it is (arena indices included: later
    /// stages' steps and payloads name instructions by them), in its byte form
    /// (`trace::module_bytes`: the engine reads it with the trace's byte reader and instruction
    /// unpacker, which it holds anyway, rather than with a serde decoder of the module).
    pub module: Vec<u8>,
}

/// One of instr-emitter's steps: what the engine shows of it.
#[derive(Clone, Debug, PartialEq)]
pub struct HandedStep {
    pub kind: String,
    pub narration: String,
    /// The step changed nothing in the IR.
    pub noop: bool,
}

/// Why the DAG wasm made no front: the input's error at line:column, the verifier's
/// errors on the input, or another reason in words.
#[derive(Clone, Debug, PartialEq)]
pub enum HandedError {
    Parse(u32, u32, String),
    Invalid(Vec<(u32, u32, String)>),
    Failed(String),
}

/// True when `source` (read as `format`, or detected) is a DAG: its run needs the DAG wasm.
pub fn is_dag(source: &str, format: Option<InputFormat>) -> bool {
    format.or_else(|| compiler_core::pipeline::detect_format(source)) == Some(InputFormat::Dag)
}

impl HandedFront {
    /// The DAG wasm's side: `front` as it crosses.
    pub fn new(front: &DagFront) -> HandedFront {
        let run = &front.emitter;
        HandedFront {
            stats: run.stats.iter().map(|(n, v)| (n.into(), v)).collect(),
            steps: (run.steps.iter())
                .map(|s| HandedStep {
                    kind: s.kind.as_str().into(),
                    narration: s.narration.text(),
                    noop: s.is_noop(),
                })
                .collect(),
            functions: (run.functions.iter())
                .map(|f| (f.function.clone(), f.first as u32, f.count as u32))
                .collect(),
            remarks: run.remarks.clone(),
            verify: run.verify.clone(),
            input: run.input.clone(),
            output: run.output.clone(),
            module: bytes::module_bytes(&front.module),
        }
    }

    /// The engine's side: the front again (steps with their kind and narration), and
    /// each step's no-op flag.
    pub fn into_front(self) -> (DagFront, Vec<bool>) {
        let module = bytes::module_from_bytes(&self.module);
        let mut stats = Stats::default();
        for (name, v) in &self.stats {
            stats.set(intern(name), *v);
        }
        let noop = self.steps.iter().map(|s| s.noop).collect();
        let steps = (self.steps.into_iter())
            .map(|s| Step::new(intern(&s.kind), s.narration))
            .collect();
        let functions = (self.functions.into_iter())
            .map(
                |(function, first, count)| compiler_core::pipeline::FunctionSteps {
                    function,
                    first: first as usize,
                    count: count as usize,
                },
            )
            .collect();
        let emitter = StageRun {
            stage: Stage::InstrEmitter,
            stats,
            steps,
            functions,
            remarks: self.remarks,
            verify: self.verify,
            input: self.input,
            output: self.output,
        };
        (DagFront { emitter, module }, noop)
    }
}

fn failed(message: String) -> PipelineError {
    PipelineError::StageFailed {
        stage: Stage::InstrEmitter,
        message,
    }
}

impl HandedError {
    pub fn new(e: &PipelineError) -> HandedError {
        let at = |e: &SourceError| (e.line, e.col, e.message.clone());
        match e {
            PipelineError::Parse(s) => HandedError::Parse(s.line, s.col, s.message.clone()),
            PipelineError::InvalidInput(v) => HandedError::Invalid(v.iter().map(at).collect()),
            other => HandedError::Failed(other.to_string()),
        }
    }

    pub fn into_error(self) -> PipelineError {
        let at = |(l, c, m): (u32, u32, String)| SourceError::new(l, c, m);
        match self {
            HandedError::Parse(l, c, m) => PipelineError::Parse(at((l, c, m))),
            HandedError::Invalid(v) => PipelineError::InvalidInput(v.into_iter().map(at).collect()),
            HandedError::Failed(m) => failed(m),
        }
    }
}

/// The DAG wasm's answer read back: the front and its no-op flags, or the error.
pub fn read_answer(bytes: &[u8]) -> Result<(DagFront, Vec<bool>), PipelineError> {
    match get_answer(&mut Reader::new(bytes)) {
        Some(Ok(front)) => Ok(front.into_front()),
        Some(Err(e)) => Err(e.into_error()),
        None => Err(failed("the DAG input path's answer: no answer".into())),
    }
}

/// The DAG wasm's answer to `job` as bytes (its one export).
pub fn answer(job: &[u8], emit: impl Fn(&DagJob) -> Result<HandedFront, HandedError>) -> Vec<u8> {
    let answer = match decode::<DagJob>(job) {
        Ok(job) => emit(&job),
        Err(e) => Err(HandedError::Failed(e)),
    };
    let mut w = Bytes::default();
    put_answer(&mut w, &answer);
    w.0
}

// The answer's byte form: written with the trace's byte writer (LEB128 numbers, texts,
// lists), which both wasms hold anyway, rather than through serde (the engine then
// links no serde decoder of its own for it):
//
//   answer  0 front | 1 line col message | 2 (line col message)* | 3 message
//   front   stats (name value)*, steps (kind narration noop)*, functions (first count
//           name)*, remarks, verify (0 | 1 texts), input?, output?, module bytes

fn put_opt_text(w: &mut Bytes, t: &Option<String>) {
    w.num(u64::from(t.is_some()));
    if let Some(t) = t {
        w.text(t);
    }
}

fn get_opt_text(r: &mut Reader<'_>) -> Option<String> {
    (r.num() == 1).then(|| r.text())
}

fn put_answer(w: &mut Bytes, a: &Result<HandedFront, HandedError>) {
    let at = |w: &mut Bytes, l: u32, c: u32, m: &str| {
        w.num(l.into());
        w.num(c.into());
        w.text(m);
    };
    match a {
        Ok(f) => {
            w.num(0);
            w.list(&f.stats, |w, (n, v)| {
                w.text(n);
                w.num(*v);
            });
            w.list(&f.steps, |w, s| {
                w.text(&s.kind);
                w.text(&s.narration);
                w.num(s.noop.into());
            });
            w.list(&f.functions, |w, (n, first, count)| {
                at(w, *first, *count, n)
            });
            w.texts(&f.remarks);
            w.num(u64::from(f.verify.is_some()));
            if let Some(v) = &f.verify {
                w.texts(v);
            }
            put_opt_text(w, &f.input);
            put_opt_text(w, &f.output);
            w.bytes(&f.module);
        }
        Err(HandedError::Parse(l, c, m)) => {
            w.num(1);
            at(w, *l, *c, m);
        }
        Err(HandedError::Invalid(v)) => {
            w.num(2);
            w.list(v, |w, (l, c, m)| at(w, *l, *c, m));
        }
        Err(HandedError::Failed(m)) => {
            w.num(3);
            w.text(m);
        }
    }
}

/// What [`put_answer`] wrote (`None`: no bytes, or bytes that start with no answer's tag).
fn get_answer(r: &mut Reader<'_>) -> Option<Result<HandedFront, HandedError>> {
    if r.at_end() {
        return None;
    }
    let at = |r: &mut Reader<'_>| (r.u32(), r.u32(), r.text());
    Some(match r.num() {
        0 => Ok(HandedFront {
            stats: r.list(|r| (r.text(), r.num())),
            steps: r.list(|r| HandedStep {
                kind: r.text(),
                narration: r.text(),
                noop: r.num() == 1,
            }),
            functions: r.list(|r| {
                let (first, count, name) = at(r);
                (name, first, count)
            }),
            remarks: r.texts(),
            verify: (r.num() == 1).then(|| r.texts()),
            input: get_opt_text(r),
            output: get_opt_text(r),
            module: r.bytes().to_vec(),
        }),
        1 => {
            let (l, c, m) = at(r);
            Err(HandedError::Parse(l, c, m))
        }
        2 => Err(HandedError::Invalid(r.list(at))),
        3 => Err(HandedError::Failed(r.text())),
        _ => return None,
    })
}

thread_local! {
    /// Every step kind and counter name handed over so far: a name is leaked once, the
    /// first time it crosses (a few dozen in all), since steps and stats hold `&'static str`.
    static NAMES: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

fn intern(name: &str) -> &'static str {
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some(&n) = names.iter().find(|&&n| n == name) {
            return n;
        }
        let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
        names.push(n);
        n
    })
}

#[cfg(target_family = "wasm")]
mod js {
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// static/lazy-wasm.js (set up by engine-worker.js and index.html): the DAG
        /// wasm's `emit` on a job (postcard bytes), loading that wasm first if need be;
        /// resolves to `Result<HandedFront, HandedError>` bytes.
        #[wasm_bindgen(js_name = copyscopeEmit, catch)]
        fn copyscope_emit(job: &js_sys::Uint8Array) -> Result<js_sys::Promise, JsValue>;
    }

    /// Hands `job` to the DAG wasm.
    pub fn emit(job: &super::DagJob) -> Result<js_sys::Promise, JsValue> {
        let bytes = crate::protocol::encode(job).map_err(|e| JsValue::from_str(&e))?;
        copyscope_emit(&js_sys::Uint8Array::from(bytes.as_slice()))
    }
}

#[cfg(target_family = "wasm")]
pub use js::emit;

#[cfg(test)]
mod tests {
    use super::*;

    fn again(a: &Result<HandedFront, HandedError>) -> Option<Result<HandedFront, HandedError>> {
        let mut w = Bytes::default();
        put_answer(&mut w, a);
        get_answer(&mut Reader::new(&w.0))
    }

    #[test]
    fn every_answer_reads_back_as_written() {
        let front = |verify| HandedFront {
            stats: vec![("copies".into(), 3), ("huge".into(), u64::MAX)],
            steps: vec![
                HandedStep {
                    kind: "emit".into(),
                    narration: "a é".into(),
                    noop: false,
                },
                HandedStep {
                    kind: "glue".into(),
                    narration: String::new(),
                    noop: true,
                },
            ],
            functions: vec![("k".into(), 0, 2)],
            remarks: vec!["r".into()],
            verify,
            input: None,
            output: Some("out".into()),
            module: vec![0, 200, 7],
        };
        let answers = [
            Ok(front(None)),
            Ok(front(Some(vec![]))),
            Ok(front(Some(vec!["bad".into(), "worse".into()]))),
            Err(HandedError::Parse(3, 14, "bogus".into())),
            Err(HandedError::Invalid(vec![
                (1, 2, "x".into()),
                (5, 1, "y".into()),
            ])),
            Err(HandedError::Failed("why".into())),
        ];
        for a in answers {
            assert_eq!(format!("{:?}", again(&a)), format!("{:?}", Some(a)));
        }
        // Bytes that start with no answer's tag are an error, not a panic.
        assert!(read_answer(&[9, 1, 2]).is_err());
        assert!(read_answer(&[]).is_err());
    }
}
