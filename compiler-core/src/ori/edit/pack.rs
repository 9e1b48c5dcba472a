//! An ORI instruction or register-table entry as an edit keeps it: LEB128 numbers and
//! length-prefixed text in one byte string ([`crate::packing`]'s writer and reader).
//!
//! ```text
//!  add.s32 R3, R1, R2  (class 300)   Inst: 144 bytes in its box (three operands
//!                                    inline)
//!                                    packed: class, ndst, guard, origin, scope, line,
//!                                    "add.s32", 3 × (head, register, type) = 22 bytes
//!  %r3 .b32, 1 def, 2 uses           RegInfo: 112 bytes in its box and the name's
//!                                    packed: "%r3", type, bits, counts = 11 bytes
//! ```
//!
//! Every field is kept (unpacking gives back an equal value; packing checks that in
//! debug builds).

use super::super::{
    type_word, AddrBase, Address, BlockId, Class, Inst, InstId, OpKind, Operand, Origin, RegId,
    RegInfo,
};
use crate::entity::EntityRef;
use crate::packing::{Bytes, Reader};
use crate::ptx::edit::pack::{put_imm, read_imm};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// An ORI instruction, packed (one word inline).
#[derive(Clone, PartialEq)]
#[allow(clippy::redundant_allocation)] // the inner box is a slice: the outer one makes it thin
pub struct PackedOriInst(Box<Box<[u8]>>);

impl PackedOriInst {
    pub fn new(i: &Inst) -> Self {
        let mut w = Bytes::default();
        w.num(i.class as u64);
        w.num(u64::from(i.ndst));
        // No guard as 0, a guard as its register and whether it is negated.
        w.num(
            i.guard
                .map_or(0, |(r, neg)| 2 * r.index() as u64 + 1 + u64::from(neg)),
        );
        match i.origin {
            Origin::Ptx => w.num(0),
            Origin::Lowering => w.num(1),
            Origin::InlineAsm(n) => w.num(2 + u64::from(n)),
        }
        w.num(u64::from(i.scope));
        w.num(u64::from(i.line));
        w.text(&i.opcode);
        operands(&mut w, &i.operands);
        let p = PackedOriInst(Box::new(w.0.into_boxed_slice()));
        debug_assert!(p.get() == *i, "packing lost a field of {i:?}");
        p
    }

    /// The instruction, as it was packed.
    pub fn get(&self) -> Inst {
        let mut r = Reader::new(&self.0);
        let class = Class::ALL[(r.num() as usize).min(Class::ALL.len() - 1)];
        let ndst = r.num() as u8;
        let guard = match r.num() {
            0 => None,
            g => Some((RegId::new(((g - 1) / 2) as usize), (g - 1) % 2 == 1)),
        };
        let origin = match r.num() {
            0 => Origin::Ptx,
            1 => Origin::Lowering,
            n => Origin::InlineAsm((n - 2) as u32),
        };
        let (scope, line) = (r.u32(), r.u32());
        let opcode = r.str().into();
        Inst {
            class,
            opcode,
            operands: read_operands(&mut r).into_iter().collect(),
            ndst,
            guard,
            origin,
            scope,
            line,
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        16 + self.0.len()
    }
    /// The packed bytes (a step log keeps them in its own arena).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
    /// The instruction `bytes` hold, as [`PackedOriInst::bytes`] gave them.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Self {
        PackedOriInst(Box::new(bytes.into()))
    }
}

impl core::fmt::Debug for PackedOriInst {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.get(), f)
    }
}

/// A register-table entry, packed.
#[derive(Clone, PartialEq)]
pub struct PackedReg(Box<[u8]>);

