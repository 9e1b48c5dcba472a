//! The DAG input path's wasm: one export, `emit(job)`, which the engine calls with a
//! `web_engine::dag_front::DagJob` as postcard bytes and which answers with
//! `Result<HandedFront, HandedError>` in its own byte form (`dag_front::answer`;
//! static/lazy-wasm.js loads this file the first time a DAG is run).

#[cfg(target_family = "wasm")]
mod exports {
    use wasm_bindgen::prelude::*;

    /// instr-emitter's run on the job's DAG; a job that cannot be read is an error.
    #[wasm_bindgen]
    pub fn emit(job: &[u8]) -> Vec<u8> {
        web_engine::dag_front::answer(job, web_dag::emit)
    }
}

fn main() {}
