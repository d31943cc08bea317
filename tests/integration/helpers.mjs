// Shared helpers of the integration tests of `truecost sim`: start the real
// binary on 127.0.0.1 with a free port, stop it for sure, and read responses
// as raw bytes with the arrival time of every piece, so that the tests can
// check the wire (framing, headers, timing) exactly.
//
// The binary comes from $TRUECOST_BIN (default build/truecost, relative to
// the repository root).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const BIN = path.resolve(REPO_ROOT, process.env.TRUECOST_BIN || 'build/truecost');

export const DEFAULT_MODEL = 'sim-llama-8b';

const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 15_000;

// Every process started here, so that none outlives the test run even when
// a test throws before its cleanup was registered.
const live = new Set();
process.on('exit', () => {
  for (const p of live) {
    try {
      p.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** A fresh temporary directory; removed by the caller (or by stop()). */
export function tempDir(prefix = 'truecost-it-') {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * Runs `truecost <args>` to completion (for option errors and the like).
 * Resolves {code, signal, stdout, stderr}; kills it after timeoutMs.
 */
export function runTruecost(args, { timeoutMs = 10_000 } = {}) {
  return new Promise((resolve, reject) => {
    const proc = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(proc);
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    proc.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`truecost ${args.join(' ')} did not exit within ${timeoutMs} ms`));
    }, timeoutMs);
    proc.on('error', (e) => {
      clearTimeout(timer);
      live.delete(proc);
      reject(e);
    });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(proc);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/**
 * Starts `truecost sim --listen 127.0.0.1:0 --port-file <tmp> ...extraArgs`
 * and waits (at most ~10 s) for the port file.
 *
 * Returns {port, url, proc, dir, exited, output(), stop(signal)}:
 *   exited   a promise of {code, signal} once the process has ended
 *   output() {stdout, stderr} captured so far
 *   stop()   sends SIGINT (or the given signal) unless it already exited,
 *            waits for the exit (SIGKILL after 10 s), removes the temp dir
 *            and resolves {code, signal, stdout, stderr}; safe to call twice.
 *
 * Pass `t` (a node:test context) to have stop() registered with t.after().
 */
export async function startSim(extraArgs = [], { t } = {}) {
  const dir = tempDir();
  const portFile = path.join(dir, 'port');
  const args = ['sim', '--listen', '127.0.0.1:0', '--port-file', portFile, ...extraArgs];
  const proc = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  proc.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  let exitInfo = null;
  const exited = new Promise((resolve) => {
    proc.on('close', (code, signal) => {
      live.delete(proc);
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
  });
  let spawnError = null;
  proc.on('error', (e) => {
    spawnError = e;
  });

  let stopping = null;
  const stop = (signal = 'SIGINT') => {
    if (!stopping) {
      stopping = (async () => {
        if (!exitInfo && !spawnError) {
          proc.kill(signal);
          const killer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
          await exited;
          clearTimeout(killer);
        }
        rmSync(dir, { recursive: true, force: true });
        return { ...(exitInfo || { code: null, signal: null }), stdout, stderr };
      })();
    }
    return stopping;
  };
  if (t) t.after(() => stop());

  const deadline = performance.now() + START_TIMEOUT_MS;
  let port = 0;
  for (;;) {
    if (spawnError) {
      await stop();
      throw new Error(`cannot start ${BIN}: ${spawnError.message} (set TRUECOST_BIN)`);
    }
    if (exitInfo) {
      await stop();
      throw new Error(
        `truecost sim exited with ${exitInfo.code ?? exitInfo.signal} before listening: ${stderr}`,
      );
    }
    try {
      const text = readFileSync(portFile, 'utf8');
      if (text.endsWith('\n')) {
        port = Number.parseInt(text, 10);
        if (port > 0) break;
      }
    } catch {
      // not written yet
    }
    if (performance.now() > deadline) {
      await stop('SIGKILL');
      throw new Error(`truecost sim wrote no port file within ${START_TIMEOUT_MS} ms: ${stderr}`);
    }
    await sleep(10);
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    proc,
    dir,
    exited,
    output: () => ({ stdout, stderr }),
    stop,
  };
}

/**
 * One HTTP request over a fresh connection (no keep-alive), read as raw
 * text. Never rejects on HTTP errors or on a connection cut mid-body: the
 * result says what arrived. Rejects only when nothing at all came back
 * (connection refused, or `timeoutMs` passed).
 *
 * Resolves {status, headers, body, json, chunks, error, tSend, tHeaders, tEnd}:
 *   chunks   [{t, text}] every piece of the body as it arrived (t: ms,
 *            performance.now() clock)
 *   json     the body parsed as JSON when it parses, else undefined
 *   error    the error that ended the body early (e.g. the server cut the
 *            connection), else null
 */
export function request(url, { method = 'GET', path: p = '/', body, headers = {}, timeoutMs = REQUEST_TIMEOUT_MS, onChunk } = {}) {
  return new Promise((resolve, reject) => {
    const payload =
      body === undefined ? undefined : typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
    const hdrs = { ...headers };
    if (payload !== undefined) {
      hdrs['content-type'] ??= 'application/json';
      hdrs['content-length'] = Buffer.byteLength(payload);
    }
    const u = new URL(p, url);
    let settled = false;
    const out = { status: 0, headers: {}, body: '', json: undefined, chunks: [], error: null, tSend: 0, tHeaders: 0, tEnd: 0 };
    const done = (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      out.tEnd = performance.now();
      if (err && !out.status) {
        reject(err);
        return;
      }
      out.error = err || null;
      try {
        out.json = JSON.parse(out.body);
      } catch {
        out.json = undefined;
      }
      resolve(out);
    };
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers: hdrs, agent: false },
      (res) => {
        out.tHeaders = performance.now();
        out.status = res.statusCode;
        out.headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (d) => {
          const c = { t: performance.now(), text: d };
          out.chunks.push(c);
          out.body += d;
          if (onChunk) onChunk(c, req);
        });
        res.on('end', () => done(res.complete ? null : new Error('response ended before it was complete')));
        res.on('aborted', () => done(new Error('response aborted by the server')));
        res.on('error', (e) => done(e));
        res.on('close', () => done(res.complete ? null : new Error('connection closed before the response was complete')));
      },
    );
    const timer = setTimeout(() => {
      const e = new Error(`${method} ${p}: no complete answer within ${timeoutMs} ms`);
      req.destroy(e);
      if (!settled) {
        settled = true;
        reject(e);
      }
    }, timeoutMs);
    req.on('error', (e) => done(e));
    out.tSend = performance.now();
    req.end(payload);
  });
}

/** POST a JSON body (object or raw string). */
export function post(url, p, body, opts = {}) {
  return request(url, { ...opts, method: 'POST', path: p, body });
}

/** GET a path. */
export function get(url, p, opts = {}) {
  return request(url, { ...opts, method: 'GET', path: p });
}

/**
 * Splits an NDJSON body into lines. Every line must end with "\n" (the
 * body ends with one); returns the lines without it. A body that does not
 * end with a newline keeps its last partial line, flagged in `partial`.
 */
export function ndjsonLines(body) {
  const parts = body.split('\n');
  const partial = parts.pop(); // '' when the body ends with '\n'
  const lines = parts;
  lines.partial = partial;
  return lines;
}

/** Parses NDJSON lines; throws naming the line that does not parse. */
export function parseNdjson(body) {
  const lines = ndjsonLines(body);
  if (lines.partial !== '') throw new Error(`NDJSON body does not end with a newline: ${JSON.stringify(lines.partial)}`);
  return lines.map((l, i) => {
    try {
      return JSON.parse(l);
    } catch (e) {
      throw new Error(`NDJSON line ${i} does not parse (${e.message}): ${l}`);
    }
  });
}

/**
 * Splits an SSE body into events (blocks separated by a blank line).
 * Returns [{raw, data, comments}], where `data` joins the block's "data:"
 * lines (one space after the colon stripped, as the SSE spec says) and
 * null when the block has none; `partial` holds any text after the last
 * blank line ('' for a well-ended stream).
 */
export function sseEvents(body) {
  const blocks = body.split('\n\n');
  const partial = blocks.pop();
  const events = blocks.map((raw) => {
    const data = [];
    const comments = [];
    for (const line of raw.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1));
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    return { raw, data: data.length ? data.join('\n') : null, comments };
  });
  events.partial = partial;
  return events;
}

/**
 * Arrival time (ms) of each NDJSON line: the time of the chunk in which
 * the line's newline arrived.
 */
export function ndjsonLineTimes(chunks) {
  const times = [];
  for (const c of chunks) {
    for (const ch of c.text) if (ch === '\n') times.push(c.t);
  }
  return times;
}

/** Arrival time (ms) of each SSE event (the chunk in which its blank line completed). */
export function sseEventTimes(chunks) {
  const times = [];
  let text = '';
  let seen = 0;
  for (const c of chunks) {
    text += c.text;
    let i;
    while ((i = text.indexOf('\n\n', seen)) >= 0) {
      times.push(c.t);
      seen = i + 2;
    }
  }
  return times;
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (!n) return NaN;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

export function gaps(times) {
  const g = [];
  for (let i = 1; i < times.length; i++) g.push(times[i] - times[i - 1]);
  return g;
}

/** Waits for a promise at most `ms`, rejecting with `what` otherwise. */
export async function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// ---- request bodies of each API, with small defaults ---------------------

export function ollamaGenerate({ model = DEFAULT_MODEL, prompt = 'Why is the sky blue?', n = 4, stream = true } = {}) {
  return { model, prompt, stream, options: { num_predict: n, temperature: 0 } };
}

export function ollamaChat({ model = DEFAULT_MODEL, content = 'Why is the sky blue?', n = 4, stream = true } = {}) {
  return { model, messages: [{ role: 'user', content }], stream, options: { num_predict: n, temperature: 0 } };
}

export function oaiCompletion({ model = DEFAULT_MODEL, prompt = 'Why is the sky blue?', n = 4, stream = false, usage } = {}) {
  const b = { model, prompt, max_tokens: n, stream, temperature: 0 };
  if (usage !== undefined) b.stream_options = { include_usage: usage };
  return b;
}

export function oaiChat({ model = DEFAULT_MODEL, content = 'Why is the sky blue?', n = 4, stream = false, usage } = {}) {
  const b = { model, messages: [{ role: 'user', content }], max_tokens: n, stream, temperature: 0 };
  if (usage !== undefined) b.stream_options = { include_usage: usage };
  return b;
}

export function llamaCompletion({ prompt = 'Why is the sky blue?', n = 4, stream = false, model } = {}) {
  const b = { prompt, n_predict: n, stream };
  if (model !== undefined) b.model = model;
  return b;
}

/**
 * The text of a streamed body of any route, concatenated from its chunks,
 * and the number of chunks that carried text. Ignores lines or events that
 * do not parse (the malformed fault) and [DONE].
 */
export function streamedText(route, body) {
  let text = '';
  let pieces = 0;
  const add = (s) => {
    if (typeof s === 'string' && s.length) {
      text += s;
      pieces++;
    }
  };
  if (route === '/api/generate' || route === '/api/chat') {
    for (const line of ndjsonLines(body)) {
      let o;
      try {
        o = JSON.parse(line);
      } catch {
        continue;
      }
      add(route === '/api/generate' ? o.response : o.message?.content);
    }
  } else {
    for (const ev of sseEvents(body)) {
      if (ev.data === null || ev.data === '[DONE]') continue;
      let o;
      try {
        o = JSON.parse(ev.data);
      } catch {
        continue;
      }
      if (route === '/completion') add(o.content);
      else if (route === '/v1/completions') add(o.choices?.[0]?.text);
      else add(o.choices?.[0]?.delta?.content);
    }
  }
  return { text, pieces };
}

/** The text of a non-streamed JSON response of any route. */
export function wholeText(route, json) {
  switch (route) {
    case '/api/generate':
      return json.response;
    case '/api/chat':
      return json.message.content;
    case '/v1/completions':
      return json.choices[0].text;
    case '/v1/chat/completions':
      return json.choices[0].message.content;
    case '/completion':
      return json.content;
    default:
      throw new Error(`unknown route ${route}`);
  }
}

/** A request body for `route` (streamed or not) with n tokens. */
export function bodyFor(route, { n = 4, stream = false, prompt = 'Why is the sky blue?', model, usage } = {}) {
  switch (route) {
    case '/api/generate':
      return ollamaGenerate({ n, stream, prompt, ...(model ? { model } : {}) });
    case '/api/chat':
      return ollamaChat({ n, stream, content: prompt, ...(model ? { model } : {}) });
    case '/v1/completions':
      return oaiCompletion({ n, stream, prompt, usage, ...(model ? { model } : {}) });
    case '/v1/chat/completions':
      return oaiChat({ n, stream, content: prompt, usage, ...(model ? { model } : {}) });
    case '/completion':
      return llamaCompletion({ n, stream, prompt, model });
    default:
      throw new Error(`unknown route ${route}`);
  }
}

export const INFERENCE_ROUTES = ['/api/generate', '/api/chat', '/v1/completions', '/v1/chat/completions', '/completion'];

export const isOllama = (route) => route.startsWith('/api/');

// ---- running `truecost` with a chosen environment, signals ---------------

/**
 * Spawns `truecost <args>` with `env` (default: this process's environment;
 * a key set to undefined is removed) and returns at once with
 * {proc, done, output(), kill(signal)}:
 *   done     a promise of {code, signal, stdout, stderr, ms} once it exited
 *            (ms: from spawn to exit); SIGKILLs it after timeoutMs and then
 *            resolves with timedOut: true
 *   output() {stdout, stderr} captured so far
 * Pass `t` (a node:test context) to have it killed in t.after() if it still
 * runs when the test ends.
 */
export function spawnTruecost(args, { env, timeoutMs = 30_000, t } = {}) {
  let childEnv = process.env;
  if (env) {
    childEnv = { ...process.env, ...env };
    for (const k of Object.keys(childEnv)) if (childEnv[k] === undefined) delete childEnv[k];
  }
  const t0 = performance.now();
  const proc = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv });
  live.add(proc);
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  proc.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  proc.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const timer = setTimeout(() => {
    timedOut = true;
    proc.kill('SIGKILL');
  }, timeoutMs);
  const done = new Promise((resolve, reject) => {
    proc.on('error', (e) => {
      clearTimeout(timer);
      live.delete(proc);
      reject(new Error(`cannot start ${BIN}: ${e.message} (set TRUECOST_BIN)`));
    });
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(proc);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - t0, timedOut });
    });
  });
  const kill = (signal = 'SIGKILL') => {
    try {
      proc.kill(signal);
    } catch {
      // already gone
    }
  };
  if (t)
    t.after(async () => {
      if (proc.exitCode === null && proc.signalCode === null) {
        kill('SIGKILL');
        await done.catch(() => {});
      }
    });
  return { proc, done, output: () => ({ stdout, stderr }), kill };
}

