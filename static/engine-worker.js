// CopyScope's engine in a Web Worker (a module worker started by web-app/src/engine.rs).
// The page sends one boot message: the URL of its wasm-bindgen JS ("glue") and its
// compiled WebAssembly module. Loading them here starts the same binary as the page; its
// main() sees a worker scope and runs the engine's message loop, which answers "ready"
// and then every request. Nothing here parses or runs the pipeline itself.
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
