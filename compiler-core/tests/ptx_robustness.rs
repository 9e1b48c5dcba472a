//! No input, however bad, panics the PTX parser, the printer, ptx-lower or the
//! evaluator: random bytes, and corpus files with random cuts, duplications and
//! insertions. What parses prints a fixpoint.

mod support;

use compiler_core::ori_interp as interp;
use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
use compiler_core::ptx;
use compiler_core::trace::NoTrace;
use proptest::prelude::*;

fn corpus_texts() -> Vec<String> {
    support::nvptx_cases()
        .iter()
        .flat_map(|c| {
            ["llc.ptx", "nvcc.sm_90.ptx"]
                .iter()
                .filter_map(|f| std::fs::read_to_string(c.join(f)).ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn exercise(text: &str) {
    let Ok(m) = ptx::parse(text) else { return };
    let once = ptx::print(&m);
    let again = ptx::parse(&once).expect("printed PTX parses");
    assert_eq!(ptx::print(&again), once, "fmt fixpoint");
    let Ok((o, _)) = ptx_lower::run(&m, &PtxLowerOptions::default(), &mut NoTrace::default())
    else {
        return;
    };
    let _ = compiler_core::ori::print::print(&o);
    let cfg = interp::Config { fuel: 20_000 };
    for f in m.items.iter().filter_map(|i| match i {
        ptx::Item::Func(f) if f.body.is_some() => Some(f),
        _ => None,
    }) {
        let inputs = interp::random_inputs(f.params.as_deref().unwrap_or(&[]), 7);
        let _ = interp::run_ptx(&m, &f.name, &inputs, &cfg);
        let _ = interp::run_ori(&o, &f.name, &inputs, &cfg);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(m) = ptx::parse_bytes(&bytes) {
            let t = ptx::print(&m);
            prop_assert!(ptx::parse(&t).is_ok());
        }
    }

    #[test]
    fn mutated_corpus_files_never_panic(
        which in 0usize..64,
        at in 0.0f64..1.0,
        len in 0usize..40,
        mode in 0u8..3,
        junk in "[ -~\n]{0,12}",
    ) {
        let texts = corpus_texts();
        let text = &texts[which % texts.len()];
        let bytes = text.as_bytes();
        let start = ((bytes.len() as f64) * at) as usize;
        let end = (start + len).min(bytes.len());
        let mut out = Vec::new();
        out.extend_from_slice(&bytes[..start]);
        match mode {
            0 => {}
            1 => { out.extend_from_slice(&bytes[start..end]); out.extend_from_slice(&bytes[start..end]); }
            _ => { out.extend_from_slice(junk.as_bytes()); out.extend_from_slice(&bytes[start..end]); }
        }
        out.extend_from_slice(&bytes[end..]);
        if let Ok(s) = String::from_utf8(out) {
            exercise(&s);
        }
    }
}

#[test]
fn errors_point_at_line_and_column() {
    let e = ptx::parse(".version 7.8\n.target sm_90\n.visible .entry k(\n{\n").unwrap_err();
    assert_eq!((e.line, e.col), (4, 1), "{e}");
    assert!(e.message.contains("expected"), "{e}");
    let e = ptx::parse(".version 7.8\n.entry k()\n{\n\tadd.s32 %r1, %r2 %r3;\n}\n").unwrap_err();
    assert_eq!((e.line, e.col), (4, 19), "{e}");
    let e = ptx::parse_bytes(b".version 7.8\n\xff").unwrap_err();
    assert_eq!((e.line, e.col), (2, 1), "{e}");
    let deep = format!(".entry k()\n{{\n{}", "{\n".repeat(200));
    assert!(ptx::parse(&deep).is_err());
}

/// The lexer walks bytes but counts columns in characters: text after a multi-byte
/// character in a comment or a string is placed where an editor shows it, and a stray
/// non-ASCII character is named whole.
#[test]
fn columns_count_characters_after_non_ascii_text() {
    let e = ptx::parse(".version 7.8 /* é€ */ ?\n").unwrap_err();
    assert_eq!((e.line, e.col), (1, 23), "{e}");
    let e = ptx::parse(".version 7.8\n.file 1 \"ü.cu\" ?\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 16), "{e}");
    let e = ptx::parse(".version 7.8\n  λ\n").unwrap_err();
    assert_eq!((e.line, e.col), (2, 3), "{e}");
    assert!(e.message.contains('λ'), "{e}");
    let m = ptx::parse("// ünïcode ✓\n.version 7.8\n.target sm_90\n").unwrap();
    assert_eq!(ptx::parse(&ptx::print(&m)).unwrap(), m);
}
