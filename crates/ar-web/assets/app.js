// The live view of an ar capture. Hand-written, no build step: the server
// filters and pages the flows; this draws the rows in view (a virtual list),
// follows the event stream, and never puts captured text into HTML (every
// captured string goes through textContent).
'use strict';

const TOKEN = document.body.dataset.token;
const ROW_HEIGHT = 22;
const PAGE = 200;

const $ = (id) => document.getElementById(id);

/** An API URL with the token and `params` (an object or URLSearchParams). */
function api(path, params) {
  const query = new URLSearchParams(params || {});
  query.set('token', TOKEN);
  return `${path}?${query}`;
}

async function getJson(path, params) {
  const response = await fetch(api(path, params));
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

/** An element with text content and attributes; children appended. */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = value;
    else if (name === 'class') node.className = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

/** Replaces `node`'s children with the given ones, skipping absent (null) ones. */
function fill(node, ...children) {
  node.replaceChildren(...children.filter((c) => c !== null && c !== undefined));
}

function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function millis(ms) {
  if (ms === null || ms === undefined) return '';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

// ---------------------------------------------------------------- tabs

let currentView = 'flows';
const onShow = {};

for (const tab of document.querySelectorAll('[role=tab]')) {
  tab.addEventListener('click', () => show(tab.dataset.view));
}

function show(view) {
  currentView = view;
  for (const tab of document.querySelectorAll('[role=tab]')) {
    tab.setAttribute('aria-selected', String(tab.dataset.view === view));
  }
  for (const section of document.querySelectorAll('.view')) {
    section.hidden = section.id !== `view-${view}`;
  }
  if (onShow[view]) onShow[view]();
}

// ---------------------------------------------------------------- flows

const flows = {
  total: 0,
  rows: new Map(), // index in the filtered list -> row
  pending: new Set(), // pages being fetched
  filter: new URLSearchParams(),
  generation: 0, // bumped when the filter changes; stale pages are dropped
  selected: null,
};

/** What the next draw with rows completes, and since when (navigation start for the first). */
let timing = { what: 'first rows', since: 0 };

const viewport = $('viewport');
const spacer = $('spacer');
const rowsBox = $('rows');

function filterParams() {
  const params = new URLSearchParams();
  for (const id of ['f-q', 'f-host', 'f-method', 'f-status', 'f-scope']) {
    const input = $(id);
    if (input.value.trim()) params.set(input.name, input.value.trim());
  }
  return params;
}

let filterTimer = null;
$('filters').addEventListener('input', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(applyFilter, 150);
});
$('filters').addEventListener('submit', (event) => {
  event.preventDefault();
  applyFilter();
});

function applyFilter() {
  flows.filter = filterParams();
  flows.generation += 1;
  flows.rows.clear();
  flows.pending.clear();
  drawn = new Map();
  timing = { what: 'filtered', since: performance.now() };
  connect();
}

async function fetchPage(page) {
  if (flows.pending.has(page)) return;
  flows.pending.add(page);
  const generation = flows.generation;
  const params = new URLSearchParams(flows.filter);
  params.set('offset', page * PAGE);
  params.set('limit', PAGE);
  try {
    const answer = await getJson('/api/flows', params);
    if (generation !== flows.generation) return;
    answer.rows.forEach((row, i) => flows.rows.set(answer.offset + i, row));
  } finally {
    if (generation === flows.generation) flows.pending.delete(page);
  }
  draw();
}

/** Row nodes on screen, by index in the filtered list. */
let drawn = new Map();
let drawQueued = false;
function draw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => {
    drawQueued = false;
    drawNow();
  });
}

