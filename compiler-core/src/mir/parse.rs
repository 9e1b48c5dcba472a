//! MIR text → [`Module`]. Reads the subset `llc-22` prints (see `docs/formats.md`) plus
//! the CICC dialect extensions: multi-pair `EXTRACT_SUBREG`, tuple classes and the
//! emitter's hint flags. Every error carries line:column and says what was expected.

use super::entities::{Block, Inst, VReg};
use super::function::{BlockData, Function, Module, Props, Target};
use super::instr::{InstData, MI_FLAG_NAMES};
use super::opcode::{Op, Opcode};
use super::operand::{oflag, FpImm, Operand, OperandKind, Reg, Sigil, SubReg, FLAG_KEYWORDS};
use super::parse_yaml::{
    flow_map, parse_bool, split_documents, top_level_entries, unquote, Document, Line,
};
use super::regclass::{valid_class_names, RegClass};
use crate::entity::{EntityRef, Interner, SecondaryMap, Sym};
use crate::error::SourceError;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Inputs larger than this are refused up front (the playground and CLI stay responsive).
pub const MAX_INPUT_BYTES: usize = 64 << 20;
/// Virtual register numbers above this are refused (they would size dense tables).
pub const MAX_VREG: u32 = 1 << 22;

/// Where each instruction and operand of a parsed function was written (1-based line and
/// column in the input). Instructions created later by passes have no span.
#[derive(Clone, Debug, Default)]
pub struct FunctionSpans {
    /// Line of the function's `---` marker.
    pub start_line: u32,
    pub insts: SecondaryMap<Inst, InstSpan>,
    /// Line and column of each block header (0 for blocks not read from text).
    pub blocks: SecondaryMap<Block, (u32, u32)>,
}

/// Position of one instruction and of each of its operands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstSpan {
    /// 0 when the instruction was not read from text.
    pub line: u32,
    /// Column of the instruction's first character.
    pub col: u32,
    /// Column of each operand, in operand order.
    pub operand_cols: Vec<u32>,
}

impl FunctionSpans {
    /// Line and column of operand `op` of `inst` (of the instruction when `op` is None or
    /// out of range); None for instructions not read from text.
    pub fn position(&self, inst: Inst, op: Option<usize>) -> Option<(u32, u32)> {
        let s = self.insts.get(inst)?;
        if s.line == 0 {
            return None;
        }
        let col = op
            .and_then(|i| s.operand_cols.get(i).copied())
            .unwrap_or(s.col);
        Some((s.line, col))
    }

    /// Line and column of block `b`'s header.
    pub fn block_position(&self, b: Block) -> Option<(u32, u32)> {
        self.blocks.get(b).copied().filter(|p| p.0 != 0)
    }
}

/// Parses a whole MIR file.
pub fn parse_module(text: &str) -> Result<Module, SourceError> {
    parse_module_with_spans(text).map(|(m, _)| m)
}

/// Parses a whole MIR file and also returns, per function, where every instruction and
/// operand was written (for diagnostics that point into the input).
pub fn parse_module_with_spans(text: &str) -> Result<(Module, Vec<FunctionSpans>), SourceError> {
    crate::error::check_input_size(text, MAX_INPUT_BYTES)?;
    let docs = split_documents(text)?;
    let mut module = Module::default();
    let mut spans = Vec::new();
    let mut target = Target::Nvptx;
    let mut defined = IrFunctions::default();
    for doc in &docs {
        if doc.is_ir {
            let mut ir = String::new();
            for l in &doc.lines {
                // Stray carriage returns at a line's end would print as a `\r\n` line
                // ending and read back shorter: they are not kept.
                let t = l.text.strip_prefix("  ").unwrap_or(l.text.trim_start());
                let t = t.trim_end_matches('\r');
                if let Some(rest) = t.trim_start().strip_prefix("target triple = \"") {
                    if !rest.starts_with("nvptx") {
                        target = Target::Foreign;
                    }
                }
                ir.push_str(t);
                ir.push('\n');
            }
            defined = IrFunctions::read(&ir);
            module.ir = Some(ir);
        } else {
            let (mut f, sp) = parse_function(doc, target)?;
            f.props.optnone = defined.machine_function(&f.name);
            module.functions.push(f);
            spans.push(sp);
        }
    }
    // A module of globals only (llc-22 prints just the IR document) is valid input; an
    // IR function definition without its machine function is not.
    if let Some(doc) = docs.iter().find(|d| d.is_ir) {
        if let Some(name) = defined.first_without_machine_function() {
            return Err(SourceError::new(
                doc.start,
                1,
                format!(
                    "the IR defines @{name} but no machine function document \
                     (`name: {name}` and `body:`) follows"
                ),
            ));
        }
    }
    if module.functions.is_empty() && module.ir.is_none() {
        let line = docs.last().map_or(1, |d| d.start);
        return Err(SourceError::new(
            line,
            1,
            "expected an LLVM IR document (`--- |`) or a machine function document (`name:` and `body:`)",
        ));
    }
    Ok((module, spans))
}

/// The functions the embedded IR defines (`define ... @name(`), read in one walk over
/// the IR (a module of many functions is not walked once per function): in IR order,
/// each with whether it is `optnone` and whether a machine function document names it.
#[derive(Default)]
struct IrFunctions {
    names: Interner,
    /// Per name (by its number, which follows the IR's order): optnone, has a body.
    flags: Vec<(bool, bool)>,
}

