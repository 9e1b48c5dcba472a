//! Guided tours: for every gallery example, a short narrated path through the steps that
//! matter, each stop with a few sentences for a learner and the spec section it rests on.
//!
//! ```text
//!  TOURS[example] ─ stops: (stage, Select) ──resolve(tour, &RunResult)──▶ TourPlan
//!                           Select::{Input, First(kind), Nth(kind, n), Last(kind),
//!                                    FirstWhere(kind, Pred), End}
//! ```
//!
//! Stops never name step numbers: a stop picks a step by stage and step kind (and, where
//! needed, a predicate on its payload), resolved against the run the page actually has,
//! so a pass that records one more step moves the stop instead of breaking it. A stop
//! that finds no step is an error the tests catch (`every_stop_of_every_tour_resolves`).

use crate::protocol::{PictureTarget, StepView, TourPlan, TourStopView, TourTarget};
use crate::Session;
use compiler_core::pipeline::RunResult;
use compiler_core::trace::{Payload, Step, Steps};
use compiler_core::Stage;

/// A predicate on a step's payload.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pred {
    /// An EXTRACT_SUBREG pair whose COPY got the secondary tie flag.
    TieMarked,
    /// An EXTRACT_SUBREG pair that took the source's kill.
    KillMoved,
    /// A GeneralOptimize round that changed its block.
    RoundChanged,
    /// A GeneralOptimize round that found nothing (the block converged).
    RoundConverged,
    /// A GeneralOptimize mark of this flag bit.
    Mark(u32),
}

impl Pred {
    pub fn holds(self, s: &Step) -> bool {
        match (self, &*s.payload) {
            (Pred::TieMarked, Payload::ExtractSubregPair { tie_marked, .. }) => *tie_marked,
            (Pred::KillMoved, Payload::ExtractSubregPair { kill_moved, .. }) => *kill_moved,
            (Pred::RoundChanged, Payload::GoRound { changed, .. }) => *changed,
            (Pred::RoundConverged, Payload::GoRound { changed, .. }) => !*changed,
            (Pred::Mark(bit), Payload::GoMark { mask, .. }) => mask & bit != 0,
            _ => false,
        }
    }
}

/// How a stop picks its step inside its stage.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Select {
    /// Step 0: the stage's input.
    Input,
    /// The first step of this kind.
    First(&'static str),
    /// The n-th (1-based) step of this kind.
    Nth(&'static str, u32),
    /// The last step of this kind.
    Last(&'static str),
    /// The first step of this kind whose payload satisfies the predicate.
    FirstWhere(&'static str, Pred),
    /// The stage's last step.
    End,
}

/// One stop of a tour.
#[derive(Copy, Clone, Debug)]
pub struct Stop {
    pub stage: Stage,
    pub select: Select,
    pub title: &'static str,
    pub text: &'static str,
    /// The mechanism the stop shows: its spec section, its page, why it matters.
    pub spec: Mech,
}

/// A mechanism a stop teaches: where the spec describes it (`page § section` of
/// `shared/spec/`), the project's own page about it (`docs/mechanisms/`, served with the
/// site) and one sentence on why it matters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Mech {
    pub spec: &'static str,
    pub doc: &'static str,
    pub why: &'static str,
}

const fn mech(spec: &'static str, doc: &'static str, why: &'static str) -> Mech {
    Mech { spec, doc, why }
}

/// A tour of one gallery example.
#[derive(Copy, Clone, Debug)]
pub struct Tour {
    pub example: &'static str,
    pub title: &'static str,
    pub stops: &'static [Stop],
}

/// The step `select` picks among `steps` (1-based; 0 is the input).
pub fn select_step(steps: Steps<'_>, select: Select) -> Option<u32> {
    let of_kind = |kind: &'static str| {
        steps
            .iter()
            .enumerate()
            .filter(move |(_, s)| s.kind == kind)
            .map(|(i, _)| i as u32 + 1)
    };
    match select {
        Select::Input => Some(0),
        Select::First(kind) => of_kind(kind).next(),
        Select::Nth(kind, n) => of_kind(kind).nth(n.checked_sub(1)? as usize),
        Select::Last(kind) => of_kind(kind).next_back(),
        Select::FirstWhere(kind, pred) => steps
            .iter()
            .position(|s| s.kind == kind && pred.holds(&s))
            .map(|i| i as u32 + 1),
        Select::End => (!steps.is_empty()).then_some(steps.len() as u32),
    }
}

/// The tour of `example`.
pub fn find(example: &str) -> Option<&'static Tour> {
    TOURS.iter().find(|t| t.example == example)
}

/// Every stop of `tour` as a (stage, step) of `run`, in order; an error names the first
/// stop that finds no step.
pub fn resolve(tour: &Tour, run_id: u64, run: &RunResult) -> Result<TourPlan, String> {
    let mut stops = Vec::with_capacity(tour.stops.len());
    for (n, stop) in tour.stops.iter().enumerate() {
        let stage_run = run
            .stages
            .iter()
            .find(|s| s.stage == stop.stage)
            .ok_or_else(|| {
                format!(
                    "stop {} ({}): {} did not run",
                    n + 1,
                    stop.title,
                    stop.stage
                )
            })?;
        let step = select_step(stage_run.steps.all(), stop.select).ok_or_else(|| {
            format!(
                "stop {} ({}): no step of {} matches {:?}",
                n + 1,
                stop.title,
                stop.stage,
                stop.select
            )
        })?;
        stops.push(TourStopView {
            stage: stop.stage,
            step,
            title: stop.title.into(),
            text: stop.text.into(),
            spec: stop.spec.spec.into(),
            why: stop.spec.why.into(),
            doc: stop.spec.doc.into(),
            target: Default::default(),
        });
    }
    Ok(TourPlan {
        run_id,
        example: tour.example.into(),
        title: tour.title.into(),
        stops,
    })
}

