//! No import cycle between the top-level modules of `compiler-core/src` (`dag`, `mir`,
//! `passes`, `pipeline`, ...): the test reads every `crate::<module>` path in the code
//! (comments skipped), builds the graph "module A names module B", and fails on any
//! strongly connected component of more than one module that is not listed below as
//! known, and on a known cycle that is gone (so the list shrinks as cycles are broken).
//!
//! The level is the top-level module: a file inside `passes/` naming `crate::ori` is an
//! edge `passes -> ori`; names inside one top-level module are free.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Cycles known today, each with the edges that close it. Breaking one means moving the
/// named helper to the module that owns its data (issue 32, item 4).
const KNOWN: &[(&[&str], &str)] = &[
    (
        &["liveness", "mir"],
        "mir/verify*.rs read liveness::{Cfg, DomTree, undefined_reads} for the kill and \
         live-in rules; liveness computes over mir::Function",
    ),
    (
        &["passes", "trace"],
        "trace's Payload carries the NVPTX coalescer's interval-tree events and \
         trace/player.rs runs two-address (ori left this cycle: ori::edit has its own \
         ReplayError, and the ORI/PTX interpreter that reads ori lives in interp/ori)",
    ),
];

fn top_modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            if e.path().is_dir() {
                Some(name)
            } else {
                name.strip_suffix(".rs")
                    .filter(|n| *n != "lib")
                    .map(str::to_string)
            }
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The modules each top-level module names (`crate::x` outside comments).
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let tops = top_modules(src);
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap();
        let from = first.trim_end_matches(".rs").to_string();
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for line in text.lines() {
            let code = line.split("//").next().unwrap();
            for (at, _) in code.match_indices("crate::") {
                let name: String = code[at + 7..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name != from && tops.contains(&name) {
                    g.entry(from.clone()).or_default().insert(name);
                }
            }
        }
    }
    g
}

/// Strongly connected components with more than one module (Tarjan), each sorted.
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: BTreeSet<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        for w in t.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let l = t.low[w].min(t.low[v]);
                t.low.insert(v, l);
            } else if t.stack.contains(&w) {
                let l = t.index[w].min(t.low[v]);
                t.low.insert(v, l);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.insert(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: BTreeSet::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn no_new_import_cycle_between_top_level_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = graph(&src);
    let found = cycles(&g);
    let known: BTreeSet<Vec<String>> = KNOWN
        .iter()
        .map(|(c, _)| c.iter().map(|s| s.to_string()).collect())
        .collect();
    let new: Vec<_> = found.difference(&known).collect();
    let gone: Vec<_> = known.difference(&found).collect();
    let edges = |c: &Vec<String>| {
        let mut s = String::new();
        for a in c {
            for b in g.get(a).into_iter().flatten().filter(|b| c.contains(b)) {
                s += &format!("  {a} -> {b}\n");
            }
        }
        s
    };
    let mut msg = String::new();
    for c in &new {
        msg += &format!("new import cycle {c:?}:\n{}", edges(c));
    }
    for c in &gone {
        msg += &format!("known cycle {c:?} is gone (or changed): update KNOWN\n");
    }
    assert!(msg.is_empty(), "{msg}");
}

/// The checker itself: a two-module cycle is found, a chain is not.
#[test]
fn the_checker_finds_a_cycle() {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    assert!(cycles(&g).is_empty());
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        cycles(&g).into_iter().collect::<Vec<_>>(),
        [vec!["a".to_string(), "b".into(), "c".into()]]
    );
}
