//! Pass traces: what a pass did, step by step, so the playground can replay it.
//!
//! ```text
//!  pass(fn, opts, rec: &mut impl Recorder) ──▶ rec.step(|| Step { kind, narration, focus, edits, payload })
//!  PassTrace { stage, input: printed IR, steps, output: printed IR }   (one per stage run)
//!  Player::seek(k) = nearest checkpoint ≤ k, then replay the edits of the steps in between
//! ```
//!
//! Invariants: a pass mutates the function only in ways its recorded [`Edit`]s describe,
//! in the same order, so replaying every edit of a pass from its input reproduces its
//! output exactly (tests check this for every pass); with [`NoTrace`] the closures passed
//! to [`Recorder::step`] are never called, so tracing off costs nothing.
//!
//! Storage (issue 31, the bytes a trace holds per step): a trace keeps its steps as
//! bytes ([`StepList`]) and gives them back as [`Step`]s, decoded on reading.
//!
//! ```text
//!  StepList { arena: record record record ...      (one byte array, grown by an eighth)
//!             starts: u32 per step                 (where each record starts)
//!             tables: kinds, templates             (each once; records name them by number)
//!                     side payloads, side lists    (parts with no byte form, kept whole)
//!                     range bases, phase 58 slots  (shared by many records) }
//!  record = kind# template# numbers lists payload  (record.rs: LEB128 fields)
//!  Step (decoded, 48 B) = Kind (&'static str), Narration (template + 8 number bytes),
//!                         payload box, lists box (each only when there is one)
//! ```

mod coalesce;
mod compact;
mod edit;
mod editor;
mod field;
pub mod interval_tree;
pub mod module_bytes;
mod narration;
mod packed;
mod player;
mod record;
mod show;
mod steps;

pub use coalesce::{CoalesceDecision, ConflictAt, DecisionRanges, RangeNumbers, Verdict};
pub use compact::{GoSlot, GoSlots, List, PayloadBox, SharedText};
pub use narration::{Kind, Narration, Templates};
pub use packed::{ClassText, LvStep, LvSteps, NumberedText, PackedInst, RegText, TieAttempt};

pub use crate::error::ReplayError;
pub use edit::{apply_edit, Change, Edit, EditRef, InstSeq};
pub use editor::{record, Editor};
pub use player::{redo_edit, Checkpoints, Copies, Player, CHECKPOINT_EVERY};
pub use steps::{StepIter, StepList, Steps};

use crate::liveness::LiveRange;
use crate::mir::{Inst, VReg};
use crate::stages::Stage;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// Something a step points at, for highlighting.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Focus {
    Inst {
        inst: u32,
    },
    VReg {
        vreg: u32,
    },
    Block {
        block: u32,
    },
    /// A node of the selected DAG, by its `tN` number.
    DagNode {
        number: u32,
    },
}

impl Focus {
    pub fn inst(i: Inst) -> Self {
        Focus::Inst {
            inst: cranelift_entity::EntityRef::index(i) as u32,
        }
    }
    pub fn vreg(v: VReg) -> Self {
        Focus::VReg {
            vreg: cranelift_entity::EntityRef::index(v) as u32,
        }
    }
}

/// One recorded step of a pass, as a [`StepList`] gives it back (which keeps it as bytes): the kind
/// as a string of the program ([`Kind`]), the narration as a shared template and its numbers
/// inline ([`Narration`]), the payload behind a pointer of its own ([`PayloadBox`]:
/// nothing stored when there is none) and the lists ([`StepLists`]: focus and edits,
/// which most steps have few of) behind one optional box. The lists read and write as
/// fields of the step (`step.edits`, ...: `Step` derefs to [`StepLists`]; writing one
/// makes the box). The payload is apart from the lists so that a step with a payload
/// and no list (every GeneralOptimize round, most coalescer tree steps) holds no list
/// box: 8 bytes more in the step, 32 less in the box it no longer needs.
#[derive(Clone)]
pub struct Step {
    /// A stable snake_case id of what happened (`extract_subreg_copy`, `commute`, ...).
    pub kind: Kind,
    /// One sentence for a reader, in our own words (`narration.text()`).
    pub narration: Narration,
    /// Pass-specific data for the pictures, as JSON-ready values.
    pub payload: PayloadBox,
    lists: Option<alloc::boxed::Box<StepLists>>,
}

/// The lists a step holds besides its kind, sentence and payload (see [`Step`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StepLists {
    pub focus: List<Focus>,
    /// The IR edits this step made, in order.
    pub edits: List<Edit>,
    /// The same for the ORI stages (ptx-lower, GeneralOptimize): filled by the
    /// recorder from what changed since the previous step ([`Recorder::ori_step`]).
    pub ori_edits: List<crate::ori::edit::OriEdit>,
    /// The same for ptx-emit: what the step added to the PTX output
    /// ([`crate::ptx::edit`]); left out of the JSON when empty.
    pub ptx_edits: List<crate::ptx::edit::PtxEdit>,
}

