//! What the NVPTX target tells instruction selection and the emitter about each opcode
//! and register class (the slices of NVPTXInstrInfo, NVPTXRegisterInfo and
//! NVPTXTargetLowering they consult).
//!
//! ```text
//!  instr_info(op) ─▶ def classes, use-operand classes, implicit physical defs, hooks
//!  regclass_for(vt, divergent)   TLI::getRegClassFor
//!  common_subclass(a, b)         TRI::getCommonSubClass
//!  num_regs(rc)                  the class's register count (the MinRCSize rule reads it)
//!  min_phys_class(reg, vt)       TRI::getMinimalPhysRegClass
//! ```
//!
//! The class lattice: each typed class (`int32regs`, `float32regs`, ...) is a subclass of
//! the untyped class of its width (`b32`); two typed classes have no common subclass;
//! tuples intersect lane-wise and only with tuples of the same lane count.
//!
//! CopyScope's rules, not from the spec: the divergence rule of `regclass_for`, the hook
//! claims of `instr_info` and the register counts below.
//!
//! Register counts are ours, modelled on how NVPTX's register file description lists
//! its classes: five numbered registers per typed class, seven for `int32regs` and
//! `int64regs` (which also hold the two frame registers); an untyped class holds the
//! registers of all typed classes of its width; a tuple of N lanes is carved out of its
//! base class in disjoint groups, so it has `base / N` members: a tuple of a typed class
//! always has fewer than 4, and narrowing anything to one trips the MinRCSize rule.

use super::Vt;
use crate::mir::{Family, Op, RegClass, ScalarClass, ValueKind};

/// The emitter's constraint on one register operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct InstrInfo {
    /// Class of each explicit def ("" = decided by the value type).
    pub defs: &'static [&'static str],
    /// Class of each use operand, by position among the MIR uses ("-" = none).
    pub uses: &'static [&'static str],
    /// Physical registers the instruction writes besides its explicit defs.
    pub implicit_defs: &'static [&'static str],
    /// EmitInstrWithCustomInserter (vtable slot 0xB8) is overridden for this opcode.
    pub custom_inserter: bool,
    /// expandPostRAPseudo (slot 0x348) is overridden.
    pub post_ra_pseudo: bool,
    /// The sub-register inserter (slot 0x160) is overridden.
    pub subreg_inserter: bool,
}

const fn ii(defs: &'static [&'static str], uses: &'static [&'static str]) -> InstrInfo {
    InstrInfo {
        defs,
        uses,
        implicit_defs: &[],
        custom_inserter: false,
        post_ra_pseudo: false,
        subreg_inserter: false,
    }
}

const fn custom(mut i: InstrInfo) -> InstrInfo {
    i.custom_inserter = true;
    i
}

const NONE: InstrInfo = ii(&[], &[]);
const LD_OPS: &[&str] = &["-", "-", "-", "-", "-", "-", "-", "-"];
const I32_2: &[&str] = &["int32regs", "int32regs"];
const F32_2: &[&str] = &["float32regs", "float32regs"];