impl IrFunctions {
    fn read(ir: &str) -> Self {
        // `attributes #N = { ... optnone ... }`: the groups that make a function optnone.
        let optnone_groups: Vec<&str> = (ir.lines())
            .filter_map(|l| l.strip_prefix("attributes "))
            .filter(|l| l.contains("optnone"))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        let mut out = IrFunctions::default();
        for def in ir.lines().filter(|l| l.starts_with("define ")) {
            let Some(at) = def.find(" @") else { continue };
            let rest = &def[at + 2..];
            let Some(end) = rest.find('(') else { continue };
            let name = out.names.intern(rest[..end].trim_matches('"'));
            if name.index() < out.flags.len() {
                continue; // defined twice: the first definition counts
            }
            let mut words = def.split_whitespace();
            let optnone = def.contains(" optnone")
                || words.any(|w| w.starts_with('#') && optnone_groups.contains(&w));
            out.flags.push((optnone, false));
        }
        out
    }

    /// Marks `name` as having a machine function; whether the IR makes it optnone.
    fn machine_function(&mut self, name: &str) -> bool {
        let Some(sym) = self.names.get(name) else {
            return false;
        };
        let flags = &mut self.flags[sym.index()];
        flags.1 = true;
        flags.0
    }

    /// The first function (in IR order) the IR defines and no machine function names.
    fn first_without_machine_function(&self) -> Option<&str> {
        let k = self.flags.iter().position(|f| !f.1)?;
        Some(self.names.name(Sym::new(k)))
    }
}

/// Header sections the body can refer to (`%stack.N`, `%fixed-stack.N`, `%const.N`,
/// `%jump-table.N`), kept verbatim when not empty (see `Function::frame`). `frameInfo`
/// and `machineFunctionInfo` are left out: llc-22 recomputes them.
const FRAME_KEYS: &[&str] = &[
    "fixedStack",
    "stack",
    "entry_values",
    "callSites",
    "debugValueSubstitutions",
    "constants",
    "jumpTable",
];

/// `key: []` or `key: {}` with nothing under it.
fn is_empty_section(e: &super::parse_yaml::Entry<'_>) -> bool {
    matches!(e.value.trim(), "[]" | "{}" | "") && e.nested.iter().all(|l| l.text.trim().is_empty())
}

fn parse_function(
    doc: &Document<'_>,
    target: Target,
) -> Result<(Function, FunctionSpans), SourceError> {
    let entries = top_level_entries(doc)?;
    let name = entries
        .iter()
        .find(|e| e.key == "name")
        .map(|e| unquote(e.value))
        .ok_or_else(|| {
            SourceError::new(doc.start, 1, "machine function document has no `name:`")
        })?;
    let mut f = Function::new(&name, target);
    f.props = Props::default();
    let mut body = None;
    for e in &entries {
        match e.key {
            "isSSA" => f.props.is_ssa = parse_bool(e)?,
            "noPhis" => f.props.no_phis = parse_bool(e)?,
            "tracksRegLiveness" => f.props.tracks_reg_liveness = parse_bool(e)?,
            "registers" => {
                for &l in e.nested.iter().filter(|l| !l.text.trim().is_empty()) {
                    parse_register_entry(&mut f, l)?;
                }
            }
            "liveins" => {
                for &l in e.nested.iter().filter(|l| !l.text.trim().is_empty()) {
                    parse_livein_entry(&mut f, l)?;
                }
            }
            key if FRAME_KEYS.contains(&key) && !is_empty_section(e) => {
                // Kept verbatim but for carriage returns at line ends, which would print
                // as `\r\n` endings and read back different (fuzz crash, mir_parse).
                let mut raw = String::from(e.value.trim().trim_end_matches('\r'));
                for l in &e.nested {
                    raw.push('\n');
                    raw.push_str(l.text.trim_end_matches('\r'));
                }
                f.frame.push((key.to_string(), raw));
            }
            "body" => {
                if e.value != "|" {
                    return Err(SourceError::new(
                        e.line.no,
                        e.value_col,
                        "expected `|` after `body:`",
                    ));
                }
                body = Some(&e.nested);
            }
            _ => {}
        }
    }
    let body = body.ok_or_else(|| {
        SourceError::new(doc.start, 1, format!("function `{name}` has no `body: |`"))
    })?;
    let mut spans = FunctionSpans {
        start_line: doc.start,
        insts: SecondaryMap::new(),
        blocks: SecondaryMap::new(),
    };
    BodyParser::new(&mut f, &mut spans).parse(body)?;
    Ok((f, spans))
}

fn parse_register_entry(f: &mut Function, l: Line<'_>) -> Result<(), SourceError> {
    let pairs = flow_map(l)?;
    let mut id = None;
    let mut class = None;
    for (k, v, col) in pairs {
        match k {
            "id" => {
                let n: u32 = v.parse().map_err(|_| {
                    SourceError::new(l.no, col, "expected a register number after `id:`")
                })?;
                if n > MAX_VREG {
                    return Err(SourceError::new(
                        l.no,
                        col,
                        format!("register number {n} is above the limit {MAX_VREG}"),
                    ));
                }
                id = Some(n);
            }
            "class" => {
                let name = unquote(v);
                if name != "_" && !name.is_empty() {
                    class = Some(resolve_class(f, &name, l.no, col)?);
                }
            }
            _ => {}
        }
    }
    let id = id.ok_or_else(|| SourceError::new(l.no, 1, "register entry has no `id:`"))?;
    f.declare_vreg(VReg::new(id as usize), class);
    Ok(())
}

