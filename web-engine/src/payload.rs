//! A step's pass-specific payload as a readable two-column table: the stand-in for the
//! pass pictures until they land (the page's picture panel shows these rows).

use crate::protocol::PayloadRow;
use compiler_core::trace::Payload;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;

/// Longest value text in a row.
const MAX_VALUE: usize = 2000;

/// The payload's type name and one row per field, in declaration order.
pub fn rows(p: &Payload) -> (String, Vec<PayloadRow>) {
    // Through JSON text, so the top-level fields keep their declaration order (a
    // `serde_json::Value` map would sort them).
    let Ok(Ordered(map)) = serde_json::to_string(p)
        .map_err(|_| ())
        .and_then(|json| serde_json::from_str::<Ordered>(&json).map_err(|_| ()))
    else {
        return ("none".into(), Vec::new());
    };
    let mut kind = String::from("none");
    let mut out = Vec::new();
    for (key, v) in map {
        if key == "type" {
            if let Value::String(s) = v {
                kind = s;
            }
            continue;
        }
        let mut text = String::new();
        write_value(&mut text, &v, true);
        if text.len() > MAX_VALUE {
            let mut cut = MAX_VALUE;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push('…');
        }
        out.push(PayloadRow { key, value: text });
    }
    (kind, out)
}

/// A JSON object's entries in document order.
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

fn write_value(out: &mut String, v: &Value, top: bool) {
    match v {
        Value::Null => out.push('—'),
        Value::Bool(b) => out.push_str(if *b { "yes" } else { "no" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) if top => out.push_str(s),
        Value::String(s) => {
            out.push('"');
            out.push_str(s);
            out.push('"');
        }
        Value::Array(items) => {
            if items.is_empty() {
                out.push_str("(none)");
                return;
            }
            let tuple = !top;
            if tuple {
                out.push('(');
            }
            for (k, item) in items.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                write_value(out, item, false);
                if out.len() > MAX_VALUE {
                    break;
                }
            }
            if tuple {
                out.push(')');
            }
        }
        Value::Object(map) => {
            out.push('{');
            for (k, (key, item)) in map.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(key);
                out.push_str(": ");
                write_value(out, item, false);
                if out.len() > MAX_VALUE {
                    break;
                }
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_become_rows_in_order() {
        let p = Payload::HeapPop {
            copy: 3,
            dst: 7,
            src: 5,
            weight: 2,
            heap: vec![(1, 4), (2, 9)],
            secondary: vec![],
        };
        let (kind, rows) = rows(&p);
        assert_eq!(kind, "heap_pop");
        let got: Vec<(String, String)> = rows.into_iter().map(|r| (r.key, r.value)).collect();
        let want = [
            ("copy", "3"),
            ("dst", "7"),
            ("src", "5"),
            ("weight", "2"),
            ("heap", "(1, 4), (2, 9)"),
            ("secondary", "(none)"),
        ];
        assert_eq!(
            got,
            want.map(|(k, v)| (k.to_string(), v.to_string())).to_vec()
        );
        assert_eq!(super::rows(&Payload::None), ("none".into(), vec![]));
    }
}
