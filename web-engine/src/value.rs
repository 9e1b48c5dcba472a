//! The engine's one serde back end: a serializer, [`Tree`], that builds a JSON-shaped
//! [`Value`]. The JS API (`js.rs`) builds its JS values from these; the tests make the
//! payload rows from them as a second opinion on [`crate::payload::rows`].

use crate::payload::MAX_VALUE;
use serde::ser::{self, Serialize};

/// A serialized value, shaped as JSON would have it (objects keep their field order).
#[derive(Debug)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

/// A serde serializer that builds a [`Value`] the way serde_json lays data out: unit
/// and `None` are null, an enum variant with data is a one-entry object named after it,
/// map keys are strings.
struct Tree;

/// `v` as a [`Value`], or why it has none.
#[cfg(target_family = "wasm")]
pub(crate) fn tree<T: ?Sized + Serialize>(v: &T) -> Result<Value, String> {
    v.serialize(Tree).map_err(|e| e.0)
}

#[derive(Debug)]
struct Unsupported(String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Unsupported(msg.to_string())
    }
}

/// A sequence or map being built; `variant` wraps the result as `{variant: result}`.
struct Building {
    items: Vec<Value>,
    fields: Vec<(String, Value)>,
    key: Option<String>,
    variant: Option<&'static str>,
}

impl Building {
    fn new(variant: Option<&'static str>) -> Building {
        Building {
            items: Vec::new(),
            fields: Vec::new(),
            key: None,
            variant,
        }
    }

    fn wrap(variant: Option<&'static str>, v: Value) -> Value {
        match variant {
            Some(name) => Value::Object(vec![(name.to_string(), v)]),
            None => v,
        }
    }

    fn array(self) -> Result<Value, Unsupported> {
        Ok(Building::wrap(self.variant, Value::Array(self.items)))
    }

    fn object(self) -> Result<Value, Unsupported> {
        Ok(Building::wrap(self.variant, Value::Object(self.fields)))
    }

    #[inline(never)]
    fn item<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Unsupported> {
        self.items.push(v.serialize(Tree)?);
        Ok(())
    }

    /// Generic only in serializing the value: the push is one function for every type
    /// (the site's engine wasm holds one copy of it rather than one per field type).
    /// Never inlined, as [`Building::item`]: the derived encoders of what goes through
    /// [`Tree`] (the page's listings and links) call one copy per value type rather
    /// than each holding its own (measured when step payloads still went this way:
    /// -0.5 KB gzip).
    #[inline(never)]
    fn field<T: ?Sized + Serialize>(&mut self, key: &str, v: &T) -> Result<(), Unsupported> {
        let v = v.serialize(Tree)?;
        self.push_field(key, v);
        Ok(())
    }

    #[inline(never)]
    fn push_field(&mut self, key: &str, v: Value) {
        self.fields.push((key.to_string(), v));
    }
}

/// The `serialize_<int>` methods: every integer is a JSON number.
macro_rules! ints {
    ($($method:ident: $t:ty),*) => {$(
        fn $method(self, v: $t) -> Result<Value, Unsupported> {
            Ok(Value::Int(v.into()))
        }
    )*};
}

/// The compound forms (sequences, tuples, maps, structs): each starts a [`Building`],
/// named by its variant where there is one.
macro_rules! compounds {
    ($($method:ident($($arg:ident: $t:ty),*) => $variant:expr;)*) => {
        $(fn $method(self, $($arg: $t),*) -> Result<Building, Unsupported> {
            Ok(Building::new($variant))
        })*
    };
}

impl ser::Serializer for Tree {
    type Ok = Value;
    type Error = Unsupported;
    type SerializeSeq = Building;
    type SerializeTuple = Building;
    type SerializeTupleStruct = Building;
    type SerializeTupleVariant = Building;
    type SerializeMap = Building;
    type SerializeStruct = Building;
    type SerializeStructVariant = Building;

