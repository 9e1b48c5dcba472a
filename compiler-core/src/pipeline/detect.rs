//! The input formats and how a run tells them apart: from the first meaningful line
//! (`detect_format`) unless `--from` names one; then the parse into an [`Ir`].

use super::{Ir, PipelineError};
use crate::dag::parse_dag;
use crate::mir::{parse_module_with_spans, FunctionSpans};
use crate::stages::IrKind;
use alloc::vec::Vec;
use core::fmt;
use serde::Serialize;

/// The text formats a run can start from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    Dag,
    Mir,
    Ptx,
}

impl InputFormat {
    pub const ALL: [InputFormat; 3] = [InputFormat::Dag, InputFormat::Mir, InputFormat::Ptx];

    pub const fn name(self) -> &'static str {
        match self {
            InputFormat::Dag => "dag",
            InputFormat::Mir => "mir",
            InputFormat::Ptx => "ptx",
        }
    }

    pub const fn ir_kind(self) -> IrKind {
        match self {
            InputFormat::Dag => IrKind::Dag,
            InputFormat::Mir => IrKind::Mir,
            InputFormat::Ptx => IrKind::Ptx,
        }
    }

    pub fn parse(s: &str) -> Option<InputFormat> {
        InputFormat::ALL.into_iter().find(|f| f.name() == s)
    }
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// PTX directives that can open a PTX file.
const PTX_STARTS: [&str; 12] = [
    ".version",
    ".target",
    ".address_size",
    ".visible",
    ".entry",
    ".func",
    ".extern",
    ".global",
    ".const",
    ".shared",
    ".weak",
    ".pragma",
];

/// Headers LLVM prints in front of a DAG dump.
const DAG_STARTS: [&str; 5] = [
    "SelectionDAG has",
    "Initial selection DAG",
    "Optimized legalized selection DAG",
    "Optimized type-legalized selection DAG",
    "Selected selection DAG",
];

/// Tells the format from the first meaningful line (comments and blank lines skipped).
/// None when the text looks like none of them (callers then read it as MIR, whose parser
/// says what it expected).
pub fn detect_format(text: &str) -> Option<InputFormat> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for line in text.lines().take(1000) {
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") || t.starts_with('#') || t.starts_with(';') {
            continue;
        }
        if t.starts_with("---") || t.starts_with("name:") {
            return Some(InputFormat::Mir);
        }
        if PTX_STARTS.iter().any(|d| {
            t.strip_prefix(d)
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
        }) {
            return Some(InputFormat::Ptx);
        }
        if DAG_STARTS.iter().any(|d| t.starts_with(d)) || is_dag_node(t) {
            return Some(InputFormat::Dag);
        }
        return None;
    }
    None
}

/// `tN:` at the start of a line.
fn is_dag_node(t: &str) -> bool {
    let Some(r) = t.strip_prefix('t') else {
        return false;
    };
    let digits = r.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && r[digits..].starts_with(':')
}

/// Parses `text` in the given (or detected) format, with source spans.
pub fn parse_input(
    text: &str,
    from: Option<InputFormat>,
) -> Result<(InputFormat, Ir, Vec<FunctionSpans>), PipelineError> {
    parse_input_in::<true>(text, from)
}

/// [`parse_input`]; with `DAG` false the DAG reader is left out of the build and a DAG
/// is refused (`run_observed_without_dag`).
pub(super) fn parse_input_in<const DAG: bool>(
    text: &str,
    from: Option<InputFormat>,
) -> Result<(InputFormat, Ir, Vec<FunctionSpans>), PipelineError> {
    let format = from
        .or_else(|| detect_format(text))
        .unwrap_or(InputFormat::Mir);
    match format {
        InputFormat::Mir => {
            let (m, spans) = parse_module_with_spans(text).map_err(PipelineError::Parse)?;
            Ok((format, Ir::Mir(m), spans))
        }
        InputFormat::Ptx => {
            let m = crate::ptx::parse(text).map_err(PipelineError::Parse)?;
            Ok((format, Ir::Ptx(m), Vec::new()))
        }
        InputFormat::Dag if DAG => {
            let d = parse_dag(text).map_err(PipelineError::Parse)?;
            Ok((format, Ir::Dag(d), Vec::new()))
        }
        InputFormat::Dag => Err(PipelineError::Parse(crate::error::SourceError::new(
            1,
            1,
            "a SelectionDAG is read by the DAG input path, which this build leaves out",
        ))),
    }
}
