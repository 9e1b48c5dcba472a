//! Running a [`Program`]: threads, the rendezvous scheduler, and the semantics of every
//! decoded instruction.
//!
//! ```text
//!  for each CTA:                          thread states
//!    loop {                               Running ──barrier/shfl──▶ Waiting
//!      run every Running thread             │  ▲                       │
//!        until it blocks or returns         │  └──collective done──────┘
//!      warps whose live lanes all wait      └──Return──▶ Done
//!        at one shuffle: exchange
//!      else all live threads at a
//!        barrier with one id: release
//!      else: Divergence
//!    }
//! ```

use super::compile::{
    Dst, Exec, Ext, FOp, IntOp, Load, Move, NumTy, Program, ShflMode, Slot, Src, Sreg, Store, TexKind,
    POISON,
};
use super::error::InterpError;
use super::float::{self, cvt_mode, mask, sext, FRound, IRound};
use super::matrix::{self, LaneFragments};
use super::memory::{resolve_generic, retval_addr, symbol_addr, Bank, Region, Space};
use super::{Config, Inputs, Launch, Outcome, Run, DEFAULT_SYMBOL_BYTES, RETVAL_BYTES};
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Status {
    Running,
    Waiting,
    Done,
}

struct Thread {
    regs: Vec<u128>,
    block: usize,
    pc: usize,
    status: Status,
    tid: [u32; 3],
    linear: u32,
    local: Bank,
    retval: Bank,
}

pub(crate) struct Machine<'p, 'f> {
    prog: &'p Program<'f>,
    launch: Launch,
    fuel: u64,
    steps: u64,
    global: Bank,
    konst: Bank,
    params: Bank,
    shared0: Bank,
    local0: Bank,
    retval0: Bank,
    /// Per program symbol: its space and address.
    syms: Vec<(Space, u64)>,
    ctaid: [u32; 3],
    regs0: Vec<u128>,
    scratch: Vec<u128>,
}

fn limits(message: String) -> InterpError {
    InterpError::Limits { message }
}

/// Refuses a launch past the configured limits (threads per CTA, threads in the grid,
/// register-file bytes of a CTA) or with a zero or overflowing dimension.
fn check_limits(prog: &Program, l: Launch, cfg: &Config) -> Result<(), InterpError> {
    let block_threads = l
        .block
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d as u64));
    let grid_ctas = l
        .grid
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d as u64));
    let (Some(bt), Some(gc)) = (block_threads, grid_ctas) else {
        return Err(limits("launch dimensions overflow".into()));
    };
    if bt == 0 || gc == 0 {
        return Err(limits("a launch dimension is zero".into()));
    }
    if bt > cfg.max_block_threads as u64 {
        return Err(limits(format!(
            "{bt} threads per CTA (limit {})",
            cfg.max_block_threads
        )));
    }
    if bt * gc > cfg.max_threads as u64 {
        return Err(limits(format!(
            "{} threads in the grid (limit {})",
            bt * gc,
            cfg.max_threads
        )));
    }
    let reg_bytes = (prog.slot_bits.len() as u64)
        .saturating_mul(bt)
        .saturating_mul(16);
    if reg_bytes > cfg.max_register_bytes {
        return Err(limits(format!(
            "{} register slots × {bt} threads need {reg_bytes} bytes (limit {})",
            prog.slot_bits.len(),
            cfg.max_register_bytes
        )));
    }
    Ok(())
}

/// The live (not returned) threads of `group` and the instruction (block, pc) they
/// wait at, when every one of them waits at that same instruction.
fn waiting_together(
    threads: &[Thread],
    group: Range<usize>,
) -> Option<(Vec<usize>, (usize, usize))> {
    let live: Vec<usize> = group
        .filter(|&i| threads[i].status != Status::Done)
        .collect();
    let &first = live.first()?;
    let at = (threads[first].block, threads[first].pc);
    let together = live.iter().all(|&i| {
        threads[i].status == Status::Waiting && (threads[i].block, threads[i].pc) == at
    });
    together.then_some((live, at))
}

/// Completes a collective: thread `live[k]` receives `results[k]` in `ds` and moves on.
fn finish_collective(threads: &mut [Thread], live: &[usize], ds: &[Dst], results: Vec<Vec<u32>>) {
    for (&i, regs) in live.iter().zip(results) {
        let t = &mut threads[i];
        for (&dst, v) in ds.iter().zip(regs) {
            wr(&mut t.regs, dst, v as u128);
        }
        t.status = Status::Running;
        t.pc += 1;
    }
}