/// The operand description of `op`.
pub fn instr_info(op: Op) -> InstrInfo {
    use Op::*;
    match op {
        LD_i32 => ii(&["int32regs"], LD_OPS),
        LD_i64 => ii(&["int64regs"], LD_OPS),
        LD_f32 => ii(&["float32regs"], LD_OPS),
        ST_i32 => ii(&[], &["b32", "-", "-", "-", "-", "b64", "-"]),
        ST_i64 => ii(&[], &["b64", "-", "-", "-", "-", "b64", "-"]),
        ADD32rr | SUB32rr | MULT32rr | XOR_b32rr | AND_b32rr | OR_b32rr => {
            ii(&["int32regs"], I32_2)
        }
        ADD32ri | MULT32ri | SHL32_ri | SRL32_ri => ii(&["int32regs"], &["int32regs", "-"]),
        ADD64rr | OR_b64rr => ii(&["int64regs"], &["int64regs", "int64regs"]),
        ADD64ri | SHL64_ri => ii(&["int64regs"], &["int64regs", "-"]),
        MAD_LO_S32rrr => ii(&["int32regs"], &["int32regs", "int32regs", "int32regs"]),
        FADDf32rr | FADD_rnf32rr | FSUBf32rr | FSUB_rnf32rr | FMULf32rr | FMUL_rnf32rr => {
            ii(&["float32regs"], F32_2)
        }
        FMA_F32rrr => ii(
            &["float32regs"],
            &["float32regs", "float32regs", "float32regs"],
        ),
        FADD_rnf16x2rr => ii(&["float16x2regs"], &["b32", "b32"]),
        SETP_i32rr => ii(&["int1regs"], &["int32regs", "int32regs", "-"]),
        SETP_i32ri => ii(&["int1regs"], &["int32regs", "-", "-"]),
        SETP_f32rr => ii(&["int1regs"], &["float32regs", "float32regs", "-"]),
        SELP_b32rr => ii(&["b32"], &["b32", "b32", "int1regs"]),
        CVT_f32_s32 | CVT_f32_u32 => ii(&["float32regs"], &["int32regs", "-"]),
        CVT_s32_f32 => ii(&["int32regs"], &["float32regs", "-"]),
        cvta_to_global_64 => ii(&["int64regs"], &["int64regs"]),
        MOV_B1_i => ii(&["b1"], &["-"]),
        MOV_B16_i => ii(&["b16"], &["-"]),
        MOV_B32_i => ii(&["b32"], &["-"]),
        MOV_B64_i => ii(&["b64"], &["-"]),
        IMOV32rr => ii(&["int32regs"], &["int32regs"]),
        IMOV64rr => ii(&["int64regs"], &["int64regs"]),
        FMOV32rr => ii(&["float32regs"], &["float32regs"]),
        IMOV1rr => ii(&["int1regs"], &["int1regs"]),
        IMPLICIT_DEF => ii(&[""], &[]),
        REG_SEQUENCE => InstrInfo {
            subreg_inserter: true,
            ..ii(&[""], &[])
        },
        // Texture fetches as llc-22 selects them: four defs, classes by value type.
        TEX_UNIFIED_2D_F32_F32_R | TEX_UNIFIED_1D_S32_S32_R => custom(NONE),
        // CICC-era fetches with one tuple def (no gallery DAG uses them; the emitter's
        // rule tests do: the `_P` form's implicit def `$texpred` is what a glued
        // CopyFromReg with bit 36 reads back).
        TEX_2D_V4F32_F32 => custom(ii(
            &["float32regsx4"],
            &["int64regs", "float32regs", "float32regs"],
        )),
        TEX_2D_V4F32_F32_P => InstrInfo {
            implicit_defs: &["texpred"],
            ..custom(ii(
                &["float32regsx4"],
                &["int64regs", "float32regs", "float32regs"],
            ))
        },
        MMA_M16N8K8_TF32 => ii(
            &["float32regsx4"],
            &["float32regs", "float32regs", "float32regs"],
        ),
        MMA_M16N8K8_TF32_ACC => ii(
            &["float32regsx4"],
            &["float32regs", "float32regs", "float32regsx4"],
        ),
        CP_ASYNC_CA_SHARED => ii(&["int32regsx2"], &["int64regs"]),
        SHFL_SYNC_IDX_i32 | SHFL_SYNC_DOWN_i32 => custom(ii(
            &["int32regs"],
            &["int32regs", "int32regs", "int32regs", "int32regs"],
        )),
        CBranch | CBranchOther => ii(&[], &["int1regs", "-"]),
        _ => NONE,
    }
}

/// The operand description the emitter uses: [`instr_info`], or, emitting as llc-22
/// does, none of its classes and hooks (llc-22's classes follow the value types, see
/// [`llc22_class`]; the hook claims are CopyScope's CICC table).
pub fn emitter_info(op: Op, llc22: bool) -> InstrInfo {
    if llc22 {
        NONE
    } else {
        instr_info(op)
    }
}

// `USE_COUNTS`, generated by `build.rs` from the use-count column of `mir/nvptx.isa`.
include!(concat!(env!("OUT_DIR"), "/isa_uses.rs"));

/// How many explicit MIR use operands a machine node of `op` has (registers and
/// immediates, not the chain or glue), for the parser's check: the least and the most,
/// from the instruction description's use-count column (llc-22's count; the CICC-era
/// float forms may leave out the trailing flush-to-zero immediate, so they take a
/// range). `None`: variadic.
pub fn use_count(op: Op) -> Option<(usize, usize)> {
    USE_COUNTS[op as usize].map(|(lo, hi)| (lo as usize, hi as usize))
}

impl InstrInfo {
    pub fn def_class(&self, i: usize) -> Option<RegClass> {
        self.defs.get(i).and_then(|n| RegClass::parse_nvptx(n))
    }
    pub fn use_class(&self, i: usize) -> Option<RegClass> {
        self.uses.get(i).and_then(|n| RegClass::parse_nvptx(n))
    }
}

fn scalar(name: &str) -> RegClass {
    RegClass::Scalar(ScalarClass::by_name(name).expect("class in the table"))
}

/// The typed class for a value type.
pub fn typed_class(vt: Vt) -> Option<RegClass> {
    Some(scalar(match vt {
        Vt::I1 => "int1regs",
        Vt::I16 => "int16regs",
        Vt::I32 => "int32regs",
        Vt::I64 => "int64regs",
        Vt::I128 => "int128regs",
        Vt::F16 => "float16regs",
        Vt::V2F16 => "float16x2regs",
        Vt::F32 => "float32regs",
        Vt::F64 => "float64regs",
        _ => return None,
    }))
}

/// The untyped class of a width.
pub fn width_class(f: Family) -> RegClass {
    scalar(match f {
        Family::B1 => "b1",
        Family::B16 => "b16",
        Family::B32 => "b32",
        Family::B64 => "b64",
        Family::B128 => "b128",
    })
}

