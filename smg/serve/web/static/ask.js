// ask.js: what a model would get for a question, inside a budget: the
// context's text, what went in and why (section, kind, where it comes
// from, score and its parts, tokens), and what was left out for lack of
// room.

import { api, memoryPath } from './api.js';
import { choose } from './detail.js';
import { $, cut, fmtTime, h, labelOf, num, safe, state } from './ui.js';

const MIN = 50;
const MAX = 20000;
const LEFT = 20;
let ctrl = null;

// The slider is logarithmic: 50 to 20,000 tokens over its length.
const toBudget = (s) => {
  const b = MIN * (MAX / MIN) ** (s / 1000);
  const step = b < 500 ? 10 : b < 5000 ? 50 : 500;
  return Math.min(MAX, Math.max(MIN, Math.round(b / step) * step));
};
const toSlider = (b) => Math.round((1000 * Math.log(b / MIN)) / Math.log(MAX / MIN));

export function initAsk() {
  const range = $('ask-budget-range');
  const budget = $('ask-budget');
  range.value = String(toSlider(Number(budget.value) || 1000));
  range.addEventListener('input', () => {
    budget.value = String(toBudget(Number(range.value)));
  });
  budget.addEventListener('input', () => {
    const b = Number(budget.value);
    if (b >= MIN && b <= MAX) range.value = String(toSlider(b));
  });
  $('ask-form').addEventListener('submit', safe((e) => {
    e.preventDefault();
    return ask();
  }));
  $('ask-question').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      $('ask-form').requestSubmit();
    }
  });
}

export function showAsk() {
  $('ask-question').focus();
}

export function forgetAsk() {
  $('ask-result').replaceChildren();
}

async function ask() {
  const question = $('ask-question').value.trim();
  if (!question || !state.memory) return;
  let budget = Math.round(Number($('ask-budget').value) || 1000);
  budget = Math.min(MAX, Math.max(MIN, budget));
  $('ask-budget').value = String(budget);
  if (ctrl) ctrl.abort();
  ctrl = new AbortController();
  document.body.dataset.askReady = '';
  const out = $('ask-result');
  const go = $('ask-go');
  go.disabled = true;
  out.setAttribute('aria-busy', 'true');
  try {
    const r = await api(memoryPath(state.memory, 'context'), { method: 'POST', body: { question, budget, left: LEFT }, signal: ctrl.signal });
    out.replaceChildren(...render(r));
    document.body.dataset.askReady = '1';
  } catch (e) {
    if (!(e && e.name === 'AbortError')) document.body.dataset.askReady = '1';
    throw e;
  } finally {
    go.disabled = false;
    out.removeAttribute('aria-busy');
  }
}

function render(r) {
  const used = r.tokens || 0;
  const of = r.budget || 0;
  const out = [
    h('div', { class: 'ask-meta' },
      h('strong', { 'data-testid': 'ask-tokens' }, `${used} / ${of} tokens`),
      h('meter', { min: '0', max: String(of || 1), value: String(used), 'aria-label': 'Tokens used of the budget' }),
      h('span', { class: 'muted' }, `counted with ${r.tokenizer || 'the default tokenizer'}`)),
  ];
  if (r.partial) out.push(h('p', { class: 'note' }, 'The turns were still being indexed: some could not be found.'));
  for (const w of r.warnings || []) out.push(h('p', { class: 'note' }, w));
  out.push(h('h2', null, 'The context'),
    r.text ? h('pre', { class: 'context-text', 'data-testid': 'ask-text' }, r.text) : h('p', { class: 'muted', 'data-testid': 'ask-text' }, 'Nothing: the memory found nothing for it.'));

  const items = r.items || [];
  out.push(h('h2', null, `What went in (${items.length})`), table(items, false, 'ask-items'));

  const left = r.left || [];
  out.push(h('section', { class: 'ask-left', 'data-testid': 'ask-left' },
    h('h2', null, `Left out for lack of room (${left.length})`),
    left.length ? table(left, true, 'ask-left-items') : h('p', { class: 'muted' }, 'Nothing that was found was left out.')));
  return out;
}

