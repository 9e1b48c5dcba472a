//! Module variables from the IR globals a MIR file embeds, declared as llc-22's
//! `printModuleLevelGV` declares them.
//!
//! ```text
//!  @g = [linkage] addrspace(N) global|constant TYPE [INIT][, align A]
//!   linkage   external + initializer → .visible, external declaration → .extern,
//!             common in .global → .common, weak kinds → .weak, local → none
//!   kind      !nvvm.annotations "texture" / "surface" → .global .texref / .surfref;
//!             "managed" → .attribute(.managed)
//!   type      float/int(≤64)/ptr → one scalar (.u8 for i1; a declaration's pointer
//!             is .b64, a definition's .u64); anything else → .b8 name[store size]
//!   init      scalars: ` = value` (integers in decimal, floats as 0f/0d hex);
//!             aggregates: their bytes, trailing zeros left out, or 64-bit words when
//!             they hold addresses of other symbols
//! ```
//!
//! An initializer this reader cannot evaluate (constant expressions other than an
//! address-space cast of a symbol, packed aggregates with addresses) is left out and
//! the caller says so: the variable then starts zeroed.

use super::ir::{layout, Linkage};
use crate::entity::{Interner, SecondaryMap, Sym};
use crate::ptx::ast::VarDecl;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// What `!nvvm.annotations` says a global is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    Plain,
    Texture,
    Surface,
    Managed,
}

/// A module-level IR global.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub name: String,
    pub linkage: Linkage,
    pub addrspace: u32,
    /// The value type as written.
    pub ty: String,
    pub size: u64,
    pub align: u64,
    /// `external` without initializer: declared, defined elsewhere.
    pub declaration: bool,
    /// The initializer text (None for a declaration).
    pub init: Option<String>,
    pub kind: Kind,
    /// `private` linkage (left out when nothing refers to it).
    pub private: bool,
}

/// An evaluated initializer.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    /// Zero, `zeroinitializer`, `undef`, `poison`: nothing is printed.
    Zero,
    /// One scalar, as PTX spells it.
    Scalar(String),
    /// Bytes with symbols (address, spelling) at 8-byte slots.
    Bytes(Vec<u8>, Vec<(usize, String)>),
}

impl Global {
    /// Shared variables with internal or private linkage used by one function only are
    /// declared inside it (llc's `canDemoteGlobalVar`).
    pub fn demotable(&self) -> bool {
        self.addrspace == 3 && self.linkage == Linkage::Local
    }

