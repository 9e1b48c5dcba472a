//! A dense set of blocks: one bit per block storage index.

use crate::entity::EntityRef;
use crate::mir::Block;
use alloc::vec::Vec;

/// A set of blocks as a bit vector indexed by [`Block`] storage index. It grows on
/// insert, so an empty set costs no memory; iteration is in index order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockSet {
    words: Vec<u64>,
}

impl BlockSet {
    pub fn new() -> Self {
        BlockSet::default()
    }

    /// Adds `b`; returns true if it was not there before.
    pub fn insert(&mut self, b: Block) -> bool {
        let (w, bit) = (b.index() / 64, 1u64 << (b.index() % 64));
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        let was = self.words[w] & bit != 0;
        self.words[w] |= bit;
        !was
    }

    /// Removes `b`; returns true if it was there.
    pub fn remove(&mut self, b: Block) -> bool {
        let (w, bit) = (b.index() / 64, 1u64 << (b.index() % 64));
        match self.words.get_mut(w) {
            Some(word) if *word & bit != 0 => {
                *word &= !bit;
                true
            }
            _ => false,
        }
    }

    pub fn contains(&self, b: Block) -> bool {
        let (w, bit) = (b.index() / 64, 1u64 << (b.index() % 64));
        self.words.get(w).is_some_and(|word| word & bit != 0)
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn clear(&mut self) {
        self.words.clear();
    }

    /// Members in storage-index order.
    pub fn iter(&self) -> impl Iterator<Item = Block> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &word)| {
            let mut rest = word;
            core::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let bit = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(Block::new(wi * 64 + bit))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