impl StepLists {
    const NONE: StepLists = StepLists {
        focus: List::new(),
        edits: List::new(),
        ori_edits: List::new(),
        ptx_edits: List::new(),
    };
    fn is_empty(&self) -> bool {
        self.focus.is_empty()
            && self.edits.is_empty()
            && self.ori_edits.is_empty()
            && self.ptx_edits.is_empty()
    }
}

static NO_LISTS: StepLists = StepLists::NONE;

// A decoded step: kind 16, narration 16, payload 8, lists 8.
const _: () = assert!(core::mem::size_of::<Step>() <= 48);

impl core::ops::Deref for Step {
    type Target = StepLists;
    fn deref(&self) -> &StepLists {
        self.lists.as_deref().unwrap_or(&NO_LISTS)
    }
}

impl core::ops::DerefMut for Step {
    fn deref_mut(&mut self) -> &mut StepLists {
        self.lists.get_or_insert_with(Default::default)
    }
}

impl Step {
    fn with(kind: &'static str, narration: Narration) -> Self {
        Step {
            kind: Kind::new(kind),
            narration,
            payload: PayloadBox::NONE,
            lists: None,
        }
    }
    pub fn new(kind: &'static str, narration: impl Into<String>) -> Self {
        Step::with(kind, Narration::new(&narration.into()))
    }
    /// A step whose sentence is written in the program ([`Narration::fixed`]).
    pub fn fixed(kind: &'static str, narration: &'static str) -> Self {
        Step::with(kind, Narration::fixed(narration))
    }
    /// A step whose sentence is a template written in the program with its numbers
    /// ([`Narration::numbered`]: each `\u{1}` of `template` is the next of `args`).
    pub fn numbered(kind: &'static str, template: &'static str, args: &[u64]) -> Self {
        Step::with(kind, Narration::numbered(template, args))
    }
    pub fn focus(mut self, f: Focus) -> Self {
        self.focus.push(f);
        self
    }
    pub fn edit(mut self, e: Edit) -> Self {
        self.edits.push(e);
        self
    }
    pub fn payload(mut self, p: impl Into<Payload>) -> Self {
        self.payload = p.into().into();
        self
    }
    /// True when the step changed nothing in the IR.
    pub fn is_noop(&self) -> bool {
        self.edits.is_empty() && self.ori_edits.is_empty() && self.ptx_edits.is_empty()
    }
    /// Heap bytes of the lists' box itself (not what its lists hold).
    pub fn parts_box_bytes(&self) -> usize {
        self.lists
            .as_ref()
            .map_or(0, |_| core::mem::size_of::<StepLists>())
    }
    /// Drops the lists' box when nothing is in it (a step that wrote an empty list).
    fn settle(&mut self) {
        if self.lists.as_deref().is_some_and(StepLists::is_empty) {
            self.lists = None;
        }
    }
}

impl core::fmt::Debug for Step {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Step")
            .field("kind", &self.kind)
            .field("narration", &self.narration)
            .field("focus", &self.focus)
            .field("edits", &self.edits)
            .field("ori_edits", &self.ori_edits)
            .field("ptx_edits", &self.ptx_edits)
            .field("payload", &self.payload)
            .finish()
    }
}

/// The JSON of a step: its fields in order, `ptx_edits` only when there are some.
impl Serialize for Step {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let ptx = !crate::ptx::edit::none(&self.ptx_edits);
        let mut st = s.serialize_struct("Step", 6 + usize::from(ptx))?;
        st.serialize_field("kind", &self.kind)?;
        st.serialize_field("narration", &self.narration)?;
        st.serialize_field("focus", &self.focus)?;
        st.serialize_field("edits", &edit::EditsJson(&self.edits))?;
        st.serialize_field("ori_edits", &self.ori_edits)?;
        if ptx {
            st.serialize_field("ptx_edits", &self.ptx_edits)?;
        } else {
            st.skip_field("ptx_edits")?;
        }
        st.serialize_field("payload", &self.payload_json())?;
        st.end()
    }
}

