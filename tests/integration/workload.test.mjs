// `truecost run --isl/--osl/--workload`: synthetic prompts sized by a
// calibration against the server's own prompt count, and a fixed output
// length where the API lets the client ask the server to ignore EOS.
//
// The simulator is the ground truth: started with --tokens-per-word 1.3 it
// counts 1.3 prompt tokens per word (so prompts sized at one token per word
// would miss the target by 30%), and with --eos-after 10 its "model" ends
// every answer after 10 tokens unless the request carries ignore_eos (which
// it honours off Ollama's routes, as vLLM, SGLang and llama.cpp do). Its
// truth file says, per request, the prompt tokens it counted, whether
// ignore_eos was honoured and the tokens it sent.
//
// Every test starts its own servers on 127.0.0.1 and uses its own temporary
// directory; everything it started is stopped in t.after().
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { test } from 'node:test';

import { expectExit, runCli, startHttp, startProxy, testScope } from './helpers.mjs';

// Fast enough that 1k-token prompts and replies take milliseconds.
const FAST = ['--ttft-ms', '1', '--decode-tps', '100000', '--prefill-tps', '1000000000'];
const SHAPED = [...FAST, '--tokens-per-word', '1.3', '--eos-after', '10'];

function scope(t) {
  return testScope(t, 'truecost-wl-');
}

async function runJson(args) {
  const r = await runCli(args, { timeoutMs: 60_000 });
  assert.equal(r.code, 0, `truecost ${args.join(' ')}: exit ${r.code}; stderr: ${r.stderr}`);
  return { doc: JSON.parse(r.stdout), stderr: r.stderr };
}

/** Stops the simulator (flushing its truth file) and reads the truth lines of the run's requests (calibration probes carry no client seq). */
async function truthOfRun(sim, file) {
  await sim.stop();
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l))
    .filter((l) => l.client_seq >= 0);
}

/** Every measured request's prompt, as the simulator counted it, within 5% of [lo, hi]. */
function assertIslInRange(lines, lo, hi) {
  assert.ok(lines.length > 0);
  for (const l of lines)
    assert.ok(
      l.prompt_tokens >= lo * 0.95 && l.prompt_tokens <= hi * 1.05,
      `request ${l.client_seq}: ${l.prompt_tokens} prompt tokens as the simulator counts, target ${lo}-${hi} (5%)`,
    );
}

test('--isl 1000 --osl 64: prompts within 5% of the range as the server counts, OSL exactly 64 with ignore_eos', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const db = path.join(dir, 'db');
  const truth = path.join(dir, 'truth.jsonl');
  const sim = await sc.sim([...SHAPED, '--truth', truth]);
  const N = 12;
  const { doc } = await runJson(['run', sim.url, '--api', 'openai', '--isl', '1000', '--osl', '64', '-n', String(N), '-c', '3', '--db', db, '--json', '--label', 'shaped']);
  const lines = await truthOfRun(sim, truth);
  assert.equal(lines.length, N + 1, 'the measured requests and the warm-up');
  assertIslInRange(lines, 800, 1000);
  for (const l of lines) {
    assert.equal(l.ignore_eos, true, `request ${l.client_seq} asked the server to ignore EOS`);
    assert.equal(l.eos, false);
    assert.equal(l.tokens_sent, 64, `request ${l.client_seq}: OSL exactly 64 (the model would stop at 10)`);
  }
  // the targets spread over the range, seeded: not all one length
  assert.ok(new Set(lines.map((l) => l.prompt_tokens)).size > N / 2);

  const w = doc.workload;
  assert.ok(w, `the run document has "workload": ${Object.keys(doc)}`);
  assert.equal(w.preset, null);
  assert.equal(w.seed, 0);
  assert.deepEqual(w.target, { isl_min: 800, isl_max: 1000, isl_range: 0.8, osl: 64 });
  assert.equal(w.ignore_eos, true);
  assert.equal(w.eos_note, null);
  assert.equal(w.calibration.source, 'usage.prompt_tokens');
  assert.ok(Math.abs(w.calibration.tokens_per_word - 1.3) < 0.01, `tokens per word ${w.calibration.tokens_per_word}`);
  assert.equal(w.achieved.osl.p50, 64);
  assert.equal(w.achieved.osl.mean, 64);
  assert.equal(w.achieved.isl_in_range, 1);
  const measured = lines.filter((l) => l.client_seq > 0).map((l) => l.prompt_tokens);
  const mean = measured.reduce((a, b) => a + b, 0) / measured.length;
  assert.ok(Math.abs(w.achieved.isl.mean - mean) < 1e-6, `achieved ISL mean ${w.achieved.isl.mean} is the server's (${mean})`);
  assert.match(doc.run.model, /sim-llama-8b/);

  // stored with the run: show reads it back, as text and JSON
  const show = await runCli(['show', 'shaped', '--db', db]);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /^workload +ISL 800-1000 tokens, OSL 64, seed 0, ignore_eos sent$/m);
  assert.match(show.stdout, /^achieved +ISL mean [\d.]+, p50 [\d.]+; OSL mean 64\.0, p50 64\.0/m);
  assert.match(show.stdout, /^calibration +1\.(29|30)\d tokens per word \+ [\d.]+ per prompt \(usage\.prompt_tokens\)$/m);
  const again = JSON.parse((await runCli(['show', 'shaped', '--db', db, '--json'])).stdout);
  assert.deepEqual(again.workload, w);
});

