//! The `asm:` PTX form: an instruction written as llc-22 prints it, with its MIR
//! operands referred to by index, in the manner of a TableGen asm string.
//!
//! `asm:MNEMONIC OPERANDS`. `#N` is the instruction's operand N, counting its
//! results first (as in the MIR line). The mnemonic may hold decoders of immediate
//! operands, `<N:KIND>`:
//! - `sem`: memory ordering N and scope N+1 (`.relaxed.sys`, `.acq_rel.cta`, nothing for
//!   a plain access); `asem` prints an atomic's scope even without an ordering
//!   (`atom.cta.cas`);
//! - `space`: address space N (`.global`, `.shared::cluster`, nothing for generic);
//! - `ftz`: `.ftz` when the flag N is set; `ftz?` the same, nothing when there is no
//!   operand N;
//! - `cmp`: float compare mode N, with the flush-to-zero flag N+1 when present;
//! - `cvt`: conversion mode N (rounding, `.ftz`, `.sat`, `.relu`); `rnd` its rounding
//!   alone, `relu` its `.relu` alone;
//! - `prmt`: byte-permute mode N (`.f4e`, `.b4e`, `.rc8`, `.ecl`, `.ecr`, `.rc16`).
//!
//! Operands, comma-separated: `#N` (a register, immediate or symbol), `#N:x` (an
//! immediate in hexadecimal with llc-22's `U` suffix), `[#B+#O]` (an address: base B,
//! offset immediate O), `[#B]` (a base alone), `[#B,{#C,...}]` (a texture or surface
//! address with its coordinates), `[NAME+#O]` (a named base, as `retval0`),
//! `{#A,#B}` (a vector), `#A|#B` (a result pair), or literal text (`%SP`, `16`). A
//! template `{ S1; S2; ... }` prints a scope of its own holding those statements
//! (`.`-directives as written).
//!
//! The ptx column's kind word says what the step is and how its narration reads
//! ([`FORMS`]): `asm:` an instruction of its own, `move:` a register move, `pack:` /
//! `unpack:` a vector of halves put together or taken apart, `goto:` an unconditional
//! branch, `retval:` / `funcret:` a call's return value read or the function's written.
//! The description's `op:TEXT:N[:ftz]` and `sym:TEXT` rows print through here too, as the
//! template `TEXT #0, ..` (with `<K:ftz?>`, a flag that may be absent, before the type).

use super::{cmp_mode, cvt_mode, ins, narr, scope_word, sem_word, space_word, Cx, Emitted, R};
use crate::mir::{InstData, Op, Operand as MOp, OperandKind};
use crate::ptx::ast::{AddrBase, Operand as P, Stmt};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

/// Each template form's kind word, the kind of step it records and its narration
/// (`$n`: the opcode's name, `$t`: the instruction's text).
const FORMS: [(&str, &str, &str); 8] = [
    ("asm", "instruction", "$n prints as `$t` (its description's template)."),
    // The description's `op:` and `sym:` forms, read as templates (see `described`).
    ("=plain", "instruction", "$n prints as `$t`."),
    ("move", "register_move", "$n is a register move: `$t`."),
    ("pack", "pack", "$n packs two halves into one register with `$t d, {lo, hi}`."),
    ("unpack", "unpack", "$n splits a register into two halves with `$t {lo, hi}, s`."),
    ("goto", "branch", "$n becomes an unconditional `$t`."),
    ("retval", "param_copy", "$n reads a call's return value from retval0."),
    ("funcret", "param_copy", "$n writes the function's return value."),
];

/// The form of the description's `op:` and `sym:` rows: a plain instruction.
pub const PLAIN: usize = 1;

/// The template form a ptx column's kind word names ([`FORMS`]).
pub fn form(kind: &str) -> Option<usize> {
    FORMS.iter().position(|f| f.0 == kind)
}

