// Issue 30's acceptance for the red-black tree: stepping through phi-swap's
// nvptx-coalescer one step at a time, the drawn tree is a well-formed interval tree at
// every step (links both ways, in-order by (start, key, end), max_end the largest end
// below, drawn left to right in order and parents above children), a red-black tree
// whenever no fix-up is pending, and each tree event does exactly what its step says:
// an insert adds one red node, a rotation keeps the in-order sequence and lifts a child
// over its parent, a recolouring changes one colour. At least one rotation runs as a
// CSS transition (`getAnimations()` non-empty, node transforms changed), and with
// reduced motion nothing animates. The checks read the page's own drawing (data
// attributes of `.rb-node`), written here independently of the engine.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { urlFrom, launch, openApp, runState, stepCounter } from './support.mjs';

let browser;
before(async () => {
  browser = await launch({ viewport: { width: 1600, height: 1000 } });
});
after(async () => {
  await browser?.close();
});

const url = () => urlFrom('COPYSCOPE_URL');

/** Reads the drawn tree; run in the page. */
function readTree() {
  const svg = document.querySelector('.picture-panel .tree-svg');
  if (!svg) return null;
  const opt = (v) => (v === '' || v === undefined ? null : Number(v));
  const nodes = [...svg.querySelectorAll('.rb-node')].map((n) => ({
    id: Number(n.dataset.nodeId),
    start: Number(n.dataset.start),
    end: Number(n.dataset.end),
    key: Number(n.dataset.key),
    maxEnd: Number(n.dataset.maxEnd),
    red: n.dataset.color === 'red',
    parent: opt(n.dataset.parent),
    left: opt(n.dataset.left),
    right: opt(n.dataset.right),
    transform: n.style.transform,
  }));
  // "N extents ordered by start, M drawn; this step: a inserted, b removed, c rotations, d recolourings."
  const desc = svg.querySelector('desc').textContent;
  const m = desc.match(/(\d+) \w+ ordered by [^;]*?, (\d+) drawn; this step: (\d+) inserted, (\d+) removed, (\d+) rotations, (\d+) recolourings/);
  const [total, drawn, inserted, removed, rotations, recolors] = m ? m.slice(1).map(Number) : [];
  return { nodes, total, drawn, inserted, removed, rotations, recolors, desc };
}

/** Problems with the tree's shape and order (empty when it is a well-formed interval tree). */
function shapeProblems(t) {
  const out = [];
  const byId = new Map(t.nodes.map((n) => [n.id, n]));
  const roots = t.nodes.filter((n) => n.parent === null);
  if (t.nodes.length && roots.length !== 1) out.push(`${roots.length} roots`);
  for (const n of t.nodes) {
    if (n.parent !== null) {
      const p = byId.get(n.parent);
      if (!p) out.push(`node ${n.id}: parent ${n.parent} missing`);
      else if (p.left !== n.id && p.right !== n.id) out.push(`node ${n.id}: parent ${p.id} does not link back`);
      else if (!(p.transform && n.transform)) out.push(`node ${n.id}: no position`);
    }
    for (const c of [n.left, n.right]) {
      if (c !== null && byId.get(c)?.parent !== n.id) out.push(`node ${n.id}: child ${c} does not link back`);
    }
  }
  if (!roots.length) return out;
  // In-order walk: strictly increasing (start, key, end), max_end the largest end below.
  const order = [];
  const walk = (id, depth) => {
    if (id === null) return -Infinity;
    const n = byId.get(id);
    if (!n || depth > 64) return -Infinity;
    const l = walk(n.left, depth + 1);
    order.push(n);
    const r = walk(n.right, depth + 1);
    const want = Math.max(n.end, l, r);
    if (n.maxEnd !== want) out.push(`node ${n.id}: max_end ${n.maxEnd}, largest end below is ${want}`);
    return want;
  };
  walk(roots[0].id, 0);
  if (order.length !== t.nodes.length) out.push(`in-order walk reaches ${order.length} of ${t.nodes.length} nodes`);
  // The tree's order: by register key, then start, then end (`Interval::tree_less`).
  const cmp = (a, b) => a.key - b.key || a.start - b.start || a.end - b.end;
  for (let i = 1; i < order.length; i++) {
    if (cmp(order[i - 1], order[i]) >= 0) out.push(`nodes ${order[i - 1].id}, ${order[i].id} out of order`);
  }
  // Drawn in order from left to right; every child below its parent.
  const xy = (n) => n.transform.match(/-?[\d.]+/g).map(Number);
  for (let i = 1; i < order.length; i++) {
    if (xy(order[i - 1])[0] >= xy(order[i])[0]) out.push(`node ${order[i].id} drawn left of its in-order predecessor`);
  }
  for (const n of t.nodes) {
    if (n.parent !== null && xy(byId.get(n.parent))[1] >= xy(n)[1]) out.push(`node ${n.id} drawn above its parent`);
  }
  return out;
}