/// Pass-specific payloads. Each pass adds its variants here.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Payload {
    None,
    /// A generic key → number table (counters, sizes).
    Counters {
        values: Vec<(String, i64)>,
    },
    /// Two-address: one def/use pair of a multi-result EXTRACT_SUBREG became a COPY.
    ExtractSubregPair {
        pseudo: u32,
        /// Which pair (from 0) of how many (an EXTRACT_SUBREG's results: a few).
        pair: u16,
        pairs: u16,
        def: u32,
        src: u32,
        lane: Option<u8>,
        hint_tied: bool,
        hint_early_tied: bool,
        /// The earlyTied rule fired: the COPY's def got the secondary tie flag.
        tie_marked: bool,
        /// The source's kill moved from the pseudo to this COPY.
        kill_moved: bool,
        /// LiveVariables updates this COPY's chain made or confirmed (counted; a
        /// chain makes a few).
        lv_updates: u16,
        /// Every step of the chain as it ran, with what it did (counted or not); kept as
        /// numbers, printed as sentences.
        lv_steps: LvSteps,
    },
    /// Coalescing: one decision about a copy, with both live ranges as numbers (the
    /// JSON prints them as LLVM does: [`CoalesceDecision`]).
    CoalesceDecision(CoalesceDecision),
    /// NVPTX coalescer: the two halves of a decomposed register pair side by side: the
    /// half copies (dst, src) and the live ranges of their registers, low half first
    /// (low dst, low src, high dst, high src). Apart from `LiveRanges`, so the bars of
    /// the whole function are not replaced by these four.
    PairHalves {
        wide: u32,
        low: (u32, u32),
        high: (u32, u32),
        rows: List<RangeView>,
    },
    /// A snapshot of the function's IR as printed (`dump-before-cssa`).
    IrSnapshot {
        text: String,
    },
    /// Coalescing: the live ranges are computed, as the pass starts (the bars' first
    /// state). `rows` is left empty: every register's range is a whole structure, not a
    /// change, so a reader rebuilds it from the stage's input with [`first_range_rows`]
    /// (what both coalescers start from); `registers` counts the rows that gives.
    LiveRanges {
        rows: Vec<RangeView>,
        registers: u32,
    },
    /// NVPTX coalescer: the interval tree changed (events in order, and the tree after,
    /// when it is small enough to copy into every step).
    TreeChange {
        events: interval_tree::TreeEvents,
        tree: Option<alloc::boxed::Box<interval_tree::TreeSnapshot>>,
        rotations: u32,
    },
    /// NVPTX coalescer: a candidate taken from the heap, and both heaps after (their
    /// first few entries, as (register, weight)).
    HeapPop {
        copy: u32,
        dst: u32,
        src: u32,
        weight: u32,
        heap: List<(u32, u32)>,
        secondary: List<(u32, u32)>,
    },
    /// Two-address: a tied (use, def) pair and what was tried for it.
    /// (Boxed: the payload of every step is as large as its largest variant.)
    TiedPair(alloc::boxed::Box<TiedPair>),
    /// ptx-emit: one MIR instruction and the PTX lines printed for it. Its lines are
    /// the step's PTX edits: it prints only as part of its step
    /// ([`Step::payload_json`]; alone, serializing it is an error).
    #[serde(skip_serializing)]
    Emitted(Emitted),
    /// GeneralOptimize: one round of one block's loop, a cell of the block × iteration
    /// grid: per-sub-pass counters, whether the round changed anything, and whether the
    /// option-464 budget stopped the loop there.
    GoRound {
        phase: u16,
        block: crate::ori::BlockId,
        iteration: u32,
        counters: GoCounters,
        changed: bool,
        capped: bool,
    },
    /// GeneralOptimize: a flag bit (0x100 / 0x200 / 0x400) set on an operand, with the
    /// operand's flag word before and after.
    GoMark {
        inst: crate::ori::InstId,
        operand: u32,
        class: u16,
        mask: u32,
        before: u32,
        after: u32,
    },
    /// GeneralOptimize phase 37: the cost accumulators after a round (one step a
    /// round: boxed, the payload of every step is as large as its largest variant).
    GoCost(alloc::boxed::Box<GoCost>),
    /// GeneralOptimize phase 58: the six-slot circular buffer (first and second MOV of
    /// each slot, printed) and the slot index, with the seven counters. The slots are
    /// kept as the changes since the previous buffer step ([`GoSlots`]).
    GoBuffer {
        block: crate::ori::BlockId,
        index: u32,
        slots: GoSlots,
        /// The seven counters in [`GO_BUFFER_COUNTERS`]' order, printed with their names.
        counters: BufferCounters,
    },
    /// ptx-lower: one PTX instruction and the ORI instructions it became, with the
    /// ORI opcode class numbers (the spec's where it names them). Its ORI text may be
    /// read from the step's ORI edits: it prints only as part of its step
    /// ([`Step::payload_json`]; alone, serializing it is an error).
    #[serde(skip_serializing)]
    Lowered(Lowered),
    /// Emitter: how one DAG node was dispatched and what it became (small enough to
    /// sit in the payload's box itself).
    EmitterNode(EmitterNode),
    /// Emitter: the class of a new virtual register and where it came from.
    /// (Boxed: the payload of every step is as large as its largest variant.)
    EmitterVReg(alloc::boxed::Box<EmitterVReg>),
    /// Emitter: one result of a multi-result node became a pair of the EXTRACT_SUBREG.
    EmitterLane {
        pseudo: u32,
        pair: u32,
        lanes: u32,
        def: u32,
        src: u32,
        /// The node's result number this lane carries.
        result: u32,
        hint_tied: bool,
        hint_early_tied: bool,
    },
    /// Emitter: the bit-36 ("implicit glue consumer", 0x1000000000) test on a node.
    /// (Boxed: the payload of every step is as large as its largest variant.)
    EmitterBit36(alloc::boxed::Box<EmitterBit36>),
    /// Emitter: one result record classified by dead copy elimination.
    /// (Boxed: the payload of every step is as large as its largest variant.)
    EmitterRecord(alloc::boxed::Box<EmitterRecord>),
    /// Emitter: the deferred dead list deleted in bulk.
    EmitterFlush {
        erased: List<u32>,
        /// Readers of folded copies moved to the copy's source.
        rewritten: u32,
        /// Live-in registers no longer read.
        liveins_dropped: List<String>,
    },
}

