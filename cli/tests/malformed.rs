//! Bad input of every kind: `fmt` and `run --verify` exit 1 with `NAME:LINE:COL: error:`
//! on stderr and never panic.

mod common;
use common::{copyscope, diag_position, random_bytes, scratch};

/// The start of a valid function whose body's first block is open (line 4 is `bb.0:`,
/// line 5 the first instruction).
const H: &str = "---\nname: k\nbody: |\n  bb.0:\n";

fn body(lines: &str) -> Vec<u8> {
    format!("{H}{lines}...\n").into_bytes()
}

fn text(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

struct Case {
    name: &'static str,
    input: Vec<u8>,
    /// Expected (line, col) of the first diagnostic.
    at: (u32, u32),
    /// Part of the message.
    says: &'static str,
}

fn case(name: &'static str, input: Vec<u8>, at: (u32, u32), says: &'static str) -> Case {
    Case {
        name,
        input,
        at,
        says,
    }
}

fn malformed_cases() -> Vec<Case> {
    vec![
        case("empty file", text(""), (1, 1), "expected a MIR document"),
        case("truncated instruction", text(&format!("{H}    %0:b32 = ")), (5, 14), "expected an opcode"),
        case("truncated before body", text("---\nname: k\n"), (1, 1), "has no `body: |`"),
        case("truncated inside a register entry", text("---\nname: k\nregisters:\n  - { id: 1, cla"), (4, 17), "expected `}`"),
        case("unknown class", body("    %0:b33 = MOV_B32_i 1\n"), (5, 8), "unknown register class `b33`"),
        case("tuple with too many lanes", body("    %0:float32regsx65 = TEX 1\n"), (5, 8), "unknown register class"),
        case("bad operand", body("    %0:b32 = MOV_B32_i ?x\n"), (5, 24), "expected an operand"),
        case("tied-def index out of range", body("    %0:b32 = INLINEASM &\"x\", 0, %1(tied-def 5)\n"), (5, 33), "tied-def 5"),
        case("tied-def to itself", body("    INLINEASM &\"x\", 0, %1(tied-def 2)\n"), (5, 24), "tied-def 2"),
        case("negative tied-def", body("    %0:b32 = INLINEASM &\"x\", 0, %1(tied-def -1)\n"), (5, 45), "operand index"),
        case("bad block reference", body("    GOTO %bb.7\n"), (5, 14), "no block bb.7"),
        case("duplicate block", body("    Return\n  bb.0:\n    Return\n"), (6, 1), "bb.0 is defined twice"),
        case("missing body", text("---\nname: k\nisSSA: true\n...\n"), (1, 1), "no `body: |`"),
        case("body is not a block scalar", text("---\nname: k\nbody: x\n...\n"), (3, 7), "expected `|`"),
        case("no name", text("---\nbody: |\n  bb.0:\n    Return\n...\n"), (1, 1), "no `name:`"),
        case("non-UTF-8 byte", b"---\nname: k\nbody: |\n  bb.0:\n    %0:b32 = MOV_B32_i 1 \xff\xfe\n".to_vec(), (5, 26), "not UTF-8"),
        case("unterminated string", body("    INLINEASM &\"abc, 0\n"), (5, 16), "unterminated string"),
        case("unterminated comment", body("    INLINEASM &\"x\", 1 /*/ sideeffect\n"), (5, 23), "unterminated `/*`"),
        case("instruction before any block", text("---\nname: k\nbody: |\n    Return\n...\n"), (4, 5), "block header"),
        case("class conflict", body("    %0:b32 = MOV_B32_i 1\n    %1:b32 = ADD32rr %0:b64, %0\n"), (6, 25), "has class `b64` here"),
        case("virtual register number too large", body("    %99999999:b32 = MOV_B32_i 1\n"), (5, 14), "above the limit"),
        case("named virtual register", body("    %foo:b32 = MOV_B32_i 1\n"), (5, 6), "named virtual registers"),
        case("bad branch probability", text("---\nname: k\nbody: |\n  bb.0:\n    successors: %bb.1(0xZZ)\n\n    GOTO %bb.1\n  bb.1:\n    Return\n...\n"), (5, 23), "branch probability"),
        case("bad register id", text("---\nname: k\nregisters:\n  - { id: x, class: b32 }\nbody: |\n  bb.0:\n    Return\n...\n"), (4, 11), "register number"),
        case("bad boolean property", text("---\nname: k\nisSSA: maybe\nbody: |\n  bb.0:\n    Return\n...\n"), (3, 8), "`true` or `false`"),
        case("bad block number", body("    Return\n  bb.x:\n"), (6, 6), "block number after `bb.`"),
        case("unclosed bundle", body("    BUNDLE {\n"), (5, 5), "is never closed"),
        case("bundle close without open", body("    }\n"), (5, 5), "closes no instruction bundle"),
        case("bundle without brace", body("    BUNDLE implicit %0\n"), (5, 5), "expected `{` at the end of the BUNDLE line"),
        case("text outside any document", text("hello\n---\nname: k\n"), (1, 1), "expected `---`"),
        case("flags on an immediate", body("    %0:b32 = MOV_B32_i killed 5\n"), (5, 31), "not a register"),
        case("def flag left of =", body("    def %0:b32 = MOV_B32_i 5\n"), (5, 5), "implied left of `=`"),
        case("missing =", body("    %0:b32 MOV_B32_i 5\n"), (5, 12), "expected `=`"),
        case("immediate out of range", body("    %0:b64 = MOV_B64_i 99999999999999999999999\n"), (5, 24), "expected an integer"),
        case("empty sub-register index", body("    %0:b64 = REG_SEQUENCE %1, %subreg.\n"), (5, 39), "sub-register index"),
        case("only an IR document", text("--- |\n  define void @k() { ret void }\n...\n"), (1, 1), "defines @k but no machine function document"),
        case("physical register with a class", body("    $r1:b32 = COPY %1\n"), (5, 12), "physical register has no class"),
        case("live-in without $", text("---\nname: k\nliveins:\n  - { reg: r1 }\nbody: |\n  bb.0:\n    Return\n...\n"), (4, 12), "physical register"),
        case("memory operands missing", body("    %0:b32 = LD_i32 0 ::\n"), (5, 25), "memory operands"),
        case("header key without colon", text("---\nname: k\nfoo\nbody: |\n  bb.0:\n    Return\n...\n"), (3, 1), "key: value"),
        case("unterminated quote in a mapping", text("---\nname: k\nregisters:\n  - { id: 1, class: 'b32 }\nbody: |\n  bb.0:\n    Return\n...\n"), (4, 13), "unterminated quoted string"),
        case("multi-byte junk", body("    %0:b32 = MOV_B32_i é\n"), (5, 24), "expected an operand"),
    ]
}

fn check_rejected(out: &common::Out, name: &str, what: &str) -> (u32, u32) {
    assert_eq!(out.code, 1, "{what}: exit code; stderr: {}", out.stderr);
    assert!(
        !out.stderr.contains("panicked"),
        "{what}: panicked: {}",
        out.stderr
    );
    let first = out.stderr.lines().next().unwrap_or("");
    diag_position(first, name)
        .unwrap_or_else(|| panic!("{what}: no `{name}:LINE:COL: error:` in {:?}", out.stderr))
}

#[test]
fn malformed_inputs_are_rejected_by_fmt_with_line_and_column() {
    let cases = malformed_cases();
    assert!(cases.len() >= 20);
    for (i, c) in cases.iter().enumerate() {
        // Alternate between a file and stdin, so both readers are covered.
        let (out, name) = if i % 2 == 0 {
            let p = scratch(&format!("malformed-{i}.mir"), &c.input);
            let p = p.to_str().unwrap().to_string();
            (copyscope(&["fmt", &p], None), p)
        } else {
            (
                copyscope(&["fmt", "-"], Some(&c.input)),
                "<stdin>".to_string(),
            )
        };
        let at = check_rejected(&out, &name, c.name);
        assert_eq!(at, c.at, "{}: position; stderr: {}", c.name, out.stderr);
        assert!(
            out.stderr.contains(c.says),
            "{}: message {:?} lacks {:?}",
            c.name,
            out.stderr,
            c.says
        );
        assert!(out.stdout.is_empty(), "{}: printed output", c.name);
        // `run` reads the same way.
        let r = copyscope(&["run", "-", "--emit", "mir"], Some(&c.input));
        assert_eq!(
            check_rejected(&r, "<stdin>", c.name),
            c.at,
            "{}: run",
            c.name
        );
    }
}

#[test]
fn megabytes_of_random_bytes_are_rejected() {
    let bytes = random_bytes(0x5eed, 4 << 20);
    let out = copyscope(&["fmt", "-"], Some(&bytes));
    let (line, col) = check_rejected(&out, "<stdin>", "random bytes");
    assert!(line >= 1 && col >= 1);
    assert!(out.stderr.contains("not UTF-8"));
}

#[test]
fn megabytes_of_random_text_are_rejected() {
    // Printable soup after a valid start, so the body reader sees it.
    const ALPHABET: &[u8] = b"%$&:=,.()-_ {}[]\"'/*!;#0123456789abcdefbbsubregtied-def killed \n";
    let mut text = H.as_bytes().to_vec();
    text.extend(
        random_bytes(0xfeed, 3 << 20)
            .iter()
            .map(|b| ALPHABET[*b as usize % ALPHABET.len()]),
    );
    let out = copyscope(&["fmt", "-"], Some(&text));
    let (line, _) = check_rejected(&out, "<stdin>", "random text");
    assert!(line >= 5, "the header was valid; line {line}");
}

#[test]
fn input_over_the_size_limit_is_refused() {
    let mut big = H.as_bytes().to_vec();
    big.resize(64 << 20 | 16, b' ');
    let out = copyscope(&["fmt", "-"], Some(&big));
    let at = check_rejected(&out, "<stdin>", "oversized input");
    assert_eq!(at, (1, 1));
    assert!(out.stderr.contains("limit"));
}

fn verify_case(name: &str, input: &str, want: &[((u32, u32), &str)]) {
    let p = scratch(
        &format!("verify-{}.mir", name.replace(' ', "-")),
        input.as_bytes(),
    );
    let p = p.to_str().unwrap();
    // fmt accepts it: the text is well formed.
    assert_eq!(copyscope(&["fmt", p], None).code, 0, "{name}: fmt");
    // Without --verify, run accepts it too.
    assert_eq!(
        copyscope(&["run", p, "--emit", "mir"], None).code,
        0,
        "{name}: run"
    );
    let out = copyscope(&["run", p, "--verify", "--emit", "mir"], None);
    assert_eq!(out.code, 1, "{name}: {}", out.stderr);
    assert!(out.stdout.is_empty(), "{name}: printed output");
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), want.len(), "{name}: {}", out.stderr);
    for (l, (at, says)) in lines.iter().zip(want) {
        assert!(l.contains(says), "{name}: {l} lacks {says}");
        assert_eq!(diag_position(l, p), Some(*at), "{name}: {l}");
        assert!(l.contains(says), "{name}: {l} lacks {says}");
    }
}

