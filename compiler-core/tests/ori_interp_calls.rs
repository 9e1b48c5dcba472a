//! The ORI/PTX interpreter on what real kernels with local arrays use: calls to
//! `.func`s (`.param` and `.reg` formals), `vprintf`, module-scope `.global` /
//! `.const` variables, `ex2` / `lg2`, carry chains, f64 roots, and `ldmatrix` over a
//! whole warp. Each kernel runs through both front ends (PTX as written, and ORI
//! after ptx-lower) and the expected memory is worked out from the PTX ISA's
//! definitions (stated at each case). Also `shfl`, `vote`, `atom` and a generic store
//! into the frame over a warp.

use compiler_core::ori_interp::{self as interp, Buffer, Inputs, Launch, GLOBAL_BASE};
use compiler_core::passes::ptx_lower::{self, PtxLowerOptions};
use compiler_core::ptx;
use compiler_core::trace::NoTrace;

const HEAD: &str = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Runs kernel `k` of `src` with one pointer parameter to a zeroed buffer of `bytes`,
/// `threads` threads in one CTA, through both front ends; both must agree.
fn run(src: &str, threads: u32, bytes: usize) -> Vec<Buffer> {
    let text = format!("{HEAD}{src}");
    let m = ptx::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let inputs = Inputs {
        launch: Launch {
            grid: [1, 1, 1],
            block: [threads, 1, 1],
        },
        params: vec![GLOBAL_BASE.to_le_bytes().to_vec()],
        buffers: vec![Buffer {
            base: GLOBAL_BASE,
            bytes: vec![0; bytes],
        }],
    };
    let cfg = interp::Config::default();
    let from_ptx = interp::run_ptx_module(&m, "k", &inputs, &cfg).expect("PTX runs");
    let (o, _) = ptx_lower::run(&m, &PtxLowerOptions::default(), &mut NoTrace::default()).unwrap();
    let from_ori = interp::run_ori_module(&o, "k", &inputs, &cfg).expect("ORI runs");
    assert_eq!(from_ptx.buffers, from_ori.buffers, "the front ends differ");
    from_ori.buffers
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `twice` doubles through `.param` formals, `inc` adds one through `.reg` formals,
/// `table` is a `.const` array read through its address, `counter` a `.global`
/// every thread increments: out[t] = 2t + 1 + table[t & 3]; counter = 32.
#[test]
fn calls_and_module_variables() {
    let src = r#"
.global .align 4 .u32 counter;
.const .align 4 .b32 table[4] = {10, 20, 30, 40};
.func (.param .b32 r) twice(.param .b32 a)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [a];
	shl.b32 %r2, %r1, 1;
	st.param.b32 [r], %r2;
	ret;
}
.func (.reg .b32 %o) inc(.reg .b32 %i)
{
	add.u32 %o, %i, 1;
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	{
	.param .b32 p0;
	st.param.b32 [p0], %r1;
	.param .b32 r0;
	call.uni (r0), twice, (p0);
	ld.param.b32 %r2, [r0];
	}
	call.uni (%r3), inc, (%r2);
	and.b32 %r4, %r1, 3;
	mul.wide.u32 %rd3, %r4, 4;
	mov.u64 %rd4, table;
	add.s64 %rd4, %rd4, %rd3;
	ld.const.u32 %r5, [%rd4];
	add.u32 %r6, %r3, %r5;
	atom.global.add.u32 %r7, [counter], 1;
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd5, %rd2, %rd5;
	st.global.u32 [%rd5], %r6;
	ret;
}
"#;
    let b = run(src, 32, 128);
    let want: Vec<u32> = (0..32)
        .map(|t| 2 * t + 1 + [10, 20, 30, 40][t as usize & 3])
        .collect();
    assert_eq!(words(&b[0].bytes), want);
    assert_eq!(b[1].base, interp::MODULE_GLOBAL_BASE);
    assert_eq!(words(&b[1].bytes), [32]);
    assert_eq!(b[2].base, interp::MODULE_CONST_BASE);
    assert_eq!(words(&b[2].bytes), [10, 20, 30, 40]);
}

