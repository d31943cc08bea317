// truecost agent: the exposition passes promtool, a real Prometheus server
// scrapes it (with a bearer token) and its query API returns the fake
// NVML's values; the token guards /metrics and /env; a non-loopback
// address without a token is refused. Servers on 127.0.0.1 only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

import { FAKE, FIX, FAKE_NVML, eventually, startAgent, startPrometheus } from './agent_support.mjs';
import { runCli, testScope } from './helpers.mjs';

// fake NVML (2 GPUs) and the RAPL fixture's two packages through `auto`
const GPUS_AND_CPUS = ['--nvml-lib', path.join(FAKE, 'libfake_nvml.so'), '--rocm-lib', '/nonexistent/librocm_smi64.so',
  '--sysfs-root', path.join(FIX, 'sysfs', 'rapl-two-packages'), '--nvidia-smi', '/nonexistent/nvidia-smi',
  '--rocm-smi', '/nonexistent/rocm-smi'];

test('/metrics passes promtool; GPU and CPU package families with their labels; /health and /env', async (t) => {
  const sc = testScope(t, 'truecost-agent-');
  const ag = await startAgent(sc.dir(), [...GPUS_AND_CPUS, '--interval', '100'], { env: { FAKE_NVML_DEVICES: '2' }, t });
  const r = await fetch(ag.metrics);
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = await r.text();
  const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(lint.status, 0, `promtool: ${lint.stdout}${lint.stderr}\n${text}`);
  assert.equal(lint.stdout + lint.stderr, '', 'no lint remarks either');
  assert.match(text, /^truecost_gpu_power_watts\{gpu="0",uuid="[^"]+",vendor="nvidia",name="NVIDIA H100 80GB HBM3"\} 312\.345$/m);
  assert.match(text, /^truecost_gpu_power_watts\{gpu="1",/m);
  assert.match(text, /^# TYPE truecost_gpu_energy_joules_total counter$/m);
  assert.match(text, /^truecost_cpu_package_energy_joules_total\{package="intel-rapl:0",name="package-0"\} /m);
  assert.match(text, /^truecost_build_info\{version="[^"]+",git="[^"]*"\} 1$/m);
  // the fake has no hotspot sensor and the RAPL packages no power: left out, not 0
  assert.doesNotMatch(text, /cpu_package_power|hotspot/);

  const h = await fetch(`${ag.url}/health`);
  assert.deepEqual(await h.json(), { status: 'ok', devices: 4 });
  const env = await (await fetch(`${ag.url}/env`)).json();
  assert.equal(typeof env.os, 'object');
  assert.ok(Array.isArray(env.gpus));
  assert.equal((await fetch(`${ag.url}/nope`)).status, 404);
  assert.equal((await fetch(ag.metrics, { method: 'POST' })).status, 405);
  const out = await ag.stop('SIGINT');
  assert.equal(out.code, 0, out.stderr);
});

test('a real Prometheus scrapes the agent with a bearer token; its query API has the values', async (t) => {
  const sc = testScope(t, 'truecost-agent-');
  const dir = sc.dir();
  const token = 'tok-' + Math.random().toString(36).slice(2);
  const ag = await startAgent(dir, [...FAKE_NVML, '--interval', '200', '--token-env', 'TC_AGENT_TOKEN'],
    { env: { FAKE_NVML_DEVICES: '2', TC_AGENT_TOKEN: token }, t });
  const prom = await startPrometheus(dir, `127.0.0.1:${ag.port}`, { token, t });
  const power = await eventually(async () => {
    const res = await prom.query('truecost_gpu_power_watts');
    return res.length === 2 ? res : null;
  }, 60_000, 'Prometheus has both GPUs\' power');
  for (const s of power) {
    assert.equal(s.metric.vendor, 'nvidia');
    assert.equal(s.metric.name, 'NVIDIA H100 80GB HBM3');
    assert.equal(Number(s.value[1]), 312.345);
  }
  assert.deepEqual(power.map((s) => s.metric.gpu).sort(), ['0', '1']);
  const up = await prom.query('up{job="truecost"}');
  assert.equal(up[0].value[1], '1', 'the scrape with the token succeeds');
  // the energy counter runs at the fake's 300 W: the slope of its scraped
  // points (deriv, not rate: rate divides by the whole range, which the
  // first few scrapes do not yet fill), over six points at least, so that
  // one late scrape on a loaded machine cannot tilt it
  const rate = await eventually(async () => {
    const n = await prom.query('count_over_time(truecost_gpu_energy_joules_total{gpu="0"}[20s])');
    if (!(n.length === 1 && Number(n[0].value[1]) >= 6)) return null;
    const res = await prom.query('deriv(truecost_gpu_energy_joules_total{gpu="0"}[20s])');
    return res.length === 1 ? Number(res[0].value[1]) : null;
  }, 60_000, 'an energy rate');
  assert.ok(Math.abs(rate - 300) < 15, `energy rate ${rate} W`);
  const info = await prom.query('truecost_build_info');
  assert.equal(info[0].value[1], '1');
  assert.doesNotMatch(ag.output().stdout + ag.output().stderr, new RegExp(token), 'the token is never printed');
});

test('the token: 401 without or with a wrong one, 200 with it; /health open; off loopback only with a token', async (t) => {
  const sc = testScope(t, 'truecost-agent-');
  const token = 'secret-' + Math.random().toString(36).slice(2);
  const ag = await startAgent(sc.dir(), [...FAKE_NVML, '--token-env', 'TC_AGENT_TOKEN'],
    { env: { TC_AGENT_TOKEN: token }, t });
  assert.match(ag.output().stdout, /require 'Authorization: Bearer' with the token in \$TC_AGENT_TOKEN/);
  const none = await fetch(ag.metrics);
  assert.equal(none.status, 401);
  assert.match(none.headers.get('www-authenticate'), /^Bearer/);
  assert.equal((await fetch(`${ag.url}/env`)).status, 401);
  assert.equal((await fetch(ag.metrics, { headers: { authorization: 'Bearer wrong' } })).status, 401);
  assert.equal((await fetch(ag.metrics, { headers: { authorization: `Bearer ${token}x` } })).status, 401);
  const ok = await fetch(ag.metrics, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(ok.status, 200);
  assert.match(await ok.text(), /truecost_gpu_power_watts/);
  assert.equal((await fetch(`${ag.url}/health`)).status, 200);
  const out = await ag.stop();
  assert.equal(out.code, 0);
  assert.doesNotMatch(out.stdout + out.stderr, new RegExp(token));

  const open = await runCli(['agent', '--listen', '0.0.0.0:0', ...FAKE_NVML]);
  assert.equal(open.code, 1);
  assert.match(open.stderr, /--listen 0\.0\.0\.0 is not a loopback address: .*--token-env VAR/);
  const unset = await runCli(['agent', '--token-env', 'TC_SURELY_UNSET_VAR'], { env: { TC_SURELY_UNSET_VAR: undefined } });
  assert.equal(unset.code, 1);
  assert.match(unset.stderr, /--token-env TC_SURELY_UNSET_VAR: the variable is not set or empty/);
  // Off loopback a token must be long enough that guessing cannot reach it.
  const short = await runCli(['agent', '--listen', '0.0.0.0:0', '--token-env', 'TC_SHORT', ...FAKE_NVML], { env: { TC_SHORT: 'x' } });
  assert.equal(short.code, 1);
  assert.match(short.stderr, /--listen 0\.0\.0\.0 is not a loopback address: its token is 1 characters, under the 16 that guessing cannot reach/);
});
