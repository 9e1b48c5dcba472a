//! A step as bytes: how [`super::StepList`] keeps every step it holds.
//!
//! ```text
//!  record = kind# template# args(len, LEB128 numbers) lists payload
//!  lists   = 0 none | 1 side# | 1 + which (focus 1, edits 2, ori 4, ptx 8), those lists
//!            (a list holding a MIR edit or PTX edit with no byte form: side)
//!  payload = 0 none | 1 side# | 2 GoRound | 3 GoBuffer (slots#) | 4 GoMark
//!            | 5 Lowered | 6 Emitted | 7 GoCost | 8 CoalesceDecision (base#)
//! ```
//!
//! Kinds and templates are numbers into the log's tables (each kept once); numbers are
//! LEB128 ([`crate::packing`]). A part with no byte form yet is kept as it was, in one
//! of the log's side tables, and the record holds its number there (`side#`): every
//! step reads back equal to what was pushed, whichever way its parts are kept.

use super::coalesce::RangeBase;
use super::compact::{GoSlots, PayloadBox, SharedText};
use super::edit::{Change, Edit, InstSeq};
use super::field::{fields, Field};
use super::narration::SharedTemplate;
use super::steps::room_for;
use super::{
    BufferCounters, Emitted, Focus, GoCost, GoCounters, Kind, List, Lowered, Narration, OriText,
    PackedInst, Payload, Step, StepLists,
};
use crate::entity::EntityRef;
use crate::mir::Inst;
use crate::ori::edit::pack::{operand, read_operand};
use crate::ori::edit::{OriEdit, PackedOriInst, PackedReg};
use crate::ori::{BlockId, InstId, RegId};
use crate::packing::{Bytes, Reader};
use crate::ptx::edit::{PackedStmt, PtxEdit};
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// What records refer to by number: the kinds and templates (each once), the range
/// bases coalescing decisions share, and the parts kept as they were.
#[derive(Clone, Default)]
pub(super) struct Tables {
    kinds: Interned<&'static str>,
    templates: Interned<SharedTemplate>,
    pub(super) bases: Bases,
    payloads: Vec<PayloadBox>,
    lists: Vec<StepLists>,
    slots: Slots,
}

/// Values kept once each, numbered in the order first seen; the lookup that numbers
/// them (the numbers sorted by their value, searched by halves: one small generic
/// search rather than a tree map's code for each value type) is only for pushing
/// (dropped by [`Interned::shrink_to_fit`], rebuilt when a value is numbered again).
#[derive(Clone)]
pub(super) struct Interned<T> {
    items: Vec<T>,
    at: Vec<u32>,
}

impl<T> Default for Interned<T> {
    fn default() -> Self {
        Interned {
            items: Vec::new(),
            at: Vec::new(),
        }
    }
}

impl<T: Ord + Clone> Interned<T> {
    /// The number of `x` (numbered now when new).
    pub(super) fn number(&mut self, x: &T) -> u64 {
        if self.at.len() < self.items.len() {
            self.at.clear();
            for n in 0..self.items.len() {
                let pos = self.find(&self.items[n]).unwrap_or_else(|p| p);
                self.at.insert(pos, n as u32);
            }
        }
        match self.find(x) {
            Ok(pos) => u64::from(self.at[pos]),
            Err(pos) => {
                let n = self.items.len() as u32;
                room_for(&mut self.items, 1);
                self.items.push(x.clone());
                self.at.insert(pos, n);
                u64::from(n)
            }
        }
    }
    /// Where `x`'s number is in `at` (or would go).
    fn find(&self, x: &T) -> Result<usize, usize> {
        self.at.binary_search_by(|&n| self.items[n as usize].cmp(x))
    }
    /// The value numbered `n`.
    pub(super) fn get(&self, n: u64) -> T {
        self.items[n as usize].clone()
    }
    fn shrink_to_fit(&mut self) {
        self.at = Vec::new();
        self.items.shrink_to_fit();
    }
}

/// Phase 58's six slots of every buffer step, as bytes of their own: each buffer step's
/// slots are the slots that differ from the previous buffer step's (all six every
/// [`Slots::EVERY`] steps, which bounds a read), a MOV's text written once, where it
/// first shows, and named by where it sits afterwards.
///
/// ```text
///  slots# = full? (slot value)*     value = 0 empty | 1 first [second]
///  first, second = 0 "text" (new) | 1 + where an earlier text sits
/// ```
#[derive(Clone, Default)]
struct Slots {
    bytes: Vec<u8>,
    starts: Vec<u32>,
    /// The last buffer step's slots, each text with where it sits in `bytes`.
    last: [Option<(Placed, Option<Placed>)>; 6],
}

/// A MOV's text and where it sits in [`Slots::bytes`].
type Placed = (String, u32);

/// One slot as a buffer step shows it.
type Shown = Option<(SharedText, Option<SharedText>)>;

impl Slots {
    const EVERY: usize = 16;

