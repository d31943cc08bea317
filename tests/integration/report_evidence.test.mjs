// truecost report --fit FILE --kernels FILE: the memory section (per card,
// the terms stacked against its budget) and the kernels section (each
// platform's time by class, the tuning list's first entries), with the
// figures the fit and kernels documents give; with an assessment the same
// documents are the decision's evidence, as decide reads them.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';

import { REPO_ROOT, runCli, startSim, tempDir } from './helpers.mjs';

const EX = path.join(REPO_ROOT, 'examples');
const FP16 = path.join(EX, 'assessment-fp16-inference.ini');
const cli = (args) => runCli(args, { timeoutMs: 60_000 });
// The report's number format: 4 significant digits.
const sig = (x) => String(Number(x.toPrecision(4)));
const GIB = 2 ** 30;

let dir, db, fitFile, fit, kernelsFile, kernels;
before(async () => {
  dir = tempDir();
  db = path.join(dir, 'db');
  const sim = await startSim(['--ttft-ms', '1', '--decode-tps', '1000']);
  const r = await cli(['run', sim.url, '--db', db, '-n', '4', '--max-tokens', '8', '--warmup', '0',
    '--telemetry', 'none', '--no-progress', '--label', 'one']);
  assert.equal(r.code, 0, r.stderr);
  await sim.stop?.();
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, intermediate_size: 11008,
    num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, vocab_size: 32000,
    max_position_embeddings: 4096, torch_dtype: 'float16' }));
  const f = await cli(['fit', dir, '--gpu', 'RTX 4090', '--gpu', 'RX 7900 XTX', '--ctx', '4096',
    '--concurrency', '6', '--json']);
  assert.equal(f.code, 0, f.stderr);
  fitFile = path.join(dir, 'fit.json');
  writeFileSync(fitFile, f.stdout);
  fit = JSON.parse(f.stdout);
  const k = await cli(['kernels', path.join(EX, 'kernels-nsys-example.csv'),
    path.join(EX, 'kernels-rocprofv3-example.csv'), '--json']);
  assert.equal(k.code, 0, k.stderr);
  kernelsFile = path.join(dir, 'kernels.json');
  writeFileSync(kernelsFile, k.stdout);
  kernels = JSON.parse(k.stdout);
});

const section = (md, title) => {
  const at = md.indexOf(`\n## ${title}`);
  assert.ok(at >= 0, `no section ${title}`);
  const end = md.indexOf('\n## ', at + 1);
  return md.slice(at, end < 0 ? undefined : end);
};

test('report --fit --kernels: the memory and kernels sections, with the documents\' figures', async () => {
  const out = path.join(dir, 'r.md');
  const r = await cli(['report', 'one', '--db', db, '--fit', fitFile, '--kernels', kernelsFile, '-o', out]);
  assert.equal(r.code, 0, r.stderr);
  const md = readFileSync(out, 'utf8');
  const mem = section(md, 'Memory: does the model fit the card');
  for (const c of fit.cards)
    assert.ok(mem.includes(`| ${c.name} | ${sig(c.capacity_bytes / GIB)} | ${sig(c.budget_bytes / GIB)} | ${sig(c.need_bytes / GIB)} | ${c.verdict} |`),
      `${c.name}'s row\n${mem}`);
  for (const t of fit.terms)
    assert.ok(mem.includes(`| ${t.name.replace(/_/g, '\\_')} | ${sig(t.bytes / GIB)} |`), `term ${t.name}\n${mem}`);
  const ker = section(md, 'Kernels: where the profiler says the time goes');
  const t = kernels.tuning.t_perf_days;
  assert.match(ker, new RegExp(`tuning list's \\d+ kernel\\(s\\) price T\\\\_perf at ${t.low}\\.\\.${t.mode}\\.\\.${t.high} person-days; the alternative's attention fell back`));
  for (const c of kernels.comparison.classes)
    assert.ok(ker.includes(`| ${c.class.replace(/_/g, '\\_')} | ${sig(100 * c.incumbent_share)} | ${sig(100 * c.alternative_share)} |`), `class ${c.class}\n${ker}`);
  const first = kernels.tuning.entries[0];
  assert.ok(ker.includes(`| ${first.class} |`) && ker.includes(`| ${sig(100 * first.saving_share)} |`));
  // Each section's chart: stacked bars with a title, beside the report.
  for (const title of ['Memory per card: the terms against the budget', 'Kernel time by class, each platform']) {
    const m = [...md.matchAll(/!\[[^\]]*\]\(([^)]+\.svg)\)/g)]
      .map((x) => readFileSync(path.join(dir, x[1]), 'utf8'))
      .find((svg) => svg.includes(`>${title}</title>`));
    assert.ok(m, `a chart titled ${title}`);
  }
  // Without them, neither section.
  const bare = path.join(dir, 'bare.md');
  assert.equal((await cli(['report', 'one', '--db', db, '-o', bare])).code, 0);
  assert.doesNotMatch(readFileSync(bare, 'utf8'), /## (Memory|Kernels)/);
});

