// Guided tours against the built site (dist/): every gallery example's tour played to
// its end with Next (each stop must show its stage and step in the timeline and the
// step counter, highlight what it talks about, say why it matters and link to our page
// about the mechanism, which the site serves), autoplay, presenter mode, and an
// axe-core scan of the tour card.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mkdir } from 'node:fs/promises';
import { OUT_DIR, urlFrom, launch, openApp, runState, stepCounter, currentStage, waitForApi } from './support.mjs';

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

const url = () => urlFrom('COPYSCOPE_URL');
const shot = (page, name) => page.screenshot({ path: fileURLToPath(new URL(name, OUT_DIR)) });

/** "Stop 3 of 7" → [3, 7]. */
async function stopCounter(page) {
  const text = (await page.locator('.tour-counter').textContent()).trim();
  const m = /^Stop (\d+) of (\d+)$/.exec(text);
  assert.ok(m, `tour counter: ${text}`);
  return [Number(m[1]), Number(m[2])];
}

/** The stage id and step the stop says it shows (" · two-address step 5"). */
async function stopTarget(page) {
  const text = (await page.locator('.tour-spec .muted').textContent()).trim();
  const m = /^· (\S+) step (\d+)$/.exec(text);
  assert.ok(m, `stop target: ${text}`);
  return [m[1], Number(m[2])];
}

/** Waits until the page shows the stop's stage and step, and its IR has arrived. */
async function expectAtStop(page, where) {
  const [stage, step] = await stopTarget(page);
  await page.locator(`li.stage.selected[data-stage-id="${stage}"]`).waitFor();
  await page.waitForFunction(
    (want) => document.querySelector('.step-counter')?.textContent.trim().startsWith(want),
    `Step ${step} of `,
  );
  await page.locator('.narration-text:not([aria-busy])').waitFor();
  assert.equal(await currentStage(page), stage, where);
  assert.match(await stepCounter(page), new RegExp(`^Step ${step} of \\d+$`), where);
  const spec = (await page.locator('.tour-spec cite').textContent()).trim();
  assert.match(spec, /^[a-z-]+\.(txt|md) § .+/, `${where}: spec pointer`);
}

/**
 * The stop highlights what it talks about: some element its target names (a line of the
 * IR panes, a tree node, a live-range row, a fan-out pair, a grid cell) is on the page
 * with the highlight (an outline, or a 4 px stroke on its shapes). Returns its doc link.
 */
