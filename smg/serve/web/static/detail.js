// detail.js: the side panel of a node's detail, which every view opens:
// its fields, a decision's rationale and rejected alternatives, its edges,
// the turns that mention it and an artifact's content and versions.

import { api, memoryPath } from './api.js';
import { $, cut, fmtTime, h, num, remember, report, state, typeBadge, relationColor } from './ui.js';

let ctrl = null;
let shown = '';
const hooks = { select: null, expand: null, canExpand: null };

/**
 * setHooks: select(id) is called when a node is chosen in the panel (the
 * map selects it too), expand(id) by the Expand button, shown when
 * canExpand(node) says so.
 */
export function setHooks(h) {
  Object.assign(hooks, h);
}

/** The id of the node shown, or "". */
export function shownNode() {
  return shown;
}

export function closeDetail() {
  if (ctrl) ctrl.abort();
  shown = '';
  const panel = $('detail');
  panel.hidden = true;
  panel.replaceChildren();
  document.body.classList.remove('with-detail');
  if (hooks.closed) hooks.closed();
}

/** choose shows the node id: through the map's hook when there is one. */
export function choose(id) {
  if (hooks.select) hooks.select(id);
  else openNode(id);
}

/** openNode loads and shows the node id of the memory shown. */
export async function openNode(id) {
  if (!id || !state.memory) return;
  if (ctrl) ctrl.abort();
  ctrl = new AbortController();
  const signal = ctrl.signal;
  shown = id;
  const panel = $('detail');
  panel.hidden = false;
  document.body.classList.add('with-detail');
  panel.setAttribute('aria-busy', 'true');
  if (!panel.firstChild) panel.append(h('p', { class: 'muted' }, 'Loading…'));
  try {
    const n = await api(memoryPath(state.memory, 'nodes', id), { signal });
    if (signal.aborted) return;
    remember([n]);
    remember((n.edges || []).map((e) => e.other));
    panel.replaceChildren(...render(n));
    panel.scrollTop = 0;
  } catch (e) {
    if (e && e.name === 'AbortError') return;
    panel.replaceChildren(head({ id, label: id }), h('p', { class: 'muted' }, 'This node could not be read.'));
    report(e);
  } finally {
    if (!signal.aborted) panel.removeAttribute('aria-busy');
  }
}

/** head is the panel's heading: type, label, close and expand. */
function head(n) {
  const tools = h('div', { class: 'detail-tools' });
  if (hooks.canExpand && hooks.expand && n.type && hooks.canExpand(n)) {
    tools.append(h('button', { type: 'button', id: 'expand', 'data-testid': 'expand', title: 'Add its neighbours to the map', onclick: () => hooks.expand(n.id) }, 'Expand'));
  }
  tools.append(h('button', { type: 'button', class: 'icon', 'data-testid': 'detail-close', 'aria-label': 'Close the detail', title: 'Close', onclick: closeDetail }, '×'));
  return h('header', { class: 'detail-head' },
    h('div', { class: 'detail-title' }, n.type ? typeBadge(n.type) : null,
      h('h2', { id: 'detail-label', 'data-testid': 'detail-label' }, n.label || n.id)),
    tools);
}

function section(title, ...children) {
  return h('section', { class: 'detail-section' }, h('h3', null, title), ...children);
}

/** A button naming a node, that shows it. */
export function nodeLink(id, label, attrs = {}) {
  return h('button', { type: 'button', class: 'link', 'data-node': id, title: id, onclick: () => choose(id), ...attrs }, label || id);
}

