// ui.js: what the views share: building elements, the message area, the
// key form, reporting errors, formatting, colours and the page's state.

/** The page's state: the memory shown, the route, the labels seen. */
export const state = {
  memory: '',
  route: 'map',
  params: new URLSearchParams(),
  labels: new Map(), // node id → label, from every answer that named one
};

export const TYPES = ['concept', 'decision', 'problem', 'solution', 'fact', 'artifact'];

// Colours of the node types (and their legend): distinct at a glance, dark
// enough for white text on a badge.
export const TYPE_COLORS = {
  concept: '#3b6fb6',
  decision: '#d9730d',
  problem: '#c93c3c',
  solution: '#2f8f4e',
  fact: '#8a55b5',
  artifact: '#1f8a8a',
};

// Colours of the edges, by relation.
export const RELATION_COLORS = {
  supersedes: '#b23a48',
  solves: '#2f8f4e',
  causes: '#c96a12',
  contradicts: '#d1345b',
  implements: '#3b6fb6',
  resulted_in: '#7a5c3e',
  requires_decision: '#d9730d',
  depends_on: '#5c6bc0',
  part_of: '#1f8a8a',
  about: '#8a55b5',
  mentions: '#9aa5b1',
  related_to: '#9aa5b1',
};

export function typeColor(t) {
  return TYPE_COLORS[t] || '#6b7785';
}

export function relationColor(r) {
  return RELATION_COLORS[r] || '#9aa5b1';
}

/**
 * h builds an element: attrs sets attributes ("class", "text", "dataset",
 * on… listeners, which errors are reported from; true sets a boolean
 * attribute, null/false/undefined none), children are nodes or text.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), safe(v));
      else if (k === 'value') el.value = v;
      else if (v === true) el.setAttribute(k, '');
      else el.setAttribute(k, String(v));
    }
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** $ is the element of id. */
export function $(id) {
  return document.getElementById(id);
}

/** safe wraps fn so that what it throws or rejects with is reported. */
export function safe(fn) {
  return function wrapped(...args) {
    try {
      const r = fn.apply(this, args);
      if (r && typeof r.then === 'function') r.catch(report);
      return r;
    } catch (e) {
      report(e);
      return undefined;
    }
  };
}

let keyHook = () => {};

/** onKey sets what runs once a key was given (the page starts again). */
export function onKey(fn) {
  keyHook = fn;
}

/** report shows an error: a 401 asks for a key, an abort says nothing. */
export function report(err) {
  if (!err || err.name === 'AbortError') return;
  if (err.status === 401) {
    askKey(err.detail);
    return;
  }
  const detail = err.detail || err.message || String(err);
  showMessage(err.status ? `${detail}${err.status >= 500 ? ` (${err.status})` : ''}` : detail, 'error');
}

/** showMessage shows text in the message area until dismissed. */
export function showMessage(text, kind = 'error') {
  const box = $('message');
  if (!box) return;
  box.className = `message ${kind}`;
  $('message-text').textContent = text;
  box.hidden = false;
}

export function clearMessage() {
  const box = $('message');
  if (box) box.hidden = true;
}

/** askKey shows the key form, with why. */
export function askKey(why) {
  const form = $('key-form');
  form.hidden = false;
  showMessage(why || 'An API key is needed.', 'info');
  $('key-input').focus();
}

export function keyGiven() {
  $('key-form').hidden = true;
  clearMessage();
  keyHook();
}

/**
 * confirmButton makes btn ask again before it acts: the first click turns
 * it into confirmText, a second within a few seconds runs action.
 */
export function confirmButton(btn, confirmText, action) {
  const label = btn.textContent;
  let armed = false;
  let timer = 0;
  const reset = () => {
    armed = false;
    clearTimeout(timer);
    btn.textContent = label;
    btn.classList.remove('armed');
  };
  btn.addEventListener('click', safe(async () => {
    if (!armed) {
      armed = true;
      btn.textContent = confirmText;
      btn.classList.add('armed');
      timer = setTimeout(reset, 8000);
      return;
    }
    reset();
    btn.disabled = true;
    try {
      await action();
    } finally {
      btn.disabled = false;
    }
  }));
  btn.addEventListener('blur', () => {
    // Leaving the button disarms it, but not at once: a click elsewhere
    // first blurs, and a test's second click comes right after.
    if (armed) {
      clearTimeout(timer);
      timer = setTimeout(reset, 3000);
    }
  });
}

/** A time as a short local date and time, or "". */
export function fmtTime(s) {
  if (!s) return '';
  const d = new Date(s);
  if (Number.isNaN(d.getTime()) || d.getFullYear() < 1971) return '';
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** A time as a local day, or "". */
export function fmtDay(s) {
  if (!s) return '';
  const d = new Date(s);
  if (Number.isNaN(d.getTime()) || d.getFullYear() < 1971) return '';
  return d.toLocaleDateString(undefined, { weekday: 'short', year: 'numeric', month: 'long', day: 'numeric' });
}

/** A key of the local day of s, or "" for none. */
export function dayKey(s) {
  if (!s) return '';
  const d = new Date(s);
  if (Number.isNaN(d.getTime()) || d.getFullYear() < 1971) return '';
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** A number with at most digits decimals. */
export function num(x, digits = 2) {
  if (typeof x !== 'number' || !Number.isFinite(x)) return '';
  return String(Math.round(x * 10 ** digits) / 10 ** digits);
}

/** text cut to n characters, with an ellipsis. */
export function cut(text, n) {
  const s = String(text || '');
  return s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s;
}

/** remember keeps the labels of nodes an answer named. */
export function remember(nodes) {
  for (const n of nodes || []) {
    if (n && n.id && n.label) state.labels.set(n.id, n.label);
  }
}

/** labelOf is a node's label when one was seen, else its id. */
export function labelOf(id) {
  return state.labels.get(id) || id;
}

/** A badge of a node type. */
export function typeBadge(type) {
  return h('span', { class: 'badge', style: `background:${typeColor(type)}` }, type || 'node');
}

/** The route's hash for the memory shown. */
export function hashOf(route, extra) {
  const p = new URLSearchParams();
  if (state.memory) p.set('m', state.memory);
  for (const [k, v] of Object.entries(extra || {})) if (v) p.set(k, v);
  const q = p.toString();
  return `#/${route}${q ? `?${q}` : ''}`;
}
