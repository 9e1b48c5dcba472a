//! The interpreter never panics: corpus functions mutated at random (opcodes swapped,
//! operands dropped, duplicated or retargeted, immediates and classes changed,
//! instructions erased) either fail to compile with an error value or run to an
//! outcome or an error value.

use compiler_core::entity::EntityRef;
use compiler_core::interp::{self, Config, Rng};
use compiler_core::mir::operand::OperandKind;
use compiler_core::mir::{parse_module, Function, Op, Opcode, Reg, RegClass, SubReg, VReg};
use std::collections::BTreeMap;
use std::path::Path;

fn corpus_functions() -> Vec<(Function, Option<String>)> {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus"));
    let mut files = Vec::new();
    for case in std::fs::read_dir(dir).unwrap() {
        let case = case.unwrap().path();
        if !case.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&case).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "mir") {
                files.push(f);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for p in files {
        let m = parse_module(&std::fs::read_to_string(&p).unwrap()).unwrap();
        for f in m.functions {
            out.push((f, m.ir.clone()));
        }
    }
    out
}

fn mutate(f: &mut Function, rng: &mut Rng) {
    let insts: Vec<_> = f.all_insts().map(|(_, i)| i).collect();
    if insts.is_empty() {
        return;
    }
    let i = insts[rng.below(insts.len() as u64) as usize];
    let blocks: Vec<_> = f.layout.blocks().collect();
    let nops = f.insts[i].operands.len();
    match rng.below(9) {
        0 => {
            let all = Op::all();
            f.insts[i].opcode = Opcode::Known(all[rng.below(all.len() as u64) as usize]);
        }
        1 if nops > 0 => {
            let k = rng.below(nops as u64) as usize;
            let d = &mut f.insts[i];
            d.operands.remove(k);
            if k < d.lhs_defs as usize {
                d.lhs_defs -= 1;
            }
        }
        2 if nops > 0 => {
            let k = rng.below(nops as u64) as usize;
            let d = &mut f.insts[i];
            let op = d.operands[k];
            let at = (rng.below(nops as u64) as usize).max(d.lhs_defs as usize);
            d.operands.insert(at, op);
        }
        3 if nops > 0 => {
            let k = rng.below(nops as u64) as usize;
            let v = VReg::new(rng.below(f.vreg_end as u64 + 4) as usize);
            let op = &mut f.insts[i].operands[k];
            if op.is_reg() {
                op.set_reg(Reg::Virt(v));
                if rng.below(3) == 0 {
                    op.subreg = Some(SubReg::of_lane(rng.below(6) as u8));
                }
            }
        }
        4 if nops > 0 => {
            let k = rng.below(nops as u64) as usize;
            let op = &mut f.insts[i].operands[k];
            if let OperandKind::Imm(_) = op.kind {
                let v = match rng.below(4) {
                    0 => i64::MIN,
                    1 => i64::MAX,
                    2 => -1,
                    _ => rng.range(-300, 300),
                };
                op.kind = OperandKind::Imm(v);
            }
        }
        5 if nops > 0 => {
            let k = rng.below(nops as u64) as usize;
            let b = blocks[rng.below(blocks.len() as u64) as usize];
            f.insts[i].operands[k].kind = OperandKind::Block(b);
        }
        6 => {
            let v = VReg::new(rng.below(f.vreg_end as u64 + 1) as usize);
            let names = [
                "b1", "b16", "b32", "b64", "b128", "b32x4", "b64x2", "b32x16",
            ];
            f.vregs[v].class = RegClass::parse_nvptx(names[rng.below(names.len() as u64) as usize]);
        }
        7 => f.erase(i),
        _ => {
            // Operands of one instruction moved onto another.
            let j = insts[rng.below(insts.len() as u64) as usize];
            f.insts[i].operands = f.insts[j].operands.clone();
            f.insts[i].lhs_defs = f.insts[j].lhs_defs;
        }
    }
}

#[test]
fn mutated_corpus_functions_never_panic() {
    let funcs = corpus_functions();
    // `INTERP_MUTANTS=N` (and `INTERP_SEED`) for a longer search.
    let n: u32 = std::env::var("INTERP_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let seed: u64 = std::env::var("INTERP_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2024);
    let mut rng = Rng::new(seed);
    let cfg = Config {
        fuel: 20_000,
        ..Config::default()
    };
    let mut tally: BTreeMap<String, u32> = BTreeMap::new();
    for _ in 0..n {
        let (orig, ir) = &funcs[rng.below(funcs.len() as u64) as usize];
        let mut f = orig.clone();
        for _ in 0..=rng.below(3) {
            mutate(&mut f, &mut rng);
        }
        match interp::Program::compile(&f) {
            Err(e) => *tally.entry(format!("compile: {}", e.kind())).or_default() += 1,
            Ok(p) => {
                for seed in 0..2 {
                    let inputs = interp::random_inputs(&f, ir.as_deref(), seed);
                    let k = match p.run(&inputs, &cfg) {
                        Ok(_) => "run: ok".to_string(),
                        Err(e) => format!("run: {}", e.kind()),
                    };
                    *tally.entry(k).or_default() += 1;
                }
            }
        }
    }
    println!("{tally:#?}");
    assert!(tally.keys().any(|k| k == "run: ok"));
}
