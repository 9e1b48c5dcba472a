//! A step's payload as rows of text, `(field, value)`, for the playground's picture
//! panel: each field of the payload as its JSON prints it ([`Step::payload_json`]),
//! in the same order, its value written as a short text rather than as JSON.
//!
//! The JSON goes through serde; these rows do not, so the site's engine wasm holds no
//! serde encoder of the payloads (a derived encoder is large). Every part's [`Show`]
//! is here (the coalescer's decision's rows sit beside its serde form, in
//! `trace/coalesce.rs`) and lays it out as the serde form does; a web-engine test compares
//! the rows with the ones made from the JSON form on every step of real runs.
//!
//! ```text
//!  JSON form                  row value (at the top)       inside a list or object
//!  null                       —                            —
//!  true / false               yes / no                     yes / no
//!  "text"                     text                         "text"
//!  [] (any list)              (none)                       (none)
//!  [a, b]                     a, b                         (a, b)
//!  {"k": v, ...}              {k: v, ...}                  {k: v, ...}
//!  1.5, 2 (a float)           1.5, 2.0 (NaN, ±inf: —)      the same
//! ```

use super::interval_tree::{Color, Side, TreeEvent, TreeEvents};
use super::{Payload, Step};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Write};

/// A part of a payload that writes itself as a row's value (see the module's table).
pub trait Show {
    fn show(&self, w: &mut Writer);
}

/// A row's value being written. Lists and objects stop taking items once the text is
/// longer than `limit` (the reader cuts it there).
pub struct Writer {
    out: String,
    /// Writing the row's value itself, not a part inside a list or object.
    top: bool,
    limit: usize,
}

/// A list or object being written: where it starts, how many items it has, and
/// whether it is the row's value itself.
pub struct Open {
    at: usize,
    items: usize,
    top: bool,
}

impl Writer {
    /// A text: bare as the row's value, quoted inside a list or object.
    pub fn text(&mut self, s: &str) {
        self.display(&s);
    }

    /// What `d` displays, as a [`Writer::text`].
    pub fn display(&mut self, d: &dyn fmt::Display) {
        let quote = !self.top;
        if quote {
            self.out.push('"');
        }
        let _ = write!(self.out, "{d}");
        if quote {
            self.out.push('"');
        }
    }

    pub fn null(&mut self) {
        self.out.push('—');
    }

    pub fn int(&mut self, n: i64) {
        let _ = write!(self.out, "{n}");
    }

    pub fn uint(&mut self, n: u64) {
        let _ = write!(self.out, "{n}");
    }

    /// A float as JSON writes it: a whole number keeps its `.0`; NaN and infinities,
    /// which JSON cannot hold, are null.
    pub fn float(&mut self, x: f64) {
        if !x.is_finite() {
            return self.null();
        }
        let start = self.out.len();
        let _ = write!(self.out, "{x}");
        if !self.out[start..].contains('.') {
            self.out.push_str(".0");
        }
    }

    /// Starts a list; [`Writer::item`] before each item, [`Writer::close_list`] after.
    pub fn open_list(&mut self) -> Open {
        let open = Open {
            at: self.out.len(),
            items: 0,
            top: self.top,
        };
        if !open.top {
            self.out.push('(');
        }
        self.top = false;
        open
    }

    /// Makes room for the next item of `open`; false when the text is long enough.
    pub fn item(&mut self, open: &mut Open) -> bool {
        if self.out.len() > self.limit {
            return false;
        }
        if open.items > 0 {
            self.out.push_str(", ");
        }
        open.items += 1;
        true
    }

    pub fn close_list(&mut self, open: Open) {
        self.top = open.top;
        if open.items == 0 {
            self.out.truncate(open.at);
            self.out.push_str("(none)");
        } else if !open.top {
            self.out.push(')');
        }
    }