    /// Writes `slots` (one more buffer step); its number.
    fn put(&mut self, slots: &GoSlots) -> u64 {
        let n = self.starts.len();
        room_for(&mut self.starts, 1);
        room_for(&mut self.bytes, 64);
        self.starts.push(self.bytes.len() as u32);
        let mut w = Bytes(core::mem::take(&mut self.bytes));
        let full = n.is_multiple_of(Self::EVERY);
        w.num(u64::from(full));
        for (k, now) in slots.iter().enumerate() {
            let was = &self.last[k];
            let same = match (now, was) {
                (None, None) => true,
                (Some((a, b)), Some((x, y))) => {
                    a.as_str() == x.0 && b.as_ref().map(|b| b.as_str()) == y.as_ref().map(|y| &*y.0)
                }
                _ => false,
            };
            if same && !full {
                continue;
            }
            w.num(k as u64);
            let Some((first, second)) = now else {
                w.num(0);
                self.last[k] = None;
                continue;
            };
            w.num(1 + u64::from(second.is_some()));
            let first = self.text(&mut w, first);
            let second = second.as_ref().map(|t| self.text(&mut w, t));
            self.last[k] = Some((first, second));
        }
        w.num(u64::from(u8::MAX));
        self.bytes = w.0;
        n as u64
    }

    /// Writes a reference to `t` (or `t` itself when no slot of the last step holds it).
    fn text(&self, w: &mut Bytes, t: &SharedText) -> (String, u32) {
        let mut known =
            (self.last.iter().flatten()).flat_map(|(a, b)| core::iter::once(a).chain(b));
        if let Some((s, at)) = known.find(|(s, _)| s == t.as_str()) {
            w.num(u64::from(*at) + 1);
            return (s.clone(), *at);
        }
        w.num(0);
        let at = w.0.len() as u32;
        w.text(t.as_str());
        (String::from(t.as_str()), at)
    }

    /// The slots buffer step `n` showed.
    fn get(&self, n: usize) -> GoSlots {
        let first = n - n % Self::EVERY;
        let mut slots = GoSlots::default();
        // The texts read so far by where they sit: a few dozen at most (sixteen steps'
        // six slots), so a list searched in order.
        let mut texts: Vec<(u32, SharedText)> = Vec::new();
        for m in first..=n {
            let mut r = Reader::starting_at(&self.bytes, self.starts[m] as usize);
            r.num();
            loop {
                let k = r.num() as usize;
                if k >= GoSlots::LEN {
                    break;
                }
                let value: Shown = match r.num() {
                    0 => None,
                    v => {
                        let first = self.read_text(&mut r, &mut texts);
                        let second = (v == 2).then(|| self.read_text(&mut r, &mut texts));
                        Some((first, second))
                    }
                };
                slots = slots.with(k, value);
            }
        }
        slots
    }

    fn read_text(&self, r: &mut Reader<'_>, texts: &mut Vec<(u32, SharedText)>) -> SharedText {
        let at = match r.num() {
            0 => {
                let at = r.pos() as u32;
                r.str();
                at
            }
            at => (at - 1) as u32,
        };
        if let Some((_, text)) = texts.iter().find(|e| e.0 == at) {
            return text.clone();
        }
        let text = SharedText::new(Reader::starting_at(&self.bytes, at as usize).text());
        texts.push((at, text.clone()));
        text
    }
}

/// The range bases of a log's coalescing decisions: a decision names its base by
/// number, and the decisions about one register, which share a base and mostly come
/// one after another, name one entry (an entry is a shared pointer: a base named again
/// after another costs one more pointer, never a copy of the range).
#[derive(Clone, Default)]
pub(super) struct Bases(Vec<RangeBase>);

impl Bases {
    pub(super) fn number(&mut self, b: &RangeBase) -> u64 {
        if self.0.last() != Some(b) {
            room_for(&mut self.0, 1);
            self.0.push(b.clone());
        }
        self.0.len() as u64 - 1
    }
    pub(super) fn get(&self, n: u64) -> RangeBase {
        self.0[n as usize].clone()
    }
}

impl Tables {
    /// Gives back the tables' spare room, and the lookups that only pushing needs
    /// (rebuilt if a step is pushed again).
    pub(super) fn shrink_to_fit(&mut self) {
        self.kinds.shrink_to_fit();
        self.templates.shrink_to_fit();
        self.bases.0.shrink_to_fit();
        self.payloads.shrink_to_fit();
        self.lists.shrink_to_fit();
        self.slots.bytes.shrink_to_fit();
        self.slots.starts.shrink_to_fit();
    }

