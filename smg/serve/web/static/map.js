// map.js: the knowledge map. The most important nodes that pass the
// filters, drawn with Cytoscape.js: colour by type, size by importance,
// edges by relation and strength. A click shows a node's detail; a double
// click (or Expand in the detail) adds its neighbours around it.

import { api, memoryPath } from './api.js';
import { openNode, setHooks, shownNode } from './detail.js';
import { forceLayout } from './force.js';
import {
  $, TYPES, cut, h, relationColor, remember, report, safe, state, typeColor,
} from './ui.js';

const NEIGHBOURS = 50; // neighbours an expansion adds, the most important
const MAJOR = 30; // nodes labelled at every zoom, the most important
const LABEL_WIDTH = 0.62; // a character's width, at most, over the font's size
const LABEL = 28; // characters of a label drawn
const ACROSS = 0.05; // the pull of an edge between two groups, of one within a group

let cy = null;
let ctrl = null;
let loadedFor = '';
let seq = 0; // the map asked for last
let span = { from: '', to: '' }; // the memory's first and last day
let last = null; // the last map answered
let expanded = 0; // nodes added by expansions since
let labelScale = 1; // labels' size for the zoom the map fit at
let fitZoom = 1; // the zoom the map fit at
let minorShown = false; // whether the lesser nodes' labels show
let unfitted = false; // whether the map was drawn while hidden

const filters = { q: '', types: new Set(TYPES), superseded: false, from: '', to: '', limit: 300 };

const STYLE = [
  {
    selector: 'node',
    style: {
      'background-color': 'data(color)',
      width: 'data(size)',
      height: 'data(size)',
      label: 'data(short)',
      'font-size': 'data(font)',
      'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
      color: '#1d2733',
      'text-valign': 'bottom',
      'text-halign': 'center',
      'text-margin-y': 2,
      'text-outline-color': '#ffffff',
      'text-outline-width': 2,
      'text-outline-opacity': 0.85,
      'min-zoomed-font-size': 5,
      'border-width': 1,
      'border-color': '#ffffff',
    },
  },
  { selector: 'node.person', style: { shape: 'round-diamond', 'border-width': 2, 'border-color': '#1d2733' } },
  { selector: 'node.minor', style: { label: '' } },
  { selector: 'node.minor.show', style: { label: 'data(short)' } },
  { selector: 'node.more', style: { 'border-width': 2, 'border-style': 'dashed', 'border-color': '#7d8995' } },
  { selector: 'node.pinned', style: { 'border-width': 3, 'border-style': 'solid', 'border-color': '#1d2733' } },
  { selector: 'node.superseded', style: { opacity: 0.35 } },
  {
    selector: 'edge',
    style: {
      width: 'data(width)',
      'line-color': 'data(color)',
      'curve-style': 'straight',
      'target-arrow-shape': 'triangle',
      'target-arrow-color': 'data(color)',
      'arrow-scale': 0.7,
      opacity: 0.65,
    },
  },
  { selector: 'edge.supersedes', style: { 'line-style': 'dashed', 'line-dash-pattern': [6, 4] } },
  { selector: '.dim', style: { opacity: 0.12 } },
  { selector: 'node.superseded.dim', style: { opacity: 0.08 } },
  { selector: 'edge.near', style: { opacity: 1 } },
  {
    selector: 'node:selected',
    style: { 'border-width': 4, 'border-style': 'solid', 'border-color': '#10161d', label: 'data(label)', 'z-index': 20, 'min-zoomed-font-size': 0 },
  },
  { selector: 'node.hover', style: { label: 'data(label)', 'z-index': 30, 'min-zoomed-font-size': 0 } },
];

