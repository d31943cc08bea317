// truecost lockin: the example assessments in text and JSON, the same seed
// giving the same figures, the evidence options, and a bad file being a
// usage error that names file and line.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, runCli, testScope } from './helpers.mjs';

const LORA = path.join(REPO_ROOT, 'examples', 'assessment-lora-8x24gb.ini');
const FP16 = path.join(REPO_ROOT, 'examples', 'assessment-fp16-inference.ini');

async function lockinJson(args) {
  const r = await runCli(['lockin', ...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const close = (a, b, rel = 1e-9) => Math.abs(a - b) <= rel * Math.max(1, Math.abs(b));

test('text report: terms, distribution, sensitivity, break-even and a reading', async () => {
  const r = await runCli(['lockin', LORA]);
  assert.equal(r.code, 0, r.stderr);
  for (const want of [
    /^Lock-in cost of .*assessment-lora-8x24gb\.ini \(USD\)/,
    /effort +47\.5 person-days x 800\.00 per day +=  +38000 USD/,
    /risk +0\.25 probability x 24000\.00 per incident += +6000 USD/,
    /talent +0\.25 extra hires x 20000\.00 per hire += +5000 USD/,
    /lock-in cost +49000 USD/,
    /Monte Carlo \(100000 samples, seed 1\): P10 [0-9.]+, P50 [0-9.]+, P90 [0-9.]+/,
    /Hardware saving: 8 units x \(1599\.00 - 999\.00\) = 4800 USD/,
    /P\(lock-in cost > hardware saving\) = [0-9.]+%/,
    /Sensitivity/,
    /Break-even: not computed/,
    /^Reading: The lock-in cost .* exceeds the hardware saving/m,
  ])
    assert.match(r.stdout, want);
});

test('--json: the keys, terms that add up, and sorted sensitivity', async () => {
  for (const [file, saving] of [[LORA, 8 * 600], [FP16, 16 * 600]]) {
    const doc = await lockinJson([file]);
    for (const k of ['point_estimate', 'p10', 'p50', 'p90', 'hardware_saving', 'probability_exceeds_saving', 'mean'])
      assert.equal(typeof doc[k], 'number', `${file}: ${k}`);
    for (const k of ['effort_days', 'effort_cost', 'risk_cost', 'talent_cost'])
      assert.equal(typeof doc.terms[k], 'number', `${file}: terms.${k}`);
    const t = doc.terms;
    assert.ok(close(t.effort_cost + t.risk_cost + t.talent_cost, doc.point_estimate));
    assert.ok(close(t.effort_cost, t.effort_days * doc.inputs.day_cost));
    assert.equal(doc.hardware_saving, saving);
    assert.equal(doc.samples, 100000);
    assert.equal(doc.seed, 1);
    assert.ok(doc.p10 <= doc.p50 && doc.p50 <= doc.p90, `${doc.p10} ${doc.p50} ${doc.p90}`);
    assert.ok(doc.probability_exceeds_saving >= 0 && doc.probability_exceeds_saving <= 1);
    assert.ok(Array.isArray(doc.sensitivity) && doc.sensitivity.length > 0);
    for (let i = 0; i < doc.sensitivity.length; i++) {
      const s = doc.sensitivity[i];
      assert.deepEqual(Object.keys(s).sort(), ['high_total', 'input', 'low_total', 'swing']);
      assert.ok(close(s.swing, Math.abs(s.high_total - s.low_total)));
      if (i) assert.ok(doc.sensitivity[i - 1].swing >= s.swing);
    }
    assert.equal(doc.break_even, null);
    assert.equal(typeof doc.reading, 'string');
  }
  const lora = await lockinJson([LORA]);
  assert.equal(lora.point_estimate, 49000); // (7.5+10.5+14+10+5.5) x 800 + 0.25 x 24000 + 0.25 x 20000
  assert.equal(lora.probability_exceeds_saving, 1); // the seed: the ecosystem outweighs the card saving
  assert.deepEqual(lora.inputs.decision, { profiler_skill: 'no', fallback_path: 'no', soak_passed: 'unknown' });
  assert.equal(lora.sensitivity[0].input, 'risk');
  const fp16 = await lockinJson([FP16]);
  assert.ok(fp16.point_estimate < lora.point_estimate);
  assert.equal(fp16.inputs.tokens_per_month, 2e9);
});

test('the same seed gives the same figures; another seed other ones', async () => {
  const a = await runCli(['lockin', LORA, '--json', '--seed', '9', '--samples', '20000']);
  const b = await runCli(['lockin', LORA, '--json', '--seed', '9', '--samples', '20000']);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, b.stdout);
  const c = JSON.parse((await runCli(['lockin', LORA, '--json', '--seed', '10', '--samples', '20000'])).stdout);
  const da = JSON.parse(a.stdout);
  assert.equal(da.seed, 9);
  assert.equal(da.samples, 20000);
  assert.notEqual(da.mean, c.mean);
});

test('evidence: running saving, performance ratio and the gap table', async () => {
  const base = await lockinJson([LORA]);
  const be = await lockinJson([LORA, '--running-saving-per-month', '500']);
  assert.equal(be.break_even.never, false);
  assert.ok(close(be.break_even.p50, be.p50 / 500));
  assert.ok(close(be.net_benefit.p50, be.hardware_saving + 500 * 36 - be.p50));
  const never = await lockinJson([LORA, '--running-saving-per-month', '-10']);
  assert.equal(never.break_even.never, true);
  assert.equal(never.break_even.p50, null);
  const text = await runCli(['lockin', LORA, '--running-saving-per-month', '0']);
  assert.match(text.stdout, /Break-even: never/);

  // Within 20%: T_perf at its low end (8 of 8..20 days, point 14): 6 days x 800 less.
  const fast = await lockinJson([LORA, '--perf-ratio', '0.8']);
  assert.equal(fast.performance.class, 'tuning optional');
  assert.equal(fast.point_estimate, base.point_estimate - 6 * 800);
  const slow = await lockinJson([LORA, '--perf-ratio', '0.3']);
  assert.equal(slow.performance.flagged, true);
  assert.equal(slow.performance.class, 'suspect operator fallback before blaming the hardware');
  assert.equal(slow.point_estimate, base.point_estimate);

  const gaps = await lockinJson([LORA, '--gaps-top', '2..3..5']);
  assert.equal(gaps.inputs.effort.operators.source, '--gaps-top');
  assert.equal(gaps.inputs.effort.operators.line, null);
  assert.equal(gaps.terms.item_days.operators, 3);
  assert.equal(gaps.point_estimate, base.point_estimate - (10.5 - 3) * 800);
});

test('bad file -> exit 1 naming file:line; unreadable -> 2; bad options -> 1', async (t) => {
  const sc = testScope(t, 'truecost-lockin-');
  const bad = path.join(sc.dir(), 'bad.ini');
  writeFileSync(bad, '[effort]\nenvironment = 1..2\noperators = 9..3\n');
  let r = await runCli(['lockin', bad]);
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(`${bad}:3: [effort] operators: inverted range`), r.stderr);
  writeFileSync(bad, '[risk]\nprobability = 1.2\n');
  r = await runCli(['lockin', bad]);
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(`${bad}:2: [risk] probability: 1.2 is out of range; expected a probability 0..1`), r.stderr);
  assert.equal(r.stdout, '');
  r = await runCli(['lockin', path.join(sc.dir(), 'absent.ini')]);
  assert.equal(r.code, 2, r.stderr);
  for (const args of [[], [LORA, '--samples', '0'], [LORA, '--gaps-top', '5..1'], [LORA, '--perf-ratio', '0'],
    [LORA, '--bogus'], [LORA, LORA]]) {
    r = await runCli(['lockin', ...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^truecost: /);
  }
  const help = await runCli(['help', 'lockin']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: truecost lockin FILE/);
});
