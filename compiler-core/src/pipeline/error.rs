//! Why a run could not start or finish.

use crate::error::SourceError;
use crate::stages::{IrKind, Stage};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

/// Why a run could not start or finish.
#[derive(Clone, Debug, PartialEq)]
pub enum PipelineError {
    /// The input does not parse (or is not UTF-8).
    Parse(SourceError),
    /// `verify` is on and the input breaks a rule; every error, in input order.
    InvalidInput(Vec<SourceError>),
    /// `until` names a stage in front of the input's entry stage.
    UntilBeforeEntry { until: Stage, entry: Stage },
    /// Both `until` and `only` were given.
    UntilAndOnly,
    /// `only` names a stage twice.
    DuplicateStage(Stage),
    /// A stage in `only` reads another IR than the one it would get.
    WrongInput {
        stage: Stage,
        expected: IrKind,
        found: IrKind,
    },
    /// The run ends in another IR than `emit` asks for.
    Emit { wanted: IrKind, produced: IrKind },
    /// A stage could not handle its input (an opcode with no PTX form, ...).
    StageFailed { stage: Stage, message: String },
    /// The first stage, reading the user's text itself, refused it (a PTX register
    /// that is not declared, ...): the errors point into that text.
    SourceRefused {
        stage: Stage,
        errors: Vec<SourceError>,
    },
}

impl PipelineError {
    /// True when the error is about the request rather than the input (CLI exit 2).
    pub fn is_usage(&self) -> bool {
        !matches!(
            self,
            PipelineError::Parse(_)
                | PipelineError::InvalidInput(_)
                | PipelineError::StageFailed { .. }
                | PipelineError::SourceRefused { .. }
        )
    }

    /// The input positions this error points at (empty for usage errors).
    pub fn source_errors(&self) -> Vec<SourceError> {
        match self {
            PipelineError::Parse(e) => alloc::vec![e.clone()],
            PipelineError::InvalidInput(v) => v.clone(),
            PipelineError::SourceRefused { errors, .. } => errors.clone(),
            _ => Vec::new(),
        }
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineError::Parse(e) => write!(f, "{e}"),
            PipelineError::InvalidInput(v) => {
                write!(f, "the input breaks {} verifier rule(s)", v.len())?;
                for e in v {
                    write!(f, "\n{e}")?;
                }
                Ok(())
            }
            PipelineError::UntilBeforeEntry { until, entry } => write!(
                f,
                "--until {until} names a stage before the input's entry stage {entry}"
            ),
            PipelineError::UntilAndOnly => f.write_str("--until and --only cannot be combined"),
            PipelineError::DuplicateStage(s) => write!(f, "--only names stage {s} twice"),
            PipelineError::StageFailed { stage, message } => write!(f, "stage {stage}: {message}"),
            PipelineError::SourceRefused { stage, errors } => {
                write!(f, "stage {stage} refuses the input")?;
                for e in errors {
                    write!(f, "\n{e}")?;
                }
                Ok(())
            }
            PipelineError::WrongInput {
                stage,
                expected,
                found,
            } => write!(
                f,
                "stage {stage} reads {} but would be given {}",
                expected.name(),
                found.name()
            ),
            PipelineError::Emit { wanted, produced } => write!(
                f,
                "cannot emit {}: the run ends in {}",
                wanted.name(),
                produced.name()
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for PipelineError {}