impl<'p, 'f> Machine<'p, 'f> {
    pub(crate) fn new(
        prog: &'p Program<'f>,
        inputs: &Inputs,
        cfg: &Config,
    ) -> Result<Self, InterpError> {
        let l = inputs.launch;
        check_limits(prog, l, cfg)?;
        let mut params = Bank::new(true);
        for (n, bytes) in inputs.params.iter().enumerate() {
            params.add(Region {
                name: format!("param_{n}"),
                base: super::memory::param_addr(n as u32),
                bytes: bytes.clone(),
            })?;
        }
        let mut global = Bank::new(false);
        for b in &inputs.buffers {
            global.add(b.clone())?;
        }
        let (mut konst, mut shared0, mut local0) =
            (Bank::new(true), Bank::new(false), Bank::new(false));
        // Symbol order: as the inputs list them, then the rest by name. Addresses follow
        // the order, so two functions run on the same inputs see the same addresses.
        let mut order: Vec<(String, Space, Vec<u8>)> = inputs
            .symbols
            .iter()
            .map(|s| (s.name.clone(), s.space, s.bytes.clone()))
            .collect();
        let mut missing: Vec<_> = prog
            .symbols
            .iter()
            .filter(|s| !order.iter().any(|(n, _, _)| *n == s.name))
            .collect();
        missing.sort_by(|a, b| a.name.cmp(&b.name));
        for s in missing {
            order.push((s.name.clone(), s.space, vec![0; DEFAULT_SYMBOL_BYTES]));
        }
        let mut placed: Vec<(String, Space, u64)> = Vec::with_capacity(order.len());
        for (k, (name, space, bytes)) in order.into_iter().enumerate() {
            let base = symbol_addr(k);
            let region = Region {
                name: name.clone(),
                base,
                bytes,
            };
            match space {
                Space::Global | Space::Generic => global.add(region)?,
                Space::Const => konst.add(region)?,
                Space::Shared => shared0.add(region)?,
                Space::Local => local0.add(region)?,
                Space::Param => {
                    return Err(limits(format!("module variable `{name}` in param space")))
                }
            }
            let space = if space == Space::Generic {
                Space::Global
            } else {
                space
            };
            placed.push((name, space, base));
        }
        let syms = prog
            .symbols
            .iter()
            .map(|s| {
                placed
                    .iter()
                    .find(|(n, _, _)| *n == s.name)
                    .map(|(_, sp, a)| (*sp, *a))
                    .ok_or_else(|| limits(format!("symbol `{}` was not placed", s.name)))
            })
            .collect::<Result<_, _>>()?;
        let mut retval0 = Bank::new(false);
        for &n in &prog.retvals {
            retval0.add(Region {
                name: format!("func_retval{n}"),
                base: retval_addr(n),
                bytes: vec![0; RETVAL_BYTES],
            })?;
        }
        let regs0 = prog
            .slot_bits
            .iter()
            .map(|&b| POISON & mask(b as u32))
            .collect();
        Ok(Machine {
            prog,
            launch: l,
            fuel: cfg.fuel,
            steps: 0,
            global,
            konst,
            params,
            shared0,
            local0,
            retval0,
            syms,
            ctaid: [0; 3],
            regs0,
            scratch: Vec::new(),
        })
    }

