// app.js: the page. Chooses the memory (the one the hash names, else the
// first the server lists), routes the hash to the four views (#/map,
// #/facts, #/timeline, #/ask, each with ?m=MEMORY) and asks for an API key
// when the server wants one.

import { api, getKey, setKey } from './api.js';
import { initAsk, showAsk, forgetAsk } from './ask.js';
import { closeDetail } from './detail.js';
import { initFacts, showFacts } from './facts.js';
import { forgetMap, initMap, showMap } from './map.js';
import { forgetTimeline, initTimeline, showTimeline } from './timeline.js';
import { $, clearMessage, h, hashOf, keyGiven, onKey, report, safe, showMessage, state } from './ui.js';

const ROUTES = ['map', 'facts', 'timeline', 'ask'];
const SHOW = { map: showMap, facts: showFacts, timeline: showTimeline, ask: showAsk };

let memories = null; // the ids the server listed, once it did

/** parse reads the hash: #/ROUTE?m=MEMORY. */
function parse() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query] = raw.split('?');
  const route = ROUTES.includes(path) ? path : 'map';
  return { route, params: new URLSearchParams(query || '') };
}

/** listMemories asks the server for the memories' ids. */
async function listMemories() {
  const r = await api('/v1/memories');
  const list = (r && r.memories) || [];
  return list.map((m) => (typeof m === 'string' ? m : m && m.id)).filter(Boolean);
}

function fillMemories() {
  const select = $('memory');
  select.replaceChildren(...memories.map((id) => h('option', { value: id }, id)));
  select.value = state.memory;
  select.disabled = memories.length < 2;
  select.parentElement.hidden = memories.length === 0;
}

/** route shows the view the hash names, for the memory it names. */
async function route() {
  const { route: r, params } = parse();
  const wanted = params.get('m') || state.memory;
  if (memories === null) {
    const listing = listMemories();
    if (wanted) {
      // The view named need not wait for the list, which only fills the
      // chooser (or says the memory is not there).
      memories = [wanted];
      listing.then((list) => {
        memories = list;
        if (list.includes(wanted)) {
          fillMemories();
        } else {
          showMessage(`There is no memory ${wanted}${list.length ? `: showing ${list[0]}` : ''}.`, 'error');
          state.memory = '';
          location.hash = list.length ? `#/${parse().route}?m=${encodeURIComponent(list[0])}` : '#/map';
        }
      }, report);
    } else {
      memories = await listing;
      if (!memories.length) {
        showMessage('The server holds no memory yet: add one (smg serve, POST /v1/memories) or open a file with smg view.', 'info');
      }
    }
  }
  let m = wanted || memories[0] || '';
  if (m && !memories.includes(m)) {
    showMessage(`There is no memory ${m}${memories.length ? `: showing ${memories[0]}` : ''}.`, 'error');
    m = memories[0] || '';
  }
  if (m !== state.memory) {
    state.memory = m;
    state.labels.clear();
    closeDetail();
    forgetMap();
    forgetTimeline();
    forgetAsk();
  }
  state.route = r;
  state.params = params;
  fillMemories();
  document.title = m ? `${m} · smg` : 'smg';
  // The hash names the memory, so that a link or a reload shows it again.
  const want = hashOf(r);
  if (m && location.hash !== want) history.replaceState(null, '', want);
  for (const a of document.querySelectorAll('.tabs a')) {
    a.href = hashOf(a.dataset.route);
    if (a.dataset.route === r) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  for (const v of document.querySelectorAll('.view')) v.hidden = v.dataset.view !== r;
  document.body.dataset.route = r;
  if (!m) {
    document.body.dataset.mapReady = '1';
    return;
  }
  await SHOW[r]();
}

function start() {
  memories = null;
  $('memory').parentElement.hidden = true;
  $('key-forget').hidden = !getKey();
  route().catch(report);
}

function init() {
  initMap();
  initFacts();
  initTimeline();
  initAsk();
  $('message-dismiss').addEventListener('click', clearMessage);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !$('message').hidden) clearMessage();
  });
  $('memory').addEventListener('change', safe((e) => {
    state.memory = '';
    location.hash = `#/${parse().route}?m=${encodeURIComponent(e.target.value)}`;
  }));
  $('key-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const key = $('key-input').value.trim();
    if (!key) return;
    setKey(key);
    $('key-input').value = '';
    keyGiven();
  });
  $('key-forget').addEventListener('click', () => {
    setKey('');
    $('key-forget').hidden = true;
    start();
  });
  onKey(start);
  window.addEventListener('hashchange', safe(() => route()));
  window.addEventListener('unhandledrejection', (e) => {
    e.preventDefault();
    report(e.reason);
  });
  start();
}

init();
