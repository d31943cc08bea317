// `truecost run` against the simulator: every API, the JSON contract and its
// figures against the simulator's known timing, concurrency, the default
// recipe, every fault kind, Ctrl-C, show/runs/export round trips, and the
// client's timing accuracy against the simulator's ground truth (--truth).
//
// Every test starts its own simulator on 127.0.0.1 (port 0, --port-file) and
// uses its own database in a temporary directory; everything it started is
// stopped in t.after(), and every wait is bounded.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  DEFAULT_MODEL,
  median,
  parseCsv,
  quantile,
  runCli,
  spawnTruecost,
  startProxy,
  startSim,
  tempDir,
  testScope,
} from './helpers.mjs';

const FAST = ['--ttft-ms', '1', '--decode-tps', '1000'];
const STAT_KEYS = ['mean', 'stddev', 'min', 'p50', 'p90', 'p95', 'p99', 'max'];

/**
 * Per-test resources: temporary directories and simulators, all removed or
 * stopped (simulators first) when the test ends, pass or fail.
 */
function scope(t) {
  return testScope(t, 'truecost-run-');
}

/** `truecost run URL --db DB --json ...args`; asserts the exit status and parses stdout. */
async function runJson(url, db, args = [], { code = 0, timeoutMs = 60_000 } = {}) {
  const r = await runCli(['run', url, '--db', db, '--json', '--no-progress', ...args], { timeoutMs });
  assert.equal(r.code, code, `exit status of run ${args.join(' ')}; stderr: ${r.stderr}`);
  let doc;
  try {
    doc = JSON.parse(r.stdout);
  } catch (e) {
    assert.fail(`run --json printed something that is not one JSON document (${e.message}): ${r.stdout.slice(0, 400)}`);
  }
  return { doc, ...r };
}

/** `truecost <args>` that must succeed; returns stdout. */
async function ok(args) {
  const r = await runCli(args, { timeoutMs: 30_000 });
  assert.equal(r.code, 0, `truecost ${args.join(' ')}: exit ${r.code}; stderr: ${r.stderr}`);
  return r.stdout;
}

async function exportJson(db, run, what) {
  return JSON.parse(await ok(['export', String(run), '--db', db, '--what', what, '--format', 'json']));
}

/**
 * Stops the simulator (so every truth line is flushed) and reads its truth
 * file; checks that each client seq reached the server once (pass
 * unique: false when several runs, each counting from seq 0, used the same one).
 */
async function readTruth(sim, file, { unique = true } = {}) {
  await sim.stop();
  const text = readFileSync(file, 'utf8');
  const lines = text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
  if (unique) assertUniqueSeqs(lines);
  return lines;
}

function assertUniqueSeqs(lines) {
  const seen = new Set();
  for (const l of lines) {
    assert.ok(!seen.has(l.client_seq), `client_seq ${l.client_seq} reached the server only once`);
    seen.add(l.client_seq);
  }
}

/** Percentile q (0..100) as numpy's default computes it (linear between order statistics). */
function pct(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  const h = (q / 100) * (s.length - 1);
  const lo = Math.floor(h);
  return lo >= s.length - 1 ? s[s.length - 1] : s[lo] + (h - lo) * (s[lo + 1] - s[lo]);
}

const bySeq = (rows) => new Map(rows.map((r) => [r.seq ?? r.client_seq, r]));
const ms = (ns) => ns / 1e6;

/** Checks the keys every `run --json` document must have. */
function assertContract(doc) {
  assert.equal(typeof doc, 'object');
  for (const k of ['run', 'requests', 'metrics', 'throughput', 'tokens', 'server', 'errors'])
    assert.ok(k in doc, `the document has "${k}": ${Object.keys(doc)}`);
  for (const k of ['id', 'label', 'status', 'endpoint', 'api', 'model', 'simulated'])
    assert.ok(k in doc.run, `run.${k}`);
  assert.ok(Number.isInteger(doc.run.id) && doc.run.id > 0);
  for (const k of ['measured', 'completed', 'failed', 'warmup'])
    assert.ok(Number.isInteger(doc.requests[k]), `requests.${k} is an integer: ${doc.requests[k]}`);
  assert.equal(doc.requests.completed + doc.requests.failed, doc.requests.measured, 'completed + failed = measured');
  for (const m of ['ttft_ms', 'itl_ms', 'tpot_ms', 'e2e_ms']) {
    assert.ok(doc.metrics[m], `metrics.${m}`);
    for (const k of STAT_KEYS) assert.ok(k in doc.metrics[m], `metrics.${m}.${k}`);
  }
  for (const k of ['requests_per_s', 'output_tokens_per_s', 'total_tokens_per_s']) assert.ok(k in doc.throughput, `throughput.${k}`);
  for (const k of ['output', 'prompt', 'source']) assert.ok(k in doc.tokens, `tokens.${k}`);
  if (doc.server !== null) {
    assert.ok('mean' in doc.server.decode_tokens_per_s && 'p50' in doc.server.decode_tokens_per_s, 'server.decode_tokens_per_s{mean,p50}');
  }
  assert.equal(typeof doc.errors, 'object');
  assert.ok(doc.errors !== null && !Array.isArray(doc.errors));
  for (const [k, v] of Object.entries(doc.errors)) assert.ok(Number.isInteger(v) && v > 0, `errors.${k} = ${v}`);
}

