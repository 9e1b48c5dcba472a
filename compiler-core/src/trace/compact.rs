//! The small containers a [`super::Step`] keeps its parts in: a step holds a few short
//! and mostly empty lists and usually no payload, and the step array holds one step per
//! recorded step, so each part is one word inline and allocates nothing when empty
//! (a `Vec` is three words and its spare room, a boxed slice two). Also [`SmallBytes`],
//! the few packed bytes a payload keeps in itself (a GeneralOptimize round's counters,
//! phase 58's buffer counters), and the shared texts and slots of phase 58's
//! buffer. The byte writer and reader the packed parts use are in
//! [`crate::packing`].

use super::Payload;
use alloc::boxed::Box;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Deref;

/// A list fixed once recorded: one word inline, nothing allocated when empty; otherwise
/// a box holding its one item, or the boxed slice of its items (16 bytes more than the
/// items: most steps have an empty list or two, which a two-word boxed slice would cost
/// 8 bytes each). A list of one, the most common after none (one focus, one edit), is
/// a box of about the item's size (an item with a spare tag value holds the slice's
/// two words in the same room). Reads as a slice.
#[derive(Clone, PartialEq)]
pub struct List<T>(Option<Box<Items<T>>>);

/// What a non-empty [`List`] holds: `Many` only for two items or more.
#[derive(Clone, PartialEq)]
enum Items<T> {
    One(T),
    Many(Box<[T]>),
}

impl<T> List<T> {
    pub const fn new() -> Self {
        List(None)
    }
    /// Appends `x` (builders add one or two items; each push copies the list).
    pub fn push(&mut self, x: T) {
        let mut v = core::mem::take(self).into_vec();
        v.push(x);
        *self = v.into();
    }
    pub fn into_vec(self) -> Vec<T> {
        match self.0.map(|b| *b) {
            None => Vec::new(),
            Some(Items::One(x)) => alloc::vec![x],
            Some(Items::Many(v)) => v.into_vec(),
        }
    }
}

impl<T> Default for List<T> {
    fn default() -> Self {
        List(None)
    }
}

impl<T> Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self.0.as_deref() {
            None => &[],
            Some(Items::One(x)) => core::slice::from_ref(x),
            Some(Items::Many(v)) => v,
        }
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(mut v: Vec<T>) -> Self {
        List(match v.len() {
            0 => None,
            1 => v.pop().map(|x| Box::new(Items::One(x))),
            _ => Some(Box::new(Items::Many(v.into_boxed_slice()))),
        })
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: serde::Serialize> serde::Serialize for List<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

/// Packed bytes behind one thin pointer, nothing allocated when empty: one word in the
/// payload where a boxed slice takes two (its two words sit in a small box of their
/// own). Reads as the bytes.
#[derive(Clone, Default, PartialEq, Eq)]
#[allow(clippy::redundant_allocation)] // the inner box is a slice: the outer one makes it thin
pub struct ThinBytes(Option<Box<Box<[u8]>>>);

impl From<Vec<u8>> for ThinBytes {
    fn from(b: Vec<u8>) -> Self {
        ThinBytes((!b.is_empty()).then(|| Box::new(b.into_boxed_slice())))
    }
}

impl Deref for ThinBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.0.as_deref().map_or(&[], |b| b)
    }
}

impl fmt::Debug for ThinBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// Packed bytes a payload keeps in itself when there are at most `N` of them (no
/// allocation of their own), else behind a thin pointer ([`ThinBytes`]): `N` + 2 bytes,
/// at least 16. Reads as the bytes. One container for every payload that packs a few
/// numbers: a GeneralOptimize round's counters, phase 58's buffer counters. (A
/// coalescer decision's ranges take 24 bytes or more: they have an exact-size box.)
#[derive(Clone, PartialEq)]
pub enum SmallBytes<const N: usize> {
    Inline(u8, [u8; N]),
    Boxed(ThinBytes),
}