/** Red-black rule violations: a red root, a red node with a red child, unequal black heights. */
function colourProblems(t) {
  const out = [];
  const byId = new Map(t.nodes.map((n) => [n.id, n]));
  const root = t.nodes.find((n) => n.parent === null);
  if (!root) return out;
  if (root.red) out.push(`root ${root.id} is red`);
  const height = (id) => {
    if (id === null) return 1;
    const n = byId.get(id);
    for (const c of [n.left, n.right]) {
      if (n.red && c !== null && byId.get(c).red) out.push(`red node ${n.id} has red child ${c}`);
    }
    const [l, r] = [height(n.left), height(n.right)];
    if (l !== r) out.push(`node ${n.id}: black heights ${l} and ${r}`);
    return Math.max(l, r) + (n.red ? 0 : 1);
  };
  height(root.id);
  return out;
}

const inorder = (t) => {
  const byId = new Map(t.nodes.map((n) => [n.id, n]));
  const out = [];
  const walk = (id) => {
    if (id === null) return;
    walk(byId.get(id).left);
    out.push(id);
    walk(byId.get(id).right);
  };
  walk(t.nodes.find((n) => n.parent === null)?.id ?? null);
  return out;
};

/**
 * Clicks "Next step" in the page and, as soon as the tree of the new step is drawn,
 * reads it and the running animations of tree nodes (in the same task, so a 0.45 s
 * transition cannot finish unseen).
 */
async function stepAndRead(page, step) {
  return page.evaluate(async (step) => {
    const read = new Function(`return (${window.__readTree})()`);
    const shown = () => document.querySelector(`.coalesce-picture[data-step="${step}"]`);
    document.querySelector('button[aria-label="Next step"]').click();
    const t0 = performance.now();
    while (!shown()) {
      if (performance.now() - t0 > 20_000) throw new Error(`step ${step} never drawn`);
      await new Promise((r) => requestAnimationFrame(r));
    }
    const animations = document
      .getAnimations()
      .filter((a) => a.effect?.target?.closest?.('.rb-node') && a.playState === 'running')
      .map((a) => ({ property: a.transitionProperty ?? a.animationName, node: a.effect.target.closest('.rb-node').dataset.nodeId }));
    return { tree: read(), animations, kind: document.querySelector('.narration .kind, .narration-kind')?.textContent ?? '' };
  }, step);
}

async function openAtStart(context) {
  const { page, errors } = await openApp(context, `${url()}#example=phi-swap&stage=nvptx-coalescer&step=0`);
  await runState(page, 'done');
  await page.evaluate((src) => { window.__readTree = src; }, readTree.toString());
  const total = Number((await stepCounter(page)).match(/of (\d+)/)[1]);
  return { page, errors, total };
}

