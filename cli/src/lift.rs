//! `copyscope lift <FILE|-> [--function NAME] [--llvm]`: llc-22's instruction-selected
//! MIR (`-stop-after=finalize-isel`) back into a selected DAG per block
//! (`compiler_core::dag::lift`), printed in CopyScope's DAG format, or with `--llvm` in
//! LLVM's own dump syntax. A DAG file holds one function: with several functions in the
//! MIR, each DAG follows a `# function NAME` comment line (`--function` picks one).
//! A function that cannot be lifted is reported on stderr with the construct that
//! stopped it (exit 1); the others are still printed.

use crate::args::Spec;
use crate::input::{self, diag};
use crate::{out, CmdResult, Failure};
use compiler_core::dag::{lift, lift::strip_llc22_classes, print_dag, print_dag_llvm};
use compiler_core::mir::parse_module;

const LIFT: Spec = Spec {
    command: "lift",
    values: &["--function"],
    repeated: &[],
    switches: &["--llvm"],
};

pub fn lift_cmd(args: &[String]) -> CmdResult {
    let a = LIFT.parse(args).map_err(Failure::Usage)?;
    let input = input::read(&input::one_file(&a.positional, "lift")?)?;
    let module =
        parse_module(&input.text).map_err(|e| Failure::Input(vec![diag(&input.name, &e)]))?;
    let wanted = a.value("--function");
    let functions: Vec<_> = module
        .functions
        .iter()
        .filter(|f| wanted.is_none_or(|w| f.name == w))
        .collect();
    if functions.is_empty() {
        return Err(Failure::Input(vec![match wanted {
            Some(w) => format!("{}: error: no function `{w}` in this MIR", input.name),
            None => format!("{}: error: this MIR has no function", input.name),
        }]));
    }
    let several = functions.len() > 1;
    let mut text = String::new();
    let mut errors = Vec::new();
    for f in functions {
        match lift(f) {
            Ok(mut dag) => {
                if several {
                    if !text.is_empty() {
                        text.push('\n');
                    }
                    text.push_str(&format!("# function {}\n", f.name));
                }
                text.push_str(&if a.switch("--llvm") {
                    // LLVM's dump prints no classes; the emitter run as llc-22's picks
                    // the same ones again.
                    strip_llc22_classes(&mut dag);
                    print_dag_llvm(&dag)
                        .map_err(|e| Failure::Input(vec![format!("{}: error: {e}", input.name)]))?
                } else {
                    print_dag(&dag)
                });
            }
            Err(e) => errors.push(format!("{}: error: function `{}`: {e}", input.name, f.name)),
        }
    }
    out(&text);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Failure::Input(errors))
    }
}