/// GeneralOptimize: the name of a round's counter. The names are a closed list, so a
/// counter cannot be recorded under a name the JSON would not know; printed as
/// [`GO_COUNTER_NAMES`] spells them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum GoCounterName {
    Marks0x100,
    Marks0x200,
    Marks0x400,
    SimplifierHits,
    DeadFound,
    ExitChainsMatched,
    DagEquivalences,
    Promoted,
    Folds,
    DeadRemoved,
    MovsSeen,
    BufferInserts,
    BufferHits,
    BufferEvictions,
    UsesRewritten,
    ChecksRejected,
    PairMovsRemoved,
}

impl GoCounterName {
    /// Phase 58's seven counters (the context's seven 56-byte groups), in order.
    pub const BUFFER: [GoCounterName; 7] = [
        GoCounterName::MovsSeen,
        GoCounterName::BufferInserts,
        GoCounterName::BufferHits,
        GoCounterName::BufferEvictions,
        GoCounterName::UsesRewritten,
        GoCounterName::ChecksRejected,
        GoCounterName::PairMovsRemoved,
    ];
    /// The name as printed.
    pub fn as_str(self) -> &'static str {
        GO_COUNTER_NAMES[self as usize]
    }
    /// The name whose number (`name as u8`) is `n`; the last name past them.
    fn from_number(n: u8) -> Self {
        use GoCounterName::*;
        match n {
            0 => Marks0x100,
            1 => Marks0x200,
            2 => Marks0x400,
            3 => SimplifierHits,
            4 => DeadFound,
            5 => ExitChainsMatched,
            6 => DagEquivalences,
            7 => Promoted,
            8 => Folds,
            9 => DeadRemoved,
            10 => MovsSeen,
            11 => BufferInserts,
            12 => BufferHits,
            13 => BufferEvictions,
            14 => UsesRewritten,
            15 => ChecksRejected,
            _ => PairMovsRemoved,
        }
    }
}

/// GeneralOptimize: one counter of a round, printed as `["name", value]`. The value is
/// what one walk of one block counted, which the block's instruction count bounds (a
/// u32, as instruction numbers are).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(C, packed)]
pub struct GoCounter {
    name: GoCounterName,
    value: u32,
}

/// Every counter name a GeneralOptimize round reports, in [`GoCounterName`]'s order.
pub const GO_COUNTER_NAMES: [&str; 17] = [
    "marks_0x100",
    "marks_0x200",
    "marks_0x400",
    "simplifier_hits",
    "dead_found",
    "exit_chains_matched",
    "dag_equivalences",
    "promoted",
    "folds",
    "dead_removed",
    "movs_seen",
    "buffer_inserts",
    "buffer_hits",
    "buffer_evictions",
    "uses_rewritten",
    "checks_rejected",
    "pair_movs_removed",
];

/// Phase 58's seven counters' names, in [`GoCounterName::BUFFER`]'s order.
pub const GO_BUFFER_COUNTERS: [&str; 7] = {
    let mut names = [""; 7];
    let mut k = 0;
    while k < 7 {
        names[k] = GO_COUNTER_NAMES[GoCounterName::BUFFER[k] as usize];
        k += 1;
    }
    names
};

impl GoCounter {
    pub fn new(name: GoCounterName, value: u32) -> Self {
        GoCounter { name, value }
    }
    pub fn name(&self) -> &'static str {
        let name = self.name;
        name.as_str()
    }
    pub fn value(&self) -> u64 {
        u64::from(self.value)
    }
}

/// A round's counters, packed: each its name's number and its value (LEB128), in the
/// round's order. A round names a handful of small counts, which the payload keeps in
/// itself (up to [`GoCounters::INLINE`] bytes: phase 58's seven counters of values
/// under 128 take 14); more go in a box of their own. Read with [`GoCounters::iter`].
#[derive(Clone, PartialEq)]
pub struct GoCounters(compact::SmallBytes<{ GoCounters::INLINE }>);

impl GoCounters {
    pub const INLINE: usize = 14;
    /// The counters in the order they were recorded.
    pub fn iter(&self) -> impl Iterator<Item = GoCounter> + '_ {
        let (b, mut pos) = (&*self.0, 0);
        core::iter::from_fn(move || {
            let name = *b.get(pos)?;
            pos += 1;
            let value = crate::packing::varint::read_u32(b, &mut pos);
            Some(GoCounter::new(GoCounterName::from_number(name), value))
        })
    }
    pub fn len(&self) -> usize {
        self.iter().count()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Vec<GoCounter>> for GoCounters {
    fn from(v: Vec<GoCounter>) -> Self {
        let mut b = Vec::with_capacity(v.len() * 2);
        for c in &v {
            b.push(c.name as u8);
            crate::packing::varint::put_u32(&mut b, c.value);
        }
        GoCounters(b.into())
    }
}

impl core::fmt::Debug for GoCounters {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for GoCounters {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl Serialize for GoCounter {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.name(), self.value()).serialize(s)
    }
}

/// Phase 58's seven counters of a buffer step, packed (LEB128 each: most are small)
/// in the payload itself; read with [`BufferCounters::get`], printed as
/// `[["name", value], ...]` in [`GO_BUFFER_COUNTERS`]' order.
#[derive(Clone, PartialEq)]
pub struct BufferCounters(compact::SmallBytes<14>);

impl BufferCounters {
    /// The seven values in order.
    pub fn get(&self) -> [u32; 7] {
        let mut out = [0; 7];
        let mut pos = 0;
        for v in &mut out {
            *v = crate::packing::varint::read_u32(&self.0, &mut pos);
        }
        out
    }
}

impl From<[u32; 7]> for BufferCounters {
    fn from(c: [u32; 7]) -> Self {
        let mut b = Vec::with_capacity(7);
        for v in c {
            crate::packing::varint::put_u32(&mut b, v);
        }
        BufferCounters(b.into())
    }
}

impl core::fmt::Debug for BufferCounters {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.get().fmt(f)
    }
}

