// Faults, ground truth, signals and exit statuses of `truecost sim`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';

import {
  DEFAULT_MODEL,
  INFERENCE_ROUTES,
  bodyFor,
  gaps,
  get,
  isOllama,
  ndjsonLineTimes,
  ndjsonLines,
  parseNdjson,
  post,
  request,
  runTruecost,
  sseEventTimes,
  sseEvents,
  startSim,
  streamedText,
  tempDir,
  within,
} from './helpers.mjs';

const FAST = ['--ttft-ms', '1', '--decode-tps', '1000'];
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

function readTruth(file) {
  const text = readFileSync(file, 'utf8');
  assert.ok(text === '' || text.endsWith('\n'), 'the truth file ends with a newline');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

/** Checks the common shape of one truth line. */
function assertTruthLine(o) {
  assert.ok(Number.isInteger(o.id) && o.id > 0, `id: ${JSON.stringify(o)}`);
  assert.ok(INFERENCE_ROUTES.includes(o.route), `route ${o.route}`);
  assert.equal(o.model, DEFAULT_MODEL);
  assert.ok(Number.isInteger(o.arrival_mono_ns) && o.arrival_mono_ns > 0);
  assert.match(o.arrival_utc, RFC3339);
  assert.equal(typeof o.stream, 'boolean');
  assert.ok(Number.isInteger(o.prompt_tokens));
  assert.ok(Number.isInteger(o.tokens_sent));
  assert.equal(typeof o.fault, 'string');
  assert.equal(typeof o.outcome, 'string');
  assert.ok(Array.isArray(o.chunks));
  let prev = o.arrival_mono_ns;
  let sum = 0;
  for (const c of o.chunks) {
    assert.deepEqual(Object.keys(c).sort(), ['mono_ns', 'tokens', 'utc']);
    assert.ok(Number.isInteger(c.mono_ns) && c.mono_ns >= prev, `chunk times in order: ${JSON.stringify(o.chunks)}`);
    assert.match(c.utc, RFC3339);
    assert.ok(Number.isInteger(c.tokens) && c.tokens >= 0);
    prev = c.mono_ns;
    sum += c.tokens;
  }
  assert.equal(sum, o.tokens_sent, 'the chunks add up to tokens_sent');
}

// ---- HTTP status faults ----------------------------------------------------

for (const [kind, status, type] of [
  ['http500', 500, 'server_error'],
  ['http503', 503, 'unavailable_error'],
]) {
  test(`${kind}:1 answers ${status} in each route's error shape`, async (t) => {
    const dir = tempDir();
    t.after(() => import('node:fs').then((fs) => fs.rmSync(dir, { recursive: true, force: true })));
    const truth = path.join(dir, 'truth.jsonl');
    const s = await startSim([...FAST, '--fault', `${kind}:1`, '--truth', truth], { t });
    let count = 0;
    for (const route of INFERENCE_ROUTES) {
      for (const stream of [true, false]) {
        const res = await post(s.url, route, bodyFor(route, { n: 4, stream }));
        count++;
        assert.equal(res.status, status, `${route}: ${res.body}`);
        assert.equal(res.headers['x-truecost-simulated'], '1');
        assert.match(res.headers['content-type'], /^application\/json/);
        if (isOllama(route)) {
          assert.deepEqual(Object.keys(res.json), ['error']);
          assert.match(res.json.error, new RegExp(kind));
        } else {
          assert.equal(res.json.error.type, type);
          assert.equal(res.json.error.code, status);
          assert.match(res.json.error.message, new RegExp(kind));
        }
      }
    }
    // Info routes are not inference requests: no fault there.
    assert.equal((await get(s.url, '/health')).status, 200);
    const r = await s.stop();
    assert.equal(r.code, 0, r.stderr);
    const lines = readTruth(truth);
    assert.equal(lines.length, count);
    for (const o of lines) {
      assertTruthLine(o);
      assert.equal(o.fault, kind);
      assert.equal(o.outcome, kind);
      assert.equal(o.status, status);
      assert.equal(o.tokens_sent, 0);
    }
  });
}

// ---- mid-stream faults -----------------------------------------------------

test('disconnect:1 cuts every stream halfway: no final done / [DONE] / stop:true', async (t) => {
  const dir = tempDir();
  t.after(() => import('node:fs').then((fs) => fs.rmSync(dir, { recursive: true, force: true })));
  const truth = path.join(dir, 'truth.jsonl');
  const s = await startSim([...FAST, '--fault', 'disconnect:1', '--truth', truth], { t });
  const n = 6; // the fault strikes before token n/2
  for (const route of INFERENCE_ROUTES) {
    const res = await post(s.url, route, bodyFor(route, { n, stream: true, usage: true }));
    assert.equal(res.status, 200, route);
    assert.ok(res.error, `${route}: the client sees the connection cut (body: ${res.body})`);
    assert.equal(streamedText(route, res.body).pieces, n / 2, `${route}: tokens before the cut`);
    if (isOllama(route)) {
      assert.ok(!res.body.includes('"done":true'), 'no done:true line');
    } else {
      assert.ok(!res.body.includes('[DONE]'), 'no [DONE]');
      assert.ok(!res.body.includes('"stop":true'), 'no stop:true');
      assert.ok(!res.body.includes('"usage":{'), 'no usage chunk');
    }
  }
  // The server is unharmed (every inference request meets the fault here).
  assert.equal((await get(s.url, '/health')).status, 200);
  assert.equal((await get(s.url, '/v1/models')).status, 200);
  const r = await s.stop();
  assert.equal(r.code, 0, r.stderr);
  const lines = readTruth(truth);
  assert.equal(lines.length, INFERENCE_ROUTES.length);
  for (const o of lines) {
    assertTruthLine(o);
    assert.equal(o.fault, 'disconnect');
    assert.equal(o.outcome, 'disconnect');
    assert.equal(o.tokens_sent, n / 2);
  }
});

test('malformed:1 sends exactly one line/event that is not JSON; the stream otherwise completes', async (t) => {
  const s = await startSim([...FAST, '--fault', 'malformed:1'], { t });
  const n = 6;
  for (const route of INFERENCE_ROUTES) {
    const res = await post(s.url, route, bodyFor(route, { n, stream: true, usage: true }));
    assert.equal(res.status, 200, route);
    assert.equal(res.error, null);
    let units;
    if (isOllama(route)) {
      units = ndjsonLines(res.body);
      assert.equal(units.partial, '', 'framing intact: ends with a newline');
    } else {
      const evs = sseEvents(res.body);
      assert.equal(evs.partial, '', 'framing intact: ends with a blank line');
      for (const e of evs) assert.match(e.raw, /^data: [^\n]+$/);
      units = evs.map((e) => e.data).filter((d) => d !== '[DONE]');
    }
    const bad = units.filter((u) => {
      try {
        JSON.parse(u);
        return false;
      } catch {
        return true;
      }
    });
    assert.equal(bad.length, 1, `${route}: one unparsable unit in ${res.body}`);
    assert.equal(streamedText(route, res.body).pieces, n, 'every token still arrives');
    if (isOllama(route)) assert.equal(JSON.parse(units.at(-1)).done, true);
    else if (route === '/completion') assert.equal(JSON.parse(units.at(-1)).stop, true);
    else assert.equal(sseEvents(res.body).at(-1).data, '[DONE]');
  }
});

test('stall:1:300 pauses one gap of >= ~300 ms mid-stream', async (t) => {
  const s = await startSim([...FAST, '--fault', 'stall:1:300'], { t });
  const n = 6;
  const [nd, sse] = await Promise.all([
    post(s.url, '/api/generate', bodyFor('/api/generate', { n, stream: true })),
    post(s.url, '/v1/completions', bodyFor('/v1/completions', { n, stream: true })),
  ]);
  for (const [res, times] of [
    [nd, ndjsonLineTimes(nd.chunks).slice(0, n)],
    [sse, sseEventTimes(sse.chunks).slice(0, n)],
  ]) {
    assert.equal(res.status, 200);
    assert.equal(res.error, null);
    assert.equal(times.length, n);
    const g = gaps(times);
    const long = g.filter((x) => x >= 280);
    assert.equal(long.length, 1, `one long gap: ${g.map((x) => x.toFixed(1)).join(' ')}`);
    assert.ok(g.indexOf(long[0]) === n / 2 - 1, 'the stall sits halfway');
    assert.ok(long[0] < 1000, `stall ${long[0]} ms`);
  }
});

test('slow-accept:1:300 holds the response headers >= ~300 ms', async (t) => {
  const s = await startSim([...FAST, '--fault', 'slow-accept:1:300'], { t });
  const rs = await Promise.all([
    post(s.url, '/api/generate', bodyFor('/api/generate', { n: 3, stream: true })),
    post(s.url, '/v1/completions', bodyFor('/v1/completions', { n: 3 })),
    post(s.url, '/v1/chat/completions', bodyFor('/v1/chat/completions', { n: 3, stream: true })),
  ]);
  for (const r of rs) {
    assert.equal(r.status, 200);
    assert.equal(r.error, null);
    const wait = r.tHeaders - r.tSend;
    assert.ok(wait >= 280 && wait < 2000, `headers after ${wait.toFixed(1)} ms`);
  }
  assert.equal(parseNdjson(rs[0].body).at(-1).eval_count, 3);
  // Info routes answer at once.
  const h = await get(s.url, '/health');
  assert.ok(h.tHeaders - h.tSend < 250);
});

test('crash-after:3 exits with status 3 once the 3rd request has completed', async (t) => {
  const dir = tempDir();
  t.after(() => import('node:fs').then((fs) => fs.rmSync(dir, { recursive: true, force: true })));
  const truth = path.join(dir, 'truth.jsonl');
  const s = await startSim([...FAST, '--fault', 'crash-after:3', '--truth', truth], { t });
  const a = await post(s.url, '/api/generate', bodyFor('/api/generate', { n: 3, stream: true }));
  const b = await post(s.url, '/v1/completions', bodyFor('/v1/completions', { n: 3 }));
  assert.equal((await get(s.url, '/health')).status, 200, 'info routes do not count');
  assert.equal((await post(s.url, '/v1/completions', '{')).status, 400, 'rejected requests do not count');
  assert.equal(s.proc.exitCode, null, 'still running after 2 requests');
  const c = await post(s.url, '/v1/chat/completions', bodyFor('/v1/chat/completions', { n: 3, stream: true }));
  for (const r of [a, b, c]) {
    assert.equal(r.status, 200);
    assert.equal(r.error, null, 'complete response');
  }
  assert.equal(parseNdjson(a.body).at(-1).done, true);
  assert.equal(b.json.usage.completion_tokens, 3);
  assert.equal(sseEvents(c.body).at(-1).data, '[DONE]', 'the 3rd response is complete');
  const exit = await within(s.exited, 5000, 'exit after crash-after:3');
  assert.equal(exit.code, 3);
  const r = await s.stop();
  assert.match(r.stderr, /crash-after:3/);
  await assert.rejects(get(s.url, '/health', { timeoutMs: 2000 }), 'nothing listens any more');
  const lines = readTruth(truth);
  assert.deepEqual(
    lines.map((o) => [o.id, o.outcome]),
    [
      [1, 'complete'],
      [2, 'complete'],
      [3, 'complete'],
    ],
  );
});

test('crash-after:1 with a non-streamed reply: the reply is complete, then exit 3', async (t) => {
  const s = await startSim([...FAST, '--fault', 'crash-after:1'], { t });
  const r = await post(s.url, '/api/chat', bodyFor('/api/chat', { n: 3 }));
  assert.equal(r.status, 200);
  assert.equal(r.error, null);
  assert.equal(r.json.eval_count, 3);
  assert.equal((await within(s.exited, 5000, 'exit')).code, 3);
});

test('a fault rate of 0.5 under a fixed --seed hits the same requests on two runs', async (t) => {
  const pattern = async (seed) => {
    const s = await startSim([...FAST, '--fault', 'http500:0.5', '--seed', String(seed)], { t });
    const out = [];
    for (let i = 0; i < 16; i++) out.push((await post(s.url, '/v1/completions', bodyFor('/v1/completions', { n: 1 }))).status);
    await s.stop();
    return out.join(',');
  };
  const first = await pattern(7);
  const second = await pattern(7);
  assert.equal(second, first);
  assert.match(first, /200/, 'some succeed');
  assert.match(first, /500/, 'some fail');
  const n500 = first.split(',').filter((x) => x === '500').length;
  assert.ok(n500 >= 3 && n500 <= 13, `${n500} of 16 failed at rate 0.5`);
});

// ---- ground truth ----------------------------------------------------------

test('--truth writes one line per request with every chunk, in order', async (t) => {
  const dir = tempDir();
  t.after(() => import('node:fs').then((fs) => fs.rmSync(dir, { recursive: true, force: true })));
  const truth = path.join(dir, 'truth.jsonl');
  const s = await startSim([...FAST, '--truth', truth], { t });
  await post(s.url, '/api/generate', bodyFor('/api/generate', { n: 4, stream: true }));
  await post(s.url, '/v1/chat/completions', bodyFor('/v1/chat/completions', { n: 3 }));
  await post(s.url, '/v1/chat/completions', bodyFor('/v1/chat/completions', { n: 3, stream: true, usage: true }));
  await post(s.url, '/completion', bodyFor('/completion', { n: 2, stream: true }));
  await post(s.url, '/v1/completions', bodyFor('/v1/completions', { n: 2, model: 'nope' })); // 404: not a request of the model
  // A client that leaves mid-stream.
  let cut = false;
  await request(s.url, {
    method: 'POST',
    path: '/api/generate',
    body: bodyFor('/api/generate', { n: 200, stream: true }),
    onChunk: (c, req) => {
      if (!cut) {
        cut = true;
        req.destroy();
      }
    },
  }).catch(() => {});
  // Give the server a moment to notice the hang-up.
  const deadline = performance.now() + 5000;
  while (readFileSync(truth, 'utf8').split('\n').length < 6 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const r = await s.stop();
  assert.equal(r.code, 0, r.stderr);
  const lines = readTruth(truth);
  assert.equal(lines.length, 5, JSON.stringify(lines));
  lines.forEach(assertTruthLine);
  const [gen, chat, chatS, llama, gone] = lines;
  assert.deepEqual(
    lines.map((o) => o.id),
    [1, 2, 3, 4, 5],
  );
  for (const o of [gen, chat, chatS, llama]) {
    assert.equal(o.status, 200);
    assert.equal(o.fault, 'none');
    assert.equal(o.outcome, 'complete');
  }
  assert.equal(gen.route, '/api/generate');
  assert.equal(gen.stream, true);
  assert.equal(gen.prompt_tokens, 6);
  assert.equal(gen.tokens_sent, 4);
  assert.deepEqual(
    gen.chunks.map((c) => c.tokens),
    [1, 1, 1, 1, 0],
    'four token lines and the done line',
  );
  assert.equal(chat.route, '/v1/chat/completions');
  assert.equal(chat.stream, false);
  assert.equal(chat.prompt_tokens, 10);
  assert.deepEqual(
    chat.chunks.map((c) => c.tokens),
    [3],
    'one body with all the tokens',
  );
  assert.deepEqual(
    chatS.chunks.map((c) => c.tokens),
    [0, 1, 1, 1, 0],
    'role chunk, three tokens, usage + [DONE]',
  );
  assert.deepEqual(
    llama.chunks.map((c) => c.tokens),
    [1, 1, 0],
  );
  assert.equal(gone.outcome, 'client_closed');
  assert.ok(gone.tokens_sent >= 1 && gone.tokens_sent < 200);
});

// ---- signals and exit statuses ----------------------------------------------

for (const signal of ['SIGINT', 'SIGTERM']) {
  test(`${signal} stops the server with exit status 0`, async (t) => {
    const s = await startSim(FAST, { t });
    assert.equal((await get(s.url, '/health')).status, 200);
    const r = await within(s.stop(signal), 10_000, `exit on ${signal}`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.signal, null);
    assert.match(r.stderr, /^truecost sim: stopped after/m);
  });
}

test('SIGINT with streams in flight: exit 0, the streams are cut', async (t) => {
  const dir = tempDir();
  t.after(() => import('node:fs').then((fs) => fs.rmSync(dir, { recursive: true, force: true })));
  const truth = path.join(dir, 'truth.jsonl');
  const s = await startSim(['--ttft-ms', '1', '--decode-tps', '20', '--truth', truth], { t });
  let started = 0;
  let resolveStarted;
  const bothStarted = new Promise((r) => (resolveStarted = r));
  const onChunk = () => {
    if (++started === 2) resolveStarted();
  };
  const streams = [
    request(s.url, { method: 'POST', path: '/api/generate', body: bodyFor('/api/generate', { n: 100, stream: true }), onChunk }),
    request(s.url, { method: 'POST', path: '/v1/chat/completions', body: bodyFor('/v1/chat/completions', { n: 100, stream: true }), onChunk }),
    // and one still in its prefill
    request(s.url, { method: 'POST', path: '/completion', body: { prompt: 'x', n_predict: 5 } }).catch((e) => ({ error: e })),
  ];
  await within(bothStarted, 5000, 'streams started');
  const r = await within(s.stop('SIGINT'), 10_000, 'exit on SIGINT');
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
  const [a, b] = await within(Promise.all(streams), 5000, 'clients see the end');
  assert.ok(a.error && !a.body.includes('"done":true'), 'the NDJSON stream was cut');
  assert.ok(b.error && !b.body.includes('[DONE]'), 'the SSE stream was cut');
  const lines = readTruth(truth);
  assert.equal(lines.length, 3);
  for (const o of lines) assert.equal(o.outcome, 'server_stopped');
});

test('bad options: exit status 1 and a "truecost: " message', async () => {
  const dir = tempDir();
  try {
    for (const args of [
      ['--fault', 'nope:1'],
      ['--fault', 'http500:2'],
      ['--fault', 'stall:1'],
      ['--decode-tps', 'abc'],
      ['--decode-tps', '0'],
      ['--listen', '127.0.0.1:99999'],
      ['--max-batch', '0'],
      ['--seed', '-1'],
      ['--no-such-option'],
      ['extra-argument'],
    ]) {
      const portFile = path.join(dir, 'port');
      const r = await runTruecost(['sim', '--listen', '127.0.0.1:0', '--port-file', portFile, ...args]);
      assert.equal(r.code, 1, `${args.join(' ')}: exit ${r.code}, stderr ${r.stderr}`);
      assert.match(r.stderr, /^truecost: /, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '', 'nothing on stdout');
      assert.throws(() => readFileSync(portFile), 'no port file');
    }
  } finally {
    (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  }
});

test('a port already in use: exit status 2 with a "truecost: " message', async () => {
  const blocker = net.createServer();
  await new Promise((resolve, reject) => blocker.listen(0, '127.0.0.1', resolve).on('error', reject));
  try {
    const { port } = blocker.address();
    const r = await runTruecost(['sim', '--listen', `127.0.0.1:${port}`]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /^truecost: /);
    assert.match(r.stderr, new RegExp(String(port)));
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test('--truth in a missing directory: exit status 2', async () => {
  const r = await runTruecost(['sim', '--listen', '127.0.0.1:0', '--truth', '/nonexistent-dir/truth.jsonl']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^truecost: .*--truth/);
});

test('truecost sim --help documents every fault kind and exits 0', async () => {
  const r = await runTruecost(['sim', '--help']);
  assert.equal(r.code, 0);
  for (const k of ['http500', 'http503', 'disconnect', 'malformed', 'stall', 'slow-accept', 'crash-after'])
    assert.match(r.stdout, new RegExp(k));
});