/// Lines a stop highlights in one pane, at most.
pub const MAX_TARGET_LINES: usize = 12;

/// Fills in what each stop of `plan` points at, from the session's views of its steps.
pub fn aim(session: &mut Session, plan: &mut TourPlan) {
    for stop in &mut plan.stops {
        if let Ok(view) = session.view(stop.stage, stop.step) {
            stop.target = target(&view);
        }
    }
}

/// What a view's step is about: at step 0 the lines the stage goes on to change
/// (input lines without an equal in the output, and the output's new lines); at a step,
/// its marked lines; and the part of the picture the step touches.
pub fn target(v: &StepView) -> TourTarget {
    let mut t = TourTarget::default();
    if v.step > 0 {
        t.before_lines = v.before.marks.iter().map(|m| m.line).collect();
        t.after_lines = v
            .after
            .iter()
            .flat_map(|a| a.marks.iter().map(|m| m.line))
            .collect();
    }
    if t.before_lines.is_empty() && t.after_lines.is_empty() {
        // The lines naming the step's registers, or those the narration names.
        let mut words: Vec<String> = v.focus_regs.iter().map(|r| format!("%{r}")).collect();
        if words.is_empty() && v.step > 0 {
            words = named_in(&v.narration);
        }
        if v.kind == "gate" {
            // A gate is about the function: its header and attributes.
            words.extend(["name", "optnone"].map(String::from));
        }
        if v.kind == "dispatch" {
            // Phase 65's window works on the moves.
            words.push("mov".into());
        }
        t.before_lines = lines_naming(&v.before.text, &words);
        t.after_lines = v
            .after
            .as_ref()
            .map_or(Vec::new(), |a| lines_naming(&a.text, &words));
    }
    if t.before_lines.is_empty() && t.after_lines.is_empty() {
        // At a stage's input (or a view of a whole stage): what the stage changes.
        if let Some(after) = &v.after {
            let a: Vec<&str> = v.before.text.lines().collect();
            let b: Vec<&str> = after.text.lines().collect();
            for op in crate::diff::diff_ops(&a, &b) {
                match op {
                    crate::diff::Op::Removed(i) => t.before_lines.push(i as u32),
                    crate::diff::Op::Added(j) => t.after_lines.push(j as u32),
                    crate::diff::Op::Same(..) => {}
                }
            }
        }
    }
    // The crate's shared sort: one instance of the sort's code in the wasm.
    compiler_core::sort::sort_ints(&mut t.before_lines);
    compiler_core::sort::sort_ints(&mut t.after_lines);
    t.before_lines.truncate(MAX_TARGET_LINES);
    t.after_lines.truncate(MAX_TARGET_LINES);
    t.picture = picture_target(v);
    t
}

/// Registers (`%12`, `%r3`) and opcodes (`ADD32rr`, `MOV_B32_i`, `mov.b32`) a sentence names.
fn named_in(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| c.is_whitespace() || ",;:()`'\"".contains(c)) {
        let w = w.trim_end_matches('.');
        let reg = w.len() > 1 && w.starts_with('%');
        let upper = w.chars().filter(|c| c.is_ascii_uppercase()).count();
        let opcode =
            w.len() >= 4 && upper >= 2 && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let ptx = w.contains('.')
            && w.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && w.split('.').count() >= 2
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
        if (reg || opcode || ptx) && !out.iter().any(|o| o == w) {
            out.push(w.to_string());
        }
    }
    out
}

/// 0-based lines of `text` that contain one of `words` as a whole token.
fn lines_naming(text: &str, words: &[String]) -> Vec<u32> {
    if words.is_empty() {
        return Vec::new();
    }
    let token = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let names = |line: &str, w: &str| {
        line.match_indices(w).any(|(i, _)| {
            let before = line[..i].chars().next_back().is_none_or(|c| !token(c));
            let after = line[i + w.len()..].chars().next().is_none_or(|c| !token(c));
            before && after
        })
    };
    (text.lines().enumerate())
        .filter(|(_, l)| words.iter().any(|w| names(l, w)))
        .map(|(i, _)| i as u32)
        .collect()
}

fn picture_target(v: &StepView) -> Option<PictureTarget> {
    use crate::pictures::Picture;
    if let Some(c) = &v.coalesce {
        let drawn = |r: u32| {
            c.tree
                .as_ref()
                .is_some_and(|t| t.nodes.iter().any(|n| n.reg == r))
        };
        if let Some((a, b)) = c.candidate {
            let regs: Vec<u32> = [a, b].into_iter().filter(|&r| drawn(r)).collect();
            return Some(if regs.is_empty() {
                PictureTarget::BarRows(vec![a, b])
            } else {
                PictureTarget::TreeNodes(regs)
            });
        }
        let touched: Vec<u32> = (c.tree.iter().flat_map(|t| &t.nodes))
            .filter(|n| n.touched)
            .map(|n| n.reg)
            .collect();
        if !touched.is_empty() {
            return Some(PictureTarget::TreeNodes(touched));
        }
        let changed: Vec<u32> = c.rows.iter().filter(|r| r.changed).map(|r| r.reg).collect();
        if !changed.is_empty() {
            return Some(PictureTarget::BarRows(changed));
        }
        return c.tree.is_some().then_some(PictureTarget::Tree);
    }
    match v.picture.as_ref()? {
        Picture::Fanout(f) => Some(PictureTarget::FanoutPair(f.current)),
        Picture::GoGrid(g) => {
            let at = |s: u32| s == v.step;
            if let Some(c) = g.cells.iter().find(|c| at(c.step)) {
                Some(PictureTarget::GridCell {
                    block: c.block,
                    round: c.iteration,
                })
            } else if let Some(c) = g.costs.iter().find(|c| at(c.step)) {
                Some(PictureTarget::CostRound(c.round))
            } else if g.buffer.as_ref().is_some_and(|b| at(b.step)) {
                Some(PictureTarget::MovBuffer)
            } else if let Some(c) = g.cells.last() {
                Some(PictureTarget::GridCell {
                    block: c.block,
                    round: c.iteration,
                })
            } else {
                Some(PictureTarget::Whole)
            }
        }
    }
}

