//! Calls: `call[.uni] (rets), f, (args)` to a `.func` of the module, and `vprintf`.
//!
//! **Linking.** Every `.func` with a body is compiled once and appended to the
//! kernel's program ([`link`]): its code after the kernel's, its registers after the
//! kernel's, its local variables (and `.param` formals, which are per-thread memory
//! like `.local`) after the kernel's under the name `f::name`, so that two functions'
//! `param0` or `__local_depot0` never share a slot. A register-passed (`.reg`) formal
//! is a register of the callee.
//!
//! **A call** copies each argument into its formal (a `.param` variable's bytes, or a
//! register's value), pushes a frame (the return pc and the caller's result
//! operands) and jumps to the callee; `ret` in a callee copies each result formal back
//! and pops. A function appears once per thread's stack: its registers are not
//! per-frame, so a recursive call is refused. `exit` ends the thread at any depth.
//!
//! **`vprintf(format, args)`** (how CUDA's `printf` reaches PTX) prints nothing; it
//! appends the format string's bytes and the argument buffer's bytes, as many as the
//! format's conversions read, to a log that ends the launch's result as one more
//! buffer at [`PRINTF_BASE`]. Dropping a store the call reads, or the call itself,
//! changes the log. It returns the number of arguments.

use super::{malformed, unsupported, InterpError, Machine, Program, Thread, VBase, VOp, R, V, X};
use crate::ptx::op::Space;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Where the `vprintf` log sits among the result buffers.
pub const PRINTF_BASE: u64 = 0xF000_0000;

/// Where an argument or result goes in the callee.
#[derive(Clone, Debug)]
pub(super) enum Formal {
    /// A `.param` formal: a per-thread variable of `size` bytes.
    Mem { name: String, size: usize },
    /// A `.reg` formal: a register of the callee.
    Reg(usize),
}

/// A linked callee.
#[derive(Clone, Debug)]
pub(super) struct FuncInfo {
    pub entry: usize,
    pub params: Vec<Formal>,
    pub rets: Vec<Formal>,
}

/// A call in progress.
pub(super) struct Frame {
    ret_pc: usize,
    func: String,
    rets: Vec<VOp>,
}

/// Appends `callee` (the function `name`) to `main`.
pub(super) fn link(main: &mut Program, name: &str, callee: Program) -> R<()> {
    let (pc0, reg0) = (main.code.len(), main.reg_bits.len());
    let rename = |s: &str| -> Option<String> {
        let base = s
            .rfind(['+', '-'])
            .filter(|&k| k > 0)
            .map_or(s, |k| &s[..k]);
        (callee.local.contains_key(base) || callee.shared.contains_key(base))
            .then(|| format!("{name}::{s}"))
    };
    let local0 = main.local_size.div_ceil(16) * 16;
    for (v, off) in &callee.local {
        main.local.insert(format!("{name}::{v}"), local0 + off);
    }
    main.local_size = local0 + callee.local_size;
    let shared0 = main.shared_size.div_ceil(16) * 16;
    for (v, off) in &callee.shared {
        main.shared.insert(format!("{name}::{v}"), shared0 + off);
    }
    main.shared_size = shared0 + callee.shared_size;
    let formal = |f: &Formal| match f {
        Formal::Mem { name: n, size } => Formal::Mem {
            name: format!("{name}::{n}"),
            size: *size,
        },
        Formal::Reg(r) => Formal::Reg(r + reg0),
    };
    main.funcs.insert(
        name.to_string(),
        FuncInfo {
            entry: pc0,
            params: callee.own_params.iter().map(formal).collect(),
            rets: callee.own_rets.iter().map(formal).collect(),
        },
    );
    for mut x in callee.code {
        for o in &mut x.ops {
            relocate(o, pc0, reg0, &rename);
        }
        if let Some((g, _)) = &mut x.guard {
            *g += reg0;
        }
        main.code.push(x);
    }
    main.reg_bits.extend(callee.reg_bits);
    Ok(())
}

