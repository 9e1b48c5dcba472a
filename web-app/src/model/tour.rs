//! Where a guided tour is: which example, the stops the engine resolved against the
//! current run, the stop shown, and whether it plays by itself.

use std::rc::Rc;
use web_engine::protocol::{TourPlan, TourStopView};

/// Autoplay waits this many play intervals on each stop (5 s at normal speed): a stop is
/// read, not glanced at.
pub const DWELL_INTERVALS: u32 = 5;

/// A tour in progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TourState {
    pub example: &'static str,
    /// The stops resolved against the current run; None until the engine answers (and
    /// again after every rerun).
    pub plan: Option<Rc<TourPlan>>,
    /// 0-based stop shown.
    pub stop: usize,
    pub autoplay: bool,
    /// Why the tour could not be resolved.
    pub error: Option<String>,
}

impl TourState {
    pub fn new(example: &'static str) -> Self {
        TourState {
            example,
            plan: None,
            stop: 0,
            autoplay: false,
            error: None,
        }
    }

    pub fn len(&self) -> usize {
        self.plan.as_ref().map_or(0, |p| p.stops.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stop shown, once the plan is known.
    pub fn current(&self) -> Option<&TourStopView> {
        self.plan.as_ref()?.stops.get(self.stop)
    }

    pub fn at_end(&self) -> bool {
        self.stop + 1 >= self.len()
    }
}
