//! The CLI contract of DESIGN.md: subcommands, flags, `--json` shape, exit codes.

mod common;
use common::{copyscope, corpus_dir};
use compiler_core::golden::assert_golden;

fn corpus(case: &str) -> String {
    corpus_dir().join(case).to_str().unwrap().to_string()
}

const SMALL: &[u8] = b"---\nname: k\nbody: |\n  bb.0:\n    %0:b32 = MOV_B32_i 1\n    Return\n...\n";

#[test]
fn usage_errors_exit_2_with_a_message() {
    let phi = corpus("ll_phi_loop/2-pre-phielim.mir");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "usage: copyscope"),
        (vec!["frobnicate"], "unknown command `frobnicate`"),
        (vec!["run"], "needs a FILE"),
        (vec!["run", &phi, &phi], "takes one FILE"),
        (vec!["run", &phi, "--frm", "mir"], "unknown option `--frm`"),
        (vec!["run", &phi, "--from"], "needs a value"),
        (
            vec!["run", &phi, "--from", "llvm"],
            "expected dag, mir or ptx",
        ),
        (
            vec!["run", &phi, "--from", "mir", "--from", "mir"],
            "given twice",
        ),
        (
            vec!["run", &phi, "--until", "two-adress"],
            "unknown stage `two-adress`; valid stages: instr-emitter",
        ),
        (
            vec!["run", &phi, "--only", "two-address,nope"],
            "unknown stage `nope`",
        ),
        (vec!["run", &phi, "--only", ","], "at least one stage"),
        (
            vec![
                "run",
                &phi,
                "--until",
                "two-address",
                "--only",
                "two-address",
            ],
            "cannot be combined",
        ),
        (
            vec!["run", &phi, "--only", "two-address,two-address"],
            "names stage two-address twice",
        ),
        (
            vec!["run", &phi, "--until", "instr-emitter"],
            "before the input's entry stage phi-elimination",
        ),
        (
            vec!["run", &phi, "--knob", "nope=1"],
            "unknown knob `nope`; valid knobs: twoaddr-reschedule",
        ),
        (
            vec!["run", &phi, "--knob", "terminal-rule=maybe"],
            "expected `true` or `false`",
        ),
        (vec!["run", &phi, "--knob", "sm=sm_91"], "sm_90"),
        (vec!["run", &phi, "--knob", "optnone"], "NAME=VALUE"),
        (
            vec!["run", &phi, "--emit", "sass"],
            "expected mir, ptx or trace",
        ),
        (
            vec!["run", &phi, "--emit", "dag"],
            "unknown value `dag` for --emit",
        ),
        (
            vec!["run", &phi, "--emit", "trace", "--no-trace"],
            "needs tracing",
        ),
        (
            vec!["run", "--example", "no-such-example"],
            "unknown example `no-such-example`; available examples: commute, sub-copy",
        ),
        (vec!["run", "--example", "x", &phi], "takes no FILE"),
        (vec!["fmt"], "needs a FILE"),
        (vec!["fmt", &phi, "--json"], "unknown option `--json`"),
        (vec!["stages", "extra"], "takes no arguments"),
        (vec!["stages", "--all"], "unknown option"),
        (vec!["examples", "x"], "takes no arguments"),
        (vec!["link"], "needs `encode` or `decode`"),
        (vec!["link", "share"], "unknown link command"),
        (vec!["link", "decode"], "needs a FILE"),
        (
            vec!["link", "encode", "--example", "no-such-example"],
            "unknown example",
        ),
        (
            vec!["link", "encode", &phi, "--step", "x"],
            "--step needs a number",
        ),
        (
            vec!["link", "encode", &phi, "--layout", "Side By Side"],
            "--layout",
        ),
    ];
    for (args, says) in cases {
        let out = copyscope(&args, None);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(says),
            "{args:?}: {:?} lacks {says:?}",
            out.stderr
        );
        assert!(!out.stderr.contains("panicked"), "{args:?}");
    }
}

#[test]
fn help_goes_to_stdout_and_succeeds() {
    for a in ["--help", "-h", "help"] {
        let out = copyscope(&[a], None);
        assert_eq!(out.code, 0);
        assert!(out.stdout.contains("run <FILE|-> [--from dag|mir|ptx]"));
    }
}

