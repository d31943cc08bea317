// truecost train against truecost sim train (a SIMULATED trainer with a
// truth file of emit times) and small scripts: step times against the
// truth within 1%, warnings counted exactly, every format, out of memory
// and crashes at step K, Ctrl-C and a trainer that ignores SIGTERM, bad
// input of every kind; and a real PyTorch loop on the CPU when python3 can
// import torch.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { BIN, REPO_ROOT, runCli, spawnTruecost, tempDir } from './helpers.mjs';

const dir = tempDir('truecost-train-');
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (name) => path.join(dir, `${name}-${++n}`);
const sim = (...args) => [BIN, 'sim', 'train', ...args];

async function train(opts, cmd, { timeoutMs = 60_000 } = {}) {
  const db = opts.db ?? fresh('db');
  const r = await runCli(['train', '--db', db, '--telemetry', 'none', '--json', ...(opts.args ?? []), '--', ...cmd],
                         { timeoutMs });
  let doc = null;
  try {
    doc = JSON.parse(r.stdout);
  } catch {
    // no document (a run that never started)
  }
  return { ...r, doc, db };
}

const truthOf = (file) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

test('step times match the simulator\'s truth within 1%; warnings and checkpoints counted exactly', async () => {
  const truth = fresh('truth');
  const r = await train({ args: ['--label', 'simA'] },
                        sim('--steps', '40', '--step-ms', '50', '--jitter-ms', '10', '--warmup-steps', '3',
                            '--warn-every', '7', '--checkpoint-every', '10', '--truth', truth, '--seed', '3'));
  assert.equal(r.code, 0, r.stderr);
  const d = r.doc;
  assert.equal(d.kind, 'train');
  assert.equal(d.simulated, true);
  assert.equal(d.format, 'jsonl');
  assert.equal(d.status, 'complete');
  assert.equal(d.steps, 40);
  assert.equal(d.checkpoints, 4);
  assert.equal(d.warning_lines, 5); // steps 7, 14, 21, 28, 35
  assert.equal(d.error_lines, 0);
  assert.equal(d.completed_without_error, true);
  assert.equal(d.warnings.length, 1);
  assert.equal(d.warnings[0].class, 'python_warning');
  assert.equal(d.warnings[0].category, 'UserWarning');
  assert.equal(d.warnings[0].first_step, 7);
  const t = truthOf(truth);
  assert.equal(t.length, 40);
  const w = d.warmup_records; // 5: the larger of 5 and 10% of 40
  assert.equal(w, 5);
  const gaps = t.slice(w + 1).map((x, i) => (x.emit_ns - t[w + i].emit_ns) / 1e6);
  assert.equal(d.step_ms.n, gaps.length);
  const truthMean = mean(gaps);
  assert.ok(Math.abs(d.step_ms.mean - truthMean) / truthMean < 0.01,
            `mean step ${d.step_ms.mean} ms, truth ${truthMean} ms`);
  const sorted = [...gaps].sort((a, b) => a - b);
  const p50 = (sorted[(sorted.length - 1) >> 1] + sorted[sorted.length >> 1]) / 2;
  assert.ok(Math.abs(d.step_ms.p50 - p50) / p50 < 0.05, `p50 ${d.step_ms.p50}, truth ${p50}`);
  // samples and tokens per step (8, 4096) over the window's time
  assert.ok(Math.abs(d.samples_per_s - 8000 / truthMean) / (8000 / truthMean) < 0.01);
  assert.ok(Math.abs(d.tokens_per_s - 4096000 / truthMean) / (4096000 / truthMean) < 0.01);
  assert.equal(d.peak_framework_bytes, 12 * 2 ** 30);
  // show prints the same document; runs lists it as a training run
  const shown = await runCli(['show', 'simA', '--db', r.db, '--json']);
  assert.equal(shown.code, 0, shown.stderr);
  assert.deepEqual(JSON.parse(shown.stdout).step_ms, d.step_ms);
  const text = await runCli(['show', 'simA', '--db', r.db]);
  assert.match(text.stdout, /Training run 1 \(simA\)\s+SIMULATED/);
  assert.match(text.stdout, /python_warning\s+5\s+7\s+UserWarning: SIMULATED warning/);
  const runs = await runCli(['runs', '--db', r.db]);
  assert.match(runs.stdout, /simA .* train: .* complete .*SIMULATED/);
  const listed = JSON.parse((await runCli(['runs', '--db', r.db, '--json'])).stdout);
  assert.match(listed[0].endpoint, /^train: .*truecost sim train --steps 40/);
  assert.equal(listed[0].kind, 'train');
});

