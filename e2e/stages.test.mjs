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

  // After the default example (MIR) ran: step counts where stages ran; the emitter,
  // which reads DAGs, did not run and says so.
  await runState(page, 'done');
  const badge = (id) => page.locator(`li.stage[data-stage-id="${id}"] .stage-badge`).textContent();
  assert.match(await badge('two-address'), /^\d+ steps?$/);
  assert.equal(await badge('instr-emitter'), 'not run');
  const emitter = page.locator('li.stage[data-stage-id="instr-emitter"]');
  assert.match(await emitter.locator('.stage-summary').textContent(), /did not reach this stage/);

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

  // A stage the run did not reach says why instead of showing steps.
  await page.locator('li.stage[data-stage-id="instr-emitter"] button').click();
  await page.locator('li.stage.selected[data-stage-id="instr-emitter"]').waitFor();
  assert.match(await page.locator('.narration-text').textContent(), /starts at two-address, after instr-emitter/);
  assert.deepEqual(errors, []);
  await page.close();
});