/** initMap wires the map's controls; the map loads when first shown. */
export function initMap() {
  const types = $('map-types');
  for (const t of TYPES) {
    const id = `type-${t}`;
    types.append(h('span', { class: 'type-check' },
      h('input', { type: 'checkbox', id, 'data-testid': id, 'data-type': t, checked: true, onchange: onTypes }),
      h('label', { for: id },
        h('span', { class: 'swatch', style: `background:${typeColor(t)}` }), t, ' ',
        h('span', { class: 'count muted', id: `count-${t}` }))));
  }
  let timer = 0;
  const search = $('map-search');
  search.addEventListener('input', () => {
    clearTimeout(timer);
    document.body.dataset.mapReady = ''; // a map is coming
    timer = setTimeout(safe(() => {
      filters.q = search.value.trim();
      return load();
    }), 350);
  });
  $('map-controls').addEventListener('submit', safe((e) => {
    e.preventDefault();
    clearTimeout(timer);
    filters.q = search.value.trim();
    return load();
  }));
  $('show-superseded').addEventListener('change', safe((e) => {
    filters.superseded = e.target.checked;
    return load();
  }));
  const dateChanged = safe(() => {
    const from = $('map-from').value;
    const to = $('map-to').value;
    filters.from = from && from !== span.from ? from : '';
    filters.to = to && to !== span.to ? to : '';
    return load();
  });
  $('map-from').addEventListener('change', dateChanged);
  $('map-to').addEventListener('change', dateChanged);
  $('map-all-time').addEventListener('click', safe(() => {
    filters.from = '';
    filters.to = '';
    return load();
  }));
  $('map-fit').addEventListener('click', () => {
    if (cy) fitView();
  });
  setHooks({ select: selectNode, expand, canExpand, closed: unselect });
}

function onTypes() {
  filters.types = new Set([...document.querySelectorAll('#map-types input[data-type]')].filter((c) => c.checked).map((c) => c.dataset.type));
  return load();
}

/** showMap shows the map of the memory, loading it when it is another's. */
export function showMap() {
  if (state.memory !== loadedFor) {
    loadedFor = state.memory;
    filters.from = '';
    filters.to = '';
    span = { from: '', to: '' };
    load().catch(report);
  } else if (cy) {
    cy.resize();
    if (unfitted) {
      unfitted = false;
      fitView();
      fitZoom = cy.zoom();
      labelScale = Math.min(8, Math.max(0.5, 1 / fitZoom));
      cy.batch(() => cy.nodes().forEach((n) => { n.data('font', fontOf(n.hasClass('major'))); }));
    }
  }
}

/** forget drops the map: the memory changed. */
export function forgetMap() {
  loadedFor = '';
  if (cy) cy.elements().remove();
}

const day = (s) => {
  if (!s) return '';
  const d = new Date(s);
  return Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1971 ? '' : d.toISOString().slice(0, 10);
};

/** load asks for the map the filters choose and draws it. */
export async function load() {
  document.body.dataset.mapReady = '';
  const mine = ++seq;
  if (ctrl) ctrl.abort();
  ctrl = new AbortController();
  const t0 = performance.now();
  const all = filters.types.size === TYPES.length;
  if (filters.types.size === 0) {
    last = { nodes: [], edges: [], total: 0, all: last ? last.all : 0, types: last ? last.types : {} };
    await draw(last, t0, t0, mine, 'No type is chosen.');
    return;
  }
  const query = {
    limit: filters.limit,
    type: all ? [] : [...filters.types],
    superseded: filters.superseded ? 'true' : '',
    q: filters.q,
    from: filters.from ? `${filters.from}T00:00:00Z` : '',
    to: filters.to ? `${filters.to}T23:59:59Z` : '',
  };
  // Cytoscape starts (and the page paints) while the server answers.
  ensure();
  let m;
  try {
    m = await api(memoryPath(state.memory, 'map'), { query, signal: ctrl.signal });
  } catch (e) {
    if (e && e.name === 'AbortError') return;
    if (mine === seq) {
      last = null;
      await draw({ nodes: [], edges: [], total: 0, all: 0, types: {} }, t0, performance.now(), mine, 'The map could not be read.');
    }
    throw e;
  }
  if (mine !== seq) return;
  last = m;
  await draw(m, t0, performance.now(), mine, filters.q || !all || filters.from || filters.to ? 'No node passes these filters.' : 'The memory has no node yet.');
}