    /// The tables, each named (see [`super::StepList::into_parts`]).
    pub(super) fn into_parts(self) -> [(&'static str, Box<dyn core::any::Any>); 6] {
        [
            ("kinds", Box::new(self.kinds)),
            ("templates", Box::new(self.templates)),
            ("range bases", Box::new(self.bases)),
            ("side payloads", Box::new(self.payloads)),
            ("side lists", Box::new(self.lists)),
            ("phase 58 slots", Box::new(self.slots)),
        ]
    }
}

/// Appends `s`'s record to `w`.
pub(super) fn put(w: &mut Bytes, s: Step, t: &mut Tables) {
    w.num(t.kinds.number(&s.kind.as_str()));
    let mut args = Vec::new();
    let template = s.narration.parts(&mut args);
    w.num(t.templates.number(&template));
    w.bytes(&args);
    put_lists(w, s.lists, t);
    put_payload(w, s.payload, t);
}

/// Step `r` holds the record of.
pub(super) fn get(r: &mut Reader<'_>, t: &Tables) -> Step {
    let (kind, narration) = head(r, t);
    let lists = match r.num() {
        0 => None,
        1 => Some(Box::new(t.lists[r.num() as usize].clone())),
        tag => Some(Box::new(read_lists(r, t, tag))),
    };
    Step {
        kind,
        narration,
        payload: get_payload(r, t),
        lists,
    }
}

/// `f` of the lists of the step `r` holds the record of (no step built: what replay
/// reads).
pub(super) fn with_lists<R>(r: &mut Reader<'_>, t: &Tables, f: impl FnOnce(&StepLists) -> R) -> R {
    r.num();
    r.num();
    r.bytes();
    match r.num() {
        0 => f(&StepLists::NONE),
        1 => f(&t.lists[r.num() as usize]),
        tag => f(&read_lists(r, t, tag)),
    }
}

fn head(r: &mut Reader<'_>, t: &Tables) -> (Kind, Narration) {
    let kind = Kind::new(t.kinds.get(r.num()));
    let template = t.templates.get(r.num());
    (kind, Narration::from_parts(&template, r.bytes()))
}

/// Which of a step's lists `l` holds, one bit each (focus 1, edits 2, ORI edits 4,
/// PTX edits 8).
fn present(l: &StepLists) -> u64 {
    let empty = [
        l.focus.is_empty(),
        l.edits.is_empty(),
        l.ori_edits.is_empty(),
        l.ptx_edits.is_empty(),
    ];
    (0..4).filter(|&k| !empty[k]).map(|k| 1 << k).sum()
}

fn put_lists(w: &mut Bytes, lists: Option<Box<StepLists>>, t: &mut Tables) {
    let Some(l) = lists.filter(|l| !l.is_empty()) else {
        return w.num(0);
    };
    let stmts = (l.ptx_edits.iter()).all(|e| matches!(e, PtxEdit::Stmt { .. }));
    if !(l.edits.iter().all(packable) && stmts) {
        w.num(1);
        w.num(t.lists.len() as u64);
        room_for(&mut t.lists, 1);
        return t.lists.push(*l);
    }
    let has = present(&l);
    w.num(1 + has);
    put_if(w, t, has & 1, &l.focus);
    put_if(w, t, has & 2, &l.edits);
    put_if(w, t, has & 4, &l.ori_edits);
    put_if(w, t, has & 8, &l.ptx_edits);
}

fn put_if<T: Field>(w: &mut Bytes, t: &mut Tables, has: u64, x: &T) {
    if has != 0 {
        x.put(w, t);
    }
}

fn get_if<T: Field + Default>(r: &mut Reader<'_>, t: &Tables, has: u64) -> T {
    if has == 0 {
        return T::default();
    }
    T::get(r, t)
}

/// The lists [`put_lists`] wrote with `tag` (2 or more).
fn read_lists(r: &mut Reader<'_>, t: &Tables, tag: u64) -> StepLists {
    let has = tag - 1;
    StepLists {
        focus: get_if(r, t, has & 1),
        edits: get_if(r, t, has & 2),
        ori_edits: get_if(r, t, has & 4),
        ptx_edits: get_if(r, t, has & 8),
    }
}

impl Field for Focus {
    fn put(&self, w: &mut Bytes, _: &mut Tables) {
        let (tag, n) = match *self {
            Focus::Inst { inst } => (0, inst),
            Focus::VReg { vreg } => (1, vreg),
            Focus::Block { block } => (2, block),
            Focus::DagNode { number } => (3, number),
        };
        w.num(tag);
        w.num(u64::from(n));
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        let (tag, n) = (r.num(), r.u32());
        match tag {
            0 => Focus::Inst { inst: n },
            1 => Focus::VReg { vreg: n },
            2 => Focus::Block { block: n },
            _ => Focus::DagNode { number: n },
        }
    }
}

impl Field for Edit {
    fn put(&self, w: &mut Bytes, _: &mut Tables) {
        put_edit(w, self);
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        read_edit(r)
    }
}

impl Field for OriEdit {
    fn put(&self, w: &mut Bytes, _: &mut Tables) {
        put_ori_edit(w, self);
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        read_ori_edit(r)
    }
}

/// A PTX statement edit (the other PTX edits are rare: a list holding one is kept whole).
impl Field for PtxEdit {
    fn put(&self, w: &mut Bytes, t: &mut Tables) {
        let PtxEdit::Stmt { depth, stmt } = self else {
            unreachable!("only statements are written as bytes")
        };
        depth.put(w, t);
        w.bytes(stmt.bytes());
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        PtxEdit::Stmt {
            depth: r.u32(),
            stmt: PackedStmt::from_bytes(r.bytes()),
        }
    }
}

/// Whether `e` has a byte form (a list holding one that has not is kept whole).
fn packable(e: &Edit) -> bool {
    !matches!(
        e,
        Edit::Replace {
            change: Change::Operands(_),
            ..
        } | Edit::SetClass { .. }
            | Edit::SetLiveins { .. }
    )
}

fn put_inst(w: &mut Bytes, i: Inst) {
    w.num(i.index() as u64);
}

fn put_edit(w: &mut Bytes, e: &Edit) {
    match e {
        Edit::Insert {
            block,
            before,
            inst,
            data,
        } => {
            w.num(0);
            put_inst(w, *inst);
            w.opt(before.expand().map(|b| b.index() as u32));
            w.num(u64::from(*block));
            w.bytes(data.bytes());
        }
        Edit::Erase { inst } => {
            w.num(1);
            put_inst(w, *inst);
        }
        Edit::Replace { inst, change } => {
            w.num(2);
            put_inst(w, *inst);
            put_change(w, change);
        }
        Edit::Move {
            inst,
            before,
            block,
        } => {
            w.num(3);
            put_inst(w, *inst);
            w.opt(before.map(|b| b.index() as u32));
            w.num(u64::from(*block));
        }
        Edit::SetProps { no_phis, is_ssa } => {
            w.num(4);
            w.num(u64::from(*no_phis) | u64::from(*is_ssa) << 1);
        }
        Edit::SplitEdge { pred, succ, block } => {
            w.num(5);
            for v in [*pred, *succ, *block] {
                w.num(u64::from(v));
            }
        }
        Edit::Intern { sym, name } => {
            w.num(6);
            w.num(u64::from(*sym));
            w.text(name);
        }
        Edit::LiveFlags { insts } => {
            w.num(7);
            w.bytes(insts.as_packed());
        }
        Edit::DropKills { insts } => {
            w.num(8);
            w.bytes(insts.as_packed());
        }
        Edit::SetClass { .. } | Edit::SetLiveins { .. } => unreachable!("kept whole"),
    }
}

fn put_change(w: &mut Bytes, c: &Change) {
    match c {
        Change::Flags(l) => {
            w.num(0);
            w.list(l, |w, &(k, a, b)| {
                for v in [k, u32::from(a), u32::from(b)] {
                    w.num(u64::from(v));
                }
            });
        }
        Change::Flag(k, a, b) => {
            w.num(1);
            for v in [*k, u32::from(*a), u32::from(*b)] {
                w.num(u64::from(v));
            }
        }
        Change::Whole(d) => {
            w.num(2);
            w.bytes(PackedInst::pack(&d.0).bytes());
            w.bytes(PackedInst::pack(&d.1).bytes());
        }
        Change::Rename { ops, from, to } => {
            w.num(3);
            for v in [*ops, *from, *to] {
                w.num(u64::from(v));
            }
        }
        Change::FlagBits { ops, bits, set } => {
            w.num(4);
            for v in [*ops, u32::from(*bits), u32::from(*set)] {
                w.num(u64::from(v));
            }
        }
        Change::Operands(_) => unreachable!("kept whole"),
    }
}

fn read_edit(r: &mut Reader<'_>) -> Edit {
    let inst = |r: &mut Reader<'_>| Inst::new(r.num() as usize);
    match r.num() {
        0 => Edit::Insert {
            inst: inst(r),
            before: r.opt().map(|b| Inst::new(b as usize)).into(),
            block: r.u32(),
            data: PackedInst::from_bytes(r.bytes()),
        },
        1 => Edit::Erase { inst: inst(r) },
        2 => Edit::Replace {
            inst: inst(r),
            change: read_change(r),
        },
        3 => Edit::Move {
            inst: inst(r),
            before: r.opt().map(|b| Inst::new(b as usize)),
            block: r.u32(),
        },
        4 => {
            let flags = r.num();
            Edit::SetProps {
                no_phis: flags & 1 == 1,
                is_ssa: flags & 2 == 2,
            }
        }
        5 => Edit::SplitEdge {
            pred: r.u32(),
            succ: r.u32(),
            block: r.u32(),
        },
        6 => Edit::Intern {
            sym: r.u32(),
            name: r.str().into(),
        },
        7 => Edit::LiveFlags {
            insts: InstSeq::from_packed(r.bytes()),
        },
        _ => Edit::DropKills {
            insts: InstSeq::from_packed(r.bytes()),
        },
    }
}

fn read_change(r: &mut Reader<'_>) -> Change {
    match r.num() {
        0 => Change::Flags(List::from(
            r.list(|r| (r.u32(), r.num() as u16, r.num() as u16)),
        )),
        1 => Change::Flag(r.u32(), r.num() as u16, r.num() as u16),
        2 => {
            let old = PackedInst::from_bytes(r.bytes()).unpack();
            let new = PackedInst::from_bytes(r.bytes()).unpack();
            Change::Whole(Box::new((old, new)))
        }
        3 => Change::Rename {
            ops: r.u32(),
            from: r.u32(),
            to: r.u32(),
        },
        _ => Change::FlagBits {
            ops: r.u32(),
            bits: r.num() as u16,
            set: r.num() == 1,
        },
    }
}

fn put_ori_edit(w: &mut Bytes, e: &OriEdit) {
    let id = |w: &mut Bytes, x: usize| w.num(x as u64);
    match e {
        OriEdit::Insert {
            block,
            inst,
            index,
            data,
        } => {
            w.num(0);
            id(w, inst.index());
            id(w, block.index());
            w.num(u64::from(*index));
            w.bytes(data.bytes());
        }
        OriEdit::Erase { inst, block } => {
            w.num(1);
            id(w, inst.index());
            id(w, block.index());
        }
        OriEdit::RewriteOperand {
            inst,
            operand: k,
            new,
        } => {
            w.num(2);
            id(w, inst.index());
            w.num(u64::from(*k));
            operand(w, new);
        }
        OriEdit::SetMark {
            inst,
            operand,
            before,
            after,
            ty,
        } => {
            w.num(3);
            id(w, inst.index());
            for v in [*operand, *before, *after, u32::from(*ty)] {
                w.num(u64::from(v));
            }
        }
        OriEdit::Replace { inst, new } => {
            w.num(4);
            id(w, inst.index());
            w.bytes(PackedOriInst::new(new).bytes());
        }
        OriEdit::SetLayout { block, insts } => {
            w.num(5);
            id(w, block.index());
            w.list(insts, |w, i| id(w, i.index()));
        }
        OriEdit::AddBlock { block, label } => {
            w.num(6);
            id(w, block.index());
            w.num(u64::from(label.is_some()));
            w.text(label.as_deref().unwrap_or(""));
        }
        OriEdit::SetReg { reg, info } => {
            w.num(7);
            id(w, reg.index());
            w.bytes(info.bytes());
        }
    }
}

fn read_ori_edit(r: &mut Reader<'_>) -> OriEdit {
    let tag = r.num();
    let n = r.num() as usize;
    match tag {
        0 => OriEdit::Insert {
            inst: InstId::new(n),
            block: BlockId::new(r.num() as usize),
            index: r.u32(),
            data: PackedOriInst::from_bytes(r.bytes()),
        },
        1 => OriEdit::Erase {
            inst: InstId::new(n),
            block: BlockId::new(r.num() as usize),
        },
        2 => OriEdit::RewriteOperand {
            inst: InstId::new(n),
            operand: r.u32(),
            new: Box::new(read_operand(r)),
        },
        3 => OriEdit::SetMark {
            inst: InstId::new(n),
            operand: r.u32(),
            before: r.u32(),
            after: r.u32(),
            ty: r.num() as u8,
        },
        4 => OriEdit::Replace {
            inst: InstId::new(n),
            new: Box::new(PackedOriInst::from_bytes(r.bytes()).get()),
        },
        5 => OriEdit::SetLayout {
            block: BlockId::new(n),
            insts: r.list(|r| InstId::new(r.num() as usize)).into(),
        },
        6 => {
            let some = r.num() == 1;
            let text = r.str();
            OriEdit::AddBlock {
                block: BlockId::new(n),
                label: some.then(|| text.into()),
            }
        }
        _ => OriEdit::SetReg {
            reg: RegId::new(n),
            info: PackedReg::from_bytes(r.bytes()),
        },
    }
}

fields!(GoCost {
    round,
    weighted,
    unweighted,
    delta,
    threshold
});

/// Whether `p` has a byte form (the others are kept whole, on the side). Every variant
/// is named: a new one must be placed here.
fn packed(p: &Payload) -> bool {
    match p {
        Payload::GoRound { .. }
        | Payload::GoBuffer { .. }
        | Payload::GoMark { .. }
        | Payload::Lowered(_)
        | Payload::Emitted(_)
        | Payload::GoCost(_)
        | Payload::CoalesceDecision(_) => true,
        Payload::None
        | Payload::Counters { .. }
        | Payload::ExtractSubregPair { .. }
        | Payload::PairHalves { .. }
        | Payload::IrSnapshot { .. }
        | Payload::LiveRanges { .. }
        | Payload::TreeChange { .. }
        | Payload::HeapPop { .. }
        | Payload::TiedPair(_)
        | Payload::EmitterNode(_)
        | Payload::EmitterVReg(_)
        | Payload::EmitterLane { .. }
        | Payload::EmitterBit36(_)
        | Payload::EmitterRecord(_)
        | Payload::EmitterFlush { .. } => false,
    }
}

fn put_payload(w: &mut Bytes, p: PayloadBox, t: &mut Tables) {
    let Some(p) = p.into_box() else {
        return w.num(0);
    };
    if !packed(&p) {
        w.num(1);
        w.num(t.payloads.len() as u64);
        room_for(&mut t.payloads, 1);
        return t.payloads.push(PayloadBox::from_box(p));
    }
    match *p {
        Payload::GoRound {
            block,
            phase,
            iteration,
            counters,
            changed,
            capped,
        } => {
            w.num(2);
            w.num(u64::from(phase));
            w.num(block.index() as u64);
            w.num(u64::from(iteration));
            w.bytes(&counters.0);
            w.num(u64::from(changed) | u64::from(capped) << 1);
        }
        Payload::GoBuffer {
            block,
            index,
            slots,
            counters,
        } => {
            w.num(3);
            w.num(block.index() as u64);
            w.num(u64::from(index));
            w.bytes(&counters.0);
            w.num(t.slots.put(&slots));
        }
        Payload::GoMark {
            inst,
            class,
            operand,
            mask,
            before,
            after,
        } => {
            w.num(4);
            w.num(inst.index() as u64);
            for v in [operand, u32::from(class), mask, before, after] {
                w.num(u64::from(v));
            }
        }
        Payload::Lowered(l) => {
            w.num(5);
            w.text(&l.text);
            w.num(u64::from(l.ptx_len));
            w.num(u64::from(l.class));
            w.num(l.ori as u64);
        }
        Payload::Emitted(e) => {
            w.num(6);
            w.text(&e.mir);
            w.num(u64::from(e.first));
            w.num(u64::from(e.count));
        }
        Payload::GoCost(c) => {
            w.num(7);
            c.put(w, t);
        }
        Payload::CoalesceDecision(d) => {
            w.num(8);
            d.put(w, t);
        }
        _ => unreachable!("packed() names only the variants above"),
    }
}

fn get_payload(r: &mut Reader<'_>, t: &Tables) -> PayloadBox {
    let p = match r.num() {
        0 => return PayloadBox::NONE,
        1 => return t.payloads[r.num() as usize].clone(),
        2 => {
            let (phase, block, iteration) = (r.num() as u16, r.num() as usize, r.u32());
            let counters = GoCounters(r.bytes().to_vec().into());
            let flags = r.num();
            Payload::GoRound {
                phase,
                block: BlockId::new(block),
                iteration,
                counters,
                changed: flags & 1 == 1,
                capped: flags & 2 == 2,
            }
        }
        3 => Payload::GoBuffer {
            block: BlockId::new(r.num() as usize),
            index: r.u32(),
            counters: BufferCounters(r.bytes().to_vec().into()),
            slots: t.slots.get(r.num() as usize),
        },
        5 => Payload::Lowered(Lowered {
            text: r.str().into(),
            ptx_len: r.u32(),
            class: r.num() as u16,
            ori: match r.num() {
                0 => OriText::Annotated,
                1 => OriText::ExtendsPtx,
                _ => OriText::Whole,
            },
        }),
        6 => Payload::Emitted(Emitted {
            mir: r.str().into(),
            first: r.u32(),
            count: r.u32(),
        }),
        7 => Payload::GoCost(Field::get(r, t)),
        8 => Payload::CoalesceDecision(Field::get(r, t)),
        _ => Payload::GoMark {
            inst: InstId::new(r.num() as usize),
            operand: r.u32(),
            class: r.num() as u16,
            mask: r.u32(),
            before: r.u32(),
            after: r.u32(),
        },
    };
    PayloadBox::from_box(Box::new(p))
}

/// Whether `a` and `b` hold the same: kind, sentence, payload and lists.
#[cfg(any(test, debug_assertions))]
pub(super) fn same(a: &Step, b: &Step) -> bool {
    a.kind == b.kind && a.narration == b.narration && *a.payload == *b.payload && **a == **b
}

#[cfg(test)]
mod tests {
    use super::super::{GoCounter, GoCounterName, StepList};
    use super::*;
    use crate::ori::{Class, Inst as OriInst, OpKind, Operand, Origin};
    use alloc::string::String;
    use alloc::vec;

