// Defects a hostile user or a misbehaving server found (issue 13), each
// checked against the real binary: errors classified by what happened,
// limits that users hit, what is printed from outside.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';

import { BIN, bodyFor, post, REPO_ROOT, runCli, spawnTruecost, startHttp, startSim, tempDir, within } from './helpers.mjs';

/** A minimal OpenAI-style server: /v1/models lists `models`; completion
 * number i (from 0) is answered by answer(i, res) (a complete SSE stream by
 * default). */
function openaiServer({ models = ['m'], answer, version } = {}) {
  let n = 0;
  return (req, res) => {
    if (req.method === 'GET' && req.url === '/version' && version !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ version }));
      return;
    }
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: models.map((id) => ({ id, object: 'model' })) }));
      return;
    }
    if (req.method === 'POST' && req.url === '/v1/completions') {
      req.resume();
      req.on('end', () => {
        const i = n++;
        if (answer && answer(i, res) === 'handled') return;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"text":"hi","index":0}]}\n\n');
        res.end('data: {"choices":[{"text":" there","index":0,"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}\n\ndata: [DONE]\n\n');
      });
      return;
    }
    res.writeHead(404);
    res.end();
  };
}

function scoped(t) {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, db: path.join(dir, 'db') };
}

test('a timeout on a reused keep-alive connection is a timeout, not a connect error', async (t) => {
  const { db } = scoped(t);
  // The warm-up is answered on the connection that the measured request
  // then reuses; the measured one is never answered.
  const srv = await startHttp(openaiServer({ answer: (i) => (i >= 1 ? 'handled' : undefined) }), { t });
  const r = await runCli(['run', srv.url, '--api', 'openai', '--model', 'm', '-n', '1', '--warmup', '1',
    '--timeout', '0.5', '--max-error-rate', '1', '--no-progress', '--json', '--db', db], { timeoutMs: 20_000 });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.deepEqual(doc.errors, { timeout: 1 });
});

test('crash-after: the truth says complete only for replies the clients received whole', async (t) => {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const truth = path.join(dir, 'truth.jsonl');
  // 60 streams that all end in the same tick; the 10th to finish crashes
  // the server while the others' last bytes are still queued.
  const sim = await startSim(['--ttft-ms', '5', '--decode-tps', '200', '--max-batch', '100', '--fault', 'crash-after:10', '--truth', truth], { t });
  const body = bodyFor('/v1/completions', { n: 40, stream: true });
  const replies = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      post(sim.url, '/v1/completions', body, { headers: { 'x-truecost-seq': String(i) }, timeoutMs: 10_000 }).catch((e) => ({ error: e })),
    ),
  );
  await within(sim.exited, 5000, 'exit after crash-after');
  const received = new Set(replies.map((r, i) => (r.error === null && r.status === 200 && r.body.includes('[DONE]') ? i : -1)).filter((i) => i >= 0));
  const lines = readFileSync(truth, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  assert.equal(lines.length, 60, 'one truth line per request');
  const complete = lines.filter((o) => o.outcome === 'complete').map((o) => o.client_seq);
  for (const seq of complete) assert.ok(received.has(seq), `request ${seq} is complete in the truth but its client did not get it whole`);
  assert.ok(complete.length >= 10, `${complete.length} complete`);
  for (const o of lines) assert.ok(['complete', 'crashed'].includes(o.outcome), o.outcome);
});