fn parse_livein_entry(f: &mut Function, l: Line<'_>) -> Result<(), SourceError> {
    let pairs = flow_map(l)?;
    let mut reg = None;
    let mut vreg = None;
    for (k, v, col) in pairs {
        let v = unquote(v);
        match k {
            "reg" => {
                let name = v.strip_prefix('$').ok_or_else(|| {
                    SourceError::new(l.no, col, "expected a physical register `$name`")
                })?;
                reg = Some(Reg::Phys(f.names.intern(name)));
            }
            "virtual-reg" if !v.is_empty() => {
                let n: u32 = v
                    .strip_prefix('%')
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n <= MAX_VREG)
                    .ok_or_else(|| {
                        SourceError::new(l.no, col, "expected a virtual register `%N`")
                    })?;
                let v = VReg::new(n as usize);
                f.declare_vreg(v, None);
                vreg = Some(v);
            }
            _ => {}
        }
    }
    let reg = reg.ok_or_else(|| SourceError::new(l.no, 1, "live-in entry has no `reg:`"))?;
    f.liveins.push((reg, vreg));
    Ok(())
}

fn resolve_class(
    f: &mut Function,
    name: &str,
    line: u32,
    col: u32,
) -> Result<RegClass, SourceError> {
    match f.target {
        Target::Nvptx => RegClass::parse_nvptx(name).ok_or_else(|| {
            SourceError::new(
                line,
                col,
                format!(
                    "unknown register class `{name}`; expected one of {}",
                    valid_class_names()
                ),
            )
        }),
        Target::Foreign => {
            Ok(RegClass::parse_nvptx(name)
                .unwrap_or_else(|| RegClass::Foreign(f.names.intern(name))))
        }
    }
}

