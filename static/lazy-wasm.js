// A wasm of CopyScope's loaded the first time one of its exports is called (the proof's
// interpreters, copyscope-proof; the DAG input path, copyscope-dag). Used by the engine's
// worker (engine-worker.js) and by the page for the JS API (index.html). Like the
// engine's, these files' names carry no hash, so both are revalidated ("no-cache").
// `lazyExport(name, fn)` is a function of one argument that loads dist/<name>.js and
// <name>_bg.wasm on its first call and resolves to the export's answer; a failed load is
// tried again on the next call, and an instance that trapped is not used again.
export function lazyExport(name, fn) {
  let loaded = null;
  const load = () => {
    const glue = new URL(`./${name}.js`, self.location.href).href;
    const wasm = new URL(`./${name}_bg.wasm`, self.location.href).href;
    const fetched = (url) =>
      fetch(url, { cache: 'no-cache' }).then((r) =>
        r.ok ? r : Promise.reject(new Error(`${url}: HTTP ${r.status}`)));
    return fetched(glue).then(async () => {
      const api = await import(glue);
      await api.default({ module_or_path: fetched(wasm) });
      return api;
    });
  };
  return (arg) => {
    loaded ??= load().catch((error) => {
      loaded = null; // try again next time
      throw error;
    });
    return loaded.then((api) => {
      try {
        return api[fn](arg);
      } catch (error) {
        loaded = null; // a trapped instance is not used again
        throw error;
      }
    });
  };
}
