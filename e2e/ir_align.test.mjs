// Issue 30's "IR panes a reader can follow": Before and After are aligned row by row (a
// line diff puts a hatched blank row opposite each inserted or erased line, so every
// unchanged line sits beside itself) and scroll together, down and sideways.

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

const url = () => urlFrom('COPYSCOPE_URL');

/** The drawn rows of a pane by their top offset: the line's text, or null for a blank row. */
function paneRows(selector) {
  const pane = document.querySelector(selector);
  const text = (r) => {
    const code = r.querySelector('.code')?.cloneNode(true);
    if (!code) return null;
    code.querySelectorAll('.visually-hidden').forEach((h) => h.remove());
    return code.textContent.replace(/\u200b/g, '');
  };
  const window = pane.querySelector('.code-window');
  const base = parseFloat(window.style.transform.match(/translateY\((-?[\d.]+)px\)/)?.[1] ?? '0');
  return {
    total: Math.round(parseFloat(pane.querySelector('.code-spacer').style.height) / 20),
    rows: [...pane.querySelectorAll('.code-line')].map((r) => ({
      row: Math.round((base + r.offsetTop) / 20),
      text: r.classList.contains('blank') ? null : text(r),
      mark: [...r.classList].find((c) => c.startsWith('mark-')) ?? null,
    })),
  };
}

test('tex-v4f32 two-address step 3: the new COPY faces a blank row and every other line sits beside itself', async () => {
  const { page, errors } = await openApp(browser.context, `${url()}#example=tex-v4f32&stage=two-address&step=3`);
  await runState(page, 'done');
  await page.locator('.ir-after .mark-inserted').waitFor();
  const [b, a] = [await page.evaluate(paneRows, '.ir-before'), await page.evaluate(paneRows, '.ir-after')];
  assert.equal(b.total, a.total, 'both panes have the same number of rows');
  const at = (pane, row) => pane.rows.find((r) => r.row === row);
  const inserted = a.rows.filter((r) => r.mark === 'mark-inserted');
  assert.equal(inserted.length, 1);
  assert.match(inserted[0].text, /COPY/);
  assert.equal(at(b, inserted[0].row)?.text, null, 'a blank row opposite the inserted COPY');
  let same = 0;
  for (const r of a.rows) {
    const other = at(b, r.row);
    if (!other || r.row === inserted[0].row) continue;
    if (r.mark === null && other.mark === null) {
      assert.equal(other.text, r.text, `row ${r.row}`);
      same++;
    }
  }
  assert.ok(same > 10, `${same} unchanged rows compared`);
  // The blank row is not read out, and is hatched.
  const blank = page.locator('.ir-before .code-line.blank');
  assert.equal(await blank.count(), 1);
  assert.equal(await blank.getAttribute('aria-hidden'), 'true');
  assert.match(await blank.evaluate((e) => getComputedStyle(e).backgroundImage), /repeating-linear-gradient/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the Before and After panes scroll together, down and sideways, from either side', async () => {
  const { page, errors } = await openApp(browser.context, `${url()}#example=phi-swap&stage=phi-elimination&step=3`);
  await runState(page, 'done');
  await page.locator('.ir-after .code-line').first().waitFor();
  const offsets = () => page.evaluate(() => ['.ir-before', '.ir-after'].map((s) => {
    const e = document.querySelector(s);
    return [e.scrollTop, e.scrollLeft, e.scrollHeight > e.clientHeight, e.scrollWidth > e.clientWidth];
  }));
  const [b0] = await offsets();
  assert.ok(b0[2] && b0[3], `the panes must overflow both ways for this test: ${b0}`);
  for (const [from, to] of [['.ir-before', '.ir-after'], ['.ir-after', '.ir-before']]) {
    const target = await page.locator(from).evaluate((e) => {
      e.scrollTop = e.scrollTop + 60 <= e.scrollHeight - e.clientHeight ? e.scrollTop + 60 : 0;
      e.scrollLeft = e.scrollLeft ? 0 : 40;
      return [e.scrollTop, e.scrollLeft];
    });
    await page.waitForFunction(([s, t]) => {
      const e = document.querySelector(s);
      return e.scrollTop === t[0] && e.scrollLeft === t[1];
    }, [to, target]);
    // The other pane draws the rows now in view.
    const first = await page.locator(to).evaluate((e) => {
      const rows = [...e.querySelectorAll('.code-line')];
      const box = e.getBoundingClientRect();
      return rows.some((r) => Math.abs(r.getBoundingClientRect().top - box.top) < 21);
    });
    assert.ok(first, `${to} draws its rows at the new offset`);
  }
  // Mouse-wheel scrolling over one pane moves both.
  const box = await page.locator('.ir-after').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const before = (await offsets())[0][0];
  await page.mouse.wheel(0, 100);
  await page.waitForFunction((t) => document.querySelector('.ir-before').scrollTop !== t, before);
  const [x, y] = await offsets();
  assert.equal(x[0], y[0]);
  assert.deepEqual(errors, []);
  await page.close();
});
