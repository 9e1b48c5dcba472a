// The register under the mouse is highlighted in both IR panes and in the picture
// (issue 30, "IR panes a reader can follow"): hovering a register in one place outlines
// every drawing of the same register, and nothing else.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { urlFrom, launch, openApp, runState } from './support.mjs';

let browser;
before(async () => {
  browser = await launch({ viewport: { width: 1280, height: 800 } });
});
after(async () => {
  await browser?.close();
});

/** Outline style of every element drawing register `name` in `scope`. */
const outlines = (page, scope, name) =>
  page.locator(`${scope} [data-hreg="${name}"]`).evaluateAll((els) => els.map((e) => getComputedStyle(e).outlineStyle));

/** A register drawn in the picture (`sel`) that both panes also show. */
async function sharedRegister(page, sel) {
  const names = await page.locator(`${sel}[data-hreg], ${sel} [data-hreg]`).evaluateAll((els) => els.map((e) => e.dataset.hreg));
  for (const n of names) {
    const inBefore = await page.locator(`.ir-before [data-hreg="${n}"]`).count();
    const inAfter = await page.locator(`.ir-after [data-hreg="${n}"]`).count();
    if (inBefore > 0 && inAfter > 0) return n;
  }
  throw new Error(`no register of ${sel} in both panes: ${names}`);
}

for (const [fragment, picture, drawn] of [
  ['#example=tex-v4f32&stage=two-address&step=3', '.fanout-svg', (el) => getComputedStyle(el).fill],
  ['#example=phi-swap&stage=nvptx-coalescer&step=7', '.tree-svg .rb-node', (el) => getComputedStyle(el.querySelector('circle')).strokeWidth],
]) {
  test(`hovering a register highlights it in both panes and the picture: ${fragment}`, async () => {
    const { page, errors } = await openApp(browser.context, urlFrom('COPYSCOPE_URL') + fragment);
    await runState(page, 'done');
    await page.locator('.ir-after .code-line').first().waitFor();
    await page.locator(picture).first().waitFor();
    const name = await sharedRegister(page, picture);
    const pic = page.locator(`${picture}[data-hreg="${name}"], ${picture} [data-hreg="${name}"]`).first();
    const idle = await pic.evaluate(drawn);
    // Hover it in the Before pane: the After pane and the picture light up.
    await page.locator(`.ir-before [data-hreg="${name}"]`).first().hover();
    assert.ok((await outlines(page, '.ir-after', name)).every((s) => s === 'solid'), 'after pane');
    assert.ok((await outlines(page, '.ir-before', name)).every((s) => s === 'solid'), 'before pane');
    assert.notEqual(await pic.evaluate(drawn), idle, 'the picture marks the same register');
    // Another register stays plain.
    const other = await page.locator('.ir-after [data-hreg]').evaluateAll((els, n) => els.map((e) => e.dataset.hreg).find((h) => h !== n), name);
    if (other) assert.ok((await outlines(page, '.ir-after', other)).every((s) => s === 'none'), `other ${other}`);
    // Hover it in the picture: the panes light up too.
    await page.locator('.narration-heading').hover();
    assert.ok((await outlines(page, '.ir-after', name)).every((s) => s === 'none'), 'cleared');
    await pic.hover({ force: true });
    assert.ok((await outlines(page, '.ir-before', name)).every((s) => s === 'solid'), 'from the picture');
    assert.deepEqual(errors, []);
    await page.close();
  });
}
