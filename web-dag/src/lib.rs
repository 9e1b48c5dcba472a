//! The DAG input path in its own wasm (`copyscope-dag`, `src/bin/copyscope-dag.rs`),
//! which the engine's worker loads the first time a SelectionDAG input is run: the DAG
//! reader and instr-emitter (`compiler_core::pipeline::run_dag_front`), the input's
//! first stage. The engine gets back instr-emitter's run and the MIR it left
//! (`web_engine::dag_front`) and runs the other stages; a MIR or PTX input never loads
//! this file.

use compiler_core::knobs::Knobs;
use compiler_core::pipeline::run_dag_front;
use compiler_core::{InputFormat, RunOptions};
use web_engine::dag_front::{DagJob, HandedError, HandedFront};

/// instr-emitter's run on the job's DAG, as it crosses back to the engine.
pub fn emit(job: &DagJob) -> Result<HandedFront, HandedError> {
    let knobs = Knobs::from_query(&job.knobs).map_err(|e| HandedError::Failed(e.to_string()))?;
    let opts = RunOptions {
        from: Some(InputFormat::Dag),
        knobs,
        trace: true,
        verify: job.verify,
        ..RunOptions::default()
    };
    match run_dag_front(&job.source, &opts) {
        Ok(front) => Ok(HandedFront::new(&front)),
        Err(e) => Err(HandedError::new(&e)),
    }
}
