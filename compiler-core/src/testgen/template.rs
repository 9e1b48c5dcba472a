//! The operand layout of an `asm:` row, read from its template (syntax in
//! `passes/ptx_emit/forms/template.rs`), so the generator writes every such row without
//! code of its own.
//!
//! ```text
//!  #N in  <N:sem> <N:asem>     → ordering N and scope N+1 (immediates)
//!         <N:space> <N:prmt> <N:cvt|rnd|relu> → a mode immediate
//!         <N:ftz>              → the flush-to-zero flag; <N:cmp> → compare mode N and
//!                                the flag N+1 (LLVM 22's setp rows carry both)
//!         [#B+#O]  [#B]        → an address register (64-bit) and an offset immediate
//!         [#H,{#C,…}]  [#H]    → a texture/surface handle (`_R` a register, `_I` a
//!                                symbol) and its coordinates
//!         #A|#B                → a result and a predicate result
//!         #N:x                 → an immediate
//!         #N                   → a value typed by the statement's mnemonic
//! ```
//!
//! A value's type comes from the mnemonic's type words (`cvt.rn.tf32.f32`: the result
//! a tf32 in 32 bits, the source an f32) with the operand roles PTX gives each
//! mnemonic (a `setp` result is a predicate, `bfi`'s position and length are 32-bit,
//! a `vote` reads a predicate and a member mask, ...). Which values are immediates:
//! the `r`/`i`/`p` letters ending the name (the last uses; `_R`/`_I` on a texture or
//! surface row: the handle), the immediates PTX requires (`cp.async.wait_group N`,
//! `alloca`'s alignment, `setmaxnreg`'s count), and for the anonymous warp shuffles
//! (`anonymous_N`, one record per register/immediate choice) the record's place in
//! its group of eight: LLVM's `foreach` defines them with offset, clamp and mask as
//! bits 2, 1 and 0 (register 0, immediate 1), found by `isa/anonymous.py` and
//! checked by llc-22 on the generated programs.
//!
//! Operands the template never prints, found in llc-22's MIR and by its verifier
//! (`Too few operands`), listed here as facts of LLVM 22 until the description has
//! a use count: a bulk copy from global memory carries its multicast mask (16-bit)
//! and cache hint (64-bit) in every variant, a bulk copy to global memory its cache
//! hint, so does a bulk prefetch, and every WMMA/MMA record ends in the
//! immediate 78.

use super::sig::{Arg, Shape, Ty};
use crate::interp::split_args as split_top;
use crate::mir::{flag, Op};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// Memory orderings an atomic's `<N:sem>` may name (plain, relaxed, acquire,
/// release, acq_rel) and the scopes (cta, cluster, gpu, sys).
const ORDERINGS: &[i64] = &[0, 2, 4, 5, 6];
const SCOPES: &[i64] = &[1, 2, 3, 4];
/// Address spaces of `<N:space>`: generic, global, shared, shared::cluster.
const SPACES: &[i64] = &[0, 1, 3, 7];
/// Byte-permute modes of `<N:prmt>` (none, f4e, b4e, rc8, ecl, ecr, rc16).
const PRMT_MODES: &[i64] = &[0, 1, 2, 3, 4, 5, 6];
/// Conversion modes of the narrow float conversions: `.rn`, `.rn.relu`.
const NARROW_CVT: &[i64] = &[5, 69];
/// A symbol the generator's programs declare (texture/surface handles by symbol).
pub(crate) const HANDLE_SYMBOL: &str = "@rnd_global";

/// What an operand index is, as the template says.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Role {
    /// A value of the statement's mnemonic at this operand position (`pos`), or
    /// the `k`-th lane of a vector there.
    Value {
        stmt: usize,
        pos: usize,
    },
    Addr,
    Offset,
    Handle,
    /// A texture/surface coordinate of statement `stmt`.
    Coord {
        stmt: usize,
    },
    /// The second result of `#A|#B`.
    PredResult,
    /// A register of this type the text does not print.
    Reg(Ty),
    /// `#N:x`: an immediate printed in hexadecimal.
    Hex,
    Imm(Arg),
}

/// One statement of a template: its mnemonic words (decoders removed).
struct Stmt<'a> {
    words: Vec<&'a str>,
    /// How many operands it prints.
    nops: usize,
}

