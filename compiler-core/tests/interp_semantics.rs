//! The interpreter on small hand-written MIR programs, one semantic point each: a loop,
//! PHI parallel copies, compare modes, tuples and sub-registers, inline asm with tied
//! operands, warp shuffles, barriers, fuel, and errors that are values.

use compiler_core::interp::{
    self, memory::BUFFER_BASE, Config, Inputs, InterpError, Launch, Outcome, Region,
};
use compiler_core::mir::{parse_module, Function};

fn function(body: &str) -> Function {
    let text = format!("---\nname: k\nbody: |\n{body}...\n");
    let mut m = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    m.functions.remove(0)
}

/// One output buffer of `words` zeroed words at `BUFFER_BASE`, passed as param 0;
/// `more` are the following parameters (each 4 bytes).
fn inputs(words: usize, more: &[u32], launch: Launch) -> Inputs {
    let mut params = vec![BUFFER_BASE.to_le_bytes().to_vec()];
    params.extend(more.iter().map(|v| v.to_le_bytes().to_vec()));
    Inputs {
        launch,
        params,
        buffers: vec![Region {
            name: "out".into(),
            base: BUFFER_BASE,
            bytes: vec![0; words * 4],
        }],
        symbols: vec![],
    }
}

fn one_thread() -> Launch {
    Launch {
        grid: [1, 1, 1],
        block: [1, 1, 1],
    }
}

fn run(f: &Function, inputs: &Inputs) -> Result<Outcome, InterpError> {
    interp::run(f, inputs, &Config::default()).map(|r| r.outcome)
}

