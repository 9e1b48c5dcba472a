//! Random functions after PHI elimination, and a brute-force liveness to check the
//! analyses against.

use super::parse_one;
use compiler_core::entity::EntityRef;
use compiler_core::mir::{Function, VReg};

/// SplitMix64: small, seeded, the same on every machine.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

pub const SCALARS: usize = 6;
pub const TUPLE: usize = 10; // %10:b32x3
pub const PRED: usize = 20; // %20:b1

/// A random function after PHI elimination: scalars %0..%5 (several defs each, tied
/// pairs), one 3-lane tuple %10 written lane by lane, random branches.
pub fn random_function(rng: &mut Rng) -> Function {
    let nblocks = 1 + rng.below(6) as usize;
    let mut text = String::from("---\nname: rnd\nisSSA: false\nnoPhis: true\nbody: |\n");
    for b in 0..nblocks {
        let mut insts = Vec::new();
        if b == 0 {
            insts.push(format!("%{PRED}:b1 = MOV_B1_i -1"));
        }
        let s = |rng: &mut Rng| rng.below(SCALARS as u64);
        for _ in 0..rng.below(6) {
            let d = s(rng);
            let line = match rng.below(9) {
                0 => format!("%{d}:b32 = MOV_B32_i 7"),
                1 => format!("%{d}:b32 = ADD32rr %{}, %{}", s(rng), s(rng)),
                2 => format!("%{d}:b32 = ADD32ri %{}, 1", s(rng)),
                3 => format!("%{d}:b32 = ADD32ri %{d}(tied-def 0), 1"),
                4 => format!("ST_i32 %{}, 0, 0, 1, 32, %{}, 0", s(rng), s(rng)),
                5 => format!("%{d}:b32 = ADD32ri undef %{}, 1", s(rng)),
                6 => format!(
                    "{}%{TUPLE}.sub{}:b32x3 = MOV_B32_i 3",
                    if rng.chance(50) { "undef " } else { "" },
                    rng.below(3)
                ),
                7 => format!("%{d}:b32 = COPY %{TUPLE}.sub{}", rng.below(3)),
                _ => {
                    if rng.chance(50) {
                        format!("%{TUPLE}:b32x3 = IMPLICIT_DEF")
                    } else {
                        format!(
                            "%{d}:b32, dead %7:b32 = EXTRACT_SUBREG %{TUPLE}.sub0, %{TUPLE}.sub2"
                        )
                    }
                }
            };
            insts.push(line);
        }
        let mut succs = Vec::new();
        if b + 1 == nblocks {
            insts.push("Return".into());
        } else {
            match rng.below(3) {
                0 => succs.push(b + 1), // fall through
                1 => {
                    let t = rng.below(nblocks as u64) as usize;
                    insts.push(format!("GOTO %bb.{t}"));
                    succs.push(t);
                }
                _ => {
                    let t = rng.below(nblocks as u64) as usize;
                    insts.push(format!("CBranch %{PRED}, %bb.{t}"));
                    succs.push(t);
                    if t != b + 1 {
                        succs.push(b + 1);
                    }
                }
            }
        }
        text.push_str(&format!("  bb.{b}:\n"));
        if !succs.is_empty() {
            let list: Vec<String> = succs.iter().map(|s| format!("%bb.{s}")).collect();
            text.push_str(&format!("    successors: {}\n\n", list.join(", ")));
        }
        for i in insts {
            text.push_str(&format!("    {i}\n"));
        }
    }
    text.push_str("...\n");
    parse_one(&text)
}

/// What instruction `d` does to `v` (lane `lane` if given), read from its operands.
pub fn reads_defs(
    f: &Function,
    i: compiler_core::mir::Inst,
    v: VReg,
    lane: Option<u8>,
) -> (bool, bool) {
    use compiler_core::mir::{oflag, SubReg};
    let d = &f.insts[i];
    let touches = |s: Option<SubReg>| match (lane, s) {
        (None, _) | (_, None) => true,
        (Some(l), Some(k)) if k.lane().is_some() => k.lane() == Some(l),
        _ => true,
    };
    let mut reads = false;
    let mut defs = false;
    let mut written = 0u64;
    let mut partial_keeps = false;
    for o in &d.operands {
        if o.vreg_of() != Some(v) || !touches(o.subreg) {
            continue;
        }
        if o.is_def() {
            defs = true;
            written |= match o.subreg.and_then(SubReg::lane) {
                Some(k) => 1 << k,
                _ => !0,
            };
            partial_keeps |= o.subreg.is_some() && !o.has(oflag::UNDEF);
        } else if !o.has(oflag::UNDEF) {
            reads = true;
        }
    }
    // Whole-register view of a scalar: a sub-register write keeps the rest.
    if lane.is_none() && partial_keeps && written != !0 {
        reads = true;
    }
    (reads, defs)
}

/// Brute-force liveness over single instructions: (live before, live after) each
/// instruction, and live at each block's start and end.
pub struct Brute {
    pub before: std::collections::HashMap<compiler_core::mir::Inst, bool>,
    pub after: std::collections::HashMap<compiler_core::mir::Inst, bool>,
    pub block_in: Vec<bool>,
    pub block_out: Vec<bool>,
}

pub fn brute(f: &Function, v: VReg, lane: Option<u8>) -> Brute {
    let blocks: Vec<_> = f.layout.blocks().collect();
    let mut block_in = vec![false; f.blocks.len()];
    let mut block_out = vec![false; f.blocks.len()];
    let mut before = std::collections::HashMap::new();
    let mut after = std::collections::HashMap::new();
    loop {
        let mut changed = false;
        for &b in blocks.iter().rev() {
            let out = f.blocks[b].succs.iter().any(|&(s, _)| block_in[s.index()]);
            let mut live = out;
            for i in f
                .layout
                .block_insts(b)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                after.insert(i, live);
                let (r, d) = reads_defs(f, i, v, lane);
                if d {
                    live = false;
                }
                if r {
                    live = true;
                }
                before.insert(i, live);
            }
            if block_out[b.index()] != out || block_in[b.index()] != live {
                changed = true;
            }
            block_out[b.index()] = out;
            block_in[b.index()] = live;
        }
        if !changed {
            break;
        }
    }
    Brute {
        before,
        after,
        block_in,
        block_out,
    }
}
