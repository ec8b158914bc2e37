// The Switchyard dashboard: plain JavaScript over the admin API (/admin/v1). No build step, no libraries.
// Everything from the server is shown with textContent, never parsed as HTML.
'use strict';

const API = '/admin/v1';
const token = document.querySelector('meta[name="switchyard-admin-token"]').content;
const authorization = { Authorization: `Bearer ${token}` };

// ---- small helpers ----

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') node.className = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function showToast(text, isError = false) {
  const toast = $('toast');
  toast.textContent = text;
  toast.className = isError ? 'toast error' : 'toast';
  toast.hidden = false;
  clearTimeout(showToast.timer);
  showToast.timer = setTimeout(() => { toast.hidden = true; }, isError ? 8000 : 3000);
}

// Every time as the command line prints it: UTC with the date, `2026-01-01T12:00:00.000Z`.
function formatTime(value) {
  const date = ejsonDate(value);
  if (!date || Number.isNaN(date.getTime())) return '';
  return date.toISOString();
}

function ejsonDate(value) {
  if (!value) return null;
  if (typeof value === 'object' && '$date' in value) {
    const inner = value.$date;
    if (typeof inner === 'string') return new Date(inner);
    if (inner && typeof inner === 'object' && '$numberLong' in inner) return new Date(Number(inner.$numberLong));
    return new Date(inner);
  }
  return null;
}

// ---- the server: requests, a lost token, live streams ----

class APIError extends Error {
  constructor(status, body) {
    super((body && body.error) || `HTTP ${status}`);
    this.status = status;
    this.code = body && body.error_code;
  }
}

// The token changes whenever `switchyard serve` restarts: once the server answers again, reload the page (which
// the server fills with the new token) and keep the current tab, which lives in the URL's fragment.
let reloading = false;
async function recoverToken() {
  if (reloading) return new Promise(() => {});
  reloading = true;
  setConnection('reconnecting');
  for (;;) {
    try {
      const page = await fetch('/', { cache: 'no-store' });
      if (page.ok) { location.reload(); return new Promise(() => {}); }
    } catch (_) { /* not back yet */ }
    await sleep(1000);
  }
}

async function request(method, path, body) {
  const options = { method, headers: { ...authorization }, cache: 'no-store' };
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = body;
  }
  const response = await fetch(API + path, options);
  const text = await response.text();
  if (response.status === 401) return recoverToken();
  if (!response.ok) {
    let parsed = null;
    try { parsed = JSON.parse(text); } catch (_) { /* not JSON */ }
    throw new APIError(response.status, parsed);
  }
  return text;
}

async function getJSON(path) {
  return JSON.parse(await request('GET', path));
}

const liveStreams = new Map();
function setConnection(state) {
  const badge = $('connection');
  badge.className = `connection ${state}`;
  badge.textContent = state === 'live' ? 'live' : state === 'reconnecting' ? 'reconnecting…' : 'offline';
}
function updateConnection() {
  const states = [...liveStreams.values()];
  setConnection(states.length > 0 && states.every((open) => open) ? 'live' : 'reconnecting');
}

// Follows a server-sent event stream with fetch (so the token travels in a header, never in a URL) and
// reconnects when it ends: the server stopped, restarted or the network blinked. `onOpen` runs at each
// (re)connection, for catching up on what was missed meanwhile.
function follow(name, pathFunction, handlers, onOpen) {
  let controller = null;
  const run = async () => {
    let delay = 500;
    for (;;) {
      controller = new AbortController();
      try {
        const response = await fetch(API + pathFunction(), {
          headers: authorization, cache: 'no-store', signal: controller.signal,
        });
        if (response.status === 401) { await recoverToken(); return; }
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        liveStreams.set(name, true);
        updateConnection();
        delay = 500;
        if (onOpen) onOpen();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, '\n');
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            dispatch(buffer.slice(0, end), handlers);
            buffer = buffer.slice(end + 2);
          }
        }
      } catch (error) {
        if (error.name === 'AbortError' && controller.restarting) { controller.restarting = false; continue; }
      }
      liveStreams.set(name, false);
      updateConnection();
      await sleep(delay);
      delay = Math.min(delay * 2, 4000);
    }
  };
  liveStreams.set(name, false);
  run();
  // Reconnects at once (with a new path, after a filter changed).
  return () => { if (controller) { controller.restarting = true; controller.abort(); } };
}

function dispatch(block, handlers) {
  let event = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length > 0 && handlers[event]) handlers[event](data.join('\n'));
}

// ---- Extended JSON text, kept exactly as the server wrote it ----
// JSON.parse would turn 1.0 into 1 and round 64-bit integers, so a document edited and saved back would
// change types. This reader keeps numbers as their text and keys in their order.