/** Checks a stats object is ordered: min <= p50 <= p90 <= p95 <= p99 <= max. */
function assertOrdered(s, what) {
  const seq = [s.min, s.p50, s.p90, s.p95, s.p99, s.max];
  for (let i = 1; i < seq.length; i++) assert.ok(seq[i - 1] <= seq[i] + 1e-9, `${what} ordered: ${JSON.stringify(s)}`);
  assert.ok(s.min <= s.mean + 1e-9 && s.mean <= s.max + 1e-9, `${what} mean within [min,max]`);
  assert.ok(s.stddev >= 0, `${what} stddev >= 0`);
}

// ---- every API, the JSON contract, figures against the known timing ---------

const APIS = [
  // [--api, server (the simulator itself, or behind the llama.cpp-looking proxy), reported api, tokens.source]
  ['ollama', 'sim', 'ollama', 'server'],
  ['ollama-chat', 'sim', 'ollama-chat', 'server'],
  ['openai', 'sim', 'openai', 'usage'],
  ['openai-chat', 'sim', 'openai-chat', 'usage'],
  ['llamacpp', 'sim', 'llamacpp', 'server'],
  ['llamacpp', 'llama', 'llamacpp', 'server'],
  ['auto', 'sim', 'ollama', 'server'],
  ['auto', 'llama', 'llamacpp', 'server'],
];

test('run --api KIND: every API against the simulator, the JSON contract and the figures', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const db = path.join(dir, 'runs.db');
  const TTFT = 30;
  const N = 4;
  const MAXTOK = 8;
  const sim = await sc.sim(['--ttft-ms', String(TTFT), '--decode-tps', '100']);
  // The simulator answers /api/version, so it is detected as Ollama (and serves
  // the other APIs too); behind a proxy that hides /api/version it is
  // recognised by /health + /props, as llama.cpp's server.
  const llama = await startProxy(sim.url, { hide: ['/api/version'], t });
  for (const [api, via, reported, source] of APIS) {
    await t.test(`--api ${api} against ${via === 'sim' ? 'the simulator' : 'the simulator as llama.cpp'}`, async () => {
      const url = via === 'llama' ? llama.url : sim.url;
      const r = await runCli(
        ['run', url, '--db', db, '--json', '--api', api, '-n', String(N), '--max-tokens', String(MAXTOK), '--label', `api-${api}`],
        { timeoutMs: 60_000 },
      );
      assert.equal(r.code, 0, `stderr: ${r.stderr}`);
      // With --json, stdout is exactly one JSON document and nothing else.
      assert.match(r.stdout, /^\{/, 'stdout starts with the document');
      assert.match(r.stdout, /\}\s*$/, 'stdout ends with the document');
      const doc = JSON.parse(r.stdout);
      assertContract(doc);
      assert.equal(doc.run.api, reported);
      assert.equal(doc.run.model, DEFAULT_MODEL);
      assert.equal(doc.run.status, 'complete');
      assert.equal(doc.run.label, `api-${api}`);
      assert.equal(doc.run.endpoint, url);
      assert.equal(doc.run.simulated, true);
      assert.deepEqual(doc.requests, { measured: N, completed: N, failed: 0, warmup: 1, retried_stale_connection: 0 });
      assert.deepEqual(doc.errors, {});
      assert.equal(doc.tokens.output, N * MAXTOK, 'tokens.output = n x max-tokens');
      assert.equal(doc.tokens.source, source);
      assert.ok(doc.tokens.prompt > 0 && doc.tokens.prompt % N === 0, `tokens.prompt ${doc.tokens.prompt}`);
      const promptPerReq = doc.tokens.prompt / N;
      for (const m of ['ttft_ms', 'itl_ms', 'tpot_ms', 'e2e_ms']) assertOrdered(doc.metrics[m], m);
      // The simulator's model: TTFT = ttft-ms + prompt tokens / prefill-tps (2000/s),
      // then one token every 10 ms at --decode-tps 100.
      const ttft = TTFT + (promptPerReq / 2000) * 1000;
      assert.ok(doc.metrics.ttft_ms.p50 >= ttft - 1 && doc.metrics.ttft_ms.p50 <= ttft + 25, `TTFT p50 ${doc.metrics.ttft_ms.p50} vs ${ttft}`);
      assert.ok(doc.metrics.itl_ms.p50 >= 8 && doc.metrics.itl_ms.p50 <= 13, `ITL p50 ${doc.metrics.itl_ms.p50} vs 10`);
      assert.ok(doc.metrics.tpot_ms.p50 >= 8 && doc.metrics.tpot_ms.p50 <= 13, `TPOT p50 ${doc.metrics.tpot_ms.p50} vs 10`);
      const e2e = ttft + (MAXTOK - 1) * 10;
      assert.ok(doc.metrics.e2e_ms.p50 >= e2e - 2 && doc.metrics.e2e_ms.p50 <= e2e + 40, `E2E p50 ${doc.metrics.e2e_ms.p50} vs ${e2e}`);
      assert.ok(doc.server !== null, 'the simulator reports its decode speed');
      const sd = doc.server.decode_tokens_per_s;
      assert.ok(Math.abs(sd.mean - 100) <= 5 && Math.abs(sd.p50 - 100) <= 5, `server decode ${JSON.stringify(sd)} vs 100`);
      const tp = doc.throughput;
      assert.ok(tp.requests_per_s > 0 && tp.output_tokens_per_s > 0);
      assert.ok(Math.abs(tp.output_tokens_per_s / tp.requests_per_s - MAXTOK) < 1e-6, 'output tok/s = req/s x tokens per request');
      assert.ok(tp.total_tokens_per_s > tp.output_tokens_per_s, 'total tok/s adds the prompt');
      // One request at a time: about 1000 / E2E requests per second.
      assert.ok(tp.requests_per_s <= 1000 / e2e * 1.05, `req/s ${tp.requests_per_s} at -c 1 with E2E ${e2e} ms`);
    });
  }
});