/// A cursor over one line of the body.
struct Cursor<'a> {
    line: u32,
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn err(&self, msg: impl Into<String>) -> SourceError {
        let col = self.text[..self.pos.min(self.text.len())].chars().count() as u32 + 1;
        SourceError::new(self.line, col, msg)
    }
    fn col(&self) -> u32 {
        self.text[..self.pos].chars().count() as u32 + 1
    }
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }
    fn skip_ws(&mut self) {
        let r = self.rest();
        let t = r.trim_start_matches([' ', '\t']);
        self.pos += r.len() - t.len();
        if t.starts_with(';') {
            self.pos = self.text.len();
        }
    }
    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.text.len()
    }
    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str, what: &str) -> Result<(), SourceError> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{s}` {what}, found {}", self.found())))
        }
    }
    fn found(&self) -> String {
        match self.rest().split([' ', ',']).next() {
            Some(t) if !t.is_empty() => format!("`{}`", t.chars().take(24).collect::<String>()),
            _ => "end of line".into(),
        }
    }
    /// An identifier-like word: letters, digits, `_`, `-`, `.`.
    fn word(&mut self) -> &'a str {
        self.skip_ws();
        let r = self.rest();
        let n = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
            .unwrap_or(r.len());
        self.pos += n;
        &r[..n]
    }
    fn peek_word(&mut self) -> &'a str {
        let save = self.pos;
        let w = self.word();
        self.pos = save;
        w
    }
    fn number<T: core::str::FromStr>(&mut self, what: &str) -> Result<T, SourceError> {
        self.skip_ws();
        let r = self.rest();
        let n = r
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_digit() || (i == 0 && c == '-')))
            .map_or(r.len(), |(i, _)| i);
        let v = r[..n]
            .parse()
            .map_err(|_| self.err(format!("expected {what}, found {}", self.found())))?;
        self.pos += n;
        Ok(v)
    }
    /// A quoted string; returns the text between the quotes (escapes left as written).
    fn quoted(&mut self) -> Result<&'a str, SourceError> {
        let start = self.pos;
        self.expect("\"", "to open a string")?;
        let r = self.rest();
        let mut esc = false;
        for (i, c) in r.char_indices() {
            match c {
                '\\' if !esc => esc = true,
                '"' if !esc => {
                    self.pos += i + 1;
                    return Ok(&r[..i]);
                }
                _ => esc = false,
            }
        }
        self.pos = start;
        Err(self.err("unterminated string"))
    }
}

struct BodyParser<'f> {
    f: &'f mut Function,
    spans: &'f mut FunctionSpans,
    /// Block number → block, in a dense side table.
    by_number: Vec<Option<Block>>,
    /// Opcodes the body named, by a hash of the name ([`BodyParser::opcode`]).
    seen_ops: [u16; 64],
}

impl<'f> BodyParser<'f> {
    fn new(f: &'f mut Function, spans: &'f mut FunctionSpans) -> Self {
        BodyParser {
            f,
            spans,
            by_number: Vec::new(),
            seen_ops: [0; 64],
        }
    }

    /// The opcode named `name`. A body names few opcodes many times and the table's
    /// search reads it from the start, so each name found is kept in a slot chosen by
    /// a hash of it (1 + the opcode's number; 0: empty) and checked there first.
    fn opcode(&mut self, name: &str) -> Option<Op> {
        let slot = name
            .bytes()
            .fold(name.len(), |h, b| h.wrapping_mul(31) ^ usize::from(b))
            % self.seen_ops.len();
        let kept = usize::from(self.seen_ops[slot]);
        if let Some(&op) = Op::all().get(kept.wrapping_sub(1)) {
            if op.name() == name {
                return Some(op);
            }
        }
        let op = Op::by_name(name)?;
        self.seen_ops[slot] = op as u16 + 1;
        Some(op)
    }

    fn parse(mut self, lines: &[Line<'_>]) -> Result<(), SourceError> {
        // First pass: block headers, so branches may name later blocks.
        for l in lines {
            let t = l.text.trim_start();
            if is_block_header(t) {
                let mut c = Cursor {
                    line: l.no,
                    text: l.text,
                    pos: l.text.len() - t.len(),
                };
                let (number, name, attrs) = self.block_header(&mut c)?;
                let n = number as usize;
                if n > MAX_VREG as usize {
                    return Err(c.err("block number too large"));
                }
                if self.by_number.len() <= n {
                    self.by_number.resize(n + 1, None);
                }
                if self.by_number[n].is_some() {
                    return Err(SourceError::new(
                        l.no,
                        1,
                        format!("block bb.{number} is defined twice"),
                    ));
                }
                let b = self.f.add_block(BlockData {
                    number,
                    name,
                    attrs,
                    ..BlockData::default()
                });
                self.by_number[n] = Some(b);
                self.spans.blocks[b] = (l.no, (l.text.len() - t.len()) as u32 + 1);
            }
        }
        let mut cur: Option<Block> = None;
        let mut in_header = false;
        // The open bundle: its header and block.
        let mut bundle: Option<(Inst, Block)> = None;
        for l in lines {
            let t = l.text.trim_start();
            let mut c = Cursor {
                line: l.no,
                text: l.text,
                pos: l.text.len() - t.len(),
            };
            if t.is_empty() || t.starts_with(';') {
                in_header = false;
                continue;
            }
            if is_block_header(t) {
                if bundle.is_some() {
                    return Err(
                        c.err("a block header inside a bundle: the `{` above is never closed")
                    );
                }
                let (number, ..) = self.block_header(&mut c)?;
                cur = self.by_number[number as usize];
                in_header = true;
                continue;
            }
            if t.starts_with("bb.") {
                c.pos += "bb.".len();
                return Err(c.err(format!(
                    "expected a block number after `bb.`, found {}",
                    c.found()
                )));
            }
            let Some(b) = cur else {
                return Err(c.err("expected a block header `bb.N:` before the first instruction"));
            };
            if in_header && t.starts_with("successors:") {
                c.pos += "successors:".len();
                self.successors(&mut c, b)?;
                continue;
            }
            if in_header && t.starts_with("liveins:") {
                c.pos += "liveins:".len();
                self.block_liveins(&mut c, b)?;
                continue;
            }
            in_header = false;
            if t.starts_with('}') {
                if bundle.take().is_none() {
                    return Err(c.err("`}` closes no instruction bundle"));
                }
                c.pos += 1;
                if !c.at_end() {
                    return Err(c.err(format!(
                        "unexpected {} after the `}}` closing a bundle",
                        c.found()
                    )));
                }
                continue;
            }
            if t.starts_with('{') {
                return Err(c.err("`{` must end a `BUNDLE` line"));
            }
            let opens = t.starts_with("BUNDLE") && t.trim_end().ends_with('{');
            if t.starts_with("BUNDLE") && !opens {
                return Err(c.err(
                    "expected `{` at the end of the BUNDLE line, opening the bundle's instructions",
                ));
            }
            if opens && bundle.is_some() {
                return Err(c.err("a BUNDLE inside a bundle: bundles do not nest"));
            }
            // The `{` is not an operand: read the line without it.
            let text = if opens {
                let e = l.text.trim_end();
                &e[..e.len() - 1]
            } else {
                l.text
            };
            let mut c = Cursor { text, ..c };
            let col = c.col();
            let mut operand_cols = Vec::new();
            let inst = self.instruction(&mut c, &mut operand_cols)?;
            let i = match bundle {
                Some((header, bb)) if bb == b => {
                    let i = self.f.make_inst(inst);
                    if let Some(open) = self.f.bundles.iter_mut().rfind(|o| o.0 == header) {
                        open.1.push(i);
                    }
                    i
                }
                _ => self.f.append_inst(b, inst),
            };
            self.spans.insts[i] = InstSpan {
                line: l.no,
                col,
                operand_cols,
            };
            if opens {
                self.f.bundles.push((i, Vec::new()));
                bundle = Some((i, b));
            }
        }
        if let Some((header, _)) = bundle {
            let s = &self.spans.insts[header];
            return Err(SourceError::new(
                s.line,
                s.col,
                "this BUNDLE's `{` is never closed by a `}`",
            ));
        }
        Ok(())
    }

    fn block_header(
        &mut self,
        c: &mut Cursor<'_>,
    ) -> Result<(u32, Option<Sym>, Option<Sym>), SourceError> {
        c.expect("bb.", "to start a block header")?;
        let number: u32 = c.number("a block number")?;
        let mut name = None;
        if c.rest().starts_with('.') {
            c.pos += 1;
            let r = c.rest();
            let n = r.find([':', ' ', '(']).unwrap_or(r.len());
            if n == 0 {
                return Err(c.err("expected a block name after `.`"));
            }
            name = Some(self.f.names.intern(&r[..n]));
            c.pos += n;
        }
        let mut attrs = None;
        if c.eat("(") {
            let r = c.rest();
            let close = r
                .rfind(')')
                .ok_or_else(|| c.err("expected `)` closing the block attributes"))?;
            attrs = Some(self.f.names.intern(r[..close].trim()));
            c.pos += close + 1;
        }
        c.expect(":", "after the block header")?;
        if !c.at_end() {
            return Err(c.err(format!("unexpected {} after the block header", c.found())));
        }
        Ok((number, name, attrs))
    }

    fn block_ref(&self, c: &mut Cursor<'_>) -> Result<Block, SourceError> {
        c.expect("%bb.", "(a block reference)")?;
        let col = c.pos;
        let n: u32 = c.number("a block number")?;
        // `%bb.3.name` may carry the name; skip it.
        if c.rest().starts_with('.') {
            c.pos += 1;
            c.word();
        }
        self.by_number
            .get(n as usize)
            .copied()
            .flatten()
            .ok_or_else(|| {
                let mut c2 = Cursor {
                    line: c.line,
                    text: c.text,
                    pos: col,
                };
                c2.pos = col;
                c2.err(format!("no block bb.{n} in this function"))
            })
    }

    fn successors(&mut self, c: &mut Cursor<'_>, b: Block) -> Result<(), SourceError> {
        loop {
            if c.at_end() {
                break;
            }
            let s = self.block_ref(c)?;
            let mut prob = None;
            if c.rest().starts_with('(') {
                c.pos += 1;
                let r = c.rest();
                let close = r
                    .find(')')
                    .ok_or_else(|| c.err("expected `)` after the branch probability"))?;
                let txt = r[..close].trim();
                let v = match txt.strip_prefix("0x") {
                    Some(h) => u32::from_str_radix(h, 16).ok(),
                    None => txt.parse().ok(),
                };
                prob =
                    Some(v.ok_or_else(|| {
                        c.err("expected a branch probability such as 0x80000000")
                    })?);
                c.pos += close + 1;
            }
            self.f.blocks[b].succs.push((s, prob));
            if !c.eat(",") {
                break;
            }
        }
        if !c.at_end() {
            return Err(c.err(format!(
                "expected `,` or end of line in the successor list, found {}",
                c.found()
            )));
        }
        Ok(())
    }

    fn block_liveins(&mut self, c: &mut Cursor<'_>, b: Block) -> Result<(), SourceError> {
        loop {
            if c.at_end() {
                break;
            }
            if !c.eat("$") {
                return Err(c.err(format!(
                    "expected a physical register `$name`, found {}",
                    c.found()
                )));
            }
            let w = c.word();
            if w.is_empty() {
                return Err(c.err("expected a register name after `$`"));
            }
            let r = Reg::Phys(self.f.names.intern(w));
            self.f.blocks[b].liveins.push(r);
            if !c.eat(",") {
                break;
            }
        }
        if !c.at_end() {
            return Err(c.err(format!(
                "expected `,` or end of line in the live-in list, found {}",
                c.found()
            )));
        }
        Ok(())
    }

    fn instruction(
        &mut self,
        c: &mut Cursor<'_>,
        cols: &mut Vec<u32>,
    ) -> Result<InstData, SourceError> {
        let mut operands = Vec::new();
        // Left of `=`: defs, if the line starts with a register or an operand flag.
        if self.starts_operand(c) {
            loop {
                c.skip_ws();
                let col = c.col();
                cols.push(col);
                let mut op = self.operand(c)?;
                if !op.is_reg() {
                    return Err(SourceError::new(
                        c.line,
                        col,
                        "expected a register on the left of `=`",
                    ));
                }
                if op.has(oflag::DEF) || op.has(oflag::IMPLICIT) {
                    return Err(SourceError::new(
                        c.line,
                        col,
                        "`def`, `implicit` and `implicit-def` are implied left of `=`; write them on operands after the opcode",
                    ));
                }
                op.flags |= oflag::DEF;
                operands.push(op);
                if !c.eat(",") {
                    break;
                }
            }
            c.expect("=", "after the defined registers")?;
        }
        let lhs_defs = operands.len() as u16;
        // MI flags, then the opcode.
        let mut mi_flags = 0u16;
        let opcode_col;
        let name = loop {
            c.skip_ws();
            let col = c.pos;
            let w = c.word();
            if w.is_empty() {
                return Err(c.err(format!("expected an opcode, found {}", c.found())));
            }
            match MI_FLAG_NAMES.iter().position(|&n| n == w) {
                Some(i) => mi_flags |= 1 << i,
                None => {
                    opcode_col = col;
                    break w;
                }
            }
        };
        if !name
            .chars()
            .next()
            .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
        {
            let mut c2 = Cursor {
                line: c.line,
                text: c.text,
                pos: opcode_col,
            };
            c2.pos = opcode_col;
            return Err(c2.err(format!("expected an opcode, found `{name}`")));
        }
        let opcode = match self.opcode(name) {
            Some(op) => Opcode::Known(op),
            None => Opcode::Other(self.f.names.intern(name)),
        };
        let mut mem = None;
        let mut trailing = None;
        // Operands.
        if !c.at_end() && !c.rest().starts_with("::") {
            loop {
                c.skip_ws();
                let w = c.peek_word();
                if matches!(
                    w,
                    "debug-location"
                        | "pcsections"
                        | "pre-instr-symbol"
                        | "post-instr-symbol"
                        | "heap-alloc-marker"
                        | "cfi-type"
                        | "mmra"
                        | "debug-instr-number"
                ) {
                    let r = c.rest();
                    let end = r.find(" :: ").unwrap_or(r.len());
                    trailing = Some(self.f.names.intern(r[..end].trim_end()));
                    c.pos += end;
                    break;
                }
                cols.push(c.col());
                operands.push(self.operand(c)?);
                if !c.eat(",") {
                    break;
                }
            }
        }
        if c.eat("::") {
            let r = c.rest().trim();
            if r.is_empty() {
                return Err(c.err("expected memory operands after `::`"));
            }
            mem = Some(self.f.names.intern(r));
            c.pos = c.text.len();
        }
        if !c.at_end() {
            return Err(c.err(format!(
                "expected `,` between operands or end of line, found {}",
                c.found()
            )));
        }
        // Tied-def indices must name a def operand of this instruction.
        for (i, op) in operands.iter().enumerate() {
            if let Some(t) = op.tied_def {
                let t = t as usize;
                if t >= operands.len() || !operands[t].is_def() || t == i {
                    return Err(SourceError::new(
                        c.line,
                        cols.get(i).copied().unwrap_or(1),
                        format!("operand {i} is `tied-def {t}`, but operand {t} is not a register def of this instruction ({} operands)", operands.len()),
                    ));
                }
            }
        }
        let mut inst = InstData::new(opcode, operands);
        inst.lhs_defs = lhs_defs;
        inst.mi_flags = mi_flags;
        inst.mem = mem;
        inst.trailing = trailing;
        Ok(inst)
    }

    fn starts_operand(&self, c: &mut Cursor<'_>) -> bool {
        c.skip_ws();
        let r = c.rest();
        if r.starts_with('%') || r.starts_with('$') {
            return true;
        }
        let w = c.peek_word();
        matches!(w, "def" | "implicit" | "implicit-def")
            || FLAG_KEYWORDS.iter().any(|&(_, k)| k == w)
    }

    fn operand(&mut self, c: &mut Cursor<'_>) -> Result<Operand, SourceError> {
        let flags = flag_keywords(c);
        c.skip_ws();
        let start = c.pos;
        let r = c.rest();
        let mut op = if r.starts_with("%subreg.") {
            c.pos += "%subreg.".len();
            let w = c.word();
            if w.is_empty() {
                return Err(c.err("expected a sub-register index name after `%subreg.`"));
            }
            Operand::new(OperandKind::SubRegIdx(self.subreg(w)))
        } else if r.starts_with("%bb.") {
            Operand::new(OperandKind::Block(self.block_ref(c)?))
        } else if r.starts_with("%stack.") || r.starts_with("%fixed-stack.") {
            let fixed = r.starts_with("%fixed");
            c.pos += if fixed {
                "%fixed-stack.".len()
            } else {
                "%stack.".len()
            };
            let index = c.number("a stack slot number")?;
            if c.rest().starts_with('.') {
                c.pos += 1;
                c.word();
            }
            Operand::new(OperandKind::Stack { fixed, index })
        } else if r.starts_with('%') {
            c.pos += 1;
            let n: u32 = match c.peek() {
                Some(ch) if ch.is_ascii_digit() => c.number("a virtual register number")?,
                _ => return Err(c.err(format!("expected a virtual register `%N`, found {}; named virtual registers are not supported", c.found()))),
            };
            if n > MAX_VREG {
                return Err(c.err(format!(
                    "virtual register number {n} is above the limit {MAX_VREG}"
                )));
            }
            let v = VReg::new(n as usize);
            let mut op = Operand::vreg(v, 0);
            self.reg_suffixes(c, &mut op, Some(v))?;
            self.f.declare_vreg(v, None);
            op
        } else if r.starts_with('$') {
            c.pos += 1;
            let w = c.word();
            if w.is_empty() {
                return Err(c.err("expected a register name after `$`"));
            }
            let reg = if w == "noreg" {
                Reg::NoReg
            } else {
                Reg::Phys(self.f.names.intern(w))
            };
            let mut op = Operand::reg(reg, 0);
            self.reg_suffixes(c, &mut op, None)?;
            op
        } else if r.starts_with('&') || r.starts_with('@') {
            self.global(c, r)?
        } else if r.starts_with('!') {
            c.pos += 1;
            let w = c.word();
            if w.is_empty() {
                return Err(c.err("expected metadata `!N`"));
            }
            Operand::new(OperandKind::Verbatim(self.f.names.intern(&format!("!{w}"))))
        } else if r.starts_with("<mcsymbol ") {
            // `<mcsymbol .Ltmp0>` (EH_LABEL's operand), kept verbatim.
            let Some(end) = r.find('>') else {
                return Err(c.err("unterminated `<mcsymbol ...>`"));
            };
            c.pos += end + 1;
            Operand::new(OperandKind::Verbatim(self.f.names.intern(&r[..=end])))
        } else if r.starts_with('-') || r.starts_with(|ch: char| ch.is_ascii_digit()) {
            let v: i64 = c.number("an integer")?;
            Operand::imm(v)
        } else {
            let w = c.peek_word();
            if matches!(w, "half" | "bfloat" | "float" | "double")
                || (w.starts_with('i') && w.len() > 1 && w[1..].bytes().all(|b| b.is_ascii_digit()))
            {
                c.word();
                c.skip_ws();
                let rr = c.rest();
                let n = rr.find([',', ' ']).unwrap_or(rr.len());
                if n == 0 {
                    return Err(c.err(format!("expected a `{w}` literal")));
                }
                let ty = self.f.names.intern(w);
                let text = self.f.names.intern(&rr[..n]);
                c.pos += n;
                Operand::new(OperandKind::FpImm(FpImm { ty, text }))
            } else {
                return Err(c.err(format!("expected an operand, found {}", c.found())));
            }
        };
        if !op.is_reg() && flags != 0 {
            let mut c2 = Cursor {
                line: c.line,
                text: c.text,
                pos: start,
            };
            c2.pos = start;
            return Err(c2.err("register flags on an operand that is not a register"));
        }
        op.flags |= flags;
        // A trailing `/* comment */` (INLINEASM flag words).
        c.skip_ws();
        if c.rest().starts_with("/*") {
            let r = c.rest();
            // Search after the opener: in `/*/` the `*` belongs to `/*`.
            let end = r[2..]
                .find("*/")
                .ok_or_else(|| c.err("unterminated `/*` comment"))?
                + 2;
            op.comment = Some(self.f.names.intern(r[2..end].trim()));
            c.pos += end + 2;
        }
        Ok(op)
    }

    /// `&"name"`, `@"name"`, `&name` or `@name` with an optional `+N`/`-N` offset.
    fn global(&mut self, c: &mut Cursor<'_>, r: &str) -> Result<Operand, SourceError> {
        if r.starts_with("&\"") || r.starts_with("@\"") {
            let sigil = if r.starts_with('&') {
                Sigil::AmpQuoted
            } else {
                Sigil::AtQuoted
            };
            c.pos += 1;
            let s = c.quoted()?;
            let sym = self.f.names.intern(s);
            let offset = self.offset(c)?;
            return Ok(Operand::new(OperandKind::Global { sym, sigil, offset }));
        }
        let sigil = if r.starts_with('&') {
            Sigil::Amp
        } else {
            Sigil::At
        };
        c.pos += 1;
        let w = c.word();
        if w.is_empty() {
            return Err(c.err("expected a symbol name"));
        }
        let sym = self.f.names.intern(w);
        let offset = self.offset(c)?;
        Ok(Operand::new(OperandKind::Global { sym, sigil, offset }))
    }

    /// `.sub`, `:class`, `(llt)`, `(tied-def N)` after a register.
    fn reg_suffixes(
        &mut self,
        c: &mut Cursor<'_>,
        op: &mut Operand,
        v: Option<VReg>,
    ) -> Result<(), SourceError> {
        if c.rest().starts_with('.') {
            c.pos += 1;
            let w = c.word();
            if w.is_empty() {
                return Err(c.err("expected a sub-register index after `.`"));
            }
            op.subreg = Some(self.subreg(w));
        }
        if c.rest().starts_with(':') && !c.rest().starts_with("::") {
            c.pos += 1;
            let col = c.col();
            let w = c.word();
            if w.is_empty() {
                return Err(c.err("expected a register class after `:`"));
            }
            let class = resolve_class(self.f, w, c.line, col)?;
            let Some(v) = v else {
                return Err(c.err("a physical register has no class annotation"));
            };
            if let Some(old) = self.f.vregs[v].class {
                if old != class && self.f.vregs[v].exists {
                    return Err(SourceError::new(
                        c.line,
                        col,
                        format!(
                            "%{} has class `{}` here but `{}` elsewhere",
                            v.index(),
                            class.display(&self.f.names),
                            old.display(&self.f.names)
                        ),
                    ));
                }
            }
            self.f.declare_vreg(v, Some(class));
        }
        while c.rest().starts_with('(') {
            c.pos += 1;
            if c.eat("tied-def") {
                let n: u8 = c.number("an operand index (0 to 255) after `tied-def`")?;
                c.expect(")", "after the tied-def index")?;
                op.tied_def = Some(n);
            } else {
                let r = c.rest();
                let close = r.find(')').ok_or_else(|| c.err("expected `)`"))?;
                let txt = r[..close].trim();
                if txt.is_empty() {
                    return Err(c.err("expected a type such as `s32` inside `( )`"));
                }
                op.llt = Some(self.f.names.intern(txt));
                c.pos += close + 1;
            }
        }
        Ok(())
    }

    fn subreg(&mut self, w: &str) -> SubReg {
        match w.strip_prefix("sub").and_then(|n| n.parse::<u8>().ok()) {
            Some(n) if n < super::regclass::MAX_LANES && w.len() == 3 + n.to_string().len() => {
                SubReg::of_lane(n)
            }
            _ => SubReg::of_name(self.f.names.intern(w)),
        }
    }

    fn offset(&mut self, c: &mut Cursor<'_>) -> Result<i64, SourceError> {
        let save = c.pos;
        if c.eat("+") {
            return c.number("an offset after `+`");
        }
        if c.eat("-") {
            let v: i64 = c.number("an offset after `-`")?;
            return Ok(-v);
        }
        c.pos = save;
        Ok(0)
    }
}

