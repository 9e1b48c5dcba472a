//! `ptx-emit`: machine IR after coalescing → PTX text, the way llc's NVPTX
//! AsmPrinter writes it.
//!
//! ```text
//!  mir::Module ─┬─ header: .version / .target / .address_size        (from Options)
//!               ├─ declarations: `.extern`/prototypes of functions used before
//!               │  their definition (ir.rs), in the IR module's function order
//!               ├─ module variables: IR globals (globals.rs), local shared ones
//!               │  demoted into their only user
//!               └─ per function (number k = position in the file):
//!                    frame        ← stack objects laid out into __local_depot<k>,
//!                                   `%stack.N` → %SP + offset, on a copy (frame.rs)
//!                    signature    ← the IR module's `define` line (linkage, kernel
//!                                   directives), or the `&<fn>_param_N` loads when
//!                                   there is none
//!                    register map ← every virtual register in number order gets
//!                                   the next number of its class's file (%r, %rd, ...);
//!                                   a tuple class takes one number per lane
//!                    .reg lines   ← one per file, sized count+1 (PTX counts from 0)
//!                    blocks       ← label `$L__BB<k>_<n>` when a printed branch
//!                                   targets the block, `// %bb.<n>:` otherwise
//!                    instructions ← forms::emit_inst: COPY → mov of the class type,
//!                                   tuple lanes in braces, CBranch → `@%p bra`, a
//!                                   GOTO to the next block is a fall-through,
//!                                   INLINEASM → its template with operands filled in
//! ```
//!
//! Invariants: the pass never changes the MIR (frame lowering works on a copy); each
//! printed instruction comes from one MIR instruction (the frame prologue's two from
//! none) and is narrated as one trace step; an opcode without a known
//! PTX form (llc-22's `anonymous_NNNNN` records, other targets' opcodes, pseudos
//! that two-address should have removed) stops the pass with an error naming it —
//! the form is never guessed. Registers are numbered exactly as llc numbers them,
//! so the output can be compared line by line with `llc.ptx`.

mod async_copy;
mod forms;
mod frame;
mod globals;
mod ir;
mod out;
mod wgmma;

use crate::entity::{dense_map, EntityRef, Interner, SecondaryMap, Sym};
use crate::mir::{Block, Family, Function, Inst, Module, Op, OperandKind, RegClass, Target, VReg};
use crate::ptx::ast::{self as ptx, Stmt};
use crate::ptx::edit::PtxEdit;
use crate::stats::Stats;
use crate::trace::{Focus, Payload, Recorder, Step};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use out::Out;

#[cfg(feature = "testkit")]
pub use forms::{no_form_reason, ptx_form_summary};

/// Options of `ptx-emit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxEmitOptions {
    /// The SM number the `.target` line names (90 → `sm_90`).
    pub sm: u32,
    /// `.version`; None picks the lowest version that supports `sm` (as llc does).
    pub ptx_version: Option<(u32, u32)>,
    /// Take the target from the embedded IR module when it names one (llc's
    /// `"target-cpu"="sm_20"` and `"target-features"="+ptx60"` attributes), as llc-22
    /// does; `sm` and `ptx_version` then only apply to modules that name none.
    pub target_from_ir: bool,
}

impl Default for PtxEmitOptions {
    fn default() -> Self {
        PtxEmitOptions {
            sm: 90,
            ptx_version: None,
            target_from_ir: true,
        }
    }
}

crate::stats::pass_stats! {
    /// `ptx-emit`'s counters, summed over the module's functions (JSON keys in this order).
    pub struct PtxEmitStats {
        functions,
        instrs_emitted,
        copies_emitted,
        movs_emitted,
        fallthroughs_dropped,
        labels,
        registers_declared,
        inline_asm_blocks,
    }
}

/// The smallest PTX ISA version that knows `sm_<sm>` (llc's default choice; LLVM's
/// NVPTX processor table).
pub fn min_ptx_version(sm: u32) -> (u32, u32) {
    match sm {
        100.. => (8, 6),
        90.. => (7, 8),
        89 => (7, 8),
        87 => (7, 4),
        86 => (7, 1),
        80.. => (7, 0),
        75.. => (6, 3),
        72.. => (6, 1),
        70.. => (6, 0),
        60..=62 => (5, 0),
        53 => (4, 2),
        37 | 52 => (4, 1),
        32 | 50 => (4, 0),
        _ => (3, 2),
    }
}

