// api.js: requests to smg serve's JSON API on the same origin. Every
// request sends the API key kept in localStorage ("smgKey"), when there is
// one, as "Authorization: Bearer KEY". A request that fails rejects with an
// ApiError carrying the RFC 9457 problem's status, title and detail.

const KEY = 'smgKey';

/** An error of the API: the problem the server answered, or a network one. */
export class ApiError extends Error {
  constructor(status, title, detail) {
    super(detail || title || `HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.title = title || '';
    this.detail = detail || title || `HTTP ${status}`;
  }
}

/** The API key kept, or "". */
export function getKey() {
  try {
    return localStorage.getItem(KEY) || '';
  } catch {
    return '';
  }
}

/** Keeps key (forgets it when empty). */
export function setKey(key) {
  try {
    if (key) localStorage.setItem(KEY, key);
    else localStorage.removeItem(KEY);
  } catch {
    // Storage refused (a private window): the key lasts for no request.
  }
}

/** The path of memory id, and of what follows it. */
export function memoryPath(id, ...rest) {
  return ['/v1/memories', id, ...rest].map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join('/');
}

/**
 * The query string of params, empty values left out. An array is sent as
 * one value, its items joined by commas (type=decision,fact): huma reads a
 * list parameter so unless it is declared with "explode", and then reads
 * only the first of repeated ones.
 */
export function queryString(params) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v === undefined || v === null || v === '' || v === false) continue;
    if (Array.isArray(v)) {
      if (v.length) qs.append(k, v.map(String).join(','));
    } else {
      qs.append(k, String(v));
    }
  }
  const s = qs.toString();
  return s ? `?${s}` : '';
}

/** The detail of a problem, with the errors of a validation listed. */
function problemDetail(p, status, statusText) {
  if (!p || typeof p !== 'object') return statusText || `HTTP ${status}`;
  let detail = p.detail || p.title || statusText || `HTTP ${status}`;
  if (Array.isArray(p.errors) && p.errors.length) {
    const list = p.errors.map((e) => [e.location, e.message].filter(Boolean).join(': ')).filter(Boolean);
    if (list.length) detail += ` (${list.join('; ')})`;
  }
  return detail;
}

/**
 * Requests path (under the origin) and resolves to its JSON, or null for
 * an empty answer. opts: method, query (an object), body (sent as JSON),
 * signal (an AbortSignal: an aborted request rejects with an AbortError).
 */
export async function api(path, opts = {}) {
  const { method = 'GET', query, body, signal } = opts;
  const headers = { Accept: 'application/json, application/problem+json' };
  const key = getKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  const init = { method, headers, signal, cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path + queryString(query), init);
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(0, 'Network error', `the server could not be reached (${e && e.message ? e.message : e})`);
  }
  let text = '';
  try {
    text = await res.text();
  } catch (e) {
    if (e && e.name === 'AbortError') throw e;
    throw new ApiError(res.status, 'Network error', 'the answer could not be read');
  }
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    throw new ApiError(res.status, data && data.title, problemDetail(data, res.status, res.statusText));
  }
  if (text && data === null) throw new ApiError(res.status, 'Bad answer', 'the server did not answer with JSON');
  return data;
}
