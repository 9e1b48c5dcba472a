//! The little `ptx-emit` needs from the LLVM IR module a MIR file embeds: each
//! function's parameter types (the PTX signature) and the module's globals (PTX
//! variables). A line-oriented reader, not an LLVM IR parser: anything it does not
//! recognise leaves the caller to fall back on what the MIR shows.

use crate::entity::{Interner, SecondaryMap, Sym};
use crate::ptx::ast::Param;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// One IR parameter type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IrTy {
    Int(u32),
    Half,
    BFloat,
    Float,
    Double,
    Ptr {
        addrspace: u32,
        align: Option<u32>,
    },
    /// Passed as bytes, `.param .align A .b8 name[size]`: vectors, aggregates, i128,
    /// byval pointers (the pointee), and half/bfloat in device functions.
    Bytes {
        size: u64,
        align: u64,
    },
    /// A type this reader cannot lay out.
    Other(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub kernel: bool,
    pub ret: Option<IrTy>,
    pub params: Vec<IrTy>,
    /// The linkage word of the `define`/`declare` line (`external` when none).
    pub linkage: Linkage,
    /// The function's attributes: its attribute groups (`#0`) and those written on the
    /// line, as `key` or `key=value` words (quotes removed).
    pub attrs: Vec<String>,
    /// Kernel parameters `!nvvm.annotations` marks as images or samplers, with the
    /// reference type they are passed as (`.texref`, `.surfref`, `.samplerref`).
    pub images: Vec<(usize, &'static str)>,
}

/// An IR global value's linkage (LLVM's `GlobalValue::LinkageTypes`, as IR spells it).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Linkage {
    External,
    /// `internal` or `private`: invisible outside the module.
    Local,
    /// `common`.
    Common,
    /// `weak`, `weak_odr`, `linkonce`, `linkonce_odr`, `available_externally`,
    /// `extern_weak`.
    Weak,
}

impl Linkage {
    /// The linkage among a head's words (`define internal void`, `= weak addrspace(1)
    /// global`).
    pub fn of_words<'a>(words: impl IntoIterator<Item = &'a str>) -> Linkage {
        for w in words {
            match w {
                "internal" | "private" => return Linkage::Local,
                "common" => return Linkage::Common,
                "weak"
                | "weak_odr"
                | "linkonce"
                | "linkonce_odr"
                | "available_externally"
                | "extern_weak" => return Linkage::Weak,
                _ => {}
            }
        }
        Linkage::External
    }

    /// The PTX linkage directive of a function (llc-22's `emitLinkageDirective`):
    /// `.extern` for a declaration, `.visible` for an external definition, `.weak` for
    /// the weak kinds, none for a local one.
    pub fn function_directive(self, declaration: bool) -> Option<&'static str> {
        match self {
            Linkage::External if declaration => Some(".extern"),
            Linkage::External => Some(".visible"),
            Linkage::Local => None,
            Linkage::Common | Linkage::Weak => Some(".weak"),
        }
    }
}

impl Signature {
    /// The value of attribute `key` (`"nvvm.maxntid"="10,20,30"` → `10,20,30`).
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find_map(|a| {
            let (k, v) = a.split_once('=').unwrap_or((a.as_str(), ""));
            (k == key).then_some(v)
        })
    }

    /// The performance and cluster directives llc-22 prints after a kernel's
    /// parameter list, in its order, from the `nvvm.*` function attributes:
    /// `.reqntid`, `.maxntid` (the dimensions given), `.minnctapersm`, `.maxnreg`, and
    /// on sm_90 and later `.explicitcluster` with `.reqnctapercluster` (from
    /// `nvvm.cluster_dim`, unless its x is 0) and `.maxclusterrank`.
    pub fn kernel_directives(&self, sm: u32) -> Vec<(String, Vec<u32>)> {
        let nums = |key: &str| -> Option<Vec<u32>> {
            let v = self.attr(key)?;
            v.split(',').map(|n| n.trim().parse().ok()).collect()
        };
        let mut out = Vec::new();
        for (key, directive) in [
            ("nvvm.reqntid", ".reqntid"),
            ("nvvm.maxntid", ".maxntid"),
            ("nvvm.minctasm", ".minnctapersm"),
            ("nvvm.maxnreg", ".maxnreg"),
        ] {
            if let Some(n) = nums(key).filter(|n| !n.is_empty()) {
                out.push((directive.to_string(), n));
            }
        }
        if sm >= 90 {
            if let Some(dims) = nums("nvvm.cluster_dim").filter(|n| !n.is_empty()) {
                out.push((".explicitcluster".to_string(), Vec::new()));
                if dims[0] != 0 {
                    out.push((".reqnctapercluster".to_string(), dims));
                }
            }
            if let Some(n) = nums("nvvm.maxclusterrank").filter(|n| !n.is_empty()) {
                out.push((".maxclusterrank".to_string(), n));
            }
        }
        out
    }
}

