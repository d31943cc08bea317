// `truecost run` given bad input, a fresh machine, and an API key: every
// failure gets a clear answer (its exit status, and a stderr that starts with
// "truecost: " and names the problem), and the key is sent but never stored
// or printed.
//
// Every test starts its own servers on 127.0.0.1 and uses its own temporary
// directory; everything it started is stopped in t.after().
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { DEFAULT_MODEL, expectExit, runCli, startHttp, startProxy, startSim, tempDir, testScope } from './helpers.mjs';

const FAST = ['--ttft-ms', '1', '--decode-tps', '1000'];

function scope(t) {
  return testScope(t, 'truecost-runerr-');
}

/** A port on 127.0.0.1 where nothing listens (it was free a moment ago). */
async function closedPort() {
  const s = await startHttp(() => {});
  const { port } = s;
  await s.close();
  return port;
}

// ---- a fresh machine ------------------------------------------------------------

test('a fresh HOME: run creates ~/.local/share/truecost/truecost.db; runs finds it', async (t) => {
  const sc = scope(t);
  const home = sc.dir();
  const sim = await sc.sim(FAST);
  const env = { HOME: home, TRUECOST_DB: undefined, XDG_DATA_HOME: undefined };
  const r = await runCli(['run', sim.url, '-n', '2', '--max-tokens', '4', '--json'], { env, timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  const db = path.join(home, '.local', 'share', 'truecost', 'truecost.db');
  assert.ok(existsSync(db), `created ${db}`);
  const id = JSON.parse(r.stdout).run.id;
  const runs = JSON.parse((await runCli(['runs', '--json'], { env })).stdout);
  assert.deepEqual(runs.map((x) => x.id), [id]);
});

test('XDG_DATA_HOME and TRUECOST_DB choose the database', async (t) => {
  const sc = scope(t);
  const home = sc.dir();
  const xdg = path.join(home, 'xdg');
  const sim = await sc.sim(FAST);
  let r = await runCli(['run', sim.url, '-n', '1', '--max-tokens', '2'], { env: { HOME: home, TRUECOST_DB: undefined, XDG_DATA_HOME: xdg } });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(path.join(xdg, 'truecost', 'truecost.db')), 'the database is under $XDG_DATA_HOME/truecost');
  assert.ok(!existsSync(path.join(home, '.local')), 'nothing under ~/.local');
  const own = path.join(home, 'own.db');
  r = await runCli(['run', sim.url, '-n', '1', '--max-tokens', '2'], { env: { HOME: home, TRUECOST_DB: own, XDG_DATA_HOME: xdg } });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(existsSync(own), '$TRUECOST_DB wins');
  r = await runCli(['runs', '--json'], { env: { HOME: home, TRUECOST_DB: own } });
  assert.equal(JSON.parse(r.stdout).length, 1, 'TRUECOST_DB holds the second run only');
});

test('runs, show and export on an empty HOME: a clear error, exit 2, nothing created', async (t) => {
  const sc = scope(t);
  const home = sc.dir();
  const env = { HOME: home, TRUECOST_DB: undefined, XDG_DATA_HOME: undefined };
  await expectExit(['runs'], 2, { env, stderr: /no database/ });
  await expectExit(['runs', '--json'], 2, { env, stderr: /no database/ });
  await expectExit(['show', '1'], 2, { env, stderr: /no database/ });
  await expectExit(['export', '1'], 2, { env, stderr: /no database/ });
  assert.deepEqual(readdirSync(home), [], 'reading creates no file or directory');
});

// ---- bad endpoints -----------------------------------------------------------------

test('an unreachable URL: exit 2, and what to check', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const port = await closedPort();
  const r = await expectExit(['run', `http://127.0.0.1:${port}`, '--db', db, '-n', '1'], 2, { stderr: /is the server running/ });
  assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${port}`), 'names the URL');
  assert.equal(r.stdout, '');
  assert.ok(!existsSync(db), 'no database is created for a run that never started');
});

test('a URL that answers HTTP but is not an inference server: exit 2', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const paths = [];
  const srv = await startHttp(
    (req, res) => {
      paths.push(req.url);
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('nothing here\n');
    },
    { t },
  );
  const r = await expectExit(['run', srv.url, '--db', db, '-n', '1', '--json'], 2, { stderr: /not an inference server/ });
  assert.match(r.stderr, /check the URL/);
  assert.equal(r.stdout, '', 'nothing on stdout, even with --json');
  assert.ok(paths.includes('/api/version') && paths.includes('/v1/models'), `probed: ${paths}`);
});

test('a bad URL: exit 1', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  await expectExit(['run', 'ftp://127.0.0.1:1', '--db', db], 1);
  await expectExit(['run', 'http://', '--db', db], 1);
});

test('--api that the server does not serve: exit 2 with a hint', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  // An OpenAI-style server (GET /v1/models only) does not speak Ollama or llama.cpp.
  const oai = await fakeOpenAI(t);
  for (const api of ['ollama', 'ollama-chat', 'llamacpp']) {
    const r = await expectExit(['run', oai.url, '--db', db, '--api', api, '-n', '1'], 2, { stderr: new RegExp(`--api ${api}\\b`) });
    assert.match(r.stderr, /OpenAI/, 'says what the server is');
    assert.match(r.stderr, /--api openai-chat/, 'says what to use');
    assert.equal(r.stdout, '');
  }
  assert.equal(oai.seen.filter((x) => x.method === 'POST').length, 0, 'nothing was sent');
  // The simulator behind a proxy that hides /api/version looks like llama.cpp's server.
  const sim = await sc.sim(FAST);
  const llama = await startProxy(sim.url, { hide: ['/api/version'], t });
  const r = await expectExit(['run', llama.url, '--db', db, '--api', 'ollama', '-n', '1'], 2, { stderr: /--api ollama\b/ });
  assert.match(r.stderr, /llama\.cpp/);
  assert.match(r.stderr, /--api llamacpp/);
  // An API name that does not exist is a usage error.
  await expectExit(['run', sim.url, '--db', db, '--api', 'vllm', '-n', '1'], 1, { stderr: /--api 'vllm'.*ollama-chat/ });
});

test('--model: an unknown model lists the served ones; two models and no --model list both', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const one = await sc.sim(FAST);
  await expectExit(['run', one.url, '--db', db, '--model', 'llama-70b', '-n', '1'], 1, { stderr: new RegExp(`llama-70b.*${DEFAULT_MODEL}`) });
  const two = await sc.sim([...FAST, '--model', 'alpha-1b', '--model', 'beta-2b']);
  const r = await expectExit(['run', two.url, '--db', db, '-n', '1'], 1, { stderr: /alpha-1b/ });
  assert.match(r.stderr, /beta-2b/);
  assert.match(r.stderr, /--model/, 'says how to choose');
  // And with --model one of them, it runs.
  const ok = await runCli(['run', two.url, '--db', db, '--model', 'beta-2b', '-n', '1', '--max-tokens', '2', '--json']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).run.model, 'beta-2b');
});

// ---- prompts ----------------------------------------------------------------------------

test('--prompts: a bad JSONL line 3 is named as FILE:3; exit 1', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const sim = await sc.sim(FAST);
  const file = path.join(dir, 'prompts.jsonl');
  writeFileSync(file, '{"prompt": "one"}\n{"prompt": "two"}\n{"prompt": "three"\n{"prompt": "four"}\n');
  await expectExit(['run', sim.url, '--db', path.join(dir, 'db'), '--prompts', file], 1, { stderr: new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3`) });
  await expectExit(['run', sim.url, '--db', path.join(dir, 'db'), '--prompts', path.join(dir, 'missing.txt')], 1, { stderr: /missing\.txt/ });
  await expectExit(['run', sim.url, '--db', path.join(dir, 'db'), '--prompts', file, '--prompt', 'x'], 1, { stderr: /not both/ });
});