function drawNow() {
  spacer.style.height = `${flows.total * ROW_HEIGHT}px`;
  if ($('follow').checked) viewport.scrollTop = viewport.scrollHeight;
  const first = Math.max(0, Math.floor(viewport.scrollTop / ROW_HEIGHT) - 5);
  const last = Math.min(flows.total, first + Math.ceil(viewport.clientHeight / ROW_HEIGHT) + 10);
  // Rows already drawn are kept (same node), so a click or a selection
  // survives the stream adding rows below.
  const kept = new Map();
  const nodes = [];
  for (let i = first; i < last; i++) {
    const row = flows.rows.get(i);
    if (!row) {
      fetchPage(Math.floor(i / PAGE));
      continue;
    }
    let node = drawn.get(i);
    if (!node || node.dataset.id !== String(row.id)) node = rowElement(row, i);
    node.classList.toggle('selected', flows.selected === row.id);
    kept.set(i, node);
    nodes.push(node);
  }
  const same = nodes.length === rowsBox.childElementCount
    && nodes.every((node, i) => rowsBox.children[i] === node);
  if (!same) rowsBox.replaceChildren(...nodes);
  drawn = kept;
  $('count').textContent = `${flows.total.toLocaleString()} flows`;
  if (timing && (rowsBox.childElementCount > 0 || (flows.total === 0 && flows.connected))) {
    // Said where the user looks, and read from there by the benchmark.
    $('status').textContent = `live · ${timing.what} in ${Math.round(performance.now() - timing.since)} ms`;
    timing = null;
  }
}

function rowElement(row, index) {
  const status = row.status === null ? (row.error ? 'error' : '—') : String(row.status);
  const cls = row.status === null ? 's-none' : `s-${Math.floor(row.status / 100)}xx`;
  const node = el(
    'button',
    {
      class: `row ${cls}${row.in_scope ? '' : ' out'}${flows.selected === row.id ? ' selected' : ''}`,
      'data-id': row.id,
      title: row.endpoint || row.why,
      onclick: () => openFlow(row.id),
    },
    el('span', { text: row.id }),
    el('span', { text: row.method }),
    el('span', { class: 'url', text: row.url }),
    el('span', { class: 'status', text: status }),
    el('span', { text: size(row.size) }),
    el('span', { text: millis(row.duration_ms) }),
    el('span', { class: `driver d-${row.driver}`, text: row.driver }),
    el('span', { text: row.in_scope ? 'in' : `out: ${row.why}` }),
  );
  // Through the CSSOM: the page's CSP refuses style attributes.
  node.style.top = `${index * ROW_HEIGHT}px`;
  return node;
}

viewport.addEventListener('scroll', () => {
  const atBottom = viewport.scrollTop + viewport.clientHeight >= viewport.scrollHeight - ROW_HEIGHT;
  if (!atBottom && $('follow').checked && !drawQueued) $('follow').checked = false;
  draw();
});
window.addEventListener('resize', draw);

// ---------------------------------------------------------------- one flow

async function openFlow(id) {
  flows.selected = id;
  draw();
  const pane = $('detail');
  pane.hidden = false;
  pane.replaceChildren(el('p', { text: `loading flow ${id}…` }));
  let flow;
  try {
    flow = await getJson('/api/flow', { id });
  } catch (error) {
    pane.replaceChildren(el('p', { text: `cannot load flow ${id}: ${error.message}` }));
    return;
  }
  const row = flow.row;
  fill(pane,
    el('p', { class: 'close' }, el('button', { text: 'Close', onclick: () => { pane.hidden = true; flows.selected = null; draw(); } })),
    el('h2', {}, el('span', { text: `${row.method} ` }), secretText(row.url, flow.url_secret, id)),
    el('p', { text: `${flow.status === null ? 'no response' : `${flow.status} ${flow.reason || ''}`} · ${flow.http_version} · ${millis(row.duration_ms)} · by ${row.driver} · ${row.in_scope ? 'in scope' : `out of scope (${row.why})`}` }),
    row.endpoint ? el('p', {}, 'Endpoint: ', el('a', { href: '#', text: row.endpoint, onclick: (e) => { e.preventDefault(); showEndpoint(row.endpoint); } })) : null,
    flow.error ? el('p', { class: 'error', text: flow.error }) : null,
    timings(flow.timings),
    replayForm(flow, id),
    el('h3', { text: 'Request' }),
    message(flow.request, id),
    el('h3', { text: 'Response' }),
    flow.response ? message(flow.response, id) : el('p', { text: 'No response was captured.' }),
    flow.websocket_frames ? el('p', { text: `${flow.websocket_frames} WebSocket frames (see the archive)` }) : null,
  );
}

/**
 * "Edit and replay": the request as captured (secrets still redacted: a value
 * left as shown is sent as captured), sent again through ar's own proxy.
 */
