//! Module-scope variables: `.shared` ones join each CTA's shared memory after the
//! kernel's own; `.global` and `.const` ones live in one buffer per state space at a
//! fixed address ([`MODULE_GLOBAL_BASE`], [`MODULE_CONST_BASE`]), filled from their
//! initializers (zero without one). A symbol's address is its generic address, so
//! `mov.u64 %rd, sym`, `cvta.global` and `ld.global [sym+off]` agree. The `.global`
//! buffer is part of the launch's result (a kernel may write it); the `.const` one is
//! read only. An initializer element `generic(sym)` or `sym` is that variable's
//! address. Unsized `.extern .shared` arrays are the launch's dynamic shared memory:
//! all of them start at one address after the static ones, with
//! [`DYNAMIC_SHARED_BYTES`] behind it.

use super::{malformed, unsupported, var_layout, Buffer, Program, R};
use crate::ptx::ast as ptx;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

/// Where module-scope `.global` variables start (below the launch's buffers).
pub const MODULE_GLOBAL_BASE: u64 = 0x8000_0000;
/// Where module-scope `.const` variables start.
pub const MODULE_CONST_BASE: u64 = 0xC000_0000;
/// The dynamic shared memory every launch gets.
pub const DYNAMIC_SHARED_BYTES: u64 = 16 * 1024;

/// Gives the module's variables addresses in `p`.
pub(super) fn lay_out<'a>(
    p: &mut Program,
    vars: impl Iterator<Item = &'a ptx::VarDecl> + Clone,
    with_globals: bool,
) -> R<()> {
    shared(p, vars.clone())?;
    if !with_globals {
        return Ok(());
    }
    // Addresses first (an initializer may name any variable), then the contents.
    let mut laid = Vec::new();
    for (space, base) in [
        (".global", MODULE_GLOBAL_BASE),
        (".const", MODULE_CONST_BASE),
    ] {
        // An `.extern` array without a size has no storage of ours.
        let vs: Vec<&ptx::VarDecl> = vars
            .clone()
            .filter(|v| v.space() == Some(space) && v.size_bytes().is_some())
            .collect();
        if vs.is_empty() {
            continue;
        }
        let owned: Vec<ptx::VarDecl> = vs.iter().map(|v| (*v).clone()).collect();
        let (map, size) = var_layout(&owned, space)?;
        for (name, off) in &map {
            p.globals.insert(name.clone(), base + off);
        }
        laid.push((vs, map, base, size));
    }
    for (vs, map, base, size) in laid {
        let mut bytes = vec![0u8; size as usize];
        for v in &vs {
            let at = map[&v.name] as usize;
            if let Some(init) = &v.init {
                let len = v.size_bytes().unwrap_or(0) as usize;
                fill(p, v, init, &mut bytes[at..at + len])?;
            }
        }
        p.module_bufs.push(Buffer { base, bytes });
    }
    Ok(())
}

/// Lays out the module's `.shared` variables after the function's own: module-scope
/// shared memory is each CTA's as much as a kernel's local `.shared` declarations are
/// (zeroed here, as the MIR interpreter zeroes a module variable it is not given).
fn shared<'a>(p: &mut Program, vars: impl Iterator<Item = &'a ptx::VarDecl>) -> R<()> {
    let (vars, dynamic): (Vec<ptx::VarDecl>, Vec<ptx::VarDecl>) = vars
        .filter(|v| v.space() == Some(".shared") && !p.shared.contains_key(&v.name))
        .cloned()
        .partition(|v| v.size_bytes().is_some());
    let (map, size) = var_layout(&vars, ".shared")?;
    let align = vars
        .iter()
        .map(|v| v.align().unwrap_or(8).max(1) as u64)
        .max()
        .unwrap_or(1);
    let base = p.shared_size.div_ceil(align) * align;
    for (name, off) in map {
        p.shared.insert(name, base + off);
    }
    p.shared_size = base + size;
    if !dynamic.is_empty() {
        let at = p.shared_size.div_ceil(16) * 16;
        for v in dynamic {
            p.shared.insert(v.name, at);
        }
        p.shared_size = at + DYNAMIC_SHARED_BYTES;
    }
    Ok(())
}

/// Writes an initializer's numbers, each the variable's element width, from the
/// start of `out` (missing trailing elements stay zero).
fn fill(p: &Program, v: &ptx::VarDecl, init: &[String], out: &mut [u8]) -> R<()> {
    let elem = v
        .ty()
        .and_then(ptx::type_bytes)
        .ok_or_else(|| super::InterpError::Unsupported(format!("the type of `{}`", v.name)))?
        as usize;
    let (mut at, mut negate) = (0usize, false);
    for t in init {
        match t.as_str() {
            "{" | "}" | "," | "generic" | "(" | ")" => continue,
            "-" => {
                negate = true;
                continue;
            }
            _ => {}
        }
        let addr = p.globals.get(t.as_str()).copied();
        let Some(bits) = number(t, elem, v.ty().is_some_and(|t| t.starts_with(".f"))).or(addr)
        else {
            return unsupported(format!(
                "the initializer of `{}` (`{t}` is not a number)",
                v.name
            ));
        };
        let bits = if negate {
            negate_bits(bits, elem, v.ty().is_some_and(|t| t.starts_with(".f")))
        } else {
            bits
        };
        negate = false;
        let Some(slot) = out.get_mut(at..at + elem) else {
            return malformed(format!("the initializer of `{}` is too long", v.name));
        };
        slot.copy_from_slice(&bits.to_le_bytes()[..elem.min(8)]);
        at += elem;
    }
    Ok(())
}

/// An initializer number as bits of an `elem`-byte element: decimal, `0x` hex, octal,
/// `0f`/`0d` float bit patterns, or a decimal float for a float element.
fn number(t: &str, elem: usize, float: bool) -> Option<u64> {
    let t = t.trim_end_matches(['U', 'u']);
    if let Some(h) = t.strip_prefix("0f").or_else(|| t.strip_prefix("0F")) {
        return u32::from_str_radix(h, 16).ok().map(u64::from);
    }
    if let Some(h) = t.strip_prefix("0d").or_else(|| t.strip_prefix("0D")) {
        return u64::from_str_radix(h, 16).ok();
    }
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u64::from_str_radix(h, 16).ok();
    }
    if let Ok(n) = t.parse::<u64>() {
        return Some(if float { float_bits(n as f64, elem) } else { n });
    }
    let f: f64 = t.parse().ok()?;
    float.then(|| float_bits(f, elem))
}

fn float_bits(f: f64, elem: usize) -> u64 {
    if elem == 8 {
        f.to_bits()
    } else {
        u64::from((f as f32).to_bits())
    }
}

fn negate_bits(bits: u64, elem: usize, float: bool) -> u64 {
    match (float, elem) {
        (true, 8) => bits ^ (1 << 63),
        (true, _) => bits ^ 0x8000_0000,
        (false, _) => bits.wrapping_neg(),
    }
}
