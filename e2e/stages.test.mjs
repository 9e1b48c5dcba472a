// The built site (trunk build --release, served from dist/ by `cargo xtask test`):
// the stage timeline, selection, accessibility in both colour schemes.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mkdir } from 'node:fs/promises';
import { STAGE_IDS, PHASES, OUT_DIR, urlFrom, launch, openApp, stageIds } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

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
    assert.equal(await list.getByRole('button', { name: id, exact: true }).count(), 1, id);
  }
  const phases = await page.locator('.stage-phase').allTextContents();
  assert.deepEqual(phases, PHASES.map((p) => `phase ${p}`));

  await page.screenshot({ path: fileURLToPath(new URL('stages.png', OUT_DIR)), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test('choosing a stage highlights it alone, by mouse and by keyboard', async () => {
  const { page, errors } = await openApp(browser.context, urlFrom('COPYSCOPE_URL'));
  const current = page.locator('button.stage-select[aria-current="step"]');
  assert.equal(await current.count(), 0);

  await page.getByRole('button', { name: 'two-address', exact: true }).click();
  await page.locator('li.stage.selected[data-stage-id="two-address"]').waitFor();
  assert.equal(await current.count(), 1);
  assert.equal(await current.locator('.stage-id').textContent(), 'two-address');

  const button = page.getByRole('button', { name: 'ptx-out', exact: true });
  await button.focus();
  await page.keyboard.press('Enter');
  await page.locator('li.stage.selected[data-stage-id="ptx-out"]').waitFor();
  assert.equal(await current.count(), 1);
  assert.equal(await page.locator('li.stage.selected').getAttribute('data-stage-id'), 'ptx-out');
  assert.deepEqual(errors, []);
  await page.close();
});

for (const colorScheme of ['light', 'dark']) {
  test(`no axe-core violations in the ${colorScheme} theme`, async () => {
    const { page } = await openApp(browser.context, urlFrom('COPYSCOPE_URL'));
    await page.emulateMedia({ colorScheme });
    // Select one stage so the highlighted style is scanned too.
    await page.getByRole('button', { name: 'register-coalescer', exact: true }).click();
    await page.locator('li.stage.selected').waitFor();
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const result = await globalThis.axe.run(document);
      return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes)`);
    });
    if (colorScheme === 'dark') {
      await page.screenshot({ path: fileURLToPath(new URL('stages-dark.png', OUT_DIR)), fullPage: true });
    }
    assert.deepEqual(violations, []);
    await page.close();
  });
}
