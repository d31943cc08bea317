// truecost cost: a run measured against `truecost sim` (no telemetry),
// priced with the example profile; the terms add up to the total, and a bad
// profile is a usage error that names file and line.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, runCli, testScope } from './helpers.mjs';

const FAST = ['--ttft-ms', '5', '--decode-tps', '200'];
const PROFILE = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');

async function measuredRun(t) {
  const sc = testScope(t, 'truecost-cost-');
  const db = path.join(sc.dir(), 'db');
  const sim = await sc.sim(FAST);
  const r = await runCli(['run', sim.url, '--db', db, '-n', '4', '--max-tokens', '20', '--telemetry', 'none',
    '--json', '--no-progress'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  return { sc, db, id: String(JSON.parse(r.stdout).run.id) };
}

test('cost --json: keys, sources, and the terms sum to cost x tokens/month / 1e6', async (t) => {
  const { db, id } = await measuredRun(t);
  const r = await runCli(['cost', id, '--db', db, '--profile', PROFILE, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.simulated, true);
  assert.equal(doc.currency, 'USD');
  for (const k of ['hardware_per_month', 'electricity_per_month', 'operations_per_month'])
    assert.equal(typeof doc.terms[k], 'number', k);
  const sum = doc.terms.hardware_per_month + doc.terms.electricity_per_month + doc.terms.operations_per_month;
  const fromTotal = (doc.cost_per_million_tokens * doc.tokens_per_month) / 1e6;
  assert.ok(Math.abs(sum - fromTotal) < 1e-6 * sum, `${sum} vs ${fromTotal}`);
  assert.equal(doc.inputs.output_tokens_per_s.source, 'measured');
  assert.equal(doc.inputs.busy_watts.source, 'profile');
  assert.equal(doc.inputs.adaptation_days.source, 'default');
  // hardware: 3200 * (1 - 0.2) / 36 months
  assert.ok(Math.abs(doc.terms.hardware_per_month - (3200 * 0.8) / 36) < 1e-6);
  const tps = doc.inputs.output_tokens_per_s.value;
  assert.ok(Math.abs(doc.tokens_per_month - tps * 0.4 * 30.44 * 86400) < 1e-3 * doc.tokens_per_month);
  assert.ok(Math.abs(doc.energy.joules_per_token - 420 / tps) < 1e-9);
  assert.equal(typeof doc.energy.tokens_per_kwh, 'number');

  const text = await runCli(['cost', id, '--db', db, '--profile', PROFILE]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^SIMULATED Cost of run/);
  assert.match(text.stdout, /Cost per million output tokens: [0-9.]+ USD/);
});

test('no power measured and none in the profile: electricity and energy are null, not 0', async (t) => {
  const { sc, db, id } = await measuredRun(t);
  // The shipped RX profile with its watts deleted, as its comment suggests.
  const noWatts = path.join(sc.dir(), 'no-watts.ini');
  writeFileSync(noWatts, readFileSync(path.join(REPO_ROOT, 'profiles', 'rx7900xtx-workstation.ini'), 'utf8')
    .split('\n').filter((l) => !/^(idle|busy)_watts/.test(l)).join('\n'));
  const r = await runCli(['cost', id, '--db', db, '--json', '--profile', noWatts]);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.terms.electricity_per_month, null);
  assert.equal(doc.cost_per_million_tokens, null);
  assert.equal(doc.energy.joules_per_token, null);
  assert.equal(doc.energy.tokens_per_kwh, null);
  assert.equal(doc.inputs.busy_watts.source, 'unavailable');
});

test('bad profile -> exit 1 naming file:line; unknown run -> exit 2', async (t) => {
  const { sc, db, id } = await measuredRun(t);
  const bad = path.join(sc.dir(), 'bad.ini');
  writeFileSync(bad, '[hardware]\nprice = 1000\namortize_months = 36\n[power]\nprice_per_kwh = 0.3\npue = high\n');
  const r = await runCli(['cost', id, '--db', db, '--profile', bad]);
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(`${bad}:6: [power] pue: 'high' is not a number`), r.stderr);
  const usage = await runCli(['cost', id, '--db', db]);
  assert.equal(usage.code, 1);
  const missing = await runCli(['cost', '9999', '--db', db, '--profile', PROFILE]);
  assert.equal(missing.code, 2, missing.stderr);
});