function parseLossless(text) {
  let at = 0;
  const fail = (message) => { throw new SyntaxError(`${message} at character ${at + 1}`); };
  const space = () => { while (at < text.length && ' \t\n\r'.includes(text[at])) at++; };
  const value = () => {
    space();
    const char = text[at];
    if (char === '{') {
      at++;
      const entries = [];
      space();
      if (text[at] === '}') { at++; return { t: 'o', e: entries }; }
      for (;;) {
        space();
        if (text[at] !== '"') fail('expected a key');
        const key = string();
        space();
        if (text[at++] !== ':') fail("expected ':'");
        entries.push([key, value()]);
        space();
        if (text[at] === ',') { at++; continue; }
        if (text[at] === '}') { at++; return { t: 'o', e: entries }; }
        fail("expected ',' or '}'");
      }
    }
    if (char === '[') {
      at++;
      const items = [];
      space();
      if (text[at] === ']') { at++; return { t: 'a', e: items }; }
      for (;;) {
        items.push(value());
        space();
        if (text[at] === ',') { at++; continue; }
        if (text[at] === ']') { at++; return { t: 'a', e: items }; }
        fail("expected ',' or ']'");
      }
    }
    if (char === '"') return { t: 's', v: string() };
    const literal = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at, at + 400));
    if (!literal) fail('unexpected character');
    at += literal[0].length;
    return { t: 'n', v: literal[0] };
  };
  const string = () => {
    const start = at;
    at++;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    if (at >= text.length) fail('unterminated string');
    at++;
    return JSON.parse(text.slice(start, at));
  };
  const result = value();
  space();
  if (at !== text.length) fail('unexpected text after the value');
  return result;
}

function member(node, key) {
  if (!node || node.t !== 'o') return undefined;
  const entry = node.e.find(([name]) => name === key);
  return entry && entry[1];
}

