//! The small containers a [`super::Step`] keeps its parts in: a step holds many short
//! or empty lists and usually no payload, so each part costs one pointer when empty
//! and exactly its elements when not (a `Vec` costs three words and its spare room).

use super::Payload;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Deref;

/// A list fixed once recorded: one word when empty, its elements exactly otherwise.
/// Reads as a slice.
#[derive(Clone, PartialEq)]
pub struct List<T>(Option<Box<[T]>>);

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
        self.0.as_deref().unwrap_or(&[])
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(v: Vec<T>) -> Self {
        List((!v.is_empty()).then(|| v.into_boxed_slice()))
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