    fn space(&self) -> &'static str {
        match self.addrspace {
            3 => ".shared",
            4 => ".const",
            5 => ".local",
            _ => ".global",
        }
    }

    /// The PTX declaration, and whether an initializer was left out because this reader
    /// cannot evaluate it. `ptx_version` is 10 × the ISA version (`.common` needs 5.0).
    pub fn decl(&self, ptx_version: u32, demoted: bool, ir: &str) -> (VarDecl, bool) {
        let mut words: Vec<String> = Vec::new();
        if !demoted {
            match (self.linkage, self.declaration) {
                (Linkage::External, false) => words.push(".visible".into()),
                (Linkage::External, true) => words.push(".extern".into()),
                (Linkage::Common, _) if ptx_version >= 50 && self.addrspace == 1 => {
                    words.push(".common".into())
                }
                (Linkage::Common | Linkage::Weak, _) => words.push(".weak".into()),
                (Linkage::Local, _) => {}
            }
        }
        let simple = |words: Vec<String>, name: &str| VarDecl {
            words,
            name: name.into(),
            dims: Vec::new(),
            init: None,
        };
        match self.kind {
            Kind::Texture | Kind::Surface => {
                let r = if self.kind == Kind::Texture {
                    ".texref"
                } else {
                    ".surfref"
                };
                words.extend([".global".to_string(), r.to_string()]);
                return (simple(words, &self.name), false);
            }
            _ => {}
        }
        words.push(self.space().into());
        if self.kind == Kind::Managed {
            words.push(".attribute(.managed)".into());
        }
        words.extend([".align".to_string(), self.align.to_string()]);
        match scalar_type(&self.ty, self.declaration) {
            Some(t) => {
                words.push(t);
                let mut d = simple(words, &self.name);
                let mut dropped = false;
                if matches!(self.addrspace, 1 | 4) {
                    match self.init.as_deref().map(|i| self.value(i, ir)) {
                        Some(Some(Value::Scalar(v))) => d.init = Some(vec![v]),
                        Some(Some(Value::Zero)) | None => {}
                        Some(_) => dropped = true,
                    }
                }
                (d, dropped)
            }
            None => self.array_decl(words, ir),
        }
    }

    /// `.b8 name[size] = {bytes}` or `.u64 name[size/8] = {words}`.
    fn array_decl(&self, mut words: Vec<String>, ir: &str) -> (VarDecl, bool) {
        let size = self.size.min(u32::MAX as u64) as u32;
        let dims = match (size, self.declaration) {
            (0, true) => vec![None],
            (0, false) => Vec::new(),
            (n, _) => vec![Some(n)],
        };
        let init = self
            .init
            .as_deref()
            .filter(|_| matches!(self.addrspace, 1 | 4))
            .map(|i| self.value(i, ir));
        let (ty, dims, init, dropped) = match init {
            Some(Some(Value::Bytes(bytes, syms))) if syms.is_empty() => {
                let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
                let mut toks = vec!["{".to_string()];
                for (k, b) in bytes[..end].iter().enumerate() {
                    if k > 0 {
                        toks.push(",".into());
                    }
                    toks.push(b.to_string());
                }
                toks.push("}".into());
                (".b8", dims, Some(toks), false)
            }
            Some(Some(Value::Bytes(bytes, syms)))
                if bytes.len() % 8 == 0 && syms.iter().all(|(p, _)| p % 8 == 0) =>
            {
                let mut toks = vec!["{".to_string()];
                for (k, w) in bytes.chunks(8).enumerate() {
                    if k > 0 {
                        toks.push(",".into());
                    }
                    match syms.iter().find(|(p, _)| *p == k * 8) {
                        Some((_, s)) => toks.push(s.clone()),
                        None => {
                            let mut v = 0u64;
                            for (i, b) in w.iter().enumerate() {
                                v |= u64::from(*b) << (8 * i);
                            }
                            toks.push(v.to_string());
                        }
                    }
                }
                toks.push("}".into());
                let n = (bytes.len() / 8) as u32;
                (".u64", vec![Some(n)], Some(toks), false)
            }
            Some(Some(Value::Zero)) | None => (".b8", dims, None, false),
            Some(_) => (".b8", dims, None, true),
        };
        words.push(ty.into());
        let d = VarDecl {
            words,
            name: self.name.clone(),
            dims,
            init,
        };
        (d, dropped)
    }

    /// Evaluates the initializer (None: a form this reader does not know).
    fn value(&self, init: &str, ir: &str) -> Option<Value> {
        let init = init.trim();
        if matches!(init, "zeroinitializer" | "undef" | "poison" | "null") {
            return Some(Value::Zero);
        }
        if scalar_type(&self.ty, false).is_some() {
            return scalar_value(&self.ty, init);
        }
        let mut bytes = vec![0u8; self.size as usize];
        let mut syms = Vec::new();
        fill(&self.ty, init, 0, (&mut bytes, &mut syms), ir)?;
        if bytes.iter().all(|&b| b == 0) && syms.is_empty() {
            return Some(Value::Zero);
        }
        Some(Value::Bytes(bytes, syms))
    }
}

