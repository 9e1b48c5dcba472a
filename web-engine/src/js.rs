//! The JS API (wasm only): plain functions over `JsValue`, exported under JS names by
//! the engine binary (`src/bin/copyscope-engine.rs`: `run`, `version`, `memoryBytes`)
//! and by the page's (`web-app/src/main.rs`: the table and link functions, which read
//! only what the page's wasm holds anyway; the page joins both into
//! `window.wasmBindings`), and called directly by the wasm tests. Results are
//! laid out as JSON would have them (maps become plain objects, `None` is null):
//! `run`'s built as JS values field by field (the engine's wasm, which exports only
//! `run` of these, then holds no serde encoder for them), the page's listings and links
//! by the one serde back end, `value::Tree`, then built as JS values; arguments are
//! read field by field (`Arg`). No second serde back end (serde-wasm-bindgen) is linked.
//!
//! ```text
//!  run(source, {from, until, only, knobs, verify, steps}) -> {inputFormat, entry,
//!      stages: [{id, stats, steps, changingSteps, functions, remarks, verify, stepList?}],
//!      output}
//!  examples() stages() knobs() encodeLink(state) decodeLink(url) version() memoryBytes()
//! ```
//! Errors are thrown as JS `Error`s; a source error carries `errors: [{line, col,
//! message}]`, a refused link `col`. In the engine's wasm (built without the `dag`
//! feature) `run` of a SelectionDAG answers a Promise: its first stage runs in the DAG
//! wasm (crate::dag_front).

use crate::value::{tree, Value};
use compiler_core::examples::EXAMPLES;
use compiler_core::knobs::{format_value, Knobs, KNOBS};
use compiler_core::pipeline::PipelineError;
use compiler_core::share::{self, Link, LinkState};
use compiler_core::{InputFormat, RunOptions, Stage, STAGES};
use js_sys::{Array, Object, Reflect};
use serde::Serialize;
use wasm_bindgen::JsValue;

fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    Ok(js_value(tree(value).map_err(|e| error(&e))?))
}

/// A [`Value`] as the JS value JSON.parse would give for it.
fn js_value(v: Value) -> JsValue {
    match v {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(b),
        Value::Int(n) => JsValue::from_f64(n as f64),
        Value::Float(x) => JsValue::from_f64(x),
        Value::String(s) => JsValue::from_str(&s),
        Value::Array(items) => items.into_iter().map(js_value).collect::<Array>().into(),
        Value::Object(fields) => {
            let o = Object::new();
            for (k, v) in fields {
                let _ = Reflect::set(&o, &JsValue::from_str(&k), &js_value(v));
            }
            o.into()
        }
    }
}

/// A JS `Error` with `message`.
fn error(message: &str) -> JsValue {
    js_sys::Error::new(message).into()
}

/// A JS `Error` with `message` and an extra property.
fn error_with(message: &str, key: &str, value: JsValue) -> JsValue {
    let e = js_sys::Error::new(message);
    let _ = js_sys::Reflect::set(&e, &JsValue::from_str(key), &value);
    e.into()
}

/// An argument object read field by field; `what` names it in errors (`bad options:
/// `from` is not a string`). A field left out, `undefined` or `null` is absent.
struct Arg<'a> {
    what: &'a str,
    object: JsValue,
}

