//! Decoding a dotted PTX opcode into what it means: the base operation, its
//! modifiers, its types, its state space and vector width.
//!
//! `ld.global.nc.v4.f32` → base `ld`, space Global, modifiers `[nc]`, vector 4,
//! types `[f32]`. `cvt.rn.f32.s32` → base `cvt`, modifiers `[rn]`, types `[f32, s32]`.

use alloc::string::String;
use alloc::vec::Vec;

/// A PTX state space.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Space {
    Generic,
    Global,
    Shared,
    Local,
    Const,
    Param,
}

impl Space {
    pub fn from_word(w: &str) -> Option<Space> {
        Some(match w {
            "global" => Space::Global,
            "shared" | "shared::cta" => Space::Shared,
            "local" => Space::Local,
            "const" => Space::Const,
            "param" => Space::Param,
            _ => return None,
        })
    }
    pub fn name(self) -> &'static str {
        match self {
            Space::Generic => "generic",
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Local => "local",
            Space::Const => "const",
            Space::Param => "param",
        }
    }
}

/// The kind of a PTX fundamental type.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Pred,
    /// `.bN`: untyped bits.
    Bits,
    Unsigned,
    Signed,
    Float,
    /// `.f16x2`: two halves in 32 bits.
    HalfX2,
    BFloat,
    BFloatX2,
}

/// A fundamental type: kind and width in bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Ty {
    pub kind: Kind,
    pub bits: u32,
}

impl Ty {
    pub const fn new(kind: Kind, bits: u32) -> Self {
        Ty { kind, bits }
    }
    /// Parses a type word without its dot (`f32`, `pred`, `b64`).
    pub fn parse(w: &str) -> Option<Ty> {
        let (kind, bits) = match w {
            "pred" => (Kind::Pred, 1),
            "f16x2" => (Kind::HalfX2, 32),
            "bf16" => (Kind::BFloat, 16),
            "bf16x2" => (Kind::BFloatX2, 32),
            "tf32" => (Kind::Bits, 32),
            _ if w.len() < 2 || !w.is_ascii() => return None,
            _ => {
                let (k, n) = w.split_at(1);
                let kind = match k {
                    "b" => Kind::Bits,
                    "u" => Kind::Unsigned,
                    "s" => Kind::Signed,
                    "f" => Kind::Float,
                    _ => return None,
                };
                let bits: u32 = n.parse().ok()?;
                let ok = match kind {
                    Kind::Float => matches!(bits, 16 | 32 | 64),
                    Kind::Bits => matches!(bits, 8 | 16 | 32 | 64 | 128),
                    _ => matches!(bits, 8 | 16 | 32 | 64),
                };
                if !ok {
                    return None;
                }
                (kind, bits)
            }
        };
        Some(Ty { kind, bits })
    }
    pub fn is_float(self) -> bool {
        matches!(
            self.kind,
            Kind::Float | Kind::HalfX2 | Kind::BFloat | Kind::BFloatX2
        )
    }
    pub fn is_signed(self) -> bool {
        self.kind == Kind::Signed
    }
    /// The type word without its dot.
    pub fn name(self) -> String {
        use alloc::format;
        match self.kind {
            Kind::Pred => "pred".into(),
            Kind::HalfX2 => "f16x2".into(),
            Kind::BFloat => "bf16".into(),
            Kind::BFloatX2 => "bf16x2".into(),
            Kind::Bits => format!("b{}", self.bits),
            Kind::Unsigned => format!("u{}", self.bits),
            Kind::Signed => format!("s{}", self.bits),
            Kind::Float => format!("f{}", self.bits),
        }
    }
}

/// A decoded opcode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The first part (`ld`, `add`, `setp`, ...).
    pub base: String,
    /// Parts that are neither a type, a state space nor a vector width, in order.
    pub mods: Vec<String>,
    /// Type parts in order (`cvt.f32.s32` has two).
    pub types: Vec<Ty>,
    pub space: Option<Space>,
    /// `.v2` / `.v4`: 2 or 4; 1 otherwise.
    pub vec: u8,
}

impl Decoded {
    pub fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }
    /// The last type part (the operation type for most instructions).
    pub fn ty(&self) -> Option<Ty> {
        self.types.last().copied()
    }
    /// The first type part (the destination type of `cvt`).
    pub fn first_ty(&self) -> Option<Ty> {
        self.types.first().copied()
    }
}

/// Splits and classifies an opcode's parts.
pub fn decode(opcode: &str) -> Decoded {
    let mut parts = opcode.split('.');
    let base = parts.next().unwrap_or("").into();
    let mut d = Decoded {
        base,
        mods: Vec::new(),
        types: Vec::new(),
        space: None,
        vec: 1,
    };
    for p in parts {
        if let Some(t) = Ty::parse(p) {
            d.types.push(t);
        } else if let Some(s) = Space::from_word(p) {
            d.space = Some(s);
        } else if p == "v2" {
            d.vec = 2;
        } else if p == "v4" {
            d.vec = 4;
        } else if p == "v8" {
            d.vec = 8;
        } else {
            d.mods.push(p.into());
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_loads_and_conversions() {
        let d = decode("ld.global.nc.v4.f32");
        assert_eq!(d.base, "ld");
        assert_eq!(d.space, Some(Space::Global));
        assert_eq!(d.vec, 4);
        assert!(d.has("nc"));
        assert_eq!(d.ty(), Some(Ty::new(Kind::Float, 32)));
        let c = decode("cvt.rzi.s32.f32");
        assert_eq!(c.first_ty(), Some(Ty::new(Kind::Signed, 32)));
        assert_eq!(c.ty(), Some(Ty::new(Kind::Float, 32)));
        assert!(c.has("rzi"));
        assert_eq!(decode("setp.ge.u32").mods, ["ge"]);
    }
}
