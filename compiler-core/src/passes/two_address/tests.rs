//! Replay of a real pass's steps: the trace player's checkpoints, whatever their
//! spacing, seek to the functions two-address produced (the test lives with the pass,
//! so `trace` does not import `passes`).

use crate::mir::{parse_module, print_function};
use crate::trace::{Checkpoints, Player, StepLog};

/// Two-address on a four-lane EXTRACT_SUBREG: every spacing seeks to the same text.
#[test]
fn any_spacing_seeks_to_the_same_function() {
    let text = "---\nname: k\ntracksRegLiveness: true\nnoPhis: true\nbody: |\n  bb.0:\n    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &k_param_0, 0\n    %4:float32regsx4 = TEX_2D_V4F32_F32 %0, 0, 0\n    %5:float32regs, %6:float32regs, %7:float32regs, %8:float32regs = EXTRACT_SUBREG %4.sub0, %4.sub1, %4.sub2, killed %4.sub3\n    %9:float32regs = FADDf32rr killed %5, killed %6\n    %10:float32regs = FADDf32rr killed %7, killed %8\n    ST_i32 killed %9, 0, 0, 1, 32, %0, 0\n    ST_i32 killed %10, 0, 0, 1, 32, killed %0, 4\n    Return\n...\n";
    let input = parse_module(text).unwrap().functions.remove(0);
    let mut f = input.clone();
    let mut log = StepLog::default();
    super::run(&mut f, &super::TwoAddressOptions::default(), &mut log);
    let steps = log.steps;
    assert!(steps.len() > 4);
    let player = Player::new(&input, &steps).unwrap();
    let mut scratch = input.clone();
    let mut moved = input.clone();
    let mut at = 0;
    for every in [1, 2, 3, 100] {
        let cp = Checkpoints::build(&input, &steps, every).unwrap();
        // Seeking into a reused function, back and forth, gives what a fresh copy
        // gives; so does moving one function from step to step by redo and undo.
        for n in (0..=steps.len()).chain((0..=steps.len()).rev()) {
            cp.seek_into(&steps, n, &mut scratch).unwrap();
            let fresh = cp.seek(&steps, n).unwrap();
            assert_eq!(print_function(&scratch), print_function(&fresh), "into {n}");
            assert!(
                scratch.insts.values().eq(fresh.insts.values()),
                "storage {n}"
            );
            assert_eq!(scratch.vreg_end, fresh.vreg_end);
            cp.seek_from(&steps, at, n, &mut moved).unwrap();
            at = n;
            assert_eq!(print_function(&moved), print_function(&fresh), "from {n}");
            assert_eq!(moved.vreg_end, fresh.vreg_end);
        }
        for n in 0..=steps.len() + 1 {
            assert_eq!(
                print_function(&cp.seek(&steps, n).unwrap()),
                print_function(&player.seek(n).unwrap()),
                "every {every}, step {n}"
            );
        }
    }
    let last = Checkpoints::build(&input, &steps, 2).unwrap();
    assert_eq!(
        print_function(&last.seek(&steps, steps.len()).unwrap()),
        print_function(&f)
    );
    assert!(
        last.seek(steps.range(1..), 1).is_err(),
        "other steps are refused"
    );
}
