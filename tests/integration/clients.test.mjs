// Wire compatibility of `truecost sim`, proven by the real npm clients
// `ollama` and `openai` installed in tests/node (cd tests/node && npm ci).
//
// Without tests/node/node_modules these tests are skipped, unless
// TC_REQUIRE_NPM_CLIENTS=1, in which case a missing package fails them.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { DEFAULT_MODEL, REPO_ROOT, bodyFor, post, startSim, wholeText } from './helpers.mjs';

const NODE_DIR = path.join(REPO_ROOT, 'tests', 'node');
const REQUIRED = process.env.TC_REQUIRE_NPM_CLIENTS === '1';

let ollamaPkg = null;
let openaiPkg = null;
let loadError = null;
let skip = false;
if (!existsSync(path.join(NODE_DIR, 'node_modules')) && !REQUIRED) {
  skip = 'tests/node/node_modules is missing: run `npm ci` in tests/node (set TC_REQUIRE_NPM_CLIENTS=1 to make this a failure)';
} else {
  try {
    const require = createRequire(path.join(NODE_DIR, 'package.json'));
    ollamaPkg = require('ollama');
    openaiPkg = require('openai');
  } catch (e) {
    loadError = new Error(`cannot load the npm clients from ${NODE_DIR} (run \`npm ci\` there): ${e.message}`);
  }
}

function clientTest(name, fn) {
  test(name, { skip }, async (t) => {
    if (loadError) throw loadError;
    await fn(t);
  });
}

const N = 5;
const PROMPT = 'Tell me about the simulated sky.';

let sim;
before(async () => {
  if (skip || loadError) return;
  sim = await startSim(['--ttft-ms', '1', '--decode-tps', '2000']);
});
after(() => sim?.stop());

/** The text a plain stream:false request returns for `route`. */
async function expectedText(route, n = N) {
  const res = await post(sim.url, route, bodyFor(route, { n, prompt: PROMPT }));
  assert.equal(res.status, 200, res.body);
  return wholeText(route, res.json);
}

function ollama() {
  return new ollamaPkg.Ollama({ host: sim.url });
}

function openai(url = sim.url) {
  const OpenAI = openaiPkg.OpenAI ?? openaiPkg.default;
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-dummy-not-a-key', maxRetries: 0, timeout: 10_000 });
}

function isNotFound(e) {
  return e instanceof openaiPkg.NotFoundError || (e instanceof openaiPkg.APIError && e.status === 404);
}

// ---- ollama ----------------------------------------------------------------

clientTest('ollama: generate, not streamed', async () => {
  const want = await expectedText('/api/generate');
  const r = await ollama().generate({ model: DEFAULT_MODEL, prompt: PROMPT, stream: false, options: { num_predict: N, temperature: 0 } });
  assert.equal(r.response, want);
  assert.equal(r.done, true);
  assert.equal(r.done_reason, 'length');
  assert.equal(r.eval_count, N);
  assert.ok(r.eval_duration > 0);
});

clientTest('ollama: generate, streamed', async () => {
  const want = await expectedText('/api/generate');
  const stream = await ollama().generate({ model: DEFAULT_MODEL, prompt: PROMPT, stream: true, options: { num_predict: N, temperature: 0 } });
  let text = '';
  const parts = [];
  for await (const part of stream) {
    parts.push(part);
    text += part.response;
  }
  assert.equal(text, want);
  assert.equal(parts.length, N + 1);
  const last = parts.at(-1);
  assert.equal(last.done, true);
  assert.equal(last.eval_count, N);
  assert.ok(parts.slice(0, -1).every((p) => p.done === false));
});

clientTest('ollama: chat, not streamed', async () => {
  const want = await expectedText('/api/chat');
  const r = await ollama().chat({ model: DEFAULT_MODEL, messages: [{ role: 'user', content: PROMPT }], stream: false, options: { num_predict: N, temperature: 0 } });
  assert.equal(r.message.role, 'assistant');
  assert.equal(r.message.content, want);
  assert.equal(r.eval_count, N);
});

clientTest('ollama: chat, streamed', async () => {
  const want = await expectedText('/api/chat');
  const stream = await ollama().chat({ model: DEFAULT_MODEL, messages: [{ role: 'user', content: PROMPT }], stream: true, options: { num_predict: N, temperature: 0 } });
  let text = '';
  let last;
  for await (const part of stream) {
    text += part.message.content;
    last = part;
  }
  assert.equal(text, want);
  assert.equal(last.done, true);
  assert.equal(last.eval_count, N);
});

