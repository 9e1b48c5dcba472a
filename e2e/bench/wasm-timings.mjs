// `cargo xtask bench --wasm`: the pipeline's speed as the playground runs it, in
// headless Chromium, through the JS API of the release build (dist/).
//
// For the largest gallery example (the most steps in a whole traced run) and every stage
// from its entry, times `run(source, {until: stage})` and reports each stage as the
// difference from the run that stops one stage earlier (so parsing and the stages before
// are not counted twice), plus the whole run. Tracing is on, as in the page. Each figure
// is the mean of a batch of runs (performance.now() is coarse in a page), best of REPS.
// Then it times the page itself: open the example's link and wait until the Web
// Worker's run is done and the view is drawn.
//
// Prints one JSON object on stdout; xtask turns it into docs/bench-wasm.md.

import { launch, openApp, runState, urlFrom, waitForApi } from '../support.mjs';

const REPS = Number(process.env.COPYSCOPE_WASM_REPS || 7);

const url = urlFrom('COPYSCOPE_URL');
const browser = await launch();
try {
  const { page, errors } = await openApp(browser.context, url);
  await waitForApi(page);
  const result = await page.evaluate(async (reps) => {
    const api = window.wasmBindings;
    const lines = (s) => s.split('\n').length;
    // `run` of a DAG source answers with a Promise (the DAG wasm is loaded on demand),
    // of any other source with the result itself: `await` takes both.
    // The largest example: the most steps in a whole traced run.
    const stepsOf = async (e) =>
      (await api.run(e.source, {})).stages.reduce((n, s) => n + s.steps, 0);
    const sized = [];
    for (const e of api.examples()) sized.push({ e, steps: await stepsOf(e) });
    const { e: largest, steps: totalSteps } = sized.reduce((a, b) => (b.steps > a.steps ? b : a));
    const stages = api.stages().map((s) => s.id);
    // performance.now() is coarse in a page (0.1 ms), so each figure is the mean over
    // a batch of runs lasting at least BATCH_MS; the best of `reps` batches.
    const BATCH_MS = 40;
    const best = async (f) => {
      let min = Infinity;
      let out = null;
      for (let i = 0; i < reps; i++) {
        let n = 0;
        const t0 = performance.now();
        let t = t0;
        do {
          out = await f();
          n += 1;
          t = performance.now();
        } while (t - t0 < BATCH_MS);
        min = Math.min(min, (t - t0) / n);
      }
      return { ms: min, out };
    };
    // The first run after load meets baseline-compiled code (V8 tiers hot functions up
    // later): reported apart, then a second of warm-up before anything is measured.
    const f0 = performance.now();
    await api.run(largest.source, {});
    const firstMs = performance.now() - f0;
    const w0 = performance.now();
    while (performance.now() - w0 < 1000) await api.run(largest.source, {});
    const whole = await best(() => api.run(largest.source, {}));
    const ran = whole.out.stages.map((s) => s.id);
    const rows = [];
    let before = 0;
    for (const id of ran) {
      const r = await best(() => api.run(largest.source, { until: id }));
      const steps = r.out.stages[r.out.stages.length - 1].steps;
      rows.push({ stage: id, cumulativeMs: r.ms, stageMs: Math.max(0, r.ms - before), steps });
      before = r.ms;
    }
    return {
      example: largest.name,
      format: largest.format,
      sourceLines: lines(largest.source),
      totalSteps,
      examples: sized.length,
      knownStages: stages.length,
      wholeMs: whole.ms,
      firstMs,
      rows,
      userAgent: navigator.userAgent,
    };
  }, REPS);

  // The page: open the example's link in a fresh page (wasm load and compile, engine
  // start in its Web Worker, the run, the first view) until the run shows as done.
  const pageRuns = [];
  for (let i = 0; i < Math.min(REPS, 5); i++) {
    const fresh = await browser.context.newPage();
    const t0 = Date.now();
    await fresh.goto(`${url}#example=${result.example}`);
    await runState(fresh, 'done');
    pageRuns.push(Date.now() - t0);
    await fresh.close();
  }
  result.pageFirstMs = pageRuns[0];
  result.pageMs = Math.min(...pageRuns);
  result.errors = errors;
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await browser.close();
}