impl<const N: usize> From<Vec<u8>> for SmallBytes<N> {
    fn from(b: Vec<u8>) -> Self {
        if b.len() > N.min(usize::from(u8::MAX)) {
            return SmallBytes::Boxed(b.into());
        }
        let mut inline = [0; N];
        inline[..b.len()].copy_from_slice(&b);
        SmallBytes::Inline(b.len() as u8, inline)
    }
}

impl<const N: usize> Deref for SmallBytes<N> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            SmallBytes::Inline(n, b) => &b[..usize::from(*n)],
            SmallBytes::Boxed(b) => b,
        }
    }
}

impl<const N: usize> fmt::Debug for SmallBytes<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

static NO_PAYLOAD: Payload = Payload::None;

/// A step's payload behind a pointer, none stored for [`Payload::None`]. Reads as the
/// payload (`&*step.payload`).
#[derive(Clone, PartialEq, Default)]
pub struct PayloadBox(Option<Box<Payload>>);

impl PayloadBox {
    pub const NONE: PayloadBox = PayloadBox(None);
    /// The box itself (none for [`Payload::None`]).
    pub(super) fn into_box(self) -> Option<Box<Payload>> {
        self.0
    }
    pub(super) fn from_box(b: Box<Payload>) -> Self {
        PayloadBox(Some(b))
    }
}

impl Deref for PayloadBox {
    type Target = Payload;
    fn deref(&self) -> &Payload {
        self.0.as_deref().unwrap_or(&NO_PAYLOAD)
    }
}

impl From<Payload> for PayloadBox {
    fn from(p: Payload) -> Self {
        PayloadBox((!matches!(p, Payload::None)).then(|| Box::new(p)))
    }
}