test('--workload chat: 1k/1k prompts and replies', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const db = path.join(dir, 'db');
  const truth = path.join(dir, 'truth.jsonl');
  const sim = await sc.sim([...SHAPED, '--truth', truth]);
  const { doc } = await runJson(['run', sim.url, '--api', 'openai-chat', '--workload', 'chat', '-n', '2', '--warmup', '0', '--seed', '5', '--db', db, '--json']);
  const lines = await truthOfRun(sim, truth);
  assert.equal(lines.length, 2);
  assertIslInRange(lines, 820, 1024);
  for (const l of lines) assert.equal(l.tokens_sent, 1024);
  assert.equal(doc.workload.preset, 'chat');
  assert.equal(doc.workload.seed, 5);
  assert.deepEqual(doc.workload.target, { isl_min: 820, isl_max: 1024, isl_range: 0.8, osl: 1024 });
  assert.equal(doc.workload.achieved.osl.p50, 1024);
});

test('Ollama cannot ignore EOS: the run says so and reports the OSL the model chose', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const truth = path.join(dir, 'truth.jsonl');
  const sim = await sc.sim([...SHAPED, '--truth', truth]);
  const { doc, stderr } = await runJson(['run', sim.url, '--api', 'ollama', '--isl', '300', '--osl', '64', '-n', '4', '--db', path.join(dir, 'db'), '--json']);
  const note = "Ollama: ignore_eos not supported; output length is the model's choice, achieved OSL shown";
  assert.ok(stderr.includes(`truecost: ${note}\n`), stderr);
  assert.equal(doc.workload.ignore_eos, false);
  assert.equal(doc.workload.eos_note, note);
  assert.equal(doc.workload.calibration.source, 'prompt_eval_count');
  assert.equal(doc.workload.achieved.osl.p50, 10, 'the model stopped at its EOS');
  const lines = await truthOfRun(sim, truth);
  assertIslInRange(lines, 240, 300);
  for (const l of lines) {
    assert.equal(l.ignore_eos, false);
    assert.equal(l.eos, true);
    assert.equal(l.tokens_sent, 10);
  }
});

