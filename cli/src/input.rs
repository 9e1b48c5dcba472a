//! Reading the input (a file, `-` for stdin, or a gallery example) and printing
//! diagnostics as `NAME:LINE:COL: error: MESSAGE`.

use crate::Failure;
use compiler_core::error::text_from_bytes;
use compiler_core::mir::parse::MAX_INPUT_BYTES;
use compiler_core::SourceError;
use std::io::Read;

/// An input text and the name diagnostics use for it.
pub struct Input {
    pub name: String,
    pub text: String,
}

/// Formats one diagnostic.
pub fn diag(name: &str, e: &SourceError) -> String {
    format!("{name}:{}:{}: error: {}", e.line, e.col, e.message)
}

/// Reads `path` (`-`: stdin). Reads at most one byte past the parser's size limit, so
/// an endless stream is refused instead of filling memory.
pub fn read(path: &str) -> Result<Input, Failure> {
    let name = if path == "-" {
        "<stdin>".to_string()
    } else {
        path.to_string()
    };
    let limit = MAX_INPUT_BYTES as u64 + 1;
    let mut bytes = Vec::new();
    let res = if path == "-" {
        std::io::stdin().lock().take(limit).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes))
    };
    if let Err(e) = res {
        return Err(Failure::Input(vec![format!(
            "{name}: error: cannot read the input: {e}"
        )]));
    }
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(Failure::Input(vec![diag(
            &name,
            &SourceError::new(
                1,
                1,
                format!("input is larger than the limit of {MAX_INPUT_BYTES} bytes"),
            ),
        )]));
    }
    let text = text_from_bytes(&bytes)
        .map_err(|e| Failure::Input(vec![diag(&name, &e)]))?
        .to_string();
    Ok(Input { name, text })
}

/// The single positional FILE of a command.
pub fn one_file(positional: &[String], command: &str) -> Result<String, Failure> {
    match positional {
        [one] => Ok(one.clone()),
        [] => Err(Failure::Usage(format!(
            "`copyscope {command}` needs a FILE (or `-` for stdin)"
        ))),
        [_, extra, ..] => Err(Failure::Usage(format!(
            "`copyscope {command}` takes one FILE; unexpected `{extra}`"
        ))),
    }
}