// Pretty text: two-space indentation, with type wrappers like {"$oid": "…"} kept on one line.
function printLossless(node, indent = '') {
  const inner = indent + '  ';
  switch (node.t) {
    case 's': return JSON.stringify(node.v);
    case 'n': return node.v;
    case 'a':
      if (node.e.length === 0) return '[]';
      return `[\n${node.e.map((item) => inner + printLossless(item, inner)).join(',\n')}\n${indent}]`;
    case 'o': {
      if (node.e.length === 0) return '{}';
      if (node.e.every(([key]) => key.startsWith('$')) && node.e.length <= 2) {
        return `{${node.e.map(([key, item]) => `${JSON.stringify(key)}: ${printLossless(item, '')}`).join(', ')}}`
          .replace(/\n\s*/g, ' ');
      }
      const lines = node.e.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${printLossless(item, inner)}`);
      return `{\n${lines.join(',\n')}\n${indent}}`;
    }
    default: return '';
  }
}

// ---- tabs ----

const tabs = ['triggers', 'logs', 'data', 'users', 'outbox'];
const tabOpened = {};
function showTab() {
  const name = tabs.includes(location.hash.slice(1)) ? location.hash.slice(1) : 'triggers';
  for (const tab of tabs) $(`tab-${tab}`).hidden = tab !== name;
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('active', link.dataset.tab === name);
  if (tabOpened[name]) tabOpened[name]();
}
window.addEventListener('hashchange', showTab);

// ---- triggers ----

let triggerStatuses = [];
function renderTriggers(statuses) {
  triggerStatuses = statuses;
  const body = $('triggers');
  body.replaceChildren(...statuses.map((status) => {
    const lag = status.pendingLogEntries === undefined ? '—'
      : `${status.pendingLogEntries}${status.lagSeconds === undefined ? '' : ` · ${Math.floor(status.lagSeconds)} s`}`;
    const ordering = status.ordering === undefined ? null
      : el('div', { class: 'hint ordering' },
        status.maxConcurrency === undefined ? status.ordering : `${status.ordering}, ${status.maxConcurrency} at once`);
    const clusterTime = status.lastClusterTime
      ? `Timestamp(${status.lastClusterTime.$timestamp.t}, ${status.lastClusterTime.$timestamp.i})` : '—';
    const action = status.state === 'running'
      ? el('button', { class: 'small', onclick: () => controlTrigger(status.name, 'suspend') }, 'Suspend')
      : status.state === 'suspended'
        ? el('button', { class: 'small', onclick: () => controlTrigger(status.name, 'resume') }, 'Resume')
        : '';
    return el('tr', { 'data-trigger': status.name },
      el('td', {}, el('strong', {}, status.name),
        status.suspension
          ? el('div', { class: 'hint' }, status.suspension.reason
            + (status.suspension.resumesWhenStorageReturns ? ' (resumes when storage returns)' : ''))
          : null,
        status.inMemoryOnly
          ? el('div', { class: 'hint warning' }, 'state in memory only: saved when storage returns')
          : null,
        status.resumeGap
          ? el('div', { class: 'hint warning' }, `resume point lost: skipped ${status.resumeGap.skippedEntries}`
            + ` change-log entries at ${formatTime(status.resumeGap.time)}`)
          : null,
        ...(status.warnings || []).map((warning) => el('div', { class: 'hint warning' }, warning))),
      el('td', { class: 'type' }, status.type, ordering),
      el('td', { class: 'source' }, status.source || ''),
      el('td', {}, status.function),
      el('td', {}, el('span', { class: `badge ${status.state}` }, status.state),
        status.node ? el('div', { class: 'hint node' }, `held by node ${status.node}`) : null),
      el('td', { class: 'number' }, status.processed),
      el('td', { class: 'number' }, status.failedAttempts),
      el('td', { class: 'number' }, status.deadLettered),
      el('td', { class: 'number' }, lag),
      el('td', { class: 'number' }, status.inFlight),
      el('td', {}, formatTime(status.lastEventTime)),
      el('td', { class: 'heartbeat' }, formatTime(status.heartbeat)),
      el('td', { class: 'cluster-time' }, clusterTime),
      el('td', {}, action));
  }));
  fillSelect($('log-trigger'), statuses.map((status) => status.name));
  loadDeadLetters();
}

async function controlTrigger(name, action) {
  try {
    const body = action === 'resume' ? JSON.stringify({ fromToken: $('resume-from-token').checked }) : undefined;
    await request('POST', `/triggers/${encodeURIComponent(name)}/${action}`, body);
    showToast(`${name}: ${action === 'resume' ? 'resumed' : 'suspended'}`);
  } catch (error) {
    showToast(`${name}: ${error.message}`, true);
  }
}

async function loadDeadLetters() {
  if (!triggerStatuses.some((status) => status.deadLettered > 0) && $('dead-letters').children.length === 0) return;
  try {
    const { deadLetters } = await getJSON('/deadLetters');
    $('dead-letters-empty').hidden = deadLetters.length > 0;
    $('dead-letters').replaceChildren(...deadLetters.map((letter) => el('li', { class: 'card' },
      el('div', { class: 'card-head' }, el('strong', {}, letter.trigger), ` · ${letter.kind} · `,
        `${letter.attempts} attempts · ${formatTime(letter.failedAt)}`,
        el('button', { class: 'small', onclick: () => redeliver(letter._id.$oid) }, 'Redeliver')),
      el('div', { class: 'error' }, letter.error),
      el('pre', {}, JSON.stringify(letter.event, null, 2)))));
  } catch (error) {
    showToast(`dead letters: ${error.message}`, true);
  }
}

async function redeliver(id) {
  try {
    await request('POST', `/deadLetters/${id}/redeliver`);
    showToast('redelivered');
  } catch (error) {
    showToast(error.message, true);
  }
  loadDeadLetters();
}

// ---- invocations ----

const invocationIds = new Set();
const maximumInvocationRows = 500;
let invocationsFollowed = null;

function invocationQuery() {
  const parameters = new URLSearchParams();
  for (const [name, id] of [['function', 'log-function'], ['trigger', 'log-trigger'], ['outcome', 'log-outcome']]) {
    if ($(id).value) parameters.set(name, $(id).value);
  }
  return parameters.toString();
}

function invocationRow(record) {
  const row = el('tr', {
    class: `invocation ${record.outcome}`, 'data-function': record.function,
    'data-start': String(ejsonDate(record.start).getTime()),
  },
    el('td', {}, formatTime(record.start)),
    el('td', {}, el('span', { class: `badge ${record.outcome}` }, record.outcome)),
    el('td', {}, record.function),
    el('td', {}, record.trigger || `user ${record.userId}`),
    el('td', { class: 'number' }, record.attempt),
    el('td', { class: 'number' }, `${Number(record.durationMs).toFixed(1)} ms`),
    el('td', { class: 'error' }, record.error || ''));
  const lines = el('pre', {}, (record.logs || []).join('\n') || '(no log lines)');
  const cell = el('td', { colspan: 7 }, lines);
  // A database trigger's run can be replayed: its event, run again now on the data as it was then.
  if (record.trigger && record.eventId) {
    const replay = el('button', { type: 'button', class: 'replay' }, 'replay');
    const outcome = el('pre', { class: 'replay-report', hidden: true });
    replay.addEventListener('click', (event) => {
      event.stopPropagation();
      replayInvocation(record._id.$oid, outcome);
    });
    cell.append(replay, outcome);
  }
  const logs = el('tr', { class: 'logs', hidden: true }, cell);
  row.record = record;
  row.addEventListener('click', () => { logs.hidden = !logs.hidden; });
  return [row, logs];
}

// Shows what the run's function does now on its event against what the run did then.
async function replayInvocation(id, output) {
  try {
    const report = JSON.parse(await request('POST', `/invocations/${id}/replay`));
    const [event] = report.events;
    output.textContent = event
      ? `${event.same ? 'same' : event.then ? `different: ${event.differences.join(', ')}` : 'no recorded run'}\n`
        + `then: ${JSON.stringify(event.then || null)}\nnow:  ${JSON.stringify(event.now)}`
      : 'the trigger no longer takes this event';
    output.hidden = false;
  } catch (error) {
    showToast(`replay: ${error.message}`, true);
  }
}

// Newest first. The live feed and a catch-up after a reconnection can overlap: a record shows once.
function addInvocations(records) {
  const body = $('invocations');
  const fresh = records.filter((record) => !invocationIds.has(record._id.$oid));
  if (fresh.length === 0) return;
  for (const record of fresh) invocationIds.add(record._id.$oid);
  const newestShown = body.firstElementChild && Number(body.firstElementChild.dataset.start);
  const sorted = fresh.sort((a, b) => ejsonDate(b.start) - ejsonDate(a.start));
  if (newestShown === undefined || newestShown === null || Number.isNaN(newestShown)
    || ejsonDate(sorted[sorted.length - 1].start) >= newestShown) {
    body.prepend(...sorted.flatMap(invocationRow));
  } else {
    // Older than what is shown (a catch-up): put every row back in order.
    const rows = [...body.children].filter((row) => row.classList.contains('invocation'));
    const all = [...rows.map((row) => row.record), ...sorted].sort((a, b) => ejsonDate(b.start) - ejsonDate(a.start));
    body.replaceChildren(...all.flatMap(invocationRow));
  }
  while (body.children.length > maximumInvocationRows * 2) body.lastElementChild.remove();
  $('invocations-empty').hidden = body.children.length > 0;
}

async function loadInvocations() {
  try {
    const { invocations } = await getJSON(`/invocations?limit=200&${invocationQuery()}`);
    addInvocations(invocations);
  } catch (error) {
    showToast(`invocations: ${error.message}`, true);
  }
}

async function loadLogForwarders() {
  try {
    const { logForwarders } = await getJSON('/logForwarders');
    $('log-forwarders-section').hidden = logForwarders.length === 0;
    $('log-forwarders').replaceChildren(...logForwarders.map((forwarder) => el('tr', {},
      el('td', {}, el('strong', {}, forwarder.name), forwarder.disabled ? el('div', { class: 'hint' }, 'disabled') : null),
      el('td', {}, `${forwarder.logTypes.join(', ')} · ${forwarder.logStatuses.join(', ')} · ${forwarder.policy}`),
      el('td', {}, forwarder.action.collection ? `collection ${forwarder.action.collection}`
        : `function ${forwarder.action.function}`),
      el('td', {}, String(forwarder.queued)),
      el('td', {}, String(forwarder.delivered)),
      el('td', {}, String(forwarder.failed)),
      el('td', {}, String(forwarder.dropped)),
      el('td', { class: 'error' }, forwarder.lastError
        ? `${forwarder.lastError} (${formatTime(forwarder.lastErrorTime)})` : ''))));
  } catch (error) {
    showToast(`log forwarders: ${error.message}`, true);
  }
}

function restartInvocations() {
  invocationIds.clear();
  $('invocations').replaceChildren();
  if (invocationsFollowed) invocationsFollowed();
}

function fillSelect(select, names) {
  const known = new Set([...select.options].map((option) => option.value));
  for (const name of [...new Set(names)].sort()) {
    if (!known.has(name)) select.append(el('option', { value: name }, name));
  }
}

// ---- data ----

let page = 0;
function dataPath(suffix) {
  const database = encodeURIComponent($('data-database').value.trim());
  const collection = encodeURIComponent($('data-collection').value.trim());
  return `/databases/${database}/collections/${collection}/${suffix}`;
}

function showDataError(message) {
  $('data-error').textContent = message || '';
  $('data-error').hidden = !message;
}

// Switchyard's own bookkeeping (change log, resume tokens, outbox, subscriptions) lives in `local`: the app's
// databases come first.
const internalDatabases = new Set(['local']);
function appFirst(databases) {
  return databases.slice().sort((a, b) => internalDatabases.has(a.name) - internalDatabases.has(b.name));
}

async function loadDatabases() {
  try {
    const databases = appFirst((await getJSON('/databases')).databases);
    // Nothing chosen yet: open the app's first collection rather than an empty form.
    const first = databases.find((database) => database.collections.length > 0);
    if (first && !$('data-database').value.trim() && !$('data-collection').value.trim()) {
      openCollection(first.name, first.collections[0].name);
    }
    $('database-names').replaceChildren(...databases.map((database) => el('option', { value: database.name })));
    $('databases').replaceChildren(...databases.map((database) => el('li', {},
      el('span', { class: 'database' }, database.name),
      el('ul', {}, database.collections.map((collection) => el('li', {},
        el('a', {
          href: '#data', 'data-namespace': `${database.name}.${collection.name}`,
          onclick: (event) => { event.preventDefault(); openCollection(database.name, collection.name); },
        }, collection.name, el('span', { class: 'count' }, collection.count))))))));
    const current = databases.find((database) => database.name === $('data-database').value);
    $('collection-names').replaceChildren(
      ...(current ? current.collections : []).map((collection) => el('option', { value: collection.name })));
  } catch (error) {
    showToast(`databases: ${error.message}`, true);
  }
}

function openCollection(database, collection) {
  $('data-database').value = database;
  $('data-collection').value = collection;
  page = 0;
  sessionStorage.setItem('switchyard.collection', JSON.stringify([database, collection]));
  loadDocuments();
}

async function loadDocuments() {
  if (!$('data-database').value.trim() || !$('data-collection').value.trim()) return;
  const limit = Number($('data-limit').value);
  const parameters = new URLSearchParams({ limit: String(limit), skip: String(page * limit) });
  if ($('data-filter').value.trim()) parameters.set('filter', $('data-filter').value.trim());
  if ($('data-sort').value.trim()) parameters.set('sort', $('data-sort').value.trim());
  try {
    const answer = parseLossless(await request('GET', `${dataPath('documents')}?${parameters}`));
    const count = Number(member(answer, 'count').v);
    const documents = member(answer, 'documents').e;
    showDataError(null);
    $('page-status').textContent = count === 0 ? 'no documents'
      : `${page * limit + 1}–${page * limit + documents.length} of ${count}`;
    $('page-previous').disabled = page === 0;
    $('page-next').disabled = (page + 1) * limit >= count;
    $('documents').replaceChildren(...documents.map(documentCard));
  } catch (error) {
    showDataError(error.message);
  }
}

function documentCard(node) {
  const id = member(node, '_id');
  const filter = id ? `{"_id": ${printLossless(id)}}` : null;
  const text = printLossless(node);
  const pre = el('pre', { class: 'document' }, text);
  const card = el('li', { class: 'card' });
  const edit = () => {
    const area = el('textarea', { rows: Math.min(30, text.split('\n').length + 1), spellcheck: 'false' });
    area.value = text;
    const save = async () => {
      try {
        parseLossless(area.value);
        await request('POST', dataPath('update'), `{"filter": ${filter}, "update": ${area.value}}`);
        showToast('saved');
        loadDocuments();
      } catch (error) {
        showToast(error.message, true);
      }
    };
    card.replaceChildren(area, el('div', { class: 'actions' },
      el('button', { onclick: save }, 'Save'), el('button', { onclick: () => loadDocuments() }, 'Cancel')));
  };
  const remove = async () => {
    if (!confirm('Delete this document?')) return;
    try {
      await request('POST', dataPath('delete'), `{"filter": ${filter}}`);
      showToast('deleted');
      loadDocuments();
      loadDatabases();
    } catch (error) {
      showToast(error.message, true);
    }
  };
  card.append(pre, filter ? el('div', { class: 'actions' },
    el('button', { class: 'small', onclick: edit }, 'Edit'),
    el('button', { class: 'small danger', onclick: remove }, 'Delete')) : null);
  return card;
}

async function insertDocument() {
  const text = $('insert-document').value.trim();
  try {
    parseLossless(text);
    const answer = JSON.parse(await request('POST', dataPath('documents'), text));
    showToast(`inserted ${JSON.stringify(answer.insertedId)}`);
    $('insert-document').value = '';
    showDataError(null);
    loadDatabases();
    loadDocuments();
  } catch (error) {
    showDataError(error.message);
  }
}

// ---- users ----

async function loadUsers() {
  try {
    const { users, count } = await getJSON('/users?limit=500');
    $('users-empty').hidden = users.length > 0;
    $('users-count').textContent = count === 1 ? '1 user' : `${count} users`;
    $('users').replaceChildren(...users.map((user) => el('tr', { 'data-user': user._id },
      el('td', { class: 'mono' }, user._id),
      el('td', {}, user.type || ''),
      el('td', {}, (user.identities || []).map((identity) => identity.provider_type).join(', ')),
      el('td', {}, (user.data && user.data.email) || ''),
      el('td', {}, formatTime(user.createdAt)),
      el('td', {}, formatTime(user.lastLoginAt)),
      el('td', {}, user.customData ? el('pre', {}, JSON.stringify(user.customData, null, 2)) : ''),
      el('td', {}, el('button', { class: 'small danger', onclick: () => deleteUser(user._id) }, 'Delete')))));
  } catch (error) {
    showToast(`users: ${error.message}`, true);
  }
}

async function deleteUser(id) {
  if (!confirm(`Delete user ${id}? Their sessions end and the delete triggers run.`)) return;
  try {
    await request('DELETE', `/users/${encodeURIComponent(id)}`);
    showToast(`deleted user ${id}`);
  } catch (error) {
    showToast(error.message, true);
  }
  loadUsers();
}

// ---- fault injection ----

const faultCounts = ['unavailable', 'internalErrors', 'quotaExceeded', 'rateLimit', 'retryAfterSeconds',
  'latencyMilliseconds', 'connectionResets'];

function showFaults(faults) {
  for (const name of faultCounts) {
    const input = $(`fault-${name}`);
    if (document.activeElement !== input) input.value = faults[name];
  }
  const tokens = $('fault-unregisteredTokens');
  if (document.activeElement !== tokens) tokens.value = faults.unregisteredTokens.join('\n');
  const active = faultCounts.some((name) => name !== 'retryAfterSeconds' && faults[name] > 0)
    || faults.unregisteredTokens.length > 0;
  $('faults-state').textContent = active ? 'faults on' : 'no faults';
  $('faults-state').className = active ? 'badge failure' : 'badge';
}

async function loadFaults() {
  try {
    showFaults(await getJSON('/faults'));
  } catch (error) {
    showToast(`faults: ${error.message}`, true);
  }
}

async function applyFaults(event) {
  event.preventDefault();
  const changes = {};
  for (const name of faultCounts) changes[name] = Number($(`fault-${name}`).value || 0);
  changes.unregisteredTokens = $('fault-unregisteredTokens').value.split(/[\s,]+/).filter(Boolean);
  try {
    document.activeElement.blur();
    showFaults(JSON.parse(await request('PATCH', '/faults', JSON.stringify(changes))));
    showToast('faults applied');
  } catch (error) {
    showToast(error.message, true);
  }
}

async function clearFaults() {
  try {
    showFaults(JSON.parse(await request('DELETE', '/faults')));
    showToast('faults cleared');
  } catch (error) {
    showToast(error.message, true);
  }
}

// ---- notifications: the outbox on a phone per device ----

const outboxEntries = [];
const outboxNames = new Set();
let devices = [];

function addOutboxEntries(entries) {
  for (const entry of entries) {
    if (outboxNames.has(entry.name)) continue;
    outboxNames.add(entry.name);
    outboxEntries.push(entry);
  }
  outboxEntries.sort((a, b) => (ejsonDate(a.time) || 0) - (ejsonDate(b.time) || 0));
  while (outboxEntries.length > 500) outboxNames.delete(outboxEntries.shift().name);
  renderOutbox();
}

async function loadOutbox() {
  try {
    const { messages } = await getJSON('/outbox?limit=200');
    addOutboxEntries(messages);
  } catch (error) {
    showToast(`outbox: ${error.message}`, true);
  }
}

async function loadDevices() {
  try {
    ({ devices } = await getJSON('/devices'));
    renderOutbox();
  } catch (error) {
    showToast(`devices: ${error.message}`, true);
  }
}

function targetText(target) {
  if (target.token) return `token ${target.token.slice(0, 12)}…`;
  if (target.topic) return `topic ${target.topic}`;
  return `condition ${target.condition}`;
}

// Whether a delivered message shows on a device: the outbox lists the registered tokens each message reached
// (the token itself, or a topic's or condition's subscribers at the time).
function reaches(entry, device) {
  if (entry.error || !(entry.ios || entry.android || entry.web)) return false;
  if (Array.isArray(entry.reachedTokens)) return entry.reachedTokens.includes(device.token);
  return entry.target.token === device.token;
}

// What a card of `platform` shows of an entry: the view that platform's app receives. A device registered with
// no platform is drawn as an iPhone (the outbox records its iOS and Android views).
function shownView(entry, platform) {
  if (platform === 'android') return entry.android && androidNotification(entry);
  if (platform === 'web') return entry.web && webNotification(entry);
  return entry.ios && iosNotification(entry);
}

function notificationHead(entry, app) {
  return el('div', { class: 'notification-head' }, el('span', { class: 'app' }, app),
    el('span', { class: 'when' }, formatTime(entry.time)));
}

function dataLine(data) {
  const text = Object.entries(data || {}).map(([key, value]) => `${key}: ${value}`).join(' · ');
  return text ? el('div', { class: 'data' }, text) : null;
}

// Relaxed Extended JSON writes small integers as plain numbers, canonical as {"$numberInt": "1"}.
function integer(value) {
  return value && typeof value === 'object' ? Number(value.$numberInt || value.$numberLong) : Number(value);
}

// The aps alert, and the image the notification service extension shows: only when mutable-content wakes it.
function iosNotification(entry) {
  const userInfo = entry.ios.userInfo || {};
  const aps = userInfo.aps || {};
  const alert = typeof aps.alert === 'string' ? { body: aps.alert } : (aps.alert || {});
  const image = userInfo.fcm_options && userInfo.fcm_options.image;
  const extension = integer(aps['mutable-content']) === 1;
  const custom = {};
  for (const [key, value] of Object.entries(userInfo)) {
    if (key !== 'aps' && key !== 'fcm_options' && !key.startsWith('gcm.') && !key.startsWith('google.')) {
      custom[key] = typeof value === 'string' ? value : JSON.stringify(value);
    }
  }
  return [
    notificationHead(entry, 'SWITCHYARD APP'),
    image && extension ? el('img', { src: image, alt: '', class: 'thumbnail' }) : null,
    el('div', { class: 'title' }, alert.title || (aps['content-available'] ? '(background push)' : '(no alert)')),
    alert.body ? el('div', { class: 'body' }, alert.body) : null,
    image && !extension ? el('div', { class: 'data' }, 'image not shown: aps mutable-content is not 1') : null,
    dataLine(custom),
    el('div', { class: 'meta' }, `gcm.message_id ${userInfo['gcm.message_id'] || 'missing'}`),
  ];
}

function androidNotification(entry) {
  const notification = entry.android.notification || {};
  return [
    notificationHead(entry, 'Switchyard app'),
    el('div', { class: 'title' }, notification.title || '(data message)'),
    notification.body ? el('div', { class: 'body' }, notification.body) : null,
    notification.imageUrl ? el('img', { src: notification.imageUrl, alt: '', class: 'picture' }) : null,
    dataLine(entry.android.data),
    el('div', { class: 'meta' }, `${entry.android.priority} priority · from ${entry.android.from}`),
  ];
}

function webNotification(entry) {
  const notification = entry.web.notification || {};
  const link = entry.web.fcmOptions && entry.web.fcmOptions.link;
  return [
    notificationHead(entry, location.host),
    notification.image ? el('img', { src: notification.image, alt: '', class: 'picture' }) : null,
    el('div', { class: 'title' }, notification.title || '(data message)'),
    notification.body ? el('div', { class: 'body' }, notification.body) : null,
    dataLine(entry.web.data),
    link ? el('div', { class: 'meta' }, `opens ${link}`) : null,
  ];
}

const platformNames = { '': 'Platform not registered', ios: 'iPhone', android: 'Android', web: 'Web browser' };

async function registerPlatform(token, platform) {
  try {
    await request('PUT', `/devices/${encodeURIComponent(token)}`, JSON.stringify({ platform: platform || null }));
    await loadDevices();
  } catch (error) {
    showToast(`${token}: ${error.message}`, true);
  }
}

// Makes `parent`'s children exactly `nodes`, in order, moving or adding only what differs: a node that stays
// where it is is not touched, so its arrival animation plays once.
function reconcile(parent, nodes) {
  const wanted = new Set(nodes);
  for (const child of [...parent.children]) if (!wanted.has(child)) child.remove();
  nodes.forEach((node, index) => {
    if (parent.children[index] !== node) parent.insertBefore(node, parent.children[index] || null);
  });
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

// A card per device, kept across refreshes (the devices list is polled and the outbox streams): only what
// changed is redrawn.
const phoneCards = new Map();

function phoneCard(device) {
  let card = phoneCards.get(device.token);
  if (!card) {
    const select = el('select', { class: 'phone-platform', title: 'The platform this token registered with' },
      Object.entries(platformNames).map(([value, name]) => el('option', { value }, name)));
    select.addEventListener('change', () => registerPlatform(device.token, select.value));
    card = {
      node: el('div', { 'data-token': device.token }),
      status: el('div', { class: 'phone-status' }),
      topics: el('div', { class: 'phone-topics' }),
      list: el('ul', { class: 'notifications' }),
      empty: el('p', { class: 'phone-empty' }, 'No notifications'),
      select,
      notifications: new Map(),
    };
    card.node.append(el('div', { class: 'phone-notch' }), card.status,
      el('div', { class: 'phone-token', title: device.token }, device.token), card.topics, select, card.list,
      card.empty);
    phoneCards.set(device.token, card);
  }
  const platform = device.platform || '';
  const className = `phone ${platform || 'unregistered'}`;
  if (card.node.className !== className) card.node.className = className;
  if (card.node.dataset.platform !== platform) card.node.dataset.platform = platform;
  if (document.activeElement !== card.select && card.select.value !== platform) card.select.value = platform;
  setText(card.status, device.userId ? `user ${device.userId}` : 'unknown user');
  setText(card.topics, (device.topics || []).length > 0 ? `topics: ${device.topics.join(', ')}` : 'no topics');
  const items = [];
  const kept = new Map();
  for (const entry of outboxEntries.filter((each) => reaches(each, device)).slice(-20).reverse()) {
    const key = `${entry.name} ${platform}`;
    let item = card.notifications.get(key);
    if (!item) {
      const view = shownView(entry, platform);
      if (!view) continue;
      item = el('li', { class: 'notification', 'data-name': entry.name }, view);
    }
    kept.set(key, item);
    items.push(item);
  }
  card.notifications = kept;
  reconcile(card.list, items);
  card.empty.hidden = items.length > 0;
  return card.node;
}

const outboxRows = new Map();

function outboxRow(entry) {
  let row = outboxRows.get(entry.name);
  if (!row) {
    const notification = (entry.payload && entry.payload.notification) || {};
    row = el('tr', { 'data-name': entry.name },
      el('td', {}, formatTime(entry.time)),
      el('td', {}, targetText(entry.target)),
      el('td', {}, notification.title || ''),
      el('td', {}, notification.body || ''),
      el('td', {}, entry.error ? el('span', { class: 'badge failure' }, entry.error.code)
        : el('span', { class: 'badge success' }, 'accepted')));
    outboxRows.set(entry.name, row);
  }
  return row;
}

function renderOutbox() {
  $('phones-empty').hidden = devices.length > 0;
  const tokens = new Set(devices.map((device) => device.token));
  for (const token of [...phoneCards.keys()]) if (!tokens.has(token)) phoneCards.delete(token);
  reconcile($('phones'), devices.map(phoneCard));
  const names = new Set(outboxEntries.map((entry) => entry.name));
  for (const name of [...outboxRows.keys()]) if (!names.has(name)) outboxRows.delete(name);
  reconcile($('outbox'), outboxEntries.slice().reverse().map(outboxRow));
}

// ---- serve --watch builds ----

// The watching supervisor records each build; a successful one restarts the server (and so reloads this page
// through the new token), a failed one leaves the previous code serving and its errors here.
async function loadBuild() {
  let build;
  try { build = await getJSON('/build'); } catch (_) { return; }
  const banner = $('build');
  banner.hidden = build.state !== 'building' && build.state !== 'failed';
  if (banner.hidden) return;
  banner.className = `build ${build.state}`;
  $('build-title').textContent = build.state === 'building'
    ? 'Building the changed functions…'
    : `The build at ${formatTime(build.time)} failed; the previous code keeps serving.`;
  $('build-output').textContent = build.state === 'failed' ? build.output : '';
}

// ---- start ----

async function start() {
  try {
    const app = await getJSON('/app');
    $('app-id').textContent = app.appId || '';
    fillSelect($('log-function'), app.functions);
  } catch (error) {
    showToast(error.message, true);
  }

  follow('triggers', () => '/triggers/events', { triggers: (data) => renderTriggers(JSON.parse(data).triggers) });

  let refreshData = null;
  invocationsFollowed = follow('invocations', () => `/invocations/events?${invocationQuery()}`, {
    invocation: (data) => {
      addInvocations([JSON.parse(data)]);
      // A function may have written: keep the data view current while it is open.
      if (!$('tab-data').hidden) {
        clearTimeout(refreshData);
        refreshData = setTimeout(() => { loadDocuments(); loadDatabases(); }, 300);
      }
    },
  }, loadInvocations);
  for (const id of ['log-function', 'log-trigger', 'log-outcome']) $(id).addEventListener('change', restartInvocations);
  $('log-clear').addEventListener('click', () => {
    for (const id of ['log-function', 'log-trigger', 'log-outcome']) $(id).value = '';
    restartInvocations();
  });

  follow('outbox', () => '/outbox/events', {
    message: (data) => { addOutboxEntries([JSON.parse(data)]); loadDevices(); loadFaults(); },
  }, () => { loadOutbox(); loadDevices(); loadFaults(); });
  $('faults').addEventListener('submit', applyFaults);
  $('faults-clear').addEventListener('click', clearFaults);
  // Tokens are registered and topics subscribed without a message: look for new devices now and then.
  setInterval(() => { if (!$('tab-outbox').hidden) loadDevices(); }, 2000);

  $('find').addEventListener('submit', (event) => { event.preventDefault(); page = 0; loadDocuments(); });
  $('data-database').addEventListener('change', loadDatabases);
  $('databases-refresh').addEventListener('click', loadDatabases);
  $('insert-button').addEventListener('click', insertDocument);
  $('page-previous').addEventListener('click', () => { page = Math.max(0, page - 1); loadDocuments(); });
  $('page-next').addEventListener('click', () => { page += 1; loadDocuments(); });
  $('users-refresh').addEventListener('click', loadUsers);

  const saved = sessionStorage.getItem('switchyard.collection');
  if (saved) {
    const [database, collection] = JSON.parse(saved);
    $('data-database').value = database;
    $('data-collection').value = collection;
  }
  loadBuild();
  setInterval(loadBuild, 1000);

  tabOpened.data = () => { loadDatabases(); loadDocuments(); };
  tabOpened.logs = loadLogForwarders;
  // Forwarders deliver in the background: look at their counts now and then while the logs are open.
  setInterval(() => { if (!$('tab-logs').hidden) loadLogForwarders(); }, 2000);
  tabOpened.users = loadUsers;
  tabOpened.outbox = loadDevices;
  showTab();
}

start();