impl Arg<'_> {
    fn field(&self, key: &str) -> Option<JsValue> {
        let v = Reflect::get(&self.object, &JsValue::from_str(key)).ok()?;
        (!v.is_undefined() && !v.is_null()).then_some(v)
    }

    fn bad(&self, key: &str, wanted: &str) -> JsValue {
        error(&format!("bad {}: `{key}` is not {wanted}", self.what))
    }

    fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        (self.field(key))
            .map(|v| v.as_string().ok_or_else(|| self.bad(key, "a string")))
            .transpose()
    }

    fn bool(&self, key: &str) -> Result<bool, JsValue> {
        (self.field(key))
            .map(|v| v.as_bool().ok_or_else(|| self.bad(key, "a boolean")))
            .transpose()
            .map(|b| b.unwrap_or(false))
    }

    fn strings(&self, key: &str) -> Result<Vec<String>, JsValue> {
        let Some(v) = self.field(key) else {
            return Ok(Vec::new());
        };
        if !Array::is_array(&v) {
            return Err(self.bad(key, "an array of strings"));
        }
        (Array::from(&v).iter())
            .map(|s| {
                s.as_string()
                    .ok_or_else(|| self.bad(key, "an array of strings"))
            })
            .collect()
    }

    fn u32(&self, key: &str) -> Result<Option<u32>, JsValue> {
        let whole = |x: f64| x.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&x);
        (self.field(key))
            .map(|v| {
                (v.as_f64().filter(|&x| whole(x)))
                    .map(|x| x as u32)
                    .ok_or_else(|| self.bad(key, "a whole number"))
            })
            .transpose()
    }
}

/// `run`'s options; every field may be left out.
#[derive(Default)]
struct RunApiOptions {
    from: Option<String>,
    until: Option<String>,
    only: Vec<String>,
    knobs: Option<KnobsArg>,
    verify: bool,
    /// Include every step's kind and narration.
    steps: bool,
}

impl RunApiOptions {
    fn read(options: JsValue) -> Result<RunApiOptions, JsValue> {
        if options.is_undefined() || options.is_null() {
            return Ok(RunApiOptions::default());
        }
        let a = Arg {
            what: "options",
            object: options,
        };
        Ok(RunApiOptions {
            from: a.string("from")?,
            until: a.string("until")?,
            only: a.strings("only")?,
            knobs: a
                .field("knobs")
                .map(|k| KnobsArg::read(&a, k))
                .transpose()?,
            verify: a.bool("verify")?,
            steps: a.bool("steps")?,
        })
    }
}

/// Knobs as `"a=1,b=true"` or `{a: 1, b: true}` (read in name order).
enum KnobsArg {
    Query(String),
    Map(Vec<(String, String)>),
}

impl KnobsArg {
    fn read(a: &Arg<'_>, k: JsValue) -> Result<KnobsArg, JsValue> {
        if let Some(q) = k.as_string() {
            return Ok(KnobsArg::Query(q));
        }
        if !k.is_object() || Array::is_array(&k) {
            return Err(a.bad("knobs", "a string or an object"));
        }
        let mut map = Vec::new();
        for entry in Object::entries(&Object::from(k)).iter() {
            let pair = Array::from(&entry);
            let name = pair.get(0).as_string().unwrap_or_default();
            let value = knob_text(&pair.get(1)).ok_or_else(|| {
                a.bad(&format!("knobs.{name}"), "a boolean, a number or a string")
            })?;
            map.push((name, value));
        }
        // An insertion sort: the knobs are a few dozen at most, and `sort` would be one
        // more instance of the standard sort's code in the engine's wasm.
        for i in 1..map.len() {
            let mut j = i;
            while j > 0 && map[j - 1] > map[j] {
                map.swap(j - 1, j);
                j -= 1;
            }
        }
        Ok(KnobsArg::Map(map))
    }
}

/// A knob's value as the text `Knobs::set_from_str` reads.
fn knob_text(v: &JsValue) -> Option<String> {
    if let Some(b) = v.as_bool() {
        Some(b.to_string())
    } else if let Some(n) = v.as_f64() {
        Some(if n.fract() == 0.0 && n.abs() < 9.0e15 {
            format!("{}", n as i64)
        } else {
            n.to_string()
        })
    } else {
        v.as_string()
    }
}

fn stage_arg(id: &str) -> Result<Stage, JsValue> {
    id.parse::<Stage>().map_err(|e| error(&e.to_string()))
}

/// A plain JS object of `fields`, in order.
fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in fields {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o.into()
}

fn number(n: usize) -> JsValue {
    JsValue::from_f64(n as f64)
}

