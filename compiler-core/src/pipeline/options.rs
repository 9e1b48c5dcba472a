//! Each stage's options, read from the knobs: the one place a knob turns into a pass
//! option (the registry and the runner call these; tests check them).

use crate::knobs::{format_value, Knob, KnobKind, Knobs};
use crate::passes;
use crate::ptxas::general_optimize::{self as go, Phase};

/// The emitter reads no knob (the spec page names none); its options keep CICC's defaults.
pub fn emitter_options(_: &Knobs) -> passes::instr_emitter::EmitterOptions {
    passes::instr_emitter::EmitterOptions::default()
}

/// PHI elimination: `cssa-coalesce` dissolves PHIs whose operands never interfere
/// first (`cssa-verbosity`, `dump-before-cssa`), `usedessa` lowers by parallel copies;
/// critical-edge splitting reads `phi-elim-split-all-critical-edges` and
/// `disable-nvptx-require-structured-cfg`.
pub fn phi_elim_options(k: &Knobs) -> passes::phi_elim::PhiElimOptions {
    passes::phi_elim::PhiElimOptions {
        cssa_coalesce: k.flag(Knob::CssaCoalesce),
        split_edges: true,
        split_all_critical_edges: k.flag(Knob::PhiElimSplitAllCriticalEdges),
        split_structured_cfg: k.flag(Knob::DisableNvptxRequireStructuredCfg),
        cssa_verbosity: k.uint(Knob::CssaVerbosity),
        dump_before_cssa: k.flag(Knob::DumpBeforeCssa),
        use_dessa: k.flag(Knob::Usedessa),
    }
}

/// Two-address: `twoaddr-reschedule`, `dataflow-edge-limit`, `optnone`; LiveVariables is
/// available in the pipeline, as in llc's.
pub fn two_address_options(k: &Knobs) -> passes::two_address::TwoAddressOptions {
    passes::two_address::TwoAddressOptions {
        reschedule: k.flag(Knob::TwoaddrReschedule),
        dataflow_edge_limit: k.uint(Knob::DataflowEdgeLimit),
        optnone: k.flag(Knob::Optnone),
        live_variables: true,
        mechanisms: Default::default(),
    }
}

/// The generic coalescer: the LLVM knobs; `subtarget` resolves as NVPTX's subtarget does.
pub fn register_coalescer_options(k: &Knobs) -> passes::register_coalescer::CoalescerOptions {
    passes::register_coalescer::CoalescerOptions {
        join_liveintervals: k.flag(Knob::JoinLiveintervals),
        join_splitedges: k.tristate_nvptx(Knob::JoinSplitedges),
        join_globalcopies: k.tristate_nvptx(Knob::JoinGlobalcopies),
        terminal_rule: k.flag(Knob::TerminalRule),
        verify_coalescing: k.flag(Knob::VerifyCoalescing),
        late_remat_update_threshold: k.uint(Knob::LateRematUpdateThreshold),
        large_interval_size_threshold: k.uint(Knob::LargeIntervalSizeThreshold),
        large_interval_freq_threshold: k.uint(Knob::LargeIntervalFreqThreshold),
        ..Default::default()
    }
}

/// The NVPTX coalescer: its two limits (the pass reads 0 as no cap, as `unlimited` is)
/// and the block-frequency flag.
pub fn nvptx_coalescer_options(k: &Knobs) -> passes::nvptx_coalescer::NvptxCoalescerOptions {
    let cap = |knob| {
        k.limit(knob)
            .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX))
    };
    passes::nvptx_coalescer::NvptxCoalescerOptions {
        copy_limit: cap(Knob::CopyLimit),
        coalesce_limit: cap(Knob::CoalesceLimit),
        block_frequency: k.flag(Knob::BlockFrequency),
        ..Default::default()
    }
}

/// ptx-emit: the `sm` knob names the target (`sm_90` → 90).
pub fn ptx_emit_options(k: &Knobs) -> passes::ptx_emit::PtxEmitOptions {
    let name = format_value(KnobKind::Sm, k.get(Knob::Sm));
    let sm = Some(name.as_str())
        .filter(|n| n.starts_with("sm_"))
        .and_then(|n| {
            n.trim_start_matches("sm_")
                .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse()
                .ok()
        })
        .unwrap_or(90);
    passes::ptx_emit::PtxEmitOptions {
        sm,
        ptx_version: None,
        // An `sm` knob the user set wins over the target the IR module names.
        target_from_ir: k.is_default(Knob::Sm),
    }
}

/// ptx-lower reads no knob.
pub fn ptx_lower_options(_: &Knobs) -> passes::ptx_lower::PtxLowerOptions {
    passes::ptx_lower::PtxLowerOptions::default()
}

/// GeneralOptimize in `phase`: its options (sm, opt level, the ptxas options it
/// models) are read by `general_optimize::Options::from_knobs`, next to their meaning.
pub fn general_optimize_options(phase: Phase, k: &Knobs) -> go::Options {
    go::Options::from_knobs(phase, k)
}
