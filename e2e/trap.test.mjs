// The release site's wasm is built with `-Cpanic=immediate-abort` (xtask's size
// profile, xtask/src/tools.rs): a panic runs no hook and is a wasm trap on the spot.
// The page must still not die silently: an uncaught `WebAssembly.RuntimeError` (how a
// trap in an event handler reaches the page) puts up the error banner with the trap's
// text, and an ordinary script error does not. (A trap in the engine's worker reaches
// the page as the worker's error event: the engine-stopped notice, web-app/src/engine.rs.)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { urlFrom, launch, openApp } from './support.mjs';

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('an uncaught wasm trap puts up the error banner; a plain script error does not', async () => {
  const { page } = await openApp(browser.context, urlFrom('COPYSCOPE_URL'));
  const banner = page.locator('#panic-banner');
  const raise = (wasm) =>
    page.evaluate((wasm) => {
      const error = wasm ? new WebAssembly.RuntimeError('unreachable') : new TypeError('not a trap');
      window.dispatchEvent(new ErrorEvent('error', { error, message: String(error) }));
    }, wasm);
  await raise(false);
  await page.waitForTimeout(200);
  assert.equal(await banner.count(), 0, 'a script error is not a trap');
  await raise(true);
  await banner.waitFor({ timeout: 5_000 });
  const text = await banner.textContent();
  assert.match(text, /internal error/);
  assert.match(text, /RuntimeError: unreachable/);
  await page.close();
});
