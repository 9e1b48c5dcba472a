//! Decoding one MIR instruction into an [`Exec`], family by family in the order of the
//! instruction description (`mir/nvptx.isa`): target-independent pseudos, control
//! flow, immediate and register moves, wide-register packing, parameters and special
//! registers, memory, integer and float arithmetic, conversions, textures and the
//! collectives. Integer binary operations come straight from the description's
//! `int:OP:BITS` semantics; opcodes it marks `none:REASON` are refused by name.

use super::*;

/// One instruction being decoded: its opcode, its name (for messages) and its
/// explicit operands.
pub(super) struct Decode<'a> {
    op: Op,
    name: &'a str,
    data: &'a InstData,
    defs: &'a [&'a Operand],
    uses: &'a [&'a Operand],
}

impl Decode<'_> {
    /// Fails unless the instruction has `min..=max` explicit uses.
    fn uses(&self, min: usize, max: usize) -> Result<(), InterpError> {
        let n = self.uses.len();
        if n < min || n > max {
            let want = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return Err(InterpError::malformed(format!(
                "{} takes {want} operands after its defs, found {n}",
                self.name
            )));
        }
        Ok(())
    }
}

impl Compiler<'_> {
    pub(super) fn inst(&mut self, data: &InstData) -> Result<Exec, InterpError> {
        let name = opcode_name(self.f, data.opcode);
        let Opcode::Known(op) = data.opcode else {
            return Err(InterpError::unsupported(
                &name,
                "not in the opcode table (no semantics)",
            ));
        };
        let o = operands(data);
        let x = Decode {
            op,
            name: &name,
            data,
            defs: &o.defs,
            uses: &o.uses,
        };
        if let Some(why) = not_modelled(op) {
            return Err(InterpError::unsupported(&name, why));
        }
        if let Some((iop, bits)) = int_semantics(op) {
            let d = self.one_def(&x)?;
            x.uses(2, 2)?;
            return Ok(Exec::Int {
                op: iop,
                bits,
                d,
                a: self.src(x.uses[0])?,
                b: self.src(x.uses[1])?,
            });
        }
        self.hand(&x)
    }

    /// The opcodes the description marks `hand`: one decoder per family.
    fn hand(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        use Op::*;
        match x.op {
            COPY | IMOV1rr | IMOV16rr | IMOV32rr | IMOV64rr | FMOV16rr | FMOV32rr | FMOV64rr
            | MOV_B32_r | MOV_B64_r | BITCONVERT_32_I2F | BITCONVERT_32_F2I | BITCONVERT_64_I2F
            | BITCONVERT_64_F2I | cvta_to_global_64 => self.copy(x),
            KILL => self.kill(x),
            IMPLICIT_DEF => self.implicit_def(x),
            REG_SEQUENCE => self.reg_sequence(x),
            INSERT_SUBREG => self.insert_subreg(x),
            SUBREG_TO_REG => self.subreg_to_reg(x),
            EXTRACT_SUBREG => self.extract_subreg(x.defs, x.uses),
            INLINEASM => Ok(Exec::Asm(Box::new(asm::compile(self, x.data)?))),
            GOTO | CBranch | CBranchOther | Return => self.control(x),
            MOV_B1_i | MOV_B16_i | MOV_B32_i | MOV_B64_i | MOV_F32_i | MOV_F64_i | MOV_B64_sym => {
                self.mov_imm(x)
            }
            V2I32toI64 | V2I64toI128 | V2I16toI32 => self.pack(x),
            I64toV2I32 | I128toV2I64 | I32toV2I16 => self.unpack(x),
            StoreRetvalI32 | StoreRetvalF32 => self.store_retval(x),
            LD_i32 | LD_i64 | LD_f32 | LDV_i32_v2 | LDV_i32_v4 => self.ld(x),
            LD_GLOBAL_NC_i32 | LD_GLOBAL_NC_v4i32 | LD_GLOBAL_NC_v2i64 => self.ld_global_nc(x),
            ST_i32 | ST_i64 | STV_i32_v4 => self.st(x),
            MUL_WIDEu32_ri | MUL_WIDEs32_ri | MAD_LO_S32rrr | SELP_b32rr => self.int_other(x),
            SETP_i32rr | SETP_i32ri | SETP_f32rr => self.setp(x),
            FADDf32rr | FADDf32ri | FADD_rnf32rr | FADD_rnf32ri | FSUBf32rr | FSUB_rnf32rr
            | FMULf32rr | FMUL_rnf32rr | FMUL_rnf16rr | FADD_rnf16x2rr => self.float_binary(x),
            FMA_F32rrr | FMA_F32rir => self.fma(x),
            CVT_f32_s32 | CVT_f32_u32 | CVT_f32_s64 | CVT_f32_u64 | CVT_f32_f16 | CVT_s32_f32
            | CVT_u64_u32 | CVT_u32_u64 => self.cvt(x),
            TEX_UNIFIED_2D_F32_F32_R
            | TEX_UNIFIED_1D_S32_S32_R
            | TEX_2D_V4F32_F32
            | TEX_2D_V4F32_F32_P => self.tex(x),
            MMA_M16N8K8_TF32 | MMA_M16N8K8_TF32_ACC | WMMA_MMA_M16N16K16_F16 => self.mma(x),
            TMA_LOAD_2D | CP_ASYNC_CA_SHARED => self.async_load(x),
            WGMMA_M64N32K16_F32 => {
                x.uses(3, 3)?;
                Ok(Exec::Wgmma {
                    ds: self.results(x.defs, 16)?,
                    a: self.src(x.uses[0])?,
                    b: self.src(x.uses[1])?,
                    s: self.src(x.uses[2])?,
                })
            }
            BARRIER_CTA_SYNC_ALIGNED_ALL_i => {
                x.uses(1, 1)?;
                Ok(Exec::Barrier {
                    id: self.imm(x.uses[0])? as u32,
                })
            }
            SHFL_SYNC_IDX_i32 | SHFL_SYNC_DOWN_i32 => self.shfl(x),
            EH_LABEL | LIFETIME_START | LIFETIME_END | PSEUDO_PROBE => Ok(Exec::Nop),
            PHI => Err(InterpError::malformed("PHI outside the block header")),
            op => match Sreg::of(op) {
                Some(which) => {
                    let d = self.one_def(x)?;
                    x.uses(0, 0)?;
                    Ok(Exec::Sreg { d, which })
                }
                None => Err(InterpError::unsupported(x.name, NO_SEMANTICS_YET)),
            },
        }
    }

    fn one_def(&mut self, x: &Decode) -> Result<Dst, InterpError> {
        match x.defs {
            [d] => self.dst(d),
            _ => Err(InterpError::malformed(format!(
                "{} defines one register, found {}",
                x.name,
                x.defs.len()
            ))),
        }
    }

    // ---- target-independent pseudos and register moves ---------------------------

    /// COPY and the register-to-register moves: lane-wise copies (CICC's parameter
    /// registers `$rN` read kernel parameter N-1).
    fn copy(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let ([d], [s]) = (x.defs, x.uses) else {
            return Err(InterpError::malformed(format!(
                "{} takes one def and one source",
                x.name
            )));
        };
        if let Some(Reg::Phys(p)) = s.get_reg() {
            if let Some(n) = param_register(self.f.sym(p)) {
                let ds = self.dst_lanes(d)?;
                let bits = ds.first().map_or(32, |x| x.bits as u32).min(64);
                return Ok(Exec::Load(Load {
                    space: Space::Param,
                    ext: Ext::Zero,
                    bits,
                    ds,
                    base: Src::Imm(param_addr(n) as u128),
                    off: 0,
                }));
            }
        }
        let m = self.copy_lanes(d, s)?;
        Ok(Exec::Moves(self.subreg_def_moves(d, m)?))
    }

    /// Lane-wise moves from `s` to `d`.
    fn copy_lanes(&mut self, d: &Operand, s: &Operand) -> Result<Vec<Move>, InterpError> {
        let dsts = self.dst_lanes(d)?;
        let srcs = self.src_lanes(s)?;
        self.lane_moves(&dsts, &srcs)
    }

    fn kill(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        match (x.defs, x.uses) {
            ([d], [s, ..]) if s.is_reg() => Ok(Exec::Moves(self.copy_lanes(d, s)?)),
            _ => Ok(Exec::Nop),
        }
    }

    fn implicit_def(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let [d] = x.defs else {
            return Err(InterpError::malformed("IMPLICIT_DEF defines one register"));
        };
        let moves = self
            .dst_lanes(d)?
            .into_iter()
            .map(|dst| Move {
                dst,
                src: Src::Poison,
            })
            .collect();
        Ok(Exec::Moves(moves))
    }

    fn reg_sequence(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let [d] = x.defs else {
            return Err(InterpError::malformed("REG_SEQUENCE defines one register"));
        };
        let dsts = self.dst_lanes(d)?;
        if !x.uses.len().is_multiple_of(2) {
            return Err(InterpError::malformed(
                "REG_SEQUENCE operands come in (value, %subreg.subK) pairs",
            ));
        }
        let mut srcs = vec![Src::Poison; dsts.len()];
        for pair in x.uses.chunks(2) {
            let k = self.subreg_index(pair[1], dsts.len())?;
            srcs[k] = self.src(pair[0])?;
        }
        Ok(Exec::Moves(self.lane_moves(&dsts, &srcs)?))
    }

    fn insert_subreg(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let ([d], [base, val, idx]) = (x.defs, x.uses) else {
            return Err(InterpError::malformed(
                "INSERT_SUBREG takes a def, a base, a value and %subreg.subK",
            ));
        };
        let dsts = self.dst_lanes(d)?;
        let mut srcs = self.src_lanes(base)?;
        if srcs.len() == 1 && srcs[0] == Src::Poison {
            srcs = vec![Src::Poison; dsts.len()];
        }
        let k = self.subreg_index(idx, dsts.len())?;
        if k >= srcs.len() {
            return Err(InterpError::malformed("INSERT_SUBREG base is too narrow"));
        }
        srcs[k] = self.src(val)?;
        Ok(Exec::Moves(self.lane_moves(&dsts, &srcs)?))
    }

    fn subreg_to_reg(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let ([d], [imm, val, idx]) = (x.defs, x.uses) else {
            return Err(InterpError::malformed(
                "SUBREG_TO_REG takes a def, an immediate, a value and %subreg.subK",
            ));
        };
        let dsts = self.dst_lanes(d)?;
        let fill = Src::Imm(self.imm(imm)? as i128 as u128);
        let mut srcs = vec![fill; dsts.len()];
        let k = self.subreg_index(idx, dsts.len())?;
        srcs[k] = self.src(val)?;
        Ok(Exec::Moves(self.lane_moves(&dsts, &srcs)?))
    }

    /// `%d = EXTRACT_SUBREG %t, %subreg.subK` (LLVM), or the CICC multi-pair form
    /// `%d0, %d1 = EXTRACT_SUBREG %t.sub0, %t.sub1` where def i takes use i, or
    /// `%d0, %d1 = EXTRACT_SUBREG %t, %subreg.sub0, %subreg.sub1`.
    fn extract_subreg(
        &mut self,
        defs: &[&Operand],
        uses: &[&Operand],
    ) -> Result<Exec, InterpError> {
        if defs.is_empty() {
            return Err(InterpError::malformed("EXTRACT_SUBREG defines nothing"));
        }
        let idx_ops = uses
            .iter()
            .filter(|u| matches!(u.kind, OperandKind::SubRegIdx(_) | OperandKind::Imm(_)))
            .count();
        let mut moves = Vec::new();
        if idx_ops > 0 {
            let [t, idx @ ..] = uses else {
                return Err(InterpError::malformed("EXTRACT_SUBREG needs a source"));
            };
            if idx.len() != defs.len() {
                return Err(InterpError::malformed(format!(
                    "EXTRACT_SUBREG with {} def(s) and {} index(es)",
                    defs.len(),
                    idx.len()
                )));
            }
            let lanes = self.src_lanes(t)?;
            for (d, i) in defs.iter().zip(idx) {
                let k = self.subreg_index(i, lanes.len())?;
                let dst = self.dst(d)?;
                moves.push(Move { dst, src: lanes[k] });
            }
        } else {
            if uses.len() != defs.len() {
                return Err(InterpError::malformed(format!(
                    "EXTRACT_SUBREG pairs {} def(s) with {} use(s)",
                    defs.len(),
                    uses.len()
                )));
            }
            for (d, u) in defs.iter().zip(uses) {
                moves.extend(self.copy_lanes(d, u)?);
            }
        }
        Ok(Exec::Moves(moves))
    }

    // ---- control flow ----------------------------------------------------------------

    fn control(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        match x.op {
            Op::GOTO => {
                let [t] = x.uses else {
                    return Err(InterpError::malformed("GOTO takes one %bb.N"));
                };
                Ok(Exec::Branch {
                    cond: None,
                    target: self.block(t)?,
                })
            }
            Op::CBranch | Op::CBranchOther => {
                x.uses(2, 3)?;
                let p = self.src(x.uses[0])?;
                let target = self.block(x.uses[1])?;
                let mut negate = x.op == Op::CBranchOther;
                if let Some(n) = x.uses.get(2) {
                    negate ^= self.imm(n)? & 1 != 0;
                }
                Ok(Exec::Branch {
                    cond: Some((p, negate)),
                    target,
                })
            }
            _ => Ok(Exec::Return),
        }
    }

    // ---- immediates and wide-register packing ----------------------------------------

    fn mov_imm(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let d = self.one_def(x)?;
        let [v] = x.uses else {
            return Err(InterpError::malformed(format!(
                "{} takes one value",
                x.name
            )));
        };
        let bits = match x.op {
            Op::MOV_B1_i => 1,
            Op::MOV_B16_i => 16,
            Op::MOV_B32_i | Op::MOV_F32_i => 32,
            _ => 64,
        };
        let src = match self.src(v)? {
            Src::Imm(v) => Src::Imm(v & mask(bits)),
            s => s,
        };
        Ok(Exec::Moves(vec![Move { dst: d, src }]))
    }

    fn pack(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let d = self.one_def(x)?;
        let part_bits = match x.op {
            Op::V2I16toI32 => 16,
            Op::V2I32toI64 => 32,
            _ => 64,
        };
        x.uses(2, 2)?;
        let parts = x
            .uses
            .iter()
            .map(|u| self.src(u))
            .collect::<Result<_, _>>()?;
        Ok(Exec::Pack {
            part_bits,
            d,
            parts,
        })
    }

    fn unpack(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let part_bits = match x.op {
            Op::I32toV2I16 => 16,
            Op::I64toV2I32 => 32,
            _ => 64,
        };
        x.uses(1, 1)?;
        let ds = self.results(x.defs, 2)?;
        Ok(Exec::Unpack {
            part_bits,
            ds,
            a: self.src(x.uses[0])?,
        })
    }

    // ---- memory ----------------------------------------------------------------------

    fn store_retval(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        x.uses(2, 2)?;
        let val = self.src(x.uses[0])?;
        let off = self.imm(x.uses[1])?;
        self.retvals.push(0);
        Ok(Exec::Store(Store {
            space: Space::Param,
            bits: 32,
            vals: vec![Some(val)],
            base: Src::Imm(retval_addr(0) as u128),
            off,
        }))
    }

    /// `LD_*` / `LDV_*`: sem, scope, addrspace, sign, fromWidth, usedBytes, base, offset.
    fn ld(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let n = match x.op {
            Op::LDV_i32_v2 => 2,
            Op::LDV_i32_v4 => 4,
            _ => 1,
        };
        x.uses(8, 8)?;
        let u = x.uses;
        let space = self.space(u[2])?;
        self.load(x.defs, n, space, u[3], u[4], u[6], u[7])
    }

    /// `LD_GLOBAL_NC_*`: sign, fromWidth, usedBytes, base, offset.
    fn ld_global_nc(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let n = match x.op {
            Op::LD_GLOBAL_NC_v4i32 => 4,
            Op::LD_GLOBAL_NC_v2i64 => 2,
            _ => 1,
        };
        x.uses(5, 5)?;
        let u = x.uses;
        self.load(x.defs, n, Space::Global, u[0], u[1], u[3], u[4])
    }

    #[allow(clippy::too_many_arguments)]
    fn load(
        &mut self,
        defs: &[&Operand],
        n: usize,
        space: Space,
        sign: &Operand,
        width: &Operand,
        base: &Operand,
        off: &Operand,
    ) -> Result<Exec, InterpError> {
        let ds = self.results(defs, n)?;
        let ext = if self.imm(sign)? == 1 {
            Ext::Sign
        } else {
            Ext::Zero
        };
        let bits = self.width(width)?;
        let base = self.address_base(base, space)?;
        let off = self.imm(off)?;
        Ok(Exec::Load(Load {
            space,
            ext,
            bits,
            ds,
            base,
            off,
        }))
    }

    /// `ST_*` / `STV_*`: value(s), sem, scope, addrspace, toWidth, base, offset.
    fn st(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let n = if x.op == Op::STV_i32_v4 { 4 } else { 1 };
        x.uses(n + 6, n + 6)?;
        if !x.defs.is_empty() {
            return Err(InterpError::malformed(format!(
                "{} defines nothing",
                x.name
            )));
        }
        let u = x.uses;
        let vals = u[..n]
            .iter()
            .map(|u| match u.get_reg() {
                Some(Reg::NoReg) => Ok(None),
                _ => self.src(u).map(Some),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let space = self.space(u[n + 2])?;
        let bits = self.width(u[n + 3])?;
        let base = self.address_base(u[n + 4], space)?;
        let off = self.imm(u[n + 5])?;
        Ok(Exec::Store(Store {
            space,
            bits,
            vals,
            base,
            off,
        }))
    }

    // ---- integer and float arithmetic, conversions -------------------------------------

    /// `mul.wide.{u,s}32`, `mad.lo.s32`, `selp.b32`.
    fn int_other(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let d = self.one_def(x)?;
        let n = if x.op == Op::MUL_WIDEu32_ri || x.op == Op::MUL_WIDEs32_ri {
            2
        } else {
            3
        };
        x.uses(n, n)?;
        let a = self.src(x.uses[0])?;
        let b = self.src(x.uses[1])?;
        Ok(match x.op {
            Op::MAD_LO_S32rrr => Exec::MadLo {
                bits: 32,
                d,
                a,
                b,
                c: self.src(x.uses[2])?,
            },
            Op::SELP_b32rr => Exec::Selp {
                d,
                a,
                b,
                p: self.src(x.uses[2])?,
            },
            _ => Exec::MulWide {
                signed: x.op == Op::MUL_WIDEs32_ri,
                d,
                a,
                b,
            },
        })
    }

    /// `setp` on i32 (modes 0..=11) and f32 (modes 0..=13, then the ftz flag).
    fn setp(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let d = self.one_def(x)?;
        let float = x.op == Op::SETP_f32rr;
        x.uses(3, if float { 4 } else { 3 })?;
        let mode = self.imm(x.uses[2])?;
        if !float && !(0..=11).contains(&mode) {
            return Err(InterpError::malformed(format!(
                "integer compare mode {mode} (expected 0..=11: eq ne lt le gt ge, then their unsigned forms)"
            )));
        }
        if float && !(0..=13).contains(&mode) {
            return Err(InterpError::malformed(format!(
                "float compare mode {mode} (expected 0..=13)"
            )));
        }
        let mode = mode as u8;
        let ftz = float && self.ftz(x.uses, 3)?;
        let (a, b) = (self.src(x.uses[0])?, self.src(x.uses[1])?);
        Ok(if float {
            Exec::SetpF32 { mode, ftz, d, a, b }
        } else {
            Exec::SetpInt {
                bits: 32,
                mode,
                d,
                a,
                b,
            }
        })
    }

    /// f32 `add sub mul`, f16 `mul`, f16x2 `add`; the trailing ftz flag is optional.
    fn float_binary(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        use Op::*;
        let d = self.one_def(x)?;
        x.uses(2, 3)?;
        let (op, lanes) = match x.op {
            FADDf32rr | FADDf32ri | FADD_rnf32rr | FADD_rnf32ri => (FOp::Add, 0),
            FSUBf32rr | FSUB_rnf32rr => (FOp::Sub, 0),
            FMUL_rnf16rr => (FOp::Mul, 1),
            FADD_rnf16x2rr => (FOp::Add, 2),
            _ => (FOp::Mul, 0),
        };
        let ftz = self.ftz(x.uses, 2)?;
        let (a, b) = (self.src(x.uses[0])?, self.src(x.uses[1])?);
        Ok(match lanes {
            0 => Exec::F32 { op, ftz, d, a, b },
            _ => Exec::F16 {
                op,
                lanes,
                ftz,
                d,
                a,
                b,
            },
        })
    }

    fn fma(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let d = self.one_def(x)?;
        x.uses(3, 4)?;
        Ok(Exec::Fma32 {
            ftz: self.ftz(x.uses, 3)?,
            d,
            a: self.src(x.uses[0])?,
            b: self.src(x.uses[1])?,
            c: self.src(x.uses[2])?,
        })
    }

    /// `CVT_<to>_<from>` with its mode immediate.
    fn cvt(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let d = self.one_def(x)?;
        x.uses(1, 2)?;
        let mut parts = x.name.split('_').skip(1);
        let (Some(to), Some(from)) = (
            parts.next().and_then(NumTy::parse),
            parts.next().and_then(NumTy::parse),
        ) else {
            return Err(InterpError::unsupported(x.name, "unknown conversion types"));
        };
        let mode = match x.uses.get(1) {
            Some(m) => self.imm(m)? as u32,
            None => 0,
        };
        if super::super::exec::cvt(to, from, mode, 0).is_none() {
            return Err(InterpError::unsupported(
                x.name,
                format!("conversion mode {mode:#x}"),
            ));
        }
        Ok(Exec::Cvt {
            to,
            from,
            mode,
            d,
            a: self.src(x.uses[0])?,
        })
    }

    // ---- textures and collectives ------------------------------------------------------

    fn tex(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let (kind, ncoords) = match x.op {
            Op::TEX_UNIFIED_1D_S32_S32_R => (TexKind::S32S32_1d, 1),
            Op::TEX_2D_V4F32_F32_P => (TexKind::F32F32_2dResident, 2),
            _ => (TexKind::F32F32_2d, 2),
        };
        x.uses(1 + ncoords, 1 + ncoords)?;
        let mut ds = self.results(x.defs, 4)?;
        if kind == TexKind::F32F32_2dResident {
            // The residency predicate goes to the implicit def, when there is one.
            if let Some(p) = x
                .data
                .operands
                .iter()
                .find(|o| o.has(oflag::IMPLICIT | oflag::DEF))
            {
                ds.push(self.dst(p)?);
            }
        }
        let handle = self.src(x.uses[0])?;
        let coords = x.uses[1..]
            .iter()
            .map(|u| self.src(u))
            .collect::<Result<_, _>>()?;
        Ok(Exec::Tex {
            kind,
            ds,
            handle,
            coords,
        })
    }

    fn mma(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        x.uses(3, 3)?;
        let (shape, nd) = if x.op == Op::WMMA_MMA_M16N16K16_F16 {
            (Shape::WmmaM16N16K16F32F16, 8)
        } else {
            (Shape::MmaM16N8K8Tf32, 4)
        };
        let ds = self.results(x.defs, nd)?;
        let (na, nb, nc, _) = shape.regs();
        let (a, b) = (self.src(x.uses[0])?, self.src(x.uses[1])?);
        let c = if x.op == Op::MMA_M16N8K8_TF32_ACC {
            let acc = self.src_lanes(x.uses[2])?;
            if acc.len() != nc {
                return Err(InterpError::malformed(format!(
                    "{} accumulates into a {nc}-lane tuple, found {} lane(s)",
                    x.name,
                    acc.len()
                )));
            }
            acc
        } else {
            vec![self.src(x.uses[2])?; nc]
        };
        Ok(Exec::Mma {
            shape,
            ds,
            a: vec![a; na],
            b: vec![b; nb],
            c,
        })
    }

    fn async_load(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        let n = if x.op == Op::TMA_LOAD_2D { 2 } else { 1 };
        x.uses(n, n)?;
        let ds = self.results(x.defs, 2)?;
        let base = self.src(x.uses[0])?;
        let index = if n == 2 {
            Some(self.src(x.uses[1])?)
        } else {
            None
        };
        Ok(Exec::AsyncLoad { ds, base, index })
    }

    fn shfl(&mut self, x: &Decode) -> Result<Exec, InterpError> {
        x.uses(4, 4)?;
        let (d, pred) = match x.defs {
            [d] => (self.dst(d)?, None),
            [d, p] => (self.dst(d)?, Some(self.dst(p)?)),
            _ => {
                return Err(InterpError::malformed(format!(
                    "{} defines a value and optionally a predicate",
                    x.name
                )))
            }
        };
        let u = x.uses;
        Ok(Exec::Shfl {
            mode: if x.op == Op::SHFL_SYNC_IDX_i32 {
                ShflMode::Idx
            } else {
                ShflMode::Down
            },
            d,
            pred,
            a: self.src(u[0])?,
            b: self.src(u[1])?,
            c: self.src(u[2])?,
            mask: self.src(u[3])?,
        })
    }
}
