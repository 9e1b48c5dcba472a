// CopyScope's engine in a Web Worker (a module worker started by web-app/src/engine.rs).
// The page sends one boot message: the URL of the engine's wasm-bindgen JS ("glue",
// copyscope-engine.js) and the engine's compiled WebAssembly module. Instantiating it
// here runs the engine binary's main(), which sees a worker scope and starts the message
// loop; that answers "ready" and then every request. Nothing here parses or runs the
// pipeline itself.
//
// Two more wasms are loaded here on first use (lazy-wasm.js):
// - the proof's interpreters (copyscope-proof, the web-proof crate), the first time the
//   engine asks for a proof (after the view it belongs to is shown): `copyscopeProve(job)`
//   takes a stage's proof job as postcard bytes and resolves to the finished proof's
//   bytes (web-engine/src/worker.rs);
// - the DAG input path (copyscope-dag, the web-dag crate: the DAG reader and
//   instr-emitter), the first time a SelectionDAG is run: `copyscopeEmit(job)` takes the
//   DAG job as postcard bytes and resolves to instr-emitter's run and MIR as bytes
//   (web-engine/src/dag_front.rs).
// lazy-wasm.js itself is imported on first use too, so that nothing delays the
// `onmessage` below (the page posts the boot message right away).
const lazy = (name, fn) => {
  let call = null;
  return async (arg) => {
    call ??= import('./lazy-wasm.js')
      .then((m) => m.lazyExport(name, fn))
      .catch((error) => {
        call = null; // try again next time
        throw error;
      });
    return (await call)(arg);
  };
};
self.copyscopeProve = lazy('copyscope-proof', 'prove');
self.copyscopeEmit = lazy('copyscope-dag', 'emit');

self.onmessage = async (event) => {
  self.onmessage = null;
  const { glue, module } = event.data;
  try {
    const bindings = await import(glue);
    await bindings.default({ module_or_path: module });
  } catch (error) {
    self.postMessage({ crashed: { message: `the engine could not load: ${error}` } });
  }
};