fn strings(list: &[String]) -> JsValue {
    list.iter()
        .map(|s| JsValue::from_str(s))
        .collect::<Array>()
        .into()
}

/// `run(source, options)`.
pub fn run(source: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let o = RunApiOptions::read(options)?;
    let from = match o.from.as_deref() {
        None | Some("auto") => None,
        Some(f) => Some(
            InputFormat::parse(f)
                .ok_or_else(|| error(&format!("unknown format `{f}`; expected dag, mir or ptx")))?,
        ),
    };
    let mut knobs = Knobs::default();
    match &o.knobs {
        None => {}
        Some(KnobsArg::Query(q)) => {
            knobs = Knobs::from_query(q).map_err(|e| error(&e.to_string()))?;
        }
        Some(KnobsArg::Map(m)) => {
            for (name, value) in m {
                knobs
                    .set_from_str(&format!("{name}={value}"))
                    .map_err(|e| error(&e.to_string()))?;
            }
        }
    }
    let opts = RunOptions {
        from,
        until: o.until.as_deref().map(stage_arg).transpose()?,
        only: o
            .only
            .iter()
            .map(|s| stage_arg(s))
            .collect::<Result<_, _>>()?,
        knobs,
        trace: true,
        verify: o.verify,
        ..RunOptions::default()
    };
    #[cfg(not(feature = "dag"))]
    if crate::dag_front::is_dag(source, opts.from) {
        return run_dag(source, opts, o.steps);
    }
    #[cfg(feature = "dag")]
    let r = compiler_core::pipeline::run(source, &opts);
    #[cfg(not(feature = "dag"))]
    let r = compiler_core::pipeline::run_observed_without_dag(source, &opts, &mut ());
    run_result(&r.map_err(|e| pipeline_error(&e))?, o.steps, None)
}

/// `run` of a DAG input in the engine's wasm: the DAG wasm runs instr-emitter
/// (crate::dag_front), this wasm the rest; a Promise of the same result.
#[cfg(not(feature = "dag"))]
fn run_dag(source: &str, opts: RunOptions, steps: bool) -> Result<JsValue, JsValue> {
    use crate::dag_front::{read_answer, DagJob};
    use wasm_bindgen::prelude::Closure;
    use wasm_bindgen::JsCast;
    let job = DagJob {
        source: source.into(),
        knobs: opts.knobs.to_query(),
        verify: opts.verify,
    };
    let promise = crate::dag_front::emit(&job)?;
    let finish = move |bytes: JsValue| -> Result<JsValue, JsValue> {
        let bytes = (bytes.dyn_into::<js_sys::Uint8Array>())
            .map_err(|_| error("the DAG input path's answer is not bytes"))?;
        let (front, noop) = read_answer(&bytes.to_vec()).map_err(|e| pipeline_error(&e))?;
        let r = compiler_core::pipeline::run_after_dag_front(front, &opts, &mut ())
            .map_err(|e| pipeline_error(&e))?;
        run_result(&r, steps, Some(&noop))
    };
    let mut finish = Some(finish);
    let result =
        js_sys::Promise::new(&mut |resolve: js_sys::Function, reject: js_sys::Function| {
            let Some(finish) = finish.take() else { return };
            let failed = reject.clone();
            let ok = Closure::<dyn FnMut(JsValue)>::once(move |bytes: JsValue| {
                let _ = match finish(bytes) {
                    Ok(v) => resolve.call1(&JsValue::NULL, &v),
                    Err(e) => reject.call1(&JsValue::NULL, &e),
                };
            });
            let err = Closure::<dyn FnMut(JsValue)>::once(move |e: JsValue| {
                let _ = failed.call1(&JsValue::NULL, &e);
            });
            let _ = promise.then2(&ok, &err);
            // Each runs at most once; the other is left.
            ok.forget();
            err.forget();
        });
    Ok(result.into())
}