function render(n) {
  const out = [head(n)];
  const facts = [
    ['Importance', num(n.importance)],
    ['Confidence', num(n.confidence)],
    ['Activation', num(n.activation)],
    ['Edges', String(n.degree ?? '')],
    ['Time', fmtTime(n.time)],
    ['Category', n.category],
    ['Scope', n.scope],
    ['Source', n.source],
    ['Valid from', fmtTime(n.validFrom)],
    ['Valid to', fmtTime(n.validTo)],
  ].filter(([, v]) => v);
  const flags = [];
  if (n.superseded) flags.push(h('span', { class: 'flag superseded' }, 'superseded'));
  if (n.pinned) flags.push(h('span', { class: 'flag pinned' }, 'pinned'));
  out.push(h('div', { class: 'detail-meta' },
    flags.length ? h('div', { class: 'flags' }, flags) : null,
    h('dl', { class: 'kv' }, facts.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])),
    h('p', { class: 'node-id muted' }, 'id ', h('code', null, n.id))));
  if (n.description) out.push(h('p', { class: 'description' }, n.description));
  if (n.aliases && n.aliases.length) out.push(h('p', { class: 'aliases muted' }, `Also: ${n.aliases.join(', ')}`));

  if (n.outcome || n.rationale || (n.alternatives && n.alternatives.length)) {
    const parts = [];
    if (n.outcome) parts.push(h('p', null, h('strong', null, 'Outcome: '), n.outcome));
    if (n.rationale) parts.push(h('p', null, h('strong', null, 'Why: '), n.rationale));
    if (n.alternatives && n.alternatives.length) {
      parts.push(h('p', { class: 'sub' }, 'Rejected alternatives'),
        h('ul', { class: 'alternatives', 'data-testid': 'alternatives' },
          n.alternatives.map((a) => h('li', null, h('span', { class: 'option' }, a.option), a.reason ? h('span', { class: 'muted' }, ` — ${a.reason}`) : null))));
    }
    out.push(section('Decision', ...parts));
  }
  if (n.revisions && n.revisions.length) {
    out.push(h('details', { class: 'detail-section' }, h('summary', null, `Earlier descriptions (${n.revisions.length})`),
      h('ol', null, n.revisions.map((r) => h('li', null, r)))));
  }
  if (n.artifact) out.push(artifact(n.artifact));

  const edges = n.edges || [];
  out.push(section(`Edges (${edges.length})`, edges.length
    ? h('ul', { class: 'edges', 'data-testid': 'detail-edges' }, edges.map((e) => h('li', { style: `border-left-color:${relationColor(e.relation)}` },
      h('div', { class: 'edge-top' },
        h('span', { class: 'rel', title: e.out ? `this node ${e.relation} the other` : `the other ${e.relation} this node` },
          e.out ? `${e.relation.replace(/_/g, ' ')} →` : `← ${e.relation.replace(/_/g, ' ')}`),
        h('span', { class: 'muted strength', title: 'strength' }, num(e.strength))),
      h('div', { class: 'other' }, typeBadge(e.other.type), ' ',
        nodeLink(e.other.id, cut(e.other.label, 120), { 'data-testid': 'edge-node', class: `link${e.other.superseded ? ' struck' : ''}` })))))
    : h('p', { class: 'muted' }, 'None.')));

  const mentions = n.mentions || [];
  const count = Math.max(n.mentionCount || 0, mentions.length);
  const list = h('ol', { class: 'mentions', 'data-testid': 'mentions' });
  if (count > mentions.length) list.append(h('li', { class: 'more muted' }, `${count - mentions.length} more, earlier`));
  for (const m of mentions) {
    const who = [m.role, m.speaker].filter(Boolean).join(' · ');
    list.append(h('li', null,
      h('div', { class: 'mention-head' }, h('strong', null, `Turn ${m.turn}`), m.time ? ` · ${fmtTime(m.time)}` : '', who ? h('span', { class: 'muted' }, ` · ${who}`) : ''),
      h('div', { class: 'mention-text' }, m.text + (m.cut ? ' …' : ''))));
  }
  out.push(section(`Mentioned in ${count} turn${count === 1 ? '' : 's'}`, count ? list : h('p', { class: 'muted' }, 'No turn mentions it.')));
  return out;
}

/** The diff, its lines coloured. */
export function diffView(text) {
  const pre = h('pre', { class: 'diff' });
  for (const line of String(text).split('\n')) {
    let cls = '';
    if (line.startsWith('+++') || line.startsWith('---')) cls = 'file';
    else if (line.startsWith('+')) cls = 'add';
    else if (line.startsWith('-')) cls = 'del';
    else if (line.startsWith('@@')) cls = 'hunk';
    pre.append(h('span', { class: cls || null }, line), '\n');
  }
  return pre;
}

function artifact(a) {
  const name = [a.filename, a.language, a.type].filter(Boolean).join(' · ');
  const versions = [...(a.versions || [])].reverse();
  return section(`Artifact ${a.id}`,
    name ? h('p', { class: 'muted' }, name) : null,
    h('pre', { class: 'content', 'data-testid': 'artifact-content' }, a.content || ''),
    h('h4', null, `Versions (${versions.length})`),
    h('ol', { class: 'versions', reversed: true, 'data-testid': 'artifact-versions' }, versions.map((v, i) => h('li', null,
      h('details', { open: i === 0 && Boolean(v.diff) },
        h('summary', null, `v${v.v}`, v.time ? ` · ${fmtTime(v.time)}` : '', v.turn ? ` · turn ${v.turn}` : '', ` · ${v.size} bytes`, v.diff ? '' : (v.v === 1 ? ' (the first)' : ' (no diff)')),
        v.diff ? diffView(v.diff) : null)))));
}