function replayForm(flow, id) {
  const box = el('div', { class: 'replay' });
  const open = el('button', {
    text: 'Edit and replay',
    onclick: () => {
      open.hidden = true;
      const method = el('input', { value: flow.row.method, 'aria-label': 'Replay method', size: 8 });
      const url = el('input', { value: flow.row.url, 'aria-label': 'Replay URL', class: 'wide' });
      const headers = el('textarea', { 'aria-label': 'Replay headers', rows: 6, class: 'wide' });
      headers.value = flow.request.headers.map((h) => `${h.name}: ${h.value}`).join('\n');
      const body = el('textarea', { 'aria-label': 'Replay body', rows: 4, class: 'wide' });
      body.value = flow.replay_body || '';
      const said = el('p', { class: 'facts', 'aria-live': 'polite' });
      const send = el('button', {
        text: "Send through ar's proxy",
        onclick: async () => {
          said.textContent = 'sending…';
          const edited = {
            from: id,
            method: method.value,
            url: url.value,
            headers: headers.value.split('\n').filter((l) => l.includes(':')).map((l) => {
              const at = l.indexOf(':', l.startsWith(':') ? 1 : 0);
              return [l.slice(0, at).trim(), l.slice(at + 1).trim()];
            }),
            body: body.value,
          };
          const response = await fetch(api('/api/replay'), { method: 'POST', body: JSON.stringify(edited) });
          const answer = await response.json().catch(() => ({ line: `failed: ${response.status}` }));
          said.textContent = answer.line;
        },
      });
      fill(box, el('h3', { text: 'Replay' }), method, ' ', url, headers, body, send, said);
    },
  });
  box.append(open);
  return box;
}

function timings(t) {
  const parts = ['blocked', 'dns', 'connect', 'ssl', 'send', 'wait', 'receive']
    .filter((name) => t[name] !== null && t[name] !== undefined && t[name] >= 0)
    .map((name) => `${name} ${millis(t[name])}`);
  return parts.length ? el('p', { class: 'timings', text: `Timings: ${parts.join(' · ')}` }) : null;
}

/** A redacted value with a Reveal button when it hides a secret. */
function secretText(text, part, id) {
  const span = el('span', { text });
  if (!part) return span;
  const button = el('button', {
    class: 'reveal',
    text: 'Reveal',
    onclick: async () => {
      const response = await fetch(api('/api/reveal', { id, part }), { method: 'POST' });
      if (response.ok) {
        span.textContent = (await response.json()).value;
        button.remove();
      }
    },
  });
  return el('span', {}, span, ' ', button);
}

function message(side, id) {
  const table = el('table', { class: 'headers' });
  for (const header of side.headers) {
    table.append(el('tr', {}, el('th', { text: header.name }), el('td', {}, secretText(header.value, header.secret, id))));
  }
  return el('div', {}, table, body(side.body, id));
}

function body(b, id) {
  const facts = [];
  if (b.content_type) facts.push(b.content_type);
  if (b.encoding) facts.push(`sent ${b.encoding}`);
  facts.push(size(b.size));
  if (b.truncated) facts.push(`truncated at capture: ${size(b.captured)} of ${size(b.size)} kept`);
  if (b.clipped) facts.push('only the start is shown');
  if (b.decode_error) facts.push(`not decoded: ${b.decode_error}`);
  const head = el('p', { class: 'facts', text: facts.join(' · ') });
  let content;
  switch (b.kind) {
    case 'empty': content = el('p', { text: 'No body.' }); break;
    case 'json':
    case 'text': content = el('pre', { class: 'body', text: b.text }); break;
    case 'image': content = el('img', { src: b.data_url, alt: 'response image' }); break;
    default: content = el('pre', { class: 'body hex', text: b.hex });
  }
  if (b.secret) {
    const button = el('button', {
      class: 'reveal',
      text: 'Reveal body',
      onclick: async () => {
        const response = await fetch(api('/api/reveal', { id, part: b.secret }), { method: 'POST' });
        if (response.ok) {
          content.textContent = (await response.json()).value;
          button.remove();
        }
      },
    });
    head.append(' ', button);
  }
  return el('div', {}, head, content);
}

// ---------------------------------------------------------------- stream

let source = null;

