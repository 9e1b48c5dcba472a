//! An instruction as a trace keeps it: the contents of an inserted instruction as
//! LEB128 numbers instead of an [`InstData`] and its operand vector.
//!
//! ```text
//!  %7:b32 = COPY killed %3     InstData 48 B + 2 operands × 32 B   = 112 bytes
//!                              packed: opcode, counts, per operand its kind and
//!                              register (flags, sub-register, ... only when set)
//!                              = 9 bytes (and a 16-byte box)
//! ```
//!
//! Every field is kept ([`PackedInst::unpack`] gives back an equal [`InstData`]); the
//! numbers are the entities' indices (registers, names, blocks), so nothing is looked up.
//!
//! The same for the parts of step payloads that were sentences and names: a two-address
//! LiveVariables update ([`LvStep`], a few LEB128 bytes in [`LvSteps`]), a tried tie
//! transform ([`TieAttempt`]), a register ([`RegText`]), a register class
//! ([`ClassText`]), a reason with one number ([`NumberedText`]): each prints, when the
//! step is shown or written as JSON, the text the pass used to store.

use super::compact::varint::{put_u32 as write_leb, put_u64 as write_leb64};
use crate::entity::{EntityRef, Sym};
use crate::mir::operand::{FpImm, Sigil};
use crate::mir::{
    Block, InstData, Op, Opcode, Operand, OperandKind, Reg, SubReg, SubRegKind, VReg,
};
use crate::packing::Reader;
use alloc::boxed::Box;
use alloc::vec::Vec;

/// An [`InstData`] packed (one word inline; see the module header).
#[derive(Clone, PartialEq, Eq)]
#[allow(clippy::redundant_allocation)] // the inner box is a slice: the outer one makes it thin
pub struct PackedInst(Box<Box<[u8]>>);

impl PackedInst {
    /// The packed bytes (a step log keeps them in its own arena).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
    pub(crate) fn from_bytes(b: &[u8]) -> Self {
        PackedInst(Box::new(b.into()))
    }
    pub fn pack(d: &InstData) -> Self {
        let mut out = Vec::with_capacity(8 + 4 * d.operands.len());
        write_leb(&mut out, opcode_code(d.opcode));
        for v in [
            u32::from(d.lhs_defs),
            u32::from(d.mi_flags),
            opt_sym(d.mem),
            opt_sym(d.trailing),
            d.operands.len() as u32,
        ] {
            write_leb(&mut out, v);
        }
        for o in &d.operands {
            write_operand(&mut out, o);
        }
        let p = PackedInst(Box::new(out.into_boxed_slice()));
        debug_assert!(p.unpack() == *d, "packing lost a field of {d:?}");
        p
    }

    /// The instruction, as it was packed.
    pub fn unpack(&self) -> InstData {
        let mut r = Reader::new(&self.0);
        let opcode = match r.u32() {
            c if c % 2 == 0 => Opcode::Known(Op::all()[(c / 2) as usize]),
            c => Opcode::Other(sym(c / 2)),
        };
        let (lhs_defs, mi_flags) = (r.u32() as u16, r.u32() as u16);
        let (mem, trailing) = (r.opt_sym(), r.opt_sym());
        let n = r.u32() as usize;
        let operands: Vec<Operand> = (0..n).map(|_| read_operand(&mut r)).collect();
        InstData {
            opcode,
            tie_free: crate::mir::instr::ties_none(&operands),
            operands,
            lhs_defs,
            mi_flags,
            mem,
            trailing,
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        16 + self.0.len()
    }
}

impl core::fmt::Debug for PackedInst {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.unpack(), f)
    }
}

fn opcode_code(o: Opcode) -> u32 {
    match o {
        Opcode::Known(op) => 2 * op as u32,
        Opcode::Other(s) => 2 * s.index() as u32 + 1,
    }
}

fn sym(i: u32) -> Sym {
    Sym::new(i as usize)
}

fn opt_sym(s: Option<Sym>) -> u32 {
    s.map_or(0, |s| s.index() as u32 + 1)
}

fn subreg_code(s: SubReg) -> u32 {
    match s.kind() {
        SubRegKind::Lane(l) => 2 * u32::from(l),
        SubRegKind::Named(n) => 2 * n.index() as u32 + 1,
    }
}

