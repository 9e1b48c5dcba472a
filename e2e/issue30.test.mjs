// Issue 30's bugs, each as the flow that showed it, against the built site (dist/): the
// fan-out picture in step with the IR, "skip steps that change nothing" on a PTX stage,
// side by side following the main step bar, the phone layout, the stage after pasting
// PTX, a semantic PTX error marked in the editor, Cancel keeping the last results, the
// address bar following the view, the short link, an out-of-range step reported, the
// pictures in the dark theme, the error bullet, the Run button, picture text of 11 px
// or more, and the skip link. Each test failed against the build before its fix.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { OUT_DIR, urlFrom, launch, openApp, runState, stepCounter, pickStage, currentStage, generatedMir } from './support.mjs';

let browser;
before(async () => {
  await mkdir(OUT_DIR, { recursive: true });
  browser = await launch({ viewport: { width: 1280, height: 800 } });
});
after(async () => {
  await browser?.close();
});

const url = () => urlFrom('COPYSCOPE_URL');
const shot = (page, name) => page.screenshot({ path: fileURLToPath(new URL(name, OUT_DIR)) });

async function open(fragment = '', context = browser.context) {
  const { page, errors } = await openApp(context, url() + fragment);
  await runState(page, 'done');
  return { page, errors };
}

/** Types `text` into the source as one paste (one input event). */
async function paste(page, text) {
  await page.getByRole('textbox', { name: /^Source text/ }).evaluate((el, t) => {
    el.value = t;
    el.dispatchEvent(new InputEvent('input', { bubbles: true }));
  }, text);
}

const next = (page) => page.getByRole('button', { name: 'Next step', exact: true }).click();

/** The IR after the step, as text. */
const afterText = (page) => page.locator('.ir-after').textContent();

