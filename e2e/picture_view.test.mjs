// Issue 30's "layout for pictures": presenter mode at 1920×1080 gives the picture most of
// the width and draws it large; the picture zooms (Fit, 100 % … 300 %) and pans by
// dragging; after each step the panel scrolls itself so the step's subject (the tree
// node it touched) is in view, without moving the page.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { OUT_DIR, urlFrom, launch, openApp, runState, stepCounter } from './support.mjs';

const url = () => urlFrom('COPYSCOPE_URL');
const shot = (page, name) => page.screenshot({ path: fileURLToPath(new URL(name, OUT_DIR)) });

before(async () => {
  await mkdir(OUT_DIR, { recursive: true });
});

/** Sizes on screen (px) of every visible text of the panel's drawings, smallest first. */
async function labelSizes(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.picture-panel svg text')]
      .filter((t) => t.getClientRects().length > 0 && t.textContent.trim() !== '')
      .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a)
      .sort((a, b) => a - b));
}

async function open(context, fragment, layout = null) {
  const { page, errors } = await openApp(context, url() + fragment);
  await runState(page, 'done');
  if (layout) {
    await page.getByRole('combobox', { name: 'Layout' }).selectOption(layout);
    await page.locator(`.layout-${layout}`).waitFor();
  }
  await page.locator('.picture-panel #picture-body svg').first().waitFor();
  return { page, errors };
}

test('presenter at 1920×1080: the picture takes most of the width, drawn large, the narration large', async () => {
  const browser = await launch({ viewport: { width: 1920, height: 1080 } });
  try {
    for (const [fragment, what] of [
      ['#example=tex-v4f32&stage=two-address&step=3', '.fanout-svg'],
      ['#example=phi-swap&stage=nvptx-coalescer&step=49', '.tree-svg'],
      ['#example=iteration-cap&stage=general-optimize&step=5', '.go-svg'],
    ]) {
      const { page: standard } = await open(browser.context, fragment);
      const narration = await standard.locator('.narration-text').evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
      await standard.close();
      const { page, errors } = await open(browser.context, fragment, 'presenter');
      const width = await page.locator('.picture-panel').evaluate((e) => e.getBoundingClientRect().width);
      assert.ok(width >= 0.55 * 1920, `${fragment}: picture column ${Math.round(width)} px of 1920`);
      const drawing = await page.locator(`.picture-panel ${what}`).evaluate((e) => e.getBoundingClientRect().width);
      assert.ok(drawing >= 0.85 * width || drawing >= 1.9 * (await page.locator(`.picture-panel ${what}`).evaluate((e) => e.viewBox.baseVal.width)),
        `${fragment}: drawing ${Math.round(drawing)} px in a ${Math.round(width)} px column`);
      const sizes = await labelSizes(page);
      assert.ok(sizes[0] >= 15, `${fragment}: smallest label ${sizes[0].toFixed(1)} px in presenter mode`);
      if (what === '.tree-svg') {
        // The layout change resized the tree: the node the step touched is in view again.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const inside = await page.evaluate(() => {
          const [n, p] = ['.picture-panel .rb-node.touched', '#picture-body'].map((s) => document.querySelector(s).getBoundingClientRect());
          return n.top >= p.top - 1 && n.bottom <= p.bottom + 1 && n.left >= p.left - 1 && n.right <= p.right + 1;
        });
        assert.ok(inside, `${fragment}: the touched node is out of view in presenter mode`);
      }
      const big = await page.locator('.narration-text').evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
      assert.ok(big >= 1.3 * narration, `${fragment}: narration ${narration} → ${big} px`);
      // The page itself does not scroll.
      assert.ok(await page.evaluate(() => document.documentElement.scrollHeight <= innerHeight + 1));
      await shot(page, `presenter-${what.slice(1)}.png`);
      assert.deepEqual(errors, []);
      await page.close();
    }
  } finally {
    await browser.close();
  }
});

