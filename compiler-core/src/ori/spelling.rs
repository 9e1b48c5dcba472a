//! ptx-out's respelling: every output line the passes left alone goes back as the
//! source wrote it.
//!
//! ptxas embeds the PTX it read in a `-lineinfo` / `-G` cubin (`.nv_debug_ptx_txt`:
//! each line with its leading blanks and `.loc` / comment-only lines dropped, the rest
//! as written), so a line reprinted in our spelling (`[%rd1]` for `[ %rd1 + 0 ]`, one
//! space for two) changes the cubin even when the code does not.
//!
//! ```text
//!  ptx-lower:  baseline = print_plain(ORI as lowered)        (kept with the source text)
//!  ptx-out:    out      = print_plain(ORI after the passes)
//!              line k of the result = source line k   when out[k] == baseline[k]
//!                                     out[k]          otherwise
//!              kept only when it reads back to the same PTX as `out` (comments aside);
//!              else `out` as printed
//! ```
//!
//! Both prints put every element on its source line when there is room
//! ([`crate::ptx::ast::Lines`]), so line k of the baseline is what the source's line k
//! says, in our spelling.

use super::print::print_plain;
use super::Module;
use crate::ptx::ast::{self as ptx, Stmt};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;

/// The source text of a module lowered from PTX text, and the plain print of its ORI
/// as lowered (before any pass).
#[derive(Debug)]
pub struct Spelling {
    pub source: Arc<str>,
    pub baseline: String,
}

/// Records the spelling of a freshly lowered module whose PTX came from text.
pub fn remember(o: &mut Module, source: &ptx::Source) {
    if let Some(text) = &source.text {
        let baseline = print_plain(o);
        o.spelling = Some(Arc::new(Spelling {
            source: text.clone(),
            baseline,
        }));
    }
}

/// ptx-out's text: [`print_plain`], with every line the passes did not change given
/// back as the source spelled it (comments included).
pub fn print_ptx_out(o: &Module) -> String {
    let plain = print_plain(o);
    match &o.spelling {
        Some(s) => respell(&plain, s).unwrap_or(plain),
        None => plain,
    }
}

/// The respelled text, or None when it would not read back as the same PTX.
pub fn respell(plain: &str, s: &Spelling) -> Option<String> {
    let text = respelled(plain, s);
    let a = crate::ptx::parse(&text).ok()?;
    let b = crate::ptx::parse(plain).ok()?;
    (without_comments(a) == without_comments(b)).then_some(text)
}

/// `plain` with the lines it shares with the baseline given back as the source wrote
/// them (not yet checked). When the passes changed the line count, line k of `plain`
/// is compared with line k of the source (both prints follow the source's lines);
/// otherwise the baseline is first aligned with the source ([`align`]).
pub fn respelled(plain: &str, s: &Spelling) -> String {
    let src: Vec<&str> = s.source.lines().collect();
    let base: Vec<&str> = s.baseline.lines().collect();
    let out: Vec<&str> = plain.lines().collect();
    let mut text = String::with_capacity(s.source.len().max(plain.len()));
    let mut push = |line: &str| {
        text.push_str(line);
        text.push('\n');
    };
    if out.len() != base.len() {
        for (k, line) in out.iter().enumerate() {
            let keep = base.get(k) == Some(line) && src.get(k).is_some_and(|s| same(s, line));
            push(if keep { src[k] } else { line });
        }
        return text;
    }
    for piece in align(&base, &src) {
        match piece {
            Piece::Pair(b, j) if out[b.clone()] == base[b.clone()] => {
                j.for_each(|j| push(src[j]));
            }
            Piece::Pair(b, _) => b.for_each(|b| push(out[b])),
            Piece::Base(b) if skeleton(out[b]).is_empty() && skeleton(base[b]).is_empty() => {}
            Piece::Base(b) => push(out[b]),
            Piece::Src(j) => push(src[j]),
        }
    }
    text
}