const fn stop(
    stage: Stage,
    select: Select,
    title: &'static str,
    text: &'static str,
    spec: Mech,
) -> Stop {
    Stop {
        stage,
        select,
        title,
        text,
        spec,
    }
}

use Select::*;
use Stage::*;

// The mechanisms the stops point at: spec section, our page, why it matters.

macro_rules! mechs {
    ($($name:ident = $spec:literal, $page:literal, $anchor:literal, $why:literal;)*) => {
        $(const $name: Mech = mech($spec, concat!("mechanisms/", $page, ".html#", $anchor), $why);)*
        /// Every mechanism a stop may name (for the link check).
        pub const MECHANISMS: &[Mech] = &[$($name),*];
    };
}

mechs! {
    TA_DECOMP = "two-address-cicc.txt § Decomposition Pseudocode", "two-address", "decomposition",
        "One COPY per lane is what lets each lane's copy be removed on its own later.";
    TA_LV = "two-address-cicc.txt § LiveVariables Update Chain", "two-address", "live-variables",
        "A kill flag on the wrong instruction would tell later passes a value is dead while it is still read.";
    TA_MULTI = "two-address-cicc.txt § Multi-Result Producers on NVPTX", "two-address", "multi-result",
        "Most copies in real GPU kernels come from these multi-result producers.";
    TA_ALGO = "two-address-cicc.txt § Algorithm", "two-address", "algorithm",
        "Every tie the pass cannot dissolve another way costs a COPY that the coalescers must try to remove.";
    TA_TIED = "two-address-cicc.txt § Tied Operand Scanning", "two-address", "tied-operands",
        "A tied operand forces the result into the register it reads, which is why copies appear at all.";
    TA_EQ = "two-address-cicc.txt § Copy-Equivalence Classes", "two-address", "copy-classes",
        "The NVPTX coalescer reads these classes later to decide which copies to try first.";
    TA_ASM = "two-address-cicc.txt § Inline Assembly Tied Operands", "two-address", "inline-asm",
        "Inline assembly is opaque to the compiler, so its ties always cost a COPY.";
    TO_COMMUTE = "two-address-overview.md § Step 2: Operand Commutation", "two-address", "commute",
        "Swapping two sources is free, while a COPY costs an instruction and a register.";
    TO_COPY = "two-address-overview.md § Step 3: Copy Insertion", "two-address", "copy-insertion",
        "This COPY is the one the rest of the pipeline works to remove again.";
    TO_RESCHED = "two-address-overview.md § Step 4: Instruction Rescheduling", "two-address", "reschedule",
        "Moving one instruction can save a COPY without changing what the kernel computes.";
    RC_ALGO = "register-coalescing-cicc.txt § Coalescing Algorithm", "coalescing", "algorithm",
        "Each joined COPY is one move fewer in the PTX and one register fewer to allocate.";
    RC_TREE = "register-coalescing-cicc.txt § Interval Tree (Red-Black BST)", "coalescing", "interval-tree",
        "The balanced tree keeps each interference question fast even with thousands of live segments.";
    RC_PRIO = "register-coalescing-cicc.txt § Priority and Weight System", "coalescing", "priority",
        "The order decides the outcome: once two registers merge, other copies may no longer fit.";
    RC_CLASS = "register-coalescing-cicc.txt § Register Class Constraints", "coalescing", "classes",
        "Merging registers of different classes would change the instruction, not just its names.";
    RC_SUB = "register-coalescing-cicc.txt § Sub-Register Handling", "coalescing", "sub-registers",
        "Wide registers are where generic coalescing gives up and NVPTX's own pass takes over.";
    RC_CSSA = "register-coalescing-cicc.txt § CSSA Coalescing (PHI-Specific)", "coalescing", "phis",
        "Machines cannot run PHIs, so every PHI becomes copies that the coalescers must clean up.";
    RC_KNOBS = "register-coalescing-cicc.txt § Knobs and Thresholds Summary", "coalescing", "knobs",
        "Budgets bound the compile time on huge functions, at the price of copies left behind.";
    IE_PARAM = "instr-emitter-cicc.txt § Parameter Cascade Emission", "instr-emitter", "parameter-cascade",
        "Every kernel parameter enters the machine code this way, so these are the first copies a kernel has.";
    IE_COPYFROM = "instr-emitter-cicc.txt § CopyFromReg Emission", "instr-emitter", "copy-from-reg",
        "Each CopyFromReg becomes a COPY unless the emitter can reuse the register directly.";
    IE_DEAD = "instr-emitter-cicc.txt § Dead Copy Elimination", "instr-emitter", "dead-copies",
        "Copies removed here never reach the later passes at all.";
    IE_DEADLIST = "instr-emitter-cicc.txt § Deferred Deletion via Dead List", "instr-emitter", "dead-list",
        "Deleting in one batch avoids removing a copy that a later node still needs.";
    IE_GLUE = "instr-emitter-cicc.txt § Texture/Surface Glue Bundle Emission", "instr-emitter", "glue",
        "Glued nodes must stay together, so the emitter cannot place their copies freely.";
    IE_MULTI = "instr-emitter-cicc.txt § Multi-Result SDNode Self-Recursion", "instr-emitter", "multi-result",
        "This is where the EXTRACT_SUBREG pseudo that two-address later splits is born.";
    IE_BIT36 = "instr-emitter-cicc.txt § Where Bit 36 Is Checked", "instr-emitter", "bit36",
        "One property bit decides whether a copy is folded away or kept.";
    IE_DEFS = "instr-emitter-cicc.txt § Register Class Assignment During Emission", "instr-emitter", "result-registers",
        "Every result that gets a register of its own is a copy the later passes never see.";
    IE_PSEUDO = "instr-emitter-cicc.txt § NVPTX Custom Pseudo-Expansion", "instr-emitter", "pseudo-expansion",
        "NVPTX's own expansion decides the shape of the instructions the later passes see.";
    GO_MAP = "general-optimize-ptxas.txt § Instance Map", "general-optimize", "instances",
        "The clean-up of ptxas works on its own instruction form, so it sees PTX through different eyes than LLVM.";
    GO_COPY = "general-optimize-ptxas.txt § Copy Propagation Algorithm", "general-optimize", "copy-propagation",
        "Reading a source directly makes the move dead, and dead moves cost nothing once removed.";
    GO_FLAGS = "general-optimize-ptxas.txt § Flag Bit Semantics", "general-optimize", "flags",
        "The marks record what a later sub-pass may rewrite, so they steer every fold that follows.";
    GO_CONSUME = "general-optimize-ptxas.txt § How Fold Results Are Consumed", "general-optimize", "folds",
        "A fold turns a marked instruction into a simpler one, which often makes another one dead.";
    GO_SM = "general-optimize-ptxas.txt § SM Version 20479 Threshold", "general-optimize", "sm-threshold",
        "The same PTX is optimized differently for different GPUs because of this threshold.";
    GO_COST = "general-optimize-ptxas.txt § Phase 37 Fold Cost Model", "general-optimize", "cost-model",
        "The cost model stops the loop once another round would gain too little to pay for itself.";
    GO_FIX = "general-optimize-ptxas.txt § Fixed-Point Convergence", "general-optimize", "fixed-point",
        "Running to a fixed point catches the folds that only become possible after other folds.";
    GO_LIMITS = "general-optimize-ptxas.txt § Iteration Limits", "general-optimize", "iteration-limits",
        "Without a cap, a block that keeps changing could make ptxas run for a long time.";
    GO_DCE = "general-optimize-ptxas.txt § Dead Code Elimination", "general-optimize", "dce",
        "Dead-code removal is where the earlier marks and folds finally shrink the program.";
    GO_PRED = "general-optimize-ptxas.txt § Predicate Simplification", "general-optimize", "predicates",
        "A predicate known in advance removes a branch or a guard, and the work behind it.";
    GO_CHAIN = "general-optimize-ptxas.txt § Chain-Walking Algorithm", "general-optimize", "exit-chains",
        "Compilers often repeat the same guarded exit, and each copy costs instructions in every thread.";
    GO_VARIANTS = "general-optimize-ptxas.txt § Differences Between Early/Mid/Late Variants", "general-optimize", "variants",
        "Each of the six runs does a different share of the clean-up, so what one misses another may catch.";
    GO_LATE = "general-optimize-ptxas.txt § Sub-Pass Decomposition", "general-optimize", "mov-buffer",
        "A small window finds repeated moves cheaply, without a pass over the whole function.";
}