    pub(crate) fn run(mut self) -> Result<Run, InterpError> {
        let [gx, gy, gz] = self.launch.grid;
        let mut retvals = Vec::new();
        let mut threads = 0;
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    self.ctaid = [x, y, z];
                    let rv = self.run_cta()?;
                    threads += rv.len() as u32;
                    if !self.prog.retvals.is_empty() {
                        retvals.extend(rv);
                    }
                }
            }
        }
        Ok(Run {
            outcome: Outcome {
                global: self.global.regions,
                retvals,
            },
            steps: self.steps,
            threads,
        })
    }

    fn run_cta(&mut self) -> Result<Vec<Vec<u8>>, InterpError> {
        let [bx, by, bz] = self.launch.block;
        let n = (bx * by * bz) as usize;
        let mut shared = self.shared0.clone();
        let mut threads: Vec<Thread> = (0..n as u32)
            .map(|linear| Thread {
                regs: self.regs0.clone(),
                block: 0,
                pc: 0,
                status: Status::Running,
                tid: [linear % bx, (linear / bx) % by, linear / (bx * by)],
                linear,
                local: self.local0.clone(),
                retval: self.retval0.clone(),
            })
            .collect();
        loop {
            for t in threads.iter_mut() {
                if t.status == Status::Running {
                    self.run_thread(t, &mut shared)?;
                }
            }
            if threads.iter().all(|t| t.status == Status::Done) {
                break;
            }
            let mut progress = false;
            for w in 0..n.div_ceil(32) {
                let Some((live, at)) = waiting_together(&threads, w * 32..n.min(w * 32 + 32))
                else {
                    continue;
                };
                if matches!(self.prog.blocks[at.0].code[at.1], Exec::Shfl { .. }) {
                    self.shuffle(&mut threads, &live, at)?;
                    progress = true;
                }
                if matches!(self.prog.blocks[at.0].code[at.1], Exec::Mma { .. }) {
                    self.warp_mma(&mut threads, &live, at)?;
                    progress = true;
                }
            }
            // Warpgroups (four warps) whose threads all wait at the same wgmma.
            for g in 0..n.div_ceil(128) {
                let Some((live, at)) = waiting_together(&threads, g * 128..n.min(g * 128 + 128))
                else {
                    continue;
                };
                if matches!(self.prog.blocks[at.0].code[at.1], Exec::Wgmma { .. }) {
                    self.warpgroup_mma(&mut threads, &mut shared, &live, at)?;
                    progress = true;
                }
            }
            if !progress {
                self.barrier(&mut threads)?;
            }
        }
        Ok(threads
            .into_iter()
            .map(|t| t.retval.regions.into_iter().flat_map(|r| r.bytes).collect())
            .collect())
    }

    /// Opens a barrier every live thread waits at, or reports why none can open.
    fn barrier(&mut self, threads: &mut [Thread]) -> Result<(), InterpError> {
        let mut id = None;
        let mut why = None;
        for t in threads.iter().filter(|t| t.status != Status::Done) {
            match (t.status, &self.prog.blocks[t.block].code[t.pc]) {
                (Status::Waiting, Exec::Barrier { id: b }) => match id {
                    None => id = Some(*b),
                    Some(x) if x == *b => {}
                    Some(x) => {
                        why = Some(format!(
                            "thread {} waits at barrier {b} while others wait at barrier {x}",
                            t.linear
                        ));
                        break;
                    }
                },
                _ => {
                    let loc = self.prog.location(t.block, t.pc);
                    why = Some(format!(
                        "thread {} (lane {}) waits at {loc}, which no other thread completes",
                        t.linear,
                        t.linear % 32
                    ));
                    break;
                }
            }
        }
        if let Some(message) = why {
            return Err(InterpError::Divergence { message });
        }
        for t in threads.iter_mut().filter(|t| t.status == Status::Waiting) {
            t.status = Status::Running;
            t.pc += 1;
        }
        Ok(())
    }

    fn shuffle(
        &mut self,
        threads: &mut [Thread],
        live: &[usize],
        at: (usize, usize),
    ) -> Result<(), InterpError> {
        let Exec::Shfl {
            mode,
            d,
            pred,
            a,
            b,
            c,
            mask: m,
        } = self.prog.blocks[at.0].code[at.1]
        else {
            return Ok(());
        };
        let warp_base = live[0] / 32 * 32;
        let mut src = [None::<u32>; 32];
        for &i in live {
            src[i - warp_base] = Some(self.rd(&threads[i].regs, a) as u32);
        }
        let mut results = Vec::with_capacity(live.len());
        for &i in live {
            let regs = &threads[i].regs;
            let lane = (i - warp_base) as u32;
            let membermask = self.rd(regs, m) as u32;
            for (k, s) in src.iter().enumerate() {
                if membermask & (1 << k) != 0 && s.is_none() {
                    return Err(InterpError::Divergence {
                        message: format!(
                            "lane {lane} shuffles with member mask {membermask:#010x}, but lane {k} is not at this shuffle ({})",
                            self.prog.location(at.0, at.1)
                        ),
                    });
                }
            }
            let bval = self.rd(regs, b) as u32 & 31;
            let cword = self.rd(regs, c) as u32;
            let (cval, segmask) = (cword & 31, (cword >> 8) & 31);
            let max_lane = (lane & segmask) | (cval & !segmask);
            let min_lane = lane & segmask;
            let (j, ok) = match mode {
                ShflMode::Idx => {
                    let j = min_lane | (bval & !segmask);
                    (j as i64, j <= max_lane)
                }
                ShflMode::Down => {
                    let j = lane as i64 + bval as i64;
                    (j, j <= max_lane as i64)
                }
            };
            let j = if ok { j as usize } else { lane as usize };
            let v = src
                .get(j)
                .copied()
                .flatten()
                .ok_or_else(|| InterpError::Divergence {
                    message: format!(
                        "lane {lane} reads lane {j}, which is not at this shuffle ({})",
                        self.prog.location(at.0, at.1)
                    ),
                })?;
            results.push((i, v, ok));
        }
        for (i, v, ok) in results {
            let t = &mut threads[i];
            wr(&mut t.regs, d, v as u128);
            if let Some(p) = pred {
                wr(&mut t.regs, p, ok as u128);
            }
            t.status = Status::Running;
            t.pc += 1;
        }
        Ok(())
    }

    /// A warp-wide matrix multiply-accumulate every lane of the warp waits at.
    fn warp_mma(
        &mut self,
        threads: &mut [Thread],
        live: &[usize],
        at: (usize, usize),
    ) -> Result<(), InterpError> {
        let Exec::Mma {
            shape,
            ref ds,
            ref a,
            ref b,
            ref c,
        } = self.prog.blocks[at.0].code[at.1]
        else {
            return Ok(());
        };
        if live.len() != 32 {
            return Err(InterpError::Divergence {
                message: format!(
                    "a warp-wide matrix multiply needs all 32 lanes; {} reach it ({})",
                    live.len(),
                    self.prog.location(at.0, at.1)
                ),
            });
        }
        let frags: Vec<LaneFragments> = live
            .iter()
            .map(|&i| {
                let r = |v: &[Src]| -> Vec<u32> {
                    v.iter()
                        .map(|&s| self.rd(&threads[i].regs, s) as u32)
                        .collect()
                };
                LaneFragments {
                    a: r(a),
                    b: r(b),
                    c: r(c),
                }
            })
            .collect();
        let d = matrix::mma(shape, &frags).map_err(|m| self.malformed_at(at, m))?;
        finish_collective(threads, live, ds, d);
        Ok(())
    }

    /// `WGMMA_M64N32K16_F32` over a warpgroup every thread of which waits at it: thread
    /// j brings 16 bytes of A (row j/2) from its a + 16j and 8 bytes of B (column j/4)
    /// from its b + 8j; every accumulator starts at the thread's s.
    fn warpgroup_mma(
        &mut self,
        threads: &mut [Thread],
        shared: &mut Bank,
        live: &[usize],
        at: (usize, usize),
    ) -> Result<(), InterpError> {
        let Exec::Wgmma { ref ds, a, b, s } = self.prog.blocks[at.0].code[at.1] else {
            return Ok(());
        };
        if live.len() != 128 {
            return Err(InterpError::Divergence {
                message: format!(
                    "wgmma needs a whole warpgroup of 128 threads; {} reach it ({})",
                    live.len(),
                    self.prog.location(at.0, at.1)
                ),
            });
        }
        let mut am = vec![0f64; 64 * 16];
        let mut bm = vec![0f64; 16 * 32];
        let mut acc = Vec::with_capacity(128);
        for (j, &i) in live.iter().enumerate() {
            let (pa, pb, sv) = {
                let regs = &threads[i].regs;
                (
                    self.rd(regs, a) as u64,
                    self.rd(regs, b) as u64,
                    self.rd(regs, s) as u32,
                )
            };
            let t = &mut threads[i];
            for h in 0..8 {
                let addr = pa.wrapping_add(16 * j as u64 + 2 * h);
                let v = self.access(t, shared, Space::Global, addr, 2, None)?;
                am[(j / 2) * 16 + 8 * (j % 2) + h as usize] = matrix::f16_value(v as u16);
            }
            for h in 0..4 {
                let addr = pb.wrapping_add(8 * j as u64 + 2 * h);
                let v = self.access(t, shared, Space::Global, addr, 2, None)?;
                bm[(4 * (j % 4) + h as usize) * 32 + j / 4] = matrix::f16_value(v as u16);
            }
            acc.push(vec![sv; ds.len()]);
        }
        let d = matrix::wgmma_m64n32k16(&am, &bm, &acc).map_err(|m| self.malformed_at(at, m))?;
        finish_collective(threads, live, ds, d);
        Ok(())
    }

    /// Runs one thread until it returns or blocks at a collective instruction.
    fn run_thread(&mut self, t: &mut Thread, shared: &mut Bank) -> Result<(), InterpError> {
        let prog = self.prog;
        loop {
            let blk = &prog.blocks[t.block];
            if t.pc >= blk.code.len() {
                let next = t.block + 1;
                if next >= prog.blocks.len() {
                    return Err(InterpError::FellOffEnd { block: blk.number });
                }
                self.enter(t, next)?;
                continue;
            }
            self.steps += 1;
            if self.steps > self.fuel {
                return Err(InterpError::OutOfFuel { fuel: self.fuel });
            }
            match &blk.code[t.pc] {
                Exec::Barrier { .. }
                | Exec::Shfl { .. }
                | Exec::Mma { .. }
                | Exec::Wgmma { .. } => {
                    t.status = Status::Waiting;
                    return Ok(());
                }
                Exec::Return => {
                    t.status = Status::Done;
                    return Ok(());
                }
                &Exec::Branch { cond, target } => {
                    let taken = match cond {
                        None => true,
                        Some((p, negate)) => (self.rd(&t.regs, p) & 1 != 0) != negate,
                    };
                    if taken {
                        self.enter(t, target)?;
                    } else {
                        t.pc += 1;
                    }
                }
                x => {
                    let (b, pc) = (t.block, t.pc);
                    self.exec(t, shared, x)
                        .map_err(|e| e.at(|| prog.location(b, pc)))?;
                    t.pc += 1;
                }
            }
        }
    }

    /// Takes the edge from the thread's block to `target`: PHI copies, then go.
    fn enter(&mut self, t: &mut Thread, target: usize) -> Result<(), InterpError> {
        let prog = self.prog;
        let to = &prog.blocks[target];
        if to.has_phis {
            self.steps += 1;
            let Some((_, moves)) = to.edges.iter().find(|(p, _)| *p == t.block) else {
                return Err(InterpError::Malformed {
                    message: format!(
                        "bb.{} is entered from bb.{}, for which its PHIs have no value",
                        to.number, prog.blocks[t.block].number
                    ),
                    at: None,
                });
            };
            self.moves(&mut t.regs, moves);
        }
        t.block = target;
        t.pc = 0;
        Ok(())
    }

    /// A malformed-collective error at instruction `at`.
    fn malformed_at(&self, at: (usize, usize), message: String) -> InterpError {
        InterpError::Malformed {
            message,
            at: Some(self.prog.location(at.0, at.1)),
        }
    }

    fn rd(&self, regs: &[u128], s: Src) -> u128 {
        match s {
            Src::Slot(i) => regs[i as usize],
            Src::Imm(v) => v,
            Src::Sym { idx, off } => self.syms[idx as usize].1.wrapping_add(off as u64) as u128,
            Src::Poison => POISON,
        }
    }

    fn moves(&mut self, regs: &mut [u128], moves: &[Move]) {
        if let [m] = moves {
            let v = self.rd(regs, m.src);
            wr(regs, m.dst, v);
            return;
        }
        let mut scratch = core::mem::take(&mut self.scratch);
        scratch.clear();
        scratch.extend(moves.iter().map(|m| self.rd(regs, m.src)));
        for (m, &v) in moves.iter().zip(&scratch) {
            wr(regs, m.dst, v);
        }
        self.scratch = scratch;
    }

    fn address(&self, regs: &[u128], base: Src, off: i64, space: Space) -> u64 {
        let b = match base {
            Src::Sym { idx, off: o } => {
                let (sp, a) = self.syms[idx as usize];
                let w = if space == Space::Generic {
                    sp.generic_window()
                } else {
                    0
                };
                a.wrapping_add(o as u64).wrapping_add(w)
            }
            s => self.rd(regs, s) as u64,
        };
        b.wrapping_add(off as u64)
    }

    fn bank_mut<'a>(
        &'a mut self,
        t: &'a mut Thread,
        shared: &'a mut Bank,
        space: Space,
        addr: u64,
    ) -> (&'a mut Bank, Space, u64) {
        let (space, addr) = if space == Space::Generic {
            resolve_generic(addr)
        } else {
            (space, addr)
        };
        let bank = match space {
            Space::Global | Space::Generic => &mut self.global,
            Space::Const => &mut self.konst,
            Space::Shared => shared,
            Space::Local => &mut t.local,
            Space::Param => {
                if addr >= retval_addr(0) {
                    &mut t.retval
                } else {
                    &mut self.params
                }
            }
        };
        (bank, space, addr)
    }

    /// Reads (`write` None) or writes `bytes` bytes at `addr` of `space` as thread `t`
    /// sees it; a read returns the value, a write returns 0.
    fn access(
        &mut self,
        t: &mut Thread,
        shared: &mut Bank,
        space: Space,
        addr: u64,
        bytes: u32,
        write: Option<u128>,
    ) -> Result<u128, InterpError> {
        let (bank, sp, a) = self.bank_mut(t, shared, space, addr);
        let done = match write {
            None => bank.read(a, bytes),
            Some(v) => bank.write(a, bytes, v).map(|()| 0),
        };
        done.ok_or(InterpError::BadAddress {
            space: sp.name(),
            addr: a,
            bytes,
            write: write.is_some(),
            at: None,
        })
    }

    /// Executes one instruction of thread `t` that is neither control flow nor a
    /// collective: memory, special registers and inline asm here, the register-only
    /// operations in [`Machine::compute`].
    fn exec(&mut self, t: &mut Thread, shared: &mut Bank, x: &Exec) -> Result<(), InterpError> {
        match x {
            Exec::Moves(m) => self.moves(&mut t.regs, m),
            Exec::Load(l) => self.exec_load(t, shared, l)?,
            Exec::Store(s) => self.exec_store(t, shared, s)?,
            &Exec::Sreg { d, which } => {
                let v = self.sreg(t, which);
                wr(&mut t.regs, d, v as u128);
            }
            Exec::AsyncLoad { ds, base, index } => {
                let mut addr = self.rd(&t.regs, *base) as u64;
                if let Some(i) = index {
                    let c = self.rd(&t.regs, *i) as u32 as i32 as i64 as u64;
                    addr = addr.wrapping_add(c.wrapping_mul(4));
                }
                let v = self.access(t, shared, Space::Global, addr, 4, None)?;
                if let [data, token, ..] = ds[..] {
                    wr(&mut t.regs, data, v);
                    wr(&mut t.regs, token, 1);
                }
            }
            Exec::Asm(block) => {
                let init: Vec<u128> = block.init.iter().map(|&s| self.rd(&t.regs, s)).collect();
                let out = block.execute(init);
                for &(k, d) in &block.outputs {
                    wr(&mut t.regs, d, out[k]);
                }
            }
            Exec::Nop
            | Exec::Barrier { .. }
            | Exec::Shfl { .. }
            | Exec::Mma { .. }
            | Exec::Wgmma { .. }
            | Exec::Branch { .. }
            | Exec::Return => {}
            x => self.compute(&mut t.regs, x)?,
        }
        Ok(())
    }

    /// The operations that read and write registers only.
    fn compute(&self, regs: &mut [u128], x: &Exec) -> Result<(), InterpError> {
        let rd = |s: Src| self.rd(regs, s);
        let (d, v) = match *x {
            Exec::Int { op, bits, d, a, b } => (d, int_op(op, bits, rd(a), rd(b))),
            Exec::MulWide { signed, d, a, b } => (d, mul_wide32(signed, rd(a), rd(b))),
            Exec::MadLo { bits, d, a, b, c } => {
                let m = mask(bits);
                let r = (rd(a) & m).wrapping_mul(rd(b) & m).wrapping_add(rd(c) & m);
                (d, r & m)
            }
            Exec::SetpInt {
                bits,
                mode,
                d,
                a,
                b,
            } => (d, setp_int(mode, bits, rd(a), rd(b)) as u128),
            Exec::SetpF32 { mode, ftz, d, a, b } => {
                let r = setp_f32(mode, f32_in(ftz, rd(a)), f32_in(ftz, rd(b)));
                (d, r as u128)
            }
            Exec::Selp { d, a, b, p } => (d, if rd(p) & 1 != 0 { rd(a) } else { rd(b) }),
            Exec::F32 { op, ftz, d, a, b } => {
                (d, f32_op(op, ftz, rd(a) as u32, rd(b) as u32) as u128)
            }
            Exec::F16 {
                op,
                ftz,
                lanes,
                d,
                a,
                b,
            } => (d, f16_lanes(op, ftz, lanes, rd(a), rd(b))),
            Exec::Fma32 { ftz, d, a, b, c } => {
                let r = fma32_op(ftz, rd(a) as u32, rd(b) as u32, rd(c) as u32);
                (d, r as u128)
            }
            Exec::Cvt {
                to,
                from,
                mode,
                d,
                a,
            } => {
                let v = cvt(to, from, mode, rd(a)).ok_or_else(|| {
                    InterpError::unsupported("CVT", format!("conversion mode {mode:#x}"))
                })?;
                (d, v)
            }
            Exec::Pack {
                part_bits,
                d,
                ref parts,
            } => {
                let m = mask(part_bits);
                let mut v = 0u128;
                for (k, &p) in parts.iter().enumerate() {
                    v |= (rd(p) & m) << (part_bits as usize * k);
                }
                (d, v)
            }
            Exec::Unpack {
                part_bits,
                ref ds,
                a,
            } => {
                let v = rd(a);
                for (k, &d) in ds.iter().enumerate() {
                    wr(regs, d, (v >> (part_bits as usize * k)) & mask(part_bits));
                }
                return Ok(());
            }
            Exec::Tex {
                kind,
                ref ds,
                handle,
                ref coords,
            } => {
                self.tex(regs, kind, ds, handle, coords);
                return Ok(());
            }
            _ => return Ok(()),
        };
        wr(regs, d, v);
        Ok(())
    }

    fn exec_load(&mut self, t: &mut Thread, shared: &mut Bank, l: &Load) -> Result<(), InterpError> {
        let bytes = l.bits / 8;
        let addr = self.address(&t.regs, l.base, l.off, l.space);
        for (k, &d) in l.ds.iter().enumerate() {
            let a = addr.wrapping_add(k as u64 * bytes as u64);
            let raw = self.access(t, shared, l.space, a, bytes, None)?;
            let v = match l.ext {
                Ext::Sign => sext(raw, l.bits) as u128,
                Ext::Zero => raw,
            };
            wr(&mut t.regs, d, v);
        }
        Ok(())
    }

    fn exec_store(
        &mut self,
        t: &mut Thread,
        shared: &mut Bank,
        s: &Store,
    ) -> Result<(), InterpError> {
        let bytes = s.bits / 8;
        let addr = self.address(&t.regs, s.base, s.off, s.space);
        for (k, v) in s.vals.iter().enumerate() {
            let Some(v) = v else { continue };
            let val = self.rd(&t.regs, *v);
            let a = addr.wrapping_add(k as u64 * bytes as u64);
            self.access(t, shared, s.space, a, bytes, Some(val))?;
        }
        Ok(())
    }

    fn sreg(&self, t: &Thread, which: Sreg) -> u32 {
        let l = self.launch;
        match which {
            Sreg::Tid(k) => t.tid[k as usize],
            Sreg::Ntid(k) => l.block[k as usize],
            Sreg::Ctaid(k) => self.ctaid[k as usize],
            Sreg::Nctaid(k) => l.grid[k as usize],
            Sreg::LaneId => t.linear % 32,
        }
    }

    fn tex(&self, regs: &mut [u128], kind: TexKind, ds: &[Dst], handle: Src, coords: &[Src]) {
        let cs: Vec<u32> = coords.iter().map(|&c| self.rd(regs, c) as u32).collect();
        let v = texels(kind.is_float(), self.rd(regs, handle) as u64, &cs);
        for (&d, x) in ds.iter().zip(v) {
            wr(regs, d, x as u128);
        }
        if let (TexKind::F32F32_2dResident, Some(&p)) = (kind, ds.get(4)) {
            let resident = cs.iter().all(|&c| f32::from_bits(c) >= 0.0);
            wr(regs, p, resident as u128);
        }
    }
}