#[test]
fn unreadable_or_unsupported_input_exits_1() {
    let out = copyscope(&["fmt", "/no/such/file.mir"], None);
    assert_eq!(out.code, 1);
    assert!(out
        .stderr
        .starts_with("/no/such/file.mir: error: cannot read"));
    // DAG input is detected and read.
    let dag = std::env::temp_dir().join("copyscope-contract.dag");
    std::fs::write(&dag, "t0: ch,glue = EntryToken\n").unwrap();
    let dag = dag.display().to_string();
    let out = copyscope(&["run", &dag], None);
    assert_eq!(out.code, 1);
    assert_eq!(
        common::diag_position(out.stderr.lines().next().unwrap(), &dag),
        Some((1, 1))
    );
    // Without a block header the DAG reader stops at the first node line.
    assert!(out.stderr.contains("a node line before any block header"));
    // MIR read as a DAG: the DAG reader says where it stops making sense.
    let out = copyscope(&["fmt", "-", "--from", "dag"], Some(SMALL));
    assert_eq!(out.code, 1);
    assert!(out
        .stderr
        .contains("<stdin>:1:1: error: expected a block header"));
}

#[test]
fn stages_lists_the_pipeline_in_order() {
    let out = copyscope(&["stages"], None);
    assert_eq!(out.code, 0);
    let ids: Vec<&str> = out
        .stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "instr-emitter",
            "phi-elimination",
            "two-address",
            "register-coalescer",
            "nvptx-coalescer",
            "ptx-emit",
            "ptx-lower",
            "general-optimize-early",
            "general-optimize",
            "general-optimize-mid",
            "general-optimize-mid2",
            "general-optimize-late",
            "general-optimize-late2",
            "ptx-out",
        ]
    );
    assert_golden(
        format!("{}/tests/golden/stages.txt", env!("CARGO_MANIFEST_DIR")),
        &out.stdout,
    );
    let json = copyscope(&["stages", "--json"], None);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let arr = v.as_array().unwrap();
    assert_eq!(arr.len(), 14);
    assert_eq!(arr[8]["id"], "general-optimize");
    assert_eq!(arr[8]["phase"], 29);
}

#[test]
fn knobs_lists_every_knob_with_its_default() {
    let out = copyscope(&["knobs", "--json"], None);
    assert_eq!(out.code, 0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let find = |n: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|k| k["name"] == n)
            .unwrap_or_else(|| panic!("{n}"))
            .clone()
    };
    assert_eq!(find("twoaddr-reschedule")["default"], "true");
    assert_eq!(find("dataflow-edge-limit")["default"], "3");
    assert_eq!(find("large-interval-freq-threshold")["default"], "256");
    assert_eq!(find("sm")["default"], "target");
    assert_eq!(find("ptxas-opt-level")["default"], "3");
    assert_eq!(find("ptxas-option-474")["default"], "0.25");
    assert_eq!(
        find("ptxas-option-464")["alias"],
        "MergeEquivalentConditionalFlowBudget"
    );
    assert_eq!(find("limit-fold-fp")["default"], "false");
    let text = copyscope(&["knobs"], None);
    assert_golden(
        format!("{}/tests/golden/knobs.txt", env!("CARGO_MANIFEST_DIR")),
        &text.stdout,
    );
}

