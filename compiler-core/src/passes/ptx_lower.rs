//! `ptx-lower`: PTX → ORI, reading PTX the way ptxas does before GeneralOptimize.
//!
//! ```text
//!  ptx::Function
//!    ├─ registers: `.reg` ranges and names → a table; each register referenced gets
//!    │             an entry with its file, width and (below) constraint word
//!    ├─ flatten:   inline-asm blocks and `{ }` scopes open up into the statement list;
//!    │             asm members remember their block, every instruction its scope
//!    │             (`ori::Function::scopes`: parent, declarations). A name resolves
//!    │             to the innermost scope declaring it, so an inner `.reg .pred %p1`
//!    │             is another register than the outer `%p1`, and labels too are
//!    │             looked up scope by scope (two asm blocks may both say `DONE:`)
//!    ├─ directives: `.loc`, statement `.pragma`, `.callprototype` stay in place as
//!    │             class-Directive instructions (no operation, printed as written)
//!    ├─ blocks:    a new block at every label and after every branch or exit;
//!    │             each starts with a definition anchor (class 97, operand = index)
//!    ├─ per instruction: class from the base opcode; guard → predication bits;
//!    │             branch labels → block indices; operands get a type nibble;
//!    │             `sub.fN a, b, c` → `add.fN a, b, -c`; `neg.fN` / `abs.fN` → a
//!    │             move with a modifier; immediates get their constraint bits
//!    └─ registers: def/use counts, def anchor (the single def), constraint bits
//!                  (pair, quad, vector lane, inline asm, several defs)
//! ```
//!
//! Invariant: the ORI prints back (see [`crate::ori::print`]) as PTX that computes the
//! same thing — the interpreter tests check that on the corpus — and lowering that
//! print again yields the same instructions.

use crate::entity::EntityRef;
use crate::ori::edit::OriEdit;
use crate::ori::{
    self, constraint, imm_constraint, ty, AddrBase, Address, Block, BlockId, Class, InstId, OpKind,
    Operand, Origin, RegId, RegInfo, SmolStr,
};
use crate::ori::regs::is_special;
use crate::ptx::ast::{self as ptx, Stmt};
use crate::ptx::op::{decode, Decoded, Kind};
use crate::stats::Stats;
use crate::trace::{Recorder, Step};
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use smol_str::format_smolstr;

/// Options of `ptx-lower` (none yet; kept for the uniform pass signature).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxLowerOptions {}

crate::stats::pass_stats! {
    /// `ptx-lower`'s counters, summed over the module's functions (JSON keys in this order).
    pub struct PtxLowerStats {
        functions,
        blocks,
        instructions,
        registers,
        predicated,
        neg_modifiers,
        abs_modifiers,
        asm_instructions,
        constrained_registers,
    }
}

/// Why PTX could not be lowered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LowerError {
    pub function: String,
    pub message: String,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ptx-lower: function `{}`: {}",
            self.function, self.message
        )
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LowerError {}

/// Lowers every function of a PTX module.
pub fn run<R: Recorder>(
    m: &ptx::Module,
    _opts: &PtxLowerOptions,
    rec: &mut R,
) -> Result<(ori::Module, Stats), LowerError> {
    let mut stats = PtxLowerStats::default();
    let mut out = ori::Module {
        version: m.version.clone(),
        target: m.target.clone(),
        address_size: m.address_size,
        items: Vec::new(),
        header_lines: m.header_lines.clone(),
        item_lines: ptx::Lines::default(),
        spelling: None,
    };
    // Module-level `.reg` declarations (old nvopencc, OptiX 2) declare registers of
    // every function; they print back at module level, as written.
    let module_regs: Vec<&ptx::RegDecl> = m
        .items
        .iter()
        .filter_map(|i| match i {
            ptx::Item::Reg(r) => Some(r),
            _ => None,
        })
        .collect();
    for (k, item) in m.items.iter().enumerate() {
        out.item_lines.0.push(m.item_lines.get(k));
        match item {
            ptx::Item::Var(v) => out.items.push(ori::Item::Var(v.clone())),
            ptx::Item::Pragma(p) => out.items.push(ori::Item::Pragma(p.clone())),
            ptx::Item::Directive(d) => out.items.push(ori::Item::Directive(d.clone())),
            ptx::Item::Reg(r) => {
                let mut line = String::new();
                crate::ptx::print::print_reg_decl(&mut line, r);
                out.items.push(ori::Item::Directive(vec![line]));
            }
            ptx::Item::Func(f) => {
                let lf = lower_function(f, &module_regs, rec, &mut stats).map_err(|message| {
                    LowerError {
                        function: f.name.clone(),
                        message,
                    }
                })?;
                stats.functions += 1;
                out.items.push(ori::Item::Func(lf));
            }
        }
    }
    ori::spelling::remember(&mut out, &m.source);
    Ok((out, stats.into()))
}