fn wr(regs: &mut [u128], d: Dst, v: u128) {
    if d.slot != Slot::MAX {
        regs[d.slot as usize] = v & mask(d.bits as u32);
    }
}

/// A two's-complement operation on `bits`-bit values; shift amounts clamp at the width.
fn int_op(op: IntOp, bits: u32, a: u128, b: u128) -> u128 {
    let m = mask(bits);
    let (x, y) = (a & m, b & m);
    let amount = (b as u32).min(bits);
    let r = match op {
        IntOp::Add => x.wrapping_add(y),
        IntOp::Sub => x.wrapping_sub(y),
        IntOp::MulLo => x.wrapping_mul(y),
        IntOp::And => x & y,
        IntOp::Or => x | y,
        IntOp::Xor => x ^ y,
        IntOp::Shl if amount >= bits => 0,
        IntOp::Shl => x << amount,
        IntOp::ShrU if amount >= bits => 0,
        IntOp::ShrU => x >> amount,
    };
    r & m
}

/// `mul.wide.{s,u}32`: the 64-bit product of the low 32 bits of `a` and `b`.
fn mul_wide32(signed: bool, a: u128, b: u128) -> u128 {
    let (x, y) = (a & 0xffff_ffff, b & 0xffff_ffff);
    let r = if signed {
        (sext(x, 32) * sext(y, 32)) as u128
    } else {
        x * y
    };
    r & mask(64)
}