// ---- concurrency and the default recipe -------------------------------------

/** Most intervals [a, b] open at once (ends before starts at equal times). */
function maxOverlap(intervals) {
  const ev = [];
  for (const [a, b] of intervals) ev.push([a, 1], [b, -1]);
  ev.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let cur = 0;
  let best = 0;
  for (const [, d] of ev) {
    cur += d;
    best = Math.max(best, cur);
  }
  return best;
}

const serverSpan = (l) => [l.arrival_mono_ns, l.chunks.length ? l.chunks[l.chunks.length - 1].mono_ns : l.arrival_mono_ns];

for (const [c, n] of [
  [1, 6],
  [64, 128],
]) {
  test(`-c ${c} -n ${n}: all complete, at most ${c} in flight`, async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const truth = path.join(dir, 'truth.jsonl');
    const sim = await sc.sim(['--ttft-ms', '2', '--decode-tps', '1000', '--truth', truth]);
    const { doc } = await runJson(sim.url, path.join(dir, 'db'), ['-n', String(n), '-c', String(c), '--max-tokens', '8']);
    assertContract(doc);
    assert.deepEqual(doc.requests, { measured: n, completed: n, failed: 0, warmup: 1, retried_stale_connection: 0 });
    assert.deepEqual(doc.errors, {});
    assert.equal(doc.tokens.output, n * 8);
    assert.equal(doc.run.concurrency, c);
    const lines = await readTruth(sim, truth);
    assert.equal(lines.length, n + 1, 'the server saw n measured + 1 warm-up requests');
    assert.deepEqual(
      lines.map((l) => l.client_seq).sort((a, b) => a - b),
      [...Array(n + 1).keys()],
      'client seqs 0..n',
    );
    // The warm-up (seq 0) is done before any measured request arrives.
    const warm = lines.find((l) => l.client_seq === 0);
    for (const l of lines) if (l.client_seq > 0) assert.ok(l.arrival_mono_ns >= serverSpan(warm)[1], 'measured requests wait for the warm-up');
    const measured = lines.filter((l) => l.client_seq > 0);
    const most = maxOverlap(measured.map(serverSpan));
    assert.ok(most <= c, `at most ${c} requests in flight at the server (saw ${most})`);
    if (c > 1) assert.ok(most >= Math.min(16, c), `-c ${c} really runs requests at once (saw ${most})`);
  });
}