impl Signature {
    /// PTX parameters and return parameters, spelled as llc spells them.
    pub fn ptx_params(&self, name: &str) -> (Vec<Param>, Vec<Param>) {
        let params = self
            .params
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let pname = format!("{name}_param_{i}");
                match self.images.iter().find(|(k, _)| *k == i) {
                    Some((_, r)) if self.kernel => Param {
                        words: vec![".param".into(), ".u64".into(), ".ptr".into(), (*r).into()],
                        name: pname,
                        array: None,
                    },
                    _ => param(t, self.kernel, pname),
                }
            })
            .collect();
        let rets = match &self.ret {
            Some(t) => vec![param(t, false, "func_retval0".into())],
            None => Vec::new(),
        };
        (params, rets)
    }
}

fn param(t: &IrTy, kernel: bool, name: String) -> Param {
    // Device functions pass half and bfloat as two bytes (llc-22).
    let bytes = match (t, kernel) {
        (IrTy::Bytes { size, align }, _) => Some((*size, *align)),
        (IrTy::Half | IrTy::BFloat, false) => Some((2, 2)),
        _ => None,
    };
    match bytes {
        Some((size, align)) => Param {
            words: vec![
                ".param".into(),
                ".align".into(),
                align.to_string(),
                ".b8".into(),
            ],
            name,
            array: Some(size as u32),
        },
        None => Param {
            words: param_words(t, kernel),
            name,
            array: None,
        },
    }
}

fn param_words(t: &IrTy, kernel: bool) -> Vec<String> {
    let mut w: Vec<String> = vec![".param".into()];
    let ty = match (t, kernel) {
        (IrTy::Int(1) | IrTy::Int(8), true) => ".u8",
        (IrTy::Int(16), true) => ".u16",
        (IrTy::Int(32), true) => ".u32",
        (IrTy::Int(64), true) => ".u64",
        (IrTy::Float, true) => ".f32",
        (IrTy::Double, true) => ".f64",
        (IrTy::Half | IrTy::BFloat, _) => ".b16",
        // Device-function integers narrower than 32 bits are promoted to 32.
        (IrTy::Int(1..=32) | IrTy::Float, false) => ".b32",
        (IrTy::Int(33..=64), false) => ".b64",
        (IrTy::Double, false) => ".b64",
        // Tensor-memory pointers (address space 6) are 32 bits wide (`p6:32:32`).
        (IrTy::Ptr { addrspace: 6, .. }, false) => ".b32",
        (IrTy::Ptr { .. }, false) => ".b64",
        (IrTy::Ptr { addrspace, align }, true) => {
            w.push(if *addrspace == 6 { ".u32" } else { ".u64" }.into());
            w.push(".ptr".into());
            if let Some(s) = space_word(*addrspace) {
                w.push(s.into());
            }
            w.push(".align".into());
            w.push(align.unwrap_or(1).to_string());
            return w;
        }
        _ => ".b32",
    };
    w.push(ty.into());
    w
}

fn space_word(addrspace: u32) -> Option<&'static str> {
    match addrspace {
        1 => Some(".global"),
        3 => Some(".shared"),
        4 => Some(".const"),
        5 => Some(".local"),
        _ => None,
    }
}