/// Base opcode → class and number of destination operands.
pub fn classify(d: &Decoded, operands: &[ptx::Operand]) -> (Class, u8) {
    let t = d.ty();
    let float = t.is_some_and(|t| t.is_float());
    let class = match d.base.as_str() {
        "add" | "sub" | "addc" | "subc" if float => Class::FloatAdd,
        "add" | "sub" | "addc" | "subc" | "neg" | "abs" | "sad" => Class::IntAdd,
        "mul" | "mul24" if float => Class::FloatMul,
        "mul" | "mul24" | "mad" | "mad24" | "madc" => Class::IntMul,
        "fma" => Class::FloatFma,
        "and" | "or" | "xor" | "not" | "cnot" | "lop3" | "popc" | "clz" | "brev" | "bfe"
        | "bfi" | "prmt" => Class::Logic,
        "shl" | "shr" | "shf" => Class::Shift,
        "setp" if t.is_some_and(|t| t.kind == Kind::HalfX2) => Class::HalfSet2,
        "setp" => Class::SetPred,
        "selp" | "slct" => Class::Select,
        "mov" => {
            let special = operands.get(1).is_some_and(|o| match o {
                ptx::Operand::Sym(_) => true,
                ptx::Operand::Reg(r) => is_special(r),
                _ => false,
            });
            if special {
                Class::MovSpecial
            } else {
                Class::Mov
            }
        }
        "cvt" => Class::Convert,
        "cvta" => Class::ConvertAddress,
        "ld" | "ldu" if d.space == Some(crate::ptx::op::Space::Local) => Class::LoadLocal,
        "ld" | "ldu" => Class::Load,
        "st" | "red" | "atom" => {
            if d.base == "atom" {
                Class::Load
            } else {
                Class::Store
            }
        }
        "tex" | "tld4" | "suld" | "sust" | "txq" => Class::Texture,
        "bar" | "barrier" | "membar" | "fence" => Class::Barrier,
        "bra" | "brx" => Class::Branch,
        "ret" | "exit" | "trap" => Class::Exit,
        "call" => Class::Call,
        "shfl" => Class::Shuffle,
        "wmma" | "mma" | "wgmma" | "ldmatrix" | "stmatrix" => Class::Matrix,
        "min" | "max" => Class::MinMax,
        "div" | "rem" | "rcp" | "sqrt" | "rsqrt" | "ex2" | "lg2" | "sin" | "cos" => Class::Divide,
        "nop" => Class::Nop,
        _ => Class::Other,
    };
    let no_dst = matches!(
        d.base.as_str(),
        "st" | "red"
            | "bar"
            | "barrier"
            | "membar"
            | "fence"
            | "bra"
            | "brx"
            | "ret"
            | "exit"
            | "trap"
            | "nop"
            | "call"
            | "prefetch"
            | "sust"
            | "cp"
    ) || (d.base == "wmma" && d.mods.first().is_some_and(|m| m == "store"))
        || (d.base == "mbarrier" && d.mods.first().is_some_and(|m| m == "init"))
        || (d.base == "wgmma"
            && d.mods
                .first()
                .is_some_and(|m| matches!(m.as_str(), "fence" | "commit_group" | "wait_group")));
    // A call writes the registers of its return list, `call (%r2), f, (%r1)`: that
    // list is its destination (a call without one, `call f, (%r1)`, writes nothing).
    if d.base == "call" {
        let rets = matches!(operands.first(), Some(ptx::Operand::Paren(_))) && operands.len() >= 2;
        return (class, u8::from(rets));
    }
    (class, if no_dst || operands.is_empty() { 0 } else { 1 })
}

enum Flat<'a> {
    /// A label and the scope it is declared in.
    Label(&'a str, u32),
    Inst(&'a ptx::Inst, Origin, u32),
    /// A directive kept in place (`.loc`, a `.pragma`), as printed lines.
    Directive(Vec<String>, Origin, u32),
}

#[derive(Default)]
struct Decls {
    /// `%r<10>`: prefix → (count, the prefix's number in order of first declaration,
    /// type word).
    ranges: BTreeMap<String, (u32, u32, String)>,
    /// `%r`: name → (0, 0, type word); the ranges' map type (one map instance less in
    /// the engine's wasm).
    singles: BTreeMap<String, (u32, u32, String)>,
}

impl Decls {
    fn lookup(&self, name: &str) -> Option<&str> {
        if let Some((_, _, t)) = self.singles.get(name) {
            return Some(t);
        }
        let digits = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let n: u32 = name[digits.len()..].parse().ok()?;
        let (count, _, t) = self.ranges.get(digits)?;
        (n < *count).then_some(t.as_str())
    }
    fn add(&mut self, r: &ptx::RegDecl) {
        let t = r.words.last().cloned().unwrap_or_default();
        for (n, c) in &r.names {
            match c {
                Some(c) => {
                    // A prefix declared again keeps its number.
                    let slot = self.ranges.get(n).map_or(self.ranges.len() as u32, |r| r.1);
                    self.ranges.insert(n.clone(), (*c, slot, t.clone()));
                }
                None => {
                    self.singles.insert(n.clone(), (0, 0, t.clone()));
                }
            }
        }
    }
}

/// Walks the body in order: statements become [`Flat`] items tagged with their scope;
/// each `{ }` opens a new entry of `f.scopes` (declarations stay with their scope,
/// which is what makes an inner `%p1` another register than the outer one).
struct Collector<'a> {
    flat: Vec<Flat<'a>>,
    /// Source line of each `flat` entry (0 inside scopes).
    flat_lines: Vec<u32>,
    /// Source line of each body-level `.reg` declaration.
    decl_lines: Vec<u32>,
    /// Body-level `.reg` declarations.
    decls: Vec<&'a ptx::RegDecl>,
    /// Declarations of each inner scope (index 0 unused).
    scoped: Vec<Decls>,
    asm_count: u32,
}

impl<'a> Collector<'a> {
    fn collect(
        &mut self,
        stmts: &'a [Stmt],
        lines: &ptx::Lines,
        origin: Origin,
        scope: u32,
        f: &mut ori::Function,
    ) {
        for (k, s) in stmts.iter().enumerate() {
            let line = lines.get(k);
            let flat = self.flat.len();
            if let Stmt::Var(_) = s {
                if scope == 0 {
                    f.local_lines.push(line);
                }
            }
            if let Stmt::Reg(_) = s {
                if scope == 0 {
                    self.decl_lines.push(line);
                }
            }
            self.statement(s, origin, scope, f);
            self.flat_lines.resize(self.flat.len(), 0);
            if let Some(l) = self.flat_lines.get_mut(flat) {
                *l = line;
            }
        }
    }

