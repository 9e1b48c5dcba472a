//! `copyscope stages`, `copyscope examples`, `copyscope knobs`: the tables the pipeline
//! is built from, as text or `--json`.

use crate::args::Spec;
use crate::{out, CmdResult, Failure};
use compiler_core::examples::EXAMPLES;
use compiler_core::knobs::{format_value, KNOBS};
use compiler_core::STAGES;
use serde_json::json;

fn json_only(command: &'static str) -> Spec {
    Spec {
        command,
        values: &[],
        repeated: &[],
        switches: &["--json"],
    }
}

fn parse(command: &'static str, args: &[String]) -> Result<bool, Failure> {
    let a = json_only(command).parse(args).map_err(Failure::Usage)?;
    if let Some(p) = a.positional.first() {
        return Err(Failure::Usage(format!(
            "`copyscope {command}` takes no arguments; unexpected `{p}`"
        )));
    }
    Ok(a.switch("--json"))
}

fn print_json(v: &serde_json::Value) {
    out(&serde_json::to_string_pretty(v).unwrap_or_default());
    out("\n");
}

pub fn stages(args: &[String]) -> CmdResult {
    if parse("stages", args)? {
        print_json(&serde_json::to_value(STAGES).unwrap_or_default());
        return Ok(());
    }
    let mut s = String::new();
    for st in STAGES.iter() {
        let phase = st.phase.map(|p| format!(" ({p})")).unwrap_or_default();
        s.push_str(&format!(
            "{:<24} {}→{}  {}{}\n",
            st.id,
            st.input.name(),
            st.output.name(),
            st.summary,
            phase
        ));
    }
    out(&s);
    Ok(())
}

pub fn examples(args: &[String]) -> CmdResult {
    let json = parse("examples", args)?;
    if json {
        let list: Vec<_> = EXAMPLES
            .iter()
            .map(|e| {
                json!({
                    "name": e.name,
                    "stage": e.stage.id(),
                    "summary": e.summary(),
                    "forms": e.forms.iter().map(|f| f.0.name()).collect::<Vec<_>>(),
                })
            })
            .collect();
        print_json(&serde_json::Value::Array(list));
        return Ok(());
    }
    if EXAMPLES.is_empty() {
        eprintln!("copyscope: no examples yet");
    }
    let mut s = String::new();
    for e in EXAMPLES {
        let forms: Vec<&str> = e.forms.iter().map(|f| f.0.name()).collect();
        s.push_str(&format!(
            "{:<24} {:<24} [{}]  {}\n",
            e.name,
            e.stage.id(),
            forms.join(","),
            e.summary()
        ));
    }
    out(&s);
    Ok(())
}

pub fn knobs(args: &[String]) -> CmdResult {
    if parse("knobs", args)? {
        let list: Vec<_> = KNOBS
            .iter()
            .map(|k| {
                json!({
                    "name": k.name,
                    "alias": k.alias,
                    "type": k.kind.name(),
                    "default": format_value(k.kind, k.default),
                    "spec_default": k.spec_default,
                    "help": k.help,
                    "spec": k.spec,
                    "stages": k.stages.iter().map(|s| s.id()).collect::<Vec<_>>(),
                })
            })
            .collect();
        print_json(&serde_json::Value::Array(list));
        return Ok(());
    }
    let mut s = String::new();
    for k in KNOBS.iter() {
        s.push_str(&format!(
            "{:<30} {:<12} {:<10} {}\n",
            k.name,
            k.kind.name(),
            format_value(k.kind, k.default),
            k.help
        ));
    }
    out(&s);
    Ok(())
}