test('report --assessment with --fit and --kernels: the decision reads them as decide does', async () => {
  const out = path.join(dir, 'a.md');
  const r = await cli(['report', 'one', '--db', db, '--assessment', FP16, '--fit', fitFile, '--kernels',
    kernelsFile, '-o', out]);
  assert.equal(r.code, 0, r.stderr);
  const md = readFileSync(out, 'utf8');
  const d = JSON.parse((await cli(['decide', FP16, '--fit', fitFile, '--kernels', kernelsFile, '--json'])).stdout);
  const item = d.checklist.find((x) => x.id === 'fit');
  assert.equal(item.state, 'not met');
  assert.ok(md.includes(item.evidence.replace(/_/g, '\\_')), `the fit item's evidence in the report: ${item.evidence}`);
});

test('report --fit/--kernels: a bad document is refused naming it (2, as a gap table); -o over one is refused', async () => {
  let r = await cli(['report', 'one', '--db', db, '--fit', kernelsFile, '-o', path.join(dir, 'x.md')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--fit: .*kernels\.json: no "cards" or "terms": is it 'truecost fit --json' output\?/);
  r = await cli(['report', 'one', '--db', db, '--kernels', fitFile, '-o', path.join(dir, 'x.md')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--kernels: .*fit\.json: no "profiles" or "tuning"/);
  const before = readFileSync(fitFile, 'utf8');
  r = await cli(['report', 'one', '--db', db, '--fit', fitFile, '-o', fitFile, '--format', 'html']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--fit/);
  assert.equal(readFileSync(fitFile, 'utf8'), before);
});

// --train A B: the fine-tuning section, its figures as `show --json` gives
// them for each training run, the step-time chart and each warning.
test('report --train A B: the training runs side by side, their step times and warnings', async (t) => {
  const { BIN } = await import('./helpers.mjs');
  const train = (label, args) => cli(['train', '--db', db, '--label', label, '--telemetry', 'none', '--', BIN, 'sim',
    'train', '--steps', '30', ...args]);
  assert.equal((await train('tnv', ['--step-ms', '20'])).code, 0);
  assert.equal((await train('tamd', ['--step-ms', '50', '--warn-every', '10'])).code, 0);
  const out = path.join(dir, 't.md');
  const r = await cli(['report', 'one', '--db', db, '--train', 'tnv', 'tamd', '-o', out, '--force']);
  assert.equal(r.code, 0, r.stderr);
  const md = readFileSync(out, 'utf8');
  const sec = section(md, 'Fine-tuning: the training runs');
  const doc = async (label) => JSON.parse((await cli(['show', label, '--db', db, '--json'])).stdout);
  const [a, b] = [await doc('tnv'), await doc('tamd')];
  const cell = (row) => sec.match(new RegExp(`^\\| ${row.replace(/[()%]/g, '\\$&')} \\| ([^|]+) \\| ([^|]+) \\|$`, 'm'))?.slice(1, 3);
  assert.deepEqual(cell('step time mean (ms)'), [sig(a.step_ms.mean), sig(b.step_ms.mean)]);
  assert.deepEqual(cell('step time p99 (ms)'), [sig(a.step_ms.p99), sig(b.step_ms.p99)]);
  assert.deepEqual(cell('tokens/s'), [sig(a.tokens_per_s), sig(b.tokens_per_s)]);
  assert.deepEqual(cell('ended'), ['exited, no error line', 'exited, no error line']);
  assert.deepEqual(cell('MFU (%)'), ['n/a', 'n/a']); // no parameters given: no MFU, never 0
  assert.match(sec, new RegExp(`B's mean step takes ${sig(b.step_ms.mean / a.step_ms.mean)}x A's: over 50% slower`));
  const w = b.warnings[0];
  assert.ok(sec.includes(`| B | python\\_warning UserWarning | ${w.message} | ${w.count} | ${w.first_step} |`), sec);
  assert.match(sec, /!\[Each platform's steady-window step times as a cumulative share\.\]\([^)]+\.svg\)/);
  assert.match(md, /SIMULATED/);
  // With an assessment, the decision reads the same runs as decide --train.
  const d = JSON.parse((await cli(['decide', FP16, '--train', 'tnv', 'tamd', '--db', db, '--json'])).stdout);
  const withA = path.join(dir, 'ta.md');
  assert.equal((await cli(['report', 'one', '--db', db, '--assessment', FP16, '--train', 'tnv', 'tamd', '-o', withA])).code, 0);
  const run = d.checklist.find((x) => x.id === 'target_run');
  assert.ok(readFileSync(withA, 'utf8').includes(run.evidence.replace(/_/g, '\\_')), run.evidence);
  // A serving run is no training run: refused, named.
  const bad = await cli(['report', 'one', '--db', db, '--train', 'tnv', 'one', '-o', path.join(dir, 'x2.md')]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--train one: run \d+ is not a training run/);
});
