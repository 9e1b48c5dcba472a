//! The proof on screen runs the real checkers: the verifier (in the engine) and the
//! interpreters (here, the proof wasm's code) on each stage's input and output, green on
//! the gallery, red when the output is broken. Each job crosses the wire as it does in
//! the browser (postcard bytes).

use compiler_core::examples::{find, EXAMPLES};
use compiler_core::Stage;
use web_engine::proof::{self, Proof, ProofJob, Status};
use web_engine::protocol::*;
use web_engine::Session;

/// `stage`'s proof as the page gets it: the engine's job, over the wire, proven, kept by
/// the session; the next view of the stage carries it.
fn prove(s: &mut Session, stage: Stage) -> Proof {
    assert!(s.view(stage, 0).unwrap().proof.is_none(), "not proven yet");
    let job = s.proof_job(stage).unwrap().expect("a job, the first time");
    assert!(s.proof_job(stage).unwrap().is_none(), "asked once");
    let job: ProofJob = decode(&encode(&job).unwrap()).unwrap();
    let p = web_proof::prove(&job);
    s.set_proof(stage, p.clone());
    let shown = s.view(stage, 0).unwrap().proof.expect("kept");
    assert_eq!(*shown, p);
    p
}

fn session(name: &str, fault: Option<&str>) -> (Session, RunSummary) {
    let source = find(name).unwrap().text(None).unwrap().1;
    let req = RunRequest {
        source: source.into(),
        fault: fault.map(String::from),
        ..RunRequest::default()
    };
    Session::run(1, &req, &mut |_| {}).unwrap()
}

fn proof_of(name: &str, stage: Stage, fault: Option<&str>) -> Proof {
    let (mut s, _) = session(name, fault);
    prove(&mut s, stage)
}

#[test]
fn a_mir_stage_is_verified_and_interpreted_on_its_input_and_output() {
    let p = proof_of("tex-v4f32", Stage::TwoAddress, None);
    assert_eq!(p.verifier.status, Status::Pass, "{p:?}");
    assert_eq!(p.interpreter.status, Status::Pass, "{p:?}");
    assert_eq!(
        p.launches.len() as u64,
        proof::LAUNCHES,
        "one function, every seed"
    );
    assert!(
        p.launches.iter().all(|l| l.equal && !l.values.is_empty()),
        "{p:?}"
    );
    assert_eq!(
        p.interpreter.text,
        format!("results equal on {} launches", proof::LAUNCHES)
    );
    // The words shown are the run's memory: before and after agree word for word.
    for l in &p.launches {
        assert!(
            l.values.iter().all(|(_, b, a)| b == a && !b.is_empty()),
            "{l:?}"
        );
    }
}

#[test]
fn an_ori_stage_is_verified_and_interpreted() {
    let p = proof_of("iteration-cap", Stage::GeneralOptimize, None);
    assert_eq!(p.status(), Status::Pass, "{p:?}");
    assert!(p.verifier.text.contains("ORI rules"), "{p:?}");
    assert!(!p.launches.is_empty());
}

#[test]
fn a_broken_output_shows_red_with_the_launch_that_differs() {
    let p = proof_of("tex-v4f32", Stage::TwoAddress, Some("two-address"));
    assert_eq!(p.status(), Status::Fail, "{p:?}");
    assert_eq!(p.interpreter.status, Status::Fail, "{p:?}");
    assert!(
        p.fault
            .as_deref()
            .unwrap()
            .contains("erased the last store"),
        "{p:?}"
    );
    assert!(p.interpreter.text.starts_with("results differ on"), "{p:?}");
    let bad = p.launches.iter().find(|l| !l.equal).unwrap();
    assert!(
        bad.values.iter().any(|(_, b, a)| b != a),
        "the differing words are shown: {bad:?}"
    );
    // Other stages of the same run are untouched.
    let (mut s, _) = session("tex-v4f32", Some("two-address"));
    let q = prove(&mut s, Stage::RegisterCoalescer);
    assert_eq!(q.status(), Status::Pass, "{q:?}");
}

#[test]
fn a_broken_ori_output_shows_red() {
    let p = proof_of(
        "iteration-cap",
        Stage::GeneralOptimize,
        Some("general-optimize"),
    );
    assert_eq!(p.interpreter.status, Status::Fail, "{p:?}");
}

