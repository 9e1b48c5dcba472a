//! Typed indices. Every IR object lives in a dense table and is named by a small
//! newtype index (Cranelift's entity maps), never by a pointer.

pub use cranelift_entity::{entity_impl, EntityRef, PrimaryMap, SecondaryMap};

use alloc::string::String;
use alloc::vec::Vec;
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
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Sym(u32);
entity_impl!(Sym, "sym");

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
            Ok(pos) => Sym(self.sorted[pos]),
            Err(pos) => {
                let id = self.names.len() as u32;
                self.names.push(s.into());
                self.sorted.insert(pos, id);
                Sym(id)
            }
        }
    }

    pub fn get(&self, s: &str) -> Option<Sym> {
        self.find(s).ok().map(|pos| Sym(self.sorted[pos]))
    }

    pub fn name(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }

    fn find(&self, s: &str) -> Result<usize, usize> {
        self.sorted
            .binary_search_by(|&i| self.names[i as usize].as_str().cmp(s))
    }
}
