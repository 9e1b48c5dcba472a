//! A MIR module as bytes, every field as it is (arena indices, erased instructions,
//! interned names in their order): how the DAG wasm hands instr-emitter's module to the
//! engine's wasm (`web_engine::dag_front`). Written with the trace's byte writer
//! ([`Bytes`]: LEB128 numbers, texts and lists), instructions as [`PackedInst`]s, so
//! the engine reads it with code it holds anyway rather than a serde decoder of its own.
//!
//! ```text
//!  module    ir?, functions
//!  function  name, target, props (4 bits), vregs, vreg_end, liveins, blocks,
//!            insts (packed), layout, names, frame, bundles
//!  map       its default value, then each value (a SecondaryMap's length kept)
//! ```

use super::PackedInst;
use crate::entity::{EntityRef, Interner, PrimaryMap, Sym};
use crate::mir::function::{BlockData, Function, Module, Props, Target, VRegInfo};
use crate::mir::layout::Layout;
use crate::mir::{Block, Inst, Reg, RegClass, VReg};
use crate::packing::{get_map, put_map};
/// The byte writer and reader, for other handovers written the same way
/// (`web_engine::dag_front`'s answer).
pub use crate::packing::{Bytes, Reader};
use alloc::vec::Vec;

/// `m` as bytes ([`module_from_bytes`] reads it back equal).
pub fn module_bytes(m: &Module) -> Vec<u8> {
    let mut w = Bytes::default();
    w.num(u64::from(m.ir.is_some()));
    if let Some(ir) = &m.ir {
        w.text(ir);
    }
    w.list(&m.functions, put_function);
    w.0
}

/// The module [`module_bytes`] wrote (bytes cut short read as empty parts).
pub fn module_from_bytes(b: &[u8]) -> Module {
    let mut r = Reader::new(b);
    Module {
        ir: (r.num() == 1).then(|| r.text()),
        functions: r.list(get_function),
    }
}

/// A register as one number: virtual `3n`, physical `3 name + 1`, `$noreg` 2.
fn reg_code(r: Reg) -> u64 {
    match r {
        Reg::Virt(v) => 3 * u64::from(v.as_u32()),
        Reg::Phys(s) => 3 * s.index() as u64 + 1,
        Reg::NoReg => 2,
    }
}

fn reg(r: &mut Reader<'_>) -> Reg {
    match r.num() {
        c if c % 3 == 0 => Reg::Virt(VReg::new((c / 3) as usize)),
        c if c % 3 == 1 => Reg::Phys(Sym::new((c / 3) as usize)),
        _ => Reg::NoReg,
    }
}

fn opt_sym(s: Option<Sym>) -> Option<u32> {
    s.map(|s| s.index() as u32)
}

fn sym(r: &mut Reader<'_>) -> Option<Sym> {
    r.opt().map(|s| Sym::new(s as usize))
}

fn put_function(w: &mut Bytes, f: &Function) {
    w.text(&f.name);
    let p = f.props;
    let bits = [p.is_ssa, p.no_phis, p.tracks_reg_liveness, p.optnone];
    let bits = (bits.iter().enumerate()).fold(0, |a, (k, &b)| a | u64::from(b) << k);
    w.num(u64::from(f.target == Target::Foreign) | bits << 1);
    put_map(w, &f.vregs, |w, v| {
        w.opt(v.class.map(RegClass::code));
        w.num(u64::from(v.exists));
    });
    w.num(u64::from(f.vreg_end));
    w.list(&f.liveins, |w, &(r, v)| {
        w.num(reg_code(r));
        w.opt(v.map(VReg::as_u32));
    });
    w.list(f.blocks.values().as_slice(), |w, b| {
        w.num(u64::from(b.number));
        w.opt(opt_sym(b.name));
        w.opt(opt_sym(b.attrs));
        w.list(&b.succs, |w, &(s, p)| {
            w.num(u64::from(s.as_u32()));
            w.opt(p);
        });
        w.list(&b.liveins, |w, &r| w.num(reg_code(r)));
    });
    w.list(f.insts.values().as_slice(), |w, d| {
        w.bytes(PackedInst::pack(d).bytes())
    });
    f.layout.put(w);
    w.num(f.names.len() as u64);
    for k in 0..f.names.len() {
        w.text(f.names.name(Sym::new(k)));
    }
    w.list(&f.frame, |w, (k, v)| {
        w.text(k);
        w.text(v);
    });
    w.list(&f.bundles, |w, (h, members)| {
        w.num(u64::from(h.as_u32()));
        w.list(members, |w, m| w.num(u64::from(m.as_u32())));
    });
}

fn get_function(r: &mut Reader<'_>) -> Function {
    let name = r.text();
    let head = r.num();
    let bit = |k: u32| head >> (k + 1) & 1 == 1;
    let target = [Target::Nvptx, Target::Foreign][(head & 1) as usize];
    let mut f = Function::new(&name, target);
    f.props = Props {
        is_ssa: bit(0),
        no_phis: bit(1),
        tracks_reg_liveness: bit(2),
        optnone: bit(3),
    };
    f.vregs = get_map(r, |r| VRegInfo {
        class: r.opt().map(RegClass::of_code),
        exists: r.num() == 1,
    });
    f.vreg_end = r.u32();
    f.liveins = r.list(|r| (reg(r), r.opt().map(VReg::from_u32)));
    let blocks = r.list(|r| BlockData {
        number: r.u32(),
        name: sym(r),
        attrs: sym(r),
        succs: r.list(|r| (Block::from_u32(r.u32()), r.opt())),
        liveins: r.list(reg),
    });
    f.blocks = PrimaryMap::from_iter(blocks);
    let insts = r.list(|r| PackedInst::from_bytes(r.bytes()).unpack());
    f.insts = PrimaryMap::from_iter(insts);
    f.layout = Layout::get(r);
    f.names = Interner::default();
    for _ in 0..r.count() {
        f.names.intern(r.str());
    }
    f.frame = r.list(|r| (r.text(), r.text()));
    f.bundles = r.list(|r| (Inst::from_u32(r.u32()), r.list(|r| Inst::from_u32(r.u32()))));
    f
}