fn subreg_of(c: u32) -> SubReg {
    if c.is_multiple_of(2) {
        SubReg::of_lane((c / 2) as u8)
    } else {
        SubReg::of_name(sym(c / 2))
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

const SIGILS: [Sigil; 4] = [Sigil::Amp, Sigil::AmpQuoted, Sigil::At, Sigil::AtQuoted];

/// An operand: a head (its kind's tag, and a bit for each optional field present), the
/// kind's numbers, then the optional fields that are set.
fn write_operand(out: &mut Vec<u8>, o: &Operand) {
    let tag = match o.kind {
        OperandKind::Reg(Reg::Virt(_)) => 0,
        OperandKind::Reg(Reg::Phys(_)) => 1,
        OperandKind::Reg(Reg::NoReg) => 2,
        OperandKind::Imm(_) => 3,
        OperandKind::FpImm(_) => 4,
        OperandKind::SubRegIdx(_) => 5,
        OperandKind::Block(_) => 6,
        OperandKind::Global { .. } => 7,
        OperandKind::Stack { .. } => 8,
        OperandKind::Verbatim(_) => 9,
    };
    let present = [
        o.flags != 0,
        o.subreg.is_some(),
        o.tied_def.is_some(),
        o.llt.is_some(),
        o.comment.is_some(),
    ];
    let head = present
        .iter()
        .enumerate()
        .fold(tag, |h, (k, &p)| h | (u32::from(p) << (4 + k)));
    write_leb(out, head);
    match o.kind {
        OperandKind::Reg(Reg::Virt(v)) => write_leb(out, v.index() as u32),
        OperandKind::Reg(Reg::Phys(s)) | OperandKind::Verbatim(s) => {
            write_leb(out, s.index() as u32)
        }
        OperandKind::Reg(Reg::NoReg) => {}
        OperandKind::Imm(i) => write_leb64(out, zigzag(i)),
        OperandKind::FpImm(FpImm { ty, text }) => {
            write_leb(out, ty.index() as u32);
            write_leb(out, text.index() as u32);
        }
        OperandKind::SubRegIdx(s) => write_leb(out, subreg_code(s)),
        OperandKind::Block(b) => write_leb(out, b.index() as u32),
        OperandKind::Global { sym, sigil, offset } => {
            write_leb(out, sym.index() as u32);
            write_leb(
                out,
                SIGILS.iter().position(|s| *s == sigil).unwrap_or(0) as u32,
            );
            write_leb64(out, zigzag(offset));
        }
        OperandKind::Stack { fixed, index } => {
            write_leb(out, u32::from(fixed));
            write_leb(out, index);
        }
    }
    let optional = [
        u32::from(o.flags),
        o.subreg.map_or(0, subreg_code),
        o.tied_def.map_or(0, u32::from),
        o.llt.map_or(0, |s| s.index() as u32),
        o.comment.map_or(0, |s| s.index() as u32),
    ];
    for (v, p) in optional.into_iter().zip(present) {
        if p {
            write_leb(out, v);
        }
    }
}

impl Reader<'_> {
    fn sym(&mut self) -> Sym {
        sym(self.u32())
    }
    fn opt_sym(&mut self) -> Option<Sym> {
        match self.u32() {
            0 => None,
            s => Some(sym(s - 1)),
        }
    }
}

fn read_operand(r: &mut Reader<'_>) -> Operand {
    let head = r.u32();
    let kind = match head & 15 {
        0 => OperandKind::Reg(Reg::Virt(VReg::new(r.u32() as usize))),
        1 => OperandKind::Reg(Reg::Phys(r.sym())),
        2 => OperandKind::Reg(Reg::NoReg),
        3 => OperandKind::Imm(unzigzag(r.num())),
        4 => OperandKind::FpImm(FpImm {
            ty: r.sym(),
            text: r.sym(),
        }),
        5 => OperandKind::SubRegIdx(subreg_of(r.u32())),
        6 => OperandKind::Block(Block::new(r.u32() as usize)),
        7 => OperandKind::Global {
            sym: r.sym(),
            sigil: SIGILS[(r.u32() as usize).min(3)],
            offset: unzigzag(r.num()),
        },
        8 => OperandKind::Stack {
            fixed: r.u32() != 0,
            index: r.u32(),
        },
        _ => OperandKind::Verbatim(r.sym()),
    };
    let mut o = Operand::new(kind);
    let has = |k: u32| head & (1 << (4 + k)) != 0;
    if has(0) {
        o.flags = r.u32() as u16;
    }
    if has(1) {
        o.subreg = Some(subreg_of(r.u32()));
    }
    if has(2) {
        o.tied_def = Some(r.u32() as u8);
    }
    if has(3) {
        o.llt = Some(r.sym());
    }
    if has(4) {
        o.comment = Some(r.sym());
    }
    o
}

/// Two-address: one update of an EXTRACT_SUBREG COPY's LiveVariables chain (see
/// `passes::two_address::lv`), as numbers (registers are virtual register numbers,
/// printed `%N`; instructions are storage indices). Printed as a sentence by `Display`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LvStep {
    RemoveKill {
        reg: u32,
        inst: u32,
    },
    AddKill {
        reg: u32,
        inst: u32,
    },
    ReplaceKill {
        reg: u32,
        new: u32,
        old: u32,
    },
    AlsoDefined {
        reg: u32,
        inst: u32,
    },
    NewVarInfo {
        reg: u32,
    },
    /// `dead`: a dead def, whose kill moved with it.
    MoveDef {
        reg: u32,
        old: u32,
        new: u32,
        dead: bool,
    },
    /// `dead_kill_at`: the erased def was dead; its kill is at this instruction now.
    DropDef {
        reg: u32,
        old: u32,
        dead_kill_at: Option<u32>,
    },
    Defined {
        reg: u32,
        inst: u32,
    },
    /// The def is a physical register (its printed name).
    Physical {
        name: alloc::string::String,
    },
    UndefSource,
    FindKill {
        reg: u32,
        inst: u32,
    },
    NoKill {
        reg: u32,
    },
    KillStays {
        reg: u32,
    },
    NotAlive {
        reg: u32,
    },
    AliveUnchanged {
        reg: u32,
    },
}