/// `run`'s result (`{inputFormat, entry, stages, output}`, a stage as the module's
/// sketch shows; `stepList` only when `steps`), built as JS values directly (the
/// engine's wasm then holds no serde encoder for it); `handed` holds the first stage's
/// no-op flags when its steps came from the DAG wasm without their edits.
fn run_result(
    r: &compiler_core::RunResult,
    steps: bool,
    handed: Option<&[bool]>,
) -> Result<JsValue, JsValue> {
    let noop = |k: usize, i: usize, s: &compiler_core::trace::Step| match handed {
        Some(flags) if k == 0 => flags.get(i).copied().unwrap_or(true),
        _ => s.is_noop(),
    };
    let stages = (r.stages.iter().enumerate()).map(|(k, s)| {
        let changing = (s.steps.iter().enumerate())
            .filter(|(i, st)| !noop(k, *i, st))
            .count();
        let functions = (s.functions.iter()).map(|f| {
            object(&[
                ("function", JsValue::from_str(&f.function)),
                ("first", number(f.first)),
                ("count", number(f.count)),
            ])
        });
        let stats = (s.stats.iter()).map(|(k, v)| (k, JsValue::from_f64(v as f64)));
        let verify = match &s.verify {
            None => JsValue::NULL,
            Some(v) if v.is_empty() => JsValue::from_str("ok"),
            Some(v) => strings(v),
        };
        let mut fields = vec![
            ("id", JsValue::from_str(s.stage.id())),
            ("stats", object(&stats.collect::<Vec<_>>())),
            ("steps", number(s.steps.len())),
            ("changingSteps", number(changing)),
            ("functions", functions.collect::<Array>().into()),
            ("remarks", strings(&s.remarks)),
            ("verify", verify),
        ];
        if steps {
            let list = (s.steps.iter().enumerate()).map(|(i, st)| {
                object(&[
                    ("kind", JsValue::from_str(st.kind.as_str())),
                    ("narration", JsValue::from_str(&st.narration.text())),
                    ("changes", JsValue::from_bool(!noop(k, i, &st))),
                ])
            });
            fields.push(("stepList", list.collect::<Array>().into()));
        }
        object(&fields)
    });
    Ok(object(&[
        ("inputFormat", JsValue::from_str(r.input_format.name())),
        ("entry", JsValue::from_str(r.entry.id())),
        ("stages", stages.collect::<Array>().into()),
        ("output", JsValue::from_str(&r.output)),
    ]))
}

/// The error of a failed run: its message, and `errors: [{line, col, message}]`.
fn pipeline_error(e: &PipelineError) -> JsValue {
    let errors = (e.source_errors().into_iter()).map(|e| {
        object(&[
            ("line", JsValue::from_f64(f64::from(e.line))),
            ("col", JsValue::from_f64(f64::from(e.col))),
            ("message", JsValue::from_str(&e.message)),
        ])
    });
    error_with(&e.to_string(), "errors", errors.collect::<Array>().into())
}

#[derive(Serialize)]
struct ExampleApi {
    name: &'static str,
    stage: &'static str,
    format: &'static str,
    summary: String,
    source: &'static str,
}

/// `examples()`.
pub fn examples() -> Result<JsValue, JsValue> {
    let list: Vec<ExampleApi> = EXAMPLES
        .iter()
        .filter_map(|e| {
            let (format, source) = e.text(None)?;
            Some(ExampleApi {
                name: e.name,
                stage: e.stage.id(),
                format: format.name(),
                summary: e.summary(),
                source,
            })
        })
        .collect();
    to_js(&list)
}

#[derive(Serialize)]
struct StageApi {
    id: &'static str,
    phase: Option<u8>,
    input: &'static str,
    output: &'static str,
    summary: &'static str,
    spec: Option<&'static str>,
    implemented: bool,
}

