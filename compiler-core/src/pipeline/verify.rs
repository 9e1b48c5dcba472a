//! What is checked around the stages: before the first, the input constructs a planned
//! pass does not model (refused at their line:column) and, with `verify`, the MIR
//! verifier at the level the input's header claims; after each stage, the verifier at
//! the level that stage leaves. A failure of the stage reading PTX text is pointed into
//! that text.

use super::{Ir, PipelineError};
use crate::entity::EntityRef;
use crate::error::SourceError;
use crate::mir::{
    describe_errors, verify, Function, FunctionSpans, Inst, Rule, VerifyError, VerifyLevel,
};
use crate::passes;
use crate::stages::Stage;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The checks of the parsed input before any of `stages` runs: two-address's refusals
/// when it is planned, instruction bundles when a stage past it is, and the verifier
/// when `verify` is on. Each failing check is an `InvalidInput` with every error.
pub(super) fn check_input(
    ir: &Ir,
    spans: &[FunctionSpans],
    stages: &[Stage],
    verify: bool,
) -> Result<(), PipelineError> {
    let refuse = |errors: Vec<SourceError>| {
        if errors.is_empty() {
            Ok(())
        } else {
            Err(PipelineError::InvalidInput(errors))
        }
    };
    if stages.contains(&Stage::TwoAddress) {
        refuse(two_address_refusals(ir, spans))?;
    }
    if let Some(&past) = stages.iter().find(|s| **s > Stage::TwoAddress) {
        refuse(bundle_refusals(ir, spans, past))?;
    }
    if verify {
        refuse(verify_input(ir, spans))?;
    }
    Ok(())
}

/// The verifier level an input function is checked at: the SSA rules while its header
/// says `isSSA: true`, the rules after PHI elimination otherwise (they hold for every
/// later MIR stage too).
pub fn input_level(f: &Function) -> VerifyLevel {
    if f.props.is_ssa {
        VerifyLevel::Ssa
    } else {
        VerifyLevel::PostPhiElim
    }
}

/// What two-address refuses in the input (`two_address::unsupported_input`), with
/// line:column.
fn two_address_refusals(ir: &Ir, spans: &[FunctionSpans]) -> Vec<SourceError> {
    let Ir::Mir(m) = ir else {
        return Vec::new();
    };
    let triple = m.ir.as_deref().and_then(|t| {
        let at = t.find("target triple = \"")? + "target triple = \"".len();
        t[at..].split('"').next()
    });
    let mut out = Vec::new();
    for (f, sp) in m.functions.iter().zip(spans) {
        for r in passes::two_address::unsupported_input(f, triple) {
            let (line, col) = sp.position(r.inst, r.operand).unwrap_or((sp.start_line, 1));
            out.push(SourceError::new(
                line,
                col,
                format!("function `{}`: {}", f.name, r.message),
            ));
        }
    }
    out
}

/// Instruction bundles go through PHI elimination and two-address (which walk over
/// them, as LLVM's bundle iterator does); the coalescers and later stages do not model
/// them, so a plan reaching `past` refuses each BUNDLE at its line:column.
fn bundle_refusals(ir: &Ir, spans: &[FunctionSpans], past: Stage) -> Vec<SourceError> {
    let Ir::Mir(m) = ir else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (f, sp) in m.functions.iter().zip(spans) {
        for &(header, _) in &f.bundles {
            let (line, col) = sp.position(header, None).unwrap_or((sp.start_line, 1));
            out.push(SourceError::new(
                line,
                col,
                format!(
                    "function `{}`: BUNDLE: instruction bundles are carried through phi-elimination and two-address only; {} does not model them (stop with --until two-address)",
                    f.name,
                    past.id()
                ),
            ));
        }
    }
    out
}

