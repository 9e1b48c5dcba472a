//! Typed indices. Every IR object lives in a dense table and is named by a small
//! newtype index (Cranelift's entity maps), never by a pointer.

pub use cranelift_entity::{entity_impl, EntityRef, PrimaryMap, SecondaryMap};

use alloc::string::String;
use alloc::vec::Vec;
use core::num::NonZeroU32;
use serde::{Deserialize, Serialize};

/// A side table holding `default` for each of the first `n` keys. Filling a table
/// indexed past its end takes SecondaryMap's grow-by-one slow path on every new key;
/// sized up front, it never does.
pub fn dense_map<K: EntityRef, V: Clone>(default: V, n: usize) -> SecondaryMap<K, V> {
    let mut m = SecondaryMap::with_default(default);
    m.resize(n);
    m
}

/// An interned name: physical register, symbol, sub-register index, metadata, ...
///
/// Stored as its number plus one, so `Option<Sym>` takes four bytes, not eight: a MIR
/// operand carries two optional names (type, comment), and every byte of an operand is
/// fetched again by each pass over a large function. Serialized as the plain number.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sym(NonZeroU32);

// The point of the representation above.
const _: () = assert!(core::mem::size_of::<Option<Sym>>() == 4);

impl Sym {
    fn from_index(i: u32) -> Self {
        Sym(NonZeroU32::MIN.saturating_add(i))
    }
    fn index_u32(self) -> u32 {
        self.0.get() - 1
    }
}

impl EntityRef for Sym {
    fn new(i: usize) -> Self {
        // Interners number names from 0; a table of 2^32 - 1 names cannot exist here.
        Sym::from_index(i as u32)
    }
    fn index(self) -> usize {
        self.index_u32() as usize
    }
}

impl core::fmt::Debug for Sym {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "sym{}", self.index_u32())
    }
}

impl core::fmt::Display for Sym {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "sym{}", self.index_u32())
    }
}

impl Serialize for Sym {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.index_u32())
    }
}

impl<'de> Deserialize<'de> for Sym {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let i = u32::deserialize(d)?;
        if i == u32::MAX {
            return Err(serde::de::Error::custom("name number out of range"));
        }
        Ok(Sym::from_index(i))
    }
}

/// A string interner with deterministic ids (first come, first numbered).
/// Lookup is a binary search over a sorted side index, so no hash order exists anywhere.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interner {
    names: Vec<String>,
    /// Indices into `names`, sorted by the name they point at.
    sorted: Vec<u32>,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Sym {
        match self.find(s) {
            Ok(pos) => Sym::from_index(self.sorted[pos]),
            Err(pos) => {
                let id = self.names.len() as u32;
                self.names.push(s.into());
                self.sorted.insert(pos, id);
                Sym::from_index(id)
            }
        }
    }

    pub fn get(&self, s: &str) -> Option<Sym> {
        self.find(s)
            .ok()
            .map(|pos| Sym::from_index(self.sorted[pos]))
    }

    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.index()]
    }

    /// How many names are interned.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    fn find(&self, s: &str) -> Result<usize, usize> {
        self.sorted
            .binary_search_by(|&i| self.names[i as usize].as_str().cmp(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_number_from_zero_and_serialize_as_their_number() {
        let mut names = Interner::default();
        let (b, a) = (names.intern("sub_32bit"), names.intern("R1"));
        assert_eq!((b.index(), a.index()), (0, 1));
        assert_eq!(names.intern("sub_32bit"), b);
        assert_eq!(names.name(a), "R1");
        assert_eq!(alloc::format!("{a:?}"), "sym1");
        assert_eq!(serde_json::to_string(&[Some(a), None]).unwrap(), "[1,null]");
        let back: Vec<Option<Sym>> = serde_json::from_str("[1,null,0]").unwrap();
        assert_eq!(back, [Some(a), None, Some(b)]);
        assert!(serde_json::from_str::<Sym>("4294967295").is_err());
    }
}