/// Every gallery example's every stage: no MIR or ORI stage fails its proof, and the
/// stages that cannot be checked in the page say why.
#[test]
fn the_gallery_proves_or_says_why_not() {
    let mut proven = 0;
    let mut across = 0;
    for e in EXAMPLES {
        let (mut s, summary) = session(e.name, None);
        for st in &summary.stages {
            let p = prove(&mut s, st.stage);
            assert_ne!(p.status(), Status::Fail, "{} {}: {p:?}", e.name, st.stage);
            let kinds = st.stage.info();
            if kinds.input != kinds.output && p.interpreter.status == Status::Pass {
                across += 1;
            }
            if p.status() == Status::Unknown {
                eprintln!(
                    "{} {}: {} / {}",
                    e.name, st.stage, p.verifier.text, p.interpreter.text
                );
                assert!(
                    !p.interpreter.details.is_empty() || !p.verifier.details.is_empty(),
                    "{} {}: {p:?}",
                    e.name,
                    st.stage
                );
            } else {
                proven += 1;
            }
        }
    }
    eprintln!("{proven} stages proven; {across} IR-changing stages interpreted equal");
    assert!(
        across >= 60,
        "ptx-emit, ptx-lower and ptx-out compare across IRs: {across}"
    );
    assert!(proven >= 40, "{proven} stages proven");
}

/// The e2e suite's large MIR (e2e/support.mjs `generatedMir`): one function of
/// `4 + 7 × units` instructions.
fn generated_mir(units: usize) -> String {
    let mut out = String::from(
        "---\nname: big\ntracksRegLiveness: true\nnoPhis: true\nbody: |\n  bb.0.entry:\n    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &big_param_0, 0\n    %1:float32regs = LD_f32 0, 0, 101, 3, 32, -1, &big_param_1, 0\n    %2:float32regs = LD_f32 0, 0, 101, 3, 32, -1, &big_param_2, 0\n    %3:float32regs = COPY %1\n",
    );
    let mut acc = 3;
    for u in 0..units {
        let r = |k: usize| 4 + 10 * u + k;
        let (t, a, b, c, d) = (r(0), r(1), r(2), r(3), r(4));
        let (s1, s2, s3, n, cp) = (r(5), r(6), r(7), r(8), r(9));
        out += &format!("    %{t}:float32regsx4 = TEX_2D_V4F32_F32 %0, %1, %2\n");
        out += &format!("    %{a}:float32regs, tied-hint early-tied %{b}:float32regs, tied-hint early-tied %{c}:float32regs, tied-hint early-tied %{d}:float32regs = EXTRACT_SUBREG %{t}.sub0, %{t}.sub1, %{t}.sub2, killed %{t}.sub3\n");
        out += &format!("    %{s1}:float32regs = FADDf32rr killed %{a}, killed %{b}\n");
        out += &format!("    %{s2}:float32regs = FADDf32rr killed %{c}, killed %{d}\n");
        out += &format!("    %{s3}:float32regs = FADDf32rr killed %{s1}, killed %{s2}\n");
        out += &format!("    %{n}:float32regs = FADDf32rr killed %{acc}, killed %{s3}\n");
        out += &format!("    %{cp}:float32regs = COPY killed %{n}\n");
        acc = cp;
    }
    out += &format!("    ST_i32 killed %{acc}, 0, 0, 1, 32, killed %0, 0\n    Return\n...\n");
    out
}

/// A stage whose every function is too large to interpret is finished in the engine:
/// no job for the proof wasm, so its first view needs no second one.
#[test]
fn a_stage_too_large_to_interpret_is_finished_by_the_engine() {
    let req = RunRequest {
        source: generated_mir(1000),
        ..RunRequest::default()
    };
    let (mut s, summary) = Session::run(1, &req, &mut |_| {}).unwrap();
    for st in &summary.stages {
        let job = s.proof_job(st.stage).unwrap().unwrap();
        let p = &job.proof;
        if st.stage.info().input == compiler_core::stages::IrKind::Mir {
            assert!(job.check.is_none(), "{}: {p:?}", st.stage);
            assert_eq!(p.interpreter.status, Status::Unknown, "{p:?}");
            assert_eq!(
                p.interpreter.text, "`big`: over 5000 instructions, not interpreted in the page",
                "{}",
                st.stage
            );
            assert_eq!(web_proof::prove(&job), job.proof);
        }
    }
}