// Two at a time: each test drives its own simulator, and what they time
// (a 200 ms stall, a 2 s stop) is coarse. The figures checked against the
// simulator's timing (above) and its truth (below) run alone.
describe('run', { concurrency: 2 }, () => {
  test('the default recipe: 1 warm-up + 20 measured requests of 128 tokens', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const sim = await sc.sim(['--ttft-ms', '1', '--decode-tps', '5000']);
    const { doc } = await runJson(sim.url, path.join(dir, 'db'));
    assertContract(doc);
    assert.deepEqual(doc.requests, { measured: 20, completed: 20, failed: 0, warmup: 1, retried_stale_connection: 0 });
    assert.equal(doc.tokens.output, 20 * 128);
    assert.equal(doc.run.api, 'ollama');
    assert.equal(doc.run.label, null);
  });

  // ---- faults ------------------------------------------------------------------

  for (const [kind, errorKind] of [
    ['http500', 'http'],
    ['http503', 'http'],
    ['disconnect', 'disconnect'],
    ['malformed', 'malformed'],
  ]) {
    test(`--fault ${kind}:0.3: errors.${errorKind} counts the faulted measured requests`, async (t) => {
      const sc = scope(t);
      const dir = sc.dir();
      const truth = path.join(dir, 'truth.jsonl');
      const db = path.join(dir, 'db');
      const N = 20;
      const sim = await sc.sim([...FAST, '--fault', `${kind}:0.3`, '--seed', '7', '--truth', truth]);
      // Default --max-error-rate 0.05: exit 3 when more failed, with the document still printed.
      const first = await runJson(sim.url, db, ['-n', String(N), '--max-tokens', '16'], { code: 3 });
      assert.match(first.stderr, /^truecost: .*above --max-error-rate/m, first.stderr);
      // --max-error-rate 1: the same figures, exit 0.
      const { doc } = await runJson(sim.url, db, ['-n', String(N), '--max-tokens', '16', '--max-error-rate', '1']);
      const lines = await readTruth(sim, truth, { unique: false });
      for (const d of [first.doc, doc]) {
        assertContract(d);
        assert.equal(d.run.status, 'complete', 'a run with failed requests still completes');
        assert.equal(d.requests.measured, N);
      }
      // Pair by client_seq: the first run's requests came first, each run's seq 0 is its warm-up.
      assert.equal(lines.length, 2 * (N + 1));
      const runs = [lines.slice(0, N + 1), lines.slice(N + 1)];
      for (const r of runs) assertUniqueSeqs(r);
      for (const [i, d] of [first.doc, doc].entries()) {
        const faulted = runs[i].filter((l) => l.client_seq >= 1 && l.fault === kind).length;
        assert.ok(faulted >= 2, `seed 7 gives more than 5% faults (${faulted})`);
        assert.deepEqual(d.errors, { [errorKind]: faulted }, `run ${i + 1}: the truth file says ${faulted} measured requests got ${kind}`);
        assert.equal(d.requests.failed, faulted);
        assert.equal(d.requests.completed, N - faulted);
        // Failed requests are out of the latency figures and token counts.
        assert.equal(d.tokens.output, (N - faulted) * 16);
      }
      // The stored rows say which request failed, and how.
      const rows = await exportJson(db, doc.run.id, 'requests');
      const truthBySeq = bySeq(runs[1]);
      for (const row of rows) {
        const l = truthBySeq.get(row.seq);
        assert.ok(l, `truth line for seq ${row.seq}`);
        assert.equal(row.error, l.fault === kind ? errorKind : 'ok', `seq ${row.seq} (fault ${l.fault}): ${JSON.stringify(row)}`);
        if (row.error !== 'ok') assert.ok(row.error_detail, `seq ${row.seq} says what went wrong`);
      }
      // The CSV export, error details included, parses to the same rows.
      const csv = parseCsv(await ok(['export', String(doc.run.id), '--db', db]));
      assert.equal(csv.length, rows.length + 1);
      const h = csv[0];
      for (const [i, r] of csv.slice(1).entries()) {
        assert.equal(r.length, h.length, `CSV row ${i + 1} has ${h.length} fields: ${r}`);
        assert.equal(r[h.indexOf('error')], rows[i].error);
        assert.equal(r[h.indexOf('error_detail')], rows[i].error_detail ?? '');
      }
    });
  }

  test('--fault stall:0.3:200: no error, but the stalled requests take 200 ms longer', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const truth = path.join(dir, 'truth.jsonl');
    const db = path.join(dir, 'db');
    const sim = await sc.sim([...FAST, '--fault', 'stall:0.3:200', '--seed', '3', '--truth', truth]);
    const { doc } = await runJson(sim.url, db, ['-n', '20', '--max-tokens', '16']);
    assert.deepEqual(doc.errors, {});
    assert.deepEqual(doc.requests, { measured: 20, completed: 20, failed: 0, warmup: 1, retried_stale_connection: 0 });
    const lines = bySeq(await readTruth(sim, truth));
    const rows = await exportJson(db, doc.run.id, 'requests');
    let stalled = 0;
    for (const row of rows.filter((r) => !r.warmup)) {
      const l = lines.get(row.seq);
      assert.equal(row.error, 'ok');
      if (l.fault === 'stall') {
        stalled++;
        assert.ok(row.e2e_ms >= 195, `seq ${row.seq} stalled: E2E ${row.e2e_ms} >= 200`);
        assert.ok(row.ttft_ms < 150, `seq ${row.seq}: the stall is halfway, not before the first token (TTFT ${row.ttft_ms})`);
      } else {
        assert.equal(l.fault, 'none');
        assert.ok(row.e2e_ms < 150, `seq ${row.seq} not stalled: E2E ${row.e2e_ms}`);
      }
    }
    assert.ok(stalled >= 1, `seed 3 stalls some requests (${stalled})`);
    assert.ok(doc.metrics.itl_ms.max >= 195, `the longest ITL shows the stall: ${doc.metrics.itl_ms.max}`);
  });

  test('--fault slow-accept:0.3:200: no error, but the affected requests have TTFT >= 200 ms', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const truth = path.join(dir, 'truth.jsonl');
    const db = path.join(dir, 'db');
    const sim = await sc.sim([...FAST, '--fault', 'slow-accept:0.3:200', '--seed', '5', '--truth', truth]);
    const { doc } = await runJson(sim.url, db, ['-n', '20', '--max-tokens', '16']);
    assert.deepEqual(doc.errors, {});
    assert.deepEqual(doc.requests, { measured: 20, completed: 20, failed: 0, warmup: 1, retried_stale_connection: 0 });
    const lines = bySeq(await readTruth(sim, truth));
    const rows = await exportJson(db, doc.run.id, 'requests');
    // The truth file's "fault" stays "none" for slow-accept (it names the kind of
    // the other faults only), so the affected requests are those whose first
    // chunk left the server >= 200 ms after they arrived.
    let slow = 0;
    for (const row of rows.filter((r) => !r.warmup)) {
      const l = lines.get(row.seq);
      const serverTtft = ms(l.chunks[0].mono_ns - l.arrival_mono_ns);
      assert.equal(row.error, 'ok');
      if (serverTtft >= 199) {
        slow++;
        assert.ok(row.ttft_ms >= 199, `seq ${row.seq} slow-accepted: TTFT ${row.ttft_ms}`);
        assert.ok(row.e2e_ms >= 199);
      } else {
        assert.ok(row.ttft_ms < 150, `seq ${row.seq} not delayed: TTFT ${row.ttft_ms}`);
      }
    }
    assert.ok(slow >= 1, `seed 5 delays some requests (${slow})`);
    assert.ok(doc.metrics.ttft_ms.max >= 199);
  });

  test('--fault crash-after:6: the server dies mid-run; the rest fail as connect errors and the run completes', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const db = path.join(dir, 'db');
    const sim = await sc.sim([...FAST, '--fault', 'crash-after:6']);
    const { doc, stderr } = await runJson(sim.url, db, ['-n', '20', '--max-tokens', '8'], { code: 3 });
    assert.match(stderr, /^truecost: 15 of 20 measured requests failed/m);
    assert.equal(doc.run.status, 'complete');
    assert.deepEqual(doc.requests, { measured: 20, completed: 5, failed: 15, warmup: 1, retried_stale_connection: 0 });
    // The request sent as the server exits may meet the closing keep-alive
    // connection (a disconnect); every later one finds nothing listening.
    const { connect = 0, disconnect = 0, ...other } = doc.errors;
    assert.deepEqual(other, {});
    assert.equal(connect + disconnect, 15, JSON.stringify(doc.errors));
    assert.ok(disconnect <= 1 && connect >= 14, JSON.stringify(doc.errors));
    assert.equal((await sim.exited).code, 3, 'the simulator exited with the crash-after status');
  });

  test('--timeout: a request that takes longer is a "timeout" error', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const db = path.join(dir, 'db');
    const sim = await sc.sim([...FAST, '--fault', 'stall:1:3000']);
    const t0 = performance.now();
    const { doc } = await runJson(sim.url, db, ['-n', '2', '--max-tokens', '8', '--timeout', '0.4', '--max-error-rate', '1']);
    assert.ok(performance.now() - t0 < 2900, 'the run does not wait for the stalled streams');
    assert.deepEqual(doc.requests, { measured: 2, completed: 0, failed: 2, warmup: 1, retried_stale_connection: 0 });
    assert.deepEqual(doc.errors, { timeout: 2 });
    for (const row of await exportJson(db, doc.run.id, 'requests')) {
      assert.equal(row.error, 'timeout');
      assert.match(row.error_detail, /time/i);
    }
  });

  test('a prompt with quotes, backslashes, newlines and non-ASCII reaches every API intact', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const truth = path.join(dir, 'truth.jsonl');
    const sim = await sc.sim([...FAST, '--truth', truth]);
    const prompt = 'say "hi"\\ \n\tthen\nnewline ünïcödé 日本語 {"json": [1]} end';
    for (const api of ['ollama', 'ollama-chat', 'openai', 'openai-chat']) {
      const { doc } = await runJson(sim.url, path.join(dir, 'db'), ['--api', api, '-n', '1', '--warmup', '0', '--max-tokens', '2', '--prompt', prompt]);
      assert.deepEqual(doc.errors, {}, `--api ${api}`);
      assert.equal(doc.requests.completed, 1);
    }
    const lines = await readTruth(sim, truth, { unique: false });
    assert.equal(lines.length, 4);
    assert.ok(lines.every((l) => l.status === 200 && l.outcome === 'complete'), JSON.stringify(lines.map((l) => [l.route, l.status])));
    // /api/generate counts whitespace-separated words + 1.
    const words = prompt.split(/\s+/).filter(Boolean).length;
    assert.equal(lines.find((l) => l.route === '/api/generate').prompt_tokens, words + 1);
  });

  // ---- Ctrl-C --------------------------------------------------------------------

  test('Ctrl-C: exit 130 within ~2 s, the run is stored as interrupted with its requests', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const db = path.join(dir, 'db');
    const sim = await sc.sim(['--ttft-ms', '5', '--decode-tps', '20']);
    const p = spawnTruecost(['run', sim.url, '--db', db, '--json', '--duration', '30', '--max-tokens', '10', '-c', '4'], { t, timeoutMs: 40_000 });
    // Wait until the run is stored (its Ctrl-C handler is in place then), then let it work.
    const deadline = performance.now() + 15_000;
    for (;;) {
      assert.ok(performance.now() < deadline, `the run did not start: ${p.output().stderr}`);
      assert.equal(p.proc.exitCode, null, `exited early: ${p.output().stderr}`);
      const r = await runCli(['runs', '--db', db, '--json'], { timeoutMs: 10_000 });
      if (r.code === 0 && JSON.parse(r.stdout).length === 1) break;
      await sleep(50);
    }
    await sleep(1500);
    assert.equal(p.proc.exitCode, null, `still running before the signal: ${p.output().stderr}`);
    const t0 = performance.now();
    p.kill('SIGINT');
    const r = await p.done;
    const took = performance.now() - t0;
    assert.equal(r.code, 130, `exit status; stderr: ${r.stderr}`);
    assert.ok(took < 2500, `exited ${took.toFixed(0)} ms after SIGINT`);
    const doc = JSON.parse(r.stdout);
    assertContract(doc);
    assert.equal(doc.run.status, 'interrupted');
    const shown = JSON.parse(await ok(['show', String(doc.run.id), '--db', db, '--json']));
    assert.equal(shown.run.status, 'interrupted');
    assert.ok(shown.requests.completed >= 1, `completed ${shown.requests.completed}`);
    assert.deepEqual(shown, doc, 'show --json gives the document run --json printed');
    const rows = await exportJson(db, doc.run.id, 'requests');
    assert.equal(rows.length, shown.requests.measured + shown.requests.warmup, 'every finished request is stored');
    assert.ok(rows.filter((x) => !x.warmup && x.error === 'ok').length >= 1);
  });

  test('Ctrl-C twice: exits at once with status 130', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const db = path.join(dir, 'db');
    // 8 s per request: the first Ctrl-C alone would wait the 1 s grace.
    const sim = await sc.sim(['--ttft-ms', '5', '--decode-tps', '5']);
    const p = spawnTruecost(['run', sim.url, '--db', db, '--duration', '30', '--max-tokens', '40', '-c', '4', '--warmup', '0'], { t, timeoutMs: 40_000 });
    // Wait until the run has started (its "run N:" line) and requests are in flight.
    const deadline = performance.now() + 15_000;
    while (!/truecost: run \d+:/.test(p.output().stderr)) {
      assert.ok(performance.now() < deadline, `the run did not start: ${p.output().stderr}`);
      assert.equal(p.proc.exitCode, null, `exited early: ${p.output().stderr}`);
      await sleep(20);
    }
    await sleep(500);
    const t0 = performance.now();
    p.kill('SIGINT');
    await sleep(100);
    p.kill('SIGINT');
    const r = await p.done;
    const took = performance.now() - t0;
    assert.equal(r.code, 130, `exit status; stderr: ${r.stderr}`);
    assert.ok(took < 800, `the second Ctrl-C exits at once, before the 1 s grace (${took.toFixed(0)} ms after the first)`);
    // The first Ctrl-C marked the run at once, so the abrupt exit leaves it right.
    const runs = JSON.parse(await ok(['runs', '--db', db, '--json']));
    assert.equal(runs[0].status, 'interrupted');
  });

  test('SIGTERM: exit 143, the run is interrupted and requests cut off are kept as "interrupted"', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const db = path.join(dir, 'db');
    const sim = await sc.sim(['--ttft-ms', '5', '--decode-tps', '5']);
    const p = spawnTruecost(['run', sim.url, '--db', db, '--json', '--duration', '30', '--max-tokens', '40', '-c', '3', '--warmup', '0'], { t, timeoutMs: 40_000 });
    const deadline = performance.now() + 15_000;
    for (;;) {
      assert.ok(performance.now() < deadline, `the run did not start: ${p.output().stderr}`);
      const r = await runCli(['runs', '--db', db, '--json'], { timeoutMs: 10_000 });
      if (r.code === 0 && JSON.parse(r.stdout).length === 1) break;
      await sleep(50);
    }
    await sleep(500);
    p.kill('SIGTERM');
    const r = await p.done;
    assert.equal(r.code, 143, `exit status; stderr: ${r.stderr}`);
    const doc = JSON.parse(r.stdout);
    assert.equal(doc.run.status, 'interrupted');
    // 8 s per request: all 3 were in flight, cut off after the grace, and stored.
    assert.deepEqual(doc.errors, { interrupted: 3 });
    const rows = await exportJson(db, doc.run.id, 'requests');
    assert.equal(rows.length, 3);
    assert.ok(rows.every((x) => x.error === 'interrupted'), JSON.stringify(rows.map((x) => x.error)));
  });

  // ---- show, runs, export ----------------------------------------------------------

  test('run --json = show ID --json = show LABEL --json = export summary; runs --json lists the run', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const db = path.join(dir, 'db');
    const sim = await sc.sim(FAST);
    const { doc, stdout } = await runJson(sim.url, db, ['-n', '5', '--max-tokens', '6', '--label', 'round-trip']);
    const id = String(doc.run.id);
    const shown = await ok(['show', id, '--db', db, '--json']);
    assert.deepEqual(JSON.parse(shown), doc, 'show ID --json is the same document');
    assert.equal(shown, stdout, 'show ID --json prints the same bytes as run --json');
    assert.deepEqual(JSON.parse(await ok(['show', 'round-trip', '--db', db, '--json'])), doc, 'show LABEL');
    assert.deepEqual(await exportJson(db, 'round-trip', 'summary'), doc, 'export --what summary --format json is the run document');
    // The table form of show names the run too.
    const table = await ok(['show', 'round-trip', '--db', db]);
    assert.match(table, /SIMULATED/);
    // A second run with the same label: the label names the newest.
    const second = await runJson(sim.url, db, ['-n', '2', '--max-tokens', '4', '--label', 'round-trip']);
    assert.equal(JSON.parse(await ok(['show', 'round-trip', '--db', db, '--json'])).run.id, second.doc.run.id);
    const runs = JSON.parse(await ok(['runs', '--db', db, '--json']));
    assert.ok(Array.isArray(runs));
    assert.equal(runs.length, 2);
    assert.deepEqual(runs.map((r) => r.id), [second.doc.run.id, doc.run.id], 'newest first');
    const row = runs.find((r) => r.id === doc.run.id);
    for (const k of ['id', 'label', 'status', 'created', 'endpoint', 'model']) assert.ok(k in row, `runs --json row has ${k}`);
    assert.equal(row.label, 'round-trip');
    assert.equal(row.status, 'complete');
    assert.equal(row.created, doc.run.created);
    assert.equal(row.endpoint, sim.url);
    assert.equal(row.model, DEFAULT_MODEL);
    const list = await ok(['runs', '--db', db]);
    assert.match(list, /round-trip/);
  });

  test('export requests|chunks|summary as CSV and JSON, to stdout and -o FILE', async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const db = path.join(dir, 'db');
    const sim = await sc.sim(FAST);
    // A prompt with a comma and a quote, so that the CSV has quoted fields somewhere
    // (the summary's note and the error details at least).
    const label = 'exp, "quoted"';
    const { doc } = await runJson(sim.url, db, ['-n', '7', '--max-tokens', '5', '--warmup', '2', '--label', label]);
    const id = String(doc.run.id);
    const total = doc.requests.measured + doc.requests.warmup;
    assert.equal(total, 9);

    const reqJson = await exportJson(db, id, 'requests');
    assert.equal(reqJson.length, total, 'one JSON row per request, warm-ups included');
    assert.equal(reqJson.filter((r) => r.warmup).length, 2);
    assert.deepEqual(reqJson.map((r) => r.seq), [...Array(total).keys()]);
    const reqCsv = parseCsv(await ok(['export', id, '--db', db, '--what', 'requests', '--format', 'csv']));
    assert.equal(reqCsv.length, total + 1, 'header + one CSV row per request');
    const header = reqCsv[0];
    for (const k of ['seq', 'warmup', 'ttft_ms', 'e2e_ms', 'output_tokens', 'error']) assert.ok(header.includes(k), `CSV header has ${k}: ${header}`);
    for (const r of reqCsv) assert.equal(r.length, header.length, `every CSV row has ${header.length} fields: ${r}`);
    // CSV and JSON say the same.
    for (const [i, r] of reqCsv.slice(1).entries()) {
      const o = Object.fromEntries(header.map((h, j) => [h, r[j]]));
      assert.equal(Number(o.seq), reqJson[i].seq);
      assert.equal(Number(o.ttft_ms), reqJson[i].ttft_ms);
      assert.equal(Number(o.output_tokens), reqJson[i].output_tokens);
      assert.equal(o.warmup, String(reqJson[i].warmup));
    }

    const chunksTotal = reqJson.reduce((a, r) => a + r.chunks, 0);
    assert.equal(chunksTotal, total * 5);
    const chJson = await exportJson(db, id, 'chunks');
    assert.equal(chJson.length, chunksTotal, 'one JSON row per text chunk');
    const chCsv = parseCsv(await ok(['export', id, '--db', db, '--what', 'chunks']));
    assert.equal(chCsv.length, chunksTotal + 1, 'header + one CSV row per text chunk');
    for (const seq of reqJson.map((r) => r.seq)) {
      const mine = chJson.filter((c) => c.seq === seq);
      assert.deepEqual(mine.map((c) => c.index), [0, 1, 2, 3, 4]);
      assert.equal(mine[0].gap_ms, null);
      assert.ok(Math.abs(mine[0].t_ms - reqJson[seq].ttft_ms) < 1e-6, 'the first chunk is at the TTFT');
      for (let i = 1; i < mine.length; i++) assert.ok(Math.abs(mine[i].t_ms - mine[i - 1].t_ms - mine[i].gap_ms) < 1e-3, 'gap = t - previous t');
    }

    assert.deepEqual(await exportJson(db, id, 'summary'), doc);
    const sumCsv = parseCsv(await ok(['export', id, '--db', db, '--what', 'summary', '--format', 'csv']));
    assert.deepEqual(sumCsv[0], ['key', 'value']);
    const kv = Object.fromEntries(sumCsv.slice(1));
    assert.equal(kv['run.id'], id);
    assert.equal(kv['requests.measured'], '7');
    assert.equal(kv.note, doc.note, 'a quoted field with a comma round-trips');
    assert.equal(kv['run.label'], label, 'a label with a comma and quotes round-trips');
    assert.deepEqual(await exportJson(db, label, 'summary'), doc, 'export by that label');

    // The summary's figures are those of the exported rows (numpy-style linear percentiles).
    const measured = reqJson.filter((r) => !r.warmup && r.error === 'ok');
    const close = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-5, `${what}: ${a} vs ${b}`);
    for (const [key, xs] of [
      ['ttft_ms', measured.map((r) => r.ttft_ms)],
      ['e2e_ms', measured.map((r) => r.e2e_ms)],
      ['tpot_ms', measured.map((r) => r.tpot_ms)],
      ['itl_ms', chJson.filter((c) => c.gap_ms !== null && measured.some((r) => r.seq === c.seq)).map((c) => c.gap_ms)],
    ]) {
      for (const [k, q] of [['min', 0], ['p50', 50], ['p90', 90], ['p99', 99], ['max', 100]]) close(doc.metrics[key][k], pct(xs, q), `${key}.${k}`);
      close(doc.metrics[key].mean, xs.reduce((a, b) => a + b, 0) / xs.length, `${key}.mean`);
    }
    for (const r of measured) {
      close(r.tpot_ms, (r.e2e_ms - r.ttft_ms) / (r.output_tokens - 1), `seq ${r.seq}: TPOT = (E2E - TTFT) / (out - 1)`);
      const last = chJson.filter((c) => c.seq === r.seq).at(-1);
      assert.ok(r.e2e_ms >= last.t_ms - 1e-6, `seq ${r.seq}: E2E ends at or after the last text chunk`);
    }
    // Throughput over duration = first send -> last completion of the measured requests.
    const wallMs = (iso) => Date.parse(iso.replace(/\.\d+Z$/, 'Z')) + Number(`0.${iso.match(/\.(\d+)Z$/)?.[1] ?? '0'}`) * 1000;
    const start = Math.min(...measured.map((r) => wallMs(r.send_wall)));
    const end = Math.max(...measured.map((r) => wallMs(r.send_wall) + r.e2e_ms));
    assert.ok(Math.abs(doc.duration_s * 1000 - (end - start)) < 2, `duration_s ${doc.duration_s} vs ${(end - start) / 1000}`);
    close(doc.throughput.requests_per_s, doc.requests.completed / doc.duration_s, 'requests_per_s');
    close(doc.throughput.output_tokens_per_s, doc.tokens.output / doc.duration_s, 'output_tokens_per_s');
    close(doc.throughput.total_tokens_per_s, (doc.tokens.output + doc.tokens.prompt) / doc.duration_s, 'total_tokens_per_s');

    // -o FILE writes what stdout would have.
    for (const [what, format] of [
      ['requests', 'csv'],
      ['chunks', 'json'],
      ['summary', 'json'],
    ]) {
      const file = path.join(dir, `${what}.${format}`);
      const out = await ok(['export', id, '--db', db, '--what', what, '--format', format, '-o', file]);
      assert.equal(out, '', `-o ${file}: nothing on stdout`);
      assert.equal(readFileSync(file, 'utf8'), await ok(['export', id, '--db', db, '--what', what, '--format', format]));
    }
  });
});

