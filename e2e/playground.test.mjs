// The playground's main flows against the built site (dist/, release build): stepping
// through two-address on tex-v4f32, permalinks (copied, short, corrupted), inline source
// errors, knobs, the diff, keyboard, the JS API, a 20 000-instruction input that must not
// freeze the page, a 1280×720 projector, and axe-core scans in both themes.
// Screenshots go to e2e/out/.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { mkdir } from 'node:fs/promises';
import {
  OUT_DIR,
  STAGE_IDS,
  urlFrom,
  launch,
  openApp,
  runState,
  stepCounter,
  pickStage,
  currentStage,
  generatedMir,
  waitForApi,
} from './support.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

const BAD_MIR = [
  '---',
  'name: broken',
  'body: |',
  '  bb.0:',
  '    %0:b32 = MOV_B32_i 1',
  '    %1:b32 = ADD32rr %0, ,',
  '    Return',
  '...',
  '',
].join('\n');

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

/** Opens the page (optionally at a fragment) and waits for the first run. */
async function open(fragment = '', context = browser.context) {
  const { page, errors } = await openApp(context, url() + fragment);
  await runState(page, 'done');
  return { page, errors };
}

/** Clicks "Next step" until the counter says `step`. */
async function stepTo(page, step) {
  const next = page.getByRole('button', { name: 'Next step', exact: true });
  for (let i = 0; i < 100; i++) {
    const m = (await stepCounter(page)).match(/^Step (\d+) of/);
    if (m && Number(m[1]) >= step) break;
    await next.click();
  }
  assert.match(await stepCounter(page), new RegExp(`^Step ${step} of \\d+$`));
}

/** The view at two-address step 3 of tex-v4f32, as the acceptance test describes it. */
async function expectTexStep3(page) {
  assert.equal(await currentStage(page), 'two-address');
  assert.match(await stepCounter(page), /^Step 3 of \d+$/);
  const narration = page.locator('.narration-text');
  await page.waitForFunction(() => document.querySelector('.narration-text')?.textContent.includes('Pair 1 of 4'));
  const text = await narration.textContent();
  // The narration names the pair being split: the def, the lane and the source.
  assert.match(text, /Pair 1 of 4: %5 takes lane sub0 of %4 through a new COPY/);
  // The IR after the step highlights the new COPY, and only it.
  const inserted = page.locator('.ir-after .code-line.mark-inserted');
  await inserted.first().waitFor();
  assert.equal(await inserted.count(), 1);
  assert.match(await inserted.textContent(), /%5:float32regs = COPY %4\.sub0/);
  // The pane before the step marks the EXTRACT_SUBREG the COPY goes in front of.
  assert.match(await page.locator('.ir-before .code-line.mark-focus').first().textContent(), /EXTRACT_SUBREG/);
}