    fn add() -> OriInst {
        OriInst {
            class: Class::IntAdd,
            opcode: "add.s32".into(),
            operands: [1, 2, 3]
                .map(|k| Operand::new(OpKind::Reg(RegId::new(k)), 1))
                .into(),
            ndst: 1,
            guard: None,
            origin: Origin::Ptx,
            scope: 0,
            line: 0,
        }
    }

    /// Buffer steps whose slots change one or two at a time, across more than one
    /// full write, read back as recorded (texts moved between slots, emptied, matched).
    #[test]
    fn buffer_slots_read_back_across_full_writes() {
        let text =
            |k: u32| super::super::SharedText::new(alloc::format!("mov.b32 %r{k}, %r{};", k + 1));
        let mut slots = GoSlots::default();
        let mut list = StepList::new();
        let mut kept = Vec::new();
        for k in 0..50u32 {
            let i = (k % 6) as usize;
            let value = match k % 5 {
                0 => None,
                1 => Some((text(k), Some(text(k / 2)))),
                2 => slots.get((i + 1) % 6).clone(),
                _ => Some((text(k), None)),
            };
            slots = slots.with(i, value);
            let p = Payload::GoBuffer {
                block: BlockId::new(0),
                index: k,
                slots: slots.clone(),
                counters: [k; 7].into(),
            };
            list.push(Step::fixed("buffer", "b").payload(p.clone()));
            list.push(Step::fixed("other", "between"));
            kept.push(p);
        }
        for (k, p) in kept.iter().enumerate() {
            assert_eq!(*list.step(2 * k).payload, *p, "buffer step {k}");
        }
    }