// ---- accuracy against the simulator's ground truth ---------------------------------

/**
 * Client-vs-server timing errors (ms) of every measured request: TTFT
 * (client TTFT vs the first token chunk's hand-over less the arrival) and
 * every inter-token gap (client gap vs the truth gap of consecutive token chunks).
 */
function timingErrors(truthLines, reqRows, chunkRows) {
  const truth = bySeq(truthLines);
  const chunks = new Map();
  for (const c of chunkRows) {
    if (!chunks.has(c.seq)) chunks.set(c.seq, []);
    chunks.get(c.seq).push(c);
  }
  const ttft = [];
  const itl = [];
  for (const r of reqRows.filter((x) => !x.warmup)) {
    const l = truth.get(r.seq);
    assert.ok(l, `truth line for seq ${r.seq}`);
    const tok = l.chunks.filter((c) => c.tokens > 0);
    const mine = (chunks.get(r.seq) || []).sort((a, b) => a.index - b.index);
    assert.equal(mine.length, tok.length, `seq ${r.seq}: the client saw every token chunk`);
    ttft.push(Math.abs(r.ttft_ms - ms(tok[0].mono_ns - l.arrival_mono_ns)));
    for (let i = 1; i < tok.length; i++) itl.push(Math.abs(mine[i].gap_ms - ms(tok[i].mono_ns - tok[i - 1].mono_ns)));
  }
  const fmt = (xs) => `p50 ${quantile(xs, 0.5).toFixed(3)} ms, p99 ${quantile(xs, 0.99).toFixed(3)} ms, max ${Math.max(...xs).toFixed(3)} ms (${xs.length} samples)`;
  return { ttft, itl, fmt };
}

