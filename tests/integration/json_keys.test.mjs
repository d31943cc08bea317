// docs/json.md and the --json documents say the same (issues 26 and 31):
// every key a document prints is listed in its section of docs/json.md,
// under its parent where the page lists the parent's keys; and every key a
// section lists is printed by some document of that section, except the
// few listed below that only conditions this test cannot reach print. The
// documents: json_docs.mjs (the goldens and live runs against simulators).
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { allDocuments } from './json_docs.mjs';
import { REPO_ROOT, tempDir } from './helpers.mjs';

// Listed keys that no document here prints, each with why.
const NOT_PRINTED_HERE = {
  'The soak document': {
    end_s: "an outage's end: soak.test.mjs stops the simulator mid-soak for one; too slow here",
    failed: "an outage's failed requests (as end_s)",
    refused: "an outage's refused connections (as end_s)",
    first_error: "an outage's first error (as end_s)",
  },
  'The environment fingerprint': {
    host: 'stored only by a run with --telemetry URL (run_remote.test.mjs, with an agent)',
    role: "host's (as host)",
    source: "host's (as host)",
    note: "host's (as host)",
  },
  Exports: { note: 'the summary export is the run document, whose note its section lists' },
};

// Parents whose name means two objects in one document: their keys are
// checked against the section alone.
const AMBIGUOUS_PARENTS = {
  performance: "lockin: the evidence's performance {ratio, ...} and the effort's range {low, ...}",
  classes: 'kernels: each profile\'s classes {class: {...}} and the comparison\'s classes [{class, ...}]',
};

const KEY = /`([a-z0-9_]+)`|"([a-z0-9_]+)":/g;
const keysOf = (text) => new Set([...text.matchAll(KEY)].map((m) => m[1] ?? m[2]));

// docs/json.md's sections by title ("## " and "### ": a subsection is a
// document of its own, the training runs' cost or comparison).
function sections() {
  const md = readFileSync(path.join(REPO_ROOT, 'docs', 'json.md'), 'utf8');
  const out = new Map();
  for (const part of md.split(/^###? /m).slice(1)) {
    const nl = part.indexOf('\n');
    out.set(part.slice(0, nl).trim(), part.slice(nl + 1));
  }
  return out;
}

// The balanced {...} or [...] block that starts at text[i].
function blockAt(text, i) {
  let d = 0;
  for (let j = i; j < text.length; j++) {
    if ('{['.includes(text[j])) d++;
    else if ('}]'.includes(text[j]) && --d === 0) return text.slice(i, j + 1);
  }
  return text.slice(i);
}

// The keys written at brace depth 0 to `top` of text.
function keysUpTo(text, top) {
  let d = 0;
  let flat = '';
  for (const ch of text) {
    if ('{['.includes(ch)) d++;
    else if ('}]'.includes(ch)) d--;
    else if (d <= top) flat += ch;
    else flat += ' ';
  }
  return keysOf(flat);
}

// The key sets the page gives parent p: `p` {…}, `p` (…) {…}, `p` (null,
// or {…}), "p": {…}, and a table row | `p` | … | with a block in its cell
// (the cell's own keys and those of its blocks' first level). Blocks with … in them are examples cut
// short, and ones without keys (`{kind: count}`) say the keys are data:
// neither is a list.
function parentLists(text, p) {
  const out = [];
  for (const m of text.matchAll(new RegExp('`' + p + '`|"' + p + '":', 'g'))) {
    let i = m.index + m[0].length;
    if (text.slice(m.index - 2, m.index) === '| ' && text.startsWith(' |', i)) {
      const cell = text.slice(i + 2, text.indexOf('\n', i));
      if (/\{|\[\{/.test(cell)) out.push(keysUpTo(cell, 1)); // else prose ("as the same objects")
      continue;
    }
    while (/\s/.test(text[i])) i++;
    if (text.startsWith('(null, or ', i)) i += 10;
    else if (text[i] === '(') {
      const close = blockAt(text.replace(/\(/g, '{').replace(/\)/g, '}'), i);
      i += close.length;
      while (/\s/.test(text[i])) i++;
    }
    if (text[i] !== '{' && text[i] !== '[') continue;
    const block = blockAt(text, i);
    if (/…|\.\.\./.test(block)) continue;
    out.push(keysUpTo(block.slice(block.startsWith('[{') ? 2 : 1, -1), 0));
  }
  return out.filter((ks) => ks.size > 0);
}

// The section a key at path (".a.b") of a document of `section` belongs to.
function sectionOf(section, p) {
  if (/^\.environment\./.test(p)) return 'The environment fingerprint';
  if (/\.roofline\./.test(p) && section !== 'roofline') return 'The run document';
  return section;
}

// Every key of every document: [{key, path, parent, section, where}].
function printedKeys(docs) {
  const out = [];
  const walk = (v, d, trail, parent) => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x, d, `${trail}[]`, parent));
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      const p = `${trail}.${k}`;
      if (/^\d+$/.test(k)) { // a data key (a count's bucket): not a name
        walk(x, d, p, parent);
        continue;
      }
      out.push({ key: k, path: p, parent, section: sectionOf(d.section, p), where: d.where });
      walk(x, d, p, k);
    }
  };
  for (const d of docs) walk(d.doc, d, '', null);
  return out;
}

