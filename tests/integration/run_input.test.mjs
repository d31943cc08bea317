// `truecost run` input that was once misread: an --api name that does not
// exist and an empty --label are usage errors found before anything is
// probed; an Ollama final object without eval_count or prompt_eval_count is
// not "0 tokens from the server"; and `runs` and `show` read a database
// from before schema 4 without migrating it.
//
// Every test starts its own servers on 127.0.0.1 and uses its own temporary
// directory; everything it started is stopped in t.after().
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { expectExit, parseCsv, runCli, startFakeOllama, startHttp, testScope } from './helpers.mjs';

const FAST = ['--ttft-ms', '1', '--decode-tps', '1000'];

function scope(t) {
  return testScope(t, 'truecost-runin-');
}

/** A server that records every request and answers 404. */
async function recorder(t) {
  const seen = [];
  const srv = await startHttp(
    (req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('nothing here\n');
    },
    { t },
  );
  return { ...srv, seen };
}

// ---- usage errors, before any probe -------------------------------------------

test('--api with an unknown name: exit 1 listing the valid ones, nothing probed', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  // Port 1: nothing listens, so a probe would answer "cannot reach" (exit 2).
  const r = await expectExit(['run', 'http://127.0.0.1:1', '--api', 'bogus', '--db', db], 1, {
    stderr: /run: --api 'bogus': expected auto, ollama, ollama-chat, openai, openai-chat or llamacpp/,
  });
  assert.doesNotMatch(r.stderr, /cannot reach/);
  assert.match(r.stderr, /truecost run --help/, 'the usage hint follows');
  assert.equal(r.stdout, '');
  assert.ok(!existsSync(db), 'no database created');
  // Against a live server: it is never asked anything either.
  const srv = await recorder(t);
  await expectExit(['run', srv.url, '--api', 'vllm', '--db', db, '-n', '1'], 1, { stderr: /--api 'vllm'/ });
  await expectExit(['run', srv.url, '--api=', '--db', db, '-n', '1'], 1, { stderr: /--api '': expected auto/ });
  assert.deepEqual(srv.seen, [], 'the server was never asked anything');
});

test("--label '': exit 1 asking for a name, not the all-digits message", async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const srv = await recorder(t);
  const r = await expectExit(['run', srv.url, '--label', '', '--db', db], 1, {
    stderr: /run: --label: empty; give a name, e.g\. --label h100-baseline/,
  });
  assert.doesNotMatch(r.stderr, /digits|'run-'/);
  assert.deepEqual(srv.seen, []);
  assert.ok(!existsSync(db), 'no database created');
});

// ---- Ollama's omitted counts ----------------------------------------------------

/** The fake Ollama whose final object carries only `final` beyond done: true. */
function fakeOllama(t, final) {
  return startFakeOllama(() => final, { t });
}

/** The measured request rows of a run's CSV export, as objects. */
async function exportedRequests(db, label) {
  const r = await runCli(['export', label, '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  const [head, ...rows] = parseCsv(r.stdout);
  return rows.map((row) => Object.fromEntries(head.map((h, i) => [h, row[i]]))).filter((x) => x.warmup === 'false');
}

test('Ollama without eval_count / prompt_eval_count: chunks counted, prompt unknown, not 0', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const cases = [
    { label: 'no-counts', final: {}, out: ['5', 'chunks'], prompt: ['', 'none'] },
    { label: 'cached-prompt', final: { eval_count: 5, eval_duration: 5e7 }, out: ['5', 'server'], prompt: ['', 'none'] },
    { label: 'both', final: { eval_count: 4, prompt_eval_count: 7 }, out: ['4', 'server'], prompt: ['7', 'server'] },
  ];
  for (const c of cases) {
    const srv = await fakeOllama(t, c.final);
    const r = await runCli(['run', srv.url, '--db', db, '-n', '2', '--max-tokens', '8', '--label', c.label, '--telemetry', 'none', '--no-progress']);
    assert.equal(r.code, 0, `${c.label}: ${r.stderr}`);
    const rows = await exportedRequests(db, c.label);
    assert.equal(rows.length, 2, c.label);
    for (const row of rows) {
      assert.deepEqual([row.output_tokens, row.output_source], c.out, `${c.label}: output ${JSON.stringify(row)}`);
      assert.deepEqual([row.prompt_tokens, row.prompt_source], c.prompt, `${c.label}: prompt ${JSON.stringify(row)}`);
    }
    await srv.close();
  }
});

// ---- a database from before schema 4 ----------------------------------------------

function sqlite3(db, sql) {
  return execFileSync('sqlite3', [db, sql], { encoding: 'utf8' }).trim();
}

function hasSqlite3() {
  try {
    execFileSync('sqlite3', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const sha = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

test('runs and show read a schema-3 database without migrating it', { skip: !hasSqlite3() && 'needs the sqlite3 command' }, async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'old.db');
  const sim = await sc.sim(FAST);
  const r = await runCli(['run', sim.url, '--db', db, '-n', '2', '--max-tokens', '4', '--label', 'old-run', '--telemetry', 'none', '--no-progress']);
  assert.equal(r.code, 0, r.stderr);
  // Back to what a schema-3 truecost wrote: no run_group, no prompt_set.
  sqlite3(db, 'DROP TABLE run_figures; ALTER TABLE runs DROP COLUMN slo; DROP INDEX runs_by_group; ALTER TABLE runs DROP COLUMN run_group; ALTER TABLE runs DROP COLUMN prompt_set; PRAGMA user_version = 3;');
  const before = sha(db);

  const runs = await runCli(['runs', '--db', db, '--json']);
  assert.equal(runs.code, 0, runs.stderr);
  assert.deepEqual(JSON.parse(runs.stdout).map((x) => x.label), ['old-run']);
  const text = await runCli(['runs', '--db', db]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /old-run/);
  const show = await runCli(['show', 'old-run', '--db', db, '--json']);
  assert.equal(show.code, 0, show.stderr);
  assert.equal(JSON.parse(show.stdout).run.label, 'old-run');

  assert.equal(sha(db), before, 'the file is byte for byte as it was');
  assert.equal(sqlite3(db, 'PRAGMA user_version'), '3', 'not migrated');
});