test('llama.cpp: calibrated by POST /tokenize; OSL fixed by ignore_eos on /completion', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const truth = path.join(dir, 'truth.jsonl');
  const sim = await sc.sim([...SHAPED, '--truth', truth]);
  const llama = await startProxy(sim.url, { hide: ['/api/version'], t });
  const r = await runCli(['run', llama.url, '--isl', '500', '--osl', '32', '-n', '4', '--db', path.join(dir, 'db'), '--no-progress']);
  assert.equal(r.code, 0, r.stderr);
  // 62 and 500 words: round(1.3 * words) + the BOS
  assert.match(r.stderr, /truecost: prompts of 400-500 tokens: 1\.(29|30)\d tokens per word \+ [\d.]+ per prompt \(the server's \/tokenize for 62 and 500 words: 82 and 651\)\n/);
  assert.match(r.stdout, /^calibration +1\.(29|30)\d tokens per word \+ [\d.]+ per prompt \(\/tokenize\)$/m);
  const doc = JSON.parse((await runCli(['show', '1', '--db', path.join(dir, 'db'), '--json'])).stdout);
  assert.equal(doc.run.api, 'llamacpp');
  assert.equal(doc.workload.calibration.source, '/tokenize');
  assert.equal(doc.workload.ignore_eos, true);
  assert.equal(doc.workload.achieved.osl.p50, 32);
  const lines = await truthOfRun(sim, truth);
  assert.equal(lines.length, 5, 'no probe request: /tokenize counted');
  assertIslInRange(lines, 400, 500);
  for (const l of lines) assert.equal(l.tokens_sent, 32);
});

test('a server that refuses ignore_eos: found by the calibration, left out, said', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const truth = path.join(dir, 'truth.jsonl');
  const sim = await sc.sim([...SHAPED, '--truth', truth]);
  const target = new URL(sim.url);
  // A hosted API's way: an unknown body field is a 400.
  const strict = await startHttp(
    (req, res) => {
      const parts = [];
      req.on('data', (d) => parts.push(d));
      req.on('end', () => {
        const body = Buffer.concat(parts);
        if (body.includes('"ignore_eos"')) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: 'Unrecognized request argument supplied: ignore_eos', type: 'invalid_request_error' } }));
          return;
        }
        const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent: false }, (ur) => {
          res.writeHead(ur.statusCode, ur.headers);
          ur.pipe(res);
        });
        up.on('error', () => res.destroy());
        up.end(body);
      });
    },
    { t },
  );
  const { doc, stderr } = await runJson(['run', strict.url, '--api', 'openai-chat', '--isl', '200', '--osl', '64', '-n', '3', '--db', path.join(dir, 'db'), '--json']);
  assert.equal(doc.requests.failed, 0, 'no request carried it');
  assert.equal(doc.workload.ignore_eos, false);
  assert.match(doc.workload.eos_note, /^the server refused ignore_eos \(\/v1\/chat\/completions answered HTTP 400: Unrecognized request argument supplied: ignore_eos\); output length is the model's choice, achieved OSL shown$/);
  assert.match(stderr, /truecost: the server refused ignore_eos/);
  assert.equal(doc.workload.achieved.osl.p50, 10);
  assertIslInRange(await truthOfRun(sim, truth), 160, 200);
});

test('option errors are usage errors, found before any server is asked', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const seen = [];
  const srv = await startHttp(
    (req, res) => {
      seen.push(req.url);
      res.writeHead(404);
      res.end();
    },
    { t },
  );
  await expectExit(['run', srv.url, '--isl', '100', '--prompt', 'hi', '--db', db], 1, { stderr: /run: give --isl or --prompt, not both/ });
  await expectExit(['run', srv.url, '--workload', 'long', '--db', db], 1, { stderr: /--workload 'long': expected chat \(1024\/1024\), reasoning \(1024\/8192\) or summarize \(8192\/1024\)/ });
  await expectExit(['run', srv.url, '--isl', '100', '--isl-range', '0', '--db', db], 1, { stderr: /--isl-range 0: expected a fraction above 0 and at most 1/ });
  await expectExit(['run', srv.url, '--osl', '64', '--db', db], 1, { stderr: /--osl sets the output length of synthetic prompts/ });
  assert.deepEqual(seen, []);
  assert.ok(!existsSync(db));
});

test('a run of given prompts has no "workload" in its document', async (t) => {
  const sc = scope(t);
  const sim = await sc.sim(FAST);
  const { doc } = await runJson(['run', sim.url, '-n', '2', '--max-tokens', '4', '--db', path.join(sc.dir(), 'db'), '--json']);
  assert.ok(!('workload' in doc));
});