impl core::fmt::Display for LvStep {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use LvStep::*;
        match self {
            RemoveKill { reg, inst } => write!(f, "removeKill: %{reg} no longer dies at instruction {inst}"),
            AddKill { reg, inst } => write!(f, "addKill: %{reg} now dies at instruction {inst}"),
            ReplaceKill { reg, new, old } => write!(f, "replaceKill: %{reg} dies at instruction {new} instead of {old}"),
            AlsoDefined { reg, inst } => write!(f, "def: %{reg} is also defined at instruction {inst}"),
            NewVarInfo { reg } => write!(f, "createNewVarInfo + initVarInfo: %{reg} gets an empty VarInfo"),
            MoveDef { reg, old, new, dead } => write!(f, "transfer: %{reg}'s def moves from instruction {old} to {new}{}", if *dead { " (a dead def: the kill goes with it)" } else { "" }),
            DropDef { reg, old, dead_kill_at: None } => write!(f, "def: instruction {old} no longer defines %{reg}"),
            DropDef { reg, old, dead_kill_at: Some(new) } => write!(f, "def: instruction {old} no longer defines %{reg}; the dead def's kill is at {new} now"),
            Defined { reg, inst } => write!(f, "transfer: %{reg} is defined at instruction {inst}"),
            Physical { name } => write!(f, "transfer: {name} is a physical register, which LiveVariables does not track here"),
            UndefSource => f.write_str("findKill, add/removeKill, addNewBlock: the source is undef, nothing is read"),
            FindKill { reg, inst } => write!(f, "findKill: %{reg} dies at instruction {inst} in this block"),
            NoKill { reg } => write!(f, "findKill: %{reg} does not die in this block"),
            KillStays { reg } => write!(f, "add/removeKill: %{reg}'s kill stays where it is"),
            NotAlive { reg } => write!(f, "addNewBlock: %{reg} dies in this block, so it is no longer alive through it"),
            AliveUnchanged { reg } => write!(f, "addNewBlock: %{reg}'s alive blocks are unchanged"),
        }
    }
}

