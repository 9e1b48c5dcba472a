// Shared set-up for the e2e tests: Debian's chromium driven by playwright-core, and the
// facts the tests check the page against (written here independently of the Rust code).

import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Stage ids in pipeline order, as DESIGN.md lists them. */
export const STAGE_IDS = [
  'instr-emitter',
  'phi-elimination',
  'two-address',
  'register-coalescer',
  'nvptx-coalescer',
  'ptx-emit',
  'ptx-lower',
  'general-optimize-early',
  'general-optimize',
  'general-optimize-mid',
  'general-optimize-mid2',
  'general-optimize-late',
  'general-optimize-late2',
  'ptx-out',
];

/** The ptxas phases of the six GeneralOptimize stages. */
export const PHASES = [13, 29, 37, 46, 58, 65];

/** Where the screenshots go (git-ignored). */
export const OUT_DIR = new URL('./out/', import.meta.url);

// Root needs --no-sandbox; the networking flags keep chromium quiet on a closed network.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The URL named by an environment variable, or an error saying how to get one. */
export function urlFrom(name) {
  const url = process.env[name];
  if (!url) {
    throw new Error(`${name} is not set; run the e2e suite through \`cargo xtask test\``);
  }
  return url;
}

/**
 * Starts chromium with a fresh profile directory. Returns { context, close }; close()
 * shuts the browser and deletes the profile.
 */
export async function launch() {
  const profile = await mkdtemp(join(tmpdir(), 'copyscope-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.COPYSCOPE_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Opens `url` in a new page, collecting console errors and uncaught exceptions, and
 * waits until the stage list is rendered.
 */
export async function openApp(context, url) {
  const page = await context.newPage();
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`page: ${err.message}`));
  await page.goto(url);
  await page.locator('ol.stage-list > li.stage').nth(STAGE_IDS.length - 1).waitFor();
  return { page, errors };
}

/** The data-stage-id of every stage item, in document order. */
export async function stageIds(page) {
  return page
    .locator('ol.stage-list > li.stage')
    .evaluateAll((items) => items.map((li) => li.dataset.stageId));
}