/// TLI::getRegClassFor, as CopyScope models it (our rule, not from the spec): a divergent
/// value is pinned to the typed class of its type (a per-thread register); a uniform one
/// may live in any register of its width.
pub fn regclass_for(vt: Vt, divergent: bool) -> Option<RegClass> {
    let typed = typed_class(vt)?;
    if divergent {
        Some(typed)
    } else {
        Some(width_class(typed.family()?))
    }
}

/// The class llc-22's NVPTX gives a value of type `vt`: the width class (`b1`, `b16`,
/// `b32`, `b64`, `b128`); llc-22 has no typed classes.
pub fn llc22_class(vt: Vt) -> Option<RegClass> {
    Some(width_class(typed_class(vt)?.family()?))
}

/// Typed classes count as divergent classes (TRI::isDivergentRegClass).
pub fn is_divergent_class(rc: RegClass) -> bool {
    match rc {
        RegClass::Scalar(s) | RegClass::Tuple { base: s, .. } => !s.is_untyped(),
        RegClass::Foreign(_) => false,
    }
}

fn common_scalar(a: ScalarClass, b: ScalarClass) -> Option<ScalarClass> {
    if a == b {
        return Some(a);
    }
    if a.family() != b.family() {
        return None;
    }
    match (a.is_untyped(), b.is_untyped()) {
        (true, false) => Some(b),
        (false, true) => Some(a),
        _ => None,
    }
}

/// TRI::getCommonSubClass.
pub fn common_subclass(a: RegClass, b: RegClass) -> Option<RegClass> {
    match (a, b) {
        _ if a == b => Some(a),
        (RegClass::Scalar(x), RegClass::Scalar(y)) => common_scalar(x, y).map(RegClass::Scalar),
        (RegClass::Tuple { base: x, lanes: n }, RegClass::Tuple { base: y, lanes: m })
            if n == m =>
        {
            common_scalar(x, y).map(|base| RegClass::Tuple { base, lanes: n })
        }
        _ => None,
    }
}

/// Whether `sub` is `sup` or one of its subclasses.
pub fn is_subclass(sub: RegClass, sup: RegClass) -> bool {
    common_subclass(sub, sup) == Some(sub)
}

/// How many registers a class has (see the module notes).
pub fn num_regs(rc: RegClass) -> u32 {
    fn scalar_count(s: ScalarClass) -> u32 {
        if s.is_untyped() {
            ScalarClass::all()
                .filter(|t| !t.is_untyped() && t.family() == s.family())
                .map(scalar_count)
                .sum()
        } else if matches!(s.info().name, "int32regs" | "int64regs") {
            7
        } else {
            5
        }
    }
    match rc {
        RegClass::Scalar(s) => scalar_count(s),
        RegClass::Tuple { base, lanes } => scalar_count(base) / lanes as u32,
        RegClass::Foreign(_) => 0,
    }
}

/// TRI::getMinimalPhysRegClass for a physical register read as `vt`: the typed class
/// (parameter registers come out as int32regs or int64regs for i32 and i64).
pub fn min_phys_class(vt: Vt) -> Option<RegClass> {
    typed_class(vt)
}

/// A one-line description of a class for narration:
/// "float32regs (5 registers in CopyScope's model)" (the counts are ours).
pub fn describe(rc: RegClass) -> alloc::string::String {
    let names = crate::entity::Interner::default();
    alloc::format!(
        "{} ({} registers in CopyScope's model)",
        rc.display(&names),
        num_regs(rc)
    )
}

/// The kind of value a class is typed for (for narration).
pub fn kind_of(rc: RegClass) -> Option<ValueKind> {
    match rc {
        RegClass::Scalar(s) | RegClass::Tuple { base: s, .. } => Some(s.info().kind),
        RegClass::Foreign(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(n: &str) -> RegClass {
        RegClass::parse_nvptx(n).unwrap()
    }

    #[test]
    fn the_lattice_meets_typed_and_width_classes() {
        assert_eq!(
            common_subclass(c("b32"), c("int32regs")),
            Some(c("int32regs"))
        );
        assert_eq!(common_subclass(c("float32regs"), c("int32regs")), None);
        assert_eq!(common_subclass(c("b64"), c("int32regs")), None);
        assert_eq!(
            common_subclass(c("b32x4"), c("float32regsx4")),
            Some(c("float32regsx4"))
        );
        assert_eq!(common_subclass(c("b32x4"), c("float32regsx2")), None);
        assert!(is_subclass(c("int64regs"), c("b64")));
    }

    #[test]
    fn counts_put_tuples_under_the_min_rc_size() {
        assert_eq!(num_regs(c("int32regs")), 7);
        assert_eq!(num_regs(c("float32regs")), 5);
        assert_eq!(num_regs(c("b32")), 17);
        assert_eq!(num_regs(c("float32regsx4")), 1);
        assert_eq!(num_regs(c("b32x4")), 4);
        assert_eq!(num_regs(c("float32regsx2")), 2);
    }

    #[test]
    fn divergence_picks_typed_or_width_class() {
        assert_eq!(regclass_for(Vt::F32, true), Some(c("float32regs")));
        assert_eq!(regclass_for(Vt::F32, false), Some(c("b32")));
        assert_eq!(regclass_for(Vt::Ch, true), None);
    }
}