test('export -o: never the database, never half a file, and a failed write says why', async (t) => {
  const { dir } = scoped(t);
  const db = path.join(dir, 'runs.db');
  copyFileSync(path.join(REPO_ROOT, 'tests', 'golden', 'runs.db'), db);
  const size = statSync(db).size;
  const self = await runCli(['export', '2', '--db', db, '-o', db]);
  assert.equal(self.code, 1, self.stderr);
  assert.match(self.stderr, /-o .* is the same file as --db .*, an input: give another output file/);
  assert.equal(statSync(db).size, size, 'the database is untouched');
  assert.equal((await runCli(['runs', '--db', db])).code, 0);

  // A file size limit stops the write half way: the old file stays whole
  // and no temporary file is left behind.
  const out = path.join(dir, 'out.csv');
  writeFileSync(out, 'old\n');
  const limited = await new Promise((resolve) => {
    execFile('bash', ['-c', `ulimit -f 1; exec "${BIN}" export 1 --what chunks --db "${db}" -o "${out}"`], (err, stdout, stderr) =>
      resolve({ code: err ? err.code : 0, stderr }),
    );
  });
  assert.equal(limited.code, 2, limited.stderr);
  assert.match(limited.stderr, /^truecost: export: writing chunks failed: File too large$/m);
  assert.equal(readFileSync(out, 'utf8'), 'old\n');
  assert.deepEqual(readdirSync(dir).sort(), ['out.csv', 'runs.db']);

  const full = await runCli(['export', '2', '--db', db, '-o', '/dev/full']);
  assert.equal(full.code, 2);
  assert.equal(full.stderr, 'truecost: export: writing requests failed: No space left on device\n');

  const whole = await runCli(['export', '2', '--db', db, '-o', out]);
  assert.equal(whole.code, 0, whole.stderr);
  assert.match(readFileSync(out, 'utf8'), /^run_id|^seq/);
});

test('a server listing 100 models: any of them can be measured, and the list is shortened', async (t) => {
  const { db } = scoped(t);
  const models = Array.from({ length: 100 }, (_, i) => `m${i}`);
  const srv = await startHttp(openaiServer({ models }), { t });
  const ok = await runCli(['run', srv.url, '--api', 'openai', '--model', 'm89', '-n', '1', '--no-progress', '--json', '--db', db]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).run.model, 'm89');
  const which = await runCli(['run', srv.url, '--api', 'openai', '-n', '1', '--no-progress', '--db', db]);
  assert.equal(which.code, 1);
  assert.match(which.stderr, /the server has 100 models; choose one with --model: m0, m1, .*, m9, \.\.\. and 90 more \(100 in all\)/);
  const none = await runCli(['run', srv.url, '--api', 'openai', '--model', 'nope', '-n', '1', '--no-progress', '--db', db]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no model 'nope'; available: m0, .*\.\.\. and 90 more/);
});

