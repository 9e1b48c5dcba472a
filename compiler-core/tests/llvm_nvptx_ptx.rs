//! Coverage of LLVM's own NVPTX CodeGen tests (`shared/corpus/llvm-nvptx/`, built by its
//! `make.sh` through `support::llc`): every file's `pre-phielim.mir` goes through every
//! stage to PTX, as a user pasting llc-22's MIR would run it.
//!
//! Four figures, each asserted as a floor:
//! - files tried (a `pre-phielim.mir` exists) and files reaching PTX;
//! - files whose PTX ptxas 13.0.88 assembles, counted over the files where llc-22's own
//!   `llc.ptx` assembles (`ptxas -c`, `-arch` from each PTX's own `.target`, sm_75 when
//!   older);
//! - functions equal to llc-22's statement for statement after canonical register
//!   renaming (each `%r7`-style name becomes its prefix plus its order of first use).
//!
//! The files that fail, each with its first error, are the table in
//! `docs/llvm-nvptx-coverage.md` (compared like a golden file; `COPYSCOPE_BLESS=1`
//! rewrites it). `COPYSCOPE_NVPTX_DIFFS=1` also prints every file's outcome and each
//! differing function's first differing statement. Without llc-22 the test prints why and passes, unless CI or
//! `COPYSCOPE_REQUIRE_LLC` requires it (`support::llc`).

mod support;

use compiler_core::pipeline::{run, RunOptions};
use compiler_core::stages::Stage;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Floors: the figures measured on this code (raise them when coverage grows).
const MIN_REACH_PTX: usize = 146;
const MIN_ASSEMBLE: usize = 139;
const MIN_EQUAL_FUNCTIONS: usize = 890;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `sm_XX` of a PTX text's `.target`, sm_75 when older or absent.
fn target_of(ptx: &str) -> String {
    let t = ptx
        .lines()
        .find_map(|l| l.trim().strip_prefix(".target "))
        .and_then(|t| t.split([',', ' ']).next())
        .and_then(|t| t.strip_prefix("sm_"))
        .unwrap_or("75")
        .to_string();
    let num: u32 = t
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or(75);
    if num < 75 {
        "75".into()
    } else {
        t
    }
}

/// Each function's statements (header to closing brace), by name, in file order.
fn functions(ptx: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut cur: Option<(String, Vec<String>)> = None;
    let mut depth = 0usize;
    for s in support::ptx_statements(ptx) {
        let s = strip_module_directives(&s);
        if depth == 0 && s.ends_with('{') && (s.contains(".entry") || s.contains(".func")) {
            cur = Some((function_name(&s), Vec::new()));
        }
        if s.ends_with('{') {
            depth += 1;
        }
        if s.ends_with('}') {
            depth = depth.saturating_sub(1);
        }
        if let Some((_, body)) = cur.as_mut() {
            body.push(s);
        }
        if depth == 0 {
            if let Some(done) = cur.take() {
                out.push(done);
            }
        }
    }
    out
}

/// `.version`, `.target` and `.address_size` end without `;`, so the statement splitter
/// glues them to the first function's header: take them off.
fn strip_module_directives(s: &str) -> String {
    let mut words: Vec<&str> = s.split(' ').collect();
    while words.len() >= 2 && [".version", ".target", ".address_size"].contains(&words[0]) {
        words.drain(..2);
    }
    words.join(" ")
}

fn function_name(header: &str) -> String {
    let at = header
        .find(".entry")
        .map(|p| p + 6)
        .or_else(|| header.find(".func").map(|p| p + 5))
        .unwrap_or(0);
    let mut rest = header[at..].trim_start();
    if rest.starts_with('(') {
        let close = rest.find(')').unwrap_or(0);
        rest = rest[close + 1..].trim_start();
    }
    rest.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || "_$.".contains(*c))
        .collect()
}

/// Registers renamed to their prefix plus order of first use (`.reg` counts kept);
/// llc breaks a declaration's line before its parameter list (`name\n(`), so a space
/// before `(` does not count.
fn canonical(stmts: &[String]) -> Vec<String> {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut per_prefix: BTreeMap<String, usize> = BTreeMap::new();
    stmts
        .iter()
        .map(|s| {
            let mut out = String::new();
            let b = s.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if b[i] == b'%' {
                    let start = i + 1;
                    let mut j = start;
                    while j < b.len() && b[j].is_ascii_alphabetic() {
                        j += 1;
                    }
                    let mut k = j;
                    while k < b.len() && b[k].is_ascii_digit() {
                        k += 1;
                    }
                    let word_end = k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_');
                    if k > j && j > start && !word_end {
                        let reg = &s[i..k];
                        let prefix = &s[start..j];
                        let name = names
                            .entry(reg.to_string())
                            .or_insert_with(|| {
                                let c = per_prefix.entry(prefix.to_string()).or_insert(0);
                                *c += 1;
                                format!("%{prefix}#{c}")
                            })
                            .clone();
                        out.push_str(&name);
                        i = k;
                        continue;
                    }
                }
                out.push(b[i] as char);
                i += 1;
            }
            out.replace(" (", "(")
        })
        .collect()
}

