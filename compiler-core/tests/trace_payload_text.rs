//! The payload pieces the two-address and instr-emitter steps keep as numbers
//! (`compiler_core::trace::{LvSteps, TieAttempt, RegText, NumberedText}`) print the
//! sentences and names the passes used to keep as strings, byte for byte: the step JSON
//! and the playground read the same text as before.

use compiler_core::trace::{LvStep, LvSteps, NumberedText, RegText, TieAttempt};

/// Every update reads back as itself and prints the sentence the pass used to keep
/// (written out here by hand), with numbers of every LEB128 length.
#[test]
fn lv_steps_read_back_and_print_their_sentences() {
    use LvStep::*;
    let big = 300_000;
    let cases = vec![
        (
            RemoveKill { reg: 3, inst: big },
            "removeKill: %3 no longer dies at instruction 300000",
        ),
        (
            AddKill { reg: 200, inst: 1 },
            "addKill: %200 now dies at instruction 1",
        ),
        (
            ReplaceKill {
                reg: 7,
                new: 5,
                old: 1,
            },
            "replaceKill: %7 dies at instruction 5 instead of 1",
        ),
        (
            AlsoDefined { reg: 9, inst: 4 },
            "def: %9 is also defined at instruction 4",
        ),
        (
            NewVarInfo { reg: big },
            "createNewVarInfo + initVarInfo: %300000 gets an empty VarInfo",
        ),
        (
            MoveDef {
                reg: 3,
                old: 1,
                new: 5,
                dead: false,
            },
            "transfer: %3's def moves from instruction 1 to 5",
        ),
        (
            MoveDef {
                reg: 3,
                old: 1,
                new: 5,
                dead: true,
            },
            "transfer: %3's def moves from instruction 1 to 5 (a dead def: the kill goes with it)",
        ),
        (
            DropDef {
                reg: 4,
                old: 2,
                dead_kill_at: None,
            },
            "def: instruction 2 no longer defines %4",
        ),
        (
            DropDef {
                reg: 4,
                old: 2,
                dead_kill_at: Some(8),
            },
            "def: instruction 2 no longer defines %4; the dead def's kill is at 8 now",
        ),
        (
            Defined { reg: 6, inst: 0 },
            "transfer: %6 is defined at instruction 0",
        ),
        (
            Physical {
                name: "$r12".to_string(),
            },
            "transfer: $r12 is a physical register, which LiveVariables does not track here",
        ),
        (
            UndefSource,
            "findKill, add/removeKill, addNewBlock: the source is undef, nothing is read",
        ),
        (
            FindKill { reg: 2, inst: 1 },
            "findKill: %2 dies at instruction 1 in this block",
        ),
        (NoKill { reg: 2 }, "findKill: %2 does not die in this block"),
        (
            KillStays { reg: 2 },
            "add/removeKill: %2's kill stays where it is",
        ),
        (
            NotAlive { reg: 2 },
            "addNewBlock: %2 dies in this block, so it is no longer alive through it",
        ),
        (
            AliveUnchanged { reg: 2 },
            "addNewBlock: %2's alive blocks are unchanged",
        ),
    ];
    let mut log = Vec::new();
    for (s, _) in &cases {
        LvSteps::log(&mut log, s);
    }
    let steps = LvSteps::from_log(log);
    assert_eq!(steps.len(), cases.len());
    for ((want, text), got) in cases.iter().zip(steps.iter()) {
        assert_eq!(&got, want);
        assert_eq!(got.to_string(), *text);
    }
    let json = serde_json::to_string(&steps).unwrap();
    assert!(
        json.starts_with("[\"removeKill: %3 no longer dies at instruction 300000\",\"addKill"),
        "{json}"
    );
    assert_eq!(serde_json::to_string(&LvSteps::default()).unwrap(), "[]");
}

#[test]
fn tie_attempts_and_registers_print_as_sentences() {
    let cases = [
        (TieAttempt::NotCommutableOperand { base: 2, c1: 1, c2: 3 }, "commute: operand 2 is not one of the commutable operands 1 and 3"),
        (TieAttempt::NotProfitable { base: 5, base_killed: true, other_killed: false, why: "" }, "commute: not profitable (%5 dies here: true, the other operand dies here: false)"),
        (TieAttempt::NotProfitable { base: 5, base_killed: false, other_killed: true, why: "it would not help" }, "commute: not profitable (%5 dies here: false, the other operand dies here: true; it would not help)"),
        (TieAttempt::RescheduleFailed { kill_above: true, why: "the kill cannot move" }, "reschedule kill above: the kill cannot move"),
        (TieAttempt::Rescheduled { kill_above: false }, "reschedule below kill: done"),
    ];
    for (a, text) in cases {
        assert_eq!(a.to_string(), text);
    }
    assert_eq!(
        serde_json::to_string(&RegText::Virt(12)).unwrap(),
        "\"%12\""
    );
    assert_eq!(
        serde_json::to_string(&RegText::Named("$r1".into())).unwrap(),
        "\"$r1\""
    );
    let live = NumberedText {
        template: "live: \u{1} reader(s)",
        value: 3,
    };
    assert_eq!(live.to_string(), "live: 3 reader(s)");
    assert_eq!(NumberedText::plain("unread").to_string(), "unread");
}