/// Splits at commas that are not inside brackets.
pub(super) fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = s[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// A parameter's type from its text (`i32 noundef %x`, `ptr byval(%struct.S) align 8
/// %p`, `{ i32, i1 }`), with the module's named types for layouts.
fn parse_ty(text: &str, ir: &str) -> Option<IrTy> {
    let text = text.trim();
    let ty_text = type_prefix(text);
    let rest = &text[ty_text.len()..];
    let words: Vec<&str> = rest.split_whitespace().collect();
    let align_attr = words
        .iter()
        .position(|w| *w == "align")
        .and_then(|k| words.get(k + 1))
        .and_then(|n| n.parse::<u64>().ok())
        .or_else(|| {
            // `alignstack(N)`: the alignment the parameter is passed with.
            words.iter().find_map(|w| {
                w.strip_prefix("alignstack(")?
                    .strip_suffix(')')?
                    .parse::<u64>()
                    .ok()
            })
        });
    Some(match ty_text {
        "half" => IrTy::Half,
        "bfloat" => IrTy::BFloat,
        "float" => IrTy::Float,
        "double" => IrTy::Double,
        t if t.starts_with("ptr") => {
            if let Some(p) = rest.find("byval(") {
                let inner = &rest[p + 6..];
                let mut depth = 1i32;
                let end = inner.char_indices().find_map(|(i, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    (depth == 0).then_some(i)
                })?;
                let inner = &inner[..end];
                let (size, align) = layout(inner, ir)?;
                return Some(IrTy::Bytes {
                    size,
                    align: align_attr.unwrap_or(align).max(align),
                });
            }
            let addrspace = t
                .strip_prefix("ptr addrspace(")
                .and_then(|r| r.strip_suffix(')'))
                .map_or(Some(0), |n| n.parse().ok())?;
            IrTy::Ptr {
                addrspace,
                align: align_attr.map(|a| a as u32),
            }
        }
        t if t.starts_with('i') && t[1..].parse::<u32>().is_ok_and(|n| n <= 64) => {
            IrTy::Int(t[1..].parse().ok()?)
        }
        t => match layout(t, ir) {
            // An `align N` attribute raises the parameter's alignment.
            Some((size, align)) => IrTy::Bytes {
                size,
                align: align_attr.map_or(align, |a| a.max(align)),
            },
            None => IrTy::Other(t.into()),
        },
    })
}

/// The type at the start of `text`: a bracketed aggregate or vector, `ptr
/// addrspace(N)`, or one word.
pub(super) fn type_prefix(text: &str) -> &str {
    let text = text.trim_start();
    if text.starts_with(['{', '<', '[']) {
        let mut depth = 0i32;
        for (i, c) in text.char_indices() {
            match c {
                '{' | '<' | '[' | '(' => depth += 1,
                '}' | '>' | ']' | ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return &text[..=i];
                    }
                }
                _ => {}
            }
        }
        return text;
    }
    if let Some(r) = text.strip_prefix("ptr addrspace(") {
        if let Some(close) = r.find(')') {
            return &text[.."ptr addrspace(".len() + close + 1];
        }
    }
    text.split_whitespace().next().unwrap_or("")
}

/// Size and ABI alignment in bytes of an IR type under NVPTX's data layout (integers
/// and floats naturally aligned, i128 to 16, vectors to their size rounded up to a
/// power of two, aggregates to their largest member); named types are looked up.
pub fn layout(t: &str, ir: &str) -> Option<(u64, u64)> {
    let t = t.trim();
    let round = |size: u64, align: u64| size.div_ceil(align) * align;
    Some(match t {
        "half" | "bfloat" | "i16" => (2, 2),
        "i1" | "i8" => (1, 1),
        "i32" | "float" => (4, 4),
        "i64" | "double" | "ptr" => (8, 8),
        "i128" => (16, 16),
        _ if t.starts_with("ptr addrspace(") => (8, 8),
        _ if t.starts_with('%') => {
            let def = ir.lines().find_map(|l| {
                let l = l.trim();
                let rest = l.strip_prefix(t)?.trim_start().strip_prefix('=')?;
                rest.trim_start().strip_prefix("type ")
            })?;
            layout(def, ir)?
        }
        _ if t.starts_with('<') && t.ends_with('>') && !t.starts_with("<{") => {
            // Vector elements are packed bit by bit (`<8 x i3>` is 24 bits, 3 bytes).
            let (n, elem) = t[1..t.len() - 1].split_once(" x ")?;
            let n: u64 = n.trim().parse().ok()?;
            let elem = elem.trim();
            let bits = match elem.strip_prefix('i').and_then(|w| w.parse::<u64>().ok()) {
                Some(w) => w,
                None => layout(elem, ir)?.0 * 8,
            };
            let size = (n * bits).div_ceil(8);
            let align = size.next_power_of_two().min(16);
            (round(size, align), align)
        }
        _ if t.starts_with('[') && t.ends_with(']') => {
            let (n, elem) = t[1..t.len() - 1].split_once(" x ")?;
            let n: u64 = n.trim().parse().ok()?;
            let (es, ea) = layout(elem, ir)?;
            (n * es, ea)
        }
        _ if t.starts_with('{') && t.ends_with('}') => {
            let (mut size, mut align) = (0u64, 1u64);
            for m in split_top(&t[1..t.len() - 1]) {
                let (ms, ma) = layout(m, ir)?;
                size = round(size, ma) + ms;
                align = align.max(ma);
            }
            (round(size, align), align)
        }
        _ => return None,
    })
}

