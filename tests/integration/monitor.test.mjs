// truecost monitor against fixtures: sysfs trees (tests/fixtures/sysfs) and
// the fake NVML library (tests/fake), through the real code paths. A field a
// sensor does not give is null / "n/a", never 0.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { runCli, tempDir } from './helpers.mjs';

const FIX = process.env.TC_FIXTURES_DIR ?? path.resolve('tests/fixtures');
const FAKE = process.env.TC_FAKE_LIB_DIR ?? path.resolve('build/tests/fake');
const sysfs = (name) => path.join(FIX, 'sysfs', name);
// Keep the host's own vendor libraries out, so only the fixtures are seen.
const NO_NVML = ['--nvml-lib', '/nonexistent/libnvidia-ml.so.1', '--rocm-lib', '/nonexistent/librocm_smi64.so'];

function jsonLines(stdout) {
  return stdout.trim().split('\n').map((l) => JSON.parse(l));
}

test('no sensor at all: exit 2, and why each source was skipped', async () => {
  const empty = tempDir('truecost-mon-');
  const r = await runCli(['monitor', '--count', '1', '--sysfs-root', empty, ...NO_NVML]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^truecost: monitor: no GPU or CPU energy sensor found:/);
  assert.match(r.stderr, /nvml: .*not found/);
  assert.match(r.stderr, /amdgpu: no AMD GPU/);
  assert.match(r.stderr, /rapl: no RAPL powercap zones/);
});

test('an AMD GPU from sysfs: values, and n/a for what sysfs lacks', async () => {
  const r = await runCli(['monitor', '--count', '2', '--interval', '50', '--sysfs-root', sysfs('amdgpu-full'), ...NO_NVML]);
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.split('\n').filter((l) => /^0 /.test(l));
  assert.equal(rows.length, 2, r.stdout);
  assert.match(rows[0], /amdgpu/);
  assert.match(rows[0], / n\/a /, 'no energy counter in sysfs: n/a, not 0');

  const j = await runCli(['monitor', '--json', '--count', '3', '--interval', '20', '--sysfs-root', sysfs('amdgpu-full'), ...NO_NVML]);
  const lines = jsonLines(j.stdout);
  assert.equal(lines.length, 3);
  for (const x of lines) {
    assert.equal(x.backend, 'amdgpu');
    assert.equal(typeof x.power_w, 'number');
    assert.equal(x.power_instant, true, 'power1_input is instantaneous');
    assert.equal(x.energy_j, null);
    assert.equal(typeof x.mem_total_bytes, 'number');
  }
  const avg = jsonLines((await runCli(['monitor', '--json', '--count', '1', '--sysfs-root', sysfs('amdgpu-average-only'), ...NO_NVML])).stdout);
  assert.equal(avg[0].power_instant, false, 'power1_average is an average');
  assert.equal(avg[0].temp_hot_c, null);
});

test('CPU packages from RAPL: energy counted from the start, power from the second sample', async () => {
  const r = await runCli(['monitor', '--json', '--backend', 'rapl', '--count', '2', '--interval', '20', '--sysfs-root', sysfs('rapl-two-packages')]);
  assert.equal(r.code, 0, r.stderr);
  const lines = jsonLines(r.stdout);
  assert.deepEqual(lines.map((x) => x.name), ['package-0', 'package-1', 'package-0', 'package-1']);
  assert.equal(lines[0].energy_what, 'CPU package energy');
  assert.equal(lines[0].power_w, null, 'no power before a second reading');
  assert.equal(lines[0].energy_j, 0);
  assert.equal(typeof lines[2].power_w, 'number');
});

test('NVIDIA through the fake NVML: power, energy, memory; unsupported fields are null', async () => {
  const env = { FAKE_NVML_DEVICES: '2', FAKE_NVML_ENERGY_MJ: '1000,1500,2500', FAKE_NVML_NOT_SUPPORTED: 'temperature' };
  const r = await runCli(['monitor', '--json', '--backend', 'nvml', '--count', '2', '--interval', '20', '--nvml-lib', path.join(FAKE, 'libfake_nvml.so')], { env });
  assert.equal(r.code, 0, r.stderr);
  const lines = jsonLines(r.stdout);
  assert.equal(lines.length, 4);
  assert.equal(lines[0].backend, 'nvml');
  assert.equal(lines[0].energy_what, 'GPU board energy');
  assert.equal(lines[0].power_instant, true);
  assert.equal(lines[0].temp_c, null, 'NOT_SUPPORTED is null, never 0');
  assert.equal(lines[0].energy_j, 0);
  assert.equal(lines[2].energy_j, 0.5, '1000 -> 1500 mJ');
});

