//! The fields of a step's byte form: one trait, [`Field`], that every packed part
//! writes and reads itself through, field by field in order (numbers LEB128, texts
//! and lists length first, an option as a flag and its value). A part that names
//! something a log keeps once (a coalescing decision's shared range base) writes its
//! number in the log's [`Tables`].
//!
//! ```text
//!  u32 u16 u8 bool     one number            f64        its bits, bytes reversed (0.5: 2 B)
//!  Option<T>           0 | 1 T               (A, B[, C]) each in order
//!  Vec<T>, List<T>     count, each T         Box<str>   length, UTF-8
//! ```

use super::record::Tables;
use super::List;
use crate::packing::{Bytes, Reader};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// A part with a byte form: written in order, read back equal.
pub(super) trait Field: Sized {
    fn put(&self, w: &mut Bytes, t: &mut Tables);
    fn get(r: &mut Reader<'_>, t: &Tables) -> Self;
}

/// [`Field`] for a struct, field by field in the order named (all of its fields).
macro_rules! fields {
    ($ty:ty { $($f:ident),* }) => {
        impl $crate::trace::field::Field for $ty {
            fn put(&self, w: &mut $crate::packing::Bytes, t: &mut $crate::trace::record::Tables) {
                $($crate::trace::field::Field::put(&self.$f, w, t);)*
            }
            fn get(r: &mut $crate::packing::Reader<'_>, t: &$crate::trace::record::Tables) -> Self {
                Self { $($f: $crate::trace::field::Field::get(r, t)),* }
            }
        }
    };
}
pub(super) use fields;

impl Field for u32 {
    fn put(&self, w: &mut Bytes, _: &mut Tables) {
        w.num(u64::from(*self));
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        r.u32()
    }
}

impl Field for u16 {
    fn put(&self, w: &mut Bytes, _: &mut Tables) {
        w.num(u64::from(*self));
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        r.num() as u16
    }
}

impl Field for u8 {
    fn put(&self, w: &mut Bytes, _: &mut Tables) {
        w.num(u64::from(*self));
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        r.num() as u8
    }
}

impl Field for bool {
    fn put(&self, w: &mut Bytes, _: &mut Tables) {
        w.num(u64::from(*self));
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        r.num() == 1
    }
}

/// The bits with their bytes reversed: the sign, exponent and high mantissa bits come
/// low, and a value with few mantissa bits (0.0, 0.5, 12.25) takes a byte or three.
impl Field for f64 {
    fn put(&self, w: &mut Bytes, _: &mut Tables) {
        w.num(self.to_bits().swap_bytes());
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        f64::from_bits(r.num().swap_bytes())
    }
}

impl Field for Box<str> {
    fn put(&self, w: &mut Bytes, _: &mut Tables) {
        w.text(self);
    }
    fn get(r: &mut Reader<'_>, _: &Tables) -> Self {
        r.str().into()
    }
}

impl<T: Field> Field for Option<T> {
    fn put(&self, w: &mut Bytes, t: &mut Tables) {
        self.is_some().put(w, t);
        if let Some(x) = self {
            x.put(w, t);
        }
    }
    fn get(r: &mut Reader<'_>, t: &Tables) -> Self {
        bool::get(r, t).then(|| T::get(r, t))
    }
}

impl<A: Field, B: Field> Field for (A, B) {
    fn put(&self, w: &mut Bytes, t: &mut Tables) {
        self.0.put(w, t);
        self.1.put(w, t);
    }
    fn get(r: &mut Reader<'_>, t: &Tables) -> Self {
        (A::get(r, t), B::get(r, t))
    }
}

impl<T: Field> Field for Vec<T> {
    fn put(&self, w: &mut Bytes, t: &mut Tables) {
        w.list(self, |w, x| x.put(w, t));
    }
    fn get(r: &mut Reader<'_>, t: &Tables) -> Self {
        r.list(|r| T::get(r, t))
    }
}

impl<T: Field> Field for List<T> {
    fn put(&self, w: &mut Bytes, t: &mut Tables) {
        w.list(self, |w, x| x.put(w, t));
    }
    fn get(r: &mut Reader<'_>, t: &Tables) -> Self {
        Vec::get(r, t).into()
    }
}

impl<T: Field> Field for Box<T> {
    fn put(&self, w: &mut Bytes, t: &mut Tables) {
        (**self).put(w, t);
    }
    fn get(r: &mut Reader<'_>, t: &Tables) -> Self {
        Box::new(T::get(r, t))
    }
}