    fn statement(&mut self, s: &'a Stmt, origin: Origin, scope: u32, f: &mut ori::Function) {
        let none = ptx::Lines::default();
        {
            match s {
                Stmt::Reg(r) if scope == 0 => self.decls.push(r),
                Stmt::Reg(r) => {
                    self.scoped[scope as usize].add(r);
                    f.scopes[scope as usize].decls.push(s.clone());
                }
                Stmt::Var(v) if scope == 0 => f.locals.push(v.clone()),
                Stmt::Var(_) => f.scopes[scope as usize].decls.push(s.clone()),
                Stmt::Pragma(_) | Stmt::Directive(_) => {
                    let mut text = String::new();
                    crate::ptx::print::print_stmts(&mut text, core::slice::from_ref(s));
                    let lines = text.lines().map(|l| String::from(l.trim())).collect();
                    self.flat.push(Flat::Directive(lines, origin, scope));
                }
                Stmt::Label(l) => self.flat.push(Flat::Label(l, scope)),
                Stmt::Inst(i) => self.flat.push(Flat::Inst(i, origin, scope)),
                Stmt::Comment(_) => {}
                Stmt::Scope(v) => {
                    let id = f.scopes.len() as u32;
                    f.scopes.push(ori::Scope {
                        parent: scope,
                        decls: Vec::new(),
                        asm: match origin {
                            Origin::InlineAsm(n) => Some(n),
                            _ => None,
                        },
                    });
                    self.scoped.push(Decls::default());
                    self.collect(v, &none, origin, id, f);
                }
                Stmt::InlineAsm(v) => {
                    let id = self.asm_count;
                    self.asm_count += 1;
                    self.collect(v, &none, Origin::InlineAsm(id), scope, f);
                }
            }
        }
    }
}

struct Lowerer<'a> {
    decls: Decls,
    /// Registers met so far that are not a member of a `%p<N>` range by number, by
    /// (declaring scope, name): 0 for the body's, an inner scope's number for the
    /// registers declared there.
    reg_ids: BTreeMap<(u32, String), RegId>,
    /// Members of `%p<N>` ranges met so far, by the prefix's number (in `Decls`'s
    /// ranges) then number (names are mostly of this kind: a lookup costs the one
    /// search for the prefix that checks the declaration, then indices).
    by_number: Vec<Vec<Option<RegId>>>,
    /// Labels by (declaring scope, name).
    labels: BTreeMap<(u32, &'a str), BlockId>,
    /// Declarations of inner scopes.
    scoped: Vec<Decls>,
    /// The scope of the instruction being lowered.
    scope: u32,
    /// Names of `.branchtargets` lists (`ts: .branchtargets L1, L2;`).
    branch_lists: Vec<String>,
    f: ori::Function,
    /// Steps are recorded: the edits made since the last step are kept for the next.
    tracing: bool,
    edits: Vec<OriEdit>,
    /// Registers whose entry the edits hold (the table's first `regs_noted`).
    regs_noted: usize,
}

impl Lowerer<'_> {
    /// Places instruction `id` at the end of the last block; under tracing, notes the
    /// registers it brought into the table and its insertion for the next step.
    fn place(&mut self, id: InstId) {
        let b = BlockId::new(self.f.blocks.len() - 1);
        let index = self.f.blocks[b].insts.len();
        self.f.blocks[b].insts.push(id);
        if !self.tracing {
            return;
        }
        for r in self.regs_noted..self.f.regs.len() {
            let reg = RegId::new(r);
            self.edits.push(OriEdit::SetReg {
                reg,
                info: crate::ori::edit::PackedReg::new(&self.f.regs[reg]),
            });
        }
        self.regs_noted = self.f.regs.len();
        self.edits.push(OriEdit::Insert {
            inst: id,
            block: b,
            index: index as u32,
            data: crate::ori::edit::PackedOriInst::new(&self.f.insts[id]),
        });
    }

    /// A step carrying the edits made since the previous one.
    fn step(&mut self, s: Step) -> Step {
        let mut s = s;
        s.ori_edits = core::mem::take(&mut self.edits).into();
        s
    }
}

