// The `cargo xtask serve` path. `cargo xtask test` starts `trunk serve` with the same
// command line `cargo xtask serve` uses (a free port instead of 8080, and a dist directory
// under target/ so dist/ is untouched) and passes its URL here. Checked: Trunk's server
// answers, builds the dev profile and the page it serves renders all 14 stages without
// errors. Skipped when COPYSCOPE_SERVE_URL is not set.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { STAGE_IDS, launch, openApp, stageIds } from './support.mjs';

const url = process.env.COPYSCOPE_SERVE_URL;

let browser;
before(async () => {
  if (url) browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('trunk serve (as cargo xtask serve runs it) serves the playground', { skip: !url && 'COPYSCOPE_SERVE_URL not set' }, async () => {
  const { page, errors } = await openApp(browser.context, url);
  assert.deepEqual(await stageIds(page), STAGE_IDS);
  assert.deepEqual(errors, []);
  await page.close();
});