test('--prompts with text lines: requests cycle through them in order', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const truth = path.join(dir, 'truth.jsonl');
  const sim = await sc.sim([...FAST, '--truth', truth]);
  const file = path.join(dir, 'prompts.txt');
  // /api/generate counts whitespace-separated words + 1.
  writeFileSync(file, 'one\ntwo words\nthree little words\n');
  const r = await runCli(['run', sim.url, '--db', path.join(dir, 'db'), '--prompts', file, '-n', '6', '--max-tokens', '2', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).requests.measured, 6);
  await sim.stop();
  const lines = readFileSync(truth, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .sort((a, b) => a.client_seq - b.client_seq);
  assert.deepEqual(lines.map((l) => l.client_seq), [0, 1, 2, 3, 4, 5, 6]);
  assert.deepEqual(
    lines.map((l) => l.prompt_tokens),
    [2, 3, 4, 2, 3, 4, 2],
    'seq k uses line k mod 3 (the warm-up is seq 0)',
  );
});

test('--prompts JSONL with messages and max_tokens', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const truth = path.join(dir, 'truth.jsonl');
  const sim = await sc.sim([...FAST, '--truth', truth]);
  const file = path.join(dir, 'prompts.jsonl');
  writeFileSync(file, '{"prompt": "a b c", "max_tokens": 3}\n{"prompt": "d", "max_tokens": 5}\n');
  const r = await runCli(['run', sim.url, '--db', path.join(dir, 'db'), '--prompts', file, '-n', '4', '--warmup', '0', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).tokens.output, 3 + 5 + 3 + 5, 'each prompt keeps its own max_tokens');
  await sim.stop();
  const lines = readFileSync(truth, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .sort((a, b) => a.client_seq - b.client_seq);
  assert.deepEqual(lines.map((l) => [l.prompt_tokens, l.tokens_sent]), [[4, 3], [2, 5], [4, 3], [2, 5]]);
});