async function expectTargetHighlighted(page, where) {
  const sels = (await page.locator('.tour-bar').getAttribute('data-target')) ?? '';
  assert.ok(sels.length > 0, `${where}: the stop names nothing to look at`);
  await page
    .waitForFunction(
      (list) =>
        list.split(' | ').some((sel) => {
          const el = document.querySelector(sel);
          if (!el) return false;
          const shape = el.querySelector('rect, circle, path');
          return getComputedStyle(el).outlineStyle === 'solid' || (shape && getComputedStyle(shape).strokeWidth === '4px');
        }),
      sels,
      { timeout: 10_000 },
    )
    .catch(() => assert.fail(`${where}: nothing of ${sels} is highlighted`));
  const why = (await page.locator('.tour-why').textContent()).trim();
  assert.match(why, /^[A-Z].+\.$/, `${where}: why it matters`);
  const href = await page.locator('.tour-doc').getAttribute('href');
  assert.match(href, /^mechanisms\/[a-z-]+\.html#[a-z0-9-]+$/, `${where}: doc link`);
  return href;
}

test('every gallery example has a tour, and each plays to its end', async () => {
  const { page, errors } = await openApp(browser.context, url());
  await runState(page, 'done');
  await waitForApi(page);
  const names = await page.evaluate(() => window.wasmBindings.examples().map((e) => e.name));
  assert.ok(names.length >= 29, `examples: ${names.length}`);
  let stops = 0;
  const docs = new Set();
  for (const name of names) {
    await page.evaluate((n) => {
      window.location.hash = `example=${n}`;
    }, name);
    const start = page.getByRole('button', { name: `Start the guided tour of ${name}`, exact: true });
    await start.waitFor({ timeout: 60_000 });
    await runState(page, 'done');
    await start.click();
    await page.locator(`.tour-bar[data-tour="${name}"] .tour-counter`).waitFor({ timeout: 30_000 });
    let [k, n] = await stopCounter(page);
    assert.equal(k, 1, name);
    assert.ok(n >= 4, `${name}: ${n} stops`);
    const next = page.getByRole('button', { name: 'Next stop', exact: true });
    for (;;) {
      await expectAtStop(page, `${name} stop ${k}`);
      docs.add(await expectTargetHighlighted(page, `${name} stop ${k}`));
      stops += 1;
      if (k === n) break;
      await next.click();
      await page.waitForFunction(
        (want) => document.querySelector('.tour-counter')?.textContent.trim() === want,
        `Stop ${k + 1} of ${n}`,
      );
      [k, n] = await stopCounter(page);
    }
    assert.ok(await next.isDisabled(), `${name}: Next is off at the last stop`);
    await page.getByRole('button', { name: 'End the tour', exact: true }).click();
    await page.locator('.tour-bar').waitFor({ state: 'detached' });
  }
  assert.ok(stops >= 4 * names.length, `stops visited: ${stops}`);
  // Every page a stop links to is served with the site and has the section.
  for (const href of docs) {
    const [file, anchor] = href.split('#');
    const html = await page.evaluate((f) => fetch(f).then((r) => (r.ok ? r.text() : `HTTP ${r.status}`)), file);
    assert.ok(html.includes(`id="${anchor}"`), `${href}: ${html.slice(0, 80)}`);
  }
  assert.ok(docs.size >= 20, `${docs.size} mechanism sections linked`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('autoplay walks the tour by itself and stops at the end', async () => {
  const { page, errors } = await openApp(browser.context, `${url()}#example=commute`);
  await runState(page, 'done');
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('6');
  await page.getByRole('button', { name: 'Start the guided tour of commute', exact: true }).click();
  await page.locator('.tour-counter').waitFor();
  const [, n] = await stopCounter(page);
  const autoplay = page.getByRole('button', { name: 'Autoplay the tour', exact: true });
  await autoplay.click();
  assert.equal(await autoplay.getAttribute('aria-pressed'), 'true');
  await page.waitForFunction(
    (want) => document.querySelector('.tour-counter')?.textContent.trim() === want,
    `Stop ${n} of ${n}`,
    { timeout: 20_000 },
  );
  await page.waitForFunction(
    () => document.querySelector('[aria-label="Autoplay the tour"]')?.getAttribute('aria-pressed') === 'false',
  );
  await expectAtStop(page, 'autoplay end');
  assert.deepEqual(errors, []);
  await page.close();
});

test('presenter mode shows the tour in large type, with no serious axe-core violations', async () => {
  const projector = await launch({ viewport: { width: 1280, height: 720 } });
  try {
    const { page, errors } = await openApp(projector.context, `${url()}#example=tex-v4f32`);
    await runState(page, 'done');
    await page.getByRole('button', { name: 'Start the guided tour of tex-v4f32', exact: true }).click();
    await page.locator('.tour-counter').waitFor();
    for (let i = 0; i < 3; i++) {
      await page.getByRole('button', { name: 'Next stop', exact: true }).click();
    }
    await page.waitForFunction(() => document.querySelector('.tour-counter')?.textContent.includes('Stop 4 of'));
    await expectAtStop(page, 'tex-v4f32 stop 4');
    const textSize = () => page.locator('.tour-text').evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    const standard = await textSize();
    const present = page.getByRole('button', { name: 'Presenter mode', exact: true });
    await present.click();
    await page.locator('.app.layout-presenter').waitFor();
    assert.equal(await present.getAttribute('aria-pressed'), 'true');
    const size = await textSize();
    assert.ok(size >= 22 && size >= 1.35 * standard, `tour text is ${size}px in presenter mode, ${standard}px otherwise`);
    // The fan-out picture of the stop is on screen beside the IR.
    await page.locator('.picture-panel .fanout-svg').waitFor();
    await shot(page, 'tour-presenter.png');
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const result = await globalThis.axe.run(document);
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((x) => x.target.join(' ')).join(' | ')}`);
    });
    assert.deepEqual(violations, []);
    assert.deepEqual(errors, []);
  } finally {
    await projector.close();
  }
});
