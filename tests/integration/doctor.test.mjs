// truecost doctor against the fixture trees in tests/fixtures/doctor
// (--root), without touching the network (--no-server): the exit status is
// the worst check (0 ok, 1 warnings, 2 a failure), and --json is one object
// {checks:[{id,title,status,evidence,fix}], status}.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { runCli, tempDir } from './helpers.mjs';

const FIX = process.env.TC_FIXTURES_DIR ?? path.resolve('tests/fixtures');
const FAKE = process.env.TC_FAKE_LIB_DIR ?? path.resolve('build/tests/fake');
const tree = (name) => path.join(FIX, 'doctor', name);
const NO_ROCM = ['--rocm-lib', '/nonexistent/librocm_smi64.so'];

const dirs = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function doctor(name, extra = [], nvml = '/nonexistent/libnvidia-ml.so.1') {
  const dir = tempDir('truecost-doctor-');
  dirs.push(dir);
  const env = { TRUECOST_DB: path.join(dir, 'truecost.db') };
  return runCli(['doctor', '--root', tree(name), '--no-server', '--user', 'alice', '--nvml-lib', nvml, ...NO_ROCM, ...extra], { env });
}

test('healthy NVIDIA tree: every check ok or skip, exit 0', async () => {
  const r = await doctor('healthy-nvidia', [], path.join(FAKE, 'libfake_nvml.so'));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^ok {3}NVIDIA kernel module loaded$/m);
  assert.match(r.stdout, /^ok {3}NVIDIA driver and library versions match$/m);
  assert.match(r.stdout, /^skip a local inference server answers$/m);
  assert.doesNotMatch(r.stdout, /^(WARN|FAIL) /m);
  assert.match(r.stdout, /Everything checked is fine\./);
});

test('no ROCm on an AMD host: a warning with its fix, exit 1', async () => {
  const r = await doctor('amd-no-rocm');
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /^WARN ROCm installed\n {5}no \/opt\/rocm\/\.info\/version\n {5}fix: .*amdgpu-install --usecase=rocm/m);
  assert.doesNotMatch(r.stdout, /^FAIL /m);
});

test('NVIDIA open kernel module: its version read right, exit 0', async () => {
  for (const [name, source] of [['nvidia-open', '/proc/driver/nvidia/version'], ['nvidia-open-sysfs', '/sys/module/nvidia/version']]) {
    const r = await doctor(name, ['--json'], path.join(FAKE, 'libfake_nvml.so'));
    assert.equal(r.code, 0, `${name}: ${r.stdout}${r.stderr}`);
    const v = JSON.parse(r.stdout).checks.find((c) => c.id === 'nvidia.version');
    assert.equal(v.status, 'ok', `${name}: ${v.evidence}`);
    assert.equal(v.evidence, `kernel module 550.54.15 (${source}); NVML library 550.54.15`);
  }
});

test('Secure Boot refusing the NVIDIA module: failures, exit 2', async () => {
  const r = await doctor('nvidia-secureboot');
  assert.equal(r.code, 2, r.stdout + r.stderr);
  assert.match(r.stdout, /^FAIL Secure Boot allows the NVIDIA module\n {5}Secure Boot enabled.*nvidia\.ko has no signature.*\n {5}fix: sign the module: sudo mokutil --import/m);
  assert.match(r.stdout, /^FAIL NVIDIA kernel module loaded$/m);
});

test('Secure Boot on but not what stops nvidia: no driver, nouveau, a signed or compressed module', async () => {
  const want = {
    'nvidia-secureboot-nodriver': /^WARN Secure Boot allows the NVIDIA module\n {5}.*no nvidia module exists for kernel 6\.8\.0-45-generic.*\n {5}fix: see the module and DKMS checks/m,
    'nvidia-secureboot-nouveau': /^skip Secure Boot allows the NVIDIA module\n {5}.*nouveau holds the GPU: see the nouveau check/m,
    'nvidia-secureboot-signed': /^WARN Secure Boot allows the NVIDIA module\n {5}.*\/lib\/modules\/6\.8\.0-45-generic\/kernel\/nvidia-550\/nvidia\.ko is signed.*\n {5}fix: .*"Key was rejected by service".*mokutil --import/m,
    'nvidia-secureboot-zst': /^WARN Secure Boot allows the NVIDIA module\n {5}.*nvidia\.ko\.zst is compressed: whether it is signed cannot be told/m,
  };
  for (const [name, line] of Object.entries(want)) {
    const r = await doctor(name);
    assert.equal(r.code, 2, `${name}: ${r.stdout}${r.stderr}`); // the module (or nouveau) check fails
    assert.match(r.stdout, line, name);
    assert.doesNotMatch(r.stdout, /sign the module/, name);
  }
});

test('--json: one object, every check with id, title, status, evidence and fix', async () => {
  for (const [name, want] of [['healthy-amd', 0], ['amd-no-rocm', 1], ['nvidia-mismatch', 2]]) {
    const nvml = name.startsWith('nvidia') ? path.join(FAKE, 'libfake_nvml.so') : undefined;
    const r = await doctor(name, ['--json'], nvml);
    assert.equal(r.code, want, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(j).sort(), ['checks', 'status']);
    assert.equal(j.status, want);
    assert.ok(j.checks.length >= 20);
    const ids = new Set();
    for (const c of j.checks) {
      assert.deepEqual(Object.keys(c).sort(), ['evidence', 'fix', 'id', 'status', 'title']);
      assert.match(c.id, /^[a-z]+\.[a-z_]+$/);
      assert.ok(['ok', 'warn', 'fail', 'skip'].includes(c.status), c.status);
      for (const k of ['title', 'evidence', 'fix']) assert.equal(typeof c[k], 'string');
      assert.ok(!ids.has(c.id), `duplicate id ${c.id}`);
      ids.add(c.id);
    }
    const worst = j.checks.some((c) => c.status === 'fail') ? 2 : j.checks.some((c) => c.status === 'warn') ? 1 : 0;
    assert.equal(worst, want);
  }
  const j = JSON.parse((await doctor('nvidia-mismatch', ['--json'], path.join(FAKE, 'libfake_nvml.so'))).stdout);
  const v = j.checks.find((c) => c.id === 'nvidia.version');
  assert.equal(v.status, 'fail');
  assert.match(v.evidence, /kernel module 550\.90\.07.*NVML library 550\.54\.15/);
  assert.match(v.fix, /reboot/);
});

test('usage errors exit 1, a root that is not a directory exits 2', async () => {
  const u = await runCli(['doctor', '--bogus']);
  assert.equal(u.code, 1);
  assert.match(u.stderr, /^truecost: doctor: unknown or incomplete option '--bogus'/);
  const b = await runCli(['doctor', '--root', '/nonexistent/tree', '--no-server']);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /^truecost: doctor: root '\/nonexistent\/tree' is not a directory/);
  const h = await runCli(['doctor', '--help']);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /Exit status: 0 every check ok; 1 warnings only/);
});