    /// One ORI edit of each kind, numbers up to `big`.
    fn ori_samples(big: u32) -> Vec<OriEdit> {
        vec![
            OriEdit::Insert {
                inst: InstId::new(9),
                block: BlockId::new(1),
                index: big,
                data: PackedOriInst::new(&add()),
            },
            OriEdit::Erase {
                inst: InstId::new(big as usize - 1),
                block: BlockId::new(0),
            },
            OriEdit::RewriteOperand {
                inst: InstId::new(4),
                operand: 1,
                new: Box::new(Operand::new(OpKind::Sym("g".into()), 0)),
            },
            OriEdit::SetMark {
                inst: InstId::new(4),
                operand: 0,
                before: 0,
                after: big,
                ty: 255,
            },
            OriEdit::Replace {
                inst: InstId::new(4),
                new: Box::new(add()),
            },
            OriEdit::SetLayout {
                block: BlockId::new(2),
                insts: vec![InstId::new(3), InstId::new(1)].into(),
            },
            OriEdit::AddBlock {
                block: BlockId::new(2),
                label: Some("$L__BB0_2".into()),
            },
            OriEdit::AddBlock {
                block: BlockId::new(3),
                label: None,
            },
        ]
    }

    /// The MIR edits with a byte form, numbers up to `big`.
    fn mir_samples(big: u32, long: &str) -> Vec<Edit> {
        let i = |k: usize| Inst::new(k);
        vec![
            Edit::Erase {
                inst: i(big as usize - 1),
            },
            Edit::Replace {
                inst: i(1),
                change: Change::Flag(2, 0, u16::MAX),
            },
            Edit::Replace {
                inst: i(1),
                change: Change::Flags(vec![(0, 1, 2), (big, 3, 4)].into()),
            },
            Edit::Replace {
                inst: i(1),
                change: Change::Rename {
                    ops: big,
                    from: 3,
                    to: 4,
                },
            },
            Edit::Replace {
                inst: i(1),
                change: Change::FlagBits {
                    ops: 5,
                    bits: 8,
                    set: true,
                },
            },
            Edit::Move {
                inst: i(2),
                before: Some(i(0)),
                block: 3,
            },
            Edit::Move {
                inst: i(2),
                before: None,
                block: big,
            },
            Edit::SetProps {
                no_phis: true,
                is_ssa: false,
            },
            Edit::SplitEdge {
                pred: 1,
                succ: big,
                block: 9,
            },
            Edit::Intern {
                sym: 4,
                name: long.into(),
            },
            Edit::LiveFlags {
                insts: InstSeq::new(&[i(1), i(2), i(3), i(70000)]),
            },
            Edit::DropKills {
                insts: InstSeq::new(&[]),
            },
        ]
    }