/// An f32 operand: the low 32 bits of `v`, flushed to zero when `ftz`.
fn f32_in(ftz: bool, v: u128) -> f32 {
    let f = f32::from_bits(v as u32);
    if ftz {
        float::ftz32(f)
    } else {
        f
    }
}

/// `fma.rn.f32` on bit patterns (inputs and result flushed when `ftz`), canonical NaN.
pub(crate) fn fma32_op(ftz: bool, a: u32, b: u32, c: u32) -> u32 {
    let (x, y, z) = (a as u128, b as u128, c as u128);
    let mut r = float::fma32(f32_in(ftz, x), f32_in(ftz, y), f32_in(ftz, z));
    if ftz {
        r = float::ftz32(r);
    }
    float::canon32(r)
}

/// A `lanes`-wide f16 operation on packed halves.
fn f16_lanes(op: FOp, ftz: bool, lanes: u32, a: u128, b: u128) -> u128 {
    let mut r = 0u128;
    for k in 0..lanes {
        let sh = 16 * k;
        let h = f16_op(op, ftz, (a >> sh) as u16, (b >> sh) as u16);
        r |= (h as u128) << sh;
    }
    r
}

/// `setp` on integers. Modes follow LLVM's `NVPTX::PTXCmpMode`: 0..=5 are
/// eq ne lt le gt ge on signed values, 6..=11 the same on unsigned values.
pub(crate) fn setp_int(mode: u8, bits: u32, a: u128, b: u128) -> bool {
    let m = mask(bits);
    let (ua, ub) = (a & m, b & m);
    let (sa, sb) = (sext(a, bits), sext(b, bits));
    match mode {
        0 | 6 => ua == ub,
        1 | 7 => ua != ub,
        2 => sa < sb,
        3 => sa <= sb,
        4 => sa > sb,
        5 => sa >= sb,
        8 => ua < ub,
        9 => ua <= ub,
        10 => ua > ub,
        _ => ua >= ub,
    }
}

