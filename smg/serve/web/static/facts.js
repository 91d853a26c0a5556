// facts.js: the memory manager. The facts about the user, by category,
// each with its scope: pin, edit, forget; forget a whole scope; remember a
// new fact. Every change reloads the list; a refused one (a key that may
// only read) says why in the message area and changes nothing.

import { api, memoryPath } from './api.js';
import { $, clearMessage, confirmButton, cut, fmtTime, h, report, safe, showMessage, state } from './ui.js';

const CATEGORIES = ['identity', 'preference', 'relationship', 'project', 'context'];

let ctrl = null;
let seq = 0;

export function initFacts() {
  $('facts-superseded').addEventListener('change', safe(() => loadFacts()));
  $('fact-form').addEventListener('submit', safe(async (e) => {
    e.preventDefault();
    const input = $('fact-new');
    const content = input.value.trim();
    if (!content) return;
    const body = { content };
    if ($('fact-category').value) body.category = $('fact-category').value;
    if ($('fact-scope').value.trim()) body.scope = $('fact-scope').value.trim();
    const r = await change(() => api(memoryPath(state.memory, 'facts'), { method: 'POST', body }));
    if (r) {
      input.value = '';
      if (r.duplicate) showMessage('The memory held this fact already.', 'info');
      else if (r.supersedes && r.supersedes.length) showMessage(`Remembered; it supersedes ${r.supersedes.length} earlier fact${r.supersedes.length === 1 ? '' : 's'}.`, 'info');
    }
  }));
  confirmButton($('facts-clear'), 'Really clear?', async () => {
    const scope = $('facts-clear-scope').value;
    if (!scope) return;
    const r = await change(() => api(memoryPath(state.memory, 'facts'), { method: 'DELETE', query: { scope } }));
    if (r && r.forgotten) showMessage(`Forgot ${r.forgotten.length} fact${r.forgotten.length === 1 ? '' : 's'}.`, 'info');
  });
}

/**
 * change runs a request that changes the facts and reloads them; it
 * resolves to the answer, or to undefined when the request failed (and
 * the message area says why).
 */
async function change(request) {
  document.body.dataset.factsReady = '';
  let r;
  try {
    r = await request();
    clearMessage();
  } catch (e) {
    report(e);
    document.body.dataset.factsReady = '1';
    return undefined;
  }
  await loadFacts();
  return r === null ? {} : r;
}

export function showFacts() {
  return loadFacts();
}

/** loadFacts lists the facts of the memory shown. */
export async function loadFacts() {
  if (!state.memory) return;
  document.body.dataset.factsReady = '';
  const mine = ++seq;
  if (ctrl) ctrl.abort();
  ctrl = new AbortController();
  const superseded = $('facts-superseded').checked;
  let r;
  try {
    r = await api(memoryPath(state.memory, 'facts'), { query: { superseded: superseded ? 'true' : '' }, signal: ctrl.signal });
  } catch (e) {
    if (e && e.name === 'AbortError') return;
    if (mine === seq) document.body.dataset.factsReady = '1';
    throw e;
  }
  if (mine !== seq) return;
  render(r.facts || []);
  document.body.dataset.factsReady = '1';
}

// shown are the facts the list shows, by id: what a conflict names.
let shown = new Map();

function render(facts) {
  shown = new Map(facts.map((f) => [f.id, f]));
  const list = $('facts-list');
  const groups = new Map(CATEGORIES.map((c) => [c, []]));
  for (const f of facts) {
    const c = f.category || 'context';
    if (!groups.has(c)) groups.set(c, []);
    groups.get(c).push(f);
  }
  const out = [];
  for (const [cat, fs] of groups) {
    if (!fs.length) continue;
    fs.sort((a, b) => Number(b.current) - Number(a.current) || Number(b.pinned) - Number(a.pinned) || (b.importance || 0) - (a.importance || 0));
    out.push(h('section', { class: 'fact-group', 'data-category': cat },
      h('h2', null, cat, h('span', { class: 'muted count' }, ` ${fs.length}`)),
      h('ul', { class: 'facts' }, fs.map(row))));
  }
  if (!out.length) out.push(h('p', { class: 'muted empty' }, $('facts-superseded').checked ? 'The memory holds no fact.' : 'The memory holds no current fact.'));
  list.replaceChildren(...out);

  const scopes = [...new Set(facts.filter((f) => f.current !== false).map((f) => f.scope).filter(Boolean))].sort();
  const select = $('facts-clear-scope');
  const before = select.value;
  select.replaceChildren(...scopes.map((s) => h('option', { value: s }, s)), h('option', { value: '*' }, 'every scope'));
  if ([...select.options].some((o) => o.value === before)) select.value = before;
  $('facts-clear').disabled = facts.length === 0;
}

