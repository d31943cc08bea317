// Limits of `truecost sim`: open files, request heads, request bodies, the
// truth of requests in flight at crash-after, and how it names its address.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  BIN,
  DEFAULT_MODEL,
  bodyFor,
  gaps,
  get,
  median,
  ndjsonLineTimes,
  post,
  startSim,
  tempDir,
  within,
} from './helpers.mjs';

const FAST = ['--ttft-ms', '1', '--decode-tps', '1000'];
const STDERR_KEEP = 64 * 1024;

/**
 * Starts `truecost sim` under `sh -c '<shellPrefix>; exec truecost sim ...'`
 * (to lower its limits first). Its stderr is counted, and only the first
 * 64 KiB kept, so a flood cannot exhaust the test. Resolves once it listens:
 * {port, url, pid, stderrBytes(), stderr(), stop()}.
 */
async function startLimited(t, shellPrefix, args = []) {
  const dir = tempDir();
  const portFile = path.join(dir, 'port');
  const proc = spawn(
    'sh',
    ['-c', `${shellPrefix} && exec "$0" "$@"`, BIN, 'sim', '--listen', '127.0.0.1:0', '--port-file', portFile, ...args],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let bytes = 0;
  let kept = '';
  proc.stderr.on('data', (d) => {
    bytes += d.length;
    if (kept.length < STDERR_KEEP) kept += d.toString('utf8', 0, Math.min(d.length, STDERR_KEEP - kept.length));
  });
  const exited = new Promise((resolve) => proc.on('close', (code, signal) => resolve({ code, signal })));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGINT');
    const killer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    const r = await exited;
    clearTimeout(killer);
    rmSync(dir, { recursive: true, force: true });
    return r;
  };
  t.after(stop);
  const deadline = performance.now() + 10_000;
  for (;;) {
    try {
      const text = readFileSync(portFile, 'utf8');
      if (text.endsWith('\n')) {
        const port = Number.parseInt(text, 10);
        return { port, url: `http://127.0.0.1:${port}`, pid: proc.pid, stderrBytes: () => bytes, stderr: () => kept, stop };
      }
    } catch {
      // not written yet
    }
    if (proc.exitCode !== null || performance.now() > deadline) throw new Error(`truecost sim did not start: ${kept}`);
    await sleep(10);
  }
}

/** Opens n idle TCP connections; resolves once all are connected. */
async function openIdle(port, n) {
  const socks = [];
  await Promise.all(
    Array.from({ length: n }, () => {
      const s = net.connect(port, '127.0.0.1');
      socks.push(s);
      s.on('error', () => {});
      return new Promise((resolve) => s.once('connect', resolve).once('error', resolve));
    }),
  );
  return socks;
}

/**
 * Writes `data` on a fresh connection and collects the answer until the
 * server closes it (or timeoutMs). Resolves {text, closedMs, closed}.
 */
function rawExchange(port, data, timeoutMs = 5000) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    const t0 = performance.now();
    let text = '';
    let settled = false;
    const done = (closed) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ text, closed, closedMs: performance.now() - t0 });
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    s.on('data', (d) => (text += d.toString('latin1')));
    s.on('error', () => done(true));
    s.on('close', () => done(true));
    s.on('connect', () => s.write(data));
  });
}

function assertJson413(route, res, pattern) {
  assert.equal(res.status, 413, `${route}: ${res.body.slice(0, 300)}`);
  assert.equal(res.headers['x-truecost-simulated'], '1', route);
  assert.match(res.headers['content-type'], /^application\/json/, route);
  if (route.startsWith('/api/')) {
    assert.deepEqual(Object.keys(res.json), ['error'], route);
    assert.match(res.json.error, pattern);
  } else {
    assert.equal(res.json.error.code, 413, route);
    assert.equal(res.json.error.type, 'invalid_request_error', route);
    assert.match(res.json.error.message, pattern);
  }
}

