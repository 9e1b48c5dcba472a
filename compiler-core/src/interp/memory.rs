//! Modelled memories: one bank of byte regions per PTX state space.
//!
//! ```text
//!  space    addrspace  lifetime      holds
//!  global   1          whole launch  input buffers, global symbols      ─┐ observable
//!  const    4          whole launch  constant symbols (read-only)        │ (global only)
//!  shared   3          one CTA       shared symbols, zeroed per CTA      │
//!  local    5          one thread    local symbols                       │
//!  param    101        one thread    kernel parameters (read-only),     ─┘ retvals are
//!                                    `func_retval0` (return value)          observable
//!  generic  0          —             a window onto the others (below)
//! ```
//!
//! Generic addresses: global addresses are below 2^48 and map to themselves (so
//! `cvta.to.global` is the identity, as on the hardware for global pointers); shared,
//! local, param and const addresses appear at fixed windows above.
//!
//! Placement is fixed and independent of the inputs: parameter `N` lives at
//! `param_addr(N)`; the k-th symbol of a run at `symbol_addr(k)` in its own space; input
//! buffers wherever [`super::Inputs`] puts them (the random generator uses
//! [`BUFFER_BASE`] upwards). An access must fall inside one region, else it is a
//! `InterpError::BadAddress`.

use super::error::InterpError;
use alloc::string::String;
use alloc::vec::Vec;

/// A PTX state space: the one type PTX decoding and both interpreters share; the
/// MIR interpreter adds LLVM's address-space numbers and its generic windows.
pub use crate::ptx::op::Space;

impl Space {
    /// From an LLVM NVPTX address-space number (`0 1 3 4 5 101`).
    pub fn from_addrspace(n: i64) -> Option<Space> {
        Some(match n {
            0 => Space::Generic,
            1 => Space::Global,
            3 => Space::Shared,
            4 => Space::Const,
            5 => Space::Local,
            101 => Space::Param,
            _ => return None,
        })
    }

    /// Start of this space's window in the generic address space.
    pub fn generic_window(self) -> u64 {
        match self {
            Space::Generic | Space::Global => 0,
            Space::Shared => 1 << 48,
            Space::Local => 2 << 48,
            Space::Param => 3 << 48,
            Space::Const => 4 << 48,
        }
    }
}

/// Splits a generic address into its space and the address inside it.
pub fn resolve_generic(addr: u64) -> (Space, u64) {
    match addr >> 48 {
        0 => (Space::Global, addr),
        1 => (Space::Shared, addr - Space::Shared.generic_window()),
        2 => (Space::Local, addr - Space::Local.generic_window()),
        3 => (Space::Param, addr - Space::Param.generic_window()),
        4 => (Space::Const, addr - Space::Const.generic_window()),
        _ => (Space::Global, addr),
    }
}

/// Where kernel parameter `n` lives in param space.
pub fn param_addr(n: u32) -> u64 {
    0x1_0000 * (n as u64 + 1)
}

/// Where return-value slot `n` (`func_retval<n>`) lives in param space.
pub fn retval_addr(n: u32) -> u64 {
    0x4000_0000 + 0x1_0000 * n as u64
}

/// Where the k-th symbol of a run lives in its space.
pub fn symbol_addr(k: usize) -> u64 {
    0x100_0000 * (k as u64 + 1)
}

/// First address the random input generator gives a global buffer (then every
/// [`BUFFER_STRIDE`] bytes).
pub const BUFFER_BASE: u64 = 0x1_0000_0000;
pub const BUFFER_STRIDE: u64 = 0x100_0000;

/// A named run of bytes at a base address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub name: String,
    pub base: u64,
    pub bytes: Vec<u8>,
}

/// The regions of one space, sorted by base, not overlapping.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bank {
    pub regions: Vec<Region>,
    pub read_only: bool,
}

impl Bank {
    pub fn new(read_only: bool) -> Self {
        Bank {
            regions: Vec::new(),
            read_only,
        }
    }

