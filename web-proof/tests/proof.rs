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
