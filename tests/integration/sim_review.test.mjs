// `truecost sim` after review: clients that give up are cancelled, the
// server-reported durations match the schedule, the truth names only faults
// that were applied, fault specs refuse NaN, and max_completion_tokens wins.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  bodyFor,
  gaps,
  median,
  ndjsonLineTimes,
  ollamaGenerate,
  parseNdjson,
  post,
  request,
  runTruecost,
  sseEvents,
  startSim,
  tempDir,
  within,
} from './helpers.mjs';

function readTruth(file) {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

/** Waits until the truth file holds `n` lines (or 5 s pass); returns them. */
async function truthLines(file, n) {
  const deadline = performance.now() + 5000;
  let lines = readTruth(file);
  while (lines.length < n && performance.now() < deadline) {
    await sleep(20);
    lines = readTruth(file);
  }
  return lines;
}

function scratch(t) {
  const dir = tempDir();
  t.after(() => import('node:fs').then((fs) => fs.rmSync(dir, { recursive: true, force: true })));
  return path.join(dir, 'truth.jsonl');
}

const near = (a, b, eps, what) => assert.ok(Math.abs(a - b) <= eps, `${what}: ${a}, want ${b} ± ${eps}`);

// ---- a client that gives up before the reply ---------------------------------

test('a stream:false client that hangs up is cancelled: truth client_closed, and it leaves the batch', async (t) => {
  const truth = scratch(t);
  // One stream decodes at full speed (10 ms a token); two share the batch (20 ms).
  const s = await startSim(['--max-batch', '1', '--decode-tps', '100', '--ttft-ms', '2', '--truth', truth], { t });
  // 400 tokens would take 4 s; the client gives up after 100 ms.
  const gone = request(s.url, { method: 'POST', path: '/v1/completions', body: bodyFor('/v1/completions', { n: 400 }), timeoutMs: 100 });
  const n = 40;
  const stream = request(s.url, { method: 'POST', path: '/api/generate', body: ollamaGenerate({ n, stream: true, prompt: 'the other one' }) });
  await assert.rejects(gone, /no complete answer within 100 ms/);
  const res = await within(stream, 10_000, 'the concurrent stream');
  assert.equal(res.status, 200);
  assert.equal(res.error, null);
  // Once the other request is cancelled, this one has the batch to itself:
  // the second half of its tokens come at the unloaded 10 ms, not 20 ms.
  const times = ndjsonLineTimes(res.chunks).slice(0, n);
  assert.equal(times.length, n);
  const late = gaps(times.slice(n / 2));
  const m = median(late);
  assert.ok(m >= 7 && m <= 14, `median gap of the last ${n / 2} tokens ${m.toFixed(2)} ms, want ~10 (gaps ${late.map((x) => x.toFixed(1)).join(' ')})`);
  const lines = await truthLines(truth, 2);
  assert.equal(lines.length, 2, JSON.stringify(lines));
  const cancelled = lines.find((o) => o.route === '/v1/completions');
  const other = lines.find((o) => o.route === '/api/generate');
  assert.equal(cancelled.stream, false);
  assert.equal(cancelled.outcome, 'client_closed');
  assert.equal(cancelled.fault, 'none');
  assert.deepEqual(cancelled.chunks, [], 'nothing was sent');
  assert.ok(cancelled.tokens_sent >= 1 && cancelled.tokens_sent < 40, `generated ${cancelled.tokens_sent} tokens before the cancel`);
  assert.equal(other.outcome, 'complete');
  assert.equal(other.tokens_sent, n);
  // It is over when the client leaves, not when the 400 tokens would be.
  assert.ok(lines.indexOf(cancelled) === 0, 'the cancelled request ended first');
  const r = await s.stop();
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
});

test('a client that hangs up during the slow-accept wait is cancelled then', async (t) => {
  const truth = scratch(t);
  const s = await startSim(['--ttft-ms', '1', '--decode-tps', '1000', '--fault', 'slow-accept:1:600', '--truth', truth], { t });
  const t0 = performance.now();
  await assert.rejects(request(s.url, { method: 'POST', path: '/v1/chat/completions', body: bodyFor('/v1/chat/completions', { n: 5 }), timeoutMs: 100 }));
  const lines = await truthLines(truth, 1);
  const took = performance.now() - t0;
  assert.equal(lines.length, 1);
  assert.equal(lines[0].outcome, 'client_closed');
  assert.equal(lines[0].tokens_sent, 0);
  assert.equal(lines[0].slow_accept_ms, 600);
  assert.ok(took < 550, `the truth line came ${took.toFixed(0)} ms after the send, before the wait was over`);
  // The server goes on serving.
  const ok = await post(s.url, '/v1/completions', bodyFor('/v1/completions', { n: 2 }));
  assert.equal(ok.status, 200);
  assert.equal(ok.json.usage.completion_tokens, 2);
  const r = await s.stop();
  assert.equal(r.code, 0, r.stderr);
});

// ---- server-reported durations ----------------------------------------------------

test('--decode-tps 10: Ollama eval rate is 10 tokens/s and prompt_eval_duration is the prefill', async (t) => {
  // TTFT 20 ms + 6 prompt tokens / 2000 per s is shorter than one 100 ms step.
  const s = await startSim(['--decode-tps', '10'], { t });
  for (const stream of [false, true]) {
    const res = await post(s.url, '/api/generate', ollamaGenerate({ n: 10, stream }));
    assert.equal(res.status, 200);
    const o = stream ? parseNdjson(res.body).at(-1) : res.json;
    assert.equal(o.eval_count, 10);
    near((o.eval_count / o.eval_duration) * 1e9, 10, 1e-9, `stream:${stream} eval rate`);
    assert.equal(o.prompt_eval_duration, 3e6, `stream:${stream}: the 3 ms prefill (${JSON.stringify(o)})`);
    assert.equal(o.load_duration + o.prompt_eval_duration + o.eval_duration, o.total_duration);
  }
  // llama.cpp's timings: the same split.
  const res = await post(s.url, '/completion', { prompt: 'Why is the sky blue?', n_predict: 5 });
  assert.equal(res.status, 200);
  const tm = res.json.timings;
  assert.ok(tm.prompt_ms > 0, `timings.prompt_ms ${tm.prompt_ms}`);
  near(tm.prompt_ms, 3, 1e-3, 'timings.prompt_ms');
  near(tm.prompt_per_second, 2000, 1e-3, 'timings.prompt_per_second');
  near(tm.predicted_per_second, 10, 1e-6, 'timings.predicted_per_second');
  near(tm.predicted_ms, 500, 1e-3, 'timings.predicted_ms');
  const r = await s.stop();
  assert.equal(r.code, 0, r.stderr);
});

test('a full batch: the server reports the loaded rate and a non-zero prompt eval', async (t) => {
  // max-batch 1 and one stream decoding: a new request gets 20 ms steps,
  // longer than its 5 ms TTFT (2 ms + 6 prompt tokens / 2000 per s).
  const s = await startSim(['--max-batch', '1', '--decode-tps', '100', '--ttft-ms', '2'], { t });
  let started;
  const decoding = new Promise((r) => (started = r));
  const long = request(s.url, {
    method: 'POST',
    path: '/api/generate',
    body: ollamaGenerate({ n: 60, stream: true, prompt: 'keep the batch busy' }),
    onChunk: (c) => c.text.includes('"done":false') && started(),
  });
  await within(decoding, 5000, 'the first stream decoding');
  const [llama, ollama] = await Promise.all([
    post(s.url, '/completion', { prompt: 'Why is the sky blue?', n_predict: 5 }),
    post(s.url, '/api/chat', bodyFor('/api/chat', { n: 5 })),
  ]);
  for (const x of [llama, ollama]) assert.equal(x.status, 200, x.body);
  // Three decoding at once on a batch of 1 at most, two at least: the rate is
  // what the tokens were scheduled at, and the prompt eval is never 0.
  const tm = llama.json.timings;
  assert.ok(tm.prompt_ms >= 3 - 1e-3, `timings.prompt_ms ${tm.prompt_ms} (prefill 3 ms)`);
  assert.ok(tm.prompt_per_second > 0);
  assert.ok(tm.predicted_per_second <= 50 + 1e-6 && tm.predicted_per_second >= 100 / 3 - 1e-6, `timings.predicted_per_second ${tm.predicted_per_second}`);
  const o = ollama.json;
  assert.ok(o.prompt_eval_duration > 0, JSON.stringify(o));
  assert.equal(o.load_duration + o.prompt_eval_duration + o.eval_duration, o.total_duration);
  const rate = (o.eval_count / o.eval_duration) * 1e9;
  assert.ok(rate <= 50 + 1e-6 && rate >= 100 / 3 - 1e-6, `Ollama eval rate ${rate}`);
  await within(long, 10_000, 'the first stream');
  // Alone on the batch now: exactly the loaded rate of two streams.
  const busy = request(s.url, {
    method: 'POST',
    path: '/api/generate',
    body: ollamaGenerate({ n: 60, stream: true, prompt: 'busy again' }),
  });
  await sleep(100);
  const one = await post(s.url, '/completion', { prompt: 'Why is the sky blue?', n_predict: 5 });
  near(one.json.timings.predicted_per_second, 50, 1e-6, 'one stream beside another on a batch of 1');
  near(one.json.timings.prompt_ms, 3, 1e-3, 'its prompt_ms is the prefill');
  await busy;
  const r = await s.stop();
  assert.equal(r.code, 0, r.stderr);
});

// ---- faults ----------------------------------------------------------------------

test('a load-only request under a mid-stream fault: a normal "load" reply, and the truth says fault none', async (t) => {
  for (const fault of ['disconnect:1', 'malformed:1', 'stall:1:50']) {
    const truth = scratch(t);
    const s = await startSim(['--ttft-ms', '1', '--decode-tps', '1000', '--fault', fault, '--truth', truth], { t });
    const gen = await post(s.url, '/api/generate', { model: 'sim-llama-8b' });
    const chat = await post(s.url, '/api/chat', { model: 'sim-llama-8b', messages: [] });
    for (const x of [gen, chat]) {
      assert.equal(x.status, 200, `${fault}: ${x.body}`);
      assert.equal(x.error, null);
      const last = parseNdjson(x.body).at(-1);
      assert.equal(last.done, true);
      assert.equal(last.done_reason, 'load');
    }
    // A request that generates meets the fault, and the truth names it.
    const real = await post(s.url, '/api/generate', ollamaGenerate({ n: 4, stream: true }));
    assert.equal(real.status, 200);
    const r = await s.stop();
    assert.equal(r.code, 0, r.stderr);
    const lines = readTruth(truth);
    assert.equal(lines.length, 3);
    const kind = fault.split(':')[0];
    assert.deepEqual(
      lines.map((o) => [o.id, o.fault, o.outcome]),
      [
        [1, 'none', 'complete'],
        [2, 'none', 'complete'],
        [3, kind, kind === 'disconnect' ? 'disconnect' : 'complete'],
      ],
      fault,
    );
  }
});

test('--fault with a NaN or infinite number is refused', async () => {
  const dir = tempDir();
  try {
    for (const spec of ['stall:1:nan', 'slow-accept:1:nan', 'slow-accept:0.5:inf', 'stall:nan:10', 'http500:nan', 'crash-after:nan']) {
      const portFile = path.join(dir, 'port');
      const r = await runTruecost(['sim', '--listen', '127.0.0.1:0', '--port-file', portFile, '--fault', spec]);
      assert.equal(r.code, 1, `${spec}: exit ${r.code}, stderr ${r.stderr}`);
      assert.match(r.stderr, /^truecost: /, spec);
      assert.ok(r.stderr.includes(spec), `${spec}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /runtime error/);
      assert.throws(() => readFileSync(portFile), 'no port file');
    }
  } finally {
    (await import('node:fs')).rmSync(dir, { recursive: true, force: true });
  }
});

// ---- request parsing ---------------------------------------------------------------

test('chat: max_completion_tokens wins over the deprecated max_tokens', async (t) => {
  const s = await startSim(['--ttft-ms', '1', '--decode-tps', '2000'], { t });
  const messages = [{ role: 'user', content: 'Why is the sky blue?' }];
  for (const body of [
    { model: 'sim-llama-8b', messages, max_tokens: 3, max_completion_tokens: 5 },
    { model: 'sim-llama-8b', messages, max_completion_tokens: 5, max_tokens: 3 },
  ]) {
    const res = await post(s.url, '/v1/chat/completions', body);
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.usage.completion_tokens, 5, JSON.stringify(body));
  }
  const streamed = await post(s.url, '/v1/chat/completions', {
    model: 'sim-llama-8b',
    messages,
    max_tokens: 3,
    max_completion_tokens: 5,
    stream: true,
    stream_options: { include_usage: true },
  });
  const usage = sseEvents(streamed.body)
    .map((e) => e.data)
    .filter((d) => d && d !== '[DONE]')
    .map((d) => JSON.parse(d))
    .find((c) => c.usage);
  assert.equal(usage.usage.completion_tokens, 5);
});

test('the batch cap holds: first tokens are paid for at the batch rate, so an open loop past capacity never passes decode-tps x max-batch', async (t) => {
  const dir = tempDir();
  // Cap 4 x 100 = 400 tok/s; 80 requests/s of 20 tokens offer 1,600. Before
  // the fix every first token came free of the batch: 418.9 tok/s over the
  // run and 468.3 in the window.
  const sim = await startSim(['--max-batch', '4', '--decode-tps', '100'], { t });
  const r = await runTruecost(['run', sim.url, '--rate', '80', '-n', '60', '--max-tokens', '20', '--warmup', '0',
    '--db', path.join(dir, 'db'), '--telemetry', 'none', '--json'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  const cap = 400;
  assert.ok(doc.throughput.output_tokens_per_s <= cap, `whole run ${doc.throughput.output_tokens_per_s} tok/s over the cap ${cap}`);
  assert.ok(doc.window.output_tokens_per_s <= cap * 1.01, `window ${doc.window.output_tokens_per_s} tok/s over the cap ${cap}`);
  assert.ok(doc.window.output_tokens_per_s > cap * 0.9, `window ${doc.window.output_tokens_per_s} tok/s: the batch was full`);
});