clientTest('ollama: list, ps, show, version', async () => {
  const c = ollama();
  const list = await c.list();
  assert.deepEqual(
    list.models.map((m) => m.name),
    [DEFAULT_MODEL],
  );
  const ps = await c.ps();
  assert.ok(ps.models[0].size_vram > 0);
  const show = await c.show({ model: DEFAULT_MODEL });
  assert.equal(typeof show.details.parameter_size, 'string');
  assert.ok(show.model_info['general.parameter_count'] > 0);
  const v = await c.version();
  assert.equal(typeof v.version, 'string');
});

clientTest('ollama: an unknown model raises a 404 ResponseError', async () => {
  await assert.rejects(ollama().generate({ model: 'no-such-model', prompt: PROMPT, stream: false }), (e) => {
    assert.equal(e.status_code, 404);
    assert.match(e.message, /no-such-model/);
    return true;
  });
  await assert.rejects(ollama().chat({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }], stream: true }), (e) => e.status_code === 404);
});

// ---- openai ----------------------------------------------------------------

clientTest('openai: completions.create, not streamed', async () => {
  const want = await expectedText('/v1/completions');
  const r = await openai().completions.create({ model: DEFAULT_MODEL, prompt: PROMPT, max_tokens: N, temperature: 0 });
  assert.equal(r.choices[0].text, want);
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.equal(r.usage.completion_tokens, N);
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + N);
});

clientTest('openai: completions.create, streamed with include_usage', async () => {
  const want = await expectedText('/v1/completions');
  const stream = await openai().completions.create({
    model: DEFAULT_MODEL,
    prompt: PROMPT,
    max_tokens: N,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  const chunks = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
    text += chunk.choices[0]?.text ?? '';
  }
  assert.equal(text, want);
  const last = chunks.at(-1);
  assert.deepEqual(last.choices, []);
  assert.equal(last.usage.completion_tokens, N);
  assert.equal(chunks.at(-2).choices[0].finish_reason, 'length');
});

clientTest('openai: chat.completions.create, not streamed', async () => {
  const want = await expectedText('/v1/chat/completions');
  const r = await openai().chat.completions.create({ model: DEFAULT_MODEL, messages: [{ role: 'user', content: PROMPT }], max_tokens: N, temperature: 0 });
  assert.equal(r.choices[0].message.role, 'assistant');
  assert.equal(r.choices[0].message.content, want);
  assert.equal(r.choices[0].finish_reason, 'length');
  assert.equal(r.usage.completion_tokens, N);
});

clientTest('openai: chat.completions.create, streamed with include_usage', async () => {
  const want = await expectedText('/v1/chat/completions');
  const stream = await openai().chat.completions.create({
    model: DEFAULT_MODEL,
    messages: [{ role: 'user', content: PROMPT }],
    max_tokens: N,
    temperature: 0,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = '';
  const chunks = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
    text += chunk.choices[0]?.delta?.content ?? '';
  }
  assert.equal(text, want);
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  assert.equal(chunks.at(-1).usage.completion_tokens, N);
  assert.deepEqual(chunks.at(-1).choices, []);
});

clientTest('openai: chat stream helper (runner) gives the final completion', async () => {
  const want = await expectedText('/v1/chat/completions');
  const runner = openai().chat.completions.stream({
    model: DEFAULT_MODEL,
    messages: [{ role: 'user', content: PROMPT }],
    max_tokens: N,
    stream_options: { include_usage: true },
  });
  const final = await runner.finalChatCompletion();
  assert.equal(final.choices[0].message.content, want);
  assert.equal(final.usage.completion_tokens, N);
});

clientTest('openai: models.list', async () => {
  const ids = [];
  for await (const m of openai().models.list()) ids.push(m.id);
  assert.deepEqual(ids, [DEFAULT_MODEL]);
});

clientTest('openai: an unknown model raises NotFoundError (404)', async () => {
  const c = openai();
  await assert.rejects(c.completions.create({ model: 'no-such-model', prompt: PROMPT, max_tokens: 2 }), isNotFound);
  await assert.rejects(c.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }], max_tokens: 2 }), isNotFound);
  await assert.rejects(
    c.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }], max_tokens: 2, stream: true }),
    isNotFound,
  );
});

clientTest('http503 fault: both clients raise an error with status 503', async (t) => {
  const s = await startSim(['--ttft-ms', '1', '--decode-tps', '2000', '--fault', 'http503:1'], { t });
  await assert.rejects(openai(s.url).completions.create({ model: DEFAULT_MODEL, prompt: PROMPT, max_tokens: 2 }), (e) => e instanceof openaiPkg.APIError && e.status === 503);
  await assert.rejects(new ollamaPkg.Ollama({ host: s.url }).generate({ model: DEFAULT_MODEL, prompt: PROMPT, stream: false }), (e) => e.status_code === 503);
});