fn relocate(o: &mut VOp, pc0: usize, reg0: usize, rename: &dyn Fn(&str) -> Option<String>) {
    match &mut o.v {
        V::Reg(r) => *r += reg0,
        V::Label(pc) => *pc += pc0,
        V::Sym(s) => {
            if let Some(n) = rename(s) {
                *s = n;
            }
        }
        V::Addr { base, extra, .. } => {
            match base {
                VBase::Reg(r) => *r += reg0,
                VBase::Sym(s) => {
                    if let Some(n) = rename(s) {
                        *s = n;
                    }
                }
                VBase::None => {}
            }
            for e in extra {
                relocate(e, pc0, reg0, rename);
            }
        }
        V::Vec(v) | V::List(v) => v.iter_mut().for_each(|e| relocate(e, pc0, reg0, rename)),
        V::Pair(a, b) => {
            relocate(a, pc0, reg0, rename);
            relocate(b, pc0, reg0, rename);
        }
        V::Not(a) => relocate(a, pc0, reg0, rename),
        V::Imm(_) | V::Special(_) => {}
    }
}

impl Machine<'_> {
    /// `call[.uni] [(rets),] f[, (args)]`.
    pub(super) fn call(&mut self, t: &mut Thread, x: &X) -> R<()> {
        let o = &x.ops;
        let (rets, rest) = match o.first().map(|o| &o.v) {
            Some(V::List(r)) => (r.clone(), &o[1..]),
            _ => (Vec::new(), &o[..]),
        };
        let name = match rest.first().map(|o| &o.v) {
            Some(V::Sym(s)) => s.clone(),
            Some(V::Reg(_)) => return unsupported("indirect calls (`call` through a register)"),
            _ => return malformed("call without a target"),
        };
        let args = match rest.get(1).map(|o| &o.v) {
            Some(V::List(a)) => a.clone(),
            _ => Vec::new(),
        };
        let p = self.p;
        let Some(fi) = p.funcs.get(&name) else {
            if name == "vprintf" {
                return self.vprintf(t, &args, &rets);
            }
            return unsupported(format!("call to `{name}`, which has no body in the module"));
        };
        if t.frames.iter().any(|f| f.func == name) {
            return unsupported(format!("recursive call to `{name}`"));
        }
        if args.len() != fi.params.len() || rets.len() != fi.rets.len() {
            return malformed(format!("call to `{name}` with a different signature"));
        }
        for (a, f) in args.iter().zip(&fi.params) {
            let bytes = self.operand_bytes(t, a, formal_size(self, f))?;
            self.put_formal(t, f, &bytes)?;
        }
        t.frames.push(Frame {
            ret_pc: t.pc,
            func: name,
            rets,
        });
        t.pc = fi.entry;
        Ok(())
    }

    /// `ret`: back to the caller with the results, or the thread's end.
    pub(super) fn ret(&mut self, t: &mut Thread) -> R<()> {
        let Some(fr) = t.frames.pop() else {
            t.st = super::St::Done;
            return Ok(());
        };
        let p = self.p;
        let fi = &p.funcs[&fr.func];
        for (d, f) in fr.rets.iter().zip(&fi.rets) {
            let bytes = match f {
                Formal::Mem { name, size } => {
                    self.mem(t, Space::Local, Some(name), 0, *size)?.to_vec()
                }
                Formal::Reg(r) => t.regs[*r].to_le_bytes().to_vec(),
            };
            self.put_operand(t, d, &bytes)?;
        }
        t.pc = fr.ret_pc;
        Ok(())
    }

    /// The bytes an argument passes: a `.param` variable's, or a value's.
    fn operand_bytes(&mut self, t: &mut Thread, a: &VOp, size: usize) -> R<Vec<u8>> {
        if let V::Sym(s) = &a.v {
            if self.is_local_sym(s) {
                return Ok(self.mem(t, Space::Local, Some(s), 0, size)?.to_vec());
            }
        }
        let v = self.val(t, a, None)?;
        Ok(v.to_le_bytes()[..size.min(8)].to_vec())
    }

    /// Stores bytes into a caller's result operand (a `.param` variable or a register).
    fn put_operand(&mut self, t: &mut Thread, d: &VOp, bytes: &[u8]) -> R<()> {
        if let V::Sym(s) = &d.v {
            let m = self.mem(t, Space::Local, Some(s), 0, bytes.len())?;
            m.copy_from_slice(bytes);
            return Ok(());
        }
        let mut w = [0u8; 8];
        w[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
        self.set(t, d, u64::from_le_bytes(w))
    }

    fn put_formal(&mut self, t: &mut Thread, f: &Formal, bytes: &[u8]) -> R<()> {
        match f {
            Formal::Mem { name, size } => {
                let n = bytes.len().min(*size);
                self.mem(t, Space::Local, Some(name), 0, *size)?[..n].copy_from_slice(&bytes[..n]);
                Ok(())
            }
            Formal::Reg(r) => {
                let mut w = [0u8; 8];
                w[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
                self.set(t, &VOp::plain(V::Reg(*r)), u64::from_le_bytes(w))
            }
        }
    }

    /// `vprintf(format, args)`: logs the format and the bytes its conversions read.
    fn vprintf(&mut self, t: &mut Thread, args: &[VOp], rets: &[VOp]) -> R<()> {
        if args.len() != 2 {
            return malformed("vprintf takes a format and an argument buffer");
        }
        let word = |m: &mut Self, t: &mut Thread, a: &VOp| -> R<u64> {
            let b = m.operand_bytes(t, a, 8)?;
            let mut w = [0u8; 8];
            w.copy_from_slice(&b);
            Ok(u64::from_le_bytes(w))
        };
        let (fmt, buf) = (word(self, t, &args[0])?, word(self, t, &args[1])?);
        let mut text = Vec::new();
        loop {
            let c = self.mem(t, Space::Generic, None, fmt + text.len() as u64, 1)?[0];
            if c == 0 || text.len() >= 4096 {
                break;
            }
            text.push(c);
        }
        let sizes = conversions(&text)?;
        let mut at = 0u64;
        let mut log = text.clone();
        log.push(0);
        for s in &sizes {
            at = at.div_ceil(*s) * s;
            log.extend_from_slice(self.mem(t, Space::Generic, None, buf + at, *s as usize)?);
            at += s;
        }
        self.printed.extend_from_slice(&log);
        if let Some(d) = rets.first() {
            self.put_operand(t, d, &(sizes.len() as u32).to_le_bytes())?;
        }
        Ok(())
    }

    /// A name of per-thread memory (a `.local` or `.param` variable, a formal).
    pub(super) fn is_local_sym(&self, s: &str) -> bool {
        let base = s
            .rfind(['+', '-'])
            .filter(|&k| k > 0)
            .map_or(s, |k| &s[..k]);
        self.p.local.contains_key(base)
    }
}

fn formal_size(m: &Machine<'_>, f: &Formal) -> usize {
    match f {
        Formal::Mem { size, .. } => *size,
        Formal::Reg(r) => (m.p.reg_bits.get(*r).copied().unwrap_or(64) as usize).div_ceil(8),
    }
}

/// The argument sizes a printf format's conversions read (C's default promotions:
/// `int`-sized unless `l`/`ll`/`z`/`j`/`t`, doubles, pointers and strings 8 bytes).
fn conversions(f: &[u8]) -> R<Vec<u64>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        while i < f.len() && b"-+ #0123456789.*".contains(&f[i]) {
            if f[i] == b'*' {
                out.push(4);
            }
            i += 1;
        }
        let mut long = false;
        while i < f.len() && b"hlLzjt".contains(&f[i]) {
            long |= f[i] != b'h';
            i += 1;
        }
        match f.get(i) {
            Some(b'%') => {}
            Some(b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c') => {
                out.push(if long { 8 } else { 4 })
            }
            Some(b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' | b's' | b'p') => {
                out.push(8)
            }
            Some(c) => {
                return Err(InterpError::Unsupported(format!(
                    "printf conversion `%{}`",
                    *c as char
                )))
            }
            None => break,
        }
        i += 1;
    }
    Ok(out)
}
