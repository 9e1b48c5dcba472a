//! PHI elimination (placeholder module; written next).
