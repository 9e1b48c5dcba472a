//! The payload table's rows against serde_json's view of the same payloads: every step
//! of every gallery example. The rows come from a writer of our own
//! (`Step::payload_rows`: the engine's wasm carries no JSON code nor a serde encoder of
//! the payloads); JSON is the oracle here.

use compiler_core::examples::EXAMPLES;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use web_engine::protocol::RunRequest;
use web_engine::Session;

/// A JSON object's entries in document order (serde_json's `Value` sorts them).
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    out.push(entry);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(Entries)
    }
}

/// The field names in order, and each value as JSON.
fn oracle(json: &str) -> (String, Vec<(String, Value)>) {
    let Ordered(map) = serde_json::from_str(json).unwrap();
    let mut kind = String::from("none");
    let mut fields = Vec::new();
    for (k, v) in map {
        if k == "type" {
            kind = v.as_str().unwrap().to_string();
        } else {
            fields.push((k, v));
        }
    }
    (kind, fields)
}

/// What a row's text must say about a JSON value (numbers by value, so that float
/// spelling does not matter; strings, lists and objects by their pieces).
fn agrees(text: &str, v: &Value, top: bool) -> bool {
    match v {
        Value::Null => text == "—",
        Value::Bool(b) => text == if *b { "yes" } else { "no" },
        Value::Number(n) => text.parse::<f64>().ok() == n.as_f64(),
        Value::String(s) if top => text == s,
        Value::String(s) => text == format!("\"{s}\""),
        Value::Array(items) if items.is_empty() => text == "(none)",
        Value::Array(items) => items.iter().all(|i| match i {
            Value::Number(n) => text.contains(&n.to_string().replace(".0", "")),
            Value::String(s) => text.contains(s.as_str()),
            _ => true,
        }),
        Value::Object(map) => map.keys().all(|k| text.contains(&format!("{k}: "))),
    }
}

#[test]
fn rows_agree_with_json_on_every_step_of_the_gallery() {
    let (mut steps, mut rows_seen, mut floats) = (0, 0, 0);
    for e in EXAMPLES {
        let source = e.text(None).unwrap().1;
        let req = RunRequest {
            source: source.into(),
            ..RunRequest::default()
        };
        let (s, _) = Session::run(1, &req, &mut |_| {}).unwrap();
        for stage in &s.result().stages {
            for (i, st) in stage.steps.iter().enumerate() {
                let (kind, rows) = web_engine::payload::rows(&st);
                let json = serde_json::to_string(&st.payload_json()).unwrap();
                let (want_kind, fields) = oracle(&json);
                let at = format!("{} {} step {i}", e.name, stage.stage.id());
                assert_eq!(kind, want_kind, "{at}");
                let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
                let want_keys: Vec<&str> = fields.iter().map(|f| f.0.as_str()).collect();
                assert_eq!(keys, want_keys, "{at}");
                for (row, (_, v)) in rows.iter().zip(&fields) {
                    if row.value.ends_with('…') {
                        continue;
                    }
                    floats += usize::from(v.is_f64());
                    assert!(
                        agrees(&row.value, v, true),
                        "{at}: {} = {} vs {v}",
                        row.key,
                        row.value
                    );
                }
                steps += 1;
                rows_seen += rows.len();
            }
        }
    }
    assert!(
        steps > 1000 && rows_seen > steps,
        "{steps} steps, {rows_seen} rows"
    );
    assert!(floats > 0, "no float field was compared");
}
