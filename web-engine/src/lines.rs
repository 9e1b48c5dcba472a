//! Printing a function together with where each instruction and block landed, so a
//! step's edits and focus can be turned into highlighted line numbers.

use compiler_core::entity::EntityRef;
use compiler_core::mir::print::{print_function_annotated, AnnotateAt};
use compiler_core::mir::Function;

/// A printed function and its line map (0-based lines of `text`).
#[derive(Default)]
pub struct Printed {
    pub text: String,
    /// By instruction storage index: the line it printed on, if it is placed.
    pub inst_line: Vec<Option<u32>>,
    /// By block index: the line of its `bb.N:` header.
    pub block_line: Vec<Option<u32>>,
}

impl Printed {
    pub fn inst(&self, index: u32) -> Option<u32> {
        self.inst_line.get(index as usize).copied().flatten()
    }

    pub fn block(&self, index: u32) -> Option<u32> {
        self.block_line.get(index as usize).copied().flatten()
    }

    /// The header line starting with `prefix` (before `body:`), e.g. `isSSA:`.
    pub fn header_line(&self, prefix: &str) -> Option<u32> {
        self.text
            .lines()
            .take_while(|l| !l.starts_with("body:"))
            .position(|l| l.starts_with(prefix))
            .map(|p| p as u32)
    }
}

/// Prints `f` as MIR, recording the line of every placed instruction and block header.
pub fn print_with_lines(f: &Function) -> Printed {
    let mut inst_line = vec![None; f.insts.len()];
    let mut block_line = vec![None; f.blocks.len()];
    let mut text = String::new();
    // Lines completed in `text[..seen]`.
    let mut seen = 0usize;
    let mut lines = 0u32;
    print_function_annotated(&mut text, f, &mut |out, at| {
        let chunk = &out[seen..];
        match at {
            AnnotateAt::Inst(i) => {
                lines += chunk.bytes().filter(|&b| b == b'\n').count() as u32;
                inst_line[i.index()] = lines.checked_sub(1);
            }
            AnnotateAt::Block(b) => {
                if let Some(k) = chunk.lines().position(|l| l.starts_with("  bb.")) {
                    block_line[b.index()] = Some(lines + k as u32);
                }
                lines += chunk.bytes().filter(|&b| b == b'\n').count() as u32;
            }
            AnnotateAt::Body => {
                lines += chunk.bytes().filter(|&b| b == b'\n').count() as u32;
            }
        }
        seen = out.len();
    });
    Printed {
        text,
        inst_line,
        block_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler_core::mir::parse_module;

    #[test]
    fn every_instruction_and_block_maps_to_its_line() {
        let text = "---\nname: k\nbody: |\n  bb.0:\n    successors: %bb.1\n\n    %0:b32 = MOV_B32_i 1\n    GOTO %bb.1\n\n  bb.1.exit:\n    %1:b32 = ADD32rr %0, %0\n    Return\n...\n";
        let f = parse_module(text).unwrap().functions.remove(0);
        let p = print_with_lines(&f);
        let lines: Vec<&str> = p.text.lines().collect();
        for (_, i) in f.all_insts() {
            let line = p.inst(i.index() as u32).unwrap() as usize;
            let printed = compiler_core::mir::print::inst_to_string(&f, &f.insts[i]);
            assert_eq!(lines[line].trim(), printed);
        }
        assert_eq!(lines[p.block(0).unwrap() as usize], "  bb.0:");
        assert_eq!(lines[p.block(1).unwrap() as usize], "  bb.1.exit:");
        assert!(lines[p.header_line("isSSA:").unwrap() as usize].starts_with("isSSA:"));
        assert_eq!(p.header_line("nothing"), None);
    }
}
