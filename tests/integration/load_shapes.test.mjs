// Issue 14 parts 3 and 4 against the simulator, whose timing model makes the
// figures computable by hand: the steady-state window and goodput under SLOs.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, runCli, startSim, tempDir } from './helpers.mjs';

function scoped(t) {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, db: path.join(dir, 'db') };
}

const PROFILE = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');

test('steady state: a closed loop at C <= max-batch streams C x decode-tps inside the window', async (t) => {
  const { db } = scoped(t);
  // 100 tokens at 400 tok/s: 0.25 s a request; 4 in flight, 16 requests.
  // The TTFT (~2 ms) is the only time a slot yields no token: under 1% of
  // a request, so the window streams C x d to within it.
  const sim = await startSim(['--ttft-ms', '2', '--prefill-tps', '100000', '--decode-tps', '400', '--max-batch', '8'], { t });
  const r = await runCli(['run', sim.url, '--db', db, '-n', '16', '-c', '4', '--max-tokens', '100', '--warmup', '0',
    '--telemetry', 'none', '--no-progress', '--json'], { timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout);
  const w = d.window;
  assert.ok(w, 'a steady state was reached');
  // Window: from the 4th first token (~2 ms) to the first end of the last 4.
  assert.ok(w.start_s > 0.001 && w.start_s < 0.03, `start ${w.start_s}`);
  assert.ok(w.end_s <= d.duration_s && w.end_s > d.duration_s - 0.25, `end ${w.end_s} of ${d.duration_s}`);
  const truth = 4 * 400;
  assert.ok(Math.abs(w.output_tokens_per_s - truth) / truth < 0.03, `window ${w.output_tokens_per_s} tok/s, truth ${truth}`);
  // Both figures are reported; the whole run's keeps its own definition.
  assert.ok(d.throughput.output_tokens_per_s > 0 && d.throughput.output_tokens_per_s !== w.output_tokens_per_s);
  const cost = await runCli(['cost', String(d.run.id), '--db', db, '--profile', PROFILE, '--json']);
  assert.equal(cost.code, 0, cost.stderr);
  const c = JSON.parse(cost.stdout);
  assert.equal(c.energy.window, 'steady');
  assert.equal(c.inputs.output_tokens_per_s.value, w.output_tokens_per_s, 'cost reads the window');
  const text = await runCli(['cost', String(d.run.id), '--db', db, '--profile', PROFILE]);
  assert.match(text.stdout, /^Measured over: the steady-state window/m);
});

test('no steady state below the concurrency: said, and the whole run is priced', async (t) => {
  const { db } = scoped(t);
  const sim = await startSim(['--ttft-ms', '5', '--decode-tps', '500'], { t });
  const r = await runCli(['run', sim.url, '--db', db, '-n', '3', '-c', '8', '--max-tokens', '8',
    '--telemetry', 'none', '--no-progress']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^steady state  not reached \(too few requests for the concurrency\)$/m);
  const cost = await runCli(['cost', '1', '--db', db, '--profile', PROFILE]);
  assert.match(cost.stdout, /^Measured over: the whole run \(it reached no steady state\)$/m);
});

test('--slo: goodput and attainment of the run, stored with it; show --slo judges it again', async (t) => {
  const { db } = scoped(t);
  // TTFT ~20 ms, TPOT 10 ms: meets chat (200 ms / 50 ms), not ttft=5ms.
  const sim = await startSim(['--ttft-ms', '20', '--decode-tps', '100'], { t });
  const r = await runCli(['run', sim.url, '--db', db, '-n', '6', '-c', '2', '--max-tokens', '8', '--slo', 'chat',
    '--telemetry', 'none', '--no-progress', '--json'], { timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  const g = JSON.parse(r.stdout).goodput;
  assert.equal(g.slo, 'chat');
  assert.deepEqual([g.good, g.measured, g.attainment], [6, 6, 1]);
  assert.ok(g.output_tokens_per_s > 0);
  // The stored run keeps its objectives.
  const shown = JSON.parse((await runCli(['show', '1', '--db', db, '--json'])).stdout);
  assert.deepEqual(shown.goodput, g);
  const strict = await runCli(['show', '1', '--db', db, '--slo', 'ttft=5ms,e2e=10s', '--json']);
  assert.equal(strict.code, 0, strict.stderr);
  const s = JSON.parse(strict.stdout).goodput;
  assert.deepEqual([s.slo, s.good, s.attainment], ['ttft=5ms,e2e=10s', 0, 0]);
  const text = await runCli(['show', '1', '--db', db, '--slo', 'code']);
  assert.match(text.stdout, /^goodput       SLO code: 6 of 6 measured requests good \(100\.0%\)$/m);
});

test('--slo errors name the item and the fix, before any server is asked', async (t) => {
  const { db } = scoped(t);
  const bad = await runCli(['run', 'http://127.0.0.1:9', '--db', db, '--slo', 'ttft=200']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--slo: 'ttft=200' is not an objective: .*with a unit \(e\.g\. ttft=200ms,tpot=50ms,e2e=5s\)/);
  const twice = await runCli(['run', 'http://127.0.0.1:9', '--db', db, '--slo', 'ttft=1s,ttft=2s']);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /ttft is given twice/);
  const exp = await runCli(['export', '1', '--db', db, '--slo', 'chat']);
  assert.equal(exp.code, 1);
  assert.match(exp.stderr, /--slo belongs to 'truecost show'/);
});