    fn serialize_bool(self, v: bool) -> Result<Value, Unsupported> {
        Ok(Value::Bool(v))
    }
    ints!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64
    );
    fn serialize_f32(self, v: f32) -> Result<Value, Unsupported> {
        Ok(Value::Float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Unsupported> {
        Ok(Value::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, Unsupported> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, Unsupported> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, Unsupported> {
        Ok(Value::Array(
            v.iter().map(|&b| Value::Int(b.into())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Value, Unsupported> {
        Ok(Value::Null)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, v: &T) -> Result<Value, Unsupported> {
        v.serialize(Tree)
    }
    fn serialize_unit(self) -> Result<Value, Unsupported> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value, Unsupported> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value, Unsupported> {
        Ok(Value::String(variant.to_string()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Value, Unsupported> {
        v.serialize(Tree)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Value, Unsupported> {
        Ok(Building::wrap(Some(variant), v.serialize(Tree)?))
    }
    compounds! {
        serialize_seq(_len: Option<usize>) => None;
        serialize_tuple(_len: usize) => None;
        serialize_tuple_struct(_name: &'static str, _len: usize) => None;
        serialize_tuple_variant(_n: &'static str, _i: u32, variant: &'static str, _len: usize)
            => Some(variant);
        serialize_map(_len: Option<usize>) => None;
        serialize_struct(_name: &'static str, _len: usize) => None;
        serialize_struct_variant(_n: &'static str, _i: u32, variant: &'static str, _len: usize)
            => Some(variant);
    }
}

/// Sequences, tuples and tuple variants: each element is the next item of an array.
macro_rules! items {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Building {
            type Ok = Value;
            type Error = Unsupported;
            fn $method<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Unsupported> {
                self.item(v)
            }
            fn end(self) -> Result<Value, Unsupported> {
                self.array()
            }
        }
    )*};
}

items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// Structs and struct variants: each field is the next entry of an object.
macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Building {
            type Ok = Value;
            type Error = Unsupported;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                v: &T,
            ) -> Result<(), Unsupported> {
                self.field(key, v)
            }
            fn end(self) -> Result<Value, Unsupported> {
                self.object()
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Building {
    type Ok = Value;
    type Error = Unsupported;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, k: &T) -> Result<(), Unsupported> {
        self.key = Some(match k.serialize(Tree)? {
            Value::String(s) => s,
            Value::Int(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            other => {
                let mut text = String::new();
                write_value(&mut text, &other, false);
                return Err(Unsupported(format!("a map key that is not text: {text}")));
            }
        });
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> Result<(), Unsupported> {
        let key = self.key.take().unwrap_or_default();
        self.field(&key, v)
    }
    fn end(self) -> Result<Value, Unsupported> {
        self.object()
    }
}

/// A float as JSON writes it: a whole number keeps its `.0`; NaN and infinities, which
/// JSON cannot hold, are null.
fn write_float(out: &mut String, x: f64) {
    use std::fmt::Write;
    if !x.is_finite() {
        out.push('—');
        return;
    }
    let start = out.len();
    let _ = write!(out, "{x}");
    if !out[start..].contains('.') {
        out.push_str(".0");
    }
}

fn write_value(out: &mut String, v: &Value, top: bool) {
    match v {
        Value::Null => out.push('—'),
        Value::Bool(b) => out.push_str(if *b { "yes" } else { "no" }),
        Value::Int(n) => {
            use std::fmt::Write;
            let _ = write!(out, "{n}");
        }
        Value::Float(x) => write_float(out, *x),
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

/// The payload rows as the payload's JSON form gives them: what
/// [`crate::payload::rows`] must equal.
#[cfg(test)]
pub(crate) fn json_rows(p: &impl Serialize) -> (String, Vec<crate::protocol::PayloadRow>) {
    let Ok(Value::Object(map)) = p.serialize(Tree) else {
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
        let value = crate::payload::cut(text);
        out.push(crate::protocol::PayloadRow { key, value });
    }
    (kind, out)
}
