// timeline.js: the decisions and facts (or the types chosen) in the order
// they came up, by day, superseded ones struck through with what replaced
// them, and the supersede chains.

import { api, memoryPath } from './api.js';
import { openNode } from './detail.js';
import { $, TYPES, cut, dayKey, fmtDay, fmtTime, h, labelOf, remember, state, typeBadge, typeColor } from './ui.js';

const LIMIT = 500;
let ctrl = null;
let seq = 0;
let loadedFor = '';
const chosen = new Set(['decision', 'fact']);

export function initTimeline() {
  const box = $('timeline-types');
  for (const t of TYPES) {
    const id = `timeline-type-${t}`;
    box.append(h('span', { class: 'type-check' },
      h('input', { type: 'checkbox', id, 'data-testid': id, 'data-type': t, checked: chosen.has(t),
        onchange: (e) => {
          if (e.target.checked) chosen.add(t);
          else chosen.delete(t);
          return loadTimeline();
        } }),
      h('label', { for: id }, h('span', { class: 'swatch', style: `background:${typeColor(t)}` }), t)));
  }
}

export function showTimeline() {
  if (loadedFor === state.memory) return undefined;
  return loadTimeline();
}

export function forgetTimeline() {
  loadedFor = '';
}

export async function loadTimeline() {
  if (!state.memory) return;
  document.body.dataset.timelineReady = '';
  const mine = ++seq;
  if (ctrl) ctrl.abort();
  ctrl = new AbortController();
  if (chosen.size === 0) {
    render({ events: [], total: 0, chains: [], conflicts: [] });
    document.body.dataset.timelineReady = '1';
    return;
  }
  let t;
  try {
    t = await api(memoryPath(state.memory, 'timeline'), { query: { type: [...chosen], limit: LIMIT }, signal: ctrl.signal });
  } catch (e) {
    if (e && e.name === 'AbortError') return;
    if (mine === seq) document.body.dataset.timelineReady = '1';
    throw e;
  }
  if (mine !== seq) return;
  loadedFor = state.memory;
  remember(t.events);
  render(t);
  document.body.dataset.timelineReady = '1';
}

/** jump scrolls to the event id and shows its detail. */
function jump(id) {
  const el = document.querySelector(`#timeline li[data-id="${CSS.escape(id)}"]`);
  if (el) {
    for (const o of document.querySelectorAll('#timeline li.current')) o.classList.remove('current');
    el.classList.add('current');
    el.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }
  return openNode(id);
}

function link(id) {
  return h('button', { type: 'button', class: 'link', 'data-node': id, title: id, onclick: (e) => { e.stopPropagation(); return jump(id); } }, cut(labelOf(id), 70));
}

function render(t) {
  const events = t.events || [];
  $('timeline-count').textContent = events.length < (t.total || 0)
    ? `the latest ${events.length} of ${t.total} events`
    : `${events.length} event${events.length === 1 ? '' : 's'}`;
  const list = $('timeline');
  const items = [];
  let day = null;
  for (const ev of events) {
    const k = dayKey(ev.time);
    if (k !== day) {
      day = k;
      items.push(h('li', { class: 'day', 'data-day': k || 'none' }, h('h2', null, k ? fmtDay(ev.time) : 'Undated')));
    }
    items.push(event(ev));
  }
  if (!events.length) items.push(h('li', { class: 'muted empty' }, 'No event.'));
  list.replaceChildren(...items);

  const chains = t.chains || [];
  $('chains').replaceChildren(
    h('h2', null, 'Supersede chains'),
    chains.length
      ? h('ol', { class: 'chain-list' }, chains.map((c) => h('li', { class: 'chain', 'data-testid': 'chain' },
        c.flatMap((id, i) => (i ? [h('span', { class: 'arrow', 'aria-label': 'superseded by' }, ' → '), link(id)] : [link(id)])))))
      : h('p', { class: 'muted' }, 'Nothing was superseded.'),
    h('h2', null, 'Conflicts'),
    (t.conflicts || []).length
      ? h('ul', { class: 'chain-list' }, t.conflicts.map(([a, b]) => h('li', { class: 'chain conflict', 'data-testid': 'conflict' },
        link(a), h('span', { class: 'arrow', 'aria-label': 'contradicted by' }, ' ⟷ '), link(b))))
      : h('p', { class: 'muted' }, 'Nothing is in conflict.'),
  );
}

function event(ev) {
  const time = fmtTime(ev.time);
  const when = time ? new Date(ev.time).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' }) : '';
  const detail = ev.outcome || ev.description || '';
  const li = h('li', {
    class: `event${ev.superseded ? ' superseded' : ''}`,
    'data-testid': 'timeline-event',
    'data-id': ev.id,
    onclick: () => jump(ev.id),
  },
  h('div', { class: 'when muted', title: time }, when, ev.turn ? h('span', { class: 'turn' }, `turn ${ev.turn}`) : null),
  h('div', { class: 'what' },
    h('div', { class: 'event-head' },
      typeBadge(ev.type),
      h('button', { type: 'button', class: `link event-label${ev.superseded ? ' struck' : ''}`, onclick: (e) => { e.stopPropagation(); return jump(ev.id); } }, ev.label || ev.id),
      ev.category ? h('span', { class: 'chip' }, ev.category) : null,
      ev.scope ? h('span', { class: 'chip' }, ev.scope) : null,
      ev.pinned ? h('span', { class: 'chip pinned' }, 'pinned') : null),
    detail && detail !== ev.label ? h('p', { class: `event-text${ev.superseded ? ' struck' : ''}` }, cut(detail, 180)) : null,
    ev.supersededBy && ev.supersededBy.length
      ? h('p', { class: 'replaced' }, 'superseded by ', ev.supersededBy.map((id, i) => [i ? ', ' : '', link(id)]), ev.validTo ? h('span', { class: 'muted' }, ` · ${fmtTime(ev.validTo)}`) : null)
      : (ev.superseded ? h('p', { class: 'replaced muted' }, `no longer current${ev.validTo ? ` since ${fmtTime(ev.validTo)}` : ''}`) : null),
    ev.supersedes && ev.supersedes.length
      ? h('p', { class: 'replaces muted' }, 'supersedes ', ev.supersedes.map((id, i) => [i ? ', ' : '', link(id)]))
      : null,
    ev.conflictsWith && ev.conflictsWith.length
      ? h('p', { class: 'conflicts', 'data-testid': 'event-conflict' }, 'in conflict with ', ev.conflictsWith.map((id, i) => [i ? ', ' : '', link(id)]))
      : null));
  li.tabIndex = -1;
  return li;
}