impl Serialize for BufferCounters {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let c = self.get();
        s.collect_seq(
            GO_BUFFER_COUNTERS
                .iter()
                .zip(c)
                .map(|(n, v)| (n, u64::from(v))),
        )
    }
}

/// GeneralOptimize phase 37: the cost accumulators after a round.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GoCost {
    pub round: u32,
    pub weighted: f64,
    pub unweighted: f64,
    pub delta: f64,
    pub threshold: f64,
}

/// Two-address: a tied (use, def) pair and what was tried for it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TiedPair {
    pub inst: u32,
    pub use_idx: u32,
    pub def_idx: u32,
    pub src: RegText,
    pub dst: RegText,
    /// Attempts in order with their outcome (printed `commute: not commutable`, ...).
    pub attempts: List<TieAttempt>,
    pub resolved_by: &'static str,
}

/// ptx-lower: one PTX instruction and the ORI instruction it became, with its ORI
/// opcode class number (the spec's where it names one). Printed as
/// `{"ptx": text, "ori": [text], "classes": [number]}`. The ORI text is nearly always
/// the PTX text, a tab and the instruction's annotation (`// class 139 MOV d:t1 s:t1`):
/// then only the PTX text is kept, and the annotation is printed, when the step is read
/// ([`Step::payload_json`]), from the instruction the step's last ORI edit inserts.
/// Otherwise the ORI text is kept too, after the PTX text (without its first part when
/// that is the PTX text).
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    /// The PTX text, then the ORI text or what follows the PTX text in it.
    text: alloc::boxed::Box<str>,
    ptx_len: u32,
    class: u16,
    ori: OriText,
}

/// Where a [`Lowered`] finds its ORI text.
#[derive(Clone, Copy, Debug, PartialEq)]
enum OriText {
    /// The PTX text, a tab, `// ` and the annotation of the inserted instruction.
    Annotated,
    /// The PTX text and the rest of `text`.
    ExtendsPtx,
    /// The rest of `text`.
    Whole,
}

impl Lowered {
    /// `annotation`: the lowered instruction's ([`crate::ori::print::annotation`]), the
    /// one the step's last ORI edit must insert for the ORI text to be rebuilt from it.
    pub fn new(ptx: &str, ori: &str, class: u16, annotation: &str) -> Self {
        let annotated = ori
            .strip_prefix(ptx)
            .and_then(|r| r.strip_prefix("\t// "))
            .is_some_and(|r| r == annotation);
        let rest = ori.strip_prefix(ptx);
        let (kept, how) = match rest {
            _ if annotated => ("", OriText::Annotated),
            Some(r) => (r, OriText::ExtendsPtx),
            None => (ori, OriText::Whole),
        };
        Lowered {
            text: alloc::format!("{ptx}{kept}").into(),
            ptx_len: ptx.len() as u32,
            class,
            ori: how,
        }
    }
    pub fn ptx(&self) -> &str {
        &self.text[..self.ptx_len as usize]
    }
    /// The ORI text; `edits` are the ORI edits of the step this payload is in.
    pub fn ori(&self, edits: &[crate::ori::edit::OriEdit]) -> String {
        match self.ori {
            OriText::Annotated => {
                let inst = edits.iter().rev().find_map(|e| match e {
                    crate::ori::edit::OriEdit::Insert { data, .. } => Some(data.get()),
                    _ => None,
                });
                let note = inst.map_or_else(String::new, |i| crate::ori::print::annotation(&i));
                alloc::format!("{}\t// {note}", self.ptx())
            }
            OriText::ExtendsPtx => String::from(&*self.text),
            OriText::Whole => String::from(&self.text[self.ptx_len as usize..]),
        }
    }
    pub fn class(&self) -> u16 {
        self.class
    }
}

/// ptx-emit: one MIR instruction as printed and the PTX lines printed for it. Printed
/// as `{"mir": text, "ptx": [line, ...]}`; kept as the MIR text and where the
/// instruction's statements sit among the step's PTX edits, which hold them already
/// (`count` statement edits from `first`): the lines are printed from those when the
/// step is read ([`Step::payload_json`]), not stored a second time.
#[derive(Clone, Debug, PartialEq)]
pub struct Emitted {
    mir: alloc::boxed::Box<str>,
    first: u32,
    count: u32,
}