struct Outcome {
    file: String,
    reached: bool,
    /// Some(ok) where llc-22's PTX assembles.
    assembles: Option<bool>,
    equal: usize,
    functions: usize,
    first_error: Option<String>,
}

fn first_line(s: &str) -> String {
    let line: String = s
        .lines()
        .find(|l| l.contains("error") || l.contains("fatal"))
        .or_else(|| s.lines().next())
        .unwrap_or("")
        .trim()
        .replace('|', "\\|");
    // ptxas names its temporary file (a process id in the path): keep the line number.
    let line = match (line.find(" /"), line.find(".ptx, ")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &line[..a + 1], &line[b + 6..]),
        _ => line,
    };
    line.chars().take(200).collect()
}

fn try_file(dir: &Path, ptxas: Option<&Path>) -> Outcome {
    let file = dir.file_name().unwrap().to_string_lossy().into_owned();
    let mir = std::fs::read_to_string(dir.join("pre-phielim.mir")).unwrap();
    let llc = std::fs::read_to_string(dir.join("llc.ptx")).unwrap_or_default();
    let opts = RunOptions {
        until: Some(Stage::PtxEmit),
        ..Default::default()
    };
    let mut o = Outcome {
        file,
        reached: false,
        assembles: None,
        equal: 0,
        functions: 0,
        first_error: None,
    };
    let target = target_of(&llc);
    let llc_assembles = match (ptxas, llc.is_empty()) {
        (Some(px), false) => support::ptxas::compile_only(px, &llc, &target, "llc").is_ok(),
        _ => false,
    };
    let theirs_fns = functions(&llc);
    o.functions = theirs_fns.len();
    let ours = match run(&mir, &opts) {
        Ok(r) => r.output,
        Err(e) => {
            o.first_error = Some(format!("pipeline: {}", first_line(&e.to_string())));
            if llc_assembles {
                o.assembles = Some(false);
            }
            return o;
        }
    };
    o.reached = true;
    if let (Some(px), true) = (ptxas, llc_assembles) {
        // Our PTX is assembled for its own `.target`: a module without functions names
        // no target in its MIR, so ours is the default (sm_90) where llc's is -mcpu's.
        let target = target_of(&ours);
        let r = support::ptxas::compile_only(px, &ours, &target, &o.file);
        if let Err(e) = &r {
            let msg = e.lines().skip(1).collect::<Vec<_>>().join("\n");
            o.first_error = Some(format!("ptxas sm_{target}: {}", first_line(&msg)));
        }
        o.assembles = Some(r.is_ok());
    }
    let mine: BTreeMap<String, Vec<String>> = functions(&ours).into_iter().collect();
    for (name, theirs) in theirs_fns {
        let a = canonical(&theirs);
        let b = mine.get(&name).map(|s| canonical(s)).unwrap_or_default();
        if a == b {
            o.equal += 1;
            continue;
        }
        if std::env::var_os("COPYSCOPE_NVPTX_DIFFS").is_some() {
            let k = a.iter().zip(&b).position(|(x, y)| x != y);
            let show = |v: &[String], k: Option<usize>| {
                k.and_then(|k| v.get(k))
                    .cloned()
                    .unwrap_or_else(|| format!("({} stmts)", v.len()))
            };
            eprintln!(
                "DIFF\t{}\t{name}\tours: {}\tllc: {}",
                o.file,
                show(&b, k),
                show(&a, k)
            );
        }
        if o.first_error.is_none() {
            let at = a.iter().zip(&b).position(|(x, y)| x != y);
            let what = match at {
                Some(k) => format!("`{}` where llc-22 has `{}`", b[k], a[k]),
                None if b.is_empty() => "function missing".into(),
                None => format!("{} statements where llc-22 has {}", b.len(), a.len()),
            };
            o.first_error = Some(format!("differs in `{name}`: {}", what.replace('|', "\\|")));
        }
    }
    o
}

