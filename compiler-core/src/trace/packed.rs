//! An instruction as a trace keeps it: the contents of an inserted instruction as
//! LEB128 numbers instead of an [`InstData`] and its operand vector.
//!
//! ```text
//!  %7:b32 = COPY killed %3     InstData 48 B + 2 operands × 32 B   = 112 bytes
//!                              packed: opcode, counts, per operand its kind and
//!                              register (flags, sub-register, ... only when set)
//!                              = 9 bytes (and a 16-byte box)
//! ```
//!
//! Every field is kept ([`PackedInst::unpack`] gives back an equal [`InstData`]); the
//! numbers are the entities' indices (registers, names, blocks), so nothing is looked up.

use super::compact::varint::{self, put_u32 as write_leb, put_u64 as write_leb64};
use crate::entity::{EntityRef, Sym};
use crate::mir::operand::{FpImm, Sigil};
use crate::mir::{
    Block, InstData, Op, Opcode, Operand, OperandKind, Reg, SubReg, SubRegKind, VReg,
};
use alloc::boxed::Box;
use alloc::vec::Vec;

/// An [`InstData`] packed (one word inline; see the module header).
#[derive(Clone, PartialEq, Eq)]
#[allow(clippy::redundant_allocation)] // the inner box is a slice: the outer one makes it thin
pub struct PackedInst(Box<Box<[u8]>>);

impl PackedInst {
    pub fn pack(d: &InstData) -> Self {
        let mut out = Vec::with_capacity(8 + 4 * d.operands.len());
        write_leb(&mut out, opcode_code(d.opcode));
        for v in [
            u32::from(d.lhs_defs),
            u32::from(d.mi_flags),
            opt_sym(d.mem),
            opt_sym(d.trailing),
            d.operands.len() as u32,
        ] {
            write_leb(&mut out, v);
        }
        for o in &d.operands {
            write_operand(&mut out, o);
        }
        let p = PackedInst(Box::new(out.into_boxed_slice()));
        debug_assert!(p.unpack() == *d, "packing lost a field of {d:?}");
        p
    }

    /// The instruction, as it was packed.
    pub fn unpack(&self) -> InstData {
        let mut r = Reader(&self.0);
        let opcode = match r.u32() {
            c if c % 2 == 0 => Opcode::Known(Op::all()[(c / 2) as usize]),
            c => Opcode::Other(sym(c / 2)),
        };
        let (lhs_defs, mi_flags) = (r.u32() as u16, r.u32() as u16);
        let (mem, trailing) = (r.opt_sym(), r.opt_sym());
        let n = r.u32() as usize;
        let operands = (0..n).map(|_| read_operand(&mut r)).collect();
        InstData {
            opcode,
            operands,
            lhs_defs,
            mi_flags,
            mem,
            trailing,
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        16 + self.0.len()
    }
}

impl core::fmt::Debug for PackedInst {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.unpack(), f)
    }
}

fn opcode_code(o: Opcode) -> u32 {
    match o {
        Opcode::Known(op) => 2 * op as u32,
        Opcode::Other(s) => 2 * s.index() as u32 + 1,
    }
}

fn sym(i: u32) -> Sym {
    Sym::new(i as usize)
}

fn opt_sym(s: Option<Sym>) -> u32 {
    s.map_or(0, |s| s.index() as u32 + 1)
}

fn subreg_code(s: SubReg) -> u32 {
    match s.kind() {
        SubRegKind::Lane(l) => 2 * u32::from(l),
        SubRegKind::Named(n) => 2 * n.index() as u32 + 1,
    }
}