function connect() {
  if (source) source.close();
  source = new EventSource(api('/api/events', flows.filter));
  flows.connected = false;
  const generation = flows.generation;
  source.addEventListener('hello', (event) => {
    if (generation !== flows.generation) return;
    // A reconnect starts over: the server counted the rows before this stream.
    flows.total = JSON.parse(event.data).total;
    flows.rows.clear();
    flows.pending.clear();
    drawn = new Map();
    flows.connected = true;
    if (!timing) $('status').textContent = 'live';
    draw();
  });
  source.addEventListener('flow', (event) => {
    if (generation !== flows.generation) return;
    flows.rows.set(flows.total, JSON.parse(event.data));
    flows.total += 1;
    draw();
  });
  source.addEventListener('session', () => later('session', loadSession, 300));
  source.addEventListener('spec', () => {
    specStale = true;
    endpointsStale = true;
    driftStale = true;
    if (currentView === 'spec') later('spec', loadSpec, 300);
    if (currentView === 'drift') later('drift', loadDrift, 300);
    if (currentView === 'endpoints') later('endpoints', loadEndpoints, 300);
  });
  source.addEventListener('reset', () => connect());
  source.onerror = () => {
    $('status').textContent = 'reconnecting…';
  };
}

const timers = {};
function later(name, run, ms) {
  if (timers[name]) return;
  timers[name] = setTimeout(() => {
    timers[name] = null;
    run();
  }, ms);
}

// ---------------------------------------------------------------- endpoints

let endpointsStale = true;
onShow.endpoints = () => { if (endpointsStale) loadEndpoints(); };

/** The endpoints as last loaded (the merge form offers them). */
let endpointList = [];

async function loadEndpoints() {
  endpointsStale = false;
  const list = await getJson('/api/endpoints');
  endpointList = list;
  const table = el('table', { class: 'endpoints' },
    el('tr', {}, ...['method', 'host', 'template', 'flows', 'statuses'].map((h) => el('th', { text: h }))));
  for (const e of list) {
    const statuses = Object.entries(e.statuses).map(([s, n]) => `${s}×${n}`).join(' ');
    table.append(el('tr', {},
      el('td', { text: e.method }),
      el('td', { text: e.host }),
      el('td', {}, el('button', { class: 'link', text: e.template, onclick: () => showEndpoint(e.key, e) })),
      el('td', { text: e.flows }),
      el('td', { text: statuses })));
  }
  $('endpoints').replaceChildren(el('p', { text: `${list.length} endpoints` }), table);
  return list;
}

async function showEndpoint(key, known) {
  if (currentView !== 'endpoints') show('endpoints');
  let endpoint = known;
  if (!endpoint) endpoint = (await loadEndpoints()).find((e) => e.key === key);
  const pane = $('endpoint');
  pane.hidden = false;
  pane.replaceChildren(el('h2', { text: key }), el('p', { text: 'loading…' }));
  let explained = null;
  try {
    explained = await getJson('/api/explain', { key });
  } catch (error) {
    explained = { text: `no evidence: ${error.message}` };
  }
  fill(pane,
    el('h2', { text: key }),
    endpoint ? el('p', { text: `${endpoint.flows} flows · statuses ${Object.keys(endpoint.statuses).join(', ') || 'none'}` }) : null,
    el('h3', { text: 'Response shape' }),
    el('pre', { class: 'body', text: (endpoint && endpoint.shape) || 'no JSON response seen' }),
    el('h3', { text: 'Why this template (explain)' }),
    el('pre', { class: 'body', text: explained.text }),
    endpoint ? corrections(endpoint) : null,
  );
}

/**
 * Corrections of the endpoint: one segment made a literal, a parameter or the
 * rest of the path; a value of a parameter split off as its own endpoint; the
 * endpoint merged with another one. The spec is rewritten, and the list shows
 * each flow in the endpoint it belongs to now.
 */