/// `setp` on f32. 0..=5 ordered eq ne lt le gt ge (false on NaN), 6..=11 unordered
/// equ neu ltu leu gtu geu (true on NaN), 12 `num` (neither NaN), 13 `nan` (either NaN).
pub(crate) fn setp_f32(mode: u8, a: f32, b: f32) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    let cmp = |m: u8| match m {
        0 => a == b,
        1 => a != b,
        2 => a < b,
        3 => a <= b,
        4 => a > b,
        _ => a >= b,
    };
    match mode {
        0..=5 => !unordered && cmp(mode),
        6..=11 => unordered || cmp(mode - 6),
        12 => !unordered,
        _ => unordered,
    }
}

/// An f32 `add sub mul` on bit patterns (inputs and result flushed when `ftz`),
/// canonical NaN.
pub(crate) fn f32_op(op: FOp, ftz: bool, a: u32, b: u32) -> u32 {
    let (x, y) = (f32_in(ftz, a as u128), f32_in(ftz, b as u128));
    let mut r = match op {
        FOp::Add => x + y,
        FOp::Sub => x - y,
        FOp::Mul => x * y,
    };
    if ftz {
        r = float::ftz32(r);
    }
    float::canon32(r)
}

fn f16_op(op: FOp, ftz: bool, a: u16, b: u16) -> u16 {
    let fl = |h: u16| if ftz { float::ftz16(h) } else { h };
    let (x, y) = (float::f16_to_f32(fl(a)), float::f16_to_f32(fl(b)));
    let r = match op {
        FOp::Add => x + y,
        FOp::Sub => x - y,
        FOp::Mul => x * y,
    };
    fl(float::canon16_from_f32(r))
}

