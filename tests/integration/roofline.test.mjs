// truecost roofline: a run measured against `truecost sim` (an 8.0B Q4_K_M
// model, as its /api/show and /api/ps say) checked against an RTX 4090's
// bandwidth; the table with its sources; a bad --gpu-specs file names its
// line.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { runCli, testScope } from './helpers.mjs';

const FAST = ['--ttft-ms', '5', '--decode-tps', '200'];
const HEADER = 'name,vendor,memory_gb,bandwidth_gb_s,fp16_dense_tflops,board_power_w,launch_price_usd,match,source';

async function measuredRun(t, extra = []) {
  const sc = testScope(t, 'truecost-roofline-');
  const db = path.join(sc.dir(), 'db');
  const sim = await sc.sim(FAST);
  const r = await runCli(['run', sim.url, '--db', db, '-n', '4', '--max-tokens', '20', '--telemetry', 'none',
    '--json', '--no-progress', ...extra], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  return { sc, db, id: String(JSON.parse(r.stdout).run.id) };
}

test('roofline --gpu "RTX 4090" --json: ceiling from the model bytes, percentage from the median', async (t) => {
  const { db, id } = await measuredRun(t);
  const r = await runCli(['roofline', id, '--db', db, '--gpu', 'RTX 4090', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.simulated, true);
  assert.equal(doc.gpu.spec.name, 'RTX 4090');
  assert.equal(doc.gpu.spec.bandwidth_gb_s, 1008);
  assert.match(doc.gpu.spec.source, /^https:\/\//);
  // The simulator says 8.0B parameters at Q4_K_M (4.84 bits per weight).
  assert.equal(doc.model.parameters, 8e9);
  assert.equal(doc.model.quantization, 'Q4_K_M');
  assert.equal(doc.model.weight_bytes_source, 'parameters x quantisation');
  const bytes = (8e9 * 4.84) / 8;
  assert.ok(Math.abs(doc.model.weight_bytes - bytes) < 1, `${doc.model.weight_bytes}`);
  assert.equal(doc.model.loaded_bytes, 4920753328);
  assert.ok(Math.abs(doc.decode_ceiling_tokens_per_s - 1008e9 / bytes) < 1e-6);
  assert.ok(Math.abs(doc.prefill_ceiling_tokens_per_s - 165.2e12 / (2 * 8e9)) < 1e-6);
  // The simulator decodes at ~200 tokens/s: about 96% of 208.
  const measured = doc.measured_decode_tokens_per_s;
  assert.ok(measured > 120 && measured < 260, `measured ${measured}`);
  assert.ok(Math.abs(doc.percent_of_ceiling - (100 * measured) / doc.decode_ceiling_tokens_per_s) < 1e-9);
  assert.equal(doc.measured_requests, 4);
  assert.equal(typeof doc.reading, 'string');
  assert.equal(doc.per_stream, false);

  const text = await runCli(['roofline', id, '--db', db, '--gpu', 'NVIDIA GeForce RTX 4090']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^SIMULATED Bandwidth ceiling of run/);
  assert.match(text.stdout, /Decode ceiling, one stream: +208\.3 tokens\/s/);
  assert.match(text.stdout, /% of the bandwidth bound/);

  // --model-bytes overrides the estimate: 1008 GB/s over 10.08 GB = 100 tokens/s.
  const given = await runCli(['roofline', id, '--db', db, '--gpu', 'RTX 4090', '--model-bytes', '10.08e9', '--json']);
  assert.equal(given.code, 0, given.stderr);
  const g = JSON.parse(given.stdout);
  assert.equal(g.model.weight_bytes_source, 'given');
  assert.ok(Math.abs(g.decode_ceiling_tokens_per_s - 100) < 1e-9);
  assert.match(g.reading, /above the bound/);
});

test('roofline: a GPU not in the table -> exit 2 naming --gpu-specs; a user row fixes it', async (t) => {
  const { sc, db, id } = await measuredRun(t, ['-c', '2']);
  const miss = await runCli(['roofline', id, '--db', db, '--gpu', 'Imaginary GPU 9000']);
  assert.equal(miss.code, 2);
  assert.match(miss.stderr, /'Imaginary GPU 9000' is not in the table; add a row with --gpu-specs FILE/);
  const specs = path.join(sc.dir(), 'mine.csv');
  writeFileSync(specs, `# mine\n${HEADER}\nImaginary 9000,Acme,32,2000,,300,,Imaginary GPU,my lab\n`);
  const r = await runCli(['roofline', id, '--db', db, '--gpu', 'Imaginary GPU 9000', '--gpu-specs', specs, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.gpu.spec.name, 'Imaginary 9000');
  assert.equal(doc.gpu.spec.origin, `${specs}:3`);
  assert.equal(doc.prefill_ceiling_tokens_per_s, null);
  assert.match(doc.prefill_note, /no dense FP16 figure/);
  assert.equal(doc.concurrency, 2);
  assert.equal(doc.per_stream, true);
  const text = await runCli(['roofline', id, '--db', db, '--gpu', 'Imaginary GPU 9000', '--gpu-specs', specs]);
  assert.match(text.stdout, /concurrency 2; the single-stream bound applies to each stream/);
});

test('roofline --list: every row with its source; --json; user rows first', async (t) => {
  const r = await runCli(['roofline', '--list']);
  assert.equal(r.code, 0, r.stderr);
  for (const name of ['H100 SXM', 'H200 SXM', 'A100 80GB SXM', 'L40S', 'RTX 4090', 'RTX 3090', 'RTX 4060',
    'MI300X', 'MI250X', 'RX 7900 XTX', 'Radeon PRO W7900', 'RX 7600'])
    assert.match(r.stdout, new RegExp(`^${name} `, 'm'), name);
  assert.match(r.stdout, /source: https:\/\/www\.amd\.com\//);
  const j = await runCli(['roofline', '--list', '--json']);
  const rows = JSON.parse(j.stdout);
  assert.equal(rows.length, 12);
  for (const row of rows) assert.match(row.source, /^https:\/\//, row.name);
  const h100 = rows.find((x) => x.name === 'H100 SXM');
  assert.equal(h100.fp16_dense_tflops, 989.4); // dense, not the 1979 sparse figure
  assert.equal(h100.launch_price_usd, null);

  const sc = testScope(t, 'truecost-roofline-');
  const specs = path.join(sc.dir(), 'mine.csv');
  writeFileSync(specs, `${HEADER}\nMine,Acme,,100,,,,mine,\n`);
  const mine = JSON.parse((await runCli(['roofline', '--list', '--json', '--gpu-specs', specs])).stdout);
  assert.equal(mine.length, 13);
  assert.equal(mine[0].name, 'Mine');
});

test('roofline: a bad --gpu-specs file -> exit 1 naming file:line and column; usage errors', async (t) => {
  const sc = testScope(t, 'truecost-roofline-');
  const bad = path.join(sc.dir(), 'bad.csv');
  writeFileSync(bad, `# my cards\n${HEADER}\nGood,Acme,24,900,,,,good,\nBad,Acme,24,fast,,,,bad,\n`);
  const r = await runCli(['roofline', '--list', '--gpu-specs', bad]);
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(`${bad}:4: column bandwidth_gb_s: 'fast' is not a positive number`), r.stderr);
  const missing = await runCli(['roofline', '--list', '--gpu-specs', path.join(sc.dir(), 'none.csv')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /none\.csv: No such file/);
  const noRun = await runCli(['roofline']);
  assert.equal(noRun.code, 1);
  assert.match(noRun.stderr, /which run\?/);
  const badParams = await runCli(['roofline', '1', '--params', 'many']);
  assert.equal(badParams.code, 1);
  assert.match(badParams.stderr, /--params: 'many' is not a parameter count/);
});