/// The PTX type of a scalar global (None: stored as bytes). A declaration prints a
/// pointer as `.b64` and `i1` as `.pred`; a definition `.u64` and `.u8`.
fn scalar_type(ty: &str, declaration: bool) -> Option<String> {
    Some(match ty {
        "half" | "bfloat" => ".b16".into(),
        "float" => ".f32".into(),
        "double" => ".f64".into(),
        "i1" if declaration => ".pred".into(),
        "i1" => ".u8".into(),
        t if t == "ptr" || t.starts_with("ptr addrspace(") => {
            if declaration { ".b64" } else { ".u64" }.into()
        }
        t => {
            let n: u32 = t.strip_prefix('i')?.parse().ok()?;
            if n > 64 {
                return None;
            }
            format!(".u{n}")
        }
    })
}

/// A scalar initializer as PTX prints it.
fn scalar_value(ty: &str, v: &str) -> Option<Value> {
    let v = v.trim();
    if let Some(sym) = symbol(v) {
        return Some(Value::Scalar(sym));
    }
    let (bits, _) = int_bits(ty, v)?;
    if bits == 0 {
        return Some(Value::Zero);
    }
    Some(Value::Scalar(match ty {
        "float" => format!("0f{:08X}", bits as u32),
        "double" => format!("0d{:016X}", bits as u64),
        "half" | "bfloat" => return None,
        _ => {
            let n: u32 = ty.strip_prefix('i')?.parse().ok()?;
            // Integers print in decimal, as signed values.
            let shift = 128 - n;
            (((bits << shift) as i128) >> shift).to_string()
        }
    }))
}

/// A symbol initializer: `@g` (its name) or an address-space cast of it to a
/// generic pointer (`generic(g)`).
fn symbol(v: &str) -> Option<String> {
    let name = |s: &str| {
        s.trim()
            .trim_start_matches('@')
            .trim_matches('"')
            .to_string()
    };
    if let Some(s) = v.strip_prefix('@') {
        return Some(name(s));
    }
    let inner = v
        .strip_prefix("addrspacecast (")?
        .strip_suffix(" to ptr)")?;
    let sym = inner.rsplit(' ').next()?;
    sym.starts_with('@')
        .then(|| format!("generic({})", name(sym)))
}

/// The bits of a scalar constant of type `ty` (integers, `true`/`false`, IR float
/// literals: decimal or the 64-bit `0x` form, `0xH`/`0xR` for half/bfloat), with its
/// byte count.
fn int_bits(ty: &str, v: &str) -> Option<(u128, usize)> {
    let (size, _) = layout(ty, "")?;
    let bits: u128 = match (ty, v) {
        (_, "true") => 1,
        (_, "false") => 0,
        ("half" | "bfloat", v) => {
            let h = v.strip_prefix("0xH").or_else(|| v.strip_prefix("0xR"))?;
            u128::from(u16::from_str_radix(h, 16).ok()?)
        }
        ("float" | "double", v) => {
            let d: f64 = match v.strip_prefix("0x") {
                Some(h) => f64::from_bits(u64::from_str_radix(h, 16).ok()?),
                None => v.parse().ok()?,
            };
            if ty == "float" {
                u128::from((d as f32).to_bits())
            } else {
                u128::from(d.to_bits())
            }
        }
        (_, v) => {
            let n: i128 = v.parse().ok()?;
            n as u128
        }
    };
    Some((bits, size as usize))
}

