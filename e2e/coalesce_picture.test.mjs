// The coalescing picture on the built site (dist/, release build): phi-loop at
// nvptx-coalescer (bars, the red-black tree, the heap's candidate, the interference
// verdict) and at register-coalescer (bars and the conflict verdict), screenshots in
// e2e/out/, reduced motion, and an axe-core scan of the picture.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mkdir } from 'node:fs/promises';
import { OUT_DIR, urlFrom, launch, openApp, runState, stepCounter } from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

let browser;
before(async () => {
  await mkdir(OUT_DIR, { recursive: true });
  // Tall enough that the whole picture panel fits without scrolling.
  browser = await launch({ viewport: { width: 1600, height: 1300 } });
});
after(async () => {
  await browser?.close();
});

const url = () => urlFrom('COPYSCOPE_URL');
const out = (name) => fileURLToPath(new URL(name, OUT_DIR));

/** Opens phi-loop at `stage` step 1 and steps until the verdict `verdict` is shown. */
async function openAtVerdict(stage, verdict) {
  const { page, errors } = await openApp(browser.context, `${url()}#example=phi-loop&stage=${stage}&step=1`);
  await runState(page, 'done');
  await page.locator('.coalesce-picture[data-step="1"]').waitFor();
  const next = page.getByRole('button', { name: 'Next step', exact: true });
  for (let i = 0; i < 60; i++) {
    if (await page.locator(`.verdict[data-verdict="${verdict}"]`).count()) break;
    const before = await stepCounter(page);
    await next.click();
    await page.waitForFunction((b) => document.querySelector('.step-counter').textContent.trim() !== b, before);
    const step = (await stepCounter(page)).match(/^Step (\d+) of/)[1];
    await page.locator(`.coalesce-picture[data-step="${step}"]`).waitFor();
  }
  await page.locator(`.verdict[data-verdict="${verdict}"]`).waitFor();
  return { page, errors };
}

test('phi-loop at nvptx-coalescer: bars, the red-black tree, the candidate and the interference', async () => {
  const { page, errors } = await openAtVerdict('nvptx-coalescer', 'interference');
  // Twelve live segments in the tree (six registers, each split in two by the loop, as
  // web-engine's phi_loop_shows_the_conflict_the_tree_and_the_heap counts them since
  // the tree holds segments), each a node with a colour letter; exactly one root.
  const nodes = page.locator('.rb-tree .rb-node');
  assert.equal(await nodes.count(), 12);
  const letters = await nodes.evaluateAll((ns) => ns.map((n) => [n.dataset.color, n.querySelector('.node-colour').textContent, n.dataset.parent]));
  for (const [colour, letter] of letters) assert.equal(letter, colour === 'red' ? 'R' : 'B');
  assert.equal(letters.filter((l) => l[2] === '').length, 1);
  // The candidate: the heap names it and its tree nodes and bar rows are marked.
  const current = page.locator('.heap-current');
  assert.equal(await current.getAttribute('data-dst'), '11');
  assert.equal(await current.getAttribute('data-src'), '12');
  assert.ok((await page.locator('.rb-node.candidate').count()) >= 2);
  assert.equal(await page.locator('.bar-row[data-role="dst"]').getAttribute('data-reg'), '11');
  // The verdict's overlapping segments, in red, on both rows.
  for (const reg of ['11', '12']) {
    assert.ok((await page.locator(`.bar-row[data-reg="${reg}"] .conflict-span`).count()) >= 1, `%${reg}`);
  }
  assert.match(await page.locator('.picture-caption').textContent(), /red span/);
  // Accessible names for both drawings.
  assert.equal(await page.locator('.tree-svg > title').textContent(), 'Red-black interval tree');
  assert.ok((await page.locator('.bars-svg > desc').textContent()).length > 20);
  await page.screenshot({ path: out('picture-phi-loop-nvptx-coalescer.png') });
  await page.locator('.picture-panel').screenshot({ path: out('picture-phi-loop-nvptx-coalescer-panel.png') });
  // Reduced motion: no transitions on the tree.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const transition = await page.locator('.rb-node').first().evaluate((n) => getComputedStyle(n).transitionDuration);
  assert.equal(transition, '0s');
  await page.emulateMedia({ reducedMotion: 'no-preference' });
  assert.notEqual(await page.locator('.rb-node').first().evaluate((n) => getComputedStyle(n).transitionDuration), '0s');
  assert.deepEqual(errors, []);
  await page.close();
});

test('phi-loop at register-coalescer: interval bars and the conflict verdict', async () => {
  const { page, errors } = await openAtVerdict('register-coalescer', 'conflict');
  const rows = page.locator('.interval-bars .bar-row');
  assert.ok((await rows.count()) >= 3);
  assert.equal(await page.locator('.bar-row[data-reg="12"]').getAttribute('data-role'), 'dst');
  // Registers joined earlier are listed on their survivor's row.
  assert.notEqual(await page.locator('.bar-row[data-reg="12"]').getAttribute('data-joined'), '');
  assert.ok((await page.locator('.bar-row[data-reg="12"] .conflict-span').count()) >= 1);
  assert.ok((await page.locator('.bar-row[data-reg="11"] .conflict-span').count()) >= 1);
  // The generic coalescer has no tree or heap.
  assert.equal(await page.locator('.rb-tree').count(), 0);
  await page.screenshot({ path: out('picture-phi-loop-register-coalescer.png') });
  await page.locator('.picture-panel').screenshot({ path: out('picture-phi-loop-register-coalescer-panel.png') });
  assert.deepEqual(errors, []);
  await page.close();
});

for (const colorScheme of ['light', 'dark']) {
  test(`the coalescing picture has no serious or critical axe-core violations (${colorScheme})`, async () => {
    const { page } = await openAtVerdict('nvptx-coalescer', 'interference');
    await page.emulateMedia({ colorScheme });
    await page.addScriptTag({ path: AXE });
    const found = await page.evaluate(async () => {
      const result = await globalThis.axe.run(document.querySelector('.picture-panel'));
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
    });
    assert.deepEqual(found, []);
    if (colorScheme === 'dark') await page.locator('.picture-panel').screenshot({ path: out('picture-phi-loop-nvptx-coalescer-dark.png') });
    await page.close();
  });
}
