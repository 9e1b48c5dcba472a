// The built site (trunk build --release, served from dist/ by `cargo xtask test`): the
// stage timeline: all 14 stages in order with accessible names, what the run did at
// each, and choosing a stage by mouse and by keyboard.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { mkdir } from 'node:fs/promises';
import { STAGE_IDS, PHASES, OUT_DIR, urlFrom, launch, openApp, stageIds, runState } from './support.mjs';

let browser;
before(async () => {
  await mkdir(OUT_DIR, { recursive: true });
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('the page lists all 14 stages in pipeline order', async () => {
  const { page, errors } = await openApp(browser.context, urlFrom('COPYSCOPE_URL'));
  assert.equal(await page.title(), 'CopyScope');
  assert.deepEqual(await stageIds(page), STAGE_IDS);

  const list = page.getByRole('list', { name: 'Pipeline stages' });
  assert.equal(await list.getByRole('listitem').count(), STAGE_IDS.length);
  for (const id of STAGE_IDS) {
    // Each stage button is named by its number, id, phase and step count.
    const button = list.getByRole('button', { name: new RegExp(`\\b${id}\\b`) });
    assert.ok((await button.count()) >= 1, id);
  }
  const phases = await page.locator('.stage-phase').allTextContents();
  assert.deepEqual(phases, PHASES.map((p) => `phase ${p}`));

  // After the default example ran: step counts where stages ran; a stage with no
  // implementation is drawn dashed and says so in its description.
  await runState(page, 'done');
  const badge = (id) => page.locator(`li.stage[data-stage-id="${id}"] .stage-badge`).textContent();
  assert.match(await badge('two-address'), /^\d+ steps?$/);
  const ptxOut = page.locator('li.stage[data-stage-id="ptx-out"]');
  assert.match(await ptxOut.getAttribute('class'), /not-implemented/);
  assert.match(await ptxOut.locator('.stage-summary').textContent(), /Not implemented yet/);

  await page.screenshot({ path: fileURLToPath(new URL('stages.png', OUT_DIR)) });
  assert.deepEqual(errors, []);
  await page.close();
});

test('choosing a stage highlights it alone, by mouse and by keyboard', async () => {
  const { page, errors } = await openApp(browser.context, urlFrom('COPYSCOPE_URL'));
  await runState(page, 'done');
  const current = page.locator('button.stage-select[aria-current="step"]');
  assert.equal(await current.count(), 1);

  await page.locator('li.stage[data-stage-id="register-coalescer"] button').click();
  await page.locator('li.stage.selected[data-stage-id="register-coalescer"]').waitFor();
  assert.equal(await current.count(), 1);
  assert.equal(await current.locator('.stage-id').textContent(), 'register-coalescer');

  // Arrow keys move between stage buttons; Enter picks one.
  await page.locator('li.stage[data-stage-id="register-coalescer"] button').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await page.locator('li.stage.selected[data-stage-id="nvptx-coalescer"]').waitFor();
  assert.equal(await current.count(), 1);

  // A stage with no implementation says so instead of showing steps.
  await page.locator('li.stage[data-stage-id="ptx-out"] button').click();
  await page.locator('li.stage.selected[data-stage-id="ptx-out"]').waitFor();
  assert.match(await page.locator('.narration-text').textContent(), /not implemented yet/);
  assert.deepEqual(errors, []);
  await page.close();
});