// ---- the database ----------------------------------------------------------------------

test('a --db that is not a truecost database: exit 2, and the file is left unchanged', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const sim = await sc.sim(FAST);
  const file = path.join(dir, 'notes.txt');
  const text = 'my notes, not a database\n'.repeat(50);
  writeFileSync(file, text);
  const before = statSync(file);
  await expectExit(['run', sim.url, '--db', file, '-n', '1'], 2, { stderr: /not a truecost database/ });
  await expectExit(['runs', '--db', file], 2, { stderr: /not a truecost database/ });
  await expectExit(['show', '1', '--db', file], 2, { stderr: /not a truecost database/ });
  assert.equal(readFileSync(file, 'utf8'), text, 'the file is unchanged');
  assert.equal(statSync(file).mtimeMs, before.mtimeMs);
  assert.deepEqual(readdirSync(dir).sort(), ['notes.txt'], 'no -wal, -shm or -journal beside it');
  // A directory where the database should be.
  await expectExit(['run', sim.url, '--db', dir, '-n', '1'], 2);
});

test('show and export of a run that does not exist: exit 2 as every command, naming it', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const db = path.join(dir, 'db');
  const sim = await sc.sim(FAST);
  assert.equal((await runCli(['run', sim.url, '--db', db, '-n', '1', '--max-tokens', '2'])).code, 0);
  await expectExit(['show', '42', '--db', db], 2, { stderr: /42/ });
  await expectExit(['show', 'no-such-label', '--db', db], 2, { stderr: /no-such-label/ });
  await expectExit(['export', '42', '--db', db], 2, { stderr: /42/ });
  await expectExit(['export', '1', '--db', db, '--what', 'everything'], 1, { stderr: /--what/ });
  await expectExit(['export', '1', '--db', db, '--format', 'xml'], 1, { stderr: /--format/ });
  await expectExit(['export', '1', '--db', db, '-o', path.join(dir, 'no', 'such', 'dir', 'x.csv')], 2, { stderr: /-o/ });
});