function corrections(endpoint) {
  const said = el('p', { class: 'facts', 'aria-live': 'polite' });
  const correct = async (params) => {
    said.textContent = 'correcting…';
    const response = await fetch(api('/api/correct', { key: endpoint.key, ...params }), { method: 'POST' });
    const answer = await response.json().catch(() => ({ line: `failed: ${response.status}` }));
    said.textContent = answer.line;
    if (answer.ok) {
      endpointsStale = true;
      specStale = true;
      loadEndpoints();
      // Rows name the endpoint each flow is in now: fetch them again.
      flows.generation += 1;
      connect();
      if (flows.selected !== null && !$('detail').hidden) openFlow(flows.selected);
    }
  };
  const segments = endpoint.template.replace(/^\//, '').split('/');
  const rows = segments.map((segment, i) => {
    const param = segment.startsWith('{');
    const split = param ? splitValue(segment, (endpoint.values || []).find((v) => v.segment === i)) : null;
    return el('li', {},
      el('code', { text: segment }), ' ',
      el('button', {
        text: param ? 'literal' : 'parameter',
        'aria-label': `Make "${segment}" ${param ? 'a literal' : 'a parameter'}`,
        onclick: () => correct({ segment: i, as: param ? 'literal' : 'parameter' }),
      }), ' ',
      el('button', {
        text: 'rest of the path',
        'aria-label': `Make "${segment}" and what follows one parameter`,
        onclick: () => correct({ segment: i, as: 'rest' }),
      }),
      param ? el('span', {}, ' · ', split.field, ' ', el('button', {
        text: 'split off',
        'aria-label': `Split a value off "${segment}"`,
        onclick: () => correct({ segment: i, as: 'split', value: split.value() }),
      }), split.note) : null);
  });
  return el('div', {},
    el('h3', { text: 'Correct the template' }),
    el('p', { class: 'facts', text: 'Kept beside the archive: ar import of this directory applies it too.' }),
    el('ul', { class: 'segments' }, ...rows),
    mergeForm(endpoint, correct),
    said);
}

/**
 * The value of parameter `segment` to split off: picked among the values its
 * flows had (most seen first; the server leaves out any that looks like a
 * secret), or typed.
 */
function splitValue(segment, seen) {
  const typed = el('input', { type: 'text', size: 10, 'aria-label': `Another value of "${segment}" to split off`, placeholder: 'or type one' });
  const values = seen ? seen.values : [];
  if (values.length === 0) {
    typed.setAttribute('aria-label', `Value of "${segment}" to split off`);
    typed.removeAttribute('placeholder');
    return { field: typed, value: () => typed.value, note: null };
  }
  const pick = el('select', { 'aria-label': `Value of "${segment}" to split off` },
    ...values.map(([value, count]) => el('option', { value, text: `${value} (${count} flow${count === 1 ? '' : 's'})` })));
  const left = [];
  if (seen.more > 0) left.push(`${seen.more} more values`);
  if (seen.secret > 0) left.push(`${seen.secret} that look like secrets`);
  const note = left.length ? el('span', { class: 'facts', text: ` (not listed: ${left.join(', ')}; type one)` }) : null;
  return { field: el('span', {}, pick, ' ', typed), value: () => typed.value.trim() || pick.value, note };
}

/** "Merge with": another endpoint of the same host, under the template the user writes or the narrowest one. */
function mergeForm(endpoint, correct) {
  const others = endpointList.filter((e) => e.host === endpoint.host && e.key !== endpoint.key);
  if (others.length === 0) return null;
  const pick = el('select', { 'aria-label': 'Merge with' },
    ...others.map((e) => el('option', { value: e.key, text: `${e.method} ${e.template}` })));
  const template = el('input', { type: 'text', size: 30, placeholder: 'blank: the narrowest covering both', 'aria-label': 'Merged template' });
  return el('p', {}, 'Merge with ', pick, ' as ', template, ' ',
    el('button', {
      text: 'merge',
      'aria-label': 'Merge the two endpoints',
      onclick: () => correct({ as: 'merge', with: pick.value, template: template.value }),
    }));
}

// ---------------------------------------------------------------- spec

let specStale = true;
let baseline = null;
onShow.spec = () => { if (specStale) loadSpec(); };
$('dl-yaml').href = api('/openapi.yaml');
$('dl-json').href = api('/openapi.json');

async function loadSpec() {
  specStale = false;
  const spec = await getJson('/api/spec');
  if (baseline === null) baseline = spec.yaml;
  $('markdown').replaceChildren(...markdown(spec.markdown));
  const { added, removed } = lineDiff(baseline, spec.yaml);
  $('spec-changes').textContent = `${added.length} lines added, ${removed.length} removed in openapi.yaml since this page was opened`;
  $('diff').replaceChildren(
    el('h3', { text: 'openapi.yaml since this page was opened' }),
    el('pre', { class: 'diff' }, ...removed.map((l) => el('del', { text: `- ${l}\n` })), ...added.map((l) => el('ins', { text: `+ ${l}\n` }))),
  );
}

// ---------------------------------------------------------------- drift

// Where the traffic leaves the published spec (`--against`): DRIFT.md, rendered. The tab
// shows only when the capture has a spec to drift from.
let driftStale = true;
onShow.drift = () => { if (driftStale) loadDrift(); };

async function loadDrift() {
  driftStale = false;
  const response = await fetch(api('/api/drift'));
  if (!response.ok) return;
  $('tab-drift').hidden = false;
  const drift = await response.json();
  $('drift').replaceChildren(...markdown(drift.markdown));
}
loadDrift();

/** Lines only in `after` and only in `before`, counted as multisets. */
function lineDiff(before, after) {
  const count = new Map();
  for (const line of before.split('\n')) count.set(line, (count.get(line) || 0) + 1);
  const added = [];
  for (const line of after.split('\n')) {
    const n = count.get(line) || 0;
    if (n > 0) count.set(line, n - 1);
    else added.push(line);
  }
  const removed = [];
  for (const [line, n] of count) for (let i = 0; i < n; i++) removed.push(line);
  return { added, removed };
}

/** A small Markdown renderer to DOM nodes (headings, lists, tables, code, paragraphs). */
function markdown(text) {
  const out = [];
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.startsWith('```')) {
      const code = [];
      for (i++; i < lines.length && !lines[i].startsWith('```'); i++) code.push(lines[i]);
      i++;
      out.push(el('pre', { class: 'body', text: code.join('\n') }));
    } else if (/^#{1,6} /.test(line)) {
      const level = line.indexOf(' ');
      out.push(el(`h${Math.min(level + 1, 6)}`, {}, ...inline(line.slice(level + 1))));
      i++;
    } else if (line.startsWith('|')) {
      const table = el('table', { class: 'md' });
      for (; i < lines.length && lines[i].startsWith('|'); i++) {
        if (/^\|[\s:|-]+\|$/.test(lines[i])) continue;
        const cells = lines[i].slice(1, -1).split('|');
        table.append(el('tr', {}, ...cells.map((c) => el('td', {}, ...inline(c.trim())))));
      }
      out.push(table);
    } else if (/^\s*[-*] /.test(line)) {
      const list = el('ul');
      for (; i < lines.length && /^\s*[-*] /.test(lines[i]); i++) {
        list.append(el('li', {}, ...inline(lines[i].replace(/^\s*[-*] /, ''))));
      }
      out.push(list);
    } else if (line.trim() === '') {
      i++;
    } else {
      const para = [];
      for (; i < lines.length && lines[i].trim() !== '' && !/^(#|```|\||\s*[-*] )/.test(lines[i]); i++) para.push(lines[i]);
      out.push(el('p', {}, ...inline(para.join(' '))));
    }
  }
  return out;
}

/** Inline code and bold as elements; everything else as text. */
function inline(text) {
  const nodes = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > at) nodes.push(text.slice(at, match.index));
    nodes.push(match[1] !== undefined ? el('code', { text: match[1] }) : el('strong', { text: match[2] }));
    at = match.index + match[0].length;
  }
  if (at < text.length) nodes.push(text.slice(at));
  return nodes;
}

// ---------------------------------------------------------------- session

onShow.session = loadSession;

async function loadSession() {
  const session = await getJson('/api/session');
  const list = $('session');
  list.replaceChildren(
    el('dt', { text: 'capturing' }), el('dd', { text: session.target }),
    el('dt', { text: 'driver' }), el('dd', { text: session.driver || 'nobody' }),
    ...session.counters.flatMap(([name, value]) => [el('dt', { text: name }), el('dd', { text: value.toLocaleString() })]),
  );
  $('progress').textContent = session.progress.join('\n');
}

// ---------------------------------------------------------------- start

connect();
loadSession();