/// Why a function could not be printed as PTX.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitError {
    pub function: String,
    /// `bb.N` of the offending instruction, when there is one.
    pub block: Option<u32>,
    /// The offending instruction as MIR prints it.
    pub inst: Option<String>,
    pub message: String,
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ptx-emit: function `{}`", self.function)?;
        if let Some(b) = self.block {
            write!(f, ", bb.{b}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(i) = &self.inst {
            write!(f, "\n    in: {i}")?;
        }
        Ok(())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for EmitError {}

/// Prints a whole MIR module as one PTX module. Each step carries the PTX it added
/// ([`Out`]).
pub fn run<R: Recorder>(
    m: &Module,
    opts: &PtxEmitOptions,
    rec: &mut R,
) -> Result<(ptx::Module, Stats), EmitError> {
    let mut out = Out::new(rec);
    let r = emit_module(m, opts, &mut out);
    out.finish();
    r
}

fn emit_module<R: Recorder>(
    m: &Module,
    opts: &PtxEmitOptions,
    rec: &mut Out<'_, R>,
) -> Result<(ptx::Module, Stats), EmitError> {
    let mut stats = PtxEmitStats::default();
    let from_ir = match (opts.target_from_ir, m.ir.as_deref().and_then(ir::target)) {
        (true, Some(t)) => Some(t),
        _ => None,
    };
    let owned;
    let opts = match &from_ir {
        Some(t) => {
            owned = PtxEmitOptions {
                sm: t.sm,
                ptx_version: t.ptx_version,
                target_from_ir: true,
            };
            &owned
        }
        None => opts,
    };
    let suffix = from_ir.as_ref().map_or("", |t| t.suffix.as_str());
    let (maj, min) = opts.ptx_version.unwrap_or_else(|| min_ptx_version(opts.sm));
    // One walk per function finds its registers and what else its emission asks about
    // the whole function (see `Scan`); the module header asks for the opcodes with
    // target requirements.
    // Frame indices become the frame register plus the object's offset first (llc's
    // prologue/epilogue pass), on a copy of each function that has stack objects.
    let mut frames: Vec<Option<(frame::Frame, frame::Lowered)>> = Vec::new();
    let mut lowered: Vec<alloc::borrow::Cow<'_, Function>> = Vec::new();
    for f in &m.functions {
        let err = |message: String| EmitError {
            function: f.name.clone(),
            block: None,
            inst: None,
            message,
        };
        match frame::layout(f).map_err(err)? {
            Some(fr) => {
                let mut g = f.clone();
                let low = frame::lower(&mut g, &fr).map_err(err)?;
                frames.push(Some((fr, low)));
                lowered.push(alloc::borrow::Cow::Owned(g));
            }
            None => {
                frames.push(None);
                lowered.push(alloc::borrow::Cow::Borrowed(f));
            }
        }
    }
    let (reg_maps, scans): (Vec<_>, Vec<_>) = lowered.iter().map(|f| RegMap::build(f)).unzip();
    let (target, maj, min) = target_features(m, opts, suffix, &scans, (maj, min), rec)?;
    let mut out = ptx::Module {
        version: Some(format!("{maj}.{min}")),
        target: vec![target],
        address_size: Some(64),
        items: Vec::new(),
        header_lines: Default::default(),
        item_lines: Default::default(),
        source: Default::default(),
    };
    let sm = opts.sm;
    let explicit = opts.ptx_version.is_some();
    rec.edit(|| PtxEdit::Header {
        header: alloc::boxed::Box::new(crate::ptx::edit::Header {
            version: out.version.clone(),
            target: out.target.clone(),
            address_size: out.address_size,
        }),
    });
    let whence = if from_ir.is_some() {
        "the target the IR module's attributes name"
    } else {
        "the target the options name"
    };
    rec.step(|| {
        Step::new(
            "header",
            if explicit {
                format!(
                    "The module opens with PTX ISA {maj}.{min}, target sm_{sm}{suffix} ({whence}) \
                     and 64-bit addresses."
                )
            } else {
                format!(
                    "The module opens with PTX ISA {maj}.{min}, target sm_{sm}{suffix} ({whence}) \
                     and 64-bit addresses; {maj}.{min} is the lowest ISA version that knows \
                     sm_{sm}."
                )
            },
        )
    });
    let ir_text = m.ir.as_deref().unwrap_or("");
    let globals = globals::globals(ir_text);
    // Declarations of the functions the module calls come first, then the variables.
    // The IR's `define`/`declare` lines by name, found in one walk (a signature per
    // function would walk the module per function).
    let heads = m.ir.as_deref().map(ir::Heads::new);
    for decl in extern_declarations(m, heads.as_ref(), &globals, rec) {
        out.items.push(ptx::Item::Func(decl));
    }
    // Which functions use each global: a shared variable of local linkage used by one
    // function only is declared inside it ("demoted"), as llc does; every other global
    // is declared at module scope, used or not (llc prints them all: LLVM's nofunc.ll,
    // managed.ll), except a private one nothing refers to.
    let (ids, users) = global_users(m, &scans);
    let version = maj * 10 + min;
    // Per function number (a vector, not a map: one generic map instance less in the
    // engine's wasm, as for the other maps of this file).
    let mut demoted: Vec<Vec<&globals::Global>> = vec![Vec::new(); m.functions.len()];
    for (g, in_initializers) in globals::def_use_order(&globals) {
        let u = ids.get(&g.name).map_or(&[][..], |id| &users[id]);
        if g.demotable() && u.len() == 1 && !in_initializers {
            demoted[u[0]].push(g);
            continue;
        }
        if g.linkage == ir::Linkage::Local && u.is_empty() && !in_initializers && g.private {
            continue;
        }
        module_variable(&mut out, g, version, ir_text, rec);
    }
    for (k, (f, regs)) in lowered.iter().zip(reg_maps).enumerate() {
        let locals: Vec<&globals::Global> = core::mem::take(&mut demoted[k]);
        let cx = (regs, &scans[k], frames[k].as_ref(), version);
        let func = emit_function(f, (k, sm), cx, heads.as_ref(), &locals, rec, &mut stats)?;
        out.items.push(ptx::Item::Func(func));
        stats.functions += 1;
    }
    Ok((out, stats.into()))
}

/// The `.target` and ISA version the module's instructions need: wgmma only exists
/// on sm_90a, the bulk copy engine needs PTX 8.0, the texture residency predicate
/// 7.1, 128-bit registers 8.3 (each raise is a step); an instruction the target lacks
/// is an error.
fn target_features<R: Recorder>(
    m: &Module,
    opts: &PtxEmitOptions,
    suffix: &str,
    scans: &[Scan],
    (mut maj, mut min): (u32, u32),
    rec: &mut Out<'_, R>,
) -> Result<(String, u32, u32), EmitError> {
    // wgmma exists only in the sm_90a feature set (PTX 8.0 and later).
    let uses_wgmma = scans.iter().any(|s| s.features.wgmma);
    let mut target = format!("sm_{}{suffix}", opts.sm);
    if uses_wgmma && !target.ends_with('a') {
        if opts.sm != 90 {
            return Err(EmitError {
                function: String::new(),
                block: None,
                inst: None,
                message: format!(
                    "`WGMMA_M64N32K16_F32` needs the sm_90a feature set; sm_{} has no wgmma",
                    opts.sm
                ),
            });
        }
        target.push('a');
        if (maj, min) < (8, 0) {
            (maj, min) = (8, 0);
        }
        rec.step(|| {
            Step::new(
                "target_features",
                "The module uses wgmma, which only sm_90a has: the target becomes sm_90a and \
                 the ISA version at least 8.0.",
            )
        });
    }
    // cp.async needs sm_80; the bulk copy engine and mbarrier transactions of the TMA
    // form need sm_90 and PTX 8.0.
    let uses_cp_async = scans.iter().any(|s| s.features.cp_async);
    let uses_tma = scans.iter().any(|s| s.features.tma);
    let need_sm = |op: &str, sm: u32| EmitError {
        function: String::new(),
        block: None,
        inst: None,
        message: format!(
            "`{op}` prints as an instruction sequence that needs sm_{sm} or later; the target \
             is sm_{}",
            opts.sm
        ),
    };
    if uses_cp_async && opts.sm < 80 {
        return Err(need_sm("CP_ASYNC_CA_SHARED", 80));
    }
    if uses_tma {
        if opts.sm < 90 {
            return Err(need_sm("TMA_LOAD_2D", 90));
        }
        if (maj, min) < (8, 0) {
            (maj, min) = (8, 0);
            rec.step(|| {
                Step::new(
                    "target_features",
                    "The module uses the bulk copy engine (TMA_LOAD_2D), whose mbarrier \
                     transaction counts need PTX ISA 8.0: the version becomes 8.0.",
                )
            });
        }
    }
    // `tex ... {d}|p` (the residency predicate) needs PTX ISA 7.1.
    let uses_texpred_fetch = scans.iter().any(|s| s.features.texpred_fetch);
    if uses_texpred_fetch && (maj, min) < (7, 1) {
        (maj, min) = (7, 1);
        rec.step(|| {
            Step::new(
                "target_features",
                "The module fetches texels with a residency predicate (`tex ... {d}|p`), \
                 which needs PTX ISA 7.1: the version becomes 7.1.",
            )
        });
    }
    // 128-bit registers (`.b128`, what i128 values live in) need PTX ISA 8.3.
    let uses_b128 = m.functions.iter().any(|f| {
        f.vreg_list().any(|v| match f.vreg_class(v) {
            Some(RegClass::Scalar(c)) | Some(RegClass::Tuple { base: c, .. }) => {
                reg_file(c).decl_type == ".b128"
            }
            _ => false,
        })
    });
    if uses_b128 && (maj, min) < (8, 3) {
        (maj, min) = (8, 3);
        rec.step(|| {
            Step::new(
                "target_features",
                "The module has 128-bit registers (`.b128`), which need PTX ISA 8.3: the \
                 version becomes 8.3.",
            )
        });
    }
    Ok((target, maj, min))
}

/// One module-scope variable, with a remark when its initializer could not be read.
fn module_variable<R: Recorder>(
    out: &mut ptx::Module,
    g: &globals::Global,
    version: u32,
    ir_text: &str,
    rec: &mut Out<'_, R>,
) {
    let (decl, dropped) = g.decl(version, false, ir_text);
    rec.edit(|| PtxEdit::Item {
        item: alloc::boxed::Box::new(ptx::Item::Var(decl.clone())),
    });
    let text = {
        let mut s = String::new();
        crate::ptx::print::print_stmts(&mut s, &[Stmt::Var(decl.clone())]);
        s
    };
    rec.step(|| {
        Step::new(
            "module_variable",
            format!(
                "The IR global @{} becomes a module-scope {} variable: {}",
                g.name,
                decl.space().unwrap_or(".global"),
                text.trim()
            ),
        )
    });
    if dropped {
        rec.remark(format!(
            "@{}: its initializer is a form this emitter does not evaluate; it is left out, \
             so the variable starts zeroed",
            g.name
        ));
    }
    out.items.push(ptx::Item::Var(decl));
}

/// Declarations ahead of the functions, as llc prints them: `.extern .func` for a
/// function the module calls (`CALL_UNI @f`) but only declares in its IR, and a
/// `.visible .func` prototype for one it defines after a caller (ptxas needs a
/// callee's prototype before the call). In order of first call.
fn extern_declarations<R: Recorder>(
    m: &Module,
    heads: Option<&ir::Heads<'_>>,
    globals: &[globals::Global],
    rec: &mut Out<'_, R>,
) -> Vec<ptx::Function> {
    let Some(heads) = heads else {
        return Vec::new();
    };
    let order = ir::functions(heads.text);
    // Names by number ([`Interner`]: a binary search, not a walk through a list): where
    // each function is first defined in the IR module's order (llc has passed it when it
    // reaches a later one), and the last MIR function of each name (it hides an earlier
    // one of the same name).
    let mut ids = Interner::default();
    let mut defined_at: SecondaryMap<Sym, usize> = SecondaryMap::with_default(usize::MAX);
    for (j, (name, external)) in order.iter().enumerate() {
        let at = &mut defined_at[ids.intern(name)];
        if !external && *at == usize::MAX {
            *at = j;
        }
    }
    let mut last: SecondaryMap<Sym, usize> = SecondaryMap::new();
    for (k, f) in m.functions.iter().enumerate() {
        last[ids.intern(&f.name)] = k;
    }
    // The symbols each function's instructions name (callees, function addresses): for
    // each, the least IR position of a function naming it (usize::MAX: one the IR
    // module does not define).
    let mut first_user: SecondaryMap<Sym, Option<usize>> = SecondaryMap::new();
    for (k, f) in m.functions.iter().enumerate() {
        let id = ids.intern(&f.name);
        if last[id] != k {
            continue;
        }
        let at = defined_at[id];
        for (_, i) in f.all_insts() {
            for o in &f.insts[i].operands {
                if let OperandKind::Global { sym, .. } = o.kind {
                    let u = &mut first_user[ids.intern(f.sym(sym))];
                    *u = Some(u.map_or(at, |u| u.min(at)));
                }
            }
        }
    }
    // The functions some global's initializer names (each initializer read once).
    let mut named: SecondaryMap<Sym, bool> = SecondaryMap::new();
    for i in globals.iter().filter_map(|g| g.init.as_deref()) {
        globals::each_named(i, &mut |n, _| {
            if let Some(id) = ids.get(n) {
                named[id] = true;
            }
        });
    }
    let named_by_global = |name: &str| ids.get(name).is_some_and(|id| named[id]);
    // llc's order: the IR module's functions in turn; a declaration someone uses, a
    // definition a global's initializer names or a function defined before it uses.
    let mut callees: Vec<(String, bool)> = Vec::new();
    for (j, (name, external)) in order.iter().enumerate() {
        let first_user = ids.get(name).and_then(|id| first_user[id]);
        if *external {
            if !name.starts_with("llvm.") && (first_user.is_some() || named_by_global(name)) {
                callees.push((name.clone(), true));
            }
            continue;
        }
        if named_by_global(name) || first_user.is_some_and(|at| at < j) {
            callees.push((name.clone(), false));
        }
    }
    let mut out = Vec::new();
    for (name, external) in callees {
        let sig = if external {
            heads.declaration(&name)
        } else {
            heads.signature(&name)
        };
        let Some(sig) = sig else {
            continue;
        };
        let (params, rets) = sig.ptx_params(&name);
        let decl = ptx::Function {
            linkage: sig
                .linkage
                .function_directive(external)
                .map(String::from)
                .into_iter()
                .collect(),
            kind: crate::ptx::ast::FuncKind::Func,
            rets,
            name: name.clone(),
            params: Some(params),
            perf: Vec::new(),
            body: None,
            lines: Default::default(),
        };
        rec.edit(|| PtxEdit::Item {
            item: alloc::boxed::Box::new(ptx::Item::Func(decl.clone())),
        });
        rec.step(|| {
            Step::new(
                "declaration",
                if external {
                    format!(
                        "{name} is called but only declared in the IR module: it gets an \
                         `.extern .func` declaration with the declared signature."
                    )
                } else {
                    format!(
                        "{name} is used before its definition (by an earlier function or a \
                         variable's initializer): its prototype is declared first, so the use \
                         sees it."
                    )
                },
            )
        });
        out.push(decl);
    }
    out
}

/// The PTX register file a class prints into: prefix and `.reg` type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RegFile {
    /// Declaration order (llc's class order).
    pub order: u8,
    pub prefix: &'static str,
    pub decl_type: &'static str,
}

