//! A one-thread evaluator of machine IR for the opcodes the DAG examples use (COPY,
//! IMPLICIT_DEF, EXTRACT_SUBREG with N pairs, REG_SEQUENCE, INLINEASM, branches and
//! every opcode `dag_eval::semantics::exec` models). Sub-register defs and uses, tuples and
//! implicit physical defs are followed; kill/dead/tie flags are ignored.

use compiler_core::dag_eval::semantics::{exec, exec_asm, Arg, Lanes, Mem};
use compiler_core::dag_eval::{Inputs, Outcome};
use compiler_core::entity::EntityRef;
use compiler_core::mir::{oflag, Block, Function, Op, OperandKind, Reg, SubReg, VReg};
use std::collections::BTreeMap;

struct State<'f> {
    f: &'f Function,
    regs: BTreeMap<VReg, Lanes>,
    phys: BTreeMap<String, Lanes>,
}

impl State<'_> {
    fn lanes_of(&self, v: VReg) -> usize {
        self.f.vreg_class(v).map_or(1, |c| c.lanes() as usize)
    }
    fn read(&self, o: &compiler_core::mir::Operand) -> Result<Lanes, String> {
        let full = match o.get_reg() {
            Some(Reg::Virt(v)) => self
                .regs
                .get(&v)
                .cloned()
                .ok_or_else(|| format!("%{} read before it is written", v.index()))?,
            Some(Reg::Phys(s)) => {
                let n = self.f.names.name(s);
                self.phys
                    .get(n)
                    .cloned()
                    .ok_or_else(|| format!("${n} read before it is written"))?
            }
            _ => return Err("not a register".into()),
        };
        Ok(match o.subreg.and_then(SubReg::lane) {
            Some(l) => vec![*full.get(l as usize).ok_or("lane out of range")?],
            _ => full,
        })
    }
    fn write(&mut self, o: &compiler_core::mir::Operand, v: Lanes) -> Result<(), String> {
        match o.get_reg() {
            Some(Reg::Virt(r)) => match o.subreg.and_then(SubReg::lane) {
                Some(l) => {
                    let n = self.lanes_of(r);
                    let t = self.regs.entry(r).or_insert_with(|| vec![0; n]);
                    t.resize(n.max(l as usize + 1), 0);
                    t[l as usize] = v[0];
                }
                _ => {
                    self.regs.insert(r, v);
                }
            },
            Some(Reg::Phys(s)) => {
                self.phys.insert(self.f.names.name(s).to_string(), v);
            }
            _ => return Err("def is not a register".into()),
        }
        Ok(())
    }
}