test('text output escapes what a server sends: no terminal escapes, forged lines or bidi overrides', async (t) => {
  const { db } = scoped(t);
  const evil = 'v1\u001b[2J\u001b]0;owned\u0007\nFAKE LINE\u202egnp.exe';
  const srv = await startHttp(openaiServer({ models: [`m\u001b[31mred\u202e`], version: evil }), { t });
  const run = await runCli(['run', srv.url, '--api', 'openai', '-n', '1', '--no-progress', '--db', db]);
  assert.equal(run.code, 0, run.stderr);
  const show = await runCli(['show', '1', '--db', db]);
  const runs = await runCli(['runs', '--db', db]);
  for (const [what, text] of [['run', run.stdout + run.stderr], ['show', show.stdout], ['runs', runs.stdout]]) {
    assert.ok(!text.includes('\u001b[2J') && !text.includes('\u001b[31m') && !text.includes('\u001b]0'), `${what} printed an escape sequence`);
    assert.ok(!text.includes('\u202e') && !text.includes('\u0007'), `${what} printed a control character`);
    assert.ok(!/^FAKE LINE/m.test(text), `${what} let the server forge a line`);
  }
  assert.match(show.stdout, /server version v1\\x1b\[2J\\x1b\]0;owned\\x07\\x0aFAKE LINE\\u202egnp\.exe/);
  assert.match(run.stderr, /m\\x1b\[31mred\\u202e/);
  // JSON keeps the text as it was, escaped by JSON itself.
  const doc = JSON.parse((await runCli(['show', '1', '--db', db, '--json'])).stdout);
  assert.equal(doc.run.server_version, evil.slice(0, 63));
});

test('two --repeat runs started at once with the same --label do not merge into one group', async (t) => {
  const { db } = scoped(t);
  const sim = await startSim(['--ttft-ms', '1', '--decode-tps', '2000'], { t });
  // The database exists first (two processes creating a new file at the
  // same instant is another matter than this race).
  assert.equal((await runCli(['run', sim.url, '--db', db, '-n', '1', '--max-tokens', '2', '--label', 'first'])).code, 0);
  const args = ['run', sim.url, '--db', db, '-n', '2', '--max-tokens', '8', '--repeat', '2', '--label', 'same', '--no-progress'];
  const [a, b] = await Promise.all([runCli(args, { timeoutMs: 60_000 }), runCli(args, { timeoutMs: 60_000 })]);
  const codes = [a.code, b.code].sort();
  assert.deepEqual(codes, [0, 1], `exit ${a.code}: ${a.stderr}\nexit ${b.code}: ${b.stderr}`);
  const loser = a.code ? a : b;
  assert.match(loser.stderr, /group 'same' already has/);
  const group = JSON.parse((await runCli(['show', 'same', '--db', db, '--json'])).stdout);
  assert.equal(group.runs.length, 2, 'the group holds the two runs of one process');
});

test('cost and compare say what a power figure covers, and warn when the two sides differ', async (t) => {
  const { dir } = scoped(t);
  const db = path.join(dir, 'runs.db');
  copyFileSync(path.join(REPO_ROOT, 'tests', 'golden', 'runs.db'), db);
  const prof = (f) => path.join(REPO_ROOT, 'profiles', f);
  // nv sampled a GPU board; a profile without watts prices the board's power.
  const measured = path.join(dir, 'measured.ini');
  writeFileSync(measured, readFileSync(prof('rx7900xtx-workstation.ini'), 'utf8')
    .split('\n').filter((l) => !/^(idle|busy)_watts/.test(l)).join('\n'));
  const board = JSON.parse((await runCli(['cost', 'nv', '--db', db, '--profile', measured, '--json'])).stdout);
  assert.equal(board.energy.power_scope, 'GPU board');
  const box = await runCli(['cost', 'amd', '--db', db, '--profile', prof('rtx4090-workstation.ini')]);
  assert.match(box.stdout, /^Power scope: whole box \(the profile's \[power\] scope, box when not given\)$/m);
  const mixed = await runCli(['compare', 'nv', 'amd', '--db', db, '--profile-a', measured,
    '--profile-b', prof('rtx4090-workstation.ini'), '--json']);
  const doc = JSON.parse(mixed.stdout);
  assert.equal(doc.a.power_scope, 'GPU board');
  assert.equal(doc.b.power_scope, 'whole box');
  assert.ok(doc.warnings.some((w) => /A's power is the GPU board, B's the whole box/.test(w)), JSON.stringify(doc.warnings));
  // A profile that says its watts are a board's: like for like, no warning.
  const boardProfile = path.join(dir, 'board.ini');
  writeFileSync(boardProfile, readFileSync(prof('rtx4090-workstation.ini'), 'utf8').replace('[power]', '[power]\nscope = board'));
  const same = JSON.parse((await runCli(['compare', 'nv', 'amd', '--db', db, '--profile-a', measured,
    '--profile-b', boardProfile, '--json'])).stdout);
  assert.equal(same.b.power_scope, 'GPU board');
  assert.ok(!same.warnings.some((w) => /power is the/.test(w)));
  writeFileSync(boardProfile, readFileSync(prof('rtx4090-workstation.ini'), 'utf8').replace('[power]', '[power]\nscope = rack'));
  const bad = await runCli(['cost', 'amd', '--db', db, '--profile', boardProfile]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /\[power\] scope.*box \(the whole machine at the wall\), board/);
});

test('a run stopped by Ctrl-C says it was interrupted, not that its requests failed', async (t) => {
  const { db } = scoped(t);
  // 16 slow streams: all still in flight when the signal comes.
  const sim = await startSim(['--ttft-ms', '1', '--decode-tps', '5'], { t });
  const p = spawnTruecost(['run', sim.url, '--db', db, '-n', '16', '-c', '16', '--warmup', '0', '--max-tokens', '200',
    '--no-progress', '--telemetry', 'none'], { t, timeoutMs: 30_000 });
  const deadline = performance.now() + 15_000;
  while (!p.output().stderr.includes('truecost: run 1:')) {
    assert.ok(performance.now() < deadline, `the run did not start: ${p.output().stderr}`);
    await sleep(50);
  }
  await sleep(1000);
  p.kill('SIGINT');
  const r = await p.done;
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /interrupted/);
  assert.doesNotMatch(r.stderr, /above --max-error-rate/);
});

test('doctor URL checks a server on another port; a CPU host is no "ok GPUs found"', async (t) => {
  const sim = await startSim([], { t });
  const cpu = path.join(REPO_ROOT, 'tests', 'fixtures', 'doctor', 'cpu-only');
  const ok = await runCli(['doctor', sim.url, '--root', cpu, '--json']);
  const doc = JSON.parse(ok.stdout);
  const server = doc.checks.find((c) => c.title === 'a local inference server answers');
  assert.equal(server.status, 'ok', JSON.stringify(server));
  assert.match(server.evidence, new RegExp(sim.url.replace(/[.]/g, '\\.')));
  const gpus = doc.checks.find((c) => c.id === 'gpu.found');
  assert.equal(gpus.status, 'skip');
  const dead = await runCli(['doctor', 'http://127.0.0.1:1', '--root', cpu]);
  assert.match(dead.stdout, /no inference server answers at the URL\(s\) given/);
});

// ---- stored figures (item 8) ----------------------------------------------------

function sqlite3(db, sql) {
  return execFileSync('sqlite3', [db, sql], { encoding: 'utf8' }).trim();
}

test('a run stores its figures when it ends; show reads them, and an older database gets them from the next run', async (t) => {
  const { db } = scoped(t);
  const sim = await startSim(['--ttft-ms', '5', '--decode-tps', '500'], { t });
  const run = (label) => runCli(['run', sim.url, '--db', db, '-n', '4', '-c', '2', '--max-tokens', '16', '--label', label,
    '--telemetry', 'none', '--no-progress', '--json']);
  const first = await run('one');
  assert.equal(first.code, 0, first.stderr);
  assert.equal(sqlite3(db, 'SELECT count(*) FROM run_figures'), '1', 'stored when the run ended');
  const stored = JSON.parse(sqlite3(db, 'SELECT json FROM run_figures'));
  assert.equal(stored['requests.measured'], 4);
  assert.ok(stored.itl_ms.n > 0);
  // The stored row is what show prints: change it, and show follows.
  const shown = await runCli(['show', 'one', '--db', db, '--json']);
  assert.equal(shown.code, 0, shown.stderr);
  const fromStore = JSON.parse(shown.stdout);
  sqlite3(db, "UPDATE run_figures SET json = json_set(json, '$.itl_ms.p50', 123.5)");
  const edited = JSON.parse((await runCli(['show', 'one', '--db', db, '--json'])).stdout);
  assert.equal(edited.metrics.itl_ms.p50, 123.5, 'show read the stored figures, not the chunks');
  // Without the row (a database from an older truecost), show computes the
  // same figures from the records, and leaves the file as it was.
  sqlite3(db, 'DELETE FROM run_figures');
  const computed = JSON.parse((await runCli(['show', 'one', '--db', db, '--json'])).stdout);
  assert.deepEqual(computed.metrics.itl_ms, fromStore.metrics.itl_ms);
  assert.deepEqual(computed.metrics.ttft_ms, fromStore.metrics.ttft_ms);
  assert.equal(sqlite3(db, 'SELECT count(*) FROM run_figures'), '0', 'a reader stores nothing');
  // The next run stores its own and the older run's.
  const second = await run('two');
  assert.equal(second.code, 0, second.stderr);
  assert.equal(sqlite3(db, 'SELECT count(*) FROM run_figures'), '2');
});