/// The register file of a scalar class.
pub fn reg_file(c: crate::mir::ScalarClass) -> RegFile {
    let prefix = c.info().ptx_prefix;
    let (order, decl_type) = match prefix {
        "%p" => (0, ".pred"),
        "%rs" => (1, ".b16"),
        "%r" => (2, ".b32"),
        "%rd" => (3, ".b64"),
        "%rq" => (4, ".b128"),
        "%h" => (5, ".b16"),
        "%hh" => (6, ".b32"),
        "%f" => (7, ".f32"),
        "%fd" => (8, ".f64"),
        _ => (9, ".b32"),
    };
    RegFile {
        order,
        prefix,
        decl_type,
    }
}

/// One register's entry in the [`RegMap`]: its name and its class, side by side
/// (emission needs both for every operand, and on a large function a second table
/// meant a second trip to memory), in 8 bytes so that the table of a 100k-register
/// function stays small.
#[derive(Copy, Clone, Default)]
struct Named {
    /// Its file, an index into [`RegMap::files`].
    file: u8,
    /// Its class: a scalar class, or a tuple of `lanes` registers of it. None marks a
    /// register without a name.
    base: Option<crate::mir::ScalarClass>,
    /// 0 for a scalar class.
    lanes: u8,
    /// Its first number (numbers start at 1).
    first: u32,
}

