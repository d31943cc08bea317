// truecost env: the fingerprint from fixture trees (tests/fixtures/env),
// the server block against `truecost sim`, and --diff's exit statuses.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { DEFAULT_MODEL, runCli, testScope } from './helpers.mjs';

const FIX = process.env.TC_FIXTURES_DIR ?? path.resolve('tests/fixtures');
const tree = (name) => path.join(FIX, 'env', name);
// Keep the host's own GPUs out: only the tree is described.
const NO_GPU_LIBS = ['--nvml-lib', '/nonexistent/libnvidia-ml.so.1', '--rocm-lib', '/nonexistent/librocm_smi64.so',
  '--nvidia-smi', '/nonexistent/nvidia-smi', '--rocm-smi', '/nonexistent/rocm-smi'];
const KEYS = ['os', 'cpu', 'memory_bytes', 'disk', 'gpus', 'server', 'truecost'];

async function fingerprint(args) {
  const r = await runCli(['env', '--json', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('env --json --root TREE: every key, values from the tree, null for what it lacks', async () => {
  const fp = await fingerprint(['--root', tree('debian-nvidia'), '--telemetry', 'auto', ...NO_GPU_LIBS]);
  assert.deepEqual(Object.keys(fp), KEYS);
  assert.deepEqual(Object.keys(fp.os), ['name', 'version', 'kernel', 'virtualisation']);
  assert.equal(fp.os.name, 'Debian GNU/Linux 12 (bookworm)');
  assert.deepEqual(fp.cpu, { model: 'AMD EPYC 7763 64-Core Processor', sockets: 2, cores: 4, threads: 8 });
  assert.equal(fp.memory_bytes, 263846752 * 1024);
  assert.equal(fp.disk.device, 'nvme0n1p2');
  assert.equal(fp.disk.rotational, false);
  assert.equal(fp.gpus.length, 1);
  assert.deepEqual(Object.keys(fp.gpus[0]), ['vendor', 'name', 'memory_bytes', 'driver', 'runtime', 'power_limit_w', 'pci_id']);
  assert.equal(fp.gpus[0].vendor, 'NVIDIA');
  assert.equal(fp.gpus[0].memory_bytes, null);
  assert.equal(fp.server, null, '--root: no local server is looked for');
  assert.equal(typeof fp.truecost.version, 'string');

  const wsl = await fingerprint(['--root', tree('wsl2')]);
  assert.equal(wsl.os.virtualisation, 'wsl2');
  assert.equal(wsl.cpu.sockets, null);
  assert.deepEqual(wsl.gpus, []);
});

test('env --root of a Kubernetes pod: virtualisation container, not none', async () => {
  // Its cgroup names kubepods and cri-containerd, its root is an overlay; no /.dockerenv.
  const fp = await fingerprint(['--root', tree('k8s'), ...NO_GPU_LIBS]);
  assert.equal(fp.os.virtualisation, 'container');
  const r = await runCli(['env', '--root', tree('k8s-secrets'), ...NO_GPU_LIBS]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^OS +.*virtualisation: container$/m);
  const host = await fingerprint(['--root', tree('docker-host'), ...NO_GPU_LIBS]);
  assert.equal(host.os.virtualisation, 'none', 'a host running Docker is not itself a container');
});

test('env without --json: a readable block, n/a for unknown fields', async () => {
  const r = await runCli(['env', '--root', tree('ubuntu-amd')]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^OS +Ubuntu 24\.04\.1 LTS \(version 24\.04\), kernel 6\.8\.0-45-generic, virtualisation: none$/m);
  assert.match(r.stdout, /^CPU +AMD Ryzen 9 7950X 16-Core Processor: 1 sockets, 4 cores, 8 threads$/m);
  assert.match(r.stdout, /^GPU 0 +AMD n\/a, 24\.0 GiB, driver n\/a, runtime ROCm 6\.1\.2, power limit n\/a$/m);
  assert.match(r.stdout, /^Server +none$/m);
  assert.match(r.stdout, /^truecost +/m);
});

test('env URL against truecost sim: the server and the model from /api/show and /api/ps', async (t) => {
  const scope = testScope(t, 'truecost-env-');
  const sim = await scope.sim();
  const fp = await fingerprint([sim.url, '--root', tree('wsl2')]);
  assert.equal(fp.server.url, sim.url);
  assert.equal(fp.server.kind, 'Ollama');
  assert.equal(fp.server.api, 'ollama');
  assert.equal(fp.server.simulated, true);
  assert.equal(typeof fp.server.version, 'string');
  assert.deepEqual(fp.server.models, [DEFAULT_MODEL]);
  assert.deepEqual(fp.server.model, {
    name: DEFAULT_MODEL,
    family: 'llama',
    parameter_size: '8.0B',
    quantization_level: 'Q4_K_M',
    context_length: 8192,
    size_bytes: 4920753328,
    size_vram_bytes: 4920753328,
    loaded: true,
  });

  const text = await runCli(['env', sim.url, '--root', tree('wsl2')]);
  assert.match(text.stdout, /^Server +http:\/\/127\.0\.0\.1:\d+: Ollama .*\(SIMULATED\)$/m);
  assert.match(text.stdout, /^Model +sim-llama-8b: family llama, 8\.0B parameters, quantisation Q4_K_M, context 8192$/m);

  const other = await runCli(['env', sim.url, '--root', tree('wsl2'), '--model', 'nope']);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /^truecost: env: the server has no model 'nope'; available: sim-llama-8b/);
});

test('env URL that does not answer: exit 2 and why', async () => {
  const r = await runCli(['env', 'http://127.0.0.1:1', '--root', tree('wsl2')]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^truecost: env: cannot reach http:\/\/127\.0\.0\.1:1/);
  assert.equal(r.stdout, '');
});

test('env --diff: 0 when clean, 3 with each difference and why, 2 for a bad file, 1 for usage', async (t) => {
  const dir = testScope(t, 'truecost-env-').dir();
  const save = async (name, root) => {
    const r = await runCli(['env', '--json', '--root', tree(root)]);
    assert.equal(r.code, 0, r.stderr);
    const file = path.join(dir, name);
    writeFileSync(file, r.stdout);
    return file;
  };
  const a = await save('a.json', 'debian-nvidia');
  const a2 = await save('a2.json', 'debian-nvidia');
  const b = await save('b.json', 'wsl2');

  const same = await runCli(['env', '--diff', a, a2]);
  assert.equal(same.code, 0, same.stderr);
  assert.match(same.stdout, /^no differences that matter between /);

  const diff = await runCli(['env', '--diff', a, b]);
  assert.equal(diff.code, 3, diff.stderr);
  assert.match(diff.stdout, /^\d+ differences between A=.*a\.json and B=.*b\.json:$/m);
  assert.match(diff.stdout, /^ {2}os\.virtualisation: A none, B wsl2\n {4}different virtualisation/m);
  assert.match(diff.stdout, /^ {2}gpus\.count: A 1, B 0\n {4}different number of GPUs$/m);

  const json = await runCli(['env', '--diff', '--json', a, b]);
  assert.equal(json.code, 3);
  const list = JSON.parse(json.stdout);
  const virt = list.find((d) => d.field === 'os.virtualisation');
  assert.deepEqual(virt, { field: 'os.virtualisation', a: 'none', b: 'wsl2', why: virt.why });
  assert.match(virt.why, /WSL2/);

  // a run's fingerprint that is the client host's (run --telemetry URL,
  // no agent /env): a difference against the box's, a warning either way
  const client = path.join(dir, 'client.json');
  writeFileSync(client, JSON.stringify({ ...JSON.parse(readFileSync(a, 'utf8')), host: { role: 'client', note: 'client host, not the server' } }));
  const roles = await runCli(['env', '--diff', client, a2]);
  assert.equal(roles.code, 3, roles.stderr);
  assert.match(roles.stdout, /^1 difference between /);
  assert.match(roles.stdout, /^ {2}host\.role: A client, B n\/a\n {4}one describes the client host/m);
  assert.match(roles.stdout, /^WARNING A=.*client\.json is the client host's environment, not the server's/m);
  const twoClients = await runCli(['env', '--diff', '--json', client, client]);
  assert.equal(twoClients.code, 0, twoClients.stderr);
  assert.deepEqual(JSON.parse(twoClients.stdout), []);
  assert.match(twoClients.stderr, /^truecost: env: --diff: warning: A=.*client\.json is the client host's/m);
  assert.match(twoClients.stderr, /^truecost: env: --diff: warning: B=/m);

  const bad = path.join(dir, 'bad.json');
  writeFileSync(bad, '[1, 2');
  const broken = await runCli(['env', '--diff', a, bad]);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /^truecost: env: .*bad\.json: line 1: /);
  const missing = await runCli(['env', '--diff', a, path.join(dir, 'none.json')]);
  assert.equal(missing.code, 2);

  const usage = await runCli(['env', '--diff', a]);
  assert.equal(usage.code, 1);
  assert.match(usage.stderr, /--diff takes two fingerprint files/);
});

test('every run records its environment: show prints it, env --diff RUN_A RUN_B names what differs', async (t) => {
  const sc = testScope(t, 'truecost-envrun-');
  const db = path.join(sc.dir(), 'db');
  const simA = await sc.sim(['--model', 'sim-a-8b', '--decode-tps', '500']);
  const simB = await sc.sim(['--model', 'sim-b-70b', '--decode-tps', '500']);
  for (const [sim, label] of [[simA, 'on-a'], [simB, 'on-b']]) {
    const r = await runCli(['run', sim.url, '--db', db, '-n', '1', '--max-tokens', '2', '--telemetry', 'none', '--label', label]);
    assert.equal(r.code, 0, r.stderr);
  }
  const show = JSON.parse((await runCli(['show', 'on-a', '--db', db, '--json'])).stdout);
  assert.equal(show.environment.server.model.name, 'sim-a-8b');
  assert.equal(typeof show.environment.os.kernel, 'string');
  const table = await runCli(['show', 'on-a', '--db', db]);
  assert.match(table.stdout, /^environment +/m);
  assert.match(table.stdout, /server Ollama .*sim-a-8b/);

  const same = await runCli(['env', '--diff', 'on-a', 'on-a', '--db', db]);
  assert.equal(same.code, 0, same.stderr);
  const diff = await runCli(['env', '--diff', 'on-a', 'on-b', '--db', db, '--json']);
  assert.equal(diff.code, 3, diff.stderr);
  const fields = JSON.parse(diff.stdout).map((d) => d.field);
  assert.ok(fields.includes('server.model.name'), fields.join(', '));
  const missing = await runCli(['env', '--diff', 'on-a', 'no-such-run', '--db', db]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no-such-run/);
});