/// nvcc's `printf("%d %f\n", tid, 1.5)`: the argument buffer in the local depot, its
/// generic address passed. Each thread logs the format with its NUL, then its `int`
/// (4 bytes) and its double (8 bytes, aligned to 8: offset 8).
#[test]
fn vprintf_logs_format_and_arguments() {
    let src = r#"
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 $str[7] = {37, 100, 32, 37, 102, 10, 0};
.visible .entry k(.param .u64 out)
{
	.local .align 8 .b8 __local_depot0[16];
	.reg .b64 %SP;
	.reg .b64 %SPL;
	.reg .b32 %r<3>;
	.reg .b64 %rd<4>;
	.reg .f64 %fd<2>;
	mov.u64 %SPL, __local_depot0;
	cvta.local.u64 %SP, %SPL;
	mov.u32 %r1, %tid.x;
	st.local.u32 [%SPL], %r1;
	mov.f64 %fd1, 0d3FF8000000000000;
	st.local.f64 [%SPL+8], %fd1;
	mov.u64 %rd1, $str;
	cvta.global.u64 %rd2, %rd1;
	add.u64 %rd3, %SP, 0;
	{
	.param .b64 param0;
	st.param.b64 [param0], %rd2;
	.param .b64 param1;
	st.param.b64 [param1], %rd3;
	.param .b32 retval0;
	call.uni (retval0), vprintf, (param0, param1);
	ld.param.b32 %r2, [retval0];
	}
	ret;
}
"#;
    let b = run(src, 2, 4);
    let log = b.last().unwrap();
    assert_eq!(log.base, interp::PRINTF_BASE);
    let mut want = Vec::new();
    for t in 0u32..2 {
        want.extend_from_slice(b"%d %f\n\0");
        want.extend_from_slice(&t.to_le_bytes());
        want.extend_from_slice(&1.5f64.to_bits().to_le_bytes());
    }
    assert_eq!(log.bytes, want);
}

/// `ex2(3) = 8`, `lg2(1/8) = -3`, `sqrt.rn.f64(2)` (the correctly rounded root,
/// 0x3FF6A09E667F3BCD), and a 64-bit add, subtract and multiply-add in 32-bit halves:
/// 0xFFFFFFFF + 1 carries into the high word (1); 0 - 1 borrows from 5 (4);
/// 0xFFFFFFFF * 2 + 5 = 0x1_00000003: low word 3 with a carry, so `madc.hi` gives
/// the product's high word 1 plus the carry: 2.
#[test]
fn approximations_roots_and_carries() {
    let src = r#"
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .f32 %f<5>;
	.reg .f64 %fd<3>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [out];
	mov.f32 %f1, 0f40400000;
	ex2.approx.ftz.f32 %f2, %f1;
	mov.f32 %f3, 0f3E000000;
	lg2.approx.f32 %f4, %f3;
	st.global.f32 [%rd1], %f2;
	st.global.f32 [%rd1+4], %f4;
	mov.f64 %fd1, 0d4000000000000000;
	sqrt.rn.f64 %fd2, %fd1;
	st.global.f64 [%rd1+8], %fd2;
	mov.u32 %r1, -1;
	add.cc.u32 %r2, %r1, 1;
	addc.u32 %r3, 0, 0;
	st.global.v2.u32 [%rd1+16], {%r2, %r3};
	sub.cc.u32 %r4, 0, 1;
	subc.u32 %r5, 5, 0;
	st.global.v2.u32 [%rd1+24], {%r4, %r5};
	mad.lo.cc.u32 %r6, %r1, 2, 5;
	madc.hi.u32 %r7, %r1, 2, 0;
	st.global.v2.u32 [%rd1+32], {%r6, %r7};
	ret;
}
"#;
    let b = run(src, 1, 40);
    let w = words(&b[0].bytes);
    assert_eq!(f32::from_bits(w[0]), 8.0);
    assert_eq!(f32::from_bits(w[1]), -3.0);
    let root = u64::from(w[2]) | u64::from(w[3]) << 32;
    assert_eq!(root, 0x3FF6_A09E_667F_3BCD);
    assert_eq!(&w[4..10], [0, 1, 0xFFFF_FFFF, 4, 3, 2]);
}

/// `ldmatrix .x4` and `.x4.trans` over a warp. Lane `l` writes row `l` (matrix `l/8`,
/// row `l%8`): elements numbered `8l .. 8l+7`, two per word, and gives that row's
/// address. The PTX ISA's fragment: lane `l` gets of matrix `i` the elements at row
/// `l/4`, columns `2(l%4)` and `2(l%4)+1` — number `(8i + l/4)·8 + 2(l%4)` and the next;
/// transposed, rows `2(l%4)` and `2(l%4)+1` of column `l/4`.
#[test]
fn ldmatrix_over_a_warp() {
    let src = r#"
.shared .align 16 .b8 smem[512];
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<20>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mul.lo.u32 %r2, %r1, 524296;
	add.u32 %r2, %r2, 65536;
	add.u32 %r3, %r2, 131074;
	add.u32 %r4, %r3, 131074;
	add.u32 %r5, %r4, 131074;
	mov.u32 %r6, smem;
	shl.b32 %r7, %r1, 4;
	add.u32 %r8, %r6, %r7;
	st.shared.v4.u32 [%r8], {%r2, %r3, %r4, %r5};
	bar.sync 0;
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r9, %r10, %r11, %r12}, [%r8];
	ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r13, %r14, %r15, %r16}, [%r8];
	mul.wide.u32 %rd2, %r1, 32;
	add.s64 %rd3, %rd1, %rd2;
	st.global.v4.u32 [%rd3], {%r9, %r10, %r11, %r12};
	st.global.v4.u32 [%rd3+16], {%r13, %r14, %r15, %r16};
	ret;
}
"#;
    let b = run(src, 32, 32 * 32);
    let w = words(&b[0].bytes);
    let pair = |e0: u32, e1: u32| e0 | e1 << 16;
    for l in 0..32u32 {
        for i in 0..4u32 {
            let (r, c) = (l / 4, 2 * (l % 4));
            let plain = pair((8 * i + r) * 8 + c, (8 * i + r) * 8 + c + 1);
            let trans = pair((8 * i + c) * 8 + r, (8 * i + c + 1) * 8 + r);
            assert_eq!(w[(8 * l + i) as usize], plain, "lane {l} matrix {i}");
            assert_eq!(
                w[(8 * l + 4 + i) as usize],
                trans,
                "lane {l} matrix {i} .trans"
            );
        }
    }
}