#[test]
fn examples_lists_the_gallery_and_runs_them() {
    let out = copyscope(&["examples", "--json"], None);
    assert_eq!(out.code, 0);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), compiler_core::examples::EXAMPLES.len());
    let commute = list.iter().find(|e| e["name"] == "commute").unwrap();
    assert_eq!(commute["stage"], "two-address");
    assert_eq!(commute["forms"][0], "mir");
    assert!(commute["summary"].as_str().unwrap().contains("commutative"));
    let text = copyscope(&["examples"], None);
    assert_eq!(text.code, 0);
    assert_eq!(text.stdout.lines().count(), list.len());
    // `run --example` runs the example's text; commute needs no COPY.
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--example",
            "commute",
            "--until",
            "two-address",
            "--json",
        ];
        args.extend_from_slice(extra);
        let r = copyscope(&args, None);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        v["stages"].as_array().unwrap().last().unwrap().clone()
    };
    let last = run(&["--verify"]);
    assert_eq!(last["id"], "two-address");
    assert_eq!(last["stats"]["commuted"], 1);
    // After commuting, the tie's COPY reads the dying source (no 3-address form).
    assert_eq!(last["stats"]["copies_inserted"], 1);
    // With the optnone gate the pass only inserts COPYs.
    let last = run(&["--knob", "optnone=true"]);
    assert_eq!(last["stats"]["commuted"], 0);
    assert!(last["stats"]["copies_inserted"].as_u64().unwrap() >= 1);
    // Knobs reach the coalescers: the budgets of the `limits` example.
    let joined = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "--example",
            "limits",
            "--json",
            "--no-trace",
            "--emit",
            "mir",
        ];
        args.extend_from_slice(extra);
        let r = copyscope(&args, None);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let last = v["stages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["id"], "nvptx-coalescer");
        last["stats"]["joined"].as_u64().unwrap()
    };
    let all = joined(&[]);
    assert!(all > 3, "{all}");
    assert_eq!(joined(&["--knob", "copy-limit=2"]), 2);
    assert_eq!(joined(&["--knob", "coalesce-limit=3"]), 3);
    // Forms the example does not have are a usage error.
    let r = copyscope(&["run", "--example", "commute", "--from", "ptx"], None);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("has no ptx form; its forms: mir"),
        "{}",
        r.stderr
    );
    // Short links name the example.
    let l = copyscope(
        &[
            "link",
            "encode",
            "--example",
            "commute",
            "--stage",
            "two-address",
            "--step",
            "2",
        ],
        None,
    );
    assert_eq!(l.code, 0, "{}", l.stderr);
    assert_eq!(l.stdout, "#example=commute&stage=two-address&step=2\n");
    let d = copyscope(&["link", "decode", l.stdout.trim()], None);
    assert_eq!(d.stdout, "example: commute\nstage: two-address\nstep: 2\n");
}

#[test]
fn json_has_the_contract_shape() {
    let p = format!(
        "{}/../compiler-core/gallery/tex-v4f32.mir",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = copyscope(
        &["run", &p, "--json", "--verify", "--knob", "sm=sm_80"],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON object");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["input_format", "output", "stages"]); // (serde_json sorts them)
                                                            // ... but they are printed in the contract's order.
    let at = |k: &str| out.stdout.find(&format!("\"{k}\"")).unwrap();
    assert!(at("input_format") < at("stages") && at("stages") < at("output"));
    assert_eq!(v["input_format"], "mir");
    let stages = v["stages"].as_array().unwrap();
    assert!(!stages.is_empty());
    assert_eq!(
        stages[0]["id"], "two-address",
        "entry stage of a PHI-free function"
    );
    for st in stages {
        let keys: Vec<&str> = st.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "remarks", "stats", "steps", "verify"]);
        assert_eq!(st["verify"], "ok");
        assert!(st["steps"].is_array() && st["remarks"].is_array());
    }
    let stats = stages[0]["stats"].as_object().unwrap();
    for k in [
        "extract_subreg_pseudos",
        "extract_subreg_copies",
        "early_tied_hints",
        "lv_updates",
        "reg_sequence_eliminated",
        "insert_subreg_rewritten",
        "tied_pairs",
        "commuted",
        "rescheduled",
        "copies_inserted",
    ] {
        assert!(stats[k].is_u64(), "two-address stat {k}");
    }
    // Tracing is on by default: the tex fetch's EXTRACT_SUBREG split is recorded.
    assert!(stats["extract_subreg_copies"].as_u64().unwrap() > 0);
    assert!(!stages[0]["steps"].as_array().unwrap().is_empty());
    // `output` is what the same run prints without --json.
    let plain = copyscope(&["run", &p, "--knob", "sm=sm_80"], None);
    assert_eq!(v["output"].as_str().unwrap(), plain.stdout);
    // Without --verify, "verify" is null; with --no-trace, "steps" is empty.
    let quiet = copyscope(&["run", &p, "--json", "--no-trace"], None);
    let q: serde_json::Value = serde_json::from_str(&quiet.stdout).unwrap();
    assert!(q["stages"][0]["verify"].is_null());
    assert!(q["stages"][0]["steps"].as_array().unwrap().is_empty());
    assert_eq!(q["stages"][0]["stats"], stages[0]["stats"]);
    // The trace form adds each stage's IR before and after, and the function ranges.
    let t = copyscope(&["run", &p, "--emit", "trace", "--knob", "sm=sm_80"], None);
    assert_eq!(t.code, 0, "{}", t.stderr);
    let tv: serde_json::Value = serde_json::from_str(&t.stdout).unwrap();
    assert_eq!(tv["output"], v["output"]);
    let s0 = &tv["stages"][0];
    assert_eq!(s0["id"], "two-address");
    assert_eq!(
        s0["input"].as_str().unwrap(),
        copyscope(&["fmt", &p], None).stdout
    );
    assert_eq!(s0["functions"][0]["function"], "tex_v4f32");
}

