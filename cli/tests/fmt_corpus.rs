//! `copyscope fmt` on the whole corpus: exit 0, every instruction kept, a fixpoint; and
//! a golden canonical print.

mod common;
use common::{copyscope, corpus_dir, corpus_mir_files};
use compiler_core::golden::assert_golden;

/// Instruction lines inside `body: |` blocks (not block headers, successor or live-in
/// lists, comments).
fn instruction_lines(text: &str) -> Vec<String> {
    let mut in_body = false;
    let mut out = Vec::new();
    for l in text.lines() {
        if l.starts_with("body:") {
            in_body = true;
            continue;
        }
        if l == "..." || l.starts_with("---") {
            in_body = false;
            continue;
        }
        let t = l.trim();
        if in_body
            && !t.is_empty()
            && !t.starts_with("bb.")
            && !t.starts_with("successors:")
            && !t.starts_with("liveins:")
            && !t.starts_with(';')
        {
            out.push(t.to_string());
        }
    }
    out
}

#[test]
fn fmt_reads_every_corpus_file_keeps_every_instruction_and_is_a_fixpoint() {
    let files = corpus_mir_files();
    assert!(files.len() >= 90, "corpus has {} MIR files", files.len());
    for path in &files {
        let p = path.to_str().unwrap();
        let once = copyscope(&["fmt", p], None);
        assert_eq!(once.code, 0, "{p}: {}", once.stderr);
        assert!(once.stderr.is_empty(), "{p}: {}", once.stderr);
        let input = std::fs::read_to_string(path).unwrap();
        assert_eq!(
            instruction_lines(&once.stdout),
            instruction_lines(&input),
            "{p}: instructions changed"
        );
        let twice = copyscope(&["fmt", "-"], Some(once.stdout.as_bytes()));
        assert_eq!(twice.code, 0, "{p} reformatted: {}", twice.stderr);
        assert_eq!(twice.stdout, once.stdout, "{p}: fmt is not a fixpoint");
    }
}

#[test]
fn run_without_stages_prints_what_fmt_prints() {
    for case in ["ll_phi_loop/2-pre-phielim.mir", "ll_tex/4-twoaddr.mir"] {
        let p = corpus_dir().join(case);
        let p = p.to_str().unwrap();
        let f = copyscope(&["fmt", p], None);
        let r = copyscope(
            &["run", p, "--from", "mir", "--emit", "mir", "--verify"],
            None,
        );
        assert_eq!(r.code, 0, "{case}: {}", r.stderr);
        assert_eq!(r.stdout, f.stdout, "{case}");
    }
}

#[test]
fn golden_canonical_print() {
    let golden = |name: &str| format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"));
    for (case, file) in [
        ("ll_phi_loop", "2-pre-phielim.mir"),
        ("xtra_x86_tied_subreg", "3-pre-twoaddr.mir"),
    ] {
        let p = corpus_dir().join(case).join(file);
        let out = copyscope(&["fmt", p.to_str().unwrap()], None);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_golden(golden(&format!("fmt/{case}.{file}")), &out.stdout);
    }
}
