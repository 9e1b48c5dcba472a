//! What the tests that run ORI share: the six GeneralOptimize instances in pipeline
//! order, and the MIR interpreter's inputs in the ORI interpreter's terms.

use compiler_core::interp;
use compiler_core::ori_interp;
use compiler_core::ptxas::general_optimize::Phase;

/// The six GeneralOptimize instances in pipeline order (13, 29, 37, 46, 58, 65).
pub const PHASES: [Phase; 6] = [
    Phase::Early,
    Phase::Standard,
    Phase::Mid,
    Phase::Mid2,
    Phase::Late,
    Phase::Late2,
];

/// The same launch, parameters and buffers for the ORI interpreter.
pub fn convert(i: &interp::Inputs) -> ori_interp::Inputs {
    ori_interp::Inputs {
        launch: i.launch,
        params: i.params.clone(),
        buffers: i
            .buffers
            .iter()
            .map(|r| ori_interp::Buffer {
                base: r.base,
                bytes: r.bytes.clone(),
            })
            .collect(),
    }
}
