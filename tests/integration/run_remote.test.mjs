// run --telemetry URL: a live truecost agent (fake NVML) on the "server
// box", the simulator as the server; energy and power stored and shown,
// the box's environment from the agent's /env; a dead URL, or an agent
// that dies mid-run, costs samples, never the run.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { FAKE_NVML, FIX, freePort, startAgent } from './agent_support.mjs';
import { REPO_ROOT, runCli, spawnTruecost, testScope } from './helpers.mjs';

const FAST = ['--ttft-ms', '5', '--decode-tps', '200'];

async function runJson(args) {
  const r = await runCli(['run', ...args, '--json', '--no-progress'], { timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  return { doc: JSON.parse(r.stdout), stderr: r.stderr };
}

test('energy by the remote agent\'s counter; the server box\'s environment; a dead URL beside it costs nothing', async (t) => {
  const sc = testScope(t, 'truecost-remote-');
  const dir = sc.dir();
  const db = `${dir}/db`;
  const sim = await sc.sim(FAST);
  const ag = await startAgent(dir, [...FAKE_NVML, '--interval', '50'], { t });
  const dead = `http://127.0.0.1:${await freePort()}/metrics`;
  // About 3 s of run, 30 scrapes: a scrape late by a busy machine's tens
  // of milliseconds moves the mean power by well under the 10 W allowed.
  const { doc, stderr } = await runJson([sim.url, '--db', db, '-n', '6', '--max-tokens', '100',
    '--telemetry', ag.metrics, '--telemetry', dead, '--telemetry-interval', '100']);
  assert.match(stderr, /a URL gave no device; the run goes on without it:\n {2}remote: http:\/\/127\.0\.0\.1:\d+\/metrics: /);
  assert.equal(doc.run.status, 'complete');
  const e = doc.energy;
  assert.equal(e.devices.length, 1, JSON.stringify(e));
  const d = e.devices[0];
  assert.equal(d.backend, 'remote');
  assert.equal(d.method, 'counter');
  assert.equal(d.energy_what, 'GPU board energy');
  assert.ok(Math.abs(d.avg_power_w - 300) < 10, `avg ${d.avg_power_w} W`);
  assert.ok(d.coverage > 0.9, `coverage ${d.coverage}`);
  assert.ok(Math.abs(d.j_per_token - d.energy_j / doc.tokens.output) < 1e-9);
  assert.equal(d.max_temp_c, 65);
  // the environment is the box's, as its agent described it
  const env = doc.environment;
  assert.equal(env.host.role, 'server');
  assert.equal(env.host.source, `${ag.url}/env`);
  assert.equal(env.server.url, sim.url, 'the server as this client measured it');

  const show = await runCli(['show', String(doc.run.id), '--db', db]);
  assert.match(show.stdout, /GPU board energy, NVIDIA H100 80GB HBM3 \(remote\): [\d.]+ J \(counter\)/);
  assert.match(show.stdout, /host: the server box, from its agent at http:\/\/127\.0\.0\.1:\d+\/env/);
  const js = JSON.parse((await runCli(['show', String(doc.run.id), '--db', db, '--json'])).stdout);
  assert.deepEqual(js.energy, doc.energy, 'computed again on read, the same');
});

test('only a dead URL: the run completes without energy, and the client host is marked as such', async (t) => {
  const sc = testScope(t, 'truecost-remote-');
  const dir = sc.dir();
  const sim = await sc.sim(FAST);
  const dead = `http://127.0.0.1:${await freePort()}/metrics`;
  const { doc, stderr } = await runJson([sim.url, '--db', `${dir}/db`, '-n', '2', '--max-tokens', '8', '--telemetry', dead]);
  assert.equal(doc.run.status, 'complete');
  assert.equal(doc.requests.completed, 2);
  assert.equal(doc.energy, null);
  assert.match(stderr, /the environment stored is this client host's, not the server's/);
  assert.deepEqual(doc.environment.host, { role: 'client', note: 'client host, not the server' });
  const show = await runCli(['show', String(doc.run.id), '--db', `${dir}/db`]);
  assert.match(show.stdout, /host: client host, not the server/);
  // Compared with a run of the server box's own environment, the client-host side is said.
  const local = await runJson([sim.url, '--db', `${dir}/db`, '-n', '2', '--max-tokens', '8', '--telemetry', 'none']);
  const cmp = await runCli(['compare', String(local.doc.run.id), String(doc.run.id), '--db', `${dir}/db`, '--json']);
  assert.equal(cmp.code, 0, cmp.stderr);
  const warnings = JSON.parse(cmp.stdout).warnings;
  assert.ok(warnings.some((w) => /^B's environment is the client host's, not the server's/.test(w)), JSON.stringify(warnings));
  assert.ok(!warnings.some((w) => /^A's environment is the client host's/.test(w)));
});

test('the agent dies mid-run: its later samples are not available, the run completes', async (t) => {
  const sc = testScope(t, 'truecost-remote-');
  const dir = sc.dir();
  const db = `${dir}/db`;
  const sim = await sc.sim(FAST);
  const ag = await startAgent(dir, [...FAKE_NVML, '--interval', '50'], { t });
  const run = spawnTruecost(['run', sim.url, '--db', db, '-n', '12', '--max-tokens', '60', '--no-progress',
    '--telemetry', ag.metrics, '--telemetry-interval', '100'], { timeoutMs: 120_000, t });
  // a second of samples after the run has begun (said on stderr without
  // --json), however slow the start
  const end = performance.now() + 60_000;
  while (!/truecost: run \d+: /.test(run.output().stderr) && performance.now() < end)
    await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 1000));
  await ag.stop('SIGKILL');
  const r = await run.done;
  assert.equal(r.code, 0, r.stderr);
  const id = r.stderr.match(/truecost: run (\d+): /)[1];
  const doc = JSON.parse((await runCli(['show', id, '--db', db, '--json'])).stdout);
  assert.equal(doc.run.status, 'complete');
  assert.equal(doc.requests.completed, 12);
  const rows = JSON.parse((await runCli(['export', String(doc.run.id), '--db', db, '--what', 'samples', '--format', 'json'])).stdout);
  const good = rows.filter((x) => x.power_w !== null);
  const lost = rows.filter((x) => x.power_w === null);
  assert.ok(good.length >= 3, `${good.length} samples before the agent died`);
  assert.ok(lost.length >= 5, `${lost.length} rounds after it died, each kept as not available`);
  assert.ok(lost.every((x) => x.energy_j === null && x.temp_c === null), 'nothing made up');
});

test('--telemetry: a bad token variable is a usage error; the token is sent', async (t) => {
  const sc = testScope(t, 'truecost-remote-');
  const dir = sc.dir();
  const bad = await runCli(['run', 'http://127.0.0.1:1', '--telemetry', 'http://127.0.0.1:1/metrics',
    '--telemetry-token-env', 'TC_SURELY_UNSET'], { env: { TC_SURELY_UNSET: undefined } });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--telemetry-token-env TC_SURELY_UNSET: the variable is not set or empty/);
  const sim = await sc.sim(FAST);
  const token = 't-' + Math.random().toString(36).slice(2);
  const ag = await startAgent(dir, [...FAKE_NVML, '--token-env', 'TC_AGENT_TOKEN'], { env: { TC_AGENT_TOKEN: token }, t });
  const without = await runJson([sim.url, '--db', `${dir}/db`, '-n', '1', '--max-tokens', '4', '--telemetry', ag.metrics]);
  assert.match(without.stderr, /HTTP 401: the bearer token is missing or wrong/);
  assert.equal(without.doc.energy, null);
  const r = await runCli(['run', sim.url, '--db', `${dir}/db`, '-n', '2', '--max-tokens', '8', '--json', '--no-progress',
    '--telemetry', ag.metrics, '--telemetry-token-env', 'TC_TOKEN', '--telemetry-interval', '100'],
  { env: { TC_TOKEN: token }, timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.equal(doc.energy.devices[0].backend, 'remote');
  assert.equal(doc.environment.host.role, 'server');
  assert.doesNotMatch(r.stdout + r.stderr, new RegExp(token));
});

test('local sensors named beside a URL: both stored, the remote devices numbered after the local ones', async (t) => {
  const sc = testScope(t, 'truecost-remote-');
  const dir = sc.dir();
  const db = `${dir}/db`;
  const sim = await sc.sim(FAST);
  const ag = await startAgent(dir, [...FAKE_NVML, '--interval', '50'], { t });
  const { doc } = await runJson([sim.url, '--db', db, '-n', '4', '--max-tokens', '150',
    '--telemetry', 'rapl', '--sysfs-root', `${FIX}/sysfs/rapl-two-packages`, '--sample-ms', '50',
    '--telemetry', ag.metrics, '--telemetry-interval', '100']);
  const devs = doc.energy.devices;
  assert.deepEqual(devs.map((d) => d.backend), ['rapl', 'rapl', 'remote']);
  assert.equal(devs[0].energy_j, 0, 'the fixture\'s RAPL counters never move');
  assert.ok(Math.abs(devs[2].avg_power_w - 300) < 10, `remote avg ${devs[2].avg_power_w} W`);
  const rows = JSON.parse((await runCli(['export', String(doc.run.id), '--db', db, '--what', 'samples', '--format', 'json'])).stdout);
  const byDevice = new Map();
  for (const r of rows) byDevice.set(r.device, (byDevice.get(r.device) ?? 0) + 1);
  assert.deepEqual([...byDevice.keys()].sort(), [0, 1, 2], JSON.stringify([...byDevice]));
  assert.ok(rows.filter((r) => r.device === 2).every((r) => r.power_w === null || Math.abs(r.power_w - 312.345) < 1e-6),
    'the remote GPU\'s samples are its own, not a package\'s');
});

test('shards that scraped one agent: show GROUP reads the box\'s energy once, over the merged window; their own hosts\' sensors left out', async (t) => {
  const sc = testScope(t, 'truecost-remote-');
  const dir = sc.dir();
  const db = `${dir}/db`;
  const sim = await sc.sim(FAST);
  const ag = await startAgent(dir, [...FAKE_NVML, '--interval', '50'], { t });
  const at = new Date(Date.now() + 2500).toISOString();
  const shard = (i) => runCli(['run', sim.url, '--db', db, '-n', '16', '-c', '2', '--max-tokens', '80', '--label', 'fleet',
    '--shard', `${i}/2`, '--start-at', at, '--json', '--no-progress',
    '--telemetry', 'rapl', '--sysfs-root', `${FIX}/sysfs/rapl-two-packages`, '--sample-ms', '50',
    '--telemetry', ag.metrics, '--telemetry-interval', '100'], { timeoutMs: 120_000 });
  const parts = await Promise.all([shard(1), shard(2)]);
  for (const r of parts) assert.equal(r.code, 0, r.stderr);
  const remote = (doc) => doc.energy.devices.find((d) => d.backend === 'remote');
  const each = parts.map((r) => remote(JSON.parse(r.stdout)));
  for (const d of each) assert.ok(d.energy_j > 0, JSON.stringify(d));

  const show = await runCli(['show', 'fleet', '--db', db, '--json']);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stderr, /2 shards also sampled their own host's devices: left out of the group's energy/);
  const doc = JSON.parse(show.stdout);
  // the JSON says it is the shards merged, not the first shard (issue 31)
  const ids = parts.map((r) => JSON.parse(r.stdout).run.id).sort((a, b) => a - b);
  assert.deepEqual(doc.shards, { group: 'fleet', count: 2, run_ids: ids, merged: true });
  const keys = Object.keys(doc);
  assert.equal(keys[keys.indexOf('run') + 1], 'shards', `after run: ${keys.join()}`);
  assert.equal(doc.run.id, ids[0]);
  assert.equal(doc.requests.measured, 16, 'the shards\' requests summed');
  // cost refuses it (exit 2, docs/commands/cost.md), naming show and one shard's id
  const cost = await runCli(['cost', 'fleet', '--db', db, '--profile', `${REPO_ROOT}/profiles/rtx4090-workstation.ini`]);
  assert.equal(cost.code, 2, cost.stderr);
  assert.match(cost.stderr, /'fleet' is one run split into 2 shards \(run --shard\): `truecost show fleet` merges them/);
  assert.deepEqual(doc.energy.devices.map((d) => d.backend), ['remote'], 'one box, one device; the shards\' RAPL left out');
  const d = doc.energy.devices[0];
  assert.equal(d.method, 'counter');
  assert.ok(Math.abs(d.avg_power_w - 300) < 10, `avg ${d.avg_power_w} W`);
  assert.ok(d.coverage > 0.9, `coverage ${d.coverage}`);
  // once, not once per shard: about one shard's energy (both ran over the
  // same stretch), far from the sum of the two
  const most = Math.max(...each.map((x) => x.energy_j));
  assert.ok(d.energy_j > 0.8 * most && d.energy_j < 1.4 * most, `merged ${d.energy_j} J, shards ${each.map((x) => x.energy_j)}`);
  // J/token over the merged window's tokens (the steady window's, when it has one)
  const tokens = d.energy_j / d.j_per_token;
  assert.ok(tokens > 0.5 * doc.tokens.output && tokens <= doc.tokens.output + 1e-6, `${tokens} of ${doc.tokens.output} tokens`);
  assert.equal(doc.energy.total.j_per_token, d.j_per_token);
  const text = await runCli(['show', 'fleet', '--db', db]);
  assert.match(text.stdout, /2 shards of one workload, merged \(group 'fleet'; energy: the server box's/);
  assert.match(text.stdout, /GPU board energy, NVIDIA H100 80GB HBM3 \(remote\): [\d.]+ J \(counter\)/);
});

test('credentials in a --telemetry URL are never printed or stored: the password and token-like parameters as ***', async (t) => {
  const sc = testScope(t, 'truecost-remote-');
  const dir = sc.dir();
  const db = `${dir}/db`;
  const sim = await sc.sim(FAST);
  const token = 't-' + Math.random().toString(36).slice(2);
  const ag = await startAgent(dir, [...FAKE_NVML, '--token-env', 'TC_AGENT_TOKEN'], { env: { TC_AGENT_TOKEN: token }, t });
  const url = ag.metrics.replace('http://', 'http://tc:PASS4711@') + '?token=SECRET0815&Api_Key=K9&page=1';
  // Refused (no bearer token): the 401 names the URL without its secrets.
  const refused = await runJson([sim.url, '--db', db, '-n', '1', '--max-tokens', '4', '--telemetry', url]);
  assert.match(refused.stderr, /http:\/\/tc:\*\*\*@127\.0\.0\.1:\d+\/metrics\?token=\*\*\*&Api_Key=\*\*\*&page=1: HTTP 401/);
  // Accepted: the box's fingerprint names its source without them.
  const r = await runCli(['run', sim.url, '--db', db, '-n', '2', '--max-tokens', '8', '--json', '--no-progress',
    '--telemetry', url, '--telemetry-token-env', 'TC_TOKEN', '--label', 'secret'], { env: { TC_TOKEN: token }, timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout);
  assert.match(doc.environment.host.source, /^http:\/\/tc:\*\*\*@127\.0\.0\.1:\d+\/env$/);
  const md = `${dir}/r.md`;
  const rep = await runCli(['report', 'secret', '--db', db, '-o', md], { timeoutMs: 60_000 });
  assert.equal(rep.code, 0, rep.stderr);
  const { readFileSync } = await import('node:fs');
  const text = readFileSync(md, 'utf8').replace(/\\/g, ''); // Markdown's escapes
  assert.match(text, /--telemetry 'http:\/\/tc:\*\*\*@127\.0\.0\.1:\d+\/metrics\?token=\*\*\*&Api_Key=\*\*\*&page=1'/);
  for (const secret of ['PASS4711', 'SECRET0815', 'K9&', token]) {
    for (const [what, out] of [['stderr', refused.stderr + r.stderr], ['stdout', r.stdout], ['report', text],
      ['store', readFileSync(db).toString('latin1')]]) {
      assert.ok(!out.includes(secret), `${secret} in the ${what}`);
    }
  }
});