test('the picture zooms from Fit to 300 % and pans by dragging', async () => {
  const browser = await launch({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, errors } = await open(browser.context, '#example=tex-v4f32&stage=two-address&step=3');
    const svg = page.locator('.picture-panel .fanout-svg');
    const level = page.locator('.picture-panel .zoom-level');
    const zoomIn = page.getByRole('button', { name: 'Zoom in' });
    const zoomOut = page.getByRole('button', { name: 'Zoom out' });
    const fit = page.getByRole('button', { name: 'Fit the picture' });
    assert.equal((await level.textContent()).trim(), 'fitted');
    assert.equal(await zoomOut.getAttribute('aria-disabled'), 'true');
    const fitWidth = await svg.evaluate((e) => e.getBoundingClientRect().width);
    // Keeping the current pair in view leaves the drawing's title readable.
    const head = await page.evaluate(() => {
      const [t, b] = ['.fanout-svg text.head', '#picture-body'].map((s) => document.querySelector(s).getBoundingClientRect());
      return t.left >= b.left - 1;
    });
    assert.ok(head, 'the fan-out title is scrolled out of view');
    const fitLabels = await labelSizes(page);
    assert.ok(fitLabels[0] >= 10.99, `${fitLabels[0]}`);
    await zoomIn.click();
    assert.equal((await level.textContent()).trim(), '100 %');
    const own = await svg.evaluate((e) => [e.getBoundingClientRect().width, e.viewBox.baseVal.width]);
    // (plus the 1 px border on each side of the fan-out)
    assert.ok(Math.abs(own[0] - own[1]) <= 2, `at 100 % the drawing is its own width: ${own}`);
    await zoomIn.click();
    await zoomIn.click();
    assert.equal((await level.textContent()).trim(), '150 %');
    const zoomed = await labelSizes(page);
    assert.ok(Math.abs(zoomed[0] - 1.5 * 11) < 0.2, `150 %: smallest label ${zoomed[0]}`);
    await zoomIn.click();
    await zoomIn.click();
    assert.equal((await level.textContent()).trim(), '300 %');
    assert.equal(await zoomIn.getAttribute('aria-disabled'), 'true');
    await zoomIn.click({ force: true });
    assert.equal((await level.textContent()).trim(), '300 %');
    // Pan: dragging left and up moves the view right and down.
    const body = page.locator('#picture-body');
    const start = await body.evaluate((b) => [b.scrollLeft, b.scrollTop + b.closest('.picture-panel').scrollTop, b.scrollWidth > b.clientWidth]);
    assert.equal(start[2], true, 'the zoomed drawing is wider than its column');
    const box = await body.boundingBox();
    await page.mouse.move(box.x + box.width * 0.7, box.y + 120);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.3, box.y + 60, { steps: 5 });
    await page.mouse.up();
    const end = await body.evaluate((b) => [b.scrollLeft, b.scrollTop + b.closest('.picture-panel').scrollTop]);
    assert.ok(end[0] > start[0] + 100, `scrollLeft ${start[0]} → ${end[0]}`);
    assert.ok(end[1] > start[1], `scrollTop ${start[1]} → ${end[1]}`);
    await shot(page, 'picture-zoom-300.png');
    // Fit brings back the column's own size; the zoom buttons are keyboard buttons.
    await fit.focus();
    await page.keyboard.press('Enter');
    assert.equal((await level.textContent()).trim(), 'fitted');
    assert.ok(Math.abs((await svg.evaluate((e) => e.getBoundingClientRect().width)) - fitWidth) < 1);
    assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Fit the picture');
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await browser.close();
  }
});

test('after each step the tree node it touched is in view inside the picture panel', async () => {
  const browser = await launch({ viewport: { width: 1280, height: 800 } });
  try {
    const { page, errors } = await open(browser.context, '#example=phi-swap&stage=nvptx-coalescer&step=1');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    const total = Number((await stepCounter(page)).match(/of (\d+)/)[1]);
    let checked = 0;
    let hidden = 0;
    for (let step = 2; step <= Math.min(total, 30); step++) {
      await page.getByRole('button', { name: 'Next step', exact: true }).click();
      await page.locator(`.coalesce-picture[data-step="${step}"]`).waitFor();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const r = await page.evaluate(() => {
        const node = document.querySelector('.picture-panel .rb-node.touched');
        if (!node) return null;
        const rect = (e) => e.getBoundingClientRect();
        const [n, p] = [rect(node), rect(document.querySelector('.picture-panel'))];
        return { inside: n.top >= p.top - 1 && n.bottom <= p.bottom + 1 && n.left >= p.left - 1 && n.right <= p.right + 1, page: scrollY };
      });
      if (!r) continue;
      checked++;
      if (!r.inside) hidden++;
      assert.equal(r.page, 0, 'the page did not scroll');
    }
    assert.ok(checked >= 10, `${checked} tree steps checked`);
    assert.equal(hidden, 0, `${hidden} of ${checked} touched nodes out of view`);
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await browser.close();
  }
});