#[test]
fn stdin_and_forced_format_work() {
    let out = copyscope(&["run", "-", "--from", "mir", "--emit", "mir"], Some(SMALL));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("%0:b32 = MOV_B32_i 1"));
    let fmt = copyscope(&["fmt", "-", "--from", "mir"], Some(SMALL));
    assert_eq!(fmt.code, 0, "{}", fmt.stderr);
    assert!(fmt.stdout.contains("isSSA:           true"));
}

#[test]
fn links_round_trip_through_the_cli() {
    let p = corpus("ll_phi_loop/2-pre-phielim.mir");
    let enc = copyscope(
        &[
            "link",
            "encode",
            &p,
            "--from",
            "mir",
            "--knob",
            "sm=sm_80",
            "--stage",
            "two-address",
            "--step",
            "4",
            "--layout",
            "side-by-side",
            "--base",
            "https://example.invalid/copyscope/",
        ],
        None,
    );
    assert_eq!(enc.code, 0, "{}", enc.stderr);
    let url = enc.stdout.trim();
    assert!(
        url.starts_with("https://example.invalid/copyscope/#v1."),
        "{url}"
    );
    let dec = copyscope(&["link", "decode", url, "--json"], None);
    assert_eq!(dec.code, 0, "{}", dec.stderr);
    let v: serde_json::Value = serde_json::from_str(&dec.stdout).unwrap();
    assert_eq!(v["kind"], "state");
    assert_eq!(v["format"], "mir");
    assert_eq!(v["knobs"]["sm"], "sm_80");
    assert_eq!(v["stage"], "two-address");
    assert_eq!(v["step"], 4);
    assert_eq!(v["layout"], "side-by-side");
    assert_eq!(
        v["source"].as_str().unwrap(),
        std::fs::read_to_string(&p).unwrap()
    );
    let text = copyscope(&["link", "decode", url], None);
    assert!(text.stdout.starts_with(
        "format: mir\nknobs: sm=sm_80\nstage: two-address\nstep: 4\nlayout: side-by-side\n\n---"
    ));
    // A damaged link is bad input: exit 1 with a column.
    let bad = copyscope(&["link", "decode", "#v1.AB*CD"], None);
    assert_eq!(bad.code, 1);
    assert!(
        bad.stderr
            .starts_with("<link>:1:6: error: unexpected character"),
        "{}",
        bad.stderr
    );
    let bad = copyscope(&["link", "decode", "#v9.AAAA"], None);
    assert_eq!(bad.code, 1);
    assert!(bad.stderr.contains("version 9 is not supported"));
}

/// A stage that cannot handle its input is bad input: exit 1, and the message names
/// the opcode (an `anonymous_N` record the description has no row for; the WMMA
/// kernels' records have rows, found by `isa/anonymous.py`, and print).
#[test]
fn an_opcode_without_a_ptx_form_exits_1_naming_it() {
    let unknown = std::env::temp_dir().join("copyscope-contract-anon.mir");
    std::fs::write(
        &unknown,
        "---\nname: k\nbody: |\n  bb.0:\n    %1:b32 = MOV_B32_i 1\n    %0:b32 = anonymous_99999 %1\n    Return\n...\n",
    )
    .unwrap();
    let file = unknown.display().to_string();
    let case = &file;
    let text = std::fs::read_to_string(&file).unwrap();
    let out = copyscope(&["run", &file, "--only", "ptx-emit", "--emit", "ptx"], None);
    assert_eq!(out.code, 1, "{case}: {}", out.stderr);
    assert!(out.stdout.is_empty(), "{case}");
    let first = out.stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with(&format!("{file}: error: ")), "{first}");
    let named = out
        .stderr
        .split('`')
        .find(|w| w.starts_with("anonymous_"))
        .unwrap_or_else(|| panic!("{case}: no opcode named: {}", out.stderr));
    assert!(text.contains(named), "{case}: {named} is not in the input");
}