fn words(o: &Outcome) -> Vec<u32> {
    o.global[0]
        .bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

const LOOP_SUM: &str = "
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_1, 0
    %2:b32 = MOV_B32_i 0
    %10:b1 = SETP_i32ri %1, 1, 2
    CBranch %10, %bb.2

  bb.1:
    %4:b32 = PHI %2, %bb.0, %6, %bb.1
    %5:b32 = PHI %2, %bb.0, %7, %bb.1
    %6:b32 = ADD32rr %4, %5
    %7:b32 = ADD32ri %5, 1
    %8:b1 = SETP_i32rr %7, %1, 2
    CBranch %8, %bb.1
    GOTO %bb.3

  bb.2:
    GOTO %bb.3

  bb.3:
    %9:b32 = PHI %2, %bb.2, %6, %bb.1
    ST_i32 %9, 0, 0, 1, 32, %0, 0
    Return
";

#[test]
fn loop_sum() {
    let f = function(LOOP_SUM);
    for n in [0u32, 1, 2, 10, 100, (-5i32) as u32] {
        let o = run(&f, &inputs(1, &[n], one_thread())).unwrap();
        let want = if (n as i32) < 1 { 0 } else { n * (n - 1) / 2 };
        assert_eq!(words(&o)[0], want, "n = {}", n as i32);
    }
}

/// `(a, b) = (b, a + b)` with PHIs: both PHIs read the values of the previous
/// iteration. Run sequentially (a = b; b = a + b) it would compute powers of two.
const PHI_SWAP: &str = "
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_1, 0
    %2:b32 = MOV_B32_i 0
    %3:b32 = MOV_B32_i 1

  bb.1:
    %4:b32 = PHI %2, %bb.0, %8, %bb.1
    %5:b32 = PHI %2, %bb.0, %6, %bb.1
    %6:b32 = PHI %3, %bb.0, %7, %bb.1
    %7:b32 = ADD32rr %5, %6
    %8:b32 = ADD32ri %4, 1
    %9:b1 = SETP_i32rr %8, %1, 8
    CBranch %9, %bb.1

  bb.2:
    ST_i32 %5, 0, 0, 1, 32, %0, 0
    ST_i32 %6, 0, 0, 1, 32, %0, 4
    Return
";

#[test]
fn phi_swap_is_a_parallel_copy() {
    let f = function(PHI_SWAP);
    let o = run(&f, &inputs(2, &[10], one_thread())).unwrap();
    // After 10 iterations starting from (0, 1): (fib 9, fib 10) = (34, 55).
    assert_eq!(words(&o), [34, 55]);
}

/// The same swap lowered to COPYs through a temporary, as PHI elimination does; the
/// interpreter gives the same result.
#[test]
fn phi_swap_copy_form_agrees() {
    let copies = "
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_1, 0
    %2:b32 = MOV_B32_i 0
    %3:b32 = MOV_B32_i 1
    %10:b32 = COPY %2
    %11:b32 = COPY %2
    %12:b32 = COPY %3

  bb.1:
    %4:b32 = COPY %10
    %5:b32 = COPY %11
    %6:b32 = COPY %12
    %7:b32 = ADD32rr %5, %6
    %8:b32 = ADD32ri %4, 1
    %9:b1 = SETP_i32rr %8, %1, 8
    %10:b32 = COPY %8
    %11:b32 = COPY %6
    %12:b32 = COPY %7
    CBranch %9, %bb.1

  bb.2:
    ST_i32 %5, 0, 0, 1, 32, %0, 0
    ST_i32 %6, 0, 0, 1, 32, %0, 4
    Return
";
    let (a, b) = (function(PHI_SWAP), function(copies));
    // Negative trip counts compare as huge unsigned numbers: those runs run out of fuel
    // in both forms.
    let cfg = Config {
        fuel: 200_000,
        ..Config::default()
    };
    let ag = interp::compare(&a, &b, None, 0..60, &cfg).unwrap();
    assert!(ag.all_agree() && ag.agreed >= 50, "{ag}");
}

#[test]
fn setp_compare_modes() {
    // out[mode] = (a <mode> b) for integer modes 0..=11, then out[12 + m] for f32.
    let mut body = String::from(
        "
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_1, 0
    %2:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_2, 0
    %3:b32 = MOV_B32_i 1
    %4:b32 = MOV_B32_i 0
",
    );
    let mut v = 10;
    for mode in 0..12 {
        body += &format!(
            "    %{v}:b1 = SETP_i32rr %1, %2, {mode}\n    %{}:b32 = SELP_b32rr %3, %4, %{v}\n    ST_i32 %{}, 0, 0, 1, 32, %0, {}\n",
            v + 1,
            v + 1,
            4 * mode
        );
        v += 2;
    }
    for mode in 0..14 {
        body += &format!(
            "    %{v}:b1 = SETP_f32rr %1, %2, {mode}, 0\n    %{}:b32 = SELP_b32rr %3, %4, %{v}\n    ST_i32 %{}, 0, 0, 1, 32, %0, {}\n",
            v + 1,
            v + 1,
            4 * (12 + mode)
        );
        v += 2;
    }
    body += "    Return\n";
    let f = function(&body);
    let check = |a: u32, b: u32| {
        let o = run(&f, &inputs(26, &[a, b], one_thread())).unwrap();
        words(&o).iter().map(|&w| w == 1).collect::<Vec<bool>>()
    };
    let (sa, sb) = (-1i32, 2i32);
    let got = check(sa as u32, sb as u32);
    let (ua, ub) = (sa as u32, sb as u32);
    let int_want = [
        sa == sb,
        sa != sb,
        sa < sb,
        sa <= sb,
        sa > sb,
        sa >= sb,
        ua == ub,
        ua != ub,
        ua < ub,
        ua <= ub,
        ua > ub,
        ua >= ub,
    ];
    assert_eq!(got[..12], int_want);
    // f32: 1.5 vs NaN is unordered.
    let got = check(1.5f32.to_bits(), f32::NAN.to_bits());
    let f_want = [
        false, false, false, false, false, false, // ordered
        true, true, true, true, true, true, // unordered
        false, true, // num, nan
    ];
    assert_eq!(got[12..], f_want);
    let got = check((-2.0f32).to_bits(), 0.5f32.to_bits());
    let f_want = [
        false, true, true, true, false, false, false, true, true, true, false, false, true, false,
    ];
    assert_eq!(got[12..], f_want);
}

#[test]
fn tuple_extract_subreg_with_four_pairs() {
    // One 4-lane tuple from a vector load; the CICC multi-pair EXTRACT_SUBREG splits it
    // (def i takes use i, in any lane order); REG_SEQUENCE and INSERT_SUBREG rebuild one.
    let f = function(
        "
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32x4 = LD_GLOBAL_NC_v4i32 3, 32, -1, %0, 0
    %2:b32, %3:b32, %4:b32, %5:b32 = EXTRACT_SUBREG %1.sub3, %1.sub0, %1.sub2, %1.sub1
    ST_i32 %2, 0, 0, 1, 32, %0, 16
    ST_i32 %3, 0, 0, 1, 32, %0, 20
    ST_i32 %4, 0, 0, 1, 32, %0, 24
    ST_i32 %5, 0, 0, 1, 32, %0, 28
    %6:b32x4 = REG_SEQUENCE %5, %subreg.sub0, %4, %subreg.sub1, %3, %subreg.sub2, %2, %subreg.sub3
    %7:b32 = MOV_B32_i 99
    %8:b32x4 = INSERT_SUBREG %6, %7, %subreg.sub2
    %9:b32 = EXTRACT_SUBREG %8, %subreg.sub2
    %10:b32x4 = COPY %8
    STV_i32_v4 %10.sub0, %10.sub1, %10.sub2, %10.sub3, 0, 0, 1, 32, %0, 32
    ST_i32 %9, 0, 0, 1, 32, %0, 48
    Return
",
    );
    let mut inp = inputs(13, &[], one_thread());
    for (k, w) in [11u32, 22, 33, 44].iter().enumerate() {
        inp.buffers[0].bytes[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    let o = run(&f, &inp).unwrap();
    assert_eq!(
        words(&o),
        [11, 22, 33, 44, 44, 11, 33, 22, 22, 33, 99, 44, 99]
    );
}

#[test]
fn inline_asm_plus_r_reads_the_tied_input() {
    // asm("add.u32 %0, %0, %1;" : "+r"(x) : "r"(y)) with x = 40, y = 2, then a second
    // statement with two tied outputs and a rotate.
    let f = function(
        r#"
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_1, 0
    %2:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_2, 0
    INLINEASM &"add.u32 $0, $0, $1;", 1 /* sideeffect attdialect */, 262154 /* regdef:B32 */, def %3, 262153 /* reguse:B32 */, %2, 2147483657 /* reguse tiedto:$0 */, %1(tied-def 3)
    INLINEASM &"mul.lo.u32 $0, $0, $1;\0A\09add.u32 $1, $1, $0;", 0 /* attdialect */, 262154 /* regdef:B32 */, def %4, 262154 /* regdef:B32 */, def %5, 2147483657 /* reguse tiedto:$0 */, %3(tied-def 3), 2147549193 /* reguse tiedto:$1 */, %2(tied-def 5)
    INLINEASM &"shf.l.wrap.b32 $0, $0, $0, 7;", 32 /* isconvergent attdialect */, 262154 /* regdef:B32 */, def %6, 2147483657 /* reguse tiedto:$0 */, %5(tied-def 3)
    ST_i32 %3, 0, 0, 1, 32, %0, 0
    ST_i32 %4, 0, 0, 1, 32, %0, 4
    ST_i32 %5, 0, 0, 1, 32, %0, 8
    ST_i32 %6, 0, 0, 1, 32, %0, 12
    Return
"#,
    );
    let o = run(&f, &inputs(4, &[40, 2], one_thread())).unwrap();
    // 40 + 2 = 42; 42 * 2 = 84; 2 + 84 = 86; rotl(86, 7).
    assert_eq!(words(&o), [42, 84, 86, 86u32.rotate_left(7)]);
}

#[test]
fn unknown_asm_text_is_unsupported() {
    let f = function(
        r#"
  bb.0:
    INLINEASM &"popc.b32 $0, $0;", 0, 262154, def %0, 2147483657, %1(tied-def 3)
    Return
"#,
    );
    let e = interp::check(&f).unwrap();
    assert!(e.is_unsupported(), "{e}");
    assert!(e.to_string().contains("popc"), "{e}");
}

#[test]
fn infinite_loop_runs_out_of_fuel() {
    let f = function(
        "
  bb.0:
    %0:b32 = MOV_B32_i 0

  bb.1:
    %1:b32 = PHI %0, %bb.0, %2, %bb.1
    %2:b32 = ADD32ri %1, 1
    GOTO %bb.1
",
    );
    let cfg = Config {
        fuel: 10_000,
        ..Config::default()
    };
    let e = interp::run(&f, &Inputs::default(), &cfg).unwrap_err();
    assert_eq!(e, InterpError::OutOfFuel { fuel: 10_000 });
}

#[test]
fn opcodes_without_semantics_are_unsupported_by_name() {
    let f = function(
        "
  bb.0:
    %0:b32, %1:b32 = anonymous_18514 %2, %3, 78
    Return
",
    );
    match interp::check(&f) {
        Some(InterpError::Unsupported { opcode, .. }) => assert_eq!(opcode, "anonymous_18514"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_ir_is_an_error_not_a_panic() {
    let cases = [
        // Missing operand.
        "  bb.0:\n    %0:b32 = ADD32rr %1\n    Return\n",
        // Tuple used as a scalar.
        "  bb.0:\n    %0:b32x2 = IMPLICIT_DEF\n    %1:b32 = ADD32rr %0, %0\n    Return\n",
        // Sub-register past the tuple.
        "  bb.0:\n    %0:b32x2 = IMPLICIT_DEF\n    %1:b32 = COPY %0.sub5\n    Return\n",
        // PHI below a non-PHI.
        "  bb.0:\n    %0:b32 = MOV_B32_i 0\n\n  bb.1:\n    %1:b32 = MOV_B32_i 0\n    %2:b32 = PHI %0, %bb.0, %1, %bb.1\n    GOTO %bb.1\n",
        // Compare mode out of range.
        "  bb.0:\n    %0:b32 = MOV_B32_i 0\n    %1:b1 = SETP_i32ri %0, 1, 42\n    Return\n",
        // Store without a base.
        "  bb.0:\n    %0:b32 = MOV_B32_i 0\n    ST_i32 %0, 0, 0, 1, 32\n    Return\n",
        // Lane count mismatch in a copy.
        "  bb.0:\n    %0:b32x4 = IMPLICIT_DEF\n    %1:b32x2 = COPY %0\n    Return\n",
        // Entry block with a PHI.
        "  bb.0:\n    %0:b32 = PHI %1, %bb.0\n    Return\n",
    ];
    for body in cases {
        let f = function(body);
        match interp::check(&f) {
            Some(InterpError::Malformed { .. }) => {}
            other => panic!("expected Malformed for\n{body}\ngot {other:?}"),
        }
    }
    // Run-time failures: falling off the end, a PHI without a value for the edge taken,
    // an unmapped address.
    let fall = function("  bb.0:\n    %0:b32 = MOV_B32_i 0\n");
    assert!(matches!(
        run(&fall, &Inputs::default()),
        Err(InterpError::FellOffEnd { block: 0 })
    ));
    let no_edge = function(
        "  bb.0:\n    %0:b32 = MOV_B32_i 0\n    GOTO %bb.2\n\n  bb.1:\n    GOTO %bb.2\n\n  bb.2:\n    %1:b32 = PHI %0, %bb.1\n    Return\n",
    );
    assert!(matches!(
        run(&no_edge, &Inputs::default()),
        Err(InterpError::Malformed { .. })
    ));
    let oob = function(
        "  bb.0:\n    %0:b64 = MOV_B64_i 12345\n    %1:b32 = LD_i32 0, 0, 1, 3, 32, -1, %0, 0\n    Return\n",
    );
    match run(&oob, &Inputs::default()) {
        Err(InterpError::BadAddress {
            addr: 12345,
            write: false,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn warp_shuffle_down_reduces_a_warp() {
    // out[tid] = sum over the warp by shfl.down with offsets 16, 8, 4, 2, 1.
    let mut body = String::from(
        "
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = INT_PTX_SREG_TID_x
    %2:b32 = INT_PTX_SREG_LANEID
    %3:b32 = ADD32ri %2, 1
",
    );
    let mut cur = 3;
    for (k, off) in [16, 8, 4, 2, 1].iter().enumerate() {
        let (s, n) = (10 + 2 * k, 11 + 2 * k);
        body += &format!(
            "    %{s}:b32 = SHFL_SYNC_DOWN_i32 %{cur}, {off}, 31, -1\n    %{n}:b32 = ADD32rr %{cur}, %{s}\n"
        );
        cur = n;
    }
    body += &format!(
        "    %30:b64 = MUL_WIDEu32_ri %1, 4\n    %31:b64 = ADD64rr %0, %30\n    ST_i32 %{cur}, 0, 0, 1, 32, %31, 0\n    Return\n"
    );
    let f = function(&body);
    let launch = Launch {
        grid: [1, 1, 1],
        block: [64, 1, 1],
    };
    let o = run(&f, &inputs(64, &[], launch)).unwrap();
    let w = words(&o);
    // Lane 0 of each warp holds 1 + 2 + ... + 32.
    assert_eq!(w[0], 528);
    assert_eq!(w[32], 528);
    // Lane 31 only ever adds its own value (out-of-range sources read themselves): 32·2^5.
    assert_eq!(w[31], 32 * 32);
}

#[test]
fn shuffle_in_divergent_code_is_reported() {
    let f = function(
        "
  bb.0:
    %0:b32 = INT_PTX_SREG_LANEID
    %1:b1 = SETP_i32ri %0, 16, 2
    CBranch %1, %bb.2

  bb.1:
    %2:b32 = SHFL_SYNC_IDX_i32 %0, 0, 31, -1
    Return

  bb.2:
    Return
",
    );
    assert!(matches!(
        run(&f, &Inputs::default()),
        Err(InterpError::Divergence { .. })
    ));
}

#[test]
fn barrier_orders_shared_memory() {
    // sdata[tid] = tid + 100; bar.sync; out[tid] = sdata[tid ^ 1] — across warps.
    let f = function(
        "
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = INT_PTX_SREG_TID_x
    %2:b64 = MUL_WIDEu32_ri %1, 4
    %3:b64 = MOV_B64_sym @sdata
    %4:b64 = ADD64rr %3, %2
    %5:b32 = ADD32ri %1, 100
    ST_i32 %5, 0, 0, 3, 32, %4, 0
    BARRIER_CTA_SYNC_ALIGNED_ALL_i 0
    %7:b32 = MOV_B32_i 1
    %8:b32 = XOR_b32rr %1, %7
    %9:b64 = MUL_WIDEu32_ri %8, 4
    %10:b64 = ADD64rr %3, %9
    %11:b32 = LD_i32 0, 0, 3, 3, 32, -1, %10, 0
    %12:b64 = ADD64rr %0, %2
    ST_i32 %11, 0, 0, 1, 32, %12, 0
    Return
",
    );
    let launch = Launch {
        grid: [2, 1, 1],
        block: [64, 1, 1],
    };
    let o = run(&f, &inputs(64, &[], launch)).unwrap();
    let w = words(&o);
    for (t, &x) in w.iter().enumerate() {
        assert_eq!(x, (t as u32 ^ 1) + 100, "thread {t}");
    }
}

#[test]
fn float_rounding_and_half_precision() {
    let f = function(
        "
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = LD_i32 0, 0, 101, 3, 32, -1, &k_param_1, 0
    %2:b32 = CVT_s32_f32 %1, 1
    %3:b32 = CVT_s32_f32 %1, 2
    %4:b32 = CVT_s32_f32 %1, 3
    %5:b32 = CVT_s32_f32 %1, 4
    %6:b32 = MOV_B32_i 16777217
    %7:b32 = CVT_f32_s32 %6, 5
    %8:b32 = CVT_f32_s32 %6, 8
    %9:b32 = MOV_B32_i 1006648320
    %10:b32 = FADD_rnf16x2rr %9, %9, 0
    %11:b16, %12:b16 = I32toV2I16 %10
    %13:b16 = FMUL_rnf16rr %11, %12, 0
    %14:b32 = CVT_f32_f16 %13, 0
    %15:b32 = FMA_F32rrr %1, %1, %1, 0
    ST_i32 %2, 0, 0, 1, 32, %0, 0
    ST_i32 %3, 0, 0, 1, 32, %0, 4
    ST_i32 %4, 0, 0, 1, 32, %0, 8
    ST_i32 %5, 0, 0, 1, 32, %0, 12
    ST_i32 %7, 0, 0, 1, 32, %0, 16
    ST_i32 %8, 0, 0, 1, 32, %0, 20
    ST_i32 %14, 0, 0, 1, 32, %0, 24
    ST_i32 %15, 0, 0, 1, 32, %0, 28
    Return
",
    );
    let o = run(&f, &inputs(8, &[(-2.5f32).to_bits()], one_thread())).unwrap();
    let w = words(&o);
    assert_eq!(
        w[..4].iter().map(|&x| x as i32).collect::<Vec<_>>(),
        [-2, -2, -3, -2] // rni, rzi, rmi, rpi of -2.5
    );
    assert_eq!(f32::from_bits(w[4]), 16_777_216.0); // rn
    assert_eq!(f32::from_bits(w[5]), 16_777_218.0); // rp
                                                    // 0x3c003c00 is (1.0, 1.0) in f16x2: doubled to (2, 2), multiplied to 4.
    assert_eq!(f32::from_bits(w[6]), 4.0);
    assert_eq!(f32::from_bits(w[7]), (-2.5f32).mul_add(-2.5, -2.5));
}

#[test]
fn fma_is_correctly_rounded() {
    let mut rng = interp::Rng::new(7);
    let pick = |rng: &mut interp::Rng| {
        let r = rng.next_u64();
        match r % 4 {
            0 => f32::from_bits((r >> 32) as u32),
            1 => f32::from_bits((r >> 16) as u32 & 0x807f_ffff), // subnormals
            _ => ((r >> 8) % 2001) as f32 / 64.0 - 15.0,
        }
    };
    for _ in 0..200_000 {
        let (a, b, c) = (pick(&mut rng), pick(&mut rng), pick(&mut rng));
        let want = a.mul_add(b, c);
        let got = interp::float::fma32(a, b, c);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "fma({a:e}, {b:e}, {c:e}) = {got:e}, want {want:e}"
        );
    }
}

#[test]
fn random_inputs_and_runs_are_deterministic() {
    let f = function(LOOP_SUM);
    let a = interp::random_inputs(&f, None, 42);
    assert_eq!(a, interp::random_inputs(&f, None, 42));
    assert_ne!(a, interp::random_inputs(&f, None, 43));
    let cfg = Config::default();
    assert_eq!(
        interp::run(&f, &a, &cfg).unwrap(),
        interp::run(&f, &a, &cfg).unwrap()
    );
}

#[test]
fn implicit_def_and_undefined_reads_are_the_same_poison() {
    let f = function(
        "
  bb.0:
    %0:b64 = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0
    %1:b32 = IMPLICIT_DEF
    ST_i32 %1, 0, 0, 1, 32, %0, 0
    ST_i32 undef %2:b32, 0, 0, 1, 32, %0, 4
    Return
",
    );
    let o = run(&f, &inputs(2, &[], one_thread())).unwrap();
    assert_eq!(words(&o), [0xdead_beef, 0xdead_beef]);
}
