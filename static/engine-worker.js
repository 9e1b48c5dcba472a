// CopyScope's engine in a Web Worker (a module worker started by web-app/src/engine.rs).
// The page sends one boot message: the URL of the engine's wasm-bindgen JS ("glue",
// copyscope-engine.js) and the engine's compiled WebAssembly module. Instantiating it
// here runs the engine binary's main(), which sees a worker scope and starts the message
// loop; that answers "ready" and then every request. Nothing here parses or runs the
// pipeline itself.
//
// The proof's interpreters are a third wasm (copyscope-proof, the web-proof crate),
// loaded here the first time the engine asks for a proof (after the view it belongs to
// is shown): `copyscopeProve(job)` takes a stage's proof job as postcard bytes and
// resolves to the finished proof's bytes (web-engine/src/worker.rs). Like the engine's,
// its file names carry no hash, so both files are revalidated ("no-cache").
let prover = null;

function loadProver() {
  const glue = new URL('./copyscope-proof.js', self.location.href).href;
  const wasm = new URL('./copyscope-proof_bg.wasm', self.location.href).href;
  const fetched = (url) =>
    fetch(url, { cache: 'no-cache' }).then((r) =>
      r.ok ? r : Promise.reject(new Error(`${url}: HTTP ${r.status}`)));
  return fetched(glue).then(async () => {
    const api = await import(glue);
    await api.default({ module_or_path: fetched(wasm) });
    return api;
  });
}

self.copyscopeProve = (job) => {
  prover ??= loadProver().catch((error) => {
    prover = null; // try again for the next proof
    throw error;
  });
  return prover.then((api) => {
    try {
      return api.prove(job);
    } catch (error) {
      prover = null; // a trapped instance is not used again
      throw error;
    }
  });
};

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