#[test]
fn use_of_an_undefined_register_is_rejected_by_run_verify() {
    verify_case(
        "undefined use",
        "---\nname: k\nbody: |\n  bb.0:\n    %1:b32 = ADD32rr %0:b32, %0\n    %2:b32 = ADD32rr undef %9:b32, %1\n    Return\n...\n",
        &[
            ((5, 22), "%0 is used but never defined [undefined_vreg]"),
            ((5, 30), "%0 is used but never defined [undefined_vreg]"),
        ],
    );
}

#[test]
fn two_defs_of_one_register_in_ssa_are_rejected_by_run_verify() {
    verify_case(
        "second def",
        "---\nname: k\nisSSA: true\nnoPhis: true\nbody: |\n  bb.0:\n    %1:b32 = MOV_B32_i 1\n    %1:b32 = MOV_B32_i 2\n    %2:b32 = ADD32rr %1, %1\n    Return\n...\n",
        &[((8, 5), "%1 is defined again (first defined in bb.0)")],
    );
    // Not in SSA form: two defs are fine.
    let p = scratch(
        "verify-non-ssa.mir",
        b"---\nname: k\nisSSA: false\nnoPhis: true\nbody: |\n  bb.0:\n    %1:b32 = MOV_B32_i 1\n    %1:b32 = MOV_B32_i 2\n    Return\n...\n",
    );
    let out = copyscope(&["run", p.to_str().unwrap(), "--verify"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

#[test]
fn verify_errors_of_blocks_point_at_their_headers() {
    verify_case(
        "successors",
        "---\nname: k\nisSSA: false\nnoPhis: true\nbody: |\n  bb.0:\n    successors: %bb.2\n\n    %0:b32 = MOV_B32_i 1\n  bb.1:\n    Return\n  bb.2:\n    Return\n...\n",
        &[
            ((6, 3), "falls through to bb.1"),
            ((6, 3), "bb.2 is listed as a successor of bb.0"),
        ],
    );
}

#[test]
fn verify_accepts_the_whole_corpus() {
    for path in common::corpus_mir_files() {
        let p = path.to_str().unwrap();
        // Every MIR stage verifies (PTX emission is covered by the pipeline tests).
        let out = copyscope(
            &[
                "run",
                p,
                "--verify",
                "--json",
                "--no-trace",
                "--emit",
                "mir",
            ],
            None,
        );
        // x86 MIR still to go through two-address is refused there, with line:column:
        // x86's ties are in its instruction descriptors, which are not modelled.
        if p.contains("xtra_x86") && out.code == 1 {
            assert!(
                out.stderr.contains(".mir:") && out.stderr.contains("two-address on x86"),
                "{p}: {}",
                out.stderr
            );
            continue;
        }
        assert_eq!(out.code, 0, "{p}: {}", out.stderr);
    }
}