/// Emits an instruction from its template, as the form numbered `form` in [`FORMS`].
pub fn emit(cx: &Cx<'_>, op: Op, d: &InstData, template: &str, form: usize) -> R<Emitted> {
    let name = op.name();
    if let Some(inner) = template
        .strip_prefix("{ ")
        .and_then(|t| t.strip_suffix(" }"))
    {
        return scope(cx, op, d, inner);
    }
    let (mnemonic, operands) = template.split_once(' ').unwrap_or((template, ""));
    let text = mnemonic_text(d, mnemonic).map_err(|e| format!("{name}: {e}"))?;
    let float_bits = if text.ends_with("f64") { 64 } else { 32 };
    let ops = split_top(operands)
        .into_iter()
        .filter(|s| !s.is_empty())
        .map(|o| operand(cx, d, o, float_bits))
        .collect::<R<Vec<P>>>()
        .map_err(|e| format!("{name}: {e}"))?;
    let (_, kind, narration) = FORMS[form];
    let narration = if cx.tracing {
        narration.replace("$n", name).replace("$t", &text)
    } else {
        String::new()
    };
    Ok(Emitted {
        stmts: vec![ins(text, ops)],
        kind,
        narration,
    })
}

/// `{ STMT; STMT; ... }`: a scope of its own (llc-22 declares a temporary register
/// there, as for `%clc_handle`); statements starting with `.` are kept as written.
fn scope(cx: &Cx<'_>, op: Op, d: &InstData, inner: &str) -> R<Emitted> {
    let mut stmts = Vec::new();
    for part in inner.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        if part.starts_with('.') {
            stmts.push(Stmt::Directive(vec![format!("{part};")]));
        } else {
            stmts.extend(emit(cx, op, d, part, 0)?.stmts);
        }
    }
    Ok(Emitted {
        stmts: vec![Stmt::Scope(stmts)],
        kind: "instruction",
        narration: narr!(cx, "{} prints as a scope of its own.", op.name()),
    })
}

/// Operand `k` of the instruction (results first).
fn nth(d: &InstData, k: usize) -> R<&MOp> {
    d.operands.get(k).ok_or_else(|| {
        format!(
            "the template names operand {k}, the instruction has {}",
            d.operands.len()
        )
    })
}

fn imm_at(d: &InstData, k: usize, what: &str) -> R<i64> {
    nth(d, k)?
        .imm_value()
        .ok_or_else(|| format!("operand {k} is not an immediate {what}"))
}

/// The mnemonic with its `<N:KIND>` decoders replaced.
fn mnemonic_text(d: &InstData, m: &str) -> R<String> {
    let mut out = String::new();
    let mut rest = m;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('>')
            .ok_or("unclosed `<` in the template")?
            + open;
        let (n, kind) = rest[open + 1..close]
            .split_once(':')
            .ok_or("a decoder is `<N:KIND>`")?;
        let k: usize = n.parse().map_err(|_| "a decoder's N is a number")?;
        out.push_str(&decode(d, k, kind)?);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn decode(d: &InstData, k: usize, kind: &str) -> R<String> {
    Ok(match kind {
        "sem" => sem_word(imm_at(d, k, "ordering")?, imm_at(d, k + 1, "scope")?)?,
        // An atomic's ordering and its scope, each printed on its own.
        "asem" => {
            let sem = sem_word(imm_at(d, k, "ordering")?, 0)?;
            let scope = scope_word(imm_at(d, k + 1, "scope")?)?;
            format!("{sem}{scope}")
        }
        "space" => space_word(imm_at(d, k, "address space")?)?.to_string(),
        "ftz" if imm_at(d, k, "flush-to-zero flag")? != 0 => ".ftz".into(),
        "ftz" => String::new(),
        // An optional flag (`op:` rows of the CICC-era float forms may lack it).
        "ftz?" if d.operands.get(k).and_then(MOp::imm_value).unwrap_or(0) != 0 => ".ftz".into(),
        "ftz?" => String::new(),
        "cmp" => {
            let mut mode = imm_at(d, k, "compare mode")?;
            if d.operands.get(k + 1).and_then(MOp::imm_value).unwrap_or(0) != 0 {
                mode |= 0x100;
            }
            format!(".{}", cmp_mode(mode, true)?)
        }
        "cvt" => cvt_mode(imm_at(d, k, "conversion mode")?)?,
        "rnd" => cvt_mode(imm_at(d, k, "conversion mode")? & 0xf)?,
        "relu" if imm_at(d, k, "conversion mode")? & 0x40 != 0 => ".relu".into(),
        "relu" => String::new(),
        "prmt" => match imm_at(d, k, "permute mode")? {
            0 => "",
            1 => ".f4e",
            2 => ".b4e",
            3 => ".rc8",
            4 => ".ecl",
            5 => ".ecr",
            6 => ".rc16",
            m => return Err(format!("unknown permute mode {m}")),
        }
        .into(),
        _ => return Err(format!("unknown decoder `{kind}`")),
    })
}

/// Splits at commas outside brackets and braces.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// `#N` → N.
fn index(s: &str) -> R<usize> {
    s.trim()
        .strip_prefix('#')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("`{s}` is not an operand reference `#N`"))
}

