//! Register classes.
//!
//! NVPTX has one virtual register file per class. CICC-era MIR names classes by type
//! (`int32regs`, `float32regs`, ...); `llc-22` names them by width (`b32`, ...). Both sets
//! live in one table and classes of the same width share a [`Family`]: `int32regs`,
//! `float32regs`, `float16x2regs` and `b32` are all 32-bit registers.
//!
//! Tuple classes hold the N results of a multi-result instruction (texture fetches, MMA
//! fragments); lane `i` is sub-register `sub{i}`. They are spelled `<base>x<N>`, for
//! example `float32regsx4` or `b32x16`.
//!
//! Classes of other targets (the x86 and AMDGPU syntax references in the corpus) are
//! accepted only in functions whose target triple is not NVPTX, as opaque `Foreign`
//! classes.

use crate::entity::EntityRef;
use core::fmt;
use serde::{Deserialize, Serialize};

/// The bit width a class's registers hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Family {
    B1,
    B16,
    B32,
    B64,
    B128,
}

impl Family {
    pub const fn bits(self) -> u32 {
        match self {
            Family::B1 => 1,
            Family::B16 => 16,
            Family::B32 => 32,
            Family::B64 => 64,
            Family::B128 => 128,
        }
    }
}

/// What kind of value a class is meant for; `Untyped` for the llc-22 width classes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ValueKind {
    Pred,
    Int,
    Float,
    Untyped,
}

/// A scalar NVPTX class.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ScalarClass(u8);

pub struct ScalarClassInfo {
    pub name: &'static str,
    pub family: Family,
    pub kind: ValueKind,
    /// PTX register prefix used when printing this class (`%r`, `%f`, ...).
    pub ptx_prefix: &'static str,
}

const fn sc(
    name: &'static str,
    family: Family,
    kind: ValueKind,
    ptx_prefix: &'static str,
) -> ScalarClassInfo {
    ScalarClassInfo {
        name,
        family,
        kind,
        ptx_prefix,
    }
}

/// Every scalar class, CICC-era names first, then the llc-22 width names.
pub const SCALAR_CLASSES: [ScalarClassInfo; 14] = [
    sc("int1regs", Family::B1, ValueKind::Pred, "%p"),
    sc("int16regs", Family::B16, ValueKind::Int, "%rs"),
    sc("int32regs", Family::B32, ValueKind::Int, "%r"),
    sc("int64regs", Family::B64, ValueKind::Int, "%rd"),
    sc("int128regs", Family::B128, ValueKind::Int, "%rq"),
    sc("float16regs", Family::B16, ValueKind::Float, "%h"),
    sc("float16x2regs", Family::B32, ValueKind::Float, "%hh"),
    sc("float32regs", Family::B32, ValueKind::Float, "%f"),
    sc("float64regs", Family::B64, ValueKind::Float, "%fd"),
    sc("b1", Family::B1, ValueKind::Untyped, "%p"),
    sc("b16", Family::B16, ValueKind::Untyped, "%rs"),
    sc("b32", Family::B32, ValueKind::Untyped, "%r"),
    sc("b64", Family::B64, ValueKind::Untyped, "%rd"),
    sc("b128", Family::B128, ValueKind::Untyped, "%rq"),
];

impl ScalarClass {
    pub fn info(self) -> &'static ScalarClassInfo {
        &SCALAR_CLASSES[self.0 as usize]
    }
    pub fn by_name(name: &str) -> Option<Self> {
        SCALAR_CLASSES
            .iter()
            .position(|c| c.name == name)
            .map(|i| ScalarClass(i as u8))
    }
    pub fn family(self) -> Family {
        self.info().family
    }
    /// One of llc-22's untyped width classes (`b32`, ...).
    pub fn is_untyped(self) -> bool {
        self.info().kind == ValueKind::Untyped
    }
    pub fn all() -> impl Iterator<Item = ScalarClass> {
        (0..SCALAR_CLASSES.len() as u8).map(ScalarClass)
    }
}

/// Largest tuple the pipeline builds (wgmma fragments reach 16; leave room).
pub const MAX_LANES: u8 = 64;

/// A register class.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum RegClass {
    Scalar(ScalarClass),
    /// `lanes` registers of one scalar class, addressed as `sub0..sub{lanes-1}`.
    Tuple {
        base: ScalarClass,
        lanes: u8,
    },
    /// A class of another target, by interned name; no width known.
    Foreign(crate::entity::Sym),
}

