//! The byte writer and reader the packed parts of trace steps share (PTX statements,
//! ORI instructions, MIR instructions, narration numbers): LEB128 numbers, texts and
//! lists. A module of its own, below `ptx`, `ori` and `trace`, which all use it.

use alloc::string::String;
use alloc::vec::Vec;

/// Unsigned LEB128, the one number encoding the compact trace parts share (narration
/// numbers, coalescing decisions, rename rules): seven bits a byte, low bits first, the
/// top bit set on every byte but the last.
pub mod varint {
    use alloc::vec::Vec;

    /// Appends `x` (one byte below 128, at most ten).
    pub fn put_u64(out: &mut Vec<u8>, mut x: u64) {
        loop {
            let byte = (x & 0x7f) as u8;
            x >>= 7;
            if x == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }

    pub fn put_u32(out: &mut Vec<u8>, x: u32) {
        put_u64(out, u64::from(x));
    }

    /// Reads the number starting at `*pos` and moves `*pos` past it; a number cut short
    /// by the end of `b` reads as the bits present (past the end: 0).
    pub fn read_u64(b: &[u8], pos: &mut usize) -> u64 {
        let (mut x, mut shift) = (0u64, 0u32);
        while let Some(&byte) = b.get(*pos) {
            *pos += 1;
            if shift < 64 {
                x |= u64::from(byte & 0x7f) << shift;
            }
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        x
    }

    /// As [`read_u64`], keeping the low 32 bits (numbers written by [`put_u32`]).
    pub fn read_u32(b: &[u8], pos: &mut usize) -> u32 {
        read_u64(b, pos) as u32
    }
}

/// A byte string being written: LEB128 numbers ([`varint`]), length-prefixed texts and
/// lists. The packed forms of PTX statements, ORI instructions and MIR instructions
/// write with it; [`Reader`] reads them back in the same order.
#[derive(Default)]
pub struct Bytes(pub Vec<u8>);

impl Bytes {
    pub fn num(&mut self, x: u64) {
        varint::put_u64(&mut self.0, x);
    }
    /// A signed number, zigzag-coded (small magnitudes stay one byte).
    pub fn signed(&mut self, v: i64) {
        self.num(((v << 1) ^ (v >> 63)) as u64);
    }
    pub fn text(&mut self, s: &str) {
        self.num(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    /// `None` as 0, `Some(v)` as `v + 1`.
    pub fn opt(&mut self, v: Option<u32>) {
        self.num(v.map_or(0, |v| u64::from(v) + 1));
    }
    /// `items`' count, then each as `put` writes it.
    pub fn list<T>(&mut self, items: &[T], mut put: impl FnMut(&mut Self, &T)) {
        self.num(items.len() as u64);
        for x in items {
            put(self, x);
        }
    }
    /// `b`, length first.
    pub fn bytes(&mut self, b: &[u8]) {
        self.num(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    pub fn texts(&mut self, words: &[String]) {
        self.list(words, |w, s| w.text(s));
    }
}

/// Reads what [`Bytes`] wrote, in the same order; past the end every number reads 0 and
/// every text and list empty (the bytes are the program's own, so that never happens on
/// data it wrote, and a cut-short string never panics).
pub struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Reader { b, pos: 0 }
    }
    /// A reader of `b` from byte `pos` on.
    pub fn starting_at(b: &'a [u8], pos: usize) -> Self {
        Reader { b, pos }
    }
    /// Where the next read starts.
    pub fn pos(&self) -> usize {
        self.pos
    }
    /// True when every byte has been read.
    pub fn at_end(&self) -> bool {
        self.pos >= self.b.len()
    }
    pub fn num(&mut self) -> u64 {
        varint::read_u64(self.b, &mut self.pos)
    }
    pub fn u32(&mut self) -> u32 {
        self.num() as u32
    }
    /// A count, bounded by the bytes left (each counted element takes one at least).
    pub fn count(&mut self) -> usize {
        (self.num() as usize).min(self.b.len().saturating_sub(self.pos))
    }
    pub fn signed(&mut self) -> i64 {
        let v = self.num();
        ((v >> 1) as i64) ^ -((v & 1) as i64)
    }
    pub fn str(&mut self) -> &'a str {
        let n = self.count();
        let bytes = &self.b[self.pos..self.pos + n];
        self.pos += n;
        core::str::from_utf8(bytes).unwrap_or("")
    }
    /// Bytes [`Bytes::bytes`] wrote.
    pub fn bytes(&mut self) -> &'a [u8] {
        let n = self.count();
        let bytes = &self.b[self.pos..self.pos + n];
        self.pos += n;
        bytes
    }
    pub fn text(&mut self) -> String {
        String::from(self.str())
    }
    pub fn opt(&mut self) -> Option<u32> {
        self.u32().checked_sub(1)
    }
    /// A list [`Bytes::list`] wrote, each item as `get` reads it.
    pub fn list<T>(&mut self, mut get: impl FnMut(&mut Self) -> T) -> Vec<T> {
        let n = self.count();
        (0..n).map(|_| get(self)).collect()
    }
    pub fn texts(&mut self) -> Vec<String> {
        self.list(Self::text)
    }
}

/// A SecondaryMap: its default, then its values (so its length is kept).
pub(crate) fn put_map<K: crate::entity::EntityRef, V: Clone>(
    w: &mut Bytes,
    m: &crate::entity::SecondaryMap<K, V>,
    mut put: impl FnMut(&mut Bytes, &V),
) {
    put(w, m.default_value());
    w.list(m.as_values_slice(), put);
}

/// The map [`put_map`] wrote.
pub(crate) fn get_map<K: crate::entity::EntityRef, V: Clone>(
    r: &mut Reader<'_>,
    mut get: impl FnMut(&mut Reader<'_>) -> V,
) -> crate::entity::SecondaryMap<K, V> {
    let mut m = crate::entity::SecondaryMap::with_default(get(r));
    for (k, v) in r.list(get).into_iter().enumerate() {
        m[K::new(k)] = v;
    }
    m
}