// ---- open files --------------------------------------------------------------

test('out of file descriptors: accepting pauses (said once), and the server answers once connections close', async (t) => {
  const s = await startLimited(t, 'ulimit -n 64', FAST);
  const idle = await openIdle(s.port, 150); // more than 64 fds: the rest wait in the kernel's queue
  await sleep(600);
  const queued = post(s.url, '/v1/completions', bodyFor('/v1/completions', { n: 2 }), { timeoutMs: 10_000 });
  await sleep(200);
  for (const c of idle) c.destroy();
  const r = await within(queued, 5000, 'the queued request, once connections closed');
  assert.equal(r.status, 200);
  assert.equal((await get(s.url, '/health')).status, 200);
  const exit = await s.stop();
  assert.equal(exit.code, 0);
  assert.ok(s.stderrBytes() < 10_000, `stderr stays small: ${s.stderrBytes()} bytes: ${s.stderr().slice(0, 300)}`);
  assert.equal(s.stderr().match(/cannot accept a connection: Too many open files/g)?.length, 1, s.stderr());
  assert.match(s.stderr(), /ulimit -n/);
  assert.match(s.stderr(), /accepting paused \d+ times/);
});

test('the soft open-files limit is raised to the hard one', async (t) => {
  const s = await startLimited(t, 'ulimit -S -n 256', FAST);
  let limits;
  try {
    limits = readFileSync(`/proc/${s.pid}/limits`, 'utf8');
  } catch {
    t.skip('no /proc/PID/limits here');
    return;
  }
  const m = limits.match(/^Max open files\s+(\S+)\s+(\S+)/m);
  assert.ok(m, limits);
  if (m[2] === '256') {
    t.skip('the hard limit is 256 already');
    return;
  }
  assert.equal(m[1], m[2] === 'unlimited' ? '1048576' : m[2], `soft limit raised: ${m[0]}`);
});

// ---- request heads ----------------------------------------------------------

