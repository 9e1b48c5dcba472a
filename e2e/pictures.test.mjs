// Pass pictures against the built site (dist/): the EXTRACT_SUBREG fan-out on tex-v4f32,
// the GeneralOptimize grid on select-fold, the side-by-side layout (kept in the link),
// and export of a picture as SVG and PNG. Screenshots go to e2e/out/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mkdir, readFile } from 'node:fs/promises';
import { OUT_DIR, urlFrom, launch, openApp, runState } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

let browser;
before(async () => {
  await mkdir(OUT_DIR, { recursive: true });
  browser = await launch({ viewport: { width: 1600, height: 1000 } });
});
after(async () => {
  await browser?.close();
});

const url = () => urlFrom('COPYSCOPE_URL');
const out = (name) => fileURLToPath(new URL(name, OUT_DIR));

async function open(fragment) {
  const { page, errors } = await openApp(browser.context, url() + fragment);
  await runState(page, 'done');
  return { page, errors };
}

async function axeSerious(page) {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const result = await globalThis.axe.run(document);
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((x) => x.target.join(' ')).join(' | ')}`);
  });
}

test('the EXTRACT_SUBREG fan-out of tex-v4f32 grows pair by pair and the kill moves', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=3');
  const svg = page.locator('.picture-panel .fanout-svg');
  await svg.waitFor();
  // Step 3: the first pair is a COPY, the kill is still on the pseudo.
  assert.equal(await svg.locator('g.pair').count(), 4);
  assert.equal(await svg.locator('rect.copy').count(), 1);
  assert.equal(await svg.locator('g.pair.current').getAttribute('data-pair'), '0');
  assert.equal(await svg.locator('.kill-badge').count(), 1);
  assert.equal(await svg.locator('g.pair .kill-badge').count(), 0);
  // Step 6: all four COPYs, hint bits on pairs 2-4, the kill on the last COPY.
  await page.goto(`${url()}#example=tex-v4f32&stage=two-address&step=6`);
  await runState(page, 'done');
  await page.locator('.picture-panel .fanout-svg rect.copy').nth(3).waitFor();
  assert.equal(await svg.locator('rect.copy').count(), 4);
  assert.equal(await svg.locator('rect.bit.on').count(), 6);
  assert.equal(await svg.locator('g.pair[data-pair="3"] .kill-badge').count(), 1);
  const defs = await svg.locator('g.pair text.code').allTextContents();
  assert.deepEqual(defs, ['%5 = COPY %4.sub0', '%6 = COPY %4.sub1', '%7 = COPY %4.sub2', '%8 = COPY %4.sub3']);
  await page.locator('.picture-panel').screenshot({ path: out('picture-tex-v4f32-two-address.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the GeneralOptimize grid of select-fold shows the rounds recorded so far', async () => {
  const { page, errors } = await open('#example=select-fold&stage=general-optimize&step=3');
  const svg = page.locator('.picture-panel .go-svg');
  await svg.waitFor();
  // Step 3 is the first round: one cell, marked changed; one 0x100 mark.
  assert.equal(await svg.locator('g.grid-cell').count(), 1);
  assert.equal(await svg.locator('rect.cell.changed').count(), 1);
  assert.equal(await svg.locator('g.mark-row').count(), 1);
  await page.getByRole('button', { name: 'Last step', exact: true }).click();
  await page.locator('.picture-panel .go-svg rect.cell.converged').waitFor();
  assert.equal(await svg.locator('g.grid-cell').count(), 3);
  const rounds = await svg.locator('g.grid-cell').evaluateAll((cells) => cells.map((c) => c.dataset.round));
  assert.deepEqual(rounds, ['1', '2', '3']);
  await page.locator('.picture-panel').screenshot({ path: out('picture-select-fold-general-optimize.png') });
  // Phase 37 draws its cost curve against the threshold.
  await page.locator('li.stage[data-stage-id="general-optimize-mid"] button').click();
  await page.getByRole('button', { name: 'Last step', exact: true }).click();
  await page.locator('.picture-panel .go-svg line.threshold').waitFor({ state: 'attached' });
  assert.deepEqual(errors, []);
  await page.close();
});

test('three pictures side by side, each stepped on its own, kept in the link', async () => {
  const { page, errors } = await open('#example=tex-v4f32');
  await page.getByRole('combobox', { name: 'Layout' }).selectOption('side-by-side');
  const slots = page.locator('.picture-slot');
  await slots.nth(2).waitFor();
  assert.deepEqual(
    await slots.evaluateAll((s) => s.map((x) => x.dataset.stageId)),
    ['two-address', 'nvptx-coalescer', 'general-optimize'],
  );
  // Each slot starts at its input; step the fan-out to its second COPY.
  await page.locator('.picture-slot').nth(0).locator('.fanout-svg').waitFor();
  assert.match(await slots.nth(0).locator('.slot-counter').textContent(), /^Step 0 of/);
  assert.ok(await page.getByRole('button', { name: 'First step of the EXTRACT_SUBREG fan-out picture', exact: true }).isDisabled());
  const next = page.getByRole('button', { name: 'Next step of the EXTRACT_SUBREG fan-out picture', exact: true });
  for (let i = 0; i < 4; i++) await next.click();
  await page.waitForFunction(() => document.querySelector('.picture-slot .slot-counter')?.textContent.startsWith('Step 4 of'));
  await page.locator('.picture-slot').nth(0).locator('rect.copy').nth(1).waitFor();
  assert.equal(await slots.nth(0).locator('rect.copy').count(), 2);
  // The coalescing slot shows its step (the payload table until its picture lands).
  await slots.nth(1).locator('.slot-body > *').first().waitFor();
  await slots.nth(2).locator('.go-svg').waitFor();
  await page.screenshot({ path: out('pictures-side-by-side.png') });
  const violations = await axeSerious(page);
  assert.deepEqual(violations, []);
  // Copy link, reopen: the layout and the slot steps come back.
  await page.getByRole('button', { name: /copy link/i }).click();
  await page.waitForFunction(() => window.location.hash.startsWith('#v1.'));
  const link = page.url();
  const again = await browser.context.newPage();
  await again.goto(link);
  await again.locator('.picture-slot').nth(0).locator('rect.copy').nth(1).waitFor({ timeout: 60_000 });
  assert.match(await again.locator('.picture-slot .slot-counter').first().textContent(), /^Step 4 of/);
  assert.equal(await again.locator('.picture-slot').nth(0).locator('rect.copy').count(), 2);
  await again.close();
  assert.deepEqual(errors, []);
  await page.close();
});

test('a picture exports as a valid SVG file and a non-empty PNG', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=6');
  await page.locator('.picture-panel .fanout-svg rect.copy').nth(3).waitFor();
  const [svgDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export the pass picture as SVG', exact: true }).click(),
  ]);
  assert.equal(svgDownload.suggestedFilename(), 'copyscope-two-address-step6.svg');
  const svgText = await readFile(await svgDownload.path(), 'utf8');
  assert.match(svgText, /^<svg[\s>]/);
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return {
      root: doc.documentElement.localName,
      ns: doc.documentElement.namespaceURI,
      errors: doc.getElementsByTagName('parsererror').length,
      copies: doc.querySelectorAll('rect.copy').length,
    };
  }, svgText);
  assert.deepEqual(parsed, { root: 'svg', ns: 'http://www.w3.org/2000/svg', errors: 0, copies: 4 });
  const [pngDownload] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export the pass picture as PNG', exact: true }).click(),
  ]);
  assert.equal(pngDownload.suggestedFilename(), 'copyscope-two-address-step6.png');
  const png = await readFile(await pngDownload.path());
  assert.ok(png.length > 2000, `PNG is ${png.length} bytes`);
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.deepEqual(errors, []);
  await page.close();
});
