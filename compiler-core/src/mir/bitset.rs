//! A sparse set of blocks: the 64-block words that hold a member, in word order.

use crate::entity::EntityRef;
use crate::mir::Block;
use smallvec::SmallVec;

/// A set of blocks as the 64-bit words of a bit vector indexed by [`Block`] storage
/// index, keeping only the words that are not zero, sorted by word number (LLVM's
/// `SparseBitVector` keeps `AliveBlocks` the same way, with 128-bit elements).
///
/// A register live through a few blocks then costs a word or two wherever those
/// blocks are numbered. A dense vector would cost one bit for every block up to the
/// highest member: on a function with many blocks, registers live near its end made
/// LiveVariables' memory grow with registers × blocks. Iteration is in index order;
/// equal sets have equal word lists (a word that empties is dropped).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockSet {
    words: SmallVec<[(u32, u64); 1]>,
}

fn split(b: Block) -> (u32, u64) {
    ((b.index() / 64) as u32, 1u64 << (b.index() % 64))
}

impl BlockSet {
    pub fn new() -> Self {
        BlockSet::default()
    }

    fn find(&self, w: u32) -> Result<usize, usize> {
        // Members usually arrive in order: check the last word before searching.
        match self.words.last() {
            Some(&(k, _)) if k == w => Ok(self.words.len() - 1),
            Some(&(k, _)) if k < w => Err(self.words.len()),
            None => Err(0),
            _ => self.words.binary_search_by_key(&w, |&(k, _)| k),
        }
    }

    /// Adds `b`; returns true if it was not there before.
    pub fn insert(&mut self, b: Block) -> bool {
        let (w, bit) = split(b);
        match self.find(w) {
            Ok(i) => {
                let was = self.words[i].1 & bit != 0;
                self.words[i].1 |= bit;
                !was
            }
            Err(i) => {
                self.words.insert(i, (w, bit));
                true
            }
        }
    }

    /// Removes `b`; returns true if it was there.
    pub fn remove(&mut self, b: Block) -> bool {
        let (w, bit) = split(b);
        let Ok(i) = self.find(w) else {
            return false;
        };
        if self.words[i].1 & bit == 0 {
            return false;
        }
        self.words[i].1 &= !bit;
        if self.words[i].1 == 0 {
            self.words.remove(i);
        }
        true
    }

    pub fn contains(&self, b: Block) -> bool {
        let (w, bit) = split(b);
        self.find(w).is_ok_and(|i| self.words[i].1 & bit != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    #[cfg(feature = "testkit")]
    pub fn len(&self) -> usize {
        self.words
            .iter()
            .map(|&(_, w)| w.count_ones() as usize)
            .sum()
    }

    pub fn clear(&mut self) {
        self.words.clear();
    }

    /// Members in storage-index order.
    #[cfg(feature = "testkit")]
    pub fn iter(&self) -> impl Iterator<Item = Block> + '_ {
        self.words.iter().flat_map(|&(k, word)| {
            let mut rest = word;
            core::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(Block::new(k as usize * 64 + bit))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn insert_remove_iterate() {
        let mut s = BlockSet::new();
        assert!(s.is_empty());
        for i in [3usize, 64, 0, 130, 3] {
            s.insert(Block::new(i));
        }
        assert_eq!(s.len(), 4);
        assert!(s.contains(Block::new(64)) && !s.contains(Block::new(65)));
        assert!(s.remove(Block::new(64)) && !s.remove(Block::new(64)));
        let v: Vec<usize> = s.iter().map(|b| b.index()).collect();
        assert_eq!(v, [0, 3, 130]);
        assert!(!s.contains(Block::new(100_000)));
    }

    #[test]
    fn far_apart_members_cost_a_word_each_and_empty_words_go() {
        let mut s = BlockSet::new();
        for i in [1_000_000usize, 5, 70, 999_999, 64] {
            assert!(s.insert(Block::new(i)));
        }
        assert!(!s.insert(Block::new(70)));
        assert_eq!(s.words.len(), 4, "{:?}", s.words);
        let v: Vec<usize> = s.iter().map(|b| b.index()).collect();
        assert_eq!(v, [5, 64, 70, 999_999, 1_000_000]);
        assert!(s.remove(Block::new(5)));
        assert_eq!(s.words.len(), 3, "the word of block 5 emptied and went");
        // Equal sets compare equal however they were built.
        let mut t = BlockSet::new();
        for i in [64usize, 70, 999_999, 1_000_000] {
            t.insert(Block::new(i));
        }
        assert_eq!(s, t);
        s.clear();
        assert!(s.is_empty());
        assert_eq!(s.len(), 0);
    }
}
