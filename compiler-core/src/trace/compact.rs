//! The small containers a [`super::Step`] keeps its parts in: a step holds a few short
//! and mostly empty lists and usually no payload, and the step array holds one step per
//! recorded step, so each part is one word inline and allocates nothing when empty
//! (a `Vec` is three words and its spare room, a boxed slice two).

use super::Payload;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Deref;

/// A list fixed once recorded: one word inline, nothing allocated when empty; otherwise
/// a box holding the boxed slice of exactly its elements (16 bytes more than the
/// elements: most steps have an empty list or two, which a two-word boxed slice would
/// cost 8 bytes each). Reads as a slice.
#[derive(Clone, PartialEq)]
#[allow(clippy::redundant_allocation)] // the inner box is a slice: the outer one makes it thin
pub struct List<T>(Option<Box<Box<[T]>>>);

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
        self.0.map_or_else(Vec::new, |b| b.into_vec())
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
        self.0.as_deref().map_or(&[], |b| &**b)
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(v: Vec<T>) -> Self {
        List((!v.is_empty()).then(|| Box::new(v.into_boxed_slice())))
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

static NO_PAYLOAD: Payload = Payload::None;

/// A step's payload behind a pointer, none stored for [`Payload::None`]. Reads as the
/// payload (`&*step.payload`).
#[derive(Clone, PartialEq, Default)]
pub struct PayloadBox(Option<Box<Payload>>);

impl PayloadBox {
    pub const NONE: PayloadBox = PayloadBox(None);
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

#[cfg(test)]
mod tests {
    use super::*;
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
        l.push(9);
        assert_eq!(&*l, &[7, 9]);
        assert_eq!(l.clone(), l);
        assert_eq!(l.into_vec(), vec![7, 9]);
        let empty: List<u32> = Vec::new().into();
        assert!(empty.0.is_none(), "an empty list allocates nothing");
        assert_eq!(List::from(vec![1u8, 2]).iter().sum::<u8>(), 3);
    }
}