impl Emitted {
    /// The MIR instruction `mir`, printed as the `count` statements the step's PTX edits
    /// add from edit `first` on.
    pub fn new(mir: &str, first: usize, count: usize) -> Self {
        Emitted {
            mir: mir.into(),
            first: first as u32,
            count: count as u32,
        }
    }
    pub fn mir(&self) -> &str {
        &self.mir
    }
    /// The PTX lines, printed from `edits` (the PTX edits of the step this payload is
    /// in), each trimmed.
    pub fn ptx(&self, edits: &[crate::ptx::edit::PtxEdit]) -> Vec<String> {
        let (first, count) = (self.first as usize, self.count as usize);
        let stmts: Vec<crate::ptx::ast::Stmt> = edits
            .iter()
            .skip(first)
            .take(count)
            .filter_map(|e| match e {
                crate::ptx::edit::PtxEdit::Stmt { stmt, .. } => Some(stmt.stmt()),
                _ => None,
            })
            .collect();
        let mut text = String::new();
        crate::ptx::print::print_stmts(&mut text, &stmts);
        text.lines().map(|l| String::from(l.trim())).collect()
    }
}

/// A step's payload as its JSON prints it ([`Step::payload_json`]).
pub struct PayloadJson<'a>(&'a Step);

impl Step {
    /// The payload as the step's JSON prints it: the payload itself, with what it reads
    /// from the rest of the step filled in (an [`Emitted`]'s PTX lines, from the step's
    /// PTX edits; a [`Lowered`]'s ORI annotation, from the instruction its ORI edits
    /// insert). Every reader of a payload's fields by name goes through this.
    pub fn payload_json(&self) -> PayloadJson<'_> {
        PayloadJson(self)
    }
}

impl Serialize for PayloadJson<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match &*self.0.payload {
            Payload::Emitted(e) => {
                let mut st = s.serialize_struct("Emitted", 3)?;
                st.serialize_field("type", "emitted")?;
                st.serialize_field("mir", e.mir())?;
                st.serialize_field("ptx", &e.ptx(&self.0.ptx_edits))?;
                st.end()
            }
            Payload::Lowered(l) => {
                let mut st = s.serialize_struct("Lowered", 4)?;
                st.serialize_field("type", "lowered")?;
                st.serialize_field("ptx", l.ptx())?;
                st.serialize_field("ori", &[l.ori(&self.0.ori_edits)])?;
                st.serialize_field("classes", &[l.class])?;
                st.end()
            }
            p => p.serialize(s),
        }
    }
}

/// Emitter: how one DAG node was dispatched and what it became. Printed as
/// `{"node": "tN", "opcode", "isd", "handler", "insts"}`: the opcode's name and the
/// spec's ISD number are read from the node's operation when printed, not kept.
#[derive(Clone, Debug, PartialEq)]
pub struct EmitterNode {
    /// The node's number `N`, printed `tN`.
    pub node: u32,
    /// The node's operation (its name is the printed `opcode`; for the special
    /// opcodes, its spec ISD number the printed `isd`: 0x0E CopyToReg, ...).
    pub op: crate::dag::DagOp,
    /// Which handler took it (`copy_to_reg`, `generic`, `skipped`, ...).
    pub handler: &'static str,
    /// Instructions it produced.
    pub insts: List<u32>,
}

impl Serialize for EmitterNode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("EmitterNode", 5)?;
        st.serialize_field("node", &format_args!("t{}", self.node))?;
        st.serialize_field("opcode", self.op.name())?;
        st.serialize_field("isd", &self.op.spec_number())?;
        st.serialize_field("handler", self.handler)?;
        st.serialize_field("insts", &self.insts)?;
        st.end()
    }
}

fn ser_node_name<S: serde::Serializer>(n: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("t{n}"))
}

/// Emitter: the class of a new virtual register and where it came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmitterVReg {
    pub vreg: u32,
    /// The instruction's constraint (TII::getRegClass), if any.
    pub inst_class: Option<ClassText>,
    /// The value type's class (TLI::getRegClassFor), if any.
    pub type_class: Option<ClassText>,
    pub divergent: bool,
    pub chosen: ClassText,
    /// A CopyToReg destination was reused instead of a new register.
    pub reused: bool,
}

/// Emitter: the bit-36 ("implicit glue consumer", 0x1000000000) test on a node.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmitterBit36 {
    /// The node's number `N`, printed `tN`.
    #[serde(serialize_with = "ser_node_name")]
    pub node: u32,
    /// `checked`, or which property bit turned the test off.
    pub guard: &'static str,
    pub flag: bool,
    pub skipped: bool,
    /// The register the node's value was mapped to instead.
    pub reused: Option<RegText>,
}

/// Emitter: one result record classified by dead copy elimination.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmitterRecord {
    pub index: u32,
    pub inst: u32,
    pub opcode: &'static str,
    /// Which target hook looked at it (vtable 0xF0 for CopyFromReg copies, 0x350 otherwise).
    pub hook: &'static str,
    pub src: Option<RegText>,
    pub dst: Option<RegText>,
    pub inline_fold: bool,
    pub candidate: bool,
    pub uses: u32,
    /// `keep`, `erase_now` or `defer`.
    pub verdict: &'static str,
    /// A sentence of the program (no heap), some with the readers' count in it.
    pub reason: NumberedText,
}