/// The layout of `op`'s `asm:` template.
pub(crate) fn asm_shape(op: Op, template: &str) -> Result<Shape, String> {
    let d = op.desc();
    let body = template
        .strip_prefix("{ ")
        .and_then(|t| t.strip_suffix(" }"))
        .unwrap_or(template);
    let mut roles: Vec<Option<Role>> = Vec::new();
    let mut stmts = Vec::new();
    for (s, text) in body
        .split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty() && !p.starts_with('.'))
        .enumerate()
    {
        let (mnemonic, operands) = text.split_once(' ').unwrap_or((text, ""));
        let words = read_mnemonic(mnemonic, &mut roles)?;
        let handle = matches!(
            words.first(),
            Some(&("tex" | "suld" | "sust" | "suq" | "txq"))
        );
        let ops = split_top(operands);
        for (pos, o) in ops.iter().enumerate() {
            read_operand(o, s, pos, handle, &mut roles)?;
        }
        stmts.push(Stmt {
            words,
            nops: ops.len(),
        });
    }
    trailing_operands(&stmts, &mut roles);
    let ndefs = d.defs as usize;
    if roles.len() < ndefs || roles.iter().any(Option::is_none) {
        return Err(format!(
            "`{}`: the template does not name every operand up to #{}",
            op.name(),
            roles.len()
        ));
    }
    let roles: Vec<Role> = roles.into_iter().map(Option::unwrap).collect();
    let mut args: Vec<Arg> = roles
        .iter()
        .enumerate()
        .map(|(k, &r)| arg_of(op, &stmts, r, k < ndefs))
        .collect::<Result<_, _>>()?;
    immediates(op, &roles, ndefs, &mut args, &stmts);
    let defs = args[..ndefs]
        .iter()
        .map(|a| match a {
            Arg::Reg(t) => Ok(*t),
            _ => Err(format!("`{}`: a result that is not a register", op.name())),
        })
        .collect::<Result<Vec<Ty>, String>>()?;
    Ok(Shape::Plain {
        defs,
        uses: args.split_off(ndefs),
    })
}

fn set(roles: &mut Vec<Option<Role>>, k: usize, r: Role) {
    if roles.len() <= k {
        roles.resize(k + 1, None);
    }
    // The first mention decides (a scope's statements may name an operand twice).
    if roles[k].is_none() {
        roles[k] = Some(r);
    }
}

/// The mnemonic's words with its `<N:KIND>` decoders read into `roles`.
fn read_mnemonic<'a>(m: &'a str, roles: &mut Vec<Option<Role>>) -> Result<Vec<&'a str>, String> {
    let mut words = Vec::new();
    let mut rest = m;
    while let Some(open) = rest.find('<') {
        words.extend(rest[..open].split('.').filter(|w| !w.is_empty()));
        let close = open + rest[open..].find('>').ok_or("an unclosed decoder")?;
        let (n, kind) = rest[open + 1..close]
            .split_once(':')
            .ok_or("a decoder is <N:KIND>")?;
        let k: usize = n.parse().map_err(|_| "a decoder's N")?;
        match kind {
            "sem" | "asem" => {
                set(roles, k, Role::Imm(Arg::Pick(ORDERINGS)));
                set(roles, k + 1, Role::Imm(Arg::Pick(SCOPES)));
            }
            "space" => set(roles, k, Role::Imm(Arg::Pick(SPACES))),
            "prmt" => set(roles, k, Role::Imm(Arg::Pick(PRMT_MODES))),
            "cvt" | "rnd" | "relu" => set(roles, k, Role::Imm(Arg::Pick(NARROW_CVT))),
            "ftz" => set(roles, k, Role::Imm(Arg::Ftz)),
            "cmp" => {
                set(roles, k, Role::Imm(Arg::Cmp { float: true }));
                // LLVM 22's setp rows carry the flag, except for f64 (no `.ftz`).
                if !m.ends_with("f64") {
                    set(roles, k + 1, Role::Imm(Arg::Ftz));
                }
            }
            other => return Err(format!("decoder `{other}` not read")),
        }
        rest = &rest[close + 1..];
    }
    words.extend(rest.split('.').filter(|w| !w.is_empty()));
    Ok(words)
}

/// `#N` → N.
fn index(s: &str) -> Option<usize> {
    s.trim().strip_prefix('#')?.parse().ok()
}