    /// A list of `items`.
    pub fn list<T: Show>(&mut self, items: impl IntoIterator<Item = T>) {
        let mut open = self.open_list();
        for x in items {
            if !self.item(&mut open) {
                break;
            }
            x.show(self);
        }
        self.close_list(open);
    }

    /// An object: `fields` in order, as `{name: value, ...}`.
    pub fn object(&mut self, fields: &[(&str, &dyn Show)]) {
        let top = core::mem::replace(&mut self.top, false);
        self.out.push('{');
        for (k, (name, v)) in fields.iter().enumerate() {
            if self.out.len() > self.limit {
                break;
            }
            if k > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(name);
            self.out.push_str(": ");
            v.show(self);
        }
        self.out.push('}');
        self.top = top;
    }
}

/// Each field's value as a row's text, named as `names` says in the same order, longer
/// than `limit` only where a list or object stopped past it, or a text was written
/// whole (an IR snapshot's).
pub fn rows(
    names: &[&'static str],
    values: &[&dyn Show],
    limit: usize,
) -> Vec<(&'static str, String)> {
    (names.iter().zip(values))
        .map(|(name, v)| {
            let mut w = Writer {
                out: String::new(),
                top: true,
                limit,
            };
            v.show(&mut w);
            (*name, w.out)
        })
        .collect()
}

impl Show for u8 {
    fn show(&self, w: &mut Writer) {
        w.uint(u64::from(*self));
    }
}

impl Show for u16 {
    fn show(&self, w: &mut Writer) {
        w.uint(u64::from(*self));
    }
}

impl Show for u32 {
    fn show(&self, w: &mut Writer) {
        w.uint(u64::from(*self));
    }
}

impl Show for u64 {
    fn show(&self, w: &mut Writer) {
        w.uint(*self);
    }
}

impl Show for i64 {
    fn show(&self, w: &mut Writer) {
        w.int(*self);
    }
}

impl Show for f64 {
    fn show(&self, w: &mut Writer) {
        w.float(*self);
    }
}

impl Show for bool {
    fn show(&self, w: &mut Writer) {
        w.out.push_str(if *self { "yes" } else { "no" });
    }
}

impl Show for str {
    fn show(&self, w: &mut Writer) {
        w.text(self);
    }
}

impl Show for String {
    fn show(&self, w: &mut Writer) {
        w.text(self);
    }
}

impl<T: Show + ?Sized> Show for &T {
    fn show(&self, w: &mut Writer) {
        (**self).show(w);
    }
}

impl<T: Show + ?Sized> Show for alloc::boxed::Box<T> {
    fn show(&self, w: &mut Writer) {
        (**self).show(w);
    }
}

impl<T: Show> Show for Option<T> {
    fn show(&self, w: &mut Writer) {
        match self {
            Some(x) => x.show(w),
            None => w.null(),
        }
    }
}

impl<T: Show> Show for [T] {
    fn show(&self, w: &mut Writer) {
        w.list(self);
    }
}

impl<T: Show, const N: usize> Show for [T; N] {
    fn show(&self, w: &mut Writer) {
        w.list(self);
    }
}

impl<T: Show> Show for Vec<T> {
    fn show(&self, w: &mut Writer) {
        w.list(self);
    }
}

impl<T: Show> Show for super::List<T> {
    fn show(&self, w: &mut Writer) {
        w.list(&**self);
    }
}

/// A pair is a list of two, as in its JSON.
impl<A: Show, B: Show> Show for (A, B) {
    fn show(&self, w: &mut Writer) {
        let mut open = w.open_list();
        if w.item(&mut open) {
            self.0.show(w);
        }
        if w.item(&mut open) {
            self.1.show(w);
        }
        w.close_list(open);
    }
}

/// The rows of `name => value, ...` (each value a reference to something [`Show`]):
/// the names are one constant list, the values a list of references made on the spot.
macro_rules! fields {
    ($limit:expr; $($name:literal => $v:expr),* $(,)?) => {
        $crate::trace::show::rows(
            &[$($name),*],
            &[$($v as &dyn $crate::trace::show::Show),*],
            $limit,
        )
    };
}
pub(super) use fields;

/// `payload_rows`' match: a struct variant's rows are its fields (`Variant "type"
/// { field, ... }`), a boxed struct's the box's fields, then the other arms as written.
macro_rules! by_fields {
    ($p:expr, $n:expr;
     fields { $($v:ident $k:literal { $($f:ident),* })* }
     boxed { $($bv:ident $bk:literal { $($bf:ident),* })* }
     $($rest:tt)*) => {
        match $p {
            $(Payload::$v { $($f),* } => (
                $k,
                rows(&[$(stringify!($f)),*], &[$($f as &dyn Show),*], $n),
            ),)*
            $(Payload::$bv(b) => (
                $bk,
                rows(&[$(stringify!($bf)),*], &[$(&b.$bf as &dyn Show),*], $n),
            ),)*
            $($rest)*
        }
    };
}

impl Step {
    /// The payload's type name (its JSON's `type`) and one row per other field, in
    /// order, as [`Step::payload_json`] prints them (`limit` as the `show` module's `Writer` reads it).
    pub fn payload_rows(&self, limit: usize) -> (&'static str, Vec<(&'static str, String)>) {
        let n = limit;
        by_fields! { &*self.payload, n;
            fields {
                Counters "counters" { values }
                ExtractSubregPair "extract_subreg_pair" {
                    pseudo, pair, pairs, def, src, lane, hint_tied, hint_early_tied,
                    tie_marked, kill_moved, lv_updates, lv_steps
                }
                PairHalves "pair_halves" { wide, low, high, rows }
                IrSnapshot "ir_snapshot" { text }
                LiveRanges "live_ranges" { rows, registers }
                TreeChange "tree_change" { events, tree, rotations }
                HeapPop "heap_pop" { copy, dst, src, weight, heap, secondary }
                GoRound "go_round" { phase, block, iteration, counters, changed, capped }
                GoMark "go_mark" { inst, operand, class, mask, before, after }
                GoBuffer "go_buffer" { block, index, slots, counters }
                EmitterLane "emitter_lane" {
                    pseudo, pair, lanes, def, src, result, hint_tied, hint_early_tied
                }
                EmitterFlush "emitter_flush" { erased, rewritten, liveins_dropped }
            }
            boxed {
                TiedPair "tied_pair" { inst, use_idx, def_idx, src, dst, attempts, resolved_by }
                GoCost "go_cost" { round, weighted, unweighted, delta, threshold }
                EmitterVReg "emitter_v_reg" {
                    vreg, inst_class, type_class, divergent, chosen, reused
                }
                EmitterRecord "emitter_record" {
                    index, inst, opcode, hook, src, dst, inline_fold, candidate, uses,
                    verdict, reason
                }
            }
            Payload::None => ("none", Vec::new()),
            Payload::CoalesceDecision(d) => ("coalesce_decision", d.rows(n)),
            Payload::Emitted(e) => {
                let ptx = e.ptx(&self.ptx_edits);
                ("emitted", fields!(n; "mir" => &e.mir(), "ptx" => &ptx))
            }
            Payload::Lowered(l) => (
                "lowered",
                fields!(n; "ptx" => &l.ptx(), "ori" => &[l.ori(&self.ori_edits)],
                    "classes" => &[l.class()]),
            ),
            Payload::EmitterNode(e) => (
                "emitter_node",
                fields!(n; "node" => &NodeName(e.node), "opcode" => &e.op.name(),
                    "isd" => &e.op.spec_number(), "handler" => &e.handler,
                    "insts" => &e.insts),
            ),
            Payload::EmitterBit36(b) => (
                "emitter_bit36",
                fields!(n; "node" => &NodeName(b.node), "guard" => &b.guard, "flag" => &b.flag,
                    "skipped" => &b.skipped, "reused" => &b.reused),
            ),
        }
    }
}

