// Issue 29's "every step carries its IR edits", as a reader of the page meets it: on the
// GeneralOptimize gallery examples, and on ptx-lower and ptx-emit (whose steps carry
// ORI / PTX edits the engine replays), stepping through the stage one step at a time,
// the "After" pane differs from "Before" exactly at the steps that change the IR (the
// JS API's `changes` for the step), each step's "Before" is the previous step's
// "After", the last "After" is the stage output shown at step 0, and the IR does change
// somewhere in the stage. The first "Before" is what step 0 shows as the input, except
// for ptx-emit, whose step 0 shows the MIR it reads and whose first step starts from
// an empty PTX module.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { urlFrom, launch, openApp, runState, waitForApi, stepCounter } from './support.mjs';

let browser;
before(async () => {
  // Tall, so the panes draw every line of these small functions (they draw a window).
  browser = await launch({ viewport: { width: 1600, height: 1400 } });
});
after(async () => {
  await browser?.close();
});

const url = () => urlFrom('COPYSCOPE_URL');

/** The whole text of an IR pane, checked to be every line it holds; run in the page. */
function paneText(selector) {
  const pane = document.querySelector(selector);
  // Every row is drawn: the lines, and the blank rows that align the panes.
  const all = [...pane.querySelectorAll('.code-line')];
  const spacer = pane.querySelector('.code-spacer');
  const drawn = Math.round(parseFloat(spacer.style.height) / 20);
  const rows = all.filter((r) => !r.classList.contains('blank'));
  if (all.length !== drawn || rows.some((r, k) => r.dataset.line !== String(k + 1))) {
    throw new Error(`${selector}: ${all.length} of ${drawn} rows drawn`);
  }
  return rows
    .map((r) => {
      const code = r.querySelector('.code').cloneNode(true);
      code.querySelectorAll('.visually-hidden').forEach((h) => h.remove());
      return code.textContent.replace(/\u200b/g, '');
    })
    .join('\n');
}

async function panes(page, step) {
  await page.waitForFunction((s) => document.querySelector('.step-counter').textContent.trim().startsWith(`Step ${s} of`), step);
  await page.locator('.ir-after .code-line').first().waitFor();
  // The panes follow the counter in the same render; wait one frame for their window.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
  const title = await page.locator('.ir-compare .pane-title').first().textContent();
  assert.equal(title.trim(), step === 0 ? 'Stage input' : `Before step ${step}`);
  return {
    before: await page.evaluate(paneText, '.ir-before'),
    after: await page.evaluate(paneText, '.ir-after'),
  };
}

// [example, stage, whether step 1's "Before" is step 0's input pane]. The examples
// here hold one function (ptx-lower's replay starts each function from its empty body).
for (const [example, stage, fromInput] of [
  ['iteration-cap', 'general-optimize', true],
  ['predicate-known', 'general-optimize', true],
  ['local-array', 'general-optimize-mid', true],
  ['predicate-known', 'ptx-lower', true],
  ['iteration-cap', 'ptx-lower', true],
  ['commute', 'ptx-emit', false],
]) {
  test(`${example} at ${stage}: "After" differs from "Before" exactly at the steps that change the IR`, async () => {
    const { page, errors } = await openApp(browser.context, `${url()}#example=${example}&stage=${stage}&step=0`);
    await runState(page, 'done');
    await waitForApi(page);
    const steps = await page.evaluate(
      async ([name, id]) => {
        const ex = window.wasmBindings.examples().find((e) => e.name === name);
        const r = await window.wasmBindings.run(ex.source, { steps: true }); // a Promise for a DAG
        return r.stages.find((s) => s.id === id).stepList.map((s) => s.changes);
      },
      [example, stage],
    );
    const total = Number((await stepCounter(page)).match(/of (\d+)/)[1]);
    assert.equal(total, steps.length);
    const start = await panes(page, 0);
    let prev = fromInput ? start.before : null;
    const changing = [];
    for (let k = 1; k <= total; k++) {
      await page.getByRole('button', { name: 'Next step', exact: true }).click();
      const { before: b, after: a } = await panes(page, k);
      if (prev !== null) assert.equal(b, prev, `step ${k}: "Before" is what step ${k - 1} left`);
      assert.equal(a !== b, steps[k - 1], `step ${k}: the panes ${a !== b ? 'differ' : 'agree'}, the step ${steps[k - 1] ? 'changes' : 'does not change'} the IR`);
      if (a !== b) changing.push(k);
      prev = a;
    }
    assert.equal(prev, start.after, 'the last step leaves the stage output');
    assert.ok(changing.length >= 1, 'no step changes the IR');
    console.log(`# ${example} ${stage}: ${total} steps, the IR changes at ${changing.join(', ')}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
}