/// `cvt` between the number types of a `CVT_<to>_<from>` opcode. `None` for mode/type
/// combinations without defined semantics here.
pub(crate) fn cvt(to: NumTy, from: NumTy, mode: u32, v: u128) -> Option<u128> {
    let ftz = mode & cvt_mode::FTZ != 0;
    let sat = mode & cvt_mode::SAT != 0;
    let base = mode & cvt_mode::BASE_MASK;
    let sat01 = |f: f32| {
        if !sat {
            f
        } else if f.is_nan() {
            0.0
        } else {
            f.clamp(0.0, 1.0)
        }
    };
    match (to, from) {
        (NumTy::Int { signed, bits }, NumTy::Int { .. }) if base == cvt_mode::NONE => {
            Some(int_to_int(signed, bits, sat, int_value(from, v)?))
        }
        (NumTy::Int { .. }, NumTy::Int { .. }) => None,
        (NumTy::F16 | NumTy::F32 | NumTy::F64, NumTy::Int { .. }) => {
            let dir = FRound::from_mode(mode)?;
            let x = int_value(from, v)?;
            match to {
                NumTy::F32 => Some(float::canon32(sat01(float::int_to_f32(x, dir))) as u128),
                NumTy::F64 => Some(float::int_to_f64(x, dir).to_bits() as u128),
                _ if dir != FRound::Nearest || sat => None,
                _ => Some(int_to_f16(x) as u128),
            }
        }
        (NumTy::Int { signed, bits }, from) => {
            let dir = IRound::from_mode(mode)?;
            let x = match from {
                NumTy::F32 => f32_in(ftz, v) as f64,
                NumTy::F64 => f64::from_bits(v as u64),
                NumTy::F16 => float::f16_to_f32(v as u16) as f64,
                NumTy::Int { .. } => return None,
            };
            Some(float::float_to_int(x, dir, signed, bits))
        }
        (NumTy::F32, NumTy::F16) => {
            if base != cvt_mode::NONE {
                return None;
            }
            Some(float::canon32(sat01(float::f16_to_f32(v as u16))) as u128)
        }
        (NumTy::F16, NumTy::F32) => {
            if !matches!(base, cvt_mode::NONE | cvt_mode::RN) || sat {
                return None;
            }
            let f = f32_in(ftz, v);
            Some(float::canon16_from_f32(f) as u128)
        }
        (NumTy::F64, NumTy::F32) => {
            if base != cvt_mode::NONE {
                return None;
            }
            let f = f32_in(ftz, v) as f64;
            Some(if f.is_nan() { f64::NAN } else { f }.to_bits() as u128)
        }
        (NumTy::F64, NumTy::F16) => {
            if base != cvt_mode::NONE {
                return None;
            }
            Some((float::f16_to_f32(v as u16) as f64).to_bits() as u128)
        }
        (NumTy::F32, NumTy::F32) => {
            let f = f32_in(ftz, v);
            let f = if base == cvt_mode::NONE {
                f
            } else {
                float::round_integral(f as f64, IRound::from_mode(mode)?) as f32
            };
            Some(float::canon32(sat01(f)) as u128)
        }
        (NumTy::F64, NumTy::F64) => {
            let f = f64::from_bits(v as u64);
            let f = if base == cvt_mode::NONE {
                f
            } else {
                float::round_integral(f, IRound::from_mode(mode)?)
            };
            let f = match (sat, f.is_nan()) {
                (false, _) => f,
                (true, true) => 0.0,
                (true, false) => f.clamp(0.0, 1.0),
            };
            Some(f.to_bits() as u128)
        }
        (NumTy::F32, NumTy::F64) => {
            let dir = FRound::from_mode(mode)?;
            let mut f = float::f64_to_f32(f64::from_bits(v as u64), dir);
            if ftz {
                f = float::ftz32(f);
            }
            Some(float::canon32(sat01(f)) as u128)
        }
        _ => None,
    }
}

/// The value of an integer-typed `v` (sign- or zero-extended from its width).
fn int_value(ty: NumTy, v: u128) -> Option<i128> {
    match ty {
        NumTy::Int { signed: true, bits } => Some(sext(v, bits)),
        NumTy::Int { bits, .. } => Some((v & mask(bits)) as i128),
        _ => None,
    }
}