/** controls shows the filters as the map answered them. */
function controls(m) {
  for (const t of TYPES) {
    const c = $(`count-${t}`);
    if (c) c.textContent = m.types && m.types[t] !== undefined ? `${m.types[t]}` : '0';
  }
  if (m.from || m.to) span = { from: day(m.from), to: day(m.to) };
  for (const [id, v, lo, hi] of [['map-from', filters.from || span.from, span.from, span.to], ['map-to', filters.to || span.to, span.from, span.to]]) {
    const input = $(id);
    input.min = lo;
    input.max = hi;
    input.value = v || '';
  }
  $('map-all-time').hidden = !(filters.from || filters.to);
}

function count() {
  const el = $('map-count');
  if (!last) {
    el.textContent = '';
    return;
  }
  const n = cy ? cy.nodes().length : 0;
  let text = `Showing ${n - expanded} of ${last.total} node${last.total === 1 ? '' : 's'}`;
  if (expanded) text += ` (+${expanded} expanded)`;
  const hidden = (last.unlinked || 0) + (last.common || 0);
  if (hidden) text += ` · ${hidden} without an edge or too common not shown (search or filter by type to see them)`;
  if (last.all && last.all !== last.total) text += ` · ${last.all} in the memory`;
  el.textContent = text;
  document.body.dataset.mapNodes = String(n);
}

function ensure() {
  if (cy) return cy;
  if (typeof window.cytoscape !== 'function') throw new Error('Cytoscape.js did not load: the map cannot be drawn.');
  cy = window.cytoscape({
    container: $('cy'),
    style: STYLE,
    minZoom: 0.03,
    maxZoom: 5,
    boxSelectionEnabled: false,
    selectionType: 'single',
  });
  cy.on('tap', 'node', safe((e) => {
    select(e.target);
    return openNode(e.target.id());
  }));
  cy.on('dbltap', 'node', safe((e) => expand(e.target.id())));
  cy.on('tap', safe((e) => {
    if (e.target === cy) unselect();
  }));
  // For the browser tests and the curious: the map's nodes, and where on
  // the page one is drawn (a test clicks there).
  window.smgCy = cy;
  window.smgMap = {
    cy,
    nodes: () => cy.nodes().map((n) => n.id()),
    point(id) {
      const n = cy.getElementById(id);
      if (n.empty()) return null;
      const p = n.renderedPosition();
      const box = $('cy').getBoundingClientRect();
      return { x: Math.round(box.left + p.x), y: Math.round(box.top + p.y) };
    },
    open: (id) => selectNode(id),
    expand: (id) => expand(id),
  };
  cy.on('zoom', zoomed);
  cy.on('mouseover', 'node', (e) => e.target.addClass('hover'));
  cy.on('mouseout', 'node', (e) => e.target.removeClass('hover'));
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(() => {
      if (cy) cy.resize();
    }).observe($('cy'));
  }
  return cy;
}