impl Lowerer<'_> {
    /// `name` as (the prefix's number, number) when it is a member of a declared range
    /// spelled without leading zeros (`%r7`, not `%r07`) and no single declaration
    /// shadows it.
    fn range_slot(&self, name: &str) -> Option<(usize, usize)> {
        let prefix = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let digits = &name[prefix.len()..];
        if digits.is_empty()
            || digits.len() > 6
            || (digits.len() > 1 && digits.starts_with('0'))
            || self.decls.singles.contains_key(name)
        {
            return None;
        }
        let n: u32 = digits.parse().ok()?;
        let (count, p, _) = self.decls.ranges.get(prefix)?;
        (n < *count).then_some((*p as usize, n as usize))
    }

    /// The scope whose declaration `name` refers to from the current scope: the
    /// innermost one declaring it (0, the body, when no inner scope does).
    fn home(&self, name: &str) -> u32 {
        let mut s = self.scope;
        while s != 0 {
            if self.scoped[s as usize].lookup(name).is_some() {
                return s;
            }
            s = self.f.scopes[s as usize].parent;
        }
        0
    }

    fn declared(&self, name: &str) -> bool {
        match self.home(name) {
            0 => self.decls.lookup(name).is_some(),
            _ => true,
        }
    }

    /// A register declared in an inner scope.
    fn scoped_reg(&mut self, name: &str, home: u32) -> Result<RegId, String> {
        if let Some(&r) = self.reg_ids.get(&(home, String::from(name))) {
            return Ok(r);
        }
        let decl = self.scoped[home as usize].lookup(name).unwrap_or(".b32");
        let mut info = reg_info(name, decl);
        info.scope = home;
        let id = self.f.regs.push(info);
        self.reg_ids.insert((home, name.into()), id);
        Ok(id)
    }

    fn reg(&mut self, name: &str) -> Result<RegId, String> {
        let home = self.home(name);
        if home != 0 {
            return self.scoped_reg(name, home);
        }
        let slot = self.range_slot(name);
        match slot {
            Some((p, n)) => {
                if let Some(&Some(r)) = self.by_number.get(p).and_then(|v| v.get(n)) {
                    return Ok(r);
                }
            }
            None => {
                if let Some(&r) = self.reg_ids.get(&(0, String::from(name))) {
                    return Ok(r);
                }
            }
        }
        let decl = self
            .decls
            .lookup(name)
            .ok_or_else(|| format!("register {name} is not declared"))?;
        let id = self.f.regs.push(reg_info(name, decl));
        match slot {
            Some((p, n)) => {
                if self.by_number.len() <= p {
                    self.by_number.resize(p + 1, Vec::new());
                }
                let v = &mut self.by_number[p];
                if v.len() <= n {
                    v.resize(n + 1, None);
                }
                v[n] = Some(id);
            }
            None => {
                self.reg_ids.insert((0, name.into()), id);
            }
        }
        Ok(id)
    }

    /// The block of label `l` as seen from the current scope.
    fn label(&self, l: &str) -> Option<BlockId> {
        let mut s = self.scope;
        loop {
            if let Some(&b) = self.labels.get(&(s, l)) {
                return Some(b);
            }
            if s == 0 {
                return None;
            }
            s = self.f.scopes[s as usize].parent;
        }
    }

    fn operand(&mut self, o: &ptx::Operand, tnib: u8, branch: bool) -> Result<Operand, String> {
        Ok(match o {
            ptx::Operand::Reg(r) => {
                if !self.declared(r) && is_special(r) {
                    Operand::new(OpKind::Special(r.as_str().into()), ty::INT)
                } else {
                    let id = self.reg(r)?;
                    let t = if self.f.regs[id].decl == ".pred" {
                        ty::UNTYPED
                    } else {
                        tnib
                    };
                    Operand::new(OpKind::Reg(id), t)
                }
            }
            ptx::Operand::Imm(v) => {
                let mut op = Operand::new(OpKind::Imm(*v), tnib);
                if let ptx::Imm::Int(x) = v {
                    if !(-(1 << 19)..(1 << 19)).contains(x) {
                        op.imm_constraint |= imm_constraint::WIDE;
                    }
                    if *x < 0 {
                        op.imm_constraint |= imm_constraint::SIGN_EXTEND;
                    }
                } else if let ptx::Imm::Hex(x) = v {
                    if *x >= (1 << 19) {
                        op.imm_constraint |= imm_constraint::WIDE;
                    }
                }
                op
            }
            ptx::Operand::Sym(s) => {
                if branch {
                    if let Some(b) = self.label(s) {
                        return Ok(Operand::new(OpKind::Block(b), ty::UNTYPED));
                    }
                    // `brx.idx %r, ts`: `ts` names a `.branchtargets` list, kept as a
                    // symbol (its labels keep their blocks' names).
                    if !self.branch_lists.iter().any(|n| n == s) {
                        return Err(format!(
                            "branch to `{s}`, which is not a label or `.branchtargets` list of this function"
                        ));
                    }
                }
                let mut op = Operand::new(OpKind::Sym(s.as_str().into()), ty::UNTYPED);
                op.imm_constraint |= imm_constraint::BANK_RELATIVE;
                op
            }
            // `$stack+1568`: an opaque symbol for the passes, printed as written.
            ptx::Operand::SymOffset(s, off) => {
                let mut op = Operand::new(
                    OpKind::Sym(alloc::format!("{s}{off:+}").into()),
                    ty::UNTYPED,
                );
                op.imm_constraint |= imm_constraint::BANK_RELATIVE;
                op
            }
            ptx::Operand::Addr {
                base,
                offset,
                extra,
            } => {
                let base = match base {
                    ptx::AddrBase::Reg(r) => AddrBase::Reg(self.reg(r)?),
                    ptx::AddrBase::Sym(s) => AddrBase::Sym(s.as_str().into()),
                    ptx::AddrBase::None => AddrBase::None,
                };
                let extra = extra
                    .iter()
                    .map(|e| self.operand(e, tnib, false))
                    .collect::<Result<_, _>>()?;
                Operand::new(
                    OpKind::Addr(Box::new(Address {
                        base,
                        offset: *offset,
                        extra,
                    })),
                    ty::UNTYPED,
                )
            }
            ptx::Operand::Vec(v) => {
                let lanes: Vec<Operand> = v
                    .iter()
                    .map(|e| self.operand(e, tnib, false))
                    .collect::<Result<_, _>>()?;
                for l in &lanes {
                    if let Some(r) = l.reg() {
                        self.f.regs[r].constraint |= constraint::VECTOR_LANE;
                    }
                }
                Operand::new(OpKind::Vec(lanes.into()), ty::VECTOR)
            }
            ptx::Operand::Pair(a, b) => {
                let a = self.operand(a, tnib, false)?;
                let b = self.operand(b, ty::UNTYPED, false)?;
                Operand::new(OpKind::Pair(Box::new(a), Box::new(b)), tnib)
            }
            ptx::Operand::Not(a) => {
                let a = self.operand(a, ty::UNTYPED, false)?;
                Operand::new(OpKind::Not(Box::new(a)), ty::UNTYPED)
            }
            ptx::Operand::Paren(v) => {
                let v = v
                    .iter()
                    .map(|e| self.operand(e, tnib, false))
                    .collect::<Result<Vec<_>, _>>()?;
                Operand::new(OpKind::Paren(v.into()), ty::UNTYPED)
            }
        })
    }
}