test('tex-v4f32: two-address step 3 splits the first pair; a copied link reopens the view', async () => {
  const { page, errors } = await open();
  // Pick the example from the gallery, through its search.
  await page.getByRole('tab', { name: 'Examples' }).click();
  await page.getByRole('searchbox', { name: 'Search examples' }).fill('tex-v4f32');
  await page.locator('[data-example="tex-v4f32"]').click();
  await runState(page, 'done');
  // A knob away from its default, so the link must carry it.
  await page.getByRole('tab', { name: /^Knobs/ }).click();
  await page.locator('#knob-dataflow-edge-limit').fill('5');
  await page.locator('[data-run-state="queued"], [data-run-state="running"]').first().waitFor();
  await runState(page, 'done');
  await page.getByRole('tab', { name: 'Source' }).click();

  await pickStage(page, 'two-address');
  await stepTo(page, 3);
  await expectTexStep3(page);
  assert.match(await page.locator('.payload-table').textContent(), /extract_subreg_pair/);
  await shot(page, 'two-address-step3.png');

  await page.getByRole('button', { name: 'Copy link' }).click();
  const field = page.getByRole('textbox', { name: 'Link to this view' });
  await field.waitFor();
  const link = await field.inputValue();
  assert.match(link, /#v1\.[A-Za-z0-9_-]+$/);
  assert.equal(await page.evaluate(() => location.href), link, 'the address bar holds the link');

  // A fresh browser (new profile) opening the link sees the same view.
  const fresh = await launch();
  try {
    const { page: again, errors: errors2 } = await openApp(fresh.context, link);
    await runState(again, 'done');
    await expectTexStep3(again);
    await again.getByRole('tab', { name: /^Knobs/ }).click();
    assert.equal(await again.locator('#knob-dataflow-edge-limit').inputValue(), '5');
    assert.match(await again.getByRole('tab', { name: /^Knobs/ }).textContent(), /Knobs \(1\)/);
    assert.deepEqual(errors2, []);
  } finally {
    await fresh.close();
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('the short link #example=tex-v4f32&stage=two-address&step=3 opens that view', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=3');
  await expectTexStep3(page);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a malformed source shows an inline error at its line and the page keeps working', async () => {
  const { page, errors } = await open();
  const editor = page.getByRole('textbox', { name: /^Source text/ });
  await editor.fill(BAD_MIR);
  await runState(page, 'failed');
  assert.deepEqual(await page.locator('.gutter-line.has-error').allTextContents(), ['6']);
  await page.locator('.editor-highlight .code-line.has-error .error-caret').waitFor();
  const listed = await page.locator('#source-errors').textContent();
  assert.match(listed, /Line 6, column \d+:/);
  assert.equal(await editor.getAttribute('aria-invalid'), 'true');
  assert.match(await page.locator('.narration-text').textContent(), /could not be run/);
  await shot(page, 'editor-error.png');

  // The error entry moves the cursor to the error.
  await page.locator('#source-errors button').first().click();
  const caret = await editor.evaluate((el) => el.value.slice(0, el.selectionStart).split('\n').length);
  assert.equal(caret, 6);

  // Still working: fix the line and step again.
  await editor.fill(BAD_MIR.replace('%0, ,', '%0, %0'));
  await runState(page, 'done');
  assert.equal(await page.locator('.gutter-line.has-error').count(), 0);
  await page.getByRole('button', { name: 'Next step', exact: true }).click();
  assert.match(await stepCounter(page), /^Step 1 of \d+$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a corrupted or cut link shows a message and the default example', async () => {
  for (const [fragment, name] of [
    ['#v1.AAAAAAAAAAAAAAAA', 'bad-link.png'],
    ['#v9.abc', null],
    ['#example=does-not-exist', null],
  ]) {
    const { page, errors } = await open(fragment);
    const alert = page.locator('.notice.error[role="alert"]');
    await alert.waitFor();
    assert.match(await alert.textContent(), /could not be read|does not exist/);
    assert.match(await page.locator('.source-origin').textContent(), /tex-v4f32/);
    assert.equal(await currentStage(page), 'two-address');
    if (name) await shot(page, name);
    await page.getByRole('button', { name: 'Dismiss message' }).click();
    assert.equal(await alert.count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  }
  // A real link cut in half.
  const { page } = await open();
  await page.getByRole('button', { name: 'Copy link' }).click();
  const link = await page.getByRole('textbox', { name: 'Link to this view' }).inputValue();
  await page.close();
  const cut = link.slice(link.indexOf('#'), link.indexOf('#') + Math.floor((link.length - link.indexOf('#')) / 2));
  const { page: p2, errors } = await open(cut);
  await p2.locator('.notice.error[role="alert"]').waitFor();
  assert.deepEqual(errors, []);
  await p2.close();
});

test('knobs: a bad value shows an error and changes nothing; help and defaults are shown', async () => {
  const { page, errors } = await open();
  await page.getByRole('tab', { name: /^Knobs/ }).click();
  const field = page.getByRole('textbox', { name: 'copy-limit' });
  await field.fill('lots');
  const error = page.locator('#knob-copy-limit-error');
  await error.waitFor();
  assert.match(await error.textContent(), /not a valid value.*unlimited/);
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('[data-run-state="done"]').count(), 1, 'no rerun for a bad value');
  assert.match(await page.locator('#knob-copy-limit-help').textContent(), /Default unlimited/);
  await shot(page, 'knobs.png');
  await field.fill('2');
  await runState(page, 'done');
  assert.equal(await error.count(), 0);
  await page.getByRole('button', { name: 'Reset all' }).click();
  assert.equal(await field.inputValue(), 'unlimited');
  assert.deepEqual(errors, []);
  await page.close();
});

test('diff between two steps, counters and remarks, skip and play', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=0');
  await page.getByRole('tab', { name: 'Diff' }).click();
  await page.getByRole('button', { name: 'input → end' }).click();
  const summary = page.locator('.diff-summary');
  await summary.waitFor();
  // The four COPYs come in, the EXTRACT_SUBREG goes (and the SSA flag changes).
  assert.match(await summary.textContent(), /Step 0 → step \d+: \d+ lines added, \d+ removed\./);
  assert.equal(await page.locator('.diff-line.added').filter({ hasText: '= COPY' }).count(), 4);
  assert.equal(await page.locator('.diff-line.removed').filter({ hasText: 'EXTRACT_SUBREG' }).count(), 1);
  await shot(page, 'diff.png');

  await page.getByRole('tab', { name: 'Counters & remarks' }).click();
  const stats = page.locator('.stats-table');
  await stats.waitFor();
  assert.match(await stats.textContent(), /extract_subreg_copies\s*4/);
  await page.getByRole('tab', { name: 'Before / after' }).click();

  // Skipping steps that change nothing visits fewer steps.
  const total = Number((await stepCounter(page)).match(/of (\d+)/)[1]);
  await page.getByRole('checkbox', { name: 'Skip steps that change nothing' }).check();
  let visits = 0;
  while (!(await stepCounter(page)).startsWith(`Step ${total} `) && visits < total + 2) {
    await page.getByRole('button', { name: 'Next step', exact: true }).click();
    visits++;
  }
  assert.ok(visits < total, `${visits} visits of ${total} steps`);
  await page.getByRole('checkbox', { name: 'Skip steps that change nothing' }).uncheck();

  // Play runs by itself; Pause stops it.
  await page.getByRole('button', { name: 'First step' }).click();
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('6');
  await page.getByRole('button', { name: 'Play' }).click();
  await page.waitForFunction(() => !document.querySelector('.step-counter').textContent.startsWith('Step 0 '));
  await page.getByRole('button', { name: 'Pause' }).click();
  await page.getByRole('button', { name: 'Play' }).waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});

test('keys act where focus is: IR panes and step controls step, the editor does not', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=2');
  await page.locator('.ir-after').waitFor();
  await page.getByRole('region', { name: 'IR after step 2' }).focus();
  await page.keyboard.press('ArrowRight');
  assert.match(await stepCounter(page), /^Step 3 of/);
  await page.keyboard.press('Home');
  assert.match(await stepCounter(page), /^Step 0 of/);
  await page.keyboard.press('End');
  const total = (await stepCounter(page)).match(/of (\d+)/)[1];
  assert.equal(await stepCounter(page), `Step ${total} of ${total}`);
  // On the step buttons too; a button at the end of its range keeps focus.
  await page.getByRole('button', { name: 'Next step', exact: true }).focus();
  await page.keyboard.press('ArrowLeft');
  assert.match(await stepCounter(page), new RegExp(`^Step ${total - 1} of`));
  await page.keyboard.press('Home');
  assert.match(await stepCounter(page), /^Step 0 of/);
  await page.getByRole('button', { name: 'Previous step' }).focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), 'Previous step');
  await page.keyboard.press('ArrowRight');
  assert.match(await stepCounter(page), /^Step 1 of/);
  // Arrow keys in the editor move the cursor only.
  await page.getByRole('textbox', { name: /^Source text/ }).focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.match(await stepCounter(page), /^Step 1 of/);
  // Ctrl+Enter in the editor runs now.
  await page.keyboard.press('Control+Enter');
  await runState(page, 'done');
  assert.deepEqual(errors, []);
  await page.close();
});