fn is_block_header(t: &str) -> bool {
    t.starts_with("bb.") && t.as_bytes().get(3).is_some_and(|b| b.is_ascii_digit())
}

/// The flag keywords before an operand (`implicit-def`, `killed`, `undef`, ...).
fn flag_keywords(c: &mut Cursor<'_>) -> u16 {
    let mut flags = 0u16;
    loop {
        c.skip_ws();
        let w = c.peek_word();
        let f = match w {
            "implicit-def" => oflag::IMPLICIT | oflag::DEF,
            "implicit" => oflag::IMPLICIT,
            "def" => oflag::DEF,
            _ => match FLAG_KEYWORDS.iter().find(|&&(_, k)| k == w) {
                Some(&(f, _)) => f,
                None => return flags,
            },
        };
        c.word();
        flags |= f;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(body: &str) -> SourceError {
        let text = alloc::format!("---\nname: k\nbody: |\n  bb.0:\n{body}...\n");
        parse_module(&text).expect_err(body)
    }

    /// The IR's functions, read once: optnone by the `define` line or an attribute group
    /// (machine functions in another order than the IR's), and the first IR definition
    /// no machine function names is the one the error names.
    #[test]
    fn ir_functions_read_once_give_optnone_and_the_missing_body() {
        let ir =
            "--- |\n  define void @a() #1 { ret void }\n  define void @b() #0 { ret void }\n  \
                  define void @c() optnone { ret void }\n  define void @d() { ret void }\n  \
                  attributes #0 = { noinline optnone }\n  attributes #1 = { noinline }\n...\n";
        let mf = |n: &str| alloc::format!("---\nname: {n}\nbody: |\n  bb.0:\n    Return\n...\n");
        let text = alloc::format!("{ir}{}{}{}{}", mf("d"), mf("c"), mf("b"), mf("a"));
        let m = parse_module(&text).unwrap();
        let optnone: Vec<(&str, bool)> = (m.functions.iter())
            .map(|f| (f.name.as_str(), f.props.optnone))
            .collect();
        assert_eq!(
            optnone,
            [("d", false), ("c", true), ("b", true), ("a", false)]
        );
        let e = parse_module(&alloc::format!("{ir}{}{}", mf("d"), mf("a"))).unwrap_err();
        assert!(
            e.message.contains("defines @b but no machine function"),
            "{}",
            e.message
        );
    }

    #[test]
    fn comment_opener_is_not_its_own_closer() {
        // Regression: `/*/` used to find `*/` inside the opener and slice backwards.
        let e = err("    INLINEASM &\"x\", 1 /*/ sideeffect\n");
        assert_eq!((e.line, e.col), (5, 23));
        assert!(e.message.contains("unterminated `/*`"));
        let ok = "---\nname: k\nbody: |\n  bb.0:\n    INLINEASM &\"x\", 1 /*/ x */\n...\n";
        assert!(parse_module(ok).is_ok());
    }

    #[test]
    fn tied_def_errors_point_at_the_operand() {
        let e = err("    %0:b32 = INLINEASM &\"x\", 0, %1(tied-def 5)\n");
        assert_eq!((e.line, e.col), (5, 33));
    }

    #[test]
    fn tied_def_index_past_a_byte_is_refused() {
        let e = err("    %0:b32 = INLINEASM &\"x\", 0, %1(tied-def 256)\n");
        assert_eq!(e.line, 5);
        assert!(e.message.contains("0 to 255"), "{}", e.message);
    }

    #[test]
    fn def_flags_left_of_equals_are_named() {
        let e = err("    def %0:b32 = MOV_B32_i 5\n");
        assert_eq!((e.line, e.col), (5, 5));
        assert!(e.message.contains("implied left of `=`"));
    }

    #[test]
    fn bad_block_headers_say_what_was_expected() {
        let e = err("    Return\n  bb.x:\n");
        assert_eq!((e.line, e.col), (6, 6));
        assert!(e.message.contains("block number after `bb.`"));
    }

    #[test]
    fn header_columns_count_characters_not_bytes() {
        // Regression: flow-mapping columns were byte offsets.
        let t = "---\nname: k\nregisters:\n  - { id: 1, class: 'é' , x: 'é\nbody: |\n  bb.0:\n    Return\n...\n";
        let e = parse_module(t).unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.col as usize <= "  - { id: 1, class: 'é' , x: 'é".chars().count() + 1);
    }

    #[test]
    fn odd_names_print_quoted_and_reparse() {
        // Regression: a live-in register name with a quote printed as broken YAML.
        let t =
            "---\nname: 'a b'\nliveins:\n  - { reg: '$r''1' }\nbody: |\n  bb.0:\n    Return\n...\n";
        let m = parse_module(t).unwrap();
        let once = crate::mir::print_module(&m);
        assert!(once.contains("name:            'a b'"));
        assert!(once.contains("reg: '$r''1'"));
        let again = crate::mir::print_module(&parse_module(&once).unwrap());
        assert_eq!(once, again);
    }

    /// The whole printed module, for inputs the printer must give back as written.
    fn reprint(text: &str) -> String {
        crate::mir::print_module(&parse_module(text).unwrap())
    }

    #[test]
    fn a_module_of_globals_only_parses_and_prints_back() {
        // llc-22 prints no machine function for a module without function bodies
        // (LLVM's nofunc.ll, managed.ll): the IR document alone is the input.
        let t = "--- |\n  @g = addrspace(1) global i32 0\n...\n";
        let m = parse_module(t).unwrap();
        assert!(m.functions.is_empty());
        assert_eq!(crate::mir::print_module(&m), t);
    }

    #[test]
    fn quoted_globals_keep_their_quotes() {
        // LLVM's no-extra-parens.ll: `@"$str"` names a global that needs quotes.
        let t = "---\nname: k\nregisters:\n  - { id: 0, class: b64 }\nliveins:         []\nbody: |\n  bb.0:\n    %0:b64 = MOV_B64_sym @\"$str\" + 4\n    Return\n...\n";
        assert!(reprint(t).contains("MOV_B64_sym @\"$str\" + 4"));
        let once = reprint(t);
        assert_eq!(reprint(&once), once);
    }

    #[test]
    fn frame_sections_the_body_names_are_kept() {
        // LLVM's lower-alloca.ll: the body names `%stack.0`, so llc-22 needs `stack:` back;
        // empty sections and `frameInfo` are dropped.
        let stack = "stack:\n  - { id: 0, name: A, type: default, offset: 0, size: 4, alignment: 4, \n      stack-id: default }";
        let t = alloc::format!(
            "---\nname: k\nframeInfo:\n  maxAlignment: 4\nfixedStack:      []\n{stack}\nconstants:       []\nbody: |\n  bb.0:\n    LIFETIME_START %stack.0\n    Return\n...\n"
        );
        let once = reprint(&t);
        assert!(once.contains(&alloc::format!("{stack}\nbody:")), "{once}");
        assert!(
            !once.contains("frameInfo") && !once.contains("fixedStack"),
            "{once}"
        );
        assert_eq!(reprint(&once), once);
    }

    #[test]
    fn carriage_returns_in_the_ir_document_print_a_fixpoint() {
        // Fuzz crash (mir_parse): an IR-only module whose line ended in `\r \r\r\r\n`
        // printed one `\r` fewer on every round.
        let t = "--- |\n  |--\r\r-\r \r\r\r\n  x\n...\n";
        let once = reprint(t);
        assert_eq!(reprint(&once), once);
    }
}
