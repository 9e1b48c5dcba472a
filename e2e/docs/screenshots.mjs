// Not a test: `cargo xtask screenshots` runs it against the release site (COPYSCOPE_URL)
// and writes the documentation's screenshots to COPYSCOPE_SHOTS (docs/screenshots/):
// three views (tex-v4f32 two-address, phi-swap nvptx-coalescer, iteration-cap
// general-optimize) at 1280×800, 1920×1080 in presenter mode, on a 390×844 phone and
// in the dark theme. Prints one line per file.

import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { launch, openApp, runState } from '../support.mjs';

const url = process.env.COPYSCOPE_URL;
const dir = process.env.COPYSCOPE_SHOTS;
if (!url || !dir) throw new Error('COPYSCOPE_URL and COPYSCOPE_SHOTS are needed; run `cargo xtask screenshots`');

const VIEWS = [
  ['tex-v4f32-two-address', '#example=tex-v4f32&stage=two-address&step=3'],
  // phi-swap at a rotation in the full tree.
  ['phi-swap-nvptx-coalescer', '#example=phi-swap&stage=nvptx-coalescer&step=49'],
  ['iteration-cap-general-optimize', '#example=iteration-cap&stage=general-optimize&step=5'],
];

const SETTINGS = [
  ['1280x800', { width: 1280, height: 800 }, 'light', null],
  ['presenter-1920x1080', { width: 1920, height: 1080 }, 'light', 'presenter'],
  ['phone-390x844', { width: 390, height: 844 }, 'light', null],
  ['dark-1280x800', { width: 1280, height: 800 }, 'dark', null],
];

await mkdir(dir, { recursive: true });
for (const [setting, viewport, colorScheme, layout] of SETTINGS) {
  const browser = await launch({ viewport });
  try {
    for (const [name, fragment] of VIEWS) {
      const { page } = await openApp(browser.context, url + fragment);
      await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
      await runState(page, 'done');
      if (layout) {
        await page.getByRole('combobox', { name: 'Layout' }).selectOption(layout);
        await page.locator(`.layout-${layout}`).waitFor();
      }
      await page.locator('.picture-panel #picture-body svg').first().waitFor({ timeout: 30_000 });
      await page.locator('.proof[data-status]').waitFor({ timeout: 30_000 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 200))));
      const file = join(dir, `${name}-${setting}.png`);
      await page.screenshot({ path: file, fullPage: viewport.width < 600 });
      console.log(file);
      await page.close();
    }
  } finally {
    await browser.close();
  }
}
