//! The gallery: named example programs, each in one or more input forms (a DAG to start
//! at the emitter, MIR to start at a later stage). The CLI (`copyscope examples`,
//! `run --example NAME`) and the web app's gallery read this table; short links
//! (`#example=NAME`) name its entries, so names never change once published.
//!
//! The table is empty until the first pass lands with its gallery material.

use crate::pipeline::InputFormat;

/// One gallery entry.
#[derive(Debug)]
pub struct Example {
    /// Stable name (CLI, short links).
    pub name: &'static str,
    /// One line, our own words.
    pub summary: &'static str,
    /// The stage the example is meant to show.
    pub stage: crate::stages::Stage,
    /// The example's text in each form it exists in, preferred form first.
    pub forms: &'static [(InputFormat, &'static str)],
}

/// Every example, in gallery order.
pub static EXAMPLES: &[Example] = &[];

/// The example called `name`.
pub fn find(name: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.name == name)
}

impl Example {
    /// The text in `format`, or in the preferred form when `format` is None.
    pub fn text(&self, format: Option<InputFormat>) -> Option<(InputFormat, &'static str)> {
        match format {
            None => self.forms.first().copied(),
            Some(f) => self.forms.iter().find(|e| e.0 == f).copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_form_parses() {
        for (i, e) in EXAMPLES.iter().enumerate() {
            assert!(EXAMPLES[..i].iter().all(|o| o.name != e.name), "{}", e.name);
            assert!(!e.forms.is_empty(), "{} has no text", e.name);
            for &(f, text) in e.forms {
                let opts = crate::pipeline::RunOptions {
                    from: Some(f),
                    ..Default::default()
                };
                crate::pipeline::run(text, &opts)
                    .unwrap_or_else(|err| panic!("example {} ({f}): {err}", e.name));
            }
        }
        assert!(find("no-such-example").is_none());
    }
}