/// Reads operand `o` at position `pos` of statement `s` (`handle`: a texture or
/// surface instruction, whose bracket holds a handle).
fn read_operand(
    o: &str,
    s: usize,
    pos: usize,
    handle: bool,
    roles: &mut Vec<Option<Role>>,
) -> Result<(), String> {
    if let Some(inner) = o.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        let parts = split_top(inner);
        let texture = handle;
        match parts[0].split_once('+') {
            Some((b, off)) => {
                set(roles, index(b).ok_or("an address base")?, Role::Addr);
                set(roles, index(off).ok_or("an address offset")?, Role::Offset);
            }
            None => {
                let k = index(parts[0]).ok_or("an address base")?;
                set(roles, k, if texture { Role::Handle } else { Role::Addr });
            }
        }
        for c in &parts[1..] {
            let c = c.trim_start_matches('{').trim_end_matches('}');
            for x in c.split(',') {
                set(
                    roles,
                    index(x).ok_or("a coordinate")?,
                    Role::Coord { stmt: s },
                );
            }
        }
        return Ok(());
    }
    if let Some(inner) = o.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
        for x in split_top(inner) {
            read_operand(x, s, pos, handle, roles)?;
        }
        return Ok(());
    }
    if let Some((a, b)) = o.split_once('|') {
        set(
            roles,
            index(a).ok_or("a result")?,
            Role::Value { stmt: s, pos },
        );
        set(roles, index(b).ok_or("a result")?, Role::PredResult);
        return Ok(());
    }
    if let Some(n) = o.strip_suffix(":x") {
        set(roles, index(n).ok_or("an immediate")?, Role::Hex);
        return Ok(());
    }
    if let Some(k) = index(o) {
        set(roles, k, Role::Value { stmt: s, pos });
    }
    // Anything else is literal text (`%SP`, `16`, `%clc_handle`).
    Ok(())
}