const _: () = assert!(core::mem::size_of::<Named>() == 8);

/// Virtual register → PTX register names (one per lane).
pub struct RegMap {
    /// Per register: its name and class. A dense table: every operand asks it, and a
    /// search tree over 100k registers cost a cache miss or two per operand.
    names: SecondaryMap<VReg, Named>,
    /// The files in use, in the order they were first met.
    files: Vec<RegFile>,
    /// Registers used per file (numbers 1..=count are taken).
    /// (Sorted by file: a vector, not a map, for the engine's wasm size.)
    pub counts: Vec<(RegFile, u32)>,
}

impl RegMap {
    /// Numbers every register some instruction defines or reads, in register-number
    /// order, per file (registers the coalescers emptied take no number, as in llc).
    /// The same walk fills in the rest of the function's [`Scan`].
    fn build(f: &Function) -> (Result<RegMap, String>, Scan) {
        let mut scan = Scan::default();
        let u = &mut scan.features;
        let mut used: SecondaryMap<VReg, bool> = dense_map(false, f.vreg_end as usize);
        for (_, i) in f.all_insts() {
            let d = &f.insts[i];
            u.wgmma |= d.is(Op::WGMMA_M64N32K16_F32);
            u.cp_async |= d.is(Op::CP_ASYNC_CA_SHARED);
            u.tma |= d.is(Op::TMA_LOAD_2D);
            u.texpred_fetch |= d.is(Op::TEX_2D_V4F32_F32_P);
            let mut global = false;
            for o in &d.operands {
                match o.kind {
                    OperandKind::Reg(crate::mir::Reg::Virt(v)) => used[v] = true,
                    OperandKind::Reg(crate::mir::Reg::Phys(p)) => {
                        scan.texpred |= f.sym(p) == "texpred";
                    }
                    OperandKind::Global { .. } => global = true,
                    _ => {}
                }
            }
            if global {
                scan.global_users.push(i);
            }
            let src = d
                .operands
                .get(d.lhs_defs as usize)
                .and_then(|o| o.get_reg());
            if d.is_copy() && matches!(src, Some(crate::mir::Reg::Phys(_))) {
                scan.physical_copies.push(i);
            }
        }
        (Self::number(f, &used), scan)
    }

    fn number(f: &Function, used: &SecondaryMap<VReg, bool>) -> Result<RegMap, String> {
        let mut names = dense_map(Named::default(), f.vreg_end as usize);
        let mut files: Vec<RegFile> = Vec::new();
        let mut counts: Vec<(RegFile, u32)> = Vec::new();
        for v in f.vreg_list().filter(|&v| used[v]) {
            let class = f.vreg_class(v).ok_or_else(|| {
                format!(
                    "%{} has no register class; PTX needs one to pick its register file",
                    v.index()
                )
            })?;
            let (base, lanes) = match class {
                RegClass::Scalar(c) => (c, 1),
                RegClass::Tuple { base, lanes } => (base, lanes as u32),
                RegClass::Foreign(_) => {
                    return Err(format!("%{} has a class of another target", v.index()))
                }
            };
            let file = reg_file(base);
            let k = match files.iter().position(|&x| x == file) {
                Some(k) => k,
                None => {
                    files.push(file);
                    files.len() - 1
                }
            };
            let at = counts
                .binary_search_by(|e| e.0.cmp(&file))
                .unwrap_or_else(|at| {
                    counts.insert(at, (file, 0));
                    at
                });
            let n = &mut counts[at].1;
            names[v] = Named {
                file: k as u8,
                base: Some(base),
                lanes: if matches!(class, RegClass::Tuple { .. }) {
                    lanes as u8
                } else {
                    0
                },
                first: *n + 1,
            };
            *n += lanes;
        }
        Ok(RegMap {
            names,
            files,
            counts,
        })
    }

    /// The PTX name of lane `lane` of `v`.
    pub fn name(&self, v: VReg, lane: u8) -> Option<String> {
        let (file, first) = self.entry(v)?;
        // Every register operand of the output is named here: the digits are written
        // by hand rather than through the formatting machinery, which cost more than the
        // rest of the naming.
        let mut s = String::with_capacity(file.prefix.len() + 6);
        s.push_str(file.prefix);
        crate::mir::print::push_uint(&mut s, u64::from(first + lane as u32));
        Some(s)
    }

    pub fn file(&self, v: VReg) -> Option<RegFile> {
        self.entry(v).map(|x| x.0)
    }

    fn entry(&self, v: VReg) -> Option<(RegFile, u32)> {
        let Named {
            file, base, first, ..
        } = self.names[v];
        base.map(|_| (self.files[file as usize], first))
    }

