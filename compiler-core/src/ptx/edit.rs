//! PTX edits: the unit of replay for ptx-emit, whose output grows step by step.
//!
//! ```text
//!  ptx-emit ── step k carries the items / statements it added ──▶ [PtxEdit]
//!  replay: Module::default() ── apply_ptx_edit × edits of steps 1..k ──▶ the output so far
//! ```
//!
//! A step adds what it printed: the header, a module item (a function arrives as its
//! signature with an empty body), a statement at the end of the body of the last
//! function (`depth` open `{ }` call scopes down), the function's linkage words, a
//! performance directive. Each added element is stored once, in the step that adds
//! it. Invariant: applying every edit of a ptx-emit run, in order, to an empty module
//! gives the module the pass returned (tests compare the printed text).

pub(crate) mod pack;

use super::ast::{Function, Item, Module, Stmt};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// One change to the PTX module being built. Each is two words: what the larger kinds
/// hold sits behind a box, and a statement is kept packed ([`pack`]: a step of ptx-emit
/// adds one or two, and a trace holds one step per instruction).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum PtxEdit {
    /// `.version`, `.target` and `.address_size`.
    Header {
        #[serde(skip)]
        header: Box<Header>,
    },
    /// An item appended to the module.
    Item {
        #[serde(skip)]
        item: Box<Item>,
    },
    /// A statement appended to the body of the module's last item (a function), inside
    /// `depth` scopes: each the last statement of the body or scope above it.
    Stmt {
        depth: u32,
        #[serde(skip)]
        stmt: PackedStmt,
    },
    /// The last function's linkage words (`.weak`, none).
    Linkage {
        #[serde(skip)]
        words: Box<Vec<String>>,
    },
    /// A performance directive appended to the last function's (`.maxntid 256, 1, 1`):
    /// the directive and its values.
    Perf {
        #[serde(skip)]
        perf: Box<(String, Vec<u32>)>,
    },
}

// A step holds its edits in one array: each is as large as the largest kind.
const _: () = assert!(core::mem::size_of::<PtxEdit>() <= 24);

/// The module header a [`PtxEdit::Header`] sets.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    pub version: Option<String>,
    pub target: Vec<String>,
    pub address_size: Option<u32>,
}

/// A statement packed ([`pack`]); reads back with [`PackedStmt::stmt`].
#[derive(Clone, PartialEq)]
pub struct PackedStmt(Box<[u8]>);

impl PackedStmt {
    pub fn new(s: &Stmt) -> Self {
        PackedStmt(pack::pack(s))
    }
    /// The statement, as it was packed.
    pub fn stmt(&self) -> Stmt {
        pack::unpack(&self.0)
    }
    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.0.len()
    }
    /// The packed bytes (a step log keeps them in its own arena).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
    pub(crate) fn from_bytes(b: &[u8]) -> Self {
        PackedStmt(b.into())
    }
}

impl core::fmt::Debug for PackedStmt {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.stmt(), f)
    }
}

impl PtxEdit {
    /// The edit's kind as the rows of a view name it.
    pub fn op(&self) -> &'static str {
        match self {
            PtxEdit::Header { .. } => "header",
            PtxEdit::Item { .. } => "item",
            PtxEdit::Stmt { .. } => "stmt",
            PtxEdit::Linkage { .. } => "linkage",
            PtxEdit::Perf { .. } => "perf",
        }
    }

    /// A statement at the end of the body, `depth` scopes down.
    pub fn stmt(depth: usize, stmt: &Stmt) -> Self {
        PtxEdit::Stmt {
            depth: depth as u32,
            stmt: PackedStmt::new(stmt),
        }
    }

    /// What the edit adds, printed as PTX (first line only for a long element).
    pub fn text(&self) -> String {
        let mut out = String::new();
        match self {
            PtxEdit::Header { header } => {
                out = format!(
                    ".version {} / .target {}",
                    header.version.as_deref().unwrap_or("?"),
                    header.target.join(", ")
                )
            }
            PtxEdit::Item { item } => match &**item {
                Item::Func(f) => out = format!("function {}", f.name),
                Item::Var(v) => super::print::print_stmts(&mut out, &[Stmt::Var(v.clone())]),
                _ => out.push_str("directive"),
            },
            PtxEdit::Stmt { stmt, .. } => super::print::print_stmts(&mut out, &[stmt.stmt()]),
            PtxEdit::Linkage { words } => out = words.join(" "),
            PtxEdit::Perf { perf } => out = format!("{} {:?}", perf.0, perf.1),
        }
        String::from(out.lines().next().unwrap_or("").trim())
    }
}

/// For `skip_serializing_if`: a step with no PTX edits says nothing about them.
pub fn none<L: core::ops::Deref<Target = [PtxEdit]>>(edits: &L) -> bool {
    edits.is_empty()
}

/// Why an edit could not be applied (the module is not the one it was made for): the
/// one replay error MIR and ORI edits report too.
pub use crate::error::ReplayError;

/// The module's last item, which must be a function.
fn last_func(m: &mut Module) -> Result<&mut Function, ReplayError> {
    match m.items.last_mut() {
        Some(Item::Func(f)) => Ok(f),
        _ => Err(ReplayError(
            "an edit of a function, and no function to apply it to".into(),
        )),
    }
}

/// The body `depth` scopes down in the module's last function.
fn body_at(m: &mut Module, depth: u32) -> Result<&mut Vec<Stmt>, ReplayError> {
    let f = last_func(m)?;
    let mut body = f
        .body
        .as_mut()
        .ok_or_else(|| ReplayError(format!("{} has no body", f.name)))?;
    for d in 0..depth {
        body = match body.last_mut() {
            Some(Stmt::Scope(inner)) => inner,
            _ => return Err(ReplayError(format!("no open scope at depth {}", d + 1))),
        };
    }
    Ok(body)
}

/// Applies one edit to `m`.
pub fn apply_ptx_edit(m: &mut Module, e: &PtxEdit) -> Result<(), ReplayError> {
    match e {
        PtxEdit::Header { header } => {
            m.version = header.version.clone();
            m.target = header.target.clone();
            m.address_size = header.address_size;
        }
        PtxEdit::Item { item } => m.items.push((**item).clone()),
        PtxEdit::Stmt { depth, stmt } => body_at(m, *depth)?.push(stmt.stmt()),
        PtxEdit::Linkage { words } => last_func(m)?.linkage = (**words).clone(),
        PtxEdit::Perf { perf } => last_func(m)?.perf.push((**perf).clone()),
    }
    Ok(())
}
