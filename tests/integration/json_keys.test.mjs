// Every key any command's --json prints is documented in docs/json.md
// (issue 26: one name per quantity, and none undocumented). The documents
// come from the golden outputs (every command on the fixed store) and from
// live runs of what the goldens do not hold: a sweep and a soak against the
// simulator, frontier and compare of two sweeps, kernels, fit, import.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { BIN, REPO_ROOT, runCli, startSim, tempDir } from './helpers.mjs';

const dir = tempDir('truecost-keys-');
after(() => rmSync(dir, { recursive: true, force: true }));
const prof = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');
const ex = (f) => path.join(REPO_ROOT, 'examples', f);

// Every object key of a document, with where it was first seen.
function keys(doc, where, out = new Map(), trail = '') {
  if (Array.isArray(doc)) doc.forEach((d) => keys(d, where, out, `${trail}[]`));
  else if (doc && typeof doc === 'object')
    for (const [k, v] of Object.entries(doc)) {
      if (!out.has(k)) out.set(k, `${where}: ${trail}.${k}`);
      keys(v, where, out, `${trail}.${k}`);
    }
  return out;
}

async function json(args, opts = {}) {
  const r = await runCli(args, { timeoutMs: 120_000, ...opts });
  assert.ok([0, 3].includes(r.code), `truecost ${args.join(' ')}: ${r.code}: ${r.stderr}`);
  return r.stdout.trim().split('\n').filter((l) => l.startsWith('{') && l.endsWith('}')).length > 1
    ? r.stdout.trim().split('\n').map((l) => JSON.parse(l)) // one object per line (monitor)
    : JSON.parse(r.stdout);
}

async function liveDocuments() {
  const db = path.join(dir, 'db');
  const docs = [];
  const sim = await startSim(['--ttft-ms', '1', '--prefill-tps', '100000', '--decode-tps', '400']);
  try {
    for (const label of ['A', 'B']) {
      const sweep = ['sweep', sim.url, '--db', db, '-c', '1,2,4', '-n', '6', '--max-tokens', '16', '--warmup', '0',
        '--label', label, '--telemetry', 'none', '--no-progress', '--slo', 'ttft=50ms', '--json'];
      docs.push(['sweep', await json(sweep)]);
    }
    docs.push(['sweep (rate)', await json(['sweep', sim.url, '--db', db, '--rates', '5,10', '--duration', '2',
      '--max-tokens', '8', '--label', 'R', '--telemetry', 'none', '--no-progress', '--json'])]);
    docs.push(['soak', await json(['soak', sim.url, '--db', db, '--duration', '6s', '--window', '2s', '-c', '2',
      '--max-tokens', '16', '--telemetry', 'none', '--no-progress', '--max-drift', '1000', '--json'])]);
  } finally {
    await sim.stop?.();
  }
  docs.push(['show sweep', await json(['show', 'A', '--db', db, '--json'])]);
  docs.push(['frontier', await json(['frontier', 'A', 'B', '--db', db, '--profile', prof, '--at', '20,100',
    '--claim', '1', '--demand', '1e9', '--json', '--resamples', '1000'])]);
  docs.push(['compare sweeps', await json(['compare', 'A', 'B', '--db', db, '--profile', prof, '--claim', '1',
    '--json', '--resamples', '1000'])]);
  docs.push(['kernels', await json(['kernels', ex('kernels-nsys-example.csv'), ex('kernels-rocprofv3-example.csv'),
    '--json'])]);
  const model = path.join(dir, 'model');
  mkdirSync(model);
  writeFileSync(path.join(model, 'config.json'), JSON.stringify({
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, intermediate_size: 11008,
    max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32,
    rms_norm_eps: 1e-5, tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32000,
  }));
  docs.push(['fit', await json(['fit', model, '--gpu', 'RTX 4090', '--json'])]);
  docs.push(['fit lora', await json(['fit', model, '--gpu', 'RTX 4090', '--task', 'lora', '--json'])]);
  docs.push(['import', await json(['import', db, '--db', path.join(dir, 'copy'), '--json'])]);
  const metrics = path.join(dir, 'metrics.jsonl');
  docs.push(['train', await json(['train', '--db', db, '--telemetry', 'none', '--json', '--params', '1e6',
    '--label', 'T', '--', BIN, 'sim', 'train', '--steps', '12', '--step-ms', '10', '--format', 'hf',
    '--warn-every', '4', '--oom-at', '12'])]);
  docs.push(['show train', await json(['show', 'T', '--db', db, '--json'])]);
  await json(['train', '--db', db, '--telemetry', 'none', '--json', '--label', 'T2', '--', BIN, 'sim', 'train',
    '--steps', '12', '--step-ms', '12']);
  docs.push(['cost train', await json(['cost', 'T2', '--db', db, '--profile', prof, '--json'])]);
  docs.push(['compare train', await json(['compare', 'T', 'T2', '--db', db, '--profile', prof, '--json',
    '--resamples', '1000'])]);
  docs.push(['train --metrics', await json(['train', '--db', db, '--telemetry', 'none', '--json', '--metrics',
    metrics, '--', BIN, 'sim', 'train', '--steps', '8', '--step-ms', '10', '--metrics', metrics])]);
  return docs;
}

function goldenDocuments() {
  const g = path.join(REPO_ROOT, 'tests', 'golden', 'expected');
  return readdirSync(g).filter((f) => /json\.txt$/.test(f)).map((f) => {
    // "exit N", "--- stdout", the output, "--- stderr", what it said.
    const text = readFileSync(path.join(g, f), 'utf8').split('--- stdout\n')[1].split('--- stderr')[0].trim();
    try {
      return [f, JSON.parse(text)];
    } catch {
      return [f, text.split('\n').map((l) => JSON.parse(l))]; // one object per line
    }
  });
}

test('every key a --json document holds is in docs/json.md', { timeout: 300_000 }, async () => {
  const documented = new Set([...readFileSync(path.join(REPO_ROOT, 'docs', 'json.md'), 'utf8')
    .matchAll(/`([a-z0-9_]+)`|"([a-z0-9_]+)":/g)].map((m) => m[1] ?? m[2]));
  const all = new Map();
  for (const [where, doc] of [...goldenDocuments(), ...await liveDocuments()])
    for (const [k, at] of keys(doc, where)) if (!all.has(k)) all.set(k, at);
  const missing = [...all].filter(([k]) => !documented.has(k) && !/^\d+$/.test(k));
  assert.deepEqual(missing.map(([k, at]) => `${k} (${at})`), [], 'keys printed but not in docs/json.md');
});