/// Writes the constant `v` of type `ty` into `bytes` at `at` (little endian).
fn fill(
    ty: &str,
    v: &str,
    at: usize,
    (bytes, syms): (&mut [u8], &mut Vec<(usize, String)>),
    ir: &str,
) -> Option<()> {
    let (ty, v) = (ty.trim(), v.trim());
    if ty.starts_with('%') {
        return fill(named_type(ty, ir)?, v, at, (bytes, syms), ir);
    }
    if matches!(v, "zeroinitializer" | "undef" | "poison" | "null") {
        return Some(());
    }
    if ty == "ptr" || ty.starts_with("ptr addrspace(") {
        syms.push((at, symbol(v)?));
        return Some(());
    }
    if let Some(s) = v.strip_prefix("c\"").and_then(|r| r.strip_suffix('"')) {
        let mut k = at;
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let byte = if b[i] == b'\\' {
                let h = s.get(i + 1..i + 3)?;
                i += 3;
                u8::from_str_radix(h, 16).ok()?
            } else {
                i += 1;
                b[i - 1]
            };
            *bytes.get_mut(k)? = byte;
            k += 1;
        }
        return Some(());
    }
    if let Some((inner_ty, elems)) = members(ty) {
        // Aggregate: each `TYPE value` member at its offset.
        let body = strip_brackets(v)?;
        let parts = split_members(body);
        if parts.len() != elems.len() {
            return None;
        }
        let packed = ty.starts_with("<{");
        let mut off = 0u64;
        for (part, ety) in parts.iter().zip(&elems) {
            let ety = inner_ty.as_deref().unwrap_or(ety);
            let (size, align) = layout(ety, ir)?;
            if !packed && !ty.starts_with('<') {
                off = off.next_multiple_of(align);
            }
            let value = part.trim().strip_prefix(ety)?.trim();
            fill(ety, value, at + off as usize, (&mut *bytes, &mut *syms), ir)?;
            off += size;
        }
        return Some(());
    }
    let (bits, size) = int_bits(ty, v)?;
    for i in 0..size.min(16) {
        *bytes.get_mut(at + i)? = (bits >> (8 * i)) as u8;
    }
    Some(())
}

/// The definition of a named type (`%t1 = type <{ i16, ptr }>`).
fn named_type<'a>(name: &str, ir: &'a str) -> Option<&'a str> {
    ir.lines().find_map(|l| {
        let rest = l
            .trim()
            .strip_prefix(name)?
            .trim_start()
            .strip_prefix('=')?;
        rest.trim_start().strip_prefix("type ").map(str::trim)
    })
}

/// Globals in declaration order, each after the globals its initializer names (ptxas
/// takes no forward references; llc sorts them the same way), with whether the
/// initializer of a global of another name names it.
///
/// Each initializer is read once for the symbols it names ([`each_named`]) and each
/// name found by a binary search among the globals' names: the work grows with the
/// initializers' length and the names they hold, not with globals × globals.
pub fn def_use_order(globals: &[Global]) -> Vec<(&Global, bool)> {
    let (ids, of) = numbered(globals);
    // Per global, the globals its initializer names, in order; per global, whether a
    // global of another name names it.
    let mut deps: Vec<Vec<u32>> = vec![Vec::new(); globals.len()];
    let mut by_other = vec![false; globals.len()];
    for (k, g) in globals.iter().enumerate() {
        each_named(g.init.as_deref().unwrap_or(""), &mut |n, _| {
            for &j in ids.get(n).map_or(&[][..], |s| &of[s]) {
                deps[k].push(j);
                by_other[j as usize] |= n != g.name;
            }
        });
        crate::sort::sort_ints(&mut deps[k]);
        deps[k].dedup();
    }
    fn visit(k: usize, deps: &[Vec<u32>], seen: &mut [bool], out: &mut Vec<usize>) {
        if seen[k] {
            return;
        }
        seen[k] = true;
        for &j in deps[k].iter().filter(|&&j| j as usize != k) {
            visit(j as usize, deps, seen, out);
        }
        out.push(k);
    }
    let mut seen = vec![false; globals.len()];
    let mut out = Vec::new();
    for k in 0..globals.len() {
        visit(k, &deps, &mut seen, &mut out);
    }
    out.into_iter().map(|k| (&globals[k], by_other[k])).collect()
}

/// The globals' names numbered by an [`Interner`], and the globals of each name in order.
fn numbered(globals: &[Global]) -> (Interner, SecondaryMap<Sym, Vec<u32>>) {
    let mut ids = Interner::default();
    let mut of: SecondaryMap<Sym, Vec<u32>> = SecondaryMap::new();
    for (k, g) in globals.iter().enumerate() {
        of[ids.intern(&g.name)].push(k as u32);
    }
    (ids, of)
}

