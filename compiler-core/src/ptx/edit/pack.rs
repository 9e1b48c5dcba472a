//! A PTX statement as a trace keeps it: LEB128 numbers and length-prefixed text in one
//! byte string, instead of a [`Stmt`] tree whose every opcode and register name is a
//! heap string of its own.
//!
//! ```text
//!  add.s32 %r3, %r1, %r2;   Stmt::Inst: opcode String, Vec of 3 operands (40 B each),
//!                           3 name Strings                       ≈ 190 heap bytes
//!                           packed: tag, guard, "add.s32", 3 × (tag, "%rN")  = 23 bytes
//! ```
//!
//! Every field is kept ([`unpack`] gives back an equal statement; `pack` checks that in
//! debug builds). [`Bytes`] and [`Reader`] are the writer and reader the ORI edits'
//! packing shares.

use crate::ptx::ast::{AddrBase, Guard, Imm, Inst, Operand, RegDecl, Stmt, VarDecl};
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;

/// The bytes being written.
#[derive(Default)]
pub(crate) struct Bytes(pub(crate) Vec<u8>);

impl Bytes {
    /// `x` as unsigned LEB128: seven bits a byte, low first, the top bit on every
    /// byte but the last.
    pub(crate) fn num(&mut self, mut x: u64) {
        while x >= 0x80 {
            self.0.push(x as u8 | 0x80);
            x >>= 7;
        }
        self.0.push(x as u8);
    }
    /// A signed number, zigzag-coded (small magnitudes stay one byte).
    pub(crate) fn signed(&mut self, v: i64) {
        self.num(((v << 1) ^ (v >> 63)) as u64);
    }
    pub(crate) fn text(&mut self, s: &str) {
        self.num(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    /// `None` as 0, `Some(v)` as `v + 1`.
    pub(crate) fn opt(&mut self, v: Option<u32>) {
        self.num(v.map_or(0, |v| u64::from(v) + 1));
    }
    pub(crate) fn texts(&mut self, words: &[String]) {
        self.num(words.len() as u64);
        for w in words {
            self.text(w);
        }
    }
    pub(crate) fn imm(&mut self, i: Imm) {
        match i {
            Imm::Int(v) => {
                self.num(0);
                self.signed(v);
            }
            Imm::Hex(v) => {
                self.num(1);
                self.num(v);
            }
            Imm::F32(v) => {
                self.num(2);
                self.num(u64::from(v));
            }
            Imm::F64(v) => {
                self.num(3);
                self.num(v);
            }
        }
    }
}

/// Reads what [`Bytes`] wrote, in the same order; past the end every number reads 0 and
/// every text empty (the bytes are the program's own, so that never happens on data it
/// wrote).
pub(crate) struct Reader<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) pos: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(b: &'a [u8]) -> Self {
        Reader { b, pos: 0 }
    }
    pub(crate) fn num(&mut self) -> u64 {
        let mut x = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&byte) = self.b.get(self.pos) else {
                break;
            };
            self.pos += 1;
            x |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                break;
            }
        }
        x
    }
    pub(crate) fn u32(&mut self) -> u32 {
        self.num() as u32
    }
    /// A count, bounded by the bytes left (each counted element takes one at least).
    pub(crate) fn count(&mut self) -> usize {
        (self.num() as usize).min(self.b.len().saturating_sub(self.pos))
    }
    pub(crate) fn signed(&mut self) -> i64 {
        let v = self.num();
        ((v >> 1) as i64) ^ -((v & 1) as i64)
    }
    pub(crate) fn str(&mut self) -> &'a str {
        let n = self.count();
        let bytes = &self.b[self.pos..self.pos + n];
        self.pos += n;
        core::str::from_utf8(bytes).unwrap_or("")
    }
    pub(crate) fn text(&mut self) -> String {
        String::from(self.str())
    }
    pub(crate) fn opt(&mut self) -> Option<u32> {
        self.u32().checked_sub(1)
    }
    pub(crate) fn texts(&mut self) -> Vec<String> {
        let n = self.count();
        (0..n).map(|_| self.text()).collect()
    }
    pub(crate) fn imm(&mut self) -> Imm {
        match self.num() {
            0 => Imm::Int(self.signed()),
            1 => Imm::Hex(self.num()),
            2 => Imm::F32(self.u32()),
            _ => Imm::F64(self.num()),
        }
    }
}