    /// Coalescing decisions of every verdict (four kept against one shared range
    /// base, one without ranges) and a round's costs.
    fn decision_samples(big: u32) -> Vec<Payload> {
        use super::super::{CoalesceDecision, DecisionRanges, GoCost, Verdict};
        use crate::liveness::intervals::{Segment, VNInfo};
        use crate::liveness::{LiveRange, SlotIndex};
        let range = |n: u32| {
            let mut r = LiveRange::default();
            for k in 0..n {
                let at = SlotIndex::from_raw;
                let (start, end) = (at(10 * k), at(10 * k + 5));
                r.segments.push(Segment {
                    start,
                    end,
                    valno: k,
                });
                r.valnos.push(VNInfo {
                    def: start,
                    is_phi_def: k % 2 == 1,
                });
            }
            r
        };
        let src = range(1);
        let mut last = None;
        use Verdict::*;
        let verdicts = [Joined, Conflict, Partial, Merged, Interference];
        let mut out: Vec<Payload> = (verdicts.iter().enumerate())
            .map(|(k, &v)| {
                let ranges = DecisionRanges::against(&range(12 + k as u32 % 2), &src, &mut last);
                let lane = (k == 3).then_some(1);
                CoalesceDecision::new((k as u32, big, 3), v, lane, ranges, Some(&src), &[]).into()
            })
            .collect();
        let none = DecisionRanges::none();
        out.push(CoalesceDecision::new((1, 2, 3), Partial, None, none, None, &[]).into());
        let (weighted, unweighted, delta, threshold) = (0.5, 3.0, -1e300, f64::MAX);
        let cost = GoCost {
            round: big,
            weighted,
            unweighted,
            delta,
            threshold,
        };
        out.push(cost.into());
        out
    }