// ---- options -------------------------------------------------------------------------------

test('unknown options and bad values: exit 1 with the option named', async (t) => {
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const url = 'http://127.0.0.1:9';
  await expectExit(['run', url, '--db', db, '--no-such-option'], 1, { stderr: /--no-such-option/ });
  await expectExit(['run', url, '--db', db, '-c', '0'], 1, { stderr: /--concurrency/ });
  await expectExit(['run', url, '--db', db, '-n', 'many'], 1, { stderr: /--requests/ });
  await expectExit(['run', url, '--db', db, '--max-error-rate', '2'], 1, { stderr: /--max-error-rate/ });
  await expectExit(['run', url, '--db', db, '--max-tokens', '0'], 1, { stderr: /--max-tokens/ });
  await expectExit(['run', url, 'http://127.0.0.1:10', '--db', db], 1, { stderr: /unexpected argument/ });
  await expectExit(['run', url, '--db', db, '--api-key-env', 'TRUECOST_TEST_UNSET_VAR'], 1, { stderr: /TRUECOST_TEST_UNSET_VAR/, env: { TRUECOST_TEST_UNSET_VAR: undefined } });
  await expectExit(['runs', '--db', db, '--bogus'], 1, { stderr: /--bogus/ });
  await expectExit(['show', '--db', db], 1, { stderr: /which run/ });
  await expectExit(['run', url, '--db', db, '-n', '5', '--duration', '3'], 1, { stderr: /-n or --duration, not both/ });
  await expectExit(['runs', '--db', db, '--what', 'chunks'], 1, { stderr: /belong to 'truecost export'/ });
  await expectExit(['run', 'http://127.0.0.1:99999', '--db', db], 1, { stderr: /1 to 65535/ });
  await expectExit(['run', 'ftp://u:SECRETPW@host', '--db', db], 1, { stderr: /\*\*\*@host/ });
  // An all-digit label would be read back as a run id by show and export.
  await expectExit(['run', url, '--db', db, '--label', '42'], 1, { stderr: /--label '42'.*digits/ });
  assert.ok(!existsSync(db), 'no database is created by a usage error');
});

// ---- the API key -------------------------------------------------------------------------------

/**
 * A minimal OpenAI-style server: 404 for everything but GET /v1/models and
 * POST /v1/chat/completions (an SSE stream of `max_tokens` one-token chunks,
 * then usage and [DONE]). Records every request's method, path and
 * Authorization header.
 */
async function fakeOpenAI(t) {
  const seen = [];
  const srv = await startHttp(
    (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method, path: req.url, auth: req.headers.authorization, body });
        if (req.method === 'GET' && req.url === '/v1/models') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
          return;
        }
        if (req.method === 'POST' && req.url === '/v1/chat/completions') {
          let n = 4;
          let prompt = 0;
          try {
            const b = JSON.parse(body);
            n = b.max_tokens ?? b.max_completion_tokens ?? 4;
            prompt = JSON.stringify(b.messages).length > 0 ? 7 : 0;
          } catch {
            // keep the defaults
          }
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm' };
          const ev = (o) => res.write(`data: ${JSON.stringify({ ...base, ...o })}\n\n`);
          ev({ choices: [{ index: 0, delta: { role: 'assistant' }, finish_reason: null }] });
          for (let i = 0; i < n; i++) ev({ choices: [{ index: 0, delta: { content: ` w${i}` }, finish_reason: i === n - 1 ? 'length' : null }] });
          ev({ choices: [], usage: { prompt_tokens: prompt, completion_tokens: n, total_tokens: prompt + n } });
          res.end('data: [DONE]\n\n');
          return;
        }
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found"}}');
      });
    },
    { t },
  );
  return { ...srv, seen };
}

const SECRET = 'sk-secret-123';