/// A fresh register-table entry for `name` declared with type word `decl`.
fn reg_info(name: &str, decl: &str) -> RegInfo {
    let decl = ori::type_word(decl);
    let bits =
        crate::ptx::ast::type_bytes(&decl).map_or(32, |b| if decl == ".pred" { 1 } else { b * 8 });
    let mut c = 0;
    if bits == 64 {
        c |= constraint::PAIR;
    }
    if bits == 128 {
        c |= constraint::QUAD;
    }
    RegInfo {
        name: name.into(),
        decl,
        bits,
        constraint: c,
        def_anchor: None,
        defs: 0,
        uses: 0,
        scope: 0,
    }
}

fn type_nibble(t: Option<crate::ptx::op::Ty>) -> u8 {
    match t.map(|t| t.kind) {
        Some(Kind::Signed | Kind::Unsigned) => ty::INT,
        Some(Kind::Float | Kind::HalfX2 | Kind::BFloat | Kind::BFloatX2) => ty::FLOAT,
        _ => ty::UNTYPED,
    }
}

fn lower_function<R: Recorder>(
    pf: &ptx::Function,
    module_regs: &[&ptx::RegDecl],
    rec: &mut R,
    stats: &mut PtxLowerStats,
) -> Result<ori::Function, String> {
    let mut f = ori::Function {
        linkage: pf.linkage.clone(),
        kind: pf.kind,
        rets: pf.rets.clone(),
        name: pf.name.clone(),
        params: pf.params.clone(),
        perf: pf.perf.clone(),
        reg_decls: Vec::new(),
        locals: Vec::new(),
        reg_decl_lines: Vec::new(),
        local_lines: Vec::new(),
        close_line: pf.body.as_ref().map_or(0, |b| pf.lines.get(b.len())),
        scopes: vec![ori::Scope::default()],
        regs: Default::default(),
        blocks: Default::default(),
        insts: Default::default(),
        is_decl: pf.body.is_none(),
        journal: None,
    };
    let Some(body) = &pf.body else {
        return Ok(f);
    };
    let mut c = Collector {
        flat: Vec::new(),
        flat_lines: Vec::new(),
        decl_lines: Vec::new(),
        decls: Vec::new(),
        scoped: vec![Decls::default()],
        asm_count: 0,
    };
    c.collect(body, &pf.lines, Origin::Ptx, 0, &mut f);
    let d = body_decls(pf, module_regs, &c, &mut f);
    let (starts, labels) = block_starts(&c.flat)?;
    let mut lw = Lowerer {
        decls: d,
        reg_ids: BTreeMap::new(),
        by_number: Vec::new(),
        labels,
        scoped: core::mem::take(&mut c.scoped),
        scope: 0,
        branch_lists: branch_lists(&c.flat),
        f,
        tracing: R::ENABLED,
        edits: Vec::new(),
        regs_noted: 0,
    };
    let nblocks = starts.len();
    // Sized up front: grown by doubling, the instruction table of a large function
    // was copied a dozen times and its peak held the last two copies at once.
    lw.f.insts.reserve(c.flat.len() + nblocks);
    lw.f.blocks.reserve(nblocks);
    let declared: usize = lw
        .decls
        .ranges
        .values()
        .map(|r| r.0 as usize)
        .sum::<usize>()
        + lw.decls.singles.len();
    lw.f.regs.reserve(declared.min(4 * c.flat.len() + 16));
    lower_blocks(&mut lw, &starts, &c, rec, stats)?;
    stats.blocks += nblocks as u64;
    register_table(&mut lw, pf, rec, stats);
    Ok(lw.f)
}

/// The `.reg` declarations a body's names resolve against: the module's, `.reg`
/// parameters, and the body's own (kept in `f` once each, with their lines).
fn body_decls(
    pf: &ptx::Function,
    module_regs: &[&ptx::RegDecl],
    c: &Collector<'_>,
    f: &mut ori::Function,
) -> Decls {
    let mut d = Decls::default();
    for r in module_regs {
        d.add(r);
    }
    // `.func (.reg .b32 %ret) f(.reg .b32 %a)`: register parameters are registers of
    // the body.
    for p in pf.rets.iter().chain(pf.params.iter().flatten()) {
        if p.words.first().is_some_and(|w| w == ".reg") {
            if let Some(t) = p.ty() {
                d.singles.insert(p.name.clone(), (0, 0, String::from(t)));
            }
        }
    }
    // The same declaration twice in the body itself (not in inner scopes, which keep
    // their own) is declared once (a body declares a few lines: the earlier ones are
    // searched in turn).
    for (k, r) in c.decls.iter().enumerate() {
        let same = |e: &&ptx::RegDecl| e.words == r.words && e.names == r.names;
        if c.decls[..k].iter().any(same) {
            continue;
        }
        d.add(r);
        f.reg_decls.push((*r).clone());
        f.reg_decl_lines
            .push(c.decl_lines.get(k).copied().unwrap_or(0));
    }
    d
}

/// Where a block starts: (index into `flat`, its label, the label's scope).
type Start<'a> = (usize, Option<&'a str>, u32);