test('phi-swap nvptx-coalescer: the tree is valid at every step and a rotation animates', async () => {
  const { page, errors, total } = await openAtStart(browser.context);
  assert.ok(total > 10, `${total} steps`);
  const seen = { inserted: 0, rotations: 0, recolors: 0, animatedRotations: 0 };
  const trees = [];
  let prev = null;
  for (let step = 1; step <= total; step++) {
    const { tree, animations } = await stepAndRead(page, step);
    trees.push(tree);
    if (!tree) {
      assert.equal(prev, null, `step ${step}: the tree vanished`);
      continue;
    }
    assert.equal(tree.drawn, tree.total, `step ${step}: every node is drawn (${tree.desc})`);
    assert.equal(tree.nodes.length, tree.total, `step ${step}`);
    assert.deepEqual(shapeProblems(tree), [], `step ${step}: ${tree.desc}`);
    const before = prev ?? { nodes: [] };
    const ids = (t) => t.nodes.map((n) => n.id).sort((a, b) => a - b);
    const changed = tree.inserted + tree.removed + tree.rotations + tree.recolors;
    assert.ok(changed <= 1, `step ${step}: one tree event a step, saw ${tree.desc}`);
    if (tree.inserted) {
      seen.inserted++;
      const added = tree.nodes.filter((n) => !before.nodes.some((b) => b.id === n.id));
      assert.equal(added.length, 1, `step ${step}: one node added`);
      assert.equal(added[0].red, true, `step ${step}: an inserted node is red`);
      assert.equal(added[0].left ?? added[0].right, null, `step ${step}: an inserted node is a leaf`);
    } else if (tree.rotations) {
      seen.rotations++;
      assert.deepEqual(inorder(tree), inorder(before), `step ${step}: a rotation keeps the in-order sequence`);
      const lifted = tree.nodes.filter((n) => {
        const old = before.nodes.find((b) => b.id === n.id);
        return old.parent !== null && tree.nodes.find((c) => c.id === old.parent)?.parent === n.id;
      });
      assert.equal(lifted.length, 1, `step ${step}: exactly one child rises over its old parent`);
      const moved = tree.nodes.filter((n) => before.nodes.find((b) => b.id === n.id).transform !== n.transform);
      assert.ok(moved.length >= 2, `step ${step}: the rotation moves nodes on screen`);
      const sliding = animations.filter((a) => a.property === 'transform').map((a) => Number(a.node));
      if (sliding.length) seen.animatedRotations++;
      for (const id of sliding) assert.ok(moved.some((n) => n.id === id), `step ${step}: node ${id} animates but did not move`);
    } else if (tree.recolors) {
      seen.recolors++;
      assert.deepEqual(ids(tree), ids(before));
      const flipped = tree.nodes.filter((n) => before.nodes.find((b) => b.id === n.id).red !== n.red);
      assert.equal(flipped.length, 1, `step ${step}: one node changes colour`);
    } else if (!tree.removed) {
      assert.deepEqual(tree.nodes.map(({ transform, ...n }) => n), before.nodes.map(({ transform, ...n }) => n), `step ${step}: a step with no tree event leaves the tree alone`);
    }
    prev = tree;
  }
  // A fix-up is pending after step k when step k+1 rotates or recolours; everywhere else
  // the tree obeys the red-black rules.
  for (let k = 0; k < trees.length; k++) {
    const next = trees[k + 1];
    const pending = next && next.inserted + next.removed === 0 && next.rotations + next.recolors > 0;
    if (trees[k] && !pending) assert.deepEqual(colourProblems(trees[k]), [], `step ${k + 1}: red-black rules`);
  }
  console.log(`# phi-swap nvptx-coalescer: ${total} steps, ${seen.inserted} inserts, ${seen.rotations} rotations (${seen.animatedRotations} seen animating), ${seen.recolors} recolourings`);
  assert.ok(seen.inserted >= 3 && seen.rotations >= 1 && seen.recolors >= 1, JSON.stringify(seen));
  assert.ok(seen.animatedRotations >= 1, 'no rotation ran as a transition');
  assert.deepEqual(errors, []);
  await page.close();
});

test('with reduced motion a rotation moves the nodes without animating', async () => {
  const { page, errors, total } = await openAtStart(browser.context);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  let rotations = 0;
  for (let step = 1; step <= total && rotations < 2; step++) {
    const { tree, animations } = await stepAndRead(page, step);
    if (tree?.rotations) {
      rotations++;
      assert.deepEqual(animations, [], `step ${step}: animations under reduced motion`);
    }
  }
  assert.ok(rotations >= 1);
  assert.deepEqual(errors, []);
  await page.close();
});