impl From<CoalesceDecision> for Payload {
    fn from(p: CoalesceDecision) -> Self {
        Payload::CoalesceDecision(p)
    }
}
impl From<GoCost> for Payload {
    fn from(p: GoCost) -> Self {
        Payload::GoCost(alloc::boxed::Box::new(p))
    }
}
impl From<TiedPair> for Payload {
    fn from(p: TiedPair) -> Self {
        Payload::TiedPair(alloc::boxed::Box::new(p))
    }
}
impl From<Lowered> for Payload {
    fn from(p: Lowered) -> Self {
        Payload::Lowered(p)
    }
}
impl From<EmitterNode> for Payload {
    fn from(p: EmitterNode) -> Self {
        Payload::EmitterNode(p)
    }
}
impl From<EmitterVReg> for Payload {
    fn from(p: EmitterVReg) -> Self {
        Payload::EmitterVReg(alloc::boxed::Box::new(p))
    }
}
impl From<EmitterBit36> for Payload {
    fn from(p: EmitterBit36) -> Self {
        Payload::EmitterBit36(alloc::boxed::Box::new(p))
    }
}
impl From<EmitterRecord> for Payload {
    fn from(p: EmitterRecord) -> Self {
        Payload::EmitterRecord(alloc::boxed::Box::new(p))
    }
}

// A step's payload is boxed at this size (its largest variant): the variants that
// would make it larger hold their fields behind a box of their own, or their lists as
// `List`s (one word) and their few numbers packed (`SmallBytes`, `ThinBytes`).
const _: () = assert!(core::mem::size_of::<Payload>() <= 40);

/// One live segment `[start, end)` in raw slot numbers ([`crate::liveness::SlotIndex::raw`]: index × 4 +
/// slot), holding value number `valno`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SegmentView {
    pub start: u32,
    pub end: u32,
    pub valno: u32,
}

/// One register's live range as numbers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RangeView {
    pub reg: u32,
    pub segments: Vec<SegmentView>,
}

/// The segments of `r` as [`SegmentView`]s.
pub fn segments_of(r: &LiveRange) -> Vec<SegmentView> {
    r.segments
        .iter()
        .map(|s| SegmentView {
            start: s.start.raw(),
            end: s.end.raw(),
            valno: s.valno,
        })
        .collect()
}

/// [`segments_of`] when `R` records steps, nothing otherwise: the coalescers' payloads
/// call this so that a run without a trace never builds them.
pub fn recorded_segments<R: Recorder>(r: &LiveRange) -> Vec<SegmentView> {
    if R::ENABLED {
        segments_of(r)
    } else {
        Vec::new()
    }
}

/// The rows of every register with a non-empty range, by register number.
pub fn range_rows<'a>(ranges: impl Iterator<Item = (u32, &'a LiveRange)>) -> Vec<RangeView> {
    ranges
        .filter(|(_, r)| !r.is_empty())
        .map(|(reg, r)| RangeView {
            reg,
            segments: segments_of(r),
        })
        .collect()
}

/// Every register's live range as a coalescer starts on `f` (its input, before any of
/// its edits): the rows a [`Payload::LiveRanges`] step stands for.
pub fn first_range_rows(f: &crate::mir::Function) -> Vec<RangeView> {
    let (_, main, _) = crate::liveness::LiveIntervals::compute(f).into_parts();
    range_rows(main.iter().enumerate().map(|(v, r)| (v as u32, r)))
}

/// A register's printed name for a step's narration: empty, and free, when `R` records
/// no steps (remarks, which are kept either way, use [`crate::mir::print::reg_string`]).
pub fn narration_reg<R: Recorder>(f: &crate::mir::Function, r: crate::mir::Reg) -> String {
    if R::ENABLED {
        crate::mir::print::reg_string(f, r)
    } else {
        String::new()
    }
}

/// Where passes report their steps.
pub trait Recorder {
    /// False for [`NoTrace`]: callers may skip building expensive data.
    const ENABLED: bool;
    /// Records the step `make` builds; not called at all when tracing is off.
    fn step(&mut self, make: impl FnOnce() -> Step);
    /// Remarks (optimization remarks, notes) are kept even with tracing off.
    fn remark(&mut self, text: String);
    /// An ORI pass starts changing `f`: the next [`Recorder::ori_step`] records the
    /// edits made from here (`f` journals what the pass touches: [`crate::ori::edit::Journal`]).
    fn ori_begin(&mut self, _f: &mut crate::ori::Function) {}
    /// Records a step of an ORI pass, with the edits that turned the function as it
    /// was at the previous ORI step (or at [`Recorder::ori_begin`]) into `f`. A pass
    /// calls it after the change the step narrates.
    fn ori_step(&mut self, _f: &mut crate::ori::Function, make: impl FnOnce() -> Step) {
        self.step(make)
    }
    /// The ORI pass is done with `f`: changes made after its last step (bookkeeping of
    /// the register table) become one closing `settle` step.
    fn ori_end(&mut self, _f: &mut crate::ori::Function) {}
}

