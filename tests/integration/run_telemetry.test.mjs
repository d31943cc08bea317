// truecost run with hardware telemetry: samples stored with the run, energy
// over the measured window, J/token, the idle baseline; through the fake
// NVML library (tests/fake) and fixture sysfs trees.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { parseCsv, runCli, testScope } from './helpers.mjs';

const FIX = process.env.TC_FIXTURES_DIR ?? path.resolve('tests/fixtures');
const FAKE = process.env.TC_FAKE_LIB_DIR ?? path.resolve('build/tests/fake');
const FAST = ['--ttft-ms', '5', '--decode-tps', '200'];

async function runJson(args, env) {
  const r = await runCli(['run', ...args, '--json', '--no-progress'], { env, timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  return { doc: JSON.parse(r.stdout), stderr: r.stderr };
}

test('fake NVML at 300 W: energy by counter over the measured window, J/token, idle, samples exported', async (t) => {
  const sc = testScope(t, 'truecost-tel-');
  const db = path.join(sc.dir(), 'db');
  const sim = await sc.sim(FAST);
  const env = { FAKE_NVML_ENERGY_RATE_MW: '300000' };
  const { doc } = await runJson([sim.url, '--db', db, '-n', '6', '--max-tokens', '40', '--telemetry', 'nvml',
    '--nvml-lib', path.join(FAKE, 'libfake_nvml.so'), '--sample-ms', '20', '--idle-s', '0.3'], env);
  const e = doc.energy;
  assert.ok(e && Array.isArray(e.devices), JSON.stringify(doc.energy));
  assert.equal(e.devices.length, 1);
  const d = e.devices[0];
  assert.equal(d.backend, 'nvml');
  assert.equal(d.energy_what, 'GPU board energy');
  assert.equal(d.method, 'counter');
  // The fake's counter runs at exactly 300 W: energy / seconds is 300 W.
  assert.ok(Math.abs(d.avg_power_w - 300) < 1, `avg ${d.avg_power_w} W`);
  // a closing sample after the last request: the samples cover the window
  assert.ok(d.coverage > 0.999, `coverage ${d.coverage}`);
  // energy_j is the window's: 300 W over the covered seconds, and the same
  // power over the part the samples missed (coverage says how much).
  assert.ok(Math.abs(d.energy_j - (300 * d.seconds) / d.coverage) < 0.5, `${d.energy_j} J over ${d.seconds} s, coverage ${d.coverage}`);
  assert.ok(d.seconds > 0.5 * doc.duration_s, `the window covers the measured run (${d.seconds} of ${doc.duration_s} s)`);
  assert.ok(Math.abs(d.j_per_token - d.energy_j / doc.tokens.output) < 1e-9);
  assert.ok(Math.abs(e.total.tokens_per_j - doc.tokens.output / d.energy_j) < 1e-9);
  assert.equal(typeof d.idle_power_w, 'number', 'idle baseline from --idle-s');
  assert.equal(d.max_temp_c, 65);

  const show = JSON.parse((await runCli(['show', String(doc.run.id), '--db', db, '--json'])).stdout);
  assert.deepEqual(show.energy, doc.energy, 'computed again on read, the same');

  const csv = parseCsv((await runCli(['export', String(doc.run.id), '--db', db, '--what', 'samples'])).stdout);
  assert.equal(csv[0].slice(0, 4).join(','), 'device,name,t_s,power_w');
  assert.ok(csv.length > 20, `${csv.length - 1} samples at 20 ms`);
  const js = JSON.parse((await runCli(['export', String(doc.run.id), '--db', db, '--what', 'samples', '--format', 'json'])).stdout);
  assert.equal(js.length, csv.length - 1);
  assert.equal(js[0].temp_hot_c, null, 'a field the sensor lacks is null, not 0');
});

test('no sensor: the run goes on, says so once, energy is null', async (t) => {
  const sc = testScope(t, 'truecost-tel-');
  const dir = sc.dir();
  const sim = await sc.sim(FAST);
  const { doc, stderr } = await runJson([sim.url, '--db', path.join(dir, 'db'), '-n', '2', '--max-tokens', '4',
    '--sysfs-root', dir, '--nvml-lib', '/nonexistent/libnvidia-ml.so.1', '--rocm-lib', '/nonexistent/librocm_smi64.so']);
  assert.equal(doc.energy, null);
  assert.equal(doc.requests.completed, 2);
  assert.equal((stderr.match(/no GPU or CPU energy sensor found/g) ?? []).length, 1, stderr);
  const none = await runJson([sim.url, '--db', path.join(dir, 'db'), '-n', '1', '--max-tokens', '4', '--telemetry', 'none']);
  assert.equal(none.doc.energy, null);
  assert.doesNotMatch(none.stderr, /energy sensor/, '--telemetry none is silent');
  const table = await runCli(['show', String(none.doc.run.id), '--db', path.join(dir, 'db')]);
  assert.match(table.stdout, /^energy +not available/m);
});

test('CPU package energy from RAPL fixtures; a bad --telemetry is a usage error', async (t) => {
  const sc = testScope(t, 'truecost-tel-');
  const dir = sc.dir();
  const sim = await sc.sim(FAST);
  const { doc } = await runJson([sim.url, '--db', path.join(dir, 'db'), '-n', '2', '--max-tokens', '8',
    '--telemetry', 'rapl', '--sysfs-root', path.join(FIX, 'sysfs', 'rapl-two-packages'), '--sample-ms', '20']);
  assert.equal(doc.energy.devices.length, 2);
  assert.deepEqual(doc.energy.devices.map((d) => d.energy_what), ['CPU package energy', 'CPU package energy']);
  // The fixture's counters never move: 0 J, honestly, not "n/a".
  assert.equal(doc.energy.devices[0].energy_j, 0);
  const bad = await runCli(['run', sim.url, '--db', path.join(dir, 'db'), '--telemetry', 'bogus']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--telemetry 'bogus'/);
});

test('a GPU lost mid-run: its later samples carry nothing, the run goes on and completes', async (t) => {
  const sc = testScope(t, 'truecost-tel-');
  const db = path.join(sc.dir(), 'db');
  const sim = await sc.sim(FAST);
  const env = { FAKE_NVML_ENERGY_RATE_MW: '300000', FAKE_NVML_LOST_AFTER: '5' };
  const { doc } = await runJson([sim.url, '--db', db, '-n', '4', '--max-tokens', '40', '--telemetry', 'nvml',
    '--nvml-lib', path.join(FAKE, 'libfake_nvml.so'), '--sample-ms', '20'], env);
  assert.equal(doc.run.status, 'complete');
  assert.equal(doc.requests.completed, 4);
  const rows = JSON.parse((await runCli(['export', String(doc.run.id), '--db', db, '--what', 'samples', '--format', 'json'])).stdout);
  const good = rows.filter((r) => r.power_w !== null);
  assert.ok(good.length >= 1 && good.length <= 6, `${good.length} good samples before the loss`);
  assert.ok(rows.length > good.length + 5, 'sampling went on after the loss');
  const firstBad = rows.findIndex((r) => r.power_w === null);
  assert.ok(rows.slice(firstBad).every((r) => r.power_w === null && r.energy_j === null), 'never valid again');
});

test('a run on a GPU in the spec table shows its decode speed as a share of the bandwidth bound', async (t) => {
  const sc = testScope(t, 'truecost-roof-');
  const db = path.join(sc.dir(), 'db');
  const sim = await sc.sim(FAST);
  const { doc } = await runJson([sim.url, '--db', db, '-n', '4', '--max-tokens', '20', '--telemetry', 'nvml',
    '--nvml-lib', path.join(FAKE, 'libfake_nvml.so'), '--sample-ms', '20', '--idle-s', '0'], {});
  const r = doc.roofline; // the fake NVML is an "NVIDIA H100 80GB HBM3"
  assert.ok(r, 'roofline present');
  assert.match(r.gpu, /H100/);
  assert.equal(r.bandwidth_gb_s, 3350);
  assert.ok(Math.abs(r.decode_ceiling_tokens_per_s - 3350e9 / r.weight_bytes) < 1e-6 * r.decode_ceiling_tokens_per_s);
  assert.ok(Math.abs(r.measured_decode_tokens_per_s - doc.decode_tokens_per_s.p50) < 1e-9);
  assert.ok(Math.abs(r.percent_of_ceiling - 100 * r.measured_decode_tokens_per_s / r.decode_ceiling_tokens_per_s) < 1e-9);
  assert.equal(typeof r.reading, 'string');
  const show = await runCli(['show', String(doc.run.id), '--db', db]);
  assert.match(show.stdout, /Bandwidth bound: H100 SXM, 3350 GB\/s/);
  assert.match(show.stdout, /measured decode p50 [\d.]+ tokens\/s = \d+% of the bound/);
});

test('a named telemetry source that is not there: exit 2, and the run it began is stored as failed', async (t) => {
  const sc = testScope(t, 'truecost-telfail-');
  const db = path.join(sc.dir(), 'db');
  const sim = await sc.sim(FAST);
  const r = await runCli(['run', sim.url, '--db', db, '-n', '2', '--telemetry', 'nvml',
    '--nvml-lib', '/nonexistent/libnvidia-ml.so.1', '--no-progress']);
  assert.equal(r.code, 2, r.stderr);
  const runs = JSON.parse((await runCli(['runs', '--db', db, '--json'])).stdout);
  assert.equal(runs.length, 1);
  assert.equal(runs[0].status ?? runs[0].run?.status, 'failed', JSON.stringify(runs[0]));
});