test('the fan-out draws the pseudo erased at the step that erases it, not one before', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=6');
  const svg = page.locator('.picture-panel .fanout-svg');
  await svg.locator('rect.copy').nth(3).waitFor();
  // Step 6 made the fourth COPY; the EXTRACT_SUBREG is still in the IR, and in the picture.
  assert.match(await afterText(page), /EXTRACT_SUBREG/);
  assert.equal(await svg.locator('rect.box.gone').count(), 0, 'pseudo drawn erased at step 6');
  assert.equal(await svg.locator('rect.box.pseudo').count(), 1);
  await next(page);
  await page.waitForFunction(() => /^Step 7 of/.test(document.querySelector('.step-counter').textContent));
  await svg.locator('rect.box.gone').waitFor();
  assert.doesNotMatch(await afterText(page), /EXTRACT_SUBREG/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('"skip steps that change nothing" on iteration-cap does not jump from step 0 to the last', async () => {
  const { page, errors } = await open('#example=iteration-cap&stage=general-optimize&step=0');
  assert.equal(await currentStage(page), 'general-optimize');
  const total = Number((await stepCounter(page)).match(/of (\d+)/)[1]);
  assert.ok(total > 3, `${total}`);
  await page.getByRole('checkbox', { name: 'Skip steps that change nothing' }).check();
  await next(page);
  const m = (await stepCounter(page)).match(/^Step (\d+) of/);
  assert.ok(Number(m[1]) > 0 && Number(m[1]) < total, `skip went to step ${m[1]} of ${total}`);
  assert.deepEqual(errors, []);
  await page.close();
});

test('side by side opens at the input and the main step bar moves the linked picture', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=0');
  await page.getByRole('combobox', { name: 'Layout' }).selectOption('side-by-side');
  const slot = (k) => page.locator('.picture-slot').nth(k);
  await slot(0).locator('.slot-counter').waitFor();
  for (const k of [0, 1, 2]) {
    assert.match(await slot(k).locator('.slot-counter').textContent(), /^Step 0 of \d+$/, `slot ${k}`);
  }
  assert.match(await slot(0).getAttribute('class'), /\blinked\b/);
  await next(page);
  await next(page);
  await page.waitForFunction(() => document.querySelector('.picture-slot .slot-counter').textContent.startsWith('Step 2 of'));
  await slot(0).locator('.fanout-svg rect.copy').waitFor({ state: 'detached' }).catch(() => {});
  // A slot's own buttons take the main bar with them.
  await page.getByRole('button', { name: 'Next step of the Coalescing picture' }).click();
  await page.waitForFunction(() => document.querySelector('li.stage.selected')?.dataset.stageId === 'nvptx-coalescer');
  assert.match(await stepCounter(page), /^Step 1 of \d+$/);
  assert.match(await slot(1).getAttribute('class'), /\blinked\b/);
  assert.match(await slot(0).locator('.slot-counter').textContent(), /^Step 2 of/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a 390×844 phone shows one usable column; phi-swap keeps both IR panes', async () => {
  const phone = await launch({ viewport: { width: 390, height: 844 } });
  try {
    for (const fragment of ['#example=tex-v4f32&stage=two-address&step=3', '#example=phi-swap&stage=nvptx-coalescer&step=2']) {
      const { page, errors } = await open(fragment, phone.context);
      await page.locator('.ir-after').waitFor();
      const widths = await page.evaluate(() =>
        ['.column.left', '.column.centre', '.picture-panel'].map((s) => Math.round(document.querySelector(s).getBoundingClientRect().width)));
      for (const w of widths) assert.ok(w >= 350, `${fragment}: column widths ${widths}`);
      const heights = await page.evaluate(() =>
        ['.ir-before', '.ir-after'].map((s) => Math.round(document.querySelector(s).closest('.ir-pane').getBoundingClientRect().height)));
      for (const h of heights) assert.ok(h >= 150, `${fragment}: IR pane heights ${heights}`);
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(scrollWidth <= 390, `page scrolls sideways: ${scrollWidth}`);
      // The Run button shows its whole label.
      const run = await page.getByRole('button', { name: 'Run', exact: true }).evaluate((b) => [b.scrollWidth, b.clientWidth]);
      assert.ok(run[0] <= run[1], `Run button cut: ${run}`);
      assert.deepEqual(errors, []);
      await page.close();
    }
  } finally {
    await phone.close();
  }
});

test('pasting PTX over MIR moves the view to a stage the PTX runs', async () => {
  const { page, errors } = await open('#example=phi-swap&stage=phi-elimination&step=0');
  assert.equal(await currentStage(page), 'phi-elimination');
  await page.waitForFunction(() => typeof window.wasmBindings?.examples === 'function');
  const ptx = await page.evaluate(() => window.wasmBindings.examples().find((e) => e.name === 'iteration-cap'));
  assert.equal(ptx.format, 'ptx');
  const text = ptx.source;
  await paste(page, `${text}\n`);
  await page.locator('[data-run-state="queued"], [data-run-state="running"]').first().waitFor();
  await runState(page, 'done');
  const stage = await currentStage(page);
  assert.notEqual(stage, 'phi-elimination');
  assert.match(await stepCounter(page), /^Step 0 of [1-9]\d*$/);
  assert.deepEqual(errors, []);
  await page.close();
});

const BAD_PTX = [
  '.version 8.0',
  '.target sm_90',
  '.address_size 64',
  '',
  '.visible .entry k(',
  '\t.param .u64 k_param_0',
  ')',
  '{',
  '\t.reg .b32 \t%r<3>;',
  '\t.reg .b64 \t%rd<2>;',
  '',
  '\tld.param.u64 \t%rd1, [k_param_0];',
  '\tmov.u32 \t%r1, 5;',
  '\tadd.f32 \t%f99, %r1, %r1;',
  '\tst.global.u32 \t[%rd1], %r1;',
  '\tret;',
  '}',
  '',
].join('\n');

test('an undeclared PTX register is reported at its line and column and marked in the editor', async () => {
  const { page, errors } = await open();
  await paste(page, BAD_PTX);
  await runState(page, 'failed');
  const entry = page.locator('#source-errors li').first();
  assert.match(await entry.textContent(), /^Line 14, column 11: .*register %f99 is not declared/);
  await page.locator('.editor-highlight .code-line.has-error').first().waitFor();
  const marked = await page.locator('.editor-highlight .code-line.has-error').textContent();
  assert.match(marked, /%f99/);
  // The bullet of the entry sits on its first line (a flex row, the bullet drawn first).
  const style = await entry.evaluate((li) => {
    const before = getComputedStyle(li, '::before');
    return [getComputedStyle(li).display, getComputedStyle(li).alignItems, before.content];
  });
  assert.deepEqual(style, ['flex', 'baseline', '"•"']);
  assert.deepEqual(errors, []);
  await page.close();
});

test('Cancel keeps the last results on screen, and they still step', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=3');
  const before = await stepCounter(page);
  await paste(page, generatedMir(2000));
  await runState(page, 'running', 30_000);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await runState(page, 'cancelled');
  assert.equal(await stepCounter(page), before);
  assert.match(await page.locator('.narration-text').textContent(), /Pair 1 of 4/);
  await page.locator('.ir-after').waitFor();
  // The restarted engine answers for those results.
  await next(page);
  await page.waitForFunction(() => document.querySelector('.narration-text')?.textContent.includes('Pair 2 of 4'), null, { timeout: 60_000 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('the address bar follows the view, and an untouched example copies the short link', async () => {
  const { page, errors } = await open();
  await next(page);
  await next(page);
  await page.waitForFunction(() => location.hash === '#example=tex-v4f32&stage=two-address&step=2', null, { timeout: 10_000 });
  await page.getByRole('button', { name: 'Copy link' }).click();
  const field = page.getByRole('textbox', { name: 'Link to this view' });
  await field.waitFor();
  assert.match(await field.inputValue(), /#example=tex-v4f32&stage=two-address&step=2$/);
  // Reloading keeps the step.
  await page.reload();
  await runState(page, 'done');
  assert.match(await stepCounter(page), /^Step 2 of/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a link to step 999 says the stage has fewer steps', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=999');
  const notice = page.locator('.notice').filter({ hasText: 'step 999' });
  await notice.waitFor();
  assert.match(await notice.textContent(), /asks for step 999 of two-address, which has only \d+ steps; showing step \d+/);
  assert.deepEqual(errors, []);
  await page.close();
});

/** WCAG contrast ratio of two `rgb(...)` colours. */
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/[\d.]+/g).slice(0, 3).map((v) => {
      const s = Number(v) / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

test('in the dark theme pictures are dark and black tree nodes stay visible', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=3');
  await page.emulateMedia({ colorScheme: 'dark' });
  const panelBg = await page.locator('.picture-panel').evaluate((el) => {
    let e = el;
    while (e && getComputedStyle(e).backgroundColor === 'rgba(0, 0, 0, 0)') e = e.parentElement;
    return getComputedStyle(e ?? document.body).backgroundColor;
  });
  const bg = await page.locator('.picture-panel .fanout-svg rect.bg').evaluate((r) => getComputedStyle(r).fill);
  assert.ok(contrast(bg, panelBg) < 1.5, `fan-out background ${bg} on ${panelBg}`);
  const label = await page.locator('.picture-panel .fanout-svg text.head').evaluate((t) => getComputedStyle(t).fill);
  assert.ok(contrast(label, bg) >= 4.5, `fan-out text ${label} on ${bg}`);
  await shot(page, 'dark-fanout.png');

  await page.goto(`${url()}#example=tex-v4f32&stage=general-optimize&step=2`);
  await runState(page, 'done');
  const grid = page.locator('.picture-panel svg.pass-svg rect.bg');
  if (await grid.count()) {
    const gbg = await grid.first().evaluate((r) => getComputedStyle(r).fill);
    assert.ok(contrast(gbg, panelBg) < 1.5, `grid background ${gbg}`);
  }

  // Step 7: the tree has black nodes whether the step is read as before or after its
  // event (the eq_classes step moved the first recolouring from step 3 to step 4).
  await page.goto(`${url()}#example=phi-swap&stage=nvptx-coalescer&step=7`);
  await runState(page, 'done');
  const black = page.locator('.rb-node.black circle').first();
  await black.waitFor();
  const fill = await black.evaluate((c) => getComputedStyle(c).fill);
  assert.ok(contrast(fill, panelBg) >= 2, `black node ${fill} on ${panelBg}: contrast ${contrast(fill, panelBg).toFixed(2)}`);
  await shot(page, 'dark-tree.png');
  assert.deepEqual(errors, []);
  await page.close();
});

/** Every text inside the picture panel's SVGs, with its size on screen in px. */
async function pictureTextSizes(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.picture-panel svg text')]
      .filter((t) => t.getClientRects().length > 0 && t.textContent.trim() !== '')
      .map((t) => ({
        text: t.textContent.trim().slice(0, 30),
        px: parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a,
      })));
}

test('every picture label is at least 11 px at 1280×800', async () => {
  const { page, errors } = await open();
  for (const [fragment, what] of [
    ['#example=tex-v4f32&stage=two-address&step=3', '.fanout-svg'],
    ['#example=phi-swap&stage=nvptx-coalescer&step=3', '.tree-svg'],
    ['#example=iteration-cap&stage=general-optimize&step=5', '.pass-svg'],
  ]) {
    await page.goto(url() + fragment);
    await runState(page, 'done');
    await page.locator(`.picture-panel ${what}`).first().waitFor();
    const sizes = await pictureTextSizes(page);
    assert.ok(sizes.length > 5, `${fragment}: ${sizes.length} labels`);
    const small = sizes.filter((s) => s.px < 10.99);
    assert.deepEqual(small.slice(0, 5), [], `${fragment}: ${small.length} of ${sizes.length} labels under 11 px`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test('the first Tab reaches a skip link that moves focus to the step controls', async () => {
  const { page, errors } = await open();
  await page.keyboard.press('Tab');
  const first = await page.evaluate(() => [document.activeElement.textContent, getComputedStyle(document.activeElement).outlineStyle]);
  assert.equal(first[0], 'Skip to the step controls');
  assert.notEqual(first[1], 'none', 'a visible focus ring');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'step-controls');
  assert.equal(await page.evaluate(() => location.hash.startsWith('#example=') || location.hash === ''), true);
  assert.deepEqual(errors, []);
  await page.close();
});

test('pasting 1 MB of MIR and running it keeps every main-thread task under 200 ms', async () => {
  const { page, errors } = await open();
  const source = generatedMir(1800);
  assert.ok(source.length > 1_000_000, `${source.length} bytes`);
  await page.evaluate((t) => navigator.clipboard.writeText(t), source);
  await page.evaluate(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask' });
  });
  const textarea = page.getByRole('textbox', { name: /^Source text/ });
  await textarea.focus();
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Control+v');
  await page.locator('[data-run-state="queued"], [data-run-state="running"]').first().waitFor();
  await runState(page, 'done', 300_000);
  await page.locator('.ir-after').waitFor({ timeout: 60_000 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
  const tasks = await page.evaluate(() => window.__longTasks);
  console.log(`# long tasks during the 1 MB paste and run (ms): ${tasks.join(', ') || 'none'}`);
  assert.ok(tasks.every((ms) => ms < 200), `long tasks: ${tasks}`);
  // The pasted text is the source now (shown read-only: it is long).
  assert.match(await page.locator('.large-note').textContent(), /lines: shown read-only/);
  assert.deepEqual(errors, []);
  await page.close();
});

const require = (await import('node:module')).createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');

test('axe-core: no serious or critical violations in every layout and theme', async () => {
  const phone = await launch({ viewport: { width: 390, height: 844 } });
  const presenter = await launch({ viewport: { width: 1920, height: 1080 } });
  const found = [];
  try {
    for (const [context, fragment, layout, name] of [
      [browser.context, '#example=tex-v4f32&stage=two-address&step=3', null, 'standard'],
      [presenter.context, '#example=phi-swap&stage=nvptx-coalescer&step=3', 'presenter', 'presenter'],
      [browser.context, '#example=iteration-cap&stage=general-optimize&step=5', 'side-by-side', 'side-by-side'],
      [phone.context, '#example=phi-swap&stage=nvptx-coalescer&step=3', null, 'phone'],
    ]) {
      for (const colorScheme of ['light', 'dark']) {
        const { page } = await open(fragment, context);
        await page.emulateMedia({ colorScheme });
        if (layout) {
          await page.getByRole('combobox', { name: 'Layout' }).selectOption(layout);
          await page.locator(`.layout-${layout}`).waitFor();
        }
        await page.waitForTimeout(300);
        await page.addScriptTag({ path: AXE });
        const violations = await page.evaluate(async () => {
          const result = await globalThis.axe.run(document);
          return result.violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical')
            .map((v) => `${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
        });
        found.push(...violations.map((v) => `[${name}, ${colorScheme}] ${v}`));
        await page.close();
      }
    }
  } finally {
    await phone.close();
    await presenter.close();
  }
  assert.deepEqual(found, []);
});

test('splitters resize and collapse the columns from the keyboard; widths stay per layout', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=3');
  const width = (s) => page.locator(s).evaluate((el) => Math.round(el.getBoundingClientRect().width));
  const splitter = page.getByRole('separator', { name: 'Width of the picture column' });
  const before = await width('.picture-panel');
  await splitter.focus();
  const ring = await splitter.evaluate((el) => getComputedStyle(el).outlineStyle);
  assert.notEqual(ring, 'none', 'a visible focus ring on the splitter');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowLeft');
  assert.equal(await splitter.getAttribute('aria-valuenow'), '50');
  const wider = await width('.picture-panel');
  assert.ok(wider > before + 100, `${before} → ${wider}`);
  // Another stage keeps the width.
  await pickStage(page, 'phi-elimination');
  assert.equal(await width('.picture-panel'), wider);
  // Presenter has its own; back in standard the width is there again.
  await page.getByRole('combobox', { name: 'Layout' }).selectOption('presenter');
  await page.locator('.layout-presenter').waitFor();
  await page.getByRole('combobox', { name: 'Layout' }).selectOption('standard');
  await page.locator('.layout-standard').waitFor();
  assert.equal(await width('.picture-panel'), wider);
  // The input column collapses and reopens.
  const left = page.getByRole('separator', { name: 'Width of the input column' });
  await left.focus();
  await page.keyboard.press('Home');
  assert.ok((await width('.column.left')) < 2);
  assert.equal(await page.locator('.column.left').evaluate((el) => getComputedStyle(el).visibility), 'hidden');
  await page.keyboard.press('Enter');
  assert.ok((await width('.column.left')) > 200);
  assert.deepEqual(errors, []);
  await page.close();
});