/// ORI blocks and instructions: their numbers.
impl Show for crate::ori::BlockId {
    fn show(&self, w: &mut Writer) {
        w.uint(u64::from(self.as_u32()));
    }
}

impl Show for crate::ori::InstId {
    fn show(&self, w: &mut Writer) {
        w.uint(u64::from(self.as_u32()));
    }
}

/// A DAG node's name, `tN`.
struct NodeName(u32);

impl Show for NodeName {
    fn show(&self, w: &mut Writer) {
        w.display(&format_args!("t{}", self.0));
    }
}

/// Parts printed as their text (what they display).
macro_rules! shown_as_text {
    ($($ty:ty),*) => {$(
        impl Show for $ty {
            fn show(&self, w: &mut Writer) {
                w.display(self);
            }
        }
    )*};
}

shown_as_text!(
    super::RegText,
    super::ClassText,
    super::NumberedText,
    super::TieAttempt,
    super::LvStep
);

/// [`Show`] for structs printed as an object of the fields named, in order.
macro_rules! shown_as_object {
    ($($ty:ty { $($f:ident),* })*) => {$(
        impl Show for $ty {
            fn show(&self, w: &mut Writer) {
                w.object(&[$((stringify!($f), &self.$f)),*]);
            }
        }
    )*};
}

