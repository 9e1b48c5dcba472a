//! Comparing a function body with llc-22's: registers renamed in order of first
//! appearance over the body (which name survives a join is immaterial), everything
//! else as printed.

use compiler_core::mir::{print_function, Function, Op};

/// The body lines of `f`, with `%N` renamed `%vK` by first appearance.
pub fn canonical_body(f: &Function) -> Vec<String> {
    let text = print_function(f);
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    let mut in_body = false;
    for line in text.lines() {
        if line.starts_with("body:") {
            in_body = true;
            continue;
        }
        let t = line.trim();
        if !in_body || t.is_empty() || t == "..." {
            continue;
        }
        // Branch probabilities are printed only by llc (`%bb.1(0x80000000)`).
        let t = if t.starts_with("successors:") {
            strip_probabilities(t)
        } else {
            t.to_string()
        };
        out.push(rename(&t, &mut names));
    }
    out
}

fn rename(line: &str, names: &mut Vec<String>) -> String {
    let mut canon = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' && chars.peek().is_some_and(|d| d.is_ascii_digit()) {
            let mut n = String::new();
            while let Some(&d) = chars.peek() {
                if !d.is_ascii_digit() {
                    break;
                }
                n.push(d);
                chars.next();
            }
            let idx = names.iter().position(|x| *x == n).unwrap_or_else(|| {
                names.push(n.clone());
                names.len() - 1
            });
            canon.push_str(&format!("%v{idx}"));
        } else {
            canon.push(c);
        }
    }
    canon
}

/// COPY instructions in `f`.
pub fn copy_count(f: &Function) -> usize {
    f.all_insts()
        .filter(|&(_, i)| f.insts[i].is(Op::COPY))
        .count()
}

/// Both bodies canonical, as a line diff (`-` ours, `+` other) for messages.
pub fn body_diff(ours: &Function, other: &Function) -> String {
    let (a, b) = (canonical_body(ours), canonical_body(other));
    let mut s = String::new();
    for (k, (x, y)) in a.iter().zip(&b).enumerate() {
        if x != y {
            s.push_str(&format!("{k}: - {x}\n{k}: + {y}\n"));
        }
    }
    if a.len() != b.len() {
        s.push_str(&format!("lengths {} vs {}\n", a.len(), b.len()));
    }
    s
}

/// `successors: %bb.1(0x40000000), %bb.2(0x40000000)` → `successors: %bb.1, %bb.2`.
fn strip_probabilities(line: &str) -> String {
    let mut out = String::new();
    let mut skip = false;
    for c in line.chars() {
        match c {
            '(' => skip = true,
            ')' if skip => skip = false,
            _ if !skip => out.push(c),
            _ => {}
        }
    }
    out
}