fn subreg_of(c: u32) -> SubReg {
    if c.is_multiple_of(2) {
        SubReg::of_lane((c / 2) as u8)
    } else {
        SubReg::of_name(sym(c / 2))
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

const SIGILS: [Sigil; 4] = [Sigil::Amp, Sigil::AmpQuoted, Sigil::At, Sigil::AtQuoted];

/// An operand: a head (its kind's tag, and a bit for each optional field present), the
/// kind's numbers, then the optional fields that are set.
fn write_operand(out: &mut Vec<u8>, o: &Operand) {
    let tag = match o.kind {
        OperandKind::Reg(Reg::Virt(_)) => 0,
        OperandKind::Reg(Reg::Phys(_)) => 1,
        OperandKind::Reg(Reg::NoReg) => 2,
        OperandKind::Imm(_) => 3,
        OperandKind::FpImm(_) => 4,
        OperandKind::SubRegIdx(_) => 5,
        OperandKind::Block(_) => 6,
        OperandKind::Global { .. } => 7,
        OperandKind::Stack { .. } => 8,
        OperandKind::Verbatim(_) => 9,
    };
    let present = [
        o.flags != 0,
        o.subreg.is_some(),
        o.tied_def.is_some(),
        o.llt.is_some(),
        o.comment.is_some(),
    ];
    let head = present
        .iter()
        .enumerate()
        .fold(tag, |h, (k, &p)| h | (u32::from(p) << (4 + k)));
    write_leb(out, head);
    match o.kind {
        OperandKind::Reg(Reg::Virt(v)) => write_leb(out, v.index() as u32),
        OperandKind::Reg(Reg::Phys(s)) | OperandKind::Verbatim(s) => {
            write_leb(out, s.index() as u32)
        }
        OperandKind::Reg(Reg::NoReg) => {}
        OperandKind::Imm(i) => write_leb64(out, zigzag(i)),
        OperandKind::FpImm(FpImm { ty, text }) => {
            write_leb(out, ty.index() as u32);
            write_leb(out, text.index() as u32);
        }
        OperandKind::SubRegIdx(s) => write_leb(out, subreg_code(s)),
        OperandKind::Block(b) => write_leb(out, b.index() as u32),
        OperandKind::Global { sym, sigil, offset } => {
            write_leb(out, sym.index() as u32);
            write_leb(
                out,
                SIGILS.iter().position(|s| *s == sigil).unwrap_or(0) as u32,
            );
            write_leb64(out, zigzag(offset));
        }
        OperandKind::Stack { fixed, index } => {
            write_leb(out, u32::from(fixed));
            write_leb(out, index);
        }
    }
    let optional = [
        u32::from(o.flags),
        o.subreg.map_or(0, subreg_code),
        o.tied_def.map_or(0, u32::from),
        o.llt.map_or(0, |s| s.index() as u32),
        o.comment.map_or(0, |s| s.index() as u32),
    ];
    for (v, p) in optional.into_iter().zip(present) {
        if p {
            write_leb(out, v);
        }
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u32(&mut self) -> u32 {
        let mut pos = 0;
        let v = varint::read_u32(self.0, &mut pos);
        self.0 = &self.0[pos..];
        v
    }
    fn u64(&mut self) -> u64 {
        let mut pos = 0;
        let v = varint::read_u64(self.0, &mut pos);
        self.0 = &self.0[pos..];
        v
    }
    fn sym(&mut self) -> Sym {
        sym(self.u32())
    }
    fn opt_sym(&mut self) -> Option<Sym> {
        match self.u32() {
            0 => None,
            s => Some(sym(s - 1)),
        }
    }
}

fn read_operand(r: &mut Reader<'_>) -> Operand {
    let head = r.u32();
    let kind = match head & 15 {
        0 => OperandKind::Reg(Reg::Virt(VReg::new(r.u32() as usize))),
        1 => OperandKind::Reg(Reg::Phys(r.sym())),
        2 => OperandKind::Reg(Reg::NoReg),
        3 => OperandKind::Imm(unzigzag(r.u64())),
        4 => OperandKind::FpImm(FpImm {
            ty: r.sym(),
            text: r.sym(),
        }),
        5 => OperandKind::SubRegIdx(subreg_of(r.u32())),
        6 => OperandKind::Block(Block::new(r.u32() as usize)),
        7 => OperandKind::Global {
            sym: r.sym(),
            sigil: SIGILS[(r.u32() as usize).min(3)],
            offset: unzigzag(r.u64()),
        },
        8 => OperandKind::Stack {
            fixed: r.u32() != 0,
            index: r.u32(),
        },
        _ => OperandKind::Verbatim(r.sym()),
    };
    let mut o = Operand::new(kind);
    let has = |k: u32| head & (1 << (4 + k)) != 0;
    if has(0) {
        o.flags = r.u32() as u16;
    }
    if has(1) {
        o.subreg = Some(subreg_of(r.u32()));
    }
    if has(2) {
        o.tied_def = Some(r.u32() as u8);
    }
    if has(3) {
        o.llt = Some(r.sym());
    }
    if has(4) {
        o.comment = Some(r.sym());
    }
    o
}
