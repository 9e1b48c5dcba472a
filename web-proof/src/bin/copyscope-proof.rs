//! The proof checker's wasm: one export, `prove(job)`, which the engine's worker calls
//! with a stage's [`web_engine::proof::ProofJob`] as postcard bytes and which answers
//! with the finished proof, `Result<Proof, String>` as postcard bytes
//! (static/engine-worker.js loads this file the first time a proof is wanted).

#[cfg(target_family = "wasm")]
mod exports {
    use wasm_bindgen::prelude::*;
    use web_engine::proof::{Proof, ProofJob};
    use web_engine::protocol::{decode, encode};

    /// The finished proof of a job; a job that cannot be read is an error, in words.
    #[wasm_bindgen]
    pub fn prove(job: &[u8]) -> Vec<u8> {
        let proof: Result<Proof, String> = decode::<ProofJob>(job).map(|j| web_proof::prove(&j));
        encode(&proof).unwrap_or_default()
    }
}

fn main() {}