/** Every file of dir (recursively) as bytes. */
function allBytes(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...allBytes(p));
    else out.push([p, readFileSync(p)]);
  }
  return out;
}

test('--api-key-env: the key is sent as a Bearer token and appears nowhere else', async (t) => {
  const sc = scope(t);
  const dir = sc.dir();
  const dbDir = path.join(dir, 'store');
  const db = path.join(dbDir, 'runs.db');
  const srv = await fakeOpenAI(t);
  const env = { MYKEY: SECRET };
  const r = await runCli(['run', srv.url, '--db', db, '--api-key-env', 'MYKEY', '-n', '3', '--max-tokens', '4', '--label', 'keyed'], { env });
  assert.equal(r.code, 0, r.stderr);
  const posts = srv.seen.filter((s) => s.method === 'POST');
  assert.equal(posts.length, 4, 'warm-up + 3 measured requests');
  for (const s of srv.seen) assert.equal(s.auth, `Bearer ${SECRET}`, `${s.method} ${s.path} carries the key`);
  for (const p of posts) assert.ok(!p.body.includes(SECRET), 'not in the request body');

  const texts = { 'run stdout': r.stdout, 'run stderr': r.stderr };
  const j = await runCli(['run', srv.url, '--db', db, '--api-key-env', 'MYKEY', '-n', '1', '--max-tokens', '2', '--json'], { env });
  assert.equal(j.code, 0, j.stderr);
  const doc = JSON.parse(j.stdout);
  assert.equal(doc.run.api, 'openai-chat', 'an OpenAI-style server gets openai-chat');
  assert.equal(doc.run.model, 'm');
  assert.equal(doc.tokens.source, 'usage');
  assert.equal(doc.tokens.output, 2);
  assert.equal(doc.run.simulated, false, 'a server without x-truecost-simulated is not labelled SIMULATED');
  texts['run --json stdout'] = j.stdout;
  texts['run --json stderr'] = j.stderr;
  for (const args of [
    ['runs'],
    ['runs', '--json'],
    ['show', 'keyed'],
    ['show', 'keyed', '--json'],
    ['export', 'keyed'],
    ['export', 'keyed', '--format', 'json'],
    ['export', 'keyed', '--what', 'chunks'],
    ['export', 'keyed', '--what', 'summary'],
    ['export', 'keyed', '--what', 'summary', '--format', 'json'],
  ]) {
    const x = await runCli([...args, '--db', db], { env });
    assert.equal(x.code, 0, `${args.join(' ')}: ${x.stderr}`);
    texts[`${args.join(' ')} stdout`] = x.stdout;
    texts[`${args.join(' ')} stderr`] = x.stderr;
  }
  for (const [what, text] of Object.entries(texts)) {
    assert.ok(!text.includes(SECRET), `the key is not in ${what}`);
    assert.ok(!text.includes('secret-123'), `no part of the key in ${what}`);
  }
  const files = allBytes(dbDir);
  assert.ok(files.length >= 1);
  for (const [p, bytes] of files) {
    assert.ok(!bytes.includes(Buffer.from(SECRET)), `the key is not in ${p}`);
    assert.ok(!bytes.includes(Buffer.from('secret-123')), `no part of the key in ${p}`);
    assert.ok(!bytes.includes(Buffer.from(SECRET, 'utf16le')), `the key is not in ${p} (UTF-16)`);
  }
});

test('OPENAI_API_KEY is not sent to a local host without --api-key-env', async (t) => {
  const srv = await fakeOpenAI(t);
  const sc = scope(t);
  const db = path.join(sc.dir(), 'db');
  const r = await runCli(['run', srv.url, '--db', db, '-n', '1', '--max-tokens', '2'], { env: { OPENAI_API_KEY: SECRET } });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(srv.seen.length > 0);
  for (const s of srv.seen) assert.equal(s.auth, undefined, `${s.method} ${s.path}: no Authorization header`);
});
