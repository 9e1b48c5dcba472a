//! `copyscope link encode ...` and `copyscope link decode URL`: permalinks from the
//! command line (the codec is `compiler_core::share`).
//!
//! `encode` prints `BASE#v1....` (state link) or `BASE#example=NAME...` (gallery link);
//! BASE is `--base` or empty. `decode` prints the header (`format:`, `knobs:`, `stage:`,
//! `step:`, `layout:`), a blank line and the source; `--json` prints one object instead.

use crate::args::Spec;
use crate::input;
use crate::run::{parse_from, parse_knobs, parse_stage};
use crate::{out, CmdResult, Failure};
use compiler_core::examples;
use compiler_core::share::{self, ExampleLink, Link, LinkState};
use serde_json::json;

const ENCODE: Spec = Spec {
    command: "link encode",
    values: &[
        "--from",
        "--stage",
        "--step",
        "--layout",
        "--base",
        "--example",
    ],
    repeated: &["--knob"],
    switches: &[],
};

const DECODE: Spec = Spec {
    command: "link decode",
    values: &[],
    repeated: &[],
    switches: &["--json"],
};

pub fn link(args: &[String]) -> CmdResult {
    match args.first().map(String::as_str) {
        Some("encode") => encode(&args[1..]),
        Some("decode") => decode(&args[1..]),
        Some(other) => Err(Failure::Usage(format!(
            "unknown link command `{other}`; expected `encode` or `decode`"
        ))),
        None => Err(Failure::Usage(
            "`copyscope link` needs `encode` or `decode`".into(),
        )),
    }
}

fn encode(args: &[String]) -> CmdResult {
    let a = ENCODE.parse(args).map_err(Failure::Usage)?;
    let stage = a.value("--stage").map(parse_stage).transpose()?;
    let step = a
        .value("--step")
        .map(|s| {
            s.parse::<u32>()
                .map_err(|_| Failure::Usage(format!("--step needs a number, found `{s}`")))
        })
        .transpose()?;
    let base = a.value("--base").unwrap_or("");
    let base = base.split('#').next().unwrap_or("");
    let fragment = if let Some(name) = a.value("--example") {
        for opt in ["--from", "--layout", "--knob"] {
            if a.value(opt).is_some() || !a.values(opt).is_empty() {
                return Err(Failure::Usage(format!(
                    "{opt} does not go with --example (an example link names the example only)"
                )));
            }
        }
        if let Some(p) = a.positional.first() {
            return Err(Failure::Usage(format!(
                "`link encode --example` takes no FILE; unexpected `{p}`"
            )));
        }
        if examples::find(name).is_none() {
            let names: Vec<&str> = examples::EXAMPLES.iter().map(|e| e.name).collect();
            return Err(Failure::Usage(format!(
                "unknown example `{name}`; available examples: {}",
                if names.is_empty() {
                    "none yet".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
        share::encode_example(&ExampleLink {
            name: name.into(),
            stage,
            step,
        })
    } else {
        let layout = a.value("--layout").map(String::from);
        if let Some(l) = &layout {
            if !share::valid_name(l) {
                return Err(Failure::Usage(format!(
                    "--layout `{l}`: expected a short name of a-z, 0-9, - and _"
                )));
            }
        }
        let state = LinkState {
            format: parse_from(a.value("--from"))?,
            knobs: parse_knobs(&a.values("--knob"))?,
            stage,
            step,
            layout,
            pictures: Vec::new(),
            source: input::read(&input::one_file(&a.positional, "link encode")?)?.text,
        };
        share::encode_state(&state)
    };
    out(&format!("{base}#{fragment}\n"));
    Ok(())
}

fn decode(args: &[String]) -> CmdResult {
    let a = DECODE.parse(args).map_err(Failure::Usage)?;
    let url = input::one_file(&a.positional, "link decode")?;
    let link = share::decode(&url)
        .map_err(|e| Failure::Input(vec![format!("<link>:1:{}: error: {}", e.col, e.message)]))?;
    if a.switch("--json") {
        let v = match &link {
            Link::State(s) => json!({
                "kind": "state",
                "format": s.format.map(|f| f.name()),
                "knobs": s.knobs,
                "stage": s.stage.map(|s| s.id()),
                "step": s.step,
                "layout": s.layout,
                "source": s.source,
            }),
            Link::Example(e) => json!({
                "kind": "example",
                "name": e.name,
                "stage": e.stage.map(|s| s.id()),
                "step": e.step,
            }),
        };
        out(&serde_json::to_string_pretty(&v).unwrap_or_default());
        out("\n");
        return Ok(());
    }
    let mut s = String::new();
    match &link {
        Link::State(st) => {
            if let Some(f) = st.format {
                s.push_str(&format!("format: {}\n", f.name()));
            }
            let q = st.knobs.to_query();
            if !q.is_empty() {
                s.push_str(&format!("knobs: {q}\n"));
            }
            if let Some(x) = st.stage {
                s.push_str(&format!("stage: {}\n", x.id()));
            }
            if let Some(x) = st.step {
                s.push_str(&format!("step: {x}\n"));
            }
            if let Some(x) = &st.layout {
                s.push_str(&format!("layout: {x}\n"));
            }
            s.push('\n');
            s.push_str(&st.source);
        }
        Link::Example(e) => {
            s.push_str(&format!("example: {}\n", e.name));
            if let Some(x) = e.stage {
                s.push_str(&format!("stage: {}\n", x.id()));
            }
            if let Some(x) = e.step {
                s.push_str(&format!("step: {x}\n"));
            }
        }
    }
    out(&s);
    Ok(())
}