/// What the interpreter does not model is refused by name, never run wrongly.
#[test]
fn recursion_and_indirect_calls_are_named() {
    let src = r#"
.func (.reg .b32 %o) f(.reg .b32 %i)
{
	call.uni (%o), f, (%i);
	ret;
}
.visible .entry k(.param .u64 out)
{
	.reg .b32 %r<3>;
	mov.u32 %r1, 1;
	call.uni (%r2), f, (%r1);
	ret;
}
"#;
    let text = format!("{HEAD}{src}");
    let m = ptx::parse(&text).unwrap();
    let inputs = Inputs {
        launch: Launch::default(),
        params: vec![GLOBAL_BASE.to_le_bytes().to_vec()],
        buffers: Vec::new(),
    };
    let e = interp::run_ptx_module(&m, "k", &inputs, &interp::Config::default()).unwrap_err();
    assert_eq!(e.to_string(), "unsupported: recursive call to `f`");
}

/// One warp of 32 threads: shuffles, a ballot, an atomic counter and a generic
/// store into the local frame, each stored per thread; the expected words follow
/// the PTX ISA's definitions.
#[test]
fn a_warp_shuffles_votes_and_counts() {
    let text = "
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(
\t.param .u64 k_param_0
)
{
\t.local .align 4 .b8 depot[8];
\t.reg .pred %p<3>;
\t.reg .b32 %r<12>;
\t.reg .b64 %rd<8>;
\tld.param.b64 %rd1, [k_param_0];
\tmov.u32 %r1, %tid.x;
\tmul.wide.u32 %rd2, %r1, 4;
\tadd.s64 %rd3, %rd1, %rd2;
\tshfl.sync.down.b32 %r2|%p1, %r1, 1, 31, -1;
\tst.global.b32 [%rd3], %r2;
\tshfl.sync.bfly.b32 %r3, %r1, 16, 31, -1;
\tst.global.b32 [%rd3+128], %r3;
\tsetp.lt.u32 %p2, %r1, 5;
\tvote.sync.ballot.b32 %r4, %p2, -1;
\tst.global.b32 [%rd3+256], %r4;
\tatom.global.add.u32 %r5, [%rd1+512], 1;
\tst.global.b32 [%rd3+640], %r5;
\tmov.u64 %rd4, depot;
\tcvta.local.u64 %rd5, %rd4;
\tst.u32 [%rd5+4], %r1;
\tld.local.u32 %r6, [depot+4];
\tst.global.b32 [%rd3+768], %r6;
\tselp.u32 %r7, 1, 0, %p1;
\tst.global.b32 [%rd3+896], %r7;
\tret;
}
";
    let m = ptx::parse(text).unwrap();
    let f = match &m.items[0] {
        ptx::ast::Item::Func(f) => f,
        _ => unreachable!(),
    };
    let mut inputs = interp::random_inputs(f.params.as_deref().unwrap(), 1);
    inputs.launch = Launch {
        grid: [1, 1, 1],
        block: [32, 1, 1],
    };
    let (o, _) = ptx_lower::run(&m, &Default::default(), &mut NoTrace::default()).unwrap();
    for out in [
        interp::run_ptx_module(&m, "k", &inputs, &interp::Config::default()).unwrap(),
        interp::run_ori_module(&o, "k", &inputs, &interp::Config::default()).unwrap(),
    ] {
        let w = |k: usize| {
            u32::from_le_bytes(out.buffers[0].bytes[4 * k..4 * k + 4].try_into().unwrap())
        };
        for t in 0..32u32 {
            let k = t as usize;
            // down by 1, clamp 31: lane 31 keeps its own value, predicate false.
            assert_eq!(w(k), if t < 31 { t + 1 } else { 31 }, "shfl down, lane {t}");
            assert_eq!(w(224 + k), u32::from(t < 31), "shfl predicate, lane {t}");
            assert_eq!(w(32 + k), t ^ 16, "shfl bfly, lane {t}");
            assert_eq!(w(64 + k), 0x1f, "ballot, lane {t}");
            // Threads take the counter in thread order (it starts at whatever the
            // buffer held).
            assert_eq!(
                w(160 + k),
                w(160).wrapping_add(t),
                "atom old value, lane {t}"
            );
            assert_eq!(w(192 + k), t, "generic store into the frame, lane {t}");
        }
        assert_eq!(
            w(128),
            w(160).wrapping_add(32),
            "the counter after the warp"
        );
    }
}