/// Calls `f` with every symbol name `text` refers to and the text after it: after each
/// `@`, a quoted name (`@"a b"` names `a b`) and the run of identifier characters
/// (letters, digits, `_ . $ -`), also cut at each `-` (`@f-1` names `f-1` and `f`): the
/// names whose `@name` is not followed by a letter, digit, `_`, `.` or `$`, which is how
/// the text was searched for one name. (A `dyn` callback: one copy of the code.)
pub fn each_named<'t>(text: &'t str, f: &mut dyn FnMut(&'t str, &'t str)) {
    for (p, _) in text.match_indices('@') {
        let s = &text[p + 1..];
        if let Some(end) = s.strip_prefix('"').and_then(|q| q.find('"')) {
            f(&s[1..end + 1], &s[end + 2..]);
        }
        let run = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || "_.$-".contains(c)))
            .unwrap_or(s.len());
        for (q, c) in s[..run].char_indices() {
            if c == '-' && q > 0 {
                f(&s[..q], &s[q..]);
            }
        }
        if run > 0 {
            f(&s[..run], &s[run..]);
        }
    }
}

/// An aggregate type's member types: (the element type of an array or vector, one
/// entry per element) or (None, the struct's member types).
fn members(ty: &str) -> Option<(Option<String>, Vec<String>)> {
    let inner = ty
        .strip_prefix("<{")
        .and_then(|r| r.strip_suffix("}>"))
        .or_else(|| ty.strip_prefix('{').and_then(|r| r.strip_suffix('}')));
    if let Some(inner) = inner {
        let m: Vec<String> = super::ir::split_top(inner)
            .iter()
            .map(|s| s.to_string())
            .collect();
        return Some((None, m));
    }
    let inner = ty
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .or_else(|| ty.strip_prefix('<').and_then(|r| r.strip_suffix('>')))?;
    let (n, elem) = inner.split_once(" x ")?;
    let n: usize = n.trim().parse().ok()?;
    Some((Some(elem.trim().to_string()), vec![String::new(); n]))
}

fn strip_brackets(v: &str) -> Option<&str> {
    for (a, b) in [("<{", "}>"), ("{", "}"), ("[", "]"), ("<", ">")] {
        if let Some(r) = v.strip_prefix(a).and_then(|r| r.strip_suffix(b)) {
            return Some(r.trim());
        }
    }
    None
}

fn split_members(s: &str) -> Vec<&str> {
    super::ir::split_top(s)
}

/// Every `@name = ... global|constant TYPE [INIT], ...` line, with the kinds
/// `!nvvm.annotations` gives them; `llvm.*`/`nvvm.*` globals and `llvm.metadata`
/// sections are not variables.
pub fn globals(ir: &str) -> Vec<Global> {
    let mut out = Vec::new();
    for line in ir.lines() {
        if let Some(g) = global(line.trim(), ir) {
            out.push(g);
        }
    }
    // Each global's kind: that of the first `!` line naming it followed by a comma
    // (`@name,`, `@"name",`) that has one, in one walk over the lines.
    let (ids, of) = numbered(&out);
    for l in ir.lines().map(str::trim).filter(|l| l.starts_with('!')) {
        let Some(kind) = [
            ("!\"texture\", i32 1", Kind::Texture),
            ("!\"surface\", i32 1", Kind::Surface),
            ("!\"managed\", i32 1", Kind::Managed),
        ]
        .into_iter()
        .find_map(|(key, kind)| l.contains(key).then_some(kind)) else {
            continue;
        };
        each_named(l, &mut |n, rest| {
            for &k in ids.get(n).filter(|_| rest.starts_with(',')).map_or(&[][..], |s| &of[s]) {
                // A kind once set is never Plain: the first line wins.
                if out[k as usize].kind == Kind::Plain {
                    out[k as usize].kind = kind;
                }
            }
        });
    }
    out
}

