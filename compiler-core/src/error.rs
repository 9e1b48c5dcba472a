//! Errors that point into the input text.

use alloc::string::String;
use core::fmt;
use serde::Serialize;

/// An error at a 1-based line and column of the input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SourceError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl SourceError {
    pub fn new(line: u32, col: u32, message: impl Into<String>) -> Self {
        SourceError {
            line,
            col,
            message: message.into(),
        }
    }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SourceError {}

/// Refuses an input of more than `limit` bytes up front, at 1:1 (the MIR, DAG and PTX
/// readers share it).
pub(crate) fn check_input_size(text: &str, limit: usize) -> Result<(), SourceError> {
    if text.len() <= limit {
        return Ok(());
    }
    let msg = alloc::format!("input is {} bytes; the limit is {limit} bytes", text.len());
    Err(SourceError::new(1, 1, msg))
}

/// Replaying a recorded edit (a MIR [`Edit`](crate::trace::Edit) or an ORI edit) found
/// the function not in the state the edit expects. It lives here, below both `trace`
/// and `ori`, so each can report it without importing the other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError(pub String);

/// Converts raw bytes to text, reporting the first invalid UTF-8 byte's position.
pub fn text_from_bytes(bytes: &[u8]) -> Result<&str, SourceError> {
    core::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
        let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let col =
            core::str::from_utf8(&good[line_start..]).map_or(1, |s| s.chars().count() as u32 + 1);
        SourceError::new(line, col, "input is not UTF-8 text")
    })
}