/// The lines of an IR module that signatures are read from, found in one walk: each
/// function's first `define` and first `declare` line by name, the attribute groups'
/// bodies, and the metadata lines that mark image or sampler parameters. Reading a
/// signature then looks up its lines rather than walking the module again, so a module
/// of many functions costs a walk, not a walk per function.
pub struct Heads<'a> {
    pub text: &'a str,
    /// Function and attribute group names, numbered.
    names: Interner,
    defines: SecondaryMap<Sym, Option<&'a str>>,
    declares: SecondaryMap<Sym, Option<&'a str>>,
    groups: SecondaryMap<Sym, Option<&'a str>>,
    images: Vec<&'a str>,
}

/// The four metadata keys [`image_params`] reads.
const IMAGE_KEYS: [(&str, &str); 4] = [
    ("!\"rdoimage\", i32 ", ".texref"),
    ("!\"wroimage\", i32 ", ".surfref"),
    ("!\"rdwrimage\", i32 ", ".surfref"),
    ("!\"sampler\", i32 ", ".samplerref"),
];

impl<'a> Heads<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut h = Heads {
            text,
            names: Interner::default(),
            defines: SecondaryMap::new(),
            declares: SecondaryMap::new(),
            groups: SecondaryMap::new(),
            images: Vec::new(),
        };
        for l in text.lines().map(str::trim) {
            let (name, line, map) = if l.starts_with('!') {
                if IMAGE_KEYS.iter().any(|(k, _)| l.contains(k)) {
                    h.images.push(l);
                }
                continue;
            } else if let Some(rest) = l.strip_prefix("attributes #") {
                let Some((group, body)) = rest.split_once(" = {") else {
                    continue;
                };
                (group, body, &mut h.groups)
            } else if l.starts_with("define ") {
                let Some(name) = head_name(l) else { continue };
                (name, l, &mut h.defines)
            } else if l.starts_with("declare ") {
                let Some(name) = head_name(l) else { continue };
                (name, l, &mut h.declares)
            } else {
                continue;
            };
            // The first line of a name is the one a walk from the top would find.
            map[h.names.intern(name)].get_or_insert(line);
        }
        h
    }

    fn find(&self, map: &SecondaryMap<Sym, Option<&'a str>>, name: &str) -> Option<&'a str> {
        map.get(self.names.get(name)?).copied().flatten()
    }

    /// Finds `define ... @name(...)` and reads its types.
    pub fn signature(&self, name: &str) -> Option<Signature> {
        self.read(self.find(&self.defines, name)?, name)
    }

    /// Finds `declare ... @name(...)` (an external function) and reads its types.
    pub fn declaration(&self, name: &str) -> Option<Signature> {
        self.read(self.find(&self.declares, name)?, name)
    }
}

/// The name a `define`/`declare` line gives after its `@` (`@"name"` unquoted): what
/// [`functions`] lists and [`Heads`] finds a line by.
fn head_name(l: &str) -> Option<&str> {
    let rest = &l[l.find('@')? + 1..];
    Some(match rest.strip_prefix('"') {
        Some(q) => q.split('"').next().unwrap_or(""),
        None => rest.split('(').next().unwrap_or(""),
    })
}