    /// Adds a region; overlapping an existing one is an error.
    pub fn add(&mut self, r: Region) -> Result<(), InterpError> {
        let end = r.base.checked_add(r.bytes.len() as u64);
        let Some(end) = end else {
            return Err(InterpError::Limits {
                message: alloc::format!("region `{}` wraps the address space", r.name),
            });
        };
        let pos = self.regions.partition_point(|x| x.base < r.base);
        let clash_prev = pos > 0 && {
            let p = &self.regions[pos - 1];
            p.base + p.bytes.len() as u64 > r.base
        };
        let clash_next = pos < self.regions.len() && self.regions[pos].base < end;
        if clash_prev || clash_next {
            return Err(InterpError::Limits {
                message: alloc::format!("region `{}` at {:#x} overlaps another", r.name, r.base),
            });
        }
        self.regions.insert(pos, r);
        Ok(())
    }

    fn find(&self, addr: u64, n: u32) -> Option<(usize, usize)> {
        let pos = self.regions.partition_point(|x| x.base <= addr);
        if pos == 0 {
            return None;
        }
        let r = &self.regions[pos - 1];
        let off = addr - r.base;
        let end = off.checked_add(n as u64)?;
        if end <= r.bytes.len() as u64 {
            Some((pos - 1, off as usize))
        } else {
            None
        }
    }

    /// Reads `n` ≤ 16 bytes little-endian.
    pub fn read(&self, addr: u64, n: u32) -> Option<u128> {
        let (i, off) = self.find(addr, n)?;
        let mut v = 0u128;
        for (k, &b) in self.regions[i].bytes[off..off + n as usize]
            .iter()
            .enumerate()
        {
            v |= (b as u128) << (8 * k);
        }
        Some(v)
    }

    /// Writes the low `n` ≤ 16 bytes of `v` little-endian. None if unmapped or read-only.
    pub fn write(&mut self, addr: u64, n: u32, v: u128) -> Option<()> {
        if self.read_only {
            return None;
        }
        let (i, off) = self.find(addr, n)?;
        for (k, b) in self.regions[i].bytes[off..off + n as usize]
            .iter_mut()
            .enumerate()
        {
            *b = (v >> (8 * k)) as u8;
        }
        Some(())
    }
}

/// A global variable declared in the module's LLVM IR (`@name = ... addrspace(N) global T`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrGlobal {
    pub name: String,
    pub space: Space,
    pub size: u64,
}

/// Reads the global variable declarations out of the LLVM IR embedded in a MIR file
/// (`Module::ir`): name, address space and size of the value type. Lines that do not
/// parse are skipped.
pub fn parse_ir_globals(ir: &str) -> Vec<IrGlobal> {
    let mut out = Vec::new();
    for line in ir.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix('@') else {
            continue;
        };
        let Some(eq) = rest.find(" = ") else {
            continue;
        };
        let name = rest[..eq].trim_matches('"');
        let mut words = &rest[eq + 3..];
        let mut space = Space::Generic;
        // Linkage, visibility, `addrspace(N)`, ... up to `global` / `constant`.
        loop {
            words = words.trim_start();
            let w_end = words.find([' ', '(']).unwrap_or(words.len());
            let w = &words[..w_end];
            if w == "addrspace" {
                let Some(close) = words.find(')').filter(|&c| c > w_end) else {
                    break;
                };
                let n = words[w_end + 1..close].trim().parse::<i64>().unwrap_or(0);
                space = Space::from_addrspace(n).unwrap_or(Space::Global);
                words = &words[close + 1..];
                continue;
            }
            words = &words[w_end..];
            if w == "global" || w == "constant" {
                break;
            }
            if w.is_empty() {
                break;
            }
        }
        if space == Space::Generic {
            space = Space::Global;
        }
        let mut p = TypeParser {
            s: words.trim_start(),
            depth: 0,
        };
        if let Some(size) = p.size() {
            out.push(IrGlobal {
                name: name.into(),
                space,
                size,
            });
        }
    }
    out
}

