// truecost lockin with evidence from stored runs and a saved gap table, and
// truecost decide: the checklist ticked from that evidence and a verdict.
// The incumbent and alternative are two simulators (SIMULATED evidence).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { BIN as BIN_PATH, REPO_ROOT, runCli, testScope } from './helpers.mjs';

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
  assert.deepEqual(b.checklist.map((x) => x.id), ['gaps', 'target_run', 'perf_gap', 'soak', 'profiler', 'fallback', 'fit']);
  assert.deepEqual(b.missing, ['gaps', 'target_run', 'perf_gap', 'soak', 'fit']);
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
  assert.deepEqual(d.missing, ['soak', 'fit']);
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

// A profiler's pair of kernel tables, saved as `kernels --json`.
async function kernelsDoc(dir) {
  const r = await cli(['kernels', path.join(EX, 'kernels-nsys-example.csv'),
    path.join(EX, 'kernels-rocprofv3-example.csv'), '--json']);
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(dir, 'kernels.json');
  writeFileSync(file, r.stdout);
  return { file, doc: JSON.parse(r.stdout) };
}

test('lockin --kernels: T_perf from the tuning list; [effort] performance_per_kernel replaces its effort', async (t) => {
  const sc = testScope(t, 'truecost-kernels-ev-');
  const { file, doc } = await kernelsDoc(sc.dir());
  const tune = doc.tuning;
  let r = await cli(['lockin', LORA, '--kernels', file, '--json', '--samples', '1000']);
  assert.equal(r.code, 0, r.stderr);
  let perf = JSON.parse(r.stdout).inputs.effort.performance;
  assert.deepEqual([perf.low, perf.mode, perf.high], [tune.t_perf_days.low, tune.t_perf_days.mode, tune.t_perf_days.high]);
  const kernels = tune.entries.reduce((n, e) => n + e.kernel_count, 0);
  assert.match(perf.source, new RegExp(`^${kernels} kernel\\(s\\) x the list's effort`));
  // The team's own effort per kernel: kernels x 1..2..4 person-days.
  const own = path.join(sc.dir(), 'own.ini');
  writeFileSync(own, readFileSync(LORA, 'utf8').replace(/^\[effort\]$/m, '[effort]\nperformance_per_kernel = 1..2..4'));
  r = await cli(['lockin', own, '--kernels', file, '--json', '--samples', '1000']);
  assert.equal(r.code, 0, r.stderr);
  perf = JSON.parse(r.stdout).inputs.effort.performance;
  assert.deepEqual([perf.low, perf.mode, perf.high], [kernels, 2 * kernels, 4 * kernels]);
  assert.match(perf.source, /\[effort\] performance_per_kernel/);
  // One profile has no tuning list: refused, with how to get one.
  const one = await cli(['kernels', path.join(EX, 'kernels-nsys-example.csv'), '--json']);
  const single = path.join(sc.dir(), 'one.json');
  writeFileSync(single, one.stdout);
  r = await cli(['lockin', LORA, '--kernels', single]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^truecost: --kernels: .*one\.json holds one profile, no tuning list: give 'truecost kernels INCUMBENT ALTERNATIVE --json'/m);
  r = await cli(['decide', LORA, '--kernels', path.join(sc.dir(), 'nosuch.json')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /nosuch\.json/);
});

test('decide --fit: the memory item from a fit document; --kernels names the suspects when over 50% slower', async (t) => {
  const sc = testScope(t, 'truecost-fit-ev-');
  const dir = sc.dir();
  // Llama-2-7B's shape: 6.74 B parameters, fp16.
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify({
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, intermediate_size: 11008,
    num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32, vocab_size: 32000,
    max_position_embeddings: 4096, torch_dtype: 'float16' }));
  const fitDoc = async (name, args) => {
    const r = await cli(['fit', dir, '--gpu', 'RX 7900 XTX', ...args, '--json']);
    assert.equal(r.code, 0, r.stderr);
    writeFileSync(path.join(dir, name), r.stdout);
    return JSON.parse(r.stdout);
  };
  const item = async (file) => {
    const r = await cli(['decide', LORA, '--fit', path.join(dir, file), '--json']);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout).checklist.find((x) => x.id === 'fit');
  };
  const lora = await fitDoc('lora.json', ['--task', 'lora']);
  assert.equal(lora.cards[0].verdict, 'fits');
  let it = await item('lora.json');
  assert.equal(it.state, 'ticked');
  const gib = (b) => Number((b / 2 ** 30).toPrecision(3));
  assert.equal(it.evidence, `RX 7900 XTX: needs ${gib(lora.cards[0].need_bytes)} GiB of a ${gib(lora.cards[0].budget_bytes)} GiB budget per card, fits (${Math.round(lora.cards[0].spare_share * 100)}% to spare)`);
  // Six 4k sequences of a 7B model do not fit 24 GB: not met, with the
  // largest setting that does, as fit computed it.
  const serve = await fitDoc('serve.json', ['--ctx', '4096', '--concurrency', '6']);
  assert.equal(serve.cards[0].verdict, 'does not fit');
  it = await item('serve.json');
  assert.equal(it.state, 'not met');
  assert.match(it.evidence, new RegExp(`does not fit \\(short by [\\d.]+ GiB\\); the largest that fits: ${serve.cards[0].largest.concurrency} sequence\\(s\\) at ctx 4096; ${serve.cards[0].largest.gpus_needed} cards hold`));
  const bare = JSON.parse((await cli(['decide', LORA, '--json'])).stdout).checklist.find((x) => x.id === 'fit');
  assert.equal(bare.state, 'not yet measured');
  assert.match(bare.evidence, /pass it with --fit/);
  let r = await cli(['decide', LORA, '--fit', path.join(dir, 'config.json')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--fit: .*config\.json: no "cards" or "terms": is it 'truecost fit --json' output\?/);

  // The alternative at 2/5 of the incumbent's speed: over 50% slower.
  const db = path.join(dir, 'db');
  const inc = await sc.sim(['--ttft-ms', '2', '--decode-tps', '250']);
  const alt = await sc.sim(['--ttft-ms', '2', '--decode-tps', '100']);
  for (const [url, label] of [[inc.url, 'inc'], [alt.url, 'alt']]) {
    const run = await cli(['run', url, '--db', db, ...RUN, '--label', label]);
    assert.equal(run.code, 0, run.stderr);
  }
  const { file, doc } = await kernelsDoc(dir);
  r = await cli(['decide', FP16, '--runs', 'inc', 'alt', '--db', db, '--kernels', file, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout);
  assert.equal(d.verdict, 'stay');
  const named = d.reasons.find((x) => /^the profiler's top suspects on the alternative: /.test(x));
  assert.ok(named, d.reasons.join('\n'));
  const classes = doc.tuning.entries.slice(0, 3).map((e) => e.class);
  assert.deepEqual([...named.matchAll(/(?:: |, )([a-z_]+) \(/g)].map((m) => m[1]), classes);
  assert.match(named, /softmax \(cunn_SoftMaxForward and others, 11% of its kernel time\)/);
  assert.match(named, /its attention fell back from a fused kernel to GEMM \+ softmax$/);
  // Without the profile, decide says how to name them.
  r = await cli(['decide', FP16, '--runs', 'inc', 'alt', '--db', db, '--json']);
  assert.ok(JSON.parse(r.stdout).reasons.some((x) => /with --kernels to name the suspects/.test(x)));
});

// Fine-tuning evidence: two `truecost train` runs of `truecost sim train`
// (the alternative's step 2.5x as long, then one that runs out of memory).
test('decide/lockin --train A B: the training gap, the target chain clean or not, named', async (t) => {
  const sc = testScope(t, 'truecost-train-ev-');
  const db = path.join(sc.dir(), 'db');
  const train = async (label, args) => {
    const r = await cli(['train', '--db', db, '--label', label, '--telemetry', 'none', '--', BIN_PATH, 'sim', 'train',
      '--steps', '30', ...args]);
    return r;
  };
  assert.equal((await train('nv', ['--step-ms', '20'])).code, 0);
  assert.equal((await train('amd', ['--step-ms', '50', '--warn-every', '10'])).code, 0);
  await train('oom', ['--step-ms', '25', '--oom-at', '20']);
  const tok = async (label) => JSON.parse((await cli(['show', label, '--db', db, '--json'])).stdout).tokens_per_s;
  const ratio = (await tok('amd')) / (await tok('nv'));
  let r = await cli(['decide', LORA, '--train', 'nv', 'amd', '--db', db, '--json']);
  assert.equal(r.code, 0, r.stderr);
  let d = JSON.parse(r.stdout);
  const item = (id) => d.checklist.find((x) => x.id === id);
  assert.equal(item('target_run').state, 'ticked');
  assert.match(item('target_run').evidence, /^training run \d+ complete \(exited\), 30 steps, 0 error line\(s\)$/);
  assert.equal(item('perf_gap').state, 'not met'); // 40%: over 50% slower
  assert.match(item('perf_gap').evidence, new RegExp(`at ${Math.round(ratio * 100)}% of the incumbent's throughput \\[training tokens/s\\]`));
  const lk = JSON.parse((await cli(['lockin', LORA, '--train', 'nv', 'amd', '--db', db, '--json', '--samples', '1000'])).stdout);
  assert.ok(Math.abs(lk.performance.ratio - ratio) < 1e-9 * ratio, `${lk.performance.ratio} vs ${ratio}`);
  assert.match(lk.performance.source, /^training nv vs amd \(tokens\/s\) \(SIMULATED\)$/);
  // Out of memory on the target: not met, and why.
  d = JSON.parse((await cli(['decide', LORA, '--train', 'nv', 'oom', '--db', db, '--json'])).stdout);
  assert.equal(item('target_run').state, 'not met');
  assert.match(item('target_run').evidence, /^training run \d+ failed \(exited\), 19 steps, \d+ error line\(s\); error: out_of_memory at step 19: .*out of memory/);
  // A run that is not a training run is refused, named.
  const sim = await sc.sim(['--ttft-ms', '1', '--decode-tps', '1000']);
  assert.equal((await cli(['run', sim.url, '--db', db, ...RUN, '--label', 'serve'])).code, 0);
  r = await cli(['decide', LORA, '--train', 'nv', 'serve', '--db', db]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--train serve: run \d+ is not a training run \(the alternative\): give runs that 'truecost train' made/);
  r = await cli(['lockin', LORA, '--train', 'nv']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--train takes two training runs/);
});
