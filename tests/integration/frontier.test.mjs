// truecost frontier against two simulators of known capacity (issue 15):
// with --decode-tps d and --max-batch B, a closed loop at C <= B serves C*d
// tokens/s at interactivity d, so each platform's frontier is the point
// (d, B*d) and every reading of it is known by hand.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, runCli, startSim, tempDir } from './helpers.mjs';

const PROFILE = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');
const near = (got, want, what) => assert.ok(Math.abs(got - want) / want < 0.05, `${what}: ${got}, truth ${want}`);

test('two frontiers read at equal interactivity: bound below, measured on, not reached above; cost and its interval', async (t) => {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = path.join(dir, 'db');
  const fast = ['--ttft-ms', '1', '--prefill-tps', '100000'];
  const a = await startSim([...fast, '--decode-tps', '400', '--max-batch', '8'], { t });
  const b = await startSim([...fast, '--decode-tps', '200', '--max-batch', '16'], { t });
  const sweep = (sim, c, label) => runCli(['sweep', sim.url, '--db', db, '-c', c, '-n', '16', '--max-tokens', '40',
    '--warmup', '0', '--label', label, '--telemetry', 'none', '--no-progress', '--json'], { timeoutMs: 60_000 });
  assert.equal((await sweep(a, '2,4,8', 'A')).code, 0);
  assert.equal((await sweep(b, '4,8,16', 'B')).code, 0);
  const r = await runCli(['frontier', 'A', 'B', '--db', db, '--profile', PROFILE, '--at', '100,150,250,350,450',
    '--resamples', '1000', '--claim', '0.9', '--demand', '1e10', '--json'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.simulated, true);
  // Every point streams at d; the frontier's first point (lowest
  // interactivity, most throughput) is C = B. Points whose interactivity
  // differs by noise alone may join it: Pareto, as measured.
  for (const p of doc.frontier_a) near(p.interactivity, 400, 'A frontier x');
  for (const p of doc.frontier_b) near(p.interactivity, 200, 'B frontier x');
  near(doc.frontier_a[0].tokens_per_s_per_gpu, 3200, 'A frontier y');
  near(doc.frontier_b[0].tokens_per_s_per_gpu, 3200, 'B frontier y');
  const at = Object.fromEntries(doc.targets.map((x) => [x.interactivity, x]));
  const xs = [100, 150, 250, 350, 450];
  assert.deepEqual(xs.map((x) => at[x].a.reading), ['bound', 'bound', 'bound', 'bound', 'not reached']);
  assert.deepEqual(xs.map((x) => at[x].b.reading), ['bound', 'bound', 'not reached', 'not reached', 'not reached']);
  for (const x of [100, 150]) {
    near(at[x].a.tokens_per_s_per_gpu, 3200, `A at ${x}`);
    near(at[x].b.tokens_per_s_per_gpu, 3200, `B at ${x}`);
    near(at[x].ratio.value, 1, `cost B/A at ${x}`);
    const [lo, hi] = at[x].a.ci95;
    assert.ok(lo <= at[x].a.cost_per_million_tokens && at[x].a.cost_per_million_tokens <= hi);
    assert.equal(at[x].verdict, 'supported'); // B costs as much as A: at least 0.9x
  }
  assert.equal(at[450].a.reached, false);
  assert.equal(at[450].a.cost_per_million_tokens, null);
  assert.equal(at[250].ratio, null); // B does not reach it: no ratio, no verdict
  assert.equal(at[250].verdict, null);
  // Of the targets with both costs only, and the others named with why.
  assert.equal(doc.claim.overall, 'holds at every judged target; not judged at 250 (B does not reach it), ' +
    '350 (B does not reach it), 450 (neither side reaches it)');
  // No interval around a reading that does not exist.
  assert.equal(at[450].a.ci95, null);
  assert.equal(at[250].b.ci95, null);
  assert.equal(at[250].b.tps_ci95 ?? null, null);
  // The fleet for 1e10 output tokens a month at the profile's utilization
  // (0.4) and a 30.44-day month; one GPU a box, 3200 a box.
  assert.deepEqual(doc.fleet, { demand_tokens_per_month: 1e10 });
  const month = 30.44 * 86400;
  for (const x of [100, 150]) {
    for (const side of ['a', 'b']) {
      const v = at[x][side];
      const gpus = Math.ceil(1e10 / (v.tokens_per_s_per_gpu * 0.4 * month));
      assert.deepEqual(v.fleet, { gpus, boxes: gpus, capex: gpus * 3200 }, `${side} at ${x}`);
    }
    assert.equal(at[x].capex_difference, at[x].b.fleet.capex - at[x].a.fleet.capex);
  }
  assert.deepEqual(doc.warnings, []); // the same workload, GPUs and (no) power on both sides
  // The same sweep on both sides: said, not silently a ratio of 1.
  const twice = JSON.parse((await runCli(['frontier', 'A', 'A', '--db', db, '--profile', PROFILE, '--at', '100', '--json'],
    { timeoutMs: 60_000 })).stdout);
  assert.deepEqual(twice.warnings, ["A and B are the same runs ('A' twice): the cost ratio is 1 by construction"]);
  // The cost at the frontier point is the point's own cost, as `cost` prices it.
  const runA = doc.frontier_a[0].run_id;
  const cost = JSON.parse((await runCli(['cost', String(runA), '--db', db, '--profile', PROFILE, '--json'])).stdout);
  near(at[350].a.cost_per_million_tokens, cost.cost_per_million_tokens, 'A at 350 (bound) vs cost');
  // Each frontier point carries its own cost, and the cost of all its
  // tokens (prompt + output) is the output cost over that mix.
  near(doc.frontier_a[0].cost_per_million_tokens, cost.cost_per_million_tokens, 'frontier point cost');
  const shownA = JSON.parse((await runCli(['show', String(runA), '--db', db, '--json'])).stdout);
  const mix = shownA.tokens.output / (shownA.tokens.output + shownA.tokens.prompt);
  near(doc.frontier_a[0].cost_per_million_total_tokens, cost.cost_per_million_tokens * mix, 'total-token cost');
  near(at[350].a.cost_per_million_total_tokens, cost.cost_per_million_tokens * mix, 'total-token cost at 350');
  // All tokens per GPU at the point's mix, and its interval with it.
  for (const x of [100, 350]) {
    const v = at[x].a;
    near(v.total_tokens_per_s_per_gpu, v.tokens_per_s_per_gpu / mix, `total tok/s at ${x}`);
    near(v.total_tps_ci95[0], v.tps_ci95[0] / mix, `total tok/s low at ${x}`);
    near(v.total_ci95[1], v.ci95[1] * mix, `total cost high at ${x}`);
    assert.ok(v.total_tps_ci95[0] <= v.total_tokens_per_s_per_gpu && v.total_tokens_per_s_per_gpu <= v.total_tps_ci95[1]);
    assert.equal(v.joules_ci95, null); // no power measured
  }
  near(doc.frontier_a[0].total_tokens_per_s_per_gpu, doc.frontier_a[0].tokens_per_s_per_gpu / mix, 'frontier point total tok/s');
  // lockin --at: the measured fleets' capex difference is the hardware
  // saving, for the assessment's own demand (2e9 tokens a month).
  const FP16 = path.join(REPO_ROOT, 'examples', 'assessment-fp16-inference.ini');
  const fl = JSON.parse((await runCli(['frontier', 'A', 'B', '--db', db, '--profile', PROFILE, '--at', '150',
    '--demand', '2e9', '--resamples', '1000', '--json'])).stdout);
  const lk = await runCli(['lockin', FP16, '--db', db, '--perf', 'A', 'B', '--profile-a', PROFILE, '--profile-b', PROFILE,
    '--at', '150', '--json', '--samples', '2000']);
  assert.equal(lk.code, 0, lk.stderr);
  const l = JSON.parse(lk.stdout);
  assert.equal(l.hardware_saving, fl.targets[0].a.fleet.capex - fl.targets[0].b.fleet.capex);
  assert.match(l.hardware_saving_source, /^fleet capex at 150 tokens\/s per user for 2e\+09 tokens\/month, \d+ vs \d+ boxes$/);
  const lt = await runCli(['lockin', FP16, '--db', db, '--perf', 'A', 'B', '--profile-a', PROFILE, '--profile-b', PROFILE, '--at', '150']);
  assert.match(lt.stdout, /^Hardware saving: -?[\d.]+ USD \(measured: fleet capex at 150 /m);
  const unreached = await runCli(['lockin', FP16, '--db', db, '--perf', 'A', 'B', '--profile-a', PROFILE, '--profile-b', PROFILE, '--at', '300']);
  assert.equal(unreached.code, 1);
  assert.match(unreached.stderr, /--at 300: the alternative does not reach it/);
  const noProfiles = await runCli(['decide', FP16, '--db', db, '--runs', 'A', 'B', '--at', '150']);
  assert.equal(noProfiles.code, 1);
  assert.match(noProfiles.stderr, /--at prices each platform's fleet/);
  // --slo: A streams at TPOT 2.5 ms and meets tpot=3ms everywhere; B's 5 ms
  // never does. A's highest load meeting it is its C = B point; B has none.
  const withSlo = JSON.parse((await runCli(['frontier', 'A', 'B', '--db', db, '--profile', PROFILE, '--at', '100',
    '--slo', 'tpot=3ms', '--resamples', '1000', '--json'])).stdout);
  const sloA = withSlo.slo.a;
  assert.equal(sloA.run_id, doc.frontier_a[0].run_id);
  near(sloA.tokens_per_s_per_gpu, 3200, 'A at its SLO load');
  assert.ok(sloA.attainment >= 0.99);
  assert.equal(sloA.cost_per_million_good_tokens, sloA.cost_per_million_tokens); // every token good
  assert.equal(withSlo.slo.b, null);
  assert.equal(withSlo.slo.ratio, null);
  assert.equal(withSlo.targets[0].a.cost_per_million_good_tokens, withSlo.targets[0].a.cost_per_million_tokens);
  assert.equal(withSlo.targets[0].b.cost_per_million_good_tokens, null); // no good token at all
  assert.equal(doc.slo, null); // no --slo, no SLO figures
  const sloText = await runCli(['frontier', 'A', 'B', '--db', db, '--profile', PROFILE, '--at', '100', '--slo', 'tpot=3ms', '--resamples', '1000']);
  assert.match(sloText.stdout, /^Highest load meeting the SLO, B: none of its points \(99% of requests good\)$/m);
  // Another workload on one side is flagged: more than the hardware differs.
  const other = await runCli(['run', b.url, '--db', db, '-n', '8', '-c', '4', '--max-tokens', '20', '--warmup', '0',
    '--label', 'other', '--telemetry', 'none', '--no-progress']);
  assert.equal(other.code, 0, other.stderr);
  const mixed = JSON.parse((await runCli(['frontier', 'A', 'other', '--db', db, '--profile', PROFILE, '--at', '100',
    '--resamples', '1000', '--json'])).stdout);
  assert.equal(mixed.warnings.length, 1, JSON.stringify(mixed.warnings));
  assert.match(mixed.warnings[0], /^the workloads differ/);
  const text = await runCli(['frontier', 'A', 'B', '--db', db, '--profile', PROFILE, '--at', '100,450', '--resamples', '1000']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^SIMULATED Cost at equal interactivity: A = A, B = B$/m);
  assert.match(text.stdout, /^At 450 tokens\/s per user:\n  A  not reached/m);
});

test('frontier usage errors name the fix', async () => {
  const r1 = await runCli(['frontier', 'A']);
  assert.equal(r1.code, 1);
  assert.match(r1.stderr, /give a sweep .* and --profile FILE/);
  const r2 = await runCli(['frontier', 'A', '--profile', PROFILE, '--claim', '5']);
  assert.equal(r2.code, 1);
  assert.match(r2.stderr, /--claim compares two platforms: give SWEEP_B too/);
  const r3 = await runCli(['frontier', 'A', '--profile', PROFILE, '--at', '0,5']);
  assert.equal(r3.code, 1);
  assert.match(r3.stderr, /--at '0,5': expected up to 16 interactivities/);
});

// Two simulators whose decode step grows with the batch (--batch-slowdown
// k): at C streams each sees I = d / (1 + k (C - 1)) tokens/s and the box
// serves C x I, so the frontier is the line T(I) = I + (d - I) / k:
//   A: d 200, k 0.25 -> T = 800 - 3 I      (I from 42 at C=16 to 160 at C=2)
//   B: d 100, k 0.05 -> T = 2000 - 19 I    (I from 57 at C=16 to 95 at C=2)
// One profile on both sides, so cost B / cost A = T_A / T_B, which crosses
// 1 at I = 75: "A is 1x as cost-efficient" fails below and holds above.
test('frontiers with a throughput-interactivity trade-off read the hand values; a claim flips where the analytic ratio crosses it', async (t) => {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = path.join(dir, 'db');
  const fast = ['--ttft-ms', '1', '--prefill-tps', '100000', '--max-batch', '16'];
  const a = await startSim([...fast, '--decode-tps', '200', '--batch-slowdown', '0.25'], { t });
  const b = await startSim([...fast, '--decode-tps', '100', '--batch-slowdown', '0.05'], { t });
  const sweep = (sim, label) => runCli(['sweep', sim.url, '--db', db, '-c', '2,4,8,16', '-n', '16', '--max-tokens', '40',
    '--warmup', '0', '--label', label, '--telemetry', 'none', '--no-progress', '--json'], { timeoutMs: 90_000 });
  // Side by side: each is a light load on its own simulator.
  for (const r of await Promise.all([sweep(a, 'TA'), sweep(b, 'TB')])) assert.equal(r.code, 0, r.stderr);
  const hand = { a: (i) => 800 - 3 * i, b: (i) => 2000 - 19 * i };
  // The profile's month: hardware 3200 x 0.8 / 36, electricity at 420 W
  // busy 40% and 80 W idle x 730.56 h x PUE 1.1 x 0.30/kWh, 4 h x 80 of
  // operations; over the tokens of a month at 40% utilization.
  const perMonth = (3200 * 0.8) / 36 + ((420 * 0.4 + 80 * 0.6) * 730.56 * 1.1 / 1000) * 0.3 + 4 * 80;
  const handCost = (tps) => (perMonth / (tps * 0.4 * 30.44 * 86400)) * 1e6;
  const targets = [30, 60, 70, 80, 90, 120, 170];
  const args = ['--db', db, '--profile-a', PROFILE, '--profile-b', PROFILE, '--at', targets.join(','),
    '--claim', '1', '--resamples', '1000', '--json'];
  const r = await runCli(['compare', 'TA', 'TB', ...args], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.simulated, true);
  assert.equal(doc.frontier_a.length, 4); // every point is on the frontier
  assert.equal(doc.frontier_b.length, 4);
  const at = Object.fromEntries(doc.targets.map((x) => [x.interactivity, x]));
  assert.deepEqual(targets.map((x) => at[x].a.reading), ['bound', 'measured', 'measured', 'measured', 'measured', 'measured', 'not reached']);
  assert.deepEqual(targets.map((x) => at[x].b.reading), ['bound', 'measured', 'measured', 'measured', 'measured', 'not reached', 'not reached']);
  for (const x of [60, 70, 80, 90]) {
    for (const side of ['a', 'b']) {
      near(at[x][side].tokens_per_s_per_gpu, hand[side](x), `${side} at ${x}`);
      near(at[x][side].cost_per_million_tokens, handCost(hand[side](x)), `${side} $/Mtok at ${x}`);
    }
    near(at[x].ratio.value, hand.a(x) / hand.b(x), `cost B/A at ${x}`);
  }
  near(at[120].a.tokens_per_s_per_gpu, hand.a(120), 'A at 120');
  assert.equal(at[120].ratio, null); // B does not reach it
  assert.deepEqual([30, 60, 70, 80, 90].map((x) => at[x].verdict), ['refuted', 'refuted', 'refuted', 'supported', 'supported']);
  assert.equal(doc.claim.overall, 'holds at interactivity >= 80 tokens/s per user, fails below; ' +
    'not judged at 120 (B does not reach it), 170 (neither side reaches it)');
  // The other way round the claim holds at low interactivity only.
  const swapped = JSON.parse((await runCli(['compare', 'TB', 'TA', ...args], { timeoutMs: 60_000 })).stdout);
  assert.equal(swapped.claim.overall, 'holds at interactivity <= 70 tokens/s per user, fails above; ' +
    'not judged at 120 (A does not reach it), 170 (neither side reaches it)');
  // frontier gives the same readings; two sweeps compare on their
  // frontiers without --at, and need both profiles for it.
  const f = JSON.parse((await runCli(['frontier', 'TA', 'TB', '--db', db, '--profile', PROFILE, '--at', targets.join(','),
    '--claim', '1', '--resamples', '1000', '--json'], { timeoutMs: 60_000 })).stdout);
  assert.deepEqual(f.targets, doc.targets);
  const plain = await runCli(['compare', 'TA', 'TB', '--db', db, '--profile-a', PROFILE, '--profile-b', PROFILE, '--claim', '1']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /^SIMULATED Cost at equal interactivity: A = TA, B = TB$/m);
  assert.match(plain.stdout, /^At 100 tokens\/s per user:/m); // the default targets
  const noProfiles = await runCli(['compare', 'TA', 'TB', '--db', db, '--claim', '1']);
  assert.equal(noProfiles.code, 1);
  assert.match(noProfiles.stderr, /two sweeps are compared by cost at equal interactivity: give --profile FILE \(both sides\) or --profile-a and --profile-b/);
  const twice = await runCli(['compare', 'TA', 'TB', '--db', db, '--at', '60,60']);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /--at '60,60': 60 is given twice/);
});
