// CopyScope's engine in a Web Worker (a module worker started by web-app/src/engine.rs).
// The page sends one boot message: the URL of the engine's wasm-bindgen JS ("glue",
// copyscope-engine.js) and the engine's compiled WebAssembly module. Instantiating it
// here runs the engine binary's main(), which sees a worker scope and starts the message
// loop; that answers "ready" and then every request. Nothing here parses or runs the
// pipeline itself.
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