impl RegClass {
    /// The class as one number (a handed-over function's byte form, `trace/module_bytes.rs`):
    /// scalar `3c`, tuple `3(c + 16 lanes) + 1`, foreign `3 name + 2`.
    pub(crate) fn code(self) -> u32 {
        match self {
            RegClass::Scalar(c) => 3 * u32::from(c.0),
            RegClass::Tuple { base, lanes } => 3 * (u32::from(base.0) + 16 * u32::from(lanes)) + 1,
            RegClass::Foreign(s) => 3 * s.index() as u32 + 2,
        }
    }

    /// The class [`RegClass::code`] gave `c` (a class number out of range reads as the first).
    pub(crate) fn of_code(c: u32) -> RegClass {
        let scalar = |n: u32| {
            ScalarClass(if (n as usize) < SCALAR_CLASSES.len() {
                n as u8
            } else {
                0
            })
        };
        match c % 3 {
            0 => RegClass::Scalar(scalar(c / 3)),
            1 => RegClass::Tuple {
                base: scalar(c / 3 % 16),
                lanes: (c / 3 / 16) as u8,
            },
            _ => RegClass::Foreign(crate::entity::Sym::new((c / 3) as usize)),
        }
    }

    /// Parses an NVPTX class name (scalar or tuple).
    pub fn parse_nvptx(name: &str) -> Option<Self> {
        if let Some(c) = ScalarClass::by_name(name) {
            return Some(RegClass::Scalar(c));
        }
        // Tuple: base name, 'x', lane count; the longest base that matches wins
        // (`float16x2regsx4` has base `float16x2regs`).
        let x = name.rfind('x')?;
        let (base, lanes) = (&name[..x], &name[x + 1..]);
        let base = ScalarClass::by_name(base)?;
        let lanes: u8 = lanes.parse().ok()?;
        if !(2..=MAX_LANES).contains(&lanes) || lanes.to_string_len() != name.len() - x - 1 {
            return None;
        }
        Some(RegClass::Tuple { base, lanes })
    }

    pub fn family(self) -> Option<Family> {
        match self {
            RegClass::Scalar(c) => Some(c.family()),
            RegClass::Tuple { base, .. } => Some(base.family()),
            RegClass::Foreign(_) => None,
        }
    }

    pub fn lanes(self) -> u8 {
        match self {
            RegClass::Tuple { lanes, .. } => lanes,
            _ => 1,
        }
    }

    /// The class of one lane (the class itself for scalars).
    pub fn lane_class(self) -> RegClass {
        match self {
            RegClass::Tuple { base, .. } => RegClass::Scalar(base),
            c => c,
        }
    }

    /// Display with access to the interner for foreign names.
    pub fn display<'a>(self, names: &'a crate::entity::Interner) -> ClassName<'a> {
        ClassName { class: self, names }
    }
}

trait DecimalLen {
    fn to_string_len(self) -> usize;
}
impl DecimalLen for u8 {
    fn to_string_len(self) -> usize {
        if self >= 100 {
            3
        } else if self >= 10 {
            2
        } else {
            1
        }
    }
}

pub struct ClassName<'a> {
    class: RegClass,
    names: &'a crate::entity::Interner,
}

impl fmt::Display for ClassName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.class {
            RegClass::Scalar(c) => f.write_str(c.info().name),
            RegClass::Tuple { base, lanes } => write!(f, "{}x{}", base.info().name, lanes),
            RegClass::Foreign(s) => f.write_str(self.names.name(s)),
        }
    }
}

/// Every valid NVPTX class spelling, for error messages.
pub fn valid_class_names() -> alloc::string::String {
    let mut s = alloc::string::String::new();
    for (i, c) in SCALAR_CLASSES.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(c.name);
    }
    s.push_str(", or a tuple <class>x<N> such as float32regsx4");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cicc_and_llc_names_share_families() {
        let f = |n| RegClass::parse_nvptx(n).unwrap().family().unwrap();
        assert_eq!(f("int32regs"), f("b32"));
        assert_eq!(f("float32regs"), f("b32"));
        assert_eq!(f("float64regs"), f("b64"));
        assert_eq!(f("int1regs"), Family::B1);
    }

    #[test]
    fn tuples_parse_and_print() {
        let names = crate::entity::Interner::default();
        for n in ["float32regsx4", "b32x16", "float16x2regsx8", "int64regsx2"] {
            let c = RegClass::parse_nvptx(n).unwrap();
            assert_eq!(alloc::format!("{}", c.display(&names)), n);
        }
        assert_eq!(
            RegClass::parse_nvptx("float16x2regs"),
            Some(RegClass::Scalar(ScalarClass(6)))
        );
        for bad in [
            "b33",
            "float32regsx1",
            "float32regsx",
            "b32x04",
            "int32regsx999",
            "x4",
        ] {
            assert_eq!(RegClass::parse_nvptx(bad), None, "{bad}");
        }
    }
}
