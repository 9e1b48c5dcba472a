//! The EXTRACT_SUBREG fan-out: one multi-result pseudo, its def/use pairs in order, each
//! becoming a COPY from one lane of the source, with the two hint bits per pair and where
//! the source's LiveVariables kill sits (on the pseudo until the pair that takes it).
//!
//! Which pseudo: the one the current step is about; on a step that names none, the
//! nearest pseudo before it in the same function, else the first after it.

use compiler_core::entity::EntityRef;
use compiler_core::pipeline::FunctionSteps;
use compiler_core::trace::{Edit, Payload, PayloadBox, Steps};
use serde::{Deserialize, Serialize};

/// One def/use pair of the pseudo.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FanoutPair {
    /// 0-based pair number, the order COPYs are made in.
    pub pair: u32,
    /// The register the pair defines (`%def`).
    pub def: u32,
    /// The source lane (`sub<lane>`), when the pair reads one.
    pub lane: Option<u8>,
    pub hint_tied: bool,
    pub hint_early_tied: bool,
    /// The COPY's def got the secondary tie flag.
    pub tie_marked: bool,
    /// The source's kill moved from the pseudo to this pair's COPY.
    pub kill_moved: bool,
    pub lv_updates: u32,
    /// The 1-based step that made this pair's COPY.
    pub step: u32,
    /// The COPY exists at the step shown.
    pub done: bool,
}

/// The fan-out of one pseudo at one step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FanoutPicture {
    pub function: String,
    /// The pseudo's instruction number.
    pub pseudo: u32,
    /// The wide source register (`%src`).
    pub src: u32,
    /// Pairs the pseudo has (from the trace; equals `pairs.len()` when all were recorded).
    pub total: u32,
    /// Pairs in COPY order.
    pub pairs: Vec<FanoutPair>,
    /// The pair this step made, if it made one.
    pub current: Option<u32>,
    /// The pair whose COPY holds the source's kill now; None: still on the pseudo (or
    /// the source is not killed here).
    pub kill_on: Option<u32>,
    /// Every pair is a COPY (the pseudo still stands until the step that erases it).
    pub all_done: bool,
    /// A step at or before the one shown erased the pseudo (its `Erase` edit).
    pub erased: bool,
    /// Other pseudos of the stage (for "1 of N").
    pub pseudo_index: u32,
    pub pseudo_count: u32,
}

/// A recorded pair: its step index, function and pseudo, and the payload.
struct PairStep {
    index: usize,
    function: usize,
    pseudo: u32,
    payload: PayloadBox,
}

fn function_of(functions: &[FunctionSteps], i: usize) -> usize {
    functions
        .iter()
        .position(|r| (r.first..r.first + r.count).contains(&i))
        .unwrap_or(0)
}

/// The picture after `step` steps (0: the input), or None when no step of the stage
/// split an EXTRACT_SUBREG.
pub fn build(steps: Steps<'_>, functions: &[FunctionSteps], step: usize) -> Option<FanoutPicture> {
    let pairs: Vec<PairStep> = steps
        .iter()
        .enumerate()
        .filter_map(|(index, s)| match *s.payload {
            Payload::ExtractSubregPair { pseudo, .. } => Some(PairStep {
                index,
                function: function_of(functions, index),
                pseudo,
                payload: s.payload,
            }),
            _ => None,
        })
        .collect();
    let key = |p: &PairStep| (p.function, p.pseudo);
    // The pseudos in the order their first pair was recorded.
    let mut pseudos: Vec<(usize, u32)> = Vec::new();
    for p in &pairs {
        if !pseudos.contains(&key(p)) {
            pseudos.push(key(p));
        }
    }
    // Step `step` (1-based) is steps[step - 1]; the chosen pseudo is the one of the
    // last pair at or before it, else the first pair after it.
    let shown = pairs
        .iter()
        .rev()
        .find(|p| p.index < step)
        .or_else(|| pairs.iter().find(|p| p.index >= step))?;
    let (function, pseudo) = key(shown);
    let mut out = FanoutPicture {
        function: functions
            .get(function)
            .map(|f| f.function.clone())
            .unwrap_or_default(),
        pseudo,
        src: 0,
        total: 0,
        pairs: Vec::new(),
        current: None,
        kill_on: None,
        all_done: false,
        erased: false,
        pseudo_index: pseudos
            .iter()
            .position(|&k| k == (function, pseudo))
            .unwrap_or(0) as u32,
        pseudo_count: pseudos.len() as u32,
    };
    for p in pairs.iter().filter(|p| key(p) == (function, pseudo)) {
        // What the picture's header takes first, then the row's own fields.
        let Payload::ExtractSubregPair {
            pairs,
            src,
            pair,
            kill_moved,
            def,
            lane,
            hint_tied,
            hint_early_tied,
            tie_marked,
            lv_updates,
            ..
        } = *p.payload
        else {
            continue;
        };
        let (pairs, pair, lv_updates) = (u32::from(pairs), u32::from(pair), u32::from(lv_updates));
        let done = p.index < step;
        out.src = src;
        out.total = pairs;
        if p.index + 1 == step {
            out.current = Some(pair);
        }
        if done && kill_moved {
            out.kill_on = Some(pair);
        }
        out.pairs.push(FanoutPair {
            pair,
            def,
            lane,
            hint_tied,
            hint_early_tied,
            tie_marked,
            kill_moved,
            lv_updates,
            step: p.index as u32 + 1,
            done,
        });
    }
    out.all_done = !out.pairs.is_empty() && out.pairs.iter().all(|p| p.done);
    out.erased = erased_by(steps, functions, function, pseudo, step);
    Some(out)
}

/// Whether one of the first `step` steps of `function` erased instruction `pseudo`: the
/// picture draws the pseudo gone only once the IR has lost it.
fn erased_by(
    steps: Steps<'_>,
    functions: &[FunctionSteps],
    function: usize,
    pseudo: u32,
    step: usize,
) -> bool {
    steps.iter().take(step).enumerate().any(|(i, s)| {
        function_of(functions, i) == function
            && s.edits
                .iter()
                .any(|e| matches!(e, Edit::Erase { inst } if inst.index() as u32 == pseudo))
    })
}

/// Where the page draws a [`FanoutPicture`], in SVG pixels: one row per pair under the
/// header, the source and the pseudo centred on the rows, two legend lines below.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FanoutLayout {
    pub width: i32,
    pub height: i32,
    /// The y the source, the pseudo and the fan's edges start from.
    pub mid: i32,
}

impl FanoutLayout {
    /// A pair's row height, and the first row's top.
    pub const ROW: i32 = 34;
    pub const TOP: i32 = 44;

    /// The centre line of pair row `i`.
    pub fn row_y(i: usize) -> i32 {
        Self::TOP + i as i32 * Self::ROW + Self::ROW / 2
    }
}

impl FanoutPicture {
    /// The picture's layout (at least tall enough for the source and the pseudo).
    pub fn layout(&self) -> FanoutLayout {
        let rows = self.pairs.len().max(1) as i32;
        FanoutLayout {
            width: 580,
            height: (FanoutLayout::TOP + rows * FanoutLayout::ROW + 52).max(182),
            mid: FanoutLayout::TOP + rows * FanoutLayout::ROW / 2 - 4,
        }
    }
}