test('the JS API runs the pipeline headless', async () => {
  const { page, errors } = await open();
  await waitForApi(page);
  const result = await page.evaluate(async () => {
    const api = window.wasmBindings;
    const tex = api.examples().find((e) => e.name === 'tex-v4f32');
    // A DAG: its first stage runs in the DAG wasm (loaded now), so `run` answers a Promise.
    const r = await api.run(tex.source, { until: 'two-address', knobs: { 'copy-limit': 3 } });
    let thrown = null;
    try {
      api.run('---\nname: k\nbody: |\n  bb.0:\n    %1:b32 = ADD32rr %0, ,\n...\n');
    } catch (e) {
      thrown = { message: e.message, errors: e.errors };
    }
    return {
      version: api.version(),
      stages: r.stages.map((s) => [s.id, s.steps, s.stats.extract_subreg_copies]),
      thrown,
      link: api.decodeLink('#example=tex-v4f32&stage=two-address&step=3'),
      stageCount: api.stages().length,
    };
  });
  assert.match(result.version, /^\d+\.\d+\.\d+$/);
  assert.equal(result.stages.length, 1);
  assert.equal(result.stages[0][0], 'two-address');
  assert.equal(result.stages[0][2], 4);
  assert.equal(result.thrown.errors[0].line, 5);
  assert.deepEqual(result.link, {
    kind: 'example', source: '', format: null, knobs: '', stage: 'two-address', step: 3, layout: null, name: 'tex-v4f32',
  });
  assert.equal(result.stageCount, 14);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a 20 000-instruction input runs in the worker while the page answers clicks within 200 ms', async () => {
  const { page, errors } = await open();
  const source = generatedMir(2857); // 7 × 2857 + 6 = 20 005 instructions
  assert.equal(source.split('\n').filter((l) => /^ {4}\S/.test(l)).length, 20_005);
  // Put the text in as a paste would (one input event).
  await page.getByRole('textbox', { name: /^Source text/ }).evaluate((el, text) => {
    el.value = text;
    el.dispatchEvent(new InputEvent('input', { bubbles: true }));
  }, source);
  await runState(page, 'running', 30_000);
  const progress = page.getByRole('progressbar', { name: 'Pipeline progress' });
  assert.equal(await progress.count(), 1);
  await shot(page, 'large-input-running.png');

  // While the engine works, the page answers clicks: each click on a tab is measured from
  // the moment the test asks for it (so time the main thread spends blocked counts) to
  // the frame after the tab shows as selected.
  const timings = [];
  for (const tab of ['Examples', 'Knobs', 'Source', 'Examples', 'Source', 'Knobs', 'Source']) {
    const t0 = performance.now();
    const inPage = await page.evaluate(async (name) => {
      const state = document.querySelector('[data-run-state]').dataset.runState;
      const el = [...document.querySelectorAll('[role="tab"]')].find((t) => t.textContent.startsWith(name));
      el.click();
      while (el.getAttribute('aria-selected') !== 'true') await new Promise((r) => setTimeout(r, 0));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return { state };
    }, tab);
    timings.push([inPage.state, Math.round(performance.now() - t0)]);
    if (inPage.state !== 'running') break;
  }
  const during = timings.filter(([state]) => state === 'running');
  assert.ok(during.length >= 2, `too few clicks landed while the run was going: ${JSON.stringify(timings)}`);
  for (const [, ms] of during) assert.ok(ms < 200, `a click took ${ms} ms: ${JSON.stringify(timings)}`);
  console.log(`# clicks during the 20k run answered in (ms): ${during.map(([, ms]) => ms).join(', ')}`);

  await runState(page, 'done', 300_000);
  const badge = await page.locator('li.stage[data-stage-id="two-address"] .stage-badge').textContent();
  const steps = Number(badge.match(/(\d+) steps/)[1]);
  assert.ok(steps > 10_000, badge);
  // Seeking into the middle of the trace works and shows the marked lines.
  await page.getByRole('slider', { name: 'Step' }).evaluate((el, value) => {
    el.value = value;
    el.dispatchEvent(new InputEvent('input', { bubbles: true }));
  }, String(Math.floor(steps / 2)));
  assert.equal(await stepCounter(page), `Step ${Math.floor(steps / 2)} of ${steps}`);
  await page.locator('.ir-after').waitFor();
  await page.waitForFunction(() => document.querySelector('.narration-text')?.getAttribute('aria-busy') !== 'true', null, { timeout: 60_000 });
  await shot(page, 'large-input-done.png');

  // A second run can be cancelled.
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await runState(page, 'running', 30_000);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await runState(page, 'cancelled');
  // And the engine comes back for the next run.
  await page.getByRole('tab', { name: 'Examples' }).click();
  await page.locator('[data-example="commute"]').click();
  await runState(page, 'done', 60_000);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a 1280×720 projector shows the whole playground without page scrolling', async () => {
  const projector = await launch({ viewport: { width: 1280, height: 720 } });
  try {
    const { page, errors } = await openApp(projector.context, `${url()}#example=tex-v4f32&stage=two-address&step=3`);
    await runState(page, 'done');
    await expectTexStep3(page);
    const size = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]);
    assert.ok(size[0] <= 1280 && size[1] <= 720, `page is ${size[0]}×${size[1]}`);
    for (const selector of ['.narration-text', '.ir-after', '.ir-before', '.step-controls', '.picture-panel', '.editor-frame']) {
      const box = await page.locator(selector).boundingBox();
      assert.ok(box && box.y >= 0 && box.y + 40 <= 720 && box.x + box.width <= 1280 + 1, `${selector}: ${JSON.stringify(box)}`);
    }
    await shot(page, 'projector-1280x720.png');
    await page.getByRole('combobox', { name: 'Layout' }).selectOption('presenter');
    await page.locator('.layout-presenter').waitFor();
    await shot(page, 'presenter-1280x720.png');
    assert.deepEqual(errors, []);
    await page.close();
  } finally {
    await projector.close();
  }
});