test('a slowdown over time and a slow warm-up are measured, not hidden', async () => {
  const truth = fresh('truth');
  const r = await train({ args: ['--warmup-steps', '4'] },
                        sim('--steps', '24', '--step-ms', '40', '--warmup-steps', '4', '--warmup-factor', '4',
                            '--slowdown', '200', '--truth', truth));
  assert.equal(r.code, 0, r.stderr);
  // 40 ms growing by 2% a step: the steady steps are planned from 43 to 59 ms
  const t = truthOf(truth);
  const truthMean = (t[23].emit_ns - t[4].emit_ns) / 1e6 / 19;
  assert.ok(Math.abs(r.doc.step_ms.mean - truthMean) / truthMean < 0.01, `${r.doc.step_ms.mean} vs ${truthMean}`);
  assert.ok(r.doc.step_ms.min > 40, JSON.stringify(r.doc.step_ms)); // the warm-up's 160 ms steps left out
  assert.ok(r.doc.step_ms.max - r.doc.step_ms.min > 10, 'the slowdown shows in the spread');
  assert.ok(r.doc.step_time_cv > 0.08, `CV ${r.doc.step_time_cv}`);
});

for (const [format, args] of [['hf', []], ['torchtune', []], ['lightning', []], ['jsonl', []],
  ['regex', ['--format', 'regex', '--step-regex', 'it (?<step>[0-9]+) loss=(?<loss>[0-9.]+) samples=(?<samples>[0-9]+)']]]) {
  test(`format ${format}: read ${args.length ? 'with its regex' : 'by auto detection'}`, async () => {
    const truth = fresh('truth');
    const r = await train({ args }, sim('--format', format, '--steps', '30', '--step-ms', '40', '--truth', truth));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.doc.format, format);
    assert.equal(r.doc.steps, 30);
    const t = truthOf(truth);
    const w = r.doc.warmup_records;
    const truthMean = (t[29].emit_ns - t[w].emit_ns) / 1e6 / (29 - w);
    assert.ok(Math.abs(r.doc.step_ms.mean - truthMean) / truthMean < 0.01, `${r.doc.step_ms.mean} vs ${truthMean}`);
    if (format === 'hf') {
      assert.equal(r.doc.trainer_summary.train_samples_per_s, 200);
      assert.equal(r.doc.tokens_source, 'counts'); // num_input_tokens_seen's steps
    }
    if (format === 'torchtune' || format === 'lightning') assert.equal(r.doc.tokens_source, 'trainer_rate');
    if (format === 'regex') assert.equal(r.doc.samples_source, 'counts');
  });
}

test('the steps from a --metrics file followed as it grows', async () => {
  const metrics = fresh('metrics');
  const r = await train({ args: ['--metrics', metrics] },
                        sim('--steps', '12', '--step-ms', '30', '--metrics', metrics, '--warn-every', '4'));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.steps, 12);
  assert.equal(r.doc.metrics_path, metrics);
  assert.equal(r.doc.warning_lines, 3); // still read from the output
});

test('out of memory at step K: failed, every step before it kept, the error classified', async () => {
  const r = await train({}, sim('--steps', '30', '--step-ms', '20', '--oom-at', '9'));
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.doc.status, 'failed');
  assert.deepEqual(r.doc.end, { state: 'exited', exit_code: 1, signal: null });
  assert.equal(r.doc.steps, 8);
  const classes = r.doc.warnings.map((w) => w.class);
  assert.ok(classes.includes('out_of_memory') && classes.includes('traceback'), classes.join());
  assert.equal(r.doc.warnings.find((w) => w.class === 'out_of_memory').first_step, 8);
  assert.equal(r.doc.completed_without_error, false);
  assert.match(r.stderr, /exited with status 1 after 8 steps/);
});

test('a crash at step K: killed by SIGSEGV, marked failed with its steps', async () => {
  const r = await train({}, sim('--steps', '30', '--step-ms', '20', '--crash-at', '6'));
  assert.equal(r.code, 3, r.stderr);
  assert.equal(r.doc.status, 'failed');
  assert.equal(r.doc.end.state, 'signaled');
  assert.equal(r.doc.end.signal, 11);
  assert.equal(r.doc.steps, 5);
  assert.ok(r.doc.warnings.some((w) => w.class === 'segfault'));
});

