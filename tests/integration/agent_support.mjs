// Shared by the agent and remote-telemetry suites: a live `truecost agent`
// on 127.0.0.1 with the fake NVML library, and a real Prometheus server.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { spawnTruecost } from './helpers.mjs';

export const FIX = process.env.TC_FIXTURES_DIR ?? path.resolve('tests/fixtures');
export const FAKE = process.env.TC_FAKE_LIB_DIR ?? path.resolve('build/tests/fake');
export const FAKE_NVML = ['--backend', 'nvml', '--nvml-lib', path.join(FAKE, 'libfake_nvml.so')];

/** Waits (bounded) for a port file that a server writes once it listens. */
async function portFrom(file, proc, what, ms = 20_000) {
  const end = performance.now() + ms;
  for (;;) {
    try {
      const text = readFileSync(file, 'utf8');
      if (text.endsWith('\n')) return Number.parseInt(text, 10);
    } catch {
      // not yet
    }
    const out = proc.output();
    if (performance.now() > end) throw new Error(`${what} did not listen: ${out.stderr}`);
    await sleep(20);
  }
}

/**
 * Starts `truecost agent` on 127.0.0.1:0 in dir with extra args and env.
 * Resolves {port, url, metrics, proc, output, stop()}; stopped at t.after.
 */
export async function startAgent(dir, args, { env = {}, t } = {}) {
  const pf = path.join(dir, `agent-port-${Math.random().toString(36).slice(2)}`);
  const p = spawnTruecost(['agent', '--listen', '127.0.0.1:0', '--port-file', pf, ...args], {
    env: { FAKE_NVML_ENERGY_RATE_MW: '300000', ...env },
    timeoutMs: 240_000,
    t,
  });
  p.done.catch(() => {});
  const port = await portFrom(pf, p, 'truecost agent');
  const url = `http://127.0.0.1:${port}`;
  const stop = async (signal = 'SIGTERM') => {
    p.kill(signal);
    return p.done;
  };
  return { port, url, metrics: `${url}/metrics`, proc: p.proc, output: p.output, done: p.done, stop };
}

/** A port free right now on 127.0.0.1 (for servers that cannot pick one). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * A real Prometheus server on 127.0.0.1 scraping `target` (host:port)
 * every second, with a bearer token when given; config and storage in dir.
 * Resolves {url, query(expr), stop()}; stopped at t.after.
 */
export async function startPrometheus(dir, target, { token, t } = {}) {
  const port = await freePort();
  const auth = token ? `    authorization:\n      credentials: '${token}'\n` : '';
  const cfg = path.join(dir, 'prometheus.yml');
  writeFileSync(cfg,
    'global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n' +
    `scrape_configs:\n  - job_name: truecost\n${auth}    static_configs:\n      - targets: ['${target}']\n`);
  const proc = spawn('prometheus', [`--config.file=${cfg}`, `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => proc.on('close', resolve));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
  };
  if (t) t.after(stop);
  const url = `http://127.0.0.1:${port}`;
  const query = async (expr) => {
    const r = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const j = await r.json();
    if (j.status !== 'success') throw new Error(`query ${expr}: ${JSON.stringify(j)}`);
    return j.data.result;
  };
  return { url, query, stop, stderr: () => stderr };
}

/** Polls fn until it returns a truthy value, at most ms; returns that value. */
export async function eventually(fn, ms, what) {
  const end = performance.now() + ms;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (performance.now() > end) throw new Error(`${what}: not within ${ms} ms (last: ${last})`);
    await sleep(200);
  }
}