/// The return type at the end of a `define` head (`internal { i32, i1 }`).
fn return_type(head: &str) -> &str {
    let head = head.trim_end();
    if head.ends_with(['}', '>', ']']) {
        let mut depth = 0i32;
        for (i, c) in head.char_indices().rev() {
            match c {
                '}' | '>' | ']' => depth += 1,
                '{' | '<' | '[' => {
                    depth -= 1;
                    if depth == 0 {
                        return &head[i..];
                    }
                }
                _ => {}
            }
        }
    }
    if let Some(p) = head.rfind("ptr addrspace(") {
        return &head[p..];
    }
    head.split_whitespace().next_back().unwrap_or("void")
}

/// The module's functions in order: each `define`d or `declare`d name, and whether it
/// is only declared.
pub fn functions(ir: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for l in ir.lines().map(str::trim) {
        let external = match l.split_whitespace().next() {
            Some("define") => false,
            Some("declare") => true,
            _ => continue,
        };
        let Some(name) = head_name(l) else { continue };
        out.push((name.to_string(), external));
    }
    out
}

/// Where `@name(` (or `@"name"(`, LLVM's quoting of names with `$` or `.`) starts on a
/// line, and the length of that pattern.
fn find_name(l: &str, name: &str) -> Option<(usize, usize)> {
    let plain = format!("@{name}(");
    if let Some(p) = l.find(&plain) {
        return Some((p, plain.len()));
    }
    let quoted = format!("@\"{name}\"(");
    l.find(&quoted).map(|p| (p, quoted.len()))
}

impl Heads<'_> {
    /// The signature on `l`, the `define` or `declare` line of `name`.
    fn read(&self, l: &str, name: &str) -> Option<Signature> {
        let ir = self.text;
        let keyword = if l.starts_with("define ") { "define " } else { "declare " };
        let (pos, at_len) = find_name(l, name)?;
        let head = &l[keyword.len()..pos];
        let kernel = head.split_whitespace().any(|w| w == "ptx_kernel");
        let ret_text = return_type(head);
        let ret = if ret_text == "void" {
            None
        } else {
            parse_ty(ret_text, ir)
        };
        // Parameter list: up to the matching `)`.
        let rest = &l[pos + at_len..];
        let mut depth = 1i32;
        let mut end = None;
        for (i, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end = end?;
        let list = &rest[..end];
        let mut params = Vec::new();
        for p in split_top(list) {
            params.push(parse_ty(p, ir)?);
        }
        Some(Signature {
            kernel,
            ret,
            params,
            linkage: Linkage::of_words(head.split_whitespace()),
            attrs: function_attrs(self, &rest[end + 1..]),
            images: image_params(&self.images, name),
        })
    }
}

/// `!{ptr @name, !"rdoimage", i32 N}` and the like: parameter N is a read-only image
/// (a `.texref`), a writable one (`wroimage`, `rdwrimage`: a `.surfref`) or a sampler.
/// `lines` are the module's metadata lines holding one of the keys ([`Heads`]).
fn image_params(lines: &[&str], name: &str) -> Vec<(usize, &'static str)> {
    let (plain, quoted) = (format!("ptr @{name},"), format!("ptr @\"{name}\","));
    let mut out = Vec::new();
    for l in lines {
        if !(l.contains(&plain) || l.contains(&quoted)) {
            continue;
        }
        for (key, r) in IMAGE_KEYS {
            if let Some(rest) = l.split(key).nth(1) {
                let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let Ok(n) = n.parse() {
                    out.push((n, r));
                }
            }
        }
    }
    out
}

/// The attributes after a function's parameter list: the groups it names (`#0`, read
/// from `attributes #0 = { ... }`) and those written in place, as words.
fn function_attrs(heads: &Heads<'_>, tail: &str) -> Vec<String> {
    let tail = tail.split('{').next().unwrap_or("");
    let mut out = Vec::new();
    for w in attr_words(tail) {
        if let Some(group) = w.strip_prefix('#') {
            if let Some(body) = heads.find(&heads.groups, group) {
                out.extend(attr_words(body.trim_end_matches('}')));
            }
        } else {
            out.push(w);
        }
    }
    out
}