test('Ctrl-C is passed on and waited for; what was measured is kept', async () => {
  const db = fresh('db');
  const truth = fresh('truth');
  const p = spawnTruecost(['train', '--db', db, '--telemetry', 'none', '--label', 'cc', '--',
    ...sim('--steps', '1000', '--step-ms', '20', '--truth', truth)], { timeoutMs: 30_000 });
  while (!existsSync(truth) || readFileSync(truth, 'utf8').split('\n').length < 12)
    await new Promise((r) => setTimeout(r, 50));
  p.kill('SIGINT');
  const r = await p.done;
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /interrupted after \d+ steps; run 1 kept as interrupted/);
  const shown = JSON.parse((await runCli(['show', 'cc', '--db', db, '--json'])).stdout);
  assert.equal(shown.status, 'interrupted');
  assert.equal(shown.end.state, 'interrupted');
  const emitted = truthOf(truth).length;
  assert.ok(shown.steps >= 11 && shown.steps <= emitted && shown.steps >= emitted - 1,
            `${shown.steps} stored, ${emitted} emitted`);
});

test('a trainer that ignores SIGTERM gets SIGKILL after the grace period, and says so', async () => {
  const db = fresh('db');
  const truth = fresh('truth');
  const p = spawnTruecost(['train', '--db', db, '--telemetry', 'none', '--grace', '1', '--json', '--',
    ...sim('--steps', '1000', '--step-ms', '20', '--ignore-stop', '--truth', truth)], { timeoutMs: 30_000 });
  while (!existsSync(truth) || readFileSync(truth, 'utf8').split('\n').length < 6)
    await new Promise((r) => setTimeout(r, 50));
  const t0 = Date.now();
  p.kill('SIGTERM');
  const r = await p.done;
  const waited = (Date.now() - t0) / 1000;
  assert.equal(r.code, 143, r.stderr);
  assert.match(r.stderr, /did not stop 1 s after SIGTERM: sending SIGKILL/);
  assert.ok(waited >= 1 && waited < 6, `ended ${waited} s after SIGTERM`);
  const d = JSON.parse(r.stdout);
  assert.equal(d.status, 'interrupted');
  assert.equal(d.end.state, 'killed');
  assert.equal(d.end.signal, 9);
  assert.ok(d.steps >= 5);
});

test('a command that does not exist: exit 2, said, the run stored as failed', async () => {
  const r = await train({}, ['/nonexistent/trainer', '--lr', '1']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /cannot run '\/nonexistent\/trainer': No such file or directory/);
  const runs = await runCli(['runs', '--db', r.db, '--json']);
  assert.equal(JSON.parse(runs.stdout)[0].status, 'failed');
});

test('a trainer that exits at once, or prints no progress line: exit 3 and a clear message', async () => {
  let r = await train({}, ['false']);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /no step was read from the trainer's output/);
  r = await train({}, ['sh', '-c', 'echo loading; echo done']);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /no step was read .*--format.*--step-regex/);
  assert.equal(r.doc.steps, 0);
  assert.equal(r.doc.status, 'failed');
});

