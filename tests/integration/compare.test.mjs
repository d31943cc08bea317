// truecost run --repeat and truecost compare: groups of repeated runs
// against two simulators of known speeds (B decodes twice as fast as A);
// the ratio, its seeded interval, claim verdicts, cost ratios, warnings
// for differences other than the hardware, and the usage errors.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, runCli, testScope } from './helpers.mjs';

const PROFILE = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');
const RUN = ['-n', '4', '--max-tokens', '20', '--telemetry', 'none', '--no-progress'];

async function twoPlatforms(t) {
  const sc = testScope(t, 'truecost-compare-');
  const db = path.join(sc.dir(), 'db');
  const slow = await sc.sim(['--ttft-ms', '2', '--decode-tps', '100']);
  const fast = await sc.sim(['--ttft-ms', '2', '--decode-tps', '200']);
  const run = (url, extra) => runCli(['run', url, '--db', db, ...RUN, ...extra], { timeoutMs: 60_000 });
  return { sc, db, slow, fast, run };
}

const cli = (args) => runCli(args, { timeoutMs: 60_000 });

test('run --repeat 3 stores a group; show and cost take its name; the CV is reported', async (t) => {
  const { db, slow, run } = await twoPlatforms(t);
  const r = await run(slow.url, ['--repeat', '3', '--label', 'slow', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const g = JSON.parse(r.stdout); // one document for the whole group
  assert.equal(g.group, 'slow');
  assert.equal(g.simulated, true);
  assert.equal(g.runs.length, 3);
  assert.equal(g.throughput.runs, 3);
  assert.ok(g.throughput.cv >= 0 && g.throughput.cv < 0.03, `CV ${g.throughput.cv}`);
  assert.equal(g.throughput.noisy, false);
  assert.equal(g.throughput.cv_limit, 0.03);
  const mean = g.runs.reduce((s, x) => s + x.output_tokens_per_s, 0) / 3;
  assert.ok(Math.abs(mean - g.throughput.mean) < 1e-6 * mean);

  const shown = await cli(['show', 'slow', '--db', db]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /^SIMULATED Group 'slow': 3 repeated runs/);
  assert.match(shown.stdout, /CV \d+\.\d+% \(within 3%\)/);

  const cost = await cli(['cost', 'slow', '--db', db, '--profile', PROFILE, '--json']);
  assert.equal(cost.code, 0, cost.stderr);
  const c = JSON.parse(cost.stdout);
  assert.deepEqual(c.group.run_ids, g.runs.map((x) => x.id));
  assert.ok(Math.abs(c.inputs.output_tokens_per_s.value - g.throughput.mean) < 1e-6 * mean);

  // export takes the group: every run's requests under one header.
  const csv = await cli(['export', 'slow', '--db', db]);
  assert.equal(csv.code, 0, csv.stderr);
  const lines = csv.stdout.trim().split('\n');
  assert.match(lines[0], /^run_id,seq,/);
  assert.equal(lines.length, 1 + 3 * 5); // 4 measured + 1 warm-up per run
  assert.deepEqual([...new Set(lines.slice(1).map((l) => Number(l.split(',')[0])))], g.runs.map((x) => x.id));
  const sum = await cli(['export', 'slow', '--db', db, '--what', 'summary', '--format', 'json']);
  assert.deepEqual(JSON.parse(sum.stdout), JSON.parse((await cli(['show', 'slow', '--db', db, '--json'])).stdout));
  const samples = await cli(['export', 'slow', '--db', db, '--what', 'samples']);
  assert.equal(samples.code, 1);
  assert.match(samples.stderr, /takes one run; group 'slow' has runs/);

  // The group name is taken: a second --repeat with it is refused.
  const again = await run(slow.url, ['--repeat', '2', '--label', 'slow']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /group 'slow' already has 3 run\(s\)/);
});

test('compare groups: run-level interval around the known 2x, seeded, claim verdicts', async (t) => {
  const { db, slow, fast, run } = await twoPlatforms(t);
  assert.equal((await run(slow.url, ['--repeat', '3', '--label', 'A'])).code, 0);
  assert.equal((await run(fast.url, ['--repeat', '3', '--label', 'B'])).code, 0);

  const r = await cli(['compare', 'A', 'B', '--db', db, '--json', '--claim', '0.3']);
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout);
  assert.equal(d.simulated, true);
  assert.equal(d.resampling, 'runs');
  assert.equal(d.run_to_run_covered, true);
  assert.equal(d.resamples, 10000);
  assert.equal(d.a.group, true);
  assert.equal(d.a.run_ids.length, 3);
  const tr = d.confidence.throughput_ratio;
  // 20 tokens: A 2 ms + 19/100 s, B 2 ms + 19/200 s per request.
  assert.ok(tr.point > 1.8 && tr.point < 2.1, `ratio ${tr.point}`);
  assert.ok(tr.low <= tr.point && tr.point <= tr.high);
  assert.equal(tr.level, 0.95);
  const tps = d.ratios_b_over_a.output_tokens_per_s;
  assert.ok(Math.abs(tps - tr.point) < 1e-9 * tps);
  // "A is 0.3x as efficient as B": A is ~0.5x, so at least 0.3: supported.
  assert.equal(d.claim.basis, 'throughput');
  assert.equal(d.claim.verdict, 'supported');
  assert.ok(Math.abs(d.claim.measured.point - 1 / tr.point) < 1e-9);
  assert.equal(d.differences.filter((x) => !x.hardware).length, 0, JSON.stringify(d.differences));

  const again = await cli(['compare', 'A', 'B', '--db', db, '--json', '--claim', '0.3']);
  assert.deepEqual(JSON.parse(again.stdout).confidence, d.confidence); // seeded: the same interval

  const refuted = await cli(['compare', 'A', 'B', '--db', db, '--json', '--claim', '0.9']);
  assert.equal(JSON.parse(refuted.stdout).claim.verdict, 'refuted');

  // Text: SIMULATED, the verdict and the interval.
  const text = await cli(['compare', 'A', 'B', '--db', db, '--claim', '5']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^SIMULATED Comparison/);
  assert.match(text.stdout, /Claim: "A is 5 times more efficient \(throughput\) than B": refuted/);
  assert.match(text.stdout, /throughput B\/A\s+[\d.]+\s+\[[\d.]+, [\d.]+\]/);
  assert.match(text.stdout, /resampling runs/);
});

test('compare single runs with profiles: cost basis, request-level note, difference warnings', async (t) => {
  const { db, slow, fast, run } = await twoPlatforms(t);
  assert.equal((await run(slow.url, ['--label', 'a1'])).code, 0);
  assert.equal((await run(fast.url, ['--label', 'b1', '-c', '2', '--max-tokens', '16', '--prompt', 'other'])).code, 0);
  const r = await cli(['compare', 'a1', 'b1', '--db', db, '--json', '--claim', '0.2',
    '--profile-a', PROFILE, '--profile-b', PROFILE]);
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout);
  assert.equal(d.resampling, 'requests');
  assert.equal(d.run_to_run_covered, false);
  assert.equal(d.claim.basis, 'cost');
  // Same profile both sides: cost per token scales as 1 / throughput.
  const cr = d.confidence.cost_ratio;
  assert.ok(Math.abs(cr.point * d.confidence.throughput_ratio.point - 1) < 1e-9, JSON.stringify(cr));
  assert.ok(Math.abs(d.ratios_b_over_a.cost_per_million_tokens - cr.point) < 1e-9);
  assert.equal(typeof d.a.figures.cost_per_million_tokens, 'number');
  const fields = d.differences.filter((x) => !x.hardware).map((x) => x.field);
  for (const f of ['concurrency', 'max_tokens', 'prompt_set'])
    assert.ok(fields.includes(f), `${f} in ${fields}`);

  const text = await cli(['compare', 'a1', 'b1', '--db', db]);
  assert.match(text.stdout, /run-to-run variation is NOT covered/);
  assert.match(text.stdout, /WARNING concurrency: 1 vs 2/);
  assert.match(text.stdout, /WARNING max_tokens: 20 vs 16/);
});

