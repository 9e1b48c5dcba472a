//! Phases 46 and 65 (Variant C): the spec dispatches both through the target's vtable
//! (slot 0x1C0 for 46, with the no-op sentinel `sub_7D6DD0`; offset 392 for 65), so what
//! runs depends on the SM profile. The spec does not print the bodies; ours are:
//!
//! ```text
//!  SM profile (knob `sm`)            phase 46 (GeneralOptimizeMid2)       phase 65 (GeneralOptimizeLate2)
//!  generation ≤ 6 (sm_30 … sm_60)    no-op sentinel: the phase is skipped  dead-code sweep per block
//!  generation 7   (sm_70, sm_80)     one mark + consume round per block    dead-code sweep per block
//!  generation ≥ 8 (sm_90, sm_100)    one mark + consume round per block    phase 58's MOV-pair window, then the sweep
//! ```

use super::{consume, dce_block, forward, late, Phase, Run};
use crate::trace::{Recorder, Step};
use alloc::format;

/// The dispatch step's sentence for each body a hook runs, with the phase, the SM
/// profile's hex digits and the body's own numbers as its numbers (written here: the
/// step costs no text of its own; every digit run is a number, as splitting gives).
macro_rules! dispatch {
    ($body:literal, $template:literal, $numbers:expr) => {
        (
            $body,
            concat!(
                "Phase \u{1} dispatches through the target's vtable; SM profile \u{1}x\u{1} runs ",
                $template,
                "."
            ),
            $numbers,
        )
    };
}
type Dispatch = (&'static str, &'static str, &'static [u64]);
const DISPATCH: [Dispatch; 4] = [
    dispatch!("one mark-and-consume round per block", "one mark-and-consume round per block", &[]),
    dispatch!("the no-op sentinel", "the no-op sentinel", &[]),
    dispatch!(
        "the MOV-pair window of phase 58, then a dead-code sweep",
        "the MOV-pair window of phase \u{1}, then a dead-code sweep",
        &[58]
    ),
    dispatch!("a dead-code sweep per block", "a dead-code sweep per block", &[]),
];

/// Phase 46's body for an SM profile, or None for the no-op sentinel.
pub fn mid2_body(sm: u32) -> Option<&'static str> {
    (sm >> 12 >= 7).then_some(DISPATCH[0].0)
}

/// Phase 65's body for an SM profile.
pub fn late2_body(sm: u32) -> &'static str {
    if sm >> 12 >= 8 {
        DISPATCH[2].0
    } else {
        DISPATCH[3].0
    }
}

/// The step naming what the hook runs. The profile's hex digits are a number of the
/// template when they read the same as a decimal number (0x9000); otherwise (0xa000)
/// the sentence is kept as text.
fn dispatch_step(n: u16, sm: u32, body: &'static str) -> Step {
    let hex = format!("{sm:04x}");
    let known = DISPATCH.iter().find(|d| d.0 == body);
    match (known, hex.parse::<u64>()) {
        (Some(&(_, t, more)), Ok(v)) if !hex.starts_with('0') && v <= 999_999_999 => {
            // `0x9000` splits as the numbers 0 and 9000.
            let mut args = alloc::vec![n.into(), 0, v];
            args.extend_from_slice(more);
            Step::numbered("dispatch", t, &args)
        }
        _ => Step::new(
            "dispatch",
            format!("Phase {n} dispatches through the target's vtable; SM profile 0x{hex} runs {body}."),
        ),
    }
}

/// Runs the hook of phase 46 or 65.
pub fn run<R: Recorder>(Run(f, opts, tally, stats, rec): Run<'_, R>) {
    let body = match opts.phase {
        Phase::Mid2 => mid2_body(opts.sm).unwrap_or(DISPATCH[1].0),
        _ => late2_body(opts.sm),
    };
    let (n, sm) = (opts.phase.number(), opts.sm);
    super::ori_step(rec, f, || dispatch_step(n, sm, body));
    match opts.phase {
        Phase::Mid2 => {
            for b in f.blocks.keys() {
                stats.iterations += 1;
                let mut counters = super::Counters::new();
                let d0 = stats.dead_removed;
                let mut seen = super::Seen::new(tally);
                let marked = forward::mark_block(f, b, opts, stats, &mut counters, &mut seen, rec);
                consume::apply_block(f, b, opts, tally, &seen, stats, rec);
                if marked || stats.dead_removed > d0 {
                    stats.changed_blocks += 1;
                }
            }
        }
        _ => {
            if opts.sm >> 12 >= 8 {
                late::run(Run(f, opts, tally, stats, rec));
            }
            for b in f.blocks.keys() {
                if opts.sm >> 12 < 8 {
                    stats.iterations += 1;
                }
                if dce_block(f, b, tally, stats, rec) > 0 {
                    stats.changed_blocks += 1;
                }
            }
        }
    }
}