    /// The class of a named register (what `Function::vreg_class` says).
    pub fn class(&self, v: VReg) -> Option<RegClass> {
        let Named { base, lanes, .. } = self.names[v];
        let base = base?;
        Some(if lanes == 0 {
            RegClass::Scalar(base)
        } else {
            RegClass::Tuple { base, lanes }
        })
    }
}

/// For each symbol some instruction names (by its number in the interner returned): the
/// functions (by number, ascending) that do. Only the instructions each function's
/// [`Scan`] found with a global operand are read. An [`Interner`] finds a name by binary
/// search, where a list of pairs would be walked (quadratic in a module of thousands of
/// globals), and adds no code of its own: the MIR reader uses it.
fn global_users(m: &Module, scans: &[Scan]) -> (Interner, SecondaryMap<Sym, Vec<usize>>) {
    let mut ids = Interner::default();
    let mut users: SecondaryMap<Sym, Vec<usize>> = SecondaryMap::new();
    for (k, (f, scan)) in m.functions.iter().zip(scans).enumerate() {
        for &i in &scan.global_users {
            for o in &f.insts[i].operands {
                if let OperandKind::Global { sym, .. } = o.kind {
                    let u = &mut users[ids.intern(f.sym(sym))];
                    if u.last() != Some(&k) {
                        u.push(k);
                    }
                }
            }
        }
    }
    (ids, users)
}

/// What emission asks about a whole function, found on one walk over it (with the
/// register map): each further walk over a large function fetches it from memory again.
#[derive(Clone, Debug, Default)]
struct Scan {
    features: Features,
    /// Some operand is the physical register `$texpred`.
    texpred: bool,
    /// Instructions with a global operand, in layout order (where parameters are
    /// loaded from when there is no IR module).
    global_users: Vec<Inst>,
    /// COPYs from a physical register, in layout order (CICC's parameter registers).
    physical_copies: Vec<Inst>,
}

/// The opcodes with target requirements that a function uses.
#[derive(Copy, Clone, Debug, Default)]
struct Features {
    /// `TEX_2D_V4F32_F32_P`: PTX 7.1 (the residency predicate).
    texpred_fetch: bool,
    /// `WGMMA_M64N32K16_F32`: sm_90a.
    wgmma: bool,
    /// `CP_ASYNC_CA_SHARED`: sm_80 and shared staging arrays.
    cp_async: bool,
    /// `TMA_LOAD_2D`: sm_90, PTX 8.0 and shared staging arrays.
    tma: bool,
}

/// Label of block number `n` in function number `k`.
pub fn block_label(k: usize, n: u32) -> String {
    format!("$L__BB{k}_{n}")
}

/// What `emit_function` gets from the module-wide walk: the register map, the scan, the
/// lowered frame (when the function has stack objects) and the ISA version (× 10).
type FunctionFacts<'a> = (
    Result<RegMap, String>,
    &'a Scan,
    Option<&'a (frame::Frame, frame::Lowered)>,
    u32,
);

fn emit_function<R: Recorder>(
    f: &Function,
    (k, sm): (usize, u32),
    (regs, scan, frame, version): FunctionFacts<'_>,
    heads: Option<&ir::Heads<'_>>,
    locals: &[&globals::Global],
    rec: &mut Out<'_, R>,
    stats: &mut PtxEmitStats,
) -> Result<ptx::Function, EmitError> {
    let err = |message: String| EmitError {
        function: f.name.clone(),
        block: None,
        inst: None,
        message,
    };
    if f.target != Target::Nvptx {
        return Err(err(
            "this function is for another target (its IR module's triple is not nvptx); \
             only NVPTX machine IR prints as PTX"
                .into(),
        ));
    }
    let sig = heads.and_then(|h| h.signature(&f.name));
    let mut func = signature(f, sig.as_ref(), scan, rec);
    let regs = regs.map_err(err)?;
    // Room for an instruction per MIR instruction and a label per block up front.
    let mut body: Vec<Stmt> =
        Vec::with_capacity(f.layout.num_insts() + 2 * f.layout.num_blocks() + 16);
    if let Some((fr, low)) = frame {
        frame_declarations(&mut body, k, fr, low, rec);
    }
    register_files(&mut body, f, &regs, scan, rec, stats);
    let (cpa, tma) = (scan.features.cp_async, scan.features.tma);
    let arrays = async_copy::shared_arrays(cpa, tma);
    let has_arrays = !arrays.is_empty();
    for a in arrays {
        put(&mut body, rec, 0, a);
    }
    if has_arrays {
        rec.step(|| {
            Step::new(
                "demoted_variable",
                "The asynchronous copies land in per-thread slots of shared arrays declared \
                 in the function body.",
            )
        });
    }
    if scan.features.wgmma {
        put(&mut body, rec, 0, wgmma::shared_array());
    }
    for g in locals {
        put(&mut body, rec, 0, Stmt::Comment("demoted variable".into()));
        let decl = g.decl(version, true, heads.map_or("", |h| h.text)).0;
        put(&mut body, rec, 0, Stmt::Var(decl));
        let name = g.name.clone();
        rec.step(|| {
            Step::new(
                "demoted_variable",
                format!(
                    "@{name} lives in shared memory and only this function uses it, so it is \
                     declared inside the function body."
                ),
            )
        });
    }
    let cx = forms::Cx {
        f,
        regs: &regs,
        k,
        tracing: R::ENABLED,
    };
    emit_blocks(&cx, frame, &mut body, rec, stats)?;
    let (linkage, perf) = linkage_and_directives(f, sig.as_ref(), sm, rec);
    func.linkage = linkage;
    func.perf = perf;
    func.body = Some(body);
    Ok(func)
}

/// Appends `s` to `body` (`depth` call scopes down) and notes it for the next step.
fn put<R: Recorder>(body: &mut Vec<Stmt>, rec: &mut Out<'_, R>, depth: usize, s: Stmt) {
    rec.edit(|| PtxEdit::stmt(depth, &s));
    body.push(s);
}