impl LvStep {
    /// The step's tag and numbers (a physical register's name goes after them).
    fn code(&self) -> (u8, [u32; 3], usize) {
        use LvStep::*;
        match *self {
            RemoveKill { reg, inst } => (0, [reg, inst, 0], 2),
            AddKill { reg, inst } => (1, [reg, inst, 0], 2),
            ReplaceKill { reg, new, old } => (2, [reg, new, old], 3),
            AlsoDefined { reg, inst } => (3, [reg, inst, 0], 2),
            NewVarInfo { reg } => (4, [reg, 0, 0], 1),
            MoveDef {
                reg,
                old,
                new,
                dead,
            } => (5 + u8::from(dead), [reg, old, new], 3),
            DropDef {
                reg,
                old,
                dead_kill_at: None,
            } => (7, [reg, old, 0], 2),
            DropDef {
                reg,
                old,
                dead_kill_at: Some(new),
            } => (8, [reg, old, new], 3),
            Defined { reg, inst } => (9, [reg, inst, 0], 2),
            Physical { ref name } => (10, [name.len() as u32, 0, 0], 1),
            UndefSource => (11, [0; 3], 0),
            FindKill { reg, inst } => (12, [reg, inst, 0], 2),
            NoKill { reg } => (13, [reg, 0, 0], 1),
            KillStays { reg } => (14, [reg, 0, 0], 1),
            NotAlive { reg } => (15, [reg, 0, 0], 1),
            AliveUnchanged { reg } => (16, [reg, 0, 0], 1),
        }
    }

    fn decode(r: &mut Reader<'_>) -> Self {
        use LvStep::*;
        let tag = r.u32();
        let mut n = || r.u32();
        match tag {
            0 => RemoveKill {
                reg: n(),
                inst: n(),
            },
            1 => AddKill {
                reg: n(),
                inst: n(),
            },
            2 => ReplaceKill {
                reg: n(),
                new: n(),
                old: n(),
            },
            3 => AlsoDefined {
                reg: n(),
                inst: n(),
            },
            4 => NewVarInfo { reg: n() },
            5 | 6 => MoveDef {
                reg: n(),
                old: n(),
                new: n(),
                dead: tag == 6,
            },
            7 => DropDef {
                reg: n(),
                old: n(),
                dead_kill_at: None,
            },
            8 => DropDef {
                reg: n(),
                old: n(),
                dead_kill_at: Some(n()),
            },
            9 => Defined {
                reg: n(),
                inst: n(),
            },
            10 => Physical { name: r.text() },
            11 => UndefSource,
            12 => FindKill {
                reg: n(),
                inst: n(),
            },
            13 => NoKill { reg: n() },
            14 => KillStays { reg: n() },
            15 => NotAlive { reg: n() },
            _ => AliveUnchanged { reg: n() },
        }
    }
}

/// The [`LvStep`]s of one chain in order, kept as LEB128 bytes (a tag and the numbers
/// of each: a few bytes a step instead of its sentence); read back with
/// [`LvSteps::iter`], printed as the list of sentences.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct LvSteps(super::compact::ThinBytes);

impl LvSteps {
    /// Appends `s` to a log being built (see [`LvSteps::from_log`]).
    pub fn log(out: &mut Vec<u8>, s: &LvStep) {
        let (tag, nums, n) = s.code();
        write_leb(out, u32::from(tag));
        for v in &nums[..n] {
            write_leb(out, *v);
        }
        if let LvStep::Physical { name } = s {
            out.extend_from_slice(name.as_bytes());
        }
    }
    pub fn from_log(log: Vec<u8>) -> Self {
        LvSteps(log.into())
    }
    pub fn iter(&self) -> impl Iterator<Item = LvStep> + '_ {
        let mut r = Reader::new(&self.0);
        core::iter::from_fn(move || (!r.at_end()).then(|| LvStep::decode(&mut r)))
    }
    pub fn len(&self) -> usize {
        self.iter().count()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// The sentences, as the JSON prints them.
    pub fn texts(&self) -> Vec<alloc::string::String> {
        self.iter().map(|s| alloc::format!("{s}")).collect()
    }
}

impl core::fmt::Debug for LvSteps {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.texts()).finish()
    }
}

impl serde::Serialize for LvSteps {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(|x| alloc::format!("{x}")))
    }
}

/// A register as a payload names it: a virtual register by its number (printed `%N`),
/// any other by its printed name. Printed as that name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegText {
    Virt(u32),
    Named(Box<str>),
}

impl RegText {
    pub fn of(f: &crate::mir::Function, r: Reg) -> Self {
        match r {
            Reg::Virt(v) => RegText::Virt(v.index() as u32),
            r => RegText::Named(crate::mir::print::reg_string(f, r).into()),
        }
    }
}