/// A stretch of the baseline and the source that say the same thing, or a line of
/// either that has no partner.
enum Piece {
    /// Baseline lines and the source lines that say the same (one of the two ranges is
    /// one line: a `{ .reg .b16 t; mov.b32 {t, %rs1}, %r1; }` scope we print over four
    /// lines, an `mma` the source wrote over five).
    Pair(core::ops::Range<usize>, core::ops::Range<usize>),
    /// A baseline line with no source partner (a blank line, or past a point the two
    /// could not be matched).
    Base(usize),
    /// A blank or comment-only source line with no baseline partner.
    Src(usize),
}

/// Walks the baseline and the source together, matching lines by [`skeleton`]; gives
/// up matching (the rest of the baseline unpartnered) at the first pair of non-blank
/// lines it cannot match.
fn align(base: &[&str], src: &[&str]) -> Vec<Piece> {
    let (mut i, mut j, mut v) = (0, 0, Vec::new());
    while i < base.len() && j < src.len() {
        let (sb, ss) = (skeleton(base[i]), skeleton(src[j]));
        if sb == ss {
            v.push(Piece::Pair(i..i + 1, j..j + 1));
            (i, j) = (i + 1, j + 1);
        } else if sb.is_empty() {
            v.push(Piece::Base(i));
            i += 1;
        } else if ss.is_empty() {
            v.push(Piece::Src(j));
            j += 1;
        } else if let Some(n) = joined(&base[i..], &ss) {
            v.push(Piece::Pair(i..i + n, j..j + 1));
            (i, j) = (i + n, j + 1);
        } else if let Some(n) = joined(&src[j..], &sb) {
            v.push(Piece::Pair(i..i + 1, j..j + n));
            (i, j) = (i + 1, j + n);
        } else {
            break;
        }
    }
    v.extend((i..base.len()).map(Piece::Base));
    if i == base.len() {
        v.extend(
            (j..src.len())
                .filter(|&j| skeleton(src[j]).is_empty())
                .map(Piece::Src),
        );
    }
    v
}

/// How many of `lines` (two to sixteen), joined, have the skeleton `target`.
fn joined(lines: &[&str], target: &str) -> Option<usize> {
    let mut acc = String::new();
    for (n, line) in lines.iter().take(16).enumerate() {
        acc.push_str(&skeleton(line));
        if acc == target {
            return (n > 0).then_some(n + 1);
        }
        if !target.starts_with(acc.as_str()) {
            return None;
        }
    }
    None
}

/// Whether a source line says what our line says, spelled its own way: the same text
/// once blanks, comments and `+0` offsets are dropped (`[ %rd1 + 0 ]` is `[%rd1]`).
/// Comment-only and blank lines are alike; the `// begin inline asm` / `// end inline
/// asm` markers, which the reader takes as structure, are text.
fn same(src: &str, ours: &str) -> bool {
    skeleton(src) == skeleton(ours)
}

/// A line without blanks, comments and `+0]` offsets.
fn skeleton(line: &str) -> String {
    let t = line.trim();
    let code = if t.starts_with("// begin inline asm") || t.starts_with("// end inline asm") {
        t
    } else {
        t.find("//").map_or(t, |i| &t[..i])
    };
    let mut s: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    while let Some(i) = s.find("+0]") {
        s.replace_range(i..i + 2, "");
    }
    s
}

/// A module with its full-line comments dropped (the only statements the respelled
/// text may add).
pub fn without_comments(mut m: ptx::Module) -> ptx::Module {
    fn strip(v: &mut Vec<Stmt>) {
        v.retain(|s| !matches!(s, Stmt::Comment(_)));
        for s in v.iter_mut() {
            if let Stmt::Scope(inner) | Stmt::InlineAsm(inner) = s {
                strip(inner);
            }
        }
    }
    for item in &mut m.items {
        if let ptx::Item::Func(f) = item {
            if let Some(body) = &mut f.body {
                strip(body);
            }
        }
    }
    m
}