/// The function's signature, from the IR module's `define` line or else the
/// parameter loads, with an empty body: the output's next item. Its linkage is the
/// final one when that is `.visible` (otherwise [`linkage_and_directives`] sets it).
fn signature<R: Recorder>(
    f: &Function,
    sig: Option<&ir::Signature>,
    scan: &Scan,
    rec: &mut Out<'_, R>,
) -> ptx::Function {
    let (kind, params, rets, how) = match sig {
        Some(s) => {
            let (params, rets) = s.ptx_params(&f.name);
            let kind = if s.kernel {
                ptx::FuncKind::Entry
            } else {
                ptx::FuncKind::Func
            };
            (kind, params, rets, "the IR module's `define` line")
        }
        None => (
            ptx::FuncKind::Entry,
            params_from_loads(f, scan, rec),
            Vec::new(),
            "the `&<name>_param_N` loads (the file has no IR module)",
        ),
    };
    let linkage = linkage_words(sig);
    let visible = linkage.first().map(String::as_str) == Some(".visible");
    let n = params.len();
    let func = ptx::Function {
        linkage: if visible { linkage } else { Vec::new() },
        kind,
        rets,
        name: f.name.clone(),
        params: Some(params),
        perf: Vec::new(),
        body: Some(Vec::new()),
        lines: Default::default(),
    };
    rec.edit(|| PtxEdit::Item {
        item: alloc::boxed::Box::new(ptx::Item::Func(func.clone())),
    });
    let kind_word = if kind == ptx::FuncKind::Entry {
        "kernel (.entry)"
    } else {
        "device function (.func)"
    };
    let name = &f.name;
    rec.step(|| {
        Step::new(
            "signature",
            format!("`{name}` is a {kind_word} with {n} parameters, read from {how}."),
        )
    });
    func
}

/// One `.reg` line per register file (and the texture residency predicate's).
fn register_files<R: Recorder>(
    body: &mut Vec<Stmt>,
    f: &Function,
    regs: &RegMap,
    scan: &Scan,
    rec: &mut Out<'_, R>,
    stats: &mut PtxEmitStats,
) {
    for (file, count) in &regs.counts {
        let decl = Stmt::Reg(ptx::RegDecl {
            words: vec![file.decl_type.into()],
            names: vec![(file.prefix.into(), Some(count + 1))],
        });
        put(body, rec, 0, decl);
        stats.registers_declared += *count as u64;
        if R::ENABLED {
            let members: Vec<String> = f
                .vreg_list()
                .filter(|&v| regs.file(v) == Some(*file))
                .map(|v| format!("%{}→{}", v.index(), regs.name(v, 0).unwrap_or_default()))
                .collect();
            let (prefix, ty, c) = (file.prefix, file.decl_type, *count);
            rec.step(|| {
                Step::new(
                    "register_file",
                    format!(
                        "{c} virtual registers print in the {ty} file as {prefix}1..{prefix}{c}, \
                         numbered in register order; the declaration reserves {prefix}<{}> \
                         because PTX counts from {prefix}0.",
                        c + 1
                    ),
                )
                .payload(Payload::Counters {
                    values: vec![(members.join(" "), c as i64)],
                })
            });
        }
    }
    if scan.texpred {
        let decl = Stmt::Reg(ptx::RegDecl {
            words: vec![".pred".into()],
            names: vec![(forms::TEXPRED.into(), None)],
        });
        put(body, rec, 0, decl);
        rec.step(|| {
            Step::new(
                "register_file",
                format!(
                    "The texture fetch's residency predicate ($texpred in the MIR) gets its \
                     own predicate register, {}.",
                    forms::TEXPRED
                ),
            )
        });
    }
}

/// The blocks whose label a printed branch or jump table names (a GOTO to the block
/// printed next falls through and names none).
fn branch_targets(f: &Function, blocks: &[Block]) -> SecondaryMap<Block, bool> {
    let mut targeted: SecondaryMap<Block, bool> = SecondaryMap::new();
    for (w, &b) in blocks.iter().enumerate() {
        let next = blocks.get(w + 1).copied();
        for i in f.layout.block_insts(b) {
            let d = &f.insts[i];
            let is_goto = d.is(Op::GOTO);
            // A jump table's entries (the description's `brx:item` / `brx:end` forms)
            // name their targets too.
            let is_table = matches!(d.opcode, crate::mir::Opcode::Known(op)
                if matches!(op.ptx(), "brx:item" | "brx:end"));
            if !(is_goto || is_table || d.is(Op::CBranch) || d.is(Op::CBranchOther)) {
                continue;
            }
            for o in &d.operands {
                if let OperandKind::Block(t) = o.kind {
                    let fallthrough = is_goto && next == Some(t);
                    if !fallthrough {
                        targeted[t] = true;
                    }
                }
            }
        }
    }
    targeted
}

/// The GOTO `d` jumps to the block printed right after its own (`next`).
fn falls_through(d: &crate::mir::InstData, next: Option<Block>) -> Option<Block> {
    if !d.is(Op::GOTO) {
        return None;
    }
    let t = d.operands.iter().find_map(|o| match o.kind {
        OperandKind::Block(t) => Some(t),
        _ => None,
    })?;
    (next == Some(t)).then_some(t)
}

/// Every block in layout order: its label or `// %bb.N:` comment, the frame prologue
/// in the first, then its instructions; a call sequence's statements go into a `{ }`
/// scope of their own.
fn emit_blocks<R: Recorder>(
    cx: &forms::Cx<'_>,
    frame: Option<&(frame::Frame, frame::Lowered)>,
    body: &mut Vec<Stmt>,
    rec: &mut Out<'_, R>,
    stats: &mut PtxEmitStats,
) -> Result<(), EmitError> {
    let (f, k) = (cx.f, cx.k);
    let blocks: Vec<Block> = f.layout.blocks().collect();
    let targeted = branch_targets(f, &blocks);
    // Which registers have a def, for printing instructions into the steps.
    let has_def = if R::ENABLED {
        crate::mir::print::defined_vregs(f)
    } else {
        SecondaryMap::new()
    };
    let fail = |n: u32, d: Option<&crate::mir::InstData>, message: String| EmitError {
        function: f.name.clone(),
        block: Some(n),
        inst: d.map(|d| crate::mir::print::inst_to_string(f, d).trim().to_string()),
        message,
    };
    // Bodies of the call sequences still open (`Callseq_Start` seen, not yet closed).
    let mut open_calls: Vec<Vec<Stmt>> = Vec::new();
    for (w, &b) in blocks.iter().enumerate() {
        let n = f.blocks[b].number;
        if !open_calls.is_empty() {
            let why = "a call sequence (Callseq_Start) is still open where the block ends";
            return Err(fail(n, None, why.into()));
        }
        if targeted[b] {
            put(body, rec, 0, Stmt::Label(block_label(k, n)));
            stats.labels += 1;
            let label = block_label(k, n);
            rec.step(|| {
                Step::new(
                    "label",
                    format!("bb.{n} is the target of a branch, so it gets the label {label}."),
                )
                .focus(Focus::Block { block: n })
            });
        } else {
            put(body, rec, 0, Stmt::Comment(format!("%bb.{n}:")));
        }
        if let (Some((fr, low)), 0) = (frame, w) {
            frame_prologue(body, k, fr, low, rec);
        }
        for i in f.layout.block_insts(b) {
            let d = &f.insts[i];
            if let Some(t) = falls_through(d, blocks.get(w + 1).copied()) {
                stats.fallthroughs_dropped += 1;
                let tn = f.blocks[t].number;
                rec.step(|| {
                    Step::new(
                        "fallthrough",
                        format!(
                            "GOTO %bb.{tn} jumps to the block printed right after this \
                             one; control falls through, so no branch is printed."
                        ),
                    )
                    .focus(Focus::inst(i))
                });
                continue;
            }
            let emitted = forms::emit_inst(cx, i).map_err(|m| fail(n, Some(d), m))?;
            if d.is(Op::Callseq_Start) {
                // The call's statements go into their own scope until Callseq_End.
                rec.edit(|| PtxEdit::stmt(open_calls.len(), &Stmt::Scope(Vec::new())));
                open_calls.push(core::mem::take(body));
            }
            for s in &emitted.stmts {
                rec.edit(|| PtxEdit::stmt(open_calls.len(), s));
            }
            record_inst(f, i, &emitted, rec, stats, &has_def);
            body.extend(emitted.stmts);
            if d.is(Op::Callseq_End) {
                let Some(outer) = open_calls.pop() else {
                    let why = "Callseq_End without a Callseq_Start before it";
                    return Err(fail(n, Some(d), why.into()));
                };
                let inner = core::mem::replace(body, outer);
                body.push(Stmt::Scope(inner));
            }
        }
    }
    Ok(())
}