fn operand(cx: &Cx<'_>, d: &InstData, o: &str, float_bits: u32) -> R<P> {
    if let Some(inner) = o.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        return address(cx, d, inner, float_bits);
    }
    if let Some(inner) = o.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
        return Ok(P::Vec(
            split_top(inner)
                .into_iter()
                .map(|x| operand(cx, d, x, float_bits))
                .collect::<R<_>>()?,
        ));
    }
    if let Some((a, b)) = o.split_once('|') {
        return Ok(P::Pair(
            Box::new(operand(cx, d, a, float_bits)?),
            Box::new(operand(cx, d, b, float_bits)?),
        ));
    }
    if !o.starts_with('#') {
        return Ok(P::Sym(o.to_string()));
    }
    if let Some(n) = o.strip_suffix(":x") {
        let v = imm_at(d, index(n)?, "value")?;
        return Ok(P::Sym(format!("0x{:X}U", v as u32)));
    }
    value(cx, nth(d, index(o)?)?, float_bits)
}

/// A register (virtual or physical, `$envreg0` → `%envreg0`, the frame registers
/// `%SP`/`%SPL`), immediate or symbol.
fn value(cx: &Cx<'_>, m: &MOp, float_bits: u32) -> R<P> {
    if let OperandKind::Reg(crate::mir::Reg::Phys(p)) = m.kind {
        let name = cx.f.sym(p);
        if let Some(frame) = super::super::frame::ptx_name(name) {
            return Ok(P::Reg(frame.into()));
        }
        return Ok(P::Reg(format!("%{}", name.trim_start_matches('$'))));
    }
    cx.value(m, float_bits)
}

/// `#B+#O`, `#B`, or `#B,{#C,...}` inside brackets.
fn address(cx: &Cx<'_>, d: &InstData, inner: &str, float_bits: u32) -> R<P> {
    let parts = split_top(inner);
    let (head, extra) = parts.split_first().ok_or("an empty address")?;
    let extra = extra
        .iter()
        .map(|x| operand(cx, d, x, float_bits))
        .collect::<R<Vec<P>>>()?;
    let (base, offset) = match head.split_once('+') {
        Some((b, o)) if !b.starts_with('#') => {
            return Ok(P::Addr {
                base: AddrBase::Sym(b.into()),
                offset: imm_at(d, index(o)?, "address offset")?,
                extra,
            })
        }
        Some((b, o)) => (nth(d, index(b)?)?, nth(d, index(o)?)?),
        None => {
            let b = nth(d, index(head)?)?;
            let base = match value(cx, b, float_bits)? {
                P::Reg(r) => AddrBase::Reg(r),
                P::Sym(s) => AddrBase::Sym(s),
                P::Imm(_) => return Err("an immediate as an address base".into()),
                _ => return Err("this operand cannot be an address base".into()),
            };
            return Ok(P::Addr {
                base,
                offset: 0,
                extra,
            });
        }
    };
    match cx.addr(base, offset)? {
        P::Addr { base, offset, .. } => Ok(P::Addr {
            base,
            offset,
            extra,
        }),
        other => Ok(other),
    }
}