// The text of a section with what is not a key left out: parentheses
// (remarks and values: `source` (`usage`, `server`)) and value lists
// ("`status` is `ok`, `warn`, `fail` or `skip`").
function listedText(text) {
  let d = 0;
  let code = false;
  let out = '';
  for (const ch of text) {
    if (ch === '`') code = !code;
    if (!code && ch === '(') d++;
    else if (!code && ch === ')' && d > 0) d--;
    else if (d === 0) out += ch;
  }
  return out.replace(/\b(is|are)\s+(`[^`]+`(,\s*|\s+or\s+|\s+and\s+))*`[^`]+`/g, '$1');
}

let docs;
let dir;
before(async () => {
  dir = tempDir('truecost-keys-');
  docs = await allDocuments(dir);
}, { timeout: 300_000 });
after(() => dir && rmSync(dir, { recursive: true, force: true }));

test('every key a --json document prints is listed in its section of docs/json.md, under its parent', () => {
  const secs = sections();
  const renamed = new Set([...secs.get('Renamed').matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]));
  const missing = new Set();
  for (const { key, path: p, parent, section, where } of printedKeys(docs)) {
    const text = secs.get(section);
    assert.ok(text !== undefined, `docs/json.md has no section "## ${section}"`);
    if (renamed.has(key)) continue; // an old name, listed under Renamed
    if (!keysOf(text).has(key)) {
      missing.add(`${key} (${where}: ${p}): not in "## ${section}"`);
      continue;
    }
    if (!parent || AMBIGUOUS_PARENTS[parent]) continue;
    const lists = parentLists(text, parent);
    if (lists.length && !lists.some((ks) => ks.has(key)))
      missing.add(`${key} (${where}: ${p}): "## ${section}" lists \`${parent}\`'s keys without it`);
  }
  assert.deepEqual([...missing], [], 'keys printed but not in docs/json.md');
});

test('every key docs/json.md lists is printed by a document of its section', () => {
  const secs = sections();
  const printed = new Map();
  for (const { key, section } of printedKeys(docs)) {
    if (!printed.has(section)) printed.set(section, new Set());
    printed.get(section).add(key);
  }
  const never = [];
  for (const [section, text] of secs) {
    if (section === 'Renamed') continue; // old names: printed beside the new ones, checked above
    assert.ok(printed.has(section), `no document of "## ${section}" was printed (json_docs.mjs)`);
    for (const key of keysOf(listedText(text)))
      if (!printed.get(section).has(key) && !NOT_PRINTED_HERE[section]?.[key])
        never.push(`${key} ("## ${section}")`);
  }
  assert.deepEqual(never, [], 'keys docs/json.md lists that no document printed (or list them in NOT_PRINTED_HERE, with why)');
});