const clamp01 = (x) => Math.max(0, Math.min(1, Number(x) || 0));
const sizeOf = (n) => Math.round(14 + 34 * clamp01(n.importance));
const byImportance = (a, b) => (b.importance || 0) - (a.importance || 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The label's size for the zoom the map fit at: 12 px there, 9 px for the
 * lesser nodes (shown once zoomed in). */
function fontOf(major) {
  return Math.round((major ? 12 : 9) * labelScale * 10) / 10;
}

/**
 * nodeElement is the Cytoscape element of the map node n: major ones are
 * labelled at every zoom, grid ones (see plan) have shorter labels, more
 * ones have edges that are not on the map.
 */
function nodeElement(n, major, position, { grid = false, more: missing = false } = {}) {
  const el = {
    group: 'nodes',
    data: {
      id: n.id,
      label: n.label || n.id,
      short: cut(n.label || n.id, grid ? 16 : LABEL),
      type: n.type,
      color: typeColor(n.type),
      size: sizeOf(n),
      font: fontOf(major),
      degree: n.degree || 0,
      importance: clamp01(n.importance),
      belongs: n.group || '',
    },
    classes: [n.type, n.kind === 'person' ? 'person' : '', n.superseded ? 'superseded' : '', n.pinned ? 'pinned' : '', major ? 'major' : 'minor', missing ? 'more' : ''].filter(Boolean).join(' '),
  };
  if (position) el.position = position;
  return el;
}

const edgeKey = (e) => `${e.from}\u0000${e.relation}\u0000${e.to}`;

/** The Cytoscape elements of the edges whose ends has holds, once each
 * (and, when adding to the map, those it does not hold yet). */
function edgeElements(edges, has, adding = false) {
  const out = [];
  const seen = new Set();
  for (const e of edges) {
    const id = edgeKey(e);
    if (seen.has(id) || !has(e.from) || !has(e.to) || (adding && cy.getElementById(id).nonempty())) continue;
    seen.add(id);
    const s = clamp01(e.strength);
    out.push({
      group: 'edges',
      data: { id, source: e.from, target: e.to, relation: e.relation, strength: s, color: relationColor(e.relation), width: Math.round((0.6 + 3.4 * s) * 10) / 10 },
      classes: e.relation,
    });
  }
  return out;
}

/** more marks the nodes some of whose edges are not on the map. */
function more() {
  cy.nodes().forEach((n) => {
    const missing = !n.data('expanded') && n.data('degree') > n.connectedEdges().length;
    n.toggleClass('more', missing);
  });
}

const GRID_X = 110; // a cell of the grid of nodes without an edge on the map
const GRID_Y = 46;

/**
 * plan lays a map out before it is drawn: the nodes with an edge on the
 * map by force (force.js), each pulled to the hub it belongs to (its
 * group), the others (often most of a large memory's) in
 * a grid below them, by type then importance, so that they take little
 * room and no time. It returns each node's position, the bounds of them
 * all, and the ids of those in the grid.
 */
function plan(nodes, edges) {
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const linkedAt = new Uint8Array(nodes.length);
  for (const e of edges) {
    if (e.from !== e.to && index.has(e.from) && index.has(e.to)) {
      linkedAt[index.get(e.from)] = 1;
      linkedAt[index.get(e.to)] = 1;
    }
  }
  const linked = nodes.filter((n, i) => linkedAt[i]).sort(byImportance);
  const alone = nodes.filter((n, i) => !linkedAt[i]);
  const pos = new Map();
  const box = { x1: Infinity, y1: Infinity, x2: -Infinity, y2: -Infinity };
  const grow = (x, y, r) => {
    box.x1 = Math.min(box.x1, x - r);
    box.y1 = Math.min(box.y1, y - r);
    box.x2 = Math.max(box.x2, x + r);
    box.y2 = Math.max(box.y2, y + r + 14); // the label below
  };
  if (linked.length) {
    const at = new Map(linked.map((n, i) => [n.id, i]));
    const r = Float64Array.from(linked, (n) => sizeOf(n) / 2);
    const links = [];
    for (const e of edges) {
      if (e.from !== e.to && at.has(e.from) && at.has(e.to)) {
        // An edge between two groups pulls weakly: each group gathers
        // around its hub (a person's facts, a file's changes).
        const s = at.get(e.from);
        const t = at.get(e.to);
        links.push([s, t, clamp01(e.strength), linked[s].group === linked[t].group ? 1 : ACROSS]);
      }
    }
    // A node that belongs to a hub it has no edge to is pulled to it.
    linked.forEach((n, i) => {
      if (n.group && n.group !== n.id && at.has(n.group)) links.push([i, at.get(n.group), 1, 1]);
    });
    const xy = forceLayout(linked.length, r, links);
    linked.forEach((n, i) => {
      const p = { x: xy[2 * i], y: xy[2 * i + 1] };
      pos.set(n.id, p);
      grow(p.x, p.y, r[i]);
    });
  }
  if (alone.length) {
    const n = alone.length;
    const left = linked.length ? box.x1 : 0;
    const width = linked.length ? box.x2 - box.x1 : 0;
    const top = linked.length ? box.y2 + 60 : 0;
    const cols = Math.max(1, Math.min(n, Math.max(Math.round(Math.sqrt(0.75 * n)), Math.floor(width / GRID_X))));
    const gridWidth = cols * GRID_X;
    const x0 = left + (width - gridWidth) / 2;
    const rank = (t) => { const i = TYPES.indexOf(t); return i < 0 ? TYPES.length : i; };
    alone.sort((a, b) => rank(a.type) - rank(b.type) || byImportance(a, b));
    alone.forEach((node, i) => {
      const p = { x: x0 + (i % cols) * GRID_X + GRID_X / 2, y: top + Math.floor(i / cols) * GRID_Y };
      pos.set(node.id, p);
      grow(p.x, p.y, sizeOf(node) / 2);
    });
  }
  return { pos, box, grid: new Set(alone.map((n) => n.id)) };
}

/**
 * uncrowd keeps, of the labels drawn at the zoom the map fits at, those
 * that do not overlap a label of a more important node: the others show
 * once zoomed in, as the lesser nodes' do. A label's box is reckoned from
 * its characters and its font, wide enough for any of them.
 */
function uncrowd(major, nodes, p) {
  const kept = [];
  const font = fontOf(true);
  const pinnedFirst = (a, b) => Number(!!b.pinned) - Number(!!a.pinned) || byImportance(a, b);
  for (const n of [...nodes].sort(pinnedFirst)) {
    if (!major.has(n.id)) continue;
    const at = p.pos.get(n.id);
    if (!at) continue;
    const text = cut(n.label || n.id, p.grid.has(n.id) ? 16 : LABEL);
    const w = text.length * font * LABEL_WIDTH + 10; // its outline, and a margin
    const top = at.y + sizeOf(n) / 2 - 1;
    const box = { x1: at.x - w / 2, x2: at.x + w / 2, y1: top, y2: top + font * 1.5 + 6 };
    if (kept.some((b) => b.x1 < box.x2 && box.x1 < b.x2 && b.y1 < box.y2 && box.y1 < b.y2)) {
      major.delete(n.id);
      continue;
    }
    kept.push(box);
  }
}

/** The zoom and pan that show box in the map, with some room around. */
function viewportOf(box) {
  const pad = 30;
  const w = Math.max(1, cy.width() - 2 * pad);
  const ht = Math.max(1, cy.height() - 2 * pad);
  const bw = Math.max(1, box.x2 - box.x1);
  const bh = Math.max(1, box.y2 - box.y1);
  const zoom = Math.min(2, Math.max(cy.minZoom(), Math.min(w / bw, ht / bh)));
  return { zoom, pan: { x: cy.width() / 2 - (zoom * (box.x1 + box.x2)) / 2, y: cy.height() / 2 - (zoom * (box.y1 + box.y2)) / 2 } };
}

/** fitView shows every node, from their positions and sizes alone (quicker
 * than Cytoscape's fit, which measures every label). */
function fitView() {
  if (!cy || !cy.nodes().length) return;
  const box = { x1: Infinity, y1: Infinity, x2: -Infinity, y2: -Infinity };
  cy.nodes().forEach((n) => {
    const p = n.position();
    const r = n.data('size') / 2;
    box.x1 = Math.min(box.x1, p.x - r);
    box.y1 = Math.min(box.y1, p.y - r);
    box.x2 = Math.max(box.x2, p.x + r);
    box.y2 = Math.max(box.y2, p.y + r + 14);
  });
  cy.viewport(viewportOf(box));
}

const frame = () => new Promise((resolve) => { requestAnimationFrame(() => resolve()); });

/**
 * draw draws the map m, laid out before its elements are added, so that
 * Cytoscape computes their style and draws them once; then it tells that
 * the map is ready, and how long it took.
 */
async function draw(m, t0, t1, mine, empty) {
  controls(m);
  const g = ensure();
  const nodes = m.nodes || [];
  remember(nodes);
  expanded = 0;
  const t2 = performance.now();
  g.resize();
  unfitted = g.width() === 0; // drawn while another view showed
  const ids = new Set(nodes.map((n) => n.id));
  const edges = edgeElements(m.edges || [], (id) => ids.has(id));
  const p = plan(nodes, m.edges || []);
  const vp = nodes.length ? viewportOf(p.box) : { zoom: 1, pan: { x: 0, y: 0 } };
  fitZoom = vp.zoom;
  labelScale = Math.min(8, Math.max(0.5, 1 / fitZoom));
  minorShown = false;
  const major = new Set([...nodes].sort(byImportance).slice(0, nodes.length <= 2 * MAJOR ? nodes.length : MAJOR).map((n) => n.id));
  for (const n of nodes) if (n.pinned) major.add(n.id);
  // Labels side by side in a large grid would overlap: they show once
  // zoomed in, as the lesser nodes' do.
  if (p.grid.size > 24) for (const id of p.grid) major.delete(id);
  uncrowd(major, nodes, p);
  const onMap = new Map();
  for (const e of edges) {
    onMap.set(e.data.source, (onMap.get(e.data.source) || 0) + 1);
    if (e.data.target !== e.data.source) onMap.set(e.data.target, (onMap.get(e.data.target) || 0) + 1);
  }
  const keep = shownNode();
  g.batch(() => {
    g.elements().remove();
    g.viewport(vp);
    g.add(nodes.map((n) => nodeElement(n, major.has(n.id), p.pos.get(n.id), { grid: p.grid.has(n.id), more: (n.degree || 0) > (onMap.get(n.id) || 0) })));
    g.add(edges);
  });
  legend(m);
  count();
  $('map-empty').hidden = nodes.length > 0;
  $('map-empty').textContent = nodes.length ? '' : empty;
  if (keep && g.getElementById(keep).nonempty()) select(g.getElementById(keep), false);
  const t3 = performance.now();
  await frame();
  await frame();
  if (mine !== seq) return;
  const t4 = performance.now();
  window.smgTimings = {
    mapMs: Math.round(t4 - t0), // from the map's request to drawn
    fetchMs: Math.round(t1 - t0),
    layoutMs: Math.round(t3 - t2),
    drawMs: Math.round(t4 - t3),
    pageMs: Math.round(t4), // from the navigation's start
    nodes: nodes.length,
    edges: g.edges().length,
    all: m.all || 0, // the memory's nodes
    unlinked: (m.unlinked || 0) + (m.common || 0), // left out: no edge, or too common a concept
  };
  document.body.dataset.mapReady = '1';
}

/** zoomed shows the lesser nodes' labels once the map is zoomed in. */
function zoomed() {
  const show = cy.zoom() >= fitZoom * 1.6;
  if (show === minorShown) return;
  minorShown = show;
  cy.batch(() => cy.nodes('.minor').toggleClass('show', show));
}

function legend(m) {
  const box = $('legend');
  const rels = [...new Set((m.edges || []).map((e) => e.relation))].sort();
  box.replaceChildren(
    h('div', { class: 'legend-row' }, TYPES.map((t) => h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${typeColor(t)}` }), t))),
    rels.length ? h('div', { class: 'legend-row' }, rels.map((r) => h('span', { class: 'legend-item' },
      h('span', { class: `line${r === 'supersedes' ? ' dashed' : ''}`, style: `border-color:${relationColor(r)}` }), r.replace(/_/g, ' ')))) : null,
    h('div', { class: 'legend-row muted' },
      (m.nodes || []).some((n) => n.kind === 'person') ? h('span', { class: 'legend-item' }, h('span', { class: 'diamond' }), 'person') : null,
      h('span', { class: 'legend-item' }, h('span', { class: 'ring dashed' }), 'more to expand'),
      h('span', { class: 'legend-item' }, h('span', { class: 'ring pinned' }), 'pinned'),
      h('span', { class: 'legend-item' }, h('span', { class: 'swatch faded' }), 'superseded')),
  );
}

/** select selects the node on the map and lights its neighbourhood. */
function select(node, center = true) {
  if (!cy || node.empty()) return;
  cy.batch(() => {
    cy.elements().removeClass('dim near');
    cy.$(':selected').unselect();
    node.select();
    const near = node.closedNeighborhood();
    cy.elements().not(near).addClass('dim');
    near.edges().addClass('near');
  });
  if (center) {
    const p = node.renderedPosition();
    const w = cy.width();
    const ht = cy.height();
    if (p.x < 0 || p.y < 0 || p.x > w || p.y > ht) cy.animate({ center: { eles: node } }, { duration: 200 });
  }
}

function unselect() {
  if (!cy) return;
  cy.batch(() => {
    cy.elements().removeClass('dim near');
    cy.$(':selected').unselect();
  });
}

/** selectNode shows the node id: selected on the map when it is there. */
function selectNode(id) {
  if (state.route === 'map' && cy) {
    const node = cy.getElementById(id);
    if (node.nonempty()) select(node);
    else unselect();
  }
  return openNode(id);
}

/** canExpand tells whether the detail's node can add to the map. */
function canExpand(n) {
  if (state.route !== 'map' || !cy) return false;
  const node = cy.getElementById(n.id);
  if (node.empty()) return true;
  return !node.data('expanded') && (n.degree || 0) > node.connectedEdges().length;
}

/**
 * fan places count nodes around c, from radius r0 out, facing the angle
 * dir (away from the rest of the map): a few on an arc, more on rings.
 */
function fan(c, r0, count, dir) {
  const out = [];
  let r = r0;
  while (out.length < count) {
    const left = count - out.length;
    const spread = Math.min(2 * Math.PI, Math.max(0.6 * Math.PI, (left * 44) / r));
    const k = Math.min(left, Math.max(3, Math.floor((spread * r) / 44)));
    for (let j = 0; j < k; j++) {
      const a = spread >= 2 * Math.PI ? dir + (2 * Math.PI * j) / k : dir - spread / 2 + (spread * (j + 0.5)) / k;
      out.push({ x: c.x + r * Math.cos(a), y: c.y + r * Math.sin(a) });
    }
    r += 56;
  }
  return out;
}

/** outward is the angle from the middle of the map's nodes to p. */
function outward(p) {
  const box = cy.nodes().boundingBox({ includeLabels: false, includeOverlays: false });
  const dx = p.x - (box.x1 + box.x2) / 2;
  const dy = p.y - (box.y1 + box.y2) / 2;
  return Math.abs(dx) + Math.abs(dy) < 1 ? -Math.PI / 2 : Math.atan2(dy, dx);
}

/** expand adds the node's neighbours around it, laying out only them. */
export async function expand(id) {
  if (!cy || !state.memory) return;
  document.body.dataset.mapExpanded = '';
  const near = await api(memoryPath(state.memory, 'nodes', id, 'neighbours'), { query: { limit: NEIGHBOURS } });
  remember(near.nodes);
  let center = cy.getElementById(id);
  let c;
  const added = [];
  if (center.empty()) {
    const ext = cy.extent();
    c = { x: (ext.x1 + ext.x2) / 2, y: (ext.y1 + ext.y2) / 2 };
  } else {
    c = center.position();
  }
  const fresh = (near.nodes || []).filter((n) => cy.getElementById(n.id).empty());
  const self = fresh.find((n) => n.id === id);
  const others = fresh.filter((n) => n.id !== id);
  const r0 = (center.nonempty() ? center.data('size') / 2 : 24) + 70;
  const places = fan(c, r0, others.length, center.nonempty() ? outward(c) : -Math.PI / 2);
  if (self) added.push(nodeElement(self, true, { ...c }));
  others.forEach((n, i) => added.push(nodeElement(n, true, places[i])));
  const has = (x) => cy.getElementById(x).nonempty() || added.some((a) => a.data.id === x);
  const edges = edgeElements(near.edges || [], has, true);
  // The neighbours asked for are labelled as the most important are.
  cy.add([...added, ...edges]);
  expanded += added.length;
  center = cy.getElementById(id);
  center.data('expanded', true);
  more();
  count();
  if (last) legend({ edges: cy.edges().map((e) => ({ relation: e.data('relation') })) });
  select(center, false);
  const group = center.closedNeighborhood();
  // Bring the neighbourhood into view: by panning when it fits at this
  // zoom, else by zooming out to it.
  const bb = group.renderedBoundingBox({ includeOverlays: false });
  const w = cy.width();
  const ht = cy.height();
  const m = 24;
  if (bb.w < w - 2 * m && bb.h < ht - 2 * m) {
    const dx = bb.x1 < m ? m - bb.x1 : bb.x2 > w - m ? w - m - bb.x2 : 0;
    const dy = bb.y1 < m ? m - bb.y1 : bb.y2 > ht - m ? ht - m - bb.y2 : 0;
    if (dx || dy) cy.animate({ panBy: { x: dx, y: dy } }, { duration: 200 });
  } else {
    cy.animate({ fit: { eles: group, padding: m } }, { duration: 250 });
  }
  document.body.dataset.mapExpanded = id;
  if (shownNode() === id) await openNode(id); // its Expand button goes
}