impl PackedReg {
    /// The packed bytes (a step log keeps them in its own arena).
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.0
    }
    /// The entry `bytes` hold, as [`PackedReg::bytes`] gave them.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Self {
        PackedReg(bytes.into())
    }
    pub fn new(r: &RegInfo) -> Self {
        let mut w = Bytes::default();
        w.text(&r.name);
        w.text(&r.decl);
        for v in [r.bits, r.constraint, r.defs, r.uses, r.scope] {
            w.num(u64::from(v));
        }
        w.opt(r.def_anchor.map(|i| i.index() as u32));
        let p = PackedReg(w.0.into_boxed_slice());
        debug_assert!(p.get() == *r, "packing lost a field of {r:?}");
        p
    }

    /// The entry, as it was packed.
    pub fn get(&self) -> RegInfo {
        let mut r = Reader::new(&self.0);
        let name = r.text();
        let decl = type_word(r.str());
        let (bits, constraint, defs, uses, scope) = (r.u32(), r.u32(), r.u32(), r.u32(), r.u32());
        RegInfo {
            name,
            decl,
            bits,
            constraint,
            def_anchor: r.opt().map(|i| InstId::new(i as usize)),
            defs,
            uses,
            scope,
        }
    }
}

impl core::fmt::Debug for PackedReg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.get(), f)
    }
}

fn operands(w: &mut Bytes, v: &[Operand]) {
    w.list(v, operand);
}

/// An operand: a head (its kind's tag, the neg and abs modifiers, and whether marks or
/// an immediate constraint follow), its type, the kind's contents, then the marks and
/// constraint when the head says so.
pub(crate) fn operand(w: &mut Bytes, o: &Operand) {
    let tag = match &o.kind {
        OpKind::Reg(_) => 0,
        OpKind::Imm(_) => 1,
        OpKind::Sym(_) => 2,
        OpKind::Special(_) => 3,
        OpKind::Addr(_) => 4,
        OpKind::Vec(_) => 5,
        OpKind::Block(_) => 6,
        OpKind::Pair(..) => 7,
        OpKind::Not(_) => 8,
        OpKind::Paren(_) => 9,
    };
    let extra = o.flags != 0 || o.imm_constraint != 0;
    w.num(tag | u64::from(o.neg) << 4 | u64::from(o.abs) << 5 | u64::from(extra) << 6);
    w.num(u64::from(o.ty));
    match &o.kind {
        OpKind::Reg(r) => w.num(r.index() as u64),
        OpKind::Imm(i) => put_imm(w, *i),
        OpKind::Sym(s) | OpKind::Special(s) => w.text(s),
        OpKind::Addr(a) => {
            match &a.base {
                AddrBase::Reg(r) => w.num(2 * r.index() as u64 + 2),
                AddrBase::Sym(s) => {
                    w.num(1);
                    w.text(s);
                }
                AddrBase::None => w.num(0),
            }
            w.signed(a.offset);
            operands(w, &a.extra);
        }
        OpKind::Vec(v) | OpKind::Paren(v) => operands(w, v),
        OpKind::Block(b) => w.num(b.index() as u64),
        OpKind::Pair(a, b) => {
            operand(w, a);
            operand(w, b);
        }
        OpKind::Not(a) => operand(w, a),
    }
    if extra {
        w.num(u64::from(o.flags));
        w.num(u64::from(o.imm_constraint));
    }
}

fn read_operands(r: &mut Reader<'_>) -> Vec<Operand> {
    r.list(read_operand)
}