/// A definition's linkage words: its IR linkage's directive, `.visible` without an IR
/// module.
fn linkage_words(sig: Option<&ir::Signature>) -> Vec<String> {
    match sig {
        None => vec![".visible".into()],
        Some(sig) => sig
            .linkage
            .function_directive(false)
            .map(String::from)
            .into_iter()
            .collect(),
    }
}

/// A definition's linkage directive (from the IR linkage; `.visible` without an IR
/// module) and, for a kernel, the directives its `nvvm.*` attributes ask for.
fn linkage_and_directives<R: Recorder>(
    f: &Function,
    sig: Option<&ir::Signature>,
    sm: u32,
    rec: &mut Out<'_, R>,
) -> (Vec<String>, Vec<(String, Vec<u32>)>) {
    let linkage = linkage_words(sig);
    let Some(sig) = sig else {
        return (linkage, Vec::new());
    };
    let name = &f.name;
    if linkage.first().map(String::as_str) != Some(".visible") {
        let word = linkage
            .first()
            .map_or("no linkage directive", |w| w.as_str());
        let why = match sig.linkage {
            ir::Linkage::Local => "its IR linkage is internal or private: PTX sees it only here",
            _ => "its IR linkage lets another module's definition replace it",
        };
        rec.edit(|| PtxEdit::Linkage {
            words: alloc::boxed::Box::new(linkage.clone()),
        });
        rec.step(|| Step::new("linkage", format!("`{name}` gets {word}: {why}.")));
    }
    let perf = if sig.kernel {
        sig.kernel_directives(sm)
    } else {
        Vec::new()
    };
    for (d, nums) in &perf {
        rec.edit(|| PtxEdit::Perf {
            perf: alloc::boxed::Box::new((d.clone(), nums.clone())),
        });
        let nums: Vec<String> = nums.iter().map(|n| n.to_string()).collect();
        let nums = nums.join(", ");
        rec.step(|| {
            Step::new(
                "kernel_directive",
                format!(
                    "The kernel's IR attributes ask for `{d} {nums}`: it is printed after the \
                     parameter list."
                ),
            )
        });
    }
    (linkage, perf)
}

/// The depot and frame registers at the top of the body, when the frame has bytes
/// (llc-22 declares them then, read or not).
fn frame_declarations<R: Recorder>(
    body: &mut Vec<Stmt>,
    k: usize,
    fr: &frame::Frame,
    low: &frame::Lowered,
    rec: &mut Out<'_, R>,
) {
    if fr.size == 0 {
        return;
    }
    let depot = format!("__local_depot{k}");
    put(body, rec, 0, Stmt::Var(ptx::VarDecl {
        words: vec![
            ".local".into(),
            ".align".into(),
            fr.align.to_string(),
            ".b8".into(),
        ],
        name: depot.clone(),
        dims: vec![Some(fr.size.min(u32::MAX as u64) as u32)],
        init: None,
    }));
    for r in ["%SP", "%SPL"] {
        put(body, rec, 0, Stmt::Reg(ptx::RegDecl {
            words: vec![".b64".into()],
            names: vec![(r.into(), None)],
        }));
    }
    let (size, align, n) = (fr.size, fr.align, low.replaced);
    rec.step(|| {
        Step::new(
            "frame",
            format!(
                "The stack objects take {size} bytes laid out upward from 0, each at a multiple \
                 of its alignment: they live in the local array {depot} (aligned to {align}), \
                 addressed through %SP (its generic address) and %SPL (its local address); \
                 {n} frame indices became %SP plus the object's offset."
            ),
        )
    });
    if low.folded > 0 {
        let (f, d) = (low.folded, low.dropped);
        rec.step(|| {
            Step::new(
                "frame",
                format!(
                    "{f} conversions of a frame address to the local space read %SPL directly \
                     instead; {d} generic address computations nothing else read were dropped."
                ),
            )
        });
    }
}

/// The prologue: `mov.b64 %SPL, __local_depot<k>` when %SPL is read and
/// `cvta.local.u64 %SP, %SPL` when %SP is.
fn frame_prologue<R: Recorder>(
    body: &mut Vec<Stmt>,
    k: usize,
    fr: &frame::Frame,
    low: &frame::Lowered,
    rec: &mut Out<'_, R>,
) {
    if !fr.has_objects {
        return;
    }
    let reg = |r: &str| ptx::Operand::Reg(r.into());
    if low.spl_used {
        put(body, rec, 0, Stmt::Inst(ptx::Inst::new(
            "mov.b64",
            vec![reg("%SPL"), ptx::Operand::Sym(format!("__local_depot{k}"))],
        )));
    }
    if low.sp_used {
        put(body, rec, 0, Stmt::Inst(ptx::Inst::new(
            "cvta.local.u64",
            vec![reg("%SP"), reg("%SPL")],
        )));
    }
    let what = match (low.spl_used, low.sp_used) {
        (true, true) => {
            "loads the depot's local address into %SPL and converts it to the \
                         generic %SP"
        }
        (true, false) => {
            "loads the depot's local address into %SPL (%SP is never read, so \
                          it is not computed)"
        }
        _ => "is empty: no frame register is read",
    };
    rec.step(|| Step::new("frame", format!("The prologue {what}.")));
}

