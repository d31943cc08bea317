// truecost lockin with evidence from stored runs and a saved gap table, and
// truecost decide: the checklist ticked from that evidence and a verdict.
// The incumbent and alternative are two simulators (SIMULATED evidence).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, runCli, testScope } from './helpers.mjs';

const EX = path.join(REPO_ROOT, 'examples');
const FP16 = path.join(EX, 'assessment-fp16-inference.ini');
const LORA = path.join(EX, 'assessment-lora-8x24gb.ini');
const PROFILE = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');
const RUN = ['-n', '4', '--max-tokens', '20', '--telemetry', 'none', '--no-progress'];
const cli = (args) => runCli(args, { timeoutMs: 60_000 });

// Two platforms measured (the alternative at 3/4 of the incumbent's
// decode speed) and a gap table saved as JSON.
async function evidence(t) {
  const sc = testScope(t, 'truecost-decide-');
  const db = path.join(sc.dir(), 'db');
  const inc = await sc.sim(['--ttft-ms', '2', '--decode-tps', '200']);
  const alt = await sc.sim(['--ttft-ms', '2', '--decode-tps', '150']);
  for (const [url, label] of [[inc.url, 'inc'], [alt.url, 'alt']]) {
    const r = await cli(['run', url, '--db', db, ...RUN, '--label', label]);
    assert.equal(r.code, 0, r.stderr);
  }
  const gaps = path.join(sc.dir(), 'gaps.json');
  const g = await cli(['gaps', '--ops', path.join(EX, 'ops-fp16-inference.csv'), '--support',
    path.join(EX, 'support-rocm-example.csv'), '--json']);
  assert.equal(g.code, 0, g.stderr);
  writeFileSync(gaps, g.stdout);
  return { sc, db, gaps, gapDoc: JSON.parse(g.stdout) };
}

test('lockin --perf/--gaps/--profile-a/-b: T_op, T_perf and the running saving from evidence', async (t) => {
  const { db, gaps, gapDoc } = await evidence(t);
  const r = await cli(['lockin', FP16, '--db', db, '--gaps', gaps, '--perf', 'inc', 'alt',
    '--profile-a', PROFILE, '--profile-b', PROFILE, '--json', '--samples', '20000']);
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout);
  assert.equal(d.simulated, true);
  const op = d.inputs.effort.operators;
  assert.deepEqual([op.low, op.mode, op.high], [gapDoc.t_op_days.low, gapDoc.t_op_days.mode, gapDoc.t_op_days.high]);
  assert.match(op.source, /gap table/);
  assert.match(d.performance.source, /runs inc vs alt \(SIMULATED\)/);
  assert.equal(d.inputs.effort.performance.source, "assessment"); // 20-50%: the range is kept
  // The ratio is B's throughput / A's, as `show --json` gives them: over
  // the steady-state window, as cost reads them, when a run reached one.
  const tps = async (id) => {
    const doc = JSON.parse((await cli(['show', id, '--db', db, '--json'])).stdout);
    return (doc.window ?? doc.throughput).output_tokens_per_s;
  };
  const ratio = (await tps('alt')) / (await tps('inc'));
  assert.ok(Math.abs(d.performance.ratio - ratio) < 1e-9, `${d.performance.ratio} vs ${ratio}`);
  assert.ok(ratio > 0.7 && ratio < 0.8, `3/4 speed: ${ratio}`); // 20-50% gap: tuning needed
  assert.equal(d.performance.class, 'tuning needed');
  // Same profile on both: the slower alternative costs more per token, so
  // the running "saving" is negative: (running cost A - B) x tokens / 1e6,
  // where the running cost leaves out the purchase and the adaptation days
  // (the assessment counts those once).
  const running = async (id) => {
    const c = JSON.parse((await cli(['cost', id, '--db', db, '--profile', PROFILE, '--json'])).stdout);
    const inp = c.inputs;
    const adapt = (inp.adaptation_days.value * inp.day_rate.value) / inp.amortize_months.value;
    return ((c.terms.electricity_per_month + c.terms.operations_per_month - adapt) / c.tokens_per_month) * 1e6;
  };
  const expect = ((await running('inc')) - (await running('alt'))) * 2e9 / 1e6;
  assert.ok(Math.abs(d.running_saving_per_month - expect) < 1e-6 * Math.abs(expect), `${d.running_saving_per_month} vs ${expect}`);
  assert.ok(d.running_saving_per_month < 0);
  assert.equal(d.break_even.never, true);

  const text = await cli(['lockin', '--perf', 'inc', 'alt', FP16, '--db', db]); // options after or before FILE
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^SIMULATED evidence: Lock-in cost/);
});

