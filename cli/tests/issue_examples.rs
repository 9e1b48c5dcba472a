//! The gallery's acceptance figures, through the command line exactly as a user runs it:
//! `copyscope run --example NAME --until two-address --json`.

mod common;
use common::copyscope;

fn two_address_stats(example: &str, knobs: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "run",
        "--example",
        example,
        "--until",
        "two-address",
        "--json",
        "--no-trace",
    ];
    for k in knobs {
        args.push("--knob");
        args.push(k);
    }
    let out = copyscope(&args, None);
    assert_eq!(out.code, 0, "{example}: {}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let stage = v["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "two-address")
        .expect("two-address ran")
        .clone();
    assert!(
        !v["output"].as_str().unwrap().contains("EXTRACT_SUBREG"),
        "{example}: EXTRACT_SUBREG left"
    );
    stage["stats"].clone()
}

#[test]
fn extract_subreg_examples_give_the_spec_counts() {
    // (example, COPYs, LiveVariables updates, earlyTied hints as the hint bits dictate).
    // Updates: each COPY takes its def over from the pseudo and findKill finds the one
    // source's kill at the pseudo; the last COPY takes that kill: 2 x COPYs + 1.
    for (name, copies, lv, hints) in [
        ("tex-v4f32", 4, 9, 3),
        ("mma-tf32-4frag", 4, 9, 3),
        ("wmma-f16-8frag", 8, 17, 7),
        ("wgmma-16frag", 16, 33, 15),
        ("tma-2result", 2, 5, 0),
        ("async-copy-2result", 2, 5, 1),
    ] {
        let s = two_address_stats(name, &[]);
        assert_eq!(s["extract_subreg_copies"], copies, "{name}");
        assert_eq!(s["lv_updates"], lv, "{name}");
        assert_eq!(s["early_tied_hints"], hints, "{name}");
    }
}

#[test]
fn commute_reschedule_and_optnone() {
    // Commuting puts the dying %2 in the tied slot; ADD has no three-address form, so
    // the tie's COPY still goes in, now reading a value that dies there (the coalescer
    // joins it away).
    let s = two_address_stats("commute", &[]);
    assert_eq!(
        (s["commuted"].as_u64(), s["copies_inserted"].as_u64()),
        (Some(1), Some(1))
    );
    let s = two_address_stats("sub-copy", &[]);
    assert_eq!(s["copies_inserted"], 1);
    let s = two_address_stats("reschedule", &["twoaddr-reschedule=true"]);
    assert_eq!(s["rescheduled"], 1);
    let s = two_address_stats("reschedule", &["twoaddr-reschedule=false"]);
    assert_eq!(s["rescheduled"], 0);
    assert_eq!(s["copies_inserted"], 1);
    let s = two_address_stats("optnone", &[]);
    assert_eq!(s["commuted"], 0);
    let s = two_address_stats("commute", &["optnone=true"]);
    assert_eq!(s["commuted"], 0);
}