shown_as_object! {
    super::SegmentView { start, end, valno }
    super::RangeView { reg, segments }
    super::interval_tree::Interval { start, end, key }
    super::interval_tree::TreeSnapshot { root, nodes, len, min, max }
    super::interval_tree::SnapshotNode { id, interval, color, left, right, max_end }
}

impl Show for super::SharedText {
    fn show(&self, w: &mut Writer) {
        w.text(self.as_str());
    }
}

impl Show for super::LvSteps {
    fn show(&self, w: &mut Writer) {
        w.list(self.iter());
    }
}

/// A round's counters: each `(name, value)`.
impl Show for super::GoCounters {
    fn show(&self, w: &mut Writer) {
        w.list(self.iter().map(|c| (c.name(), c.value())));
    }
}

/// Phase 58's seven counters: each `(name, value)`.
impl Show for super::BufferCounters {
    fn show(&self, w: &mut Writer) {
        let names = super::GO_BUFFER_COUNTERS.iter();
        w.list(names.zip(self.get()).map(|(n, v)| (*n, v)));
    }
}

impl Show for super::GoSlots {
    fn show(&self, w: &mut Writer) {
        w.list(self.iter());
    }
}

impl Show for super::interval_tree::NodeId {
    fn show(&self, w: &mut Writer) {
        self.0.show(w);
    }
}

impl Show for Color {
    fn show(&self, w: &mut Writer) {
        w.text(match self {
            Color::Red => "red",
            Color::Black => "black",
        });
    }
}

impl Show for Side {
    fn show(&self, w: &mut Writer) {
        w.text(match self {
            Side::Left => "left",
            Side::Right => "right",
        });
    }
}

/// An event: an object whose `event` names it, then its fields.
impl Show for TreeEvent {
    fn show(&self, w: &mut Writer) {
        match self {
            TreeEvent::Insert { node, interval } => {
                w.object(&[("event", &"insert"), ("node", node), ("interval", interval)])
            }
            TreeEvent::Remove { node, interval } => {
                w.object(&[("event", &"remove"), ("node", node), ("interval", interval)])
            }
            TreeEvent::Rotate { pivot, side } => {
                w.object(&[("event", &"rotate"), ("pivot", pivot), ("side", side)])
            }
            TreeEvent::Recolor { node, color } => {
                w.object(&[("event", &"recolor"), ("node", node), ("color", color)])
            }
        }
    }
}

impl Show for TreeEvents {
    fn show(&self, w: &mut Writer) {
        w.list(self.as_slice());
    }
}
