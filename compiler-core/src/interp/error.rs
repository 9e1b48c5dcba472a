//! Interpreter errors. Every way a run can fail is a value of [`InterpError`]; nothing in
//! the interpreter panics on any IR, however malformed.

use alloc::string::String;
use core::fmt;

/// Where in the function an error happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// `bb.N` number of the block.
    pub block: u32,
    /// The instruction as MIR prints it.
    pub inst: String,
}

/// Why a run (or the compilation before it) failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterpError {
    /// The opcode has no semantics here (llc-22's `anonymous_NNNNN`, another target's
    /// opcodes, call-sequence pseudos) or uses a feature the interpreter does not model
    /// (an inline-asm instruction outside the supported set, ...). Callers skip and list
    /// the function.
    Unsupported {
        opcode: String,
        reason: String,
        at: Option<Location>,
    },
    /// The IR does not fit the opcode's operand layout, names a block that does not
    /// exist, has PHIs below other instructions, ...: IR the verifier would reject.
    Malformed {
        message: String,
        at: Option<Location>,
    },
    /// More than `Config::fuel` instructions were executed (an infinite loop, or a
    /// run too long for the budget).
    OutOfFuel { fuel: u64 },
    /// A load or store touched memory that no region maps.
    BadAddress {
        space: &'static str,
        addr: u64,
        bytes: u32,
        write: bool,
        at: Option<Location>,
    },
    /// Threads reached different collective operations (barrier, shuffle) in a way the
    /// warp model cannot reconcile.
    Divergence { message: String },
    /// Control reached the end of the last block without a `Return`.
    FellOffEnd { block: u32 },
    /// The launch or the inputs are outside the interpreter's limits.
    Limits { message: String },
}

impl InterpError {
    pub(crate) fn unsupported(opcode: &str, reason: impl Into<String>) -> Self {
        InterpError::Unsupported {
            opcode: opcode.into(),
            reason: reason.into(),
            at: None,
        }
    }

    pub(crate) fn malformed(message: impl Into<String>) -> Self {
        InterpError::Malformed {
            message: message.into(),
            at: None,
        }
    }

    /// Names the instruction's opcode in an `Unsupported` raised by an operand helper
    /// (which only knew a placeholder such as `<sub-register>`).
    pub(crate) fn named(mut self, name: &str) -> Self {
        if let InterpError::Unsupported { opcode, reason, .. } = &mut self {
            if let Some(what) = opcode.strip_prefix('<').and_then(|o| o.strip_suffix('>')) {
                *reason = alloc::format!("{what}: {reason}");
                *opcode = name.into();
            }
        }
        self
    }

    /// Attaches a location if the error has none yet.
    pub(crate) fn at(mut self, loc: impl FnOnce() -> Location) -> Self {
        match &mut self {
            InterpError::Unsupported { at, .. }
            | InterpError::Malformed { at, .. }
            | InterpError::BadAddress { at, .. }
                if at.is_none() =>
            {
                *at = Some(loc());
            }
            _ => {}
        }
        self
    }

    /// True for errors that say "this function cannot be interpreted" rather than
    /// "this run went wrong".
    pub fn is_unsupported(&self) -> bool {
        matches!(self, InterpError::Unsupported { .. })
    }

    /// A short kind name for tables and test output.
    pub fn kind(&self) -> &'static str {
        match self {
            InterpError::Unsupported { .. } => "unsupported",
            InterpError::Malformed { .. } => "malformed",
            InterpError::OutOfFuel { .. } => "out-of-fuel",
            InterpError::BadAddress { .. } => "bad-address",
            InterpError::Divergence { .. } => "divergence",
            InterpError::FellOffEnd { .. } => "fell-off-end",
            InterpError::Limits { .. } => "limits",
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bb.{}: `{}`", self.block, self.inst)
    }
}

fn write_at(f: &mut fmt::Formatter<'_>, at: &Option<Location>) -> fmt::Result {
    match at {
        Some(l) => write!(f, " (at {l})"),
        None => Ok(()),
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpError::Unsupported { opcode, reason, at } => {
                write!(f, "unsupported opcode `{opcode}`: {reason}")?;
                write_at(f, at)
            }
            InterpError::Malformed { message, at } => {
                write!(f, "malformed IR: {message}")?;
                write_at(f, at)
            }
            InterpError::OutOfFuel { fuel } => {
                write!(f, "out of fuel: more than {fuel} instructions executed")
            }
            InterpError::BadAddress {
                space,
                addr,
                bytes,
                write,
                at,
            } => {
                let what = if *write { "store to" } else { "load from" };
                write!(
                    f,
                    "{what} unmapped {space} address {addr:#x} ({bytes} bytes)"
                )?;
                write_at(f, at)
            }
            InterpError::Divergence { message } => write!(f, "divergence: {message}"),
            InterpError::FellOffEnd { block } => {
                write!(
                    f,
                    "control fell off the end of the function after bb.{block}"
                )
            }
            InterpError::Limits { message } => write!(f, "limits: {message}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for InterpError {}
