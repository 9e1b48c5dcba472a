//! The gallery: named example programs, each in one or more input forms (a DAG to start
//! at the emitter, MIR to start at a later stage). The CLI (`copyscope examples`,
//! `run --example NAME`) and the web app's gallery read this table; short links
//! (`#example=NAME`) name its entries, so names never change once published.
//!
//! The entries are the files under `compiler-core/gallery/`, compiled in; an example's
//! summary is the comment at the top of its file, so the prose lives in one place.

use crate::pipeline::InputFormat;
use crate::stages::Stage;
use alloc::string::String;

/// One gallery entry.
#[derive(Debug)]
pub struct Example {
    /// Stable name (CLI, short links): the gallery file's stem.
    pub name: &'static str,
    /// The stage the example is meant to show.
    pub stage: Stage,
    /// The example's text in each form it exists in, preferred form first.
    pub forms: &'static [(InputFormat, &'static str)],
}

/// One form of an example: the gallery file `<name>.<ext>`.
macro_rules! form {
    (mir, $name:literal) => {
        (
            InputFormat::Mir,
            include_str!(concat!("../gallery/", $name, ".mir")),
        )
    };
    (dag, $name:literal) => {
        (
            InputFormat::Dag,
            include_str!(concat!("../gallery/", $name, ".dag")),
        )
    };
    (ptx, $name:literal) => {
        (
            InputFormat::Ptx,
            include_str!(concat!("../gallery/", $name, ".ptx")),
        )
    };
}

macro_rules! gallery {
    ($($name:literal => $stage:ident $(, $form:ident)+;)*) => {
        /// Every example, in gallery order.
        pub static EXAMPLES: &[Example] = &[$(
            Example {
                name: $name,
                stage: Stage::$stage,
                forms: &[$(form!($form, $name),)+],
            },
        )*];
    };
}

gallery! {
    "commute" => TwoAddress, mir;
    "sub-copy" => TwoAddress, mir;
    "reschedule" => TwoAddress, mir;
    "tex-v4f32" => TwoAddress, mir;
    "mma-tf32-4frag" => TwoAddress, mir;
    "wmma-f16-8frag" => TwoAddress, mir;
    "wgmma-16frag" => TwoAddress, mir;
    "async-copy-2result" => TwoAddress, mir;
    "tma-2result" => TwoAddress, mir;
    "inline-asm-tied" => TwoAddress, mir, dag;
    "reg-sequence" => TwoAddress, mir;
    "insert-subreg" => TwoAddress, mir;
    "optnone" => TwoAddress, mir;
    "phi-loop" => RegisterCoalescer, mir;
    "phi-swap" => RegisterCoalescer, mir;
    "cross-class" => NvptxCoalescer, mir;
    "wide-pair" => NvptxCoalescer, mir;
    "tex-lanes" => NvptxCoalescer, mir;
    "limits" => NvptxCoalescer, mir;
    "param-cascade" => InstrEmitter, dag;
    "tex-glue-bundle" => InstrEmitter, dag;
    "tex-unified-2d" => InstrEmitter, dag;
    "wmma-chain" => InstrEmitter, dag;
    "redundant-exit" => GeneralOptimizeEarly, ptx;
    "select-fold" => GeneralOptimize, ptx;
    "predicate-known" => GeneralOptimize, ptx;
    "iteration-cap" => GeneralOptimize, ptx;
    "local-array" => GeneralOptimizeMid, ptx;
    "mov-pairs" => GeneralOptimizeLate, ptx;
    "cu-reduce" => PtxOut, ptx;
    "cu-tex2d" => PtxOut, ptx;
}

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

    /// The comment at the top of the example's preferred form: leading `//` or `#` lines, or the
    /// `;` lines opening its embedded IR module, joined into one paragraph.
    pub fn summary(&self) -> String {
        let text = self.forms.first().map_or("", |f| f.1);
        let mut out = String::new();
        for line in text.lines() {
            let t = line.trim();
            if t.is_empty() || t == "--- |" {
                if out.is_empty() {
                    continue;
                }
                break;
            }
            let Some(c) = t
                .strip_prefix("//")
                .or_else(|| t.strip_prefix('#'))
                .or_else(|| t.strip_prefix(';'))
            else {
                break;
            };
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(c.trim());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;

    #[test]
    fn every_gallery_file_is_listed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("gallery");
        for f in std::fs::read_dir(dir).unwrap() {
            let p = f.unwrap().path();
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let ext = p.extension().unwrap().to_string_lossy().into_owned();
            let format = crate::pipeline::InputFormat::parse(&ext).unwrap();
            assert!(
                find(&stem).is_some_and(|e| e.text(Some(format)).is_some()),
                "gallery/{stem}.{ext} is not in EXAMPLES"
            );
        }
    }

    #[test]
    fn names_are_unique_and_every_form_runs_to_its_stage() {
        assert!(EXAMPLES.len() >= 19);
        for (i, e) in EXAMPLES.iter().enumerate() {
            assert!(EXAMPLES[..i].iter().all(|o| o.name != e.name), "{}", e.name);
            assert!(crate::share::valid_name(e.name), "{}", e.name);
            assert!(!e.forms.is_empty(), "{} has no text", e.name);
            for &(f, text) in e.forms {
                let opts = crate::pipeline::RunOptions {
                    from: Some(f),
                    until: Some(e.stage),
                    verify: true,
                    trace: true,
                    ..Default::default()
                };
                let r = crate::pipeline::run(text, &opts)
                    .unwrap_or_else(|err| panic!("example {} ({f}): {err}", e.name));
                assert!(!r.verify_failed(), "{}", e.name);
                assert_eq!(r.stages.last().map(|s| s.stage), Some(e.stage));
            }
            let s = e.summary();
            assert!(
                s.len() > 40 && s.ends_with('.'),
                "{}: summary {s:?}",
                e.name
            );
        }
        assert!(find("no-such-example").is_none());
        assert!(find("optnone")
            .unwrap()
            .summary()
            .starts_with("The same r0 = add r1, r0"));
    }
}