for (const colorScheme of ['light', 'dark']) {
  test(`no serious or critical axe-core violations in the ${colorScheme} theme`, async () => {
    const { page } = await open('#example=tex-v4f32&stage=two-address&step=3');
    await page.emulateMedia({ colorScheme });
    await expectTexStep3(page);
    await page.addScriptTag({ path: AXE });
    const scan = () =>
      page.evaluate(async () => {
        const result = await globalThis.axe.run(document);
        return result.violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
      });
    const found = [];
    found.push(...(await scan()));
    await shot(page, `playground-${colorScheme}.png`);
    // The other tabs and panels too.
    for (const [tab, selector] of [['Examples', '.gallery-list'], ['Knobs', '.knobs'], ['Diff', '.diff-summary'], ['Counters & remarks', '.stats-table']]) {
      await page.getByRole('tab', { name: new RegExp(`^${tab.replace(/[&]/g, '\\$&')}`) }).click();
      await page.locator(selector).first().waitFor();
      found.push(...(await scan()).map((v) => `[${tab}] ${v}`));
      if (colorScheme === 'light' && tab === 'Examples') await shot(page, 'gallery.png');
    }
    await page.getByRole('tab', { name: 'Source' }).click();
    await page.getByRole('textbox', { name: /^Source text/ }).fill(BAD_MIR);
    await runState(page, 'failed');
    found.push(...(await scan()).map((v) => `[errors] ${v}`));
    assert.deepEqual([...new Set(found)], []);
    await page.close();
  });
}