fn record_inst<R: Recorder>(
    f: &Function,
    i: Inst,
    e: &forms::Emitted,
    rec: &mut Out<'_, R>,
    stats: &mut PtxEmitStats,
    has_def: &crate::entity::SecondaryMap<crate::mir::VReg, bool>,
) {
    let n_inst = count_insts(&e.stmts);
    stats.instrs_emitted += n_inst as u64;
    if f.insts[i].is_copy() {
        stats.copies_emitted += n_inst as u64;
    }
    stats.movs_emitted += count_movs(&e.stmts) as u64;
    if e.stmts.iter().any(|s| matches!(s, Stmt::InlineAsm(_))) {
        stats.inline_asm_blocks += 1;
    }
    if R::ENABLED {
        let mut mir = String::new();
        crate::mir::print::write_inst(&mut mir, f, &f.insts[i], has_def);
        let mir = mir.trim().to_string();
        // The statements are the last edits noted: the payload names them there
        // rather than holding their text again.
        let n = e.stmts.len();
        let first = rec.pending() - n;
        let narration = e.narration.clone();
        rec.step(|| {
            let mut s = Step::new(e.kind, narration).focus(Focus::inst(i));
            s.payload = Payload::Emitted(crate::trace::Emitted::new(&mir, first, n)).into();
            s
        });
    }
}

fn count_insts(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::Inst(_) => 1,
            Stmt::InlineAsm(v) | Stmt::Scope(v) => count_insts(v),
            _ => 0,
        })
        .sum()
}

fn count_movs(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::Inst(i) if i.opcode.starts_with("mov.") => 1,
            Stmt::InlineAsm(v) | Stmt::Scope(v) => count_movs(v),
            _ => 0,
        })
        .sum()
}

/// Parameters reconstructed from `&<fn>_param_N` loads when there is no IR module.
fn params_from_loads<R: Recorder>(f: &Function, scan: &Scan, rec: &mut R) -> Vec<ptx::Param> {
    let prefix = format!("{}_param_", f.name);
    let mut found: Vec<(u32, &'static str)> = Vec::new();
    for &i in &scan.global_users {
        let d = &f.insts[i];
        for o in &d.operands {
            let OperandKind::Global { sym, .. } = o.kind else {
                continue;
            };
            let Some(idx) = f
                .sym(sym)
                .strip_prefix(&prefix)
                .and_then(|s| s.parse().ok())
            else {
                continue;
            };
            let float_dest = d
                .vreg_defs()
                .next()
                .and_then(|(_, v)| f.vreg_class(v))
                .is_some_and(|c| match c {
                    RegClass::Scalar(s) => s.info().kind == crate::mir::ValueKind::Float,
                    _ => false,
                });
            let width = d
                .operands
                .get(d.lhs_defs as usize + 4)
                .and_then(|o| o.imm_value())
                .unwrap_or(32);
            let ty = match (width, float_dest || d.is(Op::LD_f32)) {
                (64, true) => ".f64",
                (64, false) => ".u64",
                (16, _) => ".u16",
                (8, _) => ".u8",
                (_, true) => ".f32",
                _ => ".u32",
            };
            entry_or(&mut found, idx, ty);
        }
    }
    // CICC's parameter registers: `COPY $rN` reads parameter N-1.
    for &i in &scan.physical_copies {
        let d = &f.insts[i];
        let src = d
            .operands
            .get(d.lhs_defs as usize)
            .and_then(|o| o.get_reg());
        let Some(crate::mir::Reg::Phys(p)) = src else {
            continue;
        };
        let Some(idx) = forms::param_register(f.sym(p)) else {
            continue;
        };
        let class = d.vreg_defs().next().and_then(|(_, v)| f.vreg_class(v));
        let ty = match class.map(|c| (forms::mov_type(c), family_bits(c))) {
            Some(("f32", _)) => ".f32",
            Some(("f64", _)) => ".f64",
            Some((_, 64)) => ".u64",
            Some((_, 16)) => ".u16",
            _ => ".u32",
        };
        entry_or(&mut found, idx, ty);
    }
    let count = found.iter().map(|e| e.0).max().map_or(0, |m| m + 1);
    let mut params = Vec::new();
    for idx in 0..count {
        let ty = match lookup(&found, &idx) {
            Some(t) => *t,
            None => {
                rec.step(|| {
                    Step::new(
                        "unused_parameter",
                        format!(
                            "Parameter {idx} is never loaded and the file has no IR module to \
                             say its type; it is declared .u32."
                        ),
                    )
                });
                ".u32"
            }
        };
        params.push(ptx::Param {
            words: vec![".param".into(), ty.into()],
            name: format!("{prefix}{idx}"),
            array: None,
        });
    }
    params
}

/// The value under `key` in a small association list (a function's parameters): each
/// `BTreeMap` key/value pair would be one more instance of the map's code in the
/// engine's wasm. Names that grow with the module are numbered by an [`Interner`].
fn lookup<'a, K: PartialEq<Q>, Q: ?Sized, V>(list: &'a [(K, V)], key: &Q) -> Option<&'a V> {
    list.iter().find(|e| e.0 == *key).map(|e| &e.1)
}

/// `value` under `key` unless the list has a value there (a map's
/// `entry(key).or_insert(value)`).
fn entry_or<K: PartialEq, V>(list: &mut Vec<(K, V)>, key: K, value: V) {
    if !list.iter().any(|e| e.0 == key) {
        list.push((key, value));
    }
}

/// The family (bit width) of a register class, for messages.
pub fn family_bits(c: RegClass) -> u32 {
    c.family().map_or(0, Family::bits)
}

/// Emits one MIR function with no IR module and no variables (a test convenience).
#[cfg(feature = "testkit")]
pub fn emit_one<R: Recorder>(
    f: &Function,
    opts: &PtxEmitOptions,
    rec: &mut R,
) -> Result<(ptx::Module, Stats), EmitError> {
    let m = Module {
        ir: None,
        functions: vec![f.clone()],
    };
    run(&m, opts, rec)
}

#[cfg(test)]
mod tests;