impl core::fmt::Display for RegText {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RegText::Virt(v) => write!(f, "%{v}"),
            RegText::Named(n) => f.write_str(n),
        }
    }
}

impl serde::Serialize for RegText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Two-address: one transform tried on a tied pair before its COPY, and its outcome
/// (the reasons are sentences of the program, the numbers are kept as numbers). Printed
/// as a sentence by `Display`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TieAttempt {
    Optnone,
    NotCommutable,
    /// The tied operand `base` is neither of the commutable operands `c1`, `c2`.
    NotCommutableOperand {
        base: u32,
        c1: u32,
        c2: u32,
    },
    OtherNotVirtual,
    /// `base`: the tied source's virtual register number.
    NotProfitable {
        base: u32,
        base_killed: bool,
        other_killed: bool,
        why: &'static str,
    },
    Commuted {
        why: &'static str,
    },
    ThreeAddress,
    /// `kill_above`: rescheduleKillAboveMI (else rescheduleMIBelowKill); `why` it failed.
    RescheduleFailed {
        kill_above: bool,
        why: &'static str,
    },
    Rescheduled {
        kill_above: bool,
    },
    RescheduleOff,
    LoadUnfolding,
}

fn reschedule_name(kill_above: bool) -> &'static str {
    if kill_above {
        "reschedule kill above"
    } else {
        "reschedule below kill"
    }
}

impl core::fmt::Display for TieAttempt {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use TieAttempt::*;
        match self {
            Optnone => f.write_str("all transforms: off (optnone)"),
            NotCommutable => f.write_str("commute: the opcode is not commutable"),
            NotCommutableOperand { base, c1, c2 } => write!(f, "commute: operand {base} is not one of the commutable operands {c1} and {c2}"),
            OtherNotVirtual => f.write_str("commute: the other operand is not a virtual register"),
            NotProfitable { base, base_killed, other_killed, why } => write!(f, "commute: not profitable (%{base} dies here: {base_killed}, the other operand dies here: {other_killed}{}{why})", if why.is_empty() { "" } else { "; " }),
            Commuted { why } => write!(f, "commute: done ({why})"),
            ThreeAddress => f.write_str("three-address: NVPTX has no three-address form to convert to"),
            RescheduleFailed { kill_above, why } => write!(f, "{}: {why}", reschedule_name(*kill_above)),
            Rescheduled { kill_above } => write!(f, "{}: done", reschedule_name(*kill_above)),
            RescheduleOff => f.write_str("reschedule: off (twoaddr-reschedule=false)"),
            LoadUnfolding => f.write_str("load unfolding: NVPTX folds no loads into instructions, so none can be unfolded"),
        }
    }
}

impl serde::Serialize for TieAttempt {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A register class as a payload names it: an NVPTX class as itself (printed from its
/// own tables), a class of another target by its printed name. Printed as that name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassText {
    Class(crate::mir::RegClass),
    Named(Box<str>),
}

impl ClassText {
    pub fn of(c: crate::mir::RegClass, names: &crate::entity::Interner) -> Self {
        match c {
            crate::mir::RegClass::Foreign(_) => {
                ClassText::Named(alloc::format!("{}", c.display(names)).into())
            }
            c => ClassText::Class(c),
        }
    }
}

impl core::fmt::Display for ClassText {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            // Only a foreign class reads the names, and it is kept as `Named`.
            ClassText::Class(c) => c.display(&crate::entity::Interner::default()).fmt(f),
            ClassText::Named(n) => f.write_str(n),
        }
    }
}

impl PartialEq<&str> for ClassText {
    fn eq(&self, o: &&str) -> bool {
        alloc::format!("{self}") == *o
    }
}

impl serde::Serialize for ClassText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A sentence of the program with at most one number in it: the template's `\u{1}`, if
/// any, prints as `value`. Printed as the sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NumberedText {
    pub template: &'static str,
    pub value: u32,
}

impl NumberedText {
    /// A sentence without a number.
    pub const fn plain(template: &'static str) -> Self {
        NumberedText { template, value: 0 }
    }
}

impl core::fmt::Display for NumberedText {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.template.split_once('\u{1}') {
            Some((a, b)) => write!(f, "{a}{}{b}", self.value),
            None => f.write_str(self.template),
        }
    }
}

impl serde::Serialize for NumberedText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
