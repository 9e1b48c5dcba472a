//! The side-by-side layout's picture slots: which stage each shows and at which step.
//!
//! Slot 0 is two-address (the EXTRACT_SUBREG fan-out), slot 1 nvptx-coalescer (the
//! coalescing picture), slot 2 one of the six GeneralOptimize stages (the grid). Until
//! the user steps a slot, every slot shows its stage's last step.

use compiler_core::Stage;

/// The stages slot 2 may show.
pub const GO_STAGES: [Stage; 6] = compiler_core::GENERAL_OPTIMIZE_STAGES;

/// The stage each slot shows by default.
pub const DEFAULT_STAGES: [Stage; 3] = [
    Stage::TwoAddress,
    Stage::NvptxCoalescer,
    Stage::GeneralOptimize,
];

/// What a slot is for, in words.
pub fn slot_title(slot: usize) -> &'static str {
    match slot {
        0 => "EXTRACT_SUBREG fan-out",
        1 => "Coalescing",
        _ => "GeneralOptimize grid",
    }
}

/// Whether `stage` may go in `slot`.
pub fn allowed(slot: usize, stage: Stage) -> bool {
    match slot {
        0 | 1 => DEFAULT_STAGES[slot] == stage,
        2 => GO_STAGES.contains(&stage),
        _ => false,
    }
}

/// The slots as a link stored them, kept only when they fit the layout (three slots,
/// each an allowed stage); anything else falls back to the defaults (empty).
pub fn from_link(pictures: &[(Stage, u32)]) -> Vec<(Stage, u32)> {
    let fits = pictures.len() == DEFAULT_STAGES.len()
        && pictures
            .iter()
            .enumerate()
            .all(|(k, &(s, _))| allowed(k, s));
    if fits {
        pictures.to_vec()
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_slots_are_checked() {
        let good = [
            (Stage::TwoAddress, 3),
            (Stage::NvptxCoalescer, 1),
            (Stage::GeneralOptimizeMid, 2),
        ];
        assert_eq!(from_link(&good), good);
        assert!(from_link(&good[..2]).is_empty());
        let swapped = [good[1], good[0], good[2]];
        assert!(from_link(&swapped).is_empty());
        assert!(allowed(2, Stage::GeneralOptimizeLate2) && !allowed(2, Stage::PtxLower));
        assert_eq!(slot_title(1), "Coalescing");
    }
}