#[test]
fn llvm_nvptx_tests_reach_ptx_that_assembles_and_matches_llc() {
    let Some(llc) = support::llc::llc() else {
        return;
    };
    let ptxas = support::ptxas::ptxas();
    let dirs: Vec<PathBuf> = support::llc::llvm_nvptx(llc)
        .into_iter()
        .filter(|c| c.file("pre-phielim.mir").is_some())
        .map(|c| c.dir)
        .collect();
    let outcomes: Vec<Outcome> = dirs.iter().map(|d| try_file(d, ptxas)).collect();
    if std::env::var_os("COPYSCOPE_NVPTX_DIFFS").is_some() {
        for o in &outcomes {
            eprintln!(
                "FILE\t{}\t{}\t{:?}\t{}/{}\t{}",
                o.file,
                o.reached,
                o.assembles,
                o.equal,
                o.functions,
                o.first_error.as_deref().unwrap_or("")
            );
        }
    }
    let tried = outcomes.len();
    let reached = outcomes.iter().filter(|o| o.reached).count();
    let can_assemble = outcomes.iter().filter(|o| o.assembles.is_some()).count();
    let assembled = outcomes
        .iter()
        .filter(|o| o.assembles == Some(true))
        .count();
    let reached_can = outcomes
        .iter()
        .filter(|o| o.reached && o.assembles.is_some())
        .count();
    let functions: usize = outcomes.iter().map(|o| o.functions).sum();
    let equal: usize = outcomes.iter().map(|o| o.equal).sum();
    let summary = format!(
        "files tried {tried}; reaching PTX {reached}; assembling {assembled} \
         (of {reached_can} reached and {can_assemble} in all whose llc.ptx assembles); \
         functions equal to llc.ptx {equal} of {functions}"
    );
    eprintln!("\nllvm-nvptx: {summary}");
    let mut doc = String::from(
        "# LLVM NVPTX tests: coverage\n\n\
         Written by `compiler-core/tests/llvm_nvptx_ptx.rs` (`COPYSCOPE_BLESS=1` rewrites it):\n\
         each file of `shared/corpus/llvm-nvptx/` (outputs of its `make.sh` with llc-22\n\
         22.1.8) run from `pre-phielim.mir` through every stage to PTX, assembled by ptxas\n\
         13.0.88 where llc-22's own PTX assembles, and compared with `llc.ptx` function by\n\
         function after canonical register renaming.\n\n",
    );
    doc.push_str(&format!("{summary}.\n\n"));
    doc.push_str(
        "| file | PTX | assembles | equal functions | first error |\n|---|---|---|---|---|\n",
    );
    for o in &outcomes {
        if o.first_error.is_none() && o.equal == o.functions {
            continue;
        }
        let asm = match o.assembles {
            Some(true) => "yes",
            Some(false) => "no",
            None => "-",
        };
        doc.push_str(&format!(
            "| {} | {} | {asm} | {}/{} | {} |\n",
            o.file,
            if o.reached { "yes" } else { "no" },
            o.equal,
            o.functions,
            o.first_error.as_deref().unwrap_or("")
        ));
    }
    if ptxas.is_some() {
        compiler_core::golden::assert_golden(repo().join("docs/llvm-nvptx-coverage.md"), &doc);
        assert!(assembled >= MIN_ASSEMBLE, "{summary}");
    }
    assert!(reached >= MIN_REACH_PTX, "{summary}");
    assert!(equal >= MIN_EQUAL_FUNCTIONS, "{summary}");
}