/// A failure of the stage that read the PTX text itself, pointed into that text: at the
/// first use of the `%register` the message names inside the function it names (past
/// the `.reg` declarations), else at the function's header. Without a function to find
/// it stays a `StageFailed`.
pub(super) fn ptx_refusal(text: &str, stage: Stage, message: String) -> PipelineError {
    let function = message
        .split_once("function `")
        .and_then(|(_, rest)| rest.split_once('`'));
    let Some((name, rest)) = function else {
        return PipelineError::StageFailed { stage, message };
    };
    let reg = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '%' || c == '_' || c == '$'))
        .find(|w| w.len() > 1 && w.starts_with('%'));
    let lines: Vec<&str> = text.lines().collect();
    let header = lines.iter().position(|l| {
        let t = l.trim_start();
        (t.contains(".entry") || t.contains(".func")) && find_word(l, name).is_some()
    });
    let Some(header) = header else {
        return PipelineError::StageFailed { stage, message };
    };
    let at = reg
        .and_then(|r| {
            lines
                .iter()
                .enumerate()
                .skip(header + 1)
                .find_map(|(i, l)| {
                    let t = l.trim_start();
                    if t.starts_with(".reg") || t.starts_with("//") {
                        return None;
                    }
                    find_word(l, r).map(|c| (i, c))
                })
        })
        .unwrap_or_else(|| (header, find_word(lines[header], name).unwrap_or(0)));
    let col = lines[at.0][..at.1].chars().count() as u32 + 1;
    PipelineError::SourceRefused {
        stage,
        errors: alloc::vec![SourceError::new(at.0 as u32 + 1, col, message)],
    }
}

/// The byte offset of `word` in `line` as a whole token (no name character on either
/// side).
pub(super) fn find_word(line: &str, word: &str) -> Option<usize> {
    let name = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '%';
    let mut from = 0;
    while let Some(p) = line[from..].find(word) {
        let start = from + p;
        let end = start + word.len();
        let before = line[..start].chars().next_back().is_some_and(name);
        let after = line[end..].chars().next().is_some_and(name);
        if !before && !after {
            return Some(start);
        }
        from = start + word.len().max(1);
    }
    None
}

/// Checks the parsed input; errors carry input line:column, in input order.
fn verify_input(ir: &Ir, spans: &[FunctionSpans]) -> Vec<SourceError> {
    let mut out = Vec::new();
    match ir {
        Ir::Mir(m) => {
            for (f, sp) in m.functions.iter().zip(spans) {
                let mut taken: Vec<(Inst, usize)> = Vec::new();
                for e in verify(f, input_level(f)) {
                    let at = match (e.inst, e.block) {
                        (Some(i), _) => {
                            let op = error_operand(f, i, &e, &taken);
                            if let Some(k) = op {
                                taken.push((i, k));
                            }
                            sp.position(i, op)
                        }
                        (None, Some(b)) => sp.block_position(b),
                        (None, None) => None,
                    };
                    let (line, col) = at.unwrap_or((sp.start_line, 1));
                    out.push(SourceError::new(line, col, format!("{e}")));
                }
            }
        }
        Ir::Dag(_) | Ir::Ptx(_) | Ir::Ori(_) => {}
    }
    crate::sort::sort_by_key(&mut out, |e| crate::sort::key4(0, 0, e.line, e.col));
    out
}

/// The operand of `inst` an error is about: the first not yet claimed operand naming the
/// first `%N` of the message (a def for a second definition, a use otherwise).
fn error_operand(
    f: &Function,
    inst: Inst,
    e: &VerifyError,
    taken: &[(Inst, usize)],
) -> Option<usize> {
    let msg = e.message.as_bytes();
    let at = (0..msg.len())
        .find(|&i| msg[i] == b'%' && msg.get(i + 1).is_some_and(|c| c.is_ascii_digit()))?;
    let digits: &[u8] = &msg[at + 1..];
    let n = digits.iter().take_while(|c| c.is_ascii_digit()).count();
    let v: u32 = core::str::from_utf8(&digits[..n]).ok()?.parse().ok()?;
    let d = f.insts.get(inst)?;
    let want_def = e.rule == Rule::MultipleDefs;
    let names = |k: &usize| {
        let o = &d.operands[*k];
        o.vreg_of().is_some_and(|x| x.index() as u32 == v) && o.is_def() == want_def
    };
    let free = |k: &usize| !taken.contains(&(inst, *k));
    let all = 0..d.operands.len();
    all.clone()
        .filter(names)
        .find(free)
        .or_else(|| all.clone().find(names))
}

/// Checks a stage's output at the level that stage leaves; errors name the block and
/// the printed instruction.
pub(super) fn verify_after(stage: Stage, ir: &Ir) -> Vec<String> {
    let Some(level) = VerifyLevel::after(stage) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match ir {
        Ir::Mir(m) => {
            for f in &m.functions {
                let errors = verify(f, level);
                for (e, text) in errors.iter().zip(describe_errors(f, &errors)) {
                    out.push(format!("function `{}`: {text} [{}]", f.name, e.rule.id()));
                }
            }
        }
        // PTX and ORI are checked by reading them back and by the real assembler.
        Ir::Dag(_) | Ir::Ptx(_) | Ir::Ori(_) => {}
    }
    out
}