/// Runs `f` from its entry block.
pub fn run(f: &Function, inputs: &Inputs) -> Result<Outcome, String> {
    let mut st = State {
        f,
        regs: BTreeMap::new(),
        phys: inputs
            .param_regs
            .iter()
            .map(|(&n, &v)| (format!("r{n}"), vec![v]))
            .collect(),
    };
    let mut mem = Mem::new(inputs);
    let order: Vec<Block> = f.layout.blocks().collect();
    let Some(mut b) = order.first().copied() else {
        return Ok(Outcome::default());
    };
    let mut steps = 0u64;
    'blocks: loop {
        let mut next = order
            .iter()
            .position(|&x| x == b)
            .and_then(|i| order.get(i + 1).copied());
        for i in f.layout.block_insts(b) {
            steps += 1;
            if steps > 1_000_000 {
                return Err("step limit".into());
            }
            let d = &f.insts[i];
            let lhs = d.lhs_defs as usize;
            let Some(op) = d.opcode.known() else {
                return Err("unknown opcode".into());
            };
            match op {
                Op::COPY => {
                    let v = st.read(&d.operands[1])?;
                    st.write(&d.operands[0], v)?;
                }
                Op::IMPLICIT_DEF => {
                    let n = d.operands[0].vreg_of().map_or(1, |v| st.lanes_of(v));
                    st.write(&d.operands[0], vec![0; n])?;
                }
                Op::EXTRACT_SUBREG => {
                    let uses = &d.operands[lhs..];
                    if lhs == 1 && uses.len() == 2 {
                        if let OperandKind::SubRegIdx(s) = uses[1].kind {
                            let mut src = uses[0];
                            src.subreg = Some(s);
                            let v = st.read(&src)?;
                            st.write(&d.operands[0], v)?;
                            continue;
                        }
                    }
                    let vals: Vec<Lanes> =
                        uses.iter().map(|u| st.read(u)).collect::<Result<_, _>>()?;
                    for (k, v) in vals.into_iter().enumerate() {
                        st.write(&d.operands[k], v)?;
                    }
                }
                Op::REG_SEQUENCE => {
                    let dv = d.operands[0].vreg_of().ok_or("REG_SEQUENCE def")?;
                    let mut t = vec![0u64; st.lanes_of(dv)];
                    let mut k = 1;
                    while k + 1 < d.operands.len() {
                        if let Some(l) = d.operands[k + 1].kind.subreg_idx().and_then(SubReg::lane)
                        {
                            let v = st.read(&d.operands[k])?;
                            t[l as usize] = v[0];
                        }
                        k += 2;
                    }
                    st.write(&d.operands[0], t)?;
                }
                Op::INLINEASM => {
                    let text = match d.operands[0].kind {
                        OperandKind::Global { sym, .. } => {
                            compiler_core::dag::llvm_unescape(f.names.name(sym))
                        }
                        _ => return Err("INLINEASM text".into()),
                    };
                    let mut slots: Vec<u64> = Vec::new();
                    let mut outputs: Vec<(usize, usize)> = Vec::new(); // (slot, operand index)
                    let mut k = 2;
                    while k < d.operands.len() {
                        let Some(w) = d.operands[k].imm_value() else {
                            break;
                        };
                        let w = w as u64;
                        let (kind, n) = (w & 7, ((w >> 3) & 0x1fff) as usize);
                        let tied = (w >> 31) & 1 == 1;
                        let to = ((w >> 16) & 0x7fff) as usize;
                        for j in 0..n {
                            let o = &d.operands[k + 1 + j];
                            let slot = slots.len();
                            match kind {
                                2 | 3 => {
                                    slots.push(0);
                                    outputs.push((slot, k + 1 + j));
                                }
                                1 => {
                                    let v = st.read(o)?[0];
                                    slots.push(v);
                                    if tied {
                                        slots[to] = v;
                                    }
                                }
                                5 => slots.push(o.imm_value().unwrap_or(0) as u64),
                                _ => return Err(format!("asm operand kind {kind}")),
                            }
                        }
                        k += 1 + n;
                    }
                    exec_asm(&text, &mut slots)?;
                    for (slot, oi) in outputs {
                        st.write(&d.operands[oi], vec![slots[slot]])?;
                    }
                }
                Op::Return => break 'blocks,
                Op::GOTO | Op::CBranch | Op::CBranchOther => {
                    let target = d.operands.iter().find_map(|o| match o.kind {
                        OperandKind::Block(b) => Some(b),
                        _ => None,
                    });
                    let take = op == Op::GOTO || st.read(&d.operands[0])?[0] & 1 == 1;
                    if take {
                        next = target;
                        break;
                    }
                }
                Op::EH_LABEL | Op::LIFETIME_START | Op::LIFETIME_END | Op::PSEUDO_PROBE => {}
                _ => {
                    let mut owned: Vec<Lanes> = Vec::new();
                    for o in &d.operands[lhs..] {
                        if o.is_use() {
                            owned.push(st.read(o)?);
                        }
                    }
                    let mut it = owned.iter();
                    let mut args: Vec<Arg<'_>> = Vec::new();
                    for o in &d.operands[lhs..] {
                        match o.kind {
                            OperandKind::Reg(_) if o.is_use() => {
                                args.push(Arg::Reg(it.next().unwrap()))
                            }
                            OperandKind::Reg(_) => {}
                            OperandKind::Imm(v) => args.push(Arg::Imm(v)),
                            OperandKind::Global { sym, .. } => {
                                args.push(Arg::Sym(f.names.name(sym)))
                            }
                            OperandKind::Block(b) => args.push(Arg::Block(b.index() as u32)),
                            _ => args.push(Arg::Other),
                        }
                    }
                    let defs = exec(op, &args, &mut mem)?;
                    let def_ops: Vec<&compiler_core::mir::Operand> = d.operands[..lhs]
                        .iter()
                        .chain(
                            d.operands[lhs..]
                                .iter()
                                .filter(|o| o.has(oflag::IMPLICIT | oflag::DEF)),
                        )
                        .collect();
                    for (o, v) in def_ops.into_iter().zip(defs) {
                        let o = *o;
                        st.write(&o, v)?;
                    }
                }
            }
        }
        match next {
            Some(x) => b = x,
            None => break,
        }
    }
    Ok(Outcome { stores: mem.stores })
}