test('a header line without an end is refused at 64 KiB: closed at once, other streams keep their timing', async (t) => {
  const s = await startSim(['--decode-tps', '50', '--ttft-ms', '1'], { t });
  const n = 30;
  const stream = post(s.url, '/api/generate', bodyFor('/api/generate', { n, stream: true }));
  await sleep(100);
  const big = rawExchange(s.port, Buffer.concat([Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nX-Big: '), Buffer.alloc(1 << 20, 'a')]), 3000);
  const [res, hdr] = await Promise.all([stream, big]);
  assert.ok(hdr.closed, 'the server closes the connection');
  assert.ok(hdr.closedMs < 1000, `closed after ${hdr.closedMs.toFixed(0)} ms`);
  assert.ok(hdr.text === '' || hdr.text.startsWith('HTTP/1.1 400'), hdr.text.slice(0, 100));
  assert.equal(res.status, 200);
  const g = gaps(ndjsonLineTimes(res.chunks).slice(0, n));
  const m = median(g);
  assert.ok(m >= 12 && m <= 28, `median gap ${m.toFixed(1)} ms, want 20 ± 8`);
  assert.ok(Math.max(...g) < 100, `largest gap ${Math.max(...g).toFixed(1)} ms`);
  assert.equal((await get(s.url, '/health')).status, 200);
});

// ---- request bodies ---------------------------------------------------------

for (const route of ['/v1/completions', '/api/generate']) {
  test(`POST ${route} with a 2 MB body: the route's JSON 413 naming the limit`, async (t) => {
    const s = await startSim(FAST, { t });
    const body = JSON.stringify({ model: DEFAULT_MODEL, prompt: 'x'.repeat(2_000_000) });
    const res = await post(s.url, route, body);
    assertJson413(route, res, /request body is 20000\d\d bytes; the limit is 1048576 .*--max-body-bytes/);
    assert.equal((await post(s.url, route, bodyFor(route, { n: 2 }))).status, 200);
  });
}

// Over 8 times the limit libevent refuses the body itself (its own 413):
// it reads a body whole before the simulator can answer, so answering such
// a body in JSON would mean holding all of it. It must still be a 413,
// quick, and leave the server serving.
test('a 10 MB body gets a 413 at once and the server goes on serving', async (t) => {
  const s = await startSim(FAST, { t });
  const t0 = performance.now();
  const data = Buffer.concat([
    Buffer.from(`POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: ${10 << 20}\r\n\r\n`),
    Buffer.alloc(10 << 20, 'x'),
  ]);
  const r = await rawExchange(s.port, data, 10_000);
  // libevent answers and closes while the client is still sending: the
  // client may see the 413 or only the connection reset under its write.
  assert.ok(r.text === '' || /^HTTP\/1\.1 413/.test(r.text), r.text.slice(0, 200));
  assert.ok(r.closed, 'the connection is closed, not left hanging');
  assert.ok(performance.now() - t0 < 5000);
  assert.equal((await post(s.url, '/v1/completions', bodyFor('/v1/completions', { n: 2 }))).status, 200);
});

// ---- crash-after ------------------------------------------------------------

test('crash-after:2 with three long streams in flight: each gets a truth line with outcome crashed', async (t) => {
  const dir = tempDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const truth = path.join(dir, 'truth.jsonl');
  const s = await startSim(['--ttft-ms', '1', '--decode-tps', '100', '--fault', 'crash-after:2', '--truth', truth], { t });
  const started = [];
  const long = [0, 1, 2].map(() => {
    let first;
    started.push(new Promise((resolve) => (first = resolve)));
    const body = bodyFor('/v1/completions', { n: 500, stream: true });
    return post(s.url, '/v1/completions', body, { onChunk: () => first() }).catch((e) => e);
  });
  await within(Promise.all(started), 5000, 'three streams started');
  for (let i = 0; i < 2; i++) assert.equal((await post(s.url, '/api/generate', bodyFor('/api/generate', { n: 1 }))).status, 200);
  assert.equal((await within(s.exited, 5000, 'exit after crash-after:2')).code, 3);
  await Promise.all(long);
  const lines = readFileSync(truth, 'utf8')
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l));
  const byOutcome = (o) => lines.filter((x) => x.outcome === o).map((x) => x.route);
  assert.deepEqual(byOutcome('complete'), ['/api/generate', '/api/generate'], JSON.stringify(lines));
  assert.deepEqual(byOutcome('crashed'), ['/v1/completions', '/v1/completions', '/v1/completions']);
  assert.deepEqual(lines.map((x) => x.id).sort(), [1, 2, 3, 4, 5]);
  for (const o of lines.filter((x) => x.outcome === 'crashed')) {
    assert.ok(o.tokens_sent > 0 && o.tokens_sent < 500, `tokens_sent ${o.tokens_sent}`);
    assert.equal(o.chunks.reduce((a, c) => a + c.tokens, 0), o.tokens_sent, 'the chunks add up');
  }
});

// ---- the address ------------------------------------------------------------

test('an IPv6 listen address is printed in brackets', async (t) => {
  const v6 = await new Promise((resolve) => {
    const probe = net.createServer().once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
  if (!v6) {
    t.skip('no IPv6 loopback here');
    return;
  }
  const s = await startSim(['--listen', '[::1]:0'], { t });
  // The port file comes just before the banner: wait for the banner's line.
  for (let i = 0; i < 200 && !s.output().stdout.includes('\n'); i++) await sleep(10);
  const line = s.output().stdout.split('\n')[0];
  assert.equal(line, `truecost sim: SIMULATED inference server listening on http://[::1]:${s.port}`);
  const status = await new Promise((resolve, reject) => {
    http.get({ host: '::1', port: s.port, path: '/health', agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
  assert.equal(status, 200);
});
