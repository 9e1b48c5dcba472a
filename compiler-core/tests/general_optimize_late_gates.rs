//! Phase 58's gates from the spec, each shown to decide something on a named input:
//! the ctx+1396 word (bits 4-5 = 0x20 skip the phase; bit 2 admits MOVs of an
//! immediate, bit 3 MOVs of a register) and the register-class check (classes 2-8
//! are refused; ours: predicates are class 2). `late_pairs` below has one MOV pair of
//! each kind: register source, immediate source, predicate register.

mod support;

use compiler_core::ptxas::general_optimize::{Options, Phase, CTX_1396_DEFAULT};
use compiler_core::stats::Stats;

const LATE_PAIRS: &str = ".version 8.0
.target sm_90
.address_size 64
.visible .entry late_pairs(.param .u64 out)
{
	.reg .b32 %r<8>;
	.reg .pred %p<5>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	ld.global.u32 %r1, [%rd1];
	mov.b32 %r2, %r1;
	mov.b32 %r3, %r1;
	add.s32 %r4, %r2, %r3;
	mov.b32 %r5, 7;
	mov.b32 %r6, 7;
	add.s32 %r7, %r5, %r6;
	setp.ne.s32 %p1, %r4, %r7;
	mov.pred %p2, %p1;
	mov.pred %p3, %p1;
	and.pred %p4, %p2, %p3;
	@%p4 st.global.u32 [%rd1], %r7;
	ret;
}
";

/// Phase 58 alone on `late_pairs` with ctx+1396 = `ctx`: the body's instructions
/// (whitespace collapsed) and the stats.
fn phase_58(ctx: u32) -> (Vec<String>, Stats) {
    phase_58_with(|o| o.ctx_1396 = ctx)
}

/// Phase 58 alone on `late_pairs`, its options changed by `tweak`.
fn phase_58_with(tweak: impl Fn(&mut Options)) -> (Vec<String>, Stats) {
    support::ori::phase_body(LATE_PAIRS, Phase::Late, tweak)
}

fn has(body: &[String], line: &str) -> bool {
    body.iter().any(|l| l == line)
}

/// Default (0x0C): the register pair and the immediate pair merge — the second MOV
/// goes and its one use reads the first destination; the predicate pair is
/// refused by the class check (the only difference from the register pair is the
/// class), so exactly one check rejects.
#[test]
fn both_mov_kinds_merge_and_predicates_are_refused_by_class() {
    let (body, stats) = phase_58(CTX_1396_DEFAULT);
    assert!(has(&body, "add.s32 %r4, %r2, %r2;"), "{body:#?}");
    assert!(!has(&body, "mov.b32 %r3, %r1;"), "{body:#?}");
    assert!(has(&body, "add.s32 %r7, %r5, %r5;"), "{body:#?}");
    assert!(!has(&body, "mov.b32 %r6, 7;"), "{body:#?}");
    assert!(has(&body, "mov.pred %p3, %p1;"), "{body:#?}");
    assert!(has(&body, "and.pred %p4, %p2, %p3;"), "{body:#?}");
    assert_eq!(stats.get("pair_movs_removed"), 2);
    assert_eq!(stats.get("checks_rejected"), 1);
}

/// Bit 3 cleared (0x04): MOVs of a register stay out of the buffer, so only the
/// immediate pair merges.
#[test]
fn bit_3_of_ctx_1396_admits_register_moves() {
    let (body, stats) = phase_58(0x04);
    assert!(has(&body, "mov.b32 %r3, %r1;"), "{body:#?}");
    assert!(has(&body, "add.s32 %r4, %r2, %r3;"), "{body:#?}");
    assert!(has(&body, "add.s32 %r7, %r5, %r5;"), "{body:#?}");
    assert_eq!(stats.get("pair_movs_removed"), 1);
    // The predicate pair is a register pair too: never considered, never rejected.
    assert_eq!(stats.get("checks_rejected"), 0);
}

/// Bit 2 cleared (0x08): MOVs of an immediate stay out, so only the register pair
/// merges.
#[test]
fn bit_2_of_ctx_1396_admits_immediate_moves() {
    let (body, stats) = phase_58(0x08);
    assert!(has(&body, "add.s32 %r4, %r2, %r2;"), "{body:#?}");
    assert!(has(&body, "mov.b32 %r6, 7;"), "{body:#?}");
    assert!(has(&body, "add.s32 %r7, %r5, %r6;"), "{body:#?}");
    assert_eq!(stats.get("pair_movs_removed"), 1);
}

/// Bits 4-5 equal to 0x20: the phase is skipped (one gate), nothing changes.
#[test]
fn bits_4_5_of_ctx_1396_skip_the_phase() {
    let (body, stats) = phase_58(0x2C);
    let (untouched, _) = phase_58(0x00);
    assert_eq!(stats.get("gated"), 1);
    assert_eq!(stats.get("pair_movs_removed"), 0);
    // With neither MOV kind admitted the phase runs and changes nothing either:
    // the skipped phase leaves the same body.
    assert_eq!(body, untouched);
    assert!(has(&body, "mov.b32 %r3, %r1;") && has(&body, "mov.b32 %r6, 7;"));
    assert_eq!(phase_58(0x1C).1.get("gated"), 0, "0x10 in bits 4-5 runs");
}

/// Option 605 (restricted mode, the spec's "no new entries added during walk"): a MOV
/// that hits no slot stays out of the buffer; the buffer starts empty in the block, so
/// no MOV ever hits and the body is the input's, instruction for instruction.
#[test]
fn option_605_adds_nothing_to_the_buffer_so_nothing_merges() {
    let (body, stats) = phase_58_with(|o| o.option_605 = true);
    let input: Vec<String> = LATE_PAIRS
        .lines()
        .filter(|l| l.starts_with('\t') && !l.trim_start().starts_with('.'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(body, input);
    assert_eq!(stats.get("movs_seen"), 6);
    assert_eq!(stats.get("buffer_inserts"), 0);
    assert_eq!(stats.get("buffer_hits"), 0);
    assert_eq!(stats.get("pair_movs_removed"), 0);
}