test('compare usage errors name the fix', async (t) => {
  const { db, slow, run } = await twoPlatforms(t);
  assert.equal((await run(slow.url, ['--label', 'only'])).code, 0);
  let r = await cli(['compare', 'only', '--db', db]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /give two runs/);
  r = await cli(['compare', 'only', 'only', '--db', db, '--profile-a', PROFILE]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /give both --profile-a and --profile-b/);
  r = await cli(['compare', 'only', 'nosuch', '--db', db]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no run with label 'nosuch'.*truecost runs/);
  r = await cli(['compare', 'only', 'only', '--db', db, '--resamples', '10']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--resamples/);
  r = await cli(['compare', 'only', 'only', '--db', db, '--claim', 'five']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--claim/);
});

test('partial evidence is said: failed requests, the same runs twice, a label taken by a group, mixed currencies', async (t) => {
  const { sc, db, slow, run } = await twoPlatforms(t);
  const flaky = await sc.sim(['--ttft-ms', '2', '--decode-tps', '200', '--fault', 'http500:0.5', '--seed', '3']);
  const r0 = await run(flaky.url, ['--repeat', '2', '--label', 'flaky', '--max-error-rate', '1', '-n', '8']);
  assert.equal(r0.code, 0, r0.stderr);
  assert.equal((await run(slow.url, ['--label', 'base'])).code, 0);

  const g = JSON.parse((await cli(['show', 'flaky', '--db', db, '--json'])).stdout);
  assert.ok(g.warnings.some((w) => /measured requests failed/.test(w)), JSON.stringify(g.warnings));

  const c = await cli(['compare', 'base', 'flaky', '--db', db, '--json']);
  assert.equal(c.code, 0, c.stderr);
  const d = JSON.parse(c.stdout);
  assert.ok(d.warnings.some((w) => /^B: \d+ of \d+ measured requests failed/.test(w)), JSON.stringify(d.warnings));
  const text = await cli(['compare', 'base', 'flaky', '--db', db]);
  assert.match(text.stdout, /WARNING B: \d+ of \d+ measured requests failed/);
  const cost = await cli(['cost', 'flaky', '--db', db, '--profile', PROFILE]);
  assert.match(cost.stdout, /WARNING the group: \d+ of \d+ measured requests failed/);

  const same = JSON.parse((await cli(['compare', 'base', 'base', '--db', db, '--json'])).stdout);
  assert.ok(same.warnings.some((w) => /same runs/.test(w)));

  const taken = await run(slow.url, ['--label', 'flaky']);
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, /--label 'flaky' names a group of 2 repeated runs/);

  const eur = path.join(sc.dir(), 'eur.ini');
  writeFileSync(eur, readFileSync(PROFILE, 'utf8').replace(/^currency = .*$/m, 'currency = EUR'));
  const mixed = await cli(['compare', 'base', 'flaky', '--db', db, '--profile-a', PROFILE, '--profile-b', eur]);
  assert.equal(mixed.code, 1);
  assert.match(mixed.stderr, /is in USD but .*eur\.ini is in EUR/);
});