/// An integer narrowed (or widened) to `bits`, clamped to the type's range with `sat`.
fn int_to_int(signed: bool, bits: u32, sat: bool, x: i128) -> u128 {
    let x = if sat {
        let (lo, hi) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        x.clamp(lo, hi)
    } else {
        x
    };
    x as u128 & mask(bits)
}

/// An integer to f16, round to nearest.
fn int_to_f16(x: i128) -> u16 {
    // Every integer with a finite f16 result is exact in f32.
    let f = if x.unsigned_abs() >= 1 << 24 {
        if x < 0 {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        }
    } else {
        x as f32
    };
    float::f32_to_f16(f)
}

pub(crate) fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The four texels of a fetch: a deterministic function of the handle and the
/// coordinate bits (see the module documentation of [`super`]); f32 texels from f32
/// coordinates when `float`, else s32 from s32. The MIR and the ORI interpreters both
/// fetch through this function.
pub(crate) fn texels(float: bool, handle: u64, coords: &[u32]) -> [u32; 4] {
    let mut h = splitmix(handle);
    for &c in coords {
        let c = if float {
            let f = f32::from_bits(c);
            if f == 0.0 {
                0
            } else {
                float::canon32(f)
            }
        } else {
            c
        };
        h = splitmix(h ^ c as u64);
    }
    let mut out = [0u32; 4];
    for (k, o) in out.iter_mut().enumerate() {
        let bits16 = (h >> (16 * k)) as u16;
        *o = if float {
            ((((bits16 & 0xff) as i32) - 128) as f32 / 8.0).to_bits()
        } else {
            bits16 as i16 as i32 as u32
        };
    }
    out
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setp_modes() {
        let (m1, two) = (u32::MAX as u128, 2u128);
        assert!(setp_int(2, 32, m1, two)); // -1 < 2 signed
        assert!(!setp_int(8, 32, m1, two)); // 0xffffffff < 2 unsigned: no
        assert!(setp_int(11, 32, m1, two));
        assert!(setp_int(5, 32, two, two));
        let nan = f32::NAN;
        assert!(!setp_f32(0, nan, nan));
        assert!(setp_f32(6, nan, 1.0));
        assert!(setp_f32(8, 0.5, 1.0));
        assert!(!setp_f32(12, nan, 1.0));
        assert!(setp_f32(13, nan, 1.0));
    }

    /// Same-type float conversions (the ORI interpreter now converts through `cvt`; it
    /// used to ignore `.sat` on `cvt.sat.f32.f32` and refuse `cvt.rni.f32.f32`).
    #[test]
    fn same_type_float_conversions_round_and_saturate() {
        let f = |x: f32| x.to_bits() as u128;
        let d = |x: f64| x.to_bits() as u128;
        assert_eq!(
            cvt(NumTy::F32, NumTy::F32, cvt_mode::SAT, f(2.0)),
            Some(f(1.0))
        );
        assert_eq!(
            cvt(NumTy::F32, NumTy::F32, cvt_mode::SAT, f(-3.0)),
            Some(f(0.0))
        );
        assert_eq!(
            cvt(NumTy::F32, NumTy::F32, cvt_mode::RNI, f(2.5)),
            Some(f(2.0))
        );
        assert_eq!(
            cvt(NumTy::F32, NumTy::F32, cvt_mode::RMI, f(-0.5)),
            Some(f(-1.0))
        );
        assert_eq!(
            cvt(NumTy::F32, NumTy::F32, cvt_mode::RZI, f(-0.5)),
            Some(f(-0.0))
        );
        assert_eq!(
            cvt(NumTy::F64, NumTy::F64, cvt_mode::RPI, d(1.25)),
            Some(d(2.0))
        );
        assert_eq!(cvt(NumTy::F32, NumTy::F32, cvt_mode::RN, f(1.5)), None);
    }

    #[test]
    fn conversions() {
        let i = |signed, bits| NumTy::Int { signed, bits };
        assert_eq!(
            cvt(i(false, 64), i(false, 32), 0, 0xffff_ffff),
            Some(0xffff_ffff)
        );
        assert_eq!(
            cvt(i(true, 64), i(true, 32), 0, 0xffff_ffff),
            Some(u64::MAX as u128)
        );
        assert_eq!(cvt(i(false, 32), i(false, 64), 0, 0x1_0000_0005), Some(5));
        assert_eq!(
            cvt(
                NumTy::F32,
                i(true, 32),
                cvt_mode::RN,
                (-3i32) as u32 as u128
            ),
            Some((-3.0f32).to_bits() as u128)
        );
        assert_eq!(
            cvt(
                i(true, 32),
                NumTy::F32,
                cvt_mode::RZI,
                (-2.75f32).to_bits() as u128
            ),
            Some((-2i32) as u32 as u128)
        );
        assert_eq!(
            cvt(NumTy::F32, NumTy::F16, 0, 0x3c00),
            Some(1.0f32.to_bits() as u128)
        );
        assert_eq!(cvt(NumTy::F32, i(true, 32), cvt_mode::RNI, 0), None);
    }

    #[test]
    fn texels_are_deterministic_and_ignore_zero_sign() {
        let a = texels(true, 7, &[0.0f32.to_bits(), 1.5f32.to_bits()]);
        let b = texels(true, 7, &[(-0.0f32).to_bits(), 1.5f32.to_bits()]);
        assert_eq!(a, b);
        assert_ne!(a, texels(true, 8, &[0, 1.5f32.to_bits()]));
    }
}