/// Block boundaries: a label starts a block; so does whatever follows a branch or an
/// exit. Each block records the scope its label is declared in. Also the block of
/// each label, by (scope, name).
#[allow(clippy::type_complexity)]
fn block_starts<'a>(
    flat: &[Flat<'a>],
) -> Result<(Vec<Start<'a>>, BTreeMap<(u32, &'a str), BlockId>), String> {
    let mut starts: Vec<Start<'a>> = vec![(0, None, 0)];
    let mut labels: BTreeMap<(u32, &str), BlockId> = BTreeMap::new();
    let mut after_branch = false;
    for (k, it) in flat.iter().enumerate() {
        match it {
            Flat::Label(l, sc) => {
                let last = starts.last().copied().unwrap_or((0, None, 0));
                if last.0 == k && last.1.is_none() {
                    starts.pop();
                }
                starts.push((k, Some(l), *sc));
                if labels.insert((*sc, l), BlockId::new(starts.len() - 1)).is_some() {
                    return Err(format!("label `{l}` is declared twice in one scope"));
                }
                after_branch = false;
            }
            Flat::Inst(i, _, sc) => {
                if after_branch {
                    starts.push((k, None, *sc));
                }
                let base = i.opcode.split('.').next().unwrap_or("");
                after_branch = matches!(base, "bra" | "brx" | "ret" | "exit" | "trap");
            }
            Flat::Directive(_, _, sc) => {
                if after_branch {
                    starts.push((k, None, *sc));
                }
                after_branch = false;
            }
        }
    }
    Ok((starts, labels))
}