fn global(l: &str, ir: &str) -> Option<Global> {
    let rest = l.strip_prefix('@')?;
    let (name, def) = rest.split_once(" = ")?;
    let name = name.trim_matches('"');
    if name.starts_with("llvm.") || name.starts_with("nvvm.") {
        return None;
    }
    let words: Vec<&str> = def.split_whitespace().collect();
    let kw = words
        .iter()
        .position(|w| *w == "global" || *w == "constant")?;
    if words[..kw]
        .iter()
        .any(|w| w.contains('(') && !w.starts_with("addrspace("))
    {
        return None;
    }
    let addrspace = words[..kw]
        .iter()
        .find_map(|w| {
            w.strip_prefix("addrspace(")?
                .strip_suffix(')')?
                .parse()
                .ok()
        })
        .unwrap_or(0);
    let external = words[..kw].contains(&"external");
    let after = def[def.find(words[kw])? + words[kw].len()..].trim_start();
    let ty = super::ir::type_prefix(after).trim_end_matches(',');
    let tail = after[ty.len()..].trim_start();
    // A declaration's attributes follow a comma right after its type.
    let tail = tail.strip_prefix(',').map_or(tail, |t| t.trim_start());
    let parts = super::ir::split_top(tail);
    let mut init = None;
    let mut align = None;
    for (k, p) in parts.iter().enumerate() {
        if let Some(a) = p.strip_prefix("align ") {
            align = a.trim().parse().ok();
        } else if p.starts_with("section \"llvm.metadata\"") {
            return None;
        } else if k == 0 && !external && !p.starts_with('#') {
            init = Some(p.split(" #").next().unwrap_or(p).trim().to_string());
        }
    }
    let (size, natural) = layout(ty, ir).or_else(|| int_layout(ty))?;
    Some(Global {
        name: name.into(),
        linkage: Linkage::of_words(words[..kw].iter().copied()),
        addrspace,
        ty: ty.to_string(),
        size,
        align: align.unwrap_or_else(|| pref_align(ty, ir).unwrap_or(natural)),
        declaration: external,
        init,
        kind: Kind::Plain,
        private: words[..kw].contains(&"private"),
    })
}

/// The preferred alignment of a type (what a global without `align` gets): an
/// array's element's, at least 8 for a struct (the data layout's default `a:0:64`),
/// the ABI alignment otherwise.
fn pref_align(ty: &str, ir: &str) -> Option<u64> {
    let ty = ty.trim();
    if let Some(def) = ty.starts_with('%').then(|| named_type(ty, ir)).flatten() {
        return pref_align(def, ir);
    }
    if let Some(inner) = ty.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return pref_align(inner.split_once(" x ")?.1, ir);
    }
    let (_, abi) = layout(ty, ir).or_else(|| int_layout(ty))?;
    Some(if ty.starts_with('{') || ty.starts_with("<{") {
        abi.max(8)
    } else {
        abi
    })
}

