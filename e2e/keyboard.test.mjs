// Issue 30's keyboard acceptance: in every layout (standard 1280×800, presenter
// 1920×1080, side by side, a 390×844 phone) and in both themes, Tab alone reaches every
// control on the page (tabs and other roving-focus groups through their selected
// member), and every stop shows a focus ring: an outline or shadow of at least 2 px on
// the element or its frame, and pixels around the element that change when focus
// arrives (so a ring clipped away by a scrolling parent fails).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { urlFrom, launch, openApp, runState } from './support.mjs';

const url = () => urlFrom('COPYSCOPE_URL');

const LAYOUTS = [
  ['standard', { width: 1280, height: 800 }, null, '#example=tex-v4f32&stage=two-address&step=3'],
  ['presenter', { width: 1920, height: 1080 }, 'presenter', '#example=phi-swap&stage=nvptx-coalescer&step=4'],
  ['side-by-side', { width: 1280, height: 800 }, 'side-by-side', '#example=iteration-cap&stage=general-optimize&step=5'],
  ['phone', { width: 390, height: 844 }, null, '#example=phi-swap&stage=nvptx-coalescer&step=4'],
];

/** Marks every control a keyboard user must reach; run in the page. Returns their descriptions. */
function markControls() {
  const sel = 'a[href], button, input, select, textarea, summary, [tabindex]';
  const shown = (el) => {
    if (!el.getClientRects().length) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none' && !el.closest('[inert], [hidden]');
  };
  const out = [];
  let k = 0;
  for (const el of document.querySelectorAll(sel)) {
    if (el.disabled || !shown(el)) continue;
    // Containers made focusable only to receive focus from a script or a link.
    if (el.getAttribute('tabindex') === '-1' && el.getAttribute('role') !== 'tab') continue;
    // A tab list is one stop: its selected tab (the ARIA tabs pattern).
    if (el.getAttribute('role') === 'tab' && el.getAttribute('aria-selected') !== 'true') continue;
    el.dataset.kbdId = String(k++);
    out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} "${(el.getAttribute('aria-label') || el.textContent || el.name || '').trim().slice(0, 40)}"`);
  }
  return out;
}

/** What the focused element is and how its focus shows; run in the page. */
function focusInfo() {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const ring = (e) => {
    const s = getComputedStyle(e);
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
    const shadow = s.boxShadow !== 'none';
    return outline || shadow;
  };
  // A text area drawn over a highlighted copy shows focus on its frame.
  const frame = el.closest('.editor-frame');
  const r = el.getBoundingClientRect();
  return {
    id: el.dataset.kbdId ?? null,
    what: `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 40)}"`,
    ring: ring(el) || (frame !== null && ring(frame)),
    rect: { x: r.x, y: r.y, width: r.width, height: r.height },
  };
}

/** The element's box grown by 6 px, inside the viewport. */
function clip(rect, viewport) {
  const x = Math.max(0, Math.floor(rect.x - 6));
  const y = Math.max(0, Math.floor(rect.y - 6));
  const right = Math.min(viewport.width, Math.ceil(rect.x + rect.width + 6));
  const bottom = Math.min(viewport.height, Math.ceil(rect.y + rect.height + 6));
  // Big regions (panes) are compared along their top edge only.
  return { x, y, width: Math.max(1, right - x), height: Math.max(1, Math.min(bottom - y, 24)) };
}

for (const [name, viewport, layout, fragment] of LAYOUTS) {
  for (const colorScheme of ['light', 'dark']) {
    test(`${name} (${colorScheme}): Tab reaches every control, each with a visible focus ring`, async () => {
      const browser = await launch({ viewport });
      try {
        const { page, errors } = await openApp(browser.context, url() + fragment);
        await runState(page, 'done');
        await page.emulateMedia({ colorScheme, reducedMotion: 'reduce' });
        if (layout) {
          await page.getByRole('combobox', { name: 'Layout' }).selectOption(layout);
          await page.locator(`.layout-${layout}`).waitFor();
        }
        await page.locator('.picture-panel svg, .picture-slot svg').first().waitFor();
        await page.evaluate(() => document.activeElement?.blur());
        const controls = await page.evaluate(markControls);
        assert.ok(controls.length > 20, `${controls.length} controls`);
        const reached = new Set();
        const noRing = [];
        let first = null;
        for (let i = 0; i < controls.length + 40; i++) {
          await page.keyboard.press('Tab');
          const info = await page.evaluate(focusInfo);
          if (!info) continue;
          if (info.id !== null && info.id === first) break;
          first ??= info.id;
          if (info.id === null) {
            if (!info.ring) noRing.push(info.what);
            continue;
          }
          reached.add(info.id);
          const area = clip(info.rect, viewport);
          const focused = await page.screenshot({ clip: area });
          await page.evaluate(() => document.activeElement.blur());
          const blurred = await page.screenshot({ clip: area });
          await page.locator(`[data-kbd-id="${info.id}"]`).evaluate((el) => el.focus({ focusVisible: true }));
          if (!info.ring || focused.equals(blurred)) noRing.push(`${info.what}${info.ring ? ' (ring not on screen)' : ''}`);
        }
        const missed = controls.filter((_, k) => !reached.has(String(k)));
        assert.deepEqual(missed, [], `${missed.length} of ${controls.length} controls never reached by Tab`);
        assert.deepEqual(noRing, [], 'stops without a visible focus ring');
        assert.deepEqual(errors, []);
      } finally {
        await browser.close();
      }
    });
  }
}