test('decide: the checklist from evidence, declared items, verdict and reasons', async (t) => {
  const { db, gaps } = await evidence(t);
  const bare = await cli(['decide', LORA, '--json']);
  assert.equal(bare.code, 0, bare.stderr);
  const b = JSON.parse(bare.stdout);
  assert.equal(b.simulated, false);
  assert.deepEqual(b.checklist.map((x) => x.id), ['gaps', 'target_run', 'perf_gap', 'soak', 'profiler', 'fallback']);
  assert.deepEqual(b.missing, ['gaps', 'target_run', 'perf_gap', 'soak']);
  // The seed's LoRA case: the lock-in cost dwarfs the 8-card saving.
  assert.equal(b.verdict, 'stay');
  assert.ok(b.economics.probability_net_positive < 0.2);
  assert.ok(b.reasons.some((x) => /pays off in only/.test(x)), b.reasons.join('\n'));
  assert.ok(b.reasons.some((x) => /six months/.test(x)));

  const r = await cli(['decide', FP16, '--json', '--runs', 'inc', 'alt', '--gaps', gaps, '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout);
  assert.equal(d.simulated, true);
  const state = Object.fromEntries(d.checklist.map((x) => [x.id, x.state]));
  assert.equal(state.target_run, 'ticked');
  assert.equal(state.perf_gap, 'ticked'); // 20-50%: with a tuning path
  assert.equal(state.profiler, 'not met'); // declared no
  assert.equal(state.fallback, 'ticked'); // declared yes
  assert.equal(state.soak, 'not yet measured');
  assert.deepEqual(d.missing, ['soak']);
  // A run that is not a soak is refused, named (lockin ignored it before).
  for (const cmd of ['decide', 'lockin']) {
    const notSoak = await cli([cmd, FP16, '--soak', 'alt', '--db', db]);
    assert.equal(notSoak.code, 1, notSoak.stderr);
    assert.match(notSoak.stderr, /--soak alt: run \d+ is not a soak: give a run that 'truecost soak' made/);
  }
  assert.ok(['stay', 'pilot', 'hybrid', 'migrate'].includes(d.verdict));

  const text = await cli(['decide', FP16, '--runs', 'inc', 'alt', '--gaps', gaps, '--db', db]);
  assert.match(text.stdout, /^SIMULATED evidence: Decision for .*: (stay|pilot|hybrid|migrate)/);
  assert.match(text.stdout, /\[x\] a minimal run on the target completed without errors/);
  assert.match(text.stdout, /\[\?\] a long \(24 h\) stability run passed/);
});

test('decide: a target that completed no request is evidence (stay), not an error', async (t) => {
  const { sc, db } = await evidence(t);
  const dead = await sc.sim(['--fault', 'http500:1']);
  const r0 = await cli(['run', dead.url, '--db', db, ...RUN, '--label', 'dead', '--max-error-rate', '1']);
  assert.equal(r0.code, 0, r0.stderr);
  const r = await cli(['decide', FP16, '--json', '--runs', 'inc', 'dead', '--db', db]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /'dead' \(the alternative\) completed no request/);
  const d = JSON.parse(r.stdout);
  const state = Object.fromEntries(d.checklist.map((x) => [x.id, x.state]));
  assert.equal(state.target_run, 'not met');
  assert.equal(state.perf_gap, 'not met');
  assert.equal(d.verdict, 'stay');
  assert.ok(d.reasons.some((x) => /completed no request/.test(x)), d.reasons.join('\n'));
  // The incumbent completing nothing leaves nothing to compare with: an error.
  const bad = await cli(['decide', FP16, '--runs', 'dead', 'inc', '--db', db]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /the incumbent\) has no output throughput/);
});

test('lockin and decide: evidence options are checked, with the fix', async (t) => {
  const { sc, db, gaps } = await evidence(t);
  let r = await cli(['decide', FP16, '--profile-a', PROFILE, '--profile-b', PROFILE]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /price the runs of --runs A B/);
  r = await cli(['decide', FP16, '--runs', 'inc']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--runs takes two runs/);
  r = await cli(['lockin', FP16, '--gaps', gaps, '--gaps-top', '1..2..3']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /not both/);
  const bad = path.join(sc.dir(), 'bad.json');
  writeFileSync(bad, '{"t_op_days": {"low": 3, "mode": 2, "high": 1}}');
  r = await cli(['decide', FP16, '--gaps', bad]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /bad\.json/);
  r = await cli(['lockin', LORA, '--perf', 'inc', 'alt', '--db', db, '--profile-a', PROFILE, '--profile-b', PROFILE]);
  assert.equal(r.code, 1); // the LoRA example gives no tokens_per_month
  assert.match(r.stderr, /tokens_per_month/);
  const eur = path.join(sc.dir(), 'eur.ini');
  writeFileSync(eur, readFileSync(PROFILE, 'utf8').replace(/^currency = .*$/m, 'currency = EUR'));
  r = await cli(['lockin', FP16, '--perf', 'inc', 'alt', '--db', db, '--profile-a', PROFILE, '--profile-b', eur]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /eur\.ini is in EUR but .* is in USD: give both in one currency/);
  r = await cli(['decide', FP16, '--runs', 'inc', 'nosuch', '--db', db]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /nosuch/);
  // --demand sizes --at's fleets: alone it is refused, with the fix.
  for (const cmd of ['lockin', 'decide']) {
    r = await cli([cmd, FP16, '--demand', '1e9']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /--demand sizes the fleets priced at --at X: give --at too/);
  }
});