/// Files of the corpus kept in `tests/fixtures/llvm-nvptx/` (llc-22's `pre-phielim.mir`
/// and `llc.ptx`, made by `make.sh`), so this runs without llc-22: calls with their
/// `.param` scopes and `.extern` declarations (fma, misched_func_call), byval and
/// aggregate parameters as byte arrays (store-retval), 8/16-bit loads and stores and
/// promoted narrow parameters (ld-generic), 16-bit compares (compare-int), prototypes of
/// callees defined after their caller and `alignstack` parameters (param-overalign);
/// module variables as llc-22 declares them — linkage (`.visible`/`.extern`/`.weak`/
/// `.common`), scalar types, initializers, `.texref`/`.surfref` globals, demotion of
/// local shared variables (annotations, demote-vars, common-linkage, globals_lowering,
/// read-global-variable-constant, APIntLoadStore, i1-load-lower, ldu-ldg, bf16, half,
/// i1-array-global, no-extra-parens, inline-asm-b128-test3); function linkage (`.weak`,
/// local functions without `.visible`: weak-linkage), kernel directives (`.maxntid` ...:
/// annotations), image and sampler parameters (nvcl-param-align); a stack frame (the
/// `__local_depot`, `%SP`/`%SPL`, objects at their offsets: frame-slots, compiled by
/// llc-22 from its `frame.ll`); a frame object's address (`LEA_ADDRi64`: `add.u64` from
/// `%SP`, lower-alloca, and from `%SPL` once a `cvta.to.local` is folded, short-ptr). The whole PTX equals llc-22's statement for statement
/// after canonical register renaming.
#[test]
fn kept_llvm_nvptx_files_print_as_llc_does() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llvm-nvptx");
    let ptxas = support::ptxas::ptxas();
    for name in [
        "fma",
        "misched_func_call",
        "store-retval",
        "ld-generic",
        "compare-int",
        "annotations",
        "weak-linkage",
        "demote-vars",
        "common-linkage",
        "globals_lowering",
        "read-global-variable-constant",
        "nvcl-param-align",
        "APIntLoadStore",
        "i1-load-lower",
        "ldu-ldg",
        "bf16",
        "half",
        "i1-array-global",
        "no-extra-parens",
        "inline-asm-b128-test3",
        "frame-slots",
        "lower-alloca",
        "short-ptr",
    ] {
        let mir = std::fs::read_to_string(dir.join(name).join("pre-phielim.mir")).unwrap();
        let llc = std::fs::read_to_string(dir.join(name).join("llc.ptx")).unwrap();
        let opts = RunOptions {
            until: Some(Stage::PtxEmit),
            ..Default::default()
        };
        let ours = run(&mir, &opts)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .output;
        let (a, b) = (
            canonical(&support::ptx_statements(&ours)),
            canonical(&support::ptx_statements(&llc)),
        );
        if a != b {
            let k = a
                .iter()
                .zip(&b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            panic!(
                "{name}: statement {k} is `{}` where llc-22 has `{}`\n{ours}",
                a.get(k).map_or("(end)", |s| s.as_str()),
                b.get(k).map_or("(end)", |s| s.as_str())
            );
        }
        // Assembled wherever llc-22's own PTX assembles (nvcl-param-align's does not:
        // its opaque-type parameter pointers need a newer ISA than it names).
        if let Some(px) = ptxas {
            let target = target_of(&llc);
            if support::ptxas::compile_only(px, &llc, &target, "llc").is_ok() {
                support::ptxas::compile_only(px, &ours, &target, name)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
        }
    }
}

/// One kept file per family of the instruction description's `asm:` templates (atomics
/// with their scopes and orderings, shuffles and warp reductions under llc-22's
/// `anonymous_N` names, barriers, match, mbarrier, cp.async and bulk copies, prmt,
/// f16/bf16 abs, fp8 conversions, funnel shifts, environment registers, cluster launch
/// control, prefetch): every function equals llc-22's statement for statement after
/// canonical register renaming (per function, as the coverage test compares), and the
/// PTX assembles. Runs without llc-22.
#[test]
fn kept_instruction_family_files_print_as_llc_does() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llvm-nvptx");
    let ptxas = support::ptxas::ptxas();
    for name in [
        "atomics",
        "atomics-with-scope",
        "shfl-sync-p",
        "redux-sync-f32",
        "setmaxnreg",
        "barrier",
        "match",
        "mbarrier",
        "async-copy",
        "bswap",
        "fabs-intrinsics",
        "convert-sm89",
        "funnel-shift-clamp",
        "envreg",
        "clusterlaunchcontrol",
        "prefetch",
        "cp-async-bulk",
    ] {
        let mir = std::fs::read_to_string(dir.join(name).join("pre-phielim.mir")).unwrap();
        let llc = std::fs::read_to_string(dir.join(name).join("llc.ptx")).unwrap();
        let opts = RunOptions {
            until: Some(Stage::PtxEmit),
            ..Default::default()
        };
        let ours = run(&mir, &opts)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .output;
        let mine: BTreeMap<String, Vec<String>> = functions(&ours).into_iter().collect();
        let theirs = functions(&llc);
        assert!(!theirs.is_empty(), "{name}: llc.ptx has functions");
        for (f, body) in theirs {
            let (a, b) = (
                canonical(mine.get(&f).map(Vec::as_slice).unwrap_or_default()),
                canonical(&body),
            );
            assert_eq!(a, b, "{name}: function `{f}` differs from llc-22's\n{ours}");
        }
        if let Some(px) = ptxas {
            support::ptxas::compile_only(px, &ours, &target_of(&llc), name)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