test('AMD through the fake ROCm SMI: energy counter x resolution, junction temperature, n/a fields', async () => {
  const env = {
    FAKE_RSMI_DEVICES: '2',
    FAKE_RSMI_ENERGY_COUNTS: '1000000,1100000,1200000',
    FAKE_RSMI_NOT_SUPPORTED: 'busy',
  };
  const r = await runCli(['monitor', '--json', '--backend', 'rocm', '--count', '2', '--interval', '20', '--rocm-lib', path.join(FAKE, 'libfake_rocm.so')], { env });
  assert.equal(r.code, 0, r.stderr);
  const lines = jsonLines(r.stdout);
  assert.equal(lines.length, 4);
  assert.deepEqual(lines.map((x) => x.device), [0, 1, 0, 1]);
  const [a, , b] = lines;
  assert.equal(a.backend, 'rocm');
  assert.equal(a.name, 'AMD Instinct MI300X');
  assert.equal(a.energy_what, 'GPU energy counter');
  assert.equal(a.power_w, 245);
  assert.equal(a.power_instant, false, 'rsmi_dev_power_ave_get is an average');
  assert.equal(a.power_limit_w, 750);
  assert.equal(a.energy_j, 0);
  assert.equal(b.energy_j, 1.53, '100000 counts x 15.3 uJ');
  assert.equal(a.util_pct, null, 'NOT_SUPPORTED is null, never 0');
  assert.equal(a.mem_util_pct, 31);
  // monitor's JSON carries 6 significant digits, so bytes are compared in GiB.
  assert.equal(Math.round(a.mem_used_bytes / 2 ** 30), 24);
  assert.equal(Math.round(a.mem_total_bytes / 2 ** 30), 192);
  assert.equal(a.temp_c, 51.5);
  assert.equal(a.temp_hot_c, 68.25);
  assert.equal(a.clock_sm_mhz, null);
  assert.equal(a.error, null);

  // auto: the library's GPUs are not listed a second time from sysfs.
  const both = await runCli(['monitor', '--json', '--count', '1', '--sysfs-root', sysfs('amdgpu-full'), '--nvml-lib', '/nonexistent/libnvidia-ml.so.1', '--rocm-lib', path.join(FAKE, 'libfake_rocm.so')], { env });
  assert.equal(both.code, 0, both.stderr);
  assert.deepEqual(jsonLines(both.stdout).map((x) => x.backend), ['rocm', 'rocm']);

  const missing = await runCli(['monitor', '--backend', 'rocm', '--count', '1', '--rocm-lib', '/nonexistent/librocm_smi64.so']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^truecost: monitor: rocm: \/nonexistent\/librocm_smi64.so not found: ROCm SMI is not installed \(or use the amdgpu sysfs backend\)/);
});

test('bad options: exit 1 naming them'
, async () => {
  for (const [args, re] of [
    [['--backend', 'bogus'], /--backend 'bogus'/],
    [['--interval', '5'], /--interval/],
    [['--count', '0'], /--count/],
    [['extra'], /unexpected argument/],
  ]) {
    const r = await runCli(['monitor', ...args]);
    assert.equal(r.code, 1, `${args}: ${r.stderr}`);
    assert.match(r.stderr, re);
  }
});

test('an explicit backend that finds nothing: exit 2 with its reason', async () => {
  const empty = tempDir('truecost-mon-');
  const r = await runCli(['monitor', '--backend', 'amdgpu', '--count', '1', '--sysfs-root', empty]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^truecost: monitor: amdgpu: no AMD GPU/);
});

test('the nvidia-smi fallback, through a fake command: values, and [N/A] as null', async () => {
  const cmd = path.join(FIX, 'smi', 'bin', 'nvidia-smi');
  const r = await runCli(['monitor', '--json', '--backend', 'nvidia-smi', '--nvidia-smi', cmd, '--count', '1']);
  assert.equal(r.code, 0, r.stderr);
  const lines = jsonLines(r.stdout);
  assert.equal(lines.length, 2);
  assert.equal(lines[0].backend, 'nvidia-smi');
  assert.equal(lines[0].power_instant, false, 'power.draw is an average');
  assert.equal(lines[0].energy_j, null, 'nvidia-smi has no energy counter');
  assert.equal(lines[1].power_w, null, '[N/A] is null, not 0');
  const broken = await runCli(['monitor', '--backend', 'nvidia-smi', '--nvidia-smi', path.join(FIX, 'smi', 'bin-broken', 'nvidia-smi'), '--count', '1']);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /NVIDIA driver is not loaded/);
});
