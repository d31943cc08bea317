// truecost gaps: the shipped example inventories against the example
// support lists, as text and as JSON; the JSON's T_op is the sum of the
// per-operator days; a bad file is a usage error naming file:line.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { REPO_ROOT, runCli, testScope } from './helpers.mjs';

const EX = path.join(REPO_ROOT, 'examples');
const LORA = path.join(EX, 'ops-llama7b-lora-profiler.txt');
const FP16 = path.join(EX, 'ops-fp16-inference.csv');
const ROCM = path.join(EX, 'support-rocm-example.csv');
const CUDA = path.join(EX, 'support-cuda-example.csv');

const near = (a, b, what) => assert.ok(Math.abs(a - b) < 1e-9 * (Math.abs(b) + 1), `${what}: ${a} != ${b}`);

test('gaps text: the LoRA profile against the ROCm example', async () => {
  const r = await runCli(['gaps', '--ops', LORA, '--support', ROCM, '--dtype', 'bf16']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Operator gaps of .*profiler_table, share of self device time/);
  assert.match(r.stdout, /63\.7%\s+aten::mm\s+bf16\s+native\s+low/);
  assert.match(r.stdout, /aten::_flash_attention_backward\s+bf16\s+fallback\s+medium-high\s+TORCH_ROCM_AOTRITON/);
  assert.match(r.stdout, /T_op: 0\.75 \.\. 2\.50 \.\. 6\.00 person-days/);
  assert.match(r.stdout, /not covered by the support list.*aten::index_select/);
  assert.match(r.stdout, /Note: the support list is yours to check/);
  // Sorted by share, largest first.
  const shares = [...r.stdout.matchAll(/^\s+([0-9.]+)%\s+\S+/gm)].map((m) => Number(m[1]));
  assert.ok(shares.length > 10);
  for (let i = 1; i < shares.length; i++) assert.ok(shares[i] <= shares[i - 1], `row ${i} out of order`);
});