/// Each block in turn: its definition anchor, then its statements lowered. A step
/// per block and per instruction, each carrying the edits that add them (a kept
/// directive's goes with the next step).
fn lower_blocks<R: Recorder>(
    lw: &mut Lowerer<'_>,
    starts: &[Start<'_>],
    c: &Collector<'_>,
    rec: &mut R,
    stats: &mut PtxLowerStats,
) -> Result<(), String> {
    let (flat, flat_lines) = (&c.flat, &c.flat_lines);
    for (k, &(start, label, label_scope)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(flat.len(), |s| s.0);
        let b = lw.f.blocks.push(Block {
            label: label.map(String::from),
            insts: Vec::new(),
        });
        if lw.tracing {
            lw.edits.push(OriEdit::AddBlock {
                block: b,
                label: label.map(alloc::boxed::Box::from),
            });
        }
        let anchor = lw.f.insts.push(ori::Inst {
            class: Class::Anchor,
            opcode: "anchor".into(),
            operands: smallvec::smallvec![Operand::new(OpKind::Block(b), ty::UNTYPED)],
            ndst: 0,
            guard: None,
            origin: Origin::Lowering,
            scope: label_scope,
            // A labelled block's anchor prints as its label, on the label's line.
            line: if label.is_some() {
                flat_lines.get(start).copied().unwrap_or(0)
            } else {
                0
            },
        });
        lw.place(anchor);
        if R::ENABLED {
            let why = match label {
                Some(l) => format!("label {l}"),
                None if k == 0 => "the function entry".into(),
                None => "the instruction after a branch or exit".into(),
            };
            let s = lw.step(Step::new(
                "block",
                format!(
                    "Block {k} starts at {why}; its definition anchor (class 97) carries \
                     the block index {k}."
                ),
            ));
            rec.step(|| s);
        }
        for (it, &line) in flat[start..end].iter().zip(&flat_lines[start..end]) {
            match it {
                Flat::Label(..) => continue,
                Flat::Inst(pi, origin, sc) => {
                    lw.scope = *sc;
                    lower_inst(lw, pi, *origin, line, stats, rec)?;
                }
                Flat::Directive(lines, origin, sc) => {
                    let mut d = directive(lines, *origin, *sc);
                    d.line = line;
                    let id = lw.f.insts.push(d);
                    lw.place(id);
                }
            }
        }
    }
    Ok(())
}

/// The register table: defs, uses, anchors, constraints, counted as GeneralOptimize's
/// `refresh` counts (its tallies start from this). The step that says so sets every
/// entry.
fn register_table<R: Recorder>(
    lw: &mut Lowerer<'_>,
    pf: &ptx::Function,
    rec: &mut R,
    stats: &mut PtxLowerStats,
) {
    let ori::Function {
        blocks,
        insts,
        regs,
        ..
    } = &mut lw.f;
    for &i in blocks.values().flat_map(|blk| &blk.insts) {
        let asm = matches!(insts[i].origin, Origin::InlineAsm(_));
        crate::ori::regs::for_each_reg(&insts[i], |r, def| {
            if asm {
                regs[r].constraint |= constraint::ASM;
            }
            crate::ori::regs::count(&mut regs[r], def, i);
        });
    }
    // `.reg` return parameters are read by the caller.
    for p in &pf.rets {
        if p.words.first().is_some_and(|w| w == ".reg") {
            if let Some(&r) = lw.reg_ids.get(&(0, p.name.clone())) {
                lw.f.regs[r].constraint |= constraint::LIVE_OUT;
            }
        }
    }
    let f = &lw.f;
    stats.registers += f.regs.len() as u64;
    let constrained = f.regs.values().filter(|r| r.constraint != 0).count();
    stats.constrained_registers += constrained as u64;
    if R::ENABLED {
        let n = f.regs.len();
        let single = f.regs.values().filter(|r| r.def_anchor.is_some()).count();
        let entries: Vec<OriEdit> = f
            .regs
            .iter()
            .map(|(r, info)| OriEdit::SetReg {
                reg: r,
                info: crate::ori::edit::PackedReg::new(info),
            })
            .collect();
        lw.edits.extend(entries);
        lw.regs_noted = n;
        let s = lw.step(Step::new(
            "register_table",
            format!(
                "{n} registers: {single} have exactly one definition (their def anchor); \
                 {constrained} carry a constraint (pair, vector lane, inline asm or \
                 several definitions)."
            ),
        ));
        rec.step(|| s);
    }
}

/// The jump tables' names (`$L_brx_N : .branchtargets ...;` directives), in order: a
/// function has a few, searched in turn (a set of them would be one more tree
/// instance in the wasm).
fn branch_lists(flat: &[Flat<'_>]) -> Vec<String> {
    let mut names = Vec::new();
    for it in flat {
        if let Flat::Directive(lines, ..) = it {
            let named = lines
                .first()
                .and_then(|l| l.strip_suffix(";"))
                .and_then(|l| l.split_once(" : .branchtargets"));
            if let Some((name, _)) = named {
                names.push(String::from(name));
            }
        }
    }
    names
}

/// A kept directive as an ORI instruction of class [`Class::Directive`]: its opcode is
/// the directive word (`.loc`, `.pragma`), its one operand the printed lines.
fn directive(lines: &[String], origin: Origin, scope: u32) -> ori::Inst {
    let text = lines.join("\n");
    let word = text
        .split_whitespace()
        .find(|w| w.starts_with('.'))
        .unwrap_or(".directive");
    ori::Inst {
        class: Class::Directive,
        opcode: SmolStr::new(word),
        operands: smallvec::smallvec![Operand::new(OpKind::Sym(text.as_str().into()), ty::UNTYPED)],
        ndst: 0,
        guard: None,
        origin,
        scope,
        line: 0,
    }
}

fn lower_inst<R: Recorder>(
    lw: &mut Lowerer<'_>,
    pi: &ptx::Inst,
    origin: Origin,
    line: u32,
    stats: &mut PtxLowerStats,
    rec: &mut R,
) -> Result<InstId, String> {
    let d = decode(&pi.opcode);
    let (class, ndst) = classify(&d, &pi.operands);
    let is_branch = matches!(d.base.as_str(), "bra" | "brx");
    let tn = type_nibble(d.ty());
    let mut operands = ori::Operands::new();
    for (k, o) in pi.operands.iter().enumerate() {
        // cvt's sources use its second type.
        let t = if d.base == "cvt" && k >= 1 {
            type_nibble(d.ty())
        } else if d.base == "cvt" {
            type_nibble(d.first_ty())
        } else {
            tn
        };
        operands.push(lw.operand(o, t, is_branch)?);
    }
    let guard = match &pi.guard {
        Some(g) => Some((lw.reg(&g.reg)?, g.negated)),
        None => None,
    };
    let mut opcode = SmolStr::new(&pi.opcode);
    let mut class = class;
    let mut note = None;
    if d.ty().is_some_and(|t| t.is_float()) && d.base == "sub" && operands.len() == 3 {
        opcode = format_smolstr!("add{}", &pi.opcode[3..]);
        operands[2].neg = !operands[2].neg;
        stats.neg_modifiers += 1;
        note =
            Some("float subtraction becomes an add whose second source carries the neg modifier");
    } else if d.ty().is_some_and(|t| t.is_float())
        && (d.base == "neg" || d.base == "abs")
        && operands.len() == 2
    {
        let neg = d.base == "neg";
        opcode = format_smolstr!("mov{}", &pi.opcode[d.base.len()..]);
        if neg {
            operands[1].neg = true;
            stats.neg_modifiers += 1;
        } else {
            operands[1].abs = true;
            stats.abs_modifiers += 1;
        }
        class = Class::Mov;
        note = Some(if neg {
            "float negation becomes a move whose source carries the neg modifier"
        } else {
            "float absolute value becomes a move whose source carries the abs modifier"
        });
    }
    // A select's destination inherits its immediate sources' constraint bits (the
    // spec checks them on the destination).
    if class == Class::Select && !operands.is_empty() {
        let c = operands[1..].iter().fold(0, |a, o| a | o.imm_constraint);
        operands[0].imm_constraint |= c;
    }
    if guard.is_some() {
        stats.predicated += 1;
    }
    if matches!(origin, Origin::InlineAsm(_)) {
        stats.asm_instructions += 1;
    }
    stats.instructions += 1;
    let inst = ori::Inst {
        class,
        opcode,
        operands,
        ndst,
        guard,
        origin,
        scope: lw.scope,
        line,
    };
    let word = inst.opcode_word();
    let id = lw.f.insts.push(inst);
    lw.place(id);
    if R::ENABLED {
        let ptx_text = crate::ptx::print::inst_to_string(pi);
        let ori_text = crate::ori::print::inst_line(&lw.f, id);
        let number = class.number();
        let narration = match note {
            Some(n) => format!("`{ptx_text}`: {n}; class {number} ({}).", class.name()),
            None => {
                let pred = if word & ori::PRED_GUARDED != 0 {
                    format!(", opcode word 0x{word:04x} with the predication bit")
                } else {
                    String::new()
                };
                let src = if class.from_spec() {
                    "the spec's number"
                } else {
                    "our numbering"
                };
                format!(
                    "`{}` is class {number} {} ({src}){pred}.",
                    pi.opcode,
                    class.name()
                )
            }
        };
        let note = crate::ori::print::annotation(&lw.f.insts[id]);
        let s = lw.step(Step::new("lower", narration).payload(crate::trace::Lowered::new(
            &ptx_text, &ori_text, number, &note,
        )));
        rec.step(|| s);
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::NoTrace;
    use alloc::string::ToString;

    fn lower(body: &str) -> ori::Module {
        let text = format!(
            ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{{\n{body}\n}}\n"
        );
        let m = crate::ptx::parse(&text).unwrap();
        run(&m, &PtxLowerOptions::default(), &mut NoTrace::default())
            .unwrap()
            .0
    }

    #[test]
    fn blocks_start_with_anchors_and_guards_set_the_predication_bit() {
        let m = lower(
            "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, %tid.x;\n\tsetp.eq.s32 %p1, %r1, 0;\n\t@%p1 bra $L__BB0_2;\n\tadd.s32 %r2, %r1, 1;\n$L__BB0_2:\n\tret;",
        );
        let f = m.functions().next().unwrap();
        assert_eq!(f.blocks.len(), 3);
        for b in f.blocks.values() {
            assert_eq!(f.insts[b.insts[0]].class, Class::Anchor);
        }
        let b0 = BlockId::new(0);
        let bra = f.blocks[b0].insts.last().copied().unwrap();
        assert_eq!(f.insts[bra].opcode_word(), 0x1000 | 313);
        assert_eq!(f.insts[bra].operands[0].kind, OpKind::Block(BlockId::new(2)));
        let setp = f.blocks[b0].insts[2];
        assert_eq!(f.insts[setp].class.number(), 18);
        let mov = f.blocks[b0].insts[1];
        assert_eq!(f.insts[mov].class.number(), 110);
        let r1 = f.reg_by_name("%r1").unwrap();
        assert_eq!(f.regs[r1].def_anchor, Some(mov));
    }

    #[test]
    fn a_declaration_written_twice_in_the_body_is_declared_once() {
        let m = lower(
            "\t.reg .b32 %r<4>;\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b32 %r<5>;\n\tmov.u32 %r1, 1;\n\tret;",
        );
        let f = m.functions().next().unwrap();
        let decls: Vec<String> = (f.reg_decls.iter())
            .map(|d| format!("{} {:?}", d.words.join(" "), d.names))
            .collect();
        assert_eq!(decls.len(), 3, "{decls:?}");
        assert_eq!(f.reg_decl_lines.len(), 3);
    }

    #[test]
    fn float_sub_and_neg_become_modifiers() {
        let m = lower("\t.reg .f32 %f<4>;\n\tsub.f32 %f3, %f1, %f2;\n\tneg.f32 %f1, %f3;\n\tret;");
        let f = m.functions().next().unwrap();
        let b0 = BlockId::new(0);
        let sub = &f.insts[f.blocks[b0].insts[1]];
        assert_eq!(sub.opcode, "add.f32");
        assert!(sub.operands[2].neg && sub.operands[2].flag_word() & 0x10 != 0);
        let neg = &f.insts[f.blocks[b0].insts[2]];
        assert_eq!((neg.class.number(), neg.opcode.as_str()), (139, "mov.f32"));
        assert!(neg.operands[1].neg);
        let printed = crate::ori::print::print(&m);
        assert!(printed.contains("sub.f32 \t%f3, %f1, %f2;"), "{printed}");
        assert!(printed.contains("neg.f32 \t%f1, %f3;"), "{printed}");
    }

    #[test]
    fn a_lowered_step_prints_both_texts_keeping_the_shared_start_once() {
        let mut rec = crate::trace::StepLog::default();
        let text = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\t.reg .f32 %f<4>;\n\tsub.f32 %f3, %f1, %f2;\n\tret;\n}\n";
        let m = crate::ptx::parse(text).unwrap();
        run(&m, &PtxLowerOptions::default(), &mut rec).unwrap();
        let lowered: Vec<(crate::trace::Lowered, crate::trace::Step)> = rec
            .steps
            .iter()
            .filter_map(|s| match &*s.payload {
                crate::trace::Payload::Lowered(l) => Some((l.clone(), s.clone())),
                _ => None,
            })
            .collect();
        let ptx = ["sub.f32 \t%f3, %f1, %f2;", "ret;"];
        let ori = [
            "sub.f32 \t%f3, %f1, %f2;\t// class 304 FADD d:t2 s:t2 s:t2/0x10",
            "ret;\t// class 95 EXIT",
        ];
        assert_eq!(lowered.len(), 2);
        for ((l, s), (p, o)) in lowered.iter().zip(ptx.iter().zip(ori)) {
            assert_eq!((l.ptx(), l.ori(&s.ori_edits).as_str()), (*p, o));
            let json = serde_json::to_value(s).unwrap();
            assert_eq!(json["payload"]["ori"], serde_json::json!([o]));
            // Only the PTX text is kept: the annotation comes from the inserted
            // instruction (without the step's edits, it cannot be printed).
            assert_eq!(l.ori(&[]), format!("{p}\t// "));
        }
        // An ORI text that does not begin with the PTX text is kept whole; one that
        // does but ends otherwise than the annotation keeps its rest.
        let other = crate::trace::Lowered::new("sub.f32 a;", "add.f32 a;", 304, "x");
        assert_eq!((other.ptx(), other.ori(&[]).as_str()), ("sub.f32 a;", "add.f32 a;"));
        let longer = crate::trace::Lowered::new("mov a;", "mov a;\t// y z", 139, "y");
        assert_eq!(longer.ori(&[]), "mov a;\t// y z");
    }

    #[test]
    fn undeclared_registers_are_errors() {
        let text = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tmov.u32 %r1, 0;\n}\n";
        let m = crate::ptx::parse(text).unwrap();
        let e = run(&m, &PtxLowerOptions::default(), &mut NoTrace::default()).unwrap_err();
        assert!(e.to_string().contains("%r1 is not declared"));
    }
}