test('the page paints before the engine loads, and says so when the engine cannot load', async () => {
  // A slow engine: the UI (its own wasm) is up and answering while the engine's wasm is
  // still on its way; the run completes once it arrives.
  const slow = await browser.context.newPage();
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await slow.route('**/copyscope-engine_bg.wasm', async (route) => {
    await held;
    await route.continue();
  });
  await slow.goto(url() + '#example=tex-v4f32');
  await slow.locator('ol.stage-list > li.stage').nth(STAGE_IDS.length - 1).waitFor();
  await slow.getByRole('tab', { name: 'Examples' }).click();
  await slow.locator('.gallery-list').first().waitFor();
  assert.equal(await slow.locator('[data-run-state="done"]').count(), 0, 'ran without the engine');
  assert.equal(await slow.evaluate(() => typeof window.wasmBindings), 'undefined');
  release();
  await runState(slow, 'done');
  await waitForApi(slow);
  await slow.close();

  // No engine at all: the page stays usable and names the failure.
  const broken = await browser.context.newPage();
  await broken.route('**/copyscope-engine_bg.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await broken.goto(url() + '#example=tex-v4f32');
  const alert = broken.getByRole('alert').filter({ hasText: 'could not load' });
  await alert.waitFor();
  assert.match(await alert.textContent(), /copyscope-engine_bg\.wasm: HTTP 404/);
  await broken.getByRole('tab', { name: 'Examples' }).click();
  await broken.locator('.gallery-list').first().waitFor();
  await broken.close();
});
