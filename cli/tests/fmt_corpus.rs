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
fn run_until_phi_elimination_reproduces_llc() {
    // llc-22's 3-pre-twoaddr.mir is 2-pre-phielim.mir after PHI elimination: the CLI
    // run, canonically printed, must equal that file canonically printed.
    let mut n = 0;
    for case in std::fs::read_dir(corpus_dir()).unwrap() {
        let case = case.unwrap().path();
        let (pre, post) = (
            case.join("2-pre-phielim.mir"),
            case.join("3-pre-twoaddr.mir"),
        );
        if !pre.exists() || !post.exists() {
            continue;
        }
        let run = copyscope(
            &[
                "run",
                pre.to_str().unwrap(),
                "--until",
                "phi-elimination",
                "--verify",
                "--no-trace",
            ],
            None,
        );
        assert_eq!(run.code, 0, "{}: {}", case.display(), run.stderr);
        let want = copyscope(&["fmt", post.to_str().unwrap()], None);
        assert_eq!(run.stdout, want.stdout, "{}", case.display());
        n += 1;
    }
    assert!(n >= 13, "{n} cases");
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