    /// A step adding PTX statements, one in a scope two down.
    fn ptx_step() -> Step {
        use crate::ptx::ast::Stmt;
        let mut s = Step::fixed("ptx", "PTX statements");
        let stmts = [
            (0, Stmt::Label("$L__BB0_1".into())),
            (2, Stmt::Comment("x".into())),
        ];
        s.ptx_edits = (stmts.iter())
            .map(|(d, st)| PtxEdit::stmt(*d, st))
            .collect::<Vec<_>>()
            .into();
        s
    }

    /// Steps with every packed payload, side payloads, every focus kind and ORI edit
    /// kind, MIR edits (kept whole), numbers up to u32::MAX and long sentences read
    /// back equal; the packed parts take no side entry, so they are really bytes.
    #[test]
    fn every_part_reads_back_as_pushed() {
        let big = u32::MAX;
        let long: String = (0..400).map(|k| alloc::format!("%{k} ")).collect();
        let counters: GoCounters = vec![
            GoCounter::new(GoCounterName::Folds, big),
            GoCounter::new(GoCounterName::Promoted, 0),
        ]
        .into();
        let slots = GoSlots::default().with(
            2,
            Some((super::super::SharedText::new("mov.b32 a, b;".into()), None)),
        );
        let packed = [
            Payload::GoRound {
                phase: u16::MAX,
                block: BlockId::new(big as usize - 1),
                iteration: big,
                counters,
                changed: true,
                capped: false,
            },
            Payload::GoBuffer {
                block: BlockId::new(3),
                index: 5,
                slots,
                counters: [big, 0, 1, 127, 128, 300, 7].into(),
            },
            Payload::GoMark {
                inst: InstId::new(70000),
                operand: 2,
                class: 304,
                mask: 0x400,
                before: big,
                after: 0x100,
            },
            Payload::Lowered(Lowered::new("mov.u32 a;", "mov.u32 a;\t// y", 139, "y")),
            Payload::Lowered(Lowered::new("sub.f32 a;", "add.f32 a;", 304, "x")),
            Payload::Emitted(Emitted::new("%0:int32regs = MOV_B32_i 7", 1, big as usize)),
        ];
        let side = [
            Payload::Counters {
                values: vec![("x".into(), -5), ("y".into(), i64::MAX)],
            },
            Payload::IrSnapshot { text: long.clone() },
        ];
        let ori = ori_samples(big);
        let mut steps = vec![
            Step::new("long", long.clone()),
            Step::new("empty", ""),
            Step::new("mark", "a \u{1} and 7 and 0"),
            Step::numbered("numbers", "\u{1} \u{1} \u{1}", &[0, 1, u64::from(big) - 1]),
            Step::fixed("focus", "every focus")
                .focus(Focus::Inst { inst: big })
                .focus(Focus::VReg { vreg: 0 })
                .focus(Focus::Block { block: 7 })
                .focus(Focus::DagNode { number: 12 }),
            Step::fixed("mir", "a MIR edit").edit(crate::trace::Edit::SetClass {
                vreg: crate::mir::VReg::new(3),
                class: None,
            }),
        ];
        let mir = mir_samples(big, &long);
        let mut edits = Step::fixed("edits", "MIR edits");
        for e in mir {
            edits = edits.edit(e);
        }
        steps.push(edits);
        let mut ori_step = Step::fixed("ori", "every ORI edit").focus(Focus::Inst { inst: 1 });
        ori_step.ori_edits = ori.into();
        steps.push(ori_step);
        steps.push(ptx_step());
        let decisions = decision_samples(big);
        for p in packed.iter().chain(&decisions).chain(&side) {
            steps.push(Step::numbered("payload", "step \u{1}", &[9]).payload(p.clone()));
        }
        let list: StepList = steps.iter().cloned().collect();
        assert_eq!(list.len(), steps.len());
        for (k, s) in steps.iter().enumerate() {
            let back = list.step(k);
            assert!(same(&back, s), "{s:?} read back as {back:?}");
            assert_eq!(back.narration.text(), s.narration.text());
        }
        let t = &list.tables;
        // Only the side payloads and the MIR edits' lists are kept whole; the
        // decisions' shared base once.
        assert_eq!((t.payloads.len(), t.lists.len()), (side.len(), 1));
        assert_eq!(t.bases.0.len(), 1);
        // Each kind and template once.
        assert_eq!(t.kinds.items.len(), 10);
        assert!(t.templates.items.len() < steps.len());
    }
}