/// The stops every EXTRACT_SUBREG example shares, around an opening that names the
/// producer.
macro_rules! extract_tour {
    ($example:literal, $title:literal, $open:literal) => {
        extract_tour!($example, $title, $open, FirstWhere("extract_subreg_copy", Pred::TieMarked), HINTS_BOTH)
    };
    ($example:literal, $title:literal, $open:literal, $hint:expr, $hint_text:expr) => {
        Tour {
            example: $example,
            title: $title,
            stops: &[
                stop(TwoAddress, Input, "The producer", $open, TA_MULTI),
                stop(
                    TwoAddress,
                    First("extract_subreg_start"),
                    "One pseudo, many results",
                    "Two-address meets the EXTRACT_SUBREG pseudo that hands out the producer's results. It will not keep it: each def/use pair becomes its own COPY, in pair order.",
                    TA_DECOMP,
                ),
                stop(
                    TwoAddress,
                    First("extract_subreg_copy"),
                    "The first COPY",
                    "Pair 1 reads lane sub0 of the wide register. The first pair never carries the hint bits, so its COPY is plain.",
                    TA_DECOMP,
                ),
                stop(TwoAddress, $hint, "Hint bits on a later pair", $hint_text, TA_DECOMP),
                stop(
                    TwoAddress,
                    FirstWhere("extract_subreg_copy", Pred::KillMoved),
                    "The kill moves",
                    "The last reader of the wide source is no longer the pseudo but this COPY, so LiveVariables moves the kill flag onto it. Each COPY lists the LiveVariables updates it made.",
                    TA_LV,
                ),
                stop(
                    TwoAddress,
                    First("extract_subreg_erase"),
                    "The pseudo goes",
                    "Every pair is a COPY now, so the pseudo has nothing left to do and is erased.",
                    TA_DECOMP,
                ),
                stop(
                    RegisterCoalescer,
                    First("partial"),
                    "Lanes meet the coalescer",
                    "LLVM's coalescer can only join part of a wide register here, so these COPYs survive this stage.",
                    RC_SUB,
                ),
                stop(
                    NvptxCoalescer,
                    First("merge"),
                    "NVPTX merges the lanes",
                    "NVIDIA's own coalescer checks each COPY against the interval tree: the lane and its reader never hold different values at once, so they merge and the COPY disappears.",
                    RC_ALGO,
                ),
            ],
        }
    };
}

const HINTS_BOTH: &str = "From pair 2 on, both hint bits (tied and early-tied) are set on the def, so the COPY's def is marked tied. The coalescer reads that mark later as a wish to share a register.";