/// `s` packed.
pub fn pack(s: &Stmt) -> Box<[u8]> {
    let mut w = Bytes::default();
    stmt(&mut w, s);
    let b = w.0.into_boxed_slice();
    debug_assert!(unpack(&b) == *s, "packing lost a field of {s:?}");
    b
}

/// The statement `b` holds.
pub fn unpack(b: &[u8]) -> Stmt {
    read_stmt(&mut Reader::new(b))
}

fn stmts(w: &mut Bytes, v: &[Stmt]) {
    w.num(v.len() as u64);
    for s in v {
        stmt(w, s);
    }
}

fn stmt(w: &mut Bytes, s: &Stmt) {
    match s {
        Stmt::Reg(r) => {
            w.num(0);
            w.texts(&r.words);
            w.num(r.names.len() as u64);
            for (name, n) in &r.names {
                w.text(name);
                w.opt(*n);
            }
        }
        Stmt::Var(v) => {
            w.num(1);
            w.texts(&v.words);
            w.text(&v.name);
            w.num(v.dims.len() as u64);
            for d in &v.dims {
                w.opt(*d);
            }
            match &v.init {
                None => w.num(0),
                Some(init) => {
                    w.num(1);
                    w.texts(init);
                }
            }
        }
        Stmt::Label(l) => {
            w.num(2);
            w.text(l);
        }
        Stmt::Inst(i) => {
            w.num(3);
            match &i.guard {
                None => w.num(0),
                Some(g) => {
                    w.num(1 + u64::from(g.negated));
                    w.text(&g.reg);
                }
            }
            w.text(&i.opcode);
            operands(w, &i.operands);
        }
        Stmt::Pragma(words) => {
            w.num(4);
            w.texts(words);
        }
        Stmt::InlineAsm(v) => {
            w.num(5);
            stmts(w, v);
        }
        Stmt::Scope(v) => {
            w.num(6);
            stmts(w, v);
        }
        Stmt::Comment(c) => {
            w.num(7);
            w.text(c);
        }
        Stmt::Directive(words) => {
            w.num(8);
            w.texts(words);
        }
    }
}

fn read_stmts(r: &mut Reader<'_>) -> Vec<Stmt> {
    let n = r.count();
    (0..n).map(|_| read_stmt(r)).collect()
}

fn read_stmt(r: &mut Reader<'_>) -> Stmt {
    match r.num() {
        0 => {
            let words = r.texts();
            let n = r.count();
            let names = (0..n).map(|_| (r.text(), r.opt())).collect();
            Stmt::Reg(RegDecl { words, names })
        }
        1 => {
            let (words, name) = (r.texts(), r.text());
            let n = r.count();
            let dims = (0..n).map(|_| r.opt()).collect();
            let init = (r.num() == 1).then(|| r.texts());
            Stmt::Var(VarDecl {
                words,
                name,
                dims,
                init,
            })
        }
        2 => Stmt::Label(r.text()),
        3 => {
            let guard = match r.num() {
                0 => None,
                g => Some(Guard {
                    negated: g == 2,
                    reg: r.text(),
                }),
            };
            let opcode = r.text();
            Stmt::Inst(Inst {
                guard,
                opcode,
                operands: read_operands(r),
            })
        }
        4 => Stmt::Pragma(r.texts()),
        5 => Stmt::InlineAsm(read_stmts(r)),
        6 => Stmt::Scope(read_stmts(r)),
        7 => Stmt::Comment(r.text()),
        _ => Stmt::Directive(r.texts()),
    }
}

fn operands(w: &mut Bytes, v: &[Operand]) {
    w.num(v.len() as u64);
    for o in v {
        operand(w, o);
    }
}

fn operand(w: &mut Bytes, o: &Operand) {
    match o {
        Operand::Reg(s) => {
            w.num(0);
            w.text(s);
        }
        Operand::Imm(i) => {
            w.num(1);
            w.imm(*i);
        }
        Operand::Sym(s) => {
            w.num(2);
            w.text(s);
        }
        Operand::SymOffset(s, off) => {
            w.num(3);
            w.text(s);
            w.signed(*off);
        }
        Operand::Addr {
            base,
            offset,
            extra,
        } => {
            w.num(4);
            match base {
                AddrBase::Reg(s) => {
                    w.num(0);
                    w.text(s);
                }
                AddrBase::Sym(s) => {
                    w.num(1);
                    w.text(s);
                }
                AddrBase::None => w.num(2),
            }
            w.signed(*offset);
            operands(w, extra);
        }
        Operand::Vec(v) => {
            w.num(5);
            operands(w, v);
        }
        Operand::Pair(a, b) => {
            w.num(6);
            operand(w, a);
            operand(w, b);
        }
        Operand::Not(a) => {
            w.num(7);
            operand(w, a);
        }
        Operand::Paren(v) => {
            w.num(8);
            operands(w, v);
        }
    }
}