impl fmt::Debug for PayloadBox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl serde::Serialize for PayloadBox {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

/// One slot of phase 58's buffer: the first MOV and, once matched, the second.
pub type GoSlot = Option<(SharedText, Option<SharedText>)>;

static EMPTY_SLOT: GoSlot = None;

/// Text shared by the steps that show it (a MOV in phase 58's buffer is printed once
/// while its text stays the same); printed as a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedText(Arc<str>);

impl SharedText {
    pub fn new(text: String) -> Self {
        SharedText(Arc::from(text))
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl serde::Serialize for SharedText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// Phase 58's six slots as one buffer step shows them, recorded as changes: a link
/// holds one slot that differs from what the step before showed, over that step's
/// links (shared, not copied), so a step that fills one slot adds one link, not a
/// copy of the six. Reading a slot walks down to the first link that names it (none:
/// empty). A chain longer than [`GoSlots::MAX_DEPTH`] links starts over with the slots
/// written out afresh, which bounds every walk. Reads as the six slots in order;
/// printed as that list.
#[derive(Clone, Default)]
pub struct GoSlots(Option<Arc<SlotLink>>);

struct SlotLink {
    slot: u8,
    /// Links below this one.
    depth: u16,
    value: GoSlot,
    under: GoSlots,
}

impl GoSlots {
    pub const LEN: usize = 6;
    /// The longest walk a read makes.
    pub const MAX_DEPTH: u16 = 48;

    /// Slot `i` (empty past the six).
    pub fn get(&self, i: usize) -> &GoSlot {
        let mut at = &self.0;
        while let Some(link) = at {
            if usize::from(link.slot) == i {
                return &link.value;
            }
            at = &link.under.0;
        }
        &EMPTY_SLOT
    }
    pub fn len(&self) -> usize {
        Self::LEN
    }
    pub fn is_empty(&self) -> bool {
        false
    }
    pub fn iter(&self) -> impl Iterator<Item = &GoSlot> {
        (0..Self::LEN).map(|i| self.get(i))
    }
    fn depth(&self) -> u16 {
        self.0.as_ref().map_or(0, |l| l.depth + 1)
    }
    fn link(self, slot: usize, value: GoSlot) -> GoSlots {
        GoSlots(Some(Arc::new(SlotLink {
            slot: slot as u8,
            depth: self.depth(),
            value,
            under: self,
        })))
    }
    /// These slots with slot `i` (one of the six) holding `value`: a link over these
    /// when the value differs, the same slots when not.
    pub fn with(&self, i: usize, value: GoSlot) -> GoSlots {
        debug_assert!(i < Self::LEN);
        if *self.get(i) == value {
            return self.clone();
        }
        if self.depth() < Self::MAX_DEPTH {
            return self.clone().link(i, value);
        }
        // Start over: the other non-empty slots written out, then this one.
        let mut fresh = GoSlots::default();
        for k in (0..Self::LEN).filter(|&k| k != i) {
            if let Some(v) = self.get(k) {
                fresh = fresh.link(k, Some(v.clone()));
            }
        }
        fresh.link(i, value)
    }
}

impl PartialEq for GoSlots {
    fn eq(&self, o: &Self) -> bool {
        self.iter().eq(o.iter())
    }
}

impl fmt::Debug for GoSlots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl serde::Serialize for GoSlots {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

pub use crate::packing::varint;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packing::{Bytes, Reader};
    use alloc::vec;

    #[test]
    fn a_list_is_one_word_and_reads_back_its_items() {
        assert_eq!(
            core::mem::size_of::<List<u64>>(),
            core::mem::size_of::<usize>()
        );
        let mut l: List<u32> = List::new();
        assert!(l.is_empty() && l.0.is_none());
        l.push(7);
        assert_eq!(&*l, &[7]);
        l.push(9);
        assert_eq!(&*l, &[7, 9]);
        assert_eq!(l.clone(), l);
        assert_eq!(l.into_vec(), vec![7, 9]);
        let empty: List<u32> = Vec::new().into();
        assert!(empty.0.is_none(), "an empty list allocates nothing");
        assert_eq!(List::from(vec![1u8, 2]).iter().sum::<u8>(), 3);
        let one = List::from(vec![5u32]);
        assert!(
            matches!(one.0.as_deref(), Some(Items::One(5))),
            "one item, no slice"
        );
        assert_eq!((&*one, one.clone().into_vec()), (&[5][..], vec![5]));
        // The box of a one-item list is the item's size when the item has a spare tag
        // value (a focus: 8 bytes; before, 16 for the slice's words and 8 for the item).
        assert_eq!(core::mem::size_of::<Items<super::super::Focus>>(), 16);
        assert_eq!(
            core::mem::size_of::<Items<crate::ptx::edit::PtxEdit>>(),
            core::mem::size_of::<crate::ptx::edit::PtxEdit>()
        );
    }

    /// Up to `N` bytes sit in the value itself; more go behind one thin pointer; an
    /// empty thin list allocates nothing; every form reads back its bytes.
    #[test]
    fn small_bytes_keep_few_in_place_and_more_behind_a_thin_pointer() {
        assert_eq!(core::mem::size_of::<SmallBytes<14>>(), 16);
        assert_eq!(core::mem::size_of::<ThinBytes>(), 8);
        let few: SmallBytes<14> = vec![1u8; 14].into();
        assert!(matches!(few, SmallBytes::Inline(14, _)));
        assert_eq!(&*few, &[1u8; 14][..]);
        let more: SmallBytes<14> = (0u8..15).collect::<Vec<_>>().into();
        assert!(matches!(more, SmallBytes::Boxed(_)));
        assert_eq!(&*more, &(0u8..15).collect::<Vec<_>>()[..]);
        let none: SmallBytes<14> = Vec::new().into();
        assert!(none.is_empty());
        let thin = ThinBytes::from(Vec::new());
        assert!(
            thin.0.is_none() && thin.is_empty(),
            "empty: nothing allocated"
        );
        assert_eq!(&*ThinBytes::from(vec![7, 8]), &[7, 8]);
    }

    fn slot(first: &str, second: Option<&str>) -> GoSlot {
        Some((
            SharedText::new(first.into()),
            second.map(|t| SharedText::new(t.into())),
        ))
    }

    /// Phase 58's slots are kept as changes: a step that fills one slot adds one link
    /// over the previous step's slots (shared, not copied), an unchanged slot adds
    /// nothing, and every read gives what a plain array of six would hold, however
    /// many changes came before (the chain starts over past its longest walk).
    #[test]
    fn go_slots_keep_changes_over_the_previous_slots() {
        let empty = GoSlots::default();
        assert!(empty.iter().all(Option::is_none) && empty.len() == 6);
        let a = empty.with(2, slot("mov a", None));
        let b = a.with(4, slot("mov b", Some("mov b2")));
        assert_eq!(b.get(2), &slot("mov a", None));
        assert_eq!(b.get(4), &slot("mov b", Some("mov b2")));
        assert_eq!(a.get(4), &None, "the earlier step's slots are unchanged");
        let under = &b.0.as_ref().unwrap().under;
        assert!(Arc::ptr_eq(
            under.0.as_ref().unwrap(),
            a.0.as_ref().unwrap()
        ));
        let same = b.with(2, slot("mov a", None));
        assert!(Arc::ptr_eq(same.0.as_ref().unwrap(), b.0.as_ref().unwrap()));
        // Against a plain array, over many more changes than one chain holds.
        let mut plain: [GoSlot; 6] = Default::default();
        let mut kept = GoSlots::default();
        for k in 0..1000usize {
            let (i, v) = (k * 7 % 6, (k % 5 != 0).then(|| alloc::format!("mov {k}")));
            plain[i] = v.as_deref().and_then(|t| slot(t, None));
            kept = kept.with(i, plain[i].clone());
            assert!(kept.depth() <= GoSlots::MAX_DEPTH + 1);
            assert!(kept.iter().eq(plain.iter()), "after change {k}");
        }
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"[null,null,["mov a",null],null,null,null]"#
        );
    }

    #[test]
    fn bytes_read_back_in_order_and_a_cut_short_string_reads_empty() {
        let mut w = Bytes::default();
        w.signed(-3);
        w.opt(None);
        w.opt(Some(0));
        w.list(&[300u64, 1], |w, &x| w.num(x));
        w.texts(&["ab".into(), String::new()]);
        // -3 zigzags to 5; None 0; Some(0) 1; [2, 300 (2 bytes), 1]; [2, "ab", ""].
        assert_eq!(w.0, [5, 0, 1, 2, 0xac, 0x02, 1, 2, 2, b'a', b'b', 0]);
        let mut r = Reader::new(&w.0);
        assert_eq!((r.signed(), r.opt(), r.opt()), (-3, None, Some(0)));
        assert_eq!(r.list(Reader::num), vec![300, 1]);
        assert_eq!(r.texts(), vec![String::from("ab"), String::new()]);
        assert_eq!((r.num(), r.str()), (0, ""), "past the end");
        let mut cut = Reader::new(&[200, 1, b'x']);
        assert_eq!(
            cut.str(),
            "x",
            "a length past the end is cut to what is there"
        );
        assert!(Reader::new(&[9]).list(Reader::num).is_empty());
    }

    #[test]
    fn varints_read_back_what_was_written_and_move_the_position() {
        let nums = [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX];
        let mut b = Vec::new();
        for &n in &nums {
            varint::put_u64(&mut b, n);
        }
        assert_eq!(
            &b[..5],
            &[0, 1, 0x7f, 0x80, 0x01],
            "seven bits a byte, low first"
        );
        let mut pos = 0;
        for &n in &nums {
            assert_eq!(varint::read_u64(&b, &mut pos), n);
        }
        assert_eq!(pos, b.len());
        assert_eq!(varint::read_u64(&b, &mut pos), 0, "past the end reads 0");
        let mut c = Vec::new();
        varint::put_u32(&mut c, 624_485);
        assert_eq!(c, [0xe5, 0x8e, 0x26]);
        assert_eq!(varint::read_u32(&c, &mut 0), 624_485);
    }
}
