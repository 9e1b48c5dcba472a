// Proof on screen (issue 30): each stage shows the verifier's verdict on its output and
// the interpreter's comparison of its input and output, with the launches and the
// memory words compared; a broken stage (the engine's test-only fault, `?fault=<stage>`,
// erases the output's last store before the checks run) shows red.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { urlFrom, launch, openApp, runState, pickStage } from './support.mjs';

let browser;
before(async () => {
  browser = await launch({ viewport: { width: 1280, height: 800 } });
});
after(async () => {
  await browser?.close();
});

/** The site's URL with an optional test fault and a fragment. */
function siteUrl(fragment, fault) {
  const u = new URL(urlFrom('COPYSCOPE_URL'));
  if (fault) u.searchParams.set('fault', fault);
  u.hash = fragment;
  return u.href;
}

async function open(fragment, fault) {
  const { page, errors } = await openApp(browser.context, siteUrl(fragment, fault));
  await runState(page, 'done');
  await page.locator('.proof[data-status]').waitFor();
  return { page, errors };
}

/** The table of launches: [function, seed, launch, result, region, before, after] rows. */
async function launches(page) {
  await page.locator('.proof-details summary').click();
  return page.locator('.proof-table tbody tr').evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent.trim())));
}

test('a MIR stage and an ORI stage are proven green, with the values compared', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=0');
  assert.equal(await page.locator('.proof').getAttribute('data-status'), 'pass');
  assert.match(await page.locator('[data-check="verifier"]').textContent(), /output verified/);
  const interp = await page.locator('[data-check="interpreter"]').textContent();
  const m = /results equal on (\d+) launches/.exec(interp);
  assert.ok(m && Number(m[1]) >= 4, interp);
  const rows = await launches(page);
  assert.ok(rows.length >= Number(m[1]), `${rows.length} rows`);
  // Each launch's first row: function, seed, launch shape, "equal", then a region and
  // its words under the input's run and the output's run, the same words.
  const first = rows.filter((r) => r.length === 7);
  assert.equal(first.length, Number(m[1]));
  for (const r of first) {
    assert.equal(r[3], 'equal', r.join(' | '));
    assert.match(r[5], /^[0-9a-f]{8}( |$)/, r.join(' | '));
    assert.equal(r[5], r[6], r.join(' | '));
  }
  // An ORI stage of another example.
  await page.goto(siteUrl('#example=iteration-cap&stage=general-optimize&step=0'));
  await runState(page, 'done');
  await page.locator('.proof[data-status]').waitFor();
  assert.equal(await page.locator('.proof').getAttribute('data-status'), 'pass');
  assert.match(await page.locator('[data-check="verifier"]').textContent(), /ORI rules/);
  // ptx-lower: PTX read against ORI made, and the ORI verifier.
  await pickStage(page, 'ptx-lower');
  await page.locator('.proof[data-status="pass"]').waitFor();
  // ptx-out: the interpreter agrees, but PTX has no verifier here: "partly checked".
  await pickStage(page, 'ptx-out');
  await page.locator('.proof[data-status="unknown"]').waitFor();
  assert.match(await page.locator('[data-check="verifier"]').textContent(), /no PTX verifier/);
  assert.match(await page.locator('[data-check="interpreter"]').textContent(), /results equal on \d+ launches/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a broken stage shows red, with the launch and words that differ', async () => {
  const { page, errors } = await open('#example=tex-v4f32&stage=two-address&step=0', 'two-address');
  const proof = page.locator('.proof');
  assert.equal(await proof.getAttribute('data-status'), 'fail');
  assert.match(await page.locator('.proof-headline').textContent(), /Proof failed/);
  assert.match(await page.locator('[data-check="interpreter"]').textContent(), /results differ on \d+ of \d+ launches/);
  assert.match(await page.locator('.proof-fault').textContent(), /erased the last store/);
  // Red on screen: the border takes the theme's "bad" colour.
  const [border, bad] = await proof.evaluate((el) => [
    getComputedStyle(el).borderLeftColor,
    getComputedStyle(document.documentElement).getPropertyValue('--bad').trim(),
  ]);
  assert.equal(border, 'rgb(180, 35, 24)', `border ${border}, --bad ${bad}`);
  await launches(page);
  assert.ok((await page.locator('.proof-table tr.proof-differ').count()) >= 1, 'a differing region row');
  // The next stage received the unbroken output and stays green.
  await pickStage(page, 'register-coalescer');
  await page.locator('.proof[data-status="pass"]').waitFor();
  assert.deepEqual(errors, []);
  await page.close();
});