struct TypeParser<'a> {
    s: &'a str,
    depth: u32,
}

impl TypeParser<'_> {
    fn eat(&mut self, t: &str) -> bool {
        self.s = self.s.trim_start();
        if let Some(r) = self.s.strip_prefix(t) {
            self.s = r;
            true
        } else {
            false
        }
    }

    fn number(&mut self) -> Option<u64> {
        self.s = self.s.trim_start();
        let n = self.s.bytes().take_while(u8::is_ascii_digit).count();
        let v = self.s[..n].parse().ok()?;
        self.s = &self.s[n..];
        Some(v)
    }

    /// Byte size of the next type (structs get natural alignment padding).
    fn size(&mut self) -> Option<u64> {
        Some(self.size_align()?.0)
    }

    fn size_align(&mut self) -> Option<(u64, u64)> {
        self.depth += 1;
        let r = self.size_align_inner();
        self.depth -= 1;
        r
    }

    fn size_align_inner(&mut self) -> Option<(u64, u64)> {
        if self.depth > 32 {
            return None;
        }
        if self.eat("[") || self.eat("<") {
            let n = self.number()?;
            if !self.eat("x") {
                return None;
            }
            let (sz, al) = self.size_align()?;
            if !(self.eat("]") || self.eat(">")) {
                return None;
            }
            return Some((n.checked_mul(sz)?, al));
        }
        if self.eat("{") {
            let (mut off, mut max_al) = (0u64, 1u64);
            loop {
                if self.eat("}") {
                    break;
                }
                let (sz, al) = self.size_align()?;
                off = off.div_ceil(al).checked_mul(al)?.checked_add(sz)?;
                max_al = max_al.max(al);
                self.eat(",");
            }
            return Some((off.div_ceil(max_al).checked_mul(max_al)?, max_al));
        }
        for (t, sz) in [
            ("half", 2),
            ("bfloat", 2),
            ("float", 4),
            ("double", 8),
            ("fp128", 16),
        ] {
            if self.eat(t) {
                return Some((sz, sz));
            }
        }
        if self.eat("ptr") {
            if self.eat("addrspace(") {
                self.number()?;
                self.eat(")");
            }
            return Some((8, 8));
        }
        if self.eat("i") {
            let bits = self.number()?;
            let bytes = bits.clamp(1, 1 << 16).div_ceil(8).next_power_of_two();
            return Some((bytes, bytes.min(16)));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn banks_map_regions() {
        let mut b = Bank::new(false);
        b.add(Region {
            name: "a".into(),
            base: 0x100,
            bytes: vec![0; 8],
        })
        .unwrap();
        assert!(b
            .add(Region {
                name: "b".into(),
                base: 0x104,
                bytes: vec![0; 8],
            })
            .is_err());
        assert_eq!(b.write(0x104, 4, 0xdead_beef), Some(()));
        assert_eq!(b.read(0x104, 4), Some(0xdead_beef));
        assert_eq!(b.read(0x106, 4), None);
        assert_eq!(b.read(0xff, 1), None);
    }

    #[test]
    fn ir_globals_parse() {
        let g = parse_ir_globals(
            "@_ZZ10reduce_sumPKfPfiE5sdata = internal addrspace(3) global [256 x float] undef, align 4\n\
             @t = addrspace(1) externally_initialized global { i32, [3 x i64] } zeroinitializer\n\
             @c = internal addrspace(4) constant <4 x half> zeroinitializer\n\
             define void @f() {\n",
        );
        assert_eq!(g.len(), 3);
        assert_eq!((g[0].space, g[0].size), (Space::Shared, 1024));
        assert_eq!((g[1].space, g[1].size), (Space::Global, 32));
        assert_eq!((g[2].space, g[2].size), (Space::Const, 8));
    }
}
