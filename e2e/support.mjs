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
 * shuts the browser and deletes the profile. `viewport` defaults to 1280×900.
 */
export async function launch({ viewport = { width: 1280, height: 900 } } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'copyscope-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.COPYSCOPE_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
  // "Copy link" writes to the clipboard.
  await context
    .grantPermissions(['clipboard-read', 'clipboard-write'])
    .catch(() => {});
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

/**
 * Waits until the page has the JS API: `window.wasmBindings`, the engine's module, which
 * index.html instantiates once the engine's wasm has loaded (after the page's own).
 */
export async function waitForApi(page, timeout = 30_000) {
  await page.waitForFunction(() => typeof window.wasmBindings?.run === 'function', null, { timeout });
}

/** The data-stage-id of every stage item, in document order. */
export async function stageIds(page) {
  return page
    .locator('ol.stage-list > li.stage')
    .evaluateAll((items) => items.map((li) => li.dataset.stageId));
}

/** Waits until the engine has finished a run (`data-run-state` of the run status). */
export async function runState(page, state, timeout = 60_000) {
  await page.locator(`[data-run-state="${state}"]`).waitFor({ timeout });
}

/** The step counter's text, e.g. "Step 3 of 8". */
export async function stepCounter(page) {
  return (await page.locator('.step-counter').textContent()).trim();
}

/** Clicks the timeline button of a stage. */
export async function pickStage(page, id) {
  await page.locator(`li.stage[data-stage-id="${id}"] button`).click();
  await page.locator(`li.stage.selected[data-stage-id="${id}"]`).waitFor();
}

/** Which stage the timeline shows as current. */
export async function currentStage(page) {
  return page.locator('li.stage.selected').getAttribute('data-stage-id');
}

/**
 * A MIR function of 7 * units + 6 instructions: texture fetches whose four lanes are
 * summed into a running total (the same shape as web-engine/tests/session.rs builds).
 */
export function generatedMir(units) {
  const out = [
    '---',
    'name: big',
    'tracksRegLiveness: true',
    'noPhis: true',
    'body: |',
    '  bb.0.entry:',
    '    %0:int64regs = LD_i64 0, 0, 101, 3, 64, -1, &big_param_0, 0',
    '    %1:float32regs = LD_f32 0, 0, 101, 3, 32, -1, &big_param_1, 0',
    '    %2:float32regs = LD_f32 0, 0, 101, 3, 32, -1, &big_param_2, 0',
    '    %3:float32regs = COPY %1',
  ];
  let acc = 3;
  for (let u = 0; u < units; u++) {
    const r = 4 + 10 * u;
    const [t, a, b, c, d, s1, s2, s3, n, cp] = Array.from({ length: 10 }, (_, k) => r + k);
    out.push(`    %${t}:float32regsx4 = TEX_2D_V4F32_F32 %0, %1, %2`);
    out.push(
      `    %${a}:float32regs, tied-hint early-tied %${b}:float32regs, tied-hint early-tied %${c}:float32regs, tied-hint early-tied %${d}:float32regs = EXTRACT_SUBREG %${t}.sub0, %${t}.sub1, %${t}.sub2, killed %${t}.sub3`,
    );
    out.push(`    %${s1}:float32regs = FADDf32rr killed %${a}, killed %${b}`);
    out.push(`    %${s2}:float32regs = FADDf32rr killed %${c}, killed %${d}`);
    out.push(`    %${s3}:float32regs = FADDf32rr killed %${s1}, killed %${s2}`);
    out.push(`    %${n}:float32regs = FADDf32rr killed %${acc}, killed %${s3}`);
    out.push(`    %${cp}:float32regs = COPY killed %${n}`);
    acc = cp;
  }
  out.push(`    ST_i32 killed %${acc}, 0, 0, 1, 32, killed %0, 0`, '    Return', '...', '');
  return out.join('\n');
}