test('a regex without the groups a step needs: a usage error naming them', async () => {
  const r = await runCli(['train', '--db', fresh('db'), '--format', 'regex', '--step-regex', 'it ([0-9]+)', '--', 'true']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--step-regex: no named group.*step, loss/);
  const r2 = await runCli(['train', '--db', fresh('db'), '--step-regex', '(?<speed>[0-9]+)', '--', 'true']);
  assert.equal(r2.code, 1);
  assert.match(r2.stderr, /no group 'speed' is known/);
  const r3 = await runCli(['train', '--db', fresh('db')]);
  assert.equal(r3.code, 1);
  assert.match(r3.stderr, /give the trainer's command after --/);
});

test('a 10 MB line and binary output: read cut and counted, every step still read', async () => {
  const script = `head -c 10485760 /dev/zero | tr '\\0' a; echo; head -c 65536 /dev/urandom; echo; ` +
    `exec ${BIN} sim train --steps 10 --step-ms 20`;
  const r = await train({}, ['sh', '-c', script]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.steps, 10);
  assert.equal(r.doc.long_lines, 1);
  assert.ok(r.doc.binary_lines >= 1);
});

test('a --metrics file truncated and then replaced: read again, no step counted twice', async () => {
  const metrics = fresh('metrics');
  const js = path.join(dir, `writer-${++n}.mjs`);
  writeFileSync(js, `
import { appendFileSync, truncateSync, writeFileSync, renameSync } from 'node:fs';
const f = ${JSON.stringify(metrics)};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const line = (k) => JSON.stringify({ step: k, loss: 1, samples: 4 }) + '\\n';
writeFileSync(f, '');
for (let k = 1; k <= 8; k++) { appendFileSync(f, line(k)); await sleep(40); }
truncateSync(f, 0);
await sleep(150);
for (let k = 1; k <= 12; k++) { appendFileSync(f, line(k)); await sleep(40); } // 1..8 again, then on
writeFileSync(f + '.new', '');
renameSync(f + '.new', f);
await sleep(150);
for (let k = 13; k <= 16; k++) { appendFileSync(f, line(k)); await sleep(40); }
await sleep(200);
`);
  const r = await train({ args: ['--metrics', metrics] }, [process.execPath, js]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.steps, 16);
  assert.match(r.stderr, /was truncated after step [1-8]: read again from its start/); // 8, or fewer when the truncation came first
  assert.match(r.stderr, /was replaced after step 12/);
});

// The JSON-lines callback of docs/commands/train.md, in a small PyTorch
// training loop on the CPU.
function pythonWithTorch() {
  for (const py of ['python3', '/usr/bin/python3']) {
    const r = spawnSync(py, ['-c', 'import torch'], { encoding: 'utf8' });
    if (r.status === 0) return py;
  }
  return null;
}

test('a real training loop: PyTorch on the CPU with the documented JSON-lines callback', async (t) => {
  const py = pythonWithTorch();
  if (!py) {
    t.skip('python3 cannot import torch (Debian: apt-get install python3-torch; scripts/deps.sh)');
    return;
  }
  const md = readFileSync(path.join(REPO_ROOT, 'docs', 'commands', 'train.md'), 'utf8');
  const code = md.match(/```python\n([\s\S]*?)```/)[1];
  const script = fresh('train.py');
  writeFileSync(script, code);
  const r = await train({ args: ['--params', '4192'] }, [py, script], { timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.format, 'jsonl');
  assert.equal(r.doc.steps, 60);
  assert.equal(r.doc.samples_source, 'counts');
  assert.ok(r.doc.step_ms.mean > 0 && r.doc.samples_per_s > 0 && r.doc.tokens_per_s > 0);
  assert.equal(r.doc.flops_per_token, 6 * 4192);
  assert.ok(r.doc.peak_framework_bytes === null || r.doc.peak_framework_bytes > 0);
  assert.equal(r.doc.error_lines, 0);
});

test('cost of a training run per step, 1,000 samples and million tokens; compare of two with intervals', async () => {
  const db = fresh('db');
  const prof = (f) => path.join(REPO_ROOT, 'profiles', f);
  for (const [label, ms] of [['fast', '30'], ['slow', '48']]) {
    const r = await train({ db, args: ['--label', label] }, sim('--steps', '30', '--step-ms', ms));
    assert.equal(r.code, 0, r.stderr);
  }
  const c = await runCli(['cost', 'fast', '--db', db, '--profile', prof('rtx4090-workstation.ini'), '--json']);
  assert.equal(c.code, 0, c.stderr);
  const cost = JSON.parse(c.stdout);
  assert.equal(cost.kind, 'train_cost');
  // a month of the platform over the steps of a month at its utilization
  const steps = JSON.parse((await runCli(['show', 'fast', '--db', db, '--json'])).stdout);
  assert.ok(Math.abs(cost.steps_per_s - steps.steps_per_s) < 1e-9);
  assert.ok(Math.abs(cost.cost_per_1k_samples - cost.cost_per_step * 1000 / 8) / cost.cost_per_1k_samples < 1e-9);
  assert.ok(Math.abs(cost.cost_per_million_tokens - cost.cost_per_step * 1e6 / 4096) / cost.cost_per_million_tokens < 1e-9);
  const text = await runCli(['cost', 'fast', '--db', db, '--profile', prof('rtx4090-workstation.ini')]);
  assert.match(text.stdout, /per 1,000 samples/);
  const cmp = await runCli(['compare', 'fast', 'slow', '--db', db, '--profile', prof('rtx4090-workstation.ini'),
    '--json', '--resamples', '2000']);
  assert.equal(cmp.code, 0, cmp.stderr);
  const d = JSON.parse(cmp.stdout);
  assert.equal(d.kind, 'train_compare');
  const st = d.ratios_b_over_a.step_time;
  assert.ok(Math.abs(st.point - d.b.step_ms_mean / d.a.step_ms_mean) < 1e-9);
  assert.ok(st.low < st.point && st.point < st.high, JSON.stringify(st));
  assert.ok(st.point > 1.5 && st.point < 1.7, `48/30 ms: ${st.point}`);
  assert.match(d.reading, /over 50% slower: look for operator fallbacks/);
  assert.ok(Math.abs(d.ratios_b_over_a.samples_per_s.point * st.point - 1) < 1e-6);
  // same profile both sides: cost per step scales with the step time
  assert.ok(Math.abs(d.ratios_b_over_a.cost_per_step.point - st.point) < 1e-6);
  const back = await runCli(['compare', 'slow', 'fast', '--db', db, '--resamples', '1000']);
  assert.match(back.stdout, /B is faster than A/);
  const mixed = await runCli(['compare', 'fast', '/nonexistent', '--db', db]);
  assert.notEqual(mixed.code, 0);
});

test('MFU from a model file read as fit reads it, LoRA counted 4x frozen + 6x trainable', async () => {
  const model = fresh('model');
  mkdirSync(model);
  writeFileSync(path.join(model, 'config.json'), JSON.stringify({
    architectures: ['LlamaForCausalLM'], model_type: 'llama', hidden_size: 4096, intermediate_size: 11008,
    max_position_embeddings: 4096, num_attention_heads: 32, num_hidden_layers: 32, num_key_value_heads: 32,
    rms_norm_eps: 1e-5, tie_word_embeddings: false, torch_dtype: 'float16', vocab_size: 32000,
  }));
  const fit = JSON.parse((await runCli(['fit', model, '--gpu', 'RTX 4090', '--json'])).stdout);
  const params = fit.model.parameters;
  const r = await train({ args: ['--model', model, '--trainable-params', '4e7', '--gpu', 'RTX 4090'] },
                        sim('--steps', '20', '--step-ms', '20', '--tokens-per-step', '512'));
  assert.equal(r.code, 0, r.stderr);
  const perToken = 4 * (params - 4e7) + 6 * 4e7;
  assert.equal(r.doc.flops_per_token, perToken);
  assert.equal(r.doc.lora_estimate, true);
  assert.equal(r.doc.mfu_card, 'RTX 4090');
  assert.ok(Math.abs(r.doc.mfu - perToken * r.doc.tokens_per_s / (r.doc.peak_tflops * 1e12)) < 1e-9);
  const bad = await runCli(['train', '--db', fresh('db'), '--model', '/nonexistent/model', '--', 'true']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--model/);
});

test('telemetry as run samples it: a 300 W fake GPU gives the window\'s energy per step, sample, token', async () => {
  const FAKE = process.env.TC_FAKE_LIB_DIR ?? path.resolve(REPO_ROOT, 'build/tests/fake');
  const db = fresh('db');
  const r = await runCli(['train', '--db', db, '--json', '--telemetry', 'nvml', '--nvml-lib',
    path.join(FAKE, 'libfake_nvml.so'), '--sample-ms', '20', '--', ...sim('--steps', '30', '--step-ms', '40')],
  { env: { FAKE_NVML_ENERGY_RATE_MW: '300000' }, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(r.stdout);
  const span = (d.step_ms.mean * d.step_ms.n) / 1000;
  assert.ok(Math.abs(d.avg_power_w - 300) < 1, `${d.avg_power_w} W`);
  assert.ok(Math.abs(d.energy_j - 300 * span) / d.energy_j < 0.01, `${d.energy_j} J over ${span} s`);
  assert.ok(Math.abs(d.joules_per_step - d.energy_j / d.window_steps) < 1e-6);
  assert.ok(Math.abs(d.joules_per_1k_samples - (1000 * d.energy_j) / (d.samples_per_s * span)) < 1e-3);
  assert.ok(Math.abs(d.joules_per_million_tokens - (1e6 * d.energy_j) / (d.tokens_per_s * span)) < 1e-3);
  assert.ok(d.peak_device_mem_bytes > 0);
  const prof = path.join(REPO_ROOT, 'profiles', 'rtx4090-workstation.ini');
  const c = JSON.parse((await runCli(['cost', String(d.id), '--db', db, '--profile', prof, '--json'])).stdout);
  assert.equal(c.joules_per_step, d.joules_per_step);
});

test('checkpoints: the default lines, or --checkpoint-regex', async () => {
  const script = 'for i in 1 2 3 4 5 6 7 8; do echo "{\\"step\\": $i}"; ' +
    '[ $((i % 4)) = 0 ] && echo "ckpt written to out/$i" && echo "Saving model checkpoint to out/$i"; done; true';
  let r = await train({}, ['sh', '-c', script]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.checkpoints, 2);
  r = await train({ args: ['--checkpoint-regex', '^ckpt written'] }, ['sh', '-c', script]);
  assert.equal(r.doc.checkpoints, 2);
  r = await train({ args: ['--checkpoint-regex', 'never'] }, ['sh', '-c', script]);
  assert.equal(r.doc.checkpoints, 0);
  const bad = await runCli(['train', '--db', fresh('db'), '--checkpoint-regex', '(', '--', 'true']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--checkpoint-regex '\(':/);
});

test('a buffered trainer: its steps arriving together are flagged, not passed off as step times', async () => {
  // twenty lines written at once, as a block-buffered pipe hands them over
  const lines = Array.from({ length: 20 }, (_, i) => `{"step": ${i + 1}}`).join('\\n');
  const r = await train({}, ['sh', '-c', `sleep 0.2; printf '${lines}\\n'`]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.steps, 20);
  assert.equal(r.doc.bunched_steps, r.doc.step_ms.n);
  const text = await runCli(['show', String(r.doc.id), '--db', r.db]);
  assert.match(text.stdout, /WARNING: 14 of 14 steps arrived together .* buffered/);
  // Python's own buffering is turned off for the trainer
  const py = await train({}, ['sh', '-c', 'echo "{\\"step\\": 1, \\"env\\": \\"$PYTHONUNBUFFERED\\"}"']);
  assert.match(py.stderr + py.stdout, /"env": "1"/);
});

test('a progress bar redrawn with carriage returns past 1 MB hides nothing after it', async () => {
  const script = 'i=0; while [ $i -lt 30000 ]; do printf "\\r 50%%|#####     | %d/60000 [00:01<00:01, 1.23it/s]" $i >&2; ' +
    'i=$((i+1)); done; echo >&2; echo "x.py:1: UserWarning: after the bar" >&2; ' +
    'for s in 1 2 3 4 5 6 7 8; do echo "{\\"step\\": $s}"; done';
  const r = await train({}, ['sh', '-c', script], { timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr.slice(-500));
  assert.equal(r.doc.steps, 8);
  assert.equal(r.doc.long_lines, 0);
  assert.equal(r.doc.warning_lines, 1);
  assert.equal(r.doc.warnings[0].message, 'UserWarning: after the bar');
});

test('Lightning\'s CSVLogger metrics.csv, rewritten with a new column, followed with --metrics', async () => {
  const csv = fresh('metrics.csv');
  const js = path.join(dir, `csv-writer-${++n}.mjs`);
  writeFileSync(js, `
import { appendFileSync, writeFileSync, renameSync } from 'node:fs';
const f = ${JSON.stringify(csv)};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const head = 'epoch,step,train/batches_per_sec,train/samples_per_sec,train/items_per_sec,train_loss';
const row = (k) => \`0,\${k},4.0,32.0,16384.0,0.9\\n\`;
let text = head + '\\n';
writeFileSync(f, text);
for (let k = 1; k <= 10; k++) { appendFileSync(f, row(k)); text += row(k); await sleep(30); }
// a validation metric appears: CSVLogger writes the whole file again with the new column
let again = head + ',val_loss\\n' + text.split('\\n').slice(1).filter((l) => l).map((l) => l + ',').join('\\n') + '\\n';
again += '0,10,,,,,1.1\\n';
writeFileSync(f + '.tmp', again);
renameSync(f + '.tmp', f);
await sleep(100);
for (let k = 11; k <= 16; k++) { appendFileSync(f, row(k).trim() + ',\\n'); await sleep(30); }
await sleep(150);
`);
  const r = await train({ args: ['--metrics', csv] }, [process.execPath, js]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.doc.format, 'lightning');
  assert.equal(r.doc.steps, 16);
  assert.equal(r.doc.samples_source, 'trainer_rate');
  assert.equal(r.doc.samples_per_s, 32);
  assert.equal(r.doc.tokens_per_s, 16384);
});