// contentOf is the content of the fact of this id the list shows, or
// the id.
function contentOf(id) {
  const f = shown.get(id);
  return f ? f.content : id;
}

// What a fact's origin says to a person.
const ORIGINS = { conversation: 'found in the conversation', assistant: 'saved by the assistant', user: 'saved by the user' };

function row(f) {
  const current = f.current !== false;
  const text = h('span', { class: `fact-text${current ? '' : ' struck'}`, 'data-testid': 'fact-text' }, f.content);
  const meta = h('span', { class: 'fact-meta' },
    f.scope ? h('span', { class: 'chip', title: 'Scope' }, f.scope) : null,
    f.pinned ? h('span', { class: 'chip pinned' }, 'pinned') : null,
    f.kind ? h('span', { class: 'chip', title: 'Kind' }, f.kind) : null,
    h('span', { class: 'muted', 'data-testid': 'fact-origin' }, ORIGINS[f.origin] || ''),
    !current ? h('span', { class: 'muted' }, `superseded${f.validTo ? ` ${fmtTime(f.validTo)}` : ''}`) : null,
    (f.conflictsWith || []).length
      ? h('span', { class: 'conflicts', 'data-testid': 'fact-conflict', title: 'These contradict each other and neither replaced the other: forget or edit the one that no longer holds.' },
        'in conflict with: ', f.conflictsWith.map((id) => cut(contentOf(id), 80)).join('; '))
      : null);
  const li = h('li', { class: `fact-row${current ? '' : ' superseded'}`, 'data-testid': 'fact-row', 'data-id': f.id });
  const body = h('div', { class: 'fact-body' }, text, meta);
  const actions = h('div', { class: 'fact-actions' });
  if (current) {
    actions.append(
      h('button', { type: 'button', 'data-testid': 'fact-pin', 'aria-pressed': f.pinned ? 'true' : 'false',
        onclick: () => change(() => api(memoryPath(state.memory, 'facts', f.id), { method: 'PATCH', body: { pinned: !f.pinned } })) },
      f.pinned ? 'Unpin' : 'Pin'),
      h('button', { type: 'button', 'data-testid': 'fact-edit', onclick: () => edit(li, body, actions, f) }, 'Edit'));
  }
  const forget = h('button', { type: 'button', class: 'danger', 'data-testid': 'fact-forget' }, 'Forget');
  confirmButton(forget, 'Really forget?', () => change(() => api(memoryPath(state.memory, 'facts', f.id), { method: 'DELETE' })));
  actions.append(forget);
  li.append(body, actions);
  return li;
}

/** edit turns the fact's row into a text field and Save. */
function edit(li, body, actions, f) {
  const input = h('input', { type: 'text', class: 'fact-input', 'data-testid': 'fact-edit-input', value: f.content, maxlength: '2000', 'aria-label': 'The fact' });
  const save = async () => {
    const content = input.value.trim();
    if (!content || content === f.content) {
      restore();
      return;
    }
    await change(() => api(memoryPath(state.memory, 'facts', f.id), { method: 'PATCH', body: { content } }));
  };
  const form = h('form', { class: 'fact-edit', onsubmit: (e) => { e.preventDefault(); return save(); } },
    input,
    h('button', { type: 'submit', 'data-testid': 'fact-save' }, 'Save'),
    h('button', { type: 'button', class: 'quiet', 'data-testid': 'fact-cancel', onclick: () => restore() }, 'Cancel'));
  const restore = () => li.replaceChildren(body, actions);
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') restore();
  });
  li.replaceChildren(form);
  input.focus();
  input.select();
}
