// `truecost run` and signals outside the steady measuring loop: a Ctrl-C
// while the environment is still being recorded, and two in quick
// succession once requests are finishing. Nothing measured may be lost and
// no run may be left "running".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';

import { runCli, spawnTruecost, startHttp, testScope } from './helpers.mjs';

const scope = (t) => testScope(t, 'truecost-signals-');

/** A proxy to `target` that holds /api/show (asked only when the run's
 * environment is recorded) for `holdMs`; `onShow` is called when it comes. */
function slowShowProxy(target, holdMs, onShow, t) {
  const to = new URL(target);
  return startHttp(
    async (req, res) => {
      if (new URL(req.url, 'http://x').pathname === '/api/show') {
        onShow();
        await sleep(holdMs);
      }
      const up = http.request(
        { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers, agent: false },
        (ur) => {
          res.writeHead(ur.statusCode, ur.headers);
          ur.pipe(res);
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    },
    { t },
  );
}

async function runsIn(db) {
  const r = await runCli(['runs', '--db', db, '--json'], { timeoutMs: 10_000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('a Ctrl-C while the environment is being recorded leaves no run behind', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const sim = await sc.sim(['--ttft-ms', '1', '--decode-tps', '1000']);
  let showAsked;
  const asked = new Promise((resolve) => (showAsked = resolve));
  const proxy = await slowShowProxy(sim.url, 3000, () => showAsked(), t);
  const p = spawnTruecost(['run', proxy.url, '--db', db, '-n', '3', '--no-progress', '--telemetry', 'none'], { t, timeoutMs: 20_000 });
  await asked;
  p.kill('SIGTERM');
  const r = await p.done;
  assert.ok(r.code === 143 || r.signal === 'SIGTERM', `ended by the signal: code ${r.code} signal ${r.signal}; ${r.stderr}`);
  const runs = await runsIn(db);
  assert.deepEqual(
    runs.map((x) => x.status),
    [],
    'nothing was measured, so nothing is stored (and nothing is left "running")',
  );
});

test('a second Ctrl-C right after the first keeps every request that had finished', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const db = path.join(dir, 'db');
  const truth = path.join(dir, 'truth.jsonl');
  // About 60 requests a second: fewer than the 64 that fill a batch in the
  // half second a batch of records may wait before it is stored, so at the
  // signal a few dozen finished requests are usually waiting.
  const sim = await sc.sim(['--ttft-ms', '1', '--decode-tps', '150', '--truth', truth]);
  const p = spawnTruecost(
    ['run', sim.url, '--db', db, '-n', '1000000', '-c', '8', '--warmup', '0', '--max-tokens', '20', '--no-progress', '--telemetry', 'none'],
    { t, timeoutMs: 30_000 },
  );
  const deadline = performance.now() + 15_000;
  while ((await runsIn(db).catch(() => [])).length === 0) {
    assert.ok(performance.now() < deadline, `the run did not start: ${p.output().stderr}`);
    await sleep(50);
  }
  await sleep(2500);
  const firstSignalWall = Date.now();
  p.kill('SIGTERM');
  await sleep(40);
  p.kill('SIGTERM');
  const r = await p.done;
  assert.equal(r.code, 143, `the second signal exits at once; stderr: ${r.stderr}`);
  await sim.stop(); // flushes the truth file
  // Requests the server had finished well before the first signal.
  const margin = 10; // ms: the client reads the last bytes a little after the server wrote them
  const finishedBefore = readFileSync(truth, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.outcome === 'complete' && l.chunks.length && Date.parse(l.chunks[l.chunks.length - 1].utc) < firstSignalWall - margin).length;
  const [run] = await runsIn(db);
  assert.equal(run.status, 'interrupted');
  const shown = JSON.parse((await runCli(['show', String(run.id), '--db', db, '--json'])).stdout);
  assert.ok(finishedBefore > 100, `enough requests finished to matter: ${finishedBefore}`);
  assert.ok(
    shown.requests.completed >= finishedBefore,
    `${shown.requests.completed} requests stored, but ${finishedBefore} had finished before the first signal`,
  );
});