/// Every gallery example's tour, in gallery order.
pub static TOURS: &[Tour] = &[
    Tour {
        example: "commute",
        title: "Commuting instead of copying",
        stops: &[
            stop(TwoAddress, Input, "A tied add", "The add must write the register it reads first. Its first source is still needed later, so a plain rewrite would clobber it.", TO_COMMUTE),
            stop(TwoAddress, First("gate"), "Optimizing mode", "The pass runs with optimizations on, so it may commute, reschedule or convert before falling back to a COPY.", TA_ALGO),
            stop(TwoAddress, First("commute"), "Swap the sources", "The add is commutable and its second source dies here while the first lives on, so the operands swap: the dying source takes the tied slot.", TO_COMMUTE),
            stop(TwoAddress, First("tied_copy"), "A COPY that can vanish", "The add has no three-address form, so the tie still gets its COPY, but the COPY now reads a value that dies there.", TO_COMMUTE),
            stop(RegisterCoalescer, First("join"), "Joined away", "The COPY's two registers never hold different values at once, so the coalescer merges them: commuting made the COPY free.", RC_ALGO),
            stop(PtxEmit, First("instruction"), "As PTX", "The swapped add prints as an ordinary three-operand PTX add: the tie only mattered in machine IR.", TA_ALGO),
        ],
    },
    Tour {
        example: "sub-copy",
        title: "A subtraction cannot commute",
        stops: &[
            stop(TwoAddress, Input, "A tied subtraction", "sub is not commutable, and its first source lives on after it.", TO_COPY),
            stop(TwoAddress, First("three_address"), "Three-address form?", "The pass asks whether the instruction has a three-address form. NVPTX has none to offer here.", TA_ALGO),
            stop(TwoAddress, First("tied_copy"), "A COPY goes in", "With nothing else left, a COPY of the source goes in front and the use is renamed. The copy-equivalence map remembers the pair.", TO_COPY),
            stop(RegisterCoalescer, First("conflict"), "The coalescer tries", "Both registers are live with different values at once, so the COPY cannot be joined.", RC_ALGO),
            stop(NvptxCoalescer, First("interference"), "Interference again", "The NVPTX coalescer finds the same overlap and parks the candidate on the secondary heap.", RC_PRIO),
            stop(PtxEmit, First("copy_to_mov"), "It becomes a mov", "The COPY that survived prints as a PTX mov.", TA_ALGO),
        ],
    },
    Tour {
        example: "reschedule",
        title: "Moving an instruction to save a COPY",
        stops: &[
            stop(TwoAddress, Input, "The setup", "A tied instruction whose source is read once more, a little further down.", TO_RESCHED),
            stop(TwoAddress, First("three_address"), "No three-address form", "Converting is tried first and does not apply.", TA_ALGO),
            stop(TwoAddress, First("reschedule_below_kill"), "Sink below the kill", "The pass moves the instruction below the last reader of its source, so the tie can reuse the register.", TO_RESCHED),
            stop(TwoAddress, First("kill_moved"), "The kill follows", "Moving code shifts where the source dies; LiveVariables moves the kill flag with it.", TA_LV),
            stop(TwoAddress, First("done"), "What it cost", "The counters: how many COPYs went in, and what rescheduling saved.", TA_ALGO),
        ],
    },
    extract_tour!("tex-v4f32", "A texture fetch fans out", "A 4-lane texture fetch writes one wide register; an EXTRACT_SUBREG pseudo hands its four lanes to four registers."),
    extract_tour!("mma-tf32-4frag", "Four MMA fragments", "A tf32 matrix multiply-add produces four fragments at once; the EXTRACT_SUBREG pseudo splits them out."),
    extract_tour!("wmma-f16-8frag", "Eight WMMA fragments", "A WMMA load produces eight f16x2 fragments, so its pseudo has eight def/use pairs."),
    extract_tour!("wgmma-16frag", "Sixteen WGMMA results", "A warpgroup MMA writes sixteen accumulator registers: the longest fan-out in the gallery."),
    extract_tour!("async-copy-2result", "An async copy with two results", "This producer has only two results, so the fan-out is two COPYs: the smallest case with hint bits."),
    extract_tour!(
        "tma-2result",
        "A TMA load with two results",
        "A tensor-memory load returns two values through one pseudo.",
        Nth("extract_subreg_copy", 2),
        "Pair 2 has only the tied hint bit, not early-tied. Both are needed for the tie mark, so this COPY's def stays unmarked."
    ),
    Tour {
        example: "inline-asm-tied",
        title: "Ties written in inline assembly",
        stops: &[
            stop(TwoAddress, Input, "A \"+r\" operand", "The asm statement reads and writes the same operand, so its input and output are tied.", TA_ASM),
            stop(TwoAddress, First("tied_copy"), "A COPY for the asm", "An asm block cannot be commuted or rescheduled: the tie is met with a COPY.", TA_ASM),
            stop(RegisterCoalescer, First("conflict"), "Still both live", "The coalescer cannot join the COPY: the original value is read after the asm.", RC_ALGO),
            stop(PtxEmit, First("inline_asm"), "The asm text", "The asm body is printed with its operands replaced by the chosen registers.", TA_ASM),
        ],
    },
    Tour {
        example: "reg-sequence",
        title: "Building and taking apart a tuple",
        stops: &[
            stop(TwoAddress, Input, "REG_SEQUENCE", "Two values are packed into one wide register, and later one lane is read back through EXTRACT_SUBREG.", TA_DECOMP),
            stop(TwoAddress, First("reg_sequence"), "The tuple becomes COPYs", "REG_SEQUENCE is lowered to one sub-register COPY per lane.", TA_DECOMP),
            stop(TwoAddress, First("extract_subreg_copy"), "One pair only", "The EXTRACT_SUBREG here has a single pair, so there are no later pairs and no hint bits.", TA_DECOMP),
            stop(RegisterCoalescer, First("partial"), "Partial joins", "The lane COPYs are only partly joinable in LLVM's coalescer.", RC_SUB),
            stop(NvptxCoalescer, First("heap_pop"), "The heap decides the order", "The NVPTX coalescer takes a REG_SEQUENCE lane copy first: two-address put its registers in one copy-equivalence class (CopyScope's priority rule). Other candidates go lowest register first, weight breaking ties.", RC_PRIO),
            stop(PtxEmit, First("tuple_result"), "Back in PTX", "The wide register is printed as a vector of scalar registers.", TA_MULTI),
        ],
    },
    Tour {
        example: "insert-subreg",
        title: "Writing one lane of a tuple",
        stops: &[
            stop(TwoAddress, Input, "INSERT_SUBREG", "One lane of an existing tuple is overwritten; the rest must survive.", TA_DECOMP),
            stop(TwoAddress, First("reg_sequence"), "First the tuple", "The tuple itself is built from COPYs.", TA_DECOMP),
            stop(TwoAddress, First("insert_subreg"), "The insert", "INSERT_SUBREG is tied: the result must be the tuple it writes into, so a COPY of the tuple may go first.", TA_TIED),
            stop(TwoAddress, Nth("extract_subreg_copy", 2), "Reading lanes back", "The second EXTRACT_SUBREG splits into its own COPYs.", TA_DECOMP),
            stop(NvptxCoalescer, First("interference"), "Two versions of the tuple", "The old and new tuple are live at once, so the NVPTX coalescer cannot merge them.", RC_ALGO),
            stop(NvptxCoalescer, End, "What is left", "The final counters: merges done and copies that stay.", RC_ALGO),
        ],
    },
    Tour {
        example: "optnone",
        title: "optnone: COPYs only",
        stops: &[
            stop(TwoAddress, First("gate"), "Optimizations off", "The function is optnone, so every tie is met with a COPY: no commuting, no rescheduling.", TA_ALGO),
            stop(TwoAddress, First("tied_copy"), "The COPY", "The tie is met by a COPY in front; the equivalence map records the pair.", TA_EQ),
            stop(TwoAddress, First("done"), "One COPY", "The counters at the end: one COPY inserted, none commuted away.", TA_ALGO),
            stop(RegisterCoalescer, First("conflict"), "A conflict", "The COPY cannot be joined: its source lives on while the add overwrites the copy.", RC_ALGO),
        ],
    },
    Tour {
        example: "phi-loop",
        title: "PHIs in a loop",
        stops: &[
            stop(PhiElimination, Input, "A loop with PHIs", "Values flow around the loop through PHI nodes, which machines cannot run.", RC_CSSA),
            stop(PhiElimination, First("phi_copy"), "A COPY for each PHI", "Each PHI becomes a COPY from a new register at the top of its block.", RC_CSSA),
            stop(PhiElimination, First("phi_pred_copy"), "COPYs in the predecessors", "Each incoming edge gets a COPY into that new register at the end of its block.", RC_CSSA),
            stop(RegisterCoalescer, First("block_order"), "Loops first", "The coalescer visits the deepest loop first, where a saved COPY counts most.", RC_PRIO),
            stop(RegisterCoalescer, First("join"), "A join", "Two registers never hold different values at once: one is renamed and the COPY disappears.", RC_ALGO),
            stop(RegisterCoalescer, First("retry_round"), "Another round", "COPYs that failed get a second chance after the others are joined.", RC_ALGO),
            stop(RegisterCoalescer, End, "Result", "Nine COPYs came in, one stays: the value that really crosses the loop edge.", RC_ALGO),
        ],
    },
    Tour {
        example: "phi-swap",
        title: "The PHI swap problem",
        stops: &[
            stop(PhiElimination, Input, "Two PHIs swap", "Each iteration swaps two values, so the PHIs read each other.", RC_CSSA),
            stop(PhiElimination, First("phi_copy"), "PHI COPYs", "Each PHI becomes a COPY; the swap needs a temporary, which the extra register provides.", RC_CSSA),
            stop(RegisterCoalescer, First("conflict"), "The swap resists", "The swapped values are live together, so some COPYs can never be joined.", RC_ALGO),
            stop(RegisterCoalescer, First("join"), "Other COPYs go", "COPYs outside the swap join without trouble.", RC_ALGO),
            stop(NvptxCoalescer, First("heap_pop"), "The NVPTX pass", "The survivors are tried once more from the heap.", RC_PRIO),
            stop(GeneralOptimize, First("mark"), "ptxas looks again", "Phase 29 marks the remaining moves so their uses can read the source directly.", GO_FLAGS),
        ],
    },
    Tour {
        example: "cross-class",
        title: "Copies between register classes",
        stops: &[
            stop(NvptxCoalescer, Input, "Two classes", "A value moves between registers of different classes.", RC_CLASS),
            stop(NvptxCoalescer, First("kept_cross_class"), "Kept on purpose", "A copy across classes is a real conversion on NVPTX, so the coalescer keeps it.", RC_CLASS),
            stop(NvptxCoalescer, First("merge"), "Same class merges", "A same-class copy next to it merges as usual.", RC_ALGO),
            stop(PtxEmit, First("register_move"), "A move in PTX", "The kept copy prints as a move between the two register files.", RC_CLASS),
        ],
    },
    Tour {
        example: "wide-pair",
        title: "Wide registers keep their layout",
        stops: &[
            stop(NvptxCoalescer, Input, "Pairs of 32-bit halves", "A 64-bit value is built from two halves and taken apart again.", RC_SUB),
            stop(NvptxCoalescer, First("kept_layout"), "Layout first", "Merging would change how the wide register's lanes are laid out, so the copy stays.", RC_SUB),
            stop(NvptxCoalescer, First("merge"), "A safe merge", "Where the layout is unaffected, the copy merges.", RC_ALGO),
            stop(PtxEmit, First("unpack"), "Unpacking in PTX", "The halves are read with a PTX unpack move.", RC_SUB),
        ],
    },
    extract_tour!("tex-lanes", "Texture lanes all the way to PTX", "Four texture lanes again; this time follow them on through both coalescers."),
    Tour {
        example: "limits",
        title: "A copy chain, merged block by block",
        stops: &[
            stop(NvptxCoalescer, Input, "A chain of copies", "Each register copies the one before it, down a long chain.", RC_ALGO),
            stop(NvptxCoalescer, First("tree_built"), "The interval tree", "Every register's live segments go into a red-black tree ordered by interval, then start (a hash map sends each register to its interval, numbered like the register to begin with); each interference question is a range search in it.", RC_TREE),
            stop(NvptxCoalescer, First("merge"), "Block-level merges", "Moves whose registers live inside one block merge first: the tree finds no segment of one overlapping the other's.", RC_ALGO),
            stop(NvptxCoalescer, Last("merge"), "Across the block edge", "The moves into the second block merge from the worklist; each merge leaves the larger interval's segments in place and files the other side's under its key, deleting and inserting nodes and rotating as it goes.", RC_PRIO),
            stop(NvptxCoalescer, First("done"), "Budgets", "All six moves merged. Run it again with coalesce-limit=3 and the pass stops after three merges; with copy-limit=2 only the first two moves are considered.", RC_KNOBS),
        ],
    },
    Tour {
        example: "param-cascade",
        title: "Parameters flowing in",
        stops: &[
            stop(InstrEmitter, Input, "The selected DAG", "Kernel parameters arrive as a cascade of CopyFromReg nodes.", IE_PARAM),
            stop(InstrEmitter, First("param_cascade"), "The cascade", "The emitter walks the chain of parameter reads in order.", IE_PARAM),
            stop(InstrEmitter, First("copy_from_reg"), "CopyFromReg", "Each read from a physical parameter register becomes a COPY into a virtual one.", IE_COPYFROM),
            stop(InstrEmitter, First("record"), "Result records", "After emission, every produced COPY is classified: keep, erase now, or defer.", IE_DEAD),
            stop(InstrEmitter, First("flush_dead_list"), "The dead list", "Deferred COPYs that nobody reads are deleted together.", IE_DEADLIST),
            stop(RegisterCoalescer, First("physical"), "Physical registers", "COPYs from physical registers are left to the coalescer's special rules.", RC_ALGO),
        ],
    },
    Tour {
        example: "tex-glue-bundle",
        title: "A glued texture bundle",
        stops: &[
            stop(InstrEmitter, Input, "Glued nodes", "A texture fetch is glued to the nodes that feed it: they must be emitted together.", IE_GLUE),
            stop(InstrEmitter, First("glue_chain"), "Following the glue", "The emitter walks the glue chain and emits the bundle as one unit.", IE_GLUE),
            stop(InstrEmitter, Nth("emit", 7), "Four defs", "The fetch defines its four texels as four registers, one per result, so nothing is left to split.", IE_DEFS),
            stop(InstrEmitter, First("custom_inserter"), "No inserter", "CopyScope's table claims the custom-inserter hook for the fetch, but NVPTX defines none: it stays as built.", IE_PSEUDO),
        ],
    },
    Tour {
        example: "tex-unified-2d",
        title: "A texture fetch as llc-22 selects it",
        stops: &[
            stop(InstrEmitter, Input, "Four results", "TEX_UNIFIED_2D_F32_F32_R has four f32 results: the four texels of one fetch.", IE_DEFS),
            stop(InstrEmitter, Nth("emit", 4), "Four defs", "The fetch is built with four defs, one register per result, then its handle and two coordinates.", IE_DEFS),
            stop(InstrEmitter, First("custom_inserter"), "No inserter", "CopyScope's table claims the custom-inserter hook for the fetch, but NVPTX defines none: it stays as built.", IE_PSEUDO),
            stop(InstrEmitter, End, "Nothing to split", "No EXTRACT_SUBREG was made, so two-address finds no lanes to copy out.", IE_DEFS),
        ],
    },
    Tour {
        example: "wmma-chain",
        title: "WMMA fragments as registers",
        stops: &[
            stop(InstrEmitter, Input, "The selected DAG", "Three WMMA loads, a multiply-accumulate and a store, each an anonymous_N record as llc-22 prints it.", IE_DEFS),
            stop(InstrEmitter, Nth("create_vreg", 3), "A register per fragment", "Each of the A load's eight results gets a register of its own.", IE_DEFS),
            stop(InstrEmitter, Nth("emit", 9), "Twenty fragments in", "The multiply-accumulate reads all twenty fragment registers and defines four.", IE_DEFS),
            stop(InstrEmitter, End, "Nothing to split", "No EXTRACT_SUBREG was made, so two-address finds no lanes to copy out.", IE_DEFS),
        ],
    },
    Tour {
        example: "redundant-exit",
        title: "Removing a repeated exit",
        stops: &[
            stop(PtxLower, First("block"), "Into ORI", "ptxas' instruction form starts with a block anchor per basic block.", GO_MAP),
            stop(GeneralOptimizeEarly, Input, "Phase 13", "Two blocks end in the same guarded exit.", GO_CHAIN),
            stop(GeneralOptimizeEarly, FirstWhere("round", Pred::RoundChanged), "A round that fired", "The exit-chain matcher found a match, so this round changed the block and the loop runs again.", GO_FIX),
            stop(GeneralOptimizeEarly, First("exit_chain"), "The repeated exit", "The second exit's guard is defined the same way as the first's, two levels deep, so it goes.", GO_CHAIN),
            stop(GeneralOptimizeEarly, End, "Converged", "Every block ran until a round found nothing: the grid's last cells are unchanged.", GO_FIX),
        ],
    },
    Tour {
        example: "select-fold",
        title: "Folding a select",
        stops: &[
            stop(GeneralOptimize, Input, "Phase 29", "Two selects pick between equal values; only one of them may be touched.", GO_COPY),
            stop(GeneralOptimize, First("sm_boundary"), "The SM boundary", "This select's destination carries bits that, above SM value 20479, make it ineligible. It is left alone.", GO_SM),
            stop(GeneralOptimize, First("mark"), "A 0x100 mark", "The other select is eligible: its destination is marked 0x100, to be propagated.", GO_FLAGS),
            stop(GeneralOptimize, First("round"), "Round 1 of the grid", "The first cell of block 0: marks were set, so the round changed something and the loop goes on.", GO_FIX),
            stop(GeneralOptimize, First("fold_select"), "The fold", "A select whose two sources agree needs no predicate: it becomes a move.", GO_CONSUME),
            stop(GeneralOptimize, First("dead"), "Dead code", "The move's result is never read, so it is removed.", GO_DCE),
            stop(GeneralOptimize, End, "Converged", "Round 3 finds nothing to do: the block has reached its fixed point.", GO_FIX),
        ],
    },
    Tour {
        example: "predicate-known",
        title: "A predicate known in advance",
        stops: &[
            stop(GeneralOptimize, Input, "Constants and a compare", "The compare only reads constants, so its answer is known before the kernel runs.", GO_PRED),
            stop(GeneralOptimize, FirstWhere("mark", Pred::Mark(0x400)), "A 0x400 mark", "The set-predicate gets the 0x400 bit: its value is known.", GO_FLAGS),
            stop(GeneralOptimize, First("round"), "Round 1", "The grid's first cell counts the marks of each kind.", GO_FIX),
            stop(GeneralOptimize, First("resolve_guard"), "Guards resolved", "A store guarded by a known-true predicate loses its guard; one guarded by known-false goes entirely.", GO_PRED),
            stop(GeneralOptimize, First("dead"), "Clean-up", "The compare and the moves are no longer read and are removed.", GO_DCE),
            stop(GeneralOptimize, End, "Fixed point", "The last round changes nothing.", GO_FIX),
        ],
    },
    Tour {
        example: "iteration-cap",
        title: "How many rounds a block gets",
        stops: &[
            stop(GeneralOptimize, Input, "A block that needs rounds", "Each fold here enables the next, so one pass over the block is not enough.", GO_LIMITS),
            stop(GeneralOptimize, First("round"), "Round 1", "Marks and a fold: the round changed the block.", GO_FIX),
            stop(GeneralOptimize, Nth("round", 2), "Round 2", "The fold made a new move, which is marked and propagated in turn.", GO_FIX),
            stop(GeneralOptimize, Last("round"), "The last round", "Nothing left. With option 464 set lower, the budget would stop the loop earlier and the cell would show the cap.", GO_LIMITS),
        ],
    },
    Tour {
        example: "local-array",
        title: "A local array becomes registers",
        stops: &[
            stop(GeneralOptimizeMid, Input, "Phase 37", "A small local array is written and read back in the same block.", GO_VARIANTS),
            stop(GeneralOptimizeMid, First("promote_load"), "Loads promoted", "Each load reads what the block just stored, so it becomes a move from the stored register.", GO_VARIANTS),
            stop(GeneralOptimizeMid, First("mark"), "Moves marked", "The new moves are marked 0x100 for propagation.", GO_FLAGS),
            stop(GeneralOptimizeMid, First("cost"), "The cost curve", "Round 1's folds add weighted cost 2.5, well over the threshold, so another round runs.", GO_COST),
            stop(GeneralOptimizeMid, Last("cost"), "Below the threshold", "Round 2 adds nothing: the delta falls under 0.25 and the loop stops.", GO_COST),
            stop(GeneralOptimizeMid, First("dead_local_stores"), "The stores go", "Nothing reads the array any more, so its stores are dropped too.", GO_DCE),
        ],
    },
    Tour {
        example: "mov-pairs",
        title: "The six-slot MOV buffer",
        stops: &[
            stop(GeneralOptimizeLate, Input, "Phase 58", "Two pairs of moves load the same value twice.", GO_LATE),
            stop(GeneralOptimizeLate, First("buffer"), "Into the buffer", "The first move takes slot 0 of a six-slot circular buffer.", GO_LATE),
            stop(GeneralOptimizeLate, First("mov_pair"), "A repeat", "The next move repeats the one in slot 0, so its use reads the first destination instead.", GO_LATE),
            stop(GeneralOptimizeLate, Nth("buffer", 3), "Slot 1", "A different move takes the next slot.", GO_LATE),
            stop(GeneralOptimizeLate, First("round"), "One pass", "Phase 58 does not iterate: one pass, two pairs merged.", GO_VARIANTS),
            stop(GeneralOptimizeLate2, First("dispatch"), "Phase 65", "The same window runs again through the target's dispatch table.", GO_VARIANTS),
        ],
    },
    Tour {
        example: "cu-reduce",
        title: "A real reduction kernel",
        stops: &[
            stop(PtxLower, First("block"), "Ten blocks", "An nvcc reduction kernel lowers to ten ORI blocks.", GO_MAP),
            stop(GeneralOptimizeEarly, End, "Phase 13's grid", "One cell per block: every block converges in one round.", GO_FIX),
            stop(GeneralOptimizeMid, First("cost"), "Phase 37's cost", "No folds, so the cost curve stays flat under the threshold.", GO_COST),
            stop(GeneralOptimizeLate, First("buffer"), "Phase 58's buffer", "Moves fill the buffer, but none repeats: nothing merges.", GO_LATE),
            stop(GeneralOptimizeLate, End, "Already tidy", "nvcc's output leaves ptxas little to clean up.", GO_VARIANTS),
        ],
    },
    Tour {
        example: "cu-tex2d",
        title: "A real texture kernel",
        stops: &[
            stop(PtxLower, First("lower"), "Into ORI", "Each PTX instruction becomes one or more ORI instructions with class numbers.", GO_MAP),
            stop(GeneralOptimize, End, "Phase 29", "One block, one round: nothing to propagate.", GO_FIX),
            stop(GeneralOptimizeLate, First("buffer"), "The buffer fills", "The kernel's moves take buffer slots one by one.", GO_LATE),
            stop(GeneralOptimizeLate, Last("buffer"), "Four moves, no repeat", "No move repeats another, so no pair merges.", GO_LATE),
        ],
    },
];