/// Size and alignment of an odd-width integer (`i33`: 5 bytes stored in 8, aligned to
/// the next power of two of at least a byte, at most 8 — `i128` is 16).
fn int_layout(ty: &str) -> Option<(u64, u64)> {
    let n: u64 = ty.strip_prefix('i')?.parse().ok()?;
    let align = n
        .div_ceil(8)
        .next_power_of_two()
        .min(if n > 64 { 16 } else { 8 });
    Some((n.div_ceil(8).next_multiple_of(align), align))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::print::print_stmts;

    fn decl(ir: &str) -> String {
        let g = globals(ir);
        assert_eq!(g.len(), 1, "{ir}");
        let (d, _) = g[0].decl(78, false, ir);
        let mut s = String::new();
        print_stmts(&mut s, &[crate::ptx::ast::Stmt::Var(d)]);
        s.trim().to_string()
    }

    /// Expected lines are llc-22's (corpus llvm-nvptx: bf16, i1-array-global,
    /// global-variable-big, managed, common-linkage, nofunc, vaargs, cse-mov-sym).
    #[test]
    fn globals_print_as_llc_prints_them() {
        for (ir, want) in [
            (
                "@bfloat_array = addrspace(1) constant [4 x bfloat] [bfloat 0xR0201, bfloat 0xR0403, bfloat 0xR0605, bfloat 0xR0807]",
                ".visible .global .align 2 .b8 bfloat_array[8] = {1, 2, 3, 4, 5, 6, 7, 8};",
            ),
            (
                "@global_cst = private addrspace(1) constant [6 x i1] [i1 true, i1 false, i1 true, i1 false, i1 true, i1 false]",
                ".global .align 1 .b8 global_cst[6] = {1, 0, 1, 0, 1};",
            ),
            (
                "@gv = addrspace(1) externally_initialized global i128 21345817372864405881847059188222722561, align 16",
                ".visible .global .align 16 .b8 gv[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};",
            ),
            (
                "@decl_g = external addrspace(1) global i32, align 4",
                ".extern .global .align 4 .u32 decl_g;",
            ),
            (
                "@g = common addrspace(1) global i32 0, align 4",
                ".common .global .align 4 .u32 g;",
            ),
            (
                "@s = common addrspace(3) global i32 0, align 4",
                ".weak .shared .align 4 .u32 s;",
            ),
            (
                "@Funcs = local_unnamed_addr addrspace(1) externally_initialized global [1 x ptr] [ptr @func], align 8",
                ".visible .global .align 8 .u64 Funcs[1] = {func};",
            ),
            (
                "@foo_ptr = internal addrspace(1) global ptr @foo, align 8",
                ".global .align 8 .u64 foo_ptr = foo;",
            ),
            (
                "@global_smem = external addrspace(3) global [0 x i8], align 16",
                ".extern .shared .align 16 .b8 global_smem[];",
            ),
            (
                "@i1g = addrspace(1) global i1 false, align 2",
                ".visible .global .align 2 .u8 i1g;",
            ),
            (
                "@i1_l = external addrspace(1) global i1",
                ".extern .global .align 1 .pred i1_l;",
            ),
            (
                "@a = external addrspace(1) global ptr #0",
                ".extern .global .align 8 .b64 a;",
            ),
            (
                "@k = addrspace(3) global i32 undef, align 4",
                ".visible .shared .align 4 .u32 k;",
            ),
            (
                "@x = addrspace(1) global float 1.500000e+00",
                ".visible .global .align 4 .f32 x = 0f3FC00000;",
            ),
            (
                "@y = addrspace(4) global i32 -7",
                ".visible .const .align 4 .u32 y = -7;",
            ),
        ] {
            assert_eq!(decl(ir), want, "{ir}");
        }
    }

    #[test]
    fn annotations_name_textures_and_managed_variables() {
        let ir = "@texture = internal addrspace(1) global i64 0, align 8\n\
                  @m = addrspace(1) global i32 0\n\
                  !0 = !{ptr addrspace(1) @texture, !\"texture\", i32 1}\n\
                  !1 = !{ptr addrspace(1) @m, !\"managed\", i32 1}\n";
        let g = globals(ir);
        assert_eq!(g[0].kind, Kind::Texture);
        assert_eq!(g[1].kind, Kind::Managed);
        let mut s = String::new();
        let d: Vec<_> = g
            .iter()
            .map(|g| crate::ptx::ast::Stmt::Var(g.decl(40, false, ir).0))
            .collect();
        print_stmts(&mut s, &d);
        assert_eq!(
            s,
            "\t.global .texref texture;\n\t.visible .global .attribute(.managed) .align 4 .u32 m;\n"
        );
    }

    /// The old per-pair search: `text` names `@name` quoted, or plain and not followed
    /// by a letter, digit, `_`, `.` or `$`.
    fn names(text: &str, name: &str) -> bool {
        text.contains(&format!("@\"{name}\""))
            || text.match_indices(&format!("@{name}")).any(|(p, _)| {
                !text[p + 1 + name.len()..]
                    .starts_with(|c: char| c.is_ascii_alphanumeric() || "_.$".contains(c))
            })
    }

    /// The one-walk readers give what the per-pair searches gave (globals × globals
    /// initializer searches, globals × lines for the annotations) on names with `-`,
    /// `.`, quotes, prefixes of each other, a repeated name and self-references.
    #[test]
    fn one_walk_readers_agree_with_per_pair_searches() {
        let ir = "@f-1 = addrspace(1) global ptr @f, align 8\n\
                  @f = addrspace(1) global [2 x ptr] [ptr @\"a b\", ptr @f.x], align 8\n\
                  @\"a b\" = addrspace(1) global ptr @f-1-2, align 8\n\
                  @f.x = addrspace(1) global ptr @f.x, align 8\n\
                  @f-1-2 = addrspace(1) global ptr @g, align 8\n\
                  @g = addrspace(1) global i32 0, align 4\n\
                  @f-1 = addrspace(1) global ptr @f-1-2, align 8\n\
                  @t = addrspace(1) global i64 0, align 8\n\
                  !0 = !{ptr @t, !\"texture\", i32 1, ptr @\"a b\"}\n\
                  !1 = !{ptr @g, !\"other\", i32 1}\n\
                  !2 = !{ptr @g, !\"surface\", i32 1}\n\
                  !3 = !{ptr @\"a b\", !\"managed\", i32 1, ptr @t, !\"surface\", i32 1}\n";
        let gs = globals(ir);
        fn names_of<'a>(v: &[&'a Global]) -> Vec<&'a str> {
            v.iter().map(|g| g.name.as_str()).collect()
        }
        // The old order: each global after those its initializer names, by position.
        fn visit<'a>(k: usize, gs: &'a [Global], seen: &mut Vec<bool>, out: &mut Vec<&'a Global>) {
            if core::mem::replace(&mut seen[k], true) {
                return;
            }
            for (j, o) in gs.iter().enumerate() {
                if j != k && gs[k].init.as_deref().is_some_and(|i| names(i, &o.name)) {
                    visit(j, gs, seen, out);
                }
            }
            out.push(&gs[k]);
        }
        let (mut seen, mut old) = (vec![false; gs.len()], Vec::new());
        for k in 0..gs.len() {
            visit(k, &gs, &mut seen, &mut old);
        }
        let new = def_use_order(&gs);
        let new_globals: Vec<&Global> = new.iter().map(|p| p.0).collect();
        assert_eq!(names_of(&new_globals), names_of(&old));
        // By hand: f-1 waits for f, f for "a b" and f.x, "a b" for f-1-2 (and f-1, f, which
        // its `@f-1-2` also names), f-1-2 for g.
        let want = ["g", "f-1-2", "f-1", "a b", "f.x", "f", "f-1", "t"];
        assert_eq!(names_of(&old), want);
        for (g, by_other) in &new {
            let old_by_other = gs
                .iter()
                .any(|o| o.name != g.name && o.init.as_deref().is_some_and(|i| names(i, &g.name)));
            assert_eq!(*by_other, old_by_other, "{}", g.name);
        }
        for g in &gs {
            let mut named = Vec::new();
            for i in gs.iter().filter_map(|o| o.init.as_deref()) {
                each_named(i, &mut |n, _| named.push(n));
            }
            let old = gs.iter().any(|o| o.init.as_deref().is_some_and(|i| names(i, &g.name)));
            assert_eq!(named.contains(&g.name.as_str()), old, "{}", g.name);
        }
        // t: texture (its first line; !3's surface comes later); g: surface (!1 has no
        // kind); "a b": !3's first kind in key order (surface before managed).
        let kinds: Vec<Kind> = gs.iter().map(|g| g.kind).collect();
        use Kind::*;
        assert_eq!(kinds, [Plain, Plain, Surface, Plain, Plain, Surface, Plain, Texture]);
    }
}
