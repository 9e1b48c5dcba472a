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
//! debug builds). The bytes are written and read with [`crate::packing`]'s [`Bytes`] and
//! [`Reader`], as the ORI edits' and MIR instructions' packed forms are.

use crate::packing::{Bytes, Reader};
use crate::ptx::ast::{AddrBase, Guard, Imm, Inst, Operand, RegDecl, Stmt, VarDecl};
use alloc::boxed::Box;

/// An immediate: its kind, then its bits.
pub(crate) fn put_imm(w: &mut Bytes, i: Imm) {
    match i {
        Imm::Int(v) => {
            w.num(0);
            w.signed(v);
        }
        Imm::Hex(v) => {
            w.num(1);
            w.num(v);
        }
        Imm::F32(v) => {
            w.num(2);
            w.num(u64::from(v));
        }
        Imm::F64(v) => {
            w.num(3);
            w.num(v);
        }
    }
}

/// The immediate [`put_imm`] wrote.
pub(crate) fn read_imm(r: &mut Reader<'_>) -> Imm {
    match r.num() {
        0 => Imm::Int(r.signed()),
        1 => Imm::Hex(r.num()),
        2 => Imm::F32(r.u32()),
        _ => Imm::F64(r.num()),
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

fn stmt(w: &mut Bytes, s: &Stmt) {
    match s {
        Stmt::Reg(r) => {
            w.num(0);
            w.texts(&r.words);
            w.list(&r.names, |w, (name, n)| {
                w.text(name);
                w.opt(*n);
            });
        }
        Stmt::Var(v) => {
            w.num(1);
            w.texts(&v.words);
            w.text(&v.name);
            w.list(&v.dims, |w, d| w.opt(*d));
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
            w.list(&i.operands, operand);
        }
        Stmt::Pragma(words) => {
            w.num(4);
            w.texts(words);
        }
        Stmt::InlineAsm(v) => {
            w.num(5);
            w.list(v, stmt);
        }
        Stmt::Scope(v) => {
            w.num(6);
            w.list(v, stmt);
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

fn read_stmt(r: &mut Reader<'_>) -> Stmt {
    match r.num() {
        0 => {
            let words = r.texts();
            let names = r.list(|r| (r.text(), r.opt()));
            Stmt::Reg(RegDecl { words, names })
        }
        1 => {
            let (words, name) = (r.texts(), r.text());
            let dims = r.list(Reader::opt);
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
                operands: r.list(read_operand),
            })
        }
        4 => Stmt::Pragma(r.texts()),
        5 => Stmt::InlineAsm(r.list(read_stmt)),
        6 => Stmt::Scope(r.list(read_stmt)),
        7 => Stmt::Comment(r.text()),
        _ => Stmt::Directive(r.texts()),
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
            put_imm(w, *i);
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
            w.list(extra, operand);
        }
        Operand::Vec(v) => {
            w.num(5);
            w.list(v, operand);
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
            w.list(v, operand);
        }
    }
}

fn read_operand(r: &mut Reader<'_>) -> Operand {
    match r.num() {
        0 => Operand::Reg(r.text()),
        1 => Operand::Imm(read_imm(r)),
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
                extra: r.list(read_operand),
            }
        }
        5 => Operand::Vec(r.list(read_operand)),
        6 => Operand::Pair(Box::new(read_operand(r)), Box::new(read_operand(r))),
        7 => Operand::Not(Box::new(read_operand(r))),
        _ => Operand::Paren(r.list(read_operand)),
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