fn read_operands(r: &mut Reader<'_>) -> Vec<Operand> {
    let n = r.count();
    (0..n).map(|_| read_operand(r)).collect()
}

fn read_operand(r: &mut Reader<'_>) -> Operand {
    match r.num() {
        0 => Operand::Reg(r.text()),
        1 => Operand::Imm(r.imm()),
        2 => Operand::Sym(r.text()),
        3 => Operand::SymOffset(r.text(), r.signed()),
        4 => {
            let base = match r.num() {
                0 => AddrBase::Reg(r.text()),
                1 => AddrBase::Sym(r.text()),
                _ => AddrBase::None,
            };
            let offset = r.signed();
            Operand::Addr {
                base,
                offset,
                extra: read_operands(r),
            }
        }
        5 => Operand::Vec(read_operands(r)),
        6 => Operand::Pair(Box::new(read_operand(r)), Box::new(read_operand(r))),
        7 => Operand::Not(Box::new(read_operand(r))),
        _ => Operand::Paren(read_operands(r)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn every_kind_of_statement_reads_back_equal_and_an_instruction_is_small() {
        let add = Stmt::Inst(Inst::new(
            "add.s32",
            vec![
                Operand::reg("%r3"),
                Operand::reg("%r1"),
                Operand::Imm(Imm::Int(-5)),
            ],
        ));
        // tag, no guard, "add.s32" (8), %r3 (5), %r1 (5), -5 (3).
        assert_eq!(pack(&add).len(), 1 + 1 + 8 + 1 + 5 + 5 + 3);
        let mut guarded = Inst::new(
            "ld.global.v2.f32",
            vec![
                Operand::Vec(vec![Operand::reg("%f1"), Operand::reg("%f2")]),
                Operand::Addr {
                    base: AddrBase::Sym("g".into()),
                    offset: -8,
                    extra: vec![Operand::Imm(Imm::F64(1 << 62))],
                },
                Operand::Pair(
                    Box::new(Operand::reg("%r1")),
                    Box::new(Operand::Not(Box::new(Operand::reg("%p1")))),
                ),
                Operand::Paren(vec![Operand::SymOffset("$stack".into(), 1568)]),
                Operand::Imm(Imm::Hex(u64::MAX)),
                Operand::Imm(Imm::F32(0x3f80_0000)),
                Operand::Addr {
                    base: AddrBase::None,
                    offset: 1024,
                    extra: vec![],
                },
            ],
        );
        guarded.guard = Some(Guard {
            negated: true,
            reg: "%p2".into(),
        });
        let all = [
            add,
            Stmt::Inst(guarded),
            Stmt::Reg(RegDecl {
                words: vec![".reg".into(), ".b32".into()],
                names: vec![("%r".into(), Some(12)), ("%x".into(), None)],
            }),
            Stmt::Var(VarDecl {
                words: vec![".shared".into(), ".align".into(), "4".into()],
                name: "buf".into(),
                dims: vec![Some(16), None],
                init: Some(vec!["1".into(), "2".into()]),
            }),
            Stmt::Var(VarDecl {
                words: vec![],
                name: "v".into(),
                dims: vec![],
                init: None,
            }),
            Stmt::Label("$L__BB0_2".into()),
            Stmt::Pragma(vec!["\"nounroll\"".into()]),
            Stmt::Comment("%bb.3:".into()),
            Stmt::Directive(vec![".loc 1 7 3".into()]),
            Stmt::InlineAsm(vec![Stmt::Scope(vec![Stmt::Label("in".into())])]),
            Stmt::Scope(vec![]),
        ];
        for s in &all {
            assert_eq!(&unpack(&pack(s)), s);
        }
        assert_eq!(
            unpack(&[3, 0, 200]),
            unpack(&[3, 0, 0]),
            "cut short: no panic"
        );
    }
}