pub(crate) fn read_operand(r: &mut Reader<'_>) -> Operand {
    let head = r.num();
    let ty = r.num() as u8;
    let kind = match head & 15 {
        0 => OpKind::Reg(RegId::new(r.num() as usize)),
        1 => OpKind::Imm(read_imm(r)),
        2 => OpKind::Sym(r.str().into()),
        3 => OpKind::Special(r.str().into()),
        4 => {
            let base = match r.num() {
                0 => AddrBase::None,
                1 => AddrBase::Sym(r.str().into()),
                b => AddrBase::Reg(RegId::new((b / 2 - 1) as usize)),
            };
            let offset = r.signed();
            OpKind::Addr(Box::new(Address {
                base,
                offset,
                extra: read_operands(r),
            }))
        }
        5 => OpKind::Vec(read_operands(r).into()),
        6 => OpKind::Block(BlockId::new(r.num() as usize)),
        7 => OpKind::Pair(Box::new(read_operand(r)), Box::new(read_operand(r))),
        8 => OpKind::Not(Box::new(read_operand(r))),
        _ => OpKind::Paren(read_operands(r).into()),
    };
    let mut o = Operand::new(kind, ty);
    o.neg = head & 1 << 4 != 0;
    o.abs = head & 1 << 5 != 0;
    if head & 1 << 6 != 0 {
        o.flags = r.u32();
        o.imm_constraint = r.num() as u8;
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::ast::Imm;
    use alloc::string::String;
    use alloc::vec;

    fn op(kind: OpKind, ty: u8) -> Operand {
        Operand::new(kind, ty)
    }

    #[test]
    fn instructions_and_register_entries_read_back_equal() {
        let r = RegId::new;
        let add = Inst {
            class: Class::IntAdd,
            opcode: "add.s32".into(),
            operands: [0, 1, 2].map(|k| op(OpKind::Reg(r(k + 1)), 1)).into(),
            ndst: 1,
            guard: None,
            origin: Origin::Ptx,
            scope: 0,
            line: 0,
        };
        // Class, ndst, guard, origin, scope, line, "add.s32" (8), 3 × (head, type, reg).
        assert_eq!(PackedOriInst::new(&add).heap_bytes(), 16 + 6 + 8 + 1 + 9);
        let mut neg = op(OpKind::Imm(Imm::F32(0x3f80_0000)), 2);
        neg.neg = true;
        neg.flags = 0x300;
        neg.imm_constraint = 4;
        let mut abs = op(OpKind::Special("%tid.x".into()), 1);
        abs.abs = true;
        let addr = Address {
            base: AddrBase::Reg(r(300)),
            offset: -16,
            extra: vec![op(OpKind::Imm(Imm::Int(-1)), 1)],
        };
        let odd = Inst {
            class: Class::Other,
            opcode: "some.very.long.opcode.name.past.23".into(),
            operands: vec![
                neg,
                abs,
                op(OpKind::Addr(Box::new(addr)), 1),
                op(OpKind::Sym("g".into()), 0),
                op(OpKind::Vec(vec![op(OpKind::Reg(r(4)), 10)].into()), 10),
                op(OpKind::Block(BlockId::new(7)), 0),
                op(
                    OpKind::Pair(
                        Box::new(op(OpKind::Reg(r(1)), 1)),
                        Box::new(op(OpKind::Not(Box::new(op(OpKind::Reg(r(2)), 0))), 0)),
                    ),
                    0,
                ),
                op(OpKind::Paren(Box::new([])), 0),
                op(
                    OpKind::Addr(Box::new(Address {
                        base: AddrBase::Sym("$stack".into()),
                        offset: 1568,
                        extra: vec![],
                    })),
                    0,
                ),
                op(
                    OpKind::Addr(Box::new(Address {
                        base: AddrBase::None,
                        offset: 1024,
                        extra: vec![],
                    })),
                    0,
                ),
            ]
            .into(),
            ndst: 2,
            guard: Some((r(9), true)),
            origin: Origin::InlineAsm(3),
            scope: 2,
            line: 4000,
        };
        for i in [&add, &odd] {
            assert_eq!(&PackedOriInst::new(i).get(), i);
        }
        for (c, class) in Class::ALL.iter().enumerate() {
            assert_eq!(*class as usize, c, "{class:?} in declaration order");
        }
        let lowering = Inst {
            class: Class::Anchor,
            origin: Origin::Lowering,
            guard: Some((r(0), false)),
            ..add
        };
        assert_eq!(PackedOriInst::new(&lowering).get(), lowering);
        for (name, decl) in [("%r3", ".b32"), ("%weird", ".odd")] {
            let info = RegInfo {
                name: String::from(name),
                decl: type_word(decl),
                bits: 32,
                constraint: 0x40,
                def_anchor: Some(InstId::new(12)),
                defs: 1,
                uses: 300,
                scope: 1,
            };
            assert_eq!(PackedReg::new(&info).get(), info);
            let none = RegInfo {
                def_anchor: None,
                ..info
            };
            assert_eq!(PackedReg::new(&none).get(), none);
        }
    }
}