/// Operands LLVM 22 gives a row that its text does not print (module header).
fn trailing_operands(stmts: &[Stmt<'_>], roles: &mut Vec<Option<Role>>) {
    let words = &stmts[0].words;
    if matches!(words[0], "wmma" | "mma") {
        // Every WMMA/MMA record of llc-22 22.1.8 ends in the immediate 78.
        let k = roles.len();
        set(roles, k, Role::Imm(Arg::Pick(&[78])));
        return;
    }
    if words.first() != Some(&"cp") || !words.contains(&"bulk") {
        return;
    }
    let from_global = words.get(3) == Some(&"shared::cluster");
    if from_global && words.contains(&"global") {
        // [dst], [mbar], [src], size, mask, hint.
        roles.resize(roles.len().max(9), None);
        set(roles, 7, Role::Reg(Ty::I16));
        set(roles, 8, Role::Reg(Ty::I64));
    } else if words.get(3) == Some(&"global") {
        // [dst], [src], size, hint.
        set(roles, 5, Role::Reg(Ty::I64));
    } else if words.get(3) == Some(&"prefetch") {
        // [src], size, hint.
        set(roles, 3, Role::Reg(Ty::I64));
    }
}

/// A type word of PTX text, including the narrow float formats packed in 16 bits.
fn word_ty(w: &str) -> Option<Ty> {
    Some(match w {
        "pred" => Ty::Pred,
        "b8" | "s8" | "u8" | "b16" | "s16" | "u16" => Ty::I16,
        "e4m3x2" | "e5m2x2" | "e2m3x2" | "e3m2x2" | "e2m1x2" => Ty::I16,
        "f16" | "bf16" => Ty::F16,
        "b32" | "s32" | "u32" | "tf32" => Ty::I32,
        "f32" => Ty::F32,
        "f16x2" | "bf16x2" => Ty::H2,
        "b64" | "s64" | "u64" => Ty::I64,
        "f64" => Ty::F64,
        "b128" => Ty::I128,
        _ => return None,
    })
}

/// The value type at operand position `pos` of a statement of `nops` operands.
fn value_ty(words: &[&str], pos: usize, nops: usize) -> Option<Ty> {
    let types: Vec<Ty> = words.iter().filter_map(|w| word_ty(w)).collect();
    let (first, last) = (types.first().copied(), types.last().copied());
    let has = |w: &str| words.contains(&w);
    let last_pos = pos + 1 == nops;
    Some(match words[0] {
        "cvt" if pos == 0 => first?,
        "cvt" => *types.get(1).or(types.first())?,
        "tex" | "clusterlaunchcontrol" if pos == 0 => first?,
        "setp" if pos == 0 => Ty::Pred,
        "selp" if pos == 3 => Ty::Pred,
        "match" if pos == 0 || pos == 2 => Ty::I32,
        "vote" if pos == 1 => Ty::Pred,
        "vote" if pos == 2 => Ty::I32,
        "redux" if pos == 2 => Ty::I32,
        "bar" | "barrier" if has("red") && pos > 0 && last_pos => Ty::Pred,
        "bar" | "barrier" if !has("red") || pos > 0 => Ty::I32,
        "elect" | "shfl" => Ty::I32,
        "bfi" | "bfe" if pos >= 2 + usize::from(words[0] == "bfi") => Ty::I32,
        "bfind" if pos == 0 => Ty::I32,
        "mbarrier" if has("test_wait") && pos == 0 => Ty::Pred,
        "mbarrier" if has("pending_count") && pos == 0 => Ty::I32,
        "mbarrier" if (has("init") && pos == 1) || (has("noComplete") && pos == 2) => Ty::I32,
        "mbarrier" => Ty::I64,
        "cp" if has("multicast::cluster") && pos == 4 => Ty::I16,
        "cp" if has("L2::cache_hint") && last_pos => Ty::I64,
        "applypriority" => Ty::I64,
        "cp" | "tcgen05" => Ty::I32,
        "wmma" | "mma" => return wmma_ty(&types, words, pos),
        "mov" if has("b128") => Ty::I64,
        // No type word (`wgmma.wait_group.sync.aligned N`): a 32-bit value.
        _ => last.unwrap_or(Ty::I32),
    })
}

/// A warp matrix fragment's lane type: results and accumulators of the type their
/// word names (d then c), `a`/`b` fragments of f16 pairs (tf32 in 32 bits).
fn wmma_ty(types: &[Ty], words: &[&str], pos: usize) -> Option<Ty> {
    let f16x2 = |t: Ty| if t == Ty::F16 { Ty::H2 } else { t };
    if words.contains(&"load") || words.contains(&"store") {
        // The fragment (position 0 or 1, beside the address), then the stride.
        return Some(if pos == 2 {
            Ty::I32
        } else {
            f16x2(*types.last()?)
        });
    }
    let (d, c) = (*types.first()?, *types.last()?);
    Some(match pos {
        0 => f16x2(d),
        3 => f16x2(c),
        _ if words.contains(&"tf32") => Ty::I32,
        _ => Ty::H2,
    })
}

fn arg_of(op: Op, stmts: &[Stmt<'_>], r: Role, def: bool) -> Result<Arg, String> {
    let name = op.name();
    let why = || format!("`{name}`: no operand type for {r:?}");
    Ok(match r {
        Role::Value { stmt, pos } => {
            let words = &stmts[stmt].words;
            if words[0] == "mov" && !def && !words.contains(&"b128") {
                return Ok(Arg::Sym(mov_source(op)));
            }
            if words[0] == "add" && !def {
                // A frame object's address plus an offset (`add.u64 d, %stack.0, off`).
                return Ok(if pos == 1 { Arg::Frame } else { Arg::Offset });
            }
            let t = value_ty(words, pos, stmts[stmt].nops).ok_or_else(why)?;
            let t = if t == Ty::I16 && name.contains("f16") && words[0] == "selp" {
                Ty::F16
            } else {
                t
            };
            Arg::Reg(t)
        }
        Role::Addr => Arg::Addr,
        Role::Offset => Arg::Offset,
        Role::Handle if name.ends_with("_I") => Arg::Sym(HANDLE_SYMBOL),
        Role::Handle => Arg::Reg(Ty::I64),
        Role::Coord { stmt } => {
            let words = &stmts[stmt].words;
            if words[0] == "tex" {
                Arg::Reg(word_ty(words[words.len() - 1]).ok_or_else(why)?)
            } else {
                Arg::Reg(Ty::I32)
            }
        }
        Role::PredResult => Arg::Reg(Ty::Pred),
        Role::Reg(t) => Arg::Reg(t),
        Role::Hex => Arg::Int,
        Role::Imm(a) => a,
    })
}

/// What `mov #0, #1` reads when #1 is no register: a special register (`$envreg0`),
/// a parameter's address (`&rnd_param_0`) or a texture handle's symbol.
fn mov_source(op: Op) -> &'static str {
    let d = op.desc();
    match op.sem() {
        _ if d.has(flag::SPECIAL_REG) => "$envreg0",
        "none:call" => "&rnd_param_0",
        _ => HANDLE_SYMBOL,
    }
}

/// Marks the uses that are immediates: the immediates PTX requires, a shuffle
/// record's operand kinds, or the name's trailing `r`/`i`/`p` letters (the last
/// register uses, predicates only where a `p` names them; `_R`/`_I` on a texture or
/// surface row name the handle, read in [`arg_of`]).
fn immediates(op: Op, roles: &[Role], ndefs: usize, args: &mut [Arg], stmts: &[Stmt<'_>]) {
    let name = op.name();
    let words = &stmts[0].words;
    let letters = trailing_letters(name);
    let regs: Vec<usize> = (ndefs..args.len())
        .filter(|&k| match args[k] {
            Arg::Reg(Ty::Pred) => letters.contains('p'),
            Arg::Reg(_) => roles[k] != Role::Handle,
            _ => roles[k] == Role::Hex,
        })
        .collect();
    let required = match words[0] {
        "setmaxnreg" => Some(Arg::Pick(&[32, 64, 96, 128])),
        "alloca" => Some(Arg::Pick(&[8, 16])),
        _ if words.contains(&"wait_group") => Some(Arg::Below(8)),
        _ => None,
    };
    if let Some(a) = required {
        if let Some(&k) = regs.last() {
            args[k] = a;
        }
        return;
    }
    if words[0] == "shfl" && name.starts_with("anonymous_") {
        let j = shuffle_variant(op).unwrap_or(0);
        // Offset, clamp, mask: bits 2, 1, 0 of the record's place in its group.
        for (bit, &k) in [4, 2, 1].iter().zip(regs.iter().skip(1)) {
            if j & bit != 0 {
                args[k] = Arg::Below(32);
            }
        }
        return;
    }
    if roles.contains(&Role::Handle) {
        return;
    }
    for (c, &k) in letters.chars().rev().zip(regs.iter().rev()) {
        if c == 'i' || c == 'I' {
            args[k] = match args[k] {
                Arg::Reg(t) if t.is_float() => Arg::Float(t, name.contains("bf16")),
                _ if matches!(words[0], "bar" | "barrier") => Arg::Below(16),
                _ => Arg::Int,
            };
        }
    }
}

/// The `r`/`i`/`p` letters that end a name (`_ii`, `rrp`, `GENr`, `_R`), or none.
fn trailing_letters(name: &str) -> &str {
    let tail = name.rsplit('_').next().unwrap_or(name);
    if matches!(tail, "R" | "I") {
        return tail;
    }
    let n = tail.len() - tail.trim_end_matches(['r', 'i', 'p']).len();
    &tail[tail.len() - n..]
}

/// An anonymous shuffle record's place in its group of eight (the row lists the
/// groups in order, each starting at a multiple of eight from the row's first).
fn shuffle_variant(op: Op) -> Option<u32> {
    let number = |o: Op| o.name().strip_prefix("anonymous_")?.parse::<u32>().ok();
    let first = Op::all().iter().find(|o| o.isa_line() == op.isa_line())?;
    Some((number(op)? - number(*first)?) % 8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// The opcode whose template starts with `head` and whose name ends in `tail`
    /// (found through the description: its rows are the only place naming them).
    fn row(head: &str, tail: &str) -> (Vec<Ty>, Vec<Arg>) {
        let op = *Op::all()
            .iter()
            .find(|o| o.ptx().starts_with(head) && o.name().ends_with(tail))
            .unwrap();
        match asm_shape(op, &op.ptx()[4..]).unwrap() {
            Shape::Plain { defs, uses } => (defs, uses),
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn layouts_read_from_templates() {
        assert_eq!(
            row("asm:atom<5:asem><7:space>.cas.b32", "_ri"),
            (
                vec![Ty::I32],
                vec![
                    Arg::Addr,
                    Arg::Offset,
                    Arg::Reg(Ty::I32),
                    Arg::Int,
                    Arg::Pick(ORDERINGS),
                    Arg::Pick(SCOPES),
                    Arg::Pick(SPACES)
                ]
            )
        );
        assert_eq!(
            row("asm:match.all.sync.b64", "ir"),
            (vec![Ty::I32, Ty::Pred], vec![Arg::Int, Arg::Reg(Ty::I32)])
        );
        assert_eq!(
            row("asm:tex.1d.v4.f32.s32", "_I"),
            (
                vec![Ty::F32; 4],
                vec![Arg::Sym(HANDLE_SYMBOL), Arg::Reg(Ty::I32)]
            )
        );
        assert_eq!(
            row("asm:vote.sync.ballot.b32", "i"),
            (vec![Ty::I32], vec![Arg::Reg(Ty::Pred), Arg::Int])
        );
        // A shuffle record with offset and mask immediate (place 5 of 8).
        let (_, uses) = row("asm:shfl.sync.down.b32 #0, ", "14930");
        assert_eq!(
            uses,
            vec![
                Arg::Reg(Ty::I32),
                Arg::Below(32),
                Arg::Reg(Ty::I32),
                Arg::Below(32)
            ]
        );
    }
}
