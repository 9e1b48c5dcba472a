//! Running child processes: quietly into a log, streamed and captured, or just probed.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;

/// How a command reads in messages: program and arguments.
pub fn describe(cmd: &Command) -> String {
    let mut text = cmd.get_program().to_string_lossy().into_owned();
    for arg in cmd.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    text
}

/// Runs `cmd` and returns its trimmed stdout (stderr when stdout is empty) if it exits 0.
/// For version probes; a missing program is simply `None`.
pub fn probe(cmd: &mut Command) -> Option<String> {
    let out = cmd.stdin(Stdio::null()).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = if out.stdout.iter().all(u8::is_ascii_whitespace) {
        out.stderr
    } else {
        out.stdout
    };
    Some(String::from_utf8_lossy(&text).trim().to_string())
}

/// Runs `cmd` with stdin closed and all output appended to `log`; on failure returns an
/// error holding the log's last lines.
pub fn logged(cmd: &mut Command, log: &Path) -> Result<(), String> {
    let mut file = File::options()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    writeln!(file, "$ {}", describe(cmd)).ok();
    let err_file = file.try_clone().map_err(|e| e.to_string())?;
    let status = cmd
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err_file)
        .status()
        .map_err(|e| format!("cannot run `{}`: {e}", describe(cmd)))?;
    if status.success() {
        return Ok(());
    }
    let mut text = String::new();
    File::open(log)
        .and_then(|mut f| f.read_to_string(&mut text))
        .ok();
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(25)..].join("\n");
    Err(format!(
        "`{}` failed ({status}); last lines of {}:\n{tail}",
        describe(cmd),
        log.display()
    ))
}

/// Runs `cmd` with its output shown live and also captured line by line (stdout and
/// stderr interleaved as they arrive). Returns whether it exited 0, and the lines.
pub fn tee(cmd: &mut Command) -> (bool, Vec<String>) {
    let mut child = match cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => return (false, vec![format!("cannot run `{}`: {e}", describe(cmd))]),
    };
    let lines = Arc::new(Mutex::new(Vec::new()));
    let pump = |stream: Box<dyn Read + Send>, to_stderr: bool| {
        let lines = Arc::clone(&lines);
        thread::spawn(move || {
            let mut reader = BufReader::new(stream);
            let mut buf = Vec::new();
            while reader.read_until(b'\n', &mut buf).is_ok_and(|n| n > 0) {
                let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                if to_stderr {
                    eprintln!("{line}");
                } else {
                    println!("{line}");
                }
                lines.lock().unwrap().push(line);
                buf.clear();
            }
        })
    };
    let out = pump(Box::new(child.stdout.take().unwrap()), false);
    let err = pump(Box::new(child.stderr.take().unwrap()), true);
    out.join().ok();
    err.join().ok();
    let ok = child.wait().map(|s| s.success()).unwrap_or(false);
    let lines = std::mem::take(&mut *lines.lock().unwrap());
    (ok, lines)
}