/// Tracing off: every call compiles to nothing except remarks.
#[derive(Default, Debug)]
pub struct NoTrace {
    pub remarks: Vec<String>,
}

impl Recorder for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn step(&mut self, _make: impl FnOnce() -> Step) {}
    fn remark(&mut self, text: String) {
        self.remarks.push(text);
    }
}

/// Tracing on: keeps every step (each narration's template once: [`Templates`]).
#[derive(Default, Debug)]
pub struct StepLog {
    pub steps: StepList,
    pub remarks: Vec<String>,
    templates: Templates,
}

impl StepLog {
    fn keep(&mut self, mut s: Step) {
        self.templates.share(&mut s.narration);
        s.settle();
        self.steps.push(s);
    }
}

impl Recorder for StepLog {
    const ENABLED: bool = true;
    fn step(&mut self, make: impl FnOnce() -> Step) {
        self.keep(make());
    }
    fn remark(&mut self, text: String) {
        self.remarks.push(text);
    }
    fn ori_begin(&mut self, f: &mut crate::ori::Function) {
        f.start_journal();
    }
    fn ori_step(&mut self, f: &mut crate::ori::Function, make: impl FnOnce() -> Step) {
        let edits = crate::ori::edit::take_edits(f);
        let mut s = make();
        if !(edits.is_empty() && s.ori_edits.is_empty()) {
            s.ori_edits = edits.into();
        }
        self.keep(s);
    }
    fn ori_end(&mut self, f: &mut crate::ori::Function) {
        let edits = f.end_journal();
        if edits.is_empty() {
            return;
        }
        let regs = edits
            .iter()
            .filter(|e| matches!(e, crate::ori::edit::OriEdit::SetReg { .. }))
            .count();
        let others = edits.len() - regs;
        let mut narration = alloc::format!(
            "Bookkeeping after the last step: {regs} register-table entr{} (def and use counts, defining instruction) brought up to date.",
            if regs == 1 { "y" } else { "ies" }
        );
        if others > 0 {
            narration = alloc::format!(
                "{narration} {others} other edit(s) made after the last recorded step."
            );
        }
        let mut s = Step::new("settle", narration);
        s.ori_edits = edits.into();
        self.keep(s);
    }
}

/// The trace of one pass run.
#[derive(Clone, Debug, Serialize)]
pub struct PassTrace {
    pub stage: Stage,
    /// Printed input and output IR.
    pub input: String,
    pub output: String,
    pub steps: StepList,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A round's counters and a buffer step's seven read back as recorded, in order,
    /// whether they fit in the payload (small values) or not (large values, many
    /// counters), and print as `[name, value]` pairs; the payload stays 40 bytes.
    #[test]
    fn packed_counters_read_back_as_recorded() {
        use GoCounterName::*;
        for cells in [
            alloc::vec![(Promoted, 1), (Folds, 0), (DeadRemoved, 127)],
            alloc::vec![(MovsSeen, 128), (PairMovsRemoved, u32::MAX)],
            GoCounterName::BUFFER.iter().map(|&n| (n, 300)).collect(),
            (0..17u8)
                .map(|k| (GoCounterName::from_number(k), u32::from(k)))
                .collect(),
        ] {
            let recorded: Vec<GoCounter> =
                cells.iter().map(|&(n, v)| GoCounter::new(n, v)).collect();
            let c = GoCounters::from(recorded.clone());
            assert!(c.iter().eq(recorded.iter().copied()), "{cells:?}");
            assert_eq!(c.len(), cells.len());
        }
        let seven = GoCounters::from(
            GoCounterName::BUFFER
                .iter()
                .map(|&n| GoCounter::new(n, 5))
                .collect::<Vec<_>>(),
        );
        assert!(
            matches!(seven.0, compact::SmallBytes::Inline(14, _)),
            "in place"
        );
        assert_eq!(
            serde_json::to_string(&GoCounters::from(alloc::vec![GoCounter::new(Folds, 300)]))
                .unwrap(),
            r#"[["folds",300]]"#
        );
        for values in [[0, 1, 2, 3, 4, 5, 6], [u32::MAX, 128, 0, 7, 1 << 20, 3, 9]] {
            let b = BufferCounters::from(values);
            assert_eq!(b.get(), values);
        }
        // Every name's number reads back as that name.
        for (k, name) in GO_COUNTER_NAMES.iter().enumerate() {
            let n = GoCounterName::from_number(k as u8);
            assert_eq!((n as usize, n.as_str()), (k, *name));
        }
        let json = serde_json::to_string(&BufferCounters::from([1, 2, 3, 4, 5, 6, 200])).unwrap();
        assert_eq!(
            json,
            r#"[["movs_seen",1],["buffer_inserts",2],["buffer_hits",3],["buffer_evictions",4],["uses_rewritten",5],["checks_rejected",6],["pair_movs_removed",200]]"#
        );
        assert_eq!(core::mem::size_of::<Payload>(), 40);
    }
}