test('gaps --json: keys, totals, and t_op_days = the sum of the rows', async () => {
  const r = await runCli(['gaps', '--ops', LORA, '--support', ROCM, '--dtype', 'bf16', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.format, 'profiler_table');
  assert.equal(doc.share_source, 'device_time');
  assert.equal(doc.totals.ops, doc.ops.length);
  assert.equal(doc.totals.skipped_rows, 8);
  const sum = { low: 0, mode: 0, high: 0 };
  let shares = doc.totals.share.other;
  for (const op of doc.ops) {
    for (const k of Object.keys(sum)) sum[k] += op.t_op_days[k];
    assert.ok(['native', 'fallback', 'missing', 'unknown'].includes(op.status), op.status);
    assert.ok(['low', 'medium', 'medium-high', 'high'].includes(op.risk), op.risk);
    assert.equal(typeof op.share, 'number');
  }
  for (const s of ['native', 'fallback', 'missing', 'unknown']) shares += doc.totals.share[s];
  near(shares, 1, 'shares add to 1');
  for (const k of Object.keys(sum)) near(doc.t_op_days[k], sum[k], k);
  near(doc.t_op_days.mode, 2.5, 'mode');
  const mm = doc.ops[0];
  assert.equal(mm.name, 'aten::mm');
  near(mm.share, 401870 / 630975, 'aten::mm share');
  assert.equal(mm.self_time_us, 401870);
  assert.equal(mm.calls, 834);
  const idx = doc.ops.find((o) => o.name === 'aten::index_select');
  assert.equal(idx.status, 'unknown');
  assert.equal(idx.support_op, null);
  assert.equal(idx.match, 'none');
  assert.ok(doc.warnings.some((w) => w.includes('aten::index_select')));
  assert.match(doc.note, /yours to check/);
});

test('gaps: plain CSV against the CUDA example has no gaps; risk patterns apply', async (t) => {
  const r = await runCli(['gaps', '--ops', FP16, '--support', CUDA, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.format, 'plain_csv');
  assert.equal(doc.share_source, 'share');
  assert.deepEqual(doc.t_op_days, { low: 0, mode: 0, high: 0 });
  near(doc.totals.share.native, 0.982, 'native share');
  near(doc.totals.share.other, 0.018, 'other share');

  const sc = testScope(t, 'truecost-gaps-');
  const risks = path.join(sc.dir(), 'risks.csv');
  writeFileSync(risks, 'pattern,class,category\n*copy*,high,layout copies\n');
  const u = await runCli(['gaps', '--ops', FP16, '--support', ROCM, '--risk-patterns', risks, '--json']);
  assert.equal(u.code, 0, u.stderr);
  const copy = JSON.parse(u.stdout).ops.find((o) => o.name === 'aten::copy_');
  assert.equal(copy.risk, 'high');
  assert.equal(copy.risk_from, 'user');
  assert.equal(copy.risk_category, 'layout copies');
});

test('gaps: bad files -> exit 1 naming file:line; unreadable -> 2; usage -> 1', async (t) => {
  const sc = testScope(t, 'truecost-gaps-');
  const dir = sc.dir();
  const badSupport = path.join(dir, 'support.csv');
  writeFileSync(badSupport, '# list\nop,dtype,status\naten::mm,*,native\naten::add,*,sometimes\n');
  let r = await runCli(['gaps', '--ops', FP16, '--support', badSupport]);
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(`${badSupport}:4: status 'sometimes'`), r.stderr);

  const badOps = path.join(dir, 'ops.csv');
  writeFileSync(badOps, 'op,dtype,count\naten::mm,fp16,12\naten::add,fp16,many\n');
  r = await runCli(['gaps', '--ops', badOps, '--support', CUDA]);
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(`${badOps}:3: count 'many'`), r.stderr);

  const noColumn = path.join(dir, 'nocol.csv');
  writeFileSync(noColumn, 'op,dtype\naten::mm,fp16\n');
  r = await runCli(['gaps', '--ops', noColumn, '--support', CUDA]);
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(`${noColumn}:1: no count or share column`), r.stderr);

  r = await runCli(['gaps', '--ops', path.join(dir, 'absent.csv'), '--support', CUDA]);
  assert.equal(r.code, 2, r.stderr);
  r = await runCli(['gaps', '--ops', FP16]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--support FILE are required/);
  r = await runCli(['gaps', '--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Usage: truecost gaps/);
});

// A PyTorch <= 2.4 table printed with group_by_stack_n: a cut name, a
// negative Self CPU, a record_function label and stack lines under rows.
test('gaps: cut names, negative CPU times, record_function labels, stack lines', async (t) => {
  const sc = testScope(t, 'truecost-gaps-');
  const dir = sc.dir();
  const rule = `${'-'.repeat(55)}  ${'------------  '.repeat(4)}${'-'.repeat(40)}  `;
  const row = (name, cpu, total, cuda, calls, src) =>
    `${name.padStart(55)}  ${[cpu, total, cuda, calls].map((c) => c.padStart(12)).join('  ')}  ${src.padEnd(40)}  `;
  const ops = path.join(dir, 'ops.txt');
  writeFileSync(ops, [
    rule,
    row('Name', 'Self CPU', 'CPU total', 'Self CUDA', '# of Calls', 'Source Location'),
    rule,
    row('aten::_scaled_dot_product_efficient_attention_backwa...', '1.000ms', '2.000ms', '3.000ms', '32', 'torch/autograd/graph.py(768): _engine_run_backward'),
    row('', '', '', '', '', 'torch/autograd/__init__.py(347): backward'),
    row('', '', '', '', '', ''),
    row('aten::mm', '-16028.000us', '5.000ms', '1.000ms', '10', 'torch/nn/modules/linear.py(125): forward'),
    row('', '', '', '', '', ''),
    row('model_inference', '9.000ms', '20.000ms', '0.000us', '1', 'infer.py(12): main'),
    row('', '', '', '', '', ''),
    rule,
    'Self CPU time total: 10.000ms',
    'Self CUDA time total: 4.000ms',
    '',
  ].join('\n'));
  const support = path.join(dir, 'support.csv');
  writeFileSync(support, 'op,dtype,status,alternative\naten::mm,*,native,\n' +
    'aten::_scaled_dot_product_efficient_attention_backward,*,missing,math path\n');
  const r = await runCli(['gaps', '--ops', ops, '--support', support, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.totals.ops, 2);
  assert.equal(doc.totals.skipped_labels, 1);
  assert.equal(doc.totals.skipped_rows, 1);
  assert.equal(doc.totals.negative_cpu_times, 1);
  const cut = doc.ops[0];
  assert.equal(cut.status, 'missing');
  assert.equal(cut.match, 'prefix');
  assert.equal(cut.support_op, 'aten::_scaled_dot_product_efficient_attention_backward');
  assert.match(cut.why, /matched by prefix/);
  near(cut.share, 0.75, 'cut op share');
  near(doc.t_op_days.mode, 2, 'T_op mode: one missing operator, no unknown label');
  assert.ok(doc.warnings.some((w) => w.includes('1 negative CPU time (a PyTorch <= 2.4 profiler bug) was taken as 0')), doc.warnings);
  assert.ok(doc.warnings.some((w) => w.includes('record_function label') && w.includes('model_inference')), doc.warnings);

  const text = await runCli(['gaps', '--ops', ops, '--support', support]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /Warning: 1 record_function label was left out/);
});