/// `stages()`.
pub fn stages() -> Result<JsValue, JsValue> {
    let list: Vec<StageApi> = STAGES
        .iter()
        .map(|s| StageApi {
            id: s.id,
            phase: s.phase,
            input: s.input.name(),
            output: s.output.name(),
            summary: s.summary,
            spec: s.spec,
            // Every stage is implemented; the field stays for the page's protocol.
            implemented: true,
        })
        .collect();
    to_js(&list)
}

#[derive(Serialize)]
struct KnobApi {
    name: &'static str,
    alias: Option<&'static str>,
    kind: &'static str,
    default: String,
    help: &'static str,
    spec: &'static str,
    stages: Vec<&'static str>,
}

/// `knobs()`.
pub fn knobs() -> Result<JsValue, JsValue> {
    let list: Vec<KnobApi> = KNOBS
        .iter()
        .map(|k| KnobApi {
            name: k.name,
            alias: k.alias,
            kind: k.kind.name(),
            default: format_value(k.kind, k.default),
            help: k.help,
            spec: k.spec,
            stages: k.stages.iter().map(|s| s.id()).collect(),
        })
        .collect();
    to_js(&list)
}

/// A permalink's state as JS sees it.
#[derive(Serialize, Default)]
struct LinkApi {
    /// `state` or `example` (decode only).
    kind: String,
    source: String,
    format: Option<String>,
    /// `name=value,...` of the non-default knobs.
    knobs: String,
    stage: Option<String>,
    step: Option<u32>,
    layout: Option<String>,
    /// The example's name (example links).
    name: Option<String>,
}

impl LinkApi {
    /// The fields `encodeLink` reads (`kind` and `name` are decode's only).
    fn read(state: JsValue) -> Result<LinkApi, JsValue> {
        if !state.is_object() {
            return Err(error("bad state: not an object"));
        }
        let a = Arg {
            what: "state",
            object: state,
        };
        Ok(LinkApi {
            source: a.string("source")?.unwrap_or_default(),
            format: a.string("format")?,
            knobs: a.string("knobs")?.unwrap_or_default(),
            stage: a.string("stage")?,
            step: a.u32("step")?,
            layout: a.string("layout")?,
            ..LinkApi::default()
        })
    }
}

/// `encodeLink(state)`.
pub fn encode_link(state: JsValue) -> Result<String, JsValue> {
    let s = LinkApi::read(state)?;
    let format = match s.format.as_deref() {
        None | Some("auto") => None,
        Some(f) => {
            Some(InputFormat::parse(f).ok_or_else(|| error(&format!("unknown format `{f}`")))?)
        }
    };
    let link = LinkState {
        source: s.source,
        format,
        knobs: Knobs::from_query(&s.knobs).map_err(|e| error(&e.to_string()))?,
        stage: s.stage.as_deref().map(stage_arg).transpose()?,
        step: s.step,
        layout: s.layout,
        pictures: Vec::new(),
    };
    Ok(share::encode_state(&link))
}

/// `decodeLink(url)`.
pub fn decode_link(url: &str) -> Result<JsValue, JsValue> {
    let out = match share::decode(url) {
        Ok(Link::State(s)) => LinkApi {
            kind: "state".into(),
            source: s.source,
            format: s.format.map(|f| f.name().into()),
            knobs: s.knobs.to_query(),
            stage: s.stage.map(|s| s.id().into()),
            step: s.step,
            layout: s.layout,
            name: None,
        },
        Ok(Link::Example(e)) => LinkApi {
            kind: "example".into(),
            name: Some(e.name),
            stage: e.stage.map(|s| s.id().into()),
            step: e.step,
            ..LinkApi::default()
        },
        Err(e) => {
            return Err(error_with(
                &e.to_string(),
                "col",
                JsValue::from_f64(f64::from(e.col)),
            ))
        }
    };
    to_js(&out)
}

/// `memoryBytes()`: this wasm instance's linear memory in bytes (it only grows: the
/// most the engine has held so far).
pub fn memory_bytes() -> f64 {
    crate::memory_bytes() as f64
}