for (const [c, n, maxTok, bounds] of [
  [1, 20, 32, { itl50: 2, itl99: 20, ttft50: 5 }],
  // The send time is taken when libcurl is about to write the request on a
  // ready connection (CURLOPT_PREREQFUNCTION), so opening 255 new connections
  // does not count; what remains is two processes sharing 2 cores.
  [256, 256, 32, { itl50: 5, itl99: 100, ttft50: 50 }],
]) {
  test(`accuracy against the simulator's truth at -c ${c}`, async (t) => {
    const sc = scope(t);
    const dir = sc.dir();
    const truth = path.join(dir, 'truth.jsonl');
    const db = path.join(dir, 'db');
    const sim = await sc.sim(['--decode-tps', '200', '--truth', truth]);
    const { doc } = await runJson(sim.url, db, ['-n', String(n), '-c', String(c), '--max-tokens', String(maxTok)], { timeoutMs: 90_000 });
    assert.deepEqual(doc.requests, { measured: n, completed: n, failed: 0, warmup: 1, retried_stale_connection: 0 });
    const lines = await readTruth(sim, truth);
    assert.equal(lines.length, n + 1);
    const reqs = await exportJson(db, doc.run.id, 'requests');
    const chunks = await exportJson(db, doc.run.id, 'chunks');
    const e = timingErrors(lines, reqs, chunks);
    console.log(`# -c ${c}: |TTFT error| ${e.fmt(e.ttft)}`);
    console.log(`# -c ${c}: |ITL error|  ${e.fmt(e.itl)}`);
    assert.equal(e.itl.length, n * (maxTok - 1));
    assert.ok(median(e.itl) < bounds.itl50, `median |ITL error| ${median(e.itl)} < ${bounds.itl50} ms`);
    assert.ok(quantile(e.itl, 0.99) < bounds.itl99, `p99 |ITL error| ${quantile(e.itl, 0.99)} < ${bounds.itl99} ms`);
    assert.ok(median(e.ttft) < bounds.ttft50, `median |TTFT error| ${median(e.ttft)} < ${bounds.ttft50} ms`);
  });
}
