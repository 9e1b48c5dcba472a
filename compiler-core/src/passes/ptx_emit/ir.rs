//! The little `ptx-emit` needs from the LLVM IR module a MIR file embeds: each
//! function's parameter types (the PTX signature) and the module's globals (PTX
//! variables). A line-oriented reader, not an LLVM IR parser: anything it does not
//! recognise leaves the caller to fall back on what the MIR shows.

use crate::ptx::ast::{Param, VarDecl};
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
    /// Anything else (vectors, aggregates): passed as bytes.
    Other(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub kernel: bool,
    pub ret: Option<IrTy>,
    pub params: Vec<IrTy>,
}

impl Signature {
    /// PTX parameters and return parameters, spelled as llc spells them.
    pub fn ptx_params(&self, name: &str) -> (Vec<Param>, Vec<Param>) {
        let params = self
            .params
            .iter()
            .enumerate()
            .map(|(i, t)| Param {
                words: param_words(t, self.kernel),
                name: format!("{name}_param_{i}"),
                array: None,
            })
            .collect();
        let rets = match &self.ret {
            Some(t) => vec![Param {
                words: param_words(t, false),
                name: "func_retval0".into(),
                array: None,
            }],
            None => Vec::new(),
        };
        (params, rets)
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
        (IrTy::Int(1) | IrTy::Int(8), false) => ".b8",
        (IrTy::Int(16), false) => ".b16",
        (IrTy::Int(32) | IrTy::Float, false) => ".b32",
        (IrTy::Int(64) | IrTy::Double, false) => ".b64",
        (IrTy::Ptr { .. }, false) => ".b64",
        (IrTy::Ptr { addrspace, align }, true) => {
            w.push(".u64".into());
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
fn split_top(s: &str) -> Vec<&str> {
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

fn parse_ty(words: &[&str]) -> Option<IrTy> {
    let first = *words.first()?;
    Some(match first {
        "half" => IrTy::Half,
        "bfloat" => IrTy::BFloat,
        "float" => IrTy::Float,
        "double" => IrTy::Double,
        "ptr" => {
            let mut addrspace = 0;
            let mut align = None;
            for (k, w) in words.iter().enumerate() {
                if let Some(n) = w
                    .strip_prefix("addrspace(")
                    .and_then(|r| r.strip_suffix(')'))
                {
                    addrspace = n.parse().ok()?;
                }
                if *w == "align" {
                    align = words.get(k + 1).and_then(|n| n.parse().ok());
                }
            }
            IrTy::Ptr { addrspace, align }
        }
        t if t.starts_with('i') && t[1..].parse::<u32>().is_ok() => IrTy::Int(t[1..].parse().ok()?),
        t => IrTy::Other(t.into()),
    })
}

/// Finds `define ... @name(...)` and reads its types.
pub fn signature(ir: &str, name: &str) -> Option<Signature> {
    for line in ir.lines() {
        let l = line.trim();
        if !l.starts_with("define ") {
            continue;
        }
        let at = format!("@{name}(");
        let Some(pos) = l.find(&at) else {
            let quoted = format!("@\"{name}\"(");
            if l.contains(&quoted) {
                return None;
            }
            continue;
        };
        let head = &l["define ".len()..pos];
        let kernel = head.split_whitespace().any(|w| w == "ptx_kernel");
        let ret_word = head
            .split_whitespace()
            .rfind(|w| !w.is_empty())
            .unwrap_or("void");
        let ret = if ret_word == "void" {
            None
        } else {
            parse_ty(&[ret_word])
        };
        // Parameter list: up to the matching `)`.
        let rest = &l[pos + at.len()..];
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
        let list = &rest[..end?];
        let mut params = Vec::new();
        for p in split_top(list) {
            let words: Vec<&str> = p.split_whitespace().collect();
            params.push(parse_ty(&words)?);
        }
        return Some(Signature {
            kernel,
            ret,
            params,
        });
    }
    None
}

/// A module-level IR global.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub name: String,
    pub addrspace: u32,
    pub size: u64,
    pub align: u32,
    pub is_const: bool,
    /// Its initializer is something other than undef / poison / zeroinitializer.
    pub has_initializer: bool,
}

impl Global {
    /// The PTX declaration: `.shared .align 4 .b8 name[1024];`.
    pub fn decl(&self) -> VarDecl {
        let space = match self.addrspace {
            3 => ".shared",
            4 => ".const",
            5 => ".local",
            _ => ".global",
        };
        let mut words: Vec<String> = Vec::new();
        words.extend([
            space.to_string(),
            ".align".into(),
            self.align.to_string(),
            ".b8".into(),
        ]);
        VarDecl {
            words,
            name: self.name.clone(),
            dims: vec![Some(self.size.min(u32::MAX as u64) as u32)],
            init: None,
        }
    }
}

fn type_size(t: &str) -> Option<(u64, u32)> {
    let t = t.trim();
    if let Some(inner) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (n, rest) = inner.split_once(" x ")?;
        let n: u64 = n.trim().parse().ok()?;
        let (s, a) = type_size(rest)?;
        return Some((n.checked_mul(s)?, a));
    }
    Some(match t {
        "i1" | "i8" => (1, 1),
        "i16" | "half" | "bfloat" => (2, 2),
        "i32" | "float" => (4, 4),
        "i64" | "double" | "ptr" => (8, 8),
        "i128" => (16, 16),
        _ => return None,
    })
}

/// Every `@name = ... global|constant <type> <init>, align N` line.
pub fn globals(ir: &str) -> Vec<Global> {
    let mut out = Vec::new();
    for line in ir.lines() {
        let l = line.trim();
        let Some(rest) = l.strip_prefix('@') else {
            continue;
        };
        let Some((name, def)) = rest.split_once(" = ") else {
            continue;
        };
        let words: Vec<&str> = def.split_whitespace().collect();
        let Some(kw) = words
            .iter()
            .position(|w| *w == "global" || *w == "constant")
        else {
            continue;
        };
        let mut addrspace = 0;
        for w in &words[..kw] {
            if let Some(n) = w
                .strip_prefix("addrspace(")
                .and_then(|r| r.strip_suffix(')'))
            {
                addrspace = n.parse().unwrap_or(0);
            }
        }
        let after = words[kw + 1..].join(" ");
        // Type: a bracketed array or one word.
        let (ty, init) = if after.starts_with('[') {
            let mut depth = 0;
            let mut end = after.len();
            for (i, c) in after.char_indices() {
                match c {
                    '[' => depth += 1,
                    ']' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            (&after[..end], after[end..].trim())
        } else {
            match after.split_once(' ') {
                Some((t, r)) => (t, r.trim()),
                None => (after.as_str(), ""),
            }
        };
        let Some((size, natural)) = type_size(ty) else {
            continue;
        };
        let init_word = init.split(',').next().unwrap_or("").trim();
        let align = def
            .split(", ")
            .find_map(|p| p.trim().strip_prefix("align "))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(natural);
        out.push(Global {
            name: name.trim_matches('"').into(),
            addrspace,
            size,
            align,
            is_const: words[kw] == "constant",
            has_initializer: !matches!(init_word, "" | "undef" | "poison" | "zeroinitializer"),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kernel_signatures() {
        let ir = "define dso_local ptx_kernel void @k(i32 noundef %0, float noundef %1, ptr noalias noundef readonly captures(none) %2, ptr addrspace(1) align 16 %3) local_unnamed_addr #0 {";
        let s = signature(ir, "k").unwrap();
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

    #[test]
    fn reads_shared_arrays() {
        let g = globals(
            "@s = internal unnamed_addr addrspace(3) global [256 x float] undef, align 4\n",
        );
        assert_eq!(g.len(), 1);
        assert_eq!((g[0].addrspace, g[0].size, g[0].align), (3, 1024, 4));
        assert!(!g[0].has_initializer);
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
            let n: u32 = v[..v.bytes().take_while(u8::is_ascii_digit).count()].parse().ok()?;
            Some((n / 10, n % 10))
        })
        .next();
    Some(IrTarget {
        sm,
        suffix,
        ptx_version,
    })
}