/** Runs `truecost <args>` to completion with spawnTruecost's options. */
export async function runCli(args, opts = {}) {
  const r = await spawnTruecost(args, opts).done;
  if (r.timedOut) throw new Error(`truecost ${args.join(' ')} did not exit within ${opts.timeoutMs ?? 30_000} ms; stderr: ${r.stderr}`);
  return r;
}

/**
 * Parses CSV text (RFC 4180: quoted fields with "" escapes, CRLF or LF line
 * ends). Returns an array of rows (arrays of strings); throws on a quote
 * that is never closed.
 */
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      i++;
    } else if (ch === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (ch === '\n' || ch === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += ch;
      i++;
    }
  }
  if (quoted) throw new Error('CSV: a quoted field is never closed');
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Value at quantile q (0..1) of xs, exact (nearest rank on the sorted samples). */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i];
}

/**
 * Starts a tiny HTTP server on 127.0.0.1 (free port) with `handler(req, res)`.
 * Returns {port, url, server, close()}; close() ends every connection and is
 * safe to call twice. Pass `t` to have close() registered with t.after().
 */
export async function startHttp(handler, { t } = {}) {
  const server = http.createServer(handler);
  const sockets = new Set();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  let closing = null;
  const close = () => {
    if (!closing) {
      closing = new Promise((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    }
    return closing;
  };
  if (t) t.after(close);
  return { port, url: `http://127.0.0.1:${port}`, server, close };
}

/**
 * A pass-through proxy to `target` (a URL) that answers 404 to the paths in
 * `hide` (e.g. ['/api/version'] makes the simulator look like llama.cpp's
 * server). Streams bodies through as they come. Same result as startHttp.
 */
export function startProxy(target, { hide = [], t } = {}) {
  const to = new URL(target);
  return startHttp(
    (req, res) => {
      const p = new URL(req.url, 'http://x').pathname;
      if (hide.includes(p)) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found\n');
        return;
      }
      const up = http.request(
        { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers, agent: false },
        (ur) => {
          res.writeHead(ur.statusCode, ur.headers);
          ur.on('data', (d) => res.write(d));
          ur.on('end', () => res.end());
          ur.on('error', () => res.destroy());
          ur.on('aborted', () => res.destroy());
        },
      );
      up.on('error', () => res.destroy());
      req.pipe(up);
    },
    { t },
  );
}

/**
 * Per-test resources: temporary directories (named PREFIX...) and
 * simulators, all removed or stopped (simulators first) when the test ends,
 * pass or fail.
 */
export function testScope(t, prefix) {
  const sims = [];
  const dirs = [];
  t.after(async () => {
    for (const s of sims) await s.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return {
    dir() {
      const d = tempDir(prefix);
      dirs.push(d);
      return d;
    },
    async sim(args = []) {
      const s = await startSim(args);
      sims.push(s);
      return s;
    },
  };
}

/**
 * An Ollama look-alike on 127.0.0.1 with one model, m1, streaming 5 text
 * lines on /api/generate and /api/chat; `final(n)` gives the fields of the
 * n-th reply's final object (from 0) beyond done: true and done_reason, so a
 * test can leave out what real Ollama versions leave out (a zero metric;
 * prompt_eval_count for a cached prompt in older ones). Same result as
 * startHttp.
 */
export function startFakeOllama(final, { t } = {}) {
  let n = 0;
  const json = (res, obj) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(obj));
  };
  return startHttp(
    (req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/api/version') return json(res, { version: '0.5.0' });
        if (req.url === '/api/tags') return json(res, { models: [{ name: 'm1', model: 'm1' }] });
        if (req.url === '/api/ps') return json(res, { models: [] });
        if (req.url === '/api/show') return json(res, { details: {} });
        if (req.url === '/api/generate' || req.url === '/api/chat') {
          const chat = req.url === '/api/chat';
          const line = (text, done) =>
            JSON.stringify({ model: 'm1', ...(chat ? { message: { role: 'assistant', content: text } } : { response: text }), done }) + '\n';
          res.writeHead(200, { 'content-type': 'application/x-ndjson' });
          for (let i = 0; i < 5; i++) res.write(line(`tok${i} `, false));
          res.end(JSON.stringify({ ...JSON.parse(line('', true)), done_reason: 'stop', ...final(n++) }) + '\n');
          return;
        }
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":"not found"}');
      });
    },
    { t },
  );
}

/** Runs truecost; asserts the exit status and, for a failure, the "truecost: " message. */
export async function expectExit(args, code, { env, stderr: pattern } = {}) {
  const r = await runCli(args, { env, timeoutMs: 30_000 });
  assert.equal(r.code, code, `truecost ${args.join(' ')}: exit ${r.code}, expected ${code}; stderr: ${r.stderr}`);
  if (code !== 0) {
    assert.match(r.stderr, /^truecost: /, `stderr starts with "truecost: ": ${r.stderr}`);
    if (pattern) assert.match(r.stderr, pattern);
  }
  return r;
}
