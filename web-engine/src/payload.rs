//! A step's pass-specific payload as a readable two-column table: the stand-in for the
//! pass pictures until they land (the page's picture panel shows these rows).
//!
//! The rows come from [`Step::payload_rows`], which writes them without serde (the
//! engine wasm then holds no serde encoder of the payloads). The tests build the rows
//! the payload's JSON form gives (through the serde back end `value::Tree`, which the
//! page's listings and links use), and the rows must equal them.

use crate::protocol::PayloadRow;
use compiler_core::trace::Step;

/// Longest value text in a row.
pub(crate) const MAX_VALUE: usize = 2000;

/// The payload's type name and one row per field, in declaration order, as the step's
/// JSON prints them (`step.payload_json()`: some payloads read parts of their step).
pub fn rows(s: &Step) -> (String, Vec<PayloadRow>) {
    let (kind, fields) = s.payload_rows(MAX_VALUE);
    let rows = (fields.into_iter())
        .map(|(key, value)| PayloadRow {
            key: key.into(),
            value: cut(value),
        })
        .collect();
    (kind.into(), rows)
}

/// `text` cut to [`MAX_VALUE`] bytes (on a character boundary) and `…` when longer.
pub(crate) fn cut(mut text: String) -> String {
    if text.len() > MAX_VALUE {
        let mut cut = MAX_VALUE;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::RunRequest;
    use crate::value::json_rows;
    use compiler_core::examples::EXAMPLES;
    use compiler_core::trace::Payload;

    /// The rows test compares against texts cut by this same function, so its cutting
    /// is checked here on its own: a text up to the limit is kept whole; a longer one
    /// keeps the whole characters that fit and ends in `…`, also where a character of
    /// several bytes straddles the limit.
    #[test]
    fn cut_keeps_whole_characters_up_to_the_limit() {
        let fits = "a".repeat(MAX_VALUE);
        assert_eq!(cut(fits.clone()), fits);
        let over = "a".repeat(MAX_VALUE + 1);
        assert_eq!(cut(over), format!("{}…", "a".repeat(MAX_VALUE)));
        // 'é' is 2 bytes: the one at bytes MAX_VALUE-1..MAX_VALUE+1 does not fit.
        let straddles = format!("{}é{}", "a".repeat(MAX_VALUE - 1), "b".repeat(5));
        assert_eq!(cut(straddles), format!("{}…", "a".repeat(MAX_VALUE - 1)));
    }

    fn pairs(rows: Vec<PayloadRow>) -> Vec<(String, String)> {
        rows.into_iter().map(|r| (r.key, r.value)).collect()
    }

    #[test]
    fn fields_become_rows_in_order() {
        let p = Payload::HeapPop {
            copy: 3,
            dst: 7,
            src: 5,
            weight: 2,
            heap: vec![(1, 4), (2, 9)].into(),
            secondary: Vec::new().into(),
        };
        let (kind, rows) = rows(&Step::new("heap_pop", "").payload(p));
        assert_eq!(kind, "heap_pop");
        let want = [
            ("copy", "3"),
            ("dst", "7"),
            ("src", "5"),
            ("weight", "2"),
            ("heap", "(1, 4), (2, 9)"),
            ("secondary", "(none)"),
        ];
        assert_eq!(
            pairs(rows),
            want.map(|(k, v)| (k.to_string(), v.to_string())).to_vec()
        );
        assert_eq!(super::rows(&Step::new("x", "")), ("none".into(), vec![]));
    }

    /// Every payload kind a step can have (its JSON's `type`).
    const KINDS: [&str; 22] = [
        "none",
        "counters",
        "extract_subreg_pair",
        "coalesce_decision",
        "pair_halves",
        "ir_snapshot",
        "live_ranges",
        "tree_change",
        "heap_pop",
        "tied_pair",
        "emitted",
        "go_round",
        "go_mark",
        "go_cost",
        "go_buffer",
        "lowered",
        "emitter_node",
        "emitter_v_reg",
        "emitter_lane",
        "emitter_bit36",
        "emitter_record",
        "emitter_flush",
    ];

    /// The rows of `st` equal, text for text, the rows made from its payload's JSON
    /// form through serde; counts its kind in `seen`.
    fn check(st: &Step, at: &str, seen: &mut std::collections::BTreeMap<String, usize>) {
        let (kind, got) = rows(st);
        let (want_kind, want) = json_rows(&st.payload_json());
        assert_eq!(kind, want_kind, "{at}");
        assert_eq!(pairs(got), pairs(want), "{at}");
        *seen.entry(kind).or_default() += 1;
    }

    /// Payloads of the two kinds no run below makes: the emitter's lanes (a multi-result
    /// node) and its bit-36 test (a glued node that carries the flag).
    fn samples() -> Vec<Step> {
        use compiler_core::trace::{EmitterBit36, RegText};
        let lane = Payload::EmitterLane {
            pseudo: 4,
            pair: 1,
            lanes: 2,
            def: 9,
            src: 7,
            result: 1,
            hint_tied: true,
            hint_early_tied: false,
        };
        let bit36 = |reused: Option<RegText>| EmitterBit36 {
            node: 12,
            guard: "checked",
            flag: true,
            skipped: reused.is_some(),
            reused,
        };
        [
            lane,
            bit36(None).into(),
            bit36(Some(RegText::Named("$texpred".into()))).into(),
            bit36(Some(RegText::Virt(3))).into(),
        ]
        .into_iter()
        .map(|p| Step::new("sample", "").payload(p))
        .collect()
    }

    /// The rows equal the JSON form's rows on every step of every gallery example
    /// (with the generic coalescer off too, and with the CSSA dump), of the NVPTX
    /// coalescer splitting a register pair, and of [`samples`]; together these hold
    /// every payload kind, and rows cut for length.
    #[test]
    fn rows_equal_the_json_forms_rows_on_every_step_of_the_gallery() {
        let pairs = include_str!("../../compiler-core/tests/fixtures/nvptx_pairs/pair-split.mir");
        let inputs = (EXAMPLES.iter())
            .filter_map(|e| Some((e.name, e.text(None)?.1)))
            .chain([("pair-split", pairs)]);
        let mut seen = std::collections::BTreeMap::<String, usize>::new();
        let mut long = 0;
        for (name, source) in inputs {
            for knobs in ["", "join-liveintervals=false", "dump-before-cssa=true"] {
                let req = RunRequest {
                    source: source.into(),
                    knobs: knobs.into(),
                    ..RunRequest::default()
                };
                let (s, _) = crate::Session::run(1, &req, &mut |_| {}).unwrap();
                for stage in &s.result().stages {
                    for (i, st) in stage.steps.iter().enumerate() {
                        let at = format!("{name} {knobs} {} step {i}", stage.stage.id());
                        check(&st, &at, &mut seen);
                        long += rows(&st)
                            .1
                            .iter()
                            .filter(|r| r.value.ends_with('…'))
                            .count();
                    }
                }
            }
        }
        for (i, st) in samples().iter().enumerate() {
            check(st, &format!("sample {i}"), &mut seen);
        }
        let missing: Vec<&str> = (KINDS.iter().copied())
            .filter(|k| !seen.contains_key(*k))
            .collect();
        assert_eq!(missing, Vec::<&str>::new(), "kinds no step has: {seen:?}");
        assert!(seen.keys().all(|k| KINDS.contains(&k.as_str())), "{seen:?}");
        assert!(long > 0, "no row was cut at {MAX_VALUE} bytes");
    }
}