/// Attribute words with their quotes removed (`"nvvm.maxntid"="10,20,30"` →
/// `nvvm.maxntid=10,20,30`); a quoted value keeps its spaces.
fn attr_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(core::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kernel_signatures() {
        let ir = "define dso_local ptx_kernel void @k(i32 noundef %0, float noundef %1, ptr noalias noundef readonly captures(none) %2, ptr addrspace(1) align 16 %3) local_unnamed_addr #0 {";
        let s = Heads::new(ir).signature("k").unwrap();
        assert!(s.kernel);
        assert_eq!(
            s.params,
            [
                IrTy::Int(32),
                IrTy::Float,
                IrTy::Ptr {
                    addrspace: 0,
                    align: None
                },
                IrTy::Ptr {
                    addrspace: 1,
                    align: Some(16)
                }
            ]
        );
        let (p, _) = s.ptx_params("k");
        assert_eq!(p[3].words.join(" "), ".param .u64 .ptr .global .align 16");
    }

    /// One walk finds what a walk per name found: the first `define` of a name (a later
    /// one is not read), `declare` lines apart from `define` lines, quoted names, the
    /// attribute groups a head names, and the image metadata of the right function only.
    #[test]
    fn heads_find_each_name_s_first_line() {
        let ir = "declare i32 @ext(i64) #1\n\
                  define void @f(i32 %a) #0 {\n\
                  ret void\n}\n\
                  define ptx_kernel void @\"g.x\"(ptr %t) #1 {\n\
                  ret void\n}\n\
                  define void @f(float %b) {\n}\n\
                  attributes #0 = { \"nvvm.maxntid\"=\"8\" }\n\
                  attributes #1 = { nounwind }\n\
                  !0 = !{ptr @\"g.x\", !\"rdoimage\", i32 0}\n\
                  !1 = !{ptr @f2, !\"sampler\", i32 3}\n";
        let h = Heads::new(ir);
        let f = h.signature("f").unwrap();
        assert_eq!(f.params, [IrTy::Int(32)]);
        assert_eq!(f.attrs, ["nvvm.maxntid=8"]);
        assert!(f.images.is_empty());
        let g = h.signature("g.x").unwrap();
        assert!(g.kernel);
        assert_eq!(g.attrs, ["nounwind"]);
        assert_eq!(g.images, [(0, ".texref")]);
        assert!(h.signature("ext").is_none());
        let e = h.declaration("ext").unwrap();
        assert_eq!((e.ret, e.params), (Some(IrTy::Int(32)), vec![IrTy::Int(64)]));
        assert!(h.declaration("f").is_none() && h.signature("f2").is_none());
    }
}

/// The target an IR module's function attributes name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrTarget {
    /// `sm_90a` → 90.
    pub sm: u32,
    /// The feature-set letter after the number (`a`), or empty.
    pub suffix: String,
    /// `+ptx80` → (8, 0).
    pub ptx_version: Option<(u32, u32)>,
}

/// The first `"target-cpu"="sm_NN"` (and a `+ptxNN` in `"target-features"`) of the
/// module's attribute groups. llc prints the module header for the subtarget of its
/// command line, and `-mcpu`/`-mattr` reach every function's attributes, so they say
/// what it was. A feature list that also names `+sm_NN` was written by clang, not by
/// llc's `-mattr`; its PTX version did not reach the header, so it is not read.
pub fn target(ir: &str) -> Option<IrTarget> {
    let cpu = ir.split("\"target-cpu\"=\"sm_").nth(1)?;
    let cpu = &cpu[..cpu.find('"')?];
    let digits = cpu.bytes().take_while(u8::is_ascii_digit).count();
    let sm: u32 = cpu[..digits].parse().ok()?;
    let suffix = cpu[digits..].to_string();
    let ptx_version = ir
        .split("\"target-features\"=\"")
        .skip(1)
        .filter_map(|f| {
            let f = &f[..f.find('"')?];
            if f.contains("+sm_") {
                return None;
            }
            let v = f.split("+ptx").nth(1)?;
            let n: u32 = v[..v.bytes().take_while(u8::is_ascii_digit).count()]
                .parse()
                .ok()?;
            Some((n / 10, n % 10))
        })
        .next();
    Some(IrTarget {
        sm,
        suffix,
        ptx_version,
    })
}