function table(items, withText, testid) {
  return h('table', { class: 'items', 'data-testid': testid },
    h('thead', null, h('tr', null,
      h('th', { scope: 'col' }, '#'),
      withText ? null : h('th', { scope: 'col' }, 'Section'),
      h('th', { scope: 'col' }, 'Kind'),
      h('th', { scope: 'col' }, 'From'),
      h('th', { scope: 'col', class: 'num' }, 'Score'),
      h('th', { scope: 'col', class: 'num' }, 'Tokens'),
      withText ? h('th', { scope: 'col' }, 'Text') : null)),
    h('tbody', null, items.map((it, i) => h('tr', { 'data-kind': it.kind },
      h('td', { class: 'muted' }, String(i + 1)),
      withText ? null : h('td', null, it.section || ''),
      h('td', null, it.kind || ''),
      h('td', { class: 'prov' }, provenance(it)),
      h('td', { class: 'num' }, score(it)),
      h('td', { class: 'num' }, it.tokens ? String(it.tokens) : ''),
      withText ? h('td', { class: 'left-text' }, cut(it.text || '', 400)) : null))));
}

/** Where an item comes from: its turn, node, artifact, memory. */
function provenance(it) {
  const out = [];
  if (it.memory) out.push(h('span', { class: 'chip' }, it.memory));
  if (it.turn) {
    const at = fmtTime(it.timestamp);
    let s = `turn ${it.turn}`;
    if (it.externalId) s += ` (${it.externalId})`;
    if (at) s += ` · ${at}`;
    if (it.excerpt) s += ` · bytes ${it.excerpt.start}–${it.excerpt.end}`;
    out.push(h('span', null, s));
  }
  if (it.artifactId) out.push(h('span', null, h('code', null, `${it.artifactId}@v${it.version || '?'}`)));
  if (it.nodeId) {
    out.push(h('button', { type: 'button', class: 'link', 'data-node': it.nodeId, 'data-testid': 'ask-node', title: it.nodeId, onclick: () => choose(it.nodeId) },
      cut(it.label || labelOf(it.nodeId), 60)));
  }
  for (const s of it.supersededBy || []) {
    out.push(h('span', { class: 'superseded-by' }, 'superseded by ',
      h('button', { type: 'button', class: 'link', 'data-node': s.by, onclick: () => choose(s.by) }, cut(s.label || labelOf(s.by), 60))));
  }
  for (const c of it.conflictsWith || []) {
    out.push(h('span', { class: 'conflicts' }, 'contradicted by ',
      h('button', { type: 'button', class: 'link', 'data-node': c.with, onclick: () => choose(c.with) }, cut(c.label || labelOf(c.with), 60))));
  }
  if (!out.length && it.timestamp) out.push(h('span', null, fmtTime(it.timestamp)));
  return out.map((x, i) => (i ? [h('br'), x] : x));
}

/** The score, and its parts as small bars. */
function score(it) {
  const parts = Object.entries(it.parts || {}).filter(([, v]) => typeof v === 'number' && v !== 0).sort((a, b) => b[1] - a[1]);
  const top = Math.max(1, ...parts.map(([, v]) => Math.abs(v)));
  return [
    h('span', { class: 'score' }, num(it.score, 3)),
    parts.length ? h('div', { class: 'parts' }, parts.map(([k, v]) => h('div', { class: 'part', title: `${k}: ${num(v, 4)}` },
      h('span', { class: 'part-name' }, k),
      h('span', { class: 'bar' }, h('span', { class: v < 0 ? 'neg' : '', style: `width:${Math.round((Math.abs(v) / top) * 100)}%` })),
      h('span', { class: 'part-value' }, num(v, 3))))) : null,
  ];
}
